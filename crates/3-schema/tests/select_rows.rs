//! Rows read with SELECT, turned into row images by `select_rows`, against
//! the same rows as a private MariaDB wrote them to its binlog: the table
//! map built from the tracked schema must equal the binlog's (FULL
//! metadata, completed by the tracked schema as the tracker does), and
//! every decoded value of every row must be equal, column by column.

mod common;

use std::ops::ControlFlow;
use std::sync::Arc;

use common::live::TestSource;
use sluice_binlog::{walk_file, Cell, EventData, RowsEvent, RowsKind, TableMap};
use sluice_schema::binlog_meta::enrich;
use sluice_schema::metadata::read_table;
use sluice_schema::position::BinlogPosition;
use sluice_schema::select_rows::{row_from_text, select_list, table_map_for};
use sluice_schema::{Catalog, TableSchema};
use sluice_testkit::{BinlogRowImage, BinlogRowMetadata, MariaDb, MariaDbConfig};

/// Rows inserted, column-major: each column with its type and one SQL
/// literal per row. Row 1 holds maxima, 2 minima, 3 NULLs, 4 zeros and
/// empty values, 5 and 6 assorted edge values.
const COLUMNS: &[(&str, &str, [&str; 6])] = &[
    (
        "id",
        "INT NOT NULL PRIMARY KEY",
        ["1", "2", "3", "4", "5", "6"],
    ),
    ("ti", "TINYINT", ["127", "-128", "NULL", "0", "-1", "1"]),
    (
        "tiu",
        "TINYINT UNSIGNED",
        ["255", "0", "NULL", "0", "1", "128"],
    ),
    (
        "si",
        "SMALLINT",
        ["32767", "-32768", "NULL", "0", "-2", "2"],
    ),
    (
        "siu",
        "SMALLINT UNSIGNED",
        ["65535", "0", "NULL", "0", "1", "32768"],
    ),
    (
        "mi",
        "MEDIUMINT",
        ["8388607", "-8388608", "NULL", "0", "-3", "3"],
    ),
    (
        "miu",
        "MEDIUMINT UNSIGNED",
        ["16777215", "0", "NULL", "0", "1", "8388608"],
    ),
    (
        "i",
        "INT",
        ["2147483647", "-2147483648", "NULL", "0", "-4", "4"],
    ),
    (
        "iu",
        "INT UNSIGNED",
        ["4294967295", "0", "NULL", "0", "1", "2147483648"],
    ),
    (
        "bi",
        "BIGINT",
        [
            "9223372036854775807",
            "-9223372036854775808",
            "NULL",
            "0",
            "-5",
            "5",
        ],
    ),
    (
        "biu",
        "BIGINT UNSIGNED",
        [
            "18446744073709551615",
            "0",
            "NULL",
            "0",
            "1",
            "9223372036854775808",
        ],
    ),
    (
        "f",
        "FLOAT",
        [
            "3.4e38",
            "-3.4e38",
            "NULL",
            "0",
            "123456.789",
            "1.17549435e-38",
        ],
    ),
    (
        "f73",
        "FLOAT(7,3)",
        ["9999.999", "-9999.999", "NULL", "0", "1.234", "-0.001"],
    ),
    (
        "d",
        "DOUBLE",
        [
            "1.7976931348623157e308",
            "-1.7976931348623157e308",
            "NULL",
            "0",
            "0.1",
            "2.2250738585072014e-308",
        ],
    ),
    (
        "d102",
        "DOUBLE(10,2)",
        ["99999999.99", "-99999999.99", "NULL", "0", "0.1", "-1.23"],
    ),
    (
        "izf",
        "INT(8) ZEROFILL",
        ["4294967295", "0", "NULL", "0", "1", "42"],
    ),
    (
        "deczf",
        "DECIMAL(8,3) ZEROFILL",
        ["99999.999", "0", "NULL", "0", "0.5", "12.25"],
    ),
    (
        "fzf",
        "FLOAT ZEROFILL",
        ["3.4e38", "0", "NULL", "0", "1.5", "0.001"],
    ),
    ("b1", "BOOL", ["1", "-128", "NULL", "0", "127", "TRUE"]),
    (
        "dec1",
        "DECIMAL(10,2)",
        [
            "99999999.99",
            "-99999999.99",
            "NULL",
            "0",
            "-0.05",
            "12345678.9",
        ],
    ),
    (
        "dec2",
        "DECIMAL(65,30)",
        [
            "99999999999999999999999999999999999.999999999999999999999999999999",
            "-99999999999999999999999999999999999.999999999999999999999999999999",
            "NULL",
            "0",
            "0.000000000000000000000000000001",
            "-12345678901234567890.123456789012345678901234567890",
        ],
    ),
    (
        "dec3",
        "DECIMAL(5,0)",
        ["99999", "-99999", "NULL", "0", "-1", "1"],
    ),
    (
        "dec4",
        "DECIMAL(18,9) UNSIGNED",
        [
            "999999999.999999999",
            "0",
            "NULL",
            "0",
            "0.000000001",
            "123456789.123456789",
        ],
    ),
    (
        "dec5",
        "DECIMAL(30,30)",
        [
            "0.999999999999999999999999999999",
            "-0.999999999999999999999999999999",
            "NULL",
            "0",
            "-0.000000000000000000000000000001",
            "0.5",
        ],
    ),
    ("y", "YEAR", ["2155", "1901", "NULL", "0", "2000", "1970"]),
    (
        "dt",
        "DATE",
        [
            "'9999-12-31'",
            "'1000-01-01'",
            "NULL",
            "'0000-00-00'",
            "'2024-02-29'",
            "'1970-01-01'",
        ],
    ),
    (
        "tm",
        "TIME",
        [
            "'838:59:59'",
            "'-838:59:59'",
            "NULL",
            "'00:00:00'",
            "'-00:00:01'",
            "'12:34:56'",
        ],
    ),
    (
        "tm1",
        "TIME(1)",
        [
            "'838:59:59.9'",
            "'-838:59:59.9'",
            "NULL",
            "'00:00:00'",
            "'-00:00:01.5'",
            "'00:00:00.1'",
        ],
    ),
    (
        "tm3",
        "TIME(3)",
        [
            "'838:59:59.999'",
            "'-838:59:59.999'",
            "NULL",
            "'00:00:00'",
            "'-00:00:00.001'",
            "'12:00:00.5'",
        ],
    ),
    (
        "tm4",
        "TIME(4)",
        [
            "'838:59:59.9999'",
            "'-838:59:59.9999'",
            "NULL",
            "'00:00:00'",
            "'-00:00:00.0001'",
            "'-12:00:00.5'",
        ],
    ),
    (
        "tm6",
        "TIME(6)",
        [
            "'838:59:59.999999'",
            "'-838:59:59.999999'",
            "NULL",
            "'00:00:00'",
            "'-00:00:00.000001'",
            "'-01:02:03.456789'",
        ],
    ),
    (
        "dtm",
        "DATETIME",
        [
            "'9999-12-31 23:59:59'",
            "'1000-01-01 00:00:00'",
            "NULL",
            "'0000-00-00 00:00:00'",
            "'2024-02-29 12:00:00'",
            "'1970-01-01 00:00:00'",
        ],
    ),
    (
        "dtm2",
        "DATETIME(2)",
        [
            "'9999-12-31 23:59:59.99'",
            "'1000-01-01 00:00:00.01'",
            "NULL",
            "'0000-00-00 00:00:00'",
            "'1999-12-31 23:59:59.5'",
            "'2000-01-01 00:00:00'",
        ],
    ),
    (
        "dtm5",
        "DATETIME(5)",
        [
            "'9999-12-31 23:59:59.99999'",
            "'1000-01-01 00:00:00.00001'",
            "NULL",
            "'0000-00-00 00:00:00'",
            "'2024-02-29 23:59:59.12345'",
            "'2000-01-01 00:00:00'",
        ],
    ),
    (
        "dtm6",
        "DATETIME(6)",
        [
            "'9999-12-31 23:59:59.999999'",
            "'1000-01-01 00:00:00.000001'",
            "NULL",
            "'0000-00-00 00:00:00'",
            "'2024-02-29 23:59:59.123456'",
            "'2000-01-01 00:00:00'",
        ],
    ),
    (
        "ts",
        "TIMESTAMP NULL",
        [
            "'2038-01-19 03:14:07'",
            "'1970-01-01 00:00:01'",
            "NULL",
            "0",
            "'2024-02-29 12:00:00'",
            "'2000-01-01 00:00:00'",
        ],
    ),
    (
        "ts3",
        "TIMESTAMP(3) NULL",
        [
            "'2038-01-19 03:14:07.999'",
            "'1970-01-01 00:00:01.001'",
            "NULL",
            "0",
            "'2020-06-01 12:00:00.5'",
            "'2000-01-01 00:00:00.001'",
        ],
    ),
    (
        "ts6",
        "TIMESTAMP(6) NULL",
        [
            "'2038-01-19 03:14:07.999999'",
            "'1970-01-01 00:00:01.000001'",
            "NULL",
            "0",
            "'2020-06-01 12:00:00.5'",
            "'2000-01-01 00:00:00.123456'",
        ],
    ),
    (
        "c",
        "CHAR(10)",
        ["'tenchars!!'", "''", "NULL", "'a '", "'😀 x  '", "'x'"],
    ),
    (
        "c_latin1",
        "CHAR(5) CHARACTER SET latin1",
        ["'abcde'", "''", "NULL", "' '", "'é€ '", "'x'"],
    ),
    (
        "c_long",
        "CHAR(255)",
        [
            "REPEAT('😀', 255)",
            "''",
            "NULL",
            "' '",
            "'x   '",
            "REPEAT('é', 200)",
        ],
    ),
    (
        "vc",
        "VARCHAR(100)",
        [
            "REPEAT('z', 100)",
            "''",
            "NULL",
            "'  lead'",
            "'héllo € 😀 '",
            "'trail  '",
        ],
    ),
    (
        "vc_long",
        "VARCHAR(300)",
        [
            "REPEAT('€', 300)",
            "''",
            "NULL",
            "' '",
            "REPEAT('😀', 300)",
            "'x'",
        ],
    ),
    (
        "vc_latin1",
        "VARCHAR(20) CHARACTER SET latin1",
        ["'xéy'", "''", "NULL", "''", "'€ latin'", "'x'"],
    ),
    (
        "vc_ucs2",
        "VARCHAR(20) CHARACTER SET ucs2",
        ["'ucs2 é'", "''", "NULL", "''", "'x '", "'y'"],
    ),
    (
        "bin4",
        "BINARY(4)",
        [
            "0xFFFFFFFF",
            "0x00000000",
            "NULL",
            "''",
            "0x61000000",
            "0x00FF0000",
        ],
    ),
    (
        "vbin",
        "VARBINARY(10)",
        [
            "0xFFFFFFFFFFFFFFFFFFFF",
            "''",
            "NULL",
            "0x0000",
            "0x00FF10",
            "0x01",
        ],
    ),
    (
        "tt",
        "TINYTEXT",
        ["REPEAT('t', 255)", "''", "NULL", "' '", "'😀'", "'x'"],
    ),
    (
        "txt",
        "TEXT",
        ["REPEAT('T', 65535)", "''", "NULL", "''", "'text'", "'x'"],
    ),
    (
        "mt",
        "MEDIUMTEXT",
        [
            "REPEAT('m', 100000)",
            "''",
            "NULL",
            "''",
            "REPEAT('é', 1000)",
            "'x'",
        ],
    ),
    (
        "lt",
        "LONGTEXT",
        ["REPEAT('l', 200000)", "''", "NULL", "''", "'long'", "'x'"],
    ),
    (
        "tb",
        "TINYBLOB",
        [
            "REPEAT(0x7f, 255)",
            "''",
            "NULL",
            "0x00",
            "EVERY_BYTE_255",
            "0x01",
        ],
    ),
    (
        "b",
        "BLOB",
        [
            "REPEAT(0x80, 65535)",
            "''",
            "NULL",
            "0x0000",
            "EVERY_BYTE",
            "0xFF",
        ],
    ),
    (
        "mb",
        "MEDIUMBLOB",
        [
            "REPEAT(0x81, 70000)",
            "''",
            "NULL",
            "''",
            "REPEAT(EVERY_BYTE, 300)",
            "0x00",
        ],
    ),
    (
        "lb",
        "LONGBLOB",
        [
            "REPEAT(0x82, 300000)",
            "''",
            "NULL",
            "''",
            "EVERY_BYTE",
            "0x00FF",
        ],
    ),
    (
        "e",
        "ENUM('a','b','c')",
        ["'c'", "'a'", "NULL", "''", "'b'", "'a'"],
    ),
    (
        "e_latin1",
        "ENUM('é','x') CHARACTER SET latin1",
        ["'é'", "'x'", "NULL", "'x'", "'é'", "'x'"],
    ),
    (
        "s",
        "SET('x','y','z')",
        ["'x,y,z'", "''", "NULL", "''", "'y'", "'x,z'"],
    ),
    (
        "s10",
        "SET('a','b','c','d','e','f','g','h','i','j')",
        ["'a,b,c,d,e,f,g,h,i,j'", "''", "NULL", "''", "'i'", "'a,j'"],
    ),
    ("bit1", "BIT(1)", ["b'1'", "b'0'", "NULL", "0", "1", "0"]),
    (
        "bit12",
        "BIT(12)",
        ["b'111111111111'", "0", "NULL", "0", "b'101010101010'", "1"],
    ),
    (
        "bit64",
        "BIT(64)",
        [
            "0xFFFFFFFFFFFFFFFF",
            "0",
            "NULL",
            "0",
            "b'1000000000000000000000000000000000000000000000000000000000000000'",
            "1",
        ],
    ),
    (
        "j",
        "JSON",
        [
            "'{\"a\": [1, 2.5, \"x\"], \"b\": null}'",
            "'[]'",
            "NULL",
            "'null'",
            "'{\"k\": \"é😀\"}'",
            "'1'",
        ],
    ),
    (
        "g",
        "GEOMETRY",
        [
            "ST_GeomFromText('LINESTRING(0 0,1 1,2 1)')",
            "ST_GeomFromText('POINT(0 0)')",
            "NULL",
            "ST_GeomFromText('MULTIPOINT(1 1,2 2)')",
            "ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 10,0 0))')",
            "ST_GeomFromText('POINT(1e300 -1e-300)', 4326)",
        ],
    ),
    (
        "pt",
        "POINT",
        [
            "ST_GeomFromText('POINT(1.5 -2.25)')",
            "ST_GeomFromText('POINT(0 0)')",
            "NULL",
            "ST_GeomFromText('POINT(3 4)')",
            "ST_GeomFromText('POINT(-1 -1)')",
            "ST_GeomFromText('POINT(0.1 0.2)')",
        ],
    ),
    (
        "u",
        "UUID",
        [
            "'ffffffff-ffff-ffff-ffff-ffffffffffff'",
            "'00000000-0000-0000-0000-000000000000'",
            "NULL",
            "'123e4567-e89b-12d3-a456-426614174000'",
            "'6ccd780c-baba-1026-9564-5b8c656024db'",
            "'01234567-89ab-7def-8123-456789abcdef'",
        ],
    ),
    (
        "ip6",
        "INET6",
        [
            "'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'",
            "'::'",
            "NULL",
            "'2001:db8::ff00:42:8329'",
            "'::ffff:192.0.2.1'",
            "'::1'",
        ],
    ),
    (
        "ip4",
        "INET4",
        [
            "'255.255.255.255'",
            "'0.0.0.0'",
            "NULL",
            "'192.0.2.1'",
            "'10.0.0.0'",
            "'1.2.3.4'",
        ],
    ),
    ("inv", "INT INVISIBLE", ["1", "-1", "NULL", "0", "7", "8"]),
];

