//! RabbitMQ mode (`canal.serverMode = rabbitMQ`): Canal's `rabbitmq.*` keys
//! and a publisher that sends each record as Canal's `CanalRabbitMQProducer`
//! does — `basicPublish(rabbitmq.exchange, routing key = topic,
//! PERSISTENT_TEXT_PLAIN, payload)` — but with publisher confirms, so a batch
//! is acked only once the broker has taken every record of it.
//!
//! At connect time the publisher declares `rabbitmq.queue` (durable) and,
//! when exchange, queue, routing key and delivery mode are all set, declares
//! the exchange with `rabbitmq.deliveryMode` as its *type* (Canal's naming:
//! `direct`, `fanout`, `topic`, `headers`) and binds the queue to it with
//! `rabbitmq.routingKey`.
//!
//! Records are published `mandatory`, so one no queue receives (an exchange
//! without a matching binding) comes back as an error instead of being
//! dropped by the broker; `sluice.rabbitmq.mandatory = false` restores
//! Canal's fire-and-forget routing.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use lapin::message::BasicReturnMessage;
use lapin::options::{
    BasicPublishOptions, ConfirmSelectOptions, ExchangeDeclareOptions, QueueBindOptions,
    QueueDeclareOptions,
};
use lapin::protocol::{AMQPErrorKind, AMQPSoftError};
use lapin::types::{FieldTable, ShortString};
use lapin::uri::{AMQPAuthority, AMQPQueryString, AMQPScheme, AMQPUri, AMQPUserInfo};
use lapin::{
    BasicProperties, Channel, Confirmation, Connection, ConnectionProperties, ErrorKind,
    ExchangeKind, PublisherConfirm,
};
use sluice_config::{ConfigError, Properties, Property};
use sluice_encode::mq::MqMessage;
use tokio::task::JoinHandle;

use crate::{BoxFuture, Confirmation as BatchConfirmation, PublishError, Publisher};

/// The broker name in errors.
const BROKER: &str = "RabbitMQ";

/// AMQP's port when `rabbitmq.host` has none.
pub const DEFAULT_PORT: u16 = 5672;

/// The default of `sluice.rabbitmq.confirmTimeout`.
pub const DEFAULT_CONFIRM_TIMEOUT: Duration = Duration::from_secs(30);

/// How long connecting (TCP, AMQP handshake, declarations) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// How long closing a connection we give up on may take.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);

/// Sends of a batch in flight at once (each window's sends are polled
/// together, so a larger one costs more polling than it saves).
const SEND_WINDOW: usize = 256;

/// The longest AMQP short string (exchange, queue and routing key names).
const MAX_NAME_BYTES: usize = 255;

/// The text of RabbitMQ's PRECONDITION_FAILED for an oversized message:
/// "message size 2000000 is larger than configured max size 1048576".
const TOO_LARGE_TEXT: &str = "larger than configured max size";

/// The `rabbitmq.*` settings of `canal.properties` (and two of Sluice's own).
#[derive(Clone, PartialEq, Eq)]
pub struct RabbitSettings {
    /// `rabbitmq.host`: `host` or `host:port` (`[v6]:port` too); the old
    /// key `canal.mq.servers` is read when it is not set, as are
    /// `canal.mq.vhost`, `.exchange`, `.username` and `.password` for the
    /// keys below (Canal 1.1.4's; see `sluice_config::OLD_RABBITMQ_KEYS`).
    pub host: String,
    /// The port of `rabbitmq.host` (default 5672).
    pub port: u16,
    /// `rabbitmq.virtual.host` (default `/`).
    pub virtual_host: String,
    /// `rabbitmq.exchange`: where records go (empty: the default exchange,
    /// which routes to the queue named by the routing key).
    pub exchange: String,
    /// `rabbitmq.username` (default `guest`, as the Java client's).
    pub username: String,
    /// `rabbitmq.password` (default `guest`).
    pub password: String,
    /// `rabbitmq.queue`: declared durable at connect time when set.
    pub queue: String,
    /// `rabbitmq.routingKey`: the key the queue is bound to the exchange with.
    pub routing_key: String,
    /// `rabbitmq.deliveryMode`: despite its name, the type of the exchange
    /// declared (`direct`, `fanout`, `topic`, `headers` or a plugin's type).
    pub delivery_mode: String,
    /// `sluice.rabbitmq.mandatory` (default true): a record no queue
    /// receives fails the batch instead of vanishing.
    pub mandatory: bool,
    /// `sluice.rabbitmq.confirmTimeout` (ms, default 30000): how long a
    /// batch may wait for its confirms before it counts as failed.
    pub confirm_timeout: Duration,
}

