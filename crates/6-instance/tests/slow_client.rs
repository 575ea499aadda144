//! One absent client id never stalls the others, and loses nothing: three
//! clients of one destination, one of them gone while 100,000 transactions
//! are written. The two present clients receive every row while it is gone
//! (the store detaches it once it keeps the store full); when it comes
//! back, far behind what the store holds, it resumes from its own cursor
//! through a binlog stream of its own and receives every row after it, in
//! order.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use prost::Message;
use sluice_canal::proto::{Entry, EntryType, RowChange};
use sluice_config::ServerConfig;
use sluice_instance::manager::InstanceManager;
use sluice_meta::{CursorStore, FileCursorStore};
use sluice_store::{Destination, Destinations, GetWait};
use sluice_testkit::{MariaDb, MariaDbConfig};

const TRANSACTIONS: u32 = 100_000;

/// The ids inserted into `w.t` by a batch.
fn ids(entries: &[sluice_store::EntryBytes]) -> Vec<u32> {
    let mut out = Vec::new();
    for e in entries {
        let e = Entry::decode(e.as_ref()).unwrap();
        if e.entry_type != Some(EntryType::RowData as i32) {
            continue;
        }
        let rc = RowChange::decode(e.store_value.as_deref().unwrap_or(&[])).unwrap();
        for rd in rc.row_datas {
            if let Some(v) = rd.after_columns.first().and_then(|c| c.value.clone()) {
                out.push(v.parse().unwrap());
            }
        }
    }
    out
}

/// Gets and acks until `until` rows (counting `have`) arrived or the
/// deadline passes; returns the ids in delivery order.
async fn consume(
    d: Arc<dyn Destination>,
    client: i16,
    until: usize,
    deadline: Duration,
) -> Vec<u32> {
    let mut got = Vec::new();
    let end = tokio::time::Instant::now() + deadline;
    while got.len() < until && tokio::time::Instant::now() < end {
        let b = match d
            .get(client, 1000, GetWait::AtMost(Duration::from_millis(200)))
            .await
        {
            Ok(b) => b,
            Err(e) => panic!("client {client}: {e}"),
        };
        if b.id < 0 {
            continue;
        }
        got.extend(ids(&b.entries));
        d.ack(client, b.id).unwrap();
        d.durable().await.unwrap();
    }
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_absent_client_holds_nobody_back_and_resumes_from_its_cursor() {
    let db = Arc::new(MariaDb::start(MariaDbConfig::default()).unwrap());
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT UNSIGNED PRIMARY KEY)")
        .unwrap();
    let conf = tempfile::tempdir().unwrap();
    std::fs::write(conf.path().join("canal.properties"), "").unwrap();
    std::fs::create_dir_all(conf.path().join("example")).unwrap();
    std::fs::write(
        conf.path().join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.master.journal.name = binlog.000001\n\
             canal.instance.master.position = 4\n\
             canal.instance.filter.regex = w\\\\..*\n\
             canal.instance.memory.buffer.size = 4096\n\
             sluice.instance.slowClient.detachAfter = 1000\n",
            db.port()
        ),
    )
    .unwrap();
    let server = ServerConfig::load(conf.path()).unwrap();
    let cursors: Arc<dyn CursorStore> =
        Arc::new(FileCursorStore::new(&server.destinations.data_dir));
    let m = InstanceManager::new(
        server.destinations,
        cursors,
        InstanceManager::schema_tracking(),
    );
    assert!(m.start_all().is_empty());
    let d = m.destination("example").unwrap();
    for c in [1001, 1002, 1003] {
        d.subscribe(c, "").unwrap();
    }

    // Client 1003 takes the first 10 transactions, acks them, and goes.
    db.exec(
        "CREATE PROCEDURE w.fill(a INT, b INT) BEGIN DECLARE i INT DEFAULT a; \
         WHILE i < b DO INSERT INTO w.t VALUES (i); SET i = i + 1; END WHILE; END",
    )
    .unwrap();
    db.exec("CALL w.fill(0, 10)").unwrap();
    let first = consume(d.clone(), 1003, 10, Duration::from_secs(30)).await;
    assert_eq!(first, (0..10).collect::<Vec<_>>());

    // 100,000 more transactions (autocommit: one per row) while 1003 is gone.
    let present: Vec<_> = [1001i16, 1002]
        .into_iter()
        .map(|c| {
            tokio::spawn(consume(
                d.clone(),
                c,
                10 + TRANSACTIONS as usize,
                Duration::from_secs(300),
            ))
        })
        .collect();
    let writer = {
        let db = db.clone();
        tokio::task::spawn_blocking(move || {
            db.exec(&format!("CALL w.fill(10, {})", 10 + TRANSACTIONS))
        })
    };
    writer.await.unwrap().unwrap();
    for (c, task) in [1001, 1002].into_iter().zip(present) {
        let got = task.await.unwrap();
        assert_eq!(
            got.len(),
            10 + TRANSACTIONS as usize,
            "client {c} was held back by the absent client"
        );
        assert!(
            got.iter().copied().eq(0..10 + TRANSACTIONS),
            "client {c}: every row once, in order"
        );
    }

    // 1003 comes back far behind the store: every row after its cursor.
    let back = consume(
        d.clone(),
        1003,
        TRANSACTIONS as usize,
        Duration::from_secs(300),
    )
    .await;
    let distinct: BTreeSet<u32> = back.iter().copied().collect();
    assert_eq!(
        distinct,
        (10..10 + TRANSACTIONS).collect(),
        "client 1003 resumes after its cursor and misses nothing"
    );
    assert!(
        back.windows(2).all(|w| w[0] < w[1]),
        "client 1003: in order, no duplicates"
    );
    m.stop_all().await;
}
