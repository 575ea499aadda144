//! What the admin API refuses before it looks at a token, so that a web
//! page in a browser on the same machine cannot drive it:
//!
//! * a `Host` header that is not the address the connection came in on,
//!   `sluice.admin.http.host`, `localhost` (on loopback) or a name of
//!   `sluice.admin.http.allowHosts`: `421` (a page that rebinds its own
//!   name to 127.0.0.1 sends its own name);
//! * an `Origin` header not listed in `sluice.admin.http.allowOrigins`:
//!   `403` (a browser sends one with every cross-origin request and every
//!   POST, and a page cannot leave it out); the API's own origin, that of
//!   the `Host` just allowed, is always let through: it is the console
//!   this API serves;
//! * a POST without `Content-Type: application/json`: `415` (a form or a
//!   "simple" cross-origin request cannot set it without a CORS preflight,
//!   which only the listed origins pass).
//!
//! Pages of a listed origin get CORS answers: `OPTIONS` preflights are
//! answered, and responses carry `Access-Control-Allow-Origin`.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::connect_info::{ConnectInfo, Connected};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::serve::IncomingStream;
use axum::Json;
use serde_json::json;
use sluice_config::AdminHttpConfig;
use tokio::net::TcpListener;

/// The address a connection came in on (the server's side).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LocalAddr(pub(crate) Option<SocketAddr>);

impl Connected<IncomingStream<'_, TcpListener>> for LocalAddr {
    fn connect_info(stream: IncomingStream<'_, TcpListener>) -> Self {
        LocalAddr(stream.io().local_addr().ok())
    }
}

/// What requests may carry: the allowed `Host` names and `Origin`s.
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    /// `sluice.admin.http.host`, lower case, without brackets.
    host: String,
    /// The listener's address, when a connection's own is not known.
    listening: Option<SocketAddr>,
    allow_hosts: Vec<String>,
    allow_origins: Vec<String>,
}

impl Guard {
    pub(crate) fn new(config: &AdminHttpConfig, listening: Option<SocketAddr>) -> Guard {
        Guard {
            host: unbracket(config.host.trim()).to_ascii_lowercase(),
            listening,
            allow_hosts: config.allow_hosts.clone(),
            allow_origins: config.allow_origins.clone(),
        }
    }

    /// Whether a request carrying `Host: value` that came in on `local`
    /// is for this API.
    pub(crate) fn host_allowed(&self, value: &str, local: Option<SocketAddr>) -> bool {
        let value = value.trim().to_ascii_lowercase();
        let Some((name, port)) = split_host(&value) else {
            return false;
        };
        let listening = local.or(self.listening);
        if self
            .allow_hosts
            .iter()
            .any(|allowed| match split_host(allowed) {
                Some((n, Some(p))) => n == name && port == Some(p),
                Some((n, None)) => n == name,
                None => false,
            })
        {
            return true;
        }
        let Some(listening) = listening else {
            return false;
        };
        // Without a port, HTTP's own (80).
        if port.unwrap_or(80) != listening.port() {
            return false;
        }
        let ip = name.parse::<IpAddr>().ok();
        ip.is_some_and(|ip| same_ip(ip, listening.ip()))
            || name == self.host
            || (name == "localhost" && listening.ip().is_loopback())
    }

    /// Whether `origin` (an `Origin` header) is listed.
    pub(crate) fn origin_allowed(&self, origin: &str) -> bool {
        let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
        self.allow_origins.contains(&origin)
    }
}

/// Whether `origin` is `http://` or `https://` and the `Host` of the
/// request, which [`Guard::host_allowed`] let through: a page this API
/// served (the console), not one of another site.
fn same_origin(origin: &str, host: &str) -> bool {
    let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    let host = host.trim().to_ascii_lowercase();
    ["http://", "https://"]
        .iter()
        .any(|scheme| origin.strip_prefix(scheme) == Some(host.as_str()))
}

/// `host[:port]` or `[v6][:port]` as its name (without brackets) and port;
/// `None` when it is neither.
fn split_host(value: &str) -> Option<(&str, Option<u16>)> {
    let (name, port) = if let Some(rest) = value.strip_prefix('[') {
        let (name, after) = rest.split_once(']')?;
        match after {
            "" => (name, None),
            _ => (name, Some(after.strip_prefix(':')?)),
        }
    } else {
        match value.rsplit_once(':') {
            // More than one colon without brackets: not a host header.
            Some((name, _)) if name.contains(':') => return None,
            Some((name, port)) => (name, Some(port)),
            None => (value, None),
        }
    };
    if name.is_empty() || name.contains(['/', '@', ' ']) {
        return None;
    }
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => None,
    };
    Some((name, port))
}

fn unbracket(host: &str) -> &str {
    host.trim_start_matches('[').trim_end_matches(']')
}

/// IPv4-mapped IPv6 addresses equal their IPv4 address.
fn same_ip(a: IpAddr, b: IpAddr) -> bool {
    a.to_canonical() == b.to_canonical()
}

fn refuse(status: StatusCode, message: String) -> Response {
    (status, Json(json!({ "error": message }))).into_response()
}

