//! [`BinlogStream`]: the binlog of a live server, read as a replica, event by
//! event, decoded with `sluice_binlog::Decoder`, for as long as it runs.
//!
//! It tracks transaction boundaries (XID, COMMIT/ROLLBACK, a DDL statement
//! outside a transaction, XA PREPARE / XA COMMIT, MariaDB's standalone GTID
//! groups) and keeps the [`ResumePosition`] after the last complete
//! transaction. When the connection dies (an I/O error, the server closing or
//! killing it, or silence past the read timeout while heartbeats are due) it
//! reconnects with exponential backoff and resumes from that position: no
//! complete transaction is delivered twice and none is lost. If the
//! connection died after some events of a transaction were delivered, the
//! next item is [`StreamItem::TransactionAborted`]: the consumer drops what it
//! holds of that transaction, which is then delivered again from its start.
//!
//! Events borrow from the stream's buffers (no copy of event bytes): an item
//! is valid until the next call to [`BinlogStream::next`].
//!
//! Owns: the dump session, position tracking, start-position resolution,
//! reconnects. Must never: deliver an event of a transaction it skipped,
//! resume from inside a transaction, or retry an error that cannot heal
//! (authentication, configuration, purged positions, corrupt events).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use sluice_binlog::events::{mariadb_gtid_flags, EventData};
use sluice_binlog::framing::frame_one;
use sluice_binlog::gtid::{GtidSet, MariadbGtid, MysqlGtid};
use sluice_binlog::header::version_triplet;
use sluice_binlog::{
    ChecksumAlg, DecodeError, Decoder, EventHeader, EventType, FormatDescription, RawEvent,
    TableMap,
};

use crate::config::SourceConfig;
use crate::conn::{Conn, ConnectOptions, PacketLoc};
use crate::error::{codes, is_purged_message, Result, SourceError};
use crate::failover::{self, FailoverPolicy};
use crate::handshake::ErrPacket;
use crate::position::{
    add_mysql_gtid, parse_mysql_gtid_set, GtidState, MariadbGtidState, ResumePosition,
    StartPosition,
};
use crate::replica::{self, dump_flags, CheckOptions, ServerInfo, SessionOptions};

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

/// How a reconnect finds its place again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ResumeBy {
    FilePos,
    Gtid,
}

