//! Redis mode (`canal.serverMode = redis`, Sluice's own): each record is
//! appended with `XADD` to the stream named by its topic, with the fields
//! `payload` (the record: FlatMessage JSON or Canal's protobuf),
//! `destination`, and `partition` and `key` when the record has them.
//!
//! A batch goes out as one pipeline (one round trip) and is confirmed only
//! when every `XADD` returned an entry id. Delivery is at least once: a batch
//! sent again after a failure or a restart appends its records again, so a
//! consumer may read a record twice, never miss one.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use ::redis::RedisResult;
use sluice_config::{ConfigError, Properties};
use sluice_encode::mq::MqMessage;

use crate::keys::{without_credentials, Keys};
use crate::{BoxFuture, Confirmation, PublishError, Publisher};

/// The broker name in errors.
const BROKER: &str = "Redis";

/// The default of `sluice.mq.redis.url`.
pub const DEFAULT_URL: &str = "redis://127.0.0.1:6379";

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the replies of one batch may take (a large batch is a large
/// pipeline).
const REPLY_TIMEOUT: Duration = Duration::from_secs(30);

/// The `sluice.mq.redis.*` settings of `canal.properties`.
#[derive(Clone, PartialEq, Eq)]
pub struct RedisSettings {
    /// `sluice.mq.redis.url` (default `redis://127.0.0.1:6379`); may carry a
    /// password, a database number (`/2`) or `rediss://` (not supported:
    /// refused at load).
    pub url: String,
    /// `sluice.mq.redis.maxlen`: each `XADD` trims its stream to about this
    /// many entries (`MAXLEN ~ N`); unset, streams grow until consumers trim.
    pub maxlen: Option<u64>,
}

impl std::fmt::Debug for RedisSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSettings")
            .field("url", &without_credentials(&self.url))
            .field("maxlen", &self.maxlen)
            .finish()
    }
}

impl RedisSettings {
    /// Reads the settings from `canal.properties` (at `path`); errors name
    /// the file, the line and the key.
    pub fn from_properties_at(path: &Path, props: &Properties) -> Result<Self, ConfigError> {
        let keys = Keys { path, props };
        let url = keys.string("sluice.mq.redis.url", DEFAULT_URL);
        if let Err(e) = ::redis::Client::open(url.as_str()) {
            return Err(keys.bad_value(
                "sluice.mq.redis.url",
                &url,
                &format!("expected a redis://[:password@]host[:port][/db] URL ({e})"),
            ));
        }
        if url.starts_with("rediss://") {
            return Err(keys.bad_value(
                "sluice.mq.redis.url",
                &url,
                "TLS (rediss://) is not supported; use redis://",
            ));
        }
        Ok(RedisSettings {
            url,
            maxlen: keys.positive("sluice.mq.redis.maxlen")?,
        })
    }

    /// [`from_properties_at`](Self::from_properties_at) for `canal.properties`.
    pub fn from_properties(props: &Properties) -> Result<Self, ConfigError> {
        Self::from_properties_at(Path::new("canal.properties"), props)
    }

    /// The URL without its password, for logs and errors.
    pub fn describe(&self) -> String {
        without_credentials(&self.url)
    }
}

/// Publishes one destination's records to Redis streams.
///
/// It connects on its first batch; after any failure the connection is
/// dropped and the next batch connects again, so a Redis restart costs the
/// batches sent while it is down, which the worker sends again.
pub struct RedisPublisher {
    settings: RedisSettings,
    destination: String,
    connection: Option<ConnectionManager>,
}

impl std::fmt::Debug for RedisPublisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisPublisher")
            .field("broker", &self.settings.describe())
            .field("destination", &self.destination)
            .field("connected", &self.connection.is_some())
            .finish()
    }
}

impl RedisPublisher {
    /// A publisher for `destination`; connects when it first publishes.
    pub fn new(destination: &str, settings: RedisSettings) -> RedisPublisher {
        RedisPublisher {
            settings,
            destination: destination.to_string(),
            connection: None,
        }
    }

    fn retriable(&self, message: String) -> PublishError {
        PublishError::Retriable {
            broker: BROKER,
            message: format!("{}: {message}", self.settings.describe()),
        }
    }

