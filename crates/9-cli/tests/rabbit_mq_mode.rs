//! `sluice server` in RabbitMQ mode (`canal.serverMode = rabbitMQ`) against
//! a private MariaDB and a private RabbitMQ broker: the queue exists as soon
//! as the server runs, every inserted row reaches it as FlatMessage JSON in
//! commit order, and rows written while the broker is down arrive once it is
//! back, none lost; a server killed with SIGKILL again and again loses none
//! either (a batch is acked only once the broker confirmed it). The initial
//! snapshot reaches the queue as marked INSERTs.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use common::{spawn_server, write_example_instance};
use futures_lite::StreamExt;
use lapin::options::{BasicAckOptions, BasicConsumeOptions, QueueDeclareOptions};
use lapin::types::FieldTable;
use lapin::{Connection, ConnectionProperties};
use serde_json::Value;
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig, RabbitMq, RabbitMqConfig};

const QUEUE: &str = "example";

fn write_conf(dir: &Path, db_port: u16, broker: &RabbitMq) -> Result<()> {
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.port = {}\n\
             canal.destinations = example\n\
             canal.auto.scan = false\n\
             canal.serverMode = rabbitMQ\n\
             rabbitmq.host = {}\n\
             rabbitmq.virtual.host = {}\n\
             rabbitmq.username = {}\n\
             rabbitmq.password = {}\n\
             rabbitmq.queue = {QUEUE}\n",
            find_free_port()?,
            broker.address(),
            broker.vhost(),
            broker.user(),
            broker.password(),
        ),
    )?;
    write_example_instance(dir, db_port, r"shop\\..*");
    let instance = dir.join("example/instance.properties");
    let mut text = std::fs::read_to_string(&instance)?;
    // The default exchange routes by the topic to the queue of that name.
    text.push_str(&format!("canal.mq.topic = {QUEUE}\n"));
    std::fs::write(&instance, text)?;
    Ok(())
}

async fn connect(broker: &RabbitMq) -> Result<Connection> {
    Connection::connect(&broker.amqp_uri(), ConnectionProperties::default())
        .await
        .with_context(|| format!("connecting a consumer to {}", broker.amqp_uri()))
}

