//! The engine: a builder and the run loop (with a leader latch: wait to
//! lead, stream while leading, stop the moment leadership is in doubt, wait
//! again), each term's setup in named steps. The application's consumer and
//! the committer are in `commit`, a term's delivery in `delivery`.

mod commit;
mod delivery;

use std::sync::{Arc, Mutex};
use std::time::Instant;

use sluice_binlog::BinlogPosition;
use sluice_encode::debezium::DebeziumEncoder;
use sluice_ha::latch::{LatchConfig, LeaderLatch};
use sluice_ha::session::{ZkConfig, ZkSession};
use sluice_instance::stream::{ChangeStream, StreamError};
use sluice_source::position::{ResumePosition, StartPosition};
use sluice_source::{ConnectGate, RowImages, SourceConfig};
use tokio::sync::watch;

pub use commit::{BatchConsumer, Committer, ConsumerError};

use crate::config::{EngineConfig, StartAt};
use crate::history_store::SourceContext;
use crate::record::{ChangeRecord, Delivered, RecordOffset};
use crate::schema_changes::{DdlNotes, Heartbeat, JsonEncoder, NotingHistory};
use crate::snapshot;
use crate::snapshot_mark::SnapshotMark;
use crate::stores::{self, Fence};
use crate::typed::{TypedEncoder, TypedRecord};
use crate::{EngineError, OffsetKey, OffsetStore, SourceOffset};
use commit::{lock, EachRecord, Offsets, SharedOffsets};
use delivery::{SinkEnd, SinkError, SnapshotRun, Term};

/// The application's consumer, of one of the two record forms.
enum Consumer {
    Json(Box<dyn BatchConsumer<ChangeRecord>>),
    Typed(Box<dyn BatchConsumer<TypedRecord>>),
}

/// What the application gets when the engine stops.
pub type CompletionCallback = Box<dyn FnOnce(&Result<(), EngineError>) + Send>;

/// Builds an [`Engine`].
pub struct EngineBuilder {
    config: Option<Result<EngineConfig, EngineError>>,
    consumer: Option<Consumer>,
    on_complete: Option<CompletionCallback>,
}

impl EngineBuilder {
    /// Debezium properties (see [`EngineConfig::from_properties`]).
    pub fn properties<K: AsRef<str>, V: AsRef<str>>(
        mut self,
        properties: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        self.config = Some(EngineConfig::from_properties(properties));
        self
    }

    /// A configuration built by the program.
    pub fn config(mut self, config: EngineConfig) -> Self {
        self.config = Some(Ok(config));
        self
    }

    /// Each record to `consumer`, in order; a record counts as processed
    /// once the function returned `Ok`.
    pub fn notifying(
        mut self,
        consumer: impl FnMut(ChangeRecord) -> Result<(), ConsumerError> + Send + 'static,
    ) -> Self {
        self.consumer = Some(Consumer::Json(Box::new(EachRecord(consumer))));
        self
    }

    /// Whole batches to `consumer`, which marks what it processed.
    pub fn batch_consumer(mut self, consumer: impl BatchConsumer<ChangeRecord> + 'static) -> Self {
        self.consumer = Some(Consumer::Json(Box::new(consumer)));
        self
    }

    /// Each change to `consumer` as a [`TypedRecord`] (Rust values, no
    /// JSON), in order; a record counts as processed once the function
    /// returned `Ok`. Offsets, commits, the latch and the delivery
    /// guarantee are those of [`notifying`](Self::notifying).
    pub fn notifying_typed(
        mut self,
        consumer: impl FnMut(TypedRecord) -> Result<(), ConsumerError> + Send + 'static,
    ) -> Self {
        self.consumer = Some(Consumer::Typed(Box::new(EachRecord(consumer))));
        self
    }

    /// Whole batches of [`TypedRecord`]s to `consumer`, which marks what it
    /// processed, as with [`batch_consumer`](Self::batch_consumer).
    pub fn typed_batch_consumer(
        mut self,
        consumer: impl BatchConsumer<TypedRecord> + 'static,
    ) -> Self {
        self.consumer = Some(Consumer::Typed(Box::new(consumer)));
        self
    }

    /// Called once when the engine stops, with how it stopped.
    pub fn on_complete(
        mut self,
        callback: impl FnOnce(&Result<(), EngineError>) + Send + 'static,
    ) -> Self {
        self.on_complete = Some(Box::new(callback));
        self
    }

