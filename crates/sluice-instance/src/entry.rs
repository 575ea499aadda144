//! Canal entries from decoded binlog events, filled as Canal's MySQL parser
//! fills them (spec §11): TRANSACTIONBEGIN from `BEGIN`, TRANSACTIONEND from
//! XID or `COMMIT`, one ROWDATA entry per rows event, DDL and other
//! statements as ROWDATA with `isDdl`. Every entry carries its binlog
//! position; transaction ends and DDL also carry the position to resume
//! from once acked (the event after them), which becomes the cursor.

use prost::Message;
use sluice_binlog::events::{EventData, QueryEvent};
use sluice_binlog::{Cell, EventHeader, RowsEvent, RowsKind};
use sluice_canal::proto::{
    Entry, EntryType, EventType, Header, Pair, RowChange, SourceType, TransactionBegin,
    TransactionEnd,
};
use sluice_canal::EntryPosition;

use std::fmt::Write as _;

use crate::canal_value::{self, RenderInfo};
use crate::pb;

/// What the schema tracker knows of a column, for Canal's `name`, `isKey`
/// and `mysqlType` fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnInfo {
    pub name: String,
    /// The declared type, e.g. `int(11) unsigned`, `varchar(64)`.
    pub mysql_type: String,
    pub is_key: bool,
}

/// Where an event is in the binlog.
#[derive(Debug, Clone, Copy)]
pub struct EventContext<'a> {
    pub file: &'a str,
    pub pos: u64,
    pub next_pos: u64,
    pub header: &'a EventHeader,
}

/// The kind of an entry, for transaction bookkeeping and DDL isolation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    Begin,
    Row,
    End,
    Ddl,
    Query,
}

/// An entry with where it came from.
#[derive(Debug, Clone)]
pub struct BuiltEntry {
    pub entry: Entry,
    pub kind: EntryKind,
    pub position: EntryPosition,
    /// Set on transaction ends and DDL: where to resume after this entry.
    pub ack_point: Option<EntryPosition>,
    /// A key stable across replays, for consumers to drop duplicates:
    /// `file:offset` of the event (plus the row index inside rows events).
    pub idempotency_key: String,
}

/// Builds entries from a stream of events, keeping the transaction state
/// (current GTID, executed GTID set) that entries carry.
#[derive(Debug, Default)]
pub struct EntryBuilder {
    /// `canal.instance.gtidon`: fill `Header.gtid` and the GTID props.
    pub gtid_on: bool,
    /// The executed GTID set, kept up to date by the caller from the stream.
    pub executed_gtid_set: String,
    current_gtid: Option<String>,
    current_sequence: Option<(i64, i64)>,
    in_transaction: bool,
    scratch: Scratch,
}

#[derive(Debug, thiserror::Error)]
pub enum EntryError {
    #[error("{file}:{pos}: {source}")]
    Decode {
        file: String,
        pos: u64,
        source: sluice_binlog::DecodeError,
    },
}

impl EntryBuilder {
    pub fn new(gtid_on: bool) -> Self {
        EntryBuilder {
            gtid_on,
            ..Default::default()
        }
    }

    fn position(&self, ctx: &EventContext<'_>, offset: u64) -> EntryPosition {
        EntryPosition {
            gtid: if self.gtid_on {
                self.executed_gtid_set.clone()
            } else {
                String::new()
            },
            included: false,
            journal_name: ctx.file.to_string(),
            position: offset,
            server_id: ctx.header.server_id as i64,
            timestamp: ctx.header.timestamp as i64 * 1000,
        }
    }

    fn header(
        &self,
        ctx: &EventContext<'_>,
        schema: &str,
        table: &str,
        event_type: Option<EventType>,
    ) -> Header {
        let mut props = Vec::new();
        if self.gtid_on {
            if let Some(g) = &self.current_gtid {
                props.push(Pair::new("curtGtid", g.clone()));
            }
            if let Some((sn, lct)) = self.current_sequence {
                props.push(Pair::new("curtGtidSn", sn.to_string()));
                props.push(Pair::new("curtGtidLct", lct.to_string()));
            }
        }
        Header {
            version: Some(1),
            logfile_name: Some(ctx.file.to_string()),
            logfile_offset: Some(ctx.pos as i64),
            server_id: Some(ctx.header.server_id as i64),
            serverenc_code: Some("UTF-8".into()),
            execute_time: Some(ctx.header.timestamp as i64 * 1000),
            source_type: Some(SourceType::Mysql as i32),
            schema_name: Some(schema.to_string()),
            table_name: Some(table.to_string()),
            event_length: Some((ctx.next_pos - ctx.pos) as i64),
            event_type: event_type.map(|t| t as i32),
            props,
            gtid: self.gtid_on.then(|| self.executed_gtid_set.clone()),
        }
    }

    fn built(
        &self,
        ctx: &EventContext<'_>,
        kind: EntryKind,
        entry: Entry,
        key_suffix: &str,
    ) -> BuiltEntry {
        let ack_point = matches!(kind, EntryKind::End | EntryKind::Ddl)
            .then(|| self.position(ctx, ctx.next_pos));
        BuiltEntry {
            entry,
            kind,
            position: self.position(ctx, ctx.pos),
            ack_point,
            idempotency_key: format!("{}:{}{key_suffix}", ctx.file, ctx.pos),
        }
    }

