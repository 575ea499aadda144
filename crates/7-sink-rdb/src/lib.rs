//! The relational sink: canal-adapter's RDB adapter inside the server.
//!
//! [`config`] reads canal-adapter's files; per destination and `rdb`
//! outer adapter a [`worker::SinkWorker`] takes the destination's batches
//! from the store with its own client id, turns their rows into upserts and
//! deletes by key ([`sql`], [`value`]) and applies runs of whole source
//! transactions (about `commitSize` rows) in target transactions
//! ([`target`]) that each also record
//! the last binlog position applied, so that a crash of the server or the
//! target neither loses nor repeats a change. [`etl`] is the full load of a
//! mapping (canal-adapter's ETL), consistent with the running worker;
//! [`mirror`] mirrors a whole database with its DDL (`mirrorDb`);
//! [`partition`] spreads a sink's rows over `threads` connections.

pub mod config;
pub mod etl;
pub mod mirror;
pub mod partition;
pub mod pgcopy;
pub mod rows;
pub mod sql;
pub mod target;
pub mod value;
pub mod worker;

pub use config::{
    load, AdapterConf, AdapterConfigError, PostgresUpsert, SchemaChanges, SinkConfig, TargetKind,
};
pub use worker::{SinkWorker, DEFAULT_CLIENT_ID};
