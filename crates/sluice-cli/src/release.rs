//! `sluice release DEST`: moves a destination off the server that runs it,
//! the way Canal's servers understand it: the `running` node is rewritten
//! with `active:false`; its owner stops, deletes the node and stays out for
//! its HA delay, so a standby takes the destination at once. Works on Sluice
//! and Canal servers alike.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use sluice_ha::paths;
use sluice_ha::zookeeper_client::{self, Client};
use sluice_ha::{ServerRunningData, ZkAuth};

#[derive(Args)]
pub struct ReleaseArgs {
    /// The destination to move.
    pub destination: String,
    /// ZooKeeper servers (`host:port,…`); by default `canal.zkServers` of
    /// `--conf` (and its `sluice.zookeeper.auth`). ZooKeeper credentials
    /// may also come from SLUICE_ZOOKEEPER_AUTH.
    #[arg(long)]
    pub zk: Option<String>,
    /// The configuration folder whose `canal.properties` names ZooKeeper.
    #[arg(long, default_value = "conf")]
    pub conf: PathBuf,
    /// How long to wait for another server to take the destination, in seconds.
    #[arg(long, default_value_t = 30)]
    pub wait: u64,
}

pub fn run(args: &ReleaseArgs) -> Result<()> {
    crate::tail::init_logging();
    let (zk_servers, auth) = match &args.zk {
        Some(zk) => (zk.clone(), crate::ha::zk_auth(None)?),
        None => {
            let server = sluice_config::ServerConfig::load(&args.conf).with_context(|| {
                format!(
                    "reading {} for canal.zkServers (or give --zk)",
                    args.conf.display()
                )
            })?;
            if server.zk_servers.trim().is_empty() {
                bail!(
                    "canal.zkServers is not set in {}: give --zk host:port",
                    args.conf.display()
                );
            }
            let auth = crate::ha::zk_auth(Some(&server))?;
            (server.zk_servers, auth)
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(release(
        &zk_servers,
        auth.as_ref(),
        &args.destination,
        Duration::from_secs(args.wait),
    ))
}

async fn release(
    zk_servers: &str,
    auth: Option<&ZkAuth>,
    destination: &str,
    wait: Duration,
) -> Result<()> {
    paths::check_node_name("destination", destination)?;
    let path = paths::destination_running(destination);
    let mut connector = Client::connector();
    if let Some(auth) = auth {
        // The running node of servers with credentials is theirs to change.
        connector = connector.with_auth(auth.scheme(), auth.credentials());
    }
    let zk = tokio::time::timeout(Duration::from_secs(15), connector.connect(zk_servers))
        .await
        .map_err(|_| anyhow::anyhow!("no answer from ZooKeeper at {zk_servers} within 15 s"))?
        .with_context(|| format!("connecting to ZooKeeper at {zk_servers}"))?;
    let (owner, version) = match zk.get_data(&path).await {
        Ok((data, stat)) => {
            let owner = ServerRunningData::from_json(&data).with_context(|| {
                format!(
                    "{path} holds {:?}, not a running server's JSON",
                    String::from_utf8_lossy(&data)
                )
            })?;
            (owner, stat.version)
        }
        Err(zookeeper_client::Error::NoNode) => {
            bail!("no server runs {destination} ({path} does not exist)")
        }
        Err(e) => bail!("reading {path}: {e}"),
    };
    if !owner.active {
        bail!("{} is already releasing {destination}", owner.address);
    }
    let released = ServerRunningData {
        active: false,
        ..owner.clone()
    };
    let asked = Instant::now();
    match zk.set_data(&path, &released.to_json(), Some(version)).await {
        Ok(_) => {}
        Err(zookeeper_client::Error::NoNode) | Err(zookeeper_client::Error::BadVersion) => {
            bail!("{path} changed while releasing it; look again and retry")
        }
        Err(zookeeper_client::Error::NoAuth) => bail!(
            "writing {path}: not authorized: the servers protect their nodes with ZooKeeper credentials; give the same ones (sluice.zookeeper.auth in --conf's canal.properties, or {})",
            crate::ha::ZK_AUTH_ENV
        ),
        Err(e) => bail!("writing {path}: {e}"),
    }
    println!("asked {} to release {destination}", owner.address);
    let deadline = asked + wait;
    loop {
        match zk.get_data(&path).await {
            Ok((data, _)) => {
                if let Ok(now) = ServerRunningData::from_json(&data) {
                    if now.active && now.address != owner.address {
                        println!(
                            "{destination} now runs on {} ({} ms after the release)",
                            now.address,
                            asked.elapsed().as_millis()
                        );
                        return Ok(());
                    }
                    if now.active && now.address == owner.address {
                        bail!(
                            "no other server took {destination}: {} runs it again",
                            owner.address
                        );
                    }
                }
            }
            Err(zookeeper_client::Error::NoNode) => {}
            Err(e) => bail!("reading {path}: {e}"),
        }
        if Instant::now() >= deadline {
            bail!(
                "no server took {destination} within {} s after {} released it",
                wait.as_secs(),
                owner.address
            );
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
