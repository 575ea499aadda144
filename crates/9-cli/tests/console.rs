//! The web console of the admin API in a real browser: a `sluice server`
//! process with a token reads a private MariaDB while rows are written and
//! a Canal client reads them, and `python/console_check.py` drives headless
//! Chromium (Debian's `chromium` and `chromium-driver`, through Selenium
//! from PyPI in `target/tmp/selenium-venv`) over the page: sign in, the
//! destination and its moving read position and lag sparkline, the
//! client's cursor, stop, a cursor reset (refused without the confirmation,
//! then done) and start by the buttons, a snapshot of a named table with
//! its progress, a refused release and a wrong token. Its screenshots go to
//! `target/tmp/console-screenshots` (the path is printed).

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use sluice_client::{Connector, SimpleConnector, TimeUnit};
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};

const TOKEN: &str = "console-test-token";

/// The Selenium release the check runs with.
const SELENIUM: &str = "selenium==4.27.1";

#[test]
fn the_console_shows_a_destination_and_drives_it_in_a_browser() {
    for program in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
        assert!(
            Path::new(program).exists(),
            "{program} is missing: apt-get install chromium chromium-driver (scripts/test installs them)"
        );
    }
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("selenium-venv");
    let python =
        sluice_testkit::python::python_venv(&venv, &[SELENIUM], "import selenium.webdriver")
            .unwrap_or_else(|e| panic!("{e:#}"));

    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, note TEXT)")
        .unwrap();
    let conf = tempfile::tempdir().unwrap();
    let admin_port = find_free_port().unwrap();
    let canal_port = find_free_port().unwrap();
    std::fs::write(
        conf.path().join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.metrics.pull.port = 0\n\
             canal.destinations = example\ncanal.auto.scan = false\n\
             canal.file.data.dir = {}\n\
             sluice.admin.http.host = 127.0.0.1\n\
             sluice.admin.http.port = {admin_port}\nsluice.admin.http.token = {TOKEN}\n",
            canal_port,
            conf.path().display()
        ),
    )
    .unwrap();
    common::write_example_instance(conf.path(), db.port(), "shop\\\\..*");
    let log = conf.path().join("server.log");
    let mut server = common::spawn_server(conf.path(), &log);
    let base = format!("http://127.0.0.1:{admin_port}");

    // The page answers without a token once the server listens.
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", admin_port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "the admin API did not listen: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // Replaced at each run, kept after it for a look.
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("console-screenshots");
    let _ = std::fs::remove_dir_all(&shots);
    std::fs::create_dir_all(&shots).unwrap();
    println!("screenshots in {}", shots.display());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/console_check.py");
    // Rows written all along the check, so that the read position moves,
    // and a Canal client (clientId 1001) that reads and acks them.
    let writing = AtomicBool::new(true);
    let out = std::thread::scope(|s| {
        s.spawn(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(read_and_ack(&format!("127.0.0.1:{canal_port}"), &writing))
        });
        s.spawn(|| {
            let mut id = 0;
            while writing.load(Ordering::Relaxed) {
                id += 1;
                let sql = format!("INSERT INTO shop.orders VALUES ({id}, 'order {id}')");
                if let Err(e) = db.exec(&sql) {
                    eprintln!("insert {id}: {e:#}");
                }
                std::thread::sleep(Duration::from_millis(500));
            }
        });
        let out = Command::new(&python)
            .arg(&script)
            .args([&base, TOKEN, "example"])
            .arg(&shots)
            .output()
            .expect("run console_check.py");
        writing.store(false, Ordering::Relaxed);
        out
    });
    let _ = server.kill();
    let _ = server.wait();

    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    if !out.status.success() {
        panic!(
            "the console check failed ({}); screenshots in {}\n{}\nserver log:\n{}",
            out.status,
            shots.display(),
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }
    assert!(stdout.contains("console check passed"), "{stdout}");
}

/// Reads destination `example` at `addr` and acks every batch while
/// `going`, connecting again after the destination stops and starts.
async fn read_and_ack(addr: &str, going: &AtomicBool) {
    let mut client: Option<SimpleConnector> = None;
    while going.load(Ordering::Relaxed) {
        let Some(c) = client.as_mut() else {
            if let Ok(mut c) = SimpleConnector::connect(addr, "example", "", "").await {
                if c.subscribe("").await.is_ok() {
                    client = Some(c);
                    continue;
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        match c
            .get_without_ack(100, Some(200), TimeUnit::Milliseconds)
            .await
        {
            Ok(msg) if msg.id > 0 => {
                if c.ack(msg.id).await.is_err() {
                    client = None;
                }
            }
            Ok(_) => {}
            Err(_) => client = None,
        }
    }
}
