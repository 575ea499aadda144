//! JSON text to MySQL binary JSON: encoding any text never panics; what
//! encodes renders, and its rendering encodes to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut bin = Vec::new();
    if sluice_binlog::encode_json(text, &mut bin).is_err() {
        assert!(bin.is_empty(), "output left as it was on error");
        return;
    }
    let mut shown = String::new();
    sluice_binlog::json::render_json(&bin, &mut shown).expect("an encoded document renders");
    let mut again = Vec::new();
    sluice_binlog::encode_json(&shown, &mut again).expect("its rendering encodes");
    assert_eq!(again, bin, "{shown}");
});
