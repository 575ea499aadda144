//! MySQL's binary JSON built from JSON text, byte for byte as MySQL itself
//! serialises the document the text stands for: what a row of a JSON column
//! read with `SELECT` becomes in a row image (the binlog carries the binary
//! form). The inverse of [`crate::json::render_json`] for documents without
//! opaque values.
//!
//! MySQL parses JSON text into a DOM (`Json_dom::parse`, with rapidjson) and
//! serialises that (`json_binary::serialize`). Both steps are followed here:
//!
//! * Integers take the type MySQL's parser gives them: -2^63..=2^32-1 is a
//!   signed integer (INT16, INT32 or INT64 by range: 2^31..2^32-1 is an INT64),
//!   2^32..=2^64-1 an unsigned one (UINT64); anything else with neither
//!   fraction nor exponent, and every number with one, is a DOUBLE.
//! * Objects hold their members sorted by key length, then bytes; of
//!   duplicate keys the last one wins (MySQL 8.0).
//! * Literals and 16-bit integers are inlined in their value entry, and
//!   32-bit ones too in the large format.
//! * An array or object is in the small format (2-byte offsets) when it fits
//!   in 64 KiB with every container inside it small too, else in the large
//!   format (4-byte offsets), inside which each child is again small when it
//!   fits — what MySQL's serialise-small-then-retry-large arrives at.
//!
//! The parser is written here rather than taken from serde_json: the
//! encoding needs what a generic JSON value loses (whether a number was
//! written as an integer, and in which range, and every duplicate key in
//! order), and the errors name the byte where the text goes wrong.
//!
//! Doubles are read correctly rounded. MySQL prints a double with the
//! shortest digits that read back to it, so reading them so gives the
//! stored bits (rapidjson's default reading can be one bit off for some
//! long inputs, which text from MySQL never is).

use std::borrow::Cow;
use std::cmp::Ordering;

// The type bytes, as the reader (`crate::json`) knows them.
use crate::json::{
    DOUBLE, INT16, INT32, INT64, LARGE_ARRAY, LARGE_OBJECT, LITERAL, SMALL_ARRAY, SMALL_OBJECT,
    STRING, UINT16, UINT32, UINT64,
};

const NULL_LITERAL: u8 = 0;
const TRUE_LITERAL: u8 = 1;
const FALSE_LITERAL: u8 = 2;

/// MySQL's JSON_DOCUMENT_MAX_DEPTH: arrays and objects nested deeper are errors.
pub const MAX_DEPTH: usize = 100;

/// The largest size and offset of the small format.
const SMALL_MAX: u64 = u16::MAX as u64;

/// The largest document MySQL's binary format holds (4-byte sizes and offsets).
pub const MAX_DOCUMENT: u64 = u32::MAX as u64;

/// JSON text that has no binary JSON form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JsonTextError {
    /// Not JSON: what was wrong and at which byte of the text.
    #[error("invalid JSON text at byte {at}: {what}")]
    Syntax { at: usize, what: &'static str },
    /// Arrays and objects nested deeper than MySQL allows.
    #[error("JSON text nested deeper than {MAX_DEPTH} levels (at byte {at})")]
    TooDeep { at: usize },
    /// A key longer than a key entry's 2-byte length holds.
    #[error("JSON object key of {len} bytes at byte {at}: keys hold at most 65535 bytes")]
    KeyTooLong { at: usize, len: usize },
    /// The binary document would be larger than its 4-byte sizes allow.
    #[error("JSON document of {size} bytes in binary form: at most 4294967295 bytes")]
    TooBig { size: u64 },
}

type Result<T, E = JsonTextError> = std::result::Result<T, E>;

/// Appends the MySQL binary JSON of the JSON text `text` to `out`, as MySQL
/// stores the document in a JSON column (and writes it to the binlog).
/// On error `out` is left as it was.
pub fn encode_json(text: &str, out: &mut Vec<u8>) -> Result<()> {
    encode_with_limit(text, out, MAX_DOCUMENT)
}

