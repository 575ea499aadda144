//! What an unauthenticated or hostile peer can make the server do, over
//! real TCP on 127.0.0.1 with servers built from `canal.properties`: the
//! connection cap and the cap per address, the frame bound before login,
//! the login timeout and the per-address backoff after failed logins.

mod common;

use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use sluice_client::{Connector, SimpleConnector, TimeUnit};
use sluice_config::{Properties, ServerConfig};
use sluice_serve_tcp::auth::passwd_hash_hex;
use sluice_serve_tcp::TcpServer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const DEST: &str = "example";
const SECOND: Duration = Duration::from_secs(1);

/// A server on 127.0.0.1 from `canal.properties` text (plus ip and port).
async fn server_from(properties: &str) -> (Arc<MemDestination>, Running) {
    let text = format!("canal.ip = 127.0.0.1\ncanal.port = 0\n{properties}");
    let dir = Path::new("/nonexistent");
    let cfg =
        ServerConfig::from_properties(&dir.join("canal.properties"), dir, Properties::parse(&text))
            .unwrap();
    let d = MemDestination::new(DEST, item_store(10_000));
    let server = TcpServer::bind_config(&cfg.canal_port, MemDestinations::one(&d))
        .await
        .unwrap();
    (d, start_server(server))
}

/// Connects and waits for the handshake: the stream if it came, `None` if
/// the server closed the connection first.
async fn handshake_or_closed(addr: &str) -> Option<TcpStream> {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let mut header = [0u8; 4];
    match tokio::time::timeout(3 * SECOND, s.read_exact(&mut header)).await {
        Ok(Ok(_)) => {
            let mut body = vec![0u8; u32::from_be_bytes(header) as usize];
            s.read_exact(&mut body).await.unwrap();
            Some(s)
        }
        Ok(Err(_)) => None,
        Err(_) => panic!("neither a handshake nor a close within 3 s"),
    }
}

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

