//! MySQL's binary JSON format (the JSON column type in row events): rendering
//! a document as the text MySQL prints for it, and applying the JSON diffs of
//! a PARTIAL_UPDATE_ROWS_EVENT to a before-image.
//!
//! The input comes from files and the network, so every count, offset and
//! length is checked against the bytes present, nesting is limited to MySQL's
//! 100 levels, and nothing in this module panics on any input.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt::Write as _;

use crate::bytes::ByteReader;
use crate::decimal::{decimal_size, Decimal};
use crate::error::{DecodeError, Result};

pub(crate) const SMALL_OBJECT: u8 = 0x00;
pub(crate) const LARGE_OBJECT: u8 = 0x01;
pub(crate) const SMALL_ARRAY: u8 = 0x02;
pub(crate) const LARGE_ARRAY: u8 = 0x03;
pub(crate) const LITERAL: u8 = 0x04;
pub(crate) const INT16: u8 = 0x05;
pub(crate) const UINT16: u8 = 0x06;
pub(crate) const INT32: u8 = 0x07;
pub(crate) const UINT32: u8 = 0x08;
pub(crate) const INT64: u8 = 0x09;
pub(crate) const UINT64: u8 = 0x0a;
pub(crate) const DOUBLE: u8 = 0x0b;
pub(crate) const STRING: u8 = 0x0c;
const OPAQUE: u8 = 0x0f;

// Field types (enum_field_types) that opaque values carry and MySQL prints
// specially; every other field type prints as base64.
const FIELD_TIMESTAMP: u8 = 7;
const FIELD_DATE: u8 = 10;
const FIELD_TIME: u8 = 11;
const FIELD_DATETIME: u8 = 12;
const FIELD_NEWDECIMAL: u8 = 246;
const FIELD_VAR_STRING: u8 = 253;

/// MySQL's JSON_DOCUMENT_MAX_DEPTH: arrays and objects nested deeper are errors.
const MAX_DEPTH: usize = 100;

const WHAT: &str = "binary JSON";
const DIFF: &str = "JSON diff";

fn bad(detail: impl Into<String>) -> DecodeError {
    DecodeError::invalid(WHAT, detail)
}

fn too_deep() -> DecodeError {
    bad(format!("nested deeper than {MAX_DEPTH} levels"))
}

/// Appends the MySQL binary JSON document `bin` as MySQL prints it in a SELECT
/// (e.g. `{"a": 1, "b": [true, null, "x"]}`: ", " between members, ": " after keys).
///
/// On error `out` is left as it was.
pub fn render_json(bin: &[u8], out: &mut String) -> Result<()> {
    let start = out.len();
    // Offsets may legally point anywhere after a header, so a corrupt document
    // can share one sub-document between many entries and render to an
    // exponential size. Real documents render to a few times their binary
    // size; the cap stops the others early.
    let cap = start
        .saturating_add(bin.len().saturating_mul(16))
        .saturating_add(1024);
    let result = parse_document(bin).and_then(|node| render_node(node, out, 0, cap));
    if result.is_err() {
        out.truncate(start);
    }
    result
}

/// Applies the JSON diffs of a PARTIAL_UPDATE_ROWS_EVENT after-image column (`diff`, the
/// bytes after the column's length prefix) to the binary before-image, and returns the full
/// after-image as JSON text rendered exactly like render_json would render it.
pub fn apply_json_diff(before: &[u8], diff: &[u8]) -> Result<String> {
    let mut doc = build_document(before)?;
    let mut r = ByteReader::new(diff);
    while !r.is_empty() {
        let d = read_diff(&mut r)?;
        let (op, path_text) = (d.operation, d.path);
        let path = parse_path(path_text)?;
        let value = match d.value {
            None => None,
            Some(v) => Some(build_document(v)?),
        };
        apply_one(&mut doc, op, &path, value).map_err(|why| {
            DecodeError::invalid(
                DIFF,
                format!(
                    "{} at {}: {why}",
                    op.name(),
                    String::from_utf8_lossy(path_text)
                ),
            )
        })?;
    }
    let mut out = String::new();
    render_tree(&doc, &mut out, 0)?;
    Ok(out)
}

/// One JSON diff of a PARTIAL_UPDATE_ROWS_EVENT: the operation, the path
/// (as MySQL wrote it, e.g. `$.a[1]`) and, but for REMOVE, the new value in
/// binary JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonDiff<'a> {
    pub operation: JsonDiffOperation,
    pub path: &'a [u8],
    pub value: Option<&'a [u8]>,
}

/// Reads one diff: operation byte, length-prefixed path, length-prefixed value.
fn read_diff<'a>(r: &mut ByteReader<'a>) -> Result<JsonDiff<'a>> {
    let operation = match r.u8()? {
        0 => Op::Replace,
        1 => Op::Insert,
        2 => Op::Remove,
        b => return Err(DecodeError::invalid(DIFF, format!("unknown operation {b}"))),
    };
    let path = r.packed_bytes()?;
    let value = match operation {
        Op::Remove => None,
        Op::Replace | Op::Insert => Some(r.packed_bytes()?),
    };
    Ok(JsonDiff {
        operation,
        path,
        value,
    })
}

/// The JSON diffs of a PARTIAL_UPDATE_ROWS_EVENT column whose before image is
/// not in the event (binlog_row_image MINIMAL or NOBLOB): what changed, not
/// the document. Checked when made: every operation is known, every path
/// parses and every value is a valid document, so rendering cannot fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonDiffs<'a> {
    bytes: &'a [u8],
}

impl<'a> JsonDiffs<'a> {
    /// Checks the diffs of one column (the bytes after its length prefix).
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        let mut r = ByteReader::new(bytes);
        while !r.is_empty() {
            let d = read_diff(&mut r)?;
            let check = parse_path(d.path).and_then(|_| match d.value {
                // A value is checked whole: what rendering will read.
                Some(v) => build_document(v).map(|_| ()),
                None => Ok(()),
            });
            check.map_err(|e| {
                DecodeError::invalid(
                    DIFF,
                    format!(
                        "{} at {}: {e}",
                        d.operation.name(),
                        String::from_utf8_lossy(d.path)
                    ),
                )
            })?;
        }
        Ok(JsonDiffs { bytes })
    }

    /// The diffs as the event holds them.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The diffs in the order the server applies them.
    pub fn iter(&self) -> impl Iterator<Item = JsonDiff<'a>> {
        let mut r = ByteReader::new(self.bytes);
        // Checked by parse(): reading cannot fail.
        std::iter::from_fn(move || (!r.is_empty()).then(|| read_diff(&mut r).ok()).flatten())
    }

    /// Appends the diffs as `mysqlbinlog -v` prints them, on one line: the
    /// SQL functions that apply them to `column` (consecutive diffs of one
    /// function share a call), e.g.
    /// `JSON_REMOVE(JSON_REPLACE(`doc`, '$.a', 5, '$.b', 'x'), '$.c')`.
    /// Strings are in single quotes, arrays and objects `CAST('…' AS JSON)`.
    pub fn render(&self, column: &str, out: &mut String) {
        let function = |d: &JsonDiff<'_>| match d.operation {
            Op::Replace => "JSON_REPLACE",
            Op::Insert if d.path.last() == Some(&b']') => "JSON_ARRAY_INSERT",
            Op::Insert => "JSON_INSERT",
            Op::Remove => "JSON_REMOVE",
        };
        let diffs: Vec<JsonDiff<'_>> = self.iter().collect();
        for (i, d) in diffs.iter().enumerate().rev() {
            if i == 0 || function(&diffs[i - 1]) != function(d) {
                out.push_str(function(d));
                out.push('(');
            }
        }
        out.push_str(column);
        for (i, d) in diffs.iter().enumerate() {
            out.push_str(", ");
            push_sql_quoted(out, &String::from_utf8_lossy(d.path));
            if let Some(v) = d.value {
                out.push_str(", ");
                push_diff_value(v, out);
            }
            if diffs
                .get(i + 1)
                .is_none_or(|next| function(next) != function(d))
            {
                out.push(')');
            }
        }
    }
}

