//! A column's field schema, as Kafka's JsonConverter writes it.

use super::super::text::{push_escaped, push_i64, push_str};
use super::super::{BinaryHandlingMode, DebeziumOptions, DecimalHandlingMode};
use super::kind::{DateRepr, DateTimeRepr, Kind, TimeRepr};
use super::plan::ColumnPlan;

/// Appends a field's JsonConverter schema: `type`, `fields`/`items`,
/// `optional`, then `name`, `version`, `parameters` when set, then `field`.
pub(crate) fn push_field_schema(out: &mut String, plan: &ColumnPlan, options: &DebeziumOptions) {
    push_type_schema(out, plan, options);
    if let Some(default) = &plan.default {
        out.push_str(",\"default\":");
        out.push_str(default);
    }
    out.push_str(",\"field\":");
    push_str(out, &plan.name);
    out.push('}');
}

/// The schema of the column's kind, open: up to its `parameters`.
fn push_type_schema(out: &mut String, plan: &ColumnPlan, options: &DebeziumOptions) {
    let optional = plan.optional;
    // A mask adds its parameter after the type's own (Debezium's
    // `MaskStrings.alterFieldSchema`).
    let masked = plan.mask.is_some();
    match &plan.kind {
        Kind::Boolean => simple(out, "boolean", optional),
        Kind::Int { connect, .. } => simple(out, connect, optional),
        Kind::UnsignedBigIntPrecise => decimal(out, 20, 0, optional),
        Kind::Float32 => simple(out, "float", optional),
        Kind::Float64 => simple(out, "double", optional),
        Kind::Decimal { precision, scale } => match options.decimal_handling_mode {
            DecimalHandlingMode::Precise => {
                decimal(out, *precision as u32, *scale as u32, optional)
            }
            DecimalHandlingMode::Double => simple(out, "double", optional),
            DecimalHandlingMode::String => simple(out, "string", optional),
        },
        Kind::Year | Kind::Date(_) | Kind::Time(_) | Kind::DateTime(_) | Kind::Timestamp { .. } => {
            push_temporal_schema(out, &plan.kind, optional)
        }
        Kind::Text => {
            simple(out, "string", optional);
            if masked {
                out.push_str(",\"parameters\":{\"masked\":\"true\"}");
            }
        }
        Kind::Binary { .. } => match options.binary_handling_mode {
            BinaryHandlingMode::Bytes => simple(out, "bytes", optional),
            _ => simple(out, "string", optional),
        },
        Kind::Enum(labels) => allowed(out, "io.debezium.data.Enum", labels, optional, masked),
        Kind::Set(labels) => allowed(out, "io.debezium.data.EnumSet", labels, optional, masked),
        Kind::Bits { bits } => {
            named(out, "bytes", "io.debezium.data.Bits", optional);
            out.push_str(",\"parameters\":{\"length\":\"");
            push_i64(out, *bits as i64);
            out.push_str("\"}");
        }
        Kind::Json => named(out, "string", "io.debezium.data.Json", optional),
        Kind::Geometry | Kind::Point | Kind::Vector => {
            push_struct_schema(out, &plan.kind, optional)
        }
        Kind::Null => simple(out, "string", optional),
    }
}

/// The schema of a YEAR, DATE, TIME, DATETIME or TIMESTAMP column.
fn push_temporal_schema(out: &mut String, kind: &Kind, optional: bool) {
    let (ty, name) = match kind {
        Kind::Year => ("int32", "io.debezium.time.Year"),
        Kind::Date(DateRepr::Days(name)) => ("int32", *name),
        Kind::Date(DateRepr::Iso) => ("string", "io.debezium.time.IsoDate"),
        Kind::Time(TimeRepr::Millis) => ("int32", "io.debezium.time.Time"),
        Kind::Time(TimeRepr::ConnectMillis) => ("int32", "org.apache.kafka.connect.data.Time"),
        Kind::Time(TimeRepr::Micros) => ("int64", "io.debezium.time.MicroTime"),
        Kind::Time(TimeRepr::Nanos) => ("int64", "io.debezium.time.NanoTime"),
        Kind::Time(TimeRepr::Iso) => ("string", "io.debezium.time.IsoTime"),
        Kind::DateTime(DateTimeRepr::Millis(name)) => ("int64", *name),
        Kind::DateTime(DateTimeRepr::Micros) => ("int64", "io.debezium.time.MicroTimestamp"),
        Kind::DateTime(DateTimeRepr::Nanos) => ("int64", "io.debezium.time.NanoTimestamp"),
        Kind::DateTime(DateTimeRepr::Iso) => ("string", "io.debezium.time.IsoTimestamp"),
        // Kind::Timestamp, the one left.
        _ => ("string", "io.debezium.time.ZonedTimestamp"),
    };
    named(out, ty, name, optional);
}

/// The schema of a GEOMETRY, POINT or VECTOR column: a struct or an array.
fn push_struct_schema(out: &mut String, kind: &Kind, optional: bool) {
    match kind {
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
        _ => {
            out.push_str("{\"type\":\"array\",\"items\":{\"type\":\"float\",\"optional\":false},\"optional\":");
            out.push_str(if optional { "true" } else { "false" });
            out.push_str(",\"name\":\"io.debezium.data.FloatVector\",\"version\":1");
        }
    }
}

/// `{"type":…,"optional":…`.
fn simple(out: &mut String, ty: &str, optional: bool) {
    out.push_str("{\"type\":\"");
    out.push_str(ty);
    out.push_str("\",\"optional\":");
    out.push_str(if optional { "true" } else { "false" });
}

/// A simple schema with its `name` and `version`.
fn named(out: &mut String, ty: &str, name: &str, optional: bool) {
    simple(out, ty, optional);
    out.push_str(",\"name\":\"");
    out.push_str(name);
    out.push_str("\",\"version\":1");
}

/// Connect's `Decimal` schema with its scale and precision.
fn decimal(out: &mut String, precision: u32, scale: u32, optional: bool) {
    simple(out, "bytes", optional);
    out.push_str(
        ",\"name\":\"org.apache.kafka.connect.data.Decimal\",\"version\":1,\"parameters\":{\"scale\":\"",
    );
    push_i64(out, scale as i64);
    out.push_str("\",\"connect.decimal.precision\":\"");
    push_i64(out, precision as i64);
    out.push_str("\"}");
}

/// An ENUM or SET string schema with its `allowed` labels (and `masked`).
fn allowed(out: &mut String, name: &str, labels: &[String], optional: bool, masked: bool) {
    named(out, "string", name, optional);
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
}
