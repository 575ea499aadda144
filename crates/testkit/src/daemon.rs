//! A single-process server (Redis, NATS) run in the foreground as a child
//! of the test: its own free port on 127.0.0.1 and a temporary directory
//! for its data and output, killed on drop. [`crate::redis`] and
//! [`crate::nats`] wrap it.

use std::fs;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::process;
use crate::util::{find_free_port, tail_of_file, TempDirGuard, KEEP_ENV};

/// How long a start may take before it is an error.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// Attempts when a chosen free port was taken by someone else meanwhile.
const PORT_ATTEMPTS: usize = 3;

/// Lines of the server's output quoted in errors.
const LOG_TAIL_LINES: usize = 30;

/// What the server is and how to run it.
#[derive(Clone)]
pub(crate) struct Spec {
    /// For messages: `Redis`, `NATS`.
    pub name: &'static str,
    pub program: PathBuf,
    /// The command line for a port and the data directory.
    pub args: fn(port: u16, dir: &Path) -> Vec<String>,
    /// Whether the server on the port serves clients.
    pub ready: fn(stream: TcpStream) -> bool,
    /// Run once on the new data directory before the first start
    /// (PostgreSQL's initdb).
    pub prepare: Option<fn(dir: &Path) -> Result<()>>,
}

pub(crate) struct Daemon {
    spec: Spec,
    port: u16,
    child: Mutex<Option<Child>>,
    output: PathBuf,
    // Last: removed after the server is gone.
    dir: TempDirGuard,
}

impl Daemon {
    pub fn start(spec: Spec, dir_prefix: &str) -> Result<Daemon> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let dir = TempDirGuard::new(dir_prefix)?;
            let daemon = Daemon {
                port: find_free_port()?,
                output: dir.path().join("server.out"),
                child: Mutex::new(None),
                spec: spec.clone(),
                dir,
            };
            if let Some(prepare) = spec.prepare {
                prepare(daemon.dir())?;
            }
            daemon.spawn()?;
            match daemon.wait_ready() {
                Ok(()) => return Ok(daemon),
                // Someone took the port meanwhile: a new port and directory.
                Err(_) if attempt < PORT_ATTEMPTS && daemon.port_clash() => continue,
                Err(e) => return Err(e),
            }
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    pub fn pid(&self) -> Option<u32> {
        lock(&self.child).as_ref().map(Child::id)
    }

    pub fn is_running(&self) -> bool {
        match lock(&self.child).as_mut() {
            Some(c) => matches!(c.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// SIGKILL, as a crash would; the data directory stays.
    pub fn kill(&self) -> Result<()> {
        if let Some(mut child) = lock(&self.child).take() {
            process::kill(&mut child)
                .with_context(|| format!("killing the {} server", self.spec.name))?;
        }
        Ok(())
    }

    /// Kills the server if it runs, starts it again on the same port and
    /// data directory, and waits until it serves clients.
    pub fn restart(&self) -> Result<()> {
        self.kill()?;
        self.spawn()?;
        self.wait_ready()
    }

    fn spawn(&self) -> Result<()> {
        let out = fs::File::options()
            .create(true)
            .append(true)
            .open(&self.output)
            .with_context(|| format!("opening {}", self.output.display()))?;
        let err = out
            .try_clone()
            .with_context(|| format!("opening {}", self.output.display()))?;
        let mut cmd = Command::new(&self.spec.program);
        cmd.args((self.spec.args)(self.port, self.dir.path()))
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err));
        let child = process::spawn_tied_to_process(cmd).with_context(|| {
            format!(
                "starting {} ({} server)",
                self.spec.program.display(),
                self.spec.name
            )
        })?;
        *lock(&self.child) = Some(child);
        Ok(())
    }

    fn wait_ready(&self) -> Result<()> {
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        loop {
            let exited = match lock(&self.child).as_mut() {
                Some(child) => child.try_wait().with_context(|| {
                    format!("checking whether the {} server runs", self.spec.name)
                })?,
                None => bail!("the {} server is not running", self.spec.name),
            };
            if let Some(status) = exited {
                lock(&self.child).take();
                bail!(
                    "the {} server exited during startup ({status}), port {}; {}",
                    self.spec.name,
                    self.port,
                    self.describe_output()
                );
            }
            if let Ok(stream) = TcpStream::connect_timeout(&addr, Duration::from_secs(2)) {
                let timeout = Some(Duration::from_secs(2));
                if stream.set_read_timeout(timeout).is_ok()
                    && stream.set_write_timeout(timeout).is_ok()
                    && (self.spec.ready)(stream)
                {
                    return Ok(());
                }
            }
            if Instant::now() >= deadline {
                bail!(
                    "the {} server did not serve clients on port {} within {:?}; {}",
                    self.spec.name,
                    self.port,
                    STARTUP_TIMEOUT,
                    self.describe_output()
                );
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    fn describe_output(&self) -> String {
        format!(
            "{} ends with:\n{}\n(set {KEEP_ENV}=1 to keep the directory)",
            self.output.display(),
            tail_of_file(&self.output, LOG_TAIL_LINES)
        )
    }

    fn port_clash(&self) -> bool {
        fs::read_to_string(&self.output)
            .map(|log| log.contains("in use"))
            .unwrap_or(false)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(mut child) = lock(&self.child).take() {
            if let Err(e) = process::kill(&mut child) {
                eprintln!(
                    "warning: could not kill the test {} server (pid {}): {e}",
                    self.spec.name,
                    child.id()
                );
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
