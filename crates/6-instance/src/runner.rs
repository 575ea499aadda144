//! The running part of an instance: reads the source's binlog stream, keeps
//! the schema up to date, turns events into Canal entries, filters them and
//! puts them into the store (which applies back-pressure to the source).
//!
//! Exactly once at transaction granularity, without holding transactions in
//! memory: entries go to the store as they are read, so a transaction larger
//! than the store streams through. When the source reconnects inside a
//! transaction it replays that transaction from its start; the runner knows
//! how many of its events it already handled and drops their entries.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use prost::Message;
use sluice_binlog::events::EventData;
use sluice_binlog::{RowsKind, TableMap};
use sluice_canal::{EntryPosition, TableFilter};
use sluice_encode::canal::{BuiltEntry, CanalEncoder, EntryError, EntryKind};
use sluice_events::{
    ChangeBuilder, ColumnInfo, ColumnProjection, ColumnRules, Encoder, Position, Projections,
    RowsChange, Table, TransactionState,
};
use sluice_source::position::GtidState;
use sluice_source::{BinlogStream, OwnedRowsEvent, SourceConfig, SourceError, StreamItem};
use sluice_store::{EntryBytes, EntryMeta, FilterVersion, Frame, StoreError, TableName};
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;
use tracing::Instrument;

use crate::build_pool::{BuildPool, Built};
// Where they were first defined; the schema hook's own module owns them.
use crate::client_filters::StreamFilter;
use crate::destination::InstanceDestination;
pub use crate::schema_hook::{
    changes_schema_history, BinlogOnly, Description, EventPlace, SchemaHook,
};
use crate::snapshot::{ChunkDelivery, Delivered, Reconciled, SnapshotContext, SnapshotState};

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
    /// `canal.instance.filter.table.error`: a rows event whose table cannot
    /// be described or whose rows cannot be decoded is skipped (logged
    /// with table and position) instead of stopping the destination.
    pub table_error: bool,
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
            table_error: false,
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
        source: EntryError,
    },
    #[error("destination {destination}: store stopped")]
    Stopped { destination: String },
    /// The fence refused an entry: this process may no longer run the
    /// destination (see [`Fence`]).
    #[error("destination {destination}: fenced, this server no longer runs it")]
    Fenced { destination: String },
    /// The first start position could not be persisted; nothing is
    /// published until it is.
    #[error("destination {destination}: cannot persist its first start position: {source}")]
    StartPosition {
        destination: String,
        source: sluice_meta::MetaError,
    },
    /// The threads that build entries could not be started.
    #[error("destination {destination}: cannot start the threads that build entries: {source}")]
    Threads {
        destination: String,
        source: std::io::Error,
    },
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

/// How far the runs of one instance got, shared by the runs of one process
/// so that a run restarted after an error takes up where the last one
/// stopped: after the last transaction it put into the store (everything
/// before is there already), dropping what of the replayed transaction was
/// put, never at a newer `latest`.
#[derive(Debug, Default)]
pub struct RunProgress {
    state: Mutex<ProgressState>,
}

#[derive(Debug, Default)]
struct ProgressState {
    /// The first start position a stream resolved in this process.
    first_start: Option<EntryPosition>,
    /// Whether `first_start` is to be persisted and not yet persisted.
    start_unpersisted: bool,
    /// The ack point of the last END or DDL entry put: a transaction boundary.
    published: Option<EntryPosition>,
    /// The binlog key of the last entry put.
    last_put: Option<(u64, u64)>,
    /// The next run starts at the end of the binlog: the one to resume
    /// from (this position) is no longer on the source.
    jump_from: Option<String>,
}

impl RunProgress {
    fn lock(&self) -> std::sync::MutexGuard<'_, ProgressState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Where a restarted run resumes, and why: after the last transaction
    /// published, else at the first start this process resolved; `None`
    /// before any run connected.
    pub fn resume_point(&self) -> Option<(EntryPosition, &'static str)> {
        let st = self.lock();
        match (&st.published, &st.first_start) {
            (Some(p), _) => Some((p.clone(), "resuming after the last published transaction")),
            (None, Some(s)) => Some((
                s.clone(),
                "resuming at the first start position of this process (nothing published yet)",
            )),
            (None, None) => None,
        }
    }

    /// The binlog at `from` is gone: the next run starts at the end of the
    /// binlog, and nothing before it is resumed from.
    pub fn jump_to_end(&self, from: &str) {
        let mut st = self.lock();
        st.published = None;
        st.first_start = None;
        st.jump_from = Some(from.to_string());
    }

    /// Whether the next run starts at the end of the binlog.
    pub fn jumping_to_end(&self) -> bool {
        self.lock().jump_from.is_some()
    }

    /// Asks the next run to persist the start position its stream resolves
    /// (as the destination's start position) before it publishes anything.
    pub fn persist_next_start(&self) {
        let mut st = self.lock();
        if st.first_start.is_none() {
            st.start_unpersisted = true;
        }
    }

    /// Records `resolved` as the first start unless one is known; returns
    /// the start still to persist, if any.
    fn started(&self, resolved: EntryPosition) -> Option<EntryPosition> {
        let mut st = self.lock();
        let first = st.first_start.get_or_insert(resolved).clone();
        st.start_unpersisted.then_some(first)
    }

    fn start_persisted(&self) {
        self.lock().start_unpersisted = false;
    }

    /// Whether an entry at `position` was put already (by an earlier run).
    fn already_put(&self, position: &EntryPosition) -> bool {
        self.lock()
            .last_put
            .is_some_and(|last| position.binlog_key() <= last)
    }

    /// The stream moved to another server (after everything put from the
    /// last one): its positions are not compared with those.
    fn source_changed(&self) {
        self.lock().last_put = None;
    }

