//! Text writers shared by values and DEFAULTs: ISO dates and times, zoned
//! timestamps, DECIMALs and binary strings as Debezium writes them.

use sluice_binlog::temporal::civil_from_days;

use super::super::text::{
    decimal_unscaled_bytes, push_base64, push_hex, push_i64, push_java_big_decimal,
    push_java_float, push_str,
};
use super::super::{BinaryHandlingMode, DebeziumOptions, DecimalFormat, DecimalHandlingMode};

/// `yyyy-mm-dd` (years 1–9999, as Java's ISO_LOCAL_DATE pads them).
pub(super) fn push_iso_date(out: &mut String, year: i64, month: u32, day: u32) {
    push_padded(out, year, 4);
    out.push('-');
    push_padded(out, month as i64, 2);
    out.push('-');
    push_padded(out, day as i64, 2);
}

/// `hh:mm:ss` of a time of day in µs (0 <= `micros` < 24 h), then the
/// fraction without its trailing zeros (none if zero), as Java's
/// ISO_LOCAL_TIME prints it.
pub(super) fn push_iso_time(out: &mut String, micros: i64) {
    let seconds = micros / 1_000_000;
    push_padded(out, seconds / 3600, 2);
    out.push(':');
    push_padded(out, seconds / 60 % 60, 2);
    out.push(':');
    push_padded(out, seconds % 60, 2);
    let mut frac = micros % 1_000_000;
    if frac != 0 {
        out.push('.');
        let mut digits = 6;
        while frac % 10 == 0 {
            frac /= 10;
            digits -= 1;
        }
        let text = frac.to_string();
        for _ in text.len()..digits {
            out.push('0');
        }
        out.push_str(&text);
    }
}

/// A non-negative number with at least `width` digits.
fn push_padded(out: &mut String, v: i64, width: usize) {
    let mut limit = 10i64;
    for _ in 1..width {
        if v < limit {
            out.push('0');
        }
        limit = limit.saturating_mul(10);
    }
    push_i64(out, v);
}

/// A DECIMAL under `decimal.handling.mode` and `converter.decimal.format`.
pub(super) fn push_decimal(
    out: &mut String,
    text: &str,
    options: &DebeziumOptions,
    bytes: &mut Vec<u8>,
) -> Option<()> {
    match options.decimal_handling_mode {
        DecimalHandlingMode::Precise => match options.decimal_format {
            DecimalFormat::Base64 => {
                if !decimal_unscaled_bytes(text, bytes) {
                    return None;
                }
                out.push('"');
                push_base64(out, bytes, false);
                out.push('"');
            }
            DecimalFormat::Numeric => push_java_big_decimal(out, text),
        },
        DecimalHandlingMode::Double => {
            let v: f64 = text.parse().ok()?;
            push_java_float(out, v, false);
        }
        DecimalHandlingMode::String => push_str(out, text),
    }
    Some(())
}

pub(super) fn push_binary(out: &mut String, bytes: &[u8], mode: BinaryHandlingMode) {
    out.push('"');
    match mode {
        BinaryHandlingMode::Bytes | BinaryHandlingMode::Base64 => push_base64(out, bytes, false),
        BinaryHandlingMode::Base64UrlSafe => push_base64(out, bytes, true),
        BinaryHandlingMode::Hex => push_hex(out, bytes),
    }
    out.push('"');
}

/// `2023-01-11T00:34:10.000Z`: the instant in UTC with exactly `fsp`
/// fraction digits (none for fsp 0).
pub(super) fn push_zoned_timestamp(out: &mut String, seconds: i64, micros: u32, fsp: u8) {
    let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
    let secs = seconds.rem_euclid(86_400);
    let two = |out: &mut String, v: i64| {
        if v < 10 {
            out.push('0');
        }
        push_i64(out, v);
    };
    out.push('"');
    // Four digits at least, without an allocation (years are 0..=9999 here;
    // others are written as they are).
    if (0..10_000).contains(&year) {
        for d in [1000, 100, 10, 1] {
            out.push(char::from(b'0' + (year / d % 10) as u8));
        }
    } else {
        push_i64(out, year);
    }
    out.push('-');
    two(out, month as i64);
    out.push('-');
    two(out, day as i64);
    out.push('T');
    two(out, secs / 3600);
    out.push(':');
    two(out, secs / 60 % 60);
    out.push(':');
    two(out, secs % 60);
    if fsp > 0 {
        out.push('.');
        let frac = micros % 1_000_000;
        let mut unit = 100_000;
        for _ in 0..fsp.min(6) {
            out.push(char::from(b'0' + (frac / unit % 10) as u8));
            unit /= 10;
        }
    }
    out.push_str("Z\"");
}
