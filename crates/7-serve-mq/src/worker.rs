//! The MQ worker of one destination: Canal's embedded MQ client (clientId
//! 1001, empty filter) that gets a batch, routes it, publishes it and acks
//! it only once the broker confirmed every record.
//!
//! Several batches are in flight at once (`sluice.mq.inFlightBatches`,
//! default 8; Canal sends one and waits): while the broker confirms the
//! batches sent, the next is got, routed and sent behind them. Acks stay
//! strictly in order: a batch is acked only when it and every batch before
//! it are confirmed, and a failed batch rolls back every batch after the
//! last ack, so the broker sees them again in the same order.
//!
//! Failures never skip data. A batch that could not be published is rolled
//! back and read again after a backoff (100 ms doubling to 10 s), so the
//! broker sees it again, whole and in order: duplicates of an unconfirmed
//! batch, never a gap. A record the broker will never take as it is
//! ([`PublishError::TooLarge`]) holds the destination at that batch (Canal
//! retries it forever too): the worker says which table, position and size
//! at error level and tries again every [`TOO_LARGE_RETRY`], so raising the
//! broker's limit lets it go on; nothing is dropped.
//!
//! An ack goes through [`Destination::ack`], which hands the cursor to the
//! destination's cursor writer (group commit), and the worker goes on
//! sending while it is written: waiting for each write (an fdatasync, a
//! quarter of a millisecond here) before the next batch made every batch
//! wait for the disk in turn. The worker waits for the cursor to be
//! durable ([`Destination::durable`]) when a pass ends: caught up, failed
//! or stopped, so a clean stop leaves every ack on disk (or in ZooKeeper).
//! A crash replays at most the batches in flight and those acked since the
//! last cursor write: never a gap, a few batches twice.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sluice_encode::mq::{MqError, MqMessage, MqRouter};
use sluice_store::{ClientId, Destination, DestinationError, EntryBytes, GetWait, StoreError};
use tokio::sync::watch;

use crate::{BoxFuture, Confirmation, PublishError, Publisher};

/// The client id Canal's MQ mode reads with.
pub const MQ_CLIENT_ID: ClientId = 1001;

/// Pause after an empty batch (Canal's).
const EMPTY_BATCH_PAUSE: Duration = Duration::from_millis(100);

/// First retry delay after a failure; doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);

/// Longest retry delay after failures.
const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// How long a stop waits for the batch in flight to be confirmed.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// Retry period of a batch holding a record the broker refused as too large.
pub const TOO_LARGE_RETRY: Duration = Duration::from_secs(30);

/// The worker's settings (`canal.mq.*` of `canal.properties`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerConfig {
    /// `canal.mq.canalBatchSize` (default 50): the GET's fetch size.
    pub batch_size: usize,
    /// `canal.mq.canalGetTimeout` (default 100 ms): how long a GET waits
    /// for a full batch; `None` (a value ≤ 0) takes what is there.
    pub get_timeout: Option<Duration>,
    /// `sluice.mq.inFlightBatches` (default 8): batches sent and not yet
    /// confirmed at once.
    pub in_flight: usize,
}

impl Default for WorkerConfig {
    fn default() -> Self {
        WorkerConfig {
            batch_size: 50,
            get_timeout: Some(Duration::from_millis(100)),
            in_flight: 8,
        }
    }
}

impl WorkerConfig {
    /// From Canal's values: a fetch size and a timeout in ms (≤ 0: no wait).
    pub fn from_canal(batch_size: usize, get_timeout_ms: i64) -> WorkerConfig {
        WorkerConfig {
            batch_size: batch_size.max(1),
            get_timeout: u64::try_from(get_timeout_ms)
                .ok()
                .filter(|&ms| ms > 0)
                .map(Duration::from_millis),
            ..WorkerConfig::default()
        }
    }
}

/// Why a worker ended on its own.
#[derive(Debug, thiserror::Error)]
pub enum WorkerExit {
    /// The destination stopped on this server.
    #[error("destination {0} stopped")]
    DestinationStopped(String),
}

/// One destination's worker.
pub struct Worker {
    destination: Arc<dyn Destination>,
    router: MqRouter,
    publisher: Box<dyn Publisher>,
    config: WorkerConfig,
}

