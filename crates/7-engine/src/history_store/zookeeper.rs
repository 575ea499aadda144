//! The schema history in ZooKeeper in the layout of the reference design's
//! Java store: `<path>` persistent, one child per Debezium record created
//! persistent-sequential at `<path>/child` (`child0000000000`, …) holding
//! the record's JSON gzip'd (Curator's `compressed()`).
//!
//! Unlike the Java store, which creates an empty child and then sets its
//! data (leaving Curator's default data, the host's IP address, in the
//! child if it dies in between), a child is created with its data in the
//! one `create`. A loader skips, with a warning, children whose data is
//! empty or not gzip: what a Java writer's crash leaves.
//!
//! With a fence (the path of this process's leader-latch node), every
//! append is one `multi` of `check(latch node)` and the creates: once the
//! latch node is gone (session expired, latch closed), nothing is written.

use std::io::{Read, Write};
use std::sync::Arc;

use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use serde_json::Value;
use sluice_ha::blocking::BlockingSession;
use sluice_ha::zookeeper_client::{self, Acls, Client, CreateMode, MultiWriteError};
use sluice_ha::{HaError, ZkConfig};
use sluice_schema::{HistoryRecord, SchemaError, SchemaHistoryStore};
use tracing::{debug, warn};

use super::codec::{HistoryCodec, SourceContext};
use crate::EngineError;

pub use crate::offset_store::Fence;

/// The most bytes one request may carry: ZooKeeper's default
/// `jute.maxbuffer` (1 MiB), less room for the request's paths and
/// headers. It bounds one node and one `multi` as a whole.
pub const MAX_NODE_BYTES: usize = 1024 * 1024 - 16 * 1024;

/// The gunzip'd size a child may have: a damaged or hostile child must not
/// exhaust memory.
const MAX_RECORD_JSON_BYTES: u64 = 64 * 1024 * 1024;

/// Reads sent before waiting for their answers.
const READ_BATCH: usize = 64;

const CHILD_PREFIX: &str = "child";

/// The schema history in ZooKeeper in Debezium's record format; see the
/// module documentation.
pub struct DebeziumZooKeeperHistoryStore {
    zk: Arc<BlockingSession>,
    path: String,
    codec: HistoryCodec,
    fence: Option<Fence>,
    loaded: bool,
}

impl std::fmt::Debug for DebeziumZooKeeperHistoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DebeziumZooKeeperHistoryStore")
            .field("servers", &self.zk.session().config().servers)
            .field("path", &self.path)
            .field("server", &self.codec.server())
            .field("fenced", &self.fence.is_some())
            .finish_non_exhaustive()
    }
}

impl DebeziumZooKeeperHistoryStore {
    /// The history at `path` for the connector whose `topic.prefix` is
    /// `server`, on a session of its own.
    pub fn connect(
        config: ZkConfig,
        path: &str,
        server: impl Into<String>,
    ) -> Result<Self, EngineError> {
        let zk = BlockingSession::connect(
            config,
            "sluice-zk-debezium-history",
            "a ZooKeeper schema history operation",
        )?;
        Self::new(Arc::new(zk), path, server)
    }

    /// The history at `path` on a shared session; creates `path` if it is
    /// missing.
    pub fn new(
        zk: Arc<BlockingSession>,
        path: &str,
        server: impl Into<String>,
    ) -> Result<Self, EngineError> {
        if !path.starts_with('/') || (path.len() > 1 && path.ends_with('/')) || path.contains("//")
        {
            return Err(EngineError::Config {
                property: "schema.history.internal.zookeeper.path".into(),
                message: format!("{path:?} is not a ZooKeeper node path"),
            });
        }
        let store = DebeziumZooKeeperHistoryStore {
            zk,
            path: path.to_string(),
            codec: HistoryCodec::new(server),
            fence: None,
            loaded: false,
        };
        let at = store.path.clone();
        let acls = store.zk.session().config().node_acls();
        store.zk.run(move |client| async move {
            client
                .mkdir(&at, &CreateMode::Persistent.with_acls(acls))
                .await
                .map_err(|source| HaError::ZooKeeper {
                    op: "create",
                    path: at.clone(),
                    source,
                })
        })?;
        Ok(store)
    }

    /// Appends only while `fence` names this process's latch node, and
    /// only if that node still exists when the records are created.
    pub fn with_fence(mut self, fence: Fence) -> Self {
        self.fence = Some(fence);
        self
    }

    /// Takes `server_id`, `ts_sec` and `gtids` of the records' positions
    /// from `context`.
    pub fn with_source_context(mut self, context: Arc<SourceContext>) -> Self {
        self.codec =
            HistoryCodec::new(self.codec.server().to_string()).with_source_context(context);
        self.loaded = false;
        self
    }

    /// The history's node.
    pub fn path(&self) -> &str {
        &self.path
    }

    fn error(&self, path: &str, message: String) -> SchemaError {
        SchemaError::History {
            path: path.to_string(),
            message,
        }
    }
}

/// Gzip, as Curator's `GzipCompressionProvider` writes it.
fn gzip(json: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut encoder = GzEncoder::new(
        Vec::with_capacity(json.len() / 4 + 64),
        Compression::default(),
    );
    encoder.write_all(json)?;
    encoder.finish()
}

