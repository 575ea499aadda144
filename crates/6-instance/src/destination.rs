//! A destination as its consumers see it: the store's get/ack/rollback plus
//! subscriptions and cursors persisted through a [`CursorStore`] on every
//! change, so a restart loses nothing and replays at most the batches a
//! client had not acked.
//!
//! Subscription changes are written before they return. Acks hand the
//! cursors to the destination's [`CursorWriter`] (group commit off the
//! request path) and [`Destination::durable`] waits for them: a server
//! replies to nothing after an ack until then. A store kept in memory is
//! saved in place, with nothing to wait for.
//!
//! A client the store detached (it held a full store back while others
//! were further on, see [`sluice_store`]) is served from a stream of its
//! own: a second reader of the binlog from the client's cursor into a
//! private store, started on its next GET by the [`OwnStreamStarter`] the
//! instance manager gives. It keeps that stream until it unsubscribes or
//! the instance restarts (then every client is back in the shared store,
//! which resumes from the smallest cursor).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use sluice_canal::{EntryPosition, LogIdentity, LogPosition, TableFilter};
use sluice_meta::{ClientData, ClientIdentity, CursorStore, DestinationMeta};

use crate::client_filters::{ClientFilters, StreamFilter};
use crate::cursor_writer::CursorWriter;
use crate::metrics::InstanceMetrics;
use sluice_store::destination::BoxFuture;
use sluice_store::{
    Batch, ClientId, Destination, DestinationError, EntryBytes, EventStore, FilterVersion, GetWait,
    StoreError,
};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// A detached client's own stream: a reader of the binlog from its cursor
/// into a destination of its own (private store, cursors in memory).
pub struct OwnStream {
    pub destination: Arc<InstanceDestination>,
    pub stop: watch::Sender<bool>,
    pub task: JoinHandle<()>,
}

impl Drop for OwnStream {
    fn drop(&mut self) {
        self.stop.send_replace(true);
        self.destination.store().stop();
    }
}

/// Most own streams of one destination at once: each is a replication
/// connection to the source, so client ids alone must not multiply them.
pub const MAX_OWN_STREAMS: usize = 8;

/// Starts the own stream of `client` of the given destination, from
/// `resume` (a transaction boundary).
pub type OwnStreamStarter = Arc<
    dyn Fn(&InstanceDestination, ClientId, EntryPosition) -> Result<OwnStream, String>
        + Send
        + Sync,
>;

/// Starts a destination again (from its clients' cursors).
pub type Restart = Arc<dyn Fn() + Send + Sync>;

/// The consumer side of one instance.
pub struct InstanceDestination {
    name: String,
    store: Arc<EventStore<EntryBytes>>,
    cursors: Arc<dyn CursorStore>,
    /// Writes the cursors acks move; `None` for cursors in memory (saved in
    /// place) or if its thread could not start (then saved in place too).
    writer: Option<CursorWriter>,
    identity: LogIdentity,
    meta: Mutex<DestinationMeta>,
    /// Each client's table filter and the stream's (their union).
    filters: Mutex<ClientFilters>,
    /// The stream filter's version, for readers that keep a copy.
    stream_version: AtomicU32,
    /// Asks for the destination to start again and read what a client's
    /// new filter needs (set once, by the instance manager).
    restart: OnceLock<Restart>,
    own_streams: Mutex<HashMap<ClientId, Arc<OwnStream>>>,
    own_stream_starter: OnceLock<OwnStreamStarter>,
    metrics: OnceLock<Arc<InstanceMetrics>>,
}

impl InstanceDestination {
    /// Restores the persisted subscriptions into the store.
    pub fn open(
        name: &str,
        store: Arc<EventStore<EntryBytes>>,
        cursors: Arc<dyn CursorStore>,
        identity: LogIdentity,
    ) -> Result<Self, sluice_meta::MetaError> {
        Self::open_filtered(name, store, cursors, identity, TableFilter::all())
    }

