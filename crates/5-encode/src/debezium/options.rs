//! The options of the Debezium output ([`DebeziumOptions`]): each a
//! Debezium (or JsonConverter) property with Debezium's default, read from
//! a configuration's properties.

use sluice_events::Op;

use super::masks::ColumnMasks;
use super::DebeziumError;

/// Which Debezium connector the output imitates: it names the `source`
/// block's `connector` field and schema (`io.debezium.connector.<c>.Source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connector {
    MySql,
    MariaDb,
}

impl Connector {
    pub(super) fn name(self) -> &'static str {
        match self {
            Connector::MySql => "mysql",
            Connector::MariaDb => "mariadb",
        }
    }
}

/// `decimal.handling.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecimalHandlingMode {
    /// Connect `Decimal` (`precise`, the default).
    Precise,
    /// A JSON number (`double`).
    Double,
    /// The plain decimal text (`string`).
    String,
}

/// `converter.decimal.format`: how JsonConverter writes a Connect `Decimal`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecimalFormat {
    /// Base64 of the unscaled two's-complement bytes (`BASE64`, the default).
    Base64,
    /// A JSON number (`NUMERIC`).
    Numeric,
}

/// `bigint.unsigned.handling.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BigIntUnsignedHandlingMode {
    /// int64, values of 2^63 and more wrapping to negative (`long`, the default).
    Long,
    /// Connect `Decimal(20,0)` (`precise`).
    Precise,
}

/// `binary.handling.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryHandlingMode {
    /// Connect bytes, which JsonConverter writes as base64 (`bytes`, the default).
    Bytes,
    /// A base64 string (`base64`).
    Base64,
    /// A URL-safe base64 string (`base64-url-safe`).
    Base64UrlSafe,
    /// A lowercase hex string (`hex`).
    Hex,
}

/// `time.precision.mode`: how DATE, TIME and DATETIME are written (YEAR
/// and TIMESTAMP are the same in every mode). The values Debezium 3.6.3's
/// MySQL connector accepts; `adaptive` it refuses (see
/// [`DebeziumOptions::set`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimePrecisionMode {
    /// `adaptive_time_microseconds` (the default): DATE days, TIME µs,
    /// DATETIME ms (precision 0–3) or µs (4–6).
    AdaptiveTimeMicroseconds,
    /// `adaptive`, as Debezium takes it when not spelt in lower case: as
    /// the default, but TIME(0–3) in ms as a 32-bit integer.
    Adaptive,
    /// `connect`: Kafka Connect's Date, Time and Timestamp (days, ms, ms);
    /// TIME outside 00:00:00–24:00:00 cannot be written.
    Connect,
    /// `isostring`: ISO-8601 strings (`2024-05-01Z`, `12:30:45.5Z`,
    /// `2018-06-20T06:37:03.123Z`); TIME outside 00:00:00–24:00:00
    /// cannot be written.
    IsoString,
    /// `microseconds`: TIME and DATETIME in µs whatever their precision.
    Microseconds,
    /// `nanoseconds`: TIME and DATETIME in ns; DATETIME outside what an
    /// int64 of ns since the epoch holds cannot be written.
    Nanoseconds,
}

impl TimePrecisionMode {
    /// The property value naming the mode.
    pub fn name(self) -> &'static str {
        match self {
            TimePrecisionMode::AdaptiveTimeMicroseconds => "adaptive_time_microseconds",
            TimePrecisionMode::Adaptive => "adaptive",
            TimePrecisionMode::Connect => "connect",
            TimePrecisionMode::IsoString => "isostring",
            TimePrecisionMode::Microseconds => "microseconds",
            TimePrecisionMode::Nanoseconds => "nanoseconds",
        }
    }
}

/// `skipped.operations`: which row operations are not emitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkippedOperations {
    /// `c`
    pub create: bool,
    /// `u`
    pub update: bool,
    /// `d`
    pub delete: bool,
    /// `t`
    pub truncate: bool,
}

impl Default for SkippedOperations {
    /// Debezium's default, `t`: TRUNCATE events are not emitted.
    fn default() -> Self {
        SkippedOperations {
            create: false,
            update: false,
            delete: false,
            truncate: true,
        }
    }
}

