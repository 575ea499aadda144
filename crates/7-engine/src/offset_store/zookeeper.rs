//! Offsets in one ZooKeeper node, as Debezium fleets made highly available
//! with ZooKeeper keep them (`offset.storage.zookeeper.path`): the node's
//! data is the Java-serialized `HashMap<byte[], byte[]>` of every offset,
//! gzipped as Apache Curator's `setData().compressed()` writes it.
//!
//! The node is created (persistent, with its parents) with empty data when
//! missing; empty data holds no offsets. A reader also accepts a map that
//! is not gzipped.
//!
//! # Fencing
//!
//! Java writers overwrite the node unconditionally, so a leader that lost
//! its session without noticing yet can still write. With a [`Fence`] (the
//! path of this process's leader-latch node, `None` when it does not lead)
//! a commit is one ZooKeeper `multi` of "the latch node exists" and the
//! write: once the latch node is gone (deleted, or its session expired)
//! nothing is written and the commit fails with [`EngineError::Fenced`].
//! The layout Java sees stays the same.
//!
//! A commit reads the node, replaces its own entry and writes the map back
//! expecting the version it read, so entries other engines commit to the
//! same node meanwhile are not lost; on a conflict it starts again.

use std::io::{Read, Write};
use std::sync::Arc;

use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use sluice_ha::blocking::BlockingSession;
use sluice_ha::zookeeper_client::{self as zk, Acls, Client, CreateMode, MultiWriteError};
use sluice_ha::{HaError, ZkConfig};

use super::{find_offset, put_offset, OffsetStore};
use crate::java_map::{read_java_map, write_java_map_entries, JavaMapEntry};
use crate::{EngineError, OffsetKey, SourceOffset};

/// The node of the reference design's offset store.
pub const DEFAULT_OFFSET_PATH: &str = "/debezium-offset-storage";

/// The most bytes the node's map may take once decompressed: a damaged
/// gzip stream must not exhaust memory. (A ZooKeeper node holds 1 MiB by
/// default.)
pub const MAX_MAP_BYTES: usize = 64 * 1024 * 1024;

/// Read-modify-write attempts when other writers keep changing the node.
const COMMIT_ATTEMPTS: u32 = 32;

/// A pause before attempt `attempt` after a conflict: random up to a bound
/// that doubles from 1 ms to 64 ms, so that writers that keep colliding
/// (several engines sharing the node, committing in step) fall out of step.
fn conflict_pause(attempt: u32) -> std::time::Duration {
    use std::hash::{BuildHasher, Hasher};
    let bound_us = 1000u64 << attempt.min(6);
    // A fresh random seed per hasher: no dependency for a jitter.
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(attempt);
    std::time::Duration::from_micros(h.finish() % bound_us)
}

const GZIP_MAGIC: [u8; 2] = [0x1F, 0x8B];
const JAVA_MAGIC: [u8; 2] = [0xAC, 0xED];

/// Returns the path of this process's leader-latch node while it leads,
/// `None` when it does not.
pub type Fence = Arc<dyn Fn() -> Option<String> + Send + Sync>;

/// Offsets in one ZooKeeper node; see the module documentation.
pub struct ZooKeeperOffsetStore {
    zk: Arc<BlockingSession>,
    path: String,
    fence: Option<Fence>,
}

impl std::fmt::Debug for ZooKeeperOffsetStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZooKeeperOffsetStore")
            .field("servers", &self.zk.session().config().servers)
            .field("path", &self.path)
            .field("fenced", &self.fence.is_some())
            .finish_non_exhaustive()
    }
}

impl ZooKeeperOffsetStore {
    /// A session of its own (thread, runtime and ZooKeeper session), to
    /// share with [`open`](Self::open).
    pub fn connect_session(config: ZkConfig) -> Result<Arc<BlockingSession>, EngineError> {
        BlockingSession::connect(
            config,
            "sluice-zk-offsets",
            "a ZooKeeper offset store operation",
        )
        .map(Arc::new)
        .map_err(EngineError::from)
    }

    /// The store at node `path` on a session of its own.
    pub fn connect(config: ZkConfig, path: &str) -> Result<Self, EngineError> {
        Self::open(Self::connect_session(config)?, path)
    }

    /// The store at node `path` on a shared session: creates the node
    /// (and its parents) with empty data when missing, and reads it once so
    /// that data that is no offset map is reported now.
    pub fn open(zk: Arc<BlockingSession>, path: &str) -> Result<Self, EngineError> {
        check_path(path)?;
        let store = ZooKeeperOffsetStore {
            zk,
            path: path.to_string(),
            fence: None,
        };
        let node = store.path.clone();
        let options = CreateMode::Persistent.with_acls(store.acls());
        store
            .zk
            .run(move |client| async move {
                client
                    .mkdir(&node, &options)
                    .await
                    .map_err(|e| zk_error("create", &node, e))
            })
            .map_err(|e| store.ha_error(e))?;
        store.entries()?;
        Ok(store)
    }

