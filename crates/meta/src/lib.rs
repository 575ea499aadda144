//! Consumer cursors and subscriptions of a destination, persisted behind
//! the [`CursorStore`] trait. [`FileCursorStore`] writes Canal's
//! `{dir}/{destination}/meta.dat` JSON, so a Canal deployment's cursors are
//! picked up as they are, and Canal can read Sluice's. A ZooKeeper store
//! (for clusters) implements the same trait.
//!
//! Writes are atomic (temporary file, fsync, rename, fsync of the folder):
//! a crash leaves either the old or the new cursors, never a torn file.

pub mod lock;

pub use lock::{DirLock, LockError};

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

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
    /// Whether a save only changes memory (nothing survives the process):
    /// then it is cheap enough to do in the request path, and there is no
    /// durability to wait for.
    fn is_in_memory(&self) -> bool {
        false
    }
}

/// Canal's file meta: `{dir}/{destination}/meta.dat`.
pub struct FileCursorStore {
    dir: PathBuf,
}

impl FileCursorStore {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        FileCursorStore { dir: dir.into() }
    }

    pub fn path(&self, destination: &str) -> PathBuf {
        self.dir.join(destination).join("meta.dat")
    }

    /// `{dir}/{destination}/start.dat`: the first start position, kept
    /// apart so `meta.dat` stays what Canal reads and writes.
    pub fn start_path(&self, destination: &str) -> PathBuf {
        self.dir.join(destination).join("start.dat")
    }
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
    fs::File::open(&folder)
        .and_then(|d| d.sync_all())
        .map_err(io("sync", &folder))?;
    Ok(())
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
        Ok(
            read_json(&self.path(destination))?.unwrap_or_else(|| DestinationMeta {
                client_datas: Vec::new(),
                destination: destination.to_string(),
            }),
        )
    }

    fn save(&self, meta: &DestinationMeta) -> Result<(), MetaError> {
        write_json(&self.path(&meta.destination), meta)
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
        let written = std::fs::read_to_string(dir.path().join("example/meta.dat")).unwrap();
        assert_eq!(written, CANAL_META);
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
