//! Who runs a destination: the ephemeral `running` node, with Canal's rules,
//! plus fencing, which Canal lacks.
//!
//! # Canal's rules
//!
//! Every server that can run a destination starts a [`RunningElection`] for
//! it. It creates `/otter/canal/destinations/{dest}/running` (ephemeral,
//! `{"active":true,"address":"ip:port"}`) if the node is absent; whoever
//! created it runs the destination, the others are standbys and watch the
//! node. When it disappears:
//!
//! - the previous owner (the node named our address) takes it again at once;
//! - the others wait `delay` (5 s by default) and take it only if it is still
//!   free. This is Canal's protection against a short session loss of the
//!   owner: a server whose session expired because of a blip gets its
//!   destination back instead of forcing a failover.
//!
//! When the node's data changes to another address, or to `active:false`,
//! the owner stops running (`active:false` written with the owner's address
//! is a release request: the owner deletes the node). [`RunningElection::release`]
//! writes `active:false` and deletes the node; seeing a release, the others
//! take the node at once (Canal's own servers keep their delay, which only
//! slows a mixed fleet down), while the releasing server stays out for
//! `delay` so that the destination moves, and takes it back after that only
//! if nobody else did.
//!
//! The same machinery runs a client's `/{clientId}/running` node
//! ([`ElectionConfig::client`]), as Canal's Java cluster client does.
//!
//! # Fencing
//!
//! Canal's owner keeps dumping until it learns that its session expired, so
//! after a long pause or a network partition two servers can dump at once
//! (its issue #464). Here the role seen by the dumping code is
//! [`Role::Running`] only while
//!
//! - the node exists, names our address, and its ephemeral owner is our
//!   current session, and
//! - the session is connected *and* its lease holds (see
//!   [`crate::session`]).
//!
//! The role flips to [`Role::Standby`] as soon as the client reports the
//! connection lost, which it does after 2/5 of the session timeout without an
//! answer, or when the lease (2/3 of the timeout after the last answered
//! request was sent) runs out, whichever comes first. The session timeout is
//! the earliest moment at which the servers can expire our session and so
//! delete the node; only after that can another server take over, and
//! another server that is not the previous owner waits `delay` on top. So a
//! server that stops at disconnection has stopped before anybody else can
//! start. It competes again only once the session is connected again (same
//! session: the node is still ours and we resume at once; expired session: a
//! new session is created and the rules above apply).
//!
//! [`RunningElection::is_running`] also checks the lease against the clock
//! on each call, which covers a process that was itself stopped: after a
//! SIGCONT the first check fails even before any task has run. Dumping code
//! should check it before each batch it publishes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::sleep_until;
use tracing::{debug, info, warn};
use zookeeper_client::{Client, CreateMode, EventType, OneshotWatcher, WatchedEvent};

use crate::paths::{self, check_node_name, ClientRunningData, RunningInfo, ServerRunningData};
use crate::session::{
    spawn_fence, watch_event, AbortOnDrop, ConnState, SessionStatus, WatchFuture, ZkSession,
};
use crate::HaError;

/// Canal's delay before a server other than the previous owner takes a
/// destination whose `running` node disappeared.
pub const DEFAULT_DELAY: Duration = Duration::from_secs(5);

/// Pause before retrying after a failed ZooKeeper request.
const RETRY_PAUSE: Duration = Duration::from_millis(500);

/// Whether this process may act for the destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Not ours (or not provably ours right now): do not dump, do not serve.
    Standby,
    /// Ours: dump and serve.
    Running,
}

/// What to compete for and as whom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElectionConfig {
    path: String,
    address: String,
    active_data: Vec<u8>,
    released_data: Vec<u8>,
    delay: Duration,
}

impl ElectionConfig {
    /// A server at `address` (`ip:port`) competing for `destination`'s
    /// `running` node.
    pub fn server(destination: &str, address: &str) -> Result<Self, HaError> {
        check_node_name("destination", destination)?;
        check_node_name("address", address)?;
        let active = ServerRunningData::new(address);
        let released = ServerRunningData {
            active: false,
            ..active.clone()
        };
        Ok(ElectionConfig {
            path: paths::destination_running(destination),
            address: address.to_string(),
            active_data: active.to_json(),
            released_data: released.to_json(),
            delay: DEFAULT_DELAY,
        })
    }

