//! A destination's schema history in ZooKeeper, behind
//! [`SchemaHistoryStore`], so that a server that takes a destination over
//! decodes with the history its previous owner wrote.
//!
//! # Nodes
//!
//! ```text
//! /otter/canal/destinations/{dest}/schema-history                                persistent, no data
//! /otter/canal/destinations/{dest}/schema-history/record-0000000012              persistent sequential: one record
//! /otter/canal/destinations/{dest}/schema-history/record-0000000012/chunk-0000   persistent: part of a big record
//! ```
//!
//! `schema-history` is not a number, so neither Canal nor the cursor store
//! takes it for a client id. Records are in the order of their sequence
//! numbers, which ZooKeeper gives in creation order; other children are
//! ignored with a warning. The data of a record node is one of:
//!
//! | data | meaning |
//! |---|---|
//! | `{...}` | the record's JSON, as [`sluice_schema::FileHistoryStore`] writes it on a line; used up to [`PLAIN_MAX`] bytes (DDL and repairs: readable with `zkCli.sh get`) |
//! | `zstd\n` then a zstd frame | the JSON compressed (one frame, with content size and checksum) |
//! | `zstd-chunks {n} {bytes}\n` | the zstd frame is the concatenation of the children `chunk-0000` … `chunk-{n-1}`, `bytes` long in all |
//! | `pending\n` | a record being written: not part of the history |
//! | `abandoned\n` | a record whose writing was given up: not part of the history |
//!
//! Nodes hold at most [`DEFAULT_CHUNK_SIZE`] bytes (see
//! [`ZooKeeperHistoryStore::with_chunk_size`]), well below ZooKeeper's
//! `jute.maxbuffer` (1 MiB by default) that bounds every request.
//!
//! # Big records: committed by a versioned write, not by a multi
//!
//! `jute.maxbuffer` bounds a multi as a whole (it is one request: two
//! 600 kB creates in one multi make ZooKeeper 3.8 drop the connection), so
//! a multi cannot carry a record too big for one node, such as the catalog
//! snapshot of a big schema. Such a record is written in steps: the record
//! node is created `pending`, its chunks are created under it, then one
//! write expecting version 0 turns its header into `zstd-chunks`. That
//! write is the commit: a load sees the whole record or nothing of it.
//!
//! A `pending` record left by a writer that died or lost the destination
//! half-way is removed by the next append of a store that loaded it: it
//! is first marked `abandoned` by a write expecting the version it was
//! loaded with, which fails if the writer committed meanwhile and makes a
//! late commit of the writer fail, then deleted.
//!
//! # Who may write
//!
//! With a [`WriteGuard`] (the server's "this server holds the destination
//! now", as for the cursors), an append is refused unless the guard holds,
//! checked before writing and, for a chunked record, again before its
//! commit.
//!
//! [`load`](SchemaHistoryStore::load) first `sync`s with the ZooKeeper
//! leader: the store has a session of its own, and must see what the
//! previous owner wrote even when its server lags behind.

use std::borrow::Cow;
use std::io::{Read, Write};
use std::sync::Arc;

use sluice_schema::{HistoryRecord, SchemaError, SchemaHistoryStore};
use tracing::{debug, info, warn};
use zookeeper_client::{Acls, Client, CreateMode};

use crate::blocking::BlockingSession;
use crate::cursor_store::WriteGuard;
use crate::nodes::{delete_recursive, persistent};
use crate::paths::{self, check_node_name, parse_schema_history_record};
use crate::session::ZkConfig;
use crate::HaError;

/// Records whose JSON is at most this long are stored as plain JSON.
pub const PLAIN_MAX: usize = 64 * 1024;

/// The most bytes one node holds by default.
pub const DEFAULT_CHUNK_SIZE: usize = 512 * 1024;

/// The largest record JSON a load accepts after decompression.
pub const MAX_RECORD_BYTES: usize = 256 * 1024 * 1024;

/// The smallest node size [`ZooKeeperHistoryStore::with_chunk_size`] accepts.
pub const MIN_CHUNK_SIZE: usize = 1024;

/// The most chunks a record header may name (4 GiB at the default size):
/// a damaged header must not start millions of reads.
const MAX_CHUNKS: usize = 8192;

/// Reads sent before waiting for their answers.
const READ_BATCH: usize = 64;

const ZSTD_LEVEL: i32 = 3;

const ZSTD: &str = "zstd";
const ZSTD_CHUNKS: &str = "zstd-chunks";
const PENDING: &[u8] = b"pending\n";
const ABANDONED: &[u8] = b"abandoned\n";

