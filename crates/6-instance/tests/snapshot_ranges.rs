//! The key ranges a table's chunks are read by: bounds found `chunkSize`
//! rows apart, then each range read on its own, cover the table in key
//! order with neither gap nor overlap, whatever the key's columns and
//! collation (a private MariaDB).

use sluice_instance::snapshot::{
    chunk_bound_sql, chunk_range_sql, chunk_sql, table_plan, EvenSplit,
};
use sluice_source::conn::{Conn, ConnectOptions};
use sluice_testkit::{MariaDb, MariaDbConfig};

/// Every row's key and value column, as text, in the order read.
type Rows = Vec<Vec<Option<Vec<u8>>>>;

fn rows_of(rs: &sluice_source::RawResultSet) -> Rows {
    rs.rows()
        .map(|row| {
            (0..rs.columns.len())
                .map(|i| row.value(i).map(<[u8]>::to_vec))
                .collect()
        })
        .collect()
}

/// Reads `s.table` in ranges `chunk` rows apart (found by queries, or by
/// key arithmetic with `even`); returns the rows of each range.
async fn read_in_ranges(
    conn: &mut Conn,
    table: &str,
    chunk: usize,
    even: Option<&EvenSplit>,
) -> Vec<Rows> {
    let plan = table_plan(conn, "s", table)
        .await
        .expect("described")
        .expect("the table is there");
    assert!(!plan.key.is_empty(), "{table} has a key to chunk by");
    let mut from: Option<Vec<Vec<u8>>> = None;
    let mut ranges = Vec::new();
    loop {
        let up_to: Option<Vec<Vec<u8>>> = match even {
            Some(even) => even.up_to(from.as_deref()).expect("a bound"),
            None => {
                let bound_sql = chunk_bound_sql(&plan, from.as_deref(), chunk).expect("a SELECT");
                let bound = conn.query_bytes(&bound_sql).await.expect("the bound");
                let up_to = bound.row(0).map(|row| {
                    (0..plan.key.len())
                        .map(|i| row.value(i).unwrap_or_default().to_vec())
                        .collect()
                });
                up_to
            }
        };
        let sql = chunk_range_sql(&plan, from.as_deref(), up_to.as_deref()).expect("a SELECT");
        let rows = conn.query_bytes(&sql).await.expect("the range");
        ranges.push(rows_of(&rows));
        match up_to {
            Some(key) => from = Some(key),
            None => return ranges,
        }
    }
}

/// Every row of `s.table` in key order, in one SELECT.
async fn whole_table(conn: &mut Conn, table: &str) -> Rows {
    let plan = table_plan(conn, "s", table)
        .await
        .expect("described")
        .expect("the table is there");
    let sql = chunk_sql(&plan, None, Some(1_000_000)).expect("a SELECT");
    rows_of(&conn.query_bytes(&sql).await.expect("the table"))
}

#[tokio::test]
async fn ranges_a_chunk_size_apart_cover_the_table_in_key_order() {
    let db = MariaDb::start(MariaDbConfig::default()).expect("MariaDB");
    db.exec(
        "CREATE DATABASE s; USE s;
         CREATE TABLE s.single (id BIGINT PRIMARY KEY, v INT);
         INSERT INTO s.single SELECT CAST(seq AS SIGNED) * 3 - 500, seq FROM seq_1_to_1000;
         CREATE TABLE s.composite (k1 INT, k2 VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci,
             k3 DATE, v INT, PRIMARY KEY (k1, k2, k3));
         INSERT INTO s.composite SELECT seq % 7, CONCAT(ELT(seq % 4 + 1, 'a', 'B', 'é', 'Zz'), seq % 5),
             '2024-01-01' + INTERVAL (seq % 11) DAY, seq FROM seq_1_to_2000
             ON DUPLICATE KEY UPDATE v = v;",
    )
    .expect("tables");
    let mut conn = Conn::connect(&ConnectOptions {
        host: "127.0.0.1".into(),
        port: db.port(),
        user: "root".into(),
        ..Default::default()
    })
    .await
    .expect("connected");
    for (table, chunk) in [
        ("single", 100),
        ("single", 7),
        ("single", 1000),
        ("composite", 64),
    ] {
        let whole = whole_table(&mut conn, table).await;
        assert!(whole.len() > 100, "{table} has rows");
        let ranges = read_in_ranges(&mut conn, table, chunk, None).await;
        let (last, full) = ranges.split_last().expect("one range at least");
        for (i, r) in full.iter().enumerate() {
            assert_eq!(r.len(), chunk, "{table}: range {i} of chunks of {chunk}");
        }
        assert!(
            last.len() < chunk,
            "{table}: the last range holds what is left"
        );
        let joined: Rows = ranges.concat();
        assert_eq!(
            joined, whole,
            "{table}: the ranges of {chunk} rows, one after the other"
        );
    }

    // Key arithmetic on `single` (keys -497, -494, ... 2500: one in three):
    // ranges three chunks wide hold `chunk` rows each, the last what is
    // left, and they cover the table.
    let whole = whole_table(&mut conn, "single").await;
    let even = EvenSplit::new(-497, 2_500, 1_000, 100).expect("one key in three splits evenly");
    let ranges = read_in_ranges(&mut conn, "single", 100, Some(&even)).await;
    assert_eq!(ranges.len(), 10, "1,000 rows in ranges of 100");
    assert!(ranges.iter().all(|r| r.len() == 100));
    assert_eq!(
        ranges.concat(),
        whole,
        "the even ranges, one after the other"
    );
}
