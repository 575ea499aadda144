//! Persists a destination's cursors off the request path, by group commit.
//!
//! A durable write of the cursors (a file store: a record written into its
//! log and an fdatasync, with an atomic rewrite of `meta.dat` about once a second;
//! ZooKeeper: a round trip per changed node) costs from a fraction of a
//! millisecond to several. Written once per ack in the request path it caps a
//! client that acks every transaction at a few hundred acks a second, and
//! its backlog grows. Here an ack only hands the latest cursors to the
//! destination's writer thread and returns; acks that arrive while a write
//! is in flight are covered together by the next one, which always writes
//! the *latest* cursors. Each hand-over gets a version; the writer publishes
//! which version is durable.
//!
//! The promise "an acknowledged batch is never replayed after a crash" is
//! kept by the server: it sends a client no reply after its ack until the
//! version of that ack is durable (see [`CursorWriter::durable`]). Canal's
//! CLIENTACK has no reply, so a client can only observe an ack's effect
//! through a later reply, and the write overlaps with whatever that later
//! request waits for (usually a GET waiting for new entries).
//!
//! One thread per destination, at most one write in flight for it: the
//! stores' `save` is blocking (fsync, or a ZooKeeper round trip waited for),
//! and writes of different destinations then overlap instead of queueing
//! behind each other.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;

use sluice_meta::{CursorStore, DestinationMeta};
use tokio::sync::watch;

/// What the writer has achieved so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteStatus {
    /// Every version up to this one is durable.
    pub durable: u64,
    /// The last write failed: the version it tried and why. Cleared by the
    /// next successful write.
    pub failed: Option<(u64, String)>,
    /// The writer thread ended (stopped): nothing more becomes durable.
    pub ended: bool,
}

struct Pending {
    /// The latest cursors not taken by the writer yet, and their version.
    latest: Option<(DestinationMeta, u64)>,
    /// The cursors of a failed write, written again with the next
    /// hand-over or flush (a newer hand-over replaces them).
    failed: Option<(DestinationMeta, u64)>,
    /// Versions handed over so far.
    version: u64,
    /// A write is running.
    writing: bool,
    stopping: bool,
}

struct Shared {
    cursors: Arc<dyn CursorStore>,
    pending: Mutex<Pending>,
    /// Wakes the writer (new cursors, stop) and blocking waiters (a write ended).
    wake: Condvar,
    status: watch::Sender<WriteStatus>,
}