/// Waits until the server has declared the queue.
async fn wait_for_queue(broker: &RabbitMq, timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    loop {
        let conn = connect(broker).await?;
        let channel = conn.create_channel().await?;
        let declared = channel
            .queue_declare(
                QUEUE.into(),
                QueueDeclareOptions {
                    passive: true,
                    ..QueueDeclareOptions::default()
                },
                FieldTable::default(),
            )
            .await;
        let _ = conn.close(200, "done".into()).await;
        if declared.is_ok() {
            return Ok(());
        }
        ensure!(
            Instant::now() < deadline,
            "the server did not declare queue {QUEUE:?} within {timeout:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Row ids of `shop.orders` INSERT messages, in arrival order, read until
/// every id of `want` was seen.
async fn consume_ids(
    broker: &RabbitMq,
    want: &BTreeSet<i64>,
    timeout: Duration,
) -> Result<Vec<i64>> {
    let conn = connect(broker).await?;
    let channel = conn.create_channel().await?;
    let mut consumer = channel
        .basic_consume(
            QUEUE.into(),
            "sluice-e2e".into(),
            BasicConsumeOptions::default(),
            FieldTable::default(),
        )
        .await?;
    let deadline = tokio::time::Instant::now() + timeout;
    let mut ids = Vec::new();
    let mut seen = BTreeSet::new();
    while !want.is_subset(&seen) {
        let Ok(next) = tokio::time::timeout_at(deadline, consumer.next()).await else {
            let missing: Vec<_> = want.difference(&seen).take(10).collect();
            bail!("rows never published within {timeout:?} (first 10): {missing:?}");
        };
        let delivery = next.context("the consumer was cancelled")??;
        let message: Value = serde_json::from_slice(&delivery.data).with_context(|| {
            format!(
                "not FlatMessage JSON: {:?}",
                String::from_utf8_lossy(&delivery.data)
            )
        })?;
        delivery.ack(BasicAckOptions::default()).await?;
        ensure!(
            delivery
                .properties
                .content_type()
                .as_ref()
                .map(|c| c.as_str())
                == Some("text/plain")
                && *delivery.properties.delivery_mode() == Some(2),
            "not PERSISTENT_TEXT_PLAIN: {:?}",
            delivery.properties
        );
        if message["isDdl"] == Value::Bool(true) {
            continue;
        }
        ensure!(
            message["database"] == "shop" && message["table"] == "orders",
            "{message}"
        );
        ensure!(message["type"] == "INSERT", "{message}");
        let rows = message["data"].as_array().context("no data")?;
        for row in rows {
            let id: i64 = row["id"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .with_context(|| format!("no id in {row}"))?;
            ensure!(row["name"] == format!("order {id}").as_str(), "{row}");
            ids.push(id);
            seen.insert(id);
        }
    }
    conn.close(200, "done".into()).await?;
    Ok(ids)
}

/// The last lines of the server's log, for a failure's message (the
/// temporary folder is gone afterwards).
fn log_tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(40)..].join("\n");
    format!("the server's log ends with:\n{tail}")
}

fn insert(db: &MariaDb, ids: std::ops::RangeInclusive<i64>) -> Result<()> {
    for id in ids {
        db.exec(&format!(
            "INSERT INTO shop.orders (id, name) VALUES ({id}, 'order {id}')"
        ))?;
    }
    Ok(())
}

/// Every id of `want` is there; the new ones come in order (a batch sent
/// again after a failure repeats ids already seen, never skips one).
fn check_order(ids: &[i64], want: &BTreeSet<i64>) -> Result<()> {
    let mut seen = BTreeSet::new();
    let mut last_new = None;
    for &id in ids {
        if seen.insert(id) {
            ensure!(
                last_new.is_none_or(|l| id == l + 1),
                "row {id} arrived after {last_new:?}: {ids:?}"
            );
            last_new = Some(id);
        }
    }
    ensure!(&seen == want, "rows {seen:?}, expected {want:?}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rabbit_mq_mode_publishes_every_row_in_order_through_a_broker_outage() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    db.exec(
        "CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, name VARCHAR(64))",
    )?;
    let broker = RabbitMq::start_with(RabbitMqConfig::default().vhost("/canal"))?;
    let conf = tempfile::tempdir()?;
    write_conf(conf.path(), db.port(), &broker)?;
    let log = conf.path().join("server.log");
    let mut server = spawn_server(conf.path(), &log);
    let outcome = async {
        // Declared at start-up, before any row.
        wait_for_queue(&broker, Duration::from_secs(60)).await?;

        insert(&db, 1..=100)?;
        let want: BTreeSet<i64> = (1..=100).collect();
        let ids = consume_ids(&broker, &want, Duration::from_secs(60)).await?;
        ensure!(ids == (1..=100).collect::<Vec<_>>(), "first rows: {ids:?}");

        // The broker goes away; rows written meanwhile wait in the server.
        broker.stop()?;
        insert(&db, 101..=200)?;
        tokio::time::sleep(Duration::from_secs(2)).await;
        broker.restart()?;
        let want: BTreeSet<i64> = (101..=200).collect();
        let ids = consume_ids(&broker, &want, Duration::from_secs(90)).await?;
        check_order(&ids, &want)?;
        eprintln!(
            "{} messages for 100 rows written during the outage",
            ids.len()
        );
        Ok(())
    }
    .await;
    let _ = server.kill();
    let _ = server.wait();
    outcome.with_context(|| log_tail(&log))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rabbit_mq_mode_server_killed_while_rows_stream_loses_no_row() -> Result<()> {
    const ROWS: i64 = 600;
    const KILLS: usize = 3;
    let db = std::sync::Arc::new(MariaDb::start(MariaDbConfig::default())?);
    db.exec(
        "CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, name VARCHAR(64))",
    )?;
    let broker = RabbitMq::start()?;
    let conf = tempfile::tempdir()?;
    write_conf(conf.path(), db.port(), &broker)?;
    let log = conf.path().join("server.log");
    let mut server = spawn_server(conf.path(), &log);
    let outcome: Result<()> = async {
        wait_for_queue(&broker, Duration::from_secs(60)).await?;
        let written = std::sync::Arc::new(std::sync::atomic::AtomicI64::new(0));
        let writer = {
            let db = db.clone();
            let written = written.clone();
            std::thread::spawn(move || -> Result<()> {
                for id in 1..=ROWS {
                    insert(&db, id..=id)?;
                    written.store(id, std::sync::atomic::Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(5));
                }
                Ok(())
            })
        };
        // SIGKILL: the server acks a batch only after the broker confirmed
        // it, so a restart sends again what was not acked, never less.
        for _ in 0..KILLS {
            tokio::time::sleep(Duration::from_millis(700)).await;
            server.kill()?;
            server.wait()?;
            server = spawn_server(conf.path(), &log);
        }
        let at_last_kill = written.load(std::sync::atomic::Ordering::SeqCst);
        ensure!(
            at_last_kill < ROWS,
            "every row was written before the last kill"
        );
        writer
            .join()
            .map_err(|_| anyhow::anyhow!("the writer thread panicked"))??;
        let want: BTreeSet<i64> = (1..=ROWS).collect();
        let ids = consume_ids(&broker, &want, Duration::from_secs(120)).await?;
        check_order(&ids, &want)?;
        eprintln!(
            "{} messages for {ROWS} rows with {KILLS} kills of the server (the last at row {at_last_kill})",
            ids.len()
        );
        Ok(())
    }
    .await;
    let _ = server.kill();
    let _ = server.wait();
    outcome.with_context(|| log_tail(&log))
}

/// The initial snapshot in MQ mode: the rows already in `shop.orders` reach
/// the queue as FlatMessage INSERTs marked `"snapshot":true`, each once, and
/// rows written afterwards come from the stream, without the mark. A
/// black-listed column (`canal.instance.filter.black.field`) is in no
/// message, snapshot or stream: not in `data`, `mysqlType` or `sqlType`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rabbit_mq_mode_delivers_the_initial_snapshot_as_marked_inserts() -> Result<()> {
    const BEFORE: i64 = 3_000;
    let db = MariaDb::start(MariaDbConfig::default())?;
    db.exec(&format!(
        "CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, name VARCHAR(64),
             card VARCHAR(24) DEFAULT 'card-secret');
         USE shop; INSERT INTO shop.orders (id, name) SELECT seq, CONCAT('order ', seq) FROM seq_1_to_{BEFORE}"
    ))?;
    let broker = RabbitMq::start()?;
    let conf = tempfile::tempdir()?;
    write_conf(conf.path(), db.port(), &broker)?;
    // From the binlog's end (not its start, which would replay the rows),
    // with the snapshot on.
    std::fs::write(
        conf.path().join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.filter.regex = shop\\\\..*\n\
             canal.mq.topic = {QUEUE}\n\
             canal.instance.filter.black.field = shop.orders:CARD\n\
             sluice.instance.snapshot.mode = initial\n\
             sluice.instance.snapshot.chunkSize = 1000\n",
            db.port()
        ),
    )?;
    let log = conf.path().join("server.log");
    let mut server = spawn_server(conf.path(), &log);
    let outcome: Result<()> = async {
        wait_for_queue(&broker, Duration::from_secs(60)).await?;
        let conn = connect(&broker).await?;
        let channel = conn.create_channel().await?;
        let mut consumer = channel
            .basic_consume(
                QUEUE.into(),
                "sluice-snapshot".into(),
                BasicConsumeOptions::default(),
                FieldTable::default(),
            )
            .await?;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        let mut snapshot_ids = Vec::new();
        let mut stream_ids = Vec::new();
        let mut wrote_after = false;
        while snapshot_ids.len() < BEFORE as usize || stream_ids.len() < 10 {
            if !wrote_after && snapshot_ids.len() >= BEFORE as usize {
                insert(&db, BEFORE + 1..=BEFORE + 10)?;
                wrote_after = true;
            }
            let Ok(next) = tokio::time::timeout_at(deadline, consumer.next()).await else {
                bail!(
                    "{} snapshot rows and {} stream rows arrived, not all",
                    snapshot_ids.len(),
                    stream_ids.len()
                );
            };
            let delivery = next.context("the consumer was cancelled")??;
            let message: Value = serde_json::from_slice(&delivery.data)?;
            delivery.ack(BasicAckOptions::default()).await?;
            if message["isDdl"] == Value::Bool(true) {
                continue;
            }
            ensure!(message["type"] == "INSERT", "{message}");
            ensure!(
                message["mysqlType"] == serde_json::json!({"id": "int(11)", "name": "varchar(64)"})
                    && !String::from_utf8_lossy(&delivery.data).contains("card"),
                "a hidden column published: {message}"
            );
            let snapshot = message.get("snapshot") == Some(&Value::Bool(true));
            ensure!(
                snapshot || message.get("snapshot").is_none(),
                "a snapshot key that is not true: {message}"
            );
            for row in message["data"].as_array().context("no data")? {
                let id: i64 = row["id"]
                    .as_str()
                    .and_then(|s| s.parse().ok())
                    .with_context(|| format!("no id in {row}"))?;
                ensure!(row["name"] == format!("order {id}").as_str(), "{row}");
                if snapshot {
                    snapshot_ids.push(id);
                } else {
                    stream_ids.push(id);
                }
            }
        }
        conn.close(200, "done".into()).await?;
        // Chunks come in key order, each row once (nothing changed meanwhile).
        ensure!(
            snapshot_ids == (1..=BEFORE).collect::<Vec<_>>(),
            "snapshot rows {}..: not 1..={BEFORE} once each in order",
            snapshot_ids.first().copied().unwrap_or(0)
        );
        ensure!(
            stream_ids == (BEFORE + 1..=BEFORE + 10).collect::<Vec<_>>(),
            "stream rows: {stream_ids:?}"
        );
        Ok(())
    }
    .await;
    let _ = server.kill();
    let _ = server.wait();
    outcome.with_context(|| log_tail(&log))
}

