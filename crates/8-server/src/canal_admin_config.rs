//! canal-admin as the configuration source (`canal.admin.manager`), as
//! Canal's deployer uses it: at start the server asks canal-admin for its
//! `canal.properties` (registering itself when `canal.admin.register.auto`
//! says so), then every `sluice.admin.pollInterval` for the destinations it
//! should run and their `instance.properties`.
//!
//! What canal-admin serves is written to a folder of the data folder
//! (`{canal.file.data.dir}/canal-admin/`), laid out as a conf folder: the
//! server's conf folder is that copy, so the configuration scan (or, with
//! ZooKeeper, the elections' scan) starts, stops and reloads destinations
//! from it as it does from a local folder. When canal-admin cannot be
//! reached, the server starts and keeps running from that copy; nothing is
//! stopped because canal-admin is away.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use md5::{Digest, Md5};
use sluice_config::{AdminManagerConfig, ServerConfig};
use sluice_instance::manager::InstanceManager;
use tokio::net::TcpStream;
use tokio::sync::watch;

use crate::percent::encode;
use crate::ServerError;

/// The folder of the data folder that keeps what canal-admin served.
const KEPT_DIR: &str = "canal-admin";
/// Canal's client gives each request 5 s.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// canal-admin's `code` of an answer that went well.
const CODE_OK: i64 = 20000;

/// Why canal-admin gave no configuration.
#[derive(Debug)]
enum AdminError {
    /// Not reached, or not answering as canal-admin: the copy kept serves.
    Unreachable(String),
    /// canal-admin refused the request (`code` other than 20000), e.g. a
    /// wrong password: a setting to fix.
    Refused(String),
}

impl std::fmt::Display for AdminError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AdminError::Unreachable(m) | AdminError::Refused(m) => f.write_str(m),
        }
    }
}

/// Canal's `PlainCanalConfigClient`: GET requests with the `user` and
/// `passwd` headers, answers `{code, message, data: {content, status}}`.
struct AdminClient {
    /// `host:port`.
    addr: String,
    user: String,
    passwd: String,
    ip: String,
    port: u16,
    register: bool,
    cluster: String,
    name: String,
}

impl AdminClient {
    fn new(c: &AdminManagerConfig) -> AdminClient {
        let addr = c.manager.trim();
        let addr = addr
            .strip_prefix("http://")
            .or_else(|| addr.strip_prefix("HTTP://"))
            .unwrap_or(addr)
            .trim_end_matches('/');
        let name = if c.name.is_empty() {
            host_name()
        } else {
            c.name.clone()
        };
        AdminClient {
            addr: addr.to_string(),
            user: c.user.clone(),
            passwd: c.passwd.clone(),
            ip: c.ip.clone(),
            port: c.port,
            register: c.register,
            cluster: c.cluster.clone(),
            name,
        }
    }

    /// The server's `canal.properties`, unless its MD5 is `md5` (then
    /// `None`). With an empty `md5`, canal-admin registers the server first
    /// when asked to. `None` as well when canal-admin does not know the
    /// server.
    async fn server(&self, md5: &str) -> Result<Option<String>, AdminError> {
        let path = format!(
            "/api/v1/config/server_polling?ip={}&port={}&md5={}&register={}&cluster={}&name={}",
            encode(&self.ip),
            self.port,
            encode(md5),
            u8::from(self.register),
            encode(&self.cluster),
            encode(&self.name),
        );
        Ok(self.get(&path).await?.filter(|c| !c.is_empty()))
    }

    /// The destinations canal-admin wants running here; `None` when it does
    /// not know the server.
    async fn instances(&self) -> Result<Option<Vec<String>>, AdminError> {
        let path = format!(
            "/api/v1/config/instances_polling?md5=&ip={}&port={}",
            encode(&self.ip),
            self.port
        );
        Ok(self.get(&path).await?.map(|list| {
            list.split(',')
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(str::to_string)
                .collect()
        }))
    }

    /// `destination`'s `instance.properties`, unless its MD5 is `md5`.
    async fn instance(&self, destination: &str, md5: &str) -> Result<Option<String>, AdminError> {
        let path = format!(
            "/api/v1/config/instance_polling/{}?md5={}",
            encode(destination),
            encode(md5)
        );
        Ok(self.get(&path).await?.filter(|c| !c.is_empty()))
    }

    /// `data.content` of the answer to `GET path`.
    async fn get(&self, path: &str) -> Result<Option<String>, AdminError> {
        let answer = tokio::time::timeout(REQUEST_TIMEOUT, self.request(path))
            .await
            .map_err(|_| {
                AdminError::Unreachable(format!(
                    "canal-admin at {} did not answer within {} s",
                    self.addr,
                    REQUEST_TIMEOUT.as_secs()
                ))
            })??;
        let code = answer.get("code").and_then(serde_json::Value::as_i64);
        if code != Some(CODE_OK) {
            let message = answer
                .get("message")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("no message");
            return Err(AdminError::Refused(format!(
                "canal-admin at {} refused the request: {message} (code {}); check canal.admin.user and canal.admin.passwd (the hex of SHA1(SHA1(password)) of canal-admin's password), and that canal-admin knows this server ({}:{})",
                self.addr,
                code.map_or("none".to_string(), |c| c.to_string()),
                self.ip,
                self.port
            )));
        }
        Ok(answer
            .get("data")
            .and_then(|d| d.get("content"))
            .and_then(serde_json::Value::as_str)
            .map(str::to_string))
    }

