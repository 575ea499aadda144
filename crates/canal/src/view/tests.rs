//! Tests of the entry views: reading entries, row changes and columns
//! as prost encodes them, and reading columns by their shape.

use super::*;
use crate::proto::{Column, Entry, EntryType, EventType, Header, Pair, RowChange, RowData};
use prost::Message;

fn column(i: i32, name: &str, value: Option<&str>, key: bool) -> Column {
    Column {
        index: Some(i),
        sql_type: Some(if i % 2 == 0 { -5 } else { 12 }),
        name: Some(name.to_string()),
        is_key: Some(key),
        updated: Some(i == 1),
        is_null: Some(value.is_none()),
        props: vec![Pair::new("k", "v")],
        value: value.map(str::to_string),
        length: Some(-3),
        mysql_type: Some("varchar(32)".to_string()),
    }
}

fn sample() -> Entry {
    let row = |n: &str| RowData {
        before_columns: vec![column(0, "id", Some(n), true), column(1, "é", None, false)],
        after_columns: vec![
            column(0, "id", Some(n), true),
            column(1, "é", Some("naïve 😀"), false),
        ],
        props: vec![Pair::new("sluiceRowKey", "binlog.000001:4#0")],
    };
    let change = RowChange {
        table_id: Some(77),
        event_type: Some(EventType::Update as i32),
        is_ddl: Some(false),
        sql: Some(String::new()),
        row_datas: vec![row("1"), row("2")],
        props: vec![],
        ddl_schema_name: None,
    };
    Entry {
        header: Some(Header {
            version: Some(1),
            logfile_name: Some("binlog.000002".into()),
            logfile_offset: Some(1234),
            server_id: Some(9),
            serverenc_code: Some("UTF-8".into()),
            execute_time: Some(1_700_000_000_000),
            source_type: Some(2),
            schema_name: Some("db".into()),
            table_name: Some("t".into()),
            event_length: Some(99),
            event_type: Some(EventType::Update as i32),
            props: vec![Pair::new("rowsCount", "2")],
            gtid: Some("uuid:1-5".into()),
        }),
        entry_type: Some(EntryType::RowData as i32),
        store_value: Some(change.encode_to_vec().into()),
    }
}

#[test]
fn views_read_what_prost_wrote() {
    let entry = sample();
    let bytes = entry.encode_to_vec();
    let view = EntryView::parse(&bytes).unwrap();
    let header = entry.header.as_ref().unwrap();
    assert_eq!(view.header.logfile_name, "binlog.000002");
    assert_eq!(view.header.logfile_offset, 1234);
    assert_eq!(view.header.server_id, 9);
    assert_eq!(view.header.execute_time, header.execute_time.unwrap());
    assert_eq!(view.header.schema_name, "db");
    assert_eq!(view.header.table_name, "t");
    assert_eq!(view.header.event_type, Some(EventType::Update as i32));
    assert_eq!(view.header.gtid, "uuid:1-5");
    assert!(!view.header.snapshot);
    assert_eq!(view.entry_type, Some(EntryType::RowData as i32));

    let change = RowChange::decode(view.store_value).unwrap();
    let cv = RowChangeView::parse(view.store_value).unwrap();
    assert_eq!(cv.table_id, 77);
    assert_eq!(cv.event_type, change.event_type);
    assert_eq!(cv.is_ddl, Some(false));
    assert_eq!(cv.row_count, 2);
    let rows: Vec<_> = cv.rows().collect();
    assert_eq!(rows.len(), change.row_datas.len());
    for (rv, rd) in rows.iter().zip(&change.row_datas) {
        for (views, cols) in [
            (rv.before(), &rd.before_columns),
            (rv.after(), &rd.after_columns),
        ] {
            let views: Vec<_> = views.collect::<Result<_, _>>().unwrap();
            assert_eq!(views.len(), cols.len());
            for (v, c) in views.iter().zip(cols) {
                assert_eq!(Some(v.index), c.index);
                assert_eq!(Some(v.sql_type), c.sql_type);
                assert_eq!(Some(v.name.to_string()), c.name);
                assert_eq!(Some(v.is_key), c.is_key);
                assert_eq!(Some(v.updated), c.updated);
                assert_eq!(Some(v.is_null), c.is_null);
                assert_eq!(v.value.map(str::to_string), c.value);
                assert_eq!(Some(v.length), c.length);
                assert_eq!(Some(v.mysql_type.to_string()), c.mysql_type);
            }
        }
    }
}

