//! The key registry: unknown keys, misspelled security keys, keys accepted
//! and not supported, Canal 1.1.4's RabbitMQ keys.

use super::*;

fn server(text: &str) -> Result<ServerConfig, ConfigError> {
    ServerConfig::from_properties(
        Path::new("/conf/canal.properties"),
        Path::new("/conf"),
        Properties::parse(text),
    )
}

fn instance(text: &str) -> Result<InstanceConfig, ConfigError> {
    InstanceConfig::from_properties(
        Path::new("/conf/example/instance.properties"),
        "example",
        Properties::parse(&format!(
            "canal.instance.master.address = 127.0.0.1:3306\n{text}"
        )),
        None,
    )
}

#[test]
fn an_unknown_key_names_its_line_and_the_closest_known_key() {
    let cfg = server(
        "canal.port = 11111\ncanal.prot = 1\nsluice.tcp.maxConection = 5\nsluice.metric.sourceRefresh = 1\nwhatever.else = 1\n",
    )
    .unwrap();
    assert_eq!(
        cfg.warnings,
        vec![
            "/conf/canal.properties:2: unknown key canal.prot (ignored): did you mean canal.port?",
            "/conf/canal.properties:3: unknown key sluice.tcp.maxConection (ignored): did you mean sluice.tcp.maxConnections?",
            "/conf/canal.properties:4: unknown key sluice.metric.sourceRefresh (ignored): did you mean sluice.metrics.sourceRefresh?",
            "/conf/canal.properties:5: unknown key whatever.else (ignored; check the spelling)",
        ]
    );
    let inst = instance(
        "canal.instance.filter.regx = a\\\\..*\nCANAL.INSTANCE.GTIDON = true\nrabbitmq.host = x\n",
    )
    .unwrap();
    assert_eq!(
        inst.warnings,
        vec![
            "/conf/example/instance.properties:2: unknown key canal.instance.filter.regx (ignored): did you mean canal.instance.filter.regex?",
            "/conf/example/instance.properties:3: unknown key CANAL.INSTANCE.GTIDON (ignored): did you mean canal.instance.gtidon?",
            "/conf/example/instance.properties:4: rabbitmq.host is read from canal.properties only: ignored here; move it there",
        ]
    );
}

#[test]
fn a_misspelled_security_key_stops_the_start() {
    for (text, line, key, suggestion) in [
        (
            "canal.port = 1\nsluice.zookeeper.auht = digest:a:b\n",
            2,
            "sluice.zookeeper.auht",
            Some("sluice.zookeeper.auth"),
        ),
        (
            "sluice.admin.http.port = 0\nsluice.admin.http.tokn = t\n",
            2,
            "sluice.admin.http.tokn",
            Some("sluice.admin.http.token"),
        ),
        (
            "canal.pasword = x\n",
            1,
            "canal.pasword",
            Some("canal.passwd"),
        ),
        (
            "rabbitmq.pasword = x\n",
            1,
            "rabbitmq.pasword",
            Some("rabbitmq.password"),
        ),
        ("my.Token.file = /x\n", 1, "my.Token.file", None),
        (
            "sluice.zookeeper.authFile = /x\n",
            1,
            "sluice.zookeeper.authFile",
            Some("sluice.zookeeper.auth.file"),
        ),
    ] {
        let err = server(text).expect_err(text);
        assert!(
            matches!(&err, ConfigError::UnknownSecurityKey { line: l, key: k, .. } if *l == line && k == key),
            "{err:?}"
        );
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!(
                "/conf/canal.properties:{line}: unknown key {key}: "
            )),
            "{msg}"
        );
        match suggestion {
            Some(s) => assert!(msg.contains(&format!("did you mean {s}?")), "{msg}"),
            None => assert!(msg.contains("no known key is close"), "{msg}"),
        }
        assert!(msg.contains("stops the start"), "{msg}");
    }
    let err = instance("canal.instance.dbPasword = x\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("/conf/example/instance.properties:2: unknown key canal.instance.dbPasword: did you mean canal.instance.dbPassword?"),
        "{err}"
    );
    // Known keys with such names are fine, and kafka.* is librdkafka's to check.
    let cfg =
        server("pulsarmq.roleToken =\nsluice.zookeeper.auth.file =\nkafka.sasl.password = x\n")
            .unwrap();
    assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
}

