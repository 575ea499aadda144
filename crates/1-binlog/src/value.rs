//! Column values: decoding one value from row bytes into a borrowed `Value`
//! (no allocation: strings, blobs, JSON and decimals stay views into the
//! event), and rendering a value the way MySQL prints it in a SELECT.

use crate::bytes::{sign_extend, uint_be, uint_le, ByteReader};
use crate::column::{Charset, ColumnType};
use crate::decimal::{decimal_size, push_u64, Decimal};
use crate::error::{DecodeError, Result};
use crate::table_map::ColumnDef;
use crate::temporal::{frac_bytes, render_year, Date, DateTime, Time, Timestamp};

/// One decoded column value. Borrowed variants point into the event buffer.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    Null,
    /// Integer column read as signed (the default when the binlog does not say).
    Int(i64),
    /// Integer column known to be UNSIGNED.
    UInt(u64),
    Float(f32),
    Double(f64),
    Decimal(Decimal<'a>),
    /// YEAR as stored: 0, or years since 1900.
    Year(u8),
    Date(Date),
    Time(Time),
    DateTime(DateTime),
    Timestamp(Timestamp),
    /// CHAR, VARCHAR, TEXT, BINARY, VARBINARY, BLOB bytes; the column's charset says which.
    Bytes(&'a [u8]),
    /// ENUM index (1-based; 0 is the empty error value).
    Enum(u16),
    /// SET bitmap.
    Set(u64),
    /// BIT(n) as stored: big-endian bytes.
    Bit(&'a [u8]),
    /// MySQL binary JSON.
    Json(&'a [u8]),
    /// JSON already as text (after-image of a partial JSON update).
    JsonText(String),
    /// A partial JSON update whose before image is not in the event
    /// (binlog_row_image MINIMAL or NOBLOB): the diffs themselves, for
    /// column `column` (0-based). Renders as `mysqlbinlog -v` prints it,
    /// e.g. `JSON_REPLACE(`doc`, '$.a', 5)`.
    JsonDiff {
        column: usize,
        diffs: crate::json::JsonDiffs<'a>,
    },
    /// SRID + WKB.
    Geometry(&'a [u8]),
    /// VECTOR: little-endian f32s.
    Vector(&'a [u8]),
}

/// A column of a row image: absent from the image (MINIMAL/NOBLOB row
/// images), or present with a value (which may be NULL).
#[derive(Debug, Clone, PartialEq)]
pub enum Cell<'a> {
    Absent,
    Present(Value<'a>),
}

/// How a non-NULL value of a column type is laid out in a row image: a
/// fixed number of bytes, or a little-endian length of that many bytes
/// followed by the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    Fixed(usize),
    Prefixed(usize),
}

/// The layout of a non-NULL value of type `t` (needs no bytes: row scans
/// add fixed widths and check the total once).
#[inline]
pub fn value_width(t: ColumnType) -> Width {
    use Width::{Fixed, Prefixed};
    match t {
        ColumnType::Tiny | ColumnType::Year => Fixed(1),
        ColumnType::Short => Fixed(2),
        ColumnType::Int24 | ColumnType::Date | ColumnType::Time => Fixed(3),
        ColumnType::Long | ColumnType::Float | ColumnType::Timestamp => Fixed(4),
        ColumnType::LongLong | ColumnType::Double | ColumnType::DateTime => Fixed(8),
        ColumnType::NewDecimal { precision, scale } => Fixed(decimal_size(precision, scale)),
        ColumnType::Time2 { fsp } => Fixed(3 + frac_bytes(fsp)),
        ColumnType::DateTime2 { fsp } => Fixed(5 + frac_bytes(fsp)),
        ColumnType::Timestamp2 { fsp } => Fixed(4 + frac_bytes(fsp)),
        ColumnType::VarChar { max_len } | ColumnType::Char { max_len } => {
            Prefixed(if max_len > 255 { 2 } else { 1 })
        }
        ColumnType::Enum { pack_len } | ColumnType::Set { pack_len } => Fixed(pack_len as usize),
        ColumnType::Bit { bits } => Fixed((bits as usize).div_ceil(8)),
        ColumnType::Blob { len_bytes }
        | ColumnType::Json { len_bytes }
        | ColumnType::Geometry { len_bytes }
        | ColumnType::Vector { len_bytes } => Prefixed(len_bytes as usize),
        ColumnType::Null => Fixed(0),
    }
}

/// How many bytes the value of a non-NULL column takes at the start of `data`.
#[inline]
pub fn value_len(t: ColumnType, data: &[u8]) -> Result<usize> {
    let truncated = |needed: usize| DecodeError::Truncated {
        at: 0,
        needed,
        available: data.len(),
    };
    let n = match value_width(t) {
        Width::Fixed(n) => n,
        Width::Prefixed(lb) => {
            let head = data.get(..lb).ok_or_else(|| truncated(lb))?;
            lb.saturating_add(uint_le(head) as usize)
        }
    };
    if data.len() >= n {
        Ok(n)
    } else {
        Err(truncated(n))
    }
}

/// Decodes the value of a non-NULL column from exactly its bytes (as measured
/// by [`value_len`]).
#[inline]
pub fn decode_value<'a>(col: &ColumnDef, b: &'a [u8]) -> Result<Value<'a>> {
    let unsigned = col.unsigned == Some(true);
    let int = |bits: u32| -> Value<'a> {
        let v = uint_le(b);
        if unsigned {
            Value::UInt(v)
        } else {
            Value::Int(sign_extend(v, bits))
        }
    };
    let after_prefix = |lb: usize| -> &'a [u8] { b.get(lb..).unwrap_or(&[]) };
    Ok(match col.column_type {
        ColumnType::Tiny => int(8),
        ColumnType::Short => int(16),
        ColumnType::Int24 => int(24),
        ColumnType::Long => int(32),
        ColumnType::LongLong => {
            let v = uint_le(b);
            if unsigned {
                Value::UInt(v)
            } else {
                Value::Int(v as i64)
            }
        }
        ColumnType::Float => Value::Float(f32::from_bits(uint_le(b) as u32)),
        ColumnType::Double => Value::Double(f64::from_bits(uint_le(b))),
        ColumnType::NewDecimal { precision, scale } => Value::Decimal(Decimal {
            precision,
            scale,
            bytes: b,
        }),
        ColumnType::Year => Value::Year(b.first().copied().unwrap_or(0)),
        ColumnType::Date => Value::Date(Date::from_packed(uint_le(b) as u32)),
        ColumnType::Time => Value::Time(Time::from_old(sign_extend(uint_le(b), 24))),
        ColumnType::Time2 { fsp } => Value::Time(Time::from_time2(b, fsp)?),
        ColumnType::DateTime => Value::DateTime(DateTime::from_old(uint_le(b))),
        ColumnType::DateTime2 { fsp } => Value::DateTime(DateTime::from_datetime2(b, fsp)?),
        ColumnType::Timestamp => Value::Timestamp(Timestamp {
            seconds: uint_le(b) as u32,
            micros: 0,
            fsp: 0,
        }),
        ColumnType::Timestamp2 { fsp } => Value::Timestamp(Timestamp::from_timestamp2(b, fsp)?),
        ColumnType::VarChar { max_len } | ColumnType::Char { max_len } => {
            Value::Bytes(after_prefix(if max_len > 255 { 2 } else { 1 }))
        }
        ColumnType::Enum { .. } => Value::Enum(uint_le(b) as u16),
        ColumnType::Set { .. } => Value::Set(uint_le(b)),
        ColumnType::Bit { .. } => Value::Bit(b),
        ColumnType::Blob { len_bytes } => Value::Bytes(after_prefix(len_bytes as usize)),
        ColumnType::Json { len_bytes } => Value::Json(after_prefix(len_bytes as usize)),
        ColumnType::Geometry { len_bytes } => Value::Geometry(after_prefix(len_bytes as usize)),
        ColumnType::Vector { len_bytes } => Value::Vector(after_prefix(len_bytes as usize)),
        ColumnType::Null => Value::Null,
    })
}

/// Reads one non-NULL value from a reader.
#[inline]
pub fn read_value<'a>(r: &mut ByteReader<'a>, col: &ColumnDef) -> Result<Value<'a>> {
    let n = match value_width(col.column_type) {
        Width::Fixed(n) => n,
        Width::Prefixed(lb) => match r.rest().get(..lb) {
            Some(head) => lb + uint_le(head) as usize,
            None => lb,
        },
    };
    // `take` checks the whole value (or the missing length) fits.
    decode_value(col, r.take(n)?)
}