    /// Restores the persisted subscriptions into the store; a client that
    /// subscribed without a filter gets `configured`
    /// (`canal.instance.filter.regex`).
    pub fn open_filtered(
        name: &str,
        store: Arc<EventStore<EntryBytes>>,
        cursors: Arc<dyn CursorStore>,
        identity: LogIdentity,
        configured: TableFilter,
    ) -> Result<Self, sluice_meta::MetaError> {
        let meta = cursors.load(name)?;
        let mut filters = ClientFilters::new(configured);
        for c in &meta.client_datas {
            let client = c.client_identity.client_id;
            store.subscribe(client, c.cursor.as_ref().map(|p| p.postion.clone()));
            filters.restore(name, client, &c.client_identity.filter);
        }
        for client in filters.clients() {
            store.set_selection(client, filters.selection(client));
        }
        let writer = if cursors.is_in_memory() {
            None
        } else {
            CursorWriter::start(name, cursors.clone())
                .inspect_err(|e| tracing::warn!(destination = name, error = %e, "cannot start the cursor writer; every ack is written before it returns"))
                .ok()
        };
        Ok(InstanceDestination {
            name: name.to_string(),
            store,
            cursors,
            writer,
            identity,
            meta: Mutex::new(meta),
            stream_version: AtomicU32::new(filters.stream().version),
            filters: Mutex::new(filters),
            restart: OnceLock::new(),
            own_streams: Mutex::new(HashMap::new()),
            own_stream_starter: OnceLock::new(),
            metrics: OnceLock::new(),
        })
    }

    /// How a detached client's own stream is started (set once, by the
    /// instance manager). Without it a detached client gets an error.
    pub fn set_own_stream_starter(&self, starter: OwnStreamStarter) {
        let _ = self.own_stream_starter.set(starter);
    }

    /// Where the destination's metrics are counted (set once, by the
    /// instance manager, for the shared stream only).
    pub fn set_metrics(&self, metrics: Arc<InstanceMetrics>) {
        let subscriptions = self.lock_meta().client_datas.len();
        metrics.subscriptions.set(subscriptions as f64);
        let _ = self.metrics.set(metrics);
    }

    pub fn metrics(&self) -> Option<&Arc<InstanceMetrics>> {
        self.metrics.get()
    }

    fn count_subscriptions(&self, meta: &DestinationMeta) {
        if let Some(m) = self.metrics.get() {
            m.subscriptions.set(meta.client_datas.len() as f64);
        }
    }

    /// How the destination starts again when a client needs tables the
    /// stream does not read (set once, by the instance manager). Without
    /// it, such a client gets those tables from where the stream is.
    pub fn set_restart(&self, restart: Restart) {
        let _ = self.restart.set(restart);
    }

    fn lock_filters(&self) -> std::sync::MutexGuard<'_, ClientFilters> {
        self.filters.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The filter the stream reads with: the union of the clients' own.
    pub fn stream_filter(&self) -> StreamFilter {
        self.lock_filters().stream().clone()
    }

    /// The stream filter, if its version is not `known`'s (a cheap check
    /// for readers that keep a copy).
    pub fn stream_filter_if_changed(&self, known: FilterVersion) -> Option<StreamFilter> {
        (self.stream_version.load(Ordering::Acquire) != known).then(|| self.stream_filter())
    }

    /// The filter `client` gets: its own, else (not subscribed) the
    /// configured one.
    pub fn client_filter(&self, client: ClientId) -> Arc<TableFilter> {
        let f = self.lock_filters();
        f.of(client).unwrap_or(f.configured()).clone()
    }

    /// The configured filter (`canal.instance.filter.regex`).
    pub fn configured_filter(&self) -> Arc<TableFilter> {
        self.lock_filters().configured().clone()
    }

    /// Sets the configured filter (the runner's, which the clients
    /// without a filter of their own get), if it is another.
    pub fn set_configured_filter(&self, configured: &TableFilter) {
        let mut filters = self.lock_filters();
        if filters.configured().as_str() != configured.as_str() {
            filters.set_configured(configured.clone());
            self.apply_filters(&filters);
        }
    }

