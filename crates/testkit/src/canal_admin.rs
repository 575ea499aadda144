//! A stand-in for canal-admin's configuration API, the part a Canal server
//! managed by canal-admin (`canal.admin.manager`) talks to: canal-admin
//! needs Java and a MySQL schema of its own, so tests run against this.
//!
//! It answers `GET /api/{env}/config/server_polling`, `instances_polling`
//! and `instance_polling/{destination}` as canal-admin's
//! `PollingConfigController` does: the `user` / `passwd` headers checked
//! against its password with Canal's SHA1 scramble, `md5` compared with the
//! MD5 of what it serves (equal: no content), servers registering
//! themselves when asked to, every answer `{code, message, data}` with
//! `code` 20000, or 50000 and a message when it refuses. A test changes
//! what it serves while it runs, reads the requests it got, and can take
//! it down and up again on the same port.
//!
//! ```no_run
//! use sluice_testkit::canal_admin::CanalAdmin;
//!
//! # fn main() -> anyhow::Result<()> {
//! let admin = CanalAdmin::start("admin", "secret")?;
//! admin.set_server_config("canal.port = 11111\n");
//! admin.set_instance("example", "canal.instance.master.address = 127.0.0.1:3306\n");
//! println!("canal.admin.manager = {}", admin.addr());
//! println!("canal.admin.passwd = {}", CanalAdmin::passwd_hash("secret"));
//! # Ok(())
//! # }
//! ```

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};
use md5::Md5;
use sha1::{Digest, Sha1};

/// One request the stand-in got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminRequest {
    /// The path after `/api/{env}/config/`, e.g. `server_polling` or
    /// `instance_polling/example`.
    pub path: String,
    /// The query parameters, decoded.
    pub query: BTreeMap<String, String>,
    /// The `user` and `passwd` headers.
    pub user: Option<String>,
    pub passwd: Option<String>,
}

/// A server canal-admin knows (added by the test or registered).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownServer {
    pub ip: String,
    pub admin_port: u16,
    pub name: String,
    /// The cluster it belongs to; `None` for a standalone server.
    pub cluster: Option<String>,
}

#[derive(Default)]
struct State {
    user: String,
    /// In clear, as canal-admin's `canal.adminPasswd`.
    password: String,
    seed: Vec<u8>,
    servers: Vec<KnownServer>,
    clusters: Vec<String>,
    canal_properties: String,
    /// Destination → `instance.properties`; all of them run on every
    /// known server (status 1).
    instances: BTreeMap<String, String>,
    requests: Vec<AdminRequest>,
}

struct Serving {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

/// The stand-in, serving on 127.0.0.1 until dropped.
pub struct CanalAdmin {
    port: u16,
    state: Arc<Mutex<State>>,
    serving: Option<Serving>,
}

impl CanalAdmin {
    /// Serves on a free port, accepting `user` (empty: any) with
    /// `password` (empty: any).
    pub fn start(user: &str, password: &str) -> Result<CanalAdmin> {
        let listener =
            TcpListener::bind("127.0.0.1:0").context("binding the canal-admin stand-in")?;
        let port = listener.local_addr()?.port();
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos().to_le_bytes()[..16].to_vec())
            .unwrap_or_else(|_| b"0123456789abcdef".to_vec());
        let state = Arc::new(Mutex::new(State {
            user: user.to_string(),
            password: password.to_string(),
            seed,
            ..State::default()
        }));
        let mut admin = CanalAdmin {
            port,
            state,
            serving: None,
        };
        admin.serve(listener)?;
        Ok(admin)
    }

