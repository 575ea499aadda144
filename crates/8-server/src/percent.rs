//! Percent-encoding for the HTTP requests the server and `sluice admin`
//! send (path segments and query values): a dozen lines, not worth a
//! crate.

/// `s` with every byte but RFC 3986's unreserved characters
/// percent-encoded.
pub(crate) fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::encode;

    #[test]
    fn only_unreserved_characters_stay() {
        assert_eq!(encode("a b/c,d"), "a%20b%2Fc%2Cd");
        assert_eq!(encode("10.0.0.1"), "10.0.0.1");
        assert_eq!(encode("A-z_0.9~"), "A-z_0.9~");
    }
}
