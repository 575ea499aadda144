//! Private, throwaway NATS servers with JetStream for the tests of NATS
//! mode: Debian's `nats-server` (`apt-get install nats-server`) run as
//! `nats-server -js -a 127.0.0.1 -p PORT -sd DIR/jetstream` on a free port,
//! with its store in a temporary directory; the system server on 4222 is
//! never used. Killed on drop.
//!
//! ```no_run
//! use sluice_testkit::nats::Nats;
//!
//! # fn main() -> anyhow::Result<()> {
//! let server = Nats::start()?;
//! println!("at {}", server.url());
//! server.kill()?; // as a crash: the JetStream store stays
//! server.restart()?; // same port, same streams and messages
//! # Ok(())
//! # }
//! ```

use std::io::Read;
use std::net::TcpStream;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::daemon::{Daemon, Spec};
use crate::util::find_program;

/// A `nats-server` with JetStream, its store in a temporary directory.
pub struct Nats {
    daemon: Daemon,
}

impl std::fmt::Debug for Nats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nats")
            .field("url", &self.url())
            .field("dir", &self.daemon.dir())
            .finish_non_exhaustive()
    }
}

impl Nats {
    /// Starts a server and waits until it serves clients with JetStream on.
    pub fn start() -> Result<Nats> {
        let daemon = Daemon::start(
            Spec {
                name: "NATS",
                program: program()?,
                args,
                ready: jetstream_ready,
                prepare: None,
            },
            "sluice-nats-",
        )?;
        Ok(Nats { daemon })
    }

    pub fn port(&self) -> u16 {
        self.daemon.port()
    }

    /// `nats://127.0.0.1:PORT`: what `sluice.mq.nats.url` takes.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port())
    }

    pub fn dir(&self) -> &Path {
        self.daemon.dir()
    }

    pub fn pid(&self) -> Option<u32> {
        self.daemon.pid()
    }

    pub fn is_running(&self) -> bool {
        self.daemon.is_running()
    }

    /// Kills the server with SIGKILL; the JetStream store stays.
    pub fn kill(&self) -> Result<()> {
        self.daemon.kill()
    }

    /// Starts the server again on its port and store (killing it first if
    /// it runs) and waits until it serves clients.
    pub fn restart(&self) -> Result<()> {
        self.daemon.restart()
    }
}

fn args(port: u16, dir: &Path) -> Vec<String> {
    vec![
        "-js".into(),
        "-a".into(),
        "127.0.0.1".into(),
        "-p".into(),
        port.to_string(),
        "-sd".into(),
        dir.join("jetstream").display().to_string(),
    ]
}

fn program() -> Result<PathBuf> {
    find_program(&["/usr/sbin/nats-server"], &["nats-server"])
        .context("nats-server not found: install it with `apt-get install nats-server`")
}

/// Whether the server greets with an `INFO` that says JetStream is on.
fn jetstream_ready(mut stream: TcpStream) -> bool {
    let mut greeting = Vec::new();
    let mut buf = [0u8; 1024];
    while !greeting.ends_with(b"\r\n") && greeting.len() < 64 * 1024 {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return false,
            Ok(n) => greeting.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&greeting);
    text.starts_with("INFO ") && text.contains("\"jetstream\":true")
}
