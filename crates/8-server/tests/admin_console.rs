//! The web console's side of the admin API: the page, its script and style
//! served without a token (with a strict Content-Security-Policy), calls
//! from the API's own origin let through while other origins stay refused,
//! and the figures the page shows: the lag history sampled every 5 s, the
//! server's version and mode, the last failures, and in MQ mode the state
//! of each destination's worker.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;
use sluice_server::admin_api_client::request;
use sluice_server::Server;
use sluice_testkit::redis::Redis;
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TOKEN: &str = "console-figures-token";

/// A configuration with the admin API on a free loopback port and one
/// destination `example` reading `db_port`; `extra` ends canal.properties.
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
             canal.mq.topic = example\n"
        ),
    )
    .unwrap();
}

/// Status, lower-cased header lines and body of a raw HTTP/1.1 request.
async fn raw(addr: &str, head: &str, body: &str) -> (u16, Vec<String>, String) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "{head}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), s.read_to_end(&mut response))
        .await
        .expect("an answer within 30 s")
        .unwrap();
    let response = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap();
    (
        status,
        lines.map(|l| l.to_ascii_lowercase()).collect(),
        body.to_string(),
    )
}

async fn get(url: &str, path: &str) -> Value {
    let r = request(url, Some(TOKEN), "GET", path, None, Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    r.body
}

/// `GET /destinations/example` once `check` holds of it (30 s at most).
async fn wait_for(url: &str, what: &str, check: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let d = get(url, "/destinations/example").await;
        if check(&d) {
            return d;
        }
        assert!(Instant::now() < deadline, "never {what}: {d}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_is_served_and_its_figures_are_in_the_api() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY)")
        .unwrap();
    let conf = tempfile::tempdir().unwrap();
    write_conf(conf.path(), db.port(), "");
    let server = Server::start(sluice_server::load_config(conf.path()).unwrap())
        .await
        .unwrap();
    let addr = server.admin_addr().unwrap().to_string();
    let url = format!("http://{addr}");
    let host = format!("Host: {addr}");

    // The page and its assets, without a token.
    for (path, kind, marker) in [
        ("/", "text/html", "<title>Sluice console</title>"),
        ("/console", "text/html", "console.js"),
        ("/console.js", "text/javascript", "sessionStorage"),
        ("/console.css", "text/css", ".destination"),
    ] {
        let (status, headers, body) =
            raw(&addr, &format!("GET {path} HTTP/1.1\r\n{host}"), "").await;
        assert_eq!(status, 200, "{path}: {body}");
        assert!(
            headers
                .iter()
                .any(|h| h.starts_with("content-type: ") && h.contains(kind)),
            "{path}: {headers:?}"
        );
        assert!(body.contains(marker), "{path}");
        if kind == "text/html" {
            assert!(
                headers
                    .iter()
                    .any(|h| h.starts_with("content-security-policy: ")
                        && h.contains("script-src 'self'")
                        && h.contains("frame-ancestors 'none'")),
                "{headers:?}"
            );
        }
    }

    // The page's own calls carry its origin: let through; another's refused.
    let stop = format!(
        "POST /destinations/example/stop HTTP/1.1\r\n{host}\r\n\
         Content-Type: application/json\r\nAuthorization: Bearer {TOKEN}"
    );
    let (status, _, body) = raw(
        &addr,
        &format!("{stop}\r\nOrigin: http://evil.example"),
        "{}",
    )
    .await;
    assert_eq!(status, 403, "{body}");
    let (status, _, body) = raw(&addr, &format!("{stop}\r\nOrigin: {url}"), "{}").await;
    assert_eq!(status, 200, "{body}");
    let (status, _, body) = raw(
        &addr,
        &format!(
            "POST /destinations/example/start HTTP/1.1\r\n{host}\r\nOrigin: {url}\r\n\
             Content-Type: application/json"
        ),
        "{}",
    )
    .await;
    assert_eq!(
        status, 401,
        "the console's calls need the token too: {body}"
    );
    let (status, _, body) = raw(
        &addr,
        &format!(
            "POST /destinations/example/start HTTP/1.1\r\n{host}\r\nOrigin: {url}\r\n\
             Content-Type: application/json\r\nAuthorization: Bearer {TOKEN}"
        ),
        "{}",
    )
    .await;
    assert_eq!(status, 200, "{body}");

    // The lag is sampled every 5 s, and known once changes are read (a
    // row each round: the destination just started from the binlog's end).
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut id = 0;
    let d = loop {
        id += 1;
        db.exec(&format!("INSERT INTO w.t VALUES ({id})")).unwrap();
        let d = get(&url, "/destinations/example").await;
        let samples = d["lag_history"]["samples"].as_array().unwrap().clone();
        if samples.iter().any(|s| s["lag_seconds"].is_number()) && samples.len() >= 2 {
            break d;
        }
        assert!(Instant::now() < deadline, "no lag sampled: {d}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    assert_eq!(d["lag_history"]["interval_seconds"], 5);
    let at: Vec<u64> = d["lag_history"]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["at"].as_u64().unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[1] >= w[0] + 4_000), "{at:?}");
    assert!(d["mq_worker"].is_null(), "{d}");

    let all = get(&url, "/destinations").await;
    assert_eq!(all["server"]["mode"], "tcp", "{all}");
    assert_eq!(all["server"]["cluster"], false, "{all}");
    assert_eq!(all["server"]["version"], env!("CARGO_PKG_VERSION"), "{all}");
    assert_eq!(all["recent_errors"], serde_json::json!([]), "{all}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_mq_mode_each_destination_shows_its_worker() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    let redis = Redis::start().unwrap();
    let conf = tempfile::tempdir().unwrap();
    write_conf(
        conf.path(),
        db.port(),
        &format!(
            "canal.serverMode = redis\nsluice.mq.redis.url = {}\n",
            redis.url()
        ),
    );
    let server = Server::start(sluice_server::load_config(conf.path()).unwrap())
        .await
        .unwrap();
    let url = format!("http://{}", server.admin_addr().unwrap());

    let d = wait_for(&url, "publishing", |d| {
        d["mq_worker"]["state"] == "publishing"
    })
    .await;
    assert!(d["mq_worker"]["since"].as_u64().unwrap() > 0, "{d}");
    assert!(d["mq_worker"]["error"].is_null(), "{d}");
    let all = get(&url, "/destinations").await;
    assert_eq!(all["server"]["mode"], "redis", "{all}");

    let r = request(
        &url,
        Some(TOKEN),
        "POST",
        "/destinations/example/stop",
        None,
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    wait_for(&url, "without a worker once stopped", |d| {
        d["mq_worker"]["state"] == "none"
    })
    .await;
    server.shutdown().await.unwrap();
}
