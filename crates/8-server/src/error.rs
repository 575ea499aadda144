//! What can stop a server from starting, running or releasing a destination.

use std::path::PathBuf;

use sluice_config::{ConfigError, ServerMode};
use sluice_ha::zookeeper_client;
use sluice_ha::{HaError, InvalidName};
use sluice_meta::LockError;
use sluice_serve_tcp::StartError;

use crate::ha::ZK_AUTH_ENV;

/// Why the server (or `release`) failed. Each message says what failed and,
/// where there is one, what to do; the underlying error is its
/// [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The configuration folder could not be read.
    #[error("reading the configuration in {}", dir.display())]
    Config {
        dir: PathBuf,
        #[source]
        source: Box<ConfigError>,
    },
    /// `canal.serverMode` names a broker this server has no client for.
    #[error("{at}: canal.serverMode = {}: Sluice has no {} client; publish to Kafka (canal.serverMode = kafka), RabbitMQ (rabbitMQ), Redis streams (redis) or NATS JetStream (nats), or serve Canal clients (tcp)", mode_name(*mode), mode_name(*mode))]
    UnsupportedServerMode {
        mode: ServerMode,
        /// `canal.properties:line` of the key.
        at: String,
    },
    /// The Kafka settings of `canal.properties` cannot be used.
    #[error(transparent)]
    Kafka(sluice_serve_mq::KafkaConfigError),
    /// The relational sink's configuration (canal-adapter's files or
    /// `sluice.sink.*`) cannot be used.
    #[error(transparent)]
    SinkConfig(sluice_sink_rdb::AdapterConfigError),
    /// Another process holds the data folder.
    #[error(transparent)]
    DataFolderLocked(#[from] LockError),
    /// The Canal TCP server could not start (address in use, bad credentials…).
    #[error("starting the Canal TCP server")]
    Tcp(#[source] StartError),
    /// The bound socket has no address.
    #[error("reading the listening address")]
    LocalAddr(#[source] std::io::Error),
    /// The admin API's port could not be bound.
    #[error("{at}: cannot listen for the admin API (sluice.admin.http.host/port) on {addr}; choose a free port or remove sluice.admin.http.port")]
    AdminBind {
        addr: String,
        /// The canal.properties that sets it.
        at: String,
        #[source]
        source: std::io::Error,
    },
    /// Canal's admin port could not be bound.
    #[error("{at}: cannot listen for canal-admin (canal.ip/canal.admin.port) on {addr}; choose a free port or remove canal.admin.port")]
    AdminTcpBind {
        addr: String,
        /// The canal.properties that sets it.
        at: String,
        #[source]
        source: std::io::Error,
    },
    /// `canal.admin.user` / `canal.admin.passwd` cannot be used.
    #[error("{at}: canal.admin.user / canal.admin.passwd")]
    AdminTcpAuth {
        at: String,
        #[source]
        source: sluice_serve_tcp::AuthConfigError,
    },
    /// The Canal TCP server stopped with an error.
    #[error("the Canal TCP server failed")]
    TcpServe(#[source] std::io::Error),
    /// A task of the server panicked or was cancelled.
    #[error("the {what} failed")]
    Task {
        what: &'static str,
        #[source]
        source: tokio::task::JoinError,
    },
    /// The configuration could not be had from canal-admin
    /// (`canal.admin.manager`), nor from the copy kept of it.
    #[error("{0}")]
    CanalAdmin(String),
    /// ZooKeeper meta is selected without ZooKeeper servers.
    #[error("canal.instance.global.spring.xml selects ZooKeeper meta (default-instance.xml) but canal.zkServers is empty")]
    ZooKeeperMetaWithoutServers,
    /// ZooKeeper credentials given twice.
    #[error("ZooKeeper credentials are given both in canal.properties (sluice.zookeeper.auth or .auth.file) and in {ZK_AUTH_ENV}: keep one")]
    ZooKeeperAuthTwice,
    /// An embedded destination's change stream could not open or stopped
    /// (its message names the destination or the file:position).
    #[error(transparent)]
    Stream(#[from] sluice_instance::stream::StreamError),
    /// The credentials variable is not text.
    #[error("{ZK_AUTH_ENV} is not valid UTF-8")]
    ZooKeeperAuthNotUtf8,
    /// The credentials are not `scheme:credentials`. The reason never
    /// repeats the credentials.
    #[error("{origin}: {reason}")]
    ZooKeeperAuth {
        origin: &'static str,
        reason: String,
    },
    /// No ZooKeeper session could be opened.
    #[error("connecting to ZooKeeper at {servers}")]
    ZooKeeperConnect {
        servers: String,
        #[source]
        source: HaError,
    },
    /// `release` got no session within its connect timeout.
    #[error("no answer from ZooKeeper at {servers} within 15 s")]
    ZooKeeperNoAnswer { servers: String },
    /// `release` could not connect.
    #[error("connecting to ZooKeeper at {servers}")]
    ZooKeeperClient {
        servers: String,
        #[source]
        source: zookeeper_client::Error,
    },
    /// The server could not register itself.
    #[error("registering {address} in ZooKeeper")]
    Register {
        address: String,
        #[source]
        source: HaError,
    },
    /// The cursor store in ZooKeeper could not be opened.
    #[error("opening the cursor store in ZooKeeper")]
    CursorStore(#[source] HaError),
    /// The schema histories' session in ZooKeeper could not be opened.
    #[error("opening the schema history session in ZooKeeper")]
    SchemaHistory(#[source] HaError),
    /// A destination name that cannot be a ZooKeeper node.
    #[error(transparent)]
    InvalidName(#[from] InvalidName),
    /// A ZooKeeper read or write failed.
    #[error("{op} {path}")]
    ZooKeeperOp {
        op: &'static str,
        path: String,
        #[source]
        source: zookeeper_client::Error,
    },
    /// A `running` node that does not hold a running server's JSON.
    #[error("{path} holds {data:?}, not a running server's JSON")]
    NotRunningData {
        path: String,
        data: String,
        #[source]
        source: serde_json::Error,
    },
    /// No server runs the destination.
    #[error("no server runs {destination} ({path} does not exist)")]
    NotRunning { destination: String, path: String },
    /// No other server is registered for the destination.
    #[error("no other server can take {destination}: only its owner {owner} is registered under {path}; releasing it would stop it for the HA delay and start it again on {owner}. Start a standby server with the same destination first (or force the release)")]
    NoStandby {
        destination: String,
        owner: String,
        path: String,
    },
    /// The owner is already releasing the destination.
    #[error("{owner} is already releasing {destination}")]
    AlreadyReleasing { owner: String, destination: String },
    /// The `running` node changed between reading and writing it.
    #[error("{path} changed while releasing it; look again and retry")]
    ReleaseRace { path: String },
    /// The `running` node is protected by credentials this caller lacks.
    #[error("writing {path}: not authorized: the servers protect their nodes with ZooKeeper credentials; give the same ones (sluice.zookeeper.auth in --conf's canal.properties, or {ZK_AUTH_ENV})")]
    NotAuthorized { path: String },
    /// After a release, the owner took the destination back: no standby.
    #[error("no other server took {destination}: {owner} runs it again")]
    TakenBack { destination: String, owner: String },
    /// After a release, nobody took the destination in time.
    #[error("no server took {destination} within {} s after {owner} released it", wait.as_secs())]
    NotTakenOver {
        destination: String,
        owner: String,
        wait: std::time::Duration,
    },
}

/// An error and its sources, joined by ": ".
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(cause) = next {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        next = cause.source();
    }
    out
}

/// `canal.serverMode`'s spelling of a mode.
fn mode_name(mode: ServerMode) -> &'static str {
    match mode {
        ServerMode::Tcp => "tcp",
        ServerMode::Kafka => "kafka",
        ServerMode::RocketMq => "rocketMQ",
        ServerMode::RabbitMq => "rabbitMQ",
        ServerMode::PulsarMq => "pulsarMQ",
        ServerMode::Redis => "redis",
        ServerMode::Nats => "nats",
    }
}
