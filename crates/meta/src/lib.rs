//! Consumer cursors and subscriptions of a destination, persisted behind
//! the [`CursorStore`] trait. [`FileCursorStore`] keeps Canal's
//! `{dir}/{destination}/meta.dat` JSON, so a Canal deployment's cursors are
//! picked up as they are, and Canal can read Sluice's. A ZooKeeper store
//! (for clusters) implements the same trait.
//!
//! A save appends one record to `{dir}/{destination}/meta.log` and
//! `fdatasync`s it: one small write and one flush per group commit, a
//! fraction of a millisecond, where replacing `meta.dat` atomically
//! (temporary file, fsync, rename, fsync of the folder) takes several. A
//! record is a line: the CRC32 of the JSON in hex, a space, `meta.dat`'s
//! JSON. At most about once a second (or when the log passes 1 MiB) the
//! record just logged is written as `meta.dat` atomically and the log is
//! truncated; a clean stop ([`CursorStore::compact`]) does the same and
//! removes the log. Loading reads `meta.dat`, then the log, whose last
//! intact record wins; a torn tail (a crash mid-append) is ignored.
//!
//! Canal reads `meta.dat` and ignores `meta.log`. After a clean stop
//! `meta.dat` holds the exact cursors; after a crash it may be up to about
//! a second behind the log, so Canal taking over from it would replay
//! those acknowledged batches, never skip any.

pub mod lock;

pub use lock::{DirLock, LockError};

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sluice_canal::{EntryPosition, LogPosition};

/// One subscribed client of a destination.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientIdentity {
    pub client_id: i16,
    pub destination: String,
    #[serde(default)]
    pub filter: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientData {
    pub client_identity: ClientIdentity,
    /// Absent until the client's first ack of a transaction boundary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<LogPosition>,
}

/// The content of `meta.dat`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DestinationMeta {
    #[serde(default)]
    pub client_datas: Vec<ClientData>,
    pub destination: String,
}

