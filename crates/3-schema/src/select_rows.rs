//! Rows read with `SELECT` (an initial snapshot) turned into binlog row
//! images, so they reach consumers through the same decoder and encoders as
//! rows read from the binlog.
//!
//! [`table_map_for`] builds the TABLE_MAP a MariaDB binlog with
//! `binlog_row_metadata=FULL` gives a tracked table (joined with the tracked
//! schema as the tracker does); [`select_list`] is the SELECT expressions
//! whose text values convert exactly; [`row_from_text`] parses one row of
//! them and appends its image. Pure functions, no I/O.
//!
//! The session reading the rows must run `SET NAMES binary` (values in the
//! column's own character set, as in the binlog) and `SET time_zone =
//! '+00:00'` (TIMESTAMP text is UTC). Its sql_mode does not matter: CHAR
//! values padded by PAD_CHAR_TO_FULL_LENGTH lose their padding here, as
//! they do in the binlog.

use sluice_binlog::column::code;
use sluice_binlog::temporal::{Date, DateTime, Time};
use sluice_binlog::value::cp1252;
use sluice_binlog::{CellIn, Charset, ColumnDef, ColumnType, RowImageWriter, TableMap};

use crate::collation::{collation_id, max_bytes_per_char};
use crate::error::SchemaError;
use crate::model::{ColumnSchema, Generated, TableSchema};

/// The TABLE_MAP a MariaDB binlog with FULL row metadata gives `table`,
/// with each column as [`crate::binlog_meta::enrich`] completes it: type
/// code and storage type with their sizes (character lengths in bytes of
/// the column's character set), nullability, signedness, collation id,
/// name, ENUM/SET labels, geometry type, visibility and primary key.
/// Every column of the row image is there, in table order (invisible,
/// generated and MariaDB's hidden system-versioning columns included).
///
/// MariaDB only: its JSON is a LONGTEXT; UUID, INET6 and INET4 are
/// BINARY(16) and BINARY(4) in the binlog. VECTOR is refused (not tested).
pub fn table_map_for(table: &TableSchema, table_id: u64) -> Result<TableMap, SchemaError> {
    let mut key = table.row_key();
    // MariaDB adds ROW END to the primary key of a system-versioned table.
    if table.system_versioned && !table.primary_key.is_empty() {
        key.extend(
            table
                .columns
                .iter()
                .filter(|c| matches!(c.generated, Some(Generated::RowEnd)))
                .map(|c| c.name.clone()),
        );
    }
    let mut columns = Vec::with_capacity(table.columns.len());
    for c in &table.columns {
        let (type_code, column_type) = storage_type(table, c)?;
        let character = column_type.has_charset_metadata() || column_type.is_enum_or_set();
        let collation = if character {
            Some(match c.sql_type.as_str() {
                // Stored as BINARY(n), or binary underneath (GEOMETRY); the
                // tracker gives them no charset.
                "uuid" | "inet6" | "inet4" => 63,
                t if geometry_type(t).is_some() => 63,
                _ => c
                    .collation
                    .as_deref()
                    .and_then(collation_id)
                    .ok_or_else(|| type_error(table, c, "has no known collation"))?,
            })
        } else {
            None
        };
        let numeric = column_type.is_numeric() || column_type == ColumnType::Year;
        columns.push(ColumnDef {
            type_code,
            column_type,
            nullable: c.nullable,
            // MariaDB's SIGNEDNESS has a bit for YEAR, always set.
            unsigned: numeric.then_some(c.unsigned || column_type == ColumnType::Year),
            collation,
            name: Some(c.name.clone()),
            labels: match (column_type.is_enum_or_set(), collation) {
                (true, Some(coll)) => Some(
                    c.labels
                        .iter()
                        .map(|l| encode_label(l, coll))
                        .collect::<Result<_, _>>()
                        .map_err(|why| type_error(table, c, &why))?,
                ),
                _ => None,
            },
            geometry_type: geometry_type(&c.sql_type),
            primary_key_prefix: key
                .iter()
                .any(|k| k.eq_ignore_ascii_case(&c.name))
                .then_some(0),
            visible: Some(!c.invisible),
        });
    }
    Ok(TableMap {
        table_id,
        // TM_BIT_LEN_EXACT_F, as MariaDB and MySQL write it.
        flags: 1,
        schema: table.db.clone(),
        table: table.name.clone(),
        columns,
        has_optional_metadata: true,
    })
}

