//! Canal's cluster connector over ZooKeeper: the client finds the server
//! that runs a destination in `/otter/canal/destinations/{dest}/running`,
//! follows it when it moves, and holds `/otter/canal/destinations/{dest}/{clientId}/running`
//! so that only one process consumes for a client id, as Canal's Java
//! `ClusterCanalConnector` with a `ClientRunningMonitor` does.
//!
//! ```no_run
//! # async fn demo() -> Result<(), sluice_client::ClientError> {
//! use sluice_client::cluster::{ClusterConnector, ClusterOptions};
//! use sluice_client::{Connector, TimeUnit};
//! let mut c = ClusterConnector::connect(
//!     "10.0.0.1:2181,10.0.0.2:2181,10.0.0.3:2181",
//!     "example",
//!     "",
//!     "",
//!     ClusterOptions::default(),
//! )
//! .await?;
//! c.subscribe(".*\\..*").await?;
//! loop {
//!     let m = c.get_without_ack(1000, Some(500), TimeUnit::Milliseconds).await?;
//!     for e in &m.entries { /* … */ }
//!     if m.id != -1 { c.ack(m.id).await?; }
//! }
//! # }
//! ```
//!
//! # Failover
//!
//! Every call runs on the connection to the server the `running` node names.
//! When that connection fails (closed, refused, timed out, unreadable) or the
//! node moves to another server while a call waits, the call drops the
//! connection, waits for a server (woken by changes of the node, retrying
//! every [`ClusterOptions::retry_interval`]), connects, subscribes again with
//! the last filter, rolls back what the old server had delivered but not
//! seen acknowledged, and runs again there. It gives up after
//! [`ClusterOptions::failover_timeout`] without a working server.
//!
//! The new server starts each client at its cursor in ZooKeeper, so the
//! entries of batches not yet acknowledged come again. Batches the old
//! server delivered are therefore *stale* after a failover: acknowledging
//! one does nothing (its entries are redelivered), and so their ids can
//! never be mistaken for a new server's, the batch ids this connector hands
//! out are its own, unique for its lifetime, mapped to the server's.
//!
//! # One consumer per client id
//!
//! [`ClusterConnector::connect`] competes for the client's `running` node
//! with Canal's rules (a previous holder takes it back at once, others after
//! [`ClusterOptions::running_delay`]) and waits until it holds it; calls
//! made while it does not (another process took over, or the ZooKeeper
//! session is lost) wait until it does again, with no connection to the
//! server meanwhile.

use std::collections::VecDeque;
use std::net::UdpSocket;
use std::time::{Duration, Instant};

use sluice_ha::{
    ElectionConfig, HaError, NodeAcl, Role, RunningElection, RunningInfo, RunningObserver, ZkAuth,
    ZkConfig, ZkSession,
};
use tokio::sync::watch;
use tracing::{debug, info, warn};

use crate::{
    ClientError, Connector, ConnectorOptions, RawMessage, Result, SimpleConnector, TimeUnit,
};

/// Settings of a [`ClusterConnector`].
#[derive(Debug, Clone)]
pub struct ClusterOptions {
    /// Settings of each connection to a server. `rollback_on_connect` is
    /// applied after the subscription is renewed.
    pub connector: ConnectorOptions,
    /// The ZooKeeper session timeout to ask for (Canal's client: 30 s).
    pub zk_session_timeout: Duration,
    /// The address written in the client's `running` node; by default the
    /// local IP address that reaches the first ZooKeeper server.
    pub client_address: Option<String>,
    /// How long a process that did not hold the client's `running` node
    /// waits before taking it when it is freed (Canal: 5 s).
    pub running_delay: Duration,
    /// How long a call may spend finding a working server.
    pub failover_timeout: Duration,
    /// Pause between two attempts to reach the running server.
    pub retry_interval: Duration,
    /// ZooKeeper credentials (e.g. `ZkAuth::parse("digest:user:password")`),
    /// needed when the servers create their nodes with credentials
    /// (`sluice.zookeeper.auth`): the client's `running` node goes under
    /// nodes only they may write to. Use the servers' credentials.
    pub zk_auth: Option<ZkAuth>,
    /// The ACL of the nodes the connector creates when `zk_auth` is set.
    pub zk_acl: NodeAcl,
}

