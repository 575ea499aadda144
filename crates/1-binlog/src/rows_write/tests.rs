use super::*;
use crate::column::code;
use crate::value::{Cell, Value};
use std::sync::Arc;

fn col(name: &str, type_code: u8, t: ColumnType, unsigned: bool) -> ColumnDef {
    ColumnDef {
        type_code,
        column_type: t,
        nullable: true,
        unsigned: Some(unsigned),
        collation: None,
        name: Some(name.into()),
        labels: None,
        geometry_type: None,
        primary_key_prefix: None,
        visible: None,
    }
}

fn table(columns: Vec<ColumnDef>) -> Arc<TableMap> {
    Arc::new(TableMap {
        table_id: 7,
        flags: 1,
        schema: "d".into(),
        table: "t".into(),
        columns,
        has_optional_metadata: true,
    })
}

/// Writes the rows, decodes them through a synthetic event, and returns
/// each row's decoded values.
fn round_trip(t: &Arc<TableMap>, rows: &[Vec<CellIn<'_>>]) -> Vec<Vec<Value<'static>>> {
    let mut data = Vec::new();
    for r in rows {
        write_row_image(t, r, &mut data).unwrap();
    }
    let ev = RowsEvent::synthetic_write(t.clone(), data).unwrap();
    assert!(ev.is_statement_end());
    assert_eq!(ev.kind, RowsKind::Write);
    let mut out = Vec::new();
    for row in ev.rows() {
        let row = row.unwrap();
        assert!(row.before.is_none());
        let img = row.after.unwrap();
        assert!(img.is_full());
        let vals: Vec<Value<'static>> = img
            .cells()
            .map(|c| match c.unwrap() {
                Cell::Present(v) => own(v),
                Cell::Absent => panic!("absent cell"),
            })
            .collect();
        out.push(vals);
    }
    assert_eq!(out.len(), rows.len());
    out
}

/// A `'static` copy of a decoded value (leaks; tests only).
fn own(v: Value<'_>) -> Value<'static> {
    let leak = |b: &[u8]| -> &'static [u8] { Box::leak(b.to_vec().into_boxed_slice()) };
    match v {
        Value::Bytes(b) => Value::Bytes(leak(b)),
        Value::Bit(b) => Value::Bit(leak(b)),
        Value::Geometry(b) => Value::Geometry(leak(b)),
        Value::Decimal(d) => Value::Decimal(crate::decimal::Decimal {
            bytes: leak(d.bytes),
            ..d
        }),
        Value::Null => Value::Null,
        Value::Int(x) => Value::Int(x),
        Value::UInt(x) => Value::UInt(x),
        Value::Float(x) => Value::Float(x),
        Value::Double(x) => Value::Double(x),
        Value::Year(x) => Value::Year(x),
        Value::Date(x) => Value::Date(x),
        Value::Time(x) => Value::Time(x),
        Value::DateTime(x) => Value::DateTime(x),
        Value::Timestamp(x) => Value::Timestamp(x),
        Value::Enum(x) => Value::Enum(x),
        Value::Set(x) => Value::Set(x),
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn integers_at_their_limits() {
    let t = table(vec![
        col("a", code::TINY, ColumnType::Tiny, false),
        col("b", code::TINY, ColumnType::Tiny, true),
        col("c", code::SHORT, ColumnType::Short, false),
        col("d", code::INT24, ColumnType::Int24, false),
        col("e", code::INT24, ColumnType::Int24, true),
        col("f", code::LONG, ColumnType::Long, false),
        col("g", code::LONGLONG, ColumnType::LongLong, false),
        col("h", code::LONGLONG, ColumnType::LongLong, true),
    ]);
    let rows = vec![
        vec![
            CellIn::Int(-128),
            CellIn::UInt(255),
            CellIn::Int(-32768),
            CellIn::Int(-8388608),
            CellIn::UInt(16777215),
            CellIn::Int(i32::MIN as i64),
            CellIn::Int(i64::MIN),
            CellIn::UInt(u64::MAX),
        ],
        vec![
            CellIn::Int(127),
            CellIn::Int(0),
            CellIn::Int(32767),
            CellIn::Int(8388607),
            CellIn::Null,
            CellIn::Int(i32::MAX as i64),
            CellIn::Int(i64::MAX),
            CellIn::UInt(0),
        ],
    ];
    let got = round_trip(&t, &rows);
    use Value::*;
    assert_eq!(
        got[0],
        vec![
            Int(-128),
            UInt(255),
            Int(-32768),
            Int(-8388608),
            UInt(16777215),
            Int(-2147483648),
            Int(i64::MIN),
            UInt(u64::MAX)
        ]
    );
    assert_eq!(
        got[1],
        vec![
            Int(127),
            UInt(0),
            Int(32767),
            Int(8388607),
            Null,
            Int(2147483647),
            Int(i64::MAX),
            UInt(0)
        ]
    );
    let mut out = vec![];
    let e = write_row_image(
        &t,
        &[
            CellIn::Int(128),
            CellIn::Null,
            CellIn::Null,
            CellIn::Null,
            CellIn::Null,
            CellIn::Null,
            CellIn::Null,
            CellIn::Null,
        ],
        &mut out,
    )
    .unwrap_err();
    assert_eq!(e.column, "`a`");
    assert!(e.message.contains("out of range"), "{e}");
    assert!(out.is_empty(), "a failed row leaves nothing behind");
}

#[test]
fn row_writer_writes_what_write_row_image_writes_and_undoes_a_partial_row() {
    let t = table(vec![
        col("a", code::LONG, ColumnType::Long, false),
        col(
            "b",
            code::VARCHAR,
            ColumnType::VarChar { max_len: 10 },
            false,
        ),
    ]);
    let row = [CellIn::Int(-7), CellIn::Bytes(b"hi")];
    let mut whole = vec![9];
    write_row_image(&t, &row, &mut whole).unwrap();
    let mut by_value = vec![9];
    let mut w = RowImageWriter::new(&t, &mut by_value);
    for v in &row {
        w.push(v).unwrap();
    }
    assert!(
        w.push(&CellIn::Null).is_err(),
        "a value past the last column"
    );
    w.finish().unwrap();
    assert_eq!(by_value, whole);
    // Dropped before its end, or ended short: the row is taken out.
    let mut out = vec![9];
    let mut w = RowImageWriter::new(&t, &mut out);
    w.push(&CellIn::Int(1)).unwrap();
    drop(w);
    assert_eq!(out, [9]);
    let mut w = RowImageWriter::new(&t, &mut out);
    w.push(&CellIn::Int(1)).unwrap();
    assert!(w.finish().unwrap_err().message.contains("1 values"));
    assert_eq!(out, [9]);
    // A value that does not fit leaves nothing of itself.
    let mut w = RowImageWriter::new(&t, &mut out);
    w.push(&CellIn::Int(1)).unwrap();
    let e = w.push(&CellIn::Bytes(b"far too long")).unwrap_err();
    assert_eq!((e.index, e.column.as_str()), (Some(1), "`b`"));
    drop(w);
    assert_eq!(out, [9]);
}

#[test]
fn random_decimals_round_trip_through_the_binary_format() {
    // Every precision and scale, random digits (leading zeros, zero
    // groups and negative zeros included): rendering the bytes gives
    // back the canonical text.
    let mut seed: u64 = 7;
    let mut next = |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (seed >> 33) % n
    };
    for p in 1..=65u8 {
        for s in 0..=p.min(30) {
            for _ in 0..20 {
                let intg = (p - s) as usize;
                let digit = |next: &mut dyn FnMut(u64) -> u64| {
                    // Zeros often, to make whole zero groups.
                    let d = next(14);
                    char::from(b'0' + if d >= 10 { 0 } else { d as u8 })
                };
                // An empty integer part (".5") only with a fraction.
                let int_len = (next(intg as u64 + 1) as usize).max((s == 0) as usize);
                let int: String = (0..int_len).map(|_| digit(&mut next)).collect();
                let frac: String = (0..s).map(|_| digit(&mut next)).collect();
                let neg = next(2) == 1;
                let text = format!("{}{int}.{frac}", if neg { "-" } else { "" });
                let mut bytes = Vec::new();
                decimal(&text, p, s, &mut bytes).unwrap();
                let rendered = crate::decimal::Decimal {
                    precision: p,
                    scale: s,
                    bytes: &bytes,
                }
                .to_text()
                .unwrap();
                // Canonical: no leading zeros, "0" for an empty integer
                // part, no point without a scale, no sign on zero.
                let trimmed = int.trim_start_matches('0');
                let int_part = if trimmed.is_empty() { "0" } else { trimmed };
                let zero = trimmed.is_empty() && frac.bytes().all(|b| b == b'0');
                let want = format!(
                    "{}{int_part}{}{frac}",
                    if neg && !zero { "-" } else { "" },
                    if s > 0 { "." } else { "" }
                );
                assert_eq!(rendered, want, "DECIMAL({p},{s}) {text}");
            }
        }
    }
}

#[test]
fn decimals_round_trip_as_text() {
    let cases: &[(u8, u8, &str, &str)] = &[
        (10, 2, "12345678.90", "12345678.90"),
        (10, 2, "-0.05", "-0.05"),
        (10, 2, "-0.00", "0.00"),
        (10, 2, "0", "0.00"),
        (10, 2, ".5", "0.50"),
        (10, 2, "1.500", "1.50"),
        (5, 0, "-99999", "-99999"),
        (18, 9, "123456789.123456789", "123456789.123456789"),
        (
            65,
            30,
            "-99999999999999999999999999999999999.999999999999999999999999999999",
            "-99999999999999999999999999999999999.999999999999999999999999999999",
        ),
        (
            65,
            30,
            "0.000000000000000000000000000001",
            "0.000000000000000000000000000001",
        ),
        (14, 4, "1234567890.1234", "1234567890.1234"),
        (
            30,
            30,
            "-0.123456789012345678901234567890",
            "-0.123456789012345678901234567890",
        ),
    ];
    for &(p, s, input, want) in cases {
        let t = table(vec![col(
            "x",
            code::NEWDECIMAL,
            ColumnType::NewDecimal {
                precision: p,
                scale: s,
            },
            false,
        )]);
        let got = round_trip(&t, &[vec![CellIn::Decimal(input)]]);
        let Value::Decimal(d) = &got[0][0] else {
            panic!("{got:?}")
        };
        assert_eq!(d.to_text().unwrap(), want, "DECIMAL({p},{s}) {input}");
    }
    // The manual's example bytes.
    let mut out = vec![];
    decimal("1234567890.1234", 14, 4, &mut out).unwrap();
    assert_eq!(out, [0x81, 0x0D, 0xFB, 0x38, 0xD2, 0x04, 0xD2]);
    for bad in ["1e5", "", "-", "1.2.3", "123456789.1", "1.234", "abc"] {
        assert!(decimal(bad, 10, 2, &mut vec![]).is_err(), "{bad:?}");
    }
}

#[test]
fn temporal_values_at_every_precision() {
    let mut cols = vec![
        col("y", code::YEAR, ColumnType::Year, true),
        col("d", code::DATE, ColumnType::Date, false),
        col("ot", code::TIME, ColumnType::Time, false),
        col("odt", code::DATETIME, ColumnType::DateTime, false),
        col("ots", code::TIMESTAMP, ColumnType::Timestamp, false),
    ];
    for fsp in 0..=6 {
        cols.push(col("t", code::TIME2, ColumnType::Time2 { fsp }, false));
        cols.push(col(
            "dt",
            code::DATETIME2,
            ColumnType::DateTime2 { fsp },
            false,
        ));
        cols.push(col(
            "ts",
            code::TIMESTAMP2,
            ColumnType::Timestamp2 { fsp },
            false,
        ));
    }
    let t = table(cols);
    let date = |year, month, day| Date { year, month, day };
    // Times with the most digits each precision keeps, negative too.
    let unit = |fsp: u8| 10u32.pow(6 - fsp as u32);
    let cases: &[(bool, u32, u8, u8, u32)] = &[
        (false, 838, 59, 59, 999_999),
        (true, 838, 59, 59, 999_999),
        (true, 0, 0, 0, 1),
        (true, 0, 0, 1, 500_000),
        (false, 0, 0, 0, 0),
        (true, 12, 34, 56, 0),
    ];
    for &(negative, hours, minutes, seconds, micros) in cases {
        for (y, d, dt_day) in [(0u16, date(0, 0, 0), 0u8), (2155, date(9999, 12, 31), 31)] {
            let mut row = vec![
                CellIn::Year(y),
                CellIn::Date(d),
                CellIn::Time(Time {
                    negative,
                    hours,
                    minutes,
                    seconds,
                    micros: 0,
                    fsp: 0,
                }),
                CellIn::DateTime(DateTime {
                    date: date(2024, 2, dt_day),
                    hour: 23,
                    minute: 59,
                    second: 59,
                    micros: 0,
                    fsp: 0,
                }),
                CellIn::Timestamp {
                    seconds: u32::MAX >> 1,
                    micros: 0,
                },
            ];
            for fsp in 0..=6u8 {
                let m = micros / unit(fsp) * unit(fsp);
                row.push(CellIn::Time(Time {
                    negative,
                    hours,
                    minutes,
                    seconds,
                    micros: m,
                    fsp,
                }));
                row.push(CellIn::DateTime(DateTime {
                    date: d,
                    hour: 23,
                    minute: 59,
                    second: 59,
                    micros: m,
                    fsp,
                }));
                row.push(CellIn::Timestamp {
                    seconds: 1_700_000_000,
                    micros: m,
                });
            }
            let got = round_trip(&t, std::slice::from_ref(&row));
            for (i, (input, v)) in row.iter().zip(&got[0]).enumerate() {
                let fsp = match t.columns[i].column_type {
                    ColumnType::Time2 { fsp }
                    | ColumnType::DateTime2 { fsp }
                    | ColumnType::Timestamp2 { fsp } => fsp,
                    _ => 0,
                };
                let ok = match (input, v) {
                    (CellIn::Year(0), Value::Year(0)) => true,
                    (CellIn::Year(y), Value::Year(b)) => *y == 1900 + *b as u16,
                    (CellIn::Date(a), Value::Date(b)) => a == b,
                    (CellIn::Time(a), Value::Time(b)) => {
                        let zero =
                            a.hours == 0 && a.minutes == 0 && a.seconds == 0 && a.micros == 0;
                        // A negative zero time reads back as zero.
                        (a.negative && !zero) == b.negative
                            && (a.hours, a.minutes, a.seconds, a.micros)
                                == (b.hours, b.minutes, b.seconds, b.micros)
                            && b.fsp == fsp
                    }
                    (CellIn::DateTime(a), Value::DateTime(b)) => {
                        (a.date, a.hour, a.minute, a.second, a.micros)
                            == (b.date, b.hour, b.minute, b.second, b.micros)
                    }
                    (CellIn::Timestamp { seconds, micros }, Value::Timestamp(b)) => {
                        (*seconds, *micros, fsp) == (b.seconds, b.micros, b.fsp)
                    }
                    _ => false,
                };
                assert!(
                    ok,
                    "column {i} ({:?}): wrote {input:?}, read {v:?}",
                    t.columns[i].column_type
                );
            }
        }
    }
    // Precision the column does not keep is an error, not a rounding.
    let t = table(vec![col(
        "t",
        code::TIME2,
        ColumnType::Time2 { fsp: 1 },
        false,
    )]);
    let e = write_row_image(
        &t,
        &[CellIn::Time(Time {
            negative: false,
            hours: 1,
            minutes: 0,
            seconds: 0,
            micros: 10,
            fsp: 6,
        })],
        &mut vec![],
    )
    .unwrap_err();
    assert!(e.message.contains("fractional"), "{e}");
}

#[test]
fn time2_bytes_match_the_decoder_comment() {
    // -00:00:01.5 at fsp 1 is 7f ff fe ce (see temporal.rs).
    let mut out = vec![];
    time2(
        &Time {
            negative: true,
            hours: 0,
            minutes: 0,
            seconds: 1,
            micros: 500_000,
            fsp: 1,
        },
        1,
        &mut out,
    );
    assert_eq!(out, [0x7f, 0xff, 0xfe, 0xce]);
}

#[test]
fn strings_blobs_enum_set_bit_float() {
    let t = table(vec![
        col(
            "vc",
            code::VARCHAR,
            ColumnType::VarChar { max_len: 10 },
            false,
        ),
        col(
            "vl",
            code::VARCHAR,
            ColumnType::VarChar { max_len: 1200 },
            false,
        ),
        col("c", code::STRING, ColumnType::Char { max_len: 40 }, false),
        col("tb", code::BLOB, ColumnType::Blob { len_bytes: 1 }, false),
        col("b", code::BLOB, ColumnType::Blob { len_bytes: 2 }, false),
        col("mb", code::BLOB, ColumnType::Blob { len_bytes: 3 }, false),
        col("lb", code::BLOB, ColumnType::Blob { len_bytes: 4 }, false),
        col(
            "g",
            code::GEOMETRY,
            ColumnType::Geometry { len_bytes: 4 },
            false,
        ),
        col("e", code::STRING, ColumnType::Enum { pack_len: 2 }, false),
        col("s", code::STRING, ColumnType::Set { pack_len: 8 }, false),
        col("s1", code::STRING, ColumnType::Set { pack_len: 1 }, false),
        col("b1", code::BIT, ColumnType::Bit { bits: 1 }, false),
        col("b12", code::BIT, ColumnType::Bit { bits: 12 }, false),
        col("b64", code::BIT, ColumnType::Bit { bits: 64 }, false),
        col("f", code::FLOAT, ColumnType::Float, false),
        col("dd", code::DOUBLE, ColumnType::Double, false),
    ]);
    let every_byte: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    let long = vec![b'x'; 1200];
    let row = vec![
        CellIn::Bytes(b"0123456789"),
        CellIn::Bytes(&long),
        CellIn::Bytes("😀 é".as_bytes()),
        CellIn::Bytes(&every_byte[..255]),
        CellIn::Bytes(&every_byte[..65535]),
        CellIn::Bytes(&every_byte),
        CellIn::Bytes(b""),
        CellIn::Bytes(&[0, 0, 0, 0, 1, 1, 0, 0, 0]),
        CellIn::Enum(300),
        CellIn::Set(u64::MAX),
        CellIn::Set(0x80),
        CellIn::Bit(1),
        CellIn::Bit(0xfff),
        CellIn::Bit(u64::MAX),
        CellIn::Float(-3.4e38),
        CellIn::Double(f64::MIN_POSITIVE),
    ];
    let got = round_trip(&t, std::slice::from_ref(&row));
    use Value::*;
    assert_eq!(
        got[0],
        vec![
            Bytes(b"0123456789"),
            Bytes(&long),
            Bytes("😀 é".as_bytes()),
            Bytes(&every_byte[..255]),
            Bytes(&every_byte[..65535]),
            Bytes(&every_byte),
            Bytes(b""),
            Geometry(&[0, 0, 0, 0, 1, 1, 0, 0, 0]),
            Enum(300),
            Set(u64::MAX),
            Set(0x80),
            Bit(&[1]),
            Bit(&[0x0f, 0xff]),
            Bit(&[0xff; 8]),
            Float(-3.4e38),
            Double(f64::MIN_POSITIVE),
        ]
    );
    let too_long = [0u8; 11];
    let mut bad = row.clone();
    bad[0] = CellIn::Bytes(&too_long);
    let e = write_row_image(&t, &bad, &mut vec![]).unwrap_err();
    assert_eq!(e.column, "`vc`");
    let mut bad = row.clone();
    bad[3] = CellIn::Bytes(&every_byte[..256]);
    assert!(write_row_image(&t, &bad, &mut vec![]).is_err());
    let mut bad = row.clone();
    bad[12] = CellIn::Bit(0x1000);
    assert!(write_row_image(&t, &bad, &mut vec![]).is_err());
    let mut bad = row;
    bad[10] = CellIn::Set(0x100);
    assert!(write_row_image(&t, &bad, &mut vec![]).is_err());
}

#[test]
fn null_bitmap_pads_with_ones_like_the_server() {
    let cols = (0..10)
        .map(|i| col(&format!("c{i}"), code::TINY, ColumnType::Tiny, false))
        .collect();
    let t = table(cols);
    let mut row = vec![CellIn::Int(1); 10];
    row[0] = CellIn::Null;
    row[9] = CellIn::Null;
    let mut out = vec![];
    write_row_image(&t, &row, &mut out).unwrap();
    // Columns 0 and 9 NULL; bits 10-15 unused and set.
    assert_eq!(&out[..2], &[0x01, 0xfe]);
    assert_eq!(out.len(), 2 + 8);
}

#[test]
fn json_from_text_and_not_null_is_kept() {
    let mut j = col("j", code::JSON, ColumnType::Json { len_bytes: 4 }, false);
    let t = table(vec![j.clone()]);
    let mut out = vec![];
    write_row_image(&t, &[CellIn::Json(r#"{"a": [1]}"#)], &mut out).unwrap();
    // Null bitmap, 4-byte length, then the binary document.
    let doc = [
        0x00, 1, 0, 19, 0, 11, 0, 1, 0, 0x02, 12, 0, b'a', 1, 0, 7, 0, 0x05, 1, 0,
    ];
    assert_eq!(out[0], 0xfe);
    assert_eq!(&out[1..5], &(doc.len() as u32).to_le_bytes());
    assert_eq!(&out[5..], &doc);
    let e = write_row_image(&t, &[CellIn::Json("{")], &mut out).unwrap_err();
    assert!(e.message.contains("invalid JSON text"), "{e}");
    let e = write_row_image(&t, &[CellIn::Bytes(b"{}")], &mut out).unwrap_err();
    assert!(e.message.contains("cannot be written"), "{e}");
    // A 1-byte length holds at most 255 bytes.
    let short = table(vec![col(
        "j",
        code::JSON,
        ColumnType::Json { len_bytes: 1 },
        true,
    )]);
    let long = format!("\"{}\"", "x".repeat(300));
    let e = write_row_image(&short, &[CellIn::Json(&long)], &mut out).unwrap_err();
    assert!(e.message.contains("do not fit a 1-byte length"), "{e}");
    assert_eq!(out.len(), 5 + doc.len(), "nothing written on error");
    j.column_type = ColumnType::Long;
    j.nullable = false;
    let t = table(vec![j]);
    assert!(write_row_image(&t, &[CellIn::Null], &mut vec![]).is_err());
    assert!(write_row_image(&t, &[], &mut vec![]).is_err());
}
