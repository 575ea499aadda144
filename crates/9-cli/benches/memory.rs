//! Peak memory of every way out of Sluice on the benchmark binlog, in one
//! table, so that a regression on any path shows.
//!
//! A private MariaDB serves the binlog of `scripts/gen-bench-binlog` (1.3 M
//! row changes of a 22-column table); another holds `snap.t`, a 12-column
//! table of `SLUICE_BENCH_MEMORY_SNAPSHOT_ROWS` rows (default 1,000,000),
//! so that the streaming paths read the bench binlog alone. Each
//! path runs in a process of its own (release build) with its defaults, one
//! after the other:
//! - `sluice tail --from binlog.000001:4 --stop-at-end > /dev/null`;
//! - `sluice server` and a Canal client over TCP (`get` of 1,000 entries
//!   left serialised, `ack` of each) from `binlog.000001:4` until the
//!   destination's cursor is at the binlog's last transaction;
//! - `sluice server` in MQ mode (`canal.serverMode = redis`, FlatMessage
//!   into a private `redis-server`), the same range;
//! - the embedded engine (`sluice_engine::Engine`, Debezium JSON to a
//!   consumer that marks every record), the same range;
//! - `sluice server` with `sluice.instance.snapshot.mode = initial` on
//!   `snap.t` and a Canal client counting the snapshot's rows.
//!
//! Peak RSS is the process's `VmHWM` (`/proc`: read before the server is
//! stopped; for `sluice tail` and the engine, every 10 ms while they run).
//! Writes docs/benchmarks.md between the `memory-bench` markers unless
//! `SLUICE_BENCH_NO_DOCS=1`.

// Shared with the MQ benchmarks, some of whose helpers this one does not use.
#[allow(dead_code)]
mod common;
#[path = "shared/engine_child.rs"]
mod engine_child;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{binlog_facts, root, spawn_server, thousands, write_conf};
use sluice_canal::view::{EntryView, RowChangeView};
use sluice_client::{SimpleConnector, TimeUnit};
use sluice_testkit::bench_binlog::BenchBinlog;
use sluice_testkit::bench_docs::process_usage;
use sluice_testkit::redis::Redis;
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};

const BEGIN: &str = "<!-- memory-bench:begin -->";
const END: &str = "<!-- memory-bench:end -->";

/// One path's figures.
struct Measured {
    path: &'static str,
    what: String,
    peak_mb: f64,
    secs: f64,
}

/// Waits for `child` and gives its peak RSS in MB: its `VmHWM`, read every
/// 10 ms while it runs. (`wait4`'s `ru_maxrss` would count this process's
/// memory too: the child shares it between the spawn and its `exec`.)
fn wait_peak(mut child: Child, who: &str) -> f64 {
    let pid = child.id();
    let mut peak = 0.0f64;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                assert!(status.success(), "{who} failed ({status})");
                return peak;
            }
            Ok(None) => peak = peak.max(process_usage(pid).1),
            Err(e) => panic!("{who}: {e}"),
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn tail(db: &MariaDb) -> Measured {
    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args(["tail", "--source"])
        .arg(format!("mysql://root@127.0.0.1:{}", db.port()))
        .args(["--from", "binlog.000001:4", "--stop-at-end"])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .expect("start sluice tail");
    let peak_mb = wait_peak(child, "sluice tail");
    Measured {
        path: "`sluice tail`",
        what: "JSON lines to /dev/null".into(),
        peak_mb,
        secs: started.elapsed().as_secs_f64(),
    }
}

/// A Canal client on its own thread: gets batches of destination `bench`
/// left serialised and acks them until `stop`, counting the rows of the
/// snapshot's entries in `snapshot_rows`.
fn canal_client(
    port: u16,
    stop: Arc<AtomicBool>,
    snapshot_rows: Arc<AtomicU64>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let addr = format!("127.0.0.1:{port}");
            let deadline = Instant::now() + Duration::from_secs(60);
            let mut client = loop {
                match SimpleConnector::connect(&addr, "bench", "", "").await {
                    Ok(c) => break c,
                    Err(e) if Instant::now() > deadline => panic!("no Canal port: {e}"),
                    Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            };
            client.subscribe("").await.expect("subscribe");
            while !stop.load(Ordering::Relaxed) {
                // An error once the server is stopped ends the client.
                let Ok(m) = client
                    .get_without_ack_raw(1000, Some(100), TimeUnit::Milliseconds)
                    .await
                else {
                    return;
                };
                for bytes in &m.entries {
                    let Ok(e) = EntryView::parse(bytes) else {
                        continue;
                    };
                    if e.header.snapshot {
                        if let Ok(rc) = RowChangeView::parse(e.store_value) {
                            snapshot_rows.fetch_add(rc.row_count as u64, Ordering::Relaxed);
                        }
                    }
                }
                if m.id != -1 && client.ack(m.id).await.is_err() {
                    return;
                }
            }
        });
    })
}