fn type_error(table: &TableSchema, c: &ColumnSchema, why: &str) -> SchemaError {
    SchemaError::RowType {
        table: table.qualified_name(),
        column: c.name.clone(),
        message: format!("type {} {why}", c.data_type),
    }
}

/// The numbers in `name(a,b)` of a data type.
fn params(data_type: &str) -> Vec<u64> {
    let Some(open) = data_type.find('(') else {
        return vec![];
    };
    let Some(close) = data_type[open..].find(')') else {
        return vec![];
    };
    data_type[open + 1..open + close]
        .split(',')
        .filter_map(|p| p.trim().parse().ok())
        .collect()
}

/// Type code and storage type of a column as the binlog writes them.
fn storage_type(table: &TableSchema, c: &ColumnSchema) -> Result<(u8, ColumnType), SchemaError> {
    let p = params(&c.data_type);
    let n = |i: usize, default: u64| p.get(i).copied().unwrap_or(default);
    let fsp = || -> Result<u8, SchemaError> {
        match n(0, 0) {
            f @ 0..=6 => Ok(f as u8),
            _ => Err(type_error(table, c, "has a fractional precision over 6")),
        }
    };
    // Character lengths are in characters; the binlog counts bytes.
    let bytes = |chars: u64| -> Result<u16, SchemaError> {
        let width = c.charset.as_deref().map(max_bytes_per_char).unwrap_or(1) as u64;
        u16::try_from(chars * width).map_err(|_| type_error(table, c, "is longer than 65535 bytes"))
    };
    Ok(match c.sql_type.as_str() {
        "tinyint" => (code::TINY, ColumnType::Tiny),
        "smallint" => (code::SHORT, ColumnType::Short),
        "mediumint" => (code::INT24, ColumnType::Int24),
        "int" => (code::LONG, ColumnType::Long),
        "bigint" => (code::LONGLONG, ColumnType::LongLong),
        "float" => (code::FLOAT, ColumnType::Float),
        "double" => (code::DOUBLE, ColumnType::Double),
        "decimal" => {
            let (precision, scale) = (n(0, 10), n(1, 0));
            if precision == 0 || precision > 65 || scale > 30 || scale > precision {
                return Err(type_error(table, c, "is not a valid DECIMAL"));
            }
            (
                code::NEWDECIMAL,
                ColumnType::NewDecimal {
                    precision: precision as u8,
                    scale: scale as u8,
                },
            )
        }
        "year" => (code::YEAR, ColumnType::Year),
        "date" => (code::DATE, ColumnType::Date),
        "time" => (code::TIME2, ColumnType::Time2 { fsp: fsp()? }),
        "datetime" => (code::DATETIME2, ColumnType::DateTime2 { fsp: fsp()? }),
        "timestamp" => (code::TIMESTAMP2, ColumnType::Timestamp2 { fsp: fsp()? }),
        "char" | "binary" => (
            code::STRING,
            ColumnType::Char {
                max_len: bytes(n(0, 1))?,
            },
        ),
        "varchar" | "varbinary" => match p.first() {
            Some(&len) => (
                code::VARCHAR,
                ColumnType::VarChar {
                    max_len: bytes(len)?,
                },
            ),
            None => return Err(type_error(table, c, "has no length")),
        },
        "tinytext" | "tinyblob" => (code::BLOB, ColumnType::Blob { len_bytes: 1 }),
        "text" | "blob" => (code::BLOB, ColumnType::Blob { len_bytes: 2 }),
        "mediumtext" | "mediumblob" => (code::BLOB, ColumnType::Blob { len_bytes: 3 }),
        "longtext" | "longblob" => (code::BLOB, ColumnType::Blob { len_bytes: 4 }),
        // MariaDB's JSON is a LONGTEXT with a check constraint.
        "json" => (code::BLOB, ColumnType::Blob { len_bytes: 4 }),
        "enum" => (
            code::STRING,
            ColumnType::Enum {
                pack_len: if c.labels.len() > 255 { 2 } else { 1 },
            },
        ),
        "set" => {
            let b = c.labels.len().div_ceil(8).max(1);
            (
                code::STRING,
                ColumnType::Set {
                    pack_len: if b > 4 { 8 } else { b as u8 },
                },
            )
        }
        "bit" => {
            let bits = n(0, 1);
            if !(1..=64).contains(&bits) {
                return Err(type_error(table, c, "is not a valid BIT"));
            }
            (code::BIT, ColumnType::Bit { bits: bits as u16 })
        }
        "uuid" | "inet6" => (code::STRING, ColumnType::Char { max_len: 16 }),
        "inet4" => (code::STRING, ColumnType::Char { max_len: 4 }),
        t if geometry_type(t).is_some() => (code::GEOMETRY, ColumnType::Geometry { len_bytes: 4 }),
        _ => {
            return Err(type_error(
                table,
                c,
                "cannot be read by SELECT as its binlog value (not supported)",
            ))
        }
    })
}

