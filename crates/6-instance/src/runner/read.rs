//! The store's side of the destination's stream: the runner reads with the
//! change stream's one loop ([`ChangeStream::drive`](crate::stream::ChangeStream)),
//! which receives, follows the schema, builds and filters; this encoding
//! turns what passes into work (entries, rows events to build on the
//! encoding pool, markers) and hands it to the store sink in binlog order,
//! under back-pressure. Between transactions it places the snapshot chunks
//! whose point the stream has reached. Never puts into the store itself.

use std::future::Future;
use std::sync::atomic::AtomicU32;

use super::*;

use crate::metrics::InstanceMetrics;
use crate::stream::{ChangeStream, Encoding, ReadUpTo, SchemaStep, StreamError};

/// The reader's way to the store sink: the channel, the bytes in flight it
/// may hold, the build pool, and what ends the run (a stop, the sink's end).
pub(super) struct Handoff<'a> {
    /// Closed (taken) at the end of the binlog, so the sink ends too.
    pub(super) tx: Option<mpsc::Sender<Pending>>,
    pub(super) in_flight: Arc<Semaphore>,
    pub(super) stop: watch::Receiver<bool>,
    pub(super) emitting: &'a mut JoinHandle<Result<(), RunnerError>>,
    pub(super) pool: &'a EncodePool,
}

/// Why a read ended early.
pub(super) enum ReadEnd {
    /// A stop was asked for: not an error.
    Stop,
    Failed(RunnerError),
    /// The stream's own failure (source, schema).
    Stream(StreamError),
}

impl From<StreamError> for ReadEnd {
    fn from(e: StreamError) -> Self {
        ReadEnd::Stream(e)
    }
}

impl From<RunnerError> for ReadEnd {
    fn from(e: RunnerError) -> Self {
        ReadEnd::Failed(e)
    }
}

/// The filter the destination's stream reads with: Canal's filters over the
/// union of its clients' table filters, in its newest version (taken
/// before each event, see [`ChangeFilter::refresh`]).
struct StreamReading {
    filters: CanalFilters,
    stream: StreamFilter,
    destination: Arc<InstanceDestination>,
    /// The version in force, for the entries the store side hands on.
    version: Arc<AtomicU32>,
}

impl crate::filters::ChangeFilter for StreamReading {
    fn table(&self, schema: &str, table: &str) -> bool {
        self.filters
            .reading(&self.stream.filter)
            .table(schema, table)
    }
    fn rows(&self, schema: &str, table: &str, op: Op) -> bool {
        self.filters
            .reading(&self.stream.filter)
            .rows(schema, table, op)
    }
    fn statement(&self, statement: &sluice_events::Statement<'_>) -> bool {
        self.filters
            .reading(&self.stream.filter)
            .statement(statement)
    }
    fn refresh(&mut self) {
        if let Some(changed) = self
            .destination
            .stream_filter_if_changed(self.stream.version)
        {
            self.version.store(changed.version, Ordering::Relaxed);
            self.stream = changed;
        }
    }
}

/// The store's side of one run of the stream, with where it stands
/// between two events.
struct StoreSide<'r> {
    runner: &'r mut InstanceRunner,
    metrics: Option<Arc<InstanceMetrics>>,
    /// The stream filter version the event being read was filtered with.
    version: Arc<AtomicU32>,
    /// The initial snapshot beside the stream: its chunks come back here to
    /// be delivered once the stream has passed their point.
    snapshot: Option<SnapshotTask>,
    snapshot_connect: sluice_source::ConnectOptions,
    /// Where the stream is between transactions.
    boundary: EntryPosition,
    waiting_chunks: Vec<ChunkDelivery>,
    last_server_id: u32,
    in_transaction: bool,
    /// The GTID state after the last transaction read (the snapshot chunks
    /// placed there carry it).
    gtid_state: Option<GtidState>,
    /// Events of the current transaction already handled.
    events_in_txn: usize,
    /// Events to drop after a transaction replay.
    skip_events: usize,
    /// The event being read is the replay of one handled before a
    /// reconnect: nothing of it goes out again.
    replayed: bool,
    /// The source moved to another server: the store sink learns it before
    /// the first entry read there.
    source_marker: bool,
}