    /// What the entry of a rows event needs of this builder, to build it
    /// elsewhere (another task) while this builder goes on with the events
    /// that follow: the GTID state in force now.
    pub fn rows_job(&self) -> RowsJob {
        RowsJob(EntryBuilder {
            gtid_on: self.gtid_on,
            executed_gtid_set: self.executed_gtid_set.clone(),
            current_gtid: self.current_gtid.clone(),
            current_sequence: self.current_sequence,
            in_transaction: self.in_transaction,
            scratch: Scratch::default(),
        })
    }

    /// The entries one event produces (none for most non-data events).
    /// `columns` describes the rows event's table when the schema is known.
    pub fn on_event(
        &mut self,
        ctx: &EventContext<'_>,
        data: &EventData<'_>,
        columns: Option<&[ColumnInfo]>,
    ) -> Result<Vec<BuiltEntry>, EntryError> {
        let mut out = Vec::new();
        match data {
            EventData::Gtid(g) => {
                self.current_gtid = (!g.anonymous).then(|| g.gtid.to_string());
                self.current_sequence = g.sequence_number.zip(g.last_committed);
            }
            EventData::MariadbGtid(g) => {
                self.current_gtid = Some(g.gtid.to_string());
                self.current_sequence = None;
                // MariaDB writes no BEGIN query: its GTID event opens the
                // transaction. A standalone group (DDL) opens nothing.
                if g.flags & sluice_binlog::events::mariadb_gtid_flags::STANDALONE == 0 {
                    self.in_transaction = true;
                    let begin = TransactionBegin::default();
                    out.push(self.built(
                        ctx,
                        EntryKind::Begin,
                        Entry {
                            header: Some(self.header(ctx, "", "", None)),
                            entry_type: Some(EntryType::TransactionBegin as i32),
                            store_value: Some(begin.encode_to_vec()),
                        },
                        "",
                    ));
                }
            }
            EventData::Query(q) => out.extend(self.on_query(ctx, q)),
            EventData::Xid(xid) => {
                let end = TransactionEnd {
                    transaction_id: Some(xid.to_string()),
                    ..Default::default()
                };
                out.push(self.built(
                    ctx,
                    EntryKind::End,
                    Entry {
                        header: Some(self.header(ctx, "", "", None)),
                        entry_type: Some(EntryType::TransactionEnd as i32),
                        store_value: Some(end.encode_to_vec()),
                    },
                    "",
                ));
                self.in_transaction = false;
            }
            EventData::Rows(rows) => out.push(self.on_rows(ctx, rows, columns)?),
            _ => {}
        }
        Ok(out)
    }

    fn on_query(&mut self, ctx: &EventContext<'_>, q: &QueryEvent<'_>) -> Option<BuiltEntry> {
        let sql = q.query_text();
        let trimmed = sql.trim();
        let upper: String = trimmed
            .chars()
            .take(32)
            .collect::<String>()
            .to_ascii_uppercase();
        if upper == "BEGIN" || upper.ends_with(" BEGIN") || upper.starts_with("XA START") {
            self.in_transaction = true;
            let begin = TransactionBegin {
                thread_id: Some(q.thread_id as i64),
                ..Default::default()
            };
            return Some(self.built(
                ctx,
                EntryKind::Begin,
                Entry {
                    header: Some(self.header(ctx, "", "", None)),
                    entry_type: Some(EntryType::TransactionBegin as i32),
                    store_value: Some(begin.encode_to_vec()),
                },
                "",
            ));
        }
        if upper == "COMMIT" || upper.starts_with("XA END") {
            self.in_transaction = false;
            let end = TransactionEnd {
                transaction_id: Some("0".into()),
                ..Default::default()
            };
            return Some(self.built(
                ctx,
                EntryKind::End,
                Entry {
                    header: Some(self.header(ctx, "", "", None)),
                    entry_type: Some(EntryType::TransactionEnd as i32),
                    store_value: Some(end.encode_to_vec()),
                },
                "",
            ));
        }
        let session_db = q.schema_text().into_owned();
        let class = classify_statement(trimmed);
        let schema = class.schema.clone().unwrap_or_else(|| session_db.clone());
        let table = class.table.clone().unwrap_or_default();
        let change = RowChange {
            event_type: Some(class.event_type as i32),
            is_ddl: Some(!class.is_dml),
            sql: Some(trimmed.to_string()),
            ddl_schema_name: (!session_db.is_empty()).then(|| session_db.clone()),
            ..Default::default()
        };
        let kind = if class.is_dml || class.event_type == EventType::Query {
            EntryKind::Query
        } else {
            EntryKind::Ddl
        };
        // A DDL outside a transaction is a boundary of its own.
        let kind = if kind == EntryKind::Query && !self.in_transaction && !class.is_dml {
            EntryKind::Ddl
        } else {
            kind
        };
        Some(self.built(
            ctx,
            kind,
            Entry {
                header: Some(self.header(ctx, &schema, &table, Some(class.event_type))),
                entry_type: Some(EntryType::RowData as i32),
                store_value: Some(change.encode_to_vec()),
            },
            "",
        ))
    }

