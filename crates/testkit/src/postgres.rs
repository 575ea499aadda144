//! Private, throwaway PostgreSQL servers for the tests of the relational
//! sink: Debian's server binaries (`apt-get install postgresql`, found in
//! `/usr/lib/postgresql/*/bin`), `initdb` with trust authentication in a
//! temporary directory and `postgres` on a free port of 127.0.0.1, its
//! socket in that directory. PostgreSQL refuses to run as root: as root,
//! both run as the `postgres` user (`setpriv`), the directory handed to it.
//! Killed on drop.
//!
//! ```no_run
//! use sluice_testkit::postgres::Postgres;
//!
//! # fn main() -> anyhow::Result<()> {
//! let server = Postgres::start()?;
//! println!("at {}", server.jdbc_url());
//! server.kill()?; // as a crash
//! server.restart()?; // same port, same data
//! # Ok(())
//! # }
//! ```

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::daemon::{Daemon, Spec};

/// The database, user and password tests connect with.
pub const USER: &str = "postgres";

/// A `postgres` server in a temporary directory, listening on 127.0.0.1.
pub struct Postgres {
    daemon: Daemon,
}

impl std::fmt::Debug for Postgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Postgres")
            .field("port", &self.port())
            .field("dir", &self.daemon.dir())
            .finish_non_exhaustive()
    }
}

impl Postgres {
    pub fn start() -> Result<Postgres> {
        let program = if is_root() {
            PathBuf::from("/usr/bin/setpriv")
        } else {
            bin("postgres")?
        };
        let daemon = Daemon::start(
            Spec {
                name: "PostgreSQL",
                program,
                args,
                ready: accepts_startup,
                prepare: Some(initdb),
            },
            "sluice-pg-",
        )?;
        Ok(Postgres { daemon })
    }

    pub fn port(&self) -> u16 {
        self.daemon.port()
    }

    /// `jdbc:postgresql://127.0.0.1:PORT/postgres`: what canal-adapter's
    /// `jdbc.url` takes.
    pub fn jdbc_url(&self) -> String {
        format!("jdbc:postgresql://127.0.0.1:{}/postgres", self.port())
    }

    /// Options for `tokio_postgres::connect`.
    pub fn conn_string(&self) -> String {
        format!(
            "host=127.0.0.1 port={} user={USER} dbname=postgres",
            self.port()
        )
    }

    pub fn dir(&self) -> &Path {
        self.daemon.dir()
    }

    pub fn is_running(&self) -> bool {
        self.daemon.is_running()
    }

    /// Kills the server with SIGKILL; the data directory stays.
    pub fn kill(&self) -> Result<()> {
        self.daemon.kill()
    }

    /// Starts the server again on its port and data (killing it first if
    /// it runs). The backends of a killed server end on their own when they
    /// see it gone; until then a new server refuses the data directory, so
    /// the start is tried a few times.
    pub fn restart(&self) -> Result<()> {
        self.daemon.kill()?;
        let mut last = None;
        for _ in 0..10 {
            std::thread::sleep(Duration::from_millis(500));
            match self.daemon.restart() {
                Ok(()) => return Ok(()),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| anyhow::anyhow!("PostgreSQL did not restart")))
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A server binary of the newest PostgreSQL installed.
fn bin(name: &str) -> Result<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .context(
            "PostgreSQL server binaries not found: install them with `apt-get install postgresql`",
        )?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let v = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            let p = e.path().join("bin").join(name);
            p.is_file().then_some((v, p))
        })
        .collect();
    versions.sort();
    match versions.pop() {
        Some((_, p)) => Ok(p),
        None => bail!("/usr/lib/postgresql/*/bin/{name} not found: install it with `apt-get install postgresql`"),
    }
}

/// The command line (after `setpriv …` as root).
fn args(port: u16, dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if is_root() {
        out.extend(
            [
                "--reuid=postgres",
                "--regid=postgres",
                "--clear-groups",
                "--pdeathsig=KILL",
                "--",
            ]
            .map(String::from),
        );
        out.push(
            bin("postgres")
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        );
    }
    out.extend([
        "-D".to_string(),
        dir.join("data").display().to_string(),
        "-p".to_string(),
        port.to_string(),
        "-h".to_string(),
        "127.0.0.1".to_string(),
        "-k".to_string(),
        dir.display().to_string(),
        // A kill ends the process, not the machine: the page cache keeps
        // what was written, so syncing buys the tests nothing.
        "-c".to_string(),
        "fsync=off".to_string(),
        "-c".to_string(),
        "full_page_writes=off".to_string(),
    ]);
    out
}

/// initdb into `dir/data`, as the postgres user when root.
fn initdb(dir: &Path) -> Result<()> {
    let data = dir.join("data");
    std::fs::create_dir(&data).with_context(|| format!("creating {}", data.display()))?;
    let mut cmd = if is_root() {
        let out = Command::new("id")
            .args(["-u", "postgres"])
            .output()
            .context("looking up the postgres user (PostgreSQL does not run as root)")?;
        let uid: u32 = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .context("no postgres user to run PostgreSQL as (it does not run as root)")?;
        let gid_out = Command::new("id").args(["-g", "postgres"]).output()?;
        let gid: u32 = String::from_utf8_lossy(&gid_out.stdout).trim().parse()?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))?;
        std::os::unix::fs::chown(dir, Some(uid), Some(gid))?;
        std::os::unix::fs::chown(&data, Some(uid), Some(gid))?;
        let mut c = Command::new("/usr/bin/setpriv");
        c.args([
            "--reuid=postgres",
            "--regid=postgres",
            "--clear-groups",
            "--",
        ])
        .arg(bin("initdb")?);
        c
    } else {
        Command::new(bin("initdb")?)
    };
    let out = cmd
        .arg("-D")
        .arg(&data)
        .args([
            "-U",
            USER,
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ])
        .current_dir(dir)
        .output()
        .context("running initdb")?;
    if !out.status.success() {
        bail!(
            "initdb failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// Whether the server takes a startup message (an authentication request
/// comes back, not "the database system is starting up").
fn accepts_startup(mut stream: TcpStream) -> bool {
    let mut body = Vec::new();
    body.extend_from_slice(&196_608u32.to_be_bytes());
    for s in ["user", USER, "database", "postgres", ""] {
        body.extend_from_slice(s.as_bytes());
        body.push(0);
    }
    let mut msg = ((body.len() + 4) as u32).to_be_bytes().to_vec();
    msg.extend_from_slice(&body);
    if stream.write_all(&msg).is_err() {
        return false;
    }
    let mut reply = [0u8; 1];
    stream.read_exact(&mut reply).is_ok() && reply[0] == b'R'
}
