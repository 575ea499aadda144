//! The admin HTTP API (`sluice.admin.http.port`; off unless set): list and
//! inspect destinations, start, stop, reload and release them, and reset a
//! client's cursor. JSON in and out, errors as `{"error": "..."}`; every
//! request but `GET /openapi.json` carries `Authorization: Bearer <token>`
//! when `sluice.admin.http.token` is set (it must be, unless the API listens
//! on a loopback address). The OpenAPI 3 document it serves, written by
//! hand, is `admin-openapi.json` beside this file. A web console over
//! this API is served at `/` (see [`console`]).
//!
//! Before any of that, [`guard`] refuses what a web page could send: a
//! `Host` that is not this API's (`421`), an `Origin` not listed in
//! `sluice.admin.http.allowOrigins` (`403`), a POST that is not
//! `Content-Type: application/json` (`415`).
//!
//! With ZooKeeper (`canal.zkServers`) the elections decide where each
//! destination runs: start and stop are refused (release moves a
//! destination to a standby), reload acts where the destination runs, and
//! cursors are reset only on servers without ZooKeeper.
//!
//! A cursor is reset only while its destination is stopped on this server
//! (see [`InstanceManager::reset_cursor`]): its clients cannot ack over
//! the new cursor, and when the destination starts it reads from the
//! smallest cursor, so the client gets the transactions from the new one on.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use sluice_config::{AdminHttpConfig, ServerMode, SinkKeys};
use sluice_instance::manager::{CursorTarget, InstanceManager, InstanceState, ResetError};
use sluice_serve_tcp::Connections;
use sluice_source::StartPosition;
use sluice_store::ClientId;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::commands::{CommandError, Commands};
use crate::ServerError;

mod console;
mod guard;
mod history;

/// The OpenAPI 3 document of this API.
pub const OPENAPI: &str = include_str!("admin-openapi.json");

/// The longest wait for a standby after a release.
const MAX_RELEASE_WAIT_SECONDS: u64 = 300;

struct Admin {
    commands: Arc<Commands>,
    manager: Arc<InstanceManager>,
    token: Option<String>,
    /// The Canal TCP server's connections; `None` in MQ mode.
    connections: Option<Arc<Connections>>,
    /// What the MQ workers do; `None` in TCP mode.
    mq: Option<Arc<crate::mq::MqStatus>>,
    /// `canal.serverMode`, shown in the list.
    mode: ServerMode,
    /// The sink's keys, by which the ETL finds the adapter folder.
    sink: SinkKeys,
    /// The last minutes of lag, snapshot progress and failures.
    history: history::History,
}

/// Binds the admin API's port: before anything starts, so that a port in
/// use fails the start.
pub(crate) async fn bind(
    config: &AdminHttpConfig,
    canal_properties: &std::path::Path,
) -> Result<TcpListener, ServerError> {
    let addr = sluice_serve_tcp::listen_addr(&config.host, config.port);
    TcpListener::bind(&addr)
        .await
        .map_err(|source| ServerError::AdminBind {
            addr,
            at: canal_properties.display().to_string(),
            source,
        })
}

/// Serves the admin API on `listener` until the task is aborted; it shows
/// `mode` as the server's and loads mappings of the sink `sink` names.
pub(crate) fn serve(
    listener: TcpListener,
    config: &AdminHttpConfig,
    commands: Arc<Commands>,
    connections: Option<Arc<Connections>>,
    mq: Option<Arc<crate::mq::MqStatus>>,
    mode: ServerMode,
    sink: SinkKeys,
) -> (Option<SocketAddr>, JoinHandle<()>) {
    let local = listener.local_addr().ok();
    let admin = Arc::new(Admin {
        manager: commands.manager().clone(),
        commands,
        token: config.token.as_ref().map(|t| t.expose().to_string()),
        connections,
        mq,
        mode,
        sink,
        history: history::History::default(),
    });
    let sampled = admin.clone();
    let guard = Arc::new(guard::Guard::new(config, local));
    let app = router(admin)
        .layer(axum::middleware::from_fn_with_state(guard, guard::check))
        .into_make_service_with_connect_info::<guard::LocalAddr>();
    if let Some(addr) = local {
        tracing::info!(%addr, "serving the admin API (its OpenAPI document at /openapi.json)");
    }
    let task = tokio::spawn(async move {
        tokio::select! {
            served = axum::serve(listener, app) => {
                if let Err(error) = served {
                    tracing::error!(%error, "the admin API stopped");
                }
            }
            () = sampled.sample_forever() => {}
        }
    });
    (local, task)
}

