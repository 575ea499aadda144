//! Encoding on several threads with the order kept, for
//! [`ChangeStream::run_parallel`](super::ChangeStream::run_parallel): the
//! [`Pooled`] way of the stream's one loop.
//!
//! The stream's task receives, frames, follows the schema and builds the
//! change events, as for one thread; what it keeps of them is owned (the
//! rows event's bytes and described table, a snapshot of the transaction
//! state) and gathered into chunks of whole transactions. Chunks go round
//! robin to encoders, each encoding on the process's one encoding pool
//! ([`EncodePool`]); the task writes their outputs to the sink in chunk
//! order, a transaction at a time. Cutting only
//! at transaction ends is what lets every worker's encoder see whole
//! transactions, so that the bytes are those one encoder would give.
//! At most `MAX_IN_FLIGHT_PER_ENCODER` chunks per encoder are sent and not yet
//! written, which bounds the memory held.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use sluice_events::{
    ChangeEvent, ColumnInfo, ColumnProjection, Encoder, Position, RowsChange, Statement,
    StatementClass, TransactionState,
};
use sluice_source::position::ResumePosition;
use sluice_source::{BinlogStream, Event, OwnedRowsEvent};
use tokio::sync::oneshot;

use super::encoding::{Encoding, ReadUpTo, SchemaStep};
use super::{ChangeSink, StreamError};
use crate::encode_pool::{Built, EncodePool};

/// A chunk is sent at the first transaction end after this many bytes of
/// rows events: large enough that handing it over costs little beside its
/// encoding, small enough to keep the threads busy and memory low.
pub(super) const CHUNK_BYTES: usize = 256 * 1024;

/// A chunk is also sent at the first transaction end after this many
/// items, whatever their bytes: transactions whose rows the filter drops
/// still leave their BEGIN, COMMIT and end, and a stream of nothing else
/// (a busy table nobody selected) must not gather them without bound
/// while the source keeps the stream busy.
pub(super) const CHUNK_ITEMS: usize = 4096;

/// Chunks sent to one encoder and not yet written.
const MAX_IN_FLIGHT_PER_ENCODER: usize = 3;

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
        self.bytes >= CHUNK_BYTES || self.items.len() >= CHUNK_ITEMS
    }
}

/// The encoders and the chunks in flight. The chunks are encoded on the
/// process's [`EncodePool`], at most one per encoder at a time.
pub(super) struct Pool<E: Encoder> {
    threads: &'static EncodePool,
    /// Each encoder with the output count of its last unit (the next
    /// unit's buffer size); chunk `n` takes encoder `n % len`.
    encoders: Vec<Arc<Mutex<(E, usize)>>>,
    /// Chunks sent and not yet written, oldest first.
    in_flight: VecDeque<Built<Done<E::Output>>>,
    sent: u64,
}

