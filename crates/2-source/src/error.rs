//! The errors of the replication source. Each says what went wrong, where
//! (the server's address, and the binlog file:position when there is one) and
//! what to do about it, and knows whether a reconnect may cure it.
//!
//! Owns: error kinds and their messages. Must never: hide the server's own
//! error text, or include a password.

use std::time::Duration;

use thiserror::Error;

/// MySQL/MariaDB server error codes Sluice acts on.
pub mod codes {
    /// ER_ACCESS_DENIED_ERROR.
    pub const ACCESS_DENIED: u16 = 1045;
    /// ER_BAD_DB_ERROR: "Unknown database".
    pub const BAD_DB: u16 = 1049;
    /// ER_DBACCESS_DENIED_ERROR: the account may not use that database.
    pub const DB_ACCESS_DENIED: u16 = 1044;
    /// ER_SERVER_SHUTDOWN: "Server shutdown in progress".
    pub const SERVER_SHUTDOWN: u16 = 1053;
    /// ER_QUERY_INTERRUPTED.
    pub const QUERY_INTERRUPTED: u16 = 1317;
    /// ER_MASTER_FATAL_ERROR_READING_BINLOG: purged or missing position, among others.
    pub const FATAL_READING_BINLOG: u16 = 1236;
    /// ER_CONNECTION_KILLED (MariaDB).
    pub const CONNECTION_KILLED: u16 = 1927;
    /// ER_CON_COUNT_ERROR: too many connections.
    pub const TOO_MANY_CONNECTIONS: u16 = 1040;
    /// ER_NET_READ_INTERRUPTED / ER_NET_WRITE_INTERRUPTED.
    pub const NET_READ_INTERRUPTED: u16 = 1159;
    pub const NET_WRITE_INTERRUPTED: u16 = 1161;
}

#[derive(Debug, Error)]
pub enum SourceError {
    #[error("invalid source configuration: {0}")]
    Config(String),

    /// The connect gate refused (see `SourceConfig::connect_gate`).
    #[error("not connecting to {addr}: this process may no longer read it (the connect gate refused, e.g. another server took the destination over)")]
    Refused { addr: String },

    /// Another server answers at the source's address (its server id
    /// changed), and it has not logged every transaction already read.
    #[error("{addr} is now another server (server_id {was} before, {now} now), and it cannot take over yet: {detail}; waiting until it has every transaction already read")]
    NotCaughtUp {
        addr: String,
        was: u32,
        now: u32,
        detail: String,
    },

    #[error("cannot connect to {addr}: {source}; check that the server runs and that host and port are right")]
    Connect {
        addr: String,
        #[source]
        source: std::io::Error,
    },

    #[error("connecting to {addr} timed out after {timeout:?}; check the address and any firewall between")]
    ConnectTimeout { addr: String, timeout: Duration },

    #[error("I/O error on the connection to {addr} ({during}): {source}")]
    Io {
        addr: String,
        during: &'static str,
        #[source]
        source: std::io::Error,
    },

    #[error("no data from {addr} for {timeout:?} ({during}): the connection is considered dead (heartbeats are requested every {heartbeat:?})")]
    ReadTimeout {
        addr: String,
        during: &'static str,
        timeout: Duration,
        heartbeat: Duration,
    },

    #[error("{addr} closed the connection ({during})")]
    Closed { addr: String, during: &'static str },

    #[error("protocol error from {addr} ({during}): {detail}")]
    Protocol {
        addr: String,
        during: &'static str,
        detail: String,
    },

    #[error("{addr} answered error {code}{state} ({during}): {message}")]
    Server {
        addr: String,
        during: String,
        code: u16,
        /// ` [SQLSTATE]` or empty.
        state: String,
        message: String,
    },

    #[error("authentication of user '{user}' at {addr} failed: {message}")]
    Auth {
        addr: String,
        user: String,
        message: String,
    },

    #[error("TLS to {addr}: {detail}")]
    Tls { addr: String, detail: String },

    #[error("{addr}: {setting} is {actual}, but Sluice needs {expected}. Fix: {fix}")]
    Misconfigured {
        addr: String,
        setting: &'static str,
        actual: String,
        expected: String,
        fix: String,
    },

    #[error("{addr}: the binlog position {requested} is no longer on the server (its binlog files were purged, or never existed): the oldest position still available is {oldest}. Restart from there (--from earliest) or from a newer position; changes in between cannot be read from this server. Server said: {server_message}")]
    PositionPurged {
        addr: String,
        requested: String,
        oldest: String,
        server_message: String,
    },

    #[error("{addr}: cannot start at {requested}: {detail}")]
    InvalidStart {
        addr: String,
        requested: String,
        detail: String,
    },

    #[error("{addr}: {file}:{pos}: {event}: {error}")]
    Decode {
        addr: String,
        file: String,
        pos: u64,
        event: &'static str,
        #[source]
        error: sluice_binlog::DecodeError,
    },

    #[error("{addr}: gave up after {attempts} reconnect attempts; last error: {last}")]
    ReconnectsExhausted {
        addr: String,
        attempts: u32,
        #[source]
        last: Box<SourceError>,
    },
}

impl SourceError {
    /// The server at `addr` answered `e` while doing `during`.
    pub(crate) fn server(
        addr: String,
        during: impl Into<String>,
        e: crate::handshake::ErrPacket,
    ) -> Self {
        SourceError::Server {
            addr,
            during: during.into(),
            code: e.code,
            state: if e.state.is_empty() {
                String::new()
            } else {
                format!(" [{}]", e.state)
            },
            message: e.message,
        }
    }

