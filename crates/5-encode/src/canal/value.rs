//! Column values as Canal's MySQL parser renders them for clients (its
//! `LogEventConvert` / `RowsLogBuffer` rules), which differ from a SELECT:
//! ENUM as its index, SET as its bit mask, BIT as a number, binary data as
//! ISO-8859-1 text, floats as Java's `String.valueOf`, TIMESTAMP in the
//! server's local time zone; plus the `java.sql.Types` code of each value.

use sluice_binlog::value::StackText;
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

/// What rendering needs to know of a column beyond its binlog definition,
/// worked out once per table rather than once per value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderInfo {
    /// The declared type says UNSIGNED.
    pub unsigned: bool,
    /// The column holds binary data (binary collation, or declared
    /// BINARY/BLOB when the collation is unknown).
    pub binary: bool,
}

impl RenderInfo {
    pub fn new(col: &ColumnDef, mysql_type: &str) -> RenderInfo {
        let has = |word: &str| {
            mysql_type
                .as_bytes()
                .windows(word.len())
                .any(|w| w.eq_ignore_ascii_case(word.as_bytes()))
        };
        RenderInfo {
            unsigned: has("unsigned"),
            binary: match col.charset() {
                Some(Charset::Binary) => true,
                Some(_) => false,
                None => has("binary") || has("blob"),
            },
        }
    }
}

/// The `java.sql.Types` code for a NULL value (Canal's coarse type map).
pub fn null_sql_type(col: &ColumnDef, mysql_type: &str) -> i32 {
    null_sql_type_with(col, &RenderInfo::new(col, mysql_type))
}

/// [`null_sql_type`] with the column's [`RenderInfo`] at hand.
pub fn null_sql_type_with(col: &ColumnDef, info: &RenderInfo) -> i32 {
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
        ColumnType::Char { .. } if info.binary => BLOB,
        ColumnType::Char { .. } => CHAR,
        ColumnType::VarChar { .. } if info.binary => BLOB,
        ColumnType::VarChar { .. } => VARCHAR,
        ColumnType::Blob { .. } if info.binary => BLOB,
        ColumnType::Blob { .. } => CLOB,
        ColumnType::Enum { .. } => INTEGER,
        ColumnType::Set { .. } => BLOB,
        ColumnType::Json { .. } => OTHER,
        ColumnType::Geometry { .. } | ColumnType::Vector { .. } => BLOB,
        ColumnType::Null => VARCHAR,
    }
}

/// Whether the text a SELECT returns for the column's values (text
/// protocol, `character_set_results = NULL`) is Canal's text of them, with
/// the column's NULL sqlType: signed integers, DECIMAL, YEAR, DATE, TIME,
/// DATETIME, and character data in UTF-8 (utf8mb3, utf8mb4, ascii). Not
/// UNSIGNED integers (Canal widens the type of large values), FLOAT and
/// DOUBLE (Java's float text), TIMESTAMP (the server's local time zone),
/// BIT, ENUM, SET, JSON, binary data and other character sets.
pub fn select_text_is_canal(col: &ColumnDef, info: &RenderInfo) -> bool {
    match col.column_type {
        ColumnType::Tiny
        | ColumnType::Short
        | ColumnType::Int24
        | ColumnType::Long
        | ColumnType::LongLong => !info.unsigned,
        ColumnType::NewDecimal { .. }
        | ColumnType::Year
        | ColumnType::Date
        | ColumnType::Time2 { .. }
        | ColumnType::DateTime2 { .. } => true,
        ColumnType::VarChar { .. } | ColumnType::Char { .. } | ColumnType::Blob { .. } => {
            !info.binary && col.charset() == Some(Charset::Utf8)
        }
        _ => false,
    }
}

/// A non-NULL value's text and `java.sql.Types` code, as Canal delivers it.
pub fn render(
    value: &Value<'_>,
    col: &ColumnDef,
    mysql_type: &str,
) -> Result<(String, i32), sluice_binlog::DecodeError> {
    let mut s = String::new();
    let t = render_into(value, col, &RenderInfo::new(col, mysql_type), &mut s)?;
    Ok((s, t))
}

