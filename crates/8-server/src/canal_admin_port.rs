//! Canal's admin protocol on `canal.admin.port`, the port canal-admin
//! manages a server through (spec §3.3, `AdminProtocol.proto`): Canal's
//! framing, a handshake with an 8-byte seed and the scramble login against
//! `canal.admin.user` / `canal.admin.passwd`, then requests answered by an
//! ACK whose `message` is the result.
//!
//! * SERVER `check` / `start` / `stop` / `restart` / `list`. Canal's stop
//!   stops its whole server but the process and this port stay up; here
//!   `stop` stops every destination and keeps them stopped (as a stop
//!   through the admin API does), `start` starts every configured
//!   destination again, `restart` does both; `check` is "0" between a stop
//!   and a start. The Canal client port stays open throughout (its clients
//!   are refused "destination not running" meanwhile). `list` gives the
//!   destinations running here, comma-separated.
//! * INSTANCE `check` / `start` / `stop` / `restart` / `release` of a
//!   destination: "1" done (for check: running), "0" not (an unknown
//!   destination). With ZooKeeper the elections decide where destinations
//!   run: start, stop and the server's start/stop/restart are refused (code
//!   400), restart reloads where it runs, and release moves it to a standby;
//!   without ZooKeeper release is refused.
//! * LOG: the file list of the server's or a destination's log folder, or
//!   the last `count` lines (100 by default) of a file (see
//!   [`crate::logs`]).
//!
//! Codes: 301 unknown action or log type, 300 unknown packet type and
//! failed login, 400 anything refused or failed (Canal's "exception").
//!
//! Where Sluice differs from Canal, and why: a failed login is answered
//! with code 300 and the connection is closed (Canal answers 300 and then
//! also a success ACK, which leaves the connection logged in); failed
//! logins from one address are throttled as on the client port
//! (`sluice.tcp.maxFailedLogins`); login must complete within
//! `sluice.tcp.loginTimeout`; frames above 64 KiB close the connection; at
//! most 64 connections are open at once.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use prost::Message;
use sluice_canal::admin::{
    Ack, ClientAuth, Handshake, InstanceAdmin, LogAdmin, Packet, PacketType, ServerAdmin,
};
use sluice_config::{AdminTcpConfig, LogFiles, TcpLimits};
use sluice_serve_tcp::frame;
use sluice_serve_tcp::limits::LoginThrottle;
use sluice_serve_tcp::AuthConfig;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

use crate::commands::{CommandError, Commands};
use crate::logs::{self, LogOf};
use crate::ServerError;

/// Canal's codes.
const CODE_UNKNOWN_PACKET: i32 = 300;
const CODE_AUTH_FAILED: i32 = 300;
const CODE_UNKNOWN_ACTION: i32 = 301;
const CODE_ERROR: i32 = 400;

/// Largest frame accepted, before and after login: admin requests are small.
const MAX_FRAME: usize = 64 * 1024;

/// Connections open at once, at most.
const MAX_CONNECTIONS: usize = 64;

/// Idle time before an unused connection is closed, unless the ClientAuth
/// asks for another (Canal's default, 1 h).
const DEFAULT_IDLE: Duration = Duration::from_secs(3600);

/// Bytes of a handshake seed (Canal: 8).
const SEED_LEN: usize = 8;

/// Binds `canal.ip`:`canal.admin.port`, before anything starts, so that a
/// port in use fails the start; errors point at `canal_properties`.
pub(crate) async fn bind(
    config: &AdminTcpConfig,
    canal_properties: &Path,
) -> Result<TcpListener, ServerError> {
    let addr = sluice_serve_tcp::listen_addr(&config.ip, config.port);
    TcpListener::bind(&addr)
        .await
        .map_err(|source| ServerError::AdminTcpBind {
            addr,
            at: canal_properties.display().to_string(),
            source,
        })
}

/// What the admin port acts on.
pub(crate) struct CanalAdmin {
    commands: Arc<Commands>,
    logs: Option<LogFiles>,
    auth: AuthConfig,
    logins: LoginThrottle,
    login_timeout: Duration,
}

