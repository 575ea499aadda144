//! The engine's configuration, read from Debezium's property names so that
//! a Debezium engine's `Properties` carry over: `name`, `topic.prefix`,
//! `database.*`, the include/exclude lists (databases, tables and
//! `column.include.list` / `column.exclude.list`), the column masks
//! (`column.mask.with.N.chars`, `column.mask.hash[.v2].ALGORITHM.with.salt.SALT`),
//! `snapshot.mode`, `offset.storage*`, `schema.history.internal*` (and the
//! older `database.history*`), `offset.flush.interval.ms`, `max.batch.size`,
//! the converter options; plus Sluice's own `sluice.*` keys and the leader
//! latch's `leader.latch.*` keys.
//!
//! Every documented property is accepted with every other: one that the
//! others make moot (`snapshot.mode` beside `sluice.start`, ...) is named in
//! [`EngineConfig::warnings`], never refused; a wrong value or an unknown
//! property is an error naming it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use std::sync::Arc;

use regex::Regex;
use sluice_encode::debezium::{ColumnMasks, DebeziumColumnRules, DebeziumOptions};
use sluice_events::{ColumnRules, Statement};
use sluice_instance::stream::ChangeFilter;
use sluice_source::conn::ConnectOptions;
use sluice_source::position::StartPosition;

use crate::EngineError;

/// Where committed offsets are kept (`offset.storage`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OffsetStorage {
    /// In memory: lost when the process ends (`MemoryOffsetBackingStore`).
    Memory,
    /// Kafka's `FileOffsetBackingStore` file (`offset.storage.file.filename`).
    File(PathBuf),
    /// One ZooKeeper node (`offset.storage.zookeeper.connect.string`,
    /// `offset.storage.zookeeper.path`).
    ZooKeeper { servers: String, path: String },
}

/// Where the schema history is kept (`schema.history.internal`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryStorage {
    Memory,
    /// Debezium's `FileSchemaHistory` file
    /// (`schema.history.internal.file.filename`).
    File(PathBuf),
    /// Persistent sequential children of a ZooKeeper node
    /// (`schema.history.internal.zookeeper.connect.string`, `.path`).
    ZooKeeper {
        servers: String,
        path: String,
    },
}

/// When staged offsets are written (`offset.commit.policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitPolicy {
    /// After every batch.
    Always,
    /// At the end of the first batch this long after the last commit
    /// (`offset.flush.interval.ms`, default 60 s).
    Periodic(Duration),
}

impl CommitPolicy {
    pub fn due(&self, since_last: Duration) -> bool {
        match self {
            CommitPolicy::Always => true,
            CommitPolicy::Periodic(every) => since_last >= *every,
        }
    }
}

/// The leader latch the engine's processes share (`leader.latch.*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatchSettings {
    /// `leader.latch.zookeeper.connect.string`.
    pub servers: String,
    /// `leader.latch.path`, default `/leader`.
    pub path: String,
    /// `leader.latch.id`: this participant's id, stored in its node.
    pub id: String,
    /// `leader.latch.session.timeout.ms`, default 10 s.
    pub session_timeout: Duration,
}

/// Where the stream starts when no offset is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartAt {
    /// Debezium's `initial` (and `when_needed`): without a committed
    /// offset, every existing row of the selected tables as an `op:"r"`
    /// record, beside the stream from the end of the binlog (see
    /// `snapshot.fetch.size`); with one, the stream from there (and the
    /// snapshot from where the offset says it was, if it had not ended).
    Initial,
    /// `no_data` (`schema_only`): only changes from now on.
    Latest,
    /// `never`: the binlog from its oldest file.
    Earliest,
    /// `sluice.start`: a position (`FILE:POS`, `gtid:SET`, `time:...`).
    Position(StartPosition),
}