fn router(admin: Arc<Admin>) -> Router {
    let api = Router::new()
        .route("/destinations", get(list))
        .route("/destinations/{destination}", get(show))
        .route("/destinations/{destination}/start", post(start))
        .route("/destinations/{destination}/stop", post(stop))
        .route("/destinations/{destination}/reload", post(reload))
        .route("/destinations/{destination}/release", post(release))
        .route("/destinations/{destination}/snapshot", post(snapshot))
        .route(
            "/destinations/{destination}/clients/{client_id}/cursor",
            post(reset_cursor),
        )
        .route("/etl/rdb/{key}/{file}", post(etl))
        .route_layer(axum::middleware::from_fn_with_state(
            admin.clone(),
            authorize,
        ));
    Router::new()
        .route("/openapi.json", get(openapi))
        .merge(console::routes())
        .merge(api)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(admin)
}

/// An error answer: the status and `{"error": message}`.
struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

type Answer = Result<Json<Value>, ApiError>;

fn error(status: StatusCode, message: impl Into<String>) -> ApiError {
    ApiError(status, message.into())
}

async fn openapi() -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        OPENAPI,
    )
        .into_response()
}

async fn not_found(method: Method, uri: Uri) -> ApiError {
    error(
        StatusCode::NOT_FOUND,
        format!(
            "no endpoint {method} {}: the endpoints are listed in /openapi.json",
            uri.path()
        ),
    )
}

async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("{} does not answer {method}: see /openapi.json", uri.path()),
    )
}

/// Lets a request through when it carries the token (or none is set).
async fn authorize(State(admin): State<Arc<Admin>>, request: Request, next: Next) -> Response {
    let Some(token) = &admin.token else {
        return next.run(request).await;
    };
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, rest) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
        });
    let refusal = match given {
        None => "missing Authorization: Bearer <token> (the token is sluice.admin.http.token of the server's canal.properties)",
        Some(given) if !same(given.as_bytes(), token.as_bytes()) => {
            "wrong token: give sluice.admin.http.token of the server's canal.properties"
        }
        Some(_) => return next.run(request).await,
    };
    let mut response = error(StatusCode::UNAUTHORIZED, refusal).into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"sluice admin\""),
    );
    response
}

/// Compares in a time that depends on the lengths only.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A path parameter, or a 400 saying what is wrong with it.
fn path<T>(p: Result<Path<T>, PathRejection>) -> Result<T, ApiError> {
    p.map(|Path(t)| t)
        .map_err(|e| error(StatusCode::BAD_REQUEST, format!("bad path: {e}")))
}

/// A JSON body of type `T`; an empty body is `T::default()` when `optional`.
fn body<T: serde::de::DeserializeOwned + Default>(
    bytes: &Bytes,
    optional: bool,
) -> Result<T, ApiError> {
    if optional && bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice(bytes).map_err(|e| {
        error(
            StatusCode::BAD_REQUEST,
            format!("the request body is not the JSON object expected: {e}; see /openapi.json"),
        )
    })
}

impl Admin {
    /// `destination`, or a 404 naming it and the known ones.
    fn known(&self, destination: &str) -> Result<(), ApiError> {
        Ok(self.commands.known(destination)?)
    }

    /// The open connections of `client` of `destination`; `None` in MQ mode.
    fn connections(&self, destination: &str, client: ClientId) -> Option<usize> {
        self.connections
            .as_ref()
            .map(|c| c.count(destination, client))
    }

    /// Samples every destination's lag and snapshot progress each
    /// [`history::INTERVAL`], and notes new failures.
    async fn sample_forever(&self) {
        let mut tick = tokio::time::interval(history::INTERVAL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let names = self.commands.names();
            let at = history::now_ms();
            for name in &names {
                let lag = self
                    .manager
                    .destination_handle(name)
                    .and_then(|d| d.metrics().and_then(|m| m.lag_ms()))
                    .map(|ms| ms as f64 / 1000.0);
                let rows = self
                    .manager
                    .snapshot_progress(name)
                    .filter(|p| !p.tables.is_empty())
                    .map(|p| p.rows_done());
                let failure = match self.manager.state(name) {
                    Some(InstanceState::Failed(e)) => Some(e),
                    _ => self
                        .mq
                        .as_ref()
                        .and_then(|mq| mq.get(name))
                        .and_then(|w| w.error.map(|e| format!("MQ worker {}: {e}", w.state))),
                };
                self.history.record(name, at, lag, rows, failure.as_deref());
            }
            self.history.keep_only(&names);
        }
    }

