//! The Canal TCP listener: accepts connections, runs one [`ClientProtocol`] per
//! connection on its own task, and moves frames between the socket and the
//! protocol.
//!
//! Per connection: TCP_NODELAY, keep-alive and (Linux, unless
//! `sluice.tcp.quickAck = false`) quick ACKs are set; the server speaks
//! first (HANDSHAKE); requests are handled one at a time, in order, replies
//! written in order. A connection is closed on EOF, on a frame that is
//! negative or larger than [`ServerOptions::max_login_frame`] before login
//! and [`ServerOptions::max_request_frame`] after, on an I/O error, when
//! login does not complete within [`ServerOptions::auth_timeout`], when its
//! address is refused after failed logins ([`crate::limits::LoginThrottle`]),
//! or when it stays idle: no request read
//! for `net_read_timeout` or no reply written for `net_write_timeout` (ms,
//! from the client's ClientAuth, default 1 h, as Canal's idle handler).
//! While a GET waits for data, the socket is still watched: if the client
//! goes away the wait is abandoned (so [`sluice_store::Destination::get`]
//! futures must be cancellation-safe: dropping one must not lose entries).
//!
//! At most [`ServerOptions::max_connections`] connections are open at once,
//! and never more than RLIMIT_NOFILE minus [`ServerOptions::reserved_fds`],
//! so a flood of connections cannot take the descriptors cursors and the
//! store need; one over the cap is closed as soon as it is accepted. So is
//! one over [`ServerOptions::max_connections_per_address`] from its
//! address (IPv6: its /64), logged with the address, so that one peer
//! cannot take every place.
//!
//! Shutdown ([`ShutdownHandle::shutdown`]) stops accepting and makes every
//! connection close at its next await point (waiting for a request, a GET
//! waiting for data, or a write); `serve` returns once all have closed.
//!
//! Owns: sockets, timeouts, tasks. Must never: let one connection's
//! failure (error, panic, slow reader) affect another, buffer more than one
//! bounded request frame per connection ahead of the protocol, or block a
//! runtime thread.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sluice_config::{CanalPortConfig, TcpLimits};
use sluice_store::Destinations;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream, ToSocketAddrs};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::auth::AuthConfig;
use crate::connections::Connections;
use crate::frame::{self, Decoded, FrameError};
use crate::limits::{self, AddressConnections, LogBudget, LoginThrottle};
use crate::protocol::{ClientProtocol, Outcome, Phase, Reply, SEED_LEN};

/// Tunables beyond what Canal configures.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Largest request frame accepted; a longer length prefix closes the
    /// connection before any of the body is read.
    pub max_request_frame: usize,
    /// Largest frame accepted before login (a ClientAuth is small).
    pub max_login_frame: usize,
    /// Time from accept to a successful login. Canal has no such limit.
    pub auth_timeout: Duration,
    /// Idle time before TCP keep-alive probes start.
    pub keepalive_time: Duration,
    /// Connections open at once, at most (further capped by RLIMIT_NOFILE
    /// minus `reserved_fds`).
    pub max_connections: usize,
    /// Connections open at once from one address (IPv6: one /64), at most.
    pub max_connections_per_address: usize,
    /// File descriptors kept free of client connections.
    pub reserved_fds: usize,
    /// Failed logins from one address before its logins are refused.
    pub max_failed_logins: u32,
    /// Longest time an address's logins are refused.
    pub login_backoff_max: Duration,
    /// Acknowledge every segment a client sends at once (TCP_QUICKACK,
    /// re-armed after each read; Linux only).
    pub quick_ack: bool,
}

impl ServerOptions {
    /// The `sluice.tcp.*` limits of `canal.properties`.
    pub fn from_limits(limits: &TcpLimits) -> ServerOptions {
        ServerOptions {
            auth_timeout: limits.login_timeout,
            max_connections: limits.max_connections,
            max_connections_per_address: limits.max_connections_per_address,
            reserved_fds: limits.reserved_fds,
            max_failed_logins: limits.max_failed_logins,
            login_backoff_max: limits.login_backoff_max,
            quick_ack: limits.quick_ack,
            ..ServerOptions::default()
        }
    }

