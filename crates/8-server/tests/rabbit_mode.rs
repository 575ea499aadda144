//! A server in RabbitMQ mode (`canal.serverMode = rabbitMQ`) whose broker
//! settings cannot be used does not start, and says which key of which file;
//! one that starts serves no Canal TCP port.

use std::path::Path;

use sluice_server::{Server, ServerError};
use sluice_testkit::find_free_port;

fn write_properties(dir: &Path, properties: &str) {
    std::fs::write(dir.join("canal.properties"), properties).unwrap();
}

#[tokio::test]
async fn rabbitmq_mode_without_a_host_is_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    write_properties(
        dir.path(),
        &format!(
            "canal.serverMode = rabbitMQ\nrabbitmq.queue = example\ncanal.file.data.dir = {}\n",
            dir.path().display()
        ),
    );
    let config = sluice_server::load_config(dir.path()).unwrap();
    let err = Server::start(config).await.expect_err("must not start");
    assert!(matches!(err, ServerError::Config { .. }), "{err:?}");
    let cause = std::error::Error::source(&err)
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(
        cause.contains("canal.properties") && cause.contains("rabbitmq.host is required"),
        "{err}: {cause}"
    );
}

#[tokio::test]
async fn rabbitmq_mode_with_a_bad_port_is_refused_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    write_properties(
        dir.path(),
        &format!(
            "canal.serverMode = rabbitMQ\ncanal.file.data.dir = {}\nrabbitmq.host = 127.0.0.1:99999\n",
            dir.path().display()
        ),
    );
    let config = sluice_server::load_config(dir.path()).unwrap();
    let err = Server::start(config).await.expect_err("must not start");
    let cause = std::error::Error::source(&err)
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(
        cause.contains("canal.properties:3: rabbitmq.host = \"127.0.0.1:99999\""),
        "{err}: {cause}"
    );
}

#[tokio::test]
async fn rabbitmq_mode_binds_no_canal_port() {
    let dir = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    write_properties(
        dir.path(),
        &format!(
            "canal.port = {port}\ncanal.serverMode = rabbitMQ\nrabbitmq.host = 127.0.0.1:{}\ncanal.file.data.dir = {}\n",
            find_free_port().unwrap(),
            dir.path().display()
        ),
    );
    let config = sluice_server::load_config(dir.path()).unwrap();
    let server = Server::start(config).await.unwrap();
    assert_eq!(server.local_addr(), None);
    std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
}
