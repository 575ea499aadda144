use std::time::Duration;

use super::*;

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn canal_defaults_and_instance_overrides() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "canal.properties",
        "canal.port = 22222\ncanal.destinations = example\ncanal.instance.memory.buffer.size = 1024\ncanal.instance.memory.batch.mode = ITEMSIZE\nkafka.bootstrap.servers = 127.0.0.1:9092\n",
    );
    write(
        dir.path(),
        "example/instance.properties",
        "canal.instance.master.address = 127.0.0.1:3306\ncanal.instance.dbUsername = canal\ncanal.instance.filter.regex = shop\\\\..*\ncanal.instance.memory.buffer.size = 2048\n",
    );
    write(
        dir.path(),
        "other/instance.properties",
        "canal.instance.master.address=db:3306\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    assert_eq!(server.canal_port.port, 22222);
    assert_eq!(server.server_mode, ServerMode::Tcp);
    assert_eq!(server.meta_mode, MetaMode::File);
    assert_eq!(server.destinations.data_dir, dir.path());
    assert!(server.warnings.is_empty(), "{:?}", server.warnings);
    assert_eq!(server.destinations.discover(), vec!["example", "other"]);
    let inst = InstanceConfig::load(&server.destinations, "example").unwrap();
    assert_eq!(inst.memory_buffer_size, 2048, "instance file wins");
    assert_eq!(
        inst.memory_batch_mode,
        BatchMode::ItemSize,
        "server default applies"
    );
    assert_eq!(inst.filter_regex, "shop\\..*");
    assert_eq!(inst.connection_charset, ConnectionCharset::Utf8mb4);
}

#[test]
fn unknown_keys_are_warnings_and_bad_values_errors() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "canal.properties",
        "canal.prot = 1\ncanal.port = 11111\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    assert_eq!(server.warnings.len(), 1);
    assert!(
        server.warnings[0].contains("canal.prot"),
        "{:?}",
        server.warnings
    );

    write(dir.path(), "canal.properties", "canal.port = eleven\n");
    let e = ServerConfig::load(dir.path()).unwrap_err().to_string();
    assert!(
        e.contains("canal.properties:1: canal.port = \"eleven\""),
        "{e}"
    );

    write(
        dir.path(),
        "canal.properties",
        "canal.serverMode = carrier-pigeon\n",
    );
    let e = ServerConfig::load(dir.path()).unwrap_err().to_string();
    assert!(e.contains("expected one of tcp, kafka"), "{e}");

    write(dir.path(), "canal.properties", "canal.user = canal\n");
    let e = ServerConfig::load(dir.path()).unwrap_err().to_string();
    assert!(e.contains("canal.passwd"), "{e}");
}

#[test]
fn instance_needs_a_master_address() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "canal.properties", "");
    write(
        dir.path(),
        "d/instance.properties",
        "canal.instance.gtidon = yes\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    let e = InstanceConfig::load(&server.destinations, "d")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("canal.instance.master.address is required"),
        "{e}"
    );
    write(
        dir.path(),
        "d/instance.properties",
        "canal.instance.master.address = h:1\ncanal.instance.gtidon = yes\n",
    );
    let e = InstanceConfig::load(&server.destinations, "d")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("instance.properties:2: canal.instance.gtidon"),
        "{e}"
    );
}

#[test]
fn zookeeper_keys_have_defaults_and_are_known() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "canal.properties",
        "canal.destinations = example\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    assert_eq!(server.zookeeper.servers, "");
    assert_eq!(server.zookeeper.flush_period, Duration::from_millis(1000));
    assert!(server.zookeeper.flush_on_ack);
    assert_eq!(server.zookeeper.ha_delay, Duration::from_millis(5000));
    assert_eq!(
        server.zookeeper.session_timeout,
        Duration::from_millis(10000)
    );

    write(
        dir.path(),
        "canal.properties",
        "canal.zkServers = 127.0.0.1:2181,127.0.0.1:2182\ncanal.zookeeper.flush.period = 200\ncanal.zookeeper.ha.delay = 2000\ncanal.zookeeper.session.timeout = 4000\nsluice.zookeeper.flush.onAck = false\ncanal.instance.global.spring.xml = classpath:spring/default-instance.xml\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    assert!(server.warnings.is_empty(), "{:?}", server.warnings);
    assert_eq!(server.zookeeper.servers, "127.0.0.1:2181,127.0.0.1:2182");
    assert_eq!(server.meta_mode, MetaMode::ZooKeeper);
    assert_eq!(server.zookeeper.flush_period, Duration::from_millis(200));
    assert!(!server.zookeeper.flush_on_ack);
    assert_eq!(server.zookeeper.ha_delay, Duration::from_millis(2000));
    assert_eq!(
        server.zookeeper.session_timeout,
        Duration::from_millis(4000)
    );

    write(
        dir.path(),
        "canal.properties",
        "canal.zookeeper.ha.delay = soon\n",
    );
    let err = ServerConfig::load(dir.path()).unwrap_err().to_string();
    assert!(err.contains("canal.zookeeper.ha.delay"), "{err}");
}

