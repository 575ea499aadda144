//! Compressed event content: MariaDB's zlib-compressed QUERY and rows events
//! (`log_bin_compress`), and MySQL 8's zstd TRANSACTION_PAYLOAD_EVENT.
//!
//! A few bytes of compressed data can inflate to gigabytes, so inflation is
//! bounded twice: by the size the event declares (a stream producing more is
//! refused), and by a ceiling on any event's content, [`max_uncompressed`]
//! (a declared size above it is refused before anything is allocated). The
//! output grows as data actually arrives, never to the declared size up front.

use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{DecodeError, Result};

/// Default ceiling on an event's uncompressed content: 256 MiB. Four times
/// MySQL 8's default `max_allowed_packet` (64 MiB, MariaDB's is 16 MiB), which
/// bounds a single row, while a 1 MiB file cannot make the reader take more
/// than a small part of a server's memory. Raise it with
/// `sluice.binlog.maxEventSize` / `--max-event-size` for bigger transactions.
pub const DEFAULT_MAX_UNCOMPRESSED: usize = 256 << 20;

/// The highest ceiling that can be set: MySQL's largest `max_allowed_packet`.
pub const MAX_UNCOMPRESSED_LIMIT: usize = 1 << 30;

static MAX_UNCOMPRESSED: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_UNCOMPRESSED);

/// The ceiling on an event's uncompressed content, in bytes.
pub fn max_uncompressed() -> usize {
    MAX_UNCOMPRESSED.load(Ordering::Relaxed)
}

/// Sets the ceiling for the whole process (the binaries do it once at start
/// from their configuration); clamped to 1 byte ..= [`MAX_UNCOMPRESSED_LIMIT`].
pub fn set_max_uncompressed(bytes: usize) {
    MAX_UNCOMPRESSED.store(bytes.clamp(1, MAX_UNCOMPRESSED_LIMIT), Ordering::Relaxed);
}

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
    let declared = crate::bytes::uint_be(&src[1..1 + lenlen]);
    let limit = check_declared(declared)?;
    let mut decoder = flate2::read::ZlibDecoder::new(&src[1 + lenlen..]);
    let out = inflate_bounded(&mut decoder, limit, Some(declared), "zlib")?;
    if out.len() as u64 != declared {
        return Err(DecodeError::Decompress(format!(
            "zlib gave {} bytes, header says {declared}",
            out.len()
        )));
    }
    Ok(out)
}

/// Decompresses the zstd frame of a TRANSACTION_PAYLOAD_EVENT, checked
/// against `expected` when the event states its uncompressed size (and
/// against the ceiling either way).
pub fn zstd_decompress(src: &[u8], expected: Option<u64>) -> Result<Vec<u8>> {
    let limit = match expected {
        Some(n) => check_declared(n)?,
        None => max_uncompressed(),
    };
    let mut decoder = zstd::stream::read::Decoder::new(src)
        .map_err(|e| DecodeError::Decompress(format!("zstd: {e}")))?;
    let out = inflate_bounded(&mut decoder, limit, expected, "zstd")?;
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

/// The declared size as a length, if within the ceiling.
fn check_declared(declared: u64) -> Result<usize> {
    let ceiling = max_uncompressed();
    match usize::try_from(declared) {
        Ok(n) if n <= ceiling => Ok(n),
        _ => Err(DecodeError::UncompressedTooLarge { declared, ceiling }),
    }
}

/// Reads `src` to its end into a buffer of at most `limit` bytes, growing it
/// as data arrives. More than `limit` bytes is an error (`declared` is what
/// the event said, if it said, for the message).
fn inflate_bounded(
    src: &mut impl Read,
    limit: usize,
    declared: Option<u64>,
    what: &str,
) -> Result<Vec<u8>> {
    const FIRST_CHUNK: usize = 64 << 10;
    let mut out: Vec<u8> = Vec::new();
    let mut filled = 0usize;
    loop {
        if filled == out.len() {
            if filled == limit {
                break;
            }
            // Double, but never past the limit: at most twice what arrived.
            let grow = filled.max(FIRST_CHUNK).min(limit - filled);
            out.resize(filled + grow, 0);
        }
        match src.read(&mut out[filled..]) {
            Ok(0) => {
                out.truncate(filled);
                return Ok(out);
            }
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(DecodeError::Decompress(format!("{what}: {e}"))),
        }
    }
    // Exactly `limit` bytes so far: the stream must end here.
    let mut probe = [0u8; 1];
    loop {
        match src.read(&mut probe) {
            Ok(0) => return Ok(out),
            Ok(_) => {
                return Err(DecodeError::InflatesBeyond {
                    declared,
                    ceiling: max_uncompressed(),
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(DecodeError::Decompress(format!("{what}: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// MariaDB's compressed layout: header byte, big-endian length, zlib.
    fn mariadb_compressed(declared: u32, content: &[u8]) -> Vec<u8> {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(content).unwrap();
        let mut out = vec![0x84];
        out.extend_from_slice(&declared.to_be_bytes());
        out.extend(z.finish().unwrap());
        out
    }

    #[test]
    fn a_declared_size_over_the_ceiling_is_refused_before_inflating() {
        let src = mariadb_compressed(DEFAULT_MAX_UNCOMPRESSED as u32 + 1, b"small");
        let err = mariadb_uncompress(&src).unwrap_err();
        assert_eq!(
            err,
            DecodeError::UncompressedTooLarge {
                declared: DEFAULT_MAX_UNCOMPRESSED as u64 + 1,
                ceiling: DEFAULT_MAX_UNCOMPRESSED
            }
        );
        assert!(
            err.to_string().contains("sluice.binlog.maxEventSize"),
            "{err}"
        );
    }

    #[test]
    fn a_stream_inflating_past_its_declared_size_is_refused() {
        // 8 MiB of zeros (8 KiB compressed) in an event that declares 1000 bytes.
        let src = mariadb_compressed(1000, &vec![0u8; 8 << 20]);
        assert_eq!(
            mariadb_uncompress(&src).unwrap_err(),
            DecodeError::InflatesBeyond {
                declared: Some(1000),
                ceiling: DEFAULT_MAX_UNCOMPRESSED
            }
        );
        let mut z = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
        z.write_all(&vec![0u8; 8 << 20]).unwrap();
        let frame = z.finish().unwrap();
        assert!(matches!(
            zstd_decompress(&frame, Some(1000)),
            Err(DecodeError::InflatesBeyond {
                declared: Some(1000),
                ..
            })
        ));
    }

    #[test]
    fn exact_sizes_inflate_and_short_streams_are_errors() {
        let content: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let src = mariadb_compressed(content.len() as u32, &content);
        assert_eq!(mariadb_uncompress(&src).unwrap(), content);
        let src = mariadb_compressed(content.len() as u32 + 1, &content);
        assert!(matches!(
            mariadb_uncompress(&src),
            Err(DecodeError::Decompress(_))
        ));
        let frame = zstd::bulk::compress(&content, 3).unwrap();
        assert_eq!(
            zstd_decompress(&frame, Some(content.len() as u64)).unwrap(),
            content
        );
        assert_eq!(zstd_decompress(&frame, None).unwrap(), content);
    }
}
