//! A running private MariaDB server.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder, Value};

use crate::config::MariaDbConfig;
use crate::process;
use crate::template::{self, INNODB_LOG_FILE_SIZE};
use crate::util::{
    find_free_port, mariadbd_binary, running_as_root, sql_snippet, tail_of_file, TempDirGuard,
    KEEP_ENV,
};

/// Longest path a Unix socket address can hold, less some slack.
const MAX_SOCKET_PATH: usize = 100;

/// How long `Drop` waits after SIGTERM before SIGKILL.
const DROP_GRACE: Duration = Duration::from_secs(5);

/// How long [`MariaDb::stop`] waits after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(30);

/// Attempts when the chosen free port was taken by someone else meanwhile.
const PORT_ATTEMPTS: usize = 3;

/// Lines of `error.log` quoted in startup errors.
const LOG_TAIL_LINES: usize = 30;

/// A private MariaDB server in a temporary datadir, listening on 127.0.0.1 and a
/// Unix socket, with the binlog on (`<datadir>/binlog.NNNNNN`).
///
/// Dropping it kills the server (SIGTERM, then SIGKILL after a few seconds) and
/// removes the datadir, unless `SLUICE_KEEP_TEST_DB=1`.
///
/// The SQL helpers ([`exec`](Self::exec), [`query`](Self::query), ...) share one
/// connection as `root` over the socket, so session state such as `USE db` or
/// `SET SESSION ...` carries over from one call to the next. Use
/// [`connect`](Self::connect) for a connection of your own.
pub struct MariaDb {
    config: MariaDbConfig,
    binary: PathBuf,
    port: u16,
    socket: PathBuf,
    pid_file: PathBuf,
    error_log: PathBuf,
    child: Mutex<Option<Child>>,
    conn: Mutex<Option<Conn>>,
    // Last: removed after the server is gone.
    dir: TempDirGuard,
}

impl std::fmt::Debug for MariaDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MariaDb")
            .field("port", &self.port)
            .field("datadir", &self.dir.path())
            .field("pid", &self.pid())
            .finish_non_exhaustive()
    }
}

