//! The engine: a builder, the application's consumer, the committer, and
//! the run loop (with a leader latch: wait to lead, stream while leading,
//! stop the moment leadership is in doubt, wait again).

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use sluice_encode::debezium::DebeziumEncoder;
use sluice_ha::latch::{LatchConfig, LeaderLatch};
use sluice_ha::session::{ZkConfig, ZkSession};
use sluice_instance::stream::{ChangeSink, ChangeStream, Interleave, StreamError};
use sluice_source::position::StartPosition;
use sluice_source::{ConnectGate, RowImages, SourceConfig};
use tokio::sync::watch;

use crate::config::{CommitPolicy, EngineConfig, StartAt};
use crate::history_store::SourceContext;
use crate::record::{
    ChangeRecord, Delivered, EngineRecord, OffsetEncoder, Output, RecordOffset, Unplaced,
};
use crate::schema_changes::{DdlNotes, Heartbeat, JsonEncoder, NotingHistory};
use crate::snapshot::{self, Chunk, Due, Feed, SnapshotMark};
use crate::stores::{self, Fence};
use crate::typed::{TypedEncoder, TypedRecord};
use crate::{EngineError, OffsetKey, OffsetStore, SourceOffset};

/// An error the application's consumer returns: the engine stops with it.
pub type ConsumerError = Box<dyn std::error::Error + Send + Sync>;

/// The application's consumer of whole batches (Debezium's
/// `ChangeConsumer`): it calls [`Committer::mark_processed`] for each record
/// it has durably handled and [`Committer::mark_batch_finished`] at the end.
/// `R` is [`ChangeRecord`] (Debezium JSON) or [`TypedRecord`].
pub trait BatchConsumer<R = ChangeRecord>: Send {
    fn handle_batch(
        &mut self,
        records: Vec<R>,
        committer: &mut Committer<'_>,
    ) -> Result<(), ConsumerError>;
}

impl<R, F> BatchConsumer<R> for F
where
    F: FnMut(Vec<R>, &mut Committer<'_>) -> Result<(), ConsumerError> + Send,
{
    fn handle_batch(
        &mut self,
        records: Vec<R>,
        committer: &mut Committer<'_>,
    ) -> Result<(), ConsumerError> {
        self(records, committer)
    }
}

/// A per-record consumer (Debezium's `notifying(Consumer)`): each record is
/// marked processed once the function returns, the batch finished after
/// the last.
struct EachRecord<F>(F);

impl<R, F> BatchConsumer<R> for EachRecord<F>
where
    R: EngineRecord,
    F: FnMut(R) -> Result<(), ConsumerError> + Send,
{
    fn handle_batch(
        &mut self,
        records: Vec<R>,
        committer: &mut Committer<'_>,
    ) -> Result<(), ConsumerError> {
        for r in records {
            // A pause inside a batch must not let the rest reach the
            // application once another process leads.
            if !committer.still_leading() {
                return Err("leadership lost in the middle of a batch".into());
            }
            let offset = r.offset().clone();
            (self.0)(r)?;
            committer.mark_offset(offset);
        }
        committer.mark_batch_finished()?;
        Ok(())
    }
}

/// The application's consumer, of one of the two record forms.
enum Consumer {
    Json(Box<dyn BatchConsumer<ChangeRecord>>),
    Typed(Box<dyn BatchConsumer<TypedRecord>>),
}

/// Staged and committed offsets of one leadership term.
struct Offsets {
    key: OffsetKey,
    store: Box<dyn OffsetStore>,
    policy: crate::config::CommitPolicy,
    /// The offset of the last record marked processed.
    staged: Option<RecordOffset>,
    committed: Option<RecordOffset>,
    last_commit: Instant,
    /// A commit that failed: the engine stops with it even when the
    /// consumer ignored the error.
    failed: Option<String>,
    /// A commit was refused because this process no longer leads: the
    /// term ends (not the engine).
    fenced: bool,
    /// Where the initial snapshot is while it runs: staged offsets of the
    /// stream's records carry it, so a restart resumes the snapshot there.
    snapshot_mark: Option<SnapshotMark>,
}

/// One term's offsets, shared by the delivery and the idle-commit timer.
type SharedOffsets = Arc<Mutex<Offsets>>;

/// The offsets, even if a holder panicked: they are plain values, and the
/// store reports its own failures.
fn lock(offsets: &SharedOffsets) -> MutexGuard<'_, Offsets> {
    offsets.lock().unwrap_or_else(|p| p.into_inner())
}

