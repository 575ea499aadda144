//! Column values as Canal's MySQL parser renders them for clients (its
//! `LogEventConvert` / `RowsLogBuffer` rules), which differ from a SELECT:
//! ENUM as its index, SET as its bit mask, BIT as a number, binary data as
//! ISO-8859-1 text, floats as Java's `String.valueOf`, TIMESTAMP in the
//! server's local time zone; plus the `java.sql.Types` code of each value.

use sluice_binlog::{Charset, ColumnDef, ColumnType, Value};

/// `java.sql.Types` codes Canal uses.
pub mod sql_type {
    pub const BIT: i32 = -7;
    pub const TINYINT: i32 = -6;
    pub const BIGINT: i32 = -5;
    pub const CHAR: i32 = 1;
    pub const DECIMAL: i32 = 3;
    pub const INTEGER: i32 = 4;
    pub const SMALLINT: i32 = 5;
    pub const REAL: i32 = 7;
    pub const DOUBLE: i32 = 8;
    pub const VARCHAR: i32 = 12;
    pub const DATE: i32 = 91;
    pub const TIME: i32 = 92;
    pub const TIMESTAMP: i32 = 93;
    pub const OTHER: i32 = 1111;
    pub const BLOB: i32 = 2004;
    pub const CLOB: i32 = 2005;
}

/// Whether the column holds binary data (binary collation, or declared
/// BINARY/BLOB when the collation is unknown).
fn is_binary(col: &ColumnDef, mysql_type: &str) -> bool {
    match col.charset() {
        Some(Charset::Binary) => true,
        Some(_) => false,
        None => {
            let t = mysql_type.to_ascii_lowercase();
            t.contains("binary") || t.contains("blob")
        }
    }
}

/// The `java.sql.Types` code for a NULL value (Canal's coarse type map).
pub fn null_sql_type(col: &ColumnDef, mysql_type: &str) -> i32 {
    use sql_type::*;
    match col.column_type {
        ColumnType::Tiny => TINYINT,
        ColumnType::Short => SMALLINT,
        ColumnType::Int24 | ColumnType::Long => INTEGER,
        ColumnType::LongLong => BIGINT,
        ColumnType::Float => REAL,
        ColumnType::Double => DOUBLE,
        ColumnType::NewDecimal { .. } => DECIMAL,
        ColumnType::Bit { .. } => BIT,
        ColumnType::Date => DATE,
        ColumnType::Time | ColumnType::Time2 { .. } => TIME,
        ColumnType::DateTime
        | ColumnType::DateTime2 { .. }
        | ColumnType::Timestamp
        | ColumnType::Timestamp2 { .. } => TIMESTAMP,
        ColumnType::Year => VARCHAR,
        ColumnType::Char { .. } if is_binary(col, mysql_type) => BLOB,
        ColumnType::Char { .. } => CHAR,
        ColumnType::VarChar { .. } if is_binary(col, mysql_type) => BLOB,
        ColumnType::VarChar { .. } => VARCHAR,
        ColumnType::Blob { .. } if is_binary(col, mysql_type) => BLOB,
        ColumnType::Blob { .. } => CLOB,
        ColumnType::Enum { .. } => INTEGER,
        ColumnType::Set { .. } => BLOB,
        ColumnType::Json { .. } => OTHER,
        ColumnType::Geometry { .. } | ColumnType::Vector { .. } => BLOB,
        ColumnType::Null => VARCHAR,
    }
}

