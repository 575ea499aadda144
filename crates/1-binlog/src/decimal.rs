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

    /// Walks the stored digit groups in order, the integer part's first:
    /// `on_group(in_fraction, value, digits)`, `digits` (1 to 9) being how
    /// many decimal digits the group stands for (its value is below
    /// 10^digits unless the bytes are corrupt). Returns whether the value
    /// is negative.
    fn for_each_group(&self, mut on_group: impl FnMut(bool, u32, usize)) -> Result<bool> {
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
        let lead_digits = intg % 9;
        if lead_digits > 0 {
            on_group(false, group(DIG2BYTES[lead_digits]), lead_digits);
        }
        for _ in 0..intg / 9 {
            on_group(false, group(4), 9);
        }
        for _ in 0..scale / 9 {
            on_group(true, group(4), 9);
        }
        let tail = scale % 9;
        if tail > 0 {
            on_group(true, group(DIG2BYTES[tail]), tail);
        }
        Ok(neg)
    }

    /// Appends the value as MySQL prints it: `-12.50`, `0.00`.
    pub fn render(&self, out: &mut String) -> Result<()> {
        // The text is assembled on the stack and pushed once: a push per
        // group (and per padding zero) cost more than the digits. At most
        // 65 digits in groups of nine, each group at most 10 digits when
        // corrupt, a sign and a point.
        let mut text = Text::default();
        let neg = self.is_negative();
        if neg {
            text.push(b'-');
        }
        let digits_start = text.len;
        let mut leading = true;
        let mut point = false;
        self.for_each_group(|in_fraction, v, digits| {
            if in_fraction {
                if !point {
                    if text.len == digits_start {
                        text.push(b'0');
                    }
                    text.push(b'.');
                    point = true;
                }
                text.padded(v, digits);
            } else {
                text.group(v, digits, &mut leading);
            }
        })?;
        if text.len == digits_start {
            text.push(b'0');
        }
        let mut text = text.as_bytes();
        // "-0.00" is printed "0.00" by MySQL; a stored negative zero can occur.
        if neg && text[1..].iter().all(|&b| b == b'0' || b == b'.') {
            text = &text[1..];
        }
        out.push_str(crate::bytes::ascii_str(text));
        Ok(())
    }

    /// The unscaled value (the digits without the point: `-12.50` gives
    /// `(true, 1250)`), for a DECIMAL of at most 38 digits; `None` for a
    /// wider one, or for a group that does not fit its digits (corrupt
    /// bytes, which [`Decimal::render`] prints as they are). Builds no
    /// text: for outputs that carry a DECIMAL as its unscaled integer.
    pub fn unscaled_u128(&self) -> Result<Option<(bool, u128)>> {
        if self.precision > 38 {
            return Ok(None);
        }
        let mut value = 0u128;
        let mut fits = true;
        let neg = self.for_each_group(|_, v, digits| {
            let pow = POW10[digits];
            fits &= v < pow;
            value = value.wrapping_mul(pow as u128).wrapping_add(v as u128);
        })?;
        Ok(fits.then_some((neg && value != 0, value)))
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

    /// `text` (`-`, digits, `.`, digits; exactly `s` of them after the
    /// point) in MySQL's binary DECIMAL(p, s) form.
    fn encode(p: u8, s: u8, text: &str) -> Vec<u8> {
        let (neg, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
        assert_eq!(frac.len(), s as usize);
        let intg = (p - s) as usize;
        let int = format!("{:0>intg$}", int.trim_start_matches('0'));
        let mut out = Vec::new();
        let mut put = |digits: &str| {
            let v: u32 = digits.parse().unwrap();
            let n = DIG2BYTES[digits.len()];
            out.extend_from_slice(&v.to_be_bytes()[4 - n..]);
        };
        let lead = intg % 9;
        if lead > 0 {
            put(&int[..lead]);
        }
        for g in int.as_bytes()[lead..].chunks(9) {
            put(std::str::from_utf8(g).unwrap());
        }
        for g in frac.as_bytes().chunks(9) {
            put(std::str::from_utf8(g).unwrap());
        }
        out[0] ^= 0x80;
        if neg {
            out.iter_mut().for_each(|b| *b ^= 0xff);
        }
        out
    }

    #[test]
    fn unscaled_value_is_the_rendered_digits() {
        // A fixed pseudo-random walk over widths, scales, signs and digits.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..20_000 {
            let p = 1 + next(38) as u8;
            let s = next(p as u64 + 1).min(30) as u8;
            let intg = (p - s) as usize;
            let digit = |next: &mut dyn FnMut(u64) -> u64, n: usize| -> String {
                // Runs of zeros and nines, the edges of each group, as often
                // as other digits.
                (0..n)
                    .map(|_| match next(4) {
                        0 => '0',
                        1 => '9',
                        _ => char::from(b'0' + next(10) as u8),
                    })
                    .collect()
            };
            let int_len = next(intg as u64 + 1) as usize;
            let int = digit(&mut next, int_len);
            let frac = digit(&mut next, s as usize);
            let neg = next(2) == 1;
            let text = format!(
                "{}{}{}{}",
                if neg { "-" } else { "" },
                if int.is_empty() { "0" } else { &int },
                if s > 0 { "." } else { "" },
                frac
            );
            let bytes = encode(p, s, &text);
            let d = Decimal {
                precision: p,
                scale: s,
                bytes: &bytes,
            };
            let digits: String = format!("{int}{frac}");
            let magnitude: u128 = if digits.is_empty() {
                0
            } else {
                digits.parse().unwrap()
            };
            assert_eq!(
                d.unscaled_u128().unwrap(),
                Some((neg && magnitude != 0, magnitude)),
                "{text} as DECIMAL({p},{s})"
            );
            // The rendered text holds the same value.
            let rendered = d.to_text().unwrap();
            let back: String = rendered.chars().filter(|c| c.is_ascii_digit()).collect();
            assert_eq!(
                back.parse::<u128>().unwrap(),
                magnitude,
                "{text}: {rendered}"
            );
            assert_eq!(
                rendered.starts_with('-'),
                neg && magnitude != 0,
                "{text}: {rendered}"
            );
        }
    }

    #[test]
    fn unscaled_value_leaves_wide_and_corrupt_decimals_to_the_text() {
        let wide = encode(40, 0, &"9".repeat(40));
        let d = Decimal {
            precision: 40,
            scale: 0,
            bytes: &wide,
        };
        assert_eq!(d.unscaled_u128().unwrap(), None);
        // DECIMAL(9,0) whose one group reads 2,147,483,647: not nine digits.
        let d = Decimal {
            precision: 9,
            scale: 0,
            bytes: &[0xff, 0xff, 0xff, 0xff],
        };
        assert_eq!(d.unscaled_u128().unwrap(), None);
        assert!(Decimal {
            precision: 10,
            scale: 2,
            bytes: &[0x80],
        }
        .unscaled_u128()
        .is_err());
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