/// A Canal client that subscribed with a filter while the destination was
/// served over TCP stays in the stored subscriptions; once the server runs
/// in RabbitMQ mode, the worker still publishes every table the configured
/// filter keeps, not just that client's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rabbit_mq_mode_publishes_what_the_configuration_keeps_whatever_a_tcp_client_subscribed_with(
) -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    db.exec(
        "CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, name VARCHAR(64)); \
         CREATE TABLE shop.other (id INT PRIMARY KEY)",
    )?;
    let broker = RabbitMq::start()?;
    let conf = tempfile::tempdir()?;
    let log = conf.path().join("server.log");
    // First over TCP: client 1002 subscribes to shop.other only.
    let canal_port = find_free_port()?;
    std::fs::write(
        conf.path().join("canal.properties"),
        format!(
            "canal.port = {canal_port}\ncanal.destinations = example\ncanal.auto.scan = false\n"
        ),
    )?;
    write_example_instance(conf.path(), db.port(), r"shop\\..*");
    let mut server = spawn_server(conf.path(), &log);
    let subscribed = async {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let options = sluice_client::ConnectorOptions {
                client_id: 1002,
                ..Default::default()
            };
            let addr = format!("127.0.0.1:{canal_port}");
            if let Ok(mut c) =
                sluice_client::SimpleConnector::connect_with(&addr, "example", "", "", options)
                    .await
            {
                if c.subscribe(r"shop\.other").await.is_ok() {
                    return Ok(());
                }
            }
            ensure!(Instant::now() < deadline, "no Canal port at {addr}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    .await;
    let _ = server.kill();
    let _ = server.wait();
    subscribed.with_context(|| log_tail(&log))?;

    // Then in RabbitMQ mode, with that subscription still stored.
    write_conf(conf.path(), db.port(), &broker)?;
    let mut server = spawn_server(conf.path(), &log);
    let outcome = async {
        wait_for_queue(&broker, Duration::from_secs(60)).await?;
        insert(&db, 1..=50)?;
        let want: BTreeSet<i64> = (1..=50).collect();
        let ids = consume_ids(&broker, &want, Duration::from_secs(60)).await?;
        check_order(&ids, &want)
    }
    .await;
    let _ = server.kill();
    let _ = server.wait();
    outcome.with_context(|| log_tail(&log))
}
