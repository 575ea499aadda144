//! The reader's loop: connects, then for each event of the stream follows
//! the schema, turns it into work (entries, rows events to build, markers)
//! and hands that to the store sink in binlog order; between transactions
//! it places the snapshot chunks whose point the stream has reached.
//! Never puts into the store itself.

use super::*;

use crate::metrics::InstanceMetrics;

/// The reader's way to the store sink: the channel, the bytes in flight it
/// may hold, the build pool, and what ends the run (a stop, the sink's end).
pub(super) struct Handoff<'a> {
    pub(super) tx: mpsc::Sender<Pending>,
    pub(super) in_flight: Arc<Semaphore>,
    pub(super) stop: watch::Receiver<bool>,
    pub(super) emitting: &'a mut JoinHandle<Result<(), RunnerError>>,
    pub(super) pool: &'a EncodePool,
    pub(super) metrics: Option<Arc<InstanceMetrics>>,
}

/// Where the reader stands between two events.
pub(super) struct ReadState {
    /// The initial snapshot beside the stream: its chunks come back here to
    /// be delivered once the stream has passed their point.
    snapshot: Option<SnapshotTask>,
    snapshot_connect: sluice_source::ConnectOptions,
    /// Where the stream is between transactions.
    boundary: EntryPosition,
    waiting_chunks: Vec<ChunkDelivery>,
    last_server_id: u32,
    /// Set when the stream moved to another server: the schema history
    /// learns it at the first event read there.
    source_changed: bool,
    /// And the store sink, before the first entry read there.
    source_marker: bool,
}

/// Whether the run goes on after a step (`false`: it was asked to stop).
type Going = Result<bool, RunnerError>;

impl InstanceRunner {
    /// Reads the source and hands the entries of each event, in order, to
    /// the store sink through `tx`.
    pub(super) async fn read(
        &mut self,
        source: SourceConfig,
        stop: watch::Receiver<bool>,
        tx: mpsc::Sender<Pending>,
        emitting: &mut JoinHandle<Result<(), RunnerError>>,
        pool: &EncodePool,
    ) -> Result<(), RunnerError> {
        let mut lane = Handoff {
            tx,
            in_flight: Arc::new(Semaphore::new(IN_FLIGHT_KB)),
            stop,
            emitting,
            pool,
            metrics: self.destination.metrics().cloned(),
        };
        let snapshot_connect = source.connect.clone();
        let connect = BinlogStream::connect(source);
        let connected = tokio::select! {
            s = connect => s,
            _ = lane.stop.changed() => return Ok(()),
        };
        let mut stream = connected.map_err(|e| self.source_error(e))?;
        let mut at = self.start_reading(&stream, snapshot_connect).await?;
        loop {
            if *lane.stop.borrow() {
                return Ok(());
            }
            self.count_reconnects(&stream, &mut at, lane.metrics.as_deref());
            let item = tokio::select! {
                item = stream.next() => item,
                chunk = recv_chunk(&mut at.snapshot) => {
                    if let Some(chunk) = chunk {
                        at.waiting_chunks.push(chunk);
                    }
                    if !self.changes.state().in_transaction && !self.send_ready_chunks(&mut at, &mut lane).await? {
                        return Ok(());
                    }
                    continue;
                }
                // Tables asked for on demand while no snapshot runs.
                _ = snapshot_asked(&self.snapshot), if at.snapshot.is_none() => {
                    at.snapshot = self.start_snapshot(at.snapshot_connect.clone());
                    continue;
                }
                _ = lane.stop.changed() => return Ok(()),
                ended = &mut *lane.emitting => {
                    if *lane.stop.borrow() {
                        return Ok(());
                    }
                    return Err(self.emitter_ended(ended));
                }
            };
            match item {
                Ok(Some(StreamItem::TransactionAborted { resume, reason })) => {
                    tracing::warn!(
                        destination = %self.name,
                        %resume,
                        reason,
                        handled = self.events_in_txn,
                        "source reconnected inside a transaction; its replay skips the events already handled"
                    );
                    self.stats.aborted_transactions += 1;
                    self.skip_events = self.events_in_txn;
                    self.events_in_txn = 0;
                }
                Ok(Some(StreamItem::Event(ev))) => {
                    if !self.on_event(ev, &mut at, &mut lane).await? {
                        return Ok(());
                    }
                }
                Ok(None) => {
                    // The end of the binlog (`stop_at_end`): everything read
                    // goes into the store before returning.
                    let Handoff { tx, emitting, .. } = lane;
                    drop(tx);
                    return match (&mut *emitting).await {
                        Ok(Ok(())) => Ok(()),
                        ended => Err(self.emitter_ended(ended)),
                    };
                }
                Err(e) => return Err(self.source_error(e)),
            }
        }
    }

