//! Several client ids on one destination of a real `sluice server`, each
//! subscribed with its own filter (or none: then the configured one): each
//! gets exactly the rows its own filter keeps, whatever the others subscribe
//! with, across a server restart and an unsubscribe; a client whose filter
//! needs tables the stream did not read gets them from its cursor on.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Child;

use common::client::{Client, Row};
use common::{spawn_server, write_example_instance};
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};

fn write_conf(dir: &Path, db_port: u16, canal_port: u16, filter: &str) {
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.port = {canal_port}\ncanal.destinations = example\ncanal.auto.scan = false\n"
        ),
    )
    .unwrap();
    write_example_instance(dir, db_port, filter);
}

fn setup_db() -> MariaDb {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec(
        "CREATE DATABASE b19; CREATE TABLE b19.a (id INT PRIMARY KEY); \
         CREATE TABLE b19.b (id INT PRIMARY KEY); CREATE TABLE b19.c (id INT PRIMARY KEY)",
    )
    .unwrap();
    db
}

/// One autocommit INSERT per row, the tables taking turns.
fn insert(db: &MariaDb, tables: &[&str], ids: std::ops::Range<i64>) {
    for id in ids {
        for t in tables {
            db.exec(&format!("INSERT INTO b19.{t} VALUES ({id})"))
                .unwrap();
        }
    }
}

fn rows(tables: &[&str], ids: std::ops::Range<i64>) -> BTreeSet<Row> {
    tables
        .iter()
        .flat_map(|t| ids.clone().map(move |id| (t.to_string(), id)))
        .collect()
}

/// Every row is one of `want`, each exactly once.
fn exactly(client: i16, got: &[Row], want: &BTreeSet<Row>) {
    let set: BTreeSet<Row> = got.iter().cloned().collect();
    let foreign: Vec<_> = set.difference(want).take(5).collect();
    let missing: Vec<_> = want.difference(&set).take(5).collect();
    assert!(
        foreign.is_empty() && missing.is_empty(),
        "client {client}: rows it must not get {foreign:?}, rows missing {missing:?}"
    );
    assert_eq!(got.len(), set.len(), "client {client} got rows twice");
}

fn stop(server: &mut Child) {
    server.kill().unwrap();
    server.wait().unwrap();
}

fn log_has(log: &Path, text: &str) -> bool {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .contains(text)
}

