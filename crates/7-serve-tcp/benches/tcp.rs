//! Rows per second delivered to a Canal client over TCP, with an ack per
//! batch, in two parts:
//!
//! - live (`tcp/live.rs`): end to end from a private MariaDB serving the
//!   binlog of `scripts/gen-bench-binlog` (1.3 M row changes of a 22-column
//!   table) through what `sluice server` runs (instance with schema
//!   tracking, store, Canal TCP server) to `sluice-client`, next to decoding
//!   the same binlog in memory and to building its Canal entries in memory.
//!   Only under `cargo bench` (it needs MariaDB and a 476 MB binlog).
//! - store: synthetic entries fed into an in-memory store and served.
//!   Workload: INSERTs into a 20-column table, one row per ROWDATA entry,
//!   transactions of 100 rows (BEGIN, 100 ROWDATA, END), 1024 distinct
//!   entries cycled. A producer task feeds the destination's store while
//!   the client (`sluice-client`, batch 1000, `get` = getWithoutAck + ack)
//!   drains it. Server, producer and client share one tokio runtime with 2
//!   workers.
//!
//! Writes its section of docs/benchmarks.md (between the canal-tcp
//! markers) unless `SLUICE_BENCH_NO_DOCS=1` or only part of it ran.
//! `SLUICE_BENCH_PARTS` picks parts (`live,store`, the default; `e2e` or
//! `entries` run one live row, for profiling); `SLUICE_BENCH_LIVE_ITERS` the
//! live passes (default 3), `SLUICE_BENCH_BINLOG` another binlog directory;
//! `SLUICE_BENCH_ROWS` the rows per store pass (default 1 000 000),
//! `SLUICE_BENCH_ITERS` the store passes (default 3).

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "tcp/live.rs"]
mod live;

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{begin, column, end, header, Col, MemDestination, MemDestinations};
use prost::Message as _;
use sluice_canal::proto::{Entry, EntryType, EventType, Pair, RowChange, RowData};
use sluice_canal::EntryPosition;
use sluice_client::{Connector, ConnectorOptions, SimpleConnector};
use sluice_serve_tcp::{AuthConfig, TcpServer};
use sluice_store::{BatchMode, EntryBytes, EntryMeta, StoreConfig};
use sluice_testkit::bench_docs;

const BATCH: i32 = 1000;
const TXN_ROWS: usize = 100;
const DISTINCT: usize = 1024;

const COLUMNS: [(Col, &str); 20] = [
    (c("id", "bigint(20)", -5, true), "1234567"),
    (c("user_id", "int(11)", 4, false), "4242"),
    (c("status", "tinyint(4)", -6, false), "1"),
    (c("name", "varchar(64)", 12, false), "customer-1234567"),
    (
        c("email", "varchar(255)", 12, false),
        "customer1234567@example.com",
    ),
    (c("phone", "varchar(32)", 12, false), "+86-138-0013-8000"),
    (
        c("address", "varchar(255)", 12, false),
        "No. 42, Wenyi West Road, Yuhang District",
    ),
    (c("city", "varchar(64)", 12, false), "Hangzhou"),
    (c("country", "char(2)", 1, false), "CN"),
    (c("amount", "decimal(18,2)", 3, false), "12345.67"),
    (c("discount", "decimal(5,4)", 3, false), "0.1250"),
    (c("quantity", "int(11)", 4, false), "3"),
    (c("weight", "double", 8, false), "2.75"),
    (
        c("created_at", "datetime(3)", 93, false),
        "2024-05-17 10:21:33.123",
    ),
    (
        c("updated_at", "timestamp", 93, false),
        "2024-05-17 10:21:33",
    ),
    (c("birthday", "date", 91, false), "1990-01-01"),
    (c("flags", "bit(8)", -7, false), "5"),
    (c("kind", "enum('a','b','c')", 4, false), "2"),
    (
        c("note", "text", 2005, false),
        "delivered to the front desk, call before arriving",
    ),
    (c("version", "bigint(20) unsigned", -5, false), "7"),
];

