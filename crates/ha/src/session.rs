//! One ZooKeeper session, kept alive for the whole process: reconnects are
//! left to the client (same session, another server of the ensemble), and
//! when the session expires a new one is created, so the components built on
//! it (registration, elections) only watch [`SessionStatus`] and redo their
//! ephemeral nodes when its `generation` changes.
//!
//! # The lease
//!
//! Besides the client's own view of the connection, the session keeps a
//! *lease*: every `session_timeout / 6` it sends a cheap request (`exists /`)
//! and, when the answer comes back, extends the lease to
//! `sent + 2/3 × session_timeout`. A ZooKeeper server expires a session no
//! earlier than the full session timeout after the last request it received
//! from the client, and that request was sent after `sent`; so while the
//! lease holds, our ephemeral nodes cannot have been removed, and nobody can
//! have taken over what they claim. The third of the timeout that is left is
//! the margin for stopping work and for clock-rate differences.
//!
//! The lease is checked against the monotonic clock on every
//! [`ZkSession::lease_valid`] call, so it also covers a process that was
//! stopped (SIGSTOP, a long GC-like pause, a VM freeze): the first check after
//! it resumes fails, before any task of the runtime had a chance to notice.
//! When the lease runs out while the client still believes it is connected,
//! the status turns [`ConnState::Disconnected`] until an answer arrives again.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio::time::sleep_until;
use tracing::{debug, info, warn};
use zookeeper_client::{Acl, Acls, Client, Permission, SessionState};

use crate::HaError;

/// Session timeout asked for when none is configured.
pub const DEFAULT_SESSION_TIMEOUT: Duration = Duration::from_secs(10);

/// How long [`ZkSession::connect`] waits for the first session by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// Pause between attempts to create a new session after one expired.
const RECONNECT_BACKOFF: Duration = Duration::from_millis(500);

/// How long closing waits for the server to confirm the session's end.
const CLOSE_WAIT: Duration = Duration::from_secs(3);

/// Credentials a session presents (ZooKeeper's `addauth`), e.g. digest
/// `user:password`. Debug output leaves the credentials out.
#[derive(Clone, PartialEq, Eq)]
pub struct ZkAuth {
    scheme: String,
    credentials: Vec<u8>,
}

impl ZkAuth {
    pub fn new(scheme: impl Into<String>, credentials: impl Into<Vec<u8>>) -> Self {
        ZkAuth {
            scheme: scheme.into(),
            credentials: credentials.into(),
        }
    }

    /// Parses `scheme:credentials`, e.g. `digest:sluice:secret` (digest
    /// credentials are `user:password`). The error never repeats the text.
    pub fn parse(text: &str) -> Result<ZkAuth, String> {
        let text = text.trim();
        let Some((scheme, credentials)) = text.split_once(':') else {
            return Err("expected scheme:credentials, e.g. digest:user:password".into());
        };
        if scheme.is_empty() || credentials.is_empty() {
            return Err("expected scheme:credentials, e.g. digest:user:password".into());
        }
        if scheme == "digest" && !credentials.contains(':') {
            return Err("digest credentials are user:password (e.g. digest:sluice:secret)".into());
        }
        Ok(ZkAuth::new(scheme, credentials.as_bytes()))
    }

    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    pub fn credentials(&self) -> &[u8] {
        &self.credentials
    }
}

impl std::fmt::Debug for ZkAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZkAuth")
            .field("scheme", &self.scheme)
            .field("credentials", &"***")
            .finish()
    }
}

/// Who may do what with the nodes Sluice creates when the session has
/// credentials ([`ZkConfig::auth`]). Without credentials nodes are open to
/// anyone, as Canal creates them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NodeAcl {
    /// Sessions with the same credentials may do everything; anyone may
    /// read, so Canal clients without credentials still find the servers.
    #[default]
    CreatorAllWorldRead,
    /// Only sessions with the same credentials, reading included.
    CreatorAll,
}

static CREATOR_ALL_WORLD_READ: [Acl; 2] = [
    Acl::new_const(Permission::ALL, "auth", ""),
    Acl::new_const(Permission::READ, "world", "anyone"),
];