    /// The connection cap in force with the current RLIMIT_NOFILE.
    pub fn effective_max_connections(&self) -> usize {
        limits::connection_cap(
            self.max_connections,
            self.reserved_fds,
            limits::nofile_limit(),
        )
    }
}

impl Default for ServerOptions {
    fn default() -> Self {
        let limits = TcpLimits::default();
        ServerOptions {
            max_request_frame: frame::DEFAULT_MAX_REQUEST_FRAME,
            max_login_frame: limits::MAX_LOGIN_FRAME,
            auth_timeout: limits.login_timeout,
            keepalive_time: Duration::from_secs(60),
            max_connections: limits.max_connections,
            max_connections_per_address: limits.max_connections_per_address,
            reserved_fds: limits.reserved_fds,
            max_failed_logins: limits.max_failed_logins,
            login_backoff_max: limits.login_backoff_max,
            quick_ack: limits.quick_ack,
        }
    }
}

/// `canal.ip` and `canal.port` as a listen address (empty ip = every interface).
pub fn listen_addr(ip: &str, port: u16) -> String {
    let ip = ip.trim();
    if ip.is_empty() {
        format!("0.0.0.0:{port}")
    } else if ip.contains(':') && !ip.starts_with('[') {
        format!("[{ip}]:{port}")
    } else {
        format!("{ip}:{port}")
    }
}

/// Why a server could not start from its configuration.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Auth(#[from] crate::auth::AuthConfigError),
    #[error("cannot listen on {addr}: {error}")]
    Bind { addr: String, error: io::Error },
    #[error("the open-file limit (RLIMIT_NOFILE {limit}) leaves no file descriptor for client connections after the {reserved} reserved (sluice.tcp.reservedFds): raise `ulimit -n` or lower sluice.tcp.reservedFds")]
    NoDescriptorsForClients { limit: u64, reserved: usize },
}

/// Stops a running [`TcpServer`]. Cheap to clone.
#[derive(Clone)]
pub struct ShutdownHandle(Arc<watch::Sender<bool>>);

impl ShutdownHandle {
    pub fn shutdown(&self) {
        self.0.send_replace(true);
    }
}

/// A bound Canal TCP server.
pub struct TcpServer {
    listener: TcpListener,
    auth: Arc<AuthConfig>,
    destinations: Arc<dyn Destinations>,
    options: ServerOptions,
    shutdown: Arc<watch::Sender<bool>>,
    connections: Arc<Connections>,
}

impl TcpServer {
    /// Binds the listener; serving starts with [`TcpServer::serve`].
    pub async fn bind(
        addr: impl ToSocketAddrs,
        auth: AuthConfig,
        destinations: Arc<dyn Destinations>,
    ) -> io::Result<TcpServer> {
        let listener = TcpListener::bind(addr).await?;
        Ok(TcpServer {
            listener,
            auth: Arc::new(auth),
            destinations,
            options: ServerOptions::default(),
            shutdown: Arc::new(watch::channel(false).0),
            connections: Arc::default(),
        })
    }

    /// Binds `canal.ip`:`canal.port` with `canal.user`/`canal.passwd` and
    /// the `sluice.tcp.*` limits. Raises the RLIMIT_NOFILE soft limit to
    /// the hard limit first, so the connection cap is not needlessly low.
    pub async fn bind_config(
        cfg: &CanalPortConfig,
        destinations: Arc<dyn Destinations>,
    ) -> Result<TcpServer, StartError> {
        let auth = AuthConfig::from_config(cfg)?;
        let options = ServerOptions::from_limits(&cfg.limits);
        if let Err(e) = limits::raise_nofile_limit() {
            tracing::warn!(error = %e, "cannot raise the open-file limit to its hard limit");
        }
        if let Some(limit) = limits::nofile_limit() {
            if options.effective_max_connections() == 0 {
                return Err(StartError::NoDescriptorsForClients {
                    limit,
                    reserved: options.reserved_fds,
                });
            }
        }
        let addr = listen_addr(&cfg.ip, cfg.port);
        let server = TcpServer::bind(addr.as_str(), auth, destinations)
            .await
            .map_err(|error| StartError::Bind { addr, error })?;
        Ok(server.with_options(options))
    }