/// An ENUM/SET label (UTF-8 in the tracked schema) in the column's
/// character set, as the binlog's FULL metadata carries it.
fn encode_label(label: &str, collation: u32) -> Result<Vec<u8>, String> {
    let unsupported =
        || format!("has a label {label:?} this reader cannot encode in collation {collation}");
    Ok(match Charset::of_collation(collation) {
        Charset::Utf8 | Charset::Binary => label.as_bytes().to_vec(),
        Charset::Latin1 => label
            .chars()
            .map(|ch| {
                (0..=255u8)
                    .find(|&b| cp1252(b) == ch)
                    .ok_or_else(unsupported)
            })
            .collect::<Result<_, _>>()?,
        Charset::Ucs2 | Charset::Utf16 => label.encode_utf16().flat_map(u16::to_be_bytes).collect(),
        Charset::Utf16Le => label.encode_utf16().flat_map(u16::to_le_bytes).collect(),
        Charset::Utf32 => label
            .chars()
            .flat_map(|c| (c as u32).to_be_bytes())
            .collect(),
        Charset::Other if label.is_ascii() => label.as_bytes().to_vec(),
        Charset::Other => return Err(unsupported()),
    })
}

/// The GEOMETRY_TYPE metadata of a spatial type (`Field::geometry_type`).
fn geometry_type(sql_type: &str) -> Option<u32> {
    Some(match sql_type {
        "geometry" => 0,
        "point" => 1,
        "linestring" => 2,
        "polygon" => 3,
        "multipoint" => 4,
        "multilinestring" => 5,
        "multipolygon" => 6,
        "geometrycollection" => 7,
        _ => return None,
    })
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// The SELECT expressions for `table`'s rows, one per column in row-image
/// order, each named after its column: the column itself, except ENUM, SET
/// and BIT as numbers (`` `e`+0 ``: the stored index or bits, whatever the
/// labels' character set), FLOAT widened to DOUBLE (`` `f`+0e0 ``: a
/// FLOAT's own text has 6 significant digits, a DOUBLE's round-trips), and
/// MariaDB's UUID, INET6 and INET4 cast to the binary form they are stored
/// in (`CAST(`u` AS BINARY(16))`).
/// Invisible and hidden columns are named, so they are read too.
pub fn select_list(table: &TableSchema) -> String {
    let mut out = String::new();
    for (i, c) in table.columns.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let q = quote(&c.name);
        match c.sql_type.as_str() {
            "enum" | "set" | "bit" => out.push_str(&format!("{q}+0 AS {q}")),
            "float" => out.push_str(&format!("{q}+0e0 AS {q}")),
            "uuid" | "inet6" => out.push_str(&format!("CAST({q} AS BINARY(16)) AS {q}")),
            "inet4" => out.push_str(&format!("CAST({q} AS BINARY(4)) AS {q}")),
            _ => out.push_str(&q),
        }
    }
    out
}

