//! What a destination does when the binlog it resumes from is no longer on
//! the source (`sluice.instance.onPurged`).

use super::*;

/// The position asked for and the oldest the source has, when `e` says the
/// binlog to resume from is no longer on the source.
pub(super) fn purged(e: &sluice_source::SourceError) -> Option<(&str, &str)> {
    match e {
        sluice_source::SourceError::PositionPurged {
            requested, oldest, ..
        } => Some((requested, oldest)),
        sluice_source::SourceError::ReconnectsExhausted { last, .. } => purged(last),
        _ => None,
    }
}

/// What `sluice.instance.onPurged` says to do now that the binlog at
/// `requested` is gone: the next run starts at the end of the binlog (and,
/// with `snapshot`, the filtered tables are read again beside it), or the
/// error that stops the destination, with the ways out.
pub(super) fn on_purged(
    name: &str,
    config: &InstanceConfig,
    progress: &RunProgress,
    snapshot: &SnapshotState,
    requested: &str,
    oldest: &str,
) -> Result<(), String> {
    use sluice_config::OnPurged;
    crate::metrics::binlog_purged(name, config.on_purged);
    match config.on_purged {
        OnPurged::Fail => Err(format!(
            "the binlog this destination resumes from ({requested}) is no longer on the source, whose oldest binlog is {oldest}: the changes in between cannot be read, so the destination stops. \
             Ways out: (1) read the tables again and stream from the end: set sluice.instance.onPurged = snapshot in {name}/instance.properties and start it again; \
             (2) accept the loss: set sluice.instance.onPurged = latest (or canal.auto.reset.latest.pos.mode = true), or stop it and move each client's cursor with `sluice admin reset-cursor {name} CLIENT_ID --position FILE:4 --confirm {name}` to a binlog the source has, then `sluice admin start {name}`"
        )),
        OnPurged::Latest => {
            tracing::warn!(destination = name, from = requested, oldest, "the binlog to resume from is no longer on the source: skipping to its end (sluice.instance.onPurged = latest); the changes from there to the end are lost");
            progress.jump_to_end(requested);
            Ok(())
        }
        OnPurged::Snapshot => {
            tracing::warn!(destination = name, from = requested, oldest, "the binlog to resume from is no longer on the source: reading the filtered tables again and streaming from its end (sluice.instance.onPurged = snapshot)");
            progress.jump_to_end(requested);
            snapshot.request_every_table();
            Ok(())
        }
    }
}