    pub fn with_options(mut self, options: ServerOptions) -> TcpServer {
        self.options = options;
        self
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle(self.shutdown.clone())
    }

    /// Which clients are connected now, by destination and clientId.
    pub fn connections(&self) -> Arc<Connections> {
        self.connections.clone()
    }

    /// Accepts and serves connections until shut down, then waits for every
    /// connection to close. Errors of one connection never end it.
    pub async fn serve(self) -> io::Result<()> {
        let TcpServer {
            listener,
            auth,
            destinations,
            options,
            shutdown,
            connections,
        } = self;
        let max_connections = options.effective_max_connections();
        if max_connections == 0 {
            return Err(io::Error::other(format!(
                "the open-file limit leaves no file descriptor for client connections after the {} reserved",
                options.reserved_fds
            )));
        }
        let guards = Arc::new(Guards::new(&options));
        let options = Arc::new(options);
        let next_id = AtomicU64::new(1);
        let open = Arc::new(AtomicUsize::new(0));
        let mut accept_pause = Duration::ZERO;
        let mut stop = shutdown.subscribe();
        let mut conns = JoinSet::new();
        let local = listener.local_addr()?;
        tracing::info!(
            %local,
            max_connections,
            open_file_limit = %limits::nofile_limit().map_or("unknown".to_string(), |n| n.to_string()),
            "canal tcp server listening"
        );
        loop {
            tokio::select! {
                _ = stopped(&mut stop) => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        accept_pause = Duration::ZERO;
                        // Only this loop adds connections, so the count
                        // cannot pass the cap between the check and the add.
                        let now_open = open.load(Ordering::Acquire);
                        if now_open >= max_connections {
                            drop(stream);
                            if let Some(suppressed) = guards.log_over_cap.allow(std::time::Instant::now()) {
                                tracing::warn!(%peer, open = now_open, max_connections, suppressed, "connection refused: too many connections (sluice.tcp.maxConnections)");
                            }
                            continue;
                        }
                        if let Err(from_address) = guards.per_address.opened(peer.ip()) {
                            drop(stream);
                            if let Some(suppressed) = guards.log_per_address.allow(std::time::Instant::now()) {
                                let address = limits::login_address(peer.ip());
                                tracing::warn!(%peer, %address, open = from_address, max_connections_per_address = options.max_connections_per_address, suppressed, "connection refused: too many connections from this address (sluice.tcp.maxConnectionsPerAddress)");
                            }
                            continue;
                        }
                        open.fetch_add(1, Ordering::AcqRel);
                        let slot = Slot {
                            open: open.clone(),
                            guards: guards.clone(),
                            peer: peer.ip(),
                        };
                        let id = next_id.fetch_add(1, Ordering::Relaxed);
                        let conn = Connection {
                            id,
                            peer,
                            local,
                            auth: auth.clone(),
                            destinations: destinations.clone(),
                            connections: connections.clone(),
                            options: options.clone(),
                            guards: guards.clone(),
                            stop: shutdown.subscribe(),
                            logged_in: false,
                        };
                        conns.spawn(conn.run(stream, slot));
                    }
                    Err(e) => {
                        // Out of file descriptors or memory: pause (growing
                        // up to half a second) rather than spin; anything
                        // else concerns that one connection.
                        let exhausted = matches!(
                            e.raw_os_error(),
                            Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
                        );
                        if exhausted {
                            accept_pause = (accept_pause * 2).clamp(Duration::from_millis(10), Duration::from_millis(500));
                        }
                        if let Some(suppressed) = guards.log_accept.allow(std::time::Instant::now()) {
                            tracing::warn!(error = %e, open = open.load(Ordering::Acquire), pause = ?accept_pause, suppressed, "accept failed");
                        }
                        if exhausted {
                            tokio::time::sleep(accept_pause).await;
                        }
                    }
                },
                Some(done) = conns.join_next(), if !conns.is_empty() => log_join(done),
            }
        }
        tracing::info!(%local, open = conns.len(), "canal tcp server stopping");
        while let Some(done) = conns.join_next().await {
            log_join(done);
        }
        Ok(())
    }
}

