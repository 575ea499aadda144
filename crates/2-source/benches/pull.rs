//! Replication pull: how fast Sluice reads a large binlog from a live server
//! over the network and decodes every row value, against the server's own
//! streaming rate as `mariadb-binlog --read-from-remote-server --raw` sees it
//! (the floor: it only writes the bytes it receives to a file).
//!
//! Run with `cargo bench -p sluice-source --bench pull`. The binlog is the one
//! `scripts/gen-bench-binlog` writes to `target/bench-data/` (generated when
//! missing; `SLUICE_BENCH_BINLOG` names another directory). A private MariaDB
//! is started with those files as its binlog, and both clients pull the same
//! files from it over TCP on 127.0.0.1, interleaved, `SLUICE_BENCH_ITERS`
//! times each (default 3). The results are printed and written into
//! `docs/benchmarks.md` between this benchmark's markers, unless
//! `SLUICE_BENCH_NO_DOCS=1`.
//!
//! Under `cargo test --benches` (no `--bench` argument) it does nothing.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use sluice_binlog::events::EventData;
use sluice_binlog::{Cell, Value};
use sluice_source::{
    BinlogStream, OwnedRowsEvent, SourceConfig, SslMode, StartPosition, StreamItem,
};
use sluice_testkit::{bench_docs, MariaDb, MariaDbConfig};

// Something of every value, so that no decoding can be skipped: the
// decoder benchmark's fold.
#[path = "../../1-binlog/benches/support/mod.rs"]
mod support;
use support::fold_value;

const BEGIN_MARK: &str = "<!-- source-pull:begin -->";
const END_MARK: &str = "<!-- source-pull:end -->";
const TARGET_RATIO: f64 = 0.8;

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("pull bench: skipped (run it with `cargo bench -p sluice-source --bench pull`)");
        return;
    }
    let input = read_input();
    let m = measure(&input);
    let md = report(&input, &m);
    println!("\n{md}");
    if std::env::var("SLUICE_BENCH_NO_DOCS").as_deref() != Ok("1") {
        let path =
            bench_docs::write_section(BEGIN_MARK, END_MARK, &md).expect("write docs/benchmarks.md");
        println!("written to {}", path.display());
    }
}

/// What the bench pulls: the binlog files, their names and size, and the
/// machine's load at the start.
struct Input {
    load: String,
    files: Vec<PathBuf>,
    names: Vec<String>,
    bytes: u64,
    manifest: Option<String>,
}

