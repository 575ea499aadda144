//! How each column is written: its Kafka Connect type (as the MySQL
//! connector maps it, §1.8 of the Debezium spec), its field schema and its
//! JSON value, from the decoder's typed [`Value`]s.

use std::sync::Arc;

use sluice_binlog::temporal::civil_from_days;
use sluice_binlog::{Charset, ColumnDef, ColumnType, Value};
use sluice_events::Column;

use super::masks::Mask;

use super::text::{
    days_from_civil, decimal_unscaled_bytes, push_base64, push_escaped, push_hex, push_i64,
    push_java_big_decimal, push_java_float, push_str, u64_unscaled_bytes,
};
use super::{
    BigIntUnsignedHandlingMode, BinaryHandlingMode, DebeziumOptions, DecimalFormat,
    DecimalHandlingMode, TimePrecisionMode,
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
    Date(DateRepr),
    Time(TimeRepr),
    DateTime(DateTimeRepr),
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

/// How a DATE is written (`time.precision.mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DateRepr {
    /// int32 days since the epoch, under the schema name given
    /// (`io.debezium.time.Date`, or Connect's `Date` in `connect` mode).
    Days(&'static str),
    /// `io.debezium.time.IsoDate`: `2024-05-01Z`.
    Iso,
}

/// How a TIME is written (`time.precision.mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeRepr {
    /// `io.debezium.time.Time`: int32 ms, wrapping as Java's `(int)` cast
    /// does beyond ±596:31:23.647 (`adaptive`, precision 0–3).
    Millis,
    /// Connect's `Time`: int32 ms within 00:00:00–24:00:00 only.
    ConnectMillis,
    /// `io.debezium.time.MicroTime`: int64 µs.
    Micros,
    /// `io.debezium.time.NanoTime`: int64 ns.
    Nanos,
    /// `io.debezium.time.IsoTime`: `12:30:45.5Z`, within 00:00:00–24:00:00
    /// only (24:00:00 is `00:00:00Z`).
    Iso,
}

/// How a DATETIME is written (`time.precision.mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DateTimeRepr {
    /// int64 ms since the epoch (the fraction floored), under the schema
    /// name given (`io.debezium.time.Timestamp` or Connect's `Timestamp`).
    Millis(&'static str),
    /// `io.debezium.time.MicroTimestamp`: int64 µs.
    Micros,
    /// `io.debezium.time.NanoTimestamp`: int64 ns, for the instants whose
    /// day times 86 400 × 10^9 fits in an int64 and the sum too.
    Nanos,
    /// `io.debezium.time.IsoTimestamp`: `2018-06-20T06:37:03.123Z`.
    Iso,
}

/// The writing of DATE, TIME(fsp) and DATETIME(fsp) under `mode`, as
/// Debezium's `TemporalPrecisionMode` builds their schemas.
fn date_repr(mode: TimePrecisionMode) -> DateRepr {
    match mode {
        TimePrecisionMode::Connect => DateRepr::Days("org.apache.kafka.connect.data.Date"),
        TimePrecisionMode::IsoString => DateRepr::Iso,
        _ => DateRepr::Days("io.debezium.time.Date"),
    }
}

fn time_repr(mode: TimePrecisionMode, fsp: u8) -> TimeRepr {
    match mode {
        TimePrecisionMode::AdaptiveTimeMicroseconds | TimePrecisionMode::Microseconds => {
            TimeRepr::Micros
        }
        TimePrecisionMode::Adaptive if fsp <= 3 => TimeRepr::Millis,
        TimePrecisionMode::Adaptive => TimeRepr::Micros,
        TimePrecisionMode::Connect => TimeRepr::ConnectMillis,
        TimePrecisionMode::IsoString => TimeRepr::Iso,
        TimePrecisionMode::Nanoseconds => TimeRepr::Nanos,
    }
}

