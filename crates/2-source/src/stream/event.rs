//! The items the stream hands out: events (borrowing the stream's buffers)
//! and owned copies of rows events for other threads.

use std::sync::Arc;

use sluice_binlog::events::EventData;
use sluice_binlog::{DecodeError, FormatDescription, RawEvent, TableMap};

use crate::position::ResumePosition;

/// One item of the stream.
// Events are the common case and live on the stack; boxing them would cost
// an allocation per event.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum StreamItem<'a> {
    Event(Event<'a>),
    /// The connection was lost inside a transaction after some of its events
    /// were delivered. Drop them: the transaction is delivered again, whole,
    /// from `resume`.
    TransactionAborted {
        resume: &'a ResumePosition,
        reason: &'a str,
    },
}

/// A decoded event and where it is.
#[derive(Debug)]
pub struct Event<'a> {
    /// The binlog file the event is in.
    pub file: &'a str,
    /// Its offset; for an event inside a TRANSACTION_PAYLOAD_EVENT, the
    /// payload event's (as `sluice binlog decode` reports them).
    pub pos: u64,
    pub next_pos: u64,
    /// Index inside a TRANSACTION_PAYLOAD_EVENT.
    pub payload_index: Option<usize>,
    pub raw: RawEvent<'a>,
    pub data: EventData<'a>,
    /// Sent by the server for this session (the rotate that names the file,
    /// the format description replayed when starting inside a file), not an
    /// event at this position of the binlog.
    pub artificial: bool,
    /// The GTID of the transaction this event belongs to, if it has one.
    pub gtid: Option<&'a str>,
    /// The first event of a transaction.
    pub starts_transaction: bool,
    /// On the last event of a transaction: the position after it.
    pub ends_transaction: Option<&'a ResumePosition>,
    /// The format description in force for this event.
    pub format: &'a FormatDescription,
}

impl Event<'_> {
    /// Whether the event belongs to a transaction (between its first and last events).
    pub fn in_transaction(&self) -> bool {
        self.gtid.is_some() || self.starts_transaction || self.ends_transaction.is_some()
    }

    /// For a rows event: an owned copy that can be decoded on another thread
    /// (to spread value decoding over several cores). `None` for other events.
    pub fn to_owned_rows(&self) -> Option<OwnedRowsEvent> {
        let EventData::Rows(r) = &self.data else {
            return None;
        };
        let layout = self.raw.header.event_type.rows_layout()?;
        let start = self.raw.body.as_ptr() as usize - self.raw.bytes.as_ptr() as usize;
        Some(OwnedRowsEvent {
            bytes: self.raw.bytes.to_vec(),
            body: start..start + self.raw.body.len(),
            layout,
            post_header_len: self.format.post_header_len(
                self.raw.header.event_type,
                if layout.has_extra_data { 10 } else { 8 },
            ),
            table: r.table.clone(),
            file: self.file.to_string(),
            pos: self.pos,
        })
    }
}

/// A rows event with its bytes and table map, owned and `Send`: decode it
/// with [`OwnedRowsEvent::rows_event`] on any thread.
#[derive(Debug, Clone)]
pub struct OwnedRowsEvent {
    bytes: Vec<u8>,
    body: std::ops::Range<usize>,
    layout: sluice_binlog::event_type::RowsLayout,
    post_header_len: usize,
    table: Arc<TableMap>,
    pub file: String,
    pub pos: u64,
}

impl OwnedRowsEvent {
    /// The decoded event (values are decoded as its rows are read).
    pub fn rows_event(&self) -> std::result::Result<sluice_binlog::RowsEvent<'_>, DecodeError> {
        let table = &self.table;
        sluice_binlog::RowsEvent::parse(
            self.bytes.get(self.body.clone()).unwrap_or(&[]),
            self.layout,
            self.post_header_len,
            |_| Some(table.clone()),
        )
    }

    pub fn table(&self) -> &Arc<TableMap> {
        &self.table
    }
}
