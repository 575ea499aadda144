//! The settings of a replication source, and their URL form
//! `mysql://user:password@host:port?sslMode=REQUIRED&heartbeat=5s&...`.
//!
//! URL parameters (names case-insensitive):
//!
//! | parameter | meaning | default |
//! |---|---|---|
//! | `sslMode` | `DISABLED`, `PREFERRED`, `REQUIRED`, `VERIFY_CA`, `VERIFY_IDENTITY` | `PREFERRED` |
//! | `sslCa` | PEM file of the CA for `VERIFY_*` | system bundle |
//! | `sslServerName` | name checked by `VERIFY_IDENTITY` | the host |
//! | `serverPublicKey` | PEM file of the server's RSA key (caching_sha2 full auth without TLS) | |
//! | `allowPublicKeyRetrieval` | ask the server for that key | `false` |
//! | `allowCleartextPasswords` | allow `mysql_clear_password` without TLS | `false` |
//! | `serverId` | this replica's server id | derived, see [`crate::replica::derive_server_id`] |
//! | `heartbeat` | heartbeat period asked of the server | `5s` |
//! | `readTimeout` | silence after which the connection is dead | `30s` |
//! | `connectTimeout` | | `10s` |
//! | `requireFullRowImage` | refuse `binlog_row_image` other than FULL (`false`: accept any) | `true` |
//!
//! Durations are `500ms`, `5s`, `2m` or plain seconds.
//!
//! Owns: configuration values and parsing. Must never: connect, or echo a
//! password in an error.

use std::time::Duration;

use crate::auth::AuthPlugin;
use crate::conn::ConnectOptions;
use crate::error::{Result, SourceError};
use crate::position::StartPosition;
use crate::replica::RowImages;
use crate::tls::SslMode;

/// How reconnects back off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReconnectPolicy {
    /// Wait before the first reconnect; doubles on each failure.
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// Give up after this many failed attempts in a row; `None` never gives up.
    pub max_attempts: Option<u32>,
}

impl Default for ReconnectPolicy {
    fn default() -> Self {
        ReconnectPolicy {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(30),
            max_attempts: None,
        }
    }
}

/// Says whether the stream may connect now; see [`SourceConfig::connect_gate`].
#[derive(Clone)]
pub struct ConnectGate(std::sync::Arc<dyn Fn() -> bool + Send + Sync>);

impl ConnectGate {
    pub fn new(allow: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        ConnectGate(std::sync::Arc::new(allow))
    }

    /// Whether connecting is allowed right now.
    pub fn allows(&self) -> bool {
        (self.0)()
    }
}

impl std::fmt::Debug for ConnectGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ConnectGate")
    }
}

/// Two gates are equal when they are the same closure.
impl PartialEq for ConnectGate {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ConnectGate {}

/// Everything a [`crate::BinlogStream`] needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceConfig {
    pub connect: ConnectOptions,
    pub start: StartPosition,
    /// This replica's server id; `None` derives one (see
    /// [`crate::replica::derive_server_id`]). It must differ from every other
    /// replica's: a server drops the older of two replicas with one id.
    pub server_id: Option<u32>,
    /// Without `server_id`: derive the id from this text alone (see
    /// [`crate::replica::shared_server_id`]) instead of from the host and
    /// process. Processes that must never dump at once (the servers of one
    /// destination) give the same text, so the source ends the older dump
    /// as soon as a newer one starts.
    pub server_id_seed: Option<String>,
    /// Asked before every connection (the first and each reconnect); a
    /// refusal ends the stream with [`SourceError::Refused`]. With a shared
    /// server id this keeps a process that lost the right to dump from
    /// ending the dump of the one that has it.
    pub connect_gate: Option<ConnectGate>,
    /// The server sends a heartbeat after this much silence; with the read
    /// timeout it detects half-open connections.
    pub heartbeat_period: Duration,
    pub reconnect: ReconnectPolicy,
    /// Other servers to resume on, by GTID, when this one is lost for
    /// longer than the policy says (see [`crate::failover`]). `None`:
    /// reconnect to this server only.
    pub failover: Option<crate::failover::FailoverPolicy>,
    /// The `binlog_row_image` values accepted from the source (default:
    /// FULL only; the URL's `requireFullRowImage=false` accepts any).
    pub row_images: RowImages,
    /// Column names come from a schema tracker, not the binlog's metadata.
    pub names_from_schema: bool,
    /// MariaDB: ask for ANNOTATE_ROWS events (the SQL of each row change).
    pub annotate_rows: bool,
    /// End the stream at the end of the binlog as it is when the dump
    /// starts, instead of waiting for new events.
    pub stop_at_end: bool,
}

