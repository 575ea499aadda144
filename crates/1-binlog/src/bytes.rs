//! Bounds-checked little- and big-endian reading over a byte slice.
//!
//! Every read checks the remaining length first, so no input can make the
//! decoder panic or allocate from an unchecked length. Written by hand because
//! the readers in general-purpose crates either panic on short input or copy.

use crate::error::{DecodeError, Result};

/// A cursor over borrowed bytes. `base` is the offset of `data[0]` within the
/// enclosing buffer, so errors can name absolute positions.
#[derive(Debug, Clone, Copy)]
pub struct ByteReader<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> ByteReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        ByteReader {
            data,
            pos: 0,
            base: 0,
        }
    }

    pub fn with_base(data: &'a [u8], base: usize) -> Self {
        ByteReader { data, pos: 0, base }
    }

    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// The bytes not read yet.
    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    #[inline]
    fn truncated(&self, needed: usize) -> DecodeError {
        DecodeError::Truncated {
            at: self.base + self.pos,
            needed,
            available: self.remaining(),
        }
    }

    #[inline]
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.truncated(n));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[inline]
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.take(n).map(|_| ())
    }

    #[inline]
    pub fn take_rest(&mut self) -> &'a [u8] {
        let s = &self.data[self.pos..];
        self.pos = self.data.len();
        s
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let s = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    #[inline]
    pub fn u8(&mut self) -> Result<u8> {
        if self.pos < self.data.len() {
            let b = self.data[self.pos];
            self.pos += 1;
            Ok(b)
        } else {
            Err(self.truncated(1))
        }
    }
    #[inline]
    pub fn u16_le(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    #[inline]
    pub fn u32_le(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    #[inline]
    pub fn u64_le(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    /// Little-endian unsigned integer of `n` (0..=8) bytes.
    #[inline]
    pub fn uint_le(&mut self, n: usize) -> Result<u64> {
        let s = self.take(n)?;
        Ok(uint_le(s))
    }
    /// Big-endian unsigned integer of `n` (0..=8) bytes.
    #[inline]
    pub fn uint_be(&mut self, n: usize) -> Result<u64> {
        let s = self.take(n)?;
        Ok(uint_be(s))
    }

    /// MySQL length-encoded ("packed") integer.
    #[inline]
    pub fn packed_int(&mut self) -> Result<u64> {
        let first = self.u8()?;
        match first {
            0..=250 => Ok(first as u64),
            251 => Ok(0), // NULL marker in row data; a length of 0 elsewhere.
            252 => self.uint_le(2),
            253 => self.uint_le(3),
            _ => self.uint_le(8),
        }
    }

    /// A packed integer used as a length: checked against the bytes left, so a
    /// corrupt length can never drive an allocation or a slice past the end.
    #[inline]
    pub fn packed_len(&mut self) -> Result<usize> {
        let n = self.packed_int()?;
        if n > self.remaining() as u64 {
            return Err(DecodeError::Truncated {
                at: self.base + self.pos,
                needed: usize::try_from(n).unwrap_or(usize::MAX),
                available: self.remaining(),
            });
        }
        Ok(n as usize)
    }

    /// Bytes prefixed by a packed length.
    #[inline]
    pub fn packed_bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.packed_len()?;
        self.take(n)
    }
}

/// Text a renderer assembled from digits and punctuation, as a `str`
/// (empty if it is not ASCII, which callers rule out): `is_ascii` checks
/// a word at a time, where `str::from_utf8` spends about a hundred
/// instructions on a ten-byte date.
pub fn ascii_str(b: &[u8]) -> &str {
    if b.is_ascii() {
        // SAFETY: ASCII is valid UTF-8.
        unsafe { std::str::from_utf8_unchecked(b) }
    } else {
        ""
    }
}

/// Bytes as UTF-8 text, `None` if they are not. Most values are short and
/// ASCII: `is_ascii` (a word at a time) settles those for a few
/// instructions, where a validator spends over a hundred on its set-up.
#[inline]
pub fn utf8_str(b: &[u8]) -> Option<&str> {
    if b.is_ascii() {
        // SAFETY: ASCII is valid UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(b) })
    } else {
        simdutf8::basic::from_utf8(b).ok()
    }
}

#[inline]
pub fn uint_le(s: &[u8]) -> u64 {
    let mut v = 0u64;
    for (i, b) in s.iter().take(8).enumerate() {
        v |= (*b as u64) << (8 * i);
    }
    v
}

#[inline]
pub fn uint_be(s: &[u8]) -> u64 {
    let mut v = 0u64;
    for b in s.iter().take(8) {
        v = (v << 8) | *b as u64;
    }
    v
}

/// Sign-extends the low `bits` bits of `v`.
#[inline]
pub fn sign_extend(v: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((v << shift) as i64) >> shift
}

/// Bit `i` of a little-endian bitmap as MySQL lays them out (bit 0 of byte 0 first).
#[inline]
pub fn bit(bitmap: &[u8], i: usize) -> bool {
    bitmap
        .get(i / 8)
        .map(|b| b & (1 << (i % 8)) != 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_text_is_what_the_standard_library_reads() {
        let cases: [&[u8]; 9] = [
            b"",
            b"plain ascii text",
            "caf\u{e9} \u{fc}ber \u{1f600}".as_bytes(),
            b"\xff",
            b"abc\xc3",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"a long run of ascii before a lone continuation byte \x80",
            b"\x7f\x00\x01",
        ];
        for b in cases {
            assert_eq!(utf8_str(b), std::str::from_utf8(b).ok(), "{b:?}");
        }
    }

    #[test]
    fn short_reads_are_errors() {
        let mut r = ByteReader::new(&[1, 2, 3]);
        assert_eq!(r.u16_le().unwrap(), 0x0201);
        assert!(matches!(
            r.u32_le(),
            Err(DecodeError::Truncated {
                at: 2,
                needed: 4,
                available: 1
            })
        ));
    }

    #[test]
    fn packed_lengths_are_bounded_by_input() {
        let mut r = ByteReader::new(&[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]);
        assert!(r.packed_len().is_err());
        let mut r = ByteReader::new(&[0xfc, 0x02, 0x00, b'a', b'b']);
        assert_eq!(r.packed_bytes().unwrap(), b"ab");
    }

    #[test]
    fn sign_extension() {
        assert_eq!(sign_extend(0xffffff, 24), -1);
        assert_eq!(sign_extend(0x7fffff, 24), 0x7fffff);
    }
}