/// Finds the bench binlog (generated when missing) and prints what it is.
fn read_input() -> Input {
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().next().unwrap_or("?").to_string())
        .unwrap_or_else(|_| "?".into());
    let root = workspace_root();
    let data = bench_data(&root);
    let files = binlog_files(&data);
    assert!(!files.is_empty(), "no binlog files in {}", data.display());
    let bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))
        .sum();
    let names: Vec<String> = files
        .iter()
        .map(|f| {
            f.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let manifest = std::fs::read_to_string(data.join("MANIFEST")).ok();
    println!(
        "input: {} ({:.1} MB) from {}",
        names.join(", "),
        bytes as f64 / 1e6,
        data.display()
    );
    Input {
        load,
        files,
        names,
        bytes,
        manifest,
    }
}

/// The times and client CPU of every timed pass of each client, and what
/// the full decoding saw.
struct Measured {
    iters: usize,
    workers: usize,
    full: Tally,
    raw_t: Vec<Duration>,
    frame_t: Vec<Duration>,
    full_t: Vec<Duration>,
    mem_t: Vec<Duration>,
    par_t: Vec<Duration>,
    raw_cpu: Vec<f64>,
    frame_cpu: Vec<f64>,
    full_cpu: Vec<f64>,
    mem_cpu: Vec<f64>,
    par_cpu: Vec<f64>,
}

/// Serves the binlog from a private MariaDB, checks in untimed passes that
/// every client sees all of it, then times the passes, interleaved.
fn measure(input: &Input) -> Measured {
    let (files, names, bytes) = (&input.files, &input.names[..], input.bytes);
    let db = serve(files).expect("a MariaDB serving the bench binlog");
    let port = db.port();
    let iters: usize = std::env::var("SLUICE_BENCH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
        .max(1);
    let out = tempfile::tempdir().expect("temp dir");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");

    // One untimed pass each: warms the page cache, and checks that the
    // Sluice passes see all bytes and agree on the events.
    let raw_bytes = raw_pull(port, names, out.path()).1;
    assert_eq!(raw_bytes, bytes, "mariadb-binlog pulled the whole range");
    let frame = rt.block_on(sluice_pull(port, names, false));
    let full = rt.block_on(sluice_pull(port, names, true));
    assert_eq!(
        frame.bytes + 4 * names.len() as u64,
        bytes,
        "Sluice pulled the whole range"
    );
    assert_eq!(frame.events, full.events);
    assert!(full.rows > 0, "the binlog holds no row events");
    println!(
        "sluice: {} events, {} row changes, {} values ({} NULL)",
        full.events, full.rows, full.cells, full.nulls
    );

    let mut raw_t = Vec::new();
    let mut frame_t = Vec::new();
    let mut full_t = Vec::new();
    let mut mem_t = Vec::new();
    let mut par_t = Vec::new();
    let mut par_cpu = Vec::new();
    // The stream's thread and one more decode: two threads in all.
    let workers = 1;
    let par = sluice_pull_parallel(&rt, port, names, workers);
    assert_eq!(
        (par.rows, par.cells, par.sum),
        (full.rows, full.cells, full.sum)
    );
    let (mut raw_cpu, mut frame_cpu, mut full_cpu) = (Vec::new(), Vec::new(), Vec::new());
    let mut mem_cpu = Vec::new();
    // The same decoding with the files already in memory: what the network
    // part adds is the difference.
    let in_memory: Vec<(String, Vec<u8>)> = files
        .iter()
        .zip(names)
        .map(|(f, n)| (n.clone(), std::fs::read(f).expect("read the binlog")))
        .collect();
    let mem = decode_in_memory(&in_memory);
    assert_eq!(
        (mem.rows, mem.cells, mem.sum),
        (full.rows, full.cells, full.sum)
    );
    for pass in 1..=iters {
        let cpu = children_cpu();
        raw_t.push(raw_pull(port, names, out.path()).0);
        raw_cpu.push(children_cpu() - cpu);
        let (start, cpu) = (Instant::now(), process_cpu());
        let t = rt.block_on(sluice_pull(port, names, false));
        frame_t.push(start.elapsed());
        frame_cpu.push(process_cpu() - cpu);
        assert_eq!(t.events, frame.events);
        let (start, cpu) = (Instant::now(), process_cpu());
        let t = rt.block_on(sluice_pull(port, names, true));
        full_t.push(start.elapsed());
        full_cpu.push(process_cpu() - cpu);
        assert_eq!((t.rows, t.cells, t.sum), (full.rows, full.cells, full.sum));
        let (start, cpu) = (Instant::now(), process_cpu());
        let t = decode_in_memory(&in_memory);
        mem_t.push(start.elapsed());
        mem_cpu.push(process_cpu() - cpu);
        assert_eq!(t.sum, full.sum);
        let (start, cpu) = (Instant::now(), process_cpu());
        let t = sluice_pull_parallel(&rt, port, names, workers);
        par_t.push(start.elapsed());
        par_cpu.push(process_cpu() - cpu);
        assert_eq!((t.rows, t.cells, t.sum), (full.rows, full.cells, full.sum));
        println!("pass {pass}/{iters} done");
    }
    drop(db);
    Measured {
        iters,
        workers,
        full,
        raw_t,
        frame_t,
        full_t,
        mem_t,
        par_t,
        raw_cpu,
        frame_cpu,
        full_cpu,
        mem_cpu,
        par_cpu,
    }
}

/// The docs section: a table of the clients' rates and what they mean.
fn report(input: &Input, m: &Measured) -> String {
    let (names, bytes, load) = (&input.names[..], input.bytes, &input.load);
    let manifest = &input.manifest;
    let Measured {
        iters,
        full,
        raw_t,
        frame_t,
        full_t,
        mem_t,
        par_t,
        raw_cpu,
        frame_cpu,
        full_cpu,
        mem_cpu,
        par_cpu,
        ..
    } = m;
    let rate = |t: &[Duration]| bytes as f64 / 1e6 / best(t).as_secs_f64();
    let raw_rate = rate(raw_t);
    let rows = [
        (
            "`mariadb-binlog --read-from-remote-server --raw`",
            "the server streams, the client writes the bytes to a file (the floor)",
            &raw_t,
            &raw_cpu,
        ),
        (
            "Sluice: pull + frame + CRC32",
            "`BinlogStream`: packets, framing, checksum, positions; no row decoding",
            &frame_t,
            &frame_cpu,
        ),
        (
            "Sluice: pull + decode every value",
            "as above, plus every row and every value decoded into `Value`",
            &full_t,
            &full_cpu,
        ),
        (
            "Sluice: pull + decode every value on 2 threads",
            "as above, with every other batch of 64 rows events decoded on a second thread (`Event::to_owned_rows`)",
            &par_t,
            &par_cpu,
        ),
        (
            "Sluice: decode every value, no network",
            "for comparison: the same decoding of the files read into memory beforehand (`walk_file`)",
            &mem_t,
            &mem_cpu,
        ),
    ];
    let mut md = String::new();
    let _ = writeln!(md, "## Replication pull: Sluice vs mariadb-binlog\n");
    let what = manifest
        .as_deref()
        .and_then(|m| m.lines().next())
        .map(|l| l.trim_start_matches("# ").to_string())
        .unwrap_or_default();
    let _ = writeln!(
        md,
        "Input: `{}`, {:.1} MB ({what}): {} events, {} row changes, {} values ({} NULL), served by a private MariaDB ({}) over TCP on 127.0.0.1.\n",
        names.join("`, `"),
        bytes as f64 / 1e6,
        fmt_int(full.events),
        fmt_int(full.rows),
        fmt_int(full.cells),
        fmt_int(full.nulls),
        server_version(),
    );
    let _ = writeln!(
        md,
        "Machine: {} ({} CPUs by `nproc`), load average {load} at the start; {}; run on {} (UTC).\n",
        sluice_testkit::bench_docs::cpu_model(),
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        rustc_version(),
        today(),
    );
    let _ = writeln!(
        md,
        "Method: the same files are pulled from the start of the first to the end of the last, {iters} timed pass(es) per client, interleaved, after one untimed pass each (page cache warm; the Sluice passes checked to see every byte and the same events, rows and values). Each pass is a new connection: connect, log in, dump, read to the end. Server and client share the machine's cores. \"best\" is the fastest pass and is what MB/s and the ratio use; MB/s is binlog bytes (10^6) per second; client CPU is the median user + system time of the client (the mariadb-binlog process; for Sluice all threads of the benchmark process), with 10 ms resolution: unlike the times, it does not depend on what else the machine runs.\n"
    );
    let _ = writeln!(
        md,
        "| client | what is timed | best | median | MB/s | × raw | client CPU |"
    );
    let _ = writeln!(md, "| --- | --- | ---: | ---: | ---: | ---: | ---: |");
    for (name, what, t, cpu) in rows {
        let r = rate(t);
        let _ = writeln!(
            md,
            "| {name} | {what} | {:.3} s | {:.3} s | {r:.0} | {:.2}× | {:.2} s |",
            best(t).as_secs_f64(),
            median(t).as_secs_f64(),
            r / raw_rate,
            median_f(cpu)
        );
    }
    conclusions(&mut md, bytes, m);
    md
}

/// The docs section's closing paragraphs: the target met or not, where the
/// time goes, how to reproduce.
fn conclusions(md: &mut String, bytes: u64, m: &Measured) {
    let Measured {
        workers,
        raw_t,
        full_t,
        par_t,
        raw_cpu,
        frame_cpu,
        full_cpu,
        mem_cpu,
        ..
    } = m;
    let rate = |t: &[Duration]| bytes as f64 / 1e6 / best(t).as_secs_f64();
    let raw_rate = rate(raw_t);
    let ratio = rate(full_t) / raw_rate;
    let ratio_par = rate(par_t) / raw_rate;
    let verdict = |r: f64| {
        if r >= TARGET_RATIO {
            "met"
        } else {
            "**not met**"
        }
    };
    let _ = writeln!(
        md,
        "\nTarget from the issue: pulling and fully decoding at no less than {TARGET_RATIO}× the raw byte rate: {ratio:.2}× with every value decoded on the stream's own thread ({}); {ratio_par:.2}× with the decoding on {} threads ({}).\n",
        verdict(ratio),
        workers + 1,
        verdict(ratio_par)
    );
    let (raw_c, frame_c, full_c, mem_c) = (
        median_f(raw_cpu),
        median_f(frame_cpu),
        median_f(full_cpu),
        median_f(mem_cpu),
    );
    let _ = writeln!(
        md,
        "Where the time goes (client CPU, which the machine's other load does not change): receiving, framing and checksumming the stream costs Sluice {frame_c:.2} s against {raw_c:.2} s for mariadb-binlog to receive and write it; decoding every value costs {:.2} s on top, and {mem_c:.2} s with the file already in memory and no network at all. The pull itself is not the limit: the ratio is the single-core speed of value decoding (`sluice-binlog`) against the raw client's, with the server and the client sharing {} cores.{}\n",
        (full_c - frame_c).max(0.0),
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        if ratio >= TARGET_RATIO {
            ""
        } else {
            " With one decoding thread, reaching the target here takes a faster decoder; spreading the decoding over threads (`Event::to_owned_rows`, the row with decoding threads) is the other way."
        },
    );
    let _ = writeln!(
        md,
        "Reproduce (the bench runs `scripts/gen-bench-binlog` itself when `target/bench-data/` has no complete set; it needs MariaDB server and client, which the script installs with apt-get when missing):\n\n```sh\ncargo bench -p sluice-source --bench pull\n```\n\n`SLUICE_BENCH_ITERS` sets the passes per client (default 3), `SLUICE_BENCH_BINLOG` names another directory of binlog files, `SLUICE_BENCH_NO_DOCS=1` skips writing this section."
    );
}

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    events: u64,
    bytes: u64,
    rows: u64,
    cells: u64,
    nulls: u64,
    sum: u64,
}

impl Tally {
    #[inline]
    fn add(&mut self, x: u64) {
        // Order-independent, so that parallel decoding sums the same.
        self.sum = self
            .sum
            .wrapping_add(x.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17));
    }
}

