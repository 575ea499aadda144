//! Every key of `canal.properties` and `instance.properties` Sluice knows,
//! in one table: Canal's keys, whether Sluice honours each and, if not,
//! what happens instead; Sluice's own `sluice.*` keys; the MQ clients'
//! `rabbitmq.*`, `rocketmq.*` and `pulsarmq.*` keys. A new key is one line
//! in [`KEYS`].
//!
//! At load, [`check`] turns what a file sets into
//! - one warning line listing every key set that Sluice accepts but does
//!   not act on, with what happens instead;
//! - a warning per unknown key, with its file, line and the closest known
//!   key;
//! - an error for an unknown key that looks like a security setting (a
//!   misspelled password or token would otherwise leave something open).
//!
//! `kafka.*` is not checked here: those keys go to librdkafka, which
//! refuses at start a property it does not know.

use std::path::Path;

use crate::{ConfigError, Properties};

/// Which file reads a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// `canal.properties` only.
    Server,
    /// `instance.properties`, or `canal.properties` as the default of
    /// every destination.
    Instance,
}

/// What Sluice does with a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Support {
    Honoured,
    /// Accepted and not acted on: what happens instead, and the values
    /// (case-insensitive) that ask for what Sluice does anyway, which are
    /// not reported.
    NotSupported {
        instead: &'static str,
        same_as: &'static [&'static str],
    },
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Key {
    pub name: &'static str,
    pub scope: Scope,
    pub support: Support,
}

const fn server(name: &'static str) -> Key {
    Key {
        name,
        scope: Scope::Server,
        support: Support::Honoured,
    }
}

const fn instance(name: &'static str) -> Key {
    Key {
        name,
        scope: Scope::Instance,
        support: Support::Honoured,
    }
}

const fn server_unsupported(
    name: &'static str,
    instead: &'static str,
    same_as: &'static [&'static str],
) -> Key {
    Key {
        name,
        scope: Scope::Server,
        support: Support::NotSupported { instead, same_as },
    }
}

const fn instance_unsupported(
    name: &'static str,
    instead: &'static str,
    same_as: &'static [&'static str],
) -> Key {
    Key {
        name,
        scope: Scope::Instance,
        support: Support::NotSupported { instead, same_as },
    }
}

const TSDB: &str =
    "table definitions are tracked by Sluice's own schema history, kept with the cursors";
const DETECTING: &str =
    "the replication connection's heartbeats and read timeout tell that the source is lost";
const ROCKETMQ: &str = "RocketMQ's: canal.serverMode = rocketMQ is refused";
const PULSAR: &str = "Pulsar's: canal.serverMode = pulsarMQ is refused";
const ALIYUN: &str = "Alibaba Cloud credentials are not used: brokers log in with the kafka.* or rabbitmq.* settings";
const STANDBY_PLACE: &str = "the place on the standby is found by GTID";
const KEY_STORE: &str =
    "Java key stores are not read: TLS checks the source against the system's CA certificates";
const PARSER: &str = "decoding runs in Sluice's own pipeline, which sizes itself";
const NETWORK: &str = "sockets use the system's buffer sizes and a 30 s read timeout";
const PER_DESTINATION: &str =
    "per-destination override: canal.instance.global.* applies to every destination";