/// `sample` as a snapshot read: the prop `snapshot` = `true` before
/// `rowsCount`, where the snapshot reader puts it.
fn snapshot_sample() -> Entry {
    let mut entry = sample();
    let header = entry.header.as_mut().unwrap();
    let at = header.props.len() - 1;
    header.props.insert(at, Pair::new("snapshot", "true"));
    entry
}

/// Whether prost's header has the prop `snapshot` = `true`.
fn prost_snapshot(entry: &Entry) -> bool {
    entry.header.as_ref().is_some_and(|h| {
        h.props
            .iter()
            .any(|p| p.key.as_deref() == Some("snapshot") && p.value.as_deref() == Some("true"))
    })
}

#[test]
fn the_snapshot_prop_is_read_from_the_header() {
    let bytes = snapshot_sample().encode_to_vec();
    let view = EntryView::parse(&bytes).unwrap();
    assert!(view.header.snapshot);
    // The other fields read as without the prop.
    let plain = sample().encode_to_vec();
    let plain = EntryView::parse(&plain).unwrap();
    assert_eq!(
        HeaderView {
            snapshot: false,
            ..view.header.clone()
        },
        plain.header
    );
    assert_eq!(view.store_value, plain.store_value);

    // Anything but exactly `snapshot` = `true` is no mark; a pair
    // written with its fields in another order or twice reads as prost
    // reads it.
    let header_with = |pair: Vec<u8>| {
        let mut h = Header {
            table_name: Some("t".into()),
            ..Default::default()
        }
        .encode_to_vec();
        prost::encoding::encode_key(12, prost::encoding::WireType::LengthDelimited, &mut h);
        prost::encoding::encode_varint(pair.len() as u64, &mut h);
        h.extend_from_slice(&pair);
        let prost =
            Header::decode(h.as_slice()).unwrap().props.iter().any(|p| {
                p.key.as_deref() == Some("snapshot") && p.value.as_deref() == Some("true")
            });
        (HeaderView::parse(&h).unwrap().snapshot, prost)
    };
    let pair = |k: &str, v: &str| Pair::new(k, v).encode_to_vec();
    let cases: Vec<(Vec<u8>, bool)> = vec![
        (pair("snapshot", "true"), true),
        (pair("snapshot", "false"), false),
        (pair("snapshot", "TRUE"), false),
        (pair("Snapshot", "true"), false),
        (pair("snapshots", "true"), false),
        (pair("rowsCount", "true"), false),
        (pair("snapshot", ""), false),
        (Pair::default().encode_to_vec(), false),
        // Value first, then key.
        ([&b"\x12\x04true"[..], b"\x0a\x08snapshot"].concat(), true),
        // The key twice: the last one counts.
        ([&b"\x0a\x01x"[..], SNAPSHOT_PAIR].concat(), true),
        ([SNAPSHOT_PAIR, b"\x0a\x01x"].concat(), false),
        // An unknown field beside them.
        ([SNAPSHOT_PAIR, b"\x18\x01"].concat(), true),
    ];
    for (bytes, want) in cases {
        assert_eq!(header_with(bytes.clone()), (want, want), "{bytes:?}");
    }
    // A malformed pair is no mark and, as before, no error.
    for pair in [&b"\x0a\x08s"[..], b"\x0a\x30snapshot\x12\x04true"] {
        let mut h = vec![0x62, pair.len() as u8];
        h.extend_from_slice(pair);
        assert_eq!(HeaderView::parse(&h).map(|v| v.snapshot), Ok(false));
    }
}

#[test]
fn every_truncation_is_an_error_or_a_shorter_message_never_a_panic() {
    let bytes = sample().encode_to_vec();
    for cut in 0..bytes.len() {
        let Ok(view) = EntryView::parse(&bytes[..cut]) else {
            continue;
        };
        if let Ok(change) = RowChangeView::parse(view.store_value) {
            for row in change.rows() {
                for c in row.before().chain(row.after()) {
                    let _ = c;
                }
            }
        }
    }
    let err = EntryView::parse(&bytes[..bytes.len() - 1]).unwrap_err();
    assert_eq!(err.message, "Entry");
    assert_eq!(err.reason, "field longer than its message");
}

