//! Leader election in the layout of Apache Curator's `LeaderLatch`, so Rust
//! and Java processes can compete in the same latch.
//!
//! # Layout
//!
//! Every participant creates an ephemeral-sequential child of the latch path
//! (default [`DEFAULT_LATCH_PATH`]) named the way Curator's protected mode
//! names it, `_c_<uuid>-latch-<10-digit sequence>`, holding the participant
//! id as UTF-8 (empty by default). Missing parents are created as container
//! nodes, as Curator does, so the server may remove an empty latch path.
//! Children are ordered by the text after the last `latch-` (Curator's
//! order, foreign children included); the first one leads.
//!
//! # Algorithm
//!
//! - The first participant checks that its node's ephemeral owner is its own
//!   session before it claims leadership (a node left from an older session
//!   would otherwise make two leaders) and watches its own node, so a node
//!   deleted by someone else makes it step down and join again at once.
//! - Every other participant watches only its immediate predecessor (a data
//!   watch, as Curator's) and its own node; when either changes the children
//!   are listed again. A predecessor gone before the watch is set means
//!   listing again at once.
//! - A create that fails with a connection loss may still have happened: the
//!   next attempt first looks for a child with the same `_c_<uuid>-` prefix
//!   and adopts it, and creates again with the same uuid otherwise.
//!
//! # Connection states
//!
//! Leadership is dropped as soon as the session is not
//! [`ConnState::Connected`] (Curator's default policy, which treats
//! SUSPENDED as loss): the session reports a disconnection after 2/5 of the
//! session timeout without an answer, and its lease (see [`crate::session`])
//! runs out after 2/3, both before the servers can expire the session and so
//! before anybody else can be elected. Reconnected with the same session the
//! latch checks the children again (our node is still there and we may lead
//! again at once); after an expiry it joins with a new node, at the end of
//! the queue.
//!
//! [`LeaderLatch::has_leadership`] also checks the session's lease against
//! the clock on every call, so work guarded by it stops even when this
//! process was paused and no task has run since.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::sleep_until;
use tracing::{debug, info, warn};
use zookeeper_client::{Client, CreateMode};

use crate::session::{
    spawn_fence, watch_event, AbortOnDrop, ConnState, SessionStatus, WatchFuture, ZkSession,
};
use crate::HaError;

/// Where the latch lives unless configured otherwise.
pub const DEFAULT_LATCH_PATH: &str = "/leader";

/// Curator's `LeaderLatch.LOCK_NAME`: the part of a child's name before its sequence.
pub const LATCH_NODE_NAME: &str = "latch-";

/// Curator's protected-mode prefix: `_c_` + uuid + `-`.
const PROTECTED_PREFIX: &str = "_c_";

/// Pause before retrying after a failed ZooKeeper request.
const RETRY_PAUSE: Duration = Duration::from_millis(500);

/// How often the children are listed again, at most, before the task pauses
/// (a latch whose order keeps changing under it).
const MAX_RELISTS: usize = 32;

/// The latch to join and the id to join it as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatchConfig {
    path: String,
    id: String,
}

impl Default for LatchConfig {
    fn default() -> Self {
        LatchConfig {
            path: DEFAULT_LATCH_PATH.to_string(),
            id: String::new(),
        }
    }
}

impl LatchConfig {
    /// The latch at [`DEFAULT_LATCH_PATH`], with an empty participant id.
    pub fn new() -> Self {
        Self::default()
    }

    /// The latch at `path` (absolute, e.g. `/sluice/leader`).
    pub fn at(path: &str) -> Result<Self, HaError> {
        check_latch_path(path)?;
        Ok(LatchConfig {
            path: path.to_string(),
            id: String::new(),
        })
    }

    /// The participant id, stored as the data of our node (Curator's `id`):
    /// what [`participants`] and Curator's `getParticipants()` report.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = id.into();
        self
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    pub fn id(&self) -> &str {
        &self.id
    }
}

/// Checks that `path` can be a latch: absolute, not the root, no empty,
/// `.` or `..` segment, no trailing `/`, no control characters.
pub fn check_latch_path(path: &str) -> Result<(), HaError> {
    let reason = if !path.starts_with('/') {
        Some("it is not absolute (must start with `/`)")
    } else if path == "/" {
        Some("the root cannot be a latch")
    } else if path.ends_with('/') {
        Some("it ends with `/`")
    } else if path[1..].split('/').any(|s| s.is_empty()) {
        Some("it has an empty segment")
    } else if path[1..].split('/').any(|s| s == "." || s == "..") {
        Some("`.` and `..` are reserved")
    } else if path.chars().any(char::is_control) {
        Some("it contains a control character")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(HaError::InvalidPath {
            what: "latch path",
            path: path.to_string(),
            reason,
        }),
        None => Ok(()),
    }
}

