//! Posing as a replica on a logged-in connection: the checks that the source
//! writes what Sluice can read (binlog on, ROW format, a row image the reader
//! accepts), the
//! session variables a replica sets (checksums, MariaDB capability and GTID
//! start state, heartbeat period), COM_REGISTER_SLAVE, the dump commands, the
//! server-id a replica uses, and the position queries (binary logs, master
//! status, GTID state at a position).
//!
//! Owns: what is asked of the server and how its answers are read. Must
//! never: read the event stream (that is `stream`'s), or change the server's
//! global state.

use std::ops::RangeInclusive;
use std::time::Duration;

use crate::conn::Conn;
use crate::error::{Result, SourceError};
use crate::position::{encode_mysql_gtid_set, GtidState};

/// COM_BINLOG_DUMP.
pub const COM_BINLOG_DUMP: u8 = 0x12;
/// COM_REGISTER_SLAVE.
pub const COM_REGISTER_SLAVE: u8 = 0x15;
/// COM_BINLOG_DUMP_GTID (MySQL).
pub const COM_BINLOG_DUMP_GTID: u8 = 0x1e;

/// Dump flags.
pub mod dump_flags {
    /// Answer EOF at the end of the binlog instead of waiting for more.
    pub const NON_BLOCK: u16 = 1;
    /// MariaDB: send ANNOTATE_ROWS events (the SQL text of row changes).
    pub const SEND_ANNOTATE_ROWS: u16 = 2;
    /// MySQL COM_BINLOG_DUMP_GTID: the position is given by the GTID set.
    pub const THROUGH_GTID: u16 = 4;
}

/// MariaDB's `MARIA_SLAVE_CAPABILITY_GTID`: the replica understands GTID
/// events, so the server sends them unconverted.
pub const MARIADB_SLAVE_CAPABILITY_GTID: u32 = 4;

/// The range automatically derived server ids fall in (2^30 to 2^31 − 1):
/// far from the small ids people give their servers by hand.
pub const AUTO_SERVER_ID_RANGE: RangeInclusive<u32> = 0x4000_0000..=0x7fff_ffff;

/// What the checks learnt about the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    pub version: String,
    pub is_mariadb: bool,
    /// The source's own `@@server_id`.
    pub server_id: u32,
    pub binlog_format: String,
    pub binlog_row_image: String,
    /// `@@binlog_row_metadata` where the server has it (MySQL 8.0.1+, MariaDB 10.5+).
    pub binlog_row_metadata: Option<String>,
    pub binlog_checksum: String,
}

/// The `binlog_row_image` values a reader accepts from its source, and what
/// a refusal says. With MINIMAL or NOBLOB the server leaves columns out of
/// row images (unchanged ones, or unchanged BLOB and TEXT ones); a reader
/// that must see whole rows accepts FULL only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowImages {
    /// Whatever the source writes.
    Any,
    /// Only these values (compared without regard to case).
    OneOf {
        images: Vec<String>,
        /// Where the list comes from, or why it is what it is, for the
        /// refusal: `listed in canal.instance.binlog.image`.
        because: String,
        /// How the reader could be made to accept the source's value,
        /// appended to the refusal's fix; empty when it cannot.
        or_else: String,
    },
}

impl RowImages {
    /// FULL only, `because` of what; `or_else` tells how to accept more
    /// (empty: no way).
    pub fn full_only(because: impl Into<String>, or_else: impl Into<String>) -> Self {
        RowImages::OneOf {
            images: vec!["FULL".to_string()],
            because: because.into(),
            or_else: or_else.into(),
        }
    }

    /// Whether a source whose `@@binlog_row_image` is `image` is accepted.
    pub fn accepts(&self, image: &str) -> bool {
        match self {
            RowImages::Any => true,
            RowImages::OneOf { images, .. } => {
                images.iter().any(|i| i.trim().eq_ignore_ascii_case(image))
            }
        }
    }