/// Mutated entries (bytes changed, dropped, inserted): the views never
/// panic, and wherever prost reads the bytes, the views read the same.
#[test]
fn mutated_entries_read_as_prost_reads_them_or_are_refused() {
    for bytes in [sample().encode_to_vec(), snapshot_sample().encode_to_vec()] {
        mutated_entries_read_as_prost_reads(&bytes);
    }
}

fn mutated_entries_read_as_prost_reads(bytes: &[u8]) {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..20_000 {
        let mut m = bytes.to_vec();
        for _ in 0..1 + next() % 4 {
            let at = (next() % m.len() as u64) as usize;
            match next() % 3 {
                0 => m[at] = next() as u8,
                1 => {
                    m.remove(at);
                }
                _ => m.insert(at, next() as u8),
            }
        }
        let view = EntryView::parse(&m);
        let Ok(entry) = Entry::decode(m.as_slice()) else {
            continue;
        };
        // What prost reads, the views read: they check less (fields
        // they skip), never more.
        let view = view.expect("prost read these bytes");
        assert_eq!(view.header.snapshot, prost_snapshot(&entry), "{m:?}");
        let store = entry.store_value.as_deref().unwrap_or_default();
        assert_eq!(view.store_value, store);
        let Ok(change) = RowChange::decode(store) else {
            continue;
        };
        let cv = RowChangeView::parse(store).expect("prost read this RowChange");
        assert_eq!(cv.row_count, change.row_datas.len());
        for (rv, rd) in cv.rows().zip(&change.row_datas) {
            for (views, cols) in [
                (rv.before(), &rd.before_columns),
                (rv.after(), &rd.after_columns),
            ] {
                let views: Vec<_> = views.collect();
                assert_eq!(views.len(), cols.len());
                for (v, c) in views.iter().zip(cols) {
                    let v = v.as_ref().expect("prost read this column");
                    assert_eq!(v.name, c.name.as_deref().unwrap_or_default());
                    assert_eq!(v.value, c.value.as_deref());
                    assert_eq!(v.is_key, c.is_key.unwrap_or_default());
                }
            }
        }
    }
}

#[test]
fn bad_wire_data_is_refused_with_its_place() {
    // Field 3 (name) as a varint where a string is expected.
    let err = ColumnView::parse(&[0x08, 0x01, 0x18, 0x01]).unwrap_err();
    assert_eq!(err.message, "Column");
    assert_eq!(err.at, 4);
    assert_eq!(
        err.reason,
        "a string or message field is not length-delimited"
    );
    // Not UTF-8.
    let err = ColumnView::parse(&[0x1a, 0x01, 0xff]).unwrap_err();
    assert_eq!(err.reason, "a string is not UTF-8");
    // Wire type 3 (groups) is not used by Canal.
    let err = ColumnView::parse(&[0x0b]).unwrap_err();
    assert_eq!(err.reason, "unsupported wire type");
    // Field number 0.
    let err = ColumnView::parse(&[0x00, 0x00]).unwrap_err();
    assert_eq!(err.reason, "field number 0");
}

/// The column loop and the general walk read the same columns, and the
/// loop hands everything it does not take (errors included) to the walk:
/// columns of every field combination, then each of them cut short and
/// with single bytes changed.
#[test]
fn column_loop_reads_what_the_general_walk_reads() {
    let mut samples = Vec::new();
    for mask in 0u32..(1 << 6) {
        let on = |bit: u32| mask & (1 << bit) != 0;
        let c = Column {
            index: on(0).then_some(300),
            sql_type: on(1).then_some(-5),
            name: on(2).then(|| "naïve".to_string()),
            is_key: Some(on(3)),
            updated: on(4).then_some(true),
            is_null: Some(!on(5)),
            props: if on(0) {
                vec![Pair::new("k", "v")]
            } else {
                vec![]
            },
            value: on(5).then(|| "x".repeat(200)),
            length: on(1).then_some(-1),
            mysql_type: on(3).then(|| "varchar(32)".to_string()),
        };
        samples.push(c.encode_to_vec());
    }
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut cases = Vec::new();
    for bytes in &samples {
        assert!(ColumnView::parse_common(bytes).is_some(), "{bytes:?}");
        cases.push(bytes.clone());
        for cut in 0..bytes.len() {
            cases.push(bytes[..cut].to_vec());
        }
        for _ in 0..200 {
            let mut b = bytes.clone();
            if !b.is_empty() {
                let at = next() as usize % b.len();
                b[at] = next() as u8;
            }
            cases.push(b);
        }
    }
    for bytes in &cases {
        let general = ColumnView::parse_general(bytes);
        if let Some(c) = ColumnView::parse_common(bytes) {
            assert_eq!(Ok(&c), general.as_ref(), "{bytes:?}");
        }
        assert_eq!(ColumnView::parse(bytes), general, "{bytes:?}");
    }
}

