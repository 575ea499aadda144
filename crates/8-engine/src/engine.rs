//! The engine: a builder, the application's consumer, the committer, and
//! the run loop (with a leader latch: wait to lead, stream while leading,
//! stop the moment leadership is in doubt, wait again).

use std::sync::Arc;
use std::time::Instant;

use sluice_encode::debezium::DebeziumEncoder;
use sluice_ha::latch::{LatchConfig, LeaderLatch};
use sluice_ha::session::{ZkConfig, ZkSession};
use sluice_instance::stream::{ChangeSink, ChangeStream, StreamError};
use sluice_source::position::StartPosition;
use sluice_source::{ConnectGate, SourceConfig};
use tokio::sync::watch;

use crate::config::{EngineConfig, StartAt};
use crate::record::{ChangeRecord, Delivered, OffsetEncoder, Output, RecordOffset};
use crate::stores::{self, Fence};
use crate::{EngineError, OffsetKey, OffsetStore, SourceOffset};

/// An error the application's consumer returns: the engine stops with it.
pub type ConsumerError = Box<dyn std::error::Error + Send + Sync>;

/// The application's consumer of whole batches (Debezium's
/// `ChangeConsumer`): it calls [`Committer::mark_processed`] for each record
/// it has durably handled and [`Committer::mark_batch_finished`] at the end.
pub trait BatchConsumer: Send {
    fn handle_batch(
        &mut self,
        records: Vec<ChangeRecord>,
        committer: &mut Committer<'_>,
    ) -> Result<(), ConsumerError>;
}