/// Every key Sluice knows. Keys Canal reads, then Sluice's own, by file.
pub(crate) const KEYS: &[Key] = &[
    // canal.properties: the server.
    server_unsupported(
        "canal.id",
        "not written to ZooKeeper: servers are told apart by canal.register.ip and canal.port",
        &[],
    ),
    server("canal.ip"),
    server("canal.register.ip"),
    server("canal.port"),
    server("canal.metrics.pull.port"),
    server("canal.user"),
    server("canal.passwd"),
    server("canal.admin.manager"),
    server("canal.admin.port"),
    server("canal.admin.user"),
    server("canal.admin.passwd"),
    server("canal.admin.register.auto"),
    server("canal.admin.register.cluster"),
    server("canal.admin.register.name"),
    server("canal.zkServers"),
    server("canal.zookeeper.flush.period"),
    server("canal.zookeeper.ha.delay"),
    server("canal.zookeeper.session.timeout"),
    server_unsupported(
        "canal.withoutNetty",
        "the Canal TCP port is served in tcp mode and not in MQ modes",
        &["false"],
    ),
    server("canal.serverMode"),
    server("canal.file.data.dir"),
    server_unsupported(
        "canal.file.flush.period",
        "cursors are written durably on every ack that moves them",
        &[],
    ),
    server("canal.destinations"),
    server_unsupported(
        "canal.destinations.expr",
        "destinations are canal.destinations and the folders canal.auto.scan finds",
        &[],
    ),
    server("canal.conf.dir"),
    server("canal.auto.scan"),
    server("canal.auto.scan.interval"),
    server("canal.auto.reset.latest.pos.mode"),
    server_unsupported("canal.instance.tsdb.spring.xml", TSDB, &[]),
    server_unsupported(
        "canal.instance.global.mode",
        "destinations are read from the conf folder (spring) or, with canal.admin.manager, from canal-admin",
        &["spring", "manager"],
    ),
    server("canal.instance.global.lazy"),
    server_unsupported(
        "canal.instance.global.manager.address",
        "destinations come from the conf folder or, with canal.admin.manager, from that canal-admin",
        &[],
    ),
    server("canal.instance.global.spring.xml"),
    server_unsupported("canal.aliyun.accessKey", ALIYUN, &[]),
    server_unsupported("canal.aliyun.secretKey", ALIYUN, &[]),
    server_unsupported("canal.aliyun.uid", ALIYUN, &["0"]),
    // canal.properties: MQ mode.
    server("canal.mq.flatMessage"),
    server("canal.mq.canalBatchSize"),
    server("canal.mq.canalGetTimeout"),
    server_unsupported("canal.mq.accessChannel", ROCKETMQ, &["local"]),
    server("canal.mq.database.hash"),
    server_unsupported(
        "canal.mq.send.thread.size",
        "one worker per destination sends its records in binlog order",
        &[],
    ),
    server_unsupported(
        "canal.mq.build.thread.size",
        "one worker per destination builds its records in binlog order",
        &[],
    ),
    server_unsupported(
        "canal.mq.parallelThreadSize",
        "one worker per destination builds its records in binlog order",
        &[],
    ),
    server_unsupported(
        "canal.mq.transaction",
        "Kafka transactions are not used: the idempotent producer and its confirms keep the order and lose nothing",
        &["false"],
    ),
    // Canal 1.1.4's producer keys, read as the kafka.* (or rabbitmq.*) key
    // they became when that one is not set.
    server("canal.mq.servers"),
    server("canal.mq.retries"),
    server("canal.mq.batchSize"),
    server("canal.mq.lingerMs"),
    server("canal.mq.bufferMemory"),
    server("canal.mq.maxRequestSize"),
    server("canal.mq.acks"),
    server("canal.mq.compressionType"),
    server("canal.mq.kafka.kerberos.enable"),
    server("canal.mq.kafka.kerberos.krb5FilePath"),
    server("canal.mq.kafka.kerberos.jaasFilePath"),
    server("canal.mq.vhost"),
    server("canal.mq.exchange"),
    server("canal.mq.username"),
    server("canal.mq.password"),
    server_unsupported(
        "canal.mq.aliyunuid",
        "Alibaba Cloud AMQP credentials are not used: rabbitmq.username and rabbitmq.password are",
        &["0"],
    ),
    server_unsupported("canal.mq.producerGroup", ROCKETMQ, &[]),
    server_unsupported("canal.mq.namespace", ROCKETMQ, &[]),
    server_unsupported("canal.mq.enableMessageTrace", ROCKETMQ, &["false"]),
    server_unsupported("canal.mq.customizedTraceTopic", ROCKETMQ, &[]),
    // The MQ clients' own keys (kafka.* goes to librdkafka unchecked).
    server("rabbitmq.host"),
    server("rabbitmq.virtual.host"),
    server("rabbitmq.exchange"),
    server("rabbitmq.username"),
    server("rabbitmq.password"),
    server("rabbitmq.queue"),
    server("rabbitmq.routingKey"),
    server("rabbitmq.deliveryMode"),
    server_unsupported(
        "rabbitmq.resource.ownerId",
        "Alibaba Cloud AMQP credentials are not used: rabbitmq.username and rabbitmq.password are",
        &[],
    ),
    server_unsupported("rocketmq.producer.group", ROCKETMQ, &[]),
    server_unsupported("rocketmq.enable.message.trace", ROCKETMQ, &["false"]),
    server_unsupported("rocketmq.customized.trace.topic", ROCKETMQ, &[]),
    server_unsupported("rocketmq.namespace", ROCKETMQ, &[]),
    server_unsupported("rocketmq.namesrv.addr", ROCKETMQ, &[]),
    server_unsupported("rocketmq.retry.times.when.send.failed", ROCKETMQ, &[]),
    server_unsupported("rocketmq.vip.channel.enabled", ROCKETMQ, &["false"]),
    server_unsupported("rocketmq.tag", ROCKETMQ, &[]),
    server_unsupported("pulsarmq.serverUrl", PULSAR, &[]),
    server_unsupported("pulsarmq.roleToken", PULSAR, &[]),
    server_unsupported("pulsarmq.topicTenantPrefix", PULSAR, &[]),
    // canal.properties: Sluice's own.
    server("sluice.tcp.maxConnections"),
    server("sluice.tcp.maxConnectionsPerAddress"),
    server("sluice.tcp.quickAck"),
    server("sluice.tcp.reservedFds"),
    server("sluice.tcp.loginTimeout"),
    server("sluice.tcp.maxFailedLogins"),
    server("sluice.tcp.loginBackoffMax"),
    server("sluice.admin.pollInterval"),
    server("sluice.admin.http.port"),
    server("sluice.admin.http.host"),
    server("sluice.admin.http.token"),
    server("sluice.admin.http.allowOrigins"),
    server("sluice.admin.http.allowHosts"),
    server("sluice.metrics.sourceRefresh"),
    server("sluice.zookeeper.flush.onAck"),
    server("sluice.zookeeper.auth"),
    server("sluice.zookeeper.auth.file"),
    server("sluice.zookeeper.acl"),
    server("sluice.binlog.maxEventSize"),
    server("sluice.mq.inFlightBatches"),
    server("sluice.mq.kafka.createTopics"),
    server("sluice.mq.kafka.replicationFactor"),
    server("sluice.rabbitmq.mandatory"),
    server("sluice.rabbitmq.confirmTimeout"),
    // canal.serverMode = redis and nats (Sluice's own modes).
    server("sluice.mq.redis.url"),
    server("sluice.mq.redis.maxlen"),
    server("sluice.mq.nats.url"),
    server("sluice.mq.nats.stream"),
    server("sluice.mq.nats.subjectPrefix"),
    server("sluice.mq.nats.user"),
    server("sluice.mq.nats.password"),
    // The relational sink (canal-adapter's RDB adapter, inside the server).
    server("sluice.sink.adapterConf"),
    server("sluice.sink.clientId"),
    server("sluice.sink.schemaChanges"),
    server("sluice.sink.postgresUpsert"),
    // instance.properties: the source.
    instance("canal.instance.mysql.slaveId"),
    instance("canal.instance.gtidon"),
    instance("canal.instance.master.address"),
    instance("canal.instance.master.journal.name"),
    instance("canal.instance.master.position"),
    instance("canal.instance.master.timestamp"),
    instance("canal.instance.master.gtid"),
    instance("canal.instance.master.sslMode"),
    instance_unsupported("canal.instance.master.tlsVersions", "TLS 1.2 and 1.3 are offered", &[]),
    instance_unsupported("canal.instance.master.trustCertificateKeyStoreType", KEY_STORE, &[]),
    instance_unsupported("canal.instance.master.trustCertificateKeyStoreUrl", KEY_STORE, &[]),
    instance_unsupported("canal.instance.master.trustCertificateKeyStorePassword", KEY_STORE, &[]),
    instance_unsupported("canal.instance.master.clientCertificateKeyStoreType", KEY_STORE, &[]),
    instance_unsupported("canal.instance.master.clientCertificateKeyStoreUrl", KEY_STORE, &[]),
    instance_unsupported("canal.instance.master.clientCertificateKeyStorePassword", KEY_STORE, &[]),
    instance("canal.instance.standby.address"),
    instance_unsupported("canal.instance.standby.journal.name", STANDBY_PLACE, &[]),
    instance_unsupported("canal.instance.standby.position", STANDBY_PLACE, &[]),
    instance_unsupported("canal.instance.standby.timestamp", STANDBY_PLACE, &[]),
    instance_unsupported("canal.instance.standby.gtid", STANDBY_PLACE, &[]),
    instance_unsupported(
        "canal.instance.standby.sslMode",
        "the standby is reached as the source is, with canal.instance.master.sslMode",
        &[],
    ),
    instance_unsupported("canal.instance.standby.tlsVersions", "TLS 1.2 and 1.3 are offered", &[]),
    instance_unsupported("canal.instance.standby.trustCertificateKeyStoreType", KEY_STORE, &[]),
    instance_unsupported("canal.instance.standby.trustCertificateKeyStoreUrl", KEY_STORE, &[]),
    instance_unsupported("canal.instance.standby.trustCertificateKeyStorePassword", KEY_STORE, &[]),
    instance_unsupported("canal.instance.standby.clientCertificateKeyStoreType", KEY_STORE, &[]),
    instance_unsupported("canal.instance.standby.clientCertificateKeyStoreUrl", KEY_STORE, &[]),
    instance_unsupported("canal.instance.standby.clientCertificateKeyStorePassword", KEY_STORE, &[]),
    instance_unsupported(
        "canal.instance.rds.accesskey",
        "binlogs purged from an RDS instance are not fetched from its backups",
        &[],
    ),
    instance_unsupported(
        "canal.instance.rds.secretkey",
        "binlogs purged from an RDS instance are not fetched from its backups",
        &[],
    ),
    instance_unsupported(
        "canal.instance.rds.instanceId",
        "binlogs purged from an RDS instance are not fetched from its backups",
        &[],
    ),
    instance_unsupported("canal.instance.tsdb.enable", TSDB, &[]),
    instance_unsupported("canal.instance.tsdb.dir", TSDB, &[]),
    instance_unsupported("canal.instance.tsdb.url", TSDB, &[]),
    instance_unsupported("canal.instance.tsdb.dbUsername", TSDB, &[]),
    instance_unsupported("canal.instance.tsdb.dbPassword", TSDB, &[]),
    instance_unsupported("canal.instance.tsdb.snapshot.interval", TSDB, &[]),
    instance_unsupported("canal.instance.tsdb.snapshot.expire", TSDB, &[]),
    instance("canal.instance.dbUsername"),
    instance("canal.instance.dbPassword"),
    instance("canal.instance.defaultDatabaseName"),
    instance("canal.instance.connectionCharset"),
    instance_unsupported(
        "canal.instance.enableDruid",
        "canal.instance.dbPassword is used as written, not decrypted",
        &["false"],
    ),
    instance_unsupported(
        "canal.instance.pwdPublicKey",
        "canal.instance.dbPassword is used as written, not decrypted",
        &[],
    ),
    // instance.properties: filters.
    instance("canal.instance.filter.regex"),
    instance("canal.instance.filter.black.regex"),
    instance("canal.instance.filter.field"),
    instance("canal.instance.filter.black.field"),
    instance_unsupported(
        "canal.instance.filter.druid.ddl",
        "DDL is parsed by Sluice's own parser",
        &["true"],
    ),
    instance("canal.instance.filter.query.dcl"),
    instance("canal.instance.filter.query.dml"),
    instance("canal.instance.filter.query.ddl"),
    instance("canal.instance.filter.table.error"),
    instance_unsupported(
        "canal.instance.filter.rows",
        "row changes are always sent: drop them with canal.instance.filter.dml.insert/update/delete",
        &["false"],
    ),
    instance("canal.instance.filter.transaction.entry"),
    instance("canal.instance.filter.dml.insert"),
    instance("canal.instance.filter.dml.update"),
    instance("canal.instance.filter.dml.delete"),
    // instance.properties: the store and the parser.
    instance("canal.instance.memory.buffer.size"),
    instance("canal.instance.memory.buffer.memunit"),
    instance("canal.instance.memory.batch.mode"),
    instance("canal.instance.memory.rawEntry"),
    instance_unsupported("canal.instance.detecting.enable", DETECTING, &["false"]),
    instance_unsupported("canal.instance.detecting.sql", DETECTING, &[]),
    instance("canal.instance.detecting.interval.time"),
    instance("canal.instance.detecting.retry.threshold"),
    instance_unsupported("canal.instance.detecting.heartbeatHaEnable", DETECTING, &["false"]),
    instance_unsupported(
        "canal.instance.transaction.size",
        "a transaction streams through the store whole, however large",
        &[],
    ),
    instance_unsupported(
        "canal.instance.fallbackIntervalInSeconds",
        "after a failover the place is found by GTID, not by time",
        &[],
    ),
    instance_unsupported("canal.instance.network.receiveBufferSize", NETWORK, &[]),
    instance_unsupported("canal.instance.network.sendBufferSize", NETWORK, &[]),
    instance_unsupported("canal.instance.network.soTimeout", NETWORK, &[]),
    instance_unsupported(
        "canal.instance.binlog.format",
        "the source's binlog_format must be ROW, and a start on another is refused with the fix",
        &["ROW"],
    ),
    instance("canal.instance.binlog.image"),
    instance("canal.instance.get.ddl.isolation"),
    instance("canal.instance.parser.parallel"),
    instance_unsupported("canal.instance.parser.parallelThreadSize", PARSER, &[]),
    instance_unsupported("canal.instance.parser.parallelBufferSize", PARSER, &[]),
    instance_unsupported(
        "canal.instance.multi.stream.on",
        "one binlog stream per destination",
        &["false"],
    ),
    // instance.properties: MQ routing.
    instance("canal.mq.topic"),
    instance("canal.mq.dynamicTopic"),
    instance("canal.mq.partition"),
    instance("canal.mq.partitionsNum"),
    instance("canal.mq.partitionHash"),
    instance("canal.mq.dynamicTopicPartitionNum"),
    instance_unsupported("canal.mq.enableDynamicQueuePartition", ROCKETMQ, &["false"]),
    // instance.properties: Sluice's own.
    instance("sluice.instance.master.socket"),
    instance("sluice.instance.source.candidates"),
    instance("sluice.instance.source.failoverAfter"),
    instance("sluice.instance.onPurged"),
    instance("sluice.instance.slowClient.detachAfter"),
    instance("sluice.instance.snapshot.mode"),
    instance("sluice.instance.snapshot.reads"),
    instance("sluice.instance.snapshot.scanSeconds"),
    instance("sluice.instance.snapshot.chunkSize"),
    instance("sluice.instance.snapshot.parallelism"),
    instance("sluice.instance.snapshot.maxBufferBytes"),
];

