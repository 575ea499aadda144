//! A destination whose cursor points into binlog files the source has
//! purged (`PURGE BINARY LOGS`, error 1236 on the dump), with each
//! `sluice.instance.onPurged`: `fail` stops it with the position, the
//! oldest binlog and the ways out (the admin API and a metric show it, no
//! retry loop); `latest` skips to the end, logging the loss with its range;
//! `snapshot` reads the table again and streams from the end.

mod common;

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use common::client::{Client, Row};
use common::{spawn_server, wait_dumps, write_example_instance};
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};

const TOKEN: &str = "purge-test-token";

struct Setup {
    db: MariaDb,
    conf: tempfile::TempDir,
    log: std::path::PathBuf,
    addr: String,
    metrics_port: u16,
    admin_url: String,
}

fn setup(on_purged: &str) -> Setup {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE p; CREATE TABLE p.t (id INT PRIMARY KEY)")
        .unwrap();
    let conf = tempfile::tempdir().unwrap();
    let (port, metrics_port, admin_port) = (
        find_free_port().unwrap(),
        find_free_port().unwrap(),
        find_free_port().unwrap(),
    );
    std::fs::write(
        conf.path().join("canal.properties"),
        format!(
            "canal.port = {port}\ncanal.metrics.pull.port = {metrics_port}\n\
             canal.destinations = example\ncanal.auto.scan = false\n\
             sluice.admin.http.port = {admin_port}\nsluice.admin.http.token = {TOKEN}\n"
        ),
    )
    .unwrap();
    write_example_instance(conf.path(), db.port(), r"p\\..*");
    let instance = conf.path().join("example/instance.properties");
    let mut text = std::fs::read_to_string(&instance).unwrap();
    text.push_str(&format!("sluice.instance.onPurged = {on_purged}\n"));
    std::fs::write(&instance, text).unwrap();
    Setup {
        log: conf.path().join("server.log"),
        db,
        conf,
        addr: format!("127.0.0.1:{port}"),
        metrics_port,
        admin_url: format!("http://127.0.0.1:{admin_port}"),
    }
}

fn insert(db: &MariaDb, ids: std::ops::Range<i64>) {
    for id in ids {
        db.exec(&format!("INSERT INTO p.t VALUES ({id})")).unwrap();
    }
}

fn ids(tables_and_ids: &[Row]) -> BTreeSet<i64> {
    tables_and_ids.iter().map(|(_, id)| *id).collect()
}

fn stop(server: &mut Child) {
    server.kill().unwrap();
    server.wait().unwrap();
}

