//! The metrics section of `canal.properties`: where `/metrics` is served
//! and how often the figures read from the sources are refreshed.

use std::time::Duration;

/// What the `/metrics` listener is given of the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricsConfig {
    /// `canal.ip`: the address to listen on; empty = all interfaces.
    pub ip: String,
    /// `canal.metrics.pull.port` (default 11112; 0 = not served).
    pub port: u16,
    /// `sluice.metrics.sourceRefresh` (ms, default 30000): how often the
    /// figures `/metrics` shows from each destination's source (binlog
    /// bytes behind, retention runway) are read again; scrapes never ask
    /// the source themselves.
    pub source_refresh: Duration,
}
