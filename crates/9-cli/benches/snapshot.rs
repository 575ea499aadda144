//! The initial snapshot of one large table, next to `mariadb-dump
//! --single-transaction` of the same table, interleaved in one run.
//!
//! A private MariaDB gets `bench.t` (`SLUICE_BENCH_SNAPSHOT_ROWS` rows,
//! default 10 M: a BIGINT primary key, an INT, a VARCHAR(32), a DATETIME
//! and a DECIMAL(10,2)). Each pass:
//! - `mariadb-dump --single-transaction --quick bench t > /dev/null`,
//!   timed from start to exit (the whole table in one consistent read,
//!   written as SQL);
//! - `sluice server` (release build) on a fresh configuration folder with
//!   `sluice.instance.snapshot.mode = initial`, and a Canal client
//!   (`get` of a batch of 1,000 units without ack, waiting at most
//!   [`GET_TIMEOUT_MS`] for it to fill, then ack, as Canal's examples do)
//!   that reads every column of the rows of the snapshot entries; the
//!   clock runs from the server's start until the client has every row of
//!   the table;
//! - the same with a client that takes the batches as bytes and counts the
//!   rows of the snapshot entries without reading their values: what
//!   `mariadb-dump`'s `/dev/null` does with its output.
//!
//! `SLUICE_BENCH_SNAPSHOT_ITERS` (default 2) sets the passes,
//! `SLUICE_BENCH_SNAPSHOT_COLUMNS=12` makes the table 12 columns wide,
//! `SLUICE_BENCH_SNAPSHOT_PROPERTIES` adds `instance.properties` lines
//! (`;`-separated), `SLUICE_BENCH_NO_DOCS=1` skips writing
//! docs/benchmarks.md; `SLUICE_BENCH_SERVER_LOG` sets the server's
//! `RUST_LOG` (default `warn`) and `SLUICE_BENCH_KEEP_LOG=FILE` keeps its
//! log of the last pass.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sluice_canal::proto::Entry;
use sluice_canal::view::{EntryView, RowChangeView};
use sluice_client::{Connector, SimpleConnector, TimeUnit};
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn write_conf(dir: &Path, db: &MariaDb, port: u16) {
    std::fs::write(
        dir.join("canal.properties"),
        format!("canal.port = {port}\ncanal.destinations = bench\ncanal.auto.scan = false\n"),
    )
    .expect("write canal.properties");
    std::fs::create_dir_all(dir.join("bench")).expect("conf folder");
    let extra = std::env::var("SLUICE_BENCH_SNAPSHOT_PROPERTIES")
        .unwrap_or_default()
        .replace(';', "\n");
    std::fs::write(
        dir.join("bench/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{}\n\
             sluice.instance.master.socket = {}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.filter.regex = bench\\\\..*\n\
             sluice.instance.snapshot.mode = initial\n{extra}\n",
            db.port(),
            db.socket_path().display()
        ),
    )
    .expect("write instance.properties");
}

/// The CPU seconds `mariadbd` has used so far.
fn source_cpu(db: &MariaDb) -> f64 {
    db.pid()
        .map_or(0.0, |pid| sluice_testkit::bench_docs::process_usage(pid).0)
}

/// The CPU seconds of this process's children waited for so far.
fn children_cpu() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

struct DumpPass {
    secs: f64,
    /// The CPU seconds of `mariadbd`, and of `mariadb-dump` itself.
    source_cpu: f64,
    dump_cpu: f64,
}

/// The `mariadb-dump` pass.
fn dump_pass(db: &MariaDb) -> DumpPass {
    let cpu_before = source_cpu(db);
    let dump_before = children_cpu();
    let started = Instant::now();
    let status = Command::new("mariadb-dump")
        .args(["--single-transaction", "--quick", "-uroot"])
        .arg(format!("--socket={}", db.socket_path().display()))
        .args(["bench", "t"])
        .stdout(Stdio::null())
        .status()
        .expect("run mariadb-dump");
    assert!(status.success(), "mariadb-dump failed");
    DumpPass {
        secs: started.elapsed().as_secs_f64(),
        source_cpu: source_cpu(db) - cpu_before,
        dump_cpu: children_cpu() - dump_before,
    }
}