/// Parses one row of `SELECT {select_list} FROM table` (text protocol,
/// `None` for NULL) and appends its row image for `map` (from
/// [`table_map_for`]) to `out`. Strict: a value that does not parse as
/// its column's type is an error naming the table, column and value; `out`
/// is then left as it was.
pub fn row_from_text(
    map: &TableMap,
    table: &TableSchema,
    values: &[Option<&[u8]>],
    out: &mut Vec<u8>,
) -> Result<(), SchemaError> {
    if values.len() != map.columns.len() || table.columns.len() != map.columns.len() {
        return Err(SchemaError::RowType {
            table: table.qualified_name(),
            column: "-".into(),
            message: format!(
                "{} values for {} columns in the table map and {} tracked",
                values.len(),
                map.columns.len(),
                table.columns.len()
            ),
        });
    }
    // Each value goes into the image as soon as it is parsed: no vector of
    // the row's values. The writer takes a partial image out on error.
    let mut image = RowImageWriter::new(map, out);
    for (i, (v, col)) in values.iter().zip(&map.columns).enumerate() {
        let cell = match v {
            None => CellIn::Null,
            Some(v) => parse_cell(col, v).map_err(|message| SchemaError::RowValue {
                table: table.qualified_name(),
                column: table.columns[i].name.clone(),
                value: snippet(v),
                message,
            })?,
        };
        image.push(&cell).map_err(|e| SchemaError::RowValue {
            table: table.qualified_name(),
            column: table.columns[i].name.clone(),
            value: v.map(snippet).unwrap_or_else(|| "NULL".into()),
            message: e.message,
        })?;
    }
    image.finish().map_err(|e| SchemaError::RowValue {
        table: table.qualified_name(),
        column: e.column.clone(),
        value: String::new(),
        message: e.message,
    })
}

/// A value for an error message: its text (cut), or hex when not UTF-8.
fn snippet(v: &[u8]) -> String {
    const MAX: usize = 64;
    match std::str::from_utf8(v) {
        Ok(s) if s.chars().count() > MAX => {
            format!(
                "{}... ({} bytes)",
                s.chars().take(MAX).collect::<String>(),
                v.len()
            )
        }
        Ok(s) => s.to_string(),
        Err(_) => {
            let mut h = String::from("0x");
            for b in v.iter().take(MAX) {
                h.push_str(&format!("{b:02x}"));
            }
            if v.len() > MAX {
                h.push_str(&format!("... ({} bytes)", v.len()));
            }
            h
        }
    }
}

/// Numbers and times are ASCII; values are checked byte by byte, with no
/// UTF-8 decoding.
fn ascii(v: &[u8]) -> Result<&[u8], String> {
    if v.is_ascii() {
        Ok(v)
    } else {
        Err("not ASCII text".to_string())
    }
}

