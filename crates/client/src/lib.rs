//! Canal's connector API in Rust, over Canal's TCP protocol: what Canal's
//! Java `SimpleCanalConnector` offers (connect, subscribe, unsubscribe,
//! get, getWithoutAck, ack, rollback, disconnect), with the same wire
//! behaviour, so it works against Canal and against Sluice.
//!
//! ```no_run
//! # async fn demo() -> Result<(), sluice_client::ClientError> {
//! use sluice_client::{Connector, SimpleConnector, TimeUnit};
//! let mut c = SimpleConnector::connect("127.0.0.1:11111", "example", "", "").await?;
//! c.subscribe(".*\\..*").await?;
//! loop {
//!     let m = c.get_without_ack(1000, Some(500), TimeUnit::Milliseconds).await?;
//!     for e in &m.entries { /* sluice_client::row_change(e) … */ }
//!     if m.id != -1 { c.ack(m.id).await?; }
//! }
//! # }
//! ```
//!
//! # Reading entries fast
//!
//! `get_without_ack` decodes every entry into prost's [`proto::Entry`], and
//! [`row_change`] its rows into a [`proto::RowChange`]: every column name,
//! type and value becomes a `String` of its own. A consumer that reads many
//! rows should ask for the entries serialised
//! ([`SimpleConnector::get_without_ack_raw`]) and read them in place with
//! [`view`]: [`view::EntryView`] for the header, [`view::RowChangeView`]
//! for the rows, and columns whose names and values are `&str` into the
//! received frame. Nothing is copied or allocated per column; on a
//! 12-column table this reads about five times as many row changes a second
//! (`cargo bench -p sluice-client --bench read_entries`, figures in
//! docs/benchmarks.md).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use sluice_client::view::{EntryView, RowChangeView};
//! use sluice_client::{SimpleConnector, TimeUnit};
//! let mut c = SimpleConnector::connect("127.0.0.1:11111", "example", "", "").await?;
//! c.subscribe(".*\\..*").await?;
//! let m = c.get_without_ack_raw(1000, Some(500), TimeUnit::Milliseconds).await?;
//! for bytes in &m.entries {
//!     let entry = EntryView::parse(bytes)?;
//!     if entry.entry_type != Some(sluice_client::proto::EntryType::RowData as i32) {
//!         continue;
//!     }
//!     let change = RowChangeView::parse(entry.store_value)?;
//!     for row in change.rows() {
//!         for column in row.after() {
//!             let column = column?;
//!             println!("{}.{} {} = {:?}", entry.header.schema_name, entry.header.table_name, column.name, column.value);
//!         }
//!     }
//! }
//! if m.id != -1 { c.ack(m.id).await?; }
//! # Ok(())
//! # }
//! ```
//!
//! Behaviour taken from the Java client: the client id is 1001 unless set;
//! `connect` re-subscribes with the last filter (on `reconnect`) and then
//! rolls back everything un-acked (`rollbackOnConnect`); `ack` and
//! `rollback` wait for no reply, so a failure of either comes back as the
//! error of the *next* call; a password is sent scrambled (SHA-1
//! scramble411 with the server's seed), an empty one as empty.
//!
//! One difference: when an error reply may belong to an earlier ack or
//! rollback (the request's own reply then still follows), Java's client
//! stays one reply behind for the rest of the connection; this one drops
//! the connection after returning the error ([`ClientError::NotConnected`]
//! afterwards), and [`SimpleConnector::reconnect`] starts clean.
//!
//! Owns: the client side of the protocol. Must never: panic on what the
//! server sends, or allocate for a frame longer than
//! [`ConnectorOptions::max_frame`].

pub mod cluster;

use std::future::Future;
use std::io;
use std::time::Duration;

use prost::bytes::{BufMut as _, Bytes, BytesMut};
use prost::Message as _;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub use sluice_canal::proto;
use sluice_canal::proto::{
    Ack, ClientAck, ClientAuth, ClientRollback, Compression, Entry, Get, Handshake, Packet,
    PacketType, RowChange, Sub, Unsub,
};
/// Canal entries read in place, without decoding them into owned messages
/// (see "Reading entries fast" above).
pub use sluice_canal::view;