#[test]
fn zookeeper_auth_comes_from_the_key_or_a_file_and_never_shows() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "canal.properties", "canal.zkServers = z:2181\n");
    let server = ServerConfig::load(dir.path()).unwrap();
    assert_eq!(server.zookeeper.auth, None);
    assert_eq!(server.zookeeper.acl, ZooKeeperAcl::CreatorAllWorldRead);

    write(
        dir.path(),
        "canal.properties",
        "sluice.zookeeper.auth = digest:sluice:s3cret\nsluice.zookeeper.acl = creator-all\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    assert!(server.warnings.is_empty(), "{:?}", server.warnings);
    let auth = server.zookeeper.auth.clone().unwrap();
    assert_eq!(auth.expose(), "digest:sluice:s3cret");
    assert_eq!(server.zookeeper.acl, ZooKeeperAcl::CreatorAll);
    assert!(!format!("{server:?}").contains("s3cret"));

    // A file relative to the conf dir; its trailing newline is dropped.
    write(dir.path(), "zk-auth", "digest:sluice:from-file\n");
    write(
        dir.path(),
        "canal.properties",
        "sluice.zookeeper.auth.file = zk-auth\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    assert_eq!(
        server.zookeeper.auth.unwrap().expose(),
        "digest:sluice:from-file"
    );

    for (text, want) in [
        (
            "sluice.zookeeper.auth = digest:a:b\nsluice.zookeeper.auth.file = zk-auth\n",
            "not both",
        ),
        ("sluice.zookeeper.auth.file = missing\n", "missing"),
        ("sluice.zookeeper.acl = everyone\n", "creator-all"),
    ] {
        write(dir.path(), "canal.properties", text);
        let err = ServerConfig::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains(want), "{text}: {err}");
        assert!(!err.contains("digest:a:b"), "{err}");
    }
}

#[test]
fn tcp_limits_default_and_override() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "canal.properties", "canal.port = 11111\n");
    let server = ServerConfig::load(dir.path()).unwrap();
    assert_eq!(server.canal_port.limits, TcpLimits::default());
    assert_eq!(server.canal_port.limits.max_connections, 1024);
    assert_eq!(server.canal_port.limits.max_connections_per_address, 64);
    assert_eq!(
        server.canal_port.limits.login_timeout,
        Duration::from_secs(10)
    );

    write(
        dir.path(),
        "canal.properties",
        "sluice.tcp.maxConnections = 50\nsluice.tcp.reservedFds = 0\nsluice.tcp.loginTimeout = 2500\nsluice.tcp.maxFailedLogins = 3\nsluice.tcp.loginBackoffMax = 60000\nsluice.tcp.maxConnectionsPerAddress = 5\nsluice.tcp.quickAck = false\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    assert!(server.warnings.is_empty(), "{:?}", server.warnings);
    assert_eq!(
        server.canal_port.limits,
        TcpLimits {
            max_connections: 50,
            reserved_fds: 0,
            login_timeout: Duration::from_millis(2500),
            max_failed_logins: 3,
            login_backoff_max: Duration::from_secs(60),
            max_connections_per_address: 5,
            quick_ack: false,
        }
    );

    for bad in [
        "sluice.tcp.maxConnectionsPerAddress = 0",
        "sluice.tcp.maxConnections = 0",
        "sluice.tcp.loginTimeout = 0",
        "sluice.tcp.maxFailedLogins = many",
    ] {
        write(dir.path(), "canal.properties", &format!("{bad}\n"));
        let err = ServerConfig::load(dir.path()).unwrap_err().to_string();
        let key = bad.split(' ').next().unwrap();
        assert!(err.contains(&format!("canal.properties:1: {key}")), "{err}");
    }
}

