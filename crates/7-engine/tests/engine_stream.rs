//! The engine in this process, on a private MariaDB: records in order with
//! Debezium's offsets, closing, a failing consumer, and resuming from a
//! committed offset inside a transaction (nothing up to it again, nothing
//! after it lost).

mod common;

use common::run_until;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use sluice_engine::{ChangeRecord, Engine};
use sluice_testkit::{BinlogRowImage, MariaDb, MariaDbConfig};

fn properties(db: &MariaDb, start: &str, dir: &std::path::Path) -> Vec<(String, String)> {
    common::engine_properties("it", db, start, dir, &[("table.include.list", "w\\.t")])
}

fn setup() -> (MariaDb, String) {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v VARCHAR(10)); CREATE TABLE w.other (id INT PRIMARY KEY)")
        .unwrap();
    let (file, pos) = db.current_binlog_position().unwrap();
    (db, format!("{file}:{pos}"))
}

fn value(r: &ChangeRecord) -> Value {
    serde_json::from_str(r.value.as_deref().unwrap_or("null")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_carry_debezium_offsets_and_closing_commits() {
    let dir = tempfile::tempdir().unwrap();
    let (db, start) = setup();
    // One rows event of three rows, then a transaction of another table,
    // then a delete (with its tombstone).
    db.exec("INSERT INTO w.t VALUES (1,'a'),(2,'b'),(3,'c')")
        .unwrap();
    db.exec("INSERT INTO w.other VALUES (1)").unwrap();
    db.exec("DELETE FROM w.t WHERE id = 2").unwrap();
    let (records, result) = run_until(
        properties(&db, &start, dir.path()),
        Duration::from_secs(30),
        |r| r.len() >= 5,
    )
    .await;
    result.unwrap();
    assert_eq!(records.len(), 5, "{records:#?}");
    let ops: Vec<String> = records
        .iter()
        .map(|r| value(r)["op"].as_str().unwrap_or("tombstone").to_string())
        .collect();
    assert_eq!(ops, ["c", "c", "c", "d", "tombstone"]);
    // The three rows of one rows event: same transaction place and event
    // count, rows 1, 2, 3 (Debezium's offsets inside a transaction).
    let first = &records[0].offset;
    assert!(first.get().is_inside_transaction());
    for (i, r) in records[..3].iter().enumerate() {
        assert_eq!(r.offset.base.file, first.base.file);
        assert_eq!(r.offset.base.pos, first.base.pos);
        assert_eq!(r.offset.event, first.event);
        assert_eq!(r.offset.row, i as u64 + 1);
        assert!(
            r.offset.event >= 2,
            "BEGIN and TABLE_MAP come first: {:?}",
            r.offset
        );
        assert!(value(r)["source"]["pos"].as_u64().is_some());
    }
    // A delete and its tombstone share the offset of their row.
    assert_eq!(records[3].offset, records[4].offset);
    assert!(records[3].offset.base.pos > first.base.pos);

    // Closing committed the position after the last transaction read.
    let stored = std::fs::read(dir.path().join("offsets.dat")).unwrap();
    assert!(!stored.is_empty());
    let (records2, result) = run_until(
        properties(&db, &start, dir.path()),
        Duration::from_secs(3),
        |_| false,
    )
    .await;
    result.unwrap();
    assert!(
        records2.is_empty(),
        "after a clean close nothing comes again: {records2:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_consumer_stops_the_engine_with_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let (db, start) = setup();
    db.exec("INSERT INTO w.t VALUES (1,'a')").unwrap();
    let completed: Arc<Mutex<Option<String>>> = Arc::default();
    let seen = completed.clone();
    let engine = Engine::builder()
        .properties(properties(&db, &start, dir.path()))
        .notifying(|_| Err("disk full".into()))
        .on_complete(move |r| *seen.lock().unwrap() = Some(format!("{r:?}")))
        .build()
        .unwrap();
    let result = tokio::time::timeout(Duration::from_secs(30), engine.run())
        .await
        .expect("the engine stops");
    let e = result.unwrap_err().to_string();
    assert!(e.contains("disk full"), "{e}");
    let c = completed.lock().unwrap().clone().unwrap();
    assert!(c.contains("Err") && c.contains("disk full"), "{c}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_source_without_full_row_images_is_refused_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let db =
        MariaDb::start(MariaDbConfig::default().binlog_row_image(BinlogRowImage::Minimal)).unwrap();
    let (file, pos) = db.current_binlog_position().unwrap();
    let engine = Engine::builder()
        .properties(properties(&db, &format!("{file}:{pos}"), dir.path()))
        .notifying(|_| Ok(()))
        .build()
        .unwrap();
    let result = tokio::time::timeout(Duration::from_secs(30), engine.run())
        .await
        .expect("the engine stops");
    let e = result.unwrap_err().to_string();
    for part in [
        "binlog_row_image is MINIMAL, but Sluice needs FULL",
        "Debezium's change events, whose before and after are whole rows",
        "SET GLOBAL binlog_row_image = 'FULL'",
    ] {
        assert!(e.contains(part), "{part:?} not in: {e}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_inside_a_transaction_skips_exactly_what_was_committed() {
    let dir = tempfile::tempdir().unwrap();
    let (db, start) = setup();
    // One transaction, two rows events of three rows each.
    db.exec("BEGIN; INSERT INTO w.t VALUES (1,'a'),(2,'b'),(3,'c'); INSERT INTO w.t VALUES (4,'d'),(5,'e'),(6,'f'); COMMIT")
        .unwrap();

    // A consumer that handles four records, commits, then fails: the
    // committed offset is inside the transaction (the second rows event,
    // row 1).
    let got: Arc<Mutex<Vec<i64>>> = Arc::default();
    let sink = got.clone();
    let mut props = properties(&db, &start, dir.path());
    props.push(("max.batch.size".into(), "4".into()));
    let engine = Engine::builder()
        .properties(props)
        .batch_consumer(
            move |records: Vec<ChangeRecord>, committer: &mut sluice_engine::Committer<'_>| {
                let mut seen = sink.lock().unwrap();
                if !seen.is_empty() {
                    return Err("crash".into());
                }
                for r in &records {
                    seen.push(value(r)["after"]["id"].as_i64().unwrap());
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

    // A new engine resumes after row 4: rows 5 and 6, nothing before.
    let (records, result) = run_until(
        properties(&db, &start, dir.path()),
        Duration::from_secs(30),
        |r| r.len() >= 2,
    )
    .await;
    result.unwrap();
    let ids: Vec<i64> = records
        .iter()
        .map(|r| value(r)["after"]["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [5, 6]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_stream_commits_once_the_flush_interval_passed() {
    use sluice_engine::{FileOffsetStore, OffsetKey, OffsetStore};

    let dir = tempfile::tempdir().unwrap();
    let (db, start) = setup();
    db.exec("INSERT INTO w.t VALUES (1,'a')").unwrap();
    let every = Duration::from_secs(3);
    let mut props = properties(&db, &start, dir.path());
    for (k, v) in props.iter_mut() {
        if k == "offset.flush.interval.ms" {
            *v = every.as_millis().to_string();
        }
    }
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
    let started = std::time::Instant::now();
    let running = tokio::spawn(engine.run());
    let committed = || {
        FileOffsetStore::open(dir.path().join("offsets.dat"))
            .and_then(|mut s| s.load(&OffsetKey::new("it".to_string(), "it".to_string())))
            .unwrap()
    };
    while got.lock().unwrap().is_empty() {
        assert!(started.elapsed() < Duration::from_secs(30), "no record");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Delivered before the interval passed: the batch did not commit.
    assert!(
        started.elapsed() < every,
        "the record came after {:?}: too late to tell a batch commit from an idle one",
        started.elapsed()
    );
    assert_eq!(committed(), None);
    // No new batch arrives; the interval passes and the offset is written
    // while the engine still runs.
    let record_pos = got.lock().unwrap()[0].offset.base.pos;
    let deadline = started + every + Duration::from_secs(5);
    let stored = loop {
        if let Some(o) = committed() {
            break o;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "nothing committed {:?} after the start",
            started.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(!running.is_finished());
    assert!(started.elapsed() >= every);
    // Past the transaction of the record, not inside it.
    assert!(!stored.is_inside_transaction(), "{stored:?}");
    assert!(stored.pos > record_pos, "{stored:?}");
    handle.close();
    running.await.unwrap().unwrap();
}
