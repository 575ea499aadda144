//! The initial snapshot's settings (`sluice.instance.snapshot.*`) and what
//! a destination does when its binlog is purged (`sluice.instance.onPurged`).

use std::time::Duration;

use crate::reader::Reader;
use crate::{ConfigError, Properties};

/// When a destination reads the existing rows of its tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SnapshotMode {
    /// Only changes from the start position on (Canal's behaviour).
    #[default]
    Never,
    /// Every table the filters keep, once, while streaming; resumed after
    /// a restart until it is finished.
    Initial,
}

/// What a destination does when the binlog it must resume from is no
/// longer on the source (purged): `sluice.instance.onPurged`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnPurged {
    /// Stop with an error naming the position, the oldest binlog the
    /// source has and the ways out.
    #[default]
    Fail,
    /// Read the filtered tables again (the initial snapshot) and stream
    /// from the end of the binlog: Debezium's `when_needed`.
    Snapshot,
    /// Skip to the end of the binlog, logged as a loss with the range
    /// skipped: Canal's `canal.auto.reset.latest.pos.mode = true`.
    Latest,
}

/// How the snapshot reads a table that has a key to chunk by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SnapshotReads {
    /// One SELECT in key order per table, in a consistent snapshot, cut
    /// into chunks as its rows come (a new SELECT after a restart, or
    /// when the stream touched many keys or the read grew old). The
    /// source reads no range condition per row: the fastest way.
    #[default]
    Scan,
    /// One SELECT per chunk (`key > a AND key <= b`), each in a snapshot
    /// of its own, `parallelism` chunks of a table at once: no
    /// transaction stays open longer than a chunk's read.
    Ranges,
}

/// The initial snapshot's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotSettings {
    pub mode: SnapshotMode,
    pub reads: SnapshotReads,
    /// How long one scan's transaction may stay open before the scan
    /// starts again after its last chunk (an open read view holds back
    /// the source's purge of old row versions).
    pub scan_max_age: Duration,
    /// Rows read per chunk (one SELECT, one entry).
    pub chunk_size: usize,
    /// Chunk SELECTs running at once on the source, across tables and
    /// within one (a large table's parts with `scan`, chunks read ahead
    /// with `ranges`); also the tables read at once. 4 by default, as
    /// mydumper's threads: with fewer, a reader waiting on its socket
    /// leaves the source's cores idle.
    pub parallelism: usize,
    /// Bytes the chunks read and not yet in the store may take together
    /// (`maxBufferBytes`, 64 MiB by default): a scan cuts its chunks by
    /// bytes as well as rows, and waits to read on while the chunks before
    /// hold this much.
    pub max_buffer_bytes: u64,
}

impl Default for SnapshotSettings {
    fn default() -> Self {
        SnapshotSettings {
            mode: SnapshotMode::Never,
            reads: SnapshotReads::Scan,
            scan_max_age: Duration::from_secs(60),
            chunk_size: 8192,
            parallelism: 4,
            max_buffer_bytes: 64 << 20,
        }
    }
}

/// `sluice.instance.onPurged`: `fail` (default), `snapshot` or `latest`.
pub(crate) fn on_purged(r: &Reader<'_>) -> Result<OnPurged, ConfigError> {
    r.choice(
        "sluice.instance.onPurged",
        OnPurged::Fail,
        &[
            ("fail", OnPurged::Fail),
            ("snapshot", OnPurged::Snapshot),
            ("latest", OnPurged::Latest),
        ],
    )
}

/// `sluice.instance.snapshot.*`; a count or time of 0 is refused at its line.
pub(crate) fn snapshot_settings(
    r: &Reader<'_>,
    props: &Properties,
) -> Result<SnapshotSettings, ConfigError> {
    let defaults = SnapshotSettings::default();
    let snapshot = SnapshotSettings {
        mode: r.choice(
            "sluice.instance.snapshot.mode",
            defaults.mode,
            &[
                ("never", SnapshotMode::Never),
                ("initial", SnapshotMode::Initial),
            ],
        )?,
        reads: r.choice(
            "sluice.instance.snapshot.reads",
            defaults.reads,
            &[
                ("scan", SnapshotReads::Scan),
                ("ranges", SnapshotReads::Ranges),
            ],
        )?,
        scan_max_age: Duration::from_secs(r.parse(
            "sluice.instance.snapshot.scanSeconds",
            defaults.scan_max_age.as_secs(),
            "expected seconds (1 or more)",
        )?),
        chunk_size: r.parse(
            "sluice.instance.snapshot.chunkSize",
            defaults.chunk_size,
            "expected a number of rows (1 or more)",
        )?,
        parallelism: r.parse(
            "sluice.instance.snapshot.parallelism",
            defaults.parallelism,
            "expected a number of tables read at once (1 or more)",
        )?,
        max_buffer_bytes: r.parse(
            "sluice.instance.snapshot.maxBufferBytes",
            defaults.max_buffer_bytes,
            "expected a number of bytes (1 or more)",
        )?,
    };
    for (key, n) in [
        ("sluice.instance.snapshot.chunkSize", snapshot.chunk_size),
        ("sluice.instance.snapshot.parallelism", snapshot.parallelism),
        (
            "sluice.instance.snapshot.maxBufferBytes",
            usize::try_from(snapshot.max_buffer_bytes).unwrap_or(usize::MAX),
        ),
        (
            "sluice.instance.snapshot.scanSeconds",
            snapshot.scan_max_age.as_secs() as usize,
        ),
    ] {
        if n == 0 {
            if let Some(p) = props.get(key) {
                return Err(r.bad(key, p, "expected 1 or more"));
            }
        }
    }
    Ok(snapshot)
}
