//! RabbitPublisher against a private RabbitMQ broker (Debian's
//! `rabbitmq-server`, started by sluice-testkit): confirmed publishing,
//! Canal's exchange set-up, refused and oversized records.

mod rabbit_support;

use anyhow::{ensure, Context, Result};
use lapin::options::ExchangeDeclareOptions;
use lapin::types::FieldTable;
use lapin::{ErrorKind, ExchangeKind};
use sluice_serve_mq::rabbit::RabbitPublisher;
use sluice_serve_mq::{PublishError, Publisher};
use sluice_testkit::{RabbitMq, RabbitMqConfig};

use rabbit_support::{connect, consume, queue_len, record, seq_of, settings};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rabbit_publish_confirms_every_record_and_a_consumer_reads_them_in_order() -> Result<()> {
    // A virtual host other than `/` and a user other than guest, as in production.
    let broker = RabbitMq::start_with(RabbitMqConfig::default().vhost("/canal"))?;
    // No exchange: the default exchange routes by the routing key (the
    // topic) to the queue of that name, which the publisher declares.
    let mut publisher =
        RabbitPublisher::connect(settings(&broker, "rabbitmq.queue = example\n")?).await?;
    assert!(publisher.is_connected());

    // Batches larger than the publisher's window of sends in flight.
    let batches = 4;
    let per_batch = 300;
    let started = std::time::Instant::now();
    let mut publishing = std::time::Duration::ZERO;
    for b in 0..batches {
        let records: Vec<_> = (b * per_batch..(b + 1) * per_batch)
            .map(|seq| record("example", "shop.orders", seq))
            .collect();
        let t = std::time::Instant::now();
        publisher
            .publish(&records)
            .await
            .with_context(|| format!("publishing batch {b}"))?;
        publishing += t.elapsed();
        // Ok means confirmed: the broker holds every record published so far.
        let held = queue_len(&broker, "example").await?;
        ensure!(
            held as usize == (b + 1) * per_batch,
            "after batch {b} the queue holds {held} messages"
        );
    }
    publisher.publish(&[]).await?;
    eprintln!(
        "{} records confirmed in {publishing:?} of publishing ({:?} with the checks)",
        batches * per_batch,
        started.elapsed()
    );

    let total = batches * per_batch;
    let deliveries = consume(&broker, "example", total).await?;
    for (i, d) in deliveries.iter().enumerate() {
        let expected = record("example", "shop.orders", i);
        ensure!(
            d.data == expected.payload,
            "message {i} is {:?}",
            String::from_utf8_lossy(&d.data)
        );
        ensure!(d.routing_key.as_str() == "example" && d.exchange.as_str().is_empty());
        // Canal's PERSISTENT_TEXT_PLAIN.
        let props = &d.properties;
        ensure!(
            props.content_type().as_ref().map(|c| c.as_str()) == Some("text/plain"),
            "content type {:?}",
            props.content_type()
        );
        ensure!(
            *props.delivery_mode() == Some(2),
            "delivery mode {:?}",
            props.delivery_mode()
        );
        ensure!(
            *props.priority() == Some(0),
            "priority {:?}",
            props.priority()
        );
    }
    ensure!(queue_len(&broker, "example").await? == 0);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rabbit_canal_exchange_setup_declares_delivery_mode_as_exchange_type() -> Result<()> {
    let broker = RabbitMq::start()?;

    // Canal's four keys: a fanout exchange bound to the queue.
    let fanout = settings(
        &broker,
        "rabbitmq.exchange = canal.fanout\n\
         rabbitmq.queue = canal.all\n\
         rabbitmq.routingKey = example\n\
         rabbitmq.deliveryMode = fanout\n",
    )?;
    let mut publisher = RabbitPublisher::connect(fanout).await?;
    // The exchange exists with type fanout: declaring it as direct is refused.
    let conn = connect(&broker).await?;
    let channel = conn.create_channel().await?;
    let durable = ExchangeDeclareOptions {
        durable: true,
        ..ExchangeDeclareOptions::default()
    };
    channel
        .exchange_declare(
            "canal.fanout".into(),
            ExchangeKind::Fanout,
            durable,
            FieldTable::default(),
        )
        .await
        .context("the exchange is not a durable fanout")?;
    let as_direct = channel
        .exchange_declare(
            "canal.fanout".into(),
            ExchangeKind::Direct,
            durable,
            FieldTable::default(),
        )
        .await;
    ensure!(
        matches!(
            as_direct.as_ref().map_err(|e| e.kind()),
            Err(ErrorKind::ProtocolError(_))
        ),
        "redeclaring the fanout exchange as direct gave {as_direct:?}"
    );
    conn.close(200, "done".into()).await?;

    // Fanout ignores routing keys: records of any topic reach the bound queue.
    let records = [
        record("shop_orders", "shop.orders", 0),
        record("shop_items", "shop.items", 1),
    ];
    publisher.publish(&records).await?;
    let got = consume(&broker, "canal.all", 2).await?;
    ensure!(got[0].data == records[0].payload && got[1].data == records[1].payload);
    ensure!(got[0].exchange.as_str() == "canal.fanout");
    ensure!(got[1].routing_key.as_str() == "shop_items");

    // A direct exchange routes by the bound key: the record whose topic is
    // the routing key arrives; one no queue receives comes back as an error.
    let direct = settings(
        &broker,
        "rabbitmq.exchange = canal.direct\n\
         rabbitmq.queue = canal.example\n\
         rabbitmq.routingKey = example\n\
         rabbitmq.deliveryMode = direct\n",
    )?;
    let mut publisher = RabbitPublisher::connect(direct).await?;
    publisher
        .publish(&[record("example", "shop.orders", 7)])
        .await?;
    let got = consume(&broker, "canal.example", 1).await?;
    ensure!(seq_of(&got[0].data)? == 7);

    let unroutable = publisher
        .publish(&[record("other_topic", "shop.items", 8)])
        .await;
    eprintln!("unroutable: {unroutable:?}");
    match &unroutable {
        Err(PublishError::Retriable { message, .. })
            if message.contains("shop.items") && message.contains("other_topic") => {}
        other => anyhow::bail!("an unroutable record gave {other:?}"),
    }
    // The publisher goes on after the refusal.
    publisher
        .publish(&[record("example", "shop.orders", 9)])
        .await?;
    let got = consume(&broker, "canal.example", 1).await?;
    ensure!(seq_of(&got[0].data)? == 9);

    // A publisher made by `start` (as the server does) declares at start-up:
    // consumers find the queue before the first change is published.
    let mut started = RabbitPublisher::start(settings(&broker, "rabbitmq.queue = canal.early\n")?);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while queue_len(&broker, "canal.early").await.is_err() {
        ensure!(
            std::time::Instant::now() < deadline,
            "start did not declare its queue within 20 s"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    started
        .publish(&[record("canal.early", "shop.orders", 11)])
        .await?;
    let got = consume(&broker, "canal.early", 1).await?;
    ensure!(seq_of(&got[0].data)? == 11);

    // Without the four keys nothing but the queue is declared.
    let queue_only = settings(
        &broker,
        "rabbitmq.exchange = canal.never\nrabbitmq.queue = canal.plain\n",
    )?;
    let mut publisher = RabbitPublisher::connect(queue_only).await?;
    ensure!(queue_len(&broker, "canal.plain").await? == 0);
    let missing = publisher
        .publish(&[record("canal.plain", "shop.orders", 10)])
        .await;
    eprintln!("no exchange: {missing:?}");
    ensure!(
        matches!(missing, Err(PublishError::Retriable { .. })),
        "publishing to an exchange nobody declared gave {missing:?}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rabbit_record_over_the_broker_limit_is_too_large_and_names_its_origin() -> Result<()> {
    let limit = 1024 * 1024;
    let broker = RabbitMq::start_with(RabbitMqConfig::default().max_message_size(limit))?;
    let mut publisher =
        RabbitPublisher::connect(settings(&broker, "rabbitmq.queue = example\n")?).await?;

    let mut big = record("example", "shop.blobs", 1);
    big.payload = vec![b'x'; 2 * limit as usize];
    let batch = [
        record("example", "shop.orders", 0),
        big,
        record("example", "shop.orders", 2),
    ];
    let outcome = publisher.publish(&batch).await;
    eprintln!("too large: {outcome:?}");
    match outcome {
        Err(PublishError::TooLarge {
            origin,
            bytes,
            message,
            ..
        }) => {
            ensure!(origin == "shop.blobs", "origin {origin:?}");
            ensure!(bytes == 2 * limit as usize, "bytes {bytes}");
            ensure!(message.contains(&limit.to_string()), "message {message:?}");
        }
        other => anyhow::bail!("a record over the limit gave {other:?}"),
    }

    // The broker closed the channel; the next publish opens a new one.
    publisher
        .publish(&[record("example", "shop.orders", 3)])
        .await?;
    ensure!(publisher.is_connected());
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rabbit_unreachable_broker_and_bad_login_are_retriable_and_say_where() -> Result<()> {
    let broker = RabbitMq::start()?;
    let mut wrong = settings(&broker, "rabbitmq.queue = example\n")?;
    wrong.password = "not-the-password".into();
    let outcome = RabbitPublisher::connect(wrong).await;
    eprintln!("wrong password: {outcome:?}");
    match outcome {
        Err(PublishError::Retriable { message, .. }) => ensure!(
            message.contains(&broker.address()) && message.contains("\"sluice\""),
            "{message}"
        ),
        other => anyhow::bail!("a wrong password gave {other:?}"),
    }

    let port = sluice_testkit::find_free_port()?;
    let mut nowhere = settings(&broker, "")?;
    nowhere.port = port;
    let mut publisher = RabbitPublisher::lazy(nowhere);
    ensure!(!publisher.is_connected());
    let outcome = publisher
        .publish(&[record("example", "shop.orders", 0)])
        .await;
    eprintln!("nobody listens: {outcome:?}");
    match outcome {
        Err(PublishError::Retriable { message, .. }) => {
            ensure!(message.contains(&format!("127.0.0.1:{port}")), "{message}")
        }
        other => anyhow::bail!("a port nobody listens on gave {other:?}"),
    }
    Ok(())
}
