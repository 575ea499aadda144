//! Decoding errors. Every error carries enough context (what, and where in
//! the event) for the caller to add the file name and event offset.

use thiserror::Error;

/// What went wrong while decoding bytes that came from a binlog.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    #[error("unexpected end of data: needed {needed} bytes at {at}, only {available} left")]
    Truncated {
        at: usize,
        needed: usize,
        available: usize,
    },
    #[error("not a binlog file: magic bytes are {found:02x?}, expected fe 62 69 6e")]
    BadMagic { found: Vec<u8> },
    #[error("checksum mismatch: stored crc32 {stored:#010x}, computed {computed:#010x}")]
    ChecksumMismatch { stored: u32, computed: u32 },
    #[error("invalid event length {length} (header says so; minimum is {minimum})")]
    BadEventLength { length: u64, minimum: u64 },
    #[error("invalid {what}: {detail}")]
    Invalid { what: &'static str, detail: String },
    #[error("unsupported {what}: {detail}")]
    Unsupported { what: &'static str, detail: String },
    #[error("rows event refers to table id {0} with no preceding TABLE_MAP_EVENT")]
    UnknownTable(u64),
    #[error("binlog is encrypted (START_ENCRYPTION_EVENT); decrypting needs the server's key, which Sluice does not have: read it over replication instead")]
    Encrypted,
    #[error("decompression failed: {0}")]
    Decompress(String),
    /// A compressed event declares more content than any event may have.
    #[error("compressed event declares {declared} bytes uncompressed, over the {ceiling}-byte ceiling on an event's content; if the event is genuine, raise sluice.binlog.maxEventSize (canal.properties) or --max-event-size (sluice binlog decode/tail)")]
    UncompressedTooLarge { declared: u64, ceiling: usize },
    /// A compressed event's data inflates to more than it declares (or, when
    /// it declares no size, to more than the ceiling).
    #[error("{}", inflates_beyond_text(*.declared, *.ceiling))]
    InflatesBeyond {
        declared: Option<u64>,
        ceiling: usize,
    },
}

fn inflates_beyond_text(declared: Option<u64>, ceiling: usize) -> String {
    match declared {
        Some(n) => format!(
            "compressed event inflates to more than the {n} bytes it declares: the event is corrupt (decompression stopped there)"
        ),
        None => format!(
            "compressed event inflates past the {ceiling}-byte ceiling on an event's content (it declares no size); if the event is genuine, raise sluice.binlog.maxEventSize (canal.properties) or --max-event-size (sluice binlog decode/tail)"
        ),
    }
}

impl DecodeError {
    pub(crate) fn invalid(what: &'static str, detail: impl Into<String>) -> Self {
        DecodeError::Invalid {
            what,
            detail: detail.into(),
        }
    }
    pub(crate) fn unsupported(what: &'static str, detail: impl Into<String>) -> Self {
        DecodeError::Unsupported {
            what,
            detail: detail.into(),
        }
    }
}

/// A decoding error located in a binlog: the file and the start offset of the event.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{file}:{offset}: {event}: {error}")]
pub struct LocatedError {
    pub file: String,
    pub offset: u64,
    /// Event type name, or "event header" when the header itself is bad.
    pub event: String,
    pub error: DecodeError,
}

pub type Result<T, E = DecodeError> = std::result::Result<T, E>;
