//! Canal entries from change events, filled as Canal's MySQL parser fills
//! them (spec §11): TRANSACTIONBEGIN from `BEGIN` (or MariaDB's opening GTID
//! event), TRANSACTIONEND from XID or `COMMIT`, one ROWDATA entry per rows
//! event, DDL and other statements as ROWDATA with `isDdl`. Every entry
//! carries its binlog position; transaction ends and DDL also carry the
//! position to resume from once acked (the event after them), which becomes
//! the cursor.
//!
//! The transaction state an entry carries (current GTID, executed GTID set,
//! whether a transaction is open) comes with each event
//! ([`ChangeEvent::txn`]); the encoder keeps only buffers.

mod layout;
mod pb;
pub mod value;

use prost::bytes::Bytes;
use prost::Message;
use sluice_binlog::{Cell, ColumnDef};
use sluice_canal::proto::{
    Entry, EntryType, EventType, Header, Pair, RowChange, SourceType, TransactionBegin,
    TransactionEnd,
};
use sluice_canal::EntryPosition;
use sluice_events::{
    ChangeEvent, Encoder, Op, Position, RowKey, RowsChange, Statement, StatementKind, Table,
    TransactionState,
};

use layout::{ColumnLayout, Layouts, TableLayout};
use pb::SliceWriter;

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

