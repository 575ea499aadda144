//! The dump session: opening it (checks, session setup, the dump command),
//! its errors, losing it and the backoff before the next attempt.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::conn::Conn;
use crate::error::{codes, is_purged_message, Result, SourceError};
use crate::failover;
use crate::handshake::ErrPacket;
use crate::replica::{self, CheckOptions, ServerInfo, SessionOptions};

use super::state::is_gtid_era;
use super::{BinlogStream, ResumeBy};

impl BinlogStream {
    /// Maps an error packet of the dump to a clear error.
    pub(super) async fn dump_error(&mut self, e: ErrPacket) -> SourceError {
        let addr = self.st.addr.clone();
        if e.code == codes::FATAL_READING_BINLOG && is_purged_message(&e.message) {
            let oldest = match Conn::connect(&self.config.connect).await {
                Ok(mut c) => replica::oldest_available(&mut c)
                    .await
                    .unwrap_or_else(|err| format!("unknown ({err})")),
                Err(err) => format!("unknown ({err})"),
            };
            return SourceError::PositionPurged {
                addr,
                requested: self.dump_request_text(),
                oldest,
                server_message: e.message,
            };
        }
        let lower = e.message.to_ascii_lowercase();
        if e.code == codes::FATAL_READING_BINLOG
            && (lower.contains("position > file size") || lower.contains("impossible position"))
        {
            return SourceError::InvalidStart {
                addr,
                requested: self.dump_request_text(),
                detail: format!(
                    "the offset is past the end of the file or not where an event starts; use an offset from SHOW BINARY LOGS / SHOW MASTER STATUS or a position Sluice reported (server said: {})",
                    e.message
                ),
            };
        }
        if e.code == codes::FATAL_READING_BINLOG
            && lower.contains("which is not in the master's binlog")
        {
            return SourceError::InvalidStart {
                addr,
                requested: self.dump_request_text(),
                detail: format!(
                    "the GTID position is not in this server's binlog (ahead of it, or from another server's history); check @@gtid_binlog_pos on the server (server said: {})",
                    e.message
                ),
            };
        }
        SourceError::server(
            addr,
            format!("binlog dump from {}", self.dump_request_text()),
            e,
        )
    }

    fn dump_request_text(&self) -> String {
        match self.resume_by {
            ResumeBy::Gtid => match &self.st.gtid {
                Some(g) => format!("gtid:{g}"),
                None => self.requested.clone(),
            },
            ResumeBy::FilePos if self.started && !self.st.committed.at.file.is_empty() => {
                format!(
                    "{}:{}",
                    self.st.committed.at.file, self.st.committed.at.offset
                )
            }
            ResumeBy::FilePos => self.requested.clone(),
        }
    }

    /// The connection is gone: forget it and tell the consumer to drop a
    /// partly delivered transaction.
    pub(super) fn lost(&mut self, e: &SourceError) {
        self.conn = None;
        self.lost_since.get_or_insert_with(Instant::now);
        self.stash.clear();
        if self.st.in_txn && self.st.delivered_in_txn {
            self.pending_abort = true;
            self.abort_reason = e.to_string();
        }
        self.st.in_txn = false;
        self.st.payload = None;
    }

    pub(super) async fn backoff(&mut self, e: SourceError) -> Result<()> {
        self.attempts += 1;
        let policy = self.config.reconnect;
        if let Some(max) = policy.max_attempts {
            if self.attempts > max {
                return Err(SourceError::ReconnectsExhausted {
                    addr: self.st.addr.clone(),
                    attempts: self.attempts - 1,
                    last: Box::new(e),
                });
            }
        }
        let exp = policy
            .initial_backoff
            .saturating_mul(1u32 << (self.attempts - 1).min(20));
        let base = exp.min(policy.max_backoff);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let jitter = base / 4 * (nanos % 1000) / 1000;
        let delay = base + jitter;
        tracing::warn!(
            source = %self.st.addr,
            error = %e,
            attempt = self.attempts,
            delay_ms = delay.as_millis() as u64,
            resume = %self.st.committed,
            "replication connection lost; reconnecting"
        );
        tokio::time::sleep(delay).await;
        Ok(())
    }

