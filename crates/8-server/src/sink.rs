//! The relational sink beside the Canal TCP server (or an MQ mode): the
//! `rdb` adapters of a canal-adapter configuration folder
//! (`sluice.sink.adapterConf`, default `{canal.conf.dir}/adapter` when it
//! exists), one worker per adapter of each destination running here. As
//! for MQ workers, a supervisor follows the instance manager: a destination
//! that appears gets its workers, one that stops, is released or reloads
//! has them stopped.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use sluice_config::ServerConfig;
use sluice_instance::destination::InstanceDestination;
use sluice_instance::manager::InstanceManager;
use sluice_sink_rdb::{AdapterConfigError, SinkConfig, SinkWorker, DEFAULT_CLIENT_ID};
use sluice_store::ClientId;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::ServerError;

/// How often the supervisor compares the workers with the destinations.
const SUPERVISE_PERIOD: Duration = Duration::from_millis(200);

/// The sinks of the configuration and the store client id of each.
pub(crate) struct Sinks {
    sinks: Vec<(SinkConfig, ClientId)>,
}

/// Reads the adapter folder; `None` when there is none. Errors name the
/// file and key.
pub(crate) fn load(config: &ServerConfig) -> Result<Option<Sinks>, ServerError> {
    let dir = match config.raw.get("sluice.sink.adapterConf") {
        Some(p) if !p.value.trim().is_empty() => config.conf_dir.join(p.value.trim()),
        _ => {
            let default = config.conf_dir.join("adapter");
            if !default.join("application.yml").is_file() {
                return Ok(None);
            }
            default
        }
    };
    let base = match config.raw.get("sluice.sink.clientId") {
        None => DEFAULT_CLIENT_ID,
        Some(p) => p
            .value
            .trim()
            .parse::<ClientId>()
            .ok()
            .filter(|&id| id > 0)
            .ok_or_else(|| {
                ServerError::SinkConfig(AdapterConfigError {
                    file: PathBuf::from(format!("{}:{}", config.path.display(), p.line)),
                    message: format!(
                        "sluice.sink.clientId: `{}` is not a positive client id",
                        p.value.trim()
                    ),
                })
            })?,
    };
    let conf = sluice_sink_rdb::load(&dir).map_err(ServerError::SinkConfig)?;
    for w in &conf.warnings {
        tracing::warn!("{w}");
    }
    // The sinks of one destination read as consecutive client ids.
    let mut per_destination: HashMap<String, ClientId> = HashMap::new();
    let sinks = conf
        .sinks
        .into_iter()
        .map(|s| {
            let next = per_destination.entry(s.destination.clone()).or_insert(0);
            let id = base + *next;
            *next += 1;
            (s, id)
        })
        .collect::<Vec<_>>();
    for (s, id) in &sinks {
        tracing::info!(sink = %s.name(), target = %s.target, client = id, mappings = s.mappings.len(), threads = s.threads, "relational sink configured (one connection per sink)");
    }
    Ok(Some(Sinks { sinks }))
}

struct RunningSink {
    destination: Arc<InstanceDestination>,
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

/// Starts the supervisor of the sinks, if any.
pub(crate) fn start(
    sinks: Option<Sinks>,
    manager: &Arc<InstanceManager>,
    stop: &watch::Receiver<bool>,
) -> Option<JoinHandle<()>> {
    let sinks = sinks?;
    Some(tokio::spawn(supervise(
        manager.clone(),
        sinks,
        stop.clone(),
    )))
}

/// Runs the workers of the destinations running here until `stop`.
async fn supervise(manager: Arc<InstanceManager>, sinks: Sinks, mut stop: watch::Receiver<bool>) {
    let mut running: HashMap<usize, RunningSink> = HashMap::new();
    loop {
        for (i, (sink, client)) in sinks.sinks.iter().enumerate() {
            let current = manager.destination_handle(&sink.destination);
            if let Some(w) = running.get(&i) {
                let keep = current
                    .as_ref()
                    .is_some_and(|d| Arc::ptr_eq(d, &w.destination) && !w.task.is_finished());
                if keep {
                    continue;
                }
                if let Some(w) = running.remove(&i) {
                    tracing::info!(sink = %sink.name(), "stopping its sink worker");
                    let _ = w.stop.send(true);
                    let _ = w.task.await;
                }
            }
            let Some(destination) = current else {
                continue;
            };
            let (stop_tx, stop_rx) = watch::channel(false);
            let worker = SinkWorker::new(destination.clone(), sink.clone(), *client);
            let name = sink.name();
            let span = sluice_instance::manager::destination_span(&sink.destination);
            let task = tokio::spawn(tracing::Instrument::instrument(
                async move {
                    if let Err(e) = worker.run(stop_rx).await {
                        tracing::info!(sink = %name, reason = %e, "sink worker ended");
                    }
                },
                span,
            ));
            running.insert(
                i,
                RunningSink {
                    destination,
                    stop: stop_tx,
                    task,
                },
            );
        }
        tokio::select! {
            _ = tokio::time::sleep(SUPERVISE_PERIOD) => {}
            _ = stop.wait_for(|s| *s) => break,
        }
    }
    for (_, w) in running {
        let _ = w.stop.send(true);
        let _ = w.task.await;
    }
}