    /// A client process at `address` (its IP, as Canal's Java client writes
    /// it) competing to consume `destination` as `client_id`.
    pub fn client(destination: &str, client_id: i16, address: &str) -> Result<Self, HaError> {
        check_node_name("destination", destination)?;
        let active = ClientRunningData::new(address, client_id);
        let released = ClientRunningData {
            active: false,
            ..active.clone()
        };
        Ok(ElectionConfig {
            path: paths::client_running(destination, client_id),
            address: address.to_string(),
            active_data: active.to_json(),
            released_data: released.to_json(),
            delay: DEFAULT_DELAY,
        })
    }

    /// How long a server that is not the previous owner waits before taking a
    /// free node (default [`DEFAULT_DELAY`]).
    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// The node competed for.
    pub fn path(&self) -> &str {
        &self.path
    }

    pub fn address(&self) -> &str {
        &self.address
    }

    pub fn delay(&self) -> Duration {
        self.delay
    }
}

enum Command {
    Release(oneshot::Sender<Result<bool, HaError>>),
    Stop(oneshot::Sender<Result<(), HaError>>),
}

/// One process competing for one `running` node; see the module documentation.
pub struct RunningElection {
    config: ElectionConfig,
    session: ZkSession,
    role: watch::Receiver<Role>,
    active: watch::Receiver<Option<RunningInfo>>,
    commands: mpsc::UnboundedSender<Command>,
    /// The session generation the Running role was taken in.
    running_generation: Arc<AtomicU64>,
    task: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for RunningElection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningElection")
            .field("path", &self.config.path)
            .field("address", &self.config.address)
            .field("role", &*self.role.borrow())
            .finish_non_exhaustive()
    }
}

impl RunningElection {
    /// Starts competing on `session`. Must be called inside a tokio runtime.
    pub fn start(session: &ZkSession, config: ElectionConfig) -> RunningElection {
        let (role_tx, role_rx) = watch::channel(Role::Standby);
        let role_tx = Arc::new(role_tx);
        // Setting Running (in [`Task::set_role`]) re-checks the session
        // under the role channel's lock, so this cannot interleave into a
        // stale Running.
        let fence = spawn_fence(session.subscribe(), {
            let role = role_tx.clone();
            let path = config.path.clone();
            move |state| {
                let flipped =
                    role.send_if_modified(|r| std::mem::replace(r, Role::Standby) != Role::Standby);
                if flipped {
                    warn!(%path, ?state, "ZooKeeper session not connected: standing by");
                }
            }
        });
        let (active_tx, active_rx) = watch::channel(None);
        let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
        let running_generation = Arc::new(AtomicU64::new(0));
        let task = Task {
            running_generation: running_generation.clone(),
            config: config.clone(),
            session: session.clone(),
            status: session.subscribe(),
            role: role_tx,
            _fence: fence,
            active: active_tx,
            commands: cmd_rx,
            last_seen: None,
            take_now: true,
            attempt_at: None,
            hold_off_until: None,
            changed_then_gone: false,
            watch: None,
            dirty: true,
            retry_at: None,
        };
        let handle = tokio::spawn(task.run());
        RunningElection {
            config,
            session: session.clone(),
            role: role_rx,
            active: active_rx,
            commands: cmd_tx,
            running_generation,
            task: Some(handle),
        }
    }

    pub fn config(&self) -> &ElectionConfig {
        &self.config
    }

    /// The published role (see [`is_running`](Self::is_running) for the
    /// check to make before acting).
    pub fn role(&self) -> Role {
        *self.role.borrow()
    }

    /// A receiver of role changes.
    pub fn subscribe(&self) -> watch::Receiver<Role> {
        self.role.clone()
    }

    /// Whether this process may act right now: the role is
    /// [`Role::Running`], taken in the current session, and the session's
    /// lease holds at this instant.
    pub fn is_running(&self) -> bool {
        *self.role.borrow() == Role::Running
            && self.session.lease_valid()
            && self.session.generation() == self.running_generation.load(Ordering::SeqCst)
    }

    /// What the node said when last read (`None` while it is absent).
    pub fn active(&self) -> Option<RunningInfo> {
        self.active.borrow().clone()
    }

