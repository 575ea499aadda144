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
use crate::position::BinlogPosition;
use crate::read_ddl::ParsedBy;

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

    /// Whether this record changes table `db.name`, or (a snapshot) knows
    /// a definition of it.
    pub fn touches(&self, db: &str, name: &str) -> bool {
        let deltas = match self {
            HistoryRecord::Snapshot { catalog, .. } => return catalog.table(db, name).is_some(),
            HistoryRecord::Ddl { deltas, .. } | HistoryRecord::Repair { deltas, .. } => deltas,
        };
        let same = |d: &str, n: &str| d.eq_ignore_ascii_case(db) && n.eq_ignore_ascii_case(name);
        deltas.iter().any(|d| match d {
            Delta::PutTable { table } => same(&table.db, &table.name),
            Delta::RemoveTable { db: d, name: n } | Delta::MarkStale { db: d, name: n, .. } => {
                same(d, n)
            }
            Delta::RemoveDatabase { name: d } => d.eq_ignore_ascii_case(db),
            Delta::PutDatabase { .. } => false,
        })
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
    /// Where the history is, for messages (a file path, a ZooKeeper node).
    fn location(&self) -> String {
        "schema history".to_string()
    }
    /// A record the last `load` found cut short at the end (a crash in the
    /// middle of an append) and left out: the start of its text. Whether
    /// what remains is enough is the tracker's call (it knows where the
    /// stream starts).
    fn torn_tail(&self) -> Option<&str> {
        None
    }
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

/// JSON lines in one file, `fsync`ed on append. Each line is
/// `{crc32 of the JSON, 8 hex digits} {JSON}`; a line that starts with `{`
/// is a record written before checksums (accepted only before the first
/// checksummed line, so old files still load). On load, a last line without
/// its line end is a record torn by a crash: left out and reported through
/// [`SchemaHistoryStore::torn_tail`], and cut off the file before the next
/// append. Any other damage (a checksum that does not match, a line that is
/// not a record) is an error naming the file, the line and the byte.
#[derive(Debug)]
pub struct FileHistoryStore {
    path: PathBuf,
    file: File,
    /// The torn last line found by the last `load`, if any.
    torn_tail: Option<String>,
    /// Where the intact records end when the file has a torn tail: the file
    /// is cut there before the next append.
    cut_before_append: Option<u64>,
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
            cut_before_append: None,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file at `path` holds no complete record line (missing,
    /// empty, or only a torn first line): what a history that was never
    /// written, or was lost, looks like.
    pub fn holds_no_record(path: impl AsRef<Path>) -> Result<bool> {
        let path = path.as_ref();
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true),
            Err(e) => return Err(history_error(path, e)),
        };
        let mut reader = std::io::BufReader::new(file);
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = std::io::BufRead::read_until(&mut reader, b'\n', &mut line)
                .map_err(|e| history_error(path, e))?;
            if n == 0 || !line.ends_with(b"\n") {
                return Ok(true);
            }
            if !line.iter().all(u8::is_ascii_whitespace) {
                return Ok(false);
            }
        }
    }
}

