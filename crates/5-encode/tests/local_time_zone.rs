//! TIMESTAMP values in a time zone with daylight saving time: the per-thread
//! offset cache of the Canal rendering must agree with `localtime_r` on every
//! second around the transitions. A test binary of its own, since it sets the
//! process's `TZ` before anything reads it.

use sluice_encode::canal::value::local_timestamp;

/// What `localtime_r` says of `t`, formatted as Canal renders it.
fn reference(t: i64) -> String {
    let t = t as libc::time_t;
    // SAFETY: localtime_r only writes into the tm we own.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    assert!(!unsafe { libc::localtime_r(&t, &mut tm) }.is_null());
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    )
}

#[test]
fn timestamps_around_daylight_saving_transitions_match_localtime() {
    // A POSIX rule (no zone files needed): UTC+1, summer time UTC+2 from the
    // last Sunday of March 02:07:13 to the last Sunday of October 03:00:41,
    // odd times so that a transition falls inside a quarter hour (as the
    // local mean times of old zones do).
    std::env::set_var("TZ", "CET-1CEST,M3.5.0/2:07:13,M10.5.0/3:00:41");
    // 2026-03-29 01:07:13 UTC and 2026-10-25 01:00:41 UTC: the transitions.
    let transitions = [1_774_746_433i64, 1_792_890_041];
    let mut checked = 0;
    for at in transitions {
        // Every second of two hours on both sides, in order and back again
        // (the cache holds the last quarter hour seen).
        let seconds: Vec<i64> = (at - 7200..at + 7200).collect();
        for &t in seconds.iter().chain(seconds.iter().rev()) {
            assert_eq!(local_timestamp(t as u32, 0, 0), reference(t), "t = {t}");
            checked += 1;
        }
    }
    // Seconds spread over decades, in no order.
    let mut t: u64 = 1;
    for _ in 0..20_000 {
        t = t.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let s = (t >> 33) % (u32::MAX as u64);
        let s = s.max(1) as i64;
        assert_eq!(local_timestamp(s as u32, 0, 0), reference(s), "t = {s}");
        checked += 1;
    }
    assert_eq!(checked, 2 * 2 * 14_400 + 20_000);
    // The fraction follows the seconds.
    let at = transitions[1];
    assert_eq!(
        local_timestamp(at as u32, 120_000, 3),
        format!("{}.120", reference(at))
    );
}
