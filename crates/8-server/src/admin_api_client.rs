//! A client of the admin API (`sluice admin`): one HTTP/1.1 request per
//! connection to an `http://host:port` base URL, with the bearer token.

use std::time::Duration;

mod render;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::percent::encode;

/// The answer to an admin request: its HTTP status and JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct AdminResponse {
    pub status: u16,
    pub body: serde_json::Value,
}

/// Why an admin request got no answer.
#[derive(Debug, thiserror::Error)]
pub enum AdminClientError {
    #[error("{url} is not an http://host:port URL of the admin API (https is not served)")]
    BadUrl { url: String },
    // The I/O errors are in the messages and not sources: a report that
    // prints the chain would say them twice.
    #[error("cannot reach the admin API at {addr}: {cause}; is sluice.admin.http.port set and the server running?")]
    Connect { addr: String, cause: std::io::Error },
    #[error("the admin API at {addr} did not answer within {} s", timeout.as_secs())]
    Timeout { addr: String, timeout: Duration },
    #[error("talking to the admin API at {addr}: {cause}")]
    Io { addr: String, cause: std::io::Error },
    #[error(
        "the admin API at {addr} answered something that is not HTTP with a JSON body: {detail}"
    )]
    Malformed { addr: String, detail: String },
}

/// Sends `method path` (with `body` as JSON when given) to the admin API at
/// `base` (`http://host:port`, an optional path prefix kept) and waits up to
/// `timeout` for the answer.
pub async fn request(
    base: &str,
    token: Option<&str>,
    method: &str,
    path: &str,
    body: Option<&serde_json::Value>,
    timeout: Duration,
) -> Result<AdminResponse, AdminClientError> {
    let rest = base
        .trim()
        .strip_prefix("http://")
        .ok_or_else(|| AdminClientError::BadUrl {
            url: base.to_string(),
        })?;
    let (addr, prefix) = match rest.split_once('/') {
        Some((addr, prefix)) => (
            addr.to_string(),
            format!("/{}", prefix.trim_end_matches('/')),
        ),
        None => (rest.to_string(), String::new()),
    };
    if addr.is_empty() {
        return Err(AdminClientError::BadUrl {
            url: base.to_string(),
        });
    }
    let prefix = prefix.trim_end_matches('/');
    let exchange = async {
        let mut stream =
            TcpStream::connect(&addr)
                .await
                .map_err(|cause| AdminClientError::Connect {
                    addr: addr.clone(),
                    cause,
                })?;
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut head = format!(
            "{method} {prefix}{path} HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        // The API refuses a POST that does not say it is JSON, also with
        // an empty body.
        if !body.is_empty() || method.eq_ignore_ascii_case("POST") {
            head.push_str("Content-Type: application/json\r\n");
        }
        if let Some(token) = token {
            head.push_str(&format!("Authorization: Bearer {token}\r\n"));
        }
        head.push_str("\r\n");
        let io = |cause| AdminClientError::Io {
            addr: addr.clone(),
            cause,
        };
        stream.write_all(head.as_bytes()).await.map_err(io)?;
        stream.write_all(body.as_bytes()).await.map_err(io)?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.map_err(io)?;
        parse(&raw).map_err(|detail| AdminClientError::Malformed {
            addr: addr.clone(),
            detail,
        })
    };
    match tokio::time::timeout(timeout, exchange).await {
        Ok(answer) => answer,
        Err(_) => Err(AdminClientError::Timeout { addr, timeout }),
    }
}

/// The operations of `sluice admin`, as its help shows them.
pub const USAGE: &str = "Operations:
  list                         every destination: state, role, source position, lag, clients
  show DEST                    one destination, with its clients' connections and cursors
  start DEST                   start it
  stop DEST                    stop it (its cursors are written; clients are refused until it starts)
  reload DEST                  stop it and start it with its current instance.properties
  release DEST [--force] [--wait SECONDS]
                               move it to a standby of the ZooKeeper cluster (waits 30 s by default)
  snapshot DEST SCHEMA.TABLE...
                               read the rows already in these tables, beside the stream
  etl [DEST] KEY FILE [--params P1;P2]
                               load the source table of the relational sink's mapping FILE
                               (name.yml) of its rdb adapter KEY into the target, beside the
                               stream; --params fills the {} of its etlCondition
  reset-cursor DEST CLIENT_ID (--position FILE:OFFSET [--gtid SET] | --time TIME) --confirm DEST
                               set a client's cursor (DEST must be stopped); TIME is ISO-8601
                               (2024-05-01T12:00:00Z) or seconds since the epoch

--json (before or after the operation) prints the API's JSON answer instead of text.";

/// One operation of `sluice admin`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdminOp {
    List,
    Show(String),
    Start(String),
    Stop(String),
    Reload(String),
    Release {
        destination: String,
        force: bool,
        wait_seconds: u64,
    },
    Snapshot {
        destination: String,
        tables: Vec<String>,
    },
    /// canal-adapter's ETL of a relational sink's mapping.
    Etl {
        destination: Option<String>,
        key: String,
        file: String,
        params: Option<String>,
    },
    ResetCursor {
        destination: String,
        client_id: i16,
        /// The request body's fields besides `confirm`.
        target: serde_json::Value,
        confirm: String,
    },
}

