//! Consumer cursors and subscriptions of a destination, persisted behind
//! the [`CursorStore`] trait. [`FileCursorStore`] keeps Canal's
//! `{dir}/{destination}/meta.dat` JSON, so a Canal deployment's cursors are
//! picked up as they are, and Canal can read Sluice's. A ZooKeeper store
//! (for clusters) implements the same trait.
//!
//! A save writes one record into a log beside `meta.dat` and `fdatasync`s
//! it: one small write and one flush per group commit, a fraction of a
//! millisecond, where replacing `meta.dat` atomically (temporary file,
//! fsync, rename, fsync of the folder) takes several. A record is a line:
//! a CRC32 in hex, a space, a sequence number, a space, `meta.dat`'s JSON.
//! There are two logs, `meta.log` and `meta.log.1`. About once a second
//! (or when the current one passes 1 MiB) saves move to the other log,
//! which is written again from its start, the newest record first; a
//! background thread then writes that record as `meta.dat` atomically, so
//! no save waits for `meta.dat`. A clean stop ([`CursorStore::compact`])
//! writes `meta.dat` and removes both logs.
//!
//! The logs are overwritten in place, never emptied: a record written
//! where the file already has bytes changes no file size, so its
//! `fdatasync` flushes that one data block and no journal commit (half the
//! bytes the disk writes per save, measured: `cargo bench -p sluice-meta`).
//! What lies after the newest record is what earlier rounds left there,
//! all with smaller sequence numbers. Loading reads `meta.dat`, then both
//! logs: the intact record with the highest sequence number wins; a torn
//! record (a crash mid-write) and stale records are passed over.
//!
//! Canal reads `meta.dat` and ignores the logs. After a clean stop
//! `meta.dat` holds the exact cursors; after a crash it may be up to about
//! a second behind the log, so Canal taking over from it would replay
//! those acknowledged batches, never skip any.

pub mod lock;
pub mod snapshot;

