//! End to end from a live MariaDB: rows per second that a Canal client
//! receives over TCP, with an ack per batch, when a Sluice destination reads
//! the binlog of `scripts/gen-bench-binlog` (1.3 M row changes of a
//! 22-column table) from a private MariaDB, tracks its schema, builds Canal
//! entries and serves them; next to decoding the same binlog in memory.
//!
//! The server side is what `sluice server` runs, in process: an
//! `InstanceManager` with schema tracking and file cursors over a Canal
//! configuration folder written for each pass (start at `binlog.000001:4`,
//! Canal's default store: 16384 entries, 16 MB, MEMSIZE batches) and a
//! `TcpServer` bound from the same configuration. The client is
//! `sluice-client`: `get(batch, 100 ms)` (= getWithoutAck + ack), every
//! Entry decoded, rows counted from each ROWDATA entry's `rowsCount` header
//! prop. Passes differ by the client's batch size and where cursors are
//! kept ([`Setup`]): files (`meta.log`, `meta.dat`), memory, or ZooKeeper (a standalone
//! server started for the bench) written on every ack or every second.
//! The clock starts when the destination starts and stops when the last row
//! has arrived. Server, schema tracker and client share one tokio runtime
//! with 2 worker threads; MariaDB runs beside them on the same 2 cores.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use prost::Message as _;
use sluice_binlog::events::EventData;
use sluice_binlog::Cell;
use sluice_canal::proto::EntryType;
use sluice_client::{Connector, ConnectorOptions, SimpleConnector};
use sluice_config::ServerConfig;
use sluice_encode::canal::CanalEncoder;
use sluice_events::{ChangeBuilder, Encoder as _, Position};
use sluice_ha::zookeeper_client::Client;
use sluice_ha::{PeriodMixedCursorStore, ZkConfig, ZooKeeperCursorStore};
use sluice_instance::manager::InstanceManager;
use sluice_meta::{CursorStore, FileCursorStore, MemoryCursorStore};
use sluice_serve_tcp::TcpServer;
use sluice_testkit::{MariaDb, MariaDbConfig, ZooKeeperEnsemble};

/// Where a pass keeps its cursors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cursors {
    /// Files (file-instance.xml, the default): appended to `meta.log` and
    /// fdatasynced on every ack that moves them, compacted into Canal's
    /// `meta.dat`.
    File,
    /// In memory (memory-instance.xml).
    Memory,
    /// In ZooKeeper through the period-mixed store (1 s period), as `sluice
    /// server` with `canal.zkServers`; `on_ack`: written on every ack
    /// (`sluice.zookeeper.flush.onAck`, the default) or only every period
    /// (Canal).
    ZooKeeper { on_ack: bool },
}

/// How an end-to-end pass is set up.
#[derive(Debug, Clone, Copy)]
pub struct Setup {
    /// The client's GET batch size (MEMSIZE: units of 1024 bytes).
    pub batch: i32,
    pub cursors: Cursors,
}

/// The binlog files and what they hold.
pub struct Input {
    pub files: Vec<(String, Vec<u8>)>,
    pub dir: PathBuf,
    pub manifest: String,
    pub rows: u64,
}

impl Input {
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|(_, b)| b.len() as u64).sum()
    }
}

/// A timed pass: wall time, and CPU seconds of this process (Sluice's server
/// side and the client) and of MariaDB.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pass {
    pub secs: f64,
    pub cpu: f64,
    pub db_cpu: f64,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The generator's output directory (`SLUICE_BENCH_BINLOG`, else
/// `target/bench-data`, generated when missing or incomplete).
fn bench_data() -> PathBuf {
    if let Ok(p) = std::env::var("SLUICE_BENCH_BINLOG") {
        return PathBuf::from(p);
    }
    let root = workspace_root();
    let target = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join("target"));
    let dir = target.join("bench-data");
    let status = Command::new(root.join("scripts/gen-bench-binlog"))
        .arg(&dir)
        .status()
        .expect("run scripts/gen-bench-binlog");
    assert!(status.success(), "scripts/gen-bench-binlog failed");
    dir
}

