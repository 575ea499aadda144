//! The cluster connector against real ZooKeeper and two Canal TCP servers
//! with in-memory destinations: it finds the server the `running` node
//! names, follows the node when it moves (also while a call waits), renews
//! its subscription there, treats batches of the old server as stale, and
//! holds the client's own `running` node so one process consumes per id.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use sluice_canal::proto::{Entry, EntryType, EventType};
use sluice_client::cluster::{ClusterConnector, ClusterOptions};
use sluice_client::{ClientError, Connector, TimeUnit};
use sluice_ha::zookeeper_client::{Acls, Client, CreateMode};
use sluice_serve_tcp::AuthConfig;
use sluice_testkit::ZooKeeperEnsemble;

const RUNNING: &str = "/otter/canal/destinations/example/running";
const CLIENT_RUNNING: &str = "/otter/canal/destinations/example/1001/running";

/// One transaction inserting `id` into `schema.t`.
fn txn(schema: &str, id: i64) -> Vec<Entry> {
    let at = id * 1000;
    vec![
        begin(at),
        rows(
            schema,
            "t",
            EventType::Insert,
            vec![insert_row(&id.to_string(), Some("x"), None)],
            at + 100,
        ),
        end(at + 200, id as u64),
    ]
}

/// The `schema.id` of every row entry of a batch.
fn row_ids(entries: &[Entry]) -> Vec<String> {
    entries
        .iter()
        .filter(|e| e.entry_type == Some(EntryType::RowData as i32))
        .map(|e| {
            let h = e.header.clone().unwrap_or_default();
            let rc = sluice_client::row_change(e).unwrap();
            let id = rc.row_datas[0].after_columns[0].value.clone().unwrap();
            format!("{}.{id}", h.schema_name.unwrap_or_default())
        })
        .collect()
}