/// A diff's value as mysqlbinlog prints it: numbers, booleans and null as
/// JSON, strings and other scalars in single quotes, arrays and objects as
/// `CAST('json' AS JSON)`.
fn push_diff_value(bin: &[u8], out: &mut String) {
    let mut text = String::new();
    let node = parse_document(bin);
    if render_json(bin, &mut text).is_err() {
        // JsonDiffs::parse checked the value; this is not reached.
        text = "null".into();
    }
    match node {
        Ok(Node::Array(_) | Node::Object(_)) => {
            out.push_str("CAST(");
            push_sql_quoted(out, &text);
            out.push_str(" AS JSON)");
        }
        Ok(Node::Scalar(Scalar::Str(s))) => push_sql_quoted(out, s),
        Ok(Node::Scalar(Scalar::Opaque(..))) if text.starts_with('"') => {
            // Dates, times and base64 opaque values: no escapes inside.
            push_sql_quoted(out, text.trim_matches('"'))
        }
        _ => out.push_str(&text),
    }
}

/// `'text'` with `'` and `\` escaped and control characters as `\xNN`, as
/// mysqlbinlog quotes strings.
fn push_sql_quoted(out: &mut String, s: &str) {
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('\'');
}

// ---------------------------------------------------------------------------
// Reading the binary format.

/// A scalar as stored; strings and opaque data borrow the document.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Scalar<'a> {
    Null,
    True,
    False,
    Int(i64),
    UInt(u64),
    Double(f64),
    Str(&'a str),
    Opaque(u8, &'a [u8]),
}

/// One value of a document, not decoded further than its own header.
#[derive(Debug, Clone, Copy)]
enum Node<'a> {
    Scalar(Scalar<'a>),
    Array(Container<'a>),
    Object(Container<'a>),
}

/// An array or object whose header has been checked: the entries all lie
/// within `data`, which is cut to the size the container declares.
#[derive(Debug, Clone, Copy)]
struct Container<'a> {
    data: &'a [u8],
    count: usize,
    large: bool,
    /// Where the value entries start (after the key entries of an object).
    values_at: usize,
    /// First byte after the header; keys and values must lie at or after it.
    header_end: usize,
}

fn offset_size(large: bool) -> usize {
    if large {
        4
    } else {
        2
    }
}

/// Reads a 2- or 4-byte little-endian offset or size at `at`.
fn read_offset(data: &[u8], at: usize, large: bool) -> Result<usize> {
    let n = offset_size(large);
    let end = at.checked_add(n).ok_or_else(|| bad("offset overflow"))?;
    let s = data.get(at..end).ok_or(DecodeError::Truncated {
        at,
        needed: n,
        available: data.len().saturating_sub(at),
    })?;
    Ok(crate::bytes::uint_le(s) as usize)
}

impl<'a> Container<'a> {
    fn parse(data: &'a [u8], large: bool, object: bool) -> Result<Self> {
        let osz = offset_size(large);
        let count = read_offset(data, 0, large)?;
        let bytes = read_offset(data, osz, large)?;
        let data = data.get(..bytes).ok_or_else(|| {
            bad(format!(
                "container claims {bytes} bytes, only {} present",
                data.len()
            ))
        })?;
        let key_entry = if object { osz + 2 } else { 0 };
        let value_entry = 1 + osz;
        let values_at = count
            .checked_mul(key_entry)
            .and_then(|k| k.checked_add(2 * osz));
        let header_end = values_at.and_then(|v| count.checked_mul(value_entry)?.checked_add(v));
        match (values_at, header_end) {
            (Some(values_at), Some(header_end)) if header_end <= bytes => Ok(Container {
                data,
                count,
                large,
                values_at,
                header_end,
            }),
            _ => Err(bad(format!(
                "{count} elements do not fit in a container of {bytes} bytes"
            ))),
        }
    }

    /// The key of member `i` of an object.
    fn key(&self, i: usize) -> Result<&'a str> {
        let osz = offset_size(self.large);
        // i < count, so this lies within the checked header.
        let at = 2 * osz + i * (osz + 2);
        let offset = read_offset(self.data, at, self.large)?;
        let len = read_offset(self.data, at + osz, false)?;
        if offset < self.header_end {
            return Err(bad(format!("key offset {offset} points into the header")));
        }
        let key = offset
            .checked_add(len)
            .and_then(|end| self.data.get(offset..end))
            .ok_or_else(|| bad(format!("key at {offset}+{len} is past the container end")))?;
        std::str::from_utf8(key).map_err(|_| bad("key is not valid UTF-8"))
    }

    /// Element `i` of an array, or the value of member `i` of an object.
    fn value(&self, i: usize) -> Result<Node<'a>> {
        let osz = offset_size(self.large);
        let at = self.values_at + i * (1 + osz);
        let t = *self
            .data
            .get(at)
            .ok_or_else(|| bad("value entry past the header"))?;
        let inlined = match t {
            LITERAL | INT16 | UINT16 => true,
            INT32 | UINT32 => self.large,
            _ => false,
        };
        if inlined {
            let entry = self
                .data
                .get(at + 1..at + 1 + osz)
                .ok_or_else(|| bad("value entry past the header"))?;
            return parse_scalar(t, entry).map(Node::Scalar);
        }
        let offset = read_offset(self.data, at + 1, self.large)?;
        if offset < self.header_end {
            return Err(bad(format!("value offset {offset} points into the header")));
        }
        let rest = self.data.get(offset..).ok_or_else(|| {
            bad(format!(
                "value offset {offset} is past the container end ({})",
                self.data.len()
            ))
        })?;
        parse_value(t, rest)
    }
}

/// The top-level value of a document. An empty document is JSON null: MySQL
/// stores one when NULL goes into a NOT NULL JSON column in non-strict mode.
fn parse_document(bin: &[u8]) -> Result<Node<'_>> {
    match bin.split_first() {
        None => Ok(Node::Scalar(Scalar::Null)),
        Some((&t, rest)) => parse_value(t, rest),
    }
}

fn parse_value(t: u8, data: &[u8]) -> Result<Node<'_>> {
    match t {
        SMALL_OBJECT => Container::parse(data, false, true).map(Node::Object),
        LARGE_OBJECT => Container::parse(data, true, true).map(Node::Object),
        SMALL_ARRAY => Container::parse(data, false, false).map(Node::Array),
        LARGE_ARRAY => Container::parse(data, true, false).map(Node::Array),
        _ => parse_scalar(t, data).map(Node::Scalar),
    }
}

fn parse_scalar(t: u8, data: &[u8]) -> Result<Scalar<'_>> {
    let mut r = ByteReader::new(data);
    Ok(match t {
        LITERAL => match r.u8()? {
            0 => Scalar::Null,
            1 => Scalar::True,
            2 => Scalar::False,
            b => return Err(bad(format!("unknown literal {b}"))),
        },
        INT16 => Scalar::Int(r.u16_le()? as i16 as i64),
        UINT16 => Scalar::UInt(r.u16_le()? as u64),
        INT32 => Scalar::Int(r.u32_le()? as i32 as i64),
        UINT32 => Scalar::UInt(r.u32_le()? as u64),
        INT64 => Scalar::Int(r.u64_le()? as i64),
        UINT64 => Scalar::UInt(r.u64_le()?),
        DOUBLE => Scalar::Double(f64::from_bits(r.u64_le()?)),
        STRING => {
            let len = variable_length(&mut r)?;
            let s = r.take(len)?;
            Scalar::Str(std::str::from_utf8(s).map_err(|_| bad("string is not valid UTF-8"))?)
        }
        OPAQUE => {
            let field_type = r.u8()?;
            let len = variable_length(&mut r)?;
            Scalar::Opaque(field_type, r.take(len)?)
        }
        _ => return Err(bad(format!("unknown value type {t:#04x}"))),
    })
}

