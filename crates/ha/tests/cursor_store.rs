//! Cursors and subscriptions in ZooKeeper, byte for byte as Canal keeps
//! them, and the period-mixed wrapper, against a real ZooKeeper.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use sluice_canal::LogPosition;
use sluice_ha::zookeeper_client::{Client, CreateMode};
use sluice_ha::{PeriodMixedCursorStore, ZkConfig, ZooKeeperCursorStore};
use sluice_meta::{ClientData, ClientIdentity, CursorStore, DestinationMeta};
use sluice_testkit::ZooKeeperEnsemble;

/// A cursor node exactly as Canal writes it (from the spec).
const CANAL_CURSOR: &str = r#"{"@type":"com.alibaba.otter.canal.protocol.position.LogPosition","identity":{"slaveId":-1,"sourceAddress":{"address":"main-db5","port":3306}},"postion":{"gtid":"","included":false,"journalName":"mysql-bin.000003","position":1790,"serverId":1,"timestamp":1729425993000}}"#;

const DEST: &str = "/otter/canal/destinations/example";

fn store(servers: &str) -> ZooKeeperCursorStore {
    ZooKeeperCursorStore::connect(
        ZkConfig::new(servers).with_session_timeout(Duration::from_secs(4)),
    )
    .unwrap()
}

/// A period-mixed store whose period never comes, written only while the
/// returned flag is true.
fn guarded(
    servers: &str,
) -> (
    PeriodMixedCursorStore<ZooKeeperCursorStore>,
    Arc<AtomicBool>,
) {
    let running = Arc::new(AtomicBool::new(true));
    let flag = running.clone();
    let mixed = PeriodMixedCursorStore::with_guard(
        store(servers),
        Duration::from_secs(3600),
        Arc::new(move |_dest: &str| flag.load(Ordering::SeqCst)),
    );
    (mixed, running)
}

fn client_data(id: i16, filter: &str, cursor: Option<LogPosition>) -> ClientData {
    ClientData {
        client_identity: ClientIdentity {
            client_id: id,
            destination: "example".into(),
            filter: filter.into(),
        },
        cursor,
    }
}

fn position(file: &str, pos: u64) -> LogPosition {
    let mut p = LogPosition::from_json(CANAL_CURSOR).unwrap();
    p.postion.journal_name = file.into();
    p.postion.position = pos;
    p
}

fn text(bytes: Option<(Vec<u8>, i64)>) -> Option<String> {
    bytes.map(|(b, _)| String::from_utf8(b).unwrap())
}

