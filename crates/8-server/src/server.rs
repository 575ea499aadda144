//! [`Server`]: the destinations of one configuration, their cursor and
//! history stores, their high availability when ZooKeeper is configured,
//! and the Canal TCP server in front of them, or in MQ mode
//! (`canal.serverMode = kafka`) a broker publisher per destination instead.

use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use sluice_config::{
    AdminHttpConfig, AdminManagerConfig, AdminTcpConfig, CanalPortConfig, DestinationsConfig,
    LogFiles, MetaMode, MqServerConfig, ServerConfig, ServerMode, SinkKeys, TcpLimits,
    ZooKeeperConfig,
};
use sluice_instance::manager::{InstanceManager, InstanceState};
use sluice_meta::{CursorStore, DirLock, FileCursorStore, MemoryCursorStore};
use sluice_serve_tcp::{ShutdownHandle, TcpServer};
use sluice_store::{Destination, Destinations};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::commands::{ClusterView, Commands};
use crate::ha::HaServer;
use crate::mq::PublisherFactory;
use crate::ServerError;

/// A running server: it holds the data folder's lock, serves Canal clients
/// on [`local_addr`](Self::local_addr) (in MQ mode: publishes to the
/// broker instead, with no port bound) and runs its destinations (all of
/// them, or with ZooKeeper those whose election it wins) until
/// [`shutdown`](Self::shutdown).
///
/// Dropping a server without `shutdown` starts the same orderly stop in the
/// background when a Tokio runtime is at hand; `shutdown` waits for it and
/// reports its errors.
pub struct Server {
    /// The configuration it runs, each part of it handed to its service
    /// by [`start`](Self::start).
    config: ServerConfig,
    local_addr: Option<SocketAddr>,
    metrics_addr: Option<SocketAddr>,
    admin_addr: Option<SocketAddr>,
    admin_tcp_addr: Option<SocketAddr>,
    registered_address: Option<String>,
    manager: Arc<InstanceManager>,
    running: Option<Running>,
}

/// What [`Server::shutdown`] stops, in order.
struct Running {
    stop: watch::Sender<bool>,
    /// The Canal TCP server; `None` in MQ mode.
    tcp: TcpTask,
    /// The MQ workers' supervisor; `None` in TCP mode.
    mq: Option<JoinHandle<()>>,
    /// The relational sink's supervisor, if configured.
    sink: Option<JoinHandle<()>>,
    /// The `/metrics` listener, if served.
    metrics: Option<JoinHandle<()>>,
    /// The admin API, if served.
    admin: Option<JoinHandle<()>>,
    /// Canal's admin port, if served.
    admin_tcp: Option<JoinHandle<()>>,
    supervision: Supervision,
    manager: Arc<InstanceManager>,
    /// Released last, once nothing of this server writes the data folder.
    data_lock: DirLock,
}

/// The Canal TCP server's shutdown handle and task; `None` in MQ mode.
type TcpTask = Option<(ShutdownHandle, JoinHandle<std::io::Result<()>>)>;

/// Who decides which destinations run here.
enum Supervision {
    /// Every destination runs; the configuration scan adds, removes and
    /// reloads them.
    Scan(JoinHandle<()>),
    /// The ZooKeeper elections decide.
    Elections(JoinHandle<HaServer>),
}

