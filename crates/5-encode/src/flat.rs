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
//!
//! One field is Sluice's own: the rows of the initial snapshot (entries
//! whose header has the prop `snapshot` = `true`) carry `"snapshot":true`,
//! between `pkNames` and `sql`; other messages are Canal's, without it.
//! Canal's `FlatMessage` class has no such field; its client reads the
//! JSON with fastjson's `parseObject(.., FlatMessage.class)`, which skips
//! keys the class lacks, so Canal's consumers ignore it.

use std::time::{SystemTime, UNIX_EPOCH};

use prost::Message;
use sluice_canal::proto::{Entry, EntryType, EventType};
use sluice_canal::view::{ColumnView, EntryView, RowChangeView, ViewError};
use sluice_events::{ChangeEvent, Encoder};

use crate::canal::{BuiltEntry, CanalEncoder, EntryError};
use crate::json_escape;

/// One row as a map from column name to value (`None` for SQL NULL), in
/// column order; a name seen twice keeps its first place and its last value.
pub type FlatRow<S = String> = Vec<(S, Option<S>)>;

/// Canal's FlatMessage: one ROWDATA entry as the JSON Canal sends to a
/// message queue. `S` is `String` for a message of its own, `&str` for one
/// that borrows the entry's bytes (see [`FlatMessage::from_view`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatMessage<S = String> {
    /// The Canal batch id of the get that read the entry.
    pub id: i64,
    pub database: S,
    pub table: S,
    /// Names of the key columns of the first row; `None` without keys or rows.
    pub pk_names: Option<Vec<S>>,
    pub is_ddl: bool,
    /// `RowChange.eventType`'s name: `INSERT`, `UPDATE`, `ALTER`, ...
    pub event_type: &'static str,
    /// The binlog event's time, milliseconds.
    pub es: i64,
    /// When the message was made, milliseconds.
    pub ts: i64,
    /// The statement of DDL and statement entries, else empty.
    pub sql: S,
    /// The executed GTID set in GTID mode, else empty.
    pub gtid: S,
    /// `java.sql.Types` code per column.
    pub sql_type: Option<Vec<(S, i32)>>,
    /// Declared type per column.
    pub mysql_type: Option<Vec<(S, S)>>,
    /// The rows: after images, before images for DELETE.
    pub data: Option<Vec<FlatRow<S>>>,
    /// UPDATE only: the before values of the updated columns, per row.
    pub old: Option<Vec<FlatRow<S>>>,
    /// A row of the initial snapshot (header prop `snapshot` = `true`):
    /// written as `"snapshot":true`, and not at all when false.
    pub snapshot: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum FlatError {
    #[error(transparent)]
    Entry(#[from] EntryError),
    #[error("a ROWDATA entry's RowChange does not decode: {0}")]
    RowChange(#[from] prost::DecodeError),
    #[error(transparent)]
    View(#[from] ViewError),
}

/// Sets `key` in an insertion-ordered map (Java's `LinkedHashMap.put`).
/// `hint` is where the key is when the rows of an entry have the same
/// columns in the same order (nearly always): checked first, so a row costs
/// one comparison per column instead of a search.
fn put<'a, V>(map: &mut Vec<(&'a str, V)>, hint: usize, key: &'a str, value: V) {
    if let Some(slot) = map.get_mut(hint).filter(|(k, _)| *k == key) {
        slot.1 = value;
        return;
    }
    match map.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => map.push((key, value)),
    }
}