fn parse_cell<'v>(col: &ColumnDef, v: &'v [u8]) -> Result<CellIn<'v>, String> {
    let t = col.column_type;
    Ok(match t {
        ColumnType::Tiny
        | ColumnType::Short
        | ColumnType::Int24
        | ColumnType::Long
        | ColumnType::LongLong => {
            let s = ascii(v)?;
            if col.unsigned == Some(true) {
                CellIn::UInt(digits(s)?)
            } else {
                CellIn::Int(integer(s).ok_or_else(|| "not an integer".to_string())?)
            }
        }
        // From `+0e0`: the FLOAT's value as a DOUBLE, exactly.
        ColumnType::Float => CellIn::Float(float(v)? as f32),
        ColumnType::Double => CellIn::Double(float(v)?),
        ColumnType::NewDecimal { .. } => CellIn::Decimal(
            std::str::from_utf8(ascii(v)?).map_err(|_| "not ASCII text".to_string())?,
        ),
        ColumnType::Year => {
            let s = ascii(v)?;
            if s.len() != 4 {
                return Err("not a 4-digit year".into());
            }
            CellIn::Year(digits(s)? as u16)
        }
        ColumnType::Date => CellIn::Date(date(ascii(v)?)?),
        ColumnType::Time | ColumnType::Time2 { .. } => CellIn::Time(time(ascii(v)?)?),
        ColumnType::DateTime | ColumnType::DateTime2 { .. } => {
            CellIn::DateTime(datetime(ascii(v)?)?)
        }
        ColumnType::Timestamp | ColumnType::Timestamp2 { .. } => {
            let dt = datetime(ascii(v)?)?;
            let (seconds, micros) = epoch_seconds(&dt)?;
            CellIn::Timestamp { seconds, micros }
        }
        ColumnType::Char { .. } => CellIn::Bytes(strip_pad(v, col.charset())),
        ColumnType::VarChar { .. }
        | ColumnType::Blob { .. }
        | ColumnType::Geometry { .. }
        | ColumnType::Vector { .. } => CellIn::Bytes(v),
        ColumnType::Enum { .. } => {
            let i = digits(ascii(v)?)?;
            CellIn::Enum(u16::try_from(i).map_err(|_| "ENUM index over 65535".to_string())?)
        }
        ColumnType::Set { .. } => CellIn::Set(bits64(ascii(v)?)?),
        ColumnType::Bit { .. } => CellIn::Bit(bits64(ascii(v)?)?),
        // MySQL's JSON: the text a SELECT prints (always utf8mb4), which the
        // writer turns into the binary JSON the binlog carries.
        ColumnType::Json { .. } => CellIn::Json(
            std::str::from_utf8(v).map_err(|_| "JSON text is not valid UTF-8".to_string())?,
        ),
        ColumnType::Null => return Err("a MYSQL_TYPE_NULL column holds only NULL".into()),
    })
}

/// A CHAR/BINARY value without its trailing pad characters, as the
/// servers' `Field_string::pack` writes it to the binlog: zero bytes for
/// BINARY (which a SELECT pads back), spaces in the column's character set
/// otherwise (which a SELECT strips too, unless the session's sql_mode has
/// PAD_CHAR_TO_FULL_LENGTH).
fn strip_pad(v: &[u8], charset: Option<Charset>) -> &[u8] {
    let pad: &[u8] = match charset {
        Some(Charset::Binary) => &[0],
        Some(Charset::Ucs2 | Charset::Utf16) => &[0, b' '],
        Some(Charset::Utf16Le) => &[b' ', 0],
        Some(Charset::Utf32) => &[0, 0, 0, b' '],
        _ => b" ",
    };
    let mut v = v;
    while v.len().is_multiple_of(pad.len()) && v.ends_with(pad) {
        v = &v[..v.len() - pad.len()];
    }
    v
}

/// 64 bits from `x+0`: MariaDB gives a SET's bitmap as a signed BIGINT
/// (negative with its 64th member), a BIT's as unsigned.
fn bits64(s: &[u8]) -> Result<u64, String> {
    match s.strip_prefix(b"-") {
        Some(d) => {
            let v = digits(d)?;
            if v == 0 || v > 1 << 63 {
                return Err("not a 64-bit value".into());
            }
            Ok(v.wrapping_neg())
        }
        None => digits(s),
    }
}

/// An unsigned decimal integer (digits only).
fn digits(s: &[u8]) -> Result<u64, String> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return Err("not an unsigned integer".into());
    }
    s.iter()
        .try_fold(0u64, |a, &b| {
            a.checked_mul(10)?.checked_add((b - b'0') as u64)
        })
        .ok_or_else(|| "integer out of range".into())
}

/// A signed decimal integer as Rust's `i64::from_str` reads it: an
/// optional sign, then digits only.
fn integer(s: &[u8]) -> Option<i64> {
    let (negative, d) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if d.is_empty() || !d.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // Accumulated on the side of the sign, so that i64::MIN parses.
    d.iter().try_fold(0i64, |a, &b| {
        let a = a.checked_mul(10)?;
        let b = (b - b'0') as i64;
        if negative {
            a.checked_sub(b)
        } else {
            a.checked_add(b)
        }
    })
}

