//! Sluice's schema tracking with history: every binlog position decodes with
//! the schema that was true then.
//!
//! MySQL and MariaDB binlogs describe each table's columns only by storage
//! type (and, with `binlog_row_metadata=FULL`, by name). This crate keeps the
//! rest — names, signedness, character sets, ENUM/SET labels, keys — by
//! following the DDL in the binlog, persists every change keyed by position,
//! and joins the result with each TABLE_MAP event. It does no network I/O:
//! the live schema is read through the [`MetadataSource`] trait, implemented
//! elsewhere.
//!
//! # Pieces
//!
//! - [`model`]: [`TableSchema`], [`ColumnSchema`] — columns in row-image order.
//! - [`read_ddl`]: statement → [`ddl::DdlStatement`], the crate's one entry for DDL text. Statements that cannot
//!   change tables are recognised from their first keyword; the rest go to
//!   `sqlparser` (MySQL dialect; its tree mapped by `from_sqlparser`) first
//!   and to the hand-written [`fallback_parser`]
//!   (over the [`lexer`]) when sqlparser rejects them (partitions, table
//!   options, MariaDB syntax such as `IF [NOT] EXISTS` in ALTER, `WAIT n`,
//!   `WITH SYSTEM VERSIONING`, `/*M! */`). `docs/benchmarks.md` has the
//!   figures over a corpus of 4189 real statements.
//! - [`catalog`]: [`Catalog::apply_ddl`] turns a statement into [`Delta`]s
//!   and applies them: CREATE (plain, `LIKE`, `OR REPLACE`, `IF NOT EXISTS`),
//!   ALTER (ADD/DROP/CHANGE/MODIFY/RENAME COLUMN with FIRST/AFTER, defaults,
//!   character sets and CONVERT TO, generated and invisible columns, keys,
//!   partitions, table options, system versioning), RENAME TABLE, DROP,
//!   TRUNCATE, CREATE/ALTER/DROP DATABASE, CREATE SEQUENCE.
//! - [`history`]: [`SchemaHistoryStore`] with snapshots and the deltas of
//!   every DDL and repair, keyed by position (file sequence, offset; GTID kept
//!   for reference). [`FileHistoryStore`] writes JSON lines with a CRC32
//!   each, synced on every append; a changed byte is an error, and a last
//!   line torn by a crash is dropped only while the rest still covers the
//!   start position ([`SchemaTracker::resume_at`]).
//! - [`tracker`]: [`SchemaTracker`] follows QUERY and TABLE_MAP events:
//!   [`SchemaTracker::on_query`] applies DDL, [`SchemaTracker::on_table_map`]
//!   returns the `TableMap` to decode rows with, its `ColumnDef`s carrying
//!   names, signedness, collation, labels and primary key from the tracked
//!   schema (so `Value::render` is right under `binlog_row_metadata=NO_LOG`,
//!   MariaDB's default). [`SchemaTracker::start_at`] restarts at any older
//!   position with the schema of that time.
//! - [`binlog_meta`]: the cross-check of a TABLE_MAP with the tracked table.
//! - [`redact`]: credentials (`IDENTIFIED BY '…'`, `PASSWORD('…')`,
//!   `MASTER_PASSWORD=`, `CONNECTION='…'`, ...) replaced by `'***'` in every
//!   statement before it is parsed, logged, put in an error or recorded.
//!
//! # Never misaligned columns
//!
//! Every TABLE_MAP is checked against the tracked table: column count,
//! storage type of every column, and the sizes the binlog always carries
//! (DECIMAL precision and scale, fractional seconds, BIT width, ENUM/SET
//! storage size, TEXT/BLOB size class). With FULL metadata also names,
//! signedness, ENUM/SET labels and character lengths. On a mismatch:
//! with FULL metadata the binlog is trusted — the table is rebuilt from it,
//! the repair is recorded in the history and a warning names the table and
//! the position; without it, the table is re-read from the server if the
//! stream is live and a source is set, and otherwise decoding stops with an
//! error naming table and position. Rows are never decoded with a column
//! list that does not line up with the TABLE_MAP.
//!
//! A table the catalog lacks is read from the server (when a source is set)
//! unless the history records a later change to it, and checked against the
//! TABLE_MAP like any other; a refusal for lack of privilege is an error
//! naming the GRANT, and records nothing, so a retry after it succeeds.
//!
//! # Unparseable DDL
//!
//! A DDL statement neither parser reads, one whose effect the text does not
//! give (`CREATE TABLE ... SELECT` in statement-format binlogs; row-format
//! binlogs carry an explicit CREATE TABLE instead), or one that contradicts
//! the tracked schema goes to the [`UnparseableDdlPolicy`]:
//!
//! - `Reread` (**the default**): when the stream is at the server's current
//!   position ([`SchemaTracker::set_live`]) and a [`MetadataSource`] is set,
//!   the tables the statement names are read from the server (SHOW CREATE
//!   TABLE) and recorded. Otherwise they are marked stale with a warning;
//!   a stale table is rebuilt from the next TABLE_MAP with FULL metadata,
//!   and without FULL metadata its rows are an error, not a guess.
//! - `SkipWithWarning`: the tables are marked stale with a warning; a stale
//!   table is rebuilt from FULL metadata when it comes, and until then its
//!   rows are decoded from the binlog alone (storage types, no names).
//! - `Fail`: decoding stops with an error naming the position and statement.
//!
//! Under every policy a statement whose target table cannot be found in its
//! text stops decoding: nothing else would tell which table to distrust.
//!
//! # Tables and charsets
//!
//! DDL is tracked for every table it names; capture filters only limit which
//! tables [`SchemaTracker::seed`] reads from the server at the first start.
//! A column's character set is resolved when it is defined (column, then
//! table default, then database default, then the server collation from the
//! QUERY event's status variables), as the server does. VIRTUAL generated
//! columns are columns of the row image on MariaDB and MySQL 5.7+ and are
//! tracked as such; MariaDB's implicit `row_start`/`row_end` are tracked as
//! hidden columns at the end of the row. Temporary tables are not tracked.

pub mod binlog_meta;
pub mod catalog;
pub mod collation;
pub mod ddl;
pub mod error;
pub mod fallback_parser;
mod from_sqlparser;
pub mod history;
pub mod lexer;
pub mod metadata;
pub mod model;
pub mod position;
pub mod read_ddl;
pub mod redact;
pub mod select_rows;
pub mod status_vars;
pub mod tracker;

pub use catalog::{ApplyContext, Catalog, DdlOutcome, Delta};
pub use error::{Result, SchemaError};
pub use history::{FileHistoryStore, HistoryRecord, MemoryHistoryStore, SchemaHistoryStore};
pub use metadata::MetadataSource;
pub use model::{ColumnSchema, DatabaseSchema, Generated, TableSchema};
pub use position::BinlogPosition;
pub use redact::redact;
pub use tracker::{SchemaTracker, TrackerOptions, UnparseableDdlPolicy};
