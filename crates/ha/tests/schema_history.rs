//! The schema history in ZooKeeper against a real ZooKeeper: records in
//! order, big records compressed and chunked, the write guard, a second
//! server reading what the first wrote, unfinished and damaged records, and
//! the cursors' listing of a destination, which must not take the history
//! for a client.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use sluice_ha::cursor_store::WriteGuard;
use sluice_ha::paths::{self, parse_client_id};
use sluice_ha::schema_history::DEFAULT_CHUNK_SIZE;
use sluice_ha::zookeeper_client::{Acls, Client, CreateMode};
use sluice_ha::{ZkConfig, ZooKeeperCursorStore, ZooKeeperHistoryStore};
use sluice_meta::{ClientData, ClientIdentity, CursorStore, DestinationMeta};
use sluice_schema::catalog::Delta;
use sluice_schema::{
    BinlogPosition, Catalog, ColumnSchema, HistoryRecord, SchemaHistoryStore, TableSchema,
};
use sluice_testkit::ZooKeeperEnsemble;

const HISTORY: &str = "/otter/canal/destinations/example/schema-history";

/// A store of "example" with a session of its own, as another server would have.
fn store(servers: &str) -> ZooKeeperHistoryStore {
    ZooKeeperHistoryStore::connect(
        ZkConfig::new(servers).with_session_timeout(Duration::from_secs(4)),
        "example",
    )
    .unwrap()
}

fn column(name: &str, data_type: &str) -> ColumnSchema {
    ColumnSchema {
        name: name.into(),
        data_type: data_type.into(),
        sql_type: data_type.split('(').next().unwrap().into(),
        unsigned: false,
        zerofill: false,
        charset: None,
        collation: None,
        labels: Vec::new(),
        nullable: true,
        default: None,
        generated: None,
        invisible: false,
        auto_increment: false,
        hidden: false,
    }
}

fn table(db: &str, name: &str, columns: usize) -> TableSchema {
    let mut t = TableSchema::new(db, name);
    t.columns = (0..columns)
        .map(|i| column(&format!("column_{i}"), "varchar(64)"))
        .collect();
    t.primary_key = vec!["column_0".into()];
    t
}

fn ddl(offset: u64, name: &str, sql: String) -> HistoryRecord {
    HistoryRecord::Ddl {
        position: BinlogPosition::new("binlog.000001", offset),
        db: "shop".into(),
        sql,
        kind: "CREATE TABLE".into(),
        parsed_by: None,
        deltas: vec![Delta::PutTable {
            table: table("shop", name, 2),
        }],
        unparsed: None,
    }
}

fn small(offset: u64, name: &str) -> HistoryRecord {
    ddl(
        offset,
        name,
        format!("CREATE TABLE {name} (column_0 varchar(64), column_1 varchar(64))"),
    )
}

/// A catalog snapshot of a big schema: megabytes of JSON that compress well.
fn big_snapshot(offset: u64) -> HistoryRecord {
    let mut catalog = Catalog::new();
    for i in 0..2000 {
        catalog.put_table(table("shop", &format!("table_{i:05}"), 20));
    }
    HistoryRecord::Snapshot {
        position: BinlogPosition::new("binlog.000001", offset),
        reason: "seeded from the server".into(),
        catalog,
    }
}

/// A record whose JSON does not compress: 3 MiB of letters (xorshift).
fn noisy(offset: u64) -> HistoryRecord {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D ^ offset;
    let sql: String = (0..3 * 1024 * 1024)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (b'a' + (x % 26) as u8) as char
        })
        .collect();
    ddl(offset, "noise", sql)
}

fn json_len(record: &HistoryRecord) -> usize {
    serde_json::to_vec(record).unwrap().len()
}

async fn children(client: &Client, path: &str) -> Vec<String> {
    let mut c = client.list_children(path).await.unwrap_or_default();
    c.sort();
    c
}

#[test]
fn records_load_in_append_order_as_the_file_store_writes_them() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let rt = runtime();

    let mut first = store(&servers);
    assert_eq!(first.path(), HISTORY);
    assert!(first.load().unwrap().is_empty(), "no history yet");
    let records: Vec<HistoryRecord> = (0..12)
        .map(|i| small(1000 - i * 10, &format!("t{i}")))
        .collect();
    for r in &records {
        first.append(r).unwrap();
    }
    // The order is the append order, not the positions' order.
    assert_eq!(first.load().unwrap(), records);

    // Plain JSON, byte for byte the line the file store writes (without
    // its newline), in sequential nodes.
    let raw = rt.block_on(raw(&servers));
    let names = rt.block_on(children(&raw, HISTORY));
    assert_eq!(names.len(), records.len());
    for (name, record) in names.iter().zip(&records) {
        assert!(paths::parse_schema_history_record(name).is_some(), "{name}");
        let (data, _) = rt
            .block_on(raw_get(&raw, &format!("{HISTORY}/{name}")))
            .unwrap();
        assert_eq!(data, serde_json::to_vec(record).unwrap());
    }

    // Another server, with its own session, reads the same history, and
    // its appends follow the first server's.
    drop(first);
    let mut second = store(&servers);
    assert_eq!(second.load().unwrap(), records);
    let next = small(5000, "after");
    second.append(&next).unwrap();
    let mut expected = records.clone();
    expected.push(next);
    assert_eq!(store(&servers).load().unwrap(), expected);
}