impl std::fmt::Debug for RabbitSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RabbitSettings")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("virtual_host", &self.virtual_host)
            .field("exchange", &self.exchange)
            .field("username", &self.username)
            .field("password", &"***")
            .field("queue", &self.queue)
            .field("routing_key", &self.routing_key)
            .field("delivery_mode", &self.delivery_mode)
            .field("mandatory", &self.mandatory)
            .field("confirm_timeout", &self.confirm_timeout)
            .finish()
    }
}

impl RabbitSettings {
    /// Reads the settings from the properties of `canal.properties`
    /// (`ServerConfig::raw`); errors name that file, the line and the key.
    pub fn from_properties(props: &Properties) -> Result<RabbitSettings, ConfigError> {
        Self::from_properties_at(Path::new("canal.properties"), props)
    }

    /// [`from_properties`](Self::from_properties) for properties read from `path`.
    pub fn from_properties_at(
        path: &Path,
        props: &Properties,
    ) -> Result<RabbitSettings, ConfigError> {
        let r = Reader { path, props };
        let Some((host_key, host_prop)) = r.get("rabbitmq.host") else {
            return Err(ConfigError::Missing {
                path: path.to_path_buf(),
                key: "rabbitmq.host".into(),
                hint: "canal.serverMode = rabbitMQ needs the broker's host or host:port".into(),
            });
        };
        let (host, port) = split_host_port(host_prop.value.trim())
            .map_err(|expected| r.bad(host_key, host_prop, expected))?;
        let settings = RabbitSettings {
            host,
            port,
            virtual_host: r.string("rabbitmq.virtual.host", "/"),
            exchange: r.name("rabbitmq.exchange")?,
            username: r.string("rabbitmq.username", "guest"),
            password: r.string("rabbitmq.password", "guest"),
            queue: r.name("rabbitmq.queue")?,
            routing_key: r.name("rabbitmq.routingKey")?,
            delivery_mode: r.name("rabbitmq.deliveryMode")?,
            mandatory: r.bool("sluice.rabbitmq.mandatory", true)?,
            confirm_timeout: r.millis("sluice.rabbitmq.confirmTimeout", DEFAULT_CONFIRM_TIMEOUT)?,
        };
        Ok(settings)
    }

    /// Whether Canal's exchange set-up applies: exchange, queue, routing key
    /// and delivery mode all set.
    pub fn declares_exchange(&self) -> bool {
        !self.exchange.is_empty()
            && !self.queue.is_empty()
            && !self.routing_key.is_empty()
            && !self.delivery_mode.is_empty()
    }

    /// `host:port vhost V`, for errors and logs.
    pub fn describe(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        format!("{host}:{} (vhost {:?})", self.port, self.virtual_host)
    }

    fn uri(&self) -> AMQPUri {
        AMQPUri {
            scheme: AMQPScheme::AMQP,
            authority: AMQPAuthority {
                userinfo: AMQPUserInfo {
                    username: self.username.clone(),
                    password: self.password.clone(),
                },
                host: self.host.clone(),
                port: self.port,
            },
            vhost: self.virtual_host.clone(),
            query: AMQPQueryString {
                connection_timeout: Some(CONNECT_TIMEOUT.as_millis() as u64),
                ..AMQPQueryString::default()
            },
        }
    }
}

/// Reads keys of one properties file, with errors that locate them.
struct Reader<'a> {
    path: &'a Path,
    props: &'a Properties,
}