    fn on_rows(
        &mut self,
        ctx: &EventContext<'_>,
        rows: &RowsEvent<'_>,
        columns: Option<&[ColumnInfo]>,
    ) -> Result<BuiltEntry, EntryError> {
        let table = &rows.table;
        let event_type = match rows.kind {
            RowsKind::Write => EventType::Insert,
            RowsKind::Update | RowsKind::PartialUpdate => EventType::Update,
            RowsKind::Delete => EventType::Delete,
        };
        let err = |source| EntryError::Decode {
            file: ctx.file.to_string(),
            pos: ctx.pos,
            source,
        };
        // What each column is, worked out once for the whole event.
        let mut fixed = std::mem::take(&mut self.scratch.fixed);
        fixed.clear();
        let metas: Vec<ColumnMeta> = table
            .columns
            .iter()
            .enumerate()
            .map(|(i, def)| {
                let (name, mysql_type, is_key) = match columns.and_then(|c| c.get(i)) {
                    Some(c) => (c.name.as_str(), c.mysql_type.as_str(), c.is_key),
                    None => (
                        def.name.as_deref().unwrap_or(""),
                        def.column_type.sql_name(),
                        def.is_primary_key(),
                    ),
                };
                // The fields that are the same in every row: name and
                // isKey, then mysqlType.
                let start = fixed.len();
                pb::bytes(&mut fixed, 3, name.as_bytes());
                pb::boolean(&mut fixed, 4, is_key);
                let mid_end = fixed.len();
                pb::bytes(&mut fixed, 10, mysql_type.as_bytes());
                ColumnMeta {
                    mid: start..mid_end,
                    tail: mid_end..fixed.len(),
                    render: RenderInfo::new(def, mysql_type),
                }
            })
            .collect();

        // The RowChange, written straight to bytes (see `pb`): tableId,
        // eventType, isDdl, then one RowData per row.
        let event_len = (ctx.next_pos - ctx.pos) as usize;
        let mut change = Vec::with_capacity(256 + event_len.saturating_mul(4));
        pb::int64(&mut change, 1, rows.table_id as i64);
        pb::int32(&mut change, 2, event_type as i32);
        pb::boolean(&mut change, 10, false);
        let mut count = 0usize;
        let scratch = &mut self.scratch;
        for (row_index, row) in rows.rows().enumerate() {
            let row = row.map_err(err)?;
            scratch.text.clear();
            render_image(
                row.before.as_ref(),
                table,
                &metas,
                &mut scratch.text,
                &mut scratch.before,
            )
            .map_err(err)?;
            render_image(
                row.after.as_ref(),
                table,
                &metas,
                &mut scratch.text,
                &mut scratch.after,
            )
            .map_err(err)?;
            // An after-image column is updated when its value differs from
            // the before-image's (NULL equals NULL), or has none to compare.
            scratch.updated.clear();
            for (i, a) in scratch.after.iter().enumerate() {
                let updated = match scratch.before.get(i) {
                    Some(b) if b.state != ABSENT => {
                        b.state != a.state || b.text(&scratch.text) != a.text(&scratch.text)
                    }
                    _ => true,
                };
                scratch.updated.push(updated);
            }
            scratch.row_key.clear();
            let _ = write!(scratch.row_key, "{}:{}#{row_index}", ctx.file, ctx.pos);

            let text = scratch.text.as_str();
            let before_len: usize = scratch
                .before
                .iter()
                .enumerate()
                .filter(|(_, r)| r.state != ABSENT)
                .map(|(i, r)| nested_len(1, column_len(i, &metas[i], r)))
                .sum();
            let after_len: usize = scratch
                .after
                .iter()
                .enumerate()
                .filter(|(_, r)| r.state != ABSENT)
                .map(|(i, r)| nested_len(2, column_len(i, &metas[i], r)))
                .sum();
            let pair_len =
                pb::bytes_len(1, ROW_KEY.len()) + pb::bytes_len(2, scratch.row_key.len());
            let row_len = before_len + after_len + nested_len(3, pair_len);

            change.reserve(row_len + 16);
            pb::message_header(&mut change, 12, row_len);
            for (i, r) in scratch.before.iter().enumerate() {
                if r.state != ABSENT {
                    write_column(&mut change, 1, i, &metas[i], &fixed, r, text, false);
                }
            }
            for (i, r) in scratch.after.iter().enumerate() {
                if r.state != ABSENT {
                    write_column(
                        &mut change,
                        2,
                        i,
                        &metas[i],
                        &fixed,
                        r,
                        text,
                        scratch.updated[i],
                    );
                }
            }
            pb::message_header(&mut change, 3, pair_len);
            pb::bytes(&mut change, 1, ROW_KEY.as_bytes());
            pb::bytes(&mut change, 2, scratch.row_key.as_bytes());
            count += 1;
        }
        self.scratch.fixed = fixed;
        let mut header = self.header(ctx, &table.schema, &table.table, Some(event_type));
        if count > 0 {
            header.props.push(Pair::new("rowsCount", count.to_string()));
        }
        Ok(self.built(
            ctx,
            EntryKind::Row,
            Entry {
                header: Some(header),
                entry_type: Some(EntryType::RowData as i32),
                store_value: Some(change),
            },
            "",
        ))
    }
}

