//! The initial snapshot builds a chunk's Canal entry straight from the text
//! a SELECT returns when that text is Canal's for every column of the
//! table. Against a private MariaDB: for a table of every such type, filled
//! with edge values (extremes, zero dates, negative times, fractions,
//! multi-byte and control characters, NULLs, long text), the entry built
//! from the text must be byte for byte the entry built through a binlog
//! row image (the way the stream's rows go); a table with a column of
//! another kind must be refused by the text way.

use prost::Message;
use sluice_canal::proto::RowChange;
use sluice_encode::canal::CanalEncoder;
use sluice_events::{Position, RowsChange, RowsEvent, TransactionState};
use sluice_instance::snapshot::{chunk_sql, prepare_session, rows_event, table_plan, SelectText};
use sluice_source::conn::{Conn, ConnectOptions};
use sluice_source::RawResultSet;
use sluice_testkit::{MariaDb, MariaDbConfig};

/// Columns whose SELECT text is Canal's, with the values of the rows.
const COLUMNS: &[(&str, &str, &[&str])] = &[
    ("ti", "TINYINT", &["127", "-128", "0", "NULL", "-1", "7"]),
    (
        "si",
        "SMALLINT",
        &["32767", "-32768", "0", "NULL", "-2", "2"],
    ),
    (
        "mi",
        "MEDIUMINT",
        &["8388607", "-8388608", "0", "NULL", "-3", "3"],
    ),
    (
        "i",
        "INT",
        &["2147483647", "-2147483648", "0", "NULL", "-4", "4"],
    ),
    (
        "bi",
        "BIGINT",
        &[
            "9223372036854775807",
            "-9223372036854775808",
            "0",
            "NULL",
            "-5",
            "5",
        ],
    ),
    (
        "d",
        "DECIMAL(10,2)",
        &["99999999.99", "-99999999.99", "0", "NULL", "-0.01", "0.5"],
    ),
    (
        "d0",
        "DECIMAL(5,0)",
        &["99999", "-99999", "0", "NULL", "-1", "1"],
    ),
    (
        "d4",
        "DECIMAL(4,4)",
        &["0.9999", "-0.9999", "0", "NULL", "-0.0001", "0.1"],
    ),
    (
        "dbig",
        "DECIMAL(65,30)",
        &[
            "99999999999999999999999999999999999.999999999999999999999999999999",
            "-99999999999999999999999999999999999.999999999999999999999999999999",
            "0",
            "NULL",
            "-1.000000000000000000000000000001",
            "123456789.123456789",
        ],
    ),
    ("y", "YEAR", &["2155", "1901", "0", "NULL", "2024", "1999"]),
    (
        "dt",
        "DATE",
        &[
            "'9999-12-31'",
            "'1000-01-01'",
            "'0000-00-00'",
            "NULL",
            "'2024-02-29'",
            "'2000-01-00'",
        ],
    ),
    (
        "tm",
        "TIME",
        &[
            "'838:59:59'",
            "'-838:59:59'",
            "'00:00:00'",
            "NULL",
            "'-00:00:01'",
            "'100:00:00'",
        ],
    ),
    (
        "tm6",
        "TIME(6)",
        &[
            "'838:59:59.000000'",
            "'-838:59:59.000000'",
            "'00:00:00'",
            "NULL",
            "'-00:00:00.5'",
            "'12:34:56.789012'",
        ],
    ),
    (
        "dtm",
        "DATETIME",
        &[
            "'9999-12-31 23:59:59'",
            "'1000-01-01 00:00:00'",
            "'0000-00-00 00:00:00'",
            "NULL",
            "'2024-02-29 12:00:00'",
            "'2024-00-00 00:00:01'",
        ],
    ),
    (
        "dtm3",
        "DATETIME(3)",
        &[
            "'9999-12-31 23:59:59.999'",
            "'1000-01-01 00:00:00.000'",
            "'0000-00-00 00:00:00'",
            "NULL",
            "'2024-01-01 00:00:00.001'",
            "'2024-01-01 00:00:00.1'",
        ],
    ),
    (
        "dtm6",
        "DATETIME(6)",
        &[
            "'9999-12-31 23:59:59.999999'",
            "'1000-01-01 00:00:00.000001'",
            "'0000-00-00 00:00:00.000000'",
            "NULL",
            "'2024-01-01 00:00:00.5'",
            "'2024-01-01 00:00:00.000010'",
        ],
    ),
    (
        "vc",
        "VARCHAR(300) CHARACTER SET utf8mb4",
        &[
            "REPEAT('é', 300)",
            "''",
            "'trailing spaces  '",
            "NULL",
            "'quote '' backslash \\\\ newline \\n tab \\t nul \\0 end'",
            "'😀 four bytes, 中文'",
        ],
    ),
    (
        "vc3",
        "VARCHAR(20) CHARACTER SET utf8mb3",
        &["'ü'", "''", "'abc'", "NULL", "' '", "'x'"],
    ),
    (
        "va",
        "VARCHAR(20) CHARACTER SET ascii",
        &["'~'", "''", "'abc'", "NULL", "'a b'", "'z'"],
    ),
    (
        "ch",
        "CHAR(10) CHARACTER SET utf8mb4",
        &["'ab   '", "''", "'   lead'", "NULL", "'ÿ'", "'0123456789'"],
    ),
    (
        "tx",
        "TEXT CHARACTER SET utf8mb4",
        &[
            "REPEAT('long text ', 3000)",
            "''",
            "'short'",
            "NULL",
            "'line\\nbreak'",
            "'😀'",
        ],
    ),
    (
        "mtx",
        "MEDIUMTEXT CHARACTER SET utf8mb3",
        &["REPEAT('m', 70000)", "''", "'x'", "NULL", "'ö'", "'y'"],
    ),
];