#[derive(Debug, thiserror::Error)]
pub enum MetaError {
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not valid cursor JSON ({source}); fix or remove it to start from the configured position")]
    Corrupt {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// Where cursors and subscriptions live.
pub trait CursorStore: Send + Sync {
    /// Everything known of a destination (no clients if never saved).
    fn load(&self, destination: &str) -> Result<DestinationMeta, MetaError>;
    /// Replaces what is stored for the destination, durably.
    fn save(&self, meta: &DestinationMeta) -> Result<(), MetaError>;
    /// Where the destination's first stream started (`latest` or a time
    /// resolved to a file, offset and GTID set): where a process without
    /// client cursors starts, so rows published before any client acked are
    /// not skipped. `None` if never saved, or if the store cannot keep it.
    fn load_start(&self, _destination: &str) -> Result<Option<EntryPosition>, MetaError> {
        Ok(None)
    }
    /// Keeps the destination's first start position, durably. A store
    /// that cannot keep it ignores it (the configured start then applies).
    fn save_start(&self, _destination: &str, _position: &EntryPosition) -> Result<(), MetaError> {
        Ok(())
    }
    /// Brings the destination's cursors into their plain, final form (the
    /// destination stops cleanly): for the file store, `meta.dat` holds the
    /// latest cursors and the log is gone, so Canal reading `meta.dat` sees
    /// exactly what was acknowledged. Nothing to do for other stores.
    fn compact(&self, _destination: &str) -> Result<(), MetaError> {
        Ok(())
    }
    /// Whether a save only changes memory (nothing survives the process):
    /// then it is cheap enough to do in the request path, and there is no
    /// durability to wait for.
    fn is_in_memory(&self) -> bool {
        false
    }
}

/// Canal's file meta: `{dir}/{destination}/meta.dat`, with the log of
/// saves since it was last written beside it (see the module docs).
pub struct FileCursorStore {
    dir: PathBuf,
    /// The open log of each destination saved to by this store; its mutex
    /// orders saves, compactions and loads of the destination.
    logs: Mutex<HashMap<String, Arc<Mutex<DestinationLog>>>>,
    compact_at_bytes: u64,
    compact_every: Duration,
}

/// Past this size the log is compacted into `meta.dat` at the next save.
const COMPACT_AT_BYTES: u64 = 1 << 20;
/// And at the first save this long after the last compaction, so `meta.dat`
/// (what Canal reads) stays within about this much of the log.
const COMPACT_EVERY: Duration = Duration::from_secs(1);

/// One destination's `meta.log`, kept open between saves.
struct DestinationLog {
    /// `None` until the first save, and after a failed write (reopening
    /// cuts off what the failure may have left).
    file: Option<fs::File>,
    len: u64,
    /// The JSON of the last record appended by this store.
    last: Option<Vec<u8>>,
    last_compaction: Instant,
}

impl FileCursorStore {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        FileCursorStore {
            dir: dir.into(),
            logs: Mutex::new(HashMap::new()),
            compact_at_bytes: COMPACT_AT_BYTES,
            compact_every: COMPACT_EVERY,
        }
    }

    /// Compacts the log into `meta.dat` once it reaches `at_bytes`, or at
    /// the first save `every` after the last compaction.
    pub fn with_compaction(mut self, at_bytes: u64, every: Duration) -> Self {
        self.compact_at_bytes = at_bytes;
        self.compact_every = every;
        self
    }

    pub fn path(&self, destination: &str) -> PathBuf {
        self.dir.join(destination).join("meta.dat")
    }

    /// `{dir}/{destination}/meta.log`: the saves since `meta.dat` was last
    /// written.
    pub fn log_path(&self, destination: &str) -> PathBuf {
        self.dir.join(destination).join("meta.log")
    }

    /// `{dir}/{destination}/start.dat`: the first start position, kept
    /// apart so `meta.dat` stays what Canal reads and writes.
    pub fn start_path(&self, destination: &str) -> PathBuf {
        self.dir.join(destination).join("start.dat")
    }

    fn log_of(&self, destination: &str) -> Arc<Mutex<DestinationLog>> {
        let mut logs = lock(&self.logs);
        logs.entry(destination.to_string())
            .or_insert_with(|| {
                Arc::new(Mutex::new(DestinationLog {
                    file: None,
                    len: 0,
                    last: None,
                    last_compaction: Instant::now(),
                }))
            })
            .clone()
    }

    /// Opens the destination's log for appending, creating it (and making
    /// its existence durable) if needed, and cuts off anything after its
    /// last intact record (a torn append).
    fn open_log(&self, destination: &str, log: &mut DestinationLog) -> Result<(), MetaError> {
        let path = self.log_path(destination);
        let folder = self.dir.join(destination);
        fs::create_dir_all(&folder).map_err(io("create", &folder))?;
        let existed = path.exists();
        let file = fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&path)
            .map_err(io("open", &path))?;
        if !existed {
            sync_folder(&folder)?;
        }
        let bytes = fs::read(&path).map_err(io("read", &path))?;
        let scan = scan_log(&bytes);
        if (scan.intact_end as usize) < bytes.len() {
            tracing::warn!(
                "cutting off {} bytes at {}:{} after the last intact cursor record",
                bytes.len() as u64 - scan.intact_end,
                path.display(),
                scan.intact_end
            );
            file.set_len(scan.intact_end)
                .and_then(|()| file.sync_data())
                .map_err(io("truncate", &path))?;
        }
        log.len = scan.intact_end;
        log.file = Some(file);
        Ok(())
    }

