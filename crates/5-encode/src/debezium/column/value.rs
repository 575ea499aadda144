//! A column's JSON value, as Debezium's MySQL connector converts the
//! decoder's typed [`Value`], masked when a mask names the column.

use sluice_binlog::decimal::Decimal;
use sluice_binlog::temporal::{Date, DateTime, Time, Timestamp};
use sluice_binlog::{ColumnDef, Value};

use super::super::masks::Mask;
use super::super::text::{
    days_from_civil, push_base64, push_escaped, push_i64, push_java_float, push_str,
    u64_unscaled_bytes, unscaled_bytes,
};
use super::super::{DebeziumOptions, DecimalFormat, DecimalHandlingMode};
use super::format::{
    push_binary, push_decimal, push_iso_date, push_iso_time, push_zoned_timestamp,
};
use super::kind::{DateRepr, DateTimeRepr, Kind, TimeRepr};
use super::plan::{ColumnPlan, Scratch, ValueProblem};

/// Appends the JSON value of `value` in column `plan` (binlog definition
/// `def`) as Debezium's MySQL connector converts it, under `options`.
pub(crate) fn push_value(
    out: &mut String,
    plan: &ColumnPlan,
    def: &ColumnDef,
    value: &Value<'_>,
    options: &DebeziumOptions,
    scratch: &mut Scratch,
) -> Result<(), ValueProblem> {
    if let Some((mask, max_chars)) = &plan.mask {
        return push_masked(out, plan, def, value, mask, *max_chars, scratch);
    }
    if value.is_null() {
        out.push_str(plan.null());
        return Ok(());
    }
    match (&plan.kind, value) {
        (Kind::Null, _) => out.push_str(plan.null()),
        (Kind::Boolean, Value::Bit(b)) => {
            let set = b.iter().any(|&x| x != 0);
            out.push_str(if set { "true" } else { "false" });
        }
        (Kind::Boolean, Value::Int(v)) => out.push_str(if *v != 0 { "true" } else { "false" }),
        (Kind::Boolean, Value::UInt(v)) => out.push_str(if *v != 0 { "true" } else { "false" }),
        (
            Kind::Int {
                bits,
                unsigned: true,
                ..
            },
            Value::Int(_) | Value::UInt(_),
        ) => push_unsigned_int(out, *bits, value),
        (Kind::Int { .. }, Value::Int(v)) => push_i64(out, *v),
        (Kind::Int { .. }, Value::UInt(v)) => push_i64(out, *v as i64),
        (Kind::UnsignedBigIntPrecise, Value::UInt(_) | Value::Int(_)) => {
            push_unsigned_bigint_precise(out, value, options, scratch)
        }
        (Kind::Float32, Value::Float(f)) => push_java_float(out, *f as f64, true),
        (Kind::Float64, Value::Double(f)) => push_java_float(out, *f, false),
        (Kind::Float64, Value::Float(f)) => push_java_float(out, *f as f64, false),
        (Kind::Decimal { .. }, Value::Decimal(d)) => push_decimal_value(out, d, options, scratch)?,
        // Debezium's binlog reader reads YEAR as 1900 + the stored byte, so
        // YEAR 0000 comes out as 1900.
        (Kind::Year, Value::Year(y)) => push_i64(out, 1900 + *y as i64),
        (Kind::Date(repr), Value::Date(d)) => push_date_value(out, plan, *repr, d),
        (Kind::Time(repr), Value::Time(t)) => push_time_value(out, plan, *repr, t, options)?,
        (Kind::DateTime(repr), Value::DateTime(dt)) => push_datetime_value(out, plan, *repr, dt)?,
        (Kind::Timestamp { fsp }, Value::Timestamp(ts)) => {
            push_timestamp_value(out, plan, *fsp, ts)
        }
        // MariaDB's JSON arrives as text and is written as it is.
        (Kind::Text | Kind::Json, Value::Bytes(_)) => {
            // UTF-8 text is escaped from the row's bytes, not copied first.
            if let Some(text) = value.utf8_text(def) {
                push_str(out, text);
                return Ok(());
            }
            scratch.text.clear();
            value
                .render(def, &mut scratch.text)
                .map_err(ValueProblem::Decode)?;
            push_str(out, &scratch.text);
        }
        (Kind::Binary { pad_to }, Value::Bytes(b)) => {
            push_binary_value(out, b, *pad_to, options, scratch)
        }
        (Kind::Enum(labels), Value::Enum(i)) => {
            let label = (*i as usize)
                .checked_sub(1)
                .and_then(|i| labels.get(i))
                .map(String::as_str)
                .unwrap_or("");
            push_str(out, label);
        }
        (Kind::Set(labels), Value::Set(bits)) => push_set_value(out, labels, *bits),
        (Kind::Bits { .. }, Value::Bit(b)) => {
            // The binlog holds BIT(n) big-endian; Debezium's Bits are little-endian.
            scratch.bytes.clear();
            scratch.bytes.extend(b.iter().rev());
            out.push('"');
            push_base64(out, &scratch.bytes, false);
            out.push('"');
        }
        // An empty binary JSON value (from a failed conversion on the
        // server): Debezium writes null, or `{}` in a NOT NULL column.
        (Kind::Json, Value::Json([])) => {
            out.push_str(if plan.optional { plan.null() } else { "\"{}\"" });
        }
        (Kind::Json, Value::Json(_) | Value::JsonText(_)) | (Kind::Text, Value::JsonText(_)) => {
            push_json_value(out, def, value, scratch)?
        }
        (Kind::Json, Value::JsonDiff { .. }) => return Err(ValueProblem::Mismatch(
            "a partial JSON update without its before image (Debezium needs binlog_row_image=FULL)"
                .into(),
        )),
        (Kind::Geometry | Kind::Point, Value::Geometry(b)) => push_geometry(out, plan, b)?,
        (Kind::Vector, Value::Vector(b)) => push_vector_value(out, b),
        _ => return Err(mismatch(plan, value)),
    }
    Ok(())
}

