//! The schema history in Debezium's record format, so that a Java Debezium
//! fleet and Sluice can share one history: in a file of JSON lines
//! ([`DebeziumFileHistoryStore`], Debezium's `FileSchemaHistory` layout) or
//! in ZooKeeper as gzip'd sequential children
//! ([`DebeziumZooKeeperHistoryStore`]).
//!
//! Both implement [`sluice_schema::SchemaHistoryStore`]: the schema tracker
//! appends and loads Sluice's own [`HistoryRecord`]s, and [`HistoryCodec`]
//! turns each into Debezium records and back.
//!
//! # Records written
//!
//! Every record has Debezium's fields (`source`, `position`, `ts_ms`,
//! `databaseName`, `ddl`, `tableChanges`) and one more, `sluice`, holding
//! what Sluice needs to read its own record back exactly. Debezium's reader
//! ignores it: its `HistoryRecord` wraps the parsed document and only ever
//! asks it for `source`, `position`, `databaseName`, `schemaName`, `ddl`
//! and `tableChanges` by name (`HistoryRecord.java`, and
//! `AbstractSchemaHistory.recover`, which reads nothing else).
//!
//! - A DDL record is one Debezium record: the statement in `ddl`, its
//!   database in `databaseName`, and a `CREATE`/`ALTER`/`DROP` table change
//!   for every table it changed, dropped or (DROP DATABASE) removed; a
//!   rename is an `ALTER` of the new name with the old one as `previousId`.
//!   `position` holds `file` and `pos` (the end of the DDL event), and the
//!   `server_id`, `ts_sec` and `gtids` a [`SourceContext`] gives.
//! - A repair is one record with the rebuilt tables as `CREATE` changes
//!   and their `CREATE TABLE` text as `ddl`.
//! - A snapshot of the whole catalog is several records at its position, as
//!   Debezium writes a snapshot as a series of statements: a head record
//!   with a `DROP` change for every table the snapshot no longer has, one
//!   `CREATE DATABASE` record per database, and one record per table with a
//!   `CREATE` change and its `CREATE TABLE` text. Each stays small (so a big
//!   schema fits ZooKeeper's node size); the head says how many parts
//!   follow, and a snapshot cut short by a crash is left out on load.
//!
//! # Records read
//!
//! Records with a `sluice` field give back the record written. Records
//! without it (written by Java Debezium) are rebuilt: the `ddl` is replayed
//! with Sluice's DDL parser against the catalog so far, and when it does
//! not parse, the `tableChanges` give the tables. Debezium starts from an
//! empty schema, so a history that starts with Java records starts with an
//! empty snapshot; a run of Java snapshot records (`position.snapshot`
//! set) ends with a snapshot of the catalog they built. Records without
//! `source` or `position` are skipped with a warning, records of another
//! `source.server` are ignored.

mod codec;
mod ddl_text;
mod file;
mod zookeeper;

pub use codec::{DebeziumRecord, HistoryCodec, SourceContext};
pub use ddl_text::create_table_sql;
pub use file::DebeziumFileHistoryStore;
pub use zookeeper::{DebeziumZooKeeperHistoryStore, Fence, MAX_NODE_BYTES};

#[cfg(doc)]
use sluice_schema::HistoryRecord;