#[test]
fn records_above_a_mebibyte_round_trip_compressed_and_chunked() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let rt = runtime();

    let snapshot = big_snapshot(4);
    let noise = noisy(500);
    assert!(json_len(&snapshot) > 1024 * 1024, "{}", json_len(&snapshot));
    assert!(json_len(&noise) > 3 * 1024 * 1024);
    let records = vec![
        snapshot.clone(),
        small(100, "a"),
        noise.clone(),
        small(600, "b"),
    ];
    let mut writer = store(&servers);
    for r in &records {
        writer.append(r).unwrap();
    }
    drop(writer);
    assert_eq!(store(&servers).load().unwrap(), records);

    // How they are stored: the snapshot compressed in one node, the noise
    // in chunks below the node size limit.
    let raw = rt.block_on(raw(&servers));
    let names = rt.block_on(children(&raw, HISTORY));
    assert_eq!(names.len(), 4);
    let node = |name: &str| {
        rt.block_on(raw_get(&raw, &format!("{HISTORY}/{name}")))
            .unwrap()
            .0
    };
    let snapshot_data = node(&names[0]);
    assert!(snapshot_data.starts_with(b"zstd\n"));
    assert!(snapshot_data.len() <= DEFAULT_CHUNK_SIZE);
    let header = String::from_utf8_lossy(&node(&names[2])).into_owned();
    assert!(header.starts_with("zstd-chunks "), "{header:?}");
    let chunks = rt.block_on(children(&raw, &format!("{HISTORY}/{}", names[2])));
    assert!(chunks.len() >= 3, "{chunks:?}");
    let mut total = 0;
    for (i, chunk) in chunks.iter().enumerate() {
        assert_eq!(chunk, &format!("chunk-{i:04}"));
        let len = node(&format!("{}/{chunk}", names[2])).len();
        assert!(len <= DEFAULT_CHUNK_SIZE, "{chunk}: {len}");
        total += len;
    }
    assert!(total > 1024 * 1024, "compressed noise is {total} bytes");
    assert_eq!(header, format!("zstd-chunks {} {total}\n", chunks.len()));
}

#[test]
fn a_server_that_does_not_hold_the_destination_cannot_append() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let rt = runtime();
    let raw = rt.block_on(raw(&servers));

    let holds = Arc::new(AtomicBool::new(false));
    let h = holds.clone();
    let guard: WriteGuard = Arc::new(move |d: &str| d == "example" && h.load(Ordering::SeqCst));
    let mut guarded = store(&servers).with_guard(guard);
    let e = guarded.append(&small(100, "a")).unwrap_err().to_string();
    assert!(
        e.contains("does not hold destination example") && e.contains(HISTORY),
        "{e}"
    );
    assert!(rt.block_on(children(&raw, HISTORY)).is_empty());

    holds.store(true, Ordering::SeqCst);
    guarded.append(&small(100, "a")).unwrap();
    assert_eq!(guarded.load().unwrap(), vec![small(100, "a")]);

    // Lost while a chunked record was being written: it is not committed,
    // and removed.
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let once: WriteGuard = Arc::new(move |_: &str| c.fetch_add(1, Ordering::SeqCst) == 0);
    let mut losing = store(&servers).with_guard(once);
    let e = losing.append(&noisy(200)).unwrap_err().to_string();
    assert!(e.contains("does not hold destination example"), "{e}");
    assert_eq!(
        calls.load(Ordering::SeqCst),
        2,
        "asked before writing and before the commit"
    );
    assert_eq!(rt.block_on(children(&raw, HISTORY)).len(), 1);
    assert_eq!(store(&servers).load().unwrap(), vec![small(100, "a")]);
}

