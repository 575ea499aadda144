//! The initial snapshot (`snapshot.mode=initial`) on a private MariaDB,
//! with a writer changing the tables throughout: the consumer's state
//! (every record applied by key) equals the tables afterwards, no row
//! version goes backwards, the `r` records carry Debezium's markers, a
//! restart resumes after the last chunk committed, and the other modes
//! read no rows.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use sluice_engine::{
    ChangeRecord, Engine, EngineError, EngineHandle, FileOffsetStore, OffsetKey, OffsetStore,
    Operation, TypedRecord,
};
use sluice_testkit::{MariaDb, MariaDbConfig};

const BIG_ROWS: i64 = 4000;

/// Tables with rows: `s.big` (many chunks), `s.comp` (a composite key),
/// `s.nokey` (no key), and `s.zz_empty` (empty, last in order).
fn setup() -> Arc<MariaDb> {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec(
        "CREATE DATABASE s; \
         CREATE TABLE s.big (id INT PRIMARY KEY, ver INT NOT NULL, v VARCHAR(20)); \
         CREATE TABLE s.comp (a INT, b VARCHAR(10), ver INT NOT NULL, PRIMARY KEY (a, b)); \
         CREATE TABLE s.nokey (x INT, y VARCHAR(40)); \
         CREATE TABLE s.zz_empty (id INT PRIMARY KEY); \
         CREATE TABLE s.done (id INT PRIMARY KEY); \
         CREATE DATABASE other; CREATE TABLE other.t (id INT PRIMARY KEY); \
         INSERT INTO other.t VALUES (1), (2)",
    )
    .unwrap();
    for start in (1..=BIG_ROWS).step_by(500) {
        let values: Vec<String> = (start..start + 500)
            .map(|i| format!("({i}, 0, 'v{i}')"))
            .collect();
        db.exec(&format!("INSERT INTO s.big VALUES {}", values.join(",")))
            .unwrap();
    }
    let comp: Vec<String> = (0..30)
        .flat_map(|a| (0..10).map(move |b| format!("({a}, 'b{b}', 0)")))
        .collect();
    db.exec(&format!("INSERT INTO s.comp VALUES {}", comp.join(",")))
        .unwrap();
    let nokey: Vec<String> = (0..40)
        .map(|i| format!("({}, 'n{}')", i % 7, i % 3))
        .collect();
    db.exec(&format!("INSERT INTO s.nokey VALUES {}", nokey.join(",")))
        .unwrap();
    Arc::new(db)
}

/// Inserts, updates and deletes in every table (never reusing a deleted
/// key, `ver` one more on every update) until `stop`.
fn start_writer(db: Arc<MariaDb>, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut i = 0u64;
        while !stop.load(Ordering::SeqCst) {
            let id = (i * 37) % BIG_ROWS as u64 + 1;
            let mut sql = vec![format!(
                "UPDATE s.big SET ver = ver + 1, v = CONCAT('u', ver + 1) WHERE id = {id}"
            )];
            if i.is_multiple_of(3) {
                sql.push(format!(
                    "INSERT INTO s.big VALUES ({}, 0, 'new')",
                    100_000 + i
                ));
            }
            if i.is_multiple_of(5) {
                sql.push(format!(
                    "DELETE FROM s.big WHERE id = {}",
                    (i * 53) % BIG_ROWS as u64 + 1
                ));
            }
            sql.push(format!(
                "UPDATE s.comp SET ver = ver + 1 WHERE a = {} AND b < 'b3'",
                i % 30
            ));
            if i.is_multiple_of(7) {
                sql.push(format!(
                    "DELETE FROM s.comp WHERE a = {} AND b = 'b{}'",
                    (i / 7) % 30,
                    i % 10
                ));
            }
            if i.is_multiple_of(4) {
                sql.push(format!("INSERT INTO s.comp VALUES ({}, 'n', 0)", 1000 + i));
            }
            match i % 6 {
                0 => sql.push(format!("INSERT INTO s.nokey VALUES ({}, 'w{i}')", i % 7)),
                1 => sql.push(format!("DELETE FROM s.nokey WHERE x = {} LIMIT 1", i % 7)),
                2 => sql.push(format!(
                    "UPDATE s.nokey SET y = CONCAT(y, '+') WHERE x = {} LIMIT 1",
                    i % 7
                )),
                _ => {}
            }
            // Some in one transaction, some each on its own.
            let text = if i.is_multiple_of(2) {
                format!("BEGIN; {}; COMMIT", sql.join("; "))
            } else {
                sql.join("; ")
            };
            db.exec(&text).expect("write");
            i += 1;
            std::thread::sleep(Duration::from_millis(5));
        }
        i
    })
}