/// Shared by every connection: the per-address login backoff and the log
/// budgets for lines a flood of peers could multiply.
struct Guards {
    logins: LoginThrottle,
    per_address: AddressConnections,
    log_over_cap: LogBudget,
    log_per_address: LogBudget,
    log_accept: LogBudget,
    log_login_failed: LogBudget,
    log_login_refused: LogBudget,
    log_closed_before_login: LogBudget,
}

impl Guards {
    fn new(options: &ServerOptions) -> Guards {
        // Ten lines of a kind per ten seconds, the rest counted.
        let budget = || LogBudget::new(10, Duration::from_secs(10));
        Guards {
            logins: LoginThrottle::new(options.max_failed_logins, options.login_backoff_max),
            per_address: AddressConnections::new(options.max_connections_per_address),
            log_over_cap: budget(),
            log_per_address: budget(),
            log_accept: budget(),
            log_login_failed: budget(),
            log_login_refused: budget(),
            log_closed_before_login: budget(),
        }
    }
}

/// One open connection's place under the caps (of the server and of its
/// address), given back on drop (also when the connection task panics).
struct Slot {
    open: Arc<AtomicUsize>,
    guards: Arc<Guards>,
    peer: std::net::IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::AcqRel);
        self.guards.per_address.closed(self.peer);
    }
}

/// Completes once shutdown is requested.
async fn stopped(rx: &mut watch::Receiver<bool>) {
    if rx.wait_for(|s| *s).await.is_err() {
        // The sender lives as long as the server: never stop on our own.
        std::future::pending::<()>().await;
    }
}

fn log_join(done: Result<(), tokio::task::JoinError>) {
    if let Err(e) = done {
        if e.is_panic() {
            tracing::error!("a connection task panicked; other connections are unaffected");
        }
    }
}

/// Why a connection ended.
#[derive(Debug)]
enum Close {
    Eof,
    Shutdown,
    Idle,
    AuthTimeout,
    AuthFailed,
    LoginRefused,
    Frame(FrameError),
    Io(io::Error),
    Seed,
}

impl std::fmt::Display for Close {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Close::Eof => f.write_str("closed by the client"),
            Close::Shutdown => f.write_str("server shutdown"),
            Close::Idle => f.write_str("idle timeout"),
            Close::AuthTimeout => f.write_str("no login within the time allowed"),
            Close::AuthFailed => f.write_str("too many failed logins"),
            Close::LoginRefused => {
                f.write_str("login refused: too many failed logins from this address")
            }
            Close::Frame(e) => write!(f, "bad frame: {e}"),
            Close::Io(e) => write!(f, "i/o error: {e}"),
            Close::Seed => f.write_str("no random seed available"),
        }
    }
}

struct Connection {
    id: u64,
    peer: SocketAddr,
    local: SocketAddr,
    auth: Arc<AuthConfig>,
    destinations: Arc<dyn Destinations>,
    connections: Arc<Connections>,
    options: Arc<ServerOptions>,
    guards: Arc<Guards>,
    stop: watch::Receiver<bool>,
    logged_in: bool,
}

