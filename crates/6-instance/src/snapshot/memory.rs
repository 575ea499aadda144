//! The memory the snapshot's chunks take between their read and the store
//! (`sluice.instance.snapshot.maxBufferBytes`): chunks are cut by bytes as
//! well as rows, and a chunk read waits for room before it goes on, so the
//! chunks in flight take about that many bytes whatever the rows' width.
//!
//! A chunk is counted from its raw rows: on its way it is also a Canal
//! entry (every value with its column's name and types) and that entry
//! serialised, several times the raw rows' bytes; [`FOOTPRINT`] is that
//! ratio, rounded up. Once in the store, the store's own bound
//! (`canal.instance.memory.*`) counts it.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A chunk's memory on its way, over its raw rows' bytes (rows as read,
/// the Canal entry built from them, its serialised bytes).
const FOOTPRINT: usize = 8;

/// Chunks of one part in flight at once besides the one being read: the
/// one handed over and the one being delivered.
const IN_FLIGHT_PER_PART: usize = 2;

/// The budget is counted in units of this many bytes.
const UNIT: usize = 1024;

/// The room the chunks in flight share.
#[derive(Debug)]
pub struct ChunkMemory {
    room: Arc<Semaphore>,
    units: usize,
    piece_bytes: usize,
}

/// The room one chunk holds; given back when dropped (once the chunk is
/// in the store, or dropped).
#[derive(Debug, Default)]
pub struct HeldMemory(Option<OwnedSemaphorePermit>);

impl HeldMemory {
    /// Units of [`UNIT`] bytes held.
    pub fn units(&self) -> u32 {
        self.0.as_ref().map_or(0, |p| p.num_permits() as u32)
    }
}

impl ChunkMemory {
    /// Room for `max_bytes`, shared by `parallelism` reads at once.
    pub fn new(max_bytes: u64, parallelism: usize) -> ChunkMemory {
        let max_bytes = usize::try_from(max_bytes).unwrap_or(usize::MAX);
        let units = (max_bytes / UNIT).clamp(1, Semaphore::MAX_PERMITS);
        let readers = parallelism.max(1) * IN_FLIGHT_PER_PART * FOOTPRINT;
        ChunkMemory {
            room: Arc::new(Semaphore::new(units)),
            units,
            // At least one row is read whatever this says.
            piece_bytes: (max_bytes / readers).max(1),
        }
    }

    /// The raw bytes at which a scan ends a chunk before `chunkSize` rows.
    pub fn piece_bytes(&self) -> usize {
        self.piece_bytes
    }

    /// Waits for room for a chunk whose raw rows take `raw_bytes`. A chunk
    /// larger than the whole budget takes all of it, and so goes alone.
    pub async fn take(&self, raw_bytes: usize) -> HeldMemory {
        let units = raw_bytes
            .saturating_mul(FOOTPRINT)
            .div_ceil(UNIT)
            .clamp(1, self.units);
        let units = u32::try_from(units).unwrap_or(u32::MAX);
        // The semaphore is never closed: an error can only mean no room
        // to count, and the chunk goes on without.
        HeldMemory(self.room.clone().acquire_many_owned(units).await.ok())
    }

    /// Units of [`UNIT`] bytes free now.
    pub fn free_units(&self) -> usize {
        self.room.available_permits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn chunks_wait_for_room_and_a_huge_one_goes_alone() {
        let memory = ChunkMemory::new(64 * 1024, 1);
        // 64 units; a chunk of 2 KiB raw rows counts 16.
        assert_eq!(memory.piece_bytes(), 64 * 1024 / (2 * FOOTPRINT));
        let a = memory.take(2048).await;
        let b = memory.take(2048).await;
        assert_eq!((a.units(), b.units()), (16, 16));
        assert_eq!(memory.free_units(), 32);
        // Bigger than the budget: it waits for all of it.
        let huge = memory.take(10 << 20);
        tokio::pin!(huge);
        assert!(
            futures_poll_once(huge.as_mut()).await.is_none(),
            "room taken: it waits"
        );
        drop((a, b));
        let held = huge.await;
        assert_eq!(held.units(), 64);
        assert_eq!(memory.free_units(), 0);
        drop(held);
        assert_eq!(memory.free_units(), 64);
    }

    /// Polls `f` once: its output if it was ready.
    async fn futures_poll_once<F: std::future::Future + Unpin>(f: F) -> Option<F::Output> {
        let mut f = f;
        std::future::poll_fn(|cx| match std::pin::Pin::new(&mut f).poll(cx) {
            std::task::Poll::Ready(v) => std::task::Poll::Ready(Some(v)),
            std::task::Poll::Pending => std::task::Poll::Ready(None),
        })
        .await
    }
}
