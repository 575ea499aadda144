//! [`KafkaPublisher`] against a real broker (tansu): topics created with
//! the configured partition count, records at their partition with their
//! key and in order, a record above the size limit refused as too large
//! with its origin, and a missing topic named when creating it is off.

use std::time::Duration;

use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message;
use rdkafka::{Offset, TopicPartitionList};
use sluice_encode::mq::MqMessage;
use sluice_serve_mq::{KafkaPublisher, KafkaSettings, PublishError, Publisher};
use sluice_testkit::kafka::Tansu;

fn record(topic: &str, partition: i32, key: Option<&str>, payload: &str) -> MqMessage {
    MqMessage {
        topic: topic.into(),
        partition: Some(partition),
        key: key.map(|k| k.as_bytes().to_vec()),
        payload: payload.as_bytes().to_vec(),
        origin: format!("shop.t at binlog.000001:{}", payload.len()),
        rows: 1,
        entries_key: format!("binlog.000001:{}#0", payload.len()),
    }
}

fn settings(broker: &Tansu, extra: &[(&str, &str)]) -> KafkaSettings {
    let servers = broker.bootstrap_servers();
    let mut props = vec![("kafka.bootstrap.servers", servers.as_str())];
    props.extend_from_slice(extra);
    KafkaSettings::from_properties(props).unwrap()
}

/// Every record of `topic` (partition, key, payload), partition by partition.
fn read_all(broker: &Tansu, topic: &str, expected: usize) -> Vec<(i32, Option<String>, String)> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", broker.bootstrap_servers())
        .set("group.id", "publisher-test")
        .set("enable.auto.commit", "false")
        .create()
        .unwrap();
    let metadata = consumer
        .fetch_metadata(Some(topic), Duration::from_secs(5))
        .unwrap();
    let partitions = metadata.topics()[0].partitions().len() as i32;
    let mut tpl = TopicPartitionList::new();
    for p in 0..partitions {
        tpl.add_partition_offset(topic, p, Offset::Beginning)
            .unwrap();
    }
    consumer.assign(&tpl).unwrap();
    let mut got = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while got.len() < expected && std::time::Instant::now() < deadline {
        if let Some(m) = consumer.poll(Duration::from_millis(100)) {
            let m = m.unwrap();
            got.push((
                m.partition(),
                m.key().map(|k| String::from_utf8_lossy(k).into_owned()),
                String::from_utf8_lossy(m.payload().unwrap_or_default()).into_owned(),
            ));
        }
    }
    got.sort_by_key(|(p, _, _)| *p);
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_topic_is_created_and_records_keep_partition_key_and_order() {
    let broker = Tansu::start().unwrap();
    let mut publisher = KafkaPublisher::new("example", settings(&broker, &[]), Some(3)).unwrap();
    let records = vec![
        record("orders", 2, Some("k1"), "first"),
        record("orders", 0, None, "second"),
        record("orders", 2, Some("k2"), "third"),
    ];
    publisher.publish(&records).await.unwrap();
    publisher
        .publish(&[record("orders", 1, None, "fourth")])
        .await
        .unwrap();
    let got = read_all(&broker, "orders", 4);
    assert_eq!(
        got,
        vec![
            (0, None, "second".to_string()),
            (1, None, "fourth".to_string()),
            (2, Some("k1".to_string()), "first".to_string()),
            (2, Some("k2".to_string()), "third".to_string()),
        ]
    );
    // The topic got canal.mq.partitionsNum partitions.
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", broker.bootstrap_servers())
        .create()
        .unwrap();
    let metadata = consumer
        .fetch_metadata(Some("orders"), Duration::from_secs(5))
        .unwrap();
    assert_eq!(metadata.topics()[0].partitions().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_above_the_size_limit_is_too_large_with_its_origin() {
    let broker = Tansu::start().unwrap();
    let mut publisher = KafkaPublisher::new(
        "example",
        settings(&broker, &[("kafka.max.request.size", "1000")]),
        None,
    )
    .unwrap();
    let big = "x".repeat(5000);
    let err = publisher
        .publish(&[
            record("big", 0, None, "small"),
            record("big", 0, None, &big),
        ])
        .await
        .unwrap_err();
    match &err {
        PublishError::TooLarge { origin, bytes, .. } => {
            assert_eq!(*bytes, 5000);
            assert_eq!(origin, "shop.t at binlog.000001:5000");
        }
        other => panic!("expected TooLarge, got {other}"),
    }
    assert!(err.to_string().contains("kafka.max.request.size"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_topic_creation_a_missing_topic_is_named() {
    let broker = Tansu::start().unwrap();
    let mut publisher = KafkaPublisher::new(
        "example",
        settings(&broker, &[("sluice.mq.kafka.createTopics", "false")]),
        None,
    )
    .unwrap();
    let err = publisher
        .publish(&[record("absent_topic", 0, None, "x")])
        .await
        .unwrap_err();
    assert!(matches!(err, PublishError::Retriable { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("absent_topic") && text.contains("createTopics"),
        "{text}"
    );
}

/// The worker waits for a batch's confirmations before it sends more, so
/// lingering could only delay a batch: the publisher flushes it at once.
/// With a linger of 20 s a publish that waited for it would take 20 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_is_sent_at_once_whatever_linger_ms_says() {
    let broker = Tansu::start().unwrap();
    let mut publisher = KafkaPublisher::new(
        "example",
        settings(&broker, &[("kafka.linger.ms", "20000")]),
        Some(2),
    )
    .unwrap();
    // The first publish creates the topic; the ones after it only send.
    publisher
        .publish(&[record("lingering", 0, None, "warm-up")])
        .await
        .unwrap();
    for round in 0..3 {
        let records: Vec<MqMessage> = (0..10)
            .map(|i| {
                record(
                    "lingering",
                    i % 2,
                    None,
                    &format!("round {round} record {i}"),
                )
            })
            .collect();
        let started = std::time::Instant::now();
        publisher.publish(&records).await.unwrap();
        let took = started.elapsed();
        assert!(
            took < Duration::from_secs(10),
            "round {round}: the batch waited {took:?} for linger.ms = 20000"
        );
    }
    let got = read_all(&broker, "lingering", 31);
    assert_eq!(
        got.len(),
        31,
        "every record of every round reached the broker"
    );
}
