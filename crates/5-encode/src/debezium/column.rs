//! How each column is written: its Kafka Connect type (as the MySQL
//! connector maps it, §1.8 of the Debezium spec), its field schema and its
//! JSON value, from the decoder's typed [`Value`]s.

use sluice_binlog::temporal::civil_from_days;
use sluice_binlog::{Charset, ColumnDef, ColumnType, Value};
use sluice_events::Column;

use super::text::{
    days_from_civil, decimal_unscaled_bytes, push_base64, push_escaped, push_hex, push_i64,
    push_java_big_decimal, push_java_float, push_str, u64_unscaled_bytes,
};
use super::{
    BigIntUnsignedHandlingMode, BinaryHandlingMode, DebeziumOptions, DecimalFormat,
    DecimalHandlingMode,
};

/// What a column is to Debezium.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// BIT(1) and columns declared BOOLEAN/BOOL.
    Boolean,
    /// An integer column: `bits` of storage, whether it is UNSIGNED, and
    /// the Connect type it maps to (`int8` … `int64`).
    Int {
        bits: u32,
        unsigned: bool,
        connect: &'static str,
    },
    /// BIGINT UNSIGNED with `bigint.unsigned.handling.mode=precise`.
    UnsignedBigIntPrecise,
    Float32,
    Float64,
    Decimal {
        precision: u8,
        scale: u8,
    },
    Year,
    Date,
    Time,
    /// DATETIME: milliseconds for fsp 0–3, microseconds for 4–6.
    DateTime {
        micros: bool,
    },
    Timestamp {
        fsp: u8,
    },
    Text,
    /// BINARY/VARBINARY/BLOB; BINARY(n) values are padded back to `pad_to`.
    Binary {
        pad_to: usize,
    },
    Enum(Vec<String>),
    Set(Vec<String>),
    /// BIT(n), n > 1.
    Bits {
        bits: u16,
    },
    Json,
    Geometry,
    Point,
    Vector,
    /// MYSQL_TYPE_NULL: always null.
    Null,
}

/// One column of a table as Debezium writes it.
#[derive(Debug, Clone)]
pub(crate) struct ColumnPlan {
    /// `"name":`, escaped, ready to write before the value.
    pub field: String,
    pub name: String,
    pub kind: Kind,
    pub optional: bool,
}

impl ColumnPlan {
    pub fn new(column: &Column<'_>, options: &DebeziumOptions) -> Self {
        let name = if column.name.is_empty() {
            format!("@{}", column.index + 1)
        } else {
            column.name.to_string()
        };
        let mut field = String::with_capacity(name.len() + 3);
        push_str(&mut field, &name);
        field.push(':');
        ColumnPlan {
            field,
            name,
            kind: kind_of(column, options),
            optional: column.def.nullable && !column.is_key,
        }
    }
}

/// The declared type, lowercased (`int(10) unsigned`, `enum('a','b')`).
fn declared(column: &Column<'_>) -> String {
    column.mysql_type.trim().to_ascii_lowercase()
}

