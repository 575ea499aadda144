//! How far the runs of one instance got, so that a run restarted after an
//! error takes up where the last one stopped, and where the next one starts
//! when the binlog to resume from is gone.

use super::*;

/// How far the runs of one instance got, shared by the runs of one process
/// so that a run restarted after an error takes up where the last one
/// stopped: after the last transaction it put into the store (everything
/// before is there already), dropping what of the replayed transaction was
/// put, never at a newer `latest`.
#[derive(Debug, Default)]
pub struct RunProgress {
    pub(super) state: Mutex<ProgressState>,
}

#[derive(Debug, Default)]
pub(super) struct ProgressState {
    /// The first start position a stream resolved in this process.
    pub(super) first_start: Option<EntryPosition>,
    /// Whether `first_start` is to be persisted and not yet persisted.
    pub(super) start_unpersisted: bool,
    /// The ack point of the last END or DDL entry put: a transaction boundary.
    pub(super) published: Option<EntryPosition>,
    /// The binlog key of the last entry put.
    pub(super) last_put: Option<(u64, u64)>,
    /// The next run starts at the end of the binlog: the one to resume
    /// from (this position) is no longer on the source.
    pub(super) jump_from: Option<String>,
}

impl RunProgress {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, ProgressState> {
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
    pub(super) fn started(&self, resolved: EntryPosition) -> Option<EntryPosition> {
        let mut st = self.lock();
        let first = st.first_start.get_or_insert(resolved).clone();
        st.start_unpersisted.then_some(first)
    }

    pub(super) fn start_persisted(&self) {
        self.lock().start_unpersisted = false;
    }

    /// Whether an entry at `position` was put already (by an earlier run).
    pub(super) fn already_put(&self, position: &EntryPosition) -> bool {
        self.lock()
            .last_put
            .is_some_and(|last| position.binlog_key() <= last)
    }

    /// The stream moved to another server (after everything put from the
    /// last one): its positions are not compared with those.
    pub(super) fn source_changed(&self) {
        self.lock().last_put = None;
    }

    pub(super) fn put(&self, position: &EntryPosition, ack_point: Option<&EntryPosition>) {
        let mut st = self.lock();
        st.last_put = Some(position.binlog_key());
        if let Some(a) = ack_point {
            st.published = Some(a.clone());
        }
    }
}
