//! How a stream learns its tables: the [`SchemaHook`] every reader asks
//! (statements in binlog order, a description per rows event), the
//! binlog-only hook, and the schema tracker as a hook. The tracker's
//! history lives in `{data dir}/{destination}/schema.history` unless the server chooses
//! another [`SchemaHistoryStore`] (ZooKeeper in a cluster), it is seeded
//! from the source server at the very first start, and it gives every rows
//! event the column names, types, signedness, charsets, labels and keys of
//! its time.

use std::sync::Arc;

use sluice_binlog::TableMap;
use sluice_events::ColumnInfo;
use sluice_schema::{BinlogPosition, MetadataSource, SchemaHistoryStore, SchemaTracker};
use sluice_source::conn::{Conn, ConnectOptions};

/// Where an event is, for the schema hook.
#[derive(Debug, Clone, Copy)]
pub struct EventPlace<'a> {
    pub file: &'a str,
    pub pos: u64,
    /// The position just after the event: where its effect begins.
    pub next_pos: u64,
    /// The QUERY event's status variables (sql_mode, collations), else empty.
    pub status_vars: &'a [u8],
}

/// A rows event's table as the schema knows it: the table map with column
/// names, signedness, charsets and labels, and Canal's column info.
pub type Description = (Arc<TableMap>, Option<Arc<[ColumnInfo]>>);

/// Keeps table descriptions right: sees every statement, and describes the
/// table of every rows event. The schema tracker implements it; [`BinlogOnly`]
/// uses what the binlog itself carries.
pub trait SchemaHook: Send {
    /// Whether column names come from here (a schema tracker) rather than
    /// from the binlog's own metadata.
    fn names_columns(&self) -> bool {
        true
    }
    /// The stream starts at `file:pos` (after a connect, not a reconnect).
    fn on_start(&mut self, _file: &str, _pos: u64) -> Result<(), String> {
        Ok(())
    }
    /// The event of the [`on_query`](Self::on_query) call that follows:
    /// its header's `server_id` and time (seconds since the epoch), and the
    /// executed GTID set once it is applied, when the source has GTIDs. For
    /// hooks that record them with the statement (Debezium's history
    /// positions carry them).
    fn on_statement_source(&mut self, _server_id: u32, _timestamp: u32, _gtids: Option<&str>) {}
    /// The source changed server (a failover): `file:pos`, on the new
    /// server, is where its first event is.
    fn on_source_change(&mut self, _file: &str, _pos: u64) -> Result<(), String> {
        Ok(())
    }
    /// How many times the source changed server, as the history keeps it
    /// across restarts (see `BinlogPosition::epoch`); 0 without a history.
    fn source_epoch(&self) -> u32 {
        0
    }
    /// A statement other than BEGIN/COMMIT, in binlog order.
    fn on_query(&mut self, at: &EventPlace<'_>, schema: &str, sql: &str) -> Result<(), String>;
    /// The table of a rows event: a description whose column definitions
    /// carry names, signedness, charsets and labels, and Canal's column info.
    fn describe(
        &mut self,
        at: &EventPlace<'_>,
        table: &Arc<TableMap>,
    ) -> Result<Description, String>;
}

/// Whether a statement (trimmed) goes to [`SchemaHook::on_query`]: every
/// one but the transaction controls BEGIN, COMMIT and `XA ...`.
pub fn changes_schema_history(sql: &str) -> bool {
    let upper: String = sql.chars().take(8).collect::<String>().to_ascii_uppercase();
    upper != "BEGIN" && upper != "COMMIT" && !upper.starts_with("XA ")
}

/// Column names and types from the binlog's own metadata only.
pub struct BinlogOnly;

impl SchemaHook for BinlogOnly {
    fn names_columns(&self) -> bool {
        false
    }
    fn on_query(&mut self, _: &EventPlace<'_>, _: &str, _: &str) -> Result<(), String> {
        Ok(())
    }
    fn describe(
        &mut self,
        _: &EventPlace<'_>,
        table: &Arc<TableMap>,
    ) -> Result<Description, String> {
        Ok((table.clone(), None))
    }
}

/// An instance's schema tracker.
pub struct TrackedSchema {
    tracker: SchemaTracker,
    metadata: Option<ServerMetadata>,
    /// `schema.table` filter used to choose which tables to seed.
    filter: sluice_canal::TableFilter,
    /// The last description, reused for the following rows events of the
    /// same TABLE_MAP (a statement's rows events all share one).
    last: Option<Described>,
    /// Source changes so far (see `BinlogPosition::epoch`): positions of
    /// the current server are placed after those of earlier ones.
    epoch: u32,
}

struct Described {
    /// The binlog's table map it was made for.
    input: Arc<TableMap>,
    /// The tracker's history length then.
    records: usize,
    table: Arc<TableMap>,
    columns: Option<Arc<[ColumnInfo]>>,
}

impl TrackedSchema {
    pub fn new(
        tracker: SchemaTracker,
        metadata: Option<ServerMetadata>,
        filter: sluice_canal::TableFilter,
    ) -> Self {
        TrackedSchema {
            tracker,
            metadata,
            filter,
            last: None,
            epoch: 0,
        }
    }
}

impl SchemaHook for TrackedSchema {
    fn on_start(&mut self, file: &str, pos: u64) -> Result<(), String> {
        self.last = None;
        // A start is on the server of the history's last source change: a
        // cursor is at most as old as the history, which is written first.
        self.epoch = self.tracker.epoch();
        let at = BinlogPosition::new(file, pos).in_epoch(self.epoch);
        if let Some(source) = &self.metadata {
            source.warn_without_select();
            // Set on every start, not only at seeding: tables the history
            // lacks are read from the server when met (see
            // `SchemaTracker::on_table_map`).
            self.tracker.set_metadata_source(Box::new(source.clone()));
        }
        if self.tracker.has_history() {
            return self.tracker.resume_at(&at).map_err(|e| e.to_string());
        }
        match &self.metadata {
            Some(source) => {
                let filter = &self.filter;
                let keep = |db: &str, table: &str| filter.matches(db, table);
                self.tracker
                    .seed(source, &keep, &at)
                    .map_err(|e| format!("reading the schema from the server: {e}"))?;
            }
            None => self.tracker.seed_empty(&at).map_err(|e| e.to_string())?,
        }
        Ok(())
    }