/// Where and how to connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZkConfig {
    /// `host:port,host:port,...` (Canal's `canal.zkServers`), optionally with
    /// a chroot suffix (`/path`).
    pub servers: String,
    /// The session timeout to ask for; the servers clamp it to their
    /// `minSessionTimeout`..`maxSessionTimeout` (2 to 20 ticks by default).
    pub session_timeout: Duration,
    /// How long [`ZkSession::connect`] waits for the first session.
    pub connect_timeout: Duration,
    /// Credentials every session presents; with them the nodes Sluice
    /// creates get [`acl`](Self::acl) instead of open access.
    pub auth: Option<ZkAuth>,
    pub acl: NodeAcl,
}

impl ZkConfig {
    pub fn new(servers: impl Into<String>) -> Self {
        ZkConfig {
            servers: servers.into(),
            session_timeout: DEFAULT_SESSION_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            auth: None,
            acl: NodeAcl::default(),
        }
    }

    pub fn with_auth(mut self, auth: ZkAuth) -> Self {
        self.auth = Some(auth);
        self
    }

    pub fn with_acl(mut self, acl: NodeAcl) -> Self {
        self.acl = acl;
        self
    }

    /// The ACL of every node Sluice creates: open without credentials
    /// (Canal's), else [`acl`](Self::acl).
    pub fn node_acls(&self) -> Acls<'static> {
        match (&self.auth, self.acl) {
            (None, _) => Acls::anyone_all(),
            (Some(_), NodeAcl::CreatorAll) => Acls::creator_all(),
            (Some(_), NodeAcl::CreatorAllWorldRead) => Acls::new(&CREATOR_ALL_WORLD_READ),
        }
    }

    pub fn with_session_timeout(mut self, timeout: Duration) -> Self {
        self.session_timeout = timeout;
        self
    }

    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }
}

/// The state of the session as the components built on it should see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnState {
    /// Connected and the lease holds: ephemeral nodes of this session exist.
    Connected,
    /// Not connected (or no answer for too long): the session may still be
    /// alive on the servers, or may already have expired. Stop acting on
    /// anything the session's ephemeral nodes claim.
    Disconnected,
    /// The session expired; a new one is being created.
    Expired,
    /// [`ZkSession::close`] was called (or every handle was dropped).
    Closed,
}

/// A snapshot of the session, published through a `watch` channel.
#[derive(Debug, Clone)]
pub struct SessionStatus {
    pub state: ConnState,
    /// Counts sessions: 1 for the first one, +1 after each expiry.
    pub generation: u64,
    /// The ZooKeeper session id (0 when there is none).
    pub session_id: i64,
    client: Option<Client>,
}

impl SessionStatus {
    /// The client of the session while it is [`ConnState::Connected`] or
    /// [`ConnState::Disconnected`] (requests wait for the reconnection).
    pub fn client(&self) -> Option<&Client> {
        self.client.as_ref()
    }

    pub fn is_connected(&self) -> bool {
        self.state == ConnState::Connected
    }
}

/// The lease deadline, as nanoseconds after `base` (0: no lease).
#[derive(Debug)]
struct Lease {
    base: Instant,
    until: AtomicU64,
}

impl Lease {
    fn new() -> Self {
        Lease {
            base: Instant::now(),
            until: AtomicU64::new(0),
        }
    }

    fn deadline(&self) -> Option<Instant> {
        match self.until.load(Ordering::SeqCst) {
            0 => None,
            n => Some(self.base + Duration::from_nanos(n)),
        }
    }

    fn valid(&self) -> bool {
        self.deadline().is_some_and(|d| Instant::now() < d)
    }

    fn extend_to(&self, deadline: Instant) {
        let n = deadline
            .saturating_duration_since(self.base)
            .as_nanos()
            .clamp(1, u64::MAX as u128) as u64;
        self.until.fetch_max(n, Ordering::SeqCst);
    }

    fn clear(&self) {
        self.until.store(0, Ordering::SeqCst);
    }
}

/// A shared handle on the process's ZooKeeper session. Cheap to clone; the
/// session is closed by [`close`](Self::close) or when the last handle is dropped.
#[derive(Clone, Debug)]
pub struct ZkSession {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: ZkConfig,
    status: watch::Receiver<SessionStatus>,
    close: watch::Sender<bool>,
    /// Set (or dropped) by the supervisor once the session has ended.
    ended: watch::Receiver<bool>,
    lease: Arc<Lease>,
    /// Negotiated timeout of the current session, in milliseconds.
    session_timeout_ms: Arc<AtomicU64>,
}