impl Default for ClusterOptions {
    fn default() -> Self {
        ClusterOptions {
            connector: ConnectorOptions::default(),
            zk_session_timeout: Duration::from_secs(30),
            client_address: None,
            running_delay: sluice_ha::DEFAULT_DELAY,
            failover_timeout: Duration::from_secs(60),
            retry_interval: Duration::from_secs(1),
            zk_auth: None,
            zk_acl: NodeAcl::default(),
        }
    }
}

/// The open connection and the server it goes to.
struct Connection {
    conn: SimpleConnector,
    address: String,
    generation: u64,
    opened: Instant,
}

/// A batch handed out and not yet acknowledged or rolled back.
struct Outstanding {
    id: i64,
    server_id: i64,
    generation: u64,
}

/// A connector that follows the destination's running server; see the
/// module documentation.
pub struct ClusterConnector {
    destination: String,
    username: String,
    password: String,
    options: ClusterOptions,
    session: ZkSession,
    servers: RunningObserver,
    running: RunningElection,
    connection: Option<Connection>,
    /// Counts connections made; batches remember the one they came on.
    generation: u64,
    /// `Some` once subscribed (the filter to renew after a failover).
    filter: Option<String>,
    outstanding: VecDeque<Outstanding>,
    next_id: i64,
    failovers: u64,
}

impl std::fmt::Debug for ClusterConnector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterConnector")
            .field("destination", &self.destination)
            .field("client_id", &self.options.connector.client_id)
            .field("server", &self.server())
            .field("failovers", &self.failovers)
            .finish_non_exhaustive()
    }
}

/// What a failed call on the connection means.
enum Failure {
    /// The connection is unusable or the destination moved: fail over.
    Connection(ClientError),
    /// An answer to give the caller as it is.
    Caller(ClientError),
}

impl ClusterConnector {
    /// Connects to ZooKeeper (`host:port,…`, Canal's `zkServers`), waits
    /// until this process holds the client's `running` node, then connects
    /// to the server that runs `destination`.
    pub async fn connect(
        zk_servers: &str,
        destination: &str,
        username: &str,
        password: &str,
        options: ClusterOptions,
    ) -> Result<ClusterConnector> {
        let mut zk = ZkConfig::new(zk_servers)
            .with_session_timeout(options.zk_session_timeout)
            .with_acl(options.zk_acl);
        if let Some(auth) = &options.zk_auth {
            zk = zk.with_auth(auth.clone());
        }
        let session = ZkSession::connect(zk).await.map_err(zk_error)?;
        let address = options
            .client_address
            .clone()
            .unwrap_or_else(|| local_ip_towards(zk_servers));
        let servers = RunningObserver::server(&session, destination).map_err(zk_error)?;
        let election = ElectionConfig::client(destination, options.connector.client_id, &address)
            .map_err(zk_error)?
            .with_delay(options.running_delay);
        let running = RunningElection::start(&session, election);
        let mut c = ClusterConnector {
            destination: destination.to_string(),
            username: username.to_string(),
            password: password.to_string(),
            options,
            session,
            servers,
            running,
            connection: None,
            generation: 0,
            filter: None,
            outstanding: VecDeque::new(),
            next_id: 1,
            failovers: 0,
        };
        c.connection().await?;
        Ok(c)
    }

    pub fn destination(&self) -> &str {
        &self.destination
    }

    pub fn client_id(&self) -> i16 {
        self.options.connector.client_id
    }

    /// The server connected to now.
    pub fn server(&self) -> Option<&str> {
        self.connection.as_ref().map(|c| c.address.as_str())
    }

    /// How many times the connector moved to a new connection after one
    /// failed or the destination moved.
    pub fn failovers(&self) -> u64 {
        self.failovers
    }

    /// What the destination's `running` node says now.
    pub fn running_server(&self) -> Option<RunningInfo> {
        self.servers.active()
    }

    /// Subscribes (see [`SimpleConnector::subscribe`]); the filter is
    /// renewed on every server the connector moves to.
    pub async fn subscribe(&mut self, filter: &str) -> Result<()> {
        let started = Instant::now();
        loop {
            let (nodes, roles) = (self.servers.subscribe(), self.running.subscribe());
            let c = self.connection().await?;
            let moved = interrupted(nodes, roles, c.address.clone());
            let r = race(c.conn.subscribe(filter), moved).await;
            match self.judge(r, started).await? {
                Some(()) => {
                    self.filter = Some(filter.to_string());
                    return Ok(());
                }
                None => continue,
            }
        }
    }

