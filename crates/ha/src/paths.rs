//! Canal's ZooKeeper layout: the node paths under `/otter/canal` and the JSON
//! of the `running` nodes, byte for byte as Canal (fastjson, keys in
//! alphabetical order) writes them, so Canal servers, Canal's Java cluster
//! client and Sluice can share one ZooKeeper.
//!
//! | path | kind | content |
//! |---|---|---|
//! | `/otter/canal/cluster/{ip:port}` | ephemeral | none: a live server |
//! | `/otter/canal/destinations/{dest}/running` | ephemeral | [`ServerRunningData`] |
//! | `/otter/canal/destinations/{dest}/cluster/{ip:port}` | ephemeral | none: a server that can run `dest` |
//! | `/otter/canal/destinations/{dest}/{clientId}` | persistent | none: a subscription |
//! | `/otter/canal/destinations/{dest}/{clientId}/filter` | persistent | the filter, raw UTF-8 |
//! | `/otter/canal/destinations/{dest}/{clientId}/cursor` | persistent | LogPosition JSON with `@type` |
//! | `/otter/canal/destinations/{dest}/{clientId}/running` | ephemeral | [`ClientRunningData`] |
//! | `/otter/canal/destinations/{dest}/schema-history` | persistent | none: Sluice's schema history of `dest` |
//! | `/otter/canal/destinations/{dest}/schema-history/record-{seq}` | persistent sequential | one history record |
//! | `/otter/canal/destinations/{dest}/schema-history/record-{seq}/chunk-{i}` | persistent | part of a big record |
//! | `/otter/canal/destinations/{dest}/sluice-start` | persistent | Sluice's first start position of `dest`, EntryPosition JSON |
//!
//! The schema history is Sluice's own (Canal keeps its table meta history
//! in a database); its node is named so that nobody takes it for a client
//! id (see [`parse_client_id`]). The record format is described in
//! `crate::schema_history`.
//!
//! Everything here is pure: no I/O.

use serde::{Deserialize, Serialize};

/// Canal's root node.
pub const CANAL_ROOT: &str = "/otter/canal";

/// Parent of the servers' ephemeral registration nodes.
pub const CLUSTER_ROOT: &str = "/otter/canal/cluster";

/// Parent of the destinations.
pub const DESTINATIONS_ROOT: &str = "/otter/canal/destinations";

/// `/otter/canal/cluster/{address}`: a running server (ephemeral, no data).
pub fn cluster_node(address: &str) -> String {
    format!("{CLUSTER_ROOT}/{address}")
}

/// `/otter/canal/destinations/{dest}` (persistent, no data).
pub fn destination(dest: &str) -> String {
    format!("{DESTINATIONS_ROOT}/{dest}")
}

/// `/otter/canal/destinations/{dest}/running`: the server that runs `dest`
/// (ephemeral, [`ServerRunningData`]).
pub fn destination_running(dest: &str) -> String {
    format!("{DESTINATIONS_ROOT}/{dest}/running")
}

/// `/otter/canal/destinations/{dest}/cluster` (persistent, no data).
pub fn destination_cluster(dest: &str) -> String {
    format!("{DESTINATIONS_ROOT}/{dest}/cluster")
}

/// `/otter/canal/destinations/{dest}/cluster/{address}`: a server that can
/// run `dest` (ephemeral, no data).
pub fn destination_cluster_node(dest: &str, address: &str) -> String {
    format!("{DESTINATIONS_ROOT}/{dest}/cluster/{address}")
}

/// `/otter/canal/destinations/{dest}/parse`: the parser position Canal's
/// manager mode keeps (persistent, LogPosition JSON without `@type`).
pub fn destination_parse(dest: &str) -> String {
    format!("{DESTINATIONS_ROOT}/{dest}/parse")
}

/// The name of a destination's schema history node: not a number, so Canal
/// and the cursor store never take it for a client id.
pub const SCHEMA_HISTORY_NODE: &str = "schema-history";

/// The prefix of the schema history's sequential record nodes.
pub const SCHEMA_HISTORY_RECORD_PREFIX: &str = "record-";