impl Server {
    /// Starts a server for `config`: locks the data folder, binds the Canal
    /// port (not in MQ mode, as Canal), connects to ZooKeeper when `canal.zkServers` is set, opens the
    /// cursor and schema history stores and starts the destinations (or
    /// competes for them). Returns once clients can connect.
    ///
    /// The data folder is locked first and the port bound second, so that a
    /// second server started by mistake fails before it reads any source or
    /// file.
    pub async fn start(config: ServerConfig) -> Result<Server, ServerError> {
        // With canal.admin.manager the configuration is canal-admin's.
        let config = crate::canal_admin_config::resolve(config).await?;
        apply_process_settings(&config);
        // Checked before anything starts: a broker the server cannot use,
        // or a client configuration it refuses, fails here.
        let publishers = crate::mq::publisher_factory(
            config.server_mode,
            &config.raw,
            &config.path,
            &config.destinations.conf_dir,
        )?;
        let sinks = crate::sink::load(&config.sink)?;
        let data_lock = lock_data_folder(&config.destinations)?;
        let served = Arc::new(LateDestinations::default());
        let tcp = bind_canal_port(&config.canal_port, &publishers, &served).await?;
        let admin_listener = bind_admin_http(config.admin_http.as_ref(), &config.path).await?;
        let admin_tcp_listener = bind_canal_admin(config.admin_tcp.as_ref(), &config.path).await?;
        let ha = start_ha(&config.zookeeper, config.meta_mode).await?;
        let manager = start_destinations(&config.destinations, config.meta_mode, ha.as_ref())?;
        served.set(manager.clone());
        let (metrics_addr, metrics) = crate::metrics::serve(&config.metrics, manager.clone()).await;
        let commands = Arc::new(Commands::new(
            manager.clone(),
            cluster_view(ha.as_ref(), &config.zookeeper)?,
        ));
        let mq_status = publishers.as_ref().map(|_| Arc::default());
        let (admin_addr, admin) = serve_admin_http(
            admin_listener,
            config.admin_http.as_ref(),
            &commands,
            tcp.as_ref(),
            mq_status.clone(),
            config.server_mode,
            &config.sink,
        );
        let (admin_tcp_addr, admin_tcp) = serve_canal_admin(
            admin_tcp_listener,
            &commands,
            config.admin_tcp.as_ref(),
            &config.canal_port.limits,
            config.log_files.clone(),
            &config.path,
        )?;
        let (stop, stop_rx) = watch::channel(false);
        let (local_addr, tcp) = serve_canal_clients(tcp, &manager)?;
        let mq = start_mq_workers(
            publishers,
            config.server_mode,
            &config.mq,
            mq_status,
            &manager,
            &stop_rx,
        );
        let sink = crate::sink::start(sinks, &manager, &stop_rx);
        let registered_address = ha.as_ref().map(|ha| ha.address().to_string());
        let supervision = start_supervision(ha, config.admin_manager.as_ref(), &manager, stop_rx);
        Ok(Server {
            config,
            local_addr,
            metrics_addr,
            admin_addr,
            admin_tcp_addr,
            registered_address,
            manager: manager.clone(),
            running: Some(Running {
                stop,
                tcp,
                mq,
                sink,
                metrics,
                admin,
                admin_tcp,
                supervision,
                manager,
                data_lock,
            }),
        })
    }

    /// Runs a server for `config` until `shutdown` completes (a signal, a
    /// channel…), then stops it in order: what `sluice server` does.
    pub async fn run_until(
        config: ServerConfig,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), ServerError> {
        let server = Server::start(config).await?;
        shutdown.await;
        server.shutdown().await
    }

    /// The address the Canal TCP server listens on; `None` in MQ mode,
    /// where no port is bound.
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.local_addr
    }

    /// The address `/metrics` is served on; `None` when
    /// `canal.metrics.pull.port` is 0 or could not be bound.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_addr
    }

    /// The address the admin API is served on; `None` unless
    /// `sluice.admin.http.port` is set.
    pub fn admin_addr(&self) -> Option<SocketAddr> {
        self.admin_addr
    }

    /// The address canal-admin connects to (Canal's admin protocol);
    /// `None` unless `canal.admin.port` and `canal.admin.passwd` are set.
    pub fn admin_tcp_addr(&self) -> Option<SocketAddr> {
        self.admin_tcp_addr
    }

    /// The address registered in ZooKeeper (`canal.register.ip` or
    /// `canal.ip`, with `canal.port`), when the server is in a cluster.
    pub fn registered_address(&self) -> Option<&str> {
        self.registered_address.as_deref()
    }

    /// The configuration the server runs.
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// Each known destination and the state of its instance here.
    pub fn destinations(&self) -> Vec<(String, InstanceState)> {
        self.manager.states()
    }

    /// Stops the server in order: no new clients and no more elections or
    /// scans; with ZooKeeper the destinations' cursors are written while the
    /// elections still hold and the destinations are released so that a
    /// standby takes them at once; then every instance stops (its cursors
    /// written), the TCP server ends and the data folder is unlocked.
    pub async fn shutdown(mut self) -> Result<(), ServerError> {
        match self.running.take() {
            Some(running) => running.stop().await,
            None => Ok(()),
        }
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("local_addr", &self.local_addr)
            .field("registered_address", &self.registered_address)
            .field("running", &self.running.is_some())
            .finish()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let Some(running) = self.running.take() else {
            return;
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    if let Err(error) = running.stop().await {
                        tracing::error!(%error, "stopping the dropped server");
                    }
                });
            }
            // No runtime: its tasks are gone already; just say stop.
            Err(_) => running.signal_stop(),
        }
    }
}