/// A non-NULL value's text and `java.sql.Types` code, as Canal delivers it.
pub fn render(
    value: &Value<'_>,
    col: &ColumnDef,
    mysql_type: &str,
) -> Result<(String, i32), sluice_binlog::DecodeError> {
    use sql_type::*;
    let mut s = String::new();
    let t = match value {
        Value::Int(v) => {
            // Canal corrects negative raw values of UNSIGNED columns and
            // bumps the type to the next wider one.
            let unsigned = mysql_type.to_ascii_lowercase().contains("unsigned");
            if unsigned && *v < 0 {
                let (bits, wider) = match col.column_type {
                    ColumnType::Tiny => (8, SMALLINT),
                    ColumnType::Short => (16, INTEGER),
                    ColumnType::Int24 => (24, INTEGER),
                    ColumnType::Long => (32, BIGINT),
                    _ => (64, DECIMAL),
                };
                let corrected = if bits == 64 {
                    (*v as u64) as u128
                } else {
                    (*v as i128 + (1i128 << bits)) as u128
                };
                s = corrected.to_string();
                wider
            } else {
                s = v.to_string();
                null_sql_type(col, mysql_type)
            }
        }
        Value::UInt(v) => {
            s = v.to_string();
            let signed_max: u64 = match col.column_type {
                ColumnType::Tiny => i8::MAX as u64,
                ColumnType::Short => i16::MAX as u64,
                ColumnType::Int24 => (1 << 23) - 1,
                ColumnType::Long => i32::MAX as u64,
                _ => i64::MAX as u64,
            };
            if *v > signed_max {
                match col.column_type {
                    ColumnType::Tiny => SMALLINT,
                    ColumnType::Short | ColumnType::Int24 => INTEGER,
                    ColumnType::Long => BIGINT,
                    _ => DECIMAL,
                }
            } else {
                null_sql_type(col, mysql_type)
            }
        }
        Value::Float(v) => {
            s = java_float_string(*v as f64, true);
            REAL
        }
        Value::Double(v) => {
            s = java_float_string(*v, false);
            DOUBLE
        }
        Value::Bit(b) => {
            s = sluice_binlog::bytes::uint_be(b).to_string();
            BIT
        }
        Value::Enum(i) => {
            s = i.to_string();
            INTEGER
        }
        Value::Set(bits) => {
            s = bits.to_string();
            BIT
        }
        Value::Timestamp(ts) => {
            s = local_timestamp(ts.seconds, ts.micros, ts.fsp);
            TIMESTAMP
        }
        // Binary data: one char per byte (ISO-8859-1), as Canal's Java does.
        Value::Geometry(b) | Value::Vector(b) => {
            s = b.iter().map(|&c| c as char).collect();
            BLOB
        }
        Value::Bytes(b) if is_binary(col, mysql_type) => {
            s = b.iter().map(|&c| c as char).collect();
            BLOB
        }
        Value::Json(_) | Value::JsonText(_) => {
            value.render(col, &mut s)?;
            VARCHAR
        }
        Value::Null => return Ok((String::new(), null_sql_type(col, mysql_type))),
        other => {
            other.render(col, &mut s)?;
            null_sql_type(col, mysql_type)
        }
    };
    Ok((s, t))
}

/// Java's `Double.toString` / `Float.toString`: shortest digits; plain
/// notation with at least one fraction digit for 1e-3 <= |v| < 1e7, else
/// `d.dddE±n`.
pub fn java_float_string(v: f64, single: bool) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let sci = if single {
        format!("{:e}", v as f32)
    } else {
        format!("{v:e}")
    };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    let abs = v.abs();
    if (1e-3..1e7).contains(&abs) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', int_len - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        out.push('.');
        if digits.len() > 1 {
            out.push_str(&digits[1..]);
        } else {
            out.push('0');
        }
        out.push('E');
        out.push_str(&exp.to_string());
    }
    out
}

/// A TIMESTAMP in the process's local time zone, as Canal's JVM renders it.
pub fn local_timestamp(seconds: u32, micros: u32, fsp: u8) -> String {
    if seconds == 0 && micros == 0 {
        let mut s = String::from("0000-00-00 00:00:00");
        if fsp > 0 {
            s.push('.');
            s.extend(std::iter::repeat_n('0', fsp as usize));
        }
        return s;
    }
    let t = seconds as libc::time_t;
    extern "C" {
        // POSIX; the libc crate does not bind it.
        fn tzset();
    }
    // SAFETY: localtime_r only writes into the tm we own; tzset reads TZ.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let ok = unsafe {
        tzset();
        !libc::localtime_r(&t, &mut tm).is_null()
    };
    let (y, mo, d, h, mi, se) = if ok {
        (
            tm.tm_year as i64 + 1900,
            tm.tm_mon as u32 + 1,
            tm.tm_mday as u32,
            tm.tm_hour as u32,
            tm.tm_min as u32,
            tm.tm_sec as u32,
        )
    } else {
        let days = (seconds / 86_400) as i64;
        let (y, m, d) = sluice_binlog::temporal::civil_from_days(days);
        let r = seconds % 86_400;
        (y, m, d, r / 3600, (r / 60) % 60, r % 60)
    };
    let mut s = format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{se:02}");
    if fsp > 0 {
        let frac = format!("{:06}", micros % 1_000_000);
        s.push('.');
        s.push_str(&frac[..fsp.min(6) as usize]);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_double_to_string() {
        assert_eq!(java_float_string(222.0, false), "222.0");
        assert_eq!(java_float_string(1.0e-5, false), "1.0E-5");
        assert_eq!(java_float_string(1.0e10, false), "1.0E10");
        assert_eq!(java_float_string(1234567.0, false), "1234567.0");
        assert_eq!(java_float_string(12345678.0, false), "1.2345678E7");
        assert_eq!(java_float_string(0.001, false), "0.001");
        assert_eq!(java_float_string(-2.5, false), "-2.5");
        assert_eq!(java_float_string(0.1f32 as f64, true), "0.1");
        assert_eq!(java_float_string(0.0, false), "0.0");
    }

    #[test]
    fn zero_timestamp_keeps_its_fraction_digits() {
        assert_eq!(local_timestamp(0, 0, 3), "0000-00-00 00:00:00.000");
    }
}
