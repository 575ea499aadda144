//! One client connection to a MySQL or MariaDB server over tokio: TCP (or
//! the server's Unix socket on the same machine), the optional TLS upgrade, the authentication exchange, packets in and out
//! (joined when over 16 MiB), and the text-protocol queries Sluice needs for
//! checks and positions.
//!
//! Reads go through one buffer; a packet's payload is handed out as a slice
//! of it (no copy) that stays valid until the next read. Every read is bounded
//! by the read timeout, so a half-open connection surfaces as
//! [`SourceError::ReadTimeout`] instead of a hang.
//!
//! Owns: sockets, the read buffer, sequence ids. Must never: interpret binlog
//! events (that is `stream`'s), retry on its own, or log the password.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixStream};
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

use crate::auth::{self, AuthPlugin};
use crate::error::{Result, SourceError};
use crate::handshake::{
    caps, client_capabilities, is_eof, ssl_request, AuthReply, ErrPacket, Greeting,
    HandshakeResponse,
};
use crate::packet::{write_packets, PacketHeader, Reader, WireError, HEADER_LEN};
use crate::tls::{self, SslMode, TlsOptions};

/// COM_QUERY.
const COM_QUERY: u8 = 0x03;

/// Initial size of the read buffer.
const READ_BUF: usize = 1 << 20;
/// Compact the buffer when less than this is free at its end.
const MIN_READ: usize = 64 << 10;

/// How to reach and log in to a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectOptions {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    pub tls: TlsOptions,
    pub connect_timeout: Duration,
    /// Longest wait for any read; a quiet connection past this is dead.
    pub read_timeout: Duration,
    /// The plugin of the first answer; `None` answers with the plugin the
    /// server proposes (the server may then switch).
    pub auth_plugin: Option<AuthPlugin>,
    /// PEM file with the server's RSA public key, for `caching_sha2_password`
    /// and `sha256_password` full authentication without TLS.
    pub server_public_key: Option<PathBuf>,
    /// Ask the server for its RSA public key when none is configured (open to
    /// a man in the middle: prefer TLS or `server_public_key`).
    pub allow_public_key_retrieval: bool,
    /// Allow sending the password in clear (`mysql_clear_password`) without TLS.
    pub allow_cleartext_password: bool,
    /// Largest (joined) packet accepted. Default 1 GiB.
    pub max_packet: usize,
    /// The server's Unix socket: when set, connections go there instead of
    /// TCP to `host:port` (which still names the server in positions and
    /// messages). A local socket skips the TCP stack on both ends; it is not
    /// on the network, so TLS is not used on it and passwords may cross it
    /// in clear, as MySQL's own clients do.
    pub socket: Option<PathBuf>,
    /// The session's character set, as the collation id the handshake
    /// sends (default utf8mb4_general_ci): what the server takes the text
    /// of statements in and sends results in.
    pub collation: u8,
    /// The database the session starts in (sent in the handshake); `None`:
    /// none. One the server does not have fails the connection.
    pub database: Option<String>,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            host: "127.0.0.1".to_string(),
            port: 3306,
            user: "root".to_string(),
            password: String::new(),
            tls: TlsOptions::default(),
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(30),
            auth_plugin: None,
            server_public_key: None,
            allow_public_key_retrieval: false,
            allow_cleartext_password: false,
            max_packet: 1 << 30,
            socket: None,
            collation: crate::handshake::CHARSET_UTF8MB4_GENERAL_CI,
            database: None,
        }
    }
}

impl ConnectOptions {
    /// `host:port`, with brackets around an IPv6 address.
    pub fn addr(&self) -> String {
        if self.host.contains(':') && !self.host.starts_with('[') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

enum Stream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
    Unix(UnixStream),
    /// Only while the TLS handshake owns the socket.
    Detached,
}

impl Stream {
    async fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf).await,
            Stream::Tls(s) => s.read(buf).await,
            Stream::Unix(s) => s.read(buf).await,
            Stream::Detached => Err(std::io::ErrorKind::NotConnected.into()),
        }
    }

    async fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self {
            Stream::Plain(s) => s.write_all(buf).await,
            Stream::Unix(s) => s.write_all(buf).await,
            Stream::Tls(s) => {
                s.write_all(buf).await?;
                s.flush().await
            }
            Stream::Detached => Err(std::io::ErrorKind::NotConnected.into()),
        }
    }
}

/// Where the payload of the last packet read is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketLoc {
    /// In the read buffer: offset and length.
    Buf(usize, usize),
    /// Joined from several packets into the side buffer.
    Joined,
}

/// A text-protocol result set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResultSet {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Option<String>>>,
}