/// Generated columns: not inserted, but in every row image.
const GENERATED: &[(&str, &str)] = &[
    ("gen_v", "INT AS (`ti` * 2) VIRTUAL"),
    (
        "gen_s",
        "VARCHAR(30) AS (CONCAT(`vc_latin1`, '!')) PERSISTENT",
    ),
    ("gen_vs", "VARCHAR(30) AS (UPPER(`vc`)) VIRTUAL"),
    ("gen_vi", "INT AS (`i` DIV 2) PERSISTENT"),
];

/// Every byte value, as a SQL hex literal (all 256, or the first 255).
fn every_byte(n: usize) -> String {
    let hex: String = (0..n).map(|b| format!("{b:02X}")).collect();
    format!("0x{hex}")
}

fn literal(l: &str) -> String {
    l.replace("EVERY_BYTE_255", &every_byte(255))
        .replace("EVERY_BYTE", &every_byte(256))
}

fn start() -> MariaDb {
    MariaDb::start(
        MariaDbConfig::default()
            .binlog_row_image(BinlogRowImage::Full)
            .binlog_row_metadata(BinlogRowMetadata::Full)
            // Not UTC, so TIMESTAMP text would be off if the reading
            // session did not set its own time zone.
            .arg("--default-time-zone=+05:30")
            .arg("--max-allowed-packet=64M"),
    )
    .expect("start MariaDB")
}

