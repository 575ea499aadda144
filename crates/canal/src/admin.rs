//! Canal's admin protocol (`AdminProtocol.proto`), spoken on
//! `canal.admin.port` by canal-admin: the same framing, handshake and
//! scramble login as the client protocol, its own packet types, and
//! requests whose answer is an [`Ack`] carrying the result as text.
//!
//! Canal's Java side is proto3-generated: the `oneof`-wrapped fields are on
//! the wire only when set (prost `optional`), plain scalars only when not
//! zero or empty. Note `Packet.body` is field 4 here (5 in the client
//! protocol).

use prost::{Enumeration, Message};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Enumeration)]
#[repr(i32)]
pub enum PacketType {
    Compatible = 0,
    Handshake = 1,
    ClientAuthentication = 2,
    Ack = 3,
    /// A [`ServerAdmin`] request.
    Server = 4,
    /// An [`InstanceAdmin`] request.
    Instance = 5,
    /// A [`LogAdmin`] request.
    Log = 6,
}

/// The frame body of every admin message in both directions.
#[derive(Clone, PartialEq, Message)]
pub struct Packet {
    #[prost(int32, optional, tag = "1")]
    pub magic_number: Option<i32>,
    /// Canal's server sets 1 on everything it sends; canal-admin checks it
    /// on the handshake.
    #[prost(int32, optional, tag = "2")]
    pub version: Option<i32>,
    #[prost(enumeration = "PacketType", tag = "3")]
    pub r#type: i32,
    #[prost(bytes = "vec", tag = "4")]
    pub body: Vec<u8>,
}

/// Every reply after the handshake. Canal sets `code` explicitly, 0 on
/// success; `message` is the result ("1"/"0", a list, log text) or the
/// error.
#[derive(Clone, PartialEq, Message)]
pub struct Ack {
    #[prost(int32, optional, tag = "1")]
    pub code: Option<i32>,
    #[prost(string, tag = "2")]
    pub message: String,
}

#[derive(Clone, PartialEq, Message)]
pub struct Handshake {
    #[prost(string, optional, tag = "1")]
    pub communication_encoding: Option<String>,
    #[prost(bytes = "vec", tag = "2")]
    pub seeds: Vec<u8>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ClientAuth {
    #[prost(string, tag = "1")]
    pub username: String,
    /// The ASCII hex of the scrambled password (see [`crate::auth`]).
    #[prost(bytes = "vec", tag = "2")]
    pub password: Vec<u8>,
    /// Idle timeouts in milliseconds (the proto's comment says seconds;
    /// Canal's server reads milliseconds).
    #[prost(int32, optional, tag = "3")]
    pub net_read_timeout: Option<i32>,
    #[prost(int32, optional, tag = "4")]
    pub net_write_timeout: Option<i32>,
}

/// `check`, `start`, `stop`, `restart` or `list`.
#[derive(Clone, PartialEq, Message)]
pub struct ServerAdmin {
    #[prost(string, tag = "1")]
    pub action: String,
}

/// `check`, `start`, `stop`, `release` or `restart` of one destination.
#[derive(Clone, PartialEq, Message)]
pub struct InstanceAdmin {
    #[prost(string, tag = "1")]
    pub destination: String,
    #[prost(string, tag = "2")]
    pub action: String,
}

/// `type` is `server` or `instance`; `action` `list` lists the log files,
/// anything else (canal-admin sends `file`) asks for the last `count` lines
/// of a file.
#[derive(Clone, PartialEq, Message)]
pub struct LogAdmin {
    #[prost(string, tag = "1")]
    pub r#type: String,
    #[prost(string, tag = "2")]
    pub action: String,
    #[prost(string, optional, tag = "3")]
    pub destination: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub file: Option<String>,
    #[prost(int32, optional, tag = "5")]
    pub count: Option<i32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_ack_carries_code_zero_and_the_message() {
        // Canal: Ack.newBuilder().setCode(0).setMessage("1").
        let ack = Ack {
            code: Some(0),
            message: "1".into(),
        };
        assert_eq!(ack.encode_to_vec(), [0x08, 0x00, 0x12, 0x01, b'1']);
        let p = Packet {
            version: Some(1),
            r#type: PacketType::Ack as i32,
            body: ack.encode_to_vec(),
            ..Default::default()
        };
        assert_eq!(
            p.encode_to_vec(),
            [0x10, 0x01, 0x18, 0x03, 0x22, 0x05, 0x08, 0x00, 0x12, 0x01, b'1']
        );
    }

    #[test]
    fn log_admin_round_trips_with_its_optional_fields() {
        let la = LogAdmin {
            r#type: "instance".into(),
            action: "file".into(),
            destination: Some("example".into()),
            file: None,
            count: Some(100),
        };
        let bytes = la.encode_to_vec();
        assert_eq!(LogAdmin::decode(bytes.as_slice()).ok(), Some(la));
    }
}
