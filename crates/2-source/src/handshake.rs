//! The connection phase of protocol v10, as pure functions: parsing the
//! server's greeting, choosing capability flags, building the SSL request and
//! the handshake response, and reading the generic OK, ERR, EOF and
//! auth-switch packets.
//!
//! Owns: packet layouts and capability negotiation. Must never: do I/O, decide
//! policy (which plugin, whether TLS is required: that is `conn`'s), or keep
//! the password anywhere but in the response it is asked to build.

use crate::packet::{put_lenenc_bytes, put_nul_bytes, Reader, WireError};

/// Capability flags (`CLIENT_*`).
pub mod caps {
    pub const LONG_PASSWORD: u32 = 1;
    pub const FOUND_ROWS: u32 = 1 << 1;
    pub const LONG_FLAG: u32 = 1 << 2;
    pub const CONNECT_WITH_DB: u32 = 1 << 3;
    pub const PROTOCOL_41: u32 = 1 << 9;
    pub const SSL: u32 = 1 << 11;
    pub const TRANSACTIONS: u32 = 1 << 13;
    pub const SECURE_CONNECTION: u32 = 1 << 15;
    pub const MULTI_STATEMENTS: u32 = 1 << 16;
    pub const MULTI_RESULTS: u32 = 1 << 17;
    pub const PLUGIN_AUTH: u32 = 1 << 19;
    pub const CONNECT_ATTRS: u32 = 1 << 20;
    pub const PLUGIN_AUTH_LENENC_CLIENT_DATA: u32 = 1 << 21;
    pub const DEPRECATE_EOF: u32 = 1 << 24;
}

/// utf8mb4_general_ci: known to MySQL and MariaDB alike.
pub const CHARSET_UTF8MB4_GENERAL_CI: u8 = 45;

/// The largest packet we tell the server we accept (1 GiB, the protocol's maximum).
pub const CLIENT_MAX_PACKET: u32 = 1 << 30;

/// The server's initial handshake packet (protocol v10).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Greeting {
    pub server_version: String,
    pub connection_id: u32,
    pub capabilities: u32,
    pub charset: u8,
    pub status: u16,
    /// The 20-byte nonce ("auth-plugin-data"), without its trailing NUL.
    pub scramble: Vec<u8>,
    /// The plugin the server proposes; `mysql_native_password` when it names none.
    pub auth_plugin: String,
}

impl Greeting {
    pub fn parse(payload: &[u8]) -> Result<Greeting, WireError> {
        let mut r = Reader::new(payload, "handshake greeting");
        let protocol = r.u8()?;
        if protocol != 10 {
            return Err(WireError {
                what: "handshake greeting",
                detail: format!(
                    "protocol version {protocol}; only version 10 (MySQL 4.1+, MariaDB) is supported"
                ),
            });
        }
        let server_version = String::from_utf8_lossy(r.nul_bytes()).into_owned();
        let connection_id = r.u32()?;
        let mut scramble = r.take(8)?.to_vec();
        r.skip(1)?;
        let mut capabilities = u32::from(r.u16()?);
        let mut charset = 0;
        let mut status = 0;
        let mut auth_plugin = String::new();
        if !r.is_empty() {
            charset = r.u8()?;
            status = r.u16()?;
            capabilities |= u32::from(r.u16()?) << 16;
            let data_len = r.u8()? as usize;
            // 10 reserved bytes (MariaDB keeps extended capabilities in the last 4).
            r.skip(10)?;
            if capabilities & caps::SECURE_CONNECTION != 0 {
                let n = data_len.saturating_sub(8).max(13).min(r.remaining());
                let part2 = r.take(n)?;
                // The second part ends with a NUL that is not part of the nonce.
                let part2 = part2.strip_suffix(&[0]).unwrap_or(part2);
                scramble.extend_from_slice(part2);
            }
            if capabilities & caps::PLUGIN_AUTH != 0 {
                auth_plugin = String::from_utf8_lossy(r.nul_bytes()).into_owned();
            }
        }
        if auth_plugin.is_empty() {
            auth_plugin = "mysql_native_password".to_string();
        }
        Ok(Greeting {
            server_version,
            connection_id,
            capabilities,
            charset,
            status,
            scramble,
            auth_plugin,
        })
    }

