//! canal-admin as the configuration source (`canal.admin.manager`): the
//! keys that say where it is and how this server presents itself to it,
//! and the server configuration made of what it serves and the local file.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use crate::reader::Reader;
use crate::{read, ConfigError, Properties, Property, ServerConfig};

/// `canal.admin.manager` and the keys read with it: the server fetches its
/// `canal.properties` and its destinations from canal-admin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminManagerConfig {
    /// `canal.admin.manager`: `host:port` (or `http://host:port`).
    pub manager: String,
    /// `canal.admin.user`, sent in the `user` header.
    pub user: String,
    /// `canal.admin.passwd` (hex of SHA1(SHA1(password))), sent as is in
    /// the `passwd` header: canal-admin checks it against its own password.
    pub passwd: String,
    /// The address canal-admin knows this server by: `canal.register.ip`,
    /// else `canal.ip`, else 127.0.0.1.
    pub ip: String,
    /// `canal.admin.port` (default 11110): with `ip`, the server's identity
    /// in canal-admin.
    pub port: u16,
    /// `canal.admin.register.auto` (default false): canal-admin adds this
    /// server on its first request.
    pub register: bool,
    /// `canal.admin.register.cluster`: the canal-admin cluster it joins
    /// when it registers; empty for a standalone server.
    pub cluster: String,
    /// `canal.admin.register.name`: its name in canal-admin; empty for the
    /// host name.
    pub name: String,
    /// `sluice.admin.pollInterval` (seconds, default 5): how often the
    /// destinations are asked for.
    pub poll_interval: Duration,
}

/// `canal.admin.manager` and its companions; `None` when it is not set.
pub(crate) fn admin_manager(r: &Reader<'_>) -> Result<Option<AdminManagerConfig>, ConfigError> {
    let manager = r.string("canal.admin.manager", "");
    if manager.is_empty() {
        return Ok(None);
    }
    if let Some(p) = r.get("canal.admin.manager") {
        let lower = manager.to_ascii_lowercase();
        if lower.starts_with("https://") {
            return Err(r.bad(
                "canal.admin.manager",
                p,
                "canal-admin is reached over plain HTTP, as Canal does: give host:port",
            ));
        }
        let hostport = lower.strip_prefix("http://").unwrap_or(&lower);
        let hostport = hostport.trim_end_matches('/');
        let port_ok = hostport
            .rsplit_once(':')
            .is_some_and(|(h, port)| !h.is_empty() && port.parse::<u16>().is_ok());
        if !port_ok || hostport.contains('/') {
            return Err(r.bad(
                "canal.admin.manager",
                p,
                "expected canal-admin's address as host:port, e.g. 127.0.0.1:8089",
            ));
        }
    }
    let passwd = r.string("canal.admin.passwd", "");
    if passwd.is_empty() {
        return Err(ConfigError::Missing {
            path: r.path.to_path_buf(),
            key: "canal.admin.passwd".into(),
            hint: "canal.admin.manager is set: give the hex of SHA1(SHA1(password)) of canal-admin's canal.adminPasswd (e.g. SELECT PASSWORD('admin') without its *)".into(),
        });
    }
    let ip = ["canal.register.ip", "canal.ip"]
        .iter()
        .map(|k| r.string(k, ""))
        .find(|s| !s.is_empty())
        .unwrap_or_else(|| "127.0.0.1".into());
    let poll: u64 = r.parse(
        "sluice.admin.pollInterval",
        5,
        "expected seconds (at least 1)",
    )?;
    if poll == 0 {
        if let Some(p) = r.get("sluice.admin.pollInterval") {
            return Err(r.bad(
                "sluice.admin.pollInterval",
                p,
                "expected seconds (at least 1)",
            ));
        }
    }
    Ok(Some(AdminManagerConfig {
        manager,
        user: r.string("canal.admin.user", ""),
        passwd,
        ip,
        port: r.parse("canal.admin.port", 11110, "expected a TCP port (0-65535)")?,
        register: r.bool("canal.admin.register.auto", false)?,
        cluster: r.string("canal.admin.register.cluster", ""),
        name: r.string("canal.admin.register.name", ""),
        poll_interval: Duration::from_secs(poll),
    }))
}

fn set(props: &mut Properties, key: &str, value: &str) {
    if !props.entries.contains_key(key) {
        props.order.push(key.to_string());
    }
    props.entries.insert(
        key.to_string(),
        Property {
            value: value.to_string(),
            line: 0,
        },
    );
}