/// The entry of one rows event, built away from its [`EntryBuilder`]
/// (see [`EntryBuilder::rows_job`]).
#[derive(Debug)]
pub struct RowsJob(EntryBuilder);

thread_local! {
    /// Rows jobs reuse their buffers per thread.
    static JOB_SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

impl RowsJob {
    /// The ROWDATA entry of `rows`, the same as [`EntryBuilder::on_event`]
    /// gives for it.
    pub fn build(
        mut self,
        ctx: &EventContext<'_>,
        rows: &RowsEvent<'_>,
        columns: Option<&[ColumnInfo]>,
    ) -> Result<BuiltEntry, EntryError> {
        JOB_SCRATCH.with(|cell| {
            self.0.scratch = cell.take();
            let built = self.0.on_rows(ctx, rows, columns);
            cell.replace(std::mem::take(&mut self.0.scratch));
            built
        })
    }
}

/// The RowData prop that carries a row's replay-stable key.
const ROW_KEY: &str = "sluiceRowKey";

/// The Column prop (`sluicePartialJson` = `true`) marking a value that is a
/// partial JSON update's diffs, `JSON_REPLACE(...)` text, because the before
/// value the diffs apply to is not in the event (row image MINIMAL/NOBLOB).
pub const PARTIAL_JSON_PROP: (&str, &str) = ("sluicePartialJson", "true");

/// Bytes of the partial-JSON prop (a Pair, field 7 of a Column).
fn partial_prop_len() -> usize {
    nested_len(
        7,
        pb::bytes_len(1, PARTIAL_JSON_PROP.0.len()) + pb::bytes_len(2, PARTIAL_JSON_PROP.1.len()),
    )
}

/// What a rows event's column is: its fixed Column fields, already
/// encoded in the event's `fixed` buffer, and how to render its values.
struct ColumnMeta {
    /// `name` and `isKey`.
    mid: std::ops::Range<usize>,
    /// `mysqlType`.
    tail: std::ops::Range<usize>,
    render: RenderInfo,
}

const ABSENT: u8 = 0;
const NULL: u8 = 1;
const PRESENT: u8 = 2;

/// A cell of a row image: absent (MINIMAL image), NULL, or a value whose
/// text is `start..end` of the row's text buffer.
#[derive(Debug, Clone, Copy)]
struct Rendered {
    state: u8,
    /// The value is a partial JSON update's diffs (see [`PARTIAL_JSON_PROP`]).
    partial: bool,
    sql_type: i32,
    start: u32,
    end: u32,
}

impl Rendered {
    fn text<'t>(&self, text: &'t str) -> &'t str {
        &text[self.start as usize..self.end as usize]
    }
}

/// Buffers reused from one row to the next.
#[derive(Debug, Default)]
struct Scratch {
    text: String,
    before: Vec<Rendered>,
    after: Vec<Rendered>,
    updated: Vec<bool>,
    row_key: String,
    /// The fixed Column fields of the current event's columns.
    fixed: Vec<u8>,
}

/// Renders every cell of an image (none when there is no image).
fn render_image(
    image: Option<&sluice_binlog::RowImage<'_>>,
    table: &sluice_binlog::TableMap,
    metas: &[ColumnMeta],
    text: &mut String,
    out: &mut Vec<Rendered>,
) -> Result<(), sluice_binlog::DecodeError> {
    out.clear();
    let Some(image) = image else {
        return Ok(());
    };
    for (i, cell) in image.cells().enumerate() {
        let r = match cell? {
            Cell::Absent => Rendered {
                state: ABSENT,
                partial: false,
                sql_type: 0,
                start: 0,
                end: 0,
            },
            Cell::Present(v) => {
                let def = &table.columns[i];
                let info = &metas[i].render;
                if v.is_null() {
                    Rendered {
                        state: NULL,
                        partial: false,
                        sql_type: canal_value::null_sql_type_with(def, info),
                        start: 0,
                        end: 0,
                    }
                } else {
                    let start = text.len() as u32;
                    let sql_type = canal_value::render_into(&v, def, info, text)?;
                    Rendered {
                        state: PRESENT,
                        partial: v.is_partial_json(),
                        sql_type,
                        start,
                        end: text.len() as u32,
                    }
                }
            }
        };
        out.push(r);
    }
    Ok(())
}

/// Bytes of a nested message field with a body of `len` bytes.
fn nested_len(field: u32, len: usize) -> usize {
    pb::key_len(field) + pb::varint_len(len as u64) + len
}