    /// Writes `record` (the JSON of the last record in the log) as
    /// `meta.dat`, then empties the log, or removes it if `remove`.
    ///
    /// Crash safety: `meta.dat` is replaced atomically and durably before
    /// the log is touched. A crash before that leaves the old `meta.dat`
    /// and the whole log, whose last record wins on load. A crash after it
    /// but before the log is emptied leaves a log whose last record is
    /// exactly the new `meta.dat`: loading picks the same cursors either
    /// way. Emptying the log then only removes records that are older than
    /// (or equal to) `meta.dat`.
    fn compact_locked(
        &self,
        destination: &str,
        log: &mut DestinationLog,
        record: &[u8],
        remove: bool,
    ) -> Result<(), MetaError> {
        write_atomically(&self.path(destination), record)?;
        let path = self.log_path(destination);
        if remove {
            log.file = None;
            match fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io("remove", &path)(e)),
            }
        } else if let Some(file) = &log.file {
            file.set_len(0)
                .and_then(|()| file.sync_data())
                .map_err(io("truncate", &path))?;
        }
        log.len = 0;
        log.last_compaction = Instant::now();
        Ok(())
    }

    /// The last intact record of the destination's log, if any.
    fn read_log(&self, destination: &str) -> Result<Option<Vec<u8>>, MetaError> {
        let path = self.log_path(destination);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io("read", &path)(e)),
        };
        let scan = scan_log(&bytes);
        for offset in &scan.bad_at {
            tracing::warn!(
                "ignoring a damaged cursor record at {}:{offset}",
                path.display()
            );
        }
        Ok(scan.last.map(|r| bytes[r].to_vec()))
    }
}

/// A log record: the CRC32 of the JSON in 8 hex digits, a space, the JSON,
/// a newline. The JSON is serde_json's compact form, which has no newline.
fn log_record(json: &[u8]) -> Vec<u8> {
    let mut line = Vec::with_capacity(json.len() + 10);
    line.extend_from_slice(format!("{:08x} ", crc32fast::hash(json)).as_bytes());
    line.extend_from_slice(json);
    line.push(b'\n');
    line
}

/// What a log holds.
struct LogScan {
    /// Where the JSON of the last intact record is.
    last: Option<std::ops::Range<usize>>,
    /// Where the bytes after the last intact record begin.
    intact_end: u64,
    /// Offsets of damaged lines (and of a torn tail).
    bad_at: Vec<u64>,
}

fn scan_log(bytes: &[u8]) -> LogScan {
    let mut scan = LogScan {
        last: None,
        intact_end: 0,
        bad_at: Vec::new(),
    };
    let mut at = 0;
    while at < bytes.len() {
        let Some(nl) = bytes[at..].iter().position(|&b| b == b'\n') else {
            // A torn append: no newline yet.
            scan.bad_at.push(at as u64);
            break;
        };
        let line = &bytes[at..at + nl];
        match parse_record(line) {
            Some(json) => {
                let start = at + (line.len() - json.len());
                scan.last = Some(start..at + nl);
                scan.intact_end = (at + nl + 1) as u64;
            }
            None => scan.bad_at.push(at as u64),
        }
        at += nl + 1;
    }
    scan
}

/// The JSON of an intact record line (without its newline).
fn parse_record(line: &[u8]) -> Option<&[u8]> {
    let (crc, json) = (line.get(..8)?, line.get(9..)?);
    if line[8] != b' ' {
        return None;
    }
    let crc = u32::from_str_radix(std::str::from_utf8(crc).ok()?, 16).ok()?;
    (crc32fast::hash(json) == crc).then_some(json)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn sync_folder(folder: &Path) -> Result<(), MetaError> {
    fs::File::open(folder)
        .and_then(|d| d.sync_all())
        .map_err(io("sync", folder))
}

/// Writes `bytes` to `path` atomically and durably: temporary file, fsync,
/// rename, fsync of the folder.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), MetaError> {
    let folder = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    fs::create_dir_all(&folder).map_err(io("create", &folder))?;
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(".tmp");
    let tmp = folder.join(tmp_name);
    {
        let mut f = fs::File::create(&tmp).map_err(io("create", &tmp))?;
        f.write_all(bytes).map_err(io("write", &tmp))?;
        f.sync_all().map_err(io("sync", &tmp))?;
    }
    fs::rename(&tmp, path).map_err(io("rename into place", path))?;
    // The rename is durable only once the folder entry is on disk.
    sync_folder(&folder)
}

/// The JSON in `path`; `None` when there is no such file.
fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>, MetaError> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io("read", path)(e)),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|source| MetaError::Corrupt {
            path: path.to_path_buf(),
            source,
        })
}

