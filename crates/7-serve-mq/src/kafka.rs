//! Publishing to Kafka (`canal.serverMode = kafka`) with librdkafka.
//!
//! The producer is idempotent with `acks=all`, so the up to 5 requests in
//! flight per connection that idempotence allows keep each partition's
//! order even when the client retries; Canal, without idempotence, forces
//! one. Every `kafka.*` key of `canal.properties` is handed to the client
//! with the prefix stripped, after translating the Java client's names
//! that librdkafka spells differently; Canal's old `canal.mq.*` producer
//! keys are read too (a `kafka.*` key wins over its old form).
//!
//! Records go to the partition the router chose, with their key when they
//! have one. [`KafkaPublisher::publish`] enqueues every record, then waits
//! for every delivery report: it returns `Ok` only once the broker has
//! acknowledged all of them.
//!
//! A topic is checked (metadata) before its first record; a missing one is
//! created when `sluice.mq.kafka.createTopics` (default true) allows, with
//! `canal.mq.partitionsNum` partitions (or more if a record needs them).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{FutureProducer, FutureRecord, Producer};
use sluice_encode::mq::MqMessage;

use crate::{BoxFuture, Confirmation, PublishError, Publisher};

const BROKER: &str = "kafka";

/// How long a metadata request or a topic creation may take.
const METADATA_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a created topic may take to show in the metadata.
const TOPIC_VISIBLE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a record may wait for its acknowledgement before its batch
/// fails and is sent again by a new producer, unless
/// `kafka.delivery.timeout.ms` (or `message.timeout.ms`) says otherwise.
const DEFAULT_DELIVERY_TIMEOUT_MS: u64 = 30_000;

/// `linger.ms` unless set: the value in Canal's shipped canal.properties.
const DEFAULT_LINGER_MS: &str = "1";

/// Most requests in flight per connection that idempotence allows while
/// keeping order.
const MAX_IN_FLIGHT_IDEMPOTENT: u32 = 5;

/// Canal's old producer keys (before 1.1.5) and the `kafka.*` key each one
/// stands for.
const LEGACY_KEYS: &[(&str, &str)] = &[
    ("canal.mq.servers", "bootstrap.servers"),
    ("canal.mq.acks", "acks"),
    ("canal.mq.compressionType", "compression.type"),
    ("canal.mq.retries", "retries"),
    ("canal.mq.batchSize", "batch.size"),
    ("canal.mq.lingerMs", "linger.ms"),
    ("canal.mq.maxRequestSize", "max.request.size"),
    ("canal.mq.bufferMemory", "buffer.memory"),
    ("canal.mq.kafka.kerberos.enable", "kerberos.enable"),
    ("canal.mq.kafka.kerberos.krb5FilePath", "kerberos.krb5.file"),
    ("canal.mq.kafka.kerberos.jaasFilePath", "kerberos.jaas.file"),
];

/// Java producer settings that mean nothing to librdkafka (classes,
/// blocking of the Java `send`): ignored with a warning.
const JAVA_ONLY_KEYS: &[&str] = &[
    "key.serializer",
    "value.serializer",
    "partitioner.class",
    "interceptor.classes",
    "max.block.ms",
    "metric.reporters",
    "client.dns.lookup",
];

/// A configuration librdkafka cannot be given.
#[derive(Debug, thiserror::Error)]
pub enum KafkaConfigError {
    #[error("canal.properties: {key} = {value:?}: {reason}")]
    Invalid {
        key: String,
        value: String,
        reason: String,
    },
    #[error("canal.properties: kafka.bootstrap.servers (or the old canal.mq.servers) is not set: name the Kafka brokers, e.g. kafka.bootstrap.servers = 127.0.0.1:9092")]
    NoServers,
    #[error("the Kafka client refuses the configuration from canal.properties (kafka.*): {0}")]
    Client(#[source] KafkaError),
}

/// The Kafka settings of a server, from `canal.properties`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KafkaSettings {
    /// librdkafka properties, in the order they were set.
    pub client: Vec<(String, String)>,
    /// `sluice.mq.kafka.createTopics` (default true): create a missing topic.
    pub create_topics: bool,
    /// `sluice.mq.kafka.replicationFactor` (default -1: the broker's
    /// default) for the topics created.
    pub replication_factor: i32,
    /// Settings ignored or changed, for the log.
    pub warnings: Vec<String>,
}

