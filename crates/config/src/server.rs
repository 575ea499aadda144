//! The server's settings (`canal.properties`): [`ServerConfig`] and the
//! types of its keys, read in named groups (ports and logins, ZooKeeper,
//! storage, serving mode), checked together, and kept in the sections the
//! parts of the server are given (Canal port, metrics, admin ports,
//! ZooKeeper, destinations, MQ, sink: the modules beside this one).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::admin::{admin_http, admin_tcp, AdminHttpConfig, AdminTcpConfig};
use crate::destinations::DestinationsConfig;
use crate::keys;
use crate::metrics::MetricsConfig;
use crate::mq::MqServerConfig;
use crate::reader::Reader;
use crate::secret::Secret;
use crate::sink::SinkKeys;
use crate::tcp::{CanalPortConfig, TcpLimits};
use crate::zookeeper::{ZooKeeperAcl, ZooKeeperConfig};
use crate::{read, ConfigError, Properties, Property};

/// How consumers are served (`canal.serverMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerMode {
    Tcp,
    Kafka,
    RocketMq,
    RabbitMq,
    PulsarMq,
    /// Sluice's own: each record appended to a Redis stream (`XADD`).
    Redis,
    /// Sluice's own: each record published to a NATS JetStream subject.
    Nats,
}

/// Where cursors are kept (`canal.instance.global.spring.xml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaMode {
    /// memory-instance.xml: lost on restart.
    Memory,
    /// file-instance.xml (Canal's shipped default): `meta.dat` per destination.
    File,
    /// default-instance.xml: ZooKeeper (`canal.zkServers`).
    ZooKeeper,
}

/// Settings of the server (`canal.properties`), read once and kept in
/// sections: each part of the server is given its own section and nothing
/// else.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// `canal.id`.
    pub id: i64,
    /// The Canal TCP server: `canal.ip`, `canal.port`, `canal.user`,
    /// `canal.passwd` and the `sluice.tcp.*` limits.
    pub canal_port: CanalPortConfig,
    /// `/metrics`: `canal.metrics.pull.port`, `sluice.metrics.sourceRefresh`.
    pub metrics: MetricsConfig,
    /// `canal.admin.*`: Canal's admin protocol (canal-admin's port);
    /// `None` (off) unless `canal.admin.port` and `canal.admin.passwd` are set.
    pub admin_tcp: Option<AdminTcpConfig>,
    /// `sluice.admin.http.*`: Sluice's admin HTTP API; `None` (off) unless
    /// `sluice.admin.http.port` is set.
    pub admin_http: Option<AdminHttpConfig>,
    /// `canal.admin.manager` and its keys: the configuration comes from
    /// canal-admin (see [`ServerConfig::load_managed`]).
    pub admin_manager: Option<crate::AdminManagerConfig>,
    /// Where the server's log files are, for the admin protocol's log
    /// requests. Not read from canal.properties: the command line sets it
    /// (`--log-dir`, `--log-layout`); `None` when logs go to stderr.
    pub log_files: Option<LogFiles>,
    /// `canal.zkServers`, `canal.zookeeper.*`, `sluice.zookeeper.*`.
    pub zookeeper: ZooKeeperConfig,
    /// `sluice.binlog.maxEventSize` (bytes, default 268435456 = 256 MiB, at
    /// most 1073741824): the largest size a compressed event's content may
    /// inflate to; a bigger event stops its destination with an error rather
    /// than the server's memory.
    pub binlog_max_event_size: usize,
    /// `canal.file.flush.period` (ms, default 1000).
    pub file_flush_period: Duration,
    /// The destinations: where they are configured, how they are found,
    /// their data folder and their defaults.
    pub destinations: DestinationsConfig,
    pub server_mode: ServerMode,
    /// `canal.mq.*` of `canal.properties`: how MQ mode reads and writes.
    pub mq: MqServerConfig,
    /// `sluice.sink.*`: the relational sink.
    pub sink: SinkKeys,
    pub meta_mode: MetaMode,
    /// Everything else in the file (MQ client settings such as `kafka.*`).
    pub raw: Properties,
    /// The canal.properties this was read from, for errors that point into it.
    pub path: PathBuf,
    pub warnings: Vec<String>,
}

