//! Shared by the engine tests: the example replica program, its delivery
//! logs, and a writer.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use sluice_engine::{ChangeRecord, Engine, EngineBuilder, EngineError};
use sluice_testkit::MariaDb;

/// The replica program (`src/bin/replica.rs`).
pub fn replica_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_sluice-engine-replica"))
}

/// A running replica process.
pub struct Replica {
    pub name: String,
    pub log: PathBuf,
    pub stderr: PathBuf,
    pub child: Option<Child>,
}

impl Replica {
    pub fn spawn(dir: &Path, name: &str, properties: &Path) -> Replica {
        let log = dir.join(format!("{name}.jsonl"));
        let stderr = dir.join(format!("{name}.stderr"));
        let child = Command::new(replica_binary())
            .arg(properties)
            .arg(&log)
            .env("RUST_LOG", "info,sluice_source=warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).expect("stderr file"))
            .spawn()
            .expect("spawn the replica example");
        Replica {
            name: name.into(),
            log,
            stderr,
            child: Some(child),
        }
    }

    pub fn pid(&self) -> i32 {
        self.child.as_ref().map(|c| c.id() as i32).unwrap_or(-1)
    }

    pub fn signal(&self, sig: i32) {
        if let Some(c) = &self.child {
            assert_eq!(unsafe { libc::kill(c.id() as i32, sig) }, 0, "kill {sig}");
        }
    }

    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// SIGTERM, then waits for a clean exit (at most `within`).
    pub fn terminate(&mut self, within: Duration) -> bool {
        let Some(mut c) = self.child.take() else {
            return true;
        };
        unsafe { libc::kill(c.id() as i32, libc::SIGTERM) };
        let deadline = std::time::Instant::now() + within;
        while std::time::Instant::now() < deadline {
            if let Ok(Some(status)) = c.try_wait() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = c.kill();
        let _ = c.wait();
        false
    }

    /// The lines of the delivery log so far (a torn last line is left out).
    pub fn lines(&self) -> Vec<Value> {
        read_log(&self.log)
    }

    pub fn records(&self) -> Vec<Value> {
        self.lines()
            .into_iter()
            .filter(|l| l["kind"] == "record")
            .collect()
    }

    pub fn stderr_text(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let text = self.stderr_text();
            let tail: Vec<&str> = text.lines().rev().take(40).collect();
            eprintln!("--- {} (stderr, last lines) ---", self.name);
            for l in tail.iter().rev() {
                eprintln!("{l}");
            }
        }
        if let Some(c) = &self.child {
            unsafe { libc::kill(c.id() as i32, libc::SIGCONT) };
        }
        self.kill();
    }
}

pub fn read_log(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Inserts `(id, 'row id')` into `w.t` three rows per transaction, every
/// 10 ms, until `stop`; returns the next id not written.
pub fn start_writer(db: Arc<MariaDb>, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<i64> {
    std::thread::spawn(move || {
        let mut next = 0i64;
        while !stop.load(Ordering::SeqCst) {
            let stmts: Vec<String> = (next..next + 3)
                .map(|id| format!("INSERT INTO w.t VALUES ({id}, 'row {id}')"))
                .collect();
            db.exec(&format!("BEGIN; {}; COMMIT", stmts.join("; ")))
                .expect("insert");
            next += 3;
            std::thread::sleep(Duration::from_millis(10));
        }
        next
    })
}

/// Waits until `cond` holds, at most `within`; panics with `what` after.
pub fn wait_until(within: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + within;
    while std::time::Instant::now() < deadline {
        if cond() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("timed out after {within:?} waiting for {what}");
}

pub fn now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// The properties of an in-process test engine named `name` reading the
/// private MariaDB `db` from `start`, offsets and history as files in
/// `dir`, committed after every batch, JSON without schemas; `extra`
/// (e.g. `table.include.list`) is added last.
pub fn engine_properties(
    name: &str,
    db: &MariaDb,
    start: &str,
    dir: &Path,
    extra: &[(&str, &str)],
) -> Vec<(String, String)> {
    let mut props: Vec<(String, String)> = [
        ("name", name.to_string()),
        ("topic.prefix", name.into()),
        ("database.hostname", "127.0.0.1".into()),
        ("database.port", db.port().to_string()),
        ("database.user", "root".into()),
        ("sluice.start", start.into()),
        ("converter.schemas.enable", "false".into()),
        (
            "offset.storage.file.filename",
            dir.join("offsets.dat").display().to_string(),
        ),
        (
            "schema.history.internal.file.filename",
            dir.join("history.dat").display().to_string(),
        ),
        ("offset.flush.interval.ms", "0".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    for (k, v) in extra {
        props.retain(|(key, _)| key != k);
        props.push((k.to_string(), v.to_string()));
    }
    props
}

/// Runs an engine until `until` holds for what it delivered (or `within`).
pub async fn run_until(
    props: Vec<(String, String)>,
    within: Duration,
    until: impl Fn(&[ChangeRecord]) -> bool + Send + 'static,
) -> (Vec<ChangeRecord>, Result<(), EngineError>) {
    run_collecting(props, within, until, |builder, sink| {
        builder.notifying(move |r| {
            sink.lock().unwrap().push(r);
            Ok(())
        })
    })
    .await
}

/// Runs an engine whose consumer `attach` gives it (one that pushes what
/// it gets into the vector) until `until` holds for what it delivered (or
/// `within`).
pub async fn run_collecting<R: Clone + Send + 'static>(
    props: Vec<(String, String)>,
    within: Duration,
    until: impl Fn(&[R]) -> bool + Send + 'static,
    attach: impl FnOnce(EngineBuilder, Arc<Mutex<Vec<R>>>) -> EngineBuilder,
) -> (Vec<R>, Result<(), EngineError>) {
    let got: Arc<Mutex<Vec<R>>> = Arc::default();
    let engine = attach(Engine::builder().properties(props), got.clone())
        .build()
        .unwrap();
    let handle = engine.handle();
    let watcher = got.clone();
    tokio::spawn(async move {
        let deadline = tokio::time::Instant::now() + within;
        while tokio::time::Instant::now() < deadline && !until(&watcher.lock().unwrap()) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        handle.close();
    });
    let result = engine.run().await;
    let records = got.lock().unwrap().clone();
    (records, result)
}
