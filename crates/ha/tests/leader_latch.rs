//! The Curator-compatible leader latch against a real (standalone) ZooKeeper
//! started by the test kit, with Rust participants and with Java Curator.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use sluice_ha::latch::{participants, sort_key};
use sluice_ha::{LatchConfig, LeaderLatch, ZkSession};
use sluice_testkit::ZooKeeperEnsemble;

const LATCH: &str = "/leader";
const SESSION: Duration = Duration::from_secs(2);
const WAIT: Duration = Duration::from_secs(15);

/// Leadership changes of every participant, timestamped as they are seen.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<(Instant, String, bool)>>>);

impl Log {
    fn push(&self, who: &str, leader: bool) {
        self.0
            .lock()
            .unwrap()
            .push((Instant::now(), who.to_string(), leader));
    }

    /// Records every change of `latch`'s leadership channel.
    fn follow(&self, who: &str, latch: &LeaderLatch) {
        let mut rx = latch.subscribe();
        let log = self.clone();
        let who = who.to_string();
        tokio::spawn(async move {
            let mut last = false;
            loop {
                let now = *rx.borrow_and_update();
                if now != last {
                    log.push(&who, now);
                    last = now;
                }
                if rx.changed().await.is_err() {
                    if last {
                        log.push(&who, false);
                    }
                    return;
                }
            }
        });
    }

    fn events(&self) -> Vec<(Instant, String, bool)> {
        let mut events = self.0.lock().unwrap().clone();
        events.sort_by_key(|e| e.0);
        events
    }

    /// Replays the log: never two leaders at once.
    fn assert_one_leader_at_a_time(&self) {
        let mut leading: HashMap<String, bool> = HashMap::new();
        for (_, who, leader) in self.events() {
            leading.insert(who.clone(), leader);
            let leaders: Vec<&String> = leading
                .iter()
                .filter(|(_, l)| **l)
                .map(|(w, _)| w)
                .collect();
            assert!(
                leaders.len() <= 1,
                "two leaders at once: {leaders:?}\nlog: {:?}",
                self.events()
            );
        }
    }

