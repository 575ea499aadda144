//! The snapshot's progress made visible and durable: confirmed as the
//! consumers ack, persisted with the cursors, logged and published as gauges.

use super::*;

pub(super) fn log_progress(ctx: &SnapshotContext, started: Instant) {
    let Some(p) = ctx.state.progress() else {
        return;
    };
    let done = p.rows_done();
    let estimated = p.rows_estimated().max(done);
    let secs = started.elapsed().as_secs_f64().max(0.001);
    let rate = done as f64 / secs;
    let eta = if rate > 0.0 {
        format!("{:.0}s", (estimated - done) as f64 / rate)
    } else {
        "unknown".to_string()
    };
    tracing::info!(
        destination = %ctx.name,
        rows_done = done,
        rows_estimated = estimated,
        rows_per_second = rate as u64,
        eta = %eta,
        tables_done = p.tables_done(),
        tables = p.table_count(),
        "initial snapshot: progress"
    );
}

/// Confirms what the consumers acked and persists the progress if it moved.
pub(super) async fn confirm_and_persist(ctx: &SnapshotContext) {
    let acked = ctx.destination.store().acked_by_all();
    if ctx.state.confirm(acked) {
        persist_or_warn(ctx).await;
    }
}

/// The progress as Prometheus gauges: rows done (acked) and estimated,
/// tables done and in all.
pub(super) fn publish_gauges(ctx: &SnapshotContext) {
    let Some(p) = ctx.state.progress() else {
        return;
    };
    let d = ctx.name.clone();
    metrics::gauge!("sluice_snapshot_rows_done", "destination" => d.clone())
        .set(p.rows_done() as f64);
    metrics::gauge!("sluice_snapshot_rows_estimated", "destination" => d.clone())
        .set(p.rows_estimated().max(p.rows_done()) as f64);
    metrics::gauge!("sluice_snapshot_tables_done", "destination" => d.clone())
        .set(p.tables_done() as f64);
    metrics::gauge!("sluice_snapshot_tables", "destination" => d).set(p.table_count() as f64);
}

/// Persists the progress; a failure only means a restart reads more again.
pub(super) async fn persist_or_warn(ctx: &SnapshotContext) {
    publish_gauges(ctx);
    if let Err(e) = persist(ctx).await {
        tracing::warn!(destination = %ctx.name, error = %e, "initial snapshot: cannot persist its progress; a restart now would read again the chunks since the last write");
    }
}

pub(super) async fn persist(ctx: &SnapshotContext) -> Result<(), SnapshotError> {
    let _one_at_a_time = ctx.state.persisting.lock().await;
    let Some(progress) = ctx.state.progress() else {
        return Ok(());
    };
    let destination = ctx.destination.clone();
    let saved = tokio::task::spawn_blocking(move || destination.persist_snapshot(&progress)).await;
    match saved {
        Ok(Ok(())) => Ok(()),
        Ok(Err(source)) => Err(SnapshotError::Progress {
            destination: ctx.name.clone(),
            source,
        }),
        Err(j) if j.is_panic() => std::panic::resume_unwind(j.into_panic()),
        Err(_) => Err(SnapshotError::StreamGone),
    }
}