/// `java.util.concurrent.TimeUnit`, sent as its ordinal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    Nanoseconds = 0,
    Microseconds = 1,
    Milliseconds = 2,
    Seconds = 3,
    Minutes = 4,
    Hours = 5,
    Days = 6,
}

/// A batch: `id` is -1 when there was nothing to deliver.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub id: i64,
    pub entries: Vec<Entry>,
}

/// A batch with entries left serialised (Java's `lazyParseEntry`).
#[derive(Debug, Clone, PartialEq)]
pub struct RawMessage {
    pub id: i64,
    pub entries: Vec<Bytes>,
}

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("i/o error: {0}")]
    Io(#[from] io::Error),
    #[error("no reply from the server within {0:?}")]
    Timeout(Duration),
    #[error("the server closed the connection")]
    Closed,
    #[error("not connected")]
    NotConnected,
    #[error("authentication failed: error code:{code}, error message:{message}")]
    Auth { code: i32, message: String },
    /// An error ACK: Canal's code (400, 401, 402) and text.
    #[error("something goes wrong with reason: error code:{code}, error message:{message}")]
    Server { code: i32, message: String },
    #[error("frame of {len} bytes exceeds the limit of {max}")]
    FrameTooLarge { len: i64, max: usize },
    #[error("protocol error: {0}")]
    Protocol(String),
    /// An ack or rollback of a batch id that is not outstanding.
    #[error(
        "batch {0} is not outstanding (never delivered, or already acknowledged or rolled back)"
    )]
    UnknownBatch(i64),
    /// ZooKeeper could not be used (cluster connector).
    #[error("ZooKeeper: {0}")]
    Zk(String),
    /// No server ran the destination, or none could be reached, in time.
    #[error("no server runs destination {destination} (waited {waited:?})")]
    NoServer {
        destination: String,
        waited: Duration,
    },
}

impl ClientError {
    /// Canal's error code, for error replies.
    pub fn code(&self) -> Option<i32> {
        match self {
            ClientError::Server { code, .. } | ClientError::Auth { code, .. } => Some(*code),
            _ => None,
        }
    }
}

pub type Result<T> = std::result::Result<T, ClientError>;

/// Settings beyond address, destination and credentials.
#[derive(Debug, Clone)]
pub struct ConnectorOptions {
    /// Canal's client id (Java: 1001).
    pub client_id: i16,
    /// Sent as `net_read_timeout`/`net_write_timeout`: the server closes
    /// the connection after this long without traffic (Java: 1 h).
    pub idle_timeout: Duration,
    /// Longest wait for a reply (Java's soTimeout, 60 s); `None` waits forever.
    pub so_timeout: Option<Duration>,
    /// Roll back un-acked batches right after connecting (Java: true).
    pub rollback_on_connect: bool,
    /// Roll back un-acked batches before disconnecting (Java: false).
    pub rollback_on_disconnect: bool,
    /// Longest frame accepted from the server.
    pub max_frame: usize,
}

impl Default for ConnectorOptions {
    fn default() -> Self {
        ConnectorOptions {
            client_id: 1001,
            idle_timeout: Duration::from_secs(3600),
            so_timeout: Some(Duration::from_secs(60)),
            rollback_on_connect: true,
            rollback_on_disconnect: false,
            max_frame: 1 << 30,
        }
    }
}

/// What every connector offers on top of fetching and acknowledging
/// batches, as Java's `CanalConnector` interface: [`SimpleConnector`] to one
/// server, [`cluster::ClusterConnector`] to whichever server runs the
/// destination.
pub trait Connector: Send {
    /// The next batch, entries left serialised; it stays outstanding until
    /// acked or rolled back.
    fn get_without_ack_raw(
        &mut self,
        batch_size: i32,
        timeout: Option<i64>,
        unit: TimeUnit,
    ) -> impl Future<Output = Result<RawMessage>> + Send;

    /// Acknowledges a batch (the oldest outstanding one).
    fn ack(&mut self, batch_id: i64) -> impl Future<Output = Result<()>> + Send;