/// The schema history of one destination in ZooKeeper; see the module
/// documentation.
pub struct ZooKeeperHistoryStore {
    zk: Arc<BlockingSession>,
    destination: String,
    guard: Option<WriteGuard>,
    chunk_size: usize,
    /// Records the last load found `pending` or `abandoned`, with their
    /// versions then: the next append removes them.
    leftovers: Vec<(String, i32)>,
}

impl std::fmt::Debug for ZooKeeperHistoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZooKeeperHistoryStore")
            .field("servers", &self.zk.session().config().servers)
            .field("destination", &self.destination)
            .field("guarded", &self.guard.is_some())
            .finish_non_exhaustive()
    }
}

impl ZooKeeperHistoryStore {
    /// A session of its own (thread, runtime and ZooKeeper session) for
    /// the history stores of a server: share it among them with
    /// [`new`](Self::new).
    pub fn connect_session(config: ZkConfig) -> Result<Arc<BlockingSession>, HaError> {
        BlockingSession::connect(
            config,
            "sluice-zk-history",
            "a ZooKeeper schema history operation",
        )
        .map(Arc::new)
    }

    /// The history of `destination` on a session of its own.
    pub fn connect(config: ZkConfig, destination: &str) -> Result<Self, HaError> {
        Self::new(Self::connect_session(config)?, destination)
    }

    /// The history of `destination` on a shared session.
    pub fn new(zk: Arc<BlockingSession>, destination: &str) -> Result<Self, HaError> {
        check_node_name("destination", destination)?;
        Ok(ZooKeeperHistoryStore {
            zk,
            destination: destination.to_string(),
            guard: None,
            chunk_size: DEFAULT_CHUNK_SIZE,
            leftovers: Vec::new(),
        })
    }

    /// Appends only while `guard(destination)` holds (a server passes
    /// "this destination's election says Running here").
    pub fn with_guard(mut self, guard: WriteGuard) -> Self {
        self.guard = Some(guard);
        self
    }

    /// The most bytes written to one node (at least [`MIN_CHUNK_SIZE`]),
    /// for a ZooKeeper whose `jute.maxbuffer` is below the default.
    pub fn with_chunk_size(mut self, bytes: usize) -> Self {
        self.chunk_size = bytes.max(MIN_CHUNK_SIZE);
        self
    }

    pub fn destination(&self) -> &str {
        &self.destination
    }

    /// The history's node, `/otter/canal/destinations/{dest}/schema-history`.
    pub fn path(&self) -> String {
        paths::schema_history(&self.destination)
    }

    fn allowed(&self) -> bool {
        self.guard.as_ref().is_none_or(|g| g(&self.destination))
    }
}

impl SchemaHistoryStore for ZooKeeperHistoryStore {
    fn append(&mut self, record: &HistoryRecord) -> sluice_schema::Result<()> {
        let history = self.path();
        if !self.allowed() {
            return Err(schema_error(
                HaError::NotHolder {
                    destination: self.destination.clone(),
                },
                &history,
            ));
        }
        let json = serde_json::to_vec(record).map_err(|e| SchemaError::History {
            path: history.clone(),
            message: format!("cannot write the record as JSON: {e}"),
        })?;
        let encoded = encode(&json, self.chunk_size).map_err(|e| SchemaError::History {
            path: history.clone(),
            message: format!("cannot compress the record: {e}"),
        })?;
        let chunks = encoded.chunks.len();
        let leftovers = std::mem::take(&mut self.leftovers);
        let guard = self.guard.clone();
        let destination = self.destination.clone();
        let acls = self.zk.session().config().node_acls();
        let path = self
            .zk
            .run(move |client| async move {
                remove_leftovers(&client, &leftovers).await;
                write_record(&client, &destination, &encoded, guard.as_ref(), acls).await
            })
            .map_err(|e| schema_error(e, &history))?;
        debug!(
            node = %path,
            json_bytes = json.len(),
            chunks,
            "schema history record written"
        );
        Ok(())
    }

    fn location(&self) -> String {
        self.path()
    }

    fn load(&mut self) -> sluice_schema::Result<Vec<HistoryRecord>> {
        let history = self.path();
        let at = history.clone();
        let (records, leftovers) = self
            .zk
            .run(move |client| async move { load_records(&client, &at).await })
            .map_err(|e| schema_error(e, &history))?;
        if !leftovers.is_empty() {
            info!(
                history = %history,
                records = ?leftovers.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
                "schema history records whose writing never finished are ignored; the next append removes them"
            );
        }
        self.leftovers = leftovers;
        Ok(records)
    }
}

