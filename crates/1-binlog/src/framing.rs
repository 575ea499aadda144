//! Splits a binlog byte stream into events: magic, common header, length
//! checks, CRC32 verification. Tracks the FORMAT_DESCRIPTION_EVENT so header
//! size and checksum algorithm follow the file (relay logs may change them).

use crate::error::{DecodeError, Result};
use crate::event_type::EventType;
use crate::header::{ChecksumAlg, EventHeader, FormatDescription, HEADER_LEN_V1, HEADER_LEN_V4};

/// The four bytes every binlog file starts with.
pub const BINLOG_MAGIC: [u8; 4] = [0xfe, b'b', b'i', b'n'];

/// One framed event: its header, body (without checksum) and where it was.
#[derive(Debug, Clone, Copy)]
pub struct RawEvent<'a> {
    /// Offset of the first header byte in the file (or stream).
    pub pos: u64,
    pub header: EventHeader,
    /// The bytes after the common header, without the checksum.
    pub body: &'a [u8],
    /// Header + body + checksum, as read.
    pub bytes: &'a [u8],
}

impl RawEvent<'_> {
    pub fn next_pos(&self) -> u64 {
        self.pos + self.bytes.len() as u64
    }
}

/// An iterator over the events of an in-memory binlog (a file, or a buffer
/// that holds events in file layout). Stops at the first error.
pub struct EventFramer<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Added to every reported position: the offset of `buf[0]` in the file.
    base: u64,
    format: FormatDescription,
    verify_checksums: bool,
    failed: bool,
}

/// A framing error with the offset of the event it concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FramingError {
    pub pos: u64,
    pub event: Option<EventType>,
    pub error: DecodeError,
}

impl<'a> EventFramer<'a> {
    /// Frames a whole binlog file: checks the magic first.
    pub fn for_file(buf: &'a [u8]) -> std::result::Result<Self, FramingError> {
        if buf.len() < 4 || buf[..4] != BINLOG_MAGIC {
            return Err(FramingError {
                pos: 0,
                event: None,
                error: DecodeError::BadMagic {
                    found: buf[..buf.len().min(4)].to_vec(),
                },
            });
        }
        Ok(EventFramer {
            buf,
            pos: 4,
            base: 0,
            format: FormatDescription::default(),
            verify_checksums: true,
            failed: false,
        })
    }

    /// Frames events laid out back to back, with a known format (e.g. the
    /// decompressed content of a TRANSACTION_PAYLOAD_EVENT, whose inner
    /// events carry no checksum).
    pub fn for_events(buf: &'a [u8], format: FormatDescription, base: u64) -> Self {
        EventFramer {
            buf,
            pos: 0,
            base,
            format,
            verify_checksums: true,
            failed: false,
        }
    }

    /// Skip CRC32 verification (never the default; for measuring its cost).
    pub fn without_checksum_verification(mut self) -> Self {
        self.verify_checksums = false;
        self
    }

    /// The format in force after the events read so far.
    pub fn format(&self) -> &FormatDescription {
        &self.format
    }

