//! MySQL binary JSON built from JSON text (`encode_json`), checked two ways:
//!
//! * `round_trip`: many documents, encoded and rendered back with
//!   `render_json`, give the text MySQL prints for them; encoding that text
//!   again gives the same bytes.
//! * `corpus_bytes_equal_mysql`: every JSON value of the real MySQL binlogs
//!   in the corpus (`testdata/binlogs`)
//!   whose document has no opaque values is rendered, encoded again, and must
//!   be the very bytes the server wrote.

#[allow(dead_code)]
mod common;

use std::ops::ControlFlow;

use sluice_binlog::json::render_json;
use sluice_binlog::{encode_json, walk_file, Cell, EventData, JsonTextError, Value};

fn encode(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    encode_json(text, &mut out).unwrap_or_else(|e| panic!("{}: {e}", cut(text)));
    out
}

fn render(bin: &[u8]) -> String {
    let mut s = String::new();
    render_json(bin, &mut s).unwrap_or_else(|e| panic!("{e}"));
    s
}

fn cut(s: &str) -> String {
    s.chars().take(80).collect()
}

/// `text` encoded and rendered is `want`; `want` encodes to the same bytes.
fn check(text: &str, want: &str) {
    let bin = encode(text);
    let shown = render(&bin);
    assert!(
        shown == want,
        "{}:\n rendered {}\n expected {}",
        cut(text),
        cut(&shown),
        cut(want)
    );
    assert_eq!(encode(want), bin, "{} encodes differently", cut(want));
}

