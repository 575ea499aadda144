//! The admin API of a running server (`sluice.admin.http.*`): the token,
//! listing and showing destinations, start, stop, reload, the cursor
//! reset with its confirmation and its refusal while the destination runs,
//! and release between two servers of a ZooKeeper cluster.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sluice_canal::proto::{EntryType, EventType};
use sluice_client::{Connector, SimpleConnector, TimeUnit};
use sluice_server::admin_api_client::{request, AdminResponse};
use sluice_server::Server;
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig, ZooKeeperEnsemble};

const TOKEN: &str = "s3cret-admin-token";

/// Writes a configuration with the admin API on a free loopback port and
/// one destination `example` reading `db_port` from its first binlog;
/// `extra` is appended to canal.properties.
fn write_conf(dir: &Path, db_port: u16, extra: &str) {
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.metrics.pull.port = 0\n\
             canal.destinations = example\ncanal.auto.scan = false\n\
             canal.file.data.dir = {}\n\
             sluice.admin.http.port = 0\nsluice.admin.http.token = {TOKEN}\n{extra}",
            find_free_port().unwrap(),
            dir.display()
        ),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("example")).unwrap();
    std::fs::write(
        dir.join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{db_port}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.master.journal.name = binlog.000001\n\
             canal.instance.master.position = 4\n\
             canal.instance.filter.regex = w\\\\..*\n"
        ),
    )
    .unwrap();
}

async fn start_server(conf: &Path) -> (Server, String) {
    let server = Server::start(sluice_server::load_config(conf).unwrap())
        .await
        .unwrap();
    let url = format!("http://{}", server.admin_addr().expect("admin API served"));
    (server, url)
}

async fn call(url: &str, method: &str, path: &str, body: Option<Value>) -> AdminResponse {
    call_with(url, Some(TOKEN), method, path, body).await
}

