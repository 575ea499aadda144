//! `sluice tail` at full stream: rows per second that `sluice tail` prints
//! (JSON lines, to /dev/null) when it follows a private MariaDB serving the
//! binlog of `scripts/gen-bench-binlog` (1.3 M row changes of a 22-column
//! table) from its first event to its end (`--stop-at-end`), with schema
//! tracking as by default.
//!
//! Compares `sluice` binaries side by side in one run:
//! `SLUICE_BENCH_SLUICE=before=/path/to/old/sluice,after=/path/to/new/sluice`
//! (default: this build's binary alone), and beside them, in the same run,
//! two peers reading the same range from the same server: the mysql_common
//! reader (`sluice_bench::peers::mysql_common_reader`: mysql_async's binlog
//! stream, every row decoded into mysql_common values) and
//! `mariadb-binlog -v --read-from-remote-server` (every row printed as its
//! pseudo-SQL, to /dev/null). Each client first makes one untimed pass
//! whose output is checked: every `sluice` binary must print the same bytes
//! (same hash, same row lines), and each peer must see as many rows. Then
//! `SLUICE_BENCH_ITERS` (default 3) timed passes of each, interleaved. CPU is
//! the user + system time of the client's process (for the in-process
//! mysql_common reader, of this process while it runs). Writes its section of docs/benchmarks.md unless
//! `SLUICE_BENCH_NO_DOCS=1`; `SLUICE_BENCH_BINLOG` names another binlog
//! directory.

use std::hash::Hasher;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use sluice_bench::peers::mysql_common_reader::{self, Source, Until};
use sluice_testkit::bench_binlog::BenchBinlog;
use sluice_testkit::bench_docs;

/// The mysql_async the mysql_common reader is built with (bench/Cargo.toml).
const MYSQL_ASYNC: &str = "0.37";

const BEGIN: &str = "<!-- tail-bench:begin -->";
const END: &str = "<!-- tail-bench:end -->";

struct Pass {
    secs: f64,
    cpu: f64,
}

fn cpu_of(who: libc::c_int) -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(who, &mut u) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

fn children_cpu() -> f64 {
    cpu_of(libc::RUSAGE_CHILDREN)
}

/// The clients timed beside each other.
enum Client {
    Sluice(PathBuf),
    MysqlCommonReader,
    MariadbBinlog,
}

const MYSQL_COMMON_READER: &str = "mysql_common reader";
const MARIADB_BINLOG: &str = "`mariadb-binlog -v`";

fn reader_source(port: u16, files: &[String]) -> Source {
    Source::local(port, "root", &files[0])
}

/// One pass of the mysql_common reader: its rows.
fn reader_pass(port: u16, files: &[String]) -> u64 {
    mysql_common_reader::read_blocking(&reader_source(port, files), Until::End, &mut ())
        .expect("mysql_common reader")
        .rows
}

fn mariadb_binlog_command(port: u16, files: &[String]) -> Command {
    let mut c = Command::new("mariadb-binlog");
    c.args([
        "-v",
        "--read-from-remote-server",
        "--host=127.0.0.1",
        &format!("--port={port}"),
        "--user=root",
    ])
    .args(files)
    .stdin(Stdio::null())
    .stderr(Stdio::inherit());
    c
}

/// One untimed pass of `mariadb-binlog -v`: the rows its pseudo-SQL shows.
fn mariadb_binlog_checked(port: u16, files: &[String]) -> u64 {
    let mut child = mariadb_binlog_command(port, files)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start mariadb-binlog");
    let out = child.stdout.take().expect("piped stdout");
    let mut reader = BufReader::with_capacity(1 << 20, out);
    let mut rows = 0u64;
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).expect("read output") == 0 {
            break;
        }
        if [
            &b"### INSERT INTO "[..],
            b"### UPDATE ",
            b"### DELETE FROM ",
        ]
        .iter()
        .any(|p| line.starts_with(p))
        {
            rows += 1;
        }
    }
    assert!(
        child.wait().expect("wait").success(),
        "mariadb-binlog failed"
    );
    rows
}

