//! The official canal-python 0.4 client, unmodified, against `TcpServer`
//! over an in-memory destination: subscribe with a filter, inserts,
//! updates and deletes with Canal's column values and flags,
//! getWithoutAck + rollback redelivers, reconnect resumes after the last ack.
//!
//! The client is installed from PyPI into a virtualenv under
//! `target/tmp/canal-python-venv` (kept between runs, shared with the other
//! tests that run it; see `sluice_testkit::python`). If it cannot be
//! installed the test fails and says why; it never skips.
//! `SLUICE_PYTHON` names the interpreter used to create the venv (default `python3`).

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use sluice_canal::proto::{EntryType, EventType};
use sluice_serve_tcp::AuthConfig;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

const DEST: &str = "example";
const FILTER: &str = "test\\..*";

/// A python with canal-python 0.4 and protobuf 3.x (`sluice_testkit::python`).
fn python() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("canal-python-venv");
    sluice_testkit::python::canal_python(&venv)
        .unwrap_or_else(|e| panic!("the official Canal Python client is needed: {e:#}"))
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/canal_client_check.py")
}

/// What the test feeds: one transaction touching test.t1 (kept by the
/// filter) and other.t2 (dropped by it).
fn first_transaction() -> Vec<sluice_canal::proto::Entry> {
    vec![
        begin(4),
        rows(
            "test",
            "t1",
            EventType::Insert,
            vec![
                insert_row("1", Some("alice"), Some("10.50")),
                insert_row("2", Some("bob"), None),
            ],
            104,
        ),
        rows(
            "other",
            "t2",
            EventType::Insert,
            vec![insert_row("9", Some("filtered"), None)],
            204,
        ),
        rows(
            "test",
            "t1",
            EventType::Update,
            vec![update_row("1", Some("alice"), Some("carol"), Some("10.50"))],
            304,
        ),
        rows(
            "test",
            "t1",
            EventType::Delete,
            vec![delete_row("2", Some("bob"), None)],
            404,
        ),
        end(504, 1234),
    ]
}

fn col(
    index: i64,
    name: &str,
    mysql: &str,
    sql: i64,
    key: bool,
    v: Option<&str>,
    upd: bool,
) -> Value {
    json!({
        "index": index, "sqlType": sql, "name": name, "isKey": key, "updated": upd,
        "isNull": v.is_none(), "value": v.unwrap_or(""), "mysqlType": mysql,
    })
}

fn cols(id: &str, name: Option<&str>, price: Option<&str>, upd: [bool; 3]) -> Value {
    json!([
        col(0, "id", "int(11)", 4, true, Some(id), upd[0]),
        col(1, "name", "varchar(64)", 12, false, name, upd[1]),
        col(2, "price", "decimal(10,2)", 3, false, price, upd[2]),
    ])
}