#[test]
fn keys_accepted_and_not_supported_are_one_line_per_file() {
    let cfg = server(
        "canal.port = 11111\n\
         canal.instance.tsdb.enable = true\n\
         canal.instance.parser.parallel = true\n\
         canal.instance.filter.rows = false\n\
         canal.instance.detecting.enable = false\n\
         canal.mq.send.thread.size = 30\n\
         canal.aliyun.accessKey =\n\
         canal.instance.example.spring.xml = classpath:spring/memory-instance.xml\n\
         canal.instance.global.mode = spring\n",
    )
    .unwrap();
    assert_eq!(
        cfg.warnings,
        vec![
            "/conf/canal.properties: accepted, not supported: \
             canal.instance.tsdb.enable (table definitions are tracked by Sluice's own schema history, kept with the cursors), \
             canal.mq.send.thread.size (one worker per destination sends its records in binlog order), \
             canal.instance.example.spring.xml (per-destination override: canal.instance.global.* applies to every destination)"
        ]
    );
    let inst = instance(
        "canal.instance.rds.accesskey = k\ncanal.instance.transaction.size = 1024\ncanal.instance.enableDruid = false\ncanal.prot = 1\n",
    )
    .unwrap();
    assert_eq!(inst.warnings.len(), 2, "{:#?}", inst.warnings);
    assert_eq!(
        inst.warnings[0],
        "/conf/example/instance.properties: accepted, not supported: \
         canal.instance.rds.accesskey (binlogs purged from an RDS instance are not fetched from its backups), \
         canal.instance.transaction.size (a transaction streams through the store whole, however large)"
    );
    assert!(
        inst.warnings[1].contains("unknown key canal.prot"),
        "{:#?}",
        inst.warnings
    );
}

#[test]
fn keys_other_parts_of_sluice_read_are_known() {
    let cfg = server(
        "sluice.metrics.sourceRefresh = 5000\n\
         sluice.admin.http.allowOrigins = http://a\n\
         sluice.admin.http.allowHosts = a\n\
         sluice.tcp.maxConnectionsPerAddress = 8\n\
         canal.auto.reset.latest.pos.mode = false\n\
         sluice.mq.kafka.createTopics = true\n\
         sluice.rabbitmq.mandatory = true\n",
    )
    .unwrap();
    assert!(cfg.warnings.is_empty(), "{:#?}", cfg.warnings);
    let inst = instance(
        "sluice.instance.onPurged = fail\n\
         canal.instance.filter.table.error = true\n\
         canal.instance.filter.field = a.b:c\n\
         canal.instance.filter.black.field = a.b:d\n\
         canal.instance.binlog.image = FULL\n",
    )
    .unwrap();
    assert!(inst.warnings.is_empty(), "{:#?}", inst.warnings);
}

/// Every `"sluice.…"` key read anywhere in the workspace (but the
/// engine's Debezium-style properties) is in the registry.
#[test]
fn every_sluice_key_the_workspace_reads_is_registered() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&crates)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| !p.ends_with("7-engine"))
        .map(|p| p.join("src"))
        .collect();
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs")
                // This crate's tests misspell keys on purpose.
                && !path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("tests"))
            {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 50, "found {} source files", files.len());
    // File names, not keys.
    let not_keys = ["sluice.lock", "sluice.log"];
    let mut missing = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (i, _) in text.match_indices("\"sluice.") {
            let rest = &text[i + 1..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
                .unwrap_or(rest.len());
            let key = rest[..end].trim_end_matches('.');
            if rest[end..].starts_with('"')
                && key.matches('.').count() >= 2
                && !not_keys.contains(&key)
                && !keys::KEYS.iter().any(|k| k.name == key)
            {
                missing.push(format!("{}: {key}", file.display()));
            }
        }
    }
    assert!(missing.is_empty(), "not in keys::KEYS: {missing:#?}");
}

