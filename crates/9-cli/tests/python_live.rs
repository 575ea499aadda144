//! The official Canal Python client (`canal-python` 0.4), unmodified,
//! against the real `sluice server` binary reading a private MariaDB.
//!
//! What it checks, on rows the test writes to MariaDB after the client has
//! subscribed with the filter `shop\..*`:
//! - rows of another schema (`other.t`, written in the same transactions)
//!   never reach the client;
//! - inserts, updates and deletes arrive with Canal's values and flags
//!   (spec §11.4): UNSIGNED INT beyond the signed range as its unsigned value
//!   with sqlType BIGINT, DECIMAL with its scale, DATETIME as text, ENUM as its
//!   1-based index, NULL as `isNull` with no value; `isKey` on the primary key;
//!   `updated` true on every INSERT column, on the changed columns only of an
//!   UPDATE after-image (NULL → value included), false on before-images;
//!   column names and `mysqlType` as the schema tracker has them;
//! - getWithoutAck, rollback of that batch, and the same entries come again
//!   under a new batch id; after the ack nothing is left;
//! - a client that stops (the server keeps running) and a new one that
//!   subscribes with the same client id resume right after the last acked
//!   batch: the batch read but not acked comes again, nothing acked does.
//!
//! The Python side is `tests/python/canal_live_check.py`. The client is
//! installed from PyPI into `target/tmp/canal-python-venv` (see
//! `sluice_testkit::python`); if that fails the test fails and says why.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};

const DEST: &str = "example";
const FILTER: &str = "shop\\..*";

const SCHEMA: &str = "
CREATE DATABASE shop;
CREATE DATABASE other;
CREATE TABLE shop.items (
    id INT UNSIGNED NOT NULL PRIMARY KEY,
    name VARCHAR(64) NOT NULL,
    price DECIMAL(10,2) NULL,
    created DATETIME NOT NULL,
    status ENUM('new','paid','shipped') NOT NULL,
    note VARCHAR(32) NULL
);
CREATE TABLE shop.sentinel (id INT NOT NULL PRIMARY KEY, tag VARCHAR(16) NOT NULL);
CREATE TABLE other.t (id INT NOT NULL PRIMARY KEY, v VARCHAR(16));
";

/// Written once the client has subscribed; ends with mark "one".
const STEP_ONE: &str = "
INSERT INTO shop.items VALUES
    (1, 'alice', 10.50, '2024-05-17 10:21:33', 'paid', NULL),
    (3000000000, 'bob', NULL, '2023-01-02 03:04:05', 'new', 'fragile');
BEGIN;
INSERT INTO other.t VALUES (1, 'hidden');
UPDATE shop.items SET name = 'carol', status = 'shipped' WHERE id = 1;
COMMIT;
UPDATE shop.items SET note = 'gift' WHERE id = 1;
DELETE FROM shop.items WHERE id = 3000000000;
INSERT INTO other.t VALUES (2, 'hidden too');
INSERT INTO shop.sentinel VALUES (1, 'one');
";

/// Written after the first ack; ends with mark "two".
const STEP_TWO: &str = "
INSERT INTO shop.items VALUES (10, 'dave', 1.00, '2024-01-01 00:00:00', 'new', NULL);
INSERT INTO shop.items VALUES (11, 'erin', 2.00, '2024-01-01 00:00:01', 'new', NULL);
INSERT INTO shop.sentinel VALUES (2, 'two');
";

fn write_conf(dir: &Path, db_port: u16, canal_port: u16) {
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.port = {canal_port}\ncanal.destinations = {DEST}\ncanal.auto.scan = false\n"
        ),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join(DEST)).unwrap();
    // ITEMSIZE: a GET's batch size counts entries, so the test knows where
    // a 3-entry batch ends.
    std::fs::write(
        dir.join(DEST).join("instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{db_port}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.dbPassword =\n\
             canal.instance.master.journal.name = binlog.000001\n\
             canal.instance.master.position = 4\n\
             canal.instance.memory.batch.mode = ITEMSIZE\n"
        ),
    )
    .unwrap();
}