impl Default for SourceConfig {
    fn default() -> Self {
        SourceConfig {
            connect: ConnectOptions::default(),
            start: StartPosition::Latest,
            server_id: None,
            server_id_seed: None,
            connect_gate: None,
            heartbeat_period: Duration::from_secs(5),
            reconnect: ReconnectPolicy::default(),
            failover: None,
            row_images: full_row_image_required(),
            names_from_schema: false,
            annotate_rows: false,
            stop_at_end: false,
        }
    }
}

impl SourceConfig {
    /// Parses `mysql://user:password@host:port?param=value&...` (also `mariadb://`).
    pub fn from_url(url: &str) -> Result<SourceConfig> {
        let bad = |m: String| SourceError::Config(m);
        let u = url::Url::parse(url).map_err(|e| {
            bad(format!(
                "source '{}' is not a URL ({e}); expected mysql://user:password@host:port",
                redact(url)
            ))
        })?;
        if !matches!(u.scheme(), "mysql" | "mariadb") {
            return Err(bad(format!(
                "source URL scheme '{}' is not mysql:// or mariadb://",
                u.scheme()
            )));
        }
        let mut cfg = SourceConfig::default();
        let c = &mut cfg.connect;
        c.host = u
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| bad("source URL has no host".to_string()))?
            .to_string();
        c.port = u.port().unwrap_or(3306);
        if !u.username().is_empty() {
            c.user = percent_decode(u.username());
        }
        c.password = u.password().map(percent_decode).unwrap_or_default();
        for (k, v) in u.query_pairs() {
            let v = v.trim();
            match k.to_ascii_lowercase().as_str() {
                "sslmode" => c.tls.mode = v.parse::<SslMode>().map_err(bad)?,
                "sslca" => c.tls.ca_file = Some(v.into()),
                "sslservername" => c.tls.server_name = Some(v.to_string()),
                "serverpublickey" => c.server_public_key = Some(v.into()),
                "allowpublickeyretrieval" => c.allow_public_key_retrieval = parse_bool(&k, v)?,
                "allowcleartextpasswords" => c.allow_cleartext_password = parse_bool(&k, v)?,
                "authplugin" => {
                    c.auth_plugin = Some(AuthPlugin::from_name(v).ok_or_else(|| {
                        bad(format!("authPlugin '{v}' is not one Sluice supports"))
                    })?)
                }
                "connecttimeout" => c.connect_timeout = parse_duration(&k, v)?,
                "readtimeout" => c.read_timeout = parse_duration(&k, v)?,
                "heartbeat" => cfg.heartbeat_period = parse_duration(&k, v)?,
                "serverid" => {
                    cfg.server_id = Some(v.parse().map_err(|_| {
                        bad(format!("serverId '{v}' is not a number from 1 to 4294967295"))
                    })?)
                }
                "requirefullrowimage" => {
                    cfg.row_images = if parse_bool(&k, v)? {
                        full_row_image_required()
                    } else {
                        RowImages::Any
                    }
                }
                other => {
                    return Err(bad(format!(
                        "unknown source URL parameter '{other}' (known: sslMode, sslCa, sslServerName, serverPublicKey, allowPublicKeyRetrieval, allowCleartextPasswords, authPlugin, connectTimeout, readTimeout, heartbeat, serverId, requireFullRowImage)"
                    )))
                }
            }
        }
        if cfg.server_id == Some(0) {
            return Err(bad(
                "serverId 0 is not allowed: a replica needs a non-zero id".into(),
            ));
        }
        Ok(cfg)
    }

    /// The same settings with another start position.
    pub fn starting_at(mut self, start: StartPosition) -> Self {
        self.start = start;
        self
    }
}

/// What `requireFullRowImage=true` (the default) accepts.
fn full_row_image_required() -> RowImages {
    RowImages::full_only(
        "requireFullRowImage=true",
        "accept row images that leave columns out with requireFullRowImage=false",
    )
}

