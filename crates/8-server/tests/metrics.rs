//! `/metrics` of a running server: Canal's metric names with the
//! `destination` label, in the Prometheus text format, and the counters
//! moving as a Canal client reads and acknowledges rows.

use std::time::{Duration, Instant};

use sluice_canal::proto::{EntryType, EventType};
use sluice_client::{Connector, SimpleConnector, TimeUnit};
use sluice_server::Server;
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// `GET path` on `addr`: the status line and the body.
async fn http_get(addr: &str, path: &str) -> (String, String) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut response = String::new();
    s.read_to_string(&mut response).await.unwrap();
    let (head, body) = response
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP head in {response:?}"));
    (
        head.lines().next().unwrap_or("").to_string(),
        body.to_string(),
    )
}

/// A scrape: every sample line, as `name{labels}` and value.
struct Scrape(Vec<(String, f64)>);

impl Scrape {
    async fn take(addr: &str) -> Scrape {
        let (status, body) = http_get(addr, "/metrics").await;
        assert!(status.contains("200"), "{status}\n{body}");
        let samples = body
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let (key, value) = l.rsplit_once(' ').unwrap_or_else(|| panic!("{l:?}"));
                let value: f64 = value.parse().unwrap_or_else(|_| panic!("{l:?}"));
                (key.to_string(), value)
            })
            .collect();
        Scrape(samples)
    }

    /// The value of the sample `name` whose labels include all of `labels`
    /// (`key="value"`) and `destination="example"`.
    fn get(&self, name: &str, labels: &[&str]) -> Option<f64> {
        self.0.iter().find_map(|(key, value)| {
            let (n, l) = key.split_once('{').unwrap_or((key, ""));
            (n == name
                && l.contains("destination=\"example\"")
                && labels.iter().all(|want| l.contains(want)))
            .then_some(*value)
        })
    }

    fn value(&self, name: &str, labels: &[&str]) -> f64 {
        self.get(name, labels).unwrap_or_else(|| {
            panic!(
                "no {name} {labels:?} for destination example in:\n{}",
                self.0
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        })
    }
}

