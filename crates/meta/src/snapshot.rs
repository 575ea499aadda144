//! How far a destination's initial snapshot has come, persisted beside its
//! cursors (`snapshot.json` in the destination's folder, or a node in
//! ZooKeeper), so a restart or a take-over resumes the snapshot at the chunk
//! it stopped in instead of starting over.
//!
//! A chunk counts as done only once the consumers' cursors have moved past
//! the binlog position it was delivered at: until then it is pending, and a
//! restart reads it again (a newer version of the same rows, never an older
//! one).

use serde::{Deserialize, Serialize};
use sluice_canal::EntryPosition;

/// The snapshot of one destination.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotProgress {
    /// The tables the snapshot covers, in the order it reads them; a large
    /// table read in parts at once has an entry per part, one after the
    /// other.
    pub tables: Vec<TableProgress>,
}

impl SnapshotProgress {
    /// Every table read and confirmed.
    pub fn finished(&self) -> bool {
        !self.tables.is_empty() && self.tables.iter().all(|t| t.done)
    }

    /// The first entry of `schema.table` (its only one unless it is read in
    /// parts).
    pub fn table(&self, schema: &str, table: &str) -> Option<&TableProgress> {
        self.tables
            .iter()
            .find(|t| t.schema == schema && t.table == table)
    }

    /// The entry of one part of `schema.table` (0 for a table read whole).
    pub fn part_mut(&mut self, schema: &str, table: &str, part: u32) -> Option<&mut TableProgress> {
        self.tables
            .iter_mut()
            .find(|t| t.schema == schema && t.table == table && t.part == part)
    }

    /// Tables (not parts) the snapshot covers.
    pub fn table_count(&self) -> usize {
        self.tables.iter().filter(|t| t.part == 0).count()
    }

    /// Tables every part of which is done.
    pub fn tables_done(&self) -> usize {
        self.tables
            .iter()
            .filter(|t| t.part == 0)
            .filter(|first| {
                self.tables
                    .iter()
                    .filter(|t| t.schema == first.schema && t.table == first.table)
                    .all(|t| t.done)
            })
            .count()
    }

    /// Rows confirmed, over all tables.
    pub fn rows_done(&self) -> u64 {
        self.tables.iter().map(|t| t.rows_done).sum()
    }

    /// The server's estimate of all rows (`information_schema.TABLES`).
    pub fn rows_estimated(&self) -> u64 {
        self.tables.iter().map(|t| t.rows_estimated).sum()
    }
}

/// One table's progress, or one part's of a table read in parts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TableProgress {
    pub schema: String,
    pub table: String,
    /// Which part of the table this is (from 0): a large table is cut into
    /// key ranges read at once, each on a connection of its own. 0 and no
    /// bounds: the whole table.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub part: u32,
    /// The part's rows are those whose key comes after this one (hex
    /// values, as `done_up_to`); `None`: from the first row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_after: Option<Vec<String>>,
    /// ... and up to this one, included; `None`: to the last row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_up_to: Option<Vec<String>>,
    /// The key of the last row of the last confirmed chunk (one value per
    /// key column, hex of the bytes the server sent); `None` before the
    /// first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub done_up_to: Option<Vec<String>>,
    /// Every chunk confirmed.
    #[serde(default)]
    pub done: bool,
    #[serde(default)]
    pub rows_done: u64,
    #[serde(default)]
    pub rows_estimated: u64,
    /// Chunks delivered and not yet confirmed, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<PendingChunk>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A chunk delivered at `delivered_at`, waiting for the cursors to pass it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingChunk {
    /// The key of its last row (hex values); `None` with `last` for an
    /// empty last chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub up_to: Option<Vec<String>>,
    /// The table's last chunk.
    pub last: bool,
    pub rows: u64,
    /// The binlog position its rows were delivered at.
    pub delivered_at: EntryPosition,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_of_a_table_read_whole_reads_as_before_and_parts_round_trip() {
        // Written before tables were read in parts: one entry, part 0.
        let old: SnapshotProgress = serde_json::from_str(
            r#"{"tables":[{"schema":"s","table":"t","doneUpTo":["3132"],"rowsDone":12,"rowsEstimated":40}]}"#,
        )
        .unwrap();
        let t = &old.tables[0];
        assert_eq!((t.part, &t.part_after, &t.part_up_to), (0, &None, &None));
        // A table whole writes no part fields.
        let text = serde_json::to_string(&old).unwrap();
        assert!(!text.contains("part"), "{text}");

        let part = |n: u32, after: Option<&str>, up_to: Option<&str>, done: bool| TableProgress {
            schema: "s".into(),
            table: "t".into(),
            part: n,
            part_after: after.map(|k| vec![k.to_string()]),
            part_up_to: up_to.map(|k| vec![k.to_string()]),
            done,
            ..Default::default()
        };
        let mut split = SnapshotProgress {
            tables: vec![
                part(0, None, Some("35"), true),
                part(1, Some("35"), None, false),
                TableProgress {
                    schema: "s".into(),
                    table: "u".into(),
                    done: true,
                    ..Default::default()
                },
            ],
        };
        let text = serde_json::to_string(&split).unwrap();
        assert!(text.contains(r#""part":1,"partAfter":["35"]"#), "{text}");
        assert_eq!(
            serde_json::from_str::<SnapshotProgress>(&text).unwrap(),
            split
        );
        // Tables, not parts, are counted; a table is done with all its parts.
        assert_eq!((split.table_count(), split.tables_done()), (2, 1));
        split.part_mut("s", "t", 1).unwrap().done = true;
        assert_eq!(split.tables_done(), 2);
        assert!(split.finished());
    }
}