impl ResultSet {
    /// The value of the named column (case-insensitive) in a row.
    pub fn get(&self, row: usize, column: &str) -> Option<&str> {
        let i = self
            .columns
            .iter()
            .position(|c| c.eq_ignore_ascii_case(column))?;
        self.rows.get(row)?.get(i)?.as_deref()
    }

    /// The first column of the first row.
    pub fn scalar(&self) -> Option<&str> {
        self.rows.first()?.first()?.as_deref()
    }
}

/// A text-protocol result set with the values as the server sent them.
///
/// The values of all rows share one buffer (a large result set, such as a
/// snapshot chunk, costs no allocation per value); [`RawResultSet::rows`]
/// and [`RawResultSet::row`] read them as [`RawRow`]s.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawResultSet {
    pub columns: Vec<String>,
    /// Every value's bytes, one after another.
    data: Vec<u8>,
    /// Per value, row after row (`columns.len()` a row): where it is in
    /// `data`; `NULL_SPAN` for NULL.
    spans: Vec<(usize, usize)>,
    rows: usize,
}

/// A result set being read piece by piece ([`Conn::query_start`],
/// [`Conn::next_rows`]).
#[derive(Debug)]
pub struct PendingRows {
    columns: Vec<String>,
    /// For error messages.
    sql: String,
    ended: bool,
}

impl PendingRows {
    /// Whether every row was read.
    pub fn ended(&self) -> bool {
        self.ended
    }
}

/// The span of a NULL value.
const NULL_SPAN: (usize, usize) = (usize::MAX, 0);

impl RawResultSet {
    /// An empty result set with these columns.
    pub fn new(columns: Vec<String>) -> Self {
        RawResultSet {
            columns,
            ..Default::default()
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Bytes of all the values together.
    pub fn data_len(&self) -> usize {
        self.data.len()
    }

    /// The memory the rows take: their values' bytes and where each value
    /// is (the room made for more rows left out).
    pub fn heap_bytes(&self) -> usize {
        self.data.len() + self.spans.len() * std::mem::size_of::<(usize, usize)>()
    }

    /// Every value's bytes, one after another ([`RawRow::span`] says where
    /// each one is).
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// Row `i`, if there is one.
    pub fn row(&self, i: usize) -> Option<RawRow<'_>> {
        (i < self.rows).then(|| self.row_at(i))
    }

    /// Row `i < self.rows`.
    fn row_at(&self, i: usize) -> RawRow<'_> {
        let width = self.columns.len();
        RawRow {
            data: &self.data,
            spans: &self.spans[i * width..(i + 1) * width],
        }
    }

    /// Where the value of `column` in `row` is in [`RawResultSet::data`];
    /// `None` for NULL or no such value. [`RawRow::span`] without the row.
    #[inline]
    pub fn span_of(&self, row: usize, column: usize) -> Option<std::ops::Range<usize>> {
        let width = self.columns.len();
        if column >= width {
            return None;
        }
        match self.spans.get(row.checked_mul(width)?.checked_add(column)?) {
            Some(&s) if s != NULL_SPAN => Some(s.0..s.1),
            _ => None,
        }
    }

    /// Makes room for `rows` more rows like the last one (a result set
    /// whose size is known, read without growing its buffers by copies).
    pub fn reserve_rows_like_last(&mut self, rows: usize) {
        let width = self.columns.len();
        let last_len: usize = match self.last() {
            Some(r) => r.iter().flatten().map(<[u8]>::len).sum(),
            None => return,
        };
        // A little over, for longer values further on.
        self.data
            .reserve(rows.saturating_mul(last_len + last_len / 8 + 1));
        self.spans.reserve(rows.saturating_mul(width));
    }

    /// The last row, if any.
    pub fn last(&self) -> Option<RawRow<'_>> {
        self.rows.checked_sub(1).and_then(|i| self.row(i))
    }

    /// The rows in order.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = RawRow<'_>> + '_ {
        (0..self.rows).map(|i| self.row_at(i))
    }

    /// Appends the row of a text-protocol row packet (one length-encoded
    /// string or 0xfb NULL per column). On error nothing is appended.
    pub fn push_text_row(&mut self, packet: &[u8]) -> std::result::Result<(), WireError> {
        let (data_at, spans_at) = (self.data.len(), self.spans.len());
        // The values take at most the packet's bytes.
        self.data.reserve(packet.len());
        let mut at = 0usize;
        for _ in 0..self.columns.len() {
            // Most values are shorter than 251 bytes: a one-byte length.
            let short = match packet.get(at) {
                Some(&n) if n < 0xfb => packet.get(at + 1..at + 1 + n as usize),
                _ => None,
            };
            let value = match short {
                Some(v) => {
                    at += 1 + v.len();
                    Some(v)
                }
                None => {
                    // Any other length, NULL, or a short packet.
                    let mut r = Reader::new(packet, "result row");
                    let read = r.skip(at).and_then(|()| r.lenenc_bytes());
                    at = packet.len() - r.remaining();
                    match read {
                        Ok(v) => v,
                        Err(e) => {
                            self.data.truncate(data_at);
                            self.spans.truncate(spans_at);
                            return Err(e);
                        }
                    }
                }
            };
            match value {
                Some(v) => {
                    let start = self.data.len();
                    self.data.extend_from_slice(v);
                    self.spans.push((start, self.data.len()));
                }
                None => self.spans.push(NULL_SPAN),
            }
        }
        self.rows += 1;
        Ok(())
    }
}

