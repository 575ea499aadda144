//! canal-adapter's configuration of its RDB adapter, read as canal-adapter
//! reads it: `application.yml` (`canal.conf.canalAdapters[]` → `instance`
//! → `groups[]` → `groupId`, `outerAdapters[]` with `name: rdb`) and the
//! table mappings `rdb/*.yml` (`destination`, `groupId`, `outerAdapterKey`,
//! `concurrent`, `dbMapping`). Keys this sink does not use are accepted
//! with a warning, keys canal-adapter does not know are errors, and every
//! error names the file and the key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_norway::Value;

/// Why the adapter configuration cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", file.display())]
pub struct AdapterConfigError {
    pub file: PathBuf,
    pub message: String,
}

fn err(file: &Path, message: impl Into<String>) -> AdapterConfigError {
    AdapterConfigError {
        file: file.to_path_buf(),
        message: message.into(),
    }
}

/// The kind of database a `jdbc.url` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    Postgres,
    /// MariaDB or MySQL (`jdbc:mysql:` and `jdbc:mariadb:`).
    MySql,
}

/// Where a sink writes: `jdbc.url`, `jdbc.username`, `jdbc.password`.
#[derive(Clone, PartialEq, Eq)]
pub struct TargetUrl {
    pub kind: TargetKind,
    pub host: String,
    pub port: u16,
    pub database: String,
    pub user: String,
    pub password: String,
}

impl std::fmt::Debug for TargetUrl {
    // Without the password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")
    }
}

impl std::fmt::Display for TargetUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = match self.kind {
            TargetKind::Postgres => "postgresql",
            TargetKind::MySql => "mysql",
        };
        write!(
            f,
            "{scheme}://{}@{}:{}/{}",
            self.user, self.host, self.port, self.database
        )
    }
}

impl TargetUrl {
    /// Reads `jdbc:postgresql://host[:port]/db[?…]`,
    /// `jdbc:mysql://host[:port]/db[?…]` or `jdbc:mariadb://…`; the query
    /// string's options are JDBC driver options and are not used.
    pub fn parse(url: &str, user: &str, password: &str) -> Result<TargetUrl, String> {
        let (kind, rest, default_port) = if let Some(r) = url.strip_prefix("jdbc:postgresql://") {
            (TargetKind::Postgres, r, 5432)
        } else if let Some(r) = url.strip_prefix("jdbc:mysql://") {
            (TargetKind::MySql, r, 3306)
        } else if let Some(r) = url.strip_prefix("jdbc:mariadb://") {
            (TargetKind::MySql, r, 3306)
        } else {
            return Err(format!(
                "`{url}` is not a jdbc:postgresql://, jdbc:mysql:// or jdbc:mariadb:// URL"
            ));
        };
        let rest = rest.split('?').next().unwrap_or_default();
        let (authority, database) = rest.split_once('/').unwrap_or((rest, ""));
        if database.is_empty() {
            return Err(format!("`{url}` names no database (…/DATABASE)"));
        }
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) => (
                h,
                p.parse::<u16>()
                    .map_err(|_| format!("`{url}`: `{p}` is not a port"))?,
            ),
            None => (authority, default_port),
        };
        if host.is_empty() {
            return Err(format!("`{url}` names no host"));
        }
        Ok(TargetUrl {
            kind,
            host: host.to_string(),
            port,
            database: database.to_string(),
            user: user.to_string(),
            password: password.to_string(),
        })
    }
}

/// One `outerAdapters[]` entry with `name: rdb`: a worker.
#[derive(Debug, Clone, PartialEq)]
pub struct SinkConfig {
    /// `canalAdapters[].instance`: the destination read.
    pub destination: String,
    /// `groups[].groupId`.
    pub group_id: String,
    /// `outerAdapters[].key`; `rdb` + its position when absent.
    pub key: String,
    pub target: TargetUrl,
    /// `threads`: target connections, the rows partitioned over them by
    /// key, each partition with its own positions (see [`crate::partition`]).
    pub threads: usize,
    /// `commitSize`: rows per target transaction (closed at the end of the
    /// source transaction that reaches it).
    pub commit_size: usize,
    /// `sluice.sink.schemaChanges` (set by the server, not by these files).
    pub schema_changes: SchemaChanges,
    /// `sluice.sink.postgresUpsert` (set by the server, not by these files).
    pub postgres_upsert: PostgresUpsert,
    pub mappings: Vec<Mapping>,
}

