//! The instances of a server and their lifecycle: one state machine per
//! destination (stopped → starting → running → stopping → stopped, or
//! failed), start / stop / release / reload, and the scan of the
//! configuration folder that starts, stops and reloads instances when their
//! `instance.properties` appear, vanish or change (Canal's `canal.auto.scan`).
//!
//! A running instance whose source fails with an error that retrying cannot
//! heal is restarted with a growing delay and shows as `Failed` meanwhile,
//! with the error, so an operator sees why.
//!
//! Here: the manager and an instance's run loop; the source settings come
//! from `instance.properties` through `crate::source_options`.
//! `cursor_reset` moves a stopped destination's cursors, `purged` decides
//! what a purged binlog means for a run.

mod cursor_reset;
mod purged;

pub use crate::source_options::*;
pub use cursor_reset::*;
use purged::*;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use sluice_canal::{EntryPosition, LogPosition, TableFilter};
use sluice_config::{DestinationsConfig, InstanceConfig};
use sluice_meta::{CursorStore, DestinationMeta, DirLock, LockError, MemoryCursorStore, MetaError};
use sluice_schema::SchemaHistoryStore;
use sluice_source::conn::ConnectOptions;
use sluice_source::position::StartPosition;
use sluice_source::{RowImages, SourceConfig};
use sluice_store::{ClientId, Destination, Destinations, EventStore, StoreConfig, StoreMetrics};
use tokio::sync::watch;
use tracing::Instrument;

use crate::destination::{InstanceDestination, OwnStream, OwnStreamStarter};
use crate::filters::CanalFilters;
use crate::metrics::InstanceMetrics;
use crate::runner::{Fence, InstanceRunner, RunProgress, RunnerError, SnapshotPlan};
use crate::schema_hook::{BinlogOnly, SchemaHook};
use crate::snapshot::SnapshotState;

/// The span of a destination's tasks: what the source, binlog and schema
/// code log inside them carries the destination (Canal's log layout files
/// lines by it). At error level so that it exists whatever the log filter.
pub fn destination_span(destination: &str) -> tracing::Span {
    tracing::error_span!("instance", destination = %destination)
}

/// Where an instance is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstanceState {
    Stopped,
    Starting,
    Running,
    Stopping,
    /// Stopped by an error; restarted after a delay.
    Failed(String),
}

impl std::fmt::Display for InstanceState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InstanceState::Stopped => f.write_str("stopped"),
            InstanceState::Starting => f.write_str("starting"),
            InstanceState::Running => f.write_str("running"),
            InstanceState::Stopping => f.write_str("stopping"),
            InstanceState::Failed(e) => write!(f, "failed: {e}"),
        }
    }
}

/// Builds the schema hook of an instance (the schema tracker, or binlog
/// metadata only) from its configuration, its source, the data folder and
/// the reader it is for.
pub type SchemaFactory = Arc<
    dyn Fn(
            &InstanceConfig,
            &ConnectOptions,
            &std::path::Path,
            SchemaRole,
        ) -> Result<Box<dyn SchemaHook>, String>
        + Send
        + Sync,
>;

/// Which reader of a destination a schema hook serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaRole {
    /// The instance's reader: it keeps the schema history.
    Instance,
    /// A lagging client's own stream (see [`crate::destination`]): it reads
    /// the history but never writes it, since it replays positions the
    /// instance's reader has recorded already.
    OwnStream,
}

/// Opens the schema history store of a destination (by name), for a server
/// that keeps it elsewhere than in its data folder (ZooKeeper in a cluster).
pub type HistoryStoreFactory =
    Arc<dyn Fn(&str) -> Result<Box<dyn SchemaHistoryStore>, String> + Send + Sync>;