/// `value` as JSON in `path`, atomically and durably.
fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), MetaError> {
    let json = serde_json::to_vec(value).map_err(|source| MetaError::Corrupt {
        path: path.to_path_buf(),
        source,
    })?;
    write_atomically(path, &json)
}

fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> MetaError + 'a {
    move |source| MetaError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

impl CursorStore for FileCursorStore {
    fn load(&self, destination: &str) -> Result<DestinationMeta, MetaError> {
        let log = self.log_of(destination);
        let _order = lock(&log);
        let from_file = read_json::<DestinationMeta>(&self.path(destination));
        // A log record is never older than meta.dat: compaction writes
        // meta.dat from the last record before it empties the log.
        if let Some(json) = self.read_log(destination)? {
            match serde_json::from_slice(&json) {
                Ok(meta) => {
                    if let Err(e) = &from_file {
                        tracing::warn!(error = %e, "using the cursors of the log instead");
                    }
                    return Ok(meta);
                }
                Err(e) => tracing::warn!(
                    path = %self.log_path(destination).display(),
                    error = %e,
                    "the last cursor record is not cursor JSON; using meta.dat"
                ),
            }
        }
        Ok(from_file?.unwrap_or_else(|| DestinationMeta {
            client_datas: Vec::new(),
            destination: destination.to_string(),
        }))
    }

    fn save(&self, meta: &DestinationMeta) -> Result<(), MetaError> {
        let destination = &meta.destination;
        let path = self.log_path(destination);
        let json = serde_json::to_vec(meta).map_err(|source| MetaError::Corrupt {
            path: path.clone(),
            source,
        })?;
        let log = self.log_of(destination);
        let mut log = lock(&log);
        if log.file.is_none() {
            self.open_log(destination, &mut log)?;
        }
        let record = log_record(&json);
        let appended = match &mut log.file {
            Some(file) => file
                .write_all(&record)
                .and_then(|()| file.sync_data())
                .map_err(io("append to", &path)),
            None => Ok(()),
        };
        if let Err(e) = appended {
            // Reopening at the next save cuts off a partial record.
            log.file = None;
            return Err(e);
        }
        log.len += record.len() as u64;
        log.last = Some(json);
        if log.len >= self.compact_at_bytes || log.last_compaction.elapsed() >= self.compact_every {
            let json = log.last.clone().unwrap_or_default();
            // The cursors are durable in the log already: a failed
            // compaction is retried at the next save.
            if let Err(e) = self.compact_locked(destination, &mut log, &json, false) {
                log.last_compaction = Instant::now();
                tracing::warn!(error = %e, "cannot compact the cursor log into meta.dat");
            }
        }
        Ok(())
    }

    fn compact(&self, destination: &str) -> Result<(), MetaError> {
        let log = self.log_of(destination);
        let mut log = lock(&log);
        let latest = match (&log.file, &log.last) {
            (Some(_), Some(json)) if log.len > 0 => Some(json.clone()),
            (Some(_), _) if log.len == 0 => None,
            // Not written by this store since it opened: what is on disk.
            _ => self.read_log(destination)?,
        };
        match latest {
            Some(json) => self.compact_locked(destination, &mut log, &json, true),
            None => {
                log.file = None;
                match fs::remove_file(self.log_path(destination)) {
                    Ok(()) => Ok(()),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                    Err(e) => Err(io("remove", &self.log_path(destination))(e)),
                }
            }
        }
    }

    fn load_start(&self, destination: &str) -> Result<Option<EntryPosition>, MetaError> {
        read_json(&self.start_path(destination))
    }

    fn save_start(&self, destination: &str, position: &EntryPosition) -> Result<(), MetaError> {
        write_json(&self.start_path(destination), position)
    }
}

/// Canal's memory meta (`memory-instance.xml`): cursors live as long as
/// the process.
#[derive(Default)]
pub struct MemoryCursorStore {
    metas: std::sync::Mutex<std::collections::HashMap<String, DestinationMeta>>,
    starts: std::sync::Mutex<std::collections::HashMap<String, EntryPosition>>,
}