/// A masked value: the mask's text, or (a hash of a NULL) what a null is
/// written as.
fn push_masked(
    out: &mut String,
    plan: &ColumnPlan,
    def: &ColumnDef,
    value: &Value<'_>,
    mask: &Mask,
    max_chars: Option<usize>,
    scratch: &mut Scratch,
) -> Result<(), ValueProblem> {
    let text: Option<String> = if value.is_null() {
        None
    } else {
        // The text Debezium's converter gives the value: the decoded
        // string, the ENUM label, the SET's labels joined by commas.
        scratch.text.clear();
        let mut plain = String::new();
        push_value(
            &mut plain,
            &ColumnPlan {
                mask: None,
                ..plan.clone()
            },
            def,
            value,
            &DebeziumOptions::new(""),
            scratch,
        )?;
        Some(serde_json::from_str::<String>(&plain).unwrap_or_default())
    };
    match mask.apply(text.as_deref(), max_chars) {
        Some(masked) => push_str(out, &masked),
        None => out.push_str(plan.null()),
    }
    Ok(())
}

/// The problem of a value not of the column's kind.
fn mismatch(plan: &ColumnPlan, value: &Value<'_>) -> ValueProblem {
    ValueProblem::Mismatch(format!(
        "a {} value in a column written as {:?}",
        value_kind(value),
        plan.kind
    ))
}

/// Zero or invalid dates: null (so the DEFAULT, if any) when the column
/// may be null, else the DEFAULT or the epoch.
#[inline]
fn push_zero_date(out: &mut String, plan: &ColumnPlan) {
    out.push_str(match (plan.optional, &plan.default, &plan.kind) {
        (true, _, _) => plan.null(),
        (false, Some(default), _) => default,
        (false, None, Kind::Date(DateRepr::Iso)) => "\"1970-01-01Z\"",
        (false, None, _) => "0",
    });
}

/// An UNSIGNED integer of `bits` bits, as Debezium's int type holds it.
#[inline]
fn push_unsigned_int(out: &mut String, bits: u32, value: &Value<'_>) {
    let raw = match value {
        Value::UInt(u) => *u,
        Value::Int(i) => *i as u64,
        _ => 0,
    };
    let n = if bits >= 64 {
        raw
    } else {
        raw & ((1u64 << bits) - 1)
    };
    // BIGINT UNSIGNED in long mode: two's complement, so values of
    // 2^63 and more come out negative, as Debezium writes them.
    push_i64(out, n as i64);
}

/// A BIGINT UNSIGNED under `bigint.unsigned.handling.mode=precise`: a
/// Connect `Decimal(20,0)` in `converter.decimal.format`.
#[inline]
fn push_unsigned_bigint_precise(
    out: &mut String,
    value: &Value<'_>,
    options: &DebeziumOptions,
    scratch: &mut Scratch,
) {
    let n = match value {
        Value::UInt(u) => *u,
        Value::Int(i) => *i as u64,
        _ => 0,
    };
    match options.decimal_format {
        DecimalFormat::Base64 => {
            u64_unscaled_bytes(n, &mut scratch.bytes);
            out.push('"');
            push_base64(out, &scratch.bytes, false);
            out.push('"');
        }
        DecimalFormat::Numeric => sluice_binlog::decimal::push_u64(out, n),
    }
}

