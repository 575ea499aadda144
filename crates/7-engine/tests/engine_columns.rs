//! Debezium's column properties in the engine, on a private MariaDB:
//! `column.exclude.list` leaves a column out of `before`, `after` and the
//! value schema (the key keeps the primary key), `column.mask.with.N.chars`
//! and `column.mask.hash.ALGORITHM.with.salt.SALT` replace values, in
//! streamed records, snapshot reads and typed records alike.

mod common;

use std::time::Duration;

use serde_json::Value;
use sluice_encode::debezium::{HashAlgorithm, Mask};
use sluice_engine::typed::Value as Typed;
use sluice_engine::{ChangeRecord, TypedRecord};
use sluice_testkit::{MariaDb, MariaDbConfig};

const SALT: &str = "CzQMA0cB5K";

fn columns() -> [(&'static str, &'static str); 3] {
    [
        ("column.exclude.list", "w\\.u\\.phone"),
        ("column.mask.with.3.chars", "w\\.u\\.name"),
        ("column.mask.hash.SHA-256.with.salt.CzQMA0cB5K", "W.U.EMAIL"),
    ]
}

/// SHA-256 of the salt and the Java-serialised value, cut to
/// `varchar(24)`'s 24 characters, as Debezium writes it.
fn hashed(value: &str) -> String {
    Mask::Hash {
        algorithm: HashAlgorithm::Sha256,
        salt: SALT.as_bytes().to_vec(),
        v2: false,
    }
    .apply(Some(value), Some(24))
    .unwrap()
}

fn setup() -> (MariaDb, String) {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec(
        "CREATE DATABASE w; CREATE TABLE w.u (id INT PRIMARY KEY, name VARCHAR(20), \
         email VARCHAR(24), phone VARCHAR(20), n INT)",
    )
    .unwrap();
    let (file, pos) = db.current_binlog_position().unwrap();
    (db, format!("{file}:{pos}"))
}

fn value(r: &ChangeRecord) -> Value {
    serde_json::from_str(r.value.as_deref().unwrap_or("null")).unwrap()
}

fn assert_nothing_hidden(text: &str) {
    for hidden in ["phone", "555-", "example.org", "ann"] {
        assert!(!text.contains(hidden), "{hidden} in {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamed_records_leave_out_and_mask_columns() {
    let dir = tempfile::tempdir().unwrap();
    let (db, start) = setup();
    db.exec("INSERT INTO w.u VALUES (1, 'ann', 'ann@example.org', '555-0001', 1)")
        .unwrap();
    db.exec("UPDATE w.u SET phone = '555-0002' WHERE id = 1")
        .unwrap();
    db.exec("UPDATE w.u SET email = 'ann@example.net', name = NULL WHERE id = 1")
        .unwrap();
    db.exec("DELETE FROM w.u WHERE id = 1").unwrap();
    let mut extra = vec![
        ("table.include.list", "w\\.u"),
        ("converter.schemas.enable", "true"),
        ("tombstones.on.delete", "false"),
        // Moot with sluice.start: a warning, not an error.
        ("snapshot.mode", "initial"),
    ];
    extra.extend(columns());
    let props = common::engine_properties("cols", &db, &start, dir.path(), &extra);
    let (records, result) =
        common::run_until(props, Duration::from_secs(30), |r| r.len() >= 4).await;
    result.unwrap();
    assert_eq!(records.len(), 4, "{records:#?}");
    for r in &records {
        assert_nothing_hidden(r.value.as_deref().unwrap_or(""));
    }
    let insert = value(&records[0]);
    assert_eq!(
        insert["payload"]["after"],
        serde_json::json!({"id": 1, "name": "***", "email": hashed("ann@example.org"), "n": 1})
    );
    let fields: Vec<&str> = insert["schema"]["fields"][1]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["id", "name", "email", "n"]);
    assert_eq!(
        insert["schema"]["fields"][1]["fields"][2]["parameters"],
        serde_json::json!({"masked": "true"})
    );
    let key: Value = serde_json::from_str(records[0].key.as_deref().unwrap()).unwrap();
    assert_eq!(key["payload"], serde_json::json!({"id": 1}));
    // The update of the excluded phone alone is still an update.
    let phone_only = value(&records[1]);
    assert_eq!(phone_only["payload"]["op"], "u");
    assert_eq!(
        phone_only["payload"]["before"],
        phone_only["payload"]["after"]
    );
    // A NULL masked with characters is the mask; a hash of a new value.
    let update = value(&records[2]);
    assert_eq!(update["payload"]["after"]["name"], "***");
    assert_eq!(
        update["payload"]["after"]["email"],
        hashed("ann@example.net").as_str()
    );
    assert_eq!(value(&records[3])["payload"]["op"], "d");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshot_reads_and_typed_records_leave_out_and_mask_columns() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = setup();
    db.exec("INSERT INTO w.u VALUES (1, 'ann', 'ann@example.org', '555-0001', 1), (2, 'ann2', NULL, '555-0003', 2)")
        .unwrap();
    let mut extra = vec![
        ("table.include.list", "w\\.u"),
        ("snapshot.mode", "initial"),
    ];
    extra.extend(columns());
    let mut props = common::engine_properties("snapcols", &db, "", dir.path(), &extra);
    props.retain(|(k, _)| k != "sluice.start");
    let (records, result) =
        common::run_until(props.clone(), Duration::from_secs(30), |r| r.len() >= 2).await;
    result.unwrap();
    assert_eq!(records.len(), 2, "{records:#?}");
    for r in &records {
        assert_nothing_hidden(r.value.as_deref().unwrap_or(""));
        assert_eq!(value(r)["op"], "r");
    }
    assert_eq!(
        value(&records[0])["after"],
        serde_json::json!({"id": 1, "name": "***", "email": hashed("ann@example.org"), "n": 1})
    );
    // A hash of NULL is null.
    assert_eq!(value(&records[1])["after"]["email"], Value::Null);

    // Typed records: the same columns, the same masks.
    let typed_dir = tempfile::tempdir().unwrap();
    let props: Vec<(String, String)> = props
        .into_iter()
        .map(|(k, v)| {
            let v = v.replace(
                &dir.path().display().to_string(),
                &typed_dir.path().display().to_string(),
            );
            (k, v)
        })
        .collect();
    let (typed, result) = common::run_collecting(
        props,
        Duration::from_secs(30),
        |r: &[TypedRecord]| r.len() >= 2,
        |builder, sink| {
            builder.notifying_typed(move |r| {
                sink.lock().unwrap().push(r);
                Ok(())
            })
        },
    )
    .await;
    result.unwrap();
    let after = typed[0].after.as_ref().expect("an after image");
    assert_eq!(after.columns(), ["id", "name", "email", "n"]);
    assert_eq!(after.get("name"), Some(&Typed::Text("***".into())));
    assert_eq!(
        after.get("email"),
        Some(&Typed::Text(hashed("ann@example.org")))
    );
    assert!(after.get("phone").is_none());
}
