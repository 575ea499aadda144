//! ETL: the full load of one mapping (canal-adapter's
//! `POST /etl/rdb/{key}/{file}.yml`). The source table's rows (those of
//! `etlCondition`, its `{}` filled with the call's params) are upserted
//! into the target table by the statements the sink applies changes with.
//!
//! Consistent with the running sink: the load's target transaction first
//! takes the lock each sink transaction takes (the sink's rows of
//! `sluice_sink_offsets`), and only then the source is read, in a
//! consistent snapshot. The sink has applied the source up to its
//! position P and waits while the load runs; every change after P is
//! applied after the load commits. The snapshot holds every change up to
//! P (and perhaps some after it); the changes after P applied again over
//! it, in order, leave each row as the source has it. The whole load is
//! one target transaction (rows are read and written in statements of
//! `commitBatch` rows, so memory stays small): a piece of it committed
//! alone would let the sink move on and the rest of the snapshot then
//! overwrite newer rows. Large tables are loaded in pieces with an
//! `etlCondition` range: each call is consistent on its own.

use std::sync::Arc;

use mysql::prelude::Queryable;

use crate::config::{Mapping, SinkConfig, TargetKind};
use crate::rows::{key, upsert, Mapped};
use crate::sql::{statements, Origin, TablePlan};
use crate::target::Target;
use crate::value::{Param, TargetClass};

/// Rows per statement and per read when the mapping sets no `commitBatch`.
const DEFAULT_BATCH: usize = 1000;

/// How to reach the source database (the destination's
/// `canal.instance.master.address`, `dbUsername`, `dbPassword`).
#[derive(Debug, Clone)]
pub struct SourceUrl {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    /// `sluice.instance.master.socket`, when set.
    pub socket: Option<std::path::PathBuf>,
}

/// What a load did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtlOutcome {
    pub rows: u64,
}

/// Why a load failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EtlFailure {
    /// The call does not fit the mapping (params, a keyless table).
    #[error("{0}")]
    Request(String),
    /// The source or the target failed; the target has nothing of it.
    #[error("{0}")]
    Load(String),
}

impl From<String> for EtlFailure {
    fn from(e: String) -> Self {
        EtlFailure::Load(e)
    }
}

/// Loads `mapping` of `sink` from `source`; `params` fill the `{}` of its
/// `etlCondition` in order (without params the condition is not used, as
/// canal-adapter does).
pub async fn load(
    sink: &SinkConfig,
    mapping: &Mapping,
    params: &[String],
    source: &SourceUrl,
) -> Result<EtlOutcome, EtlFailure> {
    if mapping.mirror_db {
        return Err(EtlFailure::Request(format!(
            "{}: a mirrorDb mapping has no one table to load; load a table of `{}` through a mapping file of its own (database, table, targetTable {}.TABLE, mapAll)",
            mapping.file.display(),
            mapping.database,
            mapping.mirror_target_db()
        )));
    }
    let sql = select_sql(mapping, params).map_err(EtlFailure::Request)?;
    let params = params.to_vec();
    let mut target = Target::connect(&sink.target).await?;
    let kind = target.kind();
    target.prepare().await?;
    let info = target.table_info(mapping).await?;
    let plan = TablePlan::new(mapping, info, kind, 0)?;
    if plan.key.is_empty() {
        return Err(EtlFailure::Request(format!(
            "{}: the target table {} has no primary key and dbMapping.targetPk is not set: a load cannot be repeated over a keyless table without duplicating its rows",
            mapping.file.display(),
            plan.table
        )));
    }
    let batch = mapping
        .commit_batch
        .filter(|&n| n > 0)
        .unwrap_or(DEFAULT_BATCH);
    let sink_name = sink.name();
    // The positions' rows exist, so that the lock below holds the sink.
    let names: Vec<String> = sink.mappings.iter().map(|m| m.name.clone()).collect();
    let partitions = crate::partition::partition_names(&sink_name, sink.threads);
    for name in &partitions {
        target.ensure_offsets(name, &names).await?;
    }
    target.etl_begin(&partitions).await?;
    // Only now the source is read: its snapshot comes after the sink's
    // last commit.
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Result<Chunk, String>>(2);
    let reader = {
        let source = source.clone();
        std::thread::Builder::new()
            .name("sluice-etl-read".into())
            .spawn(move || read_source(&source, &sql, params, batch, tx))
            .map_err(|e| format!("starting the source reader: {e}"))?
    };
    let origin = Origin {
        table: format!("{}.{}", mapping.database, mapping.table),
        ..Default::default()
    };
    let plans = std::slice::from_ref(&plan);
    let mut rows = 0u64;
    // Each source column's target column (if written) and kind.
    let mut columns: Option<Vec<(Option<usize>, ColumnKind)>> = None;
    while let Some(chunk) = rx.recv().await {
        let chunk = chunk?;
        let cols = columns.get_or_insert_with(|| {
            chunk
                .columns
                .iter()
                .map(|(name, k)| (plan.target_of(name), *k))
                .collect()
        });
        let mut ops = Vec::with_capacity(chunk.rows.len());
        for row in chunk.rows {
            let mut m: Mapped = Vec::with_capacity(row.len());
            for ((t, k), v) in cols.iter().zip(row) {
                let Some(t) = *t else { continue };
                m.push((t, finish(v, *k, plan.columns[t].class, kind)));
            }
            m.sort_by_key(|(t, _)| *t);
            m.dedup_by_key(|(t, _)| *t);
            let k = key(&plan, &m, &origin)?;
            ops.push(upsert(0, m, k, origin.clone()));
        }
        rows += ops.len() as u64;
        target
            .etl_write(statements(kind, plans, &ops, batch, sink.postgres_upsert))
            .await?;
    }
    reader
        .join()
        .map_err(|_| "the source reader failed".to_string())?;
    target.etl_commit().await?;
    Ok(EtlOutcome { rows })
}

