//! The worker of one sink (a destination's `rdb` outer adapter): a store
//! client of its own that gets batches, cuts them into whole source
//! transactions and applies them in target transactions of about
//! `commitSize` rows, each together with its last binlog position
//! (`sluice_sink_offsets`, one row per mapping). It acks the store only after the target committed.
//!
//! Exactly once: on (re)connecting, the worker reads the positions from the
//! target and skips every entry at or before them. A crash before the
//! target's commit applies nothing and the store gives the batches again; a
//! crash after it and before the ack makes the store give them again too,
//! but their entries are at or before the committed position and are
//! skipped. Each target transaction locks the sink's positions first and
//! checks they are the ones this worker applied, so a second writer (a
//! killed server's last COMMIT still on its way) cannot make a change
//! apply twice either. Failures never skip data: the batches out are rolled back, the
//! connection is made again after a backoff (100 ms doubling to 10 s), and
//! the positions are read again.

use std::sync::Arc;
use std::time::Duration;

use sluice_store::{ClientId, Destination, DestinationError, EntryBytes, GetWait, StoreError};
use tokio::sync::watch;

use crate::config::{SchemaChanges, SinkConfig};
use crate::mirror::{self, MirrorAction, MirrorDdl};
use crate::partition::{partition_names, relayout, split, Applied, Layout};
use crate::rows::{boundary, is_after, ops_of_entry, read_entry, Boundary, Unmapped};
use crate::sql::{nearest_type, statements, TablePlan};
use crate::target::Target;
use sluice_binlog::BinlogPosition;

/// The store client id of a destination's first sink (`sluice.sink.clientId`);
/// its next sinks read as the ids after it.
pub const DEFAULT_CLIENT_ID: ClientId = 1101;

/// Entries of one get.
const FETCH_SIZE: usize = 1000;

/// How long a get waits for a full batch.
const GET_WAIT: Duration = Duration::from_millis(100);

/// Most rows in one statement (a run of changes to one table is cut into
/// statements of this many): keeps each statement's text and parameters
/// within a few hundred kilobytes.
const MAX_STATEMENT_ROWS: usize = 1000;

/// Pause after an empty get.
const EMPTY_PAUSE: Duration = Duration::from_millis(50);

/// Entries held waiting for the end of their source transaction; past
/// this, a transaction is applied in several target transactions (still
/// exactly once, no longer atomic in the target).
const MAX_PENDING_ENTRIES: usize = 50_000;

const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// How long a stop waits for the transaction in flight.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// Why a worker ended on its own.
#[derive(Debug, thiserror::Error)]
pub enum SinkExit {
    #[error("destination {0} stopped")]
    DestinationStopped(String),
    /// `sluice.sink.schemaChanges = stop` and a source table changed.
    #[error("{0}")]
    SchemaChanged(String),
}

/// Why an apply failed.
enum Failure {
    /// The target or the store: retried after a backoff.
    Retry(String),
    /// A schema change under `sluice.sink.schemaChanges = stop`.
    Stop(String),
}

impl From<String> for Failure {
    fn from(e: String) -> Self {
        Failure::Retry(e)
    }
}

/// One sink's worker.
pub struct SinkWorker {
    destination: Arc<dyn Destination>,
    config: SinkConfig,
    client: ClientId,
    /// The names its partitions keep their positions under (`threads`).
    partitions: Vec<String>,
}

/// Batches got and not yet acked, and their entries not yet applied.
#[derive(Default)]
struct Pending {
    /// Batch ids, how many of their entries are not applied yet, and
    /// whether the batch is to be acked (see [`Pending::push`]).
    batches: std::collections::VecDeque<(i64, usize, bool)>,
    entries: Vec<EntryBytes>,
    in_transaction: bool,
    /// Entries up to here are whole transactions.
    cut: usize,
    /// The position of the last entry taken.
    last: Option<BinlogPosition>,
}

