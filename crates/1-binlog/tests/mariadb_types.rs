//! Every column type written through a private MariaDB, decoded from the
//! binlog file, and compared value by value with what a SELECT returns.
//! Runs under binlog_row_metadata FULL and MINIMAL, row images FULL, MINIMAL
//! and NOBLOB, and with log_bin_compress on.

use std::collections::HashMap;
use std::ops::ControlFlow;

use sluice_binlog::{walk_file, BinlogFile, Cell, EventData, EventType, RowsKind};
use sluice_testkit::{BinlogRowImage, BinlogRowMetadata, MariaDb, MariaDbConfig};

/// How a SELECT shows the column so it compares with Sluice's rendering.
#[derive(Clone, Copy, PartialEq)]
enum Shown {
    /// As the server sends it.
    Text,
    /// Binary data: Sluice prints `0x` + hex.
    Hex,
    /// ENUM/SET: labels with FULL metadata, numbers without.
    EnumSet,
    /// A BLOB/TEXT column (left out of NOBLOB before-images).
    Blob,
    /// A BLOB holding binary data.
    BlobHex,
    /// BIT(n): its (n+7)/8 bytes in hex.
    Bit(usize),
    /// MariaDB's UUID and INET6 types travel as BINARY(16): the binlog
    /// cannot tell them apart from it, so they are rendered as hex.
    Binary16,
}

const COLUMNS: &[(&str, &str, Shown)] = &[
    ("id", "INT NOT NULL PRIMARY KEY", Shown::Text),
    ("ti", "TINYINT", Shown::Text),
    ("tiu", "TINYINT UNSIGNED", Shown::Text),
    ("si", "SMALLINT", Shown::Text),
    ("siu", "SMALLINT UNSIGNED", Shown::Text),
    ("mi", "MEDIUMINT", Shown::Text),
    ("miu", "MEDIUMINT UNSIGNED", Shown::Text),
    ("i", "INT", Shown::Text),
    ("iu", "INT UNSIGNED", Shown::Text),
    ("bi", "BIGINT", Shown::Text),
    ("biu", "BIGINT UNSIGNED", Shown::Text),
    ("f", "FLOAT", Shown::Text),
    ("d", "DOUBLE", Shown::Text),
    ("dec1", "DECIMAL(10,2)", Shown::Text),
    ("dec2", "DECIMAL(65,30)", Shown::Text),
    ("dec3", "DECIMAL(5,0)", Shown::Text),
    ("dec4", "DECIMAL(18,9) UNSIGNED", Shown::Text),
    ("y", "YEAR", Shown::Text),
    ("dt", "DATE", Shown::Text),
    ("tm", "TIME", Shown::Text),
    ("tm1", "TIME(1)", Shown::Text),
    ("tm3", "TIME(3)", Shown::Text),
    ("tm6", "TIME(6)", Shown::Text),
    ("dtm", "DATETIME", Shown::Text),
    ("dtm2", "DATETIME(2)", Shown::Text),
    ("dtm6", "DATETIME(6)", Shown::Text),
    ("ts", "TIMESTAMP NULL", Shown::Text),
    ("ts3", "TIMESTAMP(3) NULL", Shown::Text),
    ("ts6", "TIMESTAMP(6) NULL", Shown::Text),
    ("c", "CHAR(10)", Shown::Text),
    ("c_latin1", "CHAR(5) CHARACTER SET latin1", Shown::Text),
    ("c_wide", "CHAR(100)", Shown::Text),
    ("vc", "VARCHAR(100)", Shown::Text),
    ("vc_long", "VARCHAR(300)", Shown::Text),
    ("vc_latin1", "VARCHAR(20) CHARACTER SET latin1", Shown::Text),
    ("vc_ucs2", "VARCHAR(20) CHARACTER SET ucs2", Shown::Text),
    ("bin4", "BINARY(4)", Shown::Hex),
    ("vbin", "VARBINARY(10)", Shown::Hex),
    ("tt", "TINYTEXT", Shown::Blob),
    ("txt", "TEXT", Shown::Blob),
    ("mt", "MEDIUMTEXT", Shown::Blob),
    ("lt", "LONGTEXT", Shown::Blob),
    ("tb", "TINYBLOB", Shown::BlobHex),
    ("b", "BLOB", Shown::BlobHex),
    ("mb", "MEDIUMBLOB", Shown::BlobHex),
    ("lb", "LONGBLOB", Shown::BlobHex),
    ("e", "ENUM('a','b','c')", Shown::EnumSet),
    ("s", "SET('x','y','z')", Shown::EnumSet),
    ("bit1", "BIT(1)", Shown::Bit(1)),
    ("bit12", "BIT(12)", Shown::Bit(2)),
    ("bit64", "BIT(64)", Shown::Bit(8)),
    ("j", "JSON", Shown::Blob),
    ("g", "GEOMETRY", Shown::BlobHex),
    ("pt", "POINT", Shown::BlobHex),
    ("u", "UUID", Shown::Binary16),
    ("ip", "INET6", Shown::Binary16),
];

