//! The initial snapshot (`snapshot.mode=initial`): every existing row of
//! the selected tables as an `op:"r"` record, placed among the stream's
//! changes at the binlog point it was read at, without locking the source.
//!
//! Each table is read in chunks of its key order (`WHERE key > last ORDER
//! BY key LIMIT n`), each chunk in a transaction of its own started `WITH
//! CONSISTENT SNAPSHOT`. Inside it MariaDB tells the exact binlog point of
//! that snapshot (`binlog_snapshot_file`, `binlog_snapshot_position`): the
//! chunk holds every transaction committed up to there and none after. The
//! stream starts at the end of the binlog before the first chunk is read,
//! and hands the chunk to the consumer between the transactions before its
//! point and those after. So each row arrives as it was at its chunk's
//! point, after every older change of it and before every newer one, and
//! every change after that point arrives exactly once: no row version goes
//! backwards, and no lock is taken. (Changes before a chunk's point arrive
//! too, before the row's `r` record, as in Debezium's incremental
//! snapshots; a consumer applying changes by key ends in the same state.)
//!
//! Why not the snapshot first and the stream after, from the first chunk's
//! point: that stream would have to drop each change older than the point
//! of the chunk its row was read in, which means keeping every key read
//! until the stream passes, and a restart loses them. Here the only state
//! is where the snapshot is, which every offset carries (see
//! [`crate::offset`]): a restart resumes the stream at the committed offset
//! and the snapshot after the last row committed.
//!
//! The stream waits at a chunk's point until the chunk is read. A chunk is
//! announced before its transaction starts, so the stream never passes a
//! point it does not know yet; should a transaction the stream already let
//! through be missing from the chunk (the binlog can show a transaction an
//! instant before the storage engine commits it), the chunk is read again.
//! The reader keeps up to [`AHEAD`] chunks waiting and reads the next, so
//! memory is that many chunks and one: while the stream lags behind the
//! binlog, each chunk waits for it to reach its point, and the chunks
//! waiting meanwhile are what the snapshot gains in that time. A table without a usable key (see `sluice-instance`'s
//! snapshot) is read as one chunk, its memory growing with the table, and
//! read whole again after a restart in its middle.
//!
//! The stream's changes of a table are held back until the snapshot hands
//! over its first chunk (its only one without a key): those changes are
//! older than that chunk's point, and the rows they touch reach the
//! consumer in the chunk, or (keyed tables) in a later one with a newer
//! version. For a table without a key they must be: the consumer could not
//! tell which of its rows a change is about before it has them.
//!
//! MySQL has no `binlog_snapshot_*`: the snapshot refuses to start there,
//! with an error naming the server.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use sluice_encode::debezium::{DebeziumEncoder, DebeziumRecord, SnapshotMarker};
use sluice_events::{ColumnRules, Position, RowsChange, TransactionState};
use sluice_instance::snapshot::{self as chunks, TablePlan};
use sluice_instance::stream::ChangeFilter;
use sluice_source::{Conn, ConnectOptions, RawResultSet, SourceError};
use tokio::sync::Notify;

use crate::config::TableSelection;
use crate::record::Unplaced;
use crate::snapshot_mark::SnapshotMark;
use crate::typed::{PendingTyped, TypedEncoder};

/// Most chunks read and waiting for the stream to reach their points.
pub(crate) const AHEAD: usize = 4;

/// A binlog place in the order of the binlog: the file's sequence number,
/// then the position.
pub(crate) fn binlog_key(file: &str, pos: u64) -> (u64, u64) {
    (sluice_binlog::file_sequence(file).unwrap_or(0), pos)
}

/// Encodes the rows a snapshot read into the engine's records.
pub(crate) trait ReadEncoder: Send + 'static {
    type Pending: Unplaced;
    fn encode_read(
        &mut self,
        rows: &RowsChange<'_>,
        marker: &dyn Fn(usize) -> SnapshotMarker,
        out: &mut Vec<Self::Pending>,
    ) -> Result<(), String>;
}

impl ReadEncoder for DebeziumEncoder {
    type Pending = DebeziumRecord;
    fn encode_read(
        &mut self,
        rows: &RowsChange<'_>,
        marker: &dyn Fn(usize) -> SnapshotMarker,
        out: &mut Vec<DebeziumRecord>,
    ) -> Result<(), String> {
        DebeziumEncoder::encode_read(self, rows, marker, out).map_err(|e| e.to_string())
    }
}