/// Reads batches, acknowledging each, until `n` inserted rows arrived;
/// returns once the server has processed the acks.
async fn receive_inserts(client: &mut SimpleConnector, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut got = 0;
    while got < n {
        assert!(Instant::now() < deadline, "only {got} of {n} rows arrived");
        let msg = client
            .get_without_ack(100, Some(200), TimeUnit::Milliseconds)
            .await
            .unwrap();
        for e in &msg.entries {
            if e.entry_type != Some(EntryType::RowData as i32) {
                continue;
            }
            let rc = sluice_client::row_change(e).unwrap();
            if rc.event_type == Some(EventType::Insert as i32) {
                got += rc.row_datas.len();
            }
        }
        if msg.id > 0 {
            client.ack(msg.id).await.unwrap();
        }
    }
    // An ack has no reply: the reply to one more request proves the server
    // processed the last one.
    client
        .get_without_ack(1, Some(100), TimeUnit::Milliseconds)
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_are_served_under_canal_names_and_move_with_the_rows() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec(
        "CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY); \
         INSERT INTO w.t VALUES (1), (2), (3)",
    )
    .unwrap();
    let conf = tempfile::tempdir().unwrap();
    let metrics_port = find_free_port().unwrap();
    std::fs::write(
        conf.path().join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.metrics.pull.port = {metrics_port}\n\
             canal.destinations = example\ncanal.auto.scan = false\n\
             canal.file.data.dir = {}\nsluice.metrics.sourceRefresh = 200\n",
            find_free_port().unwrap(),
            conf.path().display()
        ),
    )
    .unwrap();
    std::fs::create_dir_all(conf.path().join("example")).unwrap();
    std::fs::write(
        conf.path().join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.master.journal.name = binlog.000001\n\
             canal.instance.master.position = 4\n\
             canal.instance.filter.regex = w\\\\..*\n",
            db.port()
        ),
    )
    .unwrap();
    let server = Server::start(sluice_server::load_config(conf.path()).unwrap())
        .await
        .unwrap();
    let metrics_addr = server.metrics_addr().expect("/metrics is served");
    assert_eq!(metrics_addr.port(), metrics_port);
    let metrics_addr = metrics_addr.to_string();
    let (status, _) = http_get(&metrics_addr, "/elsewhere").await;
    assert!(status.contains("404"), "{status}");

    let addr = server.local_addr().expect("TCP mode").to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut client = loop {
        if let Ok(mut c) = SimpleConnector::connect(&addr, "example", "", "").await {
            if c.subscribe("").await.is_ok() {
                break c;
            }
        }
        assert!(Instant::now() < deadline, "cannot subscribe at {addr}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    receive_inserts(&mut client, 3).await;
    let before = Scrape::take(&metrics_addr).await;

    // No name is renamed: no `_total` suffix as simpleclient 0.4 adds none.
    assert!(
        before.0.iter().all(|(k, _)| !k.contains("_total")),
        "{:?}",
        before.0
    );
    assert_eq!(before.value("canal_instance", &["mode=\"spring\""]), 1.0);
    assert_eq!(before.value("sluice_destination_running", &[]), 1.0);
    assert_eq!(before.value("canal_instance_subscriptions", &[]), 1.0);
    assert_eq!(
        before.value("canal_instance_parser_mode", &["parallel=\"true\""]),
        1.0
    );
    assert_eq!(
        before.value(
            "canal_instance_store",
            &["batchMode=\"MEMSIZE\"", "size=\""]
        ),
        1.0
    );
    for name in [
        "canal_instance_put_delay",
        "canal_instance_get_delay",
        "canal_instance_ack_delay",
        "canal_instance_traffic_delay",
        "canal_instance_store_produce_mem",
        "canal_instance_store_consume_mem",
        "canal_instance_sink_blocking_time",
        "sluice_lag_seconds",
    ] {
        assert!(before.value(name, &[]) >= 0.0, "{name}");
    }
    assert!(before.value("canal_instance_publish_blocking_time", &["parser=\"0\""]) >= 0.0);
    assert!(before.value("sluice_client_cursor_lag_seconds", &["clientId=\"1001\""]) >= 0.0);
    // Canal's latency buckets, in milliseconds.
    for le in ["2.5", "10", "25", "100", "+Inf"] {
        let bucket = format!("le=\"{le}\"");
        assert!(
            before.value("canal_instance_client_request_latency_bucket", &[&bucket]) >= 1.0,
            "{le}"
        );
    }
    assert!(before.value("canal_instance_put_rows", &[]) >= 3.0);
    assert!(before.value("canal_instance_ack_rows", &[]) >= 3.0);

    // Five transactions of one row each.
    for id in 10..15 {
        db.exec(&format!("INSERT INTO w.t VALUES ({id})")).unwrap();
    }
    receive_inserts(&mut client, 5).await;
    db.exec("SET GLOBAL expire_logs_days = 1").unwrap();
    // The source's figures are read again every 200 ms
    // (sluice.metrics.sourceRefresh), not by the scrape.
    let deadline = Instant::now() + Duration::from_secs(10);
    let after = loop {
        let scrape = Scrape::take(&metrics_addr).await;
        if scrape
            .get("sluice_binlog_retention_runway_seconds", &[])
            .is_some()
        {
            break scrape;
        }
        assert!(Instant::now() < deadline, "no retention runway within 10 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };

    // Read to the end of the source's binlogs, whose oldest needed file
    // may be purged in a day less the cursor's age.
    let binlog_bytes: u64 = db
        .query("SHOW BINARY LOGS")
        .unwrap()
        .iter()
        .filter_map(|r| r.get(1)?.as_deref()?.parse::<u64>().ok())
        .sum();
    let behind = after.value("sluice_binlog_bytes_behind", &[]);
    assert!(
        (0.0..binlog_bytes as f64).contains(&behind),
        "{behind} of {binlog_bytes}"
    );
    let runway = after.value("sluice_binlog_retention_runway_seconds", &[]);
    assert!((86_400.0 - 120.0..=86_400.0).contains(&runway), "{runway}");

    let moved = |name: &str, labels: &[&str]| {
        after.value(name, labels) - before.get(name, labels).unwrap_or(0.0)
    };
    // One row per transaction, each put, got and acked once.
    assert_eq!(moved("canal_instance_put_rows", &[]), 5.0);
    assert_eq!(moved("canal_instance_get_rows", &[]), 5.0);
    assert_eq!(moved("canal_instance_ack_rows", &[]), 5.0);
    assert!(moved("canal_instance_transactions", &[]) >= 5.0);
    // Each transaction is at least a row entry and its end in the store.
    assert!(moved("canal_instance_store_produce_seq", &[]) >= 10.0);
    assert!(moved("canal_instance_store_consume_seq", &[]) >= 10.0);
    assert!(moved("canal_instance_store_produce_mem", &[]) > 0.0);
    assert!(moved("canal_instance_store_consume_mem", &[]) > 0.0);
    assert!(
        after.value("canal_instance_store_consume_seq", &[])
            <= after.value("canal_instance_store_produce_seq", &[])
    );
    assert!(moved("canal_instance_received_binlog_bytes", &["parser=\"0\""]) > 0.0);
    assert!(moved("canal_instance_client_packets", &["packetType=\"GET\""]) >= 2.0);
    assert!(
        moved(
            "canal_instance_client_packets",
            &["packetType=\"CLIENTACK\""]
        ) >= 1.0
    );
    assert!(moved("canal_instance_client_bytes", &[]) > 0.0);
    assert!(moved("canal_instance_client_request_latency_count", &[]) >= 3.0);
    // The last GET of each round found nothing more.
    assert!(after.value("canal_instance_client_empty_batches", &[]) >= 1.0);

    // An ack of a batch the server never gave is counted as error 400.
    client.ack(999_999).await.unwrap();
    let _ = client
        .get_without_ack(1, Some(100), TimeUnit::Milliseconds)
        .await;
    let errors = Scrape::take(&metrics_addr).await;
    assert!(
        errors.value(
            "canal_instance_client_request_error",
            &["errorCode=\"400\""]
        ) >= 1.0
    );

    drop(client);
    server.shutdown().await.unwrap();
}

/// A server with no destinations, `canal.metrics.pull.port = metrics_port`.
async fn bare_server(metrics_port: u16) -> (Server, tempfile::TempDir) {
    let conf = tempfile::tempdir().unwrap();
    std::fs::write(
        conf.path().join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.metrics.pull.port = {metrics_port}\n\
             canal.destinations =\ncanal.auto.scan = false\ncanal.file.data.dir = {}\n",
            find_free_port().unwrap(),
            conf.path().display()
        ),
    )
    .unwrap();
    let server = Server::start(sluice_server::load_config(conf.path()).unwrap())
        .await
        .unwrap();
    (server, conf)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn port_zero_serves_no_metrics_and_a_taken_port_does_not_stop_the_server() {
    let (server, _conf) = bare_server(0).await;
    assert_eq!(server.metrics_addr(), None);
    assert!(server.local_addr().is_some());
    server.shutdown().await.unwrap();

    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let (server, _conf) = bare_server(port).await;
    assert_eq!(server.metrics_addr(), None);
    assert!(server.local_addr().is_some());
    server.shutdown().await.unwrap();
    drop(taken);
}

/// The value of `SHOW GLOBAL STATUS LIKE name` on `db`.
fn status(db: &MariaDb, name: &str) -> u64 {
    let rows = db
        .query(&format!("SHOW GLOBAL STATUS LIKE '{name}'"))
        .unwrap();
    rows.first()
        .and_then(|r| r.get(1)?.as_deref()?.parse().ok())
        .unwrap_or_else(|| panic!("no status {name}: {rows:?}"))
}

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

/// One scrape on a connection of its own: the status code, or `None` when
/// the connection broke before an answer.
async fn scrape_status(addr: String) -> Option<u16> {
    let mut s = tokio::net::TcpStream::connect(&addr).await.ok()?;
    s.write_all(format!("GET /metrics HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await
        .ok()?;
    let mut response = Vec::new();
    s.read_to_end(&mut response).await.ok()?;
    let head = String::from_utf8_lossy(&response[..response.len().min(64)]).into_owned();
    head.split_whitespace().nth(1)?.parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scrapes_never_connect_to_the_source_and_their_cost_is_bounded() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("SET GLOBAL expire_logs_days = 1").unwrap();
    let conf = tempfile::tempdir().unwrap();
    let metrics_port = find_free_port().unwrap();
    std::fs::write(
        conf.path().join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.metrics.pull.port = {metrics_port}\n\
             canal.destinations = example\ncanal.auto.scan = false\n\
             canal.file.data.dir = {}\n",
            find_free_port().unwrap(),
            conf.path().display()
        ),
    )
    .unwrap();
    std::fs::create_dir_all(conf.path().join("example")).unwrap();
    std::fs::write(
        conf.path().join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{}\n\
             canal.instance.dbUsername = root\n",
            db.port()
        ),
    )
    .unwrap();
    let server = Server::start(sluice_server::load_config(conf.path()).unwrap())
        .await
        .unwrap();
    let metrics_addr = server
        .metrics_addr()
        .expect("/metrics is served")
        .to_string();

    // The source's figures arrive without a scrape asking for them: read
    // once the destination runs, then every 30 s (the default); the bytes
    // behind are shown once a transaction was read.
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY)")
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    for id in 0.. {
        db.exec(&format!("INSERT INTO w.t VALUES ({id})")).unwrap();
        let scrape = Scrape::take(&metrics_addr).await;
        if scrape.get("sluice_binlog_bytes_behind", &[]).is_some() {
            break;
        }
        assert!(Instant::now() < deadline, "no binlog figures within 30 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Every connection to the source counts in `Connections` (the test's
    // own status queries may add one).
    let connections_before = status(&db, "Connections");
    let rss_before = rss_bytes();
    let peak = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(rss_before));
    let sampling = {
        let peak = peak.clone();
        tokio::spawn(async move {
            loop {
                peak.fetch_max(rss_bytes(), std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    let mut scrapes = tokio::task::JoinSet::new();
    for _ in 0..500 {
        scrapes.spawn(scrape_status(metrics_addr.clone()));
    }
    let mut answers = std::collections::BTreeMap::<Option<u16>, usize>::new();
    while let Some(done) = scrapes.join_next().await {
        *answers.entry(done.unwrap()).or_default() += 1;
    }
    sampling.abort();
    let connections_after = status(&db, "Connections");

    // Each scrape was answered: served, or told to come back.
    assert!(
        answers
            .keys()
            .all(|status| matches!(status, Some(200) | Some(503))),
        "{answers:?}"
    );
    assert!(
        answers.get(&Some(200)).copied().unwrap_or(0) >= 4,
        "{answers:?}"
    );
    let connected = connections_after - connections_before;
    assert!(
        connected <= 1,
        "500 scrapes made {connected} connections to the source ({answers:?})"
    );
    let grown = peak.load(std::sync::atomic::Ordering::Relaxed) - rss_before;
    assert!(grown < 128 << 20, "500 scrapes took {} MiB", grown >> 20);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_parser_mode_label_says_whether_entries_are_built_beside_the_reader() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY)")
        .unwrap();
    let conf = tempfile::tempdir().unwrap();
    let metrics_port = find_free_port().unwrap();
    std::fs::write(
        conf.path().join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.metrics.pull.port = {metrics_port}\n\
             canal.destinations = serial\ncanal.auto.scan = false\n\
             canal.file.data.dir = {}\n",
            find_free_port().unwrap(),
            conf.path().display()
        ),
    )
    .unwrap();
    std::fs::create_dir_all(conf.path().join("serial")).unwrap();
    std::fs::write(
        conf.path().join("serial/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.master.journal.name = binlog.000001\n\
             canal.instance.master.position = 4\n\
             canal.instance.parser.parallel = false\n\
             canal.instance.filter.regex = w\\\\..*\n",
            db.port()
        ),
    )
    .unwrap();
    let server = Server::start(sluice_server::load_config(conf.path()).unwrap())
        .await
        .unwrap();
    let metrics_addr = server
        .metrics_addr()
        .expect("/metrics is served")
        .to_string();
    let addr = server.local_addr().expect("TCP mode").to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut client = loop {
        if let Ok(mut c) = SimpleConnector::connect(&addr, "serial", "", "").await {
            if c.subscribe("").await.is_ok() {
                break c;
            }
        }
        assert!(Instant::now() < deadline, "cannot subscribe at {addr}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // Built on the reader, the rows arrive all the same.
    db.exec("INSERT INTO w.t VALUES (1), (2); INSERT INTO w.t VALUES (3)")
        .unwrap();
    receive_inserts(&mut client, 3).await;

    let (_, body) = http_get(&metrics_addr, "/metrics").await;
    let modes: Vec<&str> = body
        .lines()
        .filter(|l| {
            l.starts_with("canal_instance_parser_mode{") && l.contains("destination=\"serial\"")
        })
        .collect();
    assert_eq!(modes.len(), 1, "{modes:?}");
    assert!(
        modes[0].contains("parallel=\"false\"") && modes[0].ends_with(" 1"),
        "{modes:?}"
    );
    // Canal's `mode` of an instance built from configuration files.
    assert!(
        body.lines().any(|l| l.starts_with("canal_instance{")
            && l.contains("destination=\"serial\"")
            && l.contains("mode=\"spring\"")),
        "{body}"
    );
    drop(client);
    server.shutdown().await.unwrap();
}