struct Running {
    config: InstanceConfig,
    config_mtime: Option<SystemTime>,
    destination: Arc<InstanceDestination>,
    stop: watch::Sender<bool>,
    state: watch::Receiver<InstanceState>,
    task: tokio::task::JoinHandle<()>,
    /// The snapshot's progress and the tables asked for on demand.
    snapshot: Arc<SnapshotState>,
    /// `{data dir}/{destination}/sluice.lock`, held while the instance runs.
    _lock: DirLock,
}

/// All instances of one server.
pub struct InstanceManager {
    /// Where the destinations are configured, how they are found, where
    /// their data goes: all the manager knows of the server's configuration.
    config: DestinationsConfig,
    cursors: Arc<dyn CursorStore>,
    schema: SchemaFactory,
    fence: Option<Fence>,
    instances: Mutex<HashMap<String, Running>>,
    /// Destinations stopped by hand ([`stop_and_hold`](Self::stop_and_hold)):
    /// the configuration scan leaves them stopped until started again.
    held: Mutex<std::collections::HashSet<String>>,
}

#[derive(Debug, thiserror::Error)]
pub enum ManagerError {
    #[error(transparent)]
    Config(#[from] sluice_config::ConfigError),
    #[error("destination {destination}: {message}")]
    Invalid {
        destination: String,
        message: String,
    },
    #[error("destination {0}: cannot read its cursors: {1}")]
    Meta(String, sluice_meta::MetaError),
    #[error("destination {0}: {1}")]
    Locked(String, LockError),
}

impl InstanceManager {
    pub fn new(
        config: DestinationsConfig,
        cursors: Arc<dyn CursorStore>,
        schema: SchemaFactory,
    ) -> Arc<Self> {
        Self::build(config, cursors, schema, None)
    }

    /// Like [`new`](Self::new), with every instance asking `fence` before
    /// each entry it publishes. An instance the fence refuses ends (state
    /// [`InstanceState::Stopped`], no restart) until it is stopped and
    /// started again.
    pub fn with_fence(
        config: DestinationsConfig,
        cursors: Arc<dyn CursorStore>,
        schema: SchemaFactory,
        fence: Fence,
    ) -> Arc<Self> {
        Self::build(config, cursors, schema, Some(fence))
    }

    fn build(
        config: DestinationsConfig,
        cursors: Arc<dyn CursorStore>,
        schema: SchemaFactory,
        fence: Option<Fence>,
    ) -> Arc<Self> {
        Arc::new(InstanceManager {
            config,
            cursors,
            schema,
            fence,
            instances: Mutex::new(HashMap::new()),
            held: Mutex::new(std::collections::HashSet::new()),
        })
    }

    /// A schema factory that uses the binlog's own metadata.
    pub fn binlog_metadata_only() -> SchemaFactory {
        Arc::new(|_, _, _, _| Ok(Box::new(BinlogOnly) as Box<dyn SchemaHook>))
    }

    /// A schema factory that tracks the schema with a persisted history in
    /// `{data dir}/{destination}/schema.history` (the default of `sluice
    /// server`).
    pub fn schema_tracking() -> SchemaFactory {
        Self::tracking(None)
    }

    /// A schema factory that tracks the schema with its history in the
    /// store `history` opens for each destination.
    pub fn schema_tracking_in(history: HistoryStoreFactory) -> SchemaFactory {
        Self::tracking(Some(history))
    }