/// Bytes of a Column message: index, sqlType, name, isKey, updated,
/// isNull, props (partial JSON only), value (absent for NULL), mysqlType.
fn column_len(index: usize, m: &ColumnMeta, r: &Rendered) -> usize {
    let value = if r.state == PRESENT {
        pb::bytes_len(8, (r.end - r.start) as usize)
    } else {
        0
    };
    let props = if r.partial { partial_prop_len() } else { 0 };
    pb::int32_len(1, index as i32)
        + pb::int32_len(2, r.sql_type)
        + m.mid.len()
        + 2 * pb::bool_len(5)
        + props
        + value
        + m.tail.len()
}

/// A Column as field `field` of a RowData (1 before, 2 after).
#[allow(clippy::too_many_arguments)]
fn write_column(
    buf: &mut Vec<u8>,
    field: u32,
    index: usize,
    m: &ColumnMeta,
    fixed: &[u8],
    r: &Rendered,
    text: &str,
    updated: bool,
) {
    // Key and length (at most 1 + 10 bytes), index (1 + 5), sqlType (1 + 10).
    let mut head = pb::Small::new();
    head.key(field, pb::LEN);
    head.varint(column_len(index, m, r) as u64);
    head.key(1, pb::VARINT);
    head.varint(index as u32 as u64);
    head.key(2, pb::VARINT);
    head.varint(r.sql_type as i64 as u64);
    buf.extend_from_slice(head.as_slice());
    buf.extend_from_slice(&fixed[m.mid.clone()]);
    // updated, isNull (2 + 2 bytes), the value's key and length (1 + 10).
    let mut flags = pb::Small::new();
    flags.key(5, pb::VARINT);
    flags.varint(updated as u64);
    flags.key(6, pb::VARINT);
    flags.varint((r.state == NULL) as u64);
    if r.partial {
        buf.extend_from_slice(flags.as_slice());
        flags = pb::Small::new();
        let (key, value) = PARTIAL_JSON_PROP;
        pb::message_header(
            buf,
            7,
            pb::bytes_len(1, key.len()) + pb::bytes_len(2, value.len()),
        );
        pb::bytes(buf, 1, key.as_bytes());
        pb::bytes(buf, 2, value.as_bytes());
    }
    if r.state == PRESENT {
        let value = r.text(text).as_bytes();
        flags.key(8, pb::LEN);
        flags.varint(value.len() as u64);
        buf.extend_from_slice(flags.as_slice());
        buf.extend_from_slice(value);
    } else {
        buf.extend_from_slice(flags.as_slice());
    }
    buf.extend_from_slice(&fixed[m.tail.clone()]);
}

/// What a statement is, for Canal's header and RowChange fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementClass {
    pub event_type: EventType,
    pub is_dml: bool,
    pub schema: Option<String>,
    pub table: Option<String>,
}

/// Classifies a statement the way Canal's DDL parser reports it.
pub fn classify_statement(sql: &str) -> StatementClass {
    let tokens = tokens(sql, 12);
    let up: Vec<String> = tokens.iter().map(|t| t.to_ascii_uppercase()).collect();
    let word = |i: usize| up.get(i).map(String::as_str).unwrap_or("");
    let mut class = StatementClass {
        event_type: EventType::Query,
        is_dml: false,
        schema: None,
        table: None,
    };
    // Position of the table name after `TABLE [IF [NOT] EXISTS]`.
    let name_after = |start: usize| -> Option<usize> {
        let mut i = start;
        if word(i) == "IF" {
            i += if word(i + 1) == "NOT" { 3 } else { 2 };
        }
        (i < tokens.len()).then_some(i)
    };
    let mut name_at = None;
    match (word(0), word(1)) {
        ("CREATE", _) => {
            let mut i = 1;
            while matches!(
                word(i),
                "OR" | "REPLACE" | "TEMPORARY" | "UNIQUE" | "FULLTEXT" | "SPATIAL"
            ) {
                i += 1;
            }
            match word(i) {
                "TABLE" => {
                    class.event_type = EventType::Create;
                    name_at = name_after(i + 1);
                }
                "INDEX" => {
                    class.event_type = EventType::Cindex;
                    if let Some(on) = up.iter().position(|w| w == "ON") {
                        name_at = Some(on + 1);
                    }
                }
                _ => {}
            }
        }
        ("ALTER", "TABLE") | ("ALTER", "ONLINE") | ("ALTER", "IGNORE") => {
            let i = up.iter().position(|w| w == "TABLE").unwrap_or(1);
            name_at = name_after(i + 1);
            let rest = up.get(i + 2..).map(|r| r.join(" ")).unwrap_or_default();
            class.event_type = if rest.starts_with("ADD INDEX")
                || rest.starts_with("ADD UNIQUE")
                || rest.starts_with("ADD KEY")
            {
                EventType::Cindex
            } else if rest.starts_with("DROP INDEX") || rest.starts_with("DROP KEY") {
                EventType::Dindex
            } else if rest.starts_with("RENAME")
                && !rest.starts_with("RENAME COLUMN")
                && !rest.starts_with("RENAME INDEX")
                && !rest.starts_with("RENAME KEY")
            {
                EventType::Rename
            } else {
                EventType::Alter
            };
        }
        ("DROP", "TABLE") | ("DROP", "TEMPORARY") => {
            class.event_type = EventType::Erase;
            let i = up.iter().position(|w| w == "TABLE").unwrap_or(1);
            name_at = name_after(i + 1);
        }
        ("DROP", "INDEX") => {
            class.event_type = EventType::Dindex;
            if let Some(on) = up.iter().position(|w| w == "ON") {
                name_at = Some(on + 1);
            }
        }
        ("TRUNCATE", _) => {
            class.event_type = EventType::Truncate;
            name_at = Some(if word(1) == "TABLE" { 2 } else { 1 });
        }
        ("RENAME", "TABLE") => {
            class.event_type = EventType::Rename;
            // Canal reports the new name: `RENAME TABLE a TO b`.
            name_at = up.iter().position(|w| w == "TO").map(|p| p + 1);
        }
        ("INSERT", _) | ("REPLACE", _) => {
            class.event_type = EventType::Insert;
            class.is_dml = true;
        }
        ("UPDATE", _) => {
            class.event_type = EventType::Update;
            class.is_dml = true;
        }
        ("DELETE", _) => {
            class.event_type = EventType::Delete;
            class.is_dml = true;
        }
        _ => {}
    }
    if let Some(i) = name_at {
        if let Some(name) = tokens.get(i) {
            let (schema, table) = split_qualified(name);
            class.schema = schema;
            class.table = Some(table);
        }
    }
    class
}

