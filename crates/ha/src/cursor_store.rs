//! Subscriptions and cursors in ZooKeeper, in Canal's layout, behind
//! [`sluice_meta::CursorStore`]:
//!
//! - `/otter/canal/destinations/{dest}/{clientId}`: persistent, no data; it
//!   exists while the client is subscribed and is deleted with everything
//!   under it on unsubscribe;
//! - `.../{clientId}/filter`: the filter as raw UTF-8, only when it is not blank;
//! - `.../{clientId}/cursor`: the LogPosition JSON with Canal's `@type` tag
//!   ([`LogPosition::to_zookeeper_json`]).
//!
//! - `/otter/canal/destinations/{dest}/sluice-start`: the destination's first
//!   start position (EntryPosition JSON), not a number, so Canal takes it for
//!   no client.
//!
//! Other children of a destination (`running`, `cluster`, `parse`) are never
//! touched.
//!
//! [`ZooKeeperCursorStore`] writes through on every save (only the nodes
//! that changed since it last read or wrote them). [`PeriodMixedCursorStore`]
//! is Canal's period-mixed meta manager around any store: cursors stay in
//! memory and are flushed every period (`canal.zookeeper.flush.period`) and
//! on demand, subscription changes are written at once.
//!
//! # Synchronous trait, asynchronous client
//!
//! `CursorStore` is synchronous; [`ZooKeeperCursorStore`] runs its ZooKeeper
//! work on a [`BlockingSession`] (a thread and a session of its own), so
//! callers block for the round trips, as they would on a file store's
//! fsync, never longer than the store's operation timeout.

use std::collections::HashMap;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use sluice_canal::{EntryPosition, LogPosition};
use sluice_meta::{
    ClientData, ClientIdentity, CursorStore, DestinationMeta, MetaError, SnapshotProgress,
};
use tracing::{debug, warn};
use zookeeper_client::{Acls, Client};

use crate::blocking::BlockingSession;
use crate::nodes::{delete, delete_recursive, persistent, read};
use crate::paths::{self, check_node_name, parse_client_id};
use crate::session::{ZkConfig, ZkSession};
use crate::HaError;

/// How long one load or save may take by default.
pub use crate::blocking::DEFAULT_OP_TIMEOUT;

/// Canal's `canal.zookeeper.flush.period` default.
pub const DEFAULT_FLUSH_PERIOD: Duration = Duration::from_millis(1000);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Cursors and subscriptions written straight to ZooKeeper.
pub struct ZooKeeperCursorStore {
    zk: BlockingSession,
    /// What ZooKeeper holds, as last read or written, per destination.
    known: Mutex<HashMap<String, DestinationMeta>>,
    /// One save of a destination at a time, so its writes land in call
    /// order; saves of different destinations are pipelined on the session.
    save_locks: DestinationLocks,
}

/// A lock per destination: writes of one destination in order, of
/// different destinations at the same time.
#[derive(Default)]
struct DestinationLocks(Mutex<HashMap<String, Arc<Mutex<()>>>>);

impl DestinationLocks {
    fn of(&self, destination: &str) -> Arc<Mutex<()>> {
        lock(&self.0)
            .entry(destination.to_string())
            .or_default()
            .clone()
    }
}

impl std::fmt::Debug for ZooKeeperCursorStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZooKeeperCursorStore")
            .field("servers", &self.zk.session().config().servers)
            .finish_non_exhaustive()
    }
}

impl ZooKeeperCursorStore {
    /// Starts the store's thread and connects its session (waiting at most
    /// `config.connect_timeout`).
    pub fn connect(config: ZkConfig) -> Result<ZooKeeperCursorStore, HaError> {
        let zk =
            BlockingSession::connect(config, "sluice-zk-cursors", "a ZooKeeper cursor operation")?;
        Ok(ZooKeeperCursorStore {
            zk,
            known: Mutex::new(HashMap::new()),
            save_locks: DestinationLocks::default(),
        })
    }

    /// How long one load or save may take (waiting for a connection
    /// included) before it fails.
    pub fn with_op_timeout(mut self, timeout: Duration) -> Self {
        self.zk.set_op_timeout(timeout);
        self
    }