impl SkippedOperations {
    /// Parses Debezium's value: a comma-separated list of `c`, `u`, `d`,
    /// `t`, or `none`.
    pub fn parse(value: &str) -> Result<Self, DebeziumError> {
        let mut s = SkippedOperations {
            create: false,
            update: false,
            delete: false,
            truncate: false,
        };
        if value.trim().eq_ignore_ascii_case("none") {
            return Ok(s);
        }
        for op in value.split(',').map(str::trim).filter(|o| !o.is_empty()) {
            match op {
                "c" => s.create = true,
                "u" => s.update = true,
                "d" => s.delete = true,
                "t" => s.truncate = true,
                _ => {
                    return Err(DebeziumError::InvalidOption {
                        property: "skipped.operations",
                        value: value.to_string(),
                        allowed: "a comma-separated list of c, u, d, t, or none",
                    })
                }
            }
        }
        Ok(s)
    }

    /// Whether records of the envelope `op` (`c`, `u`, `d`, `t`) are dropped.
    pub(super) fn skips(&self, op: &str) -> bool {
        match op {
            "c" => self.create,
            "u" => self.update,
            "d" => self.delete,
            "t" => self.truncate,
            _ => false,
        }
    }

    /// Whether every record a rows event of `op` can give is dropped (an
    /// update can give `u`, or `d` and `c` when it changes the key).
    pub(super) fn skips_all_of(&self, op: Op) -> bool {
        match op {
            Op::Insert => self.create,
            Op::Update => self.update && self.delete && self.create,
            Op::Delete => self.delete,
        }
    }
}

/// The Debezium release written as `source.version` by default: the one
/// whose records this output is compared with (tests/debezium_oracle.rs).
pub const DEFAULT_DEBEZIUM_VERSION: &str = "3.6.3.Final";

/// The options of the Debezium output, each a Debezium (or JsonConverter)
/// property with Debezium's default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebeziumOptions {
    /// `topic.prefix`: the logical server name, first part of every topic
    /// and the `source.name` field.
    pub topic_prefix: String,
    /// The connector (`io.debezium.connector.mysql.MySqlConnector` or
    /// `…mariadb.MariaDbConnector`); default MySQL.
    pub connector: Connector,
    /// `source.version`: the Debezium release the output presents itself
    /// as; default [`DEFAULT_DEBEZIUM_VERSION`].
    pub version: String,
    /// `converter.schemas.enable` (default true): wrap key and value as
    /// `{"schema":…,"payload":…}`.
    pub schemas_enable: bool,
    /// `decimal.handling.mode` (default `precise`).
    pub decimal_handling_mode: DecimalHandlingMode,
    /// `converter.decimal.format` (default `BASE64`).
    pub decimal_format: DecimalFormat,
    /// `bigint.unsigned.handling.mode` (default `long`).
    pub bigint_unsigned_handling_mode: BigIntUnsignedHandlingMode,
    /// `binary.handling.mode` (default `bytes`).
    pub binary_handling_mode: BinaryHandlingMode,
    /// `time.precision.mode` (default `adaptive_time_microseconds`).
    pub time_precision_mode: TimePrecisionMode,
    /// `tombstones.on.delete` (default true): a null-value record after
    /// each delete.
    pub tombstones_on_delete: bool,
    /// `skipped.operations` (default `t`).
    pub skipped_operations: SkippedOperations,
    /// `provide.transaction.metadata` (default false): the `transaction`
    /// block in data events and BEGIN/END records to `<prefix>.transaction`.
    pub provide_transaction_metadata: bool,
    /// `column.mask.with.N.chars`, `column.mask.hash[.v2].ALGORITHM.with.salt.SALT`
    /// (default none): values of character columns replaced (see
    /// [`ColumnMasks`]).
    pub masks: ColumnMasks,
}