fn check_first_batch(entries: &[Value]) {
    let types: Vec<i64> = entries
        .iter()
        .map(|e| e["entryType"].as_i64().unwrap())
        .collect();
    let (b, r, e) = (
        EntryType::TransactionBegin as i64,
        EntryType::RowData as i64,
        EntryType::TransactionEnd as i64,
    );
    // other.t2 was filtered out by the subscription's filter.
    assert_eq!(types, [b, r, r, r, e], "{entries:#?}");
    assert_eq!(entries[0]["threadId"], 7);
    assert_eq!(
        entries[0]["header"]["eventType"], 0,
        "BEGIN has no event type"
    );
    assert_eq!(entries[4]["transactionId"], "1234");

    let h = &entries[1]["header"];
    assert_eq!(h["logfileName"], BINLOG);
    assert_eq!(h["logfileOffset"], 104);
    assert_eq!(h["serverenCode"], "UTF-8");
    assert_eq!(h["sourceType"], 2);
    assert_eq!(h["schemaName"], "test");
    assert_eq!(h["tableName"], "t1");
    assert_eq!(h["executeTime"], 1_700_000_000_000i64);
    assert_eq!(h["props"], json!([["rowsCount", "2"]]));

    let ins = &entries[1]["rowChange"];
    assert_eq!(h["eventType"], EventType::Insert as i64);
    assert_eq!(ins["eventType"], EventType::Insert as i64);
    assert_eq!(ins["isDdl"], false);
    assert_eq!(
        ins["rows"],
        json!([
            {"before": [], "after": cols("1", Some("alice"), Some("10.50"), [true; 3])},
            {"before": [], "after": cols("2", Some("bob"), None, [true; 3])},
        ])
    );

    let upd = &entries[2]["rowChange"];
    assert_eq!(entries[2]["header"]["eventType"], EventType::Update as i64);
    assert_eq!(upd["eventType"], EventType::Update as i64);
    assert_eq!(
        upd["rows"],
        json!([{
            "before": cols("1", Some("alice"), Some("10.50"), [false; 3]),
            "after": cols("1", Some("carol"), Some("10.50"), [false, true, false]),
        }])
    );

    let del = &entries[3]["rowChange"];
    assert_eq!(entries[3]["header"]["eventType"], EventType::Delete as i64);
    assert_eq!(
        del["rows"],
        json!([{"before": cols("2", Some("bob"), None, [false; 3]), "after": []}])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_python_client_works_unmodified() {
    let py = tokio::task::spawn_blocking(python).await.unwrap();
    let d = MemDestination::new(DEST, item_store(10_000));
    let srv = start(AuthConfig::open(), MemDestinations::one(&d)).await;

    let mut child = Command::new(&py)
        .arg(script())
        .args(["127.0.0.1", &srv.addr.port().to_string(), DEST, FILTER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("run the python script");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut stderr = child.stderr.take().unwrap();
    let stderr_task = tokio::spawn(async move {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s).await;
        s
    });

    let mut results: Vec<Value> = Vec::new();
    let mut transcript = String::new();
    let run = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            transcript.push_str(&line);
            transcript.push('\n');
            let Some(j) = line.strip_prefix("RESULT ") else {
                continue;
            };
            let v: Value = serde_json::from_str(j).unwrap();
            match v["kind"].as_str() {
                Some("subscribed") => {
                    d.feed(&first_transaction()).await;
                    stdin.write_all(b"go\n").await.unwrap();
                }
                Some("acked") => {
                    d.feed(&insert_txn("test", "t1", 100, 3, 2000)).await;
                    stdin.write_all(b"go\n").await.unwrap();
                }
                _ => {}
            }
            results.push(v);
        }
    };
    let finished = tokio::time::timeout(Duration::from_secs(120), run).await;
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
    let err = stderr_task.await.unwrap_or_default();
    assert!(
        finished.is_ok(),
        "python client timed out:\n{transcript}\n{err}"
    );
    let ok = matches!(status, Ok(Ok(s)) if s.success());
    assert!(
        ok,
        "python client failed ({status:?}):\n{transcript}\n{err}"
    );

    // The filter reached the destination as sent.
    assert_eq!(d.last_filter().as_deref(), Some(FILTER));

    let step = |name: &str| -> &Value {
        results
            .iter()
            .find(|r| r["kind"] == "batch" && r["step"] == name)
            .unwrap_or_else(|| panic!("no step {name} in:\n{transcript}"))
    };
    let first = step("first");
    assert_eq!(first["id"], 1);
    check_first_batch(first["entries"].as_array().unwrap());

    // Rollback of that batch: the same entries under a new batch id.
    let again = step("redelivered");
    assert_eq!(again["id"], 2);
    assert_eq!(again["entries"], first["entries"]);

    // After the ack there is nothing (canal-python maps batch -1 to id 0).
    let empty = results.iter().find(|r| r["kind"] == "empty").unwrap();
    assert_eq!(
        (empty["id"].as_i64(), empty["count"].as_i64()),
        (Some(0), Some(0))
    );

    // Second transaction, un-acked, then a new connection: it comes again,
    // and nothing from before the last ack does.
    let unacked = step("unacked");
    let resumed = step("resumed");
    assert_eq!(unacked["entries"].as_array().unwrap().len(), 3);
    assert_eq!(resumed["entries"], unacked["entries"]);
    let rc = &resumed["entries"][1]["rowChange"];
    assert_eq!(rc["rows"].as_array().unwrap().len(), 3);
    assert_eq!(rc["rows"][0]["after"][0]["value"], "100");

    let done = results.iter().find(|r| r["kind"] == "done").unwrap();
    assert_eq!(
        (done["id"].as_i64(), done["count"].as_i64()),
        (Some(0), Some(0))
    );
}
