//! MQ mode (`canal.serverMode = kafka | rabbitMQ | redis | nats`): no Canal TCP port; one worker per
//! destination running on this server publishes its batches to the broker.
//! Which destinations run here is the instance manager's business (all of
//! them, or those won in ZooKeeper): a supervisor follows it, starting a
//! worker for each destination that appears and stopping the worker of one
//! that stops, is released or reloads.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sluice_config::{InstanceConfig, MqServerConfig, Properties, ServerMode};
use sluice_encode::mq::{MqRouter, RouteConfig};
use sluice_instance::manager::InstanceManager;
use sluice_serve_mq::nats::{NatsPublisher, NatsSettings};
use sluice_serve_mq::rabbit::{RabbitPublisher, RabbitSettings};
use sluice_serve_mq::redis::{RedisPublisher, RedisSettings};
use sluice_serve_mq::{KafkaPublisher, KafkaSettings, Publisher, Worker, WorkerConfig};
use tokio::sync::watch;

use crate::destination_task::{DestinationTask, SUPERVISE_PERIOD};
use crate::ServerError;

/// How long after a failed publisher creation the supervisor tries again.
const PUBLISHER_RETRY: Duration = Duration::from_secs(10);

/// What each destination's MQ worker is doing, for the admin API: a
/// destination without an entry has no worker (it does not run here).
#[derive(Default)]
pub(crate) struct MqStatus(Mutex<HashMap<String, MqWorkerState>>);

/// One destination's MQ worker.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct MqWorkerState {
    /// `publishing`, `ended` (its publisher gave up; a new one is made
    /// when the destination runs again) or `failed` (no publisher could be
    /// made; tried again every 10 s).
    pub(crate) state: &'static str,
    /// Why it ended or failed.
    pub(crate) error: Option<String>,
    /// Since when, ms since the epoch.
    pub(crate) since: u64,
}

impl MqStatus {
    fn set(&self, destination: &str, state: &'static str, error: Option<String>) {
        let since = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        all.insert(
            destination.to_string(),
            MqWorkerState {
                state,
                error,
                since,
            },
        );
    }

    fn remove(&self, destination: &str) {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        all.remove(destination);
    }

    /// The worker of `destination`, if it has one.
    pub(crate) fn get(&self, destination: &str) -> Option<MqWorkerState> {
        let all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        all.get(destination).cloned()
    }
}

/// Makes the publisher of one destination (its name and routing).
pub(crate) type PublisherFactory =
    Arc<dyn Fn(&str, &RouteConfig) -> Result<Box<dyn Publisher>, String> + Send + Sync>;

/// The publisher factory of the server mode `mode`, its broker's client
/// settings read from `properties` (the keys of the canal.properties at
/// `path`, in the conf folder `conf_dir`); `None` in TCP mode. Adding a
/// broker is one arm here.
pub(crate) fn publisher_factory(
    mode: ServerMode,
    properties: &Properties,
    path: &Path,
    conf_dir: &Path,
) -> Result<Option<PublisherFactory>, ServerError> {
    let config_error = |source: sluice_config::ConfigError| ServerError::Config {
        dir: conf_dir.to_path_buf(),
        source: Box::new(source),
    };
    match mode {
        ServerMode::Tcp => Ok(None),
        ServerMode::Kafka => {
            let settings = KafkaSettings::from_properties(properties_in_order(properties))
                .map_err(ServerError::Kafka)?;
            for w in &settings.warnings {
                tracing::warn!("{w}");
            }
            // A configuration librdkafka refuses stops the start, not a worker.
            KafkaPublisher::new("(check)", settings.clone(), None).map_err(ServerError::Kafka)?;
            Ok(Some(Arc::new(move |destination, route| {
                KafkaPublisher::new(destination, settings.clone(), route.partitions_num)
                    .map(|p| Box::new(p) as Box<dyn Publisher>)
                    .map_err(|e| e.to_string())
            })))
        }
        ServerMode::RabbitMq => {
            let settings =
                RabbitSettings::from_properties_at(path, properties).map_err(config_error)?;
            // Each destination has its own connection, made (and Canal's
            // queue and exchange declared) as its worker starts.
            Ok(Some(Arc::new(move |_destination, _route| {
                Ok(Box::new(RabbitPublisher::start(settings.clone())) as Box<dyn Publisher>)
            })))
        }
        ServerMode::Redis => {
            let settings =
                RedisSettings::from_properties_at(path, properties).map_err(config_error)?;
            // Each destination has its own connection, made on its first batch.
            Ok(Some(Arc::new(move |destination, _route| {
                Ok(Box::new(RedisPublisher::new(destination, settings.clone()))
                    as Box<dyn Publisher>)
            })))
        }
        ServerMode::Nats => {
            let settings =
                NatsSettings::from_properties_at(path, properties).map_err(config_error)?;
            // Each destination has its own connection, made (and the stream
            // created when missing) on its first batch.
            Ok(Some(Arc::new(move |destination, _route| {
                Ok(Box::new(NatsPublisher::new(destination, settings.clone()))
                    as Box<dyn Publisher>)
            })))
        }
        ServerMode::RocketMq | ServerMode::PulsarMq => Err(ServerError::UnsupportedServerMode {
            mode,
            at: format!(
                "{}:{}",
                path.display(),
                properties.get("canal.serverMode").map_or(0, |p| p.line)
            ),
        }),
    }
}