    /// The clients of a destination with their cursors: those of the
    /// running destination `handle` (with each one's lag), or those stored
    /// for a stopped one.
    async fn clients(
        &self,
        destination: &str,
        handle: Option<&sluice_instance::destination::InstanceDestination>,
    ) -> Result<Vec<Value>, ApiError> {
        Ok(match handle {
            Some(d) => {
                let put = d.store().metrics().map(|m| m.exec_times().put).unwrap_or(0);
                d.store()
                    .cursors()
                    .into_iter()
                    .map(|(client, cursor)| {
                        let lag = cursor.as_ref().and_then(|c| {
                            (c.timestamp > 0 && put > 0)
                                .then(|| (put - c.timestamp).max(0) as f64 / 1000.0)
                        });
                        let cursor = cursor.map(|p| sluice_canal::LogPosition {
                            identity: d.identity().clone(),
                            postion: p,
                        });
                        json!({
                            "client_id": client,
                            "connections": self.connections(destination, client),
                            "cursor": cursor,
                            "lag_seconds": lag,
                        })
                    })
                    .collect::<Vec<_>>()
            }
            None => {
                let manager = self.manager.clone();
                let name = destination.to_string();
                let unreadable = |e: String| {
                    error(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        format!("reading the cursors of {destination}: {e}"),
                    )
                };
                let stored = tokio::task::spawn_blocking(move || manager.stored_cursors(&name))
                    .await
                    .map_err(|e| unreadable(e.to_string()))?
                    .map_err(|e| unreadable(e.to_string()))?;
                stored
                    .client_datas
                    .into_iter()
                    .map(|c| {
                        json!({
                            "client_id": c.client_identity.client_id,
                            "connections": self.connections(destination, c.client_identity.client_id),
                            "cursor": c.cursor,
                            "lag_seconds": null,
                        })
                    })
                    .collect()
            }
        })
    }

    /// What the API shows of a destination.
    async fn describe(&self, destination: &str) -> Result<Value, ApiError> {
        let state = self.manager.state(destination);
        let (state_name, failure) = match &state {
            None | Some(InstanceState::Stopped) => ("stopped", None),
            Some(InstanceState::Starting) => ("starting", None),
            Some(InstanceState::Running) => ("running", None),
            Some(InstanceState::Stopping) => ("stopping", None),
            Some(InstanceState::Failed(e)) => ("failed", Some(e.clone())),
        };
        let handle = self.manager.destination_handle(destination);
        let address = self
            .manager
            .instance_config(destination)
            .map(|c| c.master_address)
            .or_else(|| {
                sluice_config::InstanceConfig::load(self.manager.config(), destination)
                    .ok()
                    .map(|c| c.master_address)
            });
        let metrics = handle.as_ref().and_then(|d| d.metrics().cloned());
        let read = metrics
            .as_ref()
            .and_then(|m| m.read_file_position())
            .map(|(file, offset)| json!({ "journal_name": file, "position": offset }));
        let last_event = metrics
            .as_ref()
            .map(|m| m.last_event_time())
            .filter(|t| *t > 0);
        let lag = metrics
            .as_ref()
            .and_then(|m| m.lag_ms())
            .map(|ms| ms as f64 / 1000.0);
        let clients = self.clients(destination, handle.as_deref()).await?;
        Ok(json!({
            "destination": destination,
            "state": state_name,
            "error": failure,
            "role": self.commands.role(destination),
            "source": {
                "address": address,
                "read_position": read,
                "last_event_time": last_event,
                "lag_seconds": lag,
            },
            "clients": clients,
            "mq_worker": self.mq.as_ref().map(|mq| match mq.get(destination) {
                Some(w) => json!(w),
                None => json!({ "state": "none", "error": null, "since": null }),
            }),
            "lag_history": self.history.lag(destination),
            "snapshot": self.manager.snapshot_progress(destination).filter(|p| !p.tables.is_empty()).map(|p| {
                let estimated = p.rows_estimated().max(p.rows_done());
                let finished = p.tables.iter().all(|t| t.done);
                let (rate, eta) = match finished {
                    true => (None, None),
                    false => self.history.snapshot_rate(destination, p.rows_done(), estimated),
                };
                json!({
                    "tables": p.table_count(),
                    "tables_done": p.tables_done(),
                    "rows_done": p.rows_done(),
                    "rows_estimated": estimated,
                    "finished": finished,
                    "rows_per_second": rate,
                    "eta_seconds": eta,
                })
            }),
        }))
    }
}

