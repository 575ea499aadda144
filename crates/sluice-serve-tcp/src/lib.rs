//! Canal's TCP protocol, served by Sluice, so existing Canal clients (Java
//! `SimpleCanalConnector`, canal-go, canal-python) connect unchanged.
//! The wire format is `../shared/spec/canal-protocol.md`.
//!
//! * [`frame`]: length-prefixed framing with a bound (pure).
//! * [`auth`]: `canal.user` / `canal.passwd` and the scramble411 check (pure).
//! * [`session`]: one connection's state machine and Canal's replies.
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
//!   (Canal keeps it open forever; clients give up after one failure).
//! * Login must complete within 60 s of connecting (Canal: no limit), and a
//!   request frame above 1 MiB closes the connection (Canal: unbounded).
//! * Error texts keep Canal's wording and codes, but where Canal appends a
//!   Java stack trace Sluice gives the error's message.
//! * Progress is per client id (the store's design); Canal shares one
//!   cursor per destination.
//!
//! Must never: panic on network input, or let one connection disturb another.

pub mod auth;
pub mod frame;
pub mod server;
pub mod session;

pub use auth::{AuthConfig, AuthConfigError};
pub use server::{listen_addr, ServerOptions, ShutdownHandle, StartError, TcpServer};
pub use session::{Outcome, Reply, Request, Session};
