//! A task bound to one run of a destination: the MQ workers and the sink
//! workers each read a destination's store as a client, and each must end
//! when that run ends (the destination stops, is released, or reloads,
//! which makes a new destination). Their supervisors keep these.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use sluice_instance::destination::InstanceDestination;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How often a supervisor compares its tasks with the destinations.
pub(crate) const SUPERVISE_PERIOD: Duration = Duration::from_millis(200);

/// A task reading one run of a destination, and how to stop it.
pub(crate) struct DestinationTask {
    destination: Arc<InstanceDestination>,
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl DestinationTask {
    /// Spawns `run(stop)` in the destination's log span (so lines of the
    /// clients it uses carry the destination too).
    pub(crate) fn spawn<F, Fut>(
        destination: Arc<InstanceDestination>,
        destination_name: &str,
        run: F,
    ) -> DestinationTask
    where
        F: FnOnce(watch::Receiver<bool>) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let (stop, stop_rx) = watch::channel(false);
        let span = sluice_instance::manager::destination_span(destination_name);
        let task = tokio::spawn(tracing::Instrument::instrument(run(stop_rx), span));
        DestinationTask {
            destination,
            stop,
            task,
        }
    }

    /// Whether it still runs on `current`, the destination's run now.
    pub(crate) fn runs_on(&self, current: Option<&Arc<InstanceDestination>>) -> bool {
        current.is_some_and(|d| Arc::ptr_eq(d, &self.destination)) && !self.task.is_finished()
    }

    /// Asks it to stop and waits until it has; `what` names it in the log
    /// if its task failed.
    pub(crate) async fn stop(self, what: &str) {
        let _ = self.stop.send(true);
        if let Err(e) = self.task.await {
            tracing::error!(task = %what, error = %e, "the task failed");
        }
    }
}
