//! Moving a destination off the server that runs it, the way Canal's
//! servers understand it: the `running` node is rewritten with
//! `active:false`; its owner stops, deletes the node and stays out for its
//! HA delay, so a standby takes the destination at once. Works on Sluice and
//! Canal servers alike.

use std::time::{Duration, Instant};

use sluice_ha::paths;
use sluice_ha::zookeeper_client::{self, Client};
use sluice_ha::{ServerRunningData, ZkAuth};

use crate::ServerError;

/// How long [`release`] waits for a ZooKeeper session.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// How often [`Release::taken_over`] looks at the `running` node.
const POLL_PERIOD: Duration = Duration::from_millis(20);

/// A release that was asked: the owner has been told to let the
/// destination go. [`taken_over`](Self::taken_over) waits for another
/// server to take it.
pub struct Release {
    zk: Client,
    path: String,
    destination: String,
    owner: String,
    asked: Instant,
}

/// The server that took a released destination over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TakenOver {
    /// Its registered address (`ip:port`).
    pub address: String,
    /// The time from the release to the take-over.
    pub after: Duration,
}

/// Asks the server that runs `destination` to release it: connects to
/// ZooKeeper at `zk_servers` (with `auth`, needed where the servers protect
/// their nodes with credentials) and marks the destination's `running` node
/// inactive. Refused when no other server is registered for the
/// destination (it would only stop for the HA delay and come back on the
/// same server), unless `force`.
pub async fn release(
    zk_servers: &str,
    auth: Option<&ZkAuth>,
    destination: &str,
    force: bool,
) -> Result<Release, ServerError> {
    paths::check_node_name("destination", destination)?;
    let path = paths::destination_running(destination);
    let mut connector = Client::connector();
    if let Some(auth) = auth {
        // The running node of servers with credentials is theirs to change.
        connector = connector.with_auth(auth.scheme(), auth.credentials());
    }
    let zk = tokio::time::timeout(CONNECT_TIMEOUT, connector.connect(zk_servers))
        .await
        .map_err(|_| ServerError::ZooKeeperNoAnswer {
            servers: zk_servers.to_string(),
        })?
        .map_err(|source| ServerError::ZooKeeperClient {
            servers: zk_servers.to_string(),
            source,
        })?;
    let (owner, version) = match zk.get_data(&path).await {
        Ok((data, stat)) => {
            let owner = ServerRunningData::from_json(&data).map_err(|source| {
                ServerError::NotRunningData {
                    path: path.clone(),
                    data: String::from_utf8_lossy(&data).into_owned(),
                    source,
                }
            })?;
            (owner, stat.version)
        }
        Err(zookeeper_client::Error::NoNode) => {
            return Err(ServerError::NotRunning {
                destination: destination.to_string(),
                path,
            })
        }
        Err(source) => return Err(zk_op("reading", &path, source)),
    };
    if !owner.active {
        return Err(ServerError::AlreadyReleasing {
            owner: owner.address,
            destination: destination.to_string(),
        });
    }
    if !force {
        let cluster = paths::destination_cluster(destination);
        let servers = sluice_ha::registry::list_destination_servers(&zk, destination)
            .await
            .map_err(|source| ServerError::ZooKeeperConnect {
                servers: zk_servers.to_string(),
                source,
            })?;
        if !servers.iter().any(|s| *s != owner.address) {
            return Err(ServerError::NoStandby {
                destination: destination.to_string(),
                owner: owner.address,
                path: cluster,
            });
        }
    }
    let released = ServerRunningData {
        active: false,
        ..owner.clone()
    };
    let asked = Instant::now();
    match zk.set_data(&path, &released.to_json(), Some(version)).await {
        Ok(_) => {}
        Err(zookeeper_client::Error::NoNode) | Err(zookeeper_client::Error::BadVersion) => {
            return Err(ServerError::ReleaseRace { path })
        }
        Err(zookeeper_client::Error::NoAuth) => return Err(ServerError::NotAuthorized { path }),
        Err(source) => return Err(zk_op("writing", &path, source)),
    }
    Ok(Release {
        zk,
        path,
        destination: destination.to_string(),
        owner: owner.address,
        asked,
    })
}

impl std::fmt::Debug for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Release")
            .field("destination", &self.destination)
            .field("owner", &self.owner)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Release {
    /// The server that was asked to release the destination.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// Waits up to `wait` for another server to run the destination. Fails
    /// when the owner takes it back (no standby) or nobody takes it in time.
    pub async fn taken_over(self, wait: Duration) -> Result<TakenOver, ServerError> {
        let deadline = self.asked + wait;
        loop {
            match self.zk.get_data(&self.path).await {
                Ok((data, _)) => {
                    if let Ok(now) = ServerRunningData::from_json(&data) {
                        if now.active && now.address != self.owner {
                            return Ok(TakenOver {
                                address: now.address,
                                after: self.asked.elapsed(),
                            });
                        }
                        if now.active && now.address == self.owner {
                            return Err(ServerError::TakenBack {
                                destination: self.destination,
                                owner: self.owner,
                            });
                        }
                    }
                }
                Err(zookeeper_client::Error::NoNode) => {}
                Err(source) => return Err(zk_op("reading", &self.path, source)),
            }
            if Instant::now() >= deadline {
                return Err(ServerError::NotTakenOver {
                    destination: self.destination,
                    owner: self.owner,
                    wait,
                });
            }
            tokio::time::sleep(POLL_PERIOD).await;
        }
    }
}

fn zk_op(op: &'static str, path: &str, source: zookeeper_client::Error) -> ServerError {
    ServerError::ZooKeeperOp {
        op,
        path: path.to_string(),
        source,
    }
}
