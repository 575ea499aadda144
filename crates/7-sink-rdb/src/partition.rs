//! `threads`: a sink's rows applied over several target connections.
//!
//! Each change goes to the partition its target table and key hash to
//! (FNV-1a of the table's name and the key's values: the same on every
//! run and every version, so a key stays on its partition across
//! restarts), so the changes of one row keep their order. Rows of a table
//! without a key go to the first partition. Each partition applies its
//! share of a run of whole source transactions in a target transaction of
//! its own on its own connection, with its own position rows
//! (`sluice_sink_offsets.sink` = `SINK#p/N`), so each is exactly once on
//! its own: after a crash between two partitions' commits, each skips what
//! it applied ([`split`]). Between partitions there is no order: changes
//! of different rows may commit in another order than the source's (a
//! foreign key or a unique key other than the mapping's key may need one
//! connection).
//!
//! Positions stay tied to the partitioning: a change of `threads` is
//! taken only when every partition of the former layout stands at the same
//! position per mapping (a clean stop leaves them so), which the new
//! layout then starts from ([`relayout`]); otherwise the sink refuses to
//! start and says how to go back.

use std::collections::BTreeMap;

use sluice_binlog::BinlogPosition;

use crate::rows::is_after;
use crate::sql::{RowOp, TablePlan};
use crate::value::Param;

/// The names under which the partitions of `sink` keep their positions:
/// the sink's own name for one thread (as before `threads` was read),
/// `SINK#p/N` for each of `N > 1`.
pub fn partition_names(sink: &str, threads: usize) -> Vec<String> {
    if threads <= 1 {
        return vec![sink.to_string()];
    }
    (1..=threads)
        .map(|p| format!("{sink}#{p}/{threads}"))
        .collect()
}

/// Whether `name` holds positions of `sink` under some partitioning.
pub fn is_partition_of(name: &str, sink: &str) -> bool {
    name == sink || name.strip_prefix(sink).is_some_and(|r| r.starts_with('#'))
}

/// FNV-1a, 64 bits: a hash fixed by its definition, unlike the standard
/// library's, whose output may change between Rust versions (a row would
/// then move to another partition with another position).
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// The partition of `op` among `threads`.
pub fn partition_of(op: &RowOp, plans: &[TablePlan], threads: usize) -> usize {
    if threads <= 1 || op.key.is_empty() {
        return 0;
    }
    let mut h = Fnv::new();
    if let Some(plan) = plans.get(op.plan) {
        h.write(plan.table.as_bytes());
    }
    for k in &op.key {
        // A tag per kind, and the length, so that values cannot run into
        // each other.
        let (tag, bytes): (u8, &[u8]) = match k {
            Param::Null => (0, &[]),
            Param::Text(t) => (1, t.as_bytes()),
            Param::Bytes(b) => (2, b),
        };
        h.write(&[tag]);
        h.write(&(bytes.len() as u64).to_le_bytes());
        h.write(bytes);
    }
    (h.0 % threads as u64) as usize
}

/// The positions applied, per partition and mapping (`parts[p][slot]`),
/// and per mapping the least of them: a change after that one is for at
/// least one partition.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub parts: Vec<Vec<Option<BinlogPosition>>>,
    pub least: Vec<Option<BinlogPosition>>,
}

impl Applied {
    pub fn new(parts: Vec<Vec<Option<BinlogPosition>>>) -> Applied {
        let mut a = Applied {
            parts,
            least: Vec::new(),
        };
        a.update_least();
        a
    }

    /// Sets `least` again after `parts` changed.
    pub fn update_least(&mut self) {
        let slots = self.parts.first().map_or(0, Vec::len);
        self.least = (0..slots)
            .map(|s| {
                self.parts
                    .iter()
                    // `None` (nothing applied) orders first.
                    .map(|a| a.get(s).and_then(Option::as_ref))
                    .min()
                    .flatten()
                    .cloned()
            })
            .collect();
    }
}

/// `ops` cut into one run per partition of `applied`, in order, without
/// the changes a partition applied already. Snapshot rows go whatever the
/// positions.
pub fn split(ops: Vec<RowOp>, plans: &[TablePlan], applied: &Applied) -> Vec<Vec<RowOp>> {
    let threads = applied.parts.len().max(1);
    let mut out: Vec<Vec<RowOp>> = (0..threads).map(|_| Vec::new()).collect();
    if threads == 1 {
        out[0] = ops;
        return out;
    }
    for op in ops {
        let p = partition_of(&op, plans, threads);
        let slot = plans.get(op.plan).map_or(0, |plan| plan.slot);
        let mine = applied.parts[p].get(slot).and_then(Option::as_ref);
        // Changes after the least position were made for every partition;
        // one further on skips what it has.
        if !op.origin.snapshot
            && mine != applied.least.get(slot).and_then(Option::as_ref)
            && !is_after(&op.origin.position(), mine)
        {
            continue;
        }
        out[p].push(op);
    }
    out
}

/// What a sink's position rows ask before it applies with `current`
/// partitions.
#[derive(Debug, PartialEq)]
pub enum Layout {
    /// The rows are the current partitioning's (or there are none).
    Current,
    /// `threads` changed and the former partitions agree: their rows go,
    /// and each current partition starts at these positions per mapping.
    Relayout {
        former: Vec<String>,
        positions: BTreeMap<String, BinlogPosition>,
    },
}