/// Everything an engine needs but the application's consumer.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// `name`: the engine's name, the first part of its offset key.
    pub name: String,
    pub connect: ConnectOptions,
    /// `database.server.id`: this replica's id (derived when absent).
    pub server_id: Option<u32>,
    pub start: StartAt,
    pub tables: TableSelection,
    /// `column.include.list` / `column.exclude.list`: the columns records
    /// show (the key keeps every primary-key column, as Debezium's).
    pub columns: DebeziumColumnRules,
    /// The Debezium output's options, the column masks among them.
    pub debezium: DebeziumOptions,
    pub offsets: OffsetStorage,
    pub history: HistoryStorage,
    pub commit_policy: CommitPolicy,
    /// `max.batch.size` (default 2048): most records per consumer call.
    pub max_batch_size: usize,
    /// `snapshot.fetch.size` (default 1024): rows per chunk of the initial
    /// snapshot, each chunk read in a consistent snapshot of its own and
    /// the unit a restart resumes after (`incremental.snapshot.chunk.size`
    /// is read when it is absent). A table without a primary key (or NOT
    /// NULL unique key) is read whole.
    pub snapshot_chunk_size: usize,
    /// `sluice.encode.threads` (default 1): threads encoding records; with
    /// more than one the order of records stays the binlog's.
    pub encode_threads: usize,
    pub latch: Option<LatchSettings>,
    /// `offset.storage.zookeeper.session.timeout.ms` and the history's,
    /// for the stores' own sessions (default 10 s).
    pub store_session_timeout: Duration,
    /// `include.schema.changes` (default true): a schema change record to
    /// `topic.prefix` for every DDL statement (JSON records only).
    pub include_schema_changes: bool,
    /// `heartbeat.interval.ms` (default 0, none): a heartbeat record at the
    /// end of the first transaction read this long after the last one, so
    /// offsets move on while only changes the engine does not deliver
    /// happen.
    pub heartbeat_interval: Option<Duration>,
    /// `topic.heartbeat.prefix` (default `__debezium-heartbeat`): heartbeat
    /// records go to `<prefix>.<topic.prefix>`.
    pub heartbeat_topic_prefix: String,
    /// Properties set that do not apply with the others, each named with
    /// why (the engine logs them, one line each, when it is built).
    pub warnings: Vec<String>,
}

impl EngineConfig {
    /// The column rules of the change stream and the snapshot, `None`
    /// without `column.include.list` and `column.exclude.list`.
    pub fn column_rules(&self) -> Option<Arc<dyn ColumnRules>> {
        (!self.columns.is_empty()).then(|| Arc::new(self.columns.clone()) as Arc<dyn ColumnRules>)
    }
}

/// The properties the Debezium encoder takes as they are.
const ENCODER_PROPERTIES: &[&str] = &[
    "topic.prefix",
    "connector",
    "version",
    "converter.schemas.enable",
    "value.converter.schemas.enable",
    "decimal.handling.mode",
    "converter.decimal.format",
    "value.converter.decimal.format",
    "bigint.unsigned.handling.mode",
    "binary.handling.mode",
    "time.precision.mode",
    "tombstones.on.delete",
    "skipped.operations",
    "provide.transaction.metadata",
];

/// Every property the engine reads (besides the mask properties, whose
/// names carry their settings): one set but not read because the others
/// make it moot is a warning, never an error.
const DOCUMENTED_PROPERTIES: &[&str] = &[
    "name",
    "database.hostname",
    "database.port",
    "database.user",
    "database.password",
    "database.server.id",
    "database.include.list",
    "database.exclude.list",
    "table.include.list",
    "table.exclude.list",
    "column.include.list",
    "column.exclude.list",
    "snapshot.mode",
    "snapshot.fetch.size",
    "incremental.snapshot.chunk.size",
    "sluice.start",
    "sluice.encode.threads",
    "offset.storage",
    "offset.storage.file.filename",
    "offset.storage.zookeeper.connect.string",
    "offset.storage.zookeeper.path",
    "offset.storage.zookeeper.session.timeout.ms",
    "offset.storage.zookeeper.connection.timeout.ms",
    "schema.history.internal",
    "schema.history.internal.file.filename",
    "schema.history.internal.zookeeper.connect.string",
    "schema.history.internal.zookeeper.path",
    "schema.history.internal.zookeeper.session.timeout.ms",
    "schema.history.internal.zookeeper.connection.timeout.ms",
    "offset.flush.interval.ms",
    "offset.commit.policy",
    "max.batch.size",
    "heartbeat.interval.ms",
    "topic.heartbeat.prefix",
    "include.schema.changes",
    "leader.latch.zookeeper.connect.string",
    "leader.latch.path",
    "leader.latch.id",
    "leader.latch.session.timeout.ms",
];

/// Properties read and not used (they configure Java classes or features
/// with a fixed behaviour here); accepted so Debezium files load.
const IGNORED_PROPERTIES: &[&str] = &[
    "connector.class",
    "offset.flush.timeout.ms",
    "key.converter.schemas.enable",
    "record.processing.order",
    "record.processing.threads",
    "errors.max.retries",
    "database.ssl.mode",
];