/// The Canal port accepts connections (the server is up).
fn wait_listening(port: u16, server: &mut Child, log: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = server.try_wait() {
            panic!(
                "sluice server exited ({status}) before listening:\n{}",
                read_log(log)
            );
        }
        assert!(
            Instant::now() < deadline,
            "sluice server not listening on {port} after 60 s:\n{}",
            read_log(log)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn read_log(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn python() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("canal-python-venv");
    sluice_testkit::python::canal_python(&venv)
        .unwrap_or_else(|e| panic!("the official Canal Python client is needed: {e:#}"))
}

/// One run of the Python script: its RESULT lines as they come.
struct PyRun {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: Option<JoinHandle<String>>,
    transcript: String,
}

impl PyRun {
    fn spawn(py: &Path, port: u16, phase: &str) -> PyRun {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/canal_live_check.py");
        let mut child = Command::new(py)
            .arg(script)
            .args(["127.0.0.1", &port.to_string(), DEST, FILTER, phase])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run the python script");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
            s
        });
        PyRun {
            child,
            stdin,
            lines,
            stderr: Some(stderr),
            transcript: String::new(),
        }
    }

    /// The next RESULT object; `None` once the script has closed stdout.
    fn next(&mut self, deadline: Instant) -> Option<Value> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.transcript.push_str(&line);
                    self.transcript.push('\n');
                    if let Some(j) = line.strip_prefix("RESULT ") {
                        return Some(serde_json::from_str(j).unwrap());
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return None,
                Err(RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    let err = self.stderr();
                    panic!("the python client timed out:\n{}\n{err}", self.transcript);
                }
            }
        }
    }

    fn go(&mut self) {
        self.stdin.write_all(b"go\n").unwrap();
        self.stdin.flush().unwrap();
    }

    fn stderr(&mut self) -> String {
        self.stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default()
    }

    /// Waits for the exit; panics with the transcript unless it succeeded.
    fn finish(mut self) {
        let status: ExitStatus = self.child.wait().unwrap();
        let err = self.stderr();
        assert!(
            status.success(),
            "python client failed ({status}):\n{}\n{err}",
            self.transcript
        );
    }
}

/// A column as canal_live_check.py prints it.
fn col(
    index: i64,
    name: &str,
    value: Option<&str>,
    key: bool,
    updated: bool,
    mysql: &str,
    sql: i64,
) -> Value {
    json!({
        "index": index, "name": name, "value": value.unwrap_or(""), "isKey": key,
        "updated": updated, "isNull": value.is_none(), "mysqlType": mysql, "sqlType": sql,
    })
}

/// A shop.items row: id and its sqlType, name, price, created, status
/// (ENUM index), note.
type ItemRow<'a> = (
    &'a str,
    i64,
    &'a str,
    Option<&'a str>,
    &'a str,
    &'a str,
    Option<&'a str>,
);

/// The columns of a shop.items row; `upd` the `updated` flags in column order.
fn item(row: ItemRow<'_>, upd: [bool; 6]) -> Value {
    let (id, id_sql_type, name, price, created, status, note) = row;
    json!([
        // As declared in the CREATE TABLE the tracker followed (no display width).
        col(0, "id", Some(id), true, upd[0], "int unsigned", id_sql_type),
        col(1, "name", Some(name), false, upd[1], "varchar(64)", 12),
        col(2, "price", price, false, upd[2], "decimal(10,2)", 3),
        col(3, "created", Some(created), false, upd[3], "datetime", 93),
        col(
            4,
            "status",
            Some(status),
            false,
            upd[4],
            "enum('new','paid','shipped')",
            4
        ),
        col(5, "note", note, false, upd[5], "varchar(32)", 12),
    ])
}