impl CanalAdmin {
    /// The admin port of `config`, whose logins are limited as the Canal
    /// TCP server's (`limits`), serving the log files `logs`; errors point
    /// at `canal_properties`.
    pub(crate) fn new(
        commands: Arc<Commands>,
        config: &AdminTcpConfig,
        limits: &TcpLimits,
        logs: Option<LogFiles>,
        canal_properties: &Path,
    ) -> Result<CanalAdmin, ServerError> {
        let auth = AuthConfig::new(&config.user, &config.passwd).map_err(|source| {
            ServerError::AdminTcpAuth {
                at: canal_properties.display().to_string(),
                source,
            }
        })?;
        Ok(CanalAdmin {
            logs,
            logins: LoginThrottle::new(limits.max_failed_logins, limits.login_backoff_max),
            login_timeout: limits.login_timeout,
            auth,
            commands,
        })
    }
}

/// Serves the admin port on `listener` until the task is aborted (which
/// closes its connections too).
pub(crate) fn serve(
    listener: TcpListener,
    admin: Arc<CanalAdmin>,
) -> (Option<SocketAddr>, JoinHandle<()>) {
    let local = listener.local_addr().ok();
    if let Some(addr) = local {
        tracing::info!(%addr, "serving canal-admin (Canal's admin protocol)");
    }
    let task = tokio::spawn(async move {
        let open = Arc::new(AtomicUsize::new(0));
        let mut connections = JoinSet::new();
        loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        if open.load(Ordering::Acquire) >= MAX_CONNECTIONS {
                            tracing::warn!(%peer, "canal-admin connection refused: {MAX_CONNECTIONS} open already");
                            continue;
                        }
                        open.fetch_add(1, Ordering::AcqRel);
                        let slot = Slot(open.clone());
                        let admin = admin.clone();
                        connections.spawn(async move {
                            let _slot = slot;
                            let reason = connection(&admin, stream, peer).await;
                            tracing::debug!(%peer, %reason, "canal-admin connection closed");
                        });
                    }
                    Err(error) => {
                        tracing::warn!(%error, "canal-admin: accept failed");
                        // Out of descriptors, most likely: do not spin.
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                },
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
            }
        }
    });
    (local, task)
}

/// A connection's place under the cap, given back on drop.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Serves one connection; returns why it ended.
async fn connection(admin: &CanalAdmin, mut stream: TcpStream, peer: SocketAddr) -> String {
    let _ = stream.set_nodelay(true);
    let mut seed = [0u8; SEED_LEN];
    if getrandom::fill(&mut seed).is_err() {
        return "no random seed available".into();
    }
    let handshake = Packet {
        version: Some(1),
        r#type: PacketType::Handshake as i32,
        body: Handshake {
            seeds: seed.to_vec(),
            ..Default::default()
        }
        .encode_to_vec(),
        ..Default::default()
    };
    if let Err(e) = write_packet(&mut stream, &handshake).await {
        return e;
    }
    let login = match tokio::time::timeout(admin.login_timeout, read_packet(&mut stream)).await {
        Err(_) => return "no login within the time allowed".into(),
        Ok(Err(e)) => return e,
        Ok(Ok(p)) => p,
    };
    // As Canal, the first packet is the login whatever its type says.
    let Ok(auth) = ClientAuth::decode(login.body.as_slice()) else {
        let _ = write_ack(
            &mut stream,
            CODE_AUTH_FAILED,
            "auth failed: not a ClientAuth",
        )
        .await;
        return "not a ClientAuth".into();
    };
    let now = std::time::Instant::now();
    if let Err(wait) = admin.logins.check(peer.ip(), now) {
        let retry_in = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        tracing::warn!(%peer, retry_in_s = retry_in, "canal-admin login refused: too many failed logins from this address");
        let message = format!(
            "auth failed for user:{}: too many failed logins from {}, retry in {retry_in} s",
            auth.username,
            peer.ip()
        );
        let _ = write_ack(&mut stream, CODE_AUTH_FAILED, &message).await;
        return "login refused".into();
    }
    if let Err(rejected) = admin.auth.check(&auth.username, &auth.password, &seed) {
        let failed = admin.logins.failed(peer.ip(), now);
        // The name someone tried stays out of the normal log.
        tracing::warn!(%peer, failures = failed.count, refused_for = ?failed.refused_for, "canal-admin login failed");
        tracing::debug!(%peer, user = %auth.username, "canal-admin login failed");
        let _ = write_ack(&mut stream, CODE_AUTH_FAILED, &rejected.to_string()).await;
        return "login failed".into();
    }
    admin.logins.succeeded(peer.ip());
    tracing::info!(%peer, user = %auth.username, "canal-admin logged in");
    if let Err(e) = write_ack(&mut stream, 0, "").await {
        return e;
    }
    let idle = |ms: Option<i32>| {
        ms.filter(|ms| *ms > 0)
            .map_or(DEFAULT_IDLE, |ms| Duration::from_millis(ms as u64))
    };
    let (read_idle, write_idle) = (idle(auth.net_read_timeout), idle(auth.net_write_timeout));
    loop {
        let packet = match tokio::time::timeout(read_idle, read_packet(&mut stream)).await {
            Err(_) => return "idle timeout".into(),
            Ok(Err(e)) => return e,
            Ok(Ok(p)) => p,
        };
        let reply = answer(admin, &packet).await;
        match tokio::time::timeout(write_idle, write_packet(&mut stream, &reply)).await {
            Err(_) => return "idle timeout".into(),
            Ok(Err(e)) => return e,
            Ok(Ok(())) => {}
        }
    }
}