impl ReadEncoder for TypedEncoder {
    type Pending = PendingTyped;
    fn encode_read(
        &mut self,
        rows: &RowsChange<'_>,
        _marker: &dyn Fn(usize) -> SnapshotMarker,
        out: &mut Vec<PendingTyped>,
    ) -> Result<(), String> {
        TypedEncoder::encode_read(self, rows, out).map_err(|e| e.to_string())
    }
}

/// The tables whose changes the stream holds back: the snapshot has not
/// handed over their first chunk yet.
#[derive(Debug, Default)]
pub(crate) struct Held {
    tables: Mutex<HashSet<(String, String)>>,
}

impl Held {
    fn lock(&self) -> MutexGuard<'_, HashSet<(String, String)>> {
        self.tables.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether changes of `table` are held back.
    pub fn holds(&self, table: &(String, String)) -> bool {
        let tables = self.lock();
        !tables.is_empty() && tables.contains(table)
    }

    fn release(&self, table: &(String, String)) {
        self.lock().remove(table);
    }
}

/// The records of one chunk, due at its point.
pub(crate) struct Chunk<P> {
    pub point: (u64, u64),
    /// The table whose changes pass once the chunk is handed over.
    pub releases: Option<(String, String)>,
    /// The snapshot's end: every table's changes pass.
    pub finished: bool,
    /// Each record with the snapshot's place after it (`None`: the
    /// snapshot is done).
    pub records: Vec<(P, Option<SnapshotMark>)>,
    /// The snapshot's place after the chunk.
    pub after: Option<SnapshotMark>,
}

/// What the stream is to do about the snapshot at a place of the binlog.
pub(crate) enum Due<P> {
    /// Hand this chunk to the consumer first.
    Chunk(Chunk<P>),
    /// A chunk due here is still being read.
    Wait,
    /// Nothing due: go on.
    Nothing,
    /// The snapshot failed.
    Failed(String),
}

struct State<P> {
    /// The chunk being read: `Some(None)` from before its transaction
    /// starts until its point is known.
    announced: Option<Option<(u64, u64)>>,
    /// Chunks read, waiting for the stream to reach their points (in the
    /// order of their points).
    ready: VecDeque<Chunk<P>>,
    /// The end of the last transaction the stream let through.
    passed: (u64, u64),
    /// The reader has listed the tables (and holds their changes back).
    listed: bool,
    failed: Option<String>,
    closed: bool,
}

/// What the snapshot's reader and the stream share.
pub(crate) struct Feed<P> {
    state: Mutex<State<P>>,
    pub held: Arc<Held>,
    to_stream: Notify,
    to_reader: Notify,
}

