//! The Sluice server as a library: given a Canal configuration folder
//! (`canal.properties` and one folder per destination), it runs the
//! destinations with their cursor and schema history stores, their high
//! availability in ZooKeeper when `canal.zkServers` is set, and serves them
//! to Canal clients over TCP, or publishes them to Kafka in MQ mode
//! (`canal.serverMode = kafka`). `sluice server` is a thin shell around it.
//!
//! ```no_run
//! use sluice_server::Server;
//!
//! # async fn embed() -> Result<(), sluice_server::ServerError> {
//! let config = sluice_server::load_config("conf")?;
//! let server = Server::start(config).await?; // locks, binds, starts
//! if let Some(addr) = server.local_addr() {
//!     println!("Canal clients connect to {addr}");
//! }
//! // … until the program is done:
//! server.shutdown().await?; // the orderly stop of SIGTERM
//! # Ok(())
//! # }
//! ```
//!
//! [`Server::run_until`] does both around a future (a signal, a channel),
//! and [`release`] moves a destination off the server that runs it in a
//! ZooKeeper cluster. [`change_stream::open`] embeds a single destination
//! instead: its change events, in any output of [`encode`] (Debezium JSON,
//! Canal entries, FlatMessage, `sluice tail` lines) or a program's own
//! [`events::Encoder`].

mod admin_api;
pub mod admin_api_client;
mod canal_admin_config;
mod canal_admin_port;
pub mod change_stream;
mod commands;
mod destination_task;
mod error;
mod ha;
pub mod logs;
mod memory;
mod metrics;
mod mq;
mod percent;
mod release;
mod server;
mod sink;

use std::path::Path;

pub use admin_api::OPENAPI as ADMIN_OPENAPI;
pub use error::ServerError;
pub use ha::{register_address, zk_auth, zk_config, FENCE_CHECK_PERIOD, ZK_AUTH_ENV};
pub use memory::keep_freed_memory;
pub use release::{release, Release, TakenOver};
pub use server::Server;
pub use sluice_config::{LogFiles, LogLayout, ServerConfig, ZooKeeperConfig};
/// The encoders of the change-event model.
pub use sluice_encode as encode;
/// The change-event model every output is encoded from.
pub use sluice_events as events;
pub use sluice_ha::ZkAuth;
pub use sluice_instance::manager::InstanceState;

/// Reads the configuration folder `dir`: `canal.properties` and what it
/// names.
pub fn load_config(dir: impl AsRef<Path>) -> Result<ServerConfig, ServerError> {
    let dir = dir.as_ref();
    ServerConfig::load(dir).map_err(|source| ServerError::Config {
        dir: dir.to_path_buf(),
        source: Box::new(source),
    })
}