    /// The refusal of a source whose `binlog_row_image` is `actual`.
    fn refusal(&self, addr: &str, actual: &str) -> SourceError {
        let (images, because, or_else) = match self {
            RowImages::Any => (&[][..], "", ""),
            RowImages::OneOf {
                images,
                because,
                or_else,
            } => (images.as_slice(), because.as_str(), or_else.as_str()),
        };
        let upper: Vec<String> = images
            .iter()
            .map(|i| i.trim().to_ascii_uppercase())
            .collect();
        // The value to set: FULL when accepted (every reader takes it), else the first listed.
        let target = upper
            .iter()
            .find(|i| *i == "FULL")
            .or(upper.first())
            .cloned()
            .unwrap_or_else(|| "FULL".to_string());
        let expected = match upper.as_slice() {
            [] => "a row image (none is accepted)".to_string(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} or {last}", init.join(", ")),
        };
        let expected = if because.is_empty() {
            expected
        } else {
            format!("{expected} ({because})")
        };
        let mut fix = format!(
            "run SET GLOBAL binlog_row_image = '{target}' on the source (sessions already open keep their value) and set binlog_row_image={target} in the [mysqld] section of its configuration so that it survives a restart"
        );
        if !or_else.is_empty() {
            fix.push_str(", or ");
            fix.push_str(or_else);
        }
        SourceError::Misconfigured {
            addr: addr.to_string(),
            setting: "binlog_row_image",
            actual: actual.to_string(),
            expected,
            fix,
        }
    }
}

/// Which settings the checks insist on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOptions {
    /// The row images accepted.
    pub row_images: RowImages,
    /// Column names come from elsewhere (a schema tracker), so a binlog
    /// without them (`binlog_row_metadata` not FULL) is not worth a warning.
    pub names_from_schema: bool,
}

fn misconfigured(
    conn: &Conn,
    setting: &'static str,
    actual: &str,
    expected: &str,
    fix: String,
) -> SourceError {
    SourceError::Misconfigured {
        addr: conn.addr().to_string(),
        setting,
        actual: actual.to_string(),
        expected: expected.to_string(),
        fix,
    }
}

/// Reads the server's settings and fails with a clear error for each one
/// Sluice cannot work with.
pub async fn check_server(conn: &mut Conn, opts: CheckOptions) -> Result<ServerInfo> {
    let rs = conn
        .query(
            "SELECT @@global.log_bin, @@global.binlog_format, @@global.binlog_row_image, \
             @@global.server_id, @@global.binlog_checksum",
        )
        .await?;
    let row = rs.rows.first().cloned().unwrap_or_default();
    let col = |i: usize| row.get(i).cloned().flatten().unwrap_or_default();
    let log_bin = col(0);
    let info = ServerInfo {
        version: conn.server_version().to_string(),
        is_mariadb: conn.is_mariadb(),
        binlog_format: col(1).to_ascii_uppercase(),
        binlog_row_image: col(2).to_ascii_uppercase(),
        server_id: col(3).parse().unwrap_or(0),
        binlog_checksum: col(4).to_ascii_uppercase(),
        binlog_row_metadata: conn
            .query("SELECT @@global.binlog_row_metadata")
            .await
            .ok()
            .and_then(|rs| rs.scalar().map(str::to_ascii_uppercase)),
    };
    if !matches!(log_bin.as_str(), "1" | "ON") {
        return Err(misconfigured(
            conn,
            "log_bin",
            // @@log_bin reads 0 or 1 on MariaDB; say it as the setting is written.
            match log_bin.as_str() {
                "" | "0" => "OFF",
                other => other,
            },
            "ON",
            "enable the binary log: add log_bin (e.g. log-bin=mysql-bin) and a server_id to the [mysqld] section of the server's configuration and restart it".to_string(),
        ));
    }
    if info.binlog_format != "ROW" {
        return Err(misconfigured(
            conn,
            "binlog_format",
            &info.binlog_format,
            "ROW",
            "run SET GLOBAL binlog_format = 'ROW' (applies to new sessions) and set binlog_format=ROW in the [mysqld] section of the server's configuration so that it survives a restart".to_string(),
        ));
    }
    if !opts.row_images.accepts(&info.binlog_row_image) {
        return Err(opts.row_images.refusal(conn.addr(), &info.binlog_row_image));
    }
    if let Some(meta) = info
        .binlog_row_metadata
        .as_ref()
        .filter(|_| !opts.names_from_schema)
    {
        if meta != "FULL" {
            tracing::warn!(
                source = %conn.addr(),
                binlog_row_metadata = %meta,
                "binlog_row_metadata is not FULL: column names are not in the binlog and are shown as @1, @2, ...; set binlog_row_metadata=FULL on the server to get them"
            );
        }
    }
    Ok(info)
}

