//! Fresh datadirs, fast.
//!
//! `mariadb-install-db` runs once per machine (per user and server build) into a
//! template directory under the system temp dir; every instance then gets a
//! plain copy of it. Test processes run in parallel (nextest runs one per test),
//! so the template is built under an exclusive `flock` and published with an
//! atomic rename. Set `SLUICE_TESTKIT_NO_TEMPLATE=1` to run `mariadb-install-db`
//! for every instance instead.

use std::collections::hash_map::DefaultHasher;
use std::fs::{self, File};
use std::hash::{Hash, Hasher};
use std::io;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

use anyhow::{bail, Context, Result};

use crate::util::{env_flag, install_db_binary, mariadbd_binary, running_as_root, tail_of_text};

/// Redo log size used both when installing and when running, so the server
/// never has to resize the log at startup.
pub(crate) const INNODB_LOG_FILE_SIZE: &str = "8M";

/// Bumped whenever the install arguments or the layout change.
const TEMPLATE_FORMAT: u32 = 1;

/// File written into a finished template; a directory without it is incomplete.
const MARKER: &str = ".sluice-testkit-template";

pub(crate) const NO_TEMPLATE_ENV: &str = "SLUICE_TESTKIT_NO_TEMPLATE";

fn install_args() -> Vec<String> {
    vec![
        "--auth-root-authentication-method=normal".to_string(),
        "--skip-test-db".to_string(),
        format!("--innodb-log-file-size={INNODB_LOG_FILE_SIZE}"),
        "--innodb-buffer-pool-size=16M".to_string(),
    ]
}

/// Fills the empty directory `datadir` with a freshly initialised datadir.
pub(crate) fn prepare_datadir(datadir: &Path) -> Result<()> {
    if env_flag(NO_TEMPLATE_ENV) {
        return install_db(datadir);
    }
    let template = template_dir()?;
    copy_tree(&template, datadir).with_context(|| {
        format!(
            "copying the template datadir {} to {} (delete the template to have it rebuilt)",
            template.display(),
            datadir.display()
        )
    })
}

/// Runs `mariadb-install-db` into `datadir` (which may exist, empty).
pub(crate) fn install_db(datadir: &Path) -> Result<()> {
    let bin = install_db_binary()?;
    let mut cmd = Command::new(&bin);
    cmd.arg("--no-defaults");
    if running_as_root() {
        cmd.arg("--user=root");
    }
    cmd.arg(format!("--datadir={}", datadir.display()));
    cmd.args(install_args());
    let out = cmd
        .output()
        .with_context(|| format!("running {}", bin.display()))?;
    if !out.status.success() {
        let text = format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        bail!(
            "{} --datadir={} failed ({}); its output ends with:\n{}",
            bin.display(),
            datadir.display(),
            out.status,
            tail_of_text(&text, 30)
        );
    }
    Ok(())
}

static TEMPLATE: Mutex<Option<PathBuf>> = Mutex::new(None);

fn template_dir() -> Result<PathBuf> {
    let mut cached = TEMPLATE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = cached.as_ref() {
        if p.join(MARKER).is_file() {
            return Ok(p.clone());
        }
    }
    let path = build_template()?;
    *cached = Some(path.clone());
    Ok(path)
}

fn template_key() -> Result<u64> {
    let mut h = DefaultHasher::new();
    TEMPLATE_FORMAT.hash(&mut h);
    install_args().hash(&mut h);
    for bin in [install_db_binary()?, mariadbd_binary()?] {
        bin.hash(&mut h);
        let meta = fs::metadata(&bin).with_context(|| format!("reading {}", bin.display()))?;
        meta.len().hash(&mut h);
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_nanos());
        mtime.hash(&mut h);
    }
    Ok(h.finish())
}

fn build_template() -> Result<PathBuf> {
    let tmp = std::env::temp_dir();
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    let name = format!(
        "sluice-testkit-mariadb-template-{uid}-{:016x}",
        template_key()?
    );
    let dir = tmp.join(&name);
    let lock_path = tmp.join(format!("{name}.lock"));

    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .with_context(|| format!("opening lock file {}", lock_path.display()))?;
    flock_exclusive(&lock).with_context(|| format!("locking {}", lock_path.display()))?;

    if dir.join(MARKER).is_file() {
        return Ok(dir);
    }
    if dir.exists() {
        fs::remove_dir_all(&dir)
            .with_context(|| format!("removing incomplete template {}", dir.display()))?;
    }
    let build = tempfile::Builder::new()
        .prefix(".sluice-testkit-template-build-")
        .tempdir_in(&tmp)
        .with_context(|| format!("creating a build directory in {}", tmp.display()))?;
    let data = build.path().join("data");
    install_db(&data)?;
    fs::write(data.join(MARKER), format!("{name}\n"))
        .with_context(|| format!("writing {}", data.join(MARKER).display()))?;
    fs::rename(&data, &dir)
        .with_context(|| format!("moving {} to {}", data.display(), dir.display()))?;
    // `lock` is released when it is dropped here.
    Ok(dir)
}

fn flock_exclusive(file: &File) -> io::Result<()> {
    loop {
        // SAFETY: flock on a file descriptor we own.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        if rc == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Copies the directory tree `from` into `to` (created if missing), keeping
/// permission bits and leaving out the template marker.
fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    fs::set_permissions(to, fs::metadata(from)?.permissions())?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == MARKER {
            continue;
        }
        let src = entry.path();
        let dst = to.join(&name);
        let ty = entry.file_type()?;
        if ty.is_dir() {
            copy_tree(&src, &dst)?;
        } else if ty.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&src)?, &dst)?;
        } else {
            fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}
