//! The common event header and the FORMAT_DESCRIPTION_EVENT that says how to
//! read everything after it (header length, post-header lengths, checksums).

use crate::bytes::ByteReader;
use crate::error::{DecodeError, Result};
use crate::event_type::EventType;

/// Size of the v3/v4 common header.
pub const HEADER_LEN_V4: usize = 19;
/// Size of the v1 (MySQL 3.23) common header: no log position, no flags.
pub const HEADER_LEN_V1: usize = 13;
/// `LOG_EVENT_IGNORABLE_F`: a reader that does not know the type may skip the event.
pub const FLAG_IGNORABLE: u16 = 0x80;

/// The header every event starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventHeader {
    pub timestamp: u32,
    pub event_type: EventType,
    pub server_id: u32,
    pub event_size: u32,
    /// Offset of the next event (v3/v4); 0 in v1 headers and in some relay logs.
    pub log_pos: u32,
    pub flags: u16,
}

impl EventHeader {
    pub fn parse(buf: &[u8], header_len: usize) -> Result<Self> {
        let mut r = ByteReader::new(buf);
        let timestamp = r.u32_le()?;
        let event_type = EventType(r.u8()?);
        let server_id = r.u32_le()?;
        let event_size = r.u32_le()?;
        let (log_pos, flags) = if header_len >= HEADER_LEN_V4 {
            (r.u32_le()?, r.u16_le()?)
        } else {
            (0, 0)
        };
        Ok(EventHeader {
            timestamp,
            event_type,
            server_id,
            event_size,
            log_pos,
            flags,
        })
    }
}

/// The checksum algorithm announced by a FORMAT_DESCRIPTION_EVENT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChecksumAlg {
    None,
    Crc32,
    /// A value Sluice does not know: events are assumed to carry no checksum.
    Unknown(u8),
}

impl ChecksumAlg {
    pub fn len(self) -> usize {
        match self {
            ChecksumAlg::Crc32 => 4,
            _ => 0,
        }
    }
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
}

/// What a FORMAT_DESCRIPTION_EVENT (or a v1/v3 START_EVENT_V3) establishes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatDescription {
    pub binlog_version: u16,
    pub server_version: String,
    pub create_timestamp: u32,
    pub header_len: usize,
    /// Post-header length per event type, indexed by `type_code - 1`.
    pub post_header_lens: Vec<u8>,
    pub checksum: ChecksumAlg,
    /// Written by a MySQL 5.1/5.2 "-a_drop5"/"-a_drop6" development build,
    /// which numbered event types 16–22 differently (see [`OLD_TYPE_CODES`]);
    /// `post_header_lens` is already permuted to the usual numbering.
    pub old_type_codes: bool,
}

/// The event types that the development trees behind MySQL's 5.1.1–5.2.2
/// "-a_drop5"/"-a_drop6" builds wrote as codes 16–22, in that order
/// (`Format_description_event`'s `event_type_permutation` in MySQL).
pub const OLD_TYPE_CODES: [EventType; 7] = [
    EventType::TABLE_MAP,
    EventType::PRE_GA_WRITE_ROWS,
    EventType::PRE_GA_UPDATE_ROWS,
    EventType::PRE_GA_DELETE_ROWS,
    EventType::XID,
    EventType::BEGIN_LOAD_QUERY,
    EventType::EXECUTE_LOAD_QUERY,
];

impl Default for FormatDescription {
    /// What a reader assumes before it has seen a FORMAT_DESCRIPTION_EVENT: v4 headers, no checksums.
    fn default() -> Self {
        FormatDescription {
            binlog_version: 4,
            server_version: String::new(),
            create_timestamp: 0,
            header_len: HEADER_LEN_V4,
            post_header_lens: Vec::new(),
            checksum: ChecksumAlg::None,
            old_type_codes: false,
        }
    }
}