/// `sluice server` on `conf` until the destination's cursor is at `end`,
/// with a Canal client reading when `canal_port` is given.
fn server_to_end(conf: &Path, end: u64, canal_port: Option<u16>, label: &str) -> (f64, f64) {
    let started = Instant::now();
    let mut server = spawn_server(conf);
    let stop = Arc::new(AtomicBool::new(false));
    let client = canal_port.map(|p| canal_client(p, stop.clone(), Arc::new(AtomicU64::new(0))));
    let (_, peak_mb) = common::wait_for_cursor(&mut server, conf, end, label);
    let secs = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let _ = server.kill();
    let _ = server.wait();
    if let Some(c) = client {
        // The client ends with an error once the server is gone.
        let _ = c.join();
    }
    (peak_mb, secs)
}

fn canal_tcp(db: &MariaDb, first_file: &str, end: u64) -> Measured {
    let conf = tempfile::tempdir().expect("tempdir");
    let port = find_free_port().expect("a free port");
    write_conf(
        conf.path(),
        db.port(),
        first_file,
        &format!("canal.port = {port}\n"),
        "bench",
        "",
    );
    let (peak_mb, secs) = server_to_end(conf.path(), end, Some(port), "Canal TCP");
    Measured {
        path: "Canal TCP (`sluice server`)",
        what: "a Rust Canal client: `get` of 1,000 entries, `ack` each".into(),
        peak_mb,
        secs,
    }
}

fn mq_redis(db: &MariaDb, first_file: &str, end: u64) -> Measured {
    let redis = Redis::start().expect("start redis-server");
    let conf = tempfile::tempdir().expect("tempdir");
    write_conf(
        conf.path(),
        db.port(),
        first_file,
        &format!(
            "canal.serverMode = redis\nsluice.mq.redis.url = {}\n",
            redis.url()
        ),
        "bench",
        "",
    );
    let (peak_mb, secs) = server_to_end(conf.path(), end, None, "MQ (Redis)");
    Measured {
        path: "MQ mode (`sluice server`)",
        what: "FlatMessage JSON into Redis streams, Canal's default batches".into(),
        peak_mb,
        secs,
    }
}

/// The engine in a child process (this bench binary again, in its engine
/// mode) until it has `records` data records.
fn engine(db: &MariaDb, records: u64) -> Measured {
    let dir = tempfile::tempdir().expect("tempdir");
    let props = engine_child::write_properties(dir.path(), db.port(), ("root", ""), 184057, "");
    let started = Instant::now();
    let child = Command::new(std::env::current_exe().expect("this bench"))
        .arg("--engine-child")
        .arg(&props)
        .arg(records.to_string())
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .spawn()
        .expect("start the engine child");
    let peak_mb = wait_peak(child, "the engine child");
    Measured {
        path: "embedded engine (`sluice-engine`)",
        what: "Debezium JSON to a consumer that marks every record".into(),
        peak_mb,
        secs: started.elapsed().as_secs_f64(),
    }
}

/// The engine child: runs the engine of `props` until `records` data
/// records (not schema change records) were marked, then exits.
fn engine_child(props: &str, records: u64) {
    let run = engine_child::run(props, records, Duration::from_secs(3600));
    assert!(run.records >= records, "the engine ended early");
    eprintln!(
        "engine child: {} records, {:.2} s first to last, {:.2} s from its start",
        run.records, run.span, run.from_start
    );
}

fn snapshot(db: &MariaDb, rows: u64) -> Measured {
    let conf = tempfile::tempdir().expect("tempdir");
    let port = find_free_port().expect("a free port");
    std::fs::write(
        conf.path().join("canal.properties"),
        format!("canal.port = {port}\ncanal.destinations = bench\ncanal.auto.scan = false\n"),
    )
    .expect("canal.properties");
    std::fs::create_dir_all(conf.path().join("bench")).expect("destination folder");
    std::fs::write(
        conf.path().join("bench/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{}\ncanal.instance.dbUsername = root\n\
             canal.instance.filter.regex = snap\\\\..*\nsluice.instance.snapshot.mode = initial\n",
            db.port()
        ),
    )
    .expect("instance.properties");
    let started = Instant::now();
    let mut server = spawn_server(conf.path());
    let stop = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(AtomicU64::new(0));
    let client = canal_client(port, stop.clone(), seen.clone());
    let mut peak_mb = 0.0;
    while seen.load(Ordering::Relaxed) < rows {
        assert!(
            started.elapsed() < Duration::from_secs(1800),
            "the snapshot did not end"
        );
        if let Ok(Some(status)) = server.try_wait() {
            panic!("sluice server exited ({status})");
        }
        peak_mb = process_usage(server.id()).1;
        std::thread::sleep(Duration::from_millis(20));
    }
    let secs = started.elapsed().as_secs_f64();
    peak_mb = process_usage(server.id()).1.max(peak_mb);
    stop.store(true, Ordering::Relaxed);
    let _ = server.kill();
    let _ = server.wait();
    let _ = client.join();
    Measured {
        path: "initial snapshot (`sluice server`)",
        what: format!(
            "`snap.t`, {} rows of 12 columns, to a Canal client counting them",
            thousands(rows as f64)
        ),
        peak_mb,
        secs,
    }
}