/// The word-at-a-time varint reads what the byte-at-a-time one reads:
/// every length from one to eleven bytes, each continuation pattern,
/// cut short, at the end of a buffer and with bytes after it.
#[test]
fn varint_at_reads_what_the_field_walk_reads() {
    let mut seed = 0x1234_5678_9abc_def1u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut cases: Vec<Vec<u8>> = Vec::new();
    for v in [0, 1, 127, 128, 300, 16_383, 16_384, u64::from(u32::MAX)]
        .into_iter()
        .chain((0..64).map(|s| 1u64 << s))
        .chain((0..64).map(|s| (1u64 << s) - 1))
        .chain([-1i64 as u64, -5i64 as u64, i64::MIN as u64, u64::MAX])
    {
        let mut b = Vec::new();
        prost::encoding::encode_varint(v, &mut b);
        cases.push(b);
    }
    for len in 1..=12 {
        for _ in 0..300 {
            cases.push((0..len).map(|_| next() as u8).collect());
            // All continuation bytes but the last, which may be anything.
            let mut b: Vec<u8> = (0..len).map(|_| next() as u8 | 0x80).collect();
            b[len - 1] = next() as u8;
            cases.push(b);
        }
    }
    for case in &cases {
        for tail in [&[][..], &[0x05], &[0x80, 0x81, 0x01], &[0xff; 12]] {
            let mut buf = vec![0x99];
            buf.extend_from_slice(case);
            buf.extend_from_slice(tail);
            let mut f = Fields::new("test", &buf);
            f.pos = 1;
            let walked = f.varint().map(|v| (v, f.pos - 1));
            assert_eq!(varint_at(&buf, 1), walked, "{buf:?}");
        }
    }
}

/// Columns read from their bytes are the columns the checked iterator
/// reads, wherever they read to the end: the sample's rows, then
/// mutated copies.
#[test]
fn raw_columns_read_what_columns_read() {
    let bytes = sample().encode_to_vec();
    let mut seed = 0x0bad_cafe_f00d_d00du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let entry = Entry::decode(bytes.as_slice()).unwrap();
    let change = entry.store_value.unwrap().to_vec();
    let mut read_whole = 0;
    for round in 0..20_000 {
        let mut m = change.clone();
        if round > 0 {
            for _ in 0..1 + next() % 3 {
                let at = (next() % m.len() as u64) as usize;
                match next() % 3 {
                    0 => m[at] = next() as u8,
                    1 => {
                        m.remove(at);
                    }
                    _ => m.insert(at, next() as u8),
                }
            }
        }
        let Ok(cv) = RowChangeView::parse(&m) else {
            continue;
        };
        for row in cv.rows() {
            for (raw, checked) in [
                (row.before_bytes(), row.before()),
                (row.after_bytes(), row.after()),
            ] {
                let raw: Result<Vec<&[u8]>, NotCommon> = raw.collect();
                let Some(raw) = raw.ok().and_then(|columns| {
                    columns
                        .into_iter()
                        .map(RawColumn::parse)
                        .collect::<Option<Vec<_>>>()
                }) else {
                    continue;
                };
                read_whole += 1;
                let checked: Vec<_> = checked.collect();
                // Strings that are not UTF-8 are errors of the checked reader.
                let ok = raw.iter().map(RawColumn::check).collect::<Option<Vec<_>>>();
                match ok {
                    Some(columns) => {
                        let checked: Vec<_> = checked.into_iter().map(Result::unwrap).collect();
                        assert_eq!(columns, checked, "{m:?}");
                    }
                    None => assert!(checked.iter().any(Result::is_err), "{m:?}"),
                }
            }
        }
    }
    assert!(read_whole > 1000, "{read_whole}");
}

