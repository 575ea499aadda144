//! Faults of what `sluice server` depends on, while rows are written and
//! consumed over Canal's TCP protocol:
//!
//! - The disk of `canal.file.data.dir` fills up: acks fail with an error
//!   that says the cursors cannot be persisted, the server keeps its place;
//!   space freed, acks succeed again. A `kill -9` while the disk is full
//!   and a restart after freeing it lose no row either.
//! - ZooKeeper (cursors, running node) is down for 15 s: once it is back
//!   the consumer receives every row and MariaDB has at most one dump.
//!
//! In both, duplicates are allowed only for rows of transactions whose ack
//! the server did not confirm (a later reply on the same connection proves
//! an ack was processed), as in `server_crash.rs`.

mod common;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{binlog_dumps, insert_ids, spawn_server, start_writer, write_example_instance};
use sluice_client::{Connector, SimpleConnector, TimeUnit};
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig, ZooKeeperEnsemble};

/// A `sluice server` process, killed when dropped.
struct Server {
    conf: PathBuf,
    log: PathBuf,
    child: Option<Child>,
}

impl Server {
    fn start(conf: &Path) -> Server {
        let log = conf.join("server.log");
        let child = Some(spawn_server(conf, &log));
        Server {
            conf: conf.to_path_buf(),
            log,
            child,
        }
    }

