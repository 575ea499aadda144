//! The initial snapshot against a real MariaDB, with a writer changing the
//! tables throughout: a Canal client that applies what it receives ends
//! with exactly the tables the source holds, and never sees a row version
//! older than one it already saw. Then the same with `sluice server`
//! killed with SIGKILL again and again: the snapshot resumes from its
//! chunks instead of starting over. And a snapshot of some tables asked for
//! through `sluice admin snapshot` while the stream runs.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::process::Child;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{connect_example, spawn_server};
use sluice_canal::proto::{Entry, EntryType, EventType};
use sluice_client::{row_change, Connector, SimpleConnector, TimeUnit};
use sluice_testkit::{find_free_port, BinlogRowImage, MariaDb, MariaDbConfig};

/// Every table of the test: name, key columns (empty: the whole row), and
/// the columns compared.
const TABLES: &[(&str, &[&str], &str)] = &[
    ("big", &["id"], "id, ver, a, b"),
    ("composite", &["k1", "k2"], "k1, k2, ver, v"),
    ("nokey", &[], "a, b"),
    ("typed", &["id"], "id, ver, d, dt, t, e, s"),
    ("small", &["id"], "id, ver, v"),
];

/// The configuration of one destination reading chunks of `chunk` rows,
/// with `instance_extra` lines in its `instance.properties`.
fn write_conf(dir: &Path, db_port: u16, canal_port: u16, chunk: usize, instance_extra: &str) {
    write_conf_with(dir, db_port, canal_port, chunk, "initial", "");
    let instance = dir.join("example/instance.properties");
    let mut text = std::fs::read_to_string(&instance).unwrap();
    text.push_str(instance_extra);
    std::fs::write(instance, text).unwrap();
}

fn write_conf_with(
    dir: &Path,
    db_port: u16,
    canal_port: u16,
    chunk: usize,
    mode: &str,
    server_extra: &str,
) {
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.port = {canal_port}\ncanal.destinations = example\ncanal.auto.scan = false\n{server_extra}"
        ),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("example")).unwrap();
    std::fs::write(
        dir.join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{db_port}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.filter.regex = s\\\\..*\n\
             sluice.instance.snapshot.mode = {mode}\n\
             sluice.instance.snapshot.chunkSize = {chunk}\n\
             sluice.instance.snapshot.parallelism = 2\n"
        ),
    )
    .unwrap();
}

/// Creates the tables; `big` gets `big_rows` rows.
fn create_tables(db: &MariaDb, big_rows: u64) {
    db.exec(
        "CREATE DATABASE s;
         CREATE TABLE s.big (id INT PRIMARY KEY, ver BIGINT NOT NULL, a INT, b VARCHAR(32));
         CREATE TABLE s.composite (k1 INT, k2 VARCHAR(20), ver BIGINT NOT NULL, v INT, PRIMARY KEY (k1, k2));
         CREATE TABLE s.nokey (a INT, b VARCHAR(20));
         CREATE TABLE s.typed (id BIGINT PRIMARY KEY, ver BIGINT NOT NULL, d DECIMAL(12,3),
             dt DATETIME(3), t TEXT CHARACTER SET utf8mb4, e ENUM('x','y','z'), s VARCHAR(40) CHARACTER SET latin1);
         CREATE TABLE s.small (id INT PRIMARY KEY, ver BIGINT NOT NULL, v INT);",
    )
    .unwrap();
    db.exec(&format!(
        "USE s; INSERT INTO s.big SELECT seq, 0, seq * 7, CONCAT('row ', seq) FROM seq_1_to_{big_rows}"
    ))
    .unwrap();
    db.exec(
        "USE s; INSERT INTO s.composite SELECT seq % 50, CONCAT('k', seq), 0, seq FROM seq_1_to_3000;
         INSERT INTO s.nokey SELECT seq, CONCAT('n', seq) FROM seq_1_to_2000;
         INSERT INTO s.typed SELECT seq, 0, seq * 1.125 - 500, '2024-02-29 12:34:56.789' + INTERVAL seq MINUTE,
             CONCAT('tëxt 😀 ', seq), ELT(1 + seq % 3, 'x', 'y', 'z'), CONCAT('lätin ', seq) FROM seq_1_to_2500;
         INSERT INTO s.small SELECT seq, 0, seq FROM seq_1_to_100;",
    )
    .unwrap();
}

