//! Acks are persisted off the request path, by group commit, and the
//! session replies to nothing after an ack until its cursor is durable:
//! against the real file store (`meta.dat`) and a real ZooKeeper, each
//! behind a gate that can hold or fail its writes.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use common::*;
use prost::Message;
use sluice_canal::proto::{ClientAck, Get, Messages, PacketType, Sub};
use sluice_canal::{EntryPosition, LogIdentity};
use sluice_ha::{PeriodMixedCursorStore, ZkConfig, ZooKeeperCursorStore};
use sluice_instance::destination::InstanceDestination;
use sluice_meta::{CursorStore, DestinationMeta, FileCursorStore, MetaError};
use sluice_serve_tcp::AuthConfig;
use sluice_store::{EntryBytes, EntryMeta, EventStore};
use sluice_testkit::ZooKeeperEnsemble;

const DEST: &str = "example";
const CLIENT: &str = "1001";

/// A real cursor store whose writes can be held at the door or refused.
struct Gated<S> {
    inner: S,
    saves: AtomicUsize,
    held: Mutex<bool>,
    opened: Condvar,
    fail: AtomicBool,
}

impl<S: CursorStore> Gated<S> {
    fn new(inner: S) -> Arc<Self> {
        Arc::new(Gated {
            inner,
            saves: AtomicUsize::new(0),
            held: Mutex::new(false),
            opened: Condvar::new(),
            fail: AtomicBool::new(false),
        })
    }

    fn hold(&self) {
        *self.held.lock().unwrap() = true;
    }

    fn release(&self) {
        *self.held.lock().unwrap() = false;
        self.opened.notify_all();
    }

    fn saves(&self) -> usize {
        self.saves.load(Ordering::SeqCst)
    }
}

/// Opens the gate when dropped: a failed assertion must not leave the
/// destination's writer blocked (its drop waits for the writer).
struct OpenOnDrop<S: CursorStore>(Arc<Gated<S>>);

impl<S: CursorStore> Drop for OpenOnDrop<S> {
    fn drop(&mut self) {
        self.0.fail.store(false, Ordering::SeqCst);
        self.0.release();
    }
}

impl<S: CursorStore> CursorStore for Gated<S> {
    fn load(&self, destination: &str) -> Result<DestinationMeta, MetaError> {
        self.inner.load(destination)
    }

    fn save(&self, meta: &DestinationMeta) -> Result<(), MetaError> {
        self.saves.fetch_add(1, Ordering::SeqCst);
        let mut held = self.held.lock().unwrap();
        while *held {
            held = self.opened.wait(held).unwrap();
        }
        drop(held);
        if self.fail.load(Ordering::SeqCst) {
            return Err(MetaError::Io {
                action: "write",
                path: "cursor-gate".into(),
                source: std::io::Error::other("the disk refused the write"),
            });
        }
        self.inner.save(meta)
    }
}

/// `n` one-row transactions put into `store`; the cursor position after
/// each (its ack point).
async fn feed(store: &EventStore<EntryBytes>, n: usize) -> Vec<u64> {
    let mut ends = Vec::new();
    for t in 0..n {
        let base = 4 + 300 * t as i64;
        for (i, e) in insert_txn("shop", "orders", t as u32, 1, base)
            .into_iter()
            .enumerate()
        {
            let bytes: EntryBytes = e.encode_to_vec().into();
            let position = EntryPosition {
                journal_name: BINLOG.into(),
                position: (base + 100 * i as i64) as u64,
                ..Default::default()
            };
            let end = i == 2;
            let meta = EntryMeta {
                bytes: bytes.len(),
                ack_point: end.then(|| EntryPosition {
                    position: position.position + 100,
                    ..position.clone()
                }),
                position,
                is_ddl: false,
                rows: 0,
                ..Default::default()
            };
            if end {
                ends.push(meta.position.position + 100);
            }
            store.put(bytes, meta).await.unwrap();
        }
    }
    ends
}

fn get_body() -> Vec<u8> {
    Get {
        destination: DEST.into(),
        client_id: CLIENT.into(),
        fetch_size: 3,
        timeout: Some(-1),
        ..Default::default()
    }
    .encode_to_vec()
}

async fn get(raw: &mut Raw) -> i64 {
    raw.send(PacketType::Get, &get_body()).await;
    read_batch(raw).await
}