    fn kill_9(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    fn restart(&mut self) {
        self.kill_9();
        self.child = Some(spawn_server(&self.conf, &self.log));
    }

    /// Panics if the process has exited.
    fn assert_alive(&mut self) {
        if let Some(c) = self.child.as_mut() {
            if let Ok(Some(status)) = c.try_wait() {
                panic!(
                    "sluice server exited ({status}); log in {}:\n{}",
                    self.log.display(),
                    std::fs::read_to_string(&self.log).unwrap_or_default()
                );
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill_9();
    }
}

/// One consumer over reconnects: gets, checks, acks, and keeps what the
/// checks at the end need.
#[derive(Default)]
struct Consumer {
    client: Option<SimpleConnector>,
    /// Rows of transactions completed in batches whose ack was confirmed.
    confirmed: BTreeSet<i64>,
    pending_ack: Vec<i64>,
    open_txn: Vec<i64>,
    seen: BTreeSet<i64>,
    delivered: usize,
    /// Acks the server confirmed by answering the next get with messages.
    confirmed_acks: usize,
    /// Errors of gets (an ack's error reply comes as the next get's answer).
    errors: Vec<String>,
    /// The filter the consumer subscribes with (Canal persists it with
    /// every cursor save).
    filter: String,
}

impl Consumer {
    /// One get (and ack), or one attempt to connect.
    async fn step(&mut self, addr: &str) {
        let Some(client) = self.client.as_mut() else {
            self.pending_ack.clear();
            self.open_txn.clear();
            if let Ok(mut c) = SimpleConnector::connect(addr, "example", "", "").await {
                match c.subscribe(&self.filter).await {
                    Ok(()) => self.client = Some(c),
                    Err(e) => self.errors.push(format!("subscribe: {e}")),
                }
            }
            if self.client.is_none() {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            return;
        };
        let msg = match client
            .get_without_ack(50, Some(100), TimeUnit::Milliseconds)
            .await
        {
            Ok(m) => m,
            Err(e) => {
                self.errors.push(e.to_string());
                self.client = None;
                return;
            }
        };
        if !self.pending_ack.is_empty() {
            self.confirmed_acks += 1;
        }
        self.confirmed.extend(self.pending_ack.drain(..));
        if msg.id < 0 {
            return;
        }
        let (ids, complete) = insert_ids(&msg.entries, &mut self.open_txn);
        for id in &ids {
            assert!(
                !self.confirmed.contains(id),
                "row {id} delivered again although its transaction was acked and confirmed"
            );
        }
        self.delivered += ids.len();
        self.seen.extend(&ids);
        match client.ack(msg.id).await {
            Ok(()) => self.pending_ack = complete,
            Err(e) => {
                self.errors.push(format!("ack: {e}"));
                self.client = None;
            }
        }
    }

    /// Consumes for `d`, checking `server` is alive, if given.
    async fn run_for(&mut self, addr: &str, d: Duration, mut server: Option<&mut Server>) {
        let end = Instant::now() + d;
        while Instant::now() < end {
            self.step(addr).await;
            if let Some(s) = server.as_deref_mut() {
                s.assert_alive();
            }
        }
    }

    /// Consumes until rows `0..rows` have all arrived or `timeout` passed.
    async fn run_until_all(&mut self, addr: &str, rows: i64, timeout: Duration) {
        let end = Instant::now() + timeout;
        while (self.seen.len() as i64) < rows && Instant::now() < end {
            self.step(addr).await;
        }
    }

    fn assert_every_row(&self, rows: i64, log: &Path) {
        let missing: Vec<i64> = (0..rows).filter(|i| !self.seen.contains(i)).collect();
        assert!(
            missing.is_empty(),
            "{} rows never delivered (first 10: {:?}); server log in {}",
            missing.len(),
            &missing[..missing.len().min(10)],
            log.display()
        );
    }
}

/// A tmpfs mounted on a folder, unmounted when dropped.
struct Tmpfs {
    dir: PathBuf,
}

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Result<Tmpfs, String> {
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount -t tmpfs on {} failed: {}",
                dir.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Tmpfs {
            dir: dir.to_path_buf(),
        })
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazy: a process still holding a file there must not leak the mount.
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
    }
}

/// Keeps a file system full: a thread writes `path` until no space is
/// left, then takes every page freed afterwards (the cursor logs free
/// their pages when they are switched and emptied, and would otherwise
/// live on their own recycled space however full the disk is).
struct KeepFull {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    path: PathBuf,
}

impl KeepFull {
    fn start(path: &Path) -> KeepFull {
        let mut f = std::fs::File::create(path).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let big = vec![0xa5u8; 64 * 1024];
        // Full before the first ack is tried.
        while write_some(&mut f, &big, path) > 0 {}
        let _ = f.sync_all();
        let thread = std::thread::spawn({
            let stop = stop.clone();
            let path = path.to_path_buf();
            move || {
                let page = vec![0x5au8; 4096];
                while !stop.load(Ordering::SeqCst) {
                    if write_some(&mut f, &page, &path) == 0 {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
            }
        });
        KeepFull {
            stop,
            thread: Some(thread),
            path: path.to_path_buf(),
        }
    }

    /// Stops taking pages and frees everything taken.
    fn free(mut self) {
        self.stop_thread();
        std::fs::remove_file(&self.path).unwrap();
    }

    fn stop_thread(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for KeepFull {
    fn drop(&mut self) {
        self.stop_thread();
    }
}

/// One write of `buf` to `f`; 0 when the file system has no space left.
fn write_some(f: &mut std::fs::File, buf: &[u8], path: &Path) -> u64 {
    match f.write(buf) {
        Ok(n) => n as u64,
        Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => 0,
        Err(e) => panic!("writing {}: {e}", path.display()),
    }
}

fn start_db() -> Arc<MariaDb> {
    let db = Arc::new(MariaDb::start(MariaDbConfig::default()).unwrap());
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v VARCHAR(64))")
        .unwrap();
    db
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_loses_no_row() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    // A disk that fills: a 2 MiB tmpfs, which only root can mount. Not
    // run is a failure, never a pass.
    // SAFETY: geteuid has no preconditions and cannot fail.
    let is_root = unsafe { libc::geteuid() } == 0;
    let _tmpfs = match Tmpfs::mount(&data, "2m") {
        Ok(t) => t,
        Err(e) if !is_root => panic!(
            "a_full_disk_loses_no_row cannot run: it fills a small tmpfs, which only root can mount ({e}); run the tests as root, as CI does"
        ),
        Err(e) => panic!("a_full_disk_loses_no_row cannot mount its tmpfs as root: {e}"),
    };

    let db = start_db();
    let port = find_free_port().unwrap();
    let conf = root.path().join("conf");
    std::fs::create_dir_all(&conf).unwrap();
    std::fs::write(
        conf.join("canal.properties"),
        format!(
            "canal.port = {port}\n\
             canal.destinations = example\n\
             canal.auto.scan = false\n\
             canal.file.data.dir = {}\n\
             canal.instance.global.spring.xml = classpath:spring/file-instance.xml\n\
             canal.instance.memory.buffer.size = 256\n",
            data.display()
        ),
    )
    .unwrap();
    write_example_instance(&conf, db.port(), r"w\\..*");
    let addr = format!("127.0.0.1:{port}");
    let filler = data.join("filler");

    let stop = Arc::new(AtomicBool::new(false));
    let writer = start_writer(db.clone(), stop.clone());
    let mut server = Server::start(&conf);
    // A long filter (matching the same tables) makes each cursor record
    // longer than a page, so every save needs a fresh page of the disk.
    let mut c = Consumer {
        filter: format!(r"w\..*,w\.{}", "x".repeat(5000)),
        ..Consumer::default()
    };
    c.run_for(&addr, Duration::from_secs(3), Some(&mut server))
        .await;
    assert!(
        c.confirmed_acks > 0,
        "no ack confirmed before the disk filled"
    );

    // Full: acks fail and say why; the server stays up.
    let full = KeepFull::start(&filler);
    let (acks_before, errors_before) = (c.confirmed_acks, c.errors.len());
    let space_error = |e: &String| {
        e.contains("cannot persist cursors")
            && e.contains("meta.log")
            && e.contains("No space left")
    };
    for _ in 0..5 {
        c.run_for(&addr, Duration::from_secs(3), Some(&mut server))
            .await;
        if c.errors[errors_before..].iter().any(space_error) {
            break;
        }
    }
    let full_errors: Vec<String> = c.errors[errors_before..].to_vec();
    assert!(
        full_errors.iter().any(space_error),
        "no error says the cursors cannot be persisted for lack of space: {full_errors:?}"
    );
    let acks_while_full = c.confirmed_acks - acks_before;

    // Freed: acks succeed again, from where the server was.
    full.free();
    let (acks_before, errors_before) = (c.confirmed_acks, c.errors.len());
    c.run_for(&addr, Duration::from_secs(3), Some(&mut server))
        .await;
    assert!(
        c.confirmed_acks - acks_before >= 5,
        "acks do not succeed again once space is freed (errors: {:?})",
        &c.errors[errors_before..]
    );

    // Full again, kill -9, free, restart.
    let full = KeepFull::start(&filler);
    c.run_for(&addr, Duration::from_secs(1), Some(&mut server))
        .await;
    server.kill_9();
    c.client = None;
    full.free();
    server.restart();
    c.run_for(&addr, Duration::from_secs(2), Some(&mut server))
        .await;

    stop.store(true, Ordering::SeqCst);
    let rows = writer.join().unwrap();
    c.run_until_all(&addr, rows, Duration::from_secs(30)).await;
    server.assert_alive();
    c.assert_every_row(rows, &server.log);
    eprintln!(
        "full disk: {rows} rows written, {} delivered ({} duplicates); \
         {acks_while_full} acks confirmed while full, {} errors: {:?}",
        c.delivered,
        c.delivered as i64 - rows,
        c.errors.len(),
        full_errors.first()
    );
}

const ZK_SESSION_TIMEOUT_MS: u64 = 4000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zookeeper_outage_loses_no_row() {
    let zk = ZooKeeperEnsemble::start_standalone().unwrap();
    let db = start_db();
    let root = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    std::fs::write(
        root.path().join("canal.properties"),
        format!(
            "canal.port = {port}\n\
             canal.register.ip = 127.0.0.1\n\
             canal.destinations = example\n\
             canal.auto.scan = false\n\
             canal.zkServers = {}\n\
             canal.instance.global.spring.xml = classpath:spring/default-instance.xml\n\
             canal.zookeeper.flush.period = 1000\n\
             canal.zookeeper.ha.delay = 1000\n\
             canal.zookeeper.session.timeout = {ZK_SESSION_TIMEOUT_MS}\n\
             canal.instance.memory.buffer.size = 256\n",
            zk.connect_string()
        ),
    )
    .unwrap();
    write_example_instance(root.path(), db.port(), r"w\\..*");
    let addr = format!("127.0.0.1:{port}");

    let stop = Arc::new(AtomicBool::new(false));
    let writer = start_writer(db.clone(), stop.clone());
    let mut server = Server::start(root.path());
    let mut c = Consumer::default();
    let start = Instant::now();
    while c.confirmed_acks == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no ack confirmed within 30 s; errors {:?}; log in {}",
            c.errors,
            server.log.display()
        );
        c.step(&addr).await;
    }
    c.run_for(&addr, Duration::from_secs(2), Some(&mut server))
        .await;

    zk.kill_node(0).unwrap();
    let seen_before = c.seen.len();
    let (acks_before, errors_before) = (c.confirmed_acks, c.errors.len());
    c.run_for(&addr, Duration::from_secs(15), Some(&mut server))
        .await;
    let seen_during = c.seen.len() - seen_before;
    let acks_during = c.confirmed_acks - acks_before;
    let errors_during: Vec<String> = c.errors[errors_before..].to_vec();
    zk.restart_node(0).unwrap();

    c.run_for(&addr, Duration::from_secs(5), Some(&mut server))
        .await;
    stop.store(true, Ordering::SeqCst);
    let rows = writer.join().unwrap();
    c.run_until_all(&addr, rows, Duration::from_secs(30)).await;
    server.assert_alive();
    c.assert_every_row(rows, &server.log);
    let settle = Instant::now();
    while binlog_dumps(&db) > 1 {
        assert!(
            settle.elapsed() < Duration::from_secs(10),
            "MariaDB shows {} Binlog Dump after the outage",
            binlog_dumps(&db)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let dumps = binlog_dumps(&db);
    let kinds: BTreeSet<String> = errors_during
        .iter()
        .map(|e| e.rsplit("exception=").next().unwrap_or(e).to_string())
        .collect();
    eprintln!("errors during the outage, distinct: {kinds:#?}");
    eprintln!(
        "ZooKeeper down 15 s: {rows} rows written, {} delivered ({} duplicates); \
         during the outage {seen_during} new rows and {acks_during} confirmed acks, \
         {} errors (first: {:?}); {dumps} Binlog Dump at the end",
        c.delivered,
        c.delivered as i64 - rows,
        errors_during.len(),
        errors_during.first()
    );
}
