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
//!
//! Parts: `event` (the items handed out), `state` (the tracker's state),
//! `process` (one event through the tracker), `session` (opening the dump,
//! its errors, backoff), `start` (start and resume requests), `candidates`
//! (failover to another server).

use std::collections::VecDeque;
use std::time::Instant;

use sluice_binlog::events::EventData;
use sluice_binlog::{EventType, RawEvent};

use crate::config::SourceConfig;
use crate::conn::Conn;
use crate::error::{Result, SourceError};
use crate::handshake::ErrPacket;
use crate::position::ResumePosition;
use crate::replica::ServerInfo;

mod candidates;
mod event;
mod process;
mod session;
mod start;
mod state;

pub use event::{Event, OwnedRowsEvent, StreamItem};
use state::{PayloadCursor, Pending, Ready, Skip, Src, State};

/// How a reconnect finds its place again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ResumeBy {
    FilePos,
    Gtid,
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
mod tests;
