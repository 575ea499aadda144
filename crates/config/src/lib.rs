//! Sluice reads Canal's configuration layout as it is: `DIR/canal.properties`
//! for the server and `DIR/{destination}/instance.properties` per
//! destination, with Canal's keys and defaults. Keys Canal knows but Sluice
//! does not act on are named at start, in one warning line per file, with
//! what happens instead; a key neither knows is a warning with the closest
//! known key, or an error when it looks like a misspelled password or token
//! (see the `keys` module, where every key is listed); a bad value is an
//! error that names the file, line, key and what is expected.

mod keys;
pub mod properties;
mod reader;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use keys::{rabbitmq_property, OLD_RABBITMQ_KEYS};
pub use properties::{Properties, Property};
use reader::Reader;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    // The I/O error is in the message and not a `source`: a report that
    // prints the chain would say it twice.
    #[error("cannot read {path}: {cause}")]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{path}:{line}: {key} = {value:?}: {expected}")]
    BadValue {
        path: PathBuf,
        line: usize,
        key: String,
        value: String,
        expected: String,
    },
    #[error("{path}:{line}: unknown key {key}: {hint}; a misspelled security setting stops the start rather than leave something open")]
    UnknownSecurityKey {
        path: PathBuf,
        line: usize,
        key: String,
        hint: String,
    },
    #[error("{path}: {key} is required: {hint}")]
    Missing {
        path: PathBuf,
        key: String,
        hint: String,
    },
}

/// How consumers are served (`canal.serverMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerMode {
    Tcp,
    Kafka,
    RocketMq,
    RabbitMq,
    PulsarMq,
}

/// `canal.instance.memory.batch.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchMode {
    MemSize,
    ItemSize,
}

/// TLS to the source (`canal.instance.master.sslMode`), MySQL Connector/J's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    Disabled,
    Preferred,
    Required,
    VerifyCa,
    VerifyIdentity,
}

/// The character set of the connections to the source
/// (`canal.instance.connectionCharset`, Canal's default `UTF-8`). Canal
/// decodes all text of the binlog in it; Sluice decodes each text column
/// in its own character set (from the binlog or the table's definition)
/// and speaks utf8mb4 to the source, so UTF-8 is the only value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConnectionCharset {
    /// `UTF-8`, `UTF8`, `utf8mb4` or `utf8mb3` (case-insensitive; Canal
    /// takes `UTF8MB4` as `UTF-8` too).
    #[default]
    Utf8mb4,
}

impl ConnectionCharset {
    /// The collation the connection asks for in its handshake:
    /// utf8mb4_general_ci (45), known to MySQL and MariaDB alike.
    pub fn collation_id(self) -> u8 {
        match self {
            ConnectionCharset::Utf8mb4 => 45,
        }
    }
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

/// Limits of the Canal TCP server, so that peers (logged in or not) cannot
/// take the process's memory, file descriptors or password checks (Canal
/// has no such keys, hence `sluice.tcp.*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpLimits {
    /// `sluice.tcp.maxConnections` (default 1024): client connections open
    /// at once; more are closed as soon as they are accepted. The server
    /// also keeps it below RLIMIT_NOFILE minus `reserved_fds`.
    pub max_connections: usize,
    /// `sluice.tcp.reservedFds` (default 256): file descriptors kept free of
    /// client connections for cursors, the store, schema history, the
    /// sources and ZooKeeper.
    pub reserved_fds: usize,
    /// `sluice.tcp.loginTimeout` (ms, default 10000): time from connecting
    /// to a successful login.
    pub login_timeout: Duration,
    /// `sluice.tcp.maxFailedLogins` (default 5): failed logins from one
    /// address before its logins are refused for a while.
    pub max_failed_logins: u32,
    /// `sluice.tcp.loginBackoffMax` (ms, default 30000): the longest an
    /// address is refused; the wait starts at 1 s and doubles per failure.
    pub login_backoff_max: Duration,
    /// `sluice.tcp.maxConnectionsPerAddress` (default 64): client
    /// connections open at once from one address (IPv6: one /64); more
    /// are closed as soon as they are accepted.
    pub max_connections_per_address: usize,
}