/// What happens to events until the stream is at its start.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Skip {
    None,
    /// Started at a file offset: is it a transaction boundary?
    Probe {
        requested: String,
    },
    /// It was not: skip to the start of the next transaction.
    ToNextTransaction {
        requested: String,
    },
    /// Skip transactions that started before this time.
    UntilTime(i64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum TxnGtid {
    None,
    MariaDb(MariadbGtid),
    MySql(MysqlGtid),
}

/// Where the bytes of a pending event are.
#[derive(Debug, Clone, Copy)]
enum Src {
    /// In the connection's buffer: the packet (its first byte is the OK marker).
    Packet(PacketLoc),
    /// In the decompressed transaction payload, at this offset.
    Payload(usize),
    /// A copy, in `BinlogStream::owned` (events read ahead by `connect`).
    Owned(usize),
}

/// An event processed (tracked, skipped or not) and to be handed out.
#[derive(Debug, Clone)]
struct Pending {
    src: Src,
    len: usize,
    header: EventHeader,
    body_start: usize,
    body_end: usize,
    pos: u64,
    next_pos: u64,
    payload_index: Option<usize>,
    artificial: bool,
    starts: bool,
    ends: bool,
    in_txn: bool,
    in_prev_file: bool,
    table: Option<Arc<TableMap>>,
}

#[derive(Debug, Clone, Copy)]
struct PayloadCursor {
    at: usize,
    index: usize,
    pos: u64,
    next_pos: u64,
}

enum Ready {
    Event(Pending),
    Aborted,
    End,
}

/// What an event does to the transaction tracker.
#[derive(Debug)]
enum Effect {
    /// A GTID event: a transaction starts.
    Gtid(TxnGtid, bool),
    QueryBegin,
    QueryEnd,
    QueryOther,
    /// XID, XA_PREPARE: the transaction ends.
    End,
    /// An event that belongs inside a transaction.
    InTxn,
    Rotate(String, u64),
    Heartbeat,
    BaseMysql(GtidSet),
    BaseMariadb(Vec<MariadbGtid>),
    /// Outside transactions (format description, checkpoints, stop, ...).
    Meta,
}

/// The per-stream decoding and tracking state (everything but the socket).
struct State {
    addr: String,
    format: FormatDescription,
    seen_fde: bool,
    gtid_era: bool,
    decoder: Decoder,
    file: String,
    prev_file: String,
    /// Offset of the next event in `file`.
    offset: u64,
    committed: ResumePosition,
    gtid: Option<GtidState>,
    in_txn: bool,
    began: bool,
    txn_gtid: TxnGtid,
    txn_gtid_text: String,
    delivered_in_txn: bool,
    skip: Skip,
    payload_buf: Vec<u8>,
    payload: Option<PayloadCursor>,
    heartbeats: u64,
}

fn classify_query(q: &[u8]) -> Effect {
    let start = q
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(q.len());
    let q = &q[start..];
    let word = |w: &[u8], at: usize| -> bool {
        q.len() >= at + w.len()
            && q[at..at + w.len()].eq_ignore_ascii_case(w)
            && q.get(at + w.len())
                .is_none_or(|c| c.is_ascii_whitespace() || *c == b';' || *c == b'\'' || *c == b'/')
    };
    if word(b"BEGIN", 0) {
        return Effect::QueryBegin;
    }
    if word(b"COMMIT", 0) {
        return Effect::QueryEnd;
    }
    if word(b"ROLLBACK", 0) {
        // ROLLBACK TO SAVEPOINT stays inside the transaction.
        let rest = &q[8..];
        let rest = &rest[rest
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(rest.len())..];
        let to = rest.len() >= 2
            && rest[..2].eq_ignore_ascii_case(b"TO")
            && rest.get(2).is_none_or(|c| c.is_ascii_whitespace());
        return if to {
            Effect::QueryOther
        } else {
            Effect::QueryEnd
        };
    }
    if word(b"XA", 0) {
        let rest = &q[2..];
        let k = rest
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(rest.len());
        let at = 2 + k;
        if word(b"START", at) || word(b"BEGIN", at) {
            return Effect::QueryBegin;
        }
        if word(b"COMMIT", at) || word(b"ROLLBACK", at) || word(b"PREPARE", at) {
            return Effect::QueryEnd;
        }
    }
    Effect::QueryOther
}

/// MariaDB 10+ and MySQL 5.7+ start every transaction with a GTID event.
fn is_gtid_era(version: &str) -> bool {
    let v = version_triplet(version);
    if version.contains("MariaDB") {
        v >= (10, 0, 0)
    } else {
        v >= (5, 7, 0)
    }
}

impl State {
    fn new(addr: String) -> State {
        State {
            addr,
            format: FormatDescription::default(),
            seen_fde: false,
            gtid_era: true,
            decoder: Decoder::new(),
            file: String::new(),
            prev_file: String::new(),
            offset: 4,
            committed: ResumePosition {
                file: String::new(),
                offset: 4,
                gtid: None,
                server_id: 0,
                timestamp: 0,
            },
            gtid: None,
            in_txn: false,
            began: false,
            txn_gtid: TxnGtid::None,
            txn_gtid_text: String::new(),
            delivered_in_txn: false,
            skip: Skip::None,
            payload_buf: Vec::new(),
            payload: None,
            heartbeats: 0,
        }
    }

    /// Resets what a new dump session resends.
    fn new_session(&mut self) {
        self.format = FormatDescription {
            // Events before the first FORMAT_DESCRIPTION_EVENT (the rotate that
            // names the file) carry a checksum when the server uses them; the
            // framer falls back to none if the CRC does not match.
            checksum: ChecksumAlg::Crc32,
            ..FormatDescription::default()
        };
        self.seen_fde = false;
        self.decoder = Decoder::new();
        self.in_txn = false;
        self.began = false;
        self.txn_gtid = TxnGtid::None;
        self.delivered_in_txn = false;
        self.payload = None;
    }

    fn decode_error(&self, pos: u64, event: &'static str, error: DecodeError) -> SourceError {
        SourceError::Decode {
            addr: self.addr.clone(),
            file: self.file.clone(),
            pos,
            event,
            error,
        }
    }

    fn start_txn(&mut self, gtid: TxnGtid) {
        self.in_txn = true;
        self.began = false;
        self.delivered_in_txn = false;
        self.txn_gtid_text.clear();
        match &gtid {
            TxnGtid::None => {}
            TxnGtid::MariaDb(g) => self.txn_gtid_text = g.to_string(),
            TxnGtid::MySql(g) => self.txn_gtid_text = g.to_string(),
        }
        self.txn_gtid = gtid;
    }

    fn end_txn(&mut self, h: &EventHeader, next_pos: u64) {
        self.in_txn = false;
        self.began = false;
        match std::mem::replace(&mut self.txn_gtid, TxnGtid::None) {
            TxnGtid::None => {}
            TxnGtid::MariaDb(g) => match &mut self.gtid {
                Some(GtidState::MariaDb(s)) => s.update(g),
                _ => {
                    let mut s = MariadbGtidState::default();
                    s.update(g);
                    self.gtid = Some(GtidState::MariaDb(s));
                }
            },
            TxnGtid::MySql(g) => {
                if let Some(GtidState::MySql(set)) = &mut self.gtid {
                    add_mysql_gtid(set, &g);
                }
            }
        }
        self.committed = ResumePosition {
            file: self.file.clone(),
            offset: next_pos,
            gtid: self.gtid.clone(),
            server_id: h.server_id,
            timestamp: h.timestamp,
        };
    }

    /// Frames, tracks and (for all but rows events) decodes one event.
    /// Returns it if it is to be delivered.
    fn process(
        &mut self,
        bytes: &[u8],
        src: Src,
        parent: Option<PayloadCursor>,
    ) -> Result<Option<Pending>> {
        let in_payload = parent.is_some();
        let raw = self.frame(bytes, in_payload)?;
        let h = raw.header;
        let t = h.event_type;
        let (pos, next_pos, artificial) = self.event_place(&h, parent);
        let (effect, table) = self.effect_of(&raw, pos, next_pos, in_payload)?;
        let Some(marks) = self.track(effect, pos, artificial) else {
            return Ok(None);
        };
        if !in_payload && !artificial && t != EventType::ROTATE {
            self.offset = next_pos;
        }
        let was_in_txn = self.in_txn || marks.ends;
        if marks.ends {
            self.end_txn(&h, next_pos);
        } else if marks.meta
            && !self.in_txn
            && !artificial
            && !in_payload
            && !matches!(t, EventType::ROTATE)
        {
            self.committed.offset = next_pos;
            self.committed.file = self.file.clone();
        }
        if !self.deliver(&marks, &h, pos, t.name()) {
            return Ok(None);
        }
        if was_in_txn {
            self.delivered_in_txn = !marks.ends;
        }
        let body_start = raw.body.as_ptr() as usize - raw.bytes.as_ptr() as usize;
        Ok(Some(Pending {
            src,
            len: raw.bytes.len(),
            header: h,
            body_start,
            body_end: body_start + raw.body.len(),
            pos,
            next_pos,
            payload_index: parent.map(|p| p.index),
            artificial,
            starts: marks.starts,
            ends: marks.ends,
            in_txn: was_in_txn,
            in_prev_file: marks.in_prev_file,
            table,
        }))
    }

    /// Frames one event with the format in force (no checksum inside a
    /// transaction payload; before the first format description, without one
    /// if the checksum does not match) and checks it fills its packet.
    #[inline]
    fn frame<'b>(&self, bytes: &'b [u8], in_payload: bool) -> Result<RawEvent<'b>> {
        let mut fmt_storage;
        let fmt = if in_payload {
            fmt_storage = self.format.clone();
            fmt_storage.checksum = ChecksumAlg::None;
            &fmt_storage
        } else {
            &self.format
        };
        let raw = match frame_one(bytes, 0, fmt) {
            Ok(r) => r,
            Err(DecodeError::ChecksumMismatch { .. }) if !self.seen_fde && !in_payload => {
                fmt_storage = self.format.clone();
                fmt_storage.checksum = ChecksumAlg::None;
                frame_one(bytes, 0, &fmt_storage)
                    .map_err(|e| self.decode_error(self.offset, "event header", e))?
            }
            Err(e) => return Err(self.decode_error(self.offset, "event header", e)),
        };
        if !in_payload && raw.bytes.len() != bytes.len() {
            return Err(SourceError::Protocol {
                addr: self.addr.clone(),
                during: "binlog stream",
                detail: format!(
                    "{}:{}: event size {} but the packet carries {} bytes",
                    self.file,
                    self.offset,
                    raw.bytes.len(),
                    bytes.len()
                ),
            });
        }
        Ok(raw)
    }

    /// The event's offset, the offset after it, and whether the server made
    /// it up for this session (heartbeats, events without a position).
    #[inline]
    fn event_place(&self, h: &EventHeader, parent: Option<PayloadCursor>) -> (u64, u64, bool) {
        let t = h.event_type;
        match parent {
            Some(p) => (p.pos, p.next_pos, false),
            None if h.log_pos == 0 || t == EventType::HEARTBEAT || t == EventType::HEARTBEAT_V2 => {
                (self.offset, self.offset, true)
            }
            None => {
                let next = u64::from(h.log_pos);
                (next.saturating_sub(u64::from(h.event_size)), next, false)
            }
        }
    }

    /// Decodes the event (not a rows event: those are decoded when handed
    /// out) into what it does to the tracker, with its table map if it is one.
    #[inline]
    fn effect_of(
        &mut self,
        raw: &RawEvent<'_>,
        pos: u64,
        next_pos: u64,
        in_payload: bool,
    ) -> Result<(Effect, Option<Arc<TableMap>>)> {
        let t = raw.header.event_type;
        if t.rows_layout().is_some() {
            return Ok((Effect::InTxn, None));
        }
        let name = t.name();
        let mut table = None;
        let data = self
            .decoder
            .decode(raw)
            .map_err(|e| self.decode_error(pos, name, e))?;
        let effect = match data {
            EventData::FormatDescription(f) => {
                if !in_payload {
                    self.gtid_era = is_gtid_era(&f.server_version);
                    self.format = f;
                    self.seen_fde = true;
                }
                Effect::Meta
            }
            EventData::Rotate(r) => Effect::Rotate(
                String::from_utf8_lossy(r.next_file).into_owned(),
                r.position,
            ),
            EventData::Heartbeat(_) => Effect::Heartbeat,
            EventData::MariadbGtid(g) => Effect::Gtid(
                TxnGtid::MariaDb(g.gtid),
                g.flags & mariadb_gtid_flags::STANDALONE != 0,
            ),
            EventData::Gtid(g) => Effect::Gtid(
                if g.anonymous {
                    TxnGtid::None
                } else {
                    TxnGtid::MySql(g.gtid)
                },
                false,
            ),
            EventData::Query(q) => classify_query(&q.query),
            EventData::Xid(_) | EventData::XaPrepare(_) => Effect::End,
            EventData::TableMap(tm) => {
                table = Some(tm);
                Effect::InTxn
            }
            EventData::PreviousGtids(s) => Effect::BaseMysql(s),
            EventData::MariadbGtidList(l) => Effect::BaseMariadb(l),
            EventData::TransactionPayload(p) => {
                let inner = p
                    .decompress()
                    .map_err(|e| self.decode_error(pos, name, e))?;
                self.payload_buf = inner;
                self.payload = Some(PayloadCursor {
                    at: 0,
                    index: 0,
                    pos,
                    next_pos,
                });
                Effect::InTxn
            }
            EventData::Incident { kind, message } => {
                tracing::warn!(
                    source = %self.addr,
                    at = %format!("{}:{pos}", self.file),
                    kind,
                    message = %String::from_utf8_lossy(message),
                    "INCIDENT event: the server reports that changes may be missing from its binlog here"
                );
                Effect::Meta
            }
            EventData::Other(_)
                if matches!(t, EventType::VIEW_CHANGE | EventType::TRANSACTION_CONTEXT) =>
            {
                Effect::Meta
            }
            EventData::RowsQuery(_)
            | EventData::Intvar { .. }
            | EventData::Rand { .. }
            | EventData::UserVar(_)
            | EventData::Other(_) => Effect::InTxn,
            EventData::Rows(_) => Effect::InTxn,
            EventData::StartV3(_)
            | EventData::Stop
            | EventData::BinlogCheckpoint(_)
            | EventData::StartEncryption { .. }
            | EventData::Ignorable(_) => Effect::Meta,
        };
        Ok((effect, table))
    }

    /// Applies an event's effect to the transaction tracker and the
    /// position; `None` for a heartbeat, which is counted and not delivered.
    #[inline]
    fn track(&mut self, effect: Effect, pos: u64, artificial: bool) -> Option<Marks> {
        let mut marks = Marks::default();
        match effect {
            Effect::Gtid(g, standalone) => {
                // MariaDB writes no BEGIN: the GTID event of a transaction
                // opens it, and only a standalone group (DDL) ends at its
                // statement. MySQL writes BEGIN after its GTID event.
                let opens = matches!(g, TxnGtid::MariaDb(_)) && !standalone;
                if self.in_txn {
                    tracing::warn!(
                        source = %self.addr,
                        at = %format!("{}:{pos}", self.file),
                        "a new transaction starts before the previous one ended; the previous one is dropped"
                    );
                }
                self.start_txn(g);
                self.began = opens;
                marks.starts = true;
                marks.proper = true;
            }
            Effect::QueryBegin => {
                if !self.in_txn {
                    self.start_txn(TxnGtid::None);
                    marks.starts = true;
                    marks.proper = !self.gtid_era;
                }
                self.began = true;
            }
            Effect::QueryEnd | Effect::End => {
                if !self.in_txn {
                    self.start_txn(TxnGtid::None);
                    marks.starts = true;
                }
                marks.ends = true;
            }
            Effect::QueryOther => {
                if !self.in_txn {
                    // A statement of its own (DDL).
                    self.start_txn(TxnGtid::None);
                    marks.starts = true;
                    marks.proper = !self.gtid_era;
                    marks.ends = true;
                } else if !self.began {
                    // The statement of a GTID group without BEGIN (DDL).
                    marks.ends = true;
                }
            }
            Effect::InTxn => {
                if !self.in_txn {
                    self.start_txn(TxnGtid::None);
                    marks.starts = true;
                }
            }
            Effect::Rotate(file, position) => {
                marks.meta = true;
                marks.in_prev_file = !artificial;
                self.prev_file = std::mem::replace(&mut self.file, file);
                self.offset = position;
                if !self.in_txn {
                    self.committed.file = self.file.clone();
                    self.committed.offset = position;
                }
            }
            Effect::Heartbeat => {
                self.heartbeats += 1;
                return None;
            }
            Effect::BaseMysql(set) => {
                marks.meta = true;
                if self.gtid.is_none() {
                    self.gtid = Some(GtidState::MySql(set));
                    self.committed.gtid = self.gtid.clone();
                }
            }
            Effect::BaseMariadb(list) => {
                marks.meta = true;
                if self.gtid.is_none() && !list.is_empty() {
                    let mut s = MariadbGtidState::default();
                    for g in list {
                        s.update(g);
                    }
                    self.gtid = Some(GtidState::MariaDb(s));
                    self.committed.gtid = self.gtid.clone();
                }
            }
            Effect::Meta => marks.meta = true,
        }
        Some(marks)
    }

    /// Whether the event is delivered, by the skip rule of the start
    /// position (which it may end).
    #[inline]
    fn deliver(&mut self, marks: &Marks, h: &EventHeader, pos: u64, name: &str) -> bool {
        match &self.skip {
            Skip::None => true,
            Skip::Probe { requested } => {
                if marks.meta {
                    true
                } else if marks.starts && marks.proper {
                    self.skip = Skip::None;
                    true
                } else {
                    tracing::warn!(
                        source = %self.addr,
                        requested = %requested,
                        "the start position is inside a transaction (the event there is a {name}); skipping to the start of the next transaction"
                    );
                    self.skip = Skip::ToNextTransaction {
                        requested: requested.clone(),
                    };
                    false
                }
            }
            Skip::ToNextTransaction { requested } => {
                if marks.starts && marks.proper {
                    tracing::warn!(
                        source = %self.addr,
                        requested = %requested,
                        start = %format!("{}:{pos}", self.file),
                        "skipped to the next transaction boundary; streaming starts here"
                    );
                    self.skip = Skip::None;
                    true
                } else {
                    false
                }
            }
            Skip::UntilTime(at) => {
                if marks.starts && marks.proper && i64::from(h.timestamp) >= *at {
                    tracing::info!(
                        source = %self.addr,
                        start = %format!("{}:{pos}", self.file),
                        "first transaction at or after the requested time; streaming starts here"
                    );
                    self.skip = Skip::None;
                    true
                } else {
                    false
                }
            }
        }
    }
}