/// A DECIMAL: its text rendered into the scratch buffer, then written
/// under `decimal.handling.mode`.
#[inline]
fn push_decimal_value(
    out: &mut String,
    d: &Decimal<'_>,
    options: &DebeziumOptions,
    scratch: &mut Scratch,
) -> Result<(), ValueProblem> {
    // Precise DECIMALs in base64 are their unscaled integer's bytes: taken
    // from the stored digit groups when they fit 128 bits, without the
    // text and its parse.
    if options.decimal_handling_mode == DecimalHandlingMode::Precise
        && options.decimal_format == DecimalFormat::Base64
    {
        if let Some((negative, magnitude)) = d.unscaled_u128().map_err(ValueProblem::Decode)? {
            let (bytes, start) = unscaled_bytes(negative, magnitude);
            out.push('"');
            push_base64(out, &bytes[start..], false);
            out.push('"');
            return Ok(());
        }
    }
    scratch.text.clear();
    d.render(&mut scratch.text).map_err(ValueProblem::Decode)?;
    push_decimal(out, &scratch.text, options, &mut scratch.bytes)
        .ok_or_else(|| ValueProblem::Mismatch(format!("DECIMAL text {:?}", scratch.text)))?;
    Ok(())
}

/// A DATE as days since the epoch or ISO text; a zero one as
/// [`push_zero_date`] writes it.
#[inline]
fn push_date_value(out: &mut String, plan: &ColumnPlan, repr: DateRepr, d: &Date) {
    match adjusted_date(d) {
        None => push_zero_date(out, plan),
        Some((year, month, day)) => match repr {
            DateRepr::Days(_) => push_i64(out, days_from_civil(year, month, day)),
            DateRepr::Iso => {
                out.push('"');
                push_iso_date(out, year, month, day);
                out.push_str("Z\"");
            }
        },
    }
}

/// A TIME in ms, µs, ns or ISO text; outside a day, what Connect's Time
/// and the ISO form cannot hold is unrepresentable.
#[inline]
fn push_time_value(
    out: &mut String,
    plan: &ColumnPlan,
    repr: TimeRepr,
    t: &Time,
    options: &DebeziumOptions,
) -> Result<(), ValueProblem> {
    let seconds = t.hours as i64 * 3600 + t.minutes as i64 * 60 + t.seconds as i64;
    let magnitude = seconds * 1_000_000 + t.micros as i64;
    let micros = if t.negative { -magnitude } else { magnitude };
    // Connect's Time and the ISO form hold a time of day only.
    let of_day = (0..=86_400_000_000).contains(&micros);
    match repr {
        TimeRepr::Micros => push_i64(out, micros),
        TimeRepr::Nanos => push_i64(out, micros * 1000),
        // Java's (int) of the long ms: the low 32 bits.
        TimeRepr::Millis => push_i64(out, micros.div_euclid(1000) as i32 as i64),
        TimeRepr::ConnectMillis if of_day => push_i64(out, micros / 1000),
        TimeRepr::Iso if of_day => {
            out.push('"');
            push_iso_time(out, micros.rem_euclid(86_400_000_000));
            out.push_str("Z\"");
        }
        TimeRepr::ConnectMillis | TimeRepr::Iso => unrepresentable(out, plan, || {
            format!(
                "TIME {} is outside 00:00:00..24:00:00, all that time.precision.mode={} holds",
                time_text(t),
                options.time_precision_mode.name()
            )
        })?,
    }
    Ok(())
}