#[test]
fn canal_1_1_4_rabbitmq_keys_stand_for_the_new_ones() {
    let props = Properties::parse(
        "canal.mq.servers = old-host:5673\n\
         canal.mq.vhost = /old\n\
         canal.mq.exchange = old.exchange\n\
         canal.mq.username = old-user\n\
         canal.mq.password = old-secret\n\
         rabbitmq.exchange = new.exchange\n\
         rabbitmq.username =\n",
    );
    let read = |key| rabbitmq_property(&props, key).map(|(k, p)| (k, p.value.as_str(), p.line));
    assert_eq!(
        read("rabbitmq.host"),
        Some(("canal.mq.servers", "old-host:5673", 1))
    );
    assert_eq!(
        read("rabbitmq.virtual.host"),
        Some(("canal.mq.vhost", "/old", 2))
    );
    // The new key wins when both are set; a blank one counts as unset.
    assert_eq!(
        read("rabbitmq.exchange"),
        Some(("rabbitmq.exchange", "new.exchange", 6))
    );
    assert_eq!(
        read("rabbitmq.username"),
        Some(("canal.mq.username", "old-user", 4))
    );
    assert_eq!(
        read("rabbitmq.password"),
        Some(("canal.mq.password", "old-secret", 5))
    );
    assert_eq!(read("rabbitmq.queue"), None);
    // None of them is reported.
    let cfg = server(
        "canal.mq.vhost = /old\ncanal.mq.exchange = x\ncanal.mq.username = u\ncanal.mq.password = p\n",
    )
    .unwrap();
    assert!(cfg.warnings.is_empty(), "{:#?}", cfg.warnings);
}

#[test]
fn the_connection_charset_is_utf8_and_the_default_database_is_read() {
    for v in ["UTF-8", "utf8", "UTF8MB4", "utf8mb3", ""] {
        let inst = instance(&format!(
            "canal.instance.connectionCharset = {v}\ncanal.instance.defaultDatabaseName = shop\n"
        ))
        .unwrap();
        assert_eq!(inst.connection_charset, ConnectionCharset::Utf8mb4, "{v}");
        assert_eq!(inst.connection_charset.collation_id(), 45);
        assert_eq!(inst.default_database_name, "shop");
    }
    let err = instance("canal.instance.connectionCharset = GBK\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(
            "/conf/example/instance.properties:2: canal.instance.connectionCharset = \"GBK\": expected UTF-8"
        ),
        "{err}"
    );
}

/// Every key of Canal's shipped canal.properties and instance.properties
/// is known: the stock files give no unknown-key warning, and one line each
/// for what is not supported.
#[test]
fn canals_stock_files_give_one_line_each_and_no_unknown_key() {
    let cfg = server(STOCK_CANAL_PROPERTIES).unwrap();
    assert_eq!(cfg.warnings.len(), 2, "{:#?}", cfg.warnings);
    assert!(
        cfg.warnings[0].starts_with("/conf/canal.properties: accepted, not supported: "),
        "{:#?}",
        cfg.warnings
    );
    // The admin port without a password, said on its own line.
    assert!(
        cfg.warnings[1].contains("canal.admin.port = 11110"),
        "{:#?}",
        cfg.warnings
    );
    for key in [
        "canal.instance.tsdb.enable",
        "canal.instance.transaction.size",
        "rocketmq.producer.group",
    ] {
        assert!(
            cfg.warnings[0].contains(&format!("{key} (")),
            "{key}: {}",
            cfg.warnings[0]
        );
    }
    let inst = instance(STOCK_INSTANCE_PROPERTIES).unwrap();
    assert_eq!(inst.warnings.len(), 1, "{:#?}", inst.warnings);
    assert!(
        inst.warnings[0].contains("accepted, not supported: canal.instance.tsdb.enable ("),
        "{:#?}",
        inst.warnings
    );
}