fn float(v: &[u8]) -> Result<f64, String> {
    let s = ascii(v)?;
    // Rust also reads "inf" and "nan", which no column holds.
    if !s
        .iter()
        .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
    {
        return Err("not a number".into());
    }
    std::str::from_utf8(s)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| "not a number".into())
}

/// `n` digits exactly.
fn fixed(s: &[u8], n: usize) -> Result<u32, String> {
    if s.len() != n {
        return Err(format!(
            "expected {n} digits, found {:?}",
            String::from_utf8_lossy(s)
        ));
    }
    Ok(digits(s)? as u32)
}

/// `s` cut at the first `sep`: before and after it.
fn split_at_byte(s: &[u8], sep: u8) -> Option<(&[u8], &[u8])> {
    let p = s.iter().position(|&b| b == sep)?;
    Some((&s[..p], &s[p + 1..]))
}

/// `YYYY-MM-DD`.
fn date(s: &[u8]) -> Result<Date, String> {
    // Three fields between two dashes, as `split('-')` would find them.
    let (y, rest) = split_at_byte(s, b'-').ok_or("not a date YYYY-MM-DD")?;
    let (m, d) = split_at_byte(rest, b'-').ok_or("not a date YYYY-MM-DD")?;
    if d.contains(&b'-') {
        return Err("not a date YYYY-MM-DD".into());
    }
    Ok(Date {
        year: fixed(y, 4)? as u16,
        month: fixed(m, 2)? as u8,
        day: fixed(d, 2)? as u8,
    })
}

/// `.ffffff` (1-6 digits) to microseconds; "" is 0.
fn micros(frac: Option<&[u8]>) -> Result<u32, String> {
    match frac {
        None => Ok(0),
        Some(f) if (1..=6).contains(&f.len()) => {
            Ok(digits(f)? as u32 * 10u32.pow(6 - f.len() as u32))
        }
        Some(_) => Err("fraction of 1-6 digits expected".into()),
    }
}

/// `HH:MM:SS[.ffffff]`, HH of 2 digits or more.
fn hms(s: &[u8]) -> Result<(u32, u8, u8, u32), String> {
    let (whole, frac) = match split_at_byte(s, b'.') {
        Some((w, f)) => (w, Some(f)),
        None => (s, None),
    };
    let fields = || -> Option<(&[u8], &[u8], &[u8])> {
        let (h, rest) = split_at_byte(whole, b':')?;
        let (m, sec) = split_at_byte(rest, b':')?;
        (!sec.contains(&b':')).then_some((h, m, sec))
    };
    let Some((h, m, sec)) = fields() else {
        return Err("not a time HH:MM:SS".into());
    };
    if h.len() < 2 {
        return Err("hours of 2 digits or more expected".into());
    }
    let h = u32::try_from(digits(h)?).map_err(|_| "hours out of range".to_string())?;
    let (m, sec) = (fixed(m, 2)?, fixed(sec, 2)?);
    if m > 59 || sec > 59 {
        return Err("minutes or seconds over 59".into());
    }
    Ok((h, m as u8, sec as u8, micros(frac)?))
}

fn time(s: &[u8]) -> Result<Time, String> {
    let (negative, body) = match s.strip_prefix(b"-") {
        Some(b) => (true, b),
        None => (false, s),
    };
    let (hours, minutes, seconds, micros) = hms(body)?;
    Ok(Time {
        negative,
        hours,
        minutes,
        seconds,
        micros,
        fsp: 6,
    })
}

fn datetime(s: &[u8]) -> Result<DateTime, String> {
    match common_datetime(s) {
        Some(dt) => Ok(dt),
        None => any_datetime(s),
    }
}

/// `YYYY-MM-DD HH:MM:SS[.ffffff]`, each field checked on its own.
fn any_datetime(s: &[u8]) -> Result<DateTime, String> {
    let Some((d, t)) = split_at_byte(s, b' ') else {
        return Err("not a date and time YYYY-MM-DD HH:MM:SS".into());
    };
    let date = date(d)?;
    let (hour, minute, second, micros) = hms(t)?;
    if hour > 23 {
        return Err("hour over 23".into());
    }
    Ok(DateTime {
        date,
        hour: hour as u8,
        minute,
        second,
        micros,
        fsp: 6,
    })
}

