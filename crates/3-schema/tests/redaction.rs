//! No password from the binlog reaches a log line, an error message or the
//! schema history: account statements, replication settings and table
//! options pass through the tracker at debug level (which includes what the
//! SQL parser logs through the `log` crate) and nothing of their secrets is
//! seen.

use std::io::Write;
use std::sync::{Arc, Mutex};

use sluice_schema::history::MemoryHistoryStore;
use sluice_schema::position::BinlogPosition;
use sluice_schema::tracker::{SchemaTracker, TrackerOptions, UnparseableDdlPolicy};

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

const STATEMENTS: &[&str] = &[
    "CREATE USER 'app'@'%' IDENTIFIED BY 'secret-create'",
    "ALTER USER 'app'@'%' IDENTIFIED BY 'secret-alter'",
    "CREATE USER v IDENTIFIED VIA ed25519 USING PASSWORD('secret-via')",
    "SET PASSWORD FOR 'app'@'%' = PASSWORD('secret-set')",
    "GRANT SELECT ON *.* TO 'app'@'%' IDENTIFIED BY 'secret-grant'",
    "CHANGE MASTER TO MASTER_PASSWORD='secret-master'",
    "CREATE SERVER s FOREIGN DATA WRAPPER mysql OPTIONS (USER 'r', PASSWORD 'secret-server')",
    "CREATE TABLE d.f (a INT) ENGINE=FEDERATED CONNECTION='mysql://r:secret-fed@h/d/t'",
    // Statements whose errors (or unparsed-DDL records) carry the text.
    "ALTER TABLE d.t ADD COLUMN (b INT IDENTIFIED BY 'secret-unparsed'",
    "CREATE TABLE d.u (a INT) CONNECTION='mysql://r:secret-select@h/d/t' SELECT 1 AS a",
];

#[test]
fn no_secret_reaches_logs_errors_or_history() {
    let buffer = Captured::default();
    let writer = buffer.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .try_init()
        .expect("first subscriber of this test binary");

    let mut errors = Vec::new();
    let mut histories = Vec::new();
    for policy in [
        UnparseableDdlPolicy::Fail,
        UnparseableDdlPolicy::SkipWithWarning,
        UnparseableDdlPolicy::Reread,
    ] {
        let mut t = SchemaTracker::open(
            Box::new(MemoryHistoryStore::default()),
            TrackerOptions {
                policy,
                ..TrackerOptions::default()
            },
        )
        .unwrap();
        t.seed_empty(&BinlogPosition::new("binlog.000001", 4))
            .unwrap();
        t.on_query(
            &BinlogPosition::new("binlog.000001", 100),
            "d",
            "CREATE TABLE t (a INT)",
            &[],
        )
        .unwrap();
        for (i, sql) in STATEMENTS.iter().enumerate() {
            let at = BinlogPosition::new("binlog.000001", 200 + i as u64 * 100);
            if let Err(e) = t.on_query(&at, "d", sql, &[]) {
                errors.push(e.to_string());
            }
        }
        histories.push(format!("{:?}", t.records()));
    }
    let logs =
        String::from_utf8_lossy(&buffer.0.lock().unwrap_or_else(|p| p.into_inner())).into_owned();
    // The parser did log at debug level, and the failures were reported.
    assert!(logs.contains("DEBUG"), "no debug output captured:\n{logs}");
    for (what, text) in [
        ("log", logs),
        ("errors", errors.join("\n")),
        ("history", histories.join("\n")),
    ] {
        assert!(!text.contains("secret-"), "a secret in the {what}:\n{text}");
    }
    assert!(
        errors.iter().any(|e| e.contains("IDENTIFIED BY '***'")),
        "{errors:#?}"
    );
}
