//! Small text-writing helpers shared by the value renderers (decimal,
//! temporal): digits into a fixed buffer, integers and zero-padded integers
//! onto a `String`.

/// Powers of ten that fit a `u32`, `POW10[i]` = 10^i.
pub(crate) const POW10: [u32; 10] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];

/// Appends `v` in decimal.
#[inline]
pub(crate) fn push_u32(out: &mut String, v: u32) {
    out.push_str(itoa::Buffer::new().format(v));
}

/// Appends `v` in decimal.
#[inline]
pub fn push_u64(out: &mut String, v: u64) {
    // Two digits a step and no UTF-8 check of the digits: integers are most
    // of the values rendered.
    out.push_str(itoa::Buffer::new().format(v));
}

/// Appends `v` zero-padded to `width` digits (more digits if `v` is larger).
#[inline]
pub(crate) fn push_padded(out: &mut String, v: u32, width: usize) {
    let mut w = width.min(9);
    while w > 1 && v < POW10[w - 1] {
        out.push('0');
        w -= 1;
    }
    push_u32(out, v);
}

/// Writes `v` into `b` as decimal digits, right-aligned and zero-padded
/// (digits that do not fit are dropped: callers check the range). Two
/// digits a step, from a table: half the divisions of one a step.
#[inline]
pub(crate) fn put_digits(b: &mut [u8], mut v: u32) {
    const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    let mut end = b.len();
    while end >= 2 {
        let pair = (v % 100) as usize * 2;
        v /= 100;
        b[end - 2..end].copy_from_slice(&PAIRS[pair..pair + 2]);
        end -= 2;
    }
    if end == 1 {
        b[0] = b'0' + (v % 10) as u8;
    }
}
