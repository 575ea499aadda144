//! The inverse of the row decoder: row images written from typed values, and
//! a WRITE_ROWS event that owns them. Rows read another way (a `SELECT` for
//! an initial snapshot) become the same bytes a binlog would carry, so every
//! consumer renders them through the one decoder and its encoders.

use crate::column::ColumnType;
use crate::decimal::decimal_size;
use crate::event_type::RowsKind;
use crate::rows::{ExtraRowInfo, RowsEvent, STMT_END_F};
use crate::table_map::{ColumnDef, TableMap};
use crate::temporal::{Date, DateTime, Time};

/// One column's value to write, typed enough to encode for any column type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CellIn<'a> {
    Null,
    /// An integer for any integer column (an UNSIGNED one takes it when
    /// not negative); out of the column's range is an error.
    Int(i64),
    /// An integer for any integer column (a signed one takes it when it fits).
    UInt(u64),
    Float(f32),
    Double(f64),
    /// A DECIMAL as text: `-12.50`, `0`, `.5`; at most the column's scale
    /// after the point (more is an error unless the extra digits are zeros).
    Decimal(&'a str),
    /// YEAR as a year: 0 (the zero year) or 1901..=2155.
    Year(u16),
    Date(Date),
    /// TIME (its `fsp` field is ignored: the column's precision applies).
    Time(Time),
    /// DATETIME (its `fsp` field is ignored).
    DateTime(DateTime),
    /// TIMESTAMP: seconds since the epoch (UTC) and microseconds.
    Timestamp {
        seconds: u32,
        micros: u32,
    },
    /// Character and binary strings, BLOB/TEXT, GEOMETRY (SRID + WKB), VECTOR.
    Bytes(&'a [u8]),
    /// ENUM index (1-based; 0 is the empty error value).
    Enum(u16),
    /// SET bitmap.
    Set(u64),
    /// BIT(n) value as a number (n <= 64).
    Bit(u64),
    /// A MySQL JSON column's value as JSON text (what a `SELECT` prints),
    /// written as the binary JSON MySQL stores for it.
    Json(&'a str),
}

/// A value that cannot be written for its column: which column and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column} of {table}: {message}")]
pub struct WriteError {
    /// `` `name` `` when the table map names the column, else `#index`.
    pub column: String,
    /// The column's index, when the error concerns one column.
    pub index: Option<usize>,
    /// `schema.table`.
    pub table: String,
    pub message: String,
}

/// Bitmap of a rows event with every column present: enough for the most
/// columns either server allows in a table (4096).
static ALL_PRESENT: [u8; 1024] = [0xff; 1024];

impl RowsEvent<'static> {
    /// A WRITE_ROWS event that owns its row images (`rows_data`, one image
    /// after another as [`write_row_image`] appends them): every column
    /// present, no extra row info, flag STMT_END_F. [`RowsEvent::rows`]
    /// decodes it like one read from a binlog.
    pub fn synthetic_write(
        table: std::sync::Arc<TableMap>,
        rows_data: Vec<u8>,
    ) -> Result<RowsEvent<'static>, WriteError> {
        let column_count = table.columns.len();
        let present = ALL_PRESENT
            .get(..column_count.div_ceil(8))
            .ok_or_else(|| WriteError {
                column: format!("#{column_count}"),
                index: None,
                table: format!("{}.{}", table.schema, table.table),
                message: format!(
                    "{column_count} columns: a rows event here holds at most {}",
                    ALL_PRESENT.len() * 8
                ),
            })?;
        Ok(RowsEvent::from_parts(
            RowsKind::Write,
            table.table_id,
            STMT_END_F,
            ExtraRowInfo::default(),
            table,
            present,
            present,
            std::borrow::Cow::Owned(rows_data),
        ))
    }
}