    /// The next batch, which stays outstanding until acked or rolled back.
    /// `timeout` in `unit`; `None` or a negative value (sent as -1) returns
    /// at once; `Some(0)` waits until a full batch is there.
    fn get_without_ack(
        &mut self,
        batch_size: i32,
        timeout: Option<i64>,
        unit: TimeUnit,
    ) -> impl Future<Output = Result<Message>> + Send {
        async move {
            let raw = self.get_without_ack_raw(batch_size, timeout, unit).await?;
            let entries = raw
                .entries
                .into_iter()
                .map(|e| {
                    Entry::decode(e).map_err(|e| ClientError::Protocol(format!("bad entry: {e}")))
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(Message {
                id: raw.id,
                entries,
            })
        }
    }

    /// getWithoutAck + ack. `timeout`: `None` returns at once with what is
    /// there; `Some(d)` waits up to `d` for a full batch (Canal: a zero
    /// duration waits until the batch is full, however long that takes).
    fn get(
        &mut self,
        batch_size: i32,
        timeout: Option<Duration>,
    ) -> impl Future<Output = Result<Message>> + Send {
        async move {
            // Whole milliseconds go as milliseconds, anything finer as
            // microseconds.
            let (t, unit) = match timeout {
                None => (None, TimeUnit::Milliseconds),
                Some(d) if d.subsec_nanos() % 1_000_000 == 0 => (
                    Some(i64::try_from(d.as_millis()).unwrap_or(i64::MAX)),
                    TimeUnit::Milliseconds,
                ),
                Some(d) => (
                    Some(i64::try_from(d.as_micros()).unwrap_or(i64::MAX)),
                    TimeUnit::Microseconds,
                ),
            };
            let m = self.get_without_ack(batch_size, t, unit).await?;
            if m.id != -1 {
                self.ack(m.id).await?;
            }
            Ok(m)
        }
    }
}

impl Connector for SimpleConnector {
    fn get_without_ack_raw(
        &mut self,
        batch_size: i32,
        timeout: Option<i64>,
        unit: TimeUnit,
    ) -> impl Future<Output = Result<RawMessage>> + Send {
        SimpleConnector::get_without_ack_raw(self, batch_size, timeout, unit)
    }

    fn ack(&mut self, batch_id: i64) -> impl Future<Output = Result<()>> + Send {
        SimpleConnector::ack(self, batch_id)
    }
}

/// One connection to one destination, as Java's `SimpleCanalConnector`.
pub struct SimpleConnector {
    addr: String,
    destination: String,
    username: String,
    password: String,
    options: ConnectorOptions,
    client_id: String,
    filter: Option<String>,
    stream: Option<TcpStream>,
    out: Vec<u8>,
    /// ACK/ROLLBACK packets sent since the last reply was read: each may
    /// have produced an error reply that is still in the stream.
    unreplied: usize,
}

impl std::fmt::Debug for SimpleConnector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimpleConnector")
            .field("addr", &self.addr)
            .field("destination", &self.destination)
            .field("client_id", &self.client_id)
            .field("connected", &self.stream.is_some())
            .finish()
    }
}

impl SimpleConnector {
    /// Connects, logs in and rolls back un-acked batches (Java's defaults).
    pub async fn connect(
        addr: &str,
        destination: &str,
        username: &str,
        password: &str,
    ) -> Result<SimpleConnector> {
        Self::connect_with(
            addr,
            destination,
            username,
            password,
            ConnectorOptions::default(),
        )
        .await
    }

    pub async fn connect_with(
        addr: &str,
        destination: &str,
        username: &str,
        password: &str,
        options: ConnectorOptions,
    ) -> Result<SimpleConnector> {
        let mut c = SimpleConnector {
            addr: addr.to_string(),
            destination: destination.to_string(),
            username: username.to_string(),
            password: password.to_string(),
            client_id: options.client_id.to_string(),
            options,
            filter: None,
            stream: None,
            out: Vec::new(),
            unreplied: 0,
        };
        c.open().await?;
        Ok(c)
    }

    pub fn destination(&self) -> &str {
        &self.destination
    }

    pub fn client_id(&self) -> i16 {
        self.options.client_id
    }

    pub fn is_connected(&self) -> bool {
        self.stream.is_some()
    }

