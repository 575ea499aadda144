//! The change events and the builder that makes them from decoded events.

use std::borrow::Cow;
use std::fmt;

use sluice_binlog::events::{mariadb_gtid_flags, EventData};
use sluice_binlog::{ColumnDef, DecodeError, EventHeader, RowImage, RowsEvent, RowsKind, TableMap};

use crate::columns::ColumnProjection;
use crate::statement::{classify_statement, StatementClass};

/// What the schema stage knows of a column beyond the binlog's own
/// metadata: its name, declared type, whether it is in the primary key,
/// and its DEFAULT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnInfo {
    pub name: String,
    /// The declared type, e.g. `int(11) unsigned`, `varchar(64)`.
    pub mysql_type: String,
    pub is_key: bool,
    /// The DEFAULT clause's expression as SQL text (`'x'`, `5`, `NULL`,
    /// `current_timestamp()`, `b'101'`); `None` without a DEFAULT clause.
    pub default: Option<String>,
}

/// Where an event is in the binlog of the server it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position<'a> {
    pub file: &'a str,
    /// Offset of the event's first byte.
    pub offset: u64,
    /// Offset just after the event: where to resume once it is applied.
    pub next_offset: u64,
    /// `server_id` of the event header.
    pub server_id: u32,
    /// The event header's timestamp, seconds since the epoch.
    pub timestamp: u32,
}

impl<'a> Position<'a> {
    /// The position of an event read at `offset..next_offset` of `file`.
    pub fn at(file: &'a str, offset: u64, next_offset: u64, header: &EventHeader) -> Self {
        Position {
            file,
            offset,
            next_offset,
            server_id: header.server_id,
            timestamp: header.timestamp,
        }
    }
    pub fn event_length(&self) -> u64 {
        self.next_offset.saturating_sub(self.offset)
    }
    /// The timestamp in milliseconds, as Canal and Debezium give it.
    pub fn timestamp_ms(&self) -> i64 {
        self.timestamp as i64 * 1000
    }
}

/// The transaction context events are read in: kept by [`ChangeBuilder`]
/// from GTID, BEGIN and commit events; the executed GTID set by the caller,
/// who follows the stream's positions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TransactionState {
    /// The current transaction's GTID (`uuid:n` for MySQL, `domain-server-seq`
    /// for MariaDB), if the server writes GTIDs.
    pub gtid: Option<String>,
    /// MySQL's `(sequence_number, last_committed)` of the current transaction.
    pub sequence: Option<(i64, i64)>,
    /// The GTID set executed so far (empty when unknown or GTIDs are off).
    pub executed_gtid_set: String,
    /// Between a BEGIN (or MariaDB's opening GTID event) and its commit.
    pub in_transaction: bool,
    /// The thread id of the current transaction's BEGIN query, if it had one.
    pub thread_id: Option<u32>,
    /// Offset and timestamp of the current transaction's MySQL GTID event
    /// (anonymous or not), which comes before its BEGIN query: where a
    /// replay of the whole transaction starts.
    pub gtid_event: Option<(u64, u32)>,
    /// Events of the current transaction read before the current one,
    /// counting the event that opened it (its BEGIN query, or MariaDB's GTID
    /// event) and table maps: Debezium's offset `event` for a rows event.
    pub events_before: u64,
    /// How many times the source changed server before this transaction (a
    /// failover; see `BinlogPosition::epoch`): file offsets of a later
    /// server come after those of earlier ones whatever their numbers.
    pub source_epoch: u32,
}

/// A column of a described table: the binlog's definition and what the
/// schema stage adds to it.
#[derive(Debug, Clone, Copy)]
pub struct Column<'a> {
    pub index: usize,
    /// The name, empty when neither the schema nor the binlog gives one.
    pub name: &'a str,
    /// The declared type when the schema gives it, else the binlog type's
    /// SQL name (`int`, `varchar`, ...).
    pub mysql_type: &'a str,
    pub is_key: bool,
    /// The DEFAULT clause as SQL text, when the schema gives it.
    pub default: Option<&'a str>,
    pub def: &'a ColumnDef,
}