/// What the store side found while the source waits.
enum Ready {
    /// A snapshot chunk (none: the snapshot ended).
    Chunk(Option<ChunkDelivery>),
    /// Tables were asked for on demand.
    SnapshotAsked,
    Stop,
    /// The store sink ended (it only ends by itself on an error).
    SinkEnded(Result<Result<(), RunnerError>, tokio::task::JoinError>),
}

impl InstanceRunner {
    /// Reads the source with the change stream's loop and hands the entries
    /// of each event, in order, to the store sink through `tx`.
    pub(super) async fn read(
        &mut self,
        source: SourceConfig,
        stop: watch::Receiver<bool>,
        tx: mpsc::Sender<Pending>,
        emitting: &mut JoinHandle<Result<(), RunnerError>>,
        pool: &EncodePool,
    ) -> Result<(), RunnerError> {
        let mut lane = Handoff {
            tx: Some(tx),
            in_flight: Arc::new(Semaphore::new(IN_FLIGHT_KB)),
            stop,
            emitting,
            pool,
        };
        let snapshot_connect = source.connect.clone();
        let stream_filter = self.destination.stream_filter();
        let version = Arc::new(AtomicU32::new(stream_filter.version));
        let reading = StreamReading {
            filters: self.filters.clone(),
            stream: stream_filter,
            destination: self.destination.clone(),
            version: version.clone(),
        };
        // The schema goes with this run's stream (a runner runs once).
        let schema = std::mem::replace(&mut self.schema, Box::new(BinlogOnly));
        let stream = ChangeStream::new(source, schema)
            .with_canal_table_error(self.filters.table_error)
            .with_columns(self.columns.clone())
            .with_filter(reading);
        let mut side = StoreSide {
            metrics: self.destination.metrics().cloned(),
            runner: self,
            version,
            snapshot: None,
            snapshot_connect,
            boundary: EntryPosition::default(),
            waiting_chunks: Vec::new(),
            last_server_id: 0,
            in_transaction: false,
            gtid_state: None,
            events_in_txn: 0,
            skip_events: 0,
            replayed: false,
            source_marker: false,
        };
        let ended = stream.drive(&mut side, &mut lane).await;
        drop(side);
        match ended {
            Ok(_) | Err(ReadEnd::Stop) => Ok(()),
            Err(ReadEnd::Failed(e)) => Err(e),
            Err(ReadEnd::Stream(e)) => Err(self.stream_error(e)),
        }
    }

    /// A failure of the stream as the runner reports it.
    fn stream_error(&self, e: StreamError) -> RunnerError {
        match e {
            StreamError::Source(e) => self.source_error(e),
            StreamError::Schema { file, pos, message } => RunnerError::Schema {
                destination: self.name.clone(),
                at: format!("{file}:{pos}"),
                message,
            },
            other => RunnerError::Stream {
                destination: self.name.clone(),
                source: Box::new(other),
            },
        }
    }
}