#[test]
fn metrics_source_refresh_has_a_default_and_a_floor() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "canal.properties", "canal.port = 11111\n");
    let server = ServerConfig::load(dir.path()).unwrap();
    assert_eq!(server.metrics.source_refresh, Duration::from_secs(30));
    write(
        dir.path(),
        "canal.properties",
        "sluice.metrics.sourceRefresh = 5000\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    assert_eq!(server.metrics.source_refresh, Duration::from_secs(5));
    for bad in [
        "sluice.metrics.sourceRefresh = 10",
        "sluice.metrics.sourceRefresh = soon",
    ] {
        write(dir.path(), "canal.properties", &format!("{bad}\n"));
        let err = ServerConfig::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("canal.properties:1: sluice.metrics.sourceRefresh"),
            "{err}"
        );
    }
}

#[test]
fn binlog_max_event_size_has_a_default_and_a_range() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "canal.properties",
        "canal.destinations = example\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    assert_eq!(server.binlog_max_event_size, 256 << 20);

    write(
        dir.path(),
        "canal.properties",
        "sluice.binlog.maxEventSize = 1048576\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    assert!(server.warnings.is_empty(), "{:?}", server.warnings);
    assert_eq!(server.binlog_max_event_size, 1 << 20);

    for bad in ["0", "1073741825", "lots"] {
        write(
            dir.path(),
            "canal.properties",
            &format!("sluice.binlog.maxEventSize = {bad}\n"),
        );
        let err = ServerConfig::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("canal.properties:1: sluice.binlog.maxEventSize"),
            "{err}"
        );
    }
}

#[test]
fn mq_server_keys_have_canal_defaults_and_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "canal.properties", "canal.serverMode = kafka\n");
    let server = ServerConfig::load(dir.path()).unwrap();
    assert_eq!(server.server_mode, ServerMode::Kafka);
    assert_eq!(server.mq, MqServerConfig::default());
    assert!(server.mq.flat_message);
    assert_eq!(server.mq.canal_batch_size, 50);
    assert_eq!(server.mq.canal_get_timeout, Duration::from_millis(100));
    assert!(server.mq.database_hash);
    assert_eq!(
        (server.mq.send_thread_size, server.mq.build_thread_size),
        (30, 8)
    );
    assert_eq!(server.mq.in_flight_batches, 8);

    write(
        dir.path(),
        "canal.properties",
        "canal.mq.flatMessage = false\ncanal.mq.canalBatchSize = 200\ncanal.mq.canalGetTimeout = -1\ncanal.mq.database.hash = false\ncanal.mq.send.thread.size = 4\ncanal.mq.build.thread.size = 2\nsluice.mq.inFlightBatches = 1\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    // The thread sizes are checked, and said not to be acted on.
    assert_eq!(server.warnings.len(), 1, "{:?}", server.warnings);
    assert!(
        server.warnings[0].contains("accepted, not supported: canal.mq.send.thread.size ("),
        "{:?}",
        server.warnings
    );
    assert_eq!(
        server.mq,
        MqServerConfig {
            flat_message: false,
            canal_batch_size: 200,
            canal_get_timeout: Duration::ZERO,
            database_hash: false,
            send_thread_size: 4,
            build_thread_size: 2,
            in_flight_batches: 1,
        }
    );

    for bad in [
        "canal.mq.flatMessage = json",
        "canal.mq.canalBatchSize = 0",
        "canal.mq.canalGetTimeout = soon",
        "canal.mq.database.hash = 1",
        "canal.mq.send.thread.size = 0",
        "canal.mq.build.thread.size = -2",
        "sluice.mq.inFlightBatches = 0",
    ] {
        write(dir.path(), "canal.properties", &format!("\n{bad}\n"));
        let err = ServerConfig::load(dir.path()).unwrap_err().to_string();
        let key = bad.split(' ').next().unwrap();
        assert!(err.contains(&format!("canal.properties:2: {key}")), "{err}");
    }
}

