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

pub mod window;

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

/// What the snapshot of one destination shares between its reader tasks,
/// the stream and the runs of the instance.
#[derive(Debug, Default)]
pub struct SnapshotState {
    pub windows: Windows,
    live: Mutex<Live>,
    /// One write of the progress at a time, the latest state last.
    persisting: tokio::sync::Mutex<()>,
    /// Tables asked for on demand (`schema`, `table`), not yet taken into
    /// the progress; `wake` tells the stream to start a snapshot for them.
    requested: Mutex<Vec<(String, String)>>,
    /// Every table the filters keep is asked for (the binlog to resume
    /// from was purged, see `sluice.instance.onPurged`).
    every_table: std::sync::atomic::AtomicBool,
    pub wake: tokio::sync::Notify,
}

#[derive(Debug, Default)]
struct Live {
    /// As persisted (confirmed chunks), plus chunks delivered since.
    progress: Option<SnapshotProgress>,
    /// Per table (or part of a table): where the next chunk starts (after
    /// the last delivered one) as raw key values, and the store sequence
    /// of each pending chunk (`None`: nothing was put, done at once).
    tables: HashMap<PartKey, TableLive>,
}

#[derive(Debug, Default)]
struct TableLive {
    next_from: Option<Vec<Vec<u8>>>,
    /// The part's last key (raw values), included; `None`: to the table's
    /// end.
    up_to: Option<Vec<Vec<u8>>>,
    delivered_all: bool,
    pending_seqs: Vec<Option<u64>>,
}

/// A key as the server sent its values (text protocol), one per key column.
type RawKey = Vec<Vec<u8>>;

/// What one reader reads: a whole table (part 0), or one key range of a
/// large table read in parts at once (see [`split_large_tables`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct PartKey {
    schema: String,
    table: String,
    part: u32,
}

impl PartKey {
    fn of(t: &TableProgress) -> PartKey {
        PartKey {
            schema: t.schema.clone(),
            table: t.table.clone(),
            part: t.part,
        }
    }

    fn is_of(&self, schema: &str, table: &str) -> bool {
        self.schema == schema && self.table == table
    }

    fn qualified(&self) -> String {
        format!("{}.{}", self.schema, self.table)
    }
}

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
}

impl SnapshotState {
    fn lock(&self) -> std::sync::MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The progress as it stands (for the admin API and tests).
    pub fn progress(&self) -> Option<SnapshotProgress> {
        self.lock().progress.clone()
    }

    /// The server's row estimate of `schema.table` in the progress (0 when
    /// unknown), over all its parts.
    fn rows_estimated(&self, schema: &str, table: &str) -> u64 {
        self.lock().progress.as_ref().map_or(0, |p| {
            p.tables
                .iter()
                .filter(|t| t.schema == schema && t.table == table)
                .map(|t| t.rows_estimated)
                .sum()
        })
    }

    /// Asks for a snapshot of these tables (read again from their start
    /// when they were read before), beside the stream, whatever the
    /// configured mode: Debezium's incremental snapshot on demand.
    pub fn request(&self, tables: Vec<(String, String)>) {
        {
            let mut requested = self.requested.lock().unwrap_or_else(|p| p.into_inner());
            for t in tables {
                if !requested.contains(&t) {
                    requested.push(t);
                }
            }
        }
        self.wake.notify_one();
    }

    /// Asks for every table the destination's filters keep, read again
    /// beside the stream.
    pub fn request_every_table(&self) {
        self.every_table
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.wake.notify_one();
    }

    /// Whether tables were asked for and not yet taken into the progress.
    pub fn has_requests(&self) -> bool {
        self.every_table.load(std::sync::atomic::Ordering::SeqCst)
            || !self
                .requested
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .is_empty()
    }

    /// The tables (and parts) of the progress not yet read to their end,
    /// in order.
    fn to_read(&self) -> Vec<PartKey> {
        let live = self.lock();
        let Some(progress) = &live.progress else {
            return Vec::new();
        };
        progress
            .tables
            .iter()
            .filter(|t| !t.done)
            .map(PartKey::of)
            .filter(|key| live.tables.get(key).is_none_or(|l| !l.delivered_all))
            .collect()
    }

    /// Whether every table of the progress is done (read, delivered and
    /// acked); true without tables.
    fn all_confirmed(&self) -> bool {
        self.lock()
            .progress
            .as_ref()
            .is_none_or(|p| p.tables.iter().all(|t| t.done))
    }

