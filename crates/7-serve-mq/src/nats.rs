//! NATS mode (`canal.serverMode = nats`, Sluice's own): each record is
//! published to the JetStream subject `<subjectPrefix>.<topic>` and a batch
//! is confirmed only when JetStream acked every record of it.
//!
//! Each record carries the header `Nats-Msg-Id` =
//! `<destination>:<entries key>:<n>`: the entries key names the binlog
//! entries the record was made of (see `MqMessage::entries_key`) and `n`
//! counts the records of the batch made from the same entries before it.
//! A batch sent again after a rollback or a restart carries the same ids,
//! so JetStream stores it once as long as it comes within the stream's
//! duplicate window (two minutes unless the stream sets another); an ack
//! that says `duplicate` confirms a record stored before.
//!
//! At connect time the stream `sluice.mq.nats.stream` is created, with the
//! subjects `<subjectPrefix>.>`, when it does not exist.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_nats::connection::State;
use async_nats::jetstream::context::{PublishAckFuture, PublishErrorKind};
use async_nats::jetstream::{self, stream};
use async_nats::{ConnectOptions, HeaderMap, ServerAddr};
use sluice_config::{ConfigError, Properties};
use sluice_encode::mq::MqMessage;

use crate::keys::{without_credentials, Keys};
use crate::{BoxFuture, Confirmation, PublishError, Publisher};

/// The broker name in errors.
const BROKER: &str = "NATS";

/// The default of `sluice.mq.nats.url`.
pub const DEFAULT_URL: &str = "nats://127.0.0.1:4222";

/// The default of `sluice.mq.nats.stream`.
pub const DEFAULT_STREAM: &str = "sluice";

/// The default of `sluice.mq.nats.subjectPrefix`.
pub const DEFAULT_SUBJECT_PREFIX: &str = "sluice";

/// How long connecting (and finding or creating the stream) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long JetStream may take to ack a record.
const ACK_TIMEOUT: Duration = Duration::from_secs(10);

/// Records published before their acks are awaited: the client holds at
/// most 5000 unacked publishes, and waits for room beyond that.
const ACK_WINDOW: usize = 1024;

/// The `sluice.mq.nats.*` settings of `canal.properties`.
#[derive(Clone, PartialEq, Eq)]
pub struct NatsSettings {
    /// `sluice.mq.nats.url` (default `nats://127.0.0.1:4222`): one server
    /// URL or several separated by commas.
    pub url: String,
    /// `sluice.mq.nats.stream` (default `sluice`): the JetStream stream,
    /// created when missing.
    pub stream: String,
    /// `sluice.mq.nats.subjectPrefix` (default `sluice`): a record of topic
    /// `t` goes to the subject `<prefix>.t`.
    pub subject_prefix: String,
    /// `sluice.mq.nats.user` and `sluice.mq.nats.password`: a login, when
    /// the server wants one (a URL may carry one too).
    pub user: Option<String>,
    pub password: Option<String>,
}

impl std::fmt::Debug for NatsSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NatsSettings")
            .field("url", &self.describe())
            .field("stream", &self.stream)
            .field("subject_prefix", &self.subject_prefix)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "***"))
            .finish()
    }
}

