//! The server in a ZooKeeper cluster (`canal.zkServers` set): the
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
//!   `canal.zookeeper.flush.period`, and by default written through on every
//!   ack: `sluice.zookeeper.flush.onAck`), whose writes are guarded by the
//!   destination's election so a fenced server never overwrites the cursors
//!   of the one that took over.
//! - The schema history of every destination in ZooKeeper too
//!   (`/otter/canal/destinations/{dest}/schema-history`, see
//!   [`sluice_ha::schema_history`]), on one more session of its own shared
//!   by the destinations: the server that takes a destination over decodes
//!   with the history its previous owner wrote. Appends are guarded by the
//!   destination's election, like the cursors.
//!
//! The configuration scan (`canal.auto.scan`) adds and withdraws
//! destinations (registration, election, supervisor) and reloads changed
//! ones where they run; `canal.instance.global.lazy` starts with none.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use sluice_config::{ZooKeeperAcl, ZooKeeperConfig};
use sluice_ha::blocking::BlockingSession;
use sluice_ha::cursor_store::WriteGuard;
use sluice_ha::{
    ElectionConfig, NodeAcl, PeriodMixedCursorStore, RunningElection, ServerRegistry, ZkAuth,
    ZkConfig, ZkSession, ZooKeeperCursorStore, ZooKeeperHistoryStore,
};
use sluice_instance::manager::{HistoryStoreFactory, InstanceManager, InstanceState};
use sluice_instance::runner::Fence;
use sluice_meta::CursorStore;
use sluice_schema::SchemaHistoryStore;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::ServerError;

/// How often a supervisor re-checks that its election still holds, besides
/// reacting to role changes at once.
pub const FENCE_CHECK_PERIOD: Duration = Duration::from_millis(100);

/// Pause before starting an instance again after a failed start.
const START_RETRY: Duration = Duration::from_secs(1);

type Cursors = PeriodMixedCursorStore<ZooKeeperCursorStore>;

/// The address this server registers and writes in `running` nodes:
/// `canal.register.ip`, else `canal.ip`, else 127.0.0.1, with `canal.port`.
pub fn register_address(zookeeper: &ZooKeeperConfig) -> String {
    let ip = match zookeeper.register_ip.as_str() {
        "" => "127.0.0.1",
        ip => ip,
    };
    format!("{ip}:{}", zookeeper.port)
}

/// The environment variable that may hold the ZooKeeper credentials
/// (`scheme:credentials`) instead of `sluice.zookeeper.auth`.
pub const ZK_AUTH_ENV: &str = "SLUICE_ZOOKEEPER_AUTH";

/// The ZooKeeper credentials: `sluice.zookeeper.auth` or its file (in
/// `zookeeper`), or [`ZK_AUTH_ENV`]; giving both is an error. Errors never
/// repeat the credentials.
pub fn zk_auth(zookeeper: Option<&ZooKeeperConfig>) -> Result<Option<ZkAuth>, ServerError> {
    let configured = zookeeper.and_then(|z| z.auth.as_ref());
    let env = std::env::var_os(ZK_AUTH_ENV);
    let (text, origin) = match (configured, &env) {
        (Some(_), Some(_)) => return Err(ServerError::ZooKeeperAuthTwice),
        (Some(secret), None) => (secret.expose().to_string(), "sluice.zookeeper.auth"),
        (None, Some(value)) => (
            value
                .to_str()
                .ok_or(ServerError::ZooKeeperAuthNotUtf8)?
                .to_string(),
            ZK_AUTH_ENV,
        ),
        (None, None) => return Ok(None),
    };
    ZkAuth::parse(&text)
        .map(Some)
        .map_err(|reason| ServerError::ZooKeeperAuth { origin, reason })
}

/// The ZooKeeper settings of `zookeeper`: servers, session timeout,
/// credentials ([`zk_auth`]) and the ACL of the nodes it creates.
pub fn zk_config(zookeeper: &ZooKeeperConfig) -> Result<ZkConfig, ServerError> {
    let mut zk = ZkConfig::new(zookeeper.servers.clone())
        .with_session_timeout(zookeeper.session_timeout)
        .with_acl(match zookeeper.acl {
            ZooKeeperAcl::CreatorAllWorldRead => NodeAcl::CreatorAllWorldRead,
            ZooKeeperAcl::CreatorAll => NodeAcl::CreatorAll,
        });
    if let Some(auth) = zk_auth(Some(zookeeper))? {
        zk = zk.with_auth(auth);
    }
    Ok(zk)
}

/// The elections of this server, by destination.
type Elections = Arc<RwLock<HashMap<String, Arc<RunningElection>>>>;

