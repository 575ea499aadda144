//! One client connection's protocol state machine, without the socket:
//! handshake → authentication → requests (spec §5–§9).
//!
//! The server feeds it one frame body (a serialised `Packet`) at a time and
//! writes back whatever [`Outcome`] it returns, in order. Requests map onto
//! [`Destination`] calls: SUBSCRIPTION/UNSUBSCRIPTION answer an ACK;
//! GET answers MESSAGES (Canal's timeout and unit mapped to [`GetWait`]);
//! CLIENTACK and CLIENTROLLBACK answer nothing on success and an error ACK
//! otherwise (that ACK is read by the client as the reply to its *next*
//! request, exactly as with Canal); every other packet type answers ACK 400.
//! A packet that does not parse answers ACK 400 and the session goes on.
//!
//! Durability barrier: a destination may persist an ack's cursor after the
//! ack returns ([`Destination::durable`]). The session then writes no reply
//! (MESSAGES, an ACK, an error) until those cursors are durable, so a client
//! never sees anything after an ack that a crash could undo; a GET waits
//! for them and for its entries at the same time. If the write failed, that
//! reply is the error instead.
//!
//! Wire choices (documented deviations are listed in the crate docs):
//! * MESSAGES always carries `version = 1`, whether the batch is empty or
//!   not. Canal's raw-entry mode (its default) omits the version on
//!   non-empty batches and sets it on empty ones; no client reads the field
//!   on MESSAGES, and one layout for both keeps the encoder simple. Entry
//!   bytes are copied into the frame as the store holds them, never
//!   re-encoded.
//! * Authentication failures answer `auth failed for user:<name>` and keep
//!   the connection in the authentication state, as Canal does, but after
//!   [`MAX_FAILED_AUTHS`] failures the connection is closed (Canal never
//!   closes; every client gives up after the first failure anyway, so only
//!   password guessing on one connection notices).
//!
//! Owns: request parsing and validation, Canal's error codes and texts (the
//! replies and their encoding live in [`crate::reply`]). Must never: panic
//! or allocate on the strength of a length taken from input, touch a
//! socket, or hold a destination across requests (each request looks its
//! destination up again, so a stopped destination is seen at once).

use std::sync::Arc;
use std::time::{Duration, Instant};

use prost::Message;
use sluice_canal::proto::{
    ClientAck, ClientAuth, ClientRollback, Get, Handshake, Packet, PacketType, Sub, Unsub,
};
use sluice_store::GetWait;
use sluice_store::{ClientId, Destination, DestinationError, Destinations};

use crate::auth::AuthConfig;
pub use crate::reply::{encode_messages_frame, encode_messages_head, Outcome, Reply};

/// Idle timeout when the client does not send one (Canal: 1 hour).
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(3600);

/// Failed logins after which the connection is closed.
pub const MAX_FAILED_AUTHS: u32 = 3;

/// Longest wait a GET may ask for; longer requests are capped (a blocking
/// GET that long is indistinguishable from "forever" for any client).
pub const MAX_GET_WAIT: Duration = Duration::from_secs(365 * 24 * 3600);

/// Bytes of the handshake seed (Canal: 8 random bytes per connection).
pub const SEED_LEN: usize = 8;

/// Canal's error codes.
pub const CODE_ERROR: i32 = 400;
pub const CODE_MISSING_IDENTITY: i32 = 401;
pub const CODE_ACK_ZERO: i32 = 402;

/// Where the session is in the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The handshake went out; the next packet is read as ClientAuth
    /// whatever its type says (as Canal does).
    Auth,
    /// Logged in: requests.
    Ready,
}

/// A parsed request of an authenticated session.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Subscribe(Sub),
    Unsubscribe(Unsub),
    Get(Get),
    Ack(ClientAck),
    Rollback(ClientRollback),
    /// Any other packet type (HEARTBEAT, DUMP, SHUTDOWN, 0, unknown values).
    Unsupported(i32),
}

impl Request {
    /// The destination a request names and its packet type as an index
    /// into [`crate::metrics::PACKET_TYPES`]; `None` for other packets.
    fn metric_labels(&self) -> Option<(&str, usize)> {
        let (destination, packet) = match self {
            Request::Subscribe(r) => (&r.destination, 0),
            Request::Unsubscribe(r) => (&r.destination, 1),
            Request::Get(r) => (&r.destination, 2),
            Request::Ack(r) => (&r.destination, 3),
            Request::Rollback(r) => (&r.destination, 4),
            Request::Unsupported(_) => return None,
        };
        (!destination.is_empty()).then_some((destination.as_str(), packet))
    }
}

