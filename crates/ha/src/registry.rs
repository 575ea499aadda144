//! A server's registration: the ephemeral, data-less nodes
//! `/otter/canal/cluster/{ip:port}` (the server is alive) and
//! `/otter/canal/destinations/{dest}/cluster/{ip:port}` (it can run `dest`),
//! which canal-admin and Canal's cluster clients list.
//!
//! Ephemeral nodes vanish with the session, so the registry re-creates them
//! whenever a session (re)connects, and checks them every few seconds in
//! case someone deleted one. A node that exists but belongs to another
//! session (this server's previous process, whose session has not expired
//! yet) is left alone and taken over once it is gone.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::sleep_until;
use tracing::{debug, info};
use zookeeper_client::{Acls, Client, CreateMode};

use crate::paths::{self, check_node_name};
use crate::session::{ConnState, SessionStatus, ZkSession};
use crate::HaError;

/// How often registrations are checked while connected.
const CHECK_PERIOD: Duration = Duration::from_secs(5);

/// Pause before retrying after a failed request or a node held by another session.
const RETRY_PAUSE: Duration = Duration::from_millis(500);

enum Command {
    Add(String),
    Remove(String),
    Stop(oneshot::Sender<()>),
}

/// Keeps a server's `cluster` nodes in ZooKeeper while it runs.
pub struct ServerRegistry {
    address: String,
    commands: mpsc::UnboundedSender<Command>,
    registered: watch::Receiver<BTreeSet<String>>,
    task: Option<JoinHandle<()>>,
}

impl ServerRegistry {
    /// Registers the server at `address` (`ip:port`) on `session`. Must be
    /// called inside a tokio runtime.
    pub fn start(session: &ZkSession, address: &str) -> Result<ServerRegistry, HaError> {
        check_node_name("address", address)?;
        let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
        let (reg_tx, reg_rx) = watch::channel(BTreeSet::new());
        let mut wanted = BTreeSet::new();
        wanted.insert(paths::cluster_node(address));
        let task = Task {
            status: session.subscribe(),
            acls: session.config().node_acls(),
            commands: cmd_rx,
            wanted,
            registered: reg_tx,
        };
        Ok(ServerRegistry {
            address: address.to_string(),
            commands: cmd_tx,
            registered: reg_rx,
            task: Some(tokio::spawn(task.run())),
        })
    }

    pub fn address(&self) -> &str {
        &self.address
    }

    /// Announces that this server can run `destination`.
    pub fn add_destination(&self, destination: &str) -> Result<(), HaError> {
        check_node_name("destination", destination)?;
        self.commands
            .send(Command::Add(paths::destination_cluster_node(
                destination,
                &self.address,
            )))
            .map_err(|_| HaError::Closed)
    }

    /// Withdraws `destination` (deletes its `cluster/{ip:port}` node).
    pub fn remove_destination(&self, destination: &str) -> Result<(), HaError> {
        check_node_name("destination", destination)?;
        self.commands
            .send(Command::Remove(paths::destination_cluster_node(
                destination,
                &self.address,
            )))
            .map_err(|_| HaError::Closed)
    }

    /// The node paths currently held by this session.
    pub fn registered(&self) -> BTreeSet<String> {
        self.registered.borrow().clone()
    }

    /// Waits until `path` is held by this session.
    pub async fn wait_registered(&self, path: &str) {
        let mut rx = self.registered.clone();
        let _ = rx.wait_for(|set| set.contains(path)).await;
    }