struct SnapshotPass {
    secs: f64,
    server_cpu: f64,
    server_rss: f64,
    source_cpu: f64,
    /// The CPU seconds of this process (the Canal client).
    client_cpu: f64,
}

/// Reads every column of every row of a row entry, as a consumer would,
/// without building an object per value (the zero-copy reader a Rust
/// consumer has; `mariadb-dump` writes to /dev/null); returns the rows.
fn rows_read(e: &Entry) -> u64 {
    let value = e.store_value.as_deref().unwrap_or(&[]);
    let change = RowChangeView::parse(value).expect("row change");
    let mut rows = 0;
    let mut value_bytes = 0usize;
    for row in change.rows() {
        for column in row.after() {
            let column = column.expect("column");
            value_bytes += column.value.map_or(0, str::len);
        }
        rows += 1;
    }
    std::hint::black_box(value_bytes);
    rows
}

/// How long the client's `get` waits for a full batch (Canal's default
/// batches: 1,000 × 1 KB). The snapshot's last, partial batch waits for
/// all of it, so a long timeout only adds idle time after the last row.
const GET_TIMEOUT_MS: i64 = 100;

/// What the bench's Canal client does with the rows it gets.
#[derive(Clone, Copy, PartialEq)]
enum Consumer {
    /// Reads every column of every row.
    EveryValue,
    /// Takes the batches as bytes and counts the rows (the `/dev/null` of
    /// `mariadb-dump`'s output).
    CountOnly,
}