/// The first `max` tokens: identifiers (backquotes removed, `db.t` kept
/// together) and keywords; comments and punctuation are skipped.
fn tokens(sql: &str, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let b = sql.as_bytes();
    let mut i = 0;
    while i < b.len() && out.len() < max {
        let c = b[i];
        if c.is_ascii_whitespace() || c == b',' || c == b';' || c == b'(' || c == b')' {
            i += 1;
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            // `/*!50100 ... */` version comments hold real syntax: keep their inside.
            if b.get(i + 2) == Some(&b'!') {
                i += 3;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            } else {
                match sql[i + 2..].find("*/") {
                    Some(e) => i = i + 2 + e + 2,
                    None => break,
                }
            }
        } else if c == b'*' && b.get(i + 1) == Some(&b'/') {
            i += 2;
        } else if c == b'#' || (c == b'-' && b.get(i + 1) == Some(&b'-')) {
            match sql[i..].find('\n') {
                Some(e) => i += e + 1,
                None => break,
            }
        } else {
            let mut t = String::new();
            while i < b.len() {
                let c = b[i];
                if c == b'`' {
                    let end = sql[i + 1..].find('`').map(|e| i + 1 + e).unwrap_or(b.len());
                    t.push_str(&sql[i + 1..end.min(sql.len())]);
                    i = end + 1;
                } else if c.is_ascii_whitespace() || matches!(c, b',' | b';' | b'(' | b')') {
                    break;
                } else {
                    let ch_len = sql[i..].chars().next().map(|ch| ch.len_utf8()).unwrap_or(1);
                    t.push_str(&sql[i..i + ch_len]);
                    i += ch_len;
                }
            }
            if !t.is_empty() {
                out.push(t);
            }
        }
    }
    out
}