/// A table's schema as the tracker reads it from the server.
fn tracked(db: &Arc<MariaDb>, schema: &str, table: &str) -> TableSchema {
    read_table(
        &TestSource(db.clone()),
        &Catalog::new(),
        schema,
        table,
        &BinlogPosition::new("x-bin.000001", 4),
    )
    .unwrap_or_else(|e| panic!("reading {schema}.{table}: {e}"))
    .unwrap_or_else(|| panic!("{schema}.{table} not found"))
}

/// A decoded value, owned: its Debug form (every field of the `Value`,
/// so equal forms mean equal values) and its rendering, for messages.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    value: String,
    text: Option<String>,
}

fn seen_rows(ev: &RowsEvent<'_>, out: &mut Vec<Vec<Seen>>) {
    for row in ev.rows() {
        let row = row.unwrap_or_else(|e| panic!("row of {}: {e}", ev.table.table));
        let img = row.after.expect("a write has an after image");
        let mut vals = Vec::new();
        for (i, cell) in img.cells().enumerate() {
            let col = &ev.table.columns[i];
            match cell.unwrap_or_else(|e| panic!("column {i}: {e}")) {
                Cell::Absent => panic!("column {i} absent from a FULL image"),
                Cell::Present(v) => vals.push(Seen {
                    value: format!("{v:?}"),
                    text: v
                        .to_text(col)
                        .unwrap_or_else(|e| Some(format!("<error {e}>"))),
                }),
            }
        }
        out.push(vals);
    }
}

