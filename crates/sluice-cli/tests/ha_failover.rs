//! High availability with ZooKeeper: a 3-node ensemble and two `sluice
//! server` processes (same configuration except the port) on one MariaDB.
//!
//! - Exactly one server runs the destination: the `running` node holds
//!   `{"active":true,"address":"127.0.0.1:PORT"}` of one of them and MariaDB
//!   shows exactly one `Binlog Dump`.
//! - A client reads from it while rows are written; the running server is
//!   killed with SIGKILL; the standby takes over once ZooKeeper expired the
//!   dead server's session, `canal.zookeeper.ha.delay` later (measured), the
//!   client follows the `running` node to it and every row arrives. The only
//!   rows delivered again are those of transactions not complete in an acked
//!   batch whose ack the dead server confirmed, or confirmed less than a
//!   cursor flush period (plus margin) before the kill: cursors reach
//!   ZooKeeper every `canal.zookeeper.flush.period`, as in Canal.
//! - The new running server is stopped (SIGSTOP) past its session timeout,
//!   the restarted first server takes over, then the stopped one continues
//!   (SIGCONT): it stops dumping at once and does not dump again.
//!
//! The measured take-over time is written to `docs/benchmarks.md` between
//! the `ha-failover` markers (`SLUICE_BENCH_NO_DOCS=1` skips that).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sluice_canal::proto::{EntryType, EventType};
use sluice_client::{SimpleConnector, TimeUnit};
use sluice_ha::zookeeper_client::{self, Client};
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig, ZooKeeperEnsemble};

const ROWS: i64 = 1800;
const HA_DELAY: Duration = Duration::from_millis(2000);
const SESSION_TIMEOUT: Duration = Duration::from_millis(4000);
const FLUSH_PERIOD: Duration = Duration::from_millis(100);
/// Acks confirmed this long before a kill must have reached ZooKeeper.
const FLUSH_MARGIN: Duration = Duration::from_millis(1000);
const RUNNING: &str = "/otter/canal/destinations/example/running";

fn write_conf(dir: &Path, db_port: u16, canal_port: u16, zk: &str) {
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.port = {canal_port}\n\
             canal.register.ip = 127.0.0.1\n\
             canal.destinations = example\n\
             canal.auto.scan = false\n\
             canal.zkServers = {zk}\n\
             canal.instance.global.spring.xml = classpath:spring/default-instance.xml\n\
             canal.zookeeper.flush.period = {}\n\
             canal.zookeeper.ha.delay = {}\n\
             canal.zookeeper.session.timeout = {}\n\
             canal.instance.memory.buffer.size = 256\n",
            FLUSH_PERIOD.as_millis(),
            HA_DELAY.as_millis(),
            SESSION_TIMEOUT.as_millis(),
        ),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("example")).unwrap();
    std::fs::write(
        dir.join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{db_port}\ncanal.instance.dbUsername = root\ncanal.instance.master.journal.name = binlog.000001\ncanal.instance.master.position = 4\ncanal.instance.filter.regex = w\\\\..*\n"
        ),
    )
    .unwrap();
}

struct Server {
    port: u16,
    conf: PathBuf,
    log: PathBuf,
    child: Option<Child>,
}

impl Server {
    fn new(root: &Path, name: &str, db_port: u16, zk: &str) -> Server {
        let conf = root.join(name);
        std::fs::create_dir_all(&conf).unwrap();
        let port = find_free_port().unwrap();
        write_conf(&conf, db_port, port, zk);
        let log = root.join(format!("{name}.log"));
        Server {
            port,
            conf,
            log,
            child: None,
        }
    }

    fn spawn(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_sluice"))
            .args(["server", "--conf"])
            .arg(&self.conf)
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        self.child = Some(child);
    }

    fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    fn signal(&self, sig: &str) {
        let pid = self.child.as_ref().unwrap().id().to_string();
        let status = Command::new("kill").args([sig, &pid]).status().unwrap();
        assert!(status.success(), "kill {sig} {pid} failed");
    }

    fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.child.is_some() {
            let _ = self.signal_quietly("-CONT");
        }
        self.kill();
    }
}