/// [`render`] appending the text to `out` (nothing for NULL), returning the
/// `java.sql.Types` code.
pub fn render_into(
    value: &Value<'_>,
    col: &ColumnDef,
    info: &RenderInfo,
    out: &mut String,
) -> Result<i32, sluice_binlog::DecodeError> {
    use sql_type::*;
    let t = match value {
        Value::Int(v) => {
            // Canal corrects negative raw values of UNSIGNED columns and
            // bumps the type to the next wider one.
            if info.unsigned && *v < 0 {
                let (bits, wider) = match col.column_type {
                    ColumnType::Tiny => (8, SMALLINT),
                    ColumnType::Short => (16, INTEGER),
                    ColumnType::Int24 => (24, INTEGER),
                    ColumnType::Long => (32, BIGINT),
                    _ => (64, DECIMAL),
                };
                let corrected = if bits == 64 {
                    *v as u64
                } else {
                    (*v as i128 + (1i128 << bits)) as u64
                };
                push_u64(out, corrected);
                wider
            } else {
                push_i64(out, *v);
                null_sql_type_with(col, info)
            }
        }
        Value::UInt(v) => {
            push_u64(out, *v);
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
                null_sql_type_with(col, info)
            }
        }
        Value::Float(v) => {
            java_float_into(*v as f64, true, out);
            REAL
        }
        Value::Double(v) => {
            java_float_into(*v, false, out);
            DOUBLE
        }
        Value::Bit(b) => {
            push_u64(out, sluice_binlog::bytes::uint_be(b));
            BIT
        }
        Value::Enum(i) => {
            push_u64(out, *i as u64);
            INTEGER
        }
        Value::Set(bits) => {
            push_u64(out, *bits);
            BIT
        }
        Value::Timestamp(ts) => {
            local_timestamp_into(ts.seconds, ts.micros, ts.fsp, out);
            TIMESTAMP
        }
        // Binary data: one char per byte (ISO-8859-1), as Canal's Java does.
        Value::Geometry(b) | Value::Vector(b) => {
            latin1_into(b, out);
            BLOB
        }
        Value::Bytes(b) if info.binary => {
            latin1_into(b, out);
            BLOB
        }
        // A partial JSON update without its before value: the diffs as
        // `JSON_REPLACE(...)` text (see the README, "Partial JSON updates").
        Value::Json(_) | Value::JsonText(_) | Value::JsonDiff { .. } => {
            value.render(col, out)?;
            VARCHAR
        }
        Value::Null => null_sql_type_with(col, info),
        other => {
            other.render(col, out)?;
            null_sql_type_with(col, info)
        }
    };
    Ok(t)
}

pub use sluice_binlog::decimal::push_u64;

pub fn push_i64(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    push_u64(out, v.unsigned_abs());
}

/// Bytes as ISO-8859-1 text: one char per byte.
fn latin1_into(b: &[u8], out: &mut String) {
    if b.is_ascii() {
        // ASCII is the same in ISO-8859-1 and UTF-8.
        out.push_str(sluice_binlog::bytes::ascii_str(b));
        return;
    }
    // Two bytes of UTF-8 for each byte from 0x80 on, pushed as bytes: a
    // `char` at a time costs an encoding and a capacity check each.
    // SAFETY: only whole UTF-8 sequences are pushed: a byte below 0x80,
    // or a two-byte sequence with a lead byte of 0xc2 or 0xc3.
    let text = unsafe { out.as_mut_vec() };
    text.reserve(b.len() * 2);
    for &c in b {
        if c < 0x80 {
            text.push(c);
        } else {
            text.extend_from_slice(&[0xc0 | (c >> 6), 0x80 | (c & 0x3f)]);
        }
    }
}

/// Java's `Double.toString` / `Float.toString`: shortest digits; plain
/// notation with at least one fraction digit for 1e-3 <= |v| < 1e7, else
/// `d.dddE±n`.
pub fn java_float_string(v: f64, single: bool) -> String {
    let mut out = String::new();
    java_float_into(v, single, &mut out);
    out
}