    /// MariaDB 10.x announces itself as `5.5.5-10.x.y-MariaDB`.
    pub fn is_mariadb(&self) -> bool {
        self.server_version.contains("MariaDB")
    }

    /// The version without MariaDB's `5.5.5-` compatibility prefix.
    pub fn display_version(&self) -> &str {
        self.server_version
            .strip_prefix("5.5.5-")
            .unwrap_or(&self.server_version)
    }
}

/// The capabilities Sluice asks for, limited to what the server offers
/// (`with_db`: the response names the database to start in).
/// Fails if the server lacks one Sluice cannot work without.
pub fn client_capabilities(server: u32, tls: bool, with_db: bool) -> Result<u32, WireError> {
    for (flag, name) in [
        (caps::PROTOCOL_41, "CLIENT_PROTOCOL_41"),
        (caps::SECURE_CONNECTION, "CLIENT_SECURE_CONNECTION"),
    ] {
        if server & flag == 0 {
            return Err(WireError {
                what: "handshake greeting",
                detail: format!(
                    "the server lacks {name}; servers older than MySQL 4.1 are not supported"
                ),
            });
        }
    }
    let wanted = caps::LONG_PASSWORD
        | caps::LONG_FLAG
        | caps::PROTOCOL_41
        | caps::TRANSACTIONS
        | caps::SECURE_CONNECTION
        | caps::PLUGIN_AUTH
        | caps::PLUGIN_AUTH_LENENC_CLIENT_DATA
        | caps::CONNECT_ATTRS
        | if tls { caps::SSL } else { 0 }
        | if with_db { caps::CONNECT_WITH_DB } else { 0 };
    Ok(wanted & server)
}

/// The SSL request a client sends before starting TLS (a truncated
/// handshake response); `collation` sets the session's character set.
pub fn ssl_request(capabilities: u32, collation: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(32);
    out.extend_from_slice(&capabilities.to_le_bytes());
    out.extend_from_slice(&CLIENT_MAX_PACKET.to_le_bytes());
    out.push(collation);
    out.extend_from_slice(&[0u8; 23]);
    out
}

/// The client's handshake response.
pub struct HandshakeResponse<'a> {
    pub capabilities: u32,
    pub user: &'a str,
    pub auth_response: &'a [u8],
    pub auth_plugin: &'a str,
    /// Connection attributes (shown in performance_schema.session_connect_attrs).
    pub attributes: &'a [(&'a str, &'a str)],
    /// The session's character set, as a collation id.
    pub collation: u8,
    /// The database to start in; sent when `capabilities` has CONNECT_WITH_DB.
    pub database: &'a str,
}

impl HandshakeResponse<'_> {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = ssl_request(self.capabilities, self.collation);
        put_nul_bytes(&mut out, self.user.as_bytes());
        if self.capabilities & caps::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
            put_lenenc_bytes(&mut out, self.auth_response);
        } else {
            // SECURE_CONNECTION: one length byte (responses are at most 32 bytes here).
            let n = self.auth_response.len().min(255);
            out.push(n as u8);
            out.extend_from_slice(&self.auth_response[..n]);
        }
        if self.capabilities & caps::CONNECT_WITH_DB != 0 {
            put_nul_bytes(&mut out, self.database.as_bytes());
        }
        if self.capabilities & caps::PLUGIN_AUTH != 0 {
            put_nul_bytes(&mut out, self.auth_plugin.as_bytes());
        }
        if self.capabilities & caps::CONNECT_ATTRS != 0 {
            let mut attrs = Vec::new();
            for (k, v) in self.attributes {
                put_lenenc_bytes(&mut attrs, k.as_bytes());
                put_lenenc_bytes(&mut attrs, v.as_bytes());
            }
            put_lenenc_bytes(&mut out, &attrs);
        }
        out
    }
}

