//! The running part of an instance: reads the source's binlog stream, keeps
//! the schema up to date, turns events into Canal entries, filters them and
//! puts them into the store (which applies back-pressure to the source).
//!
//! Exactly once at transaction granularity, without holding transactions in
//! memory: entries go to the store as they are read, so a transaction larger
//! than the store streams through. When the source reconnects inside a
//! transaction it replays that transaction from its start; the runner knows
//! how many of its events it already handled and drops their entries.

use std::sync::Arc;
use std::time::{Duration, Instant};

use prost::Message;
use sluice_binlog::events::EventData;
use sluice_binlog::TableMap;
use sluice_canal::TableFilter;
use sluice_source::position::GtidState;
use sluice_source::{BinlogStream, SourceConfig, SourceError, StreamItem};
use sluice_store::{EntryBytes, EntryMeta, StoreError};
use tokio::sync::watch;

use crate::destination::InstanceDestination;
use crate::entry::{BuiltEntry, ColumnInfo, EntryBuilder, EntryKind, EventContext};

/// Where an event is, for the schema hook.
#[derive(Debug, Clone, Copy)]
pub struct EventPlace<'a> {
    pub file: &'a str,
    pub pos: u64,
    /// The position just after the event: where its effect begins.
    pub next_pos: u64,
    /// The QUERY event's status variables (sql_mode, collations), else empty.
    pub status_vars: &'a [u8],
}