/// [`java_float_string`] appended to `out`.
pub fn java_float_into(v: f64, single: bool, out: &mut String) {
    if v.is_nan() {
        out.push_str("NaN");
        return;
    }
    if v.is_infinite() {
        out.push_str(if v > 0.0 { "Infinity" } else { "-Infinity" });
        return;
    }
    if v == 0.0 {
        out.push_str(if v.is_sign_negative() { "-0.0" } else { "0.0" });
        return;
    }
    // `ryu` gives the shortest digits that read back to the same value, as
    // Java does, about five times faster than `fmt`. The two differ only
    // when the value lies exactly halfway between two shortest candidates:
    // `ryu` takes the even one, Java's (and Rust's `{:e}`) the one above.
    // Such a value is rare and cheap to recognise; `fmt` writes those.
    let mut ryu = ryu::Buffer::new();
    let text = if single {
        ryu.format_finite(v as f32)
    } else {
        ryu.format_finite(v)
    };
    // Between 10^-3 and 10^7 `ryu` writes plain notation with at least one
    // fraction digit (`1234567.0`, `0.001`), which is Java's layout too: its
    // text is the answer once the digits are known to be Java's. (`ryu`
    // writes an exponent only below 10^-5 (f32: 10^-6) and from 10^16
    // (f32: 10^13) on, so the text has none to look for here.)
    if (1e-3..1e7).contains(&v.abs()) && !may_be_halfway(v, significant_digits(text)) {
        debug_assert!(!text.contains('e'), "{text}");
        out.push_str(text);
        return;
    }
    let mut digit_buf = [0u8; 40];
    if let Some((n, exp)) = ryu_digits(text, &mut digit_buf) {
        if !may_be_halfway(v, n) {
            let digits = std::str::from_utf8(&digit_buf[..n]).unwrap_or("0");
            write_java_float(v, digits, exp, out);
            return;
        }
    }
    let (n, exp) = fmt_digits(v, single, &mut digit_buf);
    let digits = std::str::from_utf8(&digit_buf[..n]).unwrap_or("0");
    write_java_float(v, digits, exp, out);
}

/// The shortest significant digits of `v` by Rust's `{:e}` (which breaks
/// ties as Java does) into `buf`, and the power of ten of the first one.
fn fmt_digits(v: f64, single: bool, buf: &mut [u8; 40]) -> (usize, i32) {
    use std::fmt::Write as _;
    let mut sci = StackText::new();
    let _ = if single {
        write!(sci, "{:e}", v as f32)
    } else {
        write!(sci, "{v:e}")
    };
    let sci = sci.as_str();
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut n = 0;
    for b in mantissa.bytes().filter(u8::is_ascii_digit) {
        if n < buf.len() {
            buf[n] = b;
            n += 1;
        }
    }
    (n, exp)
}

/// The significant digits of `ryu`'s text of a finite non-zero value
/// (`123.45`, `0.001`, `1e20`, `1.5e-7`, `1.0`) into `buf`, without leading
/// or trailing zeros, and the power of ten of the first one.
fn ryu_digits(text: &str, buf: &mut [u8; 40]) -> Option<(usize, i32)> {
    let text = text.strip_prefix('-').unwrap_or(text);
    let (mantissa, exp) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut n = 0;
    let mut leading = 0i32;
    for b in int.bytes().chain(frac.bytes()) {
        if n == 0 && b == b'0' {
            leading += 1;
            continue;
        }
        *buf.get_mut(n)? = b;
        n += 1;
    }
    while n > 1 && buf[n - 1] == b'0' {
        n -= 1;
    }
    (n > 0).then_some((n, exp + int.len() as i32 - 1 - leading))
}

/// How many significant digits plain decimal `text` has: those from the
/// first non-zero digit to the last (`100.0` has one, `0.0012` two).
fn significant_digits(text: &str) -> usize {
    let b = text.as_bytes();
    let significant = |d: &u8| d.is_ascii_digit() && *d != b'0';
    match (
        b.iter().position(significant),
        b.iter().rposition(significant),
    ) {
        // Less the point, when it lies between them.
        (Some(f), Some(l)) => l - f + 1 - usize::from(b[f..l].contains(&b'.')),
        _ => 0,
    }
}

/// Whether the exact value of `v` may lie halfway between two decimals of
/// `n` significant digits: its exact decimal expansion then has `n + 1`
/// significant digits, the last a 5. (`v` as f64 holds an f32 exactly.)
fn may_be_halfway(v: f64, n: usize) -> bool {
    if n + 1 >= POW10.len() {
        return true;
    }
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mut m, mut e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    };
    if m == 0 {
        return false;
    }
    let zeros = m.trailing_zeros();
    m >>= zeros;
    e += zeros as i32;
    if e < 0 {
        // v = m * 5^-e / 10^-e; m * 5^-e is odd and a multiple of 5, so its
        // last digit is a 5 and none is a trailing zero. From 28 on it has
        // 20 digits or more: more than one past the 17 a shortest form has.
        if -e >= 28 {
            return false;
        }
        let exact = u128::from(m) * POW5[(-e) as usize];
        return (POW10[n]..POW10[n + 1]).contains(&exact);
    }
    if e > 70 {
        // Too large to check here: let `fmt` write it.
        return true;
    }
    // An integer: its digits without the trailing zeros.
    let mut exact = u128::from(m) << e;
    while exact % 10 == 0 {
        exact /= 10;
    }
    exact % 10 == 5 && (POW10[n]..POW10[n + 1]).contains(&exact)
}

