//! The cost of one durable cursor save (what every ack of a Canal client
//! waits for with file cursors): `FileCursorStore::save` of a three-client
//! `meta.dat` JSON, beside the two raw patterns of the same bytes on the
//! same disk — appending to a file and `fdatasync`ing it (how the cursor
//! log was written before it was overwritten in place: every save grows
//! the file, so every `fdatasync` commits the file system's journal too)
//! and overwriting a record in place and `fdatasync`ing it (the floor).
//! Rounds of 200 saves of each, interleaved; per save: latency p50/p99,
//! bytes the block device wrote (its `stat` counters, so other writers on
//! the disk add to them: the run's load is printed) and system CPU.
//!
//! `SLUICE_BENCH_SAVES` (default 12000: enough for the logs to reach their round size, after which saves overwrite) sets the saves of each,
//! `SLUICE_BENCH_DIR` the folder (default: a temporary folder under
//! `target/`, on the disk a server's data folder would be), and
//! `SLUICE_BENCH_NO_DOCS=1` skips writing docs/benchmarks.md.

use std::fs;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::Instant;

use sluice_meta::{CursorStore, DestinationMeta, FileCursorStore};

const ROUND: usize = 200;

/// A destination's cursors with three clients, as `meta.dat` holds them.
fn meta(position: u64) -> DestinationMeta {
    let clients: Vec<String> = (1001..=1003)
        .map(|id| {
            format!(
                r#"{{"clientIdentity":{{"clientId":{id},"destination":"bench","filter":"w\\..*"}},"cursor":{{"identity":{{"slaveId":-1,"sourceAddress":{{"address":"127.0.0.1","port":3306}}}},"postion":{{"gtid":"0-1-{position}","included":false,"journalName":"binlog.000007","position":{position},"serverId":1,"timestamp":1765000000000}}}}}}"#
            )
        })
        .collect();
    let json = format!(
        r#"{{"clientDatas":[{}],"destination":"bench"}}"#,
        clients.join(",")
    );
    serde_json::from_str(&json).expect("the bench's cursor JSON")
}

/// Sectors written by the block device holding `dir` (its `stat`).
fn device_sectors(dir: &Path) -> Option<u64> {
    let dev = fs::metadata(dir).ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let stat = fs::read_to_string(format!("/sys/dev/block/{major}:{minor}/stat")).ok()?;
    stat.split_whitespace().nth(6)?.parse().ok()
}

/// System CPU seconds of this process so far.
fn system_cpu() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    usage.ru_stime.tv_sec as f64 + usage.ru_stime.tv_usec as f64 / 1e6
}

#[derive(Default)]
struct Tally {
    latencies_ms: Vec<f64>,
    sectors: u64,
    system_s: f64,
}

impl Tally {
    fn time(&mut self, dir: &Path, mut one: impl FnMut(usize)) {
        let (s0, c0) = (device_sectors(dir).unwrap_or(0), system_cpu());
        for i in 0..ROUND {
            let t = Instant::now();
            one(i);
            self.latencies_ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        self.sectors += device_sectors(dir).unwrap_or(0).saturating_sub(s0);
        self.system_s += system_cpu() - c0;
    }

    fn row(&mut self, name: &str) -> String {
        let n = self.latencies_ms.len().max(1);
        self.latencies_ms.sort_by(f64::total_cmp);
        let at = |q: f64| self.latencies_ms[((n as f64 * q) as usize).min(n - 1)];
        format!(
            "| {name} | {n} | {:.3} ms | {:.3} ms | {:.0} | {:.1} µs |",
            at(0.5),
            at(0.99),
            self.sectors as f64 * 512.0 / n as f64,
            self.system_s * 1e6 / n as f64
        )
    }
}

fn main() {
    let saves: usize = std::env::var("SLUICE_BENCH_SAVES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12000);
    let rounds = saves.div_ceil(ROUND);
    let base: PathBuf = std::env::var("SLUICE_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_TARGET_TMPDIR")));
    fs::create_dir_all(&base).expect("the bench folder");
    let dir = tempfile::tempdir_in(&base).expect("a temporary folder");
    let load = fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().next().unwrap_or("?").to_string();