/// The background writer of one destination's cursors.
pub struct CursorWriter {
    shared: Arc<Shared>,
    thread: Mutex<Option<thread::JoinHandle<()>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl CursorWriter {
    /// Starts the writer thread of `destination`.
    pub fn start(destination: &str, cursors: Arc<dyn CursorStore>) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            cursors,
            pending: Mutex::new(Pending {
                latest: None,
                failed: None,
                version: 0,
                writing: false,
                stopping: false,
            }),
            wake: Condvar::new(),
            status: watch::Sender::new(WriteStatus::default()),
        });
        let worker = shared.clone();
        let name = format!("sluice-cursors-{destination}");
        let thread = thread::Builder::new()
            .name(name.chars().take(15).collect())
            .spawn(move || worker.run())?;
        Ok(CursorWriter {
            shared,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Hands the latest cursors to the writer; returns their version. Call
    /// it with the cursors' lock held, so versions follow the changes.
    pub fn submit(&self, meta: DestinationMeta) -> u64 {
        let mut p = lock(&self.shared.pending);
        p.version += 1;
        let v = p.version;
        p.latest = Some((meta, v));
        p.failed = None;
        self.shared.wake.notify_all();
        v
    }

    /// The latest version handed over.
    pub fn version(&self) -> u64 {
        lock(&self.shared.pending).version
    }

    /// What the writer achieved so far.
    pub fn status(&self) -> WriteStatus {
        self.shared.status.borrow().clone()
    }

    /// Waits until `version` is durable; the error of the write that tried
    /// it if that failed.
    pub async fn durable(&self, version: u64) -> Result<(), String> {
        let mut rx = self.shared.status.subscribe();
        let settled = rx
            .wait_for(|s| s.ended || settled(s, version))
            .await
            .map(|s| s.clone())
            .unwrap_or_else(|_| self.status());
        outcome(&settled, version)
    }

    /// Like [`durable`](Self::durable), blocking the calling thread.
    pub fn durable_blocking(&self, version: u64) -> Result<(), String> {
        let mut p = lock(&self.shared.pending);
        loop {
            let s = self.status();
            if settled(&s, version) {
                return outcome(&s, version);
            }
            if s.ended {
                return outcome(&s, version);
            }
            p = self.shared.wake.wait(p).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Writes what is pending (a failed write's cursors again, under a new
    /// version) and waits.
    pub fn flush(&self) -> Result<(), String> {
        let version = {
            let mut p = lock(&self.shared.pending);
            if p.latest.is_none() && !p.stopping {
                if let Some((meta, _)) = p.failed.take() {
                    p.version += 1;
                    p.latest = Some((meta, p.version));
                    self.shared.wake.notify_all();
                }
            }
            p.version
        };
        self.durable_blocking(version)
    }

    /// Writes what is pending, then ends the thread. Idempotent.
    pub fn stop(&self) -> Result<(), String> {
        let flushed = self.flush();
        lock(&self.shared.pending).stopping = true;
        self.shared.wake.notify_all();
        if let Some(t) = lock(&self.thread).take() {
            let _ = t.join();
        }
        flushed
    }
}

impl Drop for CursorWriter {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            tracing::warn!(error = %e, "cursors not written on stop");
        }
    }
}

fn settled(s: &WriteStatus, version: u64) -> bool {
    s.durable >= version || s.failed.as_ref().is_some_and(|(v, _)| *v >= version)
}

fn outcome(s: &WriteStatus, version: u64) -> Result<(), String> {
    match &s.failed {
        _ if s.durable >= version => Ok(()),
        Some((_, e)) => Err(e.clone()),
        None => Err("the cursor writer stopped before writing".into()),
    }
}

impl Shared {
    fn run(&self) {
        let mut p = lock(&self.pending);
        loop {
            let Some((meta, version)) = p.latest.take() else {
                if p.stopping {
                    self.status.send_modify(|s| s.ended = true);
                    self.wake.notify_all();
                    return;
                }
                p = self.wake.wait(p).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            p.writing = true;
            drop(p);
            let result = self.cursors.save(&meta);
            p = lock(&self.pending);
            p.writing = false;
            match result {
                Ok(()) => self.status.send_modify(|s| {
                    s.durable = s.durable.max(version);
                    s.failed = None;
                }),
                Err(e) => {
                    tracing::warn!(destination = %meta.destination, error = %e, "cannot persist cursors; written again with the next ack");
                    if p.latest.is_none() {
                        p.failed = Some((meta, version));
                    }
                    self.status
                        .send_modify(|s| s.failed = Some((version, e.to_string())));
                }
            }
            // Blocking waiters check the status under this lock.
            self.wake.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use sluice_canal::{EntryPosition, LogPosition};
    use sluice_meta::{ClientData, ClientIdentity, FileCursorStore, MetaError};

    /// The real file store, counting its writes and holding them while
    /// `held` is set.
    struct Held {
        inner: FileCursorStore,
        saves: AtomicUsize,
        held: Mutex<bool>,
        opened: Condvar,
    }

    impl CursorStore for Held {
        fn load(&self, destination: &str) -> Result<DestinationMeta, MetaError> {
            self.inner.load(destination)
        }

        fn save(&self, meta: &DestinationMeta) -> Result<(), MetaError> {
            self.saves.fetch_add(1, Ordering::SeqCst);
            let mut held = self.held.lock().unwrap();
            while *held {
                held = self.opened.wait(held).unwrap();
            }
            drop(held);
            self.inner.save(meta)
        }
    }

    fn meta_at(position: u64) -> DestinationMeta {
        DestinationMeta {
            client_datas: vec![ClientData {
                client_identity: ClientIdentity {
                    client_id: 1001,
                    destination: "d".into(),
                    filter: String::new(),
                },
                cursor: Some(LogPosition {
                    identity: Default::default(),
                    postion: EntryPosition {
                        journal_name: "binlog.000001".into(),
                        position,
                        ..Default::default()
                    },
                }),
            }],
            destination: "d".into(),
        }
    }

    #[tokio::test]
    async fn acks_during_a_write_share_the_next_one_which_holds_the_last_cursor() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Held {
            inner: FileCursorStore::new(dir.path()),
            saves: AtomicUsize::new(0),
            held: Mutex::new(true),
            opened: Condvar::new(),
        });
        let writer = CursorWriter::start("d", store.clone()).unwrap();
        let first = writer.submit(meta_at(100));
        while store.saves.load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        // 99 acks while the first write is held.
        let mut last = first;
        for i in 2..=100u64 {
            last = writer.submit(meta_at(i * 100));
        }
        assert_eq!(writer.status().durable, 0);
        *store.held.lock().unwrap() = false;
        store.opened.notify_all();
        writer.durable(last).await.unwrap();

        assert_eq!(store.saves.load(Ordering::SeqCst), 2, "100 acks, 2 writes");
        let on_disk = FileCursorStore::new(dir.path()).load("d").unwrap();
        assert_eq!(on_disk, meta_at(10_000));
        writer.stop().unwrap();
    }

    #[test]
    fn stop_writes_what_is_pending() {
        let dir = tempfile::tempdir().unwrap();
        let writer = CursorWriter::start("d", Arc::new(FileCursorStore::new(dir.path()))).unwrap();
        writer.submit(meta_at(100));
        writer.submit(meta_at(200));
        writer.stop().unwrap();
        let on_disk = FileCursorStore::new(dir.path()).load("d").unwrap();
        assert_eq!(on_disk, meta_at(200));
    }
}