    /// Whether reconnecting (and resuming) may cure this error: lost
    /// connections, timeouts, a server shutting down or killing the session.
    /// Configuration, authentication, purged positions and corrupt events are
    /// not retried.
    pub fn is_transient(&self) -> bool {
        match self {
            SourceError::Connect { .. }
            | SourceError::ConnectTimeout { .. }
            | SourceError::Io { .. }
            | SourceError::ReadTimeout { .. }
            | SourceError::Closed { .. }
            | SourceError::NotCaughtUp { .. } => true,
            SourceError::Server { code, message, .. } => {
                matches!(
                    *code,
                    codes::SERVER_SHUTDOWN
                        | codes::QUERY_INTERRUPTED
                        | codes::CONNECTION_KILLED
                        | codes::TOO_MANY_CONNECTIONS
                        | codes::NET_READ_INTERRUPTED
                        | codes::NET_WRITE_INTERRUPTED
                ) || (*code == codes::FATAL_READING_BINLOG && is_transient_1236(message))
            }
            _ => false,
        }
    }

    /// The server error code, if the server sent one.
    pub fn server_code(&self) -> Option<u16> {
        match self {
            SourceError::Server { code, .. } => Some(*code),
            _ => None,
        }
    }
}

/// Error 1236 covers both "your position is gone" and passing conditions
/// (a newer server with the same replica id took over, an event that is
/// still being written). Only the latter are worth a reconnect.
fn is_transient_1236(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("same server_uuid/server_id")
        || m.contains("same server_id")
        || m.contains("binlog truncated in the middle of event")
}

/// Whether a 1236 message says the requested position no longer exists.
pub(crate) fn is_purged_message(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("could not find first log file name in binary log index file")
        || m.contains("could not find gtid state requested by slave")
        || m.contains("purged")
        || m.contains("could not open log file")
        || m.contains("requested by the slave is no longer available")
        || (m.contains("gtid") && m.contains("not found in the binlog"))
}

pub type Result<T, E = SourceError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    fn server(code: u16, message: &str) -> SourceError {
        SourceError::Server {
            addr: "h:1".into(),
            during: "binlog dump".into(),
            code,
            state: String::new(),
            message: message.into(),
        }
    }

    #[test]
    fn transient_classification() {
        assert!(server(codes::SERVER_SHUTDOWN, "Server shutdown in progress").is_transient());
        assert!(server(codes::CONNECTION_KILLED, "Connection was killed").is_transient());
        assert!(!server(codes::ACCESS_DENIED, "Access denied").is_transient());
        assert!(!server(
            codes::FATAL_READING_BINLOG,
            "Could not find first log file name in binary log index file"
        )
        .is_transient());
        assert!(server(
            codes::FATAL_READING_BINLOG,
            "A slave with the same server_uuid/server_id as this slave has connected to the master"
        )
        .is_transient());
        assert!(SourceError::Closed {
            addr: "h:1".into(),
            during: "x"
        }
        .is_transient());
        assert!(!SourceError::Config("x".into()).is_transient());
    }

    #[test]
    fn purged_messages() {
        assert!(is_purged_message(
            "Could not find first log file name in binary log index file"
        ));
        assert!(is_purged_message("Error: connecting slave requested to start from GTID 0-1-5, which is not in the master's binlog. Could not find GTID state requested by slave in any binlog files. Probably the slave state is too old and required binlog files have been purged."));
        assert!(is_purged_message("Cannot replicate because the master purged required binary logs. Replicate the missing transactions from elsewhere"));
        assert!(!is_purged_message(
            "Client requested master to start replication from position > file size"
        ));
    }
}