/// Session set-up of a replica before the dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionOptions {
    /// `@master_heartbeat_period`: the server sends a heartbeat after this much silence.
    pub heartbeat_period: Duration,
    /// MariaDB: start after this GTID position (`@slave_connect_state`).
    pub mariadb_connect_state: Option<String>,
}

/// Sets the session variables a replica sets.
pub async fn setup_session(conn: &mut Conn, opts: &SessionOptions) -> Result<()> {
    // Tell the server we verify checksums, so it keeps them in the events.
    conn.exec("SET @master_binlog_checksum = @@global.binlog_checksum")
        .await?;
    if !conn.is_mariadb() {
        // MySQL 8.0.26+ reads the new name; older servers ignore it.
        let _ = conn
            .exec("SET @source_binlog_checksum = @@global.binlog_checksum")
            .await;
    }
    let nanos = opts.heartbeat_period.as_nanos().min(u128::from(u64::MAX));
    if nanos > 0 {
        conn.exec(&format!("SET @master_heartbeat_period = {nanos}"))
            .await?;
    }
    if conn.is_mariadb() {
        conn.exec(&format!(
            "SET @mariadb_slave_capability = {MARIADB_SLAVE_CAPABILITY_GTID}"
        ))
        .await?;
        if let Some(state) = &opts.mariadb_connect_state {
            // The state text was parsed and re-printed: digits, dashes, commas only.
            conn.exec(&format!("SET @slave_connect_state = '{state}'"))
                .await?;
            conn.exec("SET @slave_gtid_strict_mode = 0").await?;
            conn.exec("SET @slave_gtid_ignore_duplicates = 0").await?;
        }
    }
    Ok(())
}

/// COM_REGISTER_SLAVE: makes the replica visible in `SHOW SLAVE HOSTS`.
pub fn register_replica_command(server_id: u32, report_host: &str, report_port: u16) -> Vec<u8> {
    let mut out = vec![COM_REGISTER_SLAVE];
    out.extend_from_slice(&server_id.to_le_bytes());
    let host = &report_host.as_bytes()[..report_host.len().min(60)];
    out.push(host.len() as u8);
    out.extend_from_slice(host);
    out.push(0); // user
    out.push(0); // password
    out.extend_from_slice(&report_port.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // replication rank
    out.extend_from_slice(&0u32.to_le_bytes()); // master id
    out
}

/// Registers the replica; the server answers OK.
pub async fn register_replica(conn: &mut Conn, server_id: u32, report_host: &str) -> Result<()> {
    const DURING: &str = "COM_REGISTER_SLAVE";
    conn.write_command(&register_replica_command(server_id, report_host, 0), DURING)
        .await?;
    let p = conn.read_packet(DURING).await?;
    match p.first() {
        Some(0x00) => Ok(()),
        Some(0xff) => {
            let e = crate::handshake::ErrPacket::parse(p).map_err(|e| SourceError::Protocol {
                addr: conn.addr().to_string(),
                during: DURING,
                detail: e.to_string(),
            })?;
            // MariaDB answers a user without REPLICATION SLAVE with 1045
            // "Access denied", which reads like a wrong password although
            // the login itself succeeded; MySQL with 1227.
            if matches!(e.code, 1045 | 1227) {
                return Err(misconfigured(
                    conn,
                    "the user's privileges",
                    &format!(
                        "not enough to register as a replica (error {} on {DURING}: {}; the login itself succeeded)",
                        e.code, e.message
                    ),
                    "REPLICATION SLAVE and REPLICATION CLIENT",
                    "GRANT REPLICATION SLAVE, REPLICATION CLIENT, SELECT ON *.* TO the user (SELECT for the schema of the tables)"
                        .to_string(),
                ));
            }
            Err(conn.server_error(e, DURING))
        }
        _ => Err(SourceError::Protocol {
            addr: conn.addr().to_string(),
            during: DURING,
            detail: "expected OK".to_string(),
        }),
    }
}

/// COM_BINLOG_DUMP from a file and offset.
pub fn dump_command(file: &str, pos: u64, server_id: u32, flags: u16) -> Result<Vec<u8>, String> {
    let pos = u32::try_from(pos).map_err(|_| {
        format!("offset {pos} is beyond 4 GiB, which COM_BINLOG_DUMP cannot address")
    })?;
    let mut out = vec![COM_BINLOG_DUMP];
    out.extend_from_slice(&pos.to_le_bytes());
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&server_id.to_le_bytes());
    out.extend_from_slice(file.as_bytes());
    Ok(out)
}

