//! Binlog positions as the schema history orders them: by file sequence
//! number, then offset; the GTID of the event is kept for reference only.
//! It never reads binlogs.

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A place in the binlog: `file` (e.g. `binlog.000003`), byte `offset`, and
/// the GTID of the transaction there when known.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BinlogPosition {
    pub file: String,
    pub offset: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gtid: Option<String>,
    /// How many times the source changed server before this position (a
    /// failover): file offsets of one server say nothing of another's, so
    /// every position of a later server sorts after those of earlier ones.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub epoch: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
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

    pub fn with_gtid(mut self, gtid: impl Into<String>) -> Self {
        self.gtid = Some(gtid.into());
        self
    }

    /// The numeric extension of the file name (`binlog.000042` → 42); files
    /// without one sort by name after all numbered files.
    pub fn file_sequence(&self) -> Option<u64> {
        sluice_binlog::file_sequence(&self.file)
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
        let c = BinlogPosition::new("binlog.000010", 120).with_gtid("0-1-5");
        assert!(a < b && b < c);
        assert_eq!(c, BinlogPosition::new("binlog.000010", 120));
        assert!(BinlogPosition::start() < a);
        // After a source change, a smaller file and offset is still later.
        let after = BinlogPosition::new("binlog.000001", 4).in_epoch(1);
        assert!(c < after && after.to_string().contains("source #2"));
        let json = serde_json::to_string(&a).unwrap();
        assert!(!json.contains("epoch"), "{json}");
        let back: BinlogPosition =
            serde_json::from_str(&serde_json::to_string(&after).unwrap()).unwrap();
        assert_eq!(back.epoch, 1);
    }
}
