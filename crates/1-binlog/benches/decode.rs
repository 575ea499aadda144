//! Decoder throughput: Sluice and mysql_common side by side on one generated
//! binlog (`scripts/gen-bench-binlog`), single-threaded, every value decoded.
//!
//! Run with `cargo bench -p sluice-binlog --bench decode`. The binlog is read
//! from `target/bench-data/` (generated there when missing; `SLUICE_BENCH_ROWS`
//! sets its size, default 1000000 inserted rows) or from the file or directory
//! named by `SLUICE_BENCH_BINLOG`. `SLUICE_BENCH_ITERS` sets the number of timed
//! passes per decoder (default 5). The results are printed and written into
//! `docs/benchmarks.md`, between this benchmark's marker comments, unless
//! `SLUICE_BENCH_NO_DOCS=1`. `SLUICE_BENCH_ONLY=TEXT` times only the cases
//! whose name contains TEXT (for profiling; prints, writes no docs).
//!
//! Under `cargo test --benches` (no `--bench` argument) it does nothing.

use std::fmt::Write as _;
use std::hint::black_box;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mysql_common::binlog::consts::BinlogVersion;
use mysql_common::binlog::events::EventData as McEventData;
use mysql_common::binlog::value::BinlogValue;
use mysql_common::value::Value as McValue;
use sluice_binlog::{walk_file, Cell, EventData, EventFramer, Value};
use sluice_testkit::bench_docs;

// Shared with sluice-source's pull benchmark, which folds values the same way.
mod support;
use support::fold_value;

const BEGIN_MARK: &str =
    "<!-- BEGIN decode-bench: written by `cargo bench -p sluice-binlog --bench decode` -->";
const END_MARK: &str = "<!-- END decode-bench -->";
const TARGET_MB_S: f64 = 300.0;
const TARGET_RATIO: f64 = 5.0;

/// The binlog files, in order, read into memory (both decoders read from RAM).
struct Input {
    files: Vec<(String, Vec<u8>)>,
    bytes: u64,
    /// What the generator recorded (MANIFEST), if known.
    manifest: Option<String>,
}

/// What one pass saw. `sum` folds every value so nothing can be skipped; it
/// differs between decoders (different value representations), the counts must not.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Tally {
    events: u64,
    rows: u64,
    cells: u64,
    nulls: u64,
    sum: u64,
}

impl Tally {
    fn counts(&self) -> (u64, u64, u64, u64) {
        (self.events, self.rows, self.cells, self.nulls)
    }