/// The trait's error for a ZooKeeper failure, naming the node concerned
/// (`history` when none is more precise).
fn schema_error(e: HaError, history: &str) -> SchemaError {
    let (path, message) = match e {
        HaError::ZooKeeper { op, path, source } => {
            (path, format!("ZooKeeper {op} failed: {source}"))
        }
        HaError::Json { path, source } => (
            path,
            format!("the ZooKeeper node holds no valid history record: {source}"),
        ),
        HaError::Corrupt { path, reason } => (
            path,
            format!("the ZooKeeper node holds no valid history record: {reason}"),
        ),
        other => (history.to_string(), other.to_string()),
    };
    SchemaError::History { path, message }
}

/// What an append writes: the record node's data and, for a big record,
/// the chunks under it.
#[derive(Debug)]
struct Encoded {
    data: Vec<u8>,
    chunks: Vec<Vec<u8>>,
}

/// Chooses the record's form (see the module documentation).
fn encode(json: &[u8], chunk_size: usize) -> std::io::Result<Encoded> {
    if json.len() <= PLAIN_MAX.min(chunk_size) {
        return Ok(Encoded {
            data: json.to_vec(),
            chunks: Vec::new(),
        });
    }
    let frame = compress(json)?;
    if ZSTD.len() + 1 + frame.len() <= chunk_size {
        let mut data = Vec::with_capacity(ZSTD.len() + 1 + frame.len());
        data.extend_from_slice(ZSTD.as_bytes());
        data.push(b'\n');
        data.extend_from_slice(&frame);
        return Ok(Encoded {
            data,
            chunks: Vec::new(),
        });
    }
    let chunks: Vec<Vec<u8>> = frame.chunks(chunk_size).map(<[u8]>::to_vec).collect();
    if chunks.len() > MAX_CHUNKS {
        return Err(std::io::Error::other(format!(
            "{} bytes compressed need {} nodes, more than the {MAX_CHUNKS} a record may have",
            frame.len(),
            chunks.len()
        )));
    }
    Ok(Encoded {
        data: format!("{ZSTD_CHUNKS} {} {}\n", chunks.len(), frame.len()).into_bytes(),
        chunks,
    })
}

fn compress(json: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut encoder = zstd::stream::Encoder::new(Vec::with_capacity(json.len() / 4), ZSTD_LEVEL)?;
    // The checksum catches damaged chunks; the size lets the reader check it got everything.
    encoder.include_checksum(true)?;
    encoder.include_contentsize(true)?;
    encoder.set_pledged_src_size(Some(json.len() as u64))?;
    encoder.write_all(json)?;
    encoder.finish()
}

/// Decompresses a record's frame, refusing to grow past [`MAX_RECORD_BYTES`]
/// (a damaged or hostile frame must not exhaust memory).
fn decompress(frame: &[u8]) -> Result<Vec<u8>, String> {
    decompress_at_most(frame, MAX_RECORD_BYTES)
}

fn decompress_at_most(frame: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    let decoder = zstd::stream::read::Decoder::new(frame)
        .map_err(|e| format!("cannot decompress the record: {e}"))?;
    let mut json = Vec::new();
    decoder
        .take(limit as u64 + 1)
        .read_to_end(&mut json)
        .map_err(|e| format!("cannot decompress the record: {e}"))?;
    if json.len() > limit {
        return Err(format!(
            "the record decompresses to more than {limit} bytes"
        ));
    }
    Ok(json)
}

/// A record node's data, read.
#[derive(Debug, PartialEq, Eq)]
enum Body<'a> {
    Json(&'a [u8]),
    Zstd(&'a [u8]),
    Chunks { count: usize, bytes: usize },
    Pending,
    Abandoned,
}

/// Reads a record node's header.
fn parse_body(data: &[u8]) -> Result<Body<'_>, String> {
    if data.first() == Some(&b'{') {
        return Ok(Body::Json(data));
    }
    let Some(end) = data.iter().take(64).position(|&b| b == b'\n') else {
        let shown = String::from_utf8_lossy(&data[..data.len().min(40)]).into_owned();
        return Err(if data.is_empty() {
            "it is empty".into()
        } else {
            format!("it starts with neither JSON nor a known header: {shown:?}")
        });
    };
    let header = String::from_utf8_lossy(&data[..end]);
    let rest = &data[end + 1..];
    let words: Vec<&str> = header.split(' ').collect();
    match words.as_slice() {
        [ZSTD] => Ok(Body::Zstd(rest)),
        [ZSTD_CHUNKS, count, bytes] if rest.is_empty() => {
            let count: usize = count
                .parse()
                .map_err(|_| format!("bad chunk count in header {header:?}"))?;
            let bytes: usize = bytes
                .parse()
                .map_err(|_| format!("bad byte count in header {header:?}"))?;
            if count == 0 || count > MAX_CHUNKS {
                return Err(format!(
                    "header {header:?} names {count} chunks (1 to {MAX_CHUNKS} allowed)"
                ));
            }
            Ok(Body::Chunks { count, bytes })
        }
        _ if data == PENDING => Ok(Body::Pending),
        _ if data == ABANDONED => Ok(Body::Abandoned),
        _ => Err(format!("unknown record header {header:?}")),
    }
}