impl ZkSession {
    /// Connects and waits (at most `config.connect_timeout`) until the first
    /// session is established and answered a request.
    pub async fn connect(config: ZkConfig) -> Result<ZkSession, HaError> {
        let deadline = Instant::now() + config.connect_timeout;
        let first = tokio::time::timeout_at(deadline.into(), new_client(&config))
            .await
            .map_err(|_| HaError::NotConnected {
                servers: config.servers.clone(),
                timeout: config.connect_timeout,
            })??;
        let (status_tx, status_rx) = watch::channel(SessionStatus {
            state: ConnState::Disconnected,
            generation: 0,
            session_id: 0,
            client: None,
        });
        let (close_tx, close_rx) = watch::channel(false);
        let (ended_tx, ended_rx) = watch::channel(false);
        let lease = Arc::new(Lease::new());
        let timeout_ms = Arc::new(AtomicU64::new(first.session_timeout().as_millis() as u64));
        let supervisor = Supervisor {
            config: config.clone(),
            status: status_tx,
            close: close_rx,
            ended: ended_tx,
            lease: lease.clone(),
            session_timeout_ms: timeout_ms.clone(),
        };
        tokio::spawn(supervisor.run(first));
        let session = ZkSession {
            inner: Arc::new(Inner {
                config,
                status: status_rx,
                close: close_tx,
                ended: ended_rx,
                lease,
                session_timeout_ms: timeout_ms,
            }),
        };
        session
            .wait_connected_until(deadline, session.inner.config.connect_timeout)
            .await
            .map(|_| session.clone())
    }

    /// The configuration it was started with.
    pub fn config(&self) -> &ZkConfig {
        &self.inner.config
    }

    /// The current status.
    pub fn status(&self) -> SessionStatus {
        self.inner.status.borrow().clone()
    }

    /// The current session's generation (see [`SessionStatus::generation`]).
    pub fn generation(&self) -> u64 {
        self.inner.status.borrow().generation
    }

    /// A receiver of status changes.
    pub fn subscribe(&self) -> watch::Receiver<SessionStatus> {
        self.inner.status.clone()
    }

    /// The session timeout the servers granted (of the current session).
    pub fn session_timeout(&self) -> Duration {
        Duration::from_millis(self.inner.session_timeout_ms.load(Ordering::SeqCst))
    }

    /// Whether the session is connected and its lease holds right now (see
    /// the module documentation). Check it before acting on what an
    /// ephemeral node of this session claims.
    pub fn lease_valid(&self) -> bool {
        self.inner.lease.valid() && self.inner.status.borrow().state == ConnState::Connected
    }

    /// Until when the lease holds, if it does.
    pub fn lease_deadline(&self) -> Option<Instant> {
        self.inner.lease.deadline()
    }

    /// The client of the current session if it is connected.
    pub fn client(&self) -> Option<Client> {
        let status = self.inner.status.borrow();
        match status.state {
            ConnState::Connected => status.client.clone(),
            _ => None,
        }
    }

    /// Waits until the session is connected and returns its client.
    pub async fn connected_client(&self, timeout: Duration) -> Result<Client, HaError> {
        self.wait_connected_until(Instant::now() + timeout, timeout)
            .await
            .map(|status| status.client)?
            .ok_or(HaError::Closed)
    }