const RESTARTED: &str = "starting again from the clients' cursors";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_clients_filter_does_not_take_rows_from_another() {
    let db = setup_db();
    let conf = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    write_conf(conf.path(), db.port(), port, r".*\\..*");
    let log = conf.path().join("server.log");
    let mut server = spawn_server(conf.path(), &log);
    let addr = format!("127.0.0.1:{port}");
    let mut all = Client::connect(&addr, 1001, r".*\..*").await;
    let mut only_a = Client::connect(&addr, 1002, r"b19\.a").await;
    insert(&db, &["a", "b"], 0..200);
    exactly(1001, &all.take(400).await, &rows(&["a", "b"], 0..200));
    exactly(1002, &only_a.take(200).await, &rows(&["a"], 0..200));
    assert!(
        !log_has(&log, RESTARTED),
        "no client needed more than the stream read"
    );
    stop(&mut server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_clients_get_their_rows_across_a_restart_and_an_unsubscribe() {
    let db = setup_db();
    let conf = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    write_conf(conf.path(), db.port(), port, r"b19\\..*");
    let log = conf.path().join("server.log");
    let mut server = spawn_server(conf.path(), &log);
    let addr = format!("127.0.0.1:{port}");
    // No filter: the configured one. Then one table, then two (overlapping
    // neither the first's nor each other's rows but for the configured).
    let mut configured = Client::connect(&addr, 1001, "").await;
    let mut one = Client::connect(&addr, 1002, r"b19\.a").await;
    let mut two = Client::connect(&addr, 1003, r"b19\.b,b19\.c").await;
    insert(&db, &["a", "b", "c"], 0..100);
    exactly(
        1001,
        &configured.take(300).await,
        &rows(&["a", "b", "c"], 0..100),
    );
    exactly(1002, &one.take(100).await, &rows(&["a"], 0..100));
    exactly(1003, &two.take(200).await, &rows(&["b", "c"], 0..100));

    // A restart: the stored subscriptions come back with their filters,
    // whichever subscribed last, and nothing acked comes again.
    stop(&mut server);
    server = spawn_server(conf.path(), &log);
    insert(&db, &["a", "b", "c"], 100..150);
    let mut configured = Client::connect(&addr, 1001, "").await;
    let mut one = Client::connect(&addr, 1002, r"b19\.a").await;
    let mut two = Client::connect(&addr, 1003, r"b19\.b,b19\.c").await;
    exactly(
        1001,
        &configured.take(150).await,
        &rows(&["a", "b", "c"], 100..150),
    );
    exactly(1002, &one.take(50).await, &rows(&["a"], 100..150));
    exactly(1003, &two.take(100).await, &rows(&["b", "c"], 100..150));

    // The client without a filter leaves: the others are unaffected.
    configured.conn.unsubscribe().await.unwrap();
    insert(&db, &["a", "b", "c"], 150..180);
    exactly(1002, &one.take(30).await, &rows(&["a"], 150..180));
    exactly(1003, &two.take(60).await, &rows(&["b", "c"], 150..180));

    // And after another restart too (the unsubscribe is persisted).
    stop(&mut server);
    server = spawn_server(conf.path(), &log);
    insert(&db, &["a", "b", "c"], 180..190);
    let mut one = Client::connect(&addr, 1002, r"b19\.a").await;
    let mut two = Client::connect(&addr, 1003, r"b19\.b,b19\.c").await;
    exactly(1002, &one.take(10).await, &rows(&["a"], 180..190));
    exactly(1003, &two.take(20).await, &rows(&["b", "c"], 180..190));
    assert!(
        !log_has(&log, RESTARTED),
        "every filter was inside the configured one"
    );
    stop(&mut server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_subscribes_again_with_more_tables_gets_them_from_its_cursor() {
    let db = setup_db();
    let conf = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    // The stream reads b19.a only, until a client asks for more.
    write_conf(conf.path(), db.port(), port, r"b19\\.a");
    let log = conf.path().join("server.log");
    let mut server = spawn_server(conf.path(), &log);
    let addr = format!("127.0.0.1:{port}");
    let mut configured = Client::connect(&addr, 1001, "").await;
    let mut changing = Client::connect(&addr, 1002, r"b19\.a").await;
    insert(&db, &["a", "b"], 0..10);
    // The cursors end after the last b19.b row (which nobody got).
    insert(&db, &["a"], 10..11);
    exactly(1001, &configured.take(11).await, &rows(&["a"], 0..11));
    exactly(1002, &changing.take(11).await, &rows(&["a"], 0..11));

    insert(&db, &["a", "b"], 11..16);
    // Client 1002 now wants b19.b too: rows of b19.b after its cursor (the
    // stream had not read them) reach it; those before do not.
    let mut changing = Client::connect(&addr, 1002, r"b19\.a,b19\.b").await;
    let got = changing.take(10).await;
    let set: BTreeSet<Row> = got.iter().cloned().collect();
    assert_eq!(set, rows(&["a", "b"], 11..16), "client 1002: {got:?}");
    assert!(log_has(&log, RESTARTED), "the stream had to read b19.b");
    // Client 1001 keeps its own filter: the configured one.
    let got = configured.take(5).await;
    let set: BTreeSet<Row> = got.iter().cloned().collect();
    assert_eq!(set, rows(&["a"], 11..16), "client 1001: {got:?}");

    // Narrowing again needs no new read: client 1002 drops b19.a.
    let mut changing = Client::connect(&addr, 1002, r"b19\.b").await;
    insert(&db, &["a", "b"], 16..21);
    exactly(1002, &changing.take(5).await, &rows(&["b"], 16..21));
    exactly(1001, &configured.take(5).await, &rows(&["a"], 16..21));
    stop(&mut server);
}