impl Worker {
    pub fn new(
        destination: Arc<dyn Destination>,
        router: MqRouter,
        publisher: Box<dyn Publisher>,
        config: WorkerConfig,
    ) -> Worker {
        // Keys hash every entry: only for a broker that uses them.
        let router = if publisher.uses_entries_keys() {
            router.with_entries_keys()
        } else {
            router
        };
        Worker {
            destination,
            router,
            publisher,
            config,
        }
    }

    /// Runs until `stop` turns true (`Ok`; the batches in flight are
    /// finished first if the broker confirms them within 5 s) or the
    /// destination stops.
    pub async fn run(mut self, mut stop: watch::Receiver<bool>) -> Result<(), WorkerExit> {
        let name = self.destination.name().to_string();
        let mut backoff = FIRST_BACKOFF;
        // Subscribing keeps the cursor the destination restored, if any.
        loop {
            if *stop.borrow() {
                return Ok(());
            }
            match self.destination.subscribe(MQ_CLIENT_ID, "") {
                Ok(()) => break,
                Err(e) if is_stopped(&e) => return Err(WorkerExit::DestinationStopped(name)),
                Err(e) => {
                    tracing::warn!(destination = %name, error = %e, retry_in = ?backoff, "MQ worker cannot subscribe");
                    if !pause(&mut stop, backoff).await {
                        return Ok(());
                    }
                    backoff = next_backoff(backoff);
                }
            }
        }
        // Batches a previous worker of this destination got and never
        // acked are sent again.
        rollback(&*self.destination, 0);
        tracing::info!(destination = %name, client = MQ_CLIENT_ID, in_flight = self.config.in_flight, "MQ worker publishing");
        let mut backoff = FIRST_BACKOFF;
        loop {
            if *stop.borrow() {
                return Ok(());
            }
            let (ended, acked) = self.pass(&mut stop).await?;
            if acked {
                backoff = FIRST_BACKOFF;
                cursor_durable(&*self.destination).await;
            }
            let wait = match ended {
                PassEnd::Stopped => return Ok(()),
                PassEnd::Idle => EMPTY_BATCH_PAUSE,
                PassEnd::RetryAfter(d) if d >= TOO_LARGE_RETRY => d,
                PassEnd::RetryAfter(_) => {
                    let d = backoff;
                    backoff = next_backoff(backoff);
                    d
                }
            };
            if !pause(&mut stop, wait).await {
                return Ok(());
            }
        }
    }

    /// Gets, routes and sends batches while the broker confirms the ones
    /// before (up to `in_flight` batches unconfirmed), and acks each batch
    /// once it and every batch before it are confirmed, in order. Ends when
    /// the source has nothing and nothing is in flight, when a batch failed
    /// (everything after the last ack is then rolled back: the failed batch
    /// and every later one go again, in order), or when told to stop (the
    /// batches in flight are settled first if the broker confirms them
    /// within [`STOP_GRACE`]). Also says whether a batch was acked.
    async fn pass(
        &mut self,
        stop: &mut watch::Receiver<bool>,
    ) -> Result<(PassEnd, bool), WorkerExit> {
        // Borrowed apart: the publisher is Send but not Sync, and a get
        // runs while the publisher sends.
        let Worker {
            destination,
            router,
            publisher,
            config,
        } = self;
        let destination: &dyn Destination = &**destination;
        let mut in_flight: VecDeque<InFlight> = VecDeque::new();
        let mut fetching: Option<BoxFuture<'_, Result<Fetched, WorkerExit>>> = None;
        let mut acked = false;
        // The last get found nothing: the next waits for a confirmation.
        let mut idle = false;
        loop {
            if fetching.is_none() && !idle && in_flight.len() < config.in_flight {
                fetching = Some(Box::pin(fetch(destination, router, config)));
            }
            if fetching.is_none() && in_flight.is_empty() {
                return Ok((PassEnd::Idle, acked));
            }
            let oldest = async {
                match in_flight.front_mut() {
                    Some(batch) => (&mut batch.confirmed).await,
                    None => std::future::pending().await,
                }
            };
            let next = async {
                match fetching.as_mut() {
                    Some(f) => f.await,
                    None => std::future::pending().await,
                }
            };
            let step = tokio::select! {
                biased;
                _ = stop.changed() => Step::Stop,
                c = oldest => Step::Confirmed(c),
                f = next => Step::Fetched(f),
            };
            match step {
                Step::Stop => {
                    // A get under way is dropped: what it took stays out
                    // until the next worker rolls it back.
                    drop(fetching.take());
                    stopping(destination, &mut in_flight, &mut acked).await;
                    return Ok((PassEnd::Stopped, acked));
                }
                Step::Confirmed(Ok(())) => {
                    if let Some(sent) = in_flight.pop_front() {
                        ack(destination, sent.batch.id);
                        acked = true;
                    }
                    idle = false;
                }
                Step::Confirmed(Err(e)) => {
                    let failed = in_flight.pop_front();
                    // A get under way ends first, so nothing it takes is
                    // left out after the rollback.
                    if let Some(f) = fetching.take() {
                        f.await?;
                    }
                    // The later batches may still reach the broker:
                    // consumers see them twice, never a gap.
                    in_flight.clear();
                    let end = match &failed {
                        Some(sent) => fail(destination, &sent.batch, &e),
                        None => PassEnd::RetryAfter(FIRST_BACKOFF),
                    };
                    return Ok((end, acked));
                }
                Step::Fetched(fetched) => {
                    fetching = None;
                    match fetched? {
                        Fetched::Ready(batch) => {
                            let sent = send_prepared(
                                destination,
                                publisher.as_mut(),
                                stop,
                                &mut in_flight,
                                &mut acked,
                                batch,
                            )
                            .await;
                            if let Some(end) = sent {
                                return Ok((end, acked));
                            }
                        }
                        Fetched::Empty => idle = true,
                        // Tried again with the backoff, once the batches
                        // in flight are settled.
                        Fetched::GetFailed => {
                            let end =
                                settle_then(destination, &mut in_flight, &mut acked, || {}).await;
                            return Ok((end, acked));
                        }
                        // Rolled back only once the batches before it are
                        // acked.
                        Fetched::Unroutable => {
                            let end = settle_then(destination, &mut in_flight, &mut acked, || {
                                rollback(destination, 0)
                            })
                            .await;
                            return Ok((end, acked));
                        }
                    }
                }
            }
        }
    }
}

