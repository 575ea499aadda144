//! Sluice's [`HistoryRecord`] to Debezium's history records and back; see
//! the module documentation of [`super`] for the shapes.

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};
use sluice_schema::catalog::{ApplyContext, Catalog, Delta};
use sluice_schema::collation::default_collation;
use sluice_schema::tracker::target_tables;
use sluice_schema::{BinlogPosition, ColumnSchema, HistoryRecord, TableSchema};
use tracing::{debug, warn};

use super::ddl_text::{create_database_sql, create_table_sql, drop_table_sql, quote_string};
use crate::offset::partition;
use crate::SourceOffset;

/// The version of the `sluice` field this code writes and reads.
const SLUICE_FIELD_VERSION: u64 = 1;

/// One Debezium history record: a JSON object (§3.1 of Debezium's
/// `HistoryRecord`), possibly with a `sluice` field.
pub type DebeziumRecord = Map<String, Value>;

/// What the binlog said about the event a record is written for, beyond
/// its position: Debezium puts `server_id`, `ts_sec` and `gtids` in the
/// record's `position`. The engine sets it before it hands the tracker an
/// event; a store without one writes `file` and `pos` only.
#[derive(Debug, Default)]
pub struct SourceContext {
    current: Mutex<EventSource>,
}

#[derive(Debug, Default, Clone)]
struct EventSource {
    server_id: u64,
    ts_sec: u64,
    gtids: Option<String>,
}

impl SourceContext {
    pub fn new() -> Arc<SourceContext> {
        Arc::new(SourceContext::default())
    }

    /// The `server_id` and time (seconds) of the current event, and the
    /// executed GTID set to resume with, if the source has GTIDs.
    pub fn set(&self, server_id: u64, ts_sec: u64, gtids: Option<String>) {
        // A poisoned lock only means a writer panicked mid-assignment of
        // plain values: the value is still usable.
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        *current = EventSource {
            server_id,
            ts_sec,
            gtids,
        };
    }