/// COM_BINLOG_DUMP_GTID (MySQL): from the transactions after a GTID set.
pub fn dump_gtid_command(
    set: &sluice_binlog::gtid::GtidSet,
    server_id: u32,
    flags: u16,
) -> Vec<u8> {
    let data = encode_mysql_gtid_set(set);
    let mut out = vec![COM_BINLOG_DUMP_GTID];
    out.extend_from_slice(&(flags | dump_flags::THROUGH_GTID).to_le_bytes());
    out.extend_from_slice(&server_id.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // no file name
    out.extend_from_slice(&4u64.to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(&data);
    out
}

/// `SHOW BINARY LOGS`: file names and sizes, oldest first.
pub async fn binary_logs(conn: &mut Conn) -> Result<Vec<(String, u64)>> {
    let rs = conn.query("SHOW BINARY LOGS").await?;
    Ok(rs
        .rows
        .iter()
        .filter_map(|r| {
            let name = r.first()?.clone()?;
            let size = r
                .get(1)
                .cloned()
                .flatten()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            Some((name, size))
        })
        .collect())
}

/// The end of the binlog now: file, offset and (MySQL) the executed GTID set.
pub async fn master_status(conn: &mut Conn) -> Result<(String, u64, Option<String>)> {
    let rs = match conn.query("SHOW MASTER STATUS").await {
        Ok(rs) => rs,
        // MySQL 8.4 renamed it.
        Err(SourceError::Server { code: 1064, .. }) => conn.query("SHOW BINARY LOG STATUS").await?,
        Err(e) => return Err(e),
    };
    let (Some(file), Some(pos)) = (rs.get(0, "File"), rs.get(0, "Position")) else {
        return Err(SourceError::Misconfigured {
            addr: conn.addr().to_string(),
            setting: "log_bin",
            actual: "OFF (SHOW MASTER STATUS is empty)".to_string(),
            expected: "ON".to_string(),
            fix: "enable the binary log (log_bin) and restart the server".to_string(),
        });
    };
    let pos = pos.parse().map_err(|_| SourceError::Protocol {
        addr: conn.addr().to_string(),
        during: "SHOW MASTER STATUS",
        detail: format!("Position '{pos}' is not a number"),
    })?;
    Ok((
        file.to_string(),
        pos,
        rs.get(0, "Executed_Gtid_Set")
            .map(|s| s.replace('\n', ""))
            .filter(|s| !s.is_empty()),
    ))
}

/// MariaDB's GTID position at a file offset (`BINLOG_GTID_POS`); `None` when
/// the server cannot tell (offset not at an event, file gone).
pub async fn mariadb_gtid_pos(conn: &mut Conn, file: &str, pos: u64) -> Result<Option<String>> {
    let file = file.replace('\\', "\\\\").replace('\'', "\\'");
    let rs = conn
        .query(&format!("SELECT BINLOG_GTID_POS('{file}', {pos})"))
        .await?;
    Ok(rs.scalar().map(str::to_string))
}

/// Describes the oldest position the server still has, for purge errors.
pub async fn oldest_available(conn: &mut Conn) -> Result<String> {
    let logs = binary_logs(conn).await?;
    let Some((first, _)) = logs.first() else {
        return Ok("none (the server lists no binary logs)".to_string());
    };
    let mut text = format!("{first}:4");
    if conn.is_mariadb() {
        if let Ok(Some(g)) = mariadb_gtid_pos(conn, first, 4).await {
            if !g.is_empty() {
                text.push_str(&format!(" (GTID position {g})"));
            }
        }
    } else if let Ok(rs) = conn.query("SELECT @@global.gtid_purged").await {
        if let Some(p) = rs.scalar().filter(|s| !s.is_empty()) {
            text.push_str(&format!(
                " (transactions after gtid_purged {})",
                p.replace('\n', "")
            ));
        }
    }
    Ok(text)
}

/// Derives a replica server id from where and what the process is: a hash of
/// the host name, the connection's local address and the process id, mapped
/// into [`AUTO_SERVER_ID_RANGE`], avoiding the ids in `avoid` (the source's own).
pub fn derive_server_id(host_name: &str, local_addr: &str, pid: u32, avoid: &[u32]) -> u32 {
    let bytes = host_name
        .bytes()
        .chain([0])
        .chain(local_addr.bytes())
        .chain([0])
        .chain(pid.to_le_bytes());
    server_id_from_hash(fnv1a(bytes), avoid)
}

/// The replica server id for `seed` alone, the same in every process: the
/// servers of one destination share it (the seed names the destination and
/// the source), so when one takes the destination over, the source ends the
/// previous owner's dump (MariaDB and MySQL end an older dump of the same
/// server id when a new one registers). Same range and `avoid` rule as
/// [`derive_server_id`].
pub fn shared_server_id(seed: &str, avoid: &[u32]) -> u32 {
    server_id_from_hash(fnv1a(seed.bytes()), avoid)
}

/// FNV-1a, 64-bit.
fn fnv1a(bytes: impl Iterator<Item = u8>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Maps a hash into [`AUTO_SERVER_ID_RANGE`], skipping the ids in `avoid`.
fn server_id_from_hash(h: u64, avoid: &[u32]) -> u32 {
    let start = *AUTO_SERVER_ID_RANGE.start();
    let span = u64::from(AUTO_SERVER_ID_RANGE.end() - start) + 1;
    let mut id = start + (h % span) as u32;
    while avoid.contains(&id) {
        id = if id == *AUTO_SERVER_ID_RANGE.end() {
            start
        } else {
            id + 1
        };
    }
    id
}

/// This machine's host name (empty if unknown).
pub fn local_host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_default()
}

/// The `SET @slave_connect_state` value for a GTID start, if MariaDB.
pub fn mariadb_connect_state(state: &GtidState) -> Option<String> {
    match state {
        GtidState::MariaDb(s) => Some(s.to_string()),
        GtidState::MySql(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_mysql_gtid_set;

    #[test]
    fn a_refusal_names_the_value_the_list_and_the_fixes() {
        let only = RowImages::OneOf {
            images: vec!["minimal".into(), "noblob".into()],
            because: "listed in k".into(),
            or_else: String::new(),
        };
        assert!(only.accepts("MINIMAL") && only.accepts("NOBLOB") && !only.accepts("FULL"));
        // Without FULL among them, the fix sets the first one listed.
        assert_eq!(
            only.refusal("db:3306", "FULL").to_string(),
            "db:3306: binlog_row_image is FULL, but Sluice needs MINIMAL or NOBLOB (listed in k). \
             Fix: run SET GLOBAL binlog_row_image = 'MINIMAL' on the source (sessions already open \
             keep their value) and set binlog_row_image=MINIMAL in the [mysqld] section of its \
             configuration so that it survives a restart"
        );
        let three = RowImages::OneOf {
            images: vec!["NOBLOB".into(), "MINIMAL".into(), "FULL".into()],
            because: String::new(),
            or_else: "widen it".into(),
        };
        let msg = three.refusal("db:3306", "FULL_NODUP").to_string();
        assert!(
            msg.starts_with("db:3306: binlog_row_image is FULL_NODUP, but Sluice needs NOBLOB, MINIMAL or FULL. Fix: run SET GLOBAL binlog_row_image = 'FULL'")
                && msg.ends_with(", or widen it"),
            "{msg}"
        );
        assert!(RowImages::Any.accepts("FULL_NODUP"));
    }

    #[test]
    fn dump_layout() {
        let d = dump_command("binlog.000002", 1234, 77, dump_flags::NON_BLOCK).unwrap();
        assert_eq!(d[0], COM_BINLOG_DUMP);
        assert_eq!(&d[1..5], &1234u32.to_le_bytes());
        assert_eq!(&d[5..7], &1u16.to_le_bytes());
        assert_eq!(&d[7..11], &77u32.to_le_bytes());
        assert_eq!(&d[11..], b"binlog.000002");
        assert!(dump_command("f", 1 << 32, 1, 0).is_err());
    }

    #[test]
    fn dump_gtid_layout() {
        let set = parse_mysql_gtid_set("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5").unwrap();
        let d = dump_gtid_command(&set, 9, 0);
        assert_eq!(d[0], COM_BINLOG_DUMP_GTID);
        assert_eq!(&d[1..3], &dump_flags::THROUGH_GTID.to_le_bytes());
        assert_eq!(&d[3..7], &9u32.to_le_bytes());
        assert_eq!(&d[7..11], &0u32.to_le_bytes());
        assert_eq!(&d[11..19], &4u64.to_le_bytes());
        let n = u32::from_le_bytes([d[19], d[20], d[21], d[22]]) as usize;
        assert_eq!(n, d.len() - 23);
        assert_eq!(sluice_binlog::gtid::GtidSet::parse(&d[23..]).unwrap(), set);
    }

    #[test]
    fn register_layout() {
        let r = register_replica_command(5, "host-a", 0);
        assert_eq!(r[0], COM_REGISTER_SLAVE);
        assert_eq!(&r[1..5], &5u32.to_le_bytes());
        assert_eq!(r[5], 6);
        assert_eq!(&r[6..12], b"host-a");
        assert_eq!(r.len(), 12 + 2 + 2 + 4 + 4);
    }

    #[test]
    fn derived_ids_are_in_range_stable_and_avoid() {
        let a = derive_server_id("h", "127.0.0.1:5000", 42, &[]);
        assert!(AUTO_SERVER_ID_RANGE.contains(&a));
        assert_eq!(a, derive_server_id("h", "127.0.0.1:5000", 42, &[]));
        assert_ne!(a, derive_server_id("h", "127.0.0.1:5001", 42, &[]));
        let b = derive_server_id("h", "127.0.0.1:5000", 42, &[a]);
        assert_ne!(a, b);
        assert!(AUTO_SERVER_ID_RANGE.contains(&b));
    }

    #[test]
    fn shared_ids_depend_on_the_seed_only() {
        let a = shared_server_id("example@127.0.0.1:3306", &[]);
        assert!(AUTO_SERVER_ID_RANGE.contains(&a));
        assert_eq!(a, shared_server_id("example@127.0.0.1:3306", &[]));
        assert_ne!(a, shared_server_id("other@127.0.0.1:3306", &[]));
        assert_ne!(a, shared_server_id("example@127.0.0.1:3306", &[a]));
    }
}
