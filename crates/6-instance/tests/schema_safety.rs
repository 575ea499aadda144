//! The schema tracker of an instance never starts on a schema it cannot
//! vouch for, against a private MariaDB: a replication-only account is
//! warned about at start and its unknown tables fail with the GRANT that
//! fixes them, then recover by themselves once it is run; a lost, torn or
//! damaged `schema.history` is an error naming the file unless what is left
//! still covers the start position.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use prost::Message;
use sluice_canal::proto::{Entry, EntryType, RowChange};
use sluice_canal::{LogIdentity, TableFilter};
use sluice_instance::destination::InstanceDestination;
use sluice_instance::filters::CanalFilters;
use sluice_instance::runner::{EventPlace, InstanceRunner, SchemaHook};
use sluice_instance::schema_hook::tracked_schema;
use sluice_meta::{CursorStore, FileCursorStore};
use sluice_source::conn::ConnectOptions;
use sluice_source::position::StartPosition;
use sluice_source::SourceConfig;
use sluice_store::{Destination, EventStore, GetWait, StoreConfig};
use sluice_testkit::{BinlogRowMetadata, MariaDb, MariaDbConfig};
use tokio::sync::watch;

/// A tracing writer into a shared buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn install() -> Captured {
        let buffer = Captured::default();
        let writer = buffer.clone();
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::INFO)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .try_init()
            .expect("first subscriber of this test process");
        buffer
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
    }
}

fn connect(db: &MariaDb, user: &str, password: &str) -> ConnectOptions {
    ConnectOptions {
        host: "127.0.0.1".into(),
        port: db.port(),
        user: user.into(),
        password: password.into(),
        ..Default::default()
    }
}

/// Runs an instance of destination `example` in `dir` from `file:pos`, as
/// `user`, with the schema tracked in `dir`.
struct Pipeline {
    destination: Arc<InstanceDestination>,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<Result<(), String>>,
}

fn start(db: &MariaDb, dir: &Path, user: &str, password: &str, at: &(String, u64)) -> Pipeline {
    let cursors: Arc<dyn CursorStore> = Arc::new(FileCursorStore::new(dir));
    let store = Arc::new(EventStore::new(StoreConfig::default()));
    let destination = Arc::new(
        InstanceDestination::open("example", store, cursors, LogIdentity::default()).unwrap(),
    );
    let source = SourceConfig::from_url(&format!(
        "mysql://{user}:{password}@127.0.0.1:{}",
        db.port()
    ))
    .unwrap()
    .starting_at(StartPosition::FilePos {
        file: at.0.clone(),
        pos: at.1,
    });
    let hook = tracked_schema(
        dir,
        "example",
        &connect(db, user, password),
        TableFilter::all(),
    )
    .unwrap();
    let (stop, rx) = watch::channel(false);
    let mut runner = InstanceRunner::new(
        "example",
        destination.clone(),
        CanalFilters::default(),
        hook,
        false,
    );
    let task = tokio::spawn(async move { runner.run(source, rx).await.map_err(|e| e.to_string()) });
    Pipeline {
        destination,
        stop,
        task,
    }
}