impl StoreSide<'_> {
    /// Whether a stop was asked for; the store sink's end is found where
    /// work is handed to it.
    fn stopping(lane: &Handoff<'_>) -> bool {
        *lane.stop.borrow()
    }

    /// Why the store sink ended: a stop, or its error.
    fn sink_ended(
        &self,
        lane: &Handoff<'_>,
        ended: Result<Result<(), RunnerError>, tokio::task::JoinError>,
    ) -> ReadEnd {
        if Self::stopping(lane) {
            return ReadEnd::Stop;
        }
        ReadEnd::Failed(self.runner.emitter_ended(ended))
    }

    /// Counts the stream's reconnects and failovers for the metrics.
    fn count_reconnects(&mut self, stream: &BinlogStream) {
        let stats = &mut self.runner.stats;
        let metrics = self.metrics.as_deref();
        let reconnects = stream.reconnects();
        if reconnects > stats.reconnects {
            if let Some(m) = metrics {
                m.reconnects.increment(reconnects - stats.reconnects);
            }
        }
        stats.reconnects = reconnects;
        let failovers = stream.failovers();
        if failovers > stats.failovers {
            if let Some(m) = metrics {
                m.failovers.increment(failovers - stats.failovers);
            }
            stats.failovers = failovers;
        }
    }

    /// Hands the source marker on before anything read on the new server.
    async fn send_source_marker(&mut self, lane: &mut Handoff<'_>) -> Result<(), ReadEnd> {
        if std::mem::take(&mut self.source_marker) {
            self.forward(Work::SourceChanged, lane).await?;
        }
        Ok(())
    }

    /// Hands one piece of work to the store sink, in order, once its share
    /// of the bytes in flight is free; a rows event goes to the build pool
    /// first (or is built here, with `canal.instance.parser.parallel =
    /// false`).
    async fn forward(&mut self, w: Work, lane: &mut Handoff<'_>) -> Result<(), ReadEnd> {
        let version = match &w {
            Work::Snapshot(_) => sluice_store::NOT_STREAM_FILTERED,
            _ => self.version.load(Ordering::Relaxed),
        };
        let Some(tx) = lane.tx.as_ref() else {
            return Err(ReadEnd::Stop);
        };
        let kb = w.weight().div_ceil(1024).clamp(1, IN_FLIGHT_KB) as u32;
        // Timed only when it will wait for the store sink.
        let blocked = (self.metrics.is_some()
            && (tx.capacity() == 0 || lane.in_flight.available_permits() < kb as usize))
            .then(Instant::now);
        let held = tokio::select! {
            held = lane.in_flight.clone().acquire_many_owned(kb) => match held {
                Ok(h) => h,
                Err(_) => return Err(ReadEnd::Stop),
            },
            _ = lane.stop.changed() => return Err(ReadEnd::Stop),
            ended = &mut *lane.emitting => return Err(self.sink_ended(lane, ended)),
        };
        let entry = match w {
            Work::Ready(e) => PendingEntry::Ready(e),
            Work::Rows(r) if self.runner.parallel => {
                PendingEntry::Building(lane.pool.submit(move || r.build()))
            }
            Work::Rows(r) => PendingEntry::Built(Box::new(r.build())),
            Work::SourceChanged => PendingEntry::SourceChanged,
            Work::Snapshot(c) => PendingEntry::Snapshot(c),
        };
        let pending = Pending {
            entry,
            version,
            _held: held,
        };
        tokio::select! {
            sent = tx.send(pending) => {
                if sent.is_err() {
                    if Self::stopping(lane) {
                        return Err(ReadEnd::Stop);
                    }
                    let ended = (&mut *lane.emitting).await;
                    return Err(self.sink_ended(lane, ended));
                }
            }
            _ = lane.stop.changed() => return Err(ReadEnd::Stop),
        }
        if let (Some(m), Some(since)) = (&self.metrics, blocked) {
            m.blocked(since.elapsed());
        }
        Ok(())
    }

    /// Hands the chunks whose point the stream reached to the store sink, in
    /// order, with the stream's GTID state there.
    async fn send_ready_chunks(&mut self, lane: &mut Handoff<'_>) -> Result<(), ReadEnd> {
        let ready = take_ready(&mut self.waiting_chunks, self.boundary.binlog_key());
        for mut chunk in ready {
            let gtid = self
                .gtid_state
                .as_ref()
                .map(|g| g.to_string())
                .unwrap_or_default();
            // The chunk sits in the stream where the stream is: a chunk
            // read before (a scan's, or one that waited for the stream)
            // must not take a consumer's cursor back to where it was read.
            let behind = chunk.at < self.boundary.binlog_key();
            for p in
                std::iter::once(&mut chunk.entry.position).chain(chunk.entry.ack_point.as_mut())
            {
                if behind {
                    p.journal_name.clone_from(&self.boundary.journal_name);
                    p.position = self.boundary.position;
                }
                p.gtid.clone_from(&gtid);
                p.server_id = i64::from(self.last_server_id);
            }
            self.forward(Work::Snapshot(Box::new(chunk)), lane).await?;
        }
        Ok(())
    }

    /// While the stream is busy: the chunks the snapshot sent meanwhile,
    /// and, at a transaction's end, a snapshot asked for on demand.
    fn look_at_snapshot(&mut self, transaction_end: bool) {
        match &mut self.snapshot {
            Some(task) => loop {
                match task.rx.try_recv() {
                    Ok(chunk) => self.waiting_chunks.push(chunk),
                    Err(mpsc::error::TryRecvError::Empty) => break,
                    Err(mpsc::error::TryRecvError::Disconnected) => {
                        self.snapshot = None;
                        break;
                    }
                }
            },
            None if transaction_end => {
                let Some(plan) = &self.runner.snapshot else {
                    return;
                };
                // Takes a request's notification without waiting for one.
                let asked = std::pin::pin!(plan.state.wake.notified());
                let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
                if asked.poll(&mut cx).is_ready() {
                    self.snapshot = self.runner.start_snapshot(self.snapshot_connect.clone());
                }
            }
            None => {}
        }
    }
}