impl<P> Feed<P> {
    /// A feed for a stream that starts at `start` (file, position).
    pub fn new(start: (u64, u64)) -> Self {
        Feed {
            state: Mutex::new(State {
                announced: None,
                ready: VecDeque::new(),
                passed: start,
                listed: false,
                failed: None,
                closed: false,
            }),
            held: Arc::default(),
            to_stream: Notify::new(),
            to_reader: Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<P>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wakes the stream when the feed changes (enable it before looking).
    pub fn changed(&self) -> tokio::sync::futures::Notified<'_> {
        self.to_stream.notified()
    }

    /// What is due before a transaction ending at `at` (`strict`), or with
    /// the stream read up to `at` (not strict: only a chunk ready, never a
    /// wait). Going on past `at` is recorded.
    pub fn take_due(&self, at: (u64, u64), strict: bool) -> Due<P> {
        let mut st = self.lock();
        if let Some(e) = &st.failed {
            return Due::Failed(e.clone());
        }
        let due = st
            .ready
            .front()
            .is_some_and(|c| c.point < at || (!strict && c.point == at));
        if due {
            if let Some(c) = st.ready.pop_front() {
                drop(st);
                if c.finished {
                    self.held.lock().clear();
                } else if let Some(t) = &c.releases {
                    self.held.release(t);
                }
                self.to_reader.notify_waiters();
                return Due::Chunk(c);
            }
        }
        if !strict {
            return Due::Nothing;
        }
        if !st.listed {
            return Due::Wait;
        }
        match st.announced {
            Some(None) => return Due::Wait,
            Some(Some(p)) if p < at => return Due::Wait,
            _ => {}
        }
        st.passed = st.passed.max(at);
        Due::Nothing
    }

    /// Whether a chunk (or a failure) is ready with the stream read up to
    /// `at`.
    pub fn has_ready(&self, at: (u64, u64)) -> bool {
        let st = self.lock();
        st.failed.is_some() || st.ready.front().is_some_and(|c| c.point <= at)
    }

    /// The tables are listed; `held` are those the snapshot will read
    /// from their start.
    fn listed(&self, held: impl IntoIterator<Item = (String, String)>) {
        self.held.lock().extend(held);
        self.lock().listed = true;
        self.to_stream.notify_waiters();
    }

    fn announce(&self) {
        self.lock().announced = Some(None);
    }

    /// No chunk is being read (its read failed): the stream goes on.
    fn unannounce(&self) {
        self.lock().announced = None;
        self.to_stream.notify_waiters();
    }

    /// The point of the chunk being read; false when the stream already
    /// let through a transaction the chunk misses (read it again).
    fn announce_point(&self, point: (u64, u64)) -> bool {
        let mut st = self.lock();
        if point < st.passed {
            return false;
        }
        st.announced = Some(Some(point));
        drop(st);
        self.to_stream.notify_waiters();
        true
    }

    /// Hands a chunk to the stream once fewer than [`AHEAD`] wait.
    async fn put(&self, chunk: Chunk<P>) -> Result<(), String> {
        let mut chunk = Some(chunk);
        loop {
            let notified = self.to_reader.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut st = self.lock();
                if st.closed {
                    return Err("the stream stopped".into());
                }
                if st.ready.len() < AHEAD {
                    st.ready.extend(chunk.take());
                    st.announced = None;
                    drop(st);
                    self.to_stream.notify_waiters();
                    return Ok(());
                }
            }
            notified.await;
        }
    }

    pub fn fail(&self, message: String) {
        self.lock().failed = Some(message);
        self.to_stream.notify_waiters();
    }

    /// The stream stopped: the reader stops too.
    pub fn close(&self) {
        self.lock().closed = true;
        self.to_reader.notify_waiters();
    }
}

/// What the reader needs.
pub(crate) struct Reader {
    pub connect: ConnectOptions,
    pub tables: TableSelection,
    /// `column.include.list` / `.exclude.list`: the columns each table's
    /// rows show (none: all).
    pub columns: Option<Arc<dyn ColumnRules>>,
    /// Rows per chunk.
    pub chunk_size: usize,
    /// Where an earlier run stopped; `None`: a fresh snapshot.
    pub resume: Option<SnapshotMark>,
}

impl Reader {
    /// Reads every selected table into `feed`; a failure goes to the feed
    /// (the stream stops with it).
    pub async fn run<E: ReadEncoder>(self, mut encoder: E, feed: Arc<Feed<E::Pending>>) {
        if let Err(e) = self.read_all(&mut encoder, &feed).await {
            tracing::error!(error = %e, "initial snapshot failed");
            feed.fail(e);
        }
    }

    async fn read_all<E: ReadEncoder>(
        &self,
        encoder: &mut E,
        feed: &Feed<E::Pending>,
    ) -> Result<(), String> {
        let source = |e: SourceError| self.source_error(e);
        let mut conn = Conn::connect(&self.connect).await.map_err(source)?;
        chunks::prepare_session(&mut conn).await.map_err(source)?;
        let tables = list_tables(&mut conn, &self.tables).await.map_err(source)?;
        let fresh = self.resume.is_none();
        let (first, mut from) = self.resume_at(&tables)?;
        feed.listed(
            tables
                .iter()
                .enumerate()
                .skip(first)
                .filter(|(i, _)| !(*i == first && from.is_some()))
                .map(|(_, t)| t.clone()),
        );
        tracing::info!(
            tables = tables.len() - first.min(tables.len()),
            resumed = !fresh,
            "initial snapshot: reading"
        );
        let mut progress = Progress {
            first_record: fresh,
            rows_read: 0,
        };
        for i in first..tables.len() {
            self.read_table(
                &mut conn,
                encoder,
                feed,
                &tables[i..],
                from.take(),
                &mut progress,
            )
            .await?;
        }
        // Whatever the last table held: the snapshot is done from here on.
        feed.put(Chunk {
            point: (0, 0),
            releases: None,
            finished: true,
            records: Vec::new(),
            after: None,
        })
        .await?;
        tracing::info!(
            rows = progress.rows_read,
            "initial snapshot: every table read"
        );
        Ok(())
    }