impl Pending {
    /// Takes a batch. Entries at or before the last one taken are dropped:
    /// the destination served this client from a stream of its own from its
    /// cursor (it had fallen behind), so the batches got before are given
    /// again under new ids. Those older batches are then not acked (their
    /// ids mean nothing to the new stream); their entries are applied once.
    fn push(&mut self, id: i64, entries: Vec<EntryBytes>) -> Result<(), String> {
        let mut kept = 0;
        let mut again = false;
        for e in entries {
            let (b, position) = boundary(&read_entry(&e)?);
            if let Some(p) = position {
                if !is_after(&p, self.last.as_ref()) {
                    again = true;
                    continue;
                }
                self.last = Some(p);
            }
            kept += 1;
            self.entries.push(e);
            match b {
                Boundary::Begin => self.in_transaction = true,
                Boundary::End => {
                    self.in_transaction = false;
                    self.cut = self.entries.len();
                }
                Boundary::Other if !self.in_transaction => self.cut = self.entries.len(),
                Boundary::Other => {}
            }
        }
        if again {
            for b in &mut self.batches {
                b.2 = false;
            }
        }
        self.batches.push_back((id, kept, true));
        if self.entries.len() - self.cut > MAX_PENDING_ENTRIES {
            self.cut = self.entries.len();
        }
        Ok(())
    }

    /// Drops the first `n` entries (applied); the ids of the batches now
    /// wholly applied that are to be acked, in order.
    fn consume(&mut self, n: usize) -> Vec<i64> {
        self.entries.drain(..n);
        self.cut -= n;
        let mut left = n;
        let mut done = Vec::new();
        while let Some((id, count, ack)) = self.batches.front_mut() {
            if *count <= left {
                left -= *count;
                if *ack {
                    done.push(*id);
                }
                self.batches.pop_front();
            } else {
                *count -= left;
                break;
            }
        }
        done
    }
}

impl SinkWorker {
    pub fn new(destination: Arc<dyn Destination>, config: SinkConfig, client: ClientId) -> Self {
        let partitions = partition_names(&config.name(), config.threads);
        SinkWorker {
            destination,
            config,
            client,
            partitions,
        }
    }

    /// Runs until `stop` turns true or the destination stops.
    pub async fn run(self, mut stop: watch::Receiver<bool>) -> Result<(), SinkExit> {
        let name = self.destination.name().to_string();
        let sink = self.config.name();
        let mut backoff = FIRST_BACKOFF;
        loop {
            if *stop.borrow() {
                return Ok(());
            }
            match self.destination.subscribe(self.client, "") {
                Ok(()) => break,
                Err(e) if is_stopped(&e) => return Err(SinkExit::DestinationStopped(name)),
                Err(e) => {
                    tracing::warn!(%sink, error = %e, retry_in = ?backoff, "sink cannot subscribe");
                    if !pause(&mut stop, backoff).await {
                        return Ok(());
                    }
                    backoff = next_backoff(backoff);
                }
            }
        }
        let mut backoff = FIRST_BACKOFF;
        loop {
            if *stop.borrow() {
                return Ok(());
            }
            let session = self.session(&mut stop, &mut backoff);
            match session.await {
                Ok(Session::Stopped) => return Ok(()),
                Ok(Session::DestinationStopped) => return Err(SinkExit::DestinationStopped(name)),
                Ok(Session::SchemaChanged(message)) => {
                    tracing::error!(%sink, target = %self.config.target, "sink stopped: {message}");
                    rollback(&*self.destination, self.client);
                    return Err(SinkExit::SchemaChanged(message));
                }
                Err(e) => {
                    tracing::error!(%sink, target = %self.config.target, error = %e, retry_in = ?backoff, "sink: applying to the target failed; nothing is skipped, the changes are applied again from the position the target has");
                    rollback(&*self.destination, self.client);
                    if !pause(&mut stop, backoff).await {
                        return Ok(());
                    }
                    backoff = next_backoff(backoff);
                }
            }
        }
    }

