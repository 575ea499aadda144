//! What peers may make the server hold or do before they have logged in:
//! file descriptors (a connection cap kept below RLIMIT_NOFILE minus a
//! reserve for cursors, the store and the sources), password checks (a
//! per-address backoff after failed logins) and log lines (a budget per
//! kind of line, so a flood does not flood the log).
//!
//! Owns: the bookkeeping, as plain values behind short-held locks, with the
//! time passed in so it can be tested without waiting. Must never: grow
//! with the number of addresses seen (the table of addresses is bounded),
//! or hold a lock across I/O.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Largest frame accepted before login: a ClientAuth is a few hundred
/// bytes (a filter it may carry, a few KiB), so nothing larger is buffered
/// for a peer that has not proved who it is.
pub const MAX_LOGIN_FRAME: usize = 64 * 1024;

/// Addresses whose failed logins are remembered, at most; when full, the
/// address whose last failure is oldest is forgotten first.
pub const MAX_TRACKED_ADDRESSES: usize = 4096;

/// The first refusal after `max_failed_logins`; it doubles with each
/// further failure up to the configured maximum.
pub const FIRST_BACKOFF: Duration = Duration::from_secs(1);

/// The RLIMIT_NOFILE soft limit, `None` when unlimited or unknown.
pub fn nofile_limit() -> Option<u64> {
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct it is given and nothing else.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } != 0
        || rl.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    Some(rl.rlim_cur)
}

/// Raises the RLIMIT_NOFILE soft limit to the hard limit (allowed without
/// privileges), so the connection cap is not needlessly low. Returns the
/// soft limit in force afterwards (`None`: unlimited).
pub fn raise_nofile_limit() -> io::Result<Option<u64>> {
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: as above.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } != 0 {
        return Err(io::Error::last_os_error());
    }
    if rl.rlim_cur != rl.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: rl.rlim_max,
            rlim_max: rl.rlim_max,
        };
        // SAFETY: setrlimit reads the struct it is given and nothing else.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(nofile_limit())
}

/// Client connections allowed at once: the configured cap, kept below the
/// descriptor limit minus the reserve. 0 means the limit leaves no
/// descriptor for clients.
pub fn connection_cap(configured: usize, reserved: usize, nofile: Option<u64>) -> usize {
    match nofile {
        None => configured,
        Some(limit) => {
            let spare = limit.saturating_sub(reserved as u64);
            configured.min(usize::try_from(spare).unwrap_or(usize::MAX))
        }
    }
}

/// The address failed logins are counted against: IPv4 as is, an IPv6
/// address by its /64 (one host usually holds a whole /64), an IPv4-mapped
/// IPv6 address as the IPv4 address.
pub fn login_address(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !((1u128 << 64) - 1))),
        },
    }
}

/// Open connections per address (IPv6 by /64, as [`login_address`]), so
/// that one peer cannot take every place under the connection cap. Holds
/// only addresses with a connection open: it never outgrows the cap.
pub struct AddressConnections {
    max_per_address: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
}

impl AddressConnections {
    pub fn new(max_per_address: usize) -> AddressConnections {
        AddressConnections {
            max_per_address: max_per_address.max(1),
            open: Mutex::new(HashMap::new()),
        }
    }

    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, usize>> {
        // Plain counts: one a panicking holder left is usable.
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts a connection from `ip`, unless its address already has the
    /// most allowed: then `Err(connections open from it)`.
    pub fn opened(&self, ip: IpAddr) -> Result<(), usize> {
        let mut open = self.open();
        let n = open.entry(login_address(ip)).or_insert(0);
        if *n >= self.max_per_address {
            return Err(*n);
        }
        *n += 1;
        Ok(())
    }

    /// A connection from `ip` counted by [`opened`](Self::opened) closed.
    pub fn closed(&self, ip: IpAddr) {
        let mut open = self.open();
        let key = login_address(ip);
        if let Some(n) = open.get_mut(&key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&key);
            }
        }
    }

    /// Addresses with a connection open.
    pub fn addresses(&self) -> usize {
        self.open().len()
    }
}

/// One address's recent failed logins.
#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    last: Instant,
    refused_until: Option<Instant>,
}

/// What a failed login led to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Failed {
    /// Failed logins from the address so far.
    pub count: u32,
    /// How long its logins are now refused, if they are.
    pub refused_for: Option<Duration>,
}