    /// Hands every client its selection after the filters changed.
    fn apply_filters(&self, filters: &ClientFilters) {
        self.stream_version
            .store(filters.stream().version, Ordering::Release);
        for client in filters.clients() {
            self.store.set_selection(client, filters.selection(client));
        }
    }

    /// The clients served from a stream of their own now.
    pub fn own_stream_clients(&self) -> Vec<ClientId> {
        let mut v: Vec<_> = self.lock_own().keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// Stops every own stream (the instance stops).
    pub fn stop_own_streams(&self) {
        self.lock_own().clear();
    }

    fn lock_own(&self) -> std::sync::MutexGuard<'_, HashMap<ClientId, Arc<OwnStream>>> {
        self.own_streams.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The store that serves a client's batches: its own stream's if it
    /// has one, else the shared one.
    fn serving_store(&self, client: ClientId) -> Arc<EventStore<EntryBytes>> {
        match self.lock_own().get(&client) {
            Some(own) => own.destination.store().clone(),
            None => self.store.clone(),
        }
    }

    /// The own stream of a detached client, started if it has none or its
    /// reader ended (then from its persisted cursor: batches of the ended
    /// stream are void).
    fn own_stream_for(
        &self,
        client: ClientId,
        resume: Option<EntryPosition>,
    ) -> Result<Arc<OwnStream>, DestinationError> {
        let refuse = |message: String| DestinationError { code: 400, message };
        let mut own = self.lock_own();
        if let Some(s) = own.get(&client) {
            if !s.task.is_finished() {
                return Ok(s.clone());
            }
        }
        own.retain(|_, s| !s.task.is_finished());
        if own.len() >= MAX_OWN_STREAMS {
            return Err(refuse(format!(
                "destination {}: clientId:{client} fell behind, and {MAX_OWN_STREAMS} clients are read for already; retry once one of them catches up or unsubscribes",
                self.name
            )));
        }
        let cursor = self
            .lock_meta()
            .client_datas
            .iter()
            .find(|c| c.client_identity.client_id == client)
            .and_then(|c| c.cursor.as_ref().map(|p| p.postion.clone()));
        let Some(from) = cursor.or(resume) else {
            return Err(refuse(format!(
                "destination {}: clientId:{client} fell behind and has no position to resume from",
                self.name
            )));
        };
        let Some(start) = self.own_stream_starter.get() else {
            return Err(refuse(format!(
                "destination {}: clientId:{client} fell behind and this server cannot read the binlog again for it",
                self.name
            )));
        };
        tracing::info!(destination = %self.name, client, journal = %from.journal_name, position = from.position, "starting the own stream of a client that fell behind");
        let stream = Arc::new(start(self, client, from).map_err(refuse)?);
        own.insert(client, stream.clone());
        Ok(stream)
    }

    /// Where the source must start so every client gets what it has not
    /// acked: the smallest cursor; `None` if no client has one yet.
    pub fn resume_position(&self) -> Option<EntryPosition> {
        Self::min_cursor(&self.lock_meta())
    }

    /// The earliest cursor of `meta`'s clients.
    fn min_cursor(meta: &DestinationMeta) -> Option<EntryPosition> {
        meta.client_datas
            .iter()
            .filter_map(|c| c.cursor.as_ref().map(|p| p.postion.clone()))
            .min_by_key(|p| p.binlog_key())
    }

    pub fn store(&self) -> &Arc<EventStore<EntryBytes>> {
        &self.store
    }

    /// The identity written into the cursors of this destination.
    pub fn identity(&self) -> &LogIdentity {
        &self.identity
    }

    fn lock_meta(&self) -> std::sync::MutexGuard<'_, DestinationMeta> {
        self.meta.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Saves the cursors before returning (a file store fsyncs), through
    /// the writer if there is one so writes stay in order and cover the
    /// acks before. On a multi-threaded runtime the wait is announced to it
    /// (`block_in_place`), so the worker's other tasks (the instance, other
    /// connections) move to another thread meanwhile.
    fn persist(&self, meta: &DestinationMeta) -> Result<(), DestinationError> {
        let save = || match &self.writer {
            Some(w) => {
                let version = w.submit(meta.clone());
                w.durable_blocking(version)
                    .map_err(|e| self.persist_error(e))
            }
            None => self.cursors.save(meta).map_err(|e| self.persist_error(e)),
        };
        let multi_thread = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        if multi_thread {
            tokio::task::block_in_place(save)
        } else {
            save()
        }
    }

    /// Hands the cursors to the writer (the ack's caller waits with
    /// [`Destination::durable`]), or saves them in place without one.
    fn persist_later(&self, meta: &DestinationMeta) -> Result<(), DestinationError> {
        match &self.writer {
            Some(w) => {
                w.submit(meta.clone());
                Ok(())
            }
            None => self.persist(meta),
        }
    }

    fn persist_error(&self, e: impl std::fmt::Display) -> DestinationError {
        DestinationError {
            code: 400,
            message: format!("destination {}: cannot persist cursors: {e}", self.name),
        }
    }

    /// Writes the cursors acks moved and not yet written, waits, and
    /// compacts them into their plain form (the destination stops: Canal
    /// reading `meta.dat` after a swap sees exactly what was acked).
    /// Blocking: call it off the async workers.
    pub fn flush_cursors(&self) -> Result<(), DestinationError> {
        if let Some(w) = &self.writer {
            w.flush().map_err(|e| self.persist_error(e))?;
        }
        self.cursors
            .compact(&self.name)
            .map_err(|e| self.persist_error(e))
    }

    /// The first start position persisted for this destination (see
    /// [`CursorStore::save_start`]), if any.
    pub fn persisted_start_position(
        &self,
    ) -> Result<Option<EntryPosition>, sluice_meta::MetaError> {
        self.cursors.load_start(&self.name)
    }

    /// Persists the position the destination's first stream started at,
    /// durably (a blocking write: call it off the async workers).
    pub fn persist_start_position(
        &self,
        position: &EntryPosition,
    ) -> Result<(), sluice_meta::MetaError> {
        self.cursors.save_start(&self.name, position)?;
        // Clients subscribed before it, without a cursor yet, start here:
        // recorded, a restart after another client's ack still reads from
        // here (see `subscribe`).
        let mut meta = self.lock_meta();
        if self.give_cursorless_clients(&mut meta, position) {
            self.persist(&meta)
                .map_err(|e| sluice_meta::MetaError::Io {
                    action: "save the cursors of destination",
                    path: self.name.clone().into(),
                    source: std::io::Error::other(e.message),
                })?;
        }
        Ok(())
    }

    /// Records `position` as the cursor of every subscribed client that has
    /// none; whether there was one.
    fn give_cursorless_clients(
        &self,
        meta: &mut DestinationMeta,
        position: &EntryPosition,
    ) -> bool {
        let mut given = false;
        for c in meta.client_datas.iter_mut().filter(|c| c.cursor.is_none()) {
            c.cursor = Some(LogPosition {
                identity: self.identity.clone(),
                postion: position.clone(),
            });
            given = true;
        }
        given
    }

    /// The initial snapshot's progress as persisted, if any (blocking).
    pub fn persisted_snapshot(
        &self,
    ) -> Result<Option<sluice_meta::SnapshotProgress>, sluice_meta::MetaError> {
        self.cursors.load_snapshot(&self.name)
    }

    /// Persists the initial snapshot's progress, durably (blocking).
    pub fn persist_snapshot(
        &self,
        progress: &sluice_meta::SnapshotProgress,
    ) -> Result<(), sluice_meta::MetaError> {
        self.cursors.save_snapshot(&self.name, progress)
    }
}

impl Destination for InstanceDestination {
    fn name(&self) -> &str {
        &self.name
    }