    /// One connection's life: connect, read the positions, apply until an
    /// error or a stop.
    async fn session(
        &self,
        stop: &mut watch::Receiver<bool>,
        backoff: &mut Duration,
    ) -> Result<Session, String> {
        let sink = self.config.name();
        // One connection per partition (`threads`); the first also reads
        // the catalog and runs what is not rows.
        let partitions = &self.partitions;
        let mut targets = Vec::with_capacity(partitions.len());
        for _ in partitions {
            targets.push(Target::connect(&self.config.target).await?);
        }
        let target = &mut targets[0];
        target.prepare().await?;
        let mappings = &self.config.mappings;
        // One plan per table mapping; a mirror's tables get theirs as their
        // rows come (see crate::mirror).
        let mut plans = Vec::new();
        for (slot, m) in mappings.iter().enumerate().filter(|(_, m)| !m.mirror_db) {
            let info = target.table_info(m).await?;
            plans.push(TablePlan::new(m, info, target.kind(), slot)?);
        }
        let names: Vec<String> = mappings.iter().map(|m| m.name.clone()).collect();
        let rows = target.read_all_offsets(&sink).await?;
        if let Layout::Relayout { former, positions } = relayout(&sink, partitions, &rows)? {
            tracing::warn!(%sink, from = ?former, to = ?partitions, ?positions, "sink: threads changed; the former partitions agree, the new ones start where they stand");
            target
                .relayout_offsets(&former, partitions, &positions)
                .await?;
        }
        for name in partitions {
            target.ensure_offsets(name, &names).await?;
        }
        let rows = target.read_all_offsets(&sink).await?;
        // The position applied per partition and mapping (a plan's is
        // `applied.parts[partition][plan.slot]`).
        let mut applied = Applied::new(
            partitions
                .iter()
                .map(|name| {
                    names
                        .iter()
                        .map(|m| {
                            rows.iter()
                                .find(|(n, mapping, _)| n == name && mapping == m)
                                .and_then(|(_, _, p)| p.clone())
                        })
                        .collect()
                })
                .collect(),
        );
        // Source columns the target lacks, already logged (`log`).
        let mut logged: std::collections::HashSet<(usize, String)> = Default::default();
        // Batches got before and not acked come again, from the last ack.
        rollback(&*self.destination, self.client);
        tracing::info!(%sink, target = %self.config.target, client = self.client, threads = partitions.len(), applied = ?applied.parts.iter().map(|part| part.iter().map(|p| p.as_ref().map(ToString::to_string)).collect::<Vec<_>>()).collect::<Vec<_>>(), "sink applying");
        let mut pending = Pending::default();
        loop {
            if *stop.borrow() {
                return Ok(Session::Stopped);
            }
            let got = tokio::select! {
                g = self.destination.get(self.client, FETCH_SIZE, GetWait::AtMost(GET_WAIT)) => g,
                _ = stop.changed() => return Ok(Session::Stopped),
            };
            let batch = match got {
                Ok(b) => b,
                Err(e) if is_stopped(&e) => return Ok(Session::DestinationStopped),
                Err(e) => return Err(format!("getting a batch: {e}")),
            };
            if batch.id >= 0 {
                pending.push(batch.id, batch.entries)?;
            } else if pending.batches.is_empty() {
                tokio::select! {
                    _ = tokio::time::sleep(EMPTY_PAUSE) => {}
                    _ = stop.changed() => return Ok(Session::Stopped),
                }
                continue;
            }
            if pending.cut == 0 {
                continue;
            }
            let n = pending.cut;
            {
                let apply = self.apply(
                    &mut targets,
                    &mut plans,
                    &mut applied,
                    &mut logged,
                    &pending.entries[..n],
                );
                tokio::pin!(apply);
                tokio::select! {
                    r = &mut apply => match r {
                        Ok(()) => {}
                        Err(Failure::Retry(e)) => return Err(e),
                        Err(Failure::Stop(m)) => return Ok(Session::SchemaChanged(m)),
                    },
                    _ = stop.changed() => {
                        // The transaction in flight ends (and is acked) if
                        // it can soon; else the next start skips what it
                        // committed.
                        match tokio::time::timeout(STOP_GRACE, &mut apply).await {
                            Ok(Ok(())) => {}
                            _ => return Ok(Session::Stopped),
                        }
                    }
                }
            }
            for id in pending.consume(n) {
                ack(&*self.destination, self.client, id).await;
            }
            *backoff = FIRST_BACKOFF;
        }
    }