async fn list(State(admin): State<Arc<Admin>>) -> Answer {
    let mut all = Vec::new();
    for name in admin.commands.names() {
        all.push(admin.describe(&name).await?);
    }
    Ok(Json(json!({
        "destinations": all,
        "server": {
            "version": env!("CARGO_PKG_VERSION"),
            "mode": server_mode(admin.mode),
            "cluster": admin.commands.in_cluster(),
        },
        "recent_errors": admin.history.errors(),
    })))
}

/// `canal.serverMode` as it is written in canal.properties.
fn server_mode(mode: ServerMode) -> &'static str {
    match mode {
        ServerMode::Tcp => "tcp",
        ServerMode::Kafka => "kafka",
        ServerMode::RocketMq => "rocketMQ",
        ServerMode::RabbitMq => "rabbitMQ",
        ServerMode::PulsarMq => "pulsarMQ",
        ServerMode::Redis => "redis",
        ServerMode::Nats => "nats",
    }
}

async fn show(
    State(admin): State<Arc<Admin>>,
    destination: Result<Path<String>, PathRejection>,
) -> Answer {
    let destination = path(destination)?;
    admin.known(&destination)?;
    Ok(Json(admin.describe(&destination).await?))
}

impl From<CommandError> for ApiError {
    fn from(e: CommandError) -> ApiError {
        use sluice_instance::manager::ManagerError;
        let status = match &e {
            CommandError::Unknown { .. } => StatusCode::NOT_FOUND,
            CommandError::InCluster { .. }
            | CommandError::NoCluster
            | CommandError::NotHere { .. } => StatusCode::CONFLICT,
            CommandError::Manager(m) => match m {
                ManagerError::Locked(..) => StatusCode::CONFLICT,
                ManagerError::Config(_) | ManagerError::Invalid { .. } => {
                    StatusCode::UNPROCESSABLE_ENTITY
                }
                ManagerError::Meta(..) => StatusCode::INTERNAL_SERVER_ERROR,
            },
            CommandError::Release(r) => release_status(r),
            CommandError::Reset(r) => match r {
                ResetError::Running(_) => StatusCode::CONFLICT,
                ResetError::UnknownClient { .. } => StatusCode::NOT_FOUND,
                ResetError::Config(_) => StatusCode::UNPROCESSABLE_ENTITY,
                ResetError::Source(_) => StatusCode::BAD_GATEWAY,
                ResetError::NotInBinlog(_) => StatusCode::BAD_REQUEST,
                ResetError::Meta(..) => StatusCode::INTERNAL_SERVER_ERROR,
            },
        };
        error(status, e.to_string())
    }
}

async fn start(
    State(admin): State<Arc<Admin>>,
    destination: Result<Path<String>, PathRejection>,
    bytes: Bytes,
) -> Answer {
    let destination = plain_request(&admin, destination, &bytes)?;
    admin.commands.start(&destination)?;
    Ok(Json(admin.describe(&destination).await?))
}

async fn stop(
    State(admin): State<Arc<Admin>>,
    destination: Result<Path<String>, PathRejection>,
    bytes: Bytes,
) -> Answer {
    let destination = plain_request(&admin, destination, &bytes)?;
    admin.commands.stop(&destination).await?;
    Ok(Json(admin.describe(&destination).await?))
}

async fn reload(
    State(admin): State<Arc<Admin>>,
    destination: Result<Path<String>, PathRejection>,
    bytes: Bytes,
) -> Answer {
    let destination = plain_request(&admin, destination, &bytes)?;
    admin.commands.reload(&destination).await?;
    Ok(Json(admin.describe(&destination).await?))
}

