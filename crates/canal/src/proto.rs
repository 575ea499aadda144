//! Canal's protobuf messages (`CanalProtocol.proto` and `EntryProtocol.proto`),
//! declared with prost's derive so no protoc or build script is needed.
//!
//! Canal's Java side serialises `Entry` and its parts with proto2 semantics
//! (every field it sets is on the wire, even when equal to the default) and
//! the `Packet` family with proto3 `oneof` wrappers (on the wire only when
//! set). Both map to prost `optional` fields: `Some` is always encoded.
//! Enum value 0 must never be sent (a proto2 reader treats it as unknown).

use prost::bytes::Bytes;
use prost::{Enumeration, Message};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Enumeration)]
#[repr(i32)]
pub enum PacketType {
    Compatible = 0,
    Handshake = 1,
    ClientAuthentication = 2,
    Ack = 3,
    Subscription = 4,
    Unsubscription = 5,
    Get = 6,
    Messages = 7,
    ClientAck = 8,
    Shutdown = 9,
    Dump = 10,
    Heartbeat = 11,
    ClientRollback = 12,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Enumeration)]
#[repr(i32)]
pub enum Compression {
    Compatible = 0,
    None = 1,
    Zlib = 2,
    Gzip = 3,
    Lzf = 4,
}

/// The frame body of every message in both directions.
#[derive(Clone, PartialEq, Message)]
pub struct Packet {
    #[prost(int32, optional, tag = "1")]
    pub magic_number: Option<i32>,
    #[prost(int32, optional, tag = "2")]
    pub version: Option<i32>,
    #[prost(enumeration = "PacketType", tag = "3")]
    pub r#type: i32,
    #[prost(enumeration = "Compression", optional, tag = "4")]
    pub compression: Option<i32>,
    #[prost(bytes = "vec", tag = "5")]
    pub body: Vec<u8>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Handshake {
    #[prost(string, optional, tag = "1")]
    pub communication_encoding: Option<String>,
    #[prost(bytes = "vec", tag = "2")]
    pub seeds: Vec<u8>,
    #[prost(enumeration = "Compression", tag = "3")]
    pub supported_compressions: i32,
}

#[derive(Clone, PartialEq, Message)]
pub struct ClientAuth {
    #[prost(string, tag = "1")]
    pub username: String,
    #[prost(bytes = "vec", tag = "2")]
    pub password: Vec<u8>,
    #[prost(int32, optional, tag = "3")]
    pub net_read_timeout: Option<i32>,
    #[prost(int32, optional, tag = "4")]
    pub net_write_timeout: Option<i32>,
    #[prost(string, tag = "5")]
    pub destination: String,
    #[prost(string, tag = "6")]
    pub client_id: String,
    #[prost(string, tag = "7")]
    pub filter: String,
    #[prost(int64, tag = "8")]
    pub start_timestamp: i64,
}

#[derive(Clone, PartialEq, Message)]
pub struct Ack {
    #[prost(int32, optional, tag = "1")]
    pub error_code: Option<i32>,
    #[prost(string, tag = "2")]
    pub error_message: String,
}

#[derive(Clone, PartialEq, Message)]
pub struct ClientAck {
    #[prost(string, tag = "1")]
    pub destination: String,
    #[prost(string, tag = "2")]
    pub client_id: String,
    #[prost(int64, tag = "3")]
    pub batch_id: i64,
}

#[derive(Clone, PartialEq, Message)]
pub struct Sub {
    #[prost(string, tag = "1")]
    pub destination: String,
    #[prost(string, tag = "2")]
    pub client_id: String,
    #[prost(string, tag = "7")]
    pub filter: String,
}

#[derive(Clone, PartialEq, Message)]
pub struct Unsub {
    #[prost(string, tag = "1")]
    pub destination: String,
    #[prost(string, tag = "2")]
    pub client_id: String,
    #[prost(string, tag = "7")]
    pub filter: String,
}

#[derive(Clone, PartialEq, Message)]
pub struct Get {
    #[prost(string, tag = "1")]
    pub destination: String,
    #[prost(string, tag = "2")]
    pub client_id: String,
    #[prost(int32, tag = "3")]
    pub fetch_size: i32,
    /// -1: non-blocking; absent or 0: block until a full batch; >0: wait that long.
    #[prost(int64, optional, tag = "4")]
    pub timeout: Option<i64>,
    /// java.util.concurrent.TimeUnit ordinal; anything else means milliseconds.
    #[prost(int32, optional, tag = "5")]
    pub unit: Option<i32>,
    #[prost(bool, optional, tag = "6")]
    pub auto_ack: Option<bool>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Messages {
    #[prost(int64, tag = "1")]
    pub batch_id: i64,
    /// Each element is one serialised [`Entry`].
    #[prost(bytes = "vec", repeated, tag = "2")]
    pub messages: Vec<Vec<u8>>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ClientRollback {
    #[prost(string, tag = "1")]
    pub destination: String,
    #[prost(string, tag = "2")]
    pub client_id: String,
    #[prost(int64, tag = "3")]
    pub batch_id: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Enumeration)]
#[repr(i32)]
pub enum EntryType {
    Compatible = 0,
    TransactionBegin = 1,
    RowData = 2,
    TransactionEnd = 3,
    Heartbeat = 4,
    GtidLog = 5,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Enumeration)]
#[repr(i32)]
pub enum EventType {
    Compatible = 0,
    Insert = 1,
    Update = 2,
    Delete = 3,
    Create = 4,
    Alter = 5,
    Erase = 6,
    Query = 7,
    Truncate = 8,
    Rename = 9,
    Cindex = 10,
    Dindex = 11,
    Gtid = 12,
    XaCommit = 13,
    XaRollback = 14,
    MHeartbeat = 15,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Enumeration)]
