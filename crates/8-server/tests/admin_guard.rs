//! What the admin API refuses so that a web page in a browser on the same
//! machine cannot drive it, over the real server's HTTP port on loopback
//! without a token (the case where nothing else stands in the way): a POST
//! that is not JSON (415), an `Origin` not listed (403), a `Host` that is
//! not the API's (421, DNS rebinding); and what it still lets through: its
//! own address, `localhost`, listed names and origins (with CORS answers),
//! and `sluice admin`'s client.

use std::time::{Duration, Instant};

use serde_json::Value;
use sluice_server::admin_api_client::{self, request};
use sluice_server::Server;
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One raw HTTP/1.1 exchange: `head` is the request line and headers
/// (without the blank line), `body` follows. Returns the status, the
/// response's header lines and its body.
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
    let (head, body) = response
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP head in {response:?}"));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    (
        status,
        lines.map(|l| l.to_ascii_lowercase()).collect(),
        body.to_string(),
    )
}

/// The state of `example` as the API shows it.
async fn state(url: &str) -> String {
    let r = request(
        url,
        None,
        "GET",
        "/destinations/example",
        None,
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["state"].as_str().unwrap_or_default().to_string()
}

async fn wait_state(url: &str, want: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now = state(url).await;
        if now == want {
            return;
        }
        assert!(Instant::now() < deadline, "example stays {now}, not {want}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_api_refuses_what_a_web_page_sends_and_serves_its_own_clients() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    let conf = tempfile::tempdir().unwrap();
    std::fs::write(
        conf.path().join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.metrics.pull.port = 0\n\
             canal.destinations = example\ncanal.auto.scan = false\n\
             canal.file.data.dir = {}\n\
             sluice.admin.http.port = 0\n\
             sluice.admin.http.allowHosts = admin.test\n\
             sluice.admin.http.allowOrigins = http://console.test:8080\n",
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
    let addr = server.admin_addr().expect("admin API served").to_string();
    let port = server.admin_addr().unwrap().port();
    let url = format!("http://{addr}");
    wait_state(&url, "running").await;
    let stop = "POST /destinations/example/stop HTTP/1.1";
    let host = format!("Host: {addr}");

    // What a page's form or "simple" request can send: no JSON type.
    for content_type in [
        "",
        "\r\nContent-Type: text/plain",
        "\r\nContent-Type: application/x-www-form-urlencoded",
    ] {
        let (status, _, body) = raw(&addr, &format!("{stop}\r\n{host}{content_type}"), "").await;
        assert_eq!(status, 415, "{content_type:?}: {body}");
        assert!(body.contains("application/json"), "{body}");
    }
    // A page of another origin, with the right type (after a preflight it
    // does not pass) or reading: refused whatever it asks.
    let evil = "\r\nOrigin: http://evil.example";
    let json = "\r\nContent-Type: application/json";
    let (status, _, body) = raw(&addr, &format!("{stop}\r\n{host}{json}{evil}"), "").await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("sluice.admin.http.allowOrigins"), "{body}");
    let (status, _, _) = raw(
        &addr,
        &format!("GET /destinations HTTP/1.1\r\n{host}{evil}"),
        "",
    )
    .await;
    assert_eq!(status, 403);
    let (status, headers, _) = raw(
        &addr,
        &format!("OPTIONS /destinations/example/stop HTTP/1.1\r\n{host}{evil}\r\nAccess-Control-Request-Method: POST"),
        "",
    )
    .await;
    assert_eq!(status, 403);
    assert!(
        !headers.iter().any(|h| h.starts_with("access-control-")),
        "{headers:?}"
    );
    // A page that rebinds its own name to 127.0.0.1: its name in Host.
    for rebound in [
        format!("evil.example:{port}"),
        "evil.example".to_string(),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
    ] {
        let (status, _, body) = raw(&addr, &format!("{stop}\r\nHost: {rebound}{json}"), "").await;
        assert_eq!(status, 421, "{rebound}: {body}");
        assert!(body.contains("sluice.admin.http.allowHosts"), "{body}");
        let (status, _, _) = raw(
            &addr,
            &format!("GET /destinations HTTP/1.1\r\nHost: {rebound}"),
            "",
        )
        .await;
        assert_eq!(status, 421, "{rebound}");
    }
    let (status, _, _) = raw(&addr, "GET /destinations HTTP/1.0", "").await;
    assert_eq!(status, 400, "no Host");
    assert_eq!(state(&url).await, "running", "nothing refused stopped it");

    // Its own clients: the address, localhost, a listed name, JSON with a
    // charset, a listed origin (with the CORS answers its page needs).
    let (status, _, body) = raw(
        &addr,
        &format!(
            "{stop}\r\nHost: localhost:{port}\r\nContent-Type: application/json; charset=utf-8"
        ),
        "",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    wait_state(&url, "stopped").await;
    let start = "POST /destinations/example/start HTTP/1.1";
    let (status, _, body) = raw(&addr, &format!("{start}\r\nHost: admin.test{json}"), "").await;
    assert_eq!(status, 200, "{body}");
    let (status, _, _) = raw(
        &addr,
        &format!("GET /openapi.json HTTP/1.1\r\nHost: ADMIN.test:{port}"),
        "",
    )
    .await;
    assert_eq!(status, 200);
    let console = "\r\nOrigin: http://console.test:8080";
    let (status, headers, _) = raw(
        &addr,
        &format!("OPTIONS /destinations/example/stop HTTP/1.1\r\n{host}{console}\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type"),
        "",
    )
    .await;
    assert_eq!(status, 204);
    for want in [
        "access-control-allow-origin: http://console.test:8080",
        "access-control-allow-methods: get, post",
        "access-control-allow-headers: authorization, content-type",
    ] {
        assert!(
            headers.iter().any(|h| h == want),
            "{want} not in {headers:?}"
        );
    }
    let (status, headers, body) = raw(&addr, &format!("{stop}\r\n{host}{json}{console}"), "").await;
    assert_eq!(status, 200, "{body}");
    assert!(
        headers
            .iter()
            .any(|h| h == "access-control-allow-origin: http://console.test:8080"),
        "{headers:?}"
    );
    let stopped: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(stopped["destination"], "example");
    wait_state(&url, "stopped").await;

    // `sluice admin`: its POSTs without a body still say JSON, by the
    // address and by localhost.
    let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let timeout = Duration::from_secs(30);
    admin_api_client::run(&url, None, false, timeout, &words(&["start", "example"]))
        .await
        .unwrap();
    wait_state(&url, "running").await;
    let by_name = format!("http://localhost:{port}");
    admin_api_client::run(&by_name, None, false, timeout, &words(&["stop", "example"]))
        .await
        .unwrap();
    wait_state(&url, "stopped").await;
    server.shutdown().await.unwrap();
}