/// `/otter/canal/destinations/{dest}/schema-history`: the schema history of
/// `dest` (persistent, no data).
pub fn schema_history(dest: &str) -> String {
    format!("{DESTINATIONS_ROOT}/{dest}/{SCHEMA_HISTORY_NODE}")
}

/// `/otter/canal/destinations/{dest}/schema-history/record-`: what a record
/// node is created as; ZooKeeper appends the sequence number
/// (`record-0000000012`).
pub fn schema_history_record_prefix(dest: &str) -> String {
    format!("{DESTINATIONS_ROOT}/{dest}/{SCHEMA_HISTORY_NODE}/{SCHEMA_HISTORY_RECORD_PREFIX}")
}

/// The sequence number of a schema history record node (`record-0000000012`
/// → 12); `None` for other names.
pub fn parse_schema_history_record(child: &str) -> Option<i64> {
    let digits = child.strip_prefix(SCHEMA_HISTORY_RECORD_PREFIX)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `{record}/chunk-{index}` (four digits at least): one part of a record
/// too big for one node.
pub fn schema_history_chunk(record: &str, index: usize) -> String {
    format!("{record}/chunk-{index:04}")
}

/// The name of a destination's first start position node: not a number,
/// so Canal and the cursor store never take it for a client id.
pub const START_POSITION_NODE: &str = "sluice-start";
/// See [`snapshot_progress`].
pub const SNAPSHOT_NODE: &str = "sluice-snapshot";

/// `/otter/canal/destinations/{dest}/sluice-start`: where `dest`'s first
/// stream started (persistent, EntryPosition JSON), for a server that has
/// no client cursor yet.
pub fn start_position(dest: &str) -> String {
    format!("{DESTINATIONS_ROOT}/{dest}/{START_POSITION_NODE}")
}

/// `/otter/canal/destinations/{dest}/sluice-snapshot`: how far `dest`'s
/// initial snapshot has come (persistent, JSON).
pub fn snapshot_progress(dest: &str) -> String {
    format!("{DESTINATIONS_ROOT}/{dest}/{SNAPSHOT_NODE}")
}

/// `/otter/canal/destinations/{dest}/{clientId}`: a subscription (persistent, no data).
pub fn client(dest: &str, client_id: i16) -> String {
    format!("{DESTINATIONS_ROOT}/{dest}/{client_id}")
}

/// `/otter/canal/destinations/{dest}/{clientId}/filter`: the subscription's
/// filter as raw UTF-8 (persistent; only when the filter is not blank).
pub fn client_filter(dest: &str, client_id: i16) -> String {
    format!("{DESTINATIONS_ROOT}/{dest}/{client_id}/filter")
}

/// `/otter/canal/destinations/{dest}/{clientId}/cursor`: the acknowledged
/// position (persistent, LogPosition JSON with `@type`).
pub fn client_cursor(dest: &str, client_id: i16) -> String {
    format!("{DESTINATIONS_ROOT}/{dest}/{client_id}/cursor")
}

/// `/otter/canal/destinations/{dest}/{clientId}/running`: the client process
/// that consumes for `clientId` (ephemeral, [`ClientRunningData`]).
pub fn client_running(dest: &str, client_id: i16) -> String {
    format!("{DESTINATIONS_ROOT}/{dest}/{client_id}/running")
}

/// The client id a child of a destination node stands for: the children
/// named by a decimal number are subscriptions, the others (`running`,
/// `cluster`, `parse`) are not.
pub fn parse_client_id(child: &str) -> Option<i16> {
    if child.is_empty() || !child.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    child.parse().ok()
}

/// The parent of a node path (`None` for `/` and relative paths).
pub fn parent(path: &str) -> Option<&str> {
    let i = path.rfind('/')?;
    if i == 0 {
        return if path.len() > 1 { Some("/") } else { None };
    }
    Some(&path[..i])
}

/// Why a name cannot be one node of a path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} {name:?} cannot be a ZooKeeper node name: {reason}")]
pub struct InvalidName {
    pub what: &'static str,
    pub name: String,
    pub reason: &'static str,
}

/// Checks that `name` (a destination or an `ip:port` address) is one valid
/// node name: not empty, not `.`/`..`, no `/`, no control characters.
pub fn check_node_name(what: &'static str, name: &str) -> Result<(), InvalidName> {
    let reason = if name.is_empty() {
        Some("it is empty")
    } else if name == "." || name == ".." {
        Some("`.` and `..` are reserved")
    } else if name.contains('/') {
        Some("it contains `/`")
    } else if name.chars().any(char::is_control) {
        Some("it contains a control character")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(InvalidName {
            what,
            name: name.to_string(),
            reason,
        }),
        None => Ok(()),
    }
}

fn default_true() -> bool {
    true
}

/// The data of a destination's `running` node: which server runs it.
///
/// Written as `{"active":true,"address":"10.0.0.5:11111"}`. Older Canal
/// servers also wrote a `cid` number, which is read and kept but not written.
/// `active:false` written by the owner asks it to release the destination.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRunningData {
    /// Missing means true (the Java field's default).
    #[serde(default = "default_true")]
    pub active: bool,
    /// `ip:port` of the server's Canal port.
    pub address: String,
    /// Old servers' cluster id; never written.
    #[serde(default, skip_serializing)]
    pub cid: Option<i64>,
}