/// The length prefix of strings and opaque values: 7 bits a byte, low bits
/// first, high bit set on all but the last byte; at most 5 bytes and 32 bits.
fn variable_length(r: &mut ByteReader<'_>) -> Result<usize> {
    let mut len = 0u64;
    for i in 0..5 {
        let b = r.u8()?;
        len |= ((b & 0x7f) as u64) << (7 * i);
        if b & 0x80 == 0 {
            if len > u32::MAX as u64 {
                break;
            }
            // Checked by the caller's take(), so never an allocation size.
            return Ok(len as usize);
        }
    }
    Err(bad("malformed string length"))
}

// ---------------------------------------------------------------------------
// Rendering, straight from the binary format.

fn render_node(node: Node<'_>, out: &mut String, depth: usize, cap: usize) -> Result<()> {
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

fn render_scalar(s: Scalar<'_>, out: &mut String) -> Result<()> {
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
fn push_quoted(out: &mut String, s: &str) {
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

// ---------------------------------------------------------------------------
// JSON diffs: an owned tree, a path parser, and the three operations.

/// A decoded document. Scalars and keys borrow the input buffers.
#[derive(Debug, Clone, PartialEq)]
enum Tree<'a> {
    Scalar(Scalar<'a>),
    Array(Vec<Tree<'a>>),
    /// Members in the stored order, which MySQL keeps sorted by key length,
    /// then bytes.
    Object(Vec<(Cow<'a, str>, Tree<'a>)>),
}

/// Decodes a whole document into a tree.
fn build_document(bin: &[u8]) -> Result<Tree<'_>> {
    // Every value of a real document has an entry or header of its own in
    // the bytes, and every string and key its own bytes; more than that
    // means entries share sub-documents, which could otherwise cost time and
    // memory exponential in the document size.
    let mut budget = bin.len().saturating_mul(2).saturating_add(16);
    build_tree(parse_document(bin)?, 0, &mut budget)
}

fn charge(budget: &mut usize, cost: usize) -> Result<()> {
    *budget = budget
        .checked_sub(cost.saturating_add(1))
        .ok_or_else(|| bad("more values than the document has bytes (shared sub-documents)"))?;
    Ok(())
}

fn build_tree<'a>(node: Node<'a>, depth: usize, budget: &mut usize) -> Result<Tree<'a>> {
    match node {
        Node::Scalar(s) => {
            let size = match s {
                Scalar::Str(s) => s.len(),
                Scalar::Opaque(_, data) => data.len(),
                _ => 0,
            };
            charge(budget, size)?;
            Ok(Tree::Scalar(s))
        }
        Node::Array(c) => {
            charge(budget, 0)?;
            if depth >= MAX_DEPTH {
                return Err(too_deep());
            }
            // count is bounded by the container's size, checked in parse().
            let mut items = Vec::with_capacity(c.count);
            for i in 0..c.count {
                items.push(build_tree(c.value(i)?, depth + 1, budget)?);
            }
            Ok(Tree::Array(items))
        }
        Node::Object(c) => {
            charge(budget, 0)?;
            if depth >= MAX_DEPTH {
                return Err(too_deep());
            }
            let mut members = Vec::with_capacity(c.count);
            for i in 0..c.count {
                let key = c.key(i)?;
                charge(budget, key.len())?;
                members.push((
                    Cow::Borrowed(key),
                    build_tree(c.value(i)?, depth + 1, budget)?,
                ));
            }
            Ok(Tree::Object(members))
        }
    }
}

/// Levels of arrays and objects in `t` (0 for a scalar).
fn height(t: &Tree<'_>) -> usize {
    match t {
        Tree::Scalar(_) => 0,
        Tree::Array(items) => 1 + items.iter().map(height).max().unwrap_or(0),
        Tree::Object(members) => 1 + members.iter().map(|(_, v)| height(v)).max().unwrap_or(0),
    }
}

fn render_tree(t: &Tree<'_>, out: &mut String, depth: usize) -> Result<()> {
    match t {
        Tree::Scalar(s) => render_scalar(*s, out),
        Tree::Array(items) => {
            if depth >= MAX_DEPTH {
                return Err(too_deep());
            }
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                render_tree(v, out, depth + 1)?;
            }
            out.push(']');
            Ok(())
        }
        Tree::Object(members) => {
            if depth >= MAX_DEPTH {
                return Err(too_deep());
            }
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_quoted(out, k);
                out.push_str(": ");
                render_tree(v, out, depth + 1)?;
            }
            out.push('}');
            Ok(())
        }
    }
}

/// The operation of one JSON diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonDiffOperation {
    Replace,
    Insert,
    Remove,
}

type Op = JsonDiffOperation;

impl JsonDiffOperation {
    /// `REPLACE`, `INSERT` or `REMOVE`.
    pub fn name(self) -> &'static str {
        match self {
            Op::Replace => "REPLACE",
            Op::Insert => "INSERT",
            Op::Remove => "REMOVE",
        }
    }
}

/// One leg of a JSON path: `.key` or `[n]` / `[last]` / `[last-n]`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Leg<'a> {
    Member(Cow<'a, str>),
    Cell { index: u64, from_end: bool },
}

impl Leg<'_> {
    /// MySQL's Json_array_index: the position in an array of `len` elements
    /// (clamped to 0..=len) and whether the index is within bounds.
    fn position(index: u64, from_end: bool, len: usize) -> (usize, bool) {
        let len64 = len as u64;
        let within = index < len64;
        let pos = if from_end {
            if within {
                len64 - index - 1
            } else {
                0
            }
        } else {
            index.min(len64)
        };
        // pos <= len, which is a usize.
        (usize::try_from(pos).unwrap_or(len), within)
    }
}