pub use lock::{DirLock, LockError};
pub use snapshot::{PendingChunk, SnapshotProgress, TableProgress};

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard, OnceLock};
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
    /// Absent until the destination records where a newly subscribed
    /// client starts (the earliest cursor of its other clients, or its
    /// first start position) or the client's first ack of a transaction
    /// boundary.
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
    /// How far the destination's initial snapshot has come; `None` if never
    /// saved, or if the store cannot keep it.
    fn load_snapshot(&self, _destination: &str) -> Result<Option<SnapshotProgress>, MetaError> {
        Ok(None)
    }
    /// Keeps the snapshot's progress, durably. A store that cannot keep it
    /// ignores it (a restart then reads the snapshot again).
    fn save_snapshot(
        &self,
        _destination: &str,
        _progress: &SnapshotProgress,
    ) -> Result<(), MetaError> {
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

/// Canal's file meta: `{dir}/{destination}/meta.dat`, with the logs of
/// saves since it was last written beside it (see the module docs).
pub struct FileCursorStore {
    dir: PathBuf,
    /// The logs of each destination saved to by this store; their mutex
    /// orders saves, compactions and loads of the destination.
    logs: Mutex<HashMap<String, Arc<DestinationLog>>>,
    compact_at_bytes: u64,
    compact_every: Duration,
    /// Writes `meta.dat` off the save path (started at the first
    /// compaction; it ends when the store is dropped).
    compactor: OnceLock<Option<mpsc::Sender<Compaction>>>,
}

/// Past this size the current log is compacted into `meta.dat`.
const COMPACT_AT_BYTES: u64 = 1 << 20;
/// And at the first save this long after the last compaction, so `meta.dat`
/// (what Canal reads) stays within about this much of the logs.
const COMPACT_EVERY: Duration = Duration::from_secs(1);

/// The names of a destination's two logs: saves go to one of them while
/// the other, once compacted into `meta.dat`, is emptied.
const LOG_NAMES: [&str; 2] = ["meta.log", "meta.log.1"];

/// One destination's logs, kept open between saves.
struct DestinationLog {
    state: Mutex<LogState>,
    /// Signalled when a compaction ends.
    idle: Condvar,
}

struct LogState {
    /// Whether the logs were read and the current one opened: not yet
    /// at the first save, and no longer after a failed write (reopening
    /// finds the newest intact record again).
    opened: bool,
    files: [Option<fs::File>; 2],
    /// The log saves are written to.
    current: usize,
    /// Where the next record of the current log goes: after the newest.
    len: u64,
    /// Sequence number of the last record written (the highest on disk).
    seq: u64,
    /// The JSON of the last record written.
    last: Option<Vec<u8>>,
    last_compaction: Instant,
    /// A compaction of the other log is under way.
    compacting: bool,
}

/// A compaction for the compactor thread: `json` (the newest record when
/// the logs were switched) becomes `meta.dat`.
struct Compaction {
    log: Arc<DestinationLog>,
    meta_path: PathBuf,
    json: Vec<u8>,
}

impl FileCursorStore {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        FileCursorStore {
            dir: dir.into(),
            logs: Mutex::new(HashMap::new()),
            compact_at_bytes: COMPACT_AT_BYTES,
            compact_every: COMPACT_EVERY,
            compactor: OnceLock::new(),
        }
    }

    /// Compacts the logs into `meta.dat` once the current one reaches
    /// `at_bytes`, or at the first save `every` after the last compaction.
    pub fn with_compaction(mut self, at_bytes: u64, every: Duration) -> Self {
        self.compact_at_bytes = at_bytes;
        self.compact_every = every;
        self
    }

    pub fn path(&self, destination: &str) -> PathBuf {
        self.dir.join(destination).join("meta.dat")
    }

    /// `{dir}/{destination}/meta.log`: the first of the two logs of saves
    /// since `meta.dat` was last written (the second is `meta.log.1`).
    pub fn log_path(&self, destination: &str) -> PathBuf {
        self.log_path_of(destination, 0)
    }

    fn log_path_of(&self, destination: &str, index: usize) -> PathBuf {
        self.dir.join(destination).join(LOG_NAMES[index])
    }

    /// `{dir}/{destination}/start.dat`: the first start position, kept
    /// apart so `meta.dat` stays what Canal reads and writes.
    pub fn start_path(&self, destination: &str) -> PathBuf {
        self.dir.join(destination).join("start.dat")
    }

    /// `{dir}/{destination}/snapshot.json`: the initial snapshot's progress.
    pub fn snapshot_path(&self, destination: &str) -> PathBuf {
        self.dir.join(destination).join("snapshot.json")
    }

    /// Waits until no compaction of the destination's logs is under way.
    pub fn wait_for_compaction(&self, destination: &str) {
        let log = self.log_of(destination);
        drop(idle_state(&log));
    }

    fn log_of(&self, destination: &str) -> Arc<DestinationLog> {
        let mut logs = lock(&self.logs);
        logs.entry(destination.to_string())
            .or_insert_with(|| {
                Arc::new(DestinationLog {
                    state: Mutex::new(LogState {
                        opened: false,
                        files: [None, None],
                        current: 0,
                        len: 0,
                        seq: 0,
                        last: None,
                        last_compaction: Instant::now(),
                        compacting: false,
                    }),
                    idle: Condvar::new(),
                })
            })
            .clone()
    }

    /// Reads both logs, makes the one holding the newest record the
    /// current one and opens it for writing (creating it, durably, if
    /// needed); the next record goes right after the newest, over whatever
    /// follows it (a torn record, stale ones).
    fn open_logs(&self, destination: &str, st: &mut LogState) -> Result<(), MetaError> {
        let folder = self.dir.join(destination);
        fs::create_dir_all(&folder).map_err(io("create", &folder))?;
        let scans = [
            self.scan_log_file(destination, 0)?,
            self.scan_log_file(destination, 1)?,
        ];
        let newest = |i: usize| scans[i].last.as_ref().map(|r| r.seq);
        let current = usize::from(newest(1) > newest(0));
        let path = self.log_path_of(destination, current);
        let file = open_for_write(&path)?;
        let scan = &scans[current];
        st.files = [None, None];
        st.files[current] = Some(file);
        st.current = current;
        st.len = scan.intact_end;
        st.seq = scans
            .iter()
            .filter_map(|s| s.last.as_ref())
            .map(|r| r.seq)
            .max()
            .unwrap_or(0);
        st.last = scan.last.as_ref().map(|r| r.json.clone());
        st.opened = true;
        Ok(())
    }

    /// What log `index` of the destination holds (nothing if it is missing).
    fn scan_log_file(&self, destination: &str, index: usize) -> Result<LogScan, MetaError> {
        let path = self.log_path_of(destination, index);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io("read", &path)(e)),
        };
        let scan = scan_log(&bytes);
        for offset in &scan.bad_at {
            tracing::warn!(
                "ignoring a damaged cursor record at {}:{offset}",
                path.display()
            );
        }
        Ok(scan)
    }

    /// The JSON of the newest intact record of either log, if any.
    fn read_logs(&self, destination: &str) -> Result<Option<Vec<u8>>, MetaError> {
        let mut newest: Option<LogRecord> = None;
        for index in 0..LOG_NAMES.len() {
            if let Some(r) = self.scan_log_file(destination, index)?.last {
                if newest.as_ref().is_none_or(|n| r.seq > n.seq) {
                    newest = Some(r);
                }
            }
        }
        Ok(newest.map(|r| r.json))
    }

    /// Writes `json` as the next record of the current log, durably.
    fn append(&self, destination: &str, st: &mut LogState, json: &[u8]) -> Result<(), MetaError> {
        use std::os::unix::fs::FileExt;
        let path = self.log_path_of(destination, st.current);
        let record = log_record(st.seq + 1, json);
        let appended = match &st.files[st.current] {
            Some(file) => file
                .write_all_at(&record, st.len)
                .and_then(|()| file.sync_data())
                .map_err(io("write to", &path)),
            None => Err(io("write to", &path)(std::io::ErrorKind::NotFound.into())),
        };
        if let Err(e) = appended {
            st.opened = false;
            st.files = [None, None];
            return Err(e);
        }
        st.seq += 1;
        st.len += record.len() as u64;
        st.last = Some(json.to_vec());
        Ok(())
    }

    /// Starts a compaction: saves go on in the other log, written again
    /// from its start with the newest record first; the compactor then
    /// writes that record as `meta.dat`, off the save path (replacing
    /// `meta.dat` costs several milliseconds, which every ack waiting on
    /// the next save would pay).
    ///
    /// Crash safety: the newest record is always in the current log, and a
    /// log is written over only when every record in it is older than one
    /// durable in the other log. Loading takes the record with the highest
    /// sequence number of either log, so a crash at any step loads the
    /// last save.
    fn switch_logs(&self, destination: &str, st: &mut LogState) -> Result<Compaction, MetaError> {
        let json = st.last.clone().unwrap_or_default();
        let next = 1 - st.current;
        let path = self.log_path_of(destination, next);
        let file = match st.files[next].take() {
            Some(f) => f,
            None => open_for_write(&path)?,
        };
        // Its records are older than the current log's: written over.
        st.files[next] = Some(file);
        st.current = next;
        st.len = 0;
        // On a failure the logs are read again at the next save, which
        // finds the newest record in the old log.
        self.append(destination, st, &json)?;
        Ok(Compaction {
            log: self.log_of(destination),
            meta_path: self.path(destination),
            json,
        })
    }

    /// Hands `job` to the compactor thread (started on first use); runs it
    /// here if the thread cannot be started.
    fn start_compaction(&self, job: Compaction) {
        let sender = self.compactor.get_or_init(|| {
            let (tx, rx) = mpsc::channel::<Compaction>();
            std::thread::Builder::new()
                .name("sluice-meta-compactor".into())
                .spawn(move || {
                    for job in rx {
                        job.run();
                    }
                })
                .ok()
                .map(|_| tx)
        });
        match sender {
            Some(tx) => {
                if let Err(mpsc::SendError(job)) = tx.send(job) {
                    job.run();
                }
            }
            None => job.run(),
        }
    }
}

