//! High availability with ZooKeeper, in Canal's layout and JSON byte for byte,
//! so Sluice servers, Canal servers and Canal's Java cluster client can share
//! one ZooKeeper during a migration.
//!
//! - [`paths`]: the node paths under `/otter/canal` and the `running` JSON.
//! - [`session`]: one ZooKeeper session kept alive (a new one after expiry),
//!   with a lease that tells whether the session can still be trusted.
//! - [`registry`]: a server's ephemeral `cluster` nodes.
//! - [`nodes`]: small node operations the stores share (and tools may use).
//! - [`election`]: who runs a destination (the `running` node), with Canal's
//!   delay rules and fencing, and an observer for clients that follow it.
//! - [`latch`]: leader election in Apache Curator's `LeaderLatch` layout
//!   (`/leader/_c_<uuid>-latch-<sequence>`), shared with Java processes.
//! - [`cursor_store`]: subscriptions and cursors in ZooKeeper behind
//!   [`sluice_meta::CursorStore`], plus Canal's period-mixed wrapper
//!   (memory, flushed periodically and on demand).
//! - `schema_history` (feature `schema-history`, on by default): a
//!   destination's schema history in ZooKeeper behind
//!   `sluice_schema::SchemaHistoryStore`, so a server that takes a
//!   destination over decodes with the history its previous owner wrote.
//! - [`blocking`]: the thread, runtime and session of their own that let
//!   the synchronous stores use the asynchronous client.
//!
//! Everything asynchronous runs on tokio; [`session::ZkSession::connect`],
//! [`election::RunningElection::start`] and [`registry::ServerRegistry::start`]
//! must be called inside a tokio runtime. The stores are synchronous (their
//! traits are) and run their ZooKeeper work on a thread of their own.

pub mod blocking;
pub mod cursor_store;
pub mod election;
pub mod latch;
pub mod nodes;
pub mod paths;
pub mod registry;
#[cfg(feature = "schema-history")]
pub mod schema_history;
pub mod session;

use std::time::Duration;

pub use cursor_store::{PeriodMixedCursorStore, ZooKeeperCursorStore};
pub use election::{ElectionConfig, Role, RunningElection, RunningObserver, DEFAULT_DELAY};
pub use latch::{LatchConfig, LeaderLatch, Participant, DEFAULT_LATCH_PATH};
pub use paths::{ClientRunningData, InvalidName, RunningInfo, ServerRunningData};
pub use registry::ServerRegistry;
#[cfg(feature = "schema-history")]
pub use schema_history::ZooKeeperHistoryStore;
pub use session::{ConnState, NodeAcl, SessionStatus, ZkAuth, ZkConfig, ZkSession};

/// The ZooKeeper client crate, for callers that use a session's client directly.
pub use zookeeper_client;

/// What can go wrong talking to ZooKeeper.
#[derive(Debug, thiserror::Error)]
pub enum HaError {
    #[error("ZooKeeper {op} {path}: {source}")]
    ZooKeeper {
        op: &'static str,
        path: String,
        source: zookeeper_client::Error,
    },
    #[error("cannot connect to ZooKeeper at {servers}: {reason}")]
    Connect { servers: String, reason: String },
    #[error("no ZooKeeper session to {servers} within {timeout:?}")]
    NotConnected { servers: String, timeout: Duration },
    #[error("ZooKeeper node {path} holds invalid JSON ({source})")]
    Json {
        path: String,
        source: serde_json::Error,
    },
    #[error("ZooKeeper node {path} is unreadable: {reason}")]
    Corrupt { path: String, reason: String },
    #[error(transparent)]
    InvalidName(#[from] InvalidName),
    #[error("{what} {path:?} is not a valid ZooKeeper path: {reason}")]
    InvalidPath {
        what: &'static str,
        path: String,
        reason: &'static str,
    },
    #[error("{what} did not finish within {timeout:?}")]
    Timeout {
        what: &'static str,
        timeout: Duration,
    },
    #[error("the ZooKeeper session is closed")]
    Closed,
    #[error("this server does not hold destination {destination} now: not writing")]
    NotHolder { destination: String },
}

impl HaError {
    pub(crate) fn zk(op: &'static str, path: &str) -> impl FnOnce(zookeeper_client::Error) -> Self {
        let path = path.to_string();
        move |source| HaError::ZooKeeper { op, path, source }
    }

    /// The ZooKeeper error behind this one, if any.
    pub fn zookeeper_error(&self) -> Option<&zookeeper_client::Error> {
        match self {
            HaError::ZooKeeper { source, .. } => Some(source),
            _ => None,
        }
    }
}
