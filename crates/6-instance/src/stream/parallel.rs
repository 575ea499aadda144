//! Encoding on several threads with the order kept, for
//! [`ChangeStream::run_parallel`](super::ChangeStream::run_parallel).
//!
//! The stream's task receives, frames, follows the schema and builds the
//! change events, as for one thread; what it keeps of them is owned (the
//! rows event's bytes and described table, a snapshot of the transaction
//! state) and gathered into chunks of whole transactions. Chunks go round
//! robin to workers, each with an encoder of its own; the task writes their
//! outputs to the sink in chunk order, a transaction at a time. Cutting only
//! at transaction ends is what lets every worker's encoder see whole
//! transactions, so that the bytes are those one encoder would give.
//! At most `MAX_IN_FLIGHT_PER_WORKER` chunks per worker are sent and not yet
//! written, which bounds the memory held.

use std::borrow::Cow;
use std::sync::Arc;
use std::thread::JoinHandle;

use sluice_events::{
    ChangeEvent, ColumnInfo, ColumnProjection, Encoder, Position, RowsChange, Statement,
    StatementClass, TransactionState,
};
use sluice_source::{Event, OwnedRowsEvent};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

use super::{ChangeSink, StreamError};

/// A chunk is sent at the first transaction end after this many bytes of
/// rows events: large enough that handing it over costs little beside its
/// encoding, small enough to keep workers busy and memory low.
pub(super) const CHUNK_BYTES: usize = 256 * 1024;

/// Chunks sent to one worker and not yet written.
const MAX_IN_FLIGHT_PER_WORKER: usize = 3;

/// What a change event refers to, owned.
enum OwnedKind {
    Begin {
        thread_id: Option<u32>,
    },
    Commit {
        xid: Option<u64>,
    },
    Statement {
        db: String,
        sql: String,
        class: StatementClass,
    },
    Rows {
        event: OwnedRowsEvent,
        info: Option<Arc<[ColumnInfo]>>,
        keep: Option<ColumnProjection>,
    },
}

/// A change event, owned, to encode on another thread.
struct OwnedChange {
    file: Arc<str>,
    offset: u64,
    next_offset: u64,
    server_id: u32,
    timestamp: u32,
    txn: Arc<TransactionState>,
    kind: OwnedKind,
}

enum Item {
    Change(OwnedChange),
    /// The stream's transaction end: the outputs since the previous one
    /// go to the sink as one transaction's.
    End {
        file: Arc<str>,
        pos: u64,
    },
}

/// One transaction's outputs.
struct Unit<T> {
    outputs: Vec<T>,
    file: Arc<str>,
    pos: u64,
}

/// A worker's answer for one chunk: the transactions encoded, and the error
/// that stopped it, if one did.
pub(super) struct Done<T> {
    units: Vec<Unit<T>>,
    error: Option<StreamError>,
}

/// The chunk being gathered. Items past `complete` belong to a transaction
/// whose end has not been read.
#[derive(Default)]
pub(super) struct Pending {
    items: Vec<Item>,
    complete: usize,
    bytes: usize,
    /// Reused while the transaction state does not change (rows events).
    txn: Option<Arc<TransactionState>>,
    file: Option<Arc<str>>,
}

impl Pending {
    fn file(&mut self, name: &str) -> Arc<str> {
        match &self.file {
            Some(f) if &**f == name => f.clone(),
            _ => {
                let f: Arc<str> = Arc::from(name);
                self.file = Some(f.clone());
                f
            }
        }
    }

    /// The builder's state may have changed (anything but a rows event).
    pub(super) fn state_changed(&mut self) {
        self.txn = None;
    }