    /// The store's own session.
    pub fn session(&self) -> &ZkSession {
        self.zk.session()
    }
}

impl CursorStore for ZooKeeperCursorStore {
    fn load(&self, destination: &str) -> Result<DestinationMeta, MetaError> {
        check_node_name("destination", destination).map_err(|e| invalid(destination, e))?;
        let dest = destination.to_string();
        let meta = self
            .zk
            .run(move |client| async move { load_destination(&client, &dest).await })
            .map_err(|e| meta_error(e, destination))?;
        lock(&self.known).insert(destination.to_string(), meta.clone());
        Ok(meta)
    }

    fn save(&self, meta: &DestinationMeta) -> Result<(), MetaError> {
        let destination = meta.destination.clone();
        check_node_name("destination", &destination).map_err(|e| invalid(&destination, e))?;
        let order = self.save_locks.of(&destination);
        let _order = lock(&order);
        let previous = lock(&self.known).get(&destination).cloned();
        let wanted = meta.clone();
        let acls = self.zk.session().config().node_acls();
        let result = self.zk.run(move |client| async move {
            save_destination(&client, &wanted, previous.as_ref(), acls).await
        });
        let mut known = lock(&self.known);
        match result {
            Ok(()) => {
                known.insert(destination, meta.clone());
                Ok(())
            }
            Err(e) => {
                // Unknown what landed: the next save writes everything.
                known.remove(&destination);
                Err(meta_error(e, &destination))
            }
        }
    }

    fn load_start(&self, destination: &str) -> Result<Option<EntryPosition>, MetaError> {
        self.load_json(destination, paths::start_position)
    }

    fn save_start(&self, destination: &str, position: &EntryPosition) -> Result<(), MetaError> {
        self.save_json(destination, paths::start_position, position)
    }

    fn load_snapshot(&self, destination: &str) -> Result<Option<SnapshotProgress>, MetaError> {
        self.load_json(destination, paths::snapshot_progress)
    }

    fn save_snapshot(
        &self,
        destination: &str,
        progress: &SnapshotProgress,
    ) -> Result<(), MetaError> {
        self.save_json(destination, paths::snapshot_progress, progress)
    }
}

impl ZooKeeperCursorStore {
    /// The JSON in the destination's node at `path_of(destination)`, if any.
    fn load_json<T: serde::de::DeserializeOwned + Send + 'static>(
        &self,
        destination: &str,
        path_of: fn(&str) -> String,
    ) -> Result<Option<T>, MetaError> {
        check_node_name("destination", destination).map_err(|e| invalid(destination, e))?;
        let path = path_of(destination);
        self.zk
            .run(move |client| async move {
                match read(&client, &path).await? {
                    Some(bytes) => serde_json::from_slice(&bytes)
                        .map(Some)
                        .map_err(|source| HaError::Json { path, source }),
                    None => Ok(None),
                }
            })
            .map_err(|e| meta_error(e, destination))
    }

    /// Writes `value` as JSON to the destination's node at `path_of(destination)`.
    fn save_json<T: serde::Serialize>(
        &self,
        destination: &str,
        path_of: fn(&str) -> String,
        value: &T,
    ) -> Result<(), MetaError> {
        check_node_name("destination", destination).map_err(|e| invalid(destination, e))?;
        let path = path_of(destination);
        let json = serde_json::to_vec(value).map_err(|source| MetaError::Corrupt {
            path: PathBuf::from(&path),
            source,
        })?;
        let order = self.save_locks.of(destination);
        let _order = lock(&order);
        let acls = self.zk.session().config().node_acls();
        self.zk
            .run(move |client| async move { put(&client, &path, &json, acls).await })
            .map_err(|e| meta_error(e, destination))
    }
}

fn invalid(destination: &str, e: crate::paths::InvalidName) -> MetaError {
    MetaError::Io {
        action: "use destination name",
        path: PathBuf::from(destination),
        source: io::Error::new(io::ErrorKind::InvalidInput, e.to_string()),
    }
}