/// Rows inserted, one SQL literal per column of `COLUMNS`.
const ROWS: &[&[&str]] = &[
    &[
        "1",
        "1",
        "200",
        "-300",
        "60000",
        "-8000000",
        "16000000",
        "-2000000000",
        "4000000000",
        "-9000000000000000000",
        "18000000000000000000",
        "1.5",
        "2.25",
        "12345678.90",
        "12345678901234567890.123456789012345678901234567890",
        "-99999",
        "123456789.123456789",
        "2024",
        "'2024-02-29'",
        "'12:34:56'",
        "'-01:02:03.4'",
        "'838:59:59.000'",
        "'-838:59:58.999999'",
        "'2024-02-29 23:59:59'",
        "'1999-12-31 23:59:59.99'",
        "'2000-01-01 00:00:00.000001'",
        "'2024-01-01 00:00:00'",
        "'2038-01-19 03:14:07.999'",
        "'1970-01-01 00:00:01.000001'",
        "'chars'",
        "'café'",
        "REPEAT('w', 100)",
        "'héllo € 😀'",
        "REPEAT('x', 300)",
        "'€ latin'",
        "'ucs2 é'",
        "'ab'",
        "0x00FF10",
        "'tiny'",
        "'text'",
        "'medium'",
        "'long'",
        "0x01",
        "0xDEADBEEF",
        "0x00",
        "0xFF00FF",
        "'b'",
        "'x,z'",
        "b'1'",
        "b'101010101010'",
        "0xFFFFFFFFFFFFFFFF",
        "'{\"a\": [1, 2.5, \"x\"], \"b\": null}'",
        "ST_GeomFromText('LINESTRING(0 0,1 1,2 1)')",
        "ST_GeomFromText('POINT(1.5 -2.25)')",
        "'123e4567-e89b-12d3-a456-426614174000'",
        "'2001:db8::ff00:42:8329'",
    ],
    &[
        "2",
        "-128",
        "0",
        "-32768",
        "0",
        "-8388608",
        "0",
        "-2147483648",
        "0",
        "-9223372036854775808",
        "0",
        "-3.4e38",
        "-1.7976931348623157e308",
        "-99999999.99",
        "-99999999999999999999999999999999999.999999999999999999999999999999",
        "0",
        "0.000000001",
        "1901",
        "'1000-01-01'",
        "'-838:59:59'",
        "'00:00:00.5'",
        "'-00:00:00.001'",
        "'00:00:00.000001'",
        "'1000-01-01 00:00:00'",
        "'1000-01-01 00:00:00.01'",
        "'9999-12-31 23:59:59.999999'",
        "'1970-01-01 00:00:01'",
        "'1970-01-01 00:00:01.001'",
        "'2038-01-19 03:14:07.999999'",
        "''",
        "''",
        "''",
        "''",
        "''",
        "''",
        "''",
        "''",
        "''",
        "''",
        "''",
        "''",
        "''",
        "''",
        "''",
        "''",
        "''",
        "'a'",
        "''",
        "b'0'",
        "b'0'",
        "0",
        "'[]'",
        "ST_GeomFromText('POINT(0 0)')",
        "ST_GeomFromText('POINT(0 0)')",
        "'00000000-0000-0000-0000-000000000000'",
        "'::'",
    ],
    &[
        "3",
        "127",
        "255",
        "32767",
        "65535",
        "8388607",
        "16777215",
        "2147483647",
        "4294967295",
        "9223372036854775807",
        "18446744073709551615",
        "3.4e38",
        "1.7976931348623157e308",
        "99999999.99",
        "99999999999999999999999999999999999.999999999999999999999999999999",
        "99999",
        "999999999.999999999",
        "2155",
        "'9999-12-31'",
        "'838:59:59'",
        "'838:59:59.9'",
        "'-838:59:59.000'",
        "'838:59:59.000000'",
        "'9999-12-31 23:59:59'",
        "'9999-12-31 23:59:59.99'",
        "'9999-12-31 23:59:59.999999'",
        "'2038-01-19 03:14:07'",
        "'2038-01-19 03:14:07.999'",
        "'2038-01-19 03:14:07.999999'",
        "'tenchars!!'",
        "'abcde'",
        "REPEAT('z', 100)",
        "REPEAT('é', 100)",
        "REPEAT('€', 300)",
        "'xéy'",
        "'x'",
        "0xFFFFFFFF",
        "0xFFFFFFFFFFFFFFFFFFFF",
        "REPEAT('t', 255)",
        "REPEAT('T', 65535)",
        "REPEAT('m', 100000)",
        "REPEAT('l', 200000)",
        "REPEAT(0x7f, 255)",
        "REPEAT(0x80, 65535)",
        "REPEAT(0x81, 70000)",
        "REPEAT(0x82, 300000)",
        "'c'",
        "'x,y,z'",
        "b'1'",
        "b'111111111111'",
        "b'1000000000000000000000000000000000000000000000000000000000000000'",
        "'{\"k\": \"\\\\u00e9\\\\n\"}'",
        "ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 10,0 0))')",
        "ST_GeomFromText('POINT(1e300 -1e-300)')",
        "'ffffffff-ffff-ffff-ffff-ffffffffffff'",
        "'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'",
    ],
    &[
        "4", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL",
        "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL",
        "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL",
        "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL",
        "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL",
        "NULL",
    ],
    &[
        "5",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "'0000-00-00'",
        "'00:00:00'",
        "'00:00:00'",
        "'00:00:00'",
        "'00:00:00'",
        "'0000-00-00 00:00:00'",
        "'0000-00-00 00:00:00'",
        "'0000-00-00 00:00:00'",
        "0",
        "0",
        "0",
        "'a '",
        "' '",
        "'  lead'",
        "'trail  '",
        "' '",
        "''",
        "''",
        "0x61000000",
        "0x0000",
        "' '",
        "''",
        "''",
        "''",
        "''",
        "''",
        "''",
        "''",
        "0",
        "''",
        "0",
        "0",
        "0",
        "'null'",
        "ST_GeomFromText('MULTIPOINT(1 1,2 2)')",
        "ST_GeomFromText('POINT(3 4)')",
        "NULL",
        "NULL",
    ],
    &[
        "6",
        "1",
        "1",
        "1",
        "1",
        "1",
        "1",
        "1",
        "1",
        "1",
        "1",
        "0.1",
        "0.1",
        "0.01",
        "0.000000000000000000000000000001",
        "1",
        "0.1",
        "1970",
        "'2000-01-01'",
        "'00:00:01'",
        "'00:00:00.1'",
        "'00:00:00.010'",
        "'-00:00:00.000001'",
        "'2000-01-01 00:00:00'",
        "'2000-01-01 00:00:00.01'",
        "'2000-01-01 00:00:00.100000'",
        "'2000-01-01 00:00:00'",
        "'2000-01-01 00:00:00.001'",
        "'2000-01-01 00:00:00.123456'",
        "'x'",
        "'x'",
        "'x'",
        "'a\\'quote\\\\back\\\"dq\\ttab\\nnl'",
        "'x'",
        "'x'",
        "'x'",
        "0x01",
        "0x01",
        "'x'",
        "'x'",
        "'x'",
        "'x'",
        "0x01",
        "0x01",
        "0x01",
        "0x01",
        "''",
        "'y'",
        "b'0'",
        "b'000000000001'",
        "b'1'",
        "'1'",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
    ],
    &[
        "7",
        "5",
        "5",
        "5",
        "5",
        "5",
        "5",
        "5",
        "5",
        "5",
        "5",
        "123456.789",
        "1e15",
        "5.5",
        "5.5",
        "5",
        "5.5",
        "2000",
        "'2000-01-01'",
        "'100:00:00'",
        "'-00:00:01.5'",
        "'-00:00:00.5'",
        "'12:00:00.5'",
        "'2000-01-01 12:00:00'",
        "'2000-01-01 12:00:00.5'",
        "'2000-01-01 12:00:00.5'",
        "'2020-06-01 12:00:00'",
        "'2020-06-01 12:00:00.5'",
        "'2020-06-01 12:00:00.5'",
        "'x'",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "'c'",
        "''",
        "b'1'",
        "b'1'",
        "b'1'",
        "'{}'",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
    ],
    &[
        "8",
        "9",
        "9",
        "9",
        "9",
        "9",
        "9",
        "9",
        "9",
        "9",
        "9",
        "1e-10",
        "1.5e-7",
        "9.99",
        "1e-20",
        "9",
        "9.9",
        "2099",
        "'2099-01-01'",
        "'23:59:59'",
        "'23:59:59.9'",
        "'23:59:59.999'",
        "'23:59:59.999999'",
        "'2099-12-31 23:59:59'",
        "'2099-12-31 23:59:59.99'",
        "'2099-12-31 23:59:59.999999'",
        "'2030-01-01 00:00:00'",
        "'2030-01-01 00:00:00.999'",
        "'2030-01-01 00:00:00.999999'",
        "'x'",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
        "'a'",
        "'x,y'",
        "b'0'",
        "b'1'",
        "b'1'",
        "'3'",
        "NULL",
        "NULL",
        "NULL",
        "NULL",
    ],
];