    /// Offset in the file of the next event to be read.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    fn fail(&mut self, event: Option<EventType>, error: DecodeError) -> FramingError {
        self.failed = true;
        FramingError {
            pos: self.offset(),
            event,
            error,
        }
    }

    fn next_event(&mut self) -> std::result::Result<Option<RawEvent<'a>>, FramingError> {
        let rest = &self.buf[self.pos..];
        if rest.is_empty() {
            return Ok(None);
        }
        // v1/v3 files open with START_EVENT_V3; its size tells the header length.
        let mut header_len = self.format.header_len;
        if self.pos == 4 && self.base == 0 && rest.len() >= HEADER_LEN_V1 && rest[4] == 1 {
            let size = u32::from_le_bytes([rest[9], rest[10], rest[11], rest[12]]);
            header_len = if size as usize == HEADER_LEN_V1 + 56 {
                HEADER_LEN_V1
            } else {
                HEADER_LEN_V4
            };
        }
        if rest.len() < header_len {
            return Err(self.fail(
                None,
                DecodeError::Truncated {
                    at: self.pos,
                    needed: header_len,
                    available: rest.len(),
                },
            ));
        }
        let mut header = EventHeader::parse(rest, header_len).map_err(|e| self.fail(None, e))?;
        header.event_type = self.format.event_type(header.event_type.0);
        let size = header.event_size as usize;
        let et = Some(header.event_type);
        if size < header_len {
            return Err(self.fail(
                et,
                DecodeError::BadEventLength {
                    length: size as u64,
                    minimum: header_len as u64,
                },
            ));
        }
        if size > rest.len() {
            return Err(self.fail(
                et,
                DecodeError::Truncated {
                    at: self.pos,
                    needed: size,
                    available: rest.len(),
                },
            ));
        }
        let bytes = &rest[..size];
        let mut body = &bytes[header_len..];
        let t = header.event_type;
        if t == EventType::FORMAT_DESCRIPTION {
            let fde = FormatDescription::parse(body).map_err(|e| self.fail(et, e))?;
            if fde.checksum == ChecksumAlg::Crc32 {
                body = self.checked_body(bytes, header_len, et)?;
            } else if bytes.len() >= header_len + 57 + 5 && fde_has_checksum_slot(&fde) {
                body = &bytes[header_len..bytes.len() - 4];
            }
            self.format = fde;
        } else if t == EventType::START_V3 && self.pos == 4 && self.base == 0 {
            self.format =
                FormatDescription::from_start_v3(body, header_len).map_err(|e| self.fail(et, e))?;
        } else if self.format.checksum == ChecksumAlg::Crc32 {
            body = self.checked_body(bytes, header_len, et)?;
        }
        let ev = RawEvent {
            pos: self.offset(),
            header,
            body,
            bytes,
        };
        self.pos += size;
        Ok(Some(ev))
    }

    fn checked_body(
        &mut self,
        bytes: &'a [u8],
        header_len: usize,
        et: Option<EventType>,
    ) -> std::result::Result<&'a [u8], FramingError> {
        if bytes.len() < header_len + 4 {
            return Err(self.fail(
                et,
                DecodeError::BadEventLength {
                    length: bytes.len() as u64,
                    minimum: header_len as u64 + 4,
                },
            ));
        }
        let (data, crc) = bytes.split_at(bytes.len() - 4);
        if self.verify_checksums {
            let stored = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
            let computed = event_crc32(data);
            if stored != computed {
                return Err(self.fail(et, DecodeError::ChecksumMismatch { stored, computed }));
            }
        }
        Ok(&data[header_len..])
    }
}

/// CRC32 of an event without its checksum. The server clears the FDE's
/// "binlog in use" flag when it closes a file without updating the checksum,
/// so the FDE is checked with that flag cleared, as the server does.
fn event_crc32(data: &[u8]) -> u32 {
    const FLAGS_OFFSET: usize = 17;
    const BINLOG_IN_USE: u8 = 0x01;
    if data.len() > FLAGS_OFFSET
        && data[4] == EventType::FORMAT_DESCRIPTION.0
        && data[FLAGS_OFFSET] & BINLOG_IN_USE != 0
    {
        let mut h = crc32fast::Hasher::new();
        h.update(&data[..FLAGS_OFFSET]);
        h.update(&[data[FLAGS_OFFSET] & !BINLOG_IN_USE]);
        h.update(&data[FLAGS_OFFSET + 1..]);
        h.finalize()
    } else {
        crc32fast::hash(data)
    }
}

/// A checksum-aware server's FDE always carries the algorithm byte and a
/// 4-byte slot, even when the algorithm is NONE.
fn fde_has_checksum_slot(fde: &FormatDescription) -> bool {
    let v = crate::header::version_triplet(&fde.server_version);
    if fde.server_version.contains("MariaDB") {
        v >= (5, 3, 0)
    } else {
        v >= (5, 6, 1)
    }
}

impl<'a> Iterator for EventFramer<'a> {
    type Item = std::result::Result<RawEvent<'a>, FramingError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        self.next_event().transpose()
    }
}

/// Frames exactly one event from `bytes` (e.g. one packet of a replication
/// stream), verifying its checksum per `format`.
pub fn frame_one<'a>(
    bytes: &'a [u8],
    pos: u64,
    format: &FormatDescription,
) -> Result<RawEvent<'a>> {
    let mut f = EventFramer::for_events(bytes, format.clone(), pos);
    match f.next() {
        Some(Ok(ev)) => Ok(ev),
        Some(Err(e)) => Err(e.error),
        None => Err(DecodeError::Truncated {
            at: 0,
            needed: format.header_len,
            available: 0,
        }),
    }
}
