//! The records an engine hands to the application, each with its offset,
//! and the encoder that gives every record (Debezium JSON or typed) the
//! offset Debezium's MySQL connector would give it.

use std::sync::Arc;

use sluice_encode::debezium::DebeziumRecord;
use sluice_events::{ChangeEvent, Encoder, TransactionState};

use crate::snapshot_mark::SnapshotMark;
use crate::SourceOffset;

/// What every record the engine delivers has: its offset, which the
/// [`Committer`](crate::Committer) stages when the record is marked
/// processed.
pub trait EngineRecord: Send + 'static {
    fn offset(&self) -> &RecordOffset;
}

impl EngineRecord for ChangeRecord {
    fn offset(&self) -> &RecordOffset {
        &self.offset
    }
}

/// A record as an inner encoder makes it: not yet given its offset.
pub(crate) trait Unplaced: Send + 'static {
    type Record: EngineRecord;
    /// The index of the row it is about in its rows event (0 otherwise).
    fn row(&self) -> usize;
    fn place(self, offset: RecordOffset) -> Self::Record;
}

impl Unplaced for DebeziumRecord {
    type Record = ChangeRecord;
    fn row(&self) -> usize {
        self.row
    }
    fn place(self, offset: RecordOffset) -> ChangeRecord {
        ChangeRecord {
            destination: self.destination,
            key: self.key,
            value: self.value,
            offset,
        }
    }
}

/// One change event as the application receives it: Debezium's record
/// (`destination` topic, `key` and `value` JSON; `value` `None` is a
/// tombstone) and the offset that, once committed, resumes the stream just
/// after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeRecord {
    pub destination: String,
    pub key: Option<String>,
    pub value: Option<String>,
    pub offset: RecordOffset,
}

/// A record's offset: the part its whole transaction shares (file, position,
/// GTID set), shared rather than copied per row, and its own counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordOffset {
    /// The transaction's place, with zero counts.
    pub base: Arc<SourceOffset>,
    pub event: u64,
    pub row: u64,
    pub server_id: u64,
    pub ts_sec: u64,
}

impl RecordOffset {
    /// An offset between transactions (`offset`'s counts are zero).
    pub fn at(offset: Arc<SourceOffset>) -> RecordOffset {
        RecordOffset {
            event: offset.event,
            row: offset.row,
            server_id: offset.server_id,
            ts_sec: offset.ts_sec,
            base: offset,
        }
    }

    /// The whole offset map.
    pub fn get(&self) -> SourceOffset {
        SourceOffset {
            event: self.event,
            row: self.row,
            server_id: self.server_id,
            ts_sec: self.ts_sec,
            ..(*self.base).clone()
        }
    }

    pub fn to_json(&self) -> String {
        self.get().to_json()
    }

    /// This offset with the snapshot's progress `mark`, unless it carries
    /// snapshot fields of its own (a snapshot read's).
    pub(crate) fn with_snapshot(self, mark: Option<&SnapshotMark>) -> RecordOffset {
        match mark {
            Some(m) if self.base.snapshot.is_none() => {
                let mut base = (*self.base).clone();
                m.apply(&mut base);
                RecordOffset {
                    base: Arc::new(base),
                    ..self
                }
            }
            _ => self,
        }
    }
}

/// What the engine's encoder gives the engine: records, and the offset
/// after each transaction (or statement) read, so that offsets move on
/// past transactions that gave no record (other tables, filtered ones).
#[derive(Debug)]
pub(crate) enum Output<R> {
    Record(R),
    Progress(RecordOffset),
    /// The records up to the next `Table` or `Progress` are rows of this
    /// table (`schema`, `table`), or (`None`) of none; only while an
    /// initial snapshot runs, which holds back the changes of tables it has
    /// not read yet.
    Table(Option<Arc<(String, String)>>),
}

/// Where a stream resumed inside a transaction: what of that transaction
/// was delivered before (Debezium's `event` and `row` counts). Records of
/// the first transaction read up to there are not delivered again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Delivered {
    pub event: u64,
    pub row: u64,
}

impl Delivered {
    /// Whether the record at `offset` was delivered before.
    pub fn covers(&self, offset: &RecordOffset) -> bool {
        offset.event < self.event || (offset.event == self.event && offset.row <= self.row)
    }
}