/// Canal's per-destination overrides in `canal.properties`
/// (`canal.instance.{destination}.mode` and so on).
const PER_DESTINATION_SUFFIXES: &[&str] = &[".mode", ".lazy", ".manager.address", ".spring.xml"];

/// Prefixes whose keys go to a client library that checks them itself.
const PASSED_TO_CLIENTS: &[&str] = &["kafka."];

/// Canal 1.1.4's RabbitMQ keys and the `rabbitmq.*` key each became; the
/// new key wins when both are set.
pub const OLD_RABBITMQ_KEYS: &[(&str, &str)] = &[
    ("canal.mq.servers", "rabbitmq.host"),
    ("canal.mq.vhost", "rabbitmq.virtual.host"),
    ("canal.mq.exchange", "rabbitmq.exchange"),
    ("canal.mq.username", "rabbitmq.username"),
    ("canal.mq.password", "rabbitmq.password"),
];

/// A `rabbitmq.*` key's property, or that of the old key it replaced when
/// the new one is unset or blank; with the key it was read from, for errors.
pub fn rabbitmq_property<'a>(
    props: &'a Properties,
    key: &'a str,
) -> Option<(&'a str, &'a crate::Property)> {
    let set = |k: &'a str| {
        props
            .get(k)
            .filter(|p| !p.value.trim().is_empty())
            .map(|p| (k, p))
    };
    set(key).or_else(|| {
        OLD_RABBITMQ_KEYS
            .iter()
            .find(|(_, new)| *new == key)
            .and_then(|(old, _)| set(old))
    })
}