impl Value<'_> {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Appends the value as MySQL's text protocol returns it for a SELECT
    /// (see the README's "Value rendering" rules). NULL renders as nothing:
    /// callers show it as JSON null.
    pub fn render(&self, col: &ColumnDef, out: &mut String) -> Result<()> {
        match self {
            Value::Null => {}
            Value::Int(v) => {
                if *v < 0 {
                    out.push('-');
                }
                push_u64(out, v.unsigned_abs());
            }
            Value::UInt(v) => push_u64(out, *v),
            Value::Float(v) => render_float(*v as f64, true, out),
            Value::Double(v) => render_float(*v, false, out),
            Value::Decimal(d) => d.render(out)?,
            Value::Year(v) => render_year(*v, out),
            Value::Date(d) => d.render(out),
            Value::Time(t) => t.render(out),
            Value::DateTime(d) => d.render(out),
            Value::Timestamp(t) => t.render(out),
            Value::Bytes(b) => render_bytes(b, col, out),
            Value::Enum(i) => match label(col, (*i as usize).wrapping_sub(1)) {
                Some(l) if *i > 0 => push_text(l, col, out),
                _ if *i == 0 && col.labels.is_some() => {}
                _ => push_u64(out, *i as u64),
            },
            Value::Set(bits) => match &col.labels {
                Some(labels) => {
                    let mut first = true;
                    for (i, l) in labels.iter().enumerate().take(64) {
                        if bits & (1u64 << i) != 0 {
                            if !first {
                                out.push(',');
                            }
                            first = false;
                            push_text(l, col, out);
                        }
                    }
                }
                None => push_u64(out, *bits),
            },
            Value::Bit(b) => push_hex(b, out),
            Value::Json(b) => crate::json::render_json(b, out)?,
            Value::JsonText(s) => out.push_str(s),
            Value::JsonDiff { column, diffs } => {
                let mut name = String::new();
                push_column_label(col, *column, &mut name);
                diffs.render(&name, out);
            }
            Value::Geometry(b) | Value::Vector(b) => push_hex(b, out),
        }
        Ok(())
    }

    /// Whether the value is a partial JSON update's diffs rather than a whole value.
    pub fn is_partial_json(&self) -> bool {
        matches!(self, Value::JsonDiff { .. })
    }

    /// The rendered text, or `None` for NULL (allocates; for convenience).
    pub fn to_text(&self, col: &ColumnDef) -> Result<Option<String>> {
        if self.is_null() {
            return Ok(None);
        }
        let mut s = String::new();
        self.render(col, &mut s)?;
        Ok(Some(s))
    }
}