fn kind_of(column: &Column<'_>, options: &DebeziumOptions) -> Kind {
    let def = column.def;
    let declared = declared(column);
    // The binlog's SIGNEDNESS metadata when present, else the declared type.
    let unsigned = def
        .unsigned
        .unwrap_or_else(|| declared.contains("unsigned"));
    let int = |bits: u32, signed: &'static str, unsigned_type: &'static str| Kind::Int {
        bits,
        unsigned,
        connect: if unsigned { unsigned_type } else { signed },
    };
    match def.column_type {
        ColumnType::Tiny if declared.starts_with("bool") => Kind::Boolean,
        // int16 signed or not: Debezium maps JDBC TINYINT to int16 (seen in
        // Debezium 3.6.3's schemas; its docs' table says int8).
        ColumnType::Tiny => int(8, "int16", "int16"),
        ColumnType::Short => int(16, "int16", "int32"),
        ColumnType::Int24 => int(24, "int32", "int32"),
        ColumnType::Long => int(32, "int32", "int64"),
        ColumnType::LongLong => {
            if unsigned
                && options.bigint_unsigned_handling_mode == BigIntUnsignedHandlingMode::Precise
            {
                Kind::UnsignedBigIntPrecise
            } else {
                int(64, "int64", "int64")
            }
        }
        // FLOAT(M,D) is float64 to Debezium; plain FLOAT and FLOAT(p<=23) float32.
        ColumnType::Float if declared.contains(',') => Kind::Float64,
        ColumnType::Float => Kind::Float32,
        ColumnType::Double => Kind::Float64,
        ColumnType::NewDecimal { precision, scale } => Kind::Decimal { precision, scale },
        ColumnType::Year => Kind::Year,
        ColumnType::Date => Kind::Date,
        ColumnType::Time | ColumnType::Time2 { .. } => Kind::Time,
        ColumnType::DateTime => Kind::DateTime { micros: false },
        ColumnType::DateTime2 { fsp } => Kind::DateTime { micros: fsp > 3 },
        ColumnType::Timestamp => Kind::Timestamp { fsp: 0 },
        ColumnType::Timestamp2 { fsp } => Kind::Timestamp { fsp },
        // MariaDB's JSON is a LONGTEXT in the binlog; Debezium, reading the
        // CREATE TABLE, gives it the Json name like MySQL's JSON.
        ColumnType::Blob { .. } if declared == "json" => Kind::Json,
        ColumnType::VarChar { .. } | ColumnType::Char { .. } | ColumnType::Blob { .. } => {
            let binary = match def.charset() {
                Some(charset) => charset == Charset::Binary,
                None => declared.contains("binary") || declared.contains("blob"),
            };
            if binary {
                let pad_to = match def.column_type {
                    ColumnType::Char { max_len } => max_len as usize,
                    _ => 0,
                };
                Kind::Binary { pad_to }
            } else {
                Kind::Text
            }
        }
        // Labels keep their case: parsed from the declared type as written.
        ColumnType::Enum { .. } => Kind::Enum(labels(def, column.mysql_type)),
        ColumnType::Set { .. } => Kind::Set(labels(def, column.mysql_type)),
        ColumnType::Bit { bits: 1 } => Kind::Boolean,
        ColumnType::Bit { bits } => Kind::Bits { bits },
        ColumnType::Json { .. } => Kind::Json,
        ColumnType::Geometry { .. } => {
            // GEOMETRY_TYPE metadata: 1 is POINT.
            if def.geometry_type == Some(1) || declared.starts_with("point") {
                Kind::Point
            } else {
                Kind::Geometry
            }
        }
        ColumnType::Vector { .. } => Kind::Vector,
        ColumnType::Null => Kind::Null,
    }
}

/// ENUM/SET labels: the binlog's (FULL row metadata) or those of the
/// declared type `enum('a','b')` (quotes doubled inside labels).
fn labels(def: &ColumnDef, declared: &str) -> Vec<String> {
    if let Some(labels) = &def.labels {
        return labels
            .iter()
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .collect();
    }
    let Some(open) = declared.find('(') else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut chars = declared[open + 1..].chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\'' {
            if c == ')' {
                break;
            }
            continue;
        }
        let mut label = String::new();
        while let Some(c) = chars.next() {
            if c == '\'' {
                if chars.peek() == Some(&'\'') {
                    chars.next();
                    label.push('\'');
                    continue;
                }
                break;
            }
            label.push(c);
        }
        out.push(label);
    }
    out
}