/// One row of a [`RawResultSet`].
#[derive(Debug, Clone, Copy)]
pub struct RawRow<'a> {
    data: &'a [u8],
    spans: &'a [(usize, usize)],
}

impl<'a> RawRow<'a> {
    /// Number of values (the result set's columns).
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The value of column `i`; `None` for NULL or no such column.
    pub fn value(&self, i: usize) -> Option<&'a [u8]> {
        self.spans.get(i).and_then(|&s| span(self.data, s))
    }

    /// Where the value of column `i` is in [`RawResultSet::data`]; `None`
    /// for NULL or no such column.
    pub fn span(&self, i: usize) -> Option<std::ops::Range<usize>> {
        match self.spans.get(i) {
            Some(&s) if s != NULL_SPAN => Some(s.0..s.1),
            _ => None,
        }
    }

    /// The values in column order, `None` for NULL.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<&'a [u8]>> + 'a {
        let data = self.data;
        self.spans.iter().map(move |&s| span(data, s))
    }
}

fn span(data: &[u8], (start, end): (usize, usize)) -> Option<&[u8]> {
    if (start, end) == NULL_SPAN {
        None
    } else {
        data.get(start..end)
    }
}

/// A logged-in connection.
pub struct Conn {
    stream: Stream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Bytes of the last packet still at `start`, dropped by the next read.
    consumed: usize,
    joined: Vec<u8>,
    seq: u8,
    addr: String,
    greeting: Greeting,
    capabilities: u32,
    tls: bool,
    read_timeout: Duration,
    heartbeat: Duration,
    max_packet: usize,
    local_addr: String,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("addr", &self.addr)
            .field("server_version", &self.greeting.server_version)
            .field("connection_id", &self.greeting.connection_id)
            .field("tls", &self.tls)
            .finish_non_exhaustive()
    }
}

/// `connecting`, bounded by the connect timeout; errors name `addr`.
async fn connect_within<S>(
    opts: &ConnectOptions,
    connecting: impl std::future::Future<Output = std::io::Result<S>>,
    addr: String,
) -> Result<S> {
    match tokio::time::timeout(opts.connect_timeout, connecting).await {
        Err(_) => Err(SourceError::ConnectTimeout {
            addr,
            timeout: opts.connect_timeout,
        }),
        Ok(Err(source)) => Err(SourceError::Connect { addr, source }),
        Ok(Ok(s)) => Ok(s),
    }
}

fn wire<'a>(addr: &'a str, during: &'static str) -> impl Fn(WireError) -> SourceError + 'a {
    move |e| SourceError::Protocol {
        addr: addr.to_string(),
        during,
        detail: e.to_string(),
    }
}

impl Conn {
    /// Connects, upgrades to TLS as the mode asks, and authenticates.
    pub async fn connect(opts: &ConnectOptions) -> Result<Conn> {
        let addr = opts.addr();
        let (stream, local_addr) = match &opts.socket {
            Some(path) => {
                let at = format!("{addr} (Unix socket {})", path.display());
                let unix = connect_within(opts, UnixStream::connect(path), at).await?;
                (Stream::Unix(unix), format!("unix:{}", path.display()))
            }
            None => {
                let host = opts.host.trim_matches(['[', ']']);
                let tcp = connect_within(opts, TcpStream::connect((host, opts.port)), addr.clone())
                    .await?;
                // Nagle would delay small command packets; reads are unaffected.
                let _ = tcp.set_nodelay(true);
                let local = tcp.local_addr().map(|a| a.to_string()).unwrap_or_default();
                (Stream::Plain(tcp), local)
            }
        };
        let mut conn = Conn {
            stream,
            buf: vec![0; READ_BUF],
            start: 0,
            end: 0,
            consumed: 0,
            joined: Vec::new(),
            seq: 0,
            addr,
            greeting: Greeting {
                server_version: String::new(),
                connection_id: 0,
                capabilities: 0,
                charset: 0,
                status: 0,
                scramble: Vec::new(),
                auth_plugin: String::new(),
            },
            capabilities: 0,
            tls: false,
            // The handshake is bounded by the connect timeout.
            read_timeout: opts.connect_timeout,
            heartbeat: Duration::ZERO,
            max_packet: opts.max_packet,
            local_addr,
        };
        conn.handshake(opts).await?;
        conn.read_timeout = opts.read_timeout;
        Ok(conn)
    }