const UPDATES: &str = "
UPDATE t SET vc = CONCAT(vc, '!'), i = 42 WHERE id IN (1, 2);
UPDATE t SET txt = 'changed text', b = 0xC0FFEE WHERE id = 3;
UPDATE t SET f = 2.5, dtm6 = '2001-02-03 04:05:06.070809', e = 'c', s = 'y', ts = '2001-01-01 00:00:00' WHERE id = 4;
UPDATE t SET id = 50 WHERE id = 5;
";

const DELETES: &str = "DELETE FROM t WHERE id IN (2, 50, 7);";

fn select_list(full_metadata: bool) -> String {
    COLUMNS
        .iter()
        .map(|&(name, _, shown)| match shown {
            Shown::Hex | Shown::BlobHex => format!("LOWER(CONCAT('0x', HEX(`{name}`)))"),
            Shown::Bit(bytes) => {
                format!(
                    "LOWER(CONCAT('0x', LPAD(HEX(`{name}`), {}, '0')))",
                    bytes * 2
                )
            }
            // The server's own conversion gives the stored bytes of these types.
            Shown::Binary16 => format!("LOWER(CONCAT('0x', HEX(CAST(`{name}` AS BINARY(16)))))"),
            Shown::EnumSet if !full_metadata => format!("`{name}` + 0"),
            _ => format!("`{name}`"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

type Snapshot = HashMap<String, Vec<Option<String>>>;

struct Counts {
    written: usize,
    updated: usize,
    deleted: usize,
    compressed_events: usize,
    absent_cells: usize,
}

/// With `SLUICE_KEEP_BINLOGS=DIR`, copies the binlog files a run wrote to
/// DIR: they are the live fixtures of the Canal entry bytes test
/// (`crates/6-instance/tests/data/live-types`).
fn keep_binlogs(
    db: &MariaDb,
    image: BinlogRowImage,
    metadata: BinlogRowMetadata,
    compress: bool,
) -> anyhow::Result<()> {
    let Some(dir) = std::env::var_os("SLUICE_KEEP_BINLOGS") else {
        return Ok(());
    };
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir)?;
    let tag = format!(
        "{image:?}-{metadata:?}-{}",
        if compress { "compressed" } else { "plain" }
    )
    .to_ascii_lowercase();
    for path in db.binlog_files()? {
        if let Some(name) = path.file_name() {
            let to = dir.join(format!("{tag}.{}", name.to_string_lossy()));
            std::fs::copy(&path, to)?;
        }
    }
    Ok(())
}

fn run(
    image: BinlogRowImage,
    metadata: BinlogRowMetadata,
    compress: bool,
) -> anyhow::Result<Counts> {
    let cfg = MariaDbConfig::default()
        .binlog_row_image(image)
        .binlog_row_metadata(metadata)
        .log_bin_compress(compress)
        .arg("--default-time-zone=+00:00")
        .arg("--max-allowed-packet=64M");
    let db = MariaDb::start(cfg)?;
    let full = metadata == BinlogRowMetadata::Full;
    let ddl = COLUMNS
        .iter()
        .map(|(n, t, _)| format!("`{n}` {t}"))
        .collect::<Vec<_>>()
        .join(", ");
    db.exec(&format!(
        "CREATE DATABASE types; USE types; CREATE TABLE t ({ddl}) CHARACTER SET utf8mb4"
    ))?;
    for row in ROWS {
        assert_eq!(
            row.len(),
            COLUMNS.len(),
            "a row of ROWS has the wrong number of values"
        );
        db.exec(&format!(
            "SET SESSION sql_mode=''; INSERT INTO types.t VALUES ({})",
            row.join(", ")
        ))?;
    }
    let use_db = |sql: &str| format!("USE types; {sql}");
    let after_insert = snapshot(&db, full)?;
    db.exec(&format!("SET SESSION sql_mode=''; {}", use_db(UPDATES)))?;
    let after_update = snapshot(&db, full)?;
    db.exec(&use_db(DELETES))?;
    db.flush_binlogs()?;
    keep_binlogs(&db, image, metadata, compress)?;

    let mut counts = Counts {
        written: 0,
        updated: 0,
        deleted: 0,
        compressed_events: 0,
        absent_cells: 0,
    };
    let mut failures = Vec::new();
    let mut seen_table = false;
    for path in db.binlog_files()? {
        let file = BinlogFile::open(&path)?;
        let name = file.name();
        walk_file(&name, file.bytes(), |at, raw, data| {
            if raw.header.event_type.0 >= EventType::MARIADB_QUERY_COMPRESSED.0 {
                counts.compressed_events += 1;
            }
            let EventData::Rows(ev) = data else {
                return ControlFlow::Continue(());
            };
            if ev.table.table != "t" {
                return ControlFlow::Continue(());
            }
            seen_table = true;
            if full {
                let names: Vec<_> = ev.table.columns.iter().map(|c| c.name.clone()).collect();
                let expected: Vec<_> = COLUMNS.iter().map(|c| Some(c.0.to_string())).collect();
                assert_eq!(names, expected, "column names at {name}:{}", at.pos);
            }
            for row in ev.rows() {
                let row = match row {
                    Ok(r) => r,
                    Err(e) => {
                        failures.push(format!("{name}:{}: row: {e}", at.pos));
                        continue;
                    }
                };
                let (before_snap, after_snap) = match ev.kind {
                    RowsKind::Write => {
                        counts.written += 1;
                        (None, Some(&after_insert))
                    }
                    RowsKind::Update | RowsKind::PartialUpdate => {
                        counts.updated += 1;
                        (Some(&after_insert), Some(&after_update))
                    }
                    RowsKind::Delete => {
                        counts.deleted += 1;
                        (Some(&after_update), None)
                    }
                };
                let mut id = None;
                for (label, img, snap) in [
                    ("before", row.before.as_ref(), before_snap),
                    ("after", row.after.as_ref(), after_snap),
                ] {
                    let (Some(img), Some(snap)) = (img, snap) else {
                        continue;
                    };
                    let cells: Vec<_> = match img.cells().collect::<Result<Vec<_>, _>>() {
                        Ok(c) => c,
                        Err(e) => {
                            failures.push(format!("{name}:{}: {label} cells: {e}", at.pos));
                            continue;
                        }
                    };
                    let texts: Vec<Option<Option<String>>> = cells
                        .iter()
                        .enumerate()
                        .map(|(i, c)| match c {
                            Cell::Absent => None,
                            Cell::Present(v) => Some(
                                v.to_text(&ev.table.columns[i])
                                    .unwrap_or_else(|e| Some(format!("<error {e}>"))),
                            ),
                        })
                        .collect();
                    if image == BinlogRowImage::Minimal && label == "before" {
                        let present = texts.iter().filter(|t| t.is_some()).count();
                        if present != 1 {
                            failures.push(format!(
                                "{name}:{}: MINIMAL before image has {present} columns, expected only the primary key",
                                at.pos
                            ));
                        }
                    }
                    // The id comes from this image, or the before image of an update.
                    if let Some(Some(Some(v))) = texts.first() {
                        id = Some(v.clone());
                    }
                    let Some(key) = id.clone() else {
                        failures.push(format!("{name}:{}: {label} image without id", at.pos));
                        continue;
                    };
                    let Some(expected) = snap.get(&key) else {
                        failures.push(format!("{name}:{}: row id {key} not in SELECT", at.pos));
                        continue;
                    };
                    for (i, got) in texts.iter().enumerate() {
                        let col = COLUMNS[i].0;
                        match got {
                            None => {
                                counts.absent_cells += 1;
                                if image == BinlogRowImage::Full {
                                    failures.push(format!(
                                        "{name}:{}: id {key} {label} {col}: absent in a FULL image",
                                        at.pos
                                    ));
                                }
                                if image == BinlogRowImage::NoBlob
                                    && !matches!(COLUMNS[i].2, Shown::Blob | Shown::BlobHex)
                                {
                                    failures.push(format!(
                                        "{name}:{}: id {key} {label} {col}: only BLOB/TEXT columns may be left out of a NOBLOB image",
                                        at.pos
                                    ));
                                }
                                if image == BinlogRowImage::Minimal && label == "before" && i == 0 {
                                    failures.push(format!(
                                        "{name}:{}: id {key}: a MINIMAL before image must keep the primary key",
                                        at.pos
                                    ));
                                }
                            }
                            Some(v) if *v != expected[i] => failures.push(format!(
                                "{name}:{}: id {key} {label} {col}: decoded {:?}, SELECT {:?}",
                                at.pos,
                                v.as_deref().map(|s| s.chars().take(80).collect::<String>()),
                                expected[i]
                                    .as_deref()
                                    .map(|s| s.chars().take(80).collect::<String>())
                            )),
                            Some(_) => {}
                        }
                    }
                }
            }
            ControlFlow::Continue(())
        })?;
    }
    assert!(seen_table, "no rows events for table t in the binlog");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    Ok(counts)
}

fn snapshot(db: &MariaDb, full: bool) -> anyhow::Result<Snapshot> {
    let rows = db.query(&format!("SELECT {} FROM types.t", select_list(full)))?;
    Ok(rows
        .into_iter()
        .map(|r| (r[0].clone().unwrap_or_default(), r))
        .collect())
}

fn expect_all_rows(c: &Counts) {
    assert_eq!(c.written, 8, "inserted rows");
    assert_eq!(c.updated, 5, "updated rows");
    assert_eq!(c.deleted, 3, "deleted rows");
}

#[test]
fn full_metadata_full_image() -> anyhow::Result<()> {
    let c = run(BinlogRowImage::Full, BinlogRowMetadata::Full, false)?;
    expect_all_rows(&c);
    assert_eq!(c.absent_cells, 0);
    Ok(())
}

#[test]
fn minimal_metadata_full_image() -> anyhow::Result<()> {
    let c = run(BinlogRowImage::Full, BinlogRowMetadata::Minimal, false)?;
    expect_all_rows(&c);
    Ok(())
}

#[test]
fn full_metadata_minimal_image() -> anyhow::Result<()> {
    let c = run(BinlogRowImage::Minimal, BinlogRowMetadata::Full, false)?;
    expect_all_rows(&c);
    assert!(c.absent_cells > 0, "a MINIMAL image leaves columns out");
    Ok(())
}

#[test]
fn full_metadata_noblob_image() -> anyhow::Result<()> {
    let c = run(BinlogRowImage::NoBlob, BinlogRowMetadata::Full, false)?;
    expect_all_rows(&c);
    assert!(
        c.absent_cells > 0,
        "a NOBLOB image leaves unchanged blobs out"
    );
    Ok(())
}

#[test]
fn compressed_binlog() -> anyhow::Result<()> {
    let c = run(BinlogRowImage::Full, BinlogRowMetadata::Full, true)?;
    expect_all_rows(&c);
    assert!(
        c.compressed_events > 0,
        "log_bin_compress wrote no compressed events"
    );
    Ok(())
}

#[test]
fn compressed_minimal_metadata_minimal_image() -> anyhow::Result<()> {
    let c = run(BinlogRowImage::Minimal, BinlogRowMetadata::Minimal, true)?;
    expect_all_rows(&c);
    assert!(c.compressed_events > 0);
    Ok(())
}