/// A private MariaDB with the tables (`big` of `big_rows` rows) and a
/// configuration folder for one server reading chunks of `chunk` rows.
struct Fixture {
    db: Arc<MariaDb>,
    conf: tempfile::TempDir,
    port: u16,
    log: std::path::PathBuf,
}

fn fixture(big_rows: u64, chunk: usize) -> Fixture {
    fixture_with(big_rows, chunk, "")
}

/// [`fixture`] with `instance_extra` lines in `instance.properties`.
fn fixture_with(big_rows: u64, chunk: usize, instance_extra: &str) -> Fixture {
    fixture_of(MariaDbConfig::default(), big_rows, chunk, instance_extra)
}

/// [`fixture_with`] on a MariaDB started with `config`.
fn fixture_of(config: MariaDbConfig, big_rows: u64, chunk: usize, instance_extra: &str) -> Fixture {
    let db = Arc::new(MariaDb::start(config).unwrap());
    create_tables(&db, big_rows);
    let conf = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    write_conf(conf.path(), db.port(), port, chunk, instance_extra);
    let log = conf.path().join("server.log");
    Fixture {
        db,
        conf,
        port,
        log,
    }
}

/// Changes rows of every table until `stop`: updates, deletes and inserts,
/// each update or insert with a `ver` higher than every one before.
fn start_writer(
    db: Arc<MariaDb>,
    big_rows: i64,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let ver = AtomicI64::new(1);
        let next = || ver.fetch_add(1, Ordering::SeqCst);
        let mut n: i64 = 0;
        let mut statements = 0u64;
        while !stop.load(Ordering::SeqCst) {
            n += 1;
            // A spread of keys over the whole of `big`, so chunks before,
            // during and after their read are hit.
            let k = (n * 7919) % big_rows + 1;
            if n == 300 {
                // A schema change while chunks of `big` are being read:
                // they are read again, with the new column.
                db.exec("ALTER TABLE s.big ADD COLUMN extra INT DEFAULT 7")
                    .unwrap();
            }
            let sql = match n % 9 {
                0 => format!("UPDATE s.big SET ver = {}, a = a + 1 WHERE id = {k}", next()),
                1 => format!("DELETE FROM s.big WHERE id = {k}"),
                2 => format!(
                    "INSERT INTO s.big (id, ver, a, b) VALUES ({}, {}, 1, 'new') ON DUPLICATE KEY UPDATE ver = VALUES(ver), b = 'again'",
                    big_rows + n,
                    next()
                ),
                3 => format!(
                    "UPDATE s.composite SET ver = {}, v = v + 1 WHERE k1 = {} LIMIT 3",
                    next(),
                    n % 50
                ),
                4 => format!("DELETE FROM s.composite WHERE k1 = {} AND k2 = 'k{}'", n % 50, n % 3000),
                5 => format!(
                    "UPDATE s.nokey SET b = CONCAT(b, '+') WHERE a = {}",
                    n % 2000
                ),
                6 => format!(
                    "UPDATE s.typed SET ver = {}, d = d + 0.001, t = CONCAT(t, 'é') WHERE id = {}",
                    next(),
                    n % 2500 + 1
                ),
                7 => format!(
                    "INSERT INTO s.small VALUES ({}, {}, 0) ON DUPLICATE KEY UPDATE ver = VALUES(ver), v = v + 1",
                    n % 200,
                    next()
                ),
                _ => format!("BEGIN; UPDATE s.big SET ver = {0}, b = 'txn' WHERE id = {k}; UPDATE s.small SET ver = {0} WHERE id = {1}; COMMIT", next(), n % 100),
            };
            db.exec(&sql).unwrap();
            statements += 1;
            std::thread::sleep(Duration::from_millis(2));
        }
        statements
    })
}

type Row = HashMap<String, Option<String>>;