/// Creates the next record node under `prefix`'s parent, creating the
/// history node on first use; returns its path.
async fn create_sequential(
    client: &Client,
    prefix: &str,
    data: &[u8],
    acls: Acls<'static>,
) -> Result<String, HaError> {
    let options = CreateMode::PersistentSequential.with_acls(acls);
    let created = match client.create(prefix, data, &options).await {
        Err(zookeeper_client::Error::NoNode) => {
            if let Some(history) = paths::parent(prefix) {
                client
                    .mkdir(history, &persistent(acls))
                    .await
                    .map_err(HaError::zk("create", history))?;
            }
            client.create(prefix, data, &options).await
        }
        other => other,
    };
    created
        .map(|(_, sequence)| format!("{prefix}{sequence}"))
        .map_err(HaError::zk("create", prefix))
}

/// Writes one record of `destination`; see the module documentation.
/// `guard` is asked again before a chunked record's commit.
async fn write_record(
    client: &Client,
    destination: &str,
    encoded: &Encoded,
    guard: Option<&WriteGuard>,
    acls: Acls<'static>,
) -> Result<String, HaError> {
    let prefix = paths::schema_history_record_prefix(destination);
    if encoded.chunks.is_empty() {
        return create_sequential(client, &prefix, &encoded.data, acls).await;
    }
    let path = create_sequential(client, &prefix, PENDING, acls).await?;
    let written = async {
        let chunk_paths: Vec<String> = (0..encoded.chunks.len())
            .map(|i| paths::schema_history_chunk(&path, i))
            .collect();
        let options = persistent(acls);
        // Each request is sent when made: the chunks go out back to back.
        let creates: Vec<_> = chunk_paths
            .iter()
            .zip(&encoded.chunks)
            .map(|(p, chunk)| client.create(p, chunk, &options))
            .collect();
        for (p, create) in chunk_paths.iter().zip(creates) {
            create.await.map_err(HaError::zk("create", p))?;
        }
        if !guard.is_none_or(|g| g(destination)) {
            return Err(HaError::NotHolder {
                destination: destination.to_string(),
            });
        }
        client
            .set_data(&path, &encoded.data, Some(0))
            .await
            .map_err(HaError::zk("commit", &path))?;
        Ok(())
    }
    .await;
    if let Err(e) = written {
        // Nobody will commit it: remove it now rather than at the next
        // holder's append. If the commit did land (an answer lost with the
        // connection), the versioned write below fails and it stays.
        if let Err(cleanup) = abandon(client, &path, 0).await {
            warn!(node = %path, error = %cleanup, "cannot remove an unfinished schema history record");
        }
        return Err(e);
    }
    Ok(path)
}

/// Marks a record that was not committed `abandoned`, if it still has
/// `version`, and deletes it. False if it changed since (committed).
async fn abandon(client: &Client, path: &str, version: i32) -> Result<bool, HaError> {
    match client.set_data(path, ABANDONED, Some(version)).await {
        Ok(_) => {}
        Err(zookeeper_client::Error::NoNode) => return Ok(true),
        Err(zookeeper_client::Error::BadVersion) => return Ok(false),
        Err(e) => return Err(HaError::zk("write", path)(e)),
    }
    delete_recursive(client, path).await?;
    Ok(true)
}

/// Removes the unfinished records a load found; failures are only logged
/// (the next load finds them again).
async fn remove_leftovers(client: &Client, leftovers: &[(String, i32)]) {
    for (path, version) in leftovers {
        match abandon(client, path, *version).await {
            Ok(true) => {
                info!(node = %path, "removed a schema history record whose writing never finished")
            }
            Ok(false) => {
                warn!(node = %path, "an unfinished schema history record was committed after it was loaded; kept")
            }
            Err(error) => {
                warn!(node = %path, %error, "cannot remove an unfinished schema history record")
            }
        }
    }
}

