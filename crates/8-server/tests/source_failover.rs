//! Source failover by GTID: `sluice server` follows a private MariaDB
//! primary that has a replica (`--log-slave-updates`, `MASTER_USE_GTID =
//! slave_pos`). When the primary is lost, the server resumes on the replica
//! from the GTID state it had read, once the replica holds every
//! transaction already read, and never before: a Canal client sees every
//! row exactly once, in order, across the switch.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sluice_canal::proto::{EntryType, EventType};
use sluice_client::cluster::{ClusterConnector, ClusterOptions};
use sluice_client::{Connector, SimpleConnector, TimeUnit};
use sluice_instance::manager::InstanceState;
use sluice_server::Server;
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig, ZooKeeperEnsemble};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

/// A primary (server id 1) and its replica (server id 2), replicating by
/// GTID, with the table `w.t` created on the primary and replicated.
fn primary_and_replica(replica_read_only: bool) -> (MariaDb, MariaDb) {
    let primary = MariaDb::start(MariaDbConfig::default().server_id(1)).unwrap();
    primary
        .exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v VARCHAR(20))")
        .unwrap();
    let mut config = MariaDbConfig::default()
        .server_id(2)
        .arg("--log-slave-updates=ON");
    if replica_read_only {
        config = config.arg("--read-only=ON");
    }
    let replica = MariaDb::start(config).unwrap();
    replica.replicate_from(&primary).unwrap();
    caught_up(&primary, &replica);
    (primary, replica)
}

/// Waits until the replica has applied everything the primary has logged.
fn caught_up(primary: &MariaDb, replica: &MariaDb) {
    replica.wait_caught_up(primary).unwrap();
}

fn insert(db: &MariaDb, ids: std::ops::RangeInclusive<u32>) {
    for id in ids {
        db.exec(&format!(
            "INSERT INTO w.t (id, v) VALUES ({id}, 'row {id}')"
        ))
        .unwrap();
    }
}

/// A configuration folder for destination `example` reading `source` from
/// its first binlog, with `standby` as the failover candidate.
fn conf_dir(source: &str, standby: &str, metrics_port: u16) -> tempfile::TempDir {
    conf_dir_with(source, standby, metrics_port, "")
}

/// [`conf_dir`] with more `canal.properties` lines.
fn conf_dir_with(source: &str, standby: &str, metrics_port: u16, more: &str) -> tempfile::TempDir {
    let conf = tempfile::tempdir().unwrap();
    std::fs::write(
        conf.path().join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.metrics.pull.port = {metrics_port}\n\
             canal.destinations = example\ncanal.auto.scan = false\n\
             canal.file.data.dir = {}\n{more}",
            find_free_port().unwrap(),
            conf.path().display()
        ),
    )
    .unwrap();
    std::fs::create_dir_all(conf.path().join("example")).unwrap();
    std::fs::write(
        conf.path().join("example/instance.properties"),
        format!(
            "canal.instance.master.address = {source}\n\
             canal.instance.standby.address = {standby}\n\
             sluice.instance.source.failoverAfter = 1000\n\
             canal.instance.dbUsername = root\n\
             canal.instance.master.journal.name = binlog.000001\n\
             canal.instance.master.position = 4\n\
             canal.instance.filter.regex = w\\\\..*\n"
        ),
    )
    .unwrap();
    conf
}

/// The ids of inserted rows a client received, in order, each with when
/// it arrived; filled by a task that gets and acks until dropped.
#[derive(Clone, Default)]
struct Received(Arc<Mutex<Vec<Arrival>>>);

/// A row's id, when it arrived, and its column names.
type Arrival = (u32, Instant, Vec<String>);