impl ServerRunningData {
    /// An active server at `address`.
    pub fn new(address: impl Into<String>) -> Self {
        ServerRunningData {
            active: true,
            address: address.into(),
            cid: None,
        }
    }

    /// Canal's JSON bytes.
    pub fn to_json(&self) -> Vec<u8> {
        json_bytes(self)
    }

    /// Reads Canal's JSON (with or without `cid`, extra fields ignored).
    pub fn from_json(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes)
    }
}

/// The data of a client's `running` node: which client process consumes for
/// the client id. Written as `{"active":true,"address":"10.0.0.9","clientId":1001}`
/// (`address` is the client's IP, without port, as Canal's Java client writes it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientRunningData {
    #[serde(default = "default_true")]
    pub active: bool,
    pub address: String,
    pub client_id: i16,
}

impl ClientRunningData {
    /// An active client at `address` consuming for `client_id`.
    pub fn new(address: impl Into<String>, client_id: i16) -> Self {
        ClientRunningData {
            active: true,
            address: address.into(),
            client_id,
        }
    }

    /// Canal's JSON bytes.
    pub fn to_json(&self) -> Vec<u8> {
        json_bytes(self)
    }

    /// Reads Canal's JSON (extra fields ignored).
    pub fn from_json(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes)
    }
}

/// What every `running` node says, whoever wrote it: whether the holder is
/// active and its address.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RunningInfo {
    #[serde(default = "default_true")]
    pub active: bool,
    pub address: String,
}

impl RunningInfo {
    /// Reads the common part of [`ServerRunningData`] and [`ClientRunningData`].
    pub fn from_json(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes)
    }
}