impl ServerConfig {
    /// The configuration of a server managed by canal-admin: `admin_content`
    /// (the `canal.properties` canal-admin serves, kept in `kept`) with the
    /// keys of the local `dir/canal.properties` over it, as Canal merges
    /// them. The destinations are the folders of `kept`, which the
    /// configuration poller fills: `canal.conf.dir` is `kept`,
    /// `canal.destinations` is ignored and the scan is on, every
    /// `poll_interval`. Cursors stay in `data_dir` unless a file sets
    /// `canal.file.data.dir`.
    pub fn load_managed(
        dir: &Path,
        admin_content: &str,
        kept: &Path,
        data_dir: &Path,
        poll_interval: Duration,
    ) -> Result<ServerConfig, ConfigError> {
        let dir = &std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let local = Properties::parse(&read(&dir.join("canal.properties"))?);
        let mut props = Properties::parse(admin_content);
        for key in &local.order {
            if let Some(p) = local.entries.get(key) {
                if !props.entries.contains_key(key) {
                    props.order.push(key.clone());
                }
                props.entries.insert(key.clone(), p.clone());
            }
        }
        // `${canal.conf.dir}` (canal-admin's template sets
        // `canal.file.data.dir = ${canal.conf.dir}`) names the local folder,
        // as it does for Canal.
        let vars = HashMap::from([("canal.conf.dir".to_string(), dir.display().to_string())]);
        props.resolve_placeholders(&vars);
        if props
            .get("canal.file.data.dir")
            .is_none_or(|p| p.value.trim().is_empty())
        {
            set(
                &mut props,
                "canal.file.data.dir",
                &data_dir.display().to_string(),
            );
        }
        set(&mut props, "canal.conf.dir", &kept.display().to_string());
        set(&mut props, "canal.destinations", "");
        set(&mut props, "canal.auto.scan", "true");
        set(
            &mut props,
            "canal.auto.scan.interval",
            &poll_interval.as_secs().max(1).to_string(),
        );
        Self::from_properties(&kept.join("canal.properties"), dir, props)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canal_admins_file_with_the_local_keys_over_it() {
        let local = tempfile::tempdir().unwrap();
        std::fs::write(
            local.path().join("canal.properties"),
            "canal.admin.manager = 127.0.0.1:8089\n\
             canal.admin.passwd = 4ACFE3202A5FF5CF467898FC58AAB1D615029441\n\
             canal.admin.register.auto = true\n\
             canal.port = 12345\n\
             sluice.admin.pollInterval = 2\n",
        )
        .unwrap();
        let kept = local.path().join("data/canal-admin");
        let data = local.path().join("data");
        let c = ServerConfig::load_managed(
            local.path(),
            "canal.port = 11111\ncanal.zkServers = zk:2181\ncanal.destinations = a,b\ncanal.auto.scan = false\n",
            &kept,
            &data,
            Duration::from_secs(2),
        )
        .unwrap();
        assert_eq!(c.canal_port.port, 12345, "the local file wins, as in Canal");
        assert_eq!(c.zookeeper.servers, "zk:2181", "canal-admin's keys apply");
        let d = &c.destinations;
        assert_eq!(d.conf_dir, kept);
        assert_eq!(d.data_dir, data);
        assert!(d.names.is_empty() && d.auto_scan);
        assert_eq!(d.auto_scan_interval, Duration::from_secs(2));
        let admin = c.admin_manager.unwrap();
        assert!(admin.register);
        assert_eq!((admin.ip.as_str(), admin.port), ("127.0.0.1", 11110));
        assert_eq!(admin.poll_interval, Duration::from_secs(2));
    }

    #[test]
    fn the_template_data_dir_is_the_local_folder() {
        let local = tempfile::tempdir().unwrap();
        std::fs::write(
            local.path().join("canal.properties"),
            "canal.admin.manager = 127.0.0.1:8089\ncanal.admin.passwd = 4ACFE3202A5FF5CF467898FC58AAB1D615029441\n",
        )
        .unwrap();
        let kept = local.path().join("canal-admin");
        let c = ServerConfig::load_managed(
            local.path(),
            "canal.file.data.dir = ${canal.conf.dir}\n",
            &kept,
            local.path(),
            Duration::from_secs(5),
        )
        .unwrap();
        let dir = std::fs::canonicalize(local.path()).unwrap();
        assert_eq!(c.destinations.data_dir, dir);
    }

    #[test]
    fn a_manager_without_a_password_or_with_https_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for (text, want) in [
            (
                "canal.admin.manager = 127.0.0.1:8089\n",
                "canal.admin.passwd is required",
            ),
            (
                "canal.admin.manager = https://a:8089\ncanal.admin.passwd = 00\n",
                "plain HTTP",
            ),
            (
                "canal.admin.manager = a\ncanal.admin.passwd = 00\n",
                "host:port",
            ),
        ] {
            std::fs::write(dir.path().join("canal.properties"), text).unwrap();
            let e = ServerConfig::load(dir.path()).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