    /// A receiver of the node's content as it changes.
    pub fn watch_active(&self) -> watch::Receiver<Option<RunningInfo>> {
        self.active.clone()
    }

    /// Waits until the role is `role`.
    pub async fn wait_for(&self, role: Role) {
        let mut rx = self.role.clone();
        let _ = rx.wait_for(|r| *r == role).await;
    }

    /// Hands the node over: stops running, writes `active:false`, deletes
    /// the node and stays out for `delay`. Returns whether we held it.
    pub async fn release(&self) -> Result<bool, HaError> {
        let (tx, rx) = oneshot::channel();
        self.commands
            .send(Command::Release(tx))
            .map_err(|_| HaError::Closed)?;
        rx.await.map_err(|_| HaError::Closed)?
    }

    /// Stops competing: a held node is released as by
    /// [`release`](Self::release) (so others take it at once).
    pub async fn stop(mut self) -> Result<(), HaError> {
        let (tx, rx) = oneshot::channel();
        if self.commands.send(Command::Stop(tx)).is_err() {
            return Ok(());
        }
        let result = rx.await.unwrap_or(Ok(()));
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
        result
    }
}

impl Drop for RunningElection {
    fn drop(&mut self) {
        if self.task.is_some() {
            // The task releases the node and ends; nobody waits for it.
            let (tx, _rx) = oneshot::channel();
            let _ = self.commands.send(Command::Stop(tx));
        }
    }
}

struct Task {
    config: ElectionConfig,
    session: ZkSession,
    status: watch::Receiver<SessionStatus>,
    role: Arc<watch::Sender<Role>>,
    running_generation: Arc<AtomicU64>,
    /// Flips the role to Standby as soon as the session is not connected,
    /// even while this task waits on a request.
    _fence: AbortOnDrop,
    active: watch::Sender<Option<RunningInfo>>,
    commands: mpsc::UnboundedReceiver<Command>,
    /// The node's content when last seen (Canal's `activeData`); kept while
    /// the node is absent, to decide who may take it at once.
    last_seen: Option<RunningInfo>,
    /// Take the node at once the next time it is seen absent.
    take_now: bool,
    /// When a delayed attempt is due.
    attempt_at: Option<Instant>,
    /// After our own release: do not take the node before this.
    hold_off_until: Option<Instant>,
    /// The node's data changed and it was gone before we could read it: a release.
    changed_then_gone: bool,
    watch: Option<WatchFuture>,
    /// The node must be read again.
    dirty: bool,
    retry_at: Option<Instant>,
}

/// How a read of the node went.
enum Outcome {
    Done,
    /// Try again after a pause.
    Retry,
}

impl Task {
    async fn run(mut self) {
        loop {
            let status = self.status.borrow_and_update().clone();
            match status.state {
                ConnState::Closed => {
                    self.set_role(Role::Standby, &status);
                    self.drain_commands_closed();
                    return;
                }
                ConnState::Connected => {}
                ConnState::Disconnected | ConnState::Expired => {
                    // Fencing: stop before the session can have expired.
                    self.set_role(Role::Standby, &status);
                }
            }
            if status.state == ConnState::Connected && self.dirty && self.retry_at.is_none() {
                if let Some(client) = status.client() {
                    match self.sync(client, &status).await {
                        Ok(Outcome::Done) => self.dirty = false,
                        Ok(Outcome::Retry) => self.retry_at = Some(Instant::now() + RETRY_PAUSE),
                        Err(e) => {
                            debug!(path = %self.config.path, "election read failed: {e}");
                            self.retry_at = Some(Instant::now() + RETRY_PAUSE);
                        }
                    }
                }
            }
            let attempt_at = self.attempt_at;
            let retry_at = self.retry_at;
            tokio::select! {
                biased;
                r = self.status.changed() => {
                    if r.is_err() {
                        let status = self.status.borrow().clone();
                        self.set_role(Role::Standby, &status);
                        return;
                    }
                    let new = self.status.borrow().clone();
                    if new.generation != status.generation {
                        // The watch belonged to the old session.
                        self.watch = None;
                    }
                    self.dirty = true;
                    self.retry_at = None;
                }
                cmd = self.commands.recv() => match cmd {
                    Some(Command::Release(reply)) => {
                        let r = self.release().await;
                        let _ = reply.send(r);
                    }
                    Some(Command::Stop(reply)) => {
                        let r = self.release().await.map(|_| ());
                        let status = self.status.borrow().clone();
                        self.set_role(Role::Standby, &status);
                        let _ = reply.send(r);
                        return;
                    }
                    None => {
                        let _ = self.release().await;
                        return;
                    }
                },
                event = watch_event(&mut self.watch), if self.watch.is_some() => {
                    self.watch = None;
                    self.on_event(event);
                }
                _ = sleep_until(attempt_at.unwrap_or_else(Instant::now).into()), if attempt_at.is_some() => {
                    self.attempt_at = None;
                    self.take_now = true;
                    self.dirty = true;
                }
                _ = sleep_until(retry_at.unwrap_or_else(Instant::now).into()), if retry_at.is_some() => {
                    self.retry_at = None;
                }
            }
        }
    }