/// Maps a ZooKeeper failure to the trait's error (naming the node).
fn meta_error(e: HaError, destination: &str) -> MetaError {
    match e {
        HaError::Json { path, source } => MetaError::Corrupt {
            path: PathBuf::from(path),
            source,
        },
        HaError::ZooKeeper { op, path, source } => MetaError::Io {
            action: match op {
                "read" => "read ZooKeeper node",
                "list" => "list ZooKeeper node",
                "create" => "create ZooKeeper node",
                "delete" => "delete ZooKeeper node",
                _ => "write ZooKeeper node",
            },
            path: PathBuf::from(path),
            source: io::Error::other(source),
        },
        HaError::Timeout { .. } | HaError::NotConnected { .. } => MetaError::Io {
            action: "reach ZooKeeper for",
            path: PathBuf::from(paths::destination(destination)),
            source: io::Error::new(io::ErrorKind::TimedOut, e.to_string()),
        },
        other => MetaError::Io {
            action: "reach ZooKeeper for",
            path: PathBuf::from(paths::destination(destination)),
            source: io::Error::other(other.to_string()),
        },
    }
}

/// Everything stored for `destination` (no clients if nothing is).
pub async fn load_destination(
    client: &Client,
    destination: &str,
) -> Result<DestinationMeta, HaError> {
    check_node_name("destination", destination)?;
    let dest_path = paths::destination(destination);
    let children = match client.list_children(&dest_path).await {
        Ok(children) => children,
        Err(zookeeper_client::Error::NoNode) => Vec::new(),
        Err(e) => return Err(HaError::zk("list", &dest_path)(e)),
    };
    let mut ids: Vec<i16> = children.iter().filter_map(|c| parse_client_id(c)).collect();
    ids.sort_unstable();
    let mut client_datas = Vec::with_capacity(ids.len());
    for id in ids {
        let filter = read(client, &paths::client_filter(destination, id))
            .await?
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default();
        let cursor_path = paths::client_cursor(destination, id);
        let cursor = match read(client, &cursor_path).await? {
            Some(bytes) if !bytes.iter().all(u8::is_ascii_whitespace) => {
                let text = String::from_utf8_lossy(&bytes);
                Some(
                    LogPosition::from_json(&text).map_err(|source| HaError::Json {
                        path: cursor_path.clone(),
                        source,
                    })?,
                )
            }
            _ => None,
        };
        client_datas.push(ClientData {
            client_identity: ClientIdentity {
                client_id: id,
                destination: destination.to_string(),
                filter,
            },
            cursor,
        });
    }
    Ok(DestinationMeta {
        client_datas,
        destination: destination.to_string(),
    })
}

/// Makes ZooKeeper hold `meta`: subscribes its clients, writes their filters
/// and cursors, and unsubscribes (deletes) the clients it does not list.
/// With `previous` (what ZooKeeper held, as last read or written) only the
/// differences are written. Nodes are created with `acls`.
pub async fn save_destination(
    client: &Client,
    meta: &DestinationMeta,
    previous: Option<&DestinationMeta>,
    acls: Acls<'static>,
) -> Result<(), HaError> {
    let dest = meta.destination.as_str();
    check_node_name("destination", dest)?;
    let stored_ids: Vec<i16> = match previous {
        Some(p) => p
            .client_datas
            .iter()
            .map(|c| c.client_identity.client_id)
            .collect(),
        None => {
            let dest_path = paths::destination(dest);
            match client.list_children(&dest_path).await {
                Ok(children) => children.iter().filter_map(|c| parse_client_id(c)).collect(),
                Err(zookeeper_client::Error::NoNode) => Vec::new(),
                Err(e) => return Err(HaError::zk("list", &dest_path)(e)),
            }
        }
    };
    for id in stored_ids {
        if !meta
            .client_datas
            .iter()
            .any(|c| c.client_identity.client_id == id)
        {
            delete_recursive(client, &paths::client(dest, id)).await?;
        }
    }
    let mut cursor_writes = tokio::task::JoinSet::new();
    for data in &meta.client_datas {
        let id = data.client_identity.client_id;
        let before = previous.and_then(|p| {
            p.client_datas
                .iter()
                .find(|c| c.client_identity.client_id == id)
        });
        if before.is_none() {
            let path = paths::client(dest, id);
            client
                .mkdir(&path, &persistent(acls))
                .await
                .map_err(HaError::zk("create", &path))?;
        }
        let filter = &data.client_identity.filter;
        if before.map(|b| &b.client_identity.filter) != Some(filter) {
            let path = paths::client_filter(dest, id);
            if filter.trim().is_empty() {
                delete(client, &path).await?;
            } else {
                put(client, &path, filter.as_bytes(), acls).await?;
            }
        }
        if before.map(|b| &b.cursor) != Some(&data.cursor) {
            let path = paths::client_cursor(dest, id);
            match &data.cursor {
                Some(position) => {
                    // Cursors of several clients are written at once: the
                    // session pipelines them instead of a round trip each.
                    let client = client.clone();
                    let json = position.to_zookeeper_json();
                    cursor_writes
                        .spawn(async move { put(&client, &path, json.as_bytes(), acls).await });
                }
                None => delete(client, &path).await?,
            }
        }
    }
    while let Some(written) = cursor_writes.join_next().await {
        // A write task ends unfinished only when the session's runtime stops.
        written.map_err(|_| HaError::Closed)??;
    }
    Ok(())
}