    fn take_requests(&self) -> Vec<(String, String)> {
        std::mem::take(&mut *self.requested.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Takes the tables asked for into the progress: each is read (again)
    /// from its start. Returns whether any was taken.
    fn take_requests_into_progress(
        &self,
        keeps: &TableKeep,
        estimates: &HashMap<(String, String), u64>,
    ) -> bool {
        if self
            .every_table
            .swap(false, std::sync::atomic::Ordering::SeqCst)
        {
            let mut every: Vec<(String, String)> = estimates
                .keys()
                .filter(|(schema, table)| !is_system_schema(schema) && keeps(schema, table))
                .cloned()
                .collect();
            every.sort();
            self.request(every);
        }
        let requested = self.take_requests();
        if requested.is_empty() {
            return false;
        }
        let mut live = self.lock();
        let Live { progress, tables } = &mut *live;
        let progress = progress.get_or_insert_with(SnapshotProgress::default);
        let mut taken = false;
        for (schema, table) in requested {
            if !keeps(&schema, &table) {
                tracing::warn!(table = %format_args!("{schema}.{table}"), "snapshot asked for a table the destination's filters leave out; skipped");
                continue;
            }
            if tables.iter().any(|(k, t)| {
                k.is_of(&schema, &table) && (!t.delivered_all || !t.pending_seqs.is_empty())
            }) {
                // Being read now: this read is as new as the one asked for.
                continue;
            }
            let fresh = TableProgress {
                schema: schema.clone(),
                table: table.clone(),
                rows_estimated: estimates
                    .get(&(schema.clone(), table.clone()))
                    .copied()
                    .unwrap_or(0),
                ..Default::default()
            };
            // One entry in place of its parts, where the first one was.
            let of_it = |t: &TableProgress| t.schema == schema && t.table == table;
            match progress.tables.iter().position(of_it) {
                Some(at) => {
                    progress.tables.retain(|t| !of_it(t));
                    progress.tables.insert(at, fresh);
                }
                None => progress.tables.push(fresh),
            }
            tables.retain(|k, _| !k.is_of(&schema, &table));
            tables.insert(
                PartKey {
                    schema,
                    table,
                    part: 0,
                },
                TableLive::default(),
            );
            taken = true;
        }
        taken
    }

    /// Moves the chunks every consumer acked (store sequence below
    /// `acked`) from pending to done; returns whether anything moved.
    fn confirm(&self, acked: u64) -> bool {
        let mut live = self.lock();
        let Live { progress, tables } = &mut *live;
        let Some(progress) = progress.as_mut() else {
            return false;
        };
        let mut moved = false;
        for t in progress.tables.iter_mut() {
            let Some(tl) = tables.get_mut(&PartKey::of(t)) else {
                continue;
            };
            while let (Some(seq), false) = (tl.pending_seqs.first().copied(), t.pending.is_empty())
            {
                if seq.is_some_and(|s| s >= acked) {
                    break;
                }
                tl.pending_seqs.remove(0);
                let chunk = t.pending.remove(0);
                t.rows_done += chunk.rows;
                if chunk.up_to.is_some() {
                    t.done_up_to = chunk.up_to;
                }
                if chunk.last {
                    t.done = true;
                }
                moved = true;
            }
        }
        moved
    }
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

/// Warns when the user may not see other users' statements in the
/// process list: a DDL waiting for a scan then waits until the scan ends
/// by itself, and every statement on that table behind the DDL.
async fn warn_without_process(ctx: &SnapshotContext, conn: &mut Conn) {
    let grants = match conn.query("SHOW GRANTS").await {
        Ok(rs) => rs,
        Err(e) => {
            tracing::debug!(destination = %ctx.name, error = %e, "initial snapshot: SHOW GRANTS failed");
            return;
        }
    };
    let global = |g: &&str| g.contains(" ON *.* ");
    let sees_all = grants
        .rows
        .iter()
        .filter_map(|r| r.first()?.as_deref())
        .filter(global)
        .any(|g| g.contains("ALL PRIVILEGES") || g.contains("PROCESS"));
    if !sees_all {
        let user = conn
            .query("SELECT CURRENT_USER()")
            .await
            .ok()
            .and_then(|rs| rs.scalar().map(str::to_string))
            .unwrap_or_default();
        tracing::warn!(
            destination = %ctx.name,
            user = %user,
            scan_seconds = ctx.settings.scan_max_age.as_secs(),
            "initial snapshot: the user has no PROCESS privilege, so a DDL that waits for a table being scanned cannot be seen: it waits until the scan ends by itself (scanSeconds, plus 10 s when consumers are slow), and later statements on that table wait behind it. GRANT PROCESS ON *.* to the user to have the scan ended at once"
        );
    }
}

/// Reads these tables, `parallelism` at a time, confirming and persisting
/// the progress as the consumers ack.
async fn read_tables(
    ctx: &SnapshotContext,
    mut todo: Vec<PartKey>,
    started: Instant,
    logged: &mut Instant,
) -> Result<(), SnapshotError> {
    // Read in the order listed: the queue pops from the end.
    todo.reverse();
    let queue = Arc::new(Mutex::new(todo));
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..ctx.settings.parallelism.max(1) {
        let ctx = ctx.clone();
        let queue = queue.clone();
        workers.spawn(async move {
            let mut conns = Conns::default();
            loop {
                let next = queue.lock().unwrap_or_else(|p| p.into_inner()).pop();
                let Some(part) = next else {
                    return Ok(());
                };
                read_table(&ctx, &mut conns, &part).await?;
            }
        });
    }
    let mut result = Ok(());
    loop {
        tokio::select! {
            done = workers.join_next() => match done {
                None => break,
                Some(Ok(Ok(()))) => {}
                Some(Ok(Err(e))) => {
                    result = Err(e);
                    workers.abort_all();
                }
                Some(Err(j)) if j.is_panic() => std::panic::resume_unwind(j.into_panic()),
                Some(Err(_)) => {}
            },
            _ = tokio::time::sleep(Duration::from_millis(500)) => {
                confirm_and_persist(ctx).await;
                if logged.elapsed() >= LOG_EVERY {
                    *logged = Instant::now();
                    log_progress(ctx, started);
                }
            }
        }
    }
    result
}

/// The server's row estimates of every table (`information_schema`).
async fn estimates(conn: &mut Conn) -> Result<HashMap<(String, String), u64>, SnapshotError> {
    let rs = conn
        .query(
            "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES \
             WHERE TABLE_TYPE = 'BASE TABLE'",
        )
        .await
        .map_err(|source| SnapshotError::Source {
            table: "information_schema.TABLES".to_string(),
            source,
        })?;
    Ok(rs
        .rows
        .iter()
        .filter_map(|row| {
            let schema = row.first()?.clone()?;
            let table = row.get(1)?.clone()?;
            let rows = row.get(2)?.as_deref()?.parse().ok()?;
            Some(((schema, table), rows))
        })
        .collect())
}

fn log_progress(ctx: &SnapshotContext, started: Instant) {
    let Some(p) = ctx.state.progress() else {
        return;
    };
    let done = p.rows_done();
    let estimated = p.rows_estimated().max(done);
    let secs = started.elapsed().as_secs_f64().max(0.001);
    let rate = done as f64 / secs;
    let eta = if rate > 0.0 {
        format!("{:.0}s", (estimated - done) as f64 / rate)
    } else {
        "unknown".to_string()
    };
    tracing::info!(
        destination = %ctx.name,
        rows_done = done,
        rows_estimated = estimated,
        rows_per_second = rate as u64,
        eta = %eta,
        tables_done = p.tables_done(),
        tables = p.table_count(),
        "initial snapshot: progress"
    );
}

/// Confirms what the consumers acked and persists the progress if it moved.
async fn confirm_and_persist(ctx: &SnapshotContext) {
    let acked = ctx.destination.store().acked_by_all();
    if ctx.state.confirm(acked) {
        persist_or_warn(ctx).await;
    }
}

/// The progress as Prometheus gauges: rows done (acked) and estimated,
/// tables done and in all.
fn publish_gauges(ctx: &SnapshotContext) {
    let Some(p) = ctx.state.progress() else {
        return;
    };
    let d = ctx.name.clone();
    metrics::gauge!("sluice_snapshot_rows_done", "destination" => d.clone())
        .set(p.rows_done() as f64);
    metrics::gauge!("sluice_snapshot_rows_estimated", "destination" => d.clone())
        .set(p.rows_estimated().max(p.rows_done()) as f64);
    metrics::gauge!("sluice_snapshot_tables_done", "destination" => d.clone())
        .set(p.tables_done() as f64);
    metrics::gauge!("sluice_snapshot_tables", "destination" => d).set(p.table_count() as f64);
}

/// Persists the progress; a failure only means a restart reads more again.
async fn persist_or_warn(ctx: &SnapshotContext) {
    publish_gauges(ctx);
    if let Err(e) = persist(ctx).await {
        tracing::warn!(destination = %ctx.name, error = %e, "initial snapshot: cannot persist its progress; a restart now would read again the chunks since the last write");
    }
}

async fn persist(ctx: &SnapshotContext) -> Result<(), SnapshotError> {
    let _one_at_a_time = ctx.state.persisting.lock().await;
    let Some(progress) = ctx.state.progress() else {
        return Ok(());
    };
    let destination = ctx.destination.clone();
    let saved = tokio::task::spawn_blocking(move || destination.persist_snapshot(&progress)).await;
    match saved {
        Ok(Ok(())) => Ok(()),
        Ok(Err(source)) => Err(SnapshotError::Progress {
            destination: ctx.name.clone(),
            source,
        }),
        Err(j) if j.is_panic() => std::panic::resume_unwind(j.into_panic()),
        Err(_) => Err(SnapshotError::StreamGone),
    }
}

async fn connect(ctx: &SnapshotContext, what: &str) -> Result<Conn, SnapshotError> {
    let source_err = |source| SnapshotError::Source {
        table: what.to_string(),
        source,
    };
    let mut conn = Conn::connect(&ctx.connect).await.map_err(source_err)?;
    prepare_session(&mut conn).await.map_err(source_err)?;
    Ok(conn)
}

/// Sets a connection up for snapshot reads: values in their columns' own
/// character sets (as in the binlog), and TIMESTAMP values in UTC (as the
/// binlog holds them).
pub async fn prepare_session(conn: &mut Conn) -> Result<(), SourceError> {
    conn.exec("SET NAMES utf8mb4").await?;
    conn.exec("SET character_set_results = NULL, time_zone = '+00:00'")
        .await
}

/// The progress of an earlier run (this process, else persisted), or a
/// new plan: every base table the filters keep.
async fn load_or_plan(
    ctx: &SnapshotContext,
    conn: &mut Conn,
) -> Result<SnapshotProgress, SnapshotError> {
    if let Some(p) = ctx.state.progress() {
        return Ok(p);
    }
    let destination = ctx.destination.clone();
    let loaded = tokio::task::spawn_blocking(move || destination.persisted_snapshot())
        .await
        .map_err(|_| SnapshotError::StreamGone)?
        .map_err(|source| SnapshotError::Progress {
            destination: ctx.name.clone(),
            source,
        })?;
    let progress = match loaded {
        Some(mut p) => {
            // Chunks delivered but not known to be acked are read again.
            let dropped: usize = p.tables.iter().map(|t| t.pending.len()).sum();
            for t in p.tables.iter_mut() {
                t.pending.clear();
            }
            tracing::info!(
                destination = %ctx.name,
                tables = p.table_count(),
                tables_done = p.tables_done(),
                rows_done = p.rows_done(),
                chunks_read_again = dropped,
                "initial snapshot: resuming from its persisted progress"
            );
            p
        }
        // Only tables asked for on demand are read.
        None if ctx.settings.mode == sluice_config::SnapshotMode::Never => {
            SnapshotProgress::default()
        }
        None => {
            let p = plan(ctx, conn).await?;
            tracing::info!(
                destination = %ctx.name,
                tables = p.table_count(),
                rows_estimated = p.rows_estimated(),
                "initial snapshot: planned"
            );
            p
        }
    };
    {
        let mut live = ctx.state.lock();
        for t in &progress.tables {
            let bad = |message| SnapshotError::Table {
                table: format!("{}.{}", t.schema, t.table),
                message,
            };
            let next_from =
                persisted_key(t.done_up_to.as_ref().or(t.part_after.as_ref())).map_err(bad)?;
            live.tables.insert(
                PartKey::of(t),
                TableLive {
                    next_from,
                    up_to: persisted_key(t.part_up_to.as_ref()).map_err(bad)?,
                    delivered_all: t.done,
                    pending_seqs: Vec::new(),
                },
            );
        }
        live.progress = Some(progress.clone());
    }
    if !progress.tables.is_empty() {
        persist(ctx).await?;
    }
    Ok(progress)
}

/// A persisted key (hex values) as raw values.
fn persisted_key(hex: Option<&Vec<String>>) -> Result<Option<RawKey>, String> {
    let Some(hex) = hex else {
        return Ok(None);
    };
    hex.iter()
        .map(|h| from_hex(h))
        .collect::<Option<Vec<_>>>()
        .map(Some)
        .ok_or_else(|| format!("persisted key {hex:?} is not hex"))
}

/// A table read in parts has at least this many rows (estimated) per
/// part: below it, the parts' extra statements and the range condition
/// the source reads with each row cost more than a second reader gains.
const SPLIT_MIN_PART_ROWS: u64 = 100_000;

/// Cuts each large table not yet started whose key is one integer column
/// into `parallelism` parts, key ranges of about as many values, read at
/// once (scans only): one scan of a table keeps one of the source's
/// threads busy, and a large table alone would leave the others idle.
/// The parts replace the table's entry in the progress, each with its
/// bounds, and are read, persisted and resumed on their own.
async fn split_large_tables(ctx: &SnapshotContext, conn: &mut Conn) -> Result<(), SnapshotError> {
    let parallelism = ctx.settings.parallelism as u64;
    if ctx.settings.reads != SnapshotReads::Scan || parallelism < 2 {
        return Ok(());
    }
    // Nothing of it delivered: a chunk delivered is pending (or, once
    // acked, done) in the progress itself, and no reader runs meanwhile.
    let fresh = |t: &TableProgress| {
        t.part == 0
            && t.part_after.is_none()
            && t.part_up_to.is_none()
            && t.done_up_to.is_none()
            && t.pending.is_empty()
            && !t.done
    };
    let candidates: Vec<(String, String, u64)> = {
        let live = ctx.state.lock();
        let Some(progress) = &live.progress else {
            return Ok(());
        };
        progress
            .tables
            .iter()
            .filter(|t| fresh(t) && t.rows_estimated >= 2 * SPLIT_MIN_PART_ROWS)
            .map(|t| (t.schema.clone(), t.table.clone(), t.rows_estimated))
            .collect()
    };
    let mut split_any = false;
    for (schema, table, estimated) in candidates {
        let qualified = format!("{schema}.{table}");
        let Some(plan) = table_plan(conn, &schema, &table).await? else {
            continue;
        };
        let parts = parallelism.min(estimated / SPLIT_MIN_PART_ROWS);
        let Some(range) =
            integer_key_range(conn, &plan)
                .await
                .map_err(|source| SnapshotError::Source {
                    table: qualified.clone(),
                    source,
                })?
        else {
            continue;
        };
        let bounds = split_bounds(range, parts);
        if bounds.is_empty() {
            continue;
        }
        let hex = |v: i128| vec![to_hex(v.to_string().as_bytes())];
        let raw = |v: i128| vec![v.to_string().into_bytes()];
        let mut live = ctx.state.lock();
        let Live { progress, tables } = &mut *live;
        let Some(progress) = progress.as_mut() else {
            break;
        };
        let Some(at) = progress
            .tables
            .iter()
            .position(|t| t.schema == schema && t.table == table && fresh(t))
        else {
            continue;
        };
        let count = bounds.len() + 1;
        let template = progress.tables.remove(at);
        tables.retain(|k, _| !k.is_of(&schema, &table));
        for part in 0..count {
            let after = part.checked_sub(1).map(|i| bounds[i]);
            let up_to = bounds.get(part).copied();
            let entry = TableProgress {
                part: part as u32,
                part_after: after.map(hex),
                part_up_to: up_to.map(hex),
                rows_estimated: template.rows_estimated / count as u64,
                ..template.clone()
            };
            tables.insert(
                PartKey::of(&entry),
                TableLive {
                    next_from: after.map(raw),
                    up_to: up_to.map(raw),
                    ..TableLive::default()
                },
            );
            progress.tables.insert(at + part, entry);
        }
        tracing::info!(destination = %ctx.name, table = %qualified, parts = count, bounds = ?bounds, "initial snapshot: a large table is read in parts at once");
        split_any = true;
    }
    if split_any {
        persist(ctx).await?;
    }
    Ok(())
}

/// The smallest and largest key of `plan`'s table when its key is one
/// integer column (from the key's index); `None` otherwise or when the
/// table is empty.
async fn integer_key_range(
    conn: &mut Conn,
    plan: &TablePlan,
) -> Result<Option<(i128, i128)>, SourceError> {
    let [key] = plan.key[..] else {
        return Ok(None);
    };
    let integer = matches!(
        plan.map.columns[key].column_type,
        ColumnType::Tiny
            | ColumnType::Short
            | ColumnType::Int24
            | ColumnType::Long
            | ColumnType::LongLong
    );
    if !integer {
        return Ok(None);
    }
    let name = quote(&plan.schema.columns[key].name);
    let rs = conn
        .query(&format!(
            "SELECT MIN({name}), MAX({name}) FROM {}",
            qualified_name(plan)
        ))
        .await?;
    let value = |i: usize| -> Option<i128> { rs.rows.first()?.get(i)?.as_deref()?.parse().ok() };
    Ok(value(0).zip(value(1)))
}

/// The last key of each part but the last when keys from `min` to `max`
/// are cut into `parts` ranges of about as many values; empty when there
/// are too few values for two parts.
pub fn split_bounds((min, max): (i128, i128), parts: u64) -> Vec<i128> {
    let Some(span) = max.checked_sub(min).and_then(|s| s.checked_add(1)) else {
        return Vec::new();
    };
    let parts = i128::from(parts);
    if parts < 2 || span < parts {
        return Vec::new();
    }
    (1..parts)
        .map(|i| min - 1 + span / parts * i + span % parts * i / parts)
        .collect()
}

/// The server's own schemas, never snapshotted.
fn is_system_schema(schema: &str) -> bool {
    ["mysql", "information_schema", "performance_schema", "sys"]
        .iter()
        .any(|s| s.eq_ignore_ascii_case(schema))
}

async fn plan(ctx: &SnapshotContext, conn: &mut Conn) -> Result<SnapshotProgress, SnapshotError> {
    let rs = conn
        .query(
            "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES \
             WHERE TABLE_TYPE = 'BASE TABLE' \
             AND TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') \
             ORDER BY TABLE_SCHEMA, TABLE_NAME",
        )
        .await
        .map_err(|source| SnapshotError::Source {
            table: "information_schema.TABLES".to_string(),
            source,
        })?;
    let mut tables = Vec::new();
    for row in &rs.rows {
        let (Some(Some(schema)), Some(Some(table))) = (row.first(), row.get(1)) else {
            continue;
        };
        if !(ctx.keeps)(schema, table) {
            continue;
        }
        let estimated = row
            .get(2)
            .and_then(|v| v.as_deref())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        tables.push(TableProgress {
            schema: schema.clone(),
            table: table.clone(),
            rows_estimated: estimated,
            ..Default::default()
        });
    }
    Ok(SnapshotProgress { tables })
}

/// How a table is read.
pub struct TablePlan {
    pub schema: TableSchema,
    pub map: Arc<TableMap>,
    pub columns: Arc<[ColumnInfo]>,
    pub select: String,
    /// Key column indexes; empty: read in one chunk, reconciled by whole rows.
    pub key: Vec<usize>,
}

/// The connections a table worker reads with: `lead` describes tables and
/// finds where chunks end, each reader reads one chunk at a time.
#[derive(Default)]
struct Conns {
    lead: Option<Conn>,
    readers: Vec<Conn>,
}

/// Reads one table to its end, chunk after chunk.
async fn read_table(
    ctx: &SnapshotContext,
    conns: &mut Conns,
    part: &PartKey,
) -> Result<(), SnapshotError> {
    let (schema, table) = (part.schema.as_str(), part.table.as_str());
    let qualified = part.qualified();
    let mut failures = 0u32;
    // The table's description, read again after any statement that may
    // have changed a table went by in the stream.
    let mut plan: Option<Described> = None;
    loop {
        let mut read_any = false;
        match read_chunks(ctx, conns, &mut plan, part, &mut read_any).await {
            Ok(()) => return Ok(()),
            Err(SnapshotError::Source { source, .. }) => {
                // The server or the connection: read from the first chunk
                // not delivered again, after a pause that grows to a
                // minute (and starts again once a chunk went through).
                if read_any {
                    failures = 0;
                }
                failures = failures.saturating_add(1);
                let pause = RETRY_PAUSE * failures.min(60);
                tracing::warn!(destination = %ctx.name, table = %qualified, error = %source, retry_in = ?pause, "initial snapshot: chunk failed; reading it again");
                ctx.state.windows.close_part(schema, table, part.part);
                *conns = Conns::default();
                tokio::time::sleep(pause).await;
            }
            Err(e) => {
                ctx.state.windows.close_part(schema, table, part.part);
                return Err(e);
            }
        }
    }
}

/// A chunk read from the source, not yet delivered.
struct ReadChunk {
    plan: Arc<TablePlan>,
    /// Its window in [`Windows`].
    window: u64,
    rows: RawResultSet,
    /// The end of the binlog once it was read: its delivery point.
    file: String,
    pos: u64,
    /// Where it started and ended, as raw key values.
    from: Option<Vec<Vec<u8>>>,
    up_to: Option<Vec<Vec<u8>>>,
    last: bool,
    /// Later chunks of the same scan share its window.
    keep_window: bool,
    /// How long the read took (for the debug log).
    read_for: Duration,
}

/// What the start of a chunk's read gave.
enum Started {
    /// The read runs; the next chunk starts after `up_to` (`None`: this
    /// one is the table's last).
    Read {
        read: ChunkRead,
        up_to: Option<Vec<Vec<u8>>>,
    },
    /// The table is gone.
    Gone,
    /// A statement went by while the chunk's window opened: describe the
    /// table again.
    Again,
}

/// A chunk's read under way on a reader connection of its own.
struct ChunkRead {
    plan: Arc<TablePlan>,
    window: u64,
    from: Option<Vec<Vec<u8>>>,
    /// Its end; `None`: it is the table's last and reads to the end.
    up_to: Option<Vec<Vec<u8>>>,
    task: tokio::task::JoinHandle<(Option<Conn>, Result<Rows, SnapshotError>)>,
}

/// What a chunk's read gave: its rows, and the binlog's end once they
/// were read (the chunk's delivery point).
struct Rows {
    rows: RawResultSet,
    file: String,
    pos: u64,
    read_for: Duration,
}

impl ChunkRead {
    /// The chunk with what its read gave. The last chunk ends at its last
    /// row.
    fn into_chunk(self, read: Rows) -> ReadChunk {
        let last = self.up_to.is_none();
        let up_to = match (&self.up_to, read.rows.last()) {
            (None, Some(row)) if !self.plan.key.is_empty() => {
                Some(key_values(&row, self.plan.key.iter().copied()))
            }
            _ => self.up_to,
        };
        ReadChunk {
            plan: self.plan,
            window: self.window,
            rows: read.rows,
            file: read.file,
            pos: read.pos,
            from: self.from,
            up_to,
            last,
            keep_window: false,
            read_for: read.read_for,
        }
    }
}

/// The raw values of these columns of `row`: a key.
fn key_values(
    row: &sluice_source::RawRow<'_>,
    columns: impl Iterator<Item = usize>,
) -> Vec<Vec<u8>> {
    columns
        .map(|i| row.value(i).unwrap_or_default().to_vec())
        .collect()
}

/// The chunk reads of one table under way, oldest first. Dropping it
/// stops them (their connections go with them).
#[derive(Default)]
struct ReadsUnderWay(std::collections::VecDeque<ChunkRead>);

impl Drop for ReadsUnderWay {
    fn drop(&mut self) {
        for read in &self.0 {
            read.task.abort();
        }
    }
}

impl ReadsUnderWay {
    /// Waits for every read, closes their windows and keeps their
    /// connections: the chunks will be read again.
    async fn drain(&mut self, ctx: &SnapshotContext, conns: &mut Conns, schema: &str, table: &str) {
        while let Some(read) = self.0.pop_front() {
            ctx.state.windows.close(schema, table, read.window);
            if let Ok((Some(conn), _)) = read.task.await {
                conns.readers.push(conn);
            }
        }
    }
}

/// How the delivery of a chunk went.
enum Delivery {
    Done,
    Redo,
}

type DeliveryTask = tokio::task::JoinHandle<Result<Delivery, SnapshotError>>;

async fn joined<T>(
    task: impl std::future::Future<Output = Result<T, tokio::task::JoinError>>,
) -> Result<T, SnapshotError> {
    match task.await {
        Ok(v) => Ok(v),
        Err(j) if j.is_panic() => std::panic::resume_unwind(j.into_panic()),
        Err(_) => Err(SnapshotError::StreamGone),
    }
}

/// Reads the table's chunks from the first one not delivered, in key
/// order: up to `parallelism` chunks are read at once, each on a
/// connection of its own (a chunk's bounds are found first, so chunks
/// read at once neither overlap nor leave gaps), while the chunk before
/// them is converted and delivered. Chunks are delivered one after the
/// other, in key order.
async fn read_chunks(
    ctx: &SnapshotContext,
    conns: &mut Conns,
    cached: &mut Option<Described>,
    part: &PartKey,
    read_any: &mut bool,
) -> Result<(), SnapshotError> {
    let (schema, table) = (part.schema.as_str(), part.table.as_str());
    // Where the next chunk to start begins, and the part's end.
    let (mut next, end) = {
        let live = ctx.state.lock();
        live.tables
            .get(part)
            .map(|t| (t.next_from.clone(), t.up_to.clone()))
            .unwrap_or_default()
    };
    // A part of a table is read by scans, whichever way was set since.
    let in_parts = part.part > 0 || end.is_some();
    if ctx.settings.reads == SnapshotReads::Scan || in_parts {
        if describe(ctx, conns, cached, schema, table).await?.is_none() {
            finish_table(ctx, part, None, 0, None);
            return Ok(());
        }
        if cached.as_ref().is_some_and(|d| !d.plan.key.is_empty()) {
            return scan_chunks(ctx, conns, cached, part, read_any, (next, end)).await;
        }
        if in_parts {
            return Err(SnapshotError::Table {
                table: part.qualified(),
                message: "it was read in parts by its key, and has no key now: remove the snapshot progress to read the table again".to_string(),
            });
        }
    }
    let mut started_last = false;
    let lookahead = ctx.settings.parallelism.max(1);
    let mut reads = ReadsUnderWay::default();
    let mut delivering: Option<(DeliveryTask, Option<Vec<Vec<u8>>>)> = None;
    loop {
        while !started_last && reads.0.len() < lookahead {
            let started = match start_read(ctx, conns, cached, part, next.clone()).await {
                Ok(started) => started,
                Err(e) => {
                    // The chunk being delivered settles first: a retry
                    // starts after it when it went through.
                    if let Some((task, _)) = delivering.take() {
                        let _ = joined(task).await;
                    }
                    return Err(e);
                }
            };
            match started {
                Started::Read { read, up_to } => {
                    started_last = up_to.is_none();
                    next = up_to;
                    reads.0.push_back(read);
                }
                Started::Again => {}
                Started::Gone => {
                    // Dropped since the plan: nothing more to read.
                    reads.drain(ctx, conns, schema, table).await;
                    if let Some((task, _)) = delivering.take() {
                        joined(task).await??;
                    }
                    finish_table(ctx, part, None, 0, None);
                    return Ok(());
                }
            }
        }
        let Some(mut read) = reads.0.pop_front() else {
            // Nothing under way and nothing left to start: the last chunk
            // went through.
            return Ok(());
        };
        let window = read.window;
        let (conn, rows) = match joined(&mut read.task).await {
            Ok(done) => done,
            Err(e) => {
                ctx.state.windows.close(schema, table, window);
                return Err(e);
            }
        };
        if let Some(conn) = conn {
            conns.readers.push(conn);
        }
        // The chunk before this one must be through before this one goes.
        if let Some((task, its_from)) = delivering.take() {
            match joined(task).await {
                Ok(Ok(Delivery::Done)) => *read_any = true,
                Ok(Ok(Delivery::Redo)) => {
                    ctx.state.windows.close(schema, table, window);
                    reads.drain(ctx, conns, schema, table).await;
                    next = its_from;
                    started_last = false;
                    continue;
                }
                Ok(Err(e)) | Err(e) => {
                    ctx.state.windows.close(schema, table, window);
                    return Err(e);
                }
            }
        }
        let chunk = match rows {
            Ok(rows) => read.into_chunk(rows),
            Err(e) => {
                ctx.state.windows.close(schema, table, window);
                return Err(e);
            }
        };
        let last = chunk.last;
        let its_from = chunk.from.clone();
        let task = tokio::spawn(deliver(ctx.clone(), part.clone(), chunk));
        if last {
            // Nothing behind it: see it through here.
            match joined(task).await?? {
                Delivery::Done => return Ok(()),
                Delivery::Redo => {
                    next = its_from;
                    started_last = false;
                    continue;
                }
            }
        }
        delivering = Some((task, its_from));
    }
}

/// A scan ends and starts again after the chunk that finds its window
/// holding this many keys the stream touched ahead of it: the memory a
/// busy table's window takes stays bounded.
const SCAN_MAX_TOUCHED: usize = 100_000;

/// How long the source waits on a scan whose rows are not read (the
/// consumers are slow) before it drops the connection; the scan then
/// starts again after the last chunk delivered.
const SCAN_WRITE_TIMEOUT_SECS: u64 = 3600;

/// A piece of a scan: one chunk's rows.
struct ScanPiece {
    rows: RawResultSet,
    /// The end of the binlog once the scan's snapshot was taken: the
    /// delivery point of every chunk of the scan.
    file: String,
    pos: u64,
    /// The table's rows ended with this piece.
    ended: bool,
    /// The scan stops after this piece (it is older than
    /// `scanSeconds`, or see [`SCAN_MAX_TOUCHED`]); the next one starts
    /// after it.
    stops: bool,
    read_for: Duration,
    /// The connection back, when the scan ended cleanly.
    conn: Option<Conn>,
}

/// Reads a keyed table from `next` on with scans: one SELECT in key order
/// in a consistent snapshot, cut into chunks of `chunkSize` rows as they
/// come. One window, opened before the snapshot, serves every chunk of
/// the scan: each is delivered at the stream's point (past the snapshot's)
/// without the rows the stream touched since the window opened. A chunk
/// is converted and delivered while the next one is read.
async fn scan_chunks(
    ctx: &SnapshotContext,
    conns: &mut Conns,
    cached: &mut Option<Described>,
    part: &PartKey,
    read_any: &mut bool,
    (mut next, end): (Option<RawKey>, Option<RawKey>),
) -> Result<(), SnapshotError> {
    let (schema, table) = (part.schema.as_str(), part.table.as_str());
    let qualified = part.qualified();
    loop {
        let Some(generation) = describe(ctx, conns, cached, schema, table).await? else {
            finish_table(ctx, part, None, 0, None);
            return Ok(());
        };
        let Some(plan) = cached.as_ref().map(|d| d.plan.clone()) else {
            continue;
        };
        let sql = chunk_range_sql(&plan, next.as_deref(), end.as_deref()).map_err(|message| {
            SnapshotError::Table {
                table: qualified.clone(),
                message,
            }
        })?;
        let Some((reader, window)) = open_reader(ctx, conns, part, &plan, generation).await? else {
            continue;
        };
        let reader_id = reader.connection_id();
        let (pieces_tx, mut pieces) = mpsc::channel(1);
        let mut scan = ScanTask(tokio::spawn(scan(
            ctx.clone(),
            reader,
            sql,
            (schema.to_string(), table.to_string(), window),
            pieces_tx,
        )));
        let mut from = next.clone();
        let mut delivering: Option<(DeliveryTask, Option<Vec<Vec<u8>>>)> = None;
        // Watches for a DDL held back by the scan, with the lead
        // connection (idle while the scan runs), which comes back after.
        let let_through = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (stop_watch, watch_stopped) = oneshot::channel();
        let watchdog = WatchdogTask(
            tokio::spawn(watch_locks(
                conns.lead.take(),
                reader_id,
                scan.0.abort_handle(),
                let_through.clone(),
                watch_stopped,
                // A scan stops by itself after `scanSeconds` unless it
                // waits on slow consumers: then it is ended here.
                Instant::now() + ctx.settings.scan_max_age + SCAN_OVERTIME,
                (ctx.name.clone(), qualified.clone()),
            )),
            Some(stop_watch),
        );
        // Where the next scan starts; `None` here: the table is done.
        let restart_at = loop {
            let piece = pieces.recv().await;
            // The chunk before this one must be through before this one goes.
            if let Some((task, its_from)) = delivering.take() {
                match joined(task).await {
                    Ok(Ok(Delivery::Done)) => *read_any = true,
                    Ok(Ok(Delivery::Redo)) => break Some(its_from),
                    Ok(Err(e)) | Err(e) => {
                        ctx.state.windows.close(schema, table, window);
                        return Err(e);
                    }
                }
            }
            let piece = match piece {
                Some(Ok(piece)) => piece,
                Some(Err(e)) => {
                    ctx.state.windows.close(schema, table, window);
                    return Err(e);
                }
                None if let_through.load(std::sync::atomic::Ordering::Acquire) => break Some(from),
                None => {
                    // The reader ended without a word: it panicked (that
                    // goes on here) or was stopped.
                    ctx.state.windows.close(schema, table, window);
                    joined(&mut scan.0).await?;
                    return Err(SnapshotError::StreamGone);
                }
            };
            if let Some(conn) = piece.conn {
                conns.readers.push(conn);
            }
            let up_to = piece
                .rows
                .last()
                .map(|row| key_values(&row, plan.key.iter().copied()));
            let (ended, stops) = (piece.ended, piece.stops);
            let chunk = ReadChunk {
                plan: plan.clone(),
                window,
                rows: piece.rows,
                file: piece.file,
                pos: piece.pos,
                from: from.clone(),
                up_to: up_to.clone(),
                last: ended,
                keep_window: !(ended || stops),
                read_for: piece.read_for,
            };
            let its_from = from.clone();
            if up_to.is_some() {
                from = up_to;
            }
            let task = tokio::spawn(deliver(ctx.clone(), part.clone(), chunk));
            if ended || stops {
                match joined(task).await?? {
                    Delivery::Done => *read_any = true,
                    Delivery::Redo => break Some(its_from),
                }
                break (!ended).then_some(from);
            }
            delivering = Some((task, its_from));
        };
        drop(scan);
        conns.lead = watchdog.stop().await;
        match restart_at {
            None => return Ok(()),
            Some(at) => {
                // A chunk to read again, or a scan that stopped: a new scan
                // with a window of its own starts there.
                ctx.state.windows.close(schema, table, window);
                next = at;
            }
        }
    }
}

/// How long past `scanSeconds` a scan waiting on slow consumers keeps its
/// transaction open before it is ended.
const SCAN_OVERTIME: Duration = Duration::from_secs(10);

/// How often a scan looks for a DDL waiting for its metadata lock.
const LOCK_CHECK_EVERY: Duration = Duration::from_secs(1);

/// Whether a statement other than a read or a row change waits for a
/// table's metadata lock on the source: a DDL, which a scan's open
/// transaction holds back (and every statement on the table queued behind
/// it). Reads and row changes waiting are queued behind such a DDL, or
/// behind some other DDL's lock; not themselves a reason.
async fn ddl_waits(lead: &mut Conn) -> Result<bool, SourceError> {
    let rs = lead
        .query(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST \
             WHERE STATE = 'Waiting for table metadata lock' AND ID <> CONNECTION_ID() \
             AND INFO NOT REGEXP '^[[:space:](]*(SELECT|INSERT|UPDATE|DELETE|REPLACE|WITH|CALL|DO|HANDLER)[[:space:]]'",
        )
        .await?;
    Ok(rs.scalar().and_then(|n| n.parse::<u64>().ok()).unwrap_or(0) > 0)
}

/// Every [`LOCK_CHECK_EVERY`], until stopped: when a DDL waits for a
/// table's metadata lock ([`ddl_waits`]), or past `deadline`, ends the scan (the reader's task
/// and its connection `reader_id` on the source, whose open transaction
/// holds the lock; the reader may be waiting for slow consumers, and a
/// DDL waiting holds back every later statement on its table), notes it
/// in `let_through`, and gives the connection back. A connection that
/// fails ends the watch.
async fn watch_locks(
    mut conn: Option<Conn>,
    reader_id: u32,
    scan: tokio::task::AbortHandle,
    let_through: Arc<std::sync::atomic::AtomicBool>,
    mut stopped: oneshot::Receiver<()>,
    deadline: Instant,
    (destination, table): (String, String),
) -> Option<Conn> {
    let lead = conn.as_mut()?;
    loop {
        tokio::select! {
            _ = tokio::time::sleep(LOCK_CHECK_EVERY) => {}
            _ = &mut stopped => return conn,
        }
        let why = if Instant::now() >= deadline {
            "the scan waited on slow consumers past scanSeconds"
        } else {
            match ddl_waits(lead).await {
                Ok(false) => continue,
                Ok(true) => "a statement waits for a table's metadata lock",
                Err(e) => {
                    tracing::debug!(destination = %destination, table = %table, error = %e, "initial snapshot: the metadata lock watch failed; it ends");
                    return None;
                }
            }
        };
        let_through.store(true, std::sync::atomic::Ordering::Release);
        scan.abort();
        if let Err(e) = lead.exec(&format!("KILL {reader_id}")).await {
            // Gone already with the reader's task: fine.
            tracing::debug!(destination = %destination, table = %table, error = %e, "initial snapshot: KILL of the scan's connection");
        }
        tracing::info!(destination = %destination, table = %table, why, "initial snapshot: the scan's transaction is ended; a new scan starts after its last chunk delivered");
        return conn;
    }
}

/// The watch of a scan ([`watch_locks`]) and what stops it; dropping it
/// aborts the watch.
struct WatchdogTask(
    tokio::task::JoinHandle<Option<Conn>>,
    Option<oneshot::Sender<()>>,
);

impl WatchdogTask {
    /// Stops the watch (after the check under way, if any); its
    /// connection back if it is sound.
    async fn stop(mut self) -> Option<Conn> {
        if let Some(stop) = self.1.take() {
            let _ = stop.send(());
        }
        (&mut self.0).await.ok().flatten()
    }
}

impl Drop for WatchdogTask {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A scan's reader task; dropping it stops the scan.
struct ScanTask(tokio::task::JoinHandle<()>);

impl Drop for ScanTask {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Reads a scan: `sql` in a consistent snapshot of its own on `conn`, the
/// binlog's end once the snapshot is taken, then the rows, `chunkSize` at
/// a time, each piece sent on `pieces` (an error ends them); one of the
/// `reads` permits held meanwhile.
async fn scan(
    ctx: SnapshotContext,
    mut conn: Conn,
    sql: String,
    (schema, table, window): (String, String, u64),
    pieces: mpsc::Sender<Result<ScanPiece, SnapshotError>>,
) {
    let qualified = format!("{schema}.{table}");
    let Ok(_permit) = ctx.reads.clone().acquire_owned().await else {
        let _ = pieces.send(Err(SnapshotError::StreamGone)).await;
        return;
    };
    let chunk_size = ctx.settings.chunk_size.max(1);
    let started = Instant::now();
    let opened = async {
        conn.exec(&format!(
            "SET SESSION net_write_timeout = {SCAN_WRITE_TIMEOUT_SECS}"
        ))
        .await?;
        conn.exec("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            .await?;
        // Taken after the snapshot: at or past every change it sees.
        let (file, pos, _) = sluice_source::replica::master_status(&mut conn).await?;
        let rows = conn.query_start(&sql).await?;
        Ok::<_, SourceError>((file, pos, rows))
    };
    let source_err = |source| SnapshotError::Source {
        table: qualified.clone(),
        source,
    };
    let (file, pos, mut rows) = match opened.await {
        Ok((file, pos, Some(rows))) => (file, pos, rows),
        Ok((_, _, None)) => {
            let e = SnapshotError::Table {
                table: qualified.clone(),
                message: format!("`{sql}` returned no result set"),
            };
            let _ = pieces.send(Err(e)).await;
            return;
        }
        Err(e) => {
            let _ = pieces.send(Err(source_err(e))).await;
            return;
        }
    };
    loop {
        let piece_started = Instant::now();
        let (read, ended) = match conn.next_rows(&mut rows, chunk_size, chunk_size).await {
            Ok(read) => read,
            Err(e) => {
                let _ = pieces.send(Err(source_err(e))).await;
                return;
            }
        };
        let touched = ctx.state.windows.touched(&schema, &table, window);
        let stops = !ended
            && (started.elapsed() >= ctx.settings.scan_max_age
                || touched.is_some_and(|n| n >= SCAN_MAX_TOUCHED));
        if stops {
            tracing::info!(destination = %ctx.name, table = %qualified, age = ?started.elapsed(), touched = touched.unwrap_or(0), "initial snapshot: scan stopped (old, or many keys changed ahead of it); a new one starts after its last chunk");
        }
        let mut piece = ScanPiece {
            rows: read,
            file: file.clone(),
            pos,
            ended,
            stops,
            read_for: piece_started.elapsed(),
            conn: None,
        };
        if ended {
            // Clean end: the connection can serve again.
            match conn.exec("COMMIT").await {
                Ok(()) => piece.conn = Some(conn),
                Err(e) => {
                    tracing::debug!(table = %qualified, error = %e, "initial snapshot: a scan's COMMIT failed; its connection is dropped")
                }
            }
            let _ = pieces.send(Ok(piece)).await;
            return;
        }
        if pieces.send(Ok(piece)).await.is_err() || stops {
            // Stopped mid-result: the connection goes with the task.
            return;
        }
    }
}

/// A table as described for reading, with how its chunks are bounded.
struct Described {
    /// [`Windows::generation`] when it was described.
    generation: u64,
    plan: Arc<TablePlan>,
    /// Chunks bounded by key arithmetic; `None`: each chunk's end is found
    /// by a query.
    even: Option<EvenSplit>,
}

/// The chunks of a table whose key is one integer column, dense enough
/// that a range of key values `step` wide holds about `chunkSize` rows: a
/// chunk's end is its start plus `step`, with no query to find it (a
/// query that finds the key `chunkSize` rows on costs the source half as
/// much as reading the rows). Keys are unique, so a range never holds
/// more than `step` rows, whatever the estimate said.
#[derive(Debug, Clone, PartialEq)]
pub struct EvenSplit {
    /// The smallest key when the table was described.
    pub min: i128,
    /// The largest key then: the chunk that reaches it reads to the end.
    pub max: i128,
    pub step: i128,
}

/// How much wider than `chunkSize` a chunk's key range may be: chunks
/// hold at most this many times `chunkSize` rows.
const EVEN_SPLIT_MAX_WIDTH: i128 = 4;

impl EvenSplit {
    /// Chunks of about `chunk_size` rows for keys from `min` to `max` and
    /// `rows` rows (an estimate), or `None` when keys are too sparse for
    /// ranges of at most [`EVEN_SPLIT_MAX_WIDTH`] × `chunk_size` values.
    pub fn new(min: i128, max: i128, rows: u64, chunk_size: usize) -> Option<EvenSplit> {
        let chunk = chunk_size.max(1) as i128;
        let span = max.checked_sub(min)?.checked_add(1)?;
        let rows = i128::from(rows.max(1));
        // The key values per row, rounded up, at least one.
        let per_row = ((span + rows - 1) / rows).max(1);
        (per_row <= EVEN_SPLIT_MAX_WIDTH).then(|| EvenSplit {
            min,
            max,
            step: chunk.saturating_mul(per_row),
        })
    }

    /// The end of the chunk after `from` (`None`: from the first key), as
    /// a raw key value; `None` when that chunk reaches `max` and is the
    /// last.
    pub fn up_to(&self, from: Option<&[Vec<u8>]>) -> Result<Option<Vec<Vec<u8>>>, String> {
        let start = match from {
            None => self.min - 1,
            Some([only]) => std::str::from_utf8(only)
                .ok()
                .and_then(|t| t.parse::<i128>().ok())
                .ok_or_else(|| {
                    format!(
                        "the chunk bound {:?} is not an integer",
                        String::from_utf8_lossy(only)
                    )
                })?,
            Some(other) => return Err(key_changed(other.len(), 1)),
        };
        let end = start.saturating_add(self.step);
        Ok((end < self.max).then(|| vec![end.to_string().into_bytes()]))
    }
}

/// The even split of `plan`'s table when its key is one integer column
/// dense enough (see [`EvenSplit`]); its smallest and largest keys come
/// from the key's index, the row count from the server's estimate.
async fn even_split(
    conn: &mut Conn,
    plan: &TablePlan,
    rows_estimated: u64,
    chunk_size: usize,
) -> Result<Option<EvenSplit>, SourceError> {
    if rows_estimated == 0 {
        return Ok(None);
    }
    Ok(integer_key_range(conn, plan)
        .await?
        .and_then(|(min, max)| EvenSplit::new(min, max, rows_estimated, chunk_size)))
}

/// Describes `schema.table` into `cached` unless a description is there
/// since the last statement that may have changed tables; returns that
/// [`Windows::generation`], `None` when the table is gone. Opens the lead
/// connection when there is none.
async fn describe(
    ctx: &SnapshotContext,
    conns: &mut Conns,
    cached: &mut Option<Described>,
    schema: &str,
    table: &str,
) -> Result<Option<u64>, SnapshotError> {
    let qualified = format!("{schema}.{table}");
    let lead = match conns.lead.as_mut() {
        Some(c) => c,
        None => conns.lead.insert(connect(ctx, &qualified).await?),
    };
    let generation = ctx.state.windows.generation();
    if cached.as_ref().is_none_or(|d| d.generation != generation) {
        let Some(fresh) = table_plan(lead, schema, table).await? else {
            return Ok(None);
        };
        let estimate = ctx.state.rows_estimated(schema, table);
        let even = even_split(lead, &fresh, estimate, ctx.settings.chunk_size.max(1))
            .await
            .map_err(|source| SnapshotError::Source {
                table: qualified,
                source,
            })?;
        *cached = Some(Described {
            generation,
            plan: Arc::new(fresh),
            even,
        });
    }
    Ok(Some(generation))
}

/// Finds where the chunk of `schema.table` after `from` ends, opens its
/// window and starts its read, in a consistent snapshot of its own, on a
/// reader connection.
async fn start_read(
    ctx: &SnapshotContext,
    conns: &mut Conns,
    cached: &mut Option<Described>,
    part: &PartKey,
    from: Option<Vec<Vec<u8>>>,
) -> Result<Started, SnapshotError> {
    let (schema, table) = (part.schema.as_str(), part.table.as_str());
    let qualified = part.qualified();
    let source_err = |source| SnapshotError::Source {
        table: qualified.clone(),
        source,
    };
    let table_err = |message| SnapshotError::Table {
        table: qualified.clone(),
        message,
    };
    let Some(generation) = describe(ctx, conns, cached, schema, table).await? else {
        return Ok(Started::Gone);
    };
    let Some(lead) = conns.lead.as_mut() else {
        return Ok(Started::Again);
    };
    let Some(described) = cached.as_ref() else {
        return Ok(Started::Again);
    };
    let plan = described.plan.clone();
    let chunked = !plan.key.is_empty();
    // The chunk's upper bound. None: the chunk is the last (or there is no
    // key to chunk by) and reads to the table's end.
    let up_to = match (&described.even, chunked) {
        (_, false) => None,
        (Some(even), true) => even.up_to(from.as_deref()).map_err(table_err)?,
        (None, true) => {
            // The key `chunkSize` rows on; none: fewer rows are left.
            let sql = chunk_bound_sql(&plan, from.as_deref(), ctx.settings.chunk_size.max(1))
                .map_err(table_err)?;
            let found = lead.query_bytes(&sql).await.map_err(source_err)?;
            let bound = found.row(0).map(|row| key_values(&row, 0..plan.key.len()));
            bound
        }
    };
    let sql = if chunked {
        chunk_range_sql(&plan, from.as_deref(), up_to.as_deref())
    } else {
        chunk_sql(&plan, None, None)
    }
    .map_err(table_err)?;
    let Some((reader, window)) = open_reader(ctx, conns, part, &plan, generation).await? else {
        return Ok(Started::Again);
    };
    let rows = ctx.settings.chunk_size.max(1);
    let task = tokio::spawn(read_chunk(ctx.reads.clone(), reader, qualified, sql, rows));
    Ok(Started::Read {
        read: ChunkRead {
            plan,
            window,
            from,
            up_to: up_to.clone(),
            task,
        },
        up_to,
    })
}

/// A reader connection and the window of what it is about to read, opened
/// now (before the read's transaction starts); `None` when a statement
/// that may change tables went by since the table was described at
/// `generation` (describe it again).
async fn open_reader(
    ctx: &SnapshotContext,
    conns: &mut Conns,
    part: &PartKey,
    plan: &TablePlan,
    generation: u64,
) -> Result<Option<(Conn, u64)>, SnapshotError> {
    let reader = match conns.readers.pop() {
        Some(c) => c,
        None => connect(ctx, &part.qualified()).await?,
    };
    let (schema, table) = (part.schema.as_str(), part.table.as_str());
    let key_columns: Vec<i32> = plan.key.iter().map(|&i| i as i32).collect();
    let window = ctx
        .state
        .windows
        .open(schema, table, part.part, key_columns);
    if ctx.state.windows.generation() != generation {
        ctx.state.windows.close(schema, table, window);
        conns.readers.push(reader);
        return Ok(None);
    }
    Ok(Some((reader, window)))
}

/// Reads a chunk's rows (about `expected_rows`) with `sql` in a consistent
/// snapshot of its own on `conn`, then the binlog's end; one of the `reads` permits held
/// meanwhile. The connection comes back unless it failed.
async fn read_chunk(
    reads: Arc<tokio::sync::Semaphore>,
    mut conn: Conn,
    qualified: String,
    sql: String,
    expected_rows: usize,
) -> (Option<Conn>, Result<Rows, SnapshotError>) {
    let Ok(_permit) = reads.acquire().await else {
        return (Some(conn), Err(SnapshotError::StreamGone));
    };
    let started = Instant::now();
    let read = async {
        conn.exec("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            .await?;
        let rows = conn.query_rows(&sql, expected_rows).await;
        let committed = conn.exec("COMMIT").await;
        let rows = rows?;
        committed?;
        let (file, pos, _) = sluice_source::replica::master_status(&mut conn).await?;
        Ok((rows, file, pos))
    };
    match read.await {
        Ok((rows, file, pos)) => (
            Some(conn),
            Ok(Rows {
                rows,
                file,
                pos,
                read_for: started.elapsed(),
            }),
        ),
        Err(source) => (
            None,
            Err(SnapshotError::Source {
                table: qualified,
                source,
            }),
        ),
    }
}

/// Converts a chunk read into its entry (on a blocking thread: it is the
/// CPU-heavy part) and hands it to the stream, which puts it into the
/// store at its delivery point.
async fn deliver(
    ctx: SnapshotContext,
    part: PartKey,
    chunk: ReadChunk,
) -> Result<Delivery, SnapshotError> {
    let (schema, table) = (part.schema.clone(), part.table.clone());
    let qualified = part.qualified();
    let ReadChunk {
        plan,
        window,
        rows,
        file,
        pos,
        from,
        up_to,
        last,
        keep_window,
        read_for,
    } = chunk;
    let count = rows.len();
    let started = Instant::now();
    let mut converted_for = Duration::ZERO;
    let delivered = if count == 0 {
        // Only a table's last chunk (or a scan's) can be empty.
        ctx.state.windows.close(&schema, &table, window);
        Delivered::Put {
            seq: None,
            kept: 0,
            dropped: 0,
        }
    } else {
        let gtid_on = ctx.gtid_on;
        let (at_file, entry_plan) = (file.clone(), plan.clone());
        let columns = ctx.columns.clone();
        let built = tokio::task::spawn_blocking(move || {
            let base = chunk_row_key_base(&entry_plan, &at_file, pos, from.as_deref());
            let keep = columns.and_then(|rules| rules.projection(&entry_plan.table()));
            if let Some(k) = &keep {
                warn_hidden_key(&entry_plan, k, from.is_none());
            }
            chunk_entry(
                gtid_on,
                &entry_plan,
                &rows,
                (&at_file, pos),
                &base,
                keep.as_ref(),
            )
        })
        .await;
        converted_for = started.elapsed();
        let (entry, bytes) = match built {
            Ok(Ok(built)) => built,
            Ok(Err(message)) => {
                ctx.state.windows.close(&schema, &table, window);
                return Err(SnapshotError::Table {
                    table: qualified,
                    message,
                });
            }
            Err(j) if j.is_panic() => std::panic::resume_unwind(j.into_panic()),
            Err(_) => return Err(SnapshotError::StreamGone),
        };
        let at = EntryPosition {
            journal_name: file.clone(),
            position: pos,
            ..Default::default()
        }
        .binlog_key();
        let (reply, answer) = oneshot::channel();
        ctx.chunks
            .send(ChunkDelivery {
                schema: schema.clone(),
                table: table.clone(),
                window,
                keep_window,
                entry,
                bytes,
                rows: count,
                at,
                reply,
            })
            .await
            .map_err(|_| SnapshotError::StreamGone)?;
        answer.await.map_err(|_| SnapshotError::StreamGone)?
    };
    match delivered {
        Delivered::Redo => {
            tracing::info!(destination = %ctx.name, table = %qualified, "initial snapshot: the table may have changed while a chunk was read; reading it again");
            Ok(Delivery::Redo)
        }
        Delivered::Put { seq, kept, dropped } => {
            tracing::debug!(destination = %ctx.name, table = %qualified, rows = count, kept, dropped, at = %format_args!("{file}:{pos}"), ?read_for, ?converted_for, delivered_for = ?started.elapsed().saturating_sub(converted_for), "initial snapshot: chunk delivered");
            let delivered_at = EntryPosition {
                journal_name: file,
                position: pos,
                ..Default::default()
            };
            // Persisted by the snapshot's loop once the consumers acked it.
            finish_chunk(&ctx, &part, up_to, last, kept as u64, seq, delivered_at);
            Ok(Delivery::Done)
        }
    }
}

/// Records a delivered chunk as pending.
fn finish_chunk(
    ctx: &SnapshotContext,
    part: &PartKey,
    up_to: Option<Vec<Vec<u8>>>,
    last: bool,
    rows: u64,
    seq: Option<u64>,
    delivered_at: EntryPosition,
) {
    let mut live = ctx.state.lock();
    let Live { progress, tables } = &mut *live;
    let tl = tables.entry(part.clone()).or_default();
    if up_to.is_some() {
        tl.next_from = up_to.clone();
    }
    tl.delivered_all = last;
    tl.pending_seqs.push(seq);
    if let Some(t) = progress
        .as_mut()
        .and_then(|p| p.part_mut(&part.schema, &part.table, part.part))
    {
        t.pending.push(PendingChunk {
            up_to: up_to.map(|k| k.iter().map(|v| to_hex(v)).collect()),
            last,
            rows,
            delivered_at,
        });
    }
}

/// A table gone since the plan: done with what was read (of this part).
fn finish_table(
    ctx: &SnapshotContext,
    part: &PartKey,
    up_to: Option<Vec<Vec<u8>>>,
    rows: u64,
    seq: Option<u64>,
) {
    finish_chunk(ctx, part, up_to, true, rows, seq, EntryPosition::default());
}

/// The table as `SHOW CREATE TABLE` describes it now, and how to read it;
/// `None` when it is gone.
pub async fn table_plan(
    conn: &mut Conn,
    schema: &str,
    table: &str,
) -> Result<Option<TablePlan>, SnapshotError> {
    let qualified = format!("{schema}.{table}");
    let sql = format!("SHOW CREATE TABLE {}.{}", quote(schema), quote(table));
    let rs = match conn.query(&sql).await {
        Ok(rs) => rs,
        Err(SourceError::Server { code, .. }) if code == NO_SUCH_TABLE => return Ok(None),
        Err(source) => {
            return Err(SnapshotError::Source {
                table: qualified,
                source,
            })
        }
    };
    let Some(create) = rs.rows.first().and_then(|r| r.get(1)).cloned().flatten() else {
        return Ok(None);
    };
    let table_err = |message: String| SnapshotError::Table {
        table: qualified.clone(),
        message,
    };
    let described = sluice_schema::metadata::table_from_create(schema, table, &create)
        .map_err(|e| table_err(e.to_string()))?;
    let map = sluice_schema::select_rows::table_map_for(&described, 0)
        .map_err(|e| table_err(e.to_string()))?;
    let columns = crate::schema_hook::column_infos(&described);
    let select = sluice_schema::select_rows::select_list(&described);
    let key_names = described.row_key();
    let mut key = Vec::new();
    for name in &key_names {
        match described.column_index(name) {
            Some(i) if orderable(&map.columns[i].column_type) => key.push(i),
            _ => {
                key.clear();
                break;
            }
        }
    }
    Ok(Some(TablePlan {
        schema: described,
        map: Arc::new(map),
        columns,
        select,
        key,
    }))
}

/// Says once per table read (at its first chunk) that the column filters
/// hide a column of the key its chunks are matched with the stream by:
/// neither side's entries show it, so a chunk during whose read the
/// stream changes the table is read again.
fn warn_hidden_key(plan: &TablePlan, keep: &ColumnProjection, first_chunk: bool) {
    if !first_chunk {
        return;
    }
    let hidden: Vec<&str> = plan
        .key
        .iter()
        .filter(|&&i| !keep.keeps(i))
        .filter_map(|&i| plan.columns.get(i).map(|c| c.name.as_str()))
        .collect();
    if !hidden.is_empty() {
        tracing::warn!(
            table = %format!("{}.{}", plan.schema.db, plan.schema.name),
            hidden = ?hidden,
            "the column filters hide key columns of this table: its snapshot chunks cannot be matched with the stream's changes, and a chunk is read again whenever the table changes while it is read; list the key in canal.instance.filter.field (or take it off the black list) to avoid this"
        );
    }
}

impl TablePlan {
    /// The table as change events describe it.
    pub fn table(&self) -> sluice_events::Table<'_> {
        sluice_events::Table {
            map: &self.map,
            info: Some(&self.columns),
            keep: None,
        }
    }
}

/// Key types whose SQL order and literal form Sluice can follow.
fn orderable(t: &ColumnType) -> bool {
    matches!(
        t,
        ColumnType::Tiny
            | ColumnType::Short
            | ColumnType::Int24
            | ColumnType::Long
            | ColumnType::LongLong
            | ColumnType::NewDecimal { .. }
            | ColumnType::Year
            | ColumnType::Date
            | ColumnType::Time2 { .. }
            | ColumnType::DateTime2 { .. }
            | ColumnType::Timestamp2 { .. }
            | ColumnType::VarChar { .. }
            | ColumnType::Char { .. }
    )
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// The SELECT of the chunk after `from` (raw key values), `limit` rows in
/// key order; the whole table when `limit` is `None`.
pub fn chunk_sql(
    plan: &TablePlan,
    from: Option<&[Vec<u8>]>,
    limit: Option<usize>,
) -> Result<String, String> {
    let mut sql = format!("SELECT {} FROM {}", plan.select, qualified_name(plan));
    let Some(limit) = limit else {
        return Ok(sql);
    };
    if let Some(from) = from {
        sql.push_str(&format!(" WHERE {}", key_beyond(plan, from)?));
    }
    sql.push_str(&format!(
        " ORDER BY {} LIMIT {limit}",
        key_names(plan).join(", ")
    ));
    Ok(sql)
}

/// The SELECT of the key of the `rows`-th row after `from` (raw key values;
/// from the first row when `None`) in key order: the upper bound of the
/// chunk that starts there. No row: fewer rows are left, the chunk is the
/// table's last.
pub fn chunk_bound_sql(
    plan: &TablePlan,
    from: Option<&[Vec<u8>]>,
    rows: usize,
) -> Result<String, String> {
    let names = key_names(plan);
    let mut sql = format!("SELECT {} FROM {}", names.join(", "), qualified_name(plan));
    if let Some(from) = from {
        sql.push_str(&format!(" WHERE {}", key_beyond(plan, from)?));
    }
    sql.push_str(&format!(
        " ORDER BY {} LIMIT 1 OFFSET {}",
        names.join(", "),
        rows.max(1) - 1
    ));
    Ok(sql)
}

/// The SELECT of the rows whose key is after `from` and up to `to` (both
/// raw key values; `None`: from the first row, to the last), in key order.
/// Chunks whose bounds follow one another cover the table whatever
/// changes it meanwhile.
pub fn chunk_range_sql(
    plan: &TablePlan,
    from: Option<&[Vec<u8>]>,
    to: Option<&[Vec<u8>]>,
) -> Result<String, String> {
    let mut sql = format!("SELECT {} FROM {}", plan.select, qualified_name(plan));
    let mut conditions = Vec::new();
    if let Some(from) = from {
        conditions.push(format!("({})", key_beyond(plan, from)?));
    }
    if let Some(to) = to {
        conditions.push(format!("({})", key_up_to(plan, to)?));
    }
    if !conditions.is_empty() {
        sql.push_str(&format!(" WHERE {}", conditions.join(" AND ")));
    }
    sql.push_str(&format!(" ORDER BY {}", key_names(plan).join(", ")));
    Ok(sql)
}

fn qualified_name(plan: &TablePlan) -> String {
    format!("{}.{}", quote(&plan.schema.db), quote(&plan.schema.name))
}

fn key_names(plan: &TablePlan) -> Vec<String> {
    plan.key
        .iter()
        .map(|&i| quote(&plan.schema.columns[i].name))
        .collect()
}

/// The condition that a row's key comes after `key` (raw key values) in
/// key order: `(k1 > v1) OR (k1 = v1 AND k2 > v2) OR ...`, a form every
/// server's range optimiser reads.
fn key_beyond(plan: &TablePlan, key: &[Vec<u8>]) -> Result<String, String> {
    key_compared(plan, key, ">", ">")
}

/// The condition that a row's key is `key` or comes before it:
/// `(k1 < v1) OR (k1 = v1 AND k2 <= v2)`.
fn key_up_to(plan: &TablePlan, key: &[Vec<u8>]) -> Result<String, String> {
    key_compared(plan, key, "<", "<=")
}

/// `(k1 op v1) OR (k1 = v1 AND k2 op v2) OR ...`, `last_op` on the last
/// key column.
fn key_compared(
    plan: &TablePlan,
    key: &[Vec<u8>],
    op: &str,
    last_op: &str,
) -> Result<String, String> {
    if key.len() != plan.key.len() {
        return Err(key_changed(key.len(), plan.key.len()));
    }
    let names = key_names(plan);
    let literals = plan
        .key
        .iter()
        .zip(key)
        .map(|(&i, v)| literal(plan, i, v))
        .collect::<Result<Vec<_>, _>>()?;
    let mut ors = Vec::new();
    for n in 0..names.len() {
        let mut ands: Vec<String> = (0..n)
            .map(|j| format!("{} = {}", names[j], literals[j]))
            .collect();
        let op = if n + 1 == names.len() { last_op } else { op };
        ands.push(format!("{} {op} {}", names[n], literals[n]));
        ors.push(format!("({})", ands.join(" AND ")));
    }
    Ok(ors.join(" OR "))
}

/// A persisted key of `values` values for a table whose key has `columns`.
fn key_changed(values: usize, columns: usize) -> String {
    format!(
        "the persisted key has {values} values, the table's key {columns} columns: its key changed; remove the snapshot progress to read the table again"
    )
}

/// A key value as an SQL literal that compares in the column's own order.
fn literal(plan: &TablePlan, index: usize, value: &[u8]) -> Result<String, String> {
    let column = &plan.schema.columns[index];
    let def = &plan.map.columns[index];
    let text = || {
        std::str::from_utf8(value)
            .ok()
            .filter(|s| {
                !s.is_empty()
                    && s.bytes()
                        .all(|b| b.is_ascii_digit() || b"-+.: eE".contains(&b))
            })
            .map(str::to_string)
            .ok_or_else(|| {
                format!(
                    "key column {} has a value that is not a number or time: {:?}",
                    column.name,
                    String::from_utf8_lossy(value)
                )
            })
    };
    Ok(match def.column_type {
        ColumnType::VarChar { .. } | ColumnType::Char { .. } => {
            let hex = to_hex(value);
            match (&column.charset, &column.collation) {
                (Some(cs), Some(coll)) if cs != "binary" => {
                    format!("CONVERT(X'{hex}' USING {cs}) COLLATE {coll}")
                }
                (Some(cs), None) if cs != "binary" => format!("CONVERT(X'{hex}' USING {cs})"),
                _ => format!("X'{hex}'"),
            }
        }
        ColumnType::Tiny
        | ColumnType::Short
        | ColumnType::Int24
        | ColumnType::Long
        | ColumnType::LongLong
        | ColumnType::NewDecimal { .. }
        | ColumnType::Year => text()?,
        _ => format!("'{}'", text()?),
    })
}

/// The chunk as one Canal INSERT entry at `file:pos`, marked as a snapshot
/// read, and the entry serialised; with only the columns of `keep` when
/// column filters name the table.
fn chunk_entry(
    gtid_on: bool,
    plan: &TablePlan,
    rows: &RawResultSet,
    (file, pos): (&str, u64),
    row_key_base: &str,
    keep: Option<&ColumnProjection>,
) -> Result<(Box<BuiltEntry>, EntryBytes), String> {
    // The rows' text goes into the entry as it is when it is Canal's for
    // every column (most tables); else each row is parsed into a binlog
    // row image and decoded as the stream decodes its rows.
    let select = SelectText::new(rows);
    let no_rows =
        RowsEvent::synthetic_write(plan.map.clone(), Vec::new()).map_err(|e| e.to_string())?;
    let txn = TransactionState::default();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as u32);
    let position = Position {
        file,
        offset: pos,
        next_offset: pos,
        server_id: 0,
        timestamp: now,
    };
    let marker = [Pair::new(SNAPSHOT_PROP, "true")];
    let text_change =
        RowsChange::new(position, &txn, &no_rows, Some(&plan.columns)).with_projection(keep);
    let from_text = CanalEncoder::serialised_snapshot_entry_on_this_thread(
        gtid_on,
        &text_change,
        Some(&select),
        &marker,
        row_key_base,
    )
    .map_err(|e| e.to_string())?;
    let (mut built, bytes) = match from_text {
        Some(built) => built,
        None => {
            let event = rows_event(plan, rows, rows.len())?;
            let change =
                RowsChange::new(position, &txn, &event, Some(&plan.columns)).with_projection(keep);
            CanalEncoder::serialised_snapshot_entry_on_this_thread(
                gtid_on,
                &change,
                None,
                &marker,
                row_key_base,
            )
            .map_err(|e| e.to_string())?
            .ok_or("a chunk read through a row image has no text to refuse")?
        }
    };
    built.ack_point = Some(built.position.clone());
    Ok((Box::new(built), bytes))
}

/// The base of the `sluiceRowKey` of a chunk's rows (`base#index`): its
/// read point, its table and where it starts (the key values it follows;
/// empty for the first chunk of a table), so no two chunks
/// delivered at one point share a key (several often are: one scan's, the
/// parts of a table, any chunk read while the binlog stood still). A chunk
/// read again after a restart starts where it did: where its read point
/// is the same, no write went by, so its rows are the same too.
pub fn chunk_row_key_base(
    plan: &TablePlan,
    file: &str,
    pos: u64,
    from: Option<&[Vec<u8>]>,
) -> String {
    // An integer as its text (short: the base is in every row), any
    // other value as `x` and its hex.
    let value = |v: &Vec<u8>| match std::str::from_utf8(v) {
        Ok(t) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit() || b == b'-') => {
            t.to_string()
        }
        _ => format!("x{}", to_hex(v)),
    };
    let from = from.map_or(String::new(), |key| {
        key.iter().map(value).collect::<Vec<_>>().join(",")
    });
    format!(
        "{file}:{pos}@{}.{}>{from}",
        plan.schema.db, plan.schema.name
    )
}

/// A chunk's result set as the rows of a Canal entry
/// ([`CanalEncoder::select_rows_entry_on_this_thread`]).
pub struct SelectText<'a> {
    rows: &'a RawResultSet,
    /// The values' bytes together, when they are UTF-8: checked once for
    /// the chunk, at its first value (a table the text way refuses is never
    /// checked); a value is then UTF-8 when it starts and ends on character
    /// boundaries.
    text: std::cell::OnceCell<Option<&'a str>>,
}

impl<'a> SelectText<'a> {
    pub fn new(rows: &'a RawResultSet) -> Self {
        SelectText {
            rows,
            text: std::cell::OnceCell::new(),
        }
    }
}

impl SelectRows for SelectText<'_> {
    fn row_count(&self) -> usize {
        self.rows.len()
    }

    fn column_count(&self) -> usize {
        self.rows.columns.len()
    }

    fn text(&self, row: usize, column: usize) -> Result<Option<&str>, NotUtf8> {
        match self.rows.span_of(row, column) {
            None => Ok(None),
            Some(span) => {
                let all = self
                    .text
                    .get_or_init(|| simdutf8::basic::from_utf8(self.rows.data()).ok());
                all.and_then(|t| t.get(span)).map(Some).ok_or(NotUtf8)
            }
        }
    }

    fn data_len(&self) -> usize {
        self.rows.data_len()
    }
}

/// The first `take` rows of a chunk read (`SELECT plan.select`) as one
/// WRITE_ROWS event of the table, as the binlog would hold them.
pub fn rows_event(
    plan: &TablePlan,
    rows: &RawResultSet,
    take: usize,
) -> Result<RowsEvent<'static>, String> {
    // Binary values take about the room of their text, plus each row's
    // null bitmap and a length byte per value.
    let width = plan.map.columns.len();
    let mut image = Vec::with_capacity(rows.data_len() + rows.len() * (width.div_ceil(8) + width));
    let mut values = Vec::with_capacity(width);
    for row in rows.rows().take(take) {
        values.clear();
        values.extend(row.iter());
        sluice_schema::select_rows::row_from_text(&plan.map, &plan.schema, &values, &mut image)
            .map_err(|e| e.to_string())?;
    }
    RowsEvent::synthetic_write(plan.map.clone(), image).map_err(|e| e.to_string())
}

/// Raw key values as persisted in a snapshot's progress (upper-case hex).
pub fn to_hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02X}");
    }
    s
}