/// `SELECT * FROM db.table`, and the `etlCondition` when params are given
/// (its `{}` are filled with the params in order, as SQL literals).
fn select_sql(mapping: &Mapping, params: &[String]) -> Result<(String, String), String> {
    let table = format!(
        "{}.{}",
        crate::sql::quote(TargetKind::MySql, &mapping.database),
        crate::sql::quote(TargetKind::MySql, &mapping.table)
    );
    let sql = format!("SELECT * FROM {table}");
    if params.is_empty() {
        return Ok((sql, String::new()));
    }
    let Some(condition) = &mapping.etl_condition else {
        return Err(format!(
            "{}: params were given but the mapping has no dbMapping.etlCondition to fill",
            mapping.file.display()
        ));
    };
    let holes = condition.matches("{}").count();
    if holes != params.len() {
        return Err(format!(
            "{}: dbMapping.etlCondition {condition:?} has {holes} {{}} placeholder(s), but {} param(s) were given",
            mapping.file.display(),
            params.len()
        ));
    }
    Ok((sql, condition.clone()))
}

/// How a source column's text is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ColumnKind {
    Text,
    /// BINARY, VARBINARY, BLOB: bytes.
    Binary,
    /// BIT: its bytes as a number (as Canal gives it).
    Bit,
    /// DATE, DATETIME, TIMESTAMP: a zero date is NULL on PostgreSQL.
    Date,
}

/// A part of the source's rows: its columns (name and kind) and rows.
struct Chunk {
    columns: Arc<Vec<(String, ColumnKind)>>,
    rows: Vec<Vec<Option<Vec<u8>>>>,
}

fn column_kind(c: &mysql::Column) -> ColumnKind {
    use mysql::consts::ColumnType as T;
    // 63: the `binary` character set.
    let binary = c.character_set() == 63;
    match c.column_type() {
        T::MYSQL_TYPE_BIT => ColumnKind::Bit,
        T::MYSQL_TYPE_DATE
        | T::MYSQL_TYPE_NEWDATE
        | T::MYSQL_TYPE_DATETIME
        | T::MYSQL_TYPE_DATETIME2
        | T::MYSQL_TYPE_TIMESTAMP
        | T::MYSQL_TYPE_TIMESTAMP2 => ColumnKind::Date,
        T::MYSQL_TYPE_STRING
        | T::MYSQL_TYPE_VAR_STRING
        | T::MYSQL_TYPE_VARCHAR
        | T::MYSQL_TYPE_TINY_BLOB
        | T::MYSQL_TYPE_MEDIUM_BLOB
        | T::MYSQL_TYPE_LONG_BLOB
        | T::MYSQL_TYPE_BLOB
            if binary =>
        {
            ColumnKind::Binary
        }
        _ => ColumnKind::Text,
    }
}