fn gunzip(data: &[u8]) -> Result<Vec<u8>, String> {
    let mut json = Vec::new();
    GzDecoder::new(data)
        .take(MAX_RECORD_JSON_BYTES + 1)
        .read_to_end(&mut json)
        .map_err(|e| format!("cannot gunzip: {e}"))?;
    if json.len() as u64 > MAX_RECORD_JSON_BYTES {
        return Err(format!(
            "gunzips to more than {MAX_RECORD_JSON_BYTES} bytes"
        ));
    }
    Ok(json)
}

/// The sequence number of a child `child0000000012`.
fn child_sequence(name: &str) -> Option<i64> {
    let digits = name.strip_prefix(CHILD_PREFIX)?;
    if digits.len() < 10 || !digits.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
        return None;
    }
    digits.parse().ok()
}

/// Why an append wrote nothing.
enum WriteFailure {
    Fenced,
    Zk(HaError),
}

impl From<HaError> for WriteFailure {
    fn from(e: HaError) -> Self {
        WriteFailure::Zk(e)
    }
}

/// Creates the children of one batch, in one `multi` with the check of
/// `latch` when fenced; creates the history node and retries once if it
/// is missing.
async fn create_batch(
    client: &Client,
    history: &str,
    latch: Option<&str>,
    batch: &[Vec<u8>],
    acls: Acls<'static>,
) -> Result<(), WriteFailure> {
    let prefix = format!("{history}/{CHILD_PREFIX}");
    let options = CreateMode::PersistentSequential.with_acls(acls);
    for attempt in 0..2 {
        let result = match latch {
            None if batch.len() == 1 => match client.create(&prefix, &batch[0], &options).await {
                Ok(_) => Ok(()),
                Err(e) => Err((None, e)),
            },
            _ => {
                let mut multi = client.new_multi_writer();
                let mut add = || -> Result<(), zookeeper_client::Error> {
                    if let Some(latch) = latch {
                        // Version -1: the node exists, whatever its version.
                        multi.add_check_version(latch, -1)?;
                    }
                    for data in batch {
                        multi.add_create(&prefix, data, &options)?;
                    }
                    Ok(())
                };
                add().map_err(|source| HaError::ZooKeeper {
                    op: "prepare the creates of",
                    path: prefix.clone(),
                    source,
                })?;
                match multi.commit().await {
                    Ok(_) => Ok(()),
                    Err(MultiWriteError::OperationFailed { index, source }) => {
                        Err((Some(index), source))
                    }
                    Err(MultiWriteError::RequestFailed { source }) => Err((None, source)),
                }
            }
        };
        match result {
            Ok(()) => return Ok(()),
            // The check of the latch node failed: it is gone.
            Err((
                Some(0),
                zookeeper_client::Error::NoNode | zookeeper_client::Error::BadVersion,
            )) if latch.is_some() => return Err(WriteFailure::Fenced),
            Err((_, zookeeper_client::Error::NoNode)) if attempt == 0 => {
                client
                    .mkdir(history, &CreateMode::Persistent.with_acls(acls))
                    .await
                    .map_err(|source| HaError::ZooKeeper {
                        op: "create",
                        path: history.to_string(),
                        source,
                    })?;
            }
            Err((_, source)) => {
                return Err(WriteFailure::Zk(HaError::ZooKeeper {
                    op: "create",
                    path: prefix,
                    source,
                }))
            }
        }
    }
    Err(WriteFailure::Zk(HaError::ZooKeeper {
        op: "create",
        path: prefix,
        source: zookeeper_client::Error::NoNode,
    }))
}

impl SchemaHistoryStore for DebeziumZooKeeperHistoryStore {
    fn append(&mut self, record: &HistoryRecord) -> sluice_schema::Result<()> {
        if !self.loaded {
            // The records name what they remove against the history so far.
            self.load()?;
        }
        let latch = match &self.fence {
            None => None,
            Some(fence) => match fence() {
                Some(node) => Some(node),
                None => {
                    return Err(self.error(
                        &self.path,
                        "not written, this process does not hold the leader latch".into(),
                    ))
                }
            },
        };
        let position = record.position().clone();
        let records = self.codec.encode(record).map_err(|e| {
            self.error(
                &self.path,
                format!("cannot write the record at {position}: {e}"),
            )
        })?;
        let mut nodes = Vec::with_capacity(records.len());
        for r in records {
            let json = Value::Object(r).to_string();
            let data = gzip(json.as_bytes()).map_err(|e| {
                self.error(
                    &self.path,
                    format!("cannot gzip the record at {position}: {e}"),
                )
            })?;
            if data.len() > MAX_NODE_BYTES {
                return Err(self.error(
                    &self.path,
                    format!(
                        "the record at {position} is {} bytes gzip'd ({} bytes of JSON), more than \
                         the {MAX_NODE_BYTES} a ZooKeeper node holds under the default \
                         jute.maxbuffer; not written",
                        data.len(),
                        json.len()
                    ),
                ));
            }
            nodes.push(data);
        }
        // Children go in as few requests as ZooKeeper's request size allows:
        // usually one, so a snapshot's records are all written or none.
        let mut batches: Vec<Vec<Vec<u8>>> = Vec::new();
        let mut size = 0usize;
        for data in nodes {
            if batches.is_empty() || size + data.len() > MAX_NODE_BYTES {
                batches.push(Vec::new());
                size = 0;
            }
            size += data.len() + 64;
            if let Some(last) = batches.last_mut() {
                last.push(data);
            }
        }
        let history = self.path.clone();
        let acls = self.zk.session().config().node_acls();
        let written = self.zk.run(move |client| async move {
            for batch in &batches {
                match create_batch(&client, &history, latch.as_deref(), batch, acls).await {
                    Ok(()) => {}
                    Err(WriteFailure::Fenced) => return Ok(false),
                    Err(WriteFailure::Zk(e)) => return Err(e),
                }
            }
            Ok(true)
        });
        match written {
            Ok(true) => {
                self.codec.written(record);
                debug!(history = %self.path, %position, "schema history record written");
                Ok(())
            }
            Ok(false) => Err(self.error(
                &self.path,
                "not written, this process no longer holds the leader latch (its latch node is gone)"
                    .into(),
            )),
            Err(e) => Err(self.error(&self.path, e.to_string())),
        }
    }