/// Two ASCII digits at `s[at..at + 2]`.
fn two(s: &[u8], at: usize) -> Option<u8> {
    let (a, b) = (s[at].wrapping_sub(b'0'), s[at + 1].wrapping_sub(b'0'));
    (a < 10 && b < 10).then_some(a * 10 + b)
}

/// A valid `YYYY-MM-DD HH:MM:SS[.f]` (1-6 fraction digits), as the server
/// prints every DATETIME and TIMESTAMP, read by position; `None` for any
/// other text, which the general reader takes (and explains).
fn common_datetime(s: &[u8]) -> Option<DateTime> {
    if s.len() < 19
        || s[4] != b'-'
        || s[7] != b'-'
        || s[10] != b' '
        || s[13] != b':'
        || s[16] != b':'
    {
        return None;
    }
    let year = two(s, 0)? as u16 * 100 + two(s, 2)? as u16;
    let (month, day) = (two(s, 5)?, two(s, 8)?);
    let (hour, minute, second) = (two(s, 11)?, two(s, 14)?, two(s, 17)?);
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let micros = match &s[19..] {
        [] => 0,
        [b'.', f @ ..] if (1..=6).contains(&f.len()) && f.iter().all(u8::is_ascii_digit) => {
            f.iter().fold(0u32, |a, &d| a * 10 + (d - b'0') as u32) * 10u32.pow(6 - f.len() as u32)
        }
        _ => return None,
    };
    Some(DateTime {
        date: Date { year, month, day },
        hour,
        minute,
        second,
        micros,
        fsp: 6,
    })
}