    fn source_epoch(&self) -> u32 {
        self.epoch
    }

    fn on_source_change(&mut self, file: &str, pos: u64) -> Result<(), String> {
        self.last = None;
        self.epoch += 1;
        let at = BinlogPosition::new(file, pos).in_epoch(self.epoch);
        self.tracker.source_changed(&at).map_err(|e| e.to_string())
    }

    fn on_query(&mut self, at: &EventPlace<'_>, schema: &str, sql: &str) -> Result<(), String> {
        self.last = None;
        let end = BinlogPosition::new(at.file, at.next_pos).in_epoch(self.epoch);
        self.tracker
            .on_query(&end, schema, sql, at.status_vars)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn describe(
        &mut self,
        at: &EventPlace<'_>,
        table: &Arc<TableMap>,
    ) -> Result<Description, String> {
        let end = BinlogPosition::new(at.file, at.next_pos).in_epoch(self.epoch);
        // The same table map as last time gets the same description while
        // the catalog cannot have moved: no statement since (that resets
        // `last`), no new history record, and no record of the history
        // still ahead of this position to apply (replay after a restart).
        if let Some(d) = &self.last {
            let records = self.tracker.records();
            if Arc::ptr_eq(&d.input, table)
                && records.len() == d.records
                && records.last().is_none_or(|r| r.position() <= &end)
            {
                return Ok((d.table.clone(), d.columns.clone()));
            }
        }
        let described = self
            .tracker
            .on_table_map(&end, table)
            .map_err(|e| e.to_string())?;
        let info = self
            .tracker
            .catalog()
            .table(&table.schema, &table.table)
            .filter(|t| t.columns.len() == table.columns.len())
            .map(column_infos);
        self.last = Some(Described {
            input: table.clone(),
            records: self.tracker.records().len(),
            table: described.clone(),
            columns: info.clone(),
        });
        Ok((described, info))
    }
}

/// Canal's column info of a table (names, types, primary key, defaults).
pub fn column_infos(t: &sluice_schema::model::TableSchema) -> Arc<[ColumnInfo]> {
    t.columns
        .iter()
        .map(|c| ColumnInfo {
            name: c.name.clone(),
            mysql_type: c.data_type.clone(),
            is_key: t
                .primary_key
                .iter()
                .any(|k| k.eq_ignore_ascii_case(&c.name)),
            default: c.default.clone(),
        })
        .collect()
}

/// Reads table definitions from the source server over a connection of its
/// own. The tracker's interface is synchronous; the queries run on the
/// async connection from a blocking section of the runtime's thread pool.
#[derive(Clone)]
pub struct ServerMetadata {
    options: ConnectOptions,
    conn: Arc<tokio::sync::Mutex<Option<Conn>>>,
}

impl ServerMetadata {
    pub fn new(options: ConnectOptions) -> Self {
        ServerMetadata {
            options,
            conn: Arc::new(tokio::sync::Mutex::new(None)),
        }
    }

