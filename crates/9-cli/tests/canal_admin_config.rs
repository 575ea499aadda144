//! A `sluice server` managed by canal-admin (`canal.admin.manager`), against
//! the test kit's stand-in for canal-admin's configuration API: the server
//! registers as Canal does, follows the destinations canal-admin lists
//! (new ones start, changed ones reload, vanished ones stop) within two
//! polling periods, keeps running when canal-admin is away, starts from the
//! configuration it kept when canal-admin is down, and says clearly when
//! canal-admin refuses its password; with ZooKeeper, the destinations it
//! lists are competed for.

mod common;

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use common::client::Client;
use common::spawn_server;
use sluice_client::SimpleConnector;
use sluice_testkit::canal_admin::CanalAdmin;
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig, ZooKeeperEnsemble};

/// The polling period the tests run with (`sluice.admin.pollInterval`).
const POLL: Duration = Duration::from_secs(1);
/// Two polling periods and the time a destination takes to start or stop.
const FOLLOW: Duration = Duration::from_secs(5);

/// The `instance.properties` canal-admin serves for a destination reading
/// `db_port`'s tables matching `filter_regex`.
fn instance(db_port: u16, filter_regex: &str) -> String {
    format!(
        "canal.instance.master.address = 127.0.0.1:{db_port}\n\
         canal.instance.dbUsername = root\n\
         canal.instance.master.journal.name = binlog.000001\n\
         canal.instance.master.position = 4\n\
         canal.instance.filter.regex = {filter_regex}\n"
    )
}

/// The local `canal.properties` of a server managed by `admin`.
fn write_local_conf(conf: &Path, admin: &CanalAdmin, passwd: &str, admin_port: u16, data: &Path) {
    std::fs::write(
        conf.join("canal.properties"),
        format!(
            "canal.admin.manager = {}\n\
             canal.admin.port = {admin_port}\n\
             canal.admin.user = admin\n\
             canal.admin.passwd = {}\n\
             canal.admin.register.auto = true\n\
             canal.admin.register.cluster =\n\
             canal.admin.register.name = node-a\n\
             canal.file.data.dir = {}\n\
             sluice.admin.pollInterval = {}\n",
            admin.addr(),
            CanalAdmin::passwd_hash(passwd),
            data.display(),
            POLL.as_secs()
        ),
    )
    .unwrap();
}

/// Whether the server at `addr` serves `destination` now.
async fn serves(addr: &str, destination: &str) -> bool {
    match tokio::time::timeout(
        Duration::from_secs(2),
        SimpleConnector::connect(addr, destination, "", ""),
    )
    .await
    {
        Ok(Ok(mut c)) => c.subscribe("").await.is_ok(),
        _ => false,
    }
}