impl<'a> Encoding<Handoff<'a>> for StoreSide<'_> {
    type Ready = Ready;
    type Error = ReadEnd;

    async fn stop_requested(&mut self, lane: &mut Handoff<'a>) -> ReadEnd {
        // A dropped sender ends the run too.
        let _ = lane.stop.wait_for(|stop| *stop).await;
        ReadEnd::Stop
    }

    /// After connecting: the start is recorded (and persisted when asked),
    /// the change builder learns the GTID state it starts from, and the
    /// snapshot starts beside the stream.
    async fn started(
        &mut self,
        stream: &BinlogStream,
        builder: &mut ChangeBuilder,
    ) -> Result<(), ReadEnd> {
        let resolved = stream.position().clone();
        self.gtid_state = resolved.at.gtid.clone();
        self.runner.persist_start(&resolved).await?;
        if let Some(g) = &self.gtid_state {
            builder.set_executed_gtid_set(g.to_string());
        }
        self.boundary = EntryPosition {
            journal_name: resolved.at.file.clone(),
            position: resolved.at.offset,
            ..Default::default()
        };
        self.last_server_id = resolved.server_id;
        self.snapshot = self.runner.start_snapshot(self.snapshot_connect.clone());
        Ok(())
    }

    async fn before_event(
        &mut self,
        stream: &BinlogStream,
        lane: &mut Handoff<'a>,
    ) -> Result<(), ReadEnd> {
        if Self::stopping(lane) {
            return Err(ReadEnd::Stop);
        }
        self.count_reconnects(stream);
        Ok(())
    }

    fn source_changed(&mut self) {
        self.source_marker = true;
    }

    async fn source_idle(&mut self, _lane: &mut Handoff<'a>) -> Result<(), ReadEnd> {
        Ok(())
    }

    async fn ready(&mut self, _read: &ReadUpTo, lane: &mut Handoff<'a>) -> Ready {
        let no_snapshot = self.snapshot.is_none();
        tokio::select! {
            chunk = recv_chunk(&mut self.snapshot) => Ready::Chunk(chunk),
            // Tables asked for on demand while no snapshot runs.
            _ = snapshot_asked(&self.runner.snapshot), if no_snapshot => Ready::SnapshotAsked,
            _ = lane.stop.changed() => Ready::Stop,
            ended = &mut *lane.emitting => Ready::SinkEnded(ended),
        }
    }

    async fn write_ready(
        &mut self,
        ready: Ready,
        _read: &ReadUpTo,
        lane: &mut Handoff<'a>,
    ) -> Result<(), ReadEnd> {
        match ready {
            Ready::Chunk(chunk) => {
                self.waiting_chunks.extend(chunk);
                if !self.in_transaction {
                    self.send_ready_chunks(lane).await?;
                }
                Ok(())
            }
            Ready::SnapshotAsked => {
                self.snapshot = self.runner.start_snapshot(self.snapshot_connect.clone());
                Ok(())
            }
            Ready::Stop => Err(ReadEnd::Stop),
            Ready::SinkEnded(ended) => Err(self.sink_ended(lane, ended)),
        }
    }

    fn event_read(&mut self, ev: &sluice_source::Event<'_>, schema: SchemaStep) {
        let runner = &mut *self.runner;
        runner.stats.events += 1;
        if let Some(m) = &self.metrics {
            m.received_bytes
                .increment(u64::from(ev.raw.header.event_size));
            m.event_read(ev.raw.header.timestamp, ev.ends_transaction.is_some());
        }
        self.replayed = self.skip_events > 0;
        if self.replayed {
            self.skip_events -= 1;
        }
        self.events_in_txn += 1;
        // The entries of a transaction's end carry the GTID state after it:
        // their ack point is where a resume by GTID starts.
        if let Some(g) = ev.ends_transaction.and_then(|end| end.at.gtid.as_ref()) {
            self.gtid_state = Some(g.clone());
        }
        if schema == SchemaStep::Statement {
            if let Some(plan) = &runner.snapshot {
                // A chunk being read may be of a table this changes.
                plan.state.windows.invalidate_all();
            }
        }
    }

    async fn push(
        &mut self,
        change: ChangeEvent<'_>,
        ev: &sluice_source::Event<'_>,
        info: Option<&Arc<[ColumnInfo]>>,
        keep: Option<ColumnProjection>,
        lane: &mut Handoff<'a>,
    ) -> Result<(), ReadEnd> {
        if self.replayed {
            return Ok(());
        }
        self.send_source_marker(lane).await?;
        if let ChangeEvent::Rows(rows) = &change {
            // Built on the encoding pool, from a copy of the event's bytes.
            let Some(owned) = ev.to_owned_rows() else {
                return Ok(());
            };
            let work = Work::Rows(Box::new(RowsWork {
                owned,
                table: rows.event.table.clone(),
                columns: info.cloned(),
                keep,
                txn: rows.txn.clone(),
                gtid_on: self.runner.encoder.gtid_on,
                file: ev.file.to_string(),
                pos: ev.pos,
                next_pos: ev.next_pos,
                server_id: ev.raw.header.server_id,
                timestamp: ev.raw.header.timestamp,
            }));
            return self.forward(work, lane).await;
        }
        let mut entries = Vec::new();
        let runner = &mut *self.runner;
        match runner.encoder.encode(&change, &mut entries) {
            Ok(()) => {}
            Err(source) if runner.filters.table_error => {
                tracing::warn!(destination = %runner.name, error = %source, "event skipped: its entry cannot be built (canal.instance.filter.table.error)");
                entries.clear();
            }
            Err(source) => {
                return Err(ReadEnd::Failed(RunnerError::Entry {
                    destination: runner.name.clone(),
                    source,
                }))
            }
        }
        for e in entries {
            self.forward(Work::Ready(Box::new(e)), lane).await?;
        }
        Ok(())
    }

    async fn end_transaction(
        &mut self,
        file: &str,
        _pos: u64,
        next_pos: u64,
        _lane: &mut Handoff<'a>,
    ) -> Result<(), ReadEnd> {
        self.events_in_txn = 0;
        self.skip_events = 0;
        self.runner.stats.transactions += 1;
        if let Some(m) = &self.metrics {
            m.transactions.increment(1);
            m.transaction_read(file, next_pos);
        }
        Ok(())
    }

    async fn event_done(
        &mut self,
        ev: &sluice_source::Event<'_>,
        in_transaction: bool,
        lane: &mut Handoff<'a>,
    ) -> Result<(), ReadEnd> {
        self.in_transaction = in_transaction;
        self.last_server_id = ev.raw.header.server_id;
        if self.replayed || in_transaction {
            return Ok(());
        }
        self.send_source_marker(lane).await?;
        // Between transactions: chunks whose point the stream has reached
        // go out now.
        self.boundary = EntryPosition {
            journal_name: ev.file.to_string(),
            position: ev.next_pos,
            ..Default::default()
        };
        self.look_at_snapshot(ev.ends_transaction.is_some());
        if !self.waiting_chunks.is_empty() {
            self.send_ready_chunks(lane).await?;
        }
        Ok(())
    }

    fn transaction_aborted(
        &mut self,
        resume: &sluice_source::position::ResumePosition,
        reason: &str,
    ) {
        let runner = &mut *self.runner;
        tracing::warn!(
            destination = %runner.name,
            %resume,
            reason,
            handled = self.events_in_txn,
            "source reconnected inside a transaction; its replay skips the events already handled"
        );
        runner.stats.aborted_transactions += 1;
        self.skip_events = self.events_in_txn;
        self.events_in_txn = 0;
    }

    /// At the end of the binlog (`stop_at_end`), everything read goes into
    /// the store before the run returns; after a failure nothing waits.
    async fn finish(&mut self, lane: &mut Handoff<'a>, failed: bool) -> Result<(), ReadEnd> {
        if failed {
            return Ok(());
        }
        drop(lane.tx.take());
        match (&mut *lane.emitting).await {
            Ok(Ok(())) => Ok(()),
            ended => Err(ReadEnd::Failed(self.runner.emitter_ended(ended))),
        }
    }
}
