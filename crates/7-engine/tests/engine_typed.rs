//! Typed records on a private MariaDB: the same stream as JSON records
//! (same changes, same offsets), each MySQL type as its Rust value, and a
//! typed engine that resumes after a close from the offset it committed.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::run_until;

use serde_json::Value as Json;
use sluice_engine::typed::{Decimal, Value};
use sluice_engine::{Engine, EngineError, Operation, TypedRecord};
use sluice_testkit::{MariaDb, MariaDbConfig};

fn properties(db: &MariaDb, start: &str, dir: &std::path::Path) -> Vec<(String, String)> {
    common::engine_properties("typed", db, start, dir, &[("table.include.list", "w\\.t")])
}

/// Runs a typed engine until `until` holds for what it delivered.
async fn run_typed(
    props: Vec<(String, String)>,
    within: Duration,
    until: impl Fn(&[TypedRecord]) -> bool + Send + 'static,
) -> (Vec<TypedRecord>, Result<(), EngineError>) {
    common::run_collecting(props, within, until, |builder, sink| {
        builder.notifying_typed(move |r| {
            sink.lock().unwrap().push(r);
            Ok(())
        })
    })
    .await
}

const TABLE: &str = "CREATE TABLE w.t (
    id INT PRIMARY KEY,
    ti TINYINT,
    bu BIGINT UNSIGNED,
    iu INT UNSIGNED,
    dec_v DECIMAL(10,2),
    d DATE,
    dt DATETIME(3),
    ts TIMESTAMP(6) NULL,
    tm TIME,
    y YEAR,
    vc VARCHAR(20) CHARACTER SET utf8mb4,
    lat VARCHAR(10) CHARACTER SET latin1,
    bl BLOB,
    bin BINARY(4),
    e ENUM('a','Big'),
    s SET('x','y','z'),
    j JSON,
    b BOOL,
    bit1 BIT(1),
    bit12 BIT(12),
    n INT
)";

const ROW1: &str = "INSERT INTO w.t VALUES (1, -5, 18446744073709551615, 4294967295, -12.50,
    '2024-05-01', '2024-05-01 12:30:45.125', '2024-05-01 12:30:45.123456', '-01:02:03', 2024,
    'ünï ✓', 'naïve', 0x00FF10, 0xAB, 'Big', 'x,z', '{\"k\": [1, \"v\"]}', TRUE, b'1', b'000100000001', NULL)";

fn setup() -> (MariaDb, String) {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec(&format!("CREATE DATABASE w; {TABLE}")).unwrap();
    let (file, pos) = db.current_binlog_position().unwrap();
    (db, format!("{file}:{pos}"))
}