/// The destination of a start, stop or reload, once it is known and the
/// body is nothing or `{}`.
fn plain_request(
    admin: &Admin,
    destination: Result<Path<String>, PathRejection>,
    bytes: &Bytes,
) -> Result<String, ApiError> {
    let destination = path(destination)?;
    admin.known(&destination)?;
    let _: EmptyRequest = body(bytes, true)?;
    Ok(destination)
}

/// The body of start, stop and reload: nothing, or `{}`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct EmptyRequest {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReleaseRequest {
    #[serde(default)]
    force: bool,
    #[serde(default = "default_release_wait")]
    wait_seconds: u64,
}

fn default_release_wait() -> u64 {
    30
}

impl Default for ReleaseRequest {
    fn default() -> Self {
        ReleaseRequest {
            force: false,
            wait_seconds: default_release_wait(),
        }
    }
}

async fn release(
    State(admin): State<Arc<Admin>>,
    destination: Result<Path<String>, PathRejection>,
    bytes: Bytes,
) -> Answer {
    let destination = path(destination)?;
    admin.known(&destination)?;
    let request: ReleaseRequest = body(&bytes, true)?;
    if request.wait_seconds > MAX_RELEASE_WAIT_SECONDS {
        return Err(error(
            StatusCode::BAD_REQUEST,
            format!("wait_seconds is at most {MAX_RELEASE_WAIT_SECONDS}"),
        ));
    }
    let asked = admin.commands.release(&destination, request.force).await?;
    let owner = asked.owner().to_string();
    if request.wait_seconds == 0 {
        return Ok(Json(json!({
            "destination": destination,
            "released_by": owner,
            "taken_over_by": null,
            "after_ms": null,
        })));
    }
    let taken = asked
        .taken_over(Duration::from_secs(request.wait_seconds))
        .await
        .map_err(|e| ApiError::from(CommandError::Release(e)))?;
    Ok(Json(json!({
        "destination": destination,
        "released_by": owner,
        "taken_over_by": taken.address,
        "after_ms": taken.after.as_millis() as u64,
    })))
}