impl KafkaSettings {
    /// Reads the Kafka settings from the properties of `canal.properties`
    /// (key, value), in file order.
    pub fn from_properties<'a>(
        properties: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<KafkaSettings, KafkaConfigError> {
        let mut java: Vec<(String, String)> = Vec::new();
        let mut legacy: Vec<(String, String)> = Vec::new();
        let mut create_topics = true;
        let mut replication_factor = -1;
        for (key, value) in properties {
            let value = value.trim();
            if let Some(k) = key.strip_prefix("kafka.") {
                set(&mut java, k, value);
            } else if let Some((_, k)) = LEGACY_KEYS.iter().find(|(old, _)| *old == key) {
                set(&mut legacy, k, value);
            } else if key == "sluice.mq.kafka.createTopics" {
                create_topics = parse_bool(key, value)?;
            } else if key == "sluice.mq.kafka.replicationFactor" {
                replication_factor = value.parse().map_err(|_| KafkaConfigError::Invalid {
                    key: key.into(),
                    value: value.into(),
                    reason: "expected a whole number (-1: the broker's default)".into(),
                })?;
            }
        }
        for (k, v) in legacy {
            if !java.iter().any(|(j, _)| *j == k) {
                java.push((k, v));
            }
        }
        let mut settings = KafkaSettings {
            client: Vec::new(),
            create_topics,
            replication_factor,
            warnings: Vec::new(),
        };
        settings.translate(java)?;
        Ok(settings)
    }

    /// Turns the Java producer's settings into librdkafka's and applies
    /// what ordering and confirmation need.
    fn translate(&mut self, java: Vec<(String, String)>) -> Result<(), KafkaConfigError> {
        let get = |k: &str| java.iter().find(|(j, _)| j == k).map(|(_, v)| v.as_str());
        let idempotent = match get("enable.idempotence") {
            Some(v) => parse_bool("kafka.enable.idempotence", v)?,
            None => true,
        };
        let kerberos = match get("kerberos.enable") {
            Some(v) => parse_bool("kafka.kerberos.enable", v)?,
            None => false,
        };
        for (key, value) in &java {
            self.translate_setting(key, value, idempotent)?;
        }
        if !self.client.iter().any(|(k, _)| k == "bootstrap.servers") {
            return Err(KafkaConfigError::NoServers);
        }
        self.complete(idempotent, kerberos);
        Ok(())
    }

    /// One Java producer setting as librdkafka's: renamed, converted,
    /// adjusted for ordering, or left out with a warning.
    fn translate_setting(
        &mut self,
        key: &str,
        value: &str,
        idempotent: bool,
    ) -> Result<(), KafkaConfigError> {
        match key {
        "enable.idempotence" | "kerberos.enable" => {}
        "max.request.size" => self.put("message.max.bytes", value),
        "buffer.memory" => {
            let bytes: u64 = value.parse().map_err(|_| KafkaConfigError::Invalid {
                key: "kafka.buffer.memory".into(),
                value: value.to_string(),
                reason: "expected a number of bytes".into(),
            })?;
            let kbytes = (bytes / 1024).max(1);
            self.put("queue.buffering.max.kbytes", &kbytes.to_string());
        }
        "send.buffer.bytes" => self.put("socket.send.buffer.bytes", value),
        "receive.buffer.bytes" => self.put("socket.receive.buffer.bytes", value),
        "sasl.mechanism" => self.put("sasl.mechanisms", value),
        "sasl.jaas.config" => match jaas_credentials(value) {
            Some((user, password)) => {
                self.put("sasl.username", &user);
                self.put("sasl.password", &password);
            }
            None => self.warnings.push(
                "kafka.sasl.jaas.config names no username and password (a Java login module librdkafka cannot load): ignored; set kafka.sasl.username and kafka.sasl.password, or kafka.sasl.kerberos.keytab and kafka.sasl.kerberos.principal"
                    .into(),
            ),
        },
        "kerberos.krb5.file" => self.warnings.push(format!(
            "kafka.kerberos.krb5.file = {value}: librdkafka reads the Kerberos configuration from KRB5_CONFIG; set that variable for the server"
        )),
        "kerberos.jaas.file" => self.warnings.push(format!(
            "kafka.kerberos.jaas.file = {value}: a Java JAAS file cannot be read here; set kafka.sasl.kerberos.keytab and kafka.sasl.kerberos.principal"
        )),
        "acks" if idempotent => {
            if !matches!(value, "all" | "-1") {
                self.warnings.push(format!(
                    "kafka.acks = {value} replaced by all: the idempotent producer needs every in-sync replica's acknowledgement (set kafka.enable.idempotence = false to choose)"
                ));
            }
        }
        "retries" if idempotent => {
            if value == "0" {
                self.warnings.push(
                    "kafka.retries = 0 ignored: the idempotent producer retries in order by itself (a batch is still sent again when a delivery fails)"
                        .into(),
                );
            } else {
                self.put("retries", value);
            }
        }
        "max.in.flight.requests.per.connection" => {
            let n: u32 = value.parse().map_err(|_| KafkaConfigError::Invalid {
                key: "kafka.max.in.flight.requests.per.connection".into(),
                value: value.to_string(),
                reason: "expected a number".into(),
            })?;
            let limit = if idempotent { MAX_IN_FLIGHT_IDEMPOTENT } else { 1 };
            if n > limit {
                self.warnings.push(format!(
                    "kafka.max.in.flight.requests.per.connection = {n} lowered to {limit}: more would let a retry reorder a partition"
                ));
            }
            self.put(key, &n.min(limit).to_string());
        }
        k if JAVA_ONLY_KEYS.contains(&k) => self.warnings.push(format!(
            "kafka.{k} is a Java client setting with no meaning here: ignored"
        )),
        _ => self.put(key, value),
    }
        Ok(())
    }