const fn c(name: &'static str, mysql_type: &'static str, sql_type: i32, is_key: bool) -> Col {
    Col {
        name,
        mysql_type,
        sql_type,
        is_key,
    }
}

fn wide_insert(i: usize, offset: i64) -> Entry {
    let id = (1_000_000 + i).to_string();
    let after = COLUMNS
        .iter()
        .enumerate()
        .map(|(k, (col, v))| {
            let value = match k {
                0 => id.clone(),
                3 => format!("customer-{id}"),
                4 => format!("customer{id}@example.com"),
                _ => v.to_string(),
            };
            // Every 7th row has a NULL note, as real data does.
            let value = (!(k == 18 && i.is_multiple_of(7))).then_some(value);
            column(k as i32, *col, value.as_deref(), true)
        })
        .collect();
    let mut h = header("shop", "orders", Some(EventType::Insert), offset);
    h.props.push(Pair::new("rowsCount", "1"));
    Entry {
        header: Some(h),
        entry_type: Some(EntryType::RowData as i32),
        store_value: Some(
            RowChange {
                table_id: Some(91),
                event_type: Some(EventType::Insert as i32),
                is_ddl: Some(false),
                row_datas: vec![RowData {
                    after_columns: after,
                    ..Default::default()
                }],
                ..Default::default()
            }
            .encode_to_vec()
            .into(),
        ),
    }
}

/// The stream of one pass: (bytes, is a row) for `rows` rows.
struct Workload {
    rows_entries: Vec<EntryBytes>,
    begin: EntryBytes,
    end: EntryBytes,
}

impl Workload {
    fn new() -> Workload {
        let rows_entries = (0..DISTINCT)
            .map(|i| wide_insert(i, 1000 + 700 * i as i64).encode_to_vec().into())
            .collect();
        Workload {
            rows_entries,
            begin: begin(4).encode_to_vec().into(),
            end: end(900, 77).encode_to_vec().into(),
        }
    }

    /// Entries in order for `rows` rows: BEGIN, 100 rows, END, …
    fn for_each(&self, rows: usize, mut f: impl FnMut(&EntryBytes, bool)) {
        let mut done = 0;
        while done < rows {
            f(&self.begin, false);
            let n = TXN_ROWS.min(rows - done);
            for k in 0..n {
                f(&self.rows_entries[(done + k) % DISTINCT], true);
            }
            f(&self.end, false);
            done += n;
        }
    }

    fn row_bytes(&self) -> usize {
        self.rows_entries.iter().map(|e| e.len()).sum::<usize>() / DISTINCT
    }
}

/// One timed pass: wall time and the bytes moved.
struct Pass {
    secs: f64,
    bytes: usize,
}

fn decode_only(w: &Workload, rows: usize, full: bool) -> Pass {
    let t = Instant::now();
    let mut bytes = 0;
    let mut seen = 0;
    w.for_each(rows, |e, is_row| {
        bytes += e.len();
        let entry = Entry::decode(&e[..]).expect("entry");
        if full && is_row {
            let rc = sluice_client::row_change(&entry).expect("row change");
            seen += rc.row_datas.len();
            black_box(rc);
        } else if is_row {
            seen += 1;
        }
        black_box(entry);
    });
    assert_eq!(seen, rows);
    Pass {
        secs: t.elapsed().as_secs_f64(),
        bytes,
    }
}

