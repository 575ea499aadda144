//! One destination's settings (`{destination}/instance.properties` over
//! the `canal.instance.*` defaults of `canal.properties`): [`InstanceConfig`]
//! and the types of its keys, read in named groups (addresses, position,
//! login, filters, store, MQ).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::destinations::DestinationsConfig;
use crate::field_rules::FieldRule;
use crate::keys;
use crate::reader::Reader;
use crate::snapshot::{on_purged, snapshot_settings, OnPurged, SnapshotSettings};
use crate::{read, ConfigError, Properties, Property};

/// How a GET's `fetch_size` limits a batch
/// (`canal.instance.memory.batch.mode`); the store's own setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchMode {
    /// At most `fetch_size` entries.
    ItemSize,
    /// Entries while their bytes stay within `fetch_size × mem_unit` (at least one).
    MemSize,
}

impl BatchMode {
    /// Canal's name of the mode.
    pub fn as_str(self) -> &'static str {
        match self {
            BatchMode::MemSize => "MEMSIZE",
            BatchMode::ItemSize => "ITEMSIZE",
        }
    }
}

/// TLS to the source (`canal.instance.master.sslMode`), MySQL Connector/J's
/// values; the replication client's own setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SslMode {
    Disabled,
    /// TLS when the server offers it, unverified (Canal's and MySQL's default).
    #[default]
    Preferred,
    Required,
    VerifyCa,
    VerifyIdentity,
}

impl SslMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SslMode::Disabled => "DISABLED",
            SslMode::Preferred => "PREFERRED",
            SslMode::Required => "REQUIRED",
            SslMode::VerifyCa => "VERIFY_CA",
            SslMode::VerifyIdentity => "VERIFY_IDENTITY",
        }
    }

    /// Whether the connection must fail rather than continue without TLS.
    pub fn requires_tls(self) -> bool {
        !matches!(self, SslMode::Disabled | SslMode::Preferred)
    }
}

impl std::fmt::Display for SslMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The spellings a source URL's `sslmode` takes (`sluice tail --source`):
/// Connector/J's and libpq's names, any case.
impl std::str::FromStr for SslMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s.to_ascii_uppercase().replace('-', "_").as_str() {
            "DISABLED" | "DISABLE" | "FALSE" => SslMode::Disabled,
            "PREFERRED" | "PREFER" => SslMode::Preferred,
            "REQUIRED" | "REQUIRE" | "TRUE" => SslMode::Required,
            "VERIFY_CA" => SslMode::VerifyCa,
            "VERIFY_IDENTITY" | "VERIFY_FULL" => SslMode::VerifyIdentity,
            _ => {
                return Err(format!(
                    "unknown sslMode '{s}': use DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY"
                ))
            }
        })
    }
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

impl InstanceConfig {
    /// Reads `conf_dir/{destination}/instance.properties` over the server's defaults.
    pub fn load(
        server: &DestinationsConfig,
        destination: &str,
    ) -> Result<InstanceConfig, ConfigError> {
        let path = server.instance_properties(destination);
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
        let addresses = SourceAddresses::read(&r, &props)?;
        let failover_after = failover_after(&r)?;
        let on_purged = on_purged(&r)?;
        let snapshot = snapshot_settings(&r, &props)?;
        let source = SourceKeys::read(&r)?;
        let login = LoginKeys::read(&r)?;
        let filters = FilterKeys::read(&r)?;
        let store = StoreKeys::read(&r)?;
        let mq = MqKeys::read(&r)?;
        Ok(InstanceConfig {
            destination: destination.to_string(),
            slave_id: source.slave_id,
            gtid_on: source.gtid_on,
            master_address: addresses.master_address,
            master_socket: source.master_socket,
            master_journal_name: source.master_journal_name,
            master_position: source.master_position,
            master_timestamp: source.master_timestamp,
            master_gtid: source.master_gtid,
            standby_address: addresses.standby_address,
            source_candidates: addresses.source_candidates,
            failover_after,
            snapshot,
            on_purged,
            db_username: login.db_username,
            db_password: login.db_password,
            default_database_name: login.default_database_name,
            connection_charset: login.connection_charset,
            ssl_mode: login.ssl_mode,
            filter_regex: filters.filter_regex,
            filter_black_regex: filters.filter_black_regex,
            filter_field: filters.filter_field,
            filter_black_field: filters.filter_black_field,
            filter_query_dcl: filters.filter_query_dcl,
            filter_query_dml: filters.filter_query_dml,
            filter_query_ddl: filters.filter_query_ddl,
            filter_table_error: filters.filter_table_error,
            filter_rows: filters.filter_rows,
            filter_transaction_entry: filters.filter_transaction_entry,
            filter_dml_insert: filters.filter_dml_insert,
            filter_dml_update: filters.filter_dml_update,
            filter_dml_delete: filters.filter_dml_delete,
            memory_buffer_size: store.memory_buffer_size,
            memory_buffer_memunit: store.memory_buffer_memunit,
            memory_batch_mode: store.memory_batch_mode,
            memory_raw_entry: store.memory_raw_entry,
            transaction_size: store.transaction_size,
            get_ddl_isolation: store.get_ddl_isolation,
            parser_parallel: store.parser_parallel,
            slow_client_detach_after: store.slow_client_detach_after,
            binlog_formats: store.binlog_formats,
            binlog_images: store.binlog_images,
            tsdb_enable: store.tsdb_enable,
            mq_topic: mq.mq_topic,
            mq_dynamic_topic: mq.mq_dynamic_topic,
            mq_partition: mq.mq_partition,
            mq_partitions_num: mq.mq_partitions_num,
            mq_partition_hash: mq.mq_partition_hash,
            mq_dynamic_topic_partition_num: mq.mq_dynamic_topic_partition_num,
            mq_enable_dynamic_queue_partition: mq.mq_enable_dynamic_queue_partition,
            warnings: keys::check(path, &props, keys::Scope::Instance)?,
            raw: props,
        })
    }
}