/// The table of a rows event, as the schema stage described it.
#[derive(Debug, Clone, Copy)]
pub struct Table<'a> {
    pub map: &'a TableMap,
    /// One entry per column when the schema knows the table at this position.
    pub info: Option<&'a [ColumnInfo]>,
    /// The columns outputs show, when column filters name the table
    /// (`None`: every column). An encoder leaves the others out of
    /// everything it writes: values, names, types, schemas.
    pub keep: Option<&'a ColumnProjection>,
}

impl<'a> Table<'a> {
    pub fn schema(&self) -> &'a str {
        &self.map.schema
    }
    pub fn name(&self) -> &'a str {
        &self.map.table
    }
    pub fn column_count(&self) -> usize {
        self.map.columns.len()
    }
    /// Column `index`, described by the schema when it can, else by the
    /// binlog's metadata.
    pub fn column(&self, index: usize) -> Option<Column<'a>> {
        let def = self.map.columns.get(index)?;
        Some(match self.info.and_then(|i| i.get(index)) {
            Some(c) => Column {
                index,
                name: &c.name,
                mysql_type: &c.mysql_type,
                is_key: c.is_key,
                default: c.default.as_deref(),
                def,
            },
            None => Column {
                index,
                name: def.name.as_deref().unwrap_or(""),
                mysql_type: def.column_type.sql_name(),
                is_key: def.is_primary_key(),
                default: None,
                def,
            },
        })
    }
    pub fn columns(&self) -> impl Iterator<Item = Column<'a>> + 'a {
        let t = *self;
        (0..t.column_count()).filter_map(move |i| t.column(i))
    }
    /// Whether outputs show column `index` (see [`Table::keep`]).
    #[inline]
    pub fn keeps(&self, index: usize) -> bool {
        match self.keep {
            None => true,
            Some(k) => k.keeps(index),
        }
    }
    /// The columns outputs show.
    pub fn kept_columns(&self) -> impl Iterator<Item = Column<'a>> + 'a {
        let t = *self;
        t.columns().filter(move |c| t.keeps(c.index))
    }
}

/// What a row change does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Insert,
    Update,
    Delete,
}

impl Op {
    pub fn of(kind: RowsKind) -> Self {
        match kind {
            RowsKind::Write => Op::Insert,
            RowsKind::Update | RowsKind::PartialUpdate => Op::Update,
            RowsKind::Delete => Op::Delete,
        }
    }
}

/// The row changes of one rows event: one table, one operation.
#[derive(Debug, Clone, Copy)]
pub struct RowsChange<'a> {
    pub position: Position<'a>,
    pub txn: &'a TransactionState,
    pub table: Table<'a>,
    pub op: Op,
    /// The decoded event; its rows are read with [`RowsChange::rows`].
    pub event: &'a RowsEvent<'a>,
}

impl<'a> RowsChange<'a> {
    /// The row changes of `event` in transaction `txn`; `info` describes
    /// the event's table when the schema knows it. [`ChangeBuilder`] makes
    /// them as it follows the stream; this makes one away from it, e.g. on
    /// another task from an owned copy of the event and of the state.
    pub fn new(
        position: Position<'a>,
        txn: &'a TransactionState,
        event: &'a RowsEvent<'a>,
        info: Option<&'a [ColumnInfo]>,
    ) -> Self {
        RowsChange {
            position,
            txn,
            table: Table {
                map: &event.table,
                info,
                keep: None,
            },
            op: Op::of(event.kind),
            event,
        }
    }

    /// The same change with only the columns of `keep` shown (`None`:
    /// every column).
    pub fn with_projection(mut self, keep: Option<&'a ColumnProjection>) -> Self {
        self.table.keep = keep;
        self
    }