    fn drain_commands_closed(&mut self) {
        self.commands.close();
        while let Ok(cmd) = self.commands.try_recv() {
            match cmd {
                Command::Release(reply) => {
                    let _ = reply.send(Err(HaError::Closed));
                }
                Command::Stop(reply) => {
                    let _ = reply.send(Ok(()));
                }
            }
        }
    }

    fn set_role(&self, role: Role, status: &SessionStatus) {
        // Running only with a connected session whose lease holds, and only
        // for the session that owns the node (checked by the caller).
        // The check runs under the channel's lock, so it cannot interleave
        // with the fence task's Standby (see `fence`).
        let mut now = role;
        let changed = self.role.send_if_modified(|r| {
            if role == Role::Running
                && (status.state != ConnState::Connected
                    || self.status.borrow().generation != status.generation
                    || !self.session.lease_valid())
            {
                now = Role::Standby;
            }
            if now == Role::Running {
                self.running_generation
                    .store(status.generation, Ordering::SeqCst);
            }
            if *r == now {
                false
            } else {
                *r = now;
                true
            }
        });
        if changed {
            info!(path = %self.config.path, address = %self.config.address, role = ?now, "running role changed");
        }
    }

    fn set_watch(&mut self, watcher: OneshotWatcher) {
        self.watch = Some(Box::pin(watcher.changed()));
    }

    fn on_event(&mut self, event: WatchedEvent) {
        debug!(path = %self.config.path, ?event, "running node event");
        if event.event_type == EventType::NodeDataChanged {
            self.changed_then_gone = true;
        }
        self.dirty = true;
    }

    fn mine(&self, info: &RunningInfo) -> bool {
        info.address == self.config.address
    }

