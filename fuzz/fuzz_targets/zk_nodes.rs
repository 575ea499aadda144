//! What a server reads back from ZooKeeper, where any process of the
//! ensemble (or an operator) may have written anything: `running` nodes of
//! servers and clients, cursor JSON, and schema-history record nodes and
//! reassembled frames.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = sluice_ha::RunningInfo::from_json(data);
    let _ = sluice_ha::ServerRunningData::from_json(data);
    let _ = sluice_ha::ClientRunningData::from_json(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = sluice_canal::LogPosition::from_json(text);
    }
    let _ = sluice_ha::schema_history::read_node(data);
    let _ = sluice_ha::schema_history::read_frame(data);
});