    /// After connecting: the start is recorded (and persisted when asked),
    /// the schema hook and the change builder learn where the stream
    /// starts, and the snapshot starts beside it.
    async fn start_reading(
        &mut self,
        stream: &BinlogStream,
        snapshot_connect: sluice_source::ConnectOptions,
    ) -> Result<ReadState, RunnerError> {
        self.gtid_state = stream.position().gtid.clone();
        let resolved = stream.position().clone();
        self.persist_start(&resolved).await?;
        let (file, pos) = (resolved.file.clone(), resolved.offset);
        self.schema
            .on_start(&file, pos)
            .map_err(|message| RunnerError::Schema {
                destination: self.name.clone(),
                at: format!("{file}:{pos}"),
                message,
            })?;
        if let Some(g) = &self.gtid_state {
            self.changes.set_executed_gtid_set(g.to_string());
        }
        Ok(ReadState {
            snapshot: self.start_snapshot(snapshot_connect.clone()),
            snapshot_connect,
            boundary: EntryPosition {
                journal_name: resolved.file.clone(),
                position: resolved.offset,
                ..Default::default()
            },
            waiting_chunks: Vec::new(),
            last_server_id: resolved.server_id,
            source_changed: false,
            source_marker: false,
        })
    }

    /// Counts the stream's reconnects and failovers; a failover is noted
    /// for the schema history and the store sink.
    fn count_reconnects(
        &mut self,
        stream: &BinlogStream,
        at: &mut ReadState,
        metrics: Option<&InstanceMetrics>,
    ) {
        let reconnects = stream.reconnects();
        if reconnects > self.stats.reconnects {
            if let Some(m) = metrics {
                m.reconnects.increment(reconnects - self.stats.reconnects);
            }
        }
        self.stats.reconnects = reconnects;
        let failovers = stream.failovers();
        if failovers > self.stats.failovers {
            if let Some(m) = metrics {
                m.failovers.increment(failovers - self.stats.failovers);
            }
            self.stats.failovers = failovers;
            at.source_changed = true;
            at.source_marker = true;
        }
    }

    /// One event: the schema follows it, its work goes to the store sink
    /// (unless it is the replay of what was handled before a reconnect),
    /// and between transactions the chunks whose point it reached follow.
    async fn on_event(
        &mut self,
        ev: sluice_source::Event<'_>,
        at: &mut ReadState,
        lane: &mut Handoff<'_>,
    ) -> Going {
        if ev.artificial {
            return Ok(true);
        }
        if std::mem::take(&mut at.source_changed) {
            self.schema
                .on_source_change(ev.file, ev.pos)
                .map_err(|message| RunnerError::Schema {
                    destination: self.name.clone(),
                    at: format!("{}:{}", ev.file, ev.pos),
                    message,
                })?;
        }
        if let Some(changed) = self
            .destination
            .stream_filter_if_changed(self.stream.version)
        {
            self.stream = changed;
        }
        let ends = ev.ends_transaction.is_some();
        self.stats.events += 1;
        if let Some(m) = &lane.metrics {
            m.received_bytes
                .increment(u64::from(ev.raw.header.event_size));
            m.event_read(ev.raw.header.timestamp, ends);
        }
        let position = Position::at(ev.file, ev.pos, ev.next_pos, &ev.raw.header);
        let skip = self.skip_events > 0;
        if skip {
            self.skip_events -= 1;
        }
        self.events_in_txn += 1;
        // A rows event of a kept table is built on another task, from a
        // copy of its bytes.
        let owned = match &ev.data {
            EventData::Rows(r) if !skip && self.table_allowed(&r.table.schema, &r.table.table) => {
                ev.to_owned_rows()
            }
            _ => None,
        };
        // The entries of a transaction's end carry the GTID state after it:
        // their ack point is where a resume by GTID starts.
        if let Some(g) = ev.ends_transaction.and_then(|end| end.gtid.as_ref()) {
            self.gtid_state = Some(g.clone());
            self.changes.set_executed_gtid_set(g.to_string());
        }
        let mut work = self.handle(position, ev.data, owned)?;
        if !skip {
            if std::mem::take(&mut at.source_marker) {
                work.insert(0, Work::SourceChanged);
            }
            let version = self.stream.version;
            for w in work {
                if !self.forward(w, version, lane).await? {
                    return Ok(false);
                }
            }
        }
        at.last_server_id = position.server_id;
        if !skip && !self.changes.state().in_transaction {
            // Between transactions: chunks whose point the stream has
            // reached go out now.
            at.boundary = EntryPosition {
                journal_name: position.file.to_string(),
                position: position.next_offset,
                ..Default::default()
            };
            if !at.waiting_chunks.is_empty() && !self.send_ready_chunks(at, lane).await? {
                return Ok(false);
            }
        }
        if ends {
            self.events_in_txn = 0;
            self.skip_events = 0;
            self.stats.transactions += 1;
            if let Some(m) = &lane.metrics {
                m.transactions.increment(1);
                m.transaction_read(ev.file, ev.next_pos);
            }
        }
        Ok(true)
    }