impl Offsets {
    fn commit(&mut self) -> Result<(), EngineError> {
        let Some(staged) = self.staged.clone() else {
            return Ok(());
        };
        if self.committed.as_ref() == Some(&staged) {
            return Ok(());
        }
        match self.store.commit(&self.key, &staged.get()) {
            Ok(()) => {
                self.committed = Some(staged);
                self.last_commit = Instant::now();
                Ok(())
            }
            Err(e) => {
                if matches!(e, EngineError::Fenced { .. }) {
                    self.fenced = true;
                } else {
                    self.failed = Some(e.to_string());
                }
                Err(e)
            }
        }
    }
}

/// Hands a batch's offsets to the offset store (Debezium's
/// `RecordCommitter`).
pub struct Committer<'a> {
    offsets: &'a mut Offsets,
    /// Where the stream is after this batch, when the batch ends a
    /// transaction: staged too once every record was marked.
    batch_end: Option<RecordOffset>,
    batch_len: usize,
    marked: usize,
    latch: Option<&'a LeaderLatch>,
}

impl Committer<'_> {
    /// Whether this process still leads (always true without a latch),
    /// checked now: the session connected, its lease unexpired. The engine
    /// checks it before handing over a batch; a consumer whose side effect
    /// must never overlap another leader's checks it again right before
    /// making it, because a process paused in between (SIGSTOP, a frozen
    /// VM) resumes in the middle of the batch after another took over.
    pub fn still_leading(&self) -> bool {
        self.latch.is_none_or(|l| l.has_leadership())
    }

    /// `record` is durably handled: its offset is staged (later records
    /// replace it). Records must be marked in order; marking a later one
    /// first commits past the earlier ones.
    pub fn mark_processed<R: EngineRecord>(&mut self, record: &R) {
        self.mark_offset(record.offset().clone());
    }

    fn mark_offset(&mut self, offset: RecordOffset) {
        self.marked += 1;
        self.offsets.staged = Some(offset.with_snapshot(self.offsets.snapshot_mark.as_ref()));
    }

    /// The batch is handled: the staged offset is written when the commit
    /// policy says so. An error here stops the engine.
    pub fn mark_batch_finished(&mut self) -> Result<(), EngineError> {
        if self.marked >= self.batch_len {
            if let Some(end) = self.batch_end.take() {
                self.offsets.staged = Some(end.with_snapshot(self.offsets.snapshot_mark.as_ref()));
            }
        }
        if self.offsets.policy.due(self.offsets.last_commit.elapsed()) {
            self.offsets.commit()?;
        }
        Ok(())
    }

    /// The offset last committed in this leadership term.
    pub fn committed(&self) -> Option<SourceOffset> {
        self.offsets.committed.as_ref().map(RecordOffset::get)
    }
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
        let fence: Option<Fence> = latch.as_ref().map(|l| {
            let l = l.clone();
            Arc::new(move || {
                if l.has_leadership() {
                    l.node_path()
                } else {
                    None
                }
            }) as Fence
        });
        let key = OffsetKey::new(config.name.clone(), config.debezium.topic_prefix.clone());
        // The source of each DDL (server id, time, GTIDs) for the positions
        // of its history record, as Debezium's carry them.
        let source_context = SourceContext::new();
        let (store, stored, history) = {
            let (c, f, k) = (config.clone(), fence.clone(), key.clone());
            let context = source_context.clone();
            blocking("opening the stores", move || {
                let mut store = stores::open_offset_store(&c, f.clone())?;
                let stored = store.load(&k)?;
                Ok((store, stored, stores::open_history_store(&c, f, context)?))
            })
            .await?
        };
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
        let (start, skip) = match &stored {
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
                    StartAt::Initial => match &fresh_start {
                        Some((file, pos)) => StartPosition::FilePos {
                            file: file.clone(),
                            pos: *pos,
                        },
                        None => StartPosition::Earliest,
                    },
                    StartAt::Earliest => StartPosition::Earliest,
                    StartAt::Latest => StartPosition::Latest,
                    StartAt::Position(p) => p.clone(),
                },
                None,
            ),
        };
        let gate = match &latch {
            Some(l) => {
                let l = l.clone();
                Some(ConnectGate::new(move || l.has_leadership()))
            }
            None => None,
        };
        let source = SourceConfig {
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
        };
        let everything =
            sluice_canal::TableFilter::new(".*\\..*").map_err(|e| EngineError::Config {
                property: "table.include.list".into(),
                message: e.to_string(),
            })?;
        // Schema change records come from what the history records of each
        // DDL (JSON records only: typed ones have no such record).
        let notes = (config.include_schema_changes && matches!(self.consumer, Consumer::Json(_)))
            .then(|| Arc::new(DdlNotes::default()));
        let history: Box<dyn sluice_schema::SchemaHistoryStore> = match &notes {
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
        let stream = ChangeStream::new(source, schema)
            .with_filter(config.tables.clone())
            .with_columns(config.column_rules());

        // Where the stream starts, for the offsets of snapshot reads made
        // before its first transaction.
        let start_offset = match (&stored, &fresh_start) {
            (Some(o), _) => Some(RecordOffset::at(Arc::new(o.clone()))),
            (None, Some((file, pos))) => Some(RecordOffset::at(Arc::new(SourceOffset {
                file: file.clone(),
                pos: *pos,
                ..Default::default()
            }))),
            _ => None,
        };
        let snapshot = match (&snapshot_from, &start_offset) {
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
        };
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
        let debezium = config.debezium.clone();
        let (heartbeat, heartbeat_prefix) = (
            config.heartbeat_interval,
            config.heartbeat_topic_prefix.clone(),
        );
        let (streamed, mut sink) = match &mut self.consumer {
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
        };
        let fenced = lock(&offsets).fenced;
        let lost_leadership =
            sink.lost || fenced || latch.as_ref().is_some_and(|l| !l.has_leadership());
        let end = match streamed {
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
        };
        // A clean stop writes what was marked; a lost term cannot (the
        // fence refuses, and the next leader has started from the last
        // commit anyway).
        if matches!(end, Ok(TermEnd::Closed)) {
            blocking("the final offset commit", move || lock(&offsets).commit()).await?;
        }
        end
    }
}

