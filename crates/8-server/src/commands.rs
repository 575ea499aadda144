//! The destination operations every management door calls: the admin HTTP
//! API (and `sluice admin`, its client) and Canal's admin port. The rules
//! live here once: which operations a ZooKeeper cluster refuses (its
//! elections decide where each destination runs), which need the
//! destination running on this server, what a release needs. A door only
//! parses its request and renders the answer or the [`CommandError`] in its
//! own protocol (an HTTP status, a Canal ACK code).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use sluice_instance::manager::{
    CursorReset, CursorTarget, InstanceManager, InstanceState, ManagerError, ResetError,
};
use sluice_instance::runner::Fence;
use sluice_store::ClientId;

use crate::{Release, ServerError};

/// What the commands need of a server in a ZooKeeper cluster.
pub(crate) struct ClusterView {
    pub(crate) zk_servers: String,
    pub(crate) auth: Option<sluice_ha::ZkAuth>,
    /// "This server holds the destination right now".
    pub(crate) holds: Fence,
}

/// Why a command was not carried out; each door maps it to its protocol.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CommandError {
    /// No destination of that name is configured, discovered or running.
    #[error("no destination {destination:?} here: {known}")]
    Unknown { destination: String, known: String },
    /// An operation the elections decide in a ZooKeeper cluster.
    #[error("{what} is not done in a ZooKeeper cluster (canal.zkServers is set): the elections decide where each destination runs; release a destination to move it to a standby")]
    InCluster { what: &'static str },
    /// A release without ZooKeeper.
    #[error("release moves a destination to a standby server through ZooKeeper, and this server has no canal.zkServers: stop it instead")]
    NoCluster,
    /// The destination does not run on this server; `hint` says what to do.
    #[error("destination {destination} does not run here, so {so}: {hint}")]
    NotHere {
        destination: String,
        so: &'static str,
        hint: String,
    },
    #[error(transparent)]
    Manager(#[from] ManagerError),
    #[error("{}", crate::error::chain(.0))]
    Release(ServerError),
    #[error(transparent)]
    Reset(#[from] ResetError),
}

/// The operations on this server's destinations.
pub(crate) struct Commands {
    manager: Arc<InstanceManager>,
    cluster: Option<ClusterView>,
    /// Between a stop of every destination and the next start of all.
    all_stopped: AtomicBool,
    /// One start/stop of every destination at a time.
    all_ops: tokio::sync::Mutex<()>,
}

impl Commands {
    pub(crate) fn new(manager: Arc<InstanceManager>, cluster: Option<ClusterView>) -> Self {
        Commands {
            manager,
            cluster,
            all_stopped: AtomicBool::new(false),
            all_ops: tokio::sync::Mutex::new(()),
        }
    }

    pub(crate) fn manager(&self) -> &Arc<InstanceManager> {
        &self.manager
    }

    /// The destinations this server knows: configured, discovered or running.
    pub(crate) fn names(&self) -> Vec<String> {
        self.manager.known_destinations()
    }

    /// `Ok` for a destination this server knows, else an error naming it
    /// and the known ones, and where they are configured.
    pub(crate) fn known(&self, destination: &str) -> Result<(), CommandError> {
        let names = self.names();
        if names.iter().any(|n| n == destination) {
            return Ok(());
        }
        let config = self.manager.config();
        Err(CommandError::Unknown {
            destination: destination.to_string(),
            known: format!(
                "canal.destinations of {} and the folders of {} name {}",
                config.path.display(),
                config.conf_dir.display(),
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ),
        })
    }

    /// Whether the destination is starting or running on this server.
    pub(crate) fn runs_here(&self, destination: &str) -> bool {
        matches!(
            self.manager.state(destination),
            Some(InstanceState::Starting | InstanceState::Running)
        )
    }

    /// Whether every destination was stopped at once and not started since.
    pub(crate) fn all_stopped(&self) -> bool {
        self.all_stopped.load(Ordering::Acquire)
    }

    /// Whether this server is one of a ZooKeeper cluster.
    pub(crate) fn in_cluster(&self) -> bool {
        self.cluster.is_some()
    }

    /// "running" or "standby" in a cluster, `None` otherwise.
    pub(crate) fn role(&self, destination: &str) -> Option<&'static str> {
        self.cluster.as_ref().map(|c| {
            if (c.holds)(destination) {
                "running"
            } else {
                "standby"
            }
        })
    }

    /// Refuses `what` when the elections decide where destinations run.
    fn not_in_cluster(&self, what: &'static str) -> Result<(), CommandError> {
        match self.cluster {
            Some(_) => Err(CommandError::InCluster { what }),
            None => Ok(()),
        }
    }

    /// The error for an operation on a destination that does not run here:
    /// `so` says what follows, then what to do when another server of the
    /// cluster runs it (`elsewhere`) or none does (`stopped`).
    fn not_here(
        &self,
        destination: &str,
        so: &'static str,
        elsewhere: &str,
        stopped: &str,
    ) -> CommandError {
        let hint = match self.role(destination) {
            Some(_) => format!("it runs on another server of the cluster: {elsewhere}"),
            None => stopped.to_string(),
        };
        CommandError::NotHere {
            destination: destination.to_string(),
            so,
            hint,
        }
    }

    /// Starts a destination (one stopped by hand too).
    pub(crate) fn start(&self, destination: &str) -> Result<(), CommandError> {
        self.known(destination)?;
        self.not_in_cluster("starting a destination by hand")?;
        Ok(self.manager.start(destination)?)
    }

    /// Stops a destination and keeps it stopped until it is started again.
    pub(crate) async fn stop(&self, destination: &str) -> Result<(), CommandError> {
        self.known(destination)?;
        self.not_in_cluster("stopping a destination by hand")?;
        self.manager.stop_and_hold(destination).await;
        Ok(())
    }

    /// Reads a running destination's configuration again and restarts it.
    pub(crate) async fn reload(&self, destination: &str) -> Result<(), CommandError> {
        self.known(destination)?;
        if self.manager.state(destination).is_none() {
            return Err(self.not_here(
                destination,
                "there is nothing to reload",
                "reload it there",
                "start it instead",
            ));
        }
        Ok(self.manager.reload(destination).await?)
    }

    /// Canal's restart: a reload where the destination runs, a start where
    /// it does not.
    pub(crate) async fn restart(&self, destination: &str) -> Result<(), CommandError> {
        self.known(destination)?;
        if self.manager.state(destination).is_none() {
            return self.start(destination);
        }
        Ok(self.manager.reload(destination).await?)
    }

    /// Asks the server running a destination to give it up to a standby.
    pub(crate) async fn release(
        &self,
        destination: &str,
        force: bool,
    ) -> Result<Release, CommandError> {
        self.known(destination)?;
        let Some(cluster) = &self.cluster else {
            return Err(CommandError::NoCluster);
        };
        crate::release(
            &cluster.zk_servers,
            cluster.auth.as_ref(),
            destination,
            force,
        )
        .await
        .map_err(CommandError::Release)
    }

    /// Has a running destination read `tables` again beside its stream.
    pub(crate) fn snapshot(
        &self,
        destination: &str,
        tables: Vec<(String, String)>,
    ) -> Result<(), CommandError> {
        self.known(destination)?;
        if self.manager.request_snapshot(destination, tables) {
            return Ok(());
        }
        Err(self.not_here(
            destination,
            "it cannot read a snapshot",
            "ask there",
            "start it first",
        ))
    }

    /// Moves a client's cursor while its destination is stopped here.
    pub(crate) async fn reset_cursor(
        &self,
        destination: &str,
        client: ClientId,
        target: CursorTarget,
    ) -> Result<CursorReset, CommandError> {
        self.known(destination)?;
        self.not_in_cluster("resetting a cursor")?;
        Ok(self
            .manager
            .reset_cursor(destination, client, target)
            .await?)
    }

    /// Stops every destination and keeps them stopped; `false` when they
    /// were stopped already (as Canal's server stop).
    pub(crate) async fn stop_all(&self) -> Result<bool, CommandError> {
        self.not_in_cluster("stopping or starting the server")?;
        let _one_at_a_time = self.all_ops.lock().await;
        Ok(self.stop_all_held().await)
    }

    /// Starts every configured destination; `false` when they were not
    /// stopped (as Canal's server start). A destination that cannot start
    /// is logged and retried by its own start later, as at server start.
    pub(crate) async fn start_all(&self) -> Result<bool, CommandError> {
        self.not_in_cluster("stopping or starting the server")?;
        let _one_at_a_time = self.all_ops.lock().await;
        Ok(self.start_all_held())
    }

    /// Both, one after the other.
    pub(crate) async fn restart_all(&self) -> Result<bool, CommandError> {
        self.not_in_cluster("stopping or starting the server")?;
        let _one_at_a_time = self.all_ops.lock().await;
        self.stop_all_held().await;
        Ok(self.start_all_held())
    }

    async fn stop_all_held(&self) -> bool {
        if self.all_stopped.swap(true, Ordering::AcqRel) {
            return false;
        }
        tracing::info!("stopping every destination");
        for name in self.names() {
            self.manager.stop_and_hold(&name).await;
        }
        true
    }

    fn start_all_held(&self) -> bool {
        if !self.all_stopped.swap(false, Ordering::AcqRel) {
            return false;
        }
        tracing::info!("starting every destination");
        for name in self.manager.config().discover() {
            if let Err(error) = self.manager.start(&name) {
                tracing::error!(destination = %name, %error, "destination not started");
            }
        }
        true
    }
}
