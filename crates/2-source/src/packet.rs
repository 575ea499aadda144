//! MySQL client/server packet framing, as pure functions over bytes: the
//! 4-byte header (3-byte little-endian payload length, 1-byte sequence id),
//! the split of payloads of 16 MiB − 1 bytes or more into several packets and
//! their join, and the small readers and writers of the wire types
//! (length-encoded integers and strings, NUL-terminated strings).
//!
//! Owns: the byte layout. Must never: do I/O, allocate more than the input
//! asks for, or panic on short or hostile input (every read is bounds-checked).

use std::fmt;

/// Bytes before every packet payload.
pub const HEADER_LEN: usize = 4;

/// The largest payload one packet can carry. A payload of exactly this length
/// says "more follows": the logical payload continues in the next packet.
pub const MAX_PAYLOAD: usize = 0xFF_FFFF;

/// The header of one packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketHeader {
    pub len: usize,
    pub seq: u8,
}

impl PacketHeader {
    /// Parses the 4 header bytes at the start of `buf`, if there are 4.
    #[inline]
    pub fn parse(buf: &[u8]) -> Option<PacketHeader> {
        if buf.len() < HEADER_LEN {
            return None;
        }
        Some(PacketHeader {
            len: buf[0] as usize | (buf[1] as usize) << 8 | (buf[2] as usize) << 16,
            seq: buf[3],
        })
    }

    /// Whether the logical payload continues in the next packet.
    #[inline]
    pub fn continues(&self) -> bool {
        self.len == MAX_PAYLOAD
    }

    pub fn encode(&self) -> [u8; HEADER_LEN] {
        [
            (self.len & 0xff) as u8,
            ((self.len >> 8) & 0xff) as u8,
            ((self.len >> 16) & 0xff) as u8,
            self.seq,
        ]
    }
}

/// Appends `payload` to `out` as one or more packets, numbering them from
/// `*seq` (which is left at the number for the next packet). A payload of a
/// multiple of [`MAX_PAYLOAD`] bytes ends with an empty packet, as the
/// protocol requires.
pub fn write_packets(out: &mut Vec<u8>, payload: &[u8], seq: &mut u8) {
    out.reserve(payload.len() + HEADER_LEN * (payload.len() / MAX_PAYLOAD + 1));
    let mut rest = payload;
    loop {
        let n = rest.len().min(MAX_PAYLOAD);
        out.extend_from_slice(&PacketHeader { len: n, seq: *seq }.encode());
        out.extend_from_slice(&rest[..n]);
        *seq = seq.wrapping_add(1);
        rest = &rest[n..];
        if n < MAX_PAYLOAD {
            break;
        }
    }
}

/// Joins the packets at the start of `buf` into one payload, if they are all
/// there. Returns the payload and the number of bytes of `buf` they took, and
/// the sequence id of the last packet. `None` when more bytes are needed.
pub fn join_packets(buf: &[u8]) -> Option<(Vec<u8>, usize, u8)> {
    let mut payload = Vec::new();
    let mut at = 0;
    loop {
        let h = PacketHeader::parse(&buf[at..])?;
        let body = buf.get(at + HEADER_LEN..at + HEADER_LEN + h.len)?;
        payload.extend_from_slice(body);
        at += HEADER_LEN + h.len;
        if !h.continues() {
            return Some((payload, at, h.seq));
        }
    }
}

/// A wire-format error: what was being read and why it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError {
    pub what: &'static str,
    pub detail: String,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.what, self.detail)
    }
}

impl std::error::Error for WireError {}

/// Bounds-checked reads from one packet payload.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Reader<'a> {
    /// `what` names the packet in errors ("handshake greeting", ...).
    pub fn new(buf: &'a [u8], what: &'static str) -> Self {
        Reader { buf, pos: 0, what }
    }

    fn short(&self, needed: usize) -> WireError {
        WireError {
            what: self.what,
            detail: format!(
                "ends after {} bytes; {needed} more needed at offset {}",
                self.buf.len(),
                self.pos
            ),
        }
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    pub fn rest(&mut self) -> &'a [u8] {
        let r = &self.buf[self.pos..];
        self.pos = self.buf.len();
        r
    }

    pub fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        if self.remaining() < n {
            return Err(self.short(n));
        }
        let r = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(r)
    }

    pub fn skip(&mut self, n: usize) -> Result<(), WireError> {
        self.take(n).map(|_| ())
    }

    pub fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1)?[0])
    }

    pub fn u16(&mut self) -> Result<u16, WireError> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self) -> Result<u32, WireError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn uint(&mut self, n: usize) -> Result<u64, WireError> {
        let b = self.take(n)?;
        Ok(b.iter()
            .rev()
            .fold(0u64, |acc, &x| (acc << 8) | u64::from(x)))
    }

    /// A length-encoded integer; `None` for the NULL marker 0xfb.
    pub fn lenenc_int(&mut self) -> Result<Option<u64>, WireError> {
        let first = self.u8()?;
        Ok(Some(match first {
            0xfb => return Ok(None),
            0xfc => self.uint(2)?,
            0xfd => self.uint(3)?,
            0xfe => self.uint(8)?,
            0xff => {
                return Err(WireError {
                    what: self.what,
                    detail: format!(
                        "0xff is not a length-encoded integer (offset {})",
                        self.pos - 1
                    ),
                })
            }
            n => u64::from(n),
        }))
    }

    /// A length-encoded string; `None` for NULL.
    pub fn lenenc_bytes(&mut self) -> Result<Option<&'a [u8]>, WireError> {
        match self.lenenc_int()? {
            None => Ok(None),
            Some(n) => {
                let n = usize::try_from(n).map_err(|_| self.short(usize::MAX))?;
                self.take(n).map(Some)
            }
        }
    }

    /// Bytes up to a NUL (consumed), or to the end if there is none.
    pub fn nul_bytes(&mut self) -> &'a [u8] {
        let rest = &self.buf[self.pos..];
        match rest.iter().position(|&b| b == 0) {
            Some(i) => {
                self.pos += i + 1;
                &rest[..i]
            }
            None => {
                self.pos = self.buf.len();
                rest
            }
        }
    }
}

