//! The stateful part of decoding: the FORMAT_DESCRIPTION_EVENT in force and
//! the TABLE_MAP_EVENTs seen so far, which rows events refer to by id.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use crate::error::{DecodeError, LocatedError, Result};
use crate::event_type::EventType;
use crate::events::{self, EventData};
use crate::framing::{EventFramer, RawEvent};
use crate::header::{ChecksumAlg, FormatDescription, FLAG_IGNORABLE};
use crate::rows::RowsEvent;
use crate::table_map::TableMap;

/// Decodes framed events into [`EventData`], keeping the state they depend on.
#[derive(Debug, Default, Clone)]
pub struct Decoder {
    format: FormatDescription,
    tables: HashMap<u64, Arc<TableMap>>,
}

impl Decoder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_format(format: FormatDescription) -> Self {
        Decoder {
            format,
            tables: HashMap::new(),
        }
    }

    pub fn format(&self) -> &FormatDescription {
        &self.format
    }

    pub fn table(&self, table_id: u64) -> Option<&Arc<TableMap>> {
        self.tables.get(&table_id)
    }

    /// Forgets table maps (they are only valid within a transaction group,
    /// but servers rely on readers keeping them until replaced).
    pub fn clear_tables(&mut self) {
        self.tables.clear();
    }

    /// Decodes one event body.
    pub fn decode<'a>(&mut self, ev: &RawEvent<'a>) -> Result<EventData<'a>> {
        let t = ev.header.event_type;
        let body = ev.body;
        let phl = |d: usize| self.format.post_header_len(t, d);
        Ok(match t {
            EventType::FORMAT_DESCRIPTION => self.format_description(ev)?,
            EventType::START_V3 => {
                let f = FormatDescription::from_start_v3(body, self.format.header_len)?;
                EventData::StartV3(f)
            }
            EventType::QUERY | EventType::EXECUTE_LOAD_QUERY => {
                EventData::Query(events::parse_query(body, phl(13), false)?)
            }
            EventType::MARIADB_QUERY_COMPRESSED => {
                let n = self.format.post_header_len(EventType::QUERY, 13);
                EventData::Query(events::parse_query(body, phl(n), true)?)
            }
            EventType::XID => {
                let mut r = crate::bytes::ByteReader::new(body);
                EventData::Xid(r.u64_le()?)
            }
            EventType::ROTATE => EventData::Rotate(events::parse_rotate(body, phl(8))?),
            EventType::STOP => EventData::Stop,
            EventType::INTVAR => {
                let mut r = crate::bytes::ByteReader::new(body);
                EventData::Intvar {
                    kind: r.u8()?,
                    value: r.u64_le()?,
                }
            }
            EventType::RAND => {
                let mut r = crate::bytes::ByteReader::new(body);
                EventData::Rand {
                    seed1: r.u64_le()?,
                    seed2: r.u64_le()?,
                }
            }
            EventType::USER_VAR => EventData::UserVar(events::parse_user_var(body)?),
            EventType::HEARTBEAT => EventData::Heartbeat(events::HeartbeatEvent {
                log_file: body,
                position: None,
            }),
            EventType::HEARTBEAT_V2 => EventData::Heartbeat(events::parse_heartbeat_v2(body)?),
            EventType::TABLE_MAP => self.table_map(body, phl(8))?,
            EventType::GTID | EventType::ANONYMOUS_GTID => {
                EventData::Gtid(events::parse_gtid(body, t == EventType::ANONYMOUS_GTID)?)
            }
            EventType::GTID_TAGGED => EventData::Gtid(events::parse_gtid_tagged(body)?),
            EventType::PREVIOUS_GTIDS => {
                EventData::PreviousGtids(crate::gtid::GtidSet::parse(body)?)
            }
            EventType::TRANSACTION_PAYLOAD => {
                EventData::TransactionPayload(events::parse_payload(body)?)
            }
            EventType::ROWS_QUERY => {
                // One length byte (truncated to 255, so ignored), then the text.
                EventData::RowsQuery(body.get(1..).unwrap_or(&[]))
            }
            EventType::MARIADB_ANNOTATE_ROWS => EventData::RowsQuery(body),
            EventType::INCIDENT => {
                let (kind, message) = events::parse_incident(body)?;
                EventData::Incident { kind, message }
            }
            EventType::XA_PREPARE => EventData::XaPrepare(events::parse_xa_prepare(body)?),
            EventType::MARIADB_GTID => {
                EventData::MariadbGtid(events::parse_mariadb_gtid(body, ev.header.server_id)?)
            }
            EventType::MARIADB_GTID_LIST => {
                EventData::MariadbGtidList(events::parse_mariadb_gtid_list(body)?)
            }
            EventType::MARIADB_BINLOG_CHECKPOINT => {
                EventData::BinlogCheckpoint(events::parse_checkpoint(body)?)
            }
            EventType::MARIADB_START_ENCRYPTION => {
                let mut r = crate::bytes::ByteReader::new(body);
                EventData::StartEncryption {
                    scheme: r.u8()?,
                    key_version: r.u32_le()?,
                }
            }
            EventType::PRE_GA_WRITE_ROWS
            | EventType::PRE_GA_UPDATE_ROWS
            | EventType::PRE_GA_DELETE_ROWS => return Err(pre_ga_rows(t)),
            EventType::LOAD
            | EventType::SLAVE
            | EventType::CREATE_FILE
            | EventType::APPEND_BLOCK
            | EventType::EXEC_LOAD
            | EventType::DELETE_FILE
            | EventType::NEW_LOAD
            | EventType::BEGIN_LOAD_QUERY
            | EventType::TRANSACTION_CONTEXT
            | EventType::VIEW_CHANGE
            | EventType::IGNORABLE => EventData::Other(body),
            _ => self.rows_or_other(ev)?,
        })
    }

    /// A FORMAT_DESCRIPTION_EVENT: parsed, and in force from here on.
    #[inline]
    fn format_description<'a>(&mut self, ev: &RawEvent<'a>) -> Result<EventData<'a>> {
        // Parse from the full bytes: the framer strips a verified
        // checksum, but the algorithm byte sits just before it.
        let full = ev.bytes.get(self.format.header_len..).unwrap_or(ev.body);
        let fde = FormatDescription::parse(full)?;
        self.format = fde.clone();
        Ok(EventData::FormatDescription(fde))
    }

    /// A TABLE_MAP_EVENT: parsed, and kept for the rows events that name it.
    #[inline]
    fn table_map<'a>(&mut self, body: &'a [u8], post_header_len: usize) -> Result<EventData<'a>> {
        let tm = Arc::new(TableMap::parse_from(
            body,
            post_header_len,
            self.format.is_mariadb(),
        )?);
        self.tables.insert(tm.table_id, tm.clone());
        Ok(EventData::TableMap(tm))
    }

    /// Every type code without an arm of its own: a rows event (against the
    /// table maps seen), an ignorable event, or an error.
    #[inline]
    fn rows_or_other<'a>(&self, ev: &RawEvent<'a>) -> Result<EventData<'a>> {
        let t = ev.header.event_type;
        let body = ev.body;
        Ok(if let Some(layout) = t.rows_layout() {
            let default = if layout.has_extra_data { 10 } else { 8 };
            let tables = &self.tables;
            let phl = self.format.post_header_len(t, default);
            EventData::Rows(RowsEvent::parse(body, layout, phl, |id| {
                tables.get(&id).cloned()
            })?)
        } else if ev.header.flags & FLAG_IGNORABLE != 0 {
            EventData::Ignorable(body)
        } else {
            return Err(DecodeError::unsupported(
                "event type",
                format!("type code {} is unknown and not flagged ignorable", t.0),
            ));
        })
    }
}

