//! [`MqServerConfig`]: the server-wide MQ settings (`canal.mq.*` of
//! `canal.properties`).

use std::time::Duration;

/// The server-wide MQ settings (`canal.properties`), used when
/// `canal.serverMode` is not `tcp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MqServerConfig {
    /// `canal.mq.flatMessage` (default true): FlatMessage JSON, else
    /// Canal's protobuf `Packet`.
    pub flat_message: bool,
    /// `canal.mq.canalBatchSize` (default 50): the size of each get of the
    /// MQ worker (entries, or KB of binlog with the MEMSIZE batch mode).
    pub canal_batch_size: usize,
    /// `canal.mq.canalGetTimeout` (ms, default 100): how long a get waits
    /// for data; zero (Canal: any value up to 0) is a get that does not wait.
    pub canal_get_timeout: Duration,
    /// `canal.mq.database.hash` (default true): column hashes start from
    /// the database name's hash.
    pub database_hash: bool,
    /// `canal.mq.send.thread.size` (default 30): Canal's sender threads;
    /// accepted, at least 1.
    pub send_thread_size: usize,
    /// `canal.mq.build.thread.size` (default 8): Canal's threads that build
    /// messages; accepted, at least 1.
    pub build_thread_size: usize,
    /// `sluice.mq.inFlightBatches` (default 8): batches published and not
    /// yet confirmed at once; acks stay in order. 1 is Canal's one batch at
    /// a time.
    pub in_flight_batches: usize,
}

impl Default for MqServerConfig {
    fn default() -> Self {
        MqServerConfig {
            flat_message: true,
            canal_batch_size: 50,
            canal_get_timeout: Duration::from_millis(100),
            database_hash: true,
            send_thread_size: 30,
            build_thread_size: 8,
            in_flight_batches: 8,
        }
    }
}
