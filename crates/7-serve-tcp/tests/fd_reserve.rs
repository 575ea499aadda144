//! A flood of connections must leave the process file descriptors for its
//! cursors and store. Alone in its test binary because it lowers this
//! process's RLIMIT_NOFILE; the flood comes from a second process (this
//! binary again, running `flood_helper`) so the clients' descriptors are
//! not counted against the server's.

mod common;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use common::*;
use sluice_client::{Connector, SimpleConnector, TimeUnit};
use sluice_config::{Properties, ServerConfig};
use sluice_serve_tcp::TcpServer;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::task::JoinSet;

const DEST: &str = "example";
/// Set in the flood process's environment.
const FLOOD_ENV: &str = "SLUICE_TEST_FLOOD";
/// Connections the flood opens: more than the descriptors the server has.
const FLOOD: usize = 600;
/// The server's RLIMIT_NOFILE in the test.
const NOFILE: u64 = 512;

fn set_nofile(limit: u64) {
    let rl = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit,
    };
    // SAFETY: setrlimit reads the struct it is given and nothing else.
    let rc = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &rl) };
    assert_eq!(rc, 0, "setrlimit: {}", std::io::Error::last_os_error());
}

/// Writes a file the way cursors are persisted (write, fsync, rename),
/// keeping `hold` of them open at once.
fn persist_files(dir: &Path, hold: usize) -> std::io::Result<()> {
    use std::io::Write;
    let mut open = Vec::new();
    for i in 0..hold {
        let tmp = dir.join(format!("meta-{i}.tmp"));
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(b"{\"journalName\":\"mysql-bin.000001\",\"position\":4}")?;
        f.sync_all()?;
        std::fs::rename(&tmp, dir.join(format!("meta-{i}.dat")))?;
        open.push(f);
    }
    Ok(())
}

#[tokio::test]
async fn a_connection_flood_leaves_descriptors_for_cursors() {
    // The flood process starts first, with this process's own limit.
    let mut flood = tokio::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "flood_helper",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(FLOOD_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    set_nofile(NOFILE);
    let dir = tempfile::tempdir().unwrap();

    // The flood comes from one address: its own cap is lifted, so that the
    // descriptor limit is what stops it.
    let text =
        "canal.ip = 127.0.0.1\ncanal.port = 0\nsluice.tcp.maxConnectionsPerAddress = 100000\n";
    let conf = Path::new("/nonexistent");
    let cfg = ServerConfig::from_properties(
        &conf.join("canal.properties"),
        conf,
        Properties::parse(text),
    )
    .unwrap();
    let d = MemDestination::new(DEST, item_store(10_000));
    let server = TcpServer::bind_config(&cfg.canal_port, MemDestinations::one(&d))
        .await
        .unwrap();
    let srv = start_server(server);
    let mut good = SimpleConnector::connect(&srv.addr(), DEST, "", "")
        .await
        .unwrap();
    good.subscribe("").await.unwrap();

    let mut stdin = flood.stdin.take().unwrap();
    stdin
        .write_all(format!("{}\n", srv.addr()).as_bytes())
        .await
        .unwrap();
    let mut lines = BufReader::new(flood.stdout.take().unwrap()).lines();
    let report = loop {
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("the flood reports within 60 s")
            .unwrap()
            .expect("the flood process ended without a report");
        // libtest prints the test's name on the same line.
        if let Some((_, r)) = line.split_once("FLOOD ") {
            break r.to_string();
        }
    };
    let counts: Vec<usize> = report
        .split_whitespace()
        .map(|kv| kv.split_once('=').unwrap().1.parse().unwrap())
        .collect();
    let (accepted, closed) = (counts[0], counts[1]);

    // Descriptors are left for cursors and the store...
    persist_files(dir.path(), 64).expect("persisting with the flood connected");
    // ...the server took no more clients than the limit minus its reserve...
    assert!(
        accepted < (NOFILE - 256) as usize,
        "{accepted} flood connections accepted with RLIMIT_NOFILE {NOFILE}: {report}"
    );
    assert_eq!(accepted + closed, FLOOD, "{report}");
    // ...and the client that was in keeps working.
    d.feed(&insert_txn("test", "t1", 1, 1, 4)).await;
    let m = good
        .get_without_ack(10, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!(m.entries.len(), 3);
    good.ack(m.id).await.unwrap();

    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(30), flood.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success());
}

/// The flood process (does nothing unless started by the test above):
/// opens [`FLOOD`] connections to the address read from stdin, reports
/// how many got a handshake and how many were closed, and holds them until
/// stdin closes.
#[tokio::test]
async fn flood_helper() {
    if std::env::var_os(FLOOD_ENV).is_none() {
        return;
    }
    let addr = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    })
    .await
    .unwrap()
    .unwrap();
    let addr = addr.trim().to_string();
    // Connects one after the other (so the server sees them in order),
    // then waits for every handshake at once.
    let mut reads = JoinSet::new();
    for _ in 0..FLOOD {
        let Ok(Ok(mut s)) =
            tokio::time::timeout(Duration::from_millis(200), TcpStream::connect(&addr)).await
        else {
            // Not even queued: the server stopped accepting.
            reads.spawn(async { (false, None) });
            continue;
        };
        reads.spawn(async move {
            let mut b = [0u8; 4];
            let got = tokio::time::timeout(Duration::from_secs(5), s.read_exact(&mut b)).await;
            (matches!(got, Ok(Ok(_))), Some(s))
        });
    }
    let mut held = Vec::new();
    let (mut accepted, mut closed) = (0, 0);
    while let Some(r) = reads.join_next().await {
        let (handshake, s) = r.unwrap();
        if handshake {
            accepted += 1;
        } else {
            closed += 1;
        }
        held.extend(s);
    }
    println!("FLOOD accepted={accepted} closed={closed}");
    let _ = tokio::task::spawn_blocking(|| {
        let mut rest = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut rest)
    })
    .await;
    drop(held);
}
