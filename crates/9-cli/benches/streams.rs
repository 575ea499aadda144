//! MQ mode into Redis streams, NATS JetStream and RabbitMQ: rows per second
//! from a live MariaDB through `sluice server` (`canal.serverMode = redis`,
//! `nats` and `rabbitMQ`), as FlatMessage JSON, the setups of the Kafka
//! benchmark (`mq.rs`) with the other three brokers.
//!
//! Input: the binlog of `scripts/gen-bench-binlog` (1.3 M row changes of a
//! 22-column table), served by a private MariaDB. Brokers: a private
//! `redis-server` without persistence, a private `nats-server -js` with
//! its file store in a temporary folder and a private RabbitMQ node, on the
//! same machine, a fresh one for every pass. Each pass starts `sluice server --conf DIR` (release
//! build) on a fresh configuration folder: the destination starts at
//! `binlog.000001:4` with file cursors, `canal.mq.flatMessage = true`,
//! `canal.mq.partitionHash = .*\\..*:$pk$` over 3 partitions (as in the
//! Kafka benchmark), in two setups: Canal's defaults (gets of 50 KB of
//! entries) and `canal.mq.canalBatchSize = 1024` (gets of 1 MB). The clock
//! runs from the server's start until the destination's cursor reaches the
//! binlog's last transaction: the worker acks a batch only once the broker
//! confirmed every record of it. The broker is not asked while the clock
//! runs. An untimed first pass of each broker and setup is read back whole
//! (Redis: `XRANGE` in pages; NATS: a pull consumer) and every row of every
//! FlatMessage counted; after each timed pass the stream must hold as many
//! records as after that untimed pass (`XLEN`, the JetStream stream's
//! message count). RabbitMQ is read during every pass, as an application
//! reads it, by a lapin consumer started before the server: its clock also
//! waits for the consumer to have every record.
//!
//! `SLUICE_BENCH_STREAMS_ITERS` (default 3) sets the timed passes,
//! `SLUICE_BENCH_STREAMS_BROKERS` (`redis,nats,rabbitmq` by default) the
//! brokers,
//! `SLUICE_BENCH_MQ_PROPERTIES` adds `canal.properties` lines (`;`-separated),
//! `SLUICE_BENCH_NO_DOCS=1` skips writing docs/benchmarks.md.

mod common;

use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_nats::jetstream::consumer::{pull, AckPolicy, DeliverPolicy};
use common::{
    binlog_facts, extra_properties, median, root, spawn_server, thousands, write_conf, PARTITIONS,
    SETUPS,
};
use futures_lite::StreamExt;
use lapin::options::{BasicConsumeOptions, BasicQosOptions, QueueDeclareOptions};
use lapin::types::FieldTable;
use lapin::{Connection, ConnectionProperties};
use redis::streams::StreamRangeReply;
use redis::AsyncCommands;
use sluice_testkit::bench_binlog::BenchBinlog;
use sluice_testkit::bench_docs::process_usage;
use sluice_testkit::nats::Nats;
use sluice_testkit::rabbitmq::RabbitMq;
use sluice_testkit::redis::Redis;
use sluice_testkit::MariaDb;
use tokio::runtime::Runtime;

/// The topic: the Redis stream's key, the NATS subject `sluice.bench`.
const TOPIC: &str = "bench";
/// The JetStream stream the server creates (`sluice.mq.nats.stream`'s
/// default).
const NATS_STREAM: &str = "sluice";
/// Entries per `XRANGE` page when reading a Redis stream back.
const PAGE: usize = 1000;

#[derive(Clone, Copy)]
enum Kind {
    Redis,
    Nats,
    Rabbit,
}

const KINDS: [Kind; 3] = [Kind::Redis, Kind::Nats, Kind::Rabbit];

