//! Debezium's MySQL offsets: where a stream resumes, as the map the
//! Debezium connector commits (`file`, `pos`, `gtids`, `event`, `row`,
//! `server_id`, `ts_sec`), and the key it is stored under.
//!
//! Inside a transaction an offset points at the transaction's BEGIN and
//! counts what of it was already delivered: `event` completed binlog events
//! from the BEGIN on (table maps included), then `row` rows of the next
//! rows event. Between transactions it points after the last commit, with
//! both counts zero. A stream resumed from an offset skips exactly what the
//! counts say, so nothing up to the committed record is delivered twice.
//!
//! While the initial snapshot runs, the offset also carries
//! `"snapshot":"INITIAL"` and where the snapshot is: `snapshot_table` (the
//! table being read, `db.table`) and `snapshot_last_key` (the key of the
//! last row of it delivered, its columns' values as the server prints them,
//! hex, comma-separated; absent: none of the table yet). Once the snapshot
//! is done the three are gone, as Debezium's `snapshot` is.

use serde_json::{Map, Value};
use sluice_binlog::BinlogPosition;

/// The key an offset is stored under: the engine's `name` and the
/// connector's partition `{"server": <topic.prefix>}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetKey {
    pub engine: String,
    pub server: String,
}

impl OffsetKey {
    pub fn new(engine: impl Into<String>, server: impl Into<String>) -> Self {
        OffsetKey {
            engine: engine.into(),
            server: server.into(),
        }
    }

    /// The key's JSON as Kafka Connect's offset writer serialises it:
    /// `["engine",{"server":"dbserver1"}]`.
    pub fn to_json(&self) -> String {
        Value::Array(vec![
            Value::String(self.engine.clone()),
            partition(&self.server),
        ])
        .to_string()
    }

    /// Whether `json` (a stored key, as any writer spaced it) is this key.
    pub fn matches(&self, json: &[u8]) -> bool {
        match serde_json::from_slice::<Value>(json) {
            Ok(Value::Array(parts)) if parts.len() == 2 => {
                parts[0].as_str() == Some(self.engine.as_str())
                    && parts[1] == partition(&self.server)
            }
            _ => false,
        }
    }
}

/// The partition map of a MySQL connector: `{"server": <topic.prefix>}`.
pub fn partition(server: &str) -> Value {
    let mut map = Map::new();
    map.insert("server".into(), Value::String(server.into()));
    Value::Object(map)
}

/// One offset of Debezium's MySQL connector.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceOffset {
    /// The binlog file to reconnect at.
    pub file: String,
    /// Where to reconnect: after the last committed transaction, or inside
    /// a transaction the position of its BEGIN.
    pub pos: u64,
    /// The executed GTID set to reconnect with (inside a transaction: the
    /// set before it), when the source writes GTIDs.
    pub gtids: Option<String>,
    /// Events of the current transaction completely delivered, counted from
    /// and including its BEGIN.
    pub event: u64,
    /// Rows of the next rows event already delivered.
    pub row: u64,
    /// `server_id` of the last event (0: unknown).
    pub server_id: u64,
    /// The source time of the last event, seconds since the epoch (0:
    /// unknown).
    pub ts_sec: u64,
    /// Set while an initial snapshot runs (`"INITIAL"`, `"BLOCKING"`).
    pub snapshot: Option<String>,
    /// While the snapshot runs: the table it reads (`db.table`); absent in
    /// Debezium's own offsets (a snapshot resumed from one starts again).
    pub snapshot_table: Option<String>,
    /// While the snapshot runs: the key of the last row of
    /// `snapshot_table` delivered (hex values, comma-separated).
    pub snapshot_last_key: Option<String>,
}

impl SourceOffset {
    /// Debezium's offset of a binlog position between transactions: the
    /// edge where the project's one position type becomes an offset map.
    pub fn at(at: &BinlogPosition) -> SourceOffset {
        SourceOffset {
            file: at.file.clone(),
            pos: at.offset,
            gtids: at.gtid.as_ref().map(|g| g.to_string()),
            ..Default::default()
        }
    }