    async fn handshake(&mut self, opts: &ConnectOptions) -> Result<()> {
        const DURING: &str = "handshake";
        let payload = self.read_packet(DURING).await?;
        if payload.first() == Some(&0xff) {
            let e = ErrPacket::parse(payload).map_err(wire(&self.addr, DURING))?;
            return Err(self.server_error(e, DURING));
        }
        let greeting = Greeting::parse(payload).map_err(wire(&self.addr, DURING))?;
        let server_tls = greeting.capabilities & caps::SSL != 0;
        let use_tls = match opts.tls.mode {
            SslMode::Disabled => false,
            SslMode::Preferred => server_tls && !self.is_unix(),
            mode if self.is_unix() => {
                return Err(SourceError::Tls {
                    addr: self.addr.clone(),
                    detail: format!(
                        "sslMode={mode} asks for TLS, which is not used over the Unix socket {}: a local socket is not on the network; use sslMode=PREFERRED, or connect over TCP",
                        opts.socket.as_deref().unwrap_or(std::path::Path::new("")).display()
                    ),
                });
            }
            mode => {
                if !server_tls {
                    return Err(SourceError::Tls {
                        addr: self.addr.clone(),
                        detail: format!(
                            "sslMode={mode} but the server does not offer TLS; configure it (MariaDB/MySQL: ssl_cert, ssl_key, ssl_ca) or use sslMode=PREFERRED"
                        ),
                    });
                }
                true
            }
        };
        let database = opts.database.as_deref().filter(|d| !d.is_empty());
        self.capabilities = client_capabilities(greeting.capabilities, use_tls, database.is_some())
            .map_err(wire(&self.addr, DURING))?;
        if let Some(db) = database {
            if self.capabilities & caps::CONNECT_WITH_DB == 0 {
                return Err(SourceError::Protocol {
                    addr: self.addr.clone(),
                    during: DURING,
                    detail: format!(
                        "the server cannot start a session in a database (no CLIENT_CONNECT_WITH_DB), so {db:?} cannot be the default database; leave the default database empty"
                    ),
                });
            }
        }
        self.greeting = greeting;
        if use_tls {
            let req = ssl_request(self.capabilities, opts.collation);
            self.write_payload(&req, DURING).await?;
            self.start_tls(opts).await?;
        }
        let scramble = self.greeting.scramble.clone();
        let mut plugin = opts.auth_plugin.unwrap_or_else(|| {
            AuthPlugin::from_name(&self.greeting.auth_plugin).unwrap_or(AuthPlugin::NativePassword)
        });
        // client_ed25519 needs the 32-byte nonce of a switch request: answer
        // the first round with native_password's and let the server switch.
        if plugin == AuthPlugin::Ed25519 {
            plugin = AuthPlugin::NativePassword;
        }
        let first = self.plugin_response(plugin, &scramble, opts, true)?;
        let attrs = [
            ("_client_name", "sluice"),
            ("_client_version", env!("CARGO_PKG_VERSION")),
            ("program_name", "sluice"),
        ];
        let response = HandshakeResponse {
            capabilities: self.capabilities,
            user: &opts.user,
            auth_response: &first,
            auth_plugin: plugin.name(),
            attributes: &attrs,
            collation: opts.collation,
            database: database.unwrap_or_default(),
        }
        .encode();
        self.write_payload(&response, DURING).await?;
        self.authenticate(plugin, scramble, opts).await
    }

    async fn start_tls(&mut self, opts: &ConnectOptions) -> Result<()> {
        let tls_err = |addr: &str, detail: String| SourceError::Tls {
            addr: addr.to_string(),
            detail,
        };
        let config = tls::client_config(&opts.tls)
            .map_err(|d| tls_err(&self.addr, d))?
            .ok_or_else(|| tls_err(&self.addr, "TLS is disabled".to_string()))?;
        let name = tls::server_name(&opts.tls, &opts.host).map_err(|d| tls_err(&self.addr, d))?;
        let Stream::Plain(tcp) = std::mem::replace(&mut self.stream, Stream::Detached) else {
            return Err(tls_err(
                &self.addr,
                "the connection is already encrypted".to_string(),
            ));
        };
        let connector = TlsConnector::from(Arc::<rustls::ClientConfig>::clone(&config));
        let tls = tokio::time::timeout(opts.connect_timeout, connector.connect(name, tcp))
            .await
            .map_err(|_| {
                tls_err(
                    &self.addr,
                    format!("TLS handshake timed out after {:?}", opts.connect_timeout),
                )
            })?
            .map_err(|e| {
                tls_err(
                    &self.addr,
                    format!("handshake failed (sslMode={}): {e}", opts.tls.mode),
                )
            })?;
        self.stream = Stream::Tls(Box::new(tls));
        self.tls = true;
        Ok(())
    }

