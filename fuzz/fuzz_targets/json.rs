//! MySQL binary JSON: rendering arbitrary bytes, and applying a partial
//! update diff to a before image (layout in `sluice_binlog_fuzz::json_input`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    sluice_binlog_fuzz::json_input(data);
});