/// The brokers `SLUICE_BENCH_STREAMS_BROKERS` names (`redis`, `nats`,
/// `rabbitmq`, comma-separated), every one when unset.
fn kinds() -> Vec<Kind> {
    let Ok(names) = std::env::var("SLUICE_BENCH_STREAMS_BROKERS") else {
        return KINDS.to_vec();
    };
    let names: Vec<String> = names.split(',').map(|n| n.trim().to_lowercase()).collect();
    KINDS
        .into_iter()
        .filter(|k| names.iter().any(|n| *n == k.name().to_lowercase()))
        .collect()
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Redis => "Redis",
            Kind::Nats => "NATS",
            Kind::Rabbit => "RabbitMQ",
        }
    }

    fn start(self) -> Broker {
        match self {
            Kind::Redis => Broker::Redis(Redis::start().expect("start redis-server")),
            Kind::Nats => Broker::Nats(Nats::start().expect("start nats-server")),
            Kind::Rabbit => Broker::Rabbit(
                RabbitMq::start().expect("start a RabbitMQ node"),
                Received::default(),
            ),
        }
    }

    /// `redis-server --version`, `nats-server --version`, or the
    /// `rabbitmq-server` package's version.
    fn version(self) -> String {
        let program = match self {
            Kind::Redis => "redis-server",
            Kind::Nats => "nats-server",
            Kind::Rabbit => {
                return Command::new("dpkg-query")
                    .args(["-W", "-f=${Version}", "rabbitmq-server"])
                    .output()
                    .ok()
                    .filter(|o| o.status.success())
                    .map(|o| format!("rabbitmq-server {}", String::from_utf8_lossy(&o.stdout)))
                    .unwrap_or_else(|| "rabbitmq-server (version unknown)".into());
            }
        };
        Command::new(program)
            .arg("--version")
            .output()
            .ok()
            .map(|o| {
                let text = String::from_utf8_lossy(&o.stdout).into_owned();
                // `Redis server v=7.0.15 sha=…` or `nats-server: v2.9.10`.
                let v = text
                    .split_whitespace()
                    .find_map(|w| w.strip_prefix("v=").or_else(|| w.strip_prefix('v')))
                    .unwrap_or("(version unknown)")
                    .to_string();
                format!("{program} {v}")
            })
            .unwrap_or_else(|| format!("{program} (version unknown)"))
    }
}

/// A private broker, killed on drop.
enum Broker {
    Redis(Redis),
    Nats(Nats),
    /// With what its consumer received during the pass.
    Rabbit(RabbitMq, Received),
}

/// What the RabbitMQ consumer of a pass received: records, and rows in
/// their `data` arrays when it counts them.
#[derive(Clone, Default)]
struct Received {
    records: Arc<AtomicU64>,
    rows: Arc<AtomicU64>,
}

impl Broker {
    fn pid(&self) -> u32 {
        match self {
            Broker::Redis(r) => r.pid(),
            Broker::Nats(n) => n.pid(),
            Broker::Rabbit(q, _) => q.pid(),
        }
        .expect("the broker runs")
    }

    /// The `canal.properties` lines that send the records to it.
    fn mode_lines(&self) -> String {
        match self {
            Broker::Redis(r) => format!(
                "canal.serverMode = redis\nsluice.mq.redis.url = {}\n",
                r.url()
            ),
            Broker::Nats(n) => format!(
                "canal.serverMode = nats\nsluice.mq.nats.url = {}\n",
                n.url()
            ),
            // The default exchange routes by the topic to the queue of
            // that name.
            Broker::Rabbit(q, _) => format!(
                "canal.serverMode = rabbitMQ\nrabbitmq.host = {}\nrabbitmq.virtual.host = {}\nrabbitmq.username = {}\nrabbitmq.password = {}\nrabbitmq.queue = {TOPIC}\n",
                q.address(),
                q.vhost(),
                q.user(),
                q.password()
            ),
        }
    }

    /// Records the stream holds now: `XLEN`, or the JetStream stream's
    /// message count (0 while it does not exist); for RabbitMQ, what its
    /// consumer received and what the queue still holds.
    fn stored(&self, rt: &Runtime) -> u64 {
        rt.block_on(async {
            match self {
                Broker::Redis(r) => {
                    let mut con = redis_connection(r).await;
                    con.xlen(TOPIC).await.expect("XLEN")
                }
                Broker::Nats(n) => {
                    let js = jetstream(n).await;
                    match js.get_stream(NATS_STREAM).await {
                        Ok(stream) => {
                            stream
                                .get_info()
                                .await
                                .expect("the JetStream stream's info")
                                .state
                                .messages
                        }
                        Err(_) => 0,
                    }
                }
                Broker::Rabbit(q, received) => {
                    let conn = rabbit_connection(q).await;
                    let channel = conn.create_channel().await.expect("an AMQP channel");
                    let count = match channel
                        .queue_declare(
                            TOPIC.into(),
                            QueueDeclareOptions {
                                passive: true,
                                ..QueueDeclareOptions::default()
                            },
                            FieldTable::default(),
                        )
                        .await
                    {
                        Ok(queue) => u64::from(queue.message_count()),
                        Err(_) => 0,
                    };
                    let _ = conn.close(200, "done".into()).await;
                    received.records.load(Ordering::SeqCst) + count
                }
            }
        })
    }