/// Powers of ten and of five as far as `may_be_halfway` needs them.
const POW10: [u128; 39] = {
    let mut p = [1u128; 39];
    let mut i = 1;
    while i < 39 {
        p[i] = p[i - 1] * 10;
        i += 1;
    }
    p
};
const POW5: [u128; 28] = {
    let mut p = [1u128; 28];
    let mut i = 1;
    while i < 28 {
        p[i] = p[i - 1] * 5;
        i += 1;
    }
    p
};

/// Java's `Double.toString` layout of `v` from its significant `digits`
/// and the power of ten of the first one: plain between 10^-3 and 10^7,
/// else computerized scientific notation (`1.0E10`).
fn write_java_float(v: f64, digits: &str, exp: i32, out: &mut String) {
    if v.is_sign_negative() {
        out.push('-');
    }
    let abs = v.abs();
    if (1e-3..1e7).contains(&abs) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                out.push_str(digits);
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
            out.push_str(digits);
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
        if exp < 0 {
            out.push('-');
        }
        push_u64(out, exp.unsigned_abs() as u64);
    }
}

/// A TIMESTAMP in the process's local time zone, as Canal's JVM renders it.
pub fn local_timestamp(seconds: u32, micros: u32, fsp: u8) -> String {
    let mut s = String::new();
    local_timestamp_into(seconds, micros, fsp, &mut s);
    s
}

/// The process's time zone is read once, as the JVM reads its default time
/// zone once: `tzset` looks at `TZ` and `/etc/localtime` (a `stat` per call).
fn init_time_zone() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    extern "C" {
        // POSIX; the libc crate does not bind it.
        fn tzset();
    }
    // SAFETY: tzset only reads TZ and the zone files, and sets libc's zone.
    ONCE.call_once(|| unsafe { tzset() });
}

/// Local date and time fields: year, month, day, hour, minute, second.
type LocalFields = (i64, u32, u32, u32, u32, u32);

/// Seconds in a bucket of [`local_fields`]' cache.
const OFFSET_BUCKET: i64 = 900;

thread_local! {
    /// The quarter hour last converted by this thread and its UTC offset
    /// (`None`: not one offset for the whole quarter).
    static QUARTER_OFFSET: std::cell::Cell<(i64, Option<i64>)> =
        const { std::cell::Cell::new((i64::MIN, None)) };
}

/// `t` (seconds since the epoch) in the process's time zone; `None` when
/// libc cannot convert it. `localtime_r` costs about 800 instructions a call
/// (glibc locks the zone and searches its transitions), more than the rest of
/// a value's text, and the timestamps of nearby rows are close together: so
/// each thread keeps the UTC offset of the last quarter hour it converted, when
/// `localtime_r` agrees with the offset arithmetic at both ends of it. Zone
/// transitions are hours apart, so equal ends mean no transition inside;
/// zones with leap seconds never agree, and keep calling `localtime_r`.
fn local_fields(t: i64) -> Option<LocalFields> {
    let bucket = t.div_euclid(OFFSET_BUCKET);
    let (cached, offset) = QUARTER_OFFSET.get();
    if cached == bucket {
        if let Some(offset) = offset {
            return Some(fields_at_offset(t, offset));
        }
        return localtime(t).map(|(f, _)| f);
    }
    let start = bucket * OFFSET_BUCKET;
    let end = start + OFFSET_BUCKET - 1;
    let agreed = |at: i64| -> Option<i64> {
        let (fields, offset) = localtime(at)?;
        (fields_at_offset(at, offset) == fields).then_some(offset)
    };
    let offset = match (agreed(start), agreed(end)) {
        (Some(a), Some(b)) if a == b => Some(a),
        _ => None,
    };
    QUARTER_OFFSET.set((bucket, offset));
    match offset {
        Some(offset) => Some(fields_at_offset(t, offset)),
        None => localtime(t).map(|(f, _)| f),
    }
}

