//! Row changes per second a client reads out of Canal entries, two ways:
//! decoding each entry into prost's `Entry` and `RowChange` (what
//! `get_without_ack` and [`sluice_client::row_change`] give, and what
//! Canal's Java client does with its generated protobuf classes), and
//! reading the serialised entries in place with `sluice_canal::view`
//! (`get_without_ack_raw`, then `EntryView`, `RowChangeView`, columns as
//! borrowed text). Both read every column value of every row image and
//! must agree on what they read.
//!
//! Input: 20,000 entries of a 12-column table (the shape of the benchmark
//! table: keys, integers, decimals, a double, date and time, text), each a
//! `RowChange` of 5 rows: inserts, updates (both images) and deletes in
//! the proportion 6 : 3 : 1. Five passes of each reader, interleaved; the
//! best and the median are kept. Writes docs/benchmarks.md between the
//! `client-read-bench` markers.

use std::hint::black_box;
use std::time::Instant;

use prost::bytes::Bytes;
use prost::Message as _;
use sluice_canal::proto::{Column, Entry, EntryType, EventType, Header, RowChange, RowData};
use sluice_canal::view::{EntryView, RowChangeView};
use sluice_testkit::bench_docs;

const ENTRIES: usize = 20_000;
const ROWS_PER_ENTRY: usize = 5;
const PASSES: usize = 5;

/// The benchmark table's columns: name, `java.sql.Types` code, MySQL type.
const COLUMNS: [(&str, i32, &str); 12] = [
    ("id", -5, "bigint(20)"),
    ("k", 4, "int(11)"),
    ("qty", 4, "int(11)"),
    ("big", -5, "bigint(20)"),
    ("name", 12, "varchar(64)"),
    ("note", 12, "varchar(255)"),
    ("price", 3, "decimal(12,2)"),
    ("ratio", 8, "double"),
    ("created", 93, "datetime(6)"),
    ("day", 91, "date"),
    ("flag", -6, "tinyint(4)"),
    ("body", 2005, "text"),
];

fn column(i: usize, row: u64, updated: bool) -> Column {
    let (name, sql_type, mysql_type) = COLUMNS[i];
    let value = match i {
        0 => row.to_string(),
        1 => (row % 1000).to_string(),
        2 => (row * 7 % 100_000).to_string(),
        3 => (row * 1_000_003).to_string(),
        4 => format!("name-{row}"),
        5 => format!("a note about row {row}, long enough to be a real one"),
        6 => format!("{}.{:02}", row % 100_000, row % 100),
        7 => format!("{}", row as f64 / 7.0),
        8 => format!(
            "2026-12-07 10:{:02}:{:02}.{:06}",
            row % 60,
            row % 59,
            row % 999_999
        ),
        9 => format!("2026-{:02}-{:02}", row % 12 + 1, row % 28 + 1),
        10 => (row % 2).to_string(),
        _ => format!("body text {row} ").repeat(3),
    };
    Column {
        index: Some(i as i32),
        sql_type: Some(sql_type),
        name: Some(name.to_string()),
        is_key: Some(i == 0),
        updated: Some(updated),
        is_null: Some(false),
        props: Vec::new(),
        length: Some(value.len() as i32),
        value: Some(value),
        mysql_type: Some(mysql_type.to_string()),
    }
}

fn image(row: u64, updated: bool) -> Vec<Column> {
    (0..COLUMNS.len())
        .map(|i| column(i, row, updated && i == 2))
        .collect()
}

/// The serialised entries, as a client receives them.
fn entries() -> Vec<Bytes> {
    (0..ENTRIES)
        .map(|n| {
            let kind = match n % 10 {
                0..=5 => EventType::Insert,
                6..=8 => EventType::Update,
                _ => EventType::Delete,
            };
            let rows = (0..ROWS_PER_ENTRY)
                .map(|r| {
                    let row = (n * ROWS_PER_ENTRY + r) as u64;
                    let (before, after) = match kind {
                        EventType::Insert => (Vec::new(), image(row, false)),
                        EventType::Update => (image(row, false), image(row + 1, true)),
                        _ => (image(row, false), Vec::new()),
                    };
                    RowData {
                        before_columns: before,
                        after_columns: after,
                        props: Vec::new(),
                    }
                })
                .collect();
            let change = RowChange {
                table_id: Some(42),
                event_type: Some(kind as i32),
                is_ddl: Some(false),
                sql: None,
                row_datas: rows,
                props: Vec::new(),
                ddl_schema_name: None,
            };
            let entry = Entry {
                header: Some(Header {
                    version: Some(1),
                    logfile_name: Some("binlog.000001".into()),
                    logfile_offset: Some(4 + n as i64 * 900),
                    server_id: Some(1),
                    serverenc_code: Some("UTF-8".into()),
                    execute_time: Some(1_796_000_000_000),
                    source_type: Some(1),
                    schema_name: Some("bench".into()),
                    table_name: Some("t".into()),
                    event_length: Some(900),
                    event_type: Some(kind as i32),
                    props: Vec::new(),
                    gtid: Some(String::new()),
                }),
                entry_type: Some(EntryType::RowData as i32),
                store_value: Some(Bytes::from(change.encode_to_vec())),
            };
            Bytes::from(entry.encode_to_vec())
        })
        .collect()
}