/// A DATETIME in ms, µs, ns since the epoch or ISO text; a zero one as
/// [`push_zero_date`] writes it (the epoch in ISO text in a NOT NULL
/// column without DEFAULT).
#[inline]
fn push_datetime_value(
    out: &mut String,
    plan: &ColumnPlan,
    repr: DateTimeRepr,
    dt: &DateTime,
) -> Result<(), ValueProblem> {
    let Some((year, month, day)) = adjusted_date(&dt.date) else {
        match repr {
            DateTimeRepr::Iso if !plan.optional && plan.default.is_none() => {
                out.push_str("\"1970-01-01T00:00:00Z\"")
            }
            _ => push_zero_date(out, plan),
        }
        return Ok(());
    };
    let days = days_from_civil(year, month, day);
    let second_of_day = dt.hour as i64 * 3600 + dt.minute as i64 * 60 + dt.second as i64;
    let seconds = days * 86_400 + second_of_day;
    match repr {
        DateTimeRepr::Millis(_) => push_i64(out, seconds * 1000 + dt.micros as i64 / 1000),
        DateTimeRepr::Micros => push_i64(out, seconds * 1_000_000 + dt.micros as i64),
        DateTimeRepr::Nanos => {
            // As Debezium computes it: the day's nanoseconds
            // first, so a day past the range fails even when
            // the instant would fit.
            let nanos = days.checked_mul(86_400_000_000_000).and_then(|d| {
                d.checked_add(second_of_day * 1_000_000_000 + dt.micros as i64 * 1000)
            });
            match nanos {
                Some(n) => push_i64(out, n),
                None => unrepresentable(out, plan, || {
                    format!(
                        "DATETIME {year:04}-{month:02}-{day:02} is outside what int64 nanoseconds since the epoch hold (time.precision.mode=nanoseconds)"
                    )
                })?,
            }
        }
        DateTimeRepr::Iso => {
            out.push('"');
            push_iso_date(out, year, month, day);
            out.push('T');
            push_iso_time(out, second_of_day * 1_000_000 + dt.micros as i64);
            out.push_str("Z\"");
        }
    }
    Ok(())
}

/// A TIMESTAMP as a zoned ISO string with `fsp` fraction digits.
#[inline]
fn push_timestamp_value(out: &mut String, plan: &ColumnPlan, fsp: u8, ts: &Timestamp) {
    if ts.seconds == 0 && ts.micros == 0 {
        // A zero TIMESTAMP is no value: null (or the DEFAULT), and
        // in a NOT NULL column the DEFAULT or the epoch.
        out.push_str(match (plan.optional, &plan.default) {
            (true, _) => plan.null(),
            (false, Some(default)) => default,
            (false, None) => "\"1970-01-01T00:00:00Z\"",
        });
    } else {
        push_zoned_timestamp(out, ts.seconds as i64, ts.micros, fsp);
    }
}

/// A binary string, BINARY(n) values padded back to `pad_to` with zeros.
#[inline]
fn push_binary_value(
    out: &mut String,
    b: &[u8],
    pad_to: usize,
    options: &DebeziumOptions,
    scratch: &mut Scratch,
) {
    let bytes: &[u8] = if b.len() < pad_to {
        scratch.bytes.clear();
        scratch.bytes.extend_from_slice(b);
        scratch.bytes.resize(pad_to, 0);
        &scratch.bytes
    } else {
        b
    };
    push_binary(out, bytes, options.binary_handling_mode);
}

/// A SET: its labels joined by commas.
#[inline]
fn push_set_value(out: &mut String, labels: &[String], bits: u64) {
    out.push('"');
    let mut first = true;
    for (i, l) in labels.iter().enumerate().take(64) {
        if bits & (1u64 << i) != 0 {
            if !first {
                out.push(',');
            }
            first = false;
            push_escaped(out, l);
        }
    }
    out.push('"');
}

/// MySQL's binary JSON (or JSON text): Debezium's binlog reader prints it
/// compact (`{"a":[1,2]}`) where MySQL's rendering has `, ` and `: `.
#[inline]
fn push_json_value(
    out: &mut String,
    def: &ColumnDef,
    value: &Value<'_>,
    scratch: &mut Scratch,
) -> Result<(), ValueProblem> {
    scratch.text.clear();
    value
        .render(def, &mut scratch.text)
        .map_err(ValueProblem::Decode)?;
    out.push('"');
    push_compact_json_escaped(out, &scratch.text);
    out.push('"');
    Ok(())
}

/// A VECTOR: a JSON array of its little-endian float32s.
#[inline]
fn push_vector_value(out: &mut String, b: &[u8]) {
    out.push('[');
    for (i, c) in b.chunks_exact(4).enumerate() {
        if i > 0 {
            out.push(',');
        }
        let f = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        push_java_float(out, f as f64, true);
    }
    out.push(']');
}

/// A DATE's year, month and day as Debezium reads them: `None` for a zero
/// or partly zero date (`0000-00-00`, `2024-00-01`, `0000-01-01`), and
/// years 0–69 taken as 2000–2069, 70–99 as 1970–1999 (the MySQL
/// connector's two-digit-year adjuster, `enable.time.adjuster`).
fn adjusted_date(d: &sluice_binlog::temporal::Date) -> Option<(i64, u32, u32)> {
    if d.year == 0 || d.month == 0 || d.day == 0 {
        return None;
    }
    let year = match d.year {
        1..=69 => d.year as i64 + 2000,
        70..=99 => d.year as i64 + 1900,
        y => y as i64,
    };
    Some((year, d.month as u32, d.day as u32))
}

