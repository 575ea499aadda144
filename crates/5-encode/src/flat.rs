//! Canal's FlatMessage JSON (MQ mode, `canal.mq.flatMessage=true`): one
//! document per ROWDATA entry, made from the Canal entry and its RowChange
//! exactly as Canal's own converter makes it (`MQMessageUtils`), so it
//! carries Canal's quirks: `data` is the after image (the before image for
//! DELETE), `old` holds the before values of the columns flagged `updated`
//! with that set growing over the rows of an entry, `pkNames` comes from the
//! first row, `sqlType` of a column is the one of its last row.
//!
//! Written as fastjson2 writes it: top-level keys in alphabetical order,
//! nulls written, maps in column order, compact, non-ASCII as UTF-8.

use std::time::{SystemTime, UNIX_EPOCH};

use prost::Message;
use sluice_canal::proto::{Column, Entry, EntryType, EventType, RowChange};
use sluice_events::{ChangeEvent, Encoder};

use crate::canal::{BuiltEntry, CanalEncoder, EntryError};

/// One row as a map from column name to value (`None` for SQL NULL), in
/// column order; a name seen twice keeps its first place and its last value.
pub type FlatRow = Vec<(String, Option<String>)>;

/// Canal's FlatMessage: one ROWDATA entry as the JSON Canal sends to a
/// message queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatMessage {
    /// The Canal batch id of the get that read the entry.
    pub id: i64,
    pub database: String,
    pub table: String,
    /// Names of the key columns of the first row; `None` without keys or rows.
    pub pk_names: Option<Vec<String>>,
    pub is_ddl: bool,
    /// `RowChange.eventType`'s name: `INSERT`, `UPDATE`, `ALTER`, ...
    pub event_type: &'static str,
    /// The binlog event's time, milliseconds.
    pub es: i64,
    /// When the message was made, milliseconds.
    pub ts: i64,
    /// The statement of DDL and statement entries, else empty.
    pub sql: String,
    /// The executed GTID set in GTID mode, else empty.
    pub gtid: String,
    /// `java.sql.Types` code per column.
    pub sql_type: Option<Vec<(String, i32)>>,
    /// Declared type per column.
    pub mysql_type: Option<Vec<(String, String)>>,
    /// The rows: after images, before images for DELETE.
    pub data: Option<Vec<FlatRow>>,
    /// UPDATE only: the before values of the updated columns, per row.
    pub old: Option<Vec<FlatRow>>,
}

#[derive(Debug, thiserror::Error)]
pub enum FlatError {
    #[error(transparent)]
    Entry(#[from] EntryError),
    #[error("a ROWDATA entry's RowChange does not decode: {0}")]
    RowChange(#[from] prost::DecodeError),
}

/// Sets `key` in an insertion-ordered map (Java's `LinkedHashMap.put`).
fn put<V>(map: &mut Vec<(String, V)>, key: &str, value: V) {
    match map.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value,
        None => map.push((key.to_string(), value)),
    }
}

/// A column's value as Canal's converter reads it: `None` when NULL.
fn value_of(c: &Column) -> Option<String> {
    if c.is_null.unwrap_or(false) {
        None
    } else {
        Some(c.value.clone().unwrap_or_default())
    }
}

/// The Java enum name of a Canal event type.
pub fn event_type_name(t: EventType) -> &'static str {
    match t {
        EventType::Compatible => "EVENTTYPECOMPATIBLEPROTO2",
        EventType::Insert => "INSERT",
        EventType::Update => "UPDATE",
        EventType::Delete => "DELETE",
        EventType::Create => "CREATE",
        EventType::Alter => "ALTER",
        EventType::Erase => "ERASE",
        EventType::Query => "QUERY",
        EventType::Truncate => "TRUNCATE",
        EventType::Rename => "RENAME",
        EventType::Cindex => "CINDEX",
        EventType::Dindex => "DINDEX",
        EventType::Gtid => "GTID",
        EventType::XaCommit => "XACOMMIT",
        EventType::XaRollback => "XAROLLBACK",
        EventType::MHeartbeat => "MHEARTBEAT",
    }
}