/// What a reader saw: row images, columns, and the bytes of their values.
#[derive(Debug, Default, PartialEq, Eq)]
struct Seen {
    images: u64,
    columns: u64,
    value_bytes: u64,
}

/// Full decoding: prost's `Entry`, then its `RowChange`.
fn read_decoded(entries: &[Bytes]) -> Seen {
    let mut seen = Seen::default();
    for bytes in entries {
        let Ok(entry) = Entry::decode(bytes.clone()) else {
            panic!("an entry does not decode");
        };
        let Ok(change) = sluice_client::row_change(&entry) else {
            panic!("a row change does not decode");
        };
        for row in &change.row_datas {
            for image in [&row.before_columns, &row.after_columns] {
                if image.is_empty() {
                    continue;
                }
                seen.images += 1;
                for c in image {
                    seen.columns += 1;
                    seen.value_bytes += c.value.as_deref().map_or(0, str::len) as u64;
                }
            }
        }
        black_box(&change);
    }
    seen
}

/// In place: `EntryView`, `RowChangeView`, borrowed columns.
fn read_in_place(entries: &[Bytes]) -> Seen {
    let mut seen = Seen::default();
    for bytes in entries {
        let Ok(entry) = EntryView::parse(bytes) else {
            panic!("an entry does not parse");
        };
        let Ok(change) = RowChangeView::parse(entry.store_value) else {
            panic!("a row change does not parse");
        };
        for row in change.rows() {
            for image in [row.before(), row.after()] {
                let mut any = false;
                for c in image {
                    let Ok(c) = c else {
                        panic!("a column does not parse");
                    };
                    any = true;
                    seen.columns += 1;
                    seen.value_bytes += c.value.map_or(0, str::len) as u64;
                    black_box(c.name);
                }
                seen.images += u64::from(any);
            }
        }
    }
    seen
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into());
    let entries = entries();
    let bytes: usize = entries.iter().map(Bytes::len).sum();
    let rows = (ENTRIES * ROWS_PER_ENTRY) as f64;
    let expected = read_decoded(&entries);
    assert_eq!(read_in_place(&entries), expected, "the readers disagree");

    let mut decoded = Vec::new();
    let mut in_place = Vec::new();
    for pass in 0..PASSES {
        // Alternates which reader goes first.
        let order: [bool; 2] = if pass % 2 == 0 {
            [true, false]
        } else {
            [false, true]
        };
        for full in order {
            let started = Instant::now();
            let seen = if full {
                read_decoded(&entries)
            } else {
                read_in_place(&entries)
            };
            let secs = started.elapsed().as_secs_f64();
            assert_eq!(seen, expected);
            let rate = rows / secs;
            eprintln!(
                "client read: pass {pass}, {}: {:.0} row changes/s",
                if full { "prost decode" } else { "in place" },
                rate
            );
            if full {
                decoded.push(rate);
            } else {
                in_place.push(rate);
            }
        }
    }
    let best = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    let (db, ib) = (best(&decoded), best(&in_place));
    let (dm, im) = (median(&mut decoded), median(&mut in_place));
    let text = format!(
        "Reading Canal entries in a client (`cargo bench -p sluice-client --bench read_entries`): \
         {ENTRIES} entries of a 12-column table, {ROWS_PER_ENTRY} rows each (inserts, updates with both images, deletes 6 : 3 : 1), \
         {:.1} MB serialised, every column value of every image read; {PASSES} passes each, interleaved. \
         Machine: {} ({} cores), load average {} at the start.\n\n\
         | reader | row changes/s (median) | best | ratio (median) |\n\
         | --- | ---: | ---: | ---: |\n\
         | prost `Entry` + `RowChange` (`get_without_ack`, `row_change`) | {dm:.0} | {db:.0} | 1.00 |\n\
         | in place (`get_without_ack_raw`, `EntryView`, `RowChangeView`) | {im:.0} | {ib:.0} | {:.2} |\n",
        bytes as f64 / 1e6,
        bench_docs::cpu_model(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load,
        im / dm,
    );
    print!("{text}");
    if let Err(e) = bench_docs::write_section(
        "<!-- client-read-bench:begin -->",
        "<!-- client-read-bench:end -->",
        &text,
    ) {
        eprintln!("cannot write docs/benchmarks.md: {e}");
    }
}