    /// What ordering and confirmation need, and the defaults chosen where
    /// the settings are silent.
    fn complete(&mut self, idempotent: bool, kerberos: bool) {
        if !self
            .client
            .iter()
            .any(|(k, _)| k == "delivery.timeout.ms" || k == "message.timeout.ms")
        {
            self.put(
                "delivery.timeout.ms",
                &DEFAULT_DELIVERY_TIMEOUT_MS.to_string(),
            );
        }
        // Canal's shipped canal.properties says `kafka.linger.ms = 1`;
        // librdkafka would wait 5 ms, and each batch waits for its last
        // records' acknowledgements.
        if !self
            .client
            .iter()
            .any(|(k, _)| k == "linger.ms" || k == "queue.buffering.max.ms")
        {
            self.put("linger.ms", DEFAULT_LINGER_MS);
        }
        if kerberos {
            if !self.client.iter().any(|(k, _)| k == "security.protocol") {
                self.put("security.protocol", "SASL_PLAINTEXT");
            }
            self.put("sasl.mechanisms", "GSSAPI");
        }
        self.put(
            "enable.idempotence",
            if idempotent { "true" } else { "false" },
        );
        if idempotent {
            self.put("acks", "all");
        }
        if !self
            .client
            .iter()
            .any(|(k, _)| k == "max.in.flight.requests.per.connection")
        {
            let n = if idempotent {
                MAX_IN_FLIGHT_IDEMPOTENT
            } else {
                1
            };
            self.put("max.in.flight.requests.per.connection", &n.to_string());
        }
    }

    fn put(&mut self, key: &str, value: &str) {
        set(&mut self.client, key, value);
    }

    /// The librdkafka configuration.
    pub fn client_config(&self) -> ClientConfig {
        let mut c = ClientConfig::new();
        for (k, v) in &self.client {
            c.set(k, v);
        }
        c
    }

    /// A setting's value, as librdkafka is given it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.client
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

fn set(list: &mut Vec<(String, String)>, key: &str, value: &str) {
    match list.iter_mut().find(|(k, _)| k == key) {
        Some(entry) => entry.1 = value.to_string(),
        None => list.push((key.to_string(), value.to_string())),
    }
}

fn parse_bool(key: &str, value: &str) -> Result<bool, KafkaConfigError> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(KafkaConfigError::Invalid {
            key: key.into(),
            value: value.into(),
            reason: "expected true or false".into(),
        }),
    }
}

/// `username="…" password="…"` of a Java PLAIN or SCRAM login module line.
fn jaas_credentials(jaas: &str) -> Option<(String, String)> {
    let field = |name: &str| {
        let start = jaas.find(&format!("{name}=\""))? + name.len() + 2;
        let len = jaas[start..].find('"')?;
        Some(jaas[start..start + len].to_string())
    };
    Some((field("username")?, field("password")?))
}