/// What a consumer that applies every entry holds: per table, rows by key.
#[derive(Default)]
struct Replica {
    tables: HashMap<String, HashMap<Vec<String>, Row>>,
    /// The highest `ver` seen per table and key.
    versions: HashMap<(String, Vec<String>), i64>,
    snapshot_rows: u64,
    /// The tables snapshot rows came for.
    snapshot_tables: std::collections::HashSet<String>,
    /// Rows whose version went backwards.
    backwards: Vec<String>,
    /// Every row's `sluiceRowKey` (checked runs only), and those that came
    /// twice: a consumer that drops duplicates by it would lose rows.
    row_keys: std::collections::HashSet<String>,
    repeated_row_keys: Vec<String>,
}

fn row_of(cols: &[sluice_canal::proto::Column]) -> Row {
    cols.iter()
        .map(|c| {
            (
                c.name().to_string(),
                (!c.is_null()).then(|| c.value().to_string()),
            )
        })
        .collect()
}

/// The key of a row of a table with key columns `key` (the whole row
/// without them).
fn key_of(key: &[&str], row: &Row) -> Vec<String> {
    if key.is_empty() {
        let mut all: Vec<String> = row
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_deref().unwrap_or("NULL")))
            .collect();
        all.sort();
        all
    } else {
        key.iter()
            .map(|k| row.get(*k).cloned().flatten().unwrap_or_default())
            .collect()
    }
}

impl Replica {
    /// Applies a row entry; with `check_versions`, notes every row whose
    /// `ver` is lower than one seen before for its key.
    fn apply(&mut self, entry: &Entry, check_versions: bool) {
        if entry.entry_type() != EntryType::RowData {
            return;
        }
        let Some(h) = entry.header.as_ref() else {
            return;
        };
        let table = h.table_name().to_string();
        let Some(&(_, key, _)) = TABLES.iter().find(|(t, _, _)| *t == table) else {
            return;
        };
        let snapshot = h
            .props
            .iter()
            .any(|p| p.key() == "snapshot" && p.value() == "true");
        let rc = row_change(entry).unwrap();
        let et = rc.event_type();
        for r in &rc.row_datas {
            if check_versions {
                let row_key = r
                    .props
                    .iter()
                    .find(|p| p.key() == "sluiceRowKey")
                    .map(|p| p.value().to_string())
                    .unwrap_or_default();
                if !self.row_keys.insert(row_key.clone()) {
                    self.repeated_row_keys
                        .push(format!("{table} {row_key:?} (snapshot read: {snapshot})"));
                }
            }
            // The row as it was: an update's after image may hold only the
            // columns it changed (binlog_row_image MINIMAL or NOBLOB).
            let mut after = Row::new();
            if matches!(et, EventType::Update | EventType::Delete) {
                let before = row_of(&r.before_columns);
                let rows = self.tables.entry(table.clone()).or_default();
                after = rows.remove(&key_of(key, &before)).unwrap_or(before);
            }
            if !matches!(et, EventType::Insert | EventType::Update) {
                continue;
            }
            after.extend(row_of(&r.after_columns));
            let k = key_of(key, &after);
            let version = after
                .get("ver")
                .cloned()
                .flatten()
                .and_then(|v| v.parse::<i64>().ok());
            if let (true, Some(new)) = (check_versions && !key.is_empty(), version) {
                let seen = self
                    .versions
                    .entry((table.clone(), k.clone()))
                    .or_insert(new);
                if new < *seen {
                    self.backwards.push(format!(
                        "{table} {k:?}: version {new} after {seen} (snapshot read: {snapshot})"
                    ));
                }
                *seen = (*seen).max(new);
            }
            if snapshot {
                self.snapshot_rows += 1;
                self.snapshot_tables.insert(table.clone());
            }
            self.tables
                .entry(table.clone())
                .or_default()
                .insert(k, after);
        }
    }

    /// Whether every table holds exactly what `source` has now; else the
    /// first differences.
    fn differences(&self, source: &MariaDb) -> Vec<String> {
        self.differences_in(source, &[])
    }

