//! `sluice server` with ZooKeeper credentials (`sluice.zookeeper.auth.file`):
//! its running node, registration and cursors are readable by anyone (the
//! default ACL) but writable only with the same credentials; the cluster
//! client with those credentials consumes and acks; `sluice release` works
//! with them (SLUICE_ZOOKEEPER_AUTH) and is refused without.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::{insert_ids, spawn_server, write_example_instance};
use sluice_client::cluster::{ClusterConnector, ClusterOptions};
use sluice_client::{Connector, TimeUnit};
use sluice_ha::zookeeper_client::{Client, Error as ZkError};
use sluice_ha::ZkAuth;
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig, ZooKeeperEnsemble};

const RUNNING: &str = "/otter/canal/destinations/example/running";
const CURSOR: &str = "/otter/canal/destinations/example/1001/cursor";
const CREDENTIALS: &str = "digest:sluice:zk-S3cret";

/// Runs `sluice release example --zk servers --wait 1` with `auth` in
/// SLUICE_ZOOKEEPER_AUTH; returns what it printed.
fn release(zk_servers: &str, auth: Option<&str>) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sluice"));
    // Forced: one server runs here, and what is tested is who may write.
    cmd.args([
        "release", "--zk", zk_servers, "example", "--wait", "1", "--force",
    ])
    .env_remove("SLUICE_ZOOKEEPER_AUTH");
    if let Some(a) = auth {
        cmd.env("SLUICE_ZOOKEEPER_AUTH", a);
    }
    let out = cmd.output().unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_with_credentials_keeps_its_nodes_to_itself() {
    let zk = ZooKeeperEnsemble::start_standalone().unwrap();
    let zk_servers = zk.connect_string();
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY)")
        .unwrap();
    let root = tempfile::tempdir().unwrap();
    let conf = root.path().join("conf");
    std::fs::create_dir_all(&conf).unwrap();
    let port = find_free_port().unwrap();
    std::fs::write(conf.join("zk-auth"), format!("{CREDENTIALS}\n")).unwrap();
    std::fs::write(
        conf.join("canal.properties"),
        format!(
            "canal.port = {port}\n\
             canal.register.ip = 127.0.0.1\n\
             canal.destinations = example\n\
             canal.auto.scan = false\n\
             canal.zkServers = {zk_servers}\n\
             canal.zookeeper.session.timeout = 4000\n\
             canal.zookeeper.ha.delay = 500\n\
             sluice.zookeeper.auth.file = zk-auth\n"
        ),
    )
    .unwrap();
    write_example_instance(&conf, db.port(), r"w\\..*");
    let log = root.path().join("server.log");
    let mut server = spawn_server(&conf, &log);
    let address = format!("127.0.0.1:{port}");

    // Anyone may read the running node: a Canal client finds the server.
    let anonymous = Client::connect(&zk_servers).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok((data, _)) = anonymous.get_data(RUNNING).await {
            assert_eq!(
                String::from_utf8(data).unwrap(),
                format!(r#"{{"active":true,"address":"{address}"}}"#)
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no running node: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // The cluster client with the servers' credentials consumes and acks.
    let mut client = ClusterConnector::connect(
        &zk_servers,
        "example",
        "",
        "",
        ClusterOptions {
            zk_session_timeout: Duration::from_secs(4),
            zk_auth: Some(ZkAuth::parse(CREDENTIALS).unwrap()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    client.subscribe("").await.unwrap();
    db.exec("INSERT INTO w.t VALUES (1), (2)").unwrap();
    let mut open = Vec::new();
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while seen.len() < 2 {
        assert!(Instant::now() < deadline, "rows not delivered: {seen:?}");
        let m = client
            .get_without_ack(100, Some(200), TimeUnit::Milliseconds)
            .await
            .unwrap();
        seen.extend(insert_ids(&m.entries, &mut open).0);
        if m.id != -1 {
            client.ack(m.id).await.unwrap();
        }
    }
    // The ack's cursor is written (on ack, by default) with the ACL too.
    let deadline = Instant::now() + Duration::from_secs(10);
    while anonymous.get_data(CURSOR).await.is_err() {
        assert!(Instant::now() < deadline, "no cursor written");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Without the credentials nothing of it can be changed.
    for node in [
        RUNNING.to_string(),
        CURSOR.to_string(),
        format!("/otter/canal/cluster/{address}"),
    ] {
        match anonymous.set_data(&node, b"{}", None).await {
            Err(ZkError::NoAuth) => {}
            other => panic!("set_data {node} without the credentials: {other:?}"),
        }
        match anonymous.delete(&node, None).await {
            Err(ZkError::NoAuth) => {}
            other => panic!("delete {node} without the credentials: {other:?}"),
        }
    }
    client.disconnect().await.unwrap();

    // sluice release needs the credentials too.
    let said = tokio::task::spawn_blocking({
        let zk_servers = zk_servers.clone();
        move || release(&zk_servers, None)
    })
    .await
    .unwrap();
    assert!(
        said.contains("not authorized") && said.contains("SLUICE_ZOOKEEPER_AUTH"),
        "{said}"
    );
    let said = tokio::task::spawn_blocking({
        let zk_servers = zk_servers.clone();
        move || release(&zk_servers, Some(CREDENTIALS))
    })
    .await
    .unwrap();
    assert!(said.contains("asked 127.0.0.1"), "{said}");
    assert!(!said.contains("zk-S3cret"), "{said}");
    let _ = server.kill();
    let _ = server.wait();
}
