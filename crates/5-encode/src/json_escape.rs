//! Finding the bytes a JSON string must escape, eight at a time.
//!
//! Every JSON writer here (FlatMessage, `sluice tail`, Debezium) escapes
//! the same bytes — `"`, `\` and the control characters below 0x20 — and
//! differs only in how it writes them. Values are mostly long runs that need
//! no escape, so the scan for the next one is what costs; a byte-at-a-time
//! table lookup was a sixth of the MQ path's instructions. This scan tests a
//! machine word per step with the classic "has a byte less than / equal to"
//! bit tricks, which no crate here offers for this set of bytes.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether a JSON string escapes byte `b`.
#[inline]
pub fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The escapes of a word, flagged by the high bit of their bytes: the
/// lowest flag is the first escape.
#[inline(always)]
fn escapes(w: u64) -> u64 {
    // A byte below 0x20 borrows from its own high bit; bytes of 0x80 and
    // above are masked out by `!w`. A borrow only ever flags bytes above a
    // true match, so the lowest flag is always a true match, and the lowest
    // of the three masks' lowest flags is the first escape.
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    let q = w ^ (ONES * u64::from(b'"'));
    let quote = q.wrapping_sub(ONES) & !q;
    let s = w ^ (ONES * u64::from(b'\\'));
    let slash = s.wrapping_sub(ONES) & !s;
    (control | quote | slash) & HIGHS
}

#[inline(always)]
fn word(b: &[u8], at: usize) -> u64 {
    let w = &b[at..at + 8];
    u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]])
}

#[inline(always)]
fn half(b: &[u8], at: usize) -> u64 {
    let w = &b[at..at + 4];
    u64::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
}

/// The index of the first byte of `bytes` at or after `from` that a JSON
/// string escapes, if any.
#[inline(always)]
pub fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    let rest = bytes.get(from..)?;
    let n = rest.len();
    let first = |at: usize, hits: u64| Some(from + at + (hits.trailing_zeros() / 8) as usize);
    if n >= 8 {
        let mut at = 0;
        while at + 8 <= n {
            let hits = escapes(word(rest, at));
            if hits != 0 {
                return first(at, hits);
            }
            at += 8;
        }
        if at < n {
            // The last bytes, in a word that overlaps the one before: that
            // one had no escape, so the lowest flag is still the first.
            let at = n - 8;
            let hits = escapes(word(rest, at));
            if hits != 0 {
                return first(at, hits);
            }
        }
        return None;
    }
    if n >= 4 {
        // The first four bytes and the last four (overlapping when fewer
        // than eight) in one word, the last in its upper half.
        let hits = escapes(half(rest, 0) | half(rest, n - 4) << 32);
        if hits == 0 {
            return None;
        }
        let i = (hits.trailing_zeros() / 8) as usize;
        return Some(from + if i < 4 { i } else { n + i - 8 });
    }
    rest.iter().position(|&b| needs_escape(b)).map(|i| from + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(bytes: &[u8], from: usize) -> Option<usize> {
        bytes
            .iter()
            .enumerate()
            .skip(from)
            .find(|(_, &b)| needs_escape(b))
            .map(|(i, _)| i)
    }

    #[test]
    fn finds_every_escaped_byte_at_every_place_of_a_word() {
        // Every byte value, at each position of strings up to three words
        // long, behind fillers that sit on the edges of the tests (0x20,
        // 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xff) and after another hit.
        for filler in [b' ', b'!', b'#', b'[', b']', 0x7f, 0x80, 0xff, b'a'] {
            for len in 0..24 {
                for pos in 0..len {
                    for b in 0..=255u8 {
                        let mut s = vec![filler; len];
                        s[pos] = b;
                        for from in [0, pos.saturating_sub(1), pos, pos + 1] {
                            assert_eq!(
                                next_escape(&s, from),
                                naive(&s, from),
                                "filler {filler:#x} len {len} byte {b:#x} at {pos} from {from}"
                            );
                        }
                        // A second hit later on must not hide the first.
                        if pos + 1 < len {
                            s[len - 1] = 0x01;
                            assert_eq!(next_escape(&s, 0), naive(&s, 0));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn start_past_the_end_finds_nothing() {
        assert_eq!(next_escape(b"ab\"", 3), None);
        assert_eq!(next_escape(b"ab\"", 10), None);
        assert_eq!(next_escape(b"", 0), None);
    }
}