/// What tracking made of one event.
#[derive(Debug, Clone, Copy, Default)]
struct Marks {
    /// The first event of a transaction.
    starts: bool,
    /// It starts the transaction properly (its GTID event, or BEGIN before
    /// GTIDs): a place where a stream may start.
    proper: bool,
    /// The last event of a transaction.
    ends: bool,
    /// An event outside transactions.
    meta: bool,
    /// A rotate read from the previous file.
    in_prev_file: bool,
}

/// The binlog of a live MySQL or MariaDB server, read as a replica.
pub struct BinlogStream {
    config: SourceConfig,
    conn: Option<Conn>,
    st: State,
    server_id: u32,
    info: Option<ServerInfo>,
    resume_by: ResumeBy,
    /// The first dump's request, for messages and GTID-mode restarts.
    requested: String,
    started: bool,
    attempts: u32,
    reconnects: u64,
    pending_abort: bool,
    abort_reason: String,
    /// Events processed but not handed out yet.
    stash: VecDeque<Pending>,
    /// Copies of stashed events whose packet buffer was reused.
    owned: Vec<Vec<u8>>,
    ended: bool,
    /// Since when the source has been unreachable (the first failure of a
    /// run of reconnects), for the failover policy.
    lost_since: Option<Instant>,
    /// Failovers to another server so far.
    failovers: u64,
}

