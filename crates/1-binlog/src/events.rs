//! Event bodies: one decoded type per event the servers write. Everything
//! borrows from the event buffer except where decompression makes a copy.

use std::borrow::Cow;
use std::sync::Arc;

use crate::bytes::ByteReader;
use crate::error::{DecodeError, Result};
use crate::gtid::{read_varlen, GtidSet, MariadbGtid, MysqlGtid, Uuid};
use crate::header::FormatDescription;
use crate::rows::RowsEvent;
use crate::table_map::TableMap;

/// A decoded event body.
#[derive(Debug, Clone)]
pub enum EventData<'a> {
    FormatDescription(FormatDescription),
    StartV3(FormatDescription),
    Query(QueryEvent<'a>),
    Xid(u64),
    Rotate(RotateEvent<'a>),
    Stop,
    Intvar {
        kind: u8,
        value: u64,
    },
    Rand {
        seed1: u64,
        seed2: u64,
    },
    UserVar(UserVarEvent<'a>),
    Heartbeat(HeartbeatEvent<'a>),
    TableMap(Arc<TableMap>),
    Rows(RowsEvent<'a>),
    Gtid(GtidEvent),
    PreviousGtids(GtidSet),
    TransactionPayload(PayloadEvent<'a>),
    /// ROWS_QUERY_LOG_EVENT / MariaDB ANNOTATE_ROWS_EVENT: the statement text.
    RowsQuery(&'a [u8]),
    Incident {
        kind: u16,
        message: &'a [u8],
    },
    XaPrepare(XaPrepareEvent<'a>),
    MariadbGtid(MariadbGtidEvent<'a>),
    MariadbGtidList(Vec<MariadbGtid>),
    BinlogCheckpoint(&'a [u8]),
    StartEncryption {
        scheme: u8,
        key_version: u32,
    },
    /// LOAD DATA family, TRANSACTION_CONTEXT, VIEW_CHANGE: framed, body kept raw.
    Other(&'a [u8]),
    /// An unknown event type flagged ignorable by the server.
    Ignorable(&'a [u8]),
}

#[derive(Debug, Clone)]
pub struct QueryEvent<'a> {
    pub thread_id: u32,
    pub exec_time: u32,
    pub error_code: u16,
    pub status_vars: &'a [u8],
    pub schema: &'a [u8],
    /// The statement; decompressed for MariaDB QUERY_COMPRESSED_EVENT.
    pub query: Cow<'a, [u8]>,
}

impl QueryEvent<'_> {
    /// The statement text (lossy UTF-8).
    pub fn query_text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.query)
    }
    pub fn schema_text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(self.schema)
    }
}

#[derive(Debug, Clone)]
pub struct RotateEvent<'a> {
    pub position: u64,
    pub next_file: &'a [u8],
}

#[derive(Debug, Clone)]
pub struct UserVarEvent<'a> {
    pub name: &'a [u8],
    /// `None` when the variable is NULL.
    pub value: Option<UserVarValue<'a>>,
}

#[derive(Debug, Clone)]
pub struct UserVarValue<'a> {
    pub value_type: u8,
    pub collation: u32,
    pub bytes: &'a [u8],
    pub flags: u8,
}

#[derive(Debug, Clone)]
pub struct HeartbeatEvent<'a> {
    pub log_file: &'a [u8],
    /// HEARTBEAT_LOG_EVENT_V2 carries the position; v1 uses the header's log_pos.
    pub position: Option<u64>,
}

/// MySQL GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT or GTID_TAGGED_LOG_EVENT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GtidEvent {
    pub anonymous: bool,
    pub flags: u8,
    pub gtid: MysqlGtid,
    pub last_committed: Option<i64>,
    pub sequence_number: Option<i64>,
    pub immediate_commit_timestamp: Option<u64>,
    pub original_commit_timestamp: Option<u64>,
    pub transaction_length: Option<u64>,
    pub immediate_server_version: Option<u32>,
    pub original_server_version: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct PayloadEvent<'a> {
    /// 0 = zstd, 255 = none.
    pub compression: u64,
    pub uncompressed_size: Option<u64>,
    pub payload: &'a [u8],
}

impl PayloadEvent<'_> {
    /// The inner events, back to back, as in a binlog file without checksums.
    pub fn decompress(&self) -> Result<Vec<u8>> {
        match self.compression {
            0 => crate::compression::zstd_decompress(self.payload, self.uncompressed_size),
            255 => Ok(self.payload.to_vec()),
            other => Err(DecodeError::unsupported(
                "TRANSACTION_PAYLOAD compression",
                format!("type {other}"),
            )),
        }
    }
}

