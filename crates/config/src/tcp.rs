//! The Canal TCP server's section: where it listens and whom it lets in
//! ([`CanalPortConfig`]), and what peers may hold ([`TcpLimits`],
//! `sluice.tcp.*`).

use std::time::Duration;

/// What the Canal TCP server is given of the configuration, and nothing
/// else: `canal.ip`, `canal.port`, `canal.user`, `canal.passwd` and the
/// `sluice.tcp.*` limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanalPortConfig {
    /// Address to listen on; empty = all interfaces.
    pub ip: String,
    pub port: u16,
    pub user: String,
    /// Hex of SHA1(SHA1(password)), as Canal stores it.
    pub passwd: String,
    pub limits: TcpLimits,
}

/// Limits of the Canal TCP server, so that peers (logged in or not) cannot
/// take the process's memory, file descriptors or password checks (Canal
/// has no such keys, hence `sluice.tcp.*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpLimits {
    /// `sluice.tcp.maxConnections` (default 1024): client connections open
    /// at once; more are closed as soon as they are accepted. The server
    /// also keeps it below RLIMIT_NOFILE minus `reserved_fds`.
    pub max_connections: usize,
    /// `sluice.tcp.reservedFds` (default 256): file descriptors kept free of
    /// client connections for cursors, the store, schema history, the
    /// sources and ZooKeeper.
    pub reserved_fds: usize,
    /// `sluice.tcp.loginTimeout` (ms, default 10000): time from connecting
    /// to a successful login.
    pub login_timeout: Duration,
    /// `sluice.tcp.maxFailedLogins` (default 5): failed logins from one
    /// address before its logins are refused for a while.
    pub max_failed_logins: u32,
    /// `sluice.tcp.loginBackoffMax` (ms, default 30000): the longest an
    /// address is refused; the wait starts at 1 s and doubles per failure.
    pub login_backoff_max: Duration,
    /// `sluice.tcp.maxConnectionsPerAddress` (default 64): client
    /// connections open at once from one address (IPv6: one /64); more
    /// are closed as soon as they are accepted.
    pub max_connections_per_address: usize,
    /// `sluice.tcp.quickAck` (default true, Linux): every segment a client
    /// sends is acknowledged at once rather than by the delayed-ACK timer.
    /// A client that writes a request's length and body in two sends
    /// without TCP_NODELAY (canal-python) otherwise waits up to 40 ms per
    /// request for that ACK (Nagle's algorithm holds the body until then).
    pub quick_ack: bool,
}

impl Default for TcpLimits {
    fn default() -> Self {
        TcpLimits {
            max_connections: 1024,
            reserved_fds: 256,
            login_timeout: Duration::from_secs(10),
            max_failed_logins: 5,
            login_backoff_max: Duration::from_secs(30),
            max_connections_per_address: 64,
            quick_ack: true,
        }
    }
}