    /// Reads every record back: (records, rows in their `data` arrays).
    fn read_back(&self, rt: &Runtime, records: u64) -> (u64, u64) {
        rt.block_on(async {
            match self {
                Broker::Redis(r) => redis_read_back(r).await,
                Broker::Nats(n) => nats_read_back(n, records).await,
                // Its consumer read the queue during the pass.
                Broker::Rabbit(_, received) => (
                    received.records.load(Ordering::SeqCst),
                    received.rows.load(Ordering::SeqCst),
                ),
            }
        })
    }
}

async fn rabbit_connection(q: &RabbitMq) -> Connection {
    Connection::connect(&q.amqp_uri(), ConnectionProperties::default())
        .await
        .expect("connect to the RabbitMQ node")
}

async fn redis_connection(r: &Redis) -> redis::aio::MultiplexedConnection {
    redis::Client::open(r.url())
        .expect("a Redis client")
        .get_multiplexed_async_connection()
        .await
        .expect("connect to redis-server")
}

async fn jetstream(n: &Nats) -> async_nats::jetstream::Context {
    let client = async_nats::connect(n.url())
        .await
        .expect("connect to nats-server");
    async_nats::jetstream::new(client)
}

/// The rows in a FlatMessage's `data` array.
fn rows_in(payload: &[u8]) -> u64 {
    let v: serde_json::Value = serde_json::from_slice(payload).expect("a FlatMessage (JSON)");
    v["data"].as_array().map_or(0, |d| d.len() as u64)
}

/// The whole Redis stream, `XRANGE` page by page.
async fn redis_read_back(r: &Redis) -> (u64, u64) {
    let mut con = redis_connection(r).await;
    let (mut seen, mut rows) = (0u64, 0u64);
    let mut start = "-".to_string();
    loop {
        let page: StreamRangeReply = con
            .xrange_count(TOPIC, &start, "+", PAGE)
            .await
            .expect("XRANGE");
        for entry in &page.ids {
            match entry.map.get("payload") {
                Some(redis::Value::BulkString(b)) => rows += rows_in(b),
                other => panic!("entry {} has no payload: {other:?}", entry.id),
            }
            seen += 1;
        }
        match page.ids.last() {
            Some(last) if page.ids.len() == PAGE => start = format!("({}", last.id),
            _ => break,
        }
    }
    (seen, rows)
}

/// The whole JetStream stream through a pull consumer, and past the count
/// the stream reports too, until nothing comes for 3 s.
async fn nats_read_back(n: &Nats, records: u64) -> (u64, u64) {
    let js = jetstream(n).await;
    let stream = js
        .get_stream(NATS_STREAM)
        .await
        .expect("the JetStream stream");
    let consumer = stream
        .create_consumer(pull::Config {
            ack_policy: AckPolicy::None,
            deliver_policy: DeliverPolicy::All,
            ..Default::default()
        })
        .await
        .expect("a JetStream pull consumer");
    let mut messages = consumer.messages().await.expect("the consumer's messages");
    let (mut seen, mut rows) = (0u64, 0u64);
    loop {
        let wait = if seen >= records {
            Duration::from_secs(3)
        } else {
            Duration::from_secs(60)
        };
        match tokio::time::timeout(wait, messages.next()).await {
            Ok(Some(m)) => {
                let m = m.expect("a JetStream message");
                assert_eq!(
                    m.subject.as_str(),
                    format!("sluice.{TOPIC}"),
                    "the subject of a record"
                );
                rows += rows_in(&m.payload);
                seen += 1;
            }
            Ok(None) => break,
            Err(_) => {
                assert!(seen >= records, "{seen} of {records} messages read");
                break;
            }
        }
    }
    (seen, rows)
}