#[test]
fn round_trip() {
    let cases: &[(&str, &str)] = &[
        ("{}", "{}"),
        ("[]", "[]"),
        (" \t\r\n[ ] \n", "[]"),
        ("null", "null"),
        ("true", "true"),
        ("false", "false"),
        ("[null,true,false]", "[null, true, false]"),
        ("{\"a\":{}}", "{\"a\": {}}"),
        ("[[],[[]],{}]", "[[], [[]], {}]"),
        // Keys sorted by length, then bytes; duplicates: the last one wins.
        (
            r#"{"bb": 1, "a": 2, "ab": 3, "": 4, "é": 5, "z": 6}"#,
            r#"{"": 4, "a": 2, "z": 6, "ab": 3, "bb": 1, "é": 5}"#,
        ),
        (r#"{"a": 1, "a": 2}"#, r#"{"a": 2}"#),
        (r#"{"x": [1], "y": 0, "x": {"k": null}}"#, r#"{"x": {"k": null}, "y": 0}"#),
        // Every integer boundary.
        ("0", "0"),
        ("-0", "0"),
        ("32767", "32767"),
        ("-32768", "-32768"),
        ("32768", "32768"),
        ("-32769", "-32769"),
        ("65535", "65535"),
        ("65536", "65536"),
        ("2147483647", "2147483647"),
        ("-2147483648", "-2147483648"),
        ("2147483648", "2147483648"),
        ("-2147483649", "-2147483649"),
        ("4294967295", "4294967295"),
        ("4294967296", "4294967296"),
        ("9223372036854775807", "9223372036854775807"),
        ("-9223372036854775808", "-9223372036854775808"),
        ("9223372036854775808", "9223372036854775808"),
        ("18446744073709551615", "18446744073709551615"),
        // Past 64 bits: doubles.
        ("18446744073709551616", "1.8446744073709552e19"),
        ("-9223372036854775809", "-9.223372036854776e18"),
        (
            "[32767, 32768, -32768, -32769, 2147483647, 2147483648, -2147483648, -2147483649, 4294967295, 4294967296, 18446744073709551615]",
            "[32767, 32768, -32768, -32769, 2147483647, 2147483648, -2147483648, -2147483649, 4294967295, 4294967296, 18446744073709551615]",
        ),
        // Doubles.
        ("1.5", "1.5"),
        ("-1.5", "-1.5"),
        ("3.0", "3.0"),
        ("1e2", "100.0"),
        ("1E+2", "100.0"),
        ("-0.0", "-0.0"),
        ("0.1", "0.1"),
        ("0.30000000000000004", "0.30000000000000004"),
        ("1e15", "1e15"),
        ("1.5e-7", "0.00000015"),
        ("1e-16", "1e-16"),
        ("1.7976931348623157e308", "1.7976931348623157e308"),
        ("5e-324", "5e-324"),
        ("1e-400", "0.0"),
        ("123456789012345.0", "123456789012345.0"),
        // Strings: escapes and Unicode.
        (r#""""#, r#""""#),
        (
            r#""a\"b\\c\/d\b\f\n\r\t\u0001\u001f\u007f""#,
            "\"a\\\"b\\\\c/d\\b\\f\\n\\r\\t\\u0001\\u001f\u{7f}\"",
        ),
        (r#""\u00e9\u20ac\ud83d\ude00""#, "\"é€😀\""),
        ("\"é€😀 日本\"", "\"é€😀 日本\""),
        (r#"{"\u0000": "\u0000"}"#, r#"{"\u0000": "\u0000"}"#),
        (r#"{"k\"ey": ["v\\al"]}"#, r#"{"k\"ey": ["v\\al"]}"#),
    ];
    for (text, want) in cases {
        check(text, want);
    }
}

#[test]
fn nesting_round_trips() {
    let text = r#"{"id": 7, "neg": -70000, "big": 5000000000, "u": 18000000000000000000, "f": 2.5, "name": "Joe", "list": [1, [2, [3, {}]], [], {"k": null}, false], "": "empty key"}"#;
    let want = r#"{"": "empty key", "f": 2.5, "u": 18000000000000000000, "id": 7, "big": 5000000000, "neg": -70000, "list": [1, [2, [3, {}]], [], {"k": null}, false], "name": "Joe"}"#;
    check(text, want);
    // 100 levels: MySQL's limit.
    let deep_arr = format!("{}1{}", "[".repeat(100), "]".repeat(100));
    check(&deep_arr, &deep_arr);
    let mut deep_obj = String::from("1");
    for _ in 0..100 {
        deep_obj = format!("{{\"a\": {deep_obj}}}");
    }
    check(&deep_obj, &deep_obj);
}

#[test]
fn long_strings_and_large_documents() {
    // Length prefixes of 1, 2 and 3 bytes: 127 / 128 and 16383 / 16384.
    for n in [127, 128, 200, 16_383, 16_384, 70_000] {
        let s = "x".repeat(n);
        let text = format!("\"{s}\"");
        let bin = encode(&text);
        let prefix = match n {
            0..=127 => 1,
            128..=16_383 => 2,
            _ => 3,
        };
        assert_eq!(bin.len(), 1 + prefix + n, "{n}");
        check(&text, &text);
        // Keys hold at most 65535 bytes.
        let k = &s[..n.min(65_535)];
        let text = format!("[\"{s}\", {{\"{k}\": 1, \"a\": 2}}]");
        let want = format!("[\"{s}\", {{\"a\": 2, \"{k}\": 1}}]");
        check(&text, &want);
    }
    // Past 64 KiB: the large format at the top, small inside where it fits.
    let member = r#"{"n": -1, "i": 100000, "d": 0.5, "s": "abc", "t": true}"#;
    let want_member = r#"{"d": 0.5, "i": 100000, "n": -1, "s": "abc", "t": true}"#;
    let text = format!("[{}]", vec![member; 2000].join(","));
    let want = format!("[{}]", vec![want_member; 2000].join(", "));
    let bin = encode(&text);
    assert_eq!(bin[0], 0x03, "large array");
    assert_eq!(bin[9], 0x00, "small objects inside");
    check(&text, &want);
    let obj: Vec<String> = (0..5000)
        .map(|i| format!("\"key{i:05}\": [{i}, \"v{i}\"]"))
        .collect();
    let text = format!("{{{}}}", obj.join(", "));
    let bin = encode(&text);
    assert_eq!(bin[0], 0x01, "large object");
    check(&text, &text);
}

#[test]
fn errors_name_the_problem() {
    let syntax = |text: &str, want: &str| {
        let mut out = vec![9];
        let e = encode_json(text, &mut out).unwrap_err();
        assert!(matches!(e, JsonTextError::Syntax { .. }), "{text:?}: {e:?}");
        let msg = e.to_string();
        assert!(
            msg.contains("invalid JSON text") && msg.contains(want),
            "{text:?}: {msg}"
        );
        assert_eq!(out, [9], "output left as it was");
    };
    syntax("", "ends where a value is expected");
    syntax("{", "expected a key");
    syntax("[1, 2", "expected ',' or ']'");
    syntax("{\"a\": 1,}", "expected a key");
    syntax("[1,]", "not a JSON value");
    syntax("'a'", "not a JSON value");
    syntax("\"abc", "unterminated string");
    syntax("\"tab\there\"", "control character");
    syntax("\"\\q\"", "invalid escape");
    syntax("\"\\ud83d\"", "unpaired surrogate");
    syntax("1 2", "text after the document");
    syntax("007", "text after the document");
    syntax("+1", "not a JSON value");
    syntax(".5", "not a JSON value");
    syntax("1.e5", "digits after '.'");
    syntax("1e999", "too large for a double");
    syntax("Infinity", "not a JSON value");
    syntax("[1] // comment", "text after the document");

    let deep = format!("{}{}", "[".repeat(101), "]".repeat(101));
    let e = encode_json(&deep, &mut Vec::new()).unwrap_err();
    assert_eq!(e, JsonTextError::TooDeep { at: 100 });
    assert!(
        e.to_string().contains("nested deeper than 100 levels"),
        "{e}"
    );
    let deep = format!("{}1{}", "{\"k\": [".repeat(51), "]}".repeat(51));
    assert!(matches!(
        encode_json(&deep, &mut Vec::new()),
        Err(JsonTextError::TooDeep { .. })
    ));

    let key = "k".repeat(70_000);
    let e = encode_json(&format!("{{\"{key}\": 1}}"), &mut Vec::new()).unwrap_err();
    assert_eq!(e, JsonTextError::KeyTooLong { at: 1, len: 70_000 });
    assert!(e.to_string().contains("65535"), "{e}");
}

/// Whether a binary document holds an opaque value anywhere (DECIMAL, DATE,
/// TIME, ... inside JSON): their text does not say they were opaque.
fn has_opaque(bin: &[u8]) -> bool {
    fn at(t: u8, v: &[u8], depth: usize) -> bool {
        let large = t == 0x01 || t == 0x03;
        let osz = if large { 4 } else { 2 };
        let rd = |b: &[u8], i: usize, n: usize| {
            b.get(i..i + n)
                .map(|s| s.iter().rev().fold(0usize, |a, &x| a << 8 | x as usize))
        };
        match t {
            0x0f => true,
            0x00..=0x03 if depth < 100 => {
                let object = t <= 0x01;
                let Some(count) = rd(v, 0, osz) else {
                    return false;
                };
                let values_at = 2 * osz + if object { count * (osz + 2) } else { 0 };
                (0..count).any(|i| {
                    let e = values_at + i * (1 + osz);
                    let (Some(&ct), Some(off)) = (v.get(e), rd(v, e + 1, osz)) else {
                        return false;
                    };
                    let inlined = matches!(ct, 0x04..=0x06) || (large && matches!(ct, 0x07 | 0x08));
                    !inlined && v.get(off..).is_some_and(|cv| at(ct, cv, depth + 1))
                })
            }
            _ => false,
        }
    }
    match bin.split_first() {
        Some((&t, v)) => at(t, v, 0),
        None => false,
    }
}

/// Every binlog file of the corpus (decompressed), by path under it.
fn corpus_files() -> Vec<(String, Vec<u8>)> {
    let root = common::corpus_dir();
    let mut dirs = vec![root.clone()];
    let mut files = Vec::new();
    while let Some(dir) = dirs.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                dirs.push(p);
                continue;
            }
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let text = [".md", ".json", ".sql"].iter().any(|x| name.ends_with(x))
                || name.starts_with("plaintext-")
                || name.starts_with("mysql-index-file");
            if !text {
                let bytes = common::load(&rel);
                files.push((rel, bytes));
            }
        }
    }
    files
}

#[test]
fn corpus_bytes_equal_mysql() {
    let mut matched = 0;
    let mut opaque = 0;
    let mut mismatches = Vec::new();
    let mut files_with_json = Vec::new();
    for (name, bytes) in corpus_files() {
        let mut docs: Vec<Vec<u8>> = Vec::new();
        // Broken files stop with an error after their intact events.
        let _ = walk_file(&name, &bytes, |_, _, data| {
            if let EventData::Rows(r) = data {
                for row in r.rows().flatten() {
                    for image in [&row.before, &row.after].into_iter().flatten() {
                        for cell in image.cells().flatten() {
                            if let Cell::Present(Value::Json(b)) = cell {
                                docs.push(b.to_vec());
                            }
                        }
                    }
                }
            }
            ControlFlow::Continue(())
        });
        if docs.is_empty() {
            continue;
        }
        files_with_json.push(format!("{name}: {}", docs.len()));
        for doc in docs {
            // An empty value is JSON null in a row image; there is no document to rebuild.
            if doc.is_empty() {
                continue;
            }
            if has_opaque(&doc) {
                opaque += 1;
                continue;
            }
            let text = render(&doc);
            let mut again = Vec::new();
            match encode_json(&text, &mut again) {
                Ok(()) if again == doc => matched += 1,
                Ok(()) => mismatches.push(format!(
                    "{name}: {text}\n  binlog  {}\n  encoded {}",
                    common::hex(&doc),
                    common::hex(&again)
                )),
                Err(e) => mismatches.push(format!("{name}: {text}: {e}")),
            }
        }
    }
    eprintln!(
        "JSON values in the corpus: {matched} rebuilt byte for byte, {opaque} with opaque values left out; files: {}",
        files_with_json.join(", ")
    );
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    assert!(
        matched >= 10,
        "only {matched} JSON values found in the corpus"
    );
}

/// The fuzz target's property on mutated documents: no panic; what encodes
/// renders, and its rendering encodes to the same bytes; on error nothing is
/// written.
#[test]
fn mutated_texts_never_panic_and_round_trip() {
    let seeds = [
        r#"{"a": [1, -2, 3.5e10, "x\"y", {"b": null}], "c": true, "d": 18446744073709551615}"#,
        r#"[[[{"k": "\u00e9\ud83d\ude00"}]], -0, 0.1, 1e-7, 4294967296, false]"#,
        r#"{"dup": 1, "dup": [2], "z": {}, "": ""}"#,
    ];
    const ALPHABET: &[u8] = b"{}[],:\"\\ 0123456789-+.eEtrufalsn\\u";
    let mut state = 42u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    for seed in seeds {
        for _ in 0..5000 {
            let mut t = seed.as_bytes().to_vec();
            for _ in 0..1 + next() % 3 {
                let i = next() % t.len();
                match next() % 3 {
                    0 => t[i] = ALPHABET[next() % ALPHABET.len()],
                    1 => {
                        t.remove(i);
                    }
                    _ => t.insert(i, ALPHABET[next() % ALPHABET.len()]),
                }
                if t.is_empty() {
                    break;
                }
            }
            // Mutating ASCII bytes of UTF-8 text can cut a character.
            let Ok(text) = std::str::from_utf8(&t) else {
                continue;
            };
            let mut bin = Vec::new();
            if encode_json(text, &mut bin).is_err() {
                assert!(bin.is_empty());
                continue;
            }
            let shown = render(&bin);
            assert_eq!(encode(&shown), bin, "{text} -> {shown}");
        }
    }
}