/// What the binlog holds for `schema.table`: the table map as the tracker
/// hands it on (FULL metadata completed by the tracked schema), the rows
/// of its WRITE_ROWS events, and their row image bytes.
fn from_binlog(
    db: &MariaDb,
    schema: &str,
    table: &str,
    tracked: &TableSchema,
) -> (TableMap, Vec<Vec<Seen>>, Vec<u8>) {
    let mut map = None;
    let mut rows = Vec::new();
    let mut bytes = Vec::new();
    for path in db.binlog_files().unwrap() {
        let buf = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        walk_file(&name, &buf, |_, _, data| {
            let EventData::Rows(ev) = data else {
                return ControlFlow::Continue(());
            };
            if ev.table.schema != schema || ev.table.table != table {
                return ControlFlow::Continue(());
            }
            assert_eq!(ev.kind, RowsKind::Write, "only inserts were made");
            let enriched = enrich(&ev.table, tracked);
            let mut ev = ev.clone();
            ev.table = Arc::new(enriched.clone());
            map.get_or_insert(enriched);
            seen_rows(&ev, &mut rows);
            bytes.extend_from_slice(ev.rows_data());
            ControlFlow::Continue(())
        })
        .unwrap();
    }
    (
        map.unwrap_or_else(|| panic!("no rows events for {schema}.{table}")),
        rows,
        bytes,
    )
}