#[derive(Debug, Clone)]
pub struct XaPrepareEvent<'a> {
    pub one_phase: bool,
    pub format_id: i32,
    pub gtrid: &'a [u8],
    pub bqual: &'a [u8],
}

/// MariaDB GTID_EVENT: starts an event group.
#[derive(Debug, Clone)]
pub struct MariadbGtidEvent<'a> {
    pub gtid: MariadbGtid,
    pub flags: u8,
    pub commit_id: Option<u64>,
    pub xid: Option<XaPrepareEvent<'a>>,
}

/// MariaDB GTID_EVENT flags.
pub mod mariadb_gtid_flags {
    pub const STANDALONE: u8 = 1;
    pub const GROUP_COMMIT_ID: u8 = 2;
    pub const TRANSACTIONAL: u8 = 4;
    pub const ALLOW_PARALLEL: u8 = 8;
    pub const WAITED: u8 = 16;
    pub const DDL: u8 = 32;
    pub const PREPARED_XA: u8 = 64;
    pub const COMPLETED_XA: u8 = 128;
}

pub(crate) fn parse_query<'a>(
    body: &'a [u8],
    post_header_len: usize,
    compressed: bool,
) -> Result<QueryEvent<'a>> {
    let mut r = ByteReader::new(body);
    let thread_id = r.u32_le()?;
    let exec_time = r.u32_le()?;
    let db_len = r.u8()? as usize;
    let error_code = r.u16_le()?;
    let status_len = if post_header_len >= 13 {
        r.u16_le()? as usize
    } else {
        0
    };
    // EXECUTE_LOAD_QUERY and future versions extend the post-header.
    r.skip(post_header_len.saturating_sub(if post_header_len >= 13 { 13 } else { 11 }))?;
    let status_vars = r.take(status_len)?;
    let schema = r.take(db_len)?;
    r.skip(1)?;
    let rest = r.take_rest();
    let query = if compressed {
        Cow::Owned(crate::compression::mariadb_uncompress(rest)?)
    } else {
        Cow::Borrowed(rest)
    };
    Ok(QueryEvent {
        thread_id,
        exec_time,
        error_code,
        status_vars,
        schema,
        query,
    })
}

pub(crate) fn parse_rotate(body: &[u8], post_header_len: usize) -> Result<RotateEvent<'_>> {
    let mut r = ByteReader::new(body);
    let position = if post_header_len >= 8 { r.u64_le()? } else { 4 };
    Ok(RotateEvent {
        position,
        next_file: r.take_rest(),
    })
}

pub(crate) fn parse_user_var(body: &[u8]) -> Result<UserVarEvent<'_>> {
    let mut r = ByteReader::new(body);
    let name_len = r.u32_le()? as usize;
    let name = r.take(name_len)?;
    let is_null = r.u8()? != 0;
    if is_null {
        return Ok(UserVarEvent { name, value: None });
    }
    let value_type = r.u8()?;
    let collation = r.u32_le()?;
    let len = r.u32_le()? as usize;
    let bytes = r.take(len)?;
    let flags = if r.is_empty() { 0 } else { r.u8()? };
    Ok(UserVarEvent {
        name,
        value: Some(UserVarValue {
            value_type,
            collation,
            bytes,
            flags,
        }),
    })
}

pub(crate) fn parse_heartbeat_v2(body: &[u8]) -> Result<HeartbeatEvent<'_>> {
    let mut r = ByteReader::new(body);
    let mut hb = HeartbeatEvent {
        log_file: &[],
        position: None,
    };
    while !r.is_empty() {
        let field = r.u8()?;
        let value = r.packed_bytes()?;
        match field {
            1 => hb.log_file = value,
            2 => hb.position = Some(ByteReader::new(value).packed_int()?),
            _ => {}
        }
    }
    Ok(hb)
}