async fn over_tcp(w: Arc<Workload>, rows: usize, full: bool) -> Pass {
    let d = MemDestination::new(
        "bench",
        StoreConfig {
            max_entries: 16 * 1024,
            max_bytes: 64 * 1024 * 1024,
            batch_mode: BatchMode::ItemSize,
            ..Default::default()
        },
    );
    let server = TcpServer::bind("127.0.0.1:0", AuthConfig::open(), MemDestinations::one(&d))
        .await
        .expect("bind");
    let addr = server.local_addr().expect("addr").to_string();
    let shutdown = server.shutdown_handle();
    let serving = tokio::spawn(server.serve());

    let opts = ConnectorOptions {
        client_id: 1001,
        ..Default::default()
    };
    let mut client = SimpleConnector::connect_with(&addr, "bench", "", "", opts)
        .await
        .expect("connect");
    client.subscribe("").await.expect("subscribe");

    let producer = {
        let d = d.clone();
        let w = w.clone();
        tokio::spawn(async move {
            let mut items = Vec::with_capacity(rows + rows / TXN_ROWS * 2 + 2);
            w.for_each(rows, |e, _| items.push(e.clone()));
            for (n, e) in items.into_iter().enumerate() {
                let meta = EntryMeta {
                    bytes: e.len(),
                    ack_point: None,
                    position: EntryPosition {
                        journal_name: "mysql-bin.000001".into(),
                        position: n as u64,
                        ..Default::default()
                    },
                    is_ddl: false,
                    rows: 0,
                    ..Default::default()
                };
                d.store.put(e, meta).await.expect("put");
            }
        })
    };

    let t = Instant::now();
    let mut got = 0usize;
    let mut bytes = 0usize;
    while got < rows {
        let m = client
            .get(BATCH, Some(Duration::from_millis(100)))
            .await
            .expect("get");
        for e in &m.entries {
            bytes += e.encoded_len();
            if e.entry_type == Some(EntryType::RowData as i32) {
                if full {
                    let rc = sluice_client::row_change(e).expect("row change");
                    got += rc.row_datas.len();
                    black_box(rc);
                } else {
                    got += 1;
                }
            }
        }
    }
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(got, rows);
    producer.await.expect("producer");
    client.disconnect().await.expect("disconnect");
    shutdown.shutdown();
    serving.await.expect("join").expect("serve");
    Pass { secs, bytes }
}

/// Which rows of the live part run.
struct LiveRows {
    decode: bool,
    entries: bool,
    e2e: bool,
}

/// The live part: a live MariaDB through a destination to the client,
/// next to decoding the same binlog in memory.
fn live_section(rt: &tokio::runtime::Runtime, iters: usize, which: &LiveRows) -> String {
    let input = live::load();
    let db = live::serve(&input);
    let version = live::server_version(&db);
    eprintln!(
        "live: {} ({:.1} MB, {} row changes) served by MariaDB {version} on port {}",
        input.dir.display(),
        input.bytes() as f64 / 1e6,
        input.rows,
        db.port()
    );
    let setups = live_setups();
    let zk = which.e2e.then(live::zookeeper);
    let runs = run_live_passes(rt, iters, which, &input, &db, &setups, zk.as_ref());
    let mut md = live_method(&input, &version, iters);
    live_table(&mut md, &input, &setups, &runs);
    live_findings(&mut md, &input, &runs);
    md
}

/// One end-to-end setup of the live part: its name, what it times, and how.
type LiveSetup = (&'static str, &'static str, live::Setup);

/// The end-to-end setups: Canal's defaults (cursors in files) with a 1000
/// batch, the batch of Canal's own example client (5 × 1024), cursors in
/// memory (memory-instance.xml: no fsync per ack), and in ZooKeeper.
fn live_setups() -> [LiveSetup; 5] {
    [
        (
            "end to end: MariaDB → `sluice server` → TCP → client",
            "replication from MariaDB, schema tracking, entries, filters, store, Canal TCP, client `get(1000)` + ack; cursors in files, `meta.log` fdatasynced on every ack (Canal's default file-instance.xml)",
            live::Setup {
                batch: 1000,
                cursors: live::Cursors::File,
            },
        ),
        (
            "end to end, client batch 5120",
            "as above with `get(5120)`, the batch size of Canal's example client (5 × 1024): 5 MB batches, a fifth of the acks",
            live::Setup {
                batch: 5120,
                cursors: live::Cursors::File,
            },
        ),
        (
            "end to end, cursors in memory",
            "as the first, with memory-instance.xml: cursors are not written to disk",
            live::Setup {
                batch: 1000,
                cursors: live::Cursors::Memory,
            },
        ),
        (
            "end to end, cursors in ZooKeeper on every ack",
            "as the first, cursors in a standalone ZooKeeper (same machine) as `sluice server` with `canal.zkServers` keeps them by default: written before the next reply on every ack (`sluice.zookeeper.flush.onAck = true`)",
            live::Setup {
                batch: 1000,
                cursors: live::Cursors::ZooKeeper { on_ack: true },
            },
        ),
        (
            "end to end, cursors in ZooKeeper every second",
            "as above with `sluice.zookeeper.flush.onAck = false`: written every `canal.zookeeper.flush.period` (1 s), as Canal",
            live::Setup {
                batch: 1000,
                cursors: live::Cursors::ZooKeeper { on_ack: false },
            },
        ),
    ]
}