impl Connection {
    async fn run(mut self, stream: TcpStream, slot: Slot) {
        configure(&stream, &self.options);
        let channel = format!("[id: 0x{:08x}, /{} => /{}]", self.id, self.peer, self.local);
        tracing::debug!(%channel, "client connected");
        let (rd, wr) = stream.into_split();
        let reason = self.serve(rd, wr, channel.clone()).await;
        drop(slot);
        match &reason {
            Close::Eof | Close::Shutdown if !self.logged_in => {
                tracing::debug!(%channel, %reason, "connection closed")
            }
            Close::Eof | Close::Shutdown => {
                tracing::info!(%channel, %reason, "client disconnected")
            }
            // Peers that never logged in can be many: their lines are budgeted.
            _ if !self.logged_in => {
                let now = std::time::Instant::now();
                if let Some(suppressed) = self.guards.log_closed_before_login.allow(now) {
                    tracing::info!(%channel, %reason, suppressed, "connection closed before login");
                }
            }
            _ => tracing::info!(%channel, %reason, "connection closed"),
        }
    }

    /// Handles a login packet: refused outright while the peer's address is
    /// backing off, else checked by the protocol, the outcome counted
    /// against the address. `Err` closes the connection after the reply.
    fn login(
        &mut self,
        protocol: &mut ClientProtocol,
        packet: &[u8],
        reader: &mut FrameReader,
    ) -> Result<Outcome, Reply> {
        let ip = self.peer.ip();
        let address = limits::login_address(ip);
        let now = std::time::Instant::now();
        if let Err(wait) = self.guards.logins.check(ip, now) {
            let retry_in = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            if let Some(suppressed) = self.guards.log_login_refused.allow(now) {
                tracing::warn!(peer = %self.peer, %address, retry_in_s = retry_in, suppressed, "login refused: too many failed logins from this address");
            }
            return Err(Reply::error(
                crate::protocol::CODE_ERROR,
                format!(
                    "login refused: too many failed logins from {address}, retry in {retry_in} s"
                ),
            ));
        }
        let failed_before = protocol.failed_logins();
        let outcome = protocol.login(packet);
        if protocol.phase() == Phase::Ready {
            self.logged_in = true;
            self.guards.logins.succeeded(ip);
            reader.max = self.options.max_request_frame;
        } else if protocol.failed_logins() > failed_before {
            let failed = self.guards.logins.failed(ip, now);
            if let Some(suppressed) = self.guards.log_login_failed.allow(now) {
                tracing::warn!(peer = %self.peer, %address, failures = failed.count, refused_for = ?failed.refused_for, suppressed, "login failed");
            }
        }
        Ok(outcome)
    }

    /// Serves one connection: the handshake, then one request after the
    /// other until the connection closes; returns why it closed.
    async fn serve(&mut self, rd: OwnedReadHalf, mut wr: OwnedWriteHalf, channel: String) -> Close {
        let mut seed = [0u8; SEED_LEN];
        if getrandom::fill(&mut seed).is_err() {
            return Close::Seed;
        }
        let mut protocol =
            ClientProtocol::new(seed, self.auth.clone(), self.destinations.clone(), channel)
                .with_connections(self.connections.clone());
        let login_frame = self
            .options
            .max_login_frame
            .min(self.options.max_request_frame);
        let mut reader = FrameReader::new(rd, login_frame, self.options.quick_ack);
        let mut out = Vec::with_capacity(4096);
        let mut splits = Vec::new();
        let connected = Instant::now();
        let auth_deadline = connected + self.options.auth_timeout;
        if let Err(c) = self
            .send_handshake(&protocol, &mut wr, &mut out, auth_deadline)
            .await
        {
            return c;
        }
        let mut last_read = connected;
        let mut last_write = Instant::now();
        loop {
            let body = match self
                .next_request(&protocol, &mut reader, auth_deadline, last_read, last_write)
                .await
            {
                Ok(body) => body,
                Err(c) => return c,
            };
            last_read = Instant::now();
            let (outcome, close_reason) = match self.answer(&mut protocol, &body, &mut reader).await
            {
                Ok(answered) => answered,
                Err(c) => return c,
            };
            let (reply, close_after) = match outcome {
                Outcome::Silent => continue,
                Outcome::Reply(r) => (r, false),
                Outcome::ReplyAndClose(r) => (r, true),
            };
            if let Err(c) = encode_reply(&reply, &mut out, &mut splits) {
                return c;
            }
            if let Err(c) = self
                .send_reply(&protocol, &mut wr, &reply, &out, &splits, auth_deadline)
                .await
            {
                return c;
            }
            last_write = Instant::now();
            if out.capacity() > 16 * 1024 * 1024 {
                out = Vec::with_capacity(4096);
            }
            if close_after {
                return close_reason;
            }
        }
    }

