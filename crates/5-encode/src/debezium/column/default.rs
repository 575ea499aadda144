//! A column's DEFAULT as Debezium writes it: the literal as Debezium's DDL
//! parser keeps it, converted as its value converters convert values.

use super::super::text::{
    days_from_civil, push_base64, push_i64, push_java_float, push_str, u64_unscaled_bytes,
};
use super::super::{DebeziumOptions, DecimalFormat};
use super::format::{
    push_binary, push_decimal, push_iso_date, push_iso_time, push_zoned_timestamp,
};
use super::kind::{DateRepr, DateTimeRepr, Kind, TimeRepr};

/// A column's DEFAULT as Debezium writes it in the schema (and, through
/// JsonConverter's `replace.null.with.default`, in place of a null), as
/// JSON text; `None` for no DEFAULT, `DEFAULT NULL`, an expression, or a
/// literal Debezium cannot convert. `literal` is the clause as SQL text
/// (`'x'`, `5`, `-1.5`, `current_timestamp()`, `b'101'`); `kind` and
/// `optional` are the column's.
pub(crate) fn default_json(
    literal: Option<&str>,
    kind: &Kind,
    optional: bool,
    options: &DebeziumOptions,
) -> Option<String> {
    let text = default_text(literal?)?;
    let mut out = String::new();
    let trimmed = text.trim();
    match kind {
        Kind::Text | Kind::Json | Kind::Enum(_) | Kind::Set(_) => push_str(&mut out, &text),
        Kind::Boolean => push_default_boolean(&mut out, trimmed),
        Kind::Int { .. } => push_i64(&mut out, default_integer(trimmed)?),
        Kind::UnsignedBigIntPrecise => push_default_unsigned_bigint(&mut out, trimmed, options)?,
        Kind::Float32 => {
            push_java_float(&mut out, trimmed.parse::<f64>().ok()? as f32 as f64, true)
        }
        Kind::Float64 => push_java_float(&mut out, trimmed.parse::<f64>().ok()?, false),
        Kind::Decimal { scale, .. } => push_default_decimal(&mut out, trimmed, *scale, options)?,
        Kind::Year => push_default_year(&mut out, trimmed)?,
        Kind::Date(repr) => push_default_date(&mut out, trimmed, *repr, optional)?,
        Kind::Time(repr) => push_default_time(&mut out, trimmed, *repr)?,
        Kind::DateTime(repr) => push_default_datetime(&mut out, trimmed, *repr, optional)?,
        Kind::Timestamp { fsp } => push_default_timestamp(&mut out, trimmed, *fsp, optional)?,
        Kind::Binary { .. } => push_binary(&mut out, text.as_bytes(), options.binary_handling_mode),
        Kind::Bits { bits } => push_default_bits(&mut out, trimmed, *bits)?,
        Kind::Geometry | Kind::Point | Kind::Vector | Kind::Null => return None,
    }
    Some(out)
}

/// A BOOLEAN DEFAULT: a number (non-zero is true) or `true`/`false`.
fn push_default_boolean(out: &mut String, trimmed: &str) {
    let v = match trimmed.parse::<i64>() {
        Ok(n) => n != 0,
        Err(_) => trimmed.eq_ignore_ascii_case("true"),
    };
    out.push_str(if v { "true" } else { "false" });
}

/// A BIGINT UNSIGNED DEFAULT under `bigint.unsigned.handling.mode=precise`:
/// a Connect `Decimal(20,0)` in `converter.decimal.format`.
fn push_default_unsigned_bigint(
    out: &mut String,
    trimmed: &str,
    options: &DebeziumOptions,
) -> Option<()> {
    let n: u64 = if trimmed.eq_ignore_ascii_case("true") {
        1
    } else if trimmed.eq_ignore_ascii_case("false") {
        0
    } else {
        trimmed.parse().ok()?
    };
    match options.decimal_format {
        DecimalFormat::Base64 => {
            let mut bytes = Vec::new();
            u64_unscaled_bytes(n, &mut bytes);
            out.push('"');
            push_base64(out, &bytes, false);
            out.push('"');
        }
        DecimalFormat::Numeric => sluice_binlog::decimal::push_u64(out, n),
    }
    Some(())
}