impl Compaction {
    fn run(self) {
        let written = write_atomically(&self.meta_path, &self.json);
        let mut st = lock(&self.log.state);
        if let Err(e) = written {
            // The cursors are durable in the current log: the next
            // compaction writes meta.dat again.
            tracing::warn!(error = %e, "cannot compact the cursor log into meta.dat");
        }
        st.compacting = false;
        st.last_compaction = Instant::now();
        self.log.idle.notify_all();
    }
}

/// The state of `log` once no compaction is under way.
fn idle_state(log: &DestinationLog) -> MutexGuard<'_, LogState> {
    let mut st = lock(&log.state);
    while st.compacting {
        st = log.idle.wait(st).unwrap_or_else(|p| p.into_inner());
    }
    st
}

/// Opens `path` for writing in place; creates it if missing and then
/// makes its folder entry durable.
fn open_for_write(path: &Path) -> Result<fs::File, MetaError> {
    let existed = path.exists();
    let file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io("open", path))?;
    if !existed {
        if let Some(folder) = path.parent() {
            sync_folder(folder)?;
        }
    }
    Ok(file)
}

/// A log record: the CRC32 (8 hex digits) of what follows the space after
/// it, a space, the record's sequence number, a space, `meta.dat`'s JSON,
/// a newline. The JSON is serde_json's compact form, which has no newline.
fn log_record(seq: u64, json: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(json.len() + 21);
    body.extend_from_slice(seq.to_string().as_bytes());
    body.push(b' ');
    body.extend_from_slice(json);
    let mut line = Vec::with_capacity(body.len() + 10);
    line.extend_from_slice(format!("{:08x} ", crc32fast::hash(&body)).as_bytes());
    line.extend_from_slice(&body);
    line.push(b'\n');
    line
}