impl<'a> Value<'a> {
    /// Character data whose text [`Value::render`] gives as its bytes read
    /// as UTF-8 (a UTF-8 character set, or one this decoder does not
    /// convert, when the bytes are valid UTF-8): that text, borrowed from
    /// the row. `None` for any other value, which is then rendered.
    pub fn utf8_text(&self, col: &ColumnDef) -> Option<&'a str> {
        let Value::Bytes(b) = *self else {
            return None;
        };
        match col.charset() {
            None | Some(Charset::Utf8) | Some(Charset::Other) => crate::bytes::utf8_str(b),
            Some(
                Charset::Binary
                | Charset::Latin1
                | Charset::Ucs2
                | Charset::Utf16
                | Charset::Utf16Le
                | Charset::Utf32,
            ) => None,
        }
    }
}

/// Bytes of input [`Value::render_pieces`] renders at a time.
const PIECE: usize = 32 << 10;

impl Value<'_> {
    /// Renders the value as [`Value::render`] does, but hands the text to
    /// `sink` in pieces of a few kilobytes instead of building it whole:
    /// character and binary data, which can be a gigabyte, is never copied
    /// whole. Other values are small (JSON documents aside) and are rendered
    /// into `scratch` first. NULL renders nothing.
    pub fn render_pieces<E: From<DecodeError>>(
        &self,
        col: &ColumnDef,
        scratch: &mut String,
        sink: &mut dyn FnMut(&str) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        match self {
            Value::Bytes(b) => match col.charset() {
                Some(Charset::Binary) => {
                    hex_pieces(b, scratch, sink)?;
                    if let ColumnType::Char { max_len } = col.column_type {
                        // BINARY(n) padded back to n bytes (n <= 255).
                        for _ in b.len()..max_len as usize {
                            sink("00")?;
                        }
                    }
                    Ok(())
                }
                _ => text_pieces(b, col, scratch, sink),
            },
            Value::Bit(b) | Value::Geometry(b) | Value::Vector(b) => hex_pieces(b, scratch, sink),
            Value::JsonText(s) => str_pieces(s, sink),
            _ => {
                scratch.clear();
                self.render(col, scratch)?;
                sink(scratch)
            }
        }
    }
}

