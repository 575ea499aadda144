//! The schema tracker: follows a binlog stream's QUERY and TABLE_MAP events,
//! keeps the catalog true for the current position, records every change in
//! the history, cross-checks TABLE_MAPs, repairs from FULL metadata, and
//! applies the unparseable-DDL policy. It owns the decision of which schema
//! decodes which event; it never reads the network itself (a
//! [`MetadataSource`] does) and never hands out misaligned columns.

use std::collections::BTreeSet;
use std::sync::Arc;

use sluice_binlog::TableMap;

use crate::binlog_meta::{enrich, mismatches, schema_from_binlog};
use crate::catalog::{snippet, ApplyContext, Catalog, DdlOutcome, Delta};
use crate::error::{Result, SchemaError};
use crate::history::{catalog_at, HistoryRecord, RepairSource, SchemaHistoryStore};
use crate::lexer::{tokenize, LexOptions, Tok};
use crate::metadata::{read_catalog, read_table, MetadataSource, TableFilter};
use crate::position::BinlogPosition;
use crate::read_ddl::ParsedBy;
use crate::redact::redact_with;
use crate::status_vars::parse_status_vars;

/// What to do with a DDL statement that cannot be read (or whose effect
/// cannot be known from its text). See the crate documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnparseableDdlPolicy {
    /// Stop with an error naming the position and the statement.
    Fail,
    /// Log a warning and go on; the tables the statement names are marked
    /// stale. A stale table is rebuilt from the next TABLE_MAP that carries
    /// FULL metadata; until then its rows are decoded from the binlog alone
    /// (no column names, no signedness), never with the old names.
    SkipWithWarning,
    /// Read the tables the statement names from the server when the stream
    /// is at the server's current position (and a source is set); otherwise
    /// mark them stale like `SkipWithWarning`, except that a stale table's
    /// rows are an error until FULL metadata or a later DDL redefines it.
    #[default]
    Reread,
}

/// Tracker settings.
#[derive(Debug, Clone)]
pub struct TrackerOptions {
    pub policy: UnparseableDdlPolicy,
    /// Statements were written by MySQL (`/*M! */` comments are not run).
    pub mysql: bool,
    /// Write a full snapshot after this many recorded changes (0: never).
    pub snapshot_every: usize,
}

impl Default for TrackerOptions {
    fn default() -> Self {
        TrackerOptions {
            policy: UnparseableDdlPolicy::default(),
            mysql: false,
            snapshot_every: 200,
        }
    }
}

/// Follows the binlog and answers which schema decodes each event.
pub struct SchemaTracker {
    catalog: Catalog,
    store: Box<dyn SchemaHistoryStore>,
    source: Option<Box<dyn MetadataSource + Send>>,
    options: TrackerOptions,
    /// Records loaded from the store or appended since.
    records: Vec<HistoryRecord>,
    /// Records up to this index are reflected in `catalog`.
    applied: usize,
    /// The position of the last event handled.
    position: Option<BinlogPosition>,
    live: bool,
    since_snapshot: usize,
    warned_stale: BTreeSet<(String, String)>,
    /// Where the history is (for messages).
    location: String,
    /// The start of a record the store found torn at the end and left out.
    torn_tail: Option<String>,
}

impl std::fmt::Debug for SchemaTracker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaTracker")
            .field("tables", &self.catalog.tables().count())
            .field("records", &self.records.len())
            .field("position", &self.position)
            .field("live", &self.live)
            .finish_non_exhaustive()
    }
}

impl SchemaTracker {
    /// Loads the history from `store`; the catalog is the latest state.
    pub fn open(mut store: Box<dyn SchemaHistoryStore>, options: TrackerOptions) -> Result<Self> {
        let records = store.load()?;
        let location = store.location();
        let torn_tail = store.torn_tail().map(str::to_string);
        let mut t = SchemaTracker {
            catalog: Catalog::new(),
            store,
            source: None,
            options,
            records,
            applied: 0,
            position: None,
            live: false,
            since_snapshot: 0,
            warned_stale: BTreeSet::new(),
            location,
            torn_tail,
        };
        if let Some(last) = t.records.last().map(|r| r.position().clone()) {
            t.start_at(&last);
        }
        Ok(t)
    }

