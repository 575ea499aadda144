//! The server's settings (`canal.properties`): [`ServerConfig`] and the
//! types of its keys, read in named groups (ports and logins, ZooKeeper,
//! storage, serving mode), then checked together.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::admin::{admin_http, admin_tcp, AdminHttpConfig, AdminTcpConfig};
use crate::keys;
use crate::mq::MqServerConfig;
use crate::reader::Reader;
use crate::secret::Secret;
use crate::tcp::TcpLimits;
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

/// Who may read the ZooKeeper nodes a server with credentials creates
/// (`sluice.zookeeper.acl`); those with the same credentials may do anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZooKeeperAcl {
    /// `creator-all-world-read` (default): anyone may read, so Canal clients
    /// without credentials still find the servers.
    CreatorAllWorldRead,
    /// `creator-all`: nobody else, not even to read.
    CreatorAll,
}

/// Settings of the server (`canal.properties`).
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub id: i64,
    /// Address to listen on; empty = all interfaces.
    pub ip: String,
    /// Address to register in ZooKeeper (defaults to `ip`, then the host's address).
    pub register_ip: String,
    pub port: u16,
    pub metrics_port: u16,
    /// `sluice.metrics.sourceRefresh` (ms, default 30000): how often the
    /// figures `/metrics` shows from each destination's source (binlog
    /// bytes behind, retention runway) are read again; scrapes never ask
    /// the source themselves.
    pub metrics_source_refresh: Duration,
    pub user: String,
    /// Hex of SHA1(SHA1(password)), as Canal stores it.
    pub passwd: String,
    /// `sluice.tcp.*`: what the Canal TCP server lets clients hold.
    pub tcp: TcpLimits,
    /// `canal.admin.*`: Canal's admin protocol (canal-admin's port);
    /// `None` (off) unless `canal.admin.port` and `canal.admin.passwd` are set.
    pub admin_tcp: Option<AdminTcpConfig>,
    /// `sluice.admin.http.*`: Sluice's admin HTTP API; `None` (off) unless
    /// `sluice.admin.http.port` is set.
    pub admin_http: Option<AdminHttpConfig>,
    /// Where the server's log files are, for the admin protocol's log
    /// requests. Not read from canal.properties: the command line sets it
    /// (`--log-dir`, `--log-layout`); `None` when logs go to stderr.
    pub log_files: Option<LogFiles>,
    pub zk_servers: String,
    pub zookeeper_flush_period: Duration,
    /// `sluice.zookeeper.flush.onAck` (default true): the cursor an ack
    /// moves is written to ZooKeeper before the server answers the client's
    /// next request, so a crash never replays an acknowledged batch. False
    /// is Canal's behaviour: cursors are written every
    /// `canal.zookeeper.flush.period`, and up to a period of acknowledged
    /// batches come again after a crash.
    pub zookeeper_flush_on_ack: bool,
    /// `canal.zookeeper.ha.delay` (ms, default 5000): how long a server
    /// that was not the previous owner waits before taking a destination
    /// whose `running` node disappeared (Canal hard-codes 5 s).
    pub zookeeper_ha_delay: Duration,
    /// `canal.zookeeper.session.timeout` (ms, default 10000): the ZooKeeper
    /// session timeout asked for. ZooKeeper clamps it to its
    /// `minSessionTimeout`..`maxSessionTimeout` (by default 2 and 20 ticks,
    /// 4 s..40 s with `tickTime` = 2000).
    pub zookeeper_session_timeout: Duration,
    /// `sluice.zookeeper.auth` (`scheme:credentials`, e.g.
    /// `digest:user:password`), or the text of the file named by
    /// `sluice.zookeeper.auth.file`: the credentials of every ZooKeeper
    /// session; with them the nodes the server creates get
    /// `sluice.zookeeper.acl` instead of open access.
    pub zookeeper_auth: Option<Secret>,
    /// `sluice.zookeeper.acl` (default `creator-all-world-read`).
    pub zookeeper_acl: ZooKeeperAcl,
    /// `sluice.binlog.maxEventSize` (bytes, default 268435456 = 256 MiB, at
    /// most 1073741824): the largest size a compressed event's content may
    /// inflate to; a bigger event stops its destination with an error rather
    /// than the server's memory.
    pub binlog_max_event_size: usize,
    pub file_data_dir: PathBuf,
    pub file_flush_period: Duration,
    pub destinations: Vec<String>,
    pub conf_dir: PathBuf,
    pub auto_scan: bool,
    pub auto_scan_interval: Duration,
    /// `canal.admin.manager` and its keys: the configuration comes from
    /// canal-admin (see [`ServerConfig::load_managed`]).
    pub admin_manager: Option<crate::AdminManagerConfig>,
    /// `canal.auto.reset.latest.pos.mode` (default false): a destination
    /// whose binlog position is purged skips to the end, unless its
    /// `sluice.instance.onPurged` says otherwise.
    pub auto_reset_latest_pos_mode: bool,
    pub server_mode: ServerMode,
    /// `canal.mq.*` of `canal.properties`: how MQ mode reads and writes.
    pub mq: MqServerConfig,
    pub lazy: bool,
    pub meta_mode: MetaMode,
    /// Every `canal.instance.*`, `canal.mq.*` and `sluice.instance.*` key
    /// set here: defaults for each instance.
    pub instance_defaults: HashMap<String, Property>,
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
    /// The Canal TCP server's section.
    pub fn canal_port(&self) -> crate::CanalPortConfig {
        crate::CanalPortConfig {
            ip: self.ip.clone(),
            port: self.port,
            user: self.user.clone(),
            passwd: self.passwd.clone(),
            limits: self.tcp.clone(),
        }
    }

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
        let cfg = ServerConfig {
            id: serving.id,
            ip: serving.ip,
            register_ip: serving.register_ip,
            port: serving.port,
            metrics_port: serving.metrics_port,
            metrics_source_refresh: serving.metrics_source_refresh,
            user: serving.user,
            passwd: serving.passwd,
            tcp: serving.tcp,
            admin_tcp,
            admin_http,
            log_files: None,
            zk_servers: zookeeper.zk_servers,
            zookeeper_flush_period: zookeeper.zookeeper_flush_period,
            zookeeper_flush_on_ack: zookeeper.zookeeper_flush_on_ack,
            zookeeper_ha_delay: zookeeper.zookeeper_ha_delay,
            zookeeper_session_timeout: zookeeper.zookeeper_session_timeout,
            zookeeper_auth: zookeeper.zookeeper_auth,
            zookeeper_acl: zookeeper.zookeeper_acl,
            binlog_max_event_size: storage.binlog_max_event_size,
            file_data_dir: storage.file_data_dir,
            file_flush_period: storage.file_flush_period,
            destinations: storage.destinations,
            auto_scan: storage.auto_scan,
            auto_scan_interval: storage.auto_scan_interval,
            admin_manager: crate::canal_admin::admin_manager(&r)?,
            auto_reset_latest_pos_mode: storage.auto_reset_latest_pos_mode,
            server_mode: mode.server_mode,
            mq: mode.mq,
            lazy: mode.lazy,
            meta_mode,
            conf_dir,
            instance_defaults: instance_defaults(&props),
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

    /// The destinations to run: `canal.destinations`, plus (with auto scan)
    /// every folder of the conf dir that holds an `instance.properties`.
    pub fn discover_destinations(&self) -> Vec<String> {
        let mut out = self.destinations.clone();
        if self.auto_scan {
            if let Ok(rd) = std::fs::read_dir(&self.conf_dir) {
                let mut found: Vec<String> = rd
                    .filter_map(|e| e.ok())
                    .filter(|e| e.path().join("instance.properties").is_file())
                    .filter_map(|e| e.file_name().to_str().map(str::to_string))
                    .collect();
                found.sort();
                for d in found {
                    if !out.contains(&d) {
                        out.push(d);
                    }
                }
            }
        }
        out
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
    if !cfg.user.is_empty() && cfg.passwd.is_empty() {
        return Err(ConfigError::Missing {
            path: r.path.to_path_buf(),
            key: "canal.passwd".into(),
            hint: "canal.user is set, so clients must log in: set canal.passwd to the hex SHA1(SHA1(password)), or clear canal.user".into(),
        });
    }
    if !cfg.passwd.is_empty()
        && (cfg.passwd.len() != 40 || !cfg.passwd.chars().all(|c| c.is_ascii_hexdigit()))
    {
        let p = props.get("canal.passwd").cloned().unwrap_or(Property {
            value: cfg.passwd.clone(),
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
