//! A DDL between two leadership terms: the second leader, a new engine
//! with nothing in memory, decodes the rows written before the DDL with the
//! table as it was then (from the schema history the first leader stored
//! in ZooKeeper; the server only knows the new table) and the rows after it
//! with the new table. The binlog carries no column names
//! (`binlog_row_metadata=MINIMAL`), so every name comes from the history.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::run_until;

use serde_json::Value;
use sluice_engine::Engine;
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

/// One leadership term: an engine runs until it delivered `n` row
/// records; those, and the DDL of its schema change records.
async fn term(props: Vec<(String, String)>, n: usize) -> (Vec<Value>, Vec<String>) {
    let rows = |r: &[sluice_engine::ChangeRecord]| {
        r.iter().filter(|r| r.destination == "hist.w.t").count()
    };
    let (records, result) = run_until(props, Duration::from_secs(60), move |r| rows(r) >= n).await;
    result.unwrap();
    let value = |r: &sluice_engine::ChangeRecord| -> Value {
        serde_json::from_str(r.value.as_deref().unwrap_or("null")).unwrap()
    };
    let ddl = records
        .iter()
        .filter(|r| r.destination == "hist")
        .map(|r| value(r)["ddl"].as_str().unwrap_or_default().to_string())
        .collect();
    let rows = records
        .iter()
        .filter(|r| r.destination == "hist.w.t")
        .map(value)
        .collect();
    (rows, ddl)
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
    let (first, _) = term(props.clone(), 1).await;
    assert_eq!(first.len(), 1);
    assert_eq!(first[0]["after"], serde_json::json!({"id": 1, "a": "one"}));

    // Between the terms: a row of the old table, the DDL (a column first,
    // so the old rows would shift under the new definition), a new row.
    db.exec("INSERT INTO w.t VALUES (2, 'two')").unwrap();
    db.exec("ALTER TABLE w.t ADD COLUMN b INT FIRST").unwrap();
    db.exec("INSERT INTO w.t VALUES (30, 3, 'three')").unwrap();

    let (second, ddl) = term(props, 2).await;
    // The DDL also reached the application, as Debezium's schema change
    // record.
    assert_eq!(ddl, ["ALTER TABLE w.t ADD COLUMN b INT FIRST"]);
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

/// Debezium's history records carry `server_id`, `ts_sec` and, with GTIDs,
/// `gtids` in their `position`: so do the engine's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_positions_carry_server_id_time_and_gtids() {
    let dir = tempfile::tempdir().unwrap();
    let db = MariaDb::start(MariaDbConfig::default().server_id(4242)).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY)")
        .unwrap();
    let (file, pos) = db.current_binlog_position().unwrap();
    let history = dir.path().join("history.dat");
    let props: Vec<(String, String)> = [
        ("name", "pos".to_string()),
        ("topic.prefix", "pos".into()),
        ("database.hostname", "127.0.0.1".into()),
        ("database.port", db.port().to_string()),
        ("database.user", "root".into()),
        ("table.include.list", "w\\.t".into()),
        ("sluice.start", format!("{file}:{pos}")),
        ("converter.schemas.enable", "false".into()),
        (
            "offset.storage.file.filename",
            dir.path().join("offsets.dat").display().to_string(),
        ),
        (
            "schema.history.internal.file.filename",
            history.display().to_string(),
        ),
        ("offset.flush.interval.ms", "0".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    // The engine runs (its schema read) before the DDL: a row reached it.
    db.exec("INSERT INTO w.t VALUES (1)").unwrap();
    let got: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = got.clone();
    let engine = Engine::builder()
        .properties(props)
        .notifying(move |r| {
            sink.lock().unwrap().push(r.destination);
            Ok(())
        })
        .build()
        .unwrap();
    let handle = engine.handle();
    let running = tokio::spawn(engine.run());
    let rows = || {
        got.lock()
            .unwrap()
            .iter()
            .filter(|d| *d == "pos.w.t")
            .count()
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while rows() < 1 {
        assert!(std::time::Instant::now() < deadline, "no first row");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    db.exec("ALTER TABLE w.t ADD COLUMN a INT").unwrap();
    let gtids_after = db.query_scalar("SELECT @@gtid_binlog_pos").unwrap();
    db.exec("INSERT INTO w.t VALUES (2, 3)").unwrap();
    while rows() < 2 {
        assert!(std::time::Instant::now() < deadline, "no second row");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    handle.close();
    running.await.unwrap().unwrap();
    let text = std::fs::read_to_string(&history).unwrap();
    let alter: Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|r| {
            r["ddl"]
                .as_str()
                .is_some_and(|d| d.starts_with("ALTER TABLE"))
        })
        .unwrap_or_else(|| panic!("no ALTER record in {text}"));
    assert_eq!(alter["tableChanges"][0]["type"], "ALTER", "{alter}");
    let position = &alter["position"];
    assert_eq!(position["server_id"], 4242, "{alter}");
    let ts = position["ts_sec"].as_u64().unwrap_or(0);
    assert!(ts >= before && ts <= before + 60, "{alter}");
    // MariaDB always has GTIDs: the set once the DDL is applied.
    assert_eq!(
        position["gtids"].as_str(),
        gtids_after.as_deref(),
        "{alter}"
    );
}