/// Decodes every row and value of a rows event into the tally.
fn decode_rows(r: &sluice_binlog::RowsEvent<'_>, t: &mut Tally) {
    for row in r.rows() {
        let row = row.expect("row");
        t.rows += 1;
        for img in [&row.before, &row.after].into_iter().flatten() {
            for cell in img.cells() {
                t.cells += 1;
                match cell.expect("value") {
                    Cell::Present(Value::Null) => t.nulls += 1,
                    Cell::Present(v) => t.add(fold_value(&v)),
                    Cell::Absent => {}
                }
            }
        }
    }
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, o: Tally) {
        self.events += o.events;
        self.bytes += o.bytes;
        self.rows += o.rows;
        self.cells += o.cells;
        self.nulls += o.nulls;
        self.sum = self.sum.wrapping_add(o.sum);
    }
}

/// Pulls on this thread and decodes the rows events here and on `workers`
/// more threads: batches of 64 rows events go round-robin to this thread
/// (decoded in place) and to the workers (as `OwnedRowsEvent` copies).
fn sluice_pull_parallel(
    rt: &tokio::runtime::Runtime,
    port: u16,
    files: &[String],
    workers: usize,
) -> Tally {
    const BATCH: usize = 64;
    std::thread::scope(|scope| {
        let mut senders = Vec::new();
        let mut handles = Vec::new();
        for _ in 0..workers {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<OwnedRowsEvent>>(16);
            senders.push(tx);
            handles.push(scope.spawn(move || {
                let mut t = Tally::default();
                for batch in rx {
                    for ev in batch {
                        decode_rows(&ev.rows_event().expect("rows event"), &mut t);
                    }
                }
                t
            }));
        }
        let mut t = rt.block_on(async {
            let mut s = BinlogStream::connect(config(port, files))
                .await
                .expect("connect");
            let mut t = Tally::default();
            let mut batch = Vec::with_capacity(BATCH);
            let mut n = 0usize;
            while let Some(item) = s.next().await.expect("stream") {
                let StreamItem::Event(ev) = item else {
                    panic!("no reconnect expected")
                };
                if !files.iter().any(|f| f == ev.file) {
                    break;
                }
                if ev.artificial {
                    continue;
                }
                t.events += 1;
                t.bytes += ev.raw.bytes.len() as u64;
                let EventData::Rows(r) = &ev.data else {
                    continue;
                };
                let slot = (n / BATCH) % (workers + 1);
                n += 1;
                if slot == 0 {
                    decode_rows(r, &mut t);
                    continue;
                }
                batch.push(ev.to_owned_rows().expect("rows event"));
                if batch.len() == BATCH {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                    senders[slot - 1].send(full).expect("worker");
                }
            }
            if !batch.is_empty() {
                let slot = ((n - 1) / BATCH) % (workers + 1);
                senders[slot.max(1) - 1].send(batch).expect("worker");
            }
            t
        });
        drop(senders);
        for h in handles {
            t += h.join().expect("worker");
        }
        t
    })
}