    fn query(&self, sql: &str) -> sluice_schema::Result<Vec<Vec<Option<String>>>> {
        self.run_query(sql).map_err(|e| match e {
            sluice_source::SourceError::Server { code, message, .. }
                if ACCESS_DENIED.contains(&code) =>
            {
                sluice_schema::SchemaError::MetadataDenied {
                    account: self.account(),
                    message: format!("error {code}: {message}"),
                }
            }
            e => sluice_schema::SchemaError::Metadata(e.to_string()),
        })
    }

    fn run_query(&self, sql: &str) -> Result<Vec<Vec<Option<String>>>, sluice_source::SourceError> {
        let run = async {
            let mut guard = self.conn.lock().await;
            let mut conn = match guard.take() {
                Some(c) => c,
                None => Conn::connect(&self.options).await?,
            };
            let rows = conn.query(sql).await?.rows;
            // Kept only while it works: a failed one is replaced next time.
            *guard = Some(conn);
            Ok::<_, sluice_source::SourceError>(rows)
        };
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => tokio::task::block_in_place(|| handle.block_on(run)),
            Err(_) => {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| sluice_source::SourceError::Config(e.to_string()))?;
                let result = runtime.block_on(run);
                // A connection belongs to the runtime that opened it, and
                // this one ends here.
                runtime.block_on(async { drop(self.conn.lock().await.take()) });
                result
            }
        }
    }

    /// The account as the server names it (`'user'@'host'`), for GRANT
    /// statements; the configured user at any host if the server does not
    /// say.
    fn account(&self) -> String {
        let current = self
            .run_query("SELECT CURRENT_USER()")
            .ok()
            .and_then(|rows| rows.into_iter().next())
            .and_then(|r| r.into_iter().next().flatten());
        let (user, host) = match current.as_deref().and_then(|c| c.rsplit_once('@')) {
            Some((u, h)) => (u.to_string(), h.to_string()),
            None => (self.options.user.clone(), "%".to_string()),
        };
        format!(
            "'{}'@'{}'",
            user.replace('\'', "''"),
            host.replace('\'', "''")
        )
    }

    /// Warns when the account holds no SELECT privilege at all: the tracker
    /// then cannot read table definitions (seeding finds no table, and a
    /// table met in the binlog cannot be read), and rows of tables it does
    /// not know fail until the privilege is granted. Only the privilege
    /// lists of `SHOW GRANTS` are looked at (its lines can hold password
    /// hashes and are never logged). A failing check is only noted at debug
    /// level: the reads themselves report their errors.
    pub fn warn_without_select(&self) {
        let grants = match self.run_query("SHOW GRANTS") {
            Ok(rows) => rows,
            Err(e) => {
                tracing::debug!(error = %e, "cannot check the account's privileges");
                return;
            }
        };
        let lines: Vec<String> = grants
            .into_iter()
            .filter_map(|r| r.into_iter().next().flatten())
            .collect();
        if lines.iter().any(|l| grants_select(l)) {
            return;
        }
        let account = self.account();
        tracing::warn!(
            %account,
            "the source account has no SELECT privilege: the schema tracker cannot read table \
             definitions (SHOW CREATE TABLE), so it cannot seed the schema nor learn a table it \
             meets in the binlog, and rows of such tables stop the instance until it can. Fix: \
             run `GRANT SELECT ON *.* TO {account}` on the source (or ON `db`.* for each \
             captured database)"
        );
    }
}

/// Server errors that mean "not allowed": 1044 database, 1142 table, 1143
/// column access denied, 1227 a privilege such as SHOW DATABASES missing.
const ACCESS_DENIED: &[u16] = &[1044, 1142, 1143, 1227];

