//! MySQL's binary DECIMAL format, rendered exactly (never through a float).
//!
//! Digits are stored in groups of nine per 4 bytes, big-endian, with the
//! leading and trailing partial groups in 1–4 bytes; the sign is the inverted
//! top bit, and negative values have every byte inverted.

use crate::digits::{put_digits, POW10};
use crate::error::{DecodeError, Result};

pub use crate::digits::push_u64;

const DIG2BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];

/// Bytes a DECIMAL(precision, scale) value takes.
pub fn decimal_size(precision: u8, scale: u8) -> usize {
    let intg = (precision - scale.min(precision)) as usize;
    let scale = scale as usize;
    (intg / 9) * 4 + DIG2BYTES[intg % 9] + (scale / 9) * 4 + DIG2BYTES[scale % 9]
}

/// A DECIMAL value as stored: a view into the row bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decimal<'a> {
    pub precision: u8,
    pub scale: u8,
    pub bytes: &'a [u8],
}

impl Decimal<'_> {
    pub fn is_negative(&self) -> bool {
        self.bytes.first().map(|b| b & 0x80 == 0).unwrap_or(false)
    }

    /// Appends the value as MySQL prints it: `-12.50`, `0.00`.
    pub fn render(&self, out: &mut String) -> Result<()> {
        let size = decimal_size(self.precision, self.scale);
        if self.bytes.len() != size || size > 40 {
            return Err(DecodeError::invalid(
                "DECIMAL value",
                format!(
                    "{} bytes for DECIMAL({},{})",
                    self.bytes.len(),
                    self.precision,
                    self.scale
                ),
            ));
        }
        let neg = self.is_negative();
        let mask = if neg { 0xff } else { 0 };
        let mut buf = [0u8; 40];
        for (d, s) in buf.iter_mut().zip(self.bytes) {
            *d = s ^ mask;
        }
        buf[0] ^= 0x80;
        let intg = self.precision.saturating_sub(self.scale) as usize;
        let scale = self.scale as usize;
        let mut pos = 0usize;
        let mut group = |n: usize| -> u32 {
            let mut v = 0u32;
            for b in &buf[pos..pos + n] {
                v = (v << 8) | *b as u32;
            }
            pos += n;
            v
        };
        // The text is assembled on the stack and pushed once: a push per
        // group (and per padding zero) cost more than the digits. At most
        // 65 digits in groups of nine, each group at most 10 digits when
        // corrupt, a sign and a point.
        let mut text = Text::default();
        if neg {
            text.push(b'-');
        }
        let digits_start = text.len;
        let mut leading = true;
        let lead_digits = intg % 9;
        if lead_digits > 0 {
            let v = group(DIG2BYTES[lead_digits]);
            text.group(v, lead_digits, &mut leading);
        }
        for _ in 0..intg / 9 {
            let v = group(4);
            text.group(v, 9, &mut leading);
        }
        if text.len == digits_start {
            text.push(b'0');
        }
        if scale > 0 {
            text.push(b'.');
            for _ in 0..scale / 9 {
                let v = group(4);
                text.padded(v, 9);
            }
            let tail = scale % 9;
            if tail > 0 {
                let v = group(DIG2BYTES[tail]);
                text.padded(v, tail);
            }
        }
        let mut text = text.as_bytes();
        // "-0.00" is printed "0.00" by MySQL; a stored negative zero can occur.
        if neg && text[1..].iter().all(|&b| b == b'0' || b == b'.') {
            text = &text[1..];
        }
        out.push_str(crate::bytes::ascii_str(text));
        Ok(())
    }

    /// The value as text (allocates; for convenience and tests).
    pub fn to_text(&self) -> Result<String> {
        let mut s = String::new();
        self.render(&mut s)?;
        Ok(s)
    }
}

/// The text of a DECIMAL, built on the stack.
struct Text {
    bytes: [u8; 128],
    len: usize,
}

impl Default for Text {
    fn default() -> Self {
        Text {
            bytes: [0; 128],
            len: 0,
        }
    }
}

impl Text {
    fn push(&mut self, b: u8) {
        self.bytes[self.len] = b;
        self.len += 1;
    }

    /// A group of digits: without its leading zeros while no digit has been
    /// written (`leading`), else zero-padded to `width`.
    fn group(&mut self, v: u32, width: usize, leading: &mut bool) {
        if *leading {
            if v != 0 {
                self.unpadded(v);
                *leading = false;
            }
        } else {
            self.padded(v, width);
        }
    }

    /// `v` zero-padded to `width` digits. Values past the group's digit
    /// count mean corrupt input: they are printed whole rather than cut, and
    /// the caller sees an odd number.
    fn padded(&mut self, v: u32, width: usize) {
        if width < POW10.len() && v >= POW10[width] {
            self.unpadded(v);
            return;
        }
        put_digits(&mut self.bytes[self.len..self.len + width], v);
        self.len += width;
    }

    fn unpadded(&mut self, v: u32) {
        let mut digits = itoa::Buffer::new();
        let d = digits.format(v).as_bytes();
        self.bytes[self.len..self.len + d.len()].copy_from_slice(d);
        self.len += d.len();
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(p: u8, s: u8, bytes: &[u8]) -> String {
        Decimal {
            precision: p,
            scale: s,
            bytes,
        }
        .to_text()
        .unwrap()
    }

    #[test]
    fn mysql_manual_example() {
        // 1234567890.1234 as DECIMAL(14,4), from the MySQL internals docs.
        let b = [0x81, 0x0D, 0xFB, 0x38, 0xD2, 0x04, 0xD2];
        assert_eq!(render(14, 4, &b), "1234567890.1234");
        let neg: Vec<u8> = b.iter().map(|x| x ^ 0xff).collect();
        assert_eq!(render(14, 4, &neg), "-1234567890.1234");
    }

    #[test]
    fn zero_and_fraction_only() {
        // DECIMAL(5,2) 0.00: intg 3 digits in 2 bytes, frac 2 digits in 1 byte.
        assert_eq!(render(5, 2, &[0x80, 0x00, 0x00]), "0.00");
        assert_eq!(render(5, 2, &[0x80, 0x00, 0x05]), "0.05");
        assert_eq!(render(5, 2, &[0x7f, 0xff, 0xfa]), "-0.05");
    }

    #[test]
    fn wrong_length_is_an_error() {
        let d = Decimal {
            precision: 10,
            scale: 2,
            bytes: &[0x80],
        };
        assert!(d.to_text().is_err());
    }
}