/// The end of the binlog now: where a stream with a fresh snapshot starts.
async fn binlog_end(connect: &sluice_source::ConnectOptions) -> Result<(String, u64), EngineError> {
    let failed = |e: sluice_source::SourceError| EngineError::Stream(StreamError::Source(e));
    let mut conn = sluice_source::Conn::connect(connect)
        .await
        .map_err(failed)?;
    let (file, pos, _) = sluice_source::replica::master_status(&mut conn)
        .await
        .map_err(failed)?;
    Ok((file, pos))
}

/// An initial snapshot to run beside a term's stream.
struct SnapshotRun {
    reader: snapshot::Reader,
    /// Where the stream starts.
    start: (u64, u64),
}

impl SnapshotRun {
    /// Starts the reader: its chunks go to the stream through the feed.
    fn start<E: snapshot::ReadEncoder>(self, encoder: E) -> RunningSnapshot<E::Pending> {
        let feed = Arc::new(Feed::new(self.start));
        let reader = tokio::spawn(self.reader.run(encoder, feed.clone()));
        let abort = reader.abort_handle();
        // A reader that panicked fails the stream rather than leave it
        // waiting for a chunk.
        let watched = feed.clone();
        tokio::spawn(async move {
            if let Err(j) = reader.await {
                if j.is_panic() {
                    watched.fail("the snapshot's reader panicked".into());
                }
            }
        });
        RunningSnapshot {
            feed,
            reader: abort,
        }
    }
}

/// A snapshot's reader at work, and its feed.
struct RunningSnapshot<P> {
    feed: Arc<Feed<P>>,
    reader: tokio::task::AbortHandle,
}

impl<P> Drop for RunningSnapshot<P> {
    fn drop(&mut self) {
        self.feed.close();
        self.reader.abort();
    }
}

/// Hands the snapshot's chunks to the sink at their points.
struct SnapshotHook<P> {
    feed: Arc<Feed<P>>,
}