/// The keys and values of Canal 1.1.8's shipped canal.properties.
const STOCK_CANAL_PROPERTIES: &str = "
canal.ip =
canal.register.ip =
canal.port = 11111
canal.metrics.pull.port = 11112
canal.admin.port = 11110
canal.admin.user = admin
canal.admin.passwd =
canal.zkServers =
canal.zookeeper.flush.period = 1000
canal.withoutNetty = false
canal.serverMode = tcp
canal.file.data.dir = /conf
canal.file.flush.period = 1000
canal.instance.memory.buffer.size = 16384
canal.instance.memory.buffer.memunit = 1024
canal.instance.memory.batch.mode = MEMSIZE
canal.instance.memory.rawEntry = true
canal.instance.detecting.enable = false
canal.instance.detecting.sql = select 1
canal.instance.detecting.interval.time = 3
canal.instance.detecting.retry.threshold = 3
canal.instance.detecting.heartbeatHaEnable = false
canal.instance.transaction.size = 1024
canal.instance.fallbackIntervalInSeconds = 60
canal.instance.network.receiveBufferSize = 16384
canal.instance.network.sendBufferSize = 16384
canal.instance.network.soTimeout = 30
canal.instance.filter.druid.ddl = true
canal.instance.filter.query.dcl = false
canal.instance.filter.query.dml = false
canal.instance.filter.query.ddl = false
canal.instance.filter.table.error = false
canal.instance.filter.rows = false
canal.instance.filter.transaction.entry = false
canal.instance.filter.dml.insert = false
canal.instance.filter.dml.update = false
canal.instance.filter.dml.delete = false
canal.instance.binlog.format = ROW,STATEMENT,MIXED
canal.instance.binlog.image = FULL,MINIMAL,NOBLOB
canal.instance.get.ddl.isolation = false
canal.instance.parser.parallel = true
canal.instance.parser.parallelBufferSize = 256
canal.instance.tsdb.enable = true
canal.instance.tsdb.dir = /conf/example
canal.instance.tsdb.url = jdbc:h2:/conf/example/h2
canal.instance.tsdb.dbUsername = canal
canal.instance.tsdb.dbPassword = canal
canal.instance.tsdb.snapshot.interval = 24
canal.instance.tsdb.snapshot.expire = 360
canal.destinations = example
canal.conf.dir = ../conf
canal.auto.scan = true
canal.auto.scan.interval = 5
canal.auto.reset.latest.pos.mode = false
canal.instance.tsdb.spring.xml = classpath:spring/tsdb/h2-tsdb.xml
canal.instance.global.mode = spring
canal.instance.global.lazy = false
canal.instance.global.manager.address =
canal.instance.global.spring.xml = classpath:spring/file-instance.xml
canal.aliyun.accessKey =
canal.aliyun.secretKey =
canal.aliyun.uid=
canal.mq.flatMessage = true
canal.mq.canalBatchSize = 50
canal.mq.canalGetTimeout = 100
canal.mq.accessChannel = local
canal.mq.database.hash = true
canal.mq.send.thread.size = 30
canal.mq.build.thread.size = 8
kafka.bootstrap.servers = 127.0.0.1:9092
kafka.acks = all
kafka.compression.type = none
kafka.batch.size = 16384
kafka.linger.ms = 1
kafka.max.request.size = 1048576
kafka.buffer.memory = 33554432
kafka.max.in.flight.requests.per.connection = 1
kafka.retries = 0
kafka.kerberos.enable = false
kafka.kerberos.krb5.file = ../conf/kerberos/krb5.conf
kafka.kerberos.jaas.file = ../conf/kerberos/jaas.conf
rocketmq.producer.group = test
rocketmq.enable.message.trace = false
rocketmq.customized.trace.topic =
rocketmq.namespace =
rocketmq.namesrv.addr = 127.0.0.1:9876
rocketmq.retry.times.when.send.failed = 0
rocketmq.vip.channel.enabled = false
rocketmq.tag =
rabbitmq.host =
rabbitmq.virtual.host =
rabbitmq.exchange =
rabbitmq.username =
rabbitmq.password =
rabbitmq.queue =
rabbitmq.routingKey =
rabbitmq.deliveryMode =
pulsarmq.serverUrl =
pulsarmq.roleToken =
pulsarmq.topicTenantPrefix =
";