    /// Drops the connection (without rollback) and connects again:
    /// re-subscribes with the last filter, then rolls back if configured.
    pub async fn reconnect(&mut self) -> Result<()> {
        self.stream = None;
        self.open().await
    }

    async fn open(&mut self) -> Result<()> {
        self.unreplied = 0;
        let stream = TcpStream::connect(self.addr.as_str()).await?;
        stream.set_nodelay(true)?;
        self.stream = Some(stream);
        let r = self.login().await;
        if r.is_err() {
            self.stream = None;
        }
        r
    }

    async fn login(&mut self) -> Result<()> {
        let hs = self.read_packet().await?;
        if hs.r#type != PacketType::Handshake as i32 {
            return Err(ClientError::Protocol(format!(
                "expected HANDSHAKE, got packet type {}",
                hs.r#type
            )));
        }
        if hs.version != Some(1) {
            return Err(ClientError::Protocol(
                "unsupported version at this client.".into(),
            ));
        }
        let handshake = Handshake::decode(hs.body.as_slice())
            .map_err(|e| ClientError::Protocol(format!("bad handshake: {e}")))?;
        let password = if self.password.is_empty() {
            Vec::new()
        } else {
            hex(&scramble411(self.password.as_bytes(), &handshake.seeds)).into_bytes()
        };
        let idle_ms = i32::try_from(self.options.idle_timeout.as_millis()).unwrap_or(i32::MAX);
        let auth = ClientAuth {
            username: self.username.clone(),
            password,
            net_read_timeout: Some(idle_ms),
            net_write_timeout: Some(idle_ms),
            ..Default::default()
        };
        self.send(PacketType::ClientAuthentication, &auth.encode_to_vec())
            .await?;
        let reply = self.read_packet().await?;
        if reply.r#type != PacketType::Ack as i32 {
            return Err(ClientError::Protocol(format!(
                "expected ACK to the login, got packet type {}",
                reply.r#type
            )));
        }
        let ack = decode_ack(&reply.body)?;
        if let Some(code) = ack.error_code.filter(|c| *c != 0) {
            return Err(ClientError::Auth {
                code,
                message: ack.error_message,
            });
        }
        if let Some(filter) = self.filter.clone() {
            self.subscribe(&filter).await?;
        }
        if self.options.rollback_on_connect {
            self.rollback(0).await?;
        }
        Ok(())
    }

    /// Subscribes this client; a non-empty filter (`schema.table` regexes)
    /// replaces the destination's filter, as in Canal.
    pub async fn subscribe(&mut self, filter: &str) -> Result<()> {
        let sub = Sub {
            destination: self.destination.clone(),
            client_id: self.client_id.clone(),
            filter: filter.to_string(),
        };
        self.send(PacketType::Subscription, &sub.encode_to_vec())
            .await?;
        self.expect_ack().await?;
        self.filter = Some(filter.to_string());
        Ok(())
    }

    pub async fn unsubscribe(&mut self) -> Result<()> {
        let unsub = Unsub {
            destination: self.destination.clone(),
            client_id: self.client_id.clone(),
            ..Default::default()
        };
        self.send(PacketType::Unsubscription, &unsub.encode_to_vec())
            .await?;
        self.expect_ack().await
    }

    /// As [`Connector::get_without_ack`], entries left serialised.
    pub async fn get_without_ack_raw(
        &mut self,
        batch_size: i32,
        timeout: Option<i64>,
        unit: TimeUnit,
    ) -> Result<RawMessage> {
        let get = Get {
            destination: self.destination.clone(),
            client_id: self.client_id.clone(),
            fetch_size: if batch_size <= 0 { 1000 } else { batch_size },
            // Negative means "do not wait", as for Java's null timeout.
            timeout: Some(timeout.filter(|t| *t >= 0).unwrap_or(-1)),
            unit: Some(unit as i32),
            auto_ack: Some(false),
        };
        self.send(PacketType::Get, &get.encode_to_vec()).await?;
        let body = self.read_frame().await?;
        let p = PacketView::decode(body)
            .map_err(|e| ClientError::Protocol(format!("bad packet: {e}")))?;
        match PacketType::try_from(p.r#type) {
            Ok(PacketType::Messages) => {
                let plain = [Compression::Compatible as i32, Compression::None as i32];
                if p.compression.is_some_and(|c| !plain.contains(&c)) {
                    return Err(ClientError::Protocol("compression is not supported".into()));
                }
                let m = MessagesView::decode(p.body)
                    .map_err(|e| ClientError::Protocol(format!("bad messages: {e}")))?;
                self.unreplied = 0;
                Ok(RawMessage {
                    id: m.batch_id,
                    entries: m.messages,
                })
            }
            Ok(PacketType::Ack) => {
                let ack = decode_ack(&p.body)?;
                Err(self.error_reply(ack))
            }
            _ => Err(ClientError::Protocol(format!(
                "unexpected packet type {}",
                p.r#type
            ))),
        }
    }

    /// Acks a batch (the oldest outstanding one). No reply on success; an
    /// error surfaces on the next call.
    pub async fn ack(&mut self, batch_id: i64) -> Result<()> {
        let ack = ClientAck {
            destination: self.destination.clone(),
            client_id: self.client_id.clone(),
            batch_id,
        };
        self.send(PacketType::ClientAck, &ack.encode_to_vec())
            .await?;
        if batch_id != -1 {
            self.unreplied += 1;
        }
        Ok(())
    }

    /// Rolls back one batch (the oldest outstanding one); 0 = all.
    pub async fn rollback(&mut self, batch_id: i64) -> Result<()> {
        let rb = ClientRollback {
            destination: self.destination.clone(),
            client_id: self.client_id.clone(),
            batch_id,
        };
        self.send(PacketType::ClientRollback, &rb.encode_to_vec())
            .await?;
        self.unreplied += 1;
        Ok(())
    }

    /// Rolls back every outstanding batch: the next get starts after the
    /// last acked entry.
    pub async fn rollback_all(&mut self) -> Result<()> {
        self.rollback(0).await
    }

    /// Closes the connection (after a rollback if so configured).
    pub async fn disconnect(mut self) -> Result<()> {
        if self.options.rollback_on_disconnect && self.stream.is_some() {
            self.rollback(0).await?;
        }
        if let Some(mut s) = self.stream.take() {
            let _ = s.shutdown().await;
        }
        Ok(())
    }

    /// Low level: sends one packet of any type with the given body (no
    /// reply is read). For tests and tools.
    pub async fn send_packet(&mut self, r#type: i32, body: &[u8]) -> Result<()> {
        let p = Packet {
            r#type,
            body: body.to_vec(),
            ..Default::default()
        };
        self.send_raw(&p.encode_to_vec()).await
    }

    /// Low level: reads the next packet.
    pub async fn read_packet(&mut self) -> Result<Packet> {
        let body = self.read_frame().await?;
        Packet::decode(body).map_err(|e| ClientError::Protocol(format!("bad packet: {e}")))
    }

    async fn send(&mut self, t: PacketType, body: &[u8]) -> Result<()> {
        self.send_packet(t as i32, body).await
    }

    /// Writes one frame (length header and packet) in one write.
    async fn send_raw(&mut self, packet: &[u8]) -> Result<()> {
        let len = i32::try_from(packet.len()).map_err(|_| ClientError::FrameTooLarge {
            len: packet.len() as i64,
            max: i32::MAX as usize,
        })?;
        self.out.clear();
        self.out.extend_from_slice(&len.to_be_bytes());
        self.out.extend_from_slice(packet);
        let stream = self.stream.as_mut().ok_or(ClientError::NotConnected)?;
        stream.write_all(&self.out).await?;
        Ok(())
    }

    async fn read_frame(&mut self) -> Result<Bytes> {
        let max = self.options.max_frame;
        let so = self.options.so_timeout;
        let stream = self.stream.as_mut().ok_or(ClientError::NotConnected)?;
        let read = async {
            let mut header = [0u8; 4];
            read_exact_or_closed(stream, &mut header).await?;
            let len = i32::from_be_bytes(header);
            if len < 0 || len as usize > max {
                return Err(ClientError::FrameTooLarge {
                    len: len as i64,
                    max,
                });
            }
            // Read into spare capacity: a batch is a megabyte or more,
            // and zeroing it first would write it twice.
            let len = len as usize;
            let mut body = BytesMut::with_capacity(len);
            while body.len() < len {
                let want = len - body.len();
                match stream.read_buf(&mut (&mut body).limit(want)).await {
                    Ok(0) => return Err(ClientError::Closed),
                    Ok(_) => {}
                    Err(e) => return Err(ClientError::Io(e)),
                }
            }
            Ok(body.freeze())
        };
        let r = match so {
            Some(d) => match tokio::time::timeout(d, read).await {
                Ok(r) => r,
                Err(_) => Err(ClientError::Timeout(d)),
            },
            None => read.await,
        };
        if r.is_err() {
            // The stream is out of step after a partial read: drop it.
            self.stream = None;
        }
        r
    }

    async fn expect_ack(&mut self) -> Result<()> {
        let p = self.read_packet().await?;
        if p.r#type != PacketType::Ack as i32 {
            return Err(ClientError::Protocol(format!(
                "expected ACK, got packet type {}",
                p.r#type
            )));
        }
        let ack = decode_ack(&p.body)?;
        match ack.error_code {
            Some(code) if code != 0 => Err(self.error_reply(ack)),
            _ => {
                self.unreplied = 0;
                Ok(())
            }
        }
    }

    /// An error ACK read as the reply to a request. If ACK or ROLLBACK
    /// packets went out since the last reply, it may be theirs, with the
    /// request's own reply still to come: the stream can no longer be
    /// trusted to be in step, so the connection is dropped (Java's client
    /// stays one reply behind instead). `reconnect` starts clean.
    fn error_reply(&mut self, ack: Ack) -> ClientError {
        if self.unreplied > 0 {
            self.stream = None;
        }
        self.unreplied = 0;
        ClientError::Server {
            code: ack.error_code.unwrap_or(0),
            message: ack.error_message,
        }
    }
}