fn history_error(path: &Path, e: impl std::fmt::Display) -> SchemaError {
    SchemaError::History {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// A record line: checksum, space, JSON.
fn encode_line(json: &str) -> String {
    format!("{:08x} {json}\n", crc32fast::hash(json.as_bytes()))
}

/// What one line (without its line end) holds.
enum Line<'a> {
    /// A record line whose checksum matches (or a line from before
    /// checksums): its JSON.
    Record { json: &'a [u8], checksummed: bool },
    /// A checksummed line whose checksum does not match.
    BadChecksum { stored: String, computed: u32 },
    /// Neither form.
    Malformed,
}

fn read_line(body: &[u8]) -> Line<'_> {
    if body.first() == Some(&b'{') {
        return Line::Record {
            json: body,
            checksummed: false,
        };
    }
    let (Some(hex), Some(b' ')) = (body.get(..8), body.get(8)) else {
        return Line::Malformed;
    };
    let Some(stored) = std::str::from_utf8(hex)
        .ok()
        .and_then(|h| u32::from_str_radix(h, 16).ok())
    else {
        return Line::Malformed;
    };
    let json = &body[9..];
    let computed = crc32fast::hash(json);
    if computed == stored {
        Line::Record {
            json,
            checksummed: true,
        }
    } else {
        Line::BadChecksum {
            stored: String::from_utf8_lossy(hex).into_owned(),
            computed,
        }
    }
}

/// What to do about a damaged history, for every error that reports one.
pub const DAMAGED_HISTORY_FIX: &str = "restore the file from a backup; or, to rebuild the schema \
     from the server at its current position, stop the instance and delete this history together \
     with the destination's cursors (meta.dat, meta.log and meta.log.1): it then starts at the server's \
     current position, and rows written since the cursor are not delivered";

impl SchemaHistoryStore for FileHistoryStore {
    fn append(&mut self, record: &HistoryRecord) -> Result<()> {
        if let Some(end) = self.cut_before_append {
            // Cut the torn tail so that this record starts a clean line.
            self.file
                .set_len(end)
                .and_then(|_| self.file.sync_data())
                .map_err(|e| history_error(&self.path, e))?;
            self.cut_before_append = None;
            self.torn_tail = None;
        }
        let json = serde_json::to_string(record).map_err(|e| history_error(&self.path, e))?;
        self.file
            .write_all(encode_line(&json).as_bytes())
            .and_then(|_| self.file.sync_data())
            .map_err(|e| history_error(&self.path, e))
    }

    fn location(&self) -> String {
        self.path.display().to_string()
    }

    fn torn_tail(&self) -> Option<&str> {
        self.torn_tail.as_deref()
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
        let mut checksums_seen = false;
        self.torn_tail = None;
        self.cut_before_append = None;
        let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
        for (i, line) in lines.iter().enumerate() {
            let line_start = offset;
            offset += line.len();
            let body = line.strip_suffix(b"\n").unwrap_or(line);
            if body.iter().all(u8::is_ascii_whitespace) {
                if line.ends_with(b"\n") {
                    good_end = offset;
                }
                continue;
            }
            let damaged = |what: String| {
                history_error(
                    &self.path,
                    format!(
                        "line {} (byte {line_start}) is damaged: {what}; {DAMAGED_HISTORY_FIX}",
                        i + 1
                    ),
                )
            };
            if !line.ends_with(b"\n") {
                // Only the last line can lack its end: an append cut short.
                let shown = String::from_utf8_lossy(&body[..body.len().min(120)]).into_owned();
                self.torn_tail = Some(crate::redact::redact(&shown).into_owned());
                self.cut_before_append = Some(good_end as u64);
                break;
            }
            let json = match read_line(body) {
                Line::Record { json, checksummed } => {
                    if !checksummed && checksums_seen {
                        return Err(damaged(
                            "a record without a checksum after records with checksums".into(),
                        ));
                    }
                    checksums_seen |= checksummed;
                    json
                }
                Line::BadChecksum { stored, computed } => {
                    return Err(damaged(format!(
                        "checksum {stored} does not match its content (crc32 {computed:08x})"
                    )))
                }
                Line::Malformed => {
                    return Err(damaged(
                        "neither a checksummed record nor a JSON record".into(),
                    ))
                }
            };
            match serde_json::from_slice::<HistoryRecord>(json) {
                Ok(r) => {
                    records.push(r);
                    good_end = offset;
                }
                Err(e) => return Err(damaged(format!("not a history record: {e}"))),
            }
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
    fn records_carry_checksums_and_old_lines_still_load() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.jsonl");
        // A file from before checksums: plain JSON lines.
        let old = serde_json::to_string(&ddl(100, "a")).unwrap();
        std::fs::write(&path, format!("{old}\n")).unwrap();
        let mut s = FileHistoryStore::open(&path).unwrap();
        assert_eq!(s.load().unwrap().len(), 1);
        s.append(&ddl(200, "b")).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let new = text.lines().nth(1).unwrap();
        let (sum, json) = new.split_once(' ').unwrap();
        assert_eq!(sum, format!("{:08x}", crc32fast::hash(json.as_bytes())));
        assert_eq!(
            FileHistoryStore::open(&path).unwrap().load().unwrap().len(),
            2
        );
        // A plain line after a checksummed one is not an old file.
        std::fs::write(&path, format!("{text}{old}\n")).unwrap();
        let e = FileHistoryStore::open(&path).unwrap().load().unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
    }

    #[test]
    fn a_changed_byte_is_a_checksum_error_naming_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.jsonl");
        let mut s = FileHistoryStore::open(&path).unwrap();
        s.append(&ddl(100, "a")).unwrap();
        s.append(&ddl(200, "b")).unwrap();
        s.append(&ddl(300, "c")).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        // Still valid JSON, and a valid record: only the checksum tells.
        std::fs::write(&path, text.replacen("\"offset\":200", "\"offset\":900", 1)).unwrap();
        let e = FileHistoryStore::open(&path).unwrap().load().unwrap_err();
        let e = e.to_string();
        assert!(
            e.contains(&path.display().to_string())
                && e.contains("line 2")
                && e.contains("checksum"),
            "{e}"
        );
    }

    #[test]
    fn damage_in_the_middle_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.jsonl");
        std::fs::write(&path, "not json\n{}\n").unwrap();
        assert!(FileHistoryStore::open(&path).unwrap().load().is_err());
    }
}