    /// Whether the history holds anything (false at the very first start).
    pub fn has_history(&self) -> bool {
        !self.records.is_empty()
    }

    /// The history as loaded and appended.
    pub fn records(&self) -> &[HistoryRecord] {
        &self.records
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The catalog as it was at `position` (from the history).
    pub fn catalog_at(&self, position: &BinlogPosition) -> Catalog {
        catalog_at(&self.records, position)
    }

    /// Sets where the live schema can be read (for `Reread`).
    pub fn set_metadata_source(&mut self, source: Box<dyn MetadataSource + Send>) {
        self.source = Some(source);
    }

    /// Tells the tracker whether the stream is at the server's current
    /// position (so the server's schema is the schema of now).
    pub fn set_live(&mut self, live: bool) {
        self.live = live;
    }

    pub fn options(&self) -> &TrackerOptions {
        &self.options
    }

    pub fn set_policy(&mut self, policy: UnparseableDdlPolicy) {
        self.options.policy = policy;
    }

    /// First start: reads every selected table from the server and records
    /// the catalog as a snapshot at `position` (where streaming begins).
    pub fn seed(
        &mut self,
        source: &dyn MetadataSource,
        filter: TableFilter<'_>,
        position: &BinlogPosition,
    ) -> Result<()> {
        let catalog = read_catalog(source, filter, position)?;
        self.record_snapshot(position, "seeded from the server", catalog)
    }

    /// Starts from an empty catalog at `position` (when the stream creates
    /// every table it will see).
    pub fn seed_empty(&mut self, position: &BinlogPosition) -> Result<()> {
        self.record_snapshot(position, "empty", Catalog::new())
    }

    fn record_snapshot(
        &mut self,
        position: &BinlogPosition,
        reason: &str,
        catalog: Catalog,
    ) -> Result<()> {
        let rec = HistoryRecord::Snapshot {
            position: position.clone(),
            reason: reason.to_string(),
            catalog,
        };
        self.store.append(&rec)?;
        self.torn_tail = None;
        self.records.push(rec);
        self.start_at(position);
        self.since_snapshot = 0;
        Ok(())
    }

    /// How many source changes the history has recorded: the epoch of its
    /// last record (see [`BinlogPosition::epoch`]).
    pub fn epoch(&self) -> u32 {
        self.records.last().map_or(0, |r| r.position().epoch)
    }

    /// The source changed server (a failover) at `position`, whose epoch
    /// is one more than the history's: the current catalog is recorded
    /// there, so that what follows, and a restart there, build on it.
    pub fn source_changed(&mut self, position: &BinlogPosition) -> Result<()> {
        self.snapshot(position, "source failover")
    }

    /// Writes a snapshot of the current catalog at `position`.
    pub fn snapshot(&mut self, position: &BinlogPosition, reason: &str) -> Result<()> {
        let catalog = self.catalog.clone();
        self.record_snapshot(position, reason, catalog)
    }

    /// A restart at `position` on an existing history: checks that the
    /// history can give the schema there, then [`start_at`](Self::start_at).
    /// It cannot when no snapshot lies at or before `position` (the history
    /// begins later, or lost its beginning), or when a record was torn off
    /// its end and `position` lies beyond the last intact record (the lost
    /// record may be a change before `position`). Those are errors naming
    /// the history and the fix: decoding on with a guessed schema would
    /// deliver rows under wrong columns. A torn tail that the intact
    /// records still cover is dropped with a warning.
    pub fn resume_at(&mut self, position: &BinlogPosition) -> Result<()> {
        let fix = crate::history::DAMAGED_HISTORY_FIX;
        let Some(last) = self.records.last().map(|r| r.position().clone()) else {
            return Err(self.history_error(format!(
                "holds no record, so it cannot give the schema at the start position \
                 {position}; {fix}"
            )));
        };
        let covered = self
            .records
            .iter()
            .any(|r| matches!(r, HistoryRecord::Snapshot { .. }) && r.position() <= position);
        if !covered {
            let first = self
                .records
                .iter()
                .find(|r| matches!(r, HistoryRecord::Snapshot { .. }))
                .map(|r| format!("its first snapshot is at {}", r.position()))
                .unwrap_or_else(|| "it has no snapshot".to_string());
            return Err(self.history_error(format!(
                "cannot give the schema at the start position {position}: {first}; {fix}"
            )));
        }
        if let Some(torn) = &self.torn_tail {
            if *position > last {
                return Err(self.history_error(format!(
                    "ends with a torn record ({torn}) after its last intact record at {last}; \
                     the lost record may be a schema change before the start position \
                     {position}, so the schema there is unknown; {fix}"
                )));
            }
            tracing::warn!(
                path = %self.location,
                start = %position,
                last_intact = %last,
                "schema history ends with a torn record ({torn}); dropping it: the intact \
                 records cover the start position"
            );
        }
        self.start_at(position);
        Ok(())
    }

    fn history_error(&self, message: String) -> SchemaError {
        SchemaError::History {
            path: self.location.clone(),
            message,
        }
    }

    /// Positions the tracker at `position` (a restart, possibly older than
    /// the history's end): the catalog becomes the one of that time, and
    /// events up to the history's end replay their recorded changes.
    pub fn start_at(&mut self, position: &BinlogPosition) {
        self.catalog = catalog_at(&self.records, position);
        self.applied = self
            .records
            .iter()
            .rposition(|r| r.position() <= position)
            .map(|i| i + 1)
            .unwrap_or(0);
        self.position = Some(position.clone());
    }

    /// The end of the recorded history.
    fn history_end(&self) -> Option<&BinlogPosition> {
        self.records.last().map(HistoryRecord::position)
    }

    /// Whether an event ending at `end` lies within recorded history.
    fn replaying(&self, end: &BinlogPosition) -> bool {
        self.history_end().is_some_and(|h| end <= h)
    }

    /// Applies recorded records up to `end`.
    fn catch_up(&mut self, end: &BinlogPosition) {
        while let Some(r) = self.records.get(self.applied) {
            if r.position() > end {
                break;
            }
            r.apply(&mut self.catalog);
            self.applied += 1;
        }
        self.position = Some(end.clone());
    }

    fn append(&mut self, rec: HistoryRecord) -> Result<()> {
        self.store.append(&rec)?;
        // The store cut the torn tail before writing.
        self.torn_tail = None;
        rec.apply(&mut self.catalog);
        self.records.push(rec);
        self.applied = self.records.len();
        self.since_snapshot += 1;
        if self.options.snapshot_every > 0 && self.since_snapshot >= self.options.snapshot_every {
            let p = self.records.last().map(|r| r.position().clone());
            if let Some(p) = p {
                self.snapshot(&p, "periodic")?;
            }
        }
        Ok(())
    }

    /// A QUERY event. `end` is the position just after the event (where
    /// its effect begins); `db` its default database; `status_vars` its
    /// status variables (for sql_mode and the server collation).
    pub fn on_query(
        &mut self,
        end: &BinlogPosition,
        db: &str,
        sql: &str,
        status_vars: &[u8],
    ) -> Result<DdlOutcome> {
        if let Some(kw) = crate::fallback_parser::first_keyword(sql) {
            if !["CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE"]
                .iter()
                .any(|w| w.eq_ignore_ascii_case(kw))
            {
                self.catch_up(end);
                return Ok(DdlOutcome {
                    kind: kw.to_ascii_uppercase(),
                    parsed_by: ParsedBy::Classifier,
                    deltas: vec![],
                    notes: vec![],
                });
            }
        }
        if self.replaying(end) {
            let before = self.applied;
            self.catch_up(end);
            let deltas = self.records[before..self.applied]
                .iter()
                .filter_map(|r| match r {
                    HistoryRecord::Ddl { deltas, .. } => Some(deltas.clone()),
                    _ => None,
                })
                .flatten()
                .collect();
            return Ok(DdlOutcome {
                kind: "replayed".into(),
                parsed_by: ParsedBy::Classifier,
                deltas,
                notes: vec!["replayed from the schema history".into()],
            });
        }
        self.catch_up(end);
        let status = parse_status_vars(status_vars);
        let ctx = ApplyContext {
            current_db: db.to_string(),
            server_collation: status.server_collation(),
            lex: status.lex_options(self.options.mysql),
        };
        // From here on the statement may be logged, quoted in an error or
        // recorded in the history: never with a password in it.
        let sql = &*redact_with(sql, ctx.lex);
        let mut scratch = self.catalog.clone();
        match scratch.apply_ddl(&ctx, sql, end) {
            Ok(outcome) => {
                if outcome.changed_schema() {
                    self.append(HistoryRecord::Ddl {
                        position: end.clone(),
                        db: db.to_string(),
                        sql: sql.to_string(),
                        kind: outcome.kind.clone(),
                        parsed_by: Some(outcome.parsed_by),
                        deltas: outcome.deltas.clone(),
                        unparsed: None,
                    })?;
                }
                for n in &outcome.notes {
                    tracing::debug!(position = %end, "{n}");
                }
                Ok(outcome)
            }
            Err(
                e @ (SchemaError::Unparseable { .. }
                | SchemaError::Incomplete { .. }
                | SchemaError::Inconsistent { .. }),
            ) => self.unreadable(end, &ctx, sql, e),
            Err(e) => Err(e),
        }
    }

    /// Applies the policy to a statement whose effect is unknown.
    fn unreadable(
        &mut self,
        end: &BinlogPosition,
        ctx: &ApplyContext,
        sql: &str,
        error: SchemaError,
    ) -> Result<DdlOutcome> {
        if self.options.policy == UnparseableDdlPolicy::Fail {
            return Err(error);
        }
        let targets = target_tables(sql, ctx.lex, &ctx.current_db);
        if targets.is_empty() {
            // Nothing says which table it touched: stopping is the only
            // way not to decode with a wrong schema.
            return Err(error);
        }
        let reason = error.to_string();
        let can_reread = self.options.policy == UnparseableDdlPolicy::Reread
            && self.live
            && self.source.is_some();
        let mut deltas = Vec::new();
        let mut how = "marked stale";
        if can_reread {
            if let Some(source) = self.source.as_deref() {
                for (db, name) in &targets {
                    match read_table(source, &self.catalog, db, name, end)? {
                        Some(t) => deltas.push(Delta::PutTable { table: t }),
                        None => deltas.push(Delta::RemoveTable {
                            db: db.clone(),
                            name: name.clone(),
                        }),
                    }
                }
                how = "re-read from the server";
            }
        } else {
            for (db, name) in &targets {
                deltas.push(Delta::MarkStale {
                    db: db.clone(),
                    name: name.clone(),
                    reason: snippet(&reason),
                });
            }
        }
        let names: Vec<String> = targets.iter().map(|(d, n)| format!("{d}.{n}")).collect();
        tracing::warn!(
            position = %end,
            tables = %names.join(", "),
            "DDL not understood ({reason}); tables {how}"
        );
        let kind = "UNPARSED".to_string();
        self.append(HistoryRecord::Ddl {
            position: end.clone(),
            db: ctx.current_db.clone(),
            sql: sql.to_string(),
            kind: kind.clone(),
            parsed_by: None,
            deltas: deltas.clone(),
            unparsed: Some(format!("{how}: {}", snippet(&reason))),
        })?;
        Ok(DdlOutcome {
            kind,
            parsed_by: ParsedBy::Fallback,
            deltas,
            notes: vec![format!("{how}: {reason}")],
        })
    }

    /// A TABLE_MAP event ending at `end`: returns the table map to decode its
    /// rows with (names, signedness, collations, labels and key filled in
    /// from the tracked schema), after checking that the two agree. With
    /// FULL metadata a disagreement is repaired from the binlog (warning,
    /// recorded in the history); without it, it is an error.
    pub fn on_table_map(&mut self, end: &BinlogPosition, tm: &TableMap) -> Result<Arc<TableMap>> {
        let replaying = self.replaying(end);
        self.catch_up(end);
        let (db, name) = (tm.schema.as_str(), tm.table.as_str());
        let qualified = format!("{db}.{name}");
        if let Some(mark) = self.catalog.stale(db, name).cloned() {
            if let Some(t) = schema_from_binlog(tm, self.catalog.table(db, name)) {
                if !replaying {
                    tracing::warn!(
                        table = %qualified,
                        position = %end,
                        "schema unknown since {} ({}); rebuilt from the binlog's FULL metadata",
                        mark.since,
                        mark.reason
                    );
                    self.record_repair(
                        end,
                        &qualified,
                        RepairSource::BinlogMetadata,
                        "stale table rebuilt",
                        t,
                    )?;
                }
                return Ok(Arc::new(self.enriched(tm)));
            }
            if self.options.policy == UnparseableDdlPolicy::SkipWithWarning {
                if self.warned_stale.insert((db.to_string(), name.to_string())) {
                    tracing::warn!(
                        table = %qualified,
                        position = %end,
                        "schema unknown since {}; rows decoded from the binlog alone (no column names)",
                        mark.since
                    );
                }
                return Ok(Arc::new(tm.clone()));
            }
            return Err(SchemaError::Stale {
                position: end.to_string(),
                table: qualified,
                since: mark.since.to_string(),
                reason: mark.reason,
            });
        }
        let Some(schema) = self.catalog.table(db, name) else {
            if let Some(t) = schema_from_binlog(tm, None) {
                if !replaying {
                    tracing::warn!(table = %qualified, position = %end, "table not tracked; built from the binlog's FULL metadata");
                    self.record_repair(
                        end,
                        &qualified,
                        RepairSource::BinlogMetadata,
                        "untracked table",
                        t,
                    )?;
                }
                return Ok(Arc::new(self.enriched(tm)));
            }
            if let Some(t) = self.read_unknown(db, name, end)? {
                tracing::info!(table = %qualified, position = %end, "table not tracked; read from the server");
                self.record_repair(end, &qualified, RepairSource::Server, "untracked table", t)?;
                return self.checked(end, tm, &qualified);
            }
            if self.options.policy == UnparseableDdlPolicy::SkipWithWarning {
                if self.warned_stale.insert((db.to_string(), name.to_string())) {
                    tracing::warn!(table = %qualified, position = %end, "table not tracked; rows decoded from the binlog alone");
                }
                return Ok(Arc::new(tm.clone()));
            }
            return Err(SchemaError::UnknownTable {
                position: end.to_string(),
                table: qualified,
            });
        };
        let diff = mismatches(schema, tm);
        if diff.is_empty() {
            return Ok(Arc::new(enrich(tm, schema)));
        }
        let why = diff.join("; ");
        if let Some(t) = schema_from_binlog(tm, Some(schema)) {
            if !replaying {
                tracing::warn!(
                    table = %qualified,
                    position = %end,
                    "tracked schema disagrees with the binlog ({why}); trusting the binlog's FULL metadata"
                );
                self.record_repair(end, &qualified, RepairSource::BinlogMetadata, &why, t)?;
            }
            return Ok(Arc::new(self.enriched(tm)));
        }
        if let Some(t) = self.reread(db, name, end)? {
            tracing::warn!(table = %qualified, position = %end, "tracked schema disagrees with the binlog ({why}); re-read from the server");
            self.record_repair(end, &qualified, RepairSource::Server, &why, t)?;
            return self.checked(end, tm, &qualified);
        }
        Err(SchemaError::Mismatch {
            position: end.to_string(),
            table: qualified,
            message: why,
        })
    }

    fn enriched(&self, tm: &TableMap) -> TableMap {
        match self.catalog.table(&tm.schema, &tm.table) {
            Some(s) => enrich(tm, s),
            None => tm.clone(),
        }
    }

    /// After a re-read: the table map must now match, or it is an error.
    fn checked(
        &self,
        end: &BinlogPosition,
        tm: &TableMap,
        qualified: &str,
    ) -> Result<Arc<TableMap>> {
        let Some(schema) = self.catalog.table(&tm.schema, &tm.table) else {
            return Err(SchemaError::UnknownTable {
                position: end.to_string(),
                table: qualified.to_string(),
            });
        };
        let diff = mismatches(schema, tm);
        if diff.is_empty() {
            Ok(Arc::new(enrich(tm, schema)))
        } else {
            Err(SchemaError::Mismatch {
                position: end.to_string(),
                table: qualified.to_string(),
                message: format!("even after re-reading from the server: {}", diff.join("; ")),
            })
        }
    }

    /// A table the catalog lacks, from the server, when a source is set and
    /// the server's definition can be the one of `end`: the stream is live,
    /// or the history records no change to the table after `end` (a
    /// replay of recorded history would otherwise take a later definition
    /// for an earlier one). The result is still checked against the
    /// TABLE_MAP before any row is decoded with it. A refusal for lack of
    /// privilege is an error naming the table, the position and the GRANT
    /// that fixes it; nothing is recorded, so a retry after the GRANT reads
    /// the table.
    fn read_unknown(
        &self,
        db: &str,
        name: &str,
        end: &BinlogPosition,
    ) -> Result<Option<crate::model::TableSchema>> {
        let Some(source) = &self.source else {
            return Ok(None);
        };
        let later_change = self
            .records
            .iter()
            .any(|r| r.position() > end && r.touches(db, name));
        if !self.live && later_change {
            return Ok(None);
        }
        match read_table(source.as_ref(), &self.catalog, db, name, end) {
            Err(SchemaError::MetadataDenied { account, message }) => Err(SchemaError::ReadDenied {
                position: end.to_string(),
                table: format!("{db}.{name}"),
                grant: format!("GRANT SELECT ON `{}`.* TO {account}", db.replace('`', "``")),
                account,
                message,
            }),
            other => other,
        }
    }

    /// The table from the server, when the stream is live and a source is set.
    fn reread(
        &self,
        db: &str,
        name: &str,
        end: &BinlogPosition,
    ) -> Result<Option<crate::model::TableSchema>> {
        match (&self.source, self.live) {
            (Some(source), true) => read_table(source.as_ref(), &self.catalog, db, name, end),
            _ => Ok(None),
        }
    }

    fn record_repair(
        &mut self,
        end: &BinlogPosition,
        table: &str,
        source: RepairSource,
        reason: &str,
        schema: crate::model::TableSchema,
    ) -> Result<()> {
        self.append(HistoryRecord::Repair {
            position: end.clone(),
            table: table.to_string(),
            source,
            reason: reason.to_string(),
            deltas: vec![Delta::PutTable { table: schema }],
        })
    }
}

/// The tables a statement names, read leniently (for statements the parsers
/// rejected): after `TABLE [IF [NOT] EXISTS]` in CREATE/ALTER/DROP/TRUNCATE,
/// both sides of RENAME TABLE, and `ON tbl` of CREATE/DROP INDEX.
pub fn target_tables(sql: &str, lex: LexOptions, current_db: &str) -> Vec<(String, String)> {
    let Ok(tokens) = tokenize(sql, lex) else {
        return vec![];
    };
    let toks: Vec<&Tok> = tokens.iter().map(|t| &t.tok).collect();
    let name_at = |i: usize| -> Option<((String, String), usize)> {
        let ident = |t: &Tok| match t {
            Tok::Word(w) | Tok::Quoted(w) => Some(w.clone()),
            _ => None,
        };
        let a = ident(toks.get(i)?)?;
        if toks.get(i + 1).is_some_and(|t| t.is_punct(".")) {
            let b = ident(toks.get(i + 2)?)?;
            Some(((a, b), i + 3))
        } else {
            Some(((current_db.to_string(), a), i + 1))
        }
    };
    let first = toks.first().map(|t| match t {
        Tok::Word(w) => w.to_ascii_uppercase(),
        _ => String::new(),
    });
    let mut out = Vec::new();
    let Some(first) = first else { return out };
    let Some(table_at) = toks.iter().take(8).position(|t| t.is_kw("TABLE")) else {
        if let Some(on) = toks.iter().position(|t| t.is_kw("ON")) {
            if matches!(first.as_str(), "CREATE" | "DROP")
                && toks.iter().take(6).any(|t| t.is_kw("INDEX"))
            {
                if let Some((n, _)) = name_at(on + 1) {
                    out.push(n);
                }
            }
        }
        return out;
    };
    if !matches!(
        first.as_str(),
        "CREATE" | "ALTER" | "DROP" | "RENAME" | "TRUNCATE"
    ) {
        return out;
    }
    let mut i = table_at + 1;
    while toks
        .get(i)
        .is_some_and(|t| t.is_kw("IF") || t.is_kw("NOT") || t.is_kw("EXISTS"))
    {
        i += 1;
    }
    while let Some((n, next)) = name_at(i) {
        out.push(n);
        i = next;
        if first == "RENAME" && toks.get(i).is_some_and(|t| t.is_kw("TO")) {
            i += 1;
            continue;
        }
        if (first == "DROP" || first == "RENAME") && toks.get(i).is_some_and(|t| t.is_punct(",")) {
            i += 1;
            continue;
        }
        break;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_targets_of_unreadable_statements() {
        let l = LexOptions::default();
        assert_eq!(
            target_tables("ALTER TABLE `s`.t FROBNICATE", l, "d"),
            vec![("s".to_string(), "t".to_string())]
        );
        assert_eq!(
            target_tables("CREATE TABLE IF NOT EXISTS t (a WEIRDTYPE)", l, "d"),
            vec![("d".to_string(), "t".to_string())]
        );
        assert_eq!(
            target_tables("RENAME TABLE a TO b, c TO d", l, "x").len(),
            4
        );
        assert!(target_tables("GRANT ALL ON t TO u", l, "d").is_empty());
    }
}

#[cfg(test)]
mod policy_tests {
    use super::*;
    use crate::history::MemoryHistoryStore;

    fn tracker(policy: UnparseableDdlPolicy) -> SchemaTracker {
        let mut t = SchemaTracker::open(
            Box::new(MemoryHistoryStore::default()),
            TrackerOptions {
                policy,
                ..TrackerOptions::default()
            },
        )
        .unwrap();
        t.seed_empty(&BinlogPosition::new("binlog.000001", 4))
            .unwrap();
        t.on_query(
            &BinlogPosition::new("binlog.000001", 100),
            "d",
            "CREATE TABLE t (a INT)",
            &[],
        )
        .unwrap();
        t
    }

    const GARBAGE: &str = "ALTER TABLE t FROBNICATE COLUMN a";

    #[test]
    fn fail_stops() {
        let mut t = tracker(UnparseableDdlPolicy::Fail);
        let e = t
            .on_query(
                &BinlogPosition::new("binlog.000001", 200),
                "d",
                GARBAGE,
                &[],
            )
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("binlog.000001:200") && e.contains("FROBNICATE"),
            "{e}"
        );
        assert!(t.catalog().stale("d", "t").is_none());
    }

    #[test]
    fn skip_and_reread_mark_stale_when_not_live() {
        for p in [
            UnparseableDdlPolicy::SkipWithWarning,
            UnparseableDdlPolicy::Reread,
        ] {
            let mut t = tracker(p);
            let o = t
                .on_query(
                    &BinlogPosition::new("binlog.000001", 200),
                    "d",
                    GARBAGE,
                    &[],
                )
                .unwrap();
            assert_eq!(o.kind, "UNPARSED");
            assert!(t.catalog().stale("d", "t").is_some());
            // Before the statement the table is known and not stale.
            let before = t.catalog_at(&BinlogPosition::new("binlog.000001", 150));
            assert!(before.table("d", "t").is_some() && before.stale("d", "t").is_none());
        }
    }

    #[test]
    fn statement_without_a_target_stops_under_every_policy() {
        for p in [
            UnparseableDdlPolicy::SkipWithWarning,
            UnparseableDdlPolicy::Reread,
        ] {
            let mut t = tracker(p);
            assert!(t
                .on_query(
                    &BinlogPosition::new("binlog.000001", 200),
                    "d",
                    "CREATE TABLE",
                    &[]
                )
                .is_err());
        }
    }

    #[test]
    fn non_ddl_is_not_recorded() {
        let mut t = tracker(UnparseableDdlPolicy::Fail);
        let n = t.records().len();
        for q in [
            "BEGIN",
            "COMMIT",
            "INSERT INTO t VALUES (1)",
            "GRANT ALL ON *.* TO u",
            "CREATE VIEW v AS SELECT 1",
        ] {
            let o = t
                .on_query(&BinlogPosition::new("binlog.000001", 300), "d", q, &[])
                .unwrap();
            assert!(!o.changed_schema(), "{q}");
        }
        assert_eq!(t.records().len(), n);
    }
}