async fn read_batch(raw: &mut Raw) -> i64 {
    let p = raw.read_packet().await.expect("a reply");
    assert_eq!(p.r#type, PacketType::Messages as i32, "expected MESSAGES");
    let m = Messages::decode(p.body.as_slice()).unwrap();
    assert_eq!(m.messages.len(), 3, "one transaction per batch");
    m.batch_id
}

async fn ack(raw: &mut Raw, batch_id: i64) {
    let body = ClientAck {
        destination: DEST.into(),
        client_id: CLIENT.into(),
        batch_id,
    };
    raw.send(PacketType::ClientAck, &body.encode_to_vec()).await;
}

/// Waits (bounded) until the gate has seen `n` saves.
async fn saves_reach<S: CursorStore>(gate: &Gated<S>, n: usize) {
    for _ in 0..1000 {
        if gate.saves() >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the gate saw {} saves, not {n}", gate.saves());
}

/// The cursor the backing store holds now (read through a fresh store).
type ReadCursor = Box<dyn Fn() -> Option<u64> + Send>;

/// Group commit and the barrier, then a failed write and its recovery,
/// over the destination `cursors` back; `persisted` reads what is stored.
async fn acks_are_grouped_and_held_back_until_durable<S: CursorStore + 'static>(
    gate: Arc<Gated<S>>,
    persisted: ReadCursor,
) {
    let store = Arc::new(EventStore::new(item_store(1000)));
    let ends = feed(&store, 8).await;
    let cursors: Arc<dyn CursorStore> = gate.clone();
    let d = Arc::new(block(|| {
        InstanceDestination::open(DEST, store, cursors, LogIdentity::default()).unwrap()
    }));
    let dests = MemDestinations::default();
    dests.insert(d.clone());
    let srv = start(AuthConfig::open(), Arc::new(dests)).await;
    let mut raw = Raw::login(&srv.addr()).await;
    // Declared last, dropped first.
    let _open_on_drop = OpenOnDrop(gate.clone());

    let sub = Sub {
        destination: DEST.into(),
        client_id: CLIENT.into(),
        ..Default::default()
    };
    raw.send(PacketType::Subscription, &sub.encode_to_vec())
        .await;
    assert_eq!(raw.read_ack().await, (0, String::new()));
    let after_subscribe = gate.saves();

    // Three batches out, then three acks while the first write is held.
    let b1 = get(&mut raw).await;
    let b2 = get(&mut raw).await;
    let b3 = get(&mut raw).await;
    gate.hold();
    ack(&mut raw, b1).await;
    saves_reach(&gate, after_subscribe + 1).await;
    ack(&mut raw, b2).await;
    ack(&mut raw, b3).await;
    raw.send(PacketType::Get, &get_body()).await;
    let early = tokio::time::timeout(Duration::from_millis(500), raw.read_packet()).await;
    assert!(
        early.is_err(),
        "a reply went out while the acked cursor was not durable"
    );
    assert_ne!(persisted(), Some(ends[2]), "the held write landed");

    gate.release();
    let b4 = read_batch(&mut raw).await;
    assert_eq!(
        persisted(),
        Some(ends[2]),
        "the reply after the acks came before their cursor was stored"
    );
    let writes = gate.saves() - after_subscribe;
    assert_eq!(
        writes, 2,
        "three acks: the held write and one for the other two"
    );

    // A failed write: the next reply is the error, naming what failed.
    gate.fail.store(true, Ordering::SeqCst);
    ack(&mut raw, b4).await;
    raw.send(PacketType::Get, &get_body()).await;
    let (code, message) = raw.read_ack().await;
    assert_eq!(code, 400);
    assert!(message.contains("cannot persist cursors"), "{message}");
    assert!(message.contains("cursor-gate"), "{message}");
    assert!(message.contains("the disk refused the write"), "{message}");
    assert_eq!(persisted(), Some(ends[2]));

    // The batch that GET fetched was given back; the next ack writes the
    // latest cursor, which covers the failed one.
    gate.fail.store(false, Ordering::SeqCst);
    let b5 = get(&mut raw).await;
    ack(&mut raw, b5).await;
    let _b6 = get(&mut raw).await;
    assert_eq!(persisted(), Some(ends[4]));

    srv.shutdown.shutdown();
}

fn block<T>(f: impl FnOnce() -> T) -> T {
    tokio::task::block_in_place(f)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_cursors_group_acks_and_hold_replies_until_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let gate = Gated::new(FileCursorStore::new(dir.path()));
    let path = dir.path().to_path_buf();
    let persisted: ReadCursor = Box::new(move || {
        FileCursorStore::new(&path).load(DEST).unwrap().client_datas[0]
            .cursor
            .as_ref()
            .map(|c| c.postion.position)
    });
    acks_are_grouped_and_held_back_until_durable(gate, persisted).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zookeeper_cursors_group_acks_and_hold_replies_until_written() {
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let config = || ZkConfig::new(&servers).with_session_timeout(Duration::from_secs(4));
    let mixed = block(|| {
        PeriodMixedCursorStore::new(
            ZooKeeperCursorStore::connect(config()).unwrap(),
            Duration::from_secs(3600),
        )
    });
    // sluice.zookeeper.flush.onAck: the period never comes, acks write.
    mixed.set_write_through(true);
    let gate = Gated::new(mixed);
    let reader = block(|| ZooKeeperCursorStore::connect(config()).unwrap());
    let persisted: ReadCursor = Box::new(move || {
        block(|| reader.load(DEST).unwrap()).client_datas[0]
            .cursor
            .as_ref()
            .map(|c| c.postion.position)
    });
    acks_are_grouped_and_held_back_until_durable(gate, persisted).await;
}
