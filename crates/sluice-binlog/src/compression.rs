//! Compressed event content: MariaDB's zlib-compressed QUERY and rows events
//! (`log_bin_compress`), and MySQL 8's zstd TRANSACTION_PAYLOAD_EVENT.
//! Output sizes are checked against a hard cap before any allocation.

use std::io::Read;

use crate::error::{DecodeError, Result};

/// Largest decompressed content accepted: MySQL's max_allowed_packet ceiling.
pub const MAX_UNCOMPRESSED: usize = 1 << 30;

/// MariaDB `binlog_buf_uncompress`: one header byte `0x80 | n` (n = 1–4
/// bytes of big-endian uncompressed length follow), then a zlib stream.
pub fn mariadb_uncompress(src: &[u8]) -> Result<Vec<u8>> {
    let header = *src
        .first()
        .ok_or_else(|| DecodeError::Decompress("empty compressed data".into()))?;
    let lenlen = (header & 0x07) as usize;
    if header & 0x80 == 0 || !(1..=4).contains(&lenlen) || src.len() < 1 + lenlen {
        return Err(DecodeError::Decompress(format!(
            "bad compressed-data header byte {header:#04x}"
        )));
    }
    let expected = crate::bytes::uint_be(&src[1..1 + lenlen]) as usize;
    if expected > MAX_UNCOMPRESSED {
        return Err(DecodeError::Decompress(format!(
            "claims {expected} uncompressed bytes, over the {MAX_UNCOMPRESSED} limit"
        )));
    }
    let mut out = Vec::with_capacity(expected.min(src.len().saturating_mul(16)));
    flate2::read::ZlibDecoder::new(&src[1 + lenlen..])
        .take(expected as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| DecodeError::Decompress(format!("zlib: {e}")))?;
    if out.len() != expected {
        return Err(DecodeError::Decompress(format!(
            "zlib gave {} bytes, header says {expected}",
            out.len()
        )));
    }
    Ok(out)
}

/// Decompresses a zstd frame whose content size is declared (checked
/// against `expected` when the event states it).
pub fn zstd_decompress(src: &[u8], expected: Option<u64>) -> Result<Vec<u8>> {
    let cap = match expected {
        Some(n) if n as usize > MAX_UNCOMPRESSED => {
            return Err(DecodeError::Decompress(format!(
                "payload claims {n} uncompressed bytes, over the {MAX_UNCOMPRESSED} limit"
            )))
        }
        Some(n) => n as usize,
        None => MAX_UNCOMPRESSED,
    };
    let mut out = Vec::with_capacity(cap.min(src.len().saturating_mul(16)));
    let decoder = zstd::stream::read::Decoder::new(src)
        .map_err(|e| DecodeError::Decompress(format!("zstd: {e}")))?;
    decoder
        .take(cap as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| DecodeError::Decompress(format!("zstd: {e}")))?;
    if let Some(n) = expected {
        if out.len() as u64 != n {
            return Err(DecodeError::Decompress(format!(
                "zstd gave {} bytes, event says {n}",
                out.len()
            )));
        }
    }
    Ok(out)
}
