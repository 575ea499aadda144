//! Fencing and failover with a 3-node ZooKeeper ensemble on loopback: the
//! owner's ZooKeeper node hangs or dies, the leader dies.

mod common;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use common::*;
use sluice_ha::{ElectionConfig, Role, RunningElection, ZkSession, ZooKeeperCursorStore};
use sluice_meta::CursorStore;
use sluice_testkit::ZooKeeperEnsemble;

const A: &str = "127.0.0.1:11111";
const B: &str = "127.0.0.1:11112";

fn server(address: &str, delay: Duration) -> ElectionConfig {
    ElectionConfig::server("example", address)
        .unwrap()
        .with_delay(delay)
}

/// A session connected to a follower (the client picks a node at random).
async fn session_on_follower(
    zk: &ZooKeeperEnsemble,
    timeout: Duration,
    avoid: Option<usize>,
) -> (ZkSession, usize) {
    let servers = zk.connect_string();
    for _ in 0..30 {
        let s = session(&servers, timeout).await;
        let id = s.status().session_id;
        let node = tokio::task::block_in_place(|| zk.node_of_session(id));
        if let Some(node) = node {
            let follower =
                tokio::task::block_in_place(|| zk.mode(node)).as_deref() == Some("follower");
            if follower && Some(node) != avoid {
                return (s, node);
            }
        }
        s.close().await;
    }
    panic!("no session landed on a suitable follower");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_fences_itself_when_its_zookeeper_node_hangs() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(3).unwrap();
    let session_timeout = Duration::from_secs(4);
    let delay = Duration::from_secs(2);
    let (sa, node) = session_on_follower(&zk, session_timeout, None).await;
    let ea = RunningElection::start(&sa, server(A, delay));
    wait_role(&ea, Role::Running, Duration::from_secs(10)).await;
    let (sb, _) = session_on_follower(&zk, session_timeout, Some(node)).await;
    let eb = RunningElection::start(&sb, server(B, delay));
    eventually(Duration::from_secs(5), "B sees A", || async {
        eb.active().is_some()
    })
    .await;
    let b_ran = ever_running(&eb);
    let generation = sa.status().generation;

    let t0 = Instant::now();
    zk.pause_node(node).unwrap();
    wait_role(&ea, Role::Standby, session_timeout).await;
    let fenced = t0.elapsed();
    assert!(!ea.is_running());
    eprintln!(
        "owner's ZooKeeper node hung: fenced after {fenced:?} (session timeout {session_timeout:?})"
    );
    assert!(fenced < session_timeout);

    // The client moves to another node within the session: same session,
    // the node is still ours, A runs again; B never did.
    wait_role(&ea, Role::Running, session_timeout).await;
    eprintln!(
        "owner running again (same session) {:?} after the hang",
        t0.elapsed()
    );
    assert_eq!(sa.status().generation, generation, "the session survived");
    assert!(!b_ran.load(Ordering::SeqCst), "B ran");
    zk.resume_node(node).unwrap();
    tokio::task::block_in_place(|| zk.wait_serving(node, Duration::from_secs(30))).unwrap();
    assert_eq!(ea.role(), Role::Running);
    assert_eq!(eb.role(), Role::Standby);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_fences_itself_when_its_zookeeper_node_dies() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(3).unwrap();
    let session_timeout = Duration::from_secs(4);
    let delay = Duration::from_secs(2);
    let (sa, node) = session_on_follower(&zk, session_timeout, None).await;
    let ea = RunningElection::start(&sa, server(A, delay));
    wait_role(&ea, Role::Running, Duration::from_secs(10)).await;
    let (sb, _) = session_on_follower(&zk, session_timeout, Some(node)).await;
    let eb = RunningElection::start(&sb, server(B, delay));
    eventually(Duration::from_secs(5), "B sees A", || async {
        eb.active().is_some()
    })
    .await;
    let b_ran = ever_running(&eb);

    let t0 = Instant::now();
    zk.kill_node(node).unwrap();
    let mut role = ea.subscribe();
    // The role may already be back: look for the Standby transition.
    let fenced = tokio::time::timeout(session_timeout, async {
        loop {
            if *role.borrow_and_update() == Role::Standby {
                return t0.elapsed();
            }
            role.changed().await.unwrap();
        }
    })
    .await
    .expect("A never stood by");
    eprintln!("owner's ZooKeeper node killed: fenced after {fenced:?}");
    wait_role(&ea, Role::Running, session_timeout).await;
    eprintln!("owner running again {:?} after the kill", t0.elapsed());
    assert!(!b_ran.load(Ordering::SeqCst), "B ran");

    // Two nodes left: failover still works.
    let t1 = Instant::now();
    sa.close().await;
    wait_role(&eb, Role::Running, delay + Duration::from_secs(2)).await;
    let took = t1.elapsed();
    eprintln!("with one ZooKeeper node down, takeover after {took:?} (delay {delay:?})");
    assert!(
        took >= delay && took < delay + Duration::from_secs(1),
        "{took:?}"
    );
    tokio::task::block_in_place(|| zk.restart_node(node)).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn losing_the_leader_keeps_the_service() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(3).unwrap();
    let servers = zk.connect_string();
    let session_timeout = Duration::from_secs(6);
    let delay = Duration::from_secs(2);
    let sa = session(&servers, session_timeout).await;
    let ea = RunningElection::start(&sa, server(A, delay));
    wait_role(&ea, Role::Running, Duration::from_secs(10)).await;
    let sb = session(&servers, session_timeout).await;
    let eb = RunningElection::start(&sb, server(B, delay));
    eventually(Duration::from_secs(5), "B sees A", || async {
        eb.active().is_some()
    })
    .await;
    let b_ran = ever_running(&eb);
    let servers2 = servers.clone();
    let store = tokio::task::spawn_blocking(move || {
        ZooKeeperCursorStore::connect(
            sluice_ha::ZkConfig::new(servers2).with_session_timeout(session_timeout),
        )
        .unwrap()
    })
    .await
    .unwrap();

    let leader = tokio::task::block_in_place(|| zk.leader()).expect("a leader");
    let t0 = Instant::now();
    zk.kill_node(leader).unwrap();
    // Every client is cut off until a new leader serves; sessions survive.
    eventually(Duration::from_secs(15), "a new leader", || async {
        tokio::task::block_in_place(|| zk.leader()).is_some()
    })
    .await;
    eprintln!("new leader after {:?}", t0.elapsed());
    wait_role(&ea, Role::Running, Duration::from_secs(15)).await;
    eprintln!(
        "owner running again {:?} after the leader died",
        t0.elapsed()
    );
    assert!(!b_ran.load(Ordering::SeqCst), "B ran");

    // Cursors can be written and read with one node down.
    let store = tokio::task::spawn_blocking(move || {
        let meta = sluice_meta::DestinationMeta {
            client_datas: vec![sluice_meta::ClientData {
                client_identity: sluice_meta::ClientIdentity {
                    client_id: 1001,
                    destination: "example".into(),
                    filter: String::new(),
                },
                cursor: None,
            }],
            destination: "example".into(),
        };
        store.save(&meta).unwrap();
        assert_eq!(store.load("example").unwrap(), meta);
        store
    })
    .await
    .unwrap();

    // And failover works.
    let t1 = Instant::now();
    sa.close().await;
    wait_role(&eb, Role::Running, delay + Duration::from_secs(2)).await;
    let took = t1.elapsed();
    eprintln!("after losing the leader, takeover after {took:?} (delay {delay:?})");
    assert!(
        took >= delay && took < delay + Duration::from_secs(1),
        "{took:?}"
    );
    tokio::task::spawn_blocking(move || drop(store))
        .await
        .unwrap();
}
