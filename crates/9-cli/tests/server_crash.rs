//! `sluice server` killed with SIGKILL at random moments, again and again,
//! while rows are written and consumed over Canal's TCP protocol: every row
//! arrives, in order, and the only duplicates are rows of transactions that
//! were not complete in an acked batch the server had confirmed (cursors sit
//! at transaction boundaries, so a transaction cut by a batch boundary is
//! replayed whole).

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{connect_example, insert_ids, spawn_server, write_example_instance};
use sluice_client::{Connector, TimeUnit};
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};

const ROWS: i64 = 3000;
const KILLS: usize = 20;

fn write_conf(dir: &Path, db_port: u16, canal_port: u16) {
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.port = {canal_port}\ncanal.destinations = example\ncanal.auto.scan = false\ncanal.instance.memory.buffer.size = 256\n"
        ),
    )
    .unwrap();
    write_example_instance(dir, db_port, r"w\\..*");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_at_random_moments_loses_nothing() {
    let db = Arc::new(MariaDb::start(MariaDbConfig::default()).unwrap());
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v VARCHAR(64))")
        .unwrap();
    let conf = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    write_conf(conf.path(), db.port(), port);
    let log = conf.path().join("server.log");
    let addr = format!("127.0.0.1:{port}");

    let writing = Arc::new(AtomicBool::new(true));
    let writer = {
        let db = db.clone();
        let writing = writing.clone();
        std::thread::spawn(move || {
            for t in 0..(ROWS / 3) {
                let stmts: Vec<String> = (0..3)
                    .map(|i| format!("INSERT INTO w.t VALUES ({0}, 'row {0}')", t * 3 + i))
                    .collect();
                db.exec(&format!("BEGIN; {}; COMMIT", stmts.join("; ")))
                    .unwrap();
                std::thread::sleep(Duration::from_millis(8));
            }
            writing.store(false, Ordering::SeqCst);
        })
    };

    let mut server = spawn_server(conf.path(), &log);
    let mut client = connect_example(&addr, Duration::from_secs(30)).await;
    let mut delivered: Vec<i64> = Vec::new();
    // Rows of transactions completed in batches whose ack the server
    // confirmed (a later reply on the same connection proves it processed it).
    let mut confirmed: BTreeSet<i64> = BTreeSet::new();
    let mut pending_ack: Vec<i64> = Vec::new();
    let mut open_txn: Vec<i64> = Vec::new();
    let mut kills = 0;
    let mut next_kill = Instant::now() + Duration::from_millis(150);
    let mut seen: BTreeSet<i64> = BTreeSet::new();
    let deadline = Instant::now() + Duration::from_secs(240);
    while ((seen.len() as i64) < ROWS || kills < KILLS) && Instant::now() < deadline {
        if kills < KILLS && Instant::now() >= next_kill {
            server.kill().unwrap();
            server.wait().unwrap();
            kills += 1;
            server = spawn_server(conf.path(), &log);
            client = connect_example(&addr, Duration::from_secs(30)).await;
            pending_ack.clear();
            open_txn.clear();
            next_kill = Instant::now() + Duration::from_millis(100 + (kills as u64 * 37) % 250);
            continue;
        }
        let msg = match client
            .get_without_ack(50, Some(100), TimeUnit::Milliseconds)
            .await
        {
            Ok(m) => m,
            Err(_) => {
                client = connect_example(&addr, Duration::from_secs(30)).await;
                pending_ack.clear();
                open_txn.clear();
                continue;
            }
        };
        // This reply proves the previous ack was processed.
        confirmed.extend(pending_ack.drain(..));
        if msg.id < 0 {
            continue;
        }
        let (ids, complete) = insert_ids(&msg.entries, &mut open_txn);
        for id in &ids {
            assert!(
                !confirmed.contains(id),
                "row {id} delivered again although its transaction was acked and confirmed"
            );
        }
        delivered.extend(&ids);
        seen.extend(&ids);
        if client.ack(msg.id).await.is_ok() {
            pending_ack = complete;
        }
    }
    writer.join().unwrap();
    assert!(!writing.load(Ordering::SeqCst));
    let _ = server.kill();
    let _ = server.wait();
    assert!(kills >= KILLS, "only {kills} kills happened");
    let missing: Vec<i64> = (0..ROWS).filter(|i| !seen.contains(i)).take(10).collect();
    assert!(
        missing.is_empty(),
        "rows never delivered (first 10): {missing:?}; server log in {}",
        log.display()
    );
    // In order: each replay restarts at an earlier row, then runs forward.
    let mut highest = -1;
    for w in delivered.windows(2) {
        if w[1] <= w[0] {
            assert!(
                w[1] > highest - 200,
                "replay went back too far: {} after {}",
                w[1],
                w[0]
            );
        }
        highest = highest.max(w[0]);
    }
    eprintln!(
        "{kills} kills; {} rows delivered for {ROWS} written ({} duplicates)",
        delivered.len(),
        delivered.len() as i64 - ROWS
    );
}