    /// Commits only while `fence` names a latch node that exists, in the
    /// same ZooKeeper transaction as the write.
    pub fn with_fence(mut self, fence: Fence) -> Self {
        self.fence = Some(fence);
        self
    }

    /// The node, e.g. [`DEFAULT_OFFSET_PATH`].
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Every entry of the node's map, after catching up with the ZooKeeper
    /// leader (the previous owner's last commit is seen).
    pub fn entries(&self) -> Result<Vec<JavaMapEntry>, EngineError> {
        let node = self.path.clone();
        let data = self
            .zk
            .run(move |client| async move {
                client
                    .sync(&node)
                    .await
                    .map_err(|e| zk_error("sync", &node, e))?;
                match client.get_data(&node).await {
                    Ok((data, _)) => Ok(data),
                    Err(zk::Error::NoNode) => Ok(Vec::new()),
                    Err(e) => Err(zk_error("read", &node, e)),
                }
            })
            .map_err(|e| self.ha_error(e))?;
        decode(&data).map_err(|message| self.error(message))
    }

    fn acls(&self) -> Acls<'static> {
        self.zk.session().config().node_acls()
    }

    fn error(&self, message: String) -> EngineError {
        EngineError::Store {
            location: self.location(),
            message,
        }
    }

    fn ha_error(&self, e: HaError) -> EngineError {
        self.error(e.to_string())
    }
}

impl OffsetStore for ZooKeeperOffsetStore {
    fn load(&mut self, key: &OffsetKey) -> Result<Option<SourceOffset>, EngineError> {
        let entries = self.entries()?;
        find_offset(&entries, key).map_err(|e| self.error(e))
    }

    fn commit(&mut self, key: &OffsetKey, offset: &SourceOffset) -> Result<(), EngineError> {
        let latch = match &self.fence {
            None => None,
            Some(fence) => match fence() {
                Some(latch) => Some(latch),
                None => {
                    return Err(EngineError::Fenced {
                        location: self.location(),
                    })
                }
            },
        };
        let node = self.path.clone();
        let key = key.clone();
        let offset = offset.clone();
        let options = CreateMode::Persistent.with_acls(self.acls());
        let outcome = self
            .zk
            .run(move |client| async move {
                Ok(write(&client, &node, latch.as_deref(), &key, &offset, options).await)
            })
            .map_err(|e| self.ha_error(e))?;
        match outcome {
            Ok(()) => Ok(()),
            Err(Failure::Fenced) => Err(EngineError::Fenced {
                location: self.location(),
            }),
            Err(Failure::Other(message)) => Err(self.error(message)),
        }
    }

    fn location(&self) -> String {
        format!("ZooKeeper node {}", self.path)
    }
}

enum Failure {
    Fenced,
    Other(String),
}

/// The read-modify-write of one commit, retried while another writer
/// changes the node between the read and the write.
async fn write(
    client: &Client,
    node: &str,
    latch: Option<&str>,
    key: &OffsetKey,
    offset: &SourceOffset,
    options: zk::CreateOptions<'static>,
) -> Result<(), Failure> {
    let write_index = usize::from(latch.is_some());
    for attempt in 0..COMMIT_ATTEMPTS {
        if attempt > 0 {
            tokio::time::sleep(conflict_pause(attempt)).await;
        }
        let (data, version) = match client.get_data(node).await {
            Ok((data, stat)) => (data, Some(stat.version)),
            Err(zk::Error::NoNode) => (Vec::new(), None),
            Err(e) => return Err(Failure::Other(zk_error("read", node, e).to_string())),
        };
        let mut entries = decode(&data).map_err(Failure::Other)?;
        put_offset(&mut entries, key, offset);
        let encoded = gzip(&write_java_map_entries(&entries))
            .map_err(|e| Failure::Other(format!("cannot gzip the offsets: {e}")))?;
        if version.is_none() {
            // Someone deleted the node: recreate its parents, then the
            // node itself in the transaction.
            if let Some(parent) = node.rfind('/').filter(|&i| i > 0).map(|i| &node[..i]) {
                client
                    .mkdir(parent, &options)
                    .await
                    .map_err(|e| Failure::Other(zk_error("create", parent, e).to_string()))?;
            }
        }
        let mut multi = client.new_multi_writer();
        let added = (|| {
            if let Some(latch) = latch {
                // Version -1: the latch node exists, whatever its version.
                multi.add_check_version(latch, -1)?;
            }
            match version {
                Some(v) => multi.add_set_data(node, &encoded, Some(v)),
                None => multi.add_create(node, &encoded, &options),
            }
        })();
        if let Err(e) = added {
            return Err(Failure::Other(format!(
                "cannot build the write of {node} (latch node {latch:?}): {e}"
            )));
        }
        match multi.commit().await {
            Ok(_) => return Ok(()),
            Err(MultiWriteError::OperationFailed { index, .. })
                if latch.is_some() && index < write_index =>
            {
                return Err(Failure::Fenced)
            }
            Err(MultiWriteError::OperationFailed {
                source: zk::Error::BadVersion | zk::Error::NoNode | zk::Error::NodeExists,
                ..
            }) => continue,
            Err(e) => return Err(Failure::Other(format!("ZooKeeper write {node}: {e}"))),
        }
    }
    Err(Failure::Other(format!(
        "the node changed under every one of {COMMIT_ATTEMPTS} attempts to write it"
    )))
}

