//! Canal's admin port (`canal.admin.port`, the protocol canal-admin
//! speaks) on a running server: the login, server and instance requests
//! seen to act on the destination, the log requests reading Canal's log
//! layout, and Canal's error codes.

use std::path::Path;
use std::time::{Duration, Instant};

use prost::Message;
use sluice_canal::admin::{
    Ack, ClientAuth, Handshake, InstanceAdmin, LogAdmin, Packet, PacketType, ServerAdmin,
};
use sluice_server::{InstanceState, LogFiles, LogLayout, Server};
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// SHA1(SHA1("admin")), Canal's example.
const ADMIN_PASSWD: &str = "4ACFE3202A5FF5CF467898FC58AAB1D615029441";

/// A configuration with the admin port on any free port (user `admin`,
/// password `admin`) and one destination `example` reading `db_port`.
fn write_conf(dir: &Path, db_port: u16) {
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.metrics.pull.port = 0\n\
             canal.destinations = example\ncanal.auto.scan = false\n\
             canal.file.data.dir = {}\n\
             canal.admin.port = 0\ncanal.admin.user = admin\ncanal.admin.passwd = {ADMIN_PASSWD}\n",
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
             canal.instance.master.journal.name = binlog.000001\n\
             canal.instance.master.position = 4\n\
             canal.instance.filter.regex = w\\\\..*\n"
        ),
    )
    .unwrap();
}

/// canal-admin's side of a connection.
struct AdminClient(TcpStream);