#[test]
fn reads_what_canal_wrote_and_writes_it_back_byte_for_byte() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let rt = runtime();
    let raw: Client = rt.block_on(async {
        let raw = raw(&servers).await;
        // Canal's nodes: a subscription with filter and cursor, and the
        // destination's other children, which are not clients.
        raw_create(&raw, &format!("{DEST}/1001"), b"", CreateMode::Persistent).await;
        raw_create(
            &raw,
            &format!("{DEST}/1001/filter"),
            br"shop\..*",
            CreateMode::Persistent,
        )
        .await;
        raw_create(
            &raw,
            &format!("{DEST}/1001/cursor"),
            CANAL_CURSOR.as_bytes(),
            CreateMode::Persistent,
        )
        .await;
        raw_create(
            &raw,
            &format!("{DEST}/running"),
            br#"{"active":true,"address":"10.0.0.5:11111"}"#,
            CreateMode::Ephemeral,
        )
        .await;
        raw_create(
            &raw,
            &format!("{DEST}/cluster/10.0.0.5:11111"),
            b"",
            CreateMode::Ephemeral,
        )
        .await;
        raw
    });

    let store = store(&servers);
    let meta = store.load("example").unwrap();
    assert_eq!(meta.destination, "example");
    assert_eq!(
        meta.client_datas,
        vec![client_data(
            1001,
            r"shop\..*",
            Some(LogPosition::from_json(CANAL_CURSOR).unwrap())
        )]
    );

    // A fresh store (nothing cached) writes every node: the same bytes.
    drop(store);
    let store = self::store(&servers);
    rt.block_on(async {
        raw.delete(&format!("{DEST}/1001/cursor"), None)
            .await
            .unwrap()
    });
    store.save(&meta).unwrap();
    let cursor = rt.block_on(raw_get(&raw, &format!("{DEST}/1001/cursor")));
    assert_eq!(text(cursor).as_deref(), Some(CANAL_CURSOR));
    let filter = rt.block_on(raw_get(&raw, &format!("{DEST}/1001/filter")));
    assert_eq!(text(filter).as_deref(), Some(r"shop\..*"));

    // An ack moves the cursor: only the position changes.
    let mut moved = meta.clone();
    moved.client_datas[0].cursor = Some(position("mysql-bin.000004", 4));
    store.save(&moved).unwrap();
    let cursor = text(rt.block_on(raw_get(&raw, &format!("{DEST}/1001/cursor")))).unwrap();
    assert_eq!(
        cursor,
        CANAL_CURSOR
            .replace("mysql-bin.000003", "mysql-bin.000004")
            .replace("\"position\":1790", "\"position\":4")
    );
    // The destination's other children are untouched.
    assert!(rt
        .block_on(raw_get(&raw, &format!("{DEST}/running")))
        .is_some());
    assert!(rt
        .block_on(raw_get(&raw, &format!("{DEST}/cluster/10.0.0.5:11111")))
        .is_some());
}

#[test]
fn subscriptions_round_trip_and_unsubscribe_removes_everything() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let rt = runtime();
    let raw = rt.block_on(raw(&servers));
    let store = store(&servers);
    assert!(store.load("example").unwrap().client_datas.is_empty());

    let meta = DestinationMeta {
        client_datas: vec![
            client_data(1001, "shop.orders", Some(position("mysql-bin.000001", 120))),
            client_data(1002, "  ", None),
        ],
        destination: "example".into(),
    };
    store.save(&meta).unwrap();
    rt.block_on(async {
        let (data, owner) = raw_get(&raw, &format!("{DEST}/1001")).await.unwrap();
        assert!(data.is_empty());
        assert_eq!(owner, 0, "subscriptions are persistent");
        assert_eq!(
            text(raw_get(&raw, &format!("{DEST}/1001/filter")).await).as_deref(),
            Some("shop.orders")
        );
        assert!(raw_get(&raw, &format!("{DEST}/1002")).await.is_some());
        // Blank filter: no node; no cursor yet: no node.
        assert!(raw_get(&raw, &format!("{DEST}/1002/filter"))
            .await
            .is_none());
        assert!(raw_get(&raw, &format!("{DEST}/1002/cursor"))
            .await
            .is_none());
    });
    // A fresh store reads the same (blank filter comes back empty).
    let other = self::store(&servers);
    let mut expected = meta.clone();
    expected.client_datas[1].client_identity.filter = String::new();
    assert_eq!(other.load("example").unwrap(), expected);

    // Unsubscribe 1002 (with a client's running node under it) and clear
    // 1001's filter.
    rt.block_on(raw_create(
        &raw,
        &format!("{DEST}/1002/running"),
        br#"{"active":true,"address":"10.0.0.9","clientId":1002}"#,
        CreateMode::Ephemeral,
    ));
    let mut fewer = meta.clone();
    fewer.client_datas.truncate(1);
    fewer.client_datas[0].client_identity.filter = String::new();
    store.save(&fewer).unwrap();
    rt.block_on(async {
        assert!(raw_get(&raw, &format!("{DEST}/1002")).await.is_none());
        assert!(raw_get(&raw, &format!("{DEST}/1001/filter"))
            .await
            .is_none());
        assert!(raw_get(&raw, &format!("{DEST}/1001/cursor"))
            .await
            .is_some());
    });
    assert_eq!(other.load("example").unwrap(), fewer);

    // A corrupt cursor is reported with its node.
    rt.block_on(async {
        raw.set_data(&format!("{DEST}/1001/cursor"), b"{\"postion\":", None)
            .await
            .unwrap()
    });
    let e = other.load("example").unwrap_err().to_string();
    assert!(
        e.contains("/otter/canal/destinations/example/1001/cursor"),
        "{e}"
    );
    // Names that are not one node are refused.
    assert!(store.load("a/b").is_err());
}

