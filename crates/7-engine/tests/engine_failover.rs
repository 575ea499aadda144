//! Three processes embedding the engine (the `replica` example) on a
//! 3-node ZooKeeper ensemble and a private MariaDB, a writer inserting
//! rows all along; offsets and schema history in ZooKeeper, a commit after
//! every batch.
//!
//! - Only one process delivers at a time.
//! - kill -9 of the leader: another delivers within the session timeout
//!   plus one second, from the offset the dead one committed.
//! - SIGSTOP of the new leader past the session timeout: a third takes
//!   over; the stopped one, continued, delivers nothing more (from the
//!   processes' own delivery logs: its last delivery comes before the
//!   first of its successor).
//! - Every row written is delivered; a row is delivered twice only if its
//!   first delivery came after the last commit of a process that was then
//!   killed or stopped.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{now_ns, start_writer, wait_until, Replica};
use serde_json::Value;
use sluice_testkit::{MariaDb, MariaDbConfig, ZooKeeperEnsemble};

const SESSION_TIMEOUT: Duration = Duration::from_millis(4000);

fn properties(db: &MariaDb, zk: &str, start: &str, id: &str) -> String {
    format!(
        "name=app\n\
         topic.prefix=app\n\
         database.hostname=127.0.0.1\n\
         database.port={port}\n\
         database.user=root\n\
         database.password=\n\
         database.server.id=5401\n\
         table.include.list=w\\\\.t\n\
         sluice.start={start}\n\
         converter.schemas.enable=false\n\
         offset.storage=zookeeper\n\
         offset.storage.zookeeper.connect.string={zk}\n\
         offset.storage.zookeeper.path=/app/offsets\n\
         schema.history.internal=zookeeper\n\
         schema.history.internal.zookeeper.connect.string={zk}\n\
         schema.history.internal.zookeeper.path=/app/history\n\
         offset.flush.interval.ms=0\n\
         leader.latch.zookeeper.connect.string={zk}\n\
         leader.latch.path=/app/leader\n\
         leader.latch.id={id}\n\
         leader.latch.session.timeout.ms={timeout}\n",
        port = db.port(),
        timeout = SESSION_TIMEOUT.as_millis(),
    )
}

fn id_of(record: &Value) -> Option<i64> {
    record["key"]["id"].as_i64()
}

/// The delivering process: the one whose log grows.
fn deliverer(replicas: &[Replica], after_ns: u64) -> Option<usize> {
    replicas.iter().position(|r| {
        r.child.is_some()
            && r.records()
                .iter()
                .any(|l| l["t_ns"].as_u64().unwrap_or(0) > after_ns)
    })
}