    /// The rows, in event order, each with its images still undecoded
    /// (values are read with [`RowImage::cells`]).
    pub fn rows(&self) -> impl Iterator<Item = Result<RowChange<'a>, DecodeError>> + 'a {
        let position = self.position;
        self.event.rows().enumerate().map(move |(index, row)| {
            row.map(|r| RowChange {
                index,
                before: r.before,
                after: r.after,
                key: RowKey {
                    file: position.file,
                    offset: position.offset,
                    index,
                },
            })
        })
    }
}

/// One row's change: the images the event carries (an insert has no
/// before image, a delete no after image).
#[derive(Debug)]
pub struct RowChange<'a> {
    /// 0-based index of the row in its rows event.
    pub index: usize,
    pub before: Option<RowImage<'a>>,
    pub after: Option<RowImage<'a>>,
    pub key: RowKey<'a>,
}

/// A row's key, stable across replays of the binlog: the rows event's file
/// and offset and the row's index in it. Shown as `file:offset#index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RowKey<'a> {
    pub file: &'a str,
    pub offset: u64,
    pub index: usize,
}

impl fmt::Display for RowKey<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}#{}", self.file, self.offset, self.index)
    }
}

/// A statement other than a transaction boundary: DDL, or DML in statement
/// format, or anything else the server logged as a query.
#[derive(Debug, Clone)]
pub struct Statement<'a> {
    pub position: Position<'a>,
    pub txn: &'a TransactionState,
    /// The session's default database (may be empty).
    pub db: Cow<'a, str>,
    /// The statement, trimmed (invalid UTF-8 replaced).
    pub sql: Cow<'a, str>,
    pub class: StatementClass,
}

/// A change event: what every output encodes.
#[derive(Debug, Clone)]
pub enum ChangeEvent<'a> {
    /// A transaction starts: a BEGIN query (`thread_id` set) or MariaDB's
    /// GTID event opening a group.
    Begin {
        position: Position<'a>,
        txn: &'a TransactionState,
        thread_id: Option<u32>,
    },
    /// The row changes of one rows event.
    Rows(RowsChange<'a>),
    /// A transaction commits: an XID event (`xid` set) or a COMMIT query.
    Commit {
        position: Position<'a>,
        txn: &'a TransactionState,
        xid: Option<u64>,
    },
    Statement(Statement<'a>),
}

impl<'a> ChangeEvent<'a> {
    pub fn position(&self) -> &Position<'a> {
        match self {
            ChangeEvent::Begin { position, .. }
            | ChangeEvent::Commit { position, .. }
            | ChangeEvent::Statement(Statement { position, .. })
            | ChangeEvent::Rows(RowsChange { position, .. }) => position,
        }
    }
    /// The same event, a rows event showing only the columns of `keep`
    /// (see [`RowsChange::with_projection`]); other events as they are.
    pub fn with_projection(self, keep: Option<&'a ColumnProjection>) -> Self {
        match self {
            ChangeEvent::Rows(r) => ChangeEvent::Rows(r.with_projection(keep)),
            other => other,
        }
    }
    pub fn txn(&self) -> &'a TransactionState {
        match self {
            ChangeEvent::Begin { txn, .. }
            | ChangeEvent::Commit { txn, .. }
            | ChangeEvent::Statement(Statement { txn, .. })
            | ChangeEvent::Rows(RowsChange { txn, .. }) => txn,
        }
    }
}

/// Follows the transaction state across decoded events and makes the
/// change events. Events it does not turn into one (table maps, rotates,
/// GTID events of MySQL, ...) still update its state.
#[derive(Debug, Default)]
pub struct ChangeBuilder {
    state: TransactionState,
    /// Events read since the current transaction opened, that one included.
    events_in_transaction: u64,
}

