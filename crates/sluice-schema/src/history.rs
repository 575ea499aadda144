//! The persisted schema history: snapshots of the whole catalog and the
//! changes each DDL (or repair) made, keyed by binlog position, behind the
//! [`SchemaHistoryStore`] trait. [`FileHistoryStore`] keeps them as JSON
//! lines, synced on every append. This module stores and replays; it never
//! parses SQL and never decides what a DDL means.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::catalog::{Catalog, Delta};
use crate::error::{Result, SchemaError};
use crate::parse::ParsedBy;
use crate::position::BinlogPosition;

/// Where a repaired table definition came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepairSource {
    /// The column names, types and keys of a TABLE_MAP event written with
    /// `binlog_row_metadata=FULL`.
    BinlogMetadata,
    /// `SHOW CREATE TABLE` on the server, at a position that was current.
    Server,
}

/// One entry of the history. Every entry sits at the end position of the
/// event that caused it: it applies to events at or after that position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HistoryRecord {
    /// The whole catalog.
    Snapshot {
        position: BinlogPosition,
        reason: String,
        catalog: Catalog,
    },
    /// A DDL statement and the changes it made.
    Ddl {
        position: BinlogPosition,
        db: String,
        sql: String,
        kind: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parsed_by: Option<ParsedBy>,
        deltas: Vec<Delta>,
        /// Set when the statement could not be read and the policy let it
        /// pass: why, and what was done instead.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        unparsed: Option<String>,
    },
    /// A table rebuilt because the tracked schema was found wrong.
    Repair {
        position: BinlogPosition,
        table: String,
        source: RepairSource,
        reason: String,
        deltas: Vec<Delta>,
    },
}

impl HistoryRecord {
    pub fn position(&self) -> &BinlogPosition {
        match self {
            HistoryRecord::Snapshot { position, .. }
            | HistoryRecord::Ddl { position, .. }
            | HistoryRecord::Repair { position, .. } => position,
        }
    }

    /// Applies this record to a catalog.
    pub fn apply(&self, catalog: &mut Catalog) {
        match self {
            HistoryRecord::Snapshot { catalog: c, .. } => *catalog = c.clone(),
            HistoryRecord::Ddl {
                deltas, position, ..
            }
            | HistoryRecord::Repair {
                deltas, position, ..
            } => catalog.apply_deltas(deltas, position),
        }
    }
}

/// Where the history lives. Appends must be durable when they return.
pub trait SchemaHistoryStore: Send {
    fn append(&mut self, record: &HistoryRecord) -> Result<()>;
    /// Every record, in the order appended.
    fn load(&mut self) -> Result<Vec<HistoryRecord>>;
}

/// The catalog at `position`: the latest snapshot at or before it, then
/// every later record at or before it, in order.
pub fn catalog_at(records: &[HistoryRecord], position: &BinlogPosition) -> Catalog {
    let start = records
        .iter()
        .rposition(|r| matches!(r, HistoryRecord::Snapshot { .. }) && r.position() <= position);
    let mut catalog = Catalog::new();
    let from = match start {
        Some(i) => {
            records[i].apply(&mut catalog);
            i + 1
        }
        None => 0,
    };
    for r in &records[from..] {
        if r.position() <= position && !matches!(r, HistoryRecord::Snapshot { .. }) {
            r.apply(&mut catalog);
        }
    }
    catalog
}

/// An in-memory history, for tests and for tools that need no persistence.
#[derive(Debug, Default, Clone)]
pub struct MemoryHistoryStore {
    pub records: Vec<HistoryRecord>,
}

impl SchemaHistoryStore for MemoryHistoryStore {
    fn append(&mut self, record: &HistoryRecord) -> Result<()> {
        self.records.push(record.clone());
        Ok(())
    }
    fn load(&mut self) -> Result<Vec<HistoryRecord>> {
        Ok(self.records.clone())
    }
}

/// JSON lines in one file: each record one line, `fsync`ed on append. A
/// last line cut short by a crash is reported, ignored and cut off the file
/// on load; damage anywhere else is an error.
#[derive(Debug)]
pub struct FileHistoryStore {
    path: PathBuf,
    file: File,
    /// The torn last line found by the last `load`, if any.
    torn_tail: Option<String>,
}