/// The column names of the first `n` row images delivered (60 s at most).
async fn row_columns(d: &InstanceDestination, n: usize) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while out.len() < n && tokio::time::Instant::now() < deadline {
        let b = d
            .get(1001, 100, GetWait::AtMost(Duration::from_millis(200)))
            .await
            .unwrap();
        if b.id < 0 {
            continue;
        }
        for e in &b.entries {
            let e = Entry::decode(e.as_ref()).unwrap();
            if e.entry_type != Some(EntryType::RowData as i32) {
                continue;
            }
            let rc = RowChange::decode(e.store_value.as_deref().unwrap_or(&[])).unwrap();
            if rc.is_ddl == Some(true) {
                continue;
            }
            for rd in rc.row_datas {
                out.push(
                    rd.after_columns
                        .iter()
                        .map(|c| {
                            format!(
                                "{}={}",
                                c.name.clone().unwrap_or_default(),
                                c.value.clone().unwrap_or_default()
                            )
                        })
                        .collect(),
                );
            }
        }
        d.ack(1001, b.id).unwrap();
        d.durable().await.unwrap();
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replication_only_account_is_warned_and_recovers_after_grant() {
    let logs = Captured::install();
    // MariaDB's default: the binlog names no columns, so an unknown table
    // can only be learnt from the server.
    let db = MariaDb::start(MariaDbConfig::default().binlog_row_metadata(BinlogRowMetadata::NoLog))
        .unwrap();
    db.exec(
        "CREATE DATABASE shop; \
         CREATE TABLE shop.items (id INT UNSIGNED PRIMARY KEY, name VARCHAR(20)); \
         CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'; \
         GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%'",
    )
    .unwrap();
    let at = db.current_binlog_position().unwrap();
    db.exec("INSERT INTO shop.items VALUES (1, 'apple')")
        .unwrap();
    let dir = tempfile::tempdir().unwrap();

    // Without SELECT: a warning at start, then the row fails, naming the
    // table, the position and the GRANT.
    let p = start(&db, dir.path(), "repl", "replpw", &at);
    let failed = tokio::time::timeout(Duration::from_secs(60), p.task)
        .await
        .expect("the instance should stop on the unknown table")
        .unwrap();
    let error = failed.expect_err("rows of a table nobody can read must not pass");
    assert!(
        error.contains("shop.items")
            && error.contains(&at.0)
            && error.contains("SELECT privilege")
            && error.contains("GRANT SELECT ON `shop`.* TO 'repl'@'%'"),
        "{error}"
    );
    let text = logs.text();
    assert!(
        text.contains("WARN")
            && text.contains("no SELECT privilege")
            && text.contains("GRANT SELECT ON *.* TO 'repl'@'%'"),
        "no warning at start naming the GRANT:\n{text}"
    );
    assert!(!text.contains("replpw"), "{text}");
    let history_path = dir.path().join("example/schema.history");
    let before = std::fs::read(&history_path).unwrap();
    assert!(!before.is_empty());
    drop(p.destination);

    // After the GRANT the same position goes through, history untouched
    // but for the table now learnt.
    db.exec("GRANT SELECT ON shop.* TO 'repl'@'%'").unwrap();
    let p = start(&db, dir.path(), "repl", "replpw", &at);
    p.destination.subscribe(1001, "").unwrap();
    let rows = row_columns(&p.destination, 1).await;
    assert_eq!(
        rows,
        vec![vec!["id=1".to_string(), "name=apple".to_string()]]
    );
    let after = std::fs::read(&history_path).unwrap();
    assert!(
        after.starts_with(&before) && after.len() > before.len(),
        "the history is kept and the table appended to it"
    );
    let _ = p.stop.send(true);
    let result = p.task.await.unwrap();
    assert!(result.is_ok(), "{result:?}");
}

/// A QUERY event for the hook at `file:pos`.
fn place(file: &str, pos: u64) -> EventPlace<'_> {
    EventPlace {
        file,
        pos: pos.saturating_sub(1),
        next_pos: pos,
        status_vars: &[],
    }
}

/// A history in `dir` for destination `example`: seeded from the server at
/// `start`, then one CREATE TABLE per entry of `ddl`, each at the position
/// the server reports after running it. Returns those positions.
fn write_history(
    db: &MariaDb,
    dir: &Path,
    start: &(String, u64),
    ddl: &[&str],
) -> Vec<(String, u64)> {
    let mut hook =
        tracked_schema(dir, "example", &connect(db, "root", ""), TableFilter::all()).unwrap();
    hook.on_start(&start.0, start.1).unwrap();
    let mut positions = Vec::new();
    for sql in ddl {
        db.exec(sql).unwrap();
        let at = db.current_binlog_position().unwrap();
        hook.on_query(&place(&at.0, at.1), "s", sql).unwrap();
        positions.push(at);
    }
    positions
}

fn open_and_start(
    db: &MariaDb,
    dir: &Path,
    at: &(String, u64),
) -> Result<Box<dyn SchemaHook>, String> {
    let mut hook = tracked_schema(dir, "example", &connect(db, "root", ""), TableFilter::all())?;
    hook.on_start(&at.0, at.1)?;
    Ok(hook)
}

fn history(dir: &Path) -> PathBuf {
    dir.join("example/schema.history")
}

/// Byte offsets where each line of `path` starts.
fn line_starts(path: &Path) -> Vec<usize> {
    let text = std::fs::read(path).unwrap();
    let mut starts = vec![0];
    starts.extend(
        text.iter()
            .enumerate()
            .filter(|(i, b)| **b == b'\n' && i + 1 < text.len())
            .map(|(i, _)| i + 1),
    );
    starts
}

/// A server and a history of destination `example` written against it: a
/// snapshot at `start`, then three CREATE TABLE records.
struct Fixture {
    db: MariaDb,
    dir: tempfile::TempDir,
    start: (String, u64),
    /// Where each CREATE TABLE record is.
    positions: Vec<(String, u64)>,
    /// The history file as written, and where each of its lines starts.
    pristine: Vec<u8>,
    lines: Vec<usize>,
    path: PathBuf,
    /// The path as messages show it.
    shown: String,
}

