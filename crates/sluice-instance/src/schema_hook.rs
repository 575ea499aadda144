//! The schema tracker as an instance's [`SchemaHook`]: its history lives in
//! `{data dir}/{destination}/schema.history` unless the server chooses
//! another [`SchemaHistoryStore`] (ZooKeeper in a cluster), it is seeded
//! from the source server at the very first start, and it gives every rows
//! event the column names, types, signedness, charsets, labels and keys of
//! its time.

use std::sync::Arc;

use sluice_binlog::TableMap;
use sluice_schema::{BinlogPosition, MetadataSource, SchemaHistoryStore, SchemaTracker};
use sluice_source::conn::{Conn, ConnectOptions};

use crate::entry::ColumnInfo;
use crate::runner::{Description, EventPlace, SchemaHook};

/// An instance's schema tracker.
pub struct TrackedSchema {
    tracker: SchemaTracker,
    metadata: Option<ServerMetadata>,
    /// `schema.table` filter used to choose which tables to seed.
    filter: sluice_canal::TableFilter,
    /// The last description, reused for the following rows events of the
    /// same TABLE_MAP (a statement's rows events all share one).
    last: Option<Described>,
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
        }
    }
}

impl SchemaHook for TrackedSchema {
    fn on_start(&mut self, file: &str, pos: u64) -> Result<(), String> {
        self.last = None;
        let at = BinlogPosition::new(file, pos);
        if self.tracker.has_history() {
            self.tracker.start_at(&at);
            return Ok(());
        }
        match &self.metadata {
            Some(source) => {
                let filter = &self.filter;
                let keep = |db: &str, table: &str| filter.matches(db, table);
                self.tracker
                    .seed(source, &keep, &at)
                    .map_err(|e| format!("reading the schema from the server: {e}"))?;
                self.tracker.set_metadata_source(Box::new(source.clone()));
            }
            None => self.tracker.seed_empty(&at).map_err(|e| e.to_string())?,
        }
        Ok(())
    }

    fn on_query(&mut self, at: &EventPlace<'_>, schema: &str, sql: &str) -> Result<(), String> {
        self.last = None;
        let end = BinlogPosition::new(at.file, at.next_pos);
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
        let end = BinlogPosition::new(at.file, at.next_pos);
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
            .map(|t| {
                t.columns
                    .iter()
                    .map(|c| ColumnInfo {
                        name: c.name.clone(),
                        mysql_type: c.data_type.clone(),
                        is_key: t
                            .primary_key
                            .iter()
                            .any(|k| k.eq_ignore_ascii_case(&c.name)),
                    })
                    .collect::<Arc<[ColumnInfo]>>()
            });
        self.last = Some(Described {
            input: table.clone(),
            records: self.tracker.records().len(),
            table: described.clone(),
            columns: info.clone(),
        });
        Ok((described, info))
    }
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
        let result = match tokio::runtime::Handle::try_current() {
            Ok(handle) => tokio::task::block_in_place(|| handle.block_on(run)),
            Err(_) => tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| sluice_schema::SchemaError::Metadata(e.to_string()))?
                .block_on(run),
        };
        result.map_err(|e| sluice_schema::SchemaError::Metadata(e.to_string()))
    }
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
            Err(e) if e.to_string().contains("1049") => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn show_create_table(&self, db: &str, table: &str) -> sluice_schema::Result<Option<String>> {
        match self.query(&format!("SHOW CREATE TABLE {}.{}", quote(db), quote(table))) {
            Ok(rows) => Ok(rows
                .into_iter()
                .next()
                .and_then(|r| r.into_iter().nth(1).flatten())),
            Err(e) if e.to_string().contains("1146") || e.to_string().contains("1049") => Ok(None),
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
    let store = sluice_schema::FileHistoryStore::open(&path).map_err(|e| e.to_string())?;
    tracing::info!(destination, store = "file", path = %path.display(), "schema history");
    Ok(Box::new(store))
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