/// The keys of `canal.properties` with their values, in file order.
fn properties_in_order(properties: &Properties) -> impl Iterator<Item = (&str, &str)> {
    properties
        .order
        .iter()
        .filter_map(|k| properties.get(k).map(|p| (k.as_str(), p.value.as_str())))
}

/// `canal.mq.canalBatchSize`, `canal.mq.canalGetTimeout` and
/// `sluice.mq.inFlightBatches`.
fn worker_config(config: &MqServerConfig) -> WorkerConfig {
    WorkerConfig {
        in_flight: config.in_flight_batches.max(1),
        ..WorkerConfig::from_canal(
            config.canal_batch_size,
            i64::try_from(config.canal_get_timeout.as_millis()).unwrap_or(i64::MAX),
        )
    }
}

/// The routing of one destination: `canal.mq.*` of its
/// `instance.properties`, `canal.mq.flatMessage` and
/// `canal.mq.database.hash` of `canal.properties` (`server`).
pub(crate) fn route_config(instance: &InstanceConfig, server: &MqServerConfig) -> RouteConfig {
    RouteConfig {
        flat_message: server.flat_message,
        topic: instance.mq_topic.clone(),
        dynamic_topic: instance.mq_dynamic_topic.clone(),
        partition: instance.mq_partition,
        partitions_num: instance.mq_partitions_num,
        partition_hash: instance.mq_partition_hash.clone(),
        dynamic_topic_partition_num: instance.mq_dynamic_topic_partition_num.clone(),
        database_hash: server.database_hash,
        // Canal forces rawEntry off with FlatMessages; for protobuf records
        // it decides whether a batch goes out exactly as read.
        raw_entry: instance.memory_raw_entry,
        filter_transaction_entry: instance.filter_transaction_entry,
    }
}

/// Runs one worker per destination of `manager` until `stop`, then stops
/// them all (each acks what the broker confirmed before it ends); `mq` is
/// `canal.mq.*` of canal.properties.
pub(crate) async fn supervise(
    manager: Arc<InstanceManager>,
    factory: PublisherFactory,
    mq: MqServerConfig,
    status: Arc<MqStatus>,
    mut stop: watch::Receiver<bool>,
) {
    let worker = worker_config(&mq);
    let mut workers: HashMap<String, DestinationTask> = HashMap::new();
    let mut failed: HashMap<String, Instant> = HashMap::new();
    loop {
        // Stop the workers of destinations that stopped, went away or were
        // started again (a reload makes a new destination).
        let names: Vec<String> = workers.keys().cloned().collect();
        for name in names {
            let current = manager.destination_handle(&name);
            let keep = workers
                .get(&name)
                .is_some_and(|w| w.runs_on(current.as_ref()));
            if !keep {
                if let Some(w) = workers.remove(&name) {
                    tracing::info!(destination = %name, "stopping its MQ worker");
                    w.stop(&format!("MQ worker of {name}")).await;
                }
                status.remove(&name);
            }
        }
        for (name, _) in manager.states() {
            if workers.contains_key(&name)
                || failed
                    .get(&name)
                    .is_some_and(|at| at.elapsed() < PUBLISHER_RETRY)
            {
                continue;
            }
            let (Some(destination), Some(instance)) = (
                manager.destination_handle(&name),
                manager.instance_config(&name),
            ) else {
                continue;
            };
            let route = route_config(&instance, &mq);
            let router = match MqRouter::new(route.clone()) {
                Ok(r) => r,
                Err(error) => {
                    tracing::error!(destination = %name, %error, retry_in = ?PUBLISHER_RETRY, "the MQ routing of this destination is not valid; fix its instance.properties");
                    status.set(
                        &name,
                        "failed",
                        Some(format!("the MQ routing is not valid: {error}")),
                    );
                    failed.insert(name, Instant::now());
                    continue;
                }
            };
            let publisher = match factory(&name, &route) {
                Ok(p) => p,
                Err(error) => {
                    tracing::error!(destination = %name, %error, retry_in = ?PUBLISHER_RETRY, "cannot create the MQ publisher");
                    status.set(
                        &name,
                        "failed",
                        Some(format!("cannot create the MQ publisher: {error}")),
                    );
                    failed.insert(name, Instant::now());
                    continue;
                }
            };
            failed.remove(&name);
            let run = Worker::new(destination.clone(), router, publisher, worker.clone());
            let task_name = name.clone();
            let task_status = status.clone();
            status.set(&name, "publishing", None);
            let task = DestinationTask::spawn(destination, &name, |stop| async move {
                if let Err(e) = run.run(stop).await {
                    tracing::info!(destination = %task_name, reason = %e, "MQ worker ended");
                    task_status.set(&task_name, "ended", Some(e.to_string()));
                }
            });
            tracing::info!(destination = %name, "started its MQ worker");
            workers.insert(name, task);
        }
        tokio::select! {
            _ = tokio::time::sleep(SUPERVISE_PERIOD) => {}
            _ = stop.wait_for(|s| *s) => break,
        }
    }
    for (name, w) in workers {
        w.stop(&format!("MQ worker of {name}")).await;
    }
}