impl<'a, P, R> Interleave<ConsumerSink<'a, R>> for SnapshotHook<P>
where
    P: Unplaced<Record = R>,
    R: EngineRecord,
{
    fn before_transaction(
        &mut self,
        file: &str,
        end: u64,
        sink: &mut ConsumerSink<'a, R>,
    ) -> impl std::future::Future<Output = Result<(), StreamError>> + Send {
        let at = snapshot::binlog_key(file, end);
        let feed = self.feed.clone();
        let place = (file.to_string(), end);
        async move {
            loop {
                let changed = feed.changed();
                tokio::pin!(changed);
                changed.as_mut().enable();
                match feed.take_due(at, true) {
                    Due::Chunk(c) => sink.write_chunk(c, &place)?,
                    Due::Wait => changed.await,
                    Due::Nothing => return Ok(()),
                    Due::Failed(m) => return Err(snapshot_failed(m)),
                }
            }
        }
    }

    fn ready(&mut self, file: &str, pos: u64) -> impl std::future::Future<Output = ()> + Send {
        let at = snapshot::binlog_key(file, pos);
        let feed = self.feed.clone();
        async move {
            loop {
                let changed = feed.changed();
                tokio::pin!(changed);
                changed.as_mut().enable();
                if feed.has_ready(at) {
                    return;
                }
                changed.await;
            }
        }
    }

    fn write_ready(
        &mut self,
        file: &str,
        pos: u64,
        sink: &mut ConsumerSink<'a, R>,
    ) -> Result<(), StreamError> {
        match self.feed.take_due(snapshot::binlog_key(file, pos), false) {
            Due::Chunk(c) => sink.write_chunk(c, &(file.to_string(), pos)),
            Due::Failed(m) => Err(snapshot_failed(m)),
            Due::Wait | Due::Nothing => Ok(()),
        }
    }
}

fn snapshot_failed(message: String) -> StreamError {
    StreamError::Worker(format!("initial snapshot: {message}"))
}

/// What one term's stream delivers with, whatever the record form.
struct Term {
    offsets: SharedOffsets,
    policy: CommitPolicy,
    max_batch: usize,
    latch: Option<Arc<LeaderLatch>>,
    skip: Option<Delivered>,
    stopped: watch::Receiver<bool>,
    threads: usize,
    /// Where the stream starts (the offset snapshot reads before its first
    /// transaction carry).
    start_offset: Option<RecordOffset>,
}

/// How a term's delivery ended: whether leadership was found lost, and why
/// the last delivery failed.
struct SinkEnd {
    lost: bool,
    failed: Option<SinkError>,
    /// An idle commit failed (the timer's, between batches).
    commit_failed: Option<EngineError>,
}

