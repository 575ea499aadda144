//! `sluice server --conf DIR`: runs every destination configured in a Canal
//! configuration folder and serves them to Canal clients over TCP, until
//! SIGINT or SIGTERM (see [`sluice_server::Server`]).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use sluice_server::Server;

#[derive(Args)]
pub struct ServerArgs {
    /// The configuration folder: `canal.properties` and one folder per
    /// destination holding its `instance.properties`.
    #[arg(long, default_value = "conf")]
    pub conf: PathBuf,
    #[command(flatten)]
    pub log: crate::logging::LogArgs,
}

pub fn run(args: &ServerArgs) -> Result<()> {
    let _log_guard = crate::logging::init(&args.log)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let mut config = sluice_server::load_config(&args.conf)?;
        config.log_files = args.log.files();
        Server::run_until(config, shutdown_signal()).await?;
        Ok(())
    })
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
