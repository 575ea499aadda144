//! Canal entries of the store into row changes for the target tables, and
//! the binlog positions that say what was applied.

use sluice_binlog::BinlogPosition;
use sluice_canal::proto::{EntryType, EventType};
use sluice_canal::view::{ColumnView, EntryView, RowChangeView};

use crate::config::TargetKind;
use crate::sql::{entry_position, OpKind, Origin, RowOp, TablePlan};
use crate::value::{convert, Param};

/// Whether `position` comes after `applied` (nothing applied: yes), in
/// the order of [`BinlogPosition`]: the source's epoch (entries read after
/// a failover carry theirs), file number, then offset.
pub fn is_after(position: &BinlogPosition, applied: Option<&BinlogPosition>) -> bool {
    applied.is_none_or(|a| position > a)
}

/// What an entry means for the cut into whole transactions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Boundary {
    Begin,
    End,
    Other,
}

/// An entry's boundary kind and position: `None` for entries without one
/// (heartbeats) and for rows of an initial snapshot, which all carry the
/// binlog point they were read at and so cannot be ordered by it (they are
/// applied whenever given, see [`ops_of_entry`]).
pub fn boundary(e: &EntryView<'_>) -> (Boundary, Option<BinlogPosition>) {
    let b = match e.entry_type {
        Some(t) if t == EntryType::TransactionBegin as i32 => Boundary::Begin,
        Some(t) if t == EntryType::TransactionEnd as i32 => Boundary::End,
        _ => Boundary::Other,
    };
    // The entry's GTID text is kept when it reads as a GTID state; the sink
    // resumes by file and offset, the GTID is recorded for people.
    let position = (!e.header.logfile_name.is_empty() && !e.header.snapshot).then(|| {
        entry_position(e.header.logfile_name, e.header.logfile_offset)
            .in_epoch(e.header.source_epoch)
            .with_gtid(e.header.gtid.parse().ok())
    });
    (b, position)
}

/// A store entry, read once for everything the sink asks of it.
pub fn read_entry(bytes: &[u8]) -> Result<EntryView<'_>, String> {
    EntryView::parse(bytes).map_err(|e| format!("a store entry cannot be read: {e}"))
}

/// A source column that a `mapAll` mapping's target table lacks (a column
/// added to the source table), as its first row carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmapped {
    /// Index of the [`TablePlan`].
    pub plan: usize,
    pub column: String,
    /// Canal's `mysqlType` of it (`varchar(64)`, `int(11) unsigned`, …).
    pub mysql_type: String,
    pub origin: Origin,
}