    fn put(&self, position: &EntryPosition, ack_point: Option<&EntryPosition>) {
        let mut st = self.lock();
        st.last_put = Some(position.binlog_key());
        if let Some(a) = ack_point {
            st.published = Some(a.clone());
        }
    }
}

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
    /// Failovers of the source to another server.
    pub failovers: u64,
}

pub struct InstanceRunner {
    name: String,
    destination: Arc<InstanceDestination>,
    filters: RunnerFilters,
    /// The destination's stream filter (the union of its clients'), as of
    /// the event being read.
    stream: StreamFilter,
    schema: Box<dyn SchemaHook>,
    /// Follows the transaction state and makes the change events.
    changes: ChangeBuilder,
    /// Encodes the change events as Canal entries.
    encoder: CanalEncoder,
    gtid_state: Option<GtidState>,
    /// Events of the current transaction already handled.
    events_in_txn: usize,
    /// Events to drop after a transaction replay.
    skip_events: usize,
    fence: Option<Fence>,
    progress: Arc<RunProgress>,
    /// The initial snapshot to run beside the stream, if any.
    snapshot: Option<SnapshotPlan>,
    /// Whether rows events' entries are built on the build pool (else on
    /// the reader, in turn).
    parallel: bool,
    /// Column filters, resolved per table description (none: every column).
    columns: Option<Projections>,
    pub stats: RunnerStats,
}

/// An initial snapshot for the runner to run beside the stream.
#[derive(Clone)]
pub struct SnapshotPlan {
    pub settings: sluice_config::SnapshotSettings,
    /// Shared by the runs of the instance.
    pub state: Arc<SnapshotState>,
}

/// What the reader makes of an event: entries, or a rows event whose entry
/// is to be built on another task.
enum Work {
    Ready(Box<BuiltEntry>),
    Rows(Box<RowsWork>),
    /// Tells the emitter the source changed server.
    SourceChanged,
    /// A snapshot chunk whose delivery point the stream reached.
    Snapshot(Box<ChunkDelivery>),
}

/// A rows event of a kept table, with all its entry needs: its own copy of
/// the event's bytes, the table as the schema describes it, and a snapshot
/// of the transaction state it was read in.
struct RowsWork {
    owned: OwnedRowsEvent,
    table: Arc<TableMap>,
    columns: Option<Arc<[ColumnInfo]>>,
    /// The columns shown, when column filters name the table.
    keep: Option<ColumnProjection>,
    txn: TransactionState,
    gtid_on: bool,
    file: String,
    pos: u64,
    next_pos: u64,
    server_id: u32,
    timestamp: u32,
}

impl RowsWork {
    /// Builds the entry, serialised too: run on a thread of the build
    /// pool, since the store takes entries one at a time in binlog order and
    /// what is done before is done on every core.
    fn build(self) -> Result<(BuiltEntry, EntryBytes), EntryError> {
        let RowsWork {
            owned,
            table,
            columns,
            keep,
            txn,
            gtid_on,
            file,
            pos,
            next_pos,
            server_id,
            timestamp,
        } = self;
        let mut rows = owned.rows_event().map_err(|source| EntryError::Decode {
            file: file.clone(),
            pos,
            source,
        })?;
        rows.table = table;
        let position = Position {
            file: &file,
            offset: pos,
            next_offset: next_pos,
            server_id,
            timestamp,
        };
        let change = RowsChange::new(position, &txn, &rows, columns.as_deref())
            .with_projection(keep.as_ref());
        CanalEncoder::serialised_rows_entry_on_this_thread(gtid_on, &change)
    }
}

impl Work {
    /// About the bytes it holds until it is in the store: entries are
    /// larger than their events (text values, names and types per row).
    fn weight(&self) -> usize {
        match self {
            Work::Ready(e) => e.entry.store_value.as_ref().map_or(0, |v| v.len()) + 512,
            Work::Rows(r) => (r.next_pos - r.pos) as usize * 3,
            Work::SourceChanged => 0,
            Work::Snapshot(c) => c.entry.entry.store_value.as_ref().map_or(0, |v| v.len()) + 512,
        }
    }
}

/// An entry on its way from the reader to the store, in binlog order,
/// holding its share of [`IN_FLIGHT_KB`] until it is there.
struct Pending {
    entry: PendingEntry,
    /// The stream filter version its event was read with.
    version: FilterVersion,
    _held: OwnedSemaphorePermit,
}

enum PendingEntry {
    Ready(Box<BuiltEntry>),
    /// The entry of a rows event, being built and serialised on a thread
    /// of the build pool.
    Building(Built<Result<(BuiltEntry, EntryBytes), EntryError>>),
    /// The entry of a rows event, built on the reader
    /// (`canal.instance.parser.parallel = false`).
    Built(Box<Result<(BuiltEntry, EntryBytes), EntryError>>),
    /// The source moved to another server: positions from here on are
    /// that server's, not comparable with those put before.
    SourceChanged,
    Snapshot(Box<ChunkDelivery>),
}

/// Entries in flight between the reader and the store: rows events are
/// turned into entries on other tasks (in parallel with reading the events
/// that follow and with each other), and put into the store in order. At
/// most this many, and about [`IN_FLIGHT_KB`] KiB of them.
const IN_FLIGHT: usize = 64;
const IN_FLIGHT_KB: usize = 16 * 1024;

impl InstanceRunner {
    pub fn new(
        name: &str,
        destination: Arc<InstanceDestination>,
        filters: RunnerFilters,
        schema: Box<dyn SchemaHook>,
        gtid_on: bool,
    ) -> Self {
        // The configured filter is what clients without one of their own get.
        destination.set_configured_filter(&filters.tables);
        InstanceRunner {
            name: name.to_string(),
            stream: destination.stream_filter(),
            destination,
            filters,
            schema,
            changes: ChangeBuilder::new(),
            encoder: CanalEncoder::new(gtid_on),
            gtid_state: None,
            events_in_txn: 0,
            skip_events: 0,
            fence: None,
            progress: Arc::new(RunProgress::default()),
            snapshot: None,
            parallel: true,
            columns: None,
            stats: RunnerStats::default(),
        }
    }