#[test]
fn mq_instance_keys_are_read_with_server_defaults_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "canal.properties",
        "canal.mq.dynamicTopicPartitionNum = test.*:4\n",
    );
    write(
        dir.path(),
        "d/instance.properties",
        "canal.instance.master.address = h:1\ncanal.mq.topic = example\ncanal.mq.dynamicTopic = shop\\\\..*\ncanal.mq.partition = 1\ncanal.mq.partitionsNum = 3\ncanal.mq.partitionHash = shop\\\\.orders:id\ncanal.mq.enableDynamicQueuePartition = true\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    let inst = InstanceConfig::load(&server.destinations, "d").unwrap();
    // RocketMQ's key: read, and said not to be acted on.
    assert_eq!(inst.warnings.len(), 1, "{:?}", inst.warnings);
    assert!(
        inst.warnings[0]
            .contains("accepted, not supported: canal.mq.enableDynamicQueuePartition ("),
        "{:?}",
        inst.warnings
    );
    assert_eq!(inst.mq_topic, "example");
    assert_eq!(inst.mq_dynamic_topic, "shop\\..*");
    assert_eq!(inst.mq_partition, Some(1));
    assert_eq!(inst.mq_partitions_num, Some(3));
    assert_eq!(inst.mq_partition_hash, "shop\\.orders:id");
    assert_eq!(
        inst.mq_dynamic_topic_partition_num, "test.*:4",
        "from canal.properties"
    );
    assert!(inst.mq_enable_dynamic_queue_partition);

    write(
        dir.path(),
        "d/instance.properties",
        "canal.instance.master.address = h:1\n",
    );
    let inst = InstanceConfig::load(&server.destinations, "d").unwrap();
    assert_eq!((inst.mq_partition, inst.mq_partitions_num), (None, None));
    assert!(!inst.mq_enable_dynamic_queue_partition);

    for (bad, want) in [
        ("canal.mq.partitionsNum = 0", "1 to 2147483647"),
        ("canal.mq.partitionsNum = 2147483648", "1 to 2147483647"),
        ("canal.mq.partition = -1", "0 to 2147483647"),
        (
            "canal.mq.dynamicTopicPartitionNum = a:4,b",
            "rule \"b\": expected topic:count",
        ),
        (
            "canal.mq.dynamicTopicPartitionNum = a:0",
            "rule \"a:0\": expected topic:count",
        ),
        (
            "canal.mq.dynamicTopicPartitionNum = :3",
            "rule \":3\": expected topic:count",
        ),
        (
            "canal.mq.enableDynamicQueuePartition = yes",
            "true or false",
        ),
    ] {
        write(
            dir.path(),
            "d/instance.properties",
            &format!("canal.instance.master.address = h:1\n{bad}\n"),
        );
        let err = InstanceConfig::load(&server.destinations, "d")
            .unwrap_err()
            .to_string();
        let key = bad.split(' ').next().unwrap();
        assert!(
            err.contains(&format!("instance.properties:2: {key}")),
            "{err}"
        );
        assert!(err.contains(want), "{err}");
    }
}

#[test]
fn relative_folders_are_taken_from_the_folder_of_canal_properties() {
    // Canal's stock layout: conf/canal.properties with `canal.conf.dir =
    // ../conf` and `canal.file.data.dir = ${canal.conf.dir}`; the server may
    // be started from any working directory.
    let root = tempfile::tempdir().unwrap();
    let conf = root.path().join("conf");
    write(
        &conf,
        "canal.properties",
        "canal.conf.dir = ../conf\ncanal.file.data.dir = ${canal.conf.dir}\ncanal.destinations = example\n",
    );
    write(
        &conf,
        "example/instance.properties",
        "canal.instance.master.address = 127.0.0.1:3306\n",
    );
    let server = ServerConfig::load(&conf).unwrap();
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap();
    assert_eq!(canonical(&server.destinations.conf_dir), canonical(&conf));
    assert_eq!(canonical(&server.destinations.data_dir), canonical(&conf));
    assert_eq!(server.destinations.discover(), vec!["example"]);
    InstanceConfig::load(&server.destinations, "example").unwrap();

    // A relative data folder is also taken from there.
    write(
        &conf,
        "canal.properties",
        "canal.conf.dir = ../conf\ncanal.file.data.dir = data\n",
    );
    let server = ServerConfig::load(&conf).unwrap();
    assert_eq!(
        server.destinations.data_dir,
        std::path::absolute(conf.join("data")).unwrap()
    );
}

#[test]
fn the_example_conf_folder_loads_with_no_unknown_key() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/conf");
    let server = ServerConfig::load(&dir).unwrap();
    assert!(server.warnings.is_empty(), "{:#?}", server.warnings);
    assert_eq!(server.destinations.discover(), vec!["example"]);
    let inst = InstanceConfig::load(&server.destinations, "example").unwrap();
    assert!(inst.warnings.is_empty(), "{:#?}", inst.warnings);
    assert_eq!(inst.filter_regex, ".*\\..*");
}