impl NatsSettings {
    /// Reads the settings from `canal.properties` (at `path`); errors name
    /// the file, the line and the key.
    pub fn from_properties_at(path: &Path, props: &Properties) -> Result<Self, ConfigError> {
        let keys = Keys { path, props };
        let url = keys.string("sluice.mq.nats.url", DEFAULT_URL);
        if let Err(e) = server_addrs(&url) {
            return Err(keys.bad_value(
                "sluice.mq.nats.url",
                &url,
                &format!("expected nats://host:port, or several separated by commas ({e})"),
            ));
        }
        let stream = keys.string("sluice.mq.nats.stream", DEFAULT_STREAM);
        if stream
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || ".*>/\\".contains(c))
        {
            return Err(keys.bad_value(
                "sluice.mq.nats.stream",
                &stream,
                "expected a JetStream stream name: no blanks, '.', '*', '>', '/' or '\\'",
            ));
        }
        let subject_prefix = keys.string("sluice.mq.nats.subjectPrefix", DEFAULT_SUBJECT_PREFIX);
        if subject_prefix.split('.').any(|token| {
            token.is_empty()
                || token
                    .chars()
                    .any(|c| c.is_whitespace() || c.is_control() || c == '*' || c == '>')
        }) {
            return Err(keys.bad_value(
                "sluice.mq.nats.subjectPrefix",
                &subject_prefix,
                "expected a NATS subject: tokens separated by '.', none empty, no blanks, '*' or '>'",
            ));
        }
        let user = keys
            .get("sluice.mq.nats.user")
            .map(|p| p.value.trim().to_string());
        let password = keys
            .get("sluice.mq.nats.password")
            .map(|p| p.value.trim().to_string());
        if user.is_some() != password.is_some() {
            return Err(ConfigError::Missing {
                path: path.to_path_buf(),
                key: if user.is_some() {
                    "sluice.mq.nats.password".into()
                } else {
                    "sluice.mq.nats.user".into()
                },
                hint: "sluice.mq.nats.user and sluice.mq.nats.password go together".into(),
            });
        }
        Ok(NatsSettings {
            url,
            stream,
            subject_prefix,
            user,
            password,
        })
    }

    /// [`from_properties_at`](Self::from_properties_at) for `canal.properties`.
    pub fn from_properties(props: &Properties) -> Result<Self, ConfigError> {
        Self::from_properties_at(Path::new("canal.properties"), props)
    }

    /// The URL without credentials and the stream, for logs and errors.
    pub fn describe(&self) -> String {
        let urls: Vec<String> = self.url.split(',').map(without_credentials).collect();
        format!("{} (stream {:?})", urls.join(","), self.stream)
    }

    /// The subject of a record of `topic`: `<prefix>.<topic>`, with what
    /// NATS does not allow in a token (blanks, `.`, `*`, `>`) made `_`, so
    /// the topic stays one token.
    pub fn subject(&self, topic: &str) -> String {
        let token: String = topic
            .chars()
            .map(|c| {
                if c.is_whitespace() || c.is_control() || ".*>".contains(c) {
                    '_'
                } else {
                    c
                }
            })
            .collect();
        if token.is_empty() {
            format!("{}._", self.subject_prefix)
        } else {
            format!("{}.{token}", self.subject_prefix)
        }
    }
}

fn server_addrs(url: &str) -> Result<Vec<ServerAddr>, std::io::Error> {
    url.split(',')
        .map(|u| u.trim().parse::<ServerAddr>())
        .collect()
}

/// The `Nats-Msg-Id` of each record: the same for the same records sent
/// again, different for different ones.
pub fn message_ids(destination: &str, records: &[MqMessage]) -> Vec<String> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    records
        .iter()
        .map(|r| {
            let n = seen.entry(r.entries_key.as_str()).or_default();
            let id = format!("{destination}:{}:{n}", r.entries_key);
            *n += 1;
            id
        })
        .collect()
}

/// Publishes one destination's records to NATS JetStream.
///
/// It connects on its first batch; after any failure the connection is
/// dropped and the next batch connects again, so a NATS restart costs the
/// batches sent while it is down, which the worker sends again (and
/// JetStream stores once).
pub struct NatsPublisher {
    settings: NatsSettings,
    destination: String,
    session: Option<(async_nats::Client, jetstream::Context)>,
    /// A confirmation failed: the next batch connects anew.
    failed: Arc<AtomicBool>,
}

impl std::fmt::Debug for NatsPublisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NatsPublisher")
            .field("broker", &self.settings.describe())
            .field("destination", &self.destination)
            .field("connected", &self.session.is_some())
            .finish()
    }
}

impl NatsPublisher {
    /// A publisher for `destination`; connects when it first publishes.
    pub fn new(destination: &str, settings: NatsSettings) -> NatsPublisher {
        NatsPublisher {
            settings,
            destination: destination.to_string(),
            session: None,
            failed: Arc::default(),
        }
    }

    fn retriable(&self, message: String) -> PublishError {
        PublishError::Retriable {
            broker: BROKER,
            message: format!("{}: {message}", self.settings.describe()),
        }
    }

    async fn connect(&self) -> Result<(async_nats::Client, jetstream::Context), PublishError> {
        match tokio::time::timeout(CONNECT_TIMEOUT, self.connect_inner()).await {
            Ok(result) => result,
            Err(_) => {
                Err(self.retriable(format!("connecting took longer than {CONNECT_TIMEOUT:?}")))
            }
        }
    }