/// The URL with its password replaced by `***`, for messages.
pub fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        Ok(u) => u.to_string(),
        Err(_) => match (url.find("://"), url.rfind('@')) {
            (Some(s), Some(a)) if a > s => format!("{}://***{}", &url[..s], &url[a..]),
            _ => url.to_string(),
        },
    }
}

fn parse_bool(key: &str, v: &str) -> Result<bool> {
    match v.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(SourceError::Config(format!(
            "{key}='{v}' is not true or false"
        ))),
    }
}

/// `500ms`, `5s`, `2m`, `1h`, or plain (fractional) seconds.
pub fn parse_duration(key: &str, v: &str) -> Result<Duration> {
    let v = v.trim();
    let (num, unit) = match v.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&v[..i], &v[i..]),
        None => (v, "s"),
    };
    let n: f64 = num.trim().parse().map_err(|_| {
        SourceError::Config(format!(
            "{key}='{v}' is not a duration (e.g. 500ms, 5s, 2m)"
        ))
    })?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => {
            return Err(SourceError::Config(format!(
                "{key}='{v}': unknown unit '{unit}' (ms, s, m, h)"
            )))
        }
    };
    if !(0.0..=1e9).contains(&secs) {
        return Err(SourceError::Config(format!("{key}='{v}' is out of range")));
    }
    Ok(Duration::from_secs_f64(secs))
}

fn percent_decode(s: &str) -> String {
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 3 <= b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push(h << 4 | l);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse() {
        let c = SourceConfig::from_url(
            "mysql://repl:p%40ss%3Aword@db.example:3307?sslMode=verify_ca&sslCa=/etc/ca.pem&heartbeat=500ms&serverId=77&readTimeout=3",
        )
        .unwrap();
        assert_eq!(c.connect.host, "db.example");
        assert_eq!(c.connect.port, 3307);
        assert_eq!(c.connect.user, "repl");
        assert_eq!(c.connect.password, "p@ss:word");
        assert_eq!(c.connect.tls.mode, SslMode::VerifyCa);
        assert_eq!(
            c.connect.tls.ca_file.as_deref(),
            Some(std::path::Path::new("/etc/ca.pem"))
        );
        assert_eq!(c.heartbeat_period, Duration::from_millis(500));
        assert_eq!(c.connect.read_timeout, Duration::from_secs(3));
        assert_eq!(c.server_id, Some(77));
        let d = SourceConfig::from_url("mariadb://root@127.0.0.1").unwrap();
        assert_eq!((d.connect.port, d.connect.password.as_str()), (3306, ""));
        assert_eq!(d.connect.tls.mode, SslMode::Preferred);
        let v6 = SourceConfig::from_url("mysql://u:p@[::1]:3310").unwrap();
        assert_eq!(v6.connect.addr(), "[::1]:3310");
    }

    #[test]
    fn require_full_row_image_sets_the_images_accepted() {
        let full = SourceConfig::from_url("mysql://u@h").unwrap().row_images;
        assert!(full.accepts("FULL") && !full.accepts("MINIMAL") && !full.accepts("NOBLOB"));
        let any = SourceConfig::from_url("mysql://u@h?requireFullRowImage=false")
            .unwrap()
            .row_images;
        assert_eq!(any, RowImages::Any);
        assert!(any.accepts("MINIMAL") && any.accepts("NOBLOB"));
    }

    #[test]
    fn bad_urls_say_why_without_the_password() {
        for (url, want) in [
            ("postgres://u:secret@h", "scheme"),
            ("mysql://u:secret@h?sslMode=maybe", "sslMode"),
            ("mysql://u:secret@h?serverId=0", "serverId 0"),
            ("mysql://u:secret@h?bogus=1", "unknown source URL parameter"),
            ("mysql://u:secret@h?heartbeat=5x", "unknown unit"),
        ] {
            let e = SourceConfig::from_url(url).unwrap_err().to_string();
            assert!(e.contains(want), "{url}: {e}");
            assert!(!e.contains("secret"), "{url}: {e}");
        }
        assert_eq!(redact("mysql://u:secret@h:1"), "mysql://u:***@h:1");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("x", "2m").unwrap(), Duration::from_secs(120));
        assert_eq!(
            parse_duration("x", "1.5").unwrap(),
            Duration::from_millis(1500)
        );
        assert!(parse_duration("x", "-1").is_err());
    }
}