    /// Builds rows events' entries on the build pool (`true`, the default)
    /// or on the reader, one after the other
    /// (`canal.instance.parser.parallel = false`).
    pub fn with_parallel(mut self, parallel: bool) -> Self {
        self.parallel = parallel;
        self
    }

    /// Publishes only the columns `rules` show (`canal.instance.filter.field`
    /// and `.black.field`), in the stream's entries and the snapshot's.
    pub fn with_columns(mut self, rules: Option<Arc<dyn ColumnRules>>) -> Self {
        self.columns = rules.map(Projections::new);
        self
    }

    /// Asks `fence` before putting each entry into the store.
    pub fn with_fence(mut self, fence: Option<Fence>) -> Self {
        self.fence = fence;
        self
    }

    /// Shares `progress` with the earlier and later runs of the instance:
    /// records what this run puts, and drops entries an earlier run put.
    pub fn with_progress(mut self, progress: Arc<RunProgress>) -> Self {
        self.progress = progress;
        self
    }

    /// Runs the initial snapshot `plan` beside the stream.
    pub fn with_snapshot(mut self, plan: Option<SnapshotPlan>) -> Self {
        self.snapshot = plan;
        self
    }

    /// Whether the stream reads `schema.table`: some client's filter keeps
    /// it (each client gets only its own tables from the store), and the
    /// black list does not drop it.
    fn table_allowed(&self, schema: &str, table: &str) -> bool {
        self.stream.filter.matches(schema, table)
            && (self.filters.black.is_empty() || !self.filters.black.matches(schema, table))
    }

    /// Runs until `stop` turns true, the source ends (`stop_at_end`), or an
    /// error that retrying cannot heal.
    pub async fn run(
        &mut self,
        mut source: SourceConfig,
        stop: watch::Receiver<bool>,
    ) -> Result<(), RunnerError> {
        if let Some(fence) = &self.fence {
            // Fenced (high availability): every server of the destination
            // dumps with one server id, so a take-over's dump ends the
            // previous owner's at the source; and a server the fence refuses
            // does not connect again, which would end the new owner's dump.
            if source.server_id.is_none() && source.server_id_seed.is_none() {
                source.server_id_seed = Some(format!("{}@{}", self.name, source.connect.addr()));
            }
            let (fence, name) = (fence.clone(), self.name.clone());
            source.connect_gate = Some(sluice_source::ConnectGate::new(move || fence(&name)));
        }
        let counters = Arc::new(EmitCounters::default());
        let (tx, rx) = mpsc::channel(IN_FLIGHT);
        let emitter = Emitter {
            windows: self.snapshot.as_ref().map(|p| p.state.clone()),
            name: self.name.clone(),
            destination: self.destination.clone(),
            transaction_entry: self.filters.transaction_entry,
            fence: self.fence.clone(),
            pending_begin: None,
            txn_has_entries: false,
            last_empty_emitted: Instant::now(),
            empty_suppressed: 0,
            counters: counters.clone(),
            progress: self.progress.clone(),
            version: self.stream.version,
            last_table: None,
            skip_table_errors: self.filters.table_error,
        };
        let pool = BuildPool::entries().map_err(|source| RunnerError::Threads {
            destination: self.name.clone(),
            source,
        })?;
        let mut emitting = tokio::spawn(emitter.run(rx).in_current_span());
        let result = self.read(source, stop, tx, &mut emitting, pool).await;
        emitting.abort();
        self.stats.entries = counters.entries.load(Ordering::Relaxed);
        self.stats.rows = counters.rows.load(Ordering::Relaxed);
        result
    }

    /// Why the emitter ended before the reader: its error (it only ends by
    /// itself on one).
    fn emitter_ended(
        &self,
        ended: Result<Result<(), RunnerError>, tokio::task::JoinError>,
    ) -> RunnerError {
        match ended {
            Ok(Err(e)) => e,
            Err(j) if j.is_panic() => std::panic::resume_unwind(j.into_panic()),
            _ => RunnerError::Stopped {
                destination: self.name.clone(),
            },
        }
    }

    /// A source error as the runner reports it: [`RunnerError::Fenced`]
    /// when the fence refuses now (the connect gate's refusal, or a dump the
    /// source ended because the new owner started its own).
    fn source_error(&self, e: sluice_source::SourceError) -> RunnerError {
        match &self.fence {
            Some(fence) if !fence(&self.name) => RunnerError::Fenced {
                destination: self.name.clone(),
            },
            _ => RunnerError::Source {
                destination: self.name.clone(),
                source: Box::new(e),
            },
        }
    }