impl Reader<'_> {
    /// The property when it is set to something other than blanks (Canal
    /// treats empty values as unset), or the one of the Canal 1.1.4 key
    /// it replaced (`canal.mq.vhost` for `rabbitmq.virtual.host`, ...);
    /// with the key it was read from.
    fn get<'k>(&'k self, key: &'k str) -> Option<(&'k str, &'k Property)> {
        sluice_config::rabbitmq_property(self.props, key)
    }

    fn string(&self, key: &str, default: &str) -> String {
        self.get(key)
            .map_or_else(|| default.to_string(), |(_, p)| p.value.trim().to_string())
    }

    /// An exchange, queue, routing key or type name: at most 255 bytes.
    fn name(&self, key: &str) -> Result<String, ConfigError> {
        match self.get(key) {
            Some((k, p)) if p.value.trim().len() > MAX_NAME_BYTES => {
                Err(self.bad(k, p, "expected at most 255 bytes (AMQP's limit for names)"))
            }
            Some((_, p)) => Ok(p.value.trim().to_string()),
            None => Ok(String::new()),
        }
    }

    fn bool(&self, key: &str, default: bool) -> Result<bool, ConfigError> {
        match self.get(key) {
            None => Ok(default),
            Some((_, p)) => match p.value.trim() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(self.bad(key, p, "expected true or false")),
            },
        }
    }

    fn millis(&self, key: &str, default: Duration) -> Result<Duration, ConfigError> {
        match self.get(key) {
            None => Ok(default),
            Some((_, p)) => match p.value.trim().parse::<u64>() {
                Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
                _ => Err(self.bad(key, p, "expected a positive number of milliseconds")),
            },
        }
    }

    fn bad(&self, key: &str, p: &Property, expected: &str) -> ConfigError {
        ConfigError::BadValue {
            path: PathBuf::from(self.path),
            line: p.line,
            key: key.to_string(),
            value: p.value.clone(),
            expected: expected.to_string(),
        }
    }
}

/// `host`, `host:port` or `[v6-address]:port`.
fn split_host_port(text: &str) -> Result<(String, u16), &'static str> {
    const EXPECTED: &str = "expected host or host:port (port 1-65535)";
    let parse_port = |p: &str| match p.parse::<u16>() {
        Ok(port) if port > 0 => Ok(port),
        _ => Err(EXPECTED),
    };
    if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']').ok_or(EXPECTED)?;
        if host.is_empty() {
            return Err(EXPECTED);
        }
        return match after {
            "" => Ok((host.to_string(), DEFAULT_PORT)),
            _ => Ok((
                host.to_string(),
                parse_port(after.strip_prefix(':').ok_or(EXPECTED)?)?,
            )),
        };
    }
    let (host, port) = match text.split_once(':') {
        None => (text, DEFAULT_PORT),
        Some((host, port)) => (host, parse_port(port)?),
    };
    if host.is_empty() || host.contains([',', ' ', '/']) {
        return Err(EXPECTED);
    }
    Ok((host.to_string(), port))
}

/// Publishes records to RabbitMQ with publisher confirms.
///
/// After any failure the connection is dropped; the next
/// [`publish`](Publisher::publish) connects again (and declares again, which
/// is a no-op when nothing changed), so a broker restart costs one failed
/// batch, which the worker sends again.
pub struct RabbitPublisher {
    settings: RabbitSettings,
    session: Option<ConfirmChannel>,
    /// The connection [`start`](Self::start) is making in the background.
    opening: Option<JoinHandle<Result<ConfirmChannel, PublishError>>>,
}

impl std::fmt::Debug for RabbitPublisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RabbitPublisher")
            .field("broker", &self.settings.describe())
            .field("connected", &self.is_connected())
            .finish()
    }
}

/// One connection and its confirm-mode channel.
struct ConfirmChannel {
    connection: Connection,
    channel: Channel,
}

impl RabbitPublisher {
    /// Connects, declares the queue (and Canal's exchange and binding) and
    /// turns publisher confirms on. Fails when the broker cannot be reached
    /// or refuses the login or a declaration.
    pub async fn connect(settings: RabbitSettings) -> Result<RabbitPublisher, PublishError> {
        let session = ConfirmChannel::open(&settings).await?;
        Ok(RabbitPublisher {
            settings,
            session: Some(session),
            opening: None,
        })
    }