    fn get(&self) -> EventSource {
        self.current
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

/// Turns Sluice's history records into Debezium's and back, for the
/// connector whose `topic.prefix` is `server`. It follows the catalog the
/// history builds, because a Debezium record names every table a change
/// removes (a snapshot's dropped tables, a dropped database's tables).
#[derive(Debug)]
pub struct HistoryCodec {
    server: String,
    context: Option<Arc<SourceContext>>,
    /// The catalog after every record encoded or decoded so far, in order.
    catalog: Catalog,
}

/// A snapshot whose parts are being read.
struct PendingSnapshot {
    position: BinlogPosition,
    reason: String,
    /// The catalog's JSON without its tables.
    catalog: Value,
    parts: u64,
    seen: u64,
    tables: Vec<Value>,
    at: String,
}

impl HistoryCodec {
    pub fn new(server: impl Into<String>) -> HistoryCodec {
        HistoryCodec {
            server: server.into(),
            context: None,
            catalog: Catalog::new(),
        }
    }

    /// Takes `server_id`, `ts_sec` and `gtids` of the records' positions
    /// from `context`.
    pub fn with_source_context(mut self, context: Arc<SourceContext>) -> HistoryCodec {
        self.context = Some(context);
        self
    }

    /// The connector's `topic.prefix`: `source.server` of every record.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The catalog the records so far build.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Debezium's `position` for a Sluice position.
    fn position(&self, position: &BinlogPosition) -> Value {
        let source = self.context.as_ref().map(|c| c.get()).unwrap_or_default();
        let offset = SourceOffset {
            file: position.file.clone(),
            pos: position.offset,
            gtids: source.gtids,
            server_id: source.server_id,
            ts_sec: source.ts_sec,
            ..SourceOffset::default()
        };
        Value::Object(offset.to_map())
    }

    fn record(
        &self,
        position: &Value,
        database: Option<&str>,
        ddl: Option<&str>,
        changes: Vec<Value>,
        sluice: Value,
    ) -> DebeziumRecord {
        let mut r = Map::new();
        r.insert("source".into(), partition(&self.server));
        r.insert("position".into(), position.clone());
        r.insert("ts_ms".into(), now_ms().into());
        if let Some(db) = database {
            r.insert("databaseName".into(), db.into());
        }
        if let Some(ddl) = ddl {
            r.insert("ddl".into(), ddl.into());
        }
        r.insert("tableChanges".into(), Value::Array(changes));
        r.insert("sluice".into(), sluice);
        r
    }

    /// The Debezium records that store `record`, in order. The codec's
    /// catalog does not change: call [`written`](Self::written) once they
    /// are stored.
    pub fn encode(&self, record: &HistoryRecord) -> Result<Vec<DebeziumRecord>, String> {
        let position = self.position(record.position());
        match record {
            HistoryRecord::Ddl {
                db, sql, deltas, ..
            } => {
                let changes = self.table_changes(deltas);
                let sluice = json!({"v": SLUICE_FIELD_VERSION, "record": record});
                Ok(vec![self.record(
                    &position,
                    Some(db),
                    Some(sql),
                    changes,
                    sluice,
                )])
            }
            HistoryRecord::Repair { deltas, table, .. } => {
                let changes = self.table_changes(deltas);
                let statements: Vec<String> = deltas
                    .iter()
                    .filter_map(|d| match d {
                        Delta::PutTable { table } => Some(format!(
                            "{}; {}",
                            drop_table_sql(&table.db, &table.name),
                            create_table_sql(table)
                        )),
                        Delta::RemoveTable { db, name } => Some(drop_table_sql(db, name)),
                        _ => None,
                    })
                    .collect();
                let db = table.split_once('.').map(|(d, _)| d).unwrap_or("");
                let sluice = json!({"v": SLUICE_FIELD_VERSION, "record": record});
                let ddl = statements.join("; ");
                let ddl = (!ddl.is_empty()).then_some(ddl.as_str());
                Ok(vec![self.record(&position, Some(db), ddl, changes, sluice)])
            }
            HistoryRecord::Snapshot {
                position: at,
                reason,
                catalog,
            } => self.encode_snapshot(&position, at, reason, catalog),
        }
    }

    fn encode_snapshot(
        &self,
        position: &Value,
        at: &BinlogPosition,
        reason: &str,
        catalog: &Catalog,
    ) -> Result<Vec<DebeziumRecord>, String> {
        let mut catalog_json = serde_json::to_value(catalog)
            .map_err(|e| format!("cannot write the catalog as JSON: {e}"))?;
        // The tables go in records of their own; the head keeps the rest.
        if let Value::Object(map) = &mut catalog_json {
            map.remove("tables");
        }
        let databases: Vec<_> = catalog.databases().collect();
        let tables: Vec<_> = catalog.tables().collect();
        let parts = (databases.len() + tables.len()) as u64;
        // Tables the snapshot no longer has: dropped for a Debezium reader,
        // whose schema a snapshot otherwise only adds to.
        let dropped: Vec<Value> = self
            .catalog
            .tables()
            .filter(|t| catalog.table(&t.db, &t.name).is_none())
            .map(|t| drop_change(&t.db, &t.name))
            .collect();
        let head = json!({
            "v": SLUICE_FIELD_VERSION,
            "snapshot": {
                "position": at,
                "reason": reason,
                "catalog": catalog_json,
                "parts": parts,
            }
        });
        let mut out = vec![self.record(position, None, None, dropped, head)];
        let mut part = 0u64;
        for db in databases {
            part += 1;
            out.push(self.record(
                position,
                Some(&db.name),
                Some(&create_database_sql(db)),
                Vec::new(),
                json!({"v": SLUICE_FIELD_VERSION, "snapshot_part": part}),
            ));
        }
        for t in tables {
            part += 1;
            out.push(self.record(
                position,
                Some(&t.db),
                Some(&create_table_sql(t)),
                vec![table_change("CREATE", t, None)],
                json!({"v": SLUICE_FIELD_VERSION, "snapshot_part": part, "table": t}),
            ));
        }
        Ok(out)
    }

    /// The table changes of a list of deltas, against the codec's catalog.
    fn table_changes(&self, deltas: &[Delta]) -> Vec<Value> {
        let mut changes = Vec::new();
        let mut i = 0;
        while i < deltas.len() {
            match &deltas[i] {
                Delta::PutTable { table } => {
                    let kind = if self.catalog.table(&table.db, &table.name).is_some() {
                        "ALTER"
                    } else {
                        "CREATE"
                    };
                    changes.push(table_change(kind, table, None));
                }
                Delta::RemoveTable { db, name } => match deltas.get(i + 1) {
                    // A rename (the old table removed, the same table put
                    // under its new name): Debezium's ALTER with `previousId`.
                    Some(Delta::PutTable { table })
                        if (table.db.as_str(), table.name.as_str())
                            != (db.as_str(), name.as_str()) =>
                    {
                        changes.push(table_change("ALTER", table, Some((db, name))));
                        i += 1;
                    }
                    _ => changes.push(drop_change(db, name)),
                },
                Delta::RemoveDatabase { name } => changes.extend(
                    self.catalog
                        .tables()
                        .filter(|t| t.db.eq_ignore_ascii_case(name))
                        .map(|t| drop_change(&t.db, &t.name)),
                ),
                // Debezium keeps no databases and has no stale tables.
                Delta::PutDatabase { .. } | Delta::MarkStale { .. } => {}
            }
            i += 1;
        }
        changes
    }

    /// Records that `record` is stored (the catalog follows it).
    pub fn written(&mut self, record: &HistoryRecord) {
        record.apply(&mut self.catalog);
    }

    /// Reads a whole history: `records` are the stored Debezium records in
    /// storage order, each with where it was found (for messages). The
    /// codec's catalog becomes the one they build.
    pub fn decode_all(&mut self, records: Vec<(String, Value)>) -> Vec<HistoryRecord> {
        self.catalog = Catalog::new();
        let mut out = Vec::new();
        let mut pending: Option<PendingSnapshot> = None;
        // The position of the last record of a run of Java snapshot records.
        let mut java_snapshot: Option<BinlogPosition> = None;
        for (at, value) in records {
            let Value::Object(record) = value else {
                warn!(record = %at, "schema history record is not a JSON object; skipped");
                continue;
            };
            let (Some(Value::Object(source)), Some(Value::Object(position))) =
                (record.get("source"), record.get("position"))
            else {
                warn!(record = %at, "schema history record without `source` or `position` (not valid for Debezium either); skipped");
                continue;
            };
            if source.get("server").and_then(Value::as_str) != Some(self.server.as_str()) {
                let other = Value::Object(source.clone()).to_string();
                debug!(record = %at, source = %other, "schema history record of another connector; ignored");
                continue;
            }
            let sluice = record
                .get("sluice")
                .filter(|s| s.get("v").and_then(Value::as_u64) == Some(SLUICE_FIELD_VERSION));
            if let Some(sluice) = sluice {
                if let Some(part) = sluice.get("snapshot_part").and_then(Value::as_u64) {
                    match pending.as_mut() {
                        Some(p) if part == p.seen + 1 => {
                            p.seen = part;
                            if let Some(t) = sluice.get("table") {
                                p.tables.push(t.clone());
                            }
                            if p.seen == p.parts {
                                if let Some(p) = pending.take() {
                                    self.finish_snapshot(p, &mut out);
                                }
                            }
                        }
                        _ => {
                            warn!(record = %at, part, "schema history snapshot part without the parts before it; skipped");
                            if let Some(p) = pending.take() {
                                incomplete(&p);
                            }
                        }
                    }
                    continue;
                }
                if let Some(p) = pending.take() {
                    incomplete(&p);
                }
                self.end_java_snapshot(&mut java_snapshot, &mut out);
                if let Some(head) = sluice.get("snapshot") {
                    match read_snapshot_head(head, &at) {
                        Ok(p) if p.parts == 0 => self.finish_snapshot(p, &mut out),
                        Ok(p) => pending = Some(p),
                        Err(e) => {
                            warn!(record = %at, "schema history snapshot head unreadable ({e}); skipped")
                        }
                    }
                    continue;
                }
                match sluice
                    .get("record")
                    .map(|r| serde_json::from_value::<HistoryRecord>(r.clone()))
                {
                    Some(Ok(r)) => {
                        r.apply(&mut self.catalog);
                        out.push(r);
                    }
                    other => {
                        let why = match other {
                            Some(Err(e)) => e.to_string(),
                            _ => "no record in it".into(),
                        };
                        warn!(record = %at, "the `sluice` field is unreadable ({why}); the record is read as Debezium wrote it");
                        self.decode_java(&at, &record, position, &mut java_snapshot, &mut out);
                    }
                }
                continue;
            }
            if let Some(p) = pending.take() {
                incomplete(&p);
            }
            self.decode_java(&at, &record, position, &mut java_snapshot, &mut out);
        }
        if let Some(p) = pending.take() {
            incomplete(&p);
        }
        self.end_java_snapshot(&mut java_snapshot, &mut out);
        out
    }

    fn finish_snapshot(&mut self, p: PendingSnapshot, out: &mut Vec<HistoryRecord>) {
        let mut catalog = p.catalog;
        if let Value::Object(map) = &mut catalog {
            map.insert("tables".into(), Value::Array(p.tables));
        }
        match serde_json::from_value::<Catalog>(catalog) {
            Ok(catalog) => {
                self.catalog = catalog.clone();
                out.push(HistoryRecord::Snapshot {
                    position: p.position,
                    reason: p.reason,
                    catalog,
                });
            }
            Err(e) => warn!(record = %p.at, "schema history snapshot unreadable ({e}); skipped"),
        }
    }

    /// Ends a run of Java snapshot records with a Sluice snapshot of what
    /// they built, so that a restart in it has a snapshot to start from.
    fn end_java_snapshot(
        &mut self,
        java_snapshot: &mut Option<BinlogPosition>,
        out: &mut Vec<HistoryRecord>,
    ) {
        if let Some(position) = java_snapshot.take() {
            out.push(HistoryRecord::Snapshot {
                position,
                reason: "snapshot recorded by Debezium".into(),
                catalog: self.catalog.clone(),
            });
        }
    }

    /// A record without a (readable) `sluice` field: rebuilt from its
    /// `ddl`, or its `tableChanges`.
    fn decode_java(
        &mut self,
        at: &str,
        record: &DebeziumRecord,
        position: &Map<String, Value>,
        java_snapshot: &mut Option<BinlogPosition>,
        out: &mut Vec<HistoryRecord>,
    ) {
        let offset = match SourceOffset::from_map(position) {
            Ok(o) => o,
            Err(e) => {
                warn!(record = %at, "schema history record with an unreadable position ({e}); skipped");
                return;
            }
        };
        let position = BinlogPosition::new(offset.file.clone(), offset.pos);
        let in_snapshot = offset.snapshot.is_some();
        if !in_snapshot {
            self.end_java_snapshot(java_snapshot, out);
        }
        if out.is_empty() {
            // Debezium starts from an empty schema. (Only at the start: a
            // snapshot later would replace what the records before built.)
            out.push(HistoryRecord::Snapshot {
                position: position.clone(),
                reason: "start of a history recorded by Debezium".into(),
                catalog: Catalog::new(),
            });
        }
        if in_snapshot {
            *java_snapshot = Some(position.clone());
        }
        let db = record
            .get("databaseName")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let ddl = record.get("ddl").and_then(Value::as_str);
        let changes = record
            .get("tableChanges")
            .and_then(Value::as_array)
            .filter(|c| !c.is_empty());
        let rebuilt = match (ddl, changes) {
            (Some(sql), changes) => {
                let ctx = ApplyContext {
                    current_db: db.clone(),
                    ..ApplyContext::default()
                };
                // On error `apply_ddl` changes nothing; on success the
                // record applied again below changes nothing more (every
                // delta is idempotent), so no copy of the catalog is needed.
                match self.catalog.apply_ddl(&ctx, sql, &position) {
                    Ok(outcome) if outcome.deltas.is_empty() && changes.is_none() => None,
                    Ok(outcome) if !outcome.deltas.is_empty() => Some(HistoryRecord::Ddl {
                        position: position.clone(),
                        db: db.clone(),
                        sql: sql.to_string(),
                        kind: outcome.kind,
                        parsed_by: Some(outcome.parsed_by),
                        deltas: outcome.deltas,
                        unparsed: None,
                    }),
                    // Parsed but no change, while Debezium recorded
                    // changes: its table changes say what happened.
                    Ok(_) => {
                        self.rebuild_from_changes(at, &position, &db, Some(sql), changes, None)
                    }
                    Err(e) => {
                        let why = e.to_string();
                        match changes {
                            Some(_) => self.rebuild_from_changes(
                                at,
                                &position,
                                &db,
                                Some(sql),
                                changes,
                                Some(why),
                            ),
                            None => self.unreadable(at, &position, &db, sql, why),
                        }
                    }
                }
            }
            (None, Some(_)) => self.rebuild_from_changes(at, &position, &db, None, changes, None),
            (None, None) => None,
        };
        if let Some(r) = rebuilt {
            r.apply(&mut self.catalog);
            out.push(r);
        }
    }

    fn rebuild_from_changes(
        &self,
        at: &str,
        position: &BinlogPosition,
        db: &str,
        sql: Option<&str>,
        changes: Option<&Vec<Value>>,
        parse_error: Option<String>,
    ) -> Option<HistoryRecord> {
        let mut deltas = Vec::new();
        for change in changes.into_iter().flatten() {
            match delta_of_change(change) {
                Ok(mut d) => deltas.append(&mut d),
                Err(e) => {
                    warn!(record = %at, "schema history table change unreadable ({e}); skipped");
                }
            }
        }
        if deltas.is_empty() {
            return None;
        }
        if let Some(e) = &parse_error {
            debug!(record = %at, "DDL not parsed ({e}); tables taken from the record's table changes");
        }
        Some(HistoryRecord::Ddl {
            position: position.clone(),
            db: db.to_string(),
            sql: sql.unwrap_or("").to_string(),
            kind: "TABLE CHANGES".into(),
            parsed_by: None,
            deltas,
            unparsed: parse_error
                .map(|e| format!("tables taken from the record's table changes: {e}")),
        })
    }

    /// A Java record whose DDL does not parse and which carries no table
    /// changes: the tables it names are marked stale.
    fn unreadable(
        &self,
        at: &str,
        position: &BinlogPosition,
        db: &str,
        sql: &str,
        why: String,
    ) -> Option<HistoryRecord> {
        let targets = target_tables(sql, Default::default(), db);
        if targets.is_empty() {
            warn!(record = %at, "schema history DDL not understood ({why}) and it names no table; skipped");
            return None;
        }
        warn!(record = %at, "schema history DDL not understood ({why}); its tables are marked stale");
        let reason = format!("DDL in the schema history not understood: {why}");
        Some(HistoryRecord::Ddl {
            position: position.clone(),
            db: db.to_string(),
            sql: sql.to_string(),
            kind: "UNPARSED".into(),
            parsed_by: None,
            deltas: targets
                .into_iter()
                .map(|(db, name)| Delta::MarkStale {
                    db,
                    name,
                    reason: reason.clone(),
                })
                .collect(),
            unparsed: Some(format!("marked stale: {why}")),
        })
    }
}

fn incomplete(p: &PendingSnapshot) {
    warn!(
        record = %p.at,
        position = %p.position,
        parts = p.parts,
        found = p.seen,
        "schema history snapshot cut short (a crash while it was written); left out"
    );
}

fn read_snapshot_head(head: &Value, at: &str) -> Result<PendingSnapshot, String> {
    let position: BinlogPosition = serde_json::from_value(
        head.get("position")
            .cloned()
            .ok_or("no `position` in the snapshot head")?,
    )
    .map_err(|e| format!("bad position: {e}"))?;
    Ok(PendingSnapshot {
        position,
        reason: head
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        catalog: head
            .get("catalog")
            .cloned()
            .ok_or("no `catalog` in the snapshot head")?,
        parts: head
            .get("parts")
            .and_then(Value::as_u64)
            .ok_or("no `parts` in the snapshot head")?,
        seen: 0,
        tables: Vec::new(),
        at: at.to_string(),
    })
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Debezium's table id for MySQL: `"db"."table"`.
pub(crate) fn table_id(db: &str, name: &str) -> String {
    format!(
        "\"{}\".\"{}\"",
        db.replace('"', "\"\""),
        name.replace('"', "\"\"")
    )
}

/// Reads `"db"."table"` (or an unquoted `db.table`).
fn parse_table_id(id: &str) -> Result<(String, String), String> {
    if !id.starts_with('"') {
        return id
            .split_once('.')
            .map(|(d, n)| (d.to_string(), n.to_string()))
            .ok_or_else(|| format!("table id {id:?} has no database"));
    }
    let mut parts = Vec::new();
    let mut chars = id.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '"' {
            return Err(format!("table id {id:?} is not quoted parts"));
        }
        let mut part = String::new();
        loop {
            match chars.next() {
                Some('"') if chars.peek() == Some(&'"') => {
                    chars.next();
                    part.push('"');
                }
                Some('"') => break,
                Some(ch) => part.push(ch),
                None => return Err(format!("table id {id:?} has an unclosed quote")),
            }
        }
        parts.push(part);
        match chars.next() {
            Some('.') | None => {}
            Some(_) => return Err(format!("table id {id:?} is not quoted parts")),
        }
    }
    match parts.as_slice() {
        [db, name] => Ok((db.clone(), name.clone())),
        // catalog.schema.table: MySQL has no schema level.
        [db, _, name] => Ok((db.clone(), name.clone())),
        _ => Err(format!("table id {id:?} is not database and table")),
    }
}

fn drop_change(db: &str, name: &str) -> Value {
    json!({"type": "DROP", "id": table_id(db, name)})
}

/// A CREATE or ALTER entry (Debezium's `JsonTableChangeSerializer` order).
fn table_change(kind: &str, table: &TableSchema, previous: Option<(&str, &str)>) -> Value {
    let columns: Vec<Value> = table
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| column_json(c, i + 1))
        .collect();
    let mut change = Map::new();
    change.insert("type".into(), kind.into());
    change.insert("id".into(), table_id(&table.db, &table.name).into());
    if let Some((db, name)) = previous {
        change.insert("previousId".into(), table_id(db, name).into());
    }
    change.insert(
        "table".into(),
        json!({
            "defaultCharsetName": table.default_charset,
            "primaryKeyColumnNames": table.primary_key,
            "columns": columns,
            "attributes": [],
        }),
    );
    change.insert("comment".into(), Value::Null);
    Value::Object(change)
}

/// `java.sql.Types` code Debezium's MySQL DDL parser gives a type.
fn jdbc_type(sql_type: &str) -> i32 {
    match sql_type {
        "char" | "enum" | "set" => 1,
        "varchar" | "tinytext" | "text" | "mediumtext" | "longtext" | "long" => 12,
        "nchar" => -15,
        "nvarchar" => -9,
        // SMALLINT, not TINYINT (-6): what Debezium 3.6.3's parser records.
        "tinyint" => 5,
        "smallint" => 5,
        "mediumint" | "int" | "integer" | "year" => 4,
        "bigint" | "serial" => -5,
        "real" => 7,
        "double" => 8,
        "float" => 6,
        "decimal" | "fixed" | "dec" => 3,
        "numeric" => 2,
        "bit" => -7,
        "time" => 92,
        "timestamp" => 2014,
        "datetime" => 93,
        "date" => 91,
        "binary" => -2,
        "varbinary" => -3,
        "tinyblob" | "blob" | "mediumblob" | "longblob" => 2004,
        "bool" | "boolean" => 16,
        _ => 1111,
    }
}

/// The `(length[,scale])` of a type, when written.
fn length_scale(data_type: &str) -> (Option<u64>, Option<u64>) {
    let Some(open) = data_type.find('(') else {
        return (None, None);
    };
    let Some(close) = data_type[open..].find(')') else {
        return (None, None);
    };
    let inner = &data_type[open + 1..open + close];
    let mut numbers = inner.split(',').map(|n| n.trim().parse::<u64>());
    match (numbers.next(), numbers.next()) {
        (Some(Ok(l)), None) => (Some(l), None),
        (Some(Ok(l)), Some(Ok(s))) => (Some(l), Some(s)),
        _ => (None, None),
    }
}

fn is_binary_type(sql_type: &str) -> bool {
    matches!(
        sql_type,
        "binary" | "varbinary" | "tinyblob" | "blob" | "mediumblob" | "longblob"
    )
}

fn column_json(c: &ColumnSchema, position: usize) -> Value {
    let mut type_name = c.sql_type.to_ascii_uppercase();
    if c.unsigned {
        type_name.push_str(" UNSIGNED");
    }
    if c.zerofill {
        type_name.push_str(" ZEROFILL");
    }
    let mut col = Map::new();
    col.insert("name".into(), c.name.clone().into());
    col.insert("jdbcType".into(), jdbc_type(&c.sql_type).into());
    col.insert("typeName".into(), type_name.clone().into());
    col.insert("typeExpression".into(), type_name.into());
    let charset = c
        .charset
        .as_deref()
        .filter(|cs| *cs != "binary" && !is_binary_type(&c.sql_type));
    col.insert("charsetName".into(), charset.into());
    if !matches!(c.sql_type.as_str(), "enum" | "set") {
        let (length, scale) = length_scale(&c.data_type);
        if let Some(l) = length {
            col.insert("length".into(), l.into());
        }
        if let Some(s) = scale {
            col.insert("scale".into(), s.into());
        }
    }
    col.insert("position".into(), position.into());
    col.insert("optional".into(), c.nullable.into());
    col.insert("autoIncremented".into(), c.auto_increment.into());
    col.insert(
        "generated".into(),
        (c.auto_increment || c.generated.is_some()).into(),
    );
    col.insert("comment".into(), Value::Null);
    let default = c
        .default
        .as_deref()
        .filter(|d| !d.eq_ignore_ascii_case("null"));
    // A nullable column without a DEFAULT clause defaults to NULL.
    col.insert(
        "hasDefaultValue".into(),
        (c.default.is_some() || c.nullable).into(),
    );
    if let Some(d) = default {
        col.insert("defaultValueExpression".into(), unquote(d).into());
    }
    if matches!(c.sql_type.as_str(), "enum" | "set") {
        // Debezium keeps the labels as written, quotes included.
        let labels: Vec<Value> = c.labels.iter().map(|l| quote_string(l).into()).collect();
        col.insert("enumValues".into(), Value::Array(labels));
    }
    Value::Object(col)
}

/// `'abc'` → `abc` (a quoted default's value); other text as it is.
fn unquote(text: &str) -> String {
    let t = text.trim();
    if t.len() >= 2 && t.starts_with('\'') && t.ends_with('\'') {
        t[1..t.len() - 1].replace("''", "'").replace("\\\\", "\\")
    } else {
        t.to_string()
    }
}

/// The deltas of one Debezium table change.
fn delta_of_change(change: &Value) -> Result<Vec<Delta>, String> {
    let kind = change
        .get("type")
        .and_then(Value::as_str)
        .ok_or("no `type`")?;
    let id = change.get("id").and_then(Value::as_str).ok_or("no `id`")?;
    let (db, name) = parse_table_id(id)?;
    match kind {
        "DROP" => Ok(vec![Delta::RemoveTable { db, name }]),
        "CREATE" | "ALTER" => {
            let mut deltas = Vec::new();
            if let Some(previous) = change.get("previousId").and_then(Value::as_str) {
                let (pdb, pname) = parse_table_id(previous)?;
                deltas.push(Delta::RemoveTable {
                    db: pdb,
                    name: pname,
                });
            }
            let table = change
                .get("table")
                .ok_or_else(|| format!("{kind} of {id} without `table`"))?;
            deltas.push(Delta::PutTable {
                table: table_of_change(db, name, table)?,
            });
            Ok(deltas)
        }
        other => Err(format!("unknown change type {other:?} for {id}")),
    }
}

/// A table as Debezium's `table` object describes it. Debezium does not
/// keep collations, generation expressions or unique keys: the collation
/// is the character set's default, and a generated column's expression is
/// left empty.
fn table_of_change(db: String, name: String, table: &Value) -> Result<TableSchema, String> {
    let mut t = TableSchema::new(db, name);
    t.default_charset = table
        .get("defaultCharsetName")
        .and_then(Value::as_str)
        .map(str::to_string);
    t.default_collation = t
        .default_charset
        .as_deref()
        .and_then(default_collation)
        .map(str::to_string);
    t.primary_key = table
        .get("primaryKeyColumnNames")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let mut columns: Vec<(u64, ColumnSchema)> = Vec::new();
    for c in table
        .get("columns")
        .and_then(Value::as_array)
        .ok_or("no `columns`")?
    {
        let position = c.get("position").and_then(Value::as_u64).unwrap_or(0);
        columns.push((position, column_of_change(c)?));
    }
    columns.sort_by_key(|(p, _)| *p);
    t.columns = columns.into_iter().map(|(_, c)| c).collect();
    Ok(t)
}

/// Debezium's type names that Sluice spells otherwise.
fn sql_type_of(base: &str) -> (&str, Option<&'static str>) {
    match base {
        "integer" => ("int", None),
        "bool" | "boolean" => ("tinyint", Some("tinyint(1)")),
        "dec" | "fixed" | "numeric" => ("decimal", None),
        "real" | "double precision" => ("double", None),
        "serial" => ("bigint", None),
        other => (other, None),
    }
}

fn column_of_change(c: &Value) -> Result<ColumnSchema, String> {
    let name = c
        .get("name")
        .and_then(Value::as_str)
        .ok_or("a column without `name`")?;
    let type_name = c
        .get("typeName")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("column {name} without `typeName`"))?
        .to_ascii_lowercase();
    let words: Vec<&str> = type_name.split_whitespace().collect();
    let unsigned = words.contains(&"unsigned");
    let zerofill = words.contains(&"zerofill");
    let base: String = words
        .iter()
        .copied()
        .filter(|w| *w != "unsigned" && *w != "zerofill")
        .collect::<Vec<_>>()
        .join(" ");
    let (sql_type, fixed) = sql_type_of(&base);
    let sql_type = sql_type.to_string();
    let labels: Vec<String> = c
        .get("enumValues")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(unquote).collect())
        .unwrap_or_default();
    let length = c.get("length").and_then(Value::as_u64);
    let scale = c.get("scale").and_then(Value::as_u64);
    let mut data_type = match fixed {
        Some(f) => f.to_string(),
        None if matches!(sql_type.as_str(), "enum" | "set") => format!(
            "{sql_type}({})",
            labels
                .iter()
                .map(|l| quote_string(l))
                .collect::<Vec<_>>()
                .join(",")
        ),
        None => match (length, scale) {
            (Some(l), Some(s)) => format!("{sql_type}({l},{s})"),
            (Some(l), None) => format!("{sql_type}({l})"),
            _ => sql_type.clone(),
        },
    };
    if unsigned {
        data_type.push_str(" unsigned");
    }
    if zerofill {
        data_type.push_str(" zerofill");
    }
    let charset = if is_binary_type(&sql_type) {
        Some("binary".to_string())
    } else {
        c.get("charsetName")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let collation = charset.as_deref().map(|cs| {
        default_collation(cs)
            .map(str::to_string)
            .unwrap_or_else(|| {
                if cs == "binary" {
                    "binary".into()
                } else {
                    format!("{cs}_general_ci")
                }
            })
    });
    let auto_increment = c
        .get("autoIncremented")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let generated = c.get("generated").and_then(Value::as_bool).unwrap_or(false) && !auto_increment;
    let default = c
        .get("defaultValueExpression")
        .and_then(Value::as_str)
        .map(|d| {
            if d.parse::<f64>().is_ok() || d.contains('(') {
                d.to_string()
            } else {
                quote_string(d)
            }
        });
    Ok(ColumnSchema {
        name: name.to_string(),
        data_type,
        sql_type,
        unsigned,
        zerofill,
        charset,
        collation,
        labels,
        nullable: c.get("optional").and_then(Value::as_bool).unwrap_or(true),
        default,
        generated: generated.then(|| sluice_schema::Generated::Virtual {
            expr: String::new(),
        }),
        invisible: false,
        auto_increment,
        hidden: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_ids_are_double_quoted_and_read_back() {
        assert_eq!(
            table_id("inventory", "customers"),
            r#""inventory"."customers""#
        );
        assert_eq!(
            parse_table_id(r#""inventory"."customers""#),
            Ok(("inventory".into(), "customers".into()))
        );
        assert_eq!(
            parse_table_id(&table_id("we\"ird", "t.x")),
            Ok(("we\"ird".into(), "t.x".into()))
        );
        assert_eq!(
            parse_table_id("inventory.customers"),
            Ok(("inventory".into(), "customers".into()))
        );
        assert!(parse_table_id(r#""a"x"#).is_err());
    }

    #[test]
    fn positions_carry_what_the_source_context_says() {
        let context = SourceContext::new();
        let codec = HistoryCodec::new("dbserver1").with_source_context(context.clone());
        let at = BinlogPosition::new("mysql-bin.000003", 1043);
        assert_eq!(
            codec.position(&at).to_string(),
            r#"{"file":"mysql-bin.000003","pos":1043}"#
        );
        context.set(223344, 1714566645, Some("0-1-42".into()));
        assert_eq!(
            codec.position(&at).to_string(),
            r#"{"ts_sec":1714566645,"file":"mysql-bin.000003","pos":1043,"gtids":"0-1-42","server_id":223344}"#
        );
    }

    #[test]
    fn java_records_after_sluice_records_build_on_them() {
        let mut codec = HistoryCodec::new("dbserver1");
        let first = HistoryRecord::Snapshot {
            position: BinlogPosition::new("mysql-bin.000001", 4),
            reason: "seeded".into(),
            catalog: Catalog::new(),
        };
        let create = HistoryRecord::Ddl {
            position: BinlogPosition::new("mysql-bin.000001", 300),
            db: "d".into(),
            sql: "CREATE TABLE t (a INT)".into(),
            kind: "CREATE TABLE".into(),
            parsed_by: None,
            deltas: vec![Delta::PutTable {
                table: {
                    let mut t = TableSchema::new("d", "t");
                    t.columns.push(ColumnSchema {
                        name: "a".into(),
                        data_type: "int".into(),
                        sql_type: "int".into(),
                        unsigned: false,
                        zerofill: false,
                        charset: None,
                        collation: None,
                        labels: vec![],
                        nullable: true,
                        default: None,
                        generated: None,
                        invisible: false,
                        auto_increment: false,
                        hidden: false,
                    });
                    t
                },
            }],
            unparsed: None,
        };
        let mut stored = Vec::new();
        for r in [&first, &create] {
            for d in codec.encode(r).unwrap() {
                stored.push(("sluice".to_string(), Value::Object(d)));
            }
            codec.written(r);
        }
        let java = serde_json::json!({
            "source": {"server": "dbserver1"},
            "position": {"file": "mysql-bin.000001", "pos": 500},
            "databaseName": "d",
            "ddl": "ALTER TABLE t ADD COLUMN b INT",
            "tableChanges": []
        });
        stored.push(("java".to_string(), java));
        let records = codec.decode_all(stored);
        assert_eq!(records.len(), 3, "{records:?}");
        assert_eq!(records[..2], [first, create]);
        assert_eq!(
            codec.catalog().table("d", "t").unwrap().column_names(),
            ["a", "b"]
        );
    }

    #[test]
    fn a_java_ddl_that_does_not_parse_takes_its_tables_from_the_table_changes() {
        let mut codec = HistoryCodec::new("dbserver1");
        let record = |pos: u64, ddl: &str, changes: Value| {
            serde_json::json!({
                "source": {"server": "dbserver1"},
                "position": {"file": "mysql-bin.000001", "pos": pos},
                "databaseName": "d",
                "ddl": ddl,
                "tableChanges": changes
            })
        };
        let changes = serde_json::json!([{"type": "CREATE", "id": "\"d\".\"x\"", "table": {
            "defaultCharsetName": "utf8mb4", "primaryKeyColumnNames": [], "attributes": [],
            "columns": [{"name": "a", "jdbcType": 4, "typeName": "INT", "typeExpression": "INT",
                "charsetName": null, "position": 1, "optional": true, "autoIncremented": false,
                "generated": false, "comment": null, "hasDefaultValue": true}]}}]);
        let records = codec.decode_all(vec![
            ("1".into(), record(100, "CREATE TABLE x (a INT", changes)),
            (
                "2".into(),
                record(200, "ALTER TABLE x ADD COLUMN (", serde_json::json!([])),
            ),
        ]);
        // The empty start, the rebuilt table, the stale mark.
        assert_eq!(records.len(), 3, "{records:?}");
        match &records[1] {
            HistoryRecord::Ddl {
                kind,
                unparsed,
                deltas,
                ..
            } => {
                assert_eq!(kind, "TABLE CHANGES");
                assert!(unparsed.is_some());
                assert!(
                    matches!(&deltas[..], [Delta::PutTable { table }] if table.column_names() == ["a"])
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&records[2], HistoryRecord::Ddl { deltas, .. }
            if matches!(&deltas[..], [Delta::MarkStale { db, name, .. }] if db == "d" && name == "x")));
        assert!(codec.catalog().stale("d", "x").is_some());
    }

    #[test]
    fn lengths_and_scales_come_from_the_type() {
        assert_eq!(length_scale("varchar(64)"), (Some(64), None));
        assert_eq!(length_scale("decimal(10,2) unsigned"), (Some(10), Some(2)));
        assert_eq!(length_scale("int unsigned"), (None, None));
    }
}
