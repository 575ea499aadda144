//! Reading tables in chunks by key ranges (`sluice.instance.snapshot.reads =
//! ranges`), several at once, each chunk in a consistent snapshot of its own;
//! and the table workers that both ways of reading share.

use super::*;

/// Reads these tables, `parallelism` at a time, confirming and persisting
/// the progress as the consumers ack.
pub(super) async fn read_tables(
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

/// The connections a table worker reads with: `lead` describes tables and
/// finds where chunks end, each reader reads one chunk at a time.
#[derive(Default)]
pub(super) struct Conns {
    pub(super) lead: Option<Conn>,
    pub(super) readers: Vec<Conn>,
}

/// Reads one table to its end, chunk after chunk.
pub(super) async fn read_table(
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
pub(super) struct ReadChunk {
    pub(super) plan: Arc<TablePlan>,
    /// Its window in [`Windows`].
    pub(super) window: u64,
    pub(super) rows: RawResultSet,
    /// The end of the binlog once it was read: its delivery point.
    pub(super) file: String,
    pub(super) pos: u64,
    /// Where it started and ended, as raw key values.
    pub(super) from: Option<Vec<Vec<u8>>>,
    pub(super) up_to: Option<Vec<Vec<u8>>>,
    pub(super) last: bool,
    /// Later chunks of the same scan share its window.
    pub(super) keep_window: bool,
    /// How long the read took (for the debug log).
    pub(super) read_for: Duration,
    /// The room it takes until it is in the store.
    pub(super) memory: HeldMemory,
}

/// What the start of a chunk's read gave.
pub(super) enum Started {
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
pub(super) struct ChunkRead {
    pub(super) plan: Arc<TablePlan>,
    pub(super) window: u64,
    pub(super) from: Option<Vec<Vec<u8>>>,
    /// Its end; `None`: it is the table's last and reads to the end.
    pub(super) up_to: Option<Vec<Vec<u8>>>,
    pub(super) task: tokio::task::JoinHandle<(Option<Conn>, Result<Rows, SnapshotError>)>,
}

/// What a chunk's read gave: its rows, and the binlog's end once they
/// were read (the chunk's delivery point).
pub(super) struct Rows {
    pub(super) rows: RawResultSet,
    pub(super) file: String,
    pub(super) pos: u64,
    pub(super) read_for: Duration,
}

impl ChunkRead {
    /// The chunk with what its read gave. The last chunk ends at its last
    /// row.
    pub(super) fn into_chunk(self, read: Rows) -> ReadChunk {
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
            memory: HeldMemory::default(),
        }
    }
}

/// The raw values of these columns of `row`: a key.
pub(super) fn key_values(
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
pub(super) struct ReadsUnderWay(pub(super) std::collections::VecDeque<ChunkRead>);

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
    pub(super) async fn drain(
        &mut self,
        ctx: &SnapshotContext,
        conns: &mut Conns,
        schema: &str,
        table: &str,
    ) {
        while let Some(read) = self.0.pop_front() {
            ctx.state.windows.close(schema, table, read.window);
            if let Ok((Some(conn), _)) = read.task.await {
                conns.readers.push(conn);
            }
        }
    }
}

/// How the delivery of a chunk went.
pub(super) enum Delivery {
    Done,
    Redo,
}

pub(super) type DeliveryTask = tokio::task::JoinHandle<Result<Delivery, SnapshotError>>;

pub(super) async fn joined<T>(
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
pub(super) async fn read_chunks(
    ctx: &SnapshotContext,
    conns: &mut Conns,
    cached: &mut Option<Described>,
    part: &PartKey,
    read_any: &mut bool,
) -> Result<(), SnapshotError> {
    let (schema, table) = (part.schema.as_str(), part.table.as_str());
    // Where the next chunk to start begins, and the part's end.
    let (next, end) = {
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
    read_ranges(ctx, conns, cached, part, read_any, next).await
}

/// Reads the table's chunks by key ranges from `next` on (`reads =
/// ranges`, or a table without a key): see [`read_chunks`].
async fn read_ranges(
    ctx: &SnapshotContext,
    conns: &mut Conns,
    cached: &mut Option<Described>,
    part: &PartKey,
    read_any: &mut bool,
    mut next: Option<Vec<Vec<u8>>>,
) -> Result<(), SnapshotError> {
    let (schema, table) = (part.schema.as_str(), part.table.as_str());
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
        let mut chunk = match rows {
            Ok(rows) => read.into_chunk(rows),
            Err(e) => {
                ctx.state.windows.close(schema, table, window);
                return Err(e);
            }
        };
        // In order of delivery: the chunks read ahead are not counted (at
        // most `parallelism` of them), so none of them can hold the room
        // the next one to deliver waits for.
        chunk.memory = ctx.memory.take(chunk.rows.heap_bytes()).await;
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

/// A table as described for reading, with how its chunks are bounded.
pub(super) struct Described {
    /// [`Windows::generation`] when it was described.
    pub(super) generation: u64,
    pub(super) plan: Arc<TablePlan>,
    /// Chunks bounded by key arithmetic; `None`: each chunk's end is found
    /// by a query.
    pub(super) even: Option<EvenSplit>,
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
pub(super) const EVEN_SPLIT_MAX_WIDTH: i128 = 4;

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
pub(super) async fn even_split(
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
pub(super) async fn describe(
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
pub(super) async fn start_read(
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
pub(super) async fn open_reader(
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
pub(super) async fn read_chunk(
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
