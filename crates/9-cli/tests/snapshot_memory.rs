//! The initial snapshot within `sluice.instance.snapshot.maxBufferBytes`
//! (a private MariaDB, the real `sluice server`, a Canal client): chunks
//! are cut by bytes as well as rows, so a table of wide rows comes in
//! chunks far smaller than `chunkSize`, and a budget smaller than a single
//! row still lets every row through, each exactly once.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use common::{connect_example, spawn_server};
use sluice_canal::proto::{EntryType, EventType};
use sluice_client::{row_change, Connector, TimeUnit};
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};

const WIDE_ROWS: usize = 120;
/// Bytes of each wide row's text.
const WIDE_BYTES: usize = 64 * 1024;
const NARROW_ROWS: usize = 20_000;
const CHUNK_SIZE: usize = 8192;

/// The snapshot rows of one table: the ids, and the rows of each entry.
#[derive(Default)]
struct Seen {
    ids: BTreeSet<i64>,
    repeated: usize,
    entry_rows: Vec<usize>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chunks_are_cut_by_bytes_and_a_budget_under_one_row_still_lets_every_row_through() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec(&format!(
        "CREATE DATABASE s; USE s;
         CREATE TABLE s.wide (id INT PRIMARY KEY, body LONGTEXT NOT NULL);
         CREATE TABLE s.narrow (id INT PRIMARY KEY, v INT);
         INSERT INTO s.wide SELECT seq, REPEAT(CHAR(97 + seq % 26), {WIDE_BYTES}) FROM seq_1_to_{WIDE_ROWS};
         INSERT INTO s.narrow SELECT seq, seq * 3 FROM seq_1_to_{NARROW_ROWS};"
    ))
    .unwrap();
    let conf = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    std::fs::write(
        conf.path().join("canal.properties"),
        format!("canal.port = {port}\ncanal.destinations = example\ncanal.auto.scan = false\n"),
    )
    .unwrap();
    std::fs::create_dir_all(conf.path().join("example")).unwrap();
    // 48 KiB: less than one wide row on its way (its rows, its entry, the
    // entry's bytes), so each wide chunk takes the whole budget.
    std::fs::write(
        conf.path().join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.filter.regex = s\\\\..*\n\
             sluice.instance.snapshot.mode = initial\n\
             sluice.instance.snapshot.chunkSize = {CHUNK_SIZE}\n\
             sluice.instance.snapshot.parallelism = 2\n\
             sluice.instance.snapshot.maxBufferBytes = 49152\n",
            db.port()
        ),
    )
    .unwrap();
    let log = conf.path().join("server.log");
    let mut server = spawn_server(conf.path(), &log);
    let addr = format!("127.0.0.1:{port}");
    let mut client = connect_example(&addr, Duration::from_secs(60)).await;

    let mut seen: BTreeMap<String, Seen> = BTreeMap::new();
    let deadline = Instant::now() + Duration::from_secs(240);
    let expected = |table: &str| {
        if table == "wide" {
            WIDE_ROWS
        } else {
            NARROW_ROWS
        }
    };
    while ["wide", "narrow"]
        .iter()
        .any(|t| seen.get(*t).map_or(0, |s| s.ids.len()) < expected(t))
    {
        assert!(
            Instant::now() < deadline,
            "the snapshot did not deliver every row in time; the server log ends with:\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        let m = client
            .get_without_ack(100, Some(200), TimeUnit::Milliseconds)
            .await
            .unwrap();
        for e in &m.entries {
            if e.entry_type() != EntryType::RowData {
                continue;
            }
            let Some(h) = e.header.as_ref() else { continue };
            if !h
                .props
                .iter()
                .any(|p| p.key() == "snapshot" && p.value() == "true")
            {
                continue;
            }
            let rc = row_change(e).unwrap();
            assert_eq!(rc.event_type(), EventType::Insert);
            let table = seen.entry(h.table_name().to_string()).or_default();
            table.entry_rows.push(rc.row_datas.len());
            for r in &rc.row_datas {
                let id: i64 = r.after_columns[0].value().parse().unwrap();
                if h.table_name() == "wide" {
                    assert_eq!(
                        r.after_columns[1].value().len(),
                        WIDE_BYTES,
                        "row {id} whole"
                    );
                }
                if !table.ids.insert(id) {
                    table.repeated += 1;
                }
            }
        }
        if m.id != -1 {
            client.ack(m.id).await.unwrap();
        }
    }
    let _ = server.kill();
    let _ = server.wait();

    for (table, rows) in [("wide", WIDE_ROWS), ("narrow", NARROW_ROWS)] {
        let s = &seen[table];
        let all: BTreeSet<i64> = (1..=rows as i64).collect();
        assert_eq!(s.ids, all, "{table}: every row, and no other");
        assert_eq!(s.repeated, 0, "{table}: no row twice");
    }
    // A wide row alone is over the part of the budget a chunk may read.
    assert!(
        seen["wide"].entry_rows.iter().all(|&n| n == 1),
        "wide chunks: {:?}",
        seen["wide"].entry_rows
    );
    // Narrow rows: cut by bytes long before chunkSize.
    let narrow = &seen["narrow"].entry_rows;
    assert!(
        narrow.len() > 10 && narrow.iter().all(|&n| n < CHUNK_SIZE / 4),
        "narrow chunks: {narrow:?}"
    );
}