async fn wait_until(mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !f() {
        assert!(Instant::now() < deadline, "condition not met in 10 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn zk_client(zk: &ZooKeeperEnsemble) -> Client {
    Client::connect(&zk.connect_string()).await.unwrap()
}

/// Points the destination's `running` node at `address`, as a server
/// taking it over does (the node is replaced).
async fn point_running_at(zk: &Client, address: &str) {
    zk.mkdir(
        "/otter/canal/destinations/example",
        &CreateMode::Persistent.with_acls(Acls::anyone_all()),
    )
    .await
    .unwrap();
    match zk.delete(RUNNING, None).await {
        Ok(()) | Err(sluice_ha::zookeeper_client::Error::NoNode) => {}
        Err(e) => panic!("deleting {RUNNING}: {e}"),
    }
    let data = format!(r#"{{"active":true,"address":"{address}"}}"#);
    zk.create(
        RUNNING,
        data.as_bytes(),
        &CreateMode::Persistent.with_acls(Acls::anyone_all()),
    )
    .await
    .unwrap();
}

fn options() -> ClusterOptions {
    ClusterOptions {
        zk_session_timeout: Duration::from_secs(4),
        running_delay: Duration::from_millis(300),
        failover_timeout: Duration::from_secs(10),
        retry_interval: Duration::from_millis(200),
        ..Default::default()
    }
}

struct Servers {
    a: Arc<MemDestination>,
    b: Arc<MemDestination>,
    srv_a: Running,
    srv_b: Running,
}

async fn two_servers() -> Servers {
    let a = MemDestination::new("example", item_store(10_000));
    let b = MemDestination::new("example", item_store(10_000));
    let srv_a = start(AuthConfig::open(), MemDestinations::one(&a)).await;
    let srv_b = start(AuthConfig::open(), MemDestinations::one(&b)).await;
    Servers { a, b, srv_a, srv_b }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follows_the_running_node_to_the_new_server() {
    let zk = ZooKeeperEnsemble::start_standalone().unwrap();
    let raw = zk_client(&zk).await;
    let s = two_servers().await;
    point_running_at(&raw, &s.srv_a.addr()).await;
    for id in 1..=3 {
        s.a.feed(&txn("a", id)).await;
        s.b.feed(&txn("b", id)).await;
    }

    let mut c = ClusterConnector::connect(&zk.connect_string(), "example", "", "", options())
        .await
        .unwrap();
    assert_eq!(c.server(), Some(s.srv_a.addr().as_str()));
    c.subscribe("a\\..*|b\\..*").await.unwrap();
    let first = c
        .get_without_ack(3, Some(1000), TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!(row_ids(&first.entries), ["a.1"]);

    // The destination moves: B takes the node and A goes away.
    point_running_at(&raw, &s.srv_b.addr()).await;
    s.srv_a.shutdown.shutdown();
    let b_addr = s.srv_b.addr();
    wait_until(|| c.running_server().is_some_and(|i| i.address == b_addr)).await;

    let second = c
        .get_without_ack(3, Some(1000), TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!(c.server(), Some(s.srv_b.addr().as_str()));
    assert_eq!(c.failovers(), 1);
    assert_eq!(row_ids(&second.entries), ["b.1"]);
    assert_ne!(second.id, first.id, "batch ids are never reused");
    // The subscription was renewed on B with the same filter.
    assert_eq!(s.b.last_filter().as_deref(), Some("a\\..*|b\\..*"));

    // A's batch is stale: acknowledging it does nothing on B, whose own
    // batch is acknowledged normally.
    c.ack(first.id).await.unwrap();
    c.ack(second.id).await.unwrap();
    let third = c
        .get_without_ack(3, Some(1000), TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!(row_ids(&third.entries), ["b.2"]);
    assert!(matches!(
        c.ack(second.id).await,
        Err(ClientError::UnknownBatch(id)) if id == second.id
    ));
    c.rollback_all().await.unwrap();
    let again = c
        .get_without_ack(3, Some(1000), TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!(
        row_ids(&again.entries),
        ["b.2"],
        "rolled back, delivered again"
    );
    c.disconnect().await.unwrap();
    s.srv_b.shutdown.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_call_moves_with_the_destination() {
    let zk = ZooKeeperEnsemble::start_standalone().unwrap();
    let raw = zk_client(&zk).await;
    let s = two_servers().await;
    point_running_at(&raw, &s.srv_a.addr()).await;
    s.b.feed(&txn("b", 7)).await;

    let mut c = ClusterConnector::connect(&zk.connect_string(), "example", "", "", options())
        .await
        .unwrap();
    c.subscribe("").await.unwrap();
    let mover = {
        let raw = raw.clone();
        let to = s.srv_b.addr();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(500)).await;
            point_running_at(&raw, &to).await;
        })
    };
    // A has nothing and stays up: only the node's move can end this wait
    // before its 20 s.
    let started = Instant::now();
    let m = c
        .get_without_ack(3, Some(20_000), TimeUnit::Milliseconds)
        .await
        .unwrap();
    mover.await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the call followed the node in {:?}",
        started.elapsed()
    );
    assert_eq!(c.server(), Some(s.srv_b.addr().as_str()));
    assert_eq!(row_ids(&m.entries), ["b.7"]);
    c.disconnect().await.unwrap();
    s.srv_a.shutdown.shutdown();
    s.srv_b.shutdown.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_process_consumes_per_client_id() {
    let zk = ZooKeeperEnsemble::start_standalone().unwrap();
    let raw = zk_client(&zk).await;
    let s = two_servers().await;
    point_running_at(&raw, &s.srv_a.addr()).await;

    let first = ClusterConnector::connect(&zk.connect_string(), "example", "", "", options())
        .await
        .unwrap();
    let (data, _) = raw.get_data(CLIENT_RUNNING).await.unwrap();
    let json: serde_json::Value = serde_json::from_slice(&data).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"active": true, "address": "127.0.0.1", "clientId": 1001})
    );

    let servers = zk.connect_string();
    let second = tokio::spawn(async move {
        ClusterConnector::connect(&servers, "example", "", "", options()).await
    });
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !second.is_finished(),
        "a second consumer for 1001 must wait"
    );

    let released = Instant::now();
    first.disconnect().await.unwrap();
    let second = tokio::time::timeout(Duration::from_secs(10), second)
        .await
        .expect("the waiting consumer takes over")
        .unwrap()
        .unwrap();
    assert!(released.elapsed() < Duration::from_secs(5));
    assert_eq!(second.server(), Some(s.srv_a.addr().as_str()));
    second.disconnect().await.unwrap();
    s.srv_a.shutdown.shutdown();
    s.srv_b.shutdown.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_that_loses_the_client_id_stops_consuming() {
    let zk = ZooKeeperEnsemble::start_standalone().unwrap();
    let raw = zk_client(&zk).await;
    let s = two_servers().await;
    point_running_at(&raw, &s.srv_a.addr()).await;
    let mut c = ClusterConnector::connect(&zk.connect_string(), "example", "", "", options())
        .await
        .unwrap();
    c.subscribe("").await.unwrap();
    let getting = tokio::spawn(async move {
        let m = c
            .get_without_ack(3, Some(20_000), TimeUnit::Milliseconds)
            .await
            .unwrap();
        (c, m)
    });
    tokio::time::sleep(Duration::from_millis(300)).await;

    // Another process takes client id 1001 (as after our session expired).
    raw.delete(CLIENT_RUNNING, None).await.unwrap();
    raw.create(
        CLIENT_RUNNING,
        br#"{"active":true,"address":"10.9.9.9","clientId":1001}"#,
        &CreateMode::Persistent.with_acls(Acls::anyone_all()),
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Rows arrive; this process must not take them any more.
    s.a.feed(&txn("a", 1)).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !getting.is_finished(),
        "consumed without holding the client id"
    );

    // The other process goes: this one takes the id back and gets the rows.
    raw.delete(CLIENT_RUNNING, None).await.unwrap();
    let (c, m) = tokio::time::timeout(Duration::from_secs(10), getting)
        .await
        .expect("consuming again once the client id is back")
        .unwrap();
    assert_eq!(row_ids(&m.entries), ["a.1"]);
    assert!(c.failovers() >= 1);
    c.disconnect().await.unwrap();
    s.srv_a.shutdown.shutdown();
    s.srv_b.shutdown.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_running_server_is_a_clear_error() {
    let zk = ZooKeeperEnsemble::start_standalone().unwrap();
    let opts = ClusterOptions {
        failover_timeout: Duration::from_secs(1),
        ..options()
    };
    let err = ClusterConnector::connect(&zk.connect_string(), "example", "", "", opts)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ClientError::NoServer { destination, .. } if destination == "example"),
        "{err}"
    );
}