impl Received {
    fn ids(&self) -> Vec<u32> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .map(|(id, _, _)| *id)
            .collect()
    }

    fn arrival_of(&self, id: u32) -> Option<Instant> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .find(|(i, _, _)| *i == id)
            .map(|(_, at, _)| *at)
    }

    /// The column names of row `id` as the client received it.
    fn columns_of(&self, id: u32) -> Vec<String> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .find(|(i, _, _)| *i == id)
            .map(|(_, _, columns)| columns.clone())
            .unwrap_or_default()
    }

    /// Waits until `id` arrived.
    async fn wait_for(&self, id: u32, within: Duration) {
        let deadline = Instant::now() + within;
        while !self.ids().contains(&id) {
            assert!(
                Instant::now() < deadline,
                "row {id} did not arrive; received {:?}",
                self.ids()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Every id from 1 to `last` once, in order.
    fn assert_exactly(&self, last: u32) {
        let ids = self.ids();
        let expected: Vec<u32> = (1..=last).collect();
        if ids != expected {
            let unique: BTreeSet<u32> = ids.iter().copied().collect();
            panic!(
                "expected ids 1..={last} once each in order; got {} rows ({} distinct): {ids:?}",
                ids.len(),
                unique.len()
            );
        }
    }
}

/// Subscribes a Canal client and keeps getting and acking rows.
async fn consume(server: &Server) -> (Received, tokio::task::JoinHandle<()>) {
    let addr = server.local_addr().expect("TCP mode").to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    let client = loop {
        if let Ok(mut c) = SimpleConnector::connect(&addr, "example", "", "").await {
            if c.subscribe("").await.is_ok() {
                break c;
            }
        }
        assert!(Instant::now() < deadline, "cannot subscribe at {addr}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    consume_with(client)
}

/// Keeps getting and acking rows with `client`, already subscribed.
fn consume_with<C: Connector + 'static>(mut client: C) -> (Received, tokio::task::JoinHandle<()>) {
    let received = Received::default();
    let out = received.clone();
    let task = tokio::spawn(async move {
        loop {
            let msg = match client
                .get_without_ack(100, Some(100), TimeUnit::Milliseconds)
                .await
            {
                Ok(msg) => msg,
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            for e in &msg.entries {
                if e.entry_type != Some(EntryType::RowData as i32) {
                    continue;
                }
                let rc = sluice_client::row_change(e).unwrap();
                if rc.event_type != Some(EventType::Insert as i32) {
                    continue;
                }
                for row in &rc.row_datas {
                    let id = row
                        .after_columns
                        .iter()
                        .find(|c| c.name.as_deref() == Some("id"))
                        .and_then(|c| c.value.as_deref())
                        .and_then(|v| v.parse().ok())
                        .expect("an id column");
                    let columns = row
                        .after_columns
                        .iter()
                        .filter_map(|c| c.name.clone())
                        .collect();
                    out.0.lock().unwrap().push((id, Instant::now(), columns));
                }
            }
            if msg.id > 0 {
                // A cluster client follows a move of the destination by
                // itself; an ack that fails leaves the batch to be sent again.
                let _ = client.ack(msg.id).await;
            }
        }
    });
    (received, task)
}

/// `sluice_source_failovers` of destination `example` on `/metrics`.
fn failovers_metric(metrics_port: u16) -> f64 {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", metrics_port)).unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: sluice\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut body = String::new();
    s.read_to_string(&mut body).unwrap();
    body.lines()
        .find(|l| l.starts_with("sluice_source_failovers{") && l.contains("\"example\""))
        .and_then(|l| l.rsplit_once(' '))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or_else(|| panic!("no sluice_source_failovers in:\n{body}"))
}

/// Sessions of `db` that are binlog dumps (replicas reading it).
fn dumps(db: &MariaDb) -> usize {
    db.query("SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'")
        .unwrap()
        .len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn primary_killed_and_replica_promoted_every_row_once_in_order() {
    // The server's log, shown when the test fails.
    let _ = tracing_subscriber::fmt()
        .with_env_filter("info,zookeeper_client=warn")
        .with_test_writer()
        .try_init();
    let (mut primary, replica) = tokio::task::spawn_blocking(|| primary_and_replica(true))
        .await
        .unwrap();
    let metrics_port = find_free_port().unwrap();
    let conf = conf_dir(
        &format!("127.0.0.1:{}", primary.port()),
        &format!("127.0.0.1:{}", replica.port()),
        metrics_port,
    );
    let server = Server::start(sluice_server::load_config(conf.path()).unwrap())
        .await
        .unwrap();
    let (received, consumer) = consume(&server).await;

    // Rows flow from the primary while the client reads them.
    for batch in 0..5 {
        let from = batch * 10 + 1;
        insert(&primary, from..=from + 9);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    received.wait_for(50, Duration::from_secs(30)).await;
    // The primary's schema history ends far into its binlogs (file 4),
    // further than the replica's offsets will reach (its file 1).
    primary
        .exec("FLUSH BINARY LOGS; FLUSH BINARY LOGS; FLUSH BINARY LOGS; ALTER TABLE w.t ADD COLUMN note VARCHAR(10) DEFAULT 'p'")
        .unwrap();
    // Everything read is on the replica (no row is lost with the primary).
    caught_up(&primary, &replica);

    let killed = Instant::now();
    primary.kill().unwrap();
    // A replica that is still read-only is not taken: wait past the
    // failover delay and see no dump of it.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(dumps(&replica), 0, "a read-only replica was taken");
    replica
        .exec("STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF")
        .unwrap();
    let promoted = Instant::now();
    insert(&replica, 51..=90);
    // A schema change on the new source, at offsets smaller than the old
    // source's history: it still comes after it.
    replica
        .exec("ALTER TABLE w.t ADD COLUMN extra INT DEFAULT 7")
        .unwrap();
    insert(&replica, 91..=100);
    received.wait_for(100, Duration::from_secs(60)).await;
    assert_eq!(received.columns_of(90), ["id", "v", "note"]);
    assert_eq!(received.columns_of(100), ["id", "v", "note", "extra"]);
    let first_new = received.arrival_of(51).expect("row 51 arrived");
    received.assert_exactly(100);
    assert_eq!(dumps(&replica), 1, "the server reads the promoted replica");
    assert_eq!(failovers_metric(metrics_port), 1.0);
    eprintln!(
        "primary killed → first row from the promoted replica: {} ms; promoted → that row: {} ms",
        first_new.duration_since(killed).as_millis(),
        first_new.duration_since(promoted).as_millis()
    );
    consumer.abort();
    server.shutdown().await.unwrap();
}

/// A TCP forwarder to a server, that the test can cut: its listener and
/// every connection through it close, as if the server were unreachable.
struct Cuttable {
    addr: String,
    tasks: JoinSet<()>,
}

impl Cuttable {
    async fn to(port: u16) -> Cuttable {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let mut tasks = JoinSet::new();
        tasks.spawn(async move {
            let mut conns = JoinSet::new();
            while let Ok((mut inbound, _)) = listener.accept().await {
                conns.spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(("127.0.0.1", port)).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        });
        Cuttable { addr, tasks }
    }

    /// Closes the listener and every connection (dropping the accept task
    /// drops the connections' set).
    async fn cut(&mut self) {
        self.tasks.abort_all();
        while self.tasks.join_next().await.is_some() {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_candidate_behind_is_refused_until_it_has_caught_up() {
    let (primary, replica) = tokio::task::spawn_blocking(|| primary_and_replica(false))
        .await
        .unwrap();
    let mut path = Cuttable::to(primary.port()).await;
    let metrics_port = find_free_port().unwrap();
    let conf = conf_dir(
        &path.addr,
        &format!("127.0.0.1:{}", replica.port()),
        metrics_port,
    );
    let server = Server::start(sluice_server::load_config(conf.path()).unwrap())
        .await
        .unwrap();
    let (received, consumer) = consume(&server).await;

    // The replica stops applying: rows 1-20 are read by the server but the
    // replica lacks them.
    replica.exec("STOP SLAVE").unwrap();
    insert(&primary, 1..=20);
    received.wait_for(20, Duration::from_secs(30)).await;

    path.cut().await;
    // Past the failover delay, the replica is asked and refused: it would
    // fork what the client already has.
    tokio::time::sleep(Duration::from_millis(3000)).await;
    assert_eq!(
        dumps(&replica),
        0,
        "a replica that lacks rows 1-20 was taken"
    );
    assert_eq!(failovers_metric(metrics_port), 0.0);
    assert_eq!(received.ids().len(), 20);

    // More rows on the primary; the replica catches up with all of them and
    // is then taken, resuming after row 20.
    insert(&primary, 21..=30);
    replica.exec("START SLAVE").unwrap();
    tokio::task::block_in_place(|| caught_up(&primary, &replica));
    received.wait_for(30, Duration::from_secs(60)).await;
    // Rows written to the primary now reach the client through the replica.
    insert(&primary, 31..=40);
    received.wait_for(40, Duration::from_secs(30)).await;
    received.assert_exactly(40);
    assert_eq!(dumps(&replica), 1);
    assert_eq!(failovers_metric(metrics_port), 1.0);
    consumer.abort();
    server.shutdown().await.unwrap();
}

/// High availability of Sluice and failover of the source in one run: two
/// servers share destination `example` through ZooKeeper (cursors there
/// too); the source's primary is killed and its replica promoted, then the
/// server running the destination stops and the other one takes over. It
/// is configured with the dead primary as its source, and starts on the
/// promoted replica from the GTID state of the cursor in ZooKeeper. The
/// cluster client sees every row, in order; only batches it had not acked
/// when a server stopped may come again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_in_zookeeper_follow_a_source_failover_and_a_take_over() {
    let zk = ZooKeeperEnsemble::start_standalone().unwrap();
    let (mut primary, replica) = tokio::task::spawn_blocking(|| primary_and_replica(true))
        .await
        .unwrap();
    let mut servers = Vec::new();
    let mut confs = Vec::new();
    for _ in 0..2 {
        let conf = conf_dir_with(
            &format!("127.0.0.1:{}", primary.port()),
            &format!("127.0.0.1:{}", replica.port()),
            0,
            &format!(
                "canal.register.ip = 127.0.0.1\ncanal.zkServers = {}\n\
                 canal.zookeeper.ha.delay = 1000\n",
                zk.connect_string()
            ),
        );
        let config = sluice_server::load_config(conf.path()).unwrap();
        servers.push(Server::start(config).await.unwrap());
        confs.push(conf);
    }
    let mut client = ClusterConnector::connect(
        &zk.connect_string(),
        "example",
        "",
        "",
        ClusterOptions::default(),
    )
    .await
    .unwrap();
    client.subscribe("").await.unwrap();
    let (received, consumer) = consume_with(client);

    insert(&primary, 1..=30);
    received.wait_for(30, Duration::from_secs(60)).await;
    caught_up(&primary, &replica);
    primary.kill().unwrap();
    replica
        .exec("STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF")
        .unwrap();
    insert(&replica, 31..=60);
    received.wait_for(60, Duration::from_secs(60)).await;

    // The server that runs the destination stops; the other takes it over.
    let running = servers
        .iter()
        .position(|s| {
            s.destinations()
                .iter()
                .any(|(d, state)| d == "example" && matches!(state, InstanceState::Running))
        })
        .expect("one server runs example");
    servers.remove(running).shutdown().await.unwrap();
    insert(&replica, 61..=90);
    received.wait_for(90, Duration::from_secs(90)).await;

    // Every row, first arrivals in order; a repeat only of rows delivered
    // just before the take-over and not yet acked.
    let ids = received.ids();
    let mut first = Vec::new();
    for id in &ids {
        if !first.contains(id) {
            first.push(*id);
        }
    }
    assert_eq!(first, (1..=90).collect::<Vec<u32>>(), "received {ids:?}");
    assert!(ids.len() - first.len() <= 100, "too many repeats: {ids:?}");
    assert_eq!(
        dumps(&replica),
        1,
        "the remaining server reads the promoted replica"
    );
    consumer.abort();
    for server in servers {
        server.shutdown().await.unwrap();
    }
}