    /// Reads the node (setting a watch) and acts on what it says.
    async fn sync(&mut self, client: &Client, status: &SessionStatus) -> Result<Outcome, HaError> {
        let path = self.config.path.clone();
        for _ in 0..8 {
            match client.get_and_watch_data(&path).await {
                Ok((data, stat, watcher)) => {
                    self.set_watch(watcher);
                    self.changed_then_gone = false;
                    self.attempt_at = None;
                    self.take_now = false;
                    let info = match RunningInfo::from_json(&data) {
                        Ok(info) => Some(info),
                        Err(e) => {
                            warn!(%path, "running node holds invalid JSON ({e}): {:?}", String::from_utf8_lossy(&data));
                            None
                        }
                    };
                    let ours = stat.ephemeral_owner == status.session_id;
                    match &info {
                        Some(i) if ours && self.mine(i) && i.active => {
                            self.set_role(Role::Running, status);
                        }
                        Some(i) if ours && self.mine(i) => {
                            // `active:false` with our address: a release request.
                            self.set_role(Role::Standby, status);
                            self.hold_off_until = Some(Instant::now() + self.config.delay);
                            info!(%path, "release requested; deleting the running node");
                            match client.delete(&path, Some(stat.version)).await {
                                Ok(()) | Err(zookeeper_client::Error::NoNode) => {}
                                Err(zookeeper_client::Error::BadVersion) => {}
                                Err(e) => return Err(HaError::zk("delete", &path)(e)),
                            }
                            self.last_seen = info.clone();
                            continue;
                        }
                        _ => {
                            if ours {
                                warn!(%path, "our running node names someone else; standing by");
                            }
                            self.set_role(Role::Standby, status);
                        }
                    }
                    self.publish_active(info.clone());
                    // Unreadable content still means somebody holds it: if
                    // it goes, wait the delay as for any other owner.
                    self.last_seen = Some(info.unwrap_or(RunningInfo {
                        active: true,
                        address: String::new(),
                    }));
                    return Ok(Outcome::Done);
                }
                Err(zookeeper_client::Error::NoNode) => {
                    let (stat, watcher) = client
                        .check_and_watch_stat(&path)
                        .await
                        .map_err(HaError::zk("exists", &path))?;
                    if stat.is_some() {
                        // Created meanwhile: read it.
                        continue;
                    }
                    self.set_watch(watcher);
                    self.set_role(Role::Standby, status);
                    self.publish_active(None);
                    if !self.may_take_now() {
                        return Ok(Outcome::Done);
                    }
                    let acls = self.session.config().node_acls();
                    let mode = CreateMode::Ephemeral.with_acls(acls);
                    match client.create(&path, &self.config.active_data, &mode).await {
                        Ok(_) => {
                            info!(%path, address = %self.config.address, "took the running node");
                        }
                        Err(zookeeper_client::Error::NodeExists) => {}
                        Err(zookeeper_client::Error::NoNode) => {
                            if let Some(parent) = paths::parent(&path) {
                                let dir = CreateMode::Persistent.with_acls(acls);
                                client
                                    .mkdir(parent, &dir)
                                    .await
                                    .map_err(HaError::zk("create", parent))?;
                            }
                        }
                        Err(e) => return Err(HaError::zk("create", &path)(e)),
                    }
                    // Read it back: sets the data watch and the role.
                }
                Err(e) => return Err(HaError::zk("read", &path)(e)),
            }
        }
        Ok(Outcome::Retry)
    }

    /// The node is absent: may we take it now? Otherwise schedules the attempt.
    fn may_take_now(&mut self) -> bool {
        let now = Instant::now();
        if let Some(until) = self.hold_off_until {
            if now < until {
                self.attempt_at = Some(until);
                return false;
            }
            self.hold_off_until = None;
        }
        let released = self.changed_then_gone;
        self.changed_then_gone = false;
        let immediate = self.take_now
            || released
            || match &self.last_seen {
                None => true,
                Some(i) => self.mine(i) || !i.active,
            };
        if immediate {
            self.take_now = false;
            self.attempt_at = None;
            return true;
        }
        if self.attempt_at.is_none() {
            info!(path = %self.config.path, delay = ?self.config.delay, previous = ?self.last_seen.as_ref().map(|i| &i.address),
                "running node is free; taking it after the delay unless its previous owner does");
            self.attempt_at = Some(now + self.config.delay);
        }
        false
    }

    fn publish_active(&self, info: Option<RunningInfo>) {
        let changed = self.active.send_if_modified(|a| {
            if *a == info {
                false
            } else {
                *a = info.clone();
                true
            }
        });
        // A standby says so (and who runs it) whenever the owner changes.
        if let Some(owner) = info.filter(|i| changed && i.address != self.config.address) {
            info!(path = %self.config.path, address = %self.config.address, running_on = %owner.address,
                "standing by: another server runs the destination; taking over if it goes");
        }
    }

    /// Stops running, marks the node released and deletes it if it is ours.
    async fn release(&mut self) -> Result<bool, HaError> {
        let status = self.status.borrow().clone();
        self.set_role(Role::Standby, &status);
        let client = match (status.state, status.client()) {
            (ConnState::Connected, Some(client)) => client,
            _ => {
                return Err(HaError::NotConnected {
                    servers: self.session.config().servers.clone(),
                    timeout: Duration::ZERO,
                })
            }
        };
        let path = self.config.path.clone();
        let (data, stat) = match client.get_data(&path).await {
            Ok(found) => found,
            Err(zookeeper_client::Error::NoNode) => return Ok(false),
            Err(e) => return Err(HaError::zk("read", &path)(e)),
        };
        let mine = RunningInfo::from_json(&data)
            .map(|i| self.mine(&i))
            .unwrap_or(false);
        if stat.ephemeral_owner != status.session_id || !mine {
            return Ok(false);
        }
        info!(%path, address = %self.config.address, "releasing the running node");
        self.hold_off_until = Some(Instant::now() + self.config.delay);
        match client
            .set_data(&path, &self.config.released_data, Some(stat.version))
            .await
        {
            Ok(_) => {}
            Err(zookeeper_client::Error::NoNode) => return Ok(true),
            Err(zookeeper_client::Error::BadVersion) => {}
            Err(e) => return Err(HaError::zk("write", &path)(e)),
        }
        self.last_seen = Some(RunningInfo {
            active: false,
            address: self.config.address.clone(),
        });
        match client.delete(&path, None).await {
            Ok(()) | Err(zookeeper_client::Error::NoNode) => {}
            Err(e) => return Err(HaError::zk("delete", &path)(e)),
        }
        self.dirty = true;
        Ok(true)
    }
}

