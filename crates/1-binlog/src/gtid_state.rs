//! GTID states: where a replica stands in the GTIDs of the binlog, in
//! either dialect (MariaDB's last `domain-server-sequence` per domain,
//! MySQL's `uuid[:tag]:interval` sets), parsed from and printed to the text
//! the servers use, and updated transaction by transaction.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use crate::gtid::{GtidSet, GtidSetEntry, MariadbGtid, MysqlGtid, Uuid};

/// A GTID state in either dialect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GtidState {
    MariaDb(MariadbGtidState),
    MySql(GtidSet),
}

impl GtidState {
    pub fn is_empty(&self) -> bool {
        match self {
            GtidState::MariaDb(s) => s.domains.is_empty(),
            GtidState::MySql(s) => s.sids.is_empty(),
        }
    }
}

impl fmt::Display for GtidState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GtidState::MariaDb(s) => s.fmt(f),
            GtidState::MySql(s) => s.fmt(f),
        }
    }
}

impl FromStr for GtidState {
    type Err = String;

    /// MariaDB (`0-1-100,1-2-5`) or MySQL (`3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5,...`):
    /// the dialect is recognised by the form.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.is_empty() {
            return Err("empty GTID set".to_string());
        }
        if s.contains(':') {
            parse_mysql_gtid_set(s).map(GtidState::MySql)
        } else {
            s.parse().map(GtidState::MariaDb)
        }
    }
}

/// MariaDB's GTID position: the last GTID of each replication domain.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MariadbGtidState {
    pub domains: BTreeMap<u32, MariadbGtid>,
}

impl MariadbGtidState {
    /// Records a transaction: it becomes the last of its domain.
    pub fn update(&mut self, gtid: MariadbGtid) {
        self.domains.insert(gtid.domain_id, gtid);
    }
}

impl fmt::Display for MariadbGtidState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, g) in self.domains.values().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{g}")?;
        }
        Ok(())
    }
}

impl FromStr for MariadbGtidState {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let mut state = MariadbGtidState::default();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let mut it = part.splitn(3, '-');
            let mut num = |what: &str| -> Result<u64, String> {
                it.next()
                    .and_then(|x| x.parse::<u64>().ok())
                    .ok_or_else(|| {
                        format!(
                            "'{part}' is not a MariaDB GTID (domain-server-sequence): bad {what}"
                        )
                    })
            };
            let domain = num("domain")?;
            let server = num("server id")?;
            let seq = num("sequence number")?;
            let (Ok(domain_id), Ok(server_id)) = (u32::try_from(domain), u32::try_from(server))
            else {
                return Err(format!("'{part}': domain and server id must fit 32 bits"));
            };
            if state.domains.contains_key(&domain_id) {
                return Err(format!(
                    "GTID position '{s}' names domain {domain_id} twice"
                ));
            }
            state.update(MariadbGtid {
                domain_id,
                server_id,
                seq_no: seq,
            });
        }
        Ok(state)
    }
}

/// Parses a server UUID in its 8-4-4-4-12 text form (dashes optional).
pub fn parse_uuid(s: &str) -> Result<Uuid, String> {
    let hex: Vec<u8> = s.bytes().filter(|&b| b != b'-').collect();
    if hex.len() != 32 {
        return Err(format!("'{s}' is not a UUID"));
    }
    let mut out = [0u8; 16];
    for (i, pair) in hex.chunks(2).enumerate() {
        let text = std::str::from_utf8(pair).map_err(|_| format!("'{s}' is not a UUID"))?;
        out[i] = u8::from_str_radix(text, 16).map_err(|_| format!("'{s}' is not a UUID"))?;
    }
    Ok(Uuid(out))
}