    fn tracking(history: Option<HistoryStoreFactory>) -> SchemaFactory {
        Arc::new(move |config, connect, data_dir, role| {
            let filter = TableFilter::new(&config.filter_regex).map_err(|e| e.to_string())?;
            let store = match &history {
                Some(open) => open(&config.destination)?,
                None => crate::schema_hook::file_history_store(data_dir, &config.destination)?,
            };
            let store = match role {
                SchemaRole::Instance => store,
                SchemaRole::OwnStream => crate::schema_hook::read_only(store),
            };
            crate::schema_hook::tracked_schema_in(store, connect, filter)
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        self.instances.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The destinations' configuration the manager runs with.
    pub fn config(&self) -> &DestinationsConfig {
        &self.config
    }

    /// The state of every known instance.
    pub fn states(&self) -> Vec<(String, InstanceState)> {
        let mut v: Vec<_> = self
            .lock()
            .iter()
            .map(|(k, r)| (k.clone(), r.state.borrow().clone()))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    /// The state of one instance (`None` if it is not started).
    /// Asks the running instance `destination` for a snapshot of these
    /// tables (`schema`, `table`) beside its stream; `false` when it does
    /// not run here.
    pub fn request_snapshot(&self, destination: &str, tables: Vec<(String, String)>) -> bool {
        let Some(state) = self.lock().get(destination).map(|r| r.snapshot.clone()) else {
            return false;
        };
        tracing::info!(destination, tables = ?tables.iter().map(|(s, t)| format!("{s}.{t}")).collect::<Vec<_>>(), "snapshot asked for");
        state.request(tables);
        true
    }

    /// The snapshot progress of the running instance `destination`, if it
    /// has one.
    pub fn snapshot_progress(&self, destination: &str) -> Option<sluice_meta::SnapshotProgress> {
        let state = self.lock().get(destination).map(|r| r.snapshot.clone())?;
        state.progress()
    }

    /// The destinations this server knows: configured, discovered or
    /// running, sorted.
    pub fn known_destinations(&self) -> Vec<String> {
        let mut names = self.config.discover();
        for (name, _) in self.states() {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names.sort();
        names
    }

    pub fn state(&self, destination: &str) -> Option<InstanceState> {
        self.lock()
            .get(destination)
            .map(|r| r.state.borrow().clone())
    }

    fn config_path(&self, destination: &str) -> PathBuf {
        self.config.instance_properties(destination)
    }

    fn mtime(&self, destination: &str) -> Option<SystemTime> {
        std::fs::metadata(self.config_path(destination))
            .and_then(|m| m.modified())
            .ok()
    }

    /// Starts a destination (no-op if it runs); one stopped by hand is no
    /// longer held.
    pub fn start(self: &Arc<Self>, destination: &str) -> Result<(), ManagerError> {
        self.lock_held().remove(destination);
        if self.lock().contains_key(destination) {
            return Ok(());
        }
        let config = InstanceConfig::load(&self.config, destination)?;
        for w in &config.warnings {
            tracing::warn!(destination, "{w}");
        }
        let invalid = |message: String| ManagerError::Invalid {
            destination: destination.to_string(),
            message,
        };
        let connect = source_connect_options(&config).map_err(invalid)?;
        let filters = canal_filters(&config).map_err(invalid)?;
        let store = Arc::new(
            EventStore::new(StoreConfig {
                max_entries: config.memory_buffer_size.max(1),
                max_bytes: config
                    .memory_buffer_size
                    .max(1)
                    .saturating_mul(config.memory_buffer_memunit.max(1)),
                batch_mode: config.memory_batch_mode,
                mem_unit: config.memory_buffer_memunit.max(1),
                ddl_isolation: config.get_ddl_isolation,
                detach_after: config.slow_client_detach_after,
            })
            .with_metrics(StoreMetrics::new(destination)),
        );
        crate::metrics::store_info(destination, store.config());
        let identity = log_identity(&connect);
        // Before anything of the destination is opened: another process
        // running it on the same folder would share its cursors and history.
        let lock = DirLock::acquire(
            &self.config.data_dir.join(destination),
            &format!("destination {destination}"),
        )
        .map_err(|e| ManagerError::Locked(destination.to_string(), e))?;
        let destination_handle = Arc::new(
            InstanceDestination::open_filtered(
                destination,
                store,
                self.cursors.clone(),
                identity,
                filters.tables.clone(),
            )
            .map_err(|e| ManagerError::Meta(destination.to_string(), e))?,
        );
        destination_handle.set_restart(self.restarter(destination));
        destination_handle.set_metrics(Arc::new(InstanceMetrics::new(
            destination,
            config.parser_parallel,
        )));
        let (stop_tx, stop_rx) = watch::channel(false);
        destination_handle.set_own_stream_starter(self.own_stream_starter(
            &config,
            &connect,
            &filters,
            stop_rx.clone(),
        ));
        let (state_tx, state_rx) = watch::channel(InstanceState::Starting);
        let me = self.clone();
        let name = destination.to_string();
        let task_destination = destination_handle.clone();
        let task_config = config.clone();
        let snapshot = Arc::new(SnapshotState::default());
        let task_snapshot = snapshot.clone();
        let span = destination_span(destination);
        let task = tokio::spawn(
            async move {
                me.run_instance(
                    name,
                    task_config,
                    connect,
                    filters,
                    task_destination,
                    task_snapshot,
                    stop_rx,
                    state_tx,
                )
                .await;
            }
            .instrument(span),
        );
        // Whether it runs is known once it reaches its source: the state
        // (and a log line) says so then.
        tracing::info!(destination, "instance starting");
        self.lock().insert(
            destination.to_string(),
            Running {
                config,
                config_mtime: self.mtime(destination),
                destination: destination_handle,
                stop: stop_tx,
                state: state_rx,
                task,
                snapshot,
                _lock: lock,
            },
        );
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    async fn run_instance(
        self: Arc<Self>,
        name: String,
        config: InstanceConfig,
        connect: ConnectOptions,
        filters: CanalFilters,
        destination: Arc<InstanceDestination>,
        snapshot_state: Arc<SnapshotState>,
        stop: watch::Receiver<bool>,
        state: watch::Sender<InstanceState>,
    ) {
        let mut delay = Duration::from_secs(1);
        // Shared by the runs of this loop: a restart resumes after what the
        // last run published.
        let progress = Arc::new(RunProgress::default());
        // And the snapshot's progress and windows (with the mode `never`,
        // for the tables asked for on demand).
        let snapshot = Some(SnapshotPlan {
            settings: config.snapshot,
            state: snapshot_state.clone(),
        });
        let columns = crate::columns::instance_rules(&config);
        loop {
            if *stop.borrow() {
                break;
            }
            let schema = match (self.schema)(
                &config,
                &connect,
                &self.config.data_dir,
                SchemaRole::Instance,
            ) {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!(destination = %name, error = %e, "cannot open the schema tracking; instance stopped");
                    let _ = state.send(InstanceState::Failed(e));
                    break;
                }
            };
            let (start, why) = match self.choose_start(&name, &config, &destination, &progress) {
                Ok(chosen) => chosen,
                Err(e) => {
                    tracing::error!(destination = %name, error = %e, retry_in = ?delay, "cannot choose where to start; retrying");
                    let _ = state.send(InstanceState::Failed(e.to_string()));
                    if !retry_after(&mut delay, &stop).await {
                        break;
                    }
                    continue;
                }
            };
            tracing::info!(destination = %name, %start, why = %why, "instance reading the source");
            let source = SourceConfig {
                connect: connect.clone(),
                start,
                server_id: (config.slave_id != 0).then_some(config.slave_id),
                names_from_schema: schema.names_columns(),
                failover: source_failover(&config, &connect),
                row_images: source_row_images(&config),
                ..Default::default()
            };
            let mut runner = InstanceRunner::new(
                &name,
                destination.clone(),
                filters.clone(),
                schema,
                config.gtid_on,
            )
            .with_fence(self.fence.clone())
            .with_progress(progress.clone())
            .with_snapshot(snapshot.clone())
            .with_parallel(config.parser_parallel)
            .with_columns(columns.clone());
            let _ = state.send(InstanceState::Running);
            match runner.run(source, stop.clone()).await {
                Ok(()) => break,
                Err(e @ RunnerError::Fenced { .. }) => {
                    tracing::warn!(destination = %name, error = %e, "instance stopped");
                    break;
                }
                Err(RunnerError::Source { source, .. }) if purged(&source).is_some() => {
                    let (requested, oldest) = purged(&source).unwrap_or_default();
                    match on_purged(
                        &name,
                        &config,
                        &progress,
                        &snapshot_state,
                        requested,
                        oldest,
                    ) {
                        Ok(()) => continue,
                        Err(message) => {
                            tracing::error!(destination = %name, "{message}");
                            let _ = state.send(InstanceState::Failed(message));
                            // Waits to be stopped: a retry would fail the same way.
                            let mut stop = stop.clone();
                            let _ = stop.wait_for(|s| *s).await;
                            break;
                        }
                    }
                }
                Err(e) => {
                    tracing::error!(destination = %name, error = %e, retry_in = ?delay, "instance failed; restarting");
                    let _ = state.send(InstanceState::Failed(e.to_string()));
                    if !retry_after(&mut delay, &stop).await {
                        break;
                    }
                }
            }
        }
        let _ = state.send(InstanceState::Stopped);
    }

    /// How a detached client of this instance gets its own stream: a reader
    /// of the same source with the same filters, from the client's cursor,
    /// into a private store (never detaching), under the same fence, with
    /// a replica server id of its own (the instance's own id would make the
    /// source drop the instance's dump), ending with the instance.
    fn own_stream_starter(
        self: &Arc<Self>,
        config: &InstanceConfig,
        connect: &ConnectOptions,
        filters: &CanalFilters,
        instance_stop: watch::Receiver<bool>,
    ) -> OwnStreamStarter {
        let manager = Arc::downgrade(self);
        let (config, connect, filters) = (config.clone(), connect.clone(), filters.clone());
        let columns = crate::columns::canal_rules(&config.filter_field, &config.filter_black_field);
        Arc::new(move |parent: &InstanceDestination, client, from| {
            let me = manager
                .upgrade()
                .ok_or_else(|| "the server is shutting down".to_string())?;
            let name = parent.name().to_string();
            let store = Arc::new(EventStore::new(StoreConfig {
                detach_after: None,
                ..parent.store().config().clone()
            }));
            store.subscribe(client, Some(from.clone()));
            // It reads for this client alone: with its filter.
            let own = Arc::new(
                InstanceDestination::open_filtered(
                    &name,
                    store,
                    Arc::new(MemoryCursorStore::default()),
                    parent.identity().clone(),
                    (*parent.client_filter(client)).clone(),
                )
                .map_err(|e| e.to_string())?,
            );
            let schema = (me.schema)(
                &config,
                &connect,
                &me.config.data_dir,
                SchemaRole::OwnStream,
            )?;
            let source = SourceConfig {
                connect: connect.clone(),
                start: start_at(&config, from.clone()),
                server_id: None,
                server_id_seed: Some(format!("{name}#{client}@{}", connect.addr())),
                failover: source_failover(&config, &connect),
                row_images: source_row_images(&config),
                ..Default::default()
            };
            let own_filters = CanalFilters {
                tables: (*parent.client_filter(client)).clone(),
                ..filters.clone()
            };
            let mut runner =
                InstanceRunner::new(&name, own.clone(), own_filters, schema, config.gtid_on)
                    .with_fence(me.fence.clone())
                    .with_parallel(config.parser_parallel)
                    .with_columns(columns.clone());
            let (stop, stop_rx) = watch::channel(false);
            let mut instance_stop = instance_stop.clone();
            let span = destination_span(&name);
            let task = tokio::spawn(
                async move {
                    tokio::select! {
                        ended = runner.run(source, stop_rx) => {
                            if let Err(error) = ended {
                                tracing::warn!(destination = %name, client, %error, "a client's own stream ended; its next GET starts it again from its cursor");
                            }
                        }
                        _ = instance_stop.wait_for(|s| *s) => {}
                    }
                }
                .instrument(span),
            );
            Ok(OwnStream {
                destination: own,
                stop,
                task,
            })
        })
    }

    /// How a destination starts again when a client's filter needs tables
    /// its stream did not read: a reload, which reads from the smallest
    /// client cursor with the union of the clients' filters (persisted by
    /// the subscribe). Outside a runtime (never for a subscribe over the
    /// network) nothing happens.
    fn restarter(self: &Arc<Self>, destination: &str) -> crate::destination::Restart {
        let manager = Arc::downgrade(self);
        let name = destination.to_string();
        Arc::new(move || {
            let (Some(me), Ok(runtime)) =
                (manager.upgrade(), tokio::runtime::Handle::try_current())
            else {
                return;
            };
            let name = name.clone();
            runtime.spawn(async move {
                if let Err(e) = me.reload(&name).await {
                    tracing::error!(destination = %name, error = %e, "cannot start the destination again for a client's new filter");
                }
            });
        })
    }

    /// Where a run of an instance starts, and why. First after the last
    /// transaction this process published (everything before is in the
    /// store), then the smallest client cursor, then the first start
    /// position persisted by an earlier process, then the configured start
    /// (whose resolution the run then persists before publishing).
    fn choose_start(
        &self,
        name: &str,
        config: &InstanceConfig,
        destination: &InstanceDestination,
        progress: &RunProgress,
    ) -> Result<(StartPosition, String), ManagerError> {
        if progress.jumping_to_end() {
            return Ok((
                StartPosition::Latest,
                "from the end of the binlog: the binlog to resume from is no longer on the source (sluice.instance.onPurged)".into(),
            ));
        }
        if let Some((p, why)) = progress.resume_point() {
            return Ok((start_at(config, p), why.to_string()));
        }
        if let Some(p) = destination.resume_position() {
            return Ok((
                start_at(config, p),
                "from the smallest client cursor".into(),
            ));
        }
        let persisted = destination
            .persisted_start_position()
            .map_err(|e| ManagerError::Meta(name.to_string(), e))?;
        if let Some(p) = persisted {
            let at = format!("{}:{}", p.journal_name, p.position);
            return Ok((
                start_at(config, p),
                format!("from the first start position persisted at {at} (no client cursor yet)"),
            ));
        }
        progress.persist_next_start();
        Ok((configured_start(config), "from the configured start".into()))
    }

    /// Stops a destination and waits until its reader has stopped. Its
    /// cursors stay; its consumers are refused until it starts again.
    pub async fn stop(&self, destination: &str) -> bool {
        let running = self.lock().remove(destination);
        let Some(r) = running else {
            return false;
        };
        let _ = r.stop.send(true);
        r.destination.store().stop();
        r.destination.stop_own_streams();
        let _ = r.task.await;
        // Nothing acked is lost on a clean stop.
        let d = r.destination.clone();
        match tokio::task::spawn_blocking(move || d.flush_cursors()).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!(destination, error = %e, "cursors not written on stop"),
            Err(e) => tracing::warn!(destination, error = %e, "cursors not written on stop"),
        }
        tracing::info!(destination, "instance stopped");
        true
    }

    /// Stops a destination, as [`stop`](Self::stop), and keeps it stopped:
    /// the configuration scan does not start it again until
    /// [`start`](Self::start) does.
    pub async fn stop_and_hold(&self, destination: &str) -> bool {
        self.lock_held().insert(destination.to_string());
        self.stop(destination).await
    }

    /// Whether the destination was stopped by hand and is kept stopped.
    pub fn is_held(&self, destination: &str) -> bool {
        self.lock_held().contains(destination)
    }

    fn lock_held(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stops and starts again with the current configuration file.
    pub async fn reload(self: &Arc<Self>, destination: &str) -> Result<(), ManagerError> {
        self.stop(destination).await;
        self.start(destination)
    }

    /// Starts every configured destination (unless `canal.instance.global.lazy`).
    pub fn start_all(self: &Arc<Self>) -> Vec<(String, ManagerError)> {
        let mut errors = Vec::new();
        if self.config.lazy {
            return errors;
        }
        for d in self.config.discover() {
            if let Err(e) = self.start(&d) {
                errors.push((d, e));
            }
        }
        errors
    }

    /// One pass of the configuration scan: start new destinations, stop
    /// vanished ones, reload changed ones.
    pub async fn scan_once(self: &Arc<Self>) {
        let wanted = self.config.discover();
        let running: Vec<String> = self.lock().keys().cloned().collect();
        for name in &running {
            if !wanted.contains(name) || !self.config_path(name).is_file() {
                tracing::info!(destination = %name, "instance.properties is gone: stopping");
                self.stop(name).await;
            }
        }
        self.reload_changed().await;
        for name in wanted {
            let known = self.lock().contains_key(&name) || self.is_held(&name);
            if !known && self.config_path(&name).is_file() {
                if let Err(e) = self.start(&name) {
                    tracing::error!(destination = %name, error = %e, "cannot start");
                }
            }
        }
    }

    /// The reload part of the scan alone: reloads the running instances
    /// whose `instance.properties` changed (for a caller that decides itself
    /// which destinations run, as high availability does).
    pub async fn reload_changed(self: &Arc<Self>) {
        let running: Vec<(String, Option<SystemTime>)> = self
            .lock()
            .iter()
            .map(|(k, r)| (k.clone(), r.config_mtime))
            .collect();
        for (name, mtime) in &running {
            if self.config_path(name).is_file() && self.mtime(name) != *mtime {
                tracing::info!(destination = %name, "instance.properties changed: reloading");
                if let Err(e) = self.reload(name).await {
                    tracing::error!(destination = %name, error = %e, "reload failed");
                }
            }
        }
    }

    /// Runs the configuration scan every `canal.auto.scan.interval` until `stop`.
    pub async fn scan_loop(self: Arc<Self>, mut stop: watch::Receiver<bool>) {
        if !self.config.auto_scan {
            return;
        }
        loop {
            tokio::select! {
                _ = tokio::time::sleep(self.config.auto_scan_interval) => self.scan_once().await,
                _ = stop.changed() => return,
            }
        }
    }

    /// Stops every instance.
    pub async fn stop_all(&self) {
        let names: Vec<String> = self.lock().keys().cloned().collect();
        for n in names {
            self.stop(&n).await;
        }
    }

    /// The destination of a running instance (for embedding).
    pub fn destination_handle(&self, name: &str) -> Option<Arc<InstanceDestination>> {
        self.lock().get(name).map(|r| r.destination.clone())
    }

    /// The cursors and subscriptions stored for `destination` (blocking:
    /// the store may be a file or ZooKeeper).
    pub fn stored_cursors(&self, destination: &str) -> Result<DestinationMeta, MetaError> {
        self.cursors.load(destination)
    }

    /// The configuration an instance runs with.
    pub fn instance_config(&self, name: &str) -> Option<InstanceConfig> {
        self.lock().get(name).map(|r| r.config.clone())
    }
}

impl Destinations for InstanceManager {
    fn destination(&self, name: &str) -> Option<Arc<dyn Destination>> {
        self.lock()
            .get(name)
            .map(|r| r.destination.clone() as Arc<dyn Destination>)
    }
}

/// Waits `delay` before a retry and doubles it (up to a minute); false
/// when the instance is stopped meanwhile.
async fn retry_after(delay: &mut Duration, stop: &watch::Receiver<bool>) -> bool {
    let mut stop = stop.clone();
    tokio::select! {
        _ = tokio::time::sleep(*delay) => {}
        _ = stop.changed() => return false,
    }
    *delay = (*delay * 2).min(Duration::from_secs(60));
    true
}
