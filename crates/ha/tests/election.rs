//! The running election, registration and observer against a real
//! (standalone) ZooKeeper started by the test kit.

mod common;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use common::*;
use sluice_ha::registry::{list_destination_servers, list_servers};
use sluice_ha::zookeeper_client::CreateMode;
use sluice_ha::{
    ElectionConfig, Role, RunningElection, RunningObserver, ServerRegistry, ZkSession,
    DEFAULT_DELAY,
};
use sluice_testkit::ZooKeeperEnsemble;

const A: &str = "127.0.0.1:11111";
const B: &str = "127.0.0.1:11112";
const RUNNING: &str = "/otter/canal/destinations/example/running";
const SESSION: Duration = Duration::from_secs(4);

fn server(address: &str, delay: Duration) -> ElectionConfig {
    ElectionConfig::server("example", address)
        .unwrap()
        .with_delay(delay)
}

/// A running on a session to `a_servers`, and B, on its own session to
/// `b_servers`, standing by and seeing A.
async fn a_runs_b_stands_by(
    a_servers: &str,
    b_servers: &str,
    session_timeout: Duration,
    delay: Duration,
) -> (ZkSession, RunningElection, ZkSession, RunningElection) {
    let sa = session(a_servers, session_timeout).await;
    let ea = RunningElection::start(&sa, server(A, delay));
    wait_role(&ea, Role::Running, Duration::from_secs(10)).await;
    let sb = session(b_servers, session_timeout).await;
    let eb = RunningElection::start(&sb, server(B, delay));
    eventually(Duration::from_secs(5), "B sees A", || async {
        eb.active().is_some()
    })
    .await;
    (sa, ea, sb, eb)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exactly_one_runs_and_the_nodes_are_canals() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let (sa, sb) = (
        session(&servers, SESSION).await,
        session(&servers, SESSION).await,
    );
    let ra = ServerRegistry::start(&sa, A).unwrap();
    let rb = ServerRegistry::start(&sb, B).unwrap();
    ra.add_destination("example").unwrap();
    rb.add_destination("example").unwrap();
    let ea = RunningElection::start(&sa, server(A, Duration::from_secs(2)));
    let eb = RunningElection::start(&sb, server(B, Duration::from_secs(2)));

    let raw = raw(&servers).await;
    eventually(Duration::from_secs(10), "one of two running", || async {
        (ea.role() == Role::Running) ^ (eb.role() == Role::Running)
    })
    .await;
    // Stays that way.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (winner, loser, winner_addr, winner_session) = if ea.role() == Role::Running {
        (&ea, &eb, A, &sa)
    } else {
        (&eb, &ea, B, &sb)
    };
    assert_eq!(winner.role(), Role::Running);
    assert!(winner.is_running());
    assert_eq!(loser.role(), Role::Standby);
    assert!(!loser.is_running());

    let (data, owner) = raw_get(&raw, RUNNING).await.unwrap();
    assert_eq!(
        String::from_utf8(data).unwrap(),
        format!(r#"{{"active":true,"address":"{winner_addr}"}}"#)
    );
    assert_eq!(owner, winner_session.status().session_id);
    eventually(Duration::from_secs(5), "standby sees the owner", || async {
        loser.active().map(|i| i.address) == Some(winner_addr.to_string())
    })
    .await;

    // Registration: ephemeral, data-less, one per server.
    let both: Vec<String> = vec![A.into(), B.into()];
    eventually(Duration::from_secs(5), "both registered", || async {
        list_servers(&raw).await.unwrap() == both
            && list_destination_servers(&raw, "example").await.unwrap() == both
    })
    .await;
    for path in [
        format!("/otter/canal/cluster/{A}"),
        format!("/otter/canal/destinations/example/cluster/{A}"),
    ] {
        let (data, owner) = raw_get(&raw, &path).await.unwrap();
        assert!(data.is_empty(), "{path} has data");
        assert_eq!(owner, sa.status().session_id, "{path}");
    }
    rb.remove_destination("example").unwrap();
    eventually(Duration::from_secs(5), "B withdrawn", || async {
        list_destination_servers(&raw, "example").await.unwrap() == vec![A.to_string()]
    })
    .await;
    rb.stop().await;
    assert_eq!(list_servers(&raw).await.unwrap(), vec![A.to_string()]);
    drop(ra);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standby_takes_over_a_closed_session_only_after_the_delay() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let (sa, ea, _sb, eb) = a_runs_b_stands_by(&servers, &servers, SESSION, DEFAULT_DELAY).await;

    // The owner's process ends: its session closes and the node goes at once.
    let t0 = Instant::now();
    sa.close().await;
    assert!(!ea.is_running());
    wait_role(&ea, Role::Standby, Duration::from_secs(1)).await;
    wait_role(&eb, Role::Running, DEFAULT_DELAY + Duration::from_secs(3)).await;
    let took = t0.elapsed();
    eprintln!("takeover after the owner's session closed: {took:?} (delay {DEFAULT_DELAY:?})");
    assert!(
        took >= DEFAULT_DELAY,
        "took over after {took:?}, before the delay"
    );
    assert!(
        took < DEFAULT_DELAY + Duration::from_secs(1),
        "took over after {took:?}"
    );
    let raw = raw(&servers).await;
    let (data, _) = raw_get(&raw, RUNNING).await.unwrap();
    assert_eq!(
        data,
        format!(r#"{{"active":true,"address":"{B}"}}"#).into_bytes()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partitioned_owner_fences_itself_then_retakes_at_once_after_expiry() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let session_timeout = Duration::from_secs(2);
    // A reaches ZooKeeper through a proxy that can cut it off; B directly.
    let proxy = Proxy::start(&servers).await;
    let sa = session(&proxy.addr, session_timeout).await;
    let ra = ServerRegistry::start(&sa, A).unwrap();
    let ea = RunningElection::start(&sa, server(A, DEFAULT_DELAY));
    wait_role(&ea, Role::Running, Duration::from_secs(10)).await;
    let cluster_node = format!("/otter/canal/cluster/{A}");
    ra.wait_registered(&cluster_node).await;
    let sb = session(&servers, session_timeout).await;
    let eb = RunningElection::start(&sb, server(B, DEFAULT_DELAY));
    eventually(Duration::from_secs(5), "B sees A", || async {
        eb.active().is_some()
    })
    .await;
    let b_ran = ever_running(&eb);
    let a_generation = sa.status().generation;
    let raw = raw(&servers).await;

    // Partition A. It must stop before its session can expire.
    let t0 = Instant::now();
    proxy.pause();
    wait_role(&ea, Role::Standby, session_timeout).await;
    let fenced = t0.elapsed();
    assert!(!ea.is_running());
    eprintln!(
        "partitioned owner fenced itself after {fenced:?} (session timeout {session_timeout:?})"
    );
    assert!(fenced < session_timeout, "fenced after {fenced:?}");
    // The servers expire the session and delete the node.
    eventually(Duration::from_secs(5), "A's node expires", || async {
        raw_get(&raw, RUNNING).await.is_none()
    })
    .await;
    let expired = t0.elapsed();
    eprintln!("the servers removed A's node {expired:?} after the partition");
    // The servers count the timeout from the last request they got, which
    // was sent a little before the partition.
    assert!(
        fenced < expired,
        "fenced after {fenced:?}, expired after {expired:?}"
    );

    // The partition heals quickly: A, the previous owner, retakes at once
    // with a new session; B (waiting its delay) never runs.
    proxy.resume();
    let t1 = Instant::now();
    wait_role(&ea, Role::Running, DEFAULT_DELAY).await;
    let back = t1.elapsed();
    eprintln!(
        "previous owner back {back:?} after the partition healed ({:?} after the partition)",
        t0.elapsed()
    );
    assert!(sa.status().generation > a_generation);
    assert!(stays_away_from(&eb, Role::Running, Duration::from_secs(1)).await);
    assert!(!b_ran.load(Ordering::SeqCst), "B ran");
    let (data, owner) = raw_get(&raw, RUNNING).await.unwrap();
    assert_eq!(
        data,
        format!(r#"{{"active":true,"address":"{A}"}}"#).into_bytes()
    );
    assert_eq!(owner, sa.status().session_id);
    // The registration came back with the new session.
    eventually(Duration::from_secs(5), "A registered again", || async {
        raw_get(&raw, &cluster_node).await.map(|(_, owner)| owner) == Some(sa.status().session_id)
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_owner_retakes_when_its_old_session_expires() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let session_timeout = Duration::from_secs(2);
    // The first process of A hangs for good (its connection goes nowhere).
    let proxy = Proxy::start(&servers).await;
    let old = session(&proxy.addr, session_timeout).await;
    let e_old = RunningElection::start(&old, server(A, DEFAULT_DELAY));
    wait_role(&e_old, Role::Running, Duration::from_secs(10)).await;
    let sb = session(&servers, session_timeout).await;
    let eb = RunningElection::start(&sb, server(B, DEFAULT_DELAY));
    eventually(Duration::from_secs(5), "B sees A", || async {
        eb.active().is_some()
    })
    .await;
    let b_ran = ever_running(&eb);
    proxy.pause();
    let t0 = Instant::now();

    // A restarts with the same address: the node names it but belongs to
    // the old session, so it waits; when that session expires it retakes at
    // once, well before B's delay.
    let sa = session(&servers, session_timeout).await;
    let ea = RunningElection::start(&sa, server(A, DEFAULT_DELAY));
    eventually(
        Duration::from_secs(5),
        "the new A sees the old A",
        || async { ea.active().map(|i| i.address) == Some(A.into()) },
    )
    .await;
    assert_eq!(ea.role(), Role::Standby);
    wait_role(&ea, Role::Running, session_timeout * 3).await;
    eprintln!(
        "restarted owner running {:?} after its old process hung",
        t0.elapsed()
    );
    // Not before the old session expired (counted from its last request).
    assert!(t0.elapsed() >= session_timeout * 17 / 20);
    assert!(stays_away_from(&eb, Role::Running, Duration::from_secs(1)).await);
    assert!(!b_ran.load(Ordering::SeqCst), "B ran");
    assert_eq!(e_old.role(), Role::Standby);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partitioned_owner_that_stays_away_is_replaced_after_expiry_and_delay() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let session_timeout = Duration::from_secs(2);
    let delay = Duration::from_secs(2);
    let proxy = Proxy::start(&servers).await;
    let (_sa, ea, _sb, eb) =
        a_runs_b_stands_by(&proxy.addr, &servers, session_timeout, delay).await;

    let t0 = Instant::now();
    proxy.pause();
    let mut a_role = ea.subscribe();
    let mut fenced_at = None;
    // No moment with both running: A is Standby before B is Running.
    let mut b_role = eb.subscribe();
    loop {
        tokio::select! {
            _ = a_role.changed() => {
                if *a_role.borrow() == Role::Standby && fenced_at.is_none() {
                    fenced_at = Some(t0.elapsed());
                }
            }
            _ = b_role.changed() => {
                if *b_role.borrow() == Role::Running {
                    assert_eq!(ea.role(), Role::Standby, "two running at once");
                    assert!(!ea.is_running());
                    break;
                }
            }
            _ = tokio::time::sleep(Duration::from_secs(15)) => panic!("B never took over"),
        }
    }
    let took = t0.elapsed();
    let fenced = fenced_at.expect("A fenced");
    eprintln!(
        "partition: A fenced after {fenced:?}, B running after {took:?} (session timeout {session_timeout:?} + delay {delay:?})"
    );
    assert!(fenced < session_timeout);
    // The servers count the session timeout from the last request they got
    // (a ping sent up to 3/20 of the timeout before the partition).
    let earliest = session_timeout * 17 / 20 + delay;
    assert!(took >= earliest, "{took:?}");
    assert!(
        took < session_timeout + delay + Duration::from_secs(2),
        "{took:?}"
    );
    // Healing: A, with a new session, finds B's node and stays standby.
    proxy.resume();
    assert!(stays_away_from(&ea, Role::Running, Duration::from_secs(4)).await);
    assert_eq!(eb.role(), Role::Running);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_previous_owner_retakes_a_deleted_node_at_once() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let delay = Duration::from_secs(2);
    let (sa, ea, _sb, eb) = a_runs_b_stands_by(&servers, &servers, SESSION, delay).await;
    let b_ran = ever_running(&eb);

    let raw = raw(&servers).await;
    let t0 = Instant::now();
    raw.delete(RUNNING, None).await.unwrap();
    eventually(Duration::from_secs(2), "A retakes", || async {
        raw_get(&raw, RUNNING).await.map(|(_, owner)| owner) == Some(sa.status().session_id)
    })
    .await;
    wait_role(&ea, Role::Running, Duration::from_secs(2)).await;
    eprintln!(
        "previous owner retook its deleted node in {:?}",
        t0.elapsed()
    );
    assert!(t0.elapsed() < Duration::from_secs(1));
    assert!(stays_away_from(&eb, Role::Running, delay + Duration::from_secs(1)).await);
    assert!(!b_ran.load(Ordering::SeqCst));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn release_hands_the_destination_over() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let delay = Duration::from_secs(3);
    let sa = session(&servers, SESSION).await;
    let ea = RunningElection::start(&sa, server(A, delay));
    wait_role(&ea, Role::Running, Duration::from_secs(10)).await;
    let sb = session(&servers, SESSION).await;
    let eb = RunningElection::start(&sb, server(B, delay));
    let observer = RunningObserver::server(&sb, "example").unwrap();
    eventually(
        Duration::from_secs(5),
        "B and the observer see A",
        || async {
            eb.active().is_some() && observer.active().map(|i| i.address) == Some(A.into())
        },
    )
    .await;

    let t0 = Instant::now();
    assert!(ea.release().await.unwrap());
    assert_eq!(ea.role(), Role::Standby);
    wait_role(&eb, Role::Running, Duration::from_secs(2)).await;
    let moved = t0.elapsed();
    eprintln!("release handed over in {moved:?}");
    assert!(moved < Duration::from_secs(1));
    eventually(Duration::from_secs(2), "the observer follows", || async {
        observer.active().map(|i| i.address) == Some(B.into())
    })
    .await;
    // A stays out.
    assert!(stays_away_from(&ea, Role::Running, delay + Duration::from_millis(500)).await);
    // Releasing what we do not hold does nothing.
    assert!(!ea.release().await.unwrap());

    // B stops (releasing): A, past its hold-off, takes over at once.
    let t1 = Instant::now();
    eb.stop().await.unwrap();
    wait_role(&ea, Role::Running, Duration::from_secs(2)).await;
    eprintln!("stop handed back in {:?}", t1.elapsed());
    assert!(t1.elapsed() < Duration::from_secs(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_alone_comes_back_after_the_delay() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let delay = Duration::from_secs(1);
    let sa = session(&servers, SESSION).await;
    let ea = RunningElection::start(&sa, server(A, delay));
    wait_role(&ea, Role::Running, Duration::from_secs(10)).await;
    let t0 = Instant::now();
    assert!(ea.release().await.unwrap());
    wait_role(&ea, Role::Running, delay + Duration::from_secs(2)).await;
    let back = t0.elapsed();
    eprintln!("lone server back after its own release: {back:?}");
    assert!(back >= delay);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_by_others_to_the_running_node() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let delay = Duration::from_secs(3);
    let (_sa, ea, _sb, eb) = a_runs_b_stands_by(&servers, &servers, SESSION, delay).await;
    let raw = raw(&servers).await;

    // Another address written into our node: we stop (Canal drops "active").
    raw.set_data(RUNNING, br#"{"active":true,"address":"10.9.9.9:1"}"#, None)
        .await
        .unwrap();
    wait_role(&ea, Role::Standby, Duration::from_secs(2)).await;
    assert_eq!(eb.role(), Role::Standby);

    // `active:false` with our address: a release request; we delete the
    // node, and B takes it at once.
    raw.set_data(
        RUNNING,
        format!(r#"{{"active":false,"address":"{A}"}}"#).as_bytes(),
        None,
    )
    .await
    .unwrap();
    let t0 = Instant::now();
    wait_role(&eb, Role::Running, Duration::from_secs(2)).await;
    eprintln!("release request handed over in {:?}", t0.elapsed());
    assert!(t0.elapsed() < Duration::from_secs(1));
    assert_eq!(ea.role(), Role::Standby);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_held_by_a_canal_server_is_respected() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let delay = Duration::from_secs(2);
    // An old Canal server holds the destination (with its `cid`).
    let canal = raw(&servers).await;
    raw_create(
        &canal,
        RUNNING,
        br#"{"active":true,"address":"172.17.1.181:11121","cid":1}"#,
        CreateMode::Ephemeral,
    )
    .await;
    let sa = session(&servers, SESSION).await;
    let ea = RunningElection::start(&sa, server(A, delay));
    eventually(Duration::from_secs(5), "A sees Canal", || async {
        ea.active().map(|i| i.address) == Some("172.17.1.181:11121".into())
    })
    .await;
    assert_eq!(ea.role(), Role::Standby);

    // The Canal server dies: we are not its previous owner, so we wait.
    let t0 = Instant::now();
    drop(canal);
    wait_role(&ea, Role::Running, delay + Duration::from_secs(3)).await;
    let took = t0.elapsed();
    eprintln!("took over from a Canal server after {took:?} (delay {delay:?})");
    assert!(
        took >= delay && took < delay + Duration::from_secs(1),
        "{took:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_running_nodes_follow_canals_java_client() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let path = "/otter/canal/destinations/example/1001/running";
    let s1 = session(&servers, SESSION).await;
    let s2 = session(&servers, SESSION).await;
    let c1 = RunningElection::start(
        &s1,
        ElectionConfig::client("example", 1001, "10.0.0.9").unwrap(),
    );
    wait_role(&c1, Role::Running, Duration::from_secs(10)).await;
    let c2 = RunningElection::start(
        &s2,
        ElectionConfig::client("example", 1001, "10.0.0.10")
            .unwrap()
            .with_delay(Duration::from_secs(2)),
    );
    let raw = raw(&servers).await;
    let (data, owner) = raw_get(&raw, path).await.unwrap();
    assert_eq!(
        data,
        br#"{"active":true,"address":"10.0.0.9","clientId":1001}"#.to_vec()
    );
    assert_eq!(owner, s1.status().session_id);
    assert!(stays_away_from(&c2, Role::Running, Duration::from_millis(500)).await);
    c1.stop().await.unwrap();
    wait_role(&c2, Role::Running, Duration::from_secs(1)).await;
    let (data, _) = raw_get(&raw, path).await.unwrap();
    assert_eq!(
        data,
        br#"{"active":true,"address":"10.0.0.10","clientId":1001}"#.to_vec()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_in_the_running_node_counts_as_another_owner() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let delay = Duration::from_secs(1);
    let other = raw(&servers).await;
    raw_create(&other, RUNNING, b"not json", CreateMode::Ephemeral).await;
    let sa = session(&servers, SESSION).await;
    let ea = RunningElection::start(&sa, server(A, delay));
    assert!(stays_away_from(&ea, Role::Running, Duration::from_millis(500)).await);
    assert_eq!(ea.active(), None);
    let t0 = Instant::now();
    drop(other);
    wait_role(&ea, Role::Running, delay + Duration::from_secs(2)).await;
    assert!(t0.elapsed() >= delay, "{:?}", t0.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connecting_to_nothing_fails_within_the_timeout() {
    let port = sluice_testkit::find_free_port().unwrap();
    let t0 = Instant::now();
    let r = sluice_ha::ZkSession::connect(
        sluice_ha::ZkConfig::new(format!("127.0.0.1:{port}"))
            .with_connect_timeout(Duration::from_secs(1)),
    )
    .await;
    let e = r.unwrap_err();
    eprintln!("{e}");
    assert!(t0.elapsed() < Duration::from_secs(3));
    let t0 = Instant::now();
    let r = tokio::task::spawn_blocking(move || {
        sluice_ha::ZooKeeperCursorStore::connect(
            sluice_ha::ZkConfig::new(format!("127.0.0.1:{port}"))
                .with_connect_timeout(Duration::from_secs(1)),
        )
    })
    .await
    .unwrap();
    assert!(r.is_err());
    assert!(t0.elapsed() < Duration::from_secs(3));
}