impl FlatMessage {
    /// The FlatMessage of a Canal entry read in batch `id` at time `ts`
    /// (ms); `None` for entries other than ROWDATA (transaction begins and
    /// ends are never sent).
    pub fn from_entry(entry: &Entry, id: i64, ts: i64) -> Result<Option<FlatMessage>, FlatError> {
        if entry.entry_type != Some(EntryType::RowData as i32) {
            return Ok(None);
        }
        let change = RowChange::decode(entry.store_value.as_deref().unwrap_or_default())?;
        let header = entry.header.clone().unwrap_or_default();
        // An absent eventType reads as proto2's default, UPDATE.
        let event_type = change
            .event_type
            .and_then(|t| EventType::try_from(t).ok())
            .unwrap_or(EventType::Update);
        let is_ddl = change.is_ddl.unwrap_or(false);
        let mut message = FlatMessage {
            id,
            database: header.schema_name.unwrap_or_default(),
            table: header.table_name.unwrap_or_default(),
            pk_names: None,
            is_ddl,
            event_type: event_type_name(event_type),
            es: header.execute_time.unwrap_or_default(),
            ts,
            sql: change.sql.unwrap_or_default(),
            gtid: header.gtid.unwrap_or_default(),
            sql_type: None,
            mysql_type: None,
            data: None,
            old: None,
        };
        if is_ddl {
            return Ok(Some(message));
        }
        let mut sql_type = Vec::new();
        let mut mysql_type = Vec::new();
        let mut data = Vec::new();
        let mut old = Vec::new();
        // Columns flagged updated in any row so far (Canal's set is never
        // cleared between the rows of an entry).
        let mut updated: Vec<String> = Vec::new();
        let mut pk_names_done = false;
        if matches!(
            event_type,
            EventType::Insert | EventType::Update | EventType::Delete
        ) {
            for row in &change.row_datas {
                let columns = if event_type == EventType::Delete {
                    &row.before_columns
                } else {
                    &row.after_columns
                };
                let mut values = FlatRow::new();
                for c in columns {
                    let name = c.name.as_deref().unwrap_or_default();
                    if !pk_names_done && c.is_key.unwrap_or(false) {
                        message
                            .pk_names
                            .get_or_insert_with(Vec::new)
                            .push(name.to_string());
                    }
                    put(&mut sql_type, name, c.sql_type.unwrap_or_default());
                    put(
                        &mut mysql_type,
                        name,
                        c.mysql_type.clone().unwrap_or_default(),
                    );
                    put(&mut values, name, value_of(c));
                    if c.updated.unwrap_or(false) && !updated.iter().any(|u| u == name) {
                        updated.push(name.to_string());
                    }
                }
                pk_names_done = true;
                if !values.is_empty() {
                    data.push(values);
                }
                if event_type == EventType::Update {
                    let mut before = FlatRow::new();
                    for c in &row.before_columns {
                        let name = c.name.as_deref().unwrap_or_default();
                        if updated.iter().any(|u| u == name) {
                            put(&mut before, name, value_of(c));
                        }
                    }
                    // One `old` object per UPDATE row, even an empty one
                    // (no column flagged updated), so `old[i]` stays the
                    // before image of `data[i]` when rows are split by
                    // partition.
                    old.push(before);
                }
            }
        }
        message.sql_type = (!sql_type.is_empty()).then_some(sql_type);
        message.mysql_type = (!mysql_type.is_empty()).then_some(mysql_type);
        message.data = (!data.is_empty()).then_some(data);
        message.old = (!old.is_empty()).then_some(old);
        Ok(Some(message))
    }

    /// The JSON document, as Canal's server writes it.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(256);
        self.write_json(&mut out);
        out
    }

    /// Appends the JSON document to `out`.
    pub fn write_json(&self, out: &mut String) {
        out.push_str("{\"data\":");
        write_rows(out, self.data.as_deref());
        out.push_str(",\"database\":");
        write_str(out, &self.database);
        out.push_str(",\"es\":");
        out.push_str(&self.es.to_string());
        out.push_str(",\"gtid\":");
        write_str(out, &self.gtid);
        out.push_str(",\"id\":");
        out.push_str(&self.id.to_string());
        out.push_str(",\"isDdl\":");
        out.push_str(if self.is_ddl { "true" } else { "false" });
        out.push_str(",\"mysqlType\":");
        write_map(out, self.mysql_type.as_deref(), |out, v| write_str(out, v));
        out.push_str(",\"old\":");
        write_rows(out, self.old.as_deref());
        out.push_str(",\"pkNames\":");
        match &self.pk_names {
            Some(names) => {
                out.push('[');
                for (i, n) in names.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(out, n);
                }
                out.push(']');
            }
            None => out.push_str("null"),
        }
        out.push_str(",\"sql\":");
        write_str(out, &self.sql);
        out.push_str(",\"sqlType\":");
        write_map(out, self.sql_type.as_deref(), |out, v| {
            out.push_str(&v.to_string())
        });
        out.push_str(",\"table\":");
        write_str(out, &self.table);
        out.push_str(",\"ts\":");
        out.push_str(&self.ts.to_string());
        out.push_str(",\"type\":");
        write_str(out, self.event_type);
        out.push('}');
    }
}

/// A JSON object from an ordered map, or `null`.
fn write_map<V>(out: &mut String, map: Option<&[(String, V)]>, value: impl Fn(&mut String, &V)) {
    let Some(map) = map else {
        out.push_str("null");
        return;
    };
    out.push('{');
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_str(out, k);
        out.push(':');
        value(out, v);
    }
    out.push('}');
}

/// An array of row objects, or `null`.
fn write_rows(out: &mut String, rows: Option<&[FlatRow]>) {
    let Some(rows) = rows else {
        out.push_str("null");
        return;
    };
    out.push('[');
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_map(out, Some(row), |out, v| match v {
            Some(s) => write_str(out, s),
            None => out.push_str("null"),
        });
    }
    out.push(']');
}