/// Reads the position rows of `sink` (`(partition name, mapping,
/// position)`, every partitioning's) against the `current` partition names.
pub fn relayout(
    sink: &str,
    current: &[String],
    rows: &[(String, String, Option<BinlogPosition>)],
) -> Result<Layout, String> {
    let former: Vec<&(String, String, Option<BinlogPosition>)> = rows
        .iter()
        .filter(|(name, _, p)| {
            is_partition_of(name, sink) && !current.contains(name) && p.is_some()
        })
        .collect();
    if former.is_empty() {
        return Ok(Layout::Current);
    }
    let mut names: Vec<String> = former.iter().map(|(n, _, _)| n.clone()).collect();
    names.sort();
    names.dedup();
    if let Some((name, _, _)) = rows
        .iter()
        .find(|(name, _, p)| current.contains(name) && p.is_some())
    {
        return Err(format!(
            "sluice_sink_offsets holds positions of {sink} under two partitionings ({name} and {}): delete the rows of the one not in use",
            names.join(", ")
        ));
    }
    let mut positions: BTreeMap<String, BinlogPosition> = BTreeMap::new();
    for (name, mapping, p) in &former {
        let Some(p) = p else { continue };
        match positions.get(mapping) {
            None => {
                positions.insert(mapping.clone(), p.clone());
            }
            Some(q) if q == p => {}
            Some(q) => {
                return Err(format!(
                    "threads of {sink} changed to {}, but its former partitions ({}) stand at different positions for mapping {mapping} ({q} and {p} at {name}): a crash left them apart. Set threads back to {} and let the sink catch up (it brings every partition to the same position once the source is quiet), then change it",
                    current.len(),
                    names.join(", "),
                    names.len()
                ));
            }
        }
    }
    Ok(Layout::Relayout {
        former: names,
        positions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::{OpKind, Origin};

    fn op(key: &str, offset: i64) -> RowOp {
        RowOp {
            plan: 0,
            kind: OpKind::Upsert,
            columns: Vec::new(),
            values: Vec::new(),
            key: vec![Param::Text(key.into())],
            origin: Origin {
                file: "binlog.000001".into(),
                offset,
                ..Default::default()
            },
        }
    }

    #[test]
    fn one_thread_keeps_the_sinks_name_and_more_are_numbered() {
        assert_eq!(partition_names("d/g/k", 1), vec!["d/g/k"]);
        assert_eq!(
            partition_names("d/g/k", 3),
            vec!["d/g/k#1/3", "d/g/k#2/3", "d/g/k#3/3"]
        );
        assert!(is_partition_of("d/g/k#2/3", "d/g/k"));
        assert!(!is_partition_of("d/g/k2", "d/g/k"));
    }

    #[test]
    fn a_key_stays_on_its_partition_and_keys_spread() {
        let plans: Vec<TablePlan> = Vec::new();
        // Fixed by FNV-1a's definition: the same on every run and version.
        let first = partition_of(&op("42", 1), &plans, 4);
        assert_eq!(partition_of(&op("42", 99), &plans, 4), first);
        let mut seen = [0usize; 4];
        for k in 0..400 {
            seen[partition_of(&op(&k.to_string(), 1), &plans, 4)] += 1;
        }
        assert!(seen.iter().all(|&n| n > 50), "{seen:?}");
        let mut keyless = op("", 1);
        keyless.key.clear();
        assert_eq!(partition_of(&keyless, &plans, 4), 0);
    }

    #[test]
    fn a_partition_ahead_after_a_crash_skips_what_it_applied() {
        let plans: Vec<TablePlan> = Vec::new();
        let ops: Vec<RowOp> = (0..40).map(|k| op(&k.to_string(), 100 + k)).collect();
        let at = |o: u64| Some(BinlogPosition::new("binlog.000001", o));
        // Partition 1 committed up to offset 119, partition 0 did not.
        let applied = Applied::new(vec![vec![at(50)], vec![at(119)]]);
        assert_eq!(applied.least, vec![at(50)]);
        let parts = split(ops.clone(), &plans, &applied);
        assert!(parts[1].iter().all(|o| o.origin.offset > 119));
        let all_of_0 = ops
            .iter()
            .filter(|o| partition_of(o, &plans, 2) == 0)
            .count();
        assert_eq!(parts[0].len(), all_of_0);
        // Equal positions: nothing dropped.
        let parts = split(
            ops.clone(),
            &plans,
            &Applied::new(vec![vec![at(50)], vec![at(50)]]),
        );
        assert_eq!(parts[0].len() + parts[1].len(), ops.len());
    }

    #[test]
    fn threads_change_only_from_partitions_that_agree() {
        let at = |o: u64| Some(BinlogPosition::new("binlog.000001", o));
        let row = |n: &str, p| (n.to_string(), "m".to_string(), p);
        let two = partition_names("s", 2);
        // From one thread to two: the single position seeds both.
        let Layout::Relayout { former, positions } =
            relayout("s", &two, &[row("s", at(70))]).unwrap()
        else {
            panic!("no relayout");
        };
        assert_eq!(former, vec!["s"]);
        assert_eq!(positions["m"], BinlogPosition::new("binlog.000001", 70));
        // Already two: nothing to do (rows without a position do not count).
        let rows = [row("s#1/2", at(70)), row("s#2/2", at(80)), row("s", None)];
        assert_eq!(relayout("s", &two, &rows).unwrap(), Layout::Current);
        // From two that disagree to three: refused, naming the way back.
        let e = relayout("s", &partition_names("s", 3), &rows).unwrap_err();
        assert!(e.contains("Set threads back to 2"), "{e}");
        // Another sink's rows are not this one's.
        assert_eq!(
            relayout("s", &two, &[row("s2", at(5))]).unwrap(),
            Layout::Current
        );
    }
}
