//! The target databases: a connection, the catalog of target tables, the
//! positions applied (`sluice_sink_offsets`) and the application of a run
//! of statements with its positions in one transaction.
//!
//! PostgreSQL goes through `tokio-postgres`. MariaDB/MySQL goes through the
//! workspace's sync `mysql` client on a blocking thread: a worker holds one
//! connection and waits for each transaction anyway, so an async client
//! would buy nothing but a second MySQL protocol implementation to build.

use std::collections::HashMap;

use crate::config::{Mapping, TargetKind, TargetUrl};
use crate::sql::{quote, Origin, Statement, TableInfo, TargetColumn};
use crate::value::{Param, TargetClass};
use sluice_binlog::BinlogPosition;

/// How long a connection attempt may take before it is retried.
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The table of positions, created in the target when missing.
pub const OFFSETS_TABLE: &str = "sluice_sink_offsets";

/// A connection to a target.
pub enum Target {
    Postgres(tokio_postgres::Client),
    /// `None` only while a blocking call holds it.
    MySql(Option<mysql::Conn>),
}

/// A PostgreSQL error with the server's message (the plain one says only
/// "db error").
fn pg_error(e: tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => db.to_string(),
        None => e.to_string(),
    }
}

fn pg_params(params: &[Param]) -> Vec<Option<String>> {
    params
        .iter()
        .map(|p| match p {
            Param::Null => None,
            Param::Text(t) => Some(t.clone()),
            Param::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
        })
        .collect()
}

fn my_params(params: &[Param]) -> mysql::Params {
    if params.is_empty() {
        return mysql::Params::Empty;
    }
    mysql::Params::Positional(
        params
            .iter()
            .map(|p| match p {
                Param::Null => mysql::Value::NULL,
                Param::Text(t) => mysql::Value::Bytes(t.as_bytes().to_vec()),
                Param::Bytes(b) => mysql::Value::Bytes(b.clone()),
            })
            .collect(),
    )
}

impl Target {
    pub async fn connect(url: &TargetUrl) -> Result<Target, String> {
        match url.kind {
            TargetKind::Postgres => {
                let mut config = tokio_postgres::Config::new();
                config
                    .host(&url.host)
                    .port(url.port)
                    .user(&url.user)
                    .dbname(&url.database)
                    .application_name("sluice-sink")
                    .connect_timeout(CONNECT_TIMEOUT);
                if !url.password.is_empty() {
                    config.password(&url.password);
                }
                let (client, connection) = config
                    .connect(tokio_postgres::NoTls)
                    .await
                    .map_err(|e| format!("connecting to {url}: {}", pg_error(e)))?;
                // The connection ends with the client.
                tokio::spawn(async move {
                    if let Err(e) = connection.await {
                        tracing::debug!(error = %e, "target connection closed");
                    }
                });
                Ok(Target::Postgres(client))
            }
            TargetKind::MySql => {
                let opts = mysql::OptsBuilder::new()
                    .ip_or_hostname(Some(url.host.clone()))
                    .tcp_port(url.port)
                    .user(Some(url.user.clone()))
                    .pass((!url.password.is_empty()).then(|| url.password.clone()))
                    .db_name(Some(url.database.clone()))
                    .prefer_socket(false)
                    .tcp_connect_timeout(Some(CONNECT_TIMEOUT))
                    .init(vec!["SET NAMES utf8mb4"]);
                let shown = url.to_string();
                let conn = tokio::task::spawn_blocking(move || mysql::Conn::new(opts))
                    .await
                    .map_err(|e| format!("connecting to {shown}: {e}"))?
                    .map_err(|e| format!("connecting to {shown}: {e}"))?;
                Ok(Target::MySql(Some(conn)))
            }
        }
    }

    pub fn kind(&self) -> TargetKind {
        match self {
            Target::Postgres(_) => TargetKind::Postgres,
            Target::MySql(_) => TargetKind::MySql,
        }
    }

