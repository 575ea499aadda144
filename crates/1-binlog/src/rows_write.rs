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

/// Writes one non-NULL value in the column's binary format.
fn write_value(col: &ColumnDef, v: &CellIn<'_>, out: &mut Vec<u8>) -> W {
    let t = col.column_type;
    match t {
        ColumnType::Tiny => int(col, v, 1, out),
        ColumnType::Short => int(col, v, 2, out),
        ColumnType::Int24 => int(col, v, 3, out),
        ColumnType::Long => int(col, v, 4, out),
        ColumnType::LongLong => int(col, v, 8, out),
        ColumnType::Float
        | ColumnType::Double
        | ColumnType::NewDecimal { .. }
        | ColumnType::Year => write_number(t, v, out),
        ColumnType::Date
        | ColumnType::Time
        | ColumnType::Time2 { .. }
        | ColumnType::DateTime
        | ColumnType::DateTime2 { .. }
        | ColumnType::Timestamp
        | ColumnType::Timestamp2 { .. } => write_temporal(t, v, out),
        ColumnType::VarChar { .. }
        | ColumnType::Char { .. }
        | ColumnType::Blob { .. }
        | ColumnType::Geometry { .. }
        | ColumnType::Vector { .. }
        | ColumnType::Json { .. }
        | ColumnType::Enum { .. }
        | ColumnType::Set { .. }
        | ColumnType::Bit { .. } => write_other(t, v, out),
        ColumnType::Null => Err("a MYSQL_TYPE_NULL column holds only NULL".into()),
    }
}

/// The error for a value of the wrong kind for its column.
fn mismatch(t: ColumnType, v: &CellIn<'_>) -> W {
    Err(format!("{v:?} cannot be written as {t:?}"))
}

/// FLOAT, DOUBLE, DECIMAL and YEAR.
#[inline]
fn write_number(t: ColumnType, v: &CellIn<'_>, out: &mut Vec<u8>) -> W {
    match t {
        ColumnType::Float => match v {
            CellIn::Float(f) => {
                out.extend_from_slice(&f.to_le_bytes());
                Ok(())
            }
            _ => mismatch(t, v),
        },
        ColumnType::Double => match v {
            CellIn::Double(f) => {
                out.extend_from_slice(&f.to_le_bytes());
                Ok(())
            }
            _ => mismatch(t, v),
        },
        ColumnType::NewDecimal { precision, scale } => match v {
            CellIn::Decimal(s) => decimal(s, precision, scale, out),
            _ => mismatch(t, v),
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
            _ => mismatch(t, v),
        },
        _ => mismatch(t, v),
    }
}

/// DATE, TIME, DATETIME and TIMESTAMP, old and fractional formats.
#[inline]
fn write_temporal(t: ColumnType, v: &CellIn<'_>, out: &mut Vec<u8>) -> W {
    match t {
        ColumnType::Date => match v {
            CellIn::Date(d) => {
                check_date(d)?;
                let p = d.day as u32 | (d.month as u32) << 5 | (d.year as u32) << 9;
                out.extend_from_slice(&p.to_le_bytes()[..3]);
                Ok(())
            }
            _ => mismatch(t, v),
        },
        ColumnType::Time => match v {
            CellIn::Time(tm) => {
                check_time(tm, 0)?;
                let a = tm.hours as i64 * 10000 + tm.minutes as i64 * 100 + tm.seconds as i64;
                let n = if tm.negative { -a } else { a };
                out.extend_from_slice(&(n as i32).to_le_bytes()[..3]);
                Ok(())
            }
            _ => mismatch(t, v),
        },
        ColumnType::Time2 { fsp } => match v {
            CellIn::Time(tm) => {
                check_time(tm, fsp)?;
                time2(tm, fsp, out);
                Ok(())
            }
            _ => mismatch(t, v),
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
            _ => mismatch(t, v),
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
            _ => mismatch(t, v),
        },
        ColumnType::Timestamp => match v {
            CellIn::Timestamp { seconds, micros } => {
                check_micros(*micros, 0)?;
                out.extend_from_slice(&seconds.to_le_bytes());
                Ok(())
            }
            _ => mismatch(t, v),
        },
        ColumnType::Timestamp2 { fsp } => match v {
            CellIn::Timestamp { seconds, micros } => {
                check_micros(*micros, fsp)?;
                out.extend_from_slice(&seconds.to_be_bytes());
                fraction(*micros, fsp, out);
                Ok(())
            }
            _ => mismatch(t, v),
        },
        _ => mismatch(t, v),
    }
}

/// Strings, blobs, JSON, ENUM, SET and BIT.
#[inline]
fn write_other(t: ColumnType, v: &CellIn<'_>, out: &mut Vec<u8>) -> W {
    match t {
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
            _ => mismatch(t, v),
        },
        ColumnType::Blob { len_bytes }
        | ColumnType::Geometry { len_bytes }
        | ColumnType::Vector { len_bytes } => match v {
            CellIn::Bytes(b) => prefixed(b, len_bytes as usize, out),
            _ => mismatch(t, v),
        },
        ColumnType::Json { len_bytes } => match v {
            CellIn::Json(text) => json(text, len_bytes as usize, out),
            _ => mismatch(t, v),
        },
        ColumnType::Enum { pack_len } => match v {
            CellIn::Enum(i) => {
                if pack_len == 1 && *i > 255 {
                    return Err(format!("ENUM index {i} in a 1-byte ENUM"));
                }
                out.extend_from_slice(&i.to_le_bytes()[..pack_len as usize]);
                Ok(())
            }
            _ => mismatch(t, v),
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
            _ => mismatch(t, v),
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
            _ => mismatch(t, v),
        },
        _ => mismatch(t, v),
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
mod tests;