    async fn connect(&self) -> Result<ConnectionManager, PublishError> {
        let client = ::redis::Client::open(self.settings.url.as_str())
            .map_err(|e| self.retriable(format!("the URL is not usable: {e}")))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(REPLY_TIMEOUT))
            // A failed batch drops the connection; the next one connects.
            .set_number_of_retries(1);
        let connecting = ConnectionManager::new_with_config(client, config);
        match tokio::time::timeout(CONNECT_TIMEOUT, connecting).await {
            Ok(Ok(manager)) => {
                tracing::info!(broker = %self.settings.describe(), "connected to Redis");
                Ok(manager)
            }
            Ok(Err(e)) => Err(self.retriable(format!("cannot connect: {e}"))),
            Err(_) => {
                Err(self.retriable(format!("connecting took longer than {CONNECT_TIMEOUT:?}")))
            }
        }
    }

    /// The pipeline of one `XADD` per record.
    fn pipeline(&self, records: &[MqMessage]) -> ::redis::Pipeline {
        let mut pipe = ::redis::pipe();
        // One reply per command, errors included, so each is checked.
        pipe.ignore_errors();
        for record in records {
            let cmd = pipe.cmd("XADD").arg(&record.topic);
            if let Some(maxlen) = self.settings.maxlen {
                cmd.arg("MAXLEN").arg("~").arg(maxlen);
            }
            cmd.arg("*")
                .arg("payload")
                .arg(&record.payload)
                .arg("destination")
                .arg(&self.destination);
            if let Some(partition) = record.partition {
                cmd.arg("partition").arg(partition);
            }
            if let Some(key) = &record.key {
                cmd.arg("key").arg(key);
            }
        }
        pipe
    }

    async fn publish_records(&mut self, records: &[MqMessage]) -> Result<(), PublishError> {
        if records.is_empty() {
            return Ok(());
        }
        let mut connection = match self.connection.take() {
            Some(c) => c,
            None => self.connect().await?,
        };
        let pipe = self.pipeline(records);
        let sent = tokio::time::timeout(
            REPLY_TIMEOUT,
            pipe.query_async::<Vec<RedisResult<String>>>(&mut connection),
        )
        .await;
        let replies = match sent {
            Ok(Ok(replies)) => replies,
            Ok(Err(e)) => {
                return Err(self.retriable(format!(
                    "a batch of {} records was not confirmed: {e}",
                    records.len()
                )))
            }
            Err(_) => {
                return Err(self.retriable(format!(
                    "a batch of {} records was not confirmed within {REPLY_TIMEOUT:?}",
                    records.len()
                )))
            }
        };
        if replies.len() != records.len() {
            return Err(self.retriable(format!(
                "{} replies to {} XADD commands",
                replies.len(),
                records.len()
            )));
        }
        for (i, (reply, record)) in replies.into_iter().zip(records).enumerate() {
            if let Err(e) = reply {
                return Err(self.retriable(format!(
                    "XADD of record {} of {} ({}) to stream {:?} failed: {e}",
                    i + 1,
                    records.len(),
                    origin(record),
                    record.topic
                )));
            }
        }
        self.connection = Some(connection);
        Ok(())
    }
}

impl Publisher for RedisPublisher {
    /// One pipeline per batch, confirmed before the next batch is sent.
    fn send(
        &mut self,
        records: Arc<[MqMessage]>,
    ) -> BoxFuture<'_, Result<Confirmation, PublishError>> {
        Box::pin(async move {
            self.publish_records(&records).await?;
            Ok(crate::confirmed())
        })
    }
}

fn origin(record: &MqMessage) -> &str {
    if record.origin.is_empty() {
        "a batch"
    } else {
        &record.origin
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(text: &str) -> Result<RedisSettings, ConfigError> {
        RedisSettings::from_properties(&Properties::parse(text))
    }

    #[test]
    fn defaults_and_keys() {
        let s = settings("").unwrap();
        assert_eq!((s.url.as_str(), s.maxlen), (DEFAULT_URL, None));
        let s = settings(
            "sluice.mq.redis.url = redis://:s3cret@10.0.0.5:6380/2\nsluice.mq.redis.maxlen = 5000\n",
        )
        .unwrap();
        assert_eq!(s.maxlen, Some(5000));
        assert_eq!(s.describe(), "redis://10.0.0.5:6380/2");
        assert!(!format!("{s:?}").contains("s3cret"));
    }

    #[test]
    fn bad_values_name_line_and_key() {
        let err = settings("# streams\nsluice.mq.redis.maxlen = 0\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("canal.properties:2: sluice.mq.redis.maxlen = \"0\""),
            "{err}"
        );
        let err = settings("sluice.mq.redis.url = http://h\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("canal.properties:1: sluice.mq.redis.url"),
            "{err}"
        );
    }
}
