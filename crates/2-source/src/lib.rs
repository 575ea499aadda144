//! Sluice's replication source: follows a live MySQL or MariaDB server the
//! way a replica does and hands out its binlog events, decoded, with
//! positions that survive reconnects.
//!
//! Layers, bottom up — pure protocol first, then I/O:
//! [`packet`] (framing) → [`handshake`] (greeting, capabilities) → [`auth`]
//! (password scrambles) → [`tls`] (rustls per sslMode) → [`conn`] (a tokio
//! connection: TLS upgrade, authentication, packets, text queries) →
//! [`replica`] (checks, replica session, dump commands) → [`stream`]
//! ([`BinlogStream`]: events, transaction boundaries, reconnects).
//! [`position`] holds start and resume positions and GTID sets; [`config`]
//! the settings and their URL form.
//!
//! ```no_run
//! use sluice_source::{BinlogStream, SourceConfig, StreamItem};
//!
//! # async fn demo() -> Result<(), sluice_source::SourceError> {
//! let config = SourceConfig::from_url("mysql://repl:secret@db:3306?sslMode=REQUIRED")?
//!     .starting_at("binlog.000042:4".parse().map_err(sluice_source::SourceError::Config)?);
//! let mut stream = BinlogStream::connect(config).await?;
//! while let Some(item) = stream.next().await? {
//!     match item {
//!         StreamItem::Event(ev) => {
//!             if let Some(end) = ev.ends_transaction {
//!                 println!("committed; resume from {end}");
//!             }
//!         }
//!         StreamItem::TransactionAborted { .. } => { /* drop the partial transaction */ }
//!     }
//! }
//! # Ok(())
//! # }
//! ```

pub mod auth;
pub mod config;
pub mod conn;
pub mod error;
pub mod failover;
pub mod handshake;
pub mod packet;
pub mod password;
pub mod position;
pub mod replica;
pub mod stream;
pub mod tls;

pub use auth::AuthPlugin;
pub use config::{ConnectGate, ReconnectPolicy, SourceConfig};
pub use conn::{Conn, ConnectOptions, PendingRows, RawResultSet, RawRow, ResultSet};
pub use error::SourceError;
pub use failover::FailoverPolicy;
pub use position::{GtidState, MariadbGtidState, ResumePosition, StartPosition};
pub use replica::{RowImages, ServerInfo, AUTO_SERVER_ID_RANGE};
pub use stream::{BinlogStream, Event, OwnedRowsEvent, StreamItem};
pub use tls::{SslMode, TlsOptions};
