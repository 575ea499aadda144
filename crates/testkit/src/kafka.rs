//! A private, throwaway Kafka broker for the MQ-mode tests: tansu (an
//! Apache Kafka compatible broker written in Rust) with its in-memory
//! storage, on a free port of 127.0.0.1, in a temporary directory holding
//! its log.
//!
//! ```no_run
//! use sluice_testkit::kafka::Tansu;
//!
//! # fn main() -> anyhow::Result<()> {
//! let broker = Tansu::start()?;
//! println!("kafka.bootstrap.servers = {}", broker.bootstrap_servers());
//! broker.stop()?; // the broker is down; the port stays reserved for it
//! broker.restart()?; // same port, empty storage
//! # Ok(())
//! # }
//! ```
//!
//! The broker is `tansu` 0.6 built with in-memory storage (`cargo install
//! tansu --version 0.6.0 --features dynostore --locked`, which
//! `scripts/test` runs when it is missing); `SLUICE_TANSU` names another
//! binary. It creates no topic by itself: tests create theirs (or let the
//! publisher do it). Storage lives in the process, so a restart starts
//! empty. Cleanup follows [`crate::MariaDb`]: dropping kills it, and a test
//! process that dies takes it along (`PR_SET_PDEATHSIG`).

use std::fs::File;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::process;
use crate::util::{find_free_port, find_program, tail_of_file, TempDirGuard, KEEP_ENV};

/// Names the tansu binary to run instead of the one on `$PATH`.
pub const TANSU_ENV: &str = "SLUICE_TANSU";

/// How long a start waits for the broker to answer.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// Lines of the broker's log quoted in errors.
const LOG_TAIL_LINES: usize = 30;

/// A tansu broker on 127.0.0.1.
pub struct Tansu {
    binary: PathBuf,
    port: u16,
    log: PathBuf,
    child: Mutex<Option<Child>>,
    // Last: removed after the broker is gone.
    dir: TempDirGuard,
}

impl std::fmt::Debug for Tansu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tansu")
            .field("bootstrap_servers", &self.bootstrap_servers())
            .field("dir", &self.dir.path())
            .finish_non_exhaustive()
    }
}

impl Tansu {
    /// Starts a broker on a free port and waits until it answers Kafka
    /// requests.
    pub fn start() -> Result<Tansu> {
        let binary = tansu_binary()?;
        let dir = TempDirGuard::new("sluice-tansu-")?;
        let broker = Tansu {
            binary,
            port: find_free_port()?,
            log: dir.path().join("tansu.log"),
            child: Mutex::new(None),
            dir,
        };
        broker.launch()?;
        Ok(broker)
    }

    /// `127.0.0.1:PORT`, for `kafka.bootstrap.servers`.
    pub fn bootstrap_servers(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The broker's output.
    pub fn log_path(&self) -> &Path {
        &self.log
    }

    /// The broker's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        lock(&self.child).as_ref().map(Child::id)
    }

    /// Whether the broker process is alive.
    pub fn is_running(&self) -> bool {
        match lock(&self.child).as_mut() {
            Some(c) => matches!(c.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// Kills the broker (SIGKILL): connections are refused until
    /// [`restart`](Self::restart). Its storage is gone with it.
    pub fn stop(&self) -> Result<()> {
        if let Some(mut child) = lock(&self.child).take() {
            process::kill(&mut child)
                .with_context(|| format!("killing tansu (pid {})", child.id()))?;
        }
        Ok(())
    }

    /// Starts the broker again on the same port (killing it first if it
    /// runs) and waits until it answers.
    pub fn restart(&self) -> Result<()> {
        self.stop()?;
        self.launch()
    }

    fn launch(&self) -> Result<()> {
        let log = File::options()
            .create(true)
            .append(true)
            .open(&self.log)
            .with_context(|| format!("opening {}", self.log.display()))?;
        let log2 = log
            .try_clone()
            .with_context(|| format!("opening {}", self.log.display()))?;
        let url = format!("tcp://127.0.0.1:{}", self.port);
        let mut cmd = Command::new(&self.binary);
        cmd.args([
            "broker",
            "--listener-url",
            &url,
            "--advertised-listener-url",
            &url,
            "--storage-engine",
            "memory://tansu/",
        ])
        .current_dir(self.dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(log2));
        let child = process::spawn_tied_to_process(cmd)
            .with_context(|| format!("starting {}", self.binary.display()))?;
        *lock(&self.child) = Some(child);
        self.wait_answering()
    }

    /// Waits until the broker answers an ApiVersions request.
    fn wait_answering(&self) -> Result<()> {
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        loop {
            if let Some(c) = lock(&self.child).as_mut() {
                if let Some(status) = c.try_wait().context("checking on tansu")? {
                    bail!(
                        "tansu exited during startup ({status}) on port {}; {} ends with:\n{}\n(set {KEEP_ENV}=1 to keep the directory)",
                        self.port,
                        self.log.display(),
                        tail_of_file(&self.log, LOG_TAIL_LINES)
                    );
                }
            }
            if api_versions(self.port).is_ok() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                bail!(
                    "tansu did not answer on port {} within {STARTUP_TIMEOUT:?}; {} ends with:\n{}",
                    self.port,
                    self.log.display(),
                    tail_of_file(&self.log, LOG_TAIL_LINES)
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tansu {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            eprintln!("warning: could not kill the test tansu broker: {e}");
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `$SLUICE_TANSU`, else `tansu` on `$PATH`, else `~/.cargo/bin/tansu`.
fn tansu_binary() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(TANSU_ENV) {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(p);
        }
        bail!("{TANSU_ENV} names {}, which is not a file", p.display());
    }
    let cargo_bin = std::env::var_os("HOME")
        .map(|h| Path::new(&h).join(".cargo/bin/tansu"))
        .filter(|p| p.is_file());
    find_program(&[], &["tansu"]).or(cargo_bin).context(
        "tansu not found on $PATH or in ~/.cargo/bin: install it with \
         `cargo install tansu --version 0.6.0 --features dynostore --locked` (scripts/test does)",
    )
}

/// Sends ApiVersions (v0) to the broker at 127.0.0.1:`port` and checks the
/// answer carries the request's correlation id.
pub fn api_versions(port: u16) -> Result<()> {
    const CORRELATION: i32 = 0x51_1C_E0;
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let timeout = Duration::from_secs(2);
    let mut s = TcpStream::connect_timeout(&addr, timeout)
        .with_context(|| format!("connecting to {addr}"))?;
    s.set_read_timeout(Some(timeout))?;
    s.set_write_timeout(Some(timeout))?;
    let client = b"sluice-testkit";
    let mut body = Vec::new();
    body.extend_from_slice(&18i16.to_be_bytes()); // ApiVersions
    body.extend_from_slice(&0i16.to_be_bytes()); // version 0
    body.extend_from_slice(&CORRELATION.to_be_bytes());
    body.extend_from_slice(&(client.len() as i16).to_be_bytes());
    body.extend_from_slice(client);
    let mut request = (body.len() as i32).to_be_bytes().to_vec();
    request.extend_from_slice(&body);
    s.write_all(&request)
        .with_context(|| format!("sending ApiVersions to {addr}"))?;
    let mut head = [0u8; 8];
    s.read_exact(&mut head)
        .with_context(|| format!("reading the ApiVersions answer of {addr}"))?;
    let correlation = i32::from_be_bytes([head[4], head[5], head[6], head[7]]);
    if correlation != CORRELATION {
        bail!("{addr} answered ApiVersions with correlation id {correlation}");
    }
    Ok(())
}