impl Running {
    /// Tells the supervision, the MQ workers and the TCP server to stop.
    fn signal_stop(&self) {
        let _ = self.stop.send(true);
        if let Some((shutdown, _)) = &self.tcp {
            shutdown.shutdown();
        }
        if let Some(metrics) = &self.metrics {
            metrics.abort();
        }
        if let Some(admin) = &self.admin {
            admin.abort();
        }
        if let Some(admin) = &self.admin_tcp {
            admin.abort();
        }
    }

    /// The orderly stop of [`Server::shutdown`].
    async fn stop(self) -> Result<(), ServerError> {
        tracing::info!("shutting down");
        self.signal_stop();
        let Running {
            tcp,
            mq,
            sink,
            supervision,
            manager,
            data_lock,
            ..
        } = self;
        // The workers end first: their last acks reach the cursors before
        // the destinations write them and stop.
        if let Some(mq) = mq {
            if let Err(e) = mq.await {
                tracing::error!(error = %e, "the MQ supervisor failed");
            }
        }
        if let Some(Err(e)) = match sink {
            Some(task) => Some(task.await),
            None => None,
        } {
            tracing::error!(error = %e, "the sink supervisor failed");
        }
        let scan = match supervision {
            Supervision::Elections(task) => {
                match task.await {
                    Ok(ha) => ha.shutdown().await,
                    Err(e) => tracing::error!(error = %e, "the ZooKeeper task failed"),
                }
                None
            }
            Supervision::Scan(task) => Some(task),
        };
        manager.stop_all().await;
        if let Some(scan) = scan {
            let _ = scan.await;
        }
        let served = match tcp {
            None => Ok(()),
            Some((_, task)) => match task.await {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(ServerError::TcpServe(e)),
                Err(source) => Err(ServerError::Task {
                    what: "Canal TCP server task",
                    source,
                }),
            },
        };
        drop(data_lock);
        served
    }
}

/// Logs the configuration's warnings; sets the process-wide inflation ceiling and metrics recorder.
fn apply_process_settings(config: &ServerConfig) {
    for w in &config.warnings {
        tracing::warn!("{w}");
    }
    // Every destination's stream inflates compressed events under this ceiling.
    sluice_binlog::compression::set_max_uncompressed(config.binlog_max_event_size);
    crate::metrics::install(config.metrics.port);
}

/// Locks the data folder, so that a second server on it stops here.
fn lock_data_folder(config: &DestinationsConfig) -> Result<DirLock, ServerError> {
    Ok(DirLock::acquire(&config.data_dir, "the data folder")?)
}

/// Binds the Canal TCP port (not in MQ mode, where there are publishers),
/// serving destinations once they exist.
async fn bind_canal_port(
    config: &CanalPortConfig,
    publishers: &Option<PublisherFactory>,
    served: &Arc<LateDestinations>,
) -> Result<Option<TcpServer>, ServerError> {
    Ok(match publishers {
        None => Some(
            TcpServer::bind_config(config, served.clone())
                .await
                .map_err(ServerError::Tcp)?,
        ),
        Some(_) => None,
    })
}

