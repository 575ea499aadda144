//! A DDL between two leadership terms: the second leader, a new engine
//! with nothing in memory, decodes the rows written before the DDL with the
//! table as it was then (from the schema history the first leader stored
//! in ZooKeeper; the server only knows the new table) and the rows after it
//! with the new table. The binlog carries no column names
//! (`binlog_row_metadata=MINIMAL`), so every name comes from the history.

mod common;

use std::time::Duration;

use common::run_until;

use serde_json::Value;
use sluice_testkit::{BinlogRowMetadata, MariaDb, MariaDbConfig, ZooKeeperEnsemble};

fn properties(db: &MariaDb, zk: &str, start: &str) -> Vec<(String, String)> {
    [
        ("name", "hist".to_string()),
        ("topic.prefix", "hist".into()),
        ("database.hostname", "127.0.0.1".into()),
        ("database.port", db.port().to_string()),
        ("database.user", "root".into()),
        ("table.include.list", "w\\.t".into()),
        ("sluice.start", start.into()),
        ("converter.schemas.enable", "false".into()),
        ("offset.storage", "zookeeper".into()),
        ("offset.storage.zookeeper.connect.string", zk.into()),
        ("offset.storage.zookeeper.path", "/hist/offsets".into()),
        ("schema.history.internal", "zookeeper".into()),
        (
            "schema.history.internal.zookeeper.connect.string",
            zk.into(),
        ),
        (
            "schema.history.internal.zookeeper.path",
            "/hist/history".into(),
        ),
        ("offset.flush.interval.ms", "0".into()),
        ("leader.latch.zookeeper.connect.string", zk.into()),
        ("leader.latch.path", "/hist/leader".into()),
        ("leader.latch.session.timeout.ms", "4000".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// One leadership term: an engine runs until it delivered `n` records.
async fn term(props: Vec<(String, String)>, n: usize) -> Vec<Value> {
    let (records, result) = run_until(props, Duration::from_secs(60), move |r| r.len() >= n).await;
    result.unwrap();
    records
        .iter()
        .map(|r| serde_json::from_str(r.value.as_deref().unwrap_or("null")).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_leader_decodes_rows_before_and_after_a_ddl_with_their_own_tables() {
    let zk = ZooKeeperEnsemble::start_standalone().unwrap();
    let db = MariaDb::start(MariaDbConfig {
        binlog_row_metadata: BinlogRowMetadata::Minimal,
        ..Default::default()
    })
    .unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, a VARCHAR(10))")
        .unwrap();
    let (file, pos) = db.current_binlog_position().unwrap();
    let props = properties(&db, &zk.connect_string(), &format!("{file}:{pos}"));

    db.exec("INSERT INTO w.t VALUES (1, 'one')").unwrap();
    let first = term(props.clone(), 1).await;
    assert_eq!(first.len(), 1);
    assert_eq!(first[0]["after"], serde_json::json!({"id": 1, "a": "one"}));

    // Between the terms: a row of the old table, the DDL (a column first,
    // so the old rows would shift under the new definition), a new row.
    db.exec("INSERT INTO w.t VALUES (2, 'two')").unwrap();
    db.exec("ALTER TABLE w.t ADD COLUMN b INT FIRST").unwrap();
    db.exec("INSERT INTO w.t VALUES (30, 3, 'three')").unwrap();

    let second = term(props, 2).await;
    assert_eq!(second.len(), 2, "{second:#?}");
    assert_eq!(second[0]["after"], serde_json::json!({"id": 2, "a": "two"}));
    assert_eq!(
        second[1]["after"],
        serde_json::json!({"b": 30, "id": 3, "a": "three"})
    );
    // The new term started after the first term's committed offset: row 1
    // is not delivered again.
    assert!(second.iter().all(|v| v["after"]["id"] != 1));
}