/// How the server's log files are laid out in their folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogLayout {
    /// `DIR/sluice.log.YYYY-MM-DD`, one file a day (UTC dates).
    #[default]
    Sluice,
    /// Canal's: `DIR/canal/canal.log` for the server and
    /// `DIR/{destination}/{destination}.log` for each destination.
    Canal,
}

/// The folder the server logs to and its layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFiles {
    pub dir: PathBuf,
    pub layout: LogLayout,
}

/// `props` with the values of secret keys replaced by `***`, so a printed
/// configuration never shows them (they are parsed into [`Secret`]s).
fn without_secrets(props: &Properties) -> Properties {
    let mut out = props.clone();
    for key in ["sluice.zookeeper.auth", "sluice.admin.http.token"] {
        if let Some(p) = out.entries.get_mut(key) {
            p.value = "***".into();
        }
    }
    out
}

/// `sluice.zookeeper.auth`, or the text of the file
/// `sluice.zookeeper.auth.file` names (relative to `conf_dir`; trailing
/// whitespace dropped). Errors never show the credentials.
fn zookeeper_auth(r: &Reader<'_>, conf_dir: &Path) -> Result<Option<Secret>, ConfigError> {
    let inline = r.string("sluice.zookeeper.auth", "");
    let Some(file) = r
        .get("sluice.zookeeper.auth.file")
        .filter(|p| !p.value.trim().is_empty())
    else {
        return Ok((!inline.is_empty()).then_some(Secret(inline)));
    };
    if !inline.is_empty() {
        return Err(r.bad(
            "sluice.zookeeper.auth.file",
            file,
            "set sluice.zookeeper.auth or sluice.zookeeper.auth.file, not both",
        ));
    }
    let path = conf_dir.join(file.value.trim());
    let text = read(&path)?;
    let text = text.trim_end();
    if text.is_empty() {
        return Err(r.bad(
            "sluice.zookeeper.auth.file",
            file,
            "the file is empty: write scheme:credentials in it, e.g. digest:user:password",
        ));
    }
    Ok(Some(Secret(text.to_string())))
}

/// `sluice.binlog.maxEventSize` default: 256 MiB (sluice-binlog's default ceiling).
pub const DEFAULT_BINLOG_MAX_EVENT_SIZE: usize = 256 << 20;
/// Its highest value: MySQL's largest `max_allowed_packet`.
const MAX_BINLOG_MAX_EVENT_SIZE: usize = 1 << 30;

impl ServerConfig {
    /// Reads `dir/canal.properties`; `${canal.conf.dir}` resolves to `dir`.
    pub fn load(dir: &Path) -> Result<ServerConfig, ConfigError> {
        // Absolute, so that paths made from it do not depend on the working
        // directory once resolved.
        let dir = &std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let path = dir.join("canal.properties");
        let mut props = Properties::parse(&read(&path)?);
        // `${canal.conf.dir}` is the conf folder as canal.conf.dir names it
        // (relative to this folder), as in Canal's stock files.
        let conf_dir = match props.get("canal.conf.dir").map(|p| p.value.trim()) {
            // Without `..` where the folder exists: paths in logs read plainly.
            Some(v) if !v.is_empty() && !v.contains("${") => {
                let joined = dir.join(v);
                std::fs::canonicalize(&joined).unwrap_or(joined)
            }
            _ => dir.to_path_buf(),
        };
        let vars = HashMap::from([("canal.conf.dir".to_string(), conf_dir.display().to_string())]);
        props.resolve_placeholders(&vars);
        Self::from_properties(&path, dir, props)
    }

