//! Binlog positions: where a stream starts ([`StartPosition`]: earliest,
//! latest, file:pos, GTID set, time) and where it can resume
//! ([`ResumePosition`]: always a transaction boundary). GTID sets in both
//! dialects: MariaDB's `domain-server-seq` lists and MySQL's
//! `uuid[:tag]:interval` sets, parsed from and printed to text, updated
//! transaction by transaction, and encoded for COM_BINLOG_DUMP_GTID.
//!
//! Owns: position values and their text forms. Must never: talk to a server,
//! or produce a resume position inside a transaction.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use sluice_binlog::gtid::{GtidSet, GtidSetEntry, MariadbGtid, MysqlGtid, Uuid};

/// Where a stream starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartPosition {
    /// The first event of the oldest binlog file the server still has.
    Earliest,
    /// The end of the binlog now (`SHOW MASTER STATUS`): only new changes.
    Latest,
    /// A file and byte offset. If the offset is not at a transaction
    /// boundary, the stream skips to the next one (and says so).
    FilePos { file: String, pos: u64 },
    /// After the transactions of this GTID set.
    Gtid(GtidState),
    /// The last transaction boundary at or before this time (seconds since
    /// the epoch): the first transaction delivered is the first whose
    /// timestamp is at or after it.
    Time(i64),
}

impl fmt::Display for StartPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartPosition::Earliest => f.write_str("earliest"),
            StartPosition::Latest => f.write_str("latest"),
            StartPosition::FilePos { file, pos } => write!(f, "{file}:{pos}"),
            StartPosition::Gtid(g) => write!(f, "gtid:{g}"),
            StartPosition::Time(t) => write!(f, "time:{}", format_utc(*t)),
        }
    }
}

impl FromStr for StartPosition {
    type Err = String;

    /// `earliest`, `latest`, `FILE:POS`, `gtid:SET`, `time:ISO-8601` (or
    /// `time:SECONDS` since the epoch).
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("earliest") {
            return Ok(StartPosition::Earliest);
        }
        if s.eq_ignore_ascii_case("latest") {
            return Ok(StartPosition::Latest);
        }
        if let Some(set) = strip_prefix_ci(s, "gtid:") {
            return Ok(StartPosition::Gtid(set.parse()?));
        }
        if let Some(t) = strip_prefix_ci(s, "time:") {
            return Ok(StartPosition::Time(parse_time(t)?));
        }
        let (file, pos) = s.rsplit_once(':').ok_or_else(|| {
            format!("start position '{s}' is none of earliest, latest, FILE:POS, gtid:SET, time:ISO-8601")
        })?;
        let pos: u64 = pos
            .parse()
            .map_err(|_| format!("start position '{s}': '{pos}' is not a byte offset"))?;
        if file.is_empty() {
            return Err(format!("start position '{s}' names no file"));
        }
        if pos < 4 {
            return Err(format!(
                "start position '{s}': offsets start at 4 (after the file's magic bytes)"
            ));
        }
        Ok(StartPosition::FilePos {
            file: file.to_string(),
            pos,
        })
    }
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    match (s.get(..prefix.len()), s.get(prefix.len()..)) {
        (Some(head), Some(rest)) if head.eq_ignore_ascii_case(prefix) => Some(rest),
        _ => None,
    }
}

/// A place to resume from: the end of the last complete transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumePosition {
    pub file: String,
    /// Offset of the first event after the transaction.
    pub offset: u64,
    /// The GTID state after the transaction, when known (always on MariaDB;
    /// on MySQL once a GTID start or a PREVIOUS_GTIDS event gave the base).
    pub gtid: Option<GtidState>,
    /// Server id of the server that wrote the transaction.
    pub server_id: u32,
    /// Its commit timestamp (seconds since the epoch), 0 before the first.
    pub timestamp: u32,
}

impl fmt::Display for ResumePosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.offset)?;
        if let Some(g) = &self.gtid {
            write!(f, " (gtid {g})")?;
        }
        Ok(())
    }
}

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