    /// Deletes the registrations and stops.
    pub async fn stop(mut self) {
        let (tx, rx) = oneshot::channel();
        if self.commands.send(Command::Stop(tx)).is_ok() {
            let _ = rx.await;
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for ServerRegistry {
    fn drop(&mut self) {
        if self.task.is_some() {
            let (tx, _rx) = oneshot::channel();
            let _ = self.commands.send(Command::Stop(tx));
        }
    }
}

/// The addresses of the live servers (`/otter/canal/cluster` children).
pub async fn list_servers(client: &Client) -> Result<Vec<String>, HaError> {
    list_children(client, paths::CLUSTER_ROOT).await
}

/// The servers that can run `destination` (its `cluster` children).
pub async fn list_destination_servers(
    client: &Client,
    destination: &str,
) -> Result<Vec<String>, HaError> {
    check_node_name("destination", destination)?;
    list_children(client, &paths::destination_cluster(destination)).await
}

async fn list_children(client: &Client, path: &str) -> Result<Vec<String>, HaError> {
    match client.list_children(path).await {
        Ok(mut children) => {
            children.sort();
            Ok(children)
        }
        Err(zookeeper_client::Error::NoNode) => Ok(Vec::new()),
        Err(e) => Err(HaError::zk("list", path)(e)),
    }
}

struct Task {
    status: watch::Receiver<SessionStatus>,
    /// The ACL of the nodes it creates.
    acls: Acls<'static>,
    commands: mpsc::UnboundedReceiver<Command>,
    wanted: BTreeSet<String>,
    registered: watch::Sender<BTreeSet<String>>,
}

impl Task {
    async fn run(mut self) {
        let mut next_check = Instant::now();
        loop {
            let status = self.status.borrow_and_update().clone();
            if status.state == ConnState::Closed {
                self.registered.send_replace(BTreeSet::new());
                return;
            }
            let connected = status.state == ConnState::Connected;
            if !connected {
                self.registered.send_replace(BTreeSet::new());
            } else if Instant::now() >= next_check {
                if let Some(client) = status.client() {
                    let complete = self.reconcile(client, status.session_id).await;
                    next_check = Instant::now() + if complete { CHECK_PERIOD } else { RETRY_PAUSE };
                }
            }
            tokio::select! {
                biased;
                r = self.status.changed() => {
                    if r.is_err() {
                        return;
                    }
                    next_check = Instant::now();
                }
                cmd = self.commands.recv() => match cmd {
                    Some(Command::Add(path)) => {
                        self.wanted.insert(path);
                        next_check = Instant::now();
                    }
                    Some(Command::Remove(path)) => {
                        self.wanted.remove(&path);
                        self.delete_if_ours(&path).await;
                    }
                    Some(Command::Stop(reply)) => {
                        let paths: Vec<String> = self.wanted.iter().cloned().collect();
                        for path in paths {
                            self.delete_if_ours(&path).await;
                        }
                        self.registered.send_replace(BTreeSet::new());
                        let _ = reply.send(());
                        return;
                    }
                    None => return,
                },
                _ = sleep_until(next_check.into()), if connected => {}
            }
        }
    }

    /// Makes every wanted node exist and be ours. Returns whether all are.
    async fn reconcile(&mut self, client: &Client, session_id: i64) -> bool {
        let mut held = BTreeSet::new();
        for path in &self.wanted {
            match ensure_ephemeral(client, path, session_id, self.acls).await {
                Ok(true) => {
                    held.insert(path.clone());
                }
                Ok(false) => debug!(%path, "registration node held by another session; waiting"),
                Err(e) => debug!(%path, "registration failed: {e}"),
            }
        }
        let complete = held.len() == self.wanted.len();
        self.registered.send_if_modified(|r| {
            if *r == held {
                false
            } else {
                for p in held.difference(r) {
                    info!(path = %p, "registered");
                }
                *r = held;
                true
            }
        });
        complete
    }

    async fn delete_if_ours(&mut self, path: &str) {
        let status = self.status.borrow().clone();
        if let Some(client) = status.client() {
            if let Ok(Some(stat)) = client.check_stat(path).await {
                if stat.ephemeral_owner == status.session_id {
                    let _ = client.delete(path, Some(stat.version)).await;
                }
            }
        }
        self.registered.send_modify(|r| {
            r.remove(path);
        });
    }
}

/// Creates `path` as an empty ephemeral node of this session unless it
/// exists. Returns whether it is ours.
async fn ensure_ephemeral(
    client: &Client,
    path: &str,
    session_id: i64,
    acls: Acls<'static>,
) -> Result<bool, HaError> {
    let mode = CreateMode::Ephemeral.with_acls(acls);
    for _ in 0..3 {
        match client.check_stat(path).await {
            Ok(Some(stat)) => return Ok(stat.ephemeral_owner == session_id),
            Ok(None) => {}
            Err(e) => return Err(HaError::zk("exists", path)(e)),
        }
        match client.create(path, &[], &mode).await {
            Ok(_) => return Ok(true),
            Err(zookeeper_client::Error::NodeExists) => continue,
            Err(zookeeper_client::Error::NoNode) => {
                if let Some(parent) = paths::parent(path) {
                    let dir = CreateMode::Persistent.with_acls(acls);
                    client
                        .mkdir(parent, &dir)
                        .await
                        .map_err(HaError::zk("create", parent))?;
                }
            }
            Err(e) => return Err(HaError::zk("create", path)(e)),
        }
    }
    Ok(false)
}