    /// Whether the offset points inside a transaction.
    pub fn is_inside_transaction(&self) -> bool {
        self.event != 0 || self.row != 0
    }

    /// The offset map, with the fields Debezium writes only when set left
    /// out as it leaves them out.
    pub fn to_map(&self) -> Map<String, Value> {
        let mut map = Map::new();
        if self.ts_sec != 0 {
            map.insert("ts_sec".into(), self.ts_sec.into());
        }
        map.insert("file".into(), Value::String(self.file.clone()));
        map.insert("pos".into(), self.pos.into());
        if let Some(gtids) = &self.gtids {
            map.insert("gtids".into(), Value::String(gtids.clone()));
        }
        if self.event != 0 {
            map.insert("event".into(), self.event.into());
        }
        if self.row != 0 {
            map.insert("row".into(), self.row.into());
        }
        if self.server_id != 0 {
            map.insert("server_id".into(), self.server_id.into());
        }
        if let Some(snapshot) = &self.snapshot {
            map.insert("snapshot".into(), Value::String(snapshot.clone()));
        }
        if let Some(table) = &self.snapshot_table {
            map.insert("snapshot_table".into(), Value::String(table.clone()));
        }
        if let Some(key) = &self.snapshot_last_key {
            map.insert("snapshot_last_key".into(), Value::String(key.clone()));
        }
        map
    }

    /// The offset's compact JSON, as Debezium stores it.
    pub fn to_json(&self) -> String {
        Value::Object(self.to_map()).to_string()
    }

