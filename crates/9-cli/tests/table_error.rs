//! `canal.instance.filter.table.error`: a rows event whose table cannot be
//! described (here: dropped before the destination first started, so
//! neither the seeded schema, the server nor the binlog's table map knows
//! its columns) stops the destination
//! with an error that names the table's position and the key; with the key
//! set, the event is skipped, logged with its table and position, and the
//! rows of the other tables keep flowing.

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use common::client::Client;
use common::spawn_server;
use sluice_testkit::{find_free_port, BinlogRowMetadata, MariaDb, MariaDbConfig};

/// A destination starting after `x.gone` was created, whose rows come
/// before it is dropped, beside rows of `x.kept`.
fn setup(table_error: bool) -> (MariaDb, tempfile::TempDir, String) {
    // The server's own default: table maps carry no column names, so an
    // unknown table cannot be rebuilt from the binlog.
    let db = MariaDb::start(MariaDbConfig::default().binlog_row_metadata(BinlogRowMetadata::NoLog))
        .unwrap();
    db.exec(
        "CREATE DATABASE x; CREATE TABLE x.gone (id INT PRIMARY KEY); \
         CREATE TABLE x.kept (id INT PRIMARY KEY)",
    )
    .unwrap();
    let status = db.query("SHOW MASTER STATUS").unwrap();
    let (file, pos) = (status[0][0].clone().unwrap(), status[0][1].clone().unwrap());
    db.exec(
        "INSERT INTO x.kept VALUES (1); INSERT INTO x.gone VALUES (1), (2); \
         INSERT INTO x.kept VALUES (2); DROP TABLE x.gone; INSERT INTO x.kept VALUES (3)",
    )
    .unwrap();
    let conf = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    std::fs::write(
        conf.path().join("canal.properties"),
        format!("canal.port = {port}\ncanal.destinations = example\ncanal.auto.scan = false\n"),
    )
    .unwrap();
    std::fs::create_dir_all(conf.path().join("example")).unwrap();
    std::fs::write(
        conf.path().join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.master.journal.name = {file}\n\
             canal.instance.master.position = {pos}\n\
             canal.instance.filter.regex = x\\\\..*\n\
             canal.instance.filter.table.error = {table_error}\n",
            db.port()
        ),
    )
    .unwrap();
    (db, conf, format!("127.0.0.1:{port}"))
}

fn wait_for_log(log: &std::path::Path, text: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let all = std::fs::read_to_string(log).unwrap_or_default();
        if let Some(line) = all.lines().find(|l| l.contains(text)) {
            return line.to_string();
        }
        assert!(
            Instant::now() < deadline,
            "the server never logged {text:?}:\n{all}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_that_cannot_be_described_stops_the_destination_naming_the_key() {
    let (_db, conf, addr) = setup(false);
    let log = conf.path().join("server.log");
    let mut server = spawn_server(conf.path(), &log);
    let line = wait_for_log(&log, "instance failed");
    assert!(line.contains("gone"), "{line}");
    assert!(line.contains("canal.instance.filter.table.error"), "{line}");
    let mut client = Client::connect(&addr, 1001, "").await;
    let got = client.take_during(Duration::from_secs(2)).await;
    assert_eq!(
        got.iter().map(|(_, id)| *id).collect::<Vec<_>>(),
        vec![1],
        "only the row before the table that cannot be described"
    );
    server.kill().unwrap();
    server.wait().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_filter_table_error_its_rows_are_skipped_and_logged() {
    let (_db, conf, addr) = setup(true);
    let log = conf.path().join("server.log");
    let mut server = spawn_server(conf.path(), &log);
    let mut client = Client::connect(&addr, 1001, "").await;
    let got = client.take(3).await;
    let rows: BTreeSet<_> = got.iter().cloned().collect();
    let want: BTreeSet<_> = (1..=3).map(|id| ("kept".to_string(), id)).collect();
    assert_eq!(rows, want, "{got:?}");
    let line = wait_for_log(&log, "rows event skipped");
    assert!(line.contains("x.gone"), "{line}");
    assert!(line.contains("binlog.000001:"), "{line}");
    server.kill().unwrap();
    server.wait().unwrap();
}
