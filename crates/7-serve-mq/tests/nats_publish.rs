//! NATS mode against a private `nats-server -js`: records reach their
//! subject in order; the same batch published twice is stored once; after
//! the server is killed and started again on its port and store,
//! publishing works again.

use std::time::Duration;

use anyhow::{ensure, Context, Result};
use sluice_config::Properties;
use sluice_encode::mq::MqMessage;
use sluice_serve_mq::nats::{NatsPublisher, NatsSettings};
use sluice_serve_mq::{PublishError, Publisher};
use sluice_testkit::nats::Nats;

fn record(topic: &str, seq: usize) -> MqMessage {
    MqMessage {
        topic: topic.into(),
        partition: Some(0),
        key: None,
        payload: format!(r#"{{"seq":{seq}}}"#).into_bytes(),
        origin: format!("shop.orders at binlog.000001:{seq}"),
        rows: 1,
        entries_key: format!("binlog.000001:{}#{seq:016x}", 4 + seq * 100),
    }
}

fn batch(topic: &str, seqs: std::ops::Range<usize>) -> Vec<MqMessage> {
    seqs.map(|seq| record(topic, seq)).collect()
}

fn settings(server: &Nats) -> Result<NatsSettings> {
    Ok(NatsSettings::from_properties(&Properties::parse(&format!(
        "sluice.mq.nats.url = {}\nsluice.mq.nats.stream = CDC\nsluice.mq.nats.subjectPrefix = cdc\n",
        server.url()
    )))?)
}

/// Every message of stream `CDC`: (subject, payload, Nats-Msg-Id).
async fn stored(server: &Nats) -> Result<Vec<(String, String, String)>> {
    let client = async_nats::connect(server.url()).await?;
    let js = async_nats::jetstream::new(client);
    let stream = js.get_stream("CDC").await?;
    let info = stream.get_info().await?;
    let mut out = Vec::new();
    for seq in info.state.first_sequence..=info.state.last_sequence {
        if info.state.messages == 0 {
            break;
        }
        let m = stream.get_raw_message(seq).await?;
        let id = m
            .headers
            .get("Nats-Msg-Id")
            .map(|v| v.as_str().to_string())
            .unwrap_or_default();
        out.push((
            m.subject.to_string(),
            String::from_utf8(m.payload.to_vec())?,
            id,
        ));
    }
    ensure!(out.len() as u64 == info.state.messages, "{info:?}");
    Ok(out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_reach_the_subject_in_order() -> Result<()> {
    let server = Nats::start()?;
    let mut publisher = NatsPublisher::new("example", settings(&server)?);
    publisher.publish(&batch("shop_orders", 0..300)).await?;
    publisher.publish(&batch("shop.users", 300..310)).await?;
    let messages = stored(&server).await?;
    ensure!(messages.len() == 310, "{} messages", messages.len());
    for (seq, (subject, payload, id)) in messages.iter().enumerate() {
        let topic = if seq < 300 {
            "shop_orders"
        } else {
            "shop_users"
        };
        ensure!(subject == &format!("cdc.{topic}"), "{seq}: {subject}");
        ensure!(
            payload == &format!(r#"{{"seq":{seq}}}"#),
            "{seq}: {payload}"
        );
        ensure!(id.starts_with("example:binlog.000001:"), "{id}");
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_batch_published_twice_is_stored_once() -> Result<()> {
    let server = Nats::start()?;
    let mut publisher = NatsPublisher::new("example", settings(&server)?);
    let records = batch("t", 0..100);
    publisher.publish(&records).await?;
    publisher.publish(&records).await?;
    // Sent again from another connection too, as after a restart, and cut
    // differently.
    let mut again = NatsPublisher::new("example", settings(&server)?);
    again.publish(&records[40..]).await?;
    again.publish(&batch("t", 100..120)).await?;
    let messages = stored(&server).await?;
    ensure!(messages.len() == 120, "{} messages", messages.len());
    let ids: std::collections::BTreeSet<_> = messages.iter().map(|m| &m.2).collect();
    ensure!(ids.len() == 120, "ids repeat");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publishing_works_again_after_the_server_is_killed_and_restarted() -> Result<()> {
    let server = Nats::start()?;
    let mut publisher = NatsPublisher::new("example", settings(&server)?);
    publisher.publish(&batch("t", 0..50)).await?;

    server.kill()?;
    match publisher.publish(&batch("t", 50..100)).await {
        Err(PublishError::Retriable { broker, message }) => {
            ensure!(broker == "NATS", "{broker}");
            ensure!(message.contains(&server.url()), "{message}");
        }
        other => anyhow::bail!("publishing to a dead server: {other:?}"),
    }

    server.restart()?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        match publisher.publish(&batch("t", 50..100)).await {
            Ok(()) => break,
            Err(e) if tokio::time::Instant::now() < deadline => {
                eprintln!("not yet: {e}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => return Err(e).context("publishing after the restart"),
        }
    }
    let messages = stored(&server).await?;
    ensure!(messages.len() == 100, "{} messages", messages.len());
    for (seq, (_, payload, _)) in messages.iter().enumerate() {
        ensure!(
            payload == &format!(r#"{{"seq":{seq}}}"#),
            "{seq}: {payload}"
        );
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_above_the_servers_max_payload_is_too_large() -> Result<()> {
    let server = Nats::start()?;
    let mut publisher = NatsPublisher::new("example", settings(&server)?);
    let mut big = record("t", 1);
    // The server's default max_payload is 1 MiB.
    big.payload = vec![b'x'; 2 << 20];
    match publisher.publish(&[record("t", 0), big]).await {
        Err(PublishError::TooLarge {
            broker,
            origin,
            bytes,
            ..
        }) => {
            ensure!(broker == "NATS", "{broker}");
            ensure!(origin == "shop.orders at binlog.000001:1", "{origin}");
            ensure!(bytes == 2 << 20, "{bytes}");
        }
        other => anyhow::bail!("a 2 MiB record: {other:?}"),
    }
    Ok(())
}