impl Default for TcpLimits {
    fn default() -> Self {
        TcpLimits {
            max_connections: 1024,
            reserved_fds: 256,
            login_timeout: Duration::from_secs(10),
            max_failed_logins: 5,
            login_backoff_max: Duration::from_secs(30),
            max_connections_per_address: 64,
        }
    }
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

/// A secret read from the configuration; `Debug` prints `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

/// The server-wide MQ settings (`canal.properties`), used when
/// `canal.serverMode` is not `tcp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MqServerConfig {
    /// `canal.mq.flatMessage` (default true): FlatMessage JSON, else
    /// Canal's protobuf `Packet`.
    pub flat_message: bool,
    /// `canal.mq.canalBatchSize` (default 50): the size of each get of the
    /// MQ worker (entries, or KB of binlog with the MEMSIZE batch mode).
    pub canal_batch_size: usize,
    /// `canal.mq.canalGetTimeout` (ms, default 100): how long a get waits
    /// for data; zero (Canal: any value up to 0) is a get that does not wait.
    pub canal_get_timeout: Duration,
    /// `canal.mq.database.hash` (default true): column hashes start from
    /// the database name's hash.
    pub database_hash: bool,
    /// `canal.mq.send.thread.size` (default 30): Canal's sender threads;
    /// accepted, at least 1.
    pub send_thread_size: usize,
    /// `canal.mq.build.thread.size` (default 8): Canal's threads that build
    /// messages; accepted, at least 1.
    pub build_thread_size: usize,
}

impl Default for MqServerConfig {
    fn default() -> Self {
        MqServerConfig {
            flat_message: true,
            canal_batch_size: 50,
            canal_get_timeout: Duration::from_millis(100),
            database_hash: true,
            send_thread_size: 30,
            build_thread_size: 8,
        }
    }
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

/// Canal's admin protocol (`canal.admin.*` of `canal.properties`), the
/// port canal-admin manages a server through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminTcpConfig {
    /// `canal.admin.port`: its port (listening on `canal.ip`); 0 takes any
    /// free port.
    pub port: u16,
    /// `canal.admin.user`: the user name canal-admin logs in with; empty
    /// accepts any name (as Canal).
    pub user: String,
    /// `canal.admin.passwd`: hex of SHA1(SHA1(password)), 40 digits.
    pub passwd: String,
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

/// Sluice's admin HTTP API (`sluice.admin.http.*` of `canal.properties`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminHttpConfig {
    /// `sluice.admin.http.host` (default 127.0.0.1): the address it listens on.
    pub host: String,
    /// `sluice.admin.http.port`: its port; 0 takes any free port.
    pub port: u16,
    /// `sluice.admin.http.token`: the bearer token every request but the
    /// OpenAPI document must carry; required unless `host` is a loopback
    /// address, where its absence lets any local user in.
    pub token: Option<Secret>,
    /// `sluice.admin.http.allowOrigins` (comma separated, default none):
    /// the web origins (`scheme://host[:port]`) whose pages may call the
    /// API; a request with any other `Origin` header is refused.
    pub allow_origins: Vec<String>,
    /// `sluice.admin.http.allowHosts` (comma separated, default none): the
    /// names, beside the address the API listens on (and `localhost` on
    /// loopback), that requests may carry in their `Host` header (`name`
    /// for any port, `name:port` for one).
    pub allow_hosts: Vec<String>,
}

/// Whether `host` names the loopback interface only: `localhost` or an
/// address of 127.0.0.0/8 or `::1`.
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim().trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// `sluice.admin.http.*`: `None` unless the port is set; a host that is not
/// loopback without a token is refused, at the host's line.
fn admin_http(r: &Reader<'_>) -> Result<Option<AdminHttpConfig>, ConfigError> {
    let Some(port) =
        r.optional::<u16>("sluice.admin.http.port", "expected a TCP port (0-65535)")?
    else {
        return Ok(None);
    };
    let host = r.string("sluice.admin.http.host", "127.0.0.1");
    let token = r.string("sluice.admin.http.token", "");
    let token = (!token.is_empty()).then_some(Secret(token));
    if token.is_none() && !is_loopback_host(&host) {
        if let Some(p) = r.get("sluice.admin.http.host") {
            return Err(r.bad(
                "sluice.admin.http.host",
                p,
                "the admin API on an address other hosts reach needs sluice.admin.http.token: set a long random token, or listen on 127.0.0.1",
            ));
        }
    }
    let allow_origins = admin_http_list(r, "sluice.admin.http.allowOrigins", |o| {
        let o = o.trim_end_matches('/');
        let (scheme, rest) = o.split_once("://")?;
        (matches!(scheme, "http" | "https") && !rest.is_empty() && !rest.contains(['/', '?', '#']))
            .then(|| o.to_ascii_lowercase())
    }, "expected origins as scheme://host[:port], comma separated (e.g. https://console.example.com), without a path")?;
    let allow_hosts = admin_http_list(r, "sluice.admin.http.allowHosts", |h| {
        (!h.contains(['/', '@', '?', '#'])).then(|| h.to_ascii_lowercase())
    }, "expected host names, host:port or addresses, comma separated (e.g. admin.example.com, admin.example.com:8089), without a scheme or path")?;
    Ok(Some(AdminHttpConfig {
        host,
        port,
        token,
        allow_origins,
        allow_hosts,
    }))
}