    /// `host:port`, what `canal.admin.manager` names.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// What `canal.admin.passwd` holds for `password`: the hex of
    /// SHA1(SHA1(password)).
    pub fn passwd_hash(password: &str) -> String {
        hex(&Sha1::digest(Sha1::digest(password.as_bytes())))
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The `canal.properties` served to every known server.
    pub fn set_server_config(&self, content: &str) {
        self.state().canal_properties = content.to_string();
    }

    /// Adds or changes a destination.
    pub fn set_instance(&self, destination: &str, content: &str) {
        self.state()
            .instances
            .insert(destination.to_string(), content.to_string());
    }

    /// Removes a destination.
    pub fn remove_instance(&self, destination: &str) {
        self.state().instances.remove(destination);
    }

    /// Makes a server known, as adding it in canal-admin's console does.
    pub fn add_server(&self, ip: &str, admin_port: u16) {
        self.state().servers.push(KnownServer {
            ip: ip.to_string(),
            admin_port,
            name: ip.to_string(),
            cluster: None,
        });
    }

    /// Adds a cluster servers may register into.
    pub fn add_cluster(&self, name: &str) {
        self.state().clusters.push(name.to_string());
    }

    /// The servers it knows.
    pub fn servers(&self) -> Vec<KnownServer> {
        self.state().servers.clone()
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<AdminRequest> {
        self.state().requests.clone()
    }

    /// Stops serving: connections to its port are refused.
    pub fn stop(&mut self) {
        if let Some(serving) = self.serving.take() {
            serving.stop.store(true, Ordering::SeqCst);
            let _ = serving.thread.join();
        }
    }

    /// Serves again on the same port.
    pub fn restart(&mut self) -> Result<()> {
        if self.serving.is_some() {
            return Ok(());
        }
        let listener = TcpListener::bind(("127.0.0.1", self.port))
            .with_context(|| format!("binding the canal-admin stand-in again on {}", self.port))?;
        self.serve(listener)
    }

    fn serve(&mut self, listener: TcpListener) -> Result<()> {
        listener.set_nonblocking(true)?;
        let stop = Arc::new(AtomicBool::new(false));
        let state = self.state.clone();
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            while !flag.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let _ = handle(stream, &state);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        self.serving = Some(Serving { stop, thread });
        Ok(())
    }
}

impl Drop for CanalAdmin {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Answers one request on `stream` (one request per connection).
fn handle(mut stream: TcpStream, state: &Mutex<State>) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    while !raw.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        raw.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&raw);
    let mut lines = text.split("\r\n");
    let target = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or("")
        .to_string();
    let mut user = None;
    let mut passwd = None;
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "user" => user = Some(value.trim().to_string()),
                "passwd" => passwd = Some(value.trim().to_string()),
                _ => {}
            }
        }
    }
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let query: BTreeMap<String, String> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect();
    // /api/{env}/config/...
    let mut parts = path.splitn(5, '/').skip(1);
    let (api, _env, config, rest) = (parts.next(), parts.next(), parts.next(), parts.next());
    let answer = if api == Some("api") && config == Some("config") {
        let request = AdminRequest {
            path: rest.unwrap_or("").to_string(),
            query,
            user,
            passwd,
        };
        let mut state = state.lock().unwrap_or_else(|p| p.into_inner());
        state.requests.push(request.clone());
        Some(answer(&mut state, &request))
    } else {
        None
    };
    let (status, body) = match answer {
        Some(body) => ("200 OK", body.to_string()),
        None => ("404 Not Found", r#"{"error":"not found"}"#.to_string()),
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: application/json;charset=UTF-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    stream.flush()
}

/// canal-admin's answer to `request`.
fn answer(state: &mut State, request: &AdminRequest) -> serde_json::Value {
    match respond(state, request) {
        Ok(data) => serde_json::json!({"code": 20000, "message": null, "data": data}),
        Err(message) => serde_json::json!({"code": 50000, "message": message, "data": null}),
    }
}

fn respond(state: &mut State, r: &AdminRequest) -> Result<serde_json::Value, String> {
    let param = |name: &str| {
        r.query
            .get(name)
            .cloned()
            .ok_or_else(|| format!("Required request parameter '{name}' is not present"))
    };
    let user = r.user.clone().ok_or("Missing request header 'user'")?;
    let passwd = r.passwd.clone().ok_or("Missing request header 'passwd'")?;
    if !auth(state, &user, &passwd) {
        return Err(format!("auth :{user} is failed"));
    }
    let config = |content: Option<String>| match content {
        Some(content) => serde_json::json!({"content": content, "status": "1"}),
        None => serde_json::json!({"content": null, "status": "1"}),
    };
    if r.path == "server_polling" {
        let ip = param("ip")?;
        let port: u16 = param("port")?.parse().map_err(|_| "bad port")?;
        let md5 = param("md5")?;
        let register = matches!(param("register")?.as_str(), "1" | "true");
        let cluster = param("cluster")?;
        let name = param("name")?;
        if md5.is_empty() && register && !known(state, &ip, port) {
            let cluster = (!cluster.is_empty()).then_some(cluster);
            if let Some(c) = &cluster {
                if !state.clusters.contains(c) {
                    return Err(format!("auto cluster : {c} is not found."));
                }
            }
            state.servers.push(KnownServer {
                ip: ip.clone(),
                admin_port: port,
                name: if name.is_empty() { ip.clone() } else { name },
                cluster,
            });
        }
        if !known(state, &ip, port) {
            return Ok(serde_json::Value::Null);
        }
        if md5_hex(&state.canal_properties) == md5 {
            return Ok(serde_json::Value::Null);
        }
        return Ok(config(Some(state.canal_properties.clone())));
    }
    if r.path == "instances_polling" {
        let ip = param("ip")?;
        let port: u16 = param("port")?.parse().map_err(|_| "bad port")?;
        let md5 = param("md5")?;
        if !known(state, &ip, port) {
            return Ok(serde_json::Value::Null);
        }
        let list = state
            .instances
            .keys()
            .cloned()
            .collect::<Vec<_>>()
            .join(",");
        let unchanged = !md5.is_empty() && md5_hex(&list) == md5;
        return Ok(config((!unchanged).then_some(list)));
    }
    if let Some(destination) = r.path.strip_prefix("instance_polling/") {
        let destination = decode(destination);
        let md5 = param("md5")?;
        let Some(content) = state.instances.get(&destination) else {
            return Ok(serde_json::Value::Null);
        };
        let unchanged = !md5.is_empty() && md5_hex(content) == md5;
        return Ok(config((!unchanged).then(|| content.clone())));
    }
    Err(format!("no handler for {}", r.path))
}

fn known(state: &State, ip: &str, port: u16) -> bool {
    state
        .servers
        .iter()
        .any(|s| s.ip == ip && s.admin_port == port)
}

/// canal-admin's check: it scrambles its own password with a seed, then
/// checks the client's `passwd` (hex of SHA1(SHA1(password))) against it.
fn auth(state: &State, user: &str, passwd: &str) -> bool {
    if !(state.user.is_empty() || state.user == user) {
        return false;
    }
    if state.password.is_empty() {
        return true;
    }
    let Some(pass) = unhex(passwd) else {
        return false;
    };
    // scramble411: SHA1(seed + SHA1(SHA1(p))) XOR SHA1(p).
    let stage1 = Sha1::digest(state.password.as_bytes());
    let stage2 = Sha1::digest(stage1);
    let mut h = Sha1::new();
    h.update(&state.seed);
    h.update(stage2);
    let token: Vec<u8> = h
        .finalize()
        .iter()
        .zip(stage1.iter())
        .map(|(a, b)| a ^ b)
        .collect();
    // scrambleServerAuth: SHA1(token XOR SHA1(seed + pass)) == pass.
    let mut h = Sha1::new();
    h.update(&state.seed);
    h.update(&pass);
    let candidate: Vec<u8> = h
        .finalize()
        .iter()
        .zip(token.iter())
        .map(|(a, b)| a ^ b)
        .collect();
    Sha1::digest(&candidate).as_slice() == pass.as_slice()
}

fn md5_hex(text: &str) -> String {
    hex(&Md5::digest(text.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Percent-decoding of a query value (`+` is a space, as for Spring).
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                match std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(b) => {
                        out.push(b);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_check_is_canal_admins() {
        let state = State {
            user: "admin".into(),
            password: "admin".into(),
            seed: b"0123456789abcdef".to_vec(),
            ..State::default()
        };
        // Canal's stock canal.admin.passwd for "admin".
        let stock = "4acfe3202a5ff5cf467898fc58aab1d615029441";
        assert_eq!(CanalAdmin::passwd_hash("admin"), stock);
        assert!(auth(&state, "admin", stock));
        assert!(!auth(&state, "admin", &CanalAdmin::passwd_hash("other")));
        assert!(!auth(&state, "someone", stock));
        assert_eq!(decode("a%2Cb+c"), "a,b c");
    }
}
