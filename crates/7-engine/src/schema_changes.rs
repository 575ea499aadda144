//! Debezium's schema change records (`include.schema.changes`): the schema
//! history is where a DDL's effect on tables is known, so its store is
//! wrapped to note each DDL record it takes, and the JSON encoder, meeting
//! the statement in the stream, writes the record from that note. The same
//! encoder writes Debezium's heartbeat records (`heartbeat.interval.ms`).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use sluice_encode::debezium::{
    ColumnDescription, DebeziumEncoder, DebeziumError, DebeziumRecord, SchemaChange, TableChange,
    TableDescription,
};
use sluice_events::{ChangeEvent, Encoder};
use sluice_schema::catalog::Delta;
use sluice_schema::{BinlogPosition, HistoryRecord, SchemaHistoryStore};

use crate::history_store::HistoryCodec;

/// Notes not taken after this many: statements the stream filtered out
/// never take theirs.
const MAX_NOTES: usize = 4096;

/// A DDL the history recorded, waiting for its statement: the schema
/// change records it gives (one per table for a DROP TABLE, as Debezium's
/// parser signals each table dropped with a statement of its own).
#[derive(Debug, Clone)]
struct Note(Vec<NoteRecord>);

#[derive(Debug, Clone)]
struct NoteRecord {
    database: String,
    ddl: String,
    changes: Vec<TableChange>,
}

/// The DDLs noted, by the binlog place just after their statement.
#[derive(Debug, Default)]
pub(crate) struct DdlNotes {
    notes: Mutex<HashMap<(String, u64), Note>>,
}

impl DdlNotes {
    fn put(&self, at: &BinlogPosition, note: Note) {
        let mut notes = self.notes.lock().unwrap_or_else(|p| p.into_inner());
        if notes.len() >= MAX_NOTES {
            notes.clear();
        }
        notes.insert((at.file.clone(), at.offset), note);
    }

    fn take(&self, file: &str, end: u64) -> Option<Note> {
        self.notes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&(file.to_string(), end))
    }
}

/// A history store that notes every DDL record appended (and, on load,
/// those after `from`, which a restarted stream reads again without
/// appending them).
pub(crate) struct NotingHistory {
    inner: Box<dyn SchemaHistoryStore>,
    codec: HistoryCodec,
    server: String,
    notes: Arc<DdlNotes>,
    from: Option<BinlogPosition>,
    /// Tables (`"db"."table"` ids) whose DDL named their default character
    /// set: Debezium, which knows only what the DDL says, gives the others
    /// none.
    explicit_charset: HashSet<String>,
}

impl NotingHistory {
    pub fn new(
        inner: Box<dyn SchemaHistoryStore>,
        server: String,
        notes: Arc<DdlNotes>,
        from: Option<BinlogPosition>,
    ) -> Self {
        NotingHistory {
            inner,
            codec: HistoryCodec::new(server.clone()),
            server,
            notes,
            from,
            explicit_charset: HashSet::new(),
        }
    }

    /// Follows which tables' DDL named their character set.
    fn follow_charsets(&mut self, record: &HistoryRecord) {
        let HistoryRecord::Ddl { sql, deltas, .. } = record else {
            if let HistoryRecord::Snapshot { .. } = record {
                self.explicit_charset.clear();
            }
            return;
        };
        let names = names_table_charset(sql);
        for d in deltas {
            match d {
                Delta::PutTable { table } => {
                    let id = table_id(&table.db, &table.name);
                    if names {
                        self.explicit_charset.insert(id);
                    }
                }
                Delta::RemoveTable { db, name } => {
                    self.explicit_charset.remove(&table_id(db, name));
                }
                _ => {}
            }
        }
    }

