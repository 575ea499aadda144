//! Canal's TCP protocol, served by Sluice, so existing Canal clients (Java
//! `SimpleCanalConnector`, canal-go, canal-python) connect unchanged.
//! The wire format is Canal's: its protobuf packets (`sluice-canal`) in
//! frames with a 4-byte big-endian length, as Canal's Netty server sends them.
//!
//! * [`frame`]: length-prefixed framing with a bound (pure).
//! * [`auth`]: `canal.user` / `canal.passwd` and the scramble411 check (pure).
//! * [`protocol`]: one client connection's protocol state machine and Canal's error texts.
//! * [`reply`]: the replies the protocol returns and their frame encoding.
//! * [`limits`]: the connection cap, the per-address login backoff and the
//!   log budgets (what an unauthenticated peer can make the server hold).
//! * [`server`]: the listener, sockets, timeouts and connection tasks.
//!
//! The server serves whatever [`sluice_store::Destinations`] it is given;
//! entries leave as the serialised Canal `Entry` bytes the destination
//! holds, never re-encoded.
//!
//! Where Sluice differs from Canal on the wire, and why:
//! * MESSAGES always carries `version = 1` (Canal's raw-entry mode leaves
//!   it out of non-empty batches); no client reads it.
//! * After 3 failed logins on one connection the connection is closed
//!   (Canal keeps it open forever; clients give up after one failure), and
//!   after `sluice.tcp.maxFailedLogins` failures from one address its
//!   logins are refused for a while (Canal: no limit).
//! * Login must complete within `sluice.tcp.loginTimeout` (10 s) of
//!   connecting (Canal: no limit); a frame above 64 KiB before login, or
//!   above 1 MiB after, closes the connection (Canal: unbounded).
//! * At most `sluice.tcp.maxConnections` (1024) connections are open at
//!   once, fewer if RLIMIT_NOFILE is low, and at most
//!   `sluice.tcp.maxConnectionsPerAddress` (64) from one address; more are
//!   closed on accept.
//! * Error texts keep Canal's wording and codes, but where Canal appends a
//!   Java stack trace Sluice gives the error's message.
//! * Progress is per client id (the store's design); Canal shares one
//!   cursor per destination.
//!
//! Must never: panic on network input, or let one connection disturb another.

pub mod auth;
pub mod connections;
pub mod frame;
pub mod limits;
pub mod metrics;
pub mod protocol;
pub mod reply;
pub mod server;

pub use auth::{AuthConfig, AuthConfigError};
pub use connections::Connections;
pub use protocol::{ClientProtocol, Outcome, Reply, Request};
pub use server::{listen_addr, ServerOptions, ShutdownHandle, StartError, TcpServer};
