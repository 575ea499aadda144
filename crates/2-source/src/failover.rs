//! Source failover: when the server being followed is gone for longer than
//! a configured time, or another server answers at its address, the stream
//! looks for a server that has every transaction already read and resumes
//! there by GTID.
//!
//! A candidate is taken only if its binlog holds the GTID state the stream
//! has reached: resuming from one that lacks transactions the consumers
//! already saw would fork their history (the candidate's own later
//! transactions would take the same place). Such a candidate is reported
//! and tried again on the next round, so it is taken once it has caught up.
//!
//! Pure checks ([`mariadb_covers`], [`mysql_covers`]) are separate from the
//! queries that feed them ([`check_candidate`]).

use std::time::Duration;

use sluice_binlog::gtid::GtidSet;

use crate::conn::{Conn, ConnectOptions};
use crate::error::Result;
use crate::position::{parse_mysql_gtid_set, GtidState, MariadbGtidState};
use crate::replica::ServerInfo;

/// Where to go when the source is lost, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailoverPolicy {
    /// Servers to try, in order (user, password and TLS as for the source).
    pub candidates: Vec<ConnectOptions>,
    /// How long the source may be unreachable before candidates are tried.
    pub after: Duration,
    /// Pass over candidates with `read_only` on: a replica not yet promoted
    /// is not where new transactions will be written.
    pub skip_read_only: bool,
}

impl Default for FailoverPolicy {
    fn default() -> Self {
        FailoverPolicy {
            candidates: Vec::new(),
            after: Duration::from_secs(9),
            skip_read_only: true,
        }
    }
}

/// Whether a MariaDB server whose `@@gtid_binlog_state` is `binlog_state`
/// has logged every transaction of `ours` (the last GTID of each domain the
/// stream read). The binlog state lists the last sequence number logged per
/// domain and originating server, so the GTID must be there with the same
/// server id: a server that logged a higher number in the domain but from
/// another origin has diverged, not caught up.
pub fn mariadb_covers(binlog_state: &str, ours: &MariadbGtidState) -> Result<(), String> {
    let mut logged = Vec::new();
    for part in binlog_state
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        let g: MariadbGtidState = part.parse()?;
        logged.extend(g.domains.into_values());
    }
    for want in ours.domains.values() {
        let have = logged
            .iter()
            .find(|g| g.domain_id == want.domain_id && g.server_id == want.server_id);
        match have {
            Some(g) if g.seq_no >= want.seq_no => {}
            Some(g) => {
                return Err(format!(
                    "it has logged up to {g} in domain {}, but {want} was already read",
                    want.domain_id
                ))
            }
            None => {
                return Err(format!(
                    "it has logged no transaction of server {} in domain {}, but {want} was already read",
                    want.server_id, want.domain_id
                ))
            }
        }
    }
    Ok(())
}

/// Whether a MySQL server whose `@@gtid_executed` is `executed` has every
/// transaction of `ours`.
pub fn mysql_covers(executed: &GtidSet, ours: &GtidSet) -> Result<(), String> {
    for want in &ours.sids {
        let have = executed
            .sids
            .iter()
            .find(|e| e.uuid == want.uuid && e.tag == want.tag);
        for &(start, end) in &want.intervals {
            let covered = have.is_some_and(|h| {
                // Both sides hold sorted, merged half-open intervals: one of
                // the server's must hold the whole of ours.
                h.intervals.iter().any(|&(s, e)| s <= start && end <= e)
            });
            if !covered {
                let uuid = &want.uuid;
                let last = end.saturating_sub(1);
                return Err(format!(
                    "it lacks transactions {uuid}:{start}-{last}, which were already read"
                ));
            }
        }
    }
    Ok(())
}

