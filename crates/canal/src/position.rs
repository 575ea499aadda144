//! Canal's cursor: `LogPosition` = who the source was (`LogIdentity`) and
//! where in its binlog (`EntryPosition`), with Canal's JSON field names and
//! order byte for byte (including its `postion` spelling), so `meta.dat`
//! files and ZooKeeper cursor nodes interoperate with Canal.

use serde::{Deserialize, Serialize};

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
    /// Orders positions within one source: by binlog file sequence, then offset.
    pub fn binlog_key(&self) -> (u64, u64) {
        let seq = sluice_binlog::file_sequence(&self.journal_name).unwrap_or(0);
        (seq, self.position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