/// How a [`Worker::pass`] ended.
enum PassEnd {
    /// Nothing to publish and nothing in flight.
    Idle,
    /// Everything after the last ack was rolled back; retry after this long.
    RetryAfter(Duration),
    /// Told to stop.
    Stopped,
}

/// What woke a pass.
enum Step {
    Stop,
    Confirmed(Result<(), PublishError>),
    Fetched(Result<Fetched, WorkerExit>),
}

/// A batch sent to the broker, as a failure of it is logged.
struct Batch {
    id: i64,
    records: usize,
    /// Where its first record's data comes from.
    origin: String,
}

/// A batch sent to the broker and not yet acked.
struct InFlight {
    batch: Batch,
    confirmed: Confirmation,
}

impl InFlight {
    /// A batch with nothing for the broker: confirmed already.
    fn confirmed(id: i64) -> InFlight {
        InFlight {
            batch: Batch {
                id,
                records: 0,
                origin: String::new(),
            },
            confirmed: crate::confirmed(),
        }
    }
}

/// Sends a batch got and routed, and puts it in flight (one with nothing
/// for the broker, only transaction boundaries, goes in confirmed: the
/// cursor moves in turn). `Some` ends the pass: told to stop (the batch is
/// not acked, so the next worker sends it again) or the send failed.
async fn send_prepared(
    destination: &dyn Destination,
    publisher: &mut dyn Publisher,
    stop: &mut watch::Receiver<bool>,
    in_flight: &mut VecDeque<InFlight>,
    acked: &mut bool,
    batch: Prepared,
) -> Option<PassEnd> {
    let id = batch.id;
    if batch.records.is_empty() {
        in_flight.push_back(InFlight::confirmed(id));
        return None;
    }
    let records: Arc<[MqMessage]> = batch.records.into();
    let sent = tokio::select! {
        biased;
        _ = stop.changed() => None,
        sent = publisher.send(records.clone()) => Some(sent),
    };
    let Some(sent) = sent else {
        stopping(destination, in_flight, acked).await;
        return Some(PassEnd::Stopped);
    };
    let batch = Batch {
        id,
        records: records.len(),
        origin: origin(&records),
    };
    match sent {
        Ok(confirmed) => {
            in_flight.push_back(InFlight { batch, confirmed });
            None
        }
        Err(e) => {
            if let Some((earlier, e)) = settle(destination, in_flight, acked).await {
                return Some(fail(destination, &earlier, &e));
            }
            Some(fail(destination, &batch, &e))
        }
    }
}