/// Rows of a SELECT over the source's connection (the one a snapshot
/// uses), in a session set up as `select_rows` requires.
fn read_rows(db: &MariaDb, sql: &str) -> sluice_source::RawResultSet {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let config = sluice_source::SourceConfig::from_url(&db.url()).unwrap();
        let mut conn = sluice_source::Conn::connect(&config.connect).await.unwrap();
        conn.exec("SET NAMES binary").await.unwrap();
        conn.exec("SET time_zone = '+00:00'").await.unwrap();
        // CHAR values come padded to their length: row_from_text strips
        // them as the binlog does, whatever the session's sql_mode.
        conn.exec("SET sql_mode = 'PAD_CHAR_TO_FULL_LENGTH'")
            .await
            .unwrap();
        conn.query_bytes(sql).await.unwrap()
    })
}

/// The synthetic rows event of `SELECT select_list FROM table`.
fn from_select(db: &MariaDb, tracked: &TableSchema, map: TableMap) -> (Vec<Vec<Seen>>, Vec<u8>) {
    let sql = format!(
        "SELECT {} FROM `{}`.`{}` ORDER BY `id`",
        select_list(tracked),
        tracked.db,
        tracked.name
    );
    let values = read_rows(db, &sql);
    let mut data = Vec::new();
    for row in values.rows() {
        let row: Vec<Option<&[u8]>> = row.iter().collect();
        row_from_text(&map, tracked, &row, &mut data).unwrap_or_else(|e| panic!("{e}"));
    }
    let ev = RowsEvent::synthetic_write(Arc::new(map), data.clone()).unwrap();
    let mut rows = Vec::new();
    seen_rows(&ev, &mut rows);
    assert_eq!(rows.len(), values.len());
    (rows, data)
}

