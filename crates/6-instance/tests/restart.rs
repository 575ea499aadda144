//! Where an instance starts again, against a private MariaDB: a failed
//! instance resumes after the last transaction it published (nothing put
//! twice, nothing skipped), an instance configured at `latest` never skips
//! to a newer `latest` on a retry, and a new process without client cursors
//! starts at the first start position the previous one persisted.

use std::sync::Arc;
use std::time::Duration;

use prost::Message;
use sluice_canal::proto::{Entry, EntryType, RowChange};
use sluice_config::ServerConfig;
use sluice_instance::manager::{InstanceManager, InstanceState, SchemaFactory};
use sluice_meta::{CursorStore, FileCursorStore};
use sluice_store::{Destination, Destinations, GetWait};
use sluice_testkit::{BinlogRowMetadata, MariaDb, MariaDbConfig};

fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A server configuration in `conf` with destination `shop` read as
/// `user`, from `latest` (no position configured).
fn configure(conf: &std::path::Path, db: &MariaDb, user: &str, password: &str) -> ServerConfig {
    write(&conf.join("canal.properties"), "");
    write(
        &conf.join("shop/instance.properties"),
        &format!(
            "canal.instance.master.address = 127.0.0.1:{}\n\
             canal.instance.dbUsername = {user}\n\
             canal.instance.dbPassword = {password}\n",
            db.port()
        ),
    );
    ServerConfig::load(conf).unwrap()
}

fn manager(server: ServerConfig, schema: SchemaFactory) -> Arc<InstanceManager> {
    let cursors: Arc<dyn CursorStore> =
        Arc::new(FileCursorStore::new(&server.destinations.data_dir));
    let m = InstanceManager::new(server.destinations, cursors, schema);
    assert!(m.start_all().is_empty());
    m
}