/// How upserts are written into PostgreSQL: `sluice.sink.postgresUpsert`.
/// Both give the same rows (the same text, cast to the same types); they
/// differ only in speed (see docs/benchmarks.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PostgresUpsert {
    /// `INSERT … SELECT … FROM unnest($1::text[], …) ON CONFLICT …`: one
    /// statement with one `text[]` parameter per column.
    #[default]
    Unnest,
    /// `COPY` of the rows into a temporary table of text columns, then
    /// `INSERT … SELECT … FROM` it `ON CONFLICT …`, in the same transaction.
    Copy,
}

impl std::str::FromStr for PostgresUpsert {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "unnest" => Ok(PostgresUpsert::Unnest),
            "copy" => Ok(PostgresUpsert::Copy),
            other => Err(format!("`{other}` is not unnest or copy")),
        }
    }
}

/// What a sink does when a source table of a `mapAll` mapping has a
/// column its target table lacks (a column added to the source):
/// `sluice.sink.schemaChanges`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchemaChanges {
    /// Adds the column to the target table (the nearest type), then applies.
    Apply,
    /// Logs the table, the column and the position once, and applies the
    /// rows without it.
    #[default]
    Log,
    /// Stops the sink before the first row that has it, naming the position.
    Stop,
}

impl std::str::FromStr for SchemaChanges {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "apply" => Ok(SchemaChanges::Apply),
            "log" => Ok(SchemaChanges::Log),
            "stop" => Ok(SchemaChanges::Stop),
            other => Err(format!("`{other}` is not apply, log or stop")),
        }
    }
}

impl SinkConfig {
    /// The sink's name in `sluice_sink_offsets.sink`.
    pub fn name(&self) -> String {
        format!("{}/{}/{}", self.destination, self.group_id, self.key)
    }
}

/// One `rdb/*.yml` file: a source table and its target table.
#[derive(Debug, Clone, PartialEq)]
pub struct Mapping {
    pub file: PathBuf,
    /// The file's name without `.yml`: its row in `sluice_sink_offsets`.
    pub name: String,
    pub concurrent: bool,
    /// `dbMapping.database`, `dbMapping.table`.
    pub database: String,
    pub table: String,
    /// `dbMapping.targetTable`: `schema.table` or `table`.
    pub target_schema: Option<String>,
    pub target_table: String,
    /// `targetPk`: source column → target column.
    pub target_pk: Vec<(String, String)>,
    pub map_all: bool,
    /// `targetColumns`: target column → source column.
    pub target_columns: Vec<(String, String)>,
    pub commit_batch: Option<usize>,
    /// `etlCondition`: the `WHERE …` of an ETL (full load) of the mapping,
    /// its `{}` filled with the call's params.
    pub etl_condition: Option<String>,
    /// `mirrorDb: true`: every table of `database` lands in the table of
    /// the same name in `target_db`, keyed as the source's, and the
    /// source's DDL of the database runs on the target (MariaDB/MySQL only;
    /// see [`crate::mirror`]). `table` and `target_table` are then empty.
    pub mirror_db: bool,
    /// `targetDb` of a `mirrorDb` mapping: the target database, the source
    /// database's name when absent (as canal-adapter).
    pub target_db: Option<String>,
}

impl Mapping {
    /// A `mirrorDb` mapping of `file` (named `name`): every table of
    /// `database` mirrored whole into `target_db` (the same name when
    /// `None`), no table or column of a table mapping set.
    pub fn mirror_db(
        file: PathBuf,
        name: String,
        concurrent: bool,
        database: String,
        commit_batch: Option<usize>,
        target_db: Option<String>,
    ) -> Mapping {
        Mapping {
            file,
            name,
            concurrent,
            database,
            table: String::new(),
            target_schema: None,
            target_table: String::new(),
            target_pk: Vec::new(),
            map_all: true,
            target_columns: Vec::new(),
            commit_batch,
            etl_condition: None,
            mirror_db: true,
            target_db,
        }
    }

    /// The target database of a `mirrorDb` mapping.
    pub fn mirror_target_db(&self) -> &str {
        self.target_db.as_deref().unwrap_or(&self.database)
    }
}

/// What a folder holds: the sinks and the warnings to log.
#[derive(Debug, Default)]
pub struct AdapterConf {
    pub sinks: Vec<SinkConfig>,
    pub warnings: Vec<String>,
}

#[derive(Deserialize)]
struct Application {
    #[serde(rename = "canal.conf")]
    canal_conf: Option<CanalConf>,
    canal: Option<CanalNested>,
}