/// Curator's sort key for a latch child: the text after the last `latch-`,
/// or the whole name for a child without it.
pub fn sort_key(child: &str) -> &str {
    match child.rfind(LATCH_NODE_NAME) {
        Some(i) => &child[i + LATCH_NODE_NAME.len()..],
        None => child,
    }
}

/// Sorts latch children into election order (stable, as Curator's).
pub fn sort_children(children: &mut [String]) {
    children.sort_by(|a, b| sort_key(a).cmp(sort_key(b)));
}

/// One participant of a latch, as Curator's `Participant`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Participant {
    /// The participant id (the node's data as UTF-8; lossy for other bytes).
    pub id: String,
    /// The node's name under the latch path.
    pub node: String,
    pub is_leader: bool,
}

/// The participants of the latch at `path` in election order, read as
/// Curator's `getParticipants()` reads them: the first node that still
/// exists is the leader. Empty when the latch path does not exist.
pub async fn participants(client: &Client, path: &str) -> Result<Vec<Participant>, HaError> {
    let mut children = match client.list_children(path).await {
        Ok(c) => c,
        Err(zookeeper_client::Error::NoNode) => return Ok(Vec::new()),
        Err(e) => return Err(HaError::zk("list", path)(e)),
    };
    sort_children(&mut children);
    let mut out: Vec<Participant> = Vec::with_capacity(children.len());
    for child in children {
        let node = format!("{path}/{child}");
        match client.get_data(&node).await {
            Ok((data, _)) => out.push(Participant {
                id: String::from_utf8_lossy(&data).into_owned(),
                is_leader: out.is_empty(),
                node: child,
            }),
            // Gone since the listing: not a participant any more.
            Err(zookeeper_client::Error::NoNode) => {}
            Err(e) => return Err(HaError::zk("read", &node)(e)),
        }
    }
    Ok(out)
}

enum Command {
    Close(oneshot::Sender<Result<(), HaError>>),
}

/// One participant in a latch; see the module documentation.
pub struct LeaderLatch {
    config: LatchConfig,
    session: ZkSession,
    leader: watch::Receiver<bool>,
    node: watch::Receiver<Option<String>>,
    /// The session generation leadership was taken in.
    leader_generation: Arc<AtomicU64>,
    commands: mpsc::UnboundedSender<Command>,
    task: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for LeaderLatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LeaderLatch")
            .field("path", &self.config.path)
            .field("id", &self.config.id)
            .field("node", &*self.node.borrow())
            .field("leader", &*self.leader.borrow())
            .finish_non_exhaustive()
    }
}

impl LeaderLatch {
    /// Joins the latch on `session` (at once if it is connected, else as soon
    /// as it is). Must be called inside a tokio runtime.
    pub fn start(session: &ZkSession, config: LatchConfig) -> LeaderLatch {
        let (leader_tx, leader_rx) = watch::channel(false);
        let leader_tx = Arc::new(leader_tx);
        let (node_tx, node_rx) = watch::channel(None);
        let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
        let leader_generation = Arc::new(AtomicU64::new(0));
        // Taking leadership (in [`Task::set_leader`]) re-checks the session
        // under the channel's lock, so this cannot interleave into a stale
        // `true`.
        let fence = spawn_fence(session.subscribe(), {
            let leader = leader_tx.clone();
            let path = config.path.clone();
            move |state| {
                if leader.send_if_modified(|l| std::mem::replace(l, false)) {
                    warn!(%path, ?state, "ZooKeeper session not connected: no longer the latch leader");
                }
            }
        });
        let task = Task {
            config: config.clone(),
            session: session.clone(),
            status: session.subscribe(),
            leader: leader_tx,
            leader_generation: leader_generation.clone(),
            _fence: fence,
            node_tx,
            commands: cmd_rx,
            node: None,
            pending: None,
            watch: None,
            dirty: true,
            retry_at: None,
        };
        let handle = tokio::spawn(task.run());
        LeaderLatch {
            config,
            session: session.clone(),
            leader: leader_rx,
            node: node_rx,
            leader_generation,
            commands: cmd_tx,
            task: Some(handle),
        }
    }

