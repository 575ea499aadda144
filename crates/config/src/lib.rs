//! Sluice reads Canal's configuration layout as it is: `DIR/canal.properties`
//! for the server and `DIR/{destination}/instance.properties` per
//! destination, with Canal's keys and defaults. Keys Canal knows but Sluice
//! does not act on are named at start, in one warning line per file, with
//! what happens instead; a key neither knows is a warning with the closest
//! known key, or an error when it looks like a misspelled password or token
//! (see the `keys` module, where every key is listed); a bad value is an
//! error that names the file, line, key and what is expected.

mod admin;
mod canal_admin;
mod destinations;
mod field_rules;
mod instance;
mod keys;
mod metrics;
mod mq;
pub mod properties;
mod reader;
mod secret;
mod server;
mod sink;
mod snapshot;
mod tcp;
mod zookeeper;

use std::path::{Path, PathBuf};

pub use admin::{is_loopback_host, AdminHttpConfig, AdminTcpConfig};
pub use canal_admin::AdminManagerConfig;
pub use destinations::DestinationsConfig;
pub use field_rules::{parse_field_rules, FieldRule};
pub use instance::{BatchMode, ConnectionCharset, InstanceConfig, SslMode};
pub use keys::{rabbitmq_property, OLD_RABBITMQ_KEYS};
pub use metrics::MetricsConfig;
pub use mq::MqServerConfig;
pub use properties::{Properties, Property};
pub use secret::Secret;
pub use server::{
    LogFiles, LogLayout, MetaMode, ServerConfig, ServerMode, DEFAULT_BINLOG_MAX_EVENT_SIZE,
};
pub use sink::SinkKeys;
pub use snapshot::{OnPurged, SnapshotMode, SnapshotReads, SnapshotSettings};
pub use tcp::{CanalPortConfig, TcpLimits};
pub use zookeeper::{ZooKeeperAcl, ZooKeeperConfig};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    // The I/O error is in the message and not a `source`: a report that
    // prints the chain would say it twice.
    #[error("cannot read {path}: {cause}")]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{path}:{line}: {key} = {value:?}: {expected}")]
    BadValue {
        path: PathBuf,
        line: usize,
        key: String,
        value: String,
        expected: String,
    },
    #[error("{path}:{line}: unknown key {key}: {hint}; a misspelled security setting stops the start rather than leave something open")]
    UnknownSecurityKey {
        path: PathBuf,
        line: usize,
        key: String,
        hint: String,
    },
    #[error("{path}: {key} is required: {hint}")]
    Missing {
        path: PathBuf,
        key: String,
        hint: String,
    },
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|cause| ConfigError::Read {
        path: path.to_path_buf(),
        cause,
    })
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_keys;
