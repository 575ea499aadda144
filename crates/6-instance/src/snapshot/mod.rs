//! The initial snapshot: the rows already in the tables the filters keep,
//! read while the stream runs, without locking the source.
//!
//! Each table is delivered in chunks of its key order, read one of two
//! ways (`sluice.instance.snapshot.reads`):
//! - scan (the default): one SELECT in key order in a transaction started
//!   `WITH CONSISTENT SNAPSHOT`, its rows cut into chunks as they come. The
//!   source reads no range condition per row, so this costs it least; the
//!   transaction is ended and a new scan started after `scanSeconds` or
//!   when many keys were changed ahead of the scan. A large table with a
//!   key of one integer column is cut into parts (key ranges) scanned at
//!   once, so that it keeps more than one of the source's threads busy
//!   ([`split_large_tables`]).
//! - ranges: a chunk's end is found first (the key `chunkSize` rows on),
//!   then its rows (`WHERE key > last AND key <= end`) in a transaction of
//!   its own; chunks whose bounds are known are read several at once, on
//!   connections of their own.
//!
//! Before a chunk is read (a scan: before its transaction starts), the
//! stream starts noting the keys it delivers for the table ([`window`]);
//! after its transaction has started (a scan: at once; ranges: once the
//! chunk is read), the end of the binlog (`SHOW MASTER STATUS`) is the
//! chunk's delivery point. When the stream has delivered
//! everything before that point, the chunk goes into the store there,
//! without the rows the stream touched meanwhile (it delivered a version
//! of them at least as new); rows the stream changed with row images that
//! leave columns out (MINIMAL, NOBLOB) go with the values it set instead
//! ([`window`]). So every row reaches the consumer in its
//! state at some point of the binlog, and every change after that point
//! exactly once, in binlog order: no row version ever goes backwards, and
//! no lock is taken.
//!
//! A chunk is one Canal row entry of type INSERT whose header carries the
//! property `snapshot = true`. It counts as done once every consumer acked
//! it; the progress is persisted beside the cursors (see
//! [`sluice_meta::snapshot`]), so a restart or a take-over resumes at the
//! first chunk not acked. That chunk is read again, a newer version of the
//! same rows.
//!
//! A table without a primary key (or a NOT NULL unique key) is read as one
//! chunk, reconciled by whole rows: memory grows with the table, and a row
//! the stream touched in the window is dropped with every identical row.
//! The same holds for keys whose order SQL and Sluice may not agree on
//! (ENUM, SET, BIT, FLOAT, JSON, spatial key columns).
//!
//! Here: the loop over the tables ([`run`]) and what the stream and the
//! readers exchange. `state` holds what is shared, `plan` decides what is
//! read, `read` and `scan` read chunks, `sql` writes their SQL, [`window`]
//! reconciles them with the stream, `deliver` hands them over, `progress`
//! records what the consumers acked.

mod deliver;
mod memory;
mod plan;
mod progress;
mod read;
mod scan;
mod sql;
mod state;
pub mod window;

pub use deliver::*;
pub use memory::*;
pub use plan::*;
use progress::*;
pub use read::*;
use scan::*;
pub use sql::*;
pub use state::*;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sluice_binlog::{ColumnType, RowsEvent, TableMap};
use sluice_canal::proto::Pair;
use sluice_canal::EntryPosition;
use sluice_config::{SnapshotReads, SnapshotSettings};
use sluice_encode::canal::{BuiltEntry, CanalEncoder, NotUtf8, SelectRows};
use sluice_events::{
    ColumnInfo, ColumnProjection, ColumnRules, Position, RowsChange, TransactionState,
};
use sluice_meta::{PendingChunk, SnapshotProgress, TableProgress};
use sluice_schema::model::TableSchema;
use sluice_source::{Conn, ConnectOptions, RawResultSet, SourceError};
use sluice_store::EntryBytes;
use tokio::sync::{mpsc, oneshot};

use crate::destination::InstanceDestination;
pub use window::{Reconciled, Windows};

/// The Canal header property that marks a snapshot read.
pub const SNAPSHOT_PROP: &str = "snapshot";

/// Error 1146: the table is gone.
const NO_SUCH_TABLE: u16 = 1146;

/// How long a failed chunk waits before it is tried again.
const RETRY_PAUSE: Duration = Duration::from_secs(1);

/// How often progress is logged.
const LOG_EVERY: Duration = Duration::from_secs(10);