/// The binary form of a GTID set for COM_BINLOG_DUMP_GTID (the layout of
/// PREVIOUS_GTIDS_LOG_EVENT; the tagged layout when any tag is present).
pub fn encode_mysql_gtid_set(set: &GtidSet) -> Vec<u8> {
    let tagged = set.sids.iter().any(|e| e.tag.is_some());
    let mut out = Vec::new();
    let n = set.sids.len() as u64;
    if tagged {
        out.extend_from_slice(&(1 | (n << 8) | (1u64 << 56)).to_le_bytes());
    } else {
        out.extend_from_slice(&n.to_le_bytes());
    }
    for e in &set.sids {
        out.extend_from_slice(&e.uuid.0);
        if tagged {
            let t = e.tag.as_deref().unwrap_or("").as_bytes();
            put_varlen(&mut out, t.len() as u64);
            out.extend_from_slice(t);
        }
        out.extend_from_slice(&(e.intervals.len() as u64).to_le_bytes());
        for &(s, end) in &e.intervals {
            out.extend_from_slice(&s.to_le_bytes());
            out.extend_from_slice(&end.to_le_bytes());
        }
    }
    out
}

/// MySQL's `mysql::serialization` variable-length integer (the inverse of
/// `sluice_binlog::gtid::read_varlen`).
fn put_varlen(out: &mut Vec<u8>, v: u64) {
    // Number of extra bytes: the smallest k with v < 2^(7 + 7k), 8 for the rest.
    let mut extra = 0usize;
    while extra < 8 && v >= 1u64 << (7 * (extra + 1)) {
        extra += 1;
    }
    if extra == 8 {
        out.push(0xff);
        out.extend_from_slice(&v.to_le_bytes());
        return;
    }
    let first_bits = 7 - extra;
    let marker = (1u16 << extra) - 1;
    let low = (v & ((1 << first_bits) - 1)) as u16;
    out.push((marker | (low << (extra + 1))) as u8);
    let rest = v >> first_bits;
    out.extend_from_slice(&rest.to_le_bytes()[..extra]);
}