/// A destination's supervisor task and the switch that ends it.
struct Supervisor {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

/// The ZooKeeper side of a server: session, registration, elections, the
/// election-guarded cursor store and the session of the schema histories.
pub(crate) struct HaServer {
    session: ZkSession,
    registry: ServerRegistry,
    elections: Elections,
    cursors: Arc<Cursors>,
    history: Arc<BlockingSession>,
    address: String,
    delay: Duration,
    supervisors: HashMap<String, Supervisor>,
}

impl HaServer {
    /// Connects to ZooKeeper, registers the server and opens the cursor
    /// store. Destinations are added by [`run`](Self::run).
    pub(crate) async fn start(zookeeper: &ZooKeeperConfig) -> Result<HaServer, ServerError> {
        let address = register_address(zookeeper);
        let zk = zk_config(zookeeper)?;
        let session = ZkSession::connect(zk.clone()).await.map_err(|source| {
            ServerError::ZooKeeperConnect {
                servers: zookeeper.servers.clone(),
                source,
            }
        })?;
        tracing::info!(
            servers = %zookeeper.servers,
            %address,
            session_timeout = ?session.session_timeout(),
            "ZooKeeper session open"
        );
        if session.session_timeout() != zookeeper.session_timeout {
            tracing::warn!(
                asked = ?zookeeper.session_timeout,
                granted = ?session.session_timeout(),
                "ZooKeeper granted another session timeout than canal.zookeeper.session.timeout (its minSessionTimeout..maxSessionTimeout)"
            );
        }
        if zookeeper.register_ip.is_empty() {
            tracing::warn!(
                %address,
                "neither canal.register.ip nor canal.ip is set: registering 127.0.0.1, which clients on other hosts cannot reach"
            );
        }
        let registry =
            ServerRegistry::start(&session, &address).map_err(|source| ServerError::Register {
                address: address.clone(),
                source,
            })?;
        let elections: Elections = Arc::new(RwLock::new(HashMap::new()));
        let guard: WriteGuard = holds(&elections);
        let period = zookeeper.flush_period;
        let cursors_zk = zk.clone();
        let cursors = tokio::task::spawn_blocking(move || {
            ZooKeeperCursorStore::connect(cursors_zk)
                .map(|store| PeriodMixedCursorStore::with_guard(store, period, guard))
        })
        .await
        .map_err(|source| ServerError::Task {
            what: "cursor store's start",
            source,
        })?
        .map_err(ServerError::CursorStore)?;
        // Each ack's cursor written before the next reply (see
        // `sluice.zookeeper.flush.onAck`); the period flush retries failures.
        cursors.set_write_through(zookeeper.flush_on_ack);
        let history =
            tokio::task::spawn_blocking(move || ZooKeeperHistoryStore::connect_session(zk))
                .await
                .map_err(|source| ServerError::Task {
                    what: "schema history session's start",
                    source,
                })?
                .map_err(ServerError::SchemaHistory)?;
        Ok(HaServer {
            session,
            registry,
            elections,
            cursors: Arc::new(cursors),
            history,
            address,
            delay: zookeeper.ha_delay,
            supervisors: HashMap::new(),
        })
    }

    /// The address registered for this server.
    pub(crate) fn address(&self) -> &str {
        &self.address
    }

    /// The fence the instance manager must use: "this server holds the
    /// destination right now", checked before each entry is published.
    pub(crate) fn fence(&self) -> Fence {
        holds(&self.elections)
    }

    /// The cursor store the instance manager must use.
    pub(crate) fn cursor_store(&self) -> Arc<dyn CursorStore> {
        self.cursors.clone()
    }

    /// The schema history stores the instance manager must use: each
    /// destination's in ZooKeeper, appending only while this server holds
    /// the destination.
    pub(crate) fn schema_history(&self) -> HistoryStoreFactory {
        let session = self.history.clone();
        let guard: WriteGuard = holds(&self.elections);
        Arc::new(move |destination: &str| {
            let store = ZooKeeperHistoryStore::new(session.clone(), destination)
                .map_err(|e| format!("schema history of {destination} in ZooKeeper: {e}"))?
                .with_guard(guard.clone());
            tracing::info!(
                destination,
                store = "zookeeper",
                node = %store.path(),
                "schema history"
            );
            Ok(Box::new(store) as Box<dyn SchemaHistoryStore>)
        })
    }

    /// Competes for every configured destination, running each in `manager`
    /// while this server holds it, until `stop` turns true. With
    /// `canal.auto.scan`, destinations whose `instance.properties` appear
    /// are added, vanished ones are withdrawn (stopped and released) and
    /// changed ones are reloaded where they run. Returns the server for
    /// [`shutdown`](Self::shutdown).
    pub(crate) async fn run(
        mut self,
        manager: Arc<InstanceManager>,
        mut stop: watch::Receiver<bool>,
    ) -> HaServer {
        let config = manager.config().clone();
        if !config.lazy {
            for d in config.discover() {
                self.add(&manager, &d);
            }
        }
        loop {
            if *stop.borrow() {
                return self;
            }
            if !config.auto_scan {
                if stop.changed().await.is_err() {
                    return self;
                }
                continue;
            }
            tokio::select! {
                _ = tokio::time::sleep(config.auto_scan_interval) => self.scan(&manager).await,
                changed = stop.changed() => {
                    if changed.is_err() {
                        return self;
                    }
                }
            }
        }
    }