    async fn wait_connected_until(
        &self,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<SessionStatus, HaError> {
        let mut rx = self.inner.status.clone();
        let wait = async {
            loop {
                let status = rx.borrow_and_update().clone();
                match status.state {
                    ConnState::Connected => return Ok(status),
                    ConnState::Closed => return Err(HaError::Closed),
                    _ => {}
                }
                if rx.changed().await.is_err() {
                    return Err(HaError::Closed);
                }
            }
        };
        tokio::time::timeout_at(deadline.into(), wait)
            .await
            .map_err(|_| HaError::NotConnected {
                servers: self.inner.config.servers.clone(),
                timeout,
            })?
    }

    /// Closes the session for every handle: its ephemeral nodes go at once.
    /// Waits until the servers confirmed it (a few seconds at most).
    pub async fn close(&self) {
        self.inner.close.send_replace(true);
        let mut ended = self.inner.ended.clone();
        let _ = tokio::time::timeout(CLOSE_WAIT + Duration::from_secs(1), async {
            while !*ended.borrow_and_update() {
                if ended.changed().await.is_err() {
                    break;
                }
            }
        })
        .await;
    }
}

async fn new_client(config: &ZkConfig) -> Result<Client, HaError> {
    let mut connector = Client::connector().with_session_timeout(config.session_timeout);
    if let Some(auth) = &config.auth {
        connector = connector.with_auth(auth.scheme(), auth.credentials());
    }
    connector
        .connect(&config.servers)
        .await
        .map_err(|e| HaError::Connect {
            servers: config.servers.clone(),
            reason: e.to_string(),
        })
}

type Heartbeat = Pin<Box<dyn Future<Output = (Instant, bool)> + Send>>;

/// The task behind a [`ZkSession`].
struct Supervisor {
    config: ZkConfig,
    status: watch::Sender<SessionStatus>,
    close: watch::Receiver<bool>,
    ended: watch::Sender<bool>,
    lease: Arc<Lease>,
    session_timeout_ms: Arc<AtomicU64>,
}

enum End {
    Expired,
    Closed,
}

impl Supervisor {
    async fn run(mut self, first: Client) {
        let mut generation = 1;
        let mut next = Some(first);
        loop {
            let client = match next.take() {
                Some(c) => c,
                None => match self.reconnect().await {
                    Some(c) => c,
                    None => break,
                },
            };
            self.session_timeout_ms.store(
                client.session_timeout().as_millis() as u64,
                Ordering::SeqCst,
            );
            info!(
                session = %client.session_id(),
                generation,
                timeout_ms = client.session_timeout().as_millis() as u64,
                "ZooKeeper session established"
            );
            let end = self.serve(&client, generation).await;
            self.lease.clear();
            match end {
                End::Expired => {
                    warn!(session = %client.session_id(), "ZooKeeper session expired; creating a new one");
                    self.publish(ConnState::Expired, generation, 0, None);
                    generation += 1;
                }
                End::Closed => {
                    self.finish(client).await;
                    self.ended.send_replace(true);
                    return;
                }
            }
        }
        self.publish(ConnState::Closed, generation, 0, None);
        self.ended.send_replace(true);
    }

    fn closing(&self) -> bool {
        *self.close.borrow()
    }

    /// Creates a new session, retrying until one is established or close is asked.
    async fn reconnect(&mut self) -> Option<Client> {
        loop {
            if self.closing() {
                return None;
            }
            let attempt = tokio::time::timeout(
                self.config.session_timeout.max(Duration::from_secs(1)),
                new_client(&self.config),
            );
            tokio::select! {
                r = attempt => match r {
                    Ok(Ok(client)) => return Some(client),
                    Ok(Err(e)) => debug!("new ZooKeeper session failed: {e}"),
                    Err(_) => debug!("new ZooKeeper session timed out"),
                },
                r = self.close.changed() => if r.is_err() { return None; },
            }
            tokio::select! {
                _ = tokio::time::sleep(RECONNECT_BACKOFF) => {}
                r = self.close.changed() => if r.is_err() { return None; },
            }
        }
    }

    fn publish(&self, state: ConnState, generation: u64, session_id: i64, client: Option<&Client>) {
        self.status.send_if_modified(|s| {
            if s.state == state && s.generation == generation && s.session_id == session_id {
                return false;
            }
            debug!(?state, generation, "ZooKeeper session status");
            *s = SessionStatus {
                state,
                generation,
                session_id,
                client: client.cloned(),
            };
            true
        });
    }

    /// Runs one session until it expires or close is asked.
    async fn serve(&mut self, client: &Client, generation: u64) -> End {
        let timeout = client.session_timeout();
        let interval = timeout / 6;
        let lease_len = timeout * 2 / 3;
        let session_id = client.session_id().0;
        let mut states = client.state_watcher();
        let mut connected = states.state() == SessionState::SyncConnected;
        let mut heartbeat: Option<Heartbeat> = None;
        let mut next_beat = Instant::now();
        loop {
            if self.closing() {
                return End::Closed;
            }
            let state = if connected && self.lease.valid() {
                ConnState::Connected
            } else {
                ConnState::Disconnected
            };
            self.publish(state, generation, session_id, Some(client));
            let lease_end = self.lease.deadline();
            tokio::select! {
                biased;
                r = self.close.changed() => {
                    if r.is_err() || self.closing() {
                        return End::Closed;
                    }
                }
                s = states.changed() => match s {
                    SessionState::SyncConnected => {
                        info!(session = %client.session_id(), "ZooKeeper connection re-established");
                        connected = true;
                        next_beat = Instant::now();
                    }
                    SessionState::Disconnected | SessionState::ConnectedReadOnly => {
                        warn!(session = %client.session_id(), "ZooKeeper connection lost");
                        connected = false;
                        self.lease.clear();
                        heartbeat = None;
                    }
                    SessionState::Expired | SessionState::Closed | SessionState::AuthFailed => {
                        return End::Expired;
                    }
                },
                (sent, ok) = async {
                    match heartbeat.as_mut() {
                        Some(h) => h.await,
                        None => std::future::pending().await,
                    }
                }, if heartbeat.is_some() => {
                    heartbeat = None;
                    if ok && connected {
                        self.lease.extend_to(sent + lease_len);
                    }
                    next_beat = sent + interval;
                }
                _ = sleep_until(next_beat.into()), if connected && heartbeat.is_none() => {
                    let c = client.clone();
                    let sent = Instant::now();
                    heartbeat = Some(Box::pin(async move {
                        let ok = c.check_stat("/").await.is_ok();
                        (sent, ok)
                    }));
                }
                _ = sleep_until(lease_end.unwrap_or_else(Instant::now).into()), if lease_end.is_some() => {
                    if !self.lease.valid() {
                        warn!(session = %client.session_id(), "no answer from ZooKeeper within the lease; treating the session as disconnected");
                        self.lease.clear();
                    }
                }
            }
        }
    }

