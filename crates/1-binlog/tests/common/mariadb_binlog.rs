//! `mariadb-binlog --verbose --base64-output=decode-rows` as an oracle for
//! MariaDB binlogs: its `### @N=value` lines, parsed and turned into the
//! text MySQL/MariaDB print in a SELECT. MySQL's own mysqlbinlog (5.6)
//! prints rows in the same syntax; with `-vv` it adds a `/* type */`
//! comment after each value, which is dropped.
//!
//! Its value syntax (`log_event_print_value` in MariaDB's
//! log_event_client.cc), and how each becomes SELECT text here:
//!
//! * `NULL`.
//! * Integers: `N`, and for negative values `N (U)` with the unsigned
//!   reading of the same bits → U when the column is UNSIGNED, N otherwise.
//!   TIMESTAMP: the seconds → UTC date and time; TIMESTAMP2:
//!   `seconds[.fraction]` → the same with fsp digits.
//!   YEAR: `%04d` of 1900 + stored byte → 1900 means the zero year `0000`.
//!   ENUM: the index → the label (see `enum_text`).
//! * Quoted `'...'`: the bytes, where bytes below 0x20 are written `\xNN`
//!   (and, unreachably, `\'` and `\\`) → text per collation (see
//!   `text_of_bytes`) for strings; the quoted text as is for DATETIME,
//!   DATETIME2, TIME, TIME2; DATE is quoted as `'YYYY:MM:DD'` → dashes.
//! * `b'0101'`: BIT → the bytes as hex; SET → the little-endian bitmap
//!   → labels (see `set_text`).
//! * DECIMAL: the decimal text as is. FLOAT (`%g`, 6 digits) and DOUBLE
//!   (`%.20g`) → compared by value.

use std::process::Command;

use sluice_binlog::{ColumnDef, ColumnType};

use super::{enum_text, hex, set_text, text_of_bytes, utc_timestamp, Expected};

/// The values printed for one row image: (column index, value text).
pub type Image = Vec<(usize, String)>;

#[derive(Debug, Default)]
pub struct Row {
    pub before: Option<Image>,
    pub after: Option<Image>,
}

/// One rows event as mariadb-binlog printed it.
#[derive(Debug)]
pub struct RowsEvent {
    /// The `end_log_pos` of its header line: the offset after the event.
    pub end_log_pos: u64,
    /// "Write_rows", "Update_rows", "Delete_rows" (with a suffix for
    /// compressed or v1 events).
    pub kind: String,
    pub rows: Vec<Row>,
    /// Its "# Number of rows: N" line.
    pub counted: Option<usize>,
}