    pub fn config(&self) -> &LatchConfig {
        &self.config
    }

    /// Whether we lead right now: the published flag is set, it was set in
    /// the current session, and the session's lease holds at this instant.
    /// Check it before each piece of work only the leader may do.
    pub fn has_leadership(&self) -> bool {
        *self.leader.borrow()
            && self.session.lease_valid()
            && self.session.generation() == self.leader_generation.load(Ordering::SeqCst)
    }

    /// A receiver of leadership changes (`true`: we lead). It turns `false`
    /// as soon as the connection is lost, and on [`close`](Self::close).
    pub fn subscribe(&self) -> watch::Receiver<bool> {
        self.leader.clone()
    }

    /// Waits at most `timeout` until we lead: `Ok(true)` if we do, `Ok(false)`
    /// if the time ran out (Curator's `await(timeout)`).
    pub async fn await_leadership(&self, timeout: Duration) -> Result<bool, HaError> {
        let mut rx = self.leader.clone();
        let led = match tokio::time::timeout(timeout, rx.wait_for(|l| *l)).await {
            Ok(Ok(_)) => Ok(true),
            Ok(Err(_)) => Err(HaError::Closed),
            Err(_) => Ok(false),
        };
        led
    }

    /// The full path of our node while we have one.
    pub fn node_path(&self) -> Option<String> {
        self.node.borrow().clone()
    }

    /// A receiver of our node's path as it changes (`None` while we have none).
    pub fn watch_node(&self) -> watch::Receiver<Option<String>> {
        self.node.clone()
    }

    /// Every participant in election order (see [`participants`]).
    pub async fn participants(&self) -> Result<Vec<Participant>, HaError> {
        let client = self
            .session
            .connected_client(self.session.config().connect_timeout)
            .await?;
        participants(&client, &self.config.path).await
    }

    /// The current leader, if there is one.
    pub async fn leader(&self) -> Result<Option<Participant>, HaError> {
        Ok(self.participants().await?.into_iter().next())
    }

    /// Leaves the latch: leadership turns `false` and our node is deleted
    /// (retried until the session confirms it, or it ends, at most about a
    /// session timeout), so the next participant takes over at once. As
    /// with Curator's default close mode, the application stops its own work;
    /// the `false` on [`subscribe`](Self::subscribe) is its signal.
    pub async fn close(mut self) -> Result<(), HaError> {
        let Some(task) = self.task.take() else {
            return Ok(());
        };
        let (tx, rx) = oneshot::channel();
        if self.commands.send(Command::Close(tx)).is_err() {
            // The task ended with the session: the node went with it.
            let _ = task.await;
            return Ok(());
        }
        let result = rx.await.unwrap_or(Ok(()));
        let _ = task.await;
        result
    }
}

impl Drop for LeaderLatch {
    fn drop(&mut self) {
        if self.task.is_some() {
            // The task deletes the node and ends; nobody waits for it.
            let (tx, _rx) = oneshot::channel();
            let _ = self.commands.send(Command::Close(tx));
        }
    }
}

/// Our node in the latch.
#[derive(Debug, Clone)]
struct OurNode {
    path: String,
    generation: u64,
}

/// A create whose outcome is unknown (connection lost while it was sent).
#[derive(Debug, Clone)]
struct Pending {
    uuid: String,
    generation: u64,
}

struct Task {
    config: LatchConfig,
    session: ZkSession,
    status: watch::Receiver<SessionStatus>,
    leader: Arc<watch::Sender<bool>>,
    leader_generation: Arc<AtomicU64>,
    _fence: AbortOnDrop,
    node_tx: watch::Sender<Option<String>>,
    commands: mpsc::UnboundedReceiver<Command>,
    node: Option<OurNode>,
    pending: Option<Pending>,
    /// Fires when the predecessor or our own node changes.
    watch: Option<WatchFuture>,
    /// The children must be checked again.
    dirty: bool,
    retry_at: Option<Instant>,
}

