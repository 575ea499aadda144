//! The process's threads for the CPU-heavy part of every output: encoding
//! change events. The server's Canal entry builds and the change stream's
//! encoders ([`ChangeStream::run_parallel`](crate::stream::ChangeStream::run_parallel):
//! the engine, `sluice tail`) all run their jobs here.
//!
//! On the tokio workers, hundreds of encodings queue in front of the
//! tasks that keep data moving (the reader, the emitter, the sessions that
//! answer clients): a client's GET then waits behind them, the store stays
//! full, the reader stops, and the cores idle until the queue drains. Here
//! the jobs run on plain threads, one per core, and the OS scheduler lets
//! a woken tokio worker in at once; the workers only move bytes.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;

use tokio::sync::oneshot;

type Job = Box<dyn FnOnce() + Send>;

/// A fixed set of threads taking jobs from one queue, in the order given.
/// Dropping the pool lets its threads finish the jobs queued and end.
pub struct EncodePool {
    jobs: Sender<Job>,
}

/// The result of a job: what it returned, or the payload of its panic.
pub type Built<T> = oneshot::Receiver<thread::Result<T>>;

impl EncodePool {
    /// Starts `threads` threads (at least one) named `name`.
    pub fn start(name: &str, threads: usize) -> std::io::Result<EncodePool> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for i in 0..threads.max(1) {
            let queue = queue.clone();
            thread::Builder::new()
                .name(format!("{name}-{i}"))
                .spawn(move || work(&queue))?;
        }
        Ok(EncodePool { jobs })
    }

    /// One thread per core.
    pub fn per_core(name: &str) -> std::io::Result<EncodePool> {
        let cores = thread::available_parallelism().map_or(1, |n| n.get());
        EncodePool::start(name, cores)
    }

    /// The process's pool, one thread per core, started on first use and
    /// shared by every destination and change stream: a server with many
    /// destinations keeps as many threads as cores, not as many per
    /// destination.
    pub fn shared() -> std::io::Result<&'static EncodePool> {
        static POOL: OnceLock<EncodePool> = OnceLock::new();
        if let Some(pool) = POOL.get() {
            return Ok(pool);
        }
        let started = EncodePool::per_core("sluice-encode")?;
        // Two first users may both start one: the other's threads end
        // when it is dropped here.
        Ok(POOL.get_or_init(|| started))
    }

    /// Runs `job` on a thread of the pool. A job that panics gives its
    /// panic to the receiver, which can resume it where it is awaited.
    pub fn submit<T, F>(&self, job: F) -> Built<T>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = tx.send(catch_unwind(AssertUnwindSafe(job)));
        });
        // The threads end only once `jobs` is dropped, so a send fails only
        // if every thread died; the receiver then reads as cancelled.
        let _ = self.jobs.send(job);
        rx
    }
}

fn work(queue: &Mutex<Receiver<Job>>) {
    loop {
        // The lock is held only while one job is taken.
        let job = match queue.lock() {
            Ok(q) => q.recv(),
            Err(poisoned) => poisoned.into_inner().recv(),
        };
        match job {
            Ok(job) => job(),
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_return_their_results_and_panics() {
        let pool = EncodePool::start("test-pool", 2).expect("pool");
        let results: Vec<_> = (0..100u64).map(|i| pool.submit(move || i * i)).collect();
        for (i, r) in results.into_iter().enumerate() {
            let got = r.await.expect("sent").expect("no panic");
            assert_eq!(got, (i * i) as u64);
        }
        let panicked = pool.submit(|| -> u8 { panic!("a job panics") });
        let payload = panicked.await.expect("sent").expect_err("the panic");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"a job panics"));
        // The pool still works after a panic.
        assert_eq!(pool.submit(|| 7).await.expect("sent").expect("no panic"), 7);
    }
}