    /// Runs `f` on the MySQL connection on a blocking thread.
    async fn my<T: Send + 'static>(
        conn: &mut Option<mysql::Conn>,
        f: impl FnOnce(&mut mysql::Conn) -> Result<T, String> + Send + 'static,
    ) -> Result<T, String> {
        let mut c = conn
            .take()
            .ok_or_else(|| "the target connection was lost".to_string())?;
        let (c, r) = tokio::task::spawn_blocking(move || {
            let r = f(&mut c);
            (c, r)
        })
        .await
        .map_err(|e| format!("the target call failed: {e}"))?;
        *conn = Some(c);
        r
    }

    /// Creates `sluice_sink_offsets` when missing.
    pub async fn prepare(&mut self) -> Result<(), String> {
        let what = |e: String| format!("creating {OFFSETS_TABLE}: {e}");
        match self {
            Target::Postgres(c) => c
                .batch_execute(&format!(
                    "CREATE TABLE IF NOT EXISTS {OFFSETS_TABLE} (sink text NOT NULL, mapping text NOT NULL, file text NOT NULL, pos bigint NOT NULL, gtid text, epoch bigint NOT NULL DEFAULT 0, PRIMARY KEY (sink, mapping))"
                ))
                .await
                .map_err(|e| what(pg_error(e)))?,
            Target::MySql(c) => Self::my(c, |c| {
                use mysql::prelude::Queryable;
                c.query_drop(format!(
                    "CREATE TABLE IF NOT EXISTS {OFFSETS_TABLE} (sink varchar(255) NOT NULL, mapping varchar(255) NOT NULL, file varchar(255) NOT NULL, pos bigint NOT NULL, gtid text, epoch bigint NOT NULL DEFAULT 0, PRIMARY KEY (sink, mapping))"
                ))
                .map_err(|e| e.to_string())
            })
            .await
            .map_err(what)?,
        }
        self.add_epoch_column().await
    }

    /// Adds the `epoch` column (which server of a failover sequence a
    /// position is on) to a table made before it existed. Looked up first:
    /// MySQL has no `ADD COLUMN IF NOT EXISTS`.
    async fn add_epoch_column(&mut self) -> Result<(), String> {
        let what = |e: String| format!("adding the epoch column to {OFFSETS_TABLE}: {e}");
        let alter =
            format!("ALTER TABLE {OFFSETS_TABLE} ADD COLUMN epoch bigint NOT NULL DEFAULT 0");
        match self {
            Target::Postgres(c) => {
                let found = c
                    .query(
                        "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'epoch'",
                        &[&OFFSETS_TABLE],
                    )
                    .await
                    .map_err(|e| what(pg_error(e)))?;
                if found.is_empty() {
                    c.batch_execute(&alter).await.map_err(|e| what(pg_error(e)))?;
                }
                Ok(())
            }
            Target::MySql(c) => Self::my(c, move |c| {
                use mysql::prelude::Queryable;
                let found: Vec<u8> = c
                    .exec(
                        "SELECT 1 FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = 'epoch'",
                        (OFFSETS_TABLE,),
                    )
                    .map_err(|e| e.to_string())?;
                if found.is_empty() {
                    c.query_drop(alter).map_err(|e| e.to_string())?;
                }
                Ok(())
            })
            .await
            .map_err(what),
        }
    }

    /// Makes the rows of `sink`'s mappings in `sluice_sink_offsets` (no
    /// position yet: file '' and pos -1), so that every apply can lock them.
    pub async fn ensure_offsets(&mut self, sink: &str, mappings: &[String]) -> Result<(), String> {
        let what = |e: String| format!("writing {OFFSETS_TABLE}: {e}");
        match self {
            Target::Postgres(c) => {
                for m in mappings {
                    c.execute(
                        &format!("INSERT INTO {OFFSETS_TABLE} (sink, mapping, file, pos, gtid) VALUES ($1, $2, '', -1, '') ON CONFLICT (sink, mapping) DO NOTHING"),
                        &[&sink, m],
                    )
                    .await
                    .map_err(|e| what(pg_error(e)))?;
                }
                Ok(())
            }
            Target::MySql(c) => {
                let sink = sink.to_string();
                let mappings = mappings.to_vec();
                Self::my(c, move |c| {
                    use mysql::prelude::Queryable;
                    for m in &mappings {
                        c.exec_drop(
                            format!("INSERT IGNORE INTO {OFFSETS_TABLE} (sink, mapping, file, pos, gtid) VALUES (?, ?, '', -1, '')"),
                            (sink.as_str(), m.as_str()),
                        )
                        .map_err(|e| e.to_string())?;
                    }
                    Ok(())
                })
                .await
                .map_err(what)
            }
        }
    }

    /// Every position row of `sink` and of its partitions (`SINK#…`, see
    /// [`crate::partition`]): (sink name, mapping, position; `None` for a
    /// row without one yet).
    pub async fn read_all_offsets(
        &mut self,
        sink: &str,
    ) -> Result<Vec<(String, String, Option<BinlogPosition>)>, String> {
        let what = |e: String| format!("reading {OFFSETS_TABLE}: {e}");
        // LIKE's own characters in the name stand for themselves.
        let like = format!(
            "{}#%",
            sink.replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        );
        let rows: Vec<(String, String, String, i64, Option<String>, i64)> = match self {
            Target::Postgres(c) => {
                let rows = c
                    .query(
                        &format!(
                            "SELECT sink, mapping, file, pos, gtid, epoch FROM {OFFSETS_TABLE} WHERE sink = $1 OR sink LIKE $2"
                        ),
                        &[&sink, &like],
                    )
                    .await
                    .map_err(|e| what(pg_error(e)))?;
                let mut out = Vec::new();
                for r in rows {
                    let get = |e| what(pg_error(e));
                    out.push((
                        r.try_get(0).map_err(get)?,
                        r.try_get(1).map_err(get)?,
                        r.try_get(2).map_err(get)?,
                        r.try_get(3).map_err(get)?,
                        r.try_get(4).map_err(get)?,
                        r.try_get(5).map_err(get)?,
                    ));
                }
                out
            }
            Target::MySql(c) => {
                let sink = sink.to_string();
                Self::my(c, move |c| {
                    use mysql::prelude::Queryable;
                    c.exec(
                        format!(
                            "SELECT sink, mapping, file, pos, gtid, epoch FROM {OFFSETS_TABLE} WHERE sink = ? OR sink LIKE ?"
                        ),
                        (sink, like),
                    )
                    .map_err(|e| e.to_string())
                })
                .await
                .map_err(what)?
            }
        };
        rows.into_iter()
            .filter(|(name, _, _, _, _, _)| crate::partition::is_partition_of(name, sink))
            .map(|(name, mapping, file, offset, gtid, epoch)| {
                if file.is_empty() {
                    return Ok((name, mapping, None));
                }
                let (Ok(offset), Ok(epoch)) = (u64::try_from(offset), u32::try_from(epoch)) else {
                    return Err(format!("{OFFSETS_TABLE}: {name} / {mapping} has the position {file}:{offset} (epoch {epoch}), which no binlog has: set it right or delete the row to start again"));
                };
                // A GTID text the table holds but that reads as none is only
                // informational: the sink resumes by file and offset.
                let gtid = gtid.and_then(|g| g.parse().ok());
                let p = BinlogPosition::new(file, offset)
                    .with_gtid(gtid)
                    .in_epoch(epoch);
                Ok((name, mapping, Some(p)))
            })
            .collect()
    }

    /// Moves a sink's positions to another partitioning in one transaction:
    /// the rows of the `former` partitions go, each of the `current` ones
    /// gets `positions` (mapping → position).
    pub async fn relayout_offsets(
        &mut self,
        former: &[String],
        current: &[String],
        positions: &std::collections::BTreeMap<String, BinlogPosition>,
    ) -> Result<(), String> {
        let kind = self.kind();
        let mut all = Vec::new();
        for name in former {
            let sql = match kind {
                TargetKind::Postgres => format!("DELETE FROM {OFFSETS_TABLE} WHERE sink = $1"),
                TargetKind::MySql => format!("DELETE FROM {OFFSETS_TABLE} WHERE sink = ?"),
            };
            all.push(Statement {
                sql,
                params: vec![Param::Text(name.clone())],
                origin: Origin::default(),
                rows: 0,
                arrays: 0,
                staged: false,
            });
        }
        for name in current {
            for (mapping, p) in positions {
                all.push(offset_statement(kind, name, mapping, p));
            }
        }
        let what =
            |e: String| format!("moving the positions of {OFFSETS_TABLE} to the new threads: {e}");
        match self {
            Target::Postgres(c) => {
                let tx = c.transaction().await.map_err(|e| what(pg_error(e)))?;
                let mut staging = Staging::default();
                for s in &all {
                    pg_run(Pg::Transaction(&tx), s, &mut staging)
                        .await
                        .map_err(|e| what(pg_error(e)))?;
                }
                tx.commit().await.map_err(|e| what(pg_error(e)))
            }
            Target::MySql(c) => Self::my(c, move |c| {
                use mysql::prelude::Queryable;
                let mut tx = c
                    .start_transaction(mysql::TxOpts::default())
                    .map_err(|e| e.to_string())?;
                for s in &all {
                    tx.exec_drop(s.sql.as_str(), my_params(&s.params))
                        .map_err(|e| e.to_string())?;
                }
                tx.commit().map_err(|e| e.to_string())
            })
            .await
            .map_err(what),
        }
    }

    /// The columns and primary key of a mapping's target table (no columns:
    /// the table does not exist).
    pub async fn table_info(&mut self, mapping: &Mapping) -> Result<TableInfo, String> {
        let what = |e: String| {
            format!(
                "{}: reading the columns of the target table {}: {e}",
                mapping.file.display(),
                mapping.target_table
            )
        };
        match self {
            Target::Postgres(c) => {
                let name = match &mapping.target_schema {
                    Some(s) => format!(
                        "{}.{}",
                        quote(TargetKind::Postgres, s),
                        quote(TargetKind::Postgres, &mapping.target_table)
                    ),
                    None => quote(TargetKind::Postgres, &mapping.target_table),
                };
                let rows = c
                    .query(
                        "SELECT a.attname::text, format_type(a.atttypid, NULL), format_type(a.atttypid, a.atttypmod), t.typcategory::text, t.typname::text \
                         FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid \
                         WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
                        &[&name],
                    )
                    .await
                    .map_err(|e| what(pg_error(e)))?;
                let mut info = TableInfo::default();
                for r in rows {
                    let get = |i| r.try_get::<_, String>(i).map_err(|e| what(pg_error(e)));
                    let (column, base, full, category, typname) =
                        (get(0)?, get(1)?, get(2)?, get(3)?, get(4)?);
                    let class = match (category.as_str(), typname.as_str()) {
                        (_, "bytea") => TargetClass::Binary,
                        ("V", _) => TargetClass::Bit,
                        ("N" | "B", _) => TargetClass::Numeric,
                        _ => TargetClass::Other,
                    };
                    // Cast to the type without its modifier (an explicit
                    // cast to varchar(n) would cut a long value where an
                    // insert refuses it), but bit(n) keeps its length.
                    let cast = if class == TargetClass::Bit {
                        full
                    } else {
                        base
                    };
                    info.columns.push(TargetColumn {
                        name: column,
                        cast,
                        class,
                    });
                }
                let keys = c
                    .query(
                        "SELECT a.attname::text FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) \
                         WHERE i.indrelid = to_regclass($1) AND i.indisprimary",
                        &[&name],
                    )
                    .await
                    .map_err(|e| what(pg_error(e)))?;
                for r in keys {
                    info.primary_key
                        .push(r.try_get(0).map_err(|e| what(pg_error(e)))?);
                }
                Ok(info)
            }
            Target::MySql(c) => {
                let schema = mapping.target_schema.clone();
                let table = mapping.target_table.clone();
                let rows: Vec<(String, String, String)> = Self::my(c, move |c| {
                    use mysql::prelude::Queryable;
                    c.exec(
                        "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_KEY FROM information_schema.COLUMNS \
                         WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
                        (schema, table),
                    )
                    .map_err(|e| e.to_string())
                })
                .await
                .map_err(what)?;
                let mut info = TableInfo::default();
                for (column, data_type, key) in rows {
                    let class = match data_type.to_ascii_lowercase().as_str() {
                        "tinyint" | "smallint" | "mediumint" | "int" | "bigint" | "decimal"
                        | "float" | "double" => TargetClass::Numeric,
                        "bit" => TargetClass::Bit,
                        "binary" | "varbinary" | "tinyblob" | "blob" | "mediumblob"
                        | "longblob" => TargetClass::Binary,
                        _ => TargetClass::Other,
                    };
                    if key == "PRI" {
                        info.primary_key.push(column.clone());
                    }
                    info.columns.push(TargetColumn {
                        name: column,
                        cast: data_type,
                        class,
                    });
                }
                Ok(info)
            }
        }
    }

    /// Adds a column to a target table (`table` quoted), in a transaction of
    /// its own (MariaDB/MySQL commit DDL anyway).
    pub async fn add_column(
        &mut self,
        table: &str,
        column: &str,
        sql_type: &str,
    ) -> Result<(), String> {
        let sql = format!(
            "ALTER TABLE {table} ADD COLUMN {} {sql_type}",
            quote(self.kind(), column)
        );
        let what = |e: String| format!("{sql}: {e}");
        match self {
            Target::Postgres(c) => c.batch_execute(&sql).await.map_err(|e| what(pg_error(e))),
            Target::MySql(c) => {
                let run = sql.clone();
                Self::my(c, move |c| {
                    use mysql::prelude::Queryable;
                    c.query_drop(run).map_err(|e| e.to_string())
                })
                .await
                .map_err(what)
            }
        }
    }

    /// Runs one DDL statement (a `mirrorDb` mapping's) as it is, outside
    /// any transaction (MariaDB/MySQL commit DDL by themselves); a refusal
    /// by the server comes with its error code.
    pub async fn execute_ddl(&mut self, sql: &str) -> Result<(), (Option<u16>, String)> {
        match self {
            Target::Postgres(_) => Err((
                None,
                "DDL is mirrored into MariaDB/MySQL targets only".to_string(),
            )),
            Target::MySql(c) => {
                let run = sql.to_string();
                Self::my(c, move |c| {
                    use mysql::prelude::Queryable;
                    Ok(c.query_drop(run).map_err(|e| match e {
                        mysql::Error::MySqlError(m) => (Some(m.code), m.message),
                        e => (None, e.to_string()),
                    }))
                })
                .await
                .map_err(|e| (None, e))?
            }
        }
    }

    /// Runs `statements` and records `offsets` (mapping → position) for
    /// `sink`, all in one transaction. The error names the statement's first
    /// row: its source table and binlog position.
    ///
    /// The transaction first locks the sink's rows of `sluice_sink_offsets`
    /// and checks that they still hold `expected` (mapping → position
    /// applied, as read when connecting and moved by this worker since): a
    /// second writer of the same sink (a server killed while its last
    /// COMMIT was on its way, another server given the destination) makes
    /// the transaction fail instead of applying changes twice.
    pub async fn apply(
        &mut self,
        statements: Vec<Statement>,
        sink: &str,
        offsets: &[(String, BinlogPosition)],
        expected: &[(String, Option<BinlogPosition>)],
    ) -> Result<(), String> {
        let kind = self.kind();
        let lock = offsets_lock(kind);
        let check = {
            let sink = sink.to_string();
            let expected = expected.to_vec();
            move |rows: Vec<(String, String, i64, i64)>| -> Result<(), String> {
                for (mapping, want) in &expected {
                    let have = rows
                        .iter()
                        .find(|(m, file, _, _)| m == mapping && !file.is_empty())
                        .map(|(_, file, pos, epoch)| {
                            let n = |v: i64| u64::try_from(v).unwrap_or(u64::MAX);
                            (file.as_str(), n(*pos), n(*epoch))
                        });
                    let want = want
                        .as_ref()
                        .map(|p| (p.file.as_str(), p.offset, u64::from(p.epoch)));
                    if have != want {
                        let show = |p: Option<(&str, u64, u64)>| {
                            p.map_or("none".to_string(), |(f, p, e)| {
                                format!("{f}:{p} (epoch {e})")
                            })
                        };
                        return Err(format!(
                            "{OFFSETS_TABLE}: the position of {sink} / {mapping} is {}, not {} as this worker applied: another writer applies this sink; reading the positions again",
                            show(have),
                            show(want),
                        ));
                    }
                }
                Ok(())
            }
        };
        let mut all = statements;
        for (mapping, p) in offsets {
            all.push(offset_statement(kind, sink, mapping, p));
        }
        let fail = |s: &Statement, e: String| {
            if s.rows == 0 {
                format!("writing {OFFSETS_TABLE}: {e}")
            } else {
                format!("{} ({} rows from it on): {e}", s.origin, s.rows)
            }
        };
        match self {
            Target::Postgres(c) => {
                let tx = c
                    .transaction()
                    .await
                    .map_err(|e| format!("beginning a transaction: {}", pg_error(e)))?;
                let locked = tx
                    .query(lock.as_str(), &[&sink])
                    .await
                    .map_err(|e| format!("locking {OFFSETS_TABLE}: {}", pg_error(e)))?;
                let mut rows = Vec::with_capacity(locked.len());
                for r in &locked {
                    let get = |e| format!("reading {OFFSETS_TABLE}: {}", pg_error(e));
                    rows.push((
                        r.try_get(0).map_err(get)?,
                        r.try_get(1).map_err(get)?,
                        r.try_get(2).map_err(get)?,
                        r.try_get(3).map_err(get)?,
                    ));
                }
                check(rows)?;
                let mut staging = Staging::default();
                for s in &all {
                    pg_run(Pg::Transaction(&tx), s, &mut staging)
                        .await
                        .map_err(|e| fail(s, pg_error(e)))?;
                }
                tx.commit()
                    .await
                    .map_err(|e| format!("committing: {}", pg_error(e)))
            }
            Target::MySql(c) => {
                let sink_owned = sink.to_string();
                Self::my(c, move |c| {
                    use mysql::prelude::Queryable;
                    let mut tx = c
                        .start_transaction(mysql::TxOpts::default())
                        .map_err(|e| format!("beginning a transaction: {e}"))?;
                    let rows: Vec<(String, String, i64, i64)> = tx
                        .exec(lock.as_str(), (sink_owned.as_str(),))
                        .map_err(|e| format!("locking {OFFSETS_TABLE}: {e}"))?;
                    check(rows)?;
                    for s in &all {
                        tx.exec_drop(s.sql.as_str(), my_params(&s.params))
                            .map_err(|e| fail(s, e.to_string()))?;
                    }
                    tx.commit().map_err(|e| format!("committing: {e}"))
                })
                .await
            }
        }
    }

    /// Begins the transaction of an ETL (a full load of a mapping) and
    /// takes the lock every sink transaction of `sinks` takes first (their
    /// rows of `sluice_sink_offsets`; one name per partition, see
    /// [`crate::partition`]): until [`Target::etl_commit`], the sink's
    /// worker waits and applies nothing.
    pub async fn etl_begin(&mut self, sinks: &[String]) -> Result<(), String> {
        let sql = offsets_lock(self.kind());
        let lock = |e: String| format!("locking {OFFSETS_TABLE}: {e}");
        match self {
            Target::Postgres(c) => {
                c.batch_execute("BEGIN")
                    .await
                    .map_err(|e| format!("beginning a transaction: {}", pg_error(e)))?;
                for sink in sinks {
                    c.query(sql.as_str(), &[sink])
                        .await
                        .map_err(|e| lock(pg_error(e)))?;
                }
                Ok(())
            }
            Target::MySql(c) => {
                let sinks = sinks.to_vec();
                Self::my(c, move |c| {
                    use mysql::prelude::Queryable;
                    c.query_drop("START TRANSACTION")
                        .map_err(|e| format!("beginning a transaction: {e}"))?;
                    for sink in &sinks {
                        let _: Vec<(String, String, i64, i64)> = c
                            .exec(sql.as_str(), (sink.as_str(),))
                            .map_err(|e| lock(e.to_string()))?;
                    }
                    Ok(())
                })
                .await
            }
        }
    }

    /// Runs `statements` in the transaction of [`Target::etl_begin`].
    pub async fn etl_write(&mut self, statements: Vec<Statement>) -> Result<(), String> {
        match self {
            Target::Postgres(c) => {
                let mut staging = Staging::default();
                for s in &statements {
                    pg_run(Pg::Client(c), s, &mut staging)
                        .await
                        .map_err(|e| format!("{}: {}", s.origin.table, pg_error(e)))?;
                }
                Ok(())
            }
            Target::MySql(c) => {
                Self::my(c, move |c| {
                    use mysql::prelude::Queryable;
                    for s in &statements {
                        c.exec_drop(s.sql.as_str(), my_params(&s.params))
                            .map_err(|e| format!("{}: {e}", s.origin.table))?;
                    }
                    Ok(())
                })
                .await
            }
        }
    }

    /// Commits the transaction of [`Target::etl_begin`]. (On an error the
    /// ETL drops the connection, which rolls it back.)
    pub async fn etl_commit(&mut self) -> Result<(), String> {
        match self {
            Target::Postgres(c) => c
                .batch_execute("COMMIT")
                .await
                .map_err(|e| format!("committing: {}", pg_error(e))),
            Target::MySql(c) => {
                Self::my(c, |c| {
                    use mysql::prelude::Queryable;
                    c.query_drop("COMMIT")
                        .map_err(|e| format!("committing: {e}"))
                })
                .await
            }
        }
    }
}

