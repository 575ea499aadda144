//! Arbitrary bytes as a whole binlog file: framing (magic, headers, lengths,
//! CRC32), every event body, every row, every cell, every rendered value.
//! Errors must name an offset inside the input and the event.
#![no_main]

use std::ops::ControlFlow;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    sluice_binlog_fuzz::limit_inflation();
    let len = data.len() as u64;
    let result = sluice_binlog::walk_file("fuzz", data, |at, raw, ev| {
        assert!(
            at.pos < at.next_pos && at.next_pos <= len,
            "position out of range"
        );
        assert!(raw.bytes.len() >= raw.body.len());
        sluice_binlog_fuzz::exercise(ev);
        ControlFlow::Continue(())
    });
    if let Err(e) = result {
        assert!(e.offset <= len, "error offset {} past the end", e.offset);
        assert!(!e.event.is_empty(), "error names no event");
        std::hint::black_box(e.to_string());
    }
});