/// Parses MySQL's GTID set text: `uuid:1-5:7,uuid2:tag:1-3` (closed intervals;
/// MySQL 8.3+ tags). Intervals are merged and sorted.
pub fn parse_mysql_gtid_set(s: &str) -> Result<GtidSet, String> {
    let mut set = GtidSet::default();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let mut fields = part.split(':');
        let uuid = parse_uuid(fields.next().unwrap_or_default().trim())?;
        let mut tag: Option<String> = None;
        let mut any = false;
        for f in fields {
            let f = f.trim();
            if f.starts_with(|c: char| c.is_ascii_digit()) {
                let (a, b) = match f.split_once('-') {
                    Some((a, b)) => (a, b),
                    None => (f, f),
                };
                let (Ok(a), Ok(b)) = (a.parse::<u64>(), b.parse::<u64>()) else {
                    return Err(format!("'{part}': bad interval '{f}'"));
                };
                if a == 0 || b < a {
                    return Err(format!("'{part}': bad interval '{f}'"));
                }
                add_interval(&mut set, uuid, tag.clone(), a, b + 1);
                any = true;
            } else if !f.is_empty() {
                tag = Some(f.to_ascii_lowercase());
            }
        }
        if !any {
            return Err(format!("'{part}' has no interval (expected uuid:1-5)"));
        }
    }
    Ok(set)
}

/// Adds the half-open interval [start, end) for (uuid, tag), merging.
fn add_interval(set: &mut GtidSet, uuid: Uuid, tag: Option<String>, start: u64, end: u64) {
    let i = match set.sids.iter().position(|e| e.uuid == uuid && e.tag == tag) {
        Some(i) => i,
        None => {
            set.sids.push(GtidSetEntry {
                uuid,
                tag: tag.clone(),
                intervals: Vec::new(),
            });
            set.sids
                .sort_by(|a, b| (a.uuid, &a.tag).cmp(&(b.uuid, &b.tag)));
            set.sids
                .iter()
                .position(|e| e.uuid == uuid && e.tag == tag)
                .unwrap_or(0)
        }
    };
    let iv = &mut set.sids[i].intervals;
    iv.push((start, end));
    iv.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(iv.len());
    for &(s, e) in iv.iter() {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    *iv = merged;
}

/// Records one MySQL transaction in a GTID set.
pub fn add_mysql_gtid(set: &mut GtidSet, gtid: &MysqlGtid) {
    add_interval(set, gtid.uuid, gtid.tag.clone(), gtid.gno, gtid.gno + 1);
}

#[cfg(test)]
mod tests {
    use super::*;

    const U1: &str = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

    #[test]
    fn mariadb_states() {
        let mut s: MariadbGtidState = "1-2-5, 0-1-100".parse().unwrap();
        assert_eq!(s.to_string(), "0-1-100,1-2-5");
        s.update(MariadbGtid {
            domain_id: 0,
            server_id: 3,
            seq_no: 101,
        });
        assert_eq!(s.to_string(), "0-3-101,1-2-5");
        assert!("0-1".parse::<MariadbGtidState>().is_err());
        assert!("0-1-2,0-1-3".parse::<MariadbGtidState>().is_err());
        assert!("x-1-2".parse::<MariadbGtidState>().is_err());
    }

    #[test]
    fn mysql_sets_parse_merge_and_print() {
        let text = format!("{U1}:1-5:7, {U1}:6");
        let set = parse_mysql_gtid_set(&text).unwrap();
        assert_eq!(set.to_string(), format!("{U1}:1-7"));
        let mut set = parse_mysql_gtid_set(&format!("{U1}:1-3")).unwrap();
        add_mysql_gtid(
            &mut set,
            &MysqlGtid {
                uuid: parse_uuid(U1).unwrap(),
                tag: None,
                gno: 5,
            },
        );
        assert_eq!(set.to_string(), format!("{U1}:1-3:5"));
        add_mysql_gtid(
            &mut set,
            &MysqlGtid {
                uuid: parse_uuid(U1).unwrap(),
                tag: None,
                gno: 4,
            },
        );
        assert_eq!(set.to_string(), format!("{U1}:1-5"));
        assert!(parse_mysql_gtid_set(&format!("{U1}:0-3")).is_err());
        assert!(parse_mysql_gtid_set("abc:1-3").is_err());
        assert!(parse_mysql_gtid_set(U1).is_err());
        assert!(matches!(
            format!("{U1}:1-2").parse::<GtidState>().unwrap(),
            GtidState::MySql(_)
        ));
    }
}