    async fn request(&self, path: &str) -> Result<serde_json::Value, AdminError> {
        let unreachable = |what: &str, e: &dyn std::fmt::Display| {
            AdminError::Unreachable(format!("canal-admin at {}: {what}: {e}", self.addr))
        };
        let stream = TcpStream::connect(&self.addr)
            .await
            .map_err(|e| unreachable("cannot connect", &e))?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| unreachable("HTTP handshake", &e))?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let request = hyper::Request::get(path)
            .header(hyper::header::HOST, &self.addr)
            .header("user", &self.user)
            .header("passwd", &self.passwd)
            .body(Empty::<Bytes>::new())
            .map_err(|e| {
                AdminError::Refused(format!(
                    "canal.admin.user or canal.admin.passwd cannot be sent in an HTTP header: {e}"
                ))
            })?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| unreachable("request failed", &e))?;
        let status = response.status();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| unreachable("reading the answer", &e))?
            .to_bytes();
        if !status.is_success() {
            return Err(AdminError::Unreachable(format!(
                "canal-admin at {} answered HTTP {status} to {}; is canal.admin.manager canal-admin's address?",
                self.addr,
                path.split('?').next().unwrap_or(path)
            )));
        }
        serde_json::from_slice(&body).map_err(|e| unreachable("the answer is not JSON", &e))
    }
}

/// The copy of what canal-admin served: `canal.properties` and
/// `{destination}/instance.properties`.
struct Kept {
    dir: PathBuf,
}

impl Kept {
    fn server(&self) -> PathBuf {
        self.dir.join("canal.properties")
    }

    fn instance(&self, destination: &str) -> PathBuf {
        self.dir.join(destination).join("instance.properties")
    }

    fn read(path: &Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }

    /// Writes `path` whole or not at all: a scan never reads half a file.
    fn write(path: &Path, content: &str) -> Result<(), String> {
        let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(fail)?;
        }
        let tmp = path.with_extension("properties.tmp");
        std::fs::write(&tmp, content).map_err(fail)?;
        std::fs::rename(&tmp, path).map_err(fail)
    }

    /// The destinations kept: folders holding an `instance.properties`.
    fn destinations(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        entries
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join("instance.properties").is_file())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .collect()
    }

    /// Forgets a destination: its `instance.properties` goes, and its
    /// folder if nothing else is in it (cursors may live there).
    fn remove(&self, destination: &str) {
        let path = self.instance(destination);
        if let Err(e) = std::fs::remove_file(&path) {
            tracing::warn!(destination, error = %e, "cannot remove {}", path.display());
        }
        let _ = std::fs::remove_dir(self.dir.join(destination));
    }
}

/// A destination name usable as a folder name.
fn plain_name(destination: &str) -> bool {
    !destination.is_empty()
        && destination != "."
        && destination != ".."
        && !destination.contains(['/', '\\', '\0'])
}

/// Brings the kept destinations in line with canal-admin's list: new and
/// changed `instance.properties` written, those no longer listed removed.
async fn sync_instances(client: &AdminClient, kept: &Kept) -> Result<(), AdminError> {
    let Some(wanted) = client.instances().await? else {
        // canal-admin does not know this server: nothing to go by.
        return Ok(());
    };
    for destination in &wanted {
        if !plain_name(destination) {
            tracing::warn!(
                destination,
                "canal-admin lists a destination whose name cannot be a folder name: skipped"
            );
            continue;
        }
        let path = kept.instance(destination);
        let held = Kept::read(&path);
        let md5 = held.as_deref().map(md5_hex).unwrap_or_default();
        if let Some(content) = client.instance(destination, &md5).await? {
            if held.as_deref() != Some(content.as_str()) {
                Kept::write(&path, &content).map_err(AdminError::Unreachable)?;
                let what = if held.is_some() { "changed" } else { "new" };
                tracing::info!(destination, "canal-admin: {what} instance.properties");
            }
        }
    }
    for destination in kept.destinations() {
        if !wanted.contains(&destination) {
            tracing::info!(destination, "canal-admin no longer lists the destination");
            kept.remove(&destination);
        }
    }
    Ok(())
}

