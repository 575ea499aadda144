//! One transaction of about 1 GB of binlog (1,000,000 rows of 1,000 bytes,
//! written by a single `INSERT … SELECT` between BEGIN and COMMIT) streams
//! through `sluice server` configured with a store of 1,024 entries / 1 MB
//! to a Canal TCP client that gets, decodes and acks every batch.
//!
//! Checks:
//! - every row arrives exactly once and in order (ids 1, 2, …, 1,000,000),
//!   inside one transaction (one TRANSACTIONEND after the last row);
//! - the server's memory stays bounded while the transaction passes: its
//!   resident set (`VmRSS`, sampled from `/proc/PID/status` every 20 ms, and
//!   `VmHWM`, the kernel's high-water mark, read at the end) stays under the
//!   configured store bytes plus [`RSS_MARGIN`], so nothing between the
//!   source and the consumer holds the transaction.
//!
//! It needs about 4 GB free in the temp dir (table, binlog cache, binlog,
//! redo log) and fails at once with a clear message when there is less.
//! Prints the timings, peak memory and throughput; with
//! `SLUICE_WRITE_BENCH_DOCS=1` it also writes them into `docs/benchmarks.md`
//! between the `big-transaction` markers.

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{connect_example, spawn_server, write_example_instance};
use sluice_canal::proto::{EntryType, EventType};
use sluice_client::{Connector, TimeUnit};
use sluice_testkit::{bench_docs, find_free_port, MariaDb, MariaDbConfig};

const ROWS: i64 = 1_000_000;
/// Bytes of the text column of every row: 1,000,000 × ~1,007 bytes of row
/// image ≈ 1 GB of rows events.
const VALUE_LEN: usize = 1000;

/// `canal.instance.memory.buffer.size` (entries) and `.memunit` (bytes):
/// the store holds at most 1,024 entries and 1,024 × 1,024 bytes = 1 MB.
const BUFFER_SIZE: usize = 1024;
const MEMUNIT: usize = 1024;
const STORE_BYTES: u64 = (BUFFER_SIZE * MEMUNIT) as u64;

/// What the server may hold besides the store: the runtime and its
/// threads, the mapped binary, the schema tracker, the source's read buffer
/// (1 MiB, more only for a larger event), the entry being built, the batch
/// being encoded for the client (at most the store's bytes here) and
/// allocator slack. Measured on this machine (2 CPUs), debug build (what
/// `cargo test` runs): VmRSS 25.0 MiB before the transaction, at most
/// 28.6 MiB while it streams, 29.6 MiB with 16 runtime workers
/// (`TOKIO_WORKER_THREADS=16`, as on a bigger machine); release build:
/// 13.1 MiB before, 16.3 MiB at most. 64 MiB is over twice the highest of
/// these, yet a pipeline that held a fifteenth of the transaction anywhere
/// would fail: the same run with the store raised to 1M entries / 2 GB (so
/// that the store may hold it all) peaks at 1,182 MiB.
const RSS_MARGIN: u64 = 64 * 1024 * 1024;

/// Free space needed in the temp dir: the table (~1.2 GB with InnoDB's
/// overhead), the server's binlog cache spilled to a temp file (~1 GB), the
/// binlog itself (~1 GB), the redo log (512 MB) and slack.
const DISK_NEEDED: u64 = 4 * 1024 * 1024 * 1024;

/// The whole run takes 35–45 s here (debug build: about 15 s for MariaDB to
/// run the INSERT, 20 s to stream); the deadline leaves room for slower
/// machines.
const DEADLINE: Duration = Duration::from_secs(900);

fn free_bytes(dir: &Path) -> std::io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a valid out-parameter.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(st.f_bavail as u64 * st.f_frsize as u64)
}