/// Appends the row changes of one entry to `out`: for every plan of its
/// table whose applied position (`applied[plan.slot]`) is before the entry; and
/// to `unmapped` the columns of its first row that a `mapAll` plan has no
/// target column for.
pub fn ops_of_entry(
    e: &EntryView<'_>,
    plans: &[TablePlan],
    applied: &[Option<BinlogPosition>],
    kind: TargetKind,
    out: &mut Vec<RowOp>,
    unmapped: &mut Vec<Unmapped>,
) -> Result<(), String> {
    if e.entry_type != Some(EntryType::RowData as i32) {
        return Ok(());
    }
    let h = &e.header;
    let position = entry_position(h.logfile_name, h.logfile_offset).in_epoch(h.source_epoch);
    let origin = || Origin::of(h);
    let targets: Vec<usize> = plans
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            p.mapping.database == h.schema_name
                && p.mapping.table == h.table_name
                // Snapshot rows are upserts of rows as read: applying one
                // again after a restart changes nothing.
                && (h.snapshot || is_after(&position, applied.get(p.slot).and_then(Option::as_ref)))
        })
        .map(|(i, _)| i)
        .collect();
    if targets.is_empty() {
        return Ok(());
    }
    let change = RowChangeView::parse(e.store_value)
        .map_err(|err| format!("{}: the row change cannot be read: {err}", origin()))?;
    if change.is_ddl == Some(true) {
        // DDL is not applied to targets: the user keeps target tables.
        return Ok(());
    }
    let event = change.event_type.or(h.event_type);
    let event = match event {
        Some(t) if t == EventType::Insert as i32 => EventType::Insert,
        Some(t) if t == EventType::Update as i32 => EventType::Update,
        Some(t) if t == EventType::Delete as i32 => EventType::Delete,
        _ => return Ok(()),
    };
    for (r, row) in change.rows().enumerate() {
        let before = read(row.before(), &origin)?;
        let after = read(row.after(), &origin)?;
        if r == 0 {
            let image = if after.is_empty() { &before } else { &after };
            for &p in &targets {
                let plan = &plans[p];
                if !plan.mapping.map_all {
                    continue;
                }
                for c in image {
                    if plan.target_of(c.name).is_none() {
                        unmapped.push(Unmapped {
                            plan: p,
                            column: c.name.to_string(),
                            mysql_type: c.mysql_type.to_string(),
                            origin: origin(),
                        });
                    }
                }
            }
        }
        for &p in &targets {
            let plan = &plans[p];
            let image = |cols: &[ColumnView<'_>]| mapped(plan, cols, kind);
            let key_of = |m: &Mapped| -> Result<Vec<Param>, String> { key(plan, m, &origin()) };
            if plan.key.is_empty() {
                // A keyless table (see sql::TablePlan): an update is the
                // delete of the row as it was and the insert of the new one.
                if event != EventType::Insert && !before.is_empty() {
                    let (columns, values) = image(&before).into_iter().unzip();
                    out.push(RowOp {
                        columns,
                        values,
                        ..delete(p, Vec::new(), origin())
                    });
                }
                if event != EventType::Delete {
                    out.push(upsert(p, image(&after), Vec::new(), origin()));
                }
                continue;
            }
            match event {
                EventType::Insert => {
                    let a = image(&after);
                    let k = key_of(&a)?;
                    out.push(upsert(p, a, k, origin()));
                }
                EventType::Delete => {
                    let b = image(&before);
                    let k = key_of(&b)?;
                    out.push(delete(p, k, origin()));
                }
                _ => {
                    let a = image(&after);
                    let ka = key_of(&a)?;
                    if !before.is_empty() {
                        let kb = key_of(&image(&before))?;
                        // A changed key: the old row goes, the new one comes.
                        if kb != ka {
                            out.push(delete(p, kb, origin()));
                        }
                    }
                    out.push(upsert(p, a, ka, origin()));
                }
            }
        }
    }
    Ok(())
}

fn read<'a>(
    cols: sluice_canal::view::Columns<'a>,
    origin: &dyn Fn() -> Origin,
) -> Result<Vec<ColumnView<'a>>, String> {
    cols.collect::<Result<Vec<_>, _>>()
        .map_err(|err| format!("{}: a row cannot be read: {err}", origin()))
}

/// Target column indexes (ascending) and their values.
pub(crate) type Mapped = Vec<(usize, Param)>;

fn mapped(plan: &TablePlan, cols: &[ColumnView<'_>], kind: TargetKind) -> Mapped {
    let mut m: Mapped = Vec::with_capacity(cols.len());
    for c in cols {
        let Some(t) = plan.target_of(c.name) else {
            continue;
        };
        let class = plan.columns[t].class;
        m.push((
            t,
            convert(c.value, c.is_null, c.mysql_type, c.sql_type, class, kind),
        ));
    }
    m.sort_by_key(|(t, _)| *t);
    m.dedup_by_key(|(t, _)| *t);
    m
}

pub(crate) fn key(plan: &TablePlan, m: &Mapped, origin: &Origin) -> Result<Vec<Param>, String> {
    plan.key
        .iter()
        .map(|&k| {
            m.iter()
                .find(|(t, _)| *t == k)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| {
                    format!(
                        "{origin}: the row has no value for the key column {} of {} ({})",
                        plan.columns[k].name,
                        plan.table,
                        plan.mapping.file.display()
                    )
                })
        })
        .collect()
}

pub(crate) fn upsert(plan: usize, m: Mapped, key: Vec<Param>, origin: Origin) -> RowOp {
    let (columns, values) = m.into_iter().unzip();
    RowOp {
        plan,
        kind: OpKind::Upsert,
        columns,
        values,
        key,
        origin,
    }
}

fn delete(plan: usize, key: Vec<Param>, origin: Origin) -> RowOp {
    RowOp {
        plan,
        kind: OpKind::Delete,
        columns: Vec::new(),
        values: Vec::new(),
        key,
        origin,
    }
}