    /// What to send for `plugin` given the nonce. `first` is the answer inside
    /// the handshake response (where a key request is a single byte).
    fn plugin_response(
        &self,
        plugin: AuthPlugin,
        nonce: &[u8],
        opts: &ConnectOptions,
        first: bool,
    ) -> Result<Vec<u8>> {
        let pw = opts.password.as_bytes();
        Ok(match plugin {
            AuthPlugin::NativePassword => auth::native_password(pw, nonce),
            AuthPlugin::CachingSha2Password => auth::caching_sha2_password(pw, nonce),
            AuthPlugin::Ed25519 => auth::ed25519_signature(pw, nonce).to_vec(),
            AuthPlugin::ClearPassword => {
                if !self.secure_transport() && !opts.allow_cleartext_password {
                    return Err(self.auth_error(
                        opts,
                        "the server asks for the password in clear text (mysql_clear_password) on a connection without TLS; use sslMode=REQUIRED (or allowCleartextPasswords=true if the network is trusted)".to_string(),
                    ));
                }
                auth::clear_password(pw)
            }
            AuthPlugin::Sha256Password => {
                if pw.is_empty() {
                    Vec::new()
                } else if self.secure_transport() {
                    auth::clear_password(pw)
                } else if let Some(pem) = self.configured_public_key(opts)? {
                    auth::rsa_encrypted_password(pw, nonce, &pem)
                        .map_err(|m| self.auth_error(opts, m))?
                } else if opts.allow_public_key_retrieval && first {
                    vec![1]
                } else {
                    return Err(self.no_key_error(opts, "sha256_password"));
                }
            }
        })
    }

    fn configured_public_key(&self, opts: &ConnectOptions) -> Result<Option<String>> {
        match &opts.server_public_key {
            None => Ok(None),
            Some(p) => std::fs::read_to_string(p).map(Some).map_err(|e| {
                SourceError::Config(format!(
                    "cannot read the server's public key file {}: {e}",
                    p.display()
                ))
            }),
        }
    }

    fn no_key_error(&self, opts: &ConnectOptions, plugin: &str) -> SourceError {
        self.auth_error(
            opts,
            format!("{plugin} needs the password sent over TLS or encrypted with the server's RSA key: use sslMode=REQUIRED, or give serverPublicKey=/path/to/public_key.pem, or allowPublicKeyRetrieval=true"),
        )
    }

    fn auth_error(&self, opts: &ConnectOptions, message: String) -> SourceError {
        SourceError::Auth {
            addr: self.addr.clone(),
            user: opts.user.clone(),
            message,
        }
    }

