//! What the admin API remembers of the last minutes, for the console's
//! sparklines and ETAs: every [`INTERVAL`] a sample per destination (its
//! source lag and the snapshot rows read so far), [`KEPT`] samples each,
//! and the last [`ERRORS_KEPT`] failures seen. Memory only: a restart
//! starts them afresh.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

/// How often a sample is taken.
pub(crate) const INTERVAL: Duration = Duration::from_secs(5);
/// Samples kept per destination: ten minutes.
const KEPT: usize = 120;
/// Failures kept, all destinations together.
const ERRORS_KEPT: usize = 20;
/// The window the snapshot rate (and so its ETA) is measured over.
const RATE_WINDOW_MS: u64 = 60_000;

#[derive(Debug, Clone, Copy)]
struct Sample {
    at_ms: u64,
    lag_seconds: Option<f64>,
    /// Snapshot rows read so far, while a snapshot is known.
    rows_done: Option<u64>,
}

#[derive(Default)]
struct Ring {
    samples: VecDeque<Sample>,
    /// The failure last recorded, so that one failure is recorded once.
    last_error: Option<String>,
}

#[derive(Default)]
pub(crate) struct History {
    rings: Mutex<HashMap<String, Ring>>,
    errors: Mutex<VecDeque<Value>>,
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl History {
    /// Records one sample of `destination`, and its failure when it is a
    /// new one.
    pub(crate) fn record(
        &self,
        destination: &str,
        at_ms: u64,
        lag_seconds: Option<f64>,
        rows_done: Option<u64>,
        failure: Option<&str>,
    ) {
        let new_error = {
            let mut rings = self.rings.lock().unwrap_or_else(|e| e.into_inner());
            let ring = rings.entry(destination.to_string()).or_default();
            if ring.samples.len() == KEPT {
                ring.samples.pop_front();
            }
            ring.samples.push_back(Sample {
                at_ms,
                lag_seconds,
                rows_done,
            });
            match failure {
                Some(f) if ring.last_error.as_deref() != Some(f) => {
                    ring.last_error = Some(f.to_string());
                    true
                }
                Some(_) => false,
                None => {
                    ring.last_error = None;
                    false
                }
            }
        };
        if let (true, Some(message)) = (new_error, failure) {
            self.error(destination, at_ms, message);
        }
    }

    /// Records a failure of `destination`.
    pub(crate) fn error(&self, destination: &str, at_ms: u64, message: &str) {
        let mut errors = self.errors.lock().unwrap_or_else(|e| e.into_inner());
        if errors.len() == ERRORS_KEPT {
            errors.pop_front();
        }
        errors.push_back(json!({
            "at": at_ms,
            "destination": destination,
            "message": message,
        }));
    }

    /// Forgets the destinations not in `names` (removed from the
    /// configuration).
    pub(crate) fn keep_only(&self, names: &[String]) {
        let mut rings = self.rings.lock().unwrap_or_else(|e| e.into_inner());
        rings.retain(|name, _| names.contains(name));
    }

    /// The lag samples of `destination`, oldest first.
    pub(crate) fn lag(&self, destination: &str) -> Value {
        let rings = self.rings.lock().unwrap_or_else(|e| e.into_inner());
        let samples = rings
            .get(destination)
            .map(|r| {
                r.samples
                    .iter()
                    .map(|s| json!({ "at": s.at_ms, "lag_seconds": s.lag_seconds }))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        json!({ "interval_seconds": INTERVAL.as_secs(), "samples": samples })
    }

    /// The snapshot's rows per second over the last minute and the seconds
    /// left at that rate; `None`s while it is not known (fewer than two
    /// samples, or no progress).
    pub(crate) fn snapshot_rate(
        &self,
        destination: &str,
        rows_done: u64,
        rows_estimated: u64,
    ) -> (Option<f64>, Option<u64>) {
        let rings = self.rings.lock().unwrap_or_else(|e| e.into_inner());
        let Some(ring) = rings.get(destination) else {
            return (None, None);
        };
        let now = now_ms();
        let oldest = ring
            .samples
            .iter()
            .find(|s| s.rows_done.is_some() && now.saturating_sub(s.at_ms) <= RATE_WINDOW_MS);
        let Some((at, rows)) = oldest.and_then(|s| Some((s.at_ms, s.rows_done?))) else {
            return (None, None);
        };
        let elapsed = now.saturating_sub(at) as f64 / 1000.0;
        if elapsed < 1.0 || rows_done <= rows {
            return (None, None);
        }
        let rate = (rows_done - rows) as f64 / elapsed;
        let left = rows_estimated.saturating_sub(rows_done) as f64 / rate;
        (Some(rate), Some(left.ceil() as u64))
    }

    /// The failures seen, newest first.
    pub(crate) fn errors(&self) -> Vec<Value> {
        let errors = self.errors.lock().unwrap_or_else(|e| e.into_inner());
        errors.iter().rev().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_ten_minutes_of_samples_and_each_failure_once() {
        let h = History::default();
        for i in 0..(KEPT as u64 + 5) {
            h.record("a", i, Some(i as f64), None, Some("boom"));
        }
        let lag = h.lag("a");
        let samples = lag["samples"].as_array().unwrap();
        assert_eq!(samples.len(), KEPT);
        assert_eq!(samples[0]["at"], 5);
        assert_eq!(h.errors().len(), 1);
        h.record("a", 1000, None, None, None);
        h.record("a", 1001, None, None, Some("boom"));
        assert_eq!(h.errors().len(), 2);
        h.keep_only(&[]);
        assert_eq!(h.lag("a")["samples"].as_array().unwrap().len(), 0);
    }

    #[test]
    fn the_snapshot_eta_follows_the_rate_of_the_last_minute() {
        let h = History::default();
        let now = now_ms();
        h.record("a", now - 10_000, None, Some(1_000), None);
        let (rate, eta) = h.snapshot_rate("a", 2_000, 12_000);
        let rate = rate.unwrap();
        assert!((95.0..=105.0).contains(&rate), "{rate}");
        let eta = eta.unwrap();
        assert!((95..=106).contains(&eta), "{eta}");
        assert_eq!(h.snapshot_rate("a", 1_000, 12_000), (None, None));
    }
}