impl EngineConfig {
    /// A configuration from a Java `.properties` file of Debezium
    /// properties (see [`EngineConfig::from_properties`]).
    pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<EngineConfig, EngineError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| EngineError::Config {
            property: path.display().to_string(),
            message: format!("cannot read the properties file: {e}"),
        })?;
        let mut props = sluice_config::properties::Properties::parse(&text);
        props.resolve_placeholders(&std::env::vars().collect());
        EngineConfig::from_properties(
            props
                .order
                .iter()
                .filter_map(|k| props.get(k).map(|p| (k.clone(), p.value.clone()))),
        )
    }

    /// A configuration from Debezium properties. Unknown properties are an
    /// error naming them (a misspelt key would otherwise be ignored); known
    /// ones that do not apply with the others are warnings.
    pub fn from_properties<K, V>(
        properties: impl IntoIterator<Item = (K, V)>,
    ) -> Result<EngineConfig, EngineError>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut r = Reading::new(properties);
        let name = required("name", r.get("name"))?;
        let (connect, server_id) = r.connection()?;
        let start = r.start()?;
        let tables = TableSelection::new(
            r.get("database.include.list").as_deref(),
            r.get("database.exclude.list").as_deref(),
            r.get("table.include.list").as_deref(),
            r.get("table.exclude.list").as_deref(),
        )?;
        let columns = r.columns()?;
        let debezium = r.debezium()?;
        let store_session_timeout = Duration::from_millis(number(
            "offset.storage.zookeeper.session.timeout.ms",
            r.get("offset.storage.zookeeper.session.timeout.ms"),
            10_000,
        )?);
        let offsets = r.offsets()?;
        let history = r.history()?;
        r.accept_other_store_keys();
        let commit_policy = r.commit_policy()?;
        let max_batch_size =
            number("max.batch.size", r.get("max.batch.size"), 2048)?.max(1) as usize;
        let snapshot_chunk_size = r.snapshot_chunk_size()?;
        let heartbeat_interval =
            match number("heartbeat.interval.ms", r.get("heartbeat.interval.ms"), 0)? {
                0 => None,
                ms => Some(Duration::from_millis(ms)),
            };
        let heartbeat_topic_prefix = r
            .get("topic.heartbeat.prefix")
            .unwrap_or_else(|| "__debezium-heartbeat".into());
        let include_schema_changes = r.include_schema_changes()?;
        let encode_threads =
            number("sluice.encode.threads", r.get("sluice.encode.threads"), 1)?.max(1) as usize;
        let latch = r.latch()?;
        let warnings = r.finish()?;

        Ok(EngineConfig {
            name,
            connect,
            server_id,
            start,
            tables,
            columns,
            debezium,
            offsets,
            history,
            commit_policy,
            max_batch_size,
            snapshot_chunk_size,
            encode_threads,
            latch,
            store_session_timeout,
            include_schema_changes,
            heartbeat_interval,
            heartbeat_topic_prefix,
            warnings,
        })
    }
}

/// A property's value that is not what it must be.
fn invalid(property: &str, message: String) -> EngineError {
    EngineError::Config {
        property: property.to_string(),
        message,
    }
}

/// The value of a property that must be set.
fn required(key: &'static str, value: Option<String>) -> Result<String, EngineError> {
    value.ok_or_else(|| EngineError::Config {
        property: key.to_string(),
        message: "required".into(),
    })
}

/// A whole number property's value, `default` when it is not set.
fn number(key: &str, value: Option<String>, default: u64) -> Result<u64, EngineError> {
    match value {
        None => Ok(default),
        Some(v) => v
            .parse()
            .map_err(|_| invalid(key, format!("{v:?} is not a whole number"))),
    }
}

/// Debezium properties being read into an [`EngineConfig`]: the
/// properties set, the names read so far and the warnings so far.
struct Reading {
    p: BTreeMap<String, String>,
    used: Vec<&'static str>,
    warnings: Vec<String>,
}