/// The keys and values of Canal 1.1.8's example/instance.properties.
const STOCK_INSTANCE_PROPERTIES: &str = "canal.instance.gtidon=false
canal.instance.rds.accesskey=
canal.instance.rds.secretkey=
canal.instance.rds.instanceId=
canal.instance.master.journal.name=
canal.instance.master.position=
canal.instance.master.timestamp=
canal.instance.master.gtid=
canal.instance.multi.stream.on=false
canal.instance.tsdb.enable=true
canal.instance.dbUsername=canal
canal.instance.dbPassword=canal
canal.instance.connectionCharset = UTF-8
canal.instance.enableDruid=false
canal.instance.filter.regex=.*\\\\..*
canal.instance.filter.black.regex=mysql\\\\.slave_.*
canal.mq.topic=example
canal.mq.partition=0
";

#[test]
fn sluice_instance_keys_in_canal_properties_are_defaults_for_every_destination() {
    let cfg = server("sluice.instance.snapshot.chunkSize = 100\n").unwrap();
    assert!(cfg.warnings.is_empty(), "{:#?}", cfg.warnings);
    let inst = InstanceConfig::from_properties(
        Path::new("/conf/example/instance.properties"),
        "example",
        Properties::parse("canal.instance.master.address = 127.0.0.1:3306\n"),
        Some(&cfg.destinations.instance_defaults),
    )
    .unwrap();
    assert_eq!(inst.snapshot.chunk_size, 100);
}

#[test]
fn binlog_image_lists_the_row_images_accepted() {
    assert_eq!(
        instance("").unwrap().binlog_images,
        ["FULL", "MINIMAL", "NOBLOB"],
        "Canal's default"
    );
    assert_eq!(
        instance("canal.instance.binlog.image = noblob, Full,FULL\n")
            .unwrap()
            .binlog_images,
        ["NOBLOB", "FULL"],
        "any case, each once, in the order written"
    );
    let e = instance("canal.instance.binlog.image = FULL,MINIMUM\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "/conf/example/instance.properties:2: canal.instance.binlog.image = \"FULL,MINIMUM\": 'MINIMUM' is not one of FULL, MINIMAL, NOBLOB (a comma-separated list of them)"
    );
}

#[test]
fn redis_and_nats_modes_and_their_keys_are_known() {
    for (mode, keys) in [
        (
            "redis",
            "sluice.mq.redis.url = redis://127.0.0.1:6380\nsluice.mq.redis.maxlen = 1000\n",
        ),
        (
            "nats",
            "sluice.mq.nats.url = nats://127.0.0.1:4223\n\
             sluice.mq.nats.stream = cdc\n\
             sluice.mq.nats.subjectPrefix = cdc\n\
             sluice.mq.nats.user = u\n\
             sluice.mq.nats.password = p\n",
        ),
    ] {
        let cfg = server(&format!("canal.serverMode = {mode}\n{keys}")).unwrap();
        assert!(cfg.warnings.is_empty(), "{mode}: {:#?}", cfg.warnings);
    }
    assert_eq!(
        server("canal.serverMode = redis\n").unwrap().server_mode,
        crate::ServerMode::Redis
    );
    assert_eq!(
        server("canal.serverMode = nats\n").unwrap().server_mode,
        crate::ServerMode::Nats
    );
}

#[test]
fn the_relational_sink_keys_are_known() {
    let cfg = server("sluice.sink.adapterConf = adapter\nsluice.sink.clientId = 1201\n").unwrap();
    assert!(cfg.warnings.is_empty(), "{:#?}", cfg.warnings);
}