fn split_qualified(name: &str) -> (Option<String>, String) {
    match name.split_once('.') {
        Some((s, t)) => (Some(s.to_string()), t.to_string()),
        None => (None, name.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use sluice_canal::proto::{Column, RowData};

    impl EntryBuilder {
        /// The struct-building implementation `on_rows` replaced, kept as the
        /// reference its bytes must equal.
        fn on_rows_reference(
            &mut self,
            ctx: &EventContext<'_>,
            rows: &RowsEvent<'_>,
            columns: Option<&[ColumnInfo]>,
        ) -> Result<BuiltEntry, EntryError> {
            let table = &rows.table;
            let event_type = match rows.kind {
                RowsKind::Write => EventType::Insert,
                RowsKind::Update | RowsKind::PartialUpdate => EventType::Update,
                RowsKind::Delete => EventType::Delete,
            };
            let err = |source| EntryError::Decode {
                file: ctx.file.to_string(),
                pos: ctx.pos,
                source,
            };
            let info = |i: usize| -> (String, String, bool) {
                match columns.and_then(|c| c.get(i)) {
                    Some(c) => (c.name.clone(), c.mysql_type.clone(), c.is_key),
                    None => {
                        let def = &table.columns[i];
                        (
                            def.name.clone().unwrap_or_default(),
                            def.column_type.sql_name().to_string(),
                            def.is_primary_key(),
                        )
                    }
                }
            };
            let mut row_datas = Vec::new();
            for (row_index, row) in rows.rows().enumerate() {
                let row = row.map_err(err)?;
                let mut before_values: Vec<Option<Option<String>>> = Vec::new();
                let mut rd = RowData::default();
                if let Some(img) = &row.before {
                    for (i, cell) in img.cells().enumerate() {
                        let cell = cell.map_err(err)?;
                        let Cell::Present(v) = cell else {
                            before_values.push(None);
                            continue;
                        };
                        let (name, mysql_type, is_key) = info(i);
                        let def = &table.columns[i];
                        let col =
                            column(i, name, mysql_type, is_key, def, &v, false).map_err(err)?;
                        before_values.push(Some(
                            col.value.clone().filter(|_| col.is_null != Some(true)),
                        ));
                        rd.before_columns.push(col);
                    }
                }
                if let Some(img) = &row.after {
                    for (i, cell) in img.cells().enumerate() {
                        let cell = cell.map_err(err)?;
                        let Cell::Present(v) = cell else {
                            continue;
                        };
                        let (name, mysql_type, is_key) = info(i);
                        let def = &table.columns[i];
                        let mut col =
                            column(i, name, mysql_type, is_key, def, &v, true).map_err(err)?;
                        let now = col.value.clone().filter(|_| col.is_null != Some(true));
                        let updated = match before_values.get(i) {
                            Some(Some(before)) => *before != now,
                            _ => true,
                        };
                        col.updated = Some(updated);
                        rd.after_columns.push(col);
                    }
                }
                rd.props.push(Pair::new(
                    "sluiceRowKey",
                    format!("{}:{}#{row_index}", ctx.file, ctx.pos),
                ));
                row_datas.push(rd);
            }
            let count = row_datas.len();
            let change = RowChange {
                table_id: Some(rows.table_id as i64),
                event_type: Some(event_type as i32),
                is_ddl: Some(false),
                row_datas,
                ..Default::default()
            };
            let mut header = self.header(ctx, &table.schema, &table.table, Some(event_type));
            if count > 0 {
                header.props.push(Pair::new("rowsCount", count.to_string()));
            }
            Ok(self.built(
                ctx,
                EntryKind::Row,
                Entry {
                    header: Some(header),
                    entry_type: Some(EntryType::RowData as i32),
                    store_value: Some(change.encode_to_vec()),
                },
                "",
            ))
        }
    }

    fn column(
        index: usize,
        name: String,
        mysql_type: String,
        is_key: bool,
        def: &sluice_binlog::ColumnDef,
        value: &sluice_binlog::Value<'_>,
        _after: bool,
    ) -> Result<Column, sluice_binlog::DecodeError> {
        let mut c = Column {
            index: Some(index as i32),
            name: Some(name),
            is_key: Some(is_key),
            updated: Some(false),
            mysql_type: Some(mysql_type.clone()),
            ..Default::default()
        };
        if value.is_null() {
            c.is_null = Some(true);
            c.sql_type = Some(canal_value::null_sql_type(def, &mysql_type));
        } else {
            let (text, sql_type) = canal_value::render(value, def, &mysql_type)?;
            if value.is_partial_json() {
                c.props
                    .push(Pair::new(PARTIAL_JSON_PROP.0, PARTIAL_JSON_PROP.1));
            }
            c.is_null = Some(false);
            c.sql_type = Some(sql_type);
            c.value = Some(text);
        }
        Ok(c)
    }

    /// Every binlog file of the shared corpus (`SLUICE_BINLOG_CORPUS`, else
    /// `shared/corpus/binlogs` beside the repository), read whole.
    fn corpus_files() -> Vec<(String, Vec<u8>)> {
        let dir = std::env::var("SLUICE_BINLOG_CORPUS").map_or_else(
            |_| {
                std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("../../../shared/corpus/binlogs")
            },
            std::path::PathBuf::from,
        );
        let mut out = Vec::new();
        let mut stack = vec![dir.clone()];
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if let Ok(b) = std::fs::read(&p) {
                    if b.starts_with(b"\xfebin") {
                        out.push((p.display().to_string(), b));
                    }
                }
            }
        }
        out.sort();
        assert!(
            out.len() >= 20,
            "binlog corpus not found at {} (set SLUICE_BINLOG_CORPUS)",
            dir.display()
        );
        out
    }

    /// Column infos as a schema tracker would give them, with UNSIGNED and
    /// BINARY types and keys the binlog may not say, to exercise those paths.
    fn tracked_like(table: &sluice_binlog::TableMap) -> Vec<ColumnInfo> {
        table
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| ColumnInfo {
                name: format!("col_{i}"),
                mysql_type: match i % 3 {
                    0 => format!("{} unsigned", c.column_type.sql_name()),
                    1 => format!("var{}", "binary(16)"),
                    _ => c.column_type.sql_name().to_string(),
                },
                is_key: i == 0,
            })
            .collect()
    }

    /// The bytes written straight from rows events equal prost's encoding of
    /// the message structs, for every rows event of the corpus, with column
    /// information from the binlog and from a schema.
    #[test]
    fn direct_rows_encoding_matches_prost_over_the_corpus() {
        let mut events = 0;
        for (name, buf) in corpus_files() {
            let mut b = EntryBuilder::new(false);
            let _ = sluice_binlog::walk_file(&name, &buf, |at, raw, data| {
                let ctx = EventContext {
                    file: "binlog.000001",
                    pos: at.pos,
                    next_pos: at.next_pos,
                    header: &raw.header,
                };
                if let EventData::Rows(rows) = data {
                    let infos = tracked_like(&rows.table);
                    for columns in [None, Some(infos.as_slice())] {
                        let new = b.on_rows(&ctx, rows, columns);
                        let old = b.on_rows_reference(&ctx, rows, columns);
                        match (new, old) {
                            (Ok(n), Ok(o)) => {
                                assert_eq!(
                                    n.entry.encode_to_vec(),
                                    o.entry.encode_to_vec(),
                                    "{name}:{}",
                                    at.pos
                                );
                                events += 1;
                            }
                            (Err(_), Err(_)) => {}
                            (n, o) => panic!(
                                "{name}:{}: direct {:?}, reference {:?}",
                                at.pos,
                                n.err(),
                                o.err()
                            ),
                        }
                    }
                } else {
                    let _ = b.on_event(&ctx, data, None);
                }
                std::ops::ControlFlow::Continue(())
            });
        }
        assert!(events > 100, "only {events} rows events compared");
    }

    /// json.binlog.000001's PARTIAL_UPDATE_ROWS_EVENT (row image MINIMAL): the
    /// JSON column's after value is the diff's text, flagged by a Column prop.
    #[test]
    fn partial_json_without_its_document_is_a_flagged_diff() {
        let (name, buf) = corpus_files()
            .into_iter()
            .find(|(n, _)| n.ends_with("json.binlog.000001"))
            .expect("json.binlog.000001 in the corpus");
        let mut b = EntryBuilder::new(false);
        let mut changes = Vec::new();
        let walked = sluice_binlog::walk_file(&name, &buf, |at, raw, data| {
            if let EventData::Rows(rows) = data {
                if at.pos == 3750 {
                    let ctx = EventContext {
                        file: "json.binlog.000001",
                        pos: at.pos,
                        next_pos: at.next_pos,
                        header: &raw.header,
                    };
                    changes.push(b.on_rows(&ctx, rows, None).map(|built| built.entry));
                }
            }
            std::ops::ControlFlow::Continue(())
        });
        assert!(walked.is_ok(), "{walked:?}");
        let [Ok(entry)] = changes.as_slice() else {
            panic!("one entry expected at 3750: {changes:?}");
        };
        let change = RowChange::decode(entry.store_value.as_deref().unwrap_or(&[])).unwrap();
        assert_eq!(change.row_datas.len(), 6);
        let after = &change.row_datas[0].after_columns;
        let json = after.iter().find(|c| c.index == Some(1)).unwrap();
        assert_eq!(json.value.as_deref(), Some("JSON_REPLACE(@2, '$.age', 26)"));
        assert_eq!(json.mysql_type.as_deref(), Some("json"));
        assert_eq!(json.updated, Some(true));
        assert_eq!(json.props, vec![Pair::new("sluicePartialJson", "true")]);
        let plain = after.iter().find(|c| c.index == Some(2)).unwrap();
        assert_eq!(plain.value.as_deref(), Some("Joe"));
        assert!(plain.props.is_empty());
    }

    #[test]
    fn statement_classes() {
        let c = classify_statement("CREATE TABLE IF NOT EXISTS `shop`.`orders` (id int)");
        assert_eq!(
            (c.event_type, c.schema.as_deref(), c.table.as_deref()),
            (EventType::Create, Some("shop"), Some("orders"))
        );
        assert_eq!(
            classify_statement("alter table t add index i (a)").event_type,
            EventType::Cindex
        );
        assert_eq!(
            classify_statement("ALTER TABLE t DROP INDEX i").event_type,
            EventType::Dindex
        );
        assert_eq!(
            classify_statement("ALTER TABLE t ADD COLUMN c int").event_type,
            EventType::Alter
        );
        assert_eq!(
            classify_statement("ALTER TABLE t RENAME TO u").event_type,
            EventType::Rename
        );
        assert_eq!(
            classify_statement("ALTER TABLE t RENAME COLUMN a TO b").event_type,
            EventType::Alter
        );
        let c = classify_statement("DROP TABLE IF EXISTS `t1` /* generated by server */");
        assert_eq!(
            (c.event_type, c.table.as_deref()),
            (EventType::Erase, Some("t1"))
        );
        let c = classify_statement("RENAME TABLE a TO db2.b");
        assert_eq!(
            (c.event_type, c.schema.as_deref(), c.table.as_deref()),
            (EventType::Rename, Some("db2"), Some("b"))
        );
        assert_eq!(
            classify_statement("TRUNCATE TABLE t").table.as_deref(),
            Some("t")
        );
        assert_eq!(
            classify_statement("CREATE DATABASE d").event_type,
            EventType::Query
        );
        assert_eq!(
            classify_statement("GRANT ALL ON *.* TO u").event_type,
            EventType::Query
        );
        let c = classify_statement("insert into t values (1)");
        assert!(c.is_dml);
        let c = classify_statement("CREATE INDEX i ON db.t (a)");
        assert_eq!(
            (c.event_type, c.table.as_deref()),
            (EventType::Cindex, Some("t"))
        );
    }
}