/// Appends one full row image of `table` (null bitmap, then each non-NULL
/// value in its binlog encoding) to `out`. `values` has one entry per
/// column. On error `out` is left as it was.
pub fn write_row_image(
    table: &TableMap,
    values: &[CellIn<'_>],
    out: &mut Vec<u8>,
) -> Result<(), WriteError> {
    if values.len() != table.columns.len() {
        return Err(count_error(table, values.len()));
    }
    let mut w = RowImageWriter::new(table, out);
    for v in values {
        w.push(v)?;
    }
    w.finish()
}

fn count_error(table: &TableMap, given: usize) -> WriteError {
    WriteError {
        column: "-".into(),
        index: None,
        table: format!("{}.{}", table.schema, table.table),
        message: format!(
            "{given} values for a table of {} columns",
            table.columns.len()
        ),
    }
}

/// Writes one full row image value by value, as [`write_row_image`] does,
/// for callers that make each value as they go (no slice of the row's
/// values needed). Unless [`RowImageWriter::finish`] succeeds, dropping it
/// takes the partial image out of `out` again.
pub struct RowImageWriter<'t, 'o> {
    table: &'t TableMap,
    out: &'o mut Vec<u8>,
    /// Where the image (its null bitmap) starts in `out`.
    start: usize,
    /// The column the next value is for.
    next: usize,
    finished: bool,
}

impl<'t, 'o> RowImageWriter<'t, 'o> {
    /// Starts the image of a row of `table` at the end of `out`.
    pub fn new(table: &'t TableMap, out: &'o mut Vec<u8>) -> Self {
        let columns = table.columns.len();
        let start = out.len();
        out.resize(start + columns.div_ceil(8), 0);
        // The bits past the last column are set, as the servers' `pack_row`
        // leaves them: the image is then byte for byte the server's.
        if !columns.is_multiple_of(8) {
            if let Some(last) = out.last_mut() {
                *last = 0xff << (columns % 8);
            }
        }
        RowImageWriter {
            table,
            out,
            start,
            next: 0,
            finished: false,
        }
    }

    /// Writes the value of the next column.
    pub fn push(&mut self, v: &CellIn<'_>) -> Result<(), WriteError> {
        let i = self.next;
        let Some(col) = self.table.columns.get(i) else {
            return Err(count_error(self.table, i + 1));
        };
        let value_at = self.out.len();
        let r = match v {
            CellIn::Null => {
                if !col.nullable {
                    Err("NULL for a NOT NULL column".to_string())
                } else {
                    self.out[self.start + i / 8] |= 1 << (i % 8);
                    Ok(())
                }
            }
            v => write_value(col, v, self.out),
        };
        if let Err(message) = r {
            self.out.truncate(value_at);
            let column = match &col.name {
                Some(n) => format!("`{n}`"),
                None => format!("#{i}"),
            };
            return Err(WriteError {
                column,
                index: Some(i),
                table: format!("{}.{}", self.table.schema, self.table.table),
                message,
            });
        }
        self.next += 1;
        Ok(())
    }

    /// Ends the image: every column must have its value.
    pub fn finish(mut self) -> Result<(), WriteError> {
        if self.next != self.table.columns.len() {
            return Err(count_error(self.table, self.next));
        }
        self.finished = true;
        Ok(())
    }
}

impl Drop for RowImageWriter<'_, '_> {
    fn drop(&mut self) {
        if !self.finished {
            self.out.truncate(self.start);
        }
    }
}

type W = Result<(), String>;

fn write_value(col: &ColumnDef, v: &CellIn<'_>, out: &mut Vec<u8>) -> W {
    let t = col.column_type;
    let mismatch = || Err(format!("{v:?} cannot be written as {t:?}"));
    match t {
        ColumnType::Tiny => int(col, v, 1, out),
        ColumnType::Short => int(col, v, 2, out),
        ColumnType::Int24 => int(col, v, 3, out),
        ColumnType::Long => int(col, v, 4, out),
        ColumnType::LongLong => int(col, v, 8, out),
        ColumnType::Float => match v {
            CellIn::Float(f) => {
                out.extend_from_slice(&f.to_le_bytes());
                Ok(())
            }
            _ => mismatch(),
        },
        ColumnType::Double => match v {
            CellIn::Double(f) => {
                out.extend_from_slice(&f.to_le_bytes());
                Ok(())
            }
            _ => mismatch(),
        },
        ColumnType::NewDecimal { precision, scale } => match v {
            CellIn::Decimal(s) => decimal(s, precision, scale, out),
            _ => mismatch(),
        },
        ColumnType::Year => match v {
            CellIn::Year(0) => {
                out.push(0);
                Ok(())
            }
            CellIn::Year(y @ 1901..=2155) => {
                out.push((y - 1900) as u8);
                Ok(())
            }
            CellIn::Year(y) => Err(format!("year {y} (a YEAR is 0 or 1901-2155)")),
            _ => mismatch(),
        },
        ColumnType::Date => match v {
            CellIn::Date(d) => {
                check_date(d)?;
                let p = d.day as u32 | (d.month as u32) << 5 | (d.year as u32) << 9;
                out.extend_from_slice(&p.to_le_bytes()[..3]);
                Ok(())
            }
            _ => mismatch(),
        },
        ColumnType::Time => match v {
            CellIn::Time(tm) => {
                check_time(tm, 0)?;
                let a = tm.hours as i64 * 10000 + tm.minutes as i64 * 100 + tm.seconds as i64;
                let n = if tm.negative { -a } else { a };
                out.extend_from_slice(&(n as i32).to_le_bytes()[..3]);
                Ok(())
            }
            _ => mismatch(),
        },
        ColumnType::Time2 { fsp } => match v {
            CellIn::Time(tm) => {
                check_time(tm, fsp)?;
                time2(tm, fsp, out);
                Ok(())
            }
            _ => mismatch(),
        },
        ColumnType::DateTime => match v {
            CellIn::DateTime(dt) => {
                check_datetime(dt, 0)?;
                let d = &dt.date;
                let n = (d.year as u64 * 10000 + d.month as u64 * 100 + d.day as u64) * 1_000_000
                    + dt.hour as u64 * 10000
                    + dt.minute as u64 * 100
                    + dt.second as u64;
                out.extend_from_slice(&n.to_le_bytes());
                Ok(())
            }
            _ => mismatch(),
        },
        ColumnType::DateTime2 { fsp } => match v {
            CellIn::DateTime(dt) => {
                check_datetime(dt, fsp)?;
                let d = &dt.date;
                let ymd = ((d.year as u64 * 13 + d.month as u64) << 5) | d.day as u64;
                let hms = (dt.hour as u64) << 12 | (dt.minute as u64) << 6 | dt.second as u64;
                let int = ((ymd << 17) | hms) + 0x80_0000_0000;
                out.extend_from_slice(&int.to_be_bytes()[3..]);
                fraction(dt.micros, fsp, out);
                Ok(())
            }
            _ => mismatch(),
        },
        ColumnType::Timestamp => match v {
            CellIn::Timestamp { seconds, micros } => {
                check_micros(*micros, 0)?;
                out.extend_from_slice(&seconds.to_le_bytes());
                Ok(())
            }
            _ => mismatch(),
        },
        ColumnType::Timestamp2 { fsp } => match v {
            CellIn::Timestamp { seconds, micros } => {
                check_micros(*micros, fsp)?;
                out.extend_from_slice(&seconds.to_be_bytes());
                fraction(*micros, fsp, out);
                Ok(())
            }
            _ => mismatch(),
        },
        ColumnType::VarChar { max_len } | ColumnType::Char { max_len } => match v {
            CellIn::Bytes(b) => {
                if b.len() > max_len as usize {
                    return Err(format!(
                        "{} bytes for a column of at most {max_len}",
                        b.len()
                    ));
                }
                prefixed(b, if max_len > 255 { 2 } else { 1 }, out)
            }
            _ => mismatch(),
        },
        ColumnType::Blob { len_bytes }
        | ColumnType::Geometry { len_bytes }
        | ColumnType::Vector { len_bytes } => match v {
            CellIn::Bytes(b) => prefixed(b, len_bytes as usize, out),
            _ => mismatch(),
        },
        ColumnType::Json { len_bytes } => match v {
            CellIn::Json(text) => json(text, len_bytes as usize, out),
            _ => mismatch(),
        },
        ColumnType::Enum { pack_len } => match v {
            CellIn::Enum(i) => {
                if pack_len == 1 && *i > 255 {
                    return Err(format!("ENUM index {i} in a 1-byte ENUM"));
                }
                out.extend_from_slice(&i.to_le_bytes()[..pack_len as usize]);
                Ok(())
            }
            _ => mismatch(),
        },
        ColumnType::Set { pack_len } => match v {
            CellIn::Set(bits) => {
                let n = pack_len as usize;
                if n < 8 && bits >> (8 * n) != 0 {
                    return Err(format!("SET bitmap {bits:#x} in a {n}-byte SET"));
                }
                out.extend_from_slice(&bits.to_le_bytes()[..n]);
                Ok(())
            }
            _ => mismatch(),
        },
        ColumnType::Bit { bits } => match v {
            CellIn::Bit(x) => {
                if bits < 64 && x >> bits != 0 {
                    return Err(format!("{x:#x} does not fit BIT({bits})"));
                }
                let n = (bits as usize).div_ceil(8);
                out.extend_from_slice(&x.to_be_bytes()[8 - n..]);
                Ok(())
            }
            _ => mismatch(),
        },
        ColumnType::Null => Err("a MYSQL_TYPE_NULL column holds only NULL".into()),
    }
}

fn int(col: &ColumnDef, v: &CellIn<'_>, bytes: usize, out: &mut Vec<u8>) -> W {
    let bits = 8 * bytes as u32;
    let unsigned = col.unsigned == Some(true);
    let raw: u64 = match (*v, unsigned) {
        (CellIn::UInt(x), true) => {
            if bits < 64 && x >> bits != 0 {
                return Err(format!(
                    "{x} out of range for a {bits}-bit unsigned integer"
                ));
            }
            x
        }
        (CellIn::Int(x), true) if x >= 0 => return int(col, &CellIn::UInt(x as u64), bytes, out),
        (CellIn::Int(x), false) => {
            let (lo, hi) = if bits == 64 {
                (i64::MIN, i64::MAX)
            } else {
                (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
            };
            if x < lo || x > hi {
                return Err(format!("{x} out of range for a {bits}-bit signed integer"));
            }
            x as u64
        }
        (CellIn::UInt(x), false) if x <= i64::MAX as u64 => {
            return int(col, &CellIn::Int(x as i64), bytes, out)
        }
        _ => {
            return Err(format!(
                "{v:?} cannot be written as a {} {bits}-bit integer",
                if unsigned { "unsigned" } else { "signed" }
            ))
        }
    };
    out.extend_from_slice(&raw.to_le_bytes()[..bytes]);
    Ok(())
}

fn prefixed(b: &[u8], len_bytes: usize, out: &mut Vec<u8>) -> W {
    if len_bytes < 8 && (b.len() as u64) >> (8 * len_bytes) != 0 {
        return Err(format!(
            "{} bytes do not fit a {len_bytes}-byte length",
            b.len()
        ));
    }
    out.extend_from_slice(&(b.len() as u64).to_le_bytes()[..len_bytes]);
    out.extend_from_slice(b);
    Ok(())
}

/// The binary JSON of `text` after its length (`len_bytes` bytes).
fn json(text: &str, len_bytes: usize, out: &mut Vec<u8>) -> W {
    if !(1..=4).contains(&len_bytes) {
        return Err(format!("a JSON column with a {len_bytes}-byte length"));
    }
    let at = out.len();
    out.resize(at + len_bytes, 0);
    if let Err(e) = crate::json_write::encode_json(text, out) {
        out.truncate(at);
        return Err(e.to_string());
    }
    let len = (out.len() - at - len_bytes) as u64;
    if len >> (8 * len_bytes) != 0 {
        out.truncate(at);
        return Err(format!(
            "{len} bytes of binary JSON do not fit a {len_bytes}-byte length"
        ));
    }
    out[at..at + len_bytes].copy_from_slice(&len.to_le_bytes()[..len_bytes]);
    Ok(())
}

fn check_micros(micros: u32, fsp: u8) -> W {
    let unit = 10u32.pow(6 - fsp.min(6) as u32);
    if micros >= 1_000_000 || !micros.is_multiple_of(unit) {
        return Err(format!(
            "{micros} microseconds do not fit {fsp} fractional digits"
        ));
    }
    Ok(())
}

fn check_date(d: &Date) -> W {
    if d.year > 9999 || d.month > 12 || d.day > 31 {
        return Err(format!(
            "date {}-{}-{} out of range",
            d.year, d.month, d.day
        ));
    }
    Ok(())
}

fn check_time(t: &Time, fsp: u8) -> W {
    // TIME2 keeps 10 bits of hours; MySQL's range is up to 838.
    if t.hours > 1023 || t.minutes > 59 || t.seconds > 59 {
        return Err(format!(
            "time {}:{}:{} out of range",
            t.hours, t.minutes, t.seconds
        ));
    }
    check_micros(t.micros, fsp)
}

fn check_datetime(dt: &DateTime, fsp: u8) -> W {
    check_date(&dt.date)?;
    if dt.hour > 23 || dt.minute > 59 || dt.second > 59 {
        return Err(format!(
            "time of day {}:{}:{} out of range",
            dt.hour, dt.minute, dt.second
        ));
    }
    check_micros(dt.micros, fsp)
}

/// Fractional seconds of DATETIME2/TIMESTAMP2 (unsigned), big-endian.
fn fraction(micros: u32, fsp: u8, out: &mut Vec<u8>) {
    match fsp {
        1 | 2 => out.push((micros / 10_000) as u8),
        3 | 4 => out.extend_from_slice(&((micros / 100) as u16).to_be_bytes()),
        5 | 6 => out.extend_from_slice(&micros.to_be_bytes()[1..]),
        _ => {}
    }
}

/// TIME2 as MySQL's `my_time_packed_to_binary`: the packed value is
/// `(hms << 24) + micros`, negated for negative times; its integer part is
/// taken with an arithmetic shift (floor) and the fraction with a
/// truncating remainder, stored as a signed byte or 16-bit word.
fn time2(t: &Time, fsp: u8, out: &mut Vec<u8>) {
    let hms = (t.hours as i64) << 12 | (t.minutes as i64) << 6 | t.seconds as i64;
    let mut packed = (hms << 24) + t.micros as i64;
    if t.negative {
        packed = -packed;
    }
    let int_part = packed >> 24;
    let frac_part = packed % (1 << 24);
    let int_bytes = |out: &mut Vec<u8>| {
        out.extend_from_slice(&((int_part + 0x80_0000) as u32).to_be_bytes()[1..]);
    };
    match fsp {
        1 | 2 => {
            int_bytes(out);
            out.push((frac_part / 10_000) as i8 as u8);
        }
        3 | 4 => {
            int_bytes(out);
            out.extend_from_slice(&((frac_part / 100) as i16).to_be_bytes());
        }
        5 | 6 => out.extend_from_slice(&((packed + 0x8000_0000_0000) as u64).to_be_bytes()[2..]),
        _ => int_bytes(out),
    }
}

const DIG2BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];

/// DECIMAL text to MySQL's binary format (the inverse of `Decimal::render`):
/// groups of nine digits in four bytes, big-endian, the partial leading
/// group of the integer part and trailing group of the fraction in fewer;
/// the top bit flipped, and every byte inverted for negative values.
fn decimal(text: &str, precision: u8, scale: u8, out: &mut Vec<u8>) -> W {
    let bad = |why: &str| {
        Err(format!(
            "DECIMAL({precision},{scale}) value {text:?}: {why}"
        ))
    };
    let bytes = text.as_bytes();
    let (neg, body) = match bytes.first() {
        Some(b'-') => (true, &bytes[1..]),
        Some(b'+') => (false, &bytes[1..]),
        _ => (false, bytes),
    };
    let (int_s, frac_s) = match body.iter().position(|&b| b == b'.') {
        Some(p) => (&body[..p], &body[p + 1..]),
        None => (body, &[][..]),
    };
    if (int_s.is_empty() && frac_s.is_empty())
        || !int_s.iter().all(u8::is_ascii_digit)
        || !frac_s.iter().all(u8::is_ascii_digit)
    {
        return bad("not a decimal number");
    }
    let zeros = int_s.iter().take_while(|&&b| b == b'0').count();
    let int_s = &int_s[zeros..];
    let intg = precision.saturating_sub(scale) as usize;
    let scale = scale as usize;
    if int_s.len() > intg {
        return bad("too many integer digits");
    }
    let (frac_keep, frac_extra) = frac_s.split_at(frac_s.len().min(scale));
    if frac_extra.iter().any(|&b| b != b'0') {
        return bad("too many fraction digits");
    }
    // Digit `k` of the intg + scale digits: the integer part right-aligned
    // to intg, the fraction left-aligned to scale.
    let int_pad = intg - int_s.len();
    let digit = |k: usize| -> u32 {
        let d = if k < intg {
            k.checked_sub(int_pad).map_or(b'0', |j| int_s[j])
        } else {
            frac_keep.get(k - intg).copied().unwrap_or(b'0')
        };
        (d - b'0') as u32
    };
    let at = out.len();
    let mut push_group = |from: usize, n: usize| {
        let v = (from..from + n).fold(0u32, |a, k| a * 10 + digit(k));
        out.extend_from_slice(&v.to_be_bytes()[4 - DIG2BYTES[n]..]);
    };
    let lead = intg % 9;
    push_group(0, lead);
    for g in (lead..intg).step_by(9) {
        push_group(g, 9);
    }
    for g in (0..scale).step_by(9) {
        push_group(intg + g, (scale - g).min(9));
    }
    let zero = int_s.is_empty() && frac_keep.iter().all(|&b| b == b'0');
    let image = &mut out[at..];
    if neg && !zero {
        for b in image.iter_mut() {
            *b = !*b;
        }
    }
    if let Some(b) = image.first_mut() {
        *b ^= 0x80;
    }
    debug_assert_eq!(image.len(), decimal_size(precision, scale as u8));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::code;
    use crate::value::{Cell, Value};
    use std::sync::Arc;

    fn col(name: &str, type_code: u8, t: ColumnType, unsigned: bool) -> ColumnDef {
        ColumnDef {
            type_code,
            column_type: t,
            nullable: true,
            unsigned: Some(unsigned),
            collation: None,
            name: Some(name.into()),
            labels: None,
            geometry_type: None,
            primary_key_prefix: None,
            visible: None,
        }
    }

    fn table(columns: Vec<ColumnDef>) -> Arc<TableMap> {
        Arc::new(TableMap {
            table_id: 7,
            flags: 1,
            schema: "d".into(),
            table: "t".into(),
            columns,
            has_optional_metadata: true,
        })
    }

    /// Writes the rows, decodes them through a synthetic event, and returns
    /// each row's decoded values.
    fn round_trip(t: &Arc<TableMap>, rows: &[Vec<CellIn<'_>>]) -> Vec<Vec<Value<'static>>> {
        let mut data = Vec::new();
        for r in rows {
            write_row_image(t, r, &mut data).unwrap();
        }
        let ev = RowsEvent::synthetic_write(t.clone(), data).unwrap();
        assert!(ev.is_statement_end());
        assert_eq!(ev.kind, RowsKind::Write);
        let mut out = Vec::new();
        for row in ev.rows() {
            let row = row.unwrap();
            assert!(row.before.is_none());
            let img = row.after.unwrap();
            assert!(img.is_full());
            let vals: Vec<Value<'static>> = img
                .cells()
                .map(|c| match c.unwrap() {
                    Cell::Present(v) => own(v),
                    Cell::Absent => panic!("absent cell"),
                })
                .collect();
            out.push(vals);
        }
        assert_eq!(out.len(), rows.len());
        out
    }

    /// A `'static` copy of a decoded value (leaks; tests only).
    fn own(v: Value<'_>) -> Value<'static> {
        let leak = |b: &[u8]| -> &'static [u8] { Box::leak(b.to_vec().into_boxed_slice()) };
        match v {
            Value::Bytes(b) => Value::Bytes(leak(b)),
            Value::Bit(b) => Value::Bit(leak(b)),
            Value::Geometry(b) => Value::Geometry(leak(b)),
            Value::Decimal(d) => Value::Decimal(crate::decimal::Decimal {
                bytes: leak(d.bytes),
                ..d
            }),
            Value::Null => Value::Null,
            Value::Int(x) => Value::Int(x),
            Value::UInt(x) => Value::UInt(x),
            Value::Float(x) => Value::Float(x),
            Value::Double(x) => Value::Double(x),
            Value::Year(x) => Value::Year(x),
            Value::Date(x) => Value::Date(x),
            Value::Time(x) => Value::Time(x),
            Value::DateTime(x) => Value::DateTime(x),
            Value::Timestamp(x) => Value::Timestamp(x),
            Value::Enum(x) => Value::Enum(x),
            Value::Set(x) => Value::Set(x),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn integers_at_their_limits() {
        let t = table(vec![
            col("a", code::TINY, ColumnType::Tiny, false),
            col("b", code::TINY, ColumnType::Tiny, true),
            col("c", code::SHORT, ColumnType::Short, false),
            col("d", code::INT24, ColumnType::Int24, false),
            col("e", code::INT24, ColumnType::Int24, true),
            col("f", code::LONG, ColumnType::Long, false),
            col("g", code::LONGLONG, ColumnType::LongLong, false),
            col("h", code::LONGLONG, ColumnType::LongLong, true),
        ]);
        let rows = vec![
            vec![
                CellIn::Int(-128),
                CellIn::UInt(255),
                CellIn::Int(-32768),
                CellIn::Int(-8388608),
                CellIn::UInt(16777215),
                CellIn::Int(i32::MIN as i64),
                CellIn::Int(i64::MIN),
                CellIn::UInt(u64::MAX),
            ],
            vec![
                CellIn::Int(127),
                CellIn::Int(0),
                CellIn::Int(32767),
                CellIn::Int(8388607),
                CellIn::Null,
                CellIn::Int(i32::MAX as i64),
                CellIn::Int(i64::MAX),
                CellIn::UInt(0),
            ],
        ];
        let got = round_trip(&t, &rows);
        use Value::*;
        assert_eq!(
            got[0],
            vec![
                Int(-128),
                UInt(255),
                Int(-32768),
                Int(-8388608),
                UInt(16777215),
                Int(-2147483648),
                Int(i64::MIN),
                UInt(u64::MAX)
            ]
        );
        assert_eq!(
            got[1],
            vec![
                Int(127),
                UInt(0),
                Int(32767),
                Int(8388607),
                Null,
                Int(2147483647),
                Int(i64::MAX),
                UInt(0)
            ]
        );
        let mut out = vec![];
        let e = write_row_image(
            &t,
            &[
                CellIn::Int(128),
                CellIn::Null,
                CellIn::Null,
                CellIn::Null,
                CellIn::Null,
                CellIn::Null,
                CellIn::Null,
                CellIn::Null,
            ],
            &mut out,
        )
        .unwrap_err();
        assert_eq!(e.column, "`a`");
        assert!(e.message.contains("out of range"), "{e}");
        assert!(out.is_empty(), "a failed row leaves nothing behind");
    }

    #[test]
    fn row_writer_writes_what_write_row_image_writes_and_undoes_a_partial_row() {
        let t = table(vec![
            col("a", code::LONG, ColumnType::Long, false),
            col(
                "b",
                code::VARCHAR,
                ColumnType::VarChar { max_len: 10 },
                false,
            ),
        ]);
        let row = [CellIn::Int(-7), CellIn::Bytes(b"hi")];
        let mut whole = vec![9];
        write_row_image(&t, &row, &mut whole).unwrap();
        let mut by_value = vec![9];
        let mut w = RowImageWriter::new(&t, &mut by_value);
        for v in &row {
            w.push(v).unwrap();
        }
        assert!(
            w.push(&CellIn::Null).is_err(),
            "a value past the last column"
        );
        w.finish().unwrap();
        assert_eq!(by_value, whole);
        // Dropped before its end, or ended short: the row is taken out.
        let mut out = vec![9];
        let mut w = RowImageWriter::new(&t, &mut out);
        w.push(&CellIn::Int(1)).unwrap();
        drop(w);
        assert_eq!(out, [9]);
        let mut w = RowImageWriter::new(&t, &mut out);
        w.push(&CellIn::Int(1)).unwrap();
        assert!(w.finish().unwrap_err().message.contains("1 values"));
        assert_eq!(out, [9]);
        // A value that does not fit leaves nothing of itself.
        let mut w = RowImageWriter::new(&t, &mut out);
        w.push(&CellIn::Int(1)).unwrap();
        let e = w.push(&CellIn::Bytes(b"far too long")).unwrap_err();
        assert_eq!((e.index, e.column.as_str()), (Some(1), "`b`"));
        drop(w);
        assert_eq!(out, [9]);
    }

    #[test]
    fn random_decimals_round_trip_through_the_binary_format() {
        // Every precision and scale, random digits (leading zeros, zero
        // groups and negative zeros included): rendering the bytes gives
        // back the canonical text.
        let mut seed: u64 = 7;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % n
        };
        for p in 1..=65u8 {
            for s in 0..=p.min(30) {
                for _ in 0..20 {
                    let intg = (p - s) as usize;
                    let digit = |next: &mut dyn FnMut(u64) -> u64| {
                        // Zeros often, to make whole zero groups.
                        let d = next(14);
                        char::from(b'0' + if d >= 10 { 0 } else { d as u8 })
                    };
                    // An empty integer part (".5") only with a fraction.
                    let int_len = (next(intg as u64 + 1) as usize).max((s == 0) as usize);
                    let int: String = (0..int_len).map(|_| digit(&mut next)).collect();
                    let frac: String = (0..s).map(|_| digit(&mut next)).collect();
                    let neg = next(2) == 1;
                    let text = format!("{}{int}.{frac}", if neg { "-" } else { "" });
                    let mut bytes = Vec::new();
                    decimal(&text, p, s, &mut bytes).unwrap();
                    let rendered = crate::decimal::Decimal {
                        precision: p,
                        scale: s,
                        bytes: &bytes,
                    }
                    .to_text()
                    .unwrap();
                    // Canonical: no leading zeros, "0" for an empty integer
                    // part, no point without a scale, no sign on zero.
                    let trimmed = int.trim_start_matches('0');
                    let int_part = if trimmed.is_empty() { "0" } else { trimmed };
                    let zero = trimmed.is_empty() && frac.bytes().all(|b| b == b'0');
                    let want = format!(
                        "{}{int_part}{}{frac}",
                        if neg && !zero { "-" } else { "" },
                        if s > 0 { "." } else { "" }
                    );
                    assert_eq!(rendered, want, "DECIMAL({p},{s}) {text}");
                }
            }
        }
    }

    #[test]
    fn decimals_round_trip_as_text() {
        let cases: &[(u8, u8, &str, &str)] = &[
            (10, 2, "12345678.90", "12345678.90"),
            (10, 2, "-0.05", "-0.05"),
            (10, 2, "-0.00", "0.00"),
            (10, 2, "0", "0.00"),
            (10, 2, ".5", "0.50"),
            (10, 2, "1.500", "1.50"),
            (5, 0, "-99999", "-99999"),
            (18, 9, "123456789.123456789", "123456789.123456789"),
            (
                65,
                30,
                "-99999999999999999999999999999999999.999999999999999999999999999999",
                "-99999999999999999999999999999999999.999999999999999999999999999999",
            ),
            (
                65,
                30,
                "0.000000000000000000000000000001",
                "0.000000000000000000000000000001",
            ),
            (14, 4, "1234567890.1234", "1234567890.1234"),
            (
                30,
                30,
                "-0.123456789012345678901234567890",
                "-0.123456789012345678901234567890",
            ),
        ];
        for &(p, s, input, want) in cases {
            let t = table(vec![col(
                "x",
                code::NEWDECIMAL,
                ColumnType::NewDecimal {
                    precision: p,
                    scale: s,
                },
                false,
            )]);
            let got = round_trip(&t, &[vec![CellIn::Decimal(input)]]);
            let Value::Decimal(d) = &got[0][0] else {
                panic!("{got:?}")
            };
            assert_eq!(d.to_text().unwrap(), want, "DECIMAL({p},{s}) {input}");
        }
        // The manual's example bytes.
        let mut out = vec![];
        decimal("1234567890.1234", 14, 4, &mut out).unwrap();
        assert_eq!(out, [0x81, 0x0D, 0xFB, 0x38, 0xD2, 0x04, 0xD2]);
        for bad in ["1e5", "", "-", "1.2.3", "123456789.1", "1.234", "abc"] {
            assert!(decimal(bad, 10, 2, &mut vec![]).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn temporal_values_at_every_precision() {
        let mut cols = vec![
            col("y", code::YEAR, ColumnType::Year, true),
            col("d", code::DATE, ColumnType::Date, false),
            col("ot", code::TIME, ColumnType::Time, false),
            col("odt", code::DATETIME, ColumnType::DateTime, false),
            col("ots", code::TIMESTAMP, ColumnType::Timestamp, false),
        ];
        for fsp in 0..=6 {
            cols.push(col("t", code::TIME2, ColumnType::Time2 { fsp }, false));
            cols.push(col(
                "dt",
                code::DATETIME2,
                ColumnType::DateTime2 { fsp },
                false,
            ));
            cols.push(col(
                "ts",
                code::TIMESTAMP2,
                ColumnType::Timestamp2 { fsp },
                false,
            ));
        }
        let t = table(cols);
        let date = |year, month, day| Date { year, month, day };
        // Times with the most digits each precision keeps, negative too.
        let unit = |fsp: u8| 10u32.pow(6 - fsp as u32);
        let cases: &[(bool, u32, u8, u8, u32)] = &[
            (false, 838, 59, 59, 999_999),
            (true, 838, 59, 59, 999_999),
            (true, 0, 0, 0, 1),
            (true, 0, 0, 1, 500_000),
            (false, 0, 0, 0, 0),
            (true, 12, 34, 56, 0),
        ];
        for &(negative, hours, minutes, seconds, micros) in cases {
            for (y, d, dt_day) in [(0u16, date(0, 0, 0), 0u8), (2155, date(9999, 12, 31), 31)] {
                let mut row = vec![
                    CellIn::Year(y),
                    CellIn::Date(d),
                    CellIn::Time(Time {
                        negative,
                        hours,
                        minutes,
                        seconds,
                        micros: 0,
                        fsp: 0,
                    }),
                    CellIn::DateTime(DateTime {
                        date: date(2024, 2, dt_day),
                        hour: 23,
                        minute: 59,
                        second: 59,
                        micros: 0,
                        fsp: 0,
                    }),
                    CellIn::Timestamp {
                        seconds: u32::MAX >> 1,
                        micros: 0,
                    },
                ];
                for fsp in 0..=6u8 {
                    let m = micros / unit(fsp) * unit(fsp);
                    row.push(CellIn::Time(Time {
                        negative,
                        hours,
                        minutes,
                        seconds,
                        micros: m,
                        fsp,
                    }));
                    row.push(CellIn::DateTime(DateTime {
                        date: d,
                        hour: 23,
                        minute: 59,
                        second: 59,
                        micros: m,
                        fsp,
                    }));
                    row.push(CellIn::Timestamp {
                        seconds: 1_700_000_000,
                        micros: m,
                    });
                }
                let got = round_trip(&t, std::slice::from_ref(&row));
                for (i, (input, v)) in row.iter().zip(&got[0]).enumerate() {
                    let fsp = match t.columns[i].column_type {
                        ColumnType::Time2 { fsp }
                        | ColumnType::DateTime2 { fsp }
                        | ColumnType::Timestamp2 { fsp } => fsp,
                        _ => 0,
                    };
                    let ok = match (input, v) {
                        (CellIn::Year(0), Value::Year(0)) => true,
                        (CellIn::Year(y), Value::Year(b)) => *y == 1900 + *b as u16,
                        (CellIn::Date(a), Value::Date(b)) => a == b,
                        (CellIn::Time(a), Value::Time(b)) => {
                            let zero =
                                a.hours == 0 && a.minutes == 0 && a.seconds == 0 && a.micros == 0;
                            // A negative zero time reads back as zero.
                            (a.negative && !zero) == b.negative
                                && (a.hours, a.minutes, a.seconds, a.micros)
                                    == (b.hours, b.minutes, b.seconds, b.micros)
                                && b.fsp == fsp
                        }
                        (CellIn::DateTime(a), Value::DateTime(b)) => {
                            (a.date, a.hour, a.minute, a.second, a.micros)
                                == (b.date, b.hour, b.minute, b.second, b.micros)
                        }
                        (CellIn::Timestamp { seconds, micros }, Value::Timestamp(b)) => {
                            (*seconds, *micros, fsp) == (b.seconds, b.micros, b.fsp)
                        }
                        _ => false,
                    };
                    assert!(
                        ok,
                        "column {i} ({:?}): wrote {input:?}, read {v:?}",
                        t.columns[i].column_type
                    );
                }
            }
        }
        // Precision the column does not keep is an error, not a rounding.
        let t = table(vec![col(
            "t",
            code::TIME2,
            ColumnType::Time2 { fsp: 1 },
            false,
        )]);
        let e = write_row_image(
            &t,
            &[CellIn::Time(Time {
                negative: false,
                hours: 1,
                minutes: 0,
                seconds: 0,
                micros: 10,
                fsp: 6,
            })],
            &mut vec![],
        )
        .unwrap_err();
        assert!(e.message.contains("fractional"), "{e}");
    }

    #[test]
    fn time2_bytes_match_the_decoder_comment() {
        // -00:00:01.5 at fsp 1 is 7f ff fe ce (see temporal.rs).
        let mut out = vec![];
        time2(
            &Time {
                negative: true,
                hours: 0,
                minutes: 0,
                seconds: 1,
                micros: 500_000,
                fsp: 1,
            },
            1,
            &mut out,
        );
        assert_eq!(out, [0x7f, 0xff, 0xfe, 0xce]);
    }

    #[test]
    fn strings_blobs_enum_set_bit_float() {
        let t = table(vec![
            col(
                "vc",
                code::VARCHAR,
                ColumnType::VarChar { max_len: 10 },
                false,
            ),
            col(
                "vl",
                code::VARCHAR,
                ColumnType::VarChar { max_len: 1200 },
                false,
            ),
            col("c", code::STRING, ColumnType::Char { max_len: 40 }, false),
            col("tb", code::BLOB, ColumnType::Blob { len_bytes: 1 }, false),
            col("b", code::BLOB, ColumnType::Blob { len_bytes: 2 }, false),
            col("mb", code::BLOB, ColumnType::Blob { len_bytes: 3 }, false),
            col("lb", code::BLOB, ColumnType::Blob { len_bytes: 4 }, false),
            col(
                "g",
                code::GEOMETRY,
                ColumnType::Geometry { len_bytes: 4 },
                false,
            ),
            col("e", code::STRING, ColumnType::Enum { pack_len: 2 }, false),
            col("s", code::STRING, ColumnType::Set { pack_len: 8 }, false),
            col("s1", code::STRING, ColumnType::Set { pack_len: 1 }, false),
            col("b1", code::BIT, ColumnType::Bit { bits: 1 }, false),
            col("b12", code::BIT, ColumnType::Bit { bits: 12 }, false),
            col("b64", code::BIT, ColumnType::Bit { bits: 64 }, false),
            col("f", code::FLOAT, ColumnType::Float, false),
            col("dd", code::DOUBLE, ColumnType::Double, false),
        ]);
        let every_byte: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
        let long = vec![b'x'; 1200];
        let row = vec![
            CellIn::Bytes(b"0123456789"),
            CellIn::Bytes(&long),
            CellIn::Bytes("😀 é".as_bytes()),
            CellIn::Bytes(&every_byte[..255]),
            CellIn::Bytes(&every_byte[..65535]),
            CellIn::Bytes(&every_byte),
            CellIn::Bytes(b""),
            CellIn::Bytes(&[0, 0, 0, 0, 1, 1, 0, 0, 0]),
            CellIn::Enum(300),
            CellIn::Set(u64::MAX),
            CellIn::Set(0x80),
            CellIn::Bit(1),
            CellIn::Bit(0xfff),
            CellIn::Bit(u64::MAX),
            CellIn::Float(-3.4e38),
            CellIn::Double(f64::MIN_POSITIVE),
        ];
        let got = round_trip(&t, std::slice::from_ref(&row));
        use Value::*;
        assert_eq!(
            got[0],
            vec![
                Bytes(b"0123456789"),
                Bytes(&long),
                Bytes("😀 é".as_bytes()),
                Bytes(&every_byte[..255]),
                Bytes(&every_byte[..65535]),
                Bytes(&every_byte),
                Bytes(b""),
                Geometry(&[0, 0, 0, 0, 1, 1, 0, 0, 0]),
                Enum(300),
                Set(u64::MAX),
                Set(0x80),
                Bit(&[1]),
                Bit(&[0x0f, 0xff]),
                Bit(&[0xff; 8]),
                Float(-3.4e38),
                Double(f64::MIN_POSITIVE),
            ]
        );
        let too_long = [0u8; 11];
        let mut bad = row.clone();
        bad[0] = CellIn::Bytes(&too_long);
        let e = write_row_image(&t, &bad, &mut vec![]).unwrap_err();
        assert_eq!(e.column, "`vc`");
        let mut bad = row.clone();
        bad[3] = CellIn::Bytes(&every_byte[..256]);
        assert!(write_row_image(&t, &bad, &mut vec![]).is_err());
        let mut bad = row.clone();
        bad[12] = CellIn::Bit(0x1000);
        assert!(write_row_image(&t, &bad, &mut vec![]).is_err());
        let mut bad = row;
        bad[10] = CellIn::Set(0x100);
        assert!(write_row_image(&t, &bad, &mut vec![]).is_err());
    }

    #[test]
    fn null_bitmap_pads_with_ones_like_the_server() {
        let cols = (0..10)
            .map(|i| col(&format!("c{i}"), code::TINY, ColumnType::Tiny, false))
            .collect();
        let t = table(cols);
        let mut row = vec![CellIn::Int(1); 10];
        row[0] = CellIn::Null;
        row[9] = CellIn::Null;
        let mut out = vec![];
        write_row_image(&t, &row, &mut out).unwrap();
        // Columns 0 and 9 NULL; bits 10-15 unused and set.
        assert_eq!(&out[..2], &[0x01, 0xfe]);
        assert_eq!(out.len(), 2 + 8);
    }

    #[test]
    fn json_from_text_and_not_null_is_kept() {
        let mut j = col("j", code::JSON, ColumnType::Json { len_bytes: 4 }, false);
        let t = table(vec![j.clone()]);
        let mut out = vec![];
        write_row_image(&t, &[CellIn::Json(r#"{"a": [1]}"#)], &mut out).unwrap();
        // Null bitmap, 4-byte length, then the binary document.
        let doc = [
            0x00, 1, 0, 19, 0, 11, 0, 1, 0, 0x02, 12, 0, b'a', 1, 0, 7, 0, 0x05, 1, 0,
        ];
        assert_eq!(out[0], 0xfe);
        assert_eq!(&out[1..5], &(doc.len() as u32).to_le_bytes());
        assert_eq!(&out[5..], &doc);
        let e = write_row_image(&t, &[CellIn::Json("{")], &mut out).unwrap_err();
        assert!(e.message.contains("invalid JSON text"), "{e}");
        let e = write_row_image(&t, &[CellIn::Bytes(b"{}")], &mut out).unwrap_err();
        assert!(e.message.contains("cannot be written"), "{e}");
        // A 1-byte length holds at most 255 bytes.
        let short = table(vec![col(
            "j",
            code::JSON,
            ColumnType::Json { len_bytes: 1 },
            true,
        )]);
        let long = format!("\"{}\"", "x".repeat(300));
        let e = write_row_image(&short, &[CellIn::Json(&long)], &mut out).unwrap_err();
        assert!(e.message.contains("do not fit a 1-byte length"), "{e}");
        assert_eq!(out.len(), 5 + doc.len(), "nothing written on error");
        j.column_type = ColumnType::Long;
        j.nullable = false;
        let t = table(vec![j]);
        assert!(write_row_image(&t, &[CellIn::Null], &mut vec![]).is_err());
        assert!(write_row_image(&t, &[], &mut vec![]).is_err());
    }
}
