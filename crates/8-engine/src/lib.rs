//! Sluice embedded in an application, the way the Debezium engine is: the
//! application builds an [`Engine`], and the engine hands it Debezium change
//! events (or typed events) from a MySQL or MariaDB binlog, with the offset
//! of each, and commits the offsets the application marks processed.
//!
//! Several processes of one application can each embed an engine on the
//! same ZooKeeper latch (Apache Curator's `LeaderLatch` layout, so Java
//! processes can join it too): only the leader streams, and a new leader
//! continues from the committed offset, decoding with the schema history
//! the previous leader wrote. Offsets and history are kept in Debezium's
//! formats, in files or in ZooKeeper (see [`offset_store`] and
//! [`history_store`]).

pub mod history_store;
pub mod offset;
pub mod offset_store;

pub use offset::{OffsetKey, SourceOffset};
pub use offset_store::OffsetStore;

/// Why the engine, or one of its stores, failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A property is missing or holds a value the engine cannot use.
    #[error("property {property}: {message}")]
    Config { property: String, message: String },
    /// An offset or history store could not be read or written.
    #[error("{location}: {message}")]
    Store { location: String, message: String },
    /// A write was refused because this process no longer leads.
    #[error("{location}: not written, this process no longer holds the leader latch")]
    Fenced { location: String },
    #[error(transparent)]
    Ha(#[from] sluice_ha::HaError),
    #[error(transparent)]
    Stream(#[from] sluice_instance::stream::StreamError),
    /// The application's consumer failed; the engine stopped.
    #[error("the consumer failed: {0}")]
    Consumer(Box<dyn std::error::Error + Send + Sync>),
}