impl<E> Pool<E>
where
    E: Encoder + Send + 'static,
    E::Output: Send + 'static,
{
    /// `workers` encoders from `make_encoder`, on the shared pool.
    pub(super) fn start<F>(workers: usize, mut make_encoder: F) -> std::io::Result<Self>
    where
        F: FnMut() -> E,
    {
        Ok(Pool {
            threads: EncodePool::shared()?,
            encoders: (0..workers.max(1))
                .map(|_| Arc::new(Mutex::new((make_encoder(), 0))))
                .collect(),
            in_flight: VecDeque::new(),
            sent: 0,
        })
    }

    pub(super) fn in_flight(&self) -> bool {
        !self.in_flight.is_empty()
    }

    /// Sends the complete transactions of `pending` to the next encoder,
    /// first writing the oldest chunk's outputs when as many are in flight
    /// as allowed.
    pub(super) async fn dispatch<S: ChangeSink<E::Output>>(
        &mut self,
        pending: &mut Pending,
        sink: &mut S,
    ) -> Result<(), StreamError> {
        if pending.complete == 0 {
            return Ok(());
        }
        let limit = self.encoders.len() * MAX_IN_FLIGHT_PER_ENCODER;
        while self.in_flight.len() >= limit {
            let done = self.next_done().await;
            self.write(done, sink)?;
        }
        let open = pending.items.split_off(pending.complete);
        let items = std::mem::replace(&mut pending.items, open);
        pending.complete = 0;
        pending.bytes = 0;
        let encoder = self.encoders[(self.sent % self.encoders.len() as u64) as usize].clone();
        self.in_flight.push_back(self.threads.submit(move || {
            // A job that panicked left the encoder poisoned; its chunk's
            // missing answer stops the stream all the same.
            let mut guard = encoder.lock().unwrap_or_else(|p| p.into_inner());
            let (encoder, last_len) = &mut *guard;
            encode_chunk(encoder, items, last_len)
        }));
        self.sent += 1;
        Ok(())
    }

    /// The oldest chunk's outputs, once encoded (`None`: its job panicked
    /// or was dropped). Cancel safe. Only called while a chunk is in flight.
    pub(super) async fn next_done(&mut self) -> Option<Done<E::Output>> {
        let oldest = self.in_flight.front_mut()?;
        let done = oldest.await;
        self.in_flight.pop_front();
        done.ok().and_then(Result::ok)
    }

    /// Writes the oldest chunk's transactions, then reports its error.
    pub(super) fn write<S: ChangeSink<E::Output>>(
        &mut self,
        done: Option<Done<E::Output>>,
        sink: &mut S,
    ) -> Result<(), StreamError> {
        let done = done.ok_or_else(worker_stopped)?;
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
    pub(super) fn write_finished<S: ChangeSink<E::Output>>(
        &mut self,
        sink: &mut S,
    ) -> Result<(), StreamError> {
        while let Some(oldest) = self.in_flight.front_mut() {
            let done = match oldest.try_recv() {
                Ok(done) => done.ok(),
                Err(oneshot::error::TryRecvError::Empty) => break,
                Err(oneshot::error::TryRecvError::Closed) => None,
            };
            self.in_flight.pop_front();
            self.write(done, sink)?;
        }
        Ok(())
    }

    /// Writes every chunk in flight, in order.
    pub(super) async fn drain<S: ChangeSink<E::Output>>(
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

/// Encoding on the encoding pool: the stream's changes gathered into
/// chunks of whole transactions, each chunk encoded by one of the pool's
/// encoders, the outputs written in stream order.
pub(super) struct Pooled<E: Encoder> {
    pub(super) pool: Pool<E>,
    pub(super) pending: Pending,
}

impl<E, S> Encoding<S> for Pooled<E>
where
    E: Encoder + Send + 'static,
    E::Output: Send + 'static,
    S: ChangeSink<E::Output>,
{
    type Ready = Option<Done<E::Output>>;
    type Error = StreamError;

    async fn before_event(
        &mut self,
        _stream: &BinlogStream,
        sink: &mut S,
    ) -> Result<(), StreamError> {
        self.pool.write_finished(sink)
    }

    async fn source_idle(&mut self, sink: &mut S) -> Result<(), StreamError> {
        // Nothing more to read for now: what is complete is encoded and
        // written while the stream waits.
        self.pool.dispatch(&mut self.pending, sink).await
    }

    async fn ready(&mut self, _read: &ReadUpTo, _sink: &mut S) -> Option<Done<E::Output>> {
        if !self.pool.in_flight() {
            return std::future::pending().await;
        }
        self.pool.next_done().await
    }

    async fn write_ready(
        &mut self,
        done: Option<Done<E::Output>>,
        _read: &ReadUpTo,
        sink: &mut S,
    ) -> Result<(), StreamError> {
        self.pool.write(done, sink)
    }

    fn event_read(&mut self, _ev: &Event<'_>, _schema: SchemaStep) {
        // Every event moves the transaction's event count (Debezium's
        // offset `event`), so no state is shared between two events.
        self.pending.state_changed();
    }

    async fn push(
        &mut self,
        change: ChangeEvent<'_>,
        ev: &Event<'_>,
        info: Option<&Arc<[ColumnInfo]>>,
        keep: Option<ColumnProjection>,
        _sink: &mut S,
    ) -> Result<(), StreamError> {
        self.pending.push_change(&change, ev, info, keep);
        Ok(())
    }

    async fn end_transaction(
        &mut self,
        file: &str,
        pos: u64,
        _next_pos: u64,
        sink: &mut S,
    ) -> Result<(), StreamError> {
        self.pending.push_end(file, pos);
        if self.pending.is_full() {
            self.pool.dispatch(&mut self.pending, sink).await?;
        }
        Ok(())
    }

    fn transaction_aborted(&mut self, resume: &ResumePosition, reason: &str) {
        super::encoding::warn_transaction_read_again(resume, reason);
        self.pending.drop_open_transaction();
    }

    async fn finish(&mut self, sink: &mut S, _failed: bool) -> Result<(), StreamError> {
        self.pending.drop_open_transaction();
        self.pool.dispatch(&mut self.pending, sink).await?;
        self.pool.drain(sink).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a transaction whose rows were all filtered out leaves: its
    /// BEGIN and COMMIT, and its end.
    fn push_filtered_transaction(pending: &mut Pending, n: u64) {
        let txn = Arc::new(TransactionState::default());
        let file: Arc<str> = Arc::from("binlog.000001");
        for (offset, kind) in [
            (n * 100, OwnedKind::Begin { thread_id: None }),
            (n * 100 + 50, OwnedKind::Commit { xid: Some(n) }),
        ] {
            pending.items.push(Item::Change(OwnedChange {
                file: file.clone(),
                offset,
                next_offset: offset + 50,
                server_id: 1,
                timestamp: 0,
                txn: txn.clone(),
                kind,
            }));
        }
        pending.push_end("binlog.000001", n * 100 + 50);
    }

    #[test]
    fn transactions_without_rows_fill_a_chunk_too() {
        let mut pending = Pending::default();
        let mut ends = 0;
        while !pending.is_full() {
            push_filtered_transaction(&mut pending, ends);
            ends += 1;
            assert!(
                ends < 10_000,
                "a chunk of row-less transactions never filled"
            );
        }
        assert_eq!(pending.bytes, 0);
        assert!(pending.items.len() >= CHUNK_ITEMS);
        assert!(pending.items.len() < CHUNK_ITEMS + 3);
    }
}