impl Broker {
    /// RabbitMQ: declares the durable queue the server publishes to (as the
    /// server does) and consumes it on `rt` from before the server starts,
    /// as an application reading the changes does: acks off, up to 1000
    /// unacknowledged at a time. With `count_rows` each record is parsed
    /// and its rows counted; otherwise only records are counted (a timed
    /// pass: the consumer shares the cores with what is measured).
    fn start_consumer(
        &self,
        rt: &Runtime,
        count_rows: bool,
    ) -> Option<tokio::task::JoinHandle<()>> {
        let Broker::Rabbit(q, received) = self else {
            return None;
        };
        let (uri, received) = (q.amqp_uri(), received.clone());
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let task = rt.spawn(async move {
            let conn = Connection::connect(&uri, ConnectionProperties::default())
                .await
                .expect("connect to the RabbitMQ node");
            let channel = conn.create_channel().await.expect("an AMQP channel");
            channel
                .queue_declare(
                    TOPIC.into(),
                    QueueDeclareOptions {
                        durable: true,
                        ..QueueDeclareOptions::default()
                    },
                    FieldTable::default(),
                )
                .await
                .expect("declare the queue");
            channel
                .basic_qos(1000, BasicQosOptions::default())
                .await
                .expect("basic.qos");
            let mut consumer = channel
                .basic_consume(
                    TOPIC.into(),
                    "sluice-bench".into(),
                    BasicConsumeOptions {
                        no_ack: true,
                        ..BasicConsumeOptions::default()
                    },
                    FieldTable::default(),
                )
                .await
                .expect("a consumer of the queue");
            let _ = ready_tx.send(());
            while let Some(d) = consumer.next().await {
                let d = d.expect("a delivery");
                if count_rows {
                    received.rows.fetch_add(rows_in(&d.data), Ordering::SeqCst);
                }
                received.records.fetch_add(1, Ordering::SeqCst);
            }
        });
        ready_rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the RabbitMQ consumer is ready");
        Some(task)
    }