#[test]
fn three_processes_fail_over_without_loss_or_overlap() {
    let dir = tempfile::tempdir().unwrap();
    let zk = ZooKeeperEnsemble::start(3).unwrap();
    let db = Arc::new(MariaDb::start(MariaDbConfig::default()).unwrap());
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id BIGINT PRIMARY KEY, v VARCHAR(64))")
        .unwrap();
    let (file, pos) = db.current_binlog_position().unwrap();
    let start = format!("{file}:{pos}");

    let mut replicas: Vec<Replica> = (0..3)
        .map(|i| {
            let name = format!("replica-{i}");
            let props = dir.path().join(format!("{name}.properties"));
            std::fs::write(&props, properties(&db, &zk.connect_string(), &start, &name)).unwrap();
            Replica::spawn(dir.path(), &name, &props)
        })
        .collect();

    let stop = Arc::new(AtomicBool::new(false));
    let writer = start_writer(db.clone(), stop.clone());

    // Phase 1: one leader delivers.
    wait_until(Duration::from_secs(60), "a first delivery", || {
        replicas.iter().any(|r| r.records().len() >= 60)
    });
    let first = deliverer(&replicas, 0).unwrap();
    for (i, r) in replicas.iter().enumerate() {
        if i != first {
            assert!(
                r.records().is_empty(),
                "{} delivered while {} led",
                r.name,
                replicas[first].name
            );
        }
    }

    // Phase 2: kill -9 the leader.
    let killed_at = now_ns();
    replicas[first].kill();
    let mut second = None;
    wait_until(
        SESSION_TIMEOUT * 3,
        "a delivery by another process after the kill",
        || {
            second = deliverer(&replicas, killed_at);
            second.is_some()
        },
    );
    let second = second.unwrap();
    let took_over = replicas[second]
        .records()
        .iter()
        .filter_map(|l| l["t_ns"].as_u64())
        .find(|t| *t > killed_at)
        .unwrap();
    let takeover = Duration::from_nanos(took_over - killed_at);
    eprintln!(
        "kill -9: {} delivers {takeover:?} after the kill",
        replicas[second].name
    );
    assert!(
        takeover <= SESSION_TIMEOUT + Duration::from_secs(1),
        "takeover took {takeover:?}, more than the session timeout + 1 s"
    );

    // Phase 3: SIGSTOP the new leader past the session timeout.
    std::thread::sleep(Duration::from_millis(500));
    let stopped_at = now_ns();
    replicas[second].signal(libc::SIGSTOP);
    let mut third = None;
    wait_until(
        SESSION_TIMEOUT * 3,
        "a delivery by the third process",
        || {
            third = replicas.iter().enumerate().position(|(i, r)| {
                i != second
                    && r.child.is_some()
                    && r.records()
                        .iter()
                        .any(|l| l["t_ns"].as_u64().unwrap_or(0) > stopped_at)
            });
            third.is_some()
        },
    );
    let third = third.unwrap();
    std::thread::sleep(SESSION_TIMEOUT);
    replicas[second].signal(libc::SIGCONT);
    // The continued process has every chance to deliver now, if it would.
    std::thread::sleep(Duration::from_secs(3));

    // Phase 4: stop writing, wait for every row.
    stop.store(true, Ordering::SeqCst);
    let written = writer.join().unwrap();
    let all_ids = |replicas: &[Replica]| -> BTreeSet<i64> {
        replicas
            .iter()
            .flat_map(|r| r.records())
            .filter_map(|l| id_of(&l))
            .collect()
    };
    wait_until(Duration::from_secs(60), "every row delivered", || {
        all_ids(&replicas).len() as i64 == written
    });
    // The leader last, so that nobody takes over while the others stop.
    let mut order: Vec<usize> = (0..replicas.len()).filter(|i| *i != third).collect();
    order.push(third);
    for i in order {
        let r = &mut replicas[i];
        if r.child.is_some() {
            assert!(
                r.terminate(Duration::from_secs(20)),
                "{} did not stop cleanly:\n{}",
                r.name,
                r.stderr_text()
            );
        }
    }

    // No two processes delivering at once: the stopped one's deliveries all
    // come before the first of its successor after the stop.
    let second_last = replicas[second]
        .records()
        .iter()
        .filter_map(|l| l["t_ns"].as_u64())
        .max()
        .unwrap();
    let third_first = replicas[third]
        .records()
        .iter()
        .filter_map(|l| l["t_ns"].as_u64())
        .filter(|t| *t > stopped_at)
        .min()
        .unwrap();
    assert!(
        second_last < third_first,
        "{} delivered at {second_last} after {} started at {third_first}",
        replicas[second].name,
        replicas[third].name
    );
    assert!(
        second_last < stopped_at,
        "{} delivered after it was continued",
        replicas[second].name
    );
    let first_last = replicas[first]
        .records()
        .iter()
        .filter_map(|l| l["t_ns"].as_u64())
        .max()
        .unwrap();
    assert!(first_last < took_over);

    // Every row, and duplicates only of rows not committed by a process
    // that then died or stopped.
    let ids = all_ids(&replicas);
    let missing: Vec<i64> = (0..written).filter(|i| !ids.contains(i)).collect();
    assert!(missing.is_empty(), "rows never delivered: {missing:?}");
    let mut deliveries: BTreeMap<i64, Vec<(u64, usize)>> = BTreeMap::new();
    for (p, r) in replicas.iter().enumerate() {
        for l in r.records() {
            if let (Some(id), Some(t)) = (id_of(&l), l["t_ns"].as_u64()) {
                deliveries.entry(id).or_default().push((t, p));
            }
        }
    }
    let last_commit = |p: usize| -> u64 {
        replicas[p]
            .lines()
            .iter()
            .filter(|l| l["kind"] == "commit")
            .filter_map(|l| l["t_ns"].as_u64())
            .max()
            .unwrap_or(0)
    };
    let mut duplicates = 0;
    for (id, mut d) in deliveries {
        if d.len() < 2 {
            continue;
        }
        duplicates += 1;
        d.sort();
        let (t, p) = d[0];
        assert!(
            (p == first || p == second) && t > last_commit(p),
            "row {id} delivered again though its first delivery (by {} at {t}) was committed",
            replicas[p].name
        );
    }
    eprintln!(
        "{written} rows, {duplicates} delivered twice (after the last commit of a failed leader)"
    );
}