/// Parses `time:` values: seconds since the epoch, or ISO 8601
/// `YYYY-MM-DD[THH:MM[:SS[.frac]]][Z|±HH:MM]` (a space may replace `T`;
/// without an offset the time is UTC).
pub fn parse_time(s: &str) -> Result<i64, String> {
    let s = s.trim();
    let bad = || {
        format!("'{s}' is not a time: use ISO 8601 (2024-05-01T12:00:00Z, 2024-05-01 14:00:00+02:00) or seconds since the epoch")
    };
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && s.len() > 8 {
        return s.parse().map_err(|_| bad());
    }
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Result<i64, String> {
        let t = s.get(from..from + len).ok_or_else(bad)?;
        if !t.bytes().all(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        t.parse::<i64>().map_err(|_| bad())
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return Err(bad());
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (mut hour, mut minute, mut second) = (0, 0, 0);
    let mut i = 10;
    if i < b.len() && (b[i] == b'T' || b[i] == b't' || b[i] == b' ') {
        hour = num(i + 1, 2)?;
        if b.get(i + 3) != Some(&b':') {
            return Err(bad());
        }
        minute = num(i + 4, 2)?;
        i += 6;
        if b.get(i) == Some(&b':') {
            second = num(i + 1, 2)?;
            i += 3;
            if b.get(i) == Some(&b'.') || b.get(i) == Some(&b',') {
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
        }
    }
    let mut offset = 0i64;
    match b.get(i) {
        None => {}
        Some(b'Z') | Some(b'z') if i + 1 == b.len() => {}
        Some(&sign @ (b'+' | b'-')) => {
            let oh = num(i + 1, 2)?;
            let rest = &s[i + 3..];
            let om = match rest.strip_prefix(':') {
                Some(m) if m.len() == 2 => num(i + 4, 2)?,
                None if rest.len() == 2 => num(i + 3, 2)?,
                None if rest.is_empty() => 0,
                _ => return Err(bad()),
            };
            offset = (oh * 60 + om) * 60 * if sign == b'-' { -1 } else { 1 };
        }
        _ => return Err(bad()),
    }
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return Err(bad());
    }
    Ok(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the epoch.
pub fn format_utc(t: i64) -> String {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    // Inverse of days_from_civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const U1: &str = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

    #[test]
    fn start_positions_parse() {
        assert_eq!(
            "earliest".parse::<StartPosition>().unwrap(),
            StartPosition::Earliest
        );
        assert_eq!(
            "LATEST".parse::<StartPosition>().unwrap(),
            StartPosition::Latest
        );
        assert_eq!(
            "binlog.000003:1234".parse::<StartPosition>().unwrap(),
            StartPosition::FilePos {
                file: "binlog.000003".into(),
                pos: 1234
            }
        );
        let g = "gtid:0-1-100,1-2-5".parse::<StartPosition>().unwrap();
        assert_eq!(g.to_string(), "gtid:0-1-100,1-2-5");
        let t = "time:2024-05-01T12:00:00Z"
            .parse::<StartPosition>()
            .unwrap();
        assert_eq!(t, StartPosition::Time(1_714_564_800));
        assert_eq!(t.to_string(), "time:2024-05-01T12:00:00Z");
        for bad in [
            "",
            "binlog.000001",
            "binlog.000001:x",
            ":5",
            "f:2",
            "gtid:",
            "time:yesterday",
        ] {
            assert!(bad.parse::<StartPosition>().is_err(), "{bad}");
        }
    }

    #[test]
    fn times_parse() {
        assert_eq!(parse_time("1970-01-01").unwrap(), 0);
        assert_eq!(parse_time("2000-03-01T00:00:00Z").unwrap(), 951_868_800);
        assert_eq!(
            parse_time("2024-05-01 14:00:00+02:00").unwrap(),
            parse_time("2024-05-01T12:00:00Z").unwrap()
        );
        assert_eq!(
            parse_time("2024-05-01T07:30-0430").unwrap(),
            parse_time("2024-05-01T12:00Z").unwrap()
        );
        assert_eq!(
            parse_time("2024-05-01T12:00:00.123456Z").unwrap(),
            1_714_564_800
        );
        assert_eq!(parse_time("1714564800").unwrap(), 1_714_564_800);
        for bad in [
            "2024-13-01",
            "2024-05-01T25:00",
            "2024-05-01X",
            "24-05-01",
            "2024-05-01T12:00:00+2",
        ] {
            assert!(parse_time(bad).is_err(), "{bad}");
        }
        for t in [0, 951_868_800, 1_714_564_800, -86_400, 4_102_444_800] {
            assert_eq!(parse_time(&format_utc(t)).unwrap(), t);
        }
    }

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

    #[test]
    fn mysql_set_encoding_round_trips_through_the_decoder() {
        let untagged = parse_mysql_gtid_set(&format!(
            "{U1}:1-5:10-20,00000000-0000-0000-0000-000000000001:3"
        ))
        .unwrap();
        let bytes = encode_mysql_gtid_set(&untagged);
        assert_eq!(bytes.len(), 8 + (16 + 8 + 32) + (16 + 8 + 16));
        assert_eq!(GtidSet::parse(&bytes).unwrap(), untagged);
        let tagged = parse_mysql_gtid_set(&format!("{U1}:1-5,{U1}:blue:1-3:9")).unwrap();
        let back = GtidSet::parse(&encode_mysql_gtid_set(&tagged)).unwrap();
        assert_eq!(back, tagged);
        assert_eq!(back.to_string(), format!("{U1}:1-5,{U1}:blue:1-3:9"));
    }

    #[test]
    fn varlen_round_trips() {
        use sluice_binlog::bytes::ByteReader;
        for v in [
            0u64,
            1,
            127,
            128,
            300,
            1 << 14,
            (1 << 21) + 5,
            1 << 40,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            put_varlen(&mut out, v);
            let mut r = ByteReader::new(&out);
            assert_eq!(sluice_binlog::gtid::read_varlen(&mut r).unwrap(), v, "{v}");
            assert!(r.is_empty(), "{v}");
        }
    }
}