fn datetime_repr(mode: TimePrecisionMode, fsp: u8) -> DateTimeRepr {
    match mode {
        TimePrecisionMode::AdaptiveTimeMicroseconds | TimePrecisionMode::Adaptive if fsp <= 3 => {
            DateTimeRepr::Millis("io.debezium.time.Timestamp")
        }
        TimePrecisionMode::AdaptiveTimeMicroseconds
        | TimePrecisionMode::Adaptive
        | TimePrecisionMode::Microseconds => DateTimeRepr::Micros,
        TimePrecisionMode::Connect => {
            DateTimeRepr::Millis("org.apache.kafka.connect.data.Timestamp")
        }
        TimePrecisionMode::IsoString => DateTimeRepr::Iso,
        TimePrecisionMode::Nanoseconds => DateTimeRepr::Nanos,
    }
}

/// One column of a table as Debezium writes it.
#[derive(Debug, Clone)]
pub(crate) struct ColumnPlan {
    /// `"name":`, escaped, ready to write before the value.
    pub field: String,
    pub name: String,
    pub kind: Kind,
    pub optional: bool,
    /// The column's DEFAULT as Debezium writes it (JSON text): in the
    /// field's schema, and in place of a null value.
    pub default: Option<String>,
    /// Shown in `before`/`after` and the value schema (column filters).
    pub kept: bool,
    /// The mask of its values (a character column a mask property names),
    /// with the declared length a hash is cut to.
    pub mask: Option<(Arc<Mask>, Option<usize>)>,
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
        let mut plan = ColumnPlan {
            field,
            name,
            kind: kind_of(column, options),
            optional: column.def.nullable && !column.is_key,
            default: None,
            kept: true,
            mask: None,
        };
        plan.default = default_json(column.default, &plan, options);
        plan
    }

    /// Whether a mask applies to the column's kind: Debezium masks the
    /// JDBC character kinds, which its MySQL connector gives CHAR,
    /// VARCHAR, the TEXT types, ENUM and SET.
    pub fn maskable(&self) -> bool {
        matches!(self.kind, Kind::Text | Kind::Enum(_) | Kind::Set(_))
    }

    /// The declared length of a `char(n)`/`varchar(n)` column: what a
    /// hash mask is cut to.
    pub fn declared_length(column: &Column<'_>) -> Option<usize> {
        let declared = declared(column);
        let (_, rest) = declared.split_once('(')?;
        let (n, _) = rest.split_once(')')?;
        if !(declared.starts_with("char")
            || declared.starts_with("varchar")
            || declared.starts_with("nchar")
            || declared.starts_with("nvarchar")
            || declared.starts_with("national"))
        {
            return None;
        }
        n.trim().parse().ok()
    }

    /// What a null is written as: the DEFAULT when there is one (Kafka's
    /// JsonConverter replaces a null by the schema's default,
    /// `replace.null.with.default`), else null.
    pub fn null(&self) -> &str {
        self.default.as_deref().unwrap_or("null")
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
        ColumnType::Date => Kind::Date(date_repr(options.time_precision_mode)),
        ColumnType::Time => Kind::Time(time_repr(options.time_precision_mode, 0)),
        ColumnType::Time2 { fsp } => Kind::Time(time_repr(options.time_precision_mode, fsp)),
        ColumnType::DateTime => Kind::DateTime(datetime_repr(options.time_precision_mode, 0)),
        ColumnType::DateTime2 { fsp } => {
            Kind::DateTime(datetime_repr(options.time_precision_mode, fsp))
        }
        ColumnType::Timestamp => Kind::Timestamp { fsp: 0 },
        ColumnType::Timestamp2 { fsp } => Kind::Timestamp { fsp },
        // MariaDB's JSON is a LONGTEXT in the binlog; Debezium, reading the
        // CREATE TABLE, gives it the Json name like MySQL's JSON.
        ColumnType::Blob { .. } if declared == "json" => Kind::Json,
        ColumnType::VarChar { .. } | ColumnType::Char { .. } | ColumnType::Blob { .. } => {
            match binary_padding(def, &declared) {
                Some(pad_to) => Kind::Binary { pad_to },
                None => Kind::Text,
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

/// For a string column (VARCHAR, CHAR, BLOB/TEXT) whose bytes are binary:
/// the length BINARY(n) values are padded to with zeros (0 for the others);
/// `None` for text. Without a charset in the binlog (MariaDB without FULL
/// row metadata) the declared type (lower case) tells.
pub fn binary_padding(def: &ColumnDef, declared: &str) -> Option<usize> {
    let binary = match def.charset() {
        Some(charset) => charset == Charset::Binary,
        None => declared.contains("binary") || declared.contains("blob"),
    };
    binary.then_some(match def.column_type {
        ColumnType::Char { max_len } => max_len as usize,
        _ => 0,
    })
}

/// ENUM/SET labels: the binlog's (FULL row metadata) or those of the
/// declared type `enum('a','b')` (quotes doubled inside labels).
pub fn labels(def: &ColumnDef, declared: &str) -> Vec<String> {
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
    // A mask adds its parameter after the type's own (Debezium's
    // `MaskStrings.alterFieldSchema`).
    let masked = plan.mask.is_some();
    let allowed = |out: &mut String, ty: &str, name: &str, labels: &[String]| {
        named(out, ty, name);
        out.push_str(",\"parameters\":{\"allowed\":\"");
        for (i, l) in labels.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_escaped(out, l);
        }
        out.push('"');
        if masked {
            out.push_str(",\"masked\":\"true\"");
        }
        out.push('}');
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
        Kind::Date(DateRepr::Days(name)) => named(out, "int32", name),
        Kind::Date(DateRepr::Iso) => named(out, "string", "io.debezium.time.IsoDate"),
        Kind::Time(TimeRepr::Millis) => named(out, "int32", "io.debezium.time.Time"),
        Kind::Time(TimeRepr::ConnectMillis) => {
            named(out, "int32", "org.apache.kafka.connect.data.Time")
        }
        Kind::Time(TimeRepr::Micros) => named(out, "int64", "io.debezium.time.MicroTime"),
        Kind::Time(TimeRepr::Nanos) => named(out, "int64", "io.debezium.time.NanoTime"),
        Kind::Time(TimeRepr::Iso) => named(out, "string", "io.debezium.time.IsoTime"),
        Kind::DateTime(DateTimeRepr::Millis(name)) => named(out, "int64", name),
        Kind::DateTime(DateTimeRepr::Micros) => {
            named(out, "int64", "io.debezium.time.MicroTimestamp")
        }
        Kind::DateTime(DateTimeRepr::Nanos) => {
            named(out, "int64", "io.debezium.time.NanoTimestamp")
        }
        Kind::DateTime(DateTimeRepr::Iso) => named(out, "string", "io.debezium.time.IsoTimestamp"),
        Kind::Timestamp { .. } => named(out, "string", "io.debezium.time.ZonedTimestamp"),
        Kind::Text => {
            simple(out, "string");
            if masked {
                out.push_str(",\"parameters\":{\"masked\":\"true\"}");
            }
        }
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
    if let Some(default) = &plan.default {
        out.push_str(",\"default\":");
        out.push_str(default);
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
    // Zero or invalid dates: null (so the DEFAULT, if any) when the column
    // may be null, else the DEFAULT or the epoch.
    let zero = |out: &mut String| {
        out.push_str(match (plan.optional, &plan.default, &plan.kind) {
            (true, _, _) => plan.null(),
            (false, Some(default), _) => default,
            (false, None, Kind::Date(DateRepr::Iso)) => "\"1970-01-01Z\"",
            (false, None, _) => "0",
        });
    };
    if let Some((mask, max_chars)) = &plan.mask {
        return super::masks::push_masked(out, plan, def, value, mask, *max_chars, scratch);
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
        (Kind::Date(repr), Value::Date(d)) => match adjusted_date(d) {
            None => zero(out),
            Some((year, month, day)) => match repr {
                DateRepr::Days(_) => push_i64(out, days_from_civil(year, month, day)),
                DateRepr::Iso => {
                    out.push('"');
                    push_iso_date(out, year, month, day);
                    out.push_str("Z\"");
                }
            },
        },
        (Kind::Time(repr), Value::Time(t)) => {
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
        }
        (Kind::DateTime(repr), Value::DateTime(dt)) => match adjusted_date(&dt.date) {
            None => match repr {
                DateTimeRepr::Iso if !plan.optional && plan.default.is_none() => {
                    out.push_str("\"1970-01-01T00:00:00Z\"")
                }
                _ => zero(out),
            },
            Some((year, month, day)) => {
                let days = days_from_civil(year, month, day);
                let second_of_day =
                    dt.hour as i64 * 3600 + dt.minute as i64 * 60 + dt.second as i64;
                let seconds = days * 86_400 + second_of_day;
                match repr {
                    DateTimeRepr::Millis(_) => {
                        push_i64(out, seconds * 1000 + dt.micros as i64 / 1000)
                    }
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
            }
        },
        (Kind::Timestamp { fsp }, Value::Timestamp(ts)) => {
            if ts.seconds == 0 && ts.micros == 0 {
                // A zero TIMESTAMP is no value: null (or the DEFAULT), and
                // in a NOT NULL column the DEFAULT or the epoch.
                out.push_str(match (plan.optional, &plan.default) {
                    (true, _) => plan.null(),
                    (false, Some(default)) => default,
                    (false, None) => "\"1970-01-01T00:00:00Z\"",
                });
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
            out.push_str(if plan.optional { plan.null() } else { "\"{}\"" });
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

/// A column's DEFAULT as Debezium writes it in the schema (and, through
/// JsonConverter's `replace.null.with.default`, in place of a null), as
/// JSON text; `None` for no DEFAULT, `DEFAULT NULL`, an expression, or a
/// literal Debezium cannot convert. `literal` is the clause as SQL text
/// (`'x'`, `5`, `-1.5`, `current_timestamp()`, `b'101'`).
pub(crate) fn default_json(
    literal: Option<&str>,
    plan: &ColumnPlan,
    options: &DebeziumOptions,
) -> Option<String> {
    let text = default_text(literal?)?;
    let mut out = String::new();
    let optional = plan.optional;
    let trimmed = text.trim();
    match &plan.kind {
        Kind::Text | Kind::Json | Kind::Enum(_) | Kind::Set(_) => push_str(&mut out, &text),
        Kind::Boolean => {
            let v = match trimmed.parse::<i64>() {
                Ok(n) => n != 0,
                Err(_) => trimmed.eq_ignore_ascii_case("true"),
            };
            out.push_str(if v { "true" } else { "false" });
        }
        Kind::Int { .. } => push_i64(&mut out, default_integer(trimmed)?),
        Kind::UnsignedBigIntPrecise => {
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
                    push_base64(&mut out, &bytes, false);
                    out.push('"');
                }
                DecimalFormat::Numeric => sluice_binlog::decimal::push_u64(&mut out, n),
            }
        }
        Kind::Float32 => {
            push_java_float(&mut out, trimmed.parse::<f64>().ok()? as f32 as f64, true)
        }
        Kind::Float64 => push_java_float(&mut out, trimmed.parse::<f64>().ok()?, false),
        Kind::Decimal { scale, .. } => {
            let digits = if trimmed.eq_ignore_ascii_case("true") {
                "1"
            } else if trimmed.eq_ignore_ascii_case("false") {
                "0"
            } else {
                trimmed
            };
            let scaled = rescale_half_up(digits, *scale as usize)?;
            let mut bytes = Vec::new();
            push_decimal(&mut out, &scaled, options, &mut bytes)?;
        }
        Kind::Year => {
            let y: i64 = trimmed.parse().ok()?;
            push_i64(
                &mut out,
                match y {
                    0..=69 => y + 2000,
                    70..=99 => y + 1900,
                    _ => y,
                },
            );
        }
        Kind::Date(repr) => {
            let date = match parse_default_date(trimmed) {
                DefaultDate::Zero if optional => return None,
                DefaultDate::Zero => (1970, 1, 1),
                DefaultDate::Date(y, m, d) => adjust_year(y, m, d),
                DefaultDate::Invalid if optional => return None,
                DefaultDate::Invalid => (1970, 1, 1),
            };
            match repr {
                DateRepr::Days(_) => push_i64(&mut out, days_from_civil(date.0, date.1, date.2)),
                DateRepr::Iso => {
                    out.push('"');
                    push_iso_date(&mut out, date.0, date.1, date.2);
                    out.push_str("Z\"");
                }
            }
        }
        Kind::Time(repr) => {
            // A date and time: its time part.
            let time = trimmed.rsplit(' ').next().unwrap_or(trimmed);
            let micros = parse_duration_micros(time)?;
            let of_day = (0..=86_400_000_000).contains(&micros);
            match repr {
                TimeRepr::Micros => push_i64(&mut out, micros),
                TimeRepr::Nanos => push_i64(&mut out, micros * 1000),
                TimeRepr::Millis => push_i64(&mut out, micros.div_euclid(1000) as i32 as i64),
                TimeRepr::ConnectMillis if of_day => push_i64(&mut out, micros / 1000),
                TimeRepr::Iso if of_day => {
                    out.push('"');
                    push_iso_time(&mut out, micros.rem_euclid(86_400_000_000));
                    out.push_str("Z\"");
                }
                TimeRepr::ConnectMillis | TimeRepr::Iso => return None,
            }
        }
        Kind::DateTime(repr) => {
            let (date, micros_of_day) = match parse_default_datetime(trimmed) {
                Some(None) | None if optional => return None,
                Some(None) | None => ((1970, 1, 1), 0),
                Some(Some((y, m, d, us))) => (adjust_year(y, m, d), us),
            };
            let days = days_from_civil(date.0, date.1, date.2);
            match repr {
                DateTimeRepr::Millis(_) => {
                    push_i64(&mut out, days * 86_400_000 + micros_of_day.div_euclid(1000))
                }
                DateTimeRepr::Micros => push_i64(&mut out, days * 86_400_000_000 + micros_of_day),
                DateTimeRepr::Nanos => push_i64(
                    &mut out,
                    days.checked_mul(86_400_000_000_000)?
                        .checked_add(micros_of_day * 1000)?,
                ),
                DateTimeRepr::Iso => {
                    out.push('"');
                    push_iso_date(&mut out, date.0, date.1, date.2);
                    out.push('T');
                    push_iso_time(&mut out, micros_of_day);
                    out.push_str("Z\"");
                }
            }
        }
        Kind::Timestamp { fsp } => {
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
                    push_zoned_timestamp(&mut out, seconds, us.rem_euclid(1_000_000) as u32, *fsp);
                }
                None => return None,
            }
        }
        Kind::Binary { .. } => push_binary(&mut out, text.as_bytes(), options.binary_handling_mode),
        Kind::Bits { bits } => {
            let n = u64::from_str_radix(trimmed, 2).ok()?;
            let len = (*bits as usize).div_ceil(8);
            let bytes: Vec<u8> = n.to_le_bytes().iter().take(len).copied().collect();
            out.push('"');
            push_base64(&mut out, &bytes, false);
            out.push('"');
        }
        Kind::Geometry | Kind::Point | Kind::Vector | Kind::Null => return None,
    }
    Some(out)
}

/// The text Debezium's DDL parser keeps of a DEFAULT clause: a string's
/// inside (a quote doubled inside stays doubled, as Debezium leaves it),
/// without a charset introducer; `b'…'`, `x'…'` and `0x…` with their first
/// two and last characters cut, as Debezium cuts them; `1970-01-01
/// 00:00:00` for CURRENT_TIMESTAMP and its synonyms; other literals as
/// written. `None` for NULL and for expressions.
fn default_text(literal: &str) -> Option<String> {
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
fn default_integer(text: &str) -> Option<i64> {
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
fn rescale_half_up(text: &str, scale: usize) -> Option<String> {
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
fn parse_default_datetime(text: &str) -> Option<Option<(i64, u32, u32, i64)>> {
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
fn parse_duration_micros(text: &str) -> Option<i64> {
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

/// `yyyy-mm-dd` (years 1–9999, as Java's ISO_LOCAL_DATE pads them).
fn push_iso_date(out: &mut String, year: i64, month: u32, day: u32) {
    push_padded(out, year, 4);
    out.push('-');
    push_padded(out, month as i64, 2);
    out.push('-');
    push_padded(out, day as i64, 2);
}

/// `hh:mm:ss` of a time of day in µs (0 <= `micros` < 24 h), then the
/// fraction without its trailing zeros (none if zero), as Java's
/// ISO_LOCAL_TIME prints it.
fn push_iso_time(out: &mut String, micros: i64) {
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
    fn default_literals_as_debeziums_parser_keeps_them() {
        let t = |l: &str| default_text(l);
        assert_eq!(t("'x'").as_deref(), Some("x"));
        // A doubled quote stays doubled, as in Debezium's schema.
        assert_eq!(t("'it''s'").as_deref(), Some("it''s"));
        assert_eq!(t("_utf8mb4'u'").as_deref(), Some("u"));
        assert_eq!(t("\"dq\"").as_deref(), Some("dq"));
        assert_eq!(t("-3").as_deref(), Some("-3"));
        assert_eq!(t("b'101'").as_deref(), Some("101"));
        // Debezium cuts the first two and the last character of 0x….
        assert_eq!(t("0x0102").as_deref(), Some("010"));
        assert_eq!(
            t("current_timestamp(3)").as_deref(),
            Some("1970-01-01 00:00:00")
        );
        assert_eq!(
            t("CURRENT_TIMESTAMP").as_deref(),
            Some("1970-01-01 00:00:00")
        );
        assert_eq!(t("NULL"), None);
        assert_eq!(t("(1 + 1)"), None);
        assert_eq!(t("uuid()"), None);
    }

    #[test]
    fn default_numbers_and_times() {
        assert_eq!(rescale_half_up("3.14159", 2).as_deref(), Some("3.14"));
        assert_eq!(rescale_half_up("1.5", 2).as_deref(), Some("1.50"));
        assert_eq!(rescale_half_up("-7", 0).as_deref(), Some("-7"));
        assert_eq!(rescale_half_up("2.675", 2).as_deref(), Some("2.68"));
        assert_eq!(rescale_half_up("-0.005", 2).as_deref(), Some("-0.01"));
        assert_eq!(rescale_half_up("9.995", 2).as_deref(), Some("10.00"));
        assert_eq!(rescale_half_up("-0.001", 2).as_deref(), Some("0.00"));
        assert_eq!(rescale_half_up("x", 2), None);
        assert_eq!(default_integer("18446744073709551615"), Some(i64::MAX));
        assert_eq!(default_integer("+4"), Some(4));
        assert_eq!(default_integer("TRUE"), Some(1));
        assert_eq!(parse_duration_micros("-01:00:00.5"), Some(-3_600_500_000));
        assert_eq!(parse_duration_micros("838:59:59"), Some(3_020_399_000_000));
        assert_eq!(parse_duration_micros("12:34"), Some(45_240_000_000));
        assert_eq!(
            parse_default_datetime("2020-01-01 10:00:00.123456"),
            Some(Some((2020, 1, 1, 36_000_123_456)))
        );
        assert_eq!(parse_default_datetime("0000-00-00 00:00:00"), Some(None));
        assert_eq!(parse_default_datetime("2021-02-29"), None);
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