    /// The same for the tables named in `only` (every table when empty).
    fn differences_in(&self, source: &MariaDb, only: &[&str]) -> Vec<String> {
        let mut diffs = Vec::new();
        for (table, key, columns) in TABLES {
            if !only.is_empty() && !only.contains(table) {
                continue;
            }
            let names: Vec<&str> = columns.split(", ").collect();
            // Canal gives an ENUM as its index.
            let select: Vec<String> = names
                .iter()
                .map(|n| {
                    if *n == "e" {
                        "e + 0".to_string()
                    } else {
                        n.to_string()
                    }
                })
                .collect();
            let rows = source
                .query(&format!("SELECT {} FROM s.{table}", select.join(", ")))
                .unwrap();
            let mut expected: HashMap<Vec<String>, Row> = HashMap::new();
            for r in rows {
                let row: Row = names
                    .iter()
                    .zip(r)
                    .map(|(n, v)| (n.to_string(), v))
                    .collect();
                expected.insert(key_of(key, &row), row);
            }
            let empty = HashMap::new();
            let got = self.tables.get(*table).unwrap_or(&empty);
            if got.len() != expected.len() {
                diffs.push(format!(
                    "{table}: {} rows, the source has {}",
                    got.len(),
                    expected.len()
                ));
            }
            for (k, want) in &expected {
                match got.get(k) {
                    None => diffs.push(format!("{table} {k:?}: missing")),
                    Some(have) => {
                        for n in &names {
                            let h = have.get(*n).cloned().flatten();
                            let w = want.get(*n).cloned().flatten();
                            if h != w {
                                diffs.push(format!(
                                    "{table} {k:?} {n}: {h:?}, the source has {w:?}"
                                ));
                            }
                        }
                    }
                }
                if diffs.len() > 10 {
                    return diffs;
                }
            }
            for k in got.keys() {
                if !expected.contains_key(k) {
                    diffs.push(format!("{table} {k:?}: not in the source"));
                }
                if diffs.len() > 10 {
                    return diffs;
                }
            }
        }
        diffs
    }
}

/// Reads one batch and applies it; `false` when the connection failed.
async fn consume_once(client: &mut SimpleConnector, replica: &mut Replica, check: bool) -> bool {
    let msg = match client
        .get_without_ack(2000, Some(200), TimeUnit::Milliseconds)
        .await
    {
        Ok(m) => m,
        Err(_) => return false,
    };
    if msg.id < 0 {
        return true;
    }
    for e in &msg.entries {
        replica.apply(e, check);
    }
    client.ack(msg.id).await.is_ok()
}

/// [`consume_once`] without checking versions; connects again when the
/// connection was lost (the server was killed or restarted).
async fn consume_or_reconnect(client: &mut SimpleConnector, addr: &str, replica: &mut Replica) {
    if !consume_once(client, replica, false).await {
        *client = connect_example(addr, Duration::from_secs(30)).await;
    }
}

/// Consumes, reconnecting when the server drops the client, until the
/// server logs the snapshot's end; fails with the log's tail past
/// `deadline`.
async fn consume_until_finished(
    client: &mut SimpleConnector,
    addr: &str,
    replica: &mut Replica,
    log: &Path,
    deadline: Instant,
) {
    while !log_has(log, "initial snapshot finished") {
        assert!(
            Instant::now() < deadline,
            "the snapshot did not finish; the server log ends with:\n{}",
            log_tail(log)
        );
        consume_or_reconnect(client, addr, replica).await;
    }
}

fn log_tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(60)..].join("\n")
}

fn log_has(log: &Path, text: &str) -> bool {
    std::fs::read_to_string(log).is_ok_and(|l| l.contains(text))
}