#[test]
fn the_admin_port_without_a_password_is_not_served_and_said_so() {
    // Canal's stock file: port and user, empty password.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "canal.properties",
        "canal.port = 11111\ncanal.admin.port = 11110\ncanal.admin.user = admin\ncanal.admin.passwd =\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    assert_eq!(server.admin_tcp, None);
    assert_eq!(server.warnings.len(), 1, "{:#?}", server.warnings);
    assert!(
        server.warnings[0].ends_with(
            "canal.properties:2: canal.admin.port = 11110 but canal.admin.passwd is empty: the admin port (canal-admin) is not served, as anyone could stop destinations through it; set canal.admin.passwd to the hex SHA1(SHA1(password)) to serve it"
        ),
        "{:#?}",
        server.warnings
    );
}

#[test]
fn the_admin_port_with_a_password_is_served() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "canal.properties",
        "canal.admin.port = 11110\ncanal.admin.user = admin\ncanal.admin.passwd = 4ACFE3202A5FF5CF467898FC58AAB1D615029441\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    assert!(server.warnings.is_empty(), "{:#?}", server.warnings);
    assert_eq!(
        server.admin_tcp,
        Some(AdminTcpConfig {
            ip: String::new(),
            port: 11110,
            user: "admin".into(),
            passwd: "4ACFE3202A5FF5CF467898FC58AAB1D615029441".into(),
        })
    );

    // No port: off, whatever else is set.
    write(
        dir.path(),
        "canal.properties",
        "canal.admin.user = admin\ncanal.admin.passwd = 4ACFE3202A5FF5CF467898FC58AAB1D615029441\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    assert_eq!(server.admin_tcp, None);
    assert!(server.warnings.is_empty(), "{:#?}", server.warnings);
}

#[test]
fn an_admin_password_that_is_not_a_sha1_hash_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "canal.properties",
        "canal.admin.port = 11110\ncanal.admin.user = admin\ncanal.admin.passwd = admin\n",
    );
    let err = ServerConfig::load(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("canal.properties:3: canal.admin.passwd = \"admin\": expected 40 hex digits"),
        "{err}"
    );
    write(dir.path(), "canal.properties", "canal.admin.port = admin\n");
    let err = ServerConfig::load(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("canal.properties:1: canal.admin.port"),
        "{err}"
    );
}