/// Appends a field's JsonConverter schema: `type`, `fields`/`items`,
/// `optional`, then `name`, `version`, `parameters` when set, then `field`.
pub(crate) fn push_field_schema(out: &mut String, plan: &ColumnPlan, options: &DebeziumOptions) {
    let optional = plan.optional;
    let simple = |out: &mut String, ty: &str| {
        out.push_str("{\"type\":\"");
        out.push_str(ty);
        out.push_str("\",\"optional\":");
        out.push_str(if optional { "true" } else { "false" });
    };
    let named = |out: &mut String, ty: &str, name: &str| {
        simple(out, ty);
        out.push_str(",\"name\":\"");
        out.push_str(name);
        out.push_str("\",\"version\":1");
    };
    let decimal = |out: &mut String, precision: u32, scale: u32| {
        simple(out, "bytes");
        out.push_str(
            ",\"name\":\"org.apache.kafka.connect.data.Decimal\",\"version\":1,\"parameters\":{\"scale\":\"",
        );
        push_i64(out, scale as i64);
        out.push_str("\",\"connect.decimal.precision\":\"");
        push_i64(out, precision as i64);
        out.push_str("\"}");
    };
    let allowed = |out: &mut String, ty: &str, name: &str, labels: &[String]| {
        named(out, ty, name);
        out.push_str(",\"parameters\":{\"allowed\":\"");
        for (i, l) in labels.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_escaped(out, l);
        }
        out.push_str("\"}");
    };
    match &plan.kind {
        Kind::Boolean => simple(out, "boolean"),
        Kind::Int { connect, .. } => simple(out, connect),
        Kind::UnsignedBigIntPrecise => decimal(out, 20, 0),
        Kind::Float32 => simple(out, "float"),
        Kind::Float64 => simple(out, "double"),
        Kind::Decimal { precision, scale } => match options.decimal_handling_mode {
            DecimalHandlingMode::Precise => decimal(out, *precision as u32, *scale as u32),
            DecimalHandlingMode::Double => simple(out, "double"),
            DecimalHandlingMode::String => simple(out, "string"),
        },
        Kind::Year => named(out, "int32", "io.debezium.time.Year"),
        Kind::Date => named(out, "int32", "io.debezium.time.Date"),
        Kind::Time => named(out, "int64", "io.debezium.time.MicroTime"),
        Kind::DateTime { micros: false } => named(out, "int64", "io.debezium.time.Timestamp"),
        Kind::DateTime { micros: true } => named(out, "int64", "io.debezium.time.MicroTimestamp"),
        Kind::Timestamp { .. } => named(out, "string", "io.debezium.time.ZonedTimestamp"),
        Kind::Text => simple(out, "string"),
        Kind::Binary { .. } => match options.binary_handling_mode {
            BinaryHandlingMode::Bytes => simple(out, "bytes"),
            _ => simple(out, "string"),
        },
        Kind::Enum(labels) => allowed(out, "string", "io.debezium.data.Enum", labels),
        Kind::Set(labels) => allowed(out, "string", "io.debezium.data.EnumSet", labels),
        Kind::Bits { bits } => {
            named(out, "bytes", "io.debezium.data.Bits");
            out.push_str(",\"parameters\":{\"length\":\"");
            push_i64(out, *bits as i64);
            out.push_str("\"}");
        }
        Kind::Json => named(out, "string", "io.debezium.data.Json"),
        // Debezium's Geometry schema is optional whatever the column says.
        Kind::Geometry => {
            out.push_str(
                "{\"type\":\"struct\",\"fields\":[{\"type\":\"bytes\",\"optional\":false,\"field\":\"wkb\"},{\"type\":\"int32\",\"optional\":true,\"field\":\"srid\"}],\"optional\":true",
            );
            out.push_str(
                ",\"name\":\"io.debezium.data.geometry.Geometry\",\"version\":1,\"doc\":\"Geometry\"",
            );
        }
        Kind::Point => {
            out.push_str(
                "{\"type\":\"struct\",\"fields\":[{\"type\":\"double\",\"optional\":false,\"field\":\"x\"},{\"type\":\"double\",\"optional\":false,\"field\":\"y\"},{\"type\":\"bytes\",\"optional\":true,\"field\":\"wkb\"},{\"type\":\"int32\",\"optional\":true,\"field\":\"srid\"}],\"optional\":",
            );
            out.push_str(if optional { "true" } else { "false" });
            out.push_str(
                ",\"name\":\"io.debezium.data.geometry.Point\",\"version\":1,\"doc\":\"Geometry (POINT)\"",
            );
        }
        Kind::Vector => {
            out.push_str("{\"type\":\"array\",\"items\":{\"type\":\"float\",\"optional\":false},\"optional\":");
            out.push_str(if optional { "true" } else { "false" });
            out.push_str(",\"name\":\"io.debezium.data.FloatVector\",\"version\":1");
        }
        Kind::Null => simple(out, "string"),
    }
    out.push_str(",\"field\":");
    push_str(out, &plan.name);
    out.push('}');
}