    /// A publisher that starts connecting (and declaring, as Canal does at
    /// start-up, so consumers find the queue before the first change) in
    /// the background of the current Tokio runtime; the first publish waits
    /// for it. A failed start is logged, and the first publish tries again.
    /// Outside a runtime it is [`lazy`](Self::lazy).
    pub fn start(settings: RabbitSettings) -> RabbitPublisher {
        let opening = tokio::runtime::Handle::try_current().ok().map(|runtime| {
            let settings = settings.clone();
            runtime.spawn(async move {
                let opened = ConfirmChannel::open(&settings).await;
                if let Err(e) = &opened {
                    tracing::warn!(error = %e, "cannot connect to RabbitMQ yet; the first publish tries again");
                }
                opened
            })
        });
        RabbitPublisher {
            settings,
            session: None,
            opening,
        }
    }

    /// A publisher that connects on its first publish.
    pub fn lazy(settings: RabbitSettings) -> RabbitPublisher {
        RabbitPublisher {
            settings,
            session: None,
            opening: None,
        }
    }

    /// The settings it connects with.
    pub fn settings(&self) -> &RabbitSettings {
        &self.settings
    }

    /// Whether the connection and channel are open now (false while
    /// [`start`](Self::start) is still connecting).
    pub fn is_connected(&self) -> bool {
        self.session.as_ref().is_some_and(ConfirmChannel::usable)
    }

    /// Closes the connection (waiting at most 2 s for the broker).
    pub async fn close(&mut self) {
        self.finish_opening().await;
        if let Some(session) = self.session.take() {
            session.close().await;
        }
    }

    /// Waits for the background connection of [`start`](Self::start), if any.
    async fn finish_opening(&mut self) {
        if let Some(opening) = self.opening.take() {
            if let Ok(Ok(session)) = opening.await {
                self.session = Some(session);
            }
        }
    }

    /// Sends every record on the channel (opened again if it was lost) and
    /// returns the confirmation of all of them: it fails when the broker
    /// refuses one, returns one (`mandatory`) or does not confirm them
    /// within `sluice.rabbitmq.confirmTimeout`, and then closes the channel
    /// so the next send connects again.
    async fn send_records(
        &mut self,
        records: Arc<[MqMessage]>,
    ) -> Result<BatchConfirmation, PublishError> {
        if records.is_empty() {
            return Ok(crate::confirmed());
        }
        self.finish_opening().await;
        let session = match self.session.take() {
            Some(s) if s.usable() => s,
            stale => {
                if let Some(s) = stale {
                    tracing::info!(broker = %self.settings.describe(), "RabbitMQ connection lost; connecting again");
                    s.close().await;
                }
                ConfirmChannel::open(&self.settings).await?
            }
        };
        let settings = self.settings.clone();
        let sent =
            tokio::time::timeout(settings.confirm_timeout, session.send(&settings, &records)).await;
        let confirms = match sent {
            Ok(Ok(confirms)) => confirms,
            Ok(Err(e)) => {
                session.close().await;
                return Err(e);
            }
            Err(_) => {
                session.close().await;
                return Err(unconfirmed(&settings, records.len()));
            }
        };
        let channel = session.channel.clone();
        self.session = Some(session);
        Ok(Box::pin(async move {
            let confirmed = tokio::time::timeout(
                settings.confirm_timeout,
                confirm_all(&settings, &records, confirms),
            )
            .await
            .unwrap_or_else(|_| Err(unconfirmed(&settings, records.len())));
            if confirmed.is_err() {
                // The next send sees a closed channel and connects again.
                let _ = tokio::time::timeout(
                    CLOSE_TIMEOUT,
                    channel.close(200, ShortString::from("a batch failed")),
                )
                .await;
            }
            confirmed
        }))
    }
}

/// A batch whose confirms did not all come in time.
fn unconfirmed(settings: &RabbitSettings, records: usize) -> PublishError {
    PublishError::Retriable {
        broker: BROKER,
        message: format!(
            "{}: {records} records not all confirmed within {:?} \
             (sluice.rabbitmq.confirmTimeout)",
            settings.describe(),
            settings.confirm_timeout
        ),
    }
}

impl Drop for RabbitPublisher {
    fn drop(&mut self) {
        if let Some(opening) = self.opening.take() {
            opening.abort();
        }
    }
}

