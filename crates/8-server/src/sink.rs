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

use sluice_config::SinkKeys;
use sluice_instance::manager::InstanceManager;
use sluice_sink_rdb::{
    AdapterConfigError, PostgresUpsert, SchemaChanges, SinkConfig, SinkWorker, DEFAULT_CLIENT_ID,
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
pub(crate) fn load(config: &SinkKeys) -> Result<Option<Sinks>, ServerError> {
    let dir = match &config.adapter_conf {
        Some(p) if !p.value.trim().is_empty() => config.conf_dir.join(p.value.trim()),
        _ => {
            let default = config.conf_dir.join("adapter");
            if !default.join("application.yml").is_file() {
                return Ok(None);
            }
            default
        }
    };
    let base = match &config.client_id {
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
    let schema_changes = match &config.schema_changes {
        None => SchemaChanges::default(),
        Some(p) => p.value.parse::<SchemaChanges>().map_err(|e| {
            ServerError::SinkConfig(AdapterConfigError {
                file: PathBuf::from(format!("{}:{}", config.path.display(), p.line)),
                message: format!("sluice.sink.schemaChanges: {e}"),
            })
        })?,
    };
    let postgres_upsert = match &config.postgres_upsert {
        None => PostgresUpsert::default(),
        Some(p) => p.value.parse::<PostgresUpsert>().map_err(|e| {
            ServerError::SinkConfig(AdapterConfigError {
                file: PathBuf::from(format!("{}:{}", config.path.display(), p.line)),
                message: format!("sluice.sink.postgresUpsert: {e}"),
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
            s.postgres_upsert = postgres_upsert;
            let next = per_destination.entry(s.destination.clone()).or_insert(0);
            let id = base + *next;
            *next += 1;
            (s, id)
        })
        .collect::<Vec<_>>();
    for (s, id) in &sinks {
        tracing::info!(sink = %s.name(), target = %s.target, client = id, mappings = s.mappings.len(), threads = s.threads, "relational sink configured (threads: target connections, rows partitioned by key)");
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

/// Why an ETL call failed, with the HTTP status it answers.
#[derive(Debug)]
pub(crate) struct EtlError {
    pub status: u16,
    pub message: String,
}

fn etl_error(status: u16, message: impl Into<String>) -> EtlError {
    EtlError {
        status,
        message: message.into(),
    }
}

/// canal-adapter's `POST /etl/rdb/{key}/{file}`: loads the mapping `file`
/// (`name.yml` or `name`) of the `rdb` adapter `key` (of `destination`,
/// when several destinations have one of that key) from the destination's
/// source. The adapter folder is read again, so the files as they are now
/// are used. Answers the rows loaded.
pub(crate) async fn etl(
    manager: &InstanceManager,
    sink: &SinkKeys,
    destination: Option<&str>,
    key: &str,
    file: &str,
    params: &[String],
) -> Result<(String, u64), EtlError> {
    let sinks = load(sink)
        .map_err(|e| etl_error(500, e.to_string()))?
        .ok_or_else(|| {
            etl_error(
                404,
                "no relational sink is configured (no adapter folder: sluice.sink.adapterConf)",
            )
        })?;
    let candidates: Vec<&SinkConfig> = sinks
        .sinks
        .iter()
        .map(|(s, _)| s)
        .filter(|s| s.key == key && destination.is_none_or(|d| s.destination == d))
        .collect();
    let sink = match candidates.as_slice() {
        [one] => *one,
        [] => {
            let known: Vec<String> = sinks
                .sinks
                .iter()
                .map(|(s, _)| format!("{} (destination {})", s.key, s.destination))
                .collect();
            return Err(etl_error(
                404,
                format!(
                    "no rdb adapter with key {key:?}{}; the adapters are: {}",
                    destination.map_or(String::new(), |d| format!(" for destination {d:?}")),
                    known.join(", ")
                ),
            ));
        }
        several => {
            let ds: Vec<&str> = several.iter().map(|s| s.destination.as_str()).collect();
            return Err(etl_error(
                400,
                format!(
                    "several destinations have an rdb adapter with key {key:?} ({}): name the destination",
                    ds.join(", ")
                ),
            ));
        }
    };
    let name = file.strip_suffix(".yml").unwrap_or(file);
    let mapping = sink
        .mappings
        .iter()
        .find(|m| m.name == name)
        .ok_or_else(|| {
            let files: Vec<String> = sink.mappings.iter().map(|m| format!("{}.yml", m.name)).collect();
            etl_error(
                404,
                format!(
                    "the rdb adapter {key:?} of destination {} has no mapping file {file:?}; its files are: {}",
                    sink.destination,
                    files.join(", ")
                ),
            )
        })?;
    let instance = manager.instance_config(&sink.destination).ok_or_else(|| {
        etl_error(
            409,
            format!(
                "destination {} does not run on this server: its source is not known here",
                sink.destination
            ),
        )
    })?;
    let (host, port) = instance
        .master_address
        .rsplit_once(':')
        .and_then(|(h, p)| p.parse::<u16>().ok().map(|p| (h.to_string(), p)))
        .ok_or_else(|| {
            etl_error(
                500,
                format!(
                    "canal.instance.master.address {:?} of destination {} is not host:port",
                    instance.master_address, sink.destination
                ),
            )
        })?;
    let source = sluice_sink_rdb::etl::SourceUrl {
        host,
        port,
        user: instance.db_username.clone(),
        password: instance.db_password.clone(),
        socket: instance.master_socket.clone(),
    };
    let what = format!("{}.yml", mapping.name);
    tracing::info!(sink = %sink.name(), mapping = %what, ?params, "ETL: loading the mapping's source table");
    match sluice_sink_rdb::etl::load(sink, mapping, params, &source).await {
        Ok(outcome) => {
            tracing::info!(sink = %sink.name(), mapping = %what, rows = outcome.rows, "ETL done");
            Ok((what, outcome.rows))
        }
        Err(sluice_sink_rdb::etl::EtlFailure::Request(e)) => Err(etl_error(400, e)),
        Err(sluice_sink_rdb::etl::EtlFailure::Load(e)) => {
            tracing::warn!(sink = %sink.name(), mapping = %what, error = %e, "ETL failed");
            Err(etl_error(502, e))
        }
    }
}