impl AdminOp {
    /// Reads an operation from the command line (see [`USAGE`]); also
    /// returns whether `--json` was among the words.
    pub fn parse(words: &[String]) -> Result<(AdminOp, bool), String> {
        let json = words.iter().any(|w| w == "--json");
        let mut words = words.iter().filter(|w| *w != "--json").map(String::as_str);
        let op = words.next().ok_or_else(|| usage("no operation"))?;
        let (positional, flags) = read_arguments(words)?;
        check_options(op, &flags)?;
        check_arity(op, &positional)?;
        let mut positional = positional.into_iter();
        let mut destination = || positional.next().unwrap_or_default();
        let parsed = match op {
            "list" => AdminOp::List,
            "show" => AdminOp::Show(destination()),
            "start" => AdminOp::Start(destination()),
            "stop" => AdminOp::Stop(destination()),
            "reload" => AdminOp::Reload(destination()),
            "snapshot" => {
                let destination = destination();
                snapshot_op(destination, positional.collect())?
            }
            "release" => release_op(destination(), &flags)?,
            "etl" => {
                let mut words: Vec<String> = positional.collect();
                let file = words.pop().unwrap_or_default();
                let key = words.pop().unwrap_or_default();
                AdminOp::Etl {
                    destination: words.pop(),
                    key,
                    file,
                    params: value(&flags, "--params").map(str::to_string),
                }
            }
            "reset-cursor" => {
                let name = destination();
                let client = destination();
                reset_cursor_op(name, client, &flags)?
            }
            other => return Err(usage(&format!("unknown operation {other:?}"))),
        };
        Ok((parsed, json))
    }

    pub fn method(&self) -> &'static str {
        match self {
            AdminOp::List | AdminOp::Show(_) => "GET",
            _ => "POST",
        }
    }

    pub fn path(&self) -> String {
        match self {
            AdminOp::List => "/destinations".to_string(),
            AdminOp::Show(d) => format!("/destinations/{}", encode(d)),
            AdminOp::Start(d) => format!("/destinations/{}/start", encode(d)),
            AdminOp::Stop(d) => format!("/destinations/{}/stop", encode(d)),
            AdminOp::Reload(d) => format!("/destinations/{}/reload", encode(d)),
            AdminOp::Release { destination, .. } => {
                format!("/destinations/{}/release", encode(destination))
            }
            AdminOp::Snapshot { destination, .. } => {
                format!("/destinations/{}/snapshot", encode(destination))
            }
            AdminOp::Etl {
                destination,
                key,
                file,
                params,
            } => {
                let mut query = Vec::new();
                if let Some(d) = destination {
                    query.push(format!("destination={}", encode(d)));
                }
                if let Some(p) = params {
                    query.push(format!("params={}", encode(p)));
                }
                let query = if query.is_empty() {
                    String::new()
                } else {
                    format!("?{}", query.join("&"))
                };
                format!("/etl/rdb/{}/{}{query}", encode(key), encode(file))
            }
            AdminOp::ResetCursor {
                destination,
                client_id,
                ..
            } => format!(
                "/destinations/{}/clients/{client_id}/cursor",
                encode(destination)
            ),
        }
    }

    pub fn body(&self) -> Option<serde_json::Value> {
        match self {
            AdminOp::Release {
                force,
                wait_seconds,
                ..
            } => Some(serde_json::json!({ "force": force, "wait_seconds": wait_seconds })),
            AdminOp::Snapshot { tables, .. } => Some(serde_json::json!({ "tables": tables })),
            AdminOp::ResetCursor {
                target, confirm, ..
            } => {
                let mut body = target.clone();
                body["confirm"] = serde_json::json!(confirm);
                Some(body)
            }
            _ => None,
        }
    }

    /// How long the server may take on top of an answer's usual time.
    pub fn wait(&self) -> Duration {
        match self {
            AdminOp::Release { wait_seconds, .. } => Duration::from_secs(*wait_seconds),
            // A load takes as long as its table; --timeout adds to this.
            AdminOp::Etl { .. } => Duration::from_secs(600),
            _ => Duration::ZERO,
        }
    }

    /// The answer for a person.
    pub fn render(&self, answer: &serde_json::Value) -> String {
        render::answer(self, answer)
    }
}