    /// Writes the HANDSHAKE packet, the server's first words, within the
    /// login deadline.
    async fn send_handshake(
        &mut self,
        protocol: &ClientProtocol,
        wr: &mut OwnedWriteHalf,
        out: &mut Vec<u8>,
        auth_deadline: Instant,
    ) -> Result<(), Close> {
        if let Err(e) = frame::encode_into(&protocol.handshake_packet(), out) {
            return Err(Close::Frame(e));
        }
        self.write(wr, out, auth_deadline).await
    }

    /// Reads the next request frame, within the login deadline before login
    /// and the read and write idle timeouts after; `Err` says why the
    /// connection closes instead.
    async fn next_request(
        &mut self,
        protocol: &ClientProtocol,
        reader: &mut FrameReader,
        auth_deadline: Instant,
        last_read: Instant,
        last_write: Instant,
    ) -> Result<Vec<u8>, Close> {
        let (deadline, expired) = match protocol.phase() {
            Phase::Auth => (auth_deadline, Close::AuthTimeout),
            Phase::Ready => {
                let (rt, wt) = protocol.idle_timeouts();
                ((last_read + rt).min(last_write + wt), Close::Idle)
            }
        };
        tokio::select! {
            _ = stopped(&mut self.stop) => Err(Close::Shutdown),
            r = tokio::time::timeout_at(deadline, reader.next_frame()) => match r {
                Err(_) => Err(expired),
                Ok(Ok(Some(body))) => Ok(body),
                Ok(Ok(None)) => Err(Close::Eof),
                Ok(Err(c)) => Err(c),
            },
        }
    }

    /// The outcome of one packet (the login before login, a request after),
    /// with the reason to give if it closes the connection; `Err` when the
    /// connection closes first.
    async fn answer(
        &mut self,
        protocol: &mut ClientProtocol,
        body: &[u8],
        reader: &mut FrameReader,
    ) -> Result<(Outcome, Close), Close> {
        if protocol.phase() == Phase::Auth {
            return Ok(match self.login(protocol, body, reader) {
                Ok(o) => (o, Close::AuthFailed),
                Err(refusal) => (Outcome::ReplyAndClose(refusal), Close::LoginRefused),
            });
        }
        tokio::select! {
            biased;
            o = protocol.handle(body) => Ok((o, Close::AuthFailed)),
            _ = stopped(&mut self.stop) => Err(Close::Shutdown),
            // The client went away while a GET waits: drop the GET.
            c = reader.watch_close() => Err(c),
        }
    }

    /// Writes an encoded reply ([`encode_reply`]): a batch with vectored
    /// writes, its entries' bytes where the store keeps them. Before login a
    /// peer that does not read its replies is bound by the login deadline,
    /// after by its write idle timeout.
    async fn send_reply(
        &mut self,
        protocol: &ClientProtocol,
        wr: &mut OwnedWriteHalf,
        reply: &Reply,
        out: &[u8],
        splits: &[usize],
        auth_deadline: Instant,
    ) -> Result<(), Close> {
        let write_deadline = if self.logged_in {
            Instant::now() + protocol.idle_timeouts().1
        } else {
            auth_deadline
        };
        let written = match reply {
            Reply::Batch(batch) if splits.len() == batch.entries.len() => {
                let mut pieces = Vec::with_capacity(2 * splits.len() + 1);
                let mut at = 0;
                for (e, &split) in batch.entries.iter().zip(splits) {
                    pieces.push(io::IoSlice::new(&out[at..split]));
                    pieces.push(io::IoSlice::new(e));
                    at = split;
                }
                pieces.push(io::IoSlice::new(&out[at..]));
                self.write_vectored(wr, &mut pieces, write_deadline).await
            }
            _ => self.write(wr, out, write_deadline).await,
        };
        match written {
            Err(Close::Idle) if !self.logged_in => Err(Close::AuthTimeout),
            written => written,
        }
    }