/// Whether a `SHOW GRANTS` line grants SELECT (or ALL PRIVILEGES) on
/// something. Role grants (`GRANT role TO user`) have no `ON` and are
/// skipped; the role's own lines follow when it is a default role.
fn grants_select(line: &str) -> bool {
    let upper = line.to_ascii_uppercase();
    let Some(rest) = upper.strip_prefix("GRANT ") else {
        return false;
    };
    let Some((privileges, _)) = rest.split_once(" ON ") else {
        return false;
    };
    privileges.contains("ALL PRIVILEGES")
        || privileges
            .split(',')
            .any(|p| p.trim() == "SELECT" || p.trim().starts_with("SELECT ("))
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

impl MetadataSource for ServerMetadata {
    fn list_databases(&self) -> sluice_schema::Result<Vec<String>> {
        Ok(self
            .query("SHOW DATABASES")?
            .into_iter()
            .filter_map(|r| r.into_iter().next().flatten())
            .collect())
    }

    fn list_tables(&self, db: &str) -> sluice_schema::Result<Vec<String>> {
        Ok(self
            .query(&format!(
                "SHOW FULL TABLES FROM {} WHERE Table_type = 'BASE TABLE'",
                quote(db)
            ))?
            .into_iter()
            .filter_map(|r| r.into_iter().next().flatten())
            .collect())
    }

    fn show_create_database(&self, db: &str) -> sluice_schema::Result<Option<String>> {
        match self.query(&format!("SHOW CREATE DATABASE {}", quote(db))) {
            Ok(rows) => Ok(rows
                .into_iter()
                .next()
                .and_then(|r| r.into_iter().nth(1).flatten())),
            Err(sluice_schema::SchemaError::Metadata(e)) if e.contains("1049") => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn show_create_table(&self, db: &str, table: &str) -> sluice_schema::Result<Option<String>> {
        match self.query(&format!("SHOW CREATE TABLE {}.{}", quote(db), quote(table))) {
            Ok(rows) => Ok(rows
                .into_iter()
                .next()
                .and_then(|r| r.into_iter().nth(1).flatten())),
            Err(sluice_schema::SchemaError::Metadata(e))
                if e.contains("1146") || e.contains("1049") =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

/// The history store of a destination when the server chooses none:
/// `{data_dir}/{destination}/schema.history`.
pub fn file_history_store(
    data_dir: &std::path::Path,
    destination: &str,
) -> Result<Box<dyn SchemaHistoryStore>, String> {
    let dir = data_dir.join(destination);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join("schema.history");
    refuse_lost_history(data_dir, destination, &path)?;
    let store = sluice_schema::FileHistoryStore::open(&path).map_err(|e| e.to_string())?;
    tracing::info!(destination, store = "file", path = %path.display(), "schema history");
    Ok(Box::new(store))
}

/// A history with no record next to a cursor in `meta.dat` was lost (or
/// emptied): the instance already streamed, and seeding from the server now
/// would take today's schema for the cursor's older position. Only a
/// destination without any cursor (its very first start) seeds.
fn refuse_lost_history(
    data_dir: &std::path::Path,
    destination: &str,
    path: &std::path::Path,
) -> Result<(), String> {
    if !sluice_schema::FileHistoryStore::holds_no_record(path).map_err(|e| e.to_string())? {
        return Ok(());
    }
    let cursors = sluice_meta::FileCursorStore::new(data_dir);
    let Ok(meta) = sluice_meta::CursorStore::load(&cursors, destination) else {
        // An unreadable meta.dat is reported where cursors are read.
        return Ok(());
    };
    let Some(cursor) = meta.client_datas.iter().find_map(|c| c.cursor.as_ref()) else {
        return Ok(());
    };
    Err(format!(
        "schema history {} holds no record, but the destination has a cursor at {}:{} in {}: \
         the schema at that position is unknown (the history was lost or emptied), and \
         seeding from the server would take its current schema for an older position; {}",
        path.display(),
        cursor.postion.journal_name,
        cursor.postion.position,
        cursors.path(destination).display(),
        sluice_schema::history::DAMAGED_HISTORY_FIX,
    ))
}

/// The schema hook of a destination: history in
/// `{data_dir}/{destination}/schema.history`, seeded from the server.
pub fn tracked_schema(
    data_dir: &std::path::Path,
    destination: &str,
    connect: &ConnectOptions,
    filter: sluice_canal::TableFilter,
) -> Result<Box<dyn SchemaHook>, String> {
    tracked_schema_in(file_history_store(data_dir, destination)?, connect, filter)
}

/// The schema hook of a destination with its history in `store`, seeded
/// from the server.
pub fn tracked_schema_in(
    store: Box<dyn SchemaHistoryStore>,
    connect: &ConnectOptions,
    filter: sluice_canal::TableFilter,
) -> Result<Box<dyn SchemaHook>, String> {
    let tracker = SchemaTracker::open(store, sluice_schema::TrackerOptions::default())
        .map_err(|e| e.to_string())?;
    Ok(Box::new(TrackedSchema::new(
        tracker,
        Some(ServerMetadata::new(connect.clone())),
        filter,
    )))
}

/// A history store that reads but never writes: for a reader that replays
/// positions another reader of the destination records (a lagging client's
/// own stream), so two writers never append to one history.
pub fn read_only(store: Box<dyn SchemaHistoryStore>) -> Box<dyn SchemaHistoryStore> {
    Box::new(ReadOnlyHistory(store))
}

struct ReadOnlyHistory(Box<dyn SchemaHistoryStore>);

impl SchemaHistoryStore for ReadOnlyHistory {
    fn append(&mut self, _record: &sluice_schema::HistoryRecord) -> sluice_schema::Result<()> {
        Ok(())
    }
    fn load(&mut self) -> sluice_schema::Result<Vec<sluice_schema::HistoryRecord>> {
        self.0.load()
    }
    fn location(&self) -> String {
        self.0.location()
    }
    fn torn_tail(&self) -> Option<&str> {
        self.0.torn_tail()
    }
}