    /// RabbitMQ: waits until its consumer has received `records` (a timed
    /// pass: the untimed pass's count), or, without a count, until nothing
    /// more came for 3 s.
    fn wait_consumed(&self, records: Option<u64>, label: &str) {
        let Broker::Rabbit(_, received) = self else {
            return;
        };
        let start = Instant::now();
        let (mut last, mut since) = (u64::MAX, Instant::now());
        loop {
            let now = received.records.load(Ordering::SeqCst);
            match records {
                Some(n) if now >= n => return,
                None if now == last && since.elapsed() >= Duration::from_secs(3) => return,
                _ => {}
            }
            if now != last {
                (last, since) = (now, Instant::now());
            }
            assert!(
                start.elapsed() < Duration::from_secs(600),
                "{label}: the consumer received {now} records in 10 minutes"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// One pass: wall seconds until the cursor reaches `end`, and the CPU
/// seconds and peak RSS (MB) of the server and of the broker over it.
struct Pass {
    secs: f64,
    server_cpu: f64,
    server_rss: f64,
    broker_cpu: f64,
    broker_rss: f64,
}

/// `records`: what the broker is to hold at the end (`None`: not known
/// yet, the untimed pass).
#[allow(clippy::too_many_arguments)]
fn run_pass(
    rt: &Runtime,
    db: &MariaDb,
    broker: &Broker,
    input: &BenchBinlog,
    end: u64,
    setup: &str,
    label: &str,
    records: Option<u64>,
) -> Pass {
    let conf = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a conf folder");
    write_conf(
        conf.path(),
        db.port(),
        &input.files[0],
        &broker.mode_lines(),
        TOPIC,
        setup,
    );
    let broker_pid = broker.pid();
    let consumer = broker.start_consumer(rt, records.is_none());
    let broker0 = process_usage(broker_pid).0;
    let t = Instant::now();
    let mut server = spawn_server(conf.path());
    let (server_cpu, server_rss) = common::wait_for_cursor(&mut server, conf.path(), end, label);
    // RabbitMQ: the clock runs until the consumer has every record too.
    broker.wait_consumed(records, label);
    let secs = t.elapsed().as_secs_f64();
    if let Some(task) = consumer {
        task.abort();
    }
    let (broker_cpu, broker_rss) = process_usage(broker_pid);
    let _ = server.kill();
    let _ = server.wait();
    Pass {
        secs,
        server_cpu,
        server_rss,
        broker_cpu: broker_cpu - broker0,
        broker_rss,
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let iters: usize = std::env::var("SLUICE_BENCH_STREAMS_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    // The machine's 1-minute load average before the run, for the section.
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into());
    let rt = Runtime::new().expect("a tokio runtime");
    let input = BenchBinlog::locate(&root()).expect("the bench binlog");
    let (rows, end) = binlog_facts(&input);
    let db = input.serve().expect("serve the bench binlog");
    eprintln!(
        "streams: {} ({:.1} MB, {rows} row changes), MariaDB on {}",
        input.dir.display(),
        input.bytes() as f64 / 1e6,
        db.port(),
    );

    // Untimed, each broker and setup once: read back whole and counted.
    // stored[b][k]: the records broker b held after setup k's pass.
    let kinds = kinds();
    let mut stored = vec![vec![0u64; SETUPS.len()]; kinds.len()];
    let mut verified = Vec::new();
    for (b, kind) in kinds.iter().enumerate() {
        for (k, setup) in SETUPS.iter().enumerate() {
            let broker = kind.start();
            let label = format!("{} untimed, {}", kind.name(), setup.name);
            run_pass(&rt, &db, &broker, &input, end, setup.lines, &label, None);
            let records = broker.stored(&rt);
            let (seen, read_rows) = broker.read_back(&rt, records);
            assert_eq!(
                (seen, read_rows),
                (records, rows),
                "{label}: every record read back, every row of the binlog once"
            );
            eprintln!("streams: {label}: {seen} records holding {read_rows} rows; cursor at {end}");
            stored[b][k] = records;
            verified.push(seen);
        }
    }

    // passes[b][k]: the timed passes of broker b, setup k.
    let mut passes: Vec<Vec<Vec<Pass>>> = kinds
        .iter()
        .map(|_| SETUPS.iter().map(|_| Vec::new()).collect())
        .collect();
    for i in 1..=iters {
        for (b, kind) in kinds.iter().enumerate() {
            for (k, setup) in SETUPS.iter().enumerate() {
                let broker = kind.start();
                let label = format!("{} pass {i}, {}", kind.name(), setup.name);
                let pass = run_pass(
                    &rt,
                    &db,
                    &broker,
                    &input,
                    end,
                    setup.lines,
                    &label,
                    matches!(kind, Kind::Rabbit).then_some(stored[b][k]),
                );
                assert_eq!(
                    broker.stored(&rt),
                    stored[b][k],
                    "{label}: as many records as the untimed pass"
                );
                eprintln!(
                    "streams: {label}: {:.3} s, {:.0} rows/s; server CPU {:.1} s, RSS {:.0} MB; broker CPU {:.1} s, RSS {:.0} MB",
                    pass.secs,
                    rows as f64 / pass.secs,
                    pass.server_cpu,
                    pass.server_rss,
                    pass.broker_cpu,
                    pass.broker_rss,
                );
                passes[b][k].push(pass);
            }
        }
    }

    let mut table = String::new();
    for (kind, by_setup) in kinds.iter().zip(&passes) {
        for (setup, passes) in SETUPS.iter().zip(by_setup) {
            let best = passes.iter().map(|p| p.secs).fold(f64::INFINITY, f64::min);
            let all: Vec<String> = passes.iter().map(|p| format!("{:.3}", p.secs)).collect();
            table.push_str(&format!(
                "| {broker} | {name} | {best:.3} s | {med:.3} s | {all} | {rate} | {mrate} | {scpu:.1} s | {rss:.0} MB | {bcpu:.1} s | {brss:.0} MB |\n",
                broker = kind.name(),
                name = setup.name,
                med = median(passes.iter().map(|p| p.secs).collect()),
                all = all.join(", "),
                rate = thousands(rows as f64 / best),
                mrate = thousands(rows as f64 / median(passes.iter().map(|p| p.secs).collect())),
                scpu = median(passes.iter().map(|p| p.server_cpu).collect()),
                rss = passes.iter().map(|p| p.server_rss).fold(0.0, f64::max),
                bcpu = median(passes.iter().map(|p| p.broker_cpu).collect()),
                brss = passes.iter().map(|p| p.broker_rss).fold(0.0, f64::max),
            ));
        }
    }
    let body = format!(
        "## MQ mode: rows/s from a live MariaDB into Redis streams, NATS JetStream and RabbitMQ\n\n\
         Machine: {cpus} CPUs by `nproc` ({cpu}); MariaDB {version}, {redis}, {nats}, {rabbit}; `sluice server` (release build), the broker and MariaDB on the same cores, shared with other work (1-minute load average {load} when the run started).\n\n\
         Input: {manifest}: {rows} row changes, {mb:.1} MB of binlog, served by a private MariaDB.\n\n\
         Method: each pass starts a fresh broker — `redis-server` without persistence (`--save \"\" --appendonly no`), `nats-server -js` with its file store in a temporary folder, or a RabbitMQ node in a temporary folder — and `sluice server --conf DIR` with `canal.serverMode = redis`, `nats` or `rabbitMQ` on a fresh configuration folder (destination `bench` from `binlog.000001:4`, file cursors, `canal.mq.flatMessage = true`, topic `{TOPIC}`, `canal.mq.partitionHash = .*\\\\..*:$pk$` over {PARTITIONS} partitions as in the Kafka benchmark{extra}). Redis: one `XADD` per record to the stream `{TOPIC}`, a batch one pipeline; NATS: one publish per record to the subject `sluice.{TOPIC}` of the stream `{NATS_STREAM}` (which the server creates), the batch confirmed once JetStream acked every record; RabbitMQ: one persistent publish per record through the default exchange to the durable queue `{TOPIC}`, with publisher confirms, the batch acked once the broker confirmed every record, and a Rust consumer (lapin, acks off, 1000 unacknowledged at a time, in the benchmark's process) reading the queue from before the server starts, as an application does. The clock stops when the destination's cursor file says the last transaction is acked (RabbitMQ: and the consumer has received every record) (polled every 20 ms; the broker is not asked while the clock runs); a batch is acked only once the broker confirmed every record of it and of every batch before it, up to `sluice.mq.inFlightBatches` batches (8 by default) unconfirmed at a time. Three setups: Canal's defaults (`canal.mq.canalBatchSize = 50` in `MEMSIZE` mode: gets of 50 KB of entries), the same with one batch in flight (`sluice.mq.inFlightBatches = 1`, as Canal sends), and gets of 1 MB (`canal.mq.canalBatchSize = 1024`). Peak RSS is the server's (and the broker's) `VmHWM` from `/proc/PID/status`, read before the server is stopped; a Redis stream lives in the broker's memory, so Redis's peak RSS is mostly the stream the pass wrote.\n\n\
         Verified: after an untimed first pass of each broker and setup the stream was read back whole — Redis with `XRANGE` in pages of {PAGE} entries, NATS with a JetStream pull consumer from the stream's first message, RabbitMQ by its consumer during the pass — and held as many records as `XLEN` / the stream's message count / the consumer said ({verified}), holding {rows} rows in their FlatMessages' `data` arrays: every row of the binlog once. After each timed pass `XLEN` / the stream's message count / the records the consumer received matched that untimed pass of its broker and setup. {iters} timed passes of each broker and setup, interleaved; rows/s of the best and of the median pass.\n\n\
         | broker | setup | best | median | all passes | rows/s (best) | rows/s (median) | server CPU (median) | server peak RSS | broker CPU (median) | broker peak RSS |\n\
         | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n\
         {table}\n\
         Reproduce:\n\n```sh\ncargo bench -p sluice-cli --bench streams\n```\n\n\
         It needs `redis-server`, `nats-server` and `rabbitmq-server` (`apt-get install redis-server nats-server rabbitmq-server`). `SLUICE_BENCH_STREAMS_ITERS` (default 3) sets the timed passes, `SLUICE_BENCH_STREAMS_BROKERS` (`redis,nats,rabbitmq` by default) the brokers, `SLUICE_BENCH_MQ_PROPERTIES` adds `canal.properties` lines (`;`-separated) to every setup, `SLUICE_BENCH_BINLOG` another binlog directory, `SLUICE_BENCH_NO_DOCS=1` skips writing this section.\n",
        cpus = std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu = sluice_testkit::bench_docs::cpu_model(),
        redis = Kind::Redis.version(),
        nats = Kind::Nats.version(),
        rabbit = Kind::Rabbit.version(),
        extra = match extra_properties().trim() {
            "" => String::new(),
            e => format!("; also `{}`", e.replace('\n', "`, `")),
        },
        version = db
            .query("SELECT VERSION()")
            .ok()
            .and_then(|r| r.into_iter().next())
            .and_then(|r| r.into_iter().next().flatten())
            .unwrap_or_default(),
        manifest = input.manifest,
        mb = input.bytes() as f64 / 1e6,
        verified = if verified.windows(2).all(|w| w[0] == w[1]) {
            format!("{} records in each stream", verified[0])
        } else {
            verified
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
                + " records: Redis, then NATS, then RabbitMQ, each with the two setups"
        },
    );
    println!("{body}");
    if std::env::var("SLUICE_BENCH_NO_DOCS").as_deref() != Ok("1") {
        let path = sluice_testkit::bench_docs::write_section(
            "<!-- mq-streams:begin -->",
            "<!-- mq-streams:end -->",
            &body,
        )
        .expect("write docs/benchmarks.md");
        eprintln!("streams: wrote {}", path.display());
    }
}