fn config(port: u16, files: &[String]) -> SourceConfig {
    let mut cfg = SourceConfig::from_url(&format!("mysql://root@127.0.0.1:{port}")).expect("url");
    cfg.connect.tls.mode = SslMode::Disabled;
    cfg.start = StartPosition::FilePos {
        file: files[0].clone(),
        pos: 4,
    };
    cfg.stop_at_end = true;
    // mariadb-binlog asks for ANNOTATE_ROWS events too: the same bytes.
    cfg.annotate_rows = true;
    cfg
}

/// Decodes every value of in-memory files as `sluice_pull` does.
fn decode_in_memory(files: &[(String, Vec<u8>)]) -> Tally {
    let mut t = Tally::default();
    for (name, buf) in files {
        sluice_binlog::walk_file(name, buf, |_, raw, data| {
            t.events += 1;
            t.bytes += raw.bytes.len() as u64;
            if let EventData::Rows(r) = data {
                decode_rows(r, &mut t);
            }
            std::ops::ControlFlow::Continue(())
        })
        .expect("decode");
    }
    t
}

/// Pulls the files with a `BinlogStream` (non-blocking dump: it ends at the
/// end of the binlog); stops at the first event of a file after them.
async fn sluice_pull(port: u16, files: &[String], decode: bool) -> Tally {
    let mut s = BinlogStream::connect(config(port, files))
        .await
        .expect("connect");
    let mut t = Tally::default();
    while let Some(item) = s.next().await.expect("stream") {
        let StreamItem::Event(ev) = item else {
            panic!("no reconnect expected")
        };
        if !files.iter().any(|f| f == ev.file) {
            break;
        }
        if ev.artificial {
            continue;
        }
        t.events += 1;
        t.bytes += ev.raw.bytes.len() as u64;
        if !decode {
            continue;
        }
        if let EventData::Rows(r) = &ev.data {
            decode_rows(r, &mut t);
        }
    }
    t
}