    pub fn build(self) -> Result<Engine, EngineError> {
        let config = self.config.ok_or_else(|| EngineError::Config {
            property: "name".into(),
            message: "no properties given to the builder".into(),
        })??;
        let consumer = self.consumer.ok_or_else(|| EngineError::Config {
            property: "consumer".into(),
            message: "no consumer: call notifying, batch_consumer, notifying_typed or typed_batch_consumer".into(),
        })?;
        for warning in &config.warnings {
            tracing::warn!(engine = %config.name, "{warning}");
        }
        let (stop, stopped) = watch::channel(false);
        Ok(Engine {
            config,
            consumer,
            on_complete: self.on_complete,
            stop: Arc::new(stop),
            stopped,
        })
    }
}

/// Stops a running engine from anywhere.
#[derive(Debug, Clone)]
pub struct EngineHandle {
    stop: Arc<watch::Sender<bool>>,
}

impl EngineHandle {
    /// Asks the engine to stop: it commits what was marked processed,
    /// leaves the leader latch and [`Engine::run`] returns.
    pub fn close(&self) {
        self.stop.send_replace(true);
    }
}

/// An engine; see the crate documentation. Single use: [`Engine::run`]
/// consumes it.
pub struct Engine {
    config: EngineConfig,
    consumer: Consumer,
    on_complete: Option<CompletionCallback>,
    stop: Arc<watch::Sender<bool>>,
    stopped: watch::Receiver<bool>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("name", &self.config.name)
            .finish_non_exhaustive()
    }
}

/// How a leadership term (or a run without latch) ended.
enum TermEnd {
    Closed,
    LostLeadership,
}

impl Engine {
    pub fn builder() -> EngineBuilder {
        EngineBuilder {
            config: None,
            consumer: None,
            on_complete: None,
        }
    }