/// A comma-separated list of `sluice.admin.http.*`, each item checked by
/// `item` (which gives its normal form); a bad one is refused at its line.
fn admin_http_list(
    r: &Reader<'_>,
    key: &str,
    item: impl Fn(&str) -> Option<String>,
    expected: &str,
) -> Result<Vec<String>, ConfigError> {
    let mut out = Vec::new();
    for raw in r.list(key, "") {
        match (item(&raw), r.get(key)) {
            (Some(v), _) => out.push(v),
            (None, Some(p)) => return Err(r.bad(key, p, &format!("{raw:?}: {expected}"))),
            (None, None) => {}
        }
    }
    Ok(out)
}

/// When a destination reads the existing rows of its tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SnapshotMode {
    /// Only changes from the start position on (Canal's behaviour).
    #[default]
    Never,
    /// Every table the filters keep, once, while streaming; resumed after
    /// a restart until it is finished.
    Initial,
}

/// What a destination does when the binlog it must resume from is no
/// longer on the source (purged): `sluice.instance.onPurged`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnPurged {
    /// Stop with an error naming the position, the oldest binlog the
    /// source has and the ways out.
    #[default]
    Fail,
    /// Read the filtered tables again (the initial snapshot) and stream
    /// from the end of the binlog: Debezium's `when_needed`.
    Snapshot,
    /// Skip to the end of the binlog, logged as a loss with the range
    /// skipped: Canal's `canal.auto.reset.latest.pos.mode = true`.
    Latest,
}

/// How the snapshot reads a table that has a key to chunk by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SnapshotReads {
    /// One SELECT in key order per table, in a consistent snapshot, cut
    /// into chunks as its rows come (a new SELECT after a restart, or
    /// when the stream touched many keys or the read grew old). The
    /// source reads no range condition per row: the fastest way.
    #[default]
    Scan,
    /// One SELECT per chunk (`key > a AND key <= b`), each in a snapshot
    /// of its own, `parallelism` chunks of a table at once: no
    /// transaction stays open longer than a chunk's read.
    Ranges,
}

/// The initial snapshot's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotSettings {
    pub mode: SnapshotMode,
    pub reads: SnapshotReads,
    /// How long one scan's transaction may stay open before the scan
    /// starts again after its last chunk (an open read view holds back
    /// the source's purge of old row versions).
    pub scan_max_age: Duration,
    /// Rows read per chunk (one SELECT, one entry).
    pub chunk_size: usize,
    /// Chunk SELECTs running at once on the source, across tables and
    /// within one (a large table's parts with `scan`, chunks read ahead
    /// with `ranges`); also the tables read at once. 4 by default, as
    /// mydumper's threads: with fewer, a reader waiting on its socket
    /// leaves the source's cores idle.
    pub parallelism: usize,
}

impl Default for SnapshotSettings {
    fn default() -> Self {
        SnapshotSettings {
            mode: SnapshotMode::Never,
            reads: SnapshotReads::Scan,
            scan_max_age: Duration::from_secs(60),
            chunk_size: 8192,
            parallelism: 4,
        }
    }
}