    /// A source error, naming the server.
    fn source_error(&self, e: SourceError) -> String {
        format!("{}:{}: {e}", self.connect.host, self.connect.port)
    }

    /// Where a resumed snapshot goes on, tables being read in (schema,
    /// table) order: the index of the table it was in (or of the next one,
    /// if gone), and the key of its last row delivered there.
    fn resume_at(&self, tables: &[(String, String)]) -> Result<(usize, Option<RawKey>), String> {
        Ok(match self.resume.as_ref().and_then(|m| m.table.as_ref()) {
            None => (0, None),
            Some(t) => {
                let at = tables
                    .iter()
                    .position(|(s, n)| format!("{s}.{n}") >= *t)
                    .unwrap_or(tables.len());
                let same = tables
                    .get(at)
                    .is_some_and(|(s, n)| format!("{s}.{n}") == *t);
                let key = match self.resume.as_ref().and_then(|m| m.last_key.as_deref()) {
                    Some(k) if same => Some(parse_key(k)?),
                    _ => None,
                };
                (at, key)
            }
        })
    }

    /// Reads the first of `tables` (those after it follow) into `feed`
    /// chunk by chunk, after the key `from` (`None`: from its start); a
    /// table dropped since listed is passed over.
    async fn read_table<E: ReadEncoder>(
        &self,
        conn: &mut Conn,
        encoder: &mut E,
        feed: &Feed<E::Pending>,
        tables: &[(String, String)],
        mut from: Option<Vec<Vec<u8>>>,
        progress: &mut Progress,
    ) -> Result<(), String> {
        let (schema, table) = &tables[0];
        let qualified = format!("{schema}.{table}");
        let failed = |m: String| format!("snapshot of {qualified}: {m}");
        let next = tables.get(1).map(|(s, t)| SnapshotMark {
            table: Some(format!("{s}.{t}")),
            last_key: None,
        });
        let Some(plan) = chunks::table_plan(conn, schema, table)
            .await
            .map_err(|e| e.to_string())?
        else {
            // Dropped since listed.
            feed.held.release(&tables[0]);
            return Ok(());
        };
        let keyed = !plan.key.is_empty();
        let limit = self.chunk_size.max(1);
        let mut first_of_table = from.is_none();
        loop {
            let (point, file, rows) = read_chunk(
                &self.connect,
                conn,
                feed,
                &plan,
                from.as_deref(),
                keyed,
                limit,
            )
            .await
            .map_err(&failed)?;
            // One row more than a chunk tells whether another follows.
            let more = keyed && rows.len() > limit;
            let take = if more { limit } else { rows.len() };
            let last_of_table = !more;
            let last_overall = last_of_table
                && rest_empty(conn, &tables[1..])
                    .await
                    .map_err(|e| self.source_error(e))?;
            let keys = chunk_keys(&plan, &rows, take, keyed);
            let pending = if take > 0 {
                let starts = progress.first_record;
                let marker = |j: usize| {
                    let last_row = j + 1 == take && last_of_table;
                    if last_row && last_overall {
                        SnapshotMarker::Last
                    } else if j == 0 && starts {
                        SnapshotMarker::First
                    } else if last_row {
                        SnapshotMarker::LastInDataCollection
                    } else if j == 0 && first_of_table {
                        SnapshotMarker::FirstInDataCollection
                    } else {
                        SnapshotMarker::True
                    }
                };
                let pending = self
                    .encode_chunk(encoder, &plan, &rows, take, (point, &file), &marker)
                    .map_err(&failed)?;
                progress.first_record = false;
                pending
            } else {
                Vec::new()
            };
            let mark_of = |j: usize| -> Option<SnapshotMark> {
                if j + 1 == take && last_of_table {
                    // The table is done: the next one, from its start.
                    return if last_overall { None } else { next.clone() };
                }
                Some(SnapshotMark {
                    table: Some(qualified.clone()),
                    last_key: keys.get(j).cloned().flatten().map(|k| key_text(&k)),
                })
            };
            let records: Vec<_> = pending
                .into_iter()
                .map(|p| {
                    let j = p.row();
                    (p, mark_of(j))
                })
                .collect();
            let after = match take {
                0 => next.clone(),
                n => mark_of(n - 1),
            };
            progress.rows_read += take as u64;
            feed.put(Chunk {
                point,
                releases: first_of_table.then(|| tables[0].clone()),
                finished: false,
                records,
                after,
            })
            .await?;
            if !more {
                break;
            }
            from = keys.get(take - 1).cloned().flatten();
            first_of_table = false;
        }
        Ok(())
    }