async fn wait_for(m: &InstanceManager, name: &str, want: fn(&InstanceState) -> bool) {
    for _ in 0..600 {
        if m.state(name).as_ref().is_some_and(want) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{name} never reached the state: {:?}", m.states());
}

/// Waits until `user` has a binlog dump running on the server: the
/// instance has resolved its start position.
async fn wait_for_dump(db: &MariaDb, user: &str) {
    for _ in 0..600 {
        let n = db
            .query_scalar(&format!(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST \
                 WHERE COMMAND LIKE 'Binlog Dump%' AND USER = '{user}'"
            ))
            .unwrap();
        if n.as_deref().is_some_and(|n| n != "0") {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no binlog dump of {user} started");
}

/// The rows (`table:id`) delivered to client 1001, acking each batch,
/// until `last` is among them (60 s at most).
async fn rows_until(d: &Arc<dyn Destination>, last: &str) -> Vec<String> {
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !out.iter().any(|r| r == last) && tokio::time::Instant::now() < deadline {
        let b = d
            .get(1001, 100, GetWait::AtMost(Duration::from_millis(200)))
            .await
            .unwrap();
        if b.id < 0 {
            continue;
        }
        for e in &b.entries {
            let e = Entry::decode(e.as_ref()).unwrap();
            if e.entry_type != Some(EntryType::RowData as i32) {
                continue;
            }
            let rc = RowChange::decode(e.store_value.as_deref().unwrap_or(&[])).unwrap();
            if rc.is_ddl == Some(true) {
                continue;
            }
            let table = e
                .header
                .as_ref()
                .and_then(|h| h.table_name.clone())
                .unwrap_or_default();
            for rd in rc.row_datas {
                let id = rd
                    .after_columns
                    .first()
                    .and_then(|c| c.value.clone())
                    .unwrap_or_default();
                out.push(format!("{table}:{id}"));
            }
        }
        d.ack(1001, b.id).unwrap();
        d.durable().await.unwrap();
    }
    out
}

fn create_shop(db: &MariaDb) {
    db.exec(
        "CREATE DATABASE shop; \
         CREATE TABLE shop.items (id INT UNSIGNED PRIMARY KEY, name VARCHAR(20)); \
         CREATE TABLE shop.secret (id INT UNSIGNED PRIMARY KEY); \
         CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'; \
         GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%'",
    )
    .unwrap();
}

/// The case: a replication-only account, no position configured.
/// The first row fails; after the GRANT the retry delivers it to a client
/// that never acked anything, instead of starting at a newer `latest`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_instance_from_latest_delivers_the_failed_row_after_the_grant() {
    let db = MariaDb::start(MariaDbConfig::default().binlog_row_metadata(BinlogRowMetadata::NoLog))
        .unwrap();
    create_shop(&db);
    let conf = tempfile::tempdir().unwrap();
    let m = manager(
        configure(conf.path(), &db, "repl", "replpw"),
        InstanceManager::schema_tracking(),
    );
    wait_for_dump(&db, "repl").await;
    let d = m.destination("shop").expect("running destination");
    d.subscribe(1001, "").unwrap();

    db.exec("INSERT INTO shop.items VALUES (1, 'apple')")
        .unwrap();
    wait_for(&m, "shop", |s| matches!(s, InstanceState::Failed(_))).await;
    db.exec("GRANT SELECT ON shop.* TO 'repl'@'%'").unwrap();
    db.exec("INSERT INTO shop.items VALUES (2, 'pear')")
        .unwrap();

    let rows = rows_until(&d, "items:2").await;
    assert_eq!(rows, vec!["items:1", "items:2"]);
    m.stop("shop").await;
}

/// A failure in the middle of a transaction, with a client cursor behind
/// what is in the store: the retry resumes after the last transaction put
/// and drops the entries of the failed transaction already put, so the
/// client sees every row once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_restarted_in_process_puts_nothing_twice() {
    let db = MariaDb::start(MariaDbConfig::default().binlog_row_metadata(BinlogRowMetadata::NoLog))
        .unwrap();
    create_shop(&db);
    db.exec("GRANT SELECT ON shop.items TO 'repl'@'%'").unwrap();
    let conf = tempfile::tempdir().unwrap();
    let m = manager(
        configure(conf.path(), &db, "repl", "replpw"),
        InstanceManager::schema_tracking(),
    );
    wait_for_dump(&db, "repl").await;
    let d = m.destination("shop").expect("running destination");
    d.subscribe(1001, "").unwrap();

    // Acked: the client's cursor is after the first transaction.
    db.exec("INSERT INTO shop.items VALUES (1, 'apple')")
        .unwrap();
    assert_eq!(rows_until(&d, "items:1").await, vec!["items:1"]);
    // In the store, not yet fetched.
    db.exec("INSERT INTO shop.items VALUES (2, 'pear')")
        .unwrap();
    // Its first row is put, its second fails.
    db.exec(
        "BEGIN; INSERT INTO shop.items VALUES (3, 'plum'); \
         INSERT INTO shop.secret VALUES (1); COMMIT",
    )
    .unwrap();
    wait_for(&m, "shop", |s| matches!(s, InstanceState::Failed(_))).await;
    db.exec("GRANT SELECT ON shop.secret TO 'repl'@'%'")
        .unwrap();
    db.exec("INSERT INTO shop.items VALUES (4, 'fig')").unwrap();

    let rows = rows_until(&d, "items:4").await;
    assert_eq!(rows, vec!["items:2", "items:3", "secret:1", "items:4"]);
    m.stop("shop").await;
}

/// A process stopped before any client acked: the next one, without client
/// cursors, starts where the first one started (persisted before anything
/// was published), not at a newer `latest`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_process_starts_at_the_persisted_first_start_position() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    create_shop(&db);
    let conf = tempfile::tempdir().unwrap();
    let server = configure(conf.path(), &db, "root", "");
    let m = manager(server.clone(), InstanceManager::binlog_metadata_only());
    wait_for_dump(&db, "root").await;
    db.exec("INSERT INTO shop.items VALUES (1, 'apple')")
        .unwrap();
    // Stopped before a client subscribed or acked.
    assert!(m.stop("shop").await);
    drop(m);
    db.exec("INSERT INTO shop.items VALUES (2, 'pear')")
        .unwrap();

    let m = manager(server, InstanceManager::binlog_metadata_only());
    wait_for(&m, "shop", |s| *s == InstanceState::Running).await;
    let d = m.destination("shop").expect("running destination");
    d.subscribe(1001, "").unwrap();
    let rows = rows_until(&d, "items:2").await;
    assert_eq!(rows, vec!["items:1", "items:2"]);
    assert!(
        conf.path().join("shop/start.dat").is_file(),
        "the first start position is kept beside meta.dat"
    );
    m.stop("shop").await;
}
