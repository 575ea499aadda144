//! Private, throwaway RabbitMQ brokers for the tests of RabbitMQ mode.
//!
//! Each broker is Debian's `rabbitmq-server` (`apt-get install
//! rabbitmq-server`) run as its own Erlang node: its own node name, AMQP port
//! and distribution port on 127.0.0.1, and every file (configuration,
//! Mnesia database, logs, Erlang cookie) in a fresh temporary directory. The
//! system broker on 5672 and `/etc/rabbitmq` are never used: the node reads
//! our `rabbitmq.conf` and an empty `rabbitmq-env.conf`, and `HOME` is the
//! temporary directory so the node writes its own cookie there.
//!
//! ```no_run
//! use sluice_testkit::RabbitMq;
//!
//! # fn main() -> anyhow::Result<()> {
//! let broker = RabbitMq::start()?;
//! println!("AMQP at {}", broker.amqp_uri());
//! broker.stop()?; // clean shutdown; the data stays
//! broker.restart()?; // same port, same queues and persistent messages
//! # Ok(())
//! # }
//! ```
//!
//! The broker runs in the foreground as a child of the test (the start script
//! `exec`s the Erlang VM, so the child is the broker itself): dropping it
//! stops it, and a test process that dies takes it along
//! (`PR_SET_PDEATHSIG`). Readiness is an AMQP handshake on the port: RabbitMQ
//! opens its listener at the very end of its boot, after the default user and
//! virtual host exist.

use std::fs;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::process;
use crate::util::{find_free_port, find_program, tail_of_file, TempDirGuard, KEEP_ENV};

/// How long a start or restart may take before it is an error (a busy
/// 2-core machine boots a node in 5 to 15 s).
const STARTUP_TIMEOUT: Duration = Duration::from_secs(120);

/// How long a clean stop may take before the node is killed.
const STOP_GRACE: Duration = Duration::from_secs(30);

/// Attempts when a chosen free port was taken by someone else meanwhile.
const PORT_ATTEMPTS: usize = 3;

/// Lines of the broker's output quoted in errors.
const LOG_TAIL_LINES: usize = 30;

/// The AMQP 0-9-1 protocol header a client opens a connection with.
const AMQP_HEADER: &[u8; 8] = b"AMQP\x00\x00\x09\x01";

/// The broker's settings: who may connect where, and its message size limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RabbitMqConfig {
    user: String,
    password: String,
    vhost: String,
    max_message_size: Option<u64>,
}

impl Default for RabbitMqConfig {
    fn default() -> Self {
        RabbitMqConfig {
            user: "sluice".into(),
            password: "sluice-test-secret".into(),
            vhost: "/".into(),
            max_message_size: None,
        }
    }
}

impl RabbitMqConfig {
    /// The user the broker creates on its first boot (it has every
    /// permission on [`vhost`](Self::vhost)); the `guest` user does not exist.
    pub fn user(mut self, user: &str, password: &str) -> Self {
        self.user = user.into();
        self.password = password.into();
        self
    }

    /// The virtual host the broker creates on its first boot (default `/`;
    /// no other exists).
    pub fn vhost(mut self, vhost: &str) -> Self {
        self.vhost = vhost.into();
        self
    }

    /// RabbitMQ's `max_message_size`: larger messages close the channel
    /// with PRECONDITION_FAILED (the broker's default is 128 MiB).
    pub fn max_message_size(mut self, bytes: u64) -> Self {
        self.max_message_size = Some(bytes);
        self
    }
}

/// A RabbitMQ node in a temporary directory, listening on 127.0.0.1.
pub struct RabbitMq {
    config: RabbitMqConfig,
    server: PathBuf,
    port: u16,
    dist_port: u16,
    node_name: String,
    child: Mutex<Option<Child>>,
    /// The node's stdout and stderr (its own log is under `log/`).
    output: PathBuf,
    // Last: removed after the node is gone.
    dir: TempDirGuard,
}

impl std::fmt::Debug for RabbitMq {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RabbitMq")
            .field("node", &self.node_name)
            .field("address", &self.address())
            .field("dir", &self.dir.path())
            .finish_non_exhaustive()
    }
}

impl RabbitMq {
    /// Starts a broker with the default settings and waits until it accepts
    /// AMQP connections.
    pub fn start() -> Result<RabbitMq> {
        Self::start_with(RabbitMqConfig::default())
    }

