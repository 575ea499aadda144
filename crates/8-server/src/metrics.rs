//! Prometheus metrics under Canal's names, served in the text format at
//! `http://<canal.ip or 0.0.0.0>:<canal.metrics.pull.port>/metrics`
//! (11112 by default, as Canal; 0 turns it off).
//!
//! The stages count with the `metrics` facade into the recorder installed
//! here (once per process, before any destination registers its handles).
//! What depends on the time of the scrape is set when scraped: Canal's
//! delay gauges (`now − binlog time` of the last entry put, got, acked,
//! read), whether each destination runs here, each client's cursor lag, the
//! binlog bytes behind the source's end and the binlog retention runway.
//! For the last two the source's binlog files and expiry are read by a
//! task of their own, every `sluice.metrics.sourceRefresh` per running
//! destination, over one connection per destination that it keeps: a
//! scrape never talks to a source, so scrapes cannot multiply connections
//! or logins on it.
//!
//! The port takes no login, so what scrapes can cost is bounded: at most
//! [`MAX_SCRAPES`] are answered at once, and one more waits up to
//! [`SCRAPE_WAIT`] for a place before it gets `503 Service Unavailable`
//! (with `Retry-After: 1`); at most [`MAX_OPEN`] connections are held at
//! once, the others wait unaccepted in the kernel's backlog.
//!
//! As in Canal, a port that cannot be bound is logged and the server runs
//! on without metrics.

use std::collections::{BTreeSet, HashMap};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use metrics::gauge;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use sluice_config::MetricsConfig;
use sluice_instance::manager::{InstanceManager, InstanceState};
use sluice_instance::metrics::now_ms;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

/// Most bytes of a request head read; the rest is not looked at.
const MAX_REQUEST_HEAD: usize = 8 * 1024;

/// How often histogram samples are folded into their buckets between
/// scrapes.
const UPKEEP_PERIOD: Duration = Duration::from_secs(5);

/// How long a scraper may take to send its request, and to read the
/// answer.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// Scrapes answered at once, at most.
pub(crate) const MAX_SCRAPES: usize = 4;

/// How long a scrape waits for one of the [`MAX_SCRAPES`] places before
/// it is answered `503`.
pub(crate) const SCRAPE_WAIT: Duration = Duration::from_secs(2);

/// Connections held at once (being answered, waiting for a place, or
/// sending their request); the next ones are not accepted until one ends.
pub(crate) const MAX_OPEN: usize = 64;

/// How often the source task looks for destinations whose figures are due.
const SOURCE_TICK: Duration = Duration::from_secs(1);

/// Canal's `mode` label of `canal_instance`. Canal says `spring` for an
/// instance built from configuration files (also when canal-admin serves
/// them, since Canal 1.1.4) and `manager` only for one the Otter manager
/// builds (`canal.instance.global.mode = manager` before canal-admin).
/// Sluice builds every destination from its `instance.properties`,
/// whatever `canal.instance.global.mode` says: `spring` is what is true.
const MODE: &str = "spring";

/// The process's recorder; `None` if another one was installed first.
fn recorder() -> Option<&'static PrometheusHandle> {
    static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let installed = PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Full("canal_instance_client_request_latency".to_string()),
                    &sluice_serve_tcp::metrics::LATENCY_BUCKETS_MS,
                )
                .and_then(|b| b.install_recorder());
            match installed {
                Ok(handle) => Some(handle),
                Err(error) => {
                    tracing::warn!(%error, "cannot install the metrics recorder; /metrics is not served");
                    None
                }
            }
        })
        .as_ref()
}

/// Installs the recorder when `port` is not 0. Called before any
/// destination starts: handles registered earlier count nothing.
pub(crate) fn install(port: u16) {
    if port != 0 {
        let _ = recorder();
    }
}