/// A column's value as Canal's converter reads it: `None` when NULL.
fn value_of<'a>(c: &ColumnView<'a>) -> Option<&'a str> {
    if c.is_null {
        None
    } else {
        Some(c.value.unwrap_or_default())
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

impl FlatMessage<String> {
    /// The FlatMessage of a Canal entry read in batch `id` at time `ts`
    /// (ms); `None` for entries other than ROWDATA (transaction begins and
    /// ends are never sent).
    pub fn from_entry(entry: &Entry, id: i64, ts: i64) -> Result<Option<FlatMessage>, FlatError> {
        let bytes = entry.encode_to_vec();
        let view = EntryView::parse(&bytes)?;
        Ok(FlatMessage::from_view(&view, id, ts)?.map(|m| m.to_owned_message()))
    }
}

impl<'a> FlatMessage<&'a str> {
    /// As [`FlatMessage::from_entry`], from a serialised entry read in
    /// place: the message borrows its names and values from the bytes.
    pub fn from_view(
        entry: &EntryView<'a>,
        id: i64,
        ts: i64,
    ) -> Result<Option<FlatMessage<&'a str>>, ViewError> {
        if entry.entry_type != Some(EntryType::RowData as i32) {
            return Ok(None);
        }
        let change = RowChangeView::parse(entry.store_value)?;
        let header = &entry.header;
        // An absent eventType reads as proto2's default, UPDATE.
        let event_type = change
            .event_type
            .and_then(|t| EventType::try_from(t).ok())
            .unwrap_or(EventType::Update);
        let is_ddl = change.is_ddl.unwrap_or(false);
        let mut message = FlatMessage {
            id,
            database: header.schema_name,
            table: header.table_name,
            pk_names: None,
            is_ddl,
            event_type: event_type_name(event_type),
            es: header.execute_time,
            ts,
            sql: change.sql,
            gtid: header.gtid,
            sql_type: None,
            mysql_type: None,
            data: None,
            old: None,
            snapshot: header.snapshot,
        };
        if is_ddl
            || !matches!(
                event_type,
                EventType::Insert | EventType::Update | EventType::Delete
            )
        {
            return Ok(Some(message));
        }
        let mut sql_type: Vec<(&str, i32)> = Vec::new();
        let mut mysql_type: Vec<(&str, &str)> = Vec::new();
        let mut data = Vec::with_capacity(change.row_count);
        let mut old = Vec::new();
        // Columns flagged updated in any row so far (Canal's set is never
        // cleared between the rows of an entry).
        let mut updated: Vec<&str> = Vec::new();
        let mut pk_names_done = false;
        let mut width = 0;
        let is_update = event_type == EventType::Update;
        for row in change.rows() {
            let columns = if event_type == EventType::Delete {
                row.before()
            } else {
                row.after()
            };
            let mut values = FlatRow::with_capacity(width);
            // While each column of this row is where the type maps have its
            // name (rows of one entry nearly always list the same columns),
            // the names so far are distinct and in the maps' order: one
            // comparison places a column in all three maps.
            let mut aligned = true;
            for (i, c) in columns.enumerate() {
                let c = c?;
                let name = c.name;
                if !pk_names_done && c.is_key {
                    message.pk_names.get_or_insert_with(Vec::new).push(name);
                }
                aligned = aligned && sql_type.get(i).is_some_and(|(k, _)| *k == name);
                if aligned {
                    sql_type[i].1 = c.sql_type;
                    mysql_type[i].1 = c.mysql_type;
                    values.push((name, value_of(&c)));
                } else {
                    put(&mut sql_type, i, name, c.sql_type);
                    put(&mut mysql_type, i, name, c.mysql_type);
                    put(&mut values, i, name, value_of(&c));
                }
                // Only UPDATE messages carry `old`.
                if is_update && c.updated && !updated.contains(&name) {
                    updated.push(name);
                }
            }
            pk_names_done = true;
            width = values.len();
            if !values.is_empty() {
                data.push(values);
            }
            if event_type == EventType::Update {
                let mut before = FlatRow::new();
                for c in row.before() {
                    let c = c?;
                    if updated.contains(&c.name) {
                        let at = before.len();
                        put(&mut before, at, c.name, value_of(&c));
                    }
                }
                // One `old` object per UPDATE row, even an empty one (no
                // column flagged updated), so `old[i]` stays the before image
                // of `data[i]` when rows are split by partition.
                old.push(before);
            }
        }
        message.sql_type = (!sql_type.is_empty()).then_some(sql_type);
        message.mysql_type = (!mysql_type.is_empty()).then_some(mysql_type);
        message.data = (!data.is_empty()).then_some(data);
        message.old = (!old.is_empty()).then_some(old);
        Ok(Some(message))
    }

    /// The same message owning its strings.
    pub fn to_owned_message(&self) -> FlatMessage {
        let own = |s: &&str| s.to_string();
        let rows = |rows: &Vec<FlatRow<&str>>| {
            rows.iter()
                .map(|r| {
                    r.iter()
                        .map(|(k, v)| (k.to_string(), v.map(str::to_string)))
                        .collect()
                })
                .collect()
        };
        FlatMessage {
            id: self.id,
            database: own(&self.database),
            table: own(&self.table),
            pk_names: self.pk_names.as_ref().map(|p| p.iter().map(own).collect()),
            is_ddl: self.is_ddl,
            event_type: self.event_type,
            es: self.es,
            ts: self.ts,
            sql: own(&self.sql),
            gtid: own(&self.gtid),
            sql_type: self
                .sql_type
                .as_ref()
                .map(|m| m.iter().map(|(k, v)| (k.to_string(), *v)).collect()),
            mysql_type: self.mysql_type.as_ref().map(|m| {
                m.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            }),
            data: self.data.as_ref().map(rows),
            old: self.old.as_ref().map(rows),
            snapshot: self.snapshot,
        }
    }
}

