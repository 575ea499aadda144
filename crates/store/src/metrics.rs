//! Canal's store metrics of one destination (`canal_instance_store_*`,
//! `canal_instance_{put,get,ack}_rows`), counted per put, batch and ack.
//! The handles are registered once, so counting is an atomic add; with no
//! metrics recorder installed they do nothing.
//!
//! The binlog times of the last entry put, got and acked are kept here too:
//! the server turns them into Canal's delay gauges when it is scraped
//! (`now − time`, so a stalled destination shows a growing delay).

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use metrics::{counter, Counter};

/// The counters of one destination's store.
pub struct StoreMetrics {
    produce_seq: Counter,
    consume_seq: Counter,
    produce_mem: Counter,
    consume_mem: Counter,
    put_rows: Counter,
    get_rows: Counter,
    ack_rows: Counter,
    sink_blocking_ms: Counter,
    put_time: AtomicI64,
    get_time: AtomicI64,
    ack_time: AtomicI64,
}

/// Binlog times (ms since the epoch, 0 when none yet) of the last entry
/// put, handed out and acked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExecTimes {
    pub put: i64,
    pub get: i64,
    pub ack: i64,
}

impl StoreMetrics {
    /// Registers the counters of `destination`.
    pub fn new(destination: &str) -> StoreMetrics {
        let d = destination.to_string();
        StoreMetrics {
            produce_seq: counter!("canal_instance_store_produce_seq", "destination" => d.clone()),
            consume_seq: counter!("canal_instance_store_consume_seq", "destination" => d.clone()),
            produce_mem: counter!("canal_instance_store_produce_mem", "destination" => d.clone()),
            consume_mem: counter!("canal_instance_store_consume_mem", "destination" => d.clone()),
            put_rows: counter!("canal_instance_put_rows", "destination" => d.clone()),
            get_rows: counter!("canal_instance_get_rows", "destination" => d.clone()),
            ack_rows: counter!("canal_instance_ack_rows", "destination" => d.clone()),
            sink_blocking_ms: counter!("canal_instance_sink_blocking_time", "destination" => d),
            put_time: AtomicI64::new(0),
            get_time: AtomicI64::new(0),
            ack_time: AtomicI64::new(0),
        }
    }

    pub(crate) fn put(&self, bytes: usize, rows: u32, time: i64) {
        self.produce_seq.increment(1);
        self.produce_mem.increment(bytes as u64);
        self.put_rows.increment(u64::from(rows));
        if time > 0 {
            self.put_time.store(time, Ordering::Relaxed);
        }
    }

    pub(crate) fn got(&self, rows: u64, time: i64) {
        self.get_rows.increment(rows);
        if time > 0 {
            self.get_time.store(time, Ordering::Relaxed);
        }
    }

    pub(crate) fn acked(&self, entries: u64, bytes: u64, rows: u64, time: i64) {
        self.consume_seq.increment(entries);
        self.consume_mem.increment(bytes);
        self.ack_rows.increment(rows);
        if time > 0 {
            self.ack_time.store(time, Ordering::Relaxed);
        }
    }

    pub(crate) fn blocked(&self, waited: Duration) {
        self.sink_blocking_ms.increment(waited.as_millis() as u64);
    }

    /// The binlog times of the last entry put, got and acked.
    pub fn exec_times(&self) -> ExecTimes {
        ExecTimes {
            put: self.put_time.load(Ordering::Relaxed),
            get: self.get_time.load(Ordering::Relaxed),
            ack: self.ack_time.load(Ordering::Relaxed),
        }
    }
}
