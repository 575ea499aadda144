//! High availability with ZooKeeper: a 3-node ensemble and two `sluice
//! server` processes (same configuration except the port) on one MariaDB,
//! a writer inserting rows all along and the cluster client
//! ([`ClusterConnector`]) reading and acking them all along.
//!
//! - Exactly one server runs the destination: the `running` node holds
//!   `{"active":true,"address":"127.0.0.1:PORT"}` of one of them and MariaDB
//!   shows exactly one `Binlog Dump`; the client holds `/1001/running`.
//! - kill -9 of the running server: the standby takes over once ZooKeeper
//!   expired the dead server's session, `canal.zookeeper.ha.delay` later
//!   (measured), and the client follows it by itself.
//! - The ZooKeeper leader is killed: rows keep coming from the same server.
//! - `sluice release` moves the destination to the other server at once; the
//!   client follows.
//! - The running server is stopped (SIGSTOP) past its session timeout: the
//!   other takes over and the client follows; the stopped one continues
//!   (SIGCONT), stops dumping at once and does not dump again.
//! - SIGTERM hands the destination over at once.
//! - Every row written arrives, and a row is delivered again only if its
//!   transaction was not complete in a batch whose ack was confirmed (the
//!   next call on the same connection answered): with cursors written to
//!   ZooKeeper on every ack, nothing acknowledged is replayed.
//!
//! The measured times are written to `docs/benchmarks.md` between the
//! `ha-failover` markers (`SLUICE_BENCH_NO_DOCS=1` skips that).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{
    binlog_dumps, insert_ids, spawn_server, start_writer, wait_dumps, write_example_instance,
};
use sluice_client::cluster::{ClusterConnector, ClusterOptions};
use sluice_client::{Connector, Message, SimpleConnector, TimeUnit};
use sluice_ha::zookeeper_client::{self, Client};
use sluice_testkit::{bench_docs, find_free_port, MariaDb, MariaDbConfig, ZooKeeperEnsemble};

const HA_DELAY: Duration = Duration::from_millis(2000);
const SESSION_TIMEOUT: Duration = Duration::from_millis(4000);
/// Long enough that the periodic flush cannot be what keeps acknowledged
/// rows from coming again: only the write on ack can.
const FLUSH_PERIOD: Duration = Duration::from_millis(10_000);
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
    write_example_instance(dir, db_port, r"w\\..*");
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
        self.child = Some(spawn_server(&self.conf, &self.log));
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

/// What the cluster client has seen, and which re-deliveries would be a bug.
#[derive(Default)]
struct Consumer {
    delivered: Vec<i64>,
    seen: BTreeSet<i64>,
    /// Rows of transactions complete in a batch whose ack was confirmed:
    /// acked, then the next call on the same connection answered (the server
    /// handles a connection's requests in order and writes the cursor of an
    /// ack to ZooKeeper before it answers the next one).
    confirmed: BTreeSet<i64>,
    pending_ack: Vec<i64>,
    open_txn: Vec<i64>,
    /// The server each batch with rows came from, and when.
    batches: Vec<(Instant, String)>,
    /// Instants a batch with rows arrived.
    arrivals: Vec<Instant>,
    /// The first thing that went wrong.
    error: Option<String>,
}

impl Consumer {
    /// When the first batch with rows from `server` arrived after `since`.
    fn first_from(&self, server: &str, since: Instant) -> Option<Instant> {
        self.batches
            .iter()
            .find(|(t, s)| *t >= since && s == server)
            .map(|(t, _)| *t)
    }

    /// The longest time without a batch with rows between `from` and `to`.
    fn longest_gap(&self, from: Instant, to: Instant) -> Duration {
        let mut last = from;
        let mut gap = Duration::ZERO;
        for t in self.arrivals.iter().filter(|t| **t > from && **t <= to) {
            gap = gap.max(t.duration_since(last));
            last = *t;
        }
        gap.max(to.saturating_duration_since(last))
    }
}

type Shared = Arc<Mutex<Consumer>>;