/// Writes `data` to a persistent node, creating it (and its parents) if needed.
async fn put(client: &Client, path: &str, data: &[u8], acls: Acls<'static>) -> Result<(), HaError> {
    let mut last = None;
    for _ in 0..4 {
        match client.set_data(path, data, None).await {
            Ok(_) => return Ok(()),
            Err(zookeeper_client::Error::NoNode) => {}
            Err(e) => return Err(HaError::zk("write", path)(e)),
        }
        match client.create(path, data, &persistent(acls)).await {
            Ok(_) => return Ok(()),
            Err(e @ zookeeper_client::Error::NodeExists) => last = Some(e),
            Err(e @ zookeeper_client::Error::NoNode) => {
                if let Some(parent) = paths::parent(path) {
                    client
                        .mkdir(parent, &persistent(acls))
                        .await
                        .map_err(HaError::zk("create", parent))?;
                }
                last = Some(e);
            }
            Err(e) => return Err(HaError::zk("create", path)(e)),
        }
    }
    Err(HaError::zk("write", path)(
        last.unwrap_or(zookeeper_client::Error::NoNode),
    ))
}

/// Decides whether a destination's meta may be written by this process; see
/// [`PeriodMixedCursorStore::with_guard`].
pub type WriteGuard = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// Canal's period-mixed meta manager around any [`CursorStore`]: cursors are
/// kept in memory and written every `period` and on [`flush`](Self::flush);
/// subscription changes (clients added or removed, filters changed) are
/// written at once. [`load`](CursorStore::load) always reads the inner store
/// (after flushing what is pending), since another server may have moved the
/// cursors on while the destination ran elsewhere.
///
/// With [`set_write_through`](Self::set_write_through) every save is
/// written before it returns (the period flush then only retries what
/// failed): an acknowledged batch is never replayed after a crash. A
/// destination saves from its cursor writer, off the request path, and one
/// write covers the acks that arrived while the previous one was in flight.
///
/// Dropping it flushes what is pending.
pub struct PeriodMixedCursorStore<S: CursorStore + 'static> {
    shared: Arc<Mixed<S>>,
    flusher: Option<thread::JoinHandle<()>>,
}

struct Mixed<S> {
    inner: S,
    period: Duration,
    guard: Option<WriteGuard>,
    write_through: AtomicBool,
    state: Mutex<MixedState>,
    wake: Condvar,
    /// One write of a destination to the inner store at a time, each of
    /// its latest state; destinations are written independently.
    write_locks: DestinationLocks,
}

#[derive(Default)]
struct MixedState {
    entries: HashMap<String, Entry>,
    stopping: bool,
}

struct Entry {
    meta: DestinationMeta,
    dirty: bool,
}