/// Compares binlog and SELECT for one table; returns the failures.
fn compare(db: &Arc<MariaDb>, schema: &str, table: &str) -> Vec<String> {
    let t = tracked(db, schema, table);
    let built = table_map_for(&t, 1).unwrap_or_else(|e| panic!("{e}"));
    let (real_map, real_rows, real_bytes) = from_binlog(db, schema, table, &t);
    let mut failures = Vec::new();
    assert_eq!(built.columns.len(), real_map.columns.len(), "column count");
    assert_eq!(
        (
            built.flags,
            &built.schema,
            &built.table,
            built.has_optional_metadata
        ),
        (
            real_map.flags,
            &real_map.schema,
            &real_map.table,
            real_map.has_optional_metadata
        ),
        "table map header"
    );
    for (b, r) in built.columns.iter().zip(&real_map.columns) {
        if b != r {
            failures.push(format!(
                "table map column {:?}:\n built  {b:?}\n binlog {r:?}",
                r.name
            ));
        }
    }
    let (select_rows, select_bytes) = from_select(db, &t, built);
    assert_eq!(real_rows.len(), select_rows.len(), "row count of {table}");
    for (n, (r, s)) in real_rows.iter().zip(&select_rows).enumerate() {
        for (i, (rv, sv)) in r.iter().zip(s).enumerate() {
            if rv != sv {
                let cut = |v: &str| v.chars().take(160).collect::<String>();
                failures.push(format!(
                    "{table} row {} column {}: binlog {} / {:?}, SELECT {} / {:?}",
                    n + 1,
                    t.columns[i].name,
                    cut(&rv.value),
                    rv.text.as_deref().map(cut),
                    cut(&sv.value),
                    sv.text.as_deref().map(cut),
                ));
            }
        }
    }
    // The images are the same bytes, too (a stronger check than values).
    if failures.is_empty() && real_bytes != select_bytes {
        let at = real_bytes
            .iter()
            .zip(&select_bytes)
            .position(|(a, b)| a != b)
            .unwrap_or(real_bytes.len().min(select_bytes.len()));
        failures.push(format!(
            "{table}: row image bytes differ at byte {at} ({} bytes from the binlog, {} built)",
            real_bytes.len(),
            select_bytes.len()
        ));
    }
    failures
}

/// Table `w`: ENUM and SET at their larger storage sizes, and character
/// sets of other widths and byte orders (lengths, labels and CHAR padding
/// in each). No label has a character outside the BMP: MariaDB's SHOW
/// CREATE TABLE (utf8mb3 metadata) prints such a character as `?`, so the
/// tracked label would be `?` while the binlog's FULL metadata has the
/// character (and a table map built from the tracked schema renders `?`).
fn wide_table(db: &MariaDb) {
    let labels = |prefix: &str, n: usize| -> Vec<String> {
        (0..n).map(|i| format!("'{prefix}{i}'")).collect()
    };
    let e300 = labels("e", 300);
    let s40 = labels("s", 40);
    let s64 = labels("t", 64);
    db.exec(&format!(
        "CREATE TABLE snap.w (id INT PRIMARY KEY, e300 ENUM({}), s40 SET({}), s64 SET({}), \
         vc_mb3 VARCHAR(100) CHARACTER SET utf8mb3, c_ucs2 CHAR(5) CHARACTER SET ucs2, \
         c_utf32 CHAR(3) CHARACTER SET utf32, vc_utf16 VARCHAR(10) CHARACTER SET utf16, \
         c_utf16le CHAR(4) CHARACTER SET utf16le, \
         e_ucs2 ENUM('é','ü','ア') CHARACTER SET utf16, c_sjis CHAR(4) CHARACTER SET sjis, \
         tt_bin TINYTEXT COLLATE utf8mb4_bin, c_nopad CHAR(6) COLLATE utf8mb4_nopad_bin) \
         CHARACTER SET latin1",
        e300.join(","),
        s40.join(","),
        s64.join(",")
    ))
    .unwrap();
    db.exec(
        "INSERT INTO snap.w VALUES \
         (1, 'e299', 's0,s39', 't0,t63', REPEAT('é', 100), 'ab  ', 'x', '😀 a ', 'é ', 'ア', 'ｱｲ', 'z', 'p  '), \
         (2, 'e0', '', '', '', '', '', '', '', 'é', '', '', ''), \
         (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), \
         (4, 'e255', 's8,s31,s32', 't31,t32,t62', ' ', ' ', ' ', ' ', ' ', 'ü', ' ', ' ', ' ')",
    )
    .unwrap();
}

