//! MySQL's binary JSON format (the JSON column type in row events): rendering
//! a document as the text MySQL prints for it, and applying the JSON diffs of
//! a PARTIAL_UPDATE_ROWS_EVENT to a before-image.
//!
//! The input comes from files and the network, so every count, offset and
//! length is checked against the bytes present, nesting is limited to MySQL's
//! 100 levels, and nothing in this module panics on any input.

use std::fmt::Write as _;

use crate::bytes::ByteReader;
use crate::error::{DecodeError, Result};

mod binary;
mod diff;
mod text;

use binary::{parse_document, Node, Scalar};
pub use diff::JsonDiffOperation;
use diff::{apply_one, build_document, parse_path, render_tree, Op};
use text::render_node;

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

#[cfg(test)]
mod tests;
