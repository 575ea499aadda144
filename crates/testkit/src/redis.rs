//! Private, throwaway Redis servers for the tests of Redis mode: Debian's
//! `redis-server` (`apt-get install redis-server`) on a free port of
//! 127.0.0.1 with its files in a temporary directory; the system server on
//! 6379 is never used. Killed on drop.
//!
//! ```no_run
//! use sluice_testkit::redis::Redis;
//!
//! # fn main() -> anyhow::Result<()> {
//! let server = Redis::start_persistent()?;
//! println!("at {}", server.url());
//! server.kill()?; // as a crash: the append-only file stays
//! server.restart()?; // same port, same data
//! # Ok(())
//! # }
//! ```

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::daemon::{Daemon, Spec};
use crate::util::find_program;

/// A `redis-server` in a temporary directory, listening on 127.0.0.1.
pub struct Redis {
    daemon: Daemon,
}

impl std::fmt::Debug for Redis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redis")
            .field("url", &self.url())
            .field("dir", &self.daemon.dir())
            .finish_non_exhaustive()
    }
}

impl Redis {
    /// A server that keeps nothing on disk: a restart starts empty.
    pub fn start() -> Result<Redis> {
        Self::start_with(args_volatile)
    }

    /// A server with its append-only file written on every write
    /// (`appendfsync always`): a kill and restart keeps every acked write.
    pub fn start_persistent() -> Result<Redis> {
        Self::start_with(args_persistent)
    }

    fn start_with(args: fn(u16, &Path) -> Vec<String>) -> Result<Redis> {
        let daemon = Daemon::start(
            Spec {
                name: "Redis",
                program: program()?,
                args,
                ready: answers_ping,
                prepare: None,
            },
            "sluice-redis-",
        )?;
        Ok(Redis { daemon })
    }

    pub fn port(&self) -> u16 {
        self.daemon.port()
    }

    /// `redis://127.0.0.1:PORT`: what `sluice.mq.redis.url` takes.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port())
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

    /// Kills the server with SIGKILL; the data directory stays.
    pub fn kill(&self) -> Result<()> {
        self.daemon.kill()
    }

    /// Starts the server again on its port and directory (killing it first
    /// if it runs) and waits until it answers PING.
    pub fn restart(&self) -> Result<()> {
        self.daemon.restart()
    }
}

fn common(port: u16, dir: &Path) -> Vec<String> {
    [
        "--port",
        &port.to_string(),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--dir",
        &dir.display().to_string(),
        "--logfile",
        "",
        "--daemonize",
        "no",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn args_volatile(port: u16, dir: &Path) -> Vec<String> {
    let mut args = common(port, dir);
    args.extend(["--appendonly", "no"].map(String::from));
    args
}

fn args_persistent(port: u16, dir: &Path) -> Vec<String> {
    let mut args = common(port, dir);
    args.extend(["--appendonly", "yes", "--appendfsync", "always"].map(String::from));
    args
}

fn program() -> Result<PathBuf> {
    find_program(&["/usr/bin/redis-server"], &["redis-server"])
        .context("redis-server not found: install it with `apt-get install redis-server`")
}

/// Whether the server answers `PING` with `+PONG` (it answers `-LOADING`
/// while it reads its append-only file).
fn answers_ping(mut stream: TcpStream) -> bool {
    if stream.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut reply = [0u8; 7];
    stream.read_exact(&mut reply).is_ok() && &reply == b"+PONG\r\n"
}
