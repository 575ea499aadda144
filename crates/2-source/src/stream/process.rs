//! One event through the tracker: framed, placed, decoded into its effect,
//! tracked, and delivered or skipped by the start position's rule.

use std::sync::Arc;

use sluice_binlog::events::{mariadb_gtid_flags, EventData};
use sluice_binlog::framing::frame_one;
use sluice_binlog::{ChecksumAlg, DecodeError, EventHeader, EventType, RawEvent, TableMap};

use crate::error::{Result, SourceError};
use crate::position::{GtidState, MariadbGtidState};

use super::state::{
    classify_query, is_gtid_era, Effect, PayloadCursor, Pending, Skip, Src, State, TxnGtid,
};

impl State {
    /// Frames, tracks and (for all but rows events) decodes one event.
    /// Returns it if it is to be delivered.
    pub(super) fn process(
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
            self.committed.at.offset = next_pos;
            self.committed.at.file = self.file.clone();
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
                    self.committed.at.file = self.file.clone();
                    self.committed.at.offset = position;
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
                    self.committed.at.gtid = self.gtid.clone();
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
                    self.committed.at.gtid = self.gtid.clone();
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