#[test]
fn period_mixed_store_flushes_periodically_on_demand_and_on_drop() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let rt = runtime();
    let raw = rt.block_on(raw(&servers));
    let cursor_path = format!("{DEST}/1001/cursor");
    let read_cursor = || {
        text(rt.block_on(raw_get(&raw, &cursor_path)))
            .map(|t| LogPosition::from_json(&t).unwrap().postion.position)
    };

    let period = Duration::from_millis(500);
    let mixed = PeriodMixedCursorStore::new(store(&servers), period);
    let mut meta = mixed.load("example").unwrap();
    // Subscribing is written at once.
    meta.client_datas.push(client_data(1001, "", None));
    mixed.save(&meta).unwrap();
    assert!(rt
        .block_on(raw_get(&raw, &format!("{DEST}/1001")))
        .is_some());
    assert!(!mixed.is_dirty("example"));

    // A cursor waits for the period.
    meta.client_datas[0].cursor = Some(position("mysql-bin.000001", 100));
    let t0 = Instant::now();
    mixed.save(&meta).unwrap();
    assert!(mixed.is_dirty("example"));
    assert_eq!(read_cursor(), None);
    while read_cursor() != Some(100) {
        assert!(
            t0.elapsed() < period * 4,
            "not flushed within {:?}",
            period * 4
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    eprintln!(
        "periodic flush landed after {:?} (period {period:?})",
        t0.elapsed()
    );
    assert!(!mixed.is_dirty("example"));
    drop(mixed);

    // With a long period: flush() and drop write.
    let mixed = PeriodMixedCursorStore::new(store(&servers), Duration::from_secs(3600));
    let mut meta = mixed.load("example").unwrap();
    meta.client_datas[0].cursor = Some(position("mysql-bin.000001", 200));
    mixed.save(&meta).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(read_cursor(), Some(100));
    mixed.flush("example").unwrap();
    assert_eq!(read_cursor(), Some(200));
    meta.client_datas[0].cursor = Some(position("mysql-bin.000001", 300));
    mixed.save(&meta).unwrap();
    drop(mixed);
    assert_eq!(read_cursor(), Some(300));
}

#[test]
fn period_mixed_store_writes_only_while_the_guard_allows() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let rt = runtime();
    let raw = rt.block_on(raw(&servers));
    let (mixed, running) = guarded(&servers);
    let mut meta = mixed.load("example").unwrap();
    meta.client_datas.push(client_data(1001, "", None));
    mixed.save(&meta).unwrap();

    // Fenced: pending cursors are dropped, subscription changes refused.
    running.store(false, Ordering::SeqCst);
    meta.client_datas[0].cursor = Some(position("mysql-bin.000001", 100));
    mixed.save(&meta).unwrap();
    mixed.flush("example").unwrap();
    assert!(rt
        .block_on(raw_get(&raw, &format!("{DEST}/1001/cursor")))
        .is_none());
    let mut more = meta.clone();
    more.client_datas.push(client_data(1002, "", None));
    assert!(mixed.save(&more).is_err());
    assert!(rt
        .block_on(raw_get(&raw, &format!("{DEST}/1002")))
        .is_none());

    // Running again: writes go through.
    running.store(true, Ordering::SeqCst);
    mixed.save(&more).unwrap();
    assert!(rt
        .block_on(raw_get(&raw, &format!("{DEST}/1002")))
        .is_some());
}