    pub fn from_properties(
        path: &Path,
        dir: &Path,
        props: Properties,
    ) -> Result<ServerConfig, ConfigError> {
        let r = Reader {
            path,
            primary: &props,
            fallback: None,
        };
        let meta_mode = meta_mode(&r);
        // Relative folders are taken from the folder of canal.properties, not
        // the working directory: Canal's stock `canal.conf.dir = ../conf`
        // then names the conf folder wherever the server is started from.
        let conf_dir = r
            .path_from("canal.conf.dir", dir)
            .unwrap_or_else(|| dir.to_path_buf());
        let (admin_tcp, admin_tcp_warning) = admin_tcp(&r)?;
        let serving = ServingKeys::read(&r)?;
        let admin_http = admin_http(&r)?;
        let zookeeper = ZooKeeperKeys::read(&r, &conf_dir)?;
        let storage = StorageKeys::read(&r, dir, &conf_dir)?;
        let mode = ModeKeys::read(&r)?;
        let register_ip = [&serving.register_ip, &serving.ip]
            .into_iter()
            .map(|s| s.trim())
            .find(|s| !s.is_empty())
            .unwrap_or_default()
            .to_string();
        let cfg = ServerConfig {
            id: serving.id,
            metrics: MetricsConfig {
                ip: serving.ip.clone(),
                port: serving.metrics_port,
                source_refresh: serving.metrics_source_refresh,
            },
            zookeeper: ZooKeeperConfig {
                servers: zookeeper.zk_servers,
                flush_period: zookeeper.zookeeper_flush_period,
                flush_on_ack: zookeeper.zookeeper_flush_on_ack,
                ha_delay: zookeeper.zookeeper_ha_delay,
                session_timeout: zookeeper.zookeeper_session_timeout,
                auth: zookeeper.zookeeper_auth,
                acl: zookeeper.zookeeper_acl,
                register_ip,
                port: serving.port,
            },
            canal_port: CanalPortConfig {
                ip: serving.ip,
                port: serving.port,
                user: serving.user,
                passwd: serving.passwd,
                limits: serving.tcp,
            },
            admin_tcp,
            admin_http,
            log_files: None,
            binlog_max_event_size: storage.binlog_max_event_size,
            file_flush_period: storage.file_flush_period,
            destinations: DestinationsConfig {
                conf_dir: conf_dir.clone(),
                data_dir: storage.file_data_dir,
                names: storage.destinations,
                auto_scan: storage.auto_scan,
                auto_scan_interval: storage.auto_scan_interval,
                lazy: mode.lazy,
                instance_defaults: instance_defaults(&props),
                auto_reset_latest_pos_mode: storage.auto_reset_latest_pos_mode,
                path: path.to_path_buf(),
            },
            admin_manager: crate::canal_admin::admin_manager(&r)?,
            server_mode: mode.server_mode,
            mq: mode.mq,
            sink: SinkKeys {
                adapter_conf: props.get("sluice.sink.adapterConf").cloned(),
                client_id: props.get("sluice.sink.clientId").cloned(),
                schema_changes: props.get("sluice.sink.schemaChanges").cloned(),
                postgres_upsert: props.get("sluice.sink.postgresUpsert").cloned(),
                conf_dir,
                path: path.to_path_buf(),
            },
            meta_mode,
            warnings: keys::check(path, &props, keys::Scope::Server)?
                .into_iter()
                .chain(admin_tcp_warning)
                .collect(),
            raw: without_secrets(&props),
            path: path.to_path_buf(),
        };
        check_limits_and_logins(&r, &props, &cfg)?;
        Ok(cfg)
    }
}

/// Where cursors are kept, from `canal.instance.global.spring.xml`.
fn meta_mode(r: &Reader<'_>) -> MetaMode {
    let spring = r.string(
        "canal.instance.global.spring.xml",
        "classpath:spring/file-instance.xml",
    );
    if spring.contains("memory-instance") {
        MetaMode::Memory
    } else if spring.contains("default-instance") {
        MetaMode::ZooKeeper
    } else {
        MetaMode::File
    }
}

