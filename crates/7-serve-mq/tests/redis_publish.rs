//! Redis mode against a private `redis-server`: records reach the stream of
//! their topic in order with their payloads and fields; a server that is
//! down gives a retriable error, and publishing works again once it is back.

use std::time::Duration;

use anyhow::{ensure, Context, Result};
use redis::streams::StreamRangeReply;
use redis::AsyncCommands;
use sluice_config::Properties;
use sluice_encode::mq::MqMessage;
use sluice_serve_mq::redis::{RedisPublisher, RedisSettings};
use sluice_serve_mq::{PublishError, Publisher};
use sluice_testkit::redis::Redis;

fn record(topic: &str, seq: usize, key: Option<&str>) -> MqMessage {
    MqMessage {
        topic: topic.into(),
        partition: Some(0),
        key: key.map(|k| k.as_bytes().to_vec()),
        payload: format!(r#"{{"seq":{seq},"table":"orders"}}"#).into_bytes(),
        origin: format!("shop.orders at binlog.000001:{seq}"),
        rows: 1,
        entries_key: format!("binlog.000001:{seq}#0"),
    }
}

fn settings(server: &Redis, extra: &str) -> Result<RedisSettings> {
    Ok(RedisSettings::from_properties(&Properties::parse(
        &format!("sluice.mq.redis.url = {}\n{extra}", server.url()),
    ))?)
}

/// Every entry of `stream`, oldest first, as field maps.
async fn read_stream(
    server: &Redis,
    stream: &str,
) -> Result<Vec<std::collections::HashMap<String, redis::Value>>> {
    let client = redis::Client::open(server.url())?;
    let mut con = client.get_multiplexed_async_connection().await?;
    let reply: StreamRangeReply = con.xrange_all(stream).await?;
    Ok(reply.ids.into_iter().map(|id| id.map).collect())
}

fn field(entry: &std::collections::HashMap<String, redis::Value>, name: &str) -> Result<String> {
    match entry.get(name) {
        Some(redis::Value::BulkString(b)) => Ok(String::from_utf8(b.clone())?),
        other => anyhow::bail!("field {name}: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_reach_the_stream_in_order_with_their_payloads() -> Result<()> {
    let server = Redis::start()?;
    let mut publisher = RedisPublisher::new("example", settings(&server, "")?);
    let first: Vec<_> = (0..200)
        .map(|seq| record("shop_orders", seq, (seq % 2 == 0).then_some("shop.orders")))
        .collect();
    publisher.publish(&first).await?;
    let second: Vec<_> = (200..300)
        .map(|seq| record("shop_orders", seq, None))
        .collect();
    publisher.publish(&second).await?;
    publisher.publish(&[record("other", 7, None)]).await?;

    let entries = read_stream(&server, "shop_orders").await?;
    ensure!(entries.len() == 300, "{} entries", entries.len());
    for (seq, entry) in entries.iter().enumerate() {
        let expected = String::from_utf8(
            first
                .iter()
                .chain(&second)
                .nth(seq)
                .context("record")?
                .payload
                .clone(),
        )?;
        ensure!(
            field(entry, "payload")? == expected,
            "entry {seq}: {entry:?}"
        );
        ensure!(field(entry, "destination")? == "example", "{entry:?}");
        ensure!(field(entry, "partition")? == "0", "{entry:?}");
        let key = entry.get("key").is_some();
        ensure!(key == (seq < 200 && seq % 2 == 0), "entry {seq}: key {key}");
    }
    let other = read_stream(&server, "other").await?;
    ensure!(other.len() == 1, "{other:?}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn maxlen_trims_the_stream() -> Result<()> {
    let server = Redis::start()?;
    let mut publisher = RedisPublisher::new(
        "example",
        settings(&server, "sluice.mq.redis.maxlen = 100\n")?,
    );
    for batch in 0..10 {
        let records: Vec<_> = (batch * 100..(batch + 1) * 100)
            .map(|seq| record("t", seq, None))
            .collect();
        publisher.publish(&records).await?;
    }
    let entries = read_stream(&server, "t").await?;
    // `MAXLEN ~` trims whole nodes: about 100, never all 1000.
    ensure!(
        (100..1000).contains(&entries.len()),
        "{} entries",
        entries.len()
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_is_down_is_retriable_and_publishing_works_once_it_is_back() -> Result<()> {
    let server = Redis::start_persistent()?;
    let mut publisher = RedisPublisher::new("example", settings(&server, "")?);
    let batch = |from: usize| -> Vec<MqMessage> {
        (from..from + 50)
            .map(|seq| record("t", seq, None))
            .collect()
    };
    publisher.publish(&batch(0)).await?;

    server.kill()?;
    for _ in 0..2 {
        match publisher.publish(&batch(50)).await {
            Err(PublishError::Retriable { broker, message }) => {
                ensure!(broker == "Redis", "{broker}");
                ensure!(message.contains(&server.url()), "{message}");
            }
            other => anyhow::bail!("publishing to a dead server: {other:?}"),
        }
    }

    server.restart()?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        match publisher.publish(&batch(50)).await {
            Ok(()) => break,
            Err(e) if tokio::time::Instant::now() < deadline => {
                eprintln!("not yet: {e}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => return Err(e).context("publishing after the restart"),
        }
    }
    let entries = read_stream(&server, "t").await?;
    let seqs: Vec<String> = entries
        .iter()
        .map(|e| field(e, "payload"))
        .collect::<Result<_>>()?;
    ensure!(seqs.len() == 100, "{} entries", seqs.len());
    ensure!(
        seqs[99] == r#"{"seq":99,"table":"orders"}"#,
        "{:?}",
        seqs.last()
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_xadd_the_server_refuses_fails_the_batch_naming_the_record() -> Result<()> {
    let server = Redis::start()?;
    // A plain string where the stream should be: XADD gets WRONGTYPE.
    let client = redis::Client::open(server.url())?;
    let mut con = client.get_multiplexed_async_connection().await?;
    let () = con.set("taken", "not a stream").await?;
    let mut publisher = RedisPublisher::new("example", settings(&server, "")?);
    match publisher
        .publish(&[record("t", 0, None), record("taken", 1, None)])
        .await
    {
        Err(PublishError::Retriable { broker, message }) => {
            ensure!(broker == "Redis", "{broker}");
            ensure!(
                message.contains("record 2 of 2")
                    && message.contains("binlog.000001:1")
                    && message.contains("WRONGTYPE"),
                "{message}"
            );
        }
        other => anyhow::bail!("XADD to a string: {other:?}"),
    }
    Ok(())
}
