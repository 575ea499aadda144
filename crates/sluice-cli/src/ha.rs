//! `sluice server` in a ZooKeeper cluster (`canal.zkServers` set): the
//! server registers itself in Canal's layout, competes for each
//! destination's `running` node, and runs a destination's instance only
//! while it holds that node.
//!
//! - One [`ZkSession`] for registration and elections; the cursor store has
//!   a session of its own (see [`sluice_ha::cursor_store`]).
//! - [`ServerRegistry`]: `/otter/canal/cluster/{ip:port}` and, per
//!   destination, `/otter/canal/destinations/{dest}/cluster/{ip:port}`.
//! - One [`RunningElection`] per destination, with `canal.zookeeper.ha.delay`
//!   as the take-over delay, and a supervisor task that starts the instance
//!   when the election says Running and stops it (dump and serving, pending
//!   cursors discarded) as soon as it no longer does. The instances also
//!   check the election before each entry they publish (the manager's
//!   fence), so nothing is published between a lost lease and the
//!   supervisor's reaction. The supervisor also
//!   re-checks [`RunningElection::is_running`] every
//!   [`FENCE_CHECK_PERIOD`], which catches a lease that ran out while the
//!   process was stopped before any role change is published.
//! - Cursors in ZooKeeper whenever `canal.zkServers` is set, whatever
//!   `canal.instance.global.spring.xml` says: a standby can only take over
//!   where the previous owner stopped if both read the same cursors. They go
//!   through Canal's period-mixed manager (memory, flushed every
//!   `canal.zookeeper.flush.period`), whose writes are guarded by the
//!   destination's election so a fenced server never overwrites the cursors
//!   of the one that took over.
//!
//! The configuration scan (`canal.auto.scan`) is not applied in this mode
//! yet: the destinations are the ones found at start.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use sluice_config::ServerConfig;
use sluice_ha::cursor_store::WriteGuard;
use sluice_ha::{
    ElectionConfig, PeriodMixedCursorStore, RunningElection, ServerRegistry, ZkConfig, ZkSession,
    ZooKeeperCursorStore,
};
use sluice_instance::manager::{InstanceManager, InstanceState};
use sluice_instance::runner::Fence;
use sluice_meta::CursorStore;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How often a supervisor re-checks that its election still holds, besides
/// reacting to role changes at once.
pub const FENCE_CHECK_PERIOD: Duration = Duration::from_millis(100);

/// Pause before starting an instance again after a failed start.
const START_RETRY: Duration = Duration::from_secs(1);

type Cursors = PeriodMixedCursorStore<ZooKeeperCursorStore>;

/// The address this server registers and writes in `running` nodes:
/// `canal.register.ip`, else `canal.ip`, else 127.0.0.1, with `canal.port`.
pub fn register_address(server: &ServerConfig) -> String {
    let ip = [&server.register_ip, &server.ip]
        .into_iter()
        .map(|s| s.trim())
        .find(|s| !s.is_empty())
        .unwrap_or("127.0.0.1");
    format!("{ip}:{}", server.port)
}

/// The ZooKeeper side of a server: session, registration, elections and
/// the election-guarded cursor store.
pub struct HaServer {
    session: ZkSession,
    registry: ServerRegistry,
    elections: Arc<HashMap<String, Arc<RunningElection>>>,
    cursors: Arc<Cursors>,
    address: String,
    stop: watch::Sender<bool>,
    supervisors: Vec<JoinHandle<()>>,
}

impl HaServer {
    /// Connects to ZooKeeper, registers the server for `destinations` and
    /// starts competing for them. Nothing runs until [`supervise`](Self::supervise).
    pub async fn start(server: &ServerConfig, destinations: &[String]) -> Result<HaServer> {
        let address = register_address(server);
        let zk = ZkConfig::new(server.zk_servers.clone())
            .with_session_timeout(server.zookeeper_session_timeout);
        let session = ZkSession::connect(zk.clone())
            .await
            .with_context(|| format!("connecting to ZooKeeper at {}", server.zk_servers))?;
        tracing::info!(
            servers = %server.zk_servers,
            %address,
            session_timeout = ?session.session_timeout(),
            "ZooKeeper session open"
        );
        if session.session_timeout() != server.zookeeper_session_timeout {
            tracing::warn!(
                asked = ?server.zookeeper_session_timeout,
                granted = ?session.session_timeout(),
                "ZooKeeper granted another session timeout than canal.zookeeper.session.timeout (its minSessionTimeout..maxSessionTimeout)"
            );
        }
        if server.register_ip.trim().is_empty() && server.ip.trim().is_empty() {
            tracing::warn!(
                %address,
                "neither canal.register.ip nor canal.ip is set: registering 127.0.0.1, which clients on other hosts cannot reach"
            );
        }
        let registry = ServerRegistry::start(&session, &address)
            .with_context(|| format!("registering {address} in ZooKeeper"))?;
        let mut elections = HashMap::new();
        for d in destinations {
            registry
                .add_destination(d)
                .with_context(|| format!("registering destination {d}"))?;
            let config = ElectionConfig::server(d, &address)
                .with_context(|| format!("destination {d}"))?
                .with_delay(server.zookeeper_ha_delay);
            elections.insert(
                d.clone(),
                Arc::new(RunningElection::start(&session, config)),
            );
        }
        let elections = Arc::new(elections);
        let guard: WriteGuard = holds(&elections);
        let period = server.zookeeper_flush_period;
        let cursors = tokio::task::spawn_blocking(move || {
            ZooKeeperCursorStore::connect(zk)
                .map(|store| PeriodMixedCursorStore::with_guard(store, period, guard))
        })
        .await
        .context("the cursor store's start failed")?
        .context("opening the cursor store in ZooKeeper")?;
        let (stop, _) = watch::channel(false);
        Ok(HaServer {
            session,
            registry,
            elections,
            cursors: Arc::new(cursors),
            address,
            stop,
            supervisors: Vec::new(),
        })
    }