    /// One pass of the configuration scan (see [`run`](Self::run)).
    async fn scan(&mut self, manager: &Arc<InstanceManager>) {
        let config = manager.config();
        let wanted: Vec<String> = config
            .discover()
            .into_iter()
            .filter(|d| config.instance_properties(d).is_file())
            .collect();
        let known: Vec<String> = self.supervisors.keys().cloned().collect();
        for d in known.iter().filter(|d| !wanted.contains(d)) {
            tracing::info!(destination = %d, "instance.properties is gone: withdrawing the destination");
            self.remove(manager, d).await;
        }
        for d in wanted.iter().filter(|d| !known.contains(d)) {
            tracing::info!(destination = %d, "new destination: competing for it");
            self.add(manager, d);
        }
        manager.reload_changed().await;
    }

    /// Registers `destination`, competes for it and supervises it.
    fn add(&mut self, manager: &Arc<InstanceManager>, destination: &str) {
        if self.supervisors.contains_key(destination) {
            return;
        }
        let config = match ElectionConfig::server(destination, &self.address) {
            Ok(c) => c.with_delay(self.delay),
            Err(error) => {
                tracing::error!(%destination, %error, "destination not started");
                return;
            }
        };
        if let Err(error) = self.registry.add_destination(destination) {
            tracing::error!(%destination, %error, "cannot register the destination");
            return;
        }
        let election = Arc::new(RunningElection::start(&self.session, config));
        write(&self.elections).insert(destination.to_string(), election.clone());
        let (stop, stop_rx) = watch::channel(false);
        let task = tokio::spawn(supervise(
            manager.clone(),
            election,
            self.cursors.clone(),
            destination.to_string(),
            stop_rx,
        ));
        self.supervisors
            .insert(destination.to_string(), Supervisor { stop, task });
    }

    /// Stops supervising `destination`: its instance stops, its cursors are
    /// written, the destination is released and its registration withdrawn.
    async fn remove(&mut self, manager: &Arc<InstanceManager>, destination: &str) {
        if let Some(s) = self.supervisors.remove(destination) {
            let _ = s.stop.send(true);
            let _ = s.task.await;
        }
        manager.stop(destination).await;
        if let Err(error) = self.cursors.flush(destination) {
            tracing::warn!(%destination, %error, "writing the last cursors to ZooKeeper");
        }
        let election = write(&self.elections).remove(destination);
        if let Some(election) = election {
            if let Err(error) = election.release().await {
                tracing::warn!(%destination, %error, "releasing the destination");
            }
            // Dropping the last handle stops competing.
        }
        self.cursors.discard(destination);
        if let Err(error) = self.registry.remove_destination(destination) {
            tracing::warn!(%destination, %error, "withdrawing the registration");
        }
    }

    /// Stops the instances (writing their cursors while the elections still
    /// hold), then releases the destinations so that a standby takes them
    /// at once, withdraws the registration and closes the session.
    pub(crate) async fn shutdown(mut self) {
        for s in self.supervisors.values() {
            let _ = s.stop.send(true);
        }
        for (_, s) in self.supervisors.drain() {
            let _ = s.task.await;
        }
        if let Err(e) = self.cursors.flush_all() {
            tracing::warn!(error = %e, "writing the last cursors to ZooKeeper");
        }
        let elections: Vec<(String, Arc<RunningElection>)> =
            write(&self.elections).drain().collect();
        for (destination, election) in elections {
            if let Err(e) = election.release().await {
                tracing::warn!(%destination, error = %e, "releasing the destination");
            }
        }
        self.registry.stop().await;
        self.session.close().await;
        // The cursor store and the schema histories' session close when the
        // last handles, the manager's and its instances', are dropped.
    }
}

fn write(
    elections: &Elections,
) -> std::sync::RwLockWriteGuard<'_, HashMap<String, Arc<RunningElection>>> {
    elections.write().unwrap_or_else(|p| p.into_inner())
}

/// "This server holds the destination right now", for the cursor store's
/// guard and the instances' fence.
fn holds(elections: &Elections) -> Arc<dyn Fn(&str) -> bool + Send + Sync> {
    let elections = elections.clone();
    Arc::new(move |destination: &str| {
        elections
            .read()
            .unwrap_or_else(|p| p.into_inner())
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

    fn server(properties: &str) -> ZooKeeperConfig {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("canal.properties"), properties).unwrap();
        sluice_config::ServerConfig::load(dir.path())
            .unwrap()
            .zookeeper
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

    #[test]
    fn bad_credentials_are_refused_without_repeating_them() {
        // The variable would make this a different error.
        if std::env::var_os(ZK_AUTH_ENV).is_some() {
            return;
        }
        let server =
            server("canal.zkServers = 127.0.0.1:2181\nsluice.zookeeper.auth = digest:S3cretOnly\n");
        let err = zk_config(&server).expect_err("bad credentials");
        assert!(
            matches!(
                err,
                ServerError::ZooKeeperAuth {
                    origin: "sluice.zookeeper.auth",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(!err.to_string().contains("S3cretOnly"), "{err}");
    }
}
