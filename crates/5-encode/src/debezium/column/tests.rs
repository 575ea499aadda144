//! Tests of the column writers' parts: ENUM labels, compact JSON, DEFAULT
//! literals, and zoned timestamps.

use sluice_binlog::{ColumnDef, ColumnType};

use super::default::{
    default_integer, default_text, parse_default_datetime, parse_duration_micros, rescale_half_up,
};
use super::format::push_zoned_timestamp;
use super::kind::labels;
use super::value::push_compact_json_escaped;

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