/// `0x` and lowercase hex, a piece at a time.
fn hex_pieces<E>(
    b: &[u8],
    scratch: &mut String,
    sink: &mut dyn FnMut(&str) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    sink("0x")?;
    for chunk in b.chunks(PIECE / 2) {
        scratch.clear();
        push_hex(chunk, scratch);
        sink(&scratch[2..])?;
    }
    Ok(())
}

/// `s` in pieces cut at character boundaries.
fn str_pieces<E>(
    mut s: &str,
    sink: &mut dyn FnMut(&str) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    while !s.is_empty() {
        let mut end = s.len().min(PIECE);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        sink(&s[..end])?;
        s = &s[end..];
    }
    Ok(())
}

/// Character data as [`push_text`] renders it, a piece at a time: pieces
/// end on whole characters of the column's character set.
fn text_pieces<E>(
    b: &[u8],
    col: &ColumnDef,
    scratch: &mut String,
    sink: &mut dyn FnMut(&str) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    let unit = match col.charset() {
        Some(Charset::Latin1) => 1,
        Some(Charset::Ucs2) | Some(Charset::Utf16) | Some(Charset::Utf16Le) => 2,
        Some(Charset::Utf32) => 4,
        _ => {
            return match std::str::from_utf8(b) {
                Ok(s) => str_pieces(s, sink),
                Err(_) => hex_pieces(b, scratch, sink),
            }
        }
    };
    let mut rest = b;
    while !rest.is_empty() {
        let mut end = rest.len().min(PIECE);
        if end < rest.len() && unit == 2 {
            // Keep a UTF-16 surrogate pair in one piece.
            let little_endian = matches!(col.charset(), Some(Charset::Utf16Le));
            let last = if little_endian {
                u16::from_le_bytes([rest[end - 2], rest[end - 1]])
            } else {
                u16::from_be_bytes([rest[end - 2], rest[end - 1]])
            };
            if (0xd800..0xdc00).contains(&last) {
                end -= 2;
            }
        }
        scratch.clear();
        push_text(&rest[..end], col, scratch);
        sink(scratch)?;
        rest = &rest[end..];
    }
    Ok(())
}