fn stop(mut server: Child, log: &Path) {
    let _ = server.kill();
    let _ = server.wait();
    for line in std::fs::read_to_string(log).unwrap_or_default().lines() {
        if line.contains("initial snapshot") {
            eprintln!("{line}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_beside_a_busy_stream_ends_with_the_source_tables() {
    // Scans started again every second: many chunks delivered with a
    // window that stayed open across them, and scans resumed after one;
    // the big table in 4 parts at once (the default parallelism).
    snapshot_beside_a_busy_stream(
        1_000_000,
        "sluice.instance.snapshot.reads = scan\nsluice.instance.snapshot.scanSeconds = 1\n\
         sluice.instance.snapshot.parallelism = 4\n",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_read_by_key_ranges_beside_a_busy_stream_ends_with_the_source_tables() {
    snapshot_beside_a_busy_stream(200_000, "sluice.instance.snapshot.reads = ranges\n").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_beside_a_busy_stream_of_minimal_row_images_ends_with_the_source_tables() {
    // The stream's updates carry the key before and the changed columns
    // after: the chunks are reconciled with them all the same.
    let big = 200_000;
    let fixture = fixture_of(
        MariaDbConfig::default().binlog_row_image(BinlogRowImage::Minimal),
        big,
        // Chunks small enough that a scan outlives `scanSeconds` before
        // its last chunk, however fast the machine.
        4_000,
        "sluice.instance.snapshot.reads = scan
sluice.instance.snapshot.scanSeconds = 1
",
    );
    snapshot_of_fixture_beside_a_busy_stream(fixture, big, "scanSeconds = 1").await;
}

/// A snapshot of the tables, `big` of `big_rows` rows, read with these
/// `instance.properties` lines while a writer changes every table: the
/// consumer ends with the source's tables, no row version going
/// backwards.
async fn snapshot_beside_a_busy_stream(big_rows: u64, instance_extra: &str) {
    let fixture = fixture_with(big_rows, 20_000, instance_extra);
    let parts = if instance_extra.contains("parallelism = 4") {
        "scanSeconds = 1, parallelism = 4"
    } else {
        ""
    };
    snapshot_of_fixture_beside_a_busy_stream(fixture, big_rows, parts).await;
}

/// [`snapshot_beside_a_busy_stream`] on a fixture; `scans` says what the
/// log must show: `scanSeconds = 1` (scans started again), with
/// `parallelism = 4` (and the big table read in parts).
async fn snapshot_of_fixture_beside_a_busy_stream(fixture: Fixture, big: u64, scans: &str) {
    let Fixture {
        db,
        conf,
        port,
        log,
    } = fixture;

    let stop_writing = Arc::new(AtomicBool::new(false));
    let writer = start_writer(db.clone(), big as i64, stop_writing.clone());
    let server = spawn_server(conf.path(), &log);
    let mut client = connect_example(&format!("127.0.0.1:{port}"), Duration::from_secs(30)).await;
    let mut replica = Replica::default();
    let deadline = Instant::now() + Duration::from_secs(600);
    while !log_has(&log, "initial snapshot finished") {
        assert!(
            Instant::now() < deadline,
            "the snapshot did not finish; the server log ends with:\n{}",
            log_tail(&log)
        );
        assert!(
            consume_once(&mut client, &mut replica, true).await,
            "connection lost"
        );
    }
    stop_writing.store(true, Ordering::SeqCst);
    let statements = writer.join().unwrap();
    // The stream catches up with the last writes.
    let mut diffs = replica.differences(&db);
    let settle = Instant::now() + Duration::from_secs(60);
    while !diffs.is_empty() && Instant::now() < settle {
        for _ in 0..20 {
            assert!(
                consume_once(&mut client, &mut replica, true).await,
                "connection lost"
            );
        }
        diffs = replica.differences(&db);
    }
    stop(server, &log);
    eprintln!(
        "{} snapshot rows, {statements} statements written meanwhile",
        replica.snapshot_rows
    );
    assert!(
        diffs.is_empty(),
        "the consumer's tables differ from the source: {diffs:#?}"
    );
    assert!(
        replica.backwards.is_empty(),
        "row versions went backwards: {:#?}",
        &replica.backwards[..replica.backwards.len().min(10)]
    );
    // Each row carries a key of its own, snapshot rows too (chunks of one
    // scan, and parts of a table, share a read point).
    assert!(
        replica.repeated_row_keys.is_empty(),
        "{} rows came with a sluiceRowKey seen before: {:#?}",
        replica.repeated_row_keys.len(),
        &replica.repeated_row_keys[..replica.repeated_row_keys.len().min(10)]
    );
    if scans.contains("scanSeconds = 1") {
        assert!(
            log_has(&log, "initial snapshot: scan stopped"),
            "no scan was started again; the server log ends with:\n{}",
            log_tail(&log)
        );
    }
    if scans.contains("parallelism = 4") {
        // The big table was read in parts at once, each with scans of its
        // own: they too end with the source's rows.
        assert!(
            log_has(&log, "read in parts at once") && log_has(&log, "parts=4"),
            "the big table was not read in parts; the server log ends with:\n{}",
            log_tail(&log)
        );
    }
    assert!(
        replica.snapshot_rows >= big - statements,
        "only {} rows came from the snapshot",
        replica.snapshot_rows
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_killed_again_and_again_resumes_from_its_chunks() {
    const BIG: u64 = 600_000;
    const KILLS: usize = 10;
    let Fixture {
        db,
        conf,
        port,
        log,
    } = fixture(BIG, 2_000);
    let progress_file = conf.path().join("example/snapshot.json");
    let addr = format!("127.0.0.1:{port}");

    let stop_writing = Arc::new(AtomicBool::new(false));
    let writer = start_writer(db.clone(), BIG as i64, stop_writing.clone());
    let mut server = spawn_server(conf.path(), &log);
    let mut client = connect_example(&addr, Duration::from_secs(30)).await;
    let mut replica = Replica::default();
    let mut kills = 0;
    // Rows the persisted progress held when each restart began.
    let mut resumed_at: Vec<u64> = Vec::new();
    // A kill lands at a moment of the chunk cycle that varies from kill to
    // kill, once the running server has persisted progress of its own (a
    // kill before that proves nothing on a slow machine: there is nothing
    // to resume from).
    let mut kill_at: Option<Instant> = None;
    let deadline = Instant::now() + Duration::from_secs(600);
    while kills < KILLS || !log_has(&log, "initial snapshot finished") {
        assert!(
            Instant::now() < deadline,
            "the snapshot did not finish; the server log ends with:\n{}",
            log_tail(&log)
        );
        // Every kill must land inside the snapshot: one that ends first
        // leaves the test nothing to kill (a bigger table is needed).
        assert!(
            kills == KILLS || !log_has(&log, "initial snapshot finished"),
            "the snapshot finished after only {kills} of {KILLS} kills: the table is too small for this machine"
        );
        if kills < KILLS && kill_at.is_none() {
            let before = resumed_at.last().copied().unwrap_or(0);
            if rows_done(&progress_file) > before {
                let jitter = (kills as u64 * 131) % 400;
                kill_at = Some(Instant::now() + Duration::from_millis(jitter));
            }
        }
        if kill_at.is_some_and(|at| Instant::now() >= at)
            && !log_has(&log, "initial snapshot finished")
        {
            server.kill().unwrap();
            server.wait().unwrap();
            kills += 1;
            kill_at = None;
            resumed_at.push(rows_done(&progress_file));
            server = spawn_server(conf.path(), &log);
            client = connect_example(&addr, Duration::from_secs(30)).await;
            continue;
        }
        consume_or_reconnect(&mut client, &addr, &mut replica).await;
    }
    stop_writing.store(true, Ordering::SeqCst);
    writer.join().unwrap();
    let mut diffs = replica.differences(&db);
    let settle = Instant::now() + Duration::from_secs(60);
    while !diffs.is_empty() && Instant::now() < settle {
        for _ in 0..20 {
            consume_or_reconnect(&mut client, &addr, &mut replica).await;
        }
        diffs = replica.differences(&db);
    }
    stop(server, &log);
    eprintln!("killed {kills} times; persisted rows at each restart: {resumed_at:?}");
    assert!(
        diffs.is_empty(),
        "the consumer's tables differ from the source: {diffs:#?}"
    );
    // Each restart resumed from the progress persisted when it was killed,
    // not from the beginning: the server's own log says where it resumed.
    let text = std::fs::read_to_string(&log).unwrap();
    let resumed_from: Vec<u64> = text
        .lines()
        .filter(|l| l.contains("resuming from its persisted progress"))
        .filter_map(|l| {
            l.split("rows_done=")
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(
        resumed_from, resumed_at,
        "the restarts did not resume from the persisted progress"
    );
    assert!(
        resumed_at.windows(2).all(|w| w[1] > w[0]),
        "the persisted progress did not grow from restart to restart: {resumed_at:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_dropped_while_its_chunks_are_read_ends_its_snapshot() {
    const BIG: u64 = 1_000_000;
    let Fixture {
        db,
        conf,
        port,
        log,
    } = fixture(BIG, 2_000);
    let server = spawn_server(conf.path(), &log);
    let addr = format!("127.0.0.1:{port}");
    let mut client = connect_example(&addr, Duration::from_secs(30)).await;
    let mut replica = Replica::default();
    let big_rows = |r: &Replica| r.tables.get("big").map_or(0, HashMap::len);
    // Drop `big` once its first chunks have arrived, while the rest of it
    // is being read.
    let deadline = Instant::now() + Duration::from_secs(120);
    while big_rows(&replica) == 0 {
        assert!(
            Instant::now() < deadline,
            "no row of big arrived; the server log ends with:\n{}",
            log_tail(&log)
        );
        consume_or_reconnect(&mut client, &addr, &mut replica).await;
    }
    db.exec("DROP TABLE s.big").unwrap();
    let at_drop = big_rows(&replica);
    consume_until_finished(&mut client, &addr, &mut replica, &log, deadline).await;
    // What came before the snapshot's end: every other table, whole.
    let others = ["composite", "nokey", "typed", "small"];
    let mut diffs = replica.differences_in(&db, &others);
    let settle = Instant::now() + Duration::from_secs(30);
    while !diffs.is_empty() && Instant::now() < settle {
        consume_or_reconnect(&mut client, &addr, &mut replica).await;
        diffs = replica.differences_in(&db, &others);
    }
    stop(server, &log);
    assert!(
        at_drop < BIG as usize,
        "big was read whole ({at_drop} rows) before it was dropped: the test needs a bigger table"
    );
    assert!(
        !log_has(&log, "no PROCESS privilege"),
        "root was said to lack PROCESS:\n{}",
        log_tail(&log)
    );
    // The scan's open transaction held big's metadata lock: it was ended
    // to let the DROP through (the client was not reading meanwhile, so
    // the scan could not have ended by itself).
    assert!(
        log_has(&log, "a statement waits for a table's metadata lock"),
        "the scan was not ended for the DROP; the server log ends with:\n{}",
        log_tail(&log)
    );
    assert!(
        diffs.is_empty(),
        "the other tables differ from the source: {diffs:#?}"
    );
}

/// The rows done in the persisted snapshot progress.
fn rows_done(path: &Path) -> u64 {
    let Ok(text) = std::fs::read_to_string(path) else {
        return 0;
    };
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["tables"]
        .as_array()
        .map(|ts| ts.iter().map(|t| t["rowsDone"].as_u64().unwrap_or(0)).sum())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_asked_for_through_the_admin_api_reads_those_tables_beside_the_stream() {
    const BIG: u64 = 50_000;
    const ASKED: &[&str] = &["big", "composite"];
    let db = Arc::new(MariaDb::start(MariaDbConfig::default()).unwrap());
    create_tables(&db, BIG);
    let conf = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    let admin_port = find_free_port().unwrap();
    write_conf_with(
        conf.path(),
        db.port(),
        port,
        4_000,
        "never",
        &format!("sluice.admin.http.port = {admin_port}\nsluice.admin.http.token = t0ken\n"),
    );
    let log = conf.path().join("server.log");
    let server = spawn_server(conf.path(), &log);
    let mut client = connect_example(&format!("127.0.0.1:{port}"), Duration::from_secs(30)).await;
    let mut replica = Replica::default();

    // The stream runs, with no snapshot: a change arrives, no old row.
    db.exec("UPDATE s.small SET ver = 1 WHERE id = 1").unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !replica.tables.contains_key("small") {
        assert!(Instant::now() < deadline, "the change did not arrive");
        assert!(consume_once(&mut client, &mut replica, true).await);
    }
    assert_eq!(
        replica.snapshot_rows, 0,
        "a snapshot ran with the mode never"
    );

    let stop_writing = Arc::new(AtomicBool::new(false));
    let writer = start_writer(db.clone(), BIG as i64, stop_writing.clone());
    let url = format!("http://127.0.0.1:{admin_port}");
    let admin = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_sluice"))
            .args(["admin", "--url", &url])
            .args(args)
            .env("SLUICE_ADMIN_TOKEN", "t0ken")
            .output()
            .unwrap()
    };
    let asked = admin(&["snapshot", "example", "s.big", "s.composite"]);
    assert!(
        asked.status.success(),
        "sluice admin snapshot failed: {}{}",
        String::from_utf8_lossy(&asked.stdout),
        String::from_utf8_lossy(&asked.stderr)
    );
    assert!(String::from_utf8_lossy(&asked.stdout).contains("s.big, s.composite"));
    let malformed = admin(&["snapshot", "example", "big"]);
    assert!(!malformed.status.success());
    assert!(String::from_utf8_lossy(&malformed.stderr).contains("SCHEMA.TABLE"));

    let deadline = Instant::now() + Duration::from_secs(300);
    while !log_has(&log, "initial snapshot finished") {
        assert!(
            Instant::now() < deadline,
            "the snapshot did not finish; the server log ends with:\n{}",
            log_tail(&log)
        );
        assert!(consume_once(&mut client, &mut replica, true).await);
    }
    stop_writing.store(true, Ordering::SeqCst);
    let statements = writer.join().unwrap();
    let mut diffs = replica.differences_in(&db, ASKED);
    let settle = Instant::now() + Duration::from_secs(60);
    while !diffs.is_empty() && Instant::now() < settle {
        for _ in 0..20 {
            assert!(consume_once(&mut client, &mut replica, true).await);
        }
        diffs = replica.differences_in(&db, ASKED);
    }
    let shown = admin(&["show", "example"]);
    stop(server, &log);
    assert!(
        diffs.is_empty(),
        "the consumer's copies of the tables asked for differ from the source: {diffs:#?}"
    );
    assert!(
        replica.backwards.is_empty(),
        "row versions went backwards: {:#?}",
        &replica.backwards[..replica.backwards.len().min(10)]
    );
    let mut tables: Vec<&str> = replica.snapshot_tables.iter().map(String::as_str).collect();
    tables.sort();
    assert_eq!(
        tables, ASKED,
        "snapshot rows came for other tables than asked"
    );
    assert!(
        replica.snapshot_rows >= BIG - statements,
        "only {} rows came from the snapshot",
        replica.snapshot_rows
    );
    let shown = String::from_utf8_lossy(&shown.stdout).to_string();
    assert!(
        shown.contains("snapshot   2 of 2 tables") && shown.contains("finished"),
        "sluice admin show does not give the snapshot's progress:\n{shown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scan_by_a_user_without_process_says_what_a_ddl_would_wait_for() {
    let Fixture {
        db,
        conf,
        port,
        log,
    } = fixture(20_000, 2_000);
    // Canal's usual grants, without PROCESS.
    db.exec(
        "CREATE USER 'canal'@'%' IDENTIFIED BY 'canal';
         GRANT SELECT, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'canal'@'%';",
    )
    .unwrap();
    let instance = conf.path().join("example/instance.properties");
    let text = std::fs::read_to_string(&instance).unwrap().replace(
        "canal.instance.dbUsername = root\n",
        "canal.instance.dbUsername = canal\ncanal.instance.dbPassword = canal\n",
    );
    std::fs::write(&instance, text).unwrap();
    let server = spawn_server(conf.path(), &log);
    let addr = format!("127.0.0.1:{port}");
    let mut client = connect_example(&addr, Duration::from_secs(30)).await;
    let mut replica = Replica::default();
    let deadline = Instant::now() + Duration::from_secs(120);
    consume_until_finished(&mut client, &addr, &mut replica, &log, deadline).await;
    stop(server, &log);
    assert!(
        log_has(&log, "the user has no PROCESS privilege"),
        "no warning about PROCESS; the server log ends with:\n{}",
        log_tail(&log)
    );
    assert!(log_has(&log, "user=canal@"), "{}", log_tail(&log));
    assert!(
        replica.differences(&db).is_empty(),
        "the tables differ from the source"
    );
}