    #[inline]
    fn add(&mut self, x: u64) {
        self.sum = (self.sum ^ x).wrapping_mul(0x0100_0000_01b3);
    }
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!(
            "decode bench: skipped (run it with `cargo bench -p sluice-binlog --bench decode`)"
        );
        return;
    }
    let load_at_start = load_average();
    let root = workspace_root();
    let input = load_input(&root);
    let iters: usize = env_parse("SLUICE_BENCH_ITERS", 5).max(1);
    let names: Vec<&str> = input.files.iter().map(|(n, _)| n.as_str()).collect();
    println!(
        "input: {} ({:.1} MB), {iters} timed passes per decoder",
        names.join(", "),
        input.bytes as f64 / 1e6
    );

    let only = std::env::var("SLUICE_BENCH_ONLY").ok();
    let reference = sluice_decode(&input);
    println!(
        "sluice: {} events, {} row changes, {} values ({} NULL)",
        reference.events, reference.rows, reference.cells, reference.nulls
    );
    assert!(reference.rows > 0, "the binlog holds no row events");
    if only.is_none() {
        // One untimed pass each: warms the caches and checks that every pass
        // saw the same events, rows, values and NULLs.
        let counts = reference.counts();
        assert_eq!(sluice_render(&input).counts(), counts, "render pass");
        assert_eq!(mysql_common_decode(&input).counts(), counts, "mysql_common");
        assert_eq!(sluice_frame(&input).events, reference.events, "framing");
    }

    let mut cases = vec![
        Case::new(
            "Sluice: frame + CRC32 only",
            "framing and checksum verification, no event decoding (upper bound)",
            sluice_frame,
        ),
        Case::new(
            "Sluice: decode every value",
            "frame + CRC32 + decode every event, row and value into `Value`",
            sluice_decode,
        ),
        Case::new(
            "Sluice: decode + render to text",
            "as above, plus `Value::render` of every value into a reused `String`",
            sluice_render,
        ),
        Case::new(
            "mysql_common: decode every value",
            "`BinlogFile` + CRC32 check + every row into `BinlogRow` values",
            mysql_common_decode,
        ),
    ];
    if let Some(only) = &only {
        // For profiling one decoder: no cross-check, no docs.
        cases.retain(|c| c.name.contains(only.as_str()));
        assert!(
            !cases.is_empty(),
            "SLUICE_BENCH_ONLY={only:?} matches no case"
        );
    }
    // Interleaved passes: every decoder sees the same background load.
    for pass in 1..=iters {
        for case in cases.iter_mut() {
            let start = Instant::now();
            let t = black_box((case.run)(black_box(&input)));
            case.times.push(start.elapsed());
            assert_eq!(t.events, reference.events, "{}", case.name);
            assert!(t.rows == reference.rows || t.rows == 0, "{}", case.name);
        }
        println!("pass {pass}/{iters} done");
    }
    if only.is_some() {
        for c in &cases {
            let best = c.best().as_secs_f64();
            println!(
                "{}: best {best:.3} s, median {:.3} s, {:.0} MB/s",
                c.name,
                c.median().as_secs_f64(),
                input.bytes as f64 / 1e6 / best
            );
        }
        return;
    }

    let report = Report::new(&input, &reference, &cases, iters, &load_at_start);
    let text = report.markdown();
    println!("\n{text}");
    if std::env::var("SLUICE_BENCH_NO_DOCS").as_deref() != Ok("1") {
        let path = bench_docs::write_section(BEGIN_MARK, END_MARK, &text)
            .expect("write docs/benchmarks.md");
        println!("written to {}", path.display());
    }
}

struct Case {
    name: &'static str,
    what: &'static str,
    run: fn(&Input) -> Tally,
    times: Vec<Duration>,
}

impl Case {
    fn new(name: &'static str, what: &'static str, run: fn(&Input) -> Tally) -> Self {
        Case {
            name,
            what,
            run,
            times: Vec::new(),
        }
    }

    fn best(&self) -> Duration {
        self.times.iter().copied().min().unwrap_or_default()
    }

    fn median(&self) -> Duration {
        let mut t = self.times.clone();
        t.sort();
        t.get(t.len() / 2).copied().unwrap_or_default()
    }
}

// --- the decoders --------------------------------------------------------------

fn sluice_frame(input: &Input) -> Tally {
    let mut t = Tally::default();
    for (_, buf) in &input.files {
        for ev in EventFramer::for_file(buf).expect("binlog magic") {
            let ev = ev.expect("framing");
            t.events += 1;
            t.add(ev.body.len() as u64);
        }
    }
    t
}

fn sluice_decode(input: &Input) -> Tally {
    let mut t = Tally::default();
    for (name, buf) in &input.files {
        walk_file(name, buf, |_, _, data| {
            t.events += 1;
            if let EventData::Rows(ev) = data {
                for row in ev.rows() {
                    let row = row.expect("row");
                    t.rows += 1;
                    for image in [&row.before, &row.after].into_iter().flatten() {
                        for cell in image.cells() {
                            let cell = cell.expect("value");
                            t.cells += 1;
                            match cell {
                                Cell::Present(Value::Null) => t.nulls += 1,
                                Cell::Present(v) => t.add(fold_value(&v)),
                                Cell::Absent => t.add(3),
                            }
                        }
                    }
                }
            }
            ControlFlow::Continue(())
        })
        .expect("decode");
    }
    t
}