fn lock(state: &Shared) -> std::sync::MutexGuard<'_, Consumer> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// Books one batch; false when it shows a bug (recorded as the error).
fn record(state: &Shared, msg: &Message, now: Instant, server: String, failed_over: bool) -> bool {
    let mut st = lock(state);
    if failed_over {
        // Acks sent before the failover may or may not have been written.
        st.pending_ack.clear();
        st.open_txn.clear();
    } else {
        let acked = std::mem::take(&mut st.pending_ack);
        st.confirmed.extend(acked);
    }
    if msg.id < 0 {
        return true;
    }
    let mut open = std::mem::take(&mut st.open_txn);
    let (ids, complete) = insert_ids(&msg.entries, &mut open);
    st.open_txn = open;
    if let Some(id) = ids.iter().find(|id| st.confirmed.contains(id)) {
        st.error = Some(format!(
            "row {id} delivered again by {server} although its transaction was in a batch whose ack was confirmed"
        ));
        return false;
    }
    if !ids.is_empty() {
        st.batches.push((now, server));
        st.arrivals.push(now);
    }
    st.delivered.extend(&ids);
    st.seen.extend(&ids);
    st.pending_ack = complete;
    true
}

/// Reads with `client` until `stop`: getWithoutAck, check, ack.
async fn consume(mut client: ClusterConnector, state: Shared, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::SeqCst) {
        let failovers = client.failovers();
        let msg = match client
            .get_without_ack(50, Some(100), TimeUnit::Milliseconds)
            .await
        {
            Ok(m) => m,
            Err(e) => {
                lock(&state).error = Some(format!("the cluster client gave up: {e}"));
                return;
            }
        };
        let now = Instant::now();
        let server = client.server().unwrap_or_default().to_string();
        let failed_over = client.failovers() != failovers;
        if !record(&state, &msg, now, server, failed_over) {
            return;
        }
        if msg.id < 0 {
            continue;
        }
        if let Err(e) = client.ack(msg.id).await {
            lock(&state).error = Some(format!("ack failed: {e}"));
            return;
        }
    }
    let _ = client.disconnect().await;
}