impl<F> BatchConsumer for F
where
    F: FnMut(Vec<ChangeRecord>, &mut Committer<'_>) -> Result<(), ConsumerError> + Send,
{
    fn handle_batch(
        &mut self,
        records: Vec<ChangeRecord>,
        committer: &mut Committer<'_>,
    ) -> Result<(), ConsumerError> {
        self(records, committer)
    }
}

/// A per-record consumer (Debezium's `notifying(Consumer)`): each record is
/// marked processed once the function returns, the batch finished after
/// the last.
struct EachRecord<F>(F);

impl<F> BatchConsumer for EachRecord<F>
where
    F: FnMut(ChangeRecord) -> Result<(), ConsumerError> + Send,
{
    fn handle_batch(
        &mut self,
        records: Vec<ChangeRecord>,
        committer: &mut Committer<'_>,
    ) -> Result<(), ConsumerError> {
        for r in records {
            let offset = r.offset.clone();
            (self.0)(r)?;
            committer.mark_offset(offset);
        }
        committer.mark_batch_finished()?;
        Ok(())
    }
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
}

impl Committer<'_> {
    /// `record` is durably handled: its offset is staged (later records
    /// replace it). Records must be marked in order; marking a later one
    /// first commits past the earlier ones.
    pub fn mark_processed(&mut self, record: &ChangeRecord) {
        self.mark_offset(record.offset.clone());
    }

    fn mark_offset(&mut self, offset: RecordOffset) {
        self.marked += 1;
        self.offsets.staged = Some(offset);
    }

    /// The batch is handled: the staged offset is written when the commit
    /// policy says so. An error here stops the engine.
    pub fn mark_batch_finished(&mut self) -> Result<(), EngineError> {
        if self.marked >= self.batch_len {
            if let Some(end) = self.batch_end.take() {
                self.offsets.staged = Some(end);
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
    consumer: Option<Box<dyn BatchConsumer>>,
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
        self.consumer = Some(Box::new(EachRecord(consumer)));
        self
    }

    /// Whole batches to `consumer`, which marks what it processed.
    pub fn batch_consumer(mut self, consumer: impl BatchConsumer + 'static) -> Self {
        self.consumer = Some(Box::new(consumer));
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
            message: "no consumer: call notifying or batch_consumer".into(),
        })?;
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
    consumer: Box<dyn BatchConsumer>,
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
        let (store, stored, history) = {
            let (c, f, k) = (config.clone(), fence.clone(), key.clone());
            blocking("opening the stores", move || {
                let mut store = stores::open_offset_store(&c, f.clone())?;
                let stored = store.load(&k)?;
                Ok((store, stored, stores::open_history_store(&c, f)?))
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
                    StartAt::Initial => {
                        tracing::warn!(engine = %config.name, "snapshot.mode=initial: no snapshot of existing rows is taken; the binlog is read from its oldest file");
                        StartPosition::Earliest
                    }
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
            ..Default::default()
        };
        let everything =
            sluice_canal::TableFilter::new(".*\\..*").map_err(|e| EngineError::Config {
                property: "table.include.list".into(),
                message: e.to_string(),
            })?;
        let schema =
            sluice_instance::schema_hook::tracked_schema_in(history, &config.connect, everything)
                .map_err(|message| EngineError::Store {
                location: "schema history".into(),
                message,
            })?;
        let stream = ChangeStream::new(source, schema).with_filter(config.tables.clone());

        let mut sink = ConsumerSink {
            consumer: self.consumer.as_mut(),
            offsets: &mut offsets,
            max_batch: config.max_batch_size,
            latch: latch.clone(),
            lost: false,
            skip,
            failed: None,
        };
        let mut stop = self.stopped.clone();
        let mut leader = latch.as_ref().map(|l| l.subscribe());
        let lost = async {
            match &mut leader {
                Some(rx) => {
                    let _ = rx.wait_for(|l| !*l).await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        let debezium = config.debezium.clone();
        let threads = config.encode_threads;
        let streamed = {
            let run = async {
                if threads > 1 {
                    stream
                        .run_parallel(
                            threads,
                            || OffsetEncoder::new(DebeziumEncoder::new(debezium.clone())),
                            &mut sink,
                        )
                        .await
                } else {
                    let mut encoder = OffsetEncoder::new(DebeziumEncoder::new(debezium));
                    stream.run(&mut encoder, &mut sink).await
                }
            };
            tokio::select! {
                r = run => Some(r),
                _ = stop.wait_for(|s| *s) => None,
                _ = lost => None,
            }
        };
        let lost_leadership =
            sink.lost || sink.offsets.fenced || latch.as_ref().is_some_and(|l| !l.has_leadership());
        let end = match streamed {
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
        drop(sink);
        // A clean stop writes what was marked; a lost term cannot (the
        // fence refuses, and the next leader has started from the last
        // commit anyway).
        if matches!(end, Ok(TermEnd::Closed)) {
            let mut o = offsets;
            blocking("the final offset commit", move || o.commit()).await?;
        }
        end
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
struct ConsumerSink<'a> {
    consumer: &'a mut dyn BatchConsumer,
    offsets: &'a mut Offsets,
    max_batch: usize,
    latch: Option<Arc<LeaderLatch>>,
    /// Leadership was found lost before a delivery: nothing more is
    /// delivered.
    lost: bool,
    /// What of the first transaction was delivered before the restart.
    skip: Option<Delivered>,
    /// Why the last delivery failed (the stream only reports that it did).
    failed: Option<SinkError>,
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

impl ChangeSink<Output> for ConsumerSink<'_> {
    type Error = SinkFailed;

    fn write(&mut self, outputs: &mut Vec<Output>) -> Result<(), SinkFailed> {
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

impl ConsumerSink<'_> {
    fn write_batches(&mut self, outputs: &mut Vec<Output>) -> Result<(), SinkError> {
        let mut records = Vec::with_capacity(outputs.len().min(self.max_batch));
        let mut end = None;
        let total = outputs.len();
        for (i, o) in outputs.drain(..).enumerate() {
            match o {
                Output::Record(r) => {
                    if !self.skip.is_some_and(|d| d.covers(&r.offset)) {
                        records.push(r);
                    }
                }
                Output::Progress(p) => {
                    self.skip = None;
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

    fn deliver(
        &mut self,
        records: Vec<ChangeRecord>,
        batch_end: Option<RecordOffset>,
    ) -> Result<(), SinkError> {
        // Checked right before every delivery: after a pause longer than the
        // session's lease (SIGSTOP, a frozen VM) this fails before anything
        // reaches the application.
        if let Some(l) = &self.latch {
            if self.lost || !l.has_leadership() {
                self.lost = true;
                return Err(SinkError::NotLeader);
            }
        }
        let batch_len = records.len();
        let mut committer = Committer {
            offsets: self.offsets,
            batch_end,
            batch_len,
            marked: 0,
        };
        if batch_len == 0 {
            let finished = committer.mark_batch_finished();
            let leading = self.latch.as_ref().map_or(true, |l| l.has_leadership());
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
        let leading = self.latch.as_ref().map_or(true, |l| l.has_leadership());
        if self.offsets.fenced || (!leading && (self.offsets.failed.is_some() || handled.is_err()))
        {
            // A refused commit, or one that failed once leadership was gone
            // (the store's session expired with it): the term ends, whatever
            // the consumer made of it. The next leader resumes from the
            // last commit that was written.
            self.lost = true;
            return Err(SinkError::NotLeader);
        }
        // A failed commit stops the engine even when the consumer ignored
        // the error mark_batch_finished gave it.
        if let Some(message) = self.offsets.failed.take() {
            return Err(SinkError::Commit(EngineError::Store {
                location: self.offsets.store.location(),
                message,
            }));
        }
        handled.map_err(SinkError::Consumer)?;
        Ok(())
    }
}