impl std::fmt::Debug for BinlogStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BinlogStream")
            .field("source", &self.st.addr)
            .field("server_id", &self.server_id)
            .field("position", &self.st.committed)
            .finish_non_exhaustive()
    }
}

impl BinlogStream {
    /// Connects, checks the server, resolves the start position, starts the
    /// dump and waits for the server's first answer. Errors here are returned
    /// as they are (no retry): a wrong address, password, setting or start
    /// position shows at once.
    pub async fn connect(config: SourceConfig) -> Result<BinlogStream> {
        let addr = config.connect.addr();
        if config.connect.read_timeout <= config.heartbeat_period {
            return Err(SourceError::Config(format!(
                "the read timeout ({:?}) must be longer than the heartbeat period ({:?}), or every quiet moment looks like a dead connection",
                config.connect.read_timeout, config.heartbeat_period
            )));
        }
        let mut s = BinlogStream {
            conn: None,
            st: State::new(addr),
            server_id: config.server_id.unwrap_or(0),
            info: None,
            resume_by: ResumeBy::FilePos,
            requested: config.start.to_string(),
            started: false,
            attempts: 0,
            reconnects: 0,
            pending_abort: false,
            abort_reason: String::new(),
            stash: VecDeque::new(),
            owned: Vec::new(),
            ended: false,
            lost_since: None,
            failovers: 0,
            config,
        };
        if let Err(e) = s.open().await {
            // A start by GTID (a cursor carries one when failover is set
            // up) holds on any server that has it: with the source down,
            // the candidates are asked at once.
            if !e.is_transient() || !s.start_on_candidate().await {
                return Err(e);
            }
        }
        // The server refuses a start position (purged, past the end) in
        // answer to the dump, after the rotate that names the file: read up
        // to the format description (the file opened) here, so that such an
        // error comes from `connect`. The events read are handed out by `next`.
        loop {
            match s.read_event().await {
                Ok(Some(mut p)) => {
                    let fde = p.header.event_type == EventType::FORMAT_DESCRIPTION;
                    let real = !p.artificial;
                    s.own(&mut p);
                    s.stash.push_back(p);
                    if fde || real {
                        break;
                    }
                }
                Ok(None) if s.st.seen_fde => break,
                Ok(None) => {}
                Err(ReadError::End) => {
                    s.ended = true;
                    break;
                }
                Err(ReadError::Failed(e)) => return Err(e),
            }
        }
        Ok(s)
    }

    /// The position after the last complete transaction: where a new stream
    /// (or this one, after a reconnect) resumes.
    pub fn position(&self) -> &ResumePosition {
        &self.st.committed
    }

    /// The server id this replica uses.
    pub fn server_id(&self) -> u32 {
        self.server_id
    }

    /// What the checks learnt about the source.
    pub fn server_info(&self) -> Option<&ServerInfo> {
        self.info.as_ref()
    }

    /// The server's id of the current dump connection (its `SHOW PROCESSLIST` Id).
    pub fn connection_id(&self) -> Option<u32> {
        self.conn.as_ref().map(Conn::connection_id)
    }

    /// Whether the current connection is encrypted.
    pub fn is_tls(&self) -> bool {
        self.conn.as_ref().is_some_and(Conn::is_tls)
    }

    /// Heartbeats received so far.
    pub fn heartbeats(&self) -> u64 {
        self.st.heartbeats
    }

    /// Successful reconnects so far.
    pub fn reconnects(&self) -> u64 {
        self.reconnects
    }

    /// Failovers to another server so far (see [`crate::failover`]).
    pub fn failovers(&self) -> u64 {
        self.failovers
    }

    /// The address of the server being followed (it changes on a failover).
    pub fn source_addr(&self) -> &str {
        &self.st.addr
    }