/// Reads the binlog files into memory and counts their row changes.
pub fn load() -> Input {
    let dir = bench_data();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("read the bench data directory")
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| {
            n.strip_prefix("binlog.")
                .is_some_and(|x| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no binlog files in {}", dir.display());
    let files: Vec<(String, Vec<u8>)> = names
        .into_iter()
        .map(|n| {
            let b = std::fs::read(dir.join(&n)).expect("read a binlog file");
            (n, b)
        })
        .collect();
    let manifest = std::fs::read_to_string(dir.join("MANIFEST"))
        .ok()
        .and_then(|m| {
            m.lines()
                .next()
                .map(|l| l.trim_start_matches("# ").to_string())
        })
        .unwrap_or_default();
    let mut input = Input {
        files,
        dir,
        manifest,
        rows: 0,
    };
    input.rows = decode_only(&input).1;
    input
}

/// Decodes every event, row and value (no rendering): wall time and rows.
pub fn decode_only(input: &Input) -> (Pass, u64) {
    let cpu = process_cpu();
    let t = Instant::now();
    let mut rows = 0u64;
    for (name, buf) in &input.files {
        sluice_binlog::walk_file(name, buf, |_, _, data| {
            if let EventData::Rows(r) = data {
                for row in r.rows() {
                    let row = row.expect("row");
                    rows += 1;
                    for img in [&row.before, &row.after].into_iter().flatten() {
                        for cell in img.cells() {
                            if let Cell::Present(v) = cell.expect("value") {
                                black_box(v);
                            }
                        }
                    }
                }
            }
            std::ops::ControlFlow::Continue(())
        })
        .expect("decode the bench binlog");
    }
    let pass = Pass {
        secs: t.elapsed().as_secs_f64(),
        cpu: process_cpu() - cpu,
        db_cpu: 0.0,
    };
    (pass, rows)
}

/// Decodes every event and builds and serialises its Canal entries as the
/// instance does (values rendered, columns from the binlog's own metadata;
/// no schema tracker, store or network), on one thread. Also returns the
/// bytes of the serialised entries.
pub fn entries_only(input: &Input) -> (Pass, u64) {
    let cpu = process_cpu();
    let t = Instant::now();
    let mut changes = ChangeBuilder::new();
    let mut encoder = CanalEncoder::new(false);
    let mut entries = Vec::new();
    let mut rows = 0u64;
    let mut bytes = 0u64;
    for (name, buf) in &input.files {
        sluice_binlog::walk_file(name, buf, |at, raw, data| {
            let position = Position::at(name, at.pos, at.next_pos, &raw.header);
            if let Some(event) = changes.on_event(position, data, None) {
                encoder.encode(&event, &mut entries).expect("entries");
            }
            for e in entries.drain(..) {
                rows += rows_count(&e.entry);
                bytes += black_box(e.entry.encode_to_vec()).len() as u64;
            }
            std::ops::ControlFlow::Continue(())
        })
        .expect("decode the bench binlog");
    }
    assert_eq!(rows, input.rows, "entries hold every row");
    let pass = Pass {
        secs: t.elapsed().as_secs_f64(),
        cpu: process_cpu() - cpu,
        db_cpu: 0.0,
    };
    (pass, bytes)
}

fn rows_count(e: &sluice_canal::proto::Entry) -> u64 {
    if e.entry_type != Some(EntryType::RowData as i32) {
        return 0;
    }
    e.header
        .as_ref()
        .and_then(|h| {
            h.props
                .iter()
                .find(|p| p.key.as_deref() == Some("rowsCount"))
        })
        .and_then(|p| p.value.as_deref())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// A private MariaDB whose binlog is the bench files.
pub fn serve(input: &Input) -> MariaDb {
    let mut db = MariaDb::start(MariaDbConfig::default()).expect("start MariaDB");
    db.stop().expect("stop MariaDB to swap its binlog");
    let dir = db.datadir().to_path_buf();
    for e in std::fs::read_dir(&dir).expect("read the datadir") {
        let p = e.expect("datadir entry").path();
        let is_binlog = p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("binlog."));
        if is_binlog {
            std::fs::remove_file(&p).expect("remove a binlog file");
        }
    }
    let mut index = String::new();
    for (name, _) in &input.files {
        let to = dir.join(name);
        std::fs::copy(input.dir.join(name), &to).expect("copy a binlog file");
        let _ = writeln!(index, "{}", to.display());
    }
    std::fs::write(dir.join("binlog.index"), index).expect("write binlog.index");
    db.restart().expect("restart MariaDB on the bench binlog");
    db
}

/// A Canal configuration folder for one destination reading the bench
/// binlog from its start.
fn write_conf(dir: &Path, db_port: u16, first_file: &str, setup: Setup) {
    // ZooKeeper cursors are built by the pass itself (no election here).
    let spring = match setup.cursors {
        Cursors::File => "file-instance.xml",
        Cursors::Memory | Cursors::ZooKeeper { .. } => "memory-instance.xml",
    };
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.port = 0\ncanal.destinations = bench\ncanal.auto.scan = false\n\
             canal.instance.global.spring.xml = classpath:spring/{spring}\n"
        ),
    )
    .expect("write canal.properties");
    std::fs::create_dir_all(dir.join("bench")).expect("create the destination folder");
    std::fs::write(
        dir.join("bench/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{db_port}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.dbPassword =\n\
             canal.instance.master.journal.name = {first_file}\n\
             canal.instance.master.position = 4\n"
        ),
    )
    .expect("write instance.properties");
}

/// The ZooKeeper that passes with [`Cursors::ZooKeeper`] use.
pub fn zookeeper() -> ZooKeeperEnsemble {
    ZooKeeperEnsemble::start_standalone().expect("start ZooKeeper")
}