fn sluice_render(input: &Input) -> Tally {
    let mut t = Tally::default();
    let mut text = String::with_capacity(256);
    for (name, buf) in &input.files {
        walk_file(name, buf, |_, _, data| {
            t.events += 1;
            if let EventData::Rows(ev) = data {
                for row in ev.rows() {
                    let row = row.expect("row");
                    t.rows += 1;
                    for image in [&row.before, &row.after].into_iter().flatten() {
                        let columns = &image.table().columns;
                        for (cell, col) in image.cells().zip(columns) {
                            let cell = cell.expect("value");
                            t.cells += 1;
                            text.clear();
                            if let Cell::Present(v) = cell {
                                if v.is_null() {
                                    t.nulls += 1;
                                }
                                v.render(col, &mut text).expect("render");
                            }
                            let bytes = black_box(text.as_bytes());
                            t.add(bytes.len() as u64 ^ bytes.last().copied().unwrap_or(0) as u64);
                        }
                    }
                }
            }
            ControlFlow::Continue(())
        })
        .expect("decode");
    }
    t
}

fn mysql_common_decode(input: &Input) -> Tally {
    let mut t = Tally::default();
    for (_, buf) in &input.files {
        let mut file = mysql_common::binlog::BinlogFile::new(BinlogVersion::Version4, &buf[..])
            .expect("binlog header");
        // `while let` rather than `for`: the loop body borrows the reader.
        #[allow(clippy::while_let_on_iterator)]
        while let Some(ev) = file.next() {
            let ev = ev.expect("event");
            t.events += 1;
            // mysql_common does not verify checksums itself; Sluice always does.
            if let (Ok(Some(alg)), Some(stored)) = (ev.footer().get_checksum_alg(), ev.checksum()) {
                assert_eq!(
                    u32::from_le_bytes(stored),
                    ev.calc_checksum(alg),
                    "checksum mismatch"
                );
            }
            if let Some(McEventData::RowsEvent(rows)) = ev.read_data().expect("event data") {
                let tme = file
                    .reader()
                    .get_tme(rows.table_id())
                    .expect("table map for rows event");
                for row in rows.rows(tme) {
                    let (before, after) = row.expect("row");
                    t.rows += 1;
                    for image in [before, after].into_iter().flatten() {
                        for i in 0..image.len() {
                            t.cells += 1;
                            match image.as_ref(i) {
                                Some(BinlogValue::Value(McValue::NULL)) => t.nulls += 1,
                                Some(v) => t.add(fold_mc_value(v)),
                                None => t.add(3),
                            }
                        }
                    }
                }
            }
        }
    }
    t
}

#[inline]
fn fold_mc_value(v: &BinlogValue<'_>) -> u64 {
    match v {
        BinlogValue::Value(v) => match v {
            McValue::NULL => 1,
            McValue::Bytes(b) => (b.len() as u64) << 8 | b.last().copied().unwrap_or(0) as u64,
            McValue::Int(x) => *x as u64,
            McValue::UInt(x) => *x,
            McValue::Float(x) => x.to_bits() as u64,
            McValue::Double(x) => x.to_bits(),
            McValue::Date(y, mo, d, h, mi, s, us) => {
                (*y as u64) << 48
                    | (*mo as u64) << 40
                    | (*d as u64) << 32
                    | (*h as u64) << 24
                    | (*mi as u64) << 16
                    | (*s as u64) << 8
                    | *us as u64
            }
            McValue::Time(neg, d, h, mi, s, us) => {
                (*neg as u64) << 63
                    | (*d as u64) << 40
                    | (*h as u64) << 32
                    | (*mi as u64) << 24
                    | (*s as u64) << 16
                    | *us as u64
            }
        },
        BinlogValue::Jsonb(_) => 2,
        BinlogValue::JsonDiff(d) => d.len() as u64,
    }
}

// --- input -------------------------------------------------------------------------

fn workspace_root() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    dir.canonicalize().unwrap_or(dir)
}

fn env_parse<T: std::str::FromStr>(name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not valid")),
        Err(_) => default,
    }
}

fn load_input(root: &Path) -> Input {
    let (files, manifest) = match std::env::var_os("SLUICE_BENCH_BINLOG") {
        Some(p) => files_at(Path::new(&p)),
        None => {
            let target = std::env::var_os("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| root.join("target"));
            let dir = target.join("bench-data");
            let rows: u64 = env_parse("SLUICE_BENCH_ROWS", 1_000_000);
            // Idempotent: returns at once when the set is complete.
            let status = Command::new(root.join("scripts/gen-bench-binlog"))
                .arg(&dir)
                .arg(rows.to_string())
                .status()
                .expect("run scripts/gen-bench-binlog");
            assert!(status.success(), "scripts/gen-bench-binlog failed");
            files_at(&dir)
        }
    };
    assert!(!files.is_empty(), "no binlog files found");
    let files: Vec<(String, Vec<u8>)> = files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (name, bytes)
        })
        .collect();
    let bytes = files.iter().map(|(_, b)| b.len() as u64).sum();
    Input {
        files,
        bytes,
        manifest,
    }
}

