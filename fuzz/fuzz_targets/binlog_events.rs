//! Events after a real FORMAT_DESCRIPTION_EVENT: the first input byte picks
//! one of `FORMATS` (MySQL 5.0–9.x, MariaDB; CRC32, NONE, pre-checksum),
//! the rest follows the magic and that FDE. Checksums are not verified, so
//! mutations reach the event decoders rather than stopping at the CRC.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, events)) = data.split_first() else {
        return;
    };
    let prefix = sluice_binlog_fuzz::file_prefix(selector);
    let mut file = Vec::with_capacity(prefix.len() + events.len());
    file.extend_from_slice(prefix);
    file.extend_from_slice(events);
    sluice_binlog_fuzz::walk_unverified(&file);
});