    /// Reads an offset map as Debezium's loader does: `file` is required,
    /// the rest default to zero or absent; numbers may come as JSON numbers
    /// or strings, and an old boolean `snapshot: true` means `"INITIAL"`.
    pub fn from_map(map: &Map<String, Value>) -> Result<SourceOffset, String> {
        let file = match map.get("file") {
            Some(Value::String(f)) if !f.is_empty() => f.clone(),
            Some(other) => return Err(format!("`file` is {other}, not a binlog file name")),
            None => return Err("the offset has no `file`".into()),
        };
        let number = |name: &str| -> Result<u64, String> {
            match map.get(name) {
                None | Some(Value::Null) => Ok(0),
                Some(Value::Number(n)) => n
                    .as_u64()
                    .ok_or_else(|| format!("`{name}` is {n}, not a count or position")),
                Some(Value::String(s)) => s
                    .parse()
                    .map_err(|_| format!("`{name}` is {s:?}, not a count or position")),
                Some(other) => Err(format!("`{name}` is {other}, not a number")),
            }
        };
        let gtids = match map.get("gtids") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(Value::String(s)) => Some(s.replace('\n', "")),
            Some(other) => return Err(format!("`gtids` is {other}, not a GTID set")),
        };
        let snapshot = match map.get("snapshot") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => None,
            Some(Value::Bool(true)) => Some("INITIAL".into()),
            Some(Value::String(s)) if s == "true" => Some("INITIAL".into()),
            Some(Value::String(s)) if s == "false" => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => return Err(format!("`snapshot` is {other}")),
        };
        let text = |name: &str| -> Result<Option<String>, String> {
            match map.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(format!("`{name}` is {other}, not a string")),
            }
        };
        Ok(SourceOffset {
            file,
            pos: number("pos")?,
            gtids,
            event: number("event")?,
            row: number("row")?,
            server_id: number("server_id")?,
            ts_sec: number("ts_sec")?,
            snapshot_table: snapshot
                .as_ref()
                .map(|_| text("snapshot_table"))
                .transpose()?
                .flatten(),
            snapshot_last_key: snapshot
                .as_ref()
                .map(|_| text("snapshot_last_key"))
                .transpose()?
                .flatten(),
            snapshot,
        })
    }

    /// Reads an offset's JSON text.
    pub fn from_json(json: &[u8]) -> Result<SourceOffset, String> {
        match serde_json::from_slice::<Value>(json) {
            Ok(Value::Object(map)) => SourceOffset::from_map(&map),
            Ok(other) => Err(format!("the offset is {other}, not a JSON object")),
            Err(e) => Err(format!("the offset is not JSON: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binlog_position_becomes_debeziums_offset_map() {
        let between = BinlogPosition::new("binlog.000004", 1234).with_gtid("0-1-77".parse().ok());
        assert_eq!(
            SourceOffset::at(&between).to_json(),
            r#"{"file":"binlog.000004","pos":1234,"gtids":"0-1-77"}"#
        );
        let no_gtid = SourceOffset::at(&BinlogPosition::new("binlog.000004", 4));
        assert_eq!(no_gtid.to_json(), r#"{"file":"binlog.000004","pos":4}"#);
    }

    #[test]
    fn key_json_is_kafka_connects() {
        let key = OffsetKey::new("engine", "dbserver1");
        assert_eq!(key.to_json(), r#"["engine",{"server":"dbserver1"}]"#);
        assert!(key.matches(br#"[ "engine", { "server" : "dbserver1" } ]"#));
        assert!(!key.matches(br#"["engine",{"server":"other"}]"#));
        assert!(!key.matches(br#"["other",{"server":"dbserver1"}]"#));
        assert!(!key.matches(b"not json"));
    }

    #[test]
    fn offsets_round_trip_and_leave_unset_fields_out() {
        let between = SourceOffset {
            file: "mysql-bin.000003".into(),
            pos: 391,
            server_id: 223344,
            ts_sec: 1714566645,
            ..Default::default()
        };
        assert_eq!(
            between.to_json(),
            r#"{"ts_sec":1714566645,"file":"mysql-bin.000003","pos":391,"server_id":223344}"#
        );
        let inside = SourceOffset {
            event: 2,
            row: 1,
            gtids: Some("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-57".into()),
            ..between.clone()
        };
        assert!(inside.is_inside_transaction() && !between.is_inside_transaction());
        for o in [between, inside] {
            assert_eq!(SourceOffset::from_json(o.to_json().as_bytes()), Ok(o));
        }
    }

    #[test]
    fn snapshot_progress_round_trips() {
        let o = SourceOffset {
            file: "mysql-bin.000002".into(),
            pos: 1234,
            snapshot: Some("INITIAL".into()),
            snapshot_table: Some("shop.orders".into()),
            snapshot_last_key: Some("3132,".into()),
            ..Default::default()
        };
        assert_eq!(
            o.to_json(),
            r#"{"file":"mysql-bin.000002","pos":1234,"snapshot":"INITIAL","snapshot_table":"shop.orders","snapshot_last_key":"3132,"}"#
        );
        assert_eq!(SourceOffset::from_json(o.to_json().as_bytes()), Ok(o));
        // Debezium's own offset in the middle of its snapshot: no progress.
        let d = SourceOffset::from_json(br#"{"file":"f.000001","pos":4,"snapshot":"INITIAL"}"#)
            .unwrap();
        assert_eq!(
            (d.snapshot.as_deref(), d.snapshot_table),
            (Some("INITIAL"), None)
        );
    }

    #[test]
    fn java_written_offsets_load() {
        let o = SourceOffset::from_json(
            br#"{"file":"mysql-bin.000003","pos":"154","gtids":"a:1-5,\nb:1-2","snapshot":true,"row":1}"#,
        )
        .unwrap();
        assert_eq!(o.pos, 154);
        assert_eq!(o.gtids.as_deref(), Some("a:1-5,b:1-2"));
        assert_eq!(o.snapshot.as_deref(), Some("INITIAL"));
        assert_eq!((o.event, o.row), (0, 1));
        assert!(SourceOffset::from_json(br#"{"pos":4}"#)
            .unwrap_err()
            .contains("no `file`"));
        assert!(SourceOffset::from_json(br#"{"file":"f","pos":-1}"#).is_err());
    }
}
