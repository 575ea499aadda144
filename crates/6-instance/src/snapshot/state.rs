//! What a destination's snapshot shares between its reader tasks, the stream
//! and the runs of the instance: the progress (as persisted, plus chunks
//! delivered since), each table's next key, and the tables asked for on demand.
//! Never reads the source or the store.

use super::*;

/// What the snapshot of one destination shares between its reader tasks,
/// the stream and the runs of the instance.
#[derive(Debug, Default)]
pub struct SnapshotState {
    pub windows: Windows,
    pub(super) live: Mutex<Live>,
    /// One write of the progress at a time, the latest state last.
    pub(super) persisting: tokio::sync::Mutex<()>,
    /// Tables asked for on demand (`schema`, `table`), not yet taken into
    /// the progress; `wake` tells the stream to start a snapshot for them.
    pub(super) requested: Mutex<Vec<(String, String)>>,
    /// Every table the filters keep is asked for (the binlog to resume
    /// from was purged, see `sluice.instance.onPurged`).
    pub(super) every_table: std::sync::atomic::AtomicBool,
    pub wake: tokio::sync::Notify,
}

#[derive(Debug, Default)]
pub(super) struct Live {
    /// As persisted (confirmed chunks), plus chunks delivered since.
    pub(super) progress: Option<SnapshotProgress>,
    /// Per table (or part of a table): where the next chunk starts (after
    /// the last delivered one) as raw key values, and the store sequence
    /// of each pending chunk (`None`: nothing was put, done at once).
    pub(super) tables: HashMap<PartKey, TableLive>,
}

#[derive(Debug, Default)]
pub(super) struct TableLive {
    pub(super) next_from: Option<Vec<Vec<u8>>>,
    /// The part's last key (raw values), included; `None`: to the table's
    /// end.
    pub(super) up_to: Option<Vec<Vec<u8>>>,
    pub(super) delivered_all: bool,
    pub(super) pending_seqs: Vec<Option<u64>>,
}

/// A key as the server sent its values (text protocol), one per key column.
pub(super) type RawKey = Vec<Vec<u8>>;

/// What one reader reads: a whole table (part 0), or one key range of a
/// large table read in parts at once (see [`split_large_tables`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct PartKey {
    pub(super) schema: String,
    pub(super) table: String,
    pub(super) part: u32,
}

impl PartKey {
    pub(super) fn of(t: &TableProgress) -> PartKey {
        PartKey {
            schema: t.schema.clone(),
            table: t.table.clone(),
            part: t.part,
        }
    }

    pub(super) fn is_of(&self, schema: &str, table: &str) -> bool {
        self.schema == schema && self.table == table
    }

    pub(super) fn qualified(&self) -> String {
        format!("{}.{}", self.schema, self.table)
    }
}

impl SnapshotState {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The progress as it stands (for the admin API and tests).
    pub fn progress(&self) -> Option<SnapshotProgress> {
        self.lock().progress.clone()
    }

    /// The server's row estimate of `schema.table` in the progress (0 when
    /// unknown), over all its parts.
    pub(super) fn rows_estimated(&self, schema: &str, table: &str) -> u64 {
        self.lock().progress.as_ref().map_or(0, |p| {
            p.tables
                .iter()
                .filter(|t| t.schema == schema && t.table == table)
                .map(|t| t.rows_estimated)
                .sum()
        })
    }

    /// Asks for a snapshot of these tables (read again from their start
    /// when they were read before), beside the stream, whatever the
    /// configured mode: Debezium's incremental snapshot on demand.
    pub fn request(&self, tables: Vec<(String, String)>) {
        {
            let mut requested = self.requested.lock().unwrap_or_else(|p| p.into_inner());
            for t in tables {
                if !requested.contains(&t) {
                    requested.push(t);
                }
            }
        }
        self.wake.notify_one();
    }

    /// Asks for every table the destination's filters keep, read again
    /// beside the stream.
    pub fn request_every_table(&self) {
        self.every_table
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.wake.notify_one();
    }

    /// Whether tables were asked for and not yet taken into the progress.
    pub fn has_requests(&self) -> bool {
        self.every_table.load(std::sync::atomic::Ordering::SeqCst)
            || !self
                .requested
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .is_empty()
    }