/// Why a packet could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("com.google.protobuf.InvalidProtocolBufferException: packet: {0}")]
    Packet(String),
    #[error("com.google.protobuf.InvalidProtocolBufferException: {kind} body: {error}")]
    Body { kind: &'static str, error: String },
}

/// Parses one packet of an authenticated session. Pure.
pub fn parse_request(packet: &[u8]) -> Result<Request, RequestError> {
    let p = Packet::decode(packet).map_err(|e| RequestError::Packet(e.to_string()))?;
    fn body<M: Message + Default>(kind: &'static str, b: &[u8]) -> Result<M, RequestError> {
        M::decode(b).map_err(|e| RequestError::Body {
            kind,
            error: e.to_string(),
        })
    }
    Ok(match PacketType::try_from(p.r#type) {
        Ok(PacketType::Subscription) => Request::Subscribe(body("Sub", &p.body)?),
        Ok(PacketType::Unsubscription) => Request::Unsubscribe(body("Unsub", &p.body)?),
        Ok(PacketType::Get) => Request::Get(body("Get", &p.body)?),
        Ok(PacketType::ClientAck) => Request::Ack(body("ClientAck", &p.body)?),
        Ok(PacketType::ClientRollback) => Request::Rollback(body("ClientRollback", &p.body)?),
        _ => Request::Unsupported(p.r#type),
    })
}

/// Canal's name of a packet type, as in its "is NOT supported" text.
pub fn packet_type_name(t: i32) -> String {
    let name = match PacketType::try_from(t) {
        Ok(PacketType::Compatible) => "PACKAGETYPECOMPATIBLEPROTO2",
        Ok(PacketType::Handshake) => "HANDSHAKE",
        Ok(PacketType::ClientAuthentication) => "CLIENTAUTHENTICATION",
        Ok(PacketType::Ack) => "ACK",
        Ok(PacketType::Subscription) => "SUBSCRIPTION",
        Ok(PacketType::Unsubscription) => "UNSUBSCRIPTION",
        Ok(PacketType::Get) => "GET",
        Ok(PacketType::Messages) => "MESSAGES",
        Ok(PacketType::ClientAck) => "CLIENTACK",
        Ok(PacketType::Shutdown) => "SHUTDOWN",
        Ok(PacketType::Dump) => "DUMP",
        Ok(PacketType::Heartbeat) => "HEARTBEAT",
        Ok(PacketType::ClientRollback) => "CLIENTROLLBACK",
        Err(_) => return format!("UNRECOGNIZED({t})"),
    };
    name.to_string()
}

/// Canal's GET `timeout`/`unit` as a wait: -1 returns at once; 0, absent
/// or any other negative value waits for a full batch (Canal treats every
/// `timeout <= 0` but the -1 marker as "block"); a positive value waits at
/// most that long in `unit`, a `java.util.concurrent.TimeUnit` ordinal
/// (0 ns, 1 µs, 2 ms, 3 s, 4 min, 5 h, 6 days; anything else ms).
pub fn get_wait(timeout: Option<i64>, unit: Option<i32>) -> GetWait {
    let t = match timeout {
        Some(-1) => return GetWait::NoWait,
        None => return GetWait::UntilFull,
        Some(t) if t <= 0 => return GetWait::UntilFull,
        Some(t) => t as u64,
    };
    let d = match unit {
        Some(0) => Duration::from_nanos(t),
        Some(1) => Duration::from_micros(t),
        Some(3) => Duration::from_secs(t),
        Some(4) => Duration::from_secs(t.saturating_mul(60)),
        Some(5) => Duration::from_secs(t.saturating_mul(3600)),
        Some(6) => Duration::from_secs(t.saturating_mul(86_400)),
        _ => Duration::from_millis(t),
    };
    GetWait::AtMost(d.min(MAX_GET_WAIT))
}

/// A client id as Java's `Short.valueOf`: optional sign, decimal digits,
/// -32768..=32767.
pub fn parse_client_id(s: &str) -> Result<ClientId, String> {
    s.parse::<ClientId>()
        .map_err(|_| format!("java.lang.NumberFormatException: For input string: \"{s}\""))
}

/// The per-connection state machine.
pub struct ClientProtocol {
    seed: [u8; SEED_LEN],
    auth: Arc<AuthConfig>,
    destinations: Arc<dyn Destinations>,
    /// How Canal names the channel in error texts: `[id: 0x…, /peer => /local]`.
    channel: String,
    phase: Phase,
    failed_auths: u32,
    read_timeout: Duration,
    write_timeout: Duration,
    /// Destinations this session acked on since its last reply: their
    /// cursors must be durable before the next reply.
    unsettled: Vec<Arc<dyn Destination>>,
    /// The client metrics of the destination last requested.
    metrics: Option<crate::metrics::ClientMetrics>,
    /// Where the clients this session made requests for are counted as
    /// connected, and those clients.
    connections: Option<Arc<crate::Connections>>,
    connected_as: Vec<(String, ClientId)>,
}

impl Drop for ClientProtocol {
    fn drop(&mut self) {
        if let Some(connections) = &self.connections {
            for (destination, client) in &self.connected_as {
                connections.closed(destination, *client);
            }
        }
    }
}

impl ClientProtocol {
    pub fn new(
        seed: [u8; SEED_LEN],
        auth: Arc<AuthConfig>,
        destinations: Arc<dyn Destinations>,
        channel: String,
    ) -> ClientProtocol {
        ClientProtocol {
            seed,
            auth,
            destinations,
            channel,
            phase: Phase::Auth,
            failed_auths: 0,
            read_timeout: DEFAULT_IDLE_TIMEOUT,
            write_timeout: DEFAULT_IDLE_TIMEOUT,
            metrics: None,
            unsettled: Vec::new(),
            connections: None,
            connected_as: Vec::new(),
        }
    }

    /// Counts this session in `connections` as connected for each
    /// destination and clientId it makes a request for, until dropped.
    pub fn with_connections(mut self, connections: Arc<crate::Connections>) -> ClientProtocol {
        self.connections = Some(connections);
        self
    }

    fn connected(&mut self, destination: &str, client: ClientId) {
        let Some(connections) = &self.connections else {
            return;
        };
        if self
            .connected_as
            .iter()
            .any(|(d, c)| d == destination && *c == client)
        {
            return;
        }
        connections.opened(destination, client);
        self.connected_as.push((destination.to_string(), client));
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The idle timeouts the client asked for (`net_read_timeout`,
    /// `net_write_timeout`, ms; default 1 h), valid once authenticated.
    pub fn idle_timeouts(&self) -> (Duration, Duration) {
        (self.read_timeout, self.write_timeout)
    }

    /// The first frame's packet: `Packet{version=1, type=HANDSHAKE,
    /// body=Handshake{seeds}}`.
    pub fn handshake_packet(&self) -> Vec<u8> {
        Packet {
            version: Some(1),
            r#type: PacketType::Handshake as i32,
            body: Handshake {
                seeds: self.seed.to_vec(),
                ..Default::default()
            }
            .encode_to_vec(),
            ..Default::default()
        }
        .encode_to_vec()
    }

    /// Failed logins on this connection so far.
    pub fn failed_logins(&self) -> u32 {
        self.failed_auths
    }

    /// Handles the login packet (in [`Phase::Auth`]) at once: logging in
    /// never waits, so the server can count the outcome against the peer's
    /// address before anything else runs.
    pub fn login(&mut self, packet: &[u8]) -> Outcome {
        match self.phase {
            Phase::Auth => self.authenticate(packet),
            Phase::Ready => {
                Outcome::Reply(Reply::error(CODE_ERROR, "already logged in".to_string()))
            }
        }
    }

    /// Handles one packet (a frame body).
    pub async fn handle(&mut self, packet: &[u8]) -> Outcome {
        match self.phase {
            Phase::Auth => self.authenticate(packet),
            Phase::Ready => {
                let started = Instant::now();
                let mut counted = None;
                let outcome = match parse_request(packet) {
                    Ok(req) => {
                        counted = self.count_for(&req);
                        self.request(req).await
                    }
                    Err(e) => Outcome::Reply(self.exception(&e.to_string())),
                };
                let outcome = match outcome {
                    Outcome::Silent => Outcome::Silent,
                    Outcome::Reply(r) => Outcome::Reply(self.after_settling(r).await),
                    Outcome::ReplyAndClose(r) => {
                        Outcome::ReplyAndClose(self.after_settling(r).await)
                    }
                };
                if let (Some(packet), Some(m)) = (counted, &self.metrics) {
                    m.request(packet, &outcome, started.elapsed());
                }
                outcome
            }
        }
    }

    /// Waits until the cursors of this session's acks are durable; the
    /// error reply of the first that is not.
    async fn settle(&mut self) -> Result<(), Reply> {
        let mut first = Ok(());
        for d in std::mem::take(&mut self.unsettled) {
            if let Err(e) = d.durable().await {
                if first.is_ok() {
                    first = Err(self.destination_error(e));
                }
            }
        }
        if let Err(Reply::Ack {
            error: Some((code, message)),
        }) = &first
        {
            tracing::warn!(channel = %self.channel, code, %message, "acked cursors not persisted");
        }
        first
    }

    /// `reply`, once the acks before it are durable, or the error saying
    /// they are not.
    async fn after_settling(&mut self, reply: Reply) -> Reply {
        match self.settle().await {
            Ok(()) => reply,
            Err(error) => error,
        }
    }

    /// Canal's reply to an exception while serving a request.
    fn exception(&self, message: &str) -> Reply {
        Reply::error(
            CODE_ERROR,
            format!(
                "something goes wrong with channel:{}, exception={}",
                self.channel, message
            ),
        )
    }

    fn destination_error(&self, e: DestinationError) -> Reply {
        if e.code == CODE_ERROR {
            self.exception(&e.message)
        } else {
            Reply::error(e.code, e.message)
        }
    }

    fn authenticate(&mut self, packet: &[u8]) -> Outcome {
        // The type field is not looked at: the first packet is ClientAuth.
        let ca = match Packet::decode(packet) {
            Ok(p) => ClientAuth::decode(p.body.as_slice()).map_err(|e| RequestError::Body {
                kind: "ClientAuth",
                error: e.to_string(),
            }),
            Err(e) => Err(RequestError::Packet(e.to_string())),
        };
        let ca = match ca {
            Ok(ca) => ca,
            Err(e) => return Outcome::Reply(self.exception(&e.to_string())),
        };
        if let Err(rejected) = self.auth.check(&ca.username, &ca.password, &self.seed) {
            self.failed_auths += 1;
            // The server logs failures with the address, within a budget.
            tracing::debug!(channel = %self.channel, user = %ca.username, attempt = self.failed_auths, "authentication failed");
            let reply = Reply::error(CODE_ERROR, rejected.to_string());
            return if self.failed_auths >= MAX_FAILED_AUTHS {
                Outcome::ReplyAndClose(reply)
            } else {
                Outcome::Reply(reply)
            };
        }
        // Optional subscription carried by the ClientAuth (no reference client uses it).
        if !ca.destination.is_empty() && !ca.client_id.is_empty() {
            let r = parse_client_id(&ca.client_id).and_then(|client| {
                let d = self.lookup(&ca.destination)?;
                d.subscribe(client, &ca.filter).map_err(|e| e.message)
            });
            if let Err(message) = r {
                return Outcome::Reply(self.exception(&message));
            }
        }
        let ms = |v: Option<i32>| match v {
            Some(v) if v > 0 => Duration::from_millis(v as u64),
            _ => DEFAULT_IDLE_TIMEOUT,
        };
        self.read_timeout = ms(ca.net_read_timeout);
        self.write_timeout = ms(ca.net_write_timeout);
        self.phase = Phase::Ready;
        // Logged here rather than at accept: a port scan logs nothing.
        tracing::info!(channel = %self.channel, user = %ca.username, "client logged in");
        Outcome::Reply(Reply::ok())
    }

    /// The packet type to count `req` as, with `self.metrics` set for its
    /// destination; `None` when it is not counted.
    fn count_for(&mut self, req: &Request) -> Option<usize> {
        let (destination, packet) = req.metric_labels()?;
        if self
            .metrics
            .as_ref()
            .is_some_and(|m| m.destination == destination)
        {
            return Some(packet);
        }
        // Only destinations served here: a client cannot make up label
        // values.
        self.destinations.destination(destination)?;
        self.metrics = Some(crate::metrics::ClientMetrics::new(destination));
        Some(packet)
    }

    fn lookup(&self, destination: &str) -> Result<Arc<dyn Destination>, String> {
        self.destinations
            .destination(destination)
            .ok_or_else(|| format!("destination:{destination} should start first"))
    }

    /// Destination and client id of a request: 401 when either is empty,
    /// 400 when the id is not a short or the destination is not running.
    fn identity(
        &mut self,
        kind: &str,
        destination: &str,
        client_id: &str,
    ) -> Result<(Arc<dyn Destination>, ClientId), Reply> {
        if destination.is_empty() || client_id.is_empty() {
            return Err(missing_identity(kind, destination, client_id));
        }
        let client = parse_client_id(client_id).map_err(|m| self.exception(&m))?;
        let d = self.lookup(destination).map_err(|m| {
            // Canal's reply text stays (clients look for it); the log says
            // what it means.
            tracing::warn!(
                channel = %self.channel,
                destination,
                request = kind,
                "a client asked for a destination this server does not run: not configured here, not started (see its errors above), or running on another server of the cluster"
            );
            self.exception(&m)
        })?;
        self.connected(destination, client);
        Ok((d, client))
    }

    async fn request(&mut self, req: Request) -> Outcome {
        match req {
            Request::Subscribe(sub) => {
                let reply = match self.identity("Sub", &sub.destination, &sub.client_id) {
                    Err(r) => r,
                    Ok((d, client)) => match d.subscribe(client, &sub.filter) {
                        Ok(()) => {
                            tracing::info!(channel = %self.channel, destination = %sub.destination, client, filter = %sub.filter, "client subscribed");
                            Reply::ok()
                        }
                        Err(e) => self.destination_error(e),
                    },
                };
                Outcome::Reply(reply)
            }
            Request::Unsubscribe(unsub) => {
                let reply = match self.identity("Unsub", &unsub.destination, &unsub.client_id) {
                    Err(r) => r,
                    Ok((d, client)) => match d.unsubscribe(client) {
                        Ok(()) => Reply::ok(),
                        Err(e) => self.destination_error(e),
                    },
                };
                Outcome::Reply(reply)
            }
            Request::Get(get) => {
                let (d, client) = match self.identity("Get", &get.destination, &get.client_id) {
                    Ok(x) => x,
                    Err(r) => return Outcome::Reply(r),
                };
                let fetch = usize::try_from(get.fetch_size).unwrap_or(0);
                let wait = get_wait(get.timeout, get.unit);
                // The cursor write overlaps with the wait for entries.
                let got = {
                    let get = d.get(client, fetch, wait);
                    let settle = self.settle();
                    tokio::join!(get, settle)
                };
                match got {
                    (Ok(batch), Ok(())) => Outcome::Reply(Reply::Batch(batch)),
                    (got, Err(error)) => {
                        // The client never sees this batch: give it back.
                        if let Ok(batch) = got {
                            if batch.id != -1 {
                                let _ = d.rollback(client, batch.id);
                            }
                        }
                        Outcome::Reply(error)
                    }
                    (Err(e), Ok(())) => Outcome::Reply(self.destination_error(e)),
                }
            }
            Request::Ack(ack) => {
                if ack.destination.is_empty() || ack.client_id.is_empty() {
                    return Outcome::Reply(missing_identity(
                        "ClientAck",
                        &ack.destination,
                        &ack.client_id,
                    ));
                }
                match ack.batch_id {
                    0 => {
                        return Outcome::Reply(Reply::error(
                            CODE_ACK_ZERO,
                            "batchId should assign value",
                        ))
                    }
                    // The id of an empty batch: nothing to ack.
                    -1 => return Outcome::Silent,
                    _ => {}
                }
                let (d, client) = match self.identity("ClientAck", &ack.destination, &ack.client_id)
                {
                    Ok(x) => x,
                    Err(r) => return Outcome::Reply(r),
                };
                match d.ack(client, ack.batch_id) {
                    Ok(()) => {
                        if !self.unsettled.iter().any(|u| Arc::ptr_eq(u, &d)) {
                            self.unsettled.push(d);
                        }
                        Outcome::Silent
                    }
                    Err(e) => {
                        let r = self.destination_error(e);
                        self.unsolicited("ack", r)
                    }
                }
            }
            Request::Rollback(rb) => {
                let (d, client) =
                    match self.identity("ClientRollback", &rb.destination, &rb.client_id) {
                        Ok(x) => x,
                        Err(r) => return Outcome::Reply(r),
                    };
                match d.rollback(client, rb.batch_id) {
                    Ok(()) => Outcome::Silent,
                    Err(e) => {
                        let r = self.destination_error(e);
                        self.unsolicited("rollback", r)
                    }
                }
            }
            Request::Unsupported(t) => Outcome::Reply(Reply::error(
                CODE_ERROR,
                format!("packet type: {} is NOT supported!", packet_type_name(t)),
            )),
        }
    }

    /// An error reply to CLIENTACK/CLIENTROLLBACK: the client reads it as
    /// the answer to its next request, as with Canal. Logged here because
    /// the client will attribute it to something else.
    fn unsolicited(&self, request: &str, r: Reply) -> Outcome {
        if let Reply::Ack {
            error: Some((code, message)),
        } = &r
        {
            tracing::warn!(channel = %self.channel, request, code, %message, "a client's {request} was refused; it reads the error as the reply to its next request");
        }
        Outcome::Reply(r)
    }
}

fn missing_identity(kind: &str, destination: &str, client_id: &str) -> Reply {
    Reply::error(
        CODE_MISSING_IDENTITY,
        format!(
            "destination or clientId is null. {kind}: destination: {destination:?} client_id: {client_id:?}"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_wait_follows_canal() {
        assert_eq!(get_wait(Some(-1), Some(-1)), GetWait::NoWait);
        assert_eq!(get_wait(Some(-1), None), GetWait::NoWait);
        assert_eq!(get_wait(None, None), GetWait::UntilFull);
        assert_eq!(get_wait(Some(0), Some(2)), GetWait::UntilFull);
        assert_eq!(get_wait(Some(-5), Some(2)), GetWait::UntilFull);
        let at = |t, u| get_wait(Some(t), u);
        assert_eq!(at(7, Some(0)), GetWait::AtMost(Duration::from_nanos(7)));
        assert_eq!(at(7, Some(1)), GetWait::AtMost(Duration::from_micros(7)));
        assert_eq!(at(7, Some(2)), GetWait::AtMost(Duration::from_millis(7)));
        assert_eq!(at(7, Some(3)), GetWait::AtMost(Duration::from_secs(7)));
        assert_eq!(at(7, Some(4)), GetWait::AtMost(Duration::from_secs(420)));
        assert_eq!(
            at(7, Some(5)),
            GetWait::AtMost(Duration::from_secs(7 * 3600))
        );
        assert_eq!(
            at(7, Some(6)),
            GetWait::AtMost(Duration::from_secs(7 * 86400))
        );
        assert_eq!(at(7, Some(-1)), GetWait::AtMost(Duration::from_millis(7)));
        assert_eq!(at(7, Some(99)), GetWait::AtMost(Duration::from_millis(7)));
        assert_eq!(at(7, None), GetWait::AtMost(Duration::from_millis(7)));
        assert_eq!(at(i64::MAX, Some(6)), GetWait::AtMost(MAX_GET_WAIT));
    }

    #[test]
    fn client_ids_are_java_shorts() {
        assert_eq!(parse_client_id("1001"), Ok(1001));
        assert_eq!(parse_client_id("-32768"), Ok(-32768));
        assert_eq!(parse_client_id("+7"), Ok(7));
        assert!(parse_client_id("32768").is_err());
        assert!(parse_client_id("abc").is_err());
        assert!(parse_client_id(" 1").is_err());
        assert!(parse_client_id("").is_err());
    }

    #[test]
    fn unknown_types_are_unsupported_and_garbage_is_an_error() {
        let p = Packet {
            r#type: 11,
            ..Default::default()
        };
        assert_eq!(
            parse_request(&p.encode_to_vec()),
            Ok(Request::Unsupported(11))
        );
        assert_eq!(packet_type_name(11), "HEARTBEAT");
        assert_eq!(packet_type_name(99), "UNRECOGNIZED(99)");
        assert!(parse_request(&[0xff, 0xff, 0xff]).is_err());
        let bad_body = Packet {
            r#type: PacketType::Get as i32,
            body: vec![0x0a, 0x05, b'a'],
            ..Default::default()
        };
        assert!(matches!(
            parse_request(&bad_body.encode_to_vec()),
            Err(RequestError::Body { kind: "Get", .. })
        ));
    }
}