    fn subscribe(&self, client: ClientId, filter: &str) -> Result<(), DestinationError> {
        let mut meta = self.lock_meta();
        let cursor = meta
            .client_datas
            .iter()
            .find(|c| c.client_identity.client_id == client)
            .and_then(|c| c.cursor.as_ref().map(|p| p.postion.clone()));
        let had_cursor = cursor.is_some();
        let widened = {
            let mut filters = self.lock_filters();
            let change = filters
                .subscribe(client, filter)
                .map_err(|e| DestinationError {
                    code: 400,
                    message: e.to_string(),
                })?;
            self.store.subscribe(client, cursor);
            self.apply_filters(&filters);
            change.widened
        };
        match meta
            .client_datas
            .iter_mut()
            .find(|c| c.client_identity.client_id == client)
        {
            Some(c) => c.client_identity.filter = filter.to_string(),
            None => meta.client_datas.push(ClientData {
                client_identity: ClientIdentity {
                    client_id: client,
                    destination: self.name.clone(),
                    filter: filter.to_string(),
                },
                cursor: None,
            }),
        }
        if !had_cursor {
            // A client without a cursor reads from the oldest entry the
            // store still holds, which is after no cursor of another client
            // (nothing is dropped before every client acked it) and after
            // the run's start. Recorded as its cursor before it gets
            // anything, so that a restart after another client acked
            // further still starts where this one can resume; before the
            // first start is known there is nothing to record, and
            // `persist_start_position` records it then.
            let start = Self::min_cursor(&meta)
                .or_else(|| self.cursors.load_start(&self.name).ok().flatten());
            if let Some(start) = start {
                self.give_cursorless_clients(&mut meta, &start);
            }
        }
        self.count_subscriptions(&meta);
        self.persist(&meta)?;
        drop(meta);
        if widened {
            if let Some(restart) = self.restart.get() {
                // What the stream read so far lacks tables this client
                // keeps: it gets nothing from it, and the destination
                // starts again from the clients' cursors with the filter
                // that reads them (see docs/security.md).
                tracing::info!(destination = %self.name, client, filter, "a client's filter keeps tables the stream did not read: starting again from the clients' cursors");
                self.store.hold(client);
                restart();
            }
        }
        Ok(())
    }