#[test]
fn select_rows_match_the_binlog_for_every_type() {
    let db = Arc::new(start());
    let mut defs: Vec<String> = COLUMNS
        .iter()
        .map(|(n, t, _)| format!("`{n}` {t}"))
        .collect();
    defs.extend(GENERATED.iter().map(|(n, t)| format!("`{n}` {t}")));
    db.exec(&format!(
        "CREATE DATABASE snap; CREATE TABLE snap.t ({}) CHARACTER SET utf8mb4",
        defs.join(", ")
    ))
    .unwrap();
    let names: Vec<String> = COLUMNS.iter().map(|(n, _, _)| format!("`{n}`")).collect();
    for r in 0..6 {
        let vals: Vec<String> = COLUMNS.iter().map(|c| literal(c.2[r])).collect();
        db.exec(&format!(
            "SET SESSION sql_mode = ''; SET time_zone = '+00:00'; \
             INSERT INTO snap.t ({}) VALUES ({})",
            names.join(", "),
            vals.join(", ")
        ))
        .unwrap_or_else(|e| panic!("row {}: {e:#}", r + 1));
    }
    db.exec("SET SESSION sql_mode = DEFAULT; SET time_zone = DEFAULT")
        .unwrap();
    // A system-versioned table: its hidden row_start/row_end are in the
    // row image but not in SELECT *.
    db.exec(
        "CREATE TABLE snap.v (id INT PRIMARY KEY, x VARCHAR(10)) WITH SYSTEM VERSIONING; \
         INSERT INTO snap.v VALUES (1, 'a'), (2, NULL); INSERT INTO snap.v VALUES (3, 'c')",
    )
    .unwrap();
    wide_table(&db);
    // No primary key: the first UNIQUE key of NOT NULL columns is the key.
    db.exec(
        "CREATE TABLE snap.u (id INT NOT NULL, k VARCHAR(5) NOT NULL, UNIQUE KEY (k)); \
         INSERT INTO snap.u VALUES (1, 'a'), (2, 'b')",
    )
    .unwrap();
    db.flush_binlogs().unwrap();

    let mut failures = compare(&db, "snap", "t");
    failures.extend(compare(&db, "snap", "v"));
    failures.extend(compare(&db, "snap", "u"));
    failures.extend(compare(&db, "snap", "w"));
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn unparseable_values_name_table_column_and_value() {
    let mut t = TableSchema::new("d", "t");
    let col = |name: &str, data_type: &str, sql_type: &str| sluice_schema::ColumnSchema {
        name: name.into(),
        data_type: data_type.into(),
        sql_type: sql_type.into(),
        unsigned: false,
        zerofill: false,
        charset: None,
        collation: None,
        labels: vec![],
        nullable: true,
        default: None,
        generated: None,
        invisible: false,
        auto_increment: false,
        hidden: false,
    };
    t.columns.push(col("n", "int", "int"));
    t.columns.push(col("when", "datetime(3)", "datetime"));
    let map = table_map_for(&t, 9).unwrap();
    let mut out = Vec::new();
    let cases: &[(&[u8], &[u8], &str)] = &[
        (b"12x", b"2024-01-01 00:00:00.000", "12x"),
        (b"99999999999", b"2024-01-01 00:00:00.000", "99999999999"),
        (
            b"1",
            b"2024-01-01 00:00:00.0001",
            "2024-01-01 00:00:00.0001",
        ),
        (b"1", b"2024-01-01", "2024-01-01"),
    ];
    for (n, when, bad) in cases {
        let e = row_from_text(&map, &t, &[Some(n), Some(when)], &mut out)
            .unwrap_err()
            .to_string();
        assert!(e.contains("d.t"), "{e}");
        assert!(e.contains(bad) || e.contains("out of range"), "{e}");
        assert!(e.contains("`n`") || e.contains("`when`"), "{e}");
        assert!(out.is_empty(), "nothing written on error");
    }
    // A MySQL JSON column whose text is not JSON: the error says why.
    let mut mysql = map.clone();
    mysql.columns[0].column_type = sluice_binlog::ColumnType::Json { len_bytes: 4 };
    for (bad, why) in [
        (&b"{\"a\": }"[..], "invalid JSON text at byte 6"),
        (b"[1, 2", "invalid JSON text"),
        (b"\"\xff\"", "not valid UTF-8"),
    ] {
        let e = row_from_text(&mysql, &t, &[Some(bad), None], &mut out)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("d.t") && e.contains("`n`") && e.contains(why),
            "{e}"
        );
        assert!(out.is_empty(), "nothing written on error");
    }
    // Types whose SELECT text is not their stored value are refused.
    t.columns.push(col("u", "vector(4)", "vector"));
    let e = table_map_for(&t, 9).unwrap_err().to_string();
    assert!(e.contains("`u`") && e.contains("not supported"), "{e}");
}