    async fn connect_inner(
        &self,
    ) -> Result<(async_nats::Client, jetstream::Context), PublishError> {
        let addrs = server_addrs(&self.settings.url)
            .map_err(|e| self.retriable(format!("the URL is not usable: {e}")))?;
        let mut options = ConnectOptions::new()
            .name(format!("sluice {}", self.destination))
            .connection_timeout(CONNECT_TIMEOUT);
        if let (Some(user), Some(password)) = (&self.settings.user, &self.settings.password) {
            options = options.user_and_password(user.clone(), password.clone());
        }
        let client = options
            .connect(addrs)
            .await
            .map_err(|e| self.retriable(format!("cannot connect: {e}")))?;
        let mut context = jetstream::new(client.clone());
        context.set_timeout(ACK_TIMEOUT);
        let subjects = format!("{}.>", self.settings.subject_prefix);
        context
            .get_or_create_stream(stream::Config {
                name: self.settings.stream.clone(),
                subjects: vec![subjects.clone()],
                ..Default::default()
            })
            .await
            .map_err(|e| {
                self.retriable(format!(
                    "cannot find or create the stream with subjects {subjects:?} \
                     (sluice.mq.nats.stream): {e}"
                ))
            })?;
        tracing::info!(broker = %self.settings.describe(), "connected to NATS JetStream");
        Ok((client, context))
    }

    /// Publishes every record on the connection (made again when it is
    /// not connected) and returns the confirmation of the acks still
    /// outstanding. A batch waits for the acks of each window of
    /// [`ACK_WINDOW`] records before it sends the next, so the client never
    /// holds more; the last window's acks are the confirmation.
    async fn send_records(
        &mut self,
        records: Arc<[MqMessage]>,
    ) -> Result<Confirmation, PublishError> {
        if records.is_empty() {
            return Ok(crate::confirmed());
        }
        // A connection the client is still re-establishing would hold the
        // batch until the ack timeout; connecting anew fails at once while
        // the server is down. So does one whose acks failed.
        let session = match self.session.take() {
            Some((client, context))
                if client.connection_state() == State::Connected
                    && !self.failed.swap(false, Ordering::AcqRel) =>
            {
                (client, context)
            }
            _ => self.connect().await?,
        };
        let (first, acks) = self.send_on(&session.1, &records).await?;
        self.session = Some(session);
        let broker = self.settings.describe();
        let subjects = self.settings.clone();
        let failed = self.failed.clone();
        Ok(Box::pin(async move {
            for (i, ack) in acks.into_iter().enumerate() {
                let index = first + i;
                // A duplicate ack confirms a record JetStream stored before.
                if let Err(e) = ack.await {
                    failed.store(true, Ordering::Release);
                    let subject = subjects.subject(&records[index].topic);
                    return Err(record_failed(&broker, &records, index, &subject, e));
                }
            }
            Ok(())
        }))
    }

    /// Publishes the records window by window, waiting for the acks of
    /// each window but the last, whose first index and acks it returns.
    async fn send_on(
        &self,
        context: &jetstream::Context,
        records: &[MqMessage],
    ) -> Result<(usize, Vec<PublishAckFuture>), PublishError> {
        let ids = message_ids(&self.destination, records);
        let broker = self.settings.describe();
        let windows = records.len().div_ceil(ACK_WINDOW);
        for (w, window) in records.chunks(ACK_WINDOW).enumerate() {
            let mut acks = Vec::with_capacity(window.len());
            for (i, record) in window.iter().enumerate() {
                let index = w * ACK_WINDOW + i;
                let mut headers = HeaderMap::new();
                headers.insert("Nats-Msg-Id", ids[index].as_str());
                headers.insert("Sluice-Destination", self.destination.as_str());
                let subject = self.settings.subject(&record.topic);
                let sent = context
                    .publish_with_headers(subject.clone(), headers, record.payload.clone().into())
                    .await;
                match sent {
                    Ok(ack) => acks.push(ack),
                    Err(e) => return Err(record_failed(&broker, records, index, &subject, e)),
                }
            }
            if w + 1 == windows {
                return Ok((w * ACK_WINDOW, acks));
            }
            for (i, ack) in acks.into_iter().enumerate() {
                let index = w * ACK_WINDOW + i;
                if let Err(e) = ack.await {
                    let subject = self.settings.subject(&records[index].topic);
                    return Err(record_failed(&broker, records, index, &subject, e));
                }
            }
        }
        Ok((records.len(), Vec::new()))
    }
}