/// The server's id, its addresses and ports, and who may log in to it.
struct ServingKeys {
    id: i64,
    ip: String,
    register_ip: String,
    port: u16,
    metrics_port: u16,
    metrics_source_refresh: Duration,
    user: String,
    passwd: String,
    tcp: TcpLimits,
}

impl ServingKeys {
    /// `canal.id`, `canal.ip`, `canal.register.ip`, `canal.port`, the
    /// metrics keys, `canal.user`, `canal.passwd` and `sluice.tcp.*`.
    fn read(r: &Reader<'_>) -> Result<ServingKeys, ConfigError> {
        Ok(ServingKeys {
            id: r.parse("canal.id", 1, "expected an integer")?,
            ip: r.string("canal.ip", ""),
            register_ip: r.string("canal.register.ip", ""),
            port: r.parse("canal.port", 11111, "expected a TCP port (1-65535)")?,
            metrics_port: r.parse(
                "canal.metrics.pull.port",
                11112,
                "expected a TCP port (1-65535)",
            )?,
            metrics_source_refresh: Duration::from_millis(r.at_least(
                "sluice.metrics.sourceRefresh",
                30_000,
                100,
                "expected milliseconds (at least 100)",
            )?),
            user: r.string("canal.user", ""),
            passwd: r.string("canal.passwd", ""),
            tcp: r.tcp_limits()?,
        })
    }
}

/// The ZooKeeper cluster and how the server uses it.
struct ZooKeeperKeys {
    zk_servers: String,
    zookeeper_flush_period: Duration,
    zookeeper_flush_on_ack: bool,
    zookeeper_ha_delay: Duration,
    zookeeper_session_timeout: Duration,
    zookeeper_auth: Option<Secret>,
    zookeeper_acl: ZooKeeperAcl,
}

impl ZooKeeperKeys {
    /// `canal.zkServers`, `canal.zookeeper.*` and `sluice.zookeeper.*`.
    fn read(r: &Reader<'_>, conf_dir: &Path) -> Result<ZooKeeperKeys, ConfigError> {
        Ok(ZooKeeperKeys {
            zk_servers: r.string("canal.zkServers", ""),
            zookeeper_flush_period: Duration::from_millis(r.parse(
                "canal.zookeeper.flush.period",
                1000,
                "expected milliseconds",
            )?),
            zookeeper_flush_on_ack: r.bool("sluice.zookeeper.flush.onAck", true)?,
            zookeeper_ha_delay: Duration::from_millis(r.parse(
                "canal.zookeeper.ha.delay",
                5000,
                "expected milliseconds",
            )?),
            zookeeper_session_timeout: Duration::from_millis(r.parse(
                "canal.zookeeper.session.timeout",
                10000,
                "expected milliseconds",
            )?),
            zookeeper_auth: zookeeper_auth(r, conf_dir)?,
            zookeeper_acl: r.choice(
                "sluice.zookeeper.acl",
                ZooKeeperAcl::CreatorAllWorldRead,
                &[
                    ("creator-all-world-read", ZooKeeperAcl::CreatorAllWorldRead),
                    ("creator-all", ZooKeeperAcl::CreatorAll),
                ],
            )?,
        })
    }
}

/// The binlog event ceiling, the data folder and the destinations found.
struct StorageKeys {
    binlog_max_event_size: usize,
    file_data_dir: PathBuf,
    file_flush_period: Duration,
    destinations: Vec<String>,
    auto_scan: bool,
    auto_scan_interval: Duration,
    auto_reset_latest_pos_mode: bool,
}

