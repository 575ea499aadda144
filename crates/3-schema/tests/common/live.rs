//! Helpers for tests on a private MariaDB: a MetadataSource over the test
//! server, and decoding its binlog files through a SchemaTracker.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};

use sluice_binlog::{walk_file, Cell, EventData, GtidState, MariadbGtidState, RowsKind, TableMap};
use sluice_schema::error::{Result as SResult, SchemaError};
use sluice_schema::metadata::MetadataSource;
use sluice_schema::position::BinlogPosition;
use sluice_schema::tracker::SchemaTracker;
use sluice_testkit::MariaDb;

/// The live schema of a test server, through its `query` helper.
pub struct TestSource(pub Arc<MariaDb>);

fn meta_err(e: anyhow::Error) -> SchemaError {
    SchemaError::Metadata(format!("{e:#}"))
}

fn q(id: &str) -> String {
    format!("`{}`", id.replace('`', "``"))
}

impl MetadataSource for TestSource {
    fn list_databases(&self) -> SResult<Vec<String>> {
        Ok(self
            .0
            .query("SHOW DATABASES")
            .map_err(meta_err)?
            .into_iter()
            .filter_map(|r| r.into_iter().next().flatten())
            .collect())
    }
    fn list_tables(&self, db: &str) -> SResult<Vec<String>> {
        Ok(self
            .0
            .query(&format!(
                "SHOW FULL TABLES FROM {} WHERE Table_type = 'BASE TABLE'",
                q(db)
            ))
            .map_err(meta_err)?
            .into_iter()
            .filter_map(|r| r.into_iter().next().flatten())
            .collect())
    }
    fn show_create_database(&self, db: &str) -> SResult<Option<String>> {
        match self.0.query(&format!("SHOW CREATE DATABASE {}", q(db))) {
            Ok(rows) => Ok(rows
                .into_iter()
                .next()
                .and_then(|r| r.into_iter().nth(1).flatten())),
            Err(e) if format!("{e:#}").contains("Unknown database") => Ok(None),
            Err(e) => Err(meta_err(e)),
        }
    }
    fn show_create_table(&self, db: &str, table: &str) -> SResult<Option<String>> {
        match self
            .0
            .query(&format!("SHOW CREATE TABLE {}.{}", q(db), q(table)))
        {
            Ok(rows) => Ok(rows
                .into_iter()
                .next()
                .and_then(|r| r.into_iter().nth(1).flatten())),
            Err(e) if format!("{e:#}").contains("doesn't exist") => Ok(None),
            Err(e) => Err(meta_err(e)),
        }
    }
}

/// One decoded row change: table, column names (`None` where unknown) and
/// rendered values of the after image (before image for deletes).
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedRow {
    pub position: BinlogPosition,
    pub table: String,
    pub kind: RowsKind,
    pub names: Vec<Option<String>>,
    pub values: Vec<Option<String>>,
}

/// What a decode run saw.
#[derive(Debug, Default)]
pub struct Decoded {
    pub rows: Vec<DecodedRow>,
    /// `(end position, statement)` of every QUERY event.
    pub queries: Vec<(BinlogPosition, String)>,
}

/// Decodes every binlog file of `db` from `from` (event end positions at or
/// before it are skipped), feeding QUERY and TABLE_MAP events to the
/// tracker. Stops at the first tracker error.
pub fn decode(
    db: &MariaDb,
    tracker: &mut SchemaTracker,
    from: Option<&BinlogPosition>,
) -> SResult<Decoded> {
    let mut out = Decoded::default();
    let files = db.binlog_files().map_err(meta_err)?;
    let error: Mutex<Option<SchemaError>> = Mutex::new(None);
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let buf = std::fs::read(&path).map_err(|e| SchemaError::Metadata(e.to_string()))?;
        let mut maps: HashMap<u64, Arc<TableMap>> = HashMap::new();
        let mut gtid: Option<MariadbGtidState> = None;
        let walked = walk_file(&name, &buf, |at, _raw, data| {
            let end = BinlogPosition::new(name.clone(), at.next_pos)
                .with_gtid(gtid.clone().map(GtidState::MariaDb));
            if from.is_some_and(|f| &end <= f) {
                return ControlFlow::Continue(());
            }
            let r: SResult<()> = (|| {
                match data {
                    EventData::MariadbGtid(g) => {
                        gtid.get_or_insert_with(Default::default).update(g.gtid);
                    }
                    EventData::Query(qe) => {
                        let sql = qe.query_text().into_owned();
                        tracker.on_query(&end, &qe.schema_text(), &sql, qe.status_vars)?;
                        out.queries.push((end.clone(), sql));
                    }
                    EventData::TableMap(tm) => {
                        let enriched = tracker.on_table_map(&end, tm)?;
                        maps.insert(tm.table_id, enriched);
                    }
                    EventData::Rows(ev) => {
                        let mut ev = ev.clone();
                        if let Some(m) = maps.get(&ev.table_id) {
                            ev.table = m.clone();
                        }
                        let table = format!("{}.{}", ev.table.schema, ev.table.table);
                        for row in ev.rows() {
                            let row = row.map_err(|e| SchemaError::Metadata(e.to_string()))?;
                            let image = row.after.as_ref().or(row.before.as_ref());
                            let Some(image) = image else { continue };
                            let mut names = Vec::new();
                            let mut values = Vec::new();
                            for (cell, col) in image.cells().zip(&ev.table.columns) {
                                let cell =
                                    cell.map_err(|e| SchemaError::Metadata(e.to_string()))?;
                                names.push(col.name.clone());
                                values.push(match cell {
                                    Cell::Absent => Some("<absent>".into()),
                                    Cell::Present(v) => v
                                        .to_text(col)
                                        .map_err(|e| SchemaError::Metadata(e.to_string()))?,
                                });
                            }
                            out.rows.push(DecodedRow {
                                position: end.clone(),
                                table: table.clone(),
                                kind: ev.kind,
                                names,
                                values,
                            });
                        }
                    }
                    _ => {}
                }
                Ok(())
            })();
            match r {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    *error.lock().unwrap() = Some(e);
                    ControlFlow::Break(())
                }
            }
        });
        if let Some(e) = error.lock().unwrap().take() {
            return Err(e);
        }
        walked.map_err(|e| SchemaError::Metadata(e.to_string()))?;
    }
    Ok(out)
}

/// Columns of a table as the server lists them (invisible ones included).
pub fn server_columns(db: &MariaDb, schema: &str, table: &str) -> Vec<(String, String)> {
    db.query(&format!(
        "SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS \
         WHERE TABLE_SCHEMA = '{schema}' AND TABLE_NAME = '{table}' ORDER BY ORDINAL_POSITION"
    ))
    .unwrap()
    .into_iter()
    .map(|r| (r[0].clone().unwrap(), r[1].clone().unwrap()))
    .collect()
}

/// A tracing subscriber that keeps WARN lines, for asserting on warnings.
#[derive(Clone, Default)]
pub struct Captured(pub Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

impl Captured {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
    /// Runs `f` with this subscriber as the thread's default.
    pub fn during<T>(&self, f: impl FnOnce() -> T) -> T {
        let sub = tracing_subscriber::fmt()
            .with_writer(self.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::WARN)
            .finish();
        tracing::subscriber::with_default(sub, f)
    }
}
