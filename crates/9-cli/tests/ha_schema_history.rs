//! `sluice server` in a ZooKeeper cluster keeps the schema history in
//! ZooKeeper: the first server seeds it and records a DDL there (and writes
//! no `schema.history` file); after it is killed, the server that takes
//! the destination over continues that history (it loads it and does not
//! seed again) and records the next DDL after the first server's records.

mod common;

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use common::{binlog_dumps, spawn_server};
use sluice_ha::zookeeper_client::{self, Client};
use sluice_ha::{ZkConfig, ZooKeeperHistoryStore};
use sluice_schema::{HistoryRecord, SchemaHistoryStore};
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig, ZooKeeperEnsemble};

const RUNNING: &str = "/otter/canal/destinations/example/running";
const HISTORY: &str = "/otter/canal/destinations/example/schema-history";
const TIMEOUT: Duration = Duration::from_secs(30);

/// A configuration folder for one server; returns it and the server's port.
fn conf(root: &Path, name: &str, db_port: u16, zk: &str) -> (PathBuf, u16) {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("example")).unwrap();
    let port = find_free_port().unwrap();
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.port = {port}\n\
             canal.register.ip = 127.0.0.1\n\
             canal.destinations = example\n\
             canal.auto.scan = false\n\
             canal.zkServers = {zk}\n\
             canal.zookeeper.ha.delay = 100\n\
             canal.zookeeper.session.timeout = 2000\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{db_port}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.filter.regex = w\\\\..*\n"
        ),
    )
    .unwrap();
    (dir, port)
}

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(conf: &Path, log: &Path) -> Server {
    Server(spawn_server(conf, log))
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + TIMEOUT;
    while !done() {
        assert!(Instant::now() < deadline, "{what} within {TIMEOUT:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

async fn running(zk: &Client) -> Option<String> {
    match zk.get_data(RUNNING).await {
        Ok((data, _)) => Some(String::from_utf8(data).unwrap()),
        Err(zookeeper_client::Error::NoNode) => None,
        Err(e) => panic!("reading {RUNNING}: {e}"),
    }
}

fn ddl_with(records: &[HistoryRecord], text: &str) -> bool {
    records
        .iter()
        .any(|r| matches!(r, HistoryRecord::Ddl { sql, .. } if sql.contains(text)))
}

#[test]
fn the_server_that_takes_over_continues_the_schema_history_in_zookeeper() {
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY)")
        .unwrap();
    let root = tempfile::tempdir().unwrap();
    let (conf_a, port_a) = conf(root.path(), "a", db.port(), &servers);
    let (conf_b, port_b) = conf(root.path(), "b", db.port(), &servers);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let raw = rt.block_on(Client::connect(&servers)).unwrap();
    let mut history = ZooKeeperHistoryStore::connect(ZkConfig::new(&servers), "example").unwrap();

    let log_a = root.path().join("a.log");
    let mut a = spawn(&conf_a, &log_a);
    wait_until("server a runs the destination and dumps", || {
        rt.block_on(running(&raw))
            .is_some_and(|r| r.contains(&port_a.to_string()))
            && binlog_dumps(&db) == 1
    });
    db.exec("ALTER TABLE w.t ADD COLUMN a INT").unwrap();
    let mut records = Vec::new();
    wait_until("server a records the ALTER in ZooKeeper", || {
        records = history.load().unwrap();
        ddl_with(&records, "ADD COLUMN a")
    });
    assert!(
        matches!(&records[0], HistoryRecord::Snapshot { catalog, .. } if catalog.table("w", "t").is_some()),
        "seeded from the server first: {records:?}"
    );
    assert_eq!(records.len(), 2, "{records:?}");
    assert!(
        !conf_a.join("example/schema.history").exists(),
        "no history file"
    );
    let log = std::fs::read_to_string(&log_a).unwrap();
    assert!(
        log.contains(HISTORY),
        "the log names the history node:\n{log}"
    );

    // Killed: the other server takes over once ZooKeeper expired the session.
    let _ = a.0.kill();
    let _ = a.0.wait();
    wait_until("the killed server's dump ends", || binlog_dumps(&db) == 0);
    let log_b = root.path().join("b.log");
    let _b = spawn(&conf_b, &log_b);
    wait_until("server b takes the destination over and dumps", || {
        rt.block_on(running(&raw))
            .is_some_and(|r| r.contains(&port_b.to_string()))
            && binlog_dumps(&db) == 1
    });
    db.exec("ALTER TABLE w.t ADD COLUMN b INT").unwrap();
    wait_until("server b records the next ALTER in ZooKeeper", || {
        records = history.load().unwrap();
        ddl_with(&records, "ADD COLUMN b")
    });
    assert_eq!(records.len(), 3, "a's history, then b's ALTER: {records:?}");
    assert!(ddl_with(&records[1..2], "ADD COLUMN a"));
    assert!(ddl_with(&records[2..], "ADD COLUMN b"));
    assert!(
        !conf_b.join("example/schema.history").exists(),
        "no history file"
    );
    drop(a);
}