impl StorageKeys {
    /// `sluice.binlog.maxEventSize`, `canal.file.*`, `canal.destinations`
    /// and `canal.auto.*`.
    fn read(r: &Reader<'_>, dir: &Path, conf_dir: &Path) -> Result<StorageKeys, ConfigError> {
        Ok(StorageKeys {
            binlog_max_event_size: r.parse(
                "sluice.binlog.maxEventSize",
                DEFAULT_BINLOG_MAX_EVENT_SIZE,
                "expected a number of bytes",
            )?,
            file_data_dir: r
                .path_from("canal.file.data.dir", dir)
                .unwrap_or_else(|| conf_dir.to_path_buf()),
            file_flush_period: Duration::from_millis(r.parse(
                "canal.file.flush.period",
                1000,
                "expected milliseconds",
            )?),
            destinations: r.list("canal.destinations", ""),
            auto_scan: r.bool("canal.auto.scan", true)?,
            auto_scan_interval: Duration::from_secs(r.parse(
                "canal.auto.scan.interval",
                5,
                "expected seconds",
            )?),
            auto_reset_latest_pos_mode: r.bool("canal.auto.reset.latest.pos.mode", false)?,
        })
    }
}

/// How consumers are served: TCP or an MQ, and when destinations start.
struct ModeKeys {
    server_mode: ServerMode,
    mq: MqServerConfig,
    lazy: bool,
}

impl ModeKeys {
    /// `canal.serverMode`, the server-wide `canal.mq.*` and
    /// `canal.instance.global.lazy`.
    fn read(r: &Reader<'_>) -> Result<ModeKeys, ConfigError> {
        Ok(ModeKeys {
            server_mode: r.choice(
                "canal.serverMode",
                ServerMode::Tcp,
                &[
                    ("tcp", ServerMode::Tcp),
                    ("kafka", ServerMode::Kafka),
                    ("rocketMQ", ServerMode::RocketMq),
                    ("rabbitMQ", ServerMode::RabbitMq),
                    ("pulsarMQ", ServerMode::PulsarMq),
                    ("redis", ServerMode::Redis),
                    ("nats", ServerMode::Nats),
                ],
            )?,
            mq: r.mq_server()?,
            lazy: r.bool("canal.instance.global.lazy", false)?,
        })
    }
}

/// Every `canal.instance.*`, `canal.mq.*` and `sluice.instance.*` key of
/// canal.properties: the instances' defaults.
fn instance_defaults(props: &Properties) -> HashMap<String, Property> {
    props
        .entries
        .iter()
        .filter(|(k, _)| {
            ["canal.instance.", "canal.mq.", "sluice.instance."]
                .iter()
                .any(|p| k.starts_with(p))
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Refuses a binlog event ceiling out of range, a user without a password
/// and a password that is not 40 hex digits.
fn check_limits_and_logins(
    r: &Reader<'_>,
    props: &Properties,
    cfg: &ServerConfig,
) -> Result<(), ConfigError> {
    if !(1..=MAX_BINLOG_MAX_EVENT_SIZE).contains(&cfg.binlog_max_event_size) {
        if let Some(p) = props.get("sluice.binlog.maxEventSize") {
            return Err(r.bad(
                "sluice.binlog.maxEventSize",
                p,
                "expected a number of bytes from 1 to 1073741824",
            ));
        }
    }
    let (user, passwd) = (&cfg.canal_port.user, &cfg.canal_port.passwd);
    if !user.is_empty() && passwd.is_empty() {
        return Err(ConfigError::Missing {
            path: r.path.to_path_buf(),
            key: "canal.passwd".into(),
            hint: "canal.user is set, so clients must log in: set canal.passwd to the hex SHA1(SHA1(password)), or clear canal.user".into(),
        });
    }
    if !passwd.is_empty() && (passwd.len() != 40 || !passwd.chars().all(|c| c.is_ascii_hexdigit()))
    {
        let p = props.get("canal.passwd").cloned().unwrap_or(Property {
            value: passwd.clone(),
            line: 0,
        });
        return Err(r.bad(
            "canal.passwd",
            &p,
            "expected 40 hex digits: SHA1(SHA1(password)), e.g. SELECT SHA1(UNHEX(SHA1('secret')))",
        ));
    }
    Ok(())
}
