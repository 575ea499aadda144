//! Writing a binary JSON document as the text MySQL prints for it, straight
//! from the binary format (numbers, strings, opaque dates and times).

use std::fmt::Write as _;

use super::binary::{Node, Scalar};
use super::{bad, too_deep, MAX_DEPTH};
use crate::decimal::{decimal_size, Decimal};
use crate::error::Result;

// Field types (enum_field_types) that opaque values carry and MySQL prints
// specially; every other field type prints as base64.
const FIELD_TIMESTAMP: u8 = 7;
const FIELD_DATE: u8 = 10;
const FIELD_TIME: u8 = 11;
const FIELD_DATETIME: u8 = 12;
const FIELD_NEWDECIMAL: u8 = 246;
const FIELD_VAR_STRING: u8 = 253;

pub(super) fn render_node(
    node: Node<'_>,
    out: &mut String,
    depth: usize,
    cap: usize,
) -> Result<()> {
    match node {
        Node::Scalar(s) => render_scalar(s, out),
        Node::Array(c) => {
            if depth >= MAX_DEPTH {
                return Err(too_deep());
            }
            out.push('[');
            for i in 0..c.count {
                check_cap(out, cap)?;
                if i > 0 {
                    out.push_str(", ");
                }
                render_node(c.value(i)?, out, depth + 1, cap)?;
            }
            out.push(']');
            Ok(())
        }
        Node::Object(c) => {
            if depth >= MAX_DEPTH {
                return Err(too_deep());
            }
            out.push('{');
            for i in 0..c.count {
                check_cap(out, cap)?;
                if i > 0 {
                    out.push_str(", ");
                }
                push_quoted(out, c.key(i)?);
                out.push_str(": ");
                render_node(c.value(i)?, out, depth + 1, cap)?;
            }
            out.push('}');
            Ok(())
        }
    }
}

fn check_cap(out: &str, cap: usize) -> Result<()> {
    if out.len() > cap {
        return Err(bad(
            "document renders far larger than its size (shared sub-documents)",
        ));
    }
    Ok(())
}

pub(super) fn render_scalar(s: Scalar<'_>, out: &mut String) -> Result<()> {
    match s {
        Scalar::Null => out.push_str("null"),
        Scalar::True => out.push_str("true"),
        Scalar::False => out.push_str("false"),
        // Writing to a String cannot fail.
        Scalar::Int(v) => {
            let _ = write!(out, "{v}");
        }
        Scalar::UInt(v) => {
            let _ = write!(out, "{v}");
        }
        Scalar::Double(v) => push_double(out, v),
        Scalar::Str(s) => push_quoted(out, s),
        Scalar::Opaque(field_type, data) => render_opaque(field_type, data, out)?,
    }
    Ok(())
}

/// Appends `s` in double quotes, escaped as MySQL's double_quote() does:
/// `"` and `\`, the short escapes, other control characters as `\u00xx`;
/// everything else (DEL and non-ASCII included) as is.
pub(super) fn push_quoted(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\r' => "\\r",
            0..=0x1f => "",
            _ => continue,
        };
        // `i` is at an ASCII byte, so both slices end on char boundaries.
        out.push_str(s.get(start..i).unwrap_or_default());
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 0xf) as usize] as char);
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(s.get(start..).unwrap_or_default());
    out.push('"');
}

/// A fixed buffer for formatting a double without allocating.
struct StackBuf {
    buf: [u8; 40],
    len: usize,
}

impl std::fmt::Write for StackBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let dst = self.buf.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Appends a double as MySQL's JSON output does: my_gcvt() with a 34-column
/// field (shortest round-trip digits; fixed notation for 10^-15 <= |x| < 10^15
/// and when every digit fits, exponent notation otherwise), then ".0" when the
/// result has neither a point nor an exponent, so it still reads as a double.
fn push_double(out: &mut String, x: f64) {
    if !x.is_finite() {
        // my_gcvt prints "0" for these; JSON cannot store them anyway.
        out.push_str("0.0");
        return;
    }
    let mut b = StackBuf {
        buf: [0; 40],
        len: 0,
    };
    // `{:e}` gives the shortest round-trip digits, as dtoa mode 0 does:
    // "1.2345e-5", "1e100", "0e0".
    if write!(b, "{:e}", x.abs()).is_err() {
        out.push_str("0.0");
        return;
    }
    let text = b.buf.get(..b.len).unwrap_or_default();
    let epos = text.iter().position(|&c| c == b'e').unwrap_or(text.len());
    let mut digits = [0u8; 24];
    let mut len = 0usize;
    for &c in text.get(..epos).unwrap_or_default() {
        if c.is_ascii_digit() && len < digits.len() {
            digits[len] = c;
            len += 1;
        }
    }
    let exp: i32 = std::str::from_utf8(text.get(epos + 1..).unwrap_or_default())
        .ok()
        .and_then(|e| e.parse().ok())
        .unwrap_or(0);
    let digits = digits.get(..len).unwrap_or_default();
    let len = len as i32;
    // dtoa's decimal point position: the value is 0.DIGITS * 10^decpt.
    let decpt = exp + 1;
    if x.is_sign_negative() {
        out.push('-');
    }
    let push_digits = |out: &mut String, d: &[u8]| {
        for &c in d {
            out.push(c as char);
        }
    };
    if decpt >= -14 && (decpt <= 15 || decpt < len) {
        if decpt <= 0 {
            out.push_str("0.");
            for _ in decpt..0 {
                out.push('0');
            }
            push_digits(out, digits);
        } else if decpt < len {
            let (int, frac) = digits.split_at(decpt as usize);
            push_digits(out, int);
            out.push('.');
            push_digits(out, frac);
        } else {
            push_digits(out, digits);
            for _ in len..decpt {
                out.push('0');
            }
            out.push_str(".0");
        }
    } else {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        push_digits(out, first);
        if !rest.is_empty() {
            out.push('.');
            push_digits(out, rest);
        }
        let _ = write!(out, "e{}", decpt - 1);
    }
}