/// Settles the batches in flight, then (all of them confirmed and acked)
/// does `then` and ends the pass to retry after the backoff; a batch that
/// failed meanwhile ends it as that failure does instead.
async fn settle_then(
    destination: &dyn Destination,
    in_flight: &mut VecDeque<InFlight>,
    acked: &mut bool,
    then: impl FnOnce(),
) -> PassEnd {
    if let Some((batch, e)) = settle(destination, in_flight, acked).await {
        return fail(destination, &batch, &e);
    }
    then();
    PassEnd::RetryAfter(FIRST_BACKOFF)
}

/// Waits for the batches in flight in order, acking each one confirmed,
/// up to the first that failed: returned with its error (the batches
/// after it are dropped, to be rolled back).
async fn settle(
    destination: &dyn Destination,
    in_flight: &mut VecDeque<InFlight>,
    acked: &mut bool,
) -> Option<(Batch, PublishError)> {
    while let Some(mut sent) = in_flight.pop_front() {
        match (&mut sent.confirmed).await {
            Ok(()) => {
                ack(destination, sent.batch.id);
                *acked = true;
            }
            Err(e) => {
                in_flight.clear();
                return Some((sent.batch, e));
            }
        }
    }
    None
}

/// On a stop: the batches in flight are acked if the broker confirms them
/// within [`STOP_GRACE`], so a clean stop sends little twice.
async fn stopping(
    destination: &dyn Destination,
    in_flight: &mut VecDeque<InFlight>,
    acked: &mut bool,
) {
    let settled = tokio::time::timeout(STOP_GRACE, settle(destination, in_flight, acked)).await;
    if let Ok(Some((batch, e))) = settled {
        fail(destination, &batch, &e);
    }
}

/// Logs a failed batch and rolls back everything after the last ack: the
/// failed batch and every later one are got again, in order.
fn fail(destination: &dyn Destination, batch: &Batch, e: &PublishError) -> PassEnd {
    let name = destination.name();
    rollback(destination, batch.id);
    match e {
        PublishError::TooLarge { .. } => {
            tracing::error!(destination = %name, batch = batch.id, error = %e, retry_in = ?TOO_LARGE_RETRY, "MQ worker: the broker refuses a record as too large; the destination waits at this batch (nothing is skipped) until the broker or client limit is raised");
            PassEnd::RetryAfter(TOO_LARGE_RETRY)
        }
        PublishError::Retriable { .. } => {
            tracing::warn!(destination = %name, batch = batch.id, from = %batch.origin, records = batch.records, error = %e, "MQ worker: publishing failed; the batch and those after it are sent again");
            PassEnd::RetryAfter(FIRST_BACKOFF)
        }
    }
}

/// Where a batch's first record's data comes from.
fn origin(records: &[MqMessage]) -> String {
    records
        .first()
        .map(|r| r.origin.clone())
        .unwrap_or_default()
}

/// A batch got and routed, not yet published.
struct Prepared {
    id: i64,
    records: Vec<MqMessage>,
}

/// What a get and its routing gave.
enum Fetched {
    Ready(Prepared),
    /// No batch (nothing new within the get's wait).
    Empty,
    /// The get failed (logged); the batches out stay as they are.
    GetFailed,
    /// The batch cannot be turned into records (logged): everything out
    /// must be rolled back, once the batches before it are acked.
    Unroutable,
}

/// Gets the next batch and routes it.
async fn fetch(
    destination: &dyn Destination,
    router: &MqRouter,
    config: &WorkerConfig,
) -> Result<Fetched, WorkerExit> {
    let name = destination.name();
    let wait = match config.get_timeout {
        Some(d) => GetWait::AtMost(d),
        None => GetWait::NoWait,
    };
    let batch = match destination.get(MQ_CLIENT_ID, config.batch_size, wait).await {
        Ok(b) => b,
        Err(e) if is_stopped(&e) => return Err(WorkerExit::DestinationStopped(name.to_string())),
        Err(e) => {
            tracing::warn!(destination = %name, error = %e, "MQ worker: get failed");
            return Ok(Fetched::GetFailed);
        }
    };
    if batch.id < 0 {
        return Ok(Fetched::Empty);
    }
    match route(router, batch.id, batch.entries).await {
        Ok(records) => Ok(Fetched::Ready(Prepared {
            id: batch.id,
            records,
        })),
        Err(e) => {
            tracing::error!(destination = %name, batch = batch.id, error = %e, "MQ worker: a batch cannot be turned into records; held, retrying");
            Ok(Fetched::Unroutable)
        }
    }
}