fn properties(
    db: &MariaDb,
    dir: &std::path::Path,
    extra: &[(&str, &str)],
) -> Vec<(String, String)> {
    let mut props = common::engine_properties(
        "snap",
        db,
        "",
        dir,
        &[
            ("table.include.list", "s\\..*"),
            ("snapshot.fetch.size", "100"),
            ("max.batch.size", "64"),
            // Closing commits what was delivered.
            ("offset.flush.interval.ms", "500"),
        ],
    );
    props.retain(|(k, _)| k != "sluice.start");
    for (k, v) in extra {
        props.retain(|(key, _)| key != k);
        props.push((k.to_string(), v.to_string()));
    }
    props
}

/// An engine running in a task, its records collected.
struct Running<R> {
    records: Arc<Mutex<Vec<R>>>,
    handle: EngineHandle,
    task: tokio::task::JoinHandle<Result<(), EngineError>>,
}

impl<R: Clone> Running<R> {
    async fn wait_for(&self, within: Duration, what: &str, until: impl Fn(&[R]) -> bool) {
        let deadline = tokio::time::Instant::now() + within;
        while tokio::time::Instant::now() < deadline {
            if until(&self.records.lock().unwrap()) {
                return;
            }
            assert!(
                !self.task.is_finished(),
                "the engine stopped waiting for {what}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let got = self.records.lock().unwrap().len();
        panic!("timed out after {within:?} waiting for {what} ({got} records)");
    }

    async fn close(self) -> Vec<R> {
        self.handle.close();
        let result = tokio::time::timeout(Duration::from_secs(30), self.task)
            .await
            .expect("the engine stops")
            .expect("the engine task");
        result.expect("the engine stopped cleanly");
        self.records.lock().unwrap().clone()
    }
}

fn start_json(props: Vec<(String, String)>) -> Running<ChangeRecord> {
    let _ = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_test_writer()
        .try_init();
    let records: Arc<Mutex<Vec<ChangeRecord>>> = Arc::default();
    let sink = records.clone();
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
    Running {
        records,
        handle,
        task,
    }
}

fn value(r: &ChangeRecord) -> Option<Value> {
    r.value.as_deref().map(|v| serde_json::from_str(v).unwrap())
}

/// The record's `op`; `""` for records without one (schema changes).
fn op(r: &ChangeRecord) -> String {
    value(r).map_or("tombstone".into(), |v| {
        v["op"].as_str().unwrap_or("").to_string()
    })
}

fn table_of(r: &ChangeRecord) -> String {
    r.destination.trim_start_matches("snap.").to_string()
}

/// What the consumer holds, every record applied in order: per keyed
/// table the row of each key, per keyless table a multiset of rows.
#[derive(Default)]
struct Replica {
    keyed: HashMap<String, BTreeMap<String, Value>>,
    keyless: HashMap<String, BTreeMap<String, usize>>,
    /// Per `table/key`: the last `ver` seen, and whether it was deleted.
    versions: HashMap<String, (i64, bool)>,
}

impl Replica {
    fn apply(&mut self, r: &ChangeRecord) {
        let Some(v) = value(r) else { return };
        let table = table_of(r);
        let Some(op) = v["op"].as_str().map(str::to_string) else {
            return;
        };
        let (before, after) = (&v["before"], &v["after"]);
        match &r.key {
            Some(key) => {
                let rows = self.keyed.entry(table.clone()).or_default();
                match op.as_str() {
                    "r" | "c" | "u" => {
                        rows.insert(key.clone(), after.clone());
                    }
                    "d" => {
                        rows.remove(key);
                    }
                    other => panic!("op {other}"),
                }
                let seen = self
                    .versions
                    .entry(format!("{table}/{key}"))
                    .or_insert((-1, false));
                assert!(!seen.1, "a record of {table} {key} after its delete: {v}");
                if op == "d" {
                    seen.1 = true;
                } else if let Some(ver) = after["ver"].as_i64() {
                    assert!(
                        ver >= seen.0,
                        "{table} {key}: version {ver} after version {} ({op} record {v})",
                        seen.0
                    );
                    seen.0 = ver;
                }
            }
            None => {
                let rows = self.keyless.entry(table).or_default();
                if !before.is_null() {
                    let k = before.to_string();
                    let n = rows
                        .get_mut(&k)
                        .unwrap_or_else(|| panic!("no row {k} to change"));
                    *n -= 1;
                    if *n == 0 {
                        rows.remove(&k);
                    }
                }
                if !after.is_null() {
                    *rows.entry(after.to_string()).or_default() += 1;
                }
            }
        }
    }

    /// Asserts the state equals the tables now.
    fn assert_equals_source(&self, db: &MariaDb) {
        let big = db.query("SELECT id, ver, v FROM s.big").unwrap();
        let expected: BTreeMap<String, Value> = big
            .iter()
            .map(|r| {
                let id: i64 = r[0].as_deref().unwrap().parse().unwrap();
                let ver: i64 = r[1].as_deref().unwrap().parse().unwrap();
                (
                    format!("{{\"id\":{id}}}"),
                    serde_json::json!({"id": id, "ver": ver, "v": r[2]}),
                )
            })
            .collect();
        let got = self.keyed.get("s.big").cloned().unwrap_or_default();
        assert_eq!(got.len(), expected.len(), "rows of s.big");
        assert!(got == expected, "s.big differs from the source");

        let comp = db.query("SELECT a, b, ver FROM s.comp").unwrap();
        let expected: BTreeMap<String, Value> = comp
            .iter()
            .map(|r| {
                let a: i64 = r[0].as_deref().unwrap().parse().unwrap();
                let b = r[1].clone().unwrap();
                let ver: i64 = r[2].as_deref().unwrap().parse().unwrap();
                (
                    serde_json::json!({"a": a, "b": b}).to_string(),
                    serde_json::json!({"a": a, "b": b, "ver": ver}),
                )
            })
            .collect();
        let got = self.keyed.get("s.comp").cloned().unwrap_or_default();
        assert_eq!(got.len(), expected.len(), "rows of s.comp");
        assert!(got == expected, "s.comp differs from the source");

        let nokey = db.query("SELECT x, y FROM s.nokey").unwrap();
        let mut expected: BTreeMap<String, usize> = BTreeMap::new();
        for r in &nokey {
            let x: i64 = r[0].as_deref().unwrap().parse().unwrap();
            *expected
                .entry(serde_json::json!({"x": x, "y": r[1]}).to_string())
                .or_default() += 1;
        }
        let got = self.keyless.get("s.nokey").cloned().unwrap_or_default();
        assert_eq!(got, expected, "s.nokey differs from the source");
    }
}

fn snapshot_marker(r: &ChangeRecord) -> Option<String> {
    let v = value(r)?;
    (v["op"] == "r").then(|| v["source"]["snapshot"].as_str().unwrap().to_string())
}

fn is_done_record(r: &ChangeRecord) -> bool {
    table_of(r) == "s.done" && op(r) == "c"
}

/// Stops the writer, then writes a last row and waits for it: everything
/// before it was delivered.
async fn finish(
    db: &MariaDb,
    running: &Running<ChangeRecord>,
    stop: &AtomicBool,
    writer: std::thread::JoinHandle<u64>,
) -> u64 {
    stop.store(true, Ordering::SeqCst);
    let writes = writer.join().unwrap();
    db.exec("INSERT INTO s.done VALUES (1)").unwrap();
    running
        .wait_for(Duration::from_secs(120), "the last row written", |rs| {
            rs.iter().any(is_done_record)
        })
        .await;
    writes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_snapshot_and_the_stream_give_the_tables_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = start_writer(db.clone(), stop.clone());
    std::thread::sleep(Duration::from_millis(200));
    let running = start_json(properties(&db, dir.path(), &[]));
    running
        .wait_for(
            Duration::from_secs(120),
            "the snapshot's last record",
            |rs| {
                rs.iter()
                    .any(|r| snapshot_marker(r).as_deref() == Some("last"))
            },
        )
        .await;
    // Changes after the snapshot too.
    std::thread::sleep(Duration::from_millis(300));
    let writes = finish(&db, &running, &stop, writer).await;
    let records = running.close().await;

    let mut replica = Replica::default();
    for r in &records {
        replica.apply(r);
    }
    replica.assert_equals_source(&db);

    // The snapshot's records: before null, after set, Debezium's markers.
    let reads: Vec<&ChangeRecord> = records.iter().filter(|r| op(r) == "r").collect();
    let read_tables: Vec<String> = reads.iter().map(|r| table_of(r)).collect();
    assert!(read_tables.iter().all(|t| t != "other.t" && t != "s.done"));
    for r in &reads {
        let v = value(r).unwrap();
        assert!(v["before"].is_null() && v["after"].is_object(), "{v}");
        assert_eq!(v["source"]["server_id"], 0);
        assert!(v["source"]["file"].as_str().is_some_and(|f| !f.is_empty()));
        assert!(v["source"]["pos"].as_u64().is_some_and(|p| p > 4));
        assert!(v["transaction"].is_null());
    }
    let markers: Vec<String> = reads.iter().map(|r| snapshot_marker(r).unwrap()).collect();
    assert_eq!(markers.first().map(String::as_str), Some("first"));
    assert_eq!(markers.last().map(String::as_str), Some("last"));
    assert_eq!(markers.iter().filter(|m| *m == "first").count(), 1);
    assert_eq!(markers.iter().filter(|m| *m == "last").count(), 1);
    // Tables in name order, each a run of records: its first record starts
    // it (`first` for the very first), its last ends it.
    let mut runs: Vec<(String, usize, usize)> = Vec::new();
    for (i, t) in read_tables.iter().enumerate() {
        match runs.last_mut() {
            Some((table, _, end)) if table == t => *end = i,
            _ => runs.push((t.clone(), i, i)),
        }
    }
    let names: Vec<&str> = runs.iter().map(|(t, _, _)| t.as_str()).collect();
    assert_eq!(
        names,
        ["s.big", "s.comp", "s.nokey"],
        "each table read once, in order"
    );
    for (n, (table, start, end)) in runs.iter().enumerate() {
        let first = if n == 0 {
            "first"
        } else {
            "first_in_data_collection"
        };
        let last = if n + 1 == runs.len() {
            "last"
        } else {
            "last_in_data_collection"
        };
        assert_eq!(markers[*start], first, "{table}");
        assert_eq!(markers[*end], last, "{table}");
        assert!(
            markers[start + 1..*end].iter().all(|m| m == "true"),
            "{table}"
        );
    }
    // Many chunks of s.big, each at its own point, the points in order; and
    // stream changes between them.
    let points: Vec<(String, u64)> = reads
        .iter()
        .filter(|r| table_of(r) == "s.big")
        .map(|r| {
            let v = value(r).unwrap();
            (
                v["source"]["file"].as_str().unwrap().to_string(),
                v["source"]["pos"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut distinct = points.clone();
    distinct.dedup();
    assert!(distinct.len() >= 10, "{} chunk points", distinct.len());
    assert!(
        points.windows(2).all(|w| w[0] <= w[1]),
        "chunk points go forward"
    );
    let first_read = records.iter().position(|r| op(r) == "r").unwrap();
    let last_read = records.iter().rposition(|r| op(r) == "r").unwrap();
    let interleaved = records[first_read..last_read]
        .iter()
        .filter(|r| op(r) != "r")
        .count();
    assert!(interleaved > 0, "stream changes between the chunks");
    assert!(writes > 50, "the writer wrote throughout ({writes} rounds)");

    // Offsets: while the snapshot runs they say so; after it, not.
    let last_read = &records[last_read];
    assert_eq!(last_read.offset.get().snapshot, None);
    let during = records[first_read].offset.get();
    assert_eq!(during.snapshot.as_deref(), Some("INITIAL"));
    assert_eq!(during.snapshot_table.as_deref(), Some("s.big"));
    let after = records.last().unwrap().offset.get();
    assert_eq!((after.snapshot, after.snapshot_table), (None, None));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_resumes_the_snapshot_after_the_last_committed_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = start_writer(db.clone(), stop.clone());
    let props = properties(&db, dir.path(), &[]);

    // Closed once part of s.big was read (every batch is committed).
    let first = start_json(props.clone());
    first
        .wait_for(Duration::from_secs(120), "1000 rows of s.big", |rs| {
            rs.iter().filter(|r| op(r) == "r").count() >= 1000
        })
        .await;
    let first = first.close().await;
    let committed = FileOffsetStore::open(dir.path().join("offsets.dat"))
        .unwrap()
        .load(&OffsetKey::new("snap", "snap"))
        .unwrap()
        .expect("an offset committed");
    assert_eq!(
        committed.snapshot.as_deref(),
        Some("INITIAL"),
        "{committed:?}"
    );
    assert_eq!(committed.snapshot_table.as_deref(), Some("s.big"));
    assert!(committed.snapshot_last_key.is_some());
    let read_before: Vec<i64> = first
        .iter()
        .filter(|r| op(r) == "r")
        .map(|r| value(r).unwrap()["after"]["id"].as_i64().unwrap())
        .collect();
    let last_before = *read_before.iter().max().unwrap();
    assert!(last_before < BIG_ROWS, "closed in the middle of s.big");

    // A new engine on the same offsets goes on from there.
    let second = start_json(props);
    second
        .wait_for(Duration::from_secs(120), "the snapshot's end", |rs| {
            rs.iter()
                .any(|r| snapshot_marker(r).as_deref() == Some("last"))
        })
        .await;
    finish(&db, &second, &stop, writer).await;
    let second = second.close().await;
    let big_reads: Vec<(i64, String)> = second
        .iter()
        .filter(|r| op(r) == "r" && table_of(r) == "s.big")
        .map(|r| {
            (
                value(r).unwrap()["after"]["id"].as_i64().unwrap(),
                snapshot_marker(r).unwrap(),
            )
        })
        .collect();
    assert!(!big_reads.is_empty());
    assert!(
        big_reads.iter().all(|(id, _)| *id > last_before),
        "the resumed snapshot starts after row {last_before}, not from the first chunk: {:?}",
        &big_reads[..3.min(big_reads.len())]
    );
    // Resumed in the middle of a table: no `first` again.
    assert!(big_reads
        .iter()
        .all(|(_, m)| m != "first" && m != "first_in_data_collection"));

    let mut replica = Replica::default();
    for r in first.iter().chain(second.iter()) {
        replica.apply(r);
    }
    replica.assert_equals_source(&db);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_data_and_never_read_no_rows() {
    let db = setup();
    for mode in ["no_data", "never", "schema_only"] {
        let dir = tempfile::tempdir().unwrap();
        let running = start_json(properties(&db, dir.path(), &[("snapshot.mode", mode)]));
        tokio::time::sleep(Duration::from_millis(1500)).await;
        db.exec(&format!("INSERT INTO s.done VALUES ({})", mode.len()))
            .unwrap();
        running
            .wait_for(Duration::from_secs(60), "the row written", move |rs| {
                rs.iter().any(|r| {
                    is_done_record(r)
                        && value(r).unwrap()["after"]["id"].as_u64() == Some(mode.len() as u64)
                })
            })
            .await;
        let records = running.close().await;
        assert!(
            records.iter().all(|r| op(r) != "r"),
            "snapshot.mode={mode}: no snapshot reads"
        );
        let creates = records.iter().filter(|r| op(r) == "c").count();
        match mode {
            // The binlog from its oldest file: the rows inserted, as changes.
            "never" => assert!(creates > BIG_ROWS as usize, "{mode}: {creates}"),
            _ => assert_eq!(creates, 1, "{mode}: only what was written after the start"),
        }
        db.exec("DELETE FROM s.done").unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_consumers_get_reads() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup();
    let records: Arc<Mutex<Vec<TypedRecord>>> = Arc::default();
    let sink = records.clone();
    let engine = Engine::builder()
        .properties(properties(
            &db,
            dir.path(),
            &[("table.include.list", "s\\.comp")],
        ))
        .notifying_typed(move |r| {
            sink.lock().unwrap().push(r);
            Ok(())
        })
        .build()
        .unwrap();
    let handle = engine.handle();
    let task = tokio::spawn(engine.run());
    let running = Running {
        records,
        handle,
        task,
    };
    running
        .wait_for(Duration::from_secs(60), "the 300 rows of s.comp", |rs| {
            rs.len() >= 300
        })
        .await;
    let records = running.close().await;
    assert_eq!(records.len(), 300);
    assert!(records.iter().all(|r| r.op == Operation::Read
        && r.before.is_none()
        && r.table == "comp"
        && r.after
            .as_ref()
            .and_then(|a| a.get("ver"))
            .and_then(|v| v.as_i64())
            == Some(0)));
    let keys: std::collections::BTreeSet<(i64, String)> = records
        .iter()
        .map(|r| {
            let a = r.after.as_ref().unwrap();
            (
                a.get("a").unwrap().as_i64().unwrap(),
                a.get("b").unwrap().as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(keys.len(), 300);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_snapshot_connection_is_made_again() {
    let _ = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_test_writer()
        .try_init();
    let dir = tempfile::tempdir().unwrap();
    let db = setup();
    // A slow consumer: the snapshot takes long enough to lose its
    // connection in the middle.
    let records: Arc<Mutex<Vec<ChangeRecord>>> = Arc::default();
    let sink = records.clone();
    let engine = Engine::builder()
        .properties(properties(&db, dir.path(), &[]))
        .notifying(move |r| {
            std::thread::sleep(Duration::from_micros(300));
            sink.lock().unwrap().push(r);
            Ok(())
        })
        .build()
        .unwrap();
    let handle = engine.handle();
    let task = tokio::spawn(engine.run());
    let running = Running {
        records,
        handle,
        task,
    };
    running
        .wait_for(Duration::from_secs(60), "500 rows of s.big", |rs| {
            rs.iter().filter(|r| op(r) == "r").count() >= 500
        })
        .await;
    // Every connection but the replication stream's and this one.
    let ids = db
        .query(
            "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = 'root' \
             AND ID <> CONNECTION_ID() AND COMMAND NOT LIKE 'Binlog Dump%'",
        )
        .unwrap();
    assert!(!ids.is_empty());
    for id in ids {
        let _ = db.exec(&format!("KILL {}", id[0].as_deref().unwrap()));
    }
    running
        .wait_for(Duration::from_secs(120), "the snapshot's end", |rs| {
            rs.iter()
                .any(|r| snapshot_marker(r).as_deref() == Some("last"))
        })
        .await;
    let records = running.close().await;
    // Each row once: the chunk that lost its connection was read again,
    // not delivered twice.
    let mut seen = std::collections::HashSet::new();
    for r in records
        .iter()
        .filter(|r| op(r) == "r" && table_of(r) != "s.nokey")
    {
        assert!(
            seen.insert((table_of(r), r.key.clone())),
            "{:?} twice",
            r.key
        );
    }
    let mut replica = Replica::default();
    for r in &records {
        replica.apply(r);
    }
    replica.assert_equals_source(&db);
}