    async fn authenticate(
        &mut self,
        mut plugin: AuthPlugin,
        mut nonce: Vec<u8>,
        opts: &ConnectOptions,
    ) -> Result<()> {
        const DURING: &str = "authentication";
        let mut rounds = 0;
        loop {
            rounds += 1;
            if rounds > 8 {
                return Err(self.auth_error(
                    opts,
                    "the server keeps asking for more authentication rounds".into(),
                ));
            }
            let payload = self.read_packet(DURING).await?.to_vec();
            let reply = AuthReply::parse(&payload).map_err(wire(&self.addr, DURING))?;
            match reply {
                AuthReply::Ok => return Ok(()),
                AuthReply::Err(e) => {
                    let hint = if e.code == crate::error::codes::ACCESS_DENIED {
                        " (check user, password and the host the account allows)"
                    } else if matches!(
                        e.code,
                        crate::error::codes::BAD_DB | crate::error::codes::DB_ACCESS_DENIED
                    ) {
                        " (the default database the connection starts in does not exist on the server, or the account may not use it)"
                    } else {
                        ""
                    };
                    return Err(self.auth_error(
                        opts,
                        format!("server error {}: {}{hint}", e.code, e.message),
                    ));
                }
                AuthReply::Switch { plugin: name, data } => {
                    plugin = AuthPlugin::from_name(&name).ok_or_else(|| {
                        self.auth_error(
                            opts,
                            format!("the account uses the authentication plugin '{name}', which Sluice does not support (supported: mysql_native_password, caching_sha2_password, sha256_password, client_ed25519, mysql_clear_password)"),
                        )
                    })?;
                    nonce = data.to_vec();
                    let resp = self.plugin_response(plugin, &nonce, opts, true)?;
                    self.write_payload(&resp, DURING).await?;
                }
                AuthReply::MoreData(data) => match (plugin, data) {
                    // Fast auth succeeded; an OK packet follows.
                    (AuthPlugin::CachingSha2Password, [3]) => {}
                    (AuthPlugin::CachingSha2Password, [4]) => {
                        let pw = opts.password.as_bytes();
                        let resp = if self.secure_transport() {
                            auth::clear_password(pw)
                        } else if let Some(pem) = self.configured_public_key(opts)? {
                            auth::rsa_encrypted_password(pw, &nonce, &pem)
                                .map_err(|m| self.auth_error(opts, m))?
                        } else if opts.allow_public_key_retrieval {
                            self.write_payload(&[2], DURING).await?;
                            let key = self.read_packet(DURING).await?.to_vec();
                            let pem = match key.split_first() {
                                Some((1, pem)) => String::from_utf8_lossy(pem).into_owned(),
                                _ => {
                                    return Err(self.auth_error(
                                        opts,
                                        "the server did not send its public key".into(),
                                    ))
                                }
                            };
                            auth::rsa_encrypted_password(pw, &nonce, &pem)
                                .map_err(|m| self.auth_error(opts, m))?
                        } else {
                            return Err(self.no_key_error(opts, "caching_sha2_password"));
                        };
                        self.write_payload(&resp, DURING).await?;
                    }
                    (AuthPlugin::Sha256Password, pem) => {
                        let pem = String::from_utf8_lossy(pem).into_owned();
                        let resp =
                            auth::rsa_encrypted_password(opts.password.as_bytes(), &nonce, &pem)
                                .map_err(|m| self.auth_error(opts, m))?;
                        self.write_payload(&resp, DURING).await?;
                    }
                    (p, d) => {
                        return Err(SourceError::Protocol {
                            addr: self.addr.clone(),
                            during: DURING,
                            detail: format!(
                                "unexpected extra authentication data ({} bytes) for {}",
                                d.len(),
                                p.name()
                            ),
                        })
                    }
                },
            }
        }
    }

    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// The version string as the server sent it (MariaDB's without `5.5.5-`).
    pub fn server_version(&self) -> &str {
        self.greeting.display_version()
    }

    pub fn is_mariadb(&self) -> bool {
        self.greeting.is_mariadb()
    }

    /// The server's id for this session (what `SHOW PROCESSLIST` lists).
    pub fn connection_id(&self) -> u32 {
        self.greeting.connection_id
    }

    /// The local end of the TCP connection (`ip:port`).
    pub fn local_addr(&self) -> &str {
        &self.local_addr
    }

    pub fn is_tls(&self) -> bool {
        self.tls
    }

    /// Connected through the server's Unix socket.
    pub fn is_unix(&self) -> bool {
        matches!(self.stream, Stream::Unix(_))
    }

    /// Whether a password may cross in clear: over TLS, or a local socket
    /// (as MySQL's server itself judges it).
    fn secure_transport(&self) -> bool {
        self.tls || self.is_unix()
    }

    pub fn set_read_timeout(&mut self, timeout: Duration, heartbeat: Duration) {
        self.read_timeout = timeout;
        self.heartbeat = heartbeat;
    }

    pub(crate) fn server_error(&self, e: ErrPacket, during: impl Into<String>) -> SourceError {
        SourceError::server(self.addr.clone(), during, e)
    }

    /// Reads until at least `n` bytes are buffered after `start`.
    async fn need(&mut self, n: usize, during: &'static str) -> Result<()> {
        while self.end - self.start < n {
            if self.start == self.end {
                self.start = 0;
                self.end = 0;
            }
            if self.buf.len() - self.start < n || self.buf.len() - self.end < MIN_READ {
                // Move what is left to the front, and grow if one packet needs it.
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
                if self.buf.len() < n {
                    let want = n.max(self.buf.len() * 2);
                    self.buf.resize(want, 0);
                }
            }
            let read = tokio::time::timeout(
                self.read_timeout,
                self.stream.read(&mut self.buf[self.end..]),
            )
            .await;
            match read {
                Err(_) => {
                    return Err(SourceError::ReadTimeout {
                        addr: self.addr.clone(),
                        during,
                        timeout: self.read_timeout,
                        heartbeat: self.heartbeat,
                    })
                }
                Ok(Err(source)) => {
                    return Err(SourceError::Io {
                        addr: self.addr.clone(),
                        during,
                        source,
                    })
                }
                Ok(Ok(0)) => {
                    return Err(SourceError::Closed {
                        addr: self.addr.clone(),
                        during,
                    })
                }
                Ok(Ok(k)) => self.end += k,
            }
        }
        Ok(())
    }