async fn call_with(
    url: &str,
    token: Option<&str>,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> AdminResponse {
    request(
        url,
        token,
        method,
        path,
        body.as_ref(),
        Duration::from_secs(60),
    )
    .await
    .unwrap_or_else(|e| panic!("{method} {path}: {e}"))
}

/// Waits until `GET /destinations/{d}` shows `state`.
async fn wait_state(url: &str, destination: &str, state: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let r = call(url, "GET", &format!("/destinations/{destination}"), None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        if r.body["state"] == state {
            return r.body;
        }
        assert!(
            Instant::now() < deadline,
            "{destination} never {state}: {}",
            r.body
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A Canal client of `example` with the default clientId, 1001.
async fn subscribe(addr: &str) -> SimpleConnector {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(mut c) = SimpleConnector::connect(addr, "example", "", "").await {
            if c.subscribe("").await.is_ok() {
                return c;
            }
        }
        assert!(Instant::now() < deadline, "cannot subscribe at {addr}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The ids inserted into w.t that arrive, reading (and acking) until
/// `n` arrived or nothing more came for `quiet`.
async fn receive_ids(client: &mut SimpleConnector, n: usize, quiet: Duration) -> Vec<i64> {
    let mut ids = Vec::new();
    let mut last = Instant::now();
    let deadline = Instant::now() + Duration::from_secs(30);
    while ids.len() < n && last.elapsed() < quiet {
        assert!(Instant::now() < deadline, "only {ids:?} arrived");
        let msg = client
            .get_without_ack(100, Some(200), TimeUnit::Milliseconds)
            .await
            .unwrap();
        for e in &msg.entries {
            if e.entry_type != Some(EntryType::RowData as i32) {
                continue;
            }
            let rc = sluice_client::row_change(e).unwrap();
            if rc.event_type != Some(EventType::Insert as i32) {
                continue;
            }
            for row in &rc.row_datas {
                let id = row
                    .after_columns
                    .iter()
                    .find(|c| c.name.as_deref() == Some("id"));
                if let Some(id) = id.and_then(|c| c.value.as_deref()) {
                    ids.push(id.parse().unwrap());
                    last = Instant::now();
                }
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
    ids
}

fn master_position(db: &MariaDb) -> (String, u64) {
    let rows = db.query("SHOW MASTER STATUS").unwrap();
    let row = rows.first().expect("binary logging is on");
    (
        row[0].clone().unwrap(),
        row[1].as_deref().unwrap().parse().unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_guards_every_operation_and_the_document_is_served() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY)")
        .unwrap();
    let conf = tempfile::tempdir().unwrap();
    write_conf(conf.path(), db.port(), "");
    let (server, url) = start_server(conf.path()).await;
    assert_eq!(
        server.admin_addr().map(|a| a.ip().to_string()).as_deref(),
        Some("127.0.0.1")
    );

    for (method, path) in [
        ("GET", "/destinations"),
        ("GET", "/destinations/example"),
        ("POST", "/destinations/example/stop"),
        ("POST", "/destinations/example/clients/1001/cursor"),
    ] {
        let missing = call_with(&url, None, method, path, None).await;
        assert_eq!(missing.status, 401, "{method} {path}: {:?}", missing.body);
        assert!(
            missing.body["error"]
                .as_str()
                .unwrap()
                .contains("sluice.admin.http.token"),
            "{:?}",
            missing.body
        );
        let wrong = call_with(&url, Some("guess"), method, path, None).await;
        assert_eq!(wrong.status, 401, "{method} {path}: {:?}", wrong.body);
        assert!(wrong.body["error"]
            .as_str()
            .unwrap()
            .contains("wrong token"));
    }
    // Refused before it acted: the destination still runs.
    wait_state(&url, "example", "running").await;

    let doc = call_with(&url, None, "GET", "/openapi.json", None).await;
    assert_eq!(doc.status, 200);
    assert_eq!(doc.body["openapi"], "3.0.3");
    assert_eq!(
        doc.body,
        serde_json::from_str::<Value>(sluice_server::ADMIN_OPENAPI).unwrap()
    );

    let elsewhere = call(&url, "GET", "/nowhere", None).await;
    assert_eq!(elsewhere.status, 404);
    assert!(elsewhere.body["error"]
        .as_str()
        .unwrap()
        .contains("/openapi.json"));
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_show_stop_start_and_reload() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec(
        "CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY); INSERT INTO w.t VALUES (1), (2)",
    )
    .unwrap();
    let conf = tempfile::tempdir().unwrap();
    write_conf(conf.path(), db.port(), "");
    let (server, url) = start_server(conf.path()).await;
    let addr = server.local_addr().unwrap().to_string();
    wait_state(&url, "example", "running").await;
    let mut client = subscribe(&addr).await;
    assert_eq!(
        receive_ids(&mut client, 2, Duration::from_secs(20)).await,
        [1, 2]
    );

    let list = call(&url, "GET", "/destinations", None).await;
    assert_eq!(list.status, 200, "{:?}", list.body);
    let all = list.body["destinations"].as_array().unwrap();
    assert_eq!(all.len(), 1, "{all:?}");
    let example = &all[0];
    assert_eq!(example["destination"], "example");
    assert_eq!(example["state"], "running");
    assert_eq!(example["role"], Value::Null, "no ZooKeeper, no role");
    assert_eq!(
        example["source"]["address"],
        format!("127.0.0.1:{}", db.port())
    );
    let (file, end) = master_position(&db);
    assert_eq!(example["source"]["read_position"]["journal_name"], file);
    assert_eq!(example["source"]["read_position"]["position"], end);
    assert!(example["source"]["lag_seconds"].as_f64().unwrap() >= 0.0);
    let clients = example["clients"].as_array().unwrap();
    assert_eq!(clients.len(), 1, "{clients:?}");
    assert_eq!(clients[0]["client_id"], 1001);
    assert_eq!(clients[0]["connections"], 1, "the client is connected");
    assert_eq!(clients[0]["cursor"]["postion"]["journalName"], file);
    assert!(clients[0]["lag_seconds"].as_f64().unwrap() >= 0.0);

    let unknown = call(&url, "GET", "/destinations/nosuch", None).await;
    assert_eq!(unknown.status, 404);
    let message = unknown.body["error"].as_str().unwrap();
    assert!(
        message.contains("\"nosuch\"") && message.contains("example"),
        "{message}"
    );
    let unknown = call(&url, "POST", "/destinations/nosuch/stop", None).await;
    assert_eq!(unknown.status, 404);

    // Stop: the reader stops, the clients are refused, the cursor stays.
    let stopped = call(&url, "POST", "/destinations/example/stop", None).await;
    assert_eq!(stopped.status, 200, "{:?}", stopped.body);
    assert_eq!(stopped.body["state"], "stopped");
    assert_eq!(stopped.body["source"]["read_position"], Value::Null);
    assert_eq!(
        stopped.body["clients"][0]["cursor"]["postion"]["journalName"],
        file
    );
    assert!(server
        .destinations()
        .iter()
        .all(|(name, _)| name != "example"));
    assert!(client
        .get_without_ack(1, Some(100), TimeUnit::Milliseconds)
        .await
        .is_err());
    // Its connection closed, the client is still subscribed, no longer connected.
    drop(client);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let shown = call(&url, "GET", "/destinations/example", None).await;
        let client = &shown.body["clients"][0];
        assert_eq!(client["client_id"], 1001);
        if client["connections"] == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "still connected: {}", shown.body);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let reload = call(&url, "POST", "/destinations/example/reload", None).await;
    assert_eq!(reload.status, 409, "{:?}", reload.body);
    assert!(reload.body["error"].as_str().unwrap().contains("start it"));

    // Start: the rows written meanwhile arrive.
    db.exec("INSERT INTO w.t VALUES (3)").unwrap();
    let started = call(&url, "POST", "/destinations/example/start", None).await;
    assert_eq!(started.status, 200, "{:?}", started.body);
    assert!(
        ["starting", "running"].contains(&started.body["state"].as_str().unwrap()),
        "{:?}",
        started.body
    );
    wait_state(&url, "example", "running").await;
    let mut client = subscribe(&addr).await;
    assert_eq!(
        receive_ids(&mut client, 1, Duration::from_secs(20)).await,
        [3]
    );

    // Reload with a changed filter: rows of w.u arrive only after it.
    db.exec("CREATE TABLE w.u (id INT PRIMARY KEY)").unwrap();
    std::fs::write(
        conf.path().join("example/instance.properties"),
        std::fs::read_to_string(conf.path().join("example/instance.properties"))
            .unwrap()
            .replace("w\\\\..*", "w\\\\.u"),
    )
    .unwrap();
    let reloaded = call(&url, "POST", "/destinations/example/reload", None).await;
    assert_eq!(reloaded.status, 200, "{:?}", reloaded.body);
    wait_state(&url, "example", "running").await;
    db.exec("INSERT INTO w.t VALUES (4); INSERT INTO w.u VALUES (40)")
        .unwrap();
    let mut client = subscribe(&addr).await;
    assert_eq!(
        receive_ids(&mut client, 1, Duration::from_secs(20)).await,
        [40],
        "the reloaded filter keeps w.u only"
    );
    drop(client);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_is_reset_to_a_position_or_a_time_only_when_confirmed_and_stopped() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY)")
        .unwrap();
    let (file, before_rows) = master_position(&db);
    db.exec("INSERT INTO w.t VALUES (1); INSERT INTO w.t VALUES (2)")
        .unwrap();
    let conf = tempfile::tempdir().unwrap();
    write_conf(conf.path(), db.port(), "");
    let (server, url) = start_server(conf.path()).await;
    let addr = server.local_addr().unwrap().to_string();
    let mut client = subscribe(&addr).await;
    assert_eq!(
        receive_ids(&mut client, 2, Duration::from_secs(20)).await,
        [1, 2]
    );
    let cursor_path = "/destinations/example/clients/1001/cursor";
    let to_start = json!({
        "confirm": "example",
        "journal_name": file,
        "position": before_rows,
    });

    // Refused while the destination runs: its client would ack over it.
    let running = call(&url, "POST", cursor_path, Some(to_start.clone())).await;
    assert_eq!(running.status, 409, "{:?}", running.body);
    assert!(running.body["error"]
        .as_str()
        .unwrap()
        .contains("stop it first"));

    let stopped = call(&url, "POST", "/destinations/example/stop", None).await;
    assert_eq!(stopped.status, 200);
    let acked = stopped.body["clients"][0]["cursor"].clone();
    assert_eq!(acked["postion"]["journalName"], file);

    // The confirmation must repeat the destination's name.
    for bad in [
        json!({ "journal_name": file, "position": before_rows }),
        json!({ "confirm": "other", "journal_name": file, "position": before_rows }),
    ] {
        let refused = call(&url, "POST", cursor_path, Some(bad)).await;
        assert_eq!(refused.status, 400, "{:?}", refused.body);
        assert!(refused.body["error"].as_str().unwrap().contains("confirm"));
    }
    for bad in [
        json!({ "confirm": "example" }),
        json!({ "confirm": "example", "journal_name": file }),
        json!({ "confirm": "example", "journal_name": file, "position": 4, "time": "2024-05-01T00:00:00Z" }),
        json!({ "confirm": "example", "time": "yesterday" }),
    ] {
        let refused = call(&url, "POST", cursor_path, Some(bad.clone())).await;
        assert_eq!(refused.status, 400, "{bad}: {:?}", refused.body);
    }
    let not_json = call_with(&url, Some(TOKEN), "POST", cursor_path, Some(json!("x"))).await;
    assert_eq!(not_json.status, 400);
    let bad_client = call(
        &url,
        "POST",
        "/destinations/example/clients/abc/cursor",
        Some(to_start.clone()),
    )
    .await;
    assert_eq!(bad_client.status, 400);
    let unknown_client = call(
        &url,
        "POST",
        "/destinations/example/clients/77/cursor",
        Some(to_start.clone()),
    )
    .await;
    assert_eq!(unknown_client.status, 404, "{:?}", unknown_client.body);
    assert!(unknown_client.body["error"]
        .as_str()
        .unwrap()
        .contains("77"));

    // A position the source does not have is refused, saying what it has.
    for (bad, want) in [
        (
            json!({ "confirm": "example", "journal_name": "binlog.000099", "position": 4 }),
            "no binary log binlog.000099",
        ),
        (
            json!({ "confirm": "example", "journal_name": file, "position": 1_000_000_000u64 }),
            "past the end",
        ),
    ] {
        let refused = call(&url, "POST", cursor_path, Some(bad)).await;
        assert_eq!(refused.status, 400, "{:?}", refused.body);
        let message = refused.body["error"].as_str().unwrap();
        assert!(message.contains(want), "{message}");
    }

    // Back to before the rows: they come again once started.
    let reset = call(&url, "POST", cursor_path, Some(to_start)).await;
    assert_eq!(reset.status, 200, "{:?}", reset.body);
    assert_eq!(reset.body["previous"], acked);
    assert_eq!(reset.body["cursor"]["postion"]["journalName"], file);
    assert_eq!(reset.body["cursor"]["postion"]["position"], before_rows);
    let shown = call(&url, "GET", "/destinations/example", None).await;
    assert_eq!(shown.body["clients"][0]["cursor"], reset.body["cursor"]);
    let started = call(&url, "POST", "/destinations/example/start", None).await;
    assert_eq!(started.status, 200, "{:?}", started.body);
    let mut client = subscribe(&addr).await;
    assert_eq!(
        receive_ids(&mut client, 2, Duration::from_secs(20)).await,
        [1, 2],
        "the rows after the reset position are delivered again"
    );

    // A time after every row: the end of the binlog; nothing old comes
    // again, what is written after the start does.
    let stopped = call(&url, "POST", "/destinations/example/stop", None).await;
    assert_eq!(stopped.status, 200);
    let (_, end) = master_position(&db);
    let future = "2999-01-01T00:00:00Z";
    let reset = call(
        &url,
        "POST",
        cursor_path,
        Some(json!({ "confirm": "example", "time": future })),
    )
    .await;
    assert_eq!(reset.status, 200, "{:?}", reset.body);
    assert_eq!(reset.body["cursor"]["postion"]["position"], end);

    // A time before every row: the first transaction at or after it.
    let reset = call(
        &url,
        "POST",
        cursor_path,
        Some(json!({ "confirm": "example", "time": "2000-01-01T00:00:00Z" })),
    )
    .await;
    assert_eq!(reset.status, 200, "{:?}", reset.body);
    let first = reset.body["cursor"]["postion"]["position"]
        .as_u64()
        .unwrap();
    assert!(first < end, "{first} < {end}");
    let reset = call(
        &url,
        "POST",
        cursor_path,
        Some(json!({ "confirm": "example", "time": future })),
    )
    .await;
    assert_eq!(reset.status, 200, "{:?}", reset.body);

    let started = call(&url, "POST", "/destinations/example/start", None).await;
    assert_eq!(started.status, 200);
    db.exec("INSERT INTO w.t VALUES (3)").unwrap();
    let mut client = subscribe(&addr).await;
    assert_eq!(
        receive_ids(&mut client, 1, Duration::from_secs(20)).await,
        [3]
    );
    drop(client);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_port_in_use_stops_the_start() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let conf = tempfile::tempdir().unwrap();
    std::fs::write(
        conf.path().join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.metrics.pull.port = 0\n\
             canal.destinations =\ncanal.auto.scan = false\ncanal.file.data.dir = {}\n\
             sluice.admin.http.port = {port}\n",
            find_free_port().unwrap(),
            conf.path().display()
        ),
    )
    .unwrap();
    let err = Server::start(sluice_server::load_config(conf.path()).unwrap())
        .await
        .expect_err("the admin port is taken");
    let message = err.to_string();
    assert!(
        message.contains("canal.properties") && message.contains(&port.to_string()),
        "{message}"
    );
    let cause = std::error::Error::source(&err).map(|e| e.to_string());
    assert!(cause.is_some_and(|c| c.contains("in use")), "{err:?}");
    drop(taken);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn release_moves_a_destination_to_the_standby_of_the_cluster() {
    let zk = ZooKeeperEnsemble::start_standalone().unwrap();
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY)")
        .unwrap();
    let cluster = format!(
        "canal.register.ip = 127.0.0.1\ncanal.zkServers = {}\n\
         canal.zookeeper.session.timeout = 4000\ncanal.zookeeper.ha.delay = 500\n",
        zk.connect_string()
    );
    let first_conf = tempfile::tempdir().unwrap();
    write_conf(first_conf.path(), db.port(), &cluster);
    let (first, first_url) = start_server(first_conf.path()).await;
    let running = wait_state(&first_url, "example", "running").await;
    assert_eq!(running["role"], "running");
    let second_conf = tempfile::tempdir().unwrap();
    write_conf(second_conf.path(), db.port(), &cluster);
    let (second, second_url) = start_server(second_conf.path()).await;
    let standby = call(&second_url, "GET", "/destinations/example", None).await;
    assert_eq!(standby.body["role"], "standby", "{:?}", standby.body);
    assert_eq!(standby.body["state"], "stopped");

    // The elections decide: no start or stop by hand, no cursor reset.
    for path in ["/destinations/example/start", "/destinations/example/stop"] {
        let refused = call(&first_url, "POST", path, None).await;
        assert_eq!(refused.status, 409, "{path}: {:?}", refused.body);
        assert!(refused.body["error"].as_str().unwrap().contains("release"));
    }
    let refused = call(
        &second_url,
        "POST",
        "/destinations/example/clients/1/cursor",
        Some(json!({ "confirm": "example", "time": "2000-01-01T00:00:00Z" })),
    )
    .await;
    assert_eq!(refused.status, 409, "{:?}", refused.body);
    let refused = call(&second_url, "POST", "/destinations/example/reload", None).await;
    assert_eq!(refused.status, 409, "{:?}", refused.body);
    assert!(refused.body["error"]
        .as_str()
        .unwrap()
        .contains("another server"));

    // Wait for the standby's registration, then release through it.
    let first_address = first.registered_address().unwrap().to_string();
    let second_address = second.registered_address().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    let released = loop {
        let r = call(
            &second_url,
            "POST",
            "/destinations/example/release",
            Some(json!({ "wait_seconds": 30 })),
        )
        .await;
        if r.status == 200 || Instant::now() > deadline {
            break r;
        }
        assert_eq!(r.status, 409, "{:?}", r.body);
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(released.status, 200, "{:?}", released.body);
    assert_eq!(released.body["released_by"], first_address);
    assert_eq!(released.body["taken_over_by"], second_address);
    let now_running = wait_state(&second_url, "example", "running").await;
    assert_eq!(now_running["role"], "running");
    let now_standby = call(&first_url, "GET", "/destinations/example", None).await;
    assert_eq!(
        now_standby.body["role"], "standby",
        "{:?}",
        now_standby.body
    );

    let bad = call(
        &first_url,
        "POST",
        "/destinations/example/release",
        Some(json!({ "wait_seconds": 100000 })),
    )
    .await;
    assert_eq!(bad.status, 400, "{:?}", bad.body);
    second.shutdown().await.unwrap();
    first.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn release_without_zookeeper_is_refused() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    let conf = tempfile::tempdir().unwrap();
    write_conf(conf.path(), db.port(), "");
    let (server, url) = start_server(conf.path()).await;
    let refused = call(&url, "POST", "/destinations/example/release", None).await;
    assert_eq!(refused.status, 409, "{:?}", refused.body);
    assert!(refused.body["error"]
        .as_str()
        .unwrap()
        .contains("canal.zkServers"));
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destination_stopped_by_hand_stays_stopped_through_the_configuration_scan() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    let conf = tempfile::tempdir().unwrap();
    // Later definitions win: the scan runs every second.
    write_conf(
        conf.path(),
        db.port(),
        "canal.auto.scan = true\ncanal.auto.scan.interval = 1\n",
    );
    let (server, url) = start_server(conf.path()).await;
    wait_state(&url, "example", "running").await;
    let stopped = call(&url, "POST", "/destinations/example/stop", None).await;
    assert_eq!(stopped.status, 200, "{:?}", stopped.body);
    // Three scans later it is still stopped.
    tokio::time::sleep(Duration::from_millis(3500)).await;
    let shown = call(&url, "GET", "/destinations/example", None).await;
    assert_eq!(shown.body["state"], "stopped", "{:?}", shown.body);
    assert!(
        server.destinations().is_empty(),
        "{:?}",
        server.destinations()
    );
    // Started by hand, the scan leaves it running.
    let started = call(&url, "POST", "/destinations/example/start", None).await;
    assert_eq!(started.status, 200, "{:?}", started.body);
    wait_state(&url, "example", "running").await;
    server.shutdown().await.unwrap();
}