    fn unsubscribe(&self, client: ClientId) -> Result<(), DestinationError> {
        self.lock_own().remove(&client);
        self.store.unsubscribe(client);
        {
            let mut filters = self.lock_filters();
            filters.unsubscribe(client);
            self.apply_filters(&filters);
        }
        let mut meta = self.lock_meta();
        meta.client_datas
            .retain(|c| c.client_identity.client_id != client);
        self.count_subscriptions(&meta);
        self.persist(&meta)
    }

    fn get(
        &self,
        client: ClientId,
        fetch_size: usize,
        wait: GetWait,
    ) -> BoxFuture<'_, Result<Batch<EntryBytes>, DestinationError>> {
        Box::pin(async move {
            match self.store.get(client, fetch_size, wait).await {
                Err(StoreError::Detached { resume, .. }) => {
                    let own = self.own_stream_for(client, resume)?;
                    Ok(own
                        .destination
                        .store()
                        .get(client, fetch_size, wait)
                        .await?)
                }
                got => Ok(got?),
            }
        })
    }

    fn ack(&self, client: ClientId, batch_id: i64) -> Result<(), DestinationError> {
        let acked = self.serving_store(client).ack(client, batch_id)?;
        let Some(position) = acked else {
            return Ok(());
        };
        let mut meta = self.lock_meta();
        if let Some(c) = meta
            .client_datas
            .iter_mut()
            .find(|c| c.client_identity.client_id == client)
        {
            c.cursor = Some(LogPosition {
                identity: self.identity.clone(),
                postion: position,
            });
        }
        self.persist_later(&meta)
    }