/// A DECIMAL DEFAULT, rescaled half up to the column's `scale`.
fn push_default_decimal(
    out: &mut String,
    trimmed: &str,
    scale: u8,
    options: &DebeziumOptions,
) -> Option<()> {
    let digits = if trimmed.eq_ignore_ascii_case("true") {
        "1"
    } else if trimmed.eq_ignore_ascii_case("false") {
        "0"
    } else {
        trimmed
    };
    let scaled = rescale_half_up(digits, scale as usize)?;
    let mut bytes = Vec::new();
    push_decimal(out, &scaled, options, &mut bytes)
}

/// A YEAR DEFAULT, two-digit years adjusted.
fn push_default_year(out: &mut String, trimmed: &str) -> Option<()> {
    let y: i64 = trimmed.parse().ok()?;
    push_i64(
        out,
        match y {
            0..=69 => y + 2000,
            70..=99 => y + 1900,
            _ => y,
        },
    );
    Some(())
}

/// A DATE DEFAULT: a zero or invalid one is no DEFAULT in a nullable
/// column, the epoch in a NOT NULL one.
fn push_default_date(
    out: &mut String,
    trimmed: &str,
    repr: DateRepr,
    optional: bool,
) -> Option<()> {
    let date = match parse_default_date(trimmed) {
        DefaultDate::Zero if optional => return None,
        DefaultDate::Zero => (1970, 1, 1),
        DefaultDate::Date(y, m, d) => adjust_year(y, m, d),
        DefaultDate::Invalid if optional => return None,
        DefaultDate::Invalid => (1970, 1, 1),
    };
    match repr {
        DateRepr::Days(_) => push_i64(out, days_from_civil(date.0, date.1, date.2)),
        DateRepr::Iso => {
            out.push('"');
            push_iso_date(out, date.0, date.1, date.2);
            out.push_str("Z\"");
        }
    }
    Some(())
}

/// A TIME DEFAULT (of a date and time, its time part).
fn push_default_time(out: &mut String, trimmed: &str, repr: TimeRepr) -> Option<()> {
    // A date and time: its time part.
    let time = trimmed.rsplit(' ').next().unwrap_or(trimmed);
    let micros = parse_duration_micros(time)?;
    let of_day = (0..=86_400_000_000).contains(&micros);
    match repr {
        TimeRepr::Micros => push_i64(out, micros),
        TimeRepr::Nanos => push_i64(out, micros * 1000),
        TimeRepr::Millis => push_i64(out, micros.div_euclid(1000) as i32 as i64),
        TimeRepr::ConnectMillis if of_day => push_i64(out, micros / 1000),
        TimeRepr::Iso if of_day => {
            out.push('"');
            push_iso_time(out, micros.rem_euclid(86_400_000_000));
            out.push_str("Z\"");
        }
        TimeRepr::ConnectMillis | TimeRepr::Iso => return None,
    }
    Some(())
}

/// A DATETIME DEFAULT: a zero or invalid one is no DEFAULT in a nullable
/// column, the epoch in a NOT NULL one.
fn push_default_datetime(
    out: &mut String,
    trimmed: &str,
    repr: DateTimeRepr,
    optional: bool,
) -> Option<()> {
    let (date, micros_of_day) = match parse_default_datetime(trimmed) {
        Some(None) | None if optional => return None,
        Some(None) | None => ((1970, 1, 1), 0),
        Some(Some((y, m, d, us))) => (adjust_year(y, m, d), us),
    };
    let days = days_from_civil(date.0, date.1, date.2);
    match repr {
        DateTimeRepr::Millis(_) => {
            push_i64(out, days * 86_400_000 + micros_of_day.div_euclid(1000))
        }
        DateTimeRepr::Micros => push_i64(out, days * 86_400_000_000 + micros_of_day),
        DateTimeRepr::Nanos => push_i64(
            out,
            days.checked_mul(86_400_000_000_000)?
                .checked_add(micros_of_day * 1000)?,
        ),
        DateTimeRepr::Iso => {
            out.push('"');
            push_iso_date(out, date.0, date.1, date.2);
            out.push('T');
            push_iso_time(out, micros_of_day);
            out.push_str("Z\"");
        }
    }
    Some(())
}