    /// Encodes the first `take` rows of a chunk read at `point` (its key,
    /// and its file) as snapshot reads, each with its `marker`.
    fn encode_chunk<E: ReadEncoder>(
        &self,
        encoder: &mut E,
        plan: &TablePlan,
        rows: &RawResultSet,
        take: usize,
        (point, file): ((u64, u64), &str),
        marker: &dyn Fn(usize) -> SnapshotMarker,
    ) -> Result<Vec<E::Pending>, String> {
        let event = chunks::rows_event(plan, rows, take)?;
        let txn = TransactionState::default();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as u32);
        let position = Position {
            file,
            offset: point.1,
            next_offset: point.1,
            server_id: 0,
            timestamp: now,
        };
        let keep = self
            .columns
            .as_ref()
            .and_then(|rules| rules.projection(&plan.table()));
        let change = RowsChange::new(position, &txn, &event, Some(&plan.columns))
            .with_projection(keep.as_ref());
        let mut pending = Vec::with_capacity(take);
        encoder.encode_read(&change, marker, &mut pending)?;
        Ok(pending)
    }
}

/// A row's key: its key columns' raw values.
type RawKey = Vec<Vec<u8>>;

/// How far a snapshot's reading is: whether its first record is still to
/// come, and the rows read.
struct Progress {
    first_record: bool,
    rows_read: u64,
}

/// The key of each of a chunk's first `take` rows (`None` each when the
/// table has no key).
fn chunk_keys(
    plan: &TablePlan,
    rows: &RawResultSet,
    take: usize,
    keyed: bool,
) -> Vec<Option<Vec<Vec<u8>>>> {
    (0..take)
        .map(|j| {
            keyed.then(|| {
                let row = rows.row(j);
                plan.key
                    .iter()
                    .map(|&k| row.and_then(|r| r.value(k)).unwrap_or_default().to_vec())
                    .collect()
            })
        })
        .collect()
}

/// The base tables the selection keeps, in (schema, table) order.
async fn list_tables(
    conn: &mut Conn,
    selection: &TableSelection,
) -> Result<Vec<(String, String)>, SourceError> {
    let rs = conn
        .query(
            "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES \
             WHERE TABLE_TYPE = 'BASE TABLE' \
             AND TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') \
             ORDER BY TABLE_SCHEMA, TABLE_NAME",
        )
        .await?;
    let mut tables: Vec<(String, String)> = rs
        .rows
        .iter()
        .filter_map(|r| Some((r.first()?.clone()?, r.get(1)?.clone()?)))
        .filter(|(s, t)| selection.table(s, t))
        .collect();
    // The order the resume compares in, whatever the server's collation.
    tables.sort_by(|a, b| format!("{}.{}", a.0, a.1).cmp(&format!("{}.{}", b.0, b.1)));
    Ok(tables)
}

