use super::diff::{key_order, Leg};
use super::*;
use serde_json::{json, Value};

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn render(bin: &[u8]) -> String {
    let mut s = String::new();
    render_json(bin, &mut s).unwrap();
    s
}

fn render_err(bin: &[u8]) -> DecodeError {
    let mut s = String::from("keep");
    let e = render_json(bin, &mut s).unwrap_err();
    assert_eq!(s, "keep", "output must be left as it was on error");
    e
}

// A test-side encoder in MySQL's layout, to build larger documents.
fn enc(v: &Value, large: bool) -> Vec<u8> {
    let (t, body) = enc_value(v, large);
    let mut out = vec![t];
    out.extend(body);
    out
}

fn var_len(mut n: usize, out: &mut Vec<u8>) {
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn enc_value(v: &Value, large: bool) -> (u8, Vec<u8>) {
    match v {
        Value::Null => (LITERAL, vec![0]),
        Value::Bool(b) => (LITERAL, vec![if *b { 1 } else { 2 }]),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                if let Ok(i) = i16::try_from(i) {
                    (INT16, i.to_le_bytes().to_vec())
                } else if let Ok(i) = i32::try_from(i) {
                    (INT32, i.to_le_bytes().to_vec())
                } else {
                    (INT64, i.to_le_bytes().to_vec())
                }
            } else if let Some(u) = n.as_u64() {
                (UINT64, u.to_le_bytes().to_vec())
            } else {
                (DOUBLE, n.as_f64().unwrap().to_le_bytes().to_vec())
            }
        }
        Value::String(s) => {
            let mut b = Vec::new();
            var_len(s.len(), &mut b);
            b.extend(s.as_bytes());
            (STRING, b)
        }
        Value::Array(items) => {
            enc_container(items.iter().map(|v| (None, v)).collect(), large, false)
        }
        Value::Object(m) => {
            let mut members: Vec<_> = m.iter().map(|(k, v)| (Some(k.as_str()), v)).collect();
            members.sort_by(|a, b| key_order(a.0.unwrap(), b.0.unwrap()));
            enc_container(members, large, true)
        }
    }
}

fn put(body: &mut [u8], at: usize, v: usize, n: usize) {
    body[at..at + n].copy_from_slice(&(v as u32).to_le_bytes()[..n]);
}

fn enc_container(entries: Vec<(Option<&str>, &Value)>, large: bool, object: bool) -> (u8, Vec<u8>) {
    let osz = if large { 4 } else { 2 };
    let n = entries.len();
    let values_at = 2 * osz + if object { n * (osz + 2) } else { 0 };
    let mut body = vec![0u8; values_at + n * (1 + osz)];
    put(&mut body, 0, n, osz);
    for (i, (k, _)) in entries.iter().enumerate() {
        if let Some(k) = k {
            let at = 2 * osz + i * (osz + 2);
            let off = body.len();
            put(&mut body, at, off, osz);
            put(&mut body, at + osz, k.len(), 2);
            body.extend(k.as_bytes());
        }
    }
    for (i, (_, v)) in entries.iter().enumerate() {
        let (t, b) = enc_value(v, large);
        let e = values_at + i * (1 + osz);
        body[e] = t;
        let inlined =
            matches!(t, LITERAL | INT16 | UINT16) || (large && matches!(t, INT32 | UINT32));
        if inlined {
            body[e + 1..e + 1 + b.len()].copy_from_slice(&b);
        } else {
            let off = body.len();
            put(&mut body, e + 1, off, osz);
            body.extend(b);
        }
    }
    let size = body.len();
    put(&mut body, osz, size, osz);
    let t = match (object, large) {
        (true, false) => SMALL_OBJECT,
        (true, true) => LARGE_OBJECT,
        (false, false) => SMALL_ARRAY,
        (false, true) => LARGE_ARRAY,
    };
    (t, body)
}

fn opaque(field_type: u8, data: &[u8]) -> Vec<u8> {
    let mut b = vec![OPAQUE, field_type];
    var_len(data.len(), &mut b);
    b.extend(data);
    b
}