#[test]
fn mysql_json_column_from_select_text() {
    let mut t = TableSchema::new("d", "j");
    for (name, data_type) in [("id", "int"), ("doc", "json")] {
        t.columns.push(sluice_schema::ColumnSchema {
            name: name.into(),
            data_type: data_type.into(),
            sql_type: data_type.into(),
            unsigned: false,
            zerofill: false,
            charset: None,
            collation: (data_type == "json").then(|| "utf8mb4_bin".into()),
            labels: vec![],
            nullable: true,
            default: None,
            generated: None,
            invisible: false,
            auto_increment: false,
            hidden: false,
        });
    }
    // The table map MySQL gives the table: a JSON column with a 4-byte length.
    let mut map = table_map_for(&t, 5).unwrap();
    map.columns[1].type_code = sluice_binlog::column::code::JSON;
    map.columns[1].column_type = sluice_binlog::ColumnType::Json { len_bytes: 4 };
    map.columns[1].collation = None;
    // Text as MySQL's SELECT prints it, and text as a client could write it.
    let rows: &[(&[u8], &str)] = &[
        (
            br#"{"a": "x", "b": [1, 2.5, null, true], "cc": {"d": -70000}}"#,
            r#"{"a": "x", "b": [1, 2.5, null, true], "cc": {"d": -70000}}"#,
        ),
        (
            br#"{ "cc":{"d":-70000},"b":[1,2.5,null,true],"a":"y","a":"x" }"#,
            r#"{"a": "x", "b": [1, 2.5, null, true], "cc": {"d": -70000}}"#,
        ),
        (b"18446744073709551615", "18446744073709551615"),
        (br#""\u00e9t\u00e9""#, "\"été\""),
        (b"[]", "[]"),
    ];
    let mut data = Vec::new();
    for (i, (text, _)) in rows.iter().enumerate() {
        let id = (i + 1).to_string();
        row_from_text(&map, &t, &[Some(id.as_bytes()), Some(text)], &mut data)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    row_from_text(&map, &t, &[Some(b"99"), None], &mut data).unwrap();
    let ev = RowsEvent::synthetic_write(Arc::new(map), data).unwrap();
    let mut seen = Vec::new();
    seen_rows(&ev, &mut seen);
    assert_eq!(seen.len(), rows.len() + 1);
    for (row, (text, want)) in seen.iter().zip(rows) {
        assert_eq!(
            row[1].text.as_deref(),
            Some(*want),
            "{:?}",
            String::from_utf8_lossy(text)
        );
        // The cell holds the bytes MySQL would: those of the encoder.
        let mut bin = Vec::new();
        sluice_binlog::encode_json(std::str::from_utf8(text).unwrap(), &mut bin).unwrap();
        assert!(
            row[1].value.contains(&format!("{bin:?}")),
            "{}",
            row[1].value
        );
    }
    assert_eq!(seen[rows.len()][1].text, None, "NULL stays NULL");
}
