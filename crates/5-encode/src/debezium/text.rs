//! Text primitives of the Debezium JSON: string escaping as Jackson writes
//! it, base64 and hex as Java's encoders give them, numbers as Java prints
//! them, and DECIMAL values as Kafka Connect's `Decimal` bytes.

use sluice_binlog::decimal::push_u64;

/// Appends `s` as a JSON string literal, escaped as Jackson escapes it:
/// `"` and `\`, the short forms `\b \t \n \f \r`, other control characters
/// as `\u00XX` (uppercase hex); everything else, non-ASCII included, as is.
pub(crate) fn push_str(out: &mut String, s: &str) {
    out.push('"');
    push_escaped(out, s);
    out.push('"');
}

/// The inside of a JSON string literal (see [`push_str`]).
pub(crate) fn push_escaped(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let bytes = s.as_bytes();
    let mut start = 0;
    while let Some(i) = crate::json_escape::next_escape(bytes, start) {
        let b = bytes[i];
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            _ => "",
        };
        out.push_str(&s[start..i]);
        if short.is_empty() {
            out.push_str("\\u00");
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 15) as usize] as char);
        } else {
            out.push_str(short);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
}

/// Appends `bytes` in base64 with padding: the standard alphabet (Java's
/// `Base64.getEncoder()`, which JsonConverter uses for BYTES) or the
/// URL-safe one (`Base64.getUrlEncoder()`, also padded).
pub(crate) fn push_base64(out: &mut String, bytes: &[u8], url_safe: bool) {
    const STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let table = if url_safe { URL } else { STD };
    out.reserve(bytes.len().div_ceil(3) * 4);
    let mut chunks = bytes.chunks_exact(3);
    for c in &mut chunks {
        let n = (c[0] as u32) << 16 | (c[1] as u32) << 8 | c[2] as u32;
        for shift in [18, 12, 6, 0] {
            out.push(table[(n >> shift) as usize & 63] as char);
        }
    }
    match *chunks.remainder() {
        [a] => {
            let n = (a as u32) << 16;
            out.push(table[(n >> 18) as usize & 63] as char);
            out.push(table[(n >> 12) as usize & 63] as char);
            out.push_str("==");
        }
        [a, b] => {
            let n = (a as u32) << 16 | (b as u32) << 8;
            out.push(table[(n >> 18) as usize & 63] as char);
            out.push(table[(n >> 12) as usize & 63] as char);
            out.push(table[(n >> 6) as usize & 63] as char);
            out.push('=');
        }
        _ => {}
    }
}

/// Appends `bytes` as lowercase hex digits (Debezium's `HexConverter`).
pub(crate) fn push_hex(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(bytes.len() * 2);
    for &b in bytes {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 15) as usize] as char);
    }
}

pub(crate) fn push_i64(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    push_u64(out, v.unsigned_abs());
}

/// Appends a FLOAT (`single`) or DOUBLE as Java's `Float.toString` /
/// `Double.toString` print it, which is what Jackson writes for Connect's
/// float32/float64: the shortest digits that read back to the value, plain
/// notation with at least one fraction digit for 10^-3 <= |v| < 10^7
/// (`2.25`, `100.0`), `d.dddE<n>` outside it (`1.0E7`, `-3.4E38`,
/// `1.5E-7`). NaN and infinities come out as the strings Jackson writes by
/// default (`"NaN"`, `"Infinity"`, `"-Infinity"`); MySQL stores none of them.
pub(crate) fn push_java_float(out: &mut String, v: f64, single: bool) {
    if v.is_nan() || v.is_infinite() {
        // Jackson writes these as strings, not bare words.
        out.push('"');
        crate::canal::value::java_float_into(v, single, out);
        out.push('"');
        return;
    }
    // The same text as Canal's, which prints values as Java does too.
    crate::canal::value::java_float_into(v, single, out);
}

/// A DECIMAL's text as MySQL renders it (`-12.34`, `0.000`) split into
/// sign, the unscaled integer's digits and the scale.
struct DecimalDigits<'a> {
    negative: bool,
    int_part: &'a str,
    frac_part: &'a str,
}

fn split_decimal(text: &str) -> DecimalDigits<'_> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let (int_part, frac_part) = rest.split_once('.').unwrap_or((rest, ""));
    DecimalDigits {
        negative,
        int_part,
        frac_part,
    }
}

/// Limbs of the unscaled magnitude: 65 decimal digits need 216 bits.
const LIMBS: usize = 8;

