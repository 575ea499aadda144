//! The admin ports of `canal.properties`: Canal's admin protocol
//! (`canal.admin.*`, canal-admin) and Sluice's admin HTTP API
//! (`sluice.admin.http.*`), their settings and their checks.

use crate::reader::Reader;
use crate::secret::Secret;
use crate::ConfigError;

/// Canal's admin protocol (`canal.admin.*` of `canal.properties`), the
/// port canal-admin manages a server through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminTcpConfig {
    /// `canal.ip`: the address it listens on; empty = all interfaces.
    pub ip: String,
    /// `canal.admin.port`: its port; 0 takes any free port.
    pub port: u16,
    /// `canal.admin.user`: the user name canal-admin logs in with; empty
    /// accepts any name (as Canal).
    pub user: String,
    /// `canal.admin.passwd`: hex of SHA1(SHA1(password)), 40 digits.
    pub passwd: String,
}

/// Sluice's admin HTTP API (`sluice.admin.http.*` of `canal.properties`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminHttpConfig {
    /// `sluice.admin.http.host` (default 127.0.0.1): the address it listens on.
    pub host: String,
    /// `sluice.admin.http.port`: its port; 0 takes any free port.
    pub port: u16,
    /// `sluice.admin.http.token`: the bearer token every request but the
    /// OpenAPI document must carry; required unless `host` is a loopback
    /// address, where its absence lets any local user in.
    pub token: Option<Secret>,
    /// `sluice.admin.http.allowOrigins` (comma separated, default none):
    /// the web origins (`scheme://host[:port]`) whose pages may call the
    /// API; a request with any other `Origin` header is refused.
    pub allow_origins: Vec<String>,
    /// `sluice.admin.http.allowHosts` (comma separated, default none): the
    /// names, beside the address the API listens on (and `localhost` on
    /// loopback), that requests may carry in their `Host` header (`name`
    /// for any port, `name:port` for one).
    pub allow_hosts: Vec<String>,
}

/// Whether `host` names the loopback interface only: `localhost` or an
/// address of 127.0.0.0/8 or `::1`.
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim().trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// `sluice.admin.http.*`: `None` unless the port is set; a host that is not
/// loopback without a token is refused, at the host's line.
pub(crate) fn admin_http(r: &Reader<'_>) -> Result<Option<AdminHttpConfig>, ConfigError> {
    let Some(port) =
        r.optional::<u16>("sluice.admin.http.port", "expected a TCP port (0-65535)")?
    else {
        return Ok(None);
    };
    let host = r.string("sluice.admin.http.host", "127.0.0.1");
    let token = r.string("sluice.admin.http.token", "");
    let token = (!token.is_empty()).then_some(Secret(token));
    if token.is_none() && !is_loopback_host(&host) {
        if let Some(p) = r.get("sluice.admin.http.host") {
            return Err(r.bad(
                "sluice.admin.http.host",
                p,
                "the admin API on an address other hosts reach needs sluice.admin.http.token: set a long random token, or listen on 127.0.0.1",
            ));
        }
    }
    let allow_origins = admin_http_list(r, "sluice.admin.http.allowOrigins", |o| {
        let o = o.trim_end_matches('/');
        let (scheme, rest) = o.split_once("://")?;
        (matches!(scheme, "http" | "https") && !rest.is_empty() && !rest.contains(['/', '?', '#']))
            .then(|| o.to_ascii_lowercase())
    }, "expected origins as scheme://host[:port], comma separated (e.g. https://console.example.com), without a path")?;
    let allow_hosts = admin_http_list(r, "sluice.admin.http.allowHosts", |h| {
        (!h.contains(['/', '@', '?', '#'])).then(|| h.to_ascii_lowercase())
    }, "expected host names, host:port or addresses, comma separated (e.g. admin.example.com, admin.example.com:8089), without a scheme or path")?;
    Ok(Some(AdminHttpConfig {
        host,
        port,
        token,
        allow_origins,
        allow_hosts,
    }))
}

/// A comma-separated list of `sluice.admin.http.*`, each item checked by
/// `item` (which gives its normal form); a bad one is refused at its line.
fn admin_http_list(
    r: &Reader<'_>,
    key: &str,
    item: impl Fn(&str) -> Option<String>,
    expected: &str,
) -> Result<Vec<String>, ConfigError> {
    let mut out = Vec::new();
    for raw in r.list(key, "") {
        match (item(&raw), r.get(key)) {
            (Some(v), _) => out.push(v),
            (None, Some(p)) => return Err(r.bad(key, p, &format!("{raw:?}: {expected}"))),
            (None, None) => {}
        }
    }
    Ok(out)
}

/// `canal.admin.*`: `None` unless `canal.admin.port` is set. Canal's stock
/// canal.properties sets the port and user with an empty password, which
/// Canal serves to anyone; Sluice does not serve it then, and says so once,
/// where the port is set (a warning, so that the stock file still starts a
/// server). A password that is not 40 hex digits is refused.
pub(crate) fn admin_tcp(
    r: &Reader<'_>,
) -> Result<(Option<AdminTcpConfig>, Option<String>), ConfigError> {
    let Some(port) = r.optional::<u16>("canal.admin.port", "expected a TCP port (0-65535)")? else {
        return Ok((None, None));
    };
    let user = r.string("canal.admin.user", "");
    let passwd = r.string("canal.admin.passwd", "");
    if passwd.is_empty() {
        let line = r.get("canal.admin.port").map_or(0, |p| p.line);
        return Ok((
            None,
            Some(format!(
                "{}:{line}: canal.admin.port = {port} but canal.admin.passwd is empty: the admin port (canal-admin) is not served, as anyone could stop destinations through it; set canal.admin.passwd to the hex SHA1(SHA1(password)) to serve it",
                r.path.display()
            )),
        ));
    }
    if passwd.len() != 40 || !passwd.chars().all(|c| c.is_ascii_hexdigit()) {
        if let Some(p) = r.get("canal.admin.passwd") {
            return Err(r.bad(
                "canal.admin.passwd",
                p,
                "expected 40 hex digits: SHA1(SHA1(password)), e.g. SELECT SHA1(UNHEX(SHA1('secret')))",
            ));
        }
    }
    Ok((
        Some(AdminTcpConfig {
            ip: r.string("canal.ip", ""),
            port,
            user,
            passwd,
        }),
        None,
    ))
}