/// Parses the path text of a diff, as MySQL's Json_path::to_string() writes
/// it: `$`, then legs `.key`, `."quoted key"`, `[3]`, `[last]`, `[last-1]`,
/// with optional whitespace between tokens.
fn parse_path(text: &[u8]) -> Result<Vec<Leg<'_>>> {
    let text = std::str::from_utf8(text)
        .map_err(|_| DecodeError::invalid(DIFF, "path is not valid UTF-8"))?;
    let err = |detail: &str| DecodeError::invalid(DIFF, format!("path {text:?}: {detail}"));
    let b = text.as_bytes();
    let mut i = skip_space(b, 0);
    if b.get(i) != Some(&b'$') {
        return Err(err("does not start with $"));
    }
    i += 1;
    let mut legs = Vec::new();
    loop {
        i = skip_space(b, i);
        match b.get(i) {
            None => break,
            Some(b'.') => {
                i = skip_space(b, i + 1);
                match b.get(i) {
                    None => return Err(err("ends after '.'")),
                    Some(b'*') => return Err(err("wildcards cannot be applied")),
                    Some(b'"') => {
                        // Up to the next unescaped quote.
                        let start = i + 1;
                        let mut j = start;
                        loop {
                            match b.get(j) {
                                None => return Err(err("unterminated quoted key")),
                                Some(b'\\') => j += 2,
                                Some(b'"') => break,
                                Some(_) => j += 1,
                            }
                        }
                        let raw = text.get(start..j).ok_or_else(|| err("bad quoted key"))?;
                        legs.push(Leg::Member(
                            unescape(raw).ok_or_else(|| err("bad escape in key"))?,
                        ));
                        i = j + 1;
                    }
                    Some(_) => {
                        let start = i;
                        while let Some(&c) = b.get(i) {
                            if is_space(c) || matches!(c, b'[' | b'.' | b'*') {
                                break;
                            }
                            i += 1;
                        }
                        let raw = text
                            .get(start..i)
                            .filter(|k| !k.is_empty())
                            .ok_or_else(|| err("empty key"))?;
                        legs.push(Leg::Member(
                            unescape(raw).ok_or_else(|| err("bad escape in key"))?,
                        ));
                    }
                }
            }
            Some(b'[') => {
                i = skip_space(b, i + 1);
                let from_end = b.get(i..i + 4) == Some(b"last");
                let mut index = 0u64;
                if from_end {
                    i = skip_space(b, i + 4);
                    if b.get(i) == Some(&b'-') {
                        i = skip_space(b, i + 1);
                        (index, i) = parse_index(b, i).ok_or_else(|| err("bad array index"))?;
                    }
                } else if b.get(i) == Some(&b'*') {
                    return Err(err("wildcards cannot be applied"));
                } else {
                    (index, i) = parse_index(b, i).ok_or_else(|| err("bad array index"))?;
                }
                i = skip_space(b, i);
                if b.get(i) != Some(&b']') {
                    return Err(err("array leg is not a single index"));
                }
                i += 1;
                legs.push(Leg::Cell { index, from_end });
            }
            Some(_) => return Err(err("unexpected character")),
        }
    }
    Ok(legs)
}

/// Whitespace as MySQL's path parser sees it.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|&c| is_space(c)) {
        i += 1;
    }
    i
}

/// Decimal digits at `i`: the value and the index after them.
fn parse_index(b: &[u8], mut i: usize) -> Option<(u64, usize)> {
    let start = i;
    let mut v = 0u64;
    while let Some(&c) = b.get(i) {
        if !c.is_ascii_digit() {
            break;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
        i += 1;
    }
    // MySQL reads the index as a signed 64-bit number.
    (i > start && v <= i64::MAX as u64).then_some((v, i))
}

/// The body of a JSON string literal with its escapes resolved; None if it
/// is not a valid one.
fn unescape(raw: &str) -> Option<Cow<'_, str>> {
    if !raw.bytes().any(|c| c == b'\\' || c == b'"' || c < 0x20) {
        return Some(Cow::Borrowed(raw));
    }
    let mut s = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\0'..='\x1f' => return None,
            '\\' => match chars.next()? {
                '"' => s.push('"'),
                '\\' => s.push('\\'),
                '/' => s.push('/'),
                'b' => s.push('\x08'),
                'f' => s.push('\x0c'),
                'n' => s.push('\n'),
                'r' => s.push('\r'),
                't' => s.push('\t'),
                'u' => {
                    let hi = hex4(&mut chars)?;
                    let code = if (0xd800..0xdc00).contains(&hi) {
                        if chars.next()? != '\\' || chars.next()? != 'u' {
                            return None;
                        }
                        let lo = hex4(&mut chars)?;
                        if !(0xdc00..0xe000).contains(&lo) {
                            return None;
                        }
                        0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                    } else {
                        hi
                    };
                    s.push(char::from_u32(code)?);
                }
                _ => return None,
            },
            c => s.push(c),
        }
    }
    Some(Cow::Owned(s))
}

fn hex4(chars: &mut std::str::Chars<'_>) -> Option<u32> {
    let mut v = 0;
    for _ in 0..4 {
        v = v * 16 + chars.next()?.to_digit(16)?;
    }
    Some(v)
}

/// MySQL's key order in objects: shorter keys first, then bytewise. Objects
/// are stored sorted so, which lets members be found by binary search.
fn key_order(a: &str, b: &str) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