fn render_opaque(field_type: u8, data: &[u8], out: &mut String) -> Result<()> {
    match field_type {
        FIELD_NEWDECIMAL => {
            // Precision and scale bytes, then MySQL's binary DECIMAL.
            let (&precision, rest) = data
                .split_first()
                .ok_or_else(|| bad("empty DECIMAL value"))?;
            let (&scale, bytes) = rest
                .split_first()
                .ok_or_else(|| bad("DECIMAL value without a scale"))?;
            if precision > 65 || scale > 30 || scale > precision {
                return Err(bad(format!("DECIMAL({precision},{scale})")));
            }
            if bytes.len() != decimal_size(precision, scale) {
                return Err(bad(format!(
                    "{} bytes for DECIMAL({precision},{scale})",
                    bytes.len()
                )));
            }
            Decimal {
                precision,
                scale,
                bytes,
            }
            .render(out)
        }
        FIELD_DATE | FIELD_DATETIME | FIELD_TIMESTAMP | FIELD_TIME => {
            let packed: [u8; 8] = data.try_into().map_err(|_| {
                bad(format!(
                    "{} bytes for a packed temporal value, expected 8",
                    data.len()
                ))
            })?;
            out.push('"');
            push_temporal(out, field_type, i64::from_le_bytes(packed));
            out.push('"');
            Ok(())
        }
        // MySQL prints strings kept as opaque values as plain strings.
        FIELD_VAR_STRING => {
            let s =
                std::str::from_utf8(data).map_err(|_| bad("opaque string is not valid UTF-8"))?;
            push_quoted(out, s);
            Ok(())
        }
        _ => {
            let _ = write!(out, "\"base64:type{field_type}:");
            push_base64(out, data);
            out.push('"');
            Ok(())
        }
    }
}

/// Standard base64 with padding, a line break after every 76 characters as
/// MySQL's base64_encode() writes them; the break is escaped because it ends
/// up inside a JSON string.
fn push_base64(out: &mut String, data: &[u8]) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let sym = |v: u32| ALPHABET[(v & 0x3f) as usize] as char;
    for (i, chunk) in data.chunks(3).enumerate() {
        if i > 0 && i % 19 == 0 {
            out.push_str("\\n");
        }
        let b0 = chunk.first().copied().unwrap_or(0) as u32;
        let b1 = chunk.get(1).copied().unwrap_or(0) as u32;
        let b2 = chunk.get(2).copied().unwrap_or(0) as u32;
        let v = (b0 << 16) | (b1 << 8) | b2;
        out.push(sym(v >> 18));
        out.push(sym(v >> 12));
        out.push(if chunk.len() > 1 { sym(v >> 6) } else { '=' });
        out.push(if chunk.len() > 2 { sym(v) } else { '=' });
    }
}

/// Appends a packed temporal value (TIME_to_longlong_packed) as MySQL's
/// my_TIME_to_str() does with 6 fractional digits: "2015-01-15",
/// "2015-01-15 23:24:25.000000", "-838:59:59.000000".
fn push_temporal(out: &mut String, field_type: u8, packed: i64) {
    let neg = packed < 0;
    let v = packed.unsigned_abs();
    let frac = v % (1 << 24);
    let int = v >> 24;
    if field_type == FIELD_TIME {
        let hour = (int >> 12) % (1 << 10);
        let minute = (int >> 6) % (1 << 6);
        let second = int % (1 << 6);
        if neg {
            out.push('-');
        }
        let _ = write!(out, "{hour:02}:");
        push_two(out, minute);
        out.push(':');
        push_two(out, second);
        push_micros(out, frac);
        return;
    }
    // DATE, DATETIME and TIMESTAMP share the datetime packing; the sign is
    // never printed for them.
    let ymd = int >> 17;
    let ym = ymd >> 5;
    let hms = int % (1 << 17);
    let year = ym / 13;
    push_two(out, year / 100);
    push_two(out, year % 100);
    out.push('-');
    push_two(out, ym % 13);
    out.push('-');
    push_two(out, ymd % (1 << 5));
    if field_type != FIELD_DATE {
        out.push(' ');
        push_two(out, hms >> 12);
        out.push(':');
        push_two(out, (hms >> 6) % (1 << 6));
        out.push(':');
        push_two(out, hms % (1 << 6));
        push_micros(out, frac);
    }
}

/// Two digits; out-of-range values print as "00", as MySQL's format_two_digits().
fn push_two(out: &mut String, v: u64) {
    let v = if v >= 100 { 0 } else { v };
    out.push((b'0' + (v / 10) as u8) as char);
    out.push((b'0' + (v % 10) as u8) as char);
}

fn push_micros(out: &mut String, frac: u64) {
    let _ = write!(out, ".{:06}", frac % 1_000_000);
}
