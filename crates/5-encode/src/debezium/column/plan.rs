//! One column of a table as Debezium writes it ([`ColumnPlan`]), and what
//! writing its values needs: the reused buffers ([`Scratch`]) and why a
//! value could not be written ([`ValueProblem`]).

use std::sync::Arc;

use sluice_events::Column;

use super::super::masks::Mask;
use super::super::text::push_str;
use super::super::DebeziumOptions;
use super::default::default_json;
use super::kind::{declared, kind_of, Kind};

/// One column of a table as Debezium writes it.
#[derive(Debug, Clone)]
pub(crate) struct ColumnPlan {
    /// `"name":`, escaped, ready to write before the value.
    pub field: String,
    pub name: String,
    pub kind: Kind,
    pub optional: bool,
    /// The column's DEFAULT as Debezium writes it (JSON text): in the
    /// field's schema, and in place of a null value.
    pub default: Option<String>,
    /// Shown in `before`/`after` and the value schema (column filters).
    pub kept: bool,
    /// The mask of its values (a character column a mask property names),
    /// with the declared length a hash is cut to.
    pub mask: Option<(Arc<Mask>, Option<usize>)>,
}

impl ColumnPlan {
    pub fn new(column: &Column<'_>, options: &DebeziumOptions) -> Self {
        let name = if column.name.is_empty() {
            format!("@{}", column.index + 1)
        } else {
            column.name.to_string()
        };
        let mut field = String::with_capacity(name.len() + 3);
        push_str(&mut field, &name);
        field.push(':');
        let mut plan = ColumnPlan {
            field,
            name,
            kind: kind_of(column, options),
            optional: column.def.nullable && !column.is_key,
            default: None,
            kept: true,
            mask: None,
        };
        plan.default = default_json(column.default, &plan.kind, plan.optional, options);
        plan
    }

    /// Whether a mask applies to the column's kind: Debezium masks the
    /// JDBC character kinds, which its MySQL connector gives CHAR,
    /// VARCHAR, the TEXT types, ENUM and SET.
    pub fn maskable(&self) -> bool {
        matches!(self.kind, Kind::Text | Kind::Enum(_) | Kind::Set(_))
    }

    /// The declared length of a `char(n)`/`varchar(n)` column: what a
    /// hash mask is cut to.
    pub fn declared_length(column: &Column<'_>) -> Option<usize> {
        let declared = declared(column);
        let (_, rest) = declared.split_once('(')?;
        let (n, _) = rest.split_once(')')?;
        if !(declared.starts_with("char")
            || declared.starts_with("varchar")
            || declared.starts_with("nchar")
            || declared.starts_with("nvarchar")
            || declared.starts_with("national"))
        {
            return None;
        }
        n.trim().parse().ok()
    }

    /// What a null is written as: the DEFAULT when there is one (Kafka's
    /// JsonConverter replaces a null by the schema's default,
    /// `replace.null.with.default`), else null.
    pub fn null(&self) -> &str {
        self.default.as_deref().unwrap_or("null")
    }
}

/// Why a value could not be written.
pub(crate) enum ValueProblem {
    /// The decoded value is not of the column's kind.
    Mismatch(String),
    Decode(sluice_binlog::DecodeError),
}

/// Buffers reused from value to value.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    pub text: String,
    pub bytes: Vec<u8>,
}