/// Runs `sluice admin WORDS` against the API at `base`: the text to print
/// (the API's JSON with `--json`), or the error to report.
pub async fn run(
    base: &str,
    token: Option<&str>,
    json: bool,
    timeout: Duration,
    words: &[String],
) -> Result<String, String> {
    let (op, json_word) = AdminOp::parse(words)?;
    let json = json || json_word;
    let body = op.body();
    let token = token.filter(|t| !t.is_empty());
    let answer = request(
        base,
        token,
        op.method(),
        &op.path(),
        body.as_ref(),
        timeout + op.wait(),
    )
    .await
    .map_err(|e| e.to_string())?;
    if !(200..300).contains(&answer.status) {
        let message = answer.body["error"]
            .as_str()
            .or_else(|| answer.body["errorMessage"].as_str())
            .map(str::to_string)
            .unwrap_or_else(|| answer.body.to_string());
        return Err(format!(
            "{} {}: {} {message}",
            op.method(),
            op.path(),
            answer.status
        ));
    }
    Ok(if json {
        format!("{}\n", answer.body)
    } else {
        op.render(&answer.body)
    })
}

/// An option of a command line, with its value if it takes one.
type Flag<'a> = (&'a str, Option<&'a str>);

/// The options of a command line, in order.
type Flags<'a> = [Flag<'a>];

/// `what` went wrong, followed by [`USAGE`].
fn usage(what: &str) -> String {
    format!("{what}\n\n{USAGE}")
}

/// `Some` when option `name` was given, with its value if it takes one.
fn flag<'a>(flags: &Flags<'a>, name: &str) -> Option<Option<&'a str>> {
    flags.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

/// The value of option `name`, if given.
fn value<'a>(flags: &Flags<'a>, name: &str) -> Option<&'a str> {
    flag(flags, name).flatten()
}

/// Sorts the words after the operation into positional arguments and options.
fn read_arguments<'a>(
    mut words: impl Iterator<Item = &'a str>,
) -> Result<(Vec<String>, Vec<Flag<'a>>), String> {
    let mut positional = Vec::new();
    let mut flags: Vec<Flag<'a>> = Vec::new();
    while let Some(w) = words.next() {
        match w {
            "--force" => flags.push((w, None)),
            "--wait" | "--position" | "--gtid" | "--time" | "--confirm" | "--params" => {
                let value = words
                    .next()
                    .ok_or_else(|| usage(&format!("{w} needs a value")))?;
                flags.push((w, Some(value)));
            }
            _ if w.starts_with("--") => return Err(usage(&format!("unknown option {w}"))),
            _ => positional.push(w.to_string()),
        }
    }
    Ok((positional, flags))
}

/// Refuses an option the operation does not take.
fn check_options(op: &str, flags: &Flags<'_>) -> Result<(), String> {
    let allowed: &[&str] = match op {
        "release" => &["--force", "--wait"],
        "reset-cursor" => &["--position", "--gtid", "--time", "--confirm"],
        "etl" => &["--params"],
        _ => &[],
    };
    if let Some((n, _)) = flags.iter().find(|(n, _)| !allowed.contains(n)) {
        return Err(usage(&format!("{op} takes no {n}")));
    }
    Ok(())
}