/// The configuration `sluice server` runs with: `config` itself, or with
/// `canal.admin.manager` the one canal-admin serves (fetched now, else the
/// copy kept of it) with `config`'s own file over it.
pub(crate) async fn resolve(config: ServerConfig) -> Result<ServerConfig, ServerError> {
    let Some(admin) = config.admin_manager.clone() else {
        return Ok(config);
    };
    let kept = Kept {
        dir: config.destinations.data_dir.join(KEPT_DIR),
    };
    let client = AdminClient::new(&admin);
    let kept_note = || format!("the configuration kept in {}", kept.dir.display());
    // An empty MD5 asks for the whole file, and registers the server.
    let reached = match client.server("").await {
        Ok(Some(content)) => {
            Kept::write(&kept.server(), &content).map_err(ServerError::CanalAdmin)?;
            true
        }
        Ok(None) => {
            return Err(ServerError::CanalAdmin(format!(
                "canal-admin at {} has no configuration for this server ({}:{}): add a server with that IP and admin port in canal-admin, or set canal.admin.register.auto = true",
                client.addr, client.ip, client.port
            )))
        }
        Err(AdminError::Refused(message)) => return Err(ServerError::CanalAdmin(message)),
        Err(AdminError::Unreachable(why)) => {
            if !kept.server().is_file() {
                return Err(ServerError::CanalAdmin(format!(
                    "{why}; and no configuration from it is kept in {} yet: start canal-admin, or check canal.admin.manager",
                    kept.dir.display()
                )));
            }
            tracing::warn!("{why}: starting with {}", kept_note());
            false
        }
    };
    // Not asked again when it did not answer: each request may wait its
    // full timeout.
    if reached {
        if let Err(e) = sync_instances(&client, &kept).await {
            tracing::warn!("{e}: starting the destinations of {}", kept_note());
        }
    }
    let content = Kept::read(&kept.server()).ok_or_else(|| {
        ServerError::CanalAdmin(format!("cannot read {}", kept.server().display()))
    })?;
    let dir = config
        .path
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let mut managed = ServerConfig::load_managed(
        &dir,
        &content,
        &kept.dir,
        &config.destinations.data_dir,
        admin.poll_interval,
    )
    .map_err(|source| ServerError::Config {
        dir: kept.dir.clone(),
        source: Box::new(source),
    })?;
    managed.log_files = config.log_files.clone();
    // The server stays known to canal-admin as the local file says, even if
    // canal-admin's file sets canal.register.ip or canal.admin.port.
    managed.admin_manager = Some(admin);
    tracing::info!(
        manager = %client.addr,
        destinations = ?kept.destinations(),
        "configuration from canal-admin"
    );
    Ok(managed)
}

/// With `canal.admin.manager`, the poller: every poll interval it brings
/// the kept configuration in line with canal-admin and, when `scan`, runs
/// the configuration scan over it (without ZooKeeper: it is then the only
/// scan). Ends when `stop` turns.
pub(crate) fn poller(
    admin: Option<&AdminManagerConfig>,
    manager: &Arc<InstanceManager>,
    scan: bool,
    mut stop: watch::Receiver<bool>,
) -> Option<impl Future<Output = ()> + Send + 'static> {
    let admin = admin?.clone();
    let manager = manager.clone();
    Some(async move {
        let kept = Kept {
            dir: manager.config().conf_dir.clone(),
        };
        let client = AdminClient::new(&admin);
        // Said when it changes, not at every poll.
        let mut last_error: Option<String> = None;
        loop {
            tokio::select! {
                _ = tokio::time::sleep(admin.poll_interval) => {}
                _ = stop.changed() => return,
            }
            if *stop.borrow() {
                return;
            }
            match poll_once(&client, &kept).await {
                Ok(()) => {
                    if last_error.take().is_some() {
                        tracing::info!(manager = %client.addr, "canal-admin answers again");
                    }
                }
                Err(e) => {
                    let text = e.to_string();
                    if last_error.as_deref() != Some(text.as_str()) {
                        tracing::warn!(
                            "{text}: the destinations run on with the configuration kept in {}",
                            kept.dir.display()
                        );
                        last_error = Some(text);
                    }
                }
            }
            if scan {
                manager.scan_once().await;
            }
        }
    })
}

/// One poll: a changed `canal.properties` is kept (it applies at the next
/// start), then the destinations are brought in line.
async fn poll_once(client: &AdminClient, kept: &Kept) -> Result<(), AdminError> {
    let held = Kept::read(&kept.server()).unwrap_or_default();
    if let Some(content) = client.server(&md5_hex(&held)).await? {
        if content != held {
            Kept::write(&kept.server(), &content).map_err(AdminError::Unreachable)?;
            tracing::warn!(
                "canal-admin serves a changed canal.properties: kept in {}, it applies when the server starts again",
                kept.server().display()
            );
        }
    }
    sync_instances(client, kept).await
}

/// MD5 of `text` in lower-case hex, as canal-admin computes it.
fn md5_hex(text: &str) -> String {
    Md5::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The host's name, the registration name Canal uses by default.
fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "localhost".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_matches_canal_admin() {
        // canal-admin's SecurityUtil.md5String: lower-case hex.
        assert_eq!(md5_hex(""), "d41d8cd98f00b204e9800998ecf8427e");
    }

    #[test]
    fn destination_names_stay_inside_the_kept_folder() {
        assert!(plain_name("example"));
        assert!(!plain_name(".."));
        assert!(!plain_name("a/b"));
        assert!(!plain_name(""));
    }
}