#[test]
fn empty_document_is_null() {
    assert_eq!(render(&[]), "null");
}

#[test]
fn literals_and_integers() {
    assert_eq!(render(&[LITERAL, 0]), "null");
    assert_eq!(render(&[LITERAL, 1]), "true");
    assert_eq!(render(&[LITERAL, 2]), "false");
    assert_eq!(render(&[INT16, 0x00, 0x80]), "-32768");
    assert_eq!(render(&[UINT16, 0xff, 0xff]), "65535");
    assert_eq!(render(&[INT32, 0xff, 0xff, 0xff, 0xff]), "-1");
    assert_eq!(render(&[UINT32, 0xff, 0xff, 0xff, 0xff]), "4294967295");
    let mut b = vec![INT64];
    b.extend(i64::MIN.to_le_bytes());
    assert_eq!(render(&b), "-9223372036854775808");
    let mut b = vec![UINT64];
    b.extend(u64::MAX.to_le_bytes());
    assert_eq!(render(&b), "18446744073709551615");
}

fn double(x: f64) -> String {
    let mut b = vec![DOUBLE];
    b.extend(x.to_le_bytes());
    render(&b)
}

#[test]
fn doubles_print_like_my_gcvt() {
    let cases: &[(f64, &str)] = &[
        (3.0, "3.0"),
        (1.5, "1.5"),
        (-1.5, "-1.5"),
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (0.1, "0.1"),
        (0.30000000000000004, "0.30000000000000004"),
        (100.0, "100.0"),
        (123456789012345.0, "123456789012345.0"),
        (999999999999999.0, "999999999999999.0"),
        (1e15, "1e15"),
        (-1e15, "-1e15"),
        (1.5e15, "1.5e15"),
        (1234567890123456.8, "1234567890123456.8"),
        (1e100, "1e100"),
        (1.7976931348623157e308, "1.7976931348623157e308"),
        (1e-15, "0.000000000000001"),
        (1.5e-7, "0.00000015"),
        (1e-16, "1e-16"),
        (-2.5e-300, "-2.5e-300"),
        (5e-324, "5e-324"),
        (12.25, "12.25"),
        (f64::NAN, "0.0"),
    ];
    for &(x, want) in cases {
        assert_eq!(double(x), want, "{x:e}");
    }
}

#[test]
fn strings_are_escaped_like_mysql() {
    let mut b = vec![STRING];
    let s = "a\"b\\c\nd\te\u{8}f\u{c}g\rh\u{1}i\u{1f}j\u{7f}/é€😀";
    var_len(s.len(), &mut b);
    b.extend(s.as_bytes());
    assert_eq!(
        render(&b),
        "\"a\\\"b\\\\c\\nd\\te\\bf\\fg\\rh\\u0001i\\u001fj\u{7f}/é€😀\""
    );
    // A length prefix of two bytes.
    let long = "x".repeat(200);
    let doc = enc(&json!(long), false);
    assert_eq!(&doc[1..3], &[0xc8, 0x01]);
    assert_eq!(render(&doc), format!("\"{long}\""));
    assert_eq!(render(&[STRING, 0]), "\"\"");
}

