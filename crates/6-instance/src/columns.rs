//! A destination's column filters (`canal.instance.filter.field` and
//! `.black.field`) as the rules its outputs resolve per table: the
//! runner's entries, the initial snapshot's, a change stream's events.

use std::sync::Arc;

use sluice_config::{FieldRule, InstanceConfig};
use sluice_events::{CanalColumnRules, ColumnRules};

/// The rules of a white and a black list in Canal's syntax, parsed;
/// `None` when both are empty (no table pays for column filtering).
pub fn canal_rules(white: &[FieldRule], black: &[FieldRule]) -> Option<Arc<dyn ColumnRules>> {
    if white.is_empty() && black.is_empty() {
        return None;
    }
    let pairs = |list: &'_ [FieldRule]| -> Vec<(String, Vec<String>)> {
        list.iter()
            .map(|r| (r.table.clone(), r.columns.clone()))
            .collect()
    };
    let (white, black) = (pairs(white), pairs(black));
    let rules = CanalColumnRules::new(
        white.iter().map(|(t, c)| (t.as_str(), c)),
        black.iter().map(|(t, c)| (t.as_str(), c)),
    );
    Some(Arc::new(rules))
}

/// A destination's column rules (see [`canal_rules`]).
pub fn instance_rules(config: &InstanceConfig) -> Option<Arc<dyn ColumnRules>> {
    let rules = canal_rules(&config.filter_field, &config.filter_black_field);
    if rules.is_some() {
        tracing::info!(
            destination = %config.destination,
            shown = ?config.filter_field,
            hidden = ?config.filter_black_field,
            "column filters: only these columns of those tables are published"
        );
    }
    rules
}

/// The rules of a white and a black list written in Canal's syntax
/// (`db.table:col1/col2,...`, e.g. `sluice tail --columns`); the error
/// names the list (`white_name` or `black_name`) and the rule at fault.
pub fn parse_canal_rules(
    (white_name, white): (&str, &str),
    (black_name, black): (&str, &str),
) -> Result<Option<Arc<dyn ColumnRules>>, String> {
    let white =
        sluice_config::parse_field_rules(white).map_err(|e| format!("{white_name}: {e}"))?;
    let black =
        sluice_config::parse_field_rules(black).map_err(|e| format!("{black_name}: {e}"))?;
    Ok(canal_rules(&white, &black))
}
