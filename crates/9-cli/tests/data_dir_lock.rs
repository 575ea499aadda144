//! Two `sluice server` processes never run one data folder at once, and a
//! server that cannot take its port starts nothing: the second process
//! fails before it reads the source or opens a cursor or history file, and
//! says which process holds what.

mod common;

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use common::{binlog_dumps, connect_example, spawn_server, wait_dumps, write_example_instance};
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};

fn write_conf(dir: &Path, db_port: u16, canal_port: u16, data_dir: &Path) {
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.port = {canal_port}\ncanal.destinations = example\ncanal.auto.scan = false\ncanal.file.data.dir = {}\n",
            data_dir.display()
        ),
    )
    .unwrap();
    write_example_instance(dir, db_port, r"w\\..*");
}

/// Waits for a process that must end by itself; its exit must be a failure.
fn must_fail(child: &mut Child, log: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            assert!(!status.success(), "the second server must fail: {text}");
            return text;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!(
                "the second server still runs: {}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_server_on_a_data_folder_or_a_port_starts_nothing() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY)")
        .unwrap();
    let first = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    write_conf(first.path(), db.port(), port, first.path());
    let mut a = spawn_server(first.path(), &first.path().join("server.log"));
    let _client = connect_example(&format!("127.0.0.1:{port}"), Duration::from_secs(30)).await;
    wait_dumps(&db, 1, Duration::from_secs(20));

    // Same data folder, another port: refused before anything starts, with
    // the holder's pid.
    let second = tempfile::tempdir().unwrap();
    write_conf(
        second.path(),
        db.port(),
        find_free_port().unwrap(),
        first.path(),
    );
    let log = second.path().join("server.log");
    let mut b = spawn_server(second.path(), &log);
    let text = must_fail(&mut b, &log);
    assert!(text.contains("sluice.lock"), "names the lock file: {text}");
    assert!(
        text.contains(&format!("pid {}", a.id())),
        "names the holder's pid {}: {text}",
        a.id()
    );
    assert!(
        !text.contains("instance started"),
        "started a destination: {text}"
    );
    assert_eq!(
        binlog_dumps(&db),
        1,
        "only the first server reads the source"
    );

    // Another data folder, the first server's port: nothing starts either.
    let third = tempfile::tempdir().unwrap();
    write_conf(third.path(), db.port(), port, third.path());
    let log = third.path().join("server.log");
    let mut c = spawn_server(third.path(), &log);
    let text = must_fail(&mut c, &log);
    assert!(text.contains("cannot listen"), "says why: {text}");
    assert!(
        !text.contains("instance started"),
        "started a destination before failing to bind: {text}"
    );
    assert!(
        !third.path().join("example/meta.dat").exists()
            && !third.path().join("example/meta.log").exists()
            && !third.path().join("example/schema.history").exists(),
        "opened the destination's files"
    );
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        binlog_dumps(&db),
        1,
        "only the first server reads the source"
    );

    a.kill().unwrap();
    a.wait().unwrap();
}
