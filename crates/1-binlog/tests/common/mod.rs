//! Helpers for the corpus test: reading the corpus, decoding a file with
//! Sluice into owned records, and the rules that turn a value as another
//! decoder reports it into the text MySQL prints for it in a SELECT.

pub mod json_text;
pub mod mariadb_binlog;
pub mod mysql_oracle;

use std::io::Read;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;

use sluice_binlog::{walk_file, Cell, DecodeError, EventData, LocatedError, RowsKind, TableMap};

/// Where the corpus lives: `testdata/binlogs` of the repository.
pub fn corpus_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/binlogs");
    assert!(
        dir.join("MANIFEST.md").is_file(),
        "binlog corpus not found at {} (testdata/binlogs of the repository)",
        dir.display()
    );
    dir
}

/// The bytes of a corpus file; `.gz` files are decompressed.
pub fn load(rel: &str) -> Vec<u8> {
    let path = corpus_dir().join(rel);
    let raw = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if rel.ends_with(".gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .unwrap_or_else(|e| panic!("{}: gunzip: {e}", path.display()));
        out
    } else {
        raw
    }
}

/// One column of a row image as Sluice decoded it.
#[derive(Debug, Clone)]
pub enum OurCell {
    Absent,
    Null,
    Text(String),
    /// Reading or rendering the value failed.
    Error(DecodeError),
}

#[derive(Debug, Clone)]
pub struct OurRow {
    pub before: Option<Vec<OurCell>>,
    pub after: Option<Vec<OurCell>>,
}

#[derive(Debug, Clone)]
pub struct OurRows {
    pub kind: RowsKind,
    pub table_id: u64,
    pub table: Arc<TableMap>,
    pub rows: Vec<OurRow>,
    /// Framing a row image failed after `rows`.
    pub error: Option<DecodeError>,
}

/// One event as `walk_file` reported it.
#[derive(Debug, Clone)]
pub struct OurEvent {
    pub pos: u64,
    pub next_pos: u64,
    pub payload_index: Option<usize>,
    /// The event type (after `FormatDescription::event_type`).
    pub type_code: u8,
    pub rows: Option<OurRows>,
    pub incident: Option<(u16, Vec<u8>)>,
}

/// Everything `walk_file` reports for a file: the events and the error it stopped at.
pub struct OurWalk {
    pub events: Vec<OurEvent>,
    pub error: Option<LocatedError>,
}

impl OurWalk {
    pub fn rows_events(&self) -> impl Iterator<Item = (&OurEvent, &OurRows)> {
        self.events
            .iter()
            .filter_map(|e| e.rows.as_ref().map(|r| (e, r)))
    }

    pub fn row_count(&self) -> usize {
        self.rows_events().map(|(_, r)| r.rows.len()).sum()
    }
}

fn image_cells(image: &sluice_binlog::RowImage<'_>) -> Vec<OurCell> {
    let table = image.table();
    let mut out = Vec::with_capacity(table.columns.len());
    for (i, cell) in image.cells().enumerate() {
        out.push(match cell {
            Err(e) => OurCell::Error(e),
            Ok(Cell::Absent) => OurCell::Absent,
            Ok(Cell::Present(v)) => match v.to_text(&table.columns[i]) {
                Ok(None) => OurCell::Null,
                Ok(Some(s)) => OurCell::Text(s),
                Err(e) => OurCell::Error(e),
            },
        });
    }
    // The iterator stops after an error; keep one entry per column.
    while out.len() < table.columns.len() {
        out.push(OurCell::Absent);
    }
    out
}

/// Decodes a whole file with `walk_file`: every event, every row, every
/// cell, every value rendered.
pub fn walk_ours(name: &str, bytes: &[u8]) -> OurWalk {
    let mut events = Vec::new();
    let result = walk_file(name, bytes, |at, raw, data| {
        let mut ev = OurEvent {
            pos: at.pos,
            next_pos: at.next_pos,
            payload_index: at.payload_index,
            type_code: raw.header.event_type.0,
            rows: None,
            incident: None,
        };
        match data {
            EventData::Rows(r) => {
                let mut rows = Vec::new();
                let mut error = None;
                for row in r.rows() {
                    match row {
                        Ok(row) => rows.push(OurRow {
                            before: row.before.as_ref().map(image_cells),
                            after: row.after.as_ref().map(image_cells),
                        }),
                        Err(e) => {
                            error = Some(e);
                            break;
                        }
                    }
                }
                ev.rows = Some(OurRows {
                    kind: r.kind,
                    table_id: r.table_id,
                    table: r.table.clone(),
                    rows,
                    error,
                });
            }
            EventData::Incident { kind, message } => ev.incident = Some((*kind, message.to_vec())),
            _ => {}
        }
        events.push(ev);
        ControlFlow::Continue(())
    });
    OurWalk {
        events,
        error: result.err(),
    }
}