    /// Applies `entries` (whole transactions): in target transactions of
    /// about `commitSize` rows each, cut only between source transactions
    /// (one source transaction is never split, whatever its size), each
    /// with the position of its last entry.
    async fn apply(
        &self,
        targets: &mut [Target],
        plans: &mut Vec<TablePlan>,
        applied: &mut Applied,
        logged: &mut std::collections::HashSet<(usize, String)>,
        entries: &[EntryBytes],
    ) -> Result<(), Failure> {
        let kind = self.config.target.kind;
        let mut ops = Vec::new();
        let mut unmapped = Vec::new();
        let mut last: Option<BinlogPosition> = None;
        let mut in_transaction = false;
        // The ops and position at the end of the last whole transaction.
        let mut whole: (usize, Option<BinlogPosition>) = (0, None);
        let mirrors = self.config.mappings.iter().any(|m| m.mirror_db);
        for bytes in entries {
            let e = &read_entry(bytes)?;
            if mirrors {
                match mirror::action(e, &self.config.mappings, plans, &applied.least)? {
                    MirrorAction::None => {}
                    MirrorAction::NewTable { slot, mapping } => {
                        let info = targets[0].table_info(&mapping).await?;
                        plans.push(TablePlan::new(&mapping, info, kind, slot)?);
                    }
                    MirrorAction::Ddl(ddl) => {
                        // Every change before the DDL is in the target
                        // first, then the DDL, then its position.
                        self.commit(targets, plans, applied, std::mem::take(&mut ops), &last)
                            .await?;
                        self.run_ddl(&ddl).await?;
                        // The mirror's tables are read again as it left them.
                        plans.retain(|p| p.slot != ddl.slot);
                        logged.clear();
                        if let (_, Some(mut p)) = boundary(e) {
                            if p.gtid.is_none() {
                                p.gtid = last.as_ref().and_then(|l| l.gtid.clone());
                            }
                            last = Some(p);
                        }
                        self.commit(targets, plans, applied, Vec::new(), &last)
                            .await?;
                        whole = (0, last.clone());
                        continue;
                    }
                }
            }
            let before = ops.len();
            ops_of_entry(e, plans, &applied.least, kind, &mut ops, &mut unmapped)?;
            unmapped.retain(|u: &Unmapped| !logged.contains(&(u.plan, u.column.clone())));
            if !unmapped.is_empty() {
                let changed = self
                    .schema_changed(
                        &mut targets[0],
                        plans,
                        logged,
                        std::mem::take(&mut unmapped),
                    )
                    .await;
                if let Err(Failure::Stop(m)) = changed {
                    // What came before the change's transaction is applied.
                    ops.truncate(whole.0);
                    self.commit(targets, plans, applied, ops, &whole.1).await?;
                    return Err(Failure::Stop(m));
                }
                changed?;
                if self.config.schema_changes == SchemaChanges::Apply {
                    // The entry again, with the columns added.
                    ops.truncate(before);
                    ops_of_entry(e, plans, &applied.least, kind, &mut ops, &mut unmapped)?;
                    unmapped.clear();
                }
            }
            let (b, position) = boundary(e);
            if let Some(mut p) = position {
                if p.gtid.is_none() {
                    p.gtid = last.as_ref().and_then(|l| l.gtid.clone());
                }
                last = Some(p);
            }
            match b {
                Boundary::Begin => in_transaction = true,
                Boundary::End => in_transaction = false,
                Boundary::Other => {}
            }
            if !in_transaction {
                whole = (ops.len(), last.clone());
            }
            if !in_transaction && ops.len() >= self.config.commit_size {
                self.commit(targets, plans, applied, std::mem::take(&mut ops), &last)
                    .await?;
                whole.0 = 0;
            }
        }
        Ok(self.commit(targets, plans, applied, ops, &last).await?)
    }