    /// Keeps an owned copy of `change`, read from `ev`, with the columns
    /// shown of its table (`keep`, from column filters).
    pub(super) fn push_change(
        &mut self,
        change: &ChangeEvent<'_>,
        ev: &Event<'_>,
        info: Option<&Arc<[ColumnInfo]>>,
        keep: Option<ColumnProjection>,
    ) {
        let kind = match change {
            ChangeEvent::Begin { thread_id, .. } => OwnedKind::Begin {
                thread_id: *thread_id,
            },
            ChangeEvent::Commit { xid, .. } => OwnedKind::Commit { xid: *xid },
            ChangeEvent::Statement(st) => OwnedKind::Statement {
                db: st.db.to_string(),
                sql: st.sql.to_string(),
                class: st.class.clone(),
            },
            ChangeEvent::Rows(_) => {
                let Some(event) = ev.to_owned_rows() else {
                    return;
                };
                self.bytes += ev.raw.bytes.len();
                OwnedKind::Rows {
                    event,
                    info: info.cloned(),
                    keep,
                }
            }
        };
        let txn = match &self.txn {
            Some(t) => t.clone(),
            None => {
                let t = Arc::new(change.txn().clone());
                self.txn = Some(t.clone());
                t
            }
        };
        let p = change.position();
        let file = self.file(p.file);
        self.items.push(Item::Change(OwnedChange {
            file,
            offset: p.offset,
            next_offset: p.next_offset,
            server_id: p.server_id,
            timestamp: p.timestamp,
            txn,
            kind,
        }));
    }

    /// The stream's transaction ends at `file:pos`.
    pub(super) fn push_end(&mut self, file: &str, pos: u64) {
        let file = self.file(file);
        self.items.push(Item::End { file, pos });
        self.complete = self.items.len();
    }

    /// Drops what was kept of the transaction not yet ended: it will be
    /// read again from its start.
    pub(super) fn drop_open_transaction(&mut self) {
        self.items.truncate(self.complete);
        self.txn = None;
    }

    pub(super) fn is_full(&self) -> bool {
        self.bytes >= CHUNK_BYTES
    }
}

/// The workers and the chunks in flight.
pub(super) struct Pool<T> {
    inputs: Vec<UnboundedSender<Vec<Item>>>,
    outputs: Vec<UnboundedReceiver<Done<T>>>,
    handles: Vec<JoinHandle<()>>,
    sent: u64,
    written: u64,
}

impl<T: Send + 'static> Pool<T> {
    /// `workers` threads, each with an encoder from `make_encoder`.
    pub(super) fn start<E, F>(workers: usize, mut make_encoder: F) -> std::io::Result<Self>
    where
        E: Encoder<Output = T> + Send + 'static,
        F: FnMut() -> E,
    {
        let mut pool = Pool {
            inputs: Vec::new(),
            outputs: Vec::new(),
            handles: Vec::new(),
            sent: 0,
            written: 0,
        };
        for n in 0..workers.max(1) {
            let (in_tx, mut in_rx) = unbounded_channel::<Vec<Item>>();
            let (out_tx, out_rx) = unbounded_channel();
            let mut encoder = make_encoder();
            let handle = std::thread::Builder::new()
                .name(format!("sluice-encode-{n}"))
                .spawn(move || {
                    let mut last_len = 0;
                    while let Some(items) = in_rx.blocking_recv() {
                        let done = encode_chunk(&mut encoder, items, &mut last_len);
                        if out_tx.send(done).is_err() {
                            break;
                        }
                    }
                })?;
            pool.inputs.push(in_tx);
            pool.outputs.push(out_rx);
            pool.handles.push(handle);
        }
        Ok(pool)
    }

    pub(super) fn in_flight(&self) -> bool {
        self.sent > self.written
    }

    /// Sends the complete transactions of `pending` to the next worker,
    /// first writing the oldest chunk's outputs when as many are in flight
    /// as allowed.
    pub(super) async fn dispatch<S: ChangeSink<T>>(
        &mut self,
        pending: &mut Pending,
        sink: &mut S,
    ) -> Result<(), StreamError> {
        if pending.complete == 0 {
            return Ok(());
        }
        let limit = (self.inputs.len() * MAX_IN_FLIGHT_PER_WORKER) as u64;
        while self.sent - self.written >= limit {
            let done = self.next_done().await;
            self.write(done, sink)?;
        }
        let open = pending.items.split_off(pending.complete);
        let items = std::mem::replace(&mut pending.items, open);
        pending.complete = 0;
        pending.bytes = 0;
        let worker = (self.sent % self.inputs.len() as u64) as usize;
        self.inputs[worker]
            .send(items)
            .map_err(|_| worker_stopped())?;
        self.sent += 1;
        Ok(())
    }

    /// The oldest chunk's outputs, when its worker is done with it. Cancel
    /// safe. Only called while a chunk is in flight.
    pub(super) async fn next_done(&mut self) -> Option<Done<T>> {
        let worker = (self.written % self.outputs.len() as u64) as usize;
        self.outputs[worker].recv().await
    }

    /// Writes the oldest chunk's transactions, then reports its error.
    pub(super) fn write<S: ChangeSink<T>>(
        &mut self,
        done: Option<Done<T>>,
        sink: &mut S,
    ) -> Result<(), StreamError> {
        let done = done.ok_or_else(worker_stopped)?;
        self.written += 1;
        for mut unit in done.units {
            sink.write(&mut unit.outputs)
                .map_err(|e| StreamError::Sink {
                    file: unit.file.to_string(),
                    pos: unit.pos,
                    source: Box::new(e),
                })?;
        }
        match done.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Writes the chunks that are done, in order, without waiting.
    pub(super) fn write_finished<S: ChangeSink<T>>(
        &mut self,
        sink: &mut S,
    ) -> Result<(), StreamError> {
        while self.in_flight() {
            let worker = (self.written % self.outputs.len() as u64) as usize;
            match self.outputs[worker].try_recv() {
                Ok(done) => self.write(Some(done), sink)?,
                Err(tokio::sync::mpsc::error::TryRecvError::Empty) => break,
                Err(tokio::sync::mpsc::error::TryRecvError::Disconnected) => {
                    return Err(worker_stopped())
                }
            }
        }
        Ok(())
    }

    /// Writes every chunk in flight, in order.
    pub(super) async fn drain<S: ChangeSink<T>>(
        &mut self,
        sink: &mut S,
    ) -> Result<(), StreamError> {
        while self.in_flight() {
            let done = self.next_done().await;
            self.write(done, sink)?;
        }
        Ok(())
    }
}