fn timed_client(client: &Client, port: u16, files: &[String]) -> Pass {
    match client {
        Client::Sluice(bin) => timed_pass(bin, port),
        Client::MysqlCommonReader => {
            let cpu = cpu_of(libc::RUSAGE_SELF);
            let t = Instant::now();
            std::hint::black_box(reader_pass(port, files));
            Pass {
                secs: t.elapsed().as_secs_f64(),
                cpu: cpu_of(libc::RUSAGE_SELF) - cpu,
            }
        }
        Client::MariadbBinlog => {
            let cpu = children_cpu();
            let t = Instant::now();
            let status = mariadb_binlog_command(port, files)
                .stdout(Stdio::null())
                .status()
                .expect("run mariadb-binlog");
            let secs = t.elapsed().as_secs_f64();
            assert!(status.success(), "mariadb-binlog failed");
            Pass {
                secs,
                cpu: children_cpu() - cpu,
            }
        }
    }
}

fn tail_command(bin: &Path, port: u16) -> Command {
    let mut c = Command::new(bin);
    c.args([
        "tail",
        "--source",
        &format!("mysql://root@127.0.0.1:{port}"),
        "--from",
        "binlog.000001:4",
        "--stop-at-end",
    ])
    .env("RUST_LOG", "warn")
    .stdin(Stdio::null())
    .stderr(Stdio::inherit());
    c
}

/// One untimed pass reading the output: its hash and its row lines.
fn checked_pass(bin: &Path, port: u16) -> (u64, u64) {
    let mut child = tail_command(bin, port)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start sluice tail");
    let out = child.stdout.take().expect("piped stdout");
    let mut reader = BufReader::with_capacity(1 << 20, out);
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let mut rows = 0u64;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).expect("read output");
        if n == 0 {
            break;
        }
        hasher.write(&line);
        if line.starts_with(b"{\"type\":\"row\"") {
            rows += 1;
        }
    }
    assert!(child.wait().expect("wait").success(), "sluice tail failed");
    (hasher.finish(), rows)
}

fn timed_pass(bin: &Path, port: u16) -> Pass {
    let cpu = children_cpu();
    let t = Instant::now();
    let status = tail_command(bin, port)
        .stdout(Stdio::null())
        .status()
        .expect("run sluice tail");
    let secs = t.elapsed().as_secs_f64();
    assert!(status.success(), "sluice tail failed");
    Pass {
        secs,
        cpu: children_cpu() - cpu,
    }
}