    /// Unsubscribes; the connector no longer renews a subscription.
    pub async fn unsubscribe(&mut self) -> Result<()> {
        let started = Instant::now();
        loop {
            let (nodes, roles) = (self.servers.subscribe(), self.running.subscribe());
            let c = self.connection().await?;
            let moved = interrupted(nodes, roles, c.address.clone());
            let r = race(c.conn.unsubscribe(), moved).await;
            if let Some(()) = self.judge(r, started).await? {
                self.filter = None;
                self.outstanding.clear();
                return Ok(());
            }
        }
    }

    /// The next batch, entries left serialised (see
    /// [`Connector::get_without_ack`]); its id is this connector's (see the
    /// module documentation).
    pub async fn get_without_ack_raw(
        &mut self,
        batch_size: i32,
        timeout: Option<i64>,
        unit: TimeUnit,
    ) -> Result<RawMessage> {
        let started = Instant::now();
        loop {
            let (nodes, roles) = (self.servers.subscribe(), self.running.subscribe());
            let c = self.connection().await?;
            let generation = c.generation;
            let moved = interrupted(nodes, roles, c.address.clone());
            let r = race(c.conn.get_without_ack_raw(batch_size, timeout, unit), moved).await;
            if let Some(raw) = self.judge(r, started).await? {
                if raw.id == -1 {
                    return Ok(raw);
                }
                let id = self.next_id;
                self.next_id += 1;
                self.outstanding.push_back(Outstanding {
                    id,
                    server_id: raw.id,
                    generation,
                });
                return Ok(RawMessage {
                    id,
                    entries: raw.entries,
                });
            }
        }
    }

    /// Acknowledges a batch (the oldest outstanding one, as in Canal). A
    /// batch from a server the connector has since left is dropped: its
    /// entries come again from the new server. When the ack cannot be sent,
    /// the connector fails over and the batch comes again as well.
    pub async fn ack(&mut self, batch_id: i64) -> Result<()> {
        if batch_id == -1 {
            return Ok(());
        }
        let batch = self.take_outstanding(batch_id)?;
        let Some(c) = self
            .connection
            .as_mut()
            .filter(|c| c.generation == batch.generation)
        else {
            debug!(
                batch_id,
                "batch came from a server this connector has left; its entries are delivered again"
            );
            return Ok(());
        };
        if !self.running.is_running() {
            // Another process may own the client id by now: leave the batch
            // to it, unacknowledged.
            info!(
                batch_id,
                "not the running client any more; the batch is not acknowledged"
            );
            self.drop_connection();
            return Ok(());
        }
        if let Err(e) = c.conn.ack(batch.server_id).await {
            info!(
                batch_id,
                server = %c.address,
                "could not send the ack ({e}); failing over, the batch will be delivered again"
            );
            self.drop_connection();
        }
        Ok(())
    }

    /// Rolls back one outstanding batch; 0 rolls back all of them.
    pub async fn rollback(&mut self, batch_id: i64) -> Result<()> {
        let server_id = if batch_id == 0 {
            self.outstanding.clear();
            0
        } else {
            let batch = self.take_outstanding(batch_id)?;
            if self.connection.as_ref().map(|c| c.generation) != Some(batch.generation) {
                // The new server delivers it again anyway.
                return Ok(());
            }
            batch.server_id
        };
        if let Some(c) = self.connection.as_mut() {
            if let Err(e) = c.conn.rollback(server_id).await {
                info!(server = %c.address, "could not send the rollback ({e}); failing over");
                self.drop_connection();
            }
        }
        Ok(())
    }

    /// Rolls back every outstanding batch.
    pub async fn rollback_all(&mut self) -> Result<()> {
        self.rollback(0).await
    }

    /// Closes the connection, gives up the client's `running` node and
    /// closes the ZooKeeper session.
    pub async fn disconnect(mut self) -> Result<()> {
        let closed = match self.connection.take() {
            Some(c) => c.conn.disconnect().await,
            None => Ok(()),
        };
        if let Err(e) = self.running.stop().await {
            warn!("releasing the client's running node: {e}");
        }
        self.session.close().await;
        closed
    }

    fn take_outstanding(&mut self, batch_id: i64) -> Result<Outstanding> {
        let at = self
            .outstanding
            .iter()
            .position(|b| b.id == batch_id)
            .ok_or(ClientError::UnknownBatch(batch_id))?;
        // Canal acknowledges in order: older batches are settled with it.
        let mut batch = None;
        for _ in 0..=at {
            batch = self.outstanding.pop_front();
        }
        batch.ok_or(ClientError::UnknownBatch(batch_id))
    }