impl<S: CursorStore + 'static> PeriodMixedCursorStore<S> {
    /// Wraps `inner`, flushing every `period` (Canal: 1000 ms).
    pub fn new(inner: S, period: Duration) -> Self {
        Self::build(inner, period, None)
    }

    /// Like [`new`](Self::new), writing a destination only while
    /// `guard(destination)` is true: a server passes "this destination's
    /// election says Running", so a fenced server never overwrites the
    /// cursors of the server that took over. Pending cursors of a
    /// destination the guard refuses are dropped; refused subscription
    /// changes fail.
    pub fn with_guard(inner: S, period: Duration, guard: WriteGuard) -> Self {
        Self::build(inner, period, Some(guard))
    }

    fn build(inner: S, period: Duration, guard: Option<WriteGuard>) -> Self {
        let shared = Arc::new(Mixed {
            inner,
            period: period.max(Duration::from_millis(1)),
            guard,
            write_through: AtomicBool::new(false),
            state: Mutex::new(MixedState::default()),
            wake: Condvar::new(),
            write_locks: DestinationLocks::default(),
        });
        let worker = shared.clone();
        let flusher = thread::Builder::new()
            .name("sluice-meta-flush".into())
            .spawn(move || worker.flush_periodically())
            .map_err(|e| warn!("cannot start the cursor flush thread ({e}); cursors are written on flush() and drop only"))
            .ok();
        PeriodMixedCursorStore { shared, flusher }
    }

    /// Writes every save through before returning (see the type's
    /// documentation) instead of only at the next period.
    pub fn set_write_through(&self, on: bool) {
        self.shared.write_through.store(on, Ordering::SeqCst);
    }

    /// The wrapped store.
    pub fn inner(&self) -> &S {
        &self.shared.inner
    }

    /// Writes `destination`'s pending cursors now.
    pub fn flush(&self, destination: &str) -> Result<(), MetaError> {
        self.shared.flush_one(destination)
    }

    /// Writes every pending cursor now; returns the first error.
    pub fn flush_all(&self) -> Result<(), MetaError> {
        self.shared.flush_all()
    }

    /// Forgets `destination`'s pending cursors without writing them (for a
    /// server that stopped running it).
    pub fn discard(&self, destination: &str) {
        lock(&self.shared.state).entries.remove(destination);
    }

    /// Whether `destination` has cursors not written yet.
    pub fn is_dirty(&self, destination: &str) -> bool {
        lock(&self.shared.state)
            .entries
            .get(destination)
            .is_some_and(|e| e.dirty)
    }
}

impl<S: CursorStore + 'static> CursorStore for PeriodMixedCursorStore<S> {
    fn load(&self, destination: &str) -> Result<DestinationMeta, MetaError> {
        if let Err(e) = self.shared.flush_one(destination) {
            warn!("flushing cursors of {destination} before reloading them: {e}");
        }
        let order = self.shared.write_locks.of(destination);
        let _w = lock(&order);
        let meta = self.shared.inner.load(destination)?;
        lock(&self.shared.state).entries.insert(
            destination.to_string(),
            Entry {
                meta: meta.clone(),
                dirty: false,
            },
        );
        Ok(meta)
    }

    fn save(&self, meta: &DestinationMeta) -> Result<(), MetaError> {
        let dest = meta.destination.as_str();
        {
            let mut state = lock(&self.shared.state);
            if let Some(entry) = state.entries.get_mut(dest) {
                if subscriptions(&entry.meta) == subscriptions(meta) {
                    entry.meta = meta.clone();
                    entry.dirty = true;
                    drop(state);
                    if !self.shared.write_through.load(Ordering::SeqCst) {
                        return Ok(());
                    }
                    if !self.shared.allowed(dest) {
                        return Err(not_running(dest, "write cursors of"));
                    }
                    return self.shared.flush_one(dest);
                }
            }
        }
        // Subscriptions changed: write through.
        if !self.shared.allowed(dest) {
            return Err(not_running(dest, "write subscriptions of"));
        }
        let order = self.shared.write_locks.of(dest);
        let _w = lock(&order);
        self.shared.inner.save(meta)?;
        lock(&self.shared.state).entries.insert(
            dest.to_string(),
            Entry {
                meta: meta.clone(),
                dirty: false,
            },
        );
        Ok(())
    }

    fn load_start(&self, destination: &str) -> Result<Option<EntryPosition>, MetaError> {
        self.shared.inner.load_start(destination)
    }

    /// Written at once, and only while the guard allows: a fenced server
    /// never moves the start of the server that took over.
    fn save_start(&self, destination: &str, position: &EntryPosition) -> Result<(), MetaError> {
        if !self.shared.allowed(destination) {
            return Err(not_running(destination, "write the start position of"));
        }
        let order = self.shared.write_locks.of(destination);
        let _w = lock(&order);
        self.shared.inner.save_start(destination, position)
    }

    fn load_snapshot(&self, destination: &str) -> Result<Option<SnapshotProgress>, MetaError> {
        self.shared.inner.load_snapshot(destination)
    }

    /// Written at once, and only while the guard allows.
    fn save_snapshot(
        &self,
        destination: &str,
        progress: &SnapshotProgress,
    ) -> Result<(), MetaError> {
        if !self.shared.allowed(destination) {
            return Err(not_running(destination, "write the snapshot progress of"));
        }
        let order = self.shared.write_locks.of(destination);
        let _w = lock(&order);
        self.shared.inner.save_snapshot(destination, progress)
    }
}