impl Task {
    async fn run(mut self) {
        loop {
            let status = self.status.borrow_and_update().clone();
            match status.state {
                ConnState::Closed => {
                    self.set_leader(false, &status);
                    self.forget_node();
                    self.drain_commands_closed();
                    return;
                }
                ConnState::Connected => {}
                ConnState::Disconnected | ConnState::Expired => self.set_leader(false, &status),
            }
            // A node or a create of an expired session went with it.
            if self
                .node
                .as_ref()
                .is_some_and(|n| n.generation != status.generation)
            {
                info!(path = %self.config.path, "ZooKeeper session expired: joining the latch again with a new node");
                self.forget_node();
            }
            if self
                .pending
                .as_ref()
                .is_some_and(|p| p.generation != status.generation)
            {
                self.pending = None;
            }
            if status.state == ConnState::Connected && self.dirty && self.retry_at.is_none() {
                if let Some(client) = status.client() {
                    match self.sync(client, &status).await {
                        Ok(true) => self.dirty = false,
                        Ok(false) => self.retry_at = Some(Instant::now() + RETRY_PAUSE),
                        Err(e) => {
                            warn!(path = %self.config.path, "latch: {e}; retrying");
                            self.retry_at = Some(Instant::now() + RETRY_PAUSE);
                        }
                    }
                }
            }
            let retry_at = self.retry_at;
            tokio::select! {
                biased;
                r = self.status.changed() => {
                    if r.is_err() {
                        let status = self.status.borrow().clone();
                        self.set_leader(false, &status);
                        return;
                    }
                    // Reconnected (same session or a new one): check again.
                    self.dirty = true;
                    self.retry_at = None;
                }
                cmd = self.commands.recv() => {
                    // `None`: every handle is gone; leave all the same.
                    let reply = cmd.map(|Command::Close(reply)| reply);
                    let r = self.close().await;
                    if let Err(e) = &r {
                        warn!(path = %self.config.path, "closing the latch: {e}");
                    }
                    if let Some(reply) = reply {
                        let _ = reply.send(r);
                    }
                    return;
                }
                event = watch_event(&mut self.watch), if self.watch.is_some() => {
                    debug!(path = %self.config.path, ?event, "latch watch fired");
                    self.watch = None;
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
        while let Ok(Command::Close(reply)) = self.commands.try_recv() {
            let _ = reply.send(Ok(()));
        }
    }

    /// Publishes leadership. `true` only while the session that owns our
    /// node is connected with a valid lease, checked under the channel's lock.
    fn set_leader(&self, leader: bool, status: &SessionStatus) {
        let mut now = leader;
        let changed = self.leader.send_if_modified(|l| {
            if now
                && (status.state != ConnState::Connected
                    || self.status.borrow().generation != status.generation
                    || !self.session.lease_valid())
            {
                now = false;
            }
            if now {
                self.leader_generation
                    .store(status.generation, Ordering::SeqCst);
            }
            std::mem::replace(l, now) != now
        });
        if changed {
            info!(path = %self.config.path, node = ?self.node.as_ref().map(|n| &n.path), leader = now, "latch leadership changed");
        }
    }

    fn adopt(&mut self, path: String, generation: u64) {
        info!(latch = %self.config.path, node = %path, id = %self.config.id, "joined the latch");
        self.node = Some(OurNode {
            path: path.clone(),
            generation,
        });
        self.node_tx.send_replace(Some(path));
    }

    fn forget_node(&mut self) {
        self.node = None;
        self.watch = None;
        self.node_tx.send_replace(None);
    }

    /// Checks the children and acts on our place among them: lead, or
    /// watch the predecessor. Returns whether it settled (else: retry soon).
    async fn sync(&mut self, client: &Client, status: &SessionStatus) -> Result<bool, HaError> {
        let latch = self.config.path.clone();
        for _ in 0..MAX_RELISTS {
            let node = match &self.node {
                Some(n) => n.path.clone(),
                None => {
                    self.set_leader(false, status);
                    self.join(client, status).await?
                }
            };
            let mut children = match client.list_children(&latch).await {
                Ok(c) => c,
                Err(zookeeper_client::Error::NoNode) => {
                    // The latch path (a container) went, our node with it.
                    warn!(%latch, "the latch path is gone; joining again");
                    self.set_leader(false, status);
                    self.forget_node();
                    continue;
                }
                Err(e) => return Err(HaError::zk("list", &latch)(e)),
            };
            sort_children(&mut children);
            let name = node.rsplit('/').next().unwrap_or(node.as_str());
            let Some(index) = children.iter().position(|c| c == name) else {
                warn!(%latch, %node, "our latch node is gone (deleted by someone else?); joining again");
                self.set_leader(false, status);
                self.forget_node();
                continue;
            };
            // Our own node, watched in every role: its deletion by someone
            // else must make us step down (as leader) or rejoin (as follower).
            let (_, stat, own_watch) = match client.get_and_watch_data(&node).await {
                Ok(found) => found,
                Err(zookeeper_client::Error::NoNode) => {
                    self.set_leader(false, status);
                    self.forget_node();
                    continue;
                }
                Err(e) => return Err(HaError::zk("read", &node)(e)),
            };
            if stat.ephemeral_owner != status.session_id {
                // Not ours any more (a node of an older session): leading
                // with it could make two leaders. Curator's reset().
                warn!(%latch, %node, owner = stat.ephemeral_owner, session = status.session_id,
                    "our latch node belongs to another session; joining again");
                self.set_leader(false, status);
                self.forget_node();
                let _ = crate::nodes::delete(client, &node).await;
                continue;
            }
            if index == 0 {
                self.watch = Some(Box::pin(own_watch.changed()));
                self.set_leader(true, status);
                return Ok(true);
            }
            self.set_leader(false, status);
            let predecessor = format!("{latch}/{}", children[index - 1]);
            match client.get_and_watch_data(&predecessor).await {
                Ok((_, _, prev_watch)) => {
                    debug!(%latch, %node, %predecessor, "following");
                    self.watch = Some(Box::pin(async move {
                        tokio::select! {
                            e = prev_watch.changed() => e,
                            e = own_watch.changed() => e,
                        }
                    }));
                    return Ok(true);
                }
                // Gone before the watch was set: our turn may have come.
                Err(zookeeper_client::Error::NoNode) => continue,
                Err(e) => return Err(HaError::zk("read", &predecessor)(e)),
            }
        }
        Ok(false)
    }

    /// Creates our protected ephemeral-sequential node (or adopts the one a
    /// create lost to a connection loss made) and returns its path.
    async fn join(&mut self, client: &Client, status: &SessionStatus) -> Result<String, HaError> {
        let latch = self.config.path.clone();
        if let Some(pending) = self.pending.clone() {
            let protected = format!("{PROTECTED_PREFIX}{}-", pending.uuid);
            let children = match client.list_children(&latch).await {
                Ok(c) => c,
                Err(zookeeper_client::Error::NoNode) => Vec::new(),
                Err(e) => return Err(HaError::zk("list", &latch)(e)),
            };
            if let Some(found) = children.iter().find(|c| c.starts_with(&protected)) {
                let path = format!("{latch}/{found}");
                info!(%latch, node = %path, "found the node of a create interrupted by a connection loss");
                self.pending = None;
                self.adopt(path.clone(), status.generation);
                return Ok(path);
            }
        }
        // The uuid stays the same across retries of a create in doubt, so the
        // node can be found by it (Curator's protected mode).
        let uuid = match &self.pending {
            Some(p) => p.uuid.clone(),
            None => uuid::Uuid::new_v4().to_string(),
        };
        let prefix = format!("{latch}/{PROTECTED_PREFIX}{uuid}-{LATCH_NODE_NAME}");
        let acls = self.session.config().node_acls();
        let mode = CreateMode::EphemeralSequential.with_acls(acls);
        self.pending = Some(Pending {
            uuid,
            generation: status.generation,
        });
        for _ in 0..3 {
            match client
                .create(&prefix, self.config.id.as_bytes(), &mode)
                .await
            {
                Ok((_, sequence)) => {
                    self.pending = None;
                    let path = format!("{prefix}{sequence}");
                    self.adopt(path.clone(), status.generation);
                    return Ok(path);
                }
                Err(zookeeper_client::Error::NoNode) => make_parents(client, &latch, acls).await?,
                Err(e @ zookeeper_client::Error::ConnectionLoss) => {
                    // In doubt: keep `pending` so the next try looks first.
                    return Err(HaError::zk("create", &prefix)(e));
                }
                Err(e) => {
                    self.pending = None;
                    return Err(HaError::zk("create", &prefix)(e));
                }
            }
        }
        self.pending = None;
        Err(HaError::Corrupt {
            path: latch,
            reason: "the latch path keeps disappearing while joining".into(),
        })
    }

    /// Leaves the latch: leadership off, our node deleted (retried while the
    /// session lives, for at most about a session timeout).
    async fn close(&mut self) -> Result<(), HaError> {
        let status = self.status.borrow().clone();
        self.set_leader(false, &status);
        self.watch = None;
        let deadline = Instant::now() + self.session.session_timeout().max(Duration::from_secs(2));
        let mut nodes: Vec<(String, u64)> = Vec::new();
        if let Some(n) = self.node.take() {
            nodes.push((n.path, n.generation));
        }
        self.node_tx.send_replace(None);
        // A create in doubt may have made a node: find it by its uuid.
        let pending = self.pending.take();
        let mut last_error = None;
        loop {
            let status = self.status.borrow_and_update().clone();
            if status.state == ConnState::Closed {
                return Ok(());
            }
            nodes.retain(|(_, generation)| *generation == status.generation);
            let pending = pending
                .as_ref()
                .filter(|p| p.generation == status.generation);
            if nodes.is_empty() && pending.is_none() {
                return Ok(());
            }
            if let (ConnState::Connected, Some(client)) = (status.state, status.client()) {
                match delete_nodes(client, &self.config.path, &nodes, pending).await {
                    Ok(()) => {
                        info!(latch = %self.config.path, "left the latch");
                        return Ok(());
                    }
                    Err(e) => last_error = Some(e),
                }
            }
            if Instant::now() >= deadline {
                return Err(last_error.unwrap_or(HaError::Timeout {
                    what: "deleting the latch node (it goes when the session ends)",
                    timeout: self.session.session_timeout(),
                }));
            }
            let pause = (Instant::now() + RETRY_PAUSE).min(deadline);
            if let Ok(Err(_)) = tokio::time::timeout_at(pause.into(), self.status.changed()).await {
                // The session is gone, and its ephemeral nodes with it.
                return Ok(());
            }
        }
    }
}

/// Deletes our nodes, and the node of a create in doubt if it was made.
async fn delete_nodes(
    client: &Client,
    latch: &str,
    nodes: &[(String, u64)],
    pending: Option<&Pending>,
) -> Result<(), HaError> {
    for (path, _) in nodes {
        crate::nodes::delete(client, path).await?;
    }
    if let Some(p) = pending {
        let protected = format!("{PROTECTED_PREFIX}{}-", p.uuid);
        let children = match client.list_children(latch).await {
            Ok(c) => c,
            Err(zookeeper_client::Error::NoNode) => Vec::new(),
            Err(e) => return Err(HaError::zk("list", latch)(e)),
        };
        for c in children.iter().filter(|c| c.starts_with(&protected)) {
            crate::nodes::delete(client, &format!("{latch}/{c}")).await?;
        }
    }
    Ok(())
}

/// Creates the latch path and its missing ancestors as container nodes, as
/// Curator's `creatingParentContainersIfNeeded`, or persistent ones on a
/// server without containers (before 3.5).
async fn make_parents(
    client: &Client,
    latch: &str,
    acls: zookeeper_client::Acls<'static>,
) -> Result<(), HaError> {
    match client
        .mkdir(latch, &CreateMode::Container.with_acls(acls))
        .await
    {
        Ok(()) => Ok(()),
        Err(zookeeper_client::Error::Unimplemented | zookeeper_client::Error::BadArguments(_)) => {
            client
                .mkdir(latch, &CreateMode::Persistent.with_acls(acls))
                .await
                .map_err(HaError::zk("create", latch))
        }
        Err(e) => Err(HaError::zk("create", latch)(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_sort_by_the_text_after_the_last_latch_name() {
        let mut children = vec![
            "_c_9f0e6a41-7d3c-4f5b-9a8e-2b6c1d0e9f77-latch-0000000003".to_string(),
            "_c_1f0e6a41-7d3c-4f5b-9a8e-2b6c1d0e9f77-latch-0000000010".to_string(),
            "_c_00000000-latch-0000-latch-0000000001".to_string(),
            "_c_ffffffff-7d3c-4f5b-9a8e-2b6c1d0e9f77-latch-0000000002".to_string(),
        ];
        sort_children(&mut children);
        let keys: Vec<&str> = children.iter().map(|c| sort_key(c)).collect();
        assert_eq!(
            keys,
            ["0000000001", "0000000002", "0000000003", "0000000010"]
        );
        // A foreign child sorts by its whole name, as in Curator.
        assert_eq!(sort_key("foreign"), "foreign");
    }

    #[test]
    fn latch_paths_are_checked() {
        assert_eq!(LatchConfig::new().path(), DEFAULT_LATCH_PATH);
        assert_eq!(LatchConfig::new().id(), "");
        let c = LatchConfig::at("/a/b").unwrap().with_id("me");
        assert_eq!((c.path(), c.id()), ("/a/b", "me"));
        for bad in ["", "a", "/", "/a/", "/a//b", "/a/./b", "/a/..", "/a\u{1}"] {
            let e = LatchConfig::at(bad).unwrap_err();
            assert!(e.to_string().contains("latch path"), "{bad:?} gave {e}");
        }
    }
}
