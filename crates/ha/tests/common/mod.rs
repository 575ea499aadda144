//! Helpers shared by the tests that run against a real ZooKeeper.

#![allow(dead_code)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sluice_ha::zookeeper_client::{Acls, Client, CreateMode};
use sluice_ha::{Role, RunningElection, ZkConfig, ZkSession};

/// Logs to the test output when `RUST_LOG` is set.
pub fn init_tracing() {
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .try_init();
    }
}

/// A multi-threaded runtime with one worker, for the synchronous tests.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

/// A session with a short timeout.
pub async fn session(servers: &str, timeout: Duration) -> ZkSession {
    ZkSession::connect(ZkConfig::new(servers).with_session_timeout(timeout))
        .await
        .unwrap()
}

/// A plain client, as Canal or an operator would use.
pub async fn raw(servers: &str) -> Client {
    Client::connect(servers).await.unwrap()
}

pub async fn raw_get(client: &Client, path: &str) -> Option<(Vec<u8>, i64)> {
    match client.get_data(path).await {
        Ok((data, stat)) => Some((data, stat.ephemeral_owner)),
        Err(sluice_ha::zookeeper_client::Error::NoNode) => None,
        Err(e) => panic!("reading {path}: {e}"),
    }
}

pub async fn raw_create(client: &Client, path: &str, data: &[u8], mode: CreateMode) {
    if let Some(i) = path.rfind('/') {
        if i > 0 {
            client
                .mkdir(
                    &path[..i],
                    &CreateMode::Persistent.with_acls(Acls::anyone_all()),
                )
                .await
                .unwrap();
        }
    }
    client
        .create(path, data, &mode.with_acls(Acls::anyone_all()))
        .await
        .unwrap();
}

/// Waits until `e` has `role`; returns how long that took.
pub async fn wait_role(e: &RunningElection, role: Role, timeout: Duration) -> Duration {
    let t0 = Instant::now();
    tokio::time::timeout(timeout, e.wait_for(role))
        .await
        .unwrap_or_else(|_| {
            panic!(
                "{} did not become {role:?} within {timeout:?} (is {:?})",
                e.config().address(),
                e.role()
            )
        });
    t0.elapsed()
}

/// Whether `e` stays away from `role` for `period`.
pub async fn stays_away_from(e: &RunningElection, role: Role, period: Duration) -> bool {
    tokio::time::timeout(period, e.wait_for(role))
        .await
        .is_err()
}

/// A flag set as soon as `e` is ever seen Running.
pub fn ever_running(e: &RunningElection) -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(*e.subscribe().borrow() == Role::Running));
    let mut rx = e.subscribe();
    let f = flag.clone();
    tokio::spawn(async move {
        loop {
            if *rx.borrow_and_update() == Role::Running {
                f.store(true, Ordering::SeqCst);
            }
            if rx.changed().await.is_err() {
                return;
            }
        }
    });
    flag
}

/// Polls `check` until it holds or `timeout` passes.
pub async fn eventually<F, Fut>(timeout: Duration, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if check().await {
            return;
        }
        if Instant::now() >= deadline {
            panic!("{what}: not within {timeout:?}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A TCP proxy in front of a ZooKeeper server that can stop forwarding, as a
/// network partition between one client and the ensemble would: connections
/// stay open, nothing gets through.
pub struct Proxy {
    pub addr: String,
    paused: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    pub async fn start(target: &str) -> Proxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let (paused, rx) = tokio::sync::watch::channel(false);
        let target = target.to_string();
        let task = tokio::spawn(async move {
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    return;
                };
                let target = target.clone();
                let rx = rx.clone();
                tokio::spawn(async move {
                    let Ok(server) = tokio::net::TcpStream::connect(&target).await else {
                        return;
                    };
                    let (cr, cw) = client.into_split();
                    let (sr, sw) = server.into_split();
                    tokio::spawn(pump(cr, sw, rx.clone()));
                    tokio::spawn(pump(sr, cw, rx));
                });
            }
        });
        Proxy { addr, paused, task }
    }

    pub fn pause(&self) {
        self.paused.send_replace(true);
    }

    pub fn resume(&self) {
        self.paused.send_replace(false);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut paused: tokio::sync::watch::Receiver<bool>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        // Held while paused, like packets in a partition (delivered late if
        // the connection is still open when it heals).
        if paused.wait_for(|p| !*p).await.is_err() {
            return;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}