/// What a load found: the committed records in order, and the unfinished
/// ones with their versions.
type Loaded = (Vec<HistoryRecord>, Vec<(String, i32)>);

/// Reads every record under `history`.
async fn load_records(client: &Client, history: &str) -> Result<Loaded, HaError> {
    // The previous owner wrote through another session, maybe through
    // another ZooKeeper server: catch up with the leader first.
    match client.sync(history).await {
        Ok(()) | Err(zookeeper_client::Error::NoNode) => {}
        Err(e) => return Err(HaError::zk("sync", history)(e)),
    }
    let children = match client.list_children(history).await {
        Ok(children) => children,
        Err(zookeeper_client::Error::NoNode) => return Ok((Vec::new(), Vec::new())),
        Err(e) => return Err(HaError::zk("list", history)(e)),
    };
    let mut numbered: Vec<(i64, String)> = children
        .into_iter()
        .filter_map(|child| {
            let path = format!("{history}/{child}");
            match parse_schema_history_record(&child) {
                Some(n) => Some((n, path)),
                None => {
                    warn!(node = %path, "not a schema history record; ignored");
                    None
                }
            }
        })
        .collect();
    numbered.sort_unstable();
    let mut records = Vec::with_capacity(numbered.len());
    let mut leftovers = Vec::new();
    for batch in numbered.chunks(READ_BATCH) {
        // Each request is sent when made: one round trip per batch.
        let reads: Vec<_> = batch.iter().map(|(_, p)| client.get_data(p)).collect();
        for ((_, path), read) in batch.iter().zip(reads) {
            let (data, stat) = match read.await {
                Ok(read) => read,
                Err(zookeeper_client::Error::NoNode) => {
                    // Gone since the listing: an unfinished record removed.
                    debug!(node = %path, "schema history record deleted while loading");
                    continue;
                }
                Err(e) => return Err(HaError::zk("read", path)(e)),
            };
            match decode(client, path, &data).await? {
                Some(record) => records.push(record),
                None => leftovers.push((path.clone(), stat.version)),
            }
        }
    }
    Ok((records, leftovers))
}

/// What a record node's data says, before any chunk is read.
#[derive(Debug)]
pub enum NodeContent {
    /// A whole record (plain or compressed JSON).
    Record(HistoryRecord),
    /// A big record: its frame is in `count` chunk children, `bytes` long.
    Chunks { count: usize, bytes: usize },
    /// A record being written or given up: not part of the history.
    Unfinished,
}

/// Reads a record node's data (pure: no ZooKeeper access). The error says
/// what is wrong with it.
pub fn read_node(data: &[u8]) -> Result<NodeContent, String> {
    let json: Cow<'_, [u8]> = match parse_body(data)? {
        Body::Json(json) => Cow::Borrowed(json),
        Body::Zstd(frame) => Cow::Owned(decompress(frame)?),
        Body::Chunks { count, bytes } => return Ok(NodeContent::Chunks { count, bytes }),
        Body::Pending | Body::Abandoned => return Ok(NodeContent::Unfinished),
    };
    parse_json(&json).map(NodeContent::Record)
}

/// Reads the reassembled frame of a chunked record (pure).
pub fn read_frame(frame: &[u8]) -> Result<HistoryRecord, String> {
    parse_json(&decompress(frame)?)
}

fn parse_json(json: &[u8]) -> Result<HistoryRecord, String> {
    serde_json::from_slice(json).map_err(|e| format!("not a history record: {e}"))
}

/// The record a node holds; `None` for an unfinished one.
async fn decode(
    client: &Client,
    path: &str,
    data: &[u8],
) -> Result<Option<HistoryRecord>, HaError> {
    let corrupt = |reason: String| HaError::Corrupt {
        path: path.to_string(),
        reason,
    };
    match read_node(data).map_err(corrupt)? {
        NodeContent::Record(record) => Ok(Some(record)),
        NodeContent::Unfinished => Ok(None),
        NodeContent::Chunks { count, bytes } => {
            let frame = read_chunks(client, path, count, bytes).await?;
            read_frame(&frame).map(Some).map_err(corrupt)
        }
    }
}

