//! Protobuf wire format written straight into a byte buffer, for the hot
//! path of rows events: a Canal `RowChange` with its rows and columns is
//! serialised without building the message structs first (which costs a
//! dozen allocations per column). The bytes are the same as prost writes for
//! the same message: fields in tag order, minimal varints, `int32` negatives
//! as 10-byte varints, `Option` fields written only when set.

/// Wire type of varints (int32, int64, bool, enum).
pub const VARINT: u8 = 0;
/// Wire type of length-delimited fields (string, bytes, message).
pub const LEN: u8 = 2;

#[inline]
pub fn varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

#[inline]
pub fn varint_len(v: u64) -> usize {
    // 1 byte per 7 bits, at least one.
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

/// A field key; `field` is below 16 everywhere here, so one byte.
#[inline]
pub fn key(buf: &mut Vec<u8>, field: u32, wire: u8) {
    varint(buf, ((field << 3) | wire as u32) as u64);
}

#[inline]
pub fn key_len(field: u32) -> usize {
    varint_len((field << 3) as u64)
}

#[inline]
pub fn int32(buf: &mut Vec<u8>, field: u32, v: i32) {
    key(buf, field, VARINT);
    // int32 is sign-extended to 64 bits on the wire.
    varint(buf, v as i64 as u64);
}

#[inline]
pub fn int32_len(field: u32, v: i32) -> usize {
    key_len(field) + varint_len(v as i64 as u64)
}

#[inline]
pub fn int64(buf: &mut Vec<u8>, field: u32, v: i64) {
    key(buf, field, VARINT);
    varint(buf, v as u64);
}

#[inline]
pub fn boolean(buf: &mut Vec<u8>, field: u32, v: bool) {
    key(buf, field, VARINT);
    buf.push(v as u8);
}

#[inline]
pub fn bytes(buf: &mut Vec<u8>, field: u32, v: &[u8]) {
    key(buf, field, LEN);
    varint(buf, v.len() as u64);
    buf.extend_from_slice(v);
}

#[inline]
pub fn bytes_len(field: u32, len: usize) -> usize {
    key_len(field) + varint_len(len as u64) + len
}

/// The key and length of a nested message whose body follows.
#[inline]
pub fn message_header(buf: &mut Vec<u8>, field: u32, len: usize) {
    key(buf, field, LEN);
    varint(buf, len as u64);
}

/// The length of the fixed-size copies of [`SliceWriter::put_prefix`]: a
/// buffer it writes to keeps this many bytes of room past its end.
pub const SHORT: usize = 32;

/// Writes into a slice sized beforehand (a row's length is known before
/// its columns are written): a field costs its bytes, not the capacity check
/// and length update of every `Vec` push. Writing past the end panics: the
/// sizes come from the same values, so that is a bug, not bad input.
pub struct SliceWriter<'a> {
    buf: &'a mut [u8],
    at: usize,
}

impl<'a> SliceWriter<'a> {
    pub fn new(buf: &'a mut [u8]) -> SliceWriter<'a> {
        SliceWriter { buf, at: 0 }
    }

    /// Bytes written so far.
    pub fn written(&self) -> usize {
        self.at
    }

    #[inline]
    pub fn put(&mut self, b: &[u8]) {
        let end = self.at + b.len();
        self.buf[self.at..end].copy_from_slice(b);
        self.at = end;
    }

    #[inline]
    fn byte(&mut self, b: u8) {
        self.buf[self.at] = b;
        self.at += 1;
    }

    /// Writes the first `len` bytes of `src`. Up to [`SHORT`] bytes, when
    /// `src` and the room left both hold [`SHORT`] bytes, it copies that
    /// many (a fixed-size copy the compiler inlines, where a copy of a
    /// length known only at run time is a call) and counts `len`: what lies
    /// past `len` is overwritten by the next field, or by the caller's
    /// truncation after the last. Most names, types and values are short.
    #[inline]
    pub fn put_prefix(&mut self, src: &[u8], len: usize) {
        if len <= SHORT {
            let at = self.at;
            if let (Some(s), Some(d)) = (src.get(..SHORT), self.buf.get_mut(at..at + SHORT)) {
                if let (Ok(s), Ok(d)) =
                    (<&[u8; SHORT]>::try_from(s), <&mut [u8; SHORT]>::try_from(d))
                {
                    *d = *s;
                    self.at = at + len;
                    return;
                }
            }
        }
        self.put(&src[..len]);
    }

    /// Sets the byte `back` bytes before the end of what was written.
    #[inline]
    pub fn set_back(&mut self, back: usize, b: u8) {
        self.buf[self.at - back] = b;
    }

    #[inline]
    pub fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.byte((v as u8) | 0x80);
            v >>= 7;
        }
        self.byte(v as u8);
    }

    #[inline]
    pub fn key(&mut self, field: u32, wire: u8) {
        self.varint(((field << 3) | wire as u32) as u64);
    }

    #[inline]
    pub fn int32(&mut self, field: u32, v: i32) {
        self.key(field, VARINT);
        self.varint(v as i64 as u64);
    }

    #[inline]
    pub fn bytes(&mut self, field: u32, v: &[u8]) {
        self.message_header(field, v.len());
        self.put(v);
    }

    #[inline]
    pub fn message_header(&mut self, field: u32, len: usize) {
        self.key(field, LEN);
        self.varint(len as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_lengths() {
        for v in [0u64, 1, 127, 128, 16_383, 16_384, u32::MAX as u64, u64::MAX] {
            let mut b = Vec::new();
            varint(&mut b, v);
            assert_eq!(b.len(), varint_len(v), "{v}");
        }
        let mut b = Vec::new();
        int32(&mut b, 2, -5);
        assert_eq!(b.len(), 11);
        assert_eq!(b.len(), int32_len(2, -5));
    }

    #[test]
    fn slice_writer_writes_what_vec_pushes_write() {
        let mut v = Vec::new();
        message_header(&mut v, 12, 300);
        int32(&mut v, 2, -5);
        bytes(&mut v, 8, b"text");
        varint(&mut v, u64::MAX);
        let mut slice = vec![0u8; v.len()];
        let mut w = SliceWriter::new(&mut slice);
        w.message_header(12, 300);
        w.int32(2, -5);
        w.bytes(8, b"text");
        w.varint(u64::MAX);
        assert_eq!(w.written(), v.len());
        assert_eq!(slice, v);
    }

    #[test]
    fn prefixes_of_any_length_are_written_exactly() {
        let src: Vec<u8> = (0..100u8).collect();
        for len in [0, 1, 5, 31, 32, 33, 64, 100] {
            for room in [0, SHORT] {
                let mut out = vec![0xeeu8; 3 + len + room];
                let mut w = SliceWriter::new(&mut out);
                w.put(b"abc");
                w.put_prefix(&src, len);
                let n = w.written();
                assert_eq!(n, 3 + len);
                assert_eq!(&out[..3], b"abc");
                assert_eq!(&out[3..n], &src[..len], "len {len} room {room}");
            }
            // A source shorter than SHORT: copied by length.
            let short = &src[..len.min(10)];
            let mut out = vec![0u8; short.len() + SHORT];
            let mut w = SliceWriter::new(&mut out);
            w.put_prefix(short, short.len());
            assert_eq!(&out[..short.len()], short);
        }
    }
}
