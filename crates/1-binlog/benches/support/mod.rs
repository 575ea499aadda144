//! Helpers of the decoder benchmark that sluice-source's pull benchmark
//! includes too (`#[path]`), so both fold decoded values the same way.

use sluice_binlog::Value;

/// A cheap digest of a decoded value: reads every decoded field (for
/// borrowed bytes, their length and last byte).
#[inline]
pub fn fold_value(v: &Value<'_>) -> u64 {
    let tail = |b: &[u8]| (b.len() as u64) << 8 | b.last().copied().unwrap_or(0) as u64;
    match v {
        Value::Null => 1,
        Value::Int(x) => *x as u64,
        Value::UInt(x) => *x,
        Value::Float(x) => x.to_bits() as u64,
        Value::Double(x) => x.to_bits(),
        Value::Decimal(d) => (d.precision as u64) << 48 | (d.scale as u64) << 40 | tail(d.bytes),
        Value::Year(y) => *y as u64,
        Value::Date(d) => (d.year as u64) << 16 | (d.month as u64) << 8 | d.day as u64,
        Value::Time(t) => {
            (t.negative as u64) << 63
                | (t.hours as u64) << 32
                | (t.minutes as u64) << 24
                | (t.seconds as u64) << 16
                | t.micros as u64
        }
        Value::DateTime(d) => {
            (d.date.year as u64) << 48
                | (d.date.month as u64) << 40
                | (d.date.day as u64) << 32
                | (d.hour as u64) << 24
                | (d.minute as u64) << 16
                | (d.second as u64) << 8
                | d.micros as u64
        }
        Value::Timestamp(ts) => (ts.seconds as u64) << 20 | ts.micros as u64,
        Value::Bytes(b) | Value::Bit(b) | Value::Json(b) => tail(b),
        Value::Geometry(b) | Value::Vector(b) => tail(b),
        Value::Enum(e) => *e as u64,
        Value::Set(s) => *s,
        Value::JsonText(s) => tail(s.as_bytes()),
        Value::JsonDiff { column, diffs } => (*column as u64) << 56 | tail(diffs.as_bytes()),
    }
}