fn write_conf(dir: &Path, db_port: u16, canal_port: u16) {
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.port = {canal_port}\n\
             canal.destinations = example\n\
             canal.auto.scan = false\n\
             canal.file.data.dir = {data}\n\
             canal.instance.memory.buffer.size = {BUFFER_SIZE}\n\
             canal.instance.memory.buffer.memunit = {MEMUNIT}\n\
             canal.instance.memory.batch.mode = MEMSIZE\n",
            data = dir.join("data").display(),
        ),
    )
    .unwrap();
    write_example_instance(dir, db_port, r"big\\..*");
}

/// `VmRSS` and `VmHWM` of a process, in bytes.
fn memory_of(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kb: u64 = line[name.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kb * 1024)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// Samples a process's resident set until told to stop.
struct Sampler {
    stop: Arc<AtomicBool>,
    /// (seconds since start, VmRSS bytes), every sample.
    samples: Arc<Mutex<Vec<(f64, u64)>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Sampler {
    fn start(pid: u32) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let samples = Arc::new(Mutex::new(Vec::new()));
        let thread = {
            let stop = stop.clone();
            let samples = samples.clone();
            std::thread::spawn(move || {
                let t0 = Instant::now();
                while !stop.load(Ordering::SeqCst) {
                    if let Some((rss, _)) = memory_of(pid) {
                        samples
                            .lock()
                            .unwrap()
                            .push((t0.elapsed().as_secs_f64(), rss));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            })
        };
        Sampler {
            stop,
            samples,
            thread: Some(thread),
        }
    }

    fn finish(mut self) -> Vec<(f64, u64)> {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
        std::mem::take(&mut *self.samples.lock().unwrap())
    }
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_gigabyte_transaction_streams_through_a_one_megabyte_store() {
    let tmp = std::env::temp_dir();
    let free = free_bytes(&tmp)
        .unwrap_or_else(|e| panic!("cannot read the free space of {}: {e}", tmp.display()));
    assert!(
        free >= DISK_NEEDED,
        "this test needs {:.1} GiB free in the temp dir {} (the table, the binlog cache, the \
         binlog and the redo log of a 1 GB transaction) but only {:.1} GiB are free: free some \
         space or point TMPDIR at a bigger file system",
        DISK_NEEDED as f64 / (1u64 << 30) as f64,
        tmp.display(),
        free as f64 / (1u64 << 30) as f64
    );

    // What a 1 GB transaction needs of the server: the binlog cache spills
    // to a temp file past binlog_cache_size and may grow to
    // max_binlog_cache_size; a bigger redo log and buffer pool keep InnoDB
    // from flushing all the time.
    let db = Arc::new(
        MariaDb::start(
            MariaDbConfig::default()
                .arg("--binlog-cache-size=4M")
                .arg("--max-binlog-cache-size=4G")
                .arg("--max-binlog-size=1G")
                .arg("--max-allowed-packet=64M")
                .arg("--innodb-log-file-size=512M")
                .arg("--innodb-buffer-pool-size=512M"),
        )
        .unwrap(),
    );
    db.exec(&format!(
        "CREATE DATABASE big; CREATE TABLE big.t (id INT PRIMARY KEY, v VARCHAR({VALUE_LEN})) \
         ENGINE=InnoDB"
    ))
    .unwrap();

    let conf = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    write_conf(conf.path(), db.port(), port);
    let log = conf.path().join("server.log");
    let addr = format!("127.0.0.1:{port}");
    let mut server = spawn_server(conf.path(), &log);
    let pid = server.id();
    let sampler = Sampler::start(pid);
    let mut client = connect_example(&addr, Duration::from_secs(60)).await;

    // Let the server settle (connected to the source, schema seeded, the
    // DDL delivered), then note its resident set before the transaction.
    let settle_until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < settle_until {
        let msg = client
            .get_without_ack(BUFFER_SIZE as i32, Some(200), TimeUnit::Milliseconds)
            .await
            .unwrap();
        if msg.id > 0 {
            client.ack(msg.id).await.unwrap();
        }
    }
    let (rss_idle, _) = memory_of(pid).expect("reading the server's /proc status");
    let load_at_start = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_default();

    let mut generate = Some({
        let db = db.clone();
        std::thread::spawn(move || {
            let t0 = Instant::now();
            db.exec("BEGIN").unwrap();
            db.exec(&format!(
                "INSERT INTO big.t SELECT seq, REPEAT('x', {VALUE_LEN}) FROM big.seq_1_to_{ROWS}"
            ))
            .unwrap();
            let inserted = t0.elapsed();
            db.exec("COMMIT").unwrap();
            (inserted, t0.elapsed())
        })
    });
    let mut generated = None;
    let t_start = Instant::now();

    let mut next_id: i64 = 1;
    let mut rows_entries = 0u64;
    let mut entry_bytes = 0u64;
    let mut first_row_at: Option<Instant> = None;
    let mut last_row_at = t_start;
    let mut txn_begin_offset: Option<i64> = None;
    let mut txn_end: Option<(i64, i64)> = None;
    let mut batches = 0u64;
    let deadline = t_start + DEADLINE;
    while txn_end.is_none() {
        // A failed INSERT or COMMIT shows at once, not at the deadline.
        if generate.as_ref().is_some_and(|g| g.is_finished()) {
            generated = generate.take().map(|g| g.join().unwrap());
        }
        assert!(
            Instant::now() < deadline,
            "only {} of {ROWS} rows after {DEADLINE:?}; server log in {}",
            next_id - 1,
            log.display()
        );
        let msg = client
            .get_without_ack(BUFFER_SIZE as i32, Some(500), TimeUnit::Milliseconds)
            .await
            .unwrap_or_else(|e| panic!("get failed: {e}; server log in {}", log.display()));
        if msg.id < 0 {
            continue;
        }
        batches += 1;
        for e in &msg.entries {
            let header = e.header.as_ref();
            match e.entry_type {
                Some(t) if t == EntryType::TransactionBegin as i32 && next_id == 1 => {
                    txn_begin_offset = header.and_then(|h| h.logfile_offset);
                }
                Some(t) if t == EntryType::TransactionEnd as i32 && next_id > 1 => {
                    let h = header.expect("TRANSACTIONEND without header");
                    txn_end = Some((h.logfile_offset.unwrap_or(0), h.event_length.unwrap_or(0)));
                }
                Some(t) if t == EntryType::RowData as i32 => {
                    let rc = sluice_client::row_change(e).unwrap();
                    if rc.is_ddl == Some(true) {
                        continue;
                    }
                    assert!(txn_end.is_none(), "rows after the transaction's end");
                    assert_eq!(rc.event_type, Some(EventType::Insert as i32));
                    rows_entries += 1;
                    entry_bytes += e.store_value.as_ref().map_or(0, |v| v.len()) as u64;
                    for rd in &rc.row_datas {
                        let id: i64 = rd.after_columns[0]
                            .value
                            .as_deref()
                            .unwrap()
                            .parse()
                            .unwrap();
                        assert_eq!(
                            id, next_id,
                            "rows out of order or duplicated: got id {id}, expected {next_id}"
                        );
                        assert_eq!(
                            rd.after_columns[1].value.as_deref().map(str::len),
                            Some(VALUE_LEN)
                        );
                        next_id += 1;
                    }
                    let now = Instant::now();
                    first_row_at.get_or_insert(now);
                    last_row_at = now;
                }
                _ => {}
            }
        }
        client.ack(msg.id).await.unwrap();
    }
    let (inserted, committed) = match generate.take() {
        Some(g) => g.join().unwrap(),
        None => generated.unwrap(),
    };
    // A last round trip proves the final ack was processed.
    let _ = client
        .get_without_ack(1, Some(10), TimeUnit::Milliseconds)
        .await
        .unwrap();
    let (rss_end, hwm) = memory_of(pid).expect("reading the server's /proc status");
    let samples = sampler.finish();
    let _ = server.kill();
    let _ = server.wait();

    assert_eq!(
        next_id - 1,
        ROWS,
        "rows delivered before the transaction's end; server log in {}",
        log.display()
    );
    let max_rss = samples.iter().map(|s| s.1).max().unwrap_or(0);
    let first_row_at = first_row_at.expect("no row arrived");
    let (end_offset, end_len) = txn_end.expect("no TRANSACTIONEND");
    let begin_offset = txn_begin_offset.expect("no TRANSACTIONBEGIN before the first row");
    let f = Figures {
        txn_bytes: u64::try_from(end_offset + end_len - begin_offset).unwrap_or(0),
        entries: rows_entries,
        entry_bytes,
        batches,
        inserted: inserted.as_secs_f64(),
        committed: committed.as_secs_f64(),
        first_row: (first_row_at - t_start).as_secs_f64(),
        stream_secs: (last_row_at - first_row_at).as_secs_f64(),
        rss_idle,
        max_rss,
        rss_end,
        hwm,
        samples: samples.len(),
    };
    let summary = f.summary();
    eprintln!("{summary}");

    assert!(
        f.txn_bytes > 1_000_000_000,
        "the transaction has only {} bytes of binlog",
        f.txn_bytes
    );
    assert!(
        hwm <= STORE_BYTES + RSS_MARGIN && max_rss <= STORE_BYTES + RSS_MARGIN,
        "the server's memory grew with the transaction:\n{summary}"
    );

    if std::env::var_os("SLUICE_WRITE_BENCH_DOCS").is_some_and(|v| v == "1") {
        let version = db
            .query_scalar("SELECT VERSION()")
            .ok()
            .flatten()
            .unwrap_or_default();
        write_docs(&f, &version, &load_at_start);
    }
}

/// What one run measured.
struct Figures {
    /// Binlog bytes of the transaction, from its GTID event to its XID event.
    txn_bytes: u64,
    entries: u64,
    /// Serialised `RowChange` bytes of the ROWDATA entries.
    entry_bytes: u64,
    batches: u64,
    /// Seconds after BEGIN: the INSERT done, the COMMIT done, the first row at the client.
    inserted: f64,
    committed: f64,
    first_row: f64,
    /// Seconds from the first row to the last at the client.
    stream_secs: f64,
    rss_idle: u64,
    max_rss: u64,
    rss_end: u64,
    hwm: u64,
    samples: usize,
}

impl Figures {
    fn rows_per_sec(&self) -> f64 {
        ROWS as f64 / self.stream_secs
    }

    fn mb_per_sec(&self) -> f64 {
        mb(self.txn_bytes) / self.stream_secs
    }

    fn summary(&self) -> String {
        format!(
            "transaction: {ROWS} rows, {:.1} MB of binlog ({} ROWDATA entries, {:.1} MB \
             serialised), {} batches\n\
             generation: INSERT {:.1} s, COMMIT {:.1} s; first row {:.1} s after BEGIN\n\
             streaming: {:.1} s from first to last row: {:.0} rows/s, {:.1} MB/s of binlog\n\
             server memory: VmRSS {:.1} MiB before the transaction, at most {:.1} MiB sampled \
             ({} samples), {:.1} MiB at the end; VmHWM {:.1} MiB; limit {:.1} MiB (store \
             {:.1} MiB + margin {:.1} MiB)",
            mb(self.txn_bytes),
            self.entries,
            mb(self.entry_bytes),
            self.batches,
            self.inserted,
            self.committed - self.inserted,
            self.first_row,
            self.stream_secs,
            self.rows_per_sec(),
            self.mb_per_sec(),
            mib(self.rss_idle),
            mib(self.max_rss),
            self.samples,
            mib(self.rss_end),
            mib(self.hwm),
            mib(STORE_BYTES + RSS_MARGIN),
            mib(STORE_BYTES),
            mib(RSS_MARGIN),
        )
    }
}

const DOCS_BEGIN: &str = "<!-- big-transaction:begin -->";
const DOCS_END: &str = "<!-- big-transaction:end -->";

/// The output of a command, trimmed; empty if it cannot run.
fn command_text(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// Writes this test's section of `docs/benchmarks.md`, replacing the one
/// between its markers (or appending it), leaving the rest as it is.
fn write_docs(f: &Figures, mariadb_version: &str, load_at_start: &str) {
    let profile = if cfg!(debug_assertions) {
        "debug (`cargo test`)"
    } else {
        "release (`cargo test --release`)"
    };
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let rustc = command_text(
        &std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()),
        &["--version"],
    );
    let date = command_text("date", &["-u", "+%Y-%m-%d"]);
    let body = format!(
        "## One 1 GB transaction through a 1 MB store\n\
\n\
Written by `crates/9-cli/tests/big_transaction.rs`. Workload: one transaction of \
{rows} rows (`INSERT INTO big.t SELECT seq, REPEAT('x', {len}) FROM big.seq_1_to_{rows}` \
between BEGIN and COMMIT; `id INT PRIMARY KEY, v VARCHAR({len})`), {txn_mb:.1} MB of binlog \
in {entries} rows events, read by `sluice server` from a private MariaDB {mariadb_version} \
and served over Canal's TCP protocol to a `sluice-client` consumer that gets batches of up \
to 1 MB (MEMSIZE), decodes every entry and row, checks every id (in order, exactly once) and \
acks every batch. The destination's store is `canal.instance.memory.buffer.size = \
{buffer}`, `memunit = {memunit}`: at most {buffer} entries and {store_mib:.0} MiB.\n\
\n\
Machine: {cpus} CPUs by `nproc`, load average {load_at_start} at the start; {rustc}; \
build profile {profile}; run on {date} (UTC). Server, MariaDB and consumer share the cores.\n\
\n\
| figure | value |\n\
| --- | ---: |\n\
| binlog bytes of the transaction | {txn_mb:.1} MB |\n\
| ROWDATA entries (serialised `RowChange` bytes) | {entries} ({entry_mb:.1} MB) |\n\
| batches delivered | {batches} |\n\
| MariaDB: INSERT … SELECT / COMMIT | {inserted:.1} s / {commit:.1} s |\n\
| first row at the consumer, after BEGIN | {first:.1} s |\n\
| first to last row at the consumer | {stream:.1} s |\n\
| throughput | {rps:.0} rows/s, {mbps:.1} MB/s of binlog |\n\
| server VmRSS before the transaction | {idle:.1} MiB |\n\
| server VmRSS, highest of {samples} samples (every 20 ms) | {max:.1} MiB |\n\
| server VmHWM (peak resident set) at the end | {hwm:.1} MiB |\n\
| limit the test asserts (store + margin) | {limit:.0} MiB |\n\
\n\
The server's memory does not grow with the transaction: the peak is {growth:.1} MiB above \
its resident set before the transaction, for {txn_mb:.0} MB streamed. Throughput is from the \
first row to the last at the consumer; until the COMMIT nothing is in the binlog, so \
MariaDB's own time to run the INSERT is shown apart.\n\
\n\
Reproduce (needs about 4 GB free in the temp dir):\n\
\n\
```sh\n\
SLUICE_WRITE_BENCH_DOCS=1 cargo test --release -p sluice-cli --test big_transaction -- --nocapture\n\
```\n",
        rows = ROWS,
        len = VALUE_LEN,
        txn_mb = mb(f.txn_bytes),
        entries = f.entries,
        entry_mb = mb(f.entry_bytes),
        buffer = BUFFER_SIZE,
        memunit = MEMUNIT,
        store_mib = mib(STORE_BYTES),
        batches = f.batches,
        inserted = f.inserted,
        commit = f.committed - f.inserted,
        first = f.first_row,
        stream = f.stream_secs,
        rps = f.rows_per_sec(),
        mbps = f.mb_per_sec(),
        idle = mib(f.rss_idle),
        samples = f.samples,
        max = mib(f.max_rss),
        hwm = mib(f.hwm),
        limit = mib(STORE_BYTES + RSS_MARGIN),
        growth = mib(f.max_rss.max(f.hwm).saturating_sub(f.rss_idle)),
    );
    let path = bench_docs::write_section(DOCS_BEGIN, DOCS_END, &body).unwrap();
    eprintln!("wrote {}", path.display());
}