/// The first start position sits in a node that is no client: loads of
/// the subscriptions ignore it, and a fenced server cannot write it.
#[test]
fn the_start_position_is_a_node_beside_the_clients_written_only_while_guarded() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let rt = runtime();
    let raw = rt.block_on(raw(&servers));
    let (mixed, running) = guarded(&servers);
    assert_eq!(mixed.load_start("example").unwrap(), None);
    let mut meta = mixed.load("example").unwrap();
    meta.client_datas.push(client_data(1001, "", None));
    mixed.save(&meta).unwrap();

    let start = sluice_canal::EntryPosition {
        gtid: "0-1-7".into(),
        journal_name: "binlog.000002".into(),
        position: 6976,
        server_id: 1,
        ..Default::default()
    };
    mixed.save_start("example", &start).unwrap();
    let node = rt
        .block_on(raw_get(&raw, &format!("{DEST}/sluice-start")))
        .expect("the start position node");
    assert!(String::from_utf8_lossy(&node.0).contains("\"journalName\":\"binlog.000002\""));
    // Another server reads it; the subscriptions are unchanged.
    let other = store(&servers);
    assert_eq!(other.load_start("example").unwrap(), Some(start.clone()));
    assert_eq!(other.load("example").unwrap(), meta);

    running.store(false, Ordering::SeqCst);
    let moved = sluice_canal::EntryPosition {
        position: 9000,
        ..start.clone()
    };
    assert!(mixed.save_start("example", &moved).is_err());
    assert_eq!(other.load_start("example").unwrap(), Some(start));

    // Damaged: an error naming the node.
    rt.block_on(async {
        raw.set_data(&format!("{DEST}/sluice-start"), b"{", None)
            .await
            .unwrap()
    });
    let e = other.load_start("example").unwrap_err().to_string();
    assert!(e.contains("sluice-start"), "{e}");
}

#[test]
fn period_mixed_store_written_through_saves_before_returning() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let rt = runtime();
    let raw = rt.block_on(raw(&servers));
    let cursor_path = format!("{DEST}/1001/cursor");
    let read_cursor = || {
        text(rt.block_on(raw_get(&raw, &cursor_path)))
            .map(|t| LogPosition::from_json(&t).unwrap().postion.position)
    };
    // A period that never comes: only write-through can write the cursor.
    let (mixed, running) = guarded(&servers);
    mixed.set_write_through(true);
    let mut meta = mixed.load("example").unwrap();
    meta.client_datas.push(client_data(1001, "", None));
    mixed.save(&meta).unwrap();
    for pos in [100, 200, 300] {
        meta.client_datas[0].cursor = Some(position("mysql-bin.000001", pos));
        mixed.save(&meta).unwrap();
        assert_eq!(read_cursor(), Some(pos), "saved before save() returned");
        assert!(!mixed.is_dirty("example"));
    }

    // Fenced: the save fails instead of being dropped quietly.
    running.store(false, Ordering::SeqCst);
    meta.client_datas[0].cursor = Some(position("mysql-bin.000001", 400));
    let err = mixed.save(&meta).unwrap_err();
    assert!(err.to_string().contains("does not run"), "{err}");
    assert_eq!(read_cursor(), Some(300));
}

#[test]
fn the_store_works_from_inside_async_code_of_any_runtime() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let store = Arc::new(store(&servers));
    // A current-thread runtime calling the synchronous trait from a task:
    // the store's own thread does the work, so this cannot deadlock.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let s = store.clone();
    let loaded = rt.block_on(async move {
        let meta = DestinationMeta {
            client_datas: vec![client_data(7, "", Some(position("mysql-bin.000002", 4)))],
            destination: "inside".into(),
        };
        s.save(&meta).unwrap();
        s.load("inside").unwrap()
    });
    assert_eq!(loaded.client_datas[0].client_identity.client_id, 7);
}