    /// Runs a mirrored DDL on a connection of its own whose default
    /// database is the mirror's target database; a failure that says it ran
    /// before is logged and passed (see [`mirror::already_applied`]).
    async fn run_ddl(&self, ddl: &MirrorDdl) -> Result<(), String> {
        let sink = self.config.name();
        let url = crate::config::TargetUrl {
            database: ddl.target_db.clone(),
            ..self.config.target.clone()
        };
        let mut conn = Target::connect(&url).await?;
        match conn.execute_ddl(&ddl.sql).await {
            Ok(()) => {
                tracing::info!(%sink, database = %ddl.target_db, at = %ddl.origin, sql = %ddl.sql, "sink: mirrored DDL applied");
                Ok(())
            }
            Err((Some(code), message)) if mirror::already_applied(ddl.event, code) => {
                tracing::warn!(%sink, database = %ddl.target_db, at = %ddl.origin, sql = %ddl.sql, code, error = %message, "sink: mirrored DDL already in the target (applied before a restart, or made there by hand); passed");
                Ok(())
            }
            Err((code, message)) => Err(format!(
                "{}: mirrorDb: the DDL of {} cannot run in the target database {} ({url}): {message}{}: `{}`",
                self.config.mappings[ddl.slot].file.display(),
                ddl.origin,
                ddl.target_db,
                code.map(|c| format!(" (error {c})")).unwrap_or_default(),
                ddl.sql
            )),
        }
    }

    /// A source table of a `mapAll` mapping has columns its target table
    /// lacks: logs them, stops, or adds them to the target table and reads
    /// its columns again (`sluice.sink.schemaChanges`).
    async fn schema_changed(
        &self,
        target: &mut Target,
        plans: &mut [TablePlan],
        logged: &mut std::collections::HashSet<(usize, String)>,
        unmapped: Vec<Unmapped>,
    ) -> Result<(), Failure> {
        let sink = self.config.name();
        for u in &unmapped {
            let plan = &plans[u.plan];
            let at = format!(
                "{}: the source table {} has a column `{}` ({}) that the target table {} lacks (first row with it at {}:{})",
                plan.mapping.file.display(),
                u.origin.table,
                u.column,
                u.mysql_type,
                plan.table,
                u.origin.file,
                u.origin.offset,
            );
            match self.config.schema_changes {
                SchemaChanges::Log => {
                    tracing::warn!(%sink, "{at}; its values are not written (sluice.sink.schemaChanges = log)");
                    logged.insert((u.plan, u.column.clone()));
                }
                SchemaChanges::Stop => {
                    return Err(Failure::Stop(format!(
                        "{at}; sluice.sink.schemaChanges = stop: nothing from {}:{} on is applied. Add the column to the target table (or set schemaChanges to apply or log) and restart",
                        u.origin.file, u.origin.offset
                    )));
                }
                SchemaChanges::Apply => {
                    let Some(sql_type) = nearest_type(target.kind(), &u.mysql_type) else {
                        return Err(Failure::Retry(format!(
                            "{at}: `{}` is not a type that can be added",
                            u.mysql_type
                        )));
                    };
                    target
                        .add_column(&plan.table, &u.column, &sql_type)
                        .await
                        .map_err(|e| format!("{at}: adding it: {e}"))?;
                    tracing::info!(%sink, "{at}: added as {sql_type} (sluice.sink.schemaChanges = apply)");
                    let (mapping, slot) = (plan.mapping.clone(), plan.slot);
                    let info = target.table_info(&mapping).await?;
                    // Still counted under the same mapping's position.
                    plans[u.plan] = TablePlan::new(&mapping, info, target.kind(), slot)?;
                }
            }
        }
        Ok(())
    }