/// A PostgreSQL connection, in a transaction of the sink or in an ETL's
/// (which began it with `BEGIN`): both can `COPY`, which
/// `tokio_postgres::GenericClient` leaves out.
enum Pg<'a> {
    Client(&'a tokio_postgres::Client),
    Transaction(&'a tokio_postgres::Transaction<'a>),
}

impl Pg<'_> {
    async fn execute(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<u64, tokio_postgres::Error> {
        match self {
            Pg::Client(c) => c.execute(sql, params).await,
            Pg::Transaction(t) => t.execute(sql, params).await,
        }
    }

    async fn batch_execute(&self, sql: &str) -> Result<(), tokio_postgres::Error> {
        match self {
            Pg::Client(c) => c.batch_execute(sql).await,
            Pg::Transaction(t) => t.batch_execute(sql).await,
        }
    }

    async fn prepare(&self, sql: &str) -> Result<tokio_postgres::Statement, tokio_postgres::Error> {
        match self {
            Pg::Client(c) => c.prepare(sql).await,
            Pg::Transaction(t) => t.prepare(sql).await,
        }
    }

    /// Runs the prepared `COPY … FROM STDIN` with `data` as its input.
    async fn copy_in(
        &self,
        copy: &tokio_postgres::Statement,
        data: Vec<u8>,
    ) -> Result<u64, tokio_postgres::Error> {
        use futures_util::SinkExt;
        let sink = match self {
            Pg::Client(c) => c.copy_in(copy).await?,
            Pg::Transaction(t) => t.copy_in(copy).await?,
        };
        let mut sink = std::pin::pin!(sink);
        sink.send(bytes::Bytes::from(data)).await?;
        sink.as_mut().finish().await
    }
}