impl<T> Drop for Pool<T> {
    fn drop(&mut self) {
        // Closing the inputs ends the workers after the chunk at hand.
        self.inputs.clear();
        self.outputs.clear();
        for handle in self.handles.drain(..) {
            let _ = handle.join();
        }
    }
}

fn worker_stopped() -> StreamError {
    StreamError::Worker("an encoding thread stopped".to_string())
}

/// Encodes a chunk's change events in order; the outputs between two
/// transaction ends make one unit. `last_len` sizes the next unit's buffer.
fn encode_chunk<E: Encoder>(
    encoder: &mut E,
    items: Vec<Item>,
    last_len: &mut usize,
) -> Done<E::Output> {
    let mut units = Vec::new();
    let mut outputs = Vec::with_capacity(*last_len);
    for item in items {
        let change = match item {
            Item::End { file, pos } => {
                if !outputs.is_empty() {
                    *last_len = outputs.len();
                    let full = std::mem::replace(&mut outputs, Vec::with_capacity(*last_len));
                    units.push(Unit {
                        outputs: full,
                        file,
                        pos,
                    });
                }
                continue;
            }
            Item::Change(change) => change,
        };
        if let Err(source) = encode_one(encoder, &change, &mut outputs) {
            return Done {
                units,
                error: Some(StreamError::Encode {
                    file: change.file.to_string(),
                    pos: change.offset,
                    source,
                }),
            };
        }
    }
    Done { units, error: None }
}

fn encode_one<E: Encoder>(
    encoder: &mut E,
    c: &OwnedChange,
    outputs: &mut Vec<E::Output>,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let position = Position {
        file: &c.file,
        offset: c.offset,
        next_offset: c.next_offset,
        server_id: c.server_id,
        timestamp: c.timestamp,
    };
    let txn = &*c.txn;
    match &c.kind {
        OwnedKind::Begin { thread_id } => encoder.encode(
            &ChangeEvent::Begin {
                position,
                txn,
                thread_id: *thread_id,
            },
            outputs,
        )?,
        OwnedKind::Commit { xid } => encoder.encode(
            &ChangeEvent::Commit {
                position,
                txn,
                xid: *xid,
            },
            outputs,
        )?,
        OwnedKind::Statement { db, sql, class } => encoder.encode(
            &ChangeEvent::Statement(Statement {
                position,
                txn,
                db: Cow::Borrowed(db),
                sql: Cow::Borrowed(sql),
                class: class.clone(),
            }),
            outputs,
        )?,
        OwnedKind::Rows { event, info, keep } => {
            let rows = event.rows_event()?;
            let change = RowsChange::new(position, txn, &rows, info.as_deref())
                .with_projection(keep.as_ref());
            encoder.encode(&ChangeEvent::Rows(change), outputs)?
        }
    }
    Ok(())
}
