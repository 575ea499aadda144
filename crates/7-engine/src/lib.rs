//! Sluice embedded in an application, the way the Debezium engine is: the
//! application builds an [`Engine`], and the engine hands it Debezium change
//! events from a MySQL or MariaDB binlog, each with its offset, and commits
//! the offsets the application marks processed. With `snapshot.mode=initial`
//! (the default) and no stored offset, it first delivers the rows already in
//! the selected tables as `op: "r"` records, read in chunks beside the
//! stream without locking the source (MariaDB; see the `snapshot` module's
//! notes in the source and the README).
//!
//! Several processes of one application can each embed an engine on the
//! same ZooKeeper latch (Apache Curator's `LeaderLatch` layout, so Java
//! processes can join it too): only the leader streams, and a new leader
//! continues from the committed offset, decoding with the schema history
//! the previous leader wrote. Offsets and history are kept in Debezium's
//! formats, in files or in ZooKeeper.
//!
//! ```no_run
//! use sluice_engine::Engine;
//!
//! # async fn embed() -> Result<(), sluice_engine::EngineError> {
//! let engine = Engine::builder()
//!     .properties([
//!         ("name", "orders-cdc"),
//!         ("topic.prefix", "shop"),
//!         ("database.hostname", "127.0.0.1"),
//!         ("database.user", "cdc"),
//!         ("database.password", "secret"),
//!         ("table.include.list", "shop\\.orders"),
//!         ("offset.storage.file.filename", "/var/lib/app/offsets.dat"),
//!         ("schema.history.internal.file.filename", "/var/lib/app/history.dat"),
//!     ])
//!     .notifying(|record| {
//!         println!("{} {}", record.destination, record.value.as_deref().unwrap_or("null"));
//!         Ok(())
//!     })
//!     .build()?;
//! let handle = engine.handle(); // handle.close() stops it from anywhere
//! engine.run().await
//! # }
//! ```

pub mod config;
pub mod engine;
pub mod history_store;
pub mod java_map;
pub mod offset;
pub mod offset_store;
pub mod record;
mod schema_changes;
mod snapshot;
mod snapshot_mark;
pub mod stores;
pub mod typed;

pub use config::{
    CommitPolicy, EngineConfig, HistoryStorage, LatchSettings, OffsetStorage, StartAt,
};
pub use engine::{BatchConsumer, Committer, ConsumerError, Engine, EngineBuilder, EngineHandle};
pub use offset::{OffsetKey, SourceOffset};
pub use offset_store::OffsetStore;
pub use offset_store::{FileOffsetStore, ZooKeeperOffsetStore};
pub use record::{ChangeRecord, EngineRecord, RecordOffset};
pub use typed::{Operation, Row, TypedRecord};

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
    #[error("the consumer failed on the transaction ending at {at}: {source}")]
    Consumer {
        at: String,
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}