fn connect(db: &MariaDb) -> ConnectOptions {
    ConnectOptions {
        host: "127.0.0.1".into(),
        port: db.port(),
        user: "root".into(),
        ..Default::default()
    }
}

/// The rows of `schema.table` as the snapshot reads a chunk of them.
async fn select_chunk(
    conn: &mut Conn,
    schema: &str,
    table: &str,
) -> (sluice_instance::snapshot::TablePlan, RawResultSet) {
    let plan = table_plan(conn, schema, table)
        .await
        .expect("described")
        .expect("the table is there");
    let sql = chunk_sql(&plan, None, Some(100)).expect("a SELECT");
    let rows = conn.query_bytes(&sql).await.expect("the rows");
    (plan, rows)
}

/// The entry's RowChange from the text way (`None`: refused) and from the
/// row image way.
fn both_ways(
    plan: &sluice_instance::snapshot::TablePlan,
    rows: &RawResultSet,
) -> (Option<Vec<u8>>, Vec<u8>) {
    let txn = TransactionState::default();
    let position = Position {
        file: "mariadb-bin.000001",
        offset: 1234,
        next_offset: 1234,
        server_id: 0,
        timestamp: 1_700_000_000,
    };
    let empty = RowsEvent::synthetic_write(plan.map.clone(), Vec::new()).expect("an event");
    let change = RowsChange::new(position, &txn, &empty, Some(&plan.columns));
    let from_text =
        CanalEncoder::select_rows_entry_on_this_thread(false, &change, &SelectText::new(rows))
            .expect("no error")
            .map(|b| b.entry.store_value.unwrap_or_default().to_vec());
    let event = rows_event(plan, rows, rows.len()).expect("row images");
    let change = RowsChange::new(position, &txn, &event, Some(&plan.columns));
    let through_image = CanalEncoder::rows_entry_on_this_thread(false, &change)
        .expect("an entry")
        .entry
        .store_value
        .unwrap_or_default()
        .to_vec();
    (from_text, through_image)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select_text_entries_equal_the_entries_through_row_images() {
    let db = MariaDb::start(MariaDbConfig::default()).expect("MariaDB");
    let mut create = String::from("CREATE TABLE s.t (id INT NOT NULL PRIMARY KEY");
    for (name, ty, _) in COLUMNS {
        create.push_str(&format!(", `{name}` {ty}"));
    }
    create.push(')');
    let rows = COLUMNS[0].2.len();
    let mut insert = String::from("INSERT INTO s.t VALUES ");
    for r in 0..rows {
        if r > 0 {
            insert.push_str(", ");
        }
        insert.push_str(&format!("({}", r + 1));
        for (_, _, values) in COLUMNS {
            insert.push_str(&format!(", {}", values[r]));
        }
        insert.push(')');
    }
    db.exec(&format!(
        "SET SESSION sql_mode = ''; CREATE DATABASE s; {create}; {insert};
         CREATE TABLE s.other (id INT PRIMARY KEY, f FLOAT, u INT UNSIGNED);
         INSERT INTO s.other VALUES (1, 1.5, 4294967295), (2, NULL, 0)"
    ))
    .expect("tables");

    let mut conn = Conn::connect(&connect(&db)).await.expect("connect");
    prepare_session(&mut conn).await.expect("session");
    let (plan, read) = select_chunk(&mut conn, "s", "t").await;
    assert_eq!(read.len(), rows);
    let (from_text, through_image) = both_ways(&plan, &read);
    let from_text = from_text.expect("every column of s.t has Canal's text in a SELECT");
    if from_text != through_image {
        // Say which value differs, not just that the bytes do.
        let a = RowChange::decode(from_text.as_slice()).expect("a RowChange");
        let b = RowChange::decode(through_image.as_slice()).expect("a RowChange");
        for (ra, rb) in a.row_datas.iter().zip(&b.row_datas) {
            for (ca, cb) in ra.after_columns.iter().zip(&rb.after_columns) {
                assert_eq!(ca, cb, "column {} differs", cb.name());
            }
        }
        panic!("the entries differ in bytes but not in their columns");
    }
    // The entry holds every row, values as inserted (spot checks).
    let change = RowChange::decode(from_text.as_slice()).expect("a RowChange");
    assert_eq!(change.row_datas.len(), rows);
    let value = |row: usize, name: &str| {
        change.row_datas[row]
            .after_columns
            .iter()
            .find(|c| c.name() == name)
            .map(|c| (c.is_null(), c.value().to_string()))
            .expect("the column")
    };
    assert_eq!(value(1, "bi"), (false, "-9223372036854775808".into()));
    assert_eq!(value(3, "tm6"), (true, String::new()));
    assert_eq!(value(4, "tm6"), (false, "-00:00:00.500000".into()));
    assert_eq!(value(0, "mtx").1.len(), 70000);

    // Rows narrower than the table (it changed between its description and
    // the read) are refused by the text way, never read as NULLs.
    let narrow = conn
        .query_bytes("SELECT id, ti FROM s.t")
        .await
        .expect("the rows");
    let empty = RowsEvent::synthetic_write(plan.map.clone(), Vec::new()).expect("an event");
    let txn = TransactionState::default();
    let position = Position {
        file: "mariadb-bin.000001",
        offset: 4,
        next_offset: 4,
        server_id: 0,
        timestamp: 0,
    };
    let change = RowsChange::new(position, &txn, &empty, Some(&plan.columns));
    let built =
        CanalEncoder::select_rows_entry_on_this_thread(false, &change, &SelectText::new(&narrow))
            .expect("no error");
    assert!(built.is_none(), "a narrower result set went the text way");
    assert!(rows_event(&plan, &narrow, narrow.len()).is_err());

    // A table with a column of another kind goes through row images.
    let (plan, read) = select_chunk(&mut conn, "s", "other").await;
    let (from_text, _) = both_ways(&plan, &read);
    assert!(
        from_text.is_none(),
        "FLOAT and UNSIGNED are not Canal's text"
    );
}