struct LogRecord {
    seq: u64,
    json: Vec<u8>,
}

/// What a log holds.
struct LogScan {
    /// Its intact record with the highest sequence number.
    last: Option<LogRecord>,
    /// Where the bytes after that record begin (the next record goes
    /// there).
    intact_end: u64,
    /// Offsets of damaged lines before it (after it lie a torn record or
    /// what earlier rounds left, which is expected).
    bad_at: Vec<u64>,
}

fn scan_log(bytes: &[u8]) -> LogScan {
    let mut scan = LogScan {
        last: None,
        intact_end: 0,
        bad_at: Vec::new(),
    };
    let mut bad = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let Some(nl) = bytes[at..].iter().position(|&b| b == b'\n') else {
            // A torn record: no newline yet.
            break;
        };
        match parse_record(&bytes[at..at + nl]) {
            Some((seq, json)) if scan.last.as_ref().is_none_or(|l| seq > l.seq) => {
                scan.last = Some(LogRecord {
                    seq,
                    json: json.to_vec(),
                });
                scan.intact_end = (at + nl + 1) as u64;
            }
            // Older than one before it: left by an earlier round.
            Some(_) => {}
            None => bad.push(at as u64),
        }
        at += nl + 1;
    }
    scan.bad_at = bad.into_iter().filter(|&b| b < scan.intact_end).collect();
    scan
}

/// The sequence number and JSON of an intact record line (without its
/// newline).
fn parse_record(line: &[u8]) -> Option<(u64, &[u8])> {
    let (crc, body) = (line.get(..8)?, line.get(9..)?);
    if line[8] != b' ' {
        return None;
    }
    let crc = u32::from_str_radix(std::str::from_utf8(crc).ok()?, 16).ok()?;
    if crc32fast::hash(body) != crc {
        return None;
    }
    let space = body.iter().position(|&b| b == b' ')?;
    let seq = std::str::from_utf8(&body[..space]).ok()?.parse().ok()?;
    Some((seq, &body[space + 1..]))
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
        let _order = lock(&log.state);
        let from_file = read_json::<DestinationMeta>(&self.path(destination));
        // A log record is never older than meta.dat: meta.dat is written
        // from a record that stays in a log until meta.dat is durable.
        if let Some(json) = self.read_logs(destination)? {
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
        let json = serde_json::to_vec(meta).map_err(|source| MetaError::Corrupt {
            path: self.log_path(destination),
            source,
        })?;
        let log = self.log_of(destination);
        let mut st = lock(&log.state);
        if !st.opened {
            self.open_logs(destination, &mut st)?;
        }
        self.append(destination, &mut st, &json)?;
        let due =
            st.len >= self.compact_at_bytes || st.last_compaction.elapsed() >= self.compact_every;
        if due && !st.compacting {
            match self.switch_logs(destination, &mut st) {
                Ok(job) => {
                    st.compacting = true;
                    drop(st);
                    self.start_compaction(job);
                }
                // The cursors are durable in the current log: the next
                // save tries again.
                Err(e) => {
                    st.last_compaction = Instant::now();
                    tracing::warn!(error = %e, "cannot compact the cursor log into meta.dat");
                }
            }
        }
        Ok(())
    }

    fn compact(&self, destination: &str) -> Result<(), MetaError> {
        let log = self.log_of(destination);
        let mut st = idle_state(&log);
        let latest = match (st.opened, &st.last) {
            (true, Some(json)) => Some(json.clone()),
            // Not written by this store since it opened: what is on disk.
            _ => self.read_logs(destination)?,
        };
        if let Some(json) = latest {
            write_atomically(&self.path(destination), &json)?;
        }
        st.opened = false;
        st.files = [None, None];
        st.len = 0;
        for index in 0..LOG_NAMES.len() {
            let path = self.log_path_of(destination, index);
            match fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io("remove", &path)(e)),
            }
        }
        Ok(())
    }

    fn load_start(&self, destination: &str) -> Result<Option<EntryPosition>, MetaError> {
        read_json(&self.start_path(destination))
    }

    fn save_start(&self, destination: &str, position: &EntryPosition) -> Result<(), MetaError> {
        write_json(&self.start_path(destination), position)
    }

    fn load_snapshot(&self, destination: &str) -> Result<Option<SnapshotProgress>, MetaError> {
        read_json(&self.snapshot_path(destination))
    }

    fn save_snapshot(
        &self,
        destination: &str,
        progress: &SnapshotProgress,
    ) -> Result<(), MetaError> {
        write_json(&self.snapshot_path(destination), progress)
    }
}

