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

use sluice_config::ServerConfig;
use sluice_instance::manager::InstanceManager;
use sluice_sink_rdb::{
    AdapterConfigError, SchemaChanges, SinkConfig, SinkWorker, DEFAULT_CLIENT_ID,
};
use sluice_store::ClientId;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::destination_task::{DestinationTask, SUPERVISE_PERIOD};
use crate::ServerError;

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
    let schema_changes = match config.raw.get("sluice.sink.schemaChanges") {
        None => SchemaChanges::default(),
        Some(p) => p.value.parse::<SchemaChanges>().map_err(|e| {
            ServerError::SinkConfig(AdapterConfigError {
                file: PathBuf::from(format!("{}:{}", config.path.display(), p.line)),
                message: format!("sluice.sink.schemaChanges: {e}"),
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
        .map(|mut s| {
            s.schema_changes = schema_changes;
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
    let mut running: HashMap<usize, DestinationTask> = HashMap::new();
    loop {
        for (i, (sink, client)) in sinks.sinks.iter().enumerate() {
            let current = manager.destination_handle(&sink.destination);
            if let Some(w) = running.get(&i) {
                if w.runs_on(current.as_ref()) {
                    continue;
                }
                if let Some(w) = running.remove(&i) {
                    tracing::info!(sink = %sink.name(), "stopping its sink worker");
                    w.stop(&format!("sink worker {}", sink.name())).await;
                }
            }
            let Some(destination) = current else {
                continue;
            };
            let worker = SinkWorker::new(destination.clone(), sink.clone(), *client);
            let name = sink.name();
            let task = DestinationTask::spawn(destination, &sink.destination, |stop| async move {
                if let Err(e) = worker.run(stop).await {
                    tracing::info!(sink = %name, reason = %e, "sink worker ended");
                }
            });
            running.insert(i, task);
        }
        tokio::select! {
            _ = tokio::time::sleep(SUPERVISE_PERIOD) => {}
            _ = stop.wait_for(|s| *s) => break,
        }
    }
    for (i, w) in running {
        let name = sinks
            .sinks
            .get(i)
            .map(|(s, _)| s.name())
            .unwrap_or_default();
        w.stop(&format!("sink worker {name}")).await;
    }
}