#[test]
fn small_object_by_hand() {
    // {"a": 1, "b": [true, null, "x"]}
    let doc = hex("00 02 00 23 00
         12 00 01 00  13 00 01 00
         05 01 00  02 14 00
         61 62
         03 00 0f 00  04 01 00  04 00 00  0c 0d 00  01 78");
    assert_eq!(render(&doc), r#"{"a": 1, "b": [true, null, "x"]}"#);
}

#[test]
fn encoded_documents_small_and_large() {
    let v = json!({
        "id": 7,
        "neg": -70000,
        "big": 5_000_000_000_i64,
        "u": 18_000_000_000_000_000_000_u64,
        "f": 2.5,
        "name": "Joe",
        "list": [1, [2, [3, {}]], [], {"k": null}, false],
        "": "empty key",
    });
    let want = r#"{"": "empty key", "f": 2.5, "u": 18000000000000000000, "id": 7, "big": 5000000000, "neg": -70000, "list": [1, [2, [3, {}]], [], {"k": null}, false], "name": "Joe"}"#;
    let small = enc(&v, false);
    let large = enc(&v, true);
    assert_eq!(small[0], SMALL_OBJECT);
    assert_eq!(large[0], LARGE_OBJECT);
    assert_eq!(render(&small), want);
    assert_eq!(render(&large), want);
    let arr = enc(&json!([1, -100000, "s", null]), true);
    assert_eq!(arr[0], LARGE_ARRAY);
    // int32 is inlined in the large format.
    assert_eq!(&arr[9 + 5..9 + 10], &[INT32, 0x60, 0x79, 0xfe, 0xff]);
    assert_eq!(render(&arr), r#"[1, -100000, "s", null]"#);
    assert_eq!(render(&enc(&json!([]), false)), "[]");
    assert_eq!(render(&enc(&json!({}), false)), "{}");
}

#[test]
fn large_array_past_64k() {
    let items: Vec<Value> = (0..30_000).map(|i| json!(format!("{i}"))).collect();
    let doc = enc(&Value::Array(items), true);
    assert!(doc.len() > 0x10000);
    let text = render(&doc);
    assert!(text.starts_with(r#"["0", "1", "2""#));
    assert!(text.ends_with(r#""29999"]"#));
}

#[test]
fn opaque_values() {
    // DECIMAL(5,2) 123.45: precision, scale, then binary decimal.
    assert_eq!(render(&opaque(246, &[5, 2, 0x80, 0x7b, 0x2d])), "123.45");
    assert_eq!(render(&opaque(246, &[5, 2, 0x7f, 0x84, 0xd2])), "-123.45");
    assert!(render_json(&opaque(246, &[5, 2, 0x80]), &mut String::new()).is_err());
    assert!(render_json(&opaque(246, &[2, 5, 0x80]), &mut String::new()).is_err());
    assert!(render_json(&opaque(246, &[]), &mut String::new()).is_err());
    // 2015-01-15 23:24:25.000123, packed as TIME_to_longlong_datetime_packed.
    let ymd = ((2015u64 * 13 + 1) << 5) | 15;
    let hms = (23u64 << 12) | (24 << 6) | 25;
    let dt = ((((ymd << 17) | hms) << 24) | 123).to_le_bytes();
    assert_eq!(render(&opaque(12, &dt)), "\"2015-01-15 23:24:25.000123\"");
    assert_eq!(render(&opaque(7, &dt)), "\"2015-01-15 23:24:25.000123\"");
    let d = (((ymd << 17) << 24) as i64).to_le_bytes();
    assert_eq!(render(&opaque(10, &d)), "\"2015-01-15\"");
    let t = ((((838u64 << 12) | (59 << 6) | 59) << 24) as i64).to_le_bytes();
    assert_eq!(render(&opaque(11, &t)), "\"838:59:59.000000\"");
    let t = (-((((1u64 << 12) | (2 << 6) | 3) << 24 | 500_000) as i64)).to_le_bytes();
    assert_eq!(render(&opaque(11, &t)), "\"-01:02:03.500000\"");
    assert!(render_json(&opaque(12, &dt[..7]), &mut String::new()).is_err());
    // Strings kept as opaque print as strings; the rest as base64.
    assert_eq!(render(&opaque(253, b"a\"b")), r#""a\"b""#);
    assert_eq!(render(&opaque(15, b"U")), r#""base64:type15:VQ==""#);
    assert_eq!(render(&opaque(252, b"ab")), r#""base64:type252:YWI=""#);
    assert_eq!(render(&opaque(16, b"")), r#""base64:type16:""#);
    // MySQL breaks base64 lines at 76 characters (57 bytes).
    let blob: Vec<u8> = (0u8..60).collect();
    let text = render(&opaque(252, &blob));
    let body = text
        .trim_matches('"')
        .strip_prefix("base64:type252:")
        .unwrap();
    let (first, second) = body.split_once("\\n").unwrap();
    assert_eq!(first.len(), 76);
    assert_eq!(second, "OTo7");
}

#[test]
fn corpus_values() {
    // Row values from json-opaque.binlog (MySQL 9.0), with what MySQL prints.
    let cases = [
        ("0001000f000b0001000f0c00610f0155", r#"{"a": "base64:type15:VQ=="}"#),
        ("00010016000b0001000f0c00620a080000000000e48b19", r#"{"b": "2012-03-18"}"#),
        (
            "00010016000b0001000f0c00630c08000000adb7e48b19",
            r#"{"c": "2012-03-18 11:30:45.000000"}"#,
        ),
        ("00010016000b0001000f0c00630b08f1fb09ee77050000", r#"{"c": "87:31:46.654321"}"#),
        ("00010014000b0001000f0c0064f6060603807b01c8", r#"{"d": 123.456}"#),
        ("00010015000b0001000f0c0065f6070b028000000900", r#"{"e": 9.00}"#),
        (
            "0001001c000b000100020c006504001000050000050100040100040200",
            r#"{"e": [0, 1, true, false]}"#,
        ),
        ("0001000c000b00010004000065", r#"{"e": null}"#),
        // From json.binlog.000001.
        (
            "0003003300190003001c000400200004000518000c24000c2f00616765646174616e616d650a78787878787878787878034a6f65",
            r#"{"age": 24, "data": "xxxxxxxxxx", "name": "Joe"}"#,
        ),
    ];
    for (h, want) in cases {
        assert_eq!(render(&hex(h)), want);
    }
}

#[test]
fn appends_to_existing_output() {
    let mut s = String::from("x=");
    render_json(&[LITERAL, 1], &mut s).unwrap();
    assert_eq!(s, "x=true");
}

#[test]
fn nesting_limit() {
    let mut v = json!(1);
    for _ in 0..100 {
        v = json!([v]);
    }
    let doc = enc(&v, false);
    assert!(render(&doc).starts_with("[[[["));
    let doc = enc(&json!([v]), false);
    assert!(render_err(&doc).to_string().contains("deeper"));
    assert!(apply_json_diff(&doc, &[]).is_err());
}

#[test]
fn truncated_documents_are_errors() {
    let docs = [
        enc(
            &json!({"a": [1, 2.5, "xyz", {"b": null}], "long": -100000}),
            false,
        ),
        enc(
            &json!({"a": [1, 2.5, "xyz", {"b": null}], "long": -100000}),
            true,
        ),
        opaque(246, &[5, 2, 0x80, 0x7b, 0x2d]),
        opaque(12, &[0; 8]),
        vec![INT64, 1, 2, 3, 4, 5, 6, 7, 8],
        vec![STRING, 3, b'a', b'b', b'c'],
    ];
    for doc in &docs {
        render(doc);
        for n in 1..doc.len() {
            render_err(&doc[..n]);
            assert!(apply_json_diff(&doc[..n], &[]).is_err());
        }
    }
}

#[test]
fn corrupt_documents_are_errors() {
    let errs: &[&[u8]] = &[
        &[0x0d],                                       // unknown type
        &[LITERAL, 3],                                 // unknown literal
        &[STRING, 2, 0xff, 0xfe],                      // not UTF-8
        &[STRING, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], // length too long
        &[STRING, 0xff, 0xff, 0xff, 0xff, 0x7f],       // length past 32 bits
        // A container claiming more bytes than present.
        &[SMALL_ARRAY, 1, 0, 0xff, 0x00, LITERAL, 0, 0],
        // Element count that does not fit the declared size.
        &[SMALL_ARRAY, 9, 0, 7, 0, LITERAL, 0, 0],
        // Value offset past the end.
        &[SMALL_ARRAY, 1, 0, 7, 0, STRING, 0x20, 0],
        // Value offset into the header.
        &[SMALL_ARRAY, 1, 0, 8, 0, STRING, 0x02, 0, 0],
        // Key offset into the header, and past the end.
        &[SMALL_OBJECT, 1, 0, 12, 0, 2, 0, 1, 0, LITERAL, 0, 0, b'a'],
        &[SMALL_OBJECT, 1, 0, 12, 0, 11, 0, 5, 0, LITERAL, 0, 0, b'a'],
        // Key not UTF-8.
        &[SMALL_OBJECT, 1, 0, 12, 0, 11, 0, 1, 0, LITERAL, 0, 0, 0xff],
        // Opaque value longer than the document.
        &[OPAQUE, 252, 5, 1, 2],
    ];
    for doc in errs {
        render_err(doc);
        assert!(apply_json_diff(doc, &[]).is_err());
    }
    // The same object, well-formed.
    assert_eq!(
        render(&[SMALL_OBJECT, 1, 0, 12, 0, 11, 0, 1, 0, LITERAL, 0, 0, b'a']),
        r#"{"a": null}"#
    );
}

/// An array whose two entries point at the same child, `levels` deep: a
/// few hundred bytes that would render to 2^levels values.
fn shared_tree(levels: usize) -> Vec<u8> {
    let mut child = vec![LITERAL, 1];
    let mut child_is_scalar = true;
    for _ in 0..levels {
        let mut body = vec![2, 0, 0, 0];
        if child_is_scalar {
            body.extend([LITERAL, 1, 0, LITERAL, 1, 0]);
        } else {
            body.extend([child[0], 10, 0, child[0], 10, 0]);
            body.extend(&child[1..]);
        }
        let size = body.len() as u16;
        body[2..4].copy_from_slice(&size.to_le_bytes());
        child = vec![SMALL_ARRAY];
        child.extend(body);
        child_is_scalar = false;
    }
    child
}

#[test]
fn shared_sub_documents_cannot_blow_up() {
    let doc = shared_tree(60);
    assert!(doc.len() < 1000);
    render_err(&doc);
    assert!(apply_json_diff(&doc, &[]).is_err());
    // A few levels are fine: they stay within the size allowance.
    assert_eq!(render(&shared_tree(2)), "[[true, true], [true, true]]");
}

#[test]
fn shared_strings_cannot_cost_quadratic_time() {
    // 20000 array entries all pointing at one 100 KB string.
    let n = 20_000usize;
    let header = 8 + n * 5;
    let mut body = Vec::new();
    body.extend((n as u32).to_le_bytes());
    body.extend(0u32.to_le_bytes());
    for _ in 0..n {
        body.push(STRING);
        body.extend((header as u32).to_le_bytes());
    }
    var_len(100_000, &mut body);
    body.resize(body.len() + 100_000, b'x');
    let size = body.len() as u32;
    body[4..8].copy_from_slice(&size.to_le_bytes());
    let mut doc = vec![LARGE_ARRAY];
    doc.extend(body);
    render_err(&doc);
    assert!(apply_json_diff(&doc, &[]).is_err());
}

/// Small deterministic generator for mutation tests.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn mutated_inputs_never_panic() {
    let base = [
        enc(
            &json!({"a": [1, 2.5, "xyz", {"b": null}], "long": -100000, "t": true}),
            false,
        ),
        enc(
            &json!({"a": [1, 2.5, "xyz", {"b": null}], "long": -100000, "t": true}),
            true,
        ),
        hex("00010016000b0001000f0c00630c08000000adb7e48b19"),
        hex("00010014000b0001000f0c0064f6060603807b01c8"),
    ];
    let diff = hex("00 05 242e616765 03 05 1a 00  01 07 242e615b315d 02 04 01  02 06 242e615b305d");
    let mut rng = Lcg(42);
    for doc in &base {
        for _ in 0..3000 {
            let mut d = doc.clone();
            for _ in 0..1 + rng.next() % 3 {
                let i = (rng.next() as usize) % d.len();
                d[i] = rng.next() as u8;
            }
            let mut s = String::new();
            let _ = render_json(&d, &mut s);
            let _ = apply_json_diff(&d, &diff);
            let mut m = diff.clone();
            let i = (rng.next() as usize) % m.len();
            m[i] = rng.next() as u8;
            let _ = apply_json_diff(doc, &m);
            let _ = apply_json_diff(doc, &m[..i]);
        }
    }
}

// --- diffs ---

fn packed(n: usize, out: &mut Vec<u8>) {
    if n < 251 {
        out.push(n as u8);
    } else {
        out.push(0xfc);
        out.extend((n as u16).to_le_bytes());
    }
}

fn diff_entry(op: u8, path: &str, value: Option<&[u8]>) -> Vec<u8> {
    let mut b = vec![op];
    packed(path.len(), &mut b);
    b.extend(path.as_bytes());
    if let Some(v) = value {
        packed(v.len(), &mut b);
        b.extend(v);
    }
    b
}

fn apply(before: &Value, diffs: &[(u8, &str, Option<Value>)]) -> Result<String> {
    let mut d = Vec::new();
    for (op, path, v) in diffs {
        let v = v.as_ref().map(|v| enc(v, false));
        d.extend(diff_entry(*op, path, v.as_deref()));
    }
    apply_json_diff(&enc(before, false), &d)
}

#[test]
fn corpus_partial_update() {
    // json.binlog.000001: UPDATE t SET json_col = JSON_REPLACE(json_col, '$.age', 26).
    let before = hex("0003003300190003001c000400200004000519000c24000c2f00616765646174616e616d650a78787878787878787878034a6f65");
    let diff = hex("0005242e61676503051a00");
    assert_eq!(
        apply_json_diff(&before, &diff).unwrap(),
        r#"{"age": 26, "data": "xxxxxxxxxx", "name": "Joe"}"#
    );
}

#[test]
fn diffs_without_a_document_render_as_mysqlbinlog_prints_them() {
    let diffs = |entries: &[(u8, &str, Option<Value>)]| {
        let mut d = Vec::new();
        for (op, path, v) in entries {
            d.extend(diff_entry(
                *op,
                path,
                v.as_ref().map(|v| enc(v, false)).as_deref(),
            ));
        }
        d
    };
    let text = |d: &[u8]| {
        let mut out = String::new();
        JsonDiffs::parse(d).unwrap().render("`doc`", &mut out);
        out
    };
    // The corpus event: one REPLACE.
    assert_eq!(
        text(&hex("0005242e61676503051a00")),
        "JSON_REPLACE(`doc`, '$.age', 26)"
    );
    // Runs of one function share a call, the first run innermost.
    let d = diffs(&[
        (0, "$.a", Some(json!("it's"))),
        (0, "$.b", Some(json!([1, {"c": null}]))),
        (2, "$.c", None),
        (1, "$.d[0]", Some(json!(true))),
        (1, "$.e", Some(json!(1.5))),
        (0, "$.f", Some(json!("\u{1}"))),
    ]);
    assert_eq!(
        text(&d),
        "JSON_REPLACE(JSON_INSERT(JSON_ARRAY_INSERT(JSON_REMOVE(JSON_REPLACE(`doc`, \
         '$.a', 'it\\'s', '$.b', CAST('[1, {\"c\": null}]' AS JSON)), '$.c'), \
         '$.d[0]', true), '$.e', 1.5), '$.f', '\\x01')"
    );
    let parsed = JsonDiffs::parse(&d).unwrap();
    let ops: Vec<&str> = parsed.iter().map(|d| d.operation.name()).collect();
    assert_eq!(
        ops,
        ["REPLACE", "REPLACE", "REMOVE", "INSERT", "INSERT", "REPLACE"]
    );
    // No diffs: the column alone, as mysqlbinlog prints it.
    assert_eq!(text(&[]), "`doc`");
    // Malformed diffs are errors when read, not when rendered.
    let good = diffs(&[(0, "$.a", Some(json!(1)))]);
    for n in 1..good.len() {
        assert!(JsonDiffs::parse(&good[..n]).is_err(), "{n}");
    }
    assert!(JsonDiffs::parse(&diff_entry(0, "$.a", Some(&[0x0d]))).is_err());
    assert!(JsonDiffs::parse(&diff_entry(2, "a", None)).is_err());
    assert!(JsonDiffs::parse(&diff_entry(3, "$.a", None)).is_err());
}

#[test]
fn no_diffs_renders_the_before_image() {
    let v = json!({"a": [1, "x"], "b": 2.0});
    let bin = enc(&v, false);
    assert_eq!(apply_json_diff(&bin, &[]).unwrap(), render(&bin));
}

#[test]
fn replace() {
    let before = json!({"a": 1, "b": [10, 20, {"c": "x"}]});
    let out = apply(
        &before,
        &[
            (0, "$.a", Some(json!("one"))),
            (0, "$.b[1]", Some(json!([true]))),
            (0, "$.b[2].c", Some(json!({"d": null}))),
            (0, "$.b[last]", Some(json!(3.5))),
        ],
    )
    .unwrap();
    assert_eq!(out, r#"{"a": "one", "b": [10, [true], 3.5]}"#);
    assert!(apply(&before, &[(0, "$.zz", Some(json!(1)))]).is_err());
    assert!(apply(&before, &[(0, "$.b[3]", Some(json!(1)))]).is_err());
    assert!(apply(&before, &[(0, "$.a[0]", Some(json!(1)))]).is_err());
    assert!(apply(&before, &[(0, "$", Some(json!(1)))]).is_err());
}

#[test]
fn insert() {
    let before = json!({"bb": 1, "ccc": [1, 2]});
    let out = apply(
        &before,
        &[
            (1, "$.a", Some(json!(0))),
            (1, "$.zz", Some(json!(2))),
            (1, "$.dddd", Some(json!(3))),
            (1, "$.ccc[1]", Some(json!("mid"))),
            (1, "$.ccc[99]", Some(json!("end"))),
            (1, "$.ccc[0]", Some(json!("start"))),
        ],
    )
    .unwrap();
    assert_eq!(
        out,
        r#"{"a": 0, "bb": 1, "zz": 2, "ccc": ["start", 1, "mid", 2, "end"], "dddd": 3}"#
    );
    // [last] inserts before the last element, as MySQL's Json_array_index places it.
    let out = apply(&json!([1, 2]), &[(1, "$[last]", Some(json!(9)))]).unwrap();
    assert_eq!(out, "[1, 9, 2]");
    assert!(apply(&before, &[(1, "$.bb", Some(json!(1)))]).is_err());
    assert!(apply(&before, &[(1, "$.x.y", Some(json!(1)))]).is_err());
    assert!(apply(&before, &[(1, "$.bb[0]", Some(json!(1)))]).is_err());
    assert!(apply(&before, &[(1, "$[0]", Some(json!(1)))]).is_err());
}

#[test]
fn remove() {
    let before = json!({"a": 1, "b": [10, 20, 30], "c": {"d": 1}});
    let out = apply(
        &before,
        &[(2, "$.a", None), (2, "$.b[1]", None), (2, "$.c.d", None)],
    )
    .unwrap();
    assert_eq!(out, r#"{"b": [10, 30], "c": {}}"#);
    let out = apply(&before, &[(2, "$.b[last]", None), (2, "$.b[last-1]", None)]).unwrap();
    assert_eq!(out, r#"{"a": 1, "b": [20], "c": {"d": 1}}"#);
    assert!(apply(&before, &[(2, "$.x", None)]).is_err());
    assert!(apply(&before, &[(2, "$.b[3]", None)]).is_err());
    assert!(apply(&before, &[(2, "$.b.x", None)]).is_err());
    assert!(apply(&before, &[(2, "$", None)]).is_err());
}

#[test]
fn quoted_and_escaped_keys() {
    let before = json!({"a b": 1, "q\"k": 2, "é": 3});
    let out = apply(
        &before,
        &[
            (0, r#"$."a b""#, Some(json!(10))),
            (0, r#"$."q\"k""#, Some(json!(20))),
            (0, r#"$."\u00e9""#, Some(json!(30))),
        ],
    )
    .unwrap();
    assert_eq!(out, r#"{"é": 30, "a b": 10, "q\"k": 20}"#);
}

#[test]
fn diff_values_may_be_empty_documents() {
    // A zero-length value is JSON null, as everywhere in row images.
    let mut d = diff_entry(0, "$.a", Some(&[]));
    d.extend(diff_entry(1, "$.b", Some(&[LITERAL, 1])));
    assert_eq!(
        apply_json_diff(&enc(&json!({"a": 1}), false), &d).unwrap(),
        r#"{"a": null, "b": true}"#
    );
}

#[test]
fn malformed_diffs_are_errors() {
    let before = enc(&json!({"a": 1}), false);
    let good = diff_entry(0, "$.a", Some(&[LITERAL, 1]));
    assert_eq!(apply_json_diff(&before, &good).unwrap(), r#"{"a": true}"#);
    for n in 1..good.len() {
        assert!(apply_json_diff(&before, &good[..n]).is_err(), "{n}");
    }
    assert!(apply_json_diff(&before, &diff_entry(3, "$.a", None)).is_err());
    assert!(apply_json_diff(&before, &diff_entry(0, "$.a", Some(&[0x0d]))).is_err());
    assert!(apply_json_diff(&before, &diff_entry(2, "a", None)).is_err());
    assert!(apply_json_diff(&before, &diff_entry(2, "$.*", None)).is_err());
    assert!(apply_json_diff(&before, &diff_entry(2, "$[*]", None)).is_err());
    assert!(apply_json_diff(&before, &diff_entry(2, "$**.a", None)).is_err());
    assert!(apply_json_diff(&before, &diff_entry(2, "$[1 to 2]", None)).is_err());
    // Diffs cannot apply to a NULL (empty) document.
    assert!(apply_json_diff(&[], &good).is_err());
}

#[test]
fn diffs_respect_the_nesting_limit() {
    let mut deep = json!(1);
    for _ in 0..99 {
        deep = json!([deep]);
    }
    // 1 level for the path + 99 = 100: allowed; one more is not.
    assert!(apply(&json!({"a": 1}), &[(0, "$.a", Some(deep.clone()))]).is_ok());
    assert!(apply(&json!({"a": [1]}), &[(0, "$.a[0]", Some(deep.clone()))]).is_err());
    assert!(apply(&json!({"a": [1]}), &[(1, "$.a[0]", Some(deep))]).is_err());
}

#[test]
fn path_parser() {
    let legs = parse_path(br#" $ .a [ 3 ]."b\\c" [last - 2][last] .d_1"#).unwrap();
    assert_eq!(
        legs,
        vec![
            Leg::Member("a".into()),
            Leg::Cell {
                index: 3,
                from_end: false
            },
            Leg::Member("b\\c".into()),
            Leg::Cell {
                index: 2,
                from_end: true
            },
            Leg::Cell {
                index: 0,
                from_end: true
            },
            Leg::Member("d_1".into()),
        ]
    );
    assert_eq!(parse_path(b"$").unwrap(), vec![]);
    for bad in [
        &b""[..],
        b"a",
        b"$.",
        b"$[",
        b"$[]",
        b"$[x]",
        b"$[1",
        b"$.\"abc",
        b"$.\"\\x\"",
        b"$[99999999999999999999]",
        b"$.a\xff",
        b"$.[0]",
    ] {
        assert!(
            parse_path(bad).is_err(),
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn array_positions_follow_mysql() {
    assert_eq!(Leg::position(0, false, 3), (0, true));
    assert_eq!(Leg::position(5, false, 3), (3, false));
    assert_eq!(Leg::position(0, true, 3), (2, true));
    assert_eq!(Leg::position(2, true, 3), (0, true));
    assert_eq!(Leg::position(3, true, 3), (0, false));
    assert_eq!(Leg::position(0, true, 0), (0, false));
}
