//! What a new user meets in the first hour, as messages a person can act
//! on: a missing configuration folder, Canal's stock `canal.conf.dir =
//! ../conf` started from another folder, a source without a binary log, a
//! replication user without REPLICATION SLAVE, logs in a folder as JSON or in
//! Canal's `logs/` layout.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sluice_testkit::{find_free_port, BinlogRowMetadata, MariaDb, MariaDbConfig};

fn sluice() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sluice"))
}

/// Runs `sluice server --conf conf` from `cwd` with logs in `logs` as JSON
/// until `done` holds for the log text (or 60 s), then stops it; the log.
fn run_server_until(conf: &Path, cwd: &Path, logs: &Path, done: impl Fn(&str) -> bool) -> String {
    let mut child = sluice()
        .args(["server", "--conf"])
        .arg(conf)
        .args(["--log-format", "json", "--log-dir"])
        .arg(logs)
        .current_dir(cwd)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let read = || {
        std::fs::read_dir(logs)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
            .collect::<String>()
    };
    while !done(&read()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    read()
}

/// The `fields` of the JSON log lines whose message is `message`.
fn lines_with(log: &str, message: &str) -> Vec<serde_json::Value> {
    log.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["fields"]["message"] == message)
        .map(|v| v["fields"].clone())
        .collect()
}

#[test]
fn a_missing_configuration_folder_is_named_once() {
    let out = sluice()
        .args(["server", "--conf", "/nonexistent/conf"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot read /nonexistent/conf/canal.properties"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("No such file or directory").count(),
        1,
        "the cause is said once: {stderr}"
    );
}

#[test]
fn stock_layout_runs_from_any_folder_and_logs_json_to_a_folder() {
    // The server's own default: no column names in the binlog.
    let db = MariaDb::start(MariaDbConfig::default().binlog_row_metadata(BinlogRowMetadata::NoLog))
        .unwrap();
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY); INSERT INTO shop.t VALUES (1)")
        .unwrap();
    let root = tempfile::tempdir().unwrap();
    let conf = root.path().join("canal/conf");
    std::fs::create_dir_all(&conf).unwrap();
    std::fs::write(
        conf.join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.metrics.pull.port = {}\n\
             canal.destinations = example\ncanal.conf.dir = ../conf\n\
             canal.file.data.dir = ${{canal.conf.dir}}\n",
            find_free_port().unwrap(),
            find_free_port().unwrap()
        ),
    )
    .unwrap();
    common::write_example_instance(&conf, db.port(), "shop\\\\..*");
    // Started from a folder that is neither conf nor its parent.
    let elsewhere = root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let logs = root.path().join("logs");
    let log = run_server_until(&conf, &elsewhere, &logs, |log| {
        log.contains("replication dump started")
    });
    assert!(!log.contains("cannot read"), "{log}");
    let serving = lines_with(&log, "serving Canal clients");
    assert_eq!(serving.len(), 1, "{log}");
    // States are words, not debug output.
    let destinations = serving[0]["destinations"].as_str().unwrap_or("");
    assert!(destinations.starts_with("example ("), "{destinations}");
    assert!(!destinations.contains('"'), "{destinations}");
    assert!(log.contains("replication dump started"), "{log}");
    // Names come from the schema tracker: no advice about the binlog's metadata.
    assert!(!log.contains("binlog_row_metadata is not FULL"), "{log}");
    // The cursors and history live in the conf folder, as in Canal.
    assert!(conf.join("example").is_dir());
}

#[test]
fn a_source_without_binlog_says_log_bin_is_off() {
    let mut config = MariaDbConfig::default();
    config.extra_args.push("--skip-log-bin".into());
    let db = MariaDb::start(config).unwrap();
    let out = sluice()
        .args(["tail", "--source", &db.url(), "--stop-at-end"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("log_bin is OFF, but Sluice needs ON"),
        "{stderr}"
    );
}

#[test]
fn a_user_without_replication_slave_is_told_which_grant_is_missing() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    // Can log in and read the binlog position, cannot replicate.
    db.exec(
        "CREATE USER 'reader'@'%' IDENTIFIED BY 'pw'; \
         GRANT SELECT, BINLOG MONITOR ON *.* TO 'reader'@'%'",
    )
    .unwrap();
    let url = format!("mysql://reader:pw@127.0.0.1:{}", db.port());
    let out = sluice()
        .args(["tail", "--source", &url, "--stop-at-end", "--no-schema"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the login itself succeeded"), "{stderr}");
    assert!(
        stderr.contains("GRANT REPLICATION SLAVE, REPLICATION CLIENT"),
        "{stderr}"
    );
}

#[test]
fn canal_log_layout_writes_a_file_for_the_server_and_one_per_destination() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY)")
        .unwrap();
    let root = tempfile::tempdir().unwrap();
    let conf = root.path().join("conf");
    std::fs::create_dir_all(&conf).unwrap();
    std::fs::write(
        conf.join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.metrics.pull.port = 0\n\
             canal.destinations = example\n",
            find_free_port().unwrap(),
        ),
    )
    .unwrap();
    common::write_example_instance(&conf, db.port(), "shop\\\\..*");
    let logs = root.path().join("logs");
    let mut child = sluice()
        .args(["server", "--conf"])
        .arg(&conf)
        .arg("--log-dir")
        .arg(&logs)
        .args(["--log-layout", "canal"])
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let read = |p: &str| std::fs::read_to_string(logs.join(p)).unwrap_or_default();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !(read("canal/canal.log").contains("serving Canal clients")
        && read("example/example.log").contains("replication dump started"))
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    let server = read("canal/canal.log");
    let example = read("example/example.log");
    assert!(server.contains("serving Canal clients"), "{server}");
    assert!(example.contains("replication dump started"), "{example}");
    assert!(example.contains("instance starting"), "{example}");
    // A destination's lines are in its file only.
    assert!(!server.contains("instance starting"), "{server}");
    // Canal's pattern: `yyyy-MM-dd HH:mm:ss.SSS [thread] LEVEL target - message`.
    let line = example
        .lines()
        .find(|l| l.contains("instance starting"))
        .unwrap();
    assert!(
        line.contains("] INFO  sluice_instance::manager - instance starting"),
        "{line}"
    );
    assert_eq!(line.as_bytes()[10], b' ', "{line}");
    assert_eq!(&line[19..20], ".", "{line}");
    assert!(!logs.join("sluice.log").exists());
}

#[test]
fn canal_log_layout_needs_a_log_folder() {
    let out = sluice()
        .args(["server", "--conf", "nowhere", "--log-layout", "canal"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--log-dir"), "{err}");
}