impl DebeziumOptions {
    /// Debezium's defaults with the given `topic.prefix`.
    pub fn new(topic_prefix: impl Into<String>) -> Self {
        DebeziumOptions {
            topic_prefix: topic_prefix.into(),
            connector: Connector::MySql,
            version: DEFAULT_DEBEZIUM_VERSION.to_string(),
            schemas_enable: true,
            decimal_handling_mode: DecimalHandlingMode::Precise,
            decimal_format: DecimalFormat::Base64,
            bigint_unsigned_handling_mode: BigIntUnsignedHandlingMode::Long,
            binary_handling_mode: BinaryHandlingMode::Bytes,
            time_precision_mode: TimePrecisionMode::AdaptiveTimeMicroseconds,
            tombstones_on_delete: true,
            skipped_operations: SkippedOperations::default(),
            provide_transaction_metadata: false,
            masks: ColumnMasks::default(),
        }
    }

    /// Options from Debezium properties (name, value), as in a Debezium
    /// configuration file; `topic.prefix` is required, every other property
    /// keeps Debezium's default when absent. See [`DebeziumOptions::set`].
    pub fn from_properties<'a>(
        properties: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, DebeziumError> {
        let mut options = DebeziumOptions::new("");
        for (name, value) in properties {
            options.set(name, value)?;
        }
        if options.topic_prefix.is_empty() {
            return Err(DebeziumError::MissingTopicPrefix);
        }
        Ok(options)
    }