fn log_text(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

fn wait_for_log(log: &Path, text: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !log_text(log).contains(text) {
        assert!(
            Instant::now() < deadline,
            "the server never logged {text:?}; its log:\n{}",
            log_text(log)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Rows 0..10 consumed and acked, the server stopped, rows 10..20 written,
/// and the binlog holding the cursor purged. Returns the file purged to.
async fn cursor_into_purged_binlog(s: &Setup) -> String {
    let mut server = spawn_server(s.conf.path(), &s.log);
    let mut client = Client::connect(&s.addr, 1001, "").await;
    insert(&s.db, 0..10);
    assert_eq!(ids(&client.take(10).await), (0..10).collect());
    stop(&mut server);
    // A file still being sent to a replica is not purged.
    wait_dumps(&s.db, 0, Duration::from_secs(30));
    insert(&s.db, 10..20);
    s.db.exec("FLUSH BINARY LOGS; FLUSH BINARY LOGS").unwrap();
    let current = s.db.query("SHOW MASTER STATUS").unwrap()[0][0]
        .clone()
        .unwrap();
    // The server purges a file only once its binlog checkpoint moved past
    // it, which it writes on its own after a flush: try again until then.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        s.db.exec(&format!("PURGE BINARY LOGS TO '{current}'"))
            .unwrap();
        let first = s.db.query("SHOW BINARY LOGS").unwrap()[0][0].clone();
        if first.as_deref() == Some(current.as_str()) {
            return current;
        }
        let warnings = s.db.query("SHOW WARNINGS").unwrap();
        assert!(
            Instant::now() < deadline,
            "the binlog was not purged: first file {first:?}, warnings {warnings:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn metrics(port: u16) -> String {
    let mut conn = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    conn.write_all(b"GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    let mut text = String::new();
    conn.read_to_string(&mut text).unwrap();
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_purged_cursor_stops_the_destination_with_the_ways_out() {
    let s = setup("fail");
    let oldest = cursor_into_purged_binlog(&s).await;
    let mut server = spawn_server(s.conf.path(), &s.log);
    wait_for_log(&s.log, "is no longer on the source");
    let text = log_text(&s.log);
    let line = text
        .lines()
        .find(|l| l.contains("is no longer on the source"))
        .unwrap();
    for needed in [
        "binlog.000001",
        oldest.as_str(),
        "sluice.instance.onPurged = snapshot",
        "sluice.instance.onPurged = latest",
        "sluice admin reset-cursor",
    ] {
        assert!(line.contains(needed), "{needed:?} missing from: {line}");
    }

    // The admin API and the metrics say so.
    let shown = std::process::Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args(["admin", "--url", &s.admin_url, "show", "example"])
        .env("SLUICE_ADMIN_TOKEN", TOKEN)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout).to_string();
    assert!(
        shown.contains("failed") && shown.contains("is no longer on the source"),
        "{shown}"
    );
    let m = metrics(s.metrics_port);
    assert!(
        m.contains("sluice_binlog_purged_stopped{destination=\"example\"} 1"),
        "{m}"
    );
    assert!(m.contains("sluice_binlog_purged_total{destination=\"example\",action=\"fail\"} 1"));

    // No retry loop, and nothing published.
    let reads = |t: &str| t.matches("instance reading the source").count();
    let before = reads(&log_text(&s.log));
    insert(&s.db, 20..25);
    let mut client = Client::connect(&s.addr, 1001, "").await;
    assert!(client.take_during(Duration::from_secs(3)).await.is_empty());
    assert_eq!(reads(&log_text(&s.log)), before, "the destination retried");
    stop(&mut server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn latest_skips_to_the_end_and_logs_the_loss() {
    let s = setup("latest");
    cursor_into_purged_binlog(&s).await;
    let mut server = spawn_server(s.conf.path(), &s.log);
    wait_for_log(&s.log, "changes lost");
    let text = log_text(&s.log);
    let lost = text.lines().find(|l| l.contains("changes lost")).unwrap();
    assert!(
        lost.contains("binlog.000001"),
        "the range starts at the cursor: {lost}"
    );
    let mut client = Client::connect(&s.addr, 1001, "").await;
    insert(&s.db, 20..25);
    let got = client.take(5).await;
    assert_eq!(
        ids(&got),
        (20..25).collect(),
        "only rows after the jump: {got:?}"
    );
    let m = metrics(s.metrics_port);
    assert!(m.contains("sluice_binlog_purged_total{destination=\"example\",action=\"latest\"} 1"));

    // The jump is behind the cursor now: a restart resumes normally.
    stop(&mut server);
    insert(&s.db, 25..30);
    let mut server = spawn_server(s.conf.path(), &s.log);
    let mut client = Client::connect(&s.addr, 1001, "").await;
    assert_eq!(ids(&client.take(5).await), (25..30).collect());
    assert_eq!(log_text(&s.log).matches("changes lost").count(), 1);
    stop(&mut server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshot_reads_the_tables_again_and_streams_from_the_end() {
    let s = setup("snapshot");
    cursor_into_purged_binlog(&s).await;
    let mut server = spawn_server(s.conf.path(), &s.log);
    let mut client = Client::connect(&s.addr, 1001, "").await;
    // Every row the table holds, the purged ones among them, arrives.
    let got = client.take(20).await;
    assert_eq!(ids(&got), (0..20).collect(), "{got:?}");
    insert(&s.db, 20..25);
    let got = client.take(5).await;
    assert_eq!(ids(&got), (20..25).collect(), "{got:?}");
    let m = metrics(s.metrics_port);
    assert!(m.contains("sluice_binlog_purged_total{destination=\"example\",action=\"snapshot\"} 1"));
    stop(&mut server);
}