/// Serves `/metrics` on `canal.ip`:`canal.metrics.pull.port`, keeps the
/// recorder's histograms drained (also when the port cannot be bound,
/// logged: they would grow with every request otherwise) and reads the
/// sources' binlog figures every `sluice.metrics.sourceRefresh`. The
/// address is `None` when not served; the task is `None` when the port is 0.
pub(crate) async fn serve(
    config: &MetricsConfig,
    manager: Arc<InstanceManager>,
) -> (Option<SocketAddr>, Option<JoinHandle<()>>) {
    let (port, source_refresh) = (config.port, config.source_refresh);
    if port == 0 {
        return (None, None);
    }
    let Some(handle) = recorder() else {
        return (None, None);
    };
    let addr = sluice_serve_tcp::listen_addr(&config.ip, port);
    let listener = match TcpListener::bind(&addr).await {
        Ok(l) => match l.local_addr() {
            Ok(local) => Some((l, local)),
            Err(error) => {
                tracing::error!(%addr, %error, "metrics listener has no address; running without /metrics");
                None
            }
        },
        Err(error) => {
            tracing::error!(%addr, %error, "cannot listen for metrics scrapes (canal.metrics.pull.port); running without /metrics");
            None
        }
    };
    let local = listener.as_ref().map(|(_, a)| *a);
    if let Some(local) = local {
        tracing::info!(addr = %local, source_refresh_ms = source_refresh.as_millis() as u64, "serving Prometheus metrics at /metrics");
    }
    let task = tokio::spawn(async move {
        let upkeep = async {
            loop {
                tokio::time::sleep(UPKEEP_PERIOD).await;
                handle.run_upkeep();
            }
        };
        match listener {
            Some((listener, _)) => {
                let sources = Arc::new(SourceFigures::default());
                tokio::select! {
                    _ = upkeep => {}
                    _ = accept(listener, handle, manager.clone(), sources.clone()) => {}
                    _ = read_sources(manager, sources, source_refresh) => {}
                }
            }
            None => upkeep.await,
        }
    });
    (local, Some(task))
}

