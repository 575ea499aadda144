//! Where a dump starts: the configured start position resolved into a dump
//! command (first time), or the resume after the last complete transaction.

use std::time::Duration;

use sluice_binlog::EventType;

use crate::conn::Conn;
use crate::error::{Result, SourceError};
use crate::handshake::ErrPacket;
use crate::position::{
    parse_mysql_gtid_set, BinlogPosition, GtidState, MariadbGtidState, ResumePosition,
    StartPosition,
};
use crate::replica::{self, dump_flags, ServerInfo, SessionOptions};

use super::state::Skip;
use super::{BinlogStream, ResumeBy};

impl BinlogStream {
    pub(super) fn flags(&self, is_mariadb: bool) -> u16 {
        let mut f = 0;
        if self.config.stop_at_end {
            f |= dump_flags::NON_BLOCK;
        }
        if self.config.annotate_rows && is_mariadb {
            f |= dump_flags::SEND_ANNOTATE_ROWS;
        }
        f
    }

    fn invalid_start(&self, detail: String) -> SourceError {
        SourceError::InvalidStart {
            addr: self.st.addr.clone(),
            requested: self.requested.clone(),
            detail,
        }
    }

    /// The dump command for the configured start, and the tracker's initial state.
    pub(super) async fn first_request(
        &mut self,
        conn: &mut Conn,
        info: &ServerInfo,
    ) -> Result<(Vec<u8>, Option<String>)> {
        let flags = self.flags(info.is_mariadb);
        let start = self.config.start.clone();
        let (file, pos) = match &start {
            StartPosition::Gtid(state) => {
                self.resume_by = ResumeBy::Gtid;
                self.st.gtid = Some(state.clone());
                self.st.committed.at.gtid = Some(state.clone());
                self.st.committed.at.file.clear();
                self.st.committed.at.offset = 0;
                return match (state, info.is_mariadb) {
                    (GtidState::MariaDb(s), true) => {
                        let text = s.to_string();
                        let dump = replica::dump_command("", 4, self.server_id, flags)
                            .map_err(|d| self.invalid_start(d))?;
                        Ok((dump, Some(text)))
                    }
                    (GtidState::MySql(set), false) => {
                        Ok((replica::dump_gtid_command(set, self.server_id, flags), None))
                    }
                    (GtidState::MySql(_), true) => Err(self.invalid_start(
                        "a MySQL GTID set (uuid:n-m) was given but the source is MariaDB, whose GTIDs look like 0-1-100".into(),
                    )),
                    (GtidState::MariaDb(_), false) => Err(self.invalid_start(
                        "a MariaDB GTID position (domain-server-seq) was given but the source is MySQL, whose GTID sets look like uuid:1-100".into(),
                    )),
                };
            }
            StartPosition::Earliest => {
                let logs = replica::binary_logs(conn).await?;
                let (first, _) = logs
                    .into_iter()
                    .next()
                    .ok_or_else(|| self.invalid_start("the server lists no binary logs".into()))?;
                (first, 4)
            }
            StartPosition::Latest => {
                let (file, pos, executed) = replica::master_status(conn).await?;
                if let Some(set) = executed {
                    if !info.is_mariadb {
                        self.st.gtid = parse_mysql_gtid_set(&set).ok().map(GtidState::MySql);
                    }
                }
                (file, pos)
            }
            StartPosition::FilePos { file, pos } => {
                if *pos > 4 {
                    self.st.skip = Skip::Probe {
                        requested: format!("{file}:{pos}"),
                    };
                }
                (file.clone(), *pos)
            }
            StartPosition::Time(t) => {
                let file = self.file_for_time(conn, *t).await?;
                self.st.skip = Skip::UntilTime(*t);
                (file, 4)
            }
        };
        if info.is_mariadb {
            if let Ok(Some(g)) = replica::mariadb_gtid_pos(conn, &file, pos).await {
                if let Ok(s) = g.parse::<MariadbGtidState>() {
                    self.st.gtid = Some(GtidState::MariaDb(s));
                }
            }
        }
        self.resume_by = ResumeBy::FilePos;
        self.st.file = file.clone();
        self.st.offset = pos;
        self.st.committed = ResumePosition {
            at: BinlogPosition::new(file.clone(), pos).with_gtid(self.st.gtid.clone()),
            server_id: 0,
            timestamp: 0,
        };
        let dump = replica::dump_command(&file, pos, self.server_id, flags)
            .map_err(|d| self.invalid_start(d))?;
        Ok((dump, None))
    }