    fn drop_connection(&mut self) {
        if let Some(c) = self.connection.take() {
            debug!(server = %c.address, "dropping the connection");
        }
    }

    /// Sorts the outcome of a call: `Some` to return, `None` to run the call
    /// again after a failover, an error for the caller.
    async fn judge<T>(
        &mut self,
        outcome: std::result::Result<Result<T>, Interrupted>,
        started: Instant,
    ) -> Result<Option<T>> {
        let failure = match outcome {
            Ok(Ok(value)) => return Ok(Some(value)),
            Ok(Err(e)) => self.classify(e),
            Err(Interrupted(why)) => Failure::Connection(ClientError::Protocol(why)),
        };
        match failure {
            Failure::Caller(e) => Err(e),
            Failure::Connection(e) => {
                let from = self.server().unwrap_or("?").to_string();
                if started.elapsed() >= self.options.failover_timeout {
                    return Err(e);
                }
                warn!(
                    destination = %self.destination,
                    server = %from,
                    "connection to the running server lost ({e}); failing over"
                );
                // A server that fails right after accepting us is not
                // retried at once.
                let fresh = self
                    .connection
                    .take()
                    .is_some_and(|c| c.opened.elapsed() < self.options.retry_interval);
                if fresh {
                    let mut nodes = self.servers.subscribe();
                    nodes.borrow_and_update();
                    let _ =
                        tokio::time::timeout(self.options.retry_interval, nodes.changed()).await;
                }
                Ok(None)
            }
        }
    }

    fn classify(&self, e: ClientError) -> Failure {
        match &e {
            ClientError::Io(_)
            | ClientError::Closed
            | ClientError::Timeout(_)
            | ClientError::NotConnected
            | ClientError::Protocol(_)
            | ClientError::FrameTooLarge { .. } => Failure::Connection(e),
            // A server that does not run the destination (now) refuses it
            // with Canal's "should start first": wait for it or for another
            // server. Other refusals are the caller's, unless the running
            // node names another server by now.
            ClientError::Server { message, .. } => {
                let elsewhere = match (self.servers.active(), self.server()) {
                    (Some(info), Some(current)) => info.address != current,
                    _ => false,
                };
                // The connector drops a connection whose replies may be
                // out of step (an error that may answer an earlier ack):
                // that ack failed, so start over on a new connection.
                let dropped = self
                    .connection
                    .as_ref()
                    .is_some_and(|c| !c.conn.is_connected());
                if elsewhere || dropped || message.contains("should start first") {
                    Failure::Connection(e)
                } else {
                    Failure::Caller(e)
                }
            }
            ClientError::Auth { .. }
            | ClientError::UnknownBatch(_)
            | ClientError::Zk(_)
            | ClientError::NoServer { .. } => Failure::Caller(e),
        }
    }

    /// The connection to the running server, made if there is none: waits
    /// until this process holds the client's `running` node, then for a
    /// server, at most `failover_timeout`.
    async fn connection(&mut self) -> Result<&mut Connection> {
        if !self.running.is_running() {
            if self.connection.take().is_some() {
                warn!(
                    destination = %self.destination,
                    client_id = self.client_id(),
                    "no longer the running client; disconnected until this process runs again"
                );
            }
            self.wait_running().await;
        }
        if self.connection.is_none() {
            let c = self.open().await?;
            self.connection = Some(c);
        }
        self.connection.as_mut().ok_or(ClientError::NotConnected)
    }

    async fn wait_running(&self) {
        let mut role = self.running.subscribe();
        let mut logged = false;
        loop {
            if self.running.is_running() {
                return;
            }
            if !logged {
                info!(
                    path = %self.running.config().path(),
                    "waiting to become the running client"
                );
                logged = true;
            }
            // Role changes wake us; the lease is re-checked now and then.
            let _ = tokio::time::timeout(Duration::from_millis(200), role.changed()).await;
        }
    }