/// The staging tables of `COPY` upserts made sure of in one transaction
/// (by width) and their prepared `COPY`s. Made sure of in each transaction
/// again: a rolled back transaction takes a table it created with it.
#[derive(Default)]
struct Staging {
    copies: HashMap<usize, tokio_postgres::Statement>,
}

/// Runs one statement on PostgreSQL: an `unnest` statement's rows as one
/// `text[]` per column; a staged one's by `COPY` into its staging table,
/// then the statement, which reads them from there.
async fn pg_run(
    c: Pg<'_>,
    s: &Statement,
    staging: &mut Staging,
) -> Result<u64, tokio_postgres::Error> {
    if s.staged {
        let copy = match staging.copies.get(&s.arrays) {
            Some(copy) => copy.clone(),
            None => {
                c.batch_execute(&crate::pgcopy::create_staging(s.arrays))
                    .await?;
                let copy = c.prepare(&crate::pgcopy::copy_statement(s.arrays)).await?;
                staging.copies.insert(s.arrays, copy.clone());
                copy
            }
        };
        c.copy_in(&copy, crate::pgcopy::copy_text(&s.params, s.arrays))
            .await?;
        // No parameters: one round trip by the simple protocol.
        c.batch_execute(&s.sql).await?;
        return Ok(s.rows as u64);
    }
    let params = pg_params(&s.params);
    let columns: Vec<Vec<Option<String>>> = (0..s.arrays)
        .map(|c| params.iter().skip(c).step_by(s.arrays).cloned().collect())
        .collect();
    let refs: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = if s.arrays > 0 {
        columns
            .iter()
            .map(|p| p as &(dyn tokio_postgres::types::ToSql + Sync))
            .collect()
    } else {
        params
            .iter()
            .map(|p| p as &(dyn tokio_postgres::types::ToSql + Sync))
            .collect()
    };
    c.execute(s.sql.as_str(), &refs).await
}

