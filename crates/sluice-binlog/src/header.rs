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
}

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
        Ok(FormatDescription {
            binlog_version,
            server_version,
            create_timestamp,
            header_len,
            post_header_lens,
            checksum,
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

/// Checksums arrived in MySQL 5.6.1 and MariaDB 5.3.
fn version_has_checksums(v: &str) -> bool {
    let t = version_triplet(v);
    if v.contains("MariaDB") {
        t >= (5, 3, 0)
    } else {
        t >= (5, 6, 1)
    }
}