    /// Sets an option from its Debezium property name and text value, as a
    /// Debezium configuration file spells them (`decimal.handling.mode` =
    /// `string`, `converter.schemas.enable` = `false`, ...). `connector` takes
    /// `mysql` or `mariadb`, `version` any release string.
    pub fn set(&mut self, property: &str, value: &str) -> Result<(), DebeziumError> {
        let v = value.trim();
        let invalid = |property: &'static str, allowed: &'static str| {
            Err(DebeziumError::InvalidOption {
                property,
                value: value.to_string(),
                allowed,
            })
        };
        let boolean = |property: &'static str| match v.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(DebeziumError::InvalidOption {
                property,
                value: value.to_string(),
                allowed: "true, false",
            }),
        };
        match property {
            "topic.prefix" => self.topic_prefix = v.to_string(),
            "connector" => {
                self.connector = match v.to_ascii_lowercase().as_str() {
                    "mysql" => Connector::MySql,
                    "mariadb" => Connector::MariaDb,
                    _ => return invalid("connector", "mysql, mariadb"),
                }
            }
            "version" => self.version = v.to_string(),
            "converter.schemas.enable" | "value.converter.schemas.enable" => {
                self.schemas_enable = boolean("converter.schemas.enable")?
            }
            "decimal.handling.mode" => {
                self.decimal_handling_mode = match v.to_ascii_lowercase().as_str() {
                    "precise" => DecimalHandlingMode::Precise,
                    "double" => DecimalHandlingMode::Double,
                    "string" => DecimalHandlingMode::String,
                    _ => return invalid("decimal.handling.mode", "precise, double, string"),
                }
            }
            "converter.decimal.format" | "value.converter.decimal.format" => {
                self.decimal_format = match v.to_ascii_uppercase().as_str() {
                    "BASE64" => DecimalFormat::Base64,
                    "NUMERIC" => DecimalFormat::Numeric,
                    _ => return invalid("converter.decimal.format", "BASE64, NUMERIC"),
                }
            }
            "bigint.unsigned.handling.mode" => {
                self.bigint_unsigned_handling_mode = match v.to_ascii_lowercase().as_str() {
                    "long" => BigIntUnsignedHandlingMode::Long,
                    "precise" => BigIntUnsignedHandlingMode::Precise,
                    _ => return invalid("bigint.unsigned.handling.mode", "long, precise"),
                }
            }
            "binary.handling.mode" => {
                self.binary_handling_mode = match v.to_ascii_lowercase().as_str() {
                    "bytes" => BinaryHandlingMode::Bytes,
                    "base64" => BinaryHandlingMode::Base64,
                    "base64-url-safe" => BinaryHandlingMode::Base64UrlSafe,
                    "hex" => BinaryHandlingMode::Hex,
                    _ => {
                        return invalid(
                            "binary.handling.mode",
                            "bytes, base64, base64-url-safe, hex",
                        )
                    }
                }
            }
            "time.precision.mode" => {
                // Debezium refuses `adaptive` as written in lower case only
                // (its check compares the exact text); other spellings pass
                // and are read without regard to case.
                if v == "adaptive" {
                    return Err(DebeziumError::Refused {
                        property: "time.precision.mode",
                        value: value.to_string(),
                        reason: "the 'adaptive' time.precision.mode is no longer supported",
                    });
                }
                self.time_precision_mode = match v.to_ascii_lowercase().as_str() {
                    "adaptive_time_microseconds" => TimePrecisionMode::AdaptiveTimeMicroseconds,
                    "adaptive" => TimePrecisionMode::Adaptive,
                    "connect" => TimePrecisionMode::Connect,
                    "isostring" => TimePrecisionMode::IsoString,
                    "microseconds" => TimePrecisionMode::Microseconds,
                    "nanoseconds" => TimePrecisionMode::Nanoseconds,
                    _ => return invalid(
                        "time.precision.mode",
                        "adaptive_time_microseconds, connect, isostring, microseconds, nanoseconds",
                    ),
                }
            }
            "tombstones.on.delete" => self.tombstones_on_delete = boolean("tombstones.on.delete")?,
            "skipped.operations" => self.skipped_operations = SkippedOperations::parse(v)?,
            "provide.transaction.metadata" => {
                self.provide_transaction_metadata = boolean("provide.transaction.metadata")?
            }
            "include.schema.changes" => match boolean("include.schema.changes")? {
                false => {}
                true => {
                    return Err(DebeziumError::Unsupported {
                        property: "include.schema.changes",
                        value: value.to_string(),
                        supported: "false",
                    })
                }
            },
            p if ColumnMasks::is_mask_property(p) => self.masks.add(p, v)?,
            _ => return Err(DebeziumError::UnknownProperty(property.to_string())),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_from_properties() {
        let o = DebeziumOptions::from_properties([
            ("topic.prefix", "dbserver1"),
            ("connector", "mariadb"),
            ("converter.schemas.enable", "false"),
            ("decimal.handling.mode", "string"),
            ("skipped.operations", "none"),
            ("tombstones.on.delete", "false"),
        ])
        .unwrap();
        assert_eq!(o.topic_prefix, "dbserver1");
        assert_eq!(o.connector, Connector::MariaDb);
        assert!(!o.schemas_enable);
        assert_eq!(o.decimal_handling_mode, DecimalHandlingMode::String);
        assert!(!o.skipped_operations.truncate);
        assert!(!o.tombstones_on_delete);
        // Untouched options keep Debezium's defaults.
        assert_eq!(o.binary_handling_mode, BinaryHandlingMode::Bytes);
        assert!(!o.provide_transaction_metadata);
        assert_eq!(o.version, DEFAULT_DEBEZIUM_VERSION);

        assert!(matches!(
            DebeziumOptions::from_properties([("connector", "mysql")]),
            Err(DebeziumError::MissingTopicPrefix)
        ));
        assert!(matches!(
            DebeziumOptions::from_properties([
                ("topic.prefix", "x"),
                ("skipped.operations", "c,x")
            ]),
            Err(DebeziumError::InvalidOption {
                property: "skipped.operations",
                ..
            })
        ));
        assert!(matches!(
            DebeziumOptions::from_properties([
                ("topic.prefix", "x"),
                ("include.schema.changes", "true")
            ]),
            Err(DebeziumError::Unsupported { .. })
        ));
    }

    #[test]
    fn defaults_are_debeziums() {
        let o = DebeziumOptions::new("p");
        assert!(o.schemas_enable);
        assert_eq!(o.decimal_handling_mode, DecimalHandlingMode::Precise);
        assert_eq!(o.decimal_format, DecimalFormat::Base64);
        assert_eq!(
            o.bigint_unsigned_handling_mode,
            BigIntUnsignedHandlingMode::Long
        );
        assert_eq!(o.binary_handling_mode, BinaryHandlingMode::Bytes);
        assert_eq!(
            o.time_precision_mode,
            TimePrecisionMode::AdaptiveTimeMicroseconds
        );
        assert!(o.tombstones_on_delete);
        assert_eq!(
            o.skipped_operations,
            SkippedOperations {
                create: false,
                update: false,
                delete: false,
                truncate: true
            }
        );
        assert!(!o.provide_transaction_metadata);
        assert_eq!(o.connector, Connector::MySql);
    }
}