/// The timed passes of the live part, per path.
struct LiveRuns {
    decode: Vec<live::Pass>,
    entries: Vec<live::Pass>,
    /// Bytes of the entries built from the whole input.
    entry_bytes: u64,
    /// Per setup of [`live_setups`].
    e2e: Vec<Vec<live::Pass>>,
}

/// Runs `iters` timed passes of each chosen path, interleaved, after one
/// untimed end-to-end pass.
fn run_live_passes(
    rt: &tokio::runtime::Runtime,
    iters: usize,
    which: &LiveRows,
    input: &live::Input,
    db: &sluice_testkit::MariaDb,
    setups: &[LiveSetup],
    zk: Option<&sluice_testkit::ZooKeeperEnsemble>,
) -> LiveRuns {
    let mut runs = LiveRuns {
        decode: Vec::new(),
        entries: Vec::new(),
        entry_bytes: 0,
        e2e: vec![Vec::new(); setups.len()],
    };
    // Untimed warm-up: page cache, MariaDB's buffers, the code paths.
    if which.e2e {
        live::end_to_end(rt, input, db, setups[0].2, zk);
    }
    for i in 0..iters {
        if which.decode {
            runs.decode.push(live::decode_only(input).0);
        }
        if which.entries {
            let (pass, bytes) = live::entries_only(input);
            runs.entries.push(pass);
            runs.entry_bytes = bytes;
        }
        if !which.e2e {
            continue;
        }
        for (k, (name, _, setup)) in setups.iter().enumerate() {
            let p = live::end_to_end(rt, input, db, *setup, zk);
            eprintln!(
                "live pass {}, {name}: {:.3} s, {:.0} rows/s (CPU: Sluice {:.2} s, MariaDB {:.2} s)",
                i + 1,
                p.secs,
                input.rows as f64 / p.secs,
                p.cpu,
                p.db_cpu
            );
            runs.e2e[k].push(p);
        }
    }
    runs
}

/// The fastest of `v`.
fn best_pass(v: &[live::Pass]) -> live::Pass {
    v.iter()
        .copied()
        .min_by(|a, b| a.secs.total_cmp(&b.secs))
        .expect("a pass")
}