/// A UTC date and time as TIMESTAMP seconds; the zero date is 0.
fn epoch_seconds(dt: &DateTime) -> Result<(u32, u32), String> {
    let d = &dt.date;
    if d.year == 0 && d.month == 0 && d.day == 0 {
        if (dt.hour, dt.minute, dt.second, dt.micros) != (0, 0, 0, 0) {
            return Err("zero date with a time of day".into());
        }
        return Ok((0, 0));
    }
    if !(1..=12).contains(&d.month) || d.day == 0 || d.day > 31 {
        return Err("not a valid TIMESTAMP date".into());
    }
    let days = days_from_civil(d.year as i64, d.month as u32, d.day as u32);
    let secs = days * 86_400 + dt.hour as i64 * 3600 + dt.minute as i64 * 60 + dt.second as i64;
    let secs = u32::try_from(secs).map_err(|_| "outside the TIMESTAMP range".to_string())?;
    Ok((secs, dt.micros))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`, the inverse of `temporal::civil_from_days`).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_binlog::temporal::civil_from_days;

    #[test]
    fn days_from_civil_inverts_civil_from_days() {
        for z in [-719_468i64, -1, 0, 1, 11_016, 19_723, 24_855, 2_932_896] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z, "{y}-{m}-{d}");
        }
    }

    #[test]
    fn char_values_lose_their_pad_characters() {
        assert_eq!(strip_pad(b"ab  ", Some(Charset::Utf8)), b"ab");
        assert_eq!(strip_pad(b" a ", Some(Charset::Latin1)), b" a");
        assert_eq!(strip_pad(b"a\0 \0\0", Some(Charset::Binary)), b"a\0 ");
        assert_eq!(strip_pad(b"\0\0", Some(Charset::Binary)), b"");
        assert_eq!(
            strip_pad(&[0, b'a', 0, b' ', 0, b' '], Some(Charset::Ucs2)),
            &[0, b'a']
        );
        // A UCS-2 character 0x2000 then 'a' ends in no pad character.
        assert_eq!(strip_pad(&[0x20, 0, 0, b'a'], Some(Charset::Ucs2)).len(), 4);
        assert_eq!(
            strip_pad(&[b'a', 0, b' ', 0], Some(Charset::Utf16Le)),
            &[b'a', 0]
        );
        assert_eq!(
            strip_pad(&[0, 0, 0, b'a', 0, 0, 0, b' '], Some(Charset::Utf32)).len(),
            4
        );
    }

    #[test]
    fn text_parsers_are_strict() {
        assert!(time(b"-838:59:59.000001").is_ok());
        assert!(time(b"1:00:00").is_err());
        assert!(time(b"01:60:00").is_err());
        assert!(time(b"01:00:00.1234567").is_err());
        assert!(time(b"01:00:00:00").is_err());
        assert!(time(b"01:00:00.5.5").is_err());
        assert!(datetime(b"2024-02-29 24:00:00").is_err());
        assert!(datetime(b"2024-02-29T00:00:00").is_err());
        assert!(datetime(b"2024-02-29  00:00:00").is_err());
        assert!(date(b"24-02-29").is_err());
        assert!(date(b"2024-02-29-").is_err());
        assert!(date(b"2024-02").is_err());
        assert!(digits(b"-1").is_err());
        assert!(digits(b"").is_err());
        assert_eq!(digits(b"18446744073709551615"), Ok(u64::MAX));
        assert!(digits(b"18446744073709551616").is_err());
        assert_eq!(bits64(b"-9223372036854775808"), Ok(1 << 63));
        assert_eq!(bits64(b"-1"), Ok(u64::MAX));
        assert_eq!(bits64(b"18446744073709551615"), Ok(u64::MAX));
        assert!(bits64(b"-0").is_err());
        assert!(bits64(b"-9223372036854775809").is_err());
        assert!(float(b"inf").is_err());
        assert_eq!(
            epoch_seconds(&datetime(b"2038-01-19 03:14:07.5").unwrap()),
            Ok((i32::MAX as u32, 500_000))
        );
        assert_eq!(
            epoch_seconds(&datetime(b"0000-00-00 00:00:00").unwrap()),
            Ok((0, 0))
        );
        assert_eq!(
            datetime(b"2024-02-29 23:59:58.25"),
            Ok(DateTime {
                date: Date {
                    year: 2024,
                    month: 2,
                    day: 29
                },
                hour: 23,
                minute: 59,
                second: 58,
                micros: 250_000,
                fsp: 6
            })
        );
    }

    #[test]
    fn common_datetimes_read_as_the_general_reader_reads_them() {
        for s in [
            "2024-02-29 23:59:58",
            "2024-02-29 23:59:58.5",
            "0000-00-00 00:00:00.000000",
            "9999-12-31 23:59:59.999999",
            "2024-02-29 24:00:00",
            "2024-02-29 23:60:00",
            "2024-02-29 23:59:60",
            "2024-02-29 23:59:59.",
            "2024-02-29 23:59:59.1234567",
            "2024-02-29 23:59:59.12a",
            "2024-02-29 23:59:59 ",
            "2024-02-29T23:59:59",
            "2024-0a-29 23:59:59",
            "202-02-29 23:59:59",
            "2024-02-29 100:00:00",
        ] {
            let (fast, general) = (common_datetime(s.as_bytes()), any_datetime(s.as_bytes()));
            match fast {
                Some(dt) => assert_eq!(general, Ok(dt), "{s:?}"),
                None => assert!(general.is_err(), "{s:?}: {general:?}"),
            }
        }
    }

    #[test]
    fn integers_read_as_from_str_reads_them() {
        for s in [
            "0",
            "-0",
            "+7",
            "42",
            "-42",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "-9223372036854775809",
            "",
            "-",
            "+",
            "1-",
            "1 ",
            "00012",
            "99999999999999999999999",
        ] {
            assert_eq!(integer(s.as_bytes()), s.parse::<i64>().ok(), "{s:?}");
            assert_eq!(
                digits(s.as_bytes()).ok(),
                s.bytes()
                    .all(|b| b.is_ascii_digit())
                    .then(|| s.parse::<u64>().ok())
                    .flatten(),
                "{s:?}"
            );
        }
    }
}
