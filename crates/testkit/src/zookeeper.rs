//! Private, throwaway ZooKeeper servers: one standalone server or an
//! ensemble of several on loopback, for the high-availability tests.
//!
//! Each node is a JVM running Debian's ZooKeeper 3.8 (`apt-get install
//! zookeeper`) in a fresh temporary directory, on free ports of 127.0.0.1, with
//! a short tick (500 ms) so sessions can be as short as one second. Nodes can be
//! killed, restarted, paused and resumed to simulate crashes, restarts and
//! hung servers.
//!
//! ```no_run
//! use sluice_testkit::ZooKeeperEnsemble;
//!
//! # fn main() -> anyhow::Result<()> {
//! let zk = ZooKeeperEnsemble::start(3)?;
//! println!("connect to {}", zk.connect_string());
//! zk.kill_node(0)?; // two of three keep the quorum
//! zk.restart_node(0)?;
//! # Ok(())
//! # }
//! ```
//!
//! The classpath is `/usr/share/java/zookeeper.jar`, whose manifest names every
//! library the server needs (Debian's `libzookeeper-java` dependencies), plus
//! `/usr/share/java/slf4j-simple.jar` so the server logs (to `node-N/zookeeper.log`).
//!
//! Cleanup follows [`crate::MariaDb`]: dropping the ensemble kills the JVMs and
//! removes the directory (kept with `SLUICE_KEEP_TEST_DB=1`); a test process
//! that dies takes its JVMs with it (`PR_SET_PDEATHSIG`).

use std::fs::{self, File};
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

/// The ZooKeeper server jar of Debian's `libzookeeper-java`.
const ZOOKEEPER_JAR: &str = "/usr/share/java/zookeeper.jar";

/// The SLF4J binding that makes the server log to stderr.
const SLF4J_SIMPLE_JAR: &str = "/usr/share/java/slf4j-simple.jar";

/// The server's main class; with no `server.N` lines it runs standalone.
const MAIN_CLASS: &str = "org.apache.zookeeper.server.quorum.QuorumPeerMain";

/// ZooKeeper's tick in milliseconds: sessions may last 2 to 20 ticks.
pub const TICK_MS: u64 = 500;

/// The shortest session the servers grant.
pub const MIN_SESSION_TIMEOUT: Duration = Duration::from_millis(1000);

/// The longest session the servers grant.
pub const MAX_SESSION_TIMEOUT: Duration = Duration::from_millis(20 * TICK_MS);

/// How long [`ZooKeeperEnsemble::start`] and [`ZooKeeperEnsemble::restart_node`]
/// wait for the nodes to serve.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

/// Attempts when a chosen free port was taken by someone else meanwhile.
const PORT_ATTEMPTS: usize = 3;

/// Lines of a node's log quoted in errors.
const LOG_TAIL_LINES: usize = 30;

/// A ZooKeeper server or ensemble in a temporary directory on 127.0.0.1.
///
/// Nodes are numbered from 0 (their ZooKeeper `myid` is the index + 1).
pub struct ZooKeeperEnsemble {
    java: PathBuf,
    nodes: Vec<Node>,
    // Last: removed after the servers are gone.
    dir: TempDirGuard,
}

struct Node {
    client_port: u16,
    dir: PathBuf,
    config: PathBuf,
    log: PathBuf,
    child: Mutex<Option<Child>>,
    paused: Mutex<bool>,
}

impl std::fmt::Debug for ZooKeeperEnsemble {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZooKeeperEnsemble")
            .field("connect_string", &self.connect_string())
            .field("dir", &self.dir.path())
            .finish_non_exhaustive()
    }
}