/// The fields of `t` shifted by `offset` seconds, by calendar arithmetic.
fn fields_at_offset(t: i64, offset: i64) -> LocalFields {
    let local = t + offset;
    let (y, m, d) = sluice_binlog::temporal::civil_from_days(local.div_euclid(86_400));
    let r = local.rem_euclid(86_400) as u32;
    (y, m, d, r / 3600, (r / 60) % 60, r % 60)
}

/// `localtime_r`: the fields and the zone's UTC offset at `t`.
fn localtime(t: i64) -> Option<(LocalFields, i64)> {
    init_time_zone();
    let t = libc::time_t::try_from(t).ok()?;
    // SAFETY: localtime_r only writes into the tm we own.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    if unsafe { libc::localtime_r(&t, &mut tm).is_null() } {
        return None;
    }
    let fields = (
        tm.tm_year as i64 + 1900,
        u32::try_from(tm.tm_mon + 1).ok()?,
        u32::try_from(tm.tm_mday).ok()?,
        u32::try_from(tm.tm_hour).ok()?,
        u32::try_from(tm.tm_min).ok()?,
        u32::try_from(tm.tm_sec).ok()?,
    );
    Some((fields, tm.tm_gmtoff))
}

/// [`local_timestamp`] appended to `out`.
pub fn local_timestamp_into(seconds: u32, micros: u32, fsp: u8, out: &mut String) {
    if seconds == 0 && micros == 0 {
        out.push_str("0000-00-00 00:00:00");
        if fsp > 0 {
            out.push('.');
            out.extend(std::iter::repeat_n('0', fsp as usize));
        }
        return;
    }
    let (y, mo, d, h, mi, se) = local_fields(seconds as i64).unwrap_or_else(|| {
        let days = (seconds / 86_400) as i64;
        let (y, m, d) = sluice_binlog::temporal::civil_from_days(days);
        let r = seconds % 86_400;
        (y, m, d, r / 3600, (r / 60) % 60, r % 60)
    });
    let fsp = fsp.min(6) as usize;
    let frac = (micros % 1_000_000) / 10u32.pow(6 - fsp as u32);
    let fields = [mo, d, h, mi, se];
    if !push_date_time_fast(out, y, fields, fsp, frac) {
        push_date_time_padded(out, y, fields, fsp, frac);
    }
}

/// `y-mo-d h:mi:se[.frac]` with `fsp` fraction digits, pushed as one piece
/// for a year of four digits: `write!`, or a push per piece, costs more
/// than the rest of the value. False, with nothing pushed, for other years.
fn push_date_time_fast(out: &mut String, y: i64, fields: [u32; 5], fsp: usize, frac: u32) -> bool {
    if !(0..=9999).contains(&y) || fields.iter().any(|&f| f > 99) {
        return false;
    }
    let [mo, d, h, mi, se] = fields;
    let mut text = *b"0000-00-00 00:00:00.000000";
    put_digits(&mut text[0..4], y as u32);
    put_digits(&mut text[5..7], mo);
    put_digits(&mut text[8..10], d);
    put_digits(&mut text[11..13], h);
    put_digits(&mut text[14..16], mi);
    put_digits(&mut text[17..19], se);
    let len = if fsp > 0 {
        put_digits(&mut text[20..20 + fsp], frac);
        20 + fsp
    } else {
        19
    };
    out.push_str(sluice_binlog::bytes::ascii_str(&text[..len]));
    true
}

/// [`push_date_time_fast`] for any year, piece by piece.
fn push_date_time_padded(out: &mut String, y: i64, fields: [u32; 5], fsp: usize, frac: u32) {
    let [mo, d, h, mi, se] = fields;
    if y < 0 {
        out.push('-');
    }
    push_padded(out, y.unsigned_abs(), 4);
    out.push('-');
    push_padded(out, mo as u64, 2);
    out.push('-');
    push_padded(out, d as u64, 2);
    out.push(' ');
    push_padded(out, h as u64, 2);
    out.push(':');
    push_padded(out, mi as u64, 2);
    out.push(':');
    push_padded(out, se as u64, 2);
    if fsp > 0 {
        out.push('.');
        push_padded(out, frac as u64, fsp);
    }
}

/// The last `digits.len()` decimal digits of `v` into `digits`, zero-padded
/// (callers pass values that fit).
fn put_digits(digits: &mut [u8], mut v: u32) {
    for d in digits.iter_mut().rev() {
        *d = b'0' + (v % 10) as u8;
        v /= 10;
    }
}