/// The entries of the node's data: empty, gzip of a Java map, or a Java map.
fn decode(data: &[u8]) -> Result<Vec<JavaMapEntry>, String> {
    if data.is_empty() {
        return Ok(Vec::new());
    }
    if data.starts_with(&GZIP_MAGIC) {
        let mut map = Vec::new();
        GzDecoder::new(data)
            .take(MAX_MAP_BYTES as u64 + 1)
            .read_to_end(&mut map)
            .map_err(|e| format!("the data is damaged gzip: {e}"))?;
        if map.len() > MAX_MAP_BYTES {
            return Err(format!(
                "the data decompresses to more than {MAX_MAP_BYTES} bytes"
            ));
        }
        return read_java_map(&map).map_err(|e| format!("inside the gzip data, {e}"));
    }
    if data.starts_with(&JAVA_MAGIC) {
        return read_java_map(data).map_err(|e| e.to_string());
    }
    Err(format!(
        "the data ({} bytes, starting {}) is neither gzip nor a Java-serialized map",
        data.len(),
        data.iter()
            .take(4)
            .map(|b| format!("{b:02X}"))
            .collect::<Vec<_>>()
            .join(" ")
    ))
}

/// One gzip member, as Java's `GZIPOutputStream` (behind Curator's
/// `compressed()`) writes.
fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut encoder = GzEncoder::new(
        Vec::with_capacity(bytes.len() / 2 + 32),
        Compression::default(),
    );
    encoder.write_all(bytes)?;
    encoder.finish()
}

fn zk_error(op: &'static str, path: &str, source: zk::Error) -> HaError {
    HaError::ZooKeeper {
        op,
        path: path.to_string(),
        source,
    }
}

/// A path the node can have: absolute, not the root, no empty segment.
fn check_path(path: &str) -> Result<(), EngineError> {
    let reason = if !path.starts_with('/') {
        Some("it does not start with /")
    } else if path == "/" {
        Some("the root cannot hold the offsets")
    } else if path.ends_with('/') {
        Some("it ends with /")
    } else if path.contains("//") {
        Some("it has an empty segment")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(EngineError::Config {
            property: "offset.storage.zookeeper.path".into(),
            message: format!("{path:?} is not a ZooKeeper node path: {reason}"),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::java_map::write_java_map;

    #[test]
    fn node_data_decodes_gzipped_plain_or_empty() {
        let map = write_java_map(&[(b"k".to_vec(), b"v".to_vec())]);
        let expected = vec![(Some(b"k".to_vec()), Some(b"v".to_vec()))];
        assert_eq!(decode(&gzip(&map).unwrap()).unwrap(), expected);
        assert_eq!(decode(&map).unwrap(), expected);
        assert_eq!(decode(&[]).unwrap(), vec![]);
        let e = decode(b"{\"a\":1}").unwrap_err();
        assert!(e.contains("neither gzip nor"), "{e}");
        let gz = gzip(&map).unwrap();
        let e = decode(&gz[..gz.len() - 5]).unwrap_err();
        assert!(e.contains("damaged gzip"), "{e}");
        let e = decode(&gzip(b"not a map").unwrap()).unwrap_err();
        assert!(e.contains("inside the gzip data"), "{e}");
    }

    #[test]
    fn paths_are_checked() {
        assert!(check_path(DEFAULT_OFFSET_PATH).is_ok());
        assert!(check_path("/a/b").is_ok());
        for bad in ["", "a", "/", "/a/", "/a//b"] {
            assert!(check_path(bad).is_err(), "{bad:?}");
        }
    }
}