/// Whether `headers` say the body is JSON (`application/json`, parameters
/// such as `charset` allowed).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// The middleware: refuses what the module's documentation lists, answers
/// CORS preflights of listed origins, and lets the rest through.
pub(crate) async fn check(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    let local = request
        .extensions()
        .get::<ConnectInfo<LocalAddr>>()
        .and_then(|c| c.0 .0);
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let Some(host) = host else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "the request has no Host header: send HTTP/1.1 with Host set to the API's address"
                .into(),
        );
    };
    if !guard.host_allowed(&host, local) {
        let at = local
            .or(guard.listening)
            .map_or_else(|| "its address".to_string(), |a| a.to_string());
        return refuse(
            StatusCode::MISDIRECTED_REQUEST,
            format!(
                "Host {host:?} is not this admin API ({at}): call it by that address, or add the name to sluice.admin.http.allowHosts of the server's canal.properties (other names are refused so that a web page cannot reach the API by rebinding its own name)"
            ),
        );
    }
    let origin = match headers.get(header::ORIGIN) {
        None => None,
        Some(v) => {
            let origin = String::from_utf8_lossy(v.as_bytes()).into_owned();
            if !guard.origin_allowed(&origin) && !same_origin(&origin, &host) {
                return refuse(
                    StatusCode::FORBIDDEN,
                    format!(
                        "requests from web pages of origin {origin:?} are refused: list the origin in sluice.admin.http.allowOrigins of the server's canal.properties to let its pages call the API"
                    ),
                );
            }
            HeaderValue::from_bytes(v.as_bytes()).ok()
        }
    };
    if request.method() == Method::OPTIONS {
        if let Some(origin) = origin {
            return preflight(origin);
        }
    }
    if request.method() == Method::POST && !is_json(headers) {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "POST requests must carry Content-Type: application/json (also with an empty body)"
                .into(),
        );
    }
    let mut response = next.run(request).await;
    if let Some(origin) = origin {
        allow_origin(response.headers_mut(), origin);
    }
    response
}

fn allow_origin(headers: &mut HeaderMap, origin: HeaderValue) {
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
}

/// The answer to a CORS preflight of a listed origin.
fn preflight(origin: HeaderValue) -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    let headers = response.headers_mut();
    allow_origin(headers, origin);
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("Authorization, Content-Type"),
    );
    headers.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(host: &str, allow_hosts: &[&str], allow_origins: &[&str]) -> Guard {
        Guard::new(
            &AdminHttpConfig {
                host: host.into(),
                port: 8089,
                token: None,
                allow_origins: allow_origins.iter().map(|s| s.to_string()).collect(),
                allow_hosts: allow_hosts.iter().map(|s| s.to_string()).collect(),
            },
            None,
        )
    }

    fn at(addr: &str) -> Option<SocketAddr> {
        Some(addr.parse().unwrap())
    }

    #[test]
    fn hosts_are_the_address_the_configured_name_localhost_on_loopback_or_listed() {
        let g = guard("127.0.0.1", &["admin.example.com", "proxy:443"], &[]);
        let local = at("127.0.0.1:8089");
        for ok in [
            "127.0.0.1:8089",
            "localhost:8089",
            "LOCALHOST:8089",
            "admin.example.com",
            "admin.example.com:9999",
            "proxy:443",
        ] {
            assert!(g.host_allowed(ok, local), "{ok}");
        }
        for refused in [
            "evil.example:8089",
            "127.0.0.1:8090",
            "127.0.0.1",
            "proxy:444",
            "proxy",
            "",
            "127.0.0.1:8089:1",
            "a b:8089",
            "[::1]:8089",
        ] {
            assert!(!g.host_allowed(refused, local), "{refused}");
        }
        // localhost only where the API listens on loopback.
        let g = guard("0.0.0.0", &[], &[]);
        assert!(g.host_allowed("10.1.2.3:8089", at("10.1.2.3:8089")));
        assert!(!g.host_allowed("localhost:8089", at("10.1.2.3:8089")));
        assert!(g.host_allowed("[::1]:8089", at("[::1]:8089")));
        assert!(g.host_allowed("127.0.0.1:8089", at("[::ffff:127.0.0.1]:8089")));
        let g = guard("admin.internal", &[], &[]);
        assert!(g.host_allowed("Admin.Internal:8089", at("10.1.2.3:8089")));
    }

    #[test]
    fn origins_must_be_listed() {
        let g = guard("127.0.0.1", &[], &["https://console.example.com"]);
        assert!(g.origin_allowed("https://console.example.com"));
        assert!(g.origin_allowed("HTTPS://console.example.com/"));
        assert!(!g.origin_allowed("http://console.example.com"));
        assert!(!g.origin_allowed("null"));
        assert!(!guard("127.0.0.1", &[], &[]).origin_allowed("http://127.0.0.1:8089"));
    }

    #[test]
    fn the_apis_own_origin_is_its_host() {
        assert!(same_origin("http://127.0.0.1:8089", "127.0.0.1:8089"));
        assert!(same_origin(
            "https://Admin.Example.com/",
            "admin.example.com"
        ));
        assert!(!same_origin("http://127.0.0.1:8090", "127.0.0.1:8089"));
        assert!(!same_origin("http://evil.example", "127.0.0.1:8089"));
        assert!(!same_origin("null", "127.0.0.1:8089"));
        assert!(!same_origin("ftp://127.0.0.1:8089", "127.0.0.1:8089"));
    }
}