impl FormatDescription {
    /// Parses the body (after the common header) of a FORMAT_DESCRIPTION_EVENT.
    /// `body` includes the trailing checksum bytes if any: whether there are
    /// some is only known from the body itself.
    pub fn parse(body: &[u8]) -> Result<Self> {
        let mut r = ByteReader::new(body);
        let binlog_version = r.u16_le()?;
        let server_version = parse_version_string(r.take(50)?);
        let create_timestamp = r.u32_le()?;
        let header_len = r.u8()? as usize;
        if header_len < HEADER_LEN_V4 {
            return Err(DecodeError::invalid(
                "FORMAT_DESCRIPTION_EVENT",
                format!("common header length {header_len} is below 19"),
            ));
        }
        let rest = r.rest();
        let (post_header_lens, checksum) = if version_has_checksums(&server_version) {
            // Checksum-aware servers always append the algorithm byte and a
            // 4-byte checksum slot to this event, whatever the algorithm.
            if rest.len() < 5 {
                return Err(DecodeError::invalid(
                    "FORMAT_DESCRIPTION_EVENT",
                    "too short for the checksum algorithm",
                ));
            }
            let alg = match rest[rest.len() - 5] {
                0 => ChecksumAlg::None,
                1 => ChecksumAlg::Crc32,
                other => ChecksumAlg::Unknown(other),
            };
            (rest[..rest.len() - 5].to_vec(), alg)
        } else {
            (rest.to_vec(), ChecksumAlg::None)
        };
        let mut post_header_lens = post_header_lens;
        // MySQL accepts such a build's FDE only with its 22 event types.
        let old_type_codes = has_old_type_codes(&server_version) && post_header_lens.len() == 22;
        if old_type_codes {
            let old = post_header_lens[15..22].to_vec();
            for (t, len) in OLD_TYPE_CODES.iter().zip(old) {
                post_header_lens[t.0 as usize - 1] = len;
            }
        }
        Ok(FormatDescription {
            binlog_version,
            server_version,
            create_timestamp,
            header_len,
            post_header_lens,
            checksum,
            old_type_codes,
        })
    }

    /// The START_EVENT_V3 of a v1 or v3 binlog: its body tells the version.
    pub fn from_start_v3(body: &[u8], header_len: usize) -> Result<Self> {
        let mut r = ByteReader::new(body);
        let binlog_version = r.u16_le()?;
        let server_version = parse_version_string(r.take(50)?);
        let create_timestamp = r.u32_le()?;
        // Post-header lengths of the pre-v4 formats, for the events Sluice reads.
        let mut lens = vec![0u8; 40];
        let query = if binlog_version == 1 { 11 } else { 13 };
        lens[EventType::QUERY.0 as usize - 1] = query;
        lens[EventType::ROTATE.0 as usize - 1] = if binlog_version == 1 { 0 } else { 8 };
        lens[EventType::START_V3.0 as usize - 1] = 56;
        Ok(FormatDescription {
            binlog_version,
            server_version,
            create_timestamp,
            header_len,
            post_header_lens: lens,
            checksum: ChecksumAlg::None,
            old_type_codes: false,
        })
    }

    /// Post-header length for an event type, or `default` if the FDE does not list it.
    pub fn post_header_len(&self, t: EventType, default: usize) -> usize {
        if t.0 == 0 {
            return default;
        }
        match self.post_header_lens.get(t.0 as usize - 1) {
            Some(&n) => n as usize,
            None => default,
        }
    }

    /// The event type an event header's type code stands for under this format
    /// (the code itself, except in files of the builds [`OLD_TYPE_CODES`] describes).
    #[inline]
    pub fn event_type(&self, code: u8) -> EventType {
        match code {
            16..=22 if self.old_type_codes => OLD_TYPE_CODES[code as usize - 16],
            _ => EventType(code),
        }
    }

    pub fn is_mariadb(&self) -> bool {
        self.server_version.contains("MariaDB")
    }
}

fn parse_version_string(raw: &[u8]) -> String {
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    String::from_utf8_lossy(&raw[..end]).into_owned()
}

/// Leading "major.minor.patch" numbers of a server version string.
pub fn version_triplet(v: &str) -> (u32, u32, u32) {
    let mut parts = v
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<u32>().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

/// MySQL's test for the development builds with other event type codes:
/// versions matching `5.1.[1-5]-a_drop5*`, `5.1.4-a_drop6*` or `5.2.[0-2]-a_drop6*`.
fn has_old_type_codes(v: &str) -> bool {
    let b = v.as_bytes();
    if b.len() < 13 || !v.starts_with("5.") || b[3] != b'.' || &b[5..12] != b"-a_drop" {
        return false;
    }
    let (minor, patch, drop) = (b[2], b[4], b[12]);
    (minor == b'1' && (b'1'..=b'5').contains(&patch) && drop == b'5')
        || (minor == b'1' && patch == b'4' && drop == b'6')
        || (minor == b'2' && (b'0'..=b'2').contains(&patch) && drop == b'6')
}

/// Checksums arrived in MySQL 5.6.1 and MariaDB 5.3.
fn version_has_checksums(v: &str) -> bool {
    let t = version_triplet(v);
    if v.contains("MariaDB") {
        t >= (5, 3, 0)
    } else {
        t >= (5, 6, 1)
    }
}