/// Settings of one destination (`{destination}/instance.properties`, over the
/// `canal.instance.*` defaults of `canal.properties`).
#[derive(Debug, Clone)]
pub struct InstanceConfig {
    pub destination: String,
    /// 0 = derive one (see the source's documentation).
    pub slave_id: u32,
    pub gtid_on: bool,
    pub master_address: String,
    /// `sluice.instance.master.socket`: the source's Unix socket, when
    /// Sluice runs on its machine. Connections go there rather than over
    /// TCP; `canal.instance.master.address` still names the source in
    /// positions and messages.
    pub master_socket: Option<std::path::PathBuf>,
    pub master_journal_name: String,
    pub master_position: Option<u64>,
    /// Milliseconds since the epoch.
    pub master_timestamp: Option<i64>,
    pub master_gtid: String,
    pub standby_address: String,
    /// `sluice.instance.source.candidates`: more servers to resume on by
    /// GTID when the source is lost (host:port, comma separated), tried
    /// after `canal.instance.standby.address`.
    pub source_candidates: Vec<String>,
    /// How long the source may be unreachable before the candidates are
    /// tried: `sluice.instance.source.failoverAfter` (ms), else Canal's
    /// detecting interval times its retry threshold (3 s × 3).
    pub failover_after: Duration,
    /// The initial snapshot: `sluice.instance.snapshot.mode`,
    /// `.chunkSize`, `.parallelism`.
    pub snapshot: SnapshotSettings,
    /// `sluice.instance.onPurged` (`fail`, `snapshot` or `latest`; default
    /// `fail`, or `latest` with `canal.auto.reset.latest.pos.mode = true`).
    pub on_purged: OnPurged,
    pub db_username: String,
    pub db_password: String,
    /// `canal.instance.defaultDatabaseName`: the database the connections
    /// to the source start in (sent in the handshake, as Canal's connector
    /// does); empty: none. One the source does not have fails the connection.
    pub default_database_name: String,
    /// `canal.instance.connectionCharset`.
    pub connection_charset: ConnectionCharset,
    pub ssl_mode: SslMode,
    pub filter_regex: String,
    pub filter_black_regex: String,
    /// `canal.instance.filter.field`: the columns shown of each table it
    /// names (`db.table:col1/col2,...`).
    pub filter_field: Vec<FieldRule>,
    /// `canal.instance.filter.black.field`: the columns hidden of each
    /// table it names, same syntax.
    pub filter_black_field: Vec<FieldRule>,
    pub filter_query_dcl: bool,
    pub filter_query_dml: bool,
    pub filter_query_ddl: bool,
    pub filter_table_error: bool,
    pub filter_rows: bool,
    pub filter_transaction_entry: bool,
    pub filter_dml_insert: bool,
    pub filter_dml_update: bool,
    pub filter_dml_delete: bool,
    pub memory_buffer_size: usize,
    pub memory_buffer_memunit: usize,
    pub memory_batch_mode: BatchMode,
    pub memory_raw_entry: bool,
    pub transaction_size: usize,
    pub get_ddl_isolation: bool,
    /// `canal.instance.parser.parallel` (default true, as Canal): the
    /// entries of rows events are built on threads beside the reader;
    /// false builds them on the reader, one after the other.
    pub parser_parallel: bool,
    /// `sluice.instance.slowClient.detachAfter` (ms, default 5000; 0 =
    /// never): how long the store may stay full because of clients that do
    /// not ack, while another client is further on, before those clients
    /// are detached and served from a binlog stream of their own.
    pub slow_client_detach_after: Option<Duration>,
    pub binlog_formats: Vec<String>,
    /// `canal.instance.binlog.image`: the `binlog_row_image` values the
    /// source may have (`FULL`, `MINIMAL`, `NOBLOB`, upper case, each once).
    pub binlog_images: Vec<String>,
    pub tsdb_enable: bool,
    pub mq_topic: String,
    pub mq_dynamic_topic: String,
    pub mq_partition: Option<u32>,
    pub mq_partitions_num: Option<u32>,
    pub mq_partition_hash: String,
    /// `canal.mq.dynamicTopicPartitionNum`, as written: `topic:count`
    /// rules, each count checked to be a number from 1 to 2147483647.
    pub mq_dynamic_topic_partition_num: String,
    /// `canal.mq.enableDynamicQueuePartition` (default false; RocketMQ).
    pub mq_enable_dynamic_queue_partition: bool,
    pub raw: Properties,
    pub warnings: Vec<String>,
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|cause| ConfigError::Read {
        path: path.to_path_buf(),
        cause,
    })
}

/// One table's part of a column filter (`canal.instance.filter.field`,
/// `.black.field`, `sluice tail --columns`): `db.table` as written and
/// its columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRule {
    pub table: String,
    pub columns: Vec<String>,
}