/// The bytes of [`to_hex`]'s text; `None` when it is not hex.
pub fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_every_byte() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(from_hex(&to_hex(&bytes)), Some(bytes));
        assert_eq!(from_hex("ABC"), None);
        assert_eq!(from_hex("ZZ"), None);
    }

    fn key(v: i128) -> Vec<Vec<u8>> {
        vec![v.to_string().into_bytes()]
    }

    #[test]
    fn a_split_cuts_the_key_values_into_parts_of_about_as_many() {
        assert_eq!(split_bounds((1, 10), 2), [5]);
        assert_eq!(split_bounds((1, 11), 2), [5]);
        assert_eq!(split_bounds((1, 10), 3), [3, 6]);
        assert_eq!(split_bounds((-5, 4), 2), [-1]);
        let wide = (i128::from(i64::MIN), i128::from(u64::MAX));
        let bounds = split_bounds(wide, 4);
        assert_eq!(bounds.len(), 3);
        assert!(bounds.windows(2).all(|w| w[0] < w[1]) && bounds[0] > wide.0 && bounds[2] < wide.1);
        // Too few values, or one part: no split.
        assert!(split_bounds((7, 7), 2).is_empty());
        assert!(split_bounds((1, 2), 3).is_empty());
        assert!(split_bounds((1, 100), 1).is_empty());
    }

    #[test]
    fn an_even_split_steps_by_the_key_values_per_row() {
        // Dense keys: one value a row, ranges one chunk wide.
        let dense = EvenSplit::new(1, 10_000, 10_000, 1_000).expect("dense keys split evenly");
        assert_eq!(dense.step, 1_000);
        assert_eq!(dense.up_to(None), Ok(Some(key(1_000))));
        assert_eq!(dense.up_to(Some(&key(1_000))), Ok(Some(key(2_000))));
        // The chunk that reaches the largest key reads to the end.
        assert_eq!(dense.up_to(Some(&key(9_000))), Ok(None));
        assert_eq!(dense.up_to(Some(&key(8_999))), Ok(Some(key(9_999))));
        // A key in three: ranges three chunks wide hold a chunk's rows.
        let thirds = EvenSplit::new(-500, 2_497, 1_000, 100).expect("a key in three splits evenly");
        assert_eq!(thirds.step, 300);
        assert_eq!(thirds.up_to(None), Ok(Some(key(-201))));
        // Sparser than one in four: the bounds are found by queries.
        assert_eq!(EvenSplit::new(1, 50_000, 10_000, 1_000), None);
        // An estimate far below the rows there are reads as sparse keys;
        // one far above them only makes chunks smaller.
        assert!(EvenSplit::new(1, 10_000, 1, 1_000).is_none());
        assert_eq!(
            EvenSplit::new(1, 10_000, 1_000_000, 1_000).map(|e| e.step),
            Some(1_000)
        );
        // Unsigned BIGINT keys fit.
        let top = EvenSplit::new(0, u64::MAX as i128, u64::MAX, 8_192).expect("splits");
        assert_eq!(top.up_to(Some(&key(u64::MAX as i128 - 1))), Ok(None));
        // A bound that is not an integer, or a key of two columns, is refused.
        assert!(dense.up_to(Some(&[b"x".to_vec()])).is_err());
        assert!(dense.up_to(Some(&[b"1".to_vec(), b"2".to_vec()])).is_err());
    }
}
