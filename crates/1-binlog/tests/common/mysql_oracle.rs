//! `mysql_common` (its `binlog` module) as a test oracle: walks a file with
//! its `BinlogFile`/`EventStreamReader`, recording for every event its
//! position and type, and for rows events every value as a `BinlogValue`;
//! then turns those values into the text MySQL prints in a SELECT, using the
//! column's type and metadata from Sluice's TABLE_MAP_EVENT (fsp, DECIMAL
//! scale, signedness, collation, ENUM/SET labels), so that it can be
//! compared with `Value::render`.
//!
//! Conversion rules, per column type (what mysql_common reports → text):
//!
//! * TINY/SHORT/INT24/LONG/LONGLONG: `Int`/`UInt` → the decimal number
//!   (mysql_common reads UNSIGNED when the SIGNEDNESS metadata says so, as
//!   Sluice does; without metadata both read signed).
//! * FLOAT: `Float` → compared by value, to 6 significant digits (FLT_DIG).
//! * DOUBLE: `Double` → compared by value, and Sluice's digits must be the
//!   shortest that read back to it.
//! * NEWDECIMAL: `Bytes(text)` → that text (digits with the column's scale).
//! * YEAR: `Bytes(1900 + y)` → that number, except y = 0 → `0000`.
//! * DATE: `Date(y, m, d, ..)` → `YYYY-MM-DD`.
//! * TIME (pre-5.6): `Time(.., h, m, s, 0)` → `HH:MM:SS`.
//! * TIME2: `Time(neg, days, h, m, s, µs)` → `[-]HH:MM:SS` with hours =
//!   24·days + h, then `.` and the first fsp digits of µs (nothing for fsp 0).
//! * DATETIME (pre-5.6), DATETIME2: `Date(y, m, d, h, mi, s, µs)` →
//!   `YYYY-MM-DD HH:MM:SS` plus the fsp digits as for TIME2.
//! * TIMESTAMP: `Int(seconds)`; TIMESTAMP2: `Bytes("seconds[.µµµµµµ]")` →
//!   the UTC date and time (Sluice renders TIMESTAMP as a session with
//!   time_zone '+00:00' would), fsp digits as above; second 0 is
//!   `0000-00-00 00:00:00`.
//! * CHAR/VARCHAR/BLOB/TEXT: `Bytes` → text in the column's character set
//!   (see `text_of_bytes`); binary collation (63) → `0x` + hex, BINARY(n)
//!   padded with zero bytes to n.
//! * ENUM: `Int(index)` → the label (index 0 → empty), the number without labels.
//! * SET: `Bytes(little-endian bitmap)` → the labels joined by `,`, the
//!   number without labels.
//! * BIT, GEOMETRY, VECTOR: `Bytes` → `0x` + hex.
//! * JSON: `Jsonb` → a `J` tree (see `json_text`); for the after-image of a
//!   PARTIAL_UPDATE_ROWS_EVENT, `JsonDiff` operations applied to the tree of
//!   the before-image.

use std::io::Cursor;

use mysql_common::binlog::consts::BinlogVersion;
use mysql_common::binlog::events::{EventData, RowsEventData};
use mysql_common::binlog::jsonb::{self, JsonDom, JsonNumber, JsonScalar};
use mysql_common::binlog::jsondiff::JsonDiffOperation;
use mysql_common::binlog::value::BinlogValue;
use mysql_common::binlog::BinlogFile;
use mysql_common::Value as MyValue;
use sluice_binlog::{ColumnDef, ColumnType};

use super::json_text::{apply_diff, DiffOp, J};
use super::{enum_text, fraction, hex, set_text, text_of_bytes, uint_le, utc_timestamp, Expected};

/// One row image: the values of the columns present in it, in column order.
pub type TheirImage = Vec<BinlogValue<'static>>;

#[derive(Debug)]
pub struct TheirRows {
    pub table_id: u64,
    pub rows: Vec<(Option<TheirImage>, Option<TheirImage>)>,
    pub error: Option<String>,
}

#[derive(Debug)]
pub struct TheirEvent {
    pub pos: u64,
    pub next_pos: u64,
    pub payload_index: Option<usize>,
    pub type_code: u8,
    pub rows: Option<TheirRows>,
    /// mysql_common could not parse the event body.
    pub error: Option<String>,
}