/// The error for a pre-GA rows event: their rows are in the table's record
/// format (null bytes of the table, fields as the storage engine packs them),
/// which the binlog does not describe.
fn pre_ga_rows(t: EventType) -> DecodeError {
    DecodeError::unsupported(
        "rows event",
        format!(
            "{}: written by MySQL 5.1.0-5.1.15 or a development build, its rows are \
             in the table's record format, which the binlog does not describe",
            t.name()
        ),
    )
}

/// Where an event sits: its own offsets, or for an event inside a
/// TRANSACTION_PAYLOAD_EVENT, the payload event's offsets (the place a reader
/// resumes from) and its index within the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventPosition {
    pub pos: u64,
    pub next_pos: u64,
    pub payload_index: Option<usize>,
}

/// Frames and decodes every event of an in-memory binlog file, including the
/// events inside TRANSACTION_PAYLOAD_EVENTs (visited right after their
/// payload event). Stops at the first error, which names the offset and the
/// event; `file` is used in error messages only.
pub fn walk_file(
    file: &str,
    buf: &[u8],
    mut visit: impl FnMut(&EventPosition, &RawEvent<'_>, &EventData<'_>) -> ControlFlow<()>,
) -> std::result::Result<(), LocatedError> {
    let locate = |pos: u64, event: &str, error: DecodeError| LocatedError {
        file: file.to_string(),
        offset: pos,
        event: event.to_string(),
        error,
    };
    let framer = EventFramer::for_file(buf).map_err(|e| {
        locate(
            e.pos,
            e.event.map(|t| t.name()).unwrap_or("file header"),
            e.error,
        )
    })?;
    let mut decoder = Decoder::new();
    for raw in framer {
        let raw = raw.map_err(|e| {
            locate(
                e.pos,
                e.event.map(|t| t.name()).unwrap_or("event header"),
                e.error,
            )
        })?;
        let name = raw.header.event_type.name();
        let data = decoder.decode(&raw).map_err(|e| locate(raw.pos, name, e))?;
        if let EventData::StartEncryption { .. } = data {
            let at = EventPosition {
                pos: raw.pos,
                next_pos: raw.next_pos(),
                payload_index: None,
            };
            let _ = visit(&at, &raw, &data);
            return Err(locate(raw.next_pos(), name, DecodeError::Encrypted));
        }
        let at = EventPosition {
            pos: raw.pos,
            next_pos: raw.next_pos(),
            payload_index: None,
        };
        if visit(&at, &raw, &data).is_break() {
            return Ok(());
        }
        if let EventData::TransactionPayload(p) = &data {
            let inner = p.decompress().map_err(|e| locate(raw.pos, name, e))?;
            let mut fmt = decoder.format().clone();
            fmt.checksum = ChecksumAlg::None;
            let mut inner_decoder = decoder.clone();
            for (i, iev) in EventFramer::for_events(&inner, fmt, 0).enumerate() {
                let iev = iev.map_err(|e| locate(raw.pos, name, e.error))?;
                let idata = inner_decoder
                    .decode(&iev)
                    .map_err(|e| locate(raw.pos, iev.header.event_type.name(), e))?;
                let at = EventPosition {
                    pos: raw.pos,
                    next_pos: raw.next_pos(),
                    payload_index: Some(i),
                };
                if visit(&at, &iev, &idata).is_break() {
                    return Ok(());
                }
            }
            // Table maps declared inside the payload stay known afterwards.
            decoder = inner_decoder;
        }
    }
    Ok(())
}