pub(crate) fn parse_gtid(body: &[u8], anonymous: bool) -> Result<GtidEvent> {
    let mut r = ByteReader::new(body);
    let flags = r.u8()?;
    let uuid = Uuid::read(&mut r)?;
    let gno = r.u64_le()?;
    let mut ev = GtidEvent {
        anonymous,
        flags,
        gtid: MysqlGtid {
            uuid,
            tag: None,
            gno,
        },
        last_committed: None,
        sequence_number: None,
        immediate_commit_timestamp: None,
        original_commit_timestamp: None,
        transaction_length: None,
        immediate_server_version: None,
        original_server_version: None,
    };
    // Later fields were added over versions; each is present only if there are bytes.
    if r.remaining() >= 17 && r.rest()[0] == 2 {
        r.skip(1)?;
        ev.last_committed = Some(r.u64_le()? as i64);
        ev.sequence_number = Some(r.u64_le()? as i64);
    }
    if r.remaining() >= 7 {
        let raw = r.uint_le(7)?;
        let has_original = raw & (1 << 55) != 0;
        let immediate = raw & !(1 << 55);
        ev.immediate_commit_timestamp = Some(immediate);
        ev.original_commit_timestamp = Some(if has_original {
            r.uint_le(7)?
        } else {
            immediate
        });
    }
    if !r.is_empty() {
        ev.transaction_length = Some(r.packed_int()?);
    }
    if r.remaining() >= 4 {
        let v = r.u32_le()?;
        let has_original = v & (1 << 31) != 0;
        let immediate = v & !(1 << 31);
        ev.immediate_server_version = Some(immediate);
        ev.original_server_version = Some(if has_original { r.u32_le()? } else { immediate });
    }
    Ok(ev)
}

/// GTID_TAGGED_LOG_EVENT (MySQL 8.3+): a `mysql::serialization` message of
/// numbered fields, each a variable-length integer or byte string.
pub(crate) fn parse_gtid_tagged(body: &[u8]) -> Result<GtidEvent> {
    let mut r = ByteReader::new(body);
    let _format_version = read_varlen(&mut r)?;
    let _message_len = read_varlen(&mut r)?;
    let _last_non_ignorable_field = read_varlen(&mut r)?;
    let mut ev = GtidEvent {
        anonymous: false,
        flags: 0,
        gtid: MysqlGtid {
            uuid: Uuid([0; 16]),
            tag: None,
            gno: 0,
        },
        last_committed: None,
        sequence_number: None,
        immediate_commit_timestamp: None,
        original_commit_timestamp: None,
        transaction_length: None,
        immediate_server_version: None,
        original_server_version: None,
    };
    let signed = |v: u64| -> i64 { ((v >> 1) as i64) ^ -((v & 1) as i64) };
    while !r.is_empty() {
        let field = read_varlen(&mut r)?;
        match field {
            0 => ev.flags = read_varlen(&mut r)? as u8,
            1 => {
                // The uuid is serialised as 16 separate varlen bytes.
                let mut u = [0u8; 16];
                for b in u.iter_mut() {
                    *b = read_varlen(&mut r)? as u8;
                }
                ev.gtid.uuid = Uuid(u);
            }
            2 => ev.gtid.gno = signed(read_varlen(&mut r)?) as u64,
            3 => {
                let len = read_varlen(&mut r)? as usize;
                let t = r.take(len)?;
                if !t.is_empty() {
                    ev.gtid.tag = Some(String::from_utf8_lossy(t).into_owned());
                }
            }
            4 => ev.last_committed = Some(signed(read_varlen(&mut r)?)),
            5 => ev.sequence_number = Some(signed(read_varlen(&mut r)?)),
            6 => ev.immediate_commit_timestamp = Some(read_varlen(&mut r)?),
            7 => ev.original_commit_timestamp = Some(read_varlen(&mut r)?),
            8 => ev.transaction_length = Some(read_varlen(&mut r)?),
            9 => ev.immediate_server_version = Some(read_varlen(&mut r)? as u32),
            10 => ev.original_server_version = Some(read_varlen(&mut r)? as u32),
            11 => {
                read_varlen(&mut r)?; // commit_group_ticket
            }
            other => {
                return Err(DecodeError::unsupported(
                    "GTID_TAGGED_LOG_EVENT field",
                    format!("field {other}"),
                ))
            }
        }
    }
    if ev.original_commit_timestamp.is_none() {
        ev.original_commit_timestamp = ev.immediate_commit_timestamp;
    }
    if ev.original_server_version.is_none() {
        ev.original_server_version = ev.immediate_server_version;
    }
    Ok(ev)
}