impl Publisher for RabbitPublisher {
    fn send(
        &mut self,
        records: Arc<[MqMessage]>,
    ) -> BoxFuture<'_, Result<BatchConfirmation, PublishError>> {
        Box::pin(self.send_records(records))
    }
}

impl ConfirmChannel {
    async fn open(settings: &RabbitSettings) -> Result<ConfirmChannel, PublishError> {
        match tokio::time::timeout(CONNECT_TIMEOUT, Self::open_inner(settings)).await {
            Ok(result) => result,
            Err(_) => Err(retriable(
                settings,
                format!("connecting took longer than {CONNECT_TIMEOUT:?}"),
            )),
        }
    }

    async fn open_inner(settings: &RabbitSettings) -> Result<ConfirmChannel, PublishError> {
        let connection = Connection::connect_uri(settings.uri(), ConnectionProperties::default())
            .await
            .map_err(|e| {
                retriable(
                    settings,
                    format!("cannot connect as {:?}: {e}", settings.username),
                )
            })?;
        let session = match Self::prepare(settings, &connection).await {
            Ok(channel) => ConfirmChannel {
                connection,
                channel,
            },
            Err(e) => {
                let _ = tokio::time::timeout(
                    CLOSE_TIMEOUT,
                    connection.close(200, ShortString::from("set-up failed")),
                )
                .await;
                return Err(e);
            }
        };
        tracing::info!(broker = %settings.describe(), exchange = %settings.exchange, queue = %settings.queue, "connected to RabbitMQ");
        Ok(session)
    }

    /// Opens the channel, declares what Canal declares and turns confirms on.
    async fn prepare(
        settings: &RabbitSettings,
        connection: &Connection,
    ) -> Result<Channel, PublishError> {
        let step =
            |what: String| move |e: lapin::Error| retriable(settings, format!("{what}: {e}"));
        let channel = connection
            .create_channel()
            .await
            .map_err(step("opening a channel".into()))?;
        if !settings.queue.is_empty() {
            channel
                .queue_declare(
                    short(settings, &settings.queue)?,
                    QueueDeclareOptions {
                        durable: true,
                        ..QueueDeclareOptions::default()
                    },
                    FieldTable::default(),
                )
                .await
                .map_err(step(format!(
                    "declaring queue {:?} (rabbitmq.queue)",
                    settings.queue
                )))?;
        }
        if settings.declares_exchange() {
            channel
                .exchange_declare(
                    short(settings, &settings.exchange)?,
                    exchange_kind(&settings.delivery_mode),
                    ExchangeDeclareOptions {
                        durable: true,
                        ..ExchangeDeclareOptions::default()
                    },
                    FieldTable::default(),
                )
                .await
                .map_err(step(format!(
                    "declaring exchange {:?} of type {:?} (rabbitmq.exchange, rabbitmq.deliveryMode)",
                    settings.exchange, settings.delivery_mode
                )))?;
            channel
                .queue_bind(
                    short(settings, &settings.queue)?,
                    short(settings, &settings.exchange)?,
                    short(settings, &settings.routing_key)?,
                    QueueBindOptions::default(),
                    FieldTable::default(),
                )
                .await
                .map_err(step(format!(
                    "binding queue {:?} to exchange {:?} with routing key {:?}",
                    settings.queue, settings.exchange, settings.routing_key
                )))?;
        }
        channel
            .confirm_select(ConfirmSelectOptions::default())
            .await
            .map_err(step("turning publisher confirms on".into()))?;
        Ok(channel)
    }

    fn usable(&self) -> bool {
        self.connection.status().connected() && self.channel.status().connected()
    }

    async fn close(self) {
        if self.connection.status().connected() {
            let _ = tokio::time::timeout(
                CLOSE_TIMEOUT,
                self.connection.close(200, ShortString::from("closing")),
            )
            .await;
        }
    }