/// A column as mysqlbinlog names it in JSON diffs: `` `name` `` when the
/// name is known, else `@N` (1-based).
fn push_column_label(col: &ColumnDef, index: usize, out: &mut String) {
    match &col.name {
        Some(n) => {
            out.push('`');
            out.push_str(&n.replace('`', "``"));
            out.push('`');
        }
        None => {
            out.push('@');
            push_u64(out, index as u64 + 1);
        }
    }
}

fn label(col: &ColumnDef, i: usize) -> Option<&[u8]> {
    col.labels.as_ref()?.get(i).map(|v| v.as_slice())
}

/// `0x` + lowercase hex.
pub fn push_hex(b: &[u8], out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(2 + 2 * b.len());
    out.push_str("0x");
    for &x in b {
        out.push(HEX[(x >> 4) as usize] as char);
        out.push(HEX[(x & 15) as usize] as char);
    }
}

/// Character data in the column's character set, converted to UTF-8;
/// binary data (and text whose charset is unknown and not valid UTF-8) as hex.
fn render_bytes(b: &[u8], col: &ColumnDef, out: &mut String) {
    match col.charset() {
        // BINARY(n) is stored without its trailing zero bytes; a SELECT pads them back.
        Some(Charset::Binary) => match col.column_type {
            ColumnType::Char { max_len } if b.len() < max_len as usize => {
                push_hex(b, out);
                for _ in b.len()..max_len as usize {
                    out.push_str("00");
                }
            }
            _ => push_hex(b, out),
        },
        _ => push_text(b, col, out),
    }
}

fn push_text(b: &[u8], col: &ColumnDef, out: &mut String) {
    match col.charset() {
        Some(Charset::Latin1) => out.extend(b.iter().map(|&c| cp1252(c))),
        Some(Charset::Ucs2) | Some(Charset::Utf16) => push_utf16(b, false, out),
        Some(Charset::Utf16Le) => push_utf16(b, true, out),
        Some(Charset::Utf32) => {
            for ch in b.chunks(4) {
                let v = uint_be(ch) as u32;
                out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
            }
        }
        _ => match crate::bytes::utf8_str(b) {
            Some(s) => out.push_str(s),
            None => push_hex(b, out),
        },
    }
}

fn push_utf16(b: &[u8], little_endian: bool, out: &mut String) {
    let units = b.chunks(2).map(|c| {
        let (x, y) = (c[0] as u16, c.get(1).copied().unwrap_or(0) as u16);
        if little_endian {
            x | (y << 8)
        } else {
            (x << 8) | y
        }
    });
    out.extend(char::decode_utf16(units).map(|r| r.unwrap_or('\u{fffd}')));
}

/// MySQL's latin1 is Windows-1252: 0x80–0x9f are typographic characters.
/// The character a latin1 (Windows-1252, as MySQL has it) byte stands for.
pub fn cp1252(c: u8) -> char {
    const HIGH: [u16; 32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
        0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ];
    if (0x80..0xa0).contains(&c) {
        char::from_u32(HIGH[(c - 0x80) as usize] as u32).unwrap_or('\u{fffd}')
    } else {
        c as char
    }
}

