//! What a column is to Debezium ([`Kind`]): its Kafka Connect type as the
//! MySQL connector maps it, from the binlog definition and the declared
//! type, under `time.precision.mode` and `bigint.unsigned.handling.mode`.

use sluice_binlog::{Charset, ColumnDef, ColumnType};
use sluice_events::Column;

use super::super::{BigIntUnsignedHandlingMode, DebeziumOptions, TimePrecisionMode};

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

/// The declared type, lowercased (`int(10) unsigned`, `enum('a','b')`).
pub(super) fn declared(column: &Column<'_>) -> String {
    column.mysql_type.trim().to_ascii_lowercase()
}

pub(super) fn kind_of(column: &Column<'_>, options: &DebeziumOptions) -> Kind {
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