/// A chunk on its way to the stream, which puts it into the store at its
/// delivery point.
pub struct ChunkDelivery {
    pub schema: String,
    pub table: String,
    /// The chunk's window in [`Windows`].
    pub window: u64,
    /// The window stays open after this chunk: later chunks of the same
    /// scan are reconciled with it.
    pub keep_window: bool,
    /// The chunk's entry; its position and ack point are the delivery
    /// point, moved by the stream to its own point when that is further
    /// on, with its GTID state there.
    pub entry: Box<BuiltEntry>,
    /// The entry serialised (while no row is dropped from it).
    pub bytes: EntryBytes,
    /// The rows of the entry.
    pub rows: usize,
    /// The delivery point, as [`EntryPosition::binlog_key`].
    pub at: (u64, u64),
    pub reply: oneshot::Sender<Delivered>,
    /// The room the chunk takes until it is in the store.
    pub memory: HeldMemory,
}

/// What the stream did with a chunk.
#[derive(Debug)]
pub enum Delivered {
    /// Put into the store (`seq`: its sequence there; `None` when every
    /// row was dropped and nothing was put).
    Put {
        seq: Option<u64>,
        kept: usize,
        dropped: usize,
    },
    /// The table may have changed meanwhile: read the chunk again.
    Redo,
}

/// Why the snapshot stopped.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("snapshot of {table}: {source}")]
    Source {
        table: String,
        #[source]
        source: SourceError,
    },
    #[error("snapshot of {table}: {message}")]
    Table { table: String, message: String },
    #[error("snapshot progress of {destination}: {source}")]
    Progress {
        destination: String,
        #[source]
        source: sluice_meta::MetaError,
    },
    #[error("the stream stopped")]
    StreamGone,
}

/// Whether the filters keep `schema.table`.
pub type TableKeep = dyn Fn(&str, &str) -> bool + Send + Sync;

/// Everything the reader tasks need.
#[derive(Clone)]
pub struct SnapshotContext {
    pub name: String,
    pub settings: SnapshotSettings,
    pub connect: ConnectOptions,
    pub destination: Arc<InstanceDestination>,
    pub state: Arc<SnapshotState>,
    pub gtid_on: bool,
    /// Whether the filters keep `schema.table`.
    pub keeps: Arc<TableKeep>,
    /// Column filters: the columns each table's rows show (none: all).
    pub columns: Option<Arc<dyn ColumnRules>>,
    pub chunks: mpsc::Sender<ChunkDelivery>,
    /// One permit per chunk SELECT that may run at once on the source
    /// (`parallelism` of them).
    pub reads: Arc<tokio::sync::Semaphore>,
    /// The room chunks read and not yet in the store share
    /// (`maxBufferBytes`).
    pub memory: Arc<ChunkMemory>,
}

/// Runs the snapshot to its end: every table read, delivered and acked.
/// Ends early with an error the caller logs (the next run of the instance
/// resumes it).
pub async fn run(ctx: SnapshotContext) -> Result<(), SnapshotError> {
    let mut conn = connect(&ctx, "the table list").await?;
    load_or_plan(&ctx, &mut conn).await?;
    if ctx.settings.reads == SnapshotReads::Scan {
        warn_without_process(&ctx, &mut conn).await;
    }
    split_large_tables(&ctx, &mut conn).await?;
    let started = Instant::now();
    let mut logged = Instant::now();
    let mut said_reading = false;
    loop {
        if ctx.state.has_requests() {
            let estimates = estimates(&mut conn).await?;
            if ctx
                .state
                .take_requests_into_progress(&*ctx.keeps, &estimates)
            {
                split_large_tables(&ctx, &mut conn).await?;
                persist(&ctx).await?;
                said_reading = false;
            }
        }
        let todo = ctx.state.to_read();
        if todo.is_empty() {
            // Everything delivered: wait for the consumers to ack the last
            // chunks, or for tables asked for meanwhile.
            confirm_and_persist(&ctx).await;
            if ctx.state.has_requests() {
                continue;
            }
            if ctx.state.all_confirmed() {
                break;
            }
            if logged.elapsed() >= LOG_EVERY {
                logged = Instant::now();
                log_progress(&ctx, started);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        }
        if !said_reading {
            said_reading = true;
            let p = ctx.state.progress().unwrap_or_default();
            tracing::info!(
                destination = %ctx.name,
                tables = p.table_count(),
                left = todo.len(),
                rows_done = p.rows_done(),
                rows_estimated = p.rows_estimated(),
                "initial snapshot: reading"
            );
        }
        read_tables(&ctx, todo, started, &mut logged).await?;
    }
    let p = ctx.state.progress().unwrap_or_default();
    if !p.tables.is_empty() {
        tracing::info!(
            destination = %ctx.name,
            tables = p.table_count(),
            rows = p.rows_done(),
            took = ?started.elapsed(),
            "initial snapshot finished"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests;