/// A JSON string: quotes, backslashes and control characters escaped,
/// everything else as is (UTF-8).
fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Encodes change events as FlatMessages: the Canal entries of each event,
/// each ROWDATA entry converted. Transaction boundaries give nothing.
#[derive(Debug, Default)]
pub struct FlatEncoder {
    canal: CanalEncoder,
    /// The batch id the messages carry (`id`).
    pub batch_id: i64,
    entries: Vec<BuiltEntry>,
}

impl FlatEncoder {
    /// `gtid_on` as for [`CanalEncoder`]: fills `gtid` with the executed set.
    pub fn new(gtid_on: bool) -> Self {
        FlatEncoder {
            canal: CanalEncoder::new(gtid_on),
            ..Default::default()
        }
    }
}

/// Now, in milliseconds since the epoch.
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl Encoder for FlatEncoder {
    type Output = FlatMessage;
    type Error = FlatError;

    fn encode(
        &mut self,
        event: &ChangeEvent<'_>,
        out: &mut Vec<FlatMessage>,
    ) -> Result<(), FlatError> {
        self.entries.clear();
        self.canal.encode(event, &mut self.entries)?;
        let ts = now_ms();
        for built in &self.entries {
            if let Some(m) = FlatMessage::from_entry(&built.entry, self.batch_id, ts)? {
                out.push(m);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_canal::proto::{Header, RowData};

    fn column(name: &str, key: bool, value: Option<&str>, updated: bool) -> Column {
        Column {
            name: Some(name.into()),
            is_key: Some(key),
            sql_type: Some(if key { -5 } else { 12 }),
            mysql_type: Some(if key { "bigint(20)" } else { "varchar(32)" }.into()),
            is_null: Some(value.is_none()),
            value: value.map(str::to_string),
            updated: Some(updated),
            ..Default::default()
        }
    }

    fn entry(change: RowChange) -> Entry {
        Entry {
            header: Some(Header {
                schema_name: Some("test".into()),
                table_name: Some("user".into()),
                execute_time: Some(1_704_164_700_000),
                ..Default::default()
            }),
            entry_type: Some(EntryType::RowData as i32),
            store_value: Some(change.encode_to_vec()),
        }
    }

    /// The `old` columns of an update are the ones flagged updated in this
    /// row or any row before it in the entry, as Canal's converter does.
    #[test]
    fn updated_columns_accumulate_over_the_rows_of_an_entry() {
        let rows = vec![
            RowData {
                before_columns: vec![
                    column("id", true, Some("1"), false),
                    column("name", false, Some("alice"), false),
                    column("note", false, None, false),
                ],
                after_columns: vec![
                    column("id", true, Some("1"), false),
                    column("name", false, Some("bob"), true),
                    column("note", false, None, false),
                ],
                ..Default::default()
            },
            RowData {
                before_columns: vec![
                    column("id", true, Some("2"), false),
                    column("name", false, Some("carol"), false),
                    column("note", false, None, false),
                ],
                after_columns: vec![
                    column("id", true, Some("2"), false),
                    column("name", false, Some("carol"), false),
                    column("note", false, Some("x\"y\n"), true),
                ],
                ..Default::default()
            },
        ];
        let change = RowChange {
            event_type: Some(EventType::Update as i32),
            is_ddl: Some(false),
            row_datas: rows,
            ..Default::default()
        };
        let m = FlatMessage::from_entry(&entry(change), 4, 1_704_164_700_210)
            .unwrap()
            .unwrap();
        assert_eq!(
            m.to_json(),
            concat!(
                r#"{"data":[{"id":"1","name":"bob","note":null},{"id":"2","name":"carol","note":"x\"y\n"}],"#,
                r#""database":"test","es":1704164700000,"gtid":"","id":4,"isDdl":false,"#,
                r#""mysqlType":{"id":"bigint(20)","name":"varchar(32)","note":"varchar(32)"},"#,
                r#""old":[{"name":"alice"},{"name":"carol","note":null}],"pkNames":["id"],"sql":"","#,
                r#""sqlType":{"id":-5,"name":12,"note":12},"table":"user","ts":1704164700210,"type":"UPDATE"}"#
            )
        );
    }

    /// An UPDATE row with no column flagged updated still has its `old`
    /// object, empty, as in Canal, so `old` stays aligned with `data`.
    #[test]
    fn an_update_without_updated_columns_has_an_empty_old_row() {
        let same = || {
            vec![
                column("id", true, Some("1"), false),
                column("name", false, Some("alice"), false),
            ]
        };
        let change = RowChange {
            event_type: Some(EventType::Update as i32),
            is_ddl: Some(false),
            row_datas: vec![RowData {
                before_columns: same(),
                after_columns: same(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let m = FlatMessage::from_entry(&entry(change), 4, 0)
            .unwrap()
            .unwrap();
        assert_eq!(m.old, Some(vec![vec![]]));
        assert!(m.to_json().contains(r#""old":[{}]"#), "{}", m.to_json());
    }

    /// Transaction boundaries give no message.
    #[test]
    fn only_rowdata_entries_are_messages() {
        let begin = Entry {
            entry_type: Some(EntryType::TransactionBegin as i32),
            ..Default::default()
        };
        assert_eq!(FlatMessage::from_entry(&begin, 1, 0).unwrap(), None);
    }
}