/// A TIMESTAMP DEFAULT: the epoch (CURRENT_TIMESTAMP) or a zero one is no
/// DEFAULT in a nullable column, the epoch without a fraction in a NOT
/// NULL one.
fn push_default_timestamp(out: &mut String, trimmed: &str, fsp: u8, optional: bool) -> Option<()> {
    let epoch = trimmed == "1970-01-01 00:00:00";
    match parse_default_datetime(trimmed) {
        _ if epoch && optional => return None,
        Some(None) if optional => return None,
        // Debezium's fallback: the epoch, written without a fraction.
        _ if epoch => out.push_str("\"1970-01-01T00:00:00Z\""),
        Some(None) => out.push_str("\"1970-01-01T00:00:00Z\""),
        Some(Some((y, m, d, us))) => {
            let days = days_from_civil(y, m, d);
            let seconds = days * 86_400 + us.div_euclid(1_000_000);
            push_zoned_timestamp(out, seconds, us.rem_euclid(1_000_000) as u32, fsp);
        }
        None => return None,
    }
    Some(())
}

/// A BIT(n) DEFAULT (`b'101'`'s digits): its little-endian bytes in base64.
fn push_default_bits(out: &mut String, trimmed: &str, bits: u16) -> Option<()> {
    let n = u64::from_str_radix(trimmed, 2).ok()?;
    let len = (bits as usize).div_ceil(8);
    let bytes: Vec<u8> = n.to_le_bytes().iter().take(len).copied().collect();
    out.push('"');
    push_base64(out, &bytes, false);
    out.push('"');
    Some(())
}

/// The text Debezium's DDL parser keeps of a DEFAULT clause: a string's
/// inside (a quote doubled inside stays doubled, as Debezium leaves it),
/// without a charset introducer; `b'…'`, `x'…'` and `0x…` with their first
/// two and last characters cut, as Debezium cuts them; `1970-01-01
/// 00:00:00` for CURRENT_TIMESTAMP and its synonyms; other literals as
/// written. `None` for NULL and for expressions.
pub(super) fn default_text(literal: &str) -> Option<String> {
    let l = literal.trim();
    let lower = l.to_ascii_lowercase();
    if l.is_empty() || lower == "null" || l.starts_with('(') {
        return None;
    }
    if ["current_timestamp", "now(", "localtime"]
        .iter()
        .any(|f| lower.starts_with(f))
    {
        return Some("1970-01-01 00:00:00".to_string());
    }
    // `_utf8mb4'x'`: the string without its introducer.
    let l = match (l.starts_with('_'), l.find('\'')) {
        (true, Some(quote)) => &l[quote..],
        _ => l,
    };
    let lower = l.to_ascii_lowercase();
    let chars: Vec<char> = l.chars().collect();
    if ["b'", "x'", "0x", "0b"]
        .iter()
        .any(|p| lower.starts_with(p))
        && chars.len() > 2
    {
        return Some(chars[2..chars.len() - 1].iter().collect());
    }
    let quoted = |q: char| chars.len() >= 2 && chars[0] == q && chars[chars.len() - 1] == q;
    if quoted('\'') || quoted('"') {
        return Some(chars[1..chars.len() - 1].iter().collect());
    }
    if l.contains('(') {
        return None;
    }
    Some(l.to_string())
}

/// An integer DEFAULT: `true`/`false` as 1/0, values past the int64 range
/// held at its ends (18446744073709551615 of a BIGINT UNSIGNED is
/// 9223372036854775807 in Debezium's schema).
pub(super) fn default_integer(text: &str) -> Option<i64> {
    if text.eq_ignore_ascii_case("true") {
        return Some(1);
    }
    if text.eq_ignore_ascii_case("false") {
        return Some(0);
    }
    let n: i128 = text.strip_prefix('+').unwrap_or(text).parse().ok()?;
    Some(n.clamp(i64::MIN as i128, i64::MAX as i128) as i64)
}

