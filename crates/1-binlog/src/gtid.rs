//! Global transaction ids: MySQL's `uuid[:tag]:gno` with GTID sets, and
//! MariaDB's `domain-server-sequence`.

use std::fmt;

use crate::bytes::ByteReader;
use crate::error::{DecodeError, Result};

/// A MySQL server UUID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uuid(pub [u8; 16]);

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl Uuid {
    pub fn read(r: &mut ByteReader<'_>) -> Result<Uuid> {
        let mut u = [0u8; 16];
        u.copy_from_slice(r.take(16)?);
        Ok(Uuid(u))
    }
}

/// One MySQL GTID: `uuid:gno` or, with a tag (MySQL 8.3+), `uuid:tag:gno`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MysqlGtid {
    pub uuid: Uuid,
    pub tag: Option<String>,
    pub gno: u64,
}

impl fmt::Display for MysqlGtid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.tag {
            Some(t) => write!(f, "{}:{}:{}", self.uuid, t, self.gno),
            None => write!(f, "{}:{}", self.uuid, self.gno),
        }
    }
}

/// A MySQL GTID set: per source uuid (and tag), half-open intervals [start, end).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GtidSet {
    pub sids: Vec<GtidSetEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GtidSetEntry {
    pub uuid: Uuid,
    pub tag: Option<String>,
    /// Half-open `[start, end)` intervals as stored in the binlog.
    pub intervals: Vec<(u64, u64)>,
}

impl fmt::Display for GtidSet {
    /// MySQL's text form: `uuid:1-5:7,uuid2:1-3` (closed intervals).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.sids.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}", e.uuid)?;
            if let Some(t) = &e.tag {
                write!(f, ":{t}")?;
            }
            for &(s, end) in &e.intervals {
                if end.saturating_sub(1) > s {
                    write!(f, ":{s}-{}", end - 1)?;
                } else {
                    write!(f, ":{s}")?;
                }
            }
        }
        Ok(())
    }
}

impl GtidSet {
    /// PREVIOUS_GTIDS_LOG_EVENT body (also the COM_BINLOG_DUMP_GTID encoding).
    pub fn parse(body: &[u8]) -> Result<GtidSet> {
        let mut r = ByteReader::new(body);
        let head = r.u64_le()?;
        // MySQL 8.3+ tagged format: a format byte 1 first and last, the
        // count in the six bytes between. Untagged: a plain count.
        let tagged = head & 0xff == 1 && head >> 56 == 1;
        let n = if tagged {
            ((head >> 8) & 0xffff_ffff_ffff) as usize
        } else {
            head as usize
        };
        // Each entry takes at least 24 bytes: bound the allocation by the input.
        let mut sids = Vec::with_capacity(n.min(r.remaining() / 24));
        for _ in 0..n {
            let uuid = Uuid::read(&mut r)?;
            let tag = if tagged {
                let len = read_varlen(&mut r)? as usize;
                let t = r.take(len)?;
                if t.is_empty() {
                    None
                } else {
                    Some(String::from_utf8_lossy(t).into_owned())
                }
            } else {
                None
            };
            let k = r.u64_le()? as usize;
            let mut intervals = Vec::with_capacity(k.min(r.remaining() / 16));
            for _ in 0..k {
                intervals.push((r.u64_le()?, r.u64_le()?));
            }
            sids.push(GtidSetEntry {
                uuid,
                tag,
                intervals,
            });
        }
        Ok(GtidSet { sids })
    }
}

/// MySQL's `mysql::serialization` variable-length unsigned integer: the
/// number of trailing one bits in the first byte tells how many more bytes follow.
pub fn read_varlen(r: &mut ByteReader<'_>) -> Result<u64> {
    let first = r.u8()?;
    let extra = first.trailing_ones() as usize;
    if extra == 0 {
        return Ok((first >> 1) as u64);
    }
    if extra > 8 {
        return Err(DecodeError::invalid("varlen integer", "more than 9 bytes"));
    }
    let rest = r.take(extra)?;
    let mut v = crate::bytes::uint_le(rest);
    if extra < 8 {
        v = (v << (7 - extra)) | ((first as u64) >> (extra + 1));
    }
    Ok(v)
}

/// A MariaDB GTID: `domain-server-sequence`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MariadbGtid {
    pub domain_id: u32,
    pub server_id: u32,
    pub seq_no: u64,
}

impl fmt::Display for MariadbGtid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}-{}", self.domain_id, self.server_id, self.seq_no)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varlen_roundtrip_small() {
        // 1-byte form: value << 1.
        assert_eq!(read_varlen(&mut ByteReader::new(&[0x0a])).unwrap(), 5);
        // 2-byte form: first byte low bit 1, value = (b0 >> 2) | (b1 << 6).
        assert_eq!(
            read_varlen(&mut ByteReader::new(&[0x01 | (3 << 2), 2])).unwrap(),
            3 | (2 << 6)
        );
    }

    #[test]
    fn gtid_set_text() {
        let mut body = vec![1, 0, 0, 0, 0, 0, 0, 0];
        // One untagged uuid with the interval [1, 6).
        body.extend([0x11; 16]);
        body.extend(1u64.to_le_bytes());
        body.extend(1u64.to_le_bytes());
        body.extend(6u64.to_le_bytes());
        let s = GtidSet::parse(&body).unwrap();
        assert_eq!(s.to_string(), "11111111-1111-1111-1111-111111111111:1-5");
        assert!(GtidSet::parse(&body[..20]).is_err());
    }
}
