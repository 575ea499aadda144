//! Canal's client metrics (`canal_instance_client_*`), counted once per
//! request packet of a logged-in session. A session registers the handles
//! of the destination it talks to once, so a request counts with atomic
//! adds.

use std::time::Duration;

use metrics::{counter, histogram, Counter, Histogram};

use crate::reply::{Outcome, Reply};

/// Bucket bounds of `canal_instance_client_request_latency`, in
/// milliseconds (Canal's).
pub const LATENCY_BUCKETS_MS: [f64; 4] = [2.5, 10.0, 25.0, 100.0];

/// Canal's names of the request packet types counted, in the order of
/// [`ClientMetrics::packets`].
pub(crate) const PACKET_TYPES: [&str; 5] = [
    "SUBSCRIPTION",
    "UNSUBSCRIPTION",
    "GET",
    "CLIENTACK",
    "CLIENTROLLBACK",
];

/// The client metrics of one destination.
pub(crate) struct ClientMetrics {
    pub(crate) destination: String,
    packets: [Counter; 5],
    bytes: Counter,
    empty_batches: Counter,
    latency: Histogram,
}

impl ClientMetrics {
    pub(crate) fn new(destination: &str) -> ClientMetrics {
        let d = destination.to_string();
        let packet = |t: &'static str| counter!("canal_instance_client_packets", "destination" => d.clone(), "packetType" => t);
        ClientMetrics {
            packets: PACKET_TYPES.map(packet),
            bytes: counter!("canal_instance_client_bytes", "destination" => d.clone()),
            empty_batches: counter!("canal_instance_client_empty_batches", "destination" => d.clone()),
            latency: histogram!("canal_instance_client_request_latency", "destination" => d.clone()),
            destination: d,
        }
    }

    /// Counts one request (`packet`: an index into [`PACKET_TYPES`]), its
    /// reply and how long it took.
    pub(crate) fn request(&self, packet: usize, outcome: &Outcome, took: Duration) {
        if let Some(c) = self.packets.get(packet) {
            c.increment(1);
        }
        self.latency.record(took.as_secs_f64() * 1000.0);
        let reply = match outcome {
            Outcome::Silent => return,
            Outcome::Reply(r) | Outcome::ReplyAndClose(r) => r,
        };
        match reply {
            Reply::Batch(batch) if batch.entries.is_empty() => self.empty_batches.increment(1),
            Reply::Batch(batch) => {
                let bytes: usize = batch.entries.iter().map(|e| e.len()).sum();
                self.bytes.increment(bytes as u64);
            }
            // Rare: registered when it happens.
            Reply::Ack {
                error: Some((code, _)),
            } => counter!(
                "canal_instance_client_request_error",
                "destination" => self.destination.clone(),
                "errorCode" => code.to_string()
            )
            .increment(1),
            Reply::Ack { error: None } => {}
        }
    }
}