/// The decimal `text` with exactly `scale` fraction digits, rounded half
/// up (away from zero at .5) as Java's `BigDecimal.setScale(HALF_UP)`.
pub(super) fn rescale_half_up(text: &str, scale: usize) -> Option<String> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (int_part, frac_part) = body.split_once('.').unwrap_or((body, ""));
    if int_part.is_empty() && frac_part.is_empty()
        || !int_part
            .bytes()
            .chain(frac_part.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut digits: Vec<u8> = int_part.bytes().map(|b| b - b'0').collect();
    let int_len = digits.len();
    digits.extend(frac_part.bytes().map(|b| b - b'0'));
    let keep = int_len + scale;
    let round_up = digits.get(keep).is_some_and(|&d| d >= 5);
    digits.resize(keep, 0);
    if round_up {
        let mut i = keep;
        loop {
            if i == 0 {
                digits.insert(0, 1);
                break;
            }
            i -= 1;
            if digits[i] == 9 {
                digits[i] = 0;
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let split = digits.len() - scale;
    let mut out = String::new();
    if negative && digits.iter().any(|&d| d != 0) {
        out.push('-');
    }
    let int_digits: String = digits[..split]
        .iter()
        .map(|d| char::from(b'0' + d))
        .collect();
    let int_digits = int_digits.trim_start_matches('0');
    out.push_str(if int_digits.is_empty() {
        "0"
    } else {
        int_digits
    });
    if scale > 0 {
        out.push('.');
        out.extend(digits[split..].iter().map(|d| char::from(b'0' + d)));
    }
    Some(out)
}

/// A DATE DEFAULT as Debezium reads it.
enum DefaultDate {
    /// `0000-00-00`, a date with a zero part, or `0`.
    Zero,
    Date(i64, u32, u32),
    /// Not `yyyy-mm-dd[ time]`.
    Invalid,
}

fn parse_default_date(text: &str) -> DefaultDate {
    let date = text.split(' ').next().unwrap_or(text);
    let Some((y, m, d)) = parse_ymd(date) else {
        return if text == "0" {
            DefaultDate::Zero
        } else {
            DefaultDate::Invalid
        };
    };
    if y == 0 || m == 0 || d == 0 {
        DefaultDate::Zero
    } else if m > 12 || d > days_in_month(y, m) {
        DefaultDate::Invalid
    } else {
        DefaultDate::Date(y, m, d)
    }
}

/// `yyyy-mm-dd` with exactly four, two and two digits.
fn parse_ymd(text: &str) -> Option<(i64, u32, u32)> {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = text.get(r)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    Some((num(0..4)?, num(5..7)? as u32, num(8..10)? as u32))
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The two-digit-year adjuster on a valid date.
fn adjust_year(year: i64, month: u32, day: u32) -> (i64, u32, u32) {
    let year = match year {
        0..=69 => year + 2000,
        70..=99 => year + 1900,
        y => y,
    };
    (year, month, day)
}

/// A DATETIME or TIMESTAMP DEFAULT: `Some(None)` for a zero one (or `0`),
/// `Some(Some((y, m, d, µs of the day)))`, `None` if not a date and time.
pub(super) fn parse_default_datetime(text: &str) -> Option<Option<(i64, u32, u32, i64)>> {
    if text == "0" {
        return Some(None);
    }
    let (date, time) = text.split_once(' ').unwrap_or((text, "00:00:00"));
    let (y, m, d) = parse_ymd(date)?;
    let micros = parse_duration_micros(time)?;
    if !(0..86_400_000_000).contains(&micros) {
        return None;
    }
    if y == 0 || m == 0 || d == 0 {
        return (micros == 0).then_some(None);
    }
    if m > 12 || d > days_in_month(y, m) {
        return None;
    }
    Some(Some((y, m, d, micros)))
}

/// `[-]h:mm[:ss[.ffffff]]` in µs (Debezium's `stringToDuration`).
pub(super) fn parse_duration_micros(text: &str) -> Option<i64> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text),
    };
    let mut parts = body.splitn(3, ':');
    let number = |s: &str| -> Option<i64> {
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    let hours = number(parts.next()?)?;
    let minutes = number(parts.next()?)?;
    let (seconds, micros) = match parts.next() {
        None => (0, 0),
        Some(s) => {
            let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
            let mut frac: String = frac.chars().take(6).collect();
            if !frac.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            while frac.len() < 6 {
                frac.push('0');
            }
            (number(whole)?, frac.parse::<i64>().ok()?)
        }
    };
    let magnitude = ((hours * 60 + minutes) * 60 + seconds) * 1_000_000 + micros;
    Some(if negative { -magnitude } else { magnitude })
}