/// A shape reads a column only when parsing it whole gives the same
/// column: columns of every field combination with other values
/// (longer, shorter, absent), other flags, and bytes changed.
#[test]
fn a_shape_reads_what_parsing_reads() {
    let mut seed = 0x5eed_5eed_1234_4321u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let values = [
        None,
        Some(String::new()),
        Some("x".to_string()),
        Some("naïve".to_string()),
        Some("y".repeat(127)),
        Some("z".repeat(128)),
        Some("w".repeat(20_000)),
    ];
    let mut columns = Vec::new();
    for mask in 0u32..(1 << 6) {
        let on = |bit: u32| mask & (1 << bit) != 0;
        for value in &values {
            columns.push(Column {
                index: on(0).then_some(300),
                sql_type: on(1).then_some(-5),
                name: on(2).then(|| "naïve".to_string()),
                is_key: Some(on(3)),
                updated: on(4).then_some(true),
                is_null: Some(value.is_none()),
                props: if on(5) {
                    vec![Pair::new("k", "v")]
                } else {
                    vec![]
                },
                value: value.clone(),
                length: on(1).then_some(-1),
                mysql_type: on(3).then(|| "varchar(32)".to_string()),
            });
        }
    }
    let mut hits = 0;
    for (i, first) in columns.iter().enumerate() {
        let first = first.encode_to_vec();
        let (c, shape) = RawColumn::parse_shaped(&first).unwrap();
        assert_eq!(Some(c), RawColumn::parse(&first));
        let Some(shape) = shape else {
            assert!(c.value.is_none());
            continue;
        };
        assert_eq!(shape.column(), &c);
        // The columns of the same combination with other values, and a
        // sample of the others.
        let group = i / values.len() * values.len();
        let mut others: Vec<Vec<u8>> = columns[group..group + values.len()]
            .iter()
            .map(|c| c.encode_to_vec())
            .collect();
        for _ in 0..8 {
            let other = &columns[(next() % columns.len() as u64) as usize];
            others.push(other.encode_to_vec());
        }
        for other in others.clone() {
            for _ in 0..20 {
                let mut b = other.clone();
                let at = (next() % b.len() as u64) as usize;
                match next() % 3 {
                    0 => b[at] = next() as u8,
                    1 => {
                        b.remove(at);
                    }
                    _ => b.insert(at, next() as u8),
                }
                others.push(b);
            }
        }
        for other in &others {
            if let Some(read) = shape.read(other) {
                hits += 1;
                assert_eq!(Some(read), RawColumn::parse(other), "{first:?} {other:?}");
            }
        }
    }
    assert!(hits > 1000, "{hits}");
}

#[test]
fn the_source_epoch_prop_is_read_from_the_header() {
    let header = |props: Vec<Pair>| {
        Header {
            logfile_name: Some("binlog.000001".into()),
            props,
            ..Default::default()
        }
        .encode_to_vec()
    };
    let with = header(vec![
        Pair::new("rowsCount", "1"),
        Pair::new(SOURCE_EPOCH_PROP, "3"),
    ]);
    let view = HeaderView::parse(&with).unwrap();
    assert_eq!((view.source_epoch, view.snapshot), (3, false));
    assert_eq!(view.logfile_name, "binlog.000001");
    // Absent, or not a number: 0, and nothing fails.
    assert_eq!(HeaderView::parse(&header(vec![])).unwrap().source_epoch, 0);
    let bad = header(vec![Pair::new(SOURCE_EPOCH_PROP, "x")]);
    assert_eq!(HeaderView::parse(&bad).unwrap().source_epoch, 0);
    // Beside the snapshot mark, both are read.
    let both = header(vec![
        Pair::new("snapshot", "true"),
        Pair::new(SOURCE_EPOCH_PROP, "1"),
    ]);
    let view = HeaderView::parse(&both).unwrap();
    assert_eq!((view.source_epoch, view.snapshot), (1, true));
}