impl CursorStore for MemoryCursorStore {
    fn load(&self, destination: &str) -> Result<DestinationMeta, MetaError> {
        let metas = self.metas.lock().unwrap_or_else(|p| p.into_inner());
        Ok(metas.get(destination).cloned().unwrap_or(DestinationMeta {
            client_datas: Vec::new(),
            destination: destination.to_string(),
        }))
    }

    fn save(&self, meta: &DestinationMeta) -> Result<(), MetaError> {
        let mut metas = self.metas.lock().unwrap_or_else(|p| p.into_inner());
        metas.insert(meta.destination.clone(), meta.clone());
        Ok(())
    }

    fn load_start(&self, destination: &str) -> Result<Option<EntryPosition>, MetaError> {
        let starts = self.starts.lock().unwrap_or_else(|p| p.into_inner());
        Ok(starts.get(destination).cloned())
    }

    fn save_start(&self, destination: &str, position: &EntryPosition) -> Result<(), MetaError> {
        let mut starts = self.starts.lock().unwrap_or_else(|p| p.into_inner());
        starts.insert(destination.to_string(), position.clone());
        Ok(())
    }

    fn is_in_memory(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CANAL_META: &str = r#"{"clientDatas":[{"clientIdentity":{"clientId":1001,"destination":"example","filter":""},"cursor":{"identity":{"slaveId":-1,"sourceAddress":{"address":"127.0.0.1","port":3306}},"postion":{"gtid":"","included":false,"journalName":"mysql-bin.000001","position":4,"serverId":1,"timestamp":1600000000000}}}],"destination":"example"}"#;

    #[test]
    fn reads_and_writes_canal_meta_dat_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("example")).unwrap();
        std::fs::write(dir.path().join("example/meta.dat"), CANAL_META).unwrap();
        let store = FileCursorStore::new(dir.path());
        let meta = store.load("example").unwrap();
        assert_eq!(meta.client_datas[0].client_identity.client_id, 1001);
        assert_eq!(
            meta.client_datas[0]
                .cursor
                .as_ref()
                .unwrap()
                .postion
                .journal_name,
            "mysql-bin.000001"
        );
        store.save(&meta).unwrap();
        store.compact("example").unwrap();
        let written = std::fs::read_to_string(dir.path().join("example/meta.dat")).unwrap();
        assert_eq!(written, CANAL_META);
        assert!(!dir.path().join("example/meta.log").exists());
    }

    fn meta_at(position: u64) -> DestinationMeta {
        let mut meta: DestinationMeta = serde_json::from_str(CANAL_META).unwrap();
        meta.client_datas[0]
            .cursor
            .as_mut()
            .unwrap()
            .postion
            .position = position;
        meta
    }

    fn position(meta: &DestinationMeta) -> u64 {
        meta.client_datas[0]
            .cursor
            .as_ref()
            .unwrap()
            .postion
            .position
    }

    fn log_path(dir: &tempfile::TempDir) -> PathBuf {
        dir.path().join("example/meta.log")
    }

    #[test]
    fn saves_are_appended_to_the_log_and_the_last_one_loads() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileCursorStore::new(dir.path());
        for p in [100, 200, 300] {
            store.save(&meta_at(p)).unwrap();
        }
        let log = std::fs::read_to_string(log_path(&dir)).unwrap();
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(lines.len(), 3, "{log}");
        let json = serde_json::to_string(&meta_at(300)).unwrap();
        assert_eq!(
            lines[2],
            format!("{:08x} {json}", crc32fast::hash(json.as_bytes()))
        );
        assert!(!dir.path().join("example/meta.dat").exists());
        // Another process reads the same folder.
        let other = FileCursorStore::new(dir.path());
        assert_eq!(position(&other.load("example").unwrap()), 300);
        assert_eq!(position(&store.load("example").unwrap()), 300);
    }

    #[test]
    fn the_last_intact_log_record_wins_over_meta_dat_and_over_a_corrupt_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("example")).unwrap();
        std::fs::write(dir.path().join("example/meta.dat"), CANAL_META).unwrap();
        FileCursorStore::new(dir.path())
            .save(&meta_at(900))
            .unwrap();
        let store = FileCursorStore::new(dir.path());
        assert_eq!(position(&store.load("example").unwrap()), 900);

        std::fs::write(dir.path().join("example/meta.dat"), "{\"clientDatas\":[").unwrap();
        assert_eq!(position(&store.load("example").unwrap()), 900);
    }

    #[test]
    fn a_torn_tail_is_ignored_and_cut_off_at_the_next_save() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileCursorStore::new(dir.path());
        store.save(&meta_at(100)).unwrap();
        store.save(&meta_at(200)).unwrap();
        drop(store);
        // A crash in the middle of appending the third record.
        let third = log_record(&serde_json::to_vec(&meta_at(300)).unwrap());
        let mut log = std::fs::OpenOptions::new()
            .append(true)
            .open(log_path(&dir))
            .unwrap();
        log.write_all(&third[..third.len() / 2]).unwrap();
        drop(log);

        let store = FileCursorStore::new(dir.path());
        assert_eq!(position(&store.load("example").unwrap()), 200);
        store.save(&meta_at(400)).unwrap();
        let text = std::fs::read_to_string(log_path(&dir)).unwrap();
        assert_eq!(text.lines().count(), 3, "the torn half is gone: {text}");
        assert!(text.lines().all(|l| parse_record(l.as_bytes()).is_some()));
        assert_eq!(position(&store.load("example").unwrap()), 400);
        assert_eq!(
            position(&FileCursorStore::new(dir.path()).load("example").unwrap()),
            400
        );
    }

    #[test]
    fn a_record_whose_crc_does_not_match_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileCursorStore::new(dir.path());
        store.save(&meta_at(100)).unwrap();
        drop(store);
        let json = serde_json::to_vec(&meta_at(200)).unwrap();
        let mut bad = log_record(&json);
        bad[0] = if bad[0] == b'0' { b'1' } else { b'0' };
        let mut log = std::fs::OpenOptions::new()
            .append(true)
            .open(log_path(&dir))
            .unwrap();
        log.write_all(&bad).unwrap();
        drop(log);
        let store = FileCursorStore::new(dir.path());
        assert_eq!(position(&store.load("example").unwrap()), 100);

        // A log with no intact record, beside a readable meta.dat.
        std::fs::write(dir.path().join("example/meta.dat"), CANAL_META).unwrap();
        std::fs::write(log_path(&dir), &bad).unwrap();
        assert_eq!(position(&store.load("example").unwrap()), 4);
    }

    #[test]
    fn compaction_at_size_writes_canal_meta_dat_and_empties_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let record_len = log_record(&serde_json::to_vec(&meta_at(4)).unwrap()).len() as u64;
        let store = FileCursorStore::new(dir.path())
            .with_compaction(3 * record_len, Duration::from_secs(3600));
        for _ in 0..2 {
            store.save(&meta_at(4)).unwrap();
        }
        assert!(!dir.path().join("example/meta.dat").exists());
        assert_eq!(
            std::fs::metadata(log_path(&dir)).unwrap().len(),
            2 * record_len
        );
        store.save(&meta_at(4)).unwrap();
        let written = std::fs::read_to_string(dir.path().join("example/meta.dat")).unwrap();
        assert_eq!(written, CANAL_META);
        assert_eq!(std::fs::metadata(log_path(&dir)).unwrap().len(), 0);
        assert_eq!(position(&store.load("example").unwrap()), 4);
        store.save(&meta_at(500)).unwrap();
        assert_eq!(
            std::fs::metadata(log_path(&dir)).unwrap().len(),
            record_len + 2,
            "appended from the start of the emptied log"
        );
        assert_eq!(
            position(&FileCursorStore::new(dir.path()).load("example").unwrap()),
            500
        );
    }

    #[test]
    fn compaction_after_the_period_writes_the_record_just_logged() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileCursorStore::new(dir.path()).with_compaction(u64::MAX, Duration::ZERO);
        store.save(&meta_at(4)).unwrap();
        let written = std::fs::read_to_string(dir.path().join("example/meta.dat")).unwrap();
        assert_eq!(written, CANAL_META);
        assert_eq!(std::fs::metadata(log_path(&dir)).unwrap().len(), 0);
        store.save(&meta_at(700)).unwrap();
        assert_eq!(std::fs::metadata(log_path(&dir)).unwrap().len(), 0);
        assert_eq!(
            position(&FileCursorStore::new(dir.path()).load("example").unwrap()),
            700
        );
    }

    #[test]
    fn a_crash_between_writing_meta_dat_and_emptying_the_log_loads_the_same_cursors() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileCursorStore::new(dir.path());
        store.save(&meta_at(100)).unwrap();
        store.save(&meta_at(200)).unwrap();
        drop(store);
        // The first step of compaction only.
        let json = serde_json::to_vec(&meta_at(200)).unwrap();
        std::fs::write(dir.path().join("example/meta.dat"), &json).unwrap();
        let store = FileCursorStore::new(dir.path());
        assert_eq!(position(&store.load("example").unwrap()), 200);
        store.save(&meta_at(300)).unwrap();
        assert_eq!(position(&store.load("example").unwrap()), 300);
        // A clean stop on a store that did not write the log itself.
        let other = FileCursorStore::new(dir.path());
        other.compact("example").unwrap();
        assert!(!log_path(&dir).exists());
        let written: DestinationMeta =
            serde_json::from_slice(&std::fs::read(dir.path().join("example/meta.dat")).unwrap())
                .unwrap();
        assert_eq!(position(&written), 300);
    }

    #[test]
    fn missing_file_is_no_clients_and_corrupt_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileCursorStore::new(dir.path());
        assert!(store.load("nothing").unwrap().client_datas.is_empty());
        std::fs::create_dir_all(dir.path().join("bad")).unwrap();
        std::fs::write(dir.path().join("bad/meta.dat"), "{\"clientDatas\":[").unwrap();
        let e = store.load("bad").unwrap_err().to_string();
        assert!(e.contains("meta.dat"), "{e}");
    }

    #[test]
    fn the_start_position_is_kept_beside_meta_dat_which_it_leaves_alone() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("example")).unwrap();
        std::fs::write(dir.path().join("example/meta.dat"), CANAL_META).unwrap();
        let store = FileCursorStore::new(dir.path());
        assert_eq!(store.load_start("example").unwrap(), None);
        let start = EntryPosition {
            gtid: "0-1-7".into(),
            journal_name: "binlog.000002".into(),
            position: 6976,
            server_id: 1,
            timestamp: 1_600_000_000_000,
            ..Default::default()
        };
        store.save_start("example", &start).unwrap();
        assert_eq!(store.load_start("example").unwrap(), Some(start.clone()));
        let written = std::fs::read_to_string(dir.path().join("example/meta.dat")).unwrap();
        assert_eq!(written, CANAL_META);
        assert!(!dir.path().join("example/start.dat.tmp").exists());

        std::fs::write(dir.path().join("example/start.dat"), "{").unwrap();
        let e = store.load_start("example").unwrap_err().to_string();
        assert!(e.contains("start.dat"), "{e}");

        let memory = MemoryCursorStore::default();
        assert_eq!(memory.load_start("example").unwrap(), None);
        memory.save_start("example", &start).unwrap();
        assert_eq!(memory.load_start("example").unwrap(), Some(start));
    }

    #[test]
    fn a_client_without_cursor_has_no_cursor_field() {
        let meta = DestinationMeta {
            client_datas: vec![ClientData {
                client_identity: ClientIdentity {
                    client_id: 1001,
                    destination: "d".into(),
                    filter: String::new(),
                },
                cursor: None,
            }],
            destination: "d".into(),
        };
        let s = serde_json::to_string(&meta).unwrap();
        assert_eq!(
            s,
            r#"{"clientDatas":[{"clientIdentity":{"clientId":1001,"destination":"d","filter":""}}],"destination":"d"}"#
        );
    }
}