impl ChangeBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn state(&self) -> &TransactionState {
        &self.state
    }

    /// The event being read opened a transaction: it is the first counted.
    fn opened_transaction(&mut self) {
        self.state.events_before = 0;
        self.events_in_transaction = 1;
    }

    /// The caller keeps the executed GTID set up to date from the stream.
    pub fn set_executed_gtid_set(&mut self, set: String) {
        self.state.executed_gtid_set = set;
    }

    /// The caller says which server of a failover sequence the events come
    /// from (see [`TransactionState::source_epoch`]).
    pub fn set_source_epoch(&mut self, epoch: u32) {
        self.state.source_epoch = epoch;
    }

    /// An event read but not turned into a change event (a rows event of
    /// a table filtered out): it still counts in its transaction.
    pub fn pass_over(&mut self) {
        self.state.events_before = self.events_in_transaction;
        self.events_in_transaction += 1;
    }

    /// The change event of one decoded event, if it is one. `columns`
    /// describes a rows event's table when the schema knows it.
    pub fn on_event<'a>(
        &'a mut self,
        position: Position<'a>,
        data: &'a EventData<'a>,
        columns: Option<&'a [ColumnInfo]>,
    ) -> Option<ChangeEvent<'a>> {
        self.state.events_before = self.events_in_transaction;
        self.events_in_transaction += 1;
        match data {
            EventData::Gtid(g) => {
                self.state.gtid_event = Some((position.offset, position.timestamp));
                self.state.gtid = (!g.anonymous).then(|| g.gtid.to_string());
                self.state.sequence = g.sequence_number.zip(g.last_committed);
                None
            }
            EventData::MariadbGtid(g) => {
                self.state.gtid = Some(g.gtid.to_string());
                self.state.sequence = None;
                self.state.gtid_event = None;
                // MariaDB writes no BEGIN query: its GTID event opens the
                // transaction. A standalone group (DDL) opens nothing.
                if g.flags & mariadb_gtid_flags::STANDALONE != 0 {
                    return None;
                }
                self.state.in_transaction = true;
                self.state.thread_id = None;
                self.opened_transaction();
                Some(ChangeEvent::Begin {
                    position,
                    txn: &self.state,
                    thread_id: None,
                })
            }
            EventData::Xid(xid) => {
                self.state.in_transaction = false;
                self.state.gtid_event = None;
                Some(ChangeEvent::Commit {
                    position,
                    txn: &self.state,
                    xid: Some(*xid),
                })
            }
            EventData::Query(q) => {
                let sql = trimmed(q.query_text());
                let upper: String = sql
                    .chars()
                    .take(32)
                    .collect::<String>()
                    .to_ascii_uppercase();
                if upper == "BEGIN" || upper.ends_with(" BEGIN") || upper.starts_with("XA START") {
                    self.state.in_transaction = true;
                    self.state.thread_id = Some(q.thread_id);
                    self.opened_transaction();
                    return Some(ChangeEvent::Begin {
                        position,
                        txn: &self.state,
                        thread_id: Some(q.thread_id),
                    });
                }
                if upper == "COMMIT" || upper.starts_with("XA END") {
                    self.state.in_transaction = false;
                    self.state.gtid_event = None;
                    return Some(ChangeEvent::Commit {
                        position,
                        txn: &self.state,
                        xid: None,
                    });
                }
                Some(ChangeEvent::Statement(Statement {
                    position,
                    txn: &self.state,
                    db: q.schema_text(),
                    class: classify_statement(&sql),
                    sql,
                }))
            }
            EventData::Rows(rows) => Some(ChangeEvent::Rows(RowsChange::new(
                position,
                &self.state,
                rows,
                columns,
            ))),
            _ => None,
        }
    }
}

fn trimmed(text: Cow<'_, str>) -> Cow<'_, str> {
    match text {
        Cow::Borrowed(s) => Cow::Borrowed(s.trim()),
        Cow::Owned(s) if s.trim().len() == s.len() => Cow::Owned(s),
        Cow::Owned(s) => Cow::Owned(s.trim().to_string()),
    }
}