    async fn write(
        &mut self,
        wr: &mut OwnedWriteHalf,
        bytes: &[u8],
        deadline: Instant,
    ) -> Result<(), Close> {
        tokio::select! {
            _ = stopped(&mut self.stop) => Err(Close::Shutdown),
            r = tokio::time::timeout_at(deadline, wr.write_all(bytes)) => match r {
                Err(_) => Err(Close::Idle),
                Ok(Err(e)) => Err(Close::Io(e)),
                Ok(Ok(())) => Ok(()),
            },
        }
    }
}

/// Encodes `reply` into `out`: a batch as its frame without the entries'
/// bytes, `splits` saying where they go (see `encode_messages_head`), other
/// replies whole; a batch too big for one frame becomes an error ACK.
#[inline]
fn encode_reply(reply: &Reply, out: &mut Vec<u8>, splits: &mut Vec<usize>) -> Result<(), Close> {
    out.clear();
    let encoded = match reply {
        Reply::Batch(batch) => {
            crate::reply::encode_messages_head(batch.id, &batch.entries, out, splits)
        }
        _ => {
            splits.clear();
            reply.encode_frame(out)
        }
    };
    if let Err(e) = encoded {
        splits.clear();
        // Only a batch beyond 2 GiB gets here; tell the client.
        tracing::warn!(error = %e, "reply does not fit in a frame");
        out.clear();
        let r = Reply::error(
            crate::protocol::CODE_ERROR,
            format!("batch does not fit in one frame: {e}"),
        );
        if let Err(e) = r.encode_frame(out) {
            return Err(Close::Frame(e));
        }
    }
    Ok(())
}

/// Slices a `writev` takes at most (Linux's `IOV_MAX`).
const MAX_IOV: usize = 1024;

impl Connection {
    /// [`Connection::write`] of `pieces`, one after the other, with
    /// vectored writes.
    async fn write_vectored(
        &mut self,
        wr: &mut OwnedWriteHalf,
        pieces: &mut [io::IoSlice<'_>],
        deadline: Instant,
    ) -> Result<(), Close> {
        tokio::select! {
            _ = stopped(&mut self.stop) => Err(Close::Shutdown),
            r = tokio::time::timeout_at(deadline, write_all_vectored(wr, pieces)) => match r {
                Err(_) => Err(Close::Idle),
                Ok(Err(e)) => Err(Close::Io(e)),
                Ok(Ok(())) => Ok(()),
            },
        }
    }
}

/// `write_all` over several slices; tokio has no `write_all_vectored`.
async fn write_all_vectored(
    wr: &mut OwnedWriteHalf,
    mut pieces: &mut [io::IoSlice<'_>],
) -> io::Result<()> {
    io::IoSlice::advance_slices(&mut pieces, 0);
    while !pieces.is_empty() {
        let n = wr
            .write_vectored(&pieces[..pieces.len().min(MAX_IOV)])
            .await?;
        if n == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        io::IoSlice::advance_slices(&mut pieces, n);
    }
    Ok(())
}

fn configure(stream: &TcpStream, options: &ServerOptions) {
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(error = %e, "TCP_NODELAY not set");
    }
    let ka = socket2::TcpKeepalive::new().with_time(options.keepalive_time);
    #[cfg(target_os = "linux")]
    let ka = ka.with_interval(Duration::from_secs(10));
    if let Err(e) = socket2::SockRef::from(stream).set_tcp_keepalive(&ka) {
        tracing::debug!(error = %e, "TCP keep-alive not set");
    }
}

/// Reads frames from the socket into a buffer holding at most one frame
/// (plus what the kernel handed over with it).
struct FrameReader {
    rd: OwnedReadHalf,
    buf: Vec<u8>,
    max: usize,
    quick_ack: bool,
}

impl FrameReader {
    fn new(rd: OwnedReadHalf, max: usize, quick_ack: bool) -> FrameReader {
        let reader = FrameReader {
            rd,
            buf: Vec::with_capacity(4096),
            max,
            quick_ack,
        };
        reader.rearm_quick_ack();
        reader
    }