/// Refuses too many or too few positional arguments for the operation.
fn check_arity(op: &str, positional: &[String]) -> Result<(), String> {
    let want = if op == "list" {
        0
    } else if op == "reset-cursor" {
        2
    } else {
        1
    };
    if op == "etl" {
        if !(2..=3).contains(&positional.len()) {
            return Err(usage(
                "etl takes [DESTINATION] KEY FILE: the rdb adapter's key and its mapping file",
            ));
        }
    } else if op == "snapshot" {
        if positional.len() < 2 {
            return Err(usage(
                "snapshot takes a destination and at least one SCHEMA.TABLE",
            ));
        }
    } else if positional.len() != want {
        return Err(usage(&format!(
            "{op} takes {want} argument(s), not {}",
            positional.len()
        )));
    }
    Ok(())
}

/// `snapshot DESTINATION SCHEMA.TABLE…`, each table name checked.
fn snapshot_op(destination: String, tables: Vec<String>) -> Result<AdminOp, String> {
    if let Some(bad) = tables.iter().find(|t| {
        t.split_once('.')
            .is_none_or(|(s, t)| s.is_empty() || t.is_empty() || t.contains('.'))
    }) {
        return Err(usage(&format!(
            "{bad:?} is not a table name of the form SCHEMA.TABLE"
        )));
    }
    Ok(AdminOp::Snapshot {
        destination,
        tables,
    })
}

/// `release DESTINATION [--force] [--wait SECONDS]` (30 s by default).
fn release_op(destination: String, flags: &Flags<'_>) -> Result<AdminOp, String> {
    Ok(AdminOp::Release {
        destination,
        force: flag(flags, "--force").is_some(),
        wait_seconds: match value(flags, "--wait") {
            Some(w) => w
                .parse()
                .map_err(|_| usage(&format!("--wait {w:?} is not a number of seconds")))?,
            None => 30,
        },
    })
}

/// `reset-cursor DESTINATION CLIENT_ID`, its target and its `--confirm`.
fn reset_cursor_op(name: String, client: String, flags: &Flags<'_>) -> Result<AdminOp, String> {
    let client_id = client.parse().map_err(|_| {
        usage(&format!(
            "clientId {client:?} is not a number from 1 to 32767"
        ))
    })?;
    let target = reset_target(flags)?;
    let confirm = value(flags, "--confirm")
        .ok_or_else(|| {
            usage(&format!(
                "reset-cursor needs --confirm {name}: the destination's name again"
            ))
        })?
        .to_string();
    Ok(AdminOp::ResetCursor {
        destination: name,
        client_id,
        target,
        confirm,
    })
}

/// Where `reset-cursor` goes: `--position FILE:OFFSET [--gtid SET]` or `--time TIME`.
fn reset_target(flags: &Flags<'_>) -> Result<serde_json::Value, String> {
    Ok(match (value(flags, "--position"), value(flags, "--time")) {
        (Some(p), None) => {
            let (file, offset) = p
                .rsplit_once(':')
                .and_then(|(f, o)| Some((f, o.parse::<u64>().ok()?)))
                .ok_or_else(|| {
                    usage(&format!(
                        "--position {p:?} is not FILE:OFFSET (e.g. mysql-bin.000003:4)"
                    ))
                })?;
            let mut t = serde_json::json!({ "journal_name": file, "position": offset });
            if let Some(g) = value(flags, "--gtid") {
                t["gtid"] = serde_json::json!(g);
            }
            t
        }
        (None, Some(time)) if value(flags, "--gtid").is_none() => {
            serde_json::json!({ "time": time })
        }
        _ => {
            return Err(usage(
                "reset-cursor takes --position FILE:OFFSET [--gtid SET] or --time TIME",
            ))
        }
    })
}

/// [`run`] on a runtime of its own, for a program without one;
/// `timeout_seconds` for the answer.
pub fn run_blocking(
    base: &str,
    token: Option<&str>,
    json: bool,
    timeout_seconds: u64,
    words: &[String],
) -> Result<String, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let timeout = Duration::from_secs(timeout_seconds);
    runtime.block_on(run(base, token, json, timeout, words))
}

