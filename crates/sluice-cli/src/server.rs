//! `sluice server --conf DIR`: runs every destination configured in a Canal
//! configuration folder and serves them to Canal clients over TCP.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::Args;
use sluice_config::{MetaMode, ServerConfig, ServerMode};
use sluice_instance::manager::InstanceManager;
use sluice_meta::{CursorStore, DirLock, FileCursorStore, MemoryCursorStore};
use sluice_serve_tcp::TcpServer;
use sluice_store::{Destination, Destinations};
use tokio::sync::watch;

#[derive(Args)]
pub struct ServerArgs {
    /// The configuration folder: `canal.properties` and one folder per
    /// destination holding its `instance.properties`.
    #[arg(long, default_value = "conf")]
    pub conf: PathBuf,
}

pub fn run(args: &ServerArgs) -> Result<()> {
    crate::tail::init_logging();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(serve(args))
}

async fn serve(args: &ServerArgs) -> Result<()> {
    let server = ServerConfig::load(&args.conf)
        .with_context(|| format!("reading the configuration in {}", args.conf.display()))?;
    for w in &server.warnings {
        tracing::warn!("{w}");
    }
    // Every destination's stream inflates compressed events under this ceiling.
    sluice_binlog::compression::set_max_uncompressed(server.binlog_max_event_size);
    if server.server_mode != ServerMode::Tcp {
        bail!(
            "canal.serverMode = {:?} is not supported yet: use tcp",
            server.server_mode
        );
    }
    // First of all: one server per data folder, then the port, so a second
    // server started by mistake fails before it reads any source or file.
    let _data_lock = DirLock::acquire(&server.file_data_dir, "the data folder")?;
    let served = Arc::new(LateDestinations::default());
    let tcp = TcpServer::bind_config(&server, served.clone())
        .await
        .context("starting the Canal TCP server")?;
    // With ZooKeeper, cursors always live there (see crate::ha): servers that
    // take over from each other must read the same cursors.
    let ha = if server.zk_servers.trim().is_empty() {
        None
    } else {
        if server.meta_mode != MetaMode::ZooKeeper {
            tracing::info!(
                "canal.zkServers is set: cursors are kept in ZooKeeper whatever canal.instance.global.spring.xml says"
            );
        }
        Some(crate::ha::HaServer::start(&server).await?)
    };
    let cursors: Arc<dyn CursorStore> = match (&ha, server.meta_mode) {
        (Some(ha), _) => ha.cursor_store(),
        (None, MetaMode::File) => Arc::new(FileCursorStore::new(&server.file_data_dir)),
        (None, MetaMode::Memory) => Arc::new(MemoryCursorStore::default()),
        (None, MetaMode::ZooKeeper) => bail!(
            "canal.instance.global.spring.xml selects ZooKeeper meta (default-instance.xml) but canal.zkServers is empty"
        ),
    };
    // With ZooKeeper the schema history lives there as well, for the server
    // that takes a destination over.
    let manager = match &ha {
        Some(ha) => InstanceManager::with_fence(
            server.clone(),
            cursors,
            InstanceManager::schema_tracking_in(ha.schema_history()),
            ha.fence(),
        ),
        None => InstanceManager::new(server.clone(), cursors, InstanceManager::schema_tracking()),
    };
    if ha.is_none() {
        for (destination, error) in manager.start_all() {
            tracing::error!(%destination, %error, "destination not started");
        }
    }
    served.set(manager.clone());
    let addr = tcp.local_addr().context("reading the listening address")?;
    tracing::info!(%addr, destinations = ?manager.states(), "serving Canal clients");
    let tcp_shutdown = tcp.shutdown_handle();
    let tcp_task = tokio::spawn(tcp.serve());
    let (stop_tx, stop_rx) = watch::channel(false);
    // With ZooKeeper the elections decide which destinations run here.
    let (scan, ha_task) = match ha {
        None => (Some(tokio::spawn(manager.clone().scan_loop(stop_rx))), None),
        Some(ha) => {
            tracing::info!(
                address = ha.address(),
                "competing for the destinations in ZooKeeper"
            );
            (None, Some(tokio::spawn(ha.run(manager.clone(), stop_rx))))
        }
    };

    shutdown_signal().await;
    tracing::info!("shutting down");
    let _ = stop_tx.send(true);
    tcp_shutdown.shutdown();
    if let Some(task) = ha_task {
        match task.await {
            Ok(ha) => ha.shutdown().await,
            Err(e) => tracing::error!(error = %e, "the ZooKeeper task failed"),
        }
    }
    manager.stop_all().await;
    if let Some(scan) = scan {
        let _ = scan.await;
    }
    match tcp_task.await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e).context("the Canal TCP server failed"),
        Err(e) => Err(e).context("the Canal TCP server task failed"),
    }
}

/// The destinations the TCP server serves, known only once the instance
/// manager exists: the port is bound before (see [`serve`]), and until then
/// every destination is "not running here".
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

/// SIGINT or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
