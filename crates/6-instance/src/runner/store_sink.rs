//! The end of a destination's stream: puts the entries into the store in
//! order, waiting for those still being built, under the fence; keeps the
//! transaction shape (a BEGIN goes out with the first entry after it, empty
//! transactions are dropped but for one now and then); delivers snapshot
//! chunks reconciled with what the stream did meanwhile.

use super::*;

/// Empty transactions (nothing left after filtering) are dropped, but one
/// is let through now and then so cursors keep advancing (as Canal does).
pub(super) const EMPTY_TRANSACTION_INTERVAL: Duration = Duration::from_secs(5);
pub(super) const EMPTY_TRANSACTION_COUNT: u64 = 8192;

#[derive(Debug, Default)]
pub(super) struct EmitCounters {
    pub(super) entries: AtomicU64,
    pub(super) rows: AtomicU64,
}

/// Puts the entries the reader hands over into the store, in order,
/// waiting for those still being built; keeps the transaction shape (a
/// BEGIN goes out with the first entry after it, empty transactions are
/// dropped but for one now and then).
pub(super) struct Emitter {
    /// The snapshot's windows and progress, when one runs.
    pub(super) windows: Option<Arc<SnapshotState>>,
    pub(super) name: String,
    pub(super) destination: Arc<InstanceDestination>,
    pub(super) transaction_entry: bool,
    pub(super) fence: Option<Fence>,
    pub(super) pending_begin: Option<BuiltEntry>,
    pub(super) txn_has_entries: bool,
    pub(super) last_empty_emitted: Instant,
    pub(super) empty_suppressed: u64,
    pub(super) counters: Arc<EmitCounters>,
    pub(super) progress: Arc<RunProgress>,
    /// `canal.instance.filter.table.error`: an entry that cannot be built
    /// is skipped.
    pub(super) skip_table_errors: bool,
    /// The stream filter version of the entry being emitted.
    pub(super) version: FilterVersion,
    pub(super) last_table: Option<Arc<TableName>>,
}

/// `last` if it names `schema.table`, else a new name.
pub(super) fn intern_table(
    last: Option<Arc<TableName>>,
    schema: &str,
    table: &str,
) -> Arc<TableName> {
    match last {
        Some(t) if t.schema == schema && t.table == table => t,
        _ => Arc::new(TableName {
            schema: schema.to_string(),
            table: table.to_string(),
        }),
    }
}

impl Emitter {
    pub(super) async fn run(mut self, mut rx: mpsc::Receiver<Pending>) -> Result<(), RunnerError> {
        while let Some(p) = rx.recv().await {
            let (e, bytes) = match p.entry {
                PendingEntry::SourceChanged => {
                    self.progress.source_changed();
                    if let Some(s) = &self.windows {
                        s.windows.invalidate_all();
                    }
                    continue;
                }
                PendingEntry::Snapshot(chunk) => {
                    self.deliver_chunk(*chunk).await?;
                    continue;
                }
                PendingEntry::Ready(e) => (*e, None),
                PendingEntry::Built(built) => match *built {
                    Ok((e, bytes)) => (e, Some(bytes)),
                    Err(source) => {
                        return Err(RunnerError::Entry {
                            destination: self.name.clone(),
                            source,
                        })
                    }
                },
                PendingEntry::Building(building) => match building.await {
                    Ok(Ok(Ok((e, bytes)))) => (e, Some(bytes)),
                    Ok(Ok(Err(source))) if self.skip_table_errors => {
                        tracing::warn!(destination = %self.name, error = %source, "rows event skipped: its rows cannot be decoded (canal.instance.filter.table.error)");
                        continue;
                    }
                    Ok(Ok(Err(source))) => {
                        return Err(RunnerError::Entry {
                            destination: self.name.clone(),
                            source,
                        })
                    }
                    Ok(Err(panic)) => std::panic::resume_unwind(panic),
                    Err(_) => {
                        return Err(RunnerError::Stopped {
                            destination: self.name.clone(),
                        })
                    }
                },
            };
            self.version = p.version;
            self.emit(e, bytes).await?;
        }
        Ok(())
    }

    /// The table of an entry, for the clients' selections; one allocation
    /// per change of table, not per entry.
    pub(super) fn table_of(&mut self, e: &BuiltEntry) -> Option<Arc<TableName>> {
        if !matches!(e.kind, EntryKind::Row | EntryKind::Ddl) {
            return None;
        }
        let h = e.entry.header.as_ref()?;
        let (schema, table) = (
            h.schema_name.as_deref().unwrap_or(""),
            h.table_name.as_deref().unwrap_or(""),
        );
        if table.is_empty() {
            return None;
        }
        self.last_table = Some(intern_table(self.last_table.take(), schema, table));
        self.last_table.clone()
    }

