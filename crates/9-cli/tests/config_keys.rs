//! What `sluice server` says about the keys of its files: a misspelled
//! security key stops it with the file, line and the key meant; keys it
//! accepts and does not act on are one warning line, and an unknown key a
//! warning with the closest known key, in its log.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::spawn_server;
use sluice_testkit::find_free_port;

fn write_conf(dir: &Path, extra: &str) {
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.port = {}\n{extra}canal.destinations =\ncanal.auto.scan = false\ncanal.file.data.dir = {}\n",
            find_free_port().unwrap(),
            dir.display()
        ),
    )
    .unwrap();
}

#[test]
fn a_misspelled_token_stops_the_server_naming_the_key_meant() {
    let dir = tempfile::tempdir().unwrap();
    write_conf(
        dir.path(),
        "sluice.admin.http.port = 0\nsluice.admin.http.tokn = secret\n",
    );
    let log = dir.path().join("server.log");
    let mut child = spawn_server(dir.path(), &log);
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!(
                "the server still runs: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!status.success(), "{text}");
    let at = format!(
        "{}:3: unknown key sluice.admin.http.tokn: did you mean sluice.admin.http.token?",
        dir.path().join("canal.properties").display()
    );
    assert!(text.contains(&at), "{text}");
    assert!(!text.contains("secret"), "the value is not shown: {text}");
}

#[test]
fn keys_not_acted_on_and_unknown_keys_are_logged_at_start() {
    let dir = tempfile::tempdir().unwrap();
    write_conf(
        dir.path(),
        "canal.instance.tsdb.enable = true\ncanal.instance.parser.parallel = true\ncanal.prot = 1\n",
    );
    let log = dir.path().join("server.log");
    let mut child = spawn_server(dir.path(), &log);
    let path = dir.path().join("canal.properties").display().to_string();
    let want = [
        format!(
            "{path}: accepted, not supported: canal.instance.tsdb.enable (table definitions are tracked by Sluice's own schema history, kept with the cursors)"
        ),
        format!("{path}:4: unknown key canal.prot (ignored): did you mean canal.port?"),
    ];
    let deadline = Instant::now() + Duration::from_secs(30);
    let text = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if want.iter().all(|w| text.contains(w.as_str())) {
            break text;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the server ended ({status}): {text}");
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("not logged: {want:#?}\n{text}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let still_running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert!(still_running, "a warning does not stop the server: {text}");
    assert_eq!(
        text.matches("accepted, not supported").count(),
        1,
        "one line: {text}"
    );
}