/// Appends a length-encoded integer.
pub fn put_lenenc_int(out: &mut Vec<u8>, v: u64) {
    if v < 251 {
        out.push(v as u8);
    } else if v < 1 << 16 {
        out.push(0xfc);
        out.extend_from_slice(&(v as u16).to_le_bytes());
    } else if v < 1 << 24 {
        out.push(0xfd);
        out.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
    } else {
        out.push(0xfe);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Appends a length-encoded string.
pub fn put_lenenc_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_lenenc_int(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Appends bytes and a terminating NUL.
pub fn put_nul_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(b);
    out.push(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip() {
        let h = PacketHeader {
            len: 0x12_3456,
            seq: 7,
        };
        assert_eq!(h.encode(), [0x56, 0x34, 0x12, 7]);
        assert_eq!(PacketHeader::parse(&h.encode()), Some(h));
        assert_eq!(PacketHeader::parse(&[1, 2, 3]), None);
    }

    #[test]
    fn small_payload_is_one_packet() {
        let mut out = Vec::new();
        let mut seq = 3;
        write_packets(&mut out, b"abc", &mut seq);
        assert_eq!(out, [3, 0, 0, 3, b'a', b'b', b'c']);
        assert_eq!(seq, 4);
        let (p, used, last) = join_packets(&out).unwrap();
        assert_eq!((p.as_slice(), used, last), (&b"abc"[..], 7, 3));
    }

    #[test]
    fn large_payload_splits_and_joins() {
        // 16 MiB - 1 + 10 bytes: one full packet and one of 10 bytes.
        let payload: Vec<u8> = (0..MAX_PAYLOAD + 10).map(|i| (i % 251) as u8).collect();
        let mut out = Vec::new();
        let mut seq = 255;
        write_packets(&mut out, &payload, &mut seq);
        assert_eq!(seq, 1, "sequence ids wrap");
        assert_eq!(out.len(), payload.len() + 2 * HEADER_LEN);
        assert_eq!(
            PacketHeader::parse(&out).unwrap(),
            PacketHeader {
                len: MAX_PAYLOAD,
                seq: 255
            }
        );
        let (p, used, last) = join_packets(&out).unwrap();
        assert_eq!(used, out.len());
        assert_eq!(last, 0);
        assert!(p == payload);
        // Incomplete input asks for more.
        assert!(join_packets(&out[..out.len() - 1]).is_none());
    }

    #[test]
    fn exact_multiple_ends_with_empty_packet() {
        let payload = vec![7u8; MAX_PAYLOAD];
        let mut out = Vec::new();
        let mut seq = 0;
        write_packets(&mut out, &payload, &mut seq);
        assert_eq!(out.len(), MAX_PAYLOAD + 2 * HEADER_LEN);
        assert_eq!(&out[out.len() - 4..], &[0, 0, 0, 1]);
        let (p, _, _) = join_packets(&out).unwrap();
        assert_eq!(p.len(), MAX_PAYLOAD);
    }

    #[test]
    fn lenenc_round_trip() {
        for v in [
            0u64,
            250,
            251,
            0xffff,
            0x1_0000,
            0xff_ffff,
            0x100_0000,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            put_lenenc_int(&mut out, v);
            let mut r = Reader::new(&out, "test");
            assert_eq!(r.lenenc_int().unwrap(), Some(v));
            assert!(r.is_empty());
        }
        let mut r = Reader::new(&[0xfb], "test");
        assert_eq!(r.lenenc_int().unwrap(), None);
        let mut r = Reader::new(&[0xfc, 1], "test");
        assert!(r.lenenc_int().is_err());
        let mut r = Reader::new(&[5, b'a'], "test");
        assert!(r.lenenc_bytes().is_err());
    }

    #[test]
    fn nul_strings() {
        let mut r = Reader::new(b"abc\0de", "test");
        assert_eq!(r.nul_bytes(), b"abc");
        assert_eq!(r.nul_bytes(), b"de");
        assert!(r.is_empty());
    }
}