#[test]
fn admin_http_is_off_by_default_loopback_by_default_and_needs_a_token_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "canal.properties", "canal.port = 11111\n");
    let server = ServerConfig::load(dir.path()).unwrap();
    assert_eq!(server.admin_http, None);

    write(
        dir.path(),
        "canal.properties",
        "sluice.admin.http.port = 8089\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    assert!(server.warnings.is_empty(), "{:?}", server.warnings);
    let admin = server.admin_http.unwrap();
    assert_eq!((admin.host.as_str(), admin.port), ("127.0.0.1", 8089));
    assert_eq!(admin.token, None);
    assert!(admin.allow_origins.is_empty() && admin.allow_hosts.is_empty());

    write(
        dir.path(),
        "canal.properties",
        "sluice.admin.http.port = 8089\nsluice.admin.http.allowOrigins = https://Console.example.com/, http://127.0.0.1:3000\nsluice.admin.http.allowHosts = Admin.example.com, admin:8089\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    assert!(server.warnings.is_empty(), "{:?}", server.warnings);
    let admin = server.admin_http.unwrap();
    assert_eq!(
        admin.allow_origins,
        ["https://console.example.com", "http://127.0.0.1:3000"]
    );
    assert_eq!(admin.allow_hosts, ["admin.example.com", "admin:8089"]);
    for (bad, key) in [
        (
            "sluice.admin.http.allowOrigins = console.example.com",
            "allowOrigins",
        ),
        (
            "sluice.admin.http.allowOrigins = https://a.example/console",
            "allowOrigins",
        ),
        (
            "sluice.admin.http.allowHosts = http://admin.example.com",
            "allowHosts",
        ),
    ] {
        write(
            dir.path(),
            "canal.properties",
            &format!("sluice.admin.http.port = 8089\n{bad}\n"),
        );
        let err = ServerConfig::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains(&format!("canal.properties:2: sluice.admin.http.{key}")),
            "{err}"
        );
    }

    write(
        dir.path(),
        "canal.properties",
        "sluice.admin.http.port = 8089\nsluice.admin.http.host = 0.0.0.0\nsluice.admin.http.token = t0ps3cret\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    let admin = server.admin_http.clone().unwrap();
    assert_eq!(admin.host, "0.0.0.0");
    assert_eq!(admin.token.unwrap().expose(), "t0ps3cret");
    assert!(!format!("{server:?}").contains("t0ps3cret"));

    write(
        dir.path(),
        "canal.properties",
        "# admin\nsluice.admin.http.port = 8089\nsluice.admin.http.host = 0.0.0.0\n",
    );
    let err = ServerConfig::load(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("canal.properties:3: sluice.admin.http.host")
            && err.contains("sluice.admin.http.token"),
        "{err}"
    );
    write(
        dir.path(),
        "canal.properties",
        "sluice.admin.http.port = http\n",
    );
    let err = ServerConfig::load(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("canal.properties:1: sluice.admin.http.port"),
        "{err}"
    );

    assert!(is_loopback_host("127.0.0.2"));
    assert!(is_loopback_host("::1"));
    assert!(is_loopback_host("localhost"));
    assert!(!is_loopback_host("10.1.2.3"));
    assert!(!is_loopback_host(""));
}

#[test]
fn snapshot_settings_default_to_four_parts_read_at_once_and_are_read() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "canal.properties", "");
    write(
        dir.path(),
        "d/instance.properties",
        "canal.instance.master.address = h:1\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    let inst = InstanceConfig::load(&server.destinations, "d").unwrap();
    assert_eq!(inst.snapshot, SnapshotSettings::default());
    assert_eq!(inst.snapshot.parallelism, 4);
    assert_eq!(inst.snapshot.reads, SnapshotReads::Scan);
    write(
        dir.path(),
        "d/instance.properties",
        "canal.instance.master.address = h:1\nsluice.instance.snapshot.parallelism = 2\n\
         sluice.instance.snapshot.reads = ranges\nsluice.instance.snapshot.chunkSize = 100\n",
    );
    let inst = InstanceConfig::load(&server.destinations, "d").unwrap();
    assert_eq!(
        (
            inst.snapshot.parallelism,
            inst.snapshot.reads,
            inst.snapshot.chunk_size
        ),
        (2, SnapshotReads::Ranges, 100)
    );
}

#[test]
fn column_filters_are_read_in_canal_syntax_and_a_wrong_one_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "canal.properties",
        "canal.destinations = example\n",
    );
    write(
        dir.path(),
        "example/instance.properties",
        "canal.instance.master.address = 127.0.0.1:3306\ncanal.instance.filter.field = shop.users:id/name , shop.orders: id / total\ncanal.instance.filter.black.field = shop.Users:email,,\n",
    );
    let server = ServerConfig::load(dir.path()).unwrap();
    let inst = InstanceConfig::load(&server.destinations, "example").unwrap();
    assert_eq!(
        inst.filter_field,
        vec![
            FieldRule {
                table: "shop.users".into(),
                columns: vec!["id".into(), "name".into()]
            },
            FieldRule {
                table: "shop.orders".into(),
                columns: vec!["id".into(), "total".into()]
            },
        ]
    );
    assert_eq!(
        inst.filter_black_field,
        vec![FieldRule {
            table: "shop.Users".into(),
            columns: vec!["email".into()]
        }]
    );
    assert!(inst.warnings.is_empty(), "{:?}", inst.warnings);

    for (value, why) in [
        ("shop.users", "no ':'"),
        ("shop.users:a:b", "more than one ':'"),
        ("users:email", "not db.table"),
        ("shop.:email", "not db.table"),
        ("shop.users:", "an empty column name"),
        ("shop.users:a//b", "an empty column name"),
        ("shop.users:a,SHOP.USERS:b", "named twice"),
    ] {
        write(
            dir.path(),
            "example/instance.properties",
            &format!("canal.instance.master.address = 127.0.0.1:3306\n\ncanal.instance.filter.black.field = {value}\n"),
        );
        let e = InstanceConfig::load(&server.destinations, "example")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("instance.properties:3: canal.instance.filter.black.field")
                && e.contains(why),
            "{value}: {e}"
        );
    }
    assert_eq!(parse_field_rules(" , ").unwrap(), vec![]);
}
