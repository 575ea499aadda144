//! Canal's cursor: `LogPosition` = who the source was (`LogIdentity`) and
//! where in its binlog (`EntryPosition`), with Canal's JSON field names and
//! order byte for byte (including its `postion` spelling), so `meta.dat`
//! files and ZooKeeper cursor nodes interoperate with Canal. Converted to
//! and from the project's one [`BinlogPosition`] here, at the Canal edge.

use serde::{Deserialize, Serialize};
use sluice_binlog::BinlogPosition;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SourceAddress {
    pub address: String,
    pub port: u16,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogIdentity {
    /// Always -1 in Canal's cursors.
    pub slave_id: i64,
    pub source_address: SourceAddress,
}

impl Default for LogIdentity {
    fn default() -> Self {
        LogIdentity {
            slave_id: -1,
            source_address: SourceAddress::default(),
        }
    }
}

/// A position in the source's binlog: the start of an event at a
/// transaction boundary, with the GTID set executed up to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct EntryPosition {
    #[serde(default)]
    pub gtid: String,
    #[serde(default)]
    pub included: bool,
    pub journal_name: String,
    pub position: u64,
    #[serde(default)]
    pub server_id: i64,
    /// Event time, milliseconds since the epoch (second precision).
    #[serde(default)]
    pub timestamp: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct LogPosition {
    pub identity: LogIdentity,
    /// Canal's field name, misspelt in its Java class.
    pub postion: EntryPosition,
}

/// The JSON type tag Canal writes on ZooKeeper cursor nodes.
pub const LOG_POSITION_TYPE_TAG: &str = "com.alibaba.otter.canal.protocol.position.LogPosition";

impl LogPosition {
    /// The JSON of a ZooKeeper cursor node: `{"@type":…,"identity":…,"postion":…}`.
    pub fn to_zookeeper_json(&self) -> String {
        #[derive(Serialize)]
        struct Tagged<'a> {
            #[serde(rename = "@type")]
            tag: &'static str,
            identity: &'a LogIdentity,
            postion: &'a EntryPosition,
        }
        serde_json::to_string(&Tagged {
            tag: LOG_POSITION_TYPE_TAG,
            identity: &self.identity,
            postion: &self.postion,
        })
        .unwrap_or_default()
    }

    /// Reads a cursor with or without the `@type` tag.
    pub fn from_json(s: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(s)
    }
}

impl EntryPosition {
    /// Canal's form of a binlog position: the edge where the project's one
    /// position type becomes a Canal cursor, with the server id and the
    /// commit time (seconds) of the transaction there.
    pub fn of(at: &BinlogPosition, server_id: u32, timestamp_secs: u32) -> Self {
        EntryPosition {
            gtid: at.gtid.as_ref().map(|g| g.to_string()).unwrap_or_default(),
            included: false,
            journal_name: at.file.clone(),
            position: at.offset,
            server_id: i64::from(server_id),
            timestamp: i64::from(timestamp_secs) * 1000,
        }
    }

    /// The binlog position a Canal cursor points at. Its GTID text is kept
    /// when it reads as a GTID state (Canal writes `""` when there is none).
    pub fn binlog_position(&self) -> BinlogPosition {
        BinlogPosition::new(self.journal_name.clone(), self.position)
            .with_gtid(self.gtid.parse().ok())
    }

    /// Orders positions within one source: by binlog file sequence, then
    /// offset, as [`BinlogPosition`] orders them (without its copy).
    pub fn binlog_key(&self) -> (u64, u64) {
        let seq = sluice_binlog::file_sequence(&self.journal_name).unwrap_or(0);
        (seq, self.position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binlog_position_becomes_a_canal_cursor_and_back() {
        let at = BinlogPosition::new("mysql-bin.000003", 1790).with_gtid("0-1-9".parse().ok());
        let cursor = EntryPosition::of(&at, 1, 1_729_425_993);
        assert_eq!(
            serde_json::to_string(&cursor).unwrap(),
            r#"{"gtid":"0-1-9","included":false,"journalName":"mysql-bin.000003","position":1790,"serverId":1,"timestamp":1729425993000}"#
        );
        let back = cursor.binlog_position();
        assert_eq!(
            (back.file.as_str(), back.offset),
            ("mysql-bin.000003", 1790)
        );
        assert_eq!(back.gtid, at.gtid);
        // Canal writes "" for no GTID: none, not an error.
        let plain = EntryPosition::of(&BinlogPosition::new("mysql-bin.000003", 4), 1, 0);
        assert_eq!(plain.gtid, "");
        assert_eq!(plain.binlog_position().gtid, None);
    }

    const ZK_CURSOR: &str = r#"{"@type":"com.alibaba.otter.canal.protocol.position.LogPosition","identity":{"slaveId":-1,"sourceAddress":{"address":"main-db5","port":3306}},"postion":{"gtid":"","included":false,"journalName":"mysql-bin.000003","position":1790,"serverId":1,"timestamp":1729425993000}}"#;

    #[test]
    fn zookeeper_cursor_roundtrips_byte_for_byte() {
        let p = LogPosition::from_json(ZK_CURSOR).unwrap();
        assert_eq!(p.postion.position, 1790);
        assert_eq!(p.identity.source_address.address, "main-db5");
        assert_eq!(p.to_zookeeper_json(), ZK_CURSOR);
    }

    #[test]
    fn file_cursor_has_no_type_tag() {
        let p = LogPosition::from_json(ZK_CURSOR).unwrap();
        let s = serde_json::to_string(&p).unwrap();
        assert!(s.starts_with(r#"{"identity":{"slaveId":-1,"#));
        assert!(!s.contains("@type"));
    }

    #[test]
    fn binlog_order() {
        let a = EntryPosition {
            journal_name: "mysql-bin.000009".into(),
            position: 900,
            ..Default::default()
        };
        let b = EntryPosition {
            journal_name: "mysql-bin.000010".into(),
            position: 4,
            ..Default::default()
        };
        assert!(a.binlog_key() < b.binlog_key());
    }
}