/// Why a value could not be written.
pub(crate) enum ValueProblem {
    /// The decoded value is not of the column's kind.
    Mismatch(String),
    Decode(sluice_binlog::DecodeError),
}

/// Buffers reused from value to value.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    pub text: String,
    pub bytes: Vec<u8>,
}

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
    let mismatch = || {
        ValueProblem::Mismatch(format!(
            "a {} value in a column written as {:?}",
            value_kind(value),
            plan.kind
        ))
    };
    // Zero or invalid dates: null when the column may be null, else epoch.
    let zero = |out: &mut String| {
        out.push_str(if plan.optional { "null" } else { "0" });
    };
    if value.is_null() {
        out.push_str("null");
        return Ok(());
    }
    match (&plan.kind, value) {
        (Kind::Null, _) => out.push_str("null"),
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
        ) => {
            let raw = match value {
                Value::UInt(u) => *u,
                Value::Int(i) => *i as u64,
                _ => 0,
            };
            let n = if *bits >= 64 {
                raw
            } else {
                raw & ((1u64 << bits) - 1)
            };
            // BIGINT UNSIGNED in long mode: two's complement, so values of
            // 2^63 and more come out negative, as Debezium writes them.
            push_i64(out, n as i64);
        }
        (Kind::Int { .. }, Value::Int(v)) => push_i64(out, *v),
        (Kind::Int { .. }, Value::UInt(v)) => push_i64(out, *v as i64),
        (Kind::UnsignedBigIntPrecise, Value::UInt(_) | Value::Int(_)) => {
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
        (Kind::Float32, Value::Float(f)) => push_java_float(out, *f as f64, true),
        (Kind::Float64, Value::Double(f)) => push_java_float(out, *f, false),
        (Kind::Float64, Value::Float(f)) => push_java_float(out, *f as f64, false),
        (Kind::Decimal { .. }, Value::Decimal(d)) => {
            scratch.text.clear();
            d.render(&mut scratch.text).map_err(ValueProblem::Decode)?;
            push_decimal(out, &scratch.text, options, &mut scratch.bytes).ok_or_else(|| {
                ValueProblem::Mismatch(format!("DECIMAL text {:?}", scratch.text))
            })?;
        }
        // Debezium's binlog reader reads YEAR as 1900 + the stored byte, so
        // YEAR 0000 comes out as 1900.
        (Kind::Year, Value::Year(y)) => push_i64(out, 1900 + *y as i64),
        (Kind::Date, Value::Date(d)) => {
            if d.year == 0 || d.month == 0 || d.day == 0 {
                zero(out);
            } else {
                push_i64(
                    out,
                    days_from_civil(d.year as i64, d.month as u32, d.day as u32),
                );
            }
        }
        (Kind::Time, Value::Time(t)) => {
            let seconds = t.hours as i64 * 3600 + t.minutes as i64 * 60 + t.seconds as i64;
            let micros = seconds * 1_000_000 + t.micros as i64;
            push_i64(out, if t.negative { -micros } else { micros });
        }
        (Kind::DateTime { micros }, Value::DateTime(dt)) => {
            let d = dt.date;
            if d.year == 0 || d.month == 0 || d.day == 0 {
                zero(out);
            } else {
                let days = days_from_civil(d.year as i64, d.month as u32, d.day as u32);
                let seconds = days * 86_400
                    + dt.hour as i64 * 3600
                    + dt.minute as i64 * 60
                    + dt.second as i64;
                if *micros {
                    push_i64(out, seconds * 1_000_000 + dt.micros as i64);
                } else {
                    push_i64(out, seconds * 1000 + dt.micros as i64 / 1000);
                }
            }
        }
        (Kind::Timestamp { fsp }, Value::Timestamp(ts)) => {
            if ts.seconds == 0 && ts.micros == 0 {
                if plan.optional {
                    out.push_str("null");
                } else {
                    out.push_str("\"1970-01-01T00:00:00Z\"");
                }
            } else {
                push_zoned_timestamp(out, ts.seconds as i64, ts.micros, *fsp);
            }
        }
        // MariaDB's JSON arrives as text and is written as it is.
        (Kind::Text | Kind::Json, Value::Bytes(_)) => {
            scratch.text.clear();
            value
                .render(def, &mut scratch.text)
                .map_err(ValueProblem::Decode)?;
            push_str(out, &scratch.text);
        }
        (Kind::Binary { pad_to }, Value::Bytes(b)) => {
            let bytes: &[u8] = if b.len() < *pad_to {
                scratch.bytes.clear();
                scratch.bytes.extend_from_slice(b);
                scratch.bytes.resize(*pad_to, 0);
                &scratch.bytes
            } else {
                b
            };
            push_binary(out, bytes, options.binary_handling_mode);
        }
        (Kind::Enum(labels), Value::Enum(i)) => {
            let label = (*i as usize)
                .checked_sub(1)
                .and_then(|i| labels.get(i))
                .map(String::as_str)
                .unwrap_or("");
            push_str(out, label);
        }
        (Kind::Set(labels), Value::Set(bits)) => {
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
            out.push_str(if plan.optional { "null" } else { "\"{}\"" });
        }
        (Kind::Json, Value::Json(_) | Value::JsonText(_)) | (Kind::Text, Value::JsonText(_)) => {
            // MySQL's binary JSON: Debezium's binlog reader prints it
            // compact (`{"a":[1,2]}`) where MySQL's rendering has `, ` and `: `.
            scratch.text.clear();
            value
                .render(def, &mut scratch.text)
                .map_err(ValueProblem::Decode)?;
            out.push('"');
            push_compact_json_escaped(out, &scratch.text);
            out.push('"');
        }
        (Kind::Json, Value::JsonDiff { .. }) => return Err(ValueProblem::Mismatch(
            "a partial JSON update without its before image (Debezium needs binlog_row_image=FULL)"
                .into(),
        )),
        (Kind::Geometry | Kind::Point, Value::Geometry(b)) => push_geometry(out, plan, b)?,
        (Kind::Vector, Value::Vector(b)) => {
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
        _ => return Err(mismatch()),
    }
    Ok(())
}