    /// When `who` first turned `leader` after `since` (waiting a little
    /// for the observer task to record it).
    async fn seen(&self, who: &str, leader: bool, since: Instant) -> Instant {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let found = self
                .events()
                .into_iter()
                .find(|(t, w, l)| *t >= since && w == who && *l == leader);
            if let Some((t, _, _)) = found {
                return t;
            }
            assert!(
                Instant::now() < deadline,
                "{who} never turned {leader} after the mark; log: {:?}",
                self.events()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

async fn join(session: &ZkSession, id: &str) -> LeaderLatch {
    let latch = LeaderLatch::start(session, LatchConfig::new().with_id(id));
    let mut node = latch.watch_node();
    tokio::time::timeout(WAIT, node.wait_for(|n| n.is_some()))
        .await
        .unwrap_or_else(|_| panic!("{id} did not create its latch node"))
        .unwrap();
    latch
}

fn sequence(node: &str) -> u64 {
    sort_key(node).parse().unwrap()
}

/// The node name Curator's protected mode makes for a latch.
fn assert_curator_name(node: &str) {
    let name = node.strip_prefix("/leader/").expect("under /leader");
    let uuid = name
        .strip_prefix("_c_")
        .and_then(|n| n.get(..36))
        .expect("_c_<uuid>");
    assert!(
        uuid.chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c) || c == '-')
            && uuid.matches('-').count() == 4
            && uuid.as_bytes()[14] == b'4',
        "{uuid} is not a lowercase v4 uuid"
    );
    let rest = &name[3 + 36..];
    let digits = rest.strip_prefix("-latch-").expect("-latch-<sequence>");
    assert!(
        digits.len() == 10 && digits.chars().all(|c| c.is_ascii_digit()),
        "{digits} is not a 10-digit sequence"
    );
}

async fn stays_follower(latch: &LeaderLatch, period: Duration) -> bool {
    !latch.await_leadership(period).await.unwrap() && !latch.has_leadership()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_participants_one_leader_and_the_next_by_sequence_takes_over_on_close() {
    init_tracing();
    let begin = Instant::now();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let raw = raw(&servers).await;
    let log = Log::default();
    let mut sessions = Vec::new();
    let mut latches = Vec::new();
    for id in ["p0", "p1", "p2"] {
        let s = session(&servers, SESSION).await;
        let l = join(&s, id).await;
        log.follow(id, &l);
        sessions.push(s);
        latches.push(l);
    }
    let nodes: Vec<String> = latches.iter().map(|l| l.node_path().unwrap()).collect();
    for (i, node) in nodes.iter().enumerate() {
        assert_curator_name(node);
        let (data, owner) = raw_get(&raw, node).await.unwrap();
        assert_eq!(data, format!("p{i}").into_bytes(), "{node}: data is the id");
        assert_eq!(owner, sessions[i].status().session_id, "{node}: ephemeral");
    }
    assert!(sequence(&nodes[0]) < sequence(&nodes[1]));
    assert!(sequence(&nodes[1]) < sequence(&nodes[2]));

    // The lowest sequence leads; the others do not.
    assert!(latches[0].await_leadership(WAIT).await.unwrap());
    assert!(latches[0].has_leadership());
    assert!(stays_follower(&latches[1], Duration::from_millis(500)).await);
    assert!(!latches[2].has_leadership());
    let seen = latches[2].participants().await.unwrap();
    let ids: Vec<(&str, bool)> = seen.iter().map(|p| (p.id.as_str(), p.is_leader)).collect();
    assert_eq!(ids, [("p0", true), ("p1", false), ("p2", false)]);
    assert_eq!(latches[1].leader().await.unwrap().unwrap().id, "p0");

    // The leader leaves: its node goes at once and the next by sequence
    // leads, not the last one.
    let mut latches = latches.into_iter();
    let (l0, l1, l2) = (
        latches.next().unwrap(),
        latches.next().unwrap(),
        latches.next().unwrap(),
    );
    // The log's observers follow watch channels, which keep only the
    // latest value: each leadership is seen before it ends, or a quick
    // true-then-false would leave no trace.
    log.seen("p0", true, begin).await;
    let t0 = Instant::now();
    l0.close().await.unwrap();
    assert!(
        raw_get(&raw, &nodes[0]).await.is_none(),
        "closed node deleted"
    );
    assert!(l1.await_leadership(WAIT).await.unwrap());
    eprintln!("next leader after close: {:?}", t0.elapsed());
    assert!(
        t0.elapsed() < Duration::from_secs(2),
        "took {:?}",
        t0.elapsed()
    );
    assert!(!l2.has_leadership());
    assert!(stays_follower(&l2, Duration::from_millis(500)).await);

    log.seen("p1", true, t0).await;
    l1.close().await.unwrap();
    assert!(l2.await_leadership(WAIT).await.unwrap());
    log.seen("p2", true, t0).await;
    let seen = participants(&raw, LATCH).await.unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!((seen[0].id.as_str(), seen[0].is_leader), ("p2", true));
    l2.close().await.unwrap();
    assert!(participants(&raw, LATCH).await.unwrap().is_empty());

    log.seen("p2", false, t0).await;
    log.assert_one_leader_at_a_time();
    let order: Vec<(String, bool)> = log.events().into_iter().map(|e| (e.1, e.2)).collect();
    let expect: Vec<(String, bool)> = [
        ("p0", true),
        ("p0", false),
        ("p1", true),
        ("p1", false),
        ("p2", true),
        ("p2", false),
    ]
    .iter()
    .map(|(w, l)| (w.to_string(), *l))
    .collect();
    assert_eq!(order, expect);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_that_loses_its_session_steps_down_before_another_leads() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let raw = raw(&servers).await;
    let log = Log::default();
    // p0 reaches ZooKeeper through a proxy that can cut it off.
    let proxy = Proxy::start(&servers).await;
    let s0 = session(&proxy.addr, SESSION).await;
    let l0 = join(&s0, "p0").await;
    log.follow("p0", &l0);
    assert!(l0.await_leadership(WAIT).await.unwrap());
    let s1 = session(&servers, SESSION).await;
    let l1 = join(&s1, "p1").await;
    log.follow("p1", &l1);
    let s2 = session(&servers, SESSION).await;
    let l2 = join(&s2, "p2").await;
    log.follow("p2", &l2);
    let first_node = l0.node_path().unwrap();
    assert!(stays_follower(&l1, Duration::from_millis(300)).await);

    // Partition the leader: it steps down on the disconnection, before the
    // servers expire its session and p1 leads.
    let t0 = Instant::now();
    proxy.pause();
    assert!(l1.await_leadership(WAIT).await.unwrap());
    let stepped_down = log.seen("p0", false, t0).await;
    let took_over = log.seen("p1", true, t0).await;
    eprintln!(
        "partitioned leader stepped down after {:?}; p1 led after {:?} (session timeout {:?})",
        stepped_down - t0,
        took_over - t0,
        s0.session_timeout()
    );
    assert!(stepped_down < took_over, "p0 still led when p1 took over");
    assert!(stepped_down - t0 < s0.session_timeout());
    assert!(!l0.has_leadership());
    assert!(!l2.has_leadership());

    // Healed: p0's session expired, so it joins again with a new node at
    // the end of the queue, and p1 keeps leading.
    proxy.resume();
    let mut node = l0.watch_node();
    tokio::time::timeout(
        WAIT,
        node.wait_for(|n| n.as_ref().is_some_and(|n| *n != first_node)),
    )
    .await
    .expect("p0 rejoined")
    .unwrap();
    let rejoined = l0.node_path().unwrap();
    assert_curator_name(&rejoined);
    assert!(sequence(&rejoined) > sequence(&l2.node_path().unwrap()));
    assert!(raw_get(&raw, &first_node).await.is_none());
    assert!(stays_follower(&l0, Duration::from_millis(500)).await);
    assert!(l1.has_leadership());
    let ids: Vec<String> = participants(&raw, LATCH)
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(ids, ["p1", "p2", "p0"]);

    // The new leader's process ends (its session is closed): it stops
    // leading, and p2 (next by sequence) takes over.
    let t1 = Instant::now();
    s1.close().await;
    assert!(l2.await_leadership(WAIT).await.unwrap());
    assert!(!l1.has_leadership());
    let gone = log.seen("p1", false, t1).await;
    let next = log.seen("p2", true, t1).await;
    eprintln!(
        "closed session: p1 stepped down after {:?}, p2 led after {:?}",
        gone - t1,
        next - t1
    );
    assert!(gone < next, "p1 still led when p2 took over");
    assert!(stays_follower(&l0, Duration::from_millis(300)).await);

    l2.close().await.unwrap();
    assert!(l0.await_leadership(WAIT).await.unwrap());
    l0.close().await.unwrap();
    drop(l1);
    log.assert_one_leader_at_a_time();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_deleted_by_someone_else_or_a_vanished_predecessor_is_handled() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let raw = raw(&servers).await;
    let log = Log::default();
    let s0 = session(&servers, SESSION).await;
    let l0 = join(&s0, "p0").await;
    log.follow("p0", &l0);
    assert!(l0.await_leadership(WAIT).await.unwrap());
    let s1 = session(&servers, SESSION).await;
    let l1 = join(&s1, "p1").await;
    log.follow("p1", &l1);
    let s2 = session(&servers, SESSION).await;
    let l2 = join(&s2, "p2").await;
    log.follow("p2", &l2);

    // An operator deletes the leader's node: the leader steps down and
    // rejoins at the end; p1 leads.
    let n0 = l0.node_path().unwrap();
    raw.delete(&n0, None).await.unwrap();
    assert!(l1.await_leadership(WAIT).await.unwrap());
    let mut node = l0.watch_node();
    tokio::time::timeout(
        WAIT,
        node.wait_for(|n| n.as_ref().is_some_and(|n| *n != n0)),
    )
    .await
    .expect("p0 rejoined")
    .unwrap();
    assert!(stays_follower(&l0, Duration::from_millis(300)).await);

    // A follower's node is deleted: it rejoins (behind p0).
    let n2 = l2.node_path().unwrap();
    raw.delete(&n2, None).await.unwrap();
    let mut node = l2.watch_node();
    tokio::time::timeout(
        WAIT,
        node.wait_for(|n| n.as_ref().is_some_and(|n| *n != n2)),
    )
    .await
    .expect("p2 rejoined")
    .unwrap();
    let ids: Vec<String> = participants(&raw, LATCH)
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(ids, ["p1", "p0", "p2"]);

    // The middle one is deleted: p2's predecessor is gone and its own
    // predecessor becomes p1, still leading; nobody else leads.
    let n0 = l0.node_path().unwrap();
    raw.delete(&n0, None).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(l1.has_leadership());
    assert!(!l2.has_leadership());
    assert!(!l0.has_leadership());

    // A foreign child (no `latch-`, sorted by its whole name as Curator
    // does, so after every sequence) does not disturb the order.
    raw_create(
        &raw,
        "/leader/zzz-foreign",
        b"",
        sluice_ha::zookeeper_client::CreateMode::Persistent,
    )
    .await;
    l1.close().await.unwrap();
    assert!(l2.await_leadership(WAIT).await.unwrap());
    assert!(stays_follower(&l0, Duration::from_millis(300)).await);
    raw.delete("/leader/zzz-foreign", None).await.unwrap();
    l0.close().await.unwrap();
    l2.close().await.unwrap();
    log.assert_one_leader_at_a_time();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn participants_leaving_together_leave_one_leader_in_sequence_order() {
    // Predecessors vanish while their followers re-list and set watches:
    // the races of the checklist (predecessor gone before the watch).
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let log = Log::default();
    let mut sessions = Vec::new();
    let mut latches = Vec::new();
    for i in 0..6 {
        let id = format!("p{i}");
        let s = session(&servers, SESSION).await;
        let l = join(&s, &id).await;
        log.follow(&id, &l);
        sessions.push(s);
        latches.push(l);
    }
    assert!(latches[0].await_leadership(WAIT).await.unwrap());
    // p0 (the leader), p1, p2 and p4 leave at once; p3 is first now.
    let p5 = latches.pop().unwrap();
    let p4 = latches.pop().unwrap();
    let p3 = latches.pop().unwrap();
    let t0 = Instant::now();
    let closes = latches
        .into_iter()
        .chain([p4])
        .map(|l| tokio::spawn(l.close()));
    for c in closes.collect::<Vec<_>>() {
        c.await.unwrap().unwrap();
    }
    assert!(p3.await_leadership(WAIT).await.unwrap());
    assert!(stays_follower(&p5, Duration::from_millis(500)).await);
    log.seen("p3", true, t0).await;
    log.assert_one_leader_at_a_time();
    p3.close().await.unwrap();
    assert!(p5.await_leadership(WAIT).await.unwrap());
    p5.close().await.unwrap();
}

// --- Java Curator ------------------------------------------------------------

/// Compiles `tests/java/LatchPeer.java` into `out`; returns its class path.
fn compile_java_peer(out: &Path) -> String {
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/java/LatchPeer.java");
    sluice_testkit::java::compile_with_curator(&source, out)
}

/// A running Java Curator participant.
struct JavaPeer {
    name: String,
    child: Child,
    stdin: ChildStdin,
    lines: tokio::sync::mpsc::UnboundedReceiver<(Instant, String)>,
    backlog: std::collections::VecDeque<(Instant, String)>,
}

impl JavaPeer {
    fn start(classpath: &str, servers: &str, id: &str) -> JavaPeer {
        let mut child = Command::new("java")
            .arg("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
            .arg("-cp")
            .arg(classpath)
            .arg("LatchPeer")
            .arg(servers)
            .arg(LATCH)
            .arg(id)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("java starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = tokio::sync::mpsc::unbounded_channel();
        let name = id.to_string();
        let who = name.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                eprintln!("[{who}] {line}");
                if tx.send((Instant::now(), line)).is_err() {
                    return;
                }
            }
        });
        JavaPeer {
            name,
            child,
            stdin,
            lines,
            backlog: Default::default(),
        }
    }

    fn send(&mut self, command: &str) {
        writeln!(self.stdin, "{command}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Waits for the next line starting with `prefix`; returns it and when
    /// it came. Other lines are kept for later calls: the listener may
    /// report leadership before the main thread reports its node.
    async fn expect(&mut self, prefix: &str) -> (Instant, String) {
        if let Some(i) = self.backlog.iter().position(|l| l.1.starts_with(prefix)) {
            return self.backlog.remove(i).unwrap();
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let line = tokio::time::timeout_at(deadline.into(), self.lines.recv())
                .await
                .unwrap_or_else(|_| panic!("{}: no {prefix:?} within 30s", self.name))
                .unwrap_or_else(|| panic!("{}: exited before {prefix:?}", self.name));
            assert!(!line.1.starts_with("ERROR"), "{}: {}", self.name, line.1);
            if line.1.starts_with(prefix) {
                return line;
            }
            self.backlog.push_back(line);
        }
    }

    /// No line starting with `prefix` within `period`.
    async fn quiet(&mut self, prefix: &str, period: Duration) {
        let deadline = Instant::now() + period;
        while let Ok(Some(line)) = tokio::time::timeout_at(deadline.into(), self.lines.recv()).await
        {
            self.backlog.push_back(line);
        }
        if let Some(line) = self.backlog.iter().find(|l| l.1.starts_with(prefix)) {
            panic!("{}: unexpected {}", self.name, line.1);
        }
    }

    /// Curator's `getParticipants()`, as (id, isLeader).
    async fn participants(&mut self) -> Vec<(String, bool)> {
        self.send("participants");
        let mut out = Vec::new();
        loop {
            let (_, line) = self.expect("PARTICIPANT").await;
            if line == "PARTICIPANTS_END" {
                return out;
            }
            let mut parts = line.split(' ').skip(1);
            let id = parts.next().unwrap().to_string();
            let leader = parts.next().unwrap() == "true";
            out.push((id, leader));
        }
    }
}

impl Drop for JavaPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_curator_and_rust_hand_leadership_back_and_forth() {
    init_tracing();
    let classes = tempfile::tempdir().unwrap();
    let classpath = compile_java_peer(classes.path());
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let raw = raw(&servers).await;

    // Java joins first and leads.
    let mut java1 = JavaPeer::start(&classpath, &servers, "java-1");
    let (_, started) = java1.expect("STARTED").await;
    assert_curator_name(started.trim_start_matches("STARTED "));
    java1.expect("LEADER").await;

    // Rust joins behind it and follows.
    let session = session(&servers, SESSION).await;
    let rust = join(&session, "rust-1").await;
    let log = Log::default();
    log.follow("rust-1", &rust);
    assert!(stays_follower(&rust, Duration::from_millis(500)).await);
    let seen: Vec<(String, bool)> = rust
        .participants()
        .await
        .unwrap()
        .into_iter()
        .map(|p| (p.id, p.is_leader))
        .collect();
    assert_eq!(
        seen,
        [("java-1".to_string(), true), ("rust-1".to_string(), false)]
    );
    // Java sees the Rust node as a participant of its latch.
    assert_eq!(
        java1.participants().await,
        [("java-1".to_string(), true), ("rust-1".to_string(), false)]
    );

    // Java closes: Rust leads. (Curator deletes its node before it calls
    // notLeader, so the order of those two is Curator's, not checked here.)
    java1.send("close");
    java1.expect("NOT_LEADER").await;
    java1.expect("CLOSED").await;
    assert!(rust.await_leadership(WAIT).await.unwrap());
    assert!(rust.has_leadership());
    java1.send("exit");

    // A new Java participant queues behind Rust and sees it lead.
    let mut java2 = JavaPeer::start(&classpath, &servers, "java-2");
    java2.expect("STARTED").await;
    java2.quiet("LEADER", Duration::from_millis(1000)).await;
    assert_eq!(
        java2.participants().await,
        [("rust-1".to_string(), true), ("java-2".to_string(), false)]
    );
    assert!(rust.has_leadership());

    // Rust closes: Java leads.
    let node = rust.node_path().unwrap();
    let t0 = Instant::now();
    rust.close().await.unwrap();
    let rust_stopped = log.seen("rust-1", false, t0).await;
    assert!(raw_get(&raw, &node).await.is_none());
    let (java_led, _) = java2.expect("LEADER").await;
    eprintln!("Java led {:?} after Rust closed", java_led - t0);
    assert!(rust_stopped < java_led);
    assert_eq!(java2.participants().await, [("java-2".to_string(), true)]);
    java2.send("close");
    java2.expect("CLOSED").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partitioned_rust_leader_steps_down_before_java_curator_leads() {
    init_tracing();
    let classes = tempfile::tempdir().unwrap();
    let classpath = compile_java_peer(classes.path());
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let raw = raw(&servers).await;

    // Rust leads, through a proxy that can cut it off; Java follows.
    let proxy = Proxy::start(&servers).await;
    let session = session(&proxy.addr, SESSION).await;
    let rust = join(&session, "rust-1").await;
    let log = Log::default();
    log.follow("rust-1", &rust);
    assert!(rust.await_leadership(WAIT).await.unwrap());
    let first_node = rust.node_path().unwrap();
    let mut java = JavaPeer::start(&classpath, &servers, "java-1");
    java.expect("STARTED").await;
    java.quiet("LEADER", Duration::from_millis(500)).await;

    // Partitioned, Rust steps down before its session expires and Java leads.
    let t0 = Instant::now();
    proxy.pause();
    let (java_led, _) = java.expect("LEADER").await;
    let rust_stopped = log.seen("rust-1", false, t0).await;
    eprintln!(
        "partitioned Rust leader stepped down after {:?}; Java led after {:?}",
        rust_stopped - t0,
        java_led - t0
    );
    assert!(
        rust_stopped < java_led,
        "Rust still led when Java took over"
    );
    assert!(!rust.has_leadership());

    // Healed: Rust's session expired; it rejoins behind Java, which sees the
    // new node as a participant.
    proxy.resume();
    let mut node = rust.watch_node();
    tokio::time::timeout(
        WAIT,
        node.wait_for(|n| n.as_ref().is_some_and(|n| *n != first_node)),
    )
    .await
    .expect("Rust rejoined")
    .unwrap();
    assert!(raw_get(&raw, &first_node).await.is_none());
    assert!(stays_follower(&rust, Duration::from_millis(500)).await);
    assert_eq!(
        java.participants().await,
        [("java-1".to_string(), true), ("rust-1".to_string(), false)]
    );

    // Java leaves: Rust leads again.
    java.send("close");
    java.expect("CLOSED").await;
    assert!(rust.await_leadership(WAIT).await.unwrap());
    rust.close().await.unwrap();
    assert!(participants(&raw, LATCH).await.unwrap().is_empty());
}