/// An ERR packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrPacket {
    pub code: u16,
    /// The five-character SQLSTATE, when the server sent one.
    pub state: String,
    pub message: String,
}

impl ErrPacket {
    /// Parses a payload that starts with 0xff.
    pub fn parse(payload: &[u8]) -> Result<ErrPacket, WireError> {
        let mut r = Reader::new(payload, "error packet");
        r.u8()?;
        let code = r.u16()?;
        let mut state = String::new();
        if r.peek() == Some(b'#') && r.remaining() >= 6 {
            r.skip(1)?;
            state = String::from_utf8_lossy(r.take(5)?).into_owned();
        }
        let message = String::from_utf8_lossy(r.rest()).into_owned();
        Ok(ErrPacket {
            code,
            state,
            message,
        })
    }
}

/// Whether a payload is an EOF packet (0xfe and shorter than 9 bytes; a longer
/// 0xfe payload is a row or an OK packet in DEPRECATE_EOF mode).
pub fn is_eof(payload: &[u8]) -> bool {
    payload.first() == Some(&0xfe) && payload.len() < 9
}

/// What the server says after a handshake response or an auth step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthReply<'a> {
    Ok,
    Err(ErrPacket),
    /// 0xfe: use another plugin, with this nonce.
    Switch {
        plugin: String,
        data: &'a [u8],
    },
    /// 0x01: plugin-specific data (caching_sha2_password's fast/full auth
    /// status, or a public key).
    MoreData(&'a [u8]),
}

