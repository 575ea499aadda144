//! ZooKeeper digest auth and ACLs against a real ZooKeeper: with
//! credentials configured, every node Sluice creates (registration, the
//! running node, cursors, the schema history and the parents it creates)
//! can be changed or removed only by sessions with the same credentials;
//! others can read them (the default, so Canal clients still discover
//! servers) or not even that (`creator-all`).

mod common;

use std::time::Duration;

use common::*;
use sluice_canal::LogPosition;
use sluice_ha::zookeeper_client::{Client, Error as ZkError};
use sluice_ha::{
    paths, ElectionConfig, NodeAcl, Role, RunningElection, ServerRegistry, ZkAuth, ZkConfig,
    ZkSession, ZooKeeperCursorStore, ZooKeeperHistoryStore,
};
use sluice_meta::{ClientData, ClientIdentity, CursorStore, DestinationMeta};
use sluice_schema::{BinlogPosition, HistoryRecord, SchemaHistoryStore};
use sluice_testkit::ZooKeeperEnsemble;

const ADDRESS: &str = "127.0.0.1:11111";
const CANAL_CURSOR: &str = r#"{"@type":"com.alibaba.otter.canal.protocol.position.LogPosition","identity":{"slaveId":-1,"sourceAddress":{"address":"127.0.0.1","port":3306}},"postion":{"gtid":"","included":false,"journalName":"binlog.000001","position":4,"serverId":1,"timestamp":1700000000000}}"#;

fn secured(servers: &str, acl: NodeAcl) -> ZkConfig {
    ZkConfig::new(servers)
        .with_session_timeout(Duration::from_secs(4))
        .with_auth(ZkAuth::parse("digest:sluice:s3cret").unwrap())
        .with_acl(acl)
}

/// Registers, takes `example`'s running node, saves a cursor of client 1001
/// and appends a schema history record, all with `config`. Returns what
/// must stay alive for the ephemeral nodes to last.
async fn write_everything(config: ZkConfig) -> (ZkSession, ServerRegistry, RunningElection) {
    let session = ZkSession::connect(config.clone()).await.unwrap();
    let registry = ServerRegistry::start(&session, ADDRESS).unwrap();
    registry.add_destination("example").unwrap();
    let election = RunningElection::start(
        &session,
        ElectionConfig::server("example", ADDRESS).unwrap(),
    );
    wait_role(&election, Role::Running, Duration::from_secs(20)).await;
    let cursors_config = config.clone();
    tokio::task::spawn_blocking(move || {
        let store = ZooKeeperCursorStore::connect(cursors_config).unwrap();
        store
            .save(&DestinationMeta {
                destination: "example".into(),
                client_datas: vec![ClientData {
                    client_identity: ClientIdentity {
                        client_id: 1001,
                        destination: "example".into(),
                        filter: "shop\\..*".into(),
                    },
                    cursor: Some(LogPosition::from_json(CANAL_CURSOR).unwrap()),
                }],
            })
            .unwrap();
        store
            .save_start(
                "example",
                &sluice_canal::EntryPosition {
                    journal_name: "binlog.000001".into(),
                    position: 4,
                    ..Default::default()
                },
            )
            .unwrap();
        let mut history = ZooKeeperHistoryStore::connect(config, "example").unwrap();
        history
            .append(&HistoryRecord::Ddl {
                position: BinlogPosition::new("binlog.000001", 4),
                db: "shop".into(),
                sql: "CREATE TABLE t (a INT)".into(),
                kind: "CREATE TABLE".into(),
                parsed_by: None,
                deltas: Vec::new(),
                unparsed: None,
            })
            .unwrap();
    })
    .await
    .unwrap();
    // The registration is asynchronous: wait for it.
    let raw = raw(&session.config().servers).await;
    eventually(Duration::from_secs(10), "registration nodes", || {
        let raw = raw.clone();
        async move {
            raw.check_stat(&paths::destination_cluster_node("example", ADDRESS))
                .await
                .ok()
                .flatten()
                .is_some()
        }
    })
    .await;
    (session, registry, election)
}