    /// The tables (and parts) of the progress not yet read to their end,
    /// in order.
    pub(super) fn to_read(&self) -> Vec<PartKey> {
        let live = self.lock();
        let Some(progress) = &live.progress else {
            return Vec::new();
        };
        progress
            .tables
            .iter()
            .filter(|t| !t.done)
            .map(PartKey::of)
            .filter(|key| live.tables.get(key).is_none_or(|l| !l.delivered_all))
            .collect()
    }

    /// Whether every table of the progress is done (read, delivered and
    /// acked); true without tables.
    pub(super) fn all_confirmed(&self) -> bool {
        self.lock()
            .progress
            .as_ref()
            .is_none_or(|p| p.tables.iter().all(|t| t.done))
    }

    pub(super) fn take_requests(&self) -> Vec<(String, String)> {
        std::mem::take(&mut *self.requested.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Takes the tables asked for into the progress: each is read (again)
    /// from its start. Returns whether any was taken.
    pub(super) fn take_requests_into_progress(
        &self,
        keeps: &TableKeep,
        estimates: &HashMap<(String, String), u64>,
    ) -> bool {
        if self
            .every_table
            .swap(false, std::sync::atomic::Ordering::SeqCst)
        {
            let mut every: Vec<(String, String)> = estimates
                .keys()
                .filter(|(schema, table)| !is_system_schema(schema) && keeps(schema, table))
                .cloned()
                .collect();
            every.sort();
            self.request(every);
        }
        let requested = self.take_requests();
        if requested.is_empty() {
            return false;
        }
        let mut live = self.lock();
        let Live { progress, tables } = &mut *live;
        let progress = progress.get_or_insert_with(SnapshotProgress::default);
        let mut taken = false;
        for (schema, table) in requested {
            if !keeps(&schema, &table) {
                tracing::warn!(table = %format_args!("{schema}.{table}"), "snapshot asked for a table the destination's filters leave out; skipped");
                continue;
            }
            if tables.iter().any(|(k, t)| {
                k.is_of(&schema, &table) && (!t.delivered_all || !t.pending_seqs.is_empty())
            }) {
                // Being read now: this read is as new as the one asked for.
                continue;
            }
            let fresh = TableProgress {
                schema: schema.clone(),
                table: table.clone(),
                rows_estimated: estimates
                    .get(&(schema.clone(), table.clone()))
                    .copied()
                    .unwrap_or(0),
                ..Default::default()
            };
            // One entry in place of its parts, where the first one was.
            let of_it = |t: &TableProgress| t.schema == schema && t.table == table;
            match progress.tables.iter().position(of_it) {
                Some(at) => {
                    progress.tables.retain(|t| !of_it(t));
                    progress.tables.insert(at, fresh);
                }
                None => progress.tables.push(fresh),
            }
            tables.retain(|k, _| !k.is_of(&schema, &table));
            tables.insert(
                PartKey {
                    schema,
                    table,
                    part: 0,
                },
                TableLive::default(),
            );
            taken = true;
        }
        taken
    }

    /// Moves the chunks every consumer acked (store sequence below
    /// `acked`) from pending to done; returns whether anything moved.
    pub(super) fn confirm(&self, acked: u64) -> bool {
        let mut live = self.lock();
        let Live { progress, tables } = &mut *live;
        let Some(progress) = progress.as_mut() else {
            return false;
        };
        let mut moved = false;
        for t in progress.tables.iter_mut() {
            let Some(tl) = tables.get_mut(&PartKey::of(t)) else {
                continue;
            };
            while let (Some(seq), false) = (tl.pending_seqs.first().copied(), t.pending.is_empty())
            {
                if seq.is_some_and(|s| s >= acked) {
                    break;
                }
                tl.pending_seqs.remove(0);
                let chunk = t.pending.remove(0);
                t.rows_done += chunk.rows;
                if chunk.up_to.is_some() {
                    t.done_up_to = chunk.up_to;
                }
                if chunk.last {
                    t.done = true;
                }
                moved = true;
            }
        }
        moved
    }
}

/// A persisted key (hex values) as raw values.
pub(super) fn persisted_key(hex: Option<&Vec<String>>) -> Result<Option<RawKey>, String> {
    let Some(hex) = hex else {
        return Ok(None);
    };
    hex.iter()
        .map(|h| from_hex(h))
        .collect::<Option<Vec<_>>>()
        .map(Some)
        .ok_or_else(|| format!("persisted key {hex:?} is not hex"))
}