/// The target's value of a source value (text protocol: bytes or NULL).
fn finish(v: Option<Vec<u8>>, kind: ColumnKind, class: TargetClass, target: TargetKind) -> Param {
    let Some(v) = v else { return Param::Null };
    match kind {
        ColumnKind::Binary => Param::Bytes(v),
        ColumnKind::Bit => {
            let n = v.iter().fold(0u64, |n, b| (n << 8) | u64::from(*b));
            Param::Text(n.to_string())
        }
        ColumnKind::Date if crate::value::zero_date_is_null(target, &v) => Param::Null,
        _ if class == TargetClass::Binary => Param::Bytes(v),
        _ => Param::Text(String::from_utf8_lossy(&v).into_owned()),
    }
}

/// Reads the source in one consistent snapshot and sends its rows in
/// chunks of `batch`; an error ends the stream.
fn read_source(
    source: &SourceUrl,
    sql: &(String, String),
    params: Vec<String>,
    batch: usize,
    tx: tokio::sync::mpsc::Sender<Result<Chunk, String>>,
) {
    if let Err(e) = read_source_rows(source, sql, params, batch, &tx) {
        let _ = tx.blocking_send(Err(e));
    }
}

fn read_source_rows(
    source: &SourceUrl,
    (select, condition): &(String, String),
    params: Vec<String>,
    batch: usize,
    tx: &tokio::sync::mpsc::Sender<Result<Chunk, String>>,
) -> Result<(), String> {
    let shown = format!("the source {}:{}", source.host, source.port);
    let mut opts = mysql::OptsBuilder::new()
        .ip_or_hostname(Some(source.host.clone()))
        .tcp_port(source.port)
        .user(Some(source.user.clone()))
        .pass((!source.password.is_empty()).then(|| source.password.clone()))
        .prefer_socket(false)
        .tcp_connect_timeout(Some(std::time::Duration::from_secs(10)))
        .init(vec!["SET NAMES utf8mb4"]);
    if let Some(s) = &source.socket {
        opts = opts.socket(Some(s.to_string_lossy().into_owned()));
    }
    let mut conn = mysql::Conn::new(opts).map_err(|e| format!("connecting to {shown}: {e}"))?;
    conn.query_drop("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        .and_then(|()| conn.query_drop("START TRANSACTION WITH CONSISTENT SNAPSHOT"))
        .map_err(|e| format!("{shown}: starting a consistent snapshot: {e}"))?;
    // The params as SQL literals, escaped as this session reads them.
    let mut text = format!("{select} ");
    let no_backslash = conn.no_backslash_escape();
    let mut params = params.into_iter();
    let mut rest = condition.as_str();
    while let Some(i) = rest.find("{}") {
        text.push_str(&rest[..i]);
        match params.next() {
            Some(p) => text.push_str(&mysql::Value::from(p).as_sql(no_backslash)),
            None => text.push_str("{}"),
        }
        rest = &rest[i + 2..];
    }
    text.push_str(rest);
    let mut result = conn
        .query_iter(text.as_str())
        .map_err(|e| format!("{shown}: {text}: {e}"))?;
    let columns: Arc<Vec<(String, ColumnKind)>> = Arc::new(
        result
            .columns()
            .as_ref()
            .iter()
            .map(|c| (c.name_str().into_owned(), column_kind(c)))
            .collect(),
    );
    let mut rows = Vec::with_capacity(batch);
    let Some(set) = result.iter() else {
        return Ok(());
    };
    for row in set {
        let row = row.map_err(|e| format!("{shown}: reading {text}: {e}"))?;
        let values = mysql::Row::unwrap(row)
            .into_iter()
            .map(|v| match v {
                mysql::Value::NULL => None,
                mysql::Value::Bytes(b) => Some(b),
                // The text protocol gives bytes; anything else as SQL text.
                other => Some(other.as_sql(false).into_bytes()),
            })
            .collect();
        rows.push(values);
        if rows.len() >= batch {
            let chunk = Chunk {
                columns: columns.clone(),
                rows: std::mem::replace(&mut rows, Vec::with_capacity(batch)),
            };
            if tx.blocking_send(Ok(chunk)).is_err() {
                // The load ended (an error on the target side).
                return Ok(());
            }
        }
    }
    if !rows.is_empty() {
        let _ = tx.blocking_send(Ok(Chunk { columns, rows }));
    }
    Ok(())
}
