//! MQ mode with Kafka: `sluice server` processes with `canal.serverMode =
//! kafka` read a private MariaDB and publish FlatMessage JSON to a private
//! tansu broker; consumers read the topic back.
//!
//! - Every change of several tables arrives as the FlatMessage Canal sends
//!   (fields compared with the expected JSON, `ts` aside), in binlog order,
//!   and a Python consumer (`kafka-python`, an implementation of the
//!   protocol of its own) reads the very same records.
//! - kill -9 of the server, 10 times while rows are written: no row is
//!   missing, and a row comes again only as part of the one batch that was
//!   in flight (a replay goes back less than one batch).
//! - The broker down for 30 s while rows are written, then started again on
//!   the same port: nothing is lost and the order holds.
//! - Two servers with ZooKeeper: kill -9 of the one publishing, the standby
//!   publishes from the cursor in ZooKeeper and nothing is lost.
//! - A record above the size limit holds the destination at its batch,
//!   logged with its table and the limit to raise; once raised, the held
//!   rows go out in order.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{start_writer, ServerProcess};
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message;
use rdkafka::{Offset, TopicPartitionList};
use serde_json::{json, Value};
use sluice_testkit::kafka::Tansu;
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig, ZooKeeperEnsemble};

/// One record read back from the broker.
#[derive(Debug, Clone)]
struct Received {
    partition: i32,
    offset: i64,
    value: Value,
    raw: String,
}

/// Reads every partition of a topic from its beginning, in a thread, until
/// dropped.
struct Collector {
    received: Arc<Mutex<Vec<Received>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Collector {
    fn start(bootstrap: &str, topic: &str) -> Collector {
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", bootstrap)
            .set("group.id", "sluice-test")
            .set("enable.auto.commit", "false")
            .set("auto.offset.reset", "earliest")
            .create()
            .expect("a consumer");
        let received = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (received, stop, topic) = (received.clone(), stop.clone(), topic.to_string());
            std::thread::spawn(move || {
                // The publisher creates the topic with its first record.
                let partitions = loop {
                    if stop.load(Ordering::SeqCst) {
                        return;
                    }
                    if let Ok(m) = consumer.fetch_metadata(Some(&topic), Duration::from_secs(2)) {
                        let t = m.topics().iter().find(|t| t.name() == topic);
                        if let Some(t) = t.filter(|t| t.error().is_none()) {
                            if !t.partitions().is_empty() {
                                break t.partitions().len() as i32;
                            }
                        }
                    }
                    std::thread::sleep(Duration::from_millis(100));
                };
                let mut tpl = TopicPartitionList::new();
                for p in 0..partitions {
                    tpl.add_partition_offset(&topic, p, Offset::Beginning)
                        .expect("an assignment");
                }
                consumer.assign(&tpl).expect("assigning the partitions");
                while !stop.load(Ordering::SeqCst) {
                    match consumer.poll(Duration::from_millis(100)) {
                        Some(Ok(m)) => {
                            let raw = String::from_utf8(m.payload().unwrap_or_default().to_vec())
                                .expect("FlatMessage is UTF-8");
                            let value = serde_json::from_str(&raw).expect("FlatMessage is JSON");
                            received.lock().unwrap().push(Received {
                                partition: m.partition(),
                                offset: m.offset(),
                                value,
                                raw,
                            });
                        }
                        Some(Err(e)) => eprintln!("consumer: {e}"),
                        None => {}
                    }
                }
            })
        };
        Collector {
            received,
            stop,
            thread: Some(thread),
        }
    }