/// Every node of the layout Sluice wrote, with the history's record.
async fn written_nodes(client: &Client) -> Vec<String> {
    let history = paths::schema_history("example");
    let records = client.list_children(&history).await.unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    vec![
        paths::cluster_node(ADDRESS),
        paths::destination_cluster_node("example", ADDRESS),
        paths::destination_running("example"),
        paths::client("example", 1001),
        paths::client_filter("example", 1001),
        paths::client_cursor("example", 1001),
        paths::start_position("example"),
        format!("{history}/{}", records[0]),
        history,
        paths::destination("example"),
    ]
}

/// `client` can neither change nor delete any of `nodes` (nor create a
/// node under them).
async fn locked_out(client: &Client, nodes: &[String]) {
    for node in nodes {
        match client.set_data(node, b"intruder", None).await {
            Err(ZkError::NoAuth) => {}
            other => panic!("set_data {node} without the credentials: {other:?}"),
        }
        match client.delete(node, None).await {
            // NotEmpty is checked after the permission: also refused.
            Err(ZkError::NoAuth) => {}
            other => panic!("delete {node} without the credentials: {other:?}"),
        }
        let child = format!("{node}/intruder");
        match client
            .create(
                &child,
                b"",
                &sluice_ha::zookeeper_client::CreateMode::Persistent
                    .with_acls(sluice_ha::zookeeper_client::Acls::anyone_all()),
            )
            .await
        {
            Err(ZkError::NoAuth) | Err(ZkError::NoChildrenForEphemerals) => {}
            other => panic!("create {child} without the credentials: {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_sessions_with_the_credentials_change_what_sluice_writes() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start_standalone().unwrap();
    let servers = zk.connect_string();
    let (_session, _registry, _election) =
        write_everything(secured(&servers, NodeAcl::CreatorAllWorldRead)).await;

    let anonymous = raw(&servers).await;
    let nodes = written_nodes(&anonymous).await;
    // World-readable: a Canal client without credentials finds the server.
    let (running, _) = anonymous
        .get_data(&paths::destination_running("example"))
        .await
        .unwrap();
    assert_eq!(
        String::from_utf8(running).unwrap(),
        format!(r#"{{"active":true,"address":"{ADDRESS}"}}"#)
    );
    assert!(anonymous
        .get_data(&paths::client_cursor("example", 1001))
        .await
        .is_ok());
    locked_out(&anonymous, &nodes).await;

    // Other credentials are no better than none.
    let stranger = Client::connector()
        .with_auth("digest", b"sluice:wrong")
        .connect(&servers)
        .await
        .unwrap();
    locked_out(&stranger, &nodes).await;

    // The same credentials (another server of the cluster) may write.
    let peer = Client::connector()
        .with_auth("digest", b"sluice:s3cret")
        .connect(&servers)
        .await
        .unwrap();
    let cursor = paths::client_cursor("example", 1001);
    peer.set_data(&cursor, CANAL_CURSOR.as_bytes(), None)
        .await
        .unwrap();
    let (acl, _) = anonymous.get_acl(&cursor).await.unwrap();
    assert_eq!(acl.len(), 2, "{acl:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creator_all_hides_the_nodes_from_sessions_without_the_credentials() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start_standalone().unwrap();
    let servers = zk.connect_string();
    let (_session, _registry, _election) =
        write_everything(secured(&servers, NodeAcl::CreatorAll)).await;
    let anonymous = raw(&servers).await;
    for node in [
        paths::destination_running("example"),
        paths::client_cursor("example", 1001),
    ] {
        match anonymous.get_data(&node).await {
            Err(ZkError::NoAuth) => {}
            other => panic!("reading {node} without the credentials: {other:?}"),
        }
    }
    let peer = Client::connector()
        .with_auth("digest", b"sluice:s3cret")
        .connect(&servers)
        .await
        .unwrap();
    assert!(peer
        .get_data(&paths::destination_running("example"))
        .await
        .is_ok());
}

#[test]
fn auth_text_parses_and_hides_the_secret() {
    let auth = ZkAuth::parse("digest:sluice:s3cret").unwrap();
    assert_eq!(auth.scheme(), "digest");
    assert!(!format!("{auth:?}").contains("s3cret"));
    for bad in ["", "digest", "digest:", ":x", "digest:nocolon"] {
        let e = ZkAuth::parse(bad).unwrap_err();
        assert!(!e.contains("nocolon"), "the error repeats the secret: {e}");
    }
}
