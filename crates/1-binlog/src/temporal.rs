//! Date and time values in their binlog encodings (pre-5.6 and the 5.6+
//! "2" formats with fractional seconds), and their MySQL text rendering.

use crate::digits::{push_padded, push_u32, put_digits};
use crate::error::{DecodeError, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Time {
    pub negative: bool,
    /// Up to 838 in MySQL; larger values from corrupt input are kept as read.
    pub hours: u32,
    pub minutes: u8,
    pub seconds: u8,
    pub micros: u32,
    pub fsp: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateTime {
    pub date: Date,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub micros: u32,
    pub fsp: u8,
}

/// TIMESTAMP: seconds since the epoch, in UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timestamp {
    pub seconds: u32,
    pub micros: u32,
    pub fsp: u8,
}

/// Bytes of fractional seconds for a precision (TIME2/DATETIME2/TIMESTAMP2).
#[inline]
pub fn frac_bytes(fsp: u8) -> usize {
    (fsp as usize).div_ceil(2)
}

#[inline]
fn be(b: &[u8]) -> u64 {
    crate::bytes::uint_be(b)
}

/// Reads the fractional part of a DATETIME2/TIMESTAMP2 as microseconds.
#[inline]
fn frac_micros_unsigned(b: &[u8], fsp: u8) -> u32 {
    match fsp {
        1 | 2 => b[0] as u32 * 10_000,
        3 | 4 => be(&b[..2]) as u32 * 100,
        5 | 6 => be(&b[..3]) as u32,
        _ => 0,
    }
}

impl Date {
    /// DATE / NEWDATE: 3 bytes little-endian, day:5 month:4 year:15.
    #[inline]
    pub fn from_packed(v: u32) -> Date {
        Date {
            day: (v & 31) as u8,
            month: ((v >> 5) & 15) as u8,
            year: (v >> 9) as u16,
        }
    }
}

impl Time {
    /// Pre-5.6 TIME: 3-byte signed integer HHMMSS.
    pub fn from_old(v: i64) -> Time {
        let negative = v < 0;
        let a = v.unsigned_abs();
        Time {
            negative,
            hours: (a / 10000) as u32,
            minutes: ((a / 100) % 100) as u8,
            seconds: (a % 100) as u8,
            micros: 0,
            fsp: 0,
        }
    }

    /// TIME2: 3 bytes big-endian (offset 0x800000) plus 0–3 fraction bytes.
    pub fn from_time2(b: &[u8], fsp: u8) -> Result<Time> {
        let need = 3 + frac_bytes(fsp);
        if b.len() < need {
            return Err(DecodeError::invalid("TIME2 value", "too short"));
        }
        let mut intpart = be(&b[..3]) as i64 - 0x80_0000;
        let packed: i64 = match fsp {
            0 => intpart << 24,
            1 | 2 => {
                let mut frac = b[3] as i64;
                if intpart < 0 && frac != 0 {
                    intpart += 1;
                    frac -= 0x100;
                }
                (intpart << 24) + frac * 10_000
            }
            3 | 4 => {
                let mut frac = be(&b[3..5]) as i64;
                if intpart < 0 && frac != 0 {
                    intpart += 1;
                    frac -= 0x10000;
                }
                (intpart << 24) + frac * 100
            }
            _ => be(&b[..6]) as i64 - 0x8000_0000_0000,
        };
        let negative = packed < 0;
        let a = packed.unsigned_abs();
        let hms = a >> 24;
        Ok(Time {
            negative,
            hours: ((hms >> 12) % (1 << 10)) as u32,
            minutes: ((hms >> 6) % 64) as u8,
            seconds: (hms % 64) as u8,
            micros: (a % (1 << 24)) as u32,
            fsp,
        })
    }

    pub fn render(&self, out: &mut String) {
        if self.negative {
            out.push('-');
        }
        push_padded(out, self.hours, 2);
        out.push(':');
        push_padded(out, self.minutes as u32, 2);
        out.push(':');
        push_padded(out, self.seconds as u32, 2);
        push_fraction(out, self.micros, self.fsp);
    }
}

impl DateTime {
    /// Pre-5.6 DATETIME: an 8-byte integer YYYYMMDDhhmmss.
    pub fn from_old(v: u64) -> DateTime {
        let d = v / 1_000_000;
        let t = v % 1_000_000;
        DateTime {
            date: Date {
                year: (d / 10000) as u16,
                month: ((d / 100) % 100) as u8,
                day: (d % 100) as u8,
            },
            hour: (t / 10000) as u8,
            minute: ((t / 100) % 100) as u8,
            second: (t % 100) as u8,
            micros: 0,
            fsp: 0,
        }
    }

    /// DATETIME2: 5 bytes big-endian (offset 0x8000000000) plus fraction bytes.
    pub fn from_datetime2(b: &[u8], fsp: u8) -> Result<DateTime> {
        let need = 5 + frac_bytes(fsp);
        if b.len() < need {
            return Err(DecodeError::invalid("DATETIME2 value", "too short"));
        }
        let intpart = (be(&b[..5]) as i64 - 0x80_0000_0000).unsigned_abs();
        let ymd = intpart >> 17;
        let ym = ymd >> 5;
        let hms = intpart % (1 << 17);
        Ok(DateTime {
            date: Date {
                year: (ym / 13) as u16,
                month: (ym % 13) as u8,
                day: (ymd % 32) as u8,
            },
            hour: (hms >> 12) as u8,
            minute: ((hms >> 6) % 64) as u8,
            second: (hms % 64) as u8,
            micros: frac_micros_unsigned(&b[5..], fsp),
            fsp,
        })
    }

    pub fn render(&self, out: &mut String) {
        let d = &self.date;
        if d.year > 9999
            || d.month > 99
            || d.day > 99
            || self.hour > 99
            || self.minute > 99
            || self.second > 99
        {
            return self.render_wide(out);
        }
        // The usual widths: the text in one piece.
        let mut b = *b"0000-00-00 00:00:00";
        put_digits(&mut b[..4], d.year as u32);
        put_digits(&mut b[5..7], d.month as u32);
        put_digits(&mut b[8..10], d.day as u32);
        put_digits(&mut b[11..13], self.hour as u32);
        put_digits(&mut b[14..16], self.minute as u32);
        put_digits(&mut b[17..19], self.second as u32);
        out.push_str(crate::bytes::ascii_str(&b));
        push_fraction(out, self.micros, self.fsp);
    }

    /// [`DateTime::render`] of fields wider than usual (no valid value
    /// has them): each padded to its width, every digit kept.
    fn render_wide(&self, out: &mut String) {
        self.date.render_wide(out);
        out.push(' ');
        push_padded(out, self.hour as u32, 2);
        out.push(':');
        push_padded(out, self.minute as u32, 2);
        out.push(':');
        push_padded(out, self.second as u32, 2);
        push_fraction(out, self.micros, self.fsp);
    }
}

impl Date {
    pub fn render(&self, out: &mut String) {
        if self.year > 9999 || self.month > 99 || self.day > 99 {
            return self.render_wide(out);
        }
        let mut b = *b"0000-00-00";
        put_digits(&mut b[..4], self.year as u32);
        put_digits(&mut b[5..7], self.month as u32);
        put_digits(&mut b[8..10], self.day as u32);
        out.push_str(crate::bytes::ascii_str(&b));
    }

    /// [`Date::render`] of fields wider than usual.
    fn render_wide(&self, out: &mut String) {
        push_padded(out, self.year as u32, 4);
        out.push('-');
        push_padded(out, self.month as u32, 2);
        out.push('-');
        push_padded(out, self.day as u32, 2);
    }
}

impl Timestamp {
    pub fn from_timestamp2(b: &[u8], fsp: u8) -> Result<Timestamp> {
        let need = 4 + frac_bytes(fsp);
        if b.len() < need {
            return Err(DecodeError::invalid("TIMESTAMP2 value", "too short"));
        }
        Ok(Timestamp {
            seconds: be(&b[..4]) as u32,
            micros: frac_micros_unsigned(&b[4..], fsp),
            fsp,
        })
    }

    /// The UTC date and time; the zero timestamp is MySQL's zero date.
    pub fn to_datetime(&self) -> DateTime {
        if self.seconds == 0 && self.micros == 0 {
            return DateTime {
                date: Date {
                    year: 0,
                    month: 0,
                    day: 0,
                },
                hour: 0,
                minute: 0,
                second: 0,
                micros: 0,
                fsp: self.fsp,
            };
        }
        let days = (self.seconds / 86_400) as i64;
        let secs = self.seconds % 86_400;
        let (y, m, d) = civil_from_days(days);
        DateTime {
            date: Date {
                year: y as u16,
                month: m as u8,
                day: d as u8,
            },
            hour: (secs / 3600) as u8,
            minute: ((secs / 60) % 60) as u8,
            second: (secs % 60) as u8,
            micros: self.micros,
            fsp: self.fsp,
        }
    }

    pub fn render(&self, out: &mut String) {
        self.to_datetime().render(out)
    }
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day).
/// Howard Hinnant's `civil_from_days`.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Appends ".ffffff" cut to `fsp` digits (nothing for fsp 0).
fn push_fraction(out: &mut String, micros: u32, fsp: u8) {
    if fsp == 0 {
        return;
    }
    let fsp = fsp.min(6) as usize;
    let mut b = *b".000000";
    put_digits(&mut b[1..], micros % 1_000_000);
    out.push_str(crate::bytes::ascii_str(&b[..1 + fsp]));
}

/// Renders a YEAR value: 0 is "0000", others 1900 + v.
pub fn render_year(v: u8, out: &mut String) {
    if v == 0 {
        out.push_str("0000");
    } else {
        push_u32(out, 1900 + v as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text<F: Fn(&mut String)>(f: F) -> String {
        let mut s = String::new();
        f(&mut s);
        s
    }

    #[test]
    fn epoch_conversion() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        let ts = Timestamp {
            seconds: 1_700_000_000,
            micros: 123_456,
            fsp: 3,
        };
        assert_eq!(text(|s| ts.render(s)), "2023-11-14 22:13:20.123");
    }

    #[test]
    fn one_piece_rendering_equals_the_padded_one() {
        let mut n = 0u32;
        for year in [0u16, 1, 99, 1970, 2024, 9999, 10_000, 10_082] {
            for (month, day) in [(0u8, 0u8), (1, 9), (12, 31), (100, 7)] {
                for (hour, minute, second) in
                    [(0u8, 0u8, 0u8), (9, 5, 7), (23, 59, 59), (31, 63, 63)]
                {
                    for (micros, fsp) in [(0u32, 0u8), (5, 6), (123_456, 3), (999_999, 6), (1, 1)] {
                        let dt = DateTime {
                            date: Date { year, month, day },
                            hour,
                            minute,
                            second,
                            micros,
                            fsp,
                        };
                        assert_eq!(
                            text(|s| dt.render(s)),
                            text(|s| dt.render_wide(s)),
                            "{dt:?}"
                        );
                        assert_eq!(
                            text(|s| dt.date.render(s)),
                            text(|s| dt.date.render_wide(s))
                        );
                        n += 1;
                    }
                }
            }
        }
        assert_eq!(n, 8 * 4 * 4 * 5);
        let dt = DateTime {
            date: Date {
                year: 2024,
                month: 2,
                day: 29,
            },
            hour: 13,
            minute: 4,
            second: 5,
            micros: 60_000,
            fsp: 2,
        };
        assert_eq!(text(|s| dt.render(s)), "2024-02-29 13:04:05.06");
    }

    #[test]
    fn time2_negative_with_fraction() {
        // -00:00:01.5 at fsp 1: int part floor(-1.5 s) = -2 → 0x7ffffe, fraction -50 → 0xce

        let t = Time::from_time2(&[0x7f, 0xff, 0xfe, 0xce], 1).unwrap();
        assert_eq!(text(|s| t.render(s)), "-00:00:01.5");
        let t = Time::from_time2(&[0x80, 0x10, 0x01], 0).unwrap();
        assert_eq!(text(|s| t.render(s)), "01:00:01");
    }
}