fn rows_of(
    rows_event: &RowsEventData<'_>,
    reader: &mysql_common::binlog::EventStreamReader,
) -> TheirRows {
    let table_id = rows_event.table_id();
    let mut out = TheirRows {
        table_id,
        rows: Vec::new(),
        error: None,
    };
    let Some(tme) = reader.get_tme(table_id) else {
        out.error = Some(format!("no table map for table id {table_id}"));
        return out;
    };
    for row in rows_event.rows(tme) {
        match row {
            Ok((before, after)) => out
                .rows
                .push((before.map(|r| r.unwrap()), after.map(|r| r.unwrap()))),
            Err(e) => {
                out.error = Some(e.to_string());
                break;
            }
        }
    }
    out
}

/// Walks a whole file with mysql_common, including the events inside
/// TRANSACTION_PAYLOAD_EVENTs (positioned like Sluice positions them: at
/// the payload event, with their index). Stops at the first event it
/// cannot read; an event whose body it cannot parse is recorded with the
/// error and the walk goes on.
pub fn walk_theirs(bytes: &[u8]) -> Result<Vec<TheirEvent>, String> {
    let mut file = BinlogFile::new(BinlogVersion::Version4, Cursor::new(bytes))
        .map_err(|e| format!("mysql_common: {e}"))?;
    let mut out = Vec::new();
    let mut pos = 4u64;
    while let Some(ev) = file.next() {
        let ev = ev.map_err(|e| format!("mysql_common at {pos}: {e}"))?;
        let next_pos = pos + ev.header().event_size() as u64;
        let mut rec = TheirEvent {
            pos,
            next_pos,
            payload_index: None,
            type_code: ev.header().event_type_raw(),
            rows: None,
            error: None,
        };
        let mut inner = Vec::new();
        match ev.read_data() {
            Err(e) => rec.error = Some(e.to_string()),
            Ok(Some(EventData::RowsEvent(r))) => rec.rows = Some(rows_of(&r, file.reader())),
            Ok(Some(EventData::TransactionPayloadEvent(p))) => {
                let mut payload = p
                    .decompressed()
                    .map_err(|e| format!("mysql_common at {pos}: payload: {e}"))?;
                let mut index = 0;
                while payload
                    .has_data_left()
                    .map_err(|e| format!("mysql_common at {pos}: payload: {e}"))?
                {
                    let Some(iev) =
                        file.reader_mut()
                            .read_decompressed(&mut payload)
                            .map_err(|e| {
                                format!("mysql_common at {pos}: payload event {index}: {e}")
                            })?
                    else {
                        break;
                    };
                    let mut irec = TheirEvent {
                        pos,
                        next_pos,
                        payload_index: Some(index),
                        type_code: iev.header().event_type_raw(),
                        rows: None,
                        error: None,
                    };
                    match iev.read_data() {
                        Err(e) => irec.error = Some(e.to_string()),
                        Ok(Some(EventData::RowsEvent(r))) => {
                            irec.rows = Some(rows_of(&r, file.reader()))
                        }
                        Ok(_) => {}
                    }
                    inner.push(irec);
                    index += 1;
                }
            }
            Ok(_) => {}
        }
        out.push(rec);
        out.extend(inner);
        pos = next_pos;
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Values to text.

fn bytes_of(v: &MyValue) -> Result<&[u8], String> {
    match v {
        MyValue::Bytes(b) => Ok(b),
        other => Err(format!("expected bytes from mysql_common, got {other:?}")),
    }
}

fn int_of(v: &MyValue) -> Result<i128, String> {
    match v {
        MyValue::Int(i) => Ok(*i as i128),
        MyValue::UInt(u) => Ok(*u as i128),
        other => Err(format!(
            "expected an integer from mysql_common, got {other:?}"
        )),
    }
}

fn ascii_of(v: &MyValue) -> Result<&str, String> {
    std::str::from_utf8(bytes_of(v)?).map_err(|e| format!("mysql_common text: {e}"))
}

/// A plain (non-JSON) mysql_common value as the text MySQL prints.
fn plain_text(v: &MyValue, col: &ColumnDef) -> Result<Expected, String> {
    if let MyValue::NULL = v {
        return Ok(Expected::Null);
    }
    let t = match col.column_type {
        ColumnType::Tiny
        | ColumnType::Short
        | ColumnType::Int24
        | ColumnType::Long
        | ColumnType::LongLong => int_of(v)?.to_string(),
        ColumnType::Float => match v {
            MyValue::Float(f) => return Ok(Expected::Float(*f as f64)),
            other => return Err(format!("FLOAT column, mysql_common says {other:?}")),
        },
        ColumnType::Double => match v {
            MyValue::Double(f) => return Ok(Expected::Double(*f)),
            other => return Err(format!("DOUBLE column, mysql_common says {other:?}")),
        },
        ColumnType::NewDecimal { .. } => ascii_of(v)?.to_string(),
        ColumnType::Year => {
            let y: i64 = ascii_of(v)?
                .parse()
                .map_err(|_| format!("YEAR from mysql_common: {v:?}"))?;
            if y == 1900 {
                "0000".to_string()
            } else {
                y.to_string()
            }
        }
        ColumnType::Date => match v {
            MyValue::Date(y, m, d, ..) => format!("{y:04}-{m:02}-{d:02}"),
            other => return Err(format!("DATE column, mysql_common says {other:?}")),
        },
        ColumnType::Time | ColumnType::Time2 { .. } => {
            let fsp = match col.column_type {
                ColumnType::Time2 { fsp } => fsp,
                _ => 0,
            };
            match v {
                MyValue::Time(neg, days, h, m, s, us) => format!(
                    "{}{:02}:{m:02}:{s:02}{}",
                    if *neg { "-" } else { "" },
                    *days as u64 * 24 + *h as u64,
                    fraction(*us, fsp)
                ),
                other => return Err(format!("TIME column, mysql_common says {other:?}")),
            }
        }
        ColumnType::DateTime | ColumnType::DateTime2 { .. } => {
            let fsp = match col.column_type {
                ColumnType::DateTime2 { fsp } => fsp,
                _ => 0,
            };
            match v {
                MyValue::Date(y, mo, d, h, mi, s, us) => format!(
                    "{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}{}",
                    fraction(*us, fsp)
                ),
                other => return Err(format!("DATETIME column, mysql_common says {other:?}")),
            }
        }
        ColumnType::Timestamp => {
            let secs = int_of(v)?;
            utc_timestamp(secs as u64, 0, 0)
        }
        ColumnType::Timestamp2 { fsp } => {
            let s = ascii_of(v)?;
            let (secs, micros) = match s.split_once('.') {
                Some((a, b)) => (a, b),
                None => (s, "0"),
            };
            let secs: u64 = secs
                .parse()
                .map_err(|_| format!("TIMESTAMP2 from mysql_common: {s:?}"))?;
            let micros: u32 = micros
                .parse()
                .map_err(|_| format!("TIMESTAMP2 from mysql_common: {s:?}"))?;
            utc_timestamp(secs, micros, fsp)
        }
        ColumnType::VarChar { .. } | ColumnType::Blob { .. } => {
            text_of_bytes(bytes_of(v)?, col.collation, None)?
        }
        ColumnType::Char { max_len } => {
            text_of_bytes(bytes_of(v)?, col.collation, Some(max_len as usize))?
        }
        ColumnType::Enum { .. } => enum_text(int_of(v)? as u64, col)?,
        ColumnType::Set { .. } => set_text(uint_le(bytes_of(v)?), col)?,
        ColumnType::Bit { .. } | ColumnType::Geometry { .. } | ColumnType::Vector { .. } => {
            hex(bytes_of(v)?)
        }
        ColumnType::Json { .. } | ColumnType::Null => {
            return Err(format!(
                "{:?} column, mysql_common says {v:?}",
                col.column_type
            ))
        }
    };
    Ok(Expected::Text(t))
}

/// A binary JSON value (as mysql_common reads it) as a `J` tree.
pub fn jsonb_tree(v: &jsonb::Value<'_>) -> Result<J, String> {
    let err = |e: std::io::Error| format!("mysql_common JSON: {e}");
    Ok(match v {
        jsonb::Value::Null => J::Null,
        jsonb::Value::Bool(b) => J::Bool(*b),
        jsonb::Value::I16(x) => J::Int(*x as i128),
        jsonb::Value::U16(x) => J::Int(*x as i128),
        jsonb::Value::I32(x) => J::Int(*x as i128),
        jsonb::Value::U32(x) => J::Int(*x as i128),
        jsonb::Value::I64(x) => J::Int(*x as i128),
        jsonb::Value::U64(x) => J::Int(*x as i128),
        jsonb::Value::F64(x) => J::Double(*x),
        jsonb::Value::String(s) => J::Str(
            std::str::from_utf8(s.str_raw())
                .map_err(|e| format!("JSON string: {e}"))?
                .to_string(),
        ),
        jsonb::Value::SmallArray(a) => J::Arr(
            a.iter()
                .map(|x| jsonb_tree(&x.map_err(err)?))
                .collect::<Result<_, _>>()?,
        ),
        jsonb::Value::LargeArray(a) => J::Arr(
            a.iter()
                .map(|x| jsonb_tree(&x.map_err(err)?))
                .collect::<Result<_, _>>()?,
        ),
        jsonb::Value::SmallObject(o) => J::Obj(
            o.iter()
                .map(|x| {
                    let (k, v) = x.map_err(err)?;
                    Ok((k.value().into_owned(), jsonb_tree(&v)?))
                })
                .collect::<Result<_, String>>()?,
        ),
        jsonb::Value::LargeObject(o) => J::Obj(
            o.iter()
                .map(|x| {
                    let (k, v) = x.map_err(err)?;
                    Ok((k.value().into_owned(), jsonb_tree(&v)?))
                })
                .collect::<Result<_, String>>()?,
        ),
        jsonb::Value::Opaque(o) => match jsonb::Value::Opaque(o.clone()).parse().map_err(err)? {
            JsonDom::Scalar(JsonScalar::Number(JsonNumber::Decimal(d))) => {
                J::Decimal(d.to_string())
            }
            // DATE prints without a time; TIME, DATETIME, TIMESTAMP with 6 digits.
            JsonDom::Scalar(JsonScalar::DateTime(t)) => J::Str(format!("{t:.6}")),
            JsonDom::Scalar(JsonScalar::Opaque(x)) => J::Str(x.to_string()),
            other => return Err(format!("opaque JSON value parsed as {other:?}")),
        },
    })
}

/// The text of a partial JSON update without its before value, built from
/// mysql_common's diffs the way `mysqlbinlog -v` prints them: one call per
/// run of diffs of the same function, the first run innermost, applied to
/// `column`. Scalar values only (arrays and objects are an error here).
pub fn diff_expression(
    diffs: &[mysql_common::binlog::jsondiff::JsonDiff<'_>],
    column: &str,
) -> Result<String, String> {
    let function = |d: &mysql_common::binlog::jsondiff::JsonDiff<'_>| match d.operation() {
        JsonDiffOperation::REPLACE => "JSON_REPLACE",
        JsonDiffOperation::INSERT if d.path_str().ends_with(']') => "JSON_ARRAY_INSERT",
        JsonDiffOperation::INSERT => "JSON_INSERT",
        JsonDiffOperation::REMOVE => "JSON_REMOVE",
    };
    let mut out = String::new();
    for i in (0..diffs.len()).rev() {
        if i == 0 || function(&diffs[i - 1]) != function(&diffs[i]) {
            out.push_str(function(&diffs[i]));
            out.push('(');
        }
    }
    out.push_str(column);
    for (i, d) in diffs.iter().enumerate() {
        out.push_str(&format!(", '{}'", d.path_str()));
        if let Some(v) = d.value() {
            out.push_str(", ");
            match jsonb_tree(v)? {
                J::Null => out.push_str("null"),
                J::Bool(b) => out.push_str(&b.to_string()),
                J::Int(n) => out.push_str(&n.to_string()),
                J::Decimal(t) => out.push_str(&t),
                J::Str(t) => out.push_str(&format!("'{t}'")),
                other => return Err(format!("no expected text for diff value {other:?}")),
            }
        }
        if diffs.get(i + 1).is_none_or(|n| function(n) != function(d)) {
            out.push(')');
        }
    }
    Ok(out)
}

/// The expected text of column `col` in an image. `before` is the same
/// column's value in the row's before-image, for partial JSON updates.
pub fn expected(
    v: &BinlogValue<'_>,
    col: &ColumnDef,
    before: Option<&BinlogValue<'_>>,
) -> Result<Expected, String> {
    match v {
        BinlogValue::Value(x) => plain_text(x, col),
        BinlogValue::Jsonb(j) => Ok(Expected::Json(jsonb_tree(j)?)),
        BinlogValue::JsonDiff(diffs) => {
            let mut doc = match before {
                Some(BinlogValue::Jsonb(j)) => jsonb_tree(j)?,
                other => return Err(format!("JSON diff without a JSON before-image: {other:?}")),
            };
            for d in diffs {
                let op = match d.operation() {
                    JsonDiffOperation::REPLACE => DiffOp::Replace,
                    JsonDiffOperation::INSERT => DiffOp::Insert,
                    JsonDiffOperation::REMOVE => DiffOp::Remove,
                };
                let value = d.value().map(jsonb_tree).transpose()?;
                apply_diff(&mut doc, op, &d.path_str(), value)?;
            }
            Ok(Expected::Json(doc))
        }
    }
}