/// Reads one frame as a Packet; `Err` says why the connection ends.
async fn read_packet(stream: &mut TcpStream) -> Result<Packet, String> {
    let mut header = [0u8; frame::HEADER_LEN];
    match stream.read_exact(&mut header).await {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            return Err("closed by the client".into())
        }
        Err(e) => return Err(format!("i/o error: {e}")),
    }
    let len = frame::body_len(header, MAX_FRAME).map_err(|e| format!("bad frame: {e}"))?;
    let mut body = vec![0u8; len];
    stream
        .read_exact(&mut body)
        .await
        .map_err(|e| format!("i/o error: {e}"))?;
    Packet::decode(body.as_slice()).map_err(|e| format!("not a Packet: {e}"))
}

async fn write_packet(stream: &mut TcpStream, packet: &Packet) -> Result<(), String> {
    let mut out = Vec::new();
    frame::encode_into(&packet.encode_to_vec(), &mut out).map_err(|e| format!("{e}"))?;
    stream
        .write_all(&out)
        .await
        .map_err(|e| format!("i/o error: {e}"))
}

async fn write_ack(stream: &mut TcpStream, code: i32, message: &str) -> Result<(), String> {
    write_packet(stream, &ack(code, message)).await
}

/// An ACK packet as Canal sends it: `code` always set (0 on success).
fn ack(code: i32, message: impl Into<String>) -> Packet {
    Packet {
        version: Some(1),
        r#type: PacketType::Ack as i32,
        body: Ack {
            code: Some(code),
            message: message.into(),
        }
        .encode_to_vec(),
        ..Default::default()
    }
}

fn ok(message: impl Into<String>) -> Packet {
    ack(0, message)
}

fn done(yes: bool) -> Packet {
    ok(if yes { "1" } else { "0" })
}

fn refused(message: impl Into<String>) -> Packet {
    ack(CODE_ERROR, message)
}

/// Canal's name of a packet type, for "is NOT supported!".
fn type_name(t: i32) -> &'static str {
    match PacketType::try_from(t) {
        Ok(PacketType::Compatible) => "PACKAGETYPECOMPATIBLEPROTO2",
        Ok(PacketType::Handshake) => "HANDSHAKE",
        Ok(PacketType::ClientAuthentication) => "CLIENTAUTHENTICATION",
        Ok(PacketType::Ack) => "ACK",
        Ok(PacketType::Server) => "SERVER",
        Ok(PacketType::Instance) => "INSTANCE",
        Ok(PacketType::Log) => "LOG",
        Err(_) => "UNRECOGNIZED",
    }
}