    /// The next item; `None` only when `stop_at_end` is set and the end of
    /// the binlog was reached. Transient failures are retried inside (see the
    /// module documentation); an error returned here is final.
    pub async fn next(&mut self) -> Result<Option<StreamItem<'_>>> {
        match self.advance().await? {
            Ready::End => Ok(None),
            Ready::Aborted => Ok(Some(StreamItem::TransactionAborted {
                resume: &self.st.committed,
                reason: &self.abort_reason,
            })),
            Ready::Event(p) => self.build(p).map(|e| Some(StreamItem::Event(e))),
        }
    }

    fn build(&mut self, p: Pending) -> Result<Event<'_>> {
        let BinlogStream {
            conn, st, owned, ..
        } = self;
        let bytes: &[u8] = match p.src {
            Src::Packet(loc) => {
                let c = conn.as_ref().ok_or_else(|| SourceError::Protocol {
                    addr: st.addr.clone(),
                    during: "binlog stream",
                    detail: "no connection".into(),
                })?;
                let packet = c.payload(loc);
                packet.get(1..1 + p.len).unwrap_or(&[])
            }
            Src::Payload(at) => st.payload_buf.get(at..at + p.len).unwrap_or(&[]),
            Src::Owned(i) => owned.get(i).map(Vec::as_slice).unwrap_or(&[]),
        };
        let raw = RawEvent {
            pos: p.pos,
            header: p.header,
            body: bytes.get(p.body_start..p.body_end).unwrap_or(&[]),
            bytes,
        };
        let data = match p.table {
            Some(t) => EventData::TableMap(t),
            None => st.decoder.decode(&raw).map_err(|e| SourceError::Decode {
                addr: st.addr.clone(),
                file: st.file.clone(),
                pos: p.pos,
                event: p.header.event_type.name(),
                error: e,
            })?,
        };
        Ok(Event {
            file: if p.in_prev_file {
                &st.prev_file
            } else {
                &st.file
            },
            pos: p.pos,
            next_pos: p.next_pos,
            payload_index: p.payload_index,
            raw,
            data,
            artificial: p.artificial,
            gtid: if p.in_txn && !st.txn_gtid_text.is_empty() {
                Some(&st.txn_gtid_text)
            } else {
                None
            },
            starts_transaction: p.starts,
            ends_transaction: if p.ends { Some(&st.committed) } else { None },
            format: st.decoder.format(),
        })
    }

    async fn advance(&mut self) -> Result<Ready> {
        loop {
            if self.pending_abort {
                self.pending_abort = false;
                return Ok(Ready::Aborted);
            }
            if let Some(p) = self.stash.pop_front() {
                return Ok(Ready::Event(p));
            }
            self.owned.clear();
            if self.ended {
                return Ok(Ready::End);
            }
            if let Some(cursor) = self.st.payload {
                let buf = std::mem::take(&mut self.st.payload_buf);
                let res = self.next_inner(&buf, cursor);
                self.st.payload_buf = buf;
                match res? {
                    Some(p) => return Ok(Ready::Event(p)),
                    None => continue,
                }
            }
            if self.conn.is_none() {
                match self.open().await {
                    Ok(()) => {}
                    Err(e) if e.is_transient() => {
                        self.lost_since.get_or_insert_with(Instant::now);
                        if self.fail_over().await {
                            continue;
                        }
                        self.backoff(e).await?;
                        continue;
                    }
                    Err(e) => return Err(e),
                }
            }
            match self.read_event().await {
                Ok(Some(p)) => {
                    self.attempts = 0;
                    return Ok(Ready::Event(p));
                }
                Ok(None) => continue,
                Err(ReadError::End) => {
                    self.ended = true;
                    self.conn = None;
                    return Ok(Ready::End);
                }
                Err(ReadError::Failed(e)) if e.is_transient() => {
                    self.lost(&e);
                    self.backoff(e).await?;
                }
                Err(ReadError::Failed(e)) => {
                    self.conn = None;
                    return Err(e);
                }
            }
        }
    }

    /// Copies a stashed event out of the packet buffer.
    fn own(&mut self, p: &mut Pending) {
        if let (Src::Packet(loc), Some(conn)) = (p.src, self.conn.as_ref()) {
            let bytes = conn.payload(loc).get(1..1 + p.len).unwrap_or(&[]).to_vec();
            self.owned.push(bytes);
            p.src = Src::Owned(self.owned.len() - 1);
        }
    }

    /// The next event inside a transaction payload.
    fn next_inner(&mut self, buf: &[u8], mut cursor: PayloadCursor) -> Result<Option<Pending>> {
        let rest = buf.get(cursor.at..).unwrap_or(&[]);
        if rest.is_empty() {
            self.st.payload = None;
            return Ok(None);
        }
        let at = cursor.at;
        let res = self.st.process(rest, Src::Payload(at), Some(cursor));
        let len = match &res {
            Ok(Some(p)) => p.len,
            _ => rest
                .get(9..13)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                .unwrap_or(rest.len()),
        };
        cursor.at += len.max(1);
        cursor.index += 1;
        self.st.payload = if cursor.at < buf.len() {
            Some(cursor)
        } else {
            None
        };
        res
    }

    async fn read_event(&mut self) -> std::result::Result<Option<Pending>, ReadError> {
        let Some(conn) = self.conn.as_mut() else {
            return Ok(None);
        };
        let loc = conn.read_packet_loc("binlog stream").await?;
        let packet = conn.payload(loc);
        match packet.first() {
            Some(0x00) => {}
            // The end of the binlog, as asked for with NON_BLOCK.
            Some(0xfe) if packet.len() < 9 && self.config.stop_at_end => {
                return Err(ReadError::End)
            }
            // A waiting dump only ends like this when the server ends it
            // (shutdown, KILL): reconnect.
            Some(0xfe) if packet.len() < 9 => {
                return Err(ReadError::Failed(SourceError::Closed {
                    addr: self.st.addr.clone(),
                    during: "binlog stream: the server ended the dump",
                }))
            }
            Some(0xff) => {
                let e = ErrPacket::parse(packet).map_err(|e| SourceError::Protocol {
                    addr: self.st.addr.clone(),
                    during: "binlog stream",
                    detail: e.to_string(),
                })?;
                return Err(ReadError::Failed(self.dump_error(e).await));
            }
            _ => {
                return Err(ReadError::Failed(SourceError::Protocol {
                    addr: self.st.addr.clone(),
                    during: "binlog stream",
                    detail: format!(
                        "unexpected packet type 0x{:02x} in the binlog stream",
                        packet.first().copied().unwrap_or(0)
                    ),
                }))
            }
        }
        let was_in_txn = self.st.in_txn && self.st.delivered_in_txn;
        let p = self.st.process(&packet[1..], Src::Packet(loc), None)?;
        if let Some(p) = &p {
            // A transaction that never ended, superseded by a new one: the
            // consumer drops what it holds before seeing the new start.
            if was_in_txn && p.starts && self.st.skip == Skip::None {
                self.abort_reason =
                    "a new transaction started before the previous one ended".into();
                self.pending_abort = true;
                self.stash.push_back(p.clone());
                return Ok(None);
            }
        }
        Ok(p)
    }

    /// Maps an error packet of the dump to a clear error.
    async fn dump_error(&mut self, e: ErrPacket) -> SourceError {
        let addr = self.st.addr.clone();
        if e.code == codes::FATAL_READING_BINLOG && is_purged_message(&e.message) {
            let oldest = match Conn::connect(&self.config.connect).await {
                Ok(mut c) => replica::oldest_available(&mut c)
                    .await
                    .unwrap_or_else(|err| format!("unknown ({err})")),
                Err(err) => format!("unknown ({err})"),
            };
            return SourceError::PositionPurged {
                addr,
                requested: self.dump_request_text(),
                oldest,
                server_message: e.message,
            };
        }
        let lower = e.message.to_ascii_lowercase();
        if e.code == codes::FATAL_READING_BINLOG
            && (lower.contains("position > file size") || lower.contains("impossible position"))
        {
            return SourceError::InvalidStart {
                addr,
                requested: self.dump_request_text(),
                detail: format!(
                    "the offset is past the end of the file or not where an event starts; use an offset from SHOW BINARY LOGS / SHOW MASTER STATUS or a position Sluice reported (server said: {})",
                    e.message
                ),
            };
        }
        if e.code == codes::FATAL_READING_BINLOG
            && lower.contains("which is not in the master's binlog")
        {
            return SourceError::InvalidStart {
                addr,
                requested: self.dump_request_text(),
                detail: format!(
                    "the GTID position is not in this server's binlog (ahead of it, or from another server's history); check @@gtid_binlog_pos on the server (server said: {})",
                    e.message
                ),
            };
        }
        SourceError::server(
            addr,
            format!("binlog dump from {}", self.dump_request_text()),
            e,
        )
    }

    fn dump_request_text(&self) -> String {
        match self.resume_by {
            ResumeBy::Gtid => match &self.st.gtid {
                Some(g) => format!("gtid:{g}"),
                None => self.requested.clone(),
            },
            ResumeBy::FilePos if self.started && !self.st.committed.file.is_empty() => {
                format!("{}:{}", self.st.committed.file, self.st.committed.offset)
            }
            ResumeBy::FilePos => self.requested.clone(),
        }
    }

    /// The connection is gone: forget it and tell the consumer to drop a
    /// partly delivered transaction.
    fn lost(&mut self, e: &SourceError) {
        self.conn = None;
        self.lost_since.get_or_insert_with(Instant::now);
        self.stash.clear();
        if self.st.in_txn && self.st.delivered_in_txn {
            self.pending_abort = true;
            self.abort_reason = e.to_string();
        }
        self.st.in_txn = false;
        self.st.payload = None;
    }

    async fn backoff(&mut self, e: SourceError) -> Result<()> {
        self.attempts += 1;
        let policy = self.config.reconnect;
        if let Some(max) = policy.max_attempts {
            if self.attempts > max {
                return Err(SourceError::ReconnectsExhausted {
                    addr: self.st.addr.clone(),
                    attempts: self.attempts - 1,
                    last: Box::new(e),
                });
            }
        }
        let exp = policy
            .initial_backoff
            .saturating_mul(1u32 << (self.attempts - 1).min(20));
        let base = exp.min(policy.max_backoff);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let jitter = base / 4 * (nanos % 1000) / 1000;
        let delay = base + jitter;
        tracing::warn!(
            source = %self.st.addr,
            error = %e,
            attempt = self.attempts,
            delay_ms = delay.as_millis() as u64,
            resume = %self.st.committed,
            "replication connection lost; reconnecting"
        );
        tokio::time::sleep(delay).await;
        Ok(())
    }

    /// Connects, checks, sets the session up and starts the dump (the first
    /// time from the configured start, later from the last boundary).
    async fn open(&mut self) -> Result<()> {
        if let Some(gate) = &self.config.connect_gate {
            if !gate.allows() {
                return Err(SourceError::Refused {
                    addr: self.st.addr.clone(),
                });
            }
        }
        let mut conn = Conn::connect(&self.config.connect).await?;
        let info = replica::check_server(
            &mut conn,
            CheckOptions {
                row_images: self.config.row_images.clone(),
                names_from_schema: self.config.names_from_schema,
            },
        )
        .await?;
        if self.server_id == 0 {
            self.server_id = match &self.config.server_id_seed {
                Some(seed) => replica::shared_server_id(seed, &[info.server_id]),
                None => replica::derive_server_id(
                    &replica::local_host_name(),
                    conn.local_addr(),
                    std::process::id(),
                    &[info.server_id],
                ),
            };
        } else if self.server_id == info.server_id && self.config.server_id.is_some() {
            return Err(SourceError::Config(format!(
                "serverId {} is the source's own server_id; give Sluice another (unique) one",
                self.server_id
            )));
        }
        if self.started {
            self.check_same_server(&mut conn, &info).await?;
        }
        let (dump, mariadb_state) = if self.started {
            self.resume_request(&info)?
        } else {
            self.first_request(&mut conn, &info).await?
        };
        replica::setup_session(
            &mut conn,
            &SessionOptions {
                heartbeat_period: self.config.heartbeat_period,
                mariadb_connect_state: mariadb_state,
            },
        )
        .await?;
        replica::register_replica(&mut conn, self.server_id, &replica::local_host_name()).await?;
        conn.write_command(&dump, "COM_BINLOG_DUMP").await?;
        conn.set_read_timeout(
            self.config.connect.read_timeout,
            self.config.heartbeat_period,
        );
        tracing::info!(
            source = %self.st.addr,
            server = %info.version,
            server_id = self.server_id,
            tls = conn.is_tls(),
            from = %self.dump_request_text(),
            "replication dump started"
        );
        if self.started {
            self.reconnects += 1;
        }
        self.lost_since = None;
        self.st.gtid_era = is_gtid_era(&info.version);
        self.info = Some(info);
        self.st.new_session();
        self.conn = Some(conn);
        self.started = true;
        Ok(())
    }

    /// On a reconnect: if another server answers at the address (its
    /// server id changed: a virtual IP moved, a replica was promoted in
    /// place), file offsets of the old one mean nothing there. Resume by
    /// GTID if it has every transaction read so far, else wait for it.
    async fn check_same_server(&mut self, conn: &mut Conn, info: &ServerInfo) -> Result<()> {
        let Some(was) = self.info.as_ref().map(|i| i.server_id) else {
            return Ok(());
        };
        if was == info.server_id || self.resume_by == ResumeBy::Gtid {
            return Ok(());
        }
        let Some(ours) = self.st.committed.gtid.clone() else {
            return Err(SourceError::Config(format!(
                "{} is now another server (server_id {was} before, {} now) and no GTID state is known to resume there; start from a position on the new server",
                self.st.addr, info.server_id
            )));
        };
        if let Some(detail) = failover::check_candidate(conn, info, &ours, false).await? {
            return Err(SourceError::NotCaughtUp {
                addr: self.st.addr.clone(),
                was,
                now: info.server_id,
                detail,
            });
        }
        tracing::info!(
            source = %self.st.addr,
            was_server_id = was,
            server_id = info.server_id,
            gtid = %ours,
            "another server answers at the source's address; resuming there by GTID"
        );
        self.resume_by = ResumeBy::Gtid;
        self.st.gtid = Some(ours);
        self.failovers += 1;
        Ok(())
    }

    /// When the source has been lost for longer than the failover policy
    /// allows: the first candidate that has every transaction read so far
    /// becomes the source, resumed by GTID. True when one did; candidates
    /// that are unreachable or behind are logged and tried again next time.
    async fn fail_over(&mut self) -> bool {
        let Some(policy) = self.config.failover.clone() else {
            return false;
        };
        let Some(since) = self.lost_since else {
            return false;
        };
        if !self.started || policy.candidates.is_empty() || since.elapsed() < policy.after {
            return false;
        }
        let Some(ours) = self.st.committed.gtid.clone() else {
            tracing::warn!(
                source = %self.st.addr,
                resume = %self.st.committed,
                "source lost, but no GTID state is known to resume on another server; reconnecting to it only"
            );
            return false;
        };
        match self.ready_candidate(&policy, &ours).await {
            Some(i) => {
                self.switch_to_candidate(i, &ours, since);
                true
            }
            None => false,
        }
    }

    /// The first open failed: with failover candidates and a GTID start,
    /// switches to the first candidate that has that state and opens it.
    async fn start_on_candidate(&mut self) -> bool {
        let StartPosition::Gtid(ours) = self.config.start.clone() else {
            return false;
        };
        let Some(policy) = self.config.failover.clone() else {
            return false;
        };
        let since = Instant::now();
        let Some(i) = self.ready_candidate(&policy, &ours).await else {
            return false;
        };
        self.switch_to_candidate(i, &ours, since);
        match self.open().await {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(candidate = %self.st.addr, error = %e, "cannot start on the failover candidate");
                false
            }
        }
    }

    /// The index of the first candidate (other than the current source)
    /// that may take over from `ours`; each one passed over is logged.
    async fn ready_candidate(&self, policy: &FailoverPolicy, ours: &GtidState) -> Option<usize> {
        let current = self.config.connect.addr();
        for (i, candidate) in policy.candidates.iter().enumerate() {
            let addr = candidate.addr();
            if addr == current {
                continue;
            }
            match self
                .probe_candidate(candidate, ours, policy.skip_read_only)
                .await
            {
                Ok(None) => return Some(i),
                Ok(Some(reason)) => tracing::warn!(
                    source = %self.st.addr,
                    candidate = %addr,
                    gtid = %ours,
                    reason = %reason,
                    "failover candidate not taken (a replica not promoted, or one lacking transactions consumers already saw); trying again later"
                ),
                Err(e) => tracing::warn!(
                    source = %self.st.addr,
                    candidate = %addr,
                    error = %e,
                    "failover candidate unreachable"
                ),
            }
        }
        None
    }

    async fn probe_candidate(
        &self,
        candidate: &ConnectOptions,
        ours: &GtidState,
        skip_read_only: bool,
    ) -> Result<Option<String>> {
        let mut conn = Conn::connect(candidate).await?;
        let info = replica::check_server(
            &mut conn,
            CheckOptions {
                row_images: self.config.row_images.clone(),
                names_from_schema: true,
            },
        )
        .await?;
        failover::check_candidate(&mut conn, &info, ours, skip_read_only).await
    }

    fn switch_to_candidate(&mut self, index: usize, ours: &GtidState, since: Instant) {
        let Some(policy) = self.config.failover.as_mut() else {
            return;
        };
        if index >= policy.candidates.len() {
            return;
        }
        // The old source becomes a candidate: it may come back as a replica
        // of the new one.
        let chosen = policy.candidates.remove(index);
        let old = std::mem::replace(&mut self.config.connect, chosen);
        policy.candidates.push(old);
        let from = std::mem::replace(&mut self.st.addr, self.config.connect.addr());
        self.resume_by = ResumeBy::Gtid;
        self.st.gtid = Some(ours.clone());
        self.attempts = 0;
        self.failovers += 1;
        tracing::info!(
            from = %from,
            to = %self.st.addr,
            gtid = %ours,
            lost_ms = since.elapsed().as_millis() as u64,
            "source failover: resuming on the new source by GTID"
        );
    }

    fn flags(&self, is_mariadb: bool) -> u16 {
        let mut f = 0;
        if self.config.stop_at_end {
            f |= dump_flags::NON_BLOCK;
        }
        if self.config.annotate_rows && is_mariadb {
            f |= dump_flags::SEND_ANNOTATE_ROWS;
        }
        f
    }

    fn invalid_start(&self, detail: String) -> SourceError {
        SourceError::InvalidStart {
            addr: self.st.addr.clone(),
            requested: self.requested.clone(),
            detail,
        }
    }

    /// The dump command for the configured start, and the tracker's initial state.
    async fn first_request(
        &mut self,
        conn: &mut Conn,
        info: &ServerInfo,
    ) -> Result<(Vec<u8>, Option<String>)> {
        let flags = self.flags(info.is_mariadb);
        let start = self.config.start.clone();
        let (file, pos) = match &start {
            StartPosition::Gtid(state) => {
                self.resume_by = ResumeBy::Gtid;
                self.st.gtid = Some(state.clone());
                self.st.committed.gtid = Some(state.clone());
                self.st.committed.file.clear();
                self.st.committed.offset = 0;
                return match (state, info.is_mariadb) {
                    (GtidState::MariaDb(s), true) => {
                        let text = s.to_string();
                        let dump = replica::dump_command("", 4, self.server_id, flags)
                            .map_err(|d| self.invalid_start(d))?;
                        Ok((dump, Some(text)))
                    }
                    (GtidState::MySql(set), false) => {
                        Ok((replica::dump_gtid_command(set, self.server_id, flags), None))
                    }
                    (GtidState::MySql(_), true) => Err(self.invalid_start(
                        "a MySQL GTID set (uuid:n-m) was given but the source is MariaDB, whose GTIDs look like 0-1-100".into(),
                    )),
                    (GtidState::MariaDb(_), false) => Err(self.invalid_start(
                        "a MariaDB GTID position (domain-server-seq) was given but the source is MySQL, whose GTID sets look like uuid:1-100".into(),
                    )),
                };
            }
            StartPosition::Earliest => {
                let logs = replica::binary_logs(conn).await?;
                let (first, _) = logs
                    .into_iter()
                    .next()
                    .ok_or_else(|| self.invalid_start("the server lists no binary logs".into()))?;
                (first, 4)
            }
            StartPosition::Latest => {
                let (file, pos, executed) = replica::master_status(conn).await?;
                if let Some(set) = executed {
                    if !info.is_mariadb {
                        self.st.gtid = parse_mysql_gtid_set(&set).ok().map(GtidState::MySql);
                    }
                }
                (file, pos)
            }
            StartPosition::FilePos { file, pos } => {
                if *pos > 4 {
                    self.st.skip = Skip::Probe {
                        requested: format!("{file}:{pos}"),
                    };
                }
                (file.clone(), *pos)
            }
            StartPosition::Time(t) => {
                let file = self.file_for_time(conn, *t).await?;
                self.st.skip = Skip::UntilTime(*t);
                (file, 4)
            }
        };
        if info.is_mariadb {
            if let Ok(Some(g)) = replica::mariadb_gtid_pos(conn, &file, pos).await {
                if let Ok(s) = g.parse::<MariadbGtidState>() {
                    self.st.gtid = Some(GtidState::MariaDb(s));
                }
            }
        }
        self.resume_by = ResumeBy::FilePos;
        self.st.file = file.clone();
        self.st.offset = pos;
        self.st.committed = ResumePosition {
            file: file.clone(),
            offset: pos,
            gtid: self.st.gtid.clone(),
            server_id: 0,
            timestamp: 0,
        };
        let dump = replica::dump_command(&file, pos, self.server_id, flags)
            .map_err(|d| self.invalid_start(d))?;
        Ok((dump, None))
    }

    /// The dump command that resumes after the last complete transaction.
    fn resume_request(&mut self, info: &ServerInfo) -> Result<(Vec<u8>, Option<String>)> {
        let flags = self.flags(info.is_mariadb);
        match self.resume_by {
            ResumeBy::FilePos => {
                let c = &self.st.committed;
                self.st.file = c.file.clone();
                self.st.offset = c.offset;
                let dump = replica::dump_command(&c.file, c.offset, self.server_id, flags)
                    .map_err(|d| self.invalid_start(d))?;
                Ok((dump, None))
            }
            ResumeBy::Gtid => match &self.st.gtid {
                Some(GtidState::MariaDb(s)) => Ok((
                    replica::dump_command("", 4, self.server_id, flags)
                        .map_err(|d| self.invalid_start(d))?,
                    Some(s.to_string()),
                )),
                Some(GtidState::MySql(set)) => {
                    Ok((replica::dump_gtid_command(set, self.server_id, flags), None))
                }
                None => Err(self.invalid_start("the GTID state was lost".into())),
            },
        }
    }

    /// The binlog file to scan for a time start: the last one whose first
    /// event (its FORMAT_DESCRIPTION_EVENT, written when the file was
    /// opened) is before the time; the oldest file if none is.
    async fn file_for_time(&mut self, conn: &mut Conn, t: i64) -> Result<String> {
        let logs = replica::binary_logs(conn).await?;
        if logs.is_empty() {
            return Err(self.invalid_start("the server lists no binary logs".into()));
        }
        // Binary search for the last file that starts before t: transactions
        // at or after t cannot be in the files before it (they ended before
        // it started). Not "at or before": timestamps are whole seconds, and
        // a file opened at t may follow one whose last transactions are at t.
        let (mut lo, mut hi) = (0usize, logs.len());
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            let started = self.file_start_time(&logs[mid].0).await?;
            if i64::from(started) < t {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        tracing::info!(
            source = %self.st.addr,
            file = %logs[lo].0,
            time = %crate::position::format_utc(t),
            "time start: scanning from the start of this binlog file"
        );
        Ok(logs[lo].0.clone())
    }

    /// The timestamp of a binlog file's FORMAT_DESCRIPTION_EVENT, read with a
    /// short non-blocking dump on a connection of its own.
    async fn file_start_time(&mut self, file: &str) -> Result<u32> {
        let mut conn = Conn::connect(&self.config.connect).await?;
        replica::setup_session(
            &mut conn,
            &SessionOptions {
                heartbeat_period: Duration::ZERO,
                mariadb_connect_state: None,
            },
        )
        .await?;
        let dump = replica::dump_command(file, 4, self.server_id, dump_flags::NON_BLOCK)
            .map_err(|d| self.invalid_start(d))?;
        conn.write_command(&dump, "COM_BINLOG_DUMP").await?;
        for _ in 0..16 {
            let p = conn.read_packet("binlog file probe").await?;
            match p.first() {
                Some(0x00) if p.len() >= 20 => {
                    if p[5] == EventType::FORMAT_DESCRIPTION.0 {
                        return Ok(u32::from_le_bytes([p[1], p[2], p[3], p[4]]));
                    }
                }
                Some(0xff) => {
                    let e = ErrPacket::parse(p).map_err(|e| SourceError::Protocol {
                        addr: self.st.addr.clone(),
                        during: "binlog file probe",
                        detail: e.to_string(),
                    })?;
                    return Err(conn.server_error(e, format!("reading the start of {file}")));
                }
                _ => break,
            }
        }
        Err(SourceError::Protocol {
            addr: self.st.addr.clone(),
            during: "binlog file probe",
            detail: format!("no FORMAT_DESCRIPTION_EVENT at the start of {file}"),
        })
    }
}