/// `v` in decimal, zero-padded on the left to at least `width` digits.
fn push_padded(out: &mut String, v: u64, width: usize) {
    let mut buf = itoa::Buffer::new();
    let digits = buf.format(v);
    out.extend(std::iter::repeat_n('0', width.saturating_sub(digits.len())));
    out.push_str(digits);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_as_display_writes_them() {
        for v in [0i64, 7, -7, 10, 99, 100, i64::MAX, i64::MIN, -1_000_000] {
            let mut s = String::new();
            push_i64(&mut s, v);
            assert_eq!(s, v.to_string());
        }
        let mut s = String::from("x");
        push_u64(&mut s, u64::MAX);
        assert_eq!(s, format!("x{}", u64::MAX));
    }

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
        // Exactly halfway between two shortest candidates: the one above.
        assert_eq!(
            java_float_string(f64::from(2_880_585.0f32 / 8.0), true),
            "360073.13"
        );
        assert_eq!(
            java_float_string(6_632_827_120_354_249.0 / 4.0, false),
            "1.6582067800885623E15"
        );
        assert_eq!(java_float_string(0.0, false), "0.0");
    }

    #[test]
    fn date_times_in_one_piece_as_piece_by_piece() {
        let cases = [
            (1970, [1, 1, 0, 0, 1], 0, 0),
            (2023, [11, 14, 22, 13, 20], 6, 123_456),
            (2023, [11, 14, 22, 13, 20], 3, 7),
            (2000, [2, 29, 9, 5, 60], 1, 9),
            (9999, [12, 31, 23, 59, 59], 6, 999_999),
            (0, [1, 1, 0, 0, 0], 2, 0),
        ];
        for (y, fields, fsp, frac) in cases {
            let (mut fast, mut padded) = (String::from("x"), String::from("x"));
            assert!(push_date_time_fast(&mut fast, y, fields, fsp, frac));
            push_date_time_padded(&mut padded, y, fields, fsp, frac);
            assert_eq!(fast, padded, "{y} {fields:?} {fsp} {frac}");
        }
        for y in [-1, 10_000] {
            let mut s = String::new();
            assert!(!push_date_time_fast(&mut s, y, [1, 1, 0, 0, 0], 0, 0));
            assert!(s.is_empty());
        }
    }

    #[test]
    fn latin1_is_one_char_per_byte() {
        let bytes: Vec<u8> = (0..=255u8).chain([b'a', 0xff, 0x80]).collect();
        let mut s = String::from("x");
        latin1_into(&bytes, &mut s);
        let expected: String = std::iter::once('x')
            .chain(bytes.iter().map(|&c| c as char))
            .collect();
        assert_eq!(s, expected);
    }

    #[test]
    fn significant_digits_of_plain_text() {
        for (text, n) in [
            ("100.0", 1),
            ("0.0012", 2),
            ("-2.5", 2),
            ("1234567.0", 7),
            ("1.0", 1),
            ("10.01", 4),
            ("0.001", 1),
        ] {
            assert_eq!(significant_digits(text), n, "{text}");
        }
    }

    #[test]
    fn zero_timestamp_keeps_its_fraction_digits() {
        assert_eq!(local_timestamp(0, 0, 3), "0000-00-00 00:00:00.000");
    }

    /// The fast path (`ryu`, halfway values left to `fmt`) writes what
    /// `fmt` alone writes, for random bit patterns and for the quotients
    /// and products a table of measurements holds.
    #[test]
    fn java_floats_by_ryu_equal_those_by_fmt() {
        let by_fmt = |v: f64, single: bool| {
            let mut buf = [0u8; 40];
            let (n, exp) = fmt_digits(v, single, &mut buf);
            let mut out = String::new();
            write_java_float(v, std::str::from_utf8(&buf[..n]).unwrap(), exp, &mut out);
            out
        };
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..400_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let cases = [
                (f64::from_bits(x), false),
                (f64::from(f32::from_bits(x as u32)), true),
                (f64::from(i as f32 / 7.0), true),
                (i as f64 * std::f64::consts::PI, false),
                (i as f64 / 8.0 + 1e6, false),
            ];
            for (v, single) in cases {
                if v.is_finite() && v != 0.0 {
                    assert_eq!(
                        java_float_string(v, single),
                        by_fmt(v, single),
                        "{v:e} single={single}"
                    );
                }
            }
        }
    }
}