    /// Reads the source and hands the entries of each event, in order, to
    /// the emitter through `tx`.
    async fn read(
        &mut self,
        source: SourceConfig,
        mut stop: watch::Receiver<bool>,
        tx: mpsc::Sender<Pending>,
        emitting: &mut JoinHandle<Result<(), RunnerError>>,
        pool: &BuildPool,
    ) -> Result<(), RunnerError> {
        let in_flight = Arc::new(Semaphore::new(IN_FLIGHT_KB));
        let metrics = self.destination.metrics().cloned();
        let source_connect = source.connect.clone();
        let connect = BinlogStream::connect(source);
        let connected = tokio::select! {
            s = connect => s,
            _ = stop.changed() => return Ok(()),
        };
        let mut stream = connected.map_err(|e| self.source_error(e))?;
        let snapshot_connect = source_connect.clone();
        self.gtid_state = stream.position().gtid.clone();
        let resolved = stream.position().clone();
        self.persist_start(&resolved).await?;
        let (file, pos) = (stream.position().file.clone(), stream.position().offset);
        self.schema
            .on_start(&file, pos)
            .map_err(|message| RunnerError::Schema {
                destination: self.name.clone(),
                at: format!("{file}:{pos}"),
                message,
            })?;
        if let Some(g) = &self.gtid_state {
            self.changes.set_executed_gtid_set(g.to_string());
        }
        // The initial snapshot, beside the stream: its chunks come back here
        // to be delivered once the stream has passed their point.
        let mut snapshot = self.start_snapshot(snapshot_connect.clone());
        // Where the stream is between transactions, as a binlog key.
        let mut boundary = EntryPosition {
            journal_name: resolved.file.clone(),
            position: resolved.offset,
            ..Default::default()
        };
        let mut at_boundary = boundary.binlog_key();
        let mut waiting_chunks: Vec<ChunkDelivery> = Vec::new();
        let mut last_server_id = resolved.server_id;
        // Set when the stream moved to another server: the schema history
        // learns it at the first event read there.
        let mut source_changed = false;
        // And the emitter, before the first entry read there.
        let mut source_marker = false;
        loop {
            if *stop.borrow() {
                return Ok(());
            }
            let reconnects = stream.reconnects();
            if reconnects > self.stats.reconnects {
                if let Some(m) = &metrics {
                    m.reconnects.increment(reconnects - self.stats.reconnects);
                }
            }
            self.stats.reconnects = reconnects;
            let failovers = stream.failovers();
            if failovers > self.stats.failovers {
                if let Some(m) = &metrics {
                    m.failovers.increment(failovers - self.stats.failovers);
                }
                self.stats.failovers = failovers;
                source_changed = true;
                source_marker = true;
            }
            let item = tokio::select! {
                item = stream.next() => item,
                chunk = recv_chunk(&mut snapshot) => {
                    if let Some(chunk) = chunk {
                        waiting_chunks.push(chunk);
                    }
                    if !self.changes.state().in_transaction {
                        let ready = take_ready(&mut waiting_chunks, at_boundary);
                        self.send_chunks(ready, &boundary, last_server_id, &tx, &in_flight, &mut stop, emitting).await?;
                    }
                    continue;
                }
                // Tables asked for on demand while no snapshot runs.
                _ = snapshot_asked(&self.snapshot), if snapshot.is_none() => {
                    snapshot = self.start_snapshot(snapshot_connect.clone());
                    continue;
                }
                _ = stop.changed() => return Ok(()),
                ended = &mut *emitting => {
                    if *stop.borrow() {
                        return Ok(());
                    }
                    return Err(self.emitter_ended(ended));
                }
            };
            let item = match item {
                Ok(Some(item)) => item,
                Ok(None) => {
                    // The end of the binlog (`stop_at_end`): everything read
                    // goes into the store before returning.
                    drop(tx);
                    return match (&mut *emitting).await {
                        Ok(Ok(())) => Ok(()),
                        ended => Err(self.emitter_ended(ended)),
                    };
                }
                Err(e) => return Err(self.source_error(e)),
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
                    if std::mem::take(&mut source_changed) {
                        self.schema
                            .on_source_change(ev.file, ev.pos)
                            .map_err(|message| RunnerError::Schema {
                                destination: self.name.clone(),
                                at: format!("{}:{}", ev.file, ev.pos),
                                message,
                            })?;
                    }
                    if let Some(changed) = self
                        .destination
                        .stream_filter_if_changed(self.stream.version)
                    {
                        self.stream = changed;
                    }
                    let ends = ev.ends_transaction.is_some();
                    self.stats.events += 1;
                    if let Some(m) = &metrics {
                        m.received_bytes
                            .increment(u64::from(ev.raw.header.event_size));
                        m.event_read(ev.raw.header.timestamp, ends);
                    }
                    let position = Position::at(ev.file, ev.pos, ev.next_pos, &ev.raw.header);
                    let skip = self.skip_events > 0;
                    if skip {
                        self.skip_events -= 1;
                    }
                    self.events_in_txn += 1;
                    // A rows event of a kept table is built on another task,
                    // from a copy of its bytes.
                    let owned = match &ev.data {
                        EventData::Rows(r)
                            if !skip && self.table_allowed(&r.table.schema, &r.table.table) =>
                        {
                            ev.to_owned_rows()
                        }
                        _ => None,
                    };
                    // The entries of a transaction's end carry the GTID
                    // state after it: their ack point is where a resume by
                    // GTID starts.
                    if let Some(g) = ev.ends_transaction.and_then(|end| end.gtid.as_ref()) {
                        self.gtid_state = Some(g.clone());
                        self.changes.set_executed_gtid_set(g.to_string());
                    }
                    let mut work = self.handle(position, ev.data, owned)?;
                    if !skip && std::mem::take(&mut source_marker) {
                        work.insert(0, Work::SourceChanged);
                    }
                    if !skip {
                        for w in work {
                            let kb = w.weight().div_ceil(1024).clamp(1, IN_FLIGHT_KB) as u32;
                            // Timed only when it will wait for the emitter.
                            let blocked = (metrics.is_some()
                                && (tx.capacity() == 0
                                    || in_flight.available_permits() < kb as usize))
                                .then(Instant::now);
                            let held = tokio::select! {
                                held = in_flight.clone().acquire_many_owned(kb) => match held {
                                    Ok(h) => h,
                                    Err(_) => return Ok(()),
                                },
                                _ = stop.changed() => return Ok(()),
                                ended = &mut *emitting => {
                                    if *stop.borrow() {
                                        return Ok(());
                                    }
                                    return Err(self.emitter_ended(ended));
                                }
                            };
                            let entry = match w {
                                Work::Ready(e) => PendingEntry::Ready(e),
                                Work::Rows(r) if self.parallel => {
                                    PendingEntry::Building(pool.submit(move || r.build()))
                                }
                                Work::Rows(r) => PendingEntry::Built(Box::new(r.build())),
                                Work::SourceChanged => PendingEntry::SourceChanged,
                                Work::Snapshot(c) => PendingEntry::Snapshot(c),
                            };
                            let pending = Pending {
                                entry,
                                version: self.stream.version,
                                _held: held,
                            };
                            tokio::select! {
                                sent = tx.send(pending) => {
                                    if sent.is_err() {
                                        if *stop.borrow() {
                                            return Ok(());
                                        }
                                        let ended = (&mut *emitting).await;
                                        return Err(self.emitter_ended(ended));
                                    }
                                }
                                _ = stop.changed() => return Ok(()),
                            }
                            if let (Some(m), Some(since)) = (&metrics, blocked) {
                                m.blocked(since.elapsed());
                            }
                        }
                    }
                    last_server_id = position.server_id;
                    if !skip && !self.changes.state().in_transaction {
                        // Between transactions: chunks whose point the
                        // stream has reached go out now.
                        boundary = EntryPosition {
                            journal_name: position.file.to_string(),
                            position: position.next_offset,
                            ..Default::default()
                        };
                        at_boundary = boundary.binlog_key();
                        if !waiting_chunks.is_empty() {
                            let ready = take_ready(&mut waiting_chunks, at_boundary);
                            self.send_chunks(
                                ready,
                                &boundary,
                                last_server_id,
                                &tx,
                                &in_flight,
                                &mut stop,
                                emitting,
                            )
                            .await?;
                        }
                    }
                    if ends {
                        self.events_in_txn = 0;
                        self.skip_events = 0;
                        self.stats.transactions += 1;
                        if let Some(m) = &metrics {
                            m.transactions.increment(1);
                            m.transaction_read(ev.file, ev.next_pos);
                        }
                    }
                }
            }
        }
    }

    /// Starts the initial snapshot beside the stream, unless there is none
    /// or it finished.
    fn start_snapshot(&self, connect: sluice_source::ConnectOptions) -> Option<SnapshotTask> {
        let plan = self.snapshot.as_ref()?;
        // Known to be done, with nothing asked for since: nothing to run.
        // (Unknown, with the mode `never`: a snapshot asked for before a
        // restart may be unfinished; the task reads its progress.)
        if plan
            .state
            .progress()
            .is_some_and(|p| p.tables.iter().all(|t| t.done))
            && !plan.state.has_requests()
        {
            return None;
        }
        let (chunks, rx) = mpsc::channel(plan.settings.parallelism.max(1));
        // The tables of the configuration, whatever clients subscribe
        // with: what a snapshot reads never depends on when a client
        // subscribed (each client then gets the rows its own filter keeps).
        let filters = self.filters.clone();
        let keeps = move |schema: &str, table: &str| {
            filters.tables.matches(schema, table)
                && (filters.black.is_empty() || !filters.black.matches(schema, table))
        };
        let ctx = SnapshotContext {
            name: self.name.clone(),
            settings: plan.settings,
            connect,
            destination: self.destination.clone(),
            state: plan.state.clone(),
            gtid_on: self.encoder.gtid_on,
            keeps: Arc::new(keeps),
            columns: self.columns.as_ref().map(|p| p.rules().clone()),
            chunks,
            reads: Arc::new(tokio::sync::Semaphore::new(
                plan.settings.parallelism.max(1),
            )),
        };
        let name = self.name.clone();
        // In the destination's span (see `manager::destination_span`).
        let task = tokio::spawn(
            async move {
                if let Err(e) = crate::snapshot::run(ctx).await {
                    tracing::error!(destination = %name, error = %e, "snapshot stopped; it resumes when the instance restarts");
                }
            }
            .in_current_span(),
        );
        Some(SnapshotTask { rx, task })
    }

    /// Hands the chunks whose point the stream reached to the emitter, in
    /// order, with the stream's GTID state there.
    #[allow(clippy::too_many_arguments)]
    async fn send_chunks(
        &mut self,
        ready: Vec<ChunkDelivery>,
        boundary: &EntryPosition,
        server_id: u32,
        tx: &mpsc::Sender<Pending>,
        in_flight: &Arc<Semaphore>,
        stop: &mut watch::Receiver<bool>,
        emitting: &mut JoinHandle<Result<(), RunnerError>>,
    ) -> Result<(), RunnerError> {
        for mut chunk in ready {
            let gtid = self
                .gtid_state
                .as_ref()
                .map(|g| g.to_string())
                .unwrap_or_default();
            // The chunk sits in the stream where the stream is: a chunk
            // read before (a scan's, or one that waited for the stream)
            // must not take a consumer's cursor back to where it was read.
            let behind = chunk.at < boundary.binlog_key();
            for p in
                std::iter::once(&mut chunk.entry.position).chain(chunk.entry.ack_point.as_mut())
            {
                if behind {
                    p.journal_name.clone_from(&boundary.journal_name);
                    p.position = boundary.position;
                }
                p.gtid.clone_from(&gtid);
                p.server_id = i64::from(server_id);
            }
            let w = Work::Snapshot(Box::new(chunk));
            let kb = w.weight().div_ceil(1024).clamp(1, IN_FLIGHT_KB) as u32;
            let held = tokio::select! {
                held = in_flight.clone().acquire_many_owned(kb) => match held {
                    Ok(h) => h,
                    Err(_) => return Ok(()),
                },
                _ = stop.changed() => return Ok(()),
            };
            let Work::Snapshot(chunk) = w else {
                continue;
            };
            let pending = Pending {
                entry: PendingEntry::Snapshot(chunk),
                version: sluice_store::NOT_STREAM_FILTERED,
                _held: held,
            };
            tokio::select! {
                sent = tx.send(pending) => {
                    if sent.is_err() {
                        if *stop.borrow() {
                            return Ok(());
                        }
                        let ended = (&mut *emitting).await;
                        return Err(self.emitter_ended(ended));
                    }
                }
                _ = stop.changed() => return Ok(()),
            }
        }
        Ok(())
    }

    /// Records where the stream resolved its start and, when asked to
    /// ([`RunProgress::persist_next_start`]), persists it before anything
    /// is published, so a later process without client cursors starts
    /// there rather than at a newer `latest`.
    async fn persist_start(
        &mut self,
        resolved: &sluice_source::position::ResumePosition,
    ) -> Result<(), RunnerError> {
        let position = EntryPosition {
            gtid: resolved
                .gtid
                .as_ref()
                .map(|g| g.to_string())
                .unwrap_or_default(),
            included: false,
            journal_name: resolved.file.clone(),
            position: resolved.offset,
            server_id: i64::from(resolved.server_id),
            timestamp: i64::from(resolved.timestamp) * 1000,
        };
        if let Some(from) = self.progress.lock().jump_from.take() {
            tracing::warn!(
                destination = %self.name,
                from = %from,
                to = %format_args!("{}:{}", position.journal_name, position.position),
                "changes lost: the binlog between these positions was purged from the source before it was read"
            );
        }
        let Some(first) = self.progress.started(position) else {
            return Ok(());
        };
        let destination = self.destination.clone();
        let saved = tokio::task::spawn_blocking(move || {
            let saved = destination.persist_start_position(&first);
            (saved, first)
        })
        .await;
        match saved {
            Ok((Ok(()), first)) => {
                tracing::info!(
                    destination = %self.name,
                    start = %format_args!("{}:{}", first.journal_name, first.position),
                    gtid = %first.gtid,
                    "first start position persisted"
                );
                self.progress.start_persisted();
                Ok(())
            }
            Ok((Err(source), _)) => Err(RunnerError::StartPosition {
                destination: self.name.clone(),
                source,
            }),
            Err(j) if j.is_panic() => std::panic::resume_unwind(j.into_panic()),
            Err(_) => Err(RunnerError::Stopped {
                destination: self.name.clone(),
            }),
        }
    }

    /// The entries of one event, after schema tracking and filters.
    /// `owned` is the rows event's own copy when it is to be built on
    /// another task.
    fn handle(
        &mut self,
        position: Position<'_>,
        data: EventData<'_>,
        owned: Option<OwnedRowsEvent>,
    ) -> Result<Vec<Work>, RunnerError> {
        let mut at = EventPlace {
            file: position.file,
            pos: position.offset,
            next_pos: position.next_offset,
            status_vars: &[],
        };
        let schema_err = |message: String| RunnerError::Schema {
            destination: self.name.clone(),
            at: format!("{}:{}", position.file, position.offset),
            message,
        };
        let mut data = data;
        let mut columns = None;
        let mut keep = None;
        match &mut data {
            EventData::Query(q) => {
                let sql = q.query_text();
                let t = sql.trim();
                if changes_schema_history(t) {
                    if let Some(plan) = &self.snapshot {
                        // A chunk being read may be of a table this changes.
                        plan.state.windows.invalidate_all();
                    }
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
                let (table, cols) = match self.schema.describe(&at, &rows.table) {
                    Ok(described) => described,
                    Err(message) if self.filters.table_error => {
                        skipped_table_error(&self.name, &rows.table, &at, &message);
                        return Ok(Vec::new());
                    }
                    Err(message) => {
                        return Err(schema_err(format!(
                            "{message} (canal.instance.filter.table.error = true skips the rows events of such a table instead)"
                        )))
                    }
                };
                keep = self.columns.as_mut().and_then(|p| {
                    let described = Table {
                        map: &table,
                        info: cols.as_deref(),
                        keep: None,
                    };
                    p.get(rows.table_id, &described)
                });
                if let Some(owned) = owned {
                    let filtered = match rows.kind {
                        RowsKind::Write => self.filters.dml_insert,
                        RowsKind::Update | RowsKind::PartialUpdate => self.filters.dml_update,
                        RowsKind::Delete => self.filters.dml_delete,
                    };
                    if filtered {
                        return Ok(Vec::new());
                    }
                    return Ok(vec![Work::Rows(Box::new(RowsWork {
                        owned,
                        table,
                        columns: cols,
                        keep,
                        txn: self.changes.state().clone(),
                        gtid_on: self.encoder.gtid_on,
                        file: position.file.to_string(),
                        pos: position.offset,
                        next_pos: position.next_offset,
                        server_id: position.server_id,
                        timestamp: position.timestamp,
                    }))]);
                }
                rows.table = table;
                columns = cols;
            }
            _ => {}
        }
        let mut entries = Vec::new();
        if let Some(event) = self.changes.on_event(position, &data, columns.as_deref()) {
            let event = event.with_projection(keep.as_ref());
            match self.encoder.encode(&event, &mut entries) {
                Ok(()) => {}
                Err(source) if self.filters.table_error => {
                    tracing::warn!(destination = %self.name, error = %source, "rows event skipped: its rows cannot be decoded (canal.instance.filter.table.error)");
                    entries.clear();
                }
                Err(source) => {
                    return Err(RunnerError::Entry {
                        destination: self.name.clone(),
                        source,
                    })
                }
            }
        }
        Ok(entries
            .into_iter()
            .filter(|e| self.keep(e))
            .map(|e| Work::Ready(Box::new(e)))
            .collect())
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
}

/// The initial snapshot running beside a run of the stream; ends with it.
struct SnapshotTask {
    rx: mpsc::Receiver<ChunkDelivery>,
    task: JoinHandle<()>,
}

impl Drop for SnapshotTask {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Logs a rows event skipped because its table cannot be described.
fn skipped_table_error(destination: &str, table: &TableMap, at: &EventPlace<'_>, message: &str) {
    tracing::warn!(
        destination,
        table = %format_args!("{}.{}", table.schema, table.table),
        at = %format_args!("{}:{}", at.file, at.pos),
        error = message,
        "rows event skipped: its table cannot be described (canal.instance.filter.table.error)"
    );
}

/// Resolves when tables are asked for on demand; pending forever without a
/// snapshot plan.
async fn snapshot_asked(plan: &Option<SnapshotPlan>) {
    match plan {
        Some(p) => p.state.wake.notified().await,
        None => std::future::pending().await,
    }
}

/// The next chunk of the snapshot; pending forever without one, or once
/// the snapshot has ended.
async fn recv_chunk(snapshot: &mut Option<SnapshotTask>) -> Option<ChunkDelivery> {
    match snapshot {
        Some(s) => match s.rx.recv().await {
            Some(c) => Some(c),
            None => {
                *snapshot = None;
                None
            }
        },
        None => std::future::pending().await,
    }
}

/// The chunks whose delivery point is at or before `at`, in arrival order.
fn take_ready(waiting: &mut Vec<ChunkDelivery>, at: (u64, u64)) -> Vec<ChunkDelivery> {
    let (ready, still): (Vec<_>, Vec<_>) = std::mem::take(waiting)
        .into_iter()
        .partition(|c| c.at <= at);
    *waiting = still;
    ready
}

#[derive(Debug, Default)]
struct EmitCounters {
    entries: AtomicU64,
    rows: AtomicU64,
}

/// Puts the entries the reader hands over into the store, in order,
/// waiting for those still being built; keeps the transaction shape (a
/// BEGIN goes out with the first entry after it, empty transactions are
/// dropped but for one now and then).
struct Emitter {
    /// The snapshot's windows and progress, when one runs.
    windows: Option<Arc<SnapshotState>>,
    name: String,
    destination: Arc<InstanceDestination>,
    transaction_entry: bool,
    fence: Option<Fence>,
    pending_begin: Option<BuiltEntry>,
    txn_has_entries: bool,
    last_empty_emitted: Instant,
    empty_suppressed: u64,
    counters: Arc<EmitCounters>,
    progress: Arc<RunProgress>,
    /// `canal.instance.filter.table.error`: an entry that cannot be built
    /// is skipped.
    skip_table_errors: bool,
    /// The stream filter version of the entry being emitted.
    version: FilterVersion,
    last_table: Option<Arc<TableName>>,
}

/// `last` if it names `schema.table`, else a new name.
fn intern_table(last: Option<Arc<TableName>>, schema: &str, table: &str) -> Arc<TableName> {
    match last {
        Some(t) if t.schema == schema && t.table == table => t,
        _ => Arc::new(TableName {
            schema: schema.to_string(),
            table: table.to_string(),
        }),
    }
}

impl Emitter {
    async fn run(mut self, mut rx: mpsc::Receiver<Pending>) -> Result<(), RunnerError> {
        while let Some(p) = rx.recv().await {
            let (e, bytes) = match p.entry {
                PendingEntry::SourceChanged => {
                    self.progress.source_changed();
                    if let Some(s) = &self.windows {
                        s.windows.invalidate_all();
                    }
                    continue;
                }
                PendingEntry::Snapshot(chunk) => {
                    self.deliver_chunk(*chunk).await?;
                    continue;
                }
                PendingEntry::Ready(e) => (*e, None),
                PendingEntry::Built(built) => match *built {
                    Ok((e, bytes)) => (e, Some(bytes)),
                    Err(source) => {
                        return Err(RunnerError::Entry {
                            destination: self.name.clone(),
                            source,
                        })
                    }
                },
                PendingEntry::Building(building) => match building.await {
                    Ok(Ok(Ok((e, bytes)))) => (e, Some(bytes)),
                    Ok(Ok(Err(source))) if self.skip_table_errors => {
                        tracing::warn!(destination = %self.name, error = %source, "rows event skipped: its rows cannot be decoded (canal.instance.filter.table.error)");
                        continue;
                    }
                    Ok(Ok(Err(source))) => {
                        return Err(RunnerError::Entry {
                            destination: self.name.clone(),
                            source,
                        })
                    }
                    Ok(Err(panic)) => std::panic::resume_unwind(panic),
                    Err(_) => {
                        return Err(RunnerError::Stopped {
                            destination: self.name.clone(),
                        })
                    }
                },
            };
            self.version = p.version;
            self.emit(e, bytes).await?;
        }
        Ok(())
    }

    /// The table of an entry, for the clients' selections; one allocation
    /// per change of table, not per entry.
    fn table_of(&mut self, e: &BuiltEntry) -> Option<Arc<TableName>> {
        if !matches!(e.kind, EntryKind::Row | EntryKind::Ddl) {
            return None;
        }
        let h = e.entry.header.as_ref()?;
        let (schema, table) = (
            h.schema_name.as_deref().unwrap_or(""),
            h.table_name.as_deref().unwrap_or(""),
        );
        if table.is_empty() {
            return None;
        }
        self.last_table = Some(intern_table(self.last_table.take(), schema, table));
        self.last_table.clone()
    }

    /// Puts a snapshot chunk into the store, without the rows the stream
    /// touched while it was read, and tells its reader how it went.
    async fn deliver_chunk(&mut self, chunk: ChunkDelivery) -> Result<(), RunnerError> {
        let ChunkDelivery {
            schema,
            table,
            window,
            keep_window,
            entry,
            bytes,
            rows,
            reply,
            ..
        } = chunk;
        let Some(state) = &self.windows else {
            let _ = reply.send(Delivered::Redo);
            return Ok(());
        };
        let BuiltEntry {
            entry: proto,
            kind,
            position,
            ack_point,
            idempotency_key,
        } = *entry;
        let delivered = match state.windows.reconcile(
            &schema,
            &table,
            window,
            Box::new(proto),
            rows,
            keep_window,
        ) {
            Reconciled::Redo => Delivered::Redo,
            Reconciled::Deliver {
                entry: None,
                kept,
                dropped,
                ..
            } => Delivered::Put {
                seq: None,
                kept,
                dropped,
            },
            Reconciled::Deliver {
                entry: Some(proto),
                kept,
                dropped,
                patched,
            } => {
                if let Some(fence) = &self.fence {
                    if !fence(&self.name) {
                        return Err(RunnerError::Fenced {
                            destination: self.name.clone(),
                        });
                    }
                }
                // Rows dropped or given the stream's values: the entry
                // changed and is written anew.
                let bytes = if dropped == 0 && patched == 0 {
                    bytes
                } else {
                    entry_bytes(&proto)
                };
                let meta = EntryMeta {
                    bytes: bytes.len(),
                    ack_point,
                    position,
                    is_ddl: false,
                    rows: kept as u32,
                    table: Some(intern_table(None, &schema, &table)),
                    frame: Frame::Body,
                    // Chunks follow the configured filter, not the stream's.
                    filter_version: sluice_store::NOT_STREAM_FILTERED,
                };
                let _ = (kind, idempotency_key);
                self.counters.entries.fetch_add(1, Ordering::Relaxed);
                self.counters.rows.fetch_add(1, Ordering::Relaxed);
                let seq = self
                    .destination
                    .store()
                    .put(bytes, meta)
                    .await
                    .map_err(|_| RunnerError::Stopped {
                        destination: self.name.clone(),
                    })?;
                Delivered::Put {
                    seq: Some(seq),
                    kept,
                    dropped,
                }
            }
        };
        let _ = reply.send(delivered);
        Ok(())
    }

    /// `bytes`: the entry serialised, when that was done already.
    async fn emit(&mut self, e: BuiltEntry, bytes: Option<EntryBytes>) -> Result<(), RunnerError> {
        if e.kind == EntryKind::Row {
            if let (Some(state), Some(h)) = (&self.windows, e.entry.header.as_ref()) {
                if state.windows.any_open() {
                    state.windows.observe(
                        h.schema_name.as_deref().unwrap_or(""),
                        h.table_name.as_deref().unwrap_or(""),
                        e.entry.store_value.as_deref().unwrap_or(&[]),
                    );
                }
            }
        }
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
                if empty || self.transaction_entry {
                    let due = self.last_empty_emitted.elapsed() >= EMPTY_TRANSACTION_INTERVAL
                        || self.empty_suppressed >= EMPTY_TRANSACTION_COUNT;
                    if !due {
                        self.empty_suppressed += 1;
                        return Ok(());
                    }
                    self.last_empty_emitted = Instant::now();
                    self.empty_suppressed = 0;
                    if let Some(b) = begin {
                        self.put(b, None).await?;
                    }
                }
                return self.put(e, bytes).await;
            }
            _ => {}
        }
        if let Some(b) = self.pending_begin.take() {
            if !self.transaction_entry {
                self.put(b, None).await?;
            }
        }
        self.txn_has_entries = true;
        self.put(e, bytes).await
    }

    async fn put(&mut self, e: BuiltEntry, bytes: Option<EntryBytes>) -> Result<(), RunnerError> {
        if let Some(fence) = &self.fence {
            if !fence(&self.name) {
                return Err(RunnerError::Fenced {
                    destination: self.name.clone(),
                });
            }
        }
        // Put by an earlier run of this instance: the replay of the
        // transaction it stopped in.
        if self.progress.already_put(&e.position) {
            return Ok(());
        }
        let bytes = bytes.unwrap_or_else(|| entry_bytes(&e.entry));
        let meta = EntryMeta {
            bytes: bytes.len(),
            ack_point: e.ack_point.clone(),
            position: e.position.clone(),
            is_ddl: e.kind == EntryKind::Ddl,
            rows: if e.kind == EntryKind::Row {
                rows_count(&e.entry)
            } else {
                0
            },
            table: self.table_of(&e),
            frame: match e.kind {
                EntryKind::Begin => Frame::Begin,
                EntryKind::End => Frame::End,
                _ => Frame::Body,
            },
            filter_version: self.version,
        };
        self.counters.entries.fetch_add(1, Ordering::Relaxed);
        if e.kind == EntryKind::Row {
            self.counters.rows.fetch_add(1, Ordering::Relaxed);
        }
        self.destination
            .store()
            .put(bytes, meta)
            .await
            .map_err(|e: StoreError| {
                let _ = e;
                RunnerError::Stopped {
                    destination: self.name.clone(),
                }
            })?;
        self.progress.put(&e.position, e.ack_point.as_ref());
        Ok(())
    }
}

/// Canal's `rowsCount` of a row entry (its last header property).
fn rows_count(entry: &sluice_canal::proto::Entry) -> u32 {
    entry
        .header
        .as_ref()
        .and_then(|h| {
            h.props
                .iter()
                .rev()
                .find(|p| p.key.as_deref() == Some("rowsCount"))
        })
        .and_then(|p| p.value.as_deref()?.parse().ok())
        .unwrap_or(0)
}

/// The serialised entry.
fn entry_bytes(entry: &sluice_canal::proto::Entry) -> EntryBytes {
    EntryBytes::from(entry.encode_to_vec())
}
