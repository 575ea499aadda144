//! The ZooKeeper section of `canal.properties` (`canal.zkServers`,
//! `canal.zookeeper.*`, `sluice.zookeeper.*`) and the address the server
//! registers there.

use std::time::Duration;

use crate::secret::Secret;

/// Who may read the ZooKeeper nodes a server with credentials creates
/// (`sluice.zookeeper.acl`); those with the same credentials may do anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZooKeeperAcl {
    /// `creator-all-world-read` (default): anyone may read, so Canal clients
    /// without credentials still find the servers.
    CreatorAllWorldRead,
    /// `creator-all`: nobody else, not even to read.
    CreatorAll,
}

/// What high availability is given of the configuration: the cluster, how
/// the server uses it, and the address it registers.
#[derive(Debug, Clone)]
pub struct ZooKeeperConfig {
    /// `canal.zkServers`: empty = no ZooKeeper.
    pub servers: String,
    /// `canal.zookeeper.flush.period` (ms, default 1000).
    pub flush_period: Duration,
    /// `sluice.zookeeper.flush.onAck` (default true): the cursor an ack
    /// moves is written to ZooKeeper before the server answers the client's
    /// next request, so a crash never replays an acknowledged batch. False
    /// is Canal's behaviour: cursors are written every
    /// `canal.zookeeper.flush.period`, and up to a period of acknowledged
    /// batches come again after a crash.
    pub flush_on_ack: bool,
    /// `canal.zookeeper.ha.delay` (ms, default 5000): how long a server
    /// that was not the previous owner waits before taking a destination
    /// whose `running` node disappeared (Canal hard-codes 5 s).
    pub ha_delay: Duration,
    /// `canal.zookeeper.session.timeout` (ms, default 10000): the ZooKeeper
    /// session timeout asked for. ZooKeeper clamps it to its
    /// `minSessionTimeout`..`maxSessionTimeout` (by default 2 and 20 ticks,
    /// 4 s..40 s with `tickTime` = 2000).
    pub session_timeout: Duration,
    /// `sluice.zookeeper.auth` (`scheme:credentials`, e.g.
    /// `digest:user:password`), or the text of the file named by
    /// `sluice.zookeeper.auth.file`: the credentials of every ZooKeeper
    /// session; with them the nodes the server creates get
    /// `sluice.zookeeper.acl` instead of open access.
    pub auth: Option<Secret>,
    /// `sluice.zookeeper.acl` (default `creator-all-world-read`).
    pub acl: ZooKeeperAcl,
    /// The address to register: `canal.register.ip`, else `canal.ip`;
    /// empty when neither is set.
    pub register_ip: String,
    /// `canal.port`, registered with it.
    pub port: u16,
}