/// Canal's memory meta (`memory-instance.xml`): cursors live as long as
/// the process.
#[derive(Default)]
pub struct MemoryCursorStore {
    metas: std::sync::Mutex<std::collections::HashMap<String, DestinationMeta>>,
    starts: std::sync::Mutex<std::collections::HashMap<String, EntryPosition>>,
    snapshots: std::sync::Mutex<std::collections::HashMap<String, SnapshotProgress>>,
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

    fn load_snapshot(&self, destination: &str) -> Result<Option<SnapshotProgress>, MetaError> {
        let snapshots = self.snapshots.lock().unwrap_or_else(|p| p.into_inner());
        Ok(snapshots.get(destination).cloned())
    }

    fn save_snapshot(
        &self,
        destination: &str,
        progress: &SnapshotProgress,
    ) -> Result<(), MetaError> {
        let mut snapshots = self.snapshots.lock().unwrap_or_else(|p| p.into_inner());
        snapshots.insert(destination.to_string(), progress.clone());
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

    fn second_log_path(dir: &tempfile::TempDir) -> PathBuf {
        dir.path().join("example/meta.log.1")
    }

    fn len(path: PathBuf) -> u64 {
        std::fs::metadata(path).unwrap().len()
    }

    fn record(seq: u64, position: u64) -> Vec<u8> {
        log_record(seq, &serde_json::to_vec(&meta_at(position)).unwrap())
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
        let body = format!("3 {json}");
        assert_eq!(
            lines[2],
            format!("{:08x} {body}", crc32fast::hash(body.as_bytes()))
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
    fn a_torn_record_is_ignored_and_written_over_at_the_next_save() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileCursorStore::new(dir.path());
        store.save(&meta_at(100)).unwrap();
        store.save(&meta_at(200)).unwrap();
        drop(store);
        // A crash in the middle of appending the third record.
        let third = record(3, 300);
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
        let mut bad = record(2, 200);
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
    fn compaction_at_size_writes_canal_meta_dat_and_saves_go_on_in_the_other_log() {
        let dir = tempfile::tempdir().unwrap();
        let r = |seq| record(seq, 4).len() as u64;
        let store = FileCursorStore::new(dir.path())
            .with_compaction(r(1) + r(2) + r(3), Duration::from_secs(3600));
        for _ in 0..2 {
            store.save(&meta_at(4)).unwrap();
        }
        assert!(!dir.path().join("example/meta.dat").exists());
        assert_eq!(len(log_path(&dir)), r(1) + r(2));
        store.save(&meta_at(4)).unwrap();
        store.wait_for_compaction("example");
        let written = std::fs::read_to_string(dir.path().join("example/meta.dat")).unwrap();
        assert_eq!(written, CANAL_META);
        // The log left keeps its records, older than the other log's.
        assert_eq!(len(log_path(&dir)), r(1) + r(2) + r(3));
        // Saves went on in the second log, which starts with the newest record.
        assert_eq!(len(second_log_path(&dir)), r(4));
        assert_eq!(position(&store.load("example").unwrap()), 4);
        store.save(&meta_at(500)).unwrap();
        assert_eq!(
            len(second_log_path(&dir)),
            r(4) + record(5, 500).len() as u64
        );
        assert_eq!(
            position(&FileCursorStore::new(dir.path()).load("example").unwrap()),
            500
        );
    }

    #[test]
    fn compaction_after_the_period_alternates_the_logs() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileCursorStore::new(dir.path()).with_compaction(u64::MAX, Duration::ZERO);
        store.save(&meta_at(4)).unwrap();
        store.wait_for_compaction("example");
        let written = std::fs::read_to_string(dir.path().join("example/meta.dat")).unwrap();
        assert_eq!(written, CANAL_META);
        store.save(&meta_at(700)).unwrap();
        store.wait_for_compaction("example");
        // Back in the first log, written over from its start.
        let first = std::fs::read(log_path(&dir)).unwrap();
        assert!(first.starts_with(&record(4, 700)));
        assert_eq!(first.len() as u64, record(4, 700).len() as u64);
        assert_eq!(
            len(second_log_path(&dir)),
            (record(2, 4).len() + record(3, 700).len()) as u64
        );
        let written: DestinationMeta =
            serde_json::from_slice(&std::fs::read(dir.path().join("example/meta.dat")).unwrap())
                .unwrap();
        assert_eq!(position(&written), 700);
        assert_eq!(
            position(&FileCursorStore::new(dir.path()).load("example").unwrap()),
            700
        );
    }

    /// Rounds of saves overwrite the logs in place: once both logs have
    /// reached a round's size, saves change no file size (no journal
    /// commit per save), and what earlier rounds left after the newest
    /// record never wins.
    #[test]
    fn logs_are_written_over_in_place_and_stale_records_lose() {
        let dir = tempfile::tempdir().unwrap();
        let per_round = 5;
        let r = record(1, 1000).len() as u64;
        let store = FileCursorStore::new(dir.path())
            .with_compaction(r * per_round, Duration::from_secs(3600));
        let mut position_now = 1000;
        for _ in 0..4 * per_round {
            position_now += 1;
            store.save(&meta_at(position_now)).unwrap();
            store.wait_for_compaction("example");
        }
        let sizes = (len(log_path(&dir)), len(second_log_path(&dir)));
        for _ in 0..4 * per_round {
            position_now += 1;
            store.save(&meta_at(position_now)).unwrap();
            store.wait_for_compaction("example");
            assert_eq!(
                (len(log_path(&dir)), len(second_log_path(&dir))),
                sizes,
                "a save grew a log"
            );
        }
        // The current log's newest record is followed by older ones.
        assert_eq!(
            position(&FileCursorStore::new(dir.path()).load("example").unwrap()),
            position_now
        );
        // A store opened again goes on after the newest record.
        drop(store);
        let store = FileCursorStore::new(dir.path());
        assert_eq!(position(&store.load("example").unwrap()), position_now);
        store.save(&meta_at(position_now + 1)).unwrap();
        assert_eq!(
            position(&FileCursorStore::new(dir.path()).load("example").unwrap()),
            position_now + 1
        );
    }

    #[test]
    fn a_crash_at_any_step_of_a_compaction_loads_the_last_save() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileCursorStore::new(dir.path());
        store.save(&meta_at(100)).unwrap();
        store.save(&meta_at(200)).unwrap();
        drop(store);
        let meta_dat = dir.path().join("example/meta.dat");
        // Logs switched: the second log holds the newest record again,
        // meta.dat is not written yet.
        std::fs::write(second_log_path(&dir), record(3, 200)).unwrap();
        assert_eq!(
            position(&FileCursorStore::new(dir.path()).load("example").unwrap()),
            200
        );
        // meta.dat written, the first log not emptied yet.
        std::fs::write(&meta_dat, serde_json::to_vec(&meta_at(200)).unwrap()).unwrap();
        let store = FileCursorStore::new(dir.path());
        assert_eq!(position(&store.load("example").unwrap()), 200);
        // Saves go on in the log holding the newest record.
        store.save(&meta_at(300)).unwrap();
        assert_eq!(
            len(second_log_path(&dir)),
            (record(3, 200).len() + record(4, 300).len()) as u64
        );
        assert_eq!(position(&store.load("example").unwrap()), 300);
        // A stale meta.dat and a stale first log lose to it.
        std::fs::write(&meta_dat, serde_json::to_vec(&meta_at(50)).unwrap()).unwrap();
        assert_eq!(
            position(&FileCursorStore::new(dir.path()).load("example").unwrap()),
            300
        );
        // A clean stop on a store that did not write the logs itself.
        let other = FileCursorStore::new(dir.path());
        other.compact("example").unwrap();
        assert!(!log_path(&dir).exists());
        assert!(!second_log_path(&dir).exists());
        let written: DestinationMeta =
            serde_json::from_slice(&std::fs::read(&meta_dat).unwrap()).unwrap();
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
