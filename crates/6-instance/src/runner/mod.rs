//! The running part of an instance: reads the source's binlog stream with
//! the change stream's one loop (which keeps the schema up to date and
//! filters), turns what passes into Canal entries and puts them into the
//! store (which applies back-pressure to the source).
//!
//! Exactly once at transaction granularity, without holding transactions in
//! memory: entries go to the store as they are read, so a transaction larger
//! than the store streams through. When the source reconnects inside a
//! transaction it replays that transaction from its start; the runner knows
//! how many of its events it already handled and drops their entries.
//!
//! Here: a run's setup. `read` is the store side of the stream's loop,
//! `progress` holds what the runs of an instance share, `work` what the
//! reader hands on, `store_sink` puts it into the store, `snapshot_side`
//! runs the initial snapshot beside the stream.

mod progress;
mod read;
mod snapshot_side;
mod store_sink;
mod work;

pub use progress::*;
use snapshot_side::*;
use store_sink::*;
use work::*;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use prost::Message;
use sluice_binlog::TableMap;
use sluice_canal::EntryPosition;
use sluice_encode::canal::{BuiltEntry, CanalEncoder, EntryError, EntryKind};
use sluice_events::{
    ChangeBuilder, ChangeEvent, ColumnInfo, ColumnProjection, ColumnRules, Encoder, Op, Position,
    RowsChange, TransactionState,
};
use sluice_source::position::GtidState;
use sluice_source::{BinlogStream, OwnedRowsEvent, SourceConfig, SourceError};
use sluice_store::{EntryBytes, EntryMeta, FilterVersion, Frame, StoreError, TableName};
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;
use tracing::Instrument;

use crate::client_filters::StreamFilter;
use crate::destination::InstanceDestination;
use crate::encode_pool::{Built, EncodePool};
use crate::filters::CanalFilters;
// Where they were first defined; the schema hook's own module owns them.
pub use crate::schema_hook::{
    changes_schema_history, BinlogOnly, Description, EventPlace, SchemaHook,
};
use crate::snapshot::{ChunkDelivery, Delivered, Reconciled, SnapshotContext, SnapshotState};

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
    /// The change stream failed otherwise.
    #[error("destination {destination}: {source}")]
    Stream {
        destination: String,
        source: Box<crate::stream::StreamError>,
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
    filters: CanalFilters,
    /// Follows the schema; handed to the run's stream.
    schema: Box<dyn SchemaHook>,
    /// Encodes the change events but rows as Canal entries.
    encoder: CanalEncoder,
    fence: Option<Fence>,
    progress: Arc<RunProgress>,
    /// The initial snapshot to run beside the stream, if any.
    snapshot: Option<SnapshotPlan>,
    /// Whether rows events' entries are built on the build pool (else on
    /// the reader, in turn).
    parallel: bool,
    /// Column filters (none: every column).
    columns: Option<Arc<dyn ColumnRules>>,
    pub stats: RunnerStats,
}

/// An initial snapshot for the runner to run beside the stream.
#[derive(Clone)]
pub struct SnapshotPlan {
    pub settings: sluice_config::SnapshotSettings,
    /// Shared by the runs of the instance.
    pub state: Arc<SnapshotState>,
}

/// Entries in flight between the reader and the store: rows events are
/// turned into entries on other tasks (in parallel with reading the events
/// that follow and with each other), and put into the store in order. At
/// most this many, and about [`IN_FLIGHT_KB`] KiB of them.
const IN_FLIGHT: usize = 64;
const IN_FLIGHT_KB: usize = 16 * 1024;

/// How long a failed runner waits for the entries read before its failure
/// to reach the store.
const DRAIN_ON_FAILURE: std::time::Duration = std::time::Duration::from_secs(5);

impl InstanceRunner {
    pub fn new(
        name: &str,
        destination: Arc<InstanceDestination>,
        filters: CanalFilters,
        schema: Box<dyn SchemaHook>,
        gtid_on: bool,
    ) -> Self {
        // The configured filter is what clients without one of their own get.
        destination.set_configured_filter(&filters.tables);
        InstanceRunner {
            name: name.to_string(),
            destination,
            filters,
            schema,
            encoder: CanalEncoder::new(gtid_on),
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
        self.columns = rules;
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
            version: self.destination.stream_filter().version,
            last_table: None,
            skip_table_errors: self.filters.table_error,
        };
        let pool = EncodePool::shared().map_err(|source| RunnerError::Threads {
            destination: self.name.clone(),
            source,
        })?;
        let mut emitting = tokio::spawn(emitter.run(rx).in_current_span());
        let result = self.read(source, stop, tx, &mut emitting, pool).await;
        // A failure (not a stop, not a fence) lets what was read before it
        // reach the store: the reader's end of the channel is closed, so
        // the emitter ends once it has emitted that. Bounded, since a store
        // no client drains can hold it back.
        if matches!(&result, Err(e) if !matches!(e, RunnerError::Fenced { .. } | RunnerError::Stopped { .. }))
            && !emitting.is_finished()
        {
            let _ = tokio::time::timeout(DRAIN_ON_FAILURE, &mut emitting).await;
        }
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
            columns: self.columns.clone(),
            chunks,
            reads: Arc::new(tokio::sync::Semaphore::new(
                plan.settings.parallelism.max(1),
            )),
            memory: Arc::new(crate::snapshot::ChunkMemory::new(
                plan.settings.max_buffer_bytes,
                plan.settings.parallelism,
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

    /// Records where the stream resolved its start and, when asked to
    /// ([`RunProgress::persist_next_start`]), persists it before anything
    /// is published, so a later process without client cursors starts
    /// there rather than at a newer `latest`.
    async fn persist_start(
        &mut self,
        resolved: &sluice_source::position::ResumePosition,
    ) -> Result<(), RunnerError> {
        let position = EntryPosition::of(&resolved.at, resolved.server_id, resolved.timestamp);
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
}
