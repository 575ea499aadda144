//! These start real RabbitMQ nodes (needs Debian's `rabbitmq-server`).

use std::time::Instant;

use sluice_testkit::rabbitmq::amqp_answers;
use sluice_testkit::{RabbitMq, RabbitMqConfig};

#[test]
fn rabbitmq_private_broker_stops_restarts_on_its_port_and_cleans_up() {
    let t0 = Instant::now();
    let broker = RabbitMq::start_with(RabbitMqConfig::default().vhost("/canal")).unwrap();
    eprintln!("RabbitMQ ready in {:?}", t0.elapsed());
    let port = broker.port();
    assert_ne!(port, 5672, "the system broker's port");
    assert!(amqp_answers(port));
    assert_eq!(broker.address(), format!("127.0.0.1:{port}"));
    assert_eq!(
        broker.amqp_uri(),
        format!("amqp://sluice:sluice-test-secret@127.0.0.1:{port}/%2fcanal")
    );
    let node_log = broker
        .dir()
        .join("log")
        .join(format!("{}.log", broker.node_name()));
    assert!(node_log.is_file(), "{} is missing", node_log.display());
    assert!(
        broker.dir().join(".erlang.cookie").is_file(),
        "the node did not make its own cookie"
    );

    broker.stop().unwrap();
    assert!(!broker.is_running());
    assert!(!amqp_answers(port), "a stopped broker still answers");

    broker.restart().unwrap();
    assert!(broker.is_running());
    assert!(amqp_answers(port));

    broker.kill().unwrap();
    assert!(!amqp_answers(port), "a killed broker still answers");
    broker.restart().unwrap();
    assert!(amqp_answers(port));

    let dir = broker.dir().to_path_buf();
    drop(broker);
    assert!(!amqp_answers(port), "a dropped broker still answers");
    if !sluice_testkit::keep_test_dirs() {
        assert!(!dir.exists());
    }
}