    /// Puts a snapshot chunk into the store, without the rows the stream
    /// touched while it was read, and tells its reader how it went.
    pub(super) async fn deliver_chunk(&mut self, chunk: ChunkDelivery) -> Result<(), RunnerError> {
        let ChunkDelivery {
            schema,
            table,
            window,
            keep_window,
            entry,
            bytes,
            rows,
            reply,
            ..
        } = chunk;
        let Some(state) = &self.windows else {
            let _ = reply.send(Delivered::Redo);
            return Ok(());
        };
        let BuiltEntry {
            entry: proto,
            kind,
            position,
            ack_point,
            idempotency_key,
        } = *entry;
        let delivered = match state.windows.reconcile(
            &schema,
            &table,
            window,
            Box::new(proto),
            rows,
            keep_window,
        ) {
            Reconciled::Redo => Delivered::Redo,
            Reconciled::Deliver {
                entry: None,
                kept,
                dropped,
                ..
            } => Delivered::Put {
                seq: None,
                kept,
                dropped,
            },
            Reconciled::Deliver {
                entry: Some(proto),
                kept,
                dropped,
                patched,
            } => {
                if let Some(fence) = &self.fence {
                    if !fence(&self.name) {
                        return Err(RunnerError::Fenced {
                            destination: self.name.clone(),
                        });
                    }
                }
                // Rows dropped or given the stream's values: the entry
                // changed and is written anew.
                let bytes = if dropped == 0 && patched == 0 {
                    bytes
                } else {
                    entry_bytes(&proto)
                };
                let meta = EntryMeta {
                    bytes: bytes.len(),
                    ack_point,
                    position,
                    is_ddl: false,
                    rows: kept as u32,
                    table: Some(intern_table(None, &schema, &table)),
                    frame: Frame::Body,
                    // Chunks follow the configured filter, not the stream's.
                    filter_version: sluice_store::NOT_STREAM_FILTERED,
                };
                let _ = (kind, idempotency_key);
                self.counters.entries.fetch_add(1, Ordering::Relaxed);
                self.counters.rows.fetch_add(1, Ordering::Relaxed);
                let seq = self
                    .destination
                    .store()
                    .put(bytes, meta)
                    .await
                    .map_err(|_| RunnerError::Stopped {
                        destination: self.name.clone(),
                    })?;
                Delivered::Put {
                    seq: Some(seq),
                    kept,
                    dropped,
                }
            }
        };
        let _ = reply.send(delivered);
        Ok(())
    }

    /// `bytes`: the entry serialised, when that was done already.
    pub(super) async fn emit(
        &mut self,
        e: BuiltEntry,
        bytes: Option<EntryBytes>,
    ) -> Result<(), RunnerError> {
        if e.kind == EntryKind::Row {
            if let (Some(state), Some(h)) = (&self.windows, e.entry.header.as_ref()) {
                if state.windows.any_open() {
                    state.windows.observe(
                        h.schema_name.as_deref().unwrap_or(""),
                        h.table_name.as_deref().unwrap_or(""),
                        e.entry.store_value.as_deref().unwrap_or(&[]),
                    );
                }
            }
        }
        match e.kind {
            EntryKind::Begin => {
                self.pending_begin = Some(e);
                self.txn_has_entries = false;
                return Ok(());
            }
            EntryKind::End => {
                let empty = !self.txn_has_entries;
                let begin = self.pending_begin.take();
                self.txn_has_entries = false;
                // Without anything to deliver (all filtered, or transaction
                // entries filtered), a BEGIN/END pair still goes out now and
                // then so that cursors advance.
                if empty || self.transaction_entry {
                    let due = self.last_empty_emitted.elapsed() >= EMPTY_TRANSACTION_INTERVAL
                        || self.empty_suppressed >= EMPTY_TRANSACTION_COUNT;
                    if !due {
                        self.empty_suppressed += 1;
                        return Ok(());
                    }
                    self.last_empty_emitted = Instant::now();
                    self.empty_suppressed = 0;
                    if let Some(b) = begin {
                        self.put(b, None).await?;
                    }
                }
                return self.put(e, bytes).await;
            }
            _ => {}
        }
        if let Some(b) = self.pending_begin.take() {
            if !self.transaction_entry {
                self.put(b, None).await?;
            }
        }
        self.txn_has_entries = true;
        self.put(e, bytes).await
    }

    pub(super) async fn put(
        &mut self,
        e: BuiltEntry,
        bytes: Option<EntryBytes>,
    ) -> Result<(), RunnerError> {
        if let Some(fence) = &self.fence {
            if !fence(&self.name) {
                return Err(RunnerError::Fenced {
                    destination: self.name.clone(),
                });
            }
        }
        // Put by an earlier run of this instance: the replay of the
        // transaction it stopped in.
        if self.progress.already_put(&e.position) {
            return Ok(());
        }
        let bytes = bytes.unwrap_or_else(|| entry_bytes(&e.entry));
        let meta = EntryMeta {
            bytes: bytes.len(),
            ack_point: e.ack_point.clone(),
            position: e.position.clone(),
            is_ddl: e.kind == EntryKind::Ddl,
            rows: if e.kind == EntryKind::Row {
                rows_count(&e.entry)
            } else {
                0
            },
            table: self.table_of(&e),
            frame: match e.kind {
                EntryKind::Begin => Frame::Begin,
                EntryKind::End => Frame::End,
                _ => Frame::Body,
            },
            filter_version: self.version,
        };
        self.counters.entries.fetch_add(1, Ordering::Relaxed);
        if e.kind == EntryKind::Row {
            self.counters.rows.fetch_add(1, Ordering::Relaxed);
        }
        self.destination
            .store()
            .put(bytes, meta)
            .await
            .map_err(|e: StoreError| {
                let _ = e;
                RunnerError::Stopped {
                    destination: self.name.clone(),
                }
            })?;
        self.progress.put(&e.position, e.ack_point.as_ref());
        Ok(())
    }
}

/// Canal's `rowsCount` of a row entry (its last header property).
pub(super) fn rows_count(entry: &sluice_canal::proto::Entry) -> u32 {
    entry
        .header
        .as_ref()
        .and_then(|h| {
            h.props
                .iter()
                .rev()
                .find(|p| p.key.as_deref() == Some("rowsCount"))
        })
        .and_then(|p| p.value.as_deref()?.parse().ok())
        .unwrap_or(0)
}

/// The serialised entry.
pub(super) fn entry_bytes(entry: &sluice_canal::proto::Entry) -> EntryBytes {
    EntryBytes::from(entry.encode_to_vec())
}