/// Answers scrapes, each on a task of its own, at most [`MAX_OPEN`]
/// connections at once and [`MAX_SCRAPES`] scrapes.
async fn accept(
    listener: TcpListener,
    handle: &'static PrometheusHandle,
    manager: Arc<InstanceManager>,
    sources: Arc<SourceFigures>,
) {
    let open = Arc::new(Semaphore::new(MAX_OPEN));
    let serving = Arc::new(Semaphore::new(MAX_SCRAPES));
    loop {
        // The semaphores are never closed.
        let Ok(slot) = open.clone().acquire_owned().await else {
            return;
        };
        match listener.accept().await {
            Ok((stream, _)) => {
                let manager = manager.clone();
                let sources = sources.clone();
                let serving = serving.clone();
                tokio::spawn(async move {
                    let scrape = Scrape {
                        handle,
                        manager: &manager,
                        sources: &sources,
                        serving: &serving,
                    };
                    if let Err(error) = answer(stream, scrape).await {
                        tracing::debug!(%error, "metrics scrape");
                    }
                    drop(slot);
                });
            }
            Err(error) => {
                tracing::warn!(%error, "accepting a metrics scrape");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// What answering a scrape needs.
struct Scrape<'a> {
    handle: &'a PrometheusHandle,
    manager: &'a InstanceManager,
    sources: &'a SourceFigures,
    serving: &'a Semaphore,
}

/// Answers one HTTP request and closes the connection.
async fn answer(mut stream: TcpStream, scrape: Scrape<'_>) -> std::io::Result<()> {
    let mut head = Vec::with_capacity(512);
    let mut buf = [0u8; 1024];
    let read = tokio::time::timeout(REQUEST_TIMEOUT, async {
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_REQUEST_HEAD {
            let n = stream.read(&mut buf).await?;
            if n == 0 {
                break;
            }
            head.extend_from_slice(&buf[..n]);
        }
        Ok::<_, std::io::Error>(())
    })
    .await;
    match read {
        Ok(r) => r?,
        Err(_) => return Ok(()),
    }
    let line = head.split(|b| *b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or("");
    let (status, content_type, body) = match (method, path) {
        ("GET", "/metrics" | "/") => {
            match tokio::time::timeout(SCRAPE_WAIT, scrape.serving.acquire()).await {
                Ok(Ok(_serving)) => {
                    refresh(scrape.manager);
                    scrape.sources.show(scrape.manager);
                    (
                        "200 OK",
                        "text/plain; version=0.0.4; charset=utf-8",
                        scrape.handle.render(),
                    )
                }
                _ => (
                    "503 Service Unavailable\r\nRetry-After: 1",
                    "text/plain; charset=utf-8",
                    format!("more than {MAX_SCRAPES} scrapes at once: retry in a second\n"),
                ),
            }
        }
        ("GET", _) => (
            "404 Not Found",
            "text/plain; charset=utf-8",
            "metrics are at /metrics\n".to_string(),
        ),
        _ => (
            "405 Method Not Allowed",
            "text/plain; charset=utf-8",
            "GET /metrics\n".to_string(),
        ),
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    // A scraper that does not read its answer does not keep its place.
    let write = async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await
    };
    match tokio::time::timeout(REQUEST_TIMEOUT, write).await {
        Ok(written) => written,
        Err(_) => Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "the scraper did not read the answer in time",
        )),
    }
}

/// How long one reading of a source's binlogs may take.
const SOURCE_POLL_TIMEOUT: Duration = Duration::from_secs(3);

/// The last binlog figures read from each running destination's source.
#[derive(Default)]
struct SourceFigures(Mutex<HashMap<String, SourceLogs>>);

impl SourceFigures {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, SourceLogs>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sets, for each running destination whose source was read, how many
    /// bytes the reader is behind the binlog's end and, when the source
    /// purges binlogs by age, the seconds until the oldest binlog the
    /// slowest client cursor needs may be purged. Measured from the
    /// cursor's own binlog time, which the file's last write follows: the
    /// runway shown is never longer than the real one. The files are as
    /// last read (at most `sluice.metrics.sourceRefresh` ago): bytes
    /// written since are not counted.
    fn show(&self, manager: &InstanceManager) {
        let figures = self.lock();
        for (name, logs) in figures.iter() {
            let Some(destination) = manager.destination_handle(name) else {
                continue;
            };
            let read = destination.metrics().and_then(|m| m.read_position());
            if let Some((read_file, read_offset)) = read {
                let behind: u64 = logs
                    .files
                    .iter()
                    .filter_map(|(file, size)| {
                        let n = sluice_binlog::file_sequence(file)?;
                        match n.cmp(&read_file) {
                            std::cmp::Ordering::Greater => Some(*size),
                            std::cmp::Ordering::Equal => Some(size.saturating_sub(read_offset)),
                            std::cmp::Ordering::Less => None,
                        }
                    })
                    .sum();
                gauge!("sluice_binlog_bytes_behind", "destination" => name.clone())
                    .set(behind as f64);
            }
            let slowest = destination
                .store()
                .cursors()
                .into_iter()
                .filter_map(|(_, cursor)| cursor)
                .min_by_key(|c| c.binlog_key());
            if let (Some(cursor), Some(expire)) = (slowest, logs.expire_seconds) {
                if cursor.timestamp > 0 {
                    let age = (now_ms() - cursor.timestamp).max(0) as f64 / 1000.0;
                    gauge!("sluice_binlog_retention_runway_seconds", "destination" => name.clone())
                        .set(expire as f64 - age);
                }
            }
        }
    }
}

/// Reads each running destination's binlog files and expiry from its
/// source, at most once per `period` per destination, over a connection
/// per destination kept between readings (opened again only after one
/// failed). A source that does not answer leaves the last figures.
async fn read_sources(
    manager: Arc<InstanceManager>,
    sources: Arc<SourceFigures>,
    period: Duration,
) {
    let mut conns: HashMap<String, sluice_source::Conn> = HashMap::new();
    let mut read_at: HashMap<String, Instant> = HashMap::new();
    loop {
        let running: Vec<String> = manager
            .states()
            .into_iter()
            .filter(|(_, state)| *state == InstanceState::Running)
            .map(|(name, _)| name)
            .collect();
        conns.retain(|name, _| running.contains(name));
        read_at.retain(|name, _| running.contains(name));
        sources.lock().retain(|name, _| running.contains(name));
        for name in running {
            if read_at.get(&name).is_some_and(|t| t.elapsed() < period) {
                continue;
            }
            read_at.insert(name.clone(), Instant::now());
            let Some(config) = manager.instance_config(&name) else {
                continue;
            };
            let Ok(opts) = sluice_instance::manager::source_connect_options(&config) else {
                continue;
            };
            let kept = conns.remove(&name);
            match tokio::time::timeout(SOURCE_POLL_TIMEOUT, source_logs(kept, &opts)).await {
                Ok(Ok((logs, conn))) => {
                    conns.insert(name.clone(), conn);
                    sources.lock().insert(name, logs);
                }
                Ok(Err(error)) => {
                    tracing::debug!(destination = %name, %error, "binlog metrics: the source did not answer");
                }
                Err(_) => {
                    tracing::debug!(destination = %name, "binlog metrics: the source did not answer in time");
                }
            }
        }
        tokio::time::sleep(SOURCE_TICK.min(period)).await;
    }
}

/// A source's binlog files (name, size) and how long it keeps them
/// (`None`: it does not purge by age).
struct SourceLogs {
    files: Vec<(String, u64)>,
    expire_seconds: Option<u64>,
}

/// The source's binlog files and expiry, over `kept` or, without one, a
/// new connection; the connection is given back for the next time.
async fn source_logs(
    kept: Option<sluice_source::Conn>,
    opts: &sluice_source::ConnectOptions,
) -> Result<(SourceLogs, sluice_source::Conn), sluice_source::SourceError> {
    let mut conn = match kept {
        Some(conn) => conn,
        None => sluice_source::Conn::connect(opts).await?,
    };
    let files = sluice_source::replica::binary_logs(&mut conn).await?;
    let vars = conn
        .query(
            "SHOW GLOBAL VARIABLES WHERE Variable_name IN \
             ('binlog_expire_logs_seconds', 'expire_logs_days')",
        )
        .await?;
    let var = |name: &str| {
        vars.rows.iter().find_map(|r| {
            (r.first()?.as_deref()? == name)
                .then(|| r.get(1)?.as_deref()?.trim().parse::<f64>().ok())
                .flatten()
        })
    };
    // binlog_expire_logs_seconds wins when set (MySQL 8, MariaDB 10.6);
    // expire_logs_days may be fractional on MariaDB.
    let seconds = match var("binlog_expire_logs_seconds") {
        Some(s) if s > 0.0 => s,
        _ => var("expire_logs_days").unwrap_or(0.0) * 86_400.0,
    };
    let logs = SourceLogs {
        files,
        expire_seconds: (seconds > 0.0).then_some(seconds as u64),
    };
    Ok((logs, conn))
}

/// Sets what depends on the time of the scrape.
fn refresh(manager: &InstanceManager) {
    let now = now_ms();
    let delay = |t: i64| if t > 0 { (now - t).max(0) as f64 } else { 0.0 };
    let mut names: Vec<(String, bool)> = manager
        .states()
        .into_iter()
        .map(|(name, state)| (name, state == InstanceState::Running))
        .collect();
    // Configured destinations not started here, and those gone since the
    // last scrape, are shown as not running.
    static SEEN: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    for name in manager.config().names.iter().chain(seen.iter()) {
        if !names.iter().any(|(n, _)| n == name) {
            names.push((name.clone(), false));
        }
    }
    seen.extend(names.iter().map(|(n, _)| n.clone()));
    drop(seen);
    for (name, running) in names {
        let on = if running { 1.0 } else { 0.0 };
        gauge!("canal_instance", "destination" => name.clone(), "mode" => MODE).set(on);
        gauge!("sluice_destination_running", "destination" => name.clone()).set(on);
        let Some(destination) = manager.destination_handle(&name) else {
            continue;
        };
        if let Some(m) = destination.metrics() {
            gauge!("canal_instance_traffic_delay", "destination" => name.clone())
                .set(delay(m.last_event_time()));
        }
        let store = destination.store();
        let Some(times) = store.metrics().map(|m| m.exec_times()) else {
            continue;
        };
        gauge!("canal_instance_put_delay", "destination" => name.clone()).set(delay(times.put));
        gauge!("canal_instance_get_delay", "destination" => name.clone()).set(delay(times.get));
        gauge!("canal_instance_ack_delay", "destination" => name.clone()).set(delay(times.ack));
        for (client, cursor) in store.cursors() {
            // Binlog time between the newest entry put and the client's cursor.
            let behind = match cursor {
                Some(c) if c.timestamp > 0 && times.put > 0 => (times.put - c.timestamp).max(0),
                Some(_) => 0,
                // Nothing acked yet: no lag to tell.
                None => continue,
            };
            gauge!(
                "sluice_client_cursor_lag_seconds",
                "destination" => name.clone(),
                "clientId" => client.to_string()
            )
            .set(behind as f64 / 1000.0);
        }
    }
}