/// A value that the column's representation cannot hold: null when the
/// column may be null (Debezium logs it and writes null), else an error
/// (Debezium's engine stops on it).
fn unrepresentable(
    out: &mut String,
    plan: &ColumnPlan,
    detail: impl FnOnce() -> String,
) -> Result<(), ValueProblem> {
    if plan.optional {
        out.push_str(plan.null());
        Ok(())
    } else {
        Err(ValueProblem::Mismatch(format!(
            "{} in a NOT NULL column",
            detail()
        )))
    }
}

/// `[-]h:mm:ss[.ffffff]` of a TIME, for messages.
fn time_text(t: &sluice_binlog::temporal::Time) -> String {
    let sign = if t.negative { "-" } else { "" };
    let mut s = format!("{sign}{:02}:{:02}:{:02}", t.hours, t.minutes, t.seconds);
    if t.micros != 0 {
        s.push_str(&format!(".{:06}", t.micros));
    }
    s
}

/// Appends the JSON document `doc`, rendered as MySQL prints it (a space
/// after each `,` and `:` outside strings, nowhere else), without those
/// spaces and escaped as the inside of a JSON string.
pub(super) fn push_compact_json_escaped(out: &mut String, doc: &str) {
    let mut in_string = false;
    let mut escaped = false;
    let mut previous = '\0';
    let mut start = 0;
    for (i, c) in doc.char_indices() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if c == ' ' && (previous == ',' || previous == ':') {
            push_escaped(out, &doc[start..i]);
            start = i + 1;
        }
        previous = c;
    }
    push_escaped(out, &doc[start..]);
}

/// GEOMETRY as Debezium's `Geometry` struct `{wkb, srid}` (or `Point`
/// `{x, y, wkb, srid}`): MySQL's value is a 4-byte little-endian SRID then
/// the WKB; SRID 0 is written as null.
fn push_geometry(out: &mut String, plan: &ColumnPlan, b: &[u8]) -> Result<(), ValueProblem> {
    let (srid, wkb) = match (b.get(..4), b.get(4..)) {
        (Some(s), Some(w)) => (u32::from_le_bytes([s[0], s[1], s[2], s[3]]), w),
        _ => {
            return Err(ValueProblem::Mismatch(format!(
                "a geometry of {} bytes",
                b.len()
            )))
        }
    };
    out.push('{');
    if plan.kind == Kind::Point {
        // WKB point: byte order, type (u32), x and y (f64).
        let little = wkb.first() == Some(&1);
        let coord = |at: usize| -> Option<f64> {
            let raw: [u8; 8] = wkb.get(at..at + 8)?.try_into().ok()?;
            Some(if little {
                f64::from_le_bytes(raw)
            } else {
                f64::from_be_bytes(raw)
            })
        };
        let (Some(x), Some(y)) = (coord(5), coord(13)) else {
            return Err(ValueProblem::Mismatch(format!(
                "a POINT of {} WKB bytes",
                wkb.len()
            )));
        };
        out.push_str("\"x\":");
        push_java_float(out, x, false);
        out.push_str(",\"y\":");
        push_java_float(out, y, false);
        out.push(',');
    }
    out.push_str("\"wkb\":\"");
    push_base64(out, wkb, false);
    out.push_str("\",\"srid\":");
    if srid == 0 {
        out.push_str("null");
    } else {
        push_i64(out, srid as i64);
    }
    out.push('}');
    Ok(())
}

fn value_kind(v: &Value<'_>) -> &'static str {
    match v {
        Value::Null => "NULL",
        Value::Int(_) => "signed integer",
        Value::UInt(_) => "unsigned integer",
        Value::Float(_) => "FLOAT",
        Value::Double(_) => "DOUBLE",
        Value::Decimal(_) => "DECIMAL",
        Value::Year(_) => "YEAR",
        Value::Date(_) => "DATE",
        Value::Time(_) => "TIME",
        Value::DateTime(_) => "DATETIME",
        Value::Timestamp(_) => "TIMESTAMP",
        Value::Bytes(_) => "string/binary",
        Value::Enum(_) => "ENUM",
        Value::Set(_) => "SET",
        Value::Bit(_) => "BIT",
        Value::Json(_) | Value::JsonText(_) | Value::JsonDiff { .. } => "JSON",
        Value::Geometry(_) => "GEOMETRY",
        Value::Vector(_) => "VECTOR",
    }
}