/// The source's address and the servers to fail over to, each host:port.
struct SourceAddresses {
    master_address: String,
    standby_address: String,
    source_candidates: Vec<String>,
}

impl SourceAddresses {
    /// `canal.instance.master.address` (required), `.standby.address` and
    /// `sluice.instance.source.candidates`.
    fn read(r: &Reader<'_>, props: &Properties) -> Result<SourceAddresses, ConfigError> {
        let master_address = r.string("canal.instance.master.address", "");
        if master_address.is_empty() {
            return Err(ConfigError::Missing {
                path: r.path.to_path_buf(),
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
        Ok(SourceAddresses {
            master_address,
            standby_address,
            source_candidates,
        })
    }
}

/// How long the source may be unreachable before the candidates are tried.
fn failover_after(r: &Reader<'_>) -> Result<Duration, ConfigError> {
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
    Ok(
        match r.optional::<u64>(
            "sluice.instance.source.failoverAfter",
            "expected milliseconds",
        )? {
            Some(ms) => Duration::from_millis(ms),
            None => Duration::from_secs(detect_interval.saturating_mul(detect_retries)),
        },
    )
}

/// Where reading starts: the replica's id, GTID mode, socket and position.
struct SourceKeys {
    slave_id: u32,
    gtid_on: bool,
    master_socket: Option<PathBuf>,
    master_journal_name: String,
    master_position: Option<u64>,
    master_timestamp: Option<i64>,
    master_gtid: String,
}

impl SourceKeys {
    /// `canal.instance.mysql.slaveId`, `.gtidon`, `.master.*` and
    /// `sluice.instance.master.socket`.
    fn read(r: &Reader<'_>) -> Result<SourceKeys, ConfigError> {
        Ok(SourceKeys {
            slave_id: r.parse(
                "canal.instance.mysql.slaveId",
                0,
                "expected a server id (0-4294967295)",
            )?,
            gtid_on: r.bool("canal.instance.gtidon", false)?,
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
        })
    }
}

/// How the connections to the source log in.
struct LoginKeys {
    db_username: String,
    db_password: String,
    default_database_name: String,
    connection_charset: ConnectionCharset,
    ssl_mode: SslMode,
}

impl LoginKeys {
    /// `canal.instance.dbUsername`, `.dbPassword`, `.defaultDatabaseName`,
    /// `.connectionCharset` and `.master.sslMode`.
    fn read(r: &Reader<'_>) -> Result<LoginKeys, ConfigError> {
        Ok(LoginKeys {
            db_username: r.string("canal.instance.dbUsername", ""),
            db_password: r.string("canal.instance.dbPassword", ""),
            default_database_name: r.string("canal.instance.defaultDatabaseName", ""),
            connection_charset: connection_charset(r)?,
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
        })
    }
}

/// Which tables, columns and events pass.
struct FilterKeys {
    filter_regex: String,
    filter_black_regex: String,
    filter_field: Vec<FieldRule>,
    filter_black_field: Vec<FieldRule>,
    filter_query_dcl: bool,
    filter_query_dml: bool,
    filter_query_ddl: bool,
    filter_table_error: bool,
    filter_rows: bool,
    filter_transaction_entry: bool,
    filter_dml_insert: bool,
    filter_dml_update: bool,
    filter_dml_delete: bool,
}

impl FilterKeys {
    /// `canal.instance.filter.*`.
    fn read(r: &Reader<'_>) -> Result<FilterKeys, ConfigError> {
        Ok(FilterKeys {
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
        })
    }
}

/// The store's size and batches, the parser and the binlog it accepts.
struct StoreKeys {
    memory_buffer_size: usize,
    memory_buffer_memunit: usize,
    memory_batch_mode: BatchMode,
    memory_raw_entry: bool,
    transaction_size: usize,
    get_ddl_isolation: bool,
    parser_parallel: bool,
    slow_client_detach_after: Option<Duration>,
    binlog_formats: Vec<String>,
    binlog_images: Vec<String>,
    tsdb_enable: bool,
}

impl StoreKeys {
    /// `canal.instance.memory.*`, `.transaction.size`, `.get.ddl.isolation`,
    /// `.parser.parallel`, `sluice.instance.slowClient.detachAfter`,
    /// `canal.instance.binlog.*` and `.tsdb.enable`.
    fn read(r: &Reader<'_>) -> Result<StoreKeys, ConfigError> {
        Ok(StoreKeys {
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
        })
    }
}

/// Where MQ mode publishes the destination's messages.
struct MqKeys {
    mq_topic: String,
    mq_dynamic_topic: String,
    mq_partition: Option<u32>,
    mq_partitions_num: Option<u32>,
    mq_partition_hash: String,
    mq_dynamic_topic_partition_num: String,
    mq_enable_dynamic_queue_partition: bool,
}

impl MqKeys {
    /// The destination's `canal.mq.*`.
    fn read(r: &Reader<'_>) -> Result<MqKeys, ConfigError> {
        Ok(MqKeys {
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
        })
    }
}