    /// Reads the next logical packet (joining 16 MiB continuations). Its
    /// payload is [`payload`](Self::payload) until the next read.
    ///
    /// Cancel-safe: nothing is consumed until the whole logical packet is
    /// buffered, so a read abandoned half-way loses no bytes.
    pub async fn read_packet_loc(&mut self, during: &'static str) -> Result<PacketLoc> {
        self.start += std::mem::take(&mut self.consumed);
        // Find the end of the logical packet without consuming anything.
        let mut off = 0usize;
        let mut chunks = 0usize;
        let mut total = 0usize;
        loop {
            self.need(off + HEADER_LEN, during).await?;
            let h = self.header_at(off);
            total += h.len;
            if total > self.max_packet {
                return Err(SourceError::Protocol {
                    addr: self.addr.clone(),
                    during,
                    detail: format!(
                        "a packet of over {total} bytes exceeds the configured maximum ({} bytes)",
                        self.max_packet
                    ),
                });
            }
            self.need(off + HEADER_LEN + h.len, during).await?;
            off += HEADER_LEN + h.len;
            chunks += 1;
            if !h.continues() {
                self.seq = h.seq.wrapping_add(1);
                break;
            }
        }
        if chunks == 1 {
            self.consumed = off;
            return Ok(PacketLoc::Buf(self.start + HEADER_LEN, off - HEADER_LEN));
        }
        self.joined.clear();
        self.joined.reserve(total);
        let mut at = 0;
        while at < off {
            let h = self.header_at(at);
            let body = self.start + at + HEADER_LEN;
            self.joined.extend_from_slice(&self.buf[body..body + h.len]);
            at += HEADER_LEN + h.len;
        }
        self.start += off;
        Ok(PacketLoc::Joined)
    }

    /// The next packet when it is whole in the buffer and not split: what
    /// [`Conn::read_packet_loc`] would return, without awaiting. A result
    /// set's rows mostly arrive many to a read.
    #[inline]
    fn buffered_packet(&mut self) -> Option<PacketLoc> {
        let start = self.start + self.consumed;
        let h = PacketHeader::parse(self.buf.get(start..self.end)?)?;
        let whole = HEADER_LEN + h.len;
        if h.continues() || h.len > self.max_packet || whole > self.end - start {
            return None;
        }
        self.start = start;
        self.consumed = whole;
        self.seq = h.seq.wrapping_add(1);
        Some(PacketLoc::Buf(start + HEADER_LEN, h.len))
    }

    /// The packet header `off` bytes after `start` (`need` has buffered it).
    fn header_at(&self, off: usize) -> PacketHeader {
        PacketHeader::parse(self.buf.get(self.start + off..self.end).unwrap_or(&[]))
            .unwrap_or(PacketHeader { len: 0, seq: 0 })
    }

    /// The payload of the packet last read.
    #[inline]
    pub fn payload(&self, loc: PacketLoc) -> &[u8] {
        match loc {
            PacketLoc::Buf(at, len) => &self.buf[at..at + len],
            PacketLoc::Joined => &self.joined,
        }
    }

    /// Reads the next packet and returns its payload.
    pub async fn read_packet(&mut self, during: &'static str) -> Result<&[u8]> {
        let loc = self.read_packet_loc(during).await?;
        Ok(self.payload(loc))
    }

    /// Sends one payload (split as needed), continuing the sequence.
    pub async fn write_payload(&mut self, payload: &[u8], during: &'static str) -> Result<()> {
        let mut out = Vec::with_capacity(payload.len() + HEADER_LEN);
        write_packets(&mut out, payload, &mut self.seq);
        self.stream
            .write_all(&out)
            .await
            .map_err(|source| SourceError::Io {
                addr: self.addr.clone(),
                during,
                source,
            })
    }

    /// Starts a command: the sequence restarts at 0.
    pub async fn write_command(&mut self, payload: &[u8], during: &'static str) -> Result<()> {
        self.seq = 0;
        self.write_payload(payload, during).await
    }

    /// Runs a statement over the text protocol and returns its rows (an empty
    /// result for statements without any).
    pub async fn query(&mut self, sql: &str) -> Result<ResultSet> {
        let raw = self.query_bytes(sql).await?;
        let rows = raw
            .rows()
            .map(|row| {
                row.iter()
                    .map(|v| v.map(|b| String::from_utf8_lossy(b).into_owned()))
                    .collect()
            })
            .collect();
        Ok(ResultSet {
            columns: raw.columns,
            rows,
        })
    }

    /// Runs a query and returns its rows as the server sent them: values
    /// as bytes, binary strings intact.
    pub async fn query_bytes(&mut self, sql: &str) -> Result<RawResultSet> {
        self.query_rows(sql, 0).await
    }