    let store = FileCursorStore::new(dir.path());
    let record = serde_json::to_vec(&meta(4)).expect("JSON");
    // The record as the log holds it: about the same length.
    let line_len = record.len() + 24;
    let line = vec![b'x'; line_len];
    let appended = dir.path().join("appended.log");
    let in_place = dir.path().join("in_place.log");
    let append_file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&appended)
        .expect("the append file");
    let place_file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&in_place)
        .expect("the in-place file");
    // Written once, so that overwriting it changes no size.
    place_file
        .write_all_at(&vec![b'\n'; line_len * ROUND], 0)
        .and_then(|()| place_file.sync_all())
        .expect("prepare the in-place file");

    let mut sluice = Tally::default();
    let mut append = Tally::default();
    let mut overwrite = Tally::default();
    let mut position = 4u64;
    for round in 0..rounds {
        sluice.time(dir.path(), |_| {
            position += 1;
            store.save(&meta(position)).expect("a cursor save");
        });
        append.time(dir.path(), |_| {
            use std::io::Write;
            let mut f = &append_file;
            f.write_all(&line)
                .and_then(|()| append_file.sync_data())
                .expect("append");
        });
        // The former log was emptied at each compaction (about once a
        // second): the append file is too, every five rounds.
        if round % 5 == 4 {
            append_file
                .set_len(0)
                .and_then(|()| append_file.sync_data())
                .expect("empty the append file");
        }
        overwrite.time(dir.path(), |i| {
            place_file
                .write_all_at(&line, (i * line_len) as u64)
                .and_then(|()| place_file.sync_data())
                .expect("overwrite");
        });
    }
    store.compact("bench").expect("a clean stop");
    let filesystem = fs::read_to_string("/proc/self/mountinfo")
        .ok()
        .and_then(|m| {
            let dev = fs::metadata(dir.path()).ok()?.dev();
            let want = format!("{}:{}", libc::major(dev), libc::minor(dev));
            m.lines()
                .find(|l| l.split_whitespace().nth(2) == Some(want.as_str()))
                .and_then(|l| l.split(" - ").nth(1))
                .and_then(|r| r.split_whitespace().next())
                .map(str::to_string)
        })
        .unwrap_or_else(|| "?".into());
    let rows = [
        sluice.row("`FileCursorStore::save` (the cursor log, written over in place)"),
        append.row("peer: append + `fdatasync` (the former cursor log's writes)"),
        overwrite.row("floor: one record overwritten in place + `fdatasync`"),
    ];
    for r in &rows {
        eprintln!("{r}");
    }
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let body = format!(
        "## One durable cursor save (file cursors), beside append + fdatasync\n\n\
         Machine: {cpus} CPUs by `nproc`, {filesystem} on a virtual disk; 1-minute load average {load} when the run started (other work on the machine writes to the same disk and adds to the device's byte counts).\n\n\
         Method: `FileCursorStore::save` of a `meta.dat` JSON of three clients ({json} bytes; a record of the log is that, a CRC and a sequence number), which is what an ack of a Canal client waits for with file cursors, against the two raw ways of writing the same bytes durably: appending to a file and `fdatasync`ing it (the syscalls of the cursor log before it was written over in place, the file emptied every 5 rounds as a compaction did), and overwriting one record of a file already written and `fdatasync`ing it. {rounds} rounds of {ROUND} of each, interleaved. Bytes are the sectors the block device wrote during each run (its `/sys/dev/block/…/stat`), per save; system CPU from `getrusage`.\n\n\
         | writer | saves | p50 | p99 | device bytes / save | system CPU / save |\n\
         | --- | ---: | ---: | ---: | ---: | ---: |\n\
         {}\n\n\
         Why it is cheaper: appending grows the file, so each `fdatasync` must also commit the file system's journal (the new size and blocks): a data block and journal blocks per save. A record written over bytes the file already has changes no size, and its `fdatasync` writes the data block alone. The cursor log therefore reuses its two files from their start at each compaction instead of emptying them (`crates/meta/src/lib.rs`).\n\n\
         Reproduce: `cargo bench -p sluice-meta --bench cursor_write` (`SLUICE_BENCH_SAVES`, default 12000 of each; `SLUICE_BENCH_DIR` the folder; `SLUICE_BENCH_NO_DOCS=1` skips writing this section).\n",
        rows.join("\n"),
        json = record.len(),
    );
    if std::env::var("SLUICE_BENCH_NO_DOCS").as_deref() != Ok("1") {
        let path = sluice_testkit::bench_docs::write_section(
            "<!-- cursor-write:begin -->",
            "<!-- cursor-write:end -->",
            &body,
        )
        .expect("write docs/benchmarks.md");
        eprintln!("wrote {}", path.display());
    }
}