/// [`encode_json`] with a lower ceiling on the document size, so that the
/// check can be tested without gigabytes of text.
fn encode_with_limit(text: &str, out: &mut Vec<u8>, limit: u64) -> Result<()> {
    let root = Parser::new(text).document()?;
    let size = 1u64.saturating_add(data_size(&root));
    if size > limit {
        return Err(JsonTextError::TooBig { size });
    }
    // Within the limit, so within usize.
    out.reserve(size as usize);
    let start = out.len();
    out.push(type_byte(&root));
    write_data(&root, out);
    debug_assert_eq!((out.len() - start) as u64, size);
    Ok(())
}

// ---------------------------------------------------------------------------
// The document as MySQL's DOM holds it.

#[derive(Debug, Clone, PartialEq)]
enum Node<'a> {
    Null,
    True,
    False,
    /// MySQL's Json_int.
    Int(i64),
    /// MySQL's Json_uint.
    UInt(u64),
    Double(f64),
    Str(Cow<'a, str>),
    Array(Container<Node<'a>>),
    /// Members sorted by [`key_order`], keys unique.
    Object(Container<(Cow<'a, str>, Node<'a>)>),
}

/// An array's or object's entries with their sizes in bytes (without the
/// type byte): `small` all in the small format, `large` in the large format
/// with each child in the format it takes there.
#[derive(Debug, Clone, PartialEq)]
struct Container<T> {
    entries: Vec<T>,
    small: u64,
    large: u64,
}

impl<T> Container<T> {
    fn is_large(&self) -> bool {
        self.small > SMALL_MAX
    }

    /// Its size in the format it is written in.
    fn size(&self) -> u64 {
        if self.is_large() {
            self.large
        } else {
            self.small
        }
    }
}

/// MySQL's key order in objects: shorter keys first, then bytewise.
fn key_order(a: &str, b: &str) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

fn is_i16(i: i64) -> bool {
    i16::try_from(i).is_ok()
}

fn is_i32(i: i64) -> bool {
    i32::try_from(i).is_ok()
}

/// The value an entry holds in place of an offset, when `n` is inlined in a
/// container of the given format: its type byte and the value, which is
/// written in the entry's 2 or 4 bytes.
fn inlined(n: &Node<'_>, large: bool) -> Option<(u8, u32)> {
    Some(match *n {
        Node::Null => (LITERAL, NULL_LITERAL as u32),
        Node::True => (LITERAL, TRUE_LITERAL as u32),
        Node::False => (LITERAL, FALSE_LITERAL as u32),
        // Sign-extended to 32 bits (then cut to 16 in the small format), as
        // MySQL stores the value through an int32.
        Node::Int(i) if is_i16(i) => (INT16, i as i32 as u32),
        Node::Int(i) if large && is_i32(i) => (INT32, i as i32 as u32),
        Node::UInt(u) if u <= u16::MAX as u64 => (UINT16, u as u32),
        Node::UInt(u) if large && u <= u32::MAX as u64 => (UINT32, u as u32),
        _ => return None,
    })
}

/// Bytes of the variable-length length prefix of a string of `len` bytes.
fn var_len_size(len: usize) -> u64 {
    let mut n = 1;
    let mut rest = len >> 7;
    while rest != 0 {
        n += 1;
        rest >>= 7;
    }
    n
}

/// Bytes of a value written at an offset (not inlined), without its type byte.
fn data_size(n: &Node<'_>) -> u64 {
    match n {
        Node::Null | Node::True | Node::False => 1,
        Node::Int(i) if is_i16(*i) => 2,
        Node::Int(i) if is_i32(*i) => 4,
        Node::Int(_) => 8,
        Node::UInt(u) if *u <= u16::MAX as u64 => 2,
        Node::UInt(u) if *u <= u32::MAX as u64 => 4,
        Node::UInt(_) => 8,
        Node::Double(_) => 8,
        Node::Str(s) => var_len_size(s.len()).saturating_add(s.len() as u64),
        Node::Array(c) => c.size(),
        Node::Object(c) => c.size(),
    }
}

/// Bytes a child adds after the entries of a container in the small format
/// (every container inside small too, so their small sizes count).
fn small_data(n: &Node<'_>) -> u64 {
    match n {
        _ if inlined(n, false).is_some() => 0,
        Node::Array(c) => c.small,
        Node::Object(c) => c.small,
        n => data_size(n),
    }
}

/// Bytes a child adds after the entries of a container in the large format.
fn large_data(n: &Node<'_>) -> u64 {
    if inlined(n, true).is_some() {
        0
    } else {
        data_size(n)
    }
}

fn array(items: Vec<Node<'_>>) -> Node<'_> {
    let n = items.len() as u64;
    let (mut small, mut large) = (4 + 3 * n, 8 + 5 * n);
    for v in &items {
        small = small.saturating_add(small_data(v));
        large = large.saturating_add(large_data(v));
    }
    Node::Array(Container {
        entries: items,
        small,
        large,
    })
}

fn object<'a>(mut members: Vec<(Cow<'a, str>, Node<'a>)>) -> Node<'a> {
    // Text MySQL printed is sorted already; anything else is sorted stably,
    // so that of equal keys the last one written stays.
    let sorted = members
        .windows(2)
        .all(|w| key_order(&w[0].0, &w[1].0) == Ordering::Less);
    if !sorted {
        members.sort_by(|a, b| key_order(&a.0, &b.0));
        members.dedup_by(|later, kept| {
            if later.0 == kept.0 {
                std::mem::swap(later, kept);
                true
            } else {
                false
            }
        });
    }
    let n = members.len() as u64;
    let (mut small, mut large) = (4 + 7 * n, 8 + 11 * n);
    for (k, v) in &members {
        let k = k.len() as u64;
        small = small.saturating_add(k).saturating_add(small_data(v));
        large = large.saturating_add(k).saturating_add(large_data(v));
    }
    Node::Object(Container {
        entries: members,
        small,
        large,
    })
}

// ---------------------------------------------------------------------------
// Writing.

/// The type byte of a value written at an offset (or at the top).
fn type_byte(n: &Node<'_>) -> u8 {
    match n {
        Node::Null | Node::True | Node::False => LITERAL,
        Node::Int(i) if is_i16(*i) => INT16,
        Node::Int(i) if is_i32(*i) => INT32,
        Node::Int(_) => INT64,
        Node::UInt(u) if *u <= u16::MAX as u64 => UINT16,
        Node::UInt(u) if *u <= u32::MAX as u64 => UINT32,
        Node::UInt(_) => UINT64,
        Node::Double(_) => DOUBLE,
        Node::Str(_) => STRING,
        Node::Array(c) if c.is_large() => LARGE_ARRAY,
        Node::Array(_) => SMALL_ARRAY,
        Node::Object(c) if c.is_large() => LARGE_OBJECT,
        Node::Object(_) => SMALL_OBJECT,
    }
}

/// `v` little-endian in 2 bytes (small format) or 4 (large). Sizes and
/// offsets fit: the document's size was checked against the format's limits.
fn put_offset(out: &mut Vec<u8>, v: u64, large: bool) {
    if large {
        out.extend_from_slice(&(v as u32).to_le_bytes());
    } else {
        out.extend_from_slice(&(v as u16).to_le_bytes());
    }
}

fn put_var_len(out: &mut Vec<u8>, mut len: usize) {
    loop {
        let b = (len & 0x7f) as u8;
        len >>= 7;
        if len == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Writes a value's bytes (after its type byte).
fn write_data(n: &Node<'_>, out: &mut Vec<u8>) {
    match n {
        Node::Null => out.push(NULL_LITERAL),
        Node::True => out.push(TRUE_LITERAL),
        Node::False => out.push(FALSE_LITERAL),
        Node::Int(i) if is_i16(*i) => out.extend_from_slice(&(*i as i16).to_le_bytes()),
        Node::Int(i) if is_i32(*i) => out.extend_from_slice(&(*i as i32).to_le_bytes()),
        Node::Int(i) => out.extend_from_slice(&i.to_le_bytes()),
        Node::UInt(u) if *u <= u16::MAX as u64 => out.extend_from_slice(&(*u as u16).to_le_bytes()),
        Node::UInt(u) if *u <= u32::MAX as u64 => out.extend_from_slice(&(*u as u32).to_le_bytes()),
        Node::UInt(u) => out.extend_from_slice(&u.to_le_bytes()),
        Node::Double(d) => out.extend_from_slice(&d.to_le_bytes()),
        Node::Str(s) => {
            put_var_len(out, s.len());
            out.extend_from_slice(s.as_bytes());
        }
        Node::Array(c) => {
            let large = c.is_large();
            put_offset(out, c.entries.len() as u64, large);
            put_offset(out, c.size(), large);
            let header = if large { 8 } else { 4 } + c.entries.len() as u64 * entry_size(large);
            write_value_entries(c.entries.iter(), header, large, out);
            for v in &c.entries {
                if inlined(v, large).is_none() {
                    write_data(v, out);
                }
            }
        }
        Node::Object(c) => {
            let large = c.is_large();
            let count = c.entries.len() as u64;
            put_offset(out, count, large);
            put_offset(out, c.size(), large);
            // Key entries (offset, 2-byte length), value entries, keys, values.
            let key_entry = if large { 6 } else { 4 };
            let mut offset = if large { 8 } else { 4 } + count * (key_entry + entry_size(large));
            for (k, _) in &c.entries {
                put_offset(out, offset, large);
                // Checked when parsed: at most 65535 bytes.
                out.extend_from_slice(&(k.len() as u16).to_le_bytes());
                offset += k.len() as u64;
            }
            write_value_entries(c.entries.iter().map(|(_, v)| v), offset, large, out);
            for (k, _) in &c.entries {
                out.extend_from_slice(k.as_bytes());
            }
            for (_, v) in &c.entries {
                if inlined(v, large).is_none() {
                    write_data(v, out);
                }
            }
        }
    }
}

fn entry_size(large: bool) -> u64 {
    if large {
        5
    } else {
        3
    }
}

/// The value entries of a container whose first value starts at `offset`.
fn write_value_entries<'n, 'a: 'n>(
    values: impl Iterator<Item = &'n Node<'a>>,
    mut offset: u64,
    large: bool,
    out: &mut Vec<u8>,
) {
    for v in values {
        match inlined(v, large) {
            Some((t, x)) => {
                out.push(t);
                put_offset(out, x as u64, large);
            }
            None => {
                out.push(type_byte(v));
                put_offset(out, offset, large);
                offset += data_size(v);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Parsing: RFC 8259 JSON as rapidjson reads it by default (no comments,
// no trailing commas, no NaN or Infinity; whitespace is space, tab, CR, LF).

struct Parser<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
}

fn syntax(at: usize, what: &'static str) -> JsonTextError {
    JsonTextError::Syntax { at, what }
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            text,
            b: text.as_bytes(),
            i: 0,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    fn document(mut self) -> Result<Node<'a>> {
        self.skip_ws();
        let root = self.value(0)?;
        self.skip_ws();
        if self.i != self.b.len() {
            return Err(syntax(self.i, "text after the document"));
        }
        Ok(root)
    }

    fn value(&mut self, depth: usize) -> Result<Node<'a>> {
        match self.peek() {
            None => Err(syntax(self.i, "the text ends where a value is expected")),
            Some(b'[') => self.array(depth),
            Some(b'{') => self.object(depth),
            Some(b'"') => Ok(Node::Str(self.string()?)),
            Some(b't') => self.literal("true", Node::True),
            Some(b'f') => self.literal("false", Node::False),
            Some(b'n') => self.literal("null", Node::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(syntax(self.i, "not a JSON value")),
        }
    }

    fn literal(&mut self, word: &'static str, node: Node<'a>) -> Result<Node<'a>> {
        if self.b[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(node)
        } else {
            Err(syntax(self.i, "not a JSON value"))
        }
    }

    fn array(&mut self, depth: usize) -> Result<Node<'a>> {
        if depth >= MAX_DEPTH {
            return Err(JsonTextError::TooDeep { at: self.i });
        }
        self.i += 1;
        self.skip_ws();
        let mut items = Vec::new();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(array(items));
                }
                _ => return Err(syntax(self.i, "expected ',' or ']' in an array")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Node<'a>> {
        if depth >= MAX_DEPTH {
            return Err(JsonTextError::TooDeep { at: self.i });
        }
        self.i += 1;
        self.skip_ws();
        let mut members = Vec::new();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(object(members));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(syntax(self.i, "expected a key in double quotes"));
            }
            let at = self.i;
            let key = self.string()?;
            if key.len() > u16::MAX as usize {
                return Err(JsonTextError::KeyTooLong { at, len: key.len() });
            }
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(syntax(self.i, "expected ':' after a key"));
            }
            self.i += 1;
            self.skip_ws();
            let value = self.value(depth + 1)?;
            members.push((key, value));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(object(members));
                }
                _ => return Err(syntax(self.i, "expected ',' or '}' in an object")),
            }
        }
    }

    /// A string at its opening quote; borrowed from the text unless it has escapes.
    fn string(&mut self) -> Result<Cow<'a, str>> {
        let open = self.i;
        self.i += 1;
        let start = self.i;
        // Fast path: up to the closing quote, no escapes.
        loop {
            match self.peek() {
                None => return Err(syntax(open, "unterminated string")),
                Some(b'"') => {
                    let s = self.slice(start, self.i)?;
                    self.i += 1;
                    return Ok(Cow::Borrowed(s));
                }
                Some(b'\\') => break,
                Some(0..=0x1f) => return Err(syntax(self.i, "control character in a string")),
                Some(_) => self.i += 1,
            }
        }
        let mut s = String::from(self.slice(start, self.i)?);
        loop {
            let run = self.i;
            while let Some(c) = self.peek() {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            s.push_str(self.slice(run, self.i)?);
            match self.peek() {
                None => return Err(syntax(open, "unterminated string")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(Cow::Owned(s));
                }
                Some(b'\\') => {
                    let at = self.i;
                    self.i += 1;
                    let c = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.i += 1;
                            let c = self.unicode_escape(at)?;
                            s.push(c);
                            continue;
                        }
                        _ => return Err(syntax(at, "invalid escape in a string")),
                    };
                    self.i += 1;
                    s.push(c);
                }
                Some(_) => return Err(syntax(self.i, "control character in a string")),
            }
        }
    }

    /// `text[from..to]`; both ends are at ASCII bytes or the text's ends.
    fn slice(&self, from: usize, to: usize) -> Result<&'a str> {
        self.text
            .get(from..to)
            .ok_or_else(|| syntax(from, "string cut inside a character"))
    }

    /// Four hex digits after `\u` (and a second `\uXXXX` for a surrogate pair).
    fn unicode_escape(&mut self, at: usize) -> Result<char> {
        let hi = self.hex4(at)?;
        let code = match hi {
            0xd800..=0xdbff => {
                if self.b.get(self.i..self.i + 2) != Some(b"\\u") {
                    return Err(syntax(at, "unpaired surrogate in a \\u escape"));
                }
                self.i += 2;
                let lo = self.hex4(at)?;
                if !(0xdc00..=0xdfff).contains(&lo) {
                    return Err(syntax(at, "unpaired surrogate in a \\u escape"));
                }
                0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
            }
            0xdc00..=0xdfff => return Err(syntax(at, "unpaired surrogate in a \\u escape")),
            c => c,
        };
        char::from_u32(code).ok_or_else(|| syntax(at, "invalid \\u escape"))
    }

    fn hex4(&mut self, at: usize) -> Result<u32> {
        let mut v = 0;
        for _ in 0..4 {
            let d = self
                .peek()
                .and_then(|c| (c as char).to_digit(16))
                .ok_or_else(|| syntax(at, "invalid \\u escape"))?;
            v = v * 16 + d;
            self.i += 1;
        }
        Ok(v)
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<Node<'a>> {
        let start = self.i;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.i += 1;
        }
        let int_start = self.i;
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(syntax(self.i, "a number needs digits")),
        }
        let int_end = self.i;
        let mut fractional = false;
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(syntax(self.i, "a number needs digits after '.'"));
            }
            fractional = true;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(syntax(self.i, "a number needs digits in its exponent"));
            }
            fractional = true;
        }
        if !fractional {
            let magnitude = self.b[int_start..int_end].iter().try_fold(0u64, |a, &c| {
                a.checked_mul(10)?.checked_add((c - b'0') as u64)
            });
            match (negative, magnitude) {
                // -2^63..=0: a signed integer (-0 is 0).
                (true, Some(m)) if m <= 1 << 63 => {
                    return Ok(Node::Int(0i64.wrapping_sub(m as i64)))
                }
                // rapidjson hands 0..2^32 over as 32-bit, which MySQL keeps signed.
                (false, Some(m)) if m <= u32::MAX as u64 => return Ok(Node::Int(m as i64)),
                (false, Some(m)) => return Ok(Node::UInt(m)),
                // Out of 64 bits: a double, as in MySQL.
                _ => {}
            }
        }
        let d: f64 = self
            .slice(start, self.i)?
            .parse()
            .map_err(|_| syntax(start, "not a number"))?;
        if !d.is_finite() {
            return Err(syntax(start, "number too large for a double"));
        }
        Ok(Node::Double(d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(text: &str) -> Vec<u8> {
        let mut out = Vec::new();
        encode_json(text, &mut out).unwrap_or_else(|e| panic!("{text}: {e}"));
        out
    }

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn scalars() {
        assert_eq!(enc("null"), [LITERAL, 0]);
        assert_eq!(enc(" true "), [LITERAL, 1]);
        assert_eq!(enc("false"), [LITERAL, 2]);
        assert_eq!(enc("-32768"), [INT16, 0x00, 0x80]);
        assert_eq!(enc("32768"), [INT32, 0x00, 0x80, 0, 0]);
        assert_eq!(enc("-0"), [INT16, 0, 0]);
        let mut b = vec![INT64];
        b.extend(2147483648i64.to_le_bytes());
        assert_eq!(enc("2147483648"), b);
        let mut b = vec![UINT64];
        b.extend(4294967296u64.to_le_bytes());
        assert_eq!(enc("4294967296"), b);
        let mut b = vec![DOUBLE];
        b.extend(18446744073709551616f64.to_le_bytes());
        assert_eq!(enc("18446744073709551616"), b);
        let mut b = vec![DOUBLE];
        b.extend((-0.0f64).to_le_bytes());
        assert_eq!(enc("-0.0"), b);
        assert_eq!(enc(r#""a\u00e9""#), [STRING, 3, b'a', 0xc3, 0xa9]);
    }

    #[test]
    fn small_object_matches_the_hand_made_one() {
        // The document of json.rs's small_object_by_hand test.
        let want = hex("00 02 00 23 00
             12 00 01 00  13 00 01 00
             05 01 00  02 14 00
             61 62
             03 00 0f 00  04 01 00  04 00 00  0c 0d 00  01 78");
        assert_eq!(enc(r#"{"b": [true, null, "x"], "a": 1}"#), want);
    }

    #[test]
    fn corpus_document() {
        // json.binlog.000001's before image (see json.rs corpus_partial_update).
        let want = hex("0003003300190003001c000400200004000519000c24000c2f00616765646174616e616d650a78787878787878787878034a6f65");
        assert_eq!(
            enc(r#"{"age": 25, "data": "xxxxxxxxxx", "name": "Joe"}"#),
            want
        );
    }

    #[test]
    fn duplicate_keys_last_wins() {
        assert_eq!(
            enc(r#"{"a": 1, "b": 2, "a": 3}"#),
            enc(r#"{"a": 3, "b": 2}"#)
        );
        assert_eq!(enc(r#"{"a": 1, "a": 2, "a": [3]}"#), enc(r#"{"a": [3]}"#));
    }

    #[test]
    fn int32_inlined_only_in_large_format() {
        // Small: the int32 at an offset; large: in its entry.
        assert_eq!(enc("[70000]"), hex("02 01 00 0b 00 07 07 00 70 11 01 00"));
        // 10000 int32s: 70004 bytes small, 50008 large; large with a size
        // under 64 KiB.
        let text = format!("[{}]", vec!["70000"; 10_000].join(","));
        let b = enc(&text);
        assert_eq!(b[0], LARGE_ARRAY);
        assert_eq!(b.len(), 1 + 50_008);
        assert_eq!(&b[1..9], &[0x10, 0x27, 0, 0, 0x58, 0xc3, 0, 0]);
        assert_eq!(&b[9..14], &[INT32, 0x70, 0x11, 0x01, 0x00]);
        // A parent of it cannot be small either, though its child is < 64 KiB.
        let b = enc(&format!("[{text}]"));
        assert_eq!(b[0], LARGE_ARRAY);
        assert_eq!(b[9], LARGE_ARRAY);
    }

    #[test]
    fn negative_int16_inlined_in_large_format_is_sign_extended() {
        let text = format!(r#"[-1, "{}"]"#, "x".repeat(70_000));
        let b = enc(&text);
        assert_eq!(b[0], LARGE_ARRAY);
        assert_eq!(&b[9..14], &[INT16, 0xff, 0xff, 0xff, 0xff]);
    }

    #[test]
    fn size_limit() {
        let mut out = vec![7];
        let e = encode_with_limit("[1, 2, 3]", &mut out, 10).unwrap_err();
        assert_eq!(e, JsonTextError::TooBig { size: 14 });
        assert_eq!(out, [7]);
        encode_with_limit("[1, 2, 3]", &mut out, 14).unwrap();
        assert!(e.to_string().contains("4294967295"), "{e}");
    }

    #[test]
    fn errors_name_the_problem() {
        let cases: &[(&str, &str)] = &[
            ("", "ends where a value is expected"),
            ("[1,]", "not a JSON value"),
            ("[1 2]", "expected ',' or ']'"),
            ("{\"a\" 1}", "expected ':'"),
            ("{\"a\": 1,}", "expected a key"),
            ("{a: 1}", "expected a key"),
            ("{\"a\": 1 \"b\": 2}", "expected ',' or '}'"),
            ("\"abc", "unterminated string"),
            ("\"a\u{1}\"", "control character"),
            ("\"\\x\"", "invalid escape"),
            ("\"\\u12\"", "invalid \\u escape"),
            ("\"\\ud800\"", "unpaired surrogate"),
            ("\"\\udc00\"", "unpaired surrogate"),
            ("01", "text after the document"),
            ("1.", "digits after '.'"),
            ("1e", "digits in its exponent"),
            ("-", "needs digits"),
            ("1e400", "too large for a double"),
            ("NaN", "not a JSON value"),
            ("tru", "not a JSON value"),
            ("[] []", "text after the document"),
        ];
        for (text, want) in cases {
            let mut out = vec![1, 2];
            let e = encode_json(text, &mut out).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
            assert!(e.starts_with("invalid JSON text at byte"), "{text:?}: {e}");
            assert_eq!(out, [1, 2], "{text:?}");
        }
    }

    #[test]
    fn nesting_limit() {
        let ok = format!("{}{}", "[".repeat(100), "]".repeat(100));
        enc(&ok);
        let deep = format!("{}{}", "[".repeat(101), "]".repeat(101));
        let e = encode_json(&deep, &mut Vec::new()).unwrap_err();
        assert_eq!(e, JsonTextError::TooDeep { at: 100 });
        assert!(e.to_string().contains("deeper than 100"), "{e}");
        let deep = format!("{}1{}", "{\"a\":".repeat(101), "}".repeat(101));
        assert!(matches!(
            encode_json(&deep, &mut Vec::new()),
            Err(JsonTextError::TooDeep { .. })
        ));
        // Far deeper: an error, not a stack overflow.
        let deep = "[".repeat(1_000_000);
        assert!(encode_json(&deep, &mut Vec::new()).is_err());
    }

    #[test]
    fn long_keys() {
        let k = "k".repeat(65_535);
        enc(&format!(r#"{{"{k}": 1}}"#));
        let k = "k".repeat(65_536);
        let e = encode_json(&format!(r#"{{"{k}": 1}}"#), &mut Vec::new()).unwrap_err();
        assert_eq!(e, JsonTextError::KeyTooLong { at: 1, len: 65_536 });
    }
}