    /// Starts a broker with `config` and waits until it accepts AMQP connections.
    pub fn start_with(config: RabbitMqConfig) -> Result<RabbitMq> {
        let server = server_script()?;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let broker = Self::configure(config.clone(), server.clone())?;
            broker.spawn()?;
            match broker.wait_ready() {
                Ok(()) => return Ok(broker),
                Err(e) if attempt < PORT_ATTEMPTS && broker.port_clash() => {
                    drop(e);
                    continue;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Writes the directories and `rabbitmq.conf` of a node on fresh ports.
    fn configure(config: RabbitMqConfig, server: PathBuf) -> Result<RabbitMq> {
        let dir = TempDirGuard::new("sluice-rabbitmq-")?;
        let port = find_free_port()?;
        let mut dist_port = find_free_port()?;
        while dist_port == port {
            dist_port = find_free_port()?;
        }
        let mut conf = format!(
            "listeners.tcp.1 = 127.0.0.1:{port}\n\
             default_user = {user}\n\
             default_pass = {password}\n\
             default_vhost = {vhost}\n\
             default_permissions.configure = .*\n\
             default_permissions.read = .*\n\
             default_permissions.write = .*\n\
             log.console = false\n\
             log.file.level = info\n",
            user = config.user,
            password = config.password,
            vhost = config.vhost,
        );
        if let Some(max) = config.max_message_size {
            conf.push_str(&format!("max_message_size = {max}\n"));
        }
        let conf_path = dir.path().join("rabbitmq.conf");
        fs::write(&conf_path, conf).with_context(|| format!("writing {}", conf_path.display()))?;
        // Empty, so /etc/rabbitmq/rabbitmq-env.conf (the system node's name
        // and flags) is not read.
        let env_path = dir.path().join("rabbitmq-env.conf");
        fs::write(&env_path, "").with_context(|| format!("writing {}", env_path.display()))?;
        let plugins = dir.path().join("enabled_plugins");
        fs::write(&plugins, "[].\n").with_context(|| format!("writing {}", plugins.display()))?;
        Ok(RabbitMq {
            config,
            server,
            port,
            dist_port,
            node_name: format!("sluice-test-{port}@localhost"),
            child: Mutex::new(None),
            output: dir.path().join("rabbitmq-server.out"),
            dir,
        })
    }

    /// The AMQP port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `127.0.0.1:PORT`: what `rabbitmq.host` takes.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The user with every permission on [`vhost`](Self::vhost).
    pub fn user(&self) -> &str {
        &self.config.user
    }

    /// The password of [`user`](Self::user).
    pub fn password(&self) -> &str {
        &self.config.password
    }

    /// The virtual host, as `rabbitmq.virtual.host` takes it.
    pub fn vhost(&self) -> &str {
        &self.config.vhost
    }

    /// `amqp://USER:PASSWORD@127.0.0.1:PORT/VHOST`, with the virtual host
    /// percent-encoded (`/` is `%2f`).
    pub fn amqp_uri(&self) -> String {
        format!(
            "amqp://{}:{}@127.0.0.1:{}/{}",
            percent_encode(&self.config.user),
            percent_encode(&self.config.password),
            self.port,
            percent_encode(&self.config.vhost)
        )
    }

    /// The Erlang node name (`sluice-test-PORT@localhost`).
    pub fn node_name(&self) -> &str {
        &self.node_name
    }

    /// The temporary directory with the configuration, database and logs.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The node's process id while it runs.
    pub fn pid(&self) -> Option<u32> {
        lock(&self.child).as_ref().map(Child::id)
    }

    /// Whether the node's process is alive.
    pub fn is_running(&self) -> bool {
        match lock(&self.child).as_mut() {
            Some(c) => matches!(c.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// Stops the node cleanly (SIGTERM: RabbitMQ closes client connections
    /// with CONNECTION_FORCED, then shuts down), killing it if it takes
    /// longer than 30 s. The database stays for [`restart`](Self::restart).
    /// Does nothing if it is not running.
    pub fn stop(&self) -> Result<()> {
        if let Some(mut child) = lock(&self.child).take() {
            process::terminate(&mut child, STOP_GRACE)
                .with_context(|| format!("stopping RabbitMQ node {}", self.node_name))?;
        }
        Ok(())
    }

    /// Kills the node with SIGKILL, as a crash would: connections drop
    /// without a close. The database stays for [`restart`](Self::restart).
    pub fn kill(&self) -> Result<()> {
        if let Some(mut child) = lock(&self.child).take() {
            process::kill(&mut child)
                .with_context(|| format!("killing RabbitMQ node {}", self.node_name))?;
        }
        Ok(())
    }

    /// Starts the node again on its database and port (stopping it first if
    /// it runs) and waits until it accepts AMQP connections. Durable queues
    /// and the persistent messages they held are back.
    pub fn restart(&self) -> Result<()> {
        self.stop()?;
        self.spawn()?;
        self.wait_ready()
    }

    fn spawn(&self) -> Result<()> {
        let dir = self.dir.path();
        let out = fs::File::options()
            .create(true)
            .append(true)
            .open(&self.output)
            .with_context(|| format!("opening {}", self.output.display()))?;
        let err = out
            .try_clone()
            .with_context(|| format!("opening {}", self.output.display()))?;
        let mut cmd = Command::new(&self.server);
        // `-noinput` because RABBITMQ_ALLOW_INPUT (which makes the script
        // exec the VM rather than run it as a grandchild) also drops it.
        cmd.arg("-noinput")
            .env("HOME", dir)
            .env("RABBITMQ_CONF_ENV_FILE", dir.join("rabbitmq-env.conf"))
            .env("RABBITMQ_CONFIG_FILE", dir.join("rabbitmq.conf"))
            .env("RABBITMQ_ADVANCED_CONFIG_FILE", dir.join("advanced.config"))
            .env("RABBITMQ_ENABLED_PLUGINS_FILE", dir.join("enabled_plugins"))
            .env("RABBITMQ_PLUGINS_EXPAND_DIR", dir.join("plugins"))
            .env("RABBITMQ_MNESIA_BASE", dir.join("mnesia"))
            .env("RABBITMQ_LOG_BASE", dir.join("log"))
            .env("RABBITMQ_PID_FILE", dir.join("rabbitmq.pid"))
            .env("RABBITMQ_NODENAME", &self.node_name)
            .env("RABBITMQ_USE_LONGNAME", "false")
            .env("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1")
            .env("RABBITMQ_NODE_PORT", self.port.to_string())
            .env("RABBITMQ_DIST_PORT", self.dist_port.to_string())
            .env("RABBITMQ_ALLOW_INPUT", "true")
            .env_remove("ERL_FLAGS")
            .env_remove("RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS")
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err));
        let child = process::spawn_tied_to_process(cmd).with_context(|| {
            format!(
                "starting {} for RabbitMQ node {}",
                self.server.display(),
                self.node_name
            )
        })?;
        *lock(&self.child) = Some(child);
        Ok(())
    }

    fn wait_ready(&self) -> Result<()> {
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        loop {
            let exited = match lock(&self.child).as_mut() {
                Some(child) => child
                    .try_wait()
                    .context("checking whether the RabbitMQ node is still running")?,
                None => bail!("RabbitMQ node {} is not running", self.node_name),
            };
            if let Some(status) = exited {
                lock(&self.child).take();
                bail!(
                    "RabbitMQ node {} exited during startup ({status}), AMQP port {}; {}",
                    self.node_name,
                    self.port,
                    self.describe_logs()
                );
            }
            if amqp_answers(self.port) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                bail!(
                    "RabbitMQ node {} did not accept AMQP connections on port {} within {:?}; {}",
                    self.node_name,
                    self.port,
                    STARTUP_TIMEOUT,
                    self.describe_logs()
                );
            }
            thread::sleep(Duration::from_millis(100));
        }
    }

    fn node_log(&self) -> PathBuf {
        self.dir
            .path()
            .join("log")
            .join(format!("{}.log", self.node_name))
    }

    fn describe_logs(&self) -> String {
        format!(
            "{} ends with:\n{}\n{} ends with:\n{}\n(set {KEEP_ENV}=1 to keep the directory)",
            self.output.display(),
            tail_of_file(&self.output, LOG_TAIL_LINES),
            self.node_log().display(),
            tail_of_file(&self.node_log(), LOG_TAIL_LINES)
        )
    }

    /// Whether the last start failed because a port was taken.
    fn port_clash(&self) -> bool {
        [self.output.clone(), self.node_log()].iter().any(|p| {
            fs::read_to_string(p)
                .map(|log| log.contains("eaddrinuse"))
                .unwrap_or(false)
        })
    }
}

impl Drop for RabbitMq {
    fn drop(&mut self) {
        if let Some(mut child) = lock(&self.child).take() {
            // A test broker needs no clean shutdown.
            if let Err(e) = process::kill(&mut child) {
                eprintln!(
                    "warning: could not kill test RabbitMQ node {} (pid {}): {e}",
                    self.node_name,
                    child.id()
                );
            }
        }
        // `self.dir` is dropped next and removes everything unless SLUICE_KEEP_TEST_DB=1.
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The start script proper (`/usr/sbin/rabbitmq-server` would switch to the
/// `rabbitmq` user and the system node's directories).
fn server_script() -> Result<PathBuf> {
    find_program(&["/usr/lib/rabbitmq/bin/rabbitmq-server"], &[]).context(
        "/usr/lib/rabbitmq/bin/rabbitmq-server not found: install RabbitMQ with \
         `apt-get install rabbitmq-server`",
    )
}

/// Whether 127.0.0.1:`port` answers the AMQP protocol header with a method
/// frame on channel 0 (Connection.Start): a broker that serves clients.
pub fn amqp_answers(port: u16) -> bool {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let timeout = Duration::from_secs(2);
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, timeout) else {
        return false;
    };
    if stream.set_read_timeout(Some(timeout)).is_err()
        || stream.set_write_timeout(Some(timeout)).is_err()
        || stream.write_all(AMQP_HEADER).is_err()
    {
        return false;
    }
    let mut frame_header = [0u8; 7];
    if stream.read_exact(&mut frame_header).is_err() {
        return false;
    }
    // Type 1 (method) on channel 0.
    frame_header[0] == 1 && frame_header[1] == 0 && frame_header[2] == 0
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02x}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_encoding_of_uri_parts() {
        assert_eq!(percent_encode("/"), "%2f");
        assert_eq!(percent_encode("canal/prod"), "canal%2fprod");
        assert_eq!(percent_encode("p@ss:word"), "p%40ss%3aword");
        assert_eq!(percent_encode("sluice-test_1.x~"), "sluice-test_1.x~");
    }
}