/// Publishes one destination's records to Kafka.
pub struct KafkaPublisher {
    destination: String,
    settings: KafkaSettings,
    /// `canal.mq.partitionsNum`: partitions of a topic this publisher creates.
    partitions_num: u32,
    producer: Option<FutureProducer>,
    /// Partition counts of the topics seen in the metadata.
    topics: HashMap<String, usize>,
    /// How long a flush may wait: the time a record may take to be
    /// acknowledged before it fails.
    delivery_timeout: Duration,
    /// A confirmation failed: the next batch goes through a new producer
    /// (no record or sequence state of the failed attempt, which a broker
    /// that restarted empty knows nothing of, can hold it up) and reads
    /// the topics' metadata again.
    failed: Arc<AtomicBool>,
    /// A flush is under way (see [`flush_in_background`]).
    flushing: Arc<AtomicBool>,
}

impl KafkaPublisher {
    /// A publisher for `destination`; the client is created now, so a
    /// configuration librdkafka refuses fails here.
    pub fn new(
        destination: &str,
        settings: KafkaSettings,
        partitions_num: Option<u32>,
    ) -> Result<KafkaPublisher, KafkaConfigError> {
        let producer = settings
            .client_config()
            .create::<FutureProducer>()
            .map_err(KafkaConfigError::Client)?;
        Ok(KafkaPublisher {
            destination: destination.to_string(),
            partitions_num: partitions_num.unwrap_or(1).max(1),
            producer: Some(producer),
            topics: HashMap::new(),
            delivery_timeout: settings_delivery_timeout(&settings),
            failed: Arc::default(),
            flushing: Arc::default(),
            settings,
        })
    }

    fn retriable(&self, message: String) -> PublishError {
        retriable(&self.destination, message)
    }

    /// The producer, made again after a fatal error of the last one.
    fn producer(&mut self) -> Result<FutureProducer, PublishError> {
        if let Some(p) = &self.producer {
            if let Some((code, reason)) = p.client().fatal_error() {
                tracing::warn!(destination = %self.destination, %code, %reason, "the Kafka producer hit a fatal error; starting a new one");
                self.producer = None;
            }
        }
        if self.producer.is_none() {
            let p = self
                .settings
                .client_config()
                .create::<FutureProducer>()
                .map_err(|e| self.retriable(format!("creating the Kafka producer: {e}")))?;
            self.producer = Some(p);
        }
        self.producer
            .clone()
            .ok_or_else(|| self.retriable("no Kafka producer".into()))
    }

    /// Makes sure `topic` exists with more than `highest` partitions,
    /// creating it when allowed.
    async fn ensure_topic(
        &mut self,
        producer: &FutureProducer,
        topic: &str,
        highest: i32,
    ) -> Result<(), PublishError> {
        let needed = usize::try_from(highest).unwrap_or(0) + 1;
        if self.topics.get(topic).is_some_and(|&n| n >= needed) {
            return Ok(());
        }
        let partitions = match topic_partitions(producer, topic).await {
            Ok(Some(n)) => n,
            Ok(None) if self.settings.create_topics => {
                let count = (self.partitions_num as usize).max(needed);
                self.create_topic(topic, count).await?;
                self.wait_visible(producer, topic).await?
            }
            Ok(None) => {
                return Err(self.retriable(format!(
                    "topic {topic} does not exist and sluice.mq.kafka.createTopics = false: create it with at least {needed} partition(s)"
                )))
            }
            Err(e) => {
                return Err(self.retriable(format!("reading the metadata of topic {topic}: {e}")))
            }
        };
        self.topics.insert(topic.to_string(), partitions);
        if partitions < needed {
            return Err(self.retriable(format!(
                "topic {topic} has {partitions} partition(s) but a record goes to partition {highest}: add partitions to the topic or lower canal.mq.partitionsNum"
            )));
        }
        Ok(())
    }