/// A binlog file, or a directory written by `scripts/gen-bench-binlog`.
fn files_at(path: &Path) -> (Vec<PathBuf>, Option<String>) {
    if path.is_file() {
        return (vec![path.to_path_buf()], None);
    }
    let manifest = std::fs::read_to_string(path.join("MANIFEST"))
        .unwrap_or_else(|e| panic!("{}/MANIFEST: {e}", path.display()));
    let files = manifest
        .lines()
        .filter_map(|l| l.strip_prefix("file "))
        .filter_map(|l| l.split_whitespace().next())
        .map(|name| path.join(name))
        .collect();
    (files, Some(manifest))
}

// --- report ----------------------------------------------------------------------

struct Report {
    rows: String,
    facts: Vec<String>,
    verdict: String,
}

impl Report {
    fn new(input: &Input, tally: &Tally, cases: &[Case], iters: usize, load: &str) -> Report {
        let mb = input.bytes as f64 / 1e6;
        let baseline = cases
            .iter()
            .find(|c| c.name.starts_with("mysql_common"))
            .map(|c| c.best().as_secs_f64())
            .unwrap_or(f64::NAN);
        let mut rows = String::new();
        rows.push_str(
            "| decoder | what is timed | best | median | rows/s | MB/s | × mysql_common |\n",
        );
        rows.push_str("| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
        let mut measured = Vec::new();
        for c in cases {
            let best = c.best().as_secs_f64();
            let median = c.median().as_secs_f64();
            let mb_s = mb / best;
            let ratio = baseline / best;
            measured.push((c.name, mb_s, ratio));
            // The framing row decodes no rows: its MB/s is an upper bound only.
            let decodes = !c.name.contains("frame");
            let dash = || "—".to_string();
            let _ = writeln!(
                rows,
                "| {} | {} | {:.3} s | {:.3} s | {} | {:.0} | {} |",
                c.name,
                c.what,
                best,
                median,
                if decodes {
                    thousands((tally.rows as f64 / best) as u64)
                } else {
                    dash()
                },
                mb_s,
                if decodes {
                    format!("{ratio:.1}×")
                } else {
                    dash()
                }
            );
        }

        let mut verdict = String::new();
        let _ = writeln!(
            verdict,
            "Target from the issue: at least {TARGET_RATIO:.0}× mysql_common and at least \
             {TARGET_MB_S:.0} MB/s per core for full decoding of every value."
        );
        for (name, mb_s, ratio) in measured.iter().filter(|m| m.0.contains("Sluice: decode")) {
            let ok = |b: bool| if b { "met" } else { "**not met**" };
            let _ = writeln!(
                verdict,
                "- {name}: {mb_s:.0} MB/s ({}), {ratio:.1}× mysql_common ({}).",
                ok(*mb_s >= TARGET_MB_S),
                ok(*ratio >= TARGET_RATIO)
            );
        }

        let generated = input
            .manifest
            .as_deref()
            .and_then(|m| m.lines().find(|l| l.starts_with("rows_inserted=")))
            .map(|l| {
                let parts: Vec<String> = l
                    .split_whitespace()
                    .filter_map(|kv| kv.strip_prefix("rows_")?.split_once('='))
                    .map(|(k, v)| match v.parse() {
                        Ok(n) => format!("{} {k}", thousands(n)),
                        Err(_) => format!("{v} {k}"),
                    })
                    .collect();
                format!(" ({})", parts.join(", "))
            })
            .unwrap_or_default();
        let source = input
            .manifest
            .as_deref()
            .and_then(|m| m.lines().next())
            .and_then(|l| l.split(": ").nth(1))
            .map(|s| format!("; {s}"))
            .unwrap_or_default();
        let names: Vec<&str> = input.files.iter().map(|(n, _)| n.as_str()).collect();
        let facts = vec![
            format!(
                "Input: `{}`, {:.1} MB{source}: {} events, {} row changes{generated}, {} values \
                 ({} NULL).",
                names.join("`, `"),
                mb,
                thousands(tally.events),
                thousands(tally.rows),
                thousands(tally.cells),
                thousands(tally.nulls)
            ),
            format!(
                "Machine: {} ({} CPUs by `nproc`), load average {} at the start; {}; \
                 mysql_common {}; run on {} (UTC).",
                sluice_testkit::bench_docs::cpu_model(),
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(0),
                load,
                rustc_version(),
                mysql_common_version(),
                today()
            ),
            format!(
                "Method: the file is read into memory once; each decoder runs single-threaded, \
                 {iters} timed pass(es) interleaved with the others' (so all see the same \
                 background load), after one untimed pass that also checks both decoders \
                 found the same events, rows, values and NULLs. \"best\" is the fastest pass \
                 and is what rows/s, MB/s and the ratio use; rows are row changes (an UPDATE \
                 row counts once, with both images decoded); MB/s is binlog file bytes \
                 (10^6) per second."
            ),
        ];
        Report {
            rows,
            facts,
            verdict,
        }
    }

    fn markdown(&self) -> String {
        let mut s = String::new();
        s.push_str("## Binlog decoding: Sluice vs mysql_common\n\n");
        for f in &self.facts {
            s.push_str(f);
            s.push_str("\n\n");
        }
        s.push_str(&self.rows);
        s.push('\n');
        s.push_str(&self.verdict);
        s.push_str(
            "\nWhat each decoder produces per value: Sluice's `Value` holds integers, floats, \
             dates, times and timestamps decoded, and strings, blobs, BIT and DECIMAL as views \
             into the event (DECIMAL digits are produced by `render`); mysql_common's \
             `BinlogRow` holds owned values: strings and blobs copied into `Vec`s, DECIMAL, \
             YEAR and TIMESTAMP formatted as text. The render row is Sluice producing the text \
             of every value, as the server's output needs it.\n\n",
        );
        s.push_str(
            "Reproduce (the bench runs the generator itself when `target/bench-data/` has no \
             complete set; it needs MariaDB, which the script installs with apt-get when \
             missing):\n\n```sh\nscripts/gen-bench-binlog target/bench-data 1000000\n\
             cargo bench -p sluice-binlog --bench decode\n```\n\n\
             `SLUICE_BENCH_ITERS` sets the passes per decoder (default 5), \
             `SLUICE_BENCH_BINLOG` benchmarks another binlog file (or generator output \
             directory), `SLUICE_BENCH_NO_DOCS=1` skips writing this section.\n",
        );
        s
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let lead = match digits.len() % 3 {
        0 => 3.min(digits.len()),
        r => r,
    };
    let mut out = digits[..lead].to_string();
    for group in digits.as_bytes()[lead..].chunks(3) {
        out.push(',');
        out.extend(group.iter().map(|&b| b as char));
    }
    out
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

fn rustc_version() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "rustc (version unknown)".into())
}

/// The mysql_common version this crate links, from Cargo.lock (the lock
/// names the version in the dependency list when it holds several).
fn mysql_common_version() -> String {
    let lock = std::fs::read_to_string(workspace_root().join("Cargo.lock")).unwrap_or_default();
    let ours = lock
        .split("[[package]]")
        .find(|p| p.contains("\nname = \"sluice-binlog\"\n"))
        .and_then(|p| {
            p.lines()
                .find_map(|l| l.trim().strip_prefix("\"mysql_common "))
        })
        .map(|v| v.trim_end_matches(['"', ',']).to_string());
    let only = || {
        lock.split("[[package]]")
            .find(|p| p.contains("\nname = \"mysql_common\"\n"))
            .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
            .map(|v| v.trim_matches('"').to_string())
    };
    ours.or_else(only).unwrap_or_else(|| "0.38".into())
}

/// Today's date (UTC) as YYYY-MM-DD, from the civil-from-days algorithm.
fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