impl MariaDb {
    /// Initialises a fresh datadir, starts `mariadbd` on it and waits until it
    /// accepts connections (at most `config.startup_timeout`).
    pub fn start(config: MariaDbConfig) -> Result<MariaDb> {
        let binary = mariadbd_binary()?;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let port = match config.port {
                Some(p) => p,
                None => find_free_port()?,
            };
            let dir = TempDirGuard::new("sluice-mariadb-")?;
            let datadir = dir.path();
            let socket = datadir.join("mysqld.sock");
            if socket.as_os_str().len() > MAX_SOCKET_PATH {
                bail!(
                    "socket path {} is too long for a Unix socket; point TMPDIR at a shorter \
                     directory (e.g. TMPDIR=/tmp)",
                    socket.display()
                );
            }
            template::prepare_datadir(datadir)
                .with_context(|| format!("initialising MariaDB datadir {}", datadir.display()))?;
            let mut db = MariaDb {
                config: config.clone(),
                binary: binary.clone(),
                port,
                pid_file: datadir.join("mysqld.pid"),
                error_log: datadir.join("error.log"),
                socket,
                child: Mutex::new(None),
                conn: Mutex::new(None),
                dir,
            };
            match db.launch() {
                Ok(()) => return Ok(db),
                Err(e) if config.port.is_none() && attempt < PORT_ATTEMPTS && db.port_clash() => {
                    drop(e);
                    continue;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Starts a server with [`MariaDbConfig::default`].
    pub fn start_default() -> Result<MariaDb> {
        Self::start(MariaDbConfig::default())
    }

    /// The TCP port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn socket_path(&self) -> &Path {
        &self.socket
    }

    /// The datadir; the binlog files, `error.log`, the pid file and the socket are in it.
    pub fn datadir(&self) -> &Path {
        self.dir.path()
    }

    /// The server's error log.
    pub fn error_log_path(&self) -> &Path {
        &self.error_log
    }

    /// `mysql://root@127.0.0.1:PORT` (root has no password).
    pub fn url(&self) -> String {
        format!("mysql://root@127.0.0.1:{}", self.port)
    }

    /// The settings it was started with.
    pub fn config(&self) -> &MariaDbConfig {
        &self.config
    }

    /// The server's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.lock_child().as_ref().map(Child::id)
    }

    /// Whether the server process is still running.
    pub fn is_running(&self) -> bool {
        match self.lock_child().as_mut() {
            Some(c) => matches!(c.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// A new connection of your own, as root over the Unix socket.
    pub fn connect(&self) -> Result<Conn> {
        Conn::new(self.socket_opts()).with_context(|| {
            format!(
                "connecting to the test MariaDB at {} (port {})",
                self.socket.display(),
                self.port
            )
        })
    }

    /// A new connection as root over TCP to 127.0.0.1 (not switched to the socket).
    pub fn connect_tcp(&self) -> Result<Conn> {
        let opts = OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(self.port)
            .user(Some("root"))
            .prefer_socket(false);
        Conn::new(opts).with_context(|| format!("connecting to 127.0.0.1:{}", self.port))
    }

    /// Runs one or more `;`-separated statements, discarding any rows. Fails on
    /// the first statement that fails.
    pub fn exec(&self, sql: &str) -> Result<()> {
        self.with_conn(sql, |conn| {
            let mut result = conn.query_iter(sql)?;
            while let Some(set) = result.iter() {
                for row in set {
                    row?;
                }
            }
            Ok(())
        })
    }

    /// Runs `sql` over the text protocol and returns the rows of its first result
    /// set: each value exactly as the server sent it, `None` for NULL. Fails if a
    /// value is not valid UTF-8 (use [`query_bytes`](Self::query_bytes) for binary data).
    pub fn query(&self, sql: &str) -> Result<Vec<Vec<Option<String>>>> {
        let rows = self.query_bytes(sql)?;
        rows.into_iter()
            .enumerate()
            .map(|(r, row)| {
                row.into_iter()
                    .enumerate()
                    .map(|(c, v)| {
                        v.map(String::from_utf8).transpose().map_err(|e| {
                            anyhow!(
                                "row {r} column {c} of `{}` is not UTF-8 ({e}); use query_bytes",
                                sql_snippet(sql)
                            )
                        })
                    })
                    .collect()
            })
            .collect()
    }

    /// Like [`query`](Self::query), with values as raw bytes.
    pub fn query_bytes(&self, sql: &str) -> Result<Vec<Vec<Option<Vec<u8>>>>> {
        self.with_conn(sql, |conn| {
            let mut result = conn.query_iter(sql)?;
            let mut first: Option<Vec<Vec<Option<Vec<u8>>>>> = None;
            while let Some(set) = result.iter() {
                let has_columns = !set.columns().as_ref().is_empty();
                let mut rows = Vec::new();
                for row in set {
                    rows.push(
                        row?.unwrap_raw()
                            .into_iter()
                            .map(|v| v.and_then(value_bytes))
                            .collect(),
                    );
                }
                if has_columns && first.is_none() {
                    first = Some(rows);
                }
            }
            Ok(first.unwrap_or_default())
        })
    }

    /// The first column of the first row of `sql` (`None` for NULL); fails if
    /// there is no row.
    pub fn query_scalar(&self, sql: &str) -> Result<Option<String>> {
        let rows = self.query(sql)?;
        let row = rows
            .into_iter()
            .next()
            .with_context(|| format!("`{}` returned no rows", sql_snippet(sql)))?;
        row.into_iter()
            .next()
            .with_context(|| format!("`{}` returned a row without columns", sql_snippet(sql)))
    }

    /// Full paths of the binlog files, oldest first: `SHOW BINARY LOGS` while the
    /// server runs, the binlog index file once it is stopped.
    pub fn binlog_files(&self) -> Result<Vec<PathBuf>> {
        let names: Vec<String> = if self.is_running() {
            self.query("SHOW BINARY LOGS")?
                .into_iter()
                .filter_map(|row| row.into_iter().next().flatten())
                .collect()
        } else {
            let index = self.datadir().join("binlog.index");
            let text = std::fs::read_to_string(&index)
                .with_context(|| format!("reading binlog index {}", index.display()))?;
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect()
        };
        Ok(names
            .into_iter()
            .map(|name| {
                let p = PathBuf::from(&name);
                if p.is_absolute() {
                    p
                } else {
                    self.datadir().join(name.trim_start_matches("./"))
                }
            })
            .collect())
    }

    /// `FLUSH BINARY LOGS`: closes the current binlog file and starts the next.
    pub fn flush_binlogs(&self) -> Result<()> {
        self.exec("FLUSH BINARY LOGS")
    }

    /// `SHOW MASTER STATUS`: the current binlog file name (no directory) and the
    /// position where the next event will be written.
    pub fn current_binlog_position(&self) -> Result<(String, u64)> {
        let rows = self.query("SHOW MASTER STATUS")?;
        let row = rows
            .into_iter()
            .next()
            .context("SHOW MASTER STATUS returned no row: is the binlog off?")?;
        let file = row
            .first()
            .cloned()
            .flatten()
            .context("SHOW MASTER STATUS: no File")?;
        let pos = row
            .get(1)
            .cloned()
            .flatten()
            .context("SHOW MASTER STATUS: no Position")?;
        let pos = pos
            .parse::<u64>()
            .with_context(|| format!("SHOW MASTER STATUS: Position {pos:?} is not a number"))?;
        Ok((file, pos))
    }

    /// `@@gtid_binlog_pos`, e.g. `0-1-42` (empty before the first transaction).
    pub fn gtid_binlog_pos(&self) -> Result<String> {
        Ok(self
            .query_scalar("SELECT @@GLOBAL.gtid_binlog_pos")?
            .unwrap_or_default())
    }

    /// Makes this server a replica of `primary` by GTID (`MASTER_USE_GTID =
    /// slave_pos`, as root) and starts replicating; start it with
    /// `--log-slave-updates=ON` for its binlog to hold what it replicates.
    pub fn replicate_from(&self, primary: &MariaDb) -> Result<()> {
        self.exec(&format!(
            "CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = {}, \
             MASTER_USER = 'root', MASTER_PASSWORD = '', MASTER_USE_GTID = slave_pos; \
             START SLAVE",
            primary.port()
        ))
    }

    /// Waits (up to 30 s) until this replica applied everything `primary`
    /// has logged.
    pub fn wait_caught_up(&self, primary: &MariaDb) -> Result<()> {
        let pos = primary.gtid_binlog_pos()?;
        let waited = self.query_scalar(&format!("SELECT MASTER_GTID_WAIT('{pos}', 30)"))?;
        anyhow::ensure!(
            waited.as_deref() == Some("0"),
            "the replica did not reach {pos} within 30 s"
        );
        Ok(())
    }

    /// Shuts the server down cleanly (SIGTERM, SIGKILL after 30 s) and keeps the
    /// datadir, so the finished binlog files can be read; [`restart`](Self::restart)
    /// starts it again. Does nothing if it is not running.
    pub fn stop(&mut self) -> Result<()> {
        self.drop_conn();
        if let Some(mut child) = self.take_child() {
            let status = process::terminate(&mut child, STOP_GRACE)
                .with_context(|| format!("stopping mariadbd (pid {})", child.id()))?;
            if !status.success() {
                bail!(
                    "mariadbd exited with {status} on shutdown; {} ends with:\n{}",
                    self.error_log.display(),
                    tail_of_file(&self.error_log, LOG_TAIL_LINES)
                );
            }
        }
        Ok(())
    }

    /// Kills the server with SIGKILL, as a crash would. The datadir is kept.
    pub fn kill(&mut self) -> Result<()> {
        self.drop_conn();
        if let Some(mut child) = self.take_child() {
            process::kill(&mut child)
                .with_context(|| format!("killing mariadbd (pid {})", child.id()))?;
        }
        Ok(())
    }

    /// Stops the server if it runs, then starts it again on the same datadir and port.
    pub fn restart(&mut self) -> Result<()> {
        self.stop()?;
        self.launch()
    }

    fn server_args(&self) -> Vec<String> {
        let d = self.datadir();
        let mut args = vec!["--no-defaults".to_string()];
        if running_as_root() {
            args.push("--user=root".to_string());
        }
        args.extend([
            format!("--datadir={}", d.display()),
            format!("--socket={}", self.socket.display()),
            format!("--pid-file={}", self.pid_file.display()),
            format!("--port={}", self.port),
            "--bind-address=127.0.0.1".to_string(),
            format!("--log-error={}", self.error_log.display()),
            format!("--log-bin={}", d.join("binlog").display()),
            // Small and quick: tests start many of these at once.
            "--skip-name-resolve".to_string(),
            "--innodb-buffer-pool-size=16M".to_string(),
            format!("--innodb-log-file-size={INNODB_LOG_FILE_SIZE}"),
            "--innodb-use-native-aio=0".to_string(),
            "--innodb-temp-data-file-path=ibtmp1:1M:autoextend".to_string(),
            "--innodb-flush-log-at-trx-commit=2".to_string(),
            "--innodb-buffer-pool-dump-at-shutdown=0".to_string(),
            "--innodb-buffer-pool-load-at-startup=0".to_string(),
            "--key-buffer-size=1M".to_string(),
            "--aria-pagecache-buffer-size=8M".to_string(),
        ]);
        args.extend(self.config.server_args());
        args
    }

    /// Spawns mariadbd and waits until it accepts connections.
    fn launch(&mut self) -> Result<()> {
        let log = File::options()
            .create(true)
            .append(true)
            .open(&self.error_log)
            .with_context(|| format!("opening {}", self.error_log.display()))?;
        let log2 = log
            .try_clone()
            .with_context(|| format!("opening {}", self.error_log.display()))?;
        let mut cmd = Command::new(&self.binary);
        cmd.args(self.server_args())
            .stdin(Stdio::null())
            .stdout(Stdio::from(log))
            .stderr(Stdio::from(log2));
        let child = process::spawn_tied_to_process(cmd)
            .with_context(|| format!("starting {}", self.binary.display()))?;
        *self.lock_child() = Some(child);
        self.wait_ready()
    }

    fn wait_ready(&mut self) -> Result<()> {
        let started = Instant::now();
        let deadline = started + self.config.startup_timeout;
        let mut last_err = String::from("the socket did not appear");
        loop {
            let exited = match self.lock_child().as_mut() {
                Some(child) => child
                    .try_wait()
                    .context("checking whether mariadbd is still running")?,
                None => None,
            };
            if let Some(status) = exited {
                self.take_child();
                bail!(
                    "mariadbd exited during startup ({status}), port {}; {} ends with:\n{}\n\
                     (set {KEEP_ENV}=1 to keep the datadir)",
                    self.port,
                    self.error_log.display(),
                    tail_of_file(&self.error_log, LOG_TAIL_LINES)
                );
            }
            if self.socket.exists() {
                match Conn::new(self.socket_opts()) {
                    Ok(conn) => {
                        *self.lock_conn() = Some(conn);
                        return Ok(());
                    }
                    Err(e) => last_err = e.to_string(),
                }
            }
            if Instant::now() >= deadline {
                bail!(
                    "mariadbd (pid {}) did not accept connections on {} within {:?} \
                     (last attempt: {last_err}); {} ends with:\n{}\n\
                     (set {KEEP_ENV}=1 to keep the datadir)",
                    self.pid().unwrap_or(0),
                    self.socket.display(),
                    self.config.startup_timeout,
                    self.error_log.display(),
                    tail_of_file(&self.error_log, LOG_TAIL_LINES)
                );
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the last start failed because the TCP port was taken.
    fn port_clash(&self) -> bool {
        std::fs::read_to_string(&self.error_log)
            .map(|log| {
                log.contains("Address already in use")
                    || log.contains("Do you already have another server running")
            })
            .unwrap_or(false)
    }

    fn socket_opts(&self) -> OptsBuilder {
        OptsBuilder::new()
            .socket(Some(self.socket.to_string_lossy().into_owned()))
            .user(Some("root"))
    }

    fn lock_child(&self) -> MutexGuard<'_, Option<Child>> {
        self.child.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn take_child(&mut self) -> Option<Child> {
        self.child
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    fn lock_conn(&self) -> MutexGuard<'_, Option<Conn>> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn drop_conn(&self) {
        self.lock_conn().take();
    }

    /// Runs `f` on the shared connection, (re)connecting first if needed. A
    /// connection that hit an I/O or protocol error is thrown away.
    fn with_conn<T>(&self, sql: &str, f: impl FnOnce(&mut Conn) -> mysql::Result<T>) -> Result<T> {
        let mut guard = self.lock_conn();
        if guard.is_none() {
            *guard = Some(self.connect()?);
        }
        let Some(conn) = guard.as_mut() else {
            bail!("no connection to the test MariaDB");
        };
        match f(conn) {
            Ok(v) => Ok(v),
            Err(e) => {
                if !matches!(e, mysql::Error::MySqlError(_)) {
                    *guard = None;
                }
                Err(anyhow::Error::new(e).context(format!(
                    "test MariaDB on port {}: `{}`",
                    self.port,
                    sql_snippet(sql)
                )))
            }
        }
    }
}

fn value_bytes(v: Value) -> Option<Vec<u8>> {
    match v {
        Value::NULL => None,
        Value::Bytes(b) => Some(b),
        // The text protocol sends everything as bytes; this is only a fallback.
        other => Some(other.as_sql(true).into_bytes()),
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        self.drop_conn();
        if let Some(mut child) = self.take_child() {
            if let Err(e) = process::terminate(&mut child, DROP_GRACE) {
                eprintln!(
                    "warning: could not stop test mariadbd (pid {}): {e}",
                    child.id()
                );
            }
        }
        // `self.dir` is dropped next and removes the datadir unless SLUICE_KEEP_TEST_DB=1.
    }
}
