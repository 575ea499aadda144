//! Canal's parser and instance metrics of one destination, and Sluice's
//! own of its source. Handles are registered once per destination, so the
//! reader counts with atomic adds; with no metrics recorder installed they
//! do nothing.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use metrics::{counter, gauge, Counter, Gauge};

/// Canal's label of a destination's parser: one parser, not a group.
const PARSER: &str = "0";

pub struct InstanceMetrics {
    pub(crate) received_bytes: Counter,
    pub(crate) publish_blocking_ms: Counter,
    pub(crate) transactions: Counter,
    pub(crate) reconnects: Counter,
    pub(crate) failovers: Counter,
    pub(crate) subscriptions: Gauge,
    lag: Gauge,
    /// Binlog time (ms) of the last event read, for Canal's traffic delay.
    event_time: AtomicI64,
    /// Where the last transaction read ends: the binlog file's number (its
    /// name's suffix) and offset; 0 before the first.
    read_file: AtomicU64,
    read_offset: AtomicU64,
    /// The name of the file `read_file` numbers, set when it changes.
    read_file_name: Mutex<String>,
    /// The lag behind the source measured at the end of the last
    /// transaction read (ms); -1 before the first.
    lag_ms: AtomicI64,
}

impl InstanceMetrics {
    /// The handles of `destination`, whose rows events' entries are built
    /// beside the reader when `parallel` (`canal.instance.parser.parallel`)
    /// and on it otherwise: Canal's `canal_instance_parser_mode` label.
    pub fn new(destination: &str, parallel: bool) -> InstanceMetrics {
        let d = destination.to_string();
        gauge!("sluice_binlog_purged_stopped", "destination" => d.clone()).set(0.0);
        gauge!("canal_instance_parser_mode", "destination" => d.clone(), "parallel" => if parallel { "true" } else { "false" })
            .set(1.0);
        InstanceMetrics {
            received_bytes: counter!("canal_instance_received_binlog_bytes", "destination" => d.clone(), "parser" => PARSER),
            publish_blocking_ms: counter!("canal_instance_publish_blocking_time", "destination" => d.clone(), "parser" => PARSER),
            transactions: counter!("canal_instance_transactions", "destination" => d.clone()),
            reconnects: counter!("sluice_source_reconnects", "destination" => d.clone()),
            failovers: counter!("sluice_source_failovers", "destination" => d.clone()),
            subscriptions: gauge!("canal_instance_subscriptions", "destination" => d.clone()),
            lag: gauge!("sluice_lag_seconds", "destination" => d),
            event_time: AtomicI64::new(0),
            read_file: AtomicU64::new(0),
            read_offset: AtomicU64::new(0),
            read_file_name: Mutex::new(String::new()),
            lag_ms: AtomicI64::new(-1),
        }
    }

    /// An event of binlog time `timestamp` (seconds) was read; at the end
    /// of a transaction the lag behind the source is measured too.
    pub(crate) fn event_read(&self, timestamp: u32, ends_transaction: bool) {
        if timestamp == 0 {
            return;
        }
        let ms = i64::from(timestamp) * 1000;
        self.event_time.store(ms, Ordering::Relaxed);
        if ends_transaction {
            let lag = (now_ms() - ms).max(0);
            self.lag.set(lag as f64 / 1000.0);
            self.lag_ms.store(lag, Ordering::Relaxed);
        }
    }

    /// A transaction read ends at `file:offset`.
    pub(crate) fn transaction_read(&self, file: &str, offset: u64) {
        if let Some(n) = sluice_binlog::file_sequence(file) {
            if self.read_file.load(Ordering::Relaxed) != n {
                let mut name = self
                    .read_file_name
                    .lock()
                    .unwrap_or_else(|p| p.into_inner());
                name.clear();
                name.push_str(file);
            }
            self.read_file.store(n, Ordering::Relaxed);
            self.read_offset.store(offset, Ordering::Relaxed);
        }
    }

    /// The binlog file number and offset where the last transaction read
    /// ends; `None` before the first.
    pub fn read_position(&self) -> Option<(u64, u64)> {
        let file = self.read_file.load(Ordering::Relaxed);
        (file > 0).then(|| (file, self.read_offset.load(Ordering::Relaxed)))
    }

    /// The binlog file name and offset where the last transaction read
    /// ends; `None` before the first.
    pub fn read_file_position(&self) -> Option<(String, u64)> {
        let (_, offset) = self.read_position()?;
        let name = self
            .read_file_name
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        (!name.is_empty()).then_some((name, offset))
    }

    /// How far behind the source the reader was at the end of the last
    /// transaction read (now − its binlog time, ms); `None` before the first.
    pub fn lag_ms(&self) -> Option<i64> {
        let lag = self.lag_ms.load(Ordering::Relaxed);
        (lag >= 0).then_some(lag)
    }

    pub(crate) fn blocked(&self, waited: Duration) {
        self.publish_blocking_ms
            .increment(waited.as_millis() as u64);
    }

    /// Binlog time (ms since the epoch) of the last event read; 0 before
    /// the first.
    pub fn last_event_time(&self) -> i64 {
        self.event_time.load(Ordering::Relaxed)
    }
}

/// Milliseconds since the epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Canal's `canal_instance_store` gauge: the store's batch mode and size
/// as labels.
pub fn store_info(destination: &str, config: &sluice_store::StoreConfig) {
    let mode = config.batch_mode.as_str();
    gauge!(
        "canal_instance_store",
        "destination" => destination.to_string(),
        "batchMode" => mode,
        "size" => config.max_entries.to_string()
    )
    .set(1.0);
}

/// The binlog a destination resumes from was purged: counted by what was
/// done (`sluice.instance.onPurged`), and whether it stopped the destination.
pub fn binlog_purged(destination: &str, action: sluice_config::OnPurged) {
    let action = match action {
        sluice_config::OnPurged::Fail => "fail",
        sluice_config::OnPurged::Snapshot => "snapshot",
        sluice_config::OnPurged::Latest => "latest",
    };
    counter!("sluice_binlog_purged_total", "destination" => destination.to_string(), "action" => action)
        .increment(1);
    gauge!("sluice_binlog_purged_stopped", "destination" => destination.to_string())
        .set(if action == "fail" { 1.0 } else { 0.0 });
}