/// Parses Canal's column filter syntax, `db.table:col1/col2,db2.table2:col3`
/// (spaces around names ignored, empty rules between commas skipped).
/// Canal itself skips a rule it cannot read; here it is an error saying
/// which rule and why, as is a table named twice.
pub fn parse_field_rules(text: &str) -> Result<Vec<FieldRule>, String> {
    const SYNTAX: &str = "expected db.table:col1/col2,db2.table2:col3";
    let mut rules: Vec<FieldRule> = Vec::new();
    for rule in text.split(',').map(str::trim).filter(|r| !r.is_empty()) {
        let bad = |why: &str| format!("rule {rule:?}: {why}; {SYNTAX}");
        let Some((table, columns)) = rule.split_once(':') else {
            return Err(bad("no ':' between the table and its columns"));
        };
        if columns.contains(':') {
            return Err(bad("more than one ':'"));
        }
        let table = table.trim();
        match table.split_once('.') {
            Some((db, name)) if !db.trim().is_empty() && !name.trim().is_empty() => {}
            _ => return Err(bad("the table is not db.table")),
        }
        let columns: Vec<String> = columns.split('/').map(|c| c.trim().to_string()).collect();
        if columns.iter().any(String::is_empty) {
            return Err(bad("an empty column name"));
        }
        if let Some(first) = rules
            .iter()
            .find(|r| r.table.to_uppercase() == table.to_uppercase())
        {
            return Err(bad(&format!(
                "{} is named twice (also as {:?}); list its columns once",
                table, first.table
            )));
        }
        rules.push(FieldRule {
            table: table.to_string(),
            columns,
        });
    }
    Ok(rules)
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

/// `canal.instance.connectionCharset`: the UTF-8 names Java and MySQL
/// use; anything else is refused at its line.
fn connection_charset(r: &Reader<'_>) -> Result<ConnectionCharset, ConfigError> {
    let key = "canal.instance.connectionCharset";
    match r.get(key) {
        Some(p) if !p.value.trim().is_empty() => {
            let v = p.value.trim();
            if ["UTF-8", "UTF8", "utf8mb4", "utf8mb3"]
                .iter()
                .any(|n| n.eq_ignore_ascii_case(v))
            {
                Ok(ConnectionCharset::Utf8mb4)
            } else {
                Err(r.bad(
                    key,
                    p,
                    "expected UTF-8 (or utf8mb4): Sluice speaks utf8mb4 to the source and decodes each text column in its own character set (utf8, utf8mb4, latin1, ucs2, utf16, utf32; text in another is passed on when it is valid UTF-8, else as hex), so no other connection charset is supported; set UTF-8 or remove the key",
                ))
            }
        }
        _ => Ok(ConnectionCharset::default()),
    }
}

/// `sluice.binlog.maxEventSize` default: 256 MiB (sluice-binlog's default ceiling).
pub const DEFAULT_BINLOG_MAX_EVENT_SIZE: usize = 256 << 20;
/// Its highest value: MySQL's largest `max_allowed_packet`.
const MAX_BINLOG_MAX_EVENT_SIZE: usize = 1 << 30;

/// `canal.admin.*`: `None` unless `canal.admin.port` is set. Canal's stock
/// canal.properties sets the port and user with an empty password, which
/// Canal serves to anyone; Sluice does not serve it then, and says so once,
/// where the port is set (a warning, so that the stock file still starts a
/// server). A password that is not 40 hex digits is refused.
fn admin_tcp(r: &Reader<'_>) -> Result<(Option<AdminTcpConfig>, Option<String>), ConfigError> {
    let Some(port) = r.optional::<u16>("canal.admin.port", "expected a TCP port (0-65535)")? else {
        return Ok((None, None));
    };
    let user = r.string("canal.admin.user", "");
    let passwd = r.string("canal.admin.passwd", "");
    if passwd.is_empty() {
        let line = r.get("canal.admin.port").map_or(0, |p| p.line);
        return Ok((
            None,
            Some(format!(
                "{}:{line}: canal.admin.port = {port} but canal.admin.passwd is empty: the admin port (canal-admin) is not served, as anyone could stop destinations through it; set canal.admin.passwd to the hex SHA1(SHA1(password)) to serve it",
                r.path.display()
            )),
        ));
    }
    if passwd.len() != 40 || !passwd.chars().all(|c| c.is_ascii_hexdigit()) {
        if let Some(p) = r.get("canal.admin.passwd") {
            return Err(r.bad(
                "canal.admin.passwd",
                p,
                "expected 40 hex digits: SHA1(SHA1(password)), e.g. SELECT SHA1(UNHEX(SHA1('secret')))",
            ));
        }
    }
    Ok((Some(AdminTcpConfig { port, user, passwd }), None))
}

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
        let spring = r.string(
            "canal.instance.global.spring.xml",
            "classpath:spring/file-instance.xml",
        );
        let meta_mode = if spring.contains("memory-instance") {
            MetaMode::Memory
        } else if spring.contains("default-instance") {
            MetaMode::ZooKeeper
        } else {
            MetaMode::File
        };
        // Relative folders are taken from the folder of canal.properties, not
        // the working directory: Canal's stock `canal.conf.dir = ../conf`
        // then names the conf folder wherever the server is started from.
        let conf_dir = r
            .path_from("canal.conf.dir", dir)
            .unwrap_or_else(|| dir.to_path_buf());
        let (admin_tcp, admin_tcp_warning) = admin_tcp(&r)?;
        let cfg = ServerConfig {
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
            admin_tcp,
            admin_http: admin_http(&r)?,
            log_files: None,
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
            zookeeper_auth: zookeeper_auth(&r, &conf_dir)?,
            zookeeper_acl: r.choice(
                "sluice.zookeeper.acl",
                ZooKeeperAcl::CreatorAllWorldRead,
                &[
                    ("creator-all-world-read", ZooKeeperAcl::CreatorAllWorldRead),
                    ("creator-all", ZooKeeperAcl::CreatorAll),
                ],
            )?,
            binlog_max_event_size: r.parse(
                "sluice.binlog.maxEventSize",
                DEFAULT_BINLOG_MAX_EVENT_SIZE,
                "expected a number of bytes",
            )?,
            file_data_dir: r
                .path_from("canal.file.data.dir", dir)
                .unwrap_or_else(|| conf_dir.clone()),
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
            server_mode: r.choice(
                "canal.serverMode",
                ServerMode::Tcp,
                &[
                    ("tcp", ServerMode::Tcp),
                    ("kafka", ServerMode::Kafka),
                    ("rocketMQ", ServerMode::RocketMq),
                    ("rabbitMQ", ServerMode::RabbitMq),
                    ("pulsarMQ", ServerMode::PulsarMq),
                ],
            )?,
            mq: r.mq_server()?,
            lazy: r.bool("canal.instance.global.lazy", false)?,
            meta_mode,
            conf_dir,
            instance_defaults: props
                .entries
                .iter()
                .filter(|(k, _)| {
                    ["canal.instance.", "canal.mq.", "sluice.instance."]
                        .iter()
                        .any(|p| k.starts_with(p))
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            warnings: keys::check(path, &props, keys::Scope::Server)?
                .into_iter()
                .chain(admin_tcp_warning)
                .collect(),
            raw: without_secrets(&props),
            path: path.to_path_buf(),
        };
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
                path: path.to_path_buf(),
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

impl InstanceConfig {
    /// Reads `conf_dir/{destination}/instance.properties` over the server's defaults.
    pub fn load(server: &ServerConfig, destination: &str) -> Result<InstanceConfig, ConfigError> {
        let path = server
            .conf_dir
            .join(destination)
            .join("instance.properties");
        let mut props = Properties::parse(&read(&path)?);
        let vars = HashMap::from([
            (
                "canal.conf.dir".to_string(),
                server.conf_dir.display().to_string(),
            ),
            (
                "canal.instance.destination".to_string(),
                destination.to_string(),
            ),
        ]);
        props.resolve_placeholders(&vars);
        let purged_key = "sluice.instance.onPurged";
        let purged_set =
            props.get(purged_key).is_some() || server.instance_defaults.contains_key(purged_key);
        let mut config =
            Self::from_properties(&path, destination, props, Some(&server.instance_defaults))?;
        if !purged_set && server.auto_reset_latest_pos_mode {
            config.on_purged = OnPurged::Latest;
        }
        Ok(config)
    }

    pub fn from_properties(
        path: &Path,
        destination: &str,
        props: Properties,
        defaults: Option<&HashMap<String, Property>>,
    ) -> Result<InstanceConfig, ConfigError> {
        let r = Reader {
            path,
            primary: &props,
            fallback: defaults,
        };
        let master_address = r.string("canal.instance.master.address", "");
        if master_address.is_empty() {
            return Err(ConfigError::Missing {
                path: path.to_path_buf(),
                key: "canal.instance.master.address".into(),
                hint: "set it to the source database as host:port, e.g. 127.0.0.1:3306".into(),
            });
        }
        if !master_address.contains(':') {
            let p = props
                .get("canal.instance.master.address")
                .cloned()
                .unwrap_or(Property {
                    value: master_address.clone(),
                    line: 0,
                });
            return Err(r.bad("canal.instance.master.address", &p, "expected host:port"));
        }
        let standby_address = r.string("canal.instance.standby.address", "");
        let source_candidates = r.list("sluice.instance.source.candidates", "");
        for (key, addr) in std::iter::once(("canal.instance.standby.address", &standby_address))
            .filter(|(_, a)| !a.is_empty())
            .chain(
                source_candidates
                    .iter()
                    .map(|a| ("sluice.instance.source.candidates", a)),
            )
        {
            let port_ok = addr
                .rsplit_once(':')
                .is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok());
            if !port_ok {
                let p = props.get(key).cloned().unwrap_or(Property {
                    value: addr.clone(),
                    line: 0,
                });
                return Err(r.bad(key, &p, "expected host:port (comma separated for a list)"));
            }
        }
        let detect_interval: u64 = r.parse(
            "canal.instance.detecting.interval.time",
            3,
            "expected seconds",
        )?;
        let detect_retries: u64 = r.parse(
            "canal.instance.detecting.retry.threshold",
            3,
            "expected a number of failed checks",
        )?;
        let failover_after = match r.optional::<u64>(
            "sluice.instance.source.failoverAfter",
            "expected milliseconds",
        )? {
            Some(ms) => Duration::from_millis(ms),
            None => Duration::from_secs(detect_interval.saturating_mul(detect_retries)),
        };
        let on_purged = r.choice(
            "sluice.instance.onPurged",
            OnPurged::Fail,
            &[
                ("fail", OnPurged::Fail),
                ("snapshot", OnPurged::Snapshot),
                ("latest", OnPurged::Latest),
            ],
        )?;
        let defaults = SnapshotSettings::default();
        let snapshot = SnapshotSettings {
            mode: r.choice(
                "sluice.instance.snapshot.mode",
                defaults.mode,
                &[
                    ("never", SnapshotMode::Never),
                    ("initial", SnapshotMode::Initial),
                ],
            )?,
            reads: r.choice(
                "sluice.instance.snapshot.reads",
                defaults.reads,
                &[
                    ("scan", SnapshotReads::Scan),
                    ("ranges", SnapshotReads::Ranges),
                ],
            )?,
            scan_max_age: Duration::from_secs(r.parse(
                "sluice.instance.snapshot.scanSeconds",
                defaults.scan_max_age.as_secs(),
                "expected seconds (1 or more)",
            )?),
            chunk_size: r.parse(
                "sluice.instance.snapshot.chunkSize",
                defaults.chunk_size,
                "expected a number of rows (1 or more)",
            )?,
            parallelism: r.parse(
                "sluice.instance.snapshot.parallelism",
                defaults.parallelism,
                "expected a number of tables read at once (1 or more)",
            )?,
        };
        for (key, n) in [
            ("sluice.instance.snapshot.chunkSize", snapshot.chunk_size),
            ("sluice.instance.snapshot.parallelism", snapshot.parallelism),
            (
                "sluice.instance.snapshot.scanSeconds",
                snapshot.scan_max_age.as_secs() as usize,
            ),
        ] {
            if n == 0 {
                if let Some(p) = props.get(key) {
                    return Err(r.bad(key, p, "expected 1 or more"));
                }
            }
        }
        Ok(InstanceConfig {
            destination: destination.to_string(),
            slave_id: r.parse(
                "canal.instance.mysql.slaveId",
                0,
                "expected a server id (0-4294967295)",
            )?,
            gtid_on: r.bool("canal.instance.gtidon", false)?,
            master_address,
            master_socket: Some(r.string("sluice.instance.master.socket", ""))
                .filter(|s| !s.is_empty())
                .map(std::path::PathBuf::from),
            master_journal_name: r.string("canal.instance.master.journal.name", ""),
            master_position: r
                .optional("canal.instance.master.position", "expected a byte offset")?,
            master_timestamp: r.optional(
                "canal.instance.master.timestamp",
                "expected milliseconds since the epoch",
            )?,
            master_gtid: r.string("canal.instance.master.gtid", ""),
            standby_address,
            source_candidates,
            failover_after,
            snapshot,
            on_purged,
            db_username: r.string("canal.instance.dbUsername", ""),
            db_password: r.string("canal.instance.dbPassword", ""),
            default_database_name: r.string("canal.instance.defaultDatabaseName", ""),
            connection_charset: connection_charset(&r)?,
            ssl_mode: r.choice(
                "canal.instance.master.sslMode",
                SslMode::Preferred,
                &[
                    ("DISABLED", SslMode::Disabled),
                    ("PREFERRED", SslMode::Preferred),
                    ("REQUIRED", SslMode::Required),
                    ("VERIFY_CA", SslMode::VerifyCa),
                    ("VERIFY_IDENTITY", SslMode::VerifyIdentity),
                ],
            )?,
            filter_regex: r.string("canal.instance.filter.regex", ".*\\..*"),
            filter_black_regex: r.string("canal.instance.filter.black.regex", ""),
            filter_field: r.field_rules("canal.instance.filter.field")?,
            filter_black_field: r.field_rules("canal.instance.filter.black.field")?,
            filter_query_dcl: r.bool("canal.instance.filter.query.dcl", false)?,
            filter_query_dml: r.bool("canal.instance.filter.query.dml", false)?,
            filter_query_ddl: r.bool("canal.instance.filter.query.ddl", false)?,
            filter_table_error: r.bool("canal.instance.filter.table.error", false)?,
            filter_rows: r.bool("canal.instance.filter.rows", false)?,
            filter_transaction_entry: r.bool("canal.instance.filter.transaction.entry", false)?,
            filter_dml_insert: r.bool("canal.instance.filter.dml.insert", false)?,
            filter_dml_update: r.bool("canal.instance.filter.dml.update", false)?,
            filter_dml_delete: r.bool("canal.instance.filter.dml.delete", false)?,
            memory_buffer_size: r.parse(
                "canal.instance.memory.buffer.size",
                16384,
                "expected a number of entries",
            )?,
            memory_buffer_memunit: r.parse(
                "canal.instance.memory.buffer.memunit",
                1024,
                "expected bytes",
            )?,
            memory_batch_mode: r.choice(
                "canal.instance.memory.batch.mode",
                BatchMode::MemSize,
                &[
                    ("MEMSIZE", BatchMode::MemSize),
                    ("ITEMSIZE", BatchMode::ItemSize),
                ],
            )?,
            memory_raw_entry: r.bool("canal.instance.memory.rawEntry", true)?,
            transaction_size: r.parse(
                "canal.instance.transaction.size",
                1024,
                "expected a number of entries",
            )?,
            get_ddl_isolation: r.bool("canal.instance.get.ddl.isolation", false)?,
            parser_parallel: r.bool("canal.instance.parser.parallel", true)?,
            slow_client_detach_after: match r.parse(
                "sluice.instance.slowClient.detachAfter",
                5000u64,
                "expected milliseconds (0: never)",
            )? {
                0 => None,
                ms => Some(Duration::from_millis(ms)),
            },
            binlog_formats: r.list("canal.instance.binlog.format", "ROW,STATEMENT,MIXED"),
            binlog_images: r.list_of(
                "canal.instance.binlog.image",
                "FULL,MINIMAL,NOBLOB",
                &["FULL", "MINIMAL", "NOBLOB"],
            )?,
            tsdb_enable: r.bool("canal.instance.tsdb.enable", true)?,
            mq_topic: r.string("canal.mq.topic", ""),
            mq_dynamic_topic: r.string("canal.mq.dynamicTopic", ""),
            mq_partition: r.optional_java_int(
                "canal.mq.partition",
                0,
                "expected a partition number (0 to 2147483647)",
            )?,
            mq_partitions_num: r.optional_java_int(
                "canal.mq.partitionsNum",
                1,
                "expected a number of partitions (1 to 2147483647)",
            )?,
            mq_partition_hash: r.string("canal.mq.partitionHash", ""),
            mq_dynamic_topic_partition_num: r.topic_partition_counts()?,
            mq_enable_dynamic_queue_partition: r
                .bool("canal.mq.enableDynamicQueuePartition", false)?,
            warnings: keys::check(path, &props, keys::Scope::Instance)?,
            raw: props,
        })
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_keys;