fn binaries() -> Vec<(String, PathBuf)> {
    match std::env::var("SLUICE_BENCH_SLUICE") {
        Ok(list) if !list.trim().is_empty() => list
            .split(',')
            .map(|item| match item.split_once('=') {
                Some((label, path)) => (label.trim().to_string(), PathBuf::from(path.trim())),
                None => (item.trim().to_string(), PathBuf::from(item.trim())),
            })
            .collect(),
        _ => vec![(
            "this build".to_string(),
            PathBuf::from(env!("CARGO_BIN_EXE_sluice")),
        )],
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let input = BenchBinlog::locate(&root).expect("the bench binlog");
    let iters: usize = std::env::var("SLUICE_BENCH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
        .max(1);
    let bins = binaries();
    let db = input.serve().expect("a MariaDB serving the bench binlog");
    let version = db
        .query_scalar("SELECT VERSION()")
        .ok()
        .flatten()
        .unwrap_or_default();

    let mut expected: Option<(u64, u64)> = None;
    for (label, bin) in &bins {
        let got = checked_pass(bin, db.port());
        eprintln!("{label}: untimed pass, {} row lines", got.1);
        match expected {
            None => expected = Some(got),
            Some(e) => assert_eq!(e, got, "{label} printed other output than {}", bins[0].0),
        }
    }
    let rows = expected.map(|e| e.1).unwrap_or(0);
    assert!(rows > 0, "no row printed");
    let files = &input.files;
    let reader_rows = reader_pass(db.port(), files);
    eprintln!("{MYSQL_COMMON_READER}: untimed pass, {reader_rows} rows");
    assert_eq!(reader_rows, rows, "the mysql_common reader saw other rows");
    let binlog_rows = mariadb_binlog_checked(db.port(), files);
    eprintln!("{MARIADB_BINLOG}: untimed pass, {binlog_rows} rows");
    assert_eq!(binlog_rows, rows, "mariadb-binlog -v showed other rows");

    let mut clients: Vec<(String, Client)> = bins
        .iter()
        .map(|(label, bin)| (label.clone(), Client::Sluice(bin.clone())))
        .collect();
    clients.push((MYSQL_COMMON_READER.to_string(), Client::MysqlCommonReader));
    clients.push((MARIADB_BINLOG.to_string(), Client::MariadbBinlog));

    let mut passes: Vec<Vec<Pass>> = clients.iter().map(|_| Vec::new()).collect();
    for i in 0..iters {
        for (k, (label, client)) in clients.iter().enumerate() {
            let p = timed_client(client, db.port(), files);
            eprintln!(
                "pass {}: {label}: {:.3} s, CPU {:.2} s",
                i + 1,
                p.secs,
                p.cpu
            );
            passes[k].push(p);
        }
    }

    let best_of = |ps: &[Pass]| ps.iter().map(|p| p.secs).fold(f64::MAX, f64::min);
    let reader_best = best_of(&passes[bins.len()]);
    let binlog_best = best_of(&passes[bins.len() + 1]);
    let mut table = String::from(
        "| client | best | median | rows/s (best) | binlog MB/s | CPU (median) | × first | × mysql_common reader | × `mariadb-binlog -v` |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let first_best = best_of(&passes[0]);
    for ((label, _), ps) in clients.iter().zip(&passes) {
        let best = best_of(ps);
        let med = median(ps.iter().map(|p| p.secs).collect());
        let cpu = median(ps.iter().map(|p| p.cpu).collect());
        table.push_str(&format!(
            "| {label} | {best:.3} s | {med:.3} s | {:.0} | {:.0} | {cpu:.2} s | {:.2}× | {:.2}× | {:.2}× |\n",
            rows as f64 / best,
            input.bytes() as f64 / 1e6 / best,
            first_best / best,
            reader_best / best,
            binlog_best / best,
        ));
    }
    println!("{table}");

    if std::env::var_os("SLUICE_BENCH_NO_DOCS").is_some() {
        return;
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().next().unwrap_or("?");
    let rustc = Command::new("rustc")
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let names: Vec<&str> = bins.iter().map(|(l, _)| l.as_str()).collect();
    let mariadb_binlog = Command::new("mariadb-binlog")
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let body = format!(
        "## `sluice tail`: rows/s printed from a live MariaDB, beside the mysql_common reader and `mariadb-binlog -v`\n\n\
         Input: {} ({:.1} MB, {}): {rows} row changes, served by a private MariaDB ({version}) over TCP on 127.0.0.1.\n\n\
         Machine: {} CPUs by `nproc`, load average {load} at the start; {rustc}.\n\n\
         Method: `sluice tail --from binlog.000001:4 --stop-at-end` (schema tracking on, as by default; rows turned into JSON on as many threads as CPUs, at most 4) writing JSON lines to /dev/null, from connect to the end of the binlog. Binaries compared: {}. Peers, same server, same range, in the same run: the mysql_common reader (`sluice_bench::peers::mysql_common_reader`: mysql_async {MYSQL_ASYNC}'s binlog stream as a replica, every row of every rows event decoded into mysql_common values, checksums verified, in this process on one thread) and `mariadb-binlog -v --read-from-remote-server` ({mariadb_binlog}; every row printed as pseudo-SQL, to /dev/null). Each client first makes one untimed pass whose output is read: every `sluice` binary printed the same bytes, and each peer saw the same {rows} rows. Then {iters} timed passes of each, interleaved. CPU is the client process's user + system time; MariaDB runs beside it on the same cores. \"× first\" is the first binary's best time over this one's; \"× mysql_common reader\" and \"× `mariadb-binlog -v`\" the peer's best time over this one's (rows/s of this one over the peer's). Targets: `sluice tail` at least 2.5× the mysql_common reader and 1.5× `mariadb-binlog -v`.\n\n{table}\n\
         Reproduce (release build; the bench generates `target/bench-data` with `scripts/gen-bench-binlog` when missing):\n\n\
         ```sh\ncargo bench -p sluice-cli --bench tail\n```\n\n\
         `SLUICE_BENCH_SLUICE=before=PATH,after=PATH` compares binaries (e.g. an older build, see `scripts/bench-compare`), `SLUICE_BENCH_ITERS` sets the timed passes, `SLUICE_BENCH_NO_DOCS=1` skips writing this section.",
        input.files.join(", "),
        input.bytes() as f64 / 1e6,
        input.manifest,
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        names.join(", "),
    );
    bench_docs::write_section(BEGIN, END, &body).expect("write docs/benchmarks.md");
}
