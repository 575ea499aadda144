//! Helpers shared by the tests that run `sluice server` processes.
#![allow(dead_code)]

pub mod client;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sluice_canal::proto::{Entry, EntryType, EventType};
use sluice_client::SimpleConnector;
use sluice_testkit::MariaDb;

/// Writes `dir/example/instance.properties`: destination `example` reads
/// the MariaDB at `db_port` as root from `binlog.000001:4`, tables matching
/// `filter_regex` (as written in a properties file).
pub fn write_example_instance(dir: &Path, db_port: u16, filter_regex: &str) {
    std::fs::create_dir_all(dir.join("example")).unwrap();
    std::fs::write(
        dir.join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{db_port}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.master.journal.name = binlog.000001\n\
             canal.instance.master.position = 4\n\
             canal.instance.filter.regex = {filter_regex}\n"
        ),
    )
    .unwrap();
}

/// Connects to destination `example` at `addr` and subscribes, retrying
/// for up to `timeout` while the server starts.
pub async fn connect_example(addr: &str, timeout: Duration) -> SimpleConnector {
    let deadline = Instant::now() + timeout;
    loop {
        match SimpleConnector::connect(addr, "example", "", "").await {
            Ok(mut c) => {
                if c.subscribe("").await.is_ok() {
                    return c;
                }
            }
            Err(_) if Instant::now() < deadline => {}
            Err(e) => panic!("cannot reach sluice server at {addr}: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Starts `sluice server --conf conf`, its log appended to `log`.
pub fn spawn_server(conf: &Path, log: &Path) -> Child {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args(["server", "--conf"])
        .arg(conf)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap()
}

/// A `sluice server` process (see [`spawn_server`]), killed with SIGKILL
/// and reaped when dropped or on [`ServerProcess::kill`].
pub struct ServerProcess(Option<Child>);

impl ServerProcess {
    pub fn spawn(conf: &Path, log: &Path) -> ServerProcess {
        ServerProcess(Some(spawn_server(conf, log)))
    }

    /// The process, for a test that ends it its own way.
    pub fn take(&mut self) -> Option<Child> {
        self.0.take()
    }

    /// SIGKILL and reap (nothing if it is gone already).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Writes `dir/canal.properties` for destination `example`: Canal's port
/// on a free port of 127.0.0.1, no metrics port, no scan of the folder,
/// then the lines of `more`.
pub fn write_example_server(dir: &Path, more: &str) -> anyhow::Result<()> {
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.metrics.pull.port = 0\n\
             canal.destinations = example\ncanal.auto.scan = false\n{more}",
            sluice_testkit::find_free_port()?
        ),
    )?;
    Ok(())
}

/// The ids (first column) of the rows inserted by `entries`, and the ids of
/// the transactions that end within them (`open` carries the rows of a
/// transaction cut by the previous batch boundary).
pub fn insert_ids(entries: &[Entry], open: &mut Vec<i64>) -> (Vec<i64>, Vec<i64>) {
    let mut ids = Vec::new();
    let mut complete = Vec::new();
    for e in entries {
        if e.entry_type == Some(EntryType::TransactionEnd as i32) {
            complete.append(open);
            continue;
        }
        if e.entry_type != Some(EntryType::RowData as i32) {
            continue;
        }
        let Ok(rc) = sluice_client::row_change(e) else {
            continue;
        };
        if rc.event_type != Some(EventType::Insert as i32) {
            continue;
        }
        for rd in &rc.row_datas {
            if let Some(v) = rd.after_columns.first().and_then(|c| c.value.clone()) {
                let id: i64 = v.parse().unwrap();
                ids.push(id);
                open.push(id);
            }
        }
    }
    (ids, complete)
}

/// How many replicas MariaDB is sending its binlog to.
pub fn binlog_dumps(db: &MariaDb) -> usize {
    let sql = "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND = 'Binlog Dump'";
    // A connection the server dropped is opened again by the next query.
    db.query(sql).or_else(|_| db.query(sql)).unwrap()[0][0]
        .as_deref()
        .unwrap()
        .parse()
        .unwrap()
}

/// Waits until MariaDB shows `n` binlog dumps; returns how long that took.
pub fn wait_dumps(db: &MariaDb, n: usize, timeout: Duration) -> Duration {
    let start = Instant::now();
    while binlog_dumps(db) != n {
        assert!(
            start.elapsed() < timeout,
            "MariaDB does not show {n} Binlog Dump within {timeout:?} (shows {})",
            binlog_dumps(db)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    start.elapsed()
}

/// Inserts transactions of 3 rows (ids 0, 1, 2, …) into `w.t (id, v)` until
/// `stop`; returns how many rows it wrote.
pub fn start_writer(
    db: std::sync::Arc<MariaDb>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<i64> {
    std::thread::spawn(move || {
        let mut next = 0i64;
        while !stop.load(std::sync::atomic::Ordering::SeqCst) {
            let stmts: Vec<String> = (next..next + 3)
                .map(|id| format!("INSERT INTO w.t VALUES ({id}, 'row {id}')"))
                .collect();
            db.exec(&format!("BEGIN; {}; COMMIT", stmts.join("; ")))
                .unwrap();
            next += 3;
            std::thread::sleep(Duration::from_millis(10));
        }
        next
    })
}
