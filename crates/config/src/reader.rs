//! Typed reads of a properties file, with errors that name file and line.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::field_rules::{parse_field_rules, FieldRule};
use crate::mq::MqServerConfig;
use crate::tcp::TcpLimits;
use crate::{ConfigError, Properties, Property};

/// Typed access to a properties file, with errors that name file and line.
pub(crate) struct Reader<'a> {
    pub path: &'a Path,
    pub primary: &'a Properties,
    pub fallback: Option<&'a HashMap<String, Property>>,
}

impl Reader<'_> {
    pub(crate) fn get(&self, key: &str) -> Option<&Property> {
        self.primary
            .get(key)
            .or_else(|| self.fallback.and_then(|f| f.get(key)))
    }

    pub(crate) fn string(&self, key: &str, default: &str) -> String {
        match self.get(key) {
            Some(p) if !p.value.trim().is_empty() => p.value.trim().to_string(),
            _ => default.to_string(),
        }
    }

    /// A folder set by `key`: absolute as written, relative from `dir` (the
    /// folder of canal.properties); `None` when not set.
    pub(crate) fn path_from(&self, key: &str, dir: &Path) -> Option<PathBuf> {
        let value = self.string(key, "");
        if value.is_empty() {
            return None;
        }
        let path = Path::new(&value);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            dir.join(path)
        };
        Some(std::fs::canonicalize(&path).unwrap_or(path))
    }

    pub(crate) fn bad(&self, key: &str, p: &Property, expected: &str) -> ConfigError {
        ConfigError::BadValue {
            path: self.path.to_path_buf(),
            line: p.line,
            key: key.to_string(),
            value: p.value.clone(),
            expected: expected.to_string(),
        }
    }

    pub(crate) fn parse<T: std::str::FromStr>(
        &self,
        key: &str,
        default: T,
        what: &str,
    ) -> Result<T, ConfigError> {
        match self.get(key) {
            Some(p) if !p.value.trim().is_empty() => {
                p.value.trim().parse().map_err(|_| self.bad(key, p, what))
            }
            _ => Ok(default),
        }
    }

    pub(crate) fn optional<T: std::str::FromStr>(
        &self,
        key: &str,
        what: &str,
    ) -> Result<Option<T>, ConfigError> {
        match self.get(key) {
            Some(p) if !p.value.trim().is_empty() => p
                .value
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| self.bad(key, p, what)),
            _ => Ok(None),
        }
    }

    pub(crate) fn bool(&self, key: &str, default: bool) -> Result<bool, ConfigError> {
        match self.get(key) {
            Some(p) if !p.value.trim().is_empty() => {
                match p.value.trim().to_ascii_lowercase().as_str() {
                    "true" => Ok(true),
                    "false" => Ok(false),
                    _ => Err(self.bad(key, p, "expected true or false")),
                }
            }
            _ => Ok(default),
        }
    }

    pub(crate) fn choice<T: Copy>(
        &self,
        key: &str,
        default: T,
        options: &[(&str, T)],
    ) -> Result<T, ConfigError> {
        match self.get(key) {
            Some(p) if !p.value.trim().is_empty() => {
                let v = p.value.trim();
                options
                    .iter()
                    .find(|(name, _)| name.eq_ignore_ascii_case(v))
                    .map(|(_, t)| *t)
                    .ok_or_else(|| {
                        let names: Vec<_> = options.iter().map(|(n, _)| *n).collect();
                        self.bad(key, p, &format!("expected one of {}", names.join(", ")))
                    })
            }
            _ => Ok(default),
        }
    }

    /// An integer of at least `min`.
    pub(crate) fn at_least(
        &self,
        key: &str,
        default: u64,
        min: u64,
        what: &str,
    ) -> Result<u64, ConfigError> {
        let v = self.parse(key, default, what)?;
        match self.get(key) {
            Some(p) if v < min => Err(self.bad(key, p, what)),
            _ => Ok(v),
        }
    }

    /// An optional integer from `min` to Java's `Integer.MAX_VALUE` (Canal
    /// keeps partition numbers in Java ints).
    pub(crate) fn optional_java_int(
        &self,
        key: &str,
        min: u32,
        what: &str,
    ) -> Result<Option<u32>, ConfigError> {
        let v: Option<u32> = self.optional(key, what)?;
        match (v, self.get(key)) {
            (Some(n), Some(p)) if n < min || n > i32::MAX as u32 => Err(self.bad(key, p, what)),
            _ => Ok(v),
        }
    }

    pub(crate) fn mq_server(&self) -> Result<MqServerConfig, ConfigError> {
        let d = MqServerConfig::default();
        let count = |key, default: usize, what| {
            self.at_least(key, default as u64, 1, what)
                .map(|v| usize::try_from(v).unwrap_or(usize::MAX))
        };
        let timeout: i64 = self.parse(
            "canal.mq.canalGetTimeout",
            d.canal_get_timeout.as_millis() as i64,
            "expected milliseconds (0 or less: do not wait)",
        )?;
        Ok(MqServerConfig {
            flat_message: self.bool("canal.mq.flatMessage", d.flat_message)?,
            canal_batch_size: count(
                "canal.mq.canalBatchSize",
                d.canal_batch_size,
                "expected a batch size (at least 1)",
            )?,
            canal_get_timeout: Duration::from_millis(timeout.max(0) as u64),
            database_hash: self.bool("canal.mq.database.hash", d.database_hash)?,
            send_thread_size: count(
                "canal.mq.send.thread.size",
                d.send_thread_size,
                "expected a number of threads (at least 1)",
            )?,
            build_thread_size: count(
                "canal.mq.build.thread.size",
                d.build_thread_size,
                "expected a number of threads (at least 1)",
            )?,
            in_flight_batches: count(
                "sluice.mq.inFlightBatches",
                d.in_flight_batches,
                "expected a number of batches (at least 1)",
            )?,
        })
    }

    /// `canal.mq.dynamicTopicPartitionNum`: every `,`/`;`-separated rule
    /// must be `topic:count` with a count Canal can use; the topic
    /// patterns themselves are compiled by the MQ router.
    pub(crate) fn topic_partition_counts(&self) -> Result<String, ConfigError> {
        let key = "canal.mq.dynamicTopicPartitionNum";
        let value = self.string(key, "");
        let Some(p) = self.get(key) else {
            return Ok(value);
        };
        for rule in value
            .split([',', ';'])
            .map(str::trim)
            .filter(|r| !r.is_empty())
        {
            let count = rule
                .rsplit_once(':')
                .map(|(topic, count)| (topic.trim(), count.trim()));
            match count {
                Some((topic, count))
                    if !topic.is_empty()
                        && count.parse::<i32>().is_ok_and(|n| n >= 1) => {}
                _ => {
                    return Err(self.bad(
                        key,
                        p,
                        &format!(
                            "rule {rule:?}: expected topic:count with a count from 1 to 2147483647, e.g. mytopic:6"
                        ),
                    ))
                }
            }
        }
        Ok(value)
    }

    pub(crate) fn tcp_limits(&self) -> Result<TcpLimits, ConfigError> {
        let d = TcpLimits::default();
        let count = |key, default: usize, what| {
            self.at_least(key, default as u64, 1, what)
                .map(|v| usize::try_from(v).unwrap_or(usize::MAX))
        };
        let ms = |key, default: Duration| {
            self.at_least(
                key,
                default.as_millis() as u64,
                1,
                "expected milliseconds (at least 1)",
            )
            .map(Duration::from_millis)
        };
        Ok(TcpLimits {
            max_connections: count(
                "sluice.tcp.maxConnections",
                d.max_connections,
                "expected a number of connections (at least 1)",
            )?,
            reserved_fds: usize::try_from(self.parse(
                "sluice.tcp.reservedFds",
                d.reserved_fds as u64,
                "expected a number of file descriptors",
            )?)
            .unwrap_or(usize::MAX),
            login_timeout: ms("sluice.tcp.loginTimeout", d.login_timeout)?,
            max_failed_logins: u32::try_from(count(
                "sluice.tcp.maxFailedLogins",
                d.max_failed_logins as usize,
                "expected a number of failed logins (at least 1)",
            )?)
            .unwrap_or(u32::MAX),
            login_backoff_max: ms("sluice.tcp.loginBackoffMax", d.login_backoff_max)?,
            max_connections_per_address: count(
                "sluice.tcp.maxConnectionsPerAddress",
                d.max_connections_per_address,
                "expected a number of connections (at least 1)",
            )?,
            quick_ack: self.bool("sluice.tcp.quickAck", d.quick_ack)?,
        })
    }

    /// A column filter in Canal's syntax (see [`parse_field_rules`]).
    pub(crate) fn field_rules(&self, key: &str) -> Result<Vec<FieldRule>, ConfigError> {
        match self.get(key) {
            Some(p) => parse_field_rules(&p.value).map_err(|e| self.bad(key, p, &e)),
            None => Ok(Vec::new()),
        }
    }

    /// A comma-separated list each of whose items is one of `options`
    /// (any case), given as `options` spell them.
    pub(crate) fn list_of(
        &self,
        key: &str,
        default: &str,
        options: &[&str],
    ) -> Result<Vec<String>, ConfigError> {
        let mut out = Vec::new();
        for item in self.list(key, default) {
            let Some(known) = options.iter().find(|o| o.eq_ignore_ascii_case(&item)) else {
                // The default is a valid list: a bad item was written.
                let written = Property {
                    value: default.to_string(),
                    line: 0,
                };
                return Err(self.bad(
                    key,
                    self.get(key).unwrap_or(&written),
                    &format!(
                        "'{item}' is not one of {} (a comma-separated list of them)",
                        options.join(", ")
                    ),
                ));
            };
            if !out.iter().any(|o| o == known) {
                out.push(known.to_string());
            }
        }
        Ok(out)
    }

    pub(crate) fn list(&self, key: &str, default: &str) -> Vec<String> {
        self.string(key, default)
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    }
}