    /// With `quick_ack`, has the kernel acknowledge the client's next
    /// segments at once. Linux leaves quick-ACK mode by itself after a
    /// while, so this is repeated after every read. Why: a client that
    /// sends a request's 4-byte length and its body in two writes without
    /// TCP_NODELAY (canal-python) has the body held back by Nagle's
    /// algorithm until the length is acknowledged, and a delayed ACK takes
    /// up to 40 ms: that wait, on every request, was the client's latency.
    fn rearm_quick_ack(&self) {
        #[cfg(target_os = "linux")]
        if self.quick_ack {
            let stream: &tokio::net::TcpStream = self.rd.as_ref();
            if let Err(e) = socket2::SockRef::from(stream).set_tcp_quickack(true) {
                tracing::debug!(error = %e, "TCP_QUICKACK not set");
            }
        }
    }

    /// The next frame's body; `None` on a clean EOF between frames.
    /// Cancellation-safe: bytes read stay in the buffer.
    async fn next_frame(&mut self) -> Result<Option<Vec<u8>>, Close> {
        loop {
            match frame::decode(&self.buf, self.max) {
                Err(e) => return Err(Close::Frame(e)),
                Ok(Decoded::Frame { body, consumed }) => {
                    let body = body.to_vec();
                    self.buf.drain(..consumed);
                    if self.buf.is_empty() && self.buf.capacity() > 64 * 1024 {
                        self.buf = Vec::with_capacity(4096);
                    }
                    return Ok(Some(body));
                }
                Ok(Decoded::Incomplete { needed }) => {
                    // `needed` is at most max + 4: the length was checked.
                    let want = needed.saturating_sub(self.buf.len()).clamp(1, 64 * 1024);
                    self.buf.reserve(want);
                    match self.rd.read_buf(&mut self.buf).await {
                        Ok(0) if self.buf.is_empty() => return Ok(None),
                        Ok(0) => return Err(Close::Eof),
                        Ok(_) => self.rearm_quick_ack(),
                        Err(e) => return Err(Close::Io(e)),
                    }
                }
            }
        }
    }

    /// Completes when the peer closes or the socket fails; keeps reading
    /// (into the frame buffer, up to one frame) so pipelined requests are
    /// not lost. Cancellation-safe.
    async fn watch_close(&mut self) -> Close {
        loop {
            if self.buf.len() >= self.max.saturating_add(frame::HEADER_LEN) {
                // Enough buffered; stop reading until the protocol catches up.
                std::future::pending::<()>().await;
            }
            self.buf.reserve(4096);
            match self.rd.read_buf(&mut self.buf).await {
                Ok(0) => return Close::Eof,
                Ok(_) => self.rearm_quick_ack(),
                Err(e) => return Close::Io(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::listen_addr;

    #[test]
    fn listen_addresses_from_canal_ip() {
        assert_eq!(listen_addr("", 11111), "0.0.0.0:11111");
        assert_eq!(listen_addr(" 10.0.0.5 ", 11111), "10.0.0.5:11111");
        assert_eq!(listen_addr("::1", 11111), "[::1]:11111");
        assert_eq!(listen_addr("[::]", 1), "[::]:1");
    }
}