    /// Connects to the server the `running` node names, subscribes and rolls
    /// back, retrying until `failover_timeout`.
    async fn open(&mut self) -> Result<Connection> {
        let deadline = Instant::now() + self.options.failover_timeout;
        let mut nodes = self.servers.subscribe();
        let mut last_error = None;
        loop {
            let target = nodes.borrow_and_update().clone();
            match target.filter(|i| i.active) {
                Some(info) => match self.open_to(&info.address).await {
                    Ok(conn) => {
                        if self.generation > 0 {
                            self.failovers += 1;
                        }
                        self.generation += 1;
                        info!(
                            destination = %self.destination,
                            server = %info.address,
                            "connected to the running server"
                        );
                        return Ok(Connection {
                            conn,
                            address: info.address,
                            generation: self.generation,
                            opened: Instant::now(),
                        });
                    }
                    Err(e) => {
                        debug!(server = %info.address, "cannot use the running server yet: {e}");
                        last_error = Some(e);
                    }
                },
                None => debug!(destination = %self.destination, "no server runs the destination"),
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(last_error.unwrap_or(ClientError::NoServer {
                    destination: self.destination.clone(),
                    waited: self.options.failover_timeout,
                }));
            }
            let pause = self.options.retry_interval.min(deadline - now);
            // A change of the node ends the pause early.
            let _ = tokio::time::timeout(pause, nodes.changed()).await;
        }
    }

    async fn open_to(&self, address: &str) -> Result<SimpleConnector> {
        let mut options = self.options.connector.clone();
        options.rollback_on_connect = false;
        let mut conn = SimpleConnector::connect_with(
            address,
            &self.destination,
            &self.username,
            &self.password,
            options,
        )
        .await?;
        if let Some(filter) = &self.filter {
            conn.subscribe(filter).await?;
            if self.options.connector.rollback_on_connect {
                conn.rollback(0).await?;
            }
        }
        Ok(conn)
    }
}

impl Connector for ClusterConnector {
    fn get_without_ack_raw(
        &mut self,
        batch_size: i32,
        timeout: Option<i64>,
        unit: TimeUnit,
    ) -> impl std::future::Future<Output = Result<RawMessage>> + Send {
        ClusterConnector::get_without_ack_raw(self, batch_size, timeout, unit)
    }

    fn ack(&mut self, batch_id: i64) -> impl std::future::Future<Output = Result<()>> + Send {
        ClusterConnector::ack(self, batch_id)
    }
}

/// Why a waiting call was given up.
struct Interrupted(String);

/// Resolves when the `running` node names an active server other than
/// `address` (a deleted node is not a move: the same server may take it
/// back), or when this process no longer holds the client's `running` node
/// (another process may be consuming by now).
async fn interrupted(
    mut nodes: watch::Receiver<Option<RunningInfo>>,
    mut roles: watch::Receiver<Role>,
    address: String,
) -> Interrupted {
    loop {
        if let Some(info) = nodes.borrow_and_update().as_ref() {
            if info.active && info.address != address {
                return Interrupted(format!("the destination moved to {}", info.address));
            }
        }
        if *roles.borrow_and_update() != Role::Running {
            return Interrupted("this process is no longer the running client".into());
        }
        tokio::select! {
            r = nodes.changed() => if r.is_err() { std::future::pending::<()>().await },
            r = roles.changed() => if r.is_err() { std::future::pending::<()>().await },
        }
    }
}

async fn race<T>(
    call: impl std::future::Future<Output = Result<T>>,
    interrupt: impl std::future::Future<Output = Interrupted>,
) -> std::result::Result<Result<T>, Interrupted> {
    // The interruption first: a call is not sent to a server the node no
    // longer names, nor by a process that is no longer the running client.
    tokio::select! {
        biased;
        i = interrupt => Err(i),
        r = call => Ok(r),
    }
}

fn zk_error(e: HaError) -> ClientError {
    ClientError::Zk(e.to_string())
}

/// The local IP address the system would use to reach the first ZooKeeper
/// server (no packet is sent); 127.0.0.1 when that cannot be told.
fn local_ip_towards(zk_servers: &str) -> String {
    let first = zk_servers
        .split(',')
        .next()
        .unwrap_or("")
        .split('/')
        .next()
        .unwrap_or("")
        .trim();
    let probe = || -> std::io::Result<String> {
        let socket = UdpSocket::bind("0.0.0.0:0")?;
        socket.connect(first)?;
        Ok(socket.local_addr()?.ip().to_string())
    };
    probe().unwrap_or_else(|_| "127.0.0.1".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_address_is_the_local_ip_towards_zookeeper() {
        assert_eq!(
            local_ip_towards("127.0.0.1:2181,127.0.0.2:2181/chroot"),
            "127.0.0.1"
        );
        assert_eq!(local_ip_towards("not a host"), "127.0.0.1");
    }
}