impl AdminClient {
    /// Connects, reads the handshake and logs in; the login's ACK.
    async fn login(addr: &str, user: &str, password: &str) -> (AdminClient, Ack) {
        let mut c = AdminClient(TcpStream::connect(addr).await.unwrap());
        let hs = c.read().await.expect("a handshake");
        assert_eq!(hs.version, Some(1));
        assert_eq!(hs.r#type, PacketType::Handshake as i32);
        let seed = Handshake::decode(hs.body.as_slice()).unwrap().seeds;
        assert_eq!(seed.len(), 8);
        let token: String = sluice_canal::auth::scramble411(password.as_bytes(), &seed)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let auth = ClientAuth {
            username: user.into(),
            password: token.into_bytes(),
            net_read_timeout: Some(3_600_000),
            net_write_timeout: Some(3_600_000),
        };
        c.send(PacketType::ClientAuthentication, auth.encode_to_vec())
            .await;
        let ack = c.read_ack().await;
        (c, ack)
    }

    async fn send(&mut self, t: PacketType, body: Vec<u8>) {
        let p = Packet {
            r#type: t as i32,
            body,
            ..Default::default()
        }
        .encode_to_vec();
        let mut frame = (p.len() as i32).to_be_bytes().to_vec();
        frame.extend_from_slice(&p);
        self.0.write_all(&frame).await.unwrap();
    }

    /// The next packet; `None` once the server closed the connection.
    async fn read(&mut self) -> Option<Packet> {
        let mut header = [0u8; 4];
        tokio::time::timeout(Duration::from_secs(30), self.0.read_exact(&mut header))
            .await
            .expect("a reply within 30 s")
            .ok()?;
        let mut body = vec![0u8; i32::from_be_bytes(header) as usize];
        self.0.read_exact(&mut body).await.ok()?;
        Some(Packet::decode(body.as_slice()).unwrap())
    }

    async fn read_ack(&mut self) -> Ack {
        let p = self.read().await.expect("a reply");
        assert_eq!(p.r#type, PacketType::Ack as i32);
        assert_eq!(p.version, Some(1));
        Ack::decode(p.body.as_slice()).unwrap()
    }

    async fn server(&mut self, action: &str) -> Ack {
        let body = ServerAdmin {
            action: action.into(),
        };
        self.send(PacketType::Server, body.encode_to_vec()).await;
        self.read_ack().await
    }

    async fn instance(&mut self, destination: &str, action: &str) -> Ack {
        let body = InstanceAdmin {
            destination: destination.into(),
            action: action.into(),
        };
        self.send(PacketType::Instance, body.encode_to_vec()).await;
        self.read_ack().await
    }

    async fn log(&mut self, request: LogAdmin) -> Ack {
        self.send(PacketType::Log, request.encode_to_vec()).await;
        self.read_ack().await
    }
}

/// `(code, message)` of a successful ACK: code 0 set explicitly, as Canal.
fn ok(message: &str) -> (Option<i32>, String) {
    (Some(0), message.to_string())
}

fn pair(a: Ack) -> (Option<i32>, String) {
    (a.code, a.message)
}

/// The state of `example` as the server's manager sees it.
fn state(server: &Server) -> Option<InstanceState> {
    server
        .destinations()
        .into_iter()
        .find(|(d, _)| d == "example")
        .map(|(_, s)| s)
}

async fn wait_running(server: &Server) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while state(server) != Some(InstanceState::Running) {
        assert!(
            Instant::now() < deadline,
            "example never ran: {:?}",
            state(server)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_then_server_and_instance_requests_act_on_the_destination() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY)")
        .unwrap();
    let conf = tempfile::tempdir().unwrap();
    write_conf(conf.path(), db.port());
    let server = Server::start(sluice_server::load_config(conf.path()).unwrap())
        .await
        .unwrap();
    let addr = server.admin_tcp_addr().expect("admin port served");
    assert_eq!(addr.ip().to_string(), "127.0.0.1", "bound on canal.ip");
    let addr = addr.to_string();
    wait_running(&server).await;

    // A wrong password, or another user, is refused with 300 and the
    // connection closed.
    for (user, password) in [("admin", "guess"), ("root", "admin")] {
        let (mut c, ack) = AdminClient::login(&addr, user, password).await;
        assert_eq!(
            pair(ack),
            (Some(300), format!("auth failed for user:{user}"))
        );
        assert!(c.read().await.is_none(), "closed after a failed login");
    }

    let (mut c, ack) = AdminClient::login(&addr, "admin", "admin").await;
    assert_eq!(pair(ack), ok(""));
    assert_eq!(pair(c.server("check").await), ok("1"));
    assert_eq!(pair(c.server("list").await), ok("example"));
    assert_eq!(pair(c.instance("example", "check").await), ok("1"));

    // Instance stop: the manager has stopped it, and check says so.
    assert_eq!(pair(c.instance("example", "stop").await), ok("1"));
    assert_eq!(state(&server), None, "stopped");
    assert_eq!(pair(c.instance("example", "check").await), ok("0"));
    assert_eq!(pair(c.server("list").await), ok(""));
    assert_eq!(pair(c.instance("example", "start").await), ok("1"));
    wait_running(&server).await;
    assert_eq!(pair(c.instance("example", "check").await), ok("1"));
    assert_eq!(pair(c.instance("example", "restart").await), ok("1"));
    wait_running(&server).await;

    // Unknown destination: "0", as Canal.
    assert_eq!(pair(c.instance("nowhere", "start").await), ok("0"));
    assert_eq!(pair(c.instance("nowhere", "check").await), ok("0"));

    // Server stop: every destination stops and stays stopped; a second
    // stop does nothing ("0"); start brings them back.
    assert_eq!(pair(c.server("stop").await), ok("1"));
    assert_eq!(state(&server), None);
    assert_eq!(pair(c.server("check").await), ok("0"));
    assert_eq!(pair(c.server("stop").await), ok("0"));
    assert_eq!(pair(c.server("list").await), ok(""));
    assert_eq!(pair(c.server("start").await), ok("1"));
    wait_running(&server).await;
    assert_eq!(pair(c.server("check").await), ok("1"));
    assert_eq!(pair(c.server("list").await), ok("example"));
    assert_eq!(pair(c.server("start").await), ok("0"));

    // Canal's codes: 301 unknown action or log type, 300 unknown packet.
    assert_eq!(
        pair(c.server("reboot").await),
        (Some(301), "ServerAdmin action: reboot  is unknown".into())
    );
    assert_eq!(
        pair(c.instance("example", "reload").await),
        (Some(301), "InstanceAdmin action: reload is unknown".into())
    );
    let bad_type = c
        .log(LogAdmin {
            r#type: "everything".into(),
            action: "list".into(),
            ..Default::default()
        })
        .await;
    assert_eq!(
        pair(bad_type),
        (Some(301), "LogAdmin type: everything is unknown".into())
    );
    c.send(PacketType::Handshake, Vec::new()).await;
    assert_eq!(
        pair(c.read_ack().await),
        (Some(300), "packet type: HANDSHAKE is NOT supported!".into())
    );

    // Without ZooKeeper there is no standby to release to.
    let release = c.instance("example", "release").await;
    assert_eq!(release.code, Some(400));
    assert!(release.message.contains("stop it instead"), "{release:?}");
    // Logs to stderr (no --log-dir): the log requests say how to get files.
    let logs = c
        .log(LogAdmin {
            r#type: "server".into(),
            action: "list".into(),
            ..Default::default()
        })
        .await;
    assert_eq!(logs.code, Some(400));
    assert!(logs.message.contains("--log-layout canal"), "{logs:?}");
    // The connection still serves after errors.
    assert_eq!(pair(c.instance("example", "check").await), ok("1"));
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_requests_read_canal_s_log_layout() {
    use tracing_subscriber::layer::SubscriberExt;
    let logs = tempfile::tempdir().unwrap();
    let (layer, guard) =
        sluice_server::logs::canal_layer(logs.path(), sluice_server::logs::LineFormat::Text)
            .unwrap();
    tracing::subscriber::set_global_default(
        tracing_subscriber::registry()
            .with(tracing_subscriber::EnvFilter::new("info"))
            .with(layer),
    )
    .expect("the only subscriber of this test process");

    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY)")
        .unwrap();
    let conf = tempfile::tempdir().unwrap();
    write_conf(conf.path(), db.port());
    let mut config = sluice_server::load_config(conf.path()).unwrap();
    config.log_files = Some(LogFiles {
        dir: logs.path().to_path_buf(),
        layout: LogLayout::Canal,
    });
    let server = Server::start(config).await.unwrap();
    let addr = server.admin_tcp_addr().unwrap().to_string();
    wait_running(&server).await;
    let (mut c, ack) = AdminClient::login(&addr, "admin", "admin").await;
    assert_eq!(pair(ack), ok(""));

    let server_log = |action: &str, count: Option<i32>| LogAdmin {
        r#type: "server".into(),
        action: action.into(),
        count,
        ..Default::default()
    };
    let instance_log = |destination: &str, action: &str, file: Option<&str>| LogAdmin {
        r#type: "instance".into(),
        action: action.into(),
        destination: Some(destination.into()),
        file: file.map(str::to_string),
        count: Some(1000),
    };
    // The lines reach the files through the writer thread: wait for them.
    let deadline = Instant::now() + Duration::from_secs(30);
    let (server_text, instance_text) = loop {
        let s = c.log(server_log("file", Some(1000))).await;
        let i = c.log(instance_log("example", "file", None)).await;
        assert_eq!((s.code, i.code), (Some(0), Some(0)), "{s:?} {i:?}");
        if s.message.contains("serving canal-admin")
            && i.message.contains("instance reading the source")
        {
            break (s.message, i.message);
        }
        assert!(
            Instant::now() < deadline,
            "server log:\n{}\ninstance log:\n{}",
            s.message,
            i.message
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // Each line in its own file.
    assert!(
        !server_text.contains("instance reading the source"),
        "{server_text}"
    );
    assert!(
        !instance_text.contains("serving canal-admin"),
        "{instance_text}"
    );
    assert_eq!(
        std::fs::read_to_string(logs.path().join("example/example.log"))
            .unwrap()
            .trim_end(),
        instance_text
    );
    // count = 1: the last line only.
    let one = c.log(server_log("file", Some(1))).await;
    assert_eq!(one.code, Some(0));
    assert_eq!(one.message.lines().count(), 1, "{one:?}");
    assert!(one.message.contains(" - "), "a whole line: {one:?}");

    assert_eq!(pair(c.log(server_log("list", None)).await), ok("canal.log"));
    assert_eq!(
        pair(c.log(instance_log("example", "list", None)).await),
        ok("example.log")
    );
    // A named file of the destination's folder.
    let named = c
        .log(instance_log("example", "file", Some("example.log")))
        .await;
    assert!(named.message.contains("instance reading the source"));
    // Names that lead out of the log folder are refused.
    let escape = c.log(instance_log("..", "list", None)).await;
    assert_eq!(escape.code, Some(400), "{escape:?}");
    let escape = c
        .log(instance_log("example", "file", Some("../canal/canal.log")))
        .await;
    assert_eq!(escape.code, Some(400), "{escape:?}");
    server.shutdown().await.unwrap();
    drop(guard);
}