/// Encodes change events into Canal entries. It keeps only the buffers it
/// reuses from row to row; what the entries say of the transaction comes
/// with each event.
#[derive(Debug, Default)]
pub struct CanalEncoder {
    /// `canal.instance.gtidon`: fill `Header.gtid` and the GTID props.
    pub gtid_on: bool,
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

/// Canal's event type of a statement, as its DDL parser reports it.
pub fn statement_event_type(kind: StatementKind) -> EventType {
    match kind {
        StatementKind::CreateTable => EventType::Create,
        StatementKind::AlterTable => EventType::Alter,
        StatementKind::DropTable => EventType::Erase,
        StatementKind::Truncate => EventType::Truncate,
        StatementKind::Rename => EventType::Rename,
        StatementKind::CreateIndex => EventType::Cindex,
        StatementKind::DropIndex => EventType::Dindex,
        StatementKind::Insert => EventType::Insert,
        StatementKind::Update => EventType::Update,
        StatementKind::Delete => EventType::Delete,
        StatementKind::Other => EventType::Query,
    }
}

/// Canal's event type of a row change.
pub fn row_event_type(op: Op) -> EventType {
    match op {
        Op::Insert => EventType::Insert,
        Op::Update => EventType::Update,
        Op::Delete => EventType::Delete,
    }
}

thread_local! {
    /// Buffers of rows encoded away from an encoder, reused per thread.
    static THREAD_SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

impl CanalEncoder {
    pub fn new(gtid_on: bool) -> Self {
        CanalEncoder {
            gtid_on,
            ..Default::default()
        }
    }

    fn position(&self, txn: &TransactionState, at: &Position<'_>, offset: u64) -> EntryPosition {
        // The GTID state is kept in every position, whatever `gtid_on`
        // says of the entries: a cursor must stay valid on another server
        // (source failover resumes by GTID).
        EntryPosition {
            gtid: txn.executed_gtid_set.clone(),
            included: false,
            journal_name: at.file.to_string(),
            position: offset,
            server_id: at.server_id as i64,
            timestamp: at.timestamp_ms(),
        }
    }

    fn header(
        &self,
        txn: &TransactionState,
        at: &Position<'_>,
        schema: &str,
        table: &str,
        event_type: Option<EventType>,
    ) -> Header {
        let mut props = Vec::new();
        if self.gtid_on {
            if let Some(g) = &txn.gtid {
                props.push(Pair::new("curtGtid", g.clone()));
            }
            if let Some((sn, lct)) = txn.sequence {
                props.push(Pair::new("curtGtidSn", sn.to_string()));
                props.push(Pair::new("curtGtidLct", lct.to_string()));
            }
        }
        // Only after a failover: the entries of the first server stay as
        // Canal writes them.
        if txn.source_epoch > 0 {
            props.push(Pair::new(
                sluice_canal::view::SOURCE_EPOCH_PROP,
                txn.source_epoch.to_string(),
            ));
        }
        Header {
            version: Some(1),
            logfile_name: Some(at.file.to_string()),
            logfile_offset: Some(at.offset as i64),
            server_id: Some(at.server_id as i64),
            serverenc_code: Some("UTF-8".into()),
            execute_time: Some(at.timestamp_ms()),
            source_type: Some(SourceType::Mysql as i32),
            schema_name: Some(schema.to_string()),
            table_name: Some(table.to_string()),
            event_length: Some(at.event_length() as i64),
            event_type: event_type.map(|t| t as i32),
            props,
            gtid: self.gtid_on.then(|| txn.executed_gtid_set.clone()),
        }
    }

    fn built(
        &self,
        txn: &TransactionState,
        at: &Position<'_>,
        kind: EntryKind,
        entry: Entry,
    ) -> BuiltEntry {
        let ack_point = matches!(kind, EntryKind::End | EntryKind::Ddl)
            .then(|| self.position(txn, at, at.next_offset));
        BuiltEntry {
            entry,
            kind,
            position: self.position(txn, at, at.offset),
            ack_point,
            idempotency_key: format!("{}:{}", at.file, at.offset),
        }
    }

    /// The entry of a transaction boundary (no schema, table or event type).
    fn boundary(
        &self,
        txn: &TransactionState,
        at: &Position<'_>,
        kind: EntryKind,
        entry_type: EntryType,
        store_value: Vec<u8>,
    ) -> BuiltEntry {
        self.built(
            txn,
            at,
            kind,
            Entry {
                header: Some(self.header(txn, at, "", "", None)),
                entry_type: Some(entry_type as i32),
                store_value: Some(store_value.into()),
            },
        )
    }

    /// The entries of one event, in a new vector.
    pub fn entries(&mut self, event: &ChangeEvent<'_>) -> Result<Vec<BuiltEntry>, EntryError> {
        let mut out = Vec::with_capacity(1);
        self.encode(event, &mut out)?;
        Ok(out)
    }

    /// The ROWDATA entry of a statement: DDL (a boundary of its own outside
    /// a transaction), DML in statement format, or another query.
    fn statement_entry(&self, st: &Statement<'_>) -> BuiltEntry {
        let txn = st.txn;
        let session_db: &str = &st.db;
        let event_type = statement_event_type(st.class.kind);
        let is_dml = st.class.is_dml();
        let schema = st.class.schema.as_deref().unwrap_or(session_db);
        let table = st.class.table.as_deref().unwrap_or_default();
        let change = RowChange {
            event_type: Some(event_type as i32),
            is_ddl: Some(!is_dml),
            sql: Some(st.sql.to_string()),
            ddl_schema_name: (!session_db.is_empty()).then(|| session_db.to_string()),
            ..Default::default()
        };
        let kind = if is_dml || event_type == EventType::Query {
            EntryKind::Query
        } else {
            EntryKind::Ddl
        };
        // A DDL outside a transaction is a boundary of its own.
        let kind = if kind == EntryKind::Query && !txn.in_transaction && !is_dml {
            EntryKind::Ddl
        } else {
            kind
        };
        self.built(
            txn,
            &st.position,
            kind,
            Entry {
                header: Some(self.header(txn, &st.position, schema, table, Some(event_type))),
                entry_type: Some(EntryType::RowData as i32),
                store_value: Some(change.encode_to_vec().into()),
            },
        )
    }

    /// The ROWDATA entry of a rows event, with this thread's buffers rather
    /// than an encoder's: for rows events encoded on other tasks while the
    /// encoder that follows the stream goes on. The same entry as
    /// [`CanalEncoder::rows_entry`] gives.
    pub fn rows_entry_on_this_thread(
        gtid_on: bool,
        rows: &RowsChange<'_>,
    ) -> Result<BuiltEntry, EntryError> {
        Self::on_this_thread(gtid_on, |encoder| encoder.rows_entry(rows))
    }

    /// Runs `f` with an encoder holding this thread's buffers.
    fn on_this_thread<T>(gtid_on: bool, f: impl FnOnce(&mut CanalEncoder) -> T) -> T {
        THREAD_SCRATCH.with(|cell| {
            let mut encoder = CanalEncoder {
                gtid_on,
                scratch: cell.take(),
            };
            let out = f(&mut encoder);
            cell.replace(encoder.scratch);
            out
        })
    }

    /// The INSERT entry of rows read with a SELECT (an initial snapshot),
    /// built from the text the server sent when that text is already
    /// Canal's for every column of the table (see
    /// [`value::select_text_is_canal`]): the values go into the entry as
    /// they came, without being parsed into a row image and rendered back.
    /// `rows` is the change the entry is of (a WRITE_ROWS event of the
    /// table; its own rows are not read). `Ok(None)` when a column is of
    /// another kind or a value is not UTF-8: the rows must then go through
    /// a row image and [`CanalEncoder::rows_entry_on_this_thread`], which
    /// gives the same entry.
    pub fn select_rows_entry_on_this_thread(
        gtid_on: bool,
        rows: &RowsChange<'_>,
        values: &dyn SelectRows,
    ) -> Result<Option<BuiltEntry>, EntryError> {
        Self::on_this_thread(gtid_on, |encoder| {
            match encoder.rows_entry_parts(rows, false, Some(values), &[], None) {
                Ok((built, _)) => Ok(Some(built)),
                Err(Fill::NotText) => Ok(None),
                Err(Fill::Entry(e)) => Err(e),
            }
        })
    }

    /// [`CanalEncoder::rows_entry_on_this_thread`], with the entry
    /// serialised too. The serialised entry and the entry's `storeValue`
    /// share one buffer: the RowChange is written once, not copied into the
    /// entry's bytes afterwards.
    pub fn serialised_rows_entry_on_this_thread(
        gtid_on: bool,
        rows: &RowsChange<'_>,
    ) -> Result<(BuiltEntry, Bytes), EntryError> {
        let (built, serialised) =
            Self::on_this_thread(gtid_on, |e| e.rows_entry_parts(rows, true, None, &[], None))
                .map_err(Fill::into_entry_error)?;
        let serialised = serialised.unwrap_or_else(|| Bytes::from(built.entry.encode_to_vec()));
        Ok((built, serialised))
    }

    /// The serialised entry of rows read for an initial snapshot, with
    /// `props` in its header before `rowsCount`: from `select`'s text when
    /// it is Canal's ([`CanalEncoder::select_rows_entry_on_this_thread`];
    /// `Ok(None)` when not), else (`select` None) from the rows of `rows`,
    /// a row image. Written once, as the stream's entries are (see
    /// [`CanalEncoder::serialised_rows_entry_on_this_thread`]). Each row's
    /// `sluiceRowKey` is `row_key_base#index`: rows read at one binlog
    /// point share no event offset, so the caller names the chunk.
    pub fn serialised_snapshot_entry_on_this_thread(
        gtid_on: bool,
        rows: &RowsChange<'_>,
        select: Option<&dyn SelectRows>,
        props: &[Pair],
        row_key_base: &str,
    ) -> Result<Option<(BuiltEntry, Bytes)>, EntryError> {
        let parts = Self::on_this_thread(gtid_on, |e| {
            e.rows_entry_parts(rows, true, select, props, Some(row_key_base))
        });
        match parts {
            Ok((built, serialised)) => {
                let serialised =
                    serialised.unwrap_or_else(|| Bytes::from(built.entry.encode_to_vec()));
                Ok(Some((built, serialised)))
            }
            Err(Fill::NotText) => Ok(None),
            Err(Fill::Entry(e)) => Err(e),
        }
    }

    /// The ROWDATA entry of a rows event: one RowData per row, values in
    /// Canal's text.
    pub fn rows_entry(&mut self, rows: &RowsChange<'_>) -> Result<BuiltEntry, EntryError> {
        self.rows_entry_parts(rows, false, None, &[], None)
            .map(|(built, _)| built)
            .map_err(Fill::into_entry_error)
    }

    /// [`CanalEncoder::rows_entry`]; with `serialise`, also the whole entry
    /// serialised when its fields before the RowChange fit the room left
    /// for them in front of it (without, no room is left and the entry's
    /// head is not encoded: callers that change the header encode it later).
    /// With `select`, the rows are those values rather than the event's.
    /// `props` go into the header before `rowsCount`. Row keys are
    /// `file:offset#index` of the rows' event, or `row_key_base#index`.
    fn rows_entry_parts(
        &mut self,
        rows: &RowsChange<'_>,
        serialise: bool,
        select: Option<&dyn SelectRows>,
        props: &[Pair],
        row_key_base: Option<&str>,
    ) -> Result<(BuiltEntry, Option<Bytes>), Fill> {
        let event_type = row_event_type(rows.op);
        let room = if serialise { ENTRY_HEAD_ROOM } else { 0 };
        let (change, count) =
            self.write_row_change(rows, select, row_key_base, event_type, room)?;
        Ok(self.finish_rows_entry(rows, event_type, props, change, count, serialise))
    }

    /// The RowChange of a rows event, written straight to bytes (see `pb`)
    /// after `room` bytes left free: tableId, eventType, isDdl, then one
    /// RowData per row; with the number of rows.
    fn write_row_change(
        &mut self,
        rows: &RowsChange<'_>,
        select: Option<&dyn SelectRows>,
        row_key_base: Option<&str>,
        event_type: EventType,
        room: usize,
    ) -> Result<(Vec<u8>, usize), Fill> {
        let at = &rows.position;
        let table = rows.table;
        let defs: &[ColumnDef] = &table.map.columns;
        let err = |source| {
            Fill::Entry(EntryError::Decode {
                file: at.file.to_string(),
                pos: at.offset,
                source,
            })
        };
        let Scratch {
            text,
            before,
            after,
            row_key,
            layouts,
        } = &mut self.scratch;
        // What each column is, kept while the table's description stays.
        let layout = layouts.get(rows.event.table_id, &table);
        let columns = layout.columns.as_slice();
        // Rows of another width than the table's go the image way too,
        // which reports the mismatch.
        if select.is_some_and(|s| {
            s.column_count() != columns.len() || !columns.iter().all(|c| c.select_text_is_canal)
        }) {
            return Err(Fill::NotText);
        }
        let mut change = row_change_buffer(rows, select, event_type, room);
        let mut count = 0usize;
        let mut event_rows = rows.rows();
        let mut key_prefix: Option<(&str, u64)> = None;
        let mut key_prefix_len = 0;
        loop {
            text.clear();
            let key = match select {
                None => {
                    let Some(row) = event_rows.next() else { break };
                    let row = row.map_err(err)?;
                    render_image(row.before.as_ref(), &table, defs, columns, text, before)
                        .map_err(err)?;
                    render_image(row.after.as_ref(), &table, defs, columns, text, after)
                        .map_err(err)?;
                    row.key
                }
                Some(values) => {
                    if count == values.row_count() {
                        break;
                    }
                    before.clear();
                    select_row(values, count, &table, columns, text, after)?;
                    RowKey {
                        file: at.file,
                        offset: at.offset,
                        index: count,
                    }
                }
            };
            // Readable bytes past the last value, for `put_prefix`.
            text.push_str(TEXT_SLACK);
            // `file:offset#` is the event's (the chunk's) for every row.
            if key_prefix != Some((key.file, key.offset)) {
                key_prefix_len = row_key_prefix(row_key, &key, row_key_base);
                key_prefix = Some((key.file, key.offset));
            }
            row_key.truncate(key_prefix_len);
            value::push_u64(row_key, key.index as u64);
            let written = write_row_data(&mut change, layout, before, after, text, row_key);
            count += 1;
            // Rows read with a SELECT are alike: the first one's size
            // sizes the rest.
            if let (1, Some(values)) = (count, select) {
                let rest = values.row_count().saturating_sub(1);
                change.reserve(rest.saturating_mul(written + written / 16) + pb::SHORT);
            }
        }
        Ok((change, count))
    }

    /// The ROWDATA entry around the RowChange `change` of `count` rows;
    /// with `serialise`, also the whole entry serialised when its fields
    /// before the RowChange fit the room left in front of it.
    fn finish_rows_entry(
        &self,
        rows: &RowsChange<'_>,
        event_type: EventType,
        props: &[Pair],
        mut change: Vec<u8>,
        count: usize,
        serialise: bool,
    ) -> (BuiltEntry, Option<Bytes>) {
        let at = &rows.position;
        let txn = rows.txn;
        let table = rows.table;
        let room = if serialise { ENTRY_HEAD_ROOM } else { 0 };
        let mut header = self.header(txn, at, table.schema(), table.name(), Some(event_type));
        header.props.extend_from_slice(props);
        if count > 0 {
            header.props.push(Pair::new("rowsCount", count.to_string()));
        }
        let mut entry = Entry {
            header: Some(header),
            entry_type: Some(EntryType::RowData as i32),
            store_value: None,
        };
        if !serialise {
            entry.store_value = Some(Bytes::from(change));
            return (self.built(txn, at, EntryKind::Row, entry), None);
        }
        // The entry's fields before storeValue (prost writes fields in tag
        // order), then storeValue's key and length: in the room in front of
        // the RowChange when they fit, which they do but for a header
        // carrying a very long GTID set.
        let store_len = change.len() - room;
        let mut head = Vec::with_capacity(entry.encoded_len() + 8);
        entry.encode_raw(&mut head);
        pb::message_header(&mut head, 3, store_len);
        let serialised = if head.len() <= room {
            let start = room - head.len();
            change[start..room].copy_from_slice(&head);
            // In place: the store keeps this buffer, without much unused
            // room. A shrink gives the rest back to the allocator, which
            // may return it to the kernel and fault it in again for the
            // next buffer: a buffer within a quarter of its size is kept.
            if change.capacity() - change.len() > change.len() / 4 {
                change.shrink_to_fit();
            }
            let whole = Bytes::from(change);
            entry.store_value = Some(whole.slice(room..));
            Some(whole.slice(start..))
        } else {
            change.drain(..room);
            entry.store_value = Some(Bytes::from(change));
            None
        };
        (self.built(txn, at, EntryKind::Row, entry), serialised)
    }
}

impl Encoder for CanalEncoder {
    type Output = BuiltEntry;
    type Error = EntryError;

    fn encode(
        &mut self,
        event: &ChangeEvent<'_>,
        out: &mut Vec<BuiltEntry>,
    ) -> Result<(), EntryError> {
        match event {
            ChangeEvent::Begin {
                position,
                txn,
                thread_id,
            } => {
                let begin = TransactionBegin {
                    thread_id: thread_id.map(i64::from),
                    ..Default::default()
                };
                out.push(self.boundary(
                    txn,
                    position,
                    EntryKind::Begin,
                    EntryType::TransactionBegin,
                    begin.encode_to_vec(),
                ));
            }
            ChangeEvent::Commit { position, txn, xid } => {
                // A COMMIT query has no transaction id: Canal writes 0.
                let end = TransactionEnd {
                    transaction_id: Some(xid.unwrap_or(0).to_string()),
                    ..Default::default()
                };
                out.push(self.boundary(
                    txn,
                    position,
                    EntryKind::End,
                    EntryType::TransactionEnd,
                    end.encode_to_vec(),
                ));
            }
            ChangeEvent::Statement(st) => out.push(self.statement_entry(st)),
            ChangeEvent::Rows(rows) => out.push(self.rows_entry(rows)?),
        }
        Ok(())
    }
}

/// Bytes left in front of a RowChange being written, for the fields of its
/// entry that come before it (header, entryType, storeValue's key and
/// length; about 150 bytes with a GTID, more with a long GTID set).
const ENTRY_HEAD_ROOM: usize = 512;

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

/// Pushed after a row's values so that the last one, too, has `SHORT`
/// readable bytes after its start.
const TEXT_SLACK: &str = "                                ";
const _: () = assert!(TEXT_SLACK.len() == pb::SHORT);

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
    /// Bytes of its Column message.
    len: u32,
}

impl Rendered {
    /// A column left out: absent from a MINIMAL image, or not shown.
    const ABSENT: Rendered = Rendered {
        state: ABSENT,
        partial: false,
        sql_type: 0,
        start: 0,
        end: 0,
        len: 0,
    };