    /// [`Conn::query_bytes`] of a query expected to return about
    /// `expected_rows` rows alike (a snapshot chunk): room for them is made
    /// once the first has come.
    pub async fn query_rows(&mut self, sql: &str, expected_rows: usize) -> Result<RawResultSet> {
        let Some(mut rows) = self.query_start(sql).await? else {
            return Ok(RawResultSet::default());
        };
        let (rs, _) = self.next_rows(&mut rows, usize::MAX, expected_rows).await?;
        Ok(rs)
    }

    /// Sends a query and reads its result set's header: `None` for a
    /// statement without rows, else the rows to read with
    /// [`Conn::next_rows`] until they end. Nothing else may be sent on
    /// this connection meanwhile (drop it to abandon the rows).
    pub async fn query_start(&mut self, sql: &str) -> Result<Option<PendingRows>> {
        const DURING: &str = "query";
        let addr = self.addr.clone();
        let mut cmd = Vec::with_capacity(sql.len() + 1);
        cmd.push(COM_QUERY);
        cmd.extend_from_slice(sql.as_bytes());
        self.write_command(&cmd, DURING).await?;
        let first = self.read_packet(DURING).await?;
        let count = match first.first() {
            Some(0x00) => return Ok(None),
            Some(0xff) => {
                let e = ErrPacket::parse(first).map_err(wire(&addr, DURING))?;
                return Err(self.server_error(e, format!("query `{sql}`")));
            }
            Some(0xfb) => {
                return Err(SourceError::Protocol {
                    addr: self.addr.clone(),
                    during: DURING,
                    detail: format!("`{sql}` asked for a LOCAL INFILE transfer"),
                })
            }
            _ => Reader::new(first, "result set header")
                .lenenc_int()
                .map_err(wire(&addr, DURING))?
                .unwrap_or(0) as usize,
        };
        let mut columns = Vec::with_capacity(count);
        for _ in 0..count {
            let p = self.read_packet(DURING).await?;
            let mut r = Reader::new(p, "column definition");
            let mut name = Vec::new();
            for i in 0..5 {
                let s = r
                    .lenenc_bytes()
                    .map_err(wire(&addr, DURING))?
                    .unwrap_or(&[]);
                if i == 4 {
                    name = s.to_vec();
                }
            }
            columns.push(String::from_utf8_lossy(&name).into_owned());
        }
        if self.capabilities & caps::DEPRECATE_EOF == 0 {
            let p = self.read_packet(DURING).await?;
            if !is_eof(p) {
                return Err(SourceError::Protocol {
                    addr: self.addr.clone(),
                    during: DURING,
                    detail: "expected an EOF packet after the column definitions".into(),
                });
            }
        }
        Ok(Some(PendingRows {
            columns,
            sql: sql.to_string(),
            ended: false,
        }))
    }

    /// Reads up to `max_rows` more rows of `pending` (room for
    /// `expected_rows` made once the first has come); `true` with them
    /// when the result set ended.
    pub async fn next_rows(
        &mut self,
        pending: &mut PendingRows,
        max_rows: usize,
        expected_rows: usize,
    ) -> Result<(RawResultSet, bool)> {
        self.next_rows_within(pending, max_rows, usize::MAX, expected_rows)
            .await
    }

    /// As [`Conn::next_rows`], and stops too once the rows read take
    /// `max_bytes` ([`RawResultSet::heap_bytes`]; at least one row is read).
    pub async fn next_rows_within(
        &mut self,
        pending: &mut PendingRows,
        max_rows: usize,
        max_bytes: usize,
        expected_rows: usize,
    ) -> Result<(RawResultSet, bool)> {
        const DURING: &str = "query";
        let addr = self.addr.clone();
        let mut rs = RawResultSet::new(pending.columns.clone());
        while !pending.ended
            && rs.len() < max_rows
            && (rs.is_empty() || rs.heap_bytes() < max_bytes)
        {
            let loc = match self.buffered_packet() {
                Some(loc) => loc,
                None => self.read_packet_loc(DURING).await?,
            };
            let p = self.payload(loc);
            if is_eof(p) {
                pending.ended = true;
                break;
            }
            if p.first() == Some(&0xff) {
                let e = ErrPacket::parse(p).map_err(wire(&addr, DURING))?;
                return Err(self.server_error(e, format!("query `{}`", pending.sql)));
            }
            rs.push_text_row(p).map_err(wire(&addr, DURING))?;
            if rs.len() == 1 && expected_rows > 1 {
                // Room for the rows expected, as many as fit in `max_bytes`.
                let fit = max_bytes / rs.heap_bytes().max(1);
                rs.reserve_rows_like_last((expected_rows - 1).min(fit));
            }
        }
        Ok((rs, pending.ended))
    }

    /// Runs a statement that returns no rows.
    pub async fn exec(&mut self, sql: &str) -> Result<()> {
        self.query(sql).await.map(|_| ())
    }
}

#[cfg(test)]
mod tests;
