//! JSON rendering of binlog values shared by `sluice binlog decode` and
//! `sluice tail`: text as JSON strings, column names, row images. Values are
//! rendered by `sluice_binlog::Value::render` (the README's "Value rendering").

use anyhow::Result;
use serde_json::{json, Map, Value as Json};
use sluice_binlog::{Cell, TableMap};

pub fn text(b: &[u8]) -> Json {
    Json::String(String::from_utf8_lossy(b).into_owned())
}

/// Column names from the binlog, or `@1`, `@2`… when it does not carry them.
pub fn column_names(t: &TableMap) -> Json {
    Json::Array(
        t.columns
            .iter()
            .enumerate()
            .map(|(i, c)| match &c.name {
                Some(n) => json!(n),
                None => json!(format!("@{}", i + 1)),
            })
            .collect(),
    )
}

/// Inserts `key` (the image's values in column order, `null` for NULL and
/// for absent columns), when the image leaves columns out `absent_KEY`, and
/// when values are partial JSON updates given as their diffs (`JSON_REPLACE(...)`
/// text, the before value not being in the event) `partial_KEY`: their indexes.
pub fn image_json(
    t: &TableMap,
    img: &sluice_binlog::RowImage<'_>,
    key: &str,
    o: &mut Map<String, Json>,
) -> Result<()> {
    let mut values = Vec::with_capacity(t.columns.len());
    let mut absent = Vec::new();
    let mut partial = Vec::new();
    for (i, cell) in img.cells().enumerate() {
        match cell? {
            Cell::Absent => {
                absent.push(i);
                values.push(Json::Null);
            }
            Cell::Present(v) => {
                if v.is_partial_json() {
                    partial.push(i);
                }
                values.push(match v.to_text(&t.columns[i])? {
                    Some(s) => Json::String(s),
                    None => Json::Null,
                })
            }
        }
    }
    o.insert(key.into(), Json::Array(values));
    if !absent.is_empty() {
        o.insert(format!("absent_{key}"), json!(absent));
    }
    if !partial.is_empty() {
        o.insert(format!("partial_{key}"), json!(partial));
    }
    Ok(())
}

/// `--max-event-size`: a number of bytes, 1 to 1 GiB.
pub fn parse_event_size(s: &str) -> std::result::Result<usize, String> {
    let max = sluice_binlog::compression::MAX_UNCOMPRESSED_LIMIT;
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("expected a number of bytes from 1 to {max}")),
    }
}

/// Writes `s` as the inside of a JSON string, escaped as serde_json escapes
/// it (`"`, `\\`, control characters; nothing else), so that a value can be
/// written in pieces.
pub fn write_json_str(w: &mut (impl std::io::Write + ?Sized), s: &str) -> std::io::Result<()> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => b"",
            _ => continue,
        };
        w.write_all(&bytes[start..i])?;
        if short.is_empty() {
            w.write_all(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 15) as usize],
            ])?;
        } else {
            w.write_all(short)?;
        }
        start = i + 1;
    }
    w.write_all(&bytes[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut all: String = (0u32..0x80).filter_map(char::from_u32).collect();
        all.push_str("é€😀\u{7f}\u{2028}</script>");
        for s in [all.as_str(), "", "plain", "\"", "\\\u{0}"] {
            let mut ours = b"\"".to_vec();
            write_json_str(&mut ours, s).unwrap();
            ours.push(b'"');
            assert_eq!(
                String::from_utf8(ours).unwrap(),
                serde_json::to_string(s).unwrap()
            );
        }
    }
}