pub(crate) fn parse_payload(body: &[u8]) -> Result<PayloadEvent<'_>> {
    let mut r = ByteReader::new(body);
    let mut ev = PayloadEvent {
        compression: 255,
        uncompressed_size: None,
        payload: &[],
    };
    let mut size = None;
    loop {
        if r.is_empty() {
            break;
        }
        let field = r.packed_int()?;
        if field == 0 {
            break;
        }
        let len = r.packed_len()?;
        let mut v = ByteReader::new(r.take(len)?);
        match field {
            1 => size = Some(v.packed_int()?),
            2 => ev.compression = v.packed_int()?,
            3 => ev.uncompressed_size = Some(v.packed_int()?),
            _ => {}
        }
    }
    let rest = r.take_rest();
    ev.payload = match size {
        Some(n) if (n as usize) <= rest.len() => &rest[..n as usize],
        Some(n) => {
            return Err(DecodeError::Truncated {
                at: r.position(),
                needed: n as usize,
                available: rest.len(),
            })
        }
        None => rest,
    };
    Ok(ev)
}

pub(crate) fn parse_xa_prepare(body: &[u8]) -> Result<XaPrepareEvent<'_>> {
    let mut r = ByteReader::new(body);
    let one_phase = r.u8()? != 0;
    let format_id = r.u32_le()? as i32;
    let gtrid_len = r.u32_le()? as usize;
    let bqual_len = r.u32_le()? as usize;
    if gtrid_len > 64 || bqual_len > 64 {
        return Err(DecodeError::invalid(
            "XA_PREPARE_LOG_EVENT",
            "xid part over 64 bytes",
        ));
    }
    Ok(XaPrepareEvent {
        one_phase,
        format_id,
        gtrid: r.take(gtrid_len)?,
        bqual: r.take(bqual_len)?,
    })
}

pub(crate) fn parse_mariadb_gtid(body: &[u8], server_id: u32) -> Result<MariadbGtidEvent<'_>> {
    use mariadb_gtid_flags::*;
    let mut r = ByteReader::new(body);
    let seq_no = r.u64_le()?;
    let domain_id = r.u32_le()?;
    let flags = r.u8()?;
    let mut ev = MariadbGtidEvent {
        gtid: MariadbGtid {
            domain_id,
            server_id,
            seq_no,
        },
        flags,
        commit_id: None,
        xid: None,
    };
    if flags & GROUP_COMMIT_ID != 0 {
        ev.commit_id = Some(r.u64_le()?);
    }
    if flags & (PREPARED_XA | COMPLETED_XA) != 0 {
        let format_id = r.u32_le()? as i32;
        let gtrid_len = r.u8()? as usize;
        let bqual_len = r.u8()? as usize;
        ev.xid = Some(XaPrepareEvent {
            one_phase: false,
            format_id,
            gtrid: r.take(gtrid_len)?,
            bqual: r.take(bqual_len)?,
        });
    }
    Ok(ev)
}

pub(crate) fn parse_mariadb_gtid_list(body: &[u8]) -> Result<Vec<MariadbGtid>> {
    let mut r = ByteReader::new(body);
    let count = (r.u32_le()? & 0x0fff_ffff) as usize;
    let mut out = Vec::with_capacity(count.min(r.remaining() / 16));
    for _ in 0..count {
        let domain_id = r.u32_le()?;
        let server_id = r.u32_le()?;
        let seq_no = r.u64_le()?;
        out.push(MariadbGtid {
            domain_id,
            server_id,
            seq_no,
        });
    }
    Ok(out)
}

pub(crate) fn parse_checkpoint(body: &[u8]) -> Result<&[u8]> {
    let mut r = ByteReader::new(body);
    let len = r.u32_le()? as usize;
    r.take(len)
}

pub(crate) fn parse_incident(body: &[u8]) -> Result<(u16, &[u8])> {
    let mut r = ByteReader::new(body);
    let kind = r.u16_le()?;
    if r.is_empty() {
        return Ok((kind, &[]));
    }
    let len = r.u8()? as usize;
    Ok((kind, r.take(len)?))
}