// ---------------------------------------------------------------------------
// MySQL's SELECT text for values, written independently of the decoder.

/// `0x` and lowercase hex: how Sluice shows binary data (BINARY, VARBINARY,
/// BLOB, BIT, GEOMETRY, VECTOR), which a SELECT returns as raw bytes.
pub fn hex(b: &[u8]) -> String {
    let mut s = String::from("0x");
    for x in b {
        s.push_str(&format!("{x:02x}"));
    }
    s
}

/// What a character column's collation says about its bytes.
enum TextRule {
    Binary,
    Utf8,
    Latin1,
    /// No collation in the binlog (no optional metadata): UTF-8 when the
    /// bytes are valid UTF-8, hex otherwise.
    Unknown,
}

fn text_rule(collation: Option<u32>) -> Result<TextRule, String> {
    Ok(match collation {
        None => TextRule::Unknown,
        Some(63) => TextRule::Binary,
        // utf8mb3 (33 general_ci, 83 bin, 192-215 unicode/UCA),
        // utf8mb4 (45 general_ci, 46 bin, 224-247 UCA 4.0, 255-323 UCA 9.0),
        // ascii (11, 65): all UTF-8 on the wire.
        Some(11 | 33 | 45 | 46 | 65 | 83 | 192..=215 | 224..=247 | 255..=323) => TextRule::Utf8,
        // latin1 is Windows-1252 in MySQL.
        Some(5 | 8 | 15 | 31 | 47 | 48 | 49 | 94) => TextRule::Latin1,
        Some(other) => return Err(format!("no text rule for collation {other} in this test")),
    })
}

/// Windows-1252, as MySQL's latin1 maps bytes 0x80-0x9f.
fn cp1252(b: u8) -> char {
    let c = match b {
        0x80 => 0x20ac,
        0x82 => 0x201a,
        0x83 => 0x0192,
        0x84 => 0x201e,
        0x85 => 0x2026,
        0x86 => 0x2020,
        0x87 => 0x2021,
        0x88 => 0x02c6,
        0x89 => 0x2030,
        0x8a => 0x0160,
        0x8b => 0x2039,
        0x8c => 0x0152,
        0x8e => 0x017d,
        0x91 => 0x2018,
        0x92 => 0x2019,
        0x93 => 0x201c,
        0x94 => 0x201d,
        0x95 => 0x2022,
        0x96 => 0x2013,
        0x97 => 0x2014,
        0x98 => 0x02dc,
        0x99 => 0x2122,
        0x9a => 0x0161,
        0x9b => 0x203a,
        0x9c => 0x0153,
        0x9e => 0x017e,
        0x9f => 0x0178,
        other => other as u32,
    };
    char::from_u32(c).unwrap_or('\u{fffd}')
}

/// The text of character data (CHAR, VARCHAR, TEXT and their binary
/// variants, ENUM/SET labels) per the column's collation. BINARY(n) values
/// are stored without their trailing zero bytes; a SELECT shows them padded
/// to n bytes.
pub fn text_of_bytes(
    b: &[u8],
    collation: Option<u32>,
    binary_pad_to: Option<usize>,
) -> Result<String, String> {
    Ok(match text_rule(collation)? {
        TextRule::Binary => {
            let mut v = b.to_vec();
            if let Some(n) = binary_pad_to {
                if v.len() < n {
                    v.resize(n, 0);
                }
            }
            hex(&v)
        }
        TextRule::Utf8 => std::str::from_utf8(b)
            .map_err(|e| format!("text column holds invalid UTF-8 ({e}): {}", hex(b)))?
            .to_string(),
        TextRule::Latin1 => b.iter().map(|&c| cp1252(c)).collect(),
        TextRule::Unknown => match std::str::from_utf8(b) {
            Ok(s) => s.to_string(),
            Err(_) => hex(b),
        },
    })
}