    /// Sends every record in order; returns their confirms. When a send
    /// fails, the confirms of what was sent come first: when the broker
    /// closed the channel, they carry its reason; a later send only saw a
    /// closed channel.
    async fn send(
        &self,
        settings: &RabbitSettings,
        records: &[MqMessage],
    ) -> Result<Vec<PublisherConfirm>, PublishError> {
        let exchange = short(settings, &settings.exchange)?;
        let properties = persistent_text_plain();
        let options = BasicPublishOptions {
            mandatory: settings.mandatory,
            immediate: false,
        };
        let mut routing_keys = Vec::with_capacity(records.len());
        for record in records {
            let Ok(key) = ShortString::try_new(record.topic.as_str()) else {
                return Err(PublishError::TooLarge {
                    broker: BROKER,
                    origin: record.origin.clone(),
                    bytes: record.payload.len(),
                    message: format!(
                        "its routing key (topic) has {} bytes, AMQP allows 255: {:?}",
                        record.topic.len(),
                        record.topic
                    ),
                });
            };
            routing_keys.push(key);
        }
        // Each send queues its frames on its first poll, and the first
        // polls go in record order; waiting for a window of sends together
        // rather than one by one keeps the connection busy.
        let mut confirms = Vec::with_capacity(records.len());
        let mut keys = routing_keys.into_iter();
        for (w, window) in records.chunks(SEND_WINDOW).enumerate() {
            let sends: Vec<_> = window
                .iter()
                .zip(keys.by_ref())
                .map(|(record, routing_key)| {
                    Box::pin(self.channel.basic_publish(
                        exchange.clone(),
                        routing_key,
                        options,
                        &record.payload,
                        properties.clone(),
                    ))
                })
                .collect();
            for (i, sent) in join_in_order(sends).await.into_iter().enumerate() {
                match sent {
                    Ok(confirm) => confirms.push(confirm),
                    Err(e) => {
                        let index = w * SEND_WINDOW + i;
                        let send_error = classify(settings, records, index, &e);
                        return Err(match confirm_all(settings, records, confirms).await {
                            Err(earlier) => earlier,
                            Ok(()) => send_error,
                        });
                    }
                }
            }
        }
        Ok(confirms)
    }
}

/// Waits for the confirms of `records` (the first `confirms.len()` of
/// them), in order.
async fn confirm_all(
    settings: &RabbitSettings,
    records: &[MqMessage],
    confirms: Vec<PublisherConfirm>,
) -> Result<(), PublishError> {
    for (i, confirm) in confirms.into_iter().enumerate() {
        let record = &records[i];
        match confirm.await {
            Ok(Confirmation::Ack(None)) => {}
            Ok(Confirmation::Ack(Some(returned))) => {
                return Err(returned_error(settings, record, &returned));
            }
            Ok(Confirmation::Nack(_)) => {
                return Err(retriable(
                    settings,
                    format!(
                        "the broker refused record {} of {} ({}, routing key {:?}): nack",
                        i + 1,
                        records.len(),
                        origin(record),
                        record.topic
                    ),
                ));
            }
            Ok(Confirmation::NotRequested) => {
                return Err(retriable(
                    settings,
                    "the channel is not in confirm mode".to_string(),
                ));
            }
            Err(e) => return Err(classify(settings, records, i, &e)),
        }
    }
    Ok(())
}