    fn snapshot(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Waits until `done` holds for what was received; panics with `what`
    /// after `timeout`.
    fn wait_until(
        &self,
        timeout: Duration,
        what: &str,
        done: impl Fn(&[Received]) -> bool,
    ) -> Vec<Received> {
        let deadline = Instant::now() + timeout;
        loop {
            let got = self.snapshot();
            if done(&got) {
                return got;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: not within {timeout:?} ({} records received)",
                got.len()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Collector {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// `canal.properties` of a Kafka-mode server and the `example`
/// destination reading `db` from `start` (file, position) with `filter`.
fn write_conf(
    dir: &Path,
    bootstrap: &str,
    db_port: u16,
    start: &(String, u64),
    filter: &str,
    mq: &str,
    extra: &str,
) {
    std::fs::create_dir_all(dir.join("example")).unwrap();
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.serverMode = kafka\n\
             kafka.bootstrap.servers = {bootstrap}\n\
             kafka.acks = all\n\
             kafka.retries = 0\n\
             kafka.linger.ms = 1\n\
             canal.destinations = example\n\
             canal.auto.scan = false\n\
             canal.mq.flatMessage = true\n\
             canal.mq.canalBatchSize = 50\n\
             canal.mq.canalGetTimeout = 100\n\
             canal.instance.memory.batch.mode = ITEMSIZE\n\
             canal.instance.memory.buffer.size = 1024\n\
             {extra}"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{db_port}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.master.journal.name = {}\n\
             canal.instance.master.position = {}\n\
             canal.instance.filter.regex = {filter}\n\
             {mq}",
            start.0, start.1
        ),
    )
    .unwrap();
}

/// The FlatMessage without the fields that change from run to run (`ts`,
/// the batch `id`, the event time `es`), which are checked for shape, and
/// with integer display widths out of `mysqlType` (see [`column_types`]).
fn stable_fields(v: &Value) -> Value {
    let mut v = v.clone();
    let o = v.as_object_mut().expect("a FlatMessage is an object");
    for key in ["ts", "id", "es"] {
        let n = o.remove(key).unwrap_or(Value::Null);
        assert!(n.as_i64().is_some_and(|n| n > 0), "{key} = {n}");
    }
    if let Some(Value::Object(types)) = o.get_mut("mysqlType") {
        for t in types.values_mut() {
            if let Value::String(text) = t {
                *text = without_display_width(text);
            }
        }
    }
    v
}

/// `bigint(20)` → `bigint`: the display width of an integer type, which
/// MariaDB reports and a schema rebuilt from DDL may not.
fn without_display_width(column_type: &str) -> String {
    let base = column_type.split('(').next().unwrap_or_default();
    if base.ends_with("int") && !column_type.contains(' ') {
        base.to_string()
    } else {
        column_type.to_string()
    }
}

/// The `id` column of every row of the `data` of INSERT records, in order.
fn inserted_ids(records: &[Received]) -> Vec<i64> {
    let mut ids = Vec::new();
    for r in records {
        if r.value["type"] != "INSERT" {
            continue;
        }
        for row in r.value["data"].as_array().into_iter().flatten() {
            let id = row["id"].as_str().expect("a FlatMessage value is text");
            ids.push(id.parse().expect("an id"));
        }
    }
    ids
}

fn all_rows_arrived(rows: i64) -> impl Fn(&[Received]) -> bool {
    move |got| {
        let ids: BTreeSet<i64> = inserted_ids(got).into_iter().collect();
        (0..rows).all(|i| ids.contains(&i))
    }
}

/// `mysqlType` of `shop.table` as MariaDB reports its columns
/// (`COLUMN_TYPE`, in column order) but `except`, integer display widths
/// aside: `bigint(20)` is compared as `bigint`.
fn column_types(db: &MariaDb, table: &str, except: &[&str]) -> Value {
    let rows = db
        .query(&format!(
            "SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME = '{table}' ORDER BY ORDINAL_POSITION"
        ))
        .unwrap();
    let mut types = serde_json::Map::new();
    for row in rows {
        let (name, ty) = (row[0].clone().unwrap(), row[1].clone().unwrap());
        if !except.contains(&name.as_str()) {
            types.insert(name, Value::String(without_display_width(&ty)));
        }
    }
    Value::Object(types)
}

fn log_tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

#[test]
fn flat_messages_of_live_changes_reach_kafka_and_a_python_consumer() {
    let broker = Tansu::start().unwrap();
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec(
        "CREATE DATABASE shop;
         CREATE TABLE shop.user (id BIGINT PRIMARY KEY, name VARCHAR(32), score DECIMAL(10,2), created DATETIME, note TEXT);
         CREATE TABLE shop.orders (id INT PRIMARY KEY, user_id BIGINT NOT NULL, amount INT);
         CREATE TABLE shop.skipped_by_filter_not (id INT PRIMARY KEY)",
    )
    .unwrap();
    let start = db.current_binlog_position().unwrap();
    let conf = tempfile::tempdir().unwrap();
    let log = conf.path().join("server.log");
    write_conf(
        conf.path(),
        &broker.bootstrap_servers(),
        db.port(),
        &start,
        r"shop\\.user,shop\\.orders",
        "canal.mq.topic = shop.events\ncanal.mq.partition = 1\ncanal.mq.partitionsNum = 3\n",
        "",
    );
    let _server = ServerProcess::spawn(conf.path(), &log);
    // A static topic is used as written, dots included (Canal replaces
    // them only in the names dynamicTopic makes).
    let collector = Collector::start(&broker.bootstrap_servers(), "shop.events");

    db.exec(
        "INSERT INTO shop.user VALUES (1, 'alice', 12.50, '2024-01-02 03:04:05', NULL), (2, 'bob', 3.00, '2024-02-03 04:05:06', 'hi');
         INSERT INTO shop.orders VALUES (10, 1, 100);
         INSERT INTO shop.skipped_by_filter_not VALUES (1);
         UPDATE shop.user SET name = 'carol' WHERE id = 1;
         DELETE FROM shop.orders WHERE id = 10;
         ALTER TABLE shop.user ADD COLUMN age INT;
         INSERT INTO shop.user VALUES (3, 'dave', 1.25, '2024-03-04 05:06:07', 'x', 42)",
    )
    .unwrap();

    let user_types = column_types(&db, "user", &["age"]);
    let user_sql_types = json!({"id":-5,"name":12,"score":3,"created":93,"note":2005});
    let orders_types = column_types(&db, "orders", &[]);
    let orders_sql_types = json!({"id":4,"user_id":-5,"amount":4});
    let expected = vec![
        json!({"data":[{"id":"1","name":"alice","score":"12.50","created":"2024-01-02 03:04:05","note":null},{"id":"2","name":"bob","score":"3.00","created":"2024-02-03 04:05:06","note":"hi"}],
               "database":"shop","gtid":"","isDdl":false,"mysqlType":user_types,"old":null,"pkNames":["id"],"sql":"","sqlType":user_sql_types,"table":"user","type":"INSERT"}),
        json!({"data":[{"id":"10","user_id":"1","amount":"100"}],
               "database":"shop","gtid":"","isDdl":false,"mysqlType":orders_types,"old":null,"pkNames":["id"],"sql":"","sqlType":orders_sql_types,"table":"orders","type":"INSERT"}),
        json!({"data":[{"id":"1","name":"carol","score":"12.50","created":"2024-01-02 03:04:05","note":null}],
               "database":"shop","gtid":"","isDdl":false,"mysqlType":user_types,"old":[{"name":"alice"}],"pkNames":["id"],"sql":"","sqlType":user_sql_types,"table":"user","type":"UPDATE"}),
        json!({"data":[{"id":"10","user_id":"1","amount":"100"}],
               "database":"shop","gtid":"","isDdl":false,"mysqlType":orders_types,"old":null,"pkNames":["id"],"sql":"","sqlType":orders_sql_types,"table":"orders","type":"DELETE"}),
        json!({"data":null,"database":"shop","gtid":"","isDdl":true,"mysqlType":null,"old":null,"pkNames":null,
               "sql":"ALTER TABLE shop.user ADD COLUMN age INT","sqlType":null,"table":"user","type":"ALTER"}),
        json!({"data":[{"id":"3","name":"dave","score":"1.25","created":"2024-03-04 05:06:07","note":"x","age":"42"}],
               "database":"shop","gtid":"","isDdl":false,
               "mysqlType":column_types(&db, "user", &[]),
               "old":null,"pkNames":["id"],"sql":"",
               "sqlType":{"id":-5,"name":12,"score":3,"created":93,"note":2005,"age":4},"table":"user","type":"INSERT"}),
    ];
    collector.wait_until(Duration::from_secs(60), "every change in Kafka", |got| {
        got.len() >= expected.len()
    });
    // A moment more: nothing else may come (the filtered table, BEGIN/END).
    std::thread::sleep(Duration::from_secs(1));
    let got = collector.snapshot();
    assert_eq!(
        got.len(),
        expected.len(),
        "unexpected records: {:#?}; server log:\n{}",
        got.iter().map(|r| &r.raw).collect::<Vec<_>>(),
        log_tail(&log)
    );
    let mut differences = Vec::new();
    for (i, (r, want)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(r.partition, 1, "record {i} goes to canal.mq.partition");
        assert_eq!(r.offset, i as i64, "record {i}: binlog order");
        if &stable_fields(&r.value) != want {
            differences.push(format!("record {i}:\n got  {}\n want {want}", r.raw));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
    // Canal's layout: keys in alphabetical order, compact.
    assert!(
        got[0]
            .raw
            .starts_with(r#"{"data":[{"id":"1","name":"alice""#),
        "{}",
        got[0].raw
    );
    let keys: Vec<&String> = got[0].value.as_object().unwrap().keys().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    // Batch ids never go back within one server run.
    let ids: Vec<i64> = got
        .iter()
        .map(|r| r.value["id"].as_i64().unwrap())
        .collect();
    assert!(ids.windows(2).all(|w| w[0] <= w[1]), "batch ids {ids:?}");

    // The same records through an independent client.
    let venv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kafka-python-venv");
    let python = sluice_testkit::python::kafka_python(&venv).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/kafka_consume.py");
    let out = std::process::Command::new(python)
        .arg(&script)
        .args([&broker.bootstrap_servers(), "shop.events"])
        .arg(expected.len().to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} failed: {}\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let python_read: Vec<(i32, i64, String)> =
        serde_json::from_slice::<Vec<(i32, i64, String)>>(&out.stdout).unwrap();
    let rust_read: Vec<(i32, i64, String)> = got
        .iter()
        .map(|r| (r.partition, r.offset, r.raw.clone()))
        .collect();
    assert_eq!(python_read, rust_read);
}

/// Rows of `w.t` (written by [`start_writer`]) in a Kafka-mode server's
/// configuration.
fn writer_setup(broker: &Tansu) -> (Arc<MariaDb>, tempfile::TempDir) {
    let db = Arc::new(MariaDb::start(MariaDbConfig::default()).unwrap());
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v VARCHAR(64))")
        .unwrap();
    let start = db.current_binlog_position().unwrap();
    let conf = tempfile::tempdir().unwrap();
    write_conf(
        conf.path(),
        &broker.bootstrap_servers(),
        db.port(),
        &start,
        r"w\\..*",
        "canal.mq.topic = rows\ncanal.mq.partition = 0\n",
        "",
    );
    (db, conf)
}

/// In binlog order, a replay (a row id lower than one before it) goes back
/// at most one batch of rows: only the batch in flight comes again.
fn assert_replays_within_a_batch(ids: &[i64], most: i64) {
    let mut highest = -1;
    for w in ids.windows(2) {
        highest = highest.max(w[0]);
        if w[1] <= w[0] {
            assert!(
                w[1] > highest - most,
                "a replay went back from {} to {}: more than the batch in flight",
                w[0],
                w[1]
            );
        }
    }
}

#[test]
fn kill_9_of_the_server_loses_no_row() {
    const KILLS: usize = 10;
    let broker = Tansu::start().unwrap();
    let (db, conf) = writer_setup(&broker);
    let log = conf.path().join("server.log");
    let collector = Collector::start(&broker.bootstrap_servers(), "rows");
    let writing = Arc::new(AtomicBool::new(false));
    let writer = start_writer(db.clone(), writing.clone());
    let mut server = ServerProcess::spawn(conf.path(), &log);
    for kill in 0..KILLS {
        // Let it publish a little, then kill it at a different moment each time.
        let before = collector.snapshot().len();
        collector.wait_until(Duration::from_secs(60), "records after a restart", |got| {
            got.len() > before
        });
        std::thread::sleep(Duration::from_millis(50 + (kill as u64 * 73) % 300));
        server.kill();
        server = ServerProcess::spawn(conf.path(), &log);
    }
    writing.store(true, Ordering::SeqCst);
    let rows = writer.join().unwrap();
    let got = collector.wait_until(
        Duration::from_secs(60),
        "every row written",
        all_rows_arrived(rows),
    );
    server.kill();
    let ids = inserted_ids(&got);
    let missing: Vec<i64> = (0..rows).filter(|i| !ids.contains(i)).take(10).collect();
    assert!(missing.is_empty(), "missing rows {missing:?}");
    // One batch is at most 50 entries, each one INSERT of one row.
    assert_replays_within_a_batch(&ids, 50 + 3);
    eprintln!(
        "{KILLS} kills: {} rows delivered for {rows} written",
        ids.len()
    );
}

#[test]
fn the_broker_down_for_30_s_loses_nothing_and_keeps_the_order() {
    let broker = Tansu::start().unwrap();
    let (db, conf) = writer_setup(&broker);
    let log = conf.path().join("server.log");
    let _server = ServerProcess::spawn(conf.path(), &log);
    {
        let collector = Collector::start(&broker.bootstrap_servers(), "rows");
        db.exec("BEGIN; INSERT INTO w.t VALUES (0, 'a'), (1, 'b'); COMMIT; INSERT INTO w.t VALUES (2, 'c')")
            .unwrap();
        // tansu keeps its records in memory: what it holds is read before
        // it goes down, so only what Sluice does is measured.
        collector.wait_until(
            Duration::from_secs(60),
            "rows before the stop",
            all_rows_arrived(3),
        );
    }
    broker.stop().unwrap();
    let writing = Arc::new(AtomicBool::new(false));
    // Rows 3.. written while the broker is down and after.
    let writer = {
        let db = db.clone();
        let writing = writing.clone();
        std::thread::spawn(move || {
            let mut next = 3i64;
            while !writing.load(Ordering::SeqCst) {
                db.exec(&format!(
                    "BEGIN; INSERT INTO w.t VALUES ({next}, 'x'); INSERT INTO w.t VALUES ({}, 'y'); COMMIT",
                    next + 1
                ))
                .unwrap();
                next += 2;
                std::thread::sleep(Duration::from_millis(20));
            }
            next
        })
    };
    std::thread::sleep(Duration::from_secs(30));
    broker.restart().unwrap();
    // A real broker keeps its topics; this one restarts empty.
    create_topic(&broker.bootstrap_servers(), "rows", 1);
    let collector = Collector::start(&broker.bootstrap_servers(), "rows");
    std::thread::sleep(Duration::from_secs(2));
    writing.store(true, Ordering::SeqCst);
    let rows = writer.join().unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    let got = loop {
        let got = collector.snapshot();
        let ids: BTreeSet<i64> = inserted_ids(&got).into_iter().collect();
        if (3..rows).all(|i| ids.contains(&i)) {
            break got;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {} rows after the restart within 90 s; server log:\n{}",
            ids.len(),
            rows - 3,
            log_tail(&log)
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    // Rows delivered before the stop may come again (a batch the broker
    // stored but whose confirmation never arrived); the rest is complete and
    // in binlog order, replays only of the batch in flight.
    let after: Vec<i64> = inserted_ids(&got).into_iter().filter(|&i| i >= 3).collect();
    let first: BTreeSet<i64> = after.iter().copied().collect();
    assert_eq!(
        first.len() as i64,
        rows - 3,
        "rows missing; server log:\n{}",
        log_tail(&log)
    );
    assert_replays_within_a_batch(&after, 50 + 2);
    eprintln!(
        "broker down 30 s: {} rows delivered after the restart for {} written",
        after.len(),
        rows - 3
    );
}

/// Creates `topic` (or finds it there already).
fn create_topic(bootstrap: &str, topic: &str, partitions: i32) {
    use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
    use rdkafka::client::DefaultClientContext;
    use rdkafka::types::RDKafkaErrorCode;
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .create()
        .expect("an admin client");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let new = NewTopic::new(topic, partitions, TopicReplication::Fixed(1));
    let results = runtime
        .block_on(admin.create_topics([&new], &AdminOptions::new()))
        .expect("creating the topic");
    for r in results {
        match r {
            Ok(_) | Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((name, code)) => panic!("creating topic {name}: {code}"),
        }
    }
}

#[test]
fn ha_standby_publishes_from_the_zookeeper_cursor_after_a_kill_9() {
    let zk = ZooKeeperEnsemble::start_standalone().unwrap();
    let broker = Tansu::start().unwrap();
    let db = Arc::new(MariaDb::start(MariaDbConfig::default()).unwrap());
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v VARCHAR(64))")
        .unwrap();
    let start = db.current_binlog_position().unwrap();
    let root = tempfile::tempdir().unwrap();
    let ha = format!(
        "canal.zkServers = {}\n\
         canal.register.ip = 127.0.0.1\n\
         canal.instance.global.spring.xml = classpath:spring/default-instance.xml\n\
         canal.zookeeper.ha.delay = 1000\n\
         canal.zookeeper.session.timeout = 3000\n",
        zk.connect_string()
    );
    let mut servers = BTreeMap::new();
    for name in ["a", "b"] {
        let conf = root.path().join(name);
        write_conf(
            &conf,
            &broker.bootstrap_servers(),
            db.port(),
            &start,
            r"w\\..*",
            "canal.mq.topic = rows\ncanal.mq.partition = 0\n",
            &format!("canal.port = {}\n{ha}", find_free_port().unwrap()),
        );
        let log = root.path().join(format!("{name}.log"));
        servers.insert(name, (ServerProcess::spawn(&conf, &log), log));
    }
    let collector = Collector::start(&broker.bootstrap_servers(), "rows");
    let writing = Arc::new(AtomicBool::new(false));
    let writer = start_writer(db.clone(), writing.clone());
    collector.wait_until(Duration::from_secs(60), "rows published", |got| {
        inserted_ids(got).len() > 100
    });
    // The one publishing logs its worker.
    let active = servers
        .iter()
        .find(|(_, (_, log))| {
            std::fs::read_to_string(log)
                .unwrap_or_default()
                .contains("started its MQ worker")
        })
        .map(|(name, _)| *name)
        .expect("one server publishes");
    let standby = if active == "a" { "b" } else { "a" };
    if let Some((server, _)) = servers.get_mut(active) {
        server.kill();
    }
    let killed_at = Instant::now();
    let standby_log = &servers[standby].1;
    while !std::fs::read_to_string(standby_log)
        .unwrap_or_default()
        .contains("started its MQ worker")
    {
        assert!(
            killed_at.elapsed() < Duration::from_secs(60),
            "the standby did not take the destination over:\n{}",
            log_tail(standby_log)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    eprintln!(
        "the standby publishes {:?} after the kill",
        killed_at.elapsed()
    );
    // Rows written after the take-over come from the standby.
    let published = inserted_ids(&collector.snapshot()).len();
    collector.wait_until(Duration::from_secs(60), "the standby publishing", |got| {
        inserted_ids(got).len() > published + 30
    });
    writing.store(true, Ordering::SeqCst);
    let rows = writer.join().unwrap();
    let got = collector.wait_until(
        Duration::from_secs(60),
        "every row written",
        all_rows_arrived(rows),
    );
    let ids = inserted_ids(&got);
    assert_replays_within_a_batch(&ids, 50 + 3);
    eprintln!("fail-over: {} rows delivered for {rows} written", ids.len());
}

#[test]
fn a_record_too_large_holds_the_destination_until_the_limit_is_raised() {
    let broker = Tansu::start().unwrap();
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v LONGTEXT)")
        .unwrap();
    let start = db.current_binlog_position().unwrap();
    let conf = tempfile::tempdir().unwrap();
    let log = conf.path().join("server.log");
    let configure = |limit: usize| {
        write_conf(
            conf.path(),
            &broker.bootstrap_servers(),
            db.port(),
            &start,
            r"w\\..*",
            "canal.mq.topic = rows\ncanal.mq.partition = 0\n",
            &format!("kafka.max.request.size = {limit}\n"),
        )
    };
    configure(2000);
    let mut server = ServerProcess::spawn(conf.path(), &log);
    let collector = Collector::start(&broker.bootstrap_servers(), "rows");
    db.exec(
        "INSERT INTO w.t VALUES (1, 'small');
         INSERT INTO w.t VALUES (2, REPEAT('x', 5000));
         INSERT INTO w.t VALUES (3, 'small')",
    )
    .unwrap();
    collector.wait_until(Duration::from_secs(60), "the row before", |got| {
        inserted_ids(got).contains(&1)
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let refusal = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if let Some(line) = text
            .lines()
            .find(|l| l.contains("larger than the broker allows"))
        {
            break line.to_string();
        }
        assert!(
            Instant::now() < deadline,
            "no refusal logged:\n{}",
            log_tail(&log)
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    // The log names the table, the size and the limit to raise.
    assert!(refusal.contains("ERROR"), "{refusal}");
    assert!(refusal.contains("from w.t"), "{refusal}");
    assert!(refusal.contains("kafka.max.request.size"), "{refusal}");
    // Nothing after the refused row is published: no gap. (Row 1 may be
    // there twice: its batch, holding row 2 too, was not confirmed.)
    std::thread::sleep(Duration::from_secs(1));
    let before: BTreeSet<i64> = inserted_ids(&collector.snapshot()).into_iter().collect();
    assert_eq!(before, BTreeSet::from([1]));

    server.kill();
    configure(1_000_000);
    let _server = ServerProcess::spawn(conf.path(), &log);
    let ids =
        inserted_ids(
            &collector.wait_until(Duration::from_secs(60), "the held rows", |got| {
                let ids: BTreeSet<i64> = inserted_ids(got).into_iter().collect();
                ids.contains(&2) && ids.contains(&3)
            }),
        );
    let mut unique = Vec::new();
    for id in ids.iter().copied() {
        if !unique.contains(&id) {
            unique.push(id);
        }
    }
    assert_eq!(unique, [1, 2, 3], "rows in binlog order: {ids:?}");
    assert_replays_within_a_batch(&ids, 50);
}

/// Sends SIGTERM to the server and waits for it to end.
fn terminate(server: &mut ServerProcess) {
    if let Some(mut child) = server.take() {
        let pid = libc::pid_t::try_from(child.id()).unwrap();
        // SAFETY: kill(2) on our own child, not yet reaped.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        let status = child.wait().unwrap();
        assert!(status.success(), "sluice server ended with {status}");
    }
}

#[test]
fn sigterm_restarts_publish_every_row_once() {
    let broker = Tansu::start().unwrap();
    let (db, conf) = writer_setup(&broker);
    let log = conf.path().join("server.log");
    let collector = Collector::start(&broker.bootstrap_servers(), "rows");
    let stop_writing = Arc::new(AtomicBool::new(false));
    let writer = start_writer(db.clone(), stop_writing.clone());
    let mut server = ServerProcess::spawn(conf.path(), &log);
    for start in 1..=3 {
        // SIGTERM is handled once the server has started (its worker runs).
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::fs::read_to_string(&log)
            .unwrap_or_default()
            .matches("MQ worker publishing")
            .count()
            < start
        {
            assert!(Instant::now() < deadline, "no worker:\n{}", log_tail(&log));
            std::thread::sleep(Duration::from_millis(20));
        }
        let before = collector.snapshot().len();
        collector.wait_until(Duration::from_secs(60), "records after a start", |got| {
            got.len() > before + 20
        });
        terminate(&mut server);
        server = ServerProcess::spawn(conf.path(), &log);
    }
    stop_writing.store(true, Ordering::SeqCst);
    let rows = writer.join().unwrap();
    let got = collector.wait_until(
        Duration::from_secs(60),
        "every row written",
        all_rows_arrived(rows),
    );
    terminate(&mut server);
    // A clean stop acks what it published; cursors sit at transaction
    // ends, so only the rows of a transaction cut by the last batch (at
    // most 2 of its 3) come again.
    let ids = inserted_ids(&got);
    let mut seen = BTreeSet::new();
    let again: Vec<i64> = ids.iter().copied().filter(|i| !seen.insert(*i)).collect();
    eprintln!("rows again after 3 SIGTERM restarts: {again:?}");
    assert_replays_within_a_batch(&ids, 3);
    assert!(again.len() <= 3 * 2, "{again:?}");
}

#[test]
fn a_destination_the_scan_removes_stops_publishing_and_resumes_when_back() {
    let broker = Tansu::start().unwrap();
    let (db, conf) = writer_setup(&broker);
    let log = conf.path().join("server.log");
    let properties = conf.path().join("example/instance.properties");
    let instance = std::fs::read_to_string(&properties).unwrap();
    let canal = conf.path().join("canal.properties");
    let mut server_conf = std::fs::read_to_string(&canal).unwrap();
    server_conf.push_str("canal.auto.scan = true\ncanal.auto.scan.interval = 1\n");
    std::fs::write(&canal, server_conf).unwrap();
    let _server = ServerProcess::spawn(conf.path(), &log);
    let collector = Collector::start(&broker.bootstrap_servers(), "rows");
    db.exec("INSERT INTO w.t VALUES (0, 'before')").unwrap();
    collector.wait_until(Duration::from_secs(60), "row 0", all_rows_arrived(1));

    std::fs::remove_file(&properties).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("stopping its MQ worker")
    {
        assert!(
            Instant::now() < deadline,
            "worker not stopped:\n{}",
            log_tail(&log)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    db.exec("INSERT INTO w.t VALUES (1, 'while away'); INSERT INTO w.t VALUES (2, 'while away')")
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        inserted_ids(&collector.snapshot()),
        [0],
        "published while stopped"
    );

    std::fs::write(&properties, instance).unwrap();
    let got = collector.wait_until(
        Duration::from_secs(60),
        "the rows written while it was away",
        all_rows_arrived(3),
    );
    assert_eq!(inserted_ids(&got), [0, 1, 2]);
}
