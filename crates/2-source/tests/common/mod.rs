//! Helpers shared by the integration tests: a source config for a test
//! server, and a collector that turns stream items into committed
//! transactions the way an exactly-once consumer does (buffer until the
//! commit, drop on TransactionAborted).

#![allow(dead_code)]

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use sluice_binlog::events::EventData;
use sluice_binlog::{Cell, RowsKind};
use sluice_source::{
    BinlogStream, ReconnectPolicy, ResumePosition, SourceConfig, StartPosition, StreamItem,
};
use sluice_testkit::MariaDb;

pub fn runtime() -> tokio::runtime::Runtime {
    // RUST_LOG=sluice_source=debug shows what the stream does.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// A config for the test server as root, with short heartbeats and timeouts.
pub fn config(db: &MariaDb, start: StartPosition) -> SourceConfig {
    let mut c = SourceConfig::from_url(&db.url()).expect("test url");
    c.start = start;
    c.heartbeat_period = Duration::from_millis(200);
    c.connect.read_timeout = Duration::from_secs(3);
    c.connect.connect_timeout = Duration::from_secs(5);
    c.reconnect = ReconnectPolicy {
        initial_backoff: Duration::from_millis(50),
        max_backoff: Duration::from_millis(500),
        max_attempts: Some(400),
    };
    c
}

/// One row change, values rendered as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub op: &'static str,
    pub table: String,
    pub before: Option<Vec<Option<String>>>,
    pub after: Option<Vec<Option<String>>>,
}

impl Change {
    /// The first column of the after image (or before, for deletes).
    pub fn key(&self) -> String {
        self.after
            .as_ref()
            .or(self.before.as_ref())
            .and_then(|v| v.first().cloned().flatten())
            .unwrap_or_default()
    }
}

#[derive(Debug, Clone)]
pub struct Txn {
    pub gtid: Option<String>,
    pub changes: Vec<Change>,
    pub ddl: Vec<String>,
    pub end: ResumePosition,
}

#[derive(Debug, Default)]
pub struct Collector {
    pub txns: Vec<Txn>,
    cur: Vec<Change>,
    cur_ddl: Vec<String>,
    pub aborted: usize,
    pub events: usize,
    /// file:pos of the first delivered event that belongs to a transaction.
    pub first_txn_event: Option<(String, u64)>,
    /// Rows seen in the transaction in progress (for tests that pause mid-transaction).
    pub open_rows: usize,
}

fn image(
    t: &sluice_binlog::TableMap,
    img: &sluice_binlog::RowImage<'_>,
) -> Result<Vec<Option<String>>> {
    let mut out = Vec::new();
    for (i, cell) in img.cells().enumerate() {
        out.push(match cell? {
            Cell::Absent => None,
            Cell::Present(v) => v.to_text(&t.columns[i])?,
        });
    }
    Ok(out)
}

impl Collector {
    pub fn feed(&mut self, item: StreamItem<'_>) -> Result<()> {
        let ev = match item {
            StreamItem::TransactionAborted { .. } => {
                self.cur.clear();
                self.cur_ddl.clear();
                self.open_rows = 0;
                self.aborted += 1;
                return Ok(());
            }
            StreamItem::Event(ev) => ev,
        };
        self.events += 1;
        if ev.starts_transaction {
            self.cur.clear();
            self.cur_ddl.clear();
            self.open_rows = 0;
            if self.first_txn_event.is_none() {
                self.first_txn_event = Some((ev.file.to_string(), ev.pos));
            }
        }
        match &ev.data {
            EventData::Rows(r) => {
                let t = &r.table;
                for row in r.rows() {
                    let row = row?;
                    self.cur.push(Change {
                        op: match r.kind {
                            RowsKind::Write => "insert",
                            RowsKind::Delete => "delete",
                            _ => "update",
                        },
                        table: format!("{}.{}", t.schema, t.table),
                        before: row.before.as_ref().map(|i| image(t, i)).transpose()?,
                        after: row.after.as_ref().map(|i| image(t, i)).transpose()?,
                    });
                    self.open_rows += 1;
                }
            }
            EventData::Query(q) if ev.ends_transaction.is_some() => {
                let sql = q.query_text().to_string();
                if !sql.eq_ignore_ascii_case("COMMIT") {
                    self.cur_ddl.push(sql);
                }
            }
            _ => {}
        }
        if let Some(end) = ev.ends_transaction {
            self.txns.push(Txn {
                gtid: ev.gtid.map(str::to_string),
                changes: std::mem::take(&mut self.cur),
                ddl: std::mem::take(&mut self.cur_ddl),
                end: end.clone(),
            });
            self.open_rows = 0;
        }
        Ok(())
    }

    /// Every committed row change, in order.
    pub fn changes(&self) -> Vec<Change> {
        self.txns.iter().flat_map(|t| t.changes.clone()).collect()
    }

    /// Keys (first column) of the committed changes to `table`.
    pub fn keys(&self, table: &str) -> Vec<String> {
        self.changes()
            .iter()
            .filter(|c| c.table == table)
            .map(Change::key)
            .collect()
    }

    pub fn committed_rows(&self) -> usize {
        self.txns.iter().map(|t| t.changes.len()).sum()
    }
}

/// Feeds the collector until `done` holds (checked after every item), the
/// stream ends, or `timeout` passes (an error).
pub async fn collect_until(
    stream: &mut BinlogStream,
    c: &mut Collector,
    timeout: Duration,
    done: impl Fn(&Collector) -> bool,
) -> Result<()> {
    let deadline = Instant::now() + timeout;
    while !done(c) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            bail!(
                "timed out after {timeout:?}: {} transactions, {} rows committed so far",
                c.txns.len(),
                c.committed_rows()
            );
        }
        let item = tokio::time::timeout(left, stream.next())
            .await
            .map_err(|_| anyhow::anyhow!("timed out after {timeout:?} waiting for the stream"))?
            .context("stream failed")?;
        match item {
            Some(item) => c.feed(item)?,
            None => break,
        }
    }
    Ok(())
}

/// Reads to the end (for `stop_at_end` streams).
pub async fn collect_all(stream: &mut BinlogStream, timeout: Duration) -> Result<Collector> {
    let mut c = Collector::default();
    collect_until(stream, &mut c, timeout, |_| false).await?;
    Ok(c)
}

/// The ids of `db.table` in the database, in id order.
pub fn ids_in_db(db: &MariaDb, table: &str) -> Result<Vec<String>> {
    Ok(db
        .query(&format!("SELECT id FROM {table} ORDER BY id"))?
        .into_iter()
        .map(|r| r.into_iter().next().flatten().unwrap_or_default())
        .collect())
}
