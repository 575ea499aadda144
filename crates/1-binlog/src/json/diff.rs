//! JSON diffs of a PARTIAL_UPDATE_ROWS_EVENT: an owned tree of the
//! document, the path parser, and the three operations.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::binary::{parse_document, Node, Scalar};
use super::text::{push_quoted, render_scalar};
use super::{bad, too_deep, DIFF, MAX_DEPTH};
use crate::error::{DecodeError, Result};

/// A decoded document. Scalars and keys borrow the input buffers.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tree<'a> {
    Scalar(Scalar<'a>),
    Array(Vec<Tree<'a>>),
    /// Members in the stored order, which MySQL keeps sorted by key length,
    /// then bytes.
    Object(Vec<(Cow<'a, str>, Tree<'a>)>),
}

/// Decodes a whole document into a tree.
pub(super) fn build_document(bin: &[u8]) -> Result<Tree<'_>> {
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

pub(super) fn render_tree(t: &Tree<'_>, out: &mut String, depth: usize) -> Result<()> {
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

pub(super) type Op = JsonDiffOperation;

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
pub(super) enum Leg<'a> {
    Member(Cow<'a, str>),
    Cell { index: u64, from_end: bool },
}

impl Leg<'_> {
    /// MySQL's Json_array_index: the position in an array of `len` elements
    /// (clamped to 0..=len) and whether the index is within bounds.
    pub(super) fn position(index: u64, from_end: bool, len: usize) -> (usize, bool) {
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
pub(super) fn parse_path(text: &[u8]) -> Result<Vec<Leg<'_>>> {
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
pub(super) fn key_order(a: &str, b: &str) -> Ordering {
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
pub(super) fn apply_one<'a>(
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