    /// One target transaction per partition (`threads`): its share of
    /// `ops`, and `last` as its position of every mapping it moves
    /// forward. The partitions commit side by side; every one is waited
    /// for, so the positions held here are the target's even when one
    /// fails.
    async fn commit(
        &self,
        targets: &mut [Target],
        plans: &[TablePlan],
        applied: &mut Applied,
        ops: Vec<crate::sql::RowOp>,
        last: &Option<BinlogPosition>,
    ) -> Result<(), String> {
        let kind = self.config.target.kind;
        let mappings = &self.config.mappings;
        let partitions = &self.partitions;
        let rows = ops.len();
        let shares = split(ops, plans, applied);
        let mut work = Vec::with_capacity(targets.len());
        for (p, (target, ops)) in targets.iter_mut().zip(shares).enumerate() {
            let mine = &applied.parts[p];
            // Positions only move forward: entries given again after a
            // restart were skipped and do not move them back. Snapshot rows
            // carry none.
            let moved: Vec<usize> = match last {
                Some(last) => (0..mine.len())
                    .filter(|&i| is_after(last, mine[i].as_ref()))
                    .collect(),
                None => Vec::new(),
            };
            if moved.is_empty() && ops.is_empty() {
                continue;
            }
            let offsets: Vec<(String, BinlogPosition)> = match last {
                Some(last) => moved
                    .iter()
                    .map(|&i| (mappings[i].name.clone(), last.clone()))
                    .collect(),
                None => Vec::new(),
            };
            let expected: Vec<(String, Option<BinlogPosition>)> = mappings
                .iter()
                .zip(mine.iter())
                .map(|(m, a)| (m.name.clone(), a.clone()))
                .collect();
            let statements = statements(
                kind,
                plans,
                &ops,
                MAX_STATEMENT_ROWS,
                self.config.postgres_upsert,
            );
            let name = &partitions[p];
            work.push(async move {
                let r = target.apply(statements, name, &offsets, &expected).await;
                (p, moved, r)
            });
        }
        let mut failed = None;
        for (p, moved, r) in futures_util::future::join_all(work).await {
            match r {
                Ok(()) => {
                    for i in moved {
                        applied.parts[p][i] = last.clone();
                    }
                }
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
        applied.update_least();
        if let Some(e) = failed {
            return Err(e);
        }
        tracing::debug!(sink = %self.config.name(), rows, to = ?last, "sink applied");
        Ok(())
    }
}

enum Session {
    Stopped,
    DestinationStopped,
    SchemaChanged(String),
}

/// Acks an applied batch and waits until its cursor is written (a cursor
/// not written only makes a restart give entries the target skips).
async fn ack(destination: &dyn Destination, client: ClientId, batch_id: i64) {
    if let Err(e) = destination.ack(client, batch_id) {
        tracing::warn!(destination = %destination.name(), batch = batch_id, error = %e, "sink: ack refused");
        return;
    }
    if let Err(e) = destination.durable().await {
        tracing::warn!(destination = %destination.name(), batch = batch_id, error = %e, "sink: cursor not written");
    }
}

fn rollback(destination: &dyn Destination, client: ClientId) {
    if let Err(e) = destination.rollback(client, 0) {
        tracing::warn!(destination = %destination.name(), error = %e, "sink: rollback refused");
    }
}

fn is_stopped(e: &DestinationError) -> bool {
    e.message == StoreError::Stopped.to_string()
}

async fn pause(stop: &mut watch::Receiver<bool>, d: Duration) -> bool {
    tokio::select! {
        _ = tokio::time::sleep(d) => !*stop.borrow(),
        _ = stop.changed() => false,
    }
}

fn next_backoff(d: Duration) -> Duration {
    (d * 2).min(MAX_BACKOFF)
}

#[cfg(test)]
mod tests {
    use prost::Message;
    use sluice_canal::proto::{Entry, EntryType, Header};

    use super::*;

    fn entry(kind: EntryType, offset: i64) -> EntryBytes {
        let e = Entry {
            header: Some(Header {
                logfile_name: Some("binlog.000001".into()),
                logfile_offset: Some(offset),
                ..Default::default()
            }),
            entry_type: Some(kind as i32),
            store_value: None,
        };
        e.encode_to_vec().into()
    }

    #[test]
    fn batches_are_cut_after_whole_transactions_and_acked_once_applied() {
        use EntryType::{RowData, TransactionBegin as B, TransactionEnd as E};
        let mut p = Pending::default();
        // A transaction across two batches: nothing to apply after the first.
        p.push(1, vec![entry(B, 10), entry(RowData, 20)]).unwrap();
        assert_eq!(p.cut, 0);
        p.push(2, vec![entry(RowData, 30), entry(E, 40), entry(B, 50)])
            .unwrap();
        assert_eq!(p.cut, 4);
        // Batch 1 is wholly applied, batch 2 still holds an entry.
        assert_eq!(p.consume(4), vec![1]);
        assert_eq!((p.entries.len(), p.cut), (1, 0));
        p.push(3, vec![entry(RowData, 60), entry(E, 70)]).unwrap();
        assert_eq!(p.cut, 3);
        assert_eq!(p.consume(3), vec![2, 3]);
        assert!(p.batches.is_empty());
    }

    #[test]
    fn entries_given_again_by_a_new_stream_are_taken_once_and_old_batches_not_acked() {
        use EntryType::{RowData, TransactionBegin as B, TransactionEnd as E};
        let mut p = Pending::default();
        p.push(1, vec![entry(B, 10), entry(RowData, 20)]).unwrap();
        // The destination now serves from the cursor again, under new ids.
        p.push(
            7,
            vec![
                entry(B, 10),
                entry(RowData, 20),
                entry(RowData, 30),
                entry(E, 40),
            ],
        )
        .unwrap();
        assert_eq!((p.entries.len(), p.cut), (4, 4));
        assert_eq!(p.consume(4), vec![7]);
    }

    #[test]
    fn snapshot_rows_at_one_binlog_point_are_all_taken() {
        let snapshot = || {
            let e = Entry {
                header: Some(Header {
                    logfile_name: Some("binlog.000001".into()),
                    logfile_offset: Some(100),
                    props: vec![sluice_canal::proto::Pair::new("snapshot", "true")],
                    ..Default::default()
                }),
                entry_type: Some(EntryType::RowData as i32),
                store_value: None,
            };
            EntryBytes::from(e.encode_to_vec())
        };
        let mut p = Pending::default();
        p.push(1, vec![snapshot(), snapshot()]).unwrap();
        p.push(2, vec![snapshot()]).unwrap();
        assert_eq!((p.entries.len(), p.cut), (3, 3));
        assert_eq!(p.consume(3), vec![1, 2]);
    }

    #[test]
    fn entries_outside_transactions_are_cut_each() {
        let mut p = Pending::default();
        p.push(
            1,
            vec![entry(EntryType::RowData, 10), entry(EntryType::RowData, 20)],
        )
        .unwrap();
        assert_eq!(p.cut, 2);
    }

    #[test]
    fn positions_order_by_file_number_then_offset() {
        let at = BinlogPosition::new;
        assert!(is_after(
            &at("binlog.1000000", 4),
            Some(&at("binlog.999999", 900))
        ));
        assert!(!is_after(
            &at("binlog.000002", 100),
            Some(&at("binlog.000002", 100))
        ));
        assert!(is_after(
            &at("binlog.000002", 101),
            Some(&at("binlog.000002", 100))
        ));
        assert!(is_after(&at("binlog.000001", 4), None));
        // After a failover, the new server's smaller file numbers come after.
        let after_failover = at("binlog.000001", 4).in_epoch(1);
        assert!(is_after(&after_failover, Some(&at("binlog.000009", 900))));
        assert!(!is_after(&at("binlog.000009", 900), Some(&after_failover)));
    }

    /// An entry of the `epoch`-th server followed.
    fn entry_in_epoch(kind: EntryType, file: &str, offset: i64, epoch: u32) -> EntryBytes {
        let e = Entry {
            header: Some(Header {
                logfile_name: Some(file.into()),
                logfile_offset: Some(offset),
                props: vec![sluice_canal::proto::Pair::new(
                    sluice_canal::view::SOURCE_EPOCH_PROP,
                    epoch.to_string(),
                )],
                ..Default::default()
            }),
            entry_type: Some(kind as i32),
            store_value: None,
        };
        e.encode_to_vec().into()
    }

    #[test]
    fn entries_of_a_new_server_after_a_failover_are_taken_whatever_their_files() {
        use EntryType::{RowData, TransactionBegin as B, TransactionEnd as E};
        let mut p = Pending::default();
        let old = |kind, offset| entry_in_epoch(kind, "binlog.000007", offset, 0);
        let new = |kind, offset| entry_in_epoch(kind, "binlog.000002", offset, 1);
        p.push(1, vec![old(B, 500), old(RowData, 600), old(E, 700)])
            .unwrap();
        p.push(2, vec![new(B, 100), new(RowData, 200), new(E, 300)])
            .unwrap();
        assert_eq!((p.entries.len(), p.cut), (6, 6), "none taken for a repeat");
        assert_eq!(p.consume(6), vec![1, 2]);
        // A repeat on the new server is still one.
        p.push(3, vec![new(B, 100), new(RowData, 200), new(E, 300)])
            .unwrap();
        assert!(p.entries.is_empty());
    }
}