/// Binds the admin API's port, if `sluice.admin.http.port` is set.
async fn bind_admin_http(
    config: Option<&AdminHttpConfig>,
    canal_properties: &Path,
) -> Result<Option<TcpListener>, ServerError> {
    Ok(match config {
        Some(admin) => Some(crate::admin_api::bind(admin, canal_properties).await?),
        None => None,
    })
}

/// Binds canal-admin's port, if `canal.admin.port` is set.
async fn bind_canal_admin(
    config: Option<&AdminTcpConfig>,
    canal_properties: &Path,
) -> Result<Option<TcpListener>, ServerError> {
    Ok(match config {
        Some(admin) => Some(crate::canal_admin_port::bind(admin, canal_properties).await?),
        None => None,
    })
}

/// Connects to ZooKeeper when `canal.zkServers` is set.
async fn start_ha(
    config: &ZooKeeperConfig,
    meta_mode: MetaMode,
) -> Result<Option<HaServer>, ServerError> {
    // With ZooKeeper, cursors always live there (see crate::ha): servers
    // that take over from each other must read the same cursors.
    Ok(if config.servers.trim().is_empty() {
        None
    } else {
        if meta_mode != MetaMode::ZooKeeper {
            tracing::info!(
                "canal.zkServers is set: cursors are kept in ZooKeeper whatever canal.instance.global.spring.xml says"
            );
        }
        Some(HaServer::start(config).await?)
    })
}

/// Opens the cursor and schema stores and the destinations, started unless elections decide.
fn start_destinations(
    config: &DestinationsConfig,
    meta_mode: MetaMode,
    ha: Option<&HaServer>,
) -> Result<Arc<InstanceManager>, ServerError> {
    let cursors: Arc<dyn CursorStore> = match (ha, meta_mode) {
        (Some(ha), _) => ha.cursor_store(),
        (None, MetaMode::File) => Arc::new(FileCursorStore::new(&config.data_dir)),
        (None, MetaMode::Memory) => Arc::new(MemoryCursorStore::default()),
        (None, MetaMode::ZooKeeper) => return Err(ServerError::ZooKeeperMetaWithoutServers),
    };
    // With ZooKeeper the schema history lives there as well, for the
    // server that takes a destination over.
    let manager = match ha {
        Some(ha) => InstanceManager::with_fence(
            config.clone(),
            cursors,
            InstanceManager::schema_tracking_in(ha.schema_history()),
            ha.fence(),
        ),
        None => InstanceManager::new(config.clone(), cursors, InstanceManager::schema_tracking()),
    };
    if ha.is_none() {
        for (destination, error) in manager.start_all() {
            tracing::error!(%destination, %error, "destination not started");
        }
    }
    Ok(manager)
}

/// What the destination commands need of the ZooKeeper cluster, if any.
fn cluster_view(
    ha: Option<&HaServer>,
    zookeeper: &ZooKeeperConfig,
) -> Result<Option<ClusterView>, ServerError> {
    let Some(ha) = ha else {
        return Ok(None);
    };
    Ok(Some(ClusterView {
        zk_servers: zookeeper.servers.clone(),
        auth: crate::zk_auth(Some(zookeeper))?,
        holds: ha.fence(),
    }))
}

/// Serves the admin API on its bound port, if any: it reports the server
/// mode `mode` and loads mappings of the sink `sink` names.
fn serve_admin_http(
    listener: Option<TcpListener>,
    config: Option<&AdminHttpConfig>,
    commands: &Arc<Commands>,
    tcp: Option<&TcpServer>,
    mq: Option<Arc<crate::mq::MqStatus>>,
    mode: ServerMode,
    sink: &SinkKeys,
) -> (Option<SocketAddr>, Option<JoinHandle<()>>) {
    let (Some(listener), Some(config)) = (listener, config) else {
        return (None, None);
    };
    let connections = tcp.map(|t| t.connections());
    let (addr, task) = crate::admin_api::serve(
        listener,
        config,
        commands.clone(),
        connections,
        mq,
        mode,
        sink.clone(),
    );
    (addr, Some(task))
}