/// Entries from which a batch's FlatMessages are built on two threads.
const SPLIT_AT_ENTRIES: usize = 4;

/// The records of a batch. FlatMessages are made entry by entry, so a
/// large batch is cut in two and the second half built on a blocking
/// thread while this task builds the first: turning entries back into rows
/// is most of an MQ worker's CPU. Each half keeps binlog order, and the
/// first half's records come first. Protobuf records group a batch's
/// entries per partition and are built whole.
async fn route(
    router: &MqRouter,
    batch_id: i64,
    mut entries: Vec<EntryBytes>,
) -> Result<Vec<MqMessage>, MqError> {
    let ts = now_ms();
    let mut records = Vec::new();
    if !router.config().flat_message || entries.len() < SPLIT_AT_ENTRIES {
        router.messages(batch_id, &entries, ts, &mut records)?;
        return Ok(records);
    }
    let second = entries.split_off(entries.len() / 2);
    let (other, half) = (router.clone(), second.clone());
    let built = tokio::task::spawn_blocking(move || {
        let mut records = Vec::new();
        other
            .messages(batch_id, &half, ts, &mut records)
            .map(|()| records)
    });
    let first = router.messages(batch_id, &entries, ts, &mut records);
    let built = built.await;
    first?;
    match built {
        Ok(more) => records.extend(more?),
        // The blocking thread panicked: build the half here, where the
        // same panic ends this worker and its supervisor starts another.
        Err(_) => router.messages(batch_id, &second, ts, &mut records)?,
    }
    Ok(records)
}

/// Acks a batch: its cursor is handed to the destination's cursor writer,
/// not waited for (see the module's notes); a failed write is reported when
/// the pass ends ([`cursor_durable`]), and the writer writes the latest
/// cursor again with the next ack.
fn ack(destination: &dyn Destination, batch_id: i64) {
    if let Err(e) = destination.ack(MQ_CLIENT_ID, batch_id) {
        tracing::warn!(destination = %destination.name(), batch = batch_id, error = %e, "MQ worker: ack refused");
    }
}

/// Waits until the cursor of the last ack is durable.
async fn cursor_durable(destination: &dyn Destination) {
    if let Err(e) = destination.durable().await {
        tracing::warn!(destination = %destination.name(), error = %e, "MQ worker: cursor not written; a restart replays from the last cursor written");
    }
}

/// Rolls back every unacked batch: the next get starts after the last ack.
fn rollback(destination: &dyn Destination, batch_id: i64) {
    if let Err(e) = destination.rollback(MQ_CLIENT_ID, 0) {
        tracing::warn!(destination = %destination.name(), batch = batch_id, error = %e, "MQ worker: rollback refused");
    }
}

/// Whether the destination's store is stopped (the instance stopped).
fn is_stopped(e: &DestinationError) -> bool {
    e.message == StoreError::Stopped.to_string()
}

/// Sleeps `d`; false when told to stop meanwhile.
async fn pause(stop: &mut watch::Receiver<bool>, d: Duration) -> bool {
    tokio::select! {
        _ = tokio::time::sleep(d) => !*stop.borrow(),
        _ = stop.changed() => false,
    }
}

fn next_backoff(d: Duration) -> Duration {
    (d * 2).min(MAX_BACKOFF)
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canal_get_timeout_of_zero_or_less_does_not_wait() {
        assert_eq!(WorkerConfig::from_canal(50, 0).get_timeout, None);
        assert_eq!(WorkerConfig::from_canal(50, -1).get_timeout, None);
        assert_eq!(
            WorkerConfig::from_canal(0, 100),
            WorkerConfig {
                batch_size: 1,
                get_timeout: Some(Duration::from_millis(100)),
                in_flight: 8,
            }
        );
    }

    #[test]
    fn backoff_doubles_up_to_ten_seconds() {
        let mut d = FIRST_BACKOFF;
        let mut seen = vec![d];
        for _ in 0..10 {
            d = next_backoff(d);
            seen.push(d);
        }
        assert_eq!(seen[1], Duration::from_millis(200));
        assert_eq!(*seen.last().unwrap(), MAX_BACKOFF);
    }
}