/// Renders a FLOAT or DOUBLE as MySQL and MariaDB do in a SELECT (their
/// `my_gcvt`): DOUBLE with the shortest digits that read back to the same
/// value, FLOAT rounded to 6 significant digits; trailing zeros dropped;
/// plain notation when the decimal exponent is within [-15, 14], `1.5e-16`
/// or `1e15` style outside it.
pub fn render_float(v: f64, single: bool, out: &mut String) {
    use std::fmt::Write;
    if v.is_nan() || v.is_infinite() {
        // Not storable in MySQL; print something recognisable.
        out.push_str(if v.is_nan() {
            "nan"
        } else if v > 0.0 {
            "inf"
        } else {
            "-inf"
        });
        return;
    }
    if v == 0.0 {
        out.push_str(if v.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    // Shortest round-trip digits, formatted on the stack (this runs for
    // every FLOAT/DOUBLE value, so no allocation).
    let mut sci = StackText::new();
    let _ = if single {
        write!(sci, "{:e}", v as f32)
    } else {
        write!(sci, "{v:e}")
    };
    if single && significant_digits(sci.as_bytes()) > 6 {
        // FLT_DIG significant digits, correctly rounded.
        sci.clear();
        let _ = write!(sci, "{v:.5e}");
    }
    let bytes = sci.as_bytes();
    let e_at = bytes.iter().position(|&b| b == b'e').unwrap_or(bytes.len());
    let (mantissa, exp_part) = bytes.split_at(e_at);
    let exp: i32 = std::str::from_utf8(exp_part.get(1..).unwrap_or(&[]))
        .ok()
        .and_then(|e| e.parse().ok())
        .unwrap_or(0);
    let negative = mantissa.first() == Some(&b'-');
    let mut digit_buf = [0u8; 40];
    let mut n = 0;
    for &b in mantissa.iter().filter(|b| b.is_ascii_digit()) {
        if n < digit_buf.len() {
            digit_buf[n] = b;
            n += 1;
        }
    }
    while n > 1 && digit_buf[n - 1] == b'0' {
        n -= 1;
    }
    let digits = std::str::from_utf8(&digit_buf[..n]).unwrap_or("0");
    if negative {
        out.push('-');
    }
    if !(-15..=14).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        if exp < 0 {
            out.push('-');
        }
        push_u64(out, exp.unsigned_abs() as u64);
    } else if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(digits);
            for _ in digits.len()..int_len {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
}

/// Significant digits of a `{:e}` rendering (the mantissa's digits).
fn significant_digits(sci: &[u8]) -> usize {
    sci.iter()
        .take_while(|&&b| b != b'e')
        .filter(|b| b.is_ascii_digit())
        .count()
}

/// A small fixed buffer that `write!` can format into without allocating
/// (64 bytes: a number's text; longer writes fail).
#[derive(Debug, Clone, Copy)]
pub struct StackText {
    buf: [u8; 64],
    len: usize,
}

impl Default for StackText {
    fn default() -> Self {
        StackText::new()
    }
}

impl StackText {
    pub fn new() -> Self {
        StackText {
            buf: [0; 64],
            len: 0,
        }
    }
    pub fn clear(&mut self) {
        self.len = 0;
    }
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
    /// The text written (only whole `&str`s are ever written, so it is UTF-8).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(std::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(v: f64, single: bool) -> String {
        let mut s = String::new();
        render_float(v, single, &mut s);
        s
    }

    /// Every piece `render_pieces` gives, concatenated, and how many.
    fn in_pieces(v: &Value<'_>, col: &ColumnDef) -> (String, usize) {
        let mut out = String::new();
        let mut n = 0;
        let mut scratch = String::new();
        v.render_pieces::<DecodeError>(col, &mut scratch, &mut |p| {
            assert!(p.len() <= 3 * PIECE + 8, "a piece of {} bytes", p.len());
            out.push_str(p);
            n += 1;
            Ok(())
        })
        .unwrap();
        (out, n)
    }

    fn col(column_type: ColumnType, collation: Option<u32>) -> ColumnDef {
        ColumnDef {
            type_code: 252,
            column_type,
            nullable: true,
            unsigned: None,
            collation,
            name: None,
            labels: None,
            geometry_type: None,
            primary_key_prefix: None,
            visible: None,
        }
    }

    #[test]
    fn utf8_text_is_the_rendered_text() {
        let blob = ColumnType::Blob { len_bytes: 2 };
        // utf8mb4, latin1, ucs2, utf16, utf16le, utf32, binary, a charset
        // left unconverted (big5), none.
        let collations = [
            Some(45),
            Some(8),
            Some(35),
            Some(54),
            Some(56),
            Some(60),
            Some(63),
            Some(1),
            None,
        ];
        let texts: [&[u8]; 5] = [b"plain", "aé€😀".as_bytes(), b"", b"\xff\xfe", b"a\"b\\c\n"];
        let mut borrowed = 0;
        for collation in collations {
            let c = col(blob, collation);
            for text in texts {
                let v = Value::Bytes(text);
                let rendered = v.to_text(&c).unwrap().unwrap();
                match v.utf8_text(&c) {
                    Some(s) => {
                        assert_eq!(s, rendered, "collation {collation:?}");
                        borrowed += 1;
                    }
                    None => assert!(
                        !matches!(
                            c.charset(),
                            None | Some(Charset::Utf8) | Some(Charset::Other)
                        ) || std::str::from_utf8(text).is_err(),
                        "collation {collation:?}, {text:?}"
                    ),
                }
            }
        }
        // utf8mb4, big5 and none, four valid texts each.
        assert_eq!(borrowed, 12);
        assert_eq!(Value::Int(1).utf8_text(&col(blob, Some(45))), None);
    }

    #[test]
    fn values_rendered_in_pieces_equal_values_rendered_whole() {
        let blob = ColumnType::Blob { len_bytes: 4 };
        // utf8mb4, latin1, utf16, utf16le, utf32, binary; then none.
        let collations = [
            Some(45),
            Some(8),
            Some(54),
            Some(56),
            Some(60),
            Some(63),
            None,
        ];
        let mut texts: Vec<Vec<u8>> = vec![
            "aé€😀".repeat(20_000).into_bytes(),
            (0..=255u8).cycle().take(100_000).collect(),
            b"\xff\xfe plain".to_vec(),
            Vec::new(),
        ];
        // UTF-16: surrogate pairs straddling every possible piece boundary.
        let pair: Vec<u8> = "x😀".encode_utf16().flat_map(|u| u.to_be_bytes()).collect();
        texts.push(pair.iter().copied().cycle().take(PIECE * 3 + 6).collect());
        let pair_le: Vec<u8> = "x😀".encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
        texts.push(
            pair_le
                .iter()
                .copied()
                .cycle()
                .take(PIECE * 3 + 6)
                .collect(),
        );
        texts.push(
            pair.iter()
                .copied()
                .cycle()
                .skip(2)
                .take(PIECE * 2 + 3)
                .collect(),
        );
        for c in collations {
            let def = col(blob, c);
            for t in &texts {
                let v = Value::Bytes(t);
                let (pieces, n) = in_pieces(&v, &def);
                assert_eq!(pieces, v.to_text(&def).unwrap().unwrap(), "collation {c:?}");
                if t.len() > 2 * PIECE {
                    assert!(n > 2, "{n} pieces");
                }
            }
        }
        let binary16 = col(ColumnType::Char { max_len: 16 }, Some(63));
        for v in [
            Value::Bytes(b"ab"),
            Value::Bit(&[1, 2, 3]),
            Value::Geometry(&texts[1]),
            Value::Vector(&texts[1]),
            Value::Int(-5),
            Value::JsonText("{\"a\": \"é\"}".repeat(10_000)),
        ] {
            assert_eq!(
                in_pieces(&v, &binary16).0,
                v.to_text(&binary16).unwrap().unwrap()
            );
        }
        assert_eq!(in_pieces(&Value::Null, &binary16), (String::new(), 1));
    }

    #[test]
    fn floats_render_like_mysql() {
        assert_eq!(float(123_456.79_f32 as f64, true), "123457");
        assert_eq!(float(0.1f32 as f64, true), "0.1");
        assert_eq!(float(1e-10f32 as f64, true), "0.0000000001");
        assert_eq!(float(3.4e38f32 as f64, true), "3.4e38");
        assert_eq!(float(1.5e-7, false), "0.00000015");
        assert_eq!(float(1e15, false), "1e15");
        assert_eq!(float(123456789012345.0, false), "123456789012345");
        assert_eq!(
            float(-1.7976931348623157e308, false),
            "-1.7976931348623157e308"
        );
        assert_eq!(float(0.1, false), "0.1");
        assert_eq!(float(2.5, false), "2.5");
        assert_eq!(float(1e-16, false), "1e-16");
    }
}