/// An encoder (Debezium's, or the typed one), with offsets.
pub(crate) struct OffsetEncoder<E: Encoder> {
    inner: E,
    /// Whether rows are preceded by their table ([`Output::Table`]).
    tag_tables: bool,
    /// The offset of the records of the current transaction, without its
    /// counts.
    txn: Option<Arc<SourceOffset>>,
    scratch: Vec<E::Output>,
}

impl<E: Encoder> OffsetEncoder<E> {
    pub fn new(inner: E) -> Self {
        OffsetEncoder {
            inner,
            tag_tables: false,
            txn: None,
            scratch: Vec::new(),
        }
    }

    /// Precedes the records of each rows event with its table.
    pub fn tagging_tables(mut self) -> Self {
        self.tag_tables = true;
        self
    }

    /// The offset records of the transaction `txn` opened at `file:pos`
    /// carry, counts apart.
    fn transaction_offset(file: &str, pos: u64, txn: &TransactionState) -> SourceOffset {
        SourceOffset {
            file: file.to_string(),
            // MySQL writes a GTID event before BEGIN: a replay of the
            // transaction starts there (a reader started at the BEGIN would
            // take it for the middle of a transaction).
            pos: txn.gtid_event.map_or(pos, |(at, _)| at),
            gtids: gtids(txn),
            ..Default::default()
        }
    }
}

fn gtids(txn: &TransactionState) -> Option<String> {
    (!txn.executed_gtid_set.is_empty()).then(|| txn.executed_gtid_set.clone())
}

impl<E> Encoder for OffsetEncoder<E>
where
    E: Encoder,
    E::Output: Unplaced,
{
    type Output = Output<<E::Output as Unplaced>::Record>;
    type Error = E::Error;

    fn encode(
        &mut self,
        event: &ChangeEvent<'_>,
        out: &mut Vec<Self::Output>,
    ) -> Result<(), Self::Error> {
        let position = *event.position();
        let txn = event.txn();
        self.scratch.clear();
        self.inner.encode(event, &mut self.scratch)?;
        // After a commit, or a statement of its own (DDL): the offset moves
        // past it.
        let after = || {
            RecordOffset::at(Arc::new(SourceOffset {
                file: position.file.to_string(),
                pos: position.next_offset,
                gtids: gtids(txn),
                server_id: u64::from(position.server_id),
                ts_sec: u64::from(position.timestamp),
                ..Default::default()
            }))
        };
        match event {
            ChangeEvent::Commit { .. } => {
                self.txn = None;
                // The executed set includes this transaction now.
                let after = after();
                self.push_all(&after, out);
                out.push(Output::Progress(after));
            }
            ChangeEvent::Statement(_) if !txn.in_transaction => {
                self.txn = None;
                let after = after();
                self.push_all(&after, out);
                out.push(Output::Progress(after));
            }
            _ => {
                if let ChangeEvent::Begin { .. } = event {
                    self.txn = Some(Arc::new(Self::transaction_offset(
                        position.file,
                        position.offset,
                        txn,
                    )));
                }
                if self.scratch.is_empty() {
                    return Ok(());
                }
                let base = match &self.txn {
                    Some(t) => t.clone(),
                    // Rows outside a BEGIN (never from a server writing
                    // transactions): the event itself is the place.
                    None => Arc::new(Self::transaction_offset(
                        position.file,
                        position.offset,
                        txn,
                    )),
                };
                let event_count = txn.events_before;
                if self.tag_tables {
                    out.push(Output::Table(match event {
                        ChangeEvent::Rows(rows) => Some(Arc::new((
                            rows.table.schema().to_string(),
                            rows.table.name().to_string(),
                        ))),
                        _ => None,
                    }));
                }
                for r in self.scratch.drain(..) {
                    let offset = RecordOffset {
                        base: base.clone(),
                        event: event_count,
                        row: r.row() as u64 + 1,
                        server_id: u64::from(position.server_id),
                        ts_sec: u64::from(position.timestamp),
                    };
                    out.push(Output::Record(r.place(offset)));
                }
            }
        }
        Ok(())
    }
}

impl<E> OffsetEncoder<E>
where
    E: Encoder,
    E::Output: Unplaced,
{
    /// The records just encoded, all at `offset`.
    fn push_all(
        &mut self,
        offset: &RecordOffset,
        out: &mut Vec<Output<<E::Output as Unplaced>::Record>>,
    ) {
        if self.tag_tables && !self.scratch.is_empty() {
            out.push(Output::Table(None));
        }
        for r in self.scratch.drain(..) {
            out.push(Output::Record(r.place(offset.clone())));
        }
    }
}