/// Writes the unscaled integer of the DECIMAL text `text` (e.g. `-12.34` →
/// -1234) into `out` as Java's `BigInteger.toByteArray` gives it: big-endian
/// two's complement in the fewest bytes that keep the sign (1234 → `04 D2`,
/// -1234 → `FB 2E`, 0 → `00`, 128 → `00 80`, -128 → `80`). Kafka Connect's
/// `Decimal` is these bytes. Returns false if `text` is not a decimal of at
/// most 77 digits.
pub(crate) fn decimal_unscaled_bytes(text: &str, out: &mut Vec<u8>) -> bool {
    let d = split_decimal(text);
    let mut limbs = [0u32; LIMBS];
    // Limbs in use (little-endian): only those are multiplied.
    let mut used = 0usize;
    // Digits are taken nine at a time: one multiply-add by 10^n per limb
    // for each group instead of one per digit.
    let mut group = 0u64;
    let mut scale = 1u64;
    let mut digits = d.int_part.bytes().chain(d.frac_part.bytes()).peekable();
    while let Some(c) = digits.next() {
        if !c.is_ascii_digit() {
            return false;
        }
        group = group * 10 + (c - b'0') as u64;
        scale *= 10;
        if scale < 1_000_000_000 && digits.peek().is_some() {
            continue;
        }
        let mut carry = group;
        for limb in limbs.iter_mut().take(used) {
            let v = *limb as u64 * scale + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        while carry != 0 {
            match limbs.get_mut(used) {
                Some(limb) => {
                    *limb = carry as u32;
                    carry >>= 32;
                    used += 1;
                }
                None => return false,
            }
        }
        group = 0;
        scale = 1;
    }
    if d.int_part.is_empty() && d.frac_part.is_empty() {
        return false;
    }
    let mut be = [0u8; LIMBS * 4];
    for (i, limb) in limbs.iter().rev().enumerate() {
        be[i * 4..i * 4 + 4].copy_from_slice(&limb.to_be_bytes());
    }
    twos_complement_minimal(&mut be, d.negative && limbs.iter().any(|&l| l != 0), out);
    true
}

/// The integer `-magnitude` (`negative`) or `magnitude` (below 2^127) as
/// `BigInteger.toByteArray` gives it, `bytes[start..]` of the returned
/// `(bytes, start)`: what [`decimal_unscaled_bytes`] gives for a DECIMAL's
/// digits, from its unscaled value.
pub(crate) fn unscaled_bytes(negative: bool, magnitude: u128) -> ([u8; 16], usize) {
    let v = if negative {
        (magnitude as i128).wrapping_neg()
    } else {
        magnitude as i128
    };
    // The fewest bytes that hold the value and its sign bit.
    let value_bits = 128 - if v < 0 { !v } else { v }.leading_zeros() as usize;
    let len = (value_bits + 1).div_ceil(8);
    (v.to_be_bytes(), 16 - len)
}

/// The unsigned 64-bit `v` as `BigInteger.toByteArray` gives it (a leading
/// zero byte when the top bit is set): BIGINT UNSIGNED in precise mode.
pub(crate) fn u64_unscaled_bytes(v: u64, out: &mut Vec<u8>) {
    let (bytes, start) = unscaled_bytes(false, v.into());
    out.clear();
    out.extend_from_slice(&bytes[start..]);
}

/// Negates the big-endian magnitude `be` in place when `negative`, then
/// appends the shortest big-endian two's complement form of it to `out`.
/// `be` must have a zero top bit as a magnitude.
fn twos_complement_minimal(be: &mut [u8], negative: bool, out: &mut Vec<u8>) {
    out.clear();
    if negative {
        let mut carry = true;
        for b in be.iter_mut().rev() {
            let (v, c) = (!*b).overflowing_add(carry as u8);
            *b = v;
            carry = c;
        }
    }
    let filler = if negative { 0xff } else { 0x00 };
    let mut start = 0;
    // Drop a sign-filler byte while the byte after it still carries the sign.
    while start + 1 < be.len() && be[start] == filler && (be[start + 1] & 0x80 != 0) == negative {
        start += 1;
    }
    out.extend_from_slice(&be[start..]);
}

/// Appends a DECIMAL's text as Java's `BigDecimal.toString` prints it
/// (what JsonConverter writes with `decimal.format=NUMERIC`): plain when the
/// adjusted exponent is at least -6 (`12.34`, `0.05`), otherwise scientific
/// (`1.000E-9`, `0E-30`).
pub(crate) fn push_java_big_decimal(out: &mut String, text: &str) {
    let d = split_decimal(text);
    let scale = d.frac_part.len() as i64;
    let all = d.int_part.bytes().chain(d.frac_part.bytes());
    let leading_zeros = all.clone().take_while(|&c| c == b'0').count();
    let total = d.int_part.len() + d.frac_part.len();
    let significant = total.saturating_sub(leading_zeros).max(1) as i64;
    let adjusted = -scale + (significant - 1);
    if adjusted >= -6 {
        if d.negative {
            out.push('-');
        }
        let int_part = d.int_part.trim_start_matches('0');
        out.push_str(if int_part.is_empty() { "0" } else { int_part });
        if !d.frac_part.is_empty() {
            out.push('.');
            out.push_str(d.frac_part);
        }
        return;
    }
    // Scientific: the unscaled digits without leading zeros.
    let mut digits = String::with_capacity(total);
    digits.extend(all.skip(leading_zeros).map(char::from));
    if digits.is_empty() {
        digits.push('0');
    }
    if d.negative {
        out.push('-');
    }
    out.push_str(&digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    out.push('E');
    push_i64(out, adjusted);
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub(crate) fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(bytes: &[u8]) -> String {
        let mut s = String::new();
        push_base64(&mut s, bytes, false);
        s
    }

    #[test]
    fn unscaled_bytes_are_those_of_the_decimal_text() {
        let max38 = "9".repeat(38);
        for text in [
            "0",
            "-0",
            "1",
            "-1",
            "127",
            "128",
            "-128",
            "-129",
            "255",
            "256",
            "-32768",
            "12.50",
            "-12.50",
            "0.05",
            "-0.05",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "18446744073709551616",
            &max38,
            &format!("-{max38}"),
            "1234567890.1234567890",
        ] {
            let mut from_text = Vec::new();
            assert!(decimal_unscaled_bytes(text, &mut from_text), "{text}");
            let digits: String = text.chars().filter(|c| c.is_ascii_digit()).collect();
            let (bytes, start) = unscaled_bytes(text.starts_with('-'), digits.parse().unwrap());
            assert_eq!(bytes[start..], from_text[..], "{text}");
        }
    }

    fn decimal_b64(text: &str) -> String {
        let mut bytes = Vec::new();
        assert!(decimal_unscaled_bytes(text, &mut bytes), "{text}");
        b64(&bytes)
    }

    fn decimal_bytes(text: &str) -> Vec<u8> {
        let mut bytes = Vec::new();
        assert!(decimal_unscaled_bytes(text, &mut bytes), "{text}");
        bytes
    }

    #[test]
    fn decimals_become_big_integer_bytes() {
        assert_eq!(decimal_b64("12.34"), "BNI=");
        assert_eq!(decimal_b64("-12.34"), "+y4=");
        assert_eq!(decimal_b64("0.00"), "AA==");
        assert_eq!(decimal_b64("0"), "AA==");
        assert_eq!(decimal_b64("-0.00"), "AA==");
        assert_eq!(decimal_bytes("127"), [0x7f]);
        assert_eq!(decimal_bytes("128"), [0x00, 0x80]);
        assert_eq!(decimal_bytes("-128"), [0x80]);
        assert_eq!(decimal_bytes("-129"), [0xff, 0x7f]);
        assert_eq!(decimal_bytes("-1"), [0xff]);
        assert_eq!(decimal_bytes("-256"), [0xff, 0x00]);
        assert_eq!(decimal_bytes("255"), [0x00, 0xff]);
        assert_eq!(decimal_bytes("-0.05"), [0xfb]);
    }

    #[test]
    fn sixty_five_digit_decimals_become_big_integer_bytes() {
        // DECIMAL(65,30) at its extremes: ±(10^65 - 1) unscaled, whose top
        // bit is set in 27 bytes, so the positive one takes a leading 00.
        let nines = "9".repeat(35) + "." + &"9".repeat(30);
        assert_eq!(
            decimal_b64(&nines),
            "APMWJxx/w5CKi+9GTjlF73olNgn//////////w=="
        );
        assert_eq!(
            decimal_b64(&format!("-{nines}")),
            "/wzp2OOAPG91dBC5sca6EIXayfYAAAAAAAAAAQ=="
        );
        assert!(!decimal_unscaled_bytes("1x", &mut Vec::new()));
        assert!(!decimal_unscaled_bytes(&"9".repeat(80), &mut Vec::new()));
    }

    /// The unscaled value's bytes, one digit at a time with schoolbook
    /// arithmetic on a byte vector: an independent reference.
    fn reference_bytes(text: &str) -> Vec<u8> {
        let negative = text.starts_with('-');
        let mut mag: Vec<u8> = vec![0]; // big-endian, leading zero kept
        for c in text.bytes().filter(u8::is_ascii_digit) {
            let mut carry = (c - b'0') as u32;
            for b in mag.iter_mut().rev() {
                let v = *b as u32 * 10 + carry;
                *b = v as u8;
                carry = v >> 8;
            }
            while carry != 0 {
                mag.insert(0, carry as u8);
                carry >>= 8;
            }
        }
        mag.insert(0, 0);
        let zero = mag.iter().all(|&b| b == 0);
        let mut out = Vec::new();
        super::twos_complement_minimal(&mut mag, negative && !zero, &mut out);
        out
    }

    #[test]
    fn decimal_bytes_match_digit_by_digit_arithmetic() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..3000 {
            let int_len = (next() % 36) as usize;
            let frac_len = (next() % 30) as usize;
            let digit = |n: u64| char::from(b'0' + (n % 10) as u8);
            let int: String = (0..int_len.max(1)).map(|_| digit(next())).collect();
            let frac: String = (0..frac_len).map(|_| digit(next())).collect();
            let sign = if next() % 2 == 0 { "-" } else { "" };
            let text = if frac.is_empty() {
                format!("{sign}{int}")
            } else {
                format!("{sign}{int}.{frac}")
            };
            assert_eq!(decimal_bytes(&text), reference_bytes(&text), "{text}");
        }
    }

    #[test]
    fn unsigned_bigint_precise_bytes() {
        let mut v = Vec::new();
        u64_unscaled_bytes(u64::MAX, &mut v);
        assert_eq!(b64(&v), "AP//////////");
        u64_unscaled_bytes(0, &mut v);
        assert_eq!(v, [0]);
        u64_unscaled_bytes(1 << 63, &mut v);
        assert_eq!(v, [0, 0x80, 0, 0, 0, 0, 0, 0, 0]);
    }

    fn java(v: f64, single: bool) -> String {
        let mut s = String::new();
        push_java_float(&mut s, v, single);
        s
    }

    #[test]
    fn floats_print_as_java_does() {
        assert_eq!(java(2.25, false), "2.25");
        assert_eq!(java(100.0, false), "100.0");
        assert_eq!(java(1e7, false), "1.0E7");
        assert_eq!(java(9_999_999.0, false), "9999999.0");
        assert_eq!(java(0.001, false), "0.001");
        assert_eq!(java(0.0001, false), "1.0E-4");
        assert_eq!(java(1.5e-7, false), "1.5E-7");
        assert_eq!(
            java(-1.7976931348623157e308, false),
            "-1.7976931348623157E308"
        );
        assert_eq!(java(-3.4e38_f32 as f64, true), "-3.4E38");
        assert_eq!(java(1.5_f32 as f64, true), "1.5");
        assert_eq!(java(0.1_f32 as f64, true), "0.1");
        assert_eq!(java(0.0, false), "0.0");
        assert_eq!(java(-0.0, false), "-0.0");
    }

    #[test]
    fn big_decimals_print_as_java_does() {
        let p = |t: &str| {
            let mut s = String::new();
            push_java_big_decimal(&mut s, t);
            s
        };
        assert_eq!(p("12.34"), "12.34");
        assert_eq!(p("-12.34"), "-12.34");
        assert_eq!(p("0.05"), "0.05");
        assert_eq!(p("0.00"), "0.00");
        assert_eq!(p("-99999"), "-99999");
        assert_eq!(p("0.000000001"), "1E-9");
        assert_eq!(p("0.000000123"), "1.23E-7");
        assert_eq!(p(&format!("0.{}", "0".repeat(30))), "0E-30");
    }

    #[test]
    fn strings_escape_as_jackson_does() {
        let mut s = String::new();
        push_str(&mut s, "a\"b\\c\nd\u{1}é😀/");
        assert_eq!(s, "\"a\\\"b\\\\c\\nd\\u0001é😀/\"");
    }

    #[test]
    fn base64_and_hex() {
        assert_eq!(b64(b""), "");
        assert_eq!(b64(b"f"), "Zg==");
        assert_eq!(b64(b"fo"), "Zm8=");
        assert_eq!(b64(b"foo"), "Zm9v");
        let mut s = String::new();
        push_base64(&mut s, &[0xfb, 0xff], true);
        assert_eq!(s, "-_8=");
        s.clear();
        push_hex(&mut s, &[0xde, 0xad, 0x01]);
        assert_eq!(s, "dead01");
    }

    #[test]
    fn civil_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2024, 5, 1), 19844);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(days_from_civil(1000, 1, 1), -354_285);
    }
}