    /// Connects, checks, sets the session up and starts the dump (the first
    /// time from the configured start, later from the last boundary).
    pub(super) async fn open(&mut self) -> Result<()> {
        if let Some(gate) = &self.config.connect_gate {
            if !gate.allows() {
                return Err(SourceError::Refused {
                    addr: self.st.addr.clone(),
                });
            }
        }
        let mut conn = Conn::connect(&self.config.connect).await?;
        let info = replica::check_server(
            &mut conn,
            CheckOptions {
                row_images: self.config.row_images.clone(),
                names_from_schema: self.config.names_from_schema,
            },
        )
        .await?;
        if self.server_id == 0 {
            self.server_id = match &self.config.server_id_seed {
                Some(seed) => replica::shared_server_id(seed, &[info.server_id]),
                None => replica::derive_server_id(
                    &replica::local_host_name(),
                    conn.local_addr(),
                    std::process::id(),
                    &[info.server_id],
                ),
            };
        } else if self.server_id == info.server_id && self.config.server_id.is_some() {
            return Err(SourceError::Config(format!(
                "serverId {} is the source's own server_id; give Sluice another (unique) one",
                self.server_id
            )));
        }
        if self.started {
            self.check_same_server(&mut conn, &info).await?;
        }
        let (dump, mariadb_state) = if self.started {
            self.resume_request(&info)?
        } else {
            self.first_request(&mut conn, &info).await?
        };
        replica::setup_session(
            &mut conn,
            &SessionOptions {
                heartbeat_period: self.config.heartbeat_period,
                mariadb_connect_state: mariadb_state,
            },
        )
        .await?;
        replica::register_replica(&mut conn, self.server_id, &replica::local_host_name()).await?;
        conn.write_command(&dump, "COM_BINLOG_DUMP").await?;
        conn.set_read_timeout(
            self.config.connect.read_timeout,
            self.config.heartbeat_period,
        );
        tracing::info!(
            source = %self.st.addr,
            server = %info.version,
            server_id = self.server_id,
            tls = conn.is_tls(),
            from = %self.dump_request_text(),
            "replication dump started"
        );
        if self.started {
            self.reconnects += 1;
        }
        self.lost_since = None;
        self.st.gtid_era = is_gtid_era(&info.version);
        self.info = Some(info);
        self.st.new_session();
        self.conn = Some(conn);
        self.started = true;
        Ok(())
    }

    /// On a reconnect: if another server answers at the address (its
    /// server id changed: a virtual IP moved, a replica was promoted in
    /// place), file offsets of the old one mean nothing there. Resume by
    /// GTID if it has every transaction read so far, else wait for it.
    async fn check_same_server(&mut self, conn: &mut Conn, info: &ServerInfo) -> Result<()> {
        let Some(was) = self.info.as_ref().map(|i| i.server_id) else {
            return Ok(());
        };
        if was == info.server_id || self.resume_by == ResumeBy::Gtid {
            return Ok(());
        }
        let Some(ours) = self.st.committed.at.gtid.clone() else {
            return Err(SourceError::Config(format!(
                "{} is now another server (server_id {was} before, {} now) and no GTID state is known to resume there; start from a position on the new server",
                self.st.addr, info.server_id
            )));
        };
        if let Some(detail) = failover::check_candidate(conn, info, &ours, false).await? {
            return Err(SourceError::NotCaughtUp {
                addr: self.st.addr.clone(),
                was,
                now: info.server_id,
                detail,
            });
        }
        tracing::info!(
            source = %self.st.addr,
            was_server_id = was,
            server_id = info.server_id,
            gtid = %ours,
            "another server answers at the source's address; resuming there by GTID"
        );
        self.resume_by = ResumeBy::Gtid;
        self.st.gtid = Some(ours);
        self.failovers += 1;
        Ok(())
    }
}