/// Removes the bench destination's cursors from ZooKeeper, so that a pass
/// starts with none.
async fn clear_zookeeper(servers: &str) {
    let client = Client::connect(servers)
        .await
        .expect("connect to ZooKeeper");
    sluice_ha::nodes::delete_recursive(&client, "/otter/canal/destinations/bench")
        .await
        .expect("delete the bench destination's nodes");
}

/// One end-to-end pass on `rt`: a fresh destination (no cursor, no schema
/// history) reads the whole binlog and a client takes every row. `zk`:
/// the ZooKeeper of [`Cursors::ZooKeeper`] passes.
pub fn end_to_end(
    rt: &tokio::runtime::Runtime,
    input: &Input,
    db: &MariaDb,
    setup: Setup,
    zk: Option<&ZooKeeperEnsemble>,
) -> Pass {
    let conf = tempfile::tempdir().expect("temp dir");
    write_conf(conf.path(), db.port(), &input.files[0].0, setup);
    let db_pid = db.pid().expect("MariaDB runs");
    rt.block_on(async {
        let server = ServerConfig::load(conf.path()).expect("load the configuration");
        // As `sluice server` chooses.
        let cursors: Arc<dyn CursorStore> = match setup.cursors {
            Cursors::File => Arc::new(FileCursorStore::new(&server.destinations.data_dir)),
            Cursors::Memory => Arc::new(MemoryCursorStore::default()),
            Cursors::ZooKeeper { on_ack } => {
                let servers = zk.expect("a ZooKeeper for this pass").connect_string();
                clear_zookeeper(&servers).await;
                let store = tokio::task::spawn_blocking(move || {
                    ZooKeeperCursorStore::connect(ZkConfig::new(servers))
                })
                .await
                .expect("join")
                .expect("open the ZooKeeper cursor store");
                let mixed = PeriodMixedCursorStore::new(store, Duration::from_millis(1000));
                mixed.set_write_through(on_ack);
                Arc::new(mixed)
            }
        };
        let manager = InstanceManager::new(
            server.destinations.clone(),
            cursors,
            InstanceManager::schema_tracking(),
        );
        let tcp = TcpServer::bind_config(&server.canal_port, manager.clone())
            .await
            .expect("bind");
        let addr = tcp.local_addr().expect("addr").to_string();
        let shutdown = tcp.shutdown_handle();
        let serving = tokio::spawn(tcp.serve());

        let cpu = process_cpu();
        let db_cpu = pid_cpu(db_pid);
        let t = Instant::now();
        let errors = manager.start_all();
        assert!(errors.is_empty(), "destination not started: {errors:?}");
        let opts = ConnectorOptions {
            client_id: 1001,
            ..Default::default()
        };
        let mut client = SimpleConnector::connect_with(&addr, "bench", "", "", opts)
            .await
            .expect("connect");
        client.subscribe("").await.expect("subscribe");
        let mut rows = 0u64;
        let stall = Duration::from_secs(60);
        let mut last_progress = Instant::now();
        while rows < input.rows {
            let m = client
                .get(setup.batch, Some(Duration::from_millis(100)))
                .await
                .expect("get");
            let before = rows;
            for e in &m.entries {
                rows += rows_count(e);
            }
            if rows > before {
                last_progress = Instant::now();
            }
            assert!(
                last_progress.elapsed() < stall,
                "no rows for {stall:?} after {rows} of {}; destinations: {:?}",
                input.rows,
                manager.states()
            );
        }
        let pass = Pass {
            secs: t.elapsed().as_secs_f64(),
            cpu: process_cpu() - cpu,
            db_cpu: pid_cpu(db_pid) - db_cpu,
        };
        assert_eq!(rows, input.rows, "every row delivered once");
        client.disconnect().await.expect("disconnect");
        shutdown.shutdown();
        manager.stop_all().await;
        serving.await.expect("join").expect("serve");
        pass
    })
}

/// user + system CPU seconds of a process (`/proc/PID/stat`, clock ticks
/// of 10 ms).
fn pid_cpu(pid: u32) -> f64 {
    stat_cpu(&format!("/proc/{pid}/stat"))
}

fn process_cpu() -> f64 {
    stat_cpu("/proc/self/stat")
}

fn stat_cpu(path: &str) -> f64 {
    let Ok(s) = std::fs::read_to_string(path) else {
        return 0.0;
    };
    // Fields after the command name, which is in parentheses.
    let rest = s.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<u64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    // utime and stime are fields 14 and 15 (1-based), 12 and 13 here.
    let ticks = f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0);
    ticks as f64 / 100.0
}

/// The server's version, for the write-up.
pub fn server_version(db: &MariaDb) -> String {
    db.query("SELECT VERSION()")
        .ok()
        .and_then(|r| r.into_iter().next())
        .and_then(|r| r.into_iter().next().flatten())
        .unwrap_or_else(|| "unknown".into())
}