async fn read_exact_or_closed(stream: &mut TcpStream, buf: &mut [u8]) -> Result<()> {
    match stream.read_exact(buf).await {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Err(ClientError::Closed),
        Err(e) => Err(ClientError::Io(e)),
    }
}

fn decode_ack(body: &[u8]) -> Result<Ack> {
    Ack::decode(body).map_err(|e| ClientError::Protocol(format!("bad ack: {e}")))
}

/// The `RowChange` carried by a ROWDATA entry.
pub fn row_change(entry: &Entry) -> std::result::Result<RowChange, prost::DecodeError> {
    RowChange::decode(entry.store_value.as_deref().unwrap_or_default())
}

pub use sluice_canal::auth::scramble411;

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// `Packet` with its body as a view into the frame (no copy).
#[derive(Clone, PartialEq, prost::Message)]
struct PacketView {
    #[prost(int32, tag = "3")]
    r#type: i32,
    #[prost(int32, optional, tag = "4")]
    compression: Option<i32>,
    #[prost(bytes = "bytes", tag = "5")]
    body: Bytes,
}

/// `Messages` with entries as views into the frame (no copy).
#[derive(Clone, PartialEq, prost::Message)]
struct MessagesView {
    #[prost(int64, tag = "1")]
    batch_id: i64,
    #[prost(bytes = "bytes", repeated, tag = "2")]
    messages: Vec<Bytes>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scramble_matches_the_spec_vector() {
        assert_eq!(
            hex(&scramble411(b"admin", &[1, 2, 3, 4, 5, 6, 7, 8])),
            "7442e41a86c87ea818a7b90f671b334eeea8be84"
        );
    }

    #[test]
    fn views_read_what_prost_writes() {
        use sluice_canal::proto::Messages;
        let body = Messages {
            batch_id: 42,
            messages: vec![vec![1, 2], vec![], vec![3]],
        }
        .encode_to_vec();
        let p = Packet {
            version: Some(1),
            r#type: PacketType::Messages as i32,
            body,
            ..Default::default()
        }
        .encode_to_vec();
        let v = PacketView::decode(Bytes::from(p)).unwrap();
        assert_eq!(v.r#type, PacketType::Messages as i32);
        let m = MessagesView::decode(v.body).unwrap();
        assert_eq!(m.batch_id, 42);
        assert_eq!(m.messages, vec![vec![1u8, 2], vec![], vec![3]]);
    }
}