/// ".ffffff" cut to `fsp` digits; nothing for fsp 0.
pub fn fraction(micros: u32, fsp: u8) -> String {
    if fsp == 0 {
        return String::new();
    }
    let digits = format!("{micros:06}");
    format!(".{}", &digits[..fsp.min(6) as usize])
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// A TIMESTAMP as MySQL prints it with time_zone '+00:00' (Sluice renders
/// TIMESTAMPs in UTC); second 0 is the zero date. Counted day by day from
/// 1970, independently of the decoder's arithmetic.
pub fn utc_timestamp(seconds: u64, micros: u32, fsp: u8) -> String {
    if seconds == 0 && micros == 0 {
        return format!("0000-00-00 00:00:00{}", fraction(0, fsp));
    }
    let mut days = (seconds / 86_400) as i64;
    let secs = seconds % 86_400;
    let mut year = 1970i64;
    loop {
        let len = if is_leap(year) { 366 } else { 365 };
        if days < len {
            break;
        }
        days -= len;
        year += 1;
    }
    let month_len = [
        31,
        if is_leap(year) { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    let mut month = 0usize;
    while days >= month_len[month] {
        days -= month_len[month];
        month += 1;
    }
    format!(
        "{year:04}-{:02}-{:02} {:02}:{:02}:{:02}{}",
        month + 1,
        days + 1,
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        fraction(micros, fsp)
    )
}

/// An ENUM value: its label (index 1 is the first), "" for index 0 (the
/// error value), the number when the binlog carries no labels.
pub fn enum_text(index: u64, col: &sluice_binlog::ColumnDef) -> Result<String, String> {
    match &col.labels {
        None => Ok(index.to_string()),
        Some(_) if index == 0 => Ok(String::new()),
        Some(labels) => {
            let label = labels
                .get(index as usize - 1)
                .ok_or_else(|| format!("ENUM index {index} past {} labels", labels.len()))?;
            text_of_bytes(label, col.collation, None)
        }
    }
}

/// A SET value: the labels of its bits joined by ",", the number when the
/// binlog carries no labels.
pub fn set_text(bits: u64, col: &sluice_binlog::ColumnDef) -> Result<String, String> {
    match &col.labels {
        None => Ok(bits.to_string()),
        Some(labels) => {
            let mut parts = Vec::new();
            for i in 0..64 {
                if bits & (1u64 << i) != 0 {
                    let label = labels
                        .get(i)
                        .ok_or_else(|| format!("SET bit {i} past {} labels", labels.len()))?;
                    parts.push(text_of_bytes(label, col.collation, None)?);
                }
            }
            Ok(parts.join(","))
        }
    }
}

/// Little-endian unsigned integer of up to 8 bytes.
pub fn uint_le(b: &[u8]) -> u64 {
    b.iter()
        .take(8)
        .enumerate()
        .fold(0, |v, (i, &x)| v | (x as u64) << (8 * i))
}

/// What another decoder's value must match in Sluice's text.
#[derive(Debug, Clone)]
pub enum Expected {
    Null,
    Text(String),
    /// FLOAT: MySQL prints 6 significant digits (FLT_DIG).
    Float(f64),
    /// DOUBLE: MySQL prints the shortest digits that read back to the value.
    Double(f64),
    Json(json_text::J),
}

/// Significant digits of a decimal number's text (sign, point, exponent
/// and leading/trailing zeros aside).
fn significant_digits(text: &str) -> usize {
    let mantissa = text.split(['e', 'E']).next().unwrap_or("");
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    digits.trim_start_matches('0').trim_end_matches('0').len()
}

/// Compares Sluice's rendering of a value with what it must be. Returns a
/// description of the difference, if any.
pub fn check_text(ours: Option<&str>, want: &Expected) -> Result<(), String> {
    match (ours, want) {
        (None, Expected::Null) => Ok(()),
        (None, other) => Err(format!("Sluice says NULL, expected {other:?}")),
        (Some(s), Expected::Null) => Err(format!("Sluice says {s:?}, expected NULL")),
        (Some(s), Expected::Text(t)) if s == t => Ok(()),
        (Some(s), Expected::Text(t)) => Err(format!("Sluice says {s:?}, expected {t:?}")),
        (Some(s), Expected::Float(v)) => {
            let ours: f64 = s
                .parse()
                .map_err(|_| format!("FLOAT {s:?} is not a number"))?;
            let tolerance = v.abs() * 5e-6;
            if significant_digits(s) > 6 {
                Err(format!("FLOAT {s:?} has more than 6 significant digits"))
            } else if (ours - v).abs() > tolerance {
                Err(format!("FLOAT {s:?} is not {v} to 6 digits"))
            } else {
                Ok(())
            }
        }
        (Some(s), Expected::Double(v)) => {
            let ours: f64 = s
                .parse()
                .map_err(|_| format!("DOUBLE {s:?} is not a number"))?;
            let shortest = format!("{v:e}");
            if ours != *v {
                Err(format!("DOUBLE {s:?} does not read back as {v:e}"))
            } else if significant_digits(s) != significant_digits(&shortest) {
                Err(format!(
                    "DOUBLE {s:?} is not the shortest form ({shortest})"
                ))
            } else {
                Ok(())
            }
        }
        (Some(s), Expected::Json(j)) => json_text::check(s, j),
    }
}
