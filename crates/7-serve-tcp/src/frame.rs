//! Canal's framing: every message in both directions is a 4-byte big-endian
//! signed length followed by exactly that many bytes of a serialised
//! `Packet` (spec §1). No magic, no checksum, no other delimiter.
//!
//! Owns: splitting a byte buffer into frames and writing frame headers, with
//! a bound on the body size. Pure functions over slices: no I/O, no
//! allocation when decoding, so the decoder can be fuzzed directly.
//! Must never: panic or allocate on behalf of a length it has not checked
//! against the bound (a hostile prefix such as `7f ff ff ff` must cost
//! nothing), or accept a negative length.

/// Bytes in a frame header.
pub const HEADER_LEN: usize = 4;

/// Default bound for frames a server accepts. Canal requests are small
/// (the largest is a ClientAuth or Sub carrying a table filter); 1 MiB
/// leaves room for filters listing thousands of tables.
pub const DEFAULT_MAX_REQUEST_FRAME: usize = 1024 * 1024;

/// The largest body a frame header can describe (`i32::MAX`).
pub const MAX_FRAME_BODY: usize = i32::MAX as usize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("frame length {0} is negative")]
    NegativeLength(i32),
    #[error("frame length {len} exceeds the limit of {max} bytes")]
    TooLarge { len: usize, max: usize },
}

/// The outcome of looking for one frame at the start of a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoded<'a> {
    /// Not a whole frame yet: at least `needed` bytes in total are required
    /// before the next call can make progress.
    Incomplete { needed: usize },
    /// A whole frame: its body, and how many bytes of the buffer it took
    /// (header included).
    Frame { body: &'a [u8], consumed: usize },
}

/// The body length announced by a frame header, checked against `max`.
pub fn body_len(header: [u8; HEADER_LEN], max: usize) -> Result<usize, FrameError> {
    let len = i32::from_be_bytes(header);
    if len < 0 {
        return Err(FrameError::NegativeLength(len));
    }
    let len = len as usize;
    if len > max {
        return Err(FrameError::TooLarge { len, max });
    }
    Ok(len)
}

/// Looks for one frame at the start of `buf`. The length is checked
/// against `max` as soon as the header is there, before the body arrives.
pub fn decode(buf: &[u8], max: usize) -> Result<Decoded<'_>, FrameError> {
    let Some((header, rest)) = buf.split_first_chunk::<HEADER_LEN>() else {
        return Ok(Decoded::Incomplete { needed: HEADER_LEN });
    };
    let len = body_len(*header, max)?;
    match rest.get(..len) {
        Some(body) => Ok(Decoded::Frame {
            body,
            consumed: HEADER_LEN + len,
        }),
        None => Ok(Decoded::Incomplete {
            needed: HEADER_LEN + len,
        }),
    }
}

/// The header for a body of `len` bytes.
pub fn header(len: usize) -> Result<[u8; HEADER_LEN], FrameError> {
    match i32::try_from(len) {
        Ok(n) => Ok(n.to_be_bytes()),
        Err(_) => Err(FrameError::TooLarge {
            len,
            max: MAX_FRAME_BODY,
        }),
    }
}

/// Appends a whole frame (header and body) to `out`.
pub fn encode_into(body: &[u8], out: &mut Vec<u8>) -> Result<(), FrameError> {
    out.reserve(HEADER_LEN + body.len());
    out.extend_from_slice(&header(body.len())?);
    out.extend_from_slice(body);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_back_to_back_frames() {
        let mut buf = Vec::new();
        encode_into(b"abc", &mut buf).unwrap();
        encode_into(b"", &mut buf).unwrap();
        encode_into(b"xy", &mut buf).unwrap();
        assert_eq!(&buf[..4], &[0, 0, 0, 3]);
        let mut at = 0;
        let mut bodies = Vec::new();
        while let Decoded::Frame { body, consumed } = decode(&buf[at..], 16).unwrap() {
            bodies.push(body.to_vec());
            at += consumed;
        }
        assert_eq!(bodies, [b"abc".to_vec(), vec![], b"xy".to_vec()]);
        assert_eq!(at, buf.len());
    }

    #[test]
    fn partial_input_asks_for_more() {
        assert_eq!(decode(&[], 16), Ok(Decoded::Incomplete { needed: 4 }));
        assert_eq!(decode(&[0, 0], 16), Ok(Decoded::Incomplete { needed: 4 }));
        assert_eq!(
            decode(&[0, 0, 0, 5, 1, 2], 16),
            Ok(Decoded::Incomplete { needed: 9 })
        );
    }

    #[test]
    fn bounds_are_checked_from_the_header_alone() {
        assert_eq!(
            decode(&[0x7f, 0xff, 0xff, 0xff], 1024),
            Err(FrameError::TooLarge {
                len: i32::MAX as usize,
                max: 1024
            })
        );
        assert_eq!(
            decode(&[0xff, 0xff, 0xff, 0xfe], 1024),
            Err(FrameError::NegativeLength(-2))
        );
        // Exactly at the bound is fine.
        assert_eq!(
            decode(&[0, 0, 0, 2, 9, 9], 2),
            Ok(Decoded::Frame {
                body: &[9, 9],
                consumed: 6
            })
        );
    }

    #[test]
    fn header_refuses_lengths_beyond_i32() {
        assert_eq!(header(16).unwrap(), [0, 0, 0, 16]);
        assert!(header(MAX_FRAME_BODY + 1).is_err());
    }
}
