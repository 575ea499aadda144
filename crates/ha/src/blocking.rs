//! A ZooKeeper session for synchronous callers, shared by the stores whose
//! traits are synchronous ([`sluice_meta::CursorStore`], and the schema
//! history store).
//!
//! Those traits are called from anywhere: plain threads, and inside async
//! code of a runtime of any flavour. The ZooKeeper client is asynchronous.
//! Blocking on a future of the caller's runtime could deadlock a
//! current-thread runtime (the thread that would drive the session is the
//! one blocked) and `block_in_place` panics there, so a [`BlockingSession`]
//! owns a small current-thread runtime on a thread of its own, with its own
//! ZooKeeper session: each call hands its work to that thread and waits on
//! a channel. Callers block for the round trips, as they would on a file
//! store's fsync, never longer than the operation timeout.

use std::future::Future;
use std::thread;
use std::time::Duration;

use zookeeper_client::Client;

use crate::session::{ZkConfig, ZkSession};
use crate::HaError;

/// How long one operation may take by default.
pub const DEFAULT_OP_TIMEOUT: Duration = Duration::from_secs(10);

/// A ZooKeeper session driven by a thread of its own; see the module
/// documentation. Dropping it closes the session and ends the thread.
pub struct BlockingSession {
    runtime: tokio::runtime::Handle,
    session: ZkSession,
    op_timeout: Duration,
    /// What a timed-out operation is called in its error.
    what: &'static str,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl std::fmt::Debug for BlockingSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockingSession")
            .field("servers", &self.session.config().servers)
            .field("what", &self.what)
            .finish_non_exhaustive()
    }
}

impl BlockingSession {
    /// Starts a thread named `thread_name` and connects its session
    /// (waiting at most `config.connect_timeout`). `what` names the
    /// operations in timeout errors ("a ZooKeeper cursor operation").
    pub fn connect(
        config: ZkConfig,
        thread_name: &str,
        what: &'static str,
    ) -> Result<BlockingSession, HaError> {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (shutdown_tx, shutdown_rx) = tokio::sync::oneshot::channel::<()>();
        let servers = config.servers.clone();
        let thread = thread::Builder::new()
            .name(thread_name.into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready_tx.send(Err(HaError::Connect {
                            servers: config.servers.clone(),
                            reason: format!("cannot start the session's runtime: {e}"),
                        }));
                        return;
                    }
                };
                runtime.block_on(async move {
                    match ZkSession::connect(config).await {
                        Ok(session) => {
                            let handle = tokio::runtime::Handle::current();
                            if ready_tx.send(Ok((handle, session.clone()))).is_err() {
                                session.close().await;
                                return;
                            }
                            let _ = shutdown_rx.await;
                            session.close().await;
                        }
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                        }
                    }
                });
            })
            .map_err(|e| HaError::Connect {
                servers: servers.clone(),
                reason: format!("cannot start the session's thread: {e}"),
            })?;
        let (runtime, session) = match ready_rx.recv() {
            Ok(Ok(ready)) => ready,
            Ok(Err(e)) => {
                let _ = thread.join();
                return Err(e);
            }
            Err(_) => {
                let _ = thread.join();
                return Err(HaError::Connect {
                    servers,
                    reason: "the session's thread ended".into(),
                });
            }
        };
        Ok(BlockingSession {
            runtime,
            session,
            op_timeout: DEFAULT_OP_TIMEOUT,
            what,
            shutdown: Some(shutdown_tx),
            thread: Some(thread),
        })
    }

    /// How long one operation may take (waiting for a connection included)
    /// before it fails.
    pub fn set_op_timeout(&mut self, timeout: Duration) {
        self.op_timeout = timeout;
    }

    /// The operation timeout.
    pub fn op_timeout(&self) -> Duration {
        self.op_timeout
    }

    /// The session.
    pub fn session(&self) -> &ZkSession {
        &self.session
    }

    /// Runs `work` with a connected client on the session's thread and
    /// waits for it, at most the operation timeout.
    pub fn run<T, F, Fut>(&self, work: F) -> Result<T, HaError>
    where
        T: Send + 'static,
        F: FnOnce(Client) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, HaError>> + Send + 'static,
    {
        let (tx, rx) = std::sync::mpsc::channel();
        let session = self.session.clone();
        let timeout = self.op_timeout;
        let what = self.what;
        self.runtime.spawn(async move {
            let result = tokio::time::timeout(timeout, async move {
                let client = session.connected_client(timeout).await?;
                work(client).await
            })
            .await
            .unwrap_or(Err(HaError::Timeout { what, timeout }));
            let _ = tx.send(result);
        });
        rx.recv().map_err(|_| HaError::Closed)?
    }
}

impl Drop for BlockingSession {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
