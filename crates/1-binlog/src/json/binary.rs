//! Reading MySQL's binary JSON format: scalars, and arrays and objects
//! whose headers are checked before any entry is read.

use super::{
    bad, DOUBLE, INT16, INT32, INT64, LARGE_ARRAY, LARGE_OBJECT, LITERAL, OPAQUE, SMALL_ARRAY,
    SMALL_OBJECT, STRING, UINT16, UINT32, UINT64,
};
use crate::bytes::ByteReader;
use crate::error::{DecodeError, Result};

/// A scalar as stored; strings and opaque data borrow the document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Scalar<'a> {
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
pub(super) enum Node<'a> {
    Scalar(Scalar<'a>),
    Array(Container<'a>),
    Object(Container<'a>),
}

/// An array or object whose header has been checked: the entries all lie
/// within `data`, which is cut to the size the container declares.
#[derive(Debug, Clone, Copy)]
pub(super) struct Container<'a> {
    data: &'a [u8],
    pub(super) count: usize,
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
    pub(super) fn key(&self, i: usize) -> Result<&'a str> {
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
    pub(super) fn value(&self, i: usize) -> Result<Node<'a>> {
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
pub(super) fn parse_document(bin: &[u8]) -> Result<Node<'_>> {
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
