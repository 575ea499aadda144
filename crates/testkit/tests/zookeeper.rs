//! These start real ZooKeeper servers (needs Debian's `zookeeper` package and a JRE).

use std::time::{Duration, Instant};

use sluice_testkit::zookeeper::four_letter_word;
use sluice_testkit::ZooKeeperEnsemble;

#[test]
fn standalone_server_serves_and_cleans_up() {
    let t0 = Instant::now();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    eprintln!("standalone ZooKeeper ready in {:?}", t0.elapsed());
    assert_eq!(zk.len(), 1);
    assert_eq!(zk.mode(0).as_deref(), Some("standalone"));
    assert_eq!(
        zk.connect_string(),
        format!("127.0.0.1:{}", zk.client_port(0))
    );
    assert_eq!(zk.four_letter(0, "ruok").unwrap(), "imok");
    let dir = zk.dir().to_path_buf();
    let port = zk.client_port(0);
    drop(zk);
    assert!(
        four_letter_word(port, "ruok").is_err(),
        "the server still answers"
    );
    if !sluice_testkit::keep_test_dirs() {
        assert!(!dir.exists());
    }
}

#[test]
fn three_node_ensemble_survives_one_node_and_restarts_it() {
    let t0 = Instant::now();
    let zk = ZooKeeperEnsemble::start(3).unwrap();
    eprintln!("3-node ZooKeeper ready in {:?}", t0.elapsed());
    assert_eq!(zk.connect_string().split(',').count(), 3);
    let leader = zk.leader().expect("an ensemble has a leader");
    let follower = (0..3).find(|&i| i != leader).unwrap();
    assert_eq!(zk.mode(follower).as_deref(), Some("follower"));

    zk.kill_node(follower).unwrap();
    assert!(!zk.is_running(follower));
    assert_eq!(zk.mode(follower), None);
    assert!(zk.leader().is_some(), "two of three keep the quorum");

    zk.restart_node(follower).unwrap();
    assert!(zk.mode(follower).is_some());

    zk.pause_node(follower).unwrap();
    assert_eq!(zk.mode(follower), None);
    assert!(zk.is_running(follower));
    zk.resume_node(follower).unwrap();
    zk.wait_serving(follower, Duration::from_secs(30)).unwrap();
}