/// Failed logins per address, across connections: after
/// `max_failures` of them an address's logins are refused (without their
/// password being checked) for [`FIRST_BACKOFF`], doubling with each
/// further failure up to `backoff_max`. A successful login clears the
/// address; one quiet for ten times `backoff_max` (at least a minute) is
/// forgotten.
pub struct LoginThrottle {
    max_failures: u32,
    backoff_max: Duration,
    forget_after: Duration,
    capacity: usize,
    table: Mutex<HashMap<IpAddr, Failures>>,
}

impl LoginThrottle {
    pub fn new(max_failures: u32, backoff_max: Duration) -> LoginThrottle {
        LoginThrottle::with_capacity(max_failures, backoff_max, MAX_TRACKED_ADDRESSES)
    }

    pub fn with_capacity(
        max_failures: u32,
        backoff_max: Duration,
        capacity: usize,
    ) -> LoginThrottle {
        LoginThrottle {
            max_failures: max_failures.max(1),
            backoff_max,
            forget_after: backoff_max.saturating_mul(10).max(Duration::from_secs(60)),
            capacity: capacity.max(1),
            table: Mutex::new(HashMap::new()),
        }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, Failures>> {
        // The table holds plain values: one a panicking holder left is usable.
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn forgotten(&self, f: &Failures, now: Instant) -> bool {
        f.refused_until.is_none_or(|t| t <= now)
            && now.saturating_duration_since(f.last) >= self.forget_after
    }

    /// Whether `ip` may try a login now; if not, how long until it may.
    pub fn check(&self, ip: IpAddr, now: Instant) -> Result<(), Duration> {
        let key = login_address(ip);
        let mut table = self.table();
        let Some(f) = table.get(&key).copied() else {
            return Ok(());
        };
        if self.forgotten(&f, now) {
            table.remove(&key);
            return Ok(());
        }
        match f.refused_until {
            Some(t) if t > now => Err(t - now),
            _ => Ok(()),
        }
    }

    /// Records a failed login from `ip`.
    pub fn failed(&self, ip: IpAddr, now: Instant) -> Failed {
        let key = login_address(ip);
        let mut table = self.table();
        if !table.contains_key(&key) && table.len() >= self.capacity {
            table.retain(|_, f| !self.forgotten(f, now));
            if table.len() >= self.capacity {
                let oldest = table.iter().min_by_key(|(_, f)| f.last).map(|(k, _)| *k);
                if let Some(oldest) = oldest {
                    table.remove(&oldest);
                }
            }
        }
        let f = table.entry(key).or_insert(Failures {
            count: 0,
            last: now,
            refused_until: None,
        });
        if self.forgotten(f, now) {
            f.count = 0;
        }
        f.count = f.count.saturating_add(1);
        f.last = now;
        let refused_for = (f.count >= self.max_failures).then(|| {
            let doublings = (f.count - self.max_failures).min(30);
            FIRST_BACKOFF
                .min(self.backoff_max)
                .saturating_mul(1u32 << doublings)
                .min(self.backoff_max)
        });
        f.refused_until = refused_for.map(|d| now + d);
        Failed {
            count: f.count,
            refused_for,
        }
    }

    /// A successful login from `ip` clears its failures.
    pub fn succeeded(&self, ip: IpAddr) {
        self.table().remove(&login_address(ip));
    }

    /// Addresses currently remembered.
    pub fn tracked(&self) -> usize {
        self.table().len()
    }
}

/// A budget of log lines of one kind: at most `per_window` lines per
/// `window`; the lines left out are counted and reported with the next one.
pub struct LogBudget {
    per_window: u32,
    window: Duration,
    state: Mutex<LogWindow>,
}

struct LogWindow {
    start: Option<Instant>,
    logged: u32,
    suppressed: u64,
}

impl LogBudget {
    pub const fn new(per_window: u32, window: Duration) -> LogBudget {
        LogBudget {
            per_window,
            window,
            state: Mutex::new(LogWindow {
                start: None,
                logged: 0,
                suppressed: 0,
            }),
        }
    }

    /// `Some(lines left out since the last one logged)` when this line may
    /// be logged, `None` when it is over budget.
    pub fn allow(&self, now: Instant) -> Option<u64> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.start
            .is_none_or(|t| now.saturating_duration_since(t) >= self.window)
        {
            s.start = Some(now);
            s.logged = 0;
        }
        if s.logged >= self.per_window {
            s.suppressed += 1;
            return None;
        }
        s.logged += 1;
        Some(std::mem::take(&mut s.suppressed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    const A: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));

    #[test]
    fn backoff_starts_after_the_allowed_failures_and_doubles_up_to_the_cap() {
        let t = LoginThrottle::new(3, Duration::from_secs(5));
        let now = Instant::now();
        assert_eq!(t.failed(A, now).refused_for, None);
        assert_eq!(t.failed(A, now).refused_for, None);
        assert_eq!(t.check(A, now), Ok(()));
        assert_eq!(t.failed(A, now).refused_for, Some(Duration::from_secs(1)));
        assert_eq!(t.check(A, now), Err(Duration::from_secs(1)));
        assert_eq!(t.check(B, now), Ok(()), "other addresses are not affected");
        let later = now + Duration::from_secs(1);
        assert_eq!(t.check(A, later), Ok(()));
        let waits: Vec<_> = (0..4)
            .map(|_| t.failed(A, later).refused_for.unwrap().as_secs())
            .collect();
        assert_eq!(waits, [2, 4, 5, 5]);
        t.succeeded(A);
        assert_eq!(t.check(A, later), Ok(()));
        assert_eq!(t.failed(A, later).count, 1);
    }

    #[test]
    fn quiet_addresses_are_forgotten_and_the_table_is_bounded() {
        let t = LoginThrottle::with_capacity(2, Duration::from_secs(1), 100);
        let now = Instant::now();
        t.failed(A, now);
        assert_eq!(t.failed(A, now + Duration::from_secs(61)).count, 1);
        for i in 0..1000u32 {
            let ip = IpAddr::V4(Ipv4Addr::from(0x0b00_0000 + i));
            t.failed(ip, now + Duration::from_millis(u64::from(i)));
        }
        assert_eq!(t.tracked(), 100);
    }

    #[test]
    fn ipv6_addresses_count_by_their_64_prefix() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(login_address(a), login_address(b));
        assert_ne!(login_address(a), login_address(c));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(login_address(mapped), A);
    }

    #[test]
    fn the_cap_stays_below_the_descriptor_limit_minus_the_reserve() {
        assert_eq!(connection_cap(1024, 256, Some(512)), 256);
        assert_eq!(connection_cap(1024, 256, Some(65536)), 1024);
        assert_eq!(connection_cap(1024, 256, None), 1024);
        assert_eq!(connection_cap(1024, 256, Some(100)), 0);
        let limit = nofile_limit();
        let cap = connection_cap(usize::MAX, 64, limit);
        if let Some(limit) = limit {
            assert!(cap as u64 + 64 <= limit);
        }
    }

    #[test]
    fn connections_are_capped_per_address_and_given_back() {
        let c = AddressConnections::new(2);
        assert_eq!(c.opened(A), Ok(()));
        assert_eq!(c.opened(A), Ok(()));
        assert_eq!(c.opened(A), Err(2));
        assert_eq!(c.opened(B), Ok(()), "other addresses are not affected");
        c.closed(A);
        assert_eq!(c.opened(A), Ok(()));
        let v6a: IpAddr = "2001:db8::1".parse().unwrap();
        let v6b: IpAddr = "2001:db8::2".parse().unwrap();
        assert_eq!(c.opened(v6a), Ok(()));
        assert_eq!(c.opened(v6b), Ok(()));
        assert_eq!(c.opened(v6a), Err(2), "one /64 is one address");
        for ip in [A, A, B, v6a, v6b] {
            c.closed(ip);
        }
        assert_eq!(c.addresses(), 0);
    }

    #[test]
    fn log_budget_counts_what_it_leaves_out() {
        let b = LogBudget::new(2, Duration::from_secs(10));
        let now = Instant::now();
        assert_eq!(b.allow(now), Some(0));
        assert_eq!(b.allow(now), Some(0));
        assert_eq!(b.allow(now), None);
        assert_eq!(b.allow(now), None);
        assert_eq!(b.allow(now + Duration::from_secs(10)), Some(2));
    }
}