/// Follows a `running` node without competing: what a cluster client needs
/// to find the server that runs a destination.
pub struct RunningObserver {
    active: watch::Receiver<Option<RunningInfo>>,
    task: JoinHandle<()>,
}

impl RunningObserver {
    /// Follows `/otter/canal/destinations/{destination}/running`.
    pub fn server(session: &ZkSession, destination: &str) -> Result<RunningObserver, HaError> {
        check_node_name("destination", destination)?;
        Ok(Self::path(session, paths::destination_running(destination)))
    }

    /// Follows any `running` node.
    pub fn path(session: &ZkSession, path: String) -> RunningObserver {
        let (tx, rx) = watch::channel(None);
        let task = tokio::spawn(observe(session.subscribe(), path, tx));
        RunningObserver { active: rx, task }
    }

    /// What the node says now (`None` while absent or unknown).
    pub fn active(&self) -> Option<RunningInfo> {
        self.active.borrow().clone()
    }

    /// A receiver of the node's content as it changes.
    pub fn subscribe(&self) -> watch::Receiver<Option<RunningInfo>> {
        self.active.clone()
    }
}

impl Drop for RunningObserver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn observe(
    mut status: watch::Receiver<SessionStatus>,
    path: String,
    tx: watch::Sender<Option<RunningInfo>>,
) {
    let mut watch: Option<WatchFuture> = None;
    let mut dirty = true;
    loop {
        let current = status.borrow_and_update().clone();
        if current.state == ConnState::Closed {
            return;
        }
        let mut retry = None;
        if current.state == ConnState::Connected && dirty {
            if let Some(client) = current.client() {
                match read_running(client, &path).await {
                    Ok((info, watcher)) => {
                        watch = Some(Box::pin(watcher.changed()));
                        tx.send_replace(info);
                        dirty = false;
                    }
                    Err(e) => {
                        debug!(%path, "reading the running node failed: {e}");
                        retry = Some(Instant::now() + RETRY_PAUSE);
                    }
                }
            }
        }
        tokio::select! {
            r = status.changed() => {
                if r.is_err() {
                    return;
                }
                dirty = true;
            }
            _ = async {
                match watch.as_mut() {
                    Some(w) => { w.await; }
                    None => std::future::pending::<()>().await,
                }
            }, if watch.is_some() => {
                watch = None;
                dirty = true;
            }
            _ = sleep_until(retry.unwrap_or_else(Instant::now).into()), if retry.is_some() => {}
        }
    }
}

/// Reads a `running` node and sets a watch on it (present or not).
async fn read_running(
    client: &Client,
    path: &str,
) -> Result<(Option<RunningInfo>, OneshotWatcher), HaError> {
    loop {
        match client.get_and_watch_data(path).await {
            Ok((data, _, watcher)) => {
                let info = RunningInfo::from_json(&data)
                    .map_err(|source| HaError::Json {
                        path: path.to_string(),
                        source,
                    })
                    .inspect_err(|e| warn!("{e}"))
                    .ok();
                return Ok((info, watcher));
            }
            Err(zookeeper_client::Error::NoNode) => {
                let (stat, watcher) = client
                    .check_and_watch_stat(path)
                    .await
                    .map_err(HaError::zk("exists", path))?;
                if stat.is_none() {
                    return Ok((None, watcher));
                }
            }
            Err(e) => return Err(HaError::zk("read", path)(e)),
        }
    }
}
