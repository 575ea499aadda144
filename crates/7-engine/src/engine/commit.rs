//! The application's consumer and the committer it marks records
//! processed with, over one leadership term's staged and committed offsets.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use sluice_ha::latch::LeaderLatch;

use crate::config::CommitPolicy;
use crate::record::{ChangeRecord, EngineRecord, RecordOffset};
use crate::snapshot_mark::SnapshotMark;
use crate::{EngineError, OffsetKey, OffsetStore, SourceOffset};

/// An error the application's consumer returns: the engine stops with it.
pub type ConsumerError = Box<dyn std::error::Error + Send + Sync>;

/// The application's consumer of whole batches (Debezium's
/// `ChangeConsumer`): it calls [`Committer::mark_processed`] for each record
/// it has durably handled and [`Committer::mark_batch_finished`] at the end.
/// `R` is [`ChangeRecord`] (Debezium JSON) or [`TypedRecord`](crate::TypedRecord).
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
pub(super) struct EachRecord<F>(pub(super) F);

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

/// Staged and committed offsets of one leadership term.
pub(super) struct Offsets {
    pub(super) key: OffsetKey,
    pub(super) store: Box<dyn OffsetStore>,
    pub(super) policy: CommitPolicy,
    /// The offset of the last record marked processed.
    pub(super) staged: Option<RecordOffset>,
    pub(super) committed: Option<RecordOffset>,
    pub(super) last_commit: Instant,
    /// A commit that failed: the engine stops with it even when the
    /// consumer ignored the error.
    pub(super) failed: Option<String>,
    /// A commit was refused because this process no longer leads: the
    /// term ends (not the engine).
    pub(super) fenced: bool,
    /// Where the initial snapshot is while it runs: staged offsets of the
    /// stream's records carry it, so a restart resumes the snapshot there.
    pub(super) snapshot_mark: Option<SnapshotMark>,
}

/// One term's offsets, shared by the delivery and the idle-commit timer.
pub(super) type SharedOffsets = Arc<Mutex<Offsets>>;

/// The offsets, even if a holder panicked: they are plain values, and the
/// store reports its own failures.
pub(super) fn lock(offsets: &SharedOffsets) -> MutexGuard<'_, Offsets> {
    offsets.lock().unwrap_or_else(|p| p.into_inner())
}

impl Offsets {
    pub(super) fn commit(&mut self) -> Result<(), EngineError> {
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
    pub(super) offsets: &'a mut Offsets,
    /// Where the stream is after this batch, when the batch ends a
    /// transaction: staged too once every record was marked.
    pub(super) batch_end: Option<RecordOffset>,
    pub(super) batch_len: usize,
    pub(super) marked: usize,
    pub(super) latch: Option<&'a LeaderLatch>,
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