    /// Publishes `Closed`, drops our client and waits until the session ended.
    async fn finish(&mut self, client: Client) {
        let mut states = client.state_watcher();
        let id = client.session_id();
        self.status.send_modify(|s| {
            s.state = ConnState::Closed;
            s.client = None;
        });
        // The session ends when its last client handle is gone: ours now, the
        // components' as soon as they see `Closed`.
        drop(client);
        let ended = tokio::time::timeout(CLOSE_WAIT, async {
            loop {
                if states.state().is_terminated() {
                    return;
                }
                states.changed().await;
            }
        })
        .await;
        if ended.is_err() {
            warn!(session = %id, "ZooKeeper session not confirmed closed within {CLOSE_WAIT:?}");
        } else {
            info!(session = %id, "ZooKeeper session closed");
        }
    }
}

/// A one-shot node watch, kept in a task's state between polls.
pub(crate) type WatchFuture = Pin<Box<dyn Future<Output = zookeeper_client::WatchedEvent> + Send>>;

/// The event of a task's pending watch; never ready without one (for a
/// `select!` arm guarded on the watch being set).
pub(crate) async fn watch_event(watch: &mut Option<WatchFuture>) -> zookeeper_client::WatchedEvent {
    match watch.as_mut() {
        Some(w) => w.await,
        None => std::future::pending().await,
    }
}

/// A spawned task that ends when this is dropped.
pub(crate) struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Calls `step_down` with the state each time the session is seen other
/// than connected, until the session ends or the returned guard is
/// dropped. Elections give up a role this way the moment the connection is
/// in doubt, even while their own task waits on a request.
pub(crate) fn spawn_fence(
    mut status: watch::Receiver<SessionStatus>,
    step_down: impl Fn(ConnState) + Send + 'static,
) -> AbortOnDrop {
    AbortOnDrop(tokio::spawn(async move {
        loop {
            let state = status.borrow_and_update().state;
            if state != ConnState::Connected {
                step_down(state);
            }
            if status.changed().await.is_err() {
                return;
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lease_holds_until_its_deadline_and_never_shrinks() {
        let lease = Lease::new();
        assert!(!lease.valid());
        assert_eq!(lease.deadline(), None);
        let now = Instant::now();
        lease.extend_to(now + Duration::from_secs(60));
        assert!(lease.valid());
        // An older answer arriving late does not shorten it.
        lease.extend_to(now + Duration::from_secs(1));
        assert!(lease.deadline().unwrap() >= now + Duration::from_secs(59));
        lease.clear();
        assert!(!lease.valid());
        // A deadline in the past is no lease.
        lease.extend_to(now);
        assert!(!lease.valid());
    }

    #[test]
    fn config_defaults() {
        let c = ZkConfig::new("a:1,b:2");
        assert_eq!(c.session_timeout, DEFAULT_SESSION_TIMEOUT);
        assert_eq!(c.connect_timeout, DEFAULT_CONNECT_TIMEOUT);
        let c = c
            .with_session_timeout(Duration::from_secs(3))
            .with_connect_timeout(Duration::from_secs(1));
        assert_eq!(c.session_timeout, Duration::from_secs(3));
        assert_eq!(c.connect_timeout, Duration::from_secs(1));
    }
}
