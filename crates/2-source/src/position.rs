//! Binlog positions: where a stream starts ([`StartPosition`]: earliest,
//! latest, file:pos, GTID set, time) and where it can resume
//! ([`ResumePosition`]: always a transaction boundary, a
//! [`BinlogPosition`] with the transaction's origin), and MySQL GTID sets
//! encoded for COM_BINLOG_DUMP_GTID. The position and GTID state types
//! themselves live in `sluice-binlog` (`position`, `gtid_state`).
//!
//! Owns: start requests and their text forms. Must never: talk to a server,
//! or produce a resume position inside a transaction.

use std::fmt;
use std::str::FromStr;

use sluice_binlog::gtid::GtidSet;
pub use sluice_binlog::gtid_state::{
    add_mysql_gtid, parse_mysql_gtid_set, parse_uuid, GtidState, MariadbGtidState,
};
pub use sluice_binlog::BinlogPosition;

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
    /// The offset of the first event after the transaction, and the GTID
    /// state after it when known (always on MariaDB; on MySQL once a GTID
    /// start or a PREVIOUS_GTIDS event gave the base).
    pub at: BinlogPosition,
    /// Server id of the server that wrote the transaction.
    pub server_id: u32,
    /// Its commit timestamp (seconds since the epoch), 0 before the first.
    pub timestamp: u32,
}

impl fmt::Display for ResumePosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.at.fmt(f)
    }
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