    fn note(&mut self, record: &HistoryRecord) {
        self.follow_charsets(record);
        let HistoryRecord::Ddl {
            position,
            db,
            sql,
            deltas,
            ..
        } = record
        else {
            return;
        };
        // Debezium names the database the statement is about, not the
        // session's current one.
        let database = deltas
            .iter()
            .map(|d| match d {
                Delta::PutTable { table } => table.db.as_str(),
                Delta::RemoveTable { db, .. } | Delta::MarkStale { db, .. } => db.as_str(),
                Delta::PutDatabase { database } => database.name.as_str(),
                Delta::RemoveDatabase { name } => name.as_str(),
            })
            .next()
            .unwrap_or(db);
        let Ok(encoded) = self.codec.encode(record) else {
            return;
        };
        let mut changes = Vec::new();
        for r in &encoded {
            let Some(Value::Array(list)) = r.get("tableChanges") else {
                continue;
            };
            for c in list {
                if let Some(change) = self.table_change(c) {
                    changes.push(change);
                }
            }
        }
        let drops = drop_table_prefix(sql)
            .filter(|_| !changes.is_empty() && changes.iter().all(|c| c.kind == "DROP"));
        let records = match drops {
            Some(prefix) => changes
                .into_iter()
                .map(|c| {
                    let (db, name) = split_id(&c.id);
                    NoteRecord {
                        ddl: format!("{prefix}{}.{}", backquoted(&db), backquoted(&name)),
                        database: db,
                        changes: vec![c],
                    }
                })
                .collect(),
            None => vec![NoteRecord {
                database: database.to_string(),
                ddl: sql.clone(),
                changes,
            }],
        };
        self.notes.put(position, Note(records));
    }

