//! `sluice release DEST`: moves a destination off the server that runs it
//! in a ZooKeeper cluster; a standby takes it over (see
//! [`sluice_server::release`]).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;

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
    /// Release even when no other server is registered for the destination
    /// (it stops for the HA delay, then its owner takes it back).
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: &ReleaseArgs) -> Result<()> {
    let _log_guard = crate::logging::init(&Default::default())?;
    let (zk_servers, auth) = match &args.zk {
        Some(zk) => (zk.clone(), sluice_server::zk_auth(None)?),
        None => {
            let server = sluice_server::ServerConfig::load(&args.conf).with_context(|| {
                format!(
                    "reading {} for canal.zkServers (or give --zk)",
                    args.conf.display()
                )
            })?;
            if server.zookeeper.servers.trim().is_empty() {
                bail!(
                    "canal.zkServers is not set in {}: give --zk host:port",
                    args.conf.display()
                );
            }
            let auth = sluice_server::zk_auth(Some(&server.zookeeper))?;
            (server.zookeeper.servers, auth)
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let release =
            sluice_server::release(&zk_servers, auth.as_ref(), &args.destination, args.force)
                .await?;
        println!("asked {} to release {}", release.owner(), args.destination);
        let taken = release.taken_over(Duration::from_secs(args.wait)).await?;
        println!(
            "{} now runs on {} ({} ms after the release)",
            args.destination,
            taken.address,
            taken.after.as_millis()
        );
        Ok(())
    })
}