fn lookup(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

/// Whether an unknown key's name, or the known key it is closest to,
/// looks like a credential.
fn is_security_key(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".auth", ".token", ".passwd", ".password"]
        .iter()
        .any(|p| lower.contains(p))
}

fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["auth", "token", "passwd", "password", "secret"]
        .iter()
        .any(|p| lower.contains(p))
}

/// The known key of `scope` closest to `name`, when close enough to be a
/// misspelling of it (case ignored).
pub(crate) fn closest(name: &str, scopes: &[Scope]) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    let limit = (name.len() / 4).clamp(2, 4);
    KEYS.iter()
        .filter(|k| scopes.contains(&k.scope))
        .map(|k| {
            let d = strsim::damerau_levenshtein(&lower, &k.name.to_ascii_lowercase());
            (d, k.name)
        })
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// What a file's keys say: warnings to log, or an error that stops the start.
pub(crate) fn check(
    path: &Path,
    props: &Properties,
    file: Scope,
) -> Result<Vec<String>, ConfigError> {
    let scopes: &[Scope] = match file {
        Scope::Server => &[Scope::Server, Scope::Instance],
        Scope::Instance => &[Scope::Instance],
    };
    let mut warnings = Vec::new();
    let mut unsupported = Vec::new();
    for name in &props.order {
        let Some(p) = props.get(name) else { continue };
        let value = p.value.trim();
        match lookup(name) {
            Some(k) if scopes.contains(&k.scope) => {
                if let Support::NotSupported { instead, same_as } = k.support {
                    if !value.is_empty() && !same_as.iter().any(|v| v.eq_ignore_ascii_case(value)) {
                        unsupported.push(format!("{name} ({instead})"));
                    }
                }
            }
            Some(_) => warnings.push(format!(
                "{}:{}: {name} is read from canal.properties only: ignored here; move it there",
                path.display(),
                p.line
            )),
            None if PASSED_TO_CLIENTS.iter().any(|pre| name.starts_with(pre)) => {}
            None if file == Scope::Server && is_per_destination(name) => {
                if !value.is_empty() {
                    unsupported.push(format!("{name} ({PER_DESTINATION})"));
                }
            }
            None => {
                let suggestion = closest(name, scopes);
                if is_security_key(name) || suggestion.is_some_and(is_secret_name) {
                    return Err(ConfigError::UnknownSecurityKey {
                        path: path.to_path_buf(),
                        line: p.line,
                        key: name.clone(),
                        hint: match suggestion {
                            Some(s) => format!("did you mean {s}? Correct the key's name"),
                            None => {
                                "no known key is close: correct the key's name or remove it".into()
                            }
                        },
                    });
                }
                warnings.push(match suggestion {
                    Some(s) => format!(
                        "{}:{}: unknown key {name} (ignored): did you mean {s}?",
                        path.display(),
                        p.line
                    ),
                    None => format!(
                        "{}:{}: unknown key {name} (ignored; check the spelling)",
                        path.display(),
                        p.line
                    ),
                });
            }
        }
    }
    if !unsupported.is_empty() {
        warnings.insert(
            0,
            format!(
                "{}: accepted, not supported: {}",
                path.display(),
                unsupported.join(", ")
            ),
        );
    }
    Ok(warnings)
}

/// `canal.instance.{destination}.mode` and the like (not `global`).
fn is_per_destination(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("canal.instance.") else {
        return false;
    };
    PER_DESTINATION_SUFFIXES.iter().any(|suffix| {
        rest.strip_suffix(suffix)
            .is_some_and(|dest| !dest.is_empty() && dest != "global" && !dest.contains('.'))
    })
}