    pub fn handle(&self) -> EngineHandle {
        EngineHandle {
            stop: self.stop.clone(),
        }
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Runs until [`EngineHandle::close`] or an error: with a leader latch,
    /// streams in every term this process leads; without, at once.
    pub async fn run(mut self) -> Result<(), EngineError> {
        let result = self.run_terms().await;
        match &result {
            Ok(()) => tracing::info!(engine = %self.config.name, "engine stopped"),
            Err(e) => tracing::error!(engine = %self.config.name, error = %e, "engine failed"),
        }
        if let Some(callback) = self.on_complete.take() {
            callback(&result);
        }
        result
    }

    async fn run_terms(&mut self) -> Result<(), EngineError> {
        let Some(settings) = self.config.latch.clone() else {
            return self.run_term(None).await.map(|_| ());
        };
        let zk =
            ZkConfig::new(settings.servers.clone()).with_session_timeout(settings.session_timeout);
        let session = ZkSession::connect(zk).await?;
        let latch = Arc::new(LeaderLatch::start(
            &session,
            LatchConfig::at(&settings.path)?.with_id(settings.id.clone()),
        ));
        let result = loop {
            let mut leader = latch.subscribe();
            let mut stop = self.stopped.clone();
            tokio::select! {
                _ = stop.wait_for(|s| *s) => break Ok(()),
                led = leader.wait_for(|l| *l) => if led.is_err() { break Err(EngineError::Ha(sluice_ha::HaError::Closed)) },
            }
            if !latch.has_leadership() {
                continue;
            }
            tracing::info!(
                engine = %self.config.name,
                node = ?latch.node_path(),
                "leading the latch {}: streaming starts",
                settings.path
            );
            match self.run_term(Some(latch.clone())).await {
                Ok(TermEnd::Closed) => break Ok(()),
                Ok(TermEnd::LostLeadership) => {
                    tracing::warn!(engine = %self.config.name, "leadership lost: streaming stopped; waiting to lead again");
                }
                Err(e) => break Err(e),
            }
        };
        match Arc::try_unwrap(latch) {
            Ok(latch) => {
                if let Err(e) = latch.close().await {
                    tracing::warn!(error = %e, "leaving the leader latch");
                }
            }
            Err(_) => tracing::warn!("the leader latch is still in use: left when dropped"),
        }
        session.close().await;
        result
    }

    /// One leadership term: open the stores, resume from the committed
    /// offset, stream until closed, leadership lost or an error.
    async fn run_term(&mut self, latch: Option<Arc<LeaderLatch>>) -> Result<TermEnd, EngineError> {
        let config = &self.config;
        let fence = fence_of(&latch);
        let key = OffsetKey::new(config.name.clone(), config.debezium.topic_prefix.clone());
        // The source of each DDL (server id, time, GTIDs) for the positions
        // of its history record, as Debezium's carry them.
        let source_context = SourceContext::new();
        let (store, stored, history) =
            open_stores(config, fence, key.clone(), source_context.clone()).await?;
        let mut offsets = Offsets {
            key,
            store,
            policy: config.commit_policy,
            staged: None,
            committed: None,
            last_commit: Instant::now(),
            failed: None,
            fenced: false,
            snapshot_mark: None,
        };
        // The initial snapshot: resumed where a stored offset says it was,
        // or started when there is no offset (from the end of the binlog
        // now, before its first chunk is read).
        let snapshot_from: Option<Option<SnapshotMark>> = match (&stored, &config.start) {
            (Some(o), StartAt::Initial) => SnapshotMark::of(o).map(Some),
            (None, StartAt::Initial) => Some(None),
            _ => None,
        };
        let fresh_start = match (&stored, &snapshot_from) {
            (None, Some(_)) => Some(binlog_end(&config.connect).await?),
            _ => None,
        };
        let (start, skip) = resume_at(config, &stored, &fresh_start, &mut offsets);
        let source = source_config(config, start, &latch);
        // Schema change records come from what the history records of each
        // DDL (JSON records only: typed ones have no such record).
        let notes = (config.include_schema_changes && matches!(self.consumer, Consumer::Json(_)))
            .then(|| Arc::new(DdlNotes::default()));
        let stream = change_stream(config, source, history, &notes, &stored, source_context)?;
        let start_offset = start_offset(&stored, &fresh_start);
        let snapshot = snapshot_run(config, &snapshot_from, &start_offset, &mut offsets);
        let policy = offsets.policy;
        let offsets: SharedOffsets = Arc::new(Mutex::new(offsets));
        let term = Term {
            offsets: offsets.clone(),
            policy,
            max_batch: config.max_batch_size,
            latch: latch.clone(),
            skip,
            stopped: self.stopped.clone(),
            threads: config.encode_threads,
            start_offset,
        };
        let (streamed, sink) =
            stream_to(&mut self.consumer, config, term, stream, snapshot, notes).await;
        let fenced = lock(&offsets).fenced;
        let lost_leadership =
            sink.lost || fenced || latch.as_ref().is_some_and(|l| !l.has_leadership());
        let end = term_end(streamed, sink, lost_leadership);
        // A clean stop writes what was marked; a lost term cannot (the
        // fence refuses, and the next leader has started from the last
        // commit anyway).
        if matches!(end, Ok(TermEnd::Closed)) {
            blocking("the final offset commit", move || lock(&offsets).commit()).await?;
        }
        end
    }
}

/// The fence of a term's ZooKeeper stores: the latch node while this
/// process leads.
fn fence_of(latch: &Option<Arc<LeaderLatch>>) -> Option<Fence> {
    latch.as_ref().map(|l| {
        let l = l.clone();
        Arc::new(move || {
            if l.has_leadership() {
                l.node_path()
            } else {
                None
            }
        }) as Fence
    })
}

/// A term's stores: the offset store, the offset it holds, the history
/// store.
type Stores = (
    Box<dyn OffsetStore>,
    Option<SourceOffset>,
    Box<dyn sluice_schema::SchemaHistoryStore>,
);

/// Opens the offset store, loads the offset stored under `key`, and opens
/// the history store.
async fn open_stores(
    config: &EngineConfig,
    fence: Option<Fence>,
    key: OffsetKey,
    context: Arc<SourceContext>,
) -> Result<Stores, EngineError> {
    let c = config.clone();
    blocking("opening the stores", move || {
        let mut store = stores::open_offset_store(&c, fence.clone())?;
        let stored = store.load(&key)?;
        Ok((
            store,
            stored,
            stores::open_history_store(&c, fence, context)?,
        ))
    })
    .await
}

/// Where the stream starts and what of its first transaction was delivered
/// before: after the stored offset (then the committed one), else where
/// the configuration says.
fn resume_at(
    config: &EngineConfig,
    stored: &Option<SourceOffset>,
    fresh_start: &Option<BinlogPosition>,
    offsets: &mut Offsets,
) -> (StartPosition, Option<Delivered>) {
    match stored {
        Some(o) => {
            tracing::info!(engine = %config.name, offset = %o.to_json(), store = %offsets.store.location(), "resuming from the committed offset");
            offsets.committed = Some(RecordOffset::at(Arc::new(o.clone())));
            (
                StartPosition::FilePos {
                    file: o.file.clone(),
                    pos: o.pos.max(4),
                },
                o.is_inside_transaction().then_some(Delivered {
                    event: o.event,
                    row: o.row,
                }),
            )
        }
        None => (
            match &config.start {
                StartAt::Initial => match fresh_start {
                    Some(at) => StartPosition::FilePos {
                        file: at.file.clone(),
                        pos: at.offset,
                    },
                    None => StartPosition::Earliest,
                },
                StartAt::Earliest => StartPosition::Earliest,
                StartAt::Latest => StartPosition::Latest,
                StartAt::Position(p) => p.clone(),
            },
            None,
        ),
    }
}

/// The source of a term's stream from `start`, connecting only while this
/// process leads.
fn source_config(
    config: &EngineConfig,
    start: StartPosition,
    latch: &Option<Arc<LeaderLatch>>,
) -> SourceConfig {
    let gate = match latch {
        Some(l) => {
            let l = l.clone();
            Some(ConnectGate::new(move || l.has_leadership()))
        }
        None => None,
    };
    SourceConfig {
        connect: config.connect.clone(),
        start,
        server_id: config.server_id,
        connect_gate: gate,
        // As Debezium's MySQL connector: its events carry whole rows.
        row_images: RowImages::full_only(
            "the embedded engine writes Debezium's change events, whose before and after are whole rows; Debezium's MySQL connector refuses other row images too",
            "",
        ),
        ..Default::default()
    }
}

/// The term's change stream: the selected tables of `source`, decoded with
/// the schema tracked in `history` (which notes each DDL in `notes`, if
/// any, for schema change records).
fn change_stream(
    config: &EngineConfig,
    source: SourceConfig,
    history: Box<dyn sluice_schema::SchemaHistoryStore>,
    notes: &Option<Arc<DdlNotes>>,
    stored: &Option<SourceOffset>,
    source_context: Arc<SourceContext>,
) -> Result<ChangeStream, EngineError> {
    let everything =
        sluice_canal::TableFilter::new(".*\\..*").map_err(|e| EngineError::Config {
            property: "table.include.list".into(),
            message: e.to_string(),
        })?;
    let history: Box<dyn sluice_schema::SchemaHistoryStore> = match notes {
        Some(n) => Box::new(NotingHistory::new(
            history,
            config.debezium.topic_prefix.clone(),
            n.clone(),
            stored
                .as_ref()
                .map(|o| sluice_schema::BinlogPosition::new(o.file.clone(), o.pos)),
        )),
        None => history,
    };
    let schema =
        sluice_instance::schema_hook::tracked_schema_in(history, &config.connect, everything)
            .map_err(|message| EngineError::Store {
                location: "schema history".into(),
                message,
            })?;
    let schema = Box::new(stores::NotingSource {
        inner: schema,
        context: source_context,
    });
    Ok(ChangeStream::new(source, schema)
        .with_filter(config.tables.clone())
        .with_columns(config.column_rules()))
}

/// Where the stream starts, for the offsets of snapshot reads made before
/// its first transaction.
fn start_offset(
    stored: &Option<SourceOffset>,
    fresh_start: &Option<BinlogPosition>,
) -> Option<RecordOffset> {
    match (stored, fresh_start) {
        (Some(o), _) => Some(RecordOffset::at(Arc::new(o.clone()))),
        (None, Some(at)) => Some(RecordOffset::at(Arc::new(SourceOffset::at(at)))),
        _ => None,
    }
}

/// The initial snapshot to run beside the stream, if one is due (its place
/// goes into the offsets from the start).
fn snapshot_run(
    config: &EngineConfig,
    snapshot_from: &Option<Option<SnapshotMark>>,
    start_offset: &Option<RecordOffset>,
    offsets: &mut Offsets,
) -> Option<SnapshotRun> {
    match (snapshot_from, start_offset) {
        (Some(resume), Some(at)) => {
            offsets.snapshot_mark = Some(resume.clone().unwrap_or(SnapshotMark {
                table: None,
                last_key: None,
            }));
            tracing::info!(engine = %config.name, resume = ?resume, "snapshot.mode=initial: reading the existing rows beside the stream");
            Some(SnapshotRun {
                reader: snapshot::Reader {
                    connect: config.connect.clone(),
                    tables: config.tables.clone(),
                    columns: config.column_rules(),
                    chunk_size: config.snapshot_chunk_size,
                    resume: resume.clone(),
                },
                start: snapshot::binlog_key(&at.base.file, at.base.pos),
            })
        }
        _ => None,
    }
}

/// Streams the term into the application's consumer, with the encoder of
/// its record form (and the snapshot's reader, if any, with the same).
async fn stream_to(
    consumer: &mut Consumer,
    config: &EngineConfig,
    term: Term,
    stream: ChangeStream,
    snapshot: Option<SnapshotRun>,
    notes: Option<Arc<DdlNotes>>,
) -> (Option<Result<ResumePosition, StreamError>>, SinkEnd) {
    let debezium = config.debezium.clone();
    let (heartbeat, heartbeat_prefix) = (
        config.heartbeat_interval,
        config.heartbeat_topic_prefix.clone(),
    );
    match consumer {
        Consumer::Json(consumer) => {
            let feed = snapshot.map(|s| s.start(DebeziumEncoder::new(debezium.clone())));
            term.stream(stream, consumer.as_mut(), feed, || {
                JsonEncoder::new(DebeziumEncoder::new(debezium.clone()), notes.clone())
                    .with_heartbeat(heartbeat.map(|every| {
                        Heartbeat::new(
                            every,
                            &heartbeat_prefix,
                            &debezium.topic_prefix,
                            debezium.schemas_enable,
                        )
                    }))
            })
            .await
        }
        Consumer::Typed(consumer) => {
            let skipped = debezium.skipped_operations;
            let masks = debezium.masks.clone();
            let feed = snapshot.map(|s| s.start(TypedEncoder::new(skipped, masks.clone())));
            term.stream(stream, consumer.as_mut(), feed, move || {
                TypedEncoder::new(skipped, masks.clone())
            })
            .await
        }
    }
}

/// How a term ended, from how its stream and its delivery ended.
fn term_end(
    streamed: Option<Result<ResumePosition, StreamError>>,
    mut sink: SinkEnd,
    lost_leadership: bool,
) -> Result<TermEnd, EngineError> {
    match streamed {
        // An idle commit that failed: as a failed commit of a batch.
        _ if sink.commit_failed.is_some() => match sink.commit_failed.take() {
            Some(e) if !lost_leadership => Err(e),
            _ => Ok(TermEnd::LostLeadership),
        },
        Some(Ok(_)) => Ok(TermEnd::Closed),
        Some(Err(StreamError::Sink { file, pos, .. })) if sink.failed.is_some() => {
            match sink.failed.take() {
                Some(SinkError::Consumer(source)) => Err(EngineError::Consumer {
                    at: format!("{file}:{pos}"),
                    source,
                }),
                Some(SinkError::Commit(e)) => Err(e),
                _ => Ok(TermEnd::LostLeadership),
            }
        }
        // A stream that fails once leadership is gone failed because of
        // it (the next leader's dump ended ours, the connect gate
        // refused): the term ends, not the engine.
        Some(Err(e)) if lost_leadership => {
            tracing::info!(error = %e, "stream ended after leadership was lost");
            Ok(TermEnd::LostLeadership)
        }
        Some(Err(e)) => Err(EngineError::from(e)),
        None if lost_leadership => Ok(TermEnd::LostLeadership),
        None => Ok(TermEnd::Closed),
    }
}

/// The end of the binlog now: where a stream with a fresh snapshot starts.
async fn binlog_end(
    connect: &sluice_source::ConnectOptions,
) -> Result<BinlogPosition, EngineError> {
    let failed = |e: sluice_source::SourceError| EngineError::Stream(StreamError::Source(e));
    let mut conn = sluice_source::Conn::connect(connect)
        .await
        .map_err(failed)?;
    let (file, pos, _) = sluice_source::replica::master_status(&mut conn)
        .await
        .map_err(failed)?;
    Ok(BinlogPosition::new(file, pos))
}

/// Runs `work` (store I/O, synchronous) off the runtime's worker threads.
async fn blocking<T: Send + 'static>(
    what: &str,
    work: impl FnOnce() -> Result<T, EngineError> + Send + 'static,
) -> Result<T, EngineError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| EngineError::Store {
            location: what.to_string(),
            message: e.to_string(),
        })?
}
