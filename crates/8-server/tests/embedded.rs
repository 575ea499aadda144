//! A whole server embedded in a test program: it serves Canal clients on
//! its address, keeps one data folder to itself, writes the acknowledged
//! cursors when it stops, and in a ZooKeeper cluster hands a released
//! destination to the other server.

use std::path::Path;
use std::time::{Duration, Instant};

use sluice_canal::proto::{EntryType, EventType};
use sluice_client::{Connector, SimpleConnector, TimeUnit};
use sluice_instance::manager::InstanceState;
use sluice_server::{Server, ServerError};
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig, ZooKeeperEnsemble};

/// `dir/example/instance.properties`: destination `example` reads the
/// MariaDB at `db_port` from its first binlog, tables `w.*`.
fn write_example_instance(dir: &Path, db_port: u16) {
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

/// Connects to destination `example` at `addr` and subscribes.
async fn connect_example(addr: &str) -> SimpleConnector {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match SimpleConnector::connect(addr, "example", "", "").await {
            Ok(mut c) => {
                if c.subscribe("").await.is_ok() {
                    return c;
                }
            }
            Err(e) if Instant::now() >= deadline => panic!("cannot reach {addr}: {e}"),
            Err(_) => {}
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Reads batches, acknowledging each, until `n` inserted ids arrived;
/// returns once the server has processed the acks.
async fn receive_inserts(client: &mut SimpleConnector, n: usize) -> Vec<i64> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut ids = Vec::new();
    while ids.len() < n {
        assert!(Instant::now() < deadline, "only {ids:?} arrived");
        let msg = client
            .get_without_ack(100, Some(200), TimeUnit::Milliseconds)
            .await
            .unwrap();
        for e in &msg.entries {
            if e.entry_type != Some(EntryType::RowData as i32) {
                continue;
            }
            let rc = sluice_client::row_change(e).unwrap();
            if rc.event_type != Some(EventType::Insert as i32) {
                continue;
            }
            for rd in &rc.row_datas {
                let id = rd.after_columns[0].value.as_deref().unwrap();
                ids.push(id.parse().unwrap());
            }
        }
        if msg.id > 0 {
            client.ack(msg.id).await.unwrap();
        }
    }
    // An ack has no reply: the reply to one more request proves the server
    // processed the last one.
    client
        .get_without_ack(1, Some(100), TimeUnit::Milliseconds)
        .await
        .unwrap();
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_embedded_server_serves_clients_and_keeps_acknowledged_cursors() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec(
        "CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY); \
         INSERT INTO w.t VALUES (1), (2), (3)",
    )
    .unwrap();
    let conf = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    std::fs::write(
        conf.path().join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {port}\ncanal.destinations = example\n\
             canal.auto.scan = false\ncanal.file.data.dir = {}\n",
            conf.path().display()
        ),
    )
    .unwrap();
    write_example_instance(conf.path(), db.port());
    let config = || sluice_server::load_config(conf.path()).unwrap();

    let server = Server::start(config()).await.unwrap();
    assert_eq!(
        server.local_addr().expect("TCP mode binds a port").port(),
        port
    );
    assert_eq!(server.registered_address(), None);
    assert!(
        server
            .destinations()
            .iter()
            .any(|(d, s)| d == "example" && *s != InstanceState::Stopped),
        "{:?}",
        server.destinations()
    );

    // One server per data folder, even in one process.
    let err = Server::start(config()).await.expect_err("a second server");
    assert!(matches!(err, ServerError::DataFolderLocked(_)), "{err:?}");
    assert!(err.to_string().contains("sluice.lock"), "{err}");

    let addr = server
        .local_addr()
        .expect("TCP mode binds a port")
        .to_string();
    let mut client = connect_example(&addr).await;
    assert_eq!(receive_inserts(&mut client, 3).await, vec![1, 2, 3]);
    drop(client);
    server.shutdown().await.unwrap();
    assert!(conf.path().join("example/meta.dat").is_file());

    // Started again on the same folder and port: it goes on after the
    // acknowledged rows.
    let server = Server::start(config()).await.unwrap();
    db.exec("INSERT INTO w.t VALUES (4)").unwrap();
    let mut client = connect_example(&addr).await;
    assert_eq!(receive_inserts(&mut client, 1).await, vec![4]);
    drop(client);

    // Dropped without shutdown: it still stops and lets the folder go.
    drop(server);
    let deadline = Instant::now() + Duration::from_secs(20);
    let server = loop {
        match Server::start(config()).await {
            Ok(server) => break server,
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("the dropped server still holds the folder or port: {e}"),
        }
    };
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn release_hands_a_destination_to_the_other_embedded_server() {
    let zk = ZooKeeperEnsemble::start_standalone().unwrap();
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY)")
        .unwrap();
    let mut servers = Vec::new();
    let mut confs = Vec::new();
    for _ in 0..2 {
        let conf = tempfile::tempdir().unwrap();
        std::fs::write(
            conf.path().join("canal.properties"),
            format!(
                "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.register.ip = 127.0.0.1\n\
                 canal.destinations = example\ncanal.auto.scan = false\n\
                 canal.file.data.dir = {}\ncanal.zkServers = {}\n\
                 canal.zookeeper.ha.delay = 3000\n",
                find_free_port().unwrap(),
                conf.path().display(),
                zk.connect_string()
            ),
        )
        .unwrap();
        write_example_instance(conf.path(), db.port());
        let config = sluice_server::load_config(conf.path()).unwrap();
        let server = Server::start(config).await.unwrap();
        assert_eq!(
            server.registered_address(),
            Some(
                format!(
                    "127.0.0.1:{}",
                    server.local_addr().expect("TCP mode binds a port").port()
                )
                .as_str()
            )
        );
        servers.push(server);
        confs.push(conf);
    }
    let addresses: Vec<String> = servers
        .iter()
        .map(|s| s.registered_address().unwrap().to_string())
        .collect();

    // Wait until one of them runs the destination.
    let deadline = Instant::now() + Duration::from_secs(30);
    let release = loop {
        match sluice_server::release(&zk.connect_string(), None, "example", false).await {
            Ok(release) => break release,
            // Not yet running, or the other server not yet registered for it.
            Err(ServerError::NotRunning { .. } | ServerError::NoStandby { .. })
                if Instant::now() < deadline =>
            {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("release: {e}"),
        }
    };
    let owner = release.owner().to_string();
    assert!(
        addresses.contains(&owner),
        "{owner} is not one of {addresses:?}"
    );
    let taken = release.taken_over(Duration::from_secs(20)).await.unwrap();
    assert!(
        addresses.contains(&taken.address) && taken.address != owner,
        "{} took it, the owner was {owner}",
        taken.address
    );

    // With the first owner gone, the new one has no standby: a release is
    // refused unless forced, and a forced one comes back to the same server.
    let gone = servers
        .iter()
        .position(|s| s.registered_address() == Some(owner.as_str()))
        .unwrap();
    servers.remove(gone).shutdown().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let err = loop {
        match sluice_server::release(&zk.connect_string(), None, "example", false).await {
            Err(e @ ServerError::NoStandby { .. }) => break e,
            // The gone server's registration may take a moment to vanish.
            Ok(_) | Err(_) if Instant::now() >= deadline => panic!("no NoStandby refusal"),
            Ok(r) => panic!("released to nobody: {r:?}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    };
    assert!(
        err.to_string().contains(&taken.address) && err.to_string().contains("Start a standby"),
        "{err}"
    );
    let forced = sluice_server::release(&zk.connect_string(), None, "example", true)
        .await
        .unwrap();
    let back = forced.taken_over(Duration::from_secs(15)).await;
    assert!(back.is_err(), "nobody else could take it: {back:?}");

    let err = sluice_server::release(&zk.connect_string(), None, "nowhere", false)
        .await
        .expect_err("nobody runs nowhere");
    assert!(matches!(err, ServerError::NotRunning { .. }), "{err:?}");
    assert!(err.to_string().contains("no server runs nowhere"), "{err}");

    for server in servers {
        server.shutdown().await.unwrap();
    }
}