impl Server {
    fn signal_quietly(&self, sig: &str) -> Option<()> {
        let pid = self.child.as_ref()?.id().to_string();
        Command::new("kill").args([sig, &pid]).status().ok()?;
        Some(())
    }
}

/// The raw content of the `running` node, `None` while it is absent.
async fn running_node(zk: &Client) -> Option<String> {
    match zk.get_data(RUNNING).await {
        Ok((data, _)) => Some(String::from_utf8(data).unwrap()),
        Err(zookeeper_client::Error::NoNode) => None,
        Err(e) => panic!("reading {RUNNING}: {e}"),
    }
}

fn running_json(address: &str) -> String {
    format!(r#"{{"active":true,"address":"{address}"}}"#)
}

/// Waits until the `running` node names one of `candidates`; returns it.
async fn wait_running(zk: &Client, candidates: &[String], timeout: Duration) -> String {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(json) = running_node(zk).await {
            if let Some(a) = candidates.iter().find(|a| json == running_json(a)) {
                return a.clone();
            }
        }
        assert!(
            Instant::now() < deadline,
            "no running node naming one of {candidates:?} within {timeout:?} (now {:?})",
            running_node(zk).await
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn binlog_dumps(db: &MariaDb) -> usize {
    db.query("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND = 'Binlog Dump'")
        .unwrap()[0][0]
        .as_deref()
        .unwrap()
        .parse()
        .unwrap()
}

fn wait_dumps(db: &MariaDb, n: usize, timeout: Duration) -> Duration {
    let start = Instant::now();
    while binlog_dumps(db) != n {
        assert!(
            start.elapsed() < timeout,
            "MariaDB does not show {n} Binlog Dump within {timeout:?} (shows {})",
            binlog_dumps(db)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    start.elapsed()
}

/// What the client has seen, and which re-deliveries would be a bug.
#[derive(Default)]
struct Consumer {
    delivered: Vec<i64>,
    seen: BTreeSet<i64>,
    /// Rows of complete transactions in batches whose ack was confirmed, and when.
    confirmed: BTreeMap<i64, Instant>,
    pending_ack: Vec<i64>,
    open_txn: Vec<i64>,
    kills: Vec<Instant>,
}

impl Consumer {
    fn reconnected(&mut self) {
        self.pending_ack.clear();
        self.open_txn.clear();
    }

    /// Whether delivering `id` again is allowed: its ack was not confirmed,
    /// or confirmed within a flush period (plus margin) before a kill.
    fn may_repeat(&self, id: i64) -> bool {
        match self.confirmed.get(&id) {
            None => true,
            Some(t) => self
                .kills
                .iter()
                .any(|k| *t <= *k && k.duration_since(*t) <= FLUSH_PERIOD + FLUSH_MARGIN),
        }
    }

    /// One get + ack on `client`; `Err` when the connection failed.
    async fn step(&mut self, client: &mut SimpleConnector) -> Result<(), ()> {
        let msg = client
            .get_without_ack(50, Some(100), TimeUnit::Milliseconds)
            .await
            .map_err(|_| ())?;
        let now = Instant::now();
        for id in self.pending_ack.drain(..) {
            self.confirmed.insert(id, now);
        }
        if msg.id < 0 {
            return Ok(());
        }
        let mut ids = Vec::new();
        let mut complete = Vec::new();
        for e in &msg.entries {
            if e.entry_type == Some(EntryType::TransactionEnd as i32) {
                complete.append(&mut self.open_txn);
                continue;
            }
            if e.entry_type != Some(EntryType::RowData as i32) {
                continue;
            }
            let Ok(rc) = sluice_client::row_change(e) else {
                continue;
            };
            if rc.event_type != Some(EventType::Insert as i32) {
                continue;
            }
            for rd in &rc.row_datas {
                if let Some(v) = rd.after_columns.first().and_then(|c| c.value.clone()) {
                    let id: i64 = v.parse().unwrap();
                    ids.push(id);
                    self.open_txn.push(id);
                }
            }
        }
        for id in &ids {
            assert!(
                self.may_repeat(*id),
                "row {id} delivered again although its transaction was acked, confirmed and flushed"
            );
        }
        self.delivered.extend(&ids);
        self.seen.extend(&ids);
        if client.ack(msg.id).await.is_ok() {
            self.pending_ack = complete;
        }
        Ok(())
    }
}

/// Connects to whichever server the `running` node names.
async fn connect_running(zk: &Client, timeout: Duration) -> (SimpleConnector, String) {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(json) = running_node(zk).await {
            let info: serde_json::Value = serde_json::from_str(&json).unwrap();
            if let Some(addr) = info["address"].as_str() {
                if let Ok(mut c) = SimpleConnector::connect(addr, "example", "", "").await {
                    if c.subscribe("").await.is_ok() {
                        return (c, addr.to_string());
                    }
                }
            }
        }
        assert!(
            Instant::now() < deadline,
            "cannot reach the running server within {timeout:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

struct Failover {
    session_expired: Duration,
    taken_over: Duration,
    dumping: Duration,
    /// From SIGTERM of the running server to the standby's `running` node.
    after_shutdown: Duration,
}

fn write_benchmark(f: &Failover) {
    if std::env::var_os("SLUICE_BENCH_NO_DOCS").is_some() {
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/benchmarks.md");
    let Ok(old) = std::fs::read_to_string(&path) else {
        return;
    };
    let ms = |d: Duration| d.as_millis();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let section = format!(
        "<!-- ha-failover:begin -->\n\
## HA failover: take-over after `kill -9` of the running server\n\
\n\
Setup: 3-node ZooKeeper ensemble (tickTime 500 ms), two `sluice server` processes on one MariaDB, \
`canal.zookeeper.session.timeout` = {st} ms, `canal.zookeeper.ha.delay` = {delay} ms, \
`canal.zookeeper.flush.period` = {flush} ms; a writer inserts rows while a client reads from the running server. \
Machine: {cores} CPUs. Written by `cargo test -p sluice-cli --test ha_failover`.\n\
\n\
| from `kill -9` of the running server to | ms |\n\
| --- | ---: |\n\
| its `running` node gone (ZooKeeper expired its session, timed from its last request, so up to a ping interval early) | {gone} |\n\
| the standby's `running` node (take-over) | {taken} |\n\
| the standby's `Binlog Dump` in MariaDB's processlist | {dump} |\n\
\n\
Node gone → taken over: {gap} ms (the configured delay is {delay} ms). A killed server's node \
lasts until its session expires, so the take-over takes the session timeout plus the delay. \
A server shut down normally (SIGTERM) releases its nodes and the standby takes over at once: \
{term} ms from SIGTERM to the standby's `running` node in the same run.\n\
<!-- ha-failover:end -->",
        st = ms(SESSION_TIMEOUT),
        delay = ms(HA_DELAY),
        flush = ms(FLUSH_PERIOD),
        gone = ms(f.session_expired),
        taken = ms(f.taken_over),
        dump = ms(f.dumping),
        gap = ms(f.taken_over.saturating_sub(f.session_expired)),
        term = ms(f.after_shutdown),
    );
    let begin = "<!-- ha-failover:begin -->";
    let end = "<!-- ha-failover:end -->";
    let new = match (old.find(begin), old.find(end)) {
        (Some(b), Some(e)) if b < e => {
            format!("{}{section}{}", &old[..b], &old[e + end.len()..])
        }
        _ => format!("{}\n\n{section}\n", old.trim_end()),
    };
    std::fs::write(&path, new).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standby_takes_over_after_kill_9_and_a_paused_owner_stays_fenced() {
    let ensemble = ZooKeeperEnsemble::start(3).unwrap();
    let zk_servers = ensemble.connect_string();
    let db = Arc::new(MariaDb::start(MariaDbConfig::default()).unwrap());
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v VARCHAR(64))")
        .unwrap();
    let root = tempfile::tempdir().unwrap();
    let mut servers = [
        Server::new(root.path(), "a", db.port(), &zk_servers),
        Server::new(root.path(), "b", db.port(), &zk_servers),
    ];
    let addresses: Vec<String> = servers.iter().map(Server::address).collect();
    for s in servers.iter_mut() {
        s.spawn();
    }
    let zk = Client::connect(&zk_servers).await.unwrap();

    // Exactly one runs.
    let first = wait_running(&zk, &addresses, Duration::from_secs(60)).await;
    let first_idx = addresses.iter().position(|a| *a == first).unwrap();
    let other_idx = 1 - first_idx;
    assert_eq!(running_node(&zk).await.unwrap(), running_json(&first));
    wait_dumps(&db, 1, Duration::from_secs(30));
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let cluster = zk.list_children("/otter/canal/cluster").await.unwrap();
        let dest_cluster = zk
            .list_children("/otter/canal/destinations/example/cluster")
            .await
            .unwrap();
        if addresses
            .iter()
            .all(|a| cluster.contains(a) && dest_cluster.contains(a))
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "cluster nodes {cluster:?} / {dest_cluster:?} do not list {addresses:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for _ in 0..20 {
        assert_eq!(binlog_dumps(&db), 1, "the standby dumps too");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // A writer, and a client on the running server.
    let writing = Arc::new(AtomicBool::new(true));
    let writer = {
        let db = db.clone();
        let writing = writing.clone();
        std::thread::spawn(move || {
            for t in 0..(ROWS / 3) {
                let stmts: Vec<String> = (0..3)
                    .map(|i| format!("INSERT INTO w.t VALUES ({0}, 'row {0}')", t * 3 + i))
                    .collect();
                db.exec(&format!("BEGIN; {}; COMMIT", stmts.join("; ")))
                    .unwrap();
                std::thread::sleep(Duration::from_millis(10));
            }
            writing.store(false, Ordering::SeqCst);
        })
    };
    let mut consumer = Consumer::default();
    let (mut client, addr) = connect_running(&zk, Duration::from_secs(30)).await;
    assert_eq!(addr, first);
    let deadline = Instant::now() + Duration::from_secs(60);
    while (consumer.seen.len() as i64) < ROWS / 3 {
        assert!(Instant::now() < deadline, "rows do not arrive");
        consumer
            .step(&mut client)
            .await
            .expect("the running server failed");
    }

    // kill -9 the running server.
    servers[first_idx].kill();
    let killed = Instant::now();
    consumer.kills.push(killed);
    let mut session_expired = None;
    let second = &addresses[other_idx];
    loop {
        match running_node(&zk).await {
            None => {
                session_expired.get_or_insert_with(|| killed.elapsed());
            }
            Some(json) if json == running_json(second) => break,
            Some(_) => {}
        }
        assert!(
            killed.elapsed() < Duration::from_secs(60),
            "no take-over within 60 s"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let taken_over = killed.elapsed();
    let session_expired = session_expired.unwrap_or(taken_over);
    let dumping = {
        let db = db.clone();
        tokio::task::spawn_blocking(move || {
            wait_dumps(&db, 1, Duration::from_secs(30));
            killed.elapsed()
        })
        .await
        .unwrap()
    };
    let mut failover = Failover {
        session_expired,
        taken_over,
        dumping,
        after_shutdown: Duration::ZERO,
    };
    eprintln!(
        "kill -9 → node gone {session_expired:?}, taken over {taken_over:?}, dumping {dumping:?}"
    );
    assert!(
        taken_over - session_expired <= HA_DELAY + Duration::from_secs(1),
        "take-over {:?} after the node vanished (delay {HA_DELAY:?})",
        taken_over - session_expired
    );
    assert!(
        taken_over <= SESSION_TIMEOUT + HA_DELAY + Duration::from_secs(2),
        "take-over {taken_over:?} after the kill"
    );

    // The client follows; every row arrives.
    consumer.reconnected();
    let (c, addr) = connect_running(&zk, Duration::from_secs(30)).await;
    client = c;
    assert_eq!(&addr, second);
    let deadline = Instant::now() + Duration::from_secs(120);
    while (consumer.seen.len() as i64) < ROWS {
        assert!(
            Instant::now() < deadline,
            "only {} of {ROWS} rows arrived; logs in {}",
            consumer.seen.len(),
            root.path().display()
        );
        if consumer.step(&mut client).await.is_err() {
            consumer.reconnected();
            client = connect_running(&zk, Duration::from_secs(30)).await.0;
        }
    }
    writer.join().unwrap();
    assert!(!writing.load(Ordering::SeqCst));
    let missing: Vec<i64> = (0..ROWS)
        .filter(|i| !consumer.seen.contains(i))
        .take(10)
        .collect();
    assert!(missing.is_empty(), "rows never delivered: {missing:?}");
    eprintln!(
        "{} rows delivered for {ROWS} written ({} again)",
        consumer.delivered.len(),
        consumer.delivered.len() as i64 - ROWS
    );
    drop(client);

    // The first server comes back as a standby.
    let back_log_start = servers[first_idx].log_text().len();
    servers[first_idx].spawn();
    let back = &addresses[first_idx];
    let deadline = Instant::now() + Duration::from_secs(30);
    while !zk
        .list_children("/otter/canal/destinations/example/cluster")
        .await
        .unwrap()
        .contains(back)
    {
        assert!(Instant::now() < deadline, "{back} does not register again");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(running_node(&zk).await.unwrap(), running_json(second));
    assert_eq!(binlog_dumps(&db), 1);

    // Rows keep coming while the owner is paused past its session timeout.
    let more = Arc::new(AtomicUsize::new(0));
    let stop_writing = Arc::new(AtomicBool::new(false));
    let writer = {
        let db = db.clone();
        let more = more.clone();
        let stop = stop_writing.clone();
        std::thread::spawn(move || {
            let mut id = ROWS;
            while !stop.load(Ordering::SeqCst) {
                db.exec(&format!("INSERT INTO w.t VALUES ({id}, 'more')"))
                    .unwrap();
                id += 1;
                more.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    servers[other_idx].signal("-STOP");
    let paused = Instant::now();
    let took = wait_running(&zk, std::slice::from_ref(back), Duration::from_secs(60)).await;
    assert_eq!(&took, back);
    eprintln!("paused owner replaced after {:?}", paused.elapsed());
    let deadline = Instant::now() + Duration::from_secs(30);
    while !servers[first_idx].log_text()[back_log_start..].contains("instance reading the source") {
        assert!(Instant::now() < deadline, "{back} does not start dumping");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    // While the owner is stopped its idle dump connection may still be
    // listed; once it continues it must drop it and never dump again.
    let log_before = servers[other_idx].log_text().len();
    servers[other_idx].signal("-CONT");
    let resumed = Instant::now();
    let settle = {
        let db = db.clone();
        tokio::task::spawn_blocking(move || wait_dumps(&db, 1, Duration::from_secs(10)))
            .await
            .unwrap()
    };
    eprintln!("one Binlog Dump again {settle:?} after SIGCONT");
    let watch_until = Instant::now() + SESSION_TIMEOUT + HA_DELAY + Duration::from_secs(2);
    while Instant::now() < watch_until {
        assert_eq!(
            binlog_dumps(&db),
            1,
            "two servers dump after the paused one continued"
        );
        assert_eq!(running_node(&zk).await.unwrap(), running_json(back));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    stop_writing.store(true, Ordering::SeqCst);
    writer.join().unwrap();
    let after = &servers[other_idx].log_text()[log_before..];
    assert!(
        !after.contains("this server runs the destination"),
        "the paused server ran the destination again after SIGCONT: {after}"
    );
    eprintln!(
        "{} rows written during the pause test; one dump only for {:?} after SIGCONT",
        more.load(Ordering::SeqCst),
        resumed.elapsed()
    );

    // A normal shutdown hands the destination over at once.
    servers[first_idx].signal("-TERM");
    let terminated = Instant::now();
    wait_running(&zk, std::slice::from_ref(second), Duration::from_secs(30)).await;
    failover.after_shutdown = terminated.elapsed();
    eprintln!("SIGTERM → taken over {:?}", failover.after_shutdown);
    assert!(
        failover.after_shutdown < HA_DELAY,
        "a released destination was taken over only after {:?}",
        failover.after_shutdown
    );
    let status = servers[first_idx].child.take().unwrap().wait().unwrap();
    assert!(
        status.success(),
        "the server exited with {status} on SIGTERM"
    );
    write_benchmark(&failover);
    for s in servers.iter_mut() {
        s.kill();
    }
}

async fn node(zk: &Client, path: &str) -> Option<String> {
    match zk.get_data(path).await {
        Ok((data, _)) => Some(String::from_utf8(data).unwrap()),
        Err(zookeeper_client::Error::NoNode) => None,
        Err(e) => panic!("reading {path}: {e}"),
    }
}

async fn wait_node(zk: &Client, path: &str, want: Option<&str>, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    loop {
        let now = node(zk, path).await;
        if now.as_deref() == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{path} is {now:?}, not {want:?}, after {timeout:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// With `canal.auto.scan`, a destination folder that appears is registered,
/// competed for and run; one that vanishes is stopped, released and
/// withdrawn; SIGTERM withdraws the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_scan_adds_and_withdraws_destinations() {
    let ensemble = ZooKeeperEnsemble::start_standalone().unwrap();
    let zk_servers = ensemble.connect_string();
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v VARCHAR(64))")
        .unwrap();
    let root = tempfile::tempdir().unwrap();
    let mut server = Server::new(root.path(), "s", db.port(), &zk_servers);
    // No destination at start; scan every second.
    std::fs::write(
        server.conf.join("canal.properties"),
        format!(
            "canal.port = {}\ncanal.register.ip = 127.0.0.1\ncanal.auto.scan = true\ncanal.auto.scan.interval = 1\ncanal.zkServers = {zk_servers}\ncanal.zookeeper.flush.period = {}\n",
            server.port,
            FLUSH_PERIOD.as_millis()
        ),
    )
    .unwrap();
    let example = server.conf.join("example/instance.properties");
    let props = std::fs::read_to_string(&example).unwrap();
    std::fs::remove_dir_all(server.conf.join("example")).unwrap();
    server.spawn();
    let zk = Client::connect(&zk_servers).await.unwrap();
    let address = server.address();
    let me = format!("/otter/canal/cluster/{address}");
    wait_node(&zk, &me, Some(""), Duration::from_secs(30)).await;
    assert_eq!(binlog_dumps(&db), 0);

    // A new folder: registered, run, served.
    let late = server.conf.join("late/instance.properties");
    std::fs::create_dir_all(late.parent().unwrap()).unwrap();
    std::fs::write(&late, &props).unwrap();
    let running = "/otter/canal/destinations/late/running";
    let cluster = format!("/otter/canal/destinations/late/cluster/{address}");
    wait_node(
        &zk,
        running,
        Some(&running_json(&address)),
        Duration::from_secs(15),
    )
    .await;
    wait_node(&zk, &cluster, Some(""), Duration::from_secs(5)).await;
    wait_dumps(&db, 1, Duration::from_secs(15));
    db.exec("INSERT INTO w.t VALUES (1, 'late')").unwrap();
    let mut client = SimpleConnector::connect(&address, "late", "", "")
        .await
        .unwrap();
    client.subscribe("").await.unwrap();
    let mut c = Consumer::default();
    let deadline = Instant::now() + Duration::from_secs(15);
    while !c.seen.contains(&1) {
        assert!(
            Instant::now() < deadline,
            "the new destination delivers nothing"
        );
        c.step(&mut client).await.unwrap();
    }
    drop(client);

    // The folder vanishes: stopped, released, withdrawn.
    std::fs::remove_dir_all(late.parent().unwrap()).unwrap();
    wait_node(&zk, running, None, Duration::from_secs(15)).await;
    wait_node(&zk, &cluster, None, Duration::from_secs(5)).await;
    // MariaDB notices a closed dump connection when it next writes to it.
    db.exec("INSERT INTO w.t VALUES (2, 'nudge')").unwrap();
    wait_dumps(&db, 0, Duration::from_secs(15));

    // SIGTERM: the server leaves the cluster and exits cleanly.
    server.signal("-TERM");
    let status = server.child.take().unwrap().wait().unwrap();
    assert!(status.success(), "exit status {status}");
    wait_node(&zk, &me, None, Duration::from_secs(5)).await;
}
