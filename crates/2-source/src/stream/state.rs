//! The per-stream decoding and tracking state (everything but the socket):
//! the transaction tracker's types, and starting and ending transactions.

use std::sync::Arc;

use sluice_binlog::gtid::{GtidSet, MariadbGtid, MysqlGtid};
use sluice_binlog::header::version_triplet;
use sluice_binlog::{ChecksumAlg, DecodeError, Decoder, EventHeader, FormatDescription, TableMap};

use crate::conn::PacketLoc;
use crate::error::SourceError;
use crate::position::{
    add_mysql_gtid, BinlogPosition, GtidState, MariadbGtidState, ResumePosition,
};

/// What happens to events until the stream is at its start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Skip {
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
pub(super) enum TxnGtid {
    None,
    MariaDb(MariadbGtid),
    MySql(MysqlGtid),
}

/// Where the bytes of a pending event are.
#[derive(Debug, Clone, Copy)]
pub(super) enum Src {
    /// In the connection's buffer: the packet (its first byte is the OK marker).
    Packet(PacketLoc),
    /// In the decompressed transaction payload, at this offset.
    Payload(usize),
    /// A copy, in `BinlogStream::owned` (events read ahead by `connect`).
    Owned(usize),
}

/// An event processed (tracked, skipped or not) and to be handed out.
#[derive(Debug, Clone)]
pub(super) struct Pending {
    pub(super) src: Src,
    pub(super) len: usize,
    pub(super) header: EventHeader,
    pub(super) body_start: usize,
    pub(super) body_end: usize,
    pub(super) pos: u64,
    pub(super) next_pos: u64,
    pub(super) payload_index: Option<usize>,
    pub(super) artificial: bool,
    pub(super) starts: bool,
    pub(super) ends: bool,
    pub(super) in_txn: bool,
    pub(super) in_prev_file: bool,
    pub(super) table: Option<Arc<TableMap>>,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct PayloadCursor {
    pub(super) at: usize,
    pub(super) index: usize,
    pub(super) pos: u64,
    pub(super) next_pos: u64,
}

pub(super) enum Ready {
    Event(Pending),
    Aborted,
    End,
}

/// What an event does to the transaction tracker.
#[derive(Debug)]
pub(super) enum Effect {
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
pub(super) struct State {
    pub(super) addr: String,
    pub(super) format: FormatDescription,
    pub(super) seen_fde: bool,
    pub(super) gtid_era: bool,
    pub(super) decoder: Decoder,
    pub(super) file: String,
    pub(super) prev_file: String,
    /// Offset of the next event in `file`.
    pub(super) offset: u64,
    pub(super) committed: ResumePosition,
    pub(super) gtid: Option<GtidState>,
    pub(super) in_txn: bool,
    pub(super) began: bool,
    pub(super) txn_gtid: TxnGtid,
    pub(super) txn_gtid_text: String,
    pub(super) delivered_in_txn: bool,
    pub(super) skip: Skip,
    pub(super) payload_buf: Vec<u8>,
    pub(super) payload: Option<PayloadCursor>,
    pub(super) heartbeats: u64,
}

pub(super) fn classify_query(q: &[u8]) -> Effect {
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
pub(super) fn is_gtid_era(version: &str) -> bool {
    let v = version_triplet(version);
    if version.contains("MariaDB") {
        v >= (10, 0, 0)
    } else {
        v >= (5, 7, 0)
    }
}

impl State {
    pub(super) fn new(addr: String) -> State {
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
                at: BinlogPosition::new(String::new(), 4),
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
    pub(super) fn new_session(&mut self) {
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

    pub(super) fn decode_error(
        &self,
        pos: u64,
        event: &'static str,
        error: DecodeError,
    ) -> SourceError {
        SourceError::Decode {
            addr: self.addr.clone(),
            file: self.file.clone(),
            pos,
            event,
            error,
        }
    }

    pub(super) fn start_txn(&mut self, gtid: TxnGtid) {
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

    pub(super) fn end_txn(&mut self, h: &EventHeader, next_pos: u64) {
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
            at: BinlogPosition::new(self.file.clone(), next_pos).with_gtid(self.gtid.clone()),
            server_id: h.server_id,
            timestamp: h.timestamp,
        };
    }
}