/// The Sluice pass: seconds until the client has `rows` snapshot rows.
async fn snapshot_pass(db: &MariaDb, rows: u64, consumer: Consumer) -> SnapshotPass {
    let conf = tempfile::tempdir().expect("temp folder");
    let port = find_free_port().expect("a free port");
    write_conf(conf.path(), db, port);
    let log = std::fs::File::create(conf.path().join("server.log")).expect("log file");
    let cpu_before = source_cpu(db);
    let client_before = sluice_testkit::bench_docs::process_usage(std::process::id()).0;
    let started = Instant::now();
    let mut server: Child = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args(["server", "--conf"])
        .arg(conf.path())
        .env(
            "RUST_LOG",
            std::env::var("SLUICE_BENCH_SERVER_LOG").unwrap_or_else(|_| "warn".into()),
        )
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start sluice server");
    let addr = format!("127.0.0.1:{port}");
    let mut client = loop {
        if let Ok(mut c) = SimpleConnector::connect(&addr, "bench", "", "").await {
            if c.subscribe("").await.is_ok() {
                break c;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "sluice server did not answer"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let mut got = 0u64;
    while got < rows {
        let (id, rows_now) = match consumer {
            Consumer::EveryValue => {
                let msg = client
                    .get_without_ack(1000, Some(GET_TIMEOUT_MS), TimeUnit::Milliseconds)
                    .await
                    .expect("get");
                let snapshot_rows: u64 = msg
                    .entries
                    .iter()
                    .filter(|e| {
                        e.header
                            .as_ref()
                            .is_some_and(|h| h.props.iter().any(|p| p.key() == "snapshot"))
                    })
                    .map(rows_read)
                    .sum();
                (msg.id, snapshot_rows)
            }
            Consumer::CountOnly => {
                let msg = client
                    .get_without_ack_raw(1000, Some(GET_TIMEOUT_MS), TimeUnit::Milliseconds)
                    .await
                    .expect("get");
                let snapshot_rows: u64 = msg
                    .entries
                    .iter()
                    .map(|bytes| {
                        let e = EntryView::parse(bytes).expect("entry");
                        if e.header.snapshot {
                            RowChangeView::parse(e.store_value)
                                .expect("row change")
                                .row_count as u64
                        } else {
                            0
                        }
                    })
                    .sum();
                (msg.id, snapshot_rows)
            }
        };
        if id < 0 {
            continue;
        }
        got += rows_now;
        client.ack(id).await.expect("ack");
    }
    let secs = started.elapsed().as_secs_f64();
    let source_cpu = source_cpu(db) - cpu_before;
    let client_cpu =
        sluice_testkit::bench_docs::process_usage(std::process::id()).0 - client_before;
    let (server_cpu, server_rss) = sluice_testkit::bench_docs::process_usage(server.id());
    let _ = server.kill();
    let _ = server.wait();
    if let Ok(keep) = std::env::var("SLUICE_BENCH_KEEP_LOG") {
        let _ = std::fs::copy(conf.path().join("server.log"), keep);
    }
    SnapshotPass {
        secs,
        server_cpu,
        server_rss,
        source_cpu,
        client_cpu,
    }
}

fn thousands(n: f64) -> String {
    let s = format!("{n:.0}");
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rows = env_num("SLUICE_BENCH_SNAPSHOT_ROWS", 10_000_000);
    let iters = env_num("SLUICE_BENCH_SNAPSHOT_ITERS", 2) as usize;
    // 5 columns (the default) or 12: the same five and seven more.
    let wide = env_num("SLUICE_BENCH_SNAPSHOT_COLUMNS", 5) >= 12;
    let (columns, values, described) = if wide {
        (
            "id BIGINT PRIMARY KEY, a INT, b VARCHAR(32), c DATETIME, d DECIMAL(10,2), \
             e BIGINT, f VARCHAR(64), g DATE, h INT, i CHAR(32), j DECIMAL(12,4), k DATETIME(6)",
            "seq, seq % 100000, CONCAT('row number ', seq), \
             '2024-01-01' + INTERVAL (seq % 1000000) SECOND, (seq % 100000) / 100, \
             seq * 31, CONCAT('a longer text value for row ', seq), \
             '2024-01-01' + INTERVAL (seq % 3650) DAY, seq % 7919, MD5(seq), \
             (seq % 1000000) / 10000, '2024-01-01' + INTERVAL seq MICROSECOND",
            "12 columns: BIGINT primary key, INT, VARCHAR(32), DATETIME, DECIMAL(10,2), BIGINT, VARCHAR(64), DATE, INT, CHAR(32), DECIMAL(12,4), DATETIME(6)",
        )
    } else {
        (
            "id BIGINT PRIMARY KEY, a INT, b VARCHAR(32), c DATETIME, d DECIMAL(10,2)",
            "seq, seq % 100000, CONCAT('row number ', seq), \
             '2024-01-01' + INTERVAL (seq % 1000000) SECOND, (seq % 100000) / 100",
            "BIGINT primary key, INT, VARCHAR(32), DATETIME, DECIMAL(10,2)",
        )
    };
    let db = MariaDb::start(MariaDbConfig::default()).expect("start MariaDB");
    let made = Instant::now();
    db.exec(&format!(
        "CREATE DATABASE bench; USE bench; CREATE TABLE t ({columns})"
    ))
    .expect("create the table");
    // In slices: one huge INSERT ... SELECT would hold a 10 M-row transaction.
    let step = 1_000_000;
    let mut from = 1;
    while from <= rows {
        let to = (from + step - 1).min(rows);
        db.exec(&format!(
            "USE bench; INSERT INTO t SELECT {values} FROM seq_{from}_to_{to}"
        ))
        .expect("fill the table");
        from = to + 1;
    }
    // The table's statistics are read when it is analysed, not as it fills.
    db.exec("ANALYZE TABLE bench.t").expect("analyse the table");
    let table_mb: f64 = db
        .query_scalar(
            "SELECT (DATA_LENGTH + INDEX_LENGTH) / 1e6 FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = 'bench' AND TABLE_NAME = 't'",
        )
        .ok()
        .flatten()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    eprintln!(
        "snapshot: {rows} rows ({table_mb:.0} MB) made in {:.1} s",
        made.elapsed().as_secs_f64()
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut dumps: Vec<DumpPass> = Vec::new();
    let mut snaps: Vec<SnapshotPass> = Vec::new();
    let mut counts: Vec<SnapshotPass> = Vec::new();
    for i in 1..=iters {
        // The three runs of a pass in an order rotated from pass to pass,
        // so that none always runs first (after the table is made, or
        // after another's pages were cached).
        for run in 0..3 {
            let consumer = match (run + i - 1) % 3 {
                0 => None,
                1 => Some(Consumer::EveryValue),
                _ => Some(Consumer::CountOnly),
            };
            let Some(consumer) = consumer else {
                let d = dump_pass(&db);
                eprintln!(
                    "snapshot: pass {i}: mariadb-dump {:.2} s ({:.0} rows/s), mariadbd CPU {:.1} s, mariadb-dump CPU {:.1} s",
                    d.secs,
                    rows as f64 / d.secs,
                    d.source_cpu,
                    d.dump_cpu
                );
                dumps.push(d);
                continue;
            };
            let (passes, what) = match consumer {
                Consumer::EveryValue => (&mut snaps, "reading every value"),
                Consumer::CountOnly => (&mut counts, "counting rows"),
            };
            let s = runtime.block_on(snapshot_pass(&db, rows, consumer));
            eprintln!(
                "snapshot: pass {i}: sluice, client {what}, {:.2} s ({:.0} rows/s), server CPU {:.1} s, RSS {:.0} MB, mariadbd CPU {:.1} s, client CPU {:.1} s",
                s.secs,
                rows as f64 / s.secs,
                s.server_cpu,
                s.server_rss,
                s.source_cpu,
                s.client_cpu
            );
            passes.push(s);
        }
    }
    let all = |v: Vec<f64>| {
        v.iter()
            .map(|s| format!("{s:.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    // Each side's fastest pass, with its CPU (all on the same cores).
    let dump_best = dumps
        .iter()
        .min_by(|a, b| a.secs.total_cmp(&b.secs))
        .expect("a pass");
    let best_dump = dump_best.secs;
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let median_dump = median(dumps.iter().map(|d| d.secs).collect());
    let sluice_row = |what: &str, passes: &[SnapshotPass]| {
        let best = passes
            .iter()
            .min_by(|a, b| a.secs.total_cmp(&b.secs))
            .expect("a pass");
        let row = format!(
            "| Sluice initial snapshot → Canal client {what} | {:.2} s | {} | {} | {:.1} s | {:.1} s | {:.1} s | {:.1} s | {:.0} MB |\n",
            best.secs,
            all(passes.iter().map(|s| s.secs).collect()),
            thousands(rows as f64 / best.secs),
            best.source_cpu,
            best.server_cpu,
            best.client_cpu,
            best.source_cpu + best.server_cpu + best.client_cpu,
            passes.iter().map(|s| s.server_rss).fold(0.0, f64::max),
        );
        let median_ratio = median_dump / median(passes.iter().map(|s| s.secs).collect());
        (row, best_dump / best.secs, median_ratio)
    };
    let (every_row, every_ratio, every_median) = sluice_row("reading every value", &snaps);
    let (count_row, count_ratio, count_median) = sluice_row("counting rows", &counts);
    let properties = std::env::var("SLUICE_BENCH_SNAPSHOT_PROPERTIES").unwrap_or_default();
    let settings = if properties.trim().is_empty() {
        "the default settings (`reads = scan`: one SELECT per part cut into chunks of 8,192 rows; `parallelism = 4`: the table is read in 4 parts at once; `maxBufferBytes = 64 MiB`: the chunks on their way take at most that, chunks cut by bytes too)".to_string()
    } else {
        format!("`{}`", properties.trim())
    };
    let body = format!(
        "## Initial snapshot of a large table, next to mariadb-dump\n\n\
         Machine: {cpus} CPUs by `nproc` ({cpu_model}); MariaDB {version}, `sluice server` (release build), the Canal client and `mariadb-dump` on the same cores.\n\n\
         Load: `bench.t`, {rows_s} rows ({table_mb:.0} MB of data and index): {described}; no writes meanwhile.\n\n\
         Method: passes interleaved, the order of the three runs rotated from pass to pass; both read through the server's Unix socket (`mariadb-dump --socket`, `sluice.instance.master.socket`). `mariadb-dump --single-transaction --quick bench t > /dev/null`, from start to exit. Sluice: `sluice server` with `sluice.instance.snapshot.mode = initial` and {settings} on a fresh configuration folder, and a Rust Canal client (`get` of a batch of 1,000 units, Canal's default MEMSIZE batches of 1,000 KB, waiting at most 100 ms for it to fill; then `ack`) that either reads every column of the rows of the entries marked `snapshot` (the crate's zero-copy `RowChangeView`), or takes the batches as bytes and counts those rows without reading their values (what `/dev/null` does with `mariadb-dump`'s output); the clock runs from the server's start until the client has every row. CPU seconds from `/proc` (`mariadbd`, `sluice server`, the client's process) and `getrusage` (`mariadb-dump`), of each side's fastest pass.\n\n\
         | what | best | all passes | rows/s (best) | `mariadbd` CPU | reader CPU | consumer CPU | CPU in all | server peak RSS |\n\
         | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n\
         | `mariadb-dump --single-transaction` | {best_dump:.2} s | {dump_all} | {dump_rate} | {dump_source:.1} s | {dump_cpu:.1} s | (`/dev/null`) | {dump_total:.1} s | |\n\
         {every_row}{count_row}\n\
         Sluice ÷ mariadb-dump (rows/s), best passes: {every_ratio:.2}× with the client reading every value, {count_ratio:.2}× with the client counting rows (median passes: {every_median:.2}× and {count_median:.2}×). Target from the issue: at least as fast as mysqldump while consistent with the stream, like for like (each side's output thrown away: `/dev/null`, the client counting rows): {verdict}.\n\n\
         Reproduce:\n\n```sh\ncargo bench -p sluice-cli --bench snapshot\n```\n\n\
         `SLUICE_BENCH_SNAPSHOT_ROWS` (default 10,000,000), `SLUICE_BENCH_SNAPSHOT_ITERS` (default 2), `SLUICE_BENCH_SNAPSHOT_COLUMNS` (5, the default, or 12), `SLUICE_BENCH_SNAPSHOT_PROPERTIES` (`instance.properties` lines, `;`-separated), `SLUICE_BENCH_NO_DOCS=1`.\n",
        cpu_model = sluice_testkit::bench_docs::cpu_model(),
        version = db.query_scalar("SELECT VERSION()").ok().flatten().unwrap_or_default(),
        rows_s = thousands(rows as f64),
        dump_all = all(dumps.iter().map(|d| d.secs).collect()),
        dump_rate = thousands(rows as f64 / best_dump),
        dump_source = dump_best.source_cpu,
        dump_cpu = dump_best.dump_cpu,
        dump_total = dump_best.source_cpu + dump_best.dump_cpu,
        verdict = if count_ratio >= 1.0 { "met" } else { "**not met**" },
    );
    println!("{body}");
    if std::env::var("SLUICE_BENCH_NO_DOCS").as_deref() != Ok("1") {
        let path = sluice_testkit::bench_docs::write_section(
            "<!-- snapshot:begin -->",
            "<!-- snapshot:end -->",
            &body,
        )
        .expect("write docs/benchmarks.md");
        eprintln!("snapshot: wrote {}", path.display());
    }
}