    /// The dump command that resumes after the last complete transaction.
    pub(super) fn resume_request(
        &mut self,
        info: &ServerInfo,
    ) -> Result<(Vec<u8>, Option<String>)> {
        let flags = self.flags(info.is_mariadb);
        match self.resume_by {
            ResumeBy::FilePos => {
                let c = &self.st.committed;
                self.st.file = c.at.file.clone();
                self.st.offset = c.at.offset;
                let dump = replica::dump_command(&c.at.file, c.at.offset, self.server_id, flags)
                    .map_err(|d| self.invalid_start(d))?;
                Ok((dump, None))
            }
            ResumeBy::Gtid => match &self.st.gtid {
                Some(GtidState::MariaDb(s)) => Ok((
                    replica::dump_command("", 4, self.server_id, flags)
                        .map_err(|d| self.invalid_start(d))?,
                    Some(s.to_string()),
                )),
                Some(GtidState::MySql(set)) => {
                    Ok((replica::dump_gtid_command(set, self.server_id, flags), None))
                }
                None => Err(self.invalid_start("the GTID state was lost".into())),
            },
        }
    }

    /// The binlog file to scan for a time start: the last one whose first
    /// event (its FORMAT_DESCRIPTION_EVENT, written when the file was
    /// opened) is before the time; the oldest file if none is.
    async fn file_for_time(&mut self, conn: &mut Conn, t: i64) -> Result<String> {
        let logs = replica::binary_logs(conn).await?;
        if logs.is_empty() {
            return Err(self.invalid_start("the server lists no binary logs".into()));
        }
        // Binary search for the last file that starts before t: transactions
        // at or after t cannot be in the files before it (they ended before
        // it started). Not "at or before": timestamps are whole seconds, and
        // a file opened at t may follow one whose last transactions are at t.
        let (mut lo, mut hi) = (0usize, logs.len());
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            let started = self.file_start_time(&logs[mid].0).await?;
            if i64::from(started) < t {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        tracing::info!(
            source = %self.st.addr,
            file = %logs[lo].0,
            time = %crate::position::format_utc(t),
            "time start: scanning from the start of this binlog file"
        );
        Ok(logs[lo].0.clone())
    }

    /// The timestamp of a binlog file's FORMAT_DESCRIPTION_EVENT, read with a
    /// short non-blocking dump on a connection of its own.
    async fn file_start_time(&mut self, file: &str) -> Result<u32> {
        let mut conn = Conn::connect(&self.config.connect).await?;
        replica::setup_session(
            &mut conn,
            &SessionOptions {
                heartbeat_period: Duration::ZERO,
                mariadb_connect_state: None,
            },
        )
        .await?;
        let dump = replica::dump_command(file, 4, self.server_id, dump_flags::NON_BLOCK)
            .map_err(|d| self.invalid_start(d))?;
        conn.write_command(&dump, "COM_BINLOG_DUMP").await?;
        for _ in 0..16 {
            let p = conn.read_packet("binlog file probe").await?;
            match p.first() {
                Some(0x00) if p.len() >= 20 => {
                    if p[5] == EventType::FORMAT_DESCRIPTION.0 {
                        return Ok(u32::from_le_bytes([p[1], p[2], p[3], p[4]]));
                    }
                }
                Some(0xff) => {
                    let e = ErrPacket::parse(p).map_err(|e| SourceError::Protocol {
                        addr: self.st.addr.clone(),
                        during: "binlog file probe",
                        detail: e.to_string(),
                    })?;
                    return Err(conn.server_error(e, format!("reading the start of {file}")));
                }
                _ => break,
            }
        }
        Err(SourceError::Protocol {
            addr: self.st.addr.clone(),
            during: "binlog file probe",
            detail: format!("no FORMAT_DESCRIPTION_EVENT at the start of {file}"),
        })
    }
}