impl ZooKeeperEnsemble {
    /// Starts `n` nodes (1: a standalone server; 3: an ensemble that survives
    /// the loss of one node) and waits until every node serves clients.
    pub fn start(n: usize) -> Result<ZooKeeperEnsemble> {
        if n == 0 || n > 9 {
            bail!("a test ZooKeeper ensemble has 1 to 9 nodes, not {n}");
        }
        let java = java_binary()?;
        for jar in [ZOOKEEPER_JAR, SLF4J_SIMPLE_JAR] {
            if !Path::new(jar).is_file() {
                bail!("{jar} not found: install ZooKeeper with `apt-get install zookeeper`");
            }
        }
        let mut attempt = 0;
        loop {
            attempt += 1;
            let ensemble = Self::configure(java.clone(), n)?;
            match ensemble.launch_all() {
                Ok(()) => return Ok(ensemble),
                Err(e) if attempt < PORT_ATTEMPTS && ensemble.port_clash() => {
                    drop(e);
                    continue;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// A single standalone server.
    pub fn start_standalone() -> Result<ZooKeeperEnsemble> {
        Self::start(1)
    }

    /// Writes the directories and configuration files of `n` nodes on fresh ports.
    fn configure(java: PathBuf, n: usize) -> Result<ZooKeeperEnsemble> {
        let dir = TempDirGuard::new("sluice-zookeeper-")?;
        let mut ports = Vec::with_capacity(n);
        for _ in 0..n {
            ports.push((find_free_port()?, find_free_port()?, find_free_port()?));
        }
        let servers: String = if n == 1 {
            String::new()
        } else {
            ports
                .iter()
                .enumerate()
                .map(|(i, (_, quorum, election))| {
                    format!("server.{}=127.0.0.1:{quorum}:{election}\n", i + 1)
                })
                .collect()
        };
        let mut nodes = Vec::with_capacity(n);
        for (i, (client_port, _, _)) in ports.iter().enumerate() {
            let node_dir = dir.path().join(format!("node-{i}"));
            let data_dir = node_dir.join("data");
            fs::create_dir_all(&data_dir)
                .with_context(|| format!("creating {}", data_dir.display()))?;
            let myid = data_dir.join("myid");
            fs::write(&myid, format!("{}\n", i + 1))
                .with_context(|| format!("writing {}", myid.display()))?;
            let config = node_dir.join("zoo.cfg");
            let text = format!(
                "tickTime={TICK_MS}\n\
                 initLimit=10\n\
                 syncLimit=5\n\
                 dataDir={data}\n\
                 clientPort={client_port}\n\
                 clientPortAddress=127.0.0.1\n\
                 admin.enableServer=false\n\
                 4lw.commands.whitelist=ruok,srvr,stat,mntr,cons\n\
                 minSessionTimeout={min}\n\
                 maxSessionTimeout={max}\n\
                 preAllocSize=1024\n\
                 forceSync=no\n\
                 autopurge.purgeInterval=0\n\
                 {servers}",
                data = data_dir.display(),
                min = MIN_SESSION_TIMEOUT.as_millis(),
                max = MAX_SESSION_TIMEOUT.as_millis(),
            );
            fs::write(&config, text).with_context(|| format!("writing {}", config.display()))?;
            nodes.push(Node {
                client_port: *client_port,
                log: node_dir.join("zookeeper.log"),
                dir: node_dir,
                config,
                child: Mutex::new(None),
                paused: Mutex::new(false),
            });
        }
        Ok(ZooKeeperEnsemble { java, nodes, dir })
    }

    fn launch_all(&self) -> Result<()> {
        for i in 0..self.nodes.len() {
            self.spawn_node(i)?;
        }
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        for i in 0..self.nodes.len() {
            self.wait_serving_until(i, deadline)?;
        }
        Ok(())
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the ensemble has no nodes (never: kept for the `len` convention).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// `127.0.0.1:P1,127.0.0.1:P2,...`: what clients (and `canal.zkServers`) take.
    pub fn connect_string(&self) -> String {
        (0..self.nodes.len())
            .map(|i| self.node_address(i))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// `127.0.0.1:PORT` of node `i`.
    pub fn node_address(&self, i: usize) -> String {
        format!("127.0.0.1:{}", self.client_port(i))
    }

    /// The client port of node `i`.
    pub fn client_port(&self, i: usize) -> u16 {
        self.nodes[i].client_port
    }

    /// The temporary directory holding every node's configuration, data and log.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Node `i`'s log (the JVM's stdout and stderr).
    pub fn log_path(&self, i: usize) -> &Path {
        &self.nodes[i].log
    }

    /// Node `i`'s process id while it runs.
    pub fn pid(&self, i: usize) -> Option<u32> {
        lock(&self.nodes[i].child).as_ref().map(Child::id)
    }

    /// Whether node `i`'s JVM is alive (paused counts as alive).
    pub fn is_running(&self, i: usize) -> bool {
        match lock(&self.nodes[i].child).as_mut() {
            Some(c) => matches!(c.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// Kills node `i` with SIGKILL, as a crash would. Its data is kept for
    /// [`restart_node`](Self::restart_node). Does nothing if it is not running.
    pub fn kill_node(&self, i: usize) -> Result<()> {
        let node = &self.nodes[i];
        if let Some(mut child) = lock(&node.child).take() {
            process::kill(&mut child)
                .with_context(|| format!("killing ZooKeeper node {i} (pid {})", child.id()))?;
        }
        *lock(&node.paused) = false;
        Ok(())
    }

    /// Starts node `i` again on its data and ports (killing it first if it
    /// runs) and waits until it serves, which in an ensemble needs a quorum.
    pub fn restart_node(&self, i: usize) -> Result<()> {
        self.kill_node(i)?;
        self.spawn_node(i)?;
        self.wait_serving_until(i, Instant::now() + STARTUP_TIMEOUT)
    }

    /// Stops node `i` with SIGSTOP: its connections stay open but nothing
    /// answers, like a hung server or a network partition.
    pub fn pause_node(&self, i: usize) -> Result<()> {
        self.signal_node(i, libc::SIGSTOP)?;
        *lock(&self.nodes[i].paused) = true;
        Ok(())
    }

    /// Continues a node stopped by [`pause_node`](Self::pause_node) (SIGCONT).
    pub fn resume_node(&self, i: usize) -> Result<()> {
        self.signal_node(i, libc::SIGCONT)?;
        *lock(&self.nodes[i].paused) = false;
        Ok(())
    }

    /// Sends a four-letter command (`srvr`, `stat`, `mntr`, `cons`, `ruok`) to
    /// node `i` and returns the answer.
    pub fn four_letter(&self, i: usize, command: &str) -> Result<String> {
        four_letter_word(self.client_port(i), command)
    }

    /// `leader`, `follower` or `standalone` while node `i` serves clients;
    /// `None` while it does not (starting, no quorum, killed or paused).
    pub fn mode(&self, i: usize) -> Option<String> {
        if *lock(&self.nodes[i].paused) {
            return None;
        }
        let answer = self.four_letter(i, "srvr").ok()?;
        parse_mode(&answer)
    }

    /// The node that is the ensemble's leader now, if any.
    pub fn leader(&self) -> Option<usize> {
        (0..self.nodes.len()).find(|&i| self.mode(i).as_deref() == Some("leader"))
    }

    /// The node holding the client connection of session `session_id` (as
    /// listed by `cons`), if any node answers for it.
    pub fn node_of_session(&self, session_id: i64) -> Option<usize> {
        let needle = format!("sid=0x{:x}", session_id);
        (0..self.nodes.len()).find(|&i| {
            !*lock(&self.nodes[i].paused)
                && self
                    .four_letter(i, "cons")
                    .map(|cons| {
                        cons.lines()
                            .any(|l| l.split([',', '(', ')']).any(|field| field.trim() == needle))
                    })
                    .unwrap_or(false)
        })
    }

    /// Waits until node `i` serves clients.
    pub fn wait_serving(&self, i: usize, timeout: Duration) -> Result<()> {
        self.wait_serving_until(i, Instant::now() + timeout)
    }

    fn wait_serving_until(&self, i: usize, deadline: Instant) -> Result<()> {
        let node = &self.nodes[i];
        loop {
            let exited = match lock(&node.child).as_mut() {
                Some(child) => child
                    .try_wait()
                    .context("checking whether a ZooKeeper node is still running")?,
                None => bail!("ZooKeeper node {i} is not running"),
            };
            if let Some(status) = exited {
                lock(&node.child).take();
                bail!(
                    "ZooKeeper node {i} exited during startup ({status}), client port {}; {} \
                     ends with:\n{}\n(set {KEEP_ENV}=1 to keep the directory)",
                    node.client_port,
                    node.log.display(),
                    tail_of_file(&node.log, LOG_TAIL_LINES)
                );
            }
            if self.mode(i).is_some() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                bail!(
                    "ZooKeeper node {i} (client port {}) did not serve within {:?}; {} ends \
                     with:\n{}\n(set {KEEP_ENV}=1 to keep the directory)",
                    node.client_port,
                    STARTUP_TIMEOUT,
                    node.log.display(),
                    tail_of_file(&node.log, LOG_TAIL_LINES)
                );
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    fn spawn_node(&self, i: usize) -> Result<()> {
        let node = &self.nodes[i];
        let log = File::options()
            .create(true)
            .append(true)
            .open(&node.log)
            .with_context(|| format!("opening {}", node.log.display()))?;
        let log2 = log
            .try_clone()
            .with_context(|| format!("opening {}", node.log.display()))?;
        let mut cmd = Command::new(&self.java);
        cmd.args([
            "-Xmx256m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-XX:-UsePerfData",
            "-Djava.net.preferIPv4Stack=true",
            "-Dorg.slf4j.simpleLogger.showDateTime=true",
            "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
            "-cp",
            &format!("{ZOOKEEPER_JAR}:{SLF4J_SIMPLE_JAR}"),
            MAIN_CLASS,
        ])
        .arg(&node.config)
        .current_dir(&node.dir)
        .stdin(Stdio::null())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(log2));
        let child = process::spawn_tied_to_process(cmd)
            .with_context(|| format!("starting {} for ZooKeeper node {i}", self.java.display()))?;
        *lock(&node.child) = Some(child);
        *lock(&node.paused) = false;
        Ok(())
    }

    fn signal_node(&self, i: usize, sig: libc::c_int) -> Result<()> {
        let guard = lock(&self.nodes[i].child);
        let Some(child) = guard.as_ref() else {
            bail!("ZooKeeper node {i} is not running");
        };
        let pid = libc::pid_t::try_from(child.id()).context("process id out of range")?;
        // SAFETY: kill(2) on our own child, not yet reaped (we hold it).
        if unsafe { libc::kill(pid, sig) } != 0 {
            return Err(std::io::Error::last_os_error())
                .with_context(|| format!("signalling ZooKeeper node {i} (pid {pid})"));
        }
        Ok(())
    }

    /// Whether the last start failed because a port was taken.
    fn port_clash(&self) -> bool {
        self.nodes.iter().any(|n| {
            fs::read_to_string(&n.log)
                .map(|log| log.contains("Address already in use"))
                .unwrap_or(false)
        })
    }
}

impl Drop for ZooKeeperEnsemble {
    fn drop(&mut self) {
        for (i, node) in self.nodes.iter().enumerate() {
            if let Some(mut child) = lock(&node.child).take() {
                // SIGKILL works on stopped processes too; a test server needs
                // no clean shutdown.
                if let Err(e) = process::kill(&mut child) {
                    eprintln!(
                        "warning: could not kill test ZooKeeper node {i} (pid {}): {e}",
                        child.id()
                    );
                }
            }
        }
        // `self.dir` is dropped next and removes everything unless SLUICE_KEEP_TEST_DB=1.
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `$JAVA_HOME/bin/java`, else `/usr/bin/java`, else `java` on `$PATH`.
fn java_binary() -> Result<PathBuf> {
    if let Some(home) = std::env::var_os("JAVA_HOME") {
        let p = Path::new(&home).join("bin/java");
        if p.is_file() {
            return Ok(p);
        }
    }
    find_program(&["/usr/bin/java"], &["java"]).context(
        "java not found (looked in $JAVA_HOME/bin, /usr/bin and $PATH): install a Java runtime \
         with `apt-get install default-jre-headless` (the zookeeper package pulls one in)",
    )
}

/// Sends a four-letter word to 127.0.0.1:`port` and reads the answer to the end.
pub fn four_letter_word(port: u16, command: &str) -> Result<String> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let timeout = Duration::from_secs(2);
    let mut stream = TcpStream::connect_timeout(&addr, timeout)
        .with_context(|| format!("connecting to ZooKeeper at {addr}"))?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    stream
        .write_all(command.as_bytes())
        .with_context(|| format!("sending `{command}` to {addr}"))?;
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .with_context(|| format!("reading the answer to `{command}` from {addr}"))?;
    Ok(answer)
}

/// The value of the `Mode:` line of a `srvr` answer.
fn parse_mode(srvr: &str) -> Option<String> {
    srvr.lines()
        .find_map(|l| l.strip_prefix("Mode:"))
        .map(|m| m.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_line() {
        let srvr = "Zookeeper version: 3.8.0\nLatency min/avg/max: 0/0.0/0\nMode: follower\nNode count: 5\n";
        assert_eq!(parse_mode(srvr).as_deref(), Some("follower"));
        assert_eq!(
            parse_mode("This ZooKeeper instance is not currently serving requests\n"),
            None
        );
    }
}
