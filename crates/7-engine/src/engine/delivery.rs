//! One term's delivery: the stream's records in batches to the consumer,
//! the snapshot's chunks between its transactions, and the idle commits.

use std::sync::Arc;
use std::time::Duration;

use sluice_ha::latch::LeaderLatch;
use sluice_instance::stream::{ChangeSink, ChangeStream, Interleave, StreamError};
use sluice_source::position::ResumePosition;
use tokio::sync::watch;

use super::commit::{lock, BatchConsumer, Committer, ConsumerError, SharedOffsets};
use crate::config::CommitPolicy;
use crate::record::{Delivered, EngineRecord, OffsetEncoder, Output, RecordOffset, Unplaced};
use crate::snapshot::{self, Chunk, Due, Feed};
use crate::EngineError;

/// An initial snapshot to run beside a term's stream.
pub(super) struct SnapshotRun {
    pub(super) reader: snapshot::Reader,
    /// Where the stream starts.
    pub(super) start: (u64, u64),
}

impl SnapshotRun {
    /// Starts the reader: its chunks go to the stream through the feed.
    pub(super) fn start<E: snapshot::ReadEncoder>(self, encoder: E) -> RunningSnapshot<E::Pending> {
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
pub(super) struct RunningSnapshot<P> {
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
pub(super) struct Term {
    pub(super) offsets: SharedOffsets,
    pub(super) policy: CommitPolicy,
    pub(super) max_batch: usize,
    pub(super) latch: Option<Arc<LeaderLatch>>,
    pub(super) skip: Option<Delivered>,
    pub(super) stopped: watch::Receiver<bool>,
    pub(super) threads: usize,
    /// Where the stream starts (the offset snapshot reads before its first
    /// transaction carry).
    pub(super) start_offset: Option<RecordOffset>,
}

/// How a term's delivery ended: whether leadership was found lost, and why
/// the last delivery failed.
pub(super) struct SinkEnd {
    pub(super) lost: bool,
    pub(super) failed: Option<SinkError>,
    /// An idle commit failed (the timer's, between batches).
    pub(super) commit_failed: Option<EngineError>,
}

impl Term {
    /// Streams into `consumer` until the stream ends, the engine is closed
    /// or leadership is lost (`None` for the last two).
    pub(super) async fn stream<E, F>(
        self,
        stream: ChangeStream,
        consumer: &mut dyn BatchConsumer<<E::Output as Unplaced>::Record>,
        snapshot: Option<RunningSnapshot<E::Output>>,
        mut make_encoder: F,
    ) -> (Option<Result<ResumePosition, StreamError>>, SinkEnd)
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
pub(super) enum SinkError {
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