    fn load(&mut self) -> sluice_schema::Result<Vec<HistoryRecord>> {
        let history = self.path.clone();
        let nodes = self
            .zk
            .run(move |client| async move {
                // Records written through another session, maybe through
                // another ZooKeeper server: catch up with the leader first.
                match client.sync(&history).await {
                    Ok(()) | Err(zookeeper_client::Error::NoNode) => {}
                    Err(source) => {
                        return Err(HaError::ZooKeeper {
                            op: "sync",
                            path: history,
                            source,
                        })
                    }
                }
                let children = match client.list_children(&history).await {
                    Ok(c) => c,
                    Err(zookeeper_client::Error::NoNode) => return Ok(Vec::new()),
                    Err(source) => {
                        return Err(HaError::ZooKeeper {
                            op: "list",
                            path: history,
                            source,
                        })
                    }
                };
                let mut numbered: Vec<(i64, String)> = Vec::new();
                for child in children {
                    match child_sequence(&child) {
                        Some(n) => numbered.push((n, format!("{history}/{child}"))),
                        None => warn!(node = %format!("{history}/{child}"), "not a schema history record; ignored"),
                    }
                }
                numbered.sort_unstable();
                let mut nodes = Vec::with_capacity(numbered.len());
                for batch in numbered.chunks(READ_BATCH) {
                    // Each request is sent when made: one round trip per batch.
                    let reads: Vec<_> = batch.iter().map(|(_, p)| client.get_data(p)).collect();
                    for ((_, path), read) in batch.iter().zip(reads) {
                        match read.await {
                            Ok((data, _)) => nodes.push((path.clone(), data)),
                            Err(zookeeper_client::Error::NoNode) => {
                                debug!(node = %path, "schema history record deleted while loading")
                            }
                            Err(source) => {
                                return Err(HaError::ZooKeeper {
                                    op: "read",
                                    path: path.clone(),
                                    source,
                                })
                            }
                        }
                    }
                }
                Ok(nodes)
            })
            .map_err(|e| self.error(&self.path, e.to_string()))?;
        let mut documents = Vec::with_capacity(nodes.len());
        for (path, data) in nodes {
            if data.is_empty() {
                warn!(node = %path, "schema history record without data; skipped");
                continue;
            }
            if !data.starts_with(&[0x1f, 0x8b]) {
                // Curator's default data (the writer's IP address) in a
                // child whose record was never set: a Java writer died.
                let shown = String::from_utf8_lossy(&data[..data.len().min(40)]).into_owned();
                warn!(node = %path, data = %shown, "schema history record whose data is not gzip (a writer died before setting it); skipped");
                continue;
            }
            let json = gunzip(&data).map_err(|e| self.error(&path, e))?;
            let value: Value = serde_json::from_slice(&json)
                .map_err(|e| self.error(&path, format!("not a JSON record: {e}")))?;
            documents.push((path, value));
        }
        let records = self.codec.decode_all(documents);
        self.loaded = true;
        Ok(records)
    }

    fn location(&self) -> String {
        self.path.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_names_are_curators_sequential_names() {
        assert_eq!(child_sequence("child0000000000"), Some(0));
        assert_eq!(child_sequence("child0000000042"), Some(42));
        assert_eq!(child_sequence("child-2147483648"), Some(-2147483648));
        assert_eq!(child_sequence("child12"), None);
        assert_eq!(child_sequence("lock0000000001"), None);
    }

    #[test]
    fn gzip_round_trips_and_starts_with_the_magic() {
        let data = gzip(b"{\"a\":1}").unwrap();
        assert_eq!(&data[..2], &[0x1f, 0x8b]);
        assert_eq!(gunzip(&data).unwrap(), b"{\"a\":1}");
        assert!(gunzip(b"10.0.0.5").is_err());
    }
}