/// The value at `legs`, without auto-wrapping (MySQL's seek_exact_path).
fn seek<'t, 'a>(mut t: &'t mut Tree<'a>, legs: &[Leg<'_>]) -> Option<&'t mut Tree<'a>> {
    for leg in legs {
        t = match (t, leg) {
            (Tree::Array(items), Leg::Cell { index, from_end }) => {
                let (pos, within) = Leg::position(*index, *from_end, items.len());
                if !within {
                    return None;
                }
                items.get_mut(pos)?
            }
            (Tree::Object(members), Leg::Member(key)) => {
                let at = members.binary_search_by(|(k, _)| key_order(k, key)).ok()?;
                &mut members.get_mut(at)?.1
            }
            _ => return None,
        };
    }
    Some(t)
}

/// Applies one diff as MySQL's apply_json_diffs() does; the error is why the
/// diff does not apply (MySQL rejects it).
fn apply_one<'a>(
    doc: &mut Tree<'a>,
    op: Op,
    path: &[Leg<'a>],
    value: Option<Tree<'a>>,
) -> std::result::Result<(), String> {
    let Some((last, parent_legs)) = path.split_last() else {
        return Err("the root cannot be changed by a diff".into());
    };
    if let Some(v) = &value {
        // Every leg of the path goes through an array or object.
        if path.len() + height(v) > MAX_DEPTH {
            return Err(format!("result nested deeper than {MAX_DEPTH} levels"));
        }
    }
    let parent = seek(doc, parent_legs).ok_or("path not found")?;
    match (op, parent, last) {
        (Op::Replace, parent, last) => {
            let target = seek(parent, std::slice::from_ref(last)).ok_or("path not found")?;
            *target = value.ok_or("no value")?;
        }
        (Op::Insert, Tree::Object(members), Leg::Member(key)) => {
            let at = match members.binary_search_by(|(k, _)| key_order(k, key)) {
                Ok(_) => return Err("member already exists".into()),
                Err(at) => at,
            };
            members.insert(at, (key.clone(), value.ok_or("no value")?));
        }
        (Op::Insert, Tree::Array(items), Leg::Cell { index, from_end }) => {
            let (pos, _) = Leg::position(*index, *from_end, items.len());
            items.insert(pos, value.ok_or("no value")?);
        }
        (Op::Remove, Tree::Object(members), Leg::Member(key)) => {
            let at = members
                .binary_search_by(|(k, _)| key_order(k, key))
                .map_err(|_| "member not found")?;
            members.remove(at);
        }
        (Op::Remove, Tree::Array(items), Leg::Cell { index, from_end }) => {
            let (pos, within) = Leg::position(*index, *from_end, items.len());
            if !within {
                return Err("array index out of bounds".into());
            }
            items.remove(pos);
        }
        _ => return Err("parent is not a container of that kind".into()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn render(bin: &[u8]) -> String {
        let mut s = String::new();
        render_json(bin, &mut s).unwrap();
        s
    }

    fn render_err(bin: &[u8]) -> DecodeError {
        let mut s = String::from("keep");
        let e = render_json(bin, &mut s).unwrap_err();
        assert_eq!(s, "keep", "output must be left as it was on error");
        e
    }

    // A test-side encoder in MySQL's layout, to build larger documents.
    fn enc(v: &Value, large: bool) -> Vec<u8> {
        let (t, body) = enc_value(v, large);
        let mut out = vec![t];
        out.extend(body);
        out
    }

    fn var_len(mut n: usize, out: &mut Vec<u8>) {
        loop {
            let b = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }

    fn enc_value(v: &Value, large: bool) -> (u8, Vec<u8>) {
        match v {
            Value::Null => (LITERAL, vec![0]),
            Value::Bool(b) => (LITERAL, vec![if *b { 1 } else { 2 }]),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    if let Ok(i) = i16::try_from(i) {
                        (INT16, i.to_le_bytes().to_vec())
                    } else if let Ok(i) = i32::try_from(i) {
                        (INT32, i.to_le_bytes().to_vec())
                    } else {
                        (INT64, i.to_le_bytes().to_vec())
                    }
                } else if let Some(u) = n.as_u64() {
                    (UINT64, u.to_le_bytes().to_vec())
                } else {
                    (DOUBLE, n.as_f64().unwrap().to_le_bytes().to_vec())
                }
            }
            Value::String(s) => {
                let mut b = Vec::new();
                var_len(s.len(), &mut b);
                b.extend(s.as_bytes());
                (STRING, b)
            }
            Value::Array(items) => {
                enc_container(items.iter().map(|v| (None, v)).collect(), large, false)
            }
            Value::Object(m) => {
                let mut members: Vec<_> = m.iter().map(|(k, v)| (Some(k.as_str()), v)).collect();
                members.sort_by(|a, b| key_order(a.0.unwrap(), b.0.unwrap()));
                enc_container(members, large, true)
            }
        }
    }

    fn put(body: &mut [u8], at: usize, v: usize, n: usize) {
        body[at..at + n].copy_from_slice(&(v as u32).to_le_bytes()[..n]);
    }

    fn enc_container(
        entries: Vec<(Option<&str>, &Value)>,
        large: bool,
        object: bool,
    ) -> (u8, Vec<u8>) {
        let osz = if large { 4 } else { 2 };
        let n = entries.len();
        let values_at = 2 * osz + if object { n * (osz + 2) } else { 0 };
        let mut body = vec![0u8; values_at + n * (1 + osz)];
        put(&mut body, 0, n, osz);
        for (i, (k, _)) in entries.iter().enumerate() {
            if let Some(k) = k {
                let at = 2 * osz + i * (osz + 2);
                let off = body.len();
                put(&mut body, at, off, osz);
                put(&mut body, at + osz, k.len(), 2);
                body.extend(k.as_bytes());
            }
        }
        for (i, (_, v)) in entries.iter().enumerate() {
            let (t, b) = enc_value(v, large);
            let e = values_at + i * (1 + osz);
            body[e] = t;
            let inlined =
                matches!(t, LITERAL | INT16 | UINT16) || (large && matches!(t, INT32 | UINT32));
            if inlined {
                body[e + 1..e + 1 + b.len()].copy_from_slice(&b);
            } else {
                let off = body.len();
                put(&mut body, e + 1, off, osz);
                body.extend(b);
            }
        }
        let size = body.len();
        put(&mut body, osz, size, osz);
        let t = match (object, large) {
            (true, false) => SMALL_OBJECT,
            (true, true) => LARGE_OBJECT,
            (false, false) => SMALL_ARRAY,
            (false, true) => LARGE_ARRAY,
        };
        (t, body)
    }

    fn opaque(field_type: u8, data: &[u8]) -> Vec<u8> {
        let mut b = vec![OPAQUE, field_type];
        var_len(data.len(), &mut b);
        b.extend(data);
        b
    }

    #[test]
    fn empty_document_is_null() {
        assert_eq!(render(&[]), "null");
    }

    #[test]
    fn literals_and_integers() {
        assert_eq!(render(&[LITERAL, 0]), "null");
        assert_eq!(render(&[LITERAL, 1]), "true");
        assert_eq!(render(&[LITERAL, 2]), "false");
        assert_eq!(render(&[INT16, 0x00, 0x80]), "-32768");
        assert_eq!(render(&[UINT16, 0xff, 0xff]), "65535");
        assert_eq!(render(&[INT32, 0xff, 0xff, 0xff, 0xff]), "-1");
        assert_eq!(render(&[UINT32, 0xff, 0xff, 0xff, 0xff]), "4294967295");
        let mut b = vec![INT64];
        b.extend(i64::MIN.to_le_bytes());
        assert_eq!(render(&b), "-9223372036854775808");
        let mut b = vec![UINT64];
        b.extend(u64::MAX.to_le_bytes());
        assert_eq!(render(&b), "18446744073709551615");
    }

    fn double(x: f64) -> String {
        let mut b = vec![DOUBLE];
        b.extend(x.to_le_bytes());
        render(&b)
    }

    #[test]
    fn doubles_print_like_my_gcvt() {
        let cases: &[(f64, &str)] = &[
            (3.0, "3.0"),
            (1.5, "1.5"),
            (-1.5, "-1.5"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (0.1, "0.1"),
            (0.30000000000000004, "0.30000000000000004"),
            (100.0, "100.0"),
            (123456789012345.0, "123456789012345.0"),
            (999999999999999.0, "999999999999999.0"),
            (1e15, "1e15"),
            (-1e15, "-1e15"),
            (1.5e15, "1.5e15"),
            (1234567890123456.8, "1234567890123456.8"),
            (1e100, "1e100"),
            (1.7976931348623157e308, "1.7976931348623157e308"),
            (1e-15, "0.000000000000001"),
            (1.5e-7, "0.00000015"),
            (1e-16, "1e-16"),
            (-2.5e-300, "-2.5e-300"),
            (5e-324, "5e-324"),
            (12.25, "12.25"),
            (f64::NAN, "0.0"),
        ];
        for &(x, want) in cases {
            assert_eq!(double(x), want, "{x:e}");
        }
    }

    #[test]
    fn strings_are_escaped_like_mysql() {
        let mut b = vec![STRING];
        let s = "a\"b\\c\nd\te\u{8}f\u{c}g\rh\u{1}i\u{1f}j\u{7f}/é€😀";
        var_len(s.len(), &mut b);
        b.extend(s.as_bytes());
        assert_eq!(
            render(&b),
            "\"a\\\"b\\\\c\\nd\\te\\bf\\fg\\rh\\u0001i\\u001fj\u{7f}/é€😀\""
        );
        // A length prefix of two bytes.
        let long = "x".repeat(200);
        let doc = enc(&json!(long), false);
        assert_eq!(&doc[1..3], &[0xc8, 0x01]);
        assert_eq!(render(&doc), format!("\"{long}\""));
        assert_eq!(render(&[STRING, 0]), "\"\"");
    }

    #[test]
    fn small_object_by_hand() {
        // {"a": 1, "b": [true, null, "x"]}
        let doc = hex("00 02 00 23 00
             12 00 01 00  13 00 01 00
             05 01 00  02 14 00
             61 62
             03 00 0f 00  04 01 00  04 00 00  0c 0d 00  01 78");
        assert_eq!(render(&doc), r#"{"a": 1, "b": [true, null, "x"]}"#);
    }

    #[test]
    fn encoded_documents_small_and_large() {
        let v = json!({
            "id": 7,
            "neg": -70000,
            "big": 5_000_000_000_i64,
            "u": 18_000_000_000_000_000_000_u64,
            "f": 2.5,
            "name": "Joe",
            "list": [1, [2, [3, {}]], [], {"k": null}, false],
            "": "empty key",
        });
        let want = r#"{"": "empty key", "f": 2.5, "u": 18000000000000000000, "id": 7, "big": 5000000000, "neg": -70000, "list": [1, [2, [3, {}]], [], {"k": null}, false], "name": "Joe"}"#;
        let small = enc(&v, false);
        let large = enc(&v, true);
        assert_eq!(small[0], SMALL_OBJECT);
        assert_eq!(large[0], LARGE_OBJECT);
        assert_eq!(render(&small), want);
        assert_eq!(render(&large), want);
        let arr = enc(&json!([1, -100000, "s", null]), true);
        assert_eq!(arr[0], LARGE_ARRAY);
        // int32 is inlined in the large format.
        assert_eq!(&arr[9 + 5..9 + 10], &[INT32, 0x60, 0x79, 0xfe, 0xff]);
        assert_eq!(render(&arr), r#"[1, -100000, "s", null]"#);
        assert_eq!(render(&enc(&json!([]), false)), "[]");
        assert_eq!(render(&enc(&json!({}), false)), "{}");
    }

    #[test]
    fn large_array_past_64k() {
        let items: Vec<Value> = (0..30_000).map(|i| json!(format!("{i}"))).collect();
        let doc = enc(&Value::Array(items), true);
        assert!(doc.len() > 0x10000);
        let text = render(&doc);
        assert!(text.starts_with(r#"["0", "1", "2""#));
        assert!(text.ends_with(r#""29999"]"#));
    }

    #[test]
    fn opaque_values() {
        // DECIMAL(5,2) 123.45: precision, scale, then binary decimal.
        assert_eq!(render(&opaque(246, &[5, 2, 0x80, 0x7b, 0x2d])), "123.45");
        assert_eq!(render(&opaque(246, &[5, 2, 0x7f, 0x84, 0xd2])), "-123.45");
        assert!(render_json(&opaque(246, &[5, 2, 0x80]), &mut String::new()).is_err());
        assert!(render_json(&opaque(246, &[2, 5, 0x80]), &mut String::new()).is_err());
        assert!(render_json(&opaque(246, &[]), &mut String::new()).is_err());
        // 2015-01-15 23:24:25.000123, packed as TIME_to_longlong_datetime_packed.
        let ymd = ((2015u64 * 13 + 1) << 5) | 15;
        let hms = (23u64 << 12) | (24 << 6) | 25;
        let dt = ((((ymd << 17) | hms) << 24) | 123).to_le_bytes();
        assert_eq!(render(&opaque(12, &dt)), "\"2015-01-15 23:24:25.000123\"");
        assert_eq!(render(&opaque(7, &dt)), "\"2015-01-15 23:24:25.000123\"");
        let d = (((ymd << 17) << 24) as i64).to_le_bytes();
        assert_eq!(render(&opaque(10, &d)), "\"2015-01-15\"");
        let t = ((((838u64 << 12) | (59 << 6) | 59) << 24) as i64).to_le_bytes();
        assert_eq!(render(&opaque(11, &t)), "\"838:59:59.000000\"");
        let t = (-((((1u64 << 12) | (2 << 6) | 3) << 24 | 500_000) as i64)).to_le_bytes();
        assert_eq!(render(&opaque(11, &t)), "\"-01:02:03.500000\"");
        assert!(render_json(&opaque(12, &dt[..7]), &mut String::new()).is_err());
        // Strings kept as opaque print as strings; the rest as base64.
        assert_eq!(render(&opaque(253, b"a\"b")), r#""a\"b""#);
        assert_eq!(render(&opaque(15, b"U")), r#""base64:type15:VQ==""#);
        assert_eq!(render(&opaque(252, b"ab")), r#""base64:type252:YWI=""#);
        assert_eq!(render(&opaque(16, b"")), r#""base64:type16:""#);
        // MySQL breaks base64 lines at 76 characters (57 bytes).
        let blob: Vec<u8> = (0u8..60).collect();
        let text = render(&opaque(252, &blob));
        let body = text
            .trim_matches('"')
            .strip_prefix("base64:type252:")
            .unwrap();
        let (first, second) = body.split_once("\\n").unwrap();
        assert_eq!(first.len(), 76);
        assert_eq!(second, "OTo7");
    }

    #[test]
    fn corpus_values() {
        // Row values from json-opaque.binlog (MySQL 9.0), with what MySQL prints.
        let cases = [
            ("0001000f000b0001000f0c00610f0155", r#"{"a": "base64:type15:VQ=="}"#),
            ("00010016000b0001000f0c00620a080000000000e48b19", r#"{"b": "2012-03-18"}"#),
            (
                "00010016000b0001000f0c00630c08000000adb7e48b19",
                r#"{"c": "2012-03-18 11:30:45.000000"}"#,
            ),
            ("00010016000b0001000f0c00630b08f1fb09ee77050000", r#"{"c": "87:31:46.654321"}"#),
            ("00010014000b0001000f0c0064f6060603807b01c8", r#"{"d": 123.456}"#),
            ("00010015000b0001000f0c0065f6070b028000000900", r#"{"e": 9.00}"#),
            (
                "0001001c000b000100020c006504001000050000050100040100040200",
                r#"{"e": [0, 1, true, false]}"#,
            ),
            ("0001000c000b00010004000065", r#"{"e": null}"#),
            // From json.binlog.000001.
            (
                "0003003300190003001c000400200004000518000c24000c2f00616765646174616e616d650a78787878787878787878034a6f65",
                r#"{"age": 24, "data": "xxxxxxxxxx", "name": "Joe"}"#,
            ),
        ];
        for (h, want) in cases {
            assert_eq!(render(&hex(h)), want);
        }
    }

    #[test]
    fn appends_to_existing_output() {
        let mut s = String::from("x=");
        render_json(&[LITERAL, 1], &mut s).unwrap();
        assert_eq!(s, "x=true");
    }

    #[test]
    fn nesting_limit() {
        let mut v = json!(1);
        for _ in 0..100 {
            v = json!([v]);
        }
        let doc = enc(&v, false);
        assert!(render(&doc).starts_with("[[[["));
        let doc = enc(&json!([v]), false);
        assert!(render_err(&doc).to_string().contains("deeper"));
        assert!(apply_json_diff(&doc, &[]).is_err());
    }

    #[test]
    fn truncated_documents_are_errors() {
        let docs = [
            enc(
                &json!({"a": [1, 2.5, "xyz", {"b": null}], "long": -100000}),
                false,
            ),
            enc(
                &json!({"a": [1, 2.5, "xyz", {"b": null}], "long": -100000}),
                true,
            ),
            opaque(246, &[5, 2, 0x80, 0x7b, 0x2d]),
            opaque(12, &[0; 8]),
            vec![INT64, 1, 2, 3, 4, 5, 6, 7, 8],
            vec![STRING, 3, b'a', b'b', b'c'],
        ];
        for doc in &docs {
            render(doc);
            for n in 1..doc.len() {
                render_err(&doc[..n]);
                assert!(apply_json_diff(&doc[..n], &[]).is_err());
            }
        }
    }

    #[test]
    fn corrupt_documents_are_errors() {
        let errs: &[&[u8]] = &[
            &[0x0d],                                       // unknown type
            &[LITERAL, 3],                                 // unknown literal
            &[STRING, 2, 0xff, 0xfe],                      // not UTF-8
            &[STRING, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], // length too long
            &[STRING, 0xff, 0xff, 0xff, 0xff, 0x7f],       // length past 32 bits
            // A container claiming more bytes than present.
            &[SMALL_ARRAY, 1, 0, 0xff, 0x00, LITERAL, 0, 0],
            // Element count that does not fit the declared size.
            &[SMALL_ARRAY, 9, 0, 7, 0, LITERAL, 0, 0],
            // Value offset past the end.
            &[SMALL_ARRAY, 1, 0, 7, 0, STRING, 0x20, 0],
            // Value offset into the header.
            &[SMALL_ARRAY, 1, 0, 8, 0, STRING, 0x02, 0, 0],
            // Key offset into the header, and past the end.
            &[SMALL_OBJECT, 1, 0, 12, 0, 2, 0, 1, 0, LITERAL, 0, 0, b'a'],
            &[SMALL_OBJECT, 1, 0, 12, 0, 11, 0, 5, 0, LITERAL, 0, 0, b'a'],
            // Key not UTF-8.
            &[SMALL_OBJECT, 1, 0, 12, 0, 11, 0, 1, 0, LITERAL, 0, 0, 0xff],
            // Opaque value longer than the document.
            &[OPAQUE, 252, 5, 1, 2],
        ];
        for doc in errs {
            render_err(doc);
            assert!(apply_json_diff(doc, &[]).is_err());
        }
        // The same object, well-formed.
        assert_eq!(
            render(&[SMALL_OBJECT, 1, 0, 12, 0, 11, 0, 1, 0, LITERAL, 0, 0, b'a']),
            r#"{"a": null}"#
        );
    }

    /// An array whose two entries point at the same child, `levels` deep: a
    /// few hundred bytes that would render to 2^levels values.
    fn shared_tree(levels: usize) -> Vec<u8> {
        let mut child = vec![LITERAL, 1];
        let mut child_is_scalar = true;
        for _ in 0..levels {
            let mut body = vec![2, 0, 0, 0];
            if child_is_scalar {
                body.extend([LITERAL, 1, 0, LITERAL, 1, 0]);
            } else {
                body.extend([child[0], 10, 0, child[0], 10, 0]);
                body.extend(&child[1..]);
            }
            let size = body.len() as u16;
            body[2..4].copy_from_slice(&size.to_le_bytes());
            child = vec![SMALL_ARRAY];
            child.extend(body);
            child_is_scalar = false;
        }
        child
    }

    #[test]
    fn shared_sub_documents_cannot_blow_up() {
        let doc = shared_tree(60);
        assert!(doc.len() < 1000);
        render_err(&doc);
        assert!(apply_json_diff(&doc, &[]).is_err());
        // A few levels are fine: they stay within the size allowance.
        assert_eq!(render(&shared_tree(2)), "[[true, true], [true, true]]");
    }

    #[test]
    fn shared_strings_cannot_cost_quadratic_time() {
        // 20000 array entries all pointing at one 100 KB string.
        let n = 20_000usize;
        let header = 8 + n * 5;
        let mut body = Vec::new();
        body.extend((n as u32).to_le_bytes());
        body.extend(0u32.to_le_bytes());
        for _ in 0..n {
            body.push(STRING);
            body.extend((header as u32).to_le_bytes());
        }
        var_len(100_000, &mut body);
        body.resize(body.len() + 100_000, b'x');
        let size = body.len() as u32;
        body[4..8].copy_from_slice(&size.to_le_bytes());
        let mut doc = vec![LARGE_ARRAY];
        doc.extend(body);
        render_err(&doc);
        assert!(apply_json_diff(&doc, &[]).is_err());
    }

    /// Small deterministic generator for mutation tests.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
    }

    #[test]
    fn mutated_inputs_never_panic() {
        let base = [
            enc(
                &json!({"a": [1, 2.5, "xyz", {"b": null}], "long": -100000, "t": true}),
                false,
            ),
            enc(
                &json!({"a": [1, 2.5, "xyz", {"b": null}], "long": -100000, "t": true}),
                true,
            ),
            hex("00010016000b0001000f0c00630c08000000adb7e48b19"),
            hex("00010014000b0001000f0c0064f6060603807b01c8"),
        ];
        let diff =
            hex("00 05 242e616765 03 05 1a 00  01 07 242e615b315d 02 04 01  02 06 242e615b305d");
        let mut rng = Lcg(42);
        for doc in &base {
            for _ in 0..3000 {
                let mut d = doc.clone();
                for _ in 0..1 + rng.next() % 3 {
                    let i = (rng.next() as usize) % d.len();
                    d[i] = rng.next() as u8;
                }
                let mut s = String::new();
                let _ = render_json(&d, &mut s);
                let _ = apply_json_diff(&d, &diff);
                let mut m = diff.clone();
                let i = (rng.next() as usize) % m.len();
                m[i] = rng.next() as u8;
                let _ = apply_json_diff(doc, &m);
                let _ = apply_json_diff(doc, &m[..i]);
            }
        }
    }

    // --- diffs ---

    fn packed(n: usize, out: &mut Vec<u8>) {
        if n < 251 {
            out.push(n as u8);
        } else {
            out.push(0xfc);
            out.extend((n as u16).to_le_bytes());
        }
    }

    fn diff_entry(op: u8, path: &str, value: Option<&[u8]>) -> Vec<u8> {
        let mut b = vec![op];
        packed(path.len(), &mut b);
        b.extend(path.as_bytes());
        if let Some(v) = value {
            packed(v.len(), &mut b);
            b.extend(v);
        }
        b
    }

    fn apply(before: &Value, diffs: &[(u8, &str, Option<Value>)]) -> Result<String> {
        let mut d = Vec::new();
        for (op, path, v) in diffs {
            let v = v.as_ref().map(|v| enc(v, false));
            d.extend(diff_entry(*op, path, v.as_deref()));
        }
        apply_json_diff(&enc(before, false), &d)
    }

    #[test]
    fn corpus_partial_update() {
        // json.binlog.000001: UPDATE t SET json_col = JSON_REPLACE(json_col, '$.age', 26).
        let before = hex("0003003300190003001c000400200004000519000c24000c2f00616765646174616e616d650a78787878787878787878034a6f65");
        let diff = hex("0005242e61676503051a00");
        assert_eq!(
            apply_json_diff(&before, &diff).unwrap(),
            r#"{"age": 26, "data": "xxxxxxxxxx", "name": "Joe"}"#
        );
    }

    #[test]
    fn diffs_without_a_document_render_as_mysqlbinlog_prints_them() {
        let diffs = |entries: &[(u8, &str, Option<Value>)]| {
            let mut d = Vec::new();
            for (op, path, v) in entries {
                d.extend(diff_entry(
                    *op,
                    path,
                    v.as_ref().map(|v| enc(v, false)).as_deref(),
                ));
            }
            d
        };
        let text = |d: &[u8]| {
            let mut out = String::new();
            JsonDiffs::parse(d).unwrap().render("`doc`", &mut out);
            out
        };
        // The corpus event: one REPLACE.
        assert_eq!(
            text(&hex("0005242e61676503051a00")),
            "JSON_REPLACE(`doc`, '$.age', 26)"
        );
        // Runs of one function share a call, the first run innermost.
        let d = diffs(&[
            (0, "$.a", Some(json!("it's"))),
            (0, "$.b", Some(json!([1, {"c": null}]))),
            (2, "$.c", None),
            (1, "$.d[0]", Some(json!(true))),
            (1, "$.e", Some(json!(1.5))),
            (0, "$.f", Some(json!("\u{1}"))),
        ]);
        assert_eq!(
            text(&d),
            "JSON_REPLACE(JSON_INSERT(JSON_ARRAY_INSERT(JSON_REMOVE(JSON_REPLACE(`doc`, \
             '$.a', 'it\\'s', '$.b', CAST('[1, {\"c\": null}]' AS JSON)), '$.c'), \
             '$.d[0]', true), '$.e', 1.5), '$.f', '\\x01')"
        );
        let parsed = JsonDiffs::parse(&d).unwrap();
        let ops: Vec<&str> = parsed.iter().map(|d| d.operation.name()).collect();
        assert_eq!(
            ops,
            ["REPLACE", "REPLACE", "REMOVE", "INSERT", "INSERT", "REPLACE"]
        );
        // No diffs: the column alone, as mysqlbinlog prints it.
        assert_eq!(text(&[]), "`doc`");
        // Malformed diffs are errors when read, not when rendered.
        let good = diffs(&[(0, "$.a", Some(json!(1)))]);
        for n in 1..good.len() {
            assert!(JsonDiffs::parse(&good[..n]).is_err(), "{n}");
        }
        assert!(JsonDiffs::parse(&diff_entry(0, "$.a", Some(&[0x0d]))).is_err());
        assert!(JsonDiffs::parse(&diff_entry(2, "a", None)).is_err());
        assert!(JsonDiffs::parse(&diff_entry(3, "$.a", None)).is_err());
    }

    #[test]
    fn no_diffs_renders_the_before_image() {
        let v = json!({"a": [1, "x"], "b": 2.0});
        let bin = enc(&v, false);
        assert_eq!(apply_json_diff(&bin, &[]).unwrap(), render(&bin));
    }

    #[test]
    fn replace() {
        let before = json!({"a": 1, "b": [10, 20, {"c": "x"}]});
        let out = apply(
            &before,
            &[
                (0, "$.a", Some(json!("one"))),
                (0, "$.b[1]", Some(json!([true]))),
                (0, "$.b[2].c", Some(json!({"d": null}))),
                (0, "$.b[last]", Some(json!(3.5))),
            ],
        )
        .unwrap();
        assert_eq!(out, r#"{"a": "one", "b": [10, [true], 3.5]}"#);
        assert!(apply(&before, &[(0, "$.zz", Some(json!(1)))]).is_err());
        assert!(apply(&before, &[(0, "$.b[3]", Some(json!(1)))]).is_err());
        assert!(apply(&before, &[(0, "$.a[0]", Some(json!(1)))]).is_err());
        assert!(apply(&before, &[(0, "$", Some(json!(1)))]).is_err());
    }

    #[test]
    fn insert() {
        let before = json!({"bb": 1, "ccc": [1, 2]});
        let out = apply(
            &before,
            &[
                (1, "$.a", Some(json!(0))),
                (1, "$.zz", Some(json!(2))),
                (1, "$.dddd", Some(json!(3))),
                (1, "$.ccc[1]", Some(json!("mid"))),
                (1, "$.ccc[99]", Some(json!("end"))),
                (1, "$.ccc[0]", Some(json!("start"))),
            ],
        )
        .unwrap();
        assert_eq!(
            out,
            r#"{"a": 0, "bb": 1, "zz": 2, "ccc": ["start", 1, "mid", 2, "end"], "dddd": 3}"#
        );
        // [last] inserts before the last element, as MySQL's Json_array_index places it.
        let out = apply(&json!([1, 2]), &[(1, "$[last]", Some(json!(9)))]).unwrap();
        assert_eq!(out, "[1, 9, 2]");
        assert!(apply(&before, &[(1, "$.bb", Some(json!(1)))]).is_err());
        assert!(apply(&before, &[(1, "$.x.y", Some(json!(1)))]).is_err());
        assert!(apply(&before, &[(1, "$.bb[0]", Some(json!(1)))]).is_err());
        assert!(apply(&before, &[(1, "$[0]", Some(json!(1)))]).is_err());
    }

    #[test]
    fn remove() {
        let before = json!({"a": 1, "b": [10, 20, 30], "c": {"d": 1}});
        let out = apply(
            &before,
            &[(2, "$.a", None), (2, "$.b[1]", None), (2, "$.c.d", None)],
        )
        .unwrap();
        assert_eq!(out, r#"{"b": [10, 30], "c": {}}"#);
        let out = apply(&before, &[(2, "$.b[last]", None), (2, "$.b[last-1]", None)]).unwrap();
        assert_eq!(out, r#"{"a": 1, "b": [20], "c": {"d": 1}}"#);
        assert!(apply(&before, &[(2, "$.x", None)]).is_err());
        assert!(apply(&before, &[(2, "$.b[3]", None)]).is_err());
        assert!(apply(&before, &[(2, "$.b.x", None)]).is_err());
        assert!(apply(&before, &[(2, "$", None)]).is_err());
    }

    #[test]
    fn quoted_and_escaped_keys() {
        let before = json!({"a b": 1, "q\"k": 2, "é": 3});
        let out = apply(
            &before,
            &[
                (0, r#"$."a b""#, Some(json!(10))),
                (0, r#"$."q\"k""#, Some(json!(20))),
                (0, r#"$."\u00e9""#, Some(json!(30))),
            ],
        )
        .unwrap();
        assert_eq!(out, r#"{"é": 30, "a b": 10, "q\"k": 20}"#);
    }

    #[test]
    fn diff_values_may_be_empty_documents() {
        // A zero-length value is JSON null, as everywhere in row images.
        let mut d = diff_entry(0, "$.a", Some(&[]));
        d.extend(diff_entry(1, "$.b", Some(&[LITERAL, 1])));
        assert_eq!(
            apply_json_diff(&enc(&json!({"a": 1}), false), &d).unwrap(),
            r#"{"a": null, "b": true}"#
        );
    }

    #[test]
    fn malformed_diffs_are_errors() {
        let before = enc(&json!({"a": 1}), false);
        let good = diff_entry(0, "$.a", Some(&[LITERAL, 1]));
        assert_eq!(apply_json_diff(&before, &good).unwrap(), r#"{"a": true}"#);
        for n in 1..good.len() {
            assert!(apply_json_diff(&before, &good[..n]).is_err(), "{n}");
        }
        assert!(apply_json_diff(&before, &diff_entry(3, "$.a", None)).is_err());
        assert!(apply_json_diff(&before, &diff_entry(0, "$.a", Some(&[0x0d]))).is_err());
        assert!(apply_json_diff(&before, &diff_entry(2, "a", None)).is_err());
        assert!(apply_json_diff(&before, &diff_entry(2, "$.*", None)).is_err());
        assert!(apply_json_diff(&before, &diff_entry(2, "$[*]", None)).is_err());
        assert!(apply_json_diff(&before, &diff_entry(2, "$**.a", None)).is_err());
        assert!(apply_json_diff(&before, &diff_entry(2, "$[1 to 2]", None)).is_err());
        // Diffs cannot apply to a NULL (empty) document.
        assert!(apply_json_diff(&[], &good).is_err());
    }

    #[test]
    fn diffs_respect_the_nesting_limit() {
        let mut deep = json!(1);
        for _ in 0..99 {
            deep = json!([deep]);
        }
        // 1 level for the path + 99 = 100: allowed; one more is not.
        assert!(apply(&json!({"a": 1}), &[(0, "$.a", Some(deep.clone()))]).is_ok());
        assert!(apply(&json!({"a": [1]}), &[(0, "$.a[0]", Some(deep.clone()))]).is_err());
        assert!(apply(&json!({"a": [1]}), &[(1, "$.a[0]", Some(deep))]).is_err());
    }

    #[test]
    fn path_parser() {
        let legs = parse_path(br#" $ .a [ 3 ]."b\\c" [last - 2][last] .d_1"#).unwrap();
        assert_eq!(
            legs,
            vec![
                Leg::Member("a".into()),
                Leg::Cell {
                    index: 3,
                    from_end: false
                },
                Leg::Member("b\\c".into()),
                Leg::Cell {
                    index: 2,
                    from_end: true
                },
                Leg::Cell {
                    index: 0,
                    from_end: true
                },
                Leg::Member("d_1".into()),
            ]
        );
        assert_eq!(parse_path(b"$").unwrap(), vec![]);
        for bad in [
            &b""[..],
            b"a",
            b"$.",
            b"$[",
            b"$[]",
            b"$[x]",
            b"$[1",
            b"$.\"abc",
            b"$.\"\\x\"",
            b"$[99999999999999999999]",
            b"$.a\xff",
            b"$.[0]",
        ] {
            assert!(
                parse_path(bad).is_err(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn array_positions_follow_mysql() {
        assert_eq!(Leg::position(0, false, 3), (0, true));
        assert_eq!(Leg::position(5, false, 3), (3, false));
        assert_eq!(Leg::position(0, true, 3), (2, true));
        assert_eq!(Leg::position(2, true, 3), (0, true));
        assert_eq!(Leg::position(3, true, 3), (0, false));
        assert_eq!(Leg::position(0, true, 0), (0, false));
    }
}
