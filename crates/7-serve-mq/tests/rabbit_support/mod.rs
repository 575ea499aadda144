//! What the RabbitMQ tests share: settings for a private broker written as
//! `canal.properties` lines, records, and a plain lapin consumer.

#![allow(dead_code)]

use std::time::Duration;

use anyhow::{bail, Context, Result};
use futures_lite::StreamExt;
use lapin::message::Delivery;
use lapin::options::{BasicAckOptions, BasicConsumeOptions, QueueDeclareOptions};
use lapin::types::FieldTable;
use lapin::{Connection, ConnectionProperties};
use sluice_config::Properties;
use sluice_encode::mq::MqMessage;
use sluice_serve_mq::rabbit::RabbitSettings;
use sluice_testkit::RabbitMq;

/// How long the consumer waits for each delivery.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(20);

/// The settings `canal.properties` would give for `broker`, plus `extra` lines.
pub fn settings(broker: &RabbitMq, extra: &str) -> Result<RabbitSettings> {
    let text = format!(
        "canal.serverMode = rabbitMQ\n\
         rabbitmq.host = {}\n\
         rabbitmq.virtual.host = {}\n\
         rabbitmq.username = {}\n\
         rabbitmq.password = {}\n\
         {extra}",
        broker.address(),
        broker.vhost(),
        broker.user(),
        broker.password(),
    );
    Ok(RabbitSettings::from_properties(&Properties::parse(&text))?)
}

/// A FlatMessage-like record of `origin` numbered `seq`.
pub fn record(topic: &str, origin: &str, seq: usize) -> MqMessage {
    MqMessage {
        topic: topic.to_string(),
        partition: None,
        key: None,
        payload: format!(r#"{{"seq":{seq},"table":"{origin}","data":[{{"id":"{seq}"}}]}}"#)
            .into_bytes(),
        origin: origin.to_string(),
        rows: 1,
        entries_key: format!("binlog.000001:{seq}#0"),
    }
}

/// The `seq` a [`record`] payload carries.
pub fn seq_of(payload: &[u8]) -> Result<usize> {
    let text = std::str::from_utf8(payload).context("a payload is not UTF-8")?;
    let rest = text
        .strip_prefix(r#"{"seq":"#)
        .with_context(|| format!("unexpected payload {text:?}"))?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits
        .parse()
        .with_context(|| format!("no seq in payload {text:?}"))
}

/// A consumer's connection to `broker`.
pub async fn connect(broker: &RabbitMq) -> Result<Connection> {
    Connection::connect(&broker.amqp_uri(), ConnectionProperties::default())
        .await
        .with_context(|| format!("connecting a consumer to {}", broker.amqp_uri()))
}

/// How many messages `queue` holds now (a passive declare).
pub async fn queue_len(broker: &RabbitMq, queue: &str) -> Result<u32> {
    let conn = connect(broker).await?;
    let channel = conn.create_channel().await?;
    let q = channel
        .queue_declare(
            queue.into(),
            QueueDeclareOptions {
                passive: true,
                ..QueueDeclareOptions::default()
            },
            FieldTable::default(),
        )
        .await
        .with_context(|| format!("queue {queue:?} does not exist"))?;
    conn.close(200, "done".into()).await?;
    Ok(q.message_count())
}

/// Consumes exactly `n` messages of `queue`, acking each, in delivery order.
pub async fn consume(broker: &RabbitMq, queue: &str, n: usize) -> Result<Vec<Delivery>> {
    let conn = connect(broker).await?;
    let channel = conn.create_channel().await?;
    let mut consumer = channel
        .basic_consume(
            queue.into(),
            "sluice-test-consumer".into(),
            BasicConsumeOptions::default(),
            FieldTable::default(),
        )
        .await
        .with_context(|| format!("consuming {queue:?}"))?;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let Ok(next) = tokio::time::timeout(DELIVERY_TIMEOUT, consumer.next()).await else {
            bail!(
                "{queue:?}: {} of {n} messages arrived, then none within {DELIVERY_TIMEOUT:?}",
                out.len()
            );
        };
        let delivery = next.context("the consumer was cancelled")??;
        delivery.ack(BasicAckOptions::default()).await?;
        out.push(delivery);
    }
    conn.close(200, "done".into()).await?;
    Ok(out)
}