/// The concatenated chunks of a committed record.
async fn read_chunks(
    client: &Client,
    record: &str,
    count: usize,
    bytes: usize,
) -> Result<Vec<u8>, HaError> {
    let chunk_paths: Vec<String> = (0..count)
        .map(|i| paths::schema_history_chunk(record, i))
        .collect();
    let mut frame = Vec::with_capacity(bytes.min(count.saturating_mul(DEFAULT_CHUNK_SIZE)));
    for batch in chunk_paths.chunks(READ_BATCH) {
        let reads: Vec<_> = batch.iter().map(|p| client.get_data(p)).collect();
        for (path, read) in batch.iter().zip(reads) {
            match read.await {
                Ok((data, _)) => frame.extend_from_slice(&data),
                Err(zookeeper_client::Error::NoNode) => {
                    return Err(HaError::Corrupt {
                        path: path.clone(),
                        reason: format!("the chunk is missing ({record} names {count})"),
                    })
                }
                Err(e) => return Err(HaError::zk("read", path)(e)),
            }
        }
    }
    if frame.len() != bytes {
        return Err(HaError::Corrupt {
            path: record.to_string(),
            reason: format!(
                "its {count} chunks hold {} bytes, its header says {bytes}",
                frame.len()
            ),
        });
    }
    Ok(frame)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(encoded: &Encoded) -> Vec<u8> {
        match parse_body(&encoded.data).unwrap() {
            Body::Json(json) => json.to_vec(),
            Body::Zstd(frame) => decompress(frame).unwrap(),
            Body::Chunks { count, bytes } => {
                assert_eq!(count, encoded.chunks.len());
                let frame = encoded.chunks.concat();
                assert_eq!(frame.len(), bytes);
                decompress(&frame).unwrap()
            }
            other => panic!("{other:?}"),
        }
    }

    /// Bytes that do not compress (xorshift).
    fn noise(n: usize) -> Vec<u8> {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b'a' + (x % 26) as u8
            })
            .collect()
    }

    #[test]
    fn small_records_stay_plain_json() {
        let json = br#"{"type":"ddl"}"#;
        let e = encode(json, DEFAULT_CHUNK_SIZE).unwrap();
        assert_eq!(e.data, json);
        assert!(e.chunks.is_empty());
        assert_eq!(decoded(&e), json);
    }

    #[test]
    fn big_records_are_compressed_then_chunked() {
        let json = format!(
            "{{\"sql\":\"{}\"}}",
            "CREATE TABLE t (a INT); ".repeat(100_000)
        );
        let e = encode(json.as_bytes(), DEFAULT_CHUNK_SIZE).unwrap();
        assert!(e.data.starts_with(b"zstd\n"));
        assert!(e.chunks.is_empty());
        assert_eq!(decoded(&e), json.as_bytes());

        let json = noise(3 * 1024 * 1024);
        let e = encode(&json, DEFAULT_CHUNK_SIZE).unwrap();
        assert!(e.data.starts_with(b"zstd-chunks "), "{:?}", &e.data[..20]);
        assert!(e.chunks.len() >= 4, "{}", e.chunks.len());
        assert!(e.chunks.iter().all(|c| c.len() <= DEFAULT_CHUNK_SIZE));
        assert_eq!(decoded(&e), json);
    }

    #[test]
    fn decompression_stops_at_the_limit() {
        let frame = compress(&[b'x'; 2000]).unwrap();
        assert_eq!(decompress_at_most(&frame, 2000).unwrap().len(), 2000);
        let e = decompress_at_most(&frame, 1999).unwrap_err();
        assert!(e.contains("more than 1999 bytes"), "{e}");
    }

    #[test]
    fn headers_are_read_strictly() {
        assert_eq!(parse_body(PENDING), Ok(Body::Pending));
        assert_eq!(parse_body(ABANDONED), Ok(Body::Abandoned));
        assert_eq!(
            parse_body(b"zstd-chunks 3 1500000\n"),
            Ok(Body::Chunks {
                count: 3,
                bytes: 1_500_000
            })
        );
        for (bad, why) in [
            (&b""[..], "empty"),
            (b"garbage", "neither JSON"),
            (b"gzip\nxx", "unknown record header"),
            (b"zstd-chunks 0 10\n", "0 chunks"),
            (b"zstd-chunks 99999999 10\n", "chunks (1 to"),
            (b"zstd-chunks x 10\n", "bad chunk count"),
            (b"zstd-chunks 2 10\ntrailing", "unknown record header"),
            (b"pending\nmore", "unknown record header"),
        ] {
            let e = parse_body(bad).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
        assert!(decompress(b"not zstd").is_err());
    }
}