impl Fixture {
    fn new() -> Fixture {
        let db = MariaDb::start(MariaDbConfig::default()).unwrap();
        db.exec("CREATE DATABASE s; CREATE TABLE s.t0 (a INT)")
            .unwrap();
        let start = db.current_binlog_position().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let positions = write_history(
            &db,
            dir.path(),
            &start,
            &[
                "CREATE TABLE s.t1 (a INT)",
                "CREATE TABLE s.t2 (a INT)",
                "CREATE TABLE s.t3 (a INT)",
            ],
        );
        let path = history(dir.path());
        let pristine = std::fs::read(&path).unwrap();
        let lines = line_starts(&path);
        assert_eq!(lines.len(), 4, "a snapshot and three DDL records");
        let shown = path.display().to_string();
        Fixture {
            db,
            dir,
            start,
            positions,
            pristine,
            lines,
            path,
            shown,
        }
    }

    fn start_at(&self, at: &(String, u64)) -> Result<Box<dyn SchemaHook>, String> {
        open_and_start(&self.db, self.dir.path(), at)
    }

    fn start_err(&self, at: &(String, u64)) -> String {
        match self.start_at(at) {
            Ok(_) => panic!("started at {at:?} on a history that cannot cover it"),
            Err(e) => e,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changed_byte_in_a_record_is_a_checksum_error_naming_file_and_line() {
    let f = Fixture::new();
    // A table name changed inside the third record: a silently different
    // schema before checksums.
    let mut changed = f.pristine.clone();
    let line = f.lines[2];
    let name = line
        + changed[line..]
            .windows(4)
            .position(|w| w == b"\"t2\"")
            .unwrap();
    changed[name + 2] = b'9';
    std::fs::write(&f.path, &changed).unwrap();
    let e = f.start_err(&f.start);
    assert!(
        e.contains(&f.shown) && e.contains("line 3") && e.contains("checksum"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn torn_tail_is_dropped_only_while_the_rest_covers_the_start() {
    let logs = Captured::install();
    let f = Fixture::new();
    // Cut in the middle of the last record: the lost record may be a
    // change before a start beyond the last intact record.
    let cut = f.lines[3] + (f.pristine.len() - f.lines[3]) / 2;
    std::fs::write(&f.path, &f.pristine[..cut]).unwrap();
    let beyond = (f.positions[2].0.clone(), f.positions[2].1 + 100);
    let e = f.start_err(&beyond);
    assert!(e.contains(&f.shown) && e.contains("torn"), "{e}");
    // The file is left as found, for whoever repairs it.
    assert_eq!(std::fs::read(&f.path).unwrap(), &f.pristine[..cut]);
    // A start the intact records still cover goes on, with a warning.
    f.start_at(&f.positions[1]).unwrap();
    let text = logs.text();
    assert!(
        text.contains("WARN") && text.contains("torn record"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_cut_in_half_cannot_cover_a_later_start() {
    let f = Fixture::new();
    std::fs::write(&f.path, &f.pristine[..f.lines[2] + 10]).unwrap();
    let e = f.start_err(&f.positions[2]);
    assert!(e.contains(&f.shown) && e.contains("torn"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_before_the_first_snapshot_is_an_error() {
    let f = Fixture::new();
    let earlier = (f.start.0.clone(), 4);
    let e = f.start_err(&earlier);
    assert!(e.contains(&f.shown) && e.contains("first snapshot"), "{e}");
    f.start_at(&f.positions[2]).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_history_next_to_a_cursor_is_an_error_and_seeds_without_one() {
    let f = Fixture::new();
    let meta = f.dir.path().join("example/meta.dat");
    std::fs::write(
        &meta,
        format!(
            r#"{{"clientDatas":[{{"clientIdentity":{{"clientId":1001,"destination":"example","filter":""}},"cursor":{{"identity":{{"slaveId":-1,"sourceAddress":{{"address":"127.0.0.1","port":3306}}}},"postion":{{"gtid":"","included":false,"journalName":"{}","position":{},"serverId":1,"timestamp":1600000000000}}}}}}],"destination":"example"}}"#,
            f.positions[1].0, f.positions[1].1
        ),
    )
    .unwrap();
    std::fs::write(&f.path, b"").unwrap();
    let e = f.start_err(&f.positions[1]);
    assert!(e.contains(&f.shown) && e.contains("meta.dat"), "{e}");
    assert!(std::fs::read(&f.path).unwrap().is_empty());
    // No cursor: the very first start, which seeds from the server.
    std::fs::remove_file(&meta).unwrap();
    f.start_at(&f.positions[2]).unwrap();
    assert!(!std::fs::read(&f.path).unwrap().is_empty());
}
