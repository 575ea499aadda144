//! What the reader hands towards the store, in binlog order: entries built
//! already, rows events to build on the build pool, snapshot chunks, and
//! markers; each holding its share of the bytes in flight.

use super::*;

/// What the reader makes of an event: entries, or a rows event whose entry
/// is to be built on another task.
pub(super) enum Work {
    Ready(Box<BuiltEntry>),
    Rows(Box<RowsWork>),
    /// Tells the emitter the source changed server.
    SourceChanged,
    /// A snapshot chunk whose delivery point the stream reached.
    Snapshot(Box<ChunkDelivery>),
}

/// A rows event of a kept table, with all its entry needs: its own copy of
/// the event's bytes, the table as the schema describes it, and a snapshot
/// of the transaction state it was read in.
pub(super) struct RowsWork {
    pub(super) owned: OwnedRowsEvent,
    pub(super) table: Arc<TableMap>,
    pub(super) columns: Option<Arc<[ColumnInfo]>>,
    /// The columns shown, when column filters name the table.
    pub(super) keep: Option<ColumnProjection>,
    pub(super) txn: TransactionState,
    pub(super) gtid_on: bool,
    pub(super) file: String,
    pub(super) pos: u64,
    pub(super) next_pos: u64,
    pub(super) server_id: u32,
    pub(super) timestamp: u32,
}

impl RowsWork {
    /// Builds the entry, serialised too: run on a thread of the build
    /// pool, since the store takes entries one at a time in binlog order and
    /// what is done before is done on every core.
    pub(super) fn build(self) -> Result<(BuiltEntry, EntryBytes), EntryError> {
        let RowsWork {
            owned,
            table,
            columns,
            keep,
            txn,
            gtid_on,
            file,
            pos,
            next_pos,
            server_id,
            timestamp,
        } = self;
        let mut rows = owned.rows_event().map_err(|source| EntryError::Decode {
            file: file.clone(),
            pos,
            source,
        })?;
        rows.table = table;
        let position = Position {
            file: &file,
            offset: pos,
            next_offset: next_pos,
            server_id,
            timestamp,
        };
        let change = RowsChange::new(position, &txn, &rows, columns.as_deref())
            .with_projection(keep.as_ref());
        CanalEncoder::serialised_rows_entry_on_this_thread(gtid_on, &change)
    }
}

impl Work {
    /// About the bytes it holds until it is in the store: entries are
    /// larger than their events (text values, names and types per row).
    pub(super) fn weight(&self) -> usize {
        match self {
            Work::Ready(e) => e.entry.store_value.as_ref().map_or(0, |v| v.len()) + 512,
            Work::Rows(r) => (r.next_pos - r.pos) as usize * 3,
            Work::SourceChanged => 0,
            Work::Snapshot(c) => c.entry.entry.store_value.as_ref().map_or(0, |v| v.len()) + 512,
        }
    }
}

/// An entry on its way from the reader to the store, in binlog order,
/// holding its share of [`IN_FLIGHT_KB`] until it is there.
pub(super) struct Pending {
    pub(super) entry: PendingEntry,
    /// The stream filter version its event was read with.
    pub(super) version: FilterVersion,
    pub(super) _held: OwnedSemaphorePermit,
}

pub(super) enum PendingEntry {
    Ready(Box<BuiltEntry>),
    /// The entry of a rows event, being built and serialised on a thread
    /// of the build pool.
    Building(Built<Result<(BuiltEntry, EntryBytes), EntryError>>),
    /// The entry of a rows event, built on the reader
    /// (`canal.instance.parser.parallel = false`).
    Built(Box<Result<(BuiltEntry, EntryBytes), EntryError>>),
    /// The source moved to another server: positions from here on are
    /// that server's, not comparable with those put before.
    SourceChanged,
    Snapshot(Box<ChunkDelivery>),
}