/// Appends the JSON document `doc`, rendered as MySQL prints it (a space
/// after each `,` and `:` outside strings, nowhere else), without those
/// spaces and escaped as the inside of a JSON string.
fn push_compact_json_escaped(out: &mut String, doc: &str) {
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

/// A DECIMAL under `decimal.handling.mode` and `converter.decimal.format`.
fn push_decimal(
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

fn push_binary(out: &mut String, bytes: &[u8], mode: BinaryHandlingMode) {
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
fn push_zoned_timestamp(out: &mut String, seconds: i64, micros: u32, fsp: u8) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_from_the_declared_type() {
        let def = ColumnDef {
            type_code: 254,
            column_type: ColumnType::Enum { pack_len: 1 },
            nullable: true,
            unsigned: None,
            collation: None,
            name: None,
            labels: None,
            geometry_type: None,
            primary_key_prefix: None,
            visible: None,
        };
        assert_eq!(
            labels(&def, "enum('a','it''s','c,d')"),
            ["a", "it's", "c,d"]
        );
        assert_eq!(labels(&def, "set('x')"), ["x"]);
        assert!(labels(&def, "enum").is_empty());
    }

    #[test]
    fn mysql_json_is_written_compact() {
        let mut out = String::new();
        push_compact_json_escaped(&mut out, r#"{"a": [1, 2.5, "x, y: \"z\""], "b: c": null}"#);
        assert_eq!(out, r#"{\"a\":[1,2.5,\"x, y: \\\"z\\\"\"],\"b: c\":null}"#);
    }

    #[test]
    fn zoned_timestamps_have_exactly_fsp_digits() {
        let ts = |s: i64, us: u32, fsp: u8| {
            let mut out = String::new();
            push_zoned_timestamp(&mut out, s, us, fsp);
            out
        };
        assert_eq!(ts(1_673_397_250, 0, 3), "\"2023-01-11T00:34:10.000Z\"");
        assert_eq!(ts(1_673_397_250, 10_000, 3), "\"2023-01-11T00:34:10.010Z\"");
        assert_eq!(
            ts(1_673_397_250, 123_000, 6),
            "\"2023-01-11T00:34:10.123000Z\""
        );
        assert_eq!(ts(1_529_501_823, 0, 0), "\"2018-06-20T13:37:03Z\"");
    }
}