/// Waits until the server serves `destination` (or no longer does).
async fn wait_serving(addr: &str, destination: &str, serving: bool, within: Duration) {
    let start = Instant::now();
    while serves(addr, destination).await != serving {
        assert!(
            start.elapsed() < within,
            "{destination} {} served within {within:?}",
            if serving { "not" } else { "still" }
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Waits until the server's log holds `text` (after `from` bytes).
fn wait_log(log: &Path, from: usize, text: &str, within: Duration) -> String {
    let start = Instant::now();
    loop {
        let all = std::fs::read_to_string(log).unwrap_or_default();
        if all.get(from..).is_some_and(|t| t.contains(text)) {
            return all;
        }
        assert!(
            start.elapsed() < within,
            "the server does not log {text:?} within {within:?}: {all}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn log_len(log: &Path) -> usize {
    std::fs::read_to_string(log).map(|t| t.len()).unwrap_or(0)
}

fn insert(db: &MariaDb, ids: std::ops::Range<i64>) {
    for id in ids {
        db.exec(&format!("INSERT INTO w.t VALUES ({id}, 'row {id}')"))
            .unwrap();
    }
}

fn ids(rows: &[(String, i64)]) -> Vec<i64> {
    let mut v: Vec<i64> = rows.iter().map(|(_, id)| *id).collect();
    v.sort();
    v.dedup();
    v
}

fn stop(mut server: Child) {
    // SAFETY: kill sends a signal to the child we started.
    unsafe { libc::kill(server.id() as i32, libc::SIGTERM) };
    server.wait().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn destinations_follow_canal_admin_and_outlive_its_absence() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v TEXT)")
        .unwrap();
    let mut admin = CanalAdmin::start("admin", "s3cret").unwrap();
    let canal_port = find_free_port().unwrap();
    let admin_port = find_free_port().unwrap();
    admin.set_server_config(&format!(
        "canal.port = {canal_port}\ncanal.metrics.pull.port = 0\ncanal.destinations = ignored\n"
    ));
    admin.set_instance("example", &instance(db.port(), r"w\\..*"));
    let conf = tempfile::tempdir().unwrap();
    let data = conf.path().join("data");
    write_local_conf(conf.path(), &admin, "s3cret", admin_port, &data);
    let log = conf.path().join("server.log");
    let addr = format!("127.0.0.1:{canal_port}");

    // Registers as Canal does, and runs what canal-admin lists.
    let server = spawn_server(conf.path(), &log);
    let mut client = Client::connect(&addr, 1, "").await;
    insert(&db, 0..3);
    assert_eq!(ids(&client.take(3).await), vec![0, 1, 2]);
    let requests = admin.requests();
    let first = &requests[0];
    assert_eq!(first.path, "server_polling");
    let q = |k: &str| first.query.get(k).map(String::as_str);
    assert_eq!(q("ip"), Some("127.0.0.1"));
    assert_eq!(q("port"), Some(admin_port.to_string().as_str()));
    assert_eq!(q("md5"), Some(""));
    assert_eq!(q("register"), Some("1"));
    assert_eq!(q("cluster"), Some(""));
    assert_eq!(q("name"), Some("node-a"));
    assert_eq!(first.user.as_deref(), Some("admin"));
    assert_eq!(
        first.passwd.as_deref(),
        Some(CanalAdmin::passwd_hash("s3cret").as_str())
    );
    let known = admin.servers();
    assert_eq!(known.len(), 1, "registered once: {known:?}");
    assert_eq!(
        (known[0].name.as_str(), known[0].admin_port),
        ("node-a", admin_port)
    );
    assert!(
        requests
            .iter()
            .any(|r| r.path == "instance_polling/example" && r.query.contains_key("md5")),
        "asks for the destination's instance.properties: {requests:?}"
    );
    assert!(
        !serves(&addr, "ignored").await,
        "canal.destinations does not name destinations: canal-admin does"
    );
    // Later polls send the MD5 of what the server holds.
    wait_log(&log, 0, "serving Canal clients", FOLLOW);
    tokio::time::sleep(POLL * 2).await;
    assert!(
        admin.requests().iter().any(
            |r| r.path == "server_polling" && r.query.get("md5").is_some_and(|m| m.len() == 32)
        ),
        "polls canal.properties with its MD5"
    );

    // A new destination starts, a changed one reloads, a vanished one stops.
    admin.set_instance("other", &instance(db.port(), r"w\\..*"));
    wait_serving(&addr, "other", true, FOLLOW).await;
    let before = log_len(&log);
    admin.set_instance("example", &instance(db.port(), r"w\\.t"));
    wait_log(
        &log,
        before,
        "instance.properties changed: reloading",
        FOLLOW,
    );
    admin.remove_instance("other");
    wait_serving(&addr, "other", false, FOLLOW).await;
    wait_serving(&addr, "example", true, FOLLOW).await;

    // canal-admin away for 30 s (30 polls): nothing stops, rows written
    // meanwhile arrive.
    admin.stop();
    let before = log_len(&log);
    let away = Instant::now();
    let mut next = 100;
    while away.elapsed() < Duration::from_secs(30) {
        insert(&db, next..next + 1);
        next += 1;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let got = ids(&client.take((next - 100) as usize).await);
    let want: Vec<i64> = (100..next).collect();
    assert!(
        want.iter().all(|id| got.contains(id)),
        "rows written while canal-admin was away arrive: got {got:?}"
    );
    let text = wait_log(&log, before, "run on with the configuration kept", FOLLOW);
    assert!(
        !text[before..].contains("instance stopped"),
        "a destination stopped while canal-admin was away: {}",
        &text[before..]
    );
    assert!(serves(&addr, "example").await);

    // A restart while canal-admin is down runs from the kept configuration.
    stop(server);
    let before = log_len(&log);
    let server = spawn_server(conf.path(), &log);
    wait_log(&log, before, "starting with the configuration kept", FOLLOW);
    insert(&db, 200..203);
    let got = ids(&client.take(3).await);
    assert!(
        [200, 201, 202].iter().all(|id| got.contains(id)),
        "rows after the restart arrive: {got:?}"
    );

    // canal-admin back: the server polls it again.
    admin.restart().unwrap();
    wait_log(&log, before, "canal-admin answers again", FOLLOW);
    stop(server);
}

/// With `canal.zkServers` in canal-admin's file, a destination it lists is
/// registered and competed for, one it drops is withdrawn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_zookeeper_the_destinations_canal_admin_lists_are_competed_for() {
    let ensemble = ZooKeeperEnsemble::start_standalone().unwrap();
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v TEXT)")
        .unwrap();
    let admin = CanalAdmin::start("admin", "s3cret").unwrap();
    let canal_port = find_free_port().unwrap();
    admin.set_server_config(&format!(
        "canal.port = {canal_port}\ncanal.metrics.pull.port = 0\ncanal.register.ip = 127.0.0.1\ncanal.zkServers = {}\n",
        ensemble.connect_string()
    ));
    let conf = tempfile::tempdir().unwrap();
    let data = conf.path().join("data");
    write_local_conf(
        conf.path(),
        &admin,
        "s3cret",
        find_free_port().unwrap(),
        &data,
    );
    let log = conf.path().join("server.log");
    let addr = format!("127.0.0.1:{canal_port}");
    let server = spawn_server(conf.path(), &log);
    wait_log(
        &log,
        0,
        "competing for the destinations in ZooKeeper",
        FOLLOW,
    );
    assert!(!serves(&addr, "example").await);

    admin.set_instance("example", &instance(db.port(), r"w\\..*"));
    wait_log(&log, 0, "new destination: competing for it", FOLLOW);
    wait_serving(&addr, "example", true, Duration::from_secs(15)).await;
    let mut client = Client::connect(&addr, 1, "").await;
    insert(&db, 0..3);
    assert_eq!(ids(&client.take(3).await), vec![0, 1, 2]);

    admin.remove_instance("example");
    wait_log(&log, 0, "withdrawing the destination", FOLLOW);
    wait_serving(&addr, "example", false, FOLLOW).await;
    stop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_password_is_a_clear_error() {
    let admin = CanalAdmin::start("admin", "right").unwrap();
    admin.set_server_config("canal.port = 0\n");
    let conf = tempfile::tempdir().unwrap();
    let data = conf.path().join("data");
    write_local_conf(
        conf.path(),
        &admin,
        "wrong",
        find_free_port().unwrap(),
        &data,
    );
    let log = conf.path().join("server.log");
    let mut server = spawn_server(conf.path(), &log);
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = server.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = server.kill();
            panic!(
                "the server still runs with a wrong password: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!status.success(), "must fail: {text}");
    assert!(
        text.contains("auth :admin is failed") && text.contains("canal.admin.passwd"),
        "says canal-admin refused the password and which key to fix: {text}"
    );
    assert!(
        !data.join("canal-admin/canal.properties").exists(),
        "kept a configuration it was refused"
    );
}