/// The median of `f` over `v`.
fn median_of(v: &[live::Pass], f: fn(&live::Pass) -> f64) -> f64 {
    let mut s: Vec<f64> = v.iter().map(f).collect();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

/// The live part's heading, its input and its method.
fn live_method(input: &live::Input, version: &str, iters: usize) -> String {
    let names: Vec<&str> = input.files.iter().map(|(n, _)| n.as_str()).collect();
    let mb = input.bytes() as f64 / 1e6;
    let rows = input.rows as f64;
    let mut md = String::new();
    md.push_str("### End to end from a live MariaDB\n\n");
    md.push_str(&format!(
        "Input: `{}`, {mb:.1} MB ({}): {} row changes (1,000,000 inserted, 200,000 updated with both images, 100,000 deleted; 22 columns: ints, decimals, float/double, date/datetime/timestamp/time/year, varchar/char/text/blob, enum, set, bit, json), served by a private MariaDB ({version}) over TCP on 127.0.0.1.\n\n",
        names.join("`, `"),
        input.manifest,
        thousands(rows),
    ));
    md.push_str(&format!(
        "Method: {iters} timed passes of each path, interleaved, after one untimed end-to-end pass. An end-to-end pass is what `sluice server --conf DIR` runs, in process: a fresh configuration folder (destination `bench`, start at `binlog.000001:4`, Canal's default store of 16384 entries / 16 MB with MEMSIZE batches, no cursor, no schema history), `InstanceManager` with schema tracking, `TcpServer` bound from the same configuration; the Rust client (`sluice-client`) connects, subscribes and drains it with `get(batch, 100 ms)` (= getWithoutAck + ack), every Entry decoded and rows counted from each ROWDATA entry's `rowsCount`. The clock runs from the destination's start until the client has the last row. Server, schema tracker and client share one tokio runtime with 2 worker threads, and MariaDB runs beside them on the same 2 cores. CPU is the median user + system time over a pass (10 ms resolution) of this process (Sluice and the client) and of MariaDB. Decode-only passes read the same files from memory on one thread. \"best\" is the fastest pass and is what rows/s and MB/s (binlog bytes, 10^6) use.\n\n"
    ));
    md
}

/// The table of the live part: one row per path that ran.
fn live_table(md: &mut String, input: &live::Input, setups: &[LiveSetup], runs: &LiveRuns) {
    let mb = input.bytes() as f64 / 1e6;
    let rows = input.rows as f64;
    md.push_str("| path | what is timed | best | median | rows/s | binlog MB/s | CPU: Sluice + client | CPU: MariaDB |\n");
    md.push_str("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    let mut table: Vec<(&str, &str, &[live::Pass])> = vec![
        (
            "decode only",
            "`walk_file` over the files in memory: framing, CRC32, every event, row and value decoded (no text)",
            &runs.decode,
        ),
        (
            "decode + Canal entries",
            "as above, plus every entry built with Canal's value rendering and serialised (`ChangeBuilder` and `CanalEncoder`, columns from the binlog's metadata; no schema tracker, store or network), one thread",
            &runs.entries,
        ),
    ];
    for (k, (name, what, _)) in setups.iter().enumerate() {
        table.push((name, what, &runs.e2e[k]));
    }
    for (name, what, passes) in table {
        if passes.is_empty() {
            continue;
        }
        let b = best_pass(passes);
        let db_cpu = if passes.iter().any(|p| p.db_cpu > 0.0) {
            format!("{:.2} s", median_of(passes, |p| p.db_cpu))
        } else {
            "—".into()
        };
        md.push_str(&format!(
            "| {name} | {what} | {:.3} s | {:.3} s | {} | {:.0} | {:.2} s | {db_cpu} |\n",
            b.secs,
            median_of(passes, |p| p.secs),
            thousands(rows / b.secs),
            mb / b.secs,
            median_of(passes, |p| p.cpu),
        ));
    }
}

/// The live part's verdict on the target and where the time goes, when
/// the passes they need ran.
fn live_findings(md: &mut String, input: &live::Input, runs: &LiveRuns) {
    let rows = input.rows as f64;
    let e2e = &runs.e2e;
    if e2e[0].is_empty() {
        return;
    }
    let rate = |k: usize| rows / best_pass(&e2e[k]).secs;
    let verdict = |r: f64| if r >= 300_000.0 { "met" } else { "**not met**" };
    md.push_str(&format!(
        "\nTarget from the issue: at least 300,000 rows/s delivered over TCP with acks from a live MariaDB on this 2-core machine (Canal publishes 200,000 rows/s at the client on 24 cores): {} rows/s with Canal's defaults and a 1000 batch ({}); {} rows/s with the 5120 batch of Canal's example client ({}); {} rows/s with cursors in memory ({}).\n\n",
        thousands(rate(0)),
        verdict(rate(0)),
        thousands(rate(1)),
        verdict(rate(1)),
        thousands(rate(2)),
        verdict(rate(2)),
    ));
    md.push_str(&format!(
        "Cursors in ZooKeeper: {} rows/s written on every ack (Sluice's default with `canal.zkServers`: a failover never replays an acknowledged batch), {} rows/s written every second (Canal's behaviour: up to a second of acknowledged batches replayed after a crash).\n\n",
        thousands(rate(3)),
        thousands(rate(4)),
    ));
    let (decode, entries) = (&runs.decode, &runs.entries);
    if decode.is_empty() || entries.is_empty() {
        return;
    }
    let cpu = median_of(&e2e[0], |p| p.cpu);
    md.push_str(&format!(
        "Where the time goes: building the entries of every row (decode, Canal's text for every value, protobuf) takes {:.2} s of one core, {:.1}× decoding alone; it runs on both cores (each rows event's entry is built on its own task, and the entries go to the store in binlog order). The end-to-end pass spends {:.2} s of CPU in {:.2} s ({:.1} of 2 cores): the entries, plus serving them (each ~{} bytes per row: Canal's format repeats column names and types in every row) and the client decoding them; MariaDB only streams its file ({:.2} s). With cursors in files every ack that moves a cursor is appended to `meta.log` and fdatasynced before the session goes on (about one per batch here): the difference between the first and last end-to-end rows is that cost.\n\n",
        best_pass(entries).secs,
        best_pass(entries).secs / best_pass(decode).secs,
        cpu,
        median_of(&e2e[0], |p| p.secs),
        cpu / median_of(&e2e[0], |p| p.secs),
        runs.entry_bytes / input.rows.max(1),
        median_of(&e2e[0], |p| p.db_cpu),
    ));
}

/// The store-onwards part: synthetic entries fed to an in-memory store.
fn store_section(rt: &tokio::runtime::Runtime, rows: usize, iters: usize) -> String {
    let w = Arc::new(Workload::new());
    let mut table = [
        Row {
            name: "decode only: Entry",
            what: "`Entry::decode` of every entry in process (what a Canal client does per entry)",
            passes: vec![],
        },
        Row {
            name: "decode only: Entry + RowChange",
            what: "as above, plus `RowChange::decode` of every ROWDATA entry (every column)",
            passes: vec![],
        },
        Row {
            name: "TCP: get + ack, Entry decoded",
            what: "server → loopback → `SimpleConnector::get(1000, 100 ms)`, entries decoded, ack per batch",
            passes: vec![],
        },
        Row {
            name: "TCP: get + ack, Entry + RowChange decoded",
            what: "as above, plus `RowChange::decode` of every ROWDATA entry in the client",
            passes: vec![],
        },
    ];
    // Untimed warm-up of both paths, then passes interleaved.
    decode_only(&w, rows.min(100_000), true);
    rt.block_on(over_tcp(w.clone(), rows.min(100_000), false));
    for _ in 0..iters {
        table[0].passes.push(decode_only(&w, rows, false));
        table[1].passes.push(decode_only(&w, rows, true));
        table[2]
            .passes
            .push(rt.block_on(over_tcp(w.clone(), rows, false)));
        table[3]
            .passes
            .push(rt.block_on(over_tcp(w.clone(), rows, true)));
    }

    let mut md = String::new();
    md.push_str("### From the store onwards: synthetic entries\n\n");
    md.push_str(&format!(
        "Workload: {} rows of a 20-column table (`shop.orders`: bigint key, ints, varchars, decimals, datetime/timestamp/date, bit, enum, text with 1 in 7 NULL), one row per ROWDATA entry (~{} bytes serialised), transactions of {} rows (BEGIN, rows, END), built as Canal fills entries.\n\n",
        thousands(rows as f64),
        w.row_bytes(),
        TXN_ROWS
    ));
    md.push_str(&format!(
        "Method: one process; {iters} timed passes of each path, interleaved, after an untimed warm-up. TCP passes start a fresh `TcpServer` on 127.0.0.1 over an in-memory destination (`EventStore`, item-size batches); a producer task feeds the store while the Rust client (`sluice-client`) drains it with `get` (= getWithoutAck + ack) in batches of {BATCH}. Server, producer and client share one tokio runtime with 2 worker threads, so the TCP figures include all three on this machine's cores. Decode-only passes decode the same entry bytes on one thread. \"best\" is the fastest pass and is what rows/s and MB/s use (MB = 10^6 bytes of serialised entries).\n\n"
    ));
    md.push_str("| path | what is timed | best | median | rows/s | MB/s |\n");
    md.push_str("| --- | --- | ---: | ---: | ---: | ---: |\n");
    for r in &table {
        let b = r.best();
        md.push_str(&format!(
            "| {} | {} | {:.3} s | {:.3} s | {} | {:.0} |\n",
            r.name,
            r.what,
            b.secs,
            r.median(),
            thousands(rows as f64 / b.secs),
            b.bytes as f64 / 1e6 / b.secs
        ));
    }
    md.push('\n');
    md
}

struct Row {
    name: &'static str,
    what: &'static str,
    passes: Vec<Pass>,
}

impl Row {
    fn best(&self) -> &Pass {
        self.passes
            .iter()
            .min_by(|a, b| a.secs.total_cmp(&b.secs))
            .expect("at least one pass")
    }

    fn median(&self) -> f64 {
        let mut s: Vec<f64> = self.passes.iter().map(|p| p.secs).collect();
        s.sort_by(f64::total_cmp);
        s[s.len() / 2]
    }
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .filter(|v| *v > 0)
        .unwrap_or(default)
}

fn thousands(n: f64) -> String {
    let s = format!("{:.0}", n);
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

fn command_line(cmd: &str, args: &[&str]) -> String {
    std::process::Command::new(cmd)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

fn main() {
    let rows = env_usize("SLUICE_BENCH_ROWS", 1_000_000);
    let iters = env_usize("SLUICE_BENCH_ITERS", 3);
    let live_iters = env_usize("SLUICE_BENCH_LIVE_ITERS", 3);
    let parts = std::env::var("SLUICE_BENCH_PARTS").unwrap_or_else(|_| "store,live".into());
    let run_store = parts.split(',').any(|p| p.trim() == "store");
    // The live part needs MariaDB and a 476 MB binlog: only under `cargo bench`.
    let part = |name: &str| parts.split(',').any(|p| p.trim() == name);
    // Single live rows, for profiling: `e2e` or `entries`.
    let live_rows = LiveRows {
        decode: part("live"),
        entries: part("live") || part("entries"),
        e2e: part("live") || part("e2e"),
    };
    let run_live = (live_rows.entries || live_rows.e2e) && std::env::args().any(|a| a == "--bench");
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");

    let mut md = String::new();
    md.push_str("## Canal TCP delivery: rows/s to a client, with acks\n\n");
    md.push_str(&format!(
        "Machine: {} CPUs by `nproc`, load average {} at the start; {}; run on {} (UTC).\n\n",
        command_line("nproc", &[]),
        load,
        command_line("rustc", &["-V"]),
        command_line("date", &["-u", "+%Y-%m-%d"]),
    ));
    if run_live {
        md.push_str(&live_section(&rt, live_iters, &live_rows));
    }
    if run_store {
        md.push_str(&store_section(&rt, rows, iters));
    }
    md.push_str("Reproduce (the live part runs `scripts/gen-bench-binlog` itself when `target/bench-data/` has no complete set; it needs MariaDB server and client, which the script installs with apt-get when missing):\n\n```sh\ncargo bench -p sluice-serve-tcp --bench tcp\n```\n\n");
    md.push_str("`SLUICE_BENCH_LIVE_ITERS` sets the passes of the live part (default 3), `SLUICE_BENCH_BINLOG` names another directory of binlog files; `SLUICE_BENCH_ROWS` sets the rows per pass of the store part (default 1000000), `SLUICE_BENCH_ITERS` its passes (default 3); `SLUICE_BENCH_PARTS=live` or `=store` runs one part only (and does not write this file); `SLUICE_BENCH_NO_DOCS=1` skips writing this section.\n");
    println!("{md}");
    if !(run_store && run_live && live_rows.decode) {
        eprintln!("not writing docs/benchmarks.md: only part of the benchmark ran");
        return;
    }
    if std::env::var("SLUICE_BENCH_NO_DOCS").is_ok_and(|v| v == "1") {
        return;
    }
    match bench_docs::write_section("<!-- canal-tcp:begin -->", "<!-- canal-tcp:end -->", &md) {
        Ok(path) => eprintln!("wrote {}", path.display()),
        Err(e) => eprintln!("could not write docs/benchmarks.md: {e}"),
    }
}