fn json_bytes<T: Serialize>(value: &T) -> Vec<u8> {
    // Serializing these plain structs cannot fail.
    serde_json::to_vec(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canal_paths() {
        assert_eq!(
            cluster_node("10.0.0.5:11111"),
            "/otter/canal/cluster/10.0.0.5:11111"
        );
        assert_eq!(destination("example"), "/otter/canal/destinations/example");
        assert_eq!(
            destination_running("example"),
            "/otter/canal/destinations/example/running"
        );
        assert_eq!(
            destination_cluster("example"),
            "/otter/canal/destinations/example/cluster"
        );
        assert_eq!(
            destination_cluster_node("example", "10.0.0.5:11111"),
            "/otter/canal/destinations/example/cluster/10.0.0.5:11111"
        );
        assert_eq!(
            destination_parse("example"),
            "/otter/canal/destinations/example/parse"
        );
        assert_eq!(
            client("example", 1001),
            "/otter/canal/destinations/example/1001"
        );
        assert_eq!(
            client_filter("example", 1001),
            "/otter/canal/destinations/example/1001/filter"
        );
        assert_eq!(
            client_cursor("example", 1001),
            "/otter/canal/destinations/example/1001/cursor"
        );
        assert_eq!(
            client_running("example", 1001),
            "/otter/canal/destinations/example/1001/running"
        );
        assert_eq!(
            schema_history("example"),
            "/otter/canal/destinations/example/schema-history"
        );
        assert_eq!(
            schema_history_record_prefix("example"),
            "/otter/canal/destinations/example/schema-history/record-"
        );
        assert_eq!(
            schema_history_chunk(
                "/otter/canal/destinations/example/schema-history/record-0000000012",
                3
            ),
            "/otter/canal/destinations/example/schema-history/record-0000000012/chunk-0003"
        );
    }

    #[test]
    fn the_schema_history_node_is_no_client_id() {
        assert_eq!(parse_client_id(SCHEMA_HISTORY_NODE), None);
        let history = schema_history("example");
        let child = history.rsplit('/').next().unwrap();
        assert_eq!(child, SCHEMA_HISTORY_NODE);
        assert_eq!(parse_client_id(child), None);
    }

    #[test]
    fn schema_history_record_names() {
        assert_eq!(parse_schema_history_record("record-0000000012"), Some(12));
        assert_eq!(
            parse_schema_history_record("record-0000000002147483648"),
            Some(2_147_483_648)
        );
        for other in ["record-", "record-12a", "chunk-0001", "12", "record--1"] {
            assert_eq!(parse_schema_history_record(other), None, "{other}");
        }
    }

    #[test]
    fn client_ids_are_the_numeric_children() {
        assert_eq!(parse_client_id("1001"), Some(1001));
        assert_eq!(parse_client_id("1"), Some(1));
        for other in [
            "running", "cluster", "parse", "", "-1", "+5", "1001a", "40000",
        ] {
            assert_eq!(parse_client_id(other), None, "{other}");
        }
    }

    #[test]
    fn parents() {
        assert_eq!(parent("/otter/canal/cluster"), Some("/otter/canal"));
        assert_eq!(parent("/otter"), Some("/"));
        assert_eq!(parent("/"), None);
        assert_eq!(parent("otter"), None);
    }

    #[test]
    fn node_names() {
        assert!(check_node_name("destination", "example").is_ok());
        assert!(check_node_name("address", "10.0.0.5:11111").is_ok());
        for bad in ["", ".", "..", "a/b", "a\nb"] {
            let e = check_node_name("destination", bad).unwrap_err();
            assert!(e.to_string().contains("destination"), "{e}");
        }
    }

    #[test]
    fn server_running_json_is_canals() {
        let d = ServerRunningData::new("10.0.0.5:11111");
        assert_eq!(
            d.to_json(),
            br#"{"active":true,"address":"10.0.0.5:11111"}"#.to_vec()
        );
        let released = ServerRunningData {
            active: false,
            ..d.clone()
        };
        assert_eq!(
            released.to_json(),
            br#"{"active":false,"address":"10.0.0.5:11111"}"#.to_vec()
        );
        assert_eq!(ServerRunningData::from_json(&d.to_json()).unwrap(), d);
    }

    #[test]
    fn old_server_running_json_with_cid_is_read_and_not_written() {
        let old = br#"{"active":true,"address":"172.17.1.181:11121","cid":1}"#;
        let d = ServerRunningData::from_json(old).unwrap();
        assert!(d.active);
        assert_eq!(d.address, "172.17.1.181:11121");
        assert_eq!(d.cid, Some(1));
        assert_eq!(
            d.to_json(),
            br#"{"active":true,"address":"172.17.1.181:11121"}"#.to_vec()
        );
        // The Java field defaults to true; unknown fields are ignored.
        let d = ServerRunningData::from_json(br#"{"address":"h:1","extra":[1]}"#).unwrap();
        assert!(d.active);
        assert!(ServerRunningData::from_json(br#"{"active":true}"#).is_err());
        assert!(ServerRunningData::from_json(b"not json").is_err());
    }

    #[test]
    fn client_running_json_is_canals() {
        let d = ClientRunningData::new("10.0.0.9", 1001);
        assert_eq!(
            d.to_json(),
            br#"{"active":true,"address":"10.0.0.9","clientId":1001}"#.to_vec()
        );
        assert_eq!(ClientRunningData::from_json(&d.to_json()).unwrap(), d);
        let info = RunningInfo::from_json(&d.to_json()).unwrap();
        assert_eq!(
            info,
            RunningInfo {
                active: true,
                address: "10.0.0.9".into()
            }
        );
    }
}