/// Runs mariadb-binlog on a file and returns its output. Fails (never
/// skips) when the program is not installed.
pub fn run(path: &std::path::Path) -> String {
    let out = Command::new("mariadb-binlog")
        .args(["--no-defaults", "--verbose", "--base64-output=decode-rows"])
        .arg(path)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run mariadb-binlog ({e}): install mariadb-client (apt-get install mariadb-client)")
        });
    assert!(
        out.status.success(),
        "mariadb-binlog failed on {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Parses the rows events out of mariadb-binlog's output.
pub fn parse(output: &str) -> Result<Vec<RowsEvent>, String> {
    let mut events: Vec<RowsEvent> = Vec::new();
    // Which image the `@N=` lines go to: false = before (WHERE), true = after (SET).
    let mut to_after = true;
    for line in output.lines() {
        if line.starts_with("###") {
            // A row line, handled below.
        } else if let Some(rest) = line.strip_prefix('#') {
            if let Some((_, tail)) = rest.split_once("end_log_pos ") {
                let (num, desc) = tail.split_once(' ').unwrap_or((tail, ""));
                let desc = desc.trim_start();
                // Skip the optional "CRC32 0x..." before the description.
                let desc = match desc.strip_prefix("CRC32 ") {
                    Some(d) => d
                        .split_once(char::is_whitespace)
                        .map_or("", |x| x.1)
                        .trim_start(),
                    None => desc,
                };
                if let Some((kind, _)) = desc.split_once(": table id") {
                    if kind.contains("_rows") {
                        events.push(RowsEvent {
                            end_log_pos: num
                                .parse()
                                .map_err(|_| format!("bad end_log_pos in {line:?}"))?,
                            kind: kind.to_string(),
                            rows: Vec::new(),
                            counted: None,
                        });
                    }
                }
            } else if let Some(n) = rest.trim().strip_prefix("Number of rows: ") {
                let ev = events.last_mut().ok_or("row count before any rows event")?;
                ev.counted = Some(n.parse().map_err(|_| format!("bad row count {line:?}"))?);
            }
            continue;
        }
        let Some(body) = line.strip_prefix("### ") else {
            continue;
        };
        let ev = events
            .last_mut()
            .ok_or_else(|| format!("row line before any rows event: {line:?}"))?;
        if body.starts_with("INSERT INTO ")
            || body.starts_with("UPDATE ")
            || body.starts_with("DELETE FROM ")
        {
            ev.rows.push(Row::default());
        } else if body == "WHERE" || body == "SET" {
            to_after = body == "SET";
            let row = ev.rows.last_mut().ok_or("WHERE/SET before a row")?;
            let image = if to_after {
                &mut row.after
            } else {
                &mut row.before
            };
            if image.is_some() {
                return Err(format!("two {body} images in one row: {line:?}"));
            }
            *image = Some(Vec::new());
        } else if let Some(assign) = body.trim_start().strip_prefix('@') {
            let (n, value) = assign
                .split_once('=')
                .ok_or_else(|| format!("bad value line {line:?}"))?;
            // `-vv` adds the type: `'x' /* VARSTRING(42) meta=42 nullable=0 is_null=0 */`.
            let value = match value.rsplit_once(" /* ") {
                Some((v, comment)) if comment.contains("meta=") && comment.ends_with("*/") => v,
                _ => value,
            };
            let n: usize = n.parse().map_err(|_| format!("bad column in {line:?}"))?;
            let row = ev.rows.last_mut().ok_or("value before a row")?;
            let image = if to_after {
                &mut row.after
            } else {
                &mut row.before
            };
            image
                .as_mut()
                .ok_or_else(|| format!("value outside WHERE/SET: {line:?}"))?
                .push((n - 1, value.to_string()));
        }
    }
    Ok(events)
}

/// The bytes of a quoted value.
fn unquote(v: &str) -> Result<Vec<u8>, String> {
    let inner = v
        .strip_prefix('\'')
        .and_then(|s| s.strip_suffix('\''))
        .ok_or_else(|| format!("not a quoted value: {v:?}"))?;
    let b = inner.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') && i + 4 <= b.len() {
            let h = std::str::from_utf8(&b[i + 2..i + 4]).map_err(|e| e.to_string())?;
            out.push(u8::from_str_radix(h, 16).map_err(|_| format!("bad \\x escape in {v:?}"))?);
            i += 4;
        } else if b[i] == b'\\' && matches!(b.get(i + 1), Some(b'\'' | b'\\')) {
            out.push(b[i + 1]);
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// The bytes of a `b'0101'` value (bits printed most significant first,
/// first byte first, without the unused high bits).
fn bits(v: &str) -> Result<Vec<u8>, String> {
    let inner = v
        .strip_prefix("b'")
        .and_then(|s| s.strip_suffix('\''))
        .ok_or_else(|| format!("not a bit value: {v:?}"))?;
    let pad = (8 - inner.len() % 8) % 8;
    let mut acc = vec![false; pad];
    acc.extend(inner.chars().map(|c| c == '1'));
    Ok(acc
        .chunks(8)
        .map(|c| c.iter().fold(0u8, |b, &x| (b << 1) | x as u8))
        .collect())
}

/// A printed integer: `N` or `N (U)`.
fn integer(v: &str, unsigned: bool) -> Result<String, String> {
    match v.split_once(" (") {
        Some((signed, rest)) => Ok(if unsigned {
            rest.strip_suffix(')')
                .ok_or_else(|| format!("bad integer {v:?}"))?
                .to_string()
        } else {
            signed.to_string()
        }),
        None => Ok(v.to_string()),
    }
}

/// A mariadb-binlog value as the text of a SELECT.
pub fn expected(v: &str, col: &ColumnDef) -> Result<Expected, String> {
    if v == "NULL" {
        return Ok(Expected::Null);
    }
    let unsigned = col.unsigned == Some(true);
    let t = match col.column_type {
        ColumnType::Tiny
        | ColumnType::Short
        | ColumnType::Int24
        | ColumnType::Long
        | ColumnType::LongLong => integer(v, unsigned)?,
        ColumnType::Float => {
            return Ok(Expected::Float(
                v.trim().parse().map_err(|_| format!("bad FLOAT {v:?}"))?,
            ))
        }
        ColumnType::Double => {
            return Ok(Expected::Double(
                v.trim().parse().map_err(|_| format!("bad DOUBLE {v:?}"))?,
            ))
        }
        ColumnType::NewDecimal { .. } => v.to_string(),
        ColumnType::Year => match v {
            "1900" => "0000".to_string(),
            y => y.to_string(),
        },
        ColumnType::Date => String::from_utf8_lossy(&unquote(v)?).replace(':', "-"),
        ColumnType::Time
        | ColumnType::Time2 { .. }
        | ColumnType::DateTime
        | ColumnType::DateTime2 { .. } => String::from_utf8_lossy(&unquote(v)?).into_owned(),
        ColumnType::Timestamp | ColumnType::Timestamp2 { .. } => {
            let fsp = match col.column_type {
                ColumnType::Timestamp2 { fsp } => fsp,
                _ => 0,
            };
            let (secs, frac) = v.split_once('.').unwrap_or((v, ""));
            let secs: u64 = secs.parse().map_err(|_| format!("bad TIMESTAMP {v:?}"))?;
            let micros: u32 = if frac.is_empty() {
                0
            } else {
                format!("{frac:0<6}")
                    .parse()
                    .map_err(|_| format!("bad TIMESTAMP {v:?}"))?
            };
            utc_timestamp(secs, micros, fsp)
        }
        ColumnType::VarChar { .. } | ColumnType::Blob { .. } => {
            text_of_bytes(&unquote(v)?, col.collation, None)?
        }
        ColumnType::Char { max_len } => {
            text_of_bytes(&unquote(v)?, col.collation, Some(max_len as usize))?
        }
        ColumnType::Enum { .. } => {
            enum_text(v.parse().map_err(|_| format!("bad ENUM {v:?}"))?, col)?
        }
        ColumnType::Set { .. } => {
            let b = bits(v)?;
            set_text(super::uint_le(&b), col)?
        }
        ColumnType::Bit { .. } => hex(&bits(v)?),
        ColumnType::Geometry { .. } | ColumnType::Vector { .. } | ColumnType::Json { .. } => {
            hex(&unquote(v)?)
        }
        ColumnType::Null => return Err(format!("NULL-type column printed as {v:?}")),
    };
    Ok(Expected::Text(t))
}