/// The status of a failed release.
fn release_status(e: &ServerError) -> StatusCode {
    match e {
        ServerError::NotRunning { .. }
        | ServerError::NoStandby { .. }
        | ServerError::AlreadyReleasing { .. }
        | ServerError::ReleaseRace { .. }
        | ServerError::TakenBack { .. } => StatusCode::CONFLICT,
        ServerError::InvalidName(_) => StatusCode::BAD_REQUEST,
        ServerError::NotAuthorized { .. } => StatusCode::FORBIDDEN,
        ServerError::NotTakenOver { .. } => StatusCode::GATEWAY_TIMEOUT,
        _ => StatusCode::BAD_GATEWAY,
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ResetRequest {
    confirm: Option<String>,
    journal_name: Option<String>,
    position: Option<u64>,
    gtid: Option<String>,
    time: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SnapshotRequest {
    tables: Vec<String>,
}

/// Asks a running destination for a snapshot of some tables beside its
/// stream (Debezium's incremental snapshot on demand).
async fn snapshot(
    State(admin): State<Arc<Admin>>,
    destination: Result<Path<String>, PathRejection>,
    bytes: Bytes,
) -> Answer {
    let destination = path(destination)?;
    admin.known(&destination)?;
    let request: SnapshotRequest = body(&bytes, false)?;
    if request.tables.is_empty() {
        return Err(error(
            StatusCode::BAD_REQUEST,
            "\"tables\" is empty: name the tables to read, as \"schema.table\"",
        ));
    }
    let mut tables = Vec::with_capacity(request.tables.len());
    for name in &request.tables {
        match name.split_once('.') {
            Some((schema, table))
                if !schema.is_empty() && !table.is_empty() && !table.contains('.') =>
            {
                tables.push((schema.to_string(), table.to_string()))
            }
            _ => {
                return Err(error(
                    StatusCode::BAD_REQUEST,
                    format!("{name:?} is not a table name of the form \"schema.table\""),
                ))
            }
        }
    }
    admin.commands.snapshot(&destination, tables)?;
    Ok(Json(admin.describe(&destination).await?))
}

async fn reset_cursor(
    State(admin): State<Arc<Admin>>,
    params: Result<Path<(String, String)>, PathRejection>,
    bytes: Bytes,
) -> Answer {
    let (destination, client) = path(params)?;
    let client: ClientId = match client.parse() {
        Ok(c) if c > 0 => c,
        _ => {
            return Err(error(
                StatusCode::BAD_REQUEST,
                format!("clientId {client:?} is not a number from 1 to 32767"),
            ))
        }
    };
    admin.known(&destination)?;
    let request: ResetRequest = body(&bytes, false)?;
    if request.confirm.as_deref() != Some(destination.as_str()) {
        return Err(error(
            StatusCode::BAD_REQUEST,
            format!("a cursor reset makes clientId {client} skip or replay changes: repeat the destination's name in \"confirm\" (\"confirm\": {destination:?}) to go ahead"),
        ));
    }
    let target = match (&request.journal_name, request.position, &request.time) {
        (Some(file), Some(position), None) if !file.trim().is_empty() && position >= 4 => {
            CursorTarget::Position(sluice_canal::EntryPosition {
                journal_name: file.trim().to_string(),
                position,
                gtid: request.gtid.clone().unwrap_or_default(),
                ..Default::default()
            })
        }
        (None, None, Some(time)) if request.gtid.is_none() => {
            match format!("time:{time}").parse::<StartPosition>() {
                Ok(StartPosition::Time(seconds)) => CursorTarget::Time(seconds),
                Ok(_) | Err(_) => {
                    return Err(error(
                        StatusCode::BAD_REQUEST,
                        format!("time {time:?} is not an ISO-8601 time (2024-05-01T12:00:00Z) or seconds since the epoch"),
                    ))
                }
            }
        }
        _ => {
            return Err(error(
                StatusCode::BAD_REQUEST,
                "give either journal_name and position (at least 4), with gtid optionally, or time",
            ))
        }
    };
    let reset = admin
        .commands
        .reset_cursor(&destination, client, target)
        .await?;
    Ok(Json(json!({
        "destination": destination,
        "client_id": client,
        "previous": reset.previous,
        "cursor": reset.cursor,
    })))
}

/// The ETL call's options: in the query string (as canal-adapter's
/// `?params=…`) or the JSON body.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct EtlRequest {
    /// Values for the `{}` of the mapping's `etlCondition`, `;`-separated.
    params: Option<String>,
    /// The destination, when adapters of several have this key.
    destination: Option<String>,
}

/// canal-adapter's `POST /etl/rdb/{key}/{file}.yml`: the full load of a
/// mapping of the relational sink (see `sluice_sink_rdb::etl`). Answers
/// canal-adapter's `{"succeeded", "resultMessage"}` (and `errorMessage`
/// on failure), with 404 for an unknown key or file, 400 for a call that
/// does not fit the mapping, 502 when the source or the target failed.
async fn etl(
    State(admin): State<Arc<Admin>>,
    params: Result<Path<(String, String)>, PathRejection>,
    query: Result<axum::extract::Query<EtlRequest>, axum::extract::rejection::QueryRejection>,
    bytes: Bytes,
) -> Response {
    let answer = |status: StatusCode, succeeded: bool, message: String| {
        let body = if succeeded {
            json!({ "succeeded": true, "resultMessage": message })
        } else {
            json!({ "succeeded": false, "resultMessage": message, "errorMessage": message })
        };
        (status, Json(body)).into_response()
    };
    let (key, file) = match path(params) {
        Ok(p) => p,
        Err(ApiError(status, m)) => return answer(status, false, m),
    };
    let query = match query {
        Ok(axum::extract::Query(q)) => q,
        Err(e) => {
            return answer(
                StatusCode::BAD_REQUEST,
                false,
                format!("bad query string: {e}"),
            )
        }
    };
    let request: EtlRequest = match body(&bytes, true) {
        Ok(b) => b,
        Err(ApiError(status, m)) => return answer(status, false, m),
    };
    let params: Vec<String> = query
        .params
        .or(request.params)
        .map(|p| p.split(';').map(|s| s.trim().to_string()).collect())
        .unwrap_or_default();
    let destination = query.destination.or(request.destination);
    match crate::sink::etl(
        &admin.manager,
        &admin.sink,
        destination.as_deref(),
        &key,
        &file,
        &params,
    )
    .await
    {
        Ok((mapping, rows)) => answer(
            StatusCode::OK,
            true,
            format!("loaded {rows} rows of {mapping} (rdb adapter {key})"),
        ),
        Err(e) => answer(
            StatusCode::from_u16(e.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            false,
            e.message,
        ),
    }
}