/// Asks a connected candidate whether the stream may resume there from
/// `ours`: `Ok(None)` when it may, `Ok(Some(reason))` when it may not yet.
pub async fn check_candidate(
    conn: &mut Conn,
    info: &ServerInfo,
    ours: &GtidState,
    skip_read_only: bool,
) -> Result<Option<String>> {
    if skip_read_only {
        let ro = conn.query("SELECT @@GLOBAL.read_only").await?;
        if ro.scalar().is_some_and(|v| v != "0" && v != "OFF") {
            return Ok(Some(
                "read_only is ON (a replica not promoted yet)".to_string(),
            ));
        }
    }
    let verdict = match (ours, info.is_mariadb) {
        (GtidState::MariaDb(state), true) => {
            let rs = conn.query("SELECT @@GLOBAL.gtid_binlog_state").await?;
            mariadb_covers(rs.scalar().unwrap_or_default(), state)
        }
        (GtidState::MySql(set), false) => {
            let rs = conn.query("SELECT @@GLOBAL.gtid_executed").await?;
            let text = rs.scalar().unwrap_or_default().replace('\n', "");
            match parse_mysql_gtid_set(&text) {
                Ok(executed) => mysql_covers(&executed, set),
                Err(e) => Err(format!("its gtid_executed does not parse: {e}")),
            }
        }
        (GtidState::MariaDb(_), false) => {
            Err("it is MySQL, and the GTID state read so far is MariaDB's".to_string())
        }
        (GtidState::MySql(_), true) => {
            Err("it is MariaDB, and the GTID state read so far is MySQL's".to_string())
        }
    };
    Ok(verdict.err())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(s: &str) -> MariadbGtidState {
        s.parse().unwrap()
    }

    #[test]
    fn mariadb_candidate_must_have_the_same_origin_and_sequence() {
        let ours = state("0-1-105");
        assert_eq!(mariadb_covers("0-1-105", &ours), Ok(()));
        assert_eq!(mariadb_covers("0-1-107,0-2-3", &ours), Ok(()));
        // Behind: still at 100 of server 1.
        let behind = mariadb_covers("0-1-100", &ours).unwrap_err();
        assert!(
            behind.contains("0-1-100") && behind.contains("0-1-105"),
            "{behind}"
        );
        // Diverged: a higher number, but written by itself after promotion
        // without the transactions of server 1 we read.
        let diverged = mariadb_covers("0-1-100,0-2-106", &ours).unwrap_err();
        assert!(diverged.contains("0-1-100"), "{diverged}");
        assert!(mariadb_covers("", &ours).is_err());
    }

    #[test]
    fn mariadb_every_domain_counts() {
        let ours = state("0-1-10,1-5-7");
        assert_eq!(mariadb_covers("0-1-10,1-5-7,2-9-1", &ours), Ok(()));
        let missing = mariadb_covers("0-1-12", &ours).unwrap_err();
        assert!(missing.contains("domain 1"), "{missing}");
        assert!(mariadb_covers("garbage", &ours).is_err());
    }

    #[test]
    fn mysql_candidate_must_hold_every_interval() {
        let a = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
        let b = "4e11fa47-71ca-11e1-9e33-c80aa9429562";
        let ours = parse_mysql_gtid_set(&format!("{a}:1-100,{b}:1-5")).unwrap();
        let full = parse_mysql_gtid_set(&format!("{a}:1-120,{b}:1-5:7")).unwrap();
        assert_eq!(mysql_covers(&full, &ours), Ok(()));
        let behind = parse_mysql_gtid_set(&format!("{a}:1-99,{b}:1-5")).unwrap();
        let e = mysql_covers(&behind, &ours).unwrap_err();
        assert!(e.contains(a) && e.contains("1-100"), "{e}");
        let hole = parse_mysql_gtid_set(&format!("{a}:1-50:52-120,{b}:1-5")).unwrap();
        assert!(mysql_covers(&hole, &ours).is_err());
        let other = parse_mysql_gtid_set(&format!("{a}:1-120")).unwrap();
        assert!(mysql_covers(&other, &ours).is_err());
    }
}
