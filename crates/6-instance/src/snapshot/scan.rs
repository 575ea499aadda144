//! Reading a table by one scan in key order (`sluice.instance.snapshot.reads
//! = scan`): one SELECT in a consistent snapshot, cut into chunks as it
//! arrives, kept short (age, keys changed ahead, slow consumers) and ended at
//! once when a DDL waits for the table's metadata lock.

use super::*;

/// A scan ends and starts again after the chunk that finds its window
/// holding this many keys the stream touched ahead of it: the memory a
/// busy table's window takes stays bounded.
pub(super) const SCAN_MAX_TOUCHED: usize = 100_000;

/// How long the source waits on a scan whose rows are not read (the
/// consumers are slow) before it drops the connection; the scan then
/// starts again after the last chunk delivered.
pub(super) const SCAN_WRITE_TIMEOUT_SECS: u64 = 3600;

/// A piece of a scan: one chunk's rows.
pub(super) struct ScanPiece {
    pub(super) rows: RawResultSet,
    /// The end of the binlog once the scan's snapshot was taken: the
    /// delivery point of every chunk of the scan.
    pub(super) file: String,
    pub(super) pos: u64,
    /// The table's rows ended with this piece.
    pub(super) ended: bool,
    /// The scan stops after this piece (it is older than
    /// `scanSeconds`, or see [`SCAN_MAX_TOUCHED`]); the next one starts
    /// after it.
    pub(super) stops: bool,
    pub(super) read_for: Duration,
    /// The connection back, when the scan ended cleanly.
    pub(super) conn: Option<Conn>,
    /// The room the chunk takes until it is in the store.
    pub(super) memory: HeldMemory,
}

/// Reads a keyed table from `next` on with scans: one SELECT in key order
/// in a consistent snapshot, cut into chunks of `chunkSize` rows as they
/// come. One window, opened before the snapshot, serves every chunk of
/// the scan: each is delivered at the stream's point (past the snapshot's)
/// without the rows the stream touched since the window opened. A chunk
/// is converted and delivered while the next one is read.
pub(super) async fn scan_chunks(
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
        let let_through = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watchdog = start_watchdog(ctx, conns, reader_id, &scan, &let_through, &qualified);
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
            let mut piece = match piece {
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
            if let Some(conn) = piece.conn.take() {
                conns.readers.push(conn);
            }
            let (ended, stops) = (piece.ended, piece.stops);
            let (chunk, up_to) = chunk_of(piece, &plan, window, &from);
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

/// Starts the watch for a DDL held back by the scan `scan` (source thread
/// `reader_id`), with the lead connection (idle while the scan runs), which
/// comes back when the watch is stopped.
fn start_watchdog(
    ctx: &SnapshotContext,
    conns: &mut Conns,
    reader_id: u32,
    scan: &ScanTask,
    let_through: &Arc<std::sync::atomic::AtomicBool>,
    qualified: &str,
) -> WatchdogTask {
    let (stop_watch, watch_stopped) = oneshot::channel();
    WatchdogTask(
        tokio::spawn(watch_locks(
            conns.lead.take(),
            reader_id,
            scan.0.abort_handle(),
            let_through.clone(),
            watch_stopped,
            // A scan stops by itself after `scanSeconds` unless it
            // waits on slow consumers: then it is ended here.
            Instant::now() + ctx.settings.scan_max_age + SCAN_OVERTIME,
            (ctx.name.clone(), qualified.to_string()),
        )),
        Some(stop_watch),
    )
}

/// The chunk a scan's `piece` holds, read after the key `from`, and the key
/// of its last row (where the next chunk starts).
fn chunk_of(
    piece: ScanPiece,
    plan: &Arc<TablePlan>,
    window: u64,
    from: &Option<Vec<Vec<u8>>>,
) -> (ReadChunk, Option<Vec<Vec<u8>>>) {
    let up_to = piece
        .rows
        .last()
        .map(|row| key_values(&row, plan.key.iter().copied()));
    let chunk = ReadChunk {
        plan: plan.clone(),
        window,
        rows: piece.rows,
        file: piece.file,
        pos: piece.pos,
        from: from.clone(),
        up_to: up_to.clone(),
        last: piece.ended,
        keep_window: !(piece.ended || piece.stops),
        read_for: piece.read_for,
        memory: piece.memory,
    };
    (chunk, up_to)
}

/// How long past `scanSeconds` a scan waiting on slow consumers keeps its
/// transaction open before it is ended.
pub(super) const SCAN_OVERTIME: Duration = Duration::from_secs(10);

/// How often a scan looks for a DDL waiting for its metadata lock.
pub(super) const LOCK_CHECK_EVERY: Duration = Duration::from_secs(1);

/// Whether a statement other than a read or a row change waits for a
/// table's metadata lock on the source: a DDL, which a scan's open
/// transaction holds back (and every statement on the table queued behind
/// it). Reads and row changes waiting are queued behind such a DDL, or
/// behind some other DDL's lock; not themselves a reason.
pub(super) async fn ddl_waits(lead: &mut Conn) -> Result<bool, SourceError> {
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
pub(super) async fn watch_locks(
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
pub(super) struct WatchdogTask(
    pub(super) tokio::task::JoinHandle<Option<Conn>>,
    Option<oneshot::Sender<()>>,
);

impl WatchdogTask {
    /// Stops the watch (after the check under way, if any); its
    /// connection back if it is sound.
    pub(super) async fn stop(mut self) -> Option<Conn> {
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
pub(super) struct ScanTask(pub(super) tokio::task::JoinHandle<()>);

impl Drop for ScanTask {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Reads a scan: `sql` in a consistent snapshot of its own on `conn`, the
/// binlog's end once the snapshot is taken, then the rows, `chunkSize` at
/// a time, each piece sent on `pieces` (an error ends them); one of the
/// `reads` permits held meanwhile.
pub(super) async fn scan(
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
        let (read, ended) = match conn
            .next_rows_within(&mut rows, chunk_size, ctx.memory.piece_bytes(), chunk_size)
            .await
        {
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
        // Waits while the chunks before take the room: the scan reads on
        // (and the source sends on) only once there is room for this one.
        let memory = ctx.memory.take(read.heap_bytes()).await;
        let mut piece = ScanPiece {
            memory,
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