#[derive(Deserialize)]
struct CanalNested {
    conf: Option<CanalConf>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CanalConf {
    #[serde(default)]
    canal_adapters: Vec<CanalAdapter>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CanalAdapter {
    instance: String,
    #[serde(default)]
    groups: Vec<Group>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Group {
    group_id: Option<String>,
    #[serde(default)]
    outer_adapters: Vec<OuterAdapter>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct OuterAdapter {
    name: String,
    key: Option<String>,
    #[serde(default)]
    properties: BTreeMap<String, Value>,
    // canal-adapter's other adapters' keys (es, hbase…), unused here.
    #[serde(rename = "hosts")]
    _hosts: Option<Value>,
    #[serde(rename = "zkHosts")]
    _zk_hosts: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MappingFile {
    data_source_key: Option<String>,
    destination: Option<String>,
    group_id: Option<String>,
    outer_adapter_key: Option<String>,
    #[serde(default)]
    concurrent: bool,
    db_mapping: Option<DbMapping>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DbMapping {
    #[serde(default)]
    mirror_db: bool,
    database: Option<String>,
    table: Option<String>,
    target_table: Option<String>,
    #[serde(default)]
    target_pk: Option<BTreeMap<String, Option<String>>>,
    #[serde(default)]
    map_all: bool,
    #[serde(default)]
    target_columns: Option<BTreeMap<String, Option<String>>>,
    etl_condition: Option<String>,
    commit_batch: Option<usize>,
    /// The target database of a `mirrorDb` mapping.
    target_db: Option<String>,
    // Accepted as canal-adapter does; not used by its RDB adapter either.
    #[serde(rename = "caseInsensitive")]
    _case_insensitive: Option<Value>,
    #[serde(rename = "excludeColumns")]
    _exclude_columns: Option<Value>,
}

/// The keys of an RDB adapter's `properties` this sink reads.
const RDB_PROPERTIES: &[&str] = &[
    "jdbc.driverClassName",
    "jdbc.url",
    "jdbc.username",
    "jdbc.password",
    "threads",
    "commitSize",
];

/// Reads `dir/application.yml` and `dir/rdb/*.yml`.
pub fn load(dir: &Path) -> Result<AdapterConf, AdapterConfigError> {
    let app_path = dir.join("application.yml");
    let text = std::fs::read_to_string(&app_path)
        .map_err(|e| err(&app_path, format!("cannot read: {e}")))?;
    let mut conf = AdapterConf::default();
    let mut sinks = parse_application(&app_path, &text, &mut conf.warnings)?;
    let rdb = dir.join("rdb");
    let mut files = Vec::new();
    if rdb.is_dir() {
        let entries =
            std::fs::read_dir(&rdb).map_err(|e| err(&rdb, format!("cannot list: {e}")))?;
        for e in entries {
            let path = e
                .map_err(|e| err(&rdb, format!("cannot list: {e}")))?
                .path();
            if path.extension().is_some_and(|x| x == "yml" || x == "yaml") {
                files.push(path);
            }
        }
    }
    files.sort();
    for path in files {
        let text =
            std::fs::read_to_string(&path).map_err(|e| err(&path, format!("cannot read: {e}")))?;
        let Some((target, mapping)) = parse_mapping(&path, &text, &mut conf.warnings)? else {
            continue;
        };
        let mut used = false;
        for sink in sinks.iter_mut().filter(|s| target.matches(s)) {
            check_mirror(&path, sink, &mapping)?;
            sink.mappings.push(mapping.clone());
            used = true;
        }
        if !used {
            conf.warnings.push(format!(
                "{}: no rdb adapter of {} matches destination `{}`, groupId `{}`, outerAdapterKey `{}`; the mapping is not used",
                path.display(),
                app_path.display(),
                target.destination,
                target.group_id.as_deref().unwrap_or("(any)"),
                target.key.as_deref().unwrap_or("(any)"),
            ));
        }
    }
    sinks.retain(|s| {
        if s.mappings.is_empty() {
            conf.warnings.push(format!(
                "{}: the rdb adapter `{}` of destination `{}` has no mapping in {}; it is not started",
                app_path.display(),
                s.key,
                s.destination,
                rdb.display()
            ));
        }
        !s.mappings.is_empty()
    });
    conf.sinks = sinks;
    Ok(conf)
}

/// The sinks of `application.yml`, without their mappings.
pub fn parse_application(
    file: &Path,
    text: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<SinkConfig>, AdapterConfigError> {
    let app: Application = serde_norway::from_str(text).map_err(|e| err(file, e.to_string()))?;
    let conf = match (app.canal_conf, app.canal.and_then(|c| c.conf)) {
        (Some(c), _) | (None, Some(c)) => c,
        (None, None) => return Err(err(file, "no `canal.conf` key")),
    };
    let mut sinks = Vec::new();
    for (a, adapter) in conf.canal_adapters.iter().enumerate() {
        for (g, group) in adapter.groups.iter().enumerate() {
            for (o, outer) in group.outer_adapters.iter().enumerate() {
                if outer.name != "rdb" {
                    warnings.push(format!(
                        "{}: canal.conf.canalAdapters[{a}].groups[{g}].outerAdapters[{o}]: the `{}` adapter is not supported (only `rdb`); it is not started",
                        file.display(),
                        outer.name
                    ));
                    continue;
                }
                let at = format!("canal.conf.canalAdapters[{a}].groups[{g}].outerAdapters[{o}]");
                sinks.push(rdb_adapter(file, &at, adapter, group, o, outer, warnings)?);
            }
        }
    }
    Ok(sinks)
}

fn rdb_adapter(
    file: &Path,
    at: &str,
    adapter: &CanalAdapter,
    group: &Group,
    position: usize,
    outer: &OuterAdapter,
    warnings: &mut Vec<String>,
) -> Result<SinkConfig, AdapterConfigError> {
    let text = |key: &str| -> Result<Option<String>, AdapterConfigError> {
        match outer.properties.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => Err(err(file, format!("{at}.properties.{key}: not a value"))),
        }
    };
    let number = |key: &str, default: usize| -> Result<usize, AdapterConfigError> {
        match text(key)? {
            None => Ok(default),
            Some(v) => v.trim().parse::<usize>().map_err(|_| {
                err(
                    file,
                    format!("{at}.properties.{key}: `{v}` is not a positive number"),
                )
            }),
        }
    };
    for key in outer.properties.keys() {
        if !RDB_PROPERTIES.contains(&key.as_str()) {
            warnings.push(format!(
                "{}: {at}.properties.{key} is not used by Sluice's rdb adapter",
                file.display()
            ));
        }
    }
    let url = text("jdbc.url")?
        .ok_or_else(|| err(file, format!("{at}.properties.jdbc.url is missing")))?;
    let user = text("jdbc.username")?.unwrap_or_default();
    let password = text("jdbc.password")?.unwrap_or_default();
    let target = TargetUrl::parse(url.trim(), &user, &password)
        .map_err(|m| err(file, format!("{at}.properties.jdbc.url: {m}")))?;
    Ok(SinkConfig {
        destination: adapter.instance.clone(),
        group_id: group.group_id.clone().unwrap_or_default(),
        key: outer
            .key
            .clone()
            .unwrap_or_else(|| format!("rdb{position}")),
        target,
        threads: number("threads", 1)?.max(1),
        commit_size: number("commitSize", 3000)?.max(1),
        schema_changes: SchemaChanges::default(),
        postgres_upsert: PostgresUpsert::default(),
        mappings: Vec::new(),
    })
}

/// Which sinks a mapping file is for.
#[derive(Debug)]
pub struct MappingTarget {
    pub destination: String,
    pub group_id: Option<String>,
    pub key: Option<String>,
}

impl MappingTarget {
    fn matches(&self, sink: &SinkConfig) -> bool {
        self.destination == sink.destination
            && self
                .group_id
                .as_ref()
                .is_none_or(|g| g.is_empty() || *g == sink.group_id)
            && self
                .key
                .as_ref()
                .is_none_or(|k| k.is_empty() || *k == sink.key)
    }
}

/// One `rdb/*.yml` file; `None` for an empty file.
pub fn parse_mapping(
    file: &Path,
    text: &str,
    warnings: &mut Vec<String>,
) -> Result<Option<(MappingTarget, Mapping)>, AdapterConfigError> {
    if text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        return Ok(None);
    }
    let m: MappingFile = serde_norway::from_str(text).map_err(|e| err(file, e.to_string()))?;
    let missing = |key: &str| err(file, format!("`{key}` is missing"));
    let destination = m.destination.ok_or_else(|| missing("destination"))?;
    if m.data_source_key.is_some() {
        warnings.push(format!(
            "{}: dataSourceKey is not used: Sluice reads the rows from the destination itself, not from a source data source",
            file.display()
        ));
    }
    let db = m.db_mapping.ok_or_else(|| missing("dbMapping"))?;
    let name = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let target = MappingTarget {
        destination,
        group_id: m.group_id,
        key: m.outer_adapter_key,
    };
    if db.mirror_db {
        let mapping = mirror_db_mapping(file, name, m.concurrent, db, warnings)?;
        return Ok(Some((target, mapping)));
    }
    if db.target_db.is_some() {
        warnings.push(format!(
            "{}: dbMapping.targetDb is used by mirrorDb mappings only; name the target table's schema in targetTable (schema.table)",
            file.display()
        ));
    }
    let database = db.database.ok_or_else(|| missing("dbMapping.database"))?;
    let table = db.table.ok_or_else(|| missing("dbMapping.table"))?;
    let target_table = db
        .target_table
        .ok_or_else(|| missing("dbMapping.targetTable"))?;
    let (target_schema, target_table) = match target_table.split_once('.') {
        Some((s, t)) => (Some(s.to_string()), t.to_string()),
        None => (None, target_table),
    };
    if target_table.is_empty() {
        return Err(err(file, "dbMapping.targetTable is empty"));
    }
    let same_name = |(k, v): (String, Option<String>)| {
        let v = v.filter(|v| !v.is_empty()).unwrap_or_else(|| k.clone());
        (k, v)
    };
    let target_pk: Vec<(String, String)> = db
        .target_pk
        .unwrap_or_default()
        .into_iter()
        .map(same_name)
        .collect();
    let target_columns: Vec<(String, String)> = db
        .target_columns
        .unwrap_or_default()
        .into_iter()
        .map(same_name)
        .collect();
    if !db.map_all && target_columns.is_empty() {
        return Err(err(
            file,
            "dbMapping: neither mapAll: true nor targetColumns: no column would be written",
        ));
    }
    // A keyless mapping is refused when it connects (only the target's
    // catalog says whether its table has a primary key): TablePlan::new.
    Ok(Some((
        target,
        Mapping {
            file: file.to_path_buf(),
            name,
            concurrent: m.concurrent,
            database,
            table,
            target_schema,
            target_table,
            target_pk,
            map_all: db.map_all,
            target_columns,
            commit_batch: db.commit_batch,
            etl_condition: db.etl_condition.filter(|c| !c.trim().is_empty()),
            mirror_db: false,
            target_db: None,
        },
    )))
}

/// A `mirrorDb` mapping of `rdb/*.yml` (`file`, named `name`): every table
/// of a database mirrored whole; the keys of a table mapping are noted as
/// unused.
fn mirror_db_mapping(
    file: &Path,
    name: String,
    concurrent: bool,
    db: DbMapping,
    warnings: &mut Vec<String>,
) -> Result<Mapping, AdapterConfigError> {
    let database = db
        .database
        .ok_or_else(|| err(file, "`dbMapping.database` is missing"))?;
    let unused = [
        ("table", db.table.is_some()),
        ("targetTable", db.target_table.is_some()),
        ("targetPk", db.target_pk.is_some()),
        ("targetColumns", db.target_columns.is_some()),
        ("etlCondition", db.etl_condition.is_some()),
    ];
    for (key, _) in unused.iter().filter(|(_, set)| *set) {
        warnings.push(format!(
            "{}: dbMapping.{key} is not used by a mirrorDb mapping: every table of `{database}` is mirrored whole, keyed as in the source",
            file.display()
        ));
    }
    Ok(Mapping::mirror_db(
        file.to_path_buf(),
        name,
        concurrent,
        database,
        db.commit_batch,
        db.target_db.filter(|d| !d.trim().is_empty()),
    ))
}

/// A `mirrorDb` mapping runs the source's DDL on the target as written
/// for MariaDB/MySQL: refused for a PostgreSQL target, and a database is
/// mirrored once per sink (twice would run each DDL twice).
fn check_mirror(
    file: &Path,
    sink: &SinkConfig,
    mapping: &Mapping,
) -> Result<(), AdapterConfigError> {
    if !mapping.mirror_db {
        return Ok(());
    }
    if sink.target.kind == TargetKind::Postgres {
        return Err(err(
            file,
            format!(
                "dbMapping.mirrorDb: the rdb adapter `{}` writes to PostgreSQL ({}), but a mirror runs the source's MariaDB/MySQL DDL on its target; mirror into a jdbc:mariadb:// or jdbc:mysql:// target, or map the tables one by one (mapAll, sluice.sink.schemaChanges)",
                sink.key, sink.target
            ),
        ));
    }
    if let Some(other) = sink
        .mappings
        .iter()
        .find(|m| m.mirror_db && m.database == mapping.database)
    {
        return Err(err(
            file,
            format!(
                "dbMapping.mirrorDb: the database `{}` is mirrored by {} already for the rdb adapter `{}`; mirror it once",
                mapping.database,
                other.file.display(),
                sink.key
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
