//! A TABLE_MAP_EVENT body and a rows event body (layout in
//! `sluice_binlog_fuzz::RowsInput`) through the `Decoder`, then every row,
//! every cell and every rendered value.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(input) = sluice_binlog_fuzz::RowsInput::parse(data) {
        input.decode();
    }
});