#[test]
fn unfinished_records_are_skipped_then_removed() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let rt = runtime();
    let raw = rt.block_on(raw(&servers));

    let mut s = store(&servers);
    s.append(&small(100, "a")).unwrap();
    // A writer died half-way through a chunked record.
    let pending = rt.block_on(async {
        let prefix = paths::schema_history_record_prefix("example");
        let (_, seq) = raw
            .create(
                &prefix,
                b"pending\n",
                &CreateMode::PersistentSequential.with_acls(Acls::anyone_all()),
            )
            .await
            .unwrap();
        let pending = format!("{prefix}{seq}");
        raw_create(
            &raw,
            &paths::schema_history_chunk(&pending, 0),
            b"part",
            CreateMode::Persistent,
        )
        .await;
        pending
    });
    s.append(&small(200, "b")).unwrap();

    let mut next = store(&servers);
    assert_eq!(next.load().unwrap(), vec![small(100, "a"), small(200, "b")]);
    assert_eq!(rt.block_on(children(&raw, HISTORY)).len(), 3);
    next.append(&small(300, "c")).unwrap();
    assert!(rt.block_on(raw_get(&raw, &pending)).is_none(), "removed");
    // A late commit of the dead writer cannot land.
    assert!(rt
        .block_on(raw.set_data(&pending, b"zstd-chunks 1 4\n", Some(0)))
        .is_err());
    assert_eq!(
        store(&servers).load().unwrap(),
        vec![small(100, "a"), small(200, "b"), small(300, "c")]
    );
}

#[test]
fn a_damaged_record_is_an_error_naming_its_node() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let rt = runtime();
    let raw = rt.block_on(raw(&servers));
    let prefix = paths::schema_history_record_prefix("example");
    let sequential = CreateMode::PersistentSequential.with_acls(Acls::anyone_all());

    let mut s = store(&servers);
    s.append(&small(100, "a")).unwrap();
    for (data, why) in [
        (
            &b"{\"type\":\"ddl\",\"position\""[..],
            "no valid history record",
        ),
        (b"zstd\nnot a zstd frame", "cannot decompress"),
        (b"gzip\n...", "unknown record header"),
    ] {
        let node = rt.block_on(async {
            let (_, seq) = raw.create(&prefix, data, &sequential).await.unwrap();
            format!("{prefix}{seq}")
        });
        let e = store(&servers).load().unwrap_err().to_string();
        assert!(e.contains(&node) && e.contains(why), "{e}");
        rt.block_on(raw.delete(&node, None)).unwrap();
    }

    // A chunked record that lost a chunk names the chunk.
    s.append(&noisy(200)).unwrap();
    let names = rt.block_on(children(&raw, HISTORY));
    let chunk = paths::schema_history_chunk(&format!("{HISTORY}/{}", names[1]), 1);
    rt.block_on(raw.delete(&chunk, None)).unwrap();
    let e = store(&servers).load().unwrap_err().to_string();
    assert!(e.contains(&chunk) && e.contains("missing"), "{e}");
}

#[test]
fn the_cursor_store_never_takes_the_history_for_a_client() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let rt = runtime();
    let raw = rt.block_on(raw(&servers));

    let cursors = ZooKeeperCursorStore::connect(
        ZkConfig::new(&servers).with_session_timeout(Duration::from_secs(4)),
    )
    .unwrap();
    let subscribed = DestinationMeta {
        destination: "example".into(),
        client_datas: vec![ClientData {
            client_identity: ClientIdentity {
                client_id: 1001,
                destination: "example".into(),
                filter: String::new(),
            },
            cursor: None,
        }],
    };
    cursors.save(&subscribed).unwrap();
    let mut history = store(&servers);
    history.append(&small(100, "a")).unwrap();

    let names = rt.block_on(children(&raw, "/otter/canal/destinations/example"));
    assert_eq!(names, vec!["1001", "schema-history"]);
    let ids: Vec<i16> = names.iter().filter_map(|c| parse_client_id(c)).collect();
    assert_eq!(ids, vec![1001]);

    // A store that knows nothing yet lists the destination to find its
    // clients: only the subscription is one.
    drop(cursors);
    let cursors = ZooKeeperCursorStore::connect(ZkConfig::new(&servers)).unwrap();
    assert_eq!(cursors.load("example").unwrap(), subscribed);
    drop(cursors);
    // Unsubscribing everything from a fresh store deletes the clients it
    // lists, and the history is not among them.
    let fresh = ZooKeeperCursorStore::connect(ZkConfig::new(&servers)).unwrap();
    fresh
        .save(&DestinationMeta {
            destination: "example".into(),
            client_datas: Vec::new(),
        })
        .unwrap();
    assert_eq!(
        rt.block_on(children(&raw, "/otter/canal/destinations/example")),
        vec!["schema-history"]
    );
    assert_eq!(history.load().unwrap(), vec![small(100, "a")]);
}