/// Status and JSON body of an HTTP/1.1 response read to its end.
fn parse(raw: &[u8]) -> Result<AdminResponse, String> {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no end of the response head")?;
    let head = String::from_utf8_lossy(&raw[..split]);
    let mut payload = raw[split + 4..].to_vec();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| format!("no status line in {head:?}"))?;
    let chunked = lines.any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("transfer-encoding:") && l.contains("chunked")
    });
    if chunked {
        payload = dechunk(&payload)?;
    }
    let body = if payload.iter().all(u8::is_ascii_whitespace) {
        serde_json::Value::Null
    } else {
        serde_json::from_slice(&payload).map_err(|e| {
            format!(
                "status {status}, body {:?}: {e}",
                String::from_utf8_lossy(&payload)
            )
        })?
    };
    Ok(AdminResponse { status, body })
}

fn dechunk(mut data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let line_end = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a chunk size line has no end")?;
        let size_text = String::from_utf8_lossy(&data[..line_end]);
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| format!("bad chunk size {size_text:?}"))?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        if data.len() < size {
            return Err("a chunk is cut short".into());
        }
        out.extend_from_slice(&data[..size]);
        data = data.get(size + 2..).unwrap_or_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn operations_are_read_from_the_command_line() {
        let (op, json) = AdminOp::parse(&words("list --json")).unwrap();
        assert_eq!(
            (op.method(), op.path().as_str(), json),
            ("GET", "/destinations", true)
        );
        let (op, _) = AdminOp::parse(&words("stop a/b")).unwrap();
        assert_eq!(op.path(), "/destinations/a%2Fb/stop");
        let (op, _) = AdminOp::parse(&words("release x --force --wait 5")).unwrap();
        assert_eq!(
            op.body().unwrap(),
            serde_json::json!({"force": true, "wait_seconds": 5})
        );
        assert_eq!(op.wait(), Duration::from_secs(5));
        let (op, _) = AdminOp::parse(&words(
            "reset-cursor x 1001 --position mysql-bin.000003:4 --gtid 0-1-5 --confirm x",
        ))
        .unwrap();
        assert_eq!(op.path(), "/destinations/x/clients/1001/cursor");
        assert_eq!(
            op.body().unwrap(),
            serde_json::json!({"journal_name": "mysql-bin.000003", "position": 4, "gtid": "0-1-5", "confirm": "x"})
        );
        let (op, _) = AdminOp::parse(&words("etl pg1 t.yml")).unwrap();
        assert_eq!(
            (op.method(), op.path().as_str()),
            ("POST", "/etl/rdb/pg1/t.yml")
        );
        let (op, _) =
            AdminOp::parse(&words("etl example pg1 t.yml --params 2024-01-01;5")).unwrap();
        assert_eq!(
            op.path(),
            "/etl/rdb/pg1/t.yml?destination=example&params=2024-01-01%3B5"
        );
        for (bad, want) in [
            ("", "no operation"),
            ("etl t.yml", "etl takes [DESTINATION] KEY FILE"),
            ("etl a b c d", "etl takes [DESTINATION] KEY FILE"),
            ("etl a b --force", "etl takes no --force"),
            ("show", "takes 1 argument"),
            ("list --force", "list takes no --force"),
            ("explode x", "unknown operation"),
            ("reset-cursor x 1001 --time 0", "--confirm x"),
            ("reset-cursor x 1001 --confirm x", "--position FILE:OFFSET"),
            (
                "reset-cursor x 1001 --position nofile --confirm x",
                "not FILE:OFFSET",
            ),
            ("reset-cursor x abc --time 0 --confirm x", "clientId"),
            ("release x --wait", "needs a value"),
        ] {
            let err = AdminOp::parse(&words(bad)).unwrap_err();
            assert!(
                err.contains(want) && err.contains("Operations:"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn plain_and_chunked_bodies_are_read() {
        let plain = b"HTTP/1.1 404 Not Found\r\ncontent-length: 13\r\n\r\n{\"error\":\"x\"}";
        let r = parse(plain).unwrap();
        assert_eq!(r.status, 404);
        assert_eq!(r.body["error"], "x");
        let chunked =
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n4\r\n:1}\n\r\n0\r\n\r\n";
        let r = parse(chunked).unwrap();
        assert_eq!(r.body["a"], 1);
        assert!(parse(b"garbage").is_err());
    }
}