/// Keeps table descriptions right: sees every statement, and describes the
/// table of every rows event. The schema tracker implements it; [`BinlogOnly`]
/// uses what the binlog itself carries.
pub trait SchemaHook: Send {
    /// The stream starts at `file:pos` (after a connect, not a reconnect).
    fn on_start(&mut self, _file: &str, _pos: u64) -> Result<(), String> {
        Ok(())
    }
    /// A statement other than BEGIN/COMMIT, in binlog order.
    fn on_query(&mut self, at: &EventPlace<'_>, schema: &str, sql: &str) -> Result<(), String>;
    /// The table of a rows event: a description whose column definitions
    /// carry names, signedness, charsets and labels, and Canal's column info.
    fn describe(
        &mut self,
        at: &EventPlace<'_>,
        table: &Arc<TableMap>,
    ) -> Result<(Arc<TableMap>, Option<Vec<ColumnInfo>>), String>;
}

/// Column names and types from the binlog's own metadata only.
pub struct BinlogOnly;

impl SchemaHook for BinlogOnly {
    fn on_query(&mut self, _: &EventPlace<'_>, _: &str, _: &str) -> Result<(), String> {
        Ok(())
    }
    fn describe(
        &mut self,
        _: &EventPlace<'_>,
        table: &Arc<TableMap>,
    ) -> Result<(Arc<TableMap>, Option<Vec<ColumnInfo>>), String> {
        Ok((table.clone(), None))
    }
}

/// Canal's filters (instance.properties `canal.instance.filter.*`).
#[derive(Debug, Clone)]
pub struct RunnerFilters {
    pub tables: TableFilter,
    pub black: TableFilter,
    pub query_ddl: bool,
    pub query_dml: bool,
    pub query_dcl: bool,
    pub dml_insert: bool,
    pub dml_update: bool,
    pub dml_delete: bool,
    pub transaction_entry: bool,
}

impl Default for RunnerFilters {
    fn default() -> Self {
        RunnerFilters {
            tables: TableFilter::all(),
            black: TableFilter::all(),
            query_ddl: false,
            query_dml: false,
            query_dcl: false,
            dml_insert: false,
            dml_update: false,
            dml_delete: false,
            transaction_entry: false,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    #[error("destination {destination}: source: {source}")]
    Source {
        destination: String,
        source: Box<SourceError>,
    },
    #[error("destination {destination}: {at}: schema: {message}")]
    Schema {
        destination: String,
        at: String,
        message: String,
    },
    #[error("destination {destination}: {source}")]
    Entry {
        destination: String,
        source: crate::entry::EntryError,
    },
    #[error("destination {destination}: store stopped")]
    Stopped { destination: String },
    /// The fence refused an entry: this process may no longer run the
    /// destination (see [`Fence`]).
    #[error("destination {destination}: fenced, this server no longer runs it")]
    Fenced { destination: String },
}

/// Says whether this process may still publish entries of a destination
/// (given its name): with high availability, "this server holds the
/// destination right now". The runner asks before every entry it puts into
/// the store and stops with [`RunnerError::Fenced`] on the first refusal.
pub type Fence = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// Empty transactions (nothing left after filtering) are dropped, but one
/// is let through now and then so cursors keep advancing (as Canal does).
const EMPTY_TRANSACTION_INTERVAL: Duration = Duration::from_secs(5);
const EMPTY_TRANSACTION_COUNT: u64 = 8192;

/// Counters a runner exposes.
#[derive(Debug, Default, Clone)]
pub struct RunnerStats {
    pub events: u64,
    pub entries: u64,
    pub rows: u64,
    pub transactions: u64,
    pub aborted_transactions: u64,
    /// Times the source connection was re-established.
    pub reconnects: u64,
}

pub struct InstanceRunner {
    name: String,
    destination: Arc<InstanceDestination>,
    filters: RunnerFilters,
    schema: Box<dyn SchemaHook>,
    builder: EntryBuilder,
    gtid_state: Option<GtidState>,
    /// Events of the current transaction already handled.
    events_in_txn: usize,
    /// Events to drop after a transaction replay.
    skip_events: usize,
    pending_begin: Option<BuiltEntry>,
    txn_has_entries: bool,
    last_empty_emitted: Instant,
    empty_suppressed: u64,
    fence: Option<Fence>,
    pub stats: RunnerStats,
}

impl InstanceRunner {
    pub fn new(
        name: &str,
        destination: Arc<InstanceDestination>,
        filters: RunnerFilters,
        schema: Box<dyn SchemaHook>,
        gtid_on: bool,
    ) -> Self {
        InstanceRunner {
            name: name.to_string(),
            destination,
            filters,
            schema,
            builder: EntryBuilder::new(gtid_on),
            gtid_state: None,
            events_in_txn: 0,
            skip_events: 0,
            pending_begin: None,
            txn_has_entries: false,
            last_empty_emitted: Instant::now(),
            empty_suppressed: 0,
            fence: None,
            stats: RunnerStats::default(),
        }
    }

    /// Asks `fence` before putting each entry into the store.
    pub fn with_fence(mut self, fence: Option<Fence>) -> Self {
        self.fence = fence;
        self
    }

    fn table_allowed(&self, schema: &str, table: &str) -> bool {
        let white = self
            .destination
            .filter_override()
            .unwrap_or_else(|| self.filters.tables.clone());
        white.matches(schema, table)
            && (self.filters.black.is_empty() || !self.filters.black.matches(schema, table))
    }

    /// Runs until `stop` turns true, the source ends (`stop_at_end`), or an
    /// error that retrying cannot heal.
    pub async fn run(
        &mut self,
        source: SourceConfig,
        mut stop: watch::Receiver<bool>,
    ) -> Result<(), RunnerError> {
        let src_err = |e| RunnerError::Source {
            destination: self.name.clone(),
            source: Box::new(e),
        };
        let connect = BinlogStream::connect(source);
        let mut stream = tokio::select! {
            s = connect => s.map_err(src_err)?,
            _ = stop.changed() => return Ok(()),
        };
        self.gtid_state = stream.position().gtid.clone();
        let (file, pos) = (stream.position().file.clone(), stream.position().offset);
        self.schema
            .on_start(&file, pos)
            .map_err(|message| RunnerError::Schema {
                destination: self.name.clone(),
                at: format!("{file}:{pos}"),
                message,
            })?;
        if let Some(g) = &self.gtid_state {
            self.builder.executed_gtid_set = g.to_string();
        }
        loop {
            if *stop.borrow() {
                return Ok(());
            }
            self.stats.reconnects = stream.reconnects();
            let item = tokio::select! {
                item = stream.next() => item,
                _ = stop.changed() => return Ok(()),
            };
            let item = match item {
                Ok(Some(item)) => item,
                Ok(None) => return Ok(()),
                Err(e) => {
                    return Err(RunnerError::Source {
                        destination: self.name.clone(),
                        source: Box::new(e),
                    })
                }
            };
            match item {
                StreamItem::TransactionAborted { resume, reason } => {
                    tracing::warn!(
                        destination = %self.name,
                        %resume,
                        reason,
                        handled = self.events_in_txn,
                        "source reconnected inside a transaction; its replay skips the events already handled"
                    );
                    self.stats.aborted_transactions += 1;
                    self.skip_events = self.events_in_txn;
                    self.events_in_txn = 0;
                }
                StreamItem::Event(ev) => {
                    if ev.artificial {
                        continue;
                    }
                    let ends = ev.ends_transaction.is_some();
                    self.stats.events += 1;
                    let ctx = EventContext {
                        file: ev.file,
                        pos: ev.pos,
                        next_pos: ev.next_pos,
                        header: &ev.raw.header,
                    };
                    let skip = self.skip_events > 0;
                    if skip {
                        self.skip_events -= 1;
                    }
                    self.events_in_txn += 1;
                    let entries = self.handle(&ctx, ev.data)?;
                    if !skip {
                        for e in entries {
                            self.emit(e).await?;
                        }
                    }
                    if ends {
                        self.events_in_txn = 0;
                        self.skip_events = 0;
                        self.stats.transactions += 1;
                        if let Some(end) = ev.ends_transaction {
                            if let Some(g) = &end.gtid {
                                self.gtid_state = Some(g.clone());
                                self.builder.executed_gtid_set = g.to_string();
                            }
                        }
                    }
                }
            }
        }
    }

    /// The entries of one event, after schema tracking and filters.
    fn handle(
        &mut self,
        ctx: &EventContext<'_>,
        data: EventData<'_>,
    ) -> Result<Vec<BuiltEntry>, RunnerError> {
        let mut at = EventPlace {
            file: ctx.file,
            pos: ctx.pos,
            next_pos: ctx.next_pos,
            status_vars: &[],
        };
        let schema_err = |message: String| RunnerError::Schema {
            destination: self.name.clone(),
            at: format!("{}:{}", ctx.file, ctx.pos),
            message,
        };
        let mut data = data;
        let mut columns = None;
        match &mut data {
            EventData::Query(q) => {
                let sql = q.query_text();
                let t = sql.trim();
                let upper: String = t.chars().take(8).collect::<String>().to_ascii_uppercase();
                if upper != "BEGIN" && upper != "COMMIT" && !upper.starts_with("XA ") {
                    let db = q.schema_text().into_owned();
                    let sql = t.to_string();
                    at.status_vars = q.status_vars;
                    self.schema.on_query(&at, &db, &sql).map_err(schema_err)?;
                }
            }
            EventData::Rows(rows) => {
                if !self.table_allowed(&rows.table.schema, &rows.table.table) {
                    return Ok(Vec::new());
                }
                let (table, cols) = self.schema.describe(&at, &rows.table).map_err(schema_err)?;
                rows.table = table;
                columns = cols;
            }
            _ => {}
        }
        let entries = self
            .builder
            .on_event(ctx, &data, columns.as_deref())
            .map_err(|source| RunnerError::Entry {
                destination: self.name.clone(),
                source,
            })?;
        Ok(entries.into_iter().filter(|e| self.keep(e)).collect())
    }

    fn keep(&self, e: &BuiltEntry) -> bool {
        use sluice_canal::proto::EventType as Et;
        let et = e
            .entry
            .header
            .as_ref()
            .and_then(|h| h.event_type)
            .and_then(|t| Et::try_from(t).ok());
        match e.kind {
            EntryKind::Row => match et {
                Some(Et::Insert) => !self.filters.dml_insert,
                Some(Et::Update) => !self.filters.dml_update,
                Some(Et::Delete) => !self.filters.dml_delete,
                _ => true,
            },
            EntryKind::Ddl => {
                if self.filters.query_ddl {
                    return false;
                }
                match e.entry.header.as_ref() {
                    Some(h) => {
                        let table = h.table_name.as_deref().unwrap_or("");
                        let schema = h.schema_name.as_deref().unwrap_or("");
                        table.is_empty() || self.table_allowed(schema, table)
                    }
                    None => true,
                }
            }
            EntryKind::Query => {
                let is_dml = matches!(et, Some(Et::Insert | Et::Update | Et::Delete));
                let filtered = if is_dml {
                    self.filters.query_dml
                } else {
                    self.filters.query_dcl
                };
                !filtered
            }
            EntryKind::Begin | EntryKind::End => true,
        }
    }

    async fn emit(&mut self, e: BuiltEntry) -> Result<(), RunnerError> {
        match e.kind {
            EntryKind::Begin => {
                self.pending_begin = Some(e);
                self.txn_has_entries = false;
                return Ok(());
            }
            EntryKind::End => {
                let empty = !self.txn_has_entries;
                let begin = self.pending_begin.take();
                self.txn_has_entries = false;
                // Without anything to deliver (all filtered, or transaction
                // entries filtered), a BEGIN/END pair still goes out now and
                // then so that cursors advance.
                if empty || self.filters.transaction_entry {
                    let due = self.last_empty_emitted.elapsed() >= EMPTY_TRANSACTION_INTERVAL
                        || self.empty_suppressed >= EMPTY_TRANSACTION_COUNT;
                    if !due {
                        self.empty_suppressed += 1;
                        return Ok(());
                    }
                    self.last_empty_emitted = Instant::now();
                    self.empty_suppressed = 0;
                    if let Some(b) = begin {
                        self.put(b).await?;
                    }
                }
                return self.put(e).await;
            }
            _ => {}
        }
        if let Some(b) = self.pending_begin.take() {
            if !self.filters.transaction_entry {
                self.put(b).await?;
            }
        }
        self.txn_has_entries = true;
        if e.kind == EntryKind::Row {
            self.stats.rows += 1;
        }
        self.put(e).await
    }

    async fn put(&mut self, e: BuiltEntry) -> Result<(), RunnerError> {
        if let Some(fence) = &self.fence {
            if !fence(&self.name) {
                return Err(RunnerError::Fenced {
                    destination: self.name.clone(),
                });
            }
        }
        let bytes: EntryBytes = Arc::from(e.entry.encode_to_vec());
        let meta = EntryMeta {
            bytes: bytes.len(),
            ack_point: e.ack_point,
            position: e.position,
            is_ddl: e.kind == EntryKind::Ddl,
        };
        self.stats.entries += 1;
        self.destination
            .store()
            .put(bytes, meta)
            .await
            .map_err(|e: StoreError| {
                let _ = e;
                RunnerError::Stopped {
                    destination: self.name.clone(),
                }
            })
    }
}