/// Serves Canal's admin protocol to canal-admin on its bound port, if any;
/// logins are limited as on the Canal port, and `logs` are the log files
/// it shows.
fn serve_canal_admin(
    listener: Option<TcpListener>,
    commands: &Arc<Commands>,
    config: Option<&AdminTcpConfig>,
    limits: &TcpLimits,
    logs: Option<LogFiles>,
    canal_properties: &Path,
) -> Result<(Option<SocketAddr>, Option<JoinHandle<()>>), ServerError> {
    let (Some(listener), Some(config)) = (listener, config) else {
        return Ok((None, None));
    };
    let admin = crate::canal_admin_port::CanalAdmin::new(
        commands.clone(),
        config,
        limits,
        logs,
        canal_properties,
    )?;
    let (addr, task) = crate::canal_admin_port::serve(listener, Arc::new(admin));
    Ok((addr, Some(task)))
}

/// The Canal TCP server, bound before, starts serving its clients.
fn serve_canal_clients(
    tcp: Option<TcpServer>,
    manager: &InstanceManager,
) -> Result<(Option<SocketAddr>, TcpTask), ServerError> {
    let Some(tcp) = tcp else {
        return Ok((None, None));
    };
    let local_addr = tcp.local_addr().map_err(ServerError::LocalAddr)?;
    let destinations = manager
        .states()
        .iter()
        .map(|(name, state)| format!("{name} ({state})"))
        .collect::<Vec<_>>()
        .join(", ");
    tracing::info!(addr = %local_addr, %destinations, "serving Canal clients");
    let shutdown = tcp.shutdown_handle();
    Ok((
        Some(local_addr),
        Some((shutdown, tokio::spawn(tcp.serve()))),
    ))
}

/// In MQ mode, starts the workers that publish every destination running here.
fn start_mq_workers(
    publishers: Option<PublisherFactory>,
    mode: ServerMode,
    config: &MqServerConfig,
    status: Option<Arc<crate::mq::MqStatus>>,
    manager: &Arc<InstanceManager>,
    stop_rx: &watch::Receiver<bool>,
) -> Option<JoinHandle<()>> {
    publishers.map(|factory| {
        tracing::info!(?mode, destinations = ?manager.states(), "MQ mode: publishing every destination that runs here, no Canal TCP port");
        tokio::spawn(crate::mq::supervise(
            manager.clone(),
            factory,
            config.clone(),
            status.unwrap_or_default(),
            stop_rx.clone(),
        ))
    })
}

/// Starts what decides which destinations run here: the config scan or
/// ZooKeeper's elections, beside canal-admin's poller when `admin` is set.
fn start_supervision(
    ha: Option<HaServer>,
    admin: Option<&AdminManagerConfig>,
    manager: &Arc<InstanceManager>,
    stop_rx: watch::Receiver<bool>,
) -> Supervision {
    // With canal-admin, its poller feeds the scanned folder (and scans it
    // itself when no elections do).
    let admin_poller =
        crate::canal_admin_config::poller(admin, manager, ha.is_none(), stop_rx.clone());
    match ha {
        None => Supervision::Scan(match admin_poller {
            Some(poller) => tokio::spawn(poller),
            None => tokio::spawn(manager.clone().scan_loop(stop_rx)),
        }),
        Some(ha) => {
            tracing::info!(
                address = ha.address(),
                "competing for the destinations in ZooKeeper"
            );
            let elections = ha.run(manager.clone(), stop_rx);
            Supervision::Elections(tokio::spawn(async move {
                match admin_poller {
                    Some(poller) => tokio::join!(elections, poller).0,
                    None => elections.await,
                }
            }))
        }
    }
}

/// The destinations the TCP server serves, known only once the instance
/// manager exists: the port is bound before (see [`Server::start`]), and
/// until then every destination is "not running here".
#[derive(Default)]
struct LateDestinations(std::sync::OnceLock<Arc<InstanceManager>>);

impl LateDestinations {
    fn set(&self, manager: Arc<InstanceManager>) {
        let _ = self.0.set(manager);
    }
}

impl Destinations for LateDestinations {
    fn destination(&self, name: &str) -> Option<Arc<dyn Destination>> {
        self.0.get().and_then(|m| m.destination(name))
    }
}