impl Term {
    /// Streams into `consumer` until the stream ends, the engine is closed
    /// or leadership is lost (`None` for the last two).
    async fn stream<E, F>(
        self,
        stream: ChangeStream,
        consumer: &mut dyn BatchConsumer<<E::Output as Unplaced>::Record>,
        snapshot: Option<RunningSnapshot<E::Output>>,
        mut make_encoder: F,
    ) -> (
        Option<Result<sluice_source::position::ResumePosition, StreamError>>,
        SinkEnd,
    )
    where
        E: sluice_events::Encoder + Send + 'static,
        E::Output: Unplaced,
        F: FnMut() -> E,
    {
        let mut sink = ConsumerSink {
            consumer,
            offsets: self.offsets.clone(),
            max_batch: self.max_batch,
            latch: self.latch.clone(),
            lost: false,
            skip: self.skip,
            failed: None,
            position: self.start_offset,
            held: snapshot.as_ref().map(|s| s.feed.held.clone()),
        };
        let mut stop = self.stopped;
        let mut leader = self.latch.as_ref().map(|l| l.subscribe());
        let lost = async {
            match &mut leader {
                Some(rx) => {
                    let _ = rx.wait_for(|l| !*l).await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        let threads = self.threads;
        let idle_commits = idle_commits(self.offsets.clone(), self.policy);
        let mut commit_failed = None;
        let streamed = {
            let run = async {
                if let Some(s) = &snapshot {
                    // Chunks go between transactions in stream order: one
                    // encoding thread while the snapshot runs.
                    let mut hook = SnapshotHook {
                        feed: s.feed.clone(),
                    };
                    let mut encoder = OffsetEncoder::new(make_encoder()).tagging_tables();
                    stream
                        .run_interleaved(&mut encoder, &mut sink, &mut hook)
                        .await
                } else if threads > 1 {
                    stream
                        .run_parallel(threads, || OffsetEncoder::new(make_encoder()), &mut sink)
                        .await
                } else {
                    let mut encoder = OffsetEncoder::new(make_encoder());
                    stream.run(&mut encoder, &mut sink).await
                }
            };
            tokio::select! {
                r = run => Some(r),
                _ = stop.wait_for(|s| *s) => None,
                _ = lost => None,
                e = idle_commits => {
                    commit_failed = Some(e);
                    None
                }
            }
        };
        let end = SinkEnd {
            lost: sink.lost,
            failed: sink.failed.take(),
            commit_failed,
        };
        (streamed, end)
    }
}

/// Commits what was marked processed once `offset.flush.interval.ms` has
/// passed since the last commit, batch or no batch (Debezium's engine
/// finishes an empty batch on every idle poll, which does the same): an
/// idle stream does not leave its last records uncommitted. Returns only
/// when a commit fails.
async fn idle_commits(offsets: SharedOffsets, policy: CommitPolicy) -> EngineError {
    let every = match policy {
        CommitPolicy::Periodic(every) if !every.is_zero() => every,
        // Every batch commits: nothing is ever left staged.
        _ => return std::future::pending().await,
    };
    let mut wait = every;
    loop {
        tokio::time::sleep(wait).await;
        let o = offsets.clone();
        let done = tokio::task::spawn_blocking(move || {
            let mut o = lock(&o);
            let since = o.last_commit.elapsed();
            if !o.policy.due(since) {
                return Ok(every - since);
            }
            o.commit()?;
            // Nothing new to commit leaves the clock as it was: look again
            // a whole interval later.
            Ok(every
                .saturating_sub(o.last_commit.elapsed())
                .max(every / 4)
                .min(every))
        })
        .await;
        match done {
            Ok(Ok(next)) => wait = next.max(Duration::from_millis(10)),
            Ok(Err(e)) => return e,
            Err(e) => {
                return EngineError::Store {
                    location: "the idle offset commit".into(),
                    message: e.to_string(),
                }
            }
        }
    }
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

/// Where the stream's outputs go: batches to the consumer.
struct ConsumerSink<'a, R> {
    consumer: &'a mut dyn BatchConsumer<R>,
    offsets: SharedOffsets,
    max_batch: usize,
    latch: Option<Arc<LeaderLatch>>,
    /// Leadership was found lost before a delivery: nothing more is
    /// delivered.
    lost: bool,
    /// What of the first transaction was delivered before the restart.
    skip: Option<Delivered>,
    /// Why the last delivery failed (the stream only reports that it did).
    failed: Option<SinkError>,
    /// The offset after the last transaction read (where the stream
    /// resumes between transactions): snapshot reads delivered now carry it.
    position: Option<RecordOffset>,
    /// The tables whose changes a running snapshot holds back.
    held: Option<Arc<snapshot::Held>>,
}

/// Why the sink refused a transaction.
#[derive(Debug, thiserror::Error)]
enum SinkError {
    #[error("no longer the leader: delivery stopped")]
    NotLeader,
    #[error(transparent)]
    Consumer(ConsumerError),
    #[error(transparent)]
    Commit(EngineError),
}

impl<R: EngineRecord> ChangeSink<Output<R>> for ConsumerSink<'_, R> {
    type Error = SinkFailed;

    fn write(&mut self, outputs: &mut Vec<Output<R>>) -> Result<(), SinkFailed> {
        self.write_batches(outputs).map_err(|e| {
            let failed = SinkFailed(e.to_string());
            self.failed = Some(e);
            failed
        })
    }
}

/// What the stream reports of a failed delivery; the sink keeps the error.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct SinkFailed(String);

impl<R: EngineRecord> ConsumerSink<'_, R> {
    fn write_batches(&mut self, outputs: &mut Vec<Output<R>>) -> Result<(), SinkError> {
        let mut records = Vec::with_capacity(outputs.len().min(self.max_batch));
        let mut end = None;
        let total = outputs.len();
        // The table of the records that follow, and whether a snapshot
        // holds its changes back.
        let mut held_back = false;
        for (i, o) in outputs.drain(..).enumerate() {
            match o {
                Output::Record(r) => {
                    if !held_back && !self.skip.is_some_and(|d| d.covers(r.offset())) {
                        records.push(r);
                    }
                }
                Output::Table(t) => {
                    held_back = match (&self.held, &t) {
                        (Some(h), Some(t)) => h.holds(t),
                        _ => false,
                    };
                }
                Output::Progress(p) => {
                    held_back = false;
                    self.skip = None;
                    self.position = Some(p.clone());
                    end = Some(p);
                }
            }
            let last = i + 1 == total;
            if records.len() >= self.max_batch || (last && !records.is_empty()) {
                let batch_end = if last { end.take() } else { None };
                self.deliver(std::mem::take(&mut records), batch_end)?;
            }
        }
        if let Some(end) = end {
            // Only progress (filtered transactions): staged as if a batch
            // of nothing was finished.
            self.deliver(Vec::new(), Some(end))?;
        }
        Ok(())
    }

    /// A snapshot chunk's records, each with the offset of the stream's
    /// place and the snapshot's place after it; then the stream's records
    /// carry the snapshot's place after the chunk.
    fn write_chunk<P: Unplaced<Record = R>>(
        &mut self,
        chunk: Chunk<P>,
        place: &(String, u64),
    ) -> Result<(), StreamError> {
        let written = self.write_reads(chunk);
        written.map_err(|e| {
            let failed = SinkFailed(e.to_string());
            self.failed = Some(e);
            StreamError::Sink {
                file: place.0.clone(),
                pos: place.1,
                source: Box::new(failed),
            }
        })
    }

    fn write_reads<P: Unplaced<Record = R>>(&mut self, chunk: Chunk<P>) -> Result<(), SinkError> {
        // Snapshot reads stage their own offsets, as they are.
        lock(&self.offsets).snapshot_mark = None;
        let mut base = self
            .position
            .as_ref()
            .map(RecordOffset::get)
            .unwrap_or_default();
        base.snapshot = None;
        base.snapshot_table = None;
        base.snapshot_last_key = None;
        let mut batch = Vec::with_capacity(chunk.records.len().min(self.max_batch));
        for (pending, mark) in chunk.records {
            let mut offset = base.clone();
            if let Some(m) = &mark {
                m.apply(&mut offset);
            }
            batch.push(pending.place(RecordOffset::at(Arc::new(offset))));
            if batch.len() >= self.max_batch {
                self.deliver(std::mem::take(&mut batch), None)?;
            }
        }
        if !batch.is_empty() {
            self.deliver(batch, None)?;
        }
        lock(&self.offsets).snapshot_mark = chunk.after;
        Ok(())
    }

    fn deliver(
        &mut self,
        records: Vec<R>,
        batch_end: Option<RecordOffset>,
    ) -> Result<(), SinkError> {
        let shared = self.offsets.clone();
        let mut offsets = lock(&shared);
        // Checked right before every delivery (after waiting for the
        // offsets, which an idle commit may hold): after a pause longer than
        // the session's lease (SIGSTOP, a frozen VM) this fails before
        // anything reaches the application.
        if let Some(l) = &self.latch {
            if self.lost || !l.has_leadership() {
                self.lost = true;
                return Err(SinkError::NotLeader);
            }
        }
        let batch_len = records.len();
        let mut committer = Committer {
            offsets: &mut offsets,
            batch_end,
            batch_len,
            marked: 0,
            latch: self.latch.as_deref(),
        };
        if batch_len == 0 {
            let finished = committer.mark_batch_finished();
            let leading = self.latch.as_ref().is_none_or(|l| l.has_leadership());
            return match finished {
                Err(EngineError::Fenced { .. }) => {
                    self.lost = true;
                    Err(SinkError::NotLeader)
                }
                Err(_) if !leading => {
                    self.lost = true;
                    Err(SinkError::NotLeader)
                }
                other => other.map_err(SinkError::Commit),
            };
        }
        let handled = self.consumer.handle_batch(records, &mut committer);
        let leading = self.latch.as_ref().is_none_or(|l| l.has_leadership());
        if offsets.fenced || (!leading && (offsets.failed.is_some() || handled.is_err())) {
            // A refused commit, or one that failed once leadership was gone
            // (the store's session expired with it): the term ends, whatever
            // the consumer made of it. The next leader resumes from the
            // last commit that was written.
            self.lost = true;
            return Err(SinkError::NotLeader);
        }
        // A failed commit stops the engine even when the consumer ignored
        // the error mark_batch_finished gave it.
        if let Some(message) = offsets.failed.take() {
            return Err(SinkError::Commit(EngineError::Store {
                location: offsets.store.location(),
                message,
            }));
        }
        handled.map_err(SinkError::Consumer)?;
        Ok(())
    }
}