    /// A NULL of `column`.
    fn null(column: &ColumnLayout) -> Rendered {
        Rendered {
            state: NULL,
            partial: false,
            sql_type: column.sql_type,
            start: 0,
            end: 0,
            len: column.len(column.sql_type, None, 0) as u32,
        }
    }

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
    row_key: String,
    /// The constant Column fields of the tables seen.
    layouts: Layouts,
}

/// The values of rows read with a SELECT in the text protocol, by row and
/// column, as the server sent them (the result set of an initial snapshot).
pub trait SelectRows {
    /// Number of rows.
    fn row_count(&self) -> usize;
    /// Number of values in a row.
    fn column_count(&self) -> usize;
    /// The value of `column` in `row` as text; `None` for NULL.
    fn text(&self, row: usize, column: usize) -> Result<Option<&str>, NotUtf8>;
    /// Bytes of all the values together (for sizing the entry's buffer).
    fn data_len(&self) -> usize;
}

/// A select value that is not UTF-8 text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotUtf8;

/// Why a rows entry was not built.
enum Fill {
    Entry(EntryError),
    /// Select rows whose text is not Canal's: build from a row image.
    NotText,
}

impl Fill {
    /// The error of a build from the event's rows, which are never select
    /// rows.
    fn into_entry_error(self) -> EntryError {
        match self {
            Fill::Entry(e) => e,
            Fill::NotText => unreachable!("an event's rows are not select rows"),
        }
    }
}

/// Cell `row` of select rows, as the after image of an insert: each value's
/// text as the server sent it (every column's text is Canal's, checked by
/// the caller); a value that is not UTF-8 sends the rows the other way.
/// Columns the table does not show are left out, as absent ones.
fn select_row(
    values: &dyn SelectRows,
    row: usize,
    table: &Table<'_>,
    columns: &[ColumnLayout],
    text: &mut String,
    out: &mut Vec<Rendered>,
) -> Result<(), Fill> {
    out.clear();
    for (i, column) in columns.iter().enumerate() {
        if !table.keeps(i) {
            out.push(Rendered::ABSENT);
            continue;
        }
        let r = match values.text(row, i).map_err(|NotUtf8| Fill::NotText)? {
            None => Rendered::null(column),
            Some(v) => {
                let start = text.len();
                text.push_str(v);
                Rendered {
                    state: PRESENT,
                    partial: false,
                    sql_type: column.sql_type,
                    start: start as u32,
                    end: text.len() as u32,
                    len: column.len(column.sql_type, Some(v.len()), 0) as u32,
                }
            }
        };
        out.push(r);
    }
    Ok(())
}

/// Renders every cell of an image (none when there is no image); a column
/// the table does not show is left out, as an absent one is, unread.
fn render_image(
    image: Option<&sluice_binlog::RowImage<'_>>,
    table: &Table<'_>,
    defs: &[ColumnDef],
    columns: &[ColumnLayout],
    text: &mut String,
    out: &mut Vec<Rendered>,
) -> Result<(), sluice_binlog::DecodeError> {
    out.clear();
    let Some(image) = image else {
        return Ok(());
    };
    for (i, cell) in image.cells().enumerate() {
        let cell = cell?;
        if !table.keeps(i) {
            out.push(Rendered::ABSENT);
            continue;
        }
        let r = match cell {
            Cell::Absent => Rendered::ABSENT,
            Cell::Present(v) => {
                let column = &columns[i];
                if v.is_null() {
                    Rendered::null(column)
                } else {
                    let start = text.len();
                    let sql_type = value::render_into(&v, &defs[i], &column.render, text)?;
                    let partial = v.is_partial_json();
                    let prop_len = if partial { partial_prop_len() } else { 0 };
                    Rendered {
                        state: PRESENT,
                        partial,
                        sql_type,
                        start: start as u32,
                        end: text.len() as u32,
                        len: column.len(sql_type, Some(text.len() - start), prop_len) as u32,
                    }
                }
            }
        };
        out.push(r);
    }
    Ok(())
}

/// The RowChange's buffer: `room` zero bytes, then tableId, eventType and
/// isDdl, with the capacity the rows are expected to need.
#[inline]
fn row_change_buffer(
    rows: &RowsChange<'_>,
    select: Option<&dyn SelectRows>,
    event_type: EventType,
    room: usize,
) -> Vec<u8> {
    // A rows event made from SELECT rows (a snapshot) has no length
    // in a binlog: its row data tells the size.
    let data_len = select.map_or(rows.event.rows_data().len(), |s| s.data_len());
    let event_len = (rows.position.event_length() as usize).max(data_len);
    // Select rows: room for the first row; its size then sizes the
    // rest (see the caller), so the large buffer is never grown by a copy.
    let first = match select {
        Some(s) => (data_len / s.row_count().max(1)).saturating_mul(8),
        None => event_len.saturating_mul(4),
    };
    let mut change = Vec::with_capacity(room + 256 + first);
    change.resize(room, 0);
    pb::int64(&mut change, 1, rows.event.table_id as i64);
    pb::int32(&mut change, 2, event_type as i32);
    pb::boolean(&mut change, 10, false);
    change
}

/// Whether an after-image cell is updated: its value differs from the
/// before image's (NULL equals NULL), or there is none to compare.
#[inline(always)]
fn is_updated(before: Option<&Rendered>, after: &Rendered, text: &str) -> bool {
    match before {
        Some(b) if b.state != ABSENT => b.state != after.state || b.text(text) != after.text(text),
        _ => true,
    }
}

/// Writes `file:offset#` of `key` (or `base#`) into `row_key`, as `RowKey`
/// displays it, without `fmt`; returns its length.
#[inline]
fn row_key_prefix(row_key: &mut String, key: &RowKey<'_>, base: Option<&str>) -> usize {
    row_key.clear();
    match base {
        Some(base) => row_key.push_str(base),
        None => {
            row_key.push_str(key.file);
            row_key.push(':');
            value::push_u64(row_key, key.offset);
        }
    }
    row_key.push('#');
    row_key.len()
}

/// Appends one RowData (field 12 of the RowChange): the before and after
/// columns, then the row key's pair; returns its bytes.
#[inline]
fn write_row_data(
    change: &mut Vec<u8>,
    layout: &TableLayout,
    before: &[Rendered],
    after: &[Rendered],
    text: &str,
    row_key: &str,
) -> usize {
    let columns = layout.columns.as_slice();
    // Columns are fields 1 (before) and 2 (after) of a RowData: keys
    // of one byte either way.
    let columns_len: usize = before
        .iter()
        .chain(after.iter())
        .filter(|r| r.state != ABSENT)
        .map(|r| nested_len(1, r.len as usize))
        .sum();
    let pair_len = pb::bytes_len(1, ROW_KEY.len()) + pb::bytes_len(2, row_key.len());
    let row_len = columns_len + nested_len(3, pair_len);

    let start = change.len();
    let total = nested_len(12, row_len);
    // Room for the fixed-size copies of `put_prefix`, cut off below.
    change.resize(start + total + pb::SHORT, 0);
    let mut w = SliceWriter::new(&mut change[start..]);
    w.message_header(12, row_len);
    for (i, r) in before.iter().enumerate() {
        if r.state != ABSENT {
            write_column(&mut w, 1, &columns[i], &layout.bytes, r, text, false);
        }
    }
    for (i, r) in after.iter().enumerate() {
        if r.state != ABSENT {
            let updated = is_updated(before.get(i), r, text);
            write_column(&mut w, 2, &columns[i], &layout.bytes, r, text, updated);
        }
    }
    w.message_header(3, pair_len);
    w.bytes(1, ROW_KEY.as_bytes());
    w.bytes(2, row_key.as_bytes());
    debug_assert_eq!(w.written(), total);
    let written = w.written();
    change.truncate(start + written);
    written
}

/// Bytes of a nested message field with a body of `len` bytes.
fn nested_len(field: u32, len: usize) -> usize {
    pb::key_len(field) + pb::varint_len(len as u64) + len
}

/// A Column as field `field` of a RowData (1 before, 2 after): index,
/// sqlType, name, isKey, updated, isNull, props (partial JSON only), value
/// (absent for NULL), mysqlType. Inlined into the row's loop, the
/// writer's position stays in a register from one column to the next
/// (a call per column cost a fifth of the instructions of writing it).
#[inline(always)]
fn write_column(
    w: &mut SliceWriter<'_>,
    field: u32,
    column: &ColumnLayout,
    bytes: &[u8],
    r: &Rendered,
    text: &str,
    updated: bool,
) {
    w.message_header(field, r.len as usize);
    // The layout's bytes and the row's text end with `SHORT` bytes of room.
    let head = column.head.start;
    if r.sql_type == column.sql_type {
        w.put_prefix(&bytes[head..], column.head.len());
    } else {
        w.put_prefix(&bytes[head..], column.index_len);
        w.int32(2, r.sql_type);
        let rest = head + column.index_len + column.sql_type_len;
        w.put_prefix(&bytes[rest..], column.head.end - rest);
    }
    // The head ends with updated and isNull, false: set them.
    w.set_back(3, updated as u8);
    w.set_back(1, (r.state == NULL) as u8);
    if r.partial {
        let (key, value) = PARTIAL_JSON_PROP;
        w.message_header(
            7,
            pb::bytes_len(1, key.len()) + pb::bytes_len(2, value.len()),
        );
        w.bytes(1, key.as_bytes());
        w.bytes(2, value.as_bytes());
    }
    if r.state == PRESENT {
        let len = (r.end - r.start) as usize;
        w.message_header(8, len);
        w.put_prefix(&text.as_bytes()[r.start as usize..], len);
    }
    w.put_prefix(&bytes[column.tail.start..], column.tail.len());
}

#[cfg(test)]
mod tests;