    /// Hands one piece of work to the store sink, in order, once its share
    /// of the bytes in flight is free; a rows event goes to the build pool
    /// first (or is built here, with `canal.instance.parser.parallel =
    /// false`).
    async fn forward(&mut self, w: Work, version: FilterVersion, lane: &mut Handoff<'_>) -> Going {
        let kb = w.weight().div_ceil(1024).clamp(1, IN_FLIGHT_KB) as u32;
        // Timed only when it will wait for the store sink.
        let blocked = (lane.metrics.is_some()
            && (lane.tx.capacity() == 0 || lane.in_flight.available_permits() < kb as usize))
            .then(Instant::now);
        let held = tokio::select! {
            held = lane.in_flight.clone().acquire_many_owned(kb) => match held {
                Ok(h) => h,
                Err(_) => return Ok(false),
            },
            _ = lane.stop.changed() => return Ok(false),
            ended = &mut *lane.emitting => {
                if *lane.stop.borrow() {
                    return Ok(false);
                }
                return Err(self.emitter_ended(ended));
            }
        };
        let entry = match w {
            Work::Ready(e) => PendingEntry::Ready(e),
            Work::Rows(r) if self.parallel => {
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
            sent = lane.tx.send(pending) => {
                if sent.is_err() {
                    if *lane.stop.borrow() {
                        return Ok(false);
                    }
                    let ended = (&mut *lane.emitting).await;
                    return Err(self.emitter_ended(ended));
                }
            }
            _ = lane.stop.changed() => return Ok(false),
        }
        if let (Some(m), Some(since)) = (&lane.metrics, blocked) {
            m.blocked(since.elapsed());
        }
        Ok(true)
    }

    /// Hands the chunks whose point the stream reached to the store sink, in
    /// order, with the stream's GTID state there.
    async fn send_ready_chunks(&mut self, at: &mut ReadState, lane: &mut Handoff<'_>) -> Going {
        let ready = take_ready(&mut at.waiting_chunks, at.boundary.binlog_key());
        let boundary = &at.boundary;
        for mut chunk in ready {
            let gtid = self
                .gtid_state
                .as_ref()
                .map(|g| g.to_string())
                .unwrap_or_default();
            // The chunk sits in the stream where the stream is: a chunk
            // read before (a scan's, or one that waited for the stream)
            // must not take a consumer's cursor back to where it was read.
            let behind = chunk.at < boundary.binlog_key();
            for p in
                std::iter::once(&mut chunk.entry.position).chain(chunk.entry.ack_point.as_mut())
            {
                if behind {
                    p.journal_name.clone_from(&boundary.journal_name);
                    p.position = boundary.position;
                }
                p.gtid.clone_from(&gtid);
                p.server_id = i64::from(at.last_server_id);
            }
            let chunk = Work::Snapshot(Box::new(chunk));
            if !self
                .forward(chunk, sluice_store::NOT_STREAM_FILTERED, lane)
                .await?
            {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