enum ReadError {
    End,
    Failed(SourceError),
}

impl From<SourceError> for ReadError {
    fn from(e: SourceError) -> Self {
        ReadError::Failed(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_classify() {
        for (q, want) in [
            ("BEGIN", "begin"),
            ("  begin", "begin"),
            ("COMMIT", "end"),
            ("commit;", "end"),
            ("ROLLBACK", "end"),
            ("ROLLBACK TO SAVEPOINT a", "other"),
            ("ROLLBACK  to a", "other"),
            ("XA START X'01',X'',1", "begin"),
            ("XA END X'01',X'',1", "other"),
            ("XA COMMIT X'01',X'',1", "end"),
            ("XA ROLLBACK X'01',X'',1", "end"),
            ("BEGINNING", "other"),
            ("CREATE TABLE t (a int)", "other"),
            ("COMMITTED", "other"),
            ("SAVEPOINT a", "other"),
        ] {
            let got = match classify_query(q.as_bytes()) {
                Effect::QueryBegin => "begin",
                Effect::QueryEnd => "end",
                Effect::QueryOther => "other",
                _ => "?",
            };
            assert_eq!(got, want, "{q}");
        }
    }

    #[test]
    fn gtid_era() {
        assert!(is_gtid_era("10.11.19-MariaDB-log"));
        assert!(is_gtid_era("8.0.36"));
        assert!(is_gtid_era("5.7.44-log"));
        assert!(!is_gtid_era("5.6.51-log"));
        assert!(!is_gtid_era("5.5.5-5.5.68-MariaDB"));
    }
}