    async fn create_topic(&self, topic: &str, partitions: usize) -> Result<(), PublishError> {
        let admin = self
            .settings
            .client_config()
            .create::<AdminClient<DefaultClientContext>>()
            .map_err(|e| self.retriable(format!("creating the Kafka admin client: {e}")))?;
        let count = i32::try_from(partitions).unwrap_or(i32::MAX);
        let new = NewTopic::new(
            topic,
            count,
            TopicReplication::Fixed(self.settings.replication_factor),
        );
        let options = AdminOptions::new().operation_timeout(Some(METADATA_TIMEOUT));
        let results = admin
            .create_topics([&new], &options)
            .await
            .map_err(|e| self.retriable(format!("creating topic {topic}: {e}")))?;
        for r in results {
            match r {
                Ok(_) => {
                    tracing::info!(destination = %self.destination, topic, partitions, "created the Kafka topic");
                }
                Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
                Err((name, code)) => {
                    return Err(self.retriable(format!(
                        "creating topic {name} with {partitions} partition(s): {code}"
                    )))
                }
            }
        }
        Ok(())
    }

    async fn wait_visible(
        &self,
        producer: &FutureProducer,
        topic: &str,
    ) -> Result<usize, PublishError> {
        let deadline = tokio::time::Instant::now() + TOPIC_VISIBLE_TIMEOUT;
        loop {
            if let Ok(Some(n)) = topic_partitions(producer, topic).await {
                return Ok(n);
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(self.retriable(format!(
                    "topic {topic} was created but is not in the metadata after {TOPIC_VISIBLE_TIMEOUT:?}"
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Enqueues every record in order and returns the confirmation of all
    /// of them (their delivery reports).
    async fn send_all(&mut self, records: Arc<[MqMessage]>) -> Result<Confirmation, PublishError> {
        if self.failed.swap(false, Ordering::AcqRel) {
            self.topics.clear();
            if let Some(old) = self.producer.take() {
                // Closing a client waits for its threads: not on a worker.
                tokio::task::spawn_blocking(move || drop(old));
            }
        }
        let producer = self.producer()?;
        let mut highest: HashMap<&str, i32> = HashMap::new();
        for r in records.iter() {
            let h = highest.entry(r.topic.as_str()).or_insert(0);
            *h = (*h).max(r.partition.unwrap_or(0));
        }
        for (topic, partition) in highest {
            self.ensure_topic(&producer, topic, partition).await?;
        }
        let mut deliveries = Vec::with_capacity(records.len());
        for (i, r) in records.iter().enumerate() {
            let mut record = FutureRecord::<[u8], [u8]>::to(&r.topic).payload(&r.payload);
            if let Some(p) = r.partition {
                record = record.partition(p);
            }
            if let Some(k) = &r.key {
                record = record.key(k);
            }
            loop {
                match producer.send_result(record) {
                    Ok(delivery) => {
                        deliveries.push((i, delivery));
                        break;
                    }
                    Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                        // The client's queue is full: let it drain.
                        record = back;
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                    Err((e, _)) => {
                        let e = self.send_error(r, e);
                        let old = (self.producer.take(), producer);
                        tokio::task::spawn_blocking(move || drop(old));
                        return Err(e);
                    }
                }
            }
        }
        // Lingering (`linger.ms`, 1 in Canal's canal.properties) could only
        // delay the batch's last requests: a flush sends them at once (the
        // Java client's `flush()`).
        flush_in_background(&producer, self.delivery_timeout, &self.flushing);
        let destination = self.destination.clone();
        let failed = self.failed.clone();
        Ok(Box::pin(async move {
            let mut first_error = None;
            for (i, delivery) in deliveries {
                let error = match delivery.await {
                    Ok(Ok(_)) => None,
                    Ok(Err((e, _))) => Some(record_error(&destination, &records[i], e)),
                    Err(_) => Some(retriable(
                        &destination,
                        format!(
                            "the delivery report of a record from {} was lost (the producer stopped)",
                            records[i].origin
                        ),
                    )),
                };
                if first_error.is_none() {
                    first_error = error;
                }
            }
            match first_error {
                None => Ok(()),
                Some(e) => {
                    failed.store(true, Ordering::Release);
                    Err(e)
                }
            }
        }))
    }

    fn send_error(&mut self, record: &MqMessage, e: KafkaError) -> PublishError {
        if matches!(
            e.rdkafka_error_code(),
            Some(
                RDKafkaErrorCode::UnknownTopicOrPartition
                    | RDKafkaErrorCode::UnknownTopic
                    | RDKafkaErrorCode::UnknownPartition
            )
        ) {
            // Deleted or recreated meanwhile: look at the metadata again.
            self.topics.remove(&record.topic);
        }
        record_error(&self.destination, record, e)
    }
}

fn retriable(destination: &str, message: String) -> PublishError {
    PublishError::Retriable {
        broker: BROKER,
        message: format!("destination {destination}: {message}"),
    }
}

/// The publish error of a record the producer could not send or deliver.
fn record_error(destination: &str, record: &MqMessage, e: KafkaError) -> PublishError {
    if e.rdkafka_error_code() == Some(RDKafkaErrorCode::MessageSizeTooLarge) {
        return PublishError::TooLarge {
            broker: BROKER,
            origin: record.origin.clone(),
            bytes: record.payload.len(),
            message: format!(
                "topic {} partition {}: {e} (the limits are kafka.max.request.size here and the topic's max.message.bytes on the broker)",
                record.topic,
                record.partition.unwrap_or(-1)
            ),
        };
    }
    retriable(
        destination,
        format!(
            "sending a record of {} bytes from {} to topic {} partition {}: {e}",
            record.payload.len(),
            record.origin,
            record.topic,
            record.partition.unwrap_or(-1)
        ),
    )
}

impl Publisher for KafkaPublisher {
    fn send(
        &mut self,
        records: Arc<[MqMessage]>,
    ) -> BoxFuture<'_, Result<Confirmation, PublishError>> {
        Box::pin(self.send_all(records))
    }
}

/// The time a record may take to be acknowledged before it fails
/// (`delivery.timeout.ms`, or its older name `message.timeout.ms`).
fn settings_delivery_timeout(settings: &KafkaSettings) -> Duration {
    let ms = settings
        .get("delivery.timeout.ms")
        .or_else(|| settings.get("message.timeout.ms"))
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|&ms| ms > 0)
        .unwrap_or(DEFAULT_DELIVERY_TIMEOUT_MS);
    Duration::from_millis(ms)
}

/// Makes librdkafka send every record it holds now, without waiting for
/// `linger.ms`, until they are all delivered or failed (or `timeout`).
///
/// librdkafka sends without lingering only while an `rd_kafka_flush` call
/// is under way; the crate's `flush` calls it with a zero timeout between
/// polls, which ends before the broker threads look, so it is called here
/// directly, on a blocking thread that holds its own handle of the client.
fn flush_in_background(producer: &FutureProducer, timeout: Duration, flushing: &Arc<AtomicBool>) {
    // One flush at a time: while it runs every record enqueued goes
    // without lingering too, and it returns once the client holds none.
    if flushing.swap(true, Ordering::AcqRel) {
        return;
    }
    let producer = producer.clone();
    let flushing = flushing.clone();
    let timeout_ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
    tokio::task::spawn_blocking(move || {
        // SAFETY: the pointer is the live client of `producer`, which this
        // closure owns until the call returns; rd_kafka_flush may be
        // called from any thread, beside the delivery-report poller.
        // A flush that times out leaves the records to their delivery
        // reports, which the publisher waits for: its code says nothing more.
        let _timed_out = unsafe {
            rdkafka::bindings::rd_kafka_flush(producer.client().native_ptr(), timeout_ms)
        };
        flushing.store(false, Ordering::Release);
    });
}

/// The partition count of `topic`, `None` when the broker does not know
/// it. The metadata call blocks, so it runs off the async workers.
async fn topic_partitions(
    producer: &FutureProducer,
    topic: &str,
) -> Result<Option<usize>, KafkaError> {
    let producer = producer.clone();
    let name = topic.to_string();
    let metadata = tokio::task::spawn_blocking(move || {
        producer
            .client()
            .fetch_metadata(Some(&name), METADATA_TIMEOUT)
    })
    .await
    .map_err(|_| KafkaError::Canceled)??;
    let Some(t) = metadata.topics().iter().find(|t| t.name() == topic) else {
        return Ok(None);
    };
    match t.error().map(RDKafkaErrorCode::from) {
        None if !t.partitions().is_empty() => Ok(Some(t.partitions().len())),
        None
        | Some(RDKafkaErrorCode::UnknownTopicOrPartition)
        | Some(RDKafkaErrorCode::UnknownTopic) => Ok(None),
        Some(code) => Err(KafkaError::MetadataFetch(code)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(props: &[(&str, &str)]) -> Result<KafkaSettings, KafkaConfigError> {
        KafkaSettings::from_properties(props.iter().copied())
    }

    #[test]
    fn canal_shipped_defaults_become_an_idempotent_ordered_producer() {
        let s = settings(&[
            ("kafka.bootstrap.servers", "127.0.0.1:9092"),
            ("kafka.acks", "all"),
            ("kafka.compression.type", "none"),
            ("kafka.batch.size", "16384"),
            ("kafka.linger.ms", "1"),
            ("kafka.max.request.size", "1048576"),
            ("kafka.buffer.memory", "33554432"),
            ("kafka.max.in.flight.requests.per.connection", "1"),
            ("kafka.retries", "0"),
            ("kafka.kerberos.enable", "false"),
            ("canal.serverMode", "kafka"),
        ])
        .unwrap();
        assert_eq!(s.get("bootstrap.servers"), Some("127.0.0.1:9092"));
        assert_eq!(s.get("enable.idempotence"), Some("true"));
        assert_eq!(s.get("acks"), Some("all"));
        assert_eq!(s.get("message.max.bytes"), Some("1048576"));
        assert_eq!(s.get("queue.buffering.max.kbytes"), Some("32768"));
        assert_eq!(s.get("max.in.flight.requests.per.connection"), Some("1"));
        assert_eq!(s.get("retries"), None, "retries=0 would refuse idempotence");
        assert_eq!(s.get("max.request.size"), None);
        assert_eq!(s.get("delivery.timeout.ms"), Some("30000"));
        assert_eq!(s.get("linger.ms"), Some("1"));
        assert!(s.create_topics);
        // librdkafka takes the result.
        let _producer: FutureProducer = s.client_config().create().unwrap();
    }

    #[test]
    fn old_canal_mq_keys_are_read_and_kafka_keys_win() {
        let s = settings(&[
            ("canal.mq.servers", "old:9092"),
            ("canal.mq.lingerMs", "7"),
            ("canal.mq.compressionType", "gzip"),
            ("kafka.linger.ms", "3"),
        ])
        .unwrap();
        assert_eq!(s.get("bootstrap.servers"), Some("old:9092"));
        assert_eq!(s.get("linger.ms"), Some("3"));
        assert_eq!(s.get("compression.type"), Some("gzip"));
        assert_eq!(s.get("max.in.flight.requests.per.connection"), Some("5"));
    }

    #[test]
    fn without_idempotence_one_request_in_flight_keeps_order() {
        let s = settings(&[
            ("kafka.bootstrap.servers", "b:9092"),
            ("kafka.enable.idempotence", "false"),
            ("kafka.acks", "1"),
            ("kafka.max.in.flight.requests.per.connection", "4"),
        ])
        .unwrap();
        assert_eq!(s.get("acks"), Some("1"));
        assert_eq!(s.get("max.in.flight.requests.per.connection"), Some("1"));
        assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
    }

    #[test]
    fn missing_servers_and_bad_values_are_named() {
        let e = settings(&[("kafka.acks", "all")]).unwrap_err();
        assert!(e.to_string().contains("kafka.bootstrap.servers"), "{e}");
        let e = settings(&[
            ("kafka.bootstrap.servers", "b:9092"),
            ("sluice.mq.kafka.createTopics", "maybe"),
        ])
        .unwrap_err();
        assert!(
            e.to_string().contains("sluice.mq.kafka.createTopics"),
            "{e}"
        );
        let s = settings(&[
            ("kafka.bootstrap.servers", "b:9092"),
            ("kafka.no.such.setting", "1"),
        ])
        .unwrap();
        let e = KafkaPublisher::new("d", s, None).err().unwrap();
        assert!(e.to_string().contains("no.such.setting"), "{e}");
    }

    #[test]
    fn sasl_credentials_come_from_a_jaas_line() {
        let s = settings(&[
            ("kafka.bootstrap.servers", "b:9092"),
            ("kafka.sasl.mechanism", "PLAIN"),
            (
                "kafka.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u1\" password=\"p w\";",
            ),
        ])
        .unwrap();
        assert_eq!(s.get("sasl.mechanisms"), Some("PLAIN"));
        assert_eq!(s.get("sasl.username"), Some("u1"));
        assert_eq!(s.get("sasl.password"), Some("p w"));
    }
}