    /// A history table change (Debezium's JSON form) as the schema change
    /// record has it.
    fn table_change(&self, c: &Value) -> Option<TableChange> {
        let explicit = |id: &str| self.explicit_charset.contains(id);
        let kind = c.get("type")?.as_str()?.to_string();
        let id = c.get("id")?.as_str()?.to_string();
        let Some(table) = c.get("table") else {
            return Some(TableChange {
                kind,
                id,
                table: None,
            });
        };
        let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let int = |v: &Value, k: &str| {
            v.get(k)
                .and_then(Value::as_i64)
                .and_then(|n| i32::try_from(n).ok())
        };
        let flag = |v: &Value, k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
        let default_charset = text(table, "defaultCharsetName").filter(|_| explicit(&id));
        // A column's character set where the DDL can have said it: the
        // table's, when that was named, else only a set of its own.
        let table_charset = text(table, "defaultCharsetName").filter(|_| !explicit(&id));
        let columns = table
            .get("columns")
            .and_then(Value::as_array)
            .map(|cols| {
                cols.iter()
                    .map(|col| ColumnDescription {
                        name: text(col, "name").unwrap_or_default(),
                        jdbc_type: int(col, "jdbcType").unwrap_or(0),
                        native_type: int(col, "nativeType"),
                        type_name: text(col, "typeName").unwrap_or_default(),
                        type_expression: text(col, "typeExpression"),
                        charset_name: text(col, "charsetName")
                            .filter(|c| Some(c) != table_charset.as_ref()),
                        // Debezium's parser: ENUM length 1, SET the
                        // length of all its labels' one-letter stand-ins
                        // joined by commas.
                        length: match text(col, "typeName").as_deref() {
                            Some("ENUM") => Some(1),
                            Some("SET") => {
                                let n = col
                                    .get("enumValues")
                                    .and_then(Value::as_array)
                                    .map_or(0, Vec::len);
                                Some(
                                    i32::try_from(n * 2)
                                        .unwrap_or(i32::MAX)
                                        .saturating_sub(1)
                                        .max(0),
                                )
                            }
                            _ => int(col, "length"),
                        },
                        scale: int(col, "scale"),
                        position: int(col, "position").unwrap_or(0),
                        optional: flag(col, "optional"),
                        auto_incremented: flag(col, "autoIncremented"),
                        generated: flag(col, "generated"),
                        comment: text(col, "comment"),
                        default_value_expression: text(col, "defaultValueExpression"),
                        enum_values: col
                            .get("enumValues")
                            .and_then(Value::as_array)
                            .map(|a| {
                                a.iter()
                                    .filter_map(Value::as_str)
                                    .map(str::to_string)
                                    .collect()
                            })
                            .unwrap_or_default(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(TableChange {
            kind,
            id,
            table: Some(TableDescription {
                default_charset_name: default_charset,
                primary_key_column_names: table
                    .get("primaryKeyColumnNames")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default(),
                columns,
                comment: text(c, "comment"),
            }),
        })
    }
}

impl SchemaHistoryStore for NotingHistory {
    fn append(&mut self, record: &HistoryRecord) -> sluice_schema::Result<()> {
        self.inner.append(record)?;
        self.note(record);
        self.codec.written(record);
        Ok(())
    }

    fn load(&mut self) -> sluice_schema::Result<Vec<HistoryRecord>> {
        let records = self.inner.load()?;
        self.codec = HistoryCodec::new(self.server.clone());
        for r in &records {
            if self.from.as_ref().is_some_and(|from| r.position() > from) {
                self.note(r);
            } else {
                self.follow_charsets(r);
            }
            self.codec.written(r);
        }
        Ok(records)
    }

    fn location(&self) -> String {
        self.inner.location()
    }

    fn torn_tail(&self) -> Option<&str> {
        self.inner.torn_tail()
    }
}

/// Debezium's encoder with schema change records (a DDL statement the
/// history noted gives its record first) and heartbeats.
pub(crate) struct JsonEncoder {
    inner: DebeziumEncoder,
    notes: Option<Arc<DdlNotes>>,
    heartbeat: Option<Heartbeat>,
}

impl JsonEncoder {
    pub fn new(inner: DebeziumEncoder, notes: Option<Arc<DdlNotes>>) -> Self {
        JsonEncoder {
            inner,
            notes,
            heartbeat: None,
        }
    }

    /// Heartbeat records (`heartbeat.interval.ms`).
    pub fn with_heartbeat(mut self, heartbeat: Option<Heartbeat>) -> Self {
        self.heartbeat = heartbeat;
        self
    }
}

/// Debezium's heartbeat records: at the end of a transaction (or of a
/// statement of its own) read `every` after the last heartbeat, a record
/// to `<topic.heartbeat.prefix>.<topic.prefix>` with key
/// `{"serverName":<topic.prefix>}` and value `{"ts_ms":<now>}`. It carries
/// the offset after that transaction, so committing it moves the offset on
/// past changes the application never sees (other tables).
pub(crate) struct Heartbeat {
    every: Duration,
    last: Option<Instant>,
    topic: String,
    key: String,
    schemas: bool,
}

impl Heartbeat {
    pub fn new(every: Duration, topic_prefix: &str, server: &str, schemas: bool) -> Self {
        let mut key = String::new();
        if schemas {
            key.push_str(concat!(
                "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"string\",",
                "\"optional\":false,\"field\":\"serverName\"}],\"optional\":false,",
                "\"name\":\"io.debezium.connector.common.ServerNameKey\",\"version\":1},\"payload\":"
            ));
        }
        key.push_str(&serde_json::json!({ "serverName": server }).to_string());
        if schemas {
            key.push('}');
        }
        Heartbeat {
            every,
            last: None,
            topic: format!("{topic_prefix}.{server}"),
            key,
            schemas,
        }
    }

    /// The heartbeat record, if one is due now.
    fn due(&mut self) -> Option<DebeziumRecord> {
        let now = Instant::now();
        if self
            .last
            .is_some_and(|l| now.duration_since(l) < self.every)
        {
            return None;
        }
        self.last = Some(now);
        let ts_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let payload = format!("{{\"ts_ms\":{ts_ms}}}");
        let value = if self.schemas {
            format!(
                concat!(
                    "{{\"schema\":{{\"type\":\"struct\",\"fields\":[{{\"type\":\"int64\",",
                    "\"optional\":false,\"field\":\"ts_ms\"}}],\"optional\":false,",
                    "\"name\":\"io.debezium.connector.common.Heartbeat\",\"version\":1}},\"payload\":{}}}"
                ),
                payload
            )
        } else {
            payload
        };
        Some(DebeziumRecord {
            destination: self.topic.clone(),
            key: Some(self.key.clone()),
            value: Some(value),
            row: 0,
        })
    }
}

impl Encoder for JsonEncoder {
    type Output = DebeziumRecord;
    type Error = DebeziumError;

    fn encode(
        &mut self,
        event: &ChangeEvent<'_>,
        out: &mut Vec<DebeziumRecord>,
    ) -> Result<(), DebeziumError> {
        if let (Some(notes), ChangeEvent::Statement(s)) = (&self.notes, event) {
            if let Some(note) = notes.take(s.position.file, s.position.next_offset) {
                for r in &note.0 {
                    out.push(self.inner.schema_change(&SchemaChange {
                        position: &s.position,
                        txn: s.txn,
                        database: &r.database,
                        ddl: &r.ddl,
                        table_changes: &r.changes,
                    }));
                }
            }
        }
        self.inner.encode(event, out)?;
        // A transaction (or statement of its own) ends: the offset moves.
        let ends = match event {
            ChangeEvent::Commit { .. } => true,
            ChangeEvent::Statement(s) => !s.txn.in_transaction,
            _ => false,
        };
        if ends {
            if let Some(record) = self.heartbeat.as_mut().and_then(Heartbeat::due) {
                out.push(record);
            }
        }
        Ok(())
    }
}

/// What precedes the table names of a `DROP [TEMPORARY] TABLE [IF EXISTS]`
/// statement, as written (Debezium's parser puts it before each table it
/// names), or `None` for another statement.
fn drop_table_prefix(sql: &str) -> Option<&str> {
    let mut rest = sql;
    let mut words = Vec::new();
    loop {
        let trimmed = rest.trim_start();
        let word_len = trimmed
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(trimmed.len());
        let word = &trimmed[..word_len];
        let expected = match words.len() {
            0 => ["DROP"].as_slice(),
            _ => ["TEMPORARY", "TABLE", "IF", "EXISTS"].as_slice(),
        };
        if word.is_empty() || !expected.iter().any(|w| w.eq_ignore_ascii_case(word)) {
            break;
        }
        words.push(word.to_ascii_uppercase());
        rest = &trimmed[word_len..];
    }
    if !words.iter().any(|w| w == "TABLE") {
        return None;
    }
    let end = sql.len() - rest.trim_start().len();
    Some(&sql[..end])
}

/// `"db"."table"` to its parts.
fn split_id(id: &str) -> (String, String) {
    let unquote = |s: &str| s.trim_matches('"').replace("\"\"", "\"");
    match id.find("\".\"") {
        Some(i) => (unquote(&id[..i + 1]), unquote(&id[i + 2..])),
        None => (String::new(), unquote(id)),
    }
}

fn table_id(db: &str, name: &str) -> String {
    format!(
        "\"{}\".\"{}\"",
        db.replace('"', "\"\""),
        name.replace('"', "\"\"")
    )
}

/// Whether a CREATE or ALTER TABLE names the table's default character
/// set: in the table options after the column list, or as ALTER's
/// `[DEFAULT] CHARACTER SET` / `CONVERT TO`.
fn names_table_charset(sql: &str) -> bool {
    let lower = sql.to_ascii_lowercase();
    let names = |s: &str| s.contains("charset") || s.contains("character set");
    let words: Vec<&str> = lower.split_whitespace().take(2).collect();
    match words.as_slice() {
        ["create", ..] => lower.rfind(')').is_some_and(|i| names(&lower[i..])),
        ["alter", "table"] => {
            lower.contains("convert to")
                || lower.contains("default charset")
                || lower.contains("default character set")
        }
        _ => false,
    }
}

fn backquoted(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_table_prefixes() {
        assert_eq!(
            drop_table_prefix("DROP TABLE `a`.`b` /* generated by server */"),
            Some("DROP TABLE ")
        );
        assert_eq!(
            drop_table_prefix("drop temporary table if exists x, y"),
            Some("drop temporary table if exists ")
        );
        assert_eq!(drop_table_prefix("DROP DATABASE d"), None);
        assert_eq!(drop_table_prefix("CREATE TABLE t (a INT)"), None);
    }

    #[test]
    fn table_charsets_named() {
        assert!(names_table_charset(
            "CREATE TABLE t (a VARCHAR(5)) DEFAULT CHARSET=latin1"
        ));
        assert!(!names_table_charset(
            "CREATE TABLE t (a VARCHAR(5) CHARACTER SET latin1)"
        ));
        assert!(names_table_charset(
            "ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4"
        ));
        assert!(!names_table_charset(
            "ALTER TABLE t ADD COLUMN b TEXT CHARACTER SET latin1"
        ));
    }

    #[test]
    fn ids_split() {
        assert_eq!(
            split_id("\"inv\".\"a\"\"b\""),
            ("inv".to_string(), "a\"b".to_string())
        );
    }
}