/// The lock every transaction that writes `sink`'s targets takes first (a
/// sink's, an ETL's): its rows of `sluice_sink_offsets`, read with the
/// positions they hold.
fn offsets_lock(kind: TargetKind) -> String {
    let placeholder = match kind {
        TargetKind::Postgres => "$1",
        TargetKind::MySql => "?",
    };
    format!(
        "SELECT mapping, file, pos, epoch FROM {OFFSETS_TABLE} WHERE sink = {placeholder} FOR UPDATE"
    )
}

/// The upsert of one mapping's position.
fn offset_statement(kind: TargetKind, sink: &str, mapping: &str, p: &BinlogPosition) -> Statement {
    let sql = match kind {
        TargetKind::Postgres => format!(
            "INSERT INTO {OFFSETS_TABLE} (sink, mapping, file, pos, gtid, epoch) VALUES ($1, $2, $3, $4::text::bigint, $5, $6::text::bigint) \
             ON CONFLICT (sink, mapping) DO UPDATE SET file = EXCLUDED.file, pos = EXCLUDED.pos, gtid = EXCLUDED.gtid, epoch = EXCLUDED.epoch"
        ),
        TargetKind::MySql => format!(
            "INSERT INTO {OFFSETS_TABLE} (sink, mapping, file, pos, gtid, epoch) VALUES (?, ?, ?, ?, ?, ?) \
             ON DUPLICATE KEY UPDATE file = VALUES(file), pos = VALUES(pos), gtid = VALUES(gtid), epoch = VALUES(epoch)"
        ),
    };
    Statement {
        sql,
        params: vec![
            Param::Text(sink.to_string()),
            Param::Text(mapping.to_string()),
            Param::Text(p.file.clone()),
            Param::Text(p.offset.to_string()),
            Param::Text(p.gtid.as_ref().map(ToString::to_string).unwrap_or_default()),
            Param::Text(p.epoch.to_string()),
        ],
        origin: Origin::default(),
        rows: 0,
        arrays: 0,
        staged: false,
    }
}