    fn durable(&self) -> BoxFuture<'_, Result<(), DestinationError>> {
        Box::pin(async move {
            let Some(w) = &self.writer else {
                return Ok(());
            };
            let version = w.version();
            if w.status().durable >= version {
                return Ok(());
            }
            w.durable(version).await.map_err(|e| self.persist_error(e))
        })
    }

    fn rollback(&self, client: ClientId, batch_id: i64) -> Result<(), DestinationError> {
        Ok(self.serving_store(client).rollback(client, batch_id)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_meta::FileCursorStore;
    use sluice_store::{EntryMeta, StoreConfig};

    fn pos(offset: u64) -> EntryPosition {
        EntryPosition {
            journal_name: "binlog.000001".into(),
            position: offset,
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn acked_cursors_survive_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let cursors: Arc<dyn CursorStore> = Arc::new(FileCursorStore::new(dir.path()));
        let cfg = StoreConfig {
            batch_mode: sluice_store::BatchMode::ItemSize,
            ..Default::default()
        };
        let store = Arc::new(EventStore::new(cfg));
        for i in 0..4u64 {
            let bytes: EntryBytes = EntryBytes::from(vec![i as u8]);
            let meta = EntryMeta {
                bytes: 1,
                ack_point: (i % 2 == 1).then(|| pos(i * 100 + 100)),
                position: pos(i * 100),
                is_ddl: false,
                rows: 0,
                ..Default::default()
            };
            store.put(bytes, meta).await.unwrap();
        }
        let d =
            InstanceDestination::open("d", store.clone(), cursors.clone(), LogIdentity::default())
                .unwrap();
        d.subscribe(1001, "shop\\..*").unwrap();
        let b = d.get(1001, 3, GetWait::NoWait).await.unwrap();
        assert_eq!(b.entries.len(), 3);
        d.ack(1001, b.id).unwrap();
        d.durable().await.unwrap();

        // A new process: the cursor and the filter are back.
        let store2 = Arc::new(EventStore::new(StoreConfig::default()));
        let d2 = InstanceDestination::open("d", store2, cursors, LogIdentity::default()).unwrap();
        assert_eq!(d2.resume_position(), Some(pos(200)));
        assert_eq!(d2.client_filter(1001).as_str(), "shop\\..*");
        assert!(!d2.stream_filter().filter.matches("other", "t"));
        d.flush_cursors().unwrap();
        let saved = std::fs::read_to_string(dir.path().join("d/meta.dat")).unwrap();
        assert!(saved.contains("\"postion\":{"), "{saved}");
        assert!(!dir.path().join("d/meta.log").exists());
    }

    /// A client that subscribed and never acked is not passed over on a
    /// restart because another client acked further meanwhile.
    #[tokio::test]
    async fn a_client_without_an_ack_keeps_the_restart_where_it_can_resume() {
        let dir = tempfile::tempdir().unwrap();
        let cursors: Arc<dyn CursorStore> = Arc::new(FileCursorStore::new(dir.path()));
        let store = Arc::new(EventStore::new(StoreConfig {
            batch_mode: sluice_store::BatchMode::ItemSize,
            ..Default::default()
        }));
        for i in 0..4u64 {
            let meta = EntryMeta {
                bytes: 1,
                ack_point: Some(pos(i * 100 + 100)),
                position: pos(i * 100),
                ..Default::default()
            };
            store
                .put(EntryBytes::from(vec![i as u8]), meta)
                .await
                .unwrap();
        }
        let d =
            InstanceDestination::open("d", store.clone(), cursors.clone(), LogIdentity::default())
                .unwrap();
        d.subscribe(1001, "").unwrap();
        let b = d.get(1001, 2, GetWait::NoWait).await.unwrap();
        d.ack(1001, b.id).unwrap();
        d.durable().await.unwrap();
        // 1101 comes now: what it reads starts after 1001's cursor (200).
        d.subscribe(1101, "").unwrap();
        let b = d.get(1001, 2, GetWait::NoWait).await.unwrap();
        d.ack(1001, b.id).unwrap();
        d.durable().await.unwrap();
        let first = d.get(1101, 1, GetWait::NoWait).await.unwrap();
        assert_eq!(first.entries.len(), 1);

        let store2 = Arc::new(EventStore::new(StoreConfig::default()));
        let d2 = InstanceDestination::open("d", store2, cursors, LogIdentity::default()).unwrap();
        assert_eq!(d2.resume_position(), Some(pos(200)));
    }
}