/// `snap.t`: `rows` rows of 12 columns.
fn make_snapshot_table(db: &MariaDb, rows: u64) {
    db.exec(
        "CREATE DATABASE snap; USE snap; CREATE TABLE t (id BIGINT PRIMARY KEY, a INT, \
         b VARCHAR(32), c DATETIME, d DECIMAL(10,2), e BIGINT, f VARCHAR(64), g DATE, h INT, \
         i CHAR(32), j DECIMAL(12,4), k DATETIME(6))",
    )
    .expect("the snapshot table");
    let step = 500_000;
    let mut from = 1;
    while from <= rows {
        let to = (from + step - 1).min(rows);
        db.exec(&format!(
            "USE snap; INSERT INTO t SELECT seq, seq % 100000, CONCAT('row number ', seq), \
             '2024-01-01' + INTERVAL (seq % 1000000) SECOND, (seq % 100000) / 100, seq * 31, \
             CONCAT('a longer text value for row ', seq), '2024-01-01' + INTERVAL (seq % 3650) DAY, \
             seq % 7919, MD5(seq), (seq % 1000000) / 10000, '2024-01-01' + INTERVAL seq MICROSECOND \
             FROM seq_{from}_to_{to}"
        ))
        .expect("fill the snapshot table");
        from = to + 1;
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--engine-child") {
        let props = args.get(i + 1).expect("properties path");
        let n = args.get(i + 2).and_then(|n| n.parse().ok()).unwrap_or(0);
        engine_child(props, n);
        return;
    }
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    let input = BenchBinlog::locate(&root()).expect("the bench binlog");
    let (rows, end) = binlog_facts(&input);
    let first_file = input.files.first().cloned().expect("a binlog file");
    let snapshot_rows: u64 = std::env::var("SLUICE_BENCH_MEMORY_SNAPSHOT_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let db = input
        .serve_with(MariaDbConfig::default())
        .expect("a MariaDB serving the bench binlog");
    let snapshot_db = MariaDb::start(MariaDbConfig::default()).expect("MariaDB");
    make_snapshot_table(&snapshot_db, snapshot_rows);

    let mut measured = Vec::new();
    for run in [
        &(|| tail(&db)) as &dyn Fn() -> Measured,
        &|| canal_tcp(&db, &first_file, end),
        &|| mq_redis(&db, &first_file, end),
        &|| engine(&db, rows),
        &|| snapshot(&snapshot_db, snapshot_rows),
    ] {
        let m = run();
        eprintln!(
            "memory: {}: peak RSS {:.0} MB, {:.1} s",
            m.path, m.peak_mb, m.secs
        );
        measured.push(m);
    }

    let mut table =
        String::from("| path | what it does | peak RSS | seconds |\n| --- | --- | ---: | ---: |\n");
    for m in &measured {
        table.push_str(&format!(
            "| {} | {} | {:.0} MB | {:.1} |\n",
            m.path, m.what, m.peak_mb, m.secs
        ));
    }
    println!("{table}");
    if std::env::var_os("SLUICE_BENCH_NO_DOCS").is_some() {
        return;
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let body = format!(
        "## Peak memory of every path\n\n\
         Input: {} ({:.1} MB, {}): {} row changes, served by a private MariaDB over TCP on 127.0.0.1; and `snap.t`, {} rows of 12 columns in another, for the snapshot. Machine: {} CPUs by `nproc`, load average {} at the end.\n\n\
         Method: each path in a process of its own (release build, default settings), one after the other, from `binlog.000001:4` to the binlog's last transaction (the server's paths: until the destination's cursor is there); peak RSS is the process's `VmHWM` from `/proc` (read before a server is stopped; for `sluice tail` and the engine, every 10 ms while they run). See the header of `crates/9-cli/benches/memory.rs`.\n\n{table}\n\
         Reproduce (release build; generates `target/bench-data` when missing):\n\n\
         ```sh\ncargo bench -p sluice-cli --bench memory\n```",
        input.files.join(", "),
        input.bytes() as f64 / 1e6,
        input.manifest,
        thousands(rows as f64),
        thousands(snapshot_rows as f64),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load.split_whitespace().next().unwrap_or("?"),
    );
    sluice_testkit::bench_docs::write_section(BEGIN, END, &body).expect("write docs/benchmarks.md");
}