/// Whether none of `tables` has a row now (for the `last` marker).
async fn rest_empty(conn: &mut Conn, tables: &[(String, String)]) -> Result<bool, SourceError> {
    for (s, t) in tables {
        let sql = format!("SELECT 1 FROM {}.{} LIMIT 1", quote(s), quote(t));
        match conn.query(&sql).await {
            Ok(rs) if !rs.rows.is_empty() => return Ok(false),
            Ok(_) => {}
            // Gone since listed.
            Err(SourceError::Server { code: 1146, .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// Reads the chunk after `from` (one row more than `limit`, or the whole
/// table without a key) in a consistent snapshot of its own; returns its
/// point, as a key and its file, and the rows. A lost connection is made
/// again and the chunk read again, for a while.
async fn read_chunk<P>(
    connect: &ConnectOptions,
    conn: &mut Conn,
    feed: &Feed<P>,
    plan: &TablePlan,
    from: Option<&[Vec<u8>]>,
    keyed: bool,
    limit: usize,
) -> Result<((u64, u64), String, RawResultSet), String> {
    let sql = chunks::chunk_sql(plan, from, keyed.then_some(limit + 1))?;
    let mut stale = 0u32;
    let mut failures = 0u32;
    loop {
        // Announced first: the stream lets no transaction through until
        // the chunk's point is known.
        feed.announce();
        let read = async {
            conn.exec("START TRANSACTION WITH CONSISTENT SNAPSHOT")
                .await?;
            let point = snapshot_point(conn).await;
            let point = match point {
                Ok(p) => p,
                Err(e) => {
                    let _ = conn.exec("ROLLBACK").await;
                    return Err(e);
                }
            };
            if !feed.announce_point(binlog_key(&point.0, point.1)) {
                conn.exec("ROLLBACK").await?;
                return Ok(None);
            }
            let rows = conn.query_bytes(&sql).await;
            let committed = conn.exec("COMMIT").await;
            let rows = rows?;
            committed?;
            Ok(Some((point, rows)))
        };
        match read.await {
            Ok(Some(((file, pos), rows))) => {
                return Ok((binlog_key(&file, pos), file, rows));
            }
            Ok(None) => {
                // A transaction in the binlog not yet committed by the
                // storage engine: it will be in a moment.
                stale += 1;
                if stale > 500 {
                    return Err(
                        "the server's snapshot point stays behind the binlog the stream read"
                            .into(),
                    );
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            Err(e) if e.is_transient() && failures < RETRIES => {
                feed.unannounce();
                failures += 1;
                let pause = Duration::from_secs(u64::from(failures.min(10)));
                tracing::warn!(error = %e, retry_in = ?pause, "initial snapshot: chunk failed; reading it again");
                tokio::time::sleep(pause).await;
                match reconnect(connect).await {
                    Ok(c) => *conn = c,
                    Err(e) if e.is_transient() => {}
                    Err(e) => return Err(e.to_string()),
                }
            }
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// How often a chunk whose connection was lost is tried again (about two
/// minutes of pauses).
const RETRIES: u32 = 20;

async fn reconnect(connect: &ConnectOptions) -> Result<Conn, SourceError> {
    let mut conn = Conn::connect(connect).await?;
    chunks::prepare_session(&mut conn).await?;
    Ok(conn)
}

/// The binlog point of the transaction's consistent snapshot (MariaDB's
/// `binlog_snapshot_file` and `binlog_snapshot_position`).
async fn snapshot_point(conn: &mut Conn) -> Result<(String, u64), SourceError> {
    let rs = conn.query("SHOW STATUS LIKE 'binlog_snapshot_%'").await?;
    let value = |name: &str| {
        rs.rows.iter().find_map(|r| match (r.first(), r.get(1)) {
            (Some(Some(n)), Some(Some(v))) if n.eq_ignore_ascii_case(name) => Some(v.clone()),
            _ => None,
        })
    };
    let file = value("binlog_snapshot_file").filter(|f| !f.is_empty());
    let pos = value("binlog_snapshot_position").and_then(|p| p.parse().ok());
    match (file, pos) {
        (Some(f), Some(p)) => Ok((f, p)),
        _ => Err(SourceError::Misconfigured {
            addr: conn.addr().to_string(),
            setting: "binlog_snapshot_file",
            actual: "absent (a MySQL server, or the binary log off)".into(),
            expected: "a MariaDB server with the binary log on".into(),
            fix: "snapshot.mode=initial reads a lock-free snapshot only from MariaDB, which tells the binlog point of a consistent snapshot; on MySQL use snapshot.mode=no_data or never".into(),
        }),
    }
}

/// A key's raw values as the offset carries them.
fn key_text(key: &[Vec<u8>]) -> String {
    key.iter()
        .map(|v| chunks::to_hex(v))
        .collect::<Vec<_>>()
        .join(",")
}

fn parse_key(text: &str) -> Result<Vec<Vec<u8>>, String> {
    text.split(',')
        .map(|h| {
            chunks::from_hex(h).ok_or_else(|| {
                format!("snapshot_last_key {text:?} of the offset is not hex values")
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_through_the_offset_text() {
        let key = vec![b"12".to_vec(), Vec::new(), b"a,b".to_vec()];
        assert_eq!(parse_key(&key_text(&key)).unwrap(), key);
        assert!(parse_key("zz").is_err());
    }

    #[test]
    fn binlog_places_order_by_file_then_position() {
        assert!(binlog_key("mysql-bin.000002", 4) > binlog_key("mysql-bin.000001", 9000));
        assert!(binlog_key("mysql-bin.000002", 400) > binlog_key("mysql-bin.000002", 399));
    }
}