/// The publish error of record `index`, which JetStream did not take.
fn record_failed(
    broker: &str,
    records: &[MqMessage],
    index: usize,
    subject: &str,
    error: jetstream::context::PublishError,
) -> PublishError {
    let record = &records[index];
    let origin = if record.origin.is_empty() {
        "a batch"
    } else {
        &record.origin
    };
    if error.kind() == PublishErrorKind::MaxPayloadExceeded {
        return PublishError::TooLarge {
            broker: BROKER,
            origin: origin.to_string(),
            bytes: record.payload.len(),
            message: format!("{error} (max_payload of {broker})"),
        };
    }
    let hint = if error.kind() == PublishErrorKind::StreamNotFound {
        "; no stream takes this subject: the stream's subjects must include it"
    } else {
        ""
    };
    PublishError::Retriable {
        broker: BROKER,
        message: format!(
            "{broker}: record {} of {} ({origin}) to subject {subject:?} not acked: {error}{hint}",
            index + 1,
            records.len(),
        ),
    }
}

impl Publisher for NatsPublisher {
    fn send(
        &mut self,
        records: Arc<[MqMessage]>,
    ) -> BoxFuture<'_, Result<Confirmation, PublishError>> {
        Box::pin(self.send_records(records))
    }

    fn uses_entries_keys(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(text: &str) -> Result<NatsSettings, ConfigError> {
        NatsSettings::from_properties(&Properties::parse(text))
    }

    fn record(topic: &str, entries_key: &str) -> MqMessage {
        MqMessage {
            topic: topic.into(),
            partition: None,
            key: None,
            payload: b"{}".to_vec(),
            origin: String::new(),
            rows: 1,
            entries_key: entries_key.into(),
        }
    }

    #[test]
    fn defaults_and_keys() {
        let s = settings("").unwrap();
        assert_eq!(s.url, DEFAULT_URL);
        assert_eq!(
            (s.stream.as_str(), s.subject_prefix.as_str()),
            ("sluice", "sluice")
        );
        assert_eq!((s.user.as_ref(), s.password.as_ref()), (None, None));
        let s = settings(
            "sluice.mq.nats.url = nats://a:4222,nats://b:4222\n\
             sluice.mq.nats.stream = CDC\n\
             sluice.mq.nats.subjectPrefix = cdc.mysql\n\
             sluice.mq.nats.user = canal\n\
             sluice.mq.nats.password = s3cret\n",
        )
        .unwrap();
        assert_eq!(s.stream, "CDC");
        assert_eq!(s.subject("shop_orders"), "cdc.mysql.shop_orders");
        assert!(!format!("{s:?}").contains("s3cret"));
    }

    #[test]
    fn bad_values_name_line_and_key() {
        for (text, key) in [
            ("sluice.mq.nats.stream = a.b\n", "sluice.mq.nats.stream"),
            (
                "sluice.mq.nats.subjectPrefix = a..b\n",
                "sluice.mq.nats.subjectPrefix",
            ),
            (
                "sluice.mq.nats.subjectPrefix = a.>\n",
                "sluice.mq.nats.subjectPrefix",
            ),
            (
                "sluice.mq.nats.url = nats://h:notaport\n",
                "sluice.mq.nats.url",
            ),
        ] {
            let err = settings(text).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("canal.properties:1: {key}")),
                "{err}"
            );
        }
        let err = settings("sluice.mq.nats.user = u\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("sluice.mq.nats.password is required"), "{err}");
    }

    #[test]
    fn topics_become_one_token() {
        let s = settings("").unwrap();
        assert_eq!(s.subject("shop.orders"), "sluice.shop_orders");
        assert_eq!(s.subject("a b*c>"), "sluice.a_b_c_");
        assert_eq!(s.subject(""), "sluice._");
    }

    #[test]
    fn message_ids_are_stable_and_distinct() {
        let batch = [
            record("t", "f:4#1"),
            record("t", "f:9#2"),
            record("u", "f:9#2"),
            record("t", "f:20#3"),
        ];
        let ids = message_ids("example", &batch);
        assert_eq!(
            ids,
            [
                "example:f:4#1:0",
                "example:f:9#2:0",
                "example:f:9#2:1",
                "example:f:20#3:0"
            ]
        );
        // The same records in a later batch, cut elsewhere: the same ids.
        assert_eq!(message_ids("example", &batch[1..3]), ids[1..3]);
    }
}