impl<S: AsRef<str>> FlatMessage<S> {
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
        write_str(out, self.database.as_ref());
        out.push_str(",\"es\":");
        push_i64(out, self.es);
        out.push_str(",\"gtid\":");
        write_str(out, self.gtid.as_ref());
        out.push_str(",\"id\":");
        push_i64(out, self.id);
        out.push_str(",\"isDdl\":");
        out.push_str(if self.is_ddl { "true" } else { "false" });
        out.push_str(",\"mysqlType\":");
        write_map(out, self.mysql_type.as_deref(), |out, v| {
            write_str(out, v.as_ref())
        });
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
                    write_str(out, n.as_ref());
                }
                out.push(']');
            }
            None => out.push_str("null"),
        }
        // Only snapshot rows have the key: every other message stays Canal's.
        if self.snapshot {
            out.push_str(",\"snapshot\":true");
        }
        out.push_str(",\"sql\":");
        write_str(out, self.sql.as_ref());
        out.push_str(",\"sqlType\":");
        write_map(out, self.sql_type.as_deref(), |out, v| {
            push_i64(out, *v as i64)
        });
        out.push_str(",\"table\":");
        write_str(out, self.table.as_ref());
        out.push_str(",\"ts\":");
        push_i64(out, self.ts);
        out.push_str(",\"type\":");
        write_str(out, self.event_type);
        out.push('}');
    }
}

pub(crate) fn push_i64(out: &mut String, v: i64) {
    out.push_str(itoa::Buffer::new().format(v));
}

/// A JSON object from an ordered map, or `null`.
fn write_map<S: AsRef<str>, V>(
    out: &mut String,
    map: Option<&[(S, V)]>,
    value: impl Fn(&mut String, &V),
) {
    let Some(map) = map else {
        out.push_str("null");
        return;
    };
    out.push('{');
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_str(out, k.as_ref());
        out.push(':');
        value(out, v);
    }
    out.push('}');
}

/// An array of row objects, or `null`.
fn write_rows<S: AsRef<str>>(out: &mut String, rows: Option<&[FlatRow<S>]>) {
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
            Some(s) => write_str(out, s.as_ref()),
            None => out.push_str("null"),
        });
    }
    out.push(']');
}