#[repr(i32)]
pub enum SourceType {
    Compatible = 0,
    Oracle = 1,
    Mysql = 2,
    Pgsql = 3,
}

#[derive(Clone, PartialEq, Message)]
pub struct Entry {
    #[prost(message, optional, tag = "1")]
    pub header: Option<Header>,
    #[prost(enumeration = "EntryType", optional, tag = "2")]
    pub entry_type: Option<i32>,
    /// Serialised `TransactionBegin`, `TransactionEnd` or `RowChange`.
    /// `Bytes`: a client decoding an entry from a received frame keeps a
    /// view of it instead of a copy.
    #[prost(bytes = "bytes", optional, tag = "3")]
    pub store_value: Option<Bytes>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Header {
    #[prost(int32, optional, tag = "1")]
    pub version: Option<i32>,
    #[prost(string, optional, tag = "2")]
    pub logfile_name: Option<String>,
    #[prost(int64, optional, tag = "3")]
    pub logfile_offset: Option<i64>,
    #[prost(int64, optional, tag = "4")]
    pub server_id: Option<i64>,
    #[prost(string, optional, tag = "5")]
    pub serverenc_code: Option<String>,
    #[prost(int64, optional, tag = "6")]
    pub execute_time: Option<i64>,
    #[prost(enumeration = "SourceType", optional, tag = "7")]
    pub source_type: Option<i32>,
    #[prost(string, optional, tag = "8")]
    pub schema_name: Option<String>,
    #[prost(string, optional, tag = "9")]
    pub table_name: Option<String>,
    #[prost(int64, optional, tag = "10")]
    pub event_length: Option<i64>,
    #[prost(enumeration = "EventType", optional, tag = "11")]
    pub event_type: Option<i32>,
    #[prost(message, repeated, tag = "12")]
    pub props: Vec<Pair>,
    #[prost(string, optional, tag = "13")]
    pub gtid: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Column {
    #[prost(int32, optional, tag = "1")]
    pub index: Option<i32>,
    #[prost(int32, optional, tag = "2")]
    pub sql_type: Option<i32>,
    #[prost(string, optional, tag = "3")]
    pub name: Option<String>,
    #[prost(bool, optional, tag = "4")]
    pub is_key: Option<bool>,
    #[prost(bool, optional, tag = "5")]
    pub updated: Option<bool>,
    #[prost(bool, optional, tag = "6")]
    pub is_null: Option<bool>,
    #[prost(message, repeated, tag = "7")]
    pub props: Vec<Pair>,
    #[prost(string, optional, tag = "8")]
    pub value: Option<String>,
    #[prost(int32, optional, tag = "9")]
    pub length: Option<i32>,
    #[prost(string, optional, tag = "10")]
    pub mysql_type: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct RowData {
    #[prost(message, repeated, tag = "1")]
    pub before_columns: Vec<Column>,
    #[prost(message, repeated, tag = "2")]
    pub after_columns: Vec<Column>,
    #[prost(message, repeated, tag = "3")]
    pub props: Vec<Pair>,
}

#[derive(Clone, PartialEq, Message)]
pub struct RowChange {
    #[prost(int64, optional, tag = "1")]
    pub table_id: Option<i64>,
    #[prost(enumeration = "EventType", optional, tag = "2")]
    pub event_type: Option<i32>,
    #[prost(bool, optional, tag = "10")]
    pub is_ddl: Option<bool>,
    #[prost(string, optional, tag = "11")]
    pub sql: Option<String>,
    #[prost(message, repeated, tag = "12")]
    pub row_datas: Vec<RowData>,
    #[prost(message, repeated, tag = "13")]
    pub props: Vec<Pair>,
    #[prost(string, optional, tag = "14")]
    pub ddl_schema_name: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct TransactionBegin {
    #[prost(int64, optional, tag = "1")]
    pub execute_time: Option<i64>,
    #[prost(string, optional, tag = "2")]
    pub transaction_id: Option<String>,
    #[prost(message, repeated, tag = "3")]
    pub props: Vec<Pair>,
    #[prost(int64, optional, tag = "4")]
    pub thread_id: Option<i64>,
}

#[derive(Clone, PartialEq, Message)]
pub struct TransactionEnd {
    #[prost(int64, optional, tag = "1")]
    pub execute_time: Option<i64>,
    #[prost(string, optional, tag = "2")]
    pub transaction_id: Option<String>,
    #[prost(message, repeated, tag = "3")]
    pub props: Vec<Pair>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Pair {
    #[prost(string, optional, tag = "1")]
    pub key: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub value: Option<String>,
}

impl Pair {
    pub fn new(key: impl Into<String>, value: impl Into<String>) -> Self {
        Pair {
            key: Some(key.into()),
            value: Some(value.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handshake_packet_bytes_match_canal() {
        // Spec §5: seed 01..08 gives these exact bytes.
        let hs = Handshake {
            seeds: (1..=8).collect(),
            ..Default::default()
        };
        let p = Packet {
            version: Some(1),
            r#type: PacketType::Handshake as i32,
            body: hs.encode_to_vec(),
            ..Default::default()
        };
        assert_eq!(
            p.encode_to_vec(),
            [0x10, 0x01, 0x18, 0x01, 0x2a, 0x0a, 0x12, 0x08, 1, 2, 3, 4, 5, 6, 7, 8]
        );
    }

    #[test]
    fn empty_batch_bytes_match_canal() {
        let m = Messages {
            batch_id: -1,
            messages: vec![],
        };
        let p = Packet {
            version: Some(1),
            r#type: PacketType::Messages as i32,
            body: m.encode_to_vec(),
            ..Default::default()
        };
        assert_eq!(
            p.encode_to_vec(),
            [
                0x10, 0x01, 0x18, 0x07, 0x2a, 0x0b, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                0xff, 0xff, 0x01
            ]
        );
    }

    #[test]
    fn success_ack_is_version_and_type_only() {
        let p = Packet {
            version: Some(1),
            r#type: PacketType::Ack as i32,
            ..Default::default()
        };
        assert_eq!(p.encode_to_vec(), [0x10, 0x01, 0x18, 0x03]);
    }

    #[test]
    fn proto2_fields_are_encoded_even_when_default() {
        let c = Column {
            is_null: Some(false),
            value: Some(String::new()),
            ..Default::default()
        };
        let bytes = c.encode_to_vec();
        assert_eq!(bytes, [0x30, 0x00, 0x42, 0x00]);
        assert_eq!(Column::decode(bytes.as_slice()).ok(), Some(c));
    }
}