fn get<'a>(row: &'a sluice_engine::Row, name: &str) -> &'a Value {
    row.get(name)
        .unwrap_or_else(|| panic!("no column {name} in {row:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_records_have_rust_values_and_the_json_records_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let json_dir = tempfile::tempdir().unwrap();
    let (db, start) = setup();
    db.exec(&format!("SET time_zone = '+00:00'; {ROW1}"))
        .unwrap();
    db.exec("INSERT INTO w.t (id) VALUES (2)").unwrap();
    db.exec("UPDATE w.t SET ti = 7, vc = 'neu' WHERE id = 1")
        .unwrap();
    db.exec("DELETE FROM w.t WHERE id = 2").unwrap();

    let (typed, result) = run_typed(
        properties(&db, &start, dir.path()),
        Duration::from_secs(30),
        |r| r.len() >= 4,
    )
    .await;
    result.unwrap();
    let ops: Vec<Operation> = typed.iter().map(|r| r.op).collect();
    assert_eq!(
        ops,
        [
            Operation::Create,
            Operation::Create,
            Operation::Update,
            Operation::Delete
        ]
    );
    for r in &typed {
        assert_eq!((r.database.as_str(), r.table.as_str()), ("w", "t"));
        assert_eq!(&*r.key_columns, ["id".to_string()]);
    }

    // The first row: every type as its Rust value.
    let row = typed[0].after.as_ref().unwrap();
    assert!(typed[0].before.is_none());
    assert_eq!(get(row, "id"), &Value::Int(1));
    assert_eq!(get(row, "ti"), &Value::Int(-5));
    assert_eq!(get(row, "bu"), &Value::UInt(u64::MAX));
    assert_eq!(get(row, "iu"), &Value::UInt(4_294_967_295));
    assert_eq!(
        get(row, "dec_v"),
        &Value::Decimal(Decimal {
            text: "-12.50".into(),
            precision: 10,
            scale: 2
        })
    );
    match get(row, "d") {
        Value::Date(d) => assert_eq!((d.year, d.month, d.day), (2024, 5, 1)),
        v => panic!("DATE as {v:?}"),
    }
    match get(row, "dt") {
        Value::DateTime(d) => assert_eq!(
            (
                d.date.year,
                d.date.month,
                d.date.day,
                d.hour,
                d.minute,
                d.second,
                d.micros
            ),
            (2024, 5, 1, 12, 30, 45, 125_000)
        ),
        v => panic!("DATETIME as {v:?}"),
    }
    match get(row, "ts") {
        // 2024-05-01T12:30:45.123456Z
        Value::Timestamp(t) => assert_eq!((t.seconds, t.micros), (1_714_566_645, 123_456)),
        v => panic!("TIMESTAMP as {v:?}"),
    }
    match get(row, "tm") {
        Value::Time(t) => assert_eq!((t.negative, t.hours, t.minutes, t.seconds), (true, 1, 2, 3)),
        v => panic!("TIME as {v:?}"),
    }
    assert_eq!(get(row, "y"), &Value::Year(2024));
    assert_eq!(get(row, "vc"), &Value::Text("ünï ✓".into()));
    assert_eq!(get(row, "lat"), &Value::Text("naïve".into()));
    assert_eq!(get(row, "bl"), &Value::Bytes(vec![0x00, 0xFF, 0x10]));
    // BINARY(4) comes back padded, as MySQL returns it.
    assert_eq!(get(row, "bin"), &Value::Bytes(vec![0xAB, 0, 0, 0]));
    assert_eq!(get(row, "e"), &Value::Enum("Big".into()));
    assert_eq!(get(row, "s"), &Value::Set(vec!["x".into(), "z".into()]));
    // MariaDB's JSON is text in the binlog: as written.
    match get(row, "j") {
        Value::Json(s) | Value::Text(s) => {
            let parsed: Json = serde_json::from_str(s).unwrap();
            assert_eq!(parsed, serde_json::json!({"k": [1, "v"]}));
        }
        v => panic!("JSON as {v:?}"),
    }
    // BOOL is TINYINT(1) to the server.
    assert_eq!(get(row, "b"), &Value::Int(1));
    assert_eq!(get(row, "bit1"), &Value::Bool(true));
    assert_eq!(get(row, "bit12"), &Value::Bits(vec![0x01, 0x01]));
    assert_eq!(get(row, "n"), &Value::Null);

    // The second row: NULL everywhere but the key.
    let nulls = typed[1].after.as_ref().unwrap();
    for (name, v) in nulls.iter() {
        if name != "id" {
            assert_eq!(v, &Value::Null, "{name}");
        }
    }
    // The update has both images; the delete only the before image.
    let (before, after) = (
        typed[2].before.as_ref().unwrap(),
        typed[2].after.as_ref().unwrap(),
    );
    assert_eq!(get(before, "ti"), &Value::Int(-5));
    assert_eq!(get(after, "ti"), &Value::Int(7));
    assert_eq!(get(after, "vc"), &Value::Text("neu".into()));
    assert!(typed[3].after.is_none());
    assert_eq!(get(typed[3].before.as_ref().unwrap(), "id"), &Value::Int(2));

    // The JSON engine on the same stream: the same changes at the same
    // offsets and source places (tombstones aside).
    let (json, result) = run_until(
        properties(&db, &start, json_dir.path()),
        Duration::from_secs(30),
        |r| r.len() >= 5,
    )
    .await;
    result.unwrap();
    let json: Vec<_> = json.into_iter().filter(|r| r.value.is_some()).collect();
    assert_eq!(json.len(), typed.len());
    for (j, t) in json.iter().zip(&typed) {
        assert_eq!(j.offset, t.offset);
        let v: Json = serde_json::from_str(j.value.as_deref().unwrap()).unwrap();
        assert_eq!(v["op"], t.op.code().to_string());
        assert_eq!(v["source"]["file"], t.source.file);
        assert_eq!(v["source"]["pos"], t.source.pos);
        assert_eq!(v["source"]["row"], t.source.row);
        assert_eq!(v["source"]["server_id"], t.source.server_id);
        let image = t.after.as_ref().or(t.before.as_ref()).unwrap();
        let side = if t.after.is_some() { "after" } else { "before" };
        assert_eq!(
            v[side]["id"].as_i64(),
            get(image, "id").as_i64(),
            "{v} vs {t:?}"
        );
    }

    // Closing committed past the delete: a new typed engine on the same
    // offsets sees only what came after.
    db.exec("INSERT INTO w.t (id, ti) VALUES (3, 3)").unwrap();
    let (again, result) = run_typed(
        properties(&db, &start, dir.path()),
        Duration::from_secs(30),
        |r| !r.is_empty(),
    )
    .await;
    result.unwrap();
    assert_eq!(again.len(), 1, "{again:#?}");
    assert_eq!(again[0].op, Operation::Create);
    assert_eq!(get(again[0].after.as_ref().unwrap(), "id"), &Value::Int(3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_batch_consumer_commits_what_it_marked() {
    let dir = tempfile::tempdir().unwrap();
    let (db, start) = setup();
    db.exec("BEGIN; INSERT INTO w.t (id) VALUES (1),(2),(3); INSERT INTO w.t (id) VALUES (4),(5),(6); COMMIT")
        .unwrap();
    // Marks four records, commits, then fails: the committed offset is
    // inside the transaction.
    let got: Arc<Mutex<Vec<i64>>> = Arc::default();
    let sink = got.clone();
    let mut props = properties(&db, &start, dir.path());
    props.push(("max.batch.size".into(), "4".into()));
    let engine = Engine::builder()
        .properties(props)
        .typed_batch_consumer(
            move |records: Vec<TypedRecord>, committer: &mut sluice_engine::Committer<'_>| {
                let mut seen = sink.lock().unwrap();
                if !seen.is_empty() {
                    return Err("crash".into());
                }
                for r in &records {
                    let id = r.after.as_ref().and_then(|a| a.get("id")?.as_i64());
                    seen.push(id.unwrap_or(-1));
                    committer.mark_processed(r);
                }
                committer.mark_batch_finished()?;
                Ok(())
            },
        )
        .build()
        .unwrap();
    let result = tokio::time::timeout(Duration::from_secs(30), engine.run())
        .await
        .unwrap();
    assert!(result.is_err());
    assert_eq!(*got.lock().unwrap(), [1, 2, 3, 4]);

    let (records, result) = run_typed(
        properties(&db, &start, dir.path()),
        Duration::from_secs(30),
        |r| r.len() >= 2,
    )
    .await;
    result.unwrap();
    let ids: Vec<i64> = records
        .iter()
        .filter_map(|r| r.after.as_ref()?.get("id")?.as_i64())
        .collect();
    assert_eq!(ids, [5, 6]);
}