/// A JSON string: quotes, backslashes and control characters escaped,
/// everything else as is (UTF-8).
pub(crate) fn write_str(out: &mut String, s: &str) {
    // Room for the string and its quotes: escapes aside, one allocation at most.
    out.reserve(s.len() + 2);
    out.push('"');
    // Runs of characters that need no escape are copied whole; the ones
    // that do are all ASCII, so every cut is on a character boundary.
    let bytes = s.as_bytes();
    let mut run = 0;
    while let Some(i) = json_escape::next_escape(bytes, run) {
        out.push_str(&s[run..i]);
        let b = bytes[i];
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                out.push_str("\\u00");
                out.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
                out.push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
            }
        }
        run = i + 1;
    }
    out.push_str(&s[run..]);
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
    use sluice_canal::proto::{Column, Header, Pair, RowChange, RowData};

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
            store_value: Some(change.encode_to_vec().into()),
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

    /// A row whose columns differ from the first row's (another order, a
    /// name twice) fills its maps as Java's `LinkedHashMap.put` does: a
    /// name keeps its first place and takes its last value.
    #[test]
    fn rows_with_other_columns_keep_linked_hash_map_order() {
        let row = |after: Vec<Column>| RowData {
            after_columns: after,
            ..Default::default()
        };
        let change = RowChange {
            event_type: Some(EventType::Insert as i32),
            is_ddl: Some(false),
            row_datas: vec![
                row(vec![
                    column("id", true, Some("1"), true),
                    column("name", false, Some("a"), true),
                ]),
                row(vec![
                    column("name", false, Some("b"), true),
                    column("id", true, Some("2"), true),
                    column("name", false, Some("c"), true),
                ]),
                row(vec![
                    column("id", true, Some("3"), true),
                    column("name", false, None, true),
                    column("extra", false, Some("e"), true),
                ]),
            ],
            ..Default::default()
        };
        let m = FlatMessage::from_entry(&entry(change), 1, 0)
            .unwrap()
            .unwrap();
        let json = m.to_json();
        assert!(
            json.starts_with(
                r#"{"data":[{"id":"1","name":"a"},{"name":"c","id":"2"},{"id":"3","name":null,"extra":"e"}],"#
            ),
            "{json}"
        );
        assert!(
            json.contains(r#""sqlType":{"id":-5,"name":12,"extra":12}"#),
            "{json}"
        );
        assert!(json.contains(r#""old":null"#), "{json}");
    }

    /// Strings are escaped as a JSON writer escapes them (serde_json's
    /// escapes are fastjson2's for these: the short forms and `\u00XX`).
    #[test]
    fn strings_are_escaped_as_json_writers_do() {
        let mut cases: Vec<String> = (0u8..0x80).map(|b| char::from(b).to_string()).collect();
        cases.extend(
            [
                "",
                "plain",
                "a\"b\\c\n",
                "naïve 😀\u{1}x",
                "\u{7f}\u{80}\u{ff}",
            ]
            .map(String::from),
        );
        for s in cases {
            let mut out = String::new();
            write_str(&mut out, &s);
            assert_eq!(out, serde_json::to_string(&s).unwrap(), "{s:?}");
        }
    }

    /// A row of the initial snapshot (header prop `snapshot` = `true`,
    /// before `rowsCount`) has `"snapshot":true` between `pkNames` and
    /// `sql`; the same entry without the prop has no such key.
    #[test]
    fn snapshot_rows_carry_the_snapshot_field() {
        let change = RowChange {
            event_type: Some(EventType::Insert as i32),
            is_ddl: Some(false),
            row_datas: vec![RowData {
                after_columns: vec![
                    column("id", true, Some("7"), true),
                    column("name", false, Some("zoe"), true),
                ],
                ..Default::default()
            }],
            ..Default::default()
        };
        let mut plain = entry(change);
        plain.header.as_mut().unwrap().props = vec![Pair::new("rowsCount", "1")];
        let mut snapshot = plain.clone();
        snapshot.header.as_mut().unwrap().props =
            vec![Pair::new("snapshot", "true"), Pair::new("rowsCount", "1")];

        let m = FlatMessage::from_entry(&snapshot, 3, 1_704_164_700_210)
            .unwrap()
            .unwrap();
        assert!(m.snapshot);
        assert_eq!(
            m.to_json(),
            concat!(
                r#"{"data":[{"id":"7","name":"zoe"}],"database":"test","es":1704164700000,"#,
                r#""gtid":"","id":3,"isDdl":false,"mysqlType":{"id":"bigint(20)","name":"varchar(32)"},"#,
                r#""old":null,"pkNames":["id"],"snapshot":true,"sql":"","#,
                r#""sqlType":{"id":-5,"name":12},"table":"user","ts":1704164700210,"type":"INSERT"}"#
            )
        );
        let m = FlatMessage::from_entry(&plain, 3, 1_704_164_700_210)
            .unwrap()
            .unwrap();
        assert!(!m.snapshot);
        assert_eq!(
            m.to_json(),
            concat!(
                r#"{"data":[{"id":"7","name":"zoe"}],"database":"test","es":1704164700000,"#,
                r#""gtid":"","id":3,"isDdl":false,"mysqlType":{"id":"bigint(20)","name":"varchar(32)"},"#,
                r#""old":null,"pkNames":["id"],"sql":"","#,
                r#""sqlType":{"id":-5,"name":12},"table":"user","ts":1704164700210,"type":"INSERT"}"#
            )
        );
        // `snapshot` = anything else is no mark.
        snapshot.header.as_mut().unwrap().props[0] = Pair::new("snapshot", "false");
        let m = FlatMessage::from_entry(&snapshot, 3, 0).unwrap().unwrap();
        assert!(!m.to_json().contains("snapshot"), "{}", m.to_json());
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