    /// The address registered for this server.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The fence the instance manager must use: "this server holds the
    /// destination right now", checked before each entry is published.
    pub fn fence(&self) -> Fence {
        holds(&self.elections)
    }

    /// The cursor store the instance manager must use.
    pub fn cursor_store(&self) -> Arc<dyn CursorStore> {
        self.cursors.clone()
    }

    /// Starts one supervisor per destination: each runs its instance in
    /// `manager` exactly while this server holds the destination.
    pub fn supervise(&mut self, manager: &Arc<InstanceManager>) {
        for (destination, election) in self.elections.iter() {
            self.supervisors.push(tokio::spawn(supervise(
                manager.clone(),
                election.clone(),
                self.cursors.clone(),
                destination.clone(),
                self.stop.subscribe(),
            )));
        }
    }

    /// Stops the instances (writing their cursors while the elections still
    /// hold), then releases the destinations so that a standby takes them
    /// at once, withdraws the registration and closes the session.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        for s in self.supervisors {
            let _ = s.await;
        }
        if let Err(e) = self.cursors.flush_all() {
            tracing::warn!(error = %e, "writing the last cursors to ZooKeeper");
        }
        // The cursor store's guard shares the elections, so they are
        // released here rather than stopped; they end with the store.
        for (destination, election) in self.elections.iter() {
            if let Err(e) = election.release().await {
                tracing::warn!(%destination, error = %e, "releasing the destination");
            }
        }
        self.registry.stop().await;
        self.session.close().await;
        // The cursor store (and its own session) closes when the last
        // handle, the manager's, is dropped.
    }
}

/// "This server holds the destination right now", for the cursor store's
/// guard and the instances' fence.
fn holds(
    elections: &Arc<HashMap<String, Arc<RunningElection>>>,
) -> Arc<dyn Fn(&str) -> bool + Send + Sync> {
    let elections = elections.clone();
    Arc::new(move |destination: &str| {
        elections
            .get(destination)
            .is_some_and(|election| election.is_running())
    })
}

/// Runs `destination` while `election` holds it; see the module documentation.
async fn supervise(
    manager: Arc<InstanceManager>,
    election: Arc<RunningElection>,
    cursors: Arc<Cursors>,
    destination: String,
    mut stop: watch::Receiver<bool>,
) {
    let mut role = election.subscribe();
    let mut tick = tokio::time::interval(FENCE_CHECK_PERIOD);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut started = false;
    let mut retry_at: Option<tokio::time::Instant> = None;
    loop {
        if *stop.borrow() {
            break;
        }
        let running = election.is_running();
        if running && !started {
            let due = match retry_at {
                Some(at) => tokio::time::Instant::now() >= at,
                None => true,
            };
            if due {
                match manager.start(&destination) {
                    Ok(()) => {
                        started = true;
                        retry_at = None;
                        tracing::info!(%destination, "this server runs the destination");
                    }
                    Err(error) => {
                        tracing::error!(%destination, %error, "cannot start the destination; retrying");
                        retry_at = Some(tokio::time::Instant::now() + START_RETRY);
                    }
                }
            }
        } else if running && started && manager.state(&destination) == Some(InstanceState::Stopped)
        {
            // The instance ended while we hold the destination: the fence
            // refused it during a short loss of the lease that the role
            // never showed, or it failed for good. Start it again shortly.
            manager.stop(&destination).await;
            started = false;
            retry_at = Some(tokio::time::Instant::now() + START_RETRY);
            tracing::warn!(%destination, "the instance ended; starting it again");
        } else if !running && started {
            manager.stop(&destination).await;
            cursors.discard(&destination);
            started = false;
            tracing::warn!(%destination, "no longer running the destination here: instance stopped");
        }
        tokio::select! {
            changed = role.changed() => {
                if changed.is_err() {
                    // The election ended: only the periodic check is left.
                    tick.tick().await;
                }
            }
            _ = tick.tick() => {}
            _ = stop.changed() => {}
        }
    }
    if started {
        manager.stop(&destination).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(properties: &str) -> ServerConfig {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("canal.properties"), properties).unwrap();
        ServerConfig::load(dir.path()).unwrap()
    }

    #[test]
    fn the_registered_address_prefers_register_ip_then_ip() {
        assert_eq!(
            register_address(&server("canal.port = 11121\n")),
            "127.0.0.1:11121"
        );
        assert_eq!(
            register_address(&server("canal.ip = 10.0.0.5\n")),
            "10.0.0.5:11111"
        );
        assert_eq!(
            register_address(&server(
                "canal.ip = 0.0.0.0\ncanal.register.ip = 10.0.0.6\ncanal.port = 2000\n"
            )),
            "10.0.0.6:2000"
        );
    }
}