impl<'a> AuthReply<'a> {
    pub fn parse(payload: &'a [u8]) -> Result<AuthReply<'a>, WireError> {
        match payload.first() {
            Some(0x00) => Ok(AuthReply::Ok),
            Some(0xff) => Ok(AuthReply::Err(ErrPacket::parse(payload)?)),
            Some(0xfe) => {
                let mut r = Reader::new(&payload[1..], "auth switch request");
                let plugin = String::from_utf8_lossy(r.nul_bytes()).into_owned();
                let data = r.rest();
                let data = data.strip_suffix(&[0]).unwrap_or(data);
                if plugin.is_empty() {
                    // Pre-4.1 "use the old password hash" request.
                    return Ok(AuthReply::Switch {
                        plugin: "mysql_old_password".to_string(),
                        data,
                    });
                }
                Ok(AuthReply::Switch { plugin, data })
            }
            Some(0x01) => Ok(AuthReply::MoreData(&payload[1..])),
            Some(other) => Err(WireError {
                what: "authentication reply",
                detail: format!("unexpected packet type 0x{other:02x}"),
            }),
            None => Err(WireError {
                what: "authentication reply",
                detail: "empty packet".to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A greeting as MariaDB 10.11 sends it.
    fn mariadb_greeting() -> Vec<u8> {
        let mut g = vec![10];
        g.extend_from_slice(b"5.5.5-10.11.19-MariaDB-0+deb12u1-log\0");
        g.extend_from_slice(&42u32.to_le_bytes());
        g.extend_from_slice(b"abcdefgh");
        g.push(0);
        let caps_all: u32 = 0xf7fe | (0x81bf << 16);
        g.extend_from_slice(&(caps_all as u16).to_le_bytes());
        g.push(45);
        g.extend_from_slice(&2u16.to_le_bytes());
        g.extend_from_slice(&((caps_all >> 16) as u16).to_le_bytes());
        g.push(21);
        g.extend_from_slice(&[0; 6]);
        g.extend_from_slice(&[0x1d, 0, 0, 0]);
        g.extend_from_slice(b"ijklmnopqrst\0");
        g.extend_from_slice(b"mysql_native_password\0");
        g
    }

    #[test]
    fn parses_mariadb_greeting() {
        let g = Greeting::parse(&mariadb_greeting()).unwrap();
        assert!(g.is_mariadb());
        assert_eq!(g.display_version(), "10.11.19-MariaDB-0+deb12u1-log");
        assert_eq!(g.connection_id, 42);
        assert_eq!(g.scramble, b"abcdefghijklmnopqrst");
        assert_eq!(g.auth_plugin, "mysql_native_password");
        assert_ne!(g.capabilities & caps::PLUGIN_AUTH, 0);
        let c = client_capabilities(g.capabilities, false, false).unwrap();
        assert_eq!(c & caps::SSL, 0);
        assert_eq!(c & caps::CONNECT_WITH_DB, 0);
        let c = client_capabilities(g.capabilities, false, true).unwrap();
        assert_ne!(c & caps::CONNECT_WITH_DB, 0);
        assert_ne!(c & caps::PLUGIN_AUTH, 0);
    }

    #[test]
    fn truncated_greetings_fail_cleanly() {
        let g = mariadb_greeting();
        for n in 0..20 {
            assert!(Greeting::parse(&g[..n]).is_err(), "{n} bytes");
        }
        let mut v9 = g.clone();
        v9[0] = 9;
        assert!(Greeting::parse(&v9).is_err());
    }

    #[test]
    fn response_layout() {
        let caps = caps::PROTOCOL_41
            | caps::SECURE_CONNECTION
            | caps::PLUGIN_AUTH
            | caps::PLUGIN_AUTH_LENENC_CLIENT_DATA;
        let r = HandshakeResponse {
            capabilities: caps,
            user: "repl",
            auth_response: &[1, 2, 3],
            auth_plugin: "mysql_native_password",
            attributes: &[],
            collation: CHARSET_UTF8MB4_GENERAL_CI,
            database: "shop",
        }
        .encode();
        assert_eq!(&r[..4], &caps.to_le_bytes());
        assert_eq!(r[8], CHARSET_UTF8MB4_GENERAL_CI);
        assert_eq!(&r[32..37], b"repl\0");
        assert_eq!(&r[37..41], &[3, 1, 2, 3]);
        assert_eq!(&r[41..], b"mysql_native_password\0");
        // With CONNECT_WITH_DB the database follows the auth response.
        let r = HandshakeResponse {
            capabilities: caps | caps::CONNECT_WITH_DB,
            user: "repl",
            auth_response: &[1, 2, 3],
            auth_plugin: "mysql_native_password",
            attributes: &[],
            collation: 33,
            database: "shop",
        }
        .encode();
        assert_eq!(r[8], 33);
        assert_eq!(&r[41..46], b"shop\0");
        assert_eq!(&r[46..], b"mysql_native_password\0");
    }

    #[test]
    fn auth_replies() {
        assert_eq!(AuthReply::parse(&[0, 0, 0]).unwrap(), AuthReply::Ok);
        let sw = AuthReply::parse(b"\xfeclient_ed25519\0nonce\0").unwrap();
        assert_eq!(
            sw,
            AuthReply::Switch {
                plugin: "client_ed25519".into(),
                data: b"nonce"
            }
        );
        let err = AuthReply::parse(b"\xff\x15\x04#28000Access denied").unwrap();
        assert_eq!(
            err,
            AuthReply::Err(ErrPacket {
                code: 1045,
                state: "28000".into(),
                message: "Access denied".into()
            })
        );
        assert_eq!(
            AuthReply::parse(&[1, 3]).unwrap(),
            AuthReply::MoreData(&[3])
        );
        assert!(AuthReply::parse(&[]).is_err());
        assert!(is_eof(&[0xfe, 0, 0, 2, 0]));
        assert!(!is_eof(&[0xfe; 9]));
    }
}