/// `mariadb-binlog --read-from-remote-server --raw` into `dir`; returns the
/// time and the bytes written.
fn raw_pull(port: u16, files: &[String], dir: &Path) -> (Duration, u64) {
    for f in files {
        let _ = std::fs::remove_file(dir.join(f));
    }
    let start = Instant::now();
    let status = Command::new(mariadb_binlog())
        .arg("--no-defaults")
        .arg("--read-from-remote-server")
        .arg("--raw")
        .arg("--host=127.0.0.1")
        .arg(format!("--port={port}"))
        .arg("--user=root")
        .arg(format!("--result-file={}/", dir.display()))
        .args(files)
        .status()
        .expect("run mariadb-binlog");
    let took = start.elapsed();
    assert!(status.success(), "mariadb-binlog failed: {status}");
    let written = files
        .iter()
        .map(|f| std::fs::metadata(dir.join(f)).map(|m| m.len()).unwrap_or(0))
        .sum();
    (took, written)
}

fn mariadb_binlog() -> &'static str {
    if Command::new("mariadb-binlog")
        .arg("--version")
        .output()
        .is_ok()
    {
        "mariadb-binlog"
    } else {
        "mysqlbinlog"
    }
}

/// A private MariaDB whose binlog is the given files.
fn serve(files: &[PathBuf]) -> anyhow::Result<MariaDb> {
    let mut db = MariaDb::start(MariaDbConfig::default())?;
    db.stop()?;
    let dir = db.datadir().to_path_buf();
    for e in std::fs::read_dir(&dir)? {
        let p = e?.path();
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name.starts_with("binlog.") {
            std::fs::remove_file(&p)?;
        }
    }
    let mut index = String::new();
    for f in files {
        let name = f.file_name().unwrap_or_default();
        let to = dir.join(name);
        std::fs::copy(f, &to)?;
        index.push_str(&format!("{}\n", to.display()));
    }
    std::fs::write(dir.join("binlog.index"), index)?;
    db.restart()?;
    Ok(db)
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The generator's output directory, generated when missing.
fn bench_data(root: &Path) -> PathBuf {
    if let Ok(p) = std::env::var("SLUICE_BENCH_BINLOG") {
        return PathBuf::from(p);
    }
    let target = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join("target"));
    let dir = target.join("bench-data");
    // Idempotent: does nothing when a complete set is there.
    let status = Command::new(root.join("scripts/gen-bench-binlog"))
        .arg(&dir)
        .status()
        .expect("run scripts/gen-bench-binlog");
    assert!(status.success(), "scripts/gen-bench-binlog failed");
    dir
}

