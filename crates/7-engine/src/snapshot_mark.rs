//! Where an initial snapshot is, as the offsets of the records delivered
//! while it runs carry it: shared by the records' offsets and the snapshot's
//! reader.

use crate::SourceOffset;

/// Where the snapshot is, as the offsets of the records delivered while it
/// runs carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SnapshotMark {
    /// The table being read (`db.table`); `None`: from the first table.
    pub table: Option<String>,
    /// The key of its last row delivered (hex values, comma-separated);
    /// `None`: from the table's start.
    pub last_key: Option<String>,
}

impl SnapshotMark {
    /// Puts the mark into `offset`.
    pub fn apply(&self, offset: &mut SourceOffset) {
        offset.snapshot = Some("INITIAL".into());
        offset.snapshot_table = self.table.clone();
        offset.snapshot_last_key = self.last_key.clone();
    }

    /// The mark of a stored offset, if the snapshot had not ended.
    pub fn of(offset: &SourceOffset) -> Option<SnapshotMark> {
        (offset.snapshot.as_deref() == Some("INITIAL")).then(|| SnapshotMark {
            table: offset.snapshot_table.clone(),
            last_key: offset.snapshot_last_key.clone(),
        })
    }
}