/// The DML ROWDATA entries (not DDL) of a batch.
fn dml(batch: &Value) -> Vec<&Value> {
    batch["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["entryType"] == "ROWDATA" && e["rowChange"]["isDdl"] == false)
        .collect()
}

fn types(batch: &Value) -> Vec<&str> {
    batch["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["entryType"].as_str().unwrap())
        .collect()
}

/// The ids of the rows of shop.items in a batch.
fn item_ids(batch: &Value) -> Vec<String> {
    let mut ids = Vec::new();
    for e in dml(batch) {
        if e["tableName"] != "items" {
            continue;
        }
        for r in e["rowChange"]["rows"].as_array().unwrap() {
            let img = if r["after"].as_array().unwrap().is_empty() {
                &r["before"]
            } else {
                &r["after"]
            };
            ids.push(img[0]["value"].as_str().unwrap().to_string());
        }
    }
    ids
}

fn check_step_one(first: &Value) {
    let rows = dml(first);
    for e in &rows {
        assert_eq!(e["schemaName"], "shop", "filtered schema delivered: {e:#}");
    }
    let items: Vec<&&Value> = rows.iter().filter(|e| e["tableName"] == "items").collect();
    assert_eq!(items.len(), 4, "{items:#?}");
    for e in &items {
        assert_eq!(e["logfileName"], "binlog.000001");
        assert_eq!(e["eventType"], e["rowChange"]["eventType"]);
    }

    // The rows as they stand after each statement of step one.
    const DT: &str = "2024-05-17 10:21:33";
    let alice: ItemRow = ("1", 4, "alice", Some("10.50"), DT, "2", None);
    let carol: ItemRow = ("1", 4, "carol", Some("10.50"), DT, "3", None);
    let gift: ItemRow = ("1", 4, "carol", Some("10.50"), DT, "3", Some("gift"));
    // 3000000000 is past INT's signed range: its sqlType is BIGINT (spec §11.4).
    let bob: ItemRow = (
        "3000000000",
        -5,
        "bob",
        None,
        "2023-01-02 03:04:05",
        "1",
        Some("fragile"),
    );
    let none = [false; 6];

    // INSERT of two rows in one statement: one entry, every column updated.
    let ins = &items[0]["rowChange"];
    assert_eq!(ins["eventType"], "INSERT");
    assert_eq!(
        ins["rows"],
        json!([
            {"before": [], "after": item(alice, [true; 6])},
            {"before": [], "after": item(bob, [true; 6])},
        ]),
        "{ins:#}"
    );

    // UPDATE of name and status (in a transaction with a filtered row).
    let upd = &items[1]["rowChange"];
    assert_eq!(upd["eventType"], "UPDATE");
    let changed = [false, true, false, false, true, false];
    assert_eq!(
        upd["rows"],
        json!([{"before": item(alice, none), "after": item(carol, changed)}]),
        "{upd:#}"
    );

    // NULL → value counts as changed.
    let upd = &items[2]["rowChange"];
    let changed = [false, false, false, false, false, true];
    assert_eq!(
        upd["rows"],
        json!([{"before": item(carol, none), "after": item(gift, changed)}]),
        "{upd:#}"
    );

    let del = &items[3]["rowChange"];
    assert_eq!(del["eventType"], "DELETE");
    assert_eq!(
        del["rows"],
        json!([{"before": item(bob, none), "after": []}]),
        "{del:#}"
    );

    // Each DML transaction of shop is BEGIN, its rows, END.
    let t = types(first);
    let tail: Vec<&str> = t[t.len() - 3..].to_vec();
    assert_eq!(
        tail,
        ["TRANSACTIONBEGIN", "ROWDATA", "TRANSACTIONEND"],
        "{t:?}"
    );
    let sentinel = rows.last().unwrap();
    assert_eq!(sentinel["tableName"], "sentinel");
    assert_eq!(sentinel["rowChange"]["rows"][0]["after"][1]["value"], "one");
}

#[test]
fn official_python_client_against_sluice_server() {
    let py = python();
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec(SCHEMA).unwrap();

    let conf = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    write_conf(conf.path(), db.port(), port);
    let log = conf.path().join("server.log");
    let log_file = std::fs::File::create(&log).unwrap();
    let mut server = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args(["server", "--conf"])
        .arg(conf.path())
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(log_file)
        .spawn()
        .expect("start sluice server");
    wait_listening(port, &mut server, &log);

    // First client: subscribe, step one, rollback/redeliver/ack, step two,
    // one batch acked and one not, then it stops.
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut run = PyRun::spawn(&py, port, "first");
    let mut results = Vec::new();
    while let Some(r) = run.next(deadline) {
        match r["kind"].as_str() {
            Some("subscribed") => {
                db.exec(STEP_ONE).unwrap();
                run.go();
            }
            Some("acked") => {
                db.exec(STEP_TWO).unwrap();
                run.go();
            }
            _ => {}
        }
        results.push(r);
    }
    let transcript = run.transcript.clone();
    run.finish();

    // Second client, same client id: resumes after the last ack.
    let mut run = PyRun::spawn(&py, port, "resume");
    while let Some(r) = run.next(deadline) {
        results.push(r);
    }
    let transcript = format!("{transcript}{}", run.transcript);
    run.finish();

    // The server stops cleanly on SIGTERM.
    let sent = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success(), "kill -TERM {} failed", server.id());
    let stop_deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = server.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > stop_deadline {
            let _ = server.kill();
            panic!("sluice server did not stop on SIGTERM:\n{}", read_log(&log));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        status.success(),
        "sluice server exited with {status}:\n{}",
        read_log(&log)
    );

    let step = |name: &str| -> &Value {
        results
            .iter()
            .find(|r| r["kind"] == "batch" && r["step"] == name)
            .unwrap_or_else(|| panic!("no step {name} in:\n{transcript}"))
    };

    let first = step("first");
    check_step_one(first);

    // Rolled back and delivered again: the same entries, a new batch id.
    let again = step("redelivered");
    assert!(again["id"].as_i64() > first["id"].as_i64(), "{again}");
    assert_eq!(again["entries"], first["entries"]);
    let empty = results.iter().find(|r| r["kind"] == "empty").unwrap();
    assert_eq!(
        (empty["id"].as_i64(), empty["count"].as_i64()),
        (Some(0), Some(0))
    );

    // Step two: 3-entry batches are whole transactions.
    let acked = step("acked_batch");
    let unacked = step("unacked");
    let txn = ["TRANSACTIONBEGIN", "ROWDATA", "TRANSACTIONEND"];
    assert_eq!(types(acked), txn);
    assert_eq!(types(unacked), txn);
    assert_eq!(item_ids(acked), ["10"]);
    assert_eq!(item_ids(unacked), ["11"]);
    assert_eq!(
        dml(acked)[0]["rowChange"]["rows"][0]["after"],
        item(
            (
                "10",
                4,
                "dave",
                Some("1.00"),
                "2024-01-01 00:00:00",
                "1",
                None
            ),
            [true; 6]
        )
    );

    // The new client starts with the batch that was not acked; nothing
    // before it (step one, row 10) comes again.
    let resumed = step("resumed");
    let entries = resumed["entries"].as_array().unwrap();
    assert_eq!(
        &entries[..3],
        unacked["entries"].as_array().unwrap().as_slice(),
        "{resumed:#}"
    );
    assert_eq!(item_ids(resumed), ["11"]);
    assert_eq!(types(resumed), [txn, txn].concat());
    let done = results.iter().find(|r| r["kind"] == "done").unwrap();
    assert_eq!(
        (done["id"].as_i64(), done["count"].as_i64()),
        (Some(0), Some(0))
    );

    // The acked cursor is on disk, in Canal's meta.dat: the clean stop
    // compacted the cursor log into it.
    let meta = std::fs::read_to_string(conf.path().join(DEST).join("meta.dat")).unwrap();
    assert!(meta.contains("\"clientId\":1001"), "{meta}");
    assert!(!conf.path().join(DEST).join("meta.log").exists());
}
