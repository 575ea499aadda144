//! `sluice admin` against a running server's admin API: the table of
//! `list`, its `--json`, `stop` and `start`, a cursor reset, and the
//! errors a person reads (no token, unknown destination).

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use sluice_client::{Connector, SimpleConnector, TimeUnit};
use sluice_server::Server;
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};

const TOKEN: &str = "cli-admin-token";

/// `sluice admin ARGS` with the URL given and the token in the environment
/// (or not).
fn admin(url: &str, token: Option<&str>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sluice"));
    command
        .arg("admin")
        .args(["--url", url])
        .args(args)
        .env_remove("SLUICE_ADMIN_URL")
        .env_remove("SLUICE_ADMIN_TOKEN");
    if let Some(token) = token {
        command.env("SLUICE_ADMIN_TOKEN", token);
    }
    command.output().expect("run sluice admin")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_lists_stops_starts_and_resets_a_cursor() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY)")
        .unwrap();
    let conf = tempfile::tempdir().unwrap();
    std::fs::write(
        conf.path().join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.metrics.pull.port = 0\n\
             canal.destinations = example\ncanal.auto.scan = false\n\
             canal.file.data.dir = {}\n\
             sluice.admin.http.port = 0\nsluice.admin.http.token = {TOKEN}\n",
            find_free_port().unwrap(),
            conf.path().display()
        ),
    )
    .unwrap();
    std::fs::create_dir_all(conf.path().join("example")).unwrap();
    std::fs::write(
        conf.path().join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{}\ncanal.instance.dbUsername = root\n",
            db.port()
        ),
    )
    .unwrap();
    let server = Server::start(sluice_server::load_config(conf.path()).unwrap())
        .await
        .unwrap();
    let url = format!("http://{}", server.admin_addr().unwrap());

    // The table: a header and a line for the destination, once it runs.
    let deadline = Instant::now() + Duration::from_secs(30);
    let table = loop {
        let url = url.clone();
        let out = tokio::task::spawn_blocking(move || admin(&url, Some(TOKEN), &["list"]))
            .await
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let table = stdout(&out);
        if table.contains("running") || Instant::now() > deadline {
            break table;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 2, "{table}");
    for column in [
        "DESTINATION",
        "STATE",
        "ROLE",
        "SOURCE",
        "READ",
        "LAG",
        "CLIENTS",
    ] {
        assert!(lines[0].contains(column), "{table}");
    }
    assert!(lines[1].starts_with("example"), "{table}");
    assert!(lines[1].contains("running"), "{table}");
    assert!(
        lines[1].contains(&format!("127.0.0.1:{}", db.port())),
        "{table}"
    );

    let url2 = url.clone();
    let (json, stopped, listed, missing, unknown, reset, started) =
        tokio::task::spawn_blocking(move || {
            let url = url2;
            (
                admin(&url, Some(TOKEN), &["list", "--json"]),
                admin(&url, Some(TOKEN), &["stop", "example"]),
                admin(&url, Some(TOKEN), &["show", "example"]),
                admin(&url, None, &["list"]),
                admin(&url, Some(TOKEN), &["show", "nosuch"]),
                admin(
                    &url,
                    Some(TOKEN),
                    &[
                        "reset-cursor",
                        "example",
                        "1001",
                        "--time",
                        "2000-01-01T00:00:00Z",
                        "--confirm",
                        "example",
                    ],
                ),
                admin(&url, Some(TOKEN), &["start", "example"]),
            )
        })
        .await
        .unwrap();

    assert!(json.status.success(), "{}", stderr(&json));
    let parsed: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(parsed["destinations"][0]["destination"], "example");
    assert_eq!(parsed["destinations"][0]["state"], "running");

    assert!(stopped.status.success(), "{}", stderr(&stopped));
    assert!(
        stdout(&stopped).contains("state      stopped"),
        "{}",
        stdout(&stopped)
    );
    assert!(
        stdout(&listed).contains("clients    none"),
        "{}",
        stdout(&listed)
    );

    assert!(!missing.status.success());
    assert!(
        stderr(&missing).contains("401") && stderr(&missing).contains("sluice.admin.http.token"),
        "{}",
        stderr(&missing)
    );
    assert!(!unknown.status.success());
    assert!(
        stderr(&unknown).contains("404") && stderr(&unknown).contains("nosuch"),
        "{}",
        stderr(&unknown)
    );
    // No client ever subscribed: nothing to reset, and the message says so.
    assert!(!reset.status.success());
    assert!(
        stderr(&reset).contains("404") && stderr(&reset).contains("clientId 1001"),
        "{}",
        stderr(&reset)
    );
    assert!(started.status.success(), "{}", stderr(&started));
    assert!(
        stdout(&started).contains("destination example"),
        "{}",
        stdout(&started)
    );

    // A client that acked a row: its cursor shows, and once the
    // destination is stopped it is reset.
    let addr = server.local_addr().unwrap().to_string();
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
    db.exec("INSERT INTO w.t VALUES (1)").unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let msg = client
            .get_without_ack(100, Some(200), TimeUnit::Milliseconds)
            .await
            .unwrap();
        if msg.id > 0 {
            client.ack(msg.id).await.unwrap();
            if !msg.entries.is_empty() {
                break;
            }
        }
        assert!(Instant::now() < deadline, "the row never came");
    }
    // The reply to one more request proves the ack was processed.
    client
        .get_without_ack(1, Some(100), TimeUnit::Milliseconds)
        .await
        .unwrap();
    let (file, end) = {
        let rows = db.query("SHOW MASTER STATUS").unwrap();
        (rows[0][0].clone().unwrap(), rows[0][1].clone().unwrap())
    };
    let (url2, position) = (url.clone(), format!("{file}:4"));
    let (shown, stopped, reset) = tokio::task::spawn_blocking(move || {
        let url = url2;
        (
            admin(&url, Some(TOKEN), &["show", "example"]),
            admin(&url, Some(TOKEN), &["stop", "example"]),
            admin(
                &url,
                Some(TOKEN),
                &[
                    "reset-cursor",
                    "example",
                    "1001",
                    "--position",
                    &position,
                    "--confirm",
                    "example",
                ],
            ),
        )
    })
    .await
    .unwrap();
    let shown = stdout(&shown);
    assert!(
        shown.contains(&format!("client 1001  connections 1  cursor {file}:{end}")),
        "{shown}"
    );
    assert!(stopped.status.success(), "{}", stderr(&stopped));
    assert!(reset.status.success(), "{}", stderr(&reset));
    // The old cursor carries the source's GTID state after its transaction.
    let said = stdout(&reset);
    assert!(
        said.starts_with(&format!(
            "clientId 1001 of example: cursor {file}:4 (was {file}:{end} (gtid 0-1-"
        )) && said.ends_with("); it gets the transactions from there once example starts\n"),
        "{said}"
    );
    drop(client);
    server.shutdown().await.unwrap();
}