/// Waits until `done` holds for the consumer, failing on its error.
async fn wait_consumer(
    state: &Shared,
    what: &str,
    timeout: Duration,
    mut done: impl FnMut(&Consumer) -> bool,
) {
    let deadline = Instant::now() + timeout;
    loop {
        {
            let st = lock(state);
            if let Some(e) = &st.error {
                panic!("{e}");
            }
            if done(&st) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: not within {timeout:?} ({} rows seen)",
                st.seen.len()
            );
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[derive(Default)]
struct Failover {
    session_expired: Duration,
    taken_over: Duration,
    dumping: Duration,
    /// From the kill to the client's first rows from the new server.
    client_followed: Duration,
    /// Longest stretch without rows after the ZooKeeper leader was killed.
    zk_leader_gap: Duration,
    /// From `sluice release` to the other server's `running` node.
    released: Duration,
    /// From the release to the client's first rows from the other server.
    release_followed: Duration,
    /// From SIGTERM of the running server to the standby's `running` node.
    after_shutdown: Duration,
    /// Rows written, and rows the client received (duplicates included).
    written: i64,
    delivered: usize,
}

fn write_benchmark(f: &Failover) {
    if std::env::var_os("SLUICE_BENCH_NO_DOCS").is_some() {
        return;
    }
    let ms = |d: Duration| d.as_millis();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let section = format!(
        "## HA failover: take-over, client failover, release\n\
\n\
Setup: 3-node ZooKeeper ensemble (tickTime 500 ms), two `sluice server` processes on one MariaDB, \
`canal.zookeeper.session.timeout` = {st} ms, `canal.zookeeper.ha.delay` = {delay} ms; \
a writer inserts rows all along while the cluster client (`sluice_client::cluster::ClusterConnector`) \
reads and acks. Machine: {cores} CPUs. Written by `cargo test -p sluice-cli --test ha_failover`.\n\
\n\
| from `kill -9` of the running server to | ms |\n\
| --- | ---: |\n\
| its `running` node gone (ZooKeeper expired its session, timed from its last request, so up to a ping interval early) | {gone} |\n\
| the standby's `running` node (take-over) | {taken} |\n\
| the standby's `Binlog Dump` in MariaDB's processlist | {dump} |\n\
| the cluster client's first rows from the new server | {followed} |\n\
\n\
Node gone → taken over: {gap} ms (the configured delay is {delay} ms). A killed server's node \
lasts until its session expires, so the take-over takes the session timeout plus the delay.\n\
\n\
| other events | ms |\n\
| --- | ---: |\n\
| ZooKeeper leader killed: longest stretch without rows at the client | {zk} |\n\
| `sluice release`: to the other server's `running` node | {rel} |\n\
| `sluice release`: to the cluster client's first rows from it | {relf} |\n\
| SIGTERM of the running server: to the standby's `running` node | {term} |\n\
\n\
Through all of it: {written} rows written, {delivered} received by the client ({again} again; \
cursors written to ZooKeeper on every ack).\n",
        st = ms(SESSION_TIMEOUT),
        delay = ms(HA_DELAY),
        gone = ms(f.session_expired),
        taken = ms(f.taken_over),
        dump = ms(f.dumping),
        followed = ms(f.client_followed),
        gap = ms(f.taken_over.saturating_sub(f.session_expired)),
        zk = ms(f.zk_leader_gap),
        rel = ms(f.released),
        relf = ms(f.release_followed),
        term = ms(f.after_shutdown),
        written = f.written,
        delivered = f.delivered,
        again = f.delivered as i64 - f.written,
    );
    bench_docs::write_section(
        "<!-- ha-failover:begin -->",
        "<!-- ha-failover:end -->",
        &section,
    )
    .unwrap();
}

/// Runs `sluice release --zk zk_servers destination --wait wait`; returns
/// whether it succeeded and what it printed (stdout, then stderr).
fn try_release(zk_servers: &str, destination: &str, wait: u64) -> (bool, String) {
    try_release_with(zk_servers, destination, wait, &[])
}

/// [`try_release`] with more arguments (`--force`).
fn try_release_with(
    zk_servers: &str,
    destination: &str,
    wait: u64,
    more: &[&str],
) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args(["release", "--zk", zk_servers, destination, "--wait"])
        .arg(wait.to_string())
        .args(more)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

/// Waits until the ZooKeeper session of the server registered as `address`
/// for `example` is connected to a live ensemble node (`cons` lists it).
async fn wait_session_connected(ensemble: &ZooKeeperEnsemble, zk: &Client, address: &str) {
    let path = format!("/otter/canal/destinations/example/cluster/{address}");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok((_, stat)) = zk.get_data(&path).await {
            let sid = format!("sid=0x{:x}", stat.ephemeral_owner);
            let connected = (0..ensemble.len())
                .filter(|&i| ensemble.is_running(i))
                .any(|i| {
                    ensemble
                        .four_letter(i, "cons")
                        .is_ok_and(|c| c.contains(&sid))
                });
            if connected {
                return;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the ZooKeeper session of {address} is not connected again"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until MariaDB shows `n` binlog dumps (off the async threads).
async fn dumps_settle(db: &Arc<MariaDb>, n: usize, timeout: Duration) -> Duration {
    let db = db.clone();
    tokio::task::spawn_blocking(move || wait_dumps(&db, n, timeout))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_and_the_cluster_client_fail_over_without_losing_a_row() {
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

    // Exactly one runs; both are registered.
    let first = wait_running(&zk, &addresses, Duration::from_secs(60)).await;
    let first_idx = addresses.iter().position(|a| *a == first).unwrap();
    let other_idx = 1 - first_idx;
    let second = addresses[other_idx].clone();
    dumps_settle(&db, 1, Duration::from_secs(30)).await;
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

    // A writer and the cluster client, both running until the end.
    let stop_writing = Arc::new(AtomicBool::new(false));
    let writer = start_writer(db.clone(), stop_writing.clone());
    let client = ClusterConnector::connect(
        &zk_servers,
        "example",
        "",
        "",
        ClusterOptions {
            zk_session_timeout: SESSION_TIMEOUT,
            failover_timeout: Duration::from_secs(60),
            retry_interval: Duration::from_millis(100),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(client.server(), Some(first.as_str()));
    let client_running = node(&zk, "/otter/canal/destinations/example/1001/running")
        .await
        .expect("the client holds its running node");
    assert!(
        client_running.contains(r#""clientId":1001"#),
        "{client_running}"
    );
    let mut client = client;
    client.subscribe("").await.unwrap();
    let state: Shared = Arc::default();
    let stop_reading = Arc::new(AtomicBool::new(false));
    let reader = tokio::spawn(consume(client, state.clone(), stop_reading.clone()));
    wait_consumer(&state, "rows arrive", Duration::from_secs(60), |c| {
        c.seen.len() >= 300
    })
    .await;

    // kill -9 the running server: the standby takes over, the client follows.
    servers[first_idx].kill();
    let killed = Instant::now();
    let mut session_expired = None;
    loop {
        match running_node(&zk).await {
            None => {
                session_expired.get_or_insert_with(|| killed.elapsed());
            }
            Some(json) if json == running_json(&second) => break,
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
    let dumping = dumps_settle(&db, 1, Duration::from_secs(30)).await + taken_over;
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
    wait_consumer(&state, "the client follows", Duration::from_secs(30), |c| {
        c.first_from(&second, killed).is_some()
    })
    .await;
    let mut failover = Failover {
        session_expired,
        taken_over,
        dumping,
        client_followed: lock(&state)
            .first_from(&second, killed)
            .map_or(Duration::ZERO, |t| t.duration_since(killed)),
        ..Default::default()
    };

    // The killed server comes back as a standby.
    servers[first_idx].spawn();
    let back = addresses[first_idx].clone();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !zk
        .list_children("/otter/canal/destinations/example/cluster")
        .await
        .unwrap()
        .contains(&back)
    {
        assert!(Instant::now() < deadline, "{back} does not register again");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(running_node(&zk).await.unwrap(), running_json(&second));
    assert_eq!(binlog_dumps(&db), 1);

    // The ZooKeeper leader dies: the ensemble elects another, sessions move,
    // rows keep coming from the same server.
    let leader = (0..ensemble.len())
        .find(|&i| ensemble.mode(i).as_deref() == Some("leader"))
        .expect("the ensemble has a leader");
    let seen_before = lock(&state).seen.len();
    ensemble.kill_node(leader).unwrap();
    let zk_killed = Instant::now();
    let zk = Client::connect(&zk_servers).await.unwrap();
    wait_consumer(
        &state,
        "rows after the ZooKeeper leader died",
        Duration::from_secs(60),
        |c| c.seen.len() >= seen_before + 300,
    )
    .await;
    failover.zk_leader_gap = lock(&state).longest_gap(zk_killed, Instant::now());
    eprintln!(
        "ZooKeeper leader {leader} killed: longest stretch without rows {:?}",
        failover.zk_leader_gap
    );
    assert_eq!(running_node(&zk).await.unwrap(), running_json(&second));
    dumps_settle(&db, 1, Duration::from_secs(30)).await;

    // Release moves the destination to the standby; the client follows.
    // The standby must be able to take it: its ZooKeeper session, which
    // may have been on the killed leader, is connected again.
    wait_session_connected(&ensemble, &zk, &back).await;
    let asked = Instant::now();
    let (released, said) = tokio::task::spawn_blocking({
        let zk_servers = zk_servers.clone();
        move || try_release(&zk_servers, "example", 30)
    })
    .await
    .unwrap();
    assert!(
        released,
        "sluice release failed: {said}\n--- log of {second}:\n{}\n--- log of {back}:\n{}",
        servers[other_idx].log_text(),
        servers[first_idx].log_text()
    );
    assert!(said.contains(&format!("now runs on {back}")), "{said}");
    assert!(
        servers[other_idx].log_text().contains("release requested"),
        "the released server's log does not say why it stopped"
    );
    wait_running(&zk, std::slice::from_ref(&back), Duration::from_secs(10)).await;
    failover.released = asked.elapsed();
    assert!(
        failover.released < HA_DELAY,
        "a released destination was taken over only after {:?}",
        failover.released
    );
    wait_consumer(
        &state,
        "the client follows the release",
        Duration::from_secs(30),
        |c| c.first_from(&back, asked).is_some(),
    )
    .await;
    failover.release_followed = lock(&state)
        .first_from(&back, asked)
        .map_or(Duration::ZERO, |t| t.duration_since(asked));
    dumps_settle(&db, 1, Duration::from_secs(30)).await;

    // The owner is paused past its session timeout: the standby takes over,
    // the client follows; once the paused one continues it has fenced
    // itself and never dumps again.
    let (owner, standby) = (first_idx, other_idx);
    let standby_log_start = servers[standby].log_text().len();
    servers[owner].signal("-STOP");
    let paused = Instant::now();
    wait_running(&zk, std::slice::from_ref(&second), Duration::from_secs(60)).await;
    eprintln!("paused owner replaced after {:?}", paused.elapsed());
    let deadline = Instant::now() + Duration::from_secs(30);
    while !servers[standby].log_text()[standby_log_start..].contains("instance reading the source")
    {
        assert!(Instant::now() < deadline, "{second} does not start dumping");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    wait_consumer(
        &state,
        "the client follows away from the paused owner",
        Duration::from_secs(30),
        |c| c.first_from(&second, paused).is_some(),
    )
    .await;
    // While the owner is stopped its idle dump connection may still be
    // listed; once it continues it must drop it and never dump again.
    let log_before = servers[owner].log_text().len();
    servers[owner].signal("-CONT");
    let resumed = Instant::now();
    let settle = dumps_settle(&db, 1, Duration::from_secs(10)).await;
    eprintln!("one Binlog Dump again {settle:?} after SIGCONT");
    let watch_until = Instant::now() + SESSION_TIMEOUT + HA_DELAY + Duration::from_secs(2);
    while Instant::now() < watch_until {
        assert_eq!(
            binlog_dumps(&db),
            1,
            "two servers dump after the paused one continued"
        );
        assert_eq!(running_node(&zk).await.unwrap(), running_json(&second));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let after = &servers[owner].log_text()[log_before..];
    assert!(
        !after.contains("this server runs the destination"),
        "the paused server ran the destination again after SIGCONT: {after}"
    );
    eprintln!("one dump only for {:?} after SIGCONT", resumed.elapsed());

    // A normal shutdown hands the destination over at once.
    servers[standby].signal("-TERM");
    let terminated = Instant::now();
    wait_running(&zk, std::slice::from_ref(&back), Duration::from_secs(30)).await;
    failover.after_shutdown = terminated.elapsed();
    eprintln!("SIGTERM → taken over {:?}", failover.after_shutdown);
    assert!(
        failover.after_shutdown < HA_DELAY,
        "a released destination was taken over only after {:?}",
        failover.after_shutdown
    );
    let status = servers[standby].child.take().unwrap().wait().unwrap();
    assert!(
        status.success(),
        "the server exited with {status} on SIGTERM"
    );

    // Every row written arrives; the only rows delivered twice were in
    // batches whose ack was never confirmed (checked as they came).
    stop_writing.store(true, Ordering::SeqCst);
    let written = tokio::task::spawn_blocking(move || writer.join().unwrap())
        .await
        .unwrap();
    wait_consumer(&state, "every row arrives", Duration::from_secs(120), |c| {
        c.seen.len() as i64 >= written
    })
    .await;
    stop_reading.store(true, Ordering::SeqCst);
    reader.await.unwrap();
    let st = lock(&state);
    let missing: Vec<i64> = (0..written)
        .filter(|i| !st.seen.contains(i))
        .take(10)
        .collect();
    assert!(missing.is_empty(), "rows never delivered: {missing:?}");
    eprintln!(
        "{} rows delivered for {written} written ({} again)",
        st.delivered.len(),
        st.delivered.len() as i64 - written
    );
    failover.written = written;
    failover.delivered = st.delivered.len();
    drop(st);
    eprintln!(
        "failover figures: client followed the kill in {:?}, release in {:?} (node {:?})",
        failover.client_followed, failover.release_followed, failover.released
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
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut open = Vec::new();
    loop {
        let m = client
            .get(50, Some(Duration::from_millis(100)))
            .await
            .unwrap();
        if insert_ids(&m.entries, &mut open).0.contains(&1) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the new destination delivers nothing"
        );
    }
    drop(client);

    // Release with no other server: refused up front; forced, the owner
    // takes the destination back after its delay, and the command says so;
    // an unknown destination is an error too.
    let (ok, said) = try_release(&zk_servers, "late", 20);
    assert!(!ok, "{said}");
    assert!(
        said.contains(&format!(
            "no other server can take late: only its owner {address}"
        )),
        "{said}"
    );
    let (ok, said) = tokio::task::spawn_blocking({
        let zk_servers = zk_servers.clone();
        move || try_release_with(&zk_servers, "late", 20, &["--force"])
    })
    .await
    .unwrap();
    assert!(!ok, "{said}");
    assert!(
        said.contains(&format!(
            "no other server took late: {address} runs it again"
        )),
        "{said}"
    );
    let (ok, said) = try_release(&zk_servers, "nowhere", 5);
    assert!(!ok && said.contains("no server runs nowhere"), "{said}");

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

/// The processlist ids of MariaDB's `Binlog Dump` threads.
fn dump_thread_ids(db: &MariaDb) -> Vec<String> {
    db.query(
        "SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND = 'Binlog Dump' ORDER BY ID",
    )
    .unwrap()
    .into_iter()
    .filter_map(|row| row.into_iter().next().flatten())
    .collect()
}

/// Both servers of a destination dump with one replica server id (derived
/// from the destination and the source), so the take-over's dump makes
/// MariaDB end the paused owner's dump at once instead of two dumps showing
/// until the paused one notices; and the paused one, once it continues, is
/// fenced and does not reconnect (which would end the new owner's dump).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_take_over_ends_the_paused_owners_dump() {
    let ensemble = ZooKeeperEnsemble::start_standalone().unwrap();
    let zk_servers = ensemble.connect_string();
    let db = Arc::new(MariaDb::start(MariaDbConfig::default()).unwrap());
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY)")
        .unwrap();
    let root = tempfile::tempdir().unwrap();
    let mut servers = [
        Server::new(root.path(), "a", db.port(), &zk_servers),
        Server::new(root.path(), "b", db.port(), &zk_servers),
    ];
    let addresses: Vec<String> = servers.iter().map(Server::address).collect();
    servers[0].spawn();
    let zk = Client::connect(&zk_servers).await.unwrap();
    wait_running(
        &zk,
        std::slice::from_ref(&addresses[0]),
        Duration::from_secs(60),
    )
    .await;
    dumps_settle(&db, 1, Duration::from_secs(30)).await;
    servers[1].spawn();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !servers[1].log_text().contains("ZooKeeper session open") {
        assert!(Instant::now() < deadline, "b does not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    servers[0].signal("-STOP");
    wait_running(
        &zk,
        std::slice::from_ref(&addresses[1]),
        Duration::from_secs(60),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while !servers[1].log_text().contains("replication dump started") {
        assert!(Instant::now() < deadline, "b does not start dumping");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let dumping = Instant::now();
    // a is still stopped: only b's dump may be left, within about a second.
    let one = loop {
        let ids = dump_thread_ids(&db);
        if ids.len() == 1 {
            break ids;
        }
        assert!(
            dumping.elapsed() < Duration::from_millis(1500),
            "{} Binlog Dump threads {:?} after the new owner's dump started, with the old owner still stopped",
            ids.len(),
            dumping.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    eprintln!(
        "one Binlog Dump {:?} after the take-over's dump",
        dumping.elapsed()
    );

    // a continues: it is fenced and must not dump again (its reconnect with
    // the same id would end b's dump).
    let b_log = servers[1].log_text().len();
    servers[0].signal("-CONT");
    let watch_until = Instant::now() + SESSION_TIMEOUT + HA_DELAY;
    while Instant::now() < watch_until {
        assert_eq!(
            dump_thread_ids(&db),
            one,
            "the dumps changed after the paused server continued"
        );
        assert_eq!(
            running_node(&zk).await.unwrap(),
            running_json(&addresses[1])
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let b_after = &servers[1].log_text()[b_log..];
    assert!(
        !b_after.contains("replication dump started"),
        "b had to dump again: {b_after}"
    );
    for s in servers.iter_mut() {
        s.kill();
    }
}