#[tokio::test]
async fn connections_over_the_cap_are_closed_and_clients_keep_working() {
    let (d, srv) = server_from("sluice.tcp.maxConnections = 8\n").await;
    let mut good = SimpleConnector::connect(&srv.addr(), DEST, "", "")
        .await
        .unwrap();
    good.subscribe("").await.unwrap();

    let mut held = Vec::new();
    let mut refused = 0;
    for _ in 0..20 {
        match handshake_or_closed(&srv.addr()).await {
            Some(s) => held.push(s),
            None => refused += 1,
        }
    }
    // The logged-in client holds one of the 8 places.
    assert_eq!((held.len(), refused), (7, 13));

    // The client that was in keeps getting and acking.
    d.feed(&insert_txn("test", "t1", 1, 2, 4)).await;
    let m = good.get_without_ack(10, None, TimeUnit::Milliseconds).await;
    let m = m.unwrap();
    assert_eq!((m.id, m.entries.len()), (1, 3));
    good.ack(m.id).await.unwrap();
    assert_eq!(good.get(10, None).await.unwrap().id, -1);

    // Places free up when connections close.
    held.truncate(4);
    let t = Instant::now();
    loop {
        if let Some(s) = handshake_or_closed(&srv.addr()).await {
            held.push(s);
            break;
        }
        assert!(t.elapsed() < 5 * SECOND, "no place freed up");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Connects from `local` and waits for the handshake: the stream if it
/// came, `None` if the server closed the connection first.
async fn handshake_or_closed_from(local: IpAddr, addr: &str) -> Option<TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(std::net::SocketAddr::new(local, 0)).unwrap();
    let mut s = socket.connect(addr.parse().unwrap()).await.unwrap();
    let mut header = [0u8; 4];
    match tokio::time::timeout(3 * SECOND, s.read_exact(&mut header)).await {
        Ok(Ok(_)) => {
            let mut body = vec![0u8; u32::from_be_bytes(header) as usize];
            s.read_exact(&mut body).await.unwrap();
            Some(s)
        }
        Ok(Err(_)) => None,
        Err(_) => panic!("neither a handshake nor a close within 3 s"),
    }
}

/// The log lines written while it is alive (on this thread: the tests run
/// the server on a current-thread runtime).
struct CapturedLogs {
    lines: Arc<std::sync::Mutex<Vec<u8>>>,
    _guard: tracing::subscriber::DefaultGuard,
}

impl CapturedLogs {
    fn start() -> CapturedLogs {
        let lines = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = lines.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_max_level(tracing::Level::INFO)
            .with_writer(move || CaptureWriter(sink.clone()))
            .finish();
        CapturedLogs {
            lines,
            _guard: tracing::subscriber::set_default(subscriber),
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.lines.lock().unwrap()).into_owned()
    }
}

struct CaptureWriter(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for CaptureWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn connections_over_the_cap_of_one_address_are_closed_and_logged_with_it() {
    let logs = CapturedLogs::start();
    let (_d, srv) =
        server_from("sluice.tcp.maxConnections = 100\nsluice.tcp.maxConnectionsPerAddress = 3\n")
            .await;
    let one = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));
    let other = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
    let mut held = Vec::new();
    let mut refused = 0;
    for _ in 0..6 {
        match handshake_or_closed_from(one, &srv.addr()).await {
            Some(s) => held.push(s),
            None => refused += 1,
        }
    }
    assert_eq!((held.len(), refused), (3, 3));
    let text = logs.text();
    assert!(
        text.contains("too many connections from this address")
            && text.contains("address=127.0.0.1")
            && text.contains("sluice.tcp.maxConnectionsPerAddress"),
        "{text}"
    );
    // Another address is not held back by this one.
    let from_other = handshake_or_closed_from(other, &srv.addr()).await;
    assert!(from_other.is_some(), "127.0.0.2 refused");
    // A closed connection gives its address's place back.
    drop(held.pop());
    let t = Instant::now();
    loop {
        if let Some(s) = handshake_or_closed_from(one, &srv.addr()).await {
            held.push(s);
            break;
        }
        assert!(t.elapsed() < 5 * SECOND, "no place freed up for 127.0.0.1");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(handshake_or_closed_from(one, &srv.addr()).await.is_none());
}

#[tokio::test]
async fn a_large_frame_before_login_closes_the_connection_from_its_header() {
    // All from 127.0.0.1: the cap per address is lifted for them.
    let (_d, srv) = server_from("sluice.tcp.maxConnectionsPerAddress = 1000\n").await;
    // Each peer declares a 1 MiB frame (the bound for requests after login)
    // and sends most of it.
    const PEERS: usize = 96;
    let body = vec![0x5au8; 768 * 1024];
    let mut peers = Vec::new();
    for _ in 0..PEERS {
        peers.push(Raw::connect(&srv.addr()).await);
    }
    let before = rss_bytes();
    for p in &mut peers {
        let _ = p.stream.write_all(&[0x00, 0x10, 0x00, 0x00]).await;
    }
    for p in &mut peers {
        // The server may already have closed: errors are expected.
        let _ = tokio::time::timeout(SECOND, p.stream.write_all(&body)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let grown = rss_bytes().saturating_sub(before);
    for (i, p) in peers.iter_mut().enumerate() {
        assert!(p.closed_within(2 * SECOND).await, "peer {i} still open");
    }
    assert!(
        grown < 24 * 1024 * 1024,
        "{PEERS} partial frames before login grew the server by {grown} bytes"
    );
    // Logging in with a normal ClientAuth still works.
    Raw::login(&srv.addr()).await;
}

#[tokio::test]
async fn login_timeout_comes_from_the_configuration() {
    let (_d, srv) = server_from("sluice.tcp.loginTimeout = 300\n").await;
    let t = Instant::now();
    let mut raw = Raw::connect(&srv.addr()).await;
    assert!(raw.closed_within(3 * SECOND).await);
    assert!(
        t.elapsed() >= Duration::from_millis(250),
        "{:?}",
        t.elapsed()
    );
}

#[tokio::test]
async fn login_timeout_defaults_to_ten_seconds() {
    let (_d, srv) = server_from("").await;
    let t = Instant::now();
    let mut raw = Raw::connect(&srv.addr()).await;
    assert!(
        raw.closed_within(13 * SECOND).await,
        "still open after 13 s"
    );
    assert!(t.elapsed() >= 9 * SECOND, "{:?}", t.elapsed());
}

#[tokio::test]
async fn failed_logins_from_one_address_back_off() {
    let props = format!(
        "canal.user = canal\ncanal.passwd = {}\nsluice.tcp.maxFailedLogins = 3\nsluice.tcp.loginBackoffMax = 1500\n",
        passwd_hash_hex(b"s3cret")
    );
    let (_d, srv) = server_from(&props).await;
    let addr = srv.addr();
    let rejected = (400, "auth failed for user:canal".to_string());

    // 50 guesses, each on a new connection: after the third, the address
    // is refused without its password being looked at.
    let t = Instant::now();
    let mut checked = 0;
    let mut refused = 0;
    for _ in 0..50 {
        let mut raw = Raw::connect(&addr).await;
        match raw.try_login("canal", b"guess").await {
            Some(r) if r == rejected => checked += 1,
            Some((400, message)) => {
                assert!(message.contains("too many failed logins"), "{message}");
                refused += 1;
            }
            other => panic!("unexpected reply to a wrong password: {other:?}"),
        }
    }
    let elapsed = t.elapsed();
    assert!(
        checked <= 3 + elapsed.as_secs() as usize,
        "{checked} passwords checked in {elapsed:?}"
    );
    assert_eq!(checked + refused, 50);

    // While the address is refused, so is the right password from it...
    let mut raw = Raw::connect(&addr).await;
    let (code, message) = raw.try_login("canal", b"s3cret").await.unwrap();
    assert_eq!(code, 400);
    assert!(message.contains("too many failed logins"), "{message}");
    // ...but another address logs in.
    let other = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
    let mut raw = Raw::connect_from(other, &addr).await;
    assert_eq!(
        raw.try_login("canal", b"s3cret").await,
        Some((0, String::new()))
    );

    // After the backoff (at most sluice.tcp.loginBackoffMax) the right
    // password logs in, and that clears the address's failures.
    tokio::time::sleep(Duration::from_millis(1600)).await;
    SimpleConnector::connect(&addr, DEST, "canal", "s3cret")
        .await
        .unwrap();
    for _ in 0..2 {
        let mut raw = Raw::connect(&addr).await;
        assert_eq!(
            raw.try_login("canal", b"guess").await,
            Some(rejected.clone())
        );
    }
    SimpleConnector::connect(&addr, DEST, "canal", "s3cret")
        .await
        .unwrap();
}

#[tokio::test]
async fn a_peer_that_does_not_read_its_replies_is_still_bound_by_the_login_timeout() {
    let (_d, srv) = server_from("sluice.tcp.loginTimeout = 500\n").await;
    let raw = Raw::connect(&srv.addr()).await;
    let (mut rd, mut wr) = raw.stream.into_split();
    // Frames that are no ClientAuth each get an error reply and leave the
    // connection waiting for a login; their replies (far more than the
    // socket buffers hold) are not read.
    const FRAMES: usize = 100_000;
    let garbage: Vec<u8> = [0u8, 0, 0, 1, 0xff].repeat(FRAMES);
    let writer = tokio::spawn(async move {
        let _ = wr.write_all(&garbage).await;
        wr
    });
    tokio::time::sleep(Duration::from_millis(1500)).await;
    // Whatever was answered before the server gave up, then the close.
    let mut replies = 0;
    let mut header = [0u8; 4];
    while let Ok(Ok(_)) = tokio::time::timeout(5 * SECOND, rd.read_exact(&mut header)).await {
        let mut body = vec![0u8; u32::from_be_bytes(header) as usize];
        if rd.read_exact(&mut body).await.is_err() {
            break;
        }
        replies += 1;
    }
    assert!(
        replies < FRAMES,
        "all {FRAMES} frames were answered after the login timeout"
    );
    writer.abort();
}