/// Runs `futures` together and returns their outputs in order; the first
/// poll of each comes in order too.
async fn join_in_order<F: Future + Unpin>(mut futures: Vec<F>) -> Vec<F::Output> {
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match Pin::new(future).poll(cx) {
                    Poll::Ready(value) => *output = Some(value),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

/// Canal's `MessageProperties.PERSISTENT_TEXT_PLAIN`.
fn persistent_text_plain() -> BasicProperties {
    BasicProperties::default()
        .with_content_type(ShortString::from("text/plain"))
        .with_delivery_mode(2)
        .with_priority(0)
}

/// The exchange type named by `rabbitmq.deliveryMode`.
fn exchange_kind(name: &str) -> ExchangeKind {
    match name {
        "direct" => ExchangeKind::Direct,
        "fanout" => ExchangeKind::Fanout,
        "topic" => ExchangeKind::Topic,
        "headers" => ExchangeKind::Headers,
        other => ExchangeKind::Custom(other.to_string()),
    }
}

/// An exchange, queue or routing key name as AMQP sends it (at most 255
/// bytes; [`RabbitSettings::from_properties`] checks the configured ones).
fn short(settings: &RabbitSettings, name: &str) -> Result<ShortString, PublishError> {
    ShortString::try_new(name).map_err(|_| {
        retriable(
            settings,
            format!("the name {name:?} is longer than AMQP's 255 bytes"),
        )
    })
}

fn origin(record: &MqMessage) -> &str {
    if record.origin.is_empty() {
        "a batch"
    } else {
        &record.origin
    }
}

fn retriable(settings: &RabbitSettings, message: String) -> PublishError {
    PublishError::Retriable {
        broker: BROKER,
        message: format!("{}: {message}", settings.describe()),
    }
}

fn returned_error(
    settings: &RabbitSettings,
    record: &MqMessage,
    returned: &BasicReturnMessage,
) -> PublishError {
    retriable(
        settings,
        format!(
            "record of {} returned by the broker ({} {}): no queue receives exchange {:?} \
             routing key {:?}; bind one, or set sluice.rabbitmq.mandatory = false to let the \
             broker drop such records",
            origin(record),
            returned.reply_code,
            returned.reply_text,
            settings.exchange,
            record.topic
        ),
    )
}

/// Turns a failed send or confirm of record `index` into a publish error:
/// RabbitMQ's "larger than configured max size" becomes `TooLarge` for the
/// first record over the limit, anything else is retriable.
fn classify(
    settings: &RabbitSettings,
    records: &[MqMessage],
    index: usize,
    error: &lapin::Error,
) -> PublishError {
    if let ErrorKind::ProtocolError(amqp) = error.kind() {
        let text = amqp.get_message().as_str();
        let precondition = matches!(
            amqp.kind(),
            AMQPErrorKind::Soft(AMQPSoftError::PRECONDITIONFAILED)
        );
        if precondition && text.contains(TOO_LARGE_TEXT) {
            let limit = max_size_in(text);
            let record = limit
                .and_then(|max| records.iter().find(|r| r.payload.len() as u64 > max))
                .unwrap_or(&records[index.min(records.len() - 1)]);
            return PublishError::TooLarge {
                broker: BROKER,
                origin: origin(record).to_string(),
                bytes: record.payload.len(),
                message: format!(
                    "{text} (max_message_size of the broker at {})",
                    settings.describe()
                ),
            };
        }
    }
    let record = &records[index.min(records.len() - 1)];
    retriable(
        settings,
        format!(
            "record {} of {} ({}) not confirmed: {error}",
            index + 1,
            records.len(),
            origin(record)
        ),
    )
}

/// The limit in "message size N is larger than configured max size M".
fn max_size_in(text: &str) -> Option<u64> {
    let after = &text[text.find(TOO_LARGE_TEXT)? + TOO_LARGE_TEXT.len()..];
    let digits: String = after
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(text: &str) -> Properties {
        Properties::parse(text)
    }

    #[test]
    fn canal_keys_are_read() {
        let s = RabbitSettings::from_properties(&props(
            "rabbitmq.host = mq.example:5673\n\
             rabbitmq.virtual.host = /canal\n\
             rabbitmq.exchange = canal.ex\n\
             rabbitmq.username = canal\n\
             rabbitmq.password = s3cret\n\
             rabbitmq.queue = canal.q\n\
             rabbitmq.routingKey = example\n\
             rabbitmq.deliveryMode = fanout\n",
        ))
        .unwrap();
        assert_eq!((s.host.as_str(), s.port), ("mq.example", 5673));
        assert_eq!(s.virtual_host, "/canal");
        assert_eq!(s.exchange, "canal.ex");
        assert_eq!(
            (s.username.as_str(), s.password.as_str()),
            ("canal", "s3cret")
        );
        assert_eq!(s.queue, "canal.q");
        assert_eq!(s.routing_key, "example");
        assert_eq!(s.delivery_mode, "fanout");
        assert!(s.declares_exchange());
        assert!(s.mandatory);
        assert_eq!(s.confirm_timeout, DEFAULT_CONFIRM_TIMEOUT);
        assert!(
            !format!("{s:?}").contains("s3cret"),
            "Debug shows the password"
        );
    }

    #[test]
    fn defaults_and_the_old_servers_key() {
        let s = RabbitSettings::from_properties(&props(
            "canal.mq.servers = 10.0.0.7\nrabbitmq.exchange =\n\
             sluice.rabbitmq.mandatory = false\nsluice.rabbitmq.confirmTimeout = 1500\n",
        ))
        .unwrap();
        assert_eq!((s.host.as_str(), s.port), ("10.0.0.7", DEFAULT_PORT));
        assert_eq!(s.virtual_host, "/");
        assert_eq!(
            (s.username.as_str(), s.password.as_str()),
            ("guest", "guest")
        );
        assert_eq!(s.exchange, "");
        assert!(!s.declares_exchange());
        assert!(!s.mandatory);
        assert_eq!(s.confirm_timeout, Duration::from_millis(1500));
    }

    #[test]
    fn canal_1_1_4_keys_are_read_when_the_new_ones_are_not_set() {
        let s = RabbitSettings::from_properties(&props(
            "canal.mq.servers = old:5673\n\
             canal.mq.vhost = /old\n\
             canal.mq.exchange = old.ex\n\
             canal.mq.username = olduser\n\
             canal.mq.password = oldpass\n\
             rabbitmq.exchange = new.ex\n",
        ))
        .unwrap();
        assert_eq!((s.host.as_str(), s.port), ("old", 5673));
        assert_eq!(s.virtual_host, "/old");
        assert_eq!(s.exchange, "new.ex", "the new key wins");
        assert_eq!(
            (s.username.as_str(), s.password.as_str()),
            ("olduser", "oldpass")
        );
        // An error names the key that was read, at its line.
        let long = "x".repeat(256);
        let err = RabbitSettings::from_properties(&props(&format!(
            "rabbitmq.host = h\ncanal.mq.exchange = {long}\n"
        )))
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("canal.properties:2: canal.mq.exchange = "),
            "{err}"
        );
    }

    #[test]
    fn exchange_setup_needs_all_four_keys() {
        let s = RabbitSettings::from_properties(&props(
            "rabbitmq.host = h\nrabbitmq.exchange = e\nrabbitmq.queue = q\nrabbitmq.routingKey = k\n",
        ))
        .unwrap();
        assert!(!s.declares_exchange());
    }

    #[test]
    fn bad_values_name_file_line_and_key() {
        let err = RabbitSettings::from_properties(&props("# broker\nrabbitmq.host = h:70000\n"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("canal.properties:2: rabbitmq.host = \"h:70000\""),
            "{err}"
        );
        let err = RabbitSettings::from_properties(&props("rabbitmq.queue = q\n"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("rabbitmq.host is required"), "{err}");
        let long = "q".repeat(256);
        let err = RabbitSettings::from_properties_at(
            Path::new("/etc/canal/canal.properties"),
            &props(&format!("rabbitmq.host = h\nrabbitmq.queue = {long}\n")),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("/etc/canal/canal.properties:2: rabbitmq.queue"),
            "{err}"
        );
        let err = RabbitSettings::from_properties(&props(
            "rabbitmq.host = h\nsluice.rabbitmq.mandatory = yes\n",
        ))
        .unwrap_err()
        .to_string();
        assert!(err.contains("sluice.rabbitmq.mandatory"), "{err}");
    }

    #[test]
    fn host_forms() {
        assert_eq!(split_host_port("h"), Ok(("h".into(), 5672)));
        assert_eq!(split_host_port("h:1"), Ok(("h".into(), 1)));
        assert_eq!(split_host_port("[::1]:5673"), Ok(("::1".into(), 5673)));
        assert_eq!(split_host_port("[::1]"), Ok(("::1".into(), 5672)));
        for bad in ["h:", "h:0", "h:x", ":5672", "a,b", "[::1", "[]:1", "[::1]x"] {
            assert!(split_host_port(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn max_size_from_the_broker_text() {
        assert_eq!(
            max_size_in("PRECONDITION_FAILED - message size 2000000 is larger than configured max size 1048576"),
            Some(1048576)
        );
        assert_eq!(max_size_in("NOT_FOUND - no exchange"), None);
    }

    #[test]
    fn exchange_types() {
        assert_eq!(exchange_kind("topic"), ExchangeKind::Topic);
        assert_eq!(
            exchange_kind("x-delayed-message"),
            ExchangeKind::Custom("x-delayed-message".into())
        );
    }
}