impl<S: CursorStore + 'static> Drop for PeriodMixedCursorStore<S> {
    fn drop(&mut self) {
        lock(&self.shared.state).stopping = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.flusher.take() {
            let _ = t.join();
        }
        if let Err(e) = self.shared.flush_all() {
            warn!("flushing cursors on shutdown: {e}");
        }
    }
}

/// A write the guard refused.
fn not_running(destination: &str, action: &'static str) -> MetaError {
    MetaError::Io {
        action,
        path: PathBuf::from(destination),
        source: io::Error::new(
            io::ErrorKind::PermissionDenied,
            "this server does not run the destination now",
        ),
    }
}

/// The subscription part of a meta: client ids and filters.
fn subscriptions(meta: &DestinationMeta) -> Vec<(i16, &str)> {
    let mut subs: Vec<(i16, &str)> = meta
        .client_datas
        .iter()
        .map(|c| {
            (
                c.client_identity.client_id,
                c.client_identity.filter.as_str(),
            )
        })
        .collect();
    subs.sort_unstable();
    subs
}

impl<S: CursorStore> Mixed<S> {
    fn allowed(&self, destination: &str) -> bool {
        self.guard.as_ref().is_none_or(|g| g(destination))
    }

    fn flush_periodically(&self) {
        let mut state = lock(&self.state);
        loop {
            let deadline = Instant::now() + self.period;
            loop {
                if state.stopping {
                    return;
                }
                let now = Instant::now();
                if now >= deadline {
                    break;
                }
                state = match self.wake.wait_timeout(state, deadline - now) {
                    Ok((s, _)) => s,
                    Err(e) => e.into_inner().0,
                };
            }
            drop(state);
            if let Err(e) = self.flush_all() {
                warn!("periodic cursor flush: {e}");
            }
            state = lock(&self.state);
        }
    }

    fn flush_all(&self) -> Result<(), MetaError> {
        let dirty: Vec<String> = lock(&self.state)
            .entries
            .iter()
            .filter(|(_, e)| e.dirty)
            .map(|(d, _)| d.clone())
            .collect();
        let mut first = None;
        for dest in dirty {
            if let Err(e) = self.flush_one(&dest) {
                first.get_or_insert(e);
            }
        }
        first.map_or(Ok(()), Err)
    }

    fn flush_one(&self, destination: &str) -> Result<(), MetaError> {
        let order = self.write_locks.of(destination);
        let _w = lock(&order);
        let meta = {
            let mut state = lock(&self.state);
            match state.entries.get_mut(destination) {
                Some(e) if e.dirty => {
                    e.dirty = false;
                    e.meta.clone()
                }
                _ => return Ok(()),
            }
        };
        if !self.allowed(destination) {
            debug!("not writing the cursors of {destination}: this server does not run it now");
            return Ok(());
        }
        self.inner.save(&meta).inspect_err(|_| {
            if let Some(e) = lock(&self.state).entries.get_mut(destination) {
                e.dirty = true;
            }
        })
    }
}