impl Reading {
    /// The properties, trimmed, with Debezium 1.x names under their new ones.
    fn new<K, V>(properties: impl IntoIterator<Item = (K, V)>) -> Reading
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let p: BTreeMap<String, String> = properties
            .into_iter()
            .map(|(k, v)| (k.as_ref().trim().to_string(), v.as_ref().trim().to_string()))
            .collect();
        let mut r = Reading {
            p,
            used: Vec::new(),
            warnings: Vec::new(),
        };
        r.rename_old_names();
        r
    }

    /// Debezium 1.x names, as the reference design's fleets have them,
    /// under their new names (a new name set wins, with a warning).
    fn rename_old_names(&mut self) {
        let p = &mut self.p;
        let warnings = &mut self.warnings;
        if let Some(v) = p.remove("database.server.name") {
            if p.contains_key("topic.prefix") {
                warnings.push(
                    "database.server.name does not apply: topic.prefix is set and wins".into(),
                );
            }
            p.entry("topic.prefix".into()).or_insert(v);
        }
        for (old, new) in [
            ("database.history", "schema.history.internal"),
            (
                "database.history.file.filename",
                "schema.history.internal.file.filename",
            ),
            (
                "database.history.zookeeper.connect.string",
                "schema.history.internal.zookeeper.connect.string",
            ),
            (
                "database.history.zookeeper.path",
                "schema.history.internal.zookeeper.path",
            ),
            (
                "database.history.zookeeper.session.timeout.ms",
                "schema.history.internal.zookeeper.session.timeout.ms",
            ),
            (
                "database.history.zookeeper.connection.timeout.ms",
                "schema.history.internal.zookeeper.connection.timeout.ms",
            ),
        ] {
            if let Some(v) = p.remove(old) {
                if p.contains_key(new) {
                    warnings.push(format!("{old} does not apply: {new} is set and wins"));
                }
                p.entry(new.into()).or_insert(v);
            }
        }
    }

    /// A property's value (`None` when unset or empty); the property counts
    /// as read.
    fn get(&mut self, key: &'static str) -> Option<String> {
        self.used.push(key);
        self.p.get(key).filter(|v| !v.is_empty()).cloned()
    }

    /// `database.*`: the source's address and login, and this replica's
    /// server id.
    fn connection(&mut self) -> Result<(ConnectOptions, Option<u32>), EngineError> {
        let mut connect = ConnectOptions {
            host: self
                .get("database.hostname")
                .unwrap_or_else(|| "localhost".into()),
            ..Default::default()
        };
        connect.port = number("database.port", self.get("database.port"), 3306)?
            .try_into()
            .map_err(|_| invalid("database.port", "not a port number".into()))?;
        connect.user = required("database.user", self.get("database.user"))?;
        connect.password = self.get("database.password").unwrap_or_default();
        let server_id =
            match self.get("database.server.id") {
                None => None,
                Some(v) => Some(v.parse().map_err(|_| {
                    invalid("database.server.id", format!("{v:?} is not a server id"))
                })?),
            };
        Ok((connect, server_id))
    }

    /// `snapshot.mode` and `sluice.start`: where the stream starts.
    fn start(&mut self) -> Result<StartAt, EngineError> {
        // Both are read whatever the other says: a value either way is
        // checked, and `sluice.start` wins.
        let mode = match self
            .get("snapshot.mode")
            .as_deref()
            .map(str::to_ascii_lowercase)
        {
            None => None,
            Some(m) => Some(match m.as_str() {
                "initial" | "when_needed" => StartAt::Initial,
                "no_data" | "schema_only" | "recovery" | "schema_only_recovery" => StartAt::Latest,
                "never" => StartAt::Earliest,
                _ => {
                    return Err(invalid(
                        "snapshot.mode",
                        format!(
                            "{m:?}: supported are initial, when_needed, no_data, schema_only, never"
                        ),
                    ))
                }
            }),
        };
        Ok(match self.get("sluice.start") {
            Some(s) => {
                if mode.is_some() {
                    self.warnings.push(
                        "snapshot.mode does not apply: sluice.start sets where the stream starts (no snapshot is taken)"
                            .into(),
                    );
                }
                StartAt::Position(s.parse().map_err(|e: String| invalid("sluice.start", e))?)
            }
            None => mode.unwrap_or(StartAt::Initial),
        })
    }

    /// `column.include.list` and `column.exclude.list`.
    fn columns(&mut self) -> Result<DebeziumColumnRules, EngineError> {
        let include_columns = self.get("column.include.list");
        let exclude_columns = self.get("column.exclude.list");
        if include_columns.is_some() && exclude_columns.is_some() {
            self.warnings.push(
                "column.include.list and column.exclude.list are both set (Debezium refuses that): a column must match the include list and not the exclude list"
                    .into(),
            );
        }
        DebeziumColumnRules::new(include_columns.as_deref(), exclude_columns.as_deref()).map_err(
            |e| match e {
                sluice_encode::debezium::DebeziumError::Pattern {
                    property,
                    pattern,
                    reason,
                } => invalid(&property, format!("{pattern:?}: {reason}")),
                e => invalid("column.include.list / column.exclude.list", e.to_string()),
            },
        )
    }

    /// The Debezium output's options: the converter properties and the
    /// column masks (the mask property's name carries its settings).
    fn debezium(&mut self) -> Result<DebeziumOptions, EngineError> {
        let masks: Vec<(String, String)> = self
            .p
            .iter()
            .filter(|(k, _)| ColumnMasks::is_mask_property(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut encoder_props: Vec<(&str, String)> = Vec::new();
        for key in ENCODER_PROPERTIES {
            if let Some(v) = self.get(key) {
                encoder_props.push((*key, v));
            }
        }
        let mut debezium =
            DebeziumOptions::from_properties(encoder_props.iter().map(|(k, v)| (*k, v.as_str())))
                .map_err(|e| invalid("topic.prefix / converter options", e.to_string()))?;
        for (key, value) in &masks {
            debezium
                .set(key, value)
                .map_err(|e| invalid(key, e.to_string()))?;
        }
        Ok(debezium)
    }

    /// `offset.storage*`: where committed offsets are kept.
    fn offsets(&mut self) -> Result<OffsetStorage, EngineError> {
        Ok(match self.get("offset.storage") {
            None => match self.get("offset.storage.file.filename") {
                Some(f) => OffsetStorage::File(f.into()),
                None => {
                    return Err(invalid(
                        "offset.storage.file.filename",
                        "required with the default offset store (or set offset.storage)".into(),
                    ))
                }
            },
            Some(class) => match storage_kind(&class) {
                Some(Kind::File) => OffsetStorage::File(
                    required(
                        "offset.storage.file.filename",
                        self.get("offset.storage.file.filename"),
                    )?
                    .into(),
                ),
                Some(Kind::Memory) => OffsetStorage::Memory,
                Some(Kind::ZooKeeper) => OffsetStorage::ZooKeeper {
                    servers: required(
                        "offset.storage.zookeeper.connect.string",
                        self.get("offset.storage.zookeeper.connect.string"),
                    )?,
                    path: self
                        .get("offset.storage.zookeeper.path")
                        .unwrap_or_else(|| "/debezium-offset-storage".into()),
                },
                None => {
                    return Err(invalid(
                        "offset.storage",
                        format!("{class:?}: use a file, memory or ZooKeeper offset store"),
                    ))
                }
            },
        })
    }

    /// `schema.history.internal*`: where the schema history is kept.
    fn history(&mut self) -> Result<HistoryStorage, EngineError> {
        Ok(match self.get("schema.history.internal") {
            None => match self.get("schema.history.internal.file.filename") {
                Some(f) => HistoryStorage::File(f.into()),
                None => HistoryStorage::Memory,
            },
            Some(class) => match storage_kind(&class) {
                Some(Kind::File) => HistoryStorage::File(
                    required(
                        "schema.history.internal.file.filename",
                        self.get("schema.history.internal.file.filename"),
                    )?
                    .into(),
                ),
                Some(Kind::Memory) => HistoryStorage::Memory,
                Some(Kind::ZooKeeper) => HistoryStorage::ZooKeeper {
                    servers: required(
                        "schema.history.internal.zookeeper.connect.string",
                        self.get("schema.history.internal.zookeeper.connect.string"),
                    )?,
                    path: self
                        .get("schema.history.internal.zookeeper.path")
                        .unwrap_or_else(|| "/debezium-database-history".into()),
                },
                None => {
                    return Err(invalid(
                        "schema.history.internal",
                        format!("{class:?}: use a file, memory or ZooKeeper history"),
                    ))
                }
            },
        })
    }

    /// Keys of the store kinds not chosen are accepted (a file switched
    /// between kinds keeps them), and the ZooKeeper stores' other session
    /// keys: the store sessions share one timeout.
    fn accept_other_store_keys(&mut self) {
        for key in [
            "offset.storage.file.filename",
            "offset.storage.zookeeper.connect.string",
            "offset.storage.zookeeper.path",
            "schema.history.internal.file.filename",
            "schema.history.internal.zookeeper.connect.string",
            "schema.history.internal.zookeeper.path",
            "offset.storage.zookeeper.connection.timeout.ms",
            "schema.history.internal.zookeeper.session.timeout.ms",
            "schema.history.internal.zookeeper.connection.timeout.ms",
        ] {
            self.get(key);
        }
    }

    /// `offset.commit.policy` and `offset.flush.interval.ms`.
    fn commit_policy(&mut self) -> Result<CommitPolicy, EngineError> {
        let interval = number(
            "offset.flush.interval.ms",
            self.get("offset.flush.interval.ms"),
            60_000,
        )?;
        Ok(match self.get("offset.commit.policy").as_deref() {
            Some(c) if c.to_ascii_lowercase().contains("always") => {
                if self.p.contains_key("offset.flush.interval.ms") {
                    self.warnings.push(
                        "offset.flush.interval.ms does not apply: offset.commit.policy commits after every batch"
                            .into(),
                    );
                }
                CommitPolicy::Always
            }
            Some(c) if !c.to_ascii_lowercase().contains("periodic") => {
                return Err(invalid(
                    "offset.commit.policy",
                    format!("{c:?}: use always or periodic"),
                ))
            }
            _ if interval == 0 => CommitPolicy::Always,
            _ => CommitPolicy::Periodic(Duration::from_millis(interval)),
        })
    }

    /// `snapshot.fetch.size`, or `incremental.snapshot.chunk.size` without
    /// it: rows per chunk of the initial snapshot.
    fn snapshot_chunk_size(&mut self) -> Result<usize, EngineError> {
        let incremental_chunk = self.get("incremental.snapshot.chunk.size");
        Ok(match self.get("snapshot.fetch.size") {
            Some(v) => {
                if incremental_chunk.is_some() {
                    self.warnings.push(
                        "incremental.snapshot.chunk.size does not apply: snapshot.fetch.size is set and wins"
                            .into(),
                    );
                }
                number("snapshot.fetch.size", Some(v), 1024)?
            }
            None => number(
                "incremental.snapshot.chunk.size",
                incremental_chunk,
                1024,
            )?,
        }
        .max(1) as usize)
    }

    /// `include.schema.changes` (default true).
    fn include_schema_changes(&mut self) -> Result<bool, EngineError> {
        match self
            .get("include.schema.changes")
            .map(|v| v.to_ascii_lowercase())
            .as_deref()
        {
            None | Some("true") => Ok(true),
            Some("false") => Ok(false),
            Some(v) => Err(invalid(
                "include.schema.changes",
                format!("{v:?}: use true or false"),
            )),
        }
    }

    /// `leader.latch.*`: the leader latch, if any.
    fn latch(&mut self) -> Result<Option<LatchSettings>, EngineError> {
        let latch_path = self.get("leader.latch.path");
        let latch_id = self.get("leader.latch.id");
        let latch_timeout = Duration::from_millis(number(
            "leader.latch.session.timeout.ms",
            self.get("leader.latch.session.timeout.ms"),
            10_000,
        )?);
        Ok(match self.get("leader.latch.zookeeper.connect.string") {
            None => {
                for key in [
                    "leader.latch.path",
                    "leader.latch.id",
                    "leader.latch.session.timeout.ms",
                ] {
                    if self.p.contains_key(key) {
                        self.warnings.push(format!(
                            "{key} does not apply: without leader.latch.zookeeper.connect.string there is no latch"
                        ));
                    }
                }
                None
            }
            Some(servers) => Some(LatchSettings {
                servers,
                path: latch_path.unwrap_or_else(|| "/leader".into()),
                id: latch_id.unwrap_or_default(),
                session_timeout: latch_timeout,
            }),
        })
    }

    /// The warnings, once every property set was read: a documented one
    /// the others made moot is a warning, an unknown one an error.
    fn finish(mut self) -> Result<Vec<String>, EngineError> {
        // A documented property the others made moot: named, not refused.
        for key in DOCUMENTED_PROPERTIES {
            if self.p.contains_key(*key) && !self.used.contains(key) {
                self.warnings.push(format!(
                    "{key} does not apply with the other properties set and is ignored"
                ));
                self.used.push(key);
            }
        }
        let unknown: Vec<&String> = self
            .p
            .keys()
            .filter(|k| {
                !self.used.contains(&k.as_str())
                    && !IGNORED_PROPERTIES.contains(&k.as_str())
                    && !ColumnMasks::is_mask_property(k)
            })
            .collect();
        if let Some(first) = unknown.first() {
            return Err(invalid(
                first,
                format!(
                    "unknown property{} ({})",
                    if unknown.len() > 1 {
                        " among others"
                    } else {
                        ""
                    },
                    unknown
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        Ok(self.warnings)
    }
}

enum Kind {
    File,
    Memory,
    ZooKeeper,
}

/// The kind of store a Java class name (or a short name) stands for.
fn storage_kind(class: &str) -> Option<Kind> {
    let c = class.to_ascii_lowercase();
    if c.contains("zookeeper") {
        Some(Kind::ZooKeeper)
    } else if c.contains("memory") {
        Some(Kind::Memory)
    } else if c.contains("file") {
        Some(Kind::File)
    } else {
        None
    }
}

/// Debezium's include and exclude lists: comma-separated regular
/// expressions matched against the whole database name, or the whole
/// `db.table` name. An include list set means only what it matches.
#[derive(Debug, Clone, Default)]
pub struct TableSelection {
    include_db: Vec<Regex>,
    exclude_db: Vec<Regex>,
    include_table: Vec<Regex>,
    exclude_table: Vec<Regex>,
}

impl TableSelection {
    pub fn new(
        include_db: Option<&str>,
        exclude_db: Option<&str>,
        include_table: Option<&str>,
        exclude_table: Option<&str>,
    ) -> Result<TableSelection, EngineError> {
        let list = |property: &str, text: Option<&str>| -> Result<Vec<Regex>, EngineError> {
            text.map(|t| {
                t.split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(|p| {
                        Regex::new(&format!("^(?:{p})$")).map_err(|e| EngineError::Config {
                            property: property.to_string(),
                            message: format!("{p:?}: {e}"),
                        })
                    })
                    .collect()
            })
            .unwrap_or(Ok(Vec::new()))
        };
        Ok(TableSelection {
            include_db: list("database.include.list", include_db)?,
            exclude_db: list("database.exclude.list", exclude_db)?,
            include_table: list("table.include.list", include_table)?,
            exclude_table: list("table.exclude.list", exclude_table)?,
        })
    }

    fn database(&self, db: &str) -> bool {
        (self.include_db.is_empty() || self.include_db.iter().any(|r| r.is_match(db)))
            && !self.exclude_db.iter().any(|r| r.is_match(db))
    }

    pub fn includes(&self, db: &str, table: &str) -> bool {
        if !self.database(db) {
            return false;
        }
        let full = format!("{db}.{table}");
        (self.include_table.is_empty() || self.include_table.iter().any(|r| r.is_match(&full)))
            && !self.exclude_table.iter().any(|r| r.is_match(&full))
    }
}

impl ChangeFilter for TableSelection {
    fn table(&self, schema: &str, table: &str) -> bool {
        self.includes(schema, table)
    }
    fn statement(&self, statement: &Statement<'_>) -> bool {
        match &statement.class.table {
            Some(table) => {
                let schema = statement.class.schema.as_deref().unwrap_or(&statement.db);
                self.includes(schema, table)
            }
            None => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Vec<(&'static str, &'static str)> {
        vec![
            ("name", "engine"),
            ("topic.prefix", "dbserver1"),
            ("database.hostname", "db"),
            ("database.user", "cdc"),
            ("offset.storage.file.filename", "/tmp/offsets.dat"),
        ]
    }

    #[test]
    fn debezium_defaults() {
        let c = EngineConfig::from_properties(base()).unwrap();
        assert_eq!(c.name, "engine");
        assert_eq!(c.debezium.topic_prefix, "dbserver1");
        assert_eq!(c.connect.port, 3306);
        assert_eq!(c.offsets, OffsetStorage::File("/tmp/offsets.dat".into()));
        assert_eq!(c.history, HistoryStorage::Memory);
        assert!(c.include_schema_changes);
        assert_eq!(c.heartbeat_interval, None);
        assert_eq!(c.heartbeat_topic_prefix, "__debezium-heartbeat");
        let mut props = base();
        props.push(("heartbeat.interval.ms", "5000"));
        let c = EngineConfig::from_properties(props).unwrap();
        assert_eq!(c.heartbeat_interval, Some(Duration::from_secs(5)));
        assert_eq!(
            c.commit_policy,
            CommitPolicy::Periodic(Duration::from_secs(60))
        );
        assert_eq!(c.max_batch_size, 2048);
        assert_eq!(c.start, StartAt::Initial);
        assert!(c.latch.is_none());
    }

    #[test]
    fn reference_design_properties_load() {
        let mut p = base();
        p.retain(|(k, _)| *k != "topic.prefix" && !k.starts_with("offset"));
        p.extend([
            ("database.server.name", "old"),
            ("offset.storage", "com.example.ZookeeperOffsetBackingStore"),
            ("offset.storage.zookeeper.connect.string", "zk:2181"),
            ("offset.storage.zookeeper.path", "/offsets"),
            ("database.history", "com.example.ZookeeperDatabaseHistory"),
            ("database.history.zookeeper.connect.string", "zk:2181"),
            ("database.history.zookeeper.path", "/history"),
            ("offset.flush.interval.ms", "0"),
            ("snapshot.mode", "schema_only"),
            ("leader.latch.zookeeper.connect.string", "zk:2181"),
        ]);
        let c = EngineConfig::from_properties(p).unwrap();
        assert_eq!(c.debezium.topic_prefix, "old");
        assert_eq!(
            c.offsets,
            OffsetStorage::ZooKeeper {
                servers: "zk:2181".into(),
                path: "/offsets".into()
            }
        );
        assert_eq!(
            c.history,
            HistoryStorage::ZooKeeper {
                servers: "zk:2181".into(),
                path: "/history".into()
            }
        );
        assert_eq!(c.commit_policy, CommitPolicy::Always);
        assert_eq!(c.start, StartAt::Latest);
        assert_eq!(c.latch.unwrap().path, "/leader");
    }

    #[test]
    fn mistakes_are_named() {
        let mut p = base();
        p.push(("databse.port", "3307"));
        let e = EngineConfig::from_properties(p).unwrap_err().to_string();
        assert!(e.contains("databse.port") && e.contains("unknown"), "{e}");
        let mut p = base();
        p.push(("database.port", "x"));
        let e = EngineConfig::from_properties(p).unwrap_err().to_string();
        assert!(e.contains("database.port"), "{e}");
        let p: Vec<_> = base().into_iter().filter(|(k, _)| *k != "name").collect();
        let e = EngineConfig::from_properties(p).unwrap_err().to_string();
        assert!(e.contains("name") && e.contains("required"), "{e}");
        let mut p = base();
        p.push(("table.include.list", "inv.(x"));
        assert!(EngineConfig::from_properties(p).is_err());
    }

    #[test]
    fn properties_that_do_not_apply_are_warnings() {
        let mut p = base();
        p.extend([
            ("sluice.start", "binlog.000003:4"),
            ("snapshot.mode", "initial"),
            ("column.include.list", "shop\\.users\\..*"),
            ("column.exclude.list", "shop\\.users\\.email"),
            ("snapshot.fetch.size", "10"),
            ("incremental.snapshot.chunk.size", "20"),
            ("leader.latch.path", "/x"),
            ("offset.commit.policy", "always"),
            ("offset.flush.interval.ms", "5000"),
        ]);
        let c = EngineConfig::from_properties(p).unwrap();
        assert!(matches!(c.start, StartAt::Position(_)));
        assert_eq!(c.snapshot_chunk_size, 10);
        let all = c.warnings.join("\n");
        for key in [
            "snapshot.mode",
            "column.exclude.list",
            "incremental.snapshot.chunk.size",
            "leader.latch.path",
            "offset.flush.interval.ms",
        ] {
            assert!(all.contains(key), "{key} not warned of: {all}");
        }
        // Both column lists apply: included and not excluded.
        use sluice_events::ColumnRules;
        assert!(c.columns.keeps("shop", "users", "name"));
        assert!(!c.columns.keeps("shop", "users", "email"));
        assert!(!c.columns.keeps("shop", "orders", "id"));
        // A value still has to be right where it does not apply.
        let mut p = base();
        p.extend([
            ("sluice.start", "binlog.000003:4"),
            ("snapshot.mode", "sometimes"),
        ]);
        let e = EngineConfig::from_properties(p).unwrap_err().to_string();
        assert!(e.contains("snapshot.mode"), "{e}");
        // Nothing to say about a plain configuration.
        assert!(EngineConfig::from_properties(base())
            .unwrap()
            .warnings
            .is_empty());
    }

    #[test]
    fn column_masks_are_read_from_their_property_names() {
        let mut p = base();
        p.extend([
            ("column.mask.with.5.chars", "shop.users.name"),
            (
                "column.mask.hash.SHA-256.with.salt.CzQMA0cB5K",
                "shop.users.email",
            ),
            ("column.mask.hash.v2.MD5.with.salt.x", "shop.users.tier"),
        ]);
        let c = EngineConfig::from_properties(p).unwrap();
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        assert_eq!(
            c.debezium
                .masks
                .mask_for("shop", "users", "name")
                .as_deref(),
            Some(&sluice_encode::debezium::Mask::Chars("*****".into()))
        );
        assert!(c
            .debezium
            .masks
            .mask_for("shop", "users", "email")
            .is_some());
        for (key, value) in [
            ("column.mask.hash.NOPE.with.salt.x", "a.b.c"),
            ("column.mask.with.many.chars", "a.b.c"),
            ("column.mask.with.2.chars", "a.(b"),
            ("column.exclude.list", "a.(b"),
        ] {
            let mut p = base();
            p.push((key, value));
            let e = EngineConfig::from_properties(p).unwrap_err().to_string();
            assert!(e.contains(key), "{key}: {e}");
        }
    }

    #[test]
    fn include_and_exclude_lists_match_whole_names() {
        let s = TableSelection::new(
            Some("inv.*"),
            Some("inventory_old"),
            Some("inv\\w*\\.c.*"),
            Some(".*\\.cx"),
        )
        .unwrap();
        assert!(s.includes("inventory", "customers"));
        assert!(!s.includes("inventory_old", "customers"));
        assert!(!s.includes("inventory", "orders"));
        assert!(!s.includes("inventory", "cx"));
        assert!(!s.includes("other", "customers"));
        assert!(TableSelection::default().includes("any", "thing"));
    }
}