fn binlog_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .and_then(|n| n.strip_prefix("binlog."))
                        .is_some_and(|ext| {
                            !ext.is_empty() && ext.bytes().all(|b| b.is_ascii_digit())
                        })
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn best(t: &[Duration]) -> Duration {
    t.iter().copied().min().unwrap_or_default()
}

fn median(t: &[Duration]) -> Duration {
    let mut v = t.to_vec();
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn median_f(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// Fields after the command name of a `/proc/.../stat` line.
fn proc_stat(path: &str) -> Vec<u64> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| s.rfind(')').map(|i| s[i + 1..].to_string()))
        .map(|s| {
            s.split_whitespace()
                .map(|f| f.parse().unwrap_or(0))
                .collect()
        })
        .unwrap_or_default()
}

/// Seconds of CPU (user + system) this process's threads used so far (10 ms clock ticks).
fn process_cpu() -> f64 {
    let f = proc_stat("/proc/self/stat");
    (f.get(11).unwrap_or(&0) + f.get(12).unwrap_or(&0)) as f64 / 100.0
}

/// Seconds of CPU used by the child processes waited for so far.
fn children_cpu() -> f64 {
    let f = proc_stat("/proc/self/stat");
    (f.get(13).unwrap_or(&0) + f.get(14).unwrap_or(&0)) as f64 / 100.0
}

fn fmt_int(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn server_version() -> String {
    Command::new("/usr/sbin/mariadbd")
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.split_whitespace().nth(2).map(str::to_string))
        .unwrap_or_else(|| "MariaDB".into())
}

fn rustc_version() -> String {
    Command::new("rustc")
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "rustc".into())
}

fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    sluice_source::position::format_utc(secs)[..10].to_string()
}
