//! A server that cannot start says why, with a typed error, before it runs
//! any destination.

use std::path::Path;

use sluice_config::{MetaMode, ServerMode};
use sluice_server::{Server, ServerError};
use sluice_testkit::find_free_port;

fn write_properties(dir: &Path, properties: &str) {
    std::fs::write(dir.join("canal.properties"), properties).unwrap();
}

#[test]
fn a_missing_configuration_names_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere");
    let err = sluice_server::load_config(&missing).unwrap_err();
    assert!(matches!(err, ServerError::Config { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&missing.display().to_string()),
        "{err}"
    );
}

#[tokio::test]
async fn rocketmq_and_pulsar_modes_are_refused_pointing_to_kafka() {
    for (name, mode) in [
        ("rocketMQ", ServerMode::RocketMq),
        ("pulsarMQ", ServerMode::PulsarMq),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write_properties(
            dir.path(),
            &format!(
                "canal.port = {}\ncanal.serverMode = {name}\ncanal.file.data.dir = {}\n",
                find_free_port().unwrap(),
                dir.path().display()
            ),
        );
        let config = sluice_server::load_config(dir.path()).unwrap();
        let err = Server::start(config).await.expect_err("must not start");
        assert!(
            matches!(err, ServerError::UnsupportedServerMode { mode: m, .. } if m == mode),
            "{err:?}"
        );
        let text = err.to_string();
        assert!(
            text.contains(&format!("no {name} client"))
                && text.contains("canal.serverMode = kafka"),
            "{text}"
        );
        // Where the key is: the file and its line (the second).
        let at = format!(
            "{}:2: canal.serverMode = {name}",
            dir.path().join("canal.properties").display()
        );
        assert!(text.starts_with(&at), "{text}");
    }
}

#[tokio::test]
async fn kafka_mode_without_brokers_is_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    write_properties(
        dir.path(),
        &format!(
            "canal.serverMode = kafka\ncanal.file.data.dir = {}\n",
            dir.path().display()
        ),
    );
    let config = sluice_server::load_config(dir.path()).unwrap();
    let err = Server::start(config).await.expect_err("must not start");
    assert!(matches!(err, ServerError::Kafka(_)), "{err:?}");
    assert!(err.to_string().contains("kafka.bootstrap.servers"), "{err}");
}

#[tokio::test]
async fn kafka_mode_binds_no_canal_port() {
    let dir = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    write_properties(
        dir.path(),
        &format!(
            "canal.port = {port}\ncanal.serverMode = kafka\nkafka.bootstrap.servers = 127.0.0.1:{}\ncanal.file.data.dir = {}\n",
            find_free_port().unwrap(),
            dir.path().display()
        ),
    );
    let config = sluice_server::load_config(dir.path()).unwrap();
    let server = Server::start(config).await.unwrap();
    assert_eq!(server.local_addr(), None);
    // The port Canal clients would use stays free.
    std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn zookeeper_meta_without_zookeeper_servers_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_properties(
        dir.path(),
        &format!(
            "canal.port = {}\ncanal.instance.global.spring.xml = classpath:spring/default-instance.xml\ncanal.file.data.dir = {}\n",
            find_free_port().unwrap(),
            dir.path().display()
        ),
    );
    let config = sluice_server::load_config(dir.path()).unwrap();
    assert_eq!(config.meta_mode, MetaMode::ZooKeeper);
    let err = Server::start(config).await.expect_err("must not start");
    assert!(
        matches!(err, ServerError::ZooKeeperMetaWithoutServers),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_taken_port_is_refused_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    write_properties(
        dir.path(),
        &format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.file.data.dir = {}\n",
            taken.local_addr().unwrap().port(),
            dir.path().display()
        ),
    );
    let config = sluice_server::load_config(dir.path()).unwrap();
    let err = Server::start(config).await.expect_err("must not start");
    assert!(matches!(err, ServerError::Tcp(_)), "{err:?}");
    let source = std::error::Error::source(&err).map(|s| s.to_string());
    assert!(
        source
            .as_deref()
            .is_some_and(|s| s.contains("cannot listen")),
        "{source:?}"
    );
}

#[tokio::test]
async fn a_taken_admin_port_is_refused_naming_the_keys() {
    let dir = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    write_properties(
        dir.path(),
        &format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.file.data.dir = {}\n\
             canal.admin.port = {}\ncanal.admin.passwd = 4ACFE3202A5FF5CF467898FC58AAB1D615029441\n",
            find_free_port().unwrap(),
            dir.path().display(),
            taken.local_addr().unwrap().port(),
        ),
    );
    let config = sluice_server::load_config(dir.path()).unwrap();
    let err = Server::start(config).await.expect_err("must not start");
    assert!(matches!(err, ServerError::AdminTcpBind { .. }), "{err:?}");
    assert!(err.to_string().contains("canal.admin.port"), "{err}");
}
