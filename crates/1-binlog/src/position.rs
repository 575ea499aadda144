//! The one binlog position of the project: a file, a byte offset in it, the
//! GTID state there when known, and which server of a failover sequence
//! wrote it. The source resumes from it, the schema history orders its
//! records by it, the relational sink records what it applied with it; the
//! edges convert it to Canal's LogPosition JSON (`sluice-canal`) and to
//! Debezium's offset map (`sluice-engine`).

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::gtid_state::GtidState;

/// A place in the binlog: `file` (e.g. `binlog.000003`), byte `offset`, the
/// GTID state there when known, and the `epoch` of the server it is on.
///
/// Positions order by epoch, then the file's sequence number, then the
/// offset; the GTID state is carried, not compared (two servers of one
/// replication topology give one transaction different files and offsets but
/// the same GTID, so an order by both would contradict itself).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BinlogPosition {
    pub file: String,
    pub offset: u64,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "gtid_text",
        deserialize_with = "gtid_from_text"
    )]
    pub gtid: Option<GtidState>,
    /// How many times the source changed server before this position (a
    /// failover): file offsets of one server say nothing of another's, so
    /// every position of a later server sorts after those of earlier ones.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub epoch: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

// GTID states are kept as the text the servers print (`0-1-5`,
// `uuid:1-7`), so a stored position reads the same to a person and to
// `SELECT @@gtid_current_pos`.
fn gtid_text<S: Serializer>(gtid: &Option<GtidState>, s: S) -> Result<S::Ok, S::Error> {
    match gtid {
        Some(g) => s.collect_str(g),
        None => s.serialize_none(),
    }
}

fn gtid_from_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<GtidState>, D::Error> {
    match Option::<String>::deserialize(d)? {
        None => Ok(None),
        Some(text) if text.trim().is_empty() => Ok(None),
        Some(text) => text.parse().map(Some).map_err(serde::de::Error::custom),
    }
}

impl BinlogPosition {
    pub fn new(file: impl Into<String>, offset: u64) -> Self {
        BinlogPosition {
            file: file.into(),
            offset,
            gtid: None,
            epoch: 0,
        }
    }

    /// The same place on the `epoch`-th server followed (see [`Self::epoch`]).
    pub fn in_epoch(mut self, epoch: u32) -> Self {
        self.epoch = epoch;
        self
    }

    pub fn with_gtid(mut self, gtid: Option<GtidState>) -> Self {
        self.gtid = gtid;
        self
    }

    /// The numeric extension of the file name (`binlog.000042` → 42); files
    /// without one sort by name after all numbered files.
    pub fn file_sequence(&self) -> Option<u64> {
        crate::file::file_sequence(&self.file)
    }

    /// The position before any event: used for snapshots taken at the start.
    pub fn start() -> Self {
        BinlogPosition::new("", 0)
    }

    fn key(&self) -> (u32, u64, &str, u64) {
        match self.file_sequence() {
            Some(n) => (self.epoch, n, "", self.offset),
            None if self.file.is_empty() => (self.epoch, 0, "", self.offset),
            None => (self.epoch, u64::MAX, self.file.as_str(), self.offset),
        }
    }
}

impl PartialEq for BinlogPosition {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for BinlogPosition {}

impl PartialOrd for BinlogPosition {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for BinlogPosition {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl fmt::Display for BinlogPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.offset)?;
        if self.epoch > 0 {
            write!(f, " (source #{})", self.epoch + 1)?;
        }
        if let Some(g) = &self.gtid {
            write!(f, " (gtid {g})")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_file_number_then_offset() {
        let a = BinlogPosition::new("binlog.000009", 900);
        let b = BinlogPosition::new("binlog.000010", 4);
        let c = BinlogPosition::new("binlog.000010", 120).with_gtid("0-1-5".parse().ok());
        assert!(a < b && b < c);
        assert_eq!(c, BinlogPosition::new("binlog.000010", 120));
        assert!(BinlogPosition::start() < a);
        // Past .999999 file names compare wrong as text; numbers do not.
        assert!(BinlogPosition::new("binlog.999999", 4) < BinlogPosition::new("binlog.1000000", 4));
        // After a source change, a smaller file and offset is still later.
        let after = BinlogPosition::new("binlog.000001", 4).in_epoch(1);
        assert!(c < after && after.to_string().contains("source #2"));
    }

    #[test]
    fn stored_form_keeps_the_gtid_as_server_text() {
        let a = BinlogPosition::new("binlog.000009", 900);
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, r#"{"file":"binlog.000009","offset":900}"#);
        let u = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
        let with = BinlogPosition::new("binlog.000010", 120)
            .with_gtid(format!("{u}:1-5").parse().ok())
            .in_epoch(1);
        let json = serde_json::to_string(&with).unwrap();
        assert!(json.contains(&format!(r#""gtid":"{u}:1-5""#)), "{json}");
        let back: BinlogPosition = serde_json::from_str(&json).unwrap();
        assert_eq!(back.epoch, 1);
        assert_eq!(back.gtid, with.gtid);
        let bad = r#"{"file":"b.1","offset":4,"gtid":"not a gtid"}"#;
        assert!(serde_json::from_str::<BinlogPosition>(bad).is_err());
    }
}