/// The reply to one request after login.
async fn answer(admin: &CanalAdmin, packet: &Packet) -> Packet {
    let body = packet.body.as_slice();
    let bad = |what: &str, e: prost::DecodeError| refused(format!("not a {what}: {e}"));
    match PacketType::try_from(packet.r#type) {
        Ok(PacketType::Server) => match ServerAdmin::decode(body) {
            Ok(request) => {
                tracing::info!(action = %request.action, "canal-admin: server request");
                admin.server(&request.action).await
            }
            Err(e) => bad("ServerAdmin", e),
        },
        Ok(PacketType::Instance) => match InstanceAdmin::decode(body) {
            Ok(request) => {
                // Not a `destination` field: the name is the peer's, and that
                // field chooses a log file in Canal's layout.
                tracing::info!(instance = %request.destination, action = %request.action, "canal-admin: instance request");
                admin.instance(&request.destination, &request.action).await
            }
            Err(e) => bad("InstanceAdmin", e),
        },
        Ok(PacketType::Log) => match LogAdmin::decode(body) {
            Ok(request) => admin.log(request).await,
            Err(e) => bad("LogAdmin", e),
        },
        _ => ack(
            CODE_UNKNOWN_PACKET,
            format!(
                "packet type: {} is NOT supported!",
                type_name(packet.r#type)
            ),
        ),
    }
}

/// The answer to a command: "1" done, "0" not, the error refused.
fn outcome(result: Result<bool, CommandError>) -> Packet {
    match result {
        Ok(done_) => done(done_),
        Err(e) => refused(e.to_string()),
    }
}

impl CanalAdmin {
    async fn server(&self, action: &str) -> Packet {
        let commands = &self.commands;
        match action {
            "check" => done(!commands.all_stopped()),
            "list" => ok(commands
                .names()
                .into_iter()
                .filter(|d| commands.runs_here(d))
                .collect::<Vec<_>>()
                .join(",")),
            "stop" => outcome(commands.stop_all().await),
            "start" => outcome(commands.start_all().await),
            "restart" => outcome(commands.restart_all().await),
            _ => ack(
                CODE_UNKNOWN_ACTION,
                format!("ServerAdmin action: {action}  is unknown"),
            ),
        }
    }

    async fn instance(&self, destination: &str, action: &str) -> Packet {
        let commands = &self.commands;
        // Canal answers "0" for a destination it does not know.
        let known = commands.known(destination).is_ok();
        let result = match action {
            _ if !known && matches!(action, "check" | "start" | "stop" | "restart" | "release") => {
                Ok(false)
            }
            "check" => Ok(commands.runs_here(destination)),
            "start" => commands.start(destination).map(|()| true),
            "stop" => commands.stop(destination).await.map(|()| true),
            "restart" => commands.restart(destination).await.map(|()| true),
            "release" => commands.release(destination, false).await.map(|_| true),
            _ => {
                return ack(
                    CODE_UNKNOWN_ACTION,
                    format!("InstanceAdmin action: {action} is unknown"),
                )
            }
        };
        outcome(result)
    }

    async fn log(&self, request: LogAdmin) -> Packet {
        let of = match request.r#type.as_str() {
            "server" => Of::Server,
            "instance" => match request.destination.filter(|d| !d.is_empty()) {
                Some(d) => Of::Destination(d),
                None => return refused("LogAdmin: an instance log needs its destination"),
            },
            other => {
                return ack(
                    CODE_UNKNOWN_ACTION,
                    format!("LogAdmin type: {other} is unknown"),
                )
            }
        };
        let files = self.logs.clone();
        let list = request.action.eq_ignore_ascii_case("list");
        // Canal reads only the server's current file.
        let file = match of {
            Of::Server => None,
            Of::Destination(_) => request.file,
        };
        let count = request.count.unwrap_or(0);
        let read = tokio::task::spawn_blocking(move || {
            let of = match &of {
                Of::Server => LogOf::Server,
                Of::Destination(d) => LogOf::Destination(d),
            };
            if list {
                logs::list(files.as_ref(), of)
            } else {
                logs::tail(files.as_ref(), of, file.as_deref(), count)
            }
        })
        .await;
        match read {
            Ok(Ok(text)) => ok(text),
            Ok(Err(e)) => refused(e.to_string()),
            Err(e) => refused(format!("reading the log failed: {e}")),
        }
    }
}

/// [`LogOf`] with an owned name, to move into the blocking read.
enum Of {
    Server,
    Destination(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_success_ack_is_canal_s_bytes() {
        assert_eq!(
            ok("").encode_to_vec(),
            [0x10, 0x01, 0x18, 0x03, 0x22, 0x02, 0x08, 0x00]
        );
        let p = ack(301, "x");
        let a = Ack::decode(p.body.as_slice()).unwrap();
        assert_eq!((a.code, a.message.as_str()), (Some(301), "x"));
    }

    #[test]
    fn packet_type_names_are_canal_s() {
        assert_eq!(type_name(PacketType::Handshake as i32), "HANDSHAKE");
        assert_eq!(type_name(99), "UNRECOGNIZED");
    }
}
