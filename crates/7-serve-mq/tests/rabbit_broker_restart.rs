//! A RabbitMQ broker that goes away while batches are being published: the
//! publisher reports a retriable error, connects again by itself once the
//! broker is back, and every batch it confirmed is still in the queue.

mod rabbit_support;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{ensure, Context, Result};
use sluice_serve_mq::rabbit::RabbitPublisher;
use sluice_serve_mq::{PublishError, Publisher};
use sluice_testkit::RabbitMq;

use rabbit_support::{consume, queue_len, record, seq_of, settings};

const PER_BATCH: usize = 50;

/// The pause between two confirmed batches: a steady stream, not a flood.
const BATCH_PAUSE: Duration = Duration::from_millis(50);

/// How long the broker runs with the queue before the outage.
const SETTLE: Duration = Duration::from_secs(3);

/// How a publisher loop ended.
struct Run {
    /// Batches confirmed, in order: batch b holds seqs b*PER_BATCH.. .
    confirmed: usize,
    /// The errors it saw, in order.
    errors: Vec<PublishError>,
    /// Batches that were sent again after an error.
    retried: BTreeSet<usize>,
}

/// Publishes numbered batches the way the MQ worker does (a failed batch is
/// sent again after a pause) until `done` is set and `after_done` more
/// batches are confirmed.
async fn publish_until(
    mut publisher: RabbitPublisher,
    confirmed: Arc<AtomicUsize>,
    done: Arc<AtomicBool>,
    after_done: usize,
) -> Run {
    let mut errors = Vec::new();
    let mut retried = BTreeSet::new();
    let mut batch = 0;
    let mut confirmed_at_done = None;
    loop {
        let records: Vec<_> = (batch * PER_BATCH..(batch + 1) * PER_BATCH)
            .map(|seq| record("example", "shop.orders", seq))
            .collect();
        match publisher.publish(&records).await {
            Ok(()) => {
                batch += 1;
                confirmed.store(batch, Ordering::SeqCst);
                tokio::time::sleep(BATCH_PAUSE).await;
            }
            Err(e) => {
                errors.push(e);
                retried.insert(batch);
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
        if done.load(Ordering::SeqCst) {
            let at = *confirmed_at_done.get_or_insert(batch);
            if batch >= at + after_done {
                return Run {
                    confirmed: batch,
                    errors,
                    retried,
                };
            }
        }
    }
}

/// Waits until `counter` reaches `target`.
async fn wait_for(counter: &AtomicUsize, target: usize) -> Result<()> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while counter.load(Ordering::SeqCst) < target {
        ensure!(
            tokio::time::Instant::now() < deadline,
            "only {} of {target} batches confirmed within 60 s",
            counter.load(Ordering::SeqCst)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Runs a publisher while `outage` takes the broker down and brings it
/// back, then checks the queue holds every confirmed record in order.
async fn survive(broker: Arc<RabbitMq>, outage: fn(&RabbitMq) -> Result<()>) -> Result<Run> {
    let publisher = RabbitPublisher::connect(settings(&broker, "rabbitmq.queue = example\n")?)
        .await
        .context("connecting the publisher")?;
    let held_before = queue_len(&broker, "example").await? as usize;
    ensure!(held_before == 0, "the queue is not empty: {held_before}");
    let confirmed = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let run = tokio::spawn(publish_until(publisher, confirmed.clone(), done.clone(), 5));

    wait_for(&confirmed, 5).await?;
    // Killed within a second or so of declaring the queue, RabbitMQ 3.10
    // sometimes comes back without it (its definition had not reached the
    // disk), so without any of its messages, confirmed or not: the broker's
    // own window, not what this test is about. So the queue lives a while
    // first, and publishing goes on meanwhile.
    tokio::time::sleep(SETTLE).await;
    let at_outage = confirmed.load(Ordering::SeqCst);
    let b = broker.clone();
    tokio::task::spawn_blocking(move || outage(&b))
        .await
        .context("the outage task panicked")??;
    done.store(true, Ordering::SeqCst);
    let run = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .context("the publisher did not recover within 120 s")?
        .context("the publisher task panicked")?;
    eprintln!(
        "{} batches confirmed ({at_outage} before the outage), {} errors, first: {:?}",
        run.confirmed,
        run.errors.len(),
        run.errors.first()
    );

    ensure!(
        !run.errors.is_empty(),
        "no publish failed while the broker was down"
    );
    for e in &run.errors {
        ensure!(
            matches!(e, PublishError::Retriable { .. }),
            "not retriable: {e:?}"
        );
    }
    ensure!(run.confirmed >= at_outage + 5);

    // Nothing confirmed is lost; a batch sent again may be there twice
    // (in part or whole), but never out of order.
    let held = queue_len(&broker, "example").await? as usize;
    let confirmed_records = run.confirmed * PER_BATCH;
    ensure!(
        held >= confirmed_records,
        "the queue holds {held} messages, {confirmed_records} were confirmed"
    );
    let deliveries = consume(&broker, "example", held).await?;
    let mut seen = BTreeSet::new();
    let mut highest_new = None;
    for d in &deliveries {
        let seq = seq_of(&d.data)?;
        if seen.insert(seq) {
            ensure!(
                highest_new.is_none_or(|h| seq == h + 1),
                "record {seq} arrived after {highest_new:?}: a gap or reordering"
            );
            highest_new = Some(seq);
        } else {
            ensure!(
                run.retried.contains(&(seq / PER_BATCH)),
                "record {seq} is duplicated but its batch was never sent again"
            );
        }
    }
    ensure!(
        seen.len() == confirmed_records,
        "{} distinct records in the queue, {confirmed_records} confirmed",
        seen.len()
    );
    Ok(run)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rabbit_broker_killed_mid_publish_then_restarted_loses_nothing_confirmed() -> Result<()> {
    let broker = Arc::new(RabbitMq::start()?);
    survive(broker, |b| {
        b.kill()?;
        std::thread::sleep(Duration::from_secs(1));
        b.restart()
    })
    .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rabbit_broker_stopped_mid_publish_then_restarted_loses_nothing_confirmed() -> Result<()> {
    let broker = Arc::new(RabbitMq::start()?);
    survive(broker, |b| {
        b.stop()?;
        std::thread::sleep(Duration::from_secs(1));
        b.restart()
    })
    .await?;
    Ok(())
}
