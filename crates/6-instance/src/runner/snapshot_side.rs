//! The initial snapshot running beside a run of the stream: its task, the
//! chunks it sends back, and which of them the stream has reached.

use super::*;

/// The initial snapshot running beside a run of the stream; ends with it.
pub(super) struct SnapshotTask {
    pub(super) rx: mpsc::Receiver<ChunkDelivery>,
    pub(super) task: JoinHandle<()>,
}

impl Drop for SnapshotTask {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Resolves when tables are asked for on demand; pending forever without a
/// snapshot plan.
pub(super) async fn snapshot_asked(plan: &Option<SnapshotPlan>) {
    match plan {
        Some(p) => p.state.wake.notified().await,
        None => std::future::pending().await,
    }
}

/// The next chunk of the snapshot; pending forever without one, or once
/// the snapshot has ended.
pub(super) async fn recv_chunk(snapshot: &mut Option<SnapshotTask>) -> Option<ChunkDelivery> {
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
pub(super) fn take_ready(waiting: &mut Vec<ChunkDelivery>, at: (u64, u64)) -> Vec<ChunkDelivery> {
    let (ready, still): (Vec<_>, Vec<_>) = std::mem::take(waiting)
        .into_iter()
        .partition(|c| c.at <= at);
    *waiting = still;
    ready
}