impl FileHistoryStore {
    /// Opens (creating if needed) the history file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&path)
            .map_err(|e| history_error(&path, e))?;
        Ok(FileHistoryStore {
            path,
            file,
            torn_tail: None,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The torn last line the last `load` dropped.
    pub fn torn_tail(&self) -> Option<&str> {
        self.torn_tail.as_deref()
    }
}

fn history_error(path: &Path, e: impl std::fmt::Display) -> SchemaError {
    SchemaError::History {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

impl SchemaHistoryStore for FileHistoryStore {
    fn append(&mut self, record: &HistoryRecord) -> Result<()> {
        let mut line = serde_json::to_string(record).map_err(|e| history_error(&self.path, e))?;
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.sync_data())
            .map_err(|e| history_error(&self.path, e))
    }

    fn load(&mut self) -> Result<Vec<HistoryRecord>> {
        let mut text = Vec::new();
        self.file
            .seek(SeekFrom::Start(0))
            .and_then(|_| self.file.read_to_end(&mut text))
            .map_err(|e| history_error(&self.path, e))?;
        let mut records = Vec::new();
        let mut good_end = 0usize;
        let mut offset = 0usize;
        self.torn_tail = None;
        let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
        for (i, line) in lines.iter().enumerate() {
            let last = i + 1 == lines.len();
            let complete = line.ends_with(b"\n");
            let body = line.strip_suffix(b"\n").unwrap_or(line);
            offset += line.len();
            if body.iter().all(u8::is_ascii_whitespace) {
                if complete {
                    good_end = offset;
                }
                continue;
            }
            match serde_json::from_slice::<HistoryRecord>(body) {
                Ok(r) if complete => {
                    records.push(r);
                    good_end = offset;
                }
                parsed => {
                    if last {
                        let why = match parsed {
                            Ok(_) => "no line end".to_string(),
                            Err(e) => e.to_string(),
                        };
                        let shown =
                            String::from_utf8_lossy(&body[..body.len().min(120)]).into_owned();
                        tracing::warn!(
                            path = %self.path.display(),
                            "schema history ends with a torn record ({why}); ignoring it: {shown}"
                        );
                        self.torn_tail = Some(shown);
                        break;
                    }
                    let e = match parsed {
                        Err(e) => e.to_string(),
                        Ok(_) => "record without line end".into(),
                    };
                    return Err(history_error(
                        &self.path,
                        format!(
                            "record {} (byte {}) is damaged: {e}",
                            i + 1,
                            offset - line.len()
                        ),
                    ));
                }
            }
        }
        if good_end < text.len() {
            // Cut the torn tail so that the next append starts a clean line.
            self.file
                .set_len(good_end as u64)
                .and_then(|_| self.file.sync_data())
                .map_err(|e| history_error(&self.path, e))?;
        }
        Ok(records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ddl(offset: u64, name: &str) -> HistoryRecord {
        HistoryRecord::Ddl {
            position: BinlogPosition::new("binlog.000001", offset),
            db: "d".into(),
            sql: format!("CREATE TABLE {name} (a INT)"),
            kind: "CREATE TABLE".into(),
            parsed_by: None,
            deltas: vec![Delta::PutTable {
                table: crate::model::TableSchema::new("d", name),
            }],
            unparsed: None,
        }
    }

    #[test]
    fn torn_last_line_is_dropped_and_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.jsonl");
        let mut s = FileHistoryStore::open(&path).unwrap();
        s.append(&ddl(100, "a")).unwrap();
        s.append(&ddl(200, "b")).unwrap();
        drop(s);
        // A crash in the middle of the third append.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"type\":\"ddl\",\"position\":{\"file\":\"bin")
            .unwrap();
        drop(f);
        let mut s = FileHistoryStore::open(&path).unwrap();
        let recs = s.load().unwrap();
        assert_eq!(recs.len(), 2);
        assert!(s.torn_tail().is_some());
        s.append(&ddl(300, "c")).unwrap();
        let recs = FileHistoryStore::open(&path).unwrap().load().unwrap();
        assert_eq!(recs.len(), 3);
        let c = catalog_at(&recs, &BinlogPosition::new("binlog.000001", 250));
        assert!(c.table("d", "b").is_some() && c.table("d", "c").is_none());
    }

    #[test]
    fn damage_in_the_middle_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.jsonl");
        std::fs::write(&path, "not json\n{}\n").unwrap();
        assert!(FileHistoryStore::open(&path).unwrap().load().is_err());
    }
}
