//! An exclusive, advisory lock on a folder (the data folder of a server,
//! the folder of one destination), so that two processes never run the same
//! cursors and schema history at once.
//!
//! The lock is `flock(2)` on a `sluice.lock` file inside the folder: the
//! kernel drops it when the holder exits, even by `kill -9`, so a stale lock
//! never blocks a restart. The holder writes its pid into the file, and a
//! refused process names it. Written by hand on `libc::flock` because the
//! standard library's `File::try_lock` needs a newer Rust than this
//! workspace requires.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// The name of the lock file inside a locked folder.
pub const LOCK_FILE: &str = "sluice.lock";

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("{path} is locked by another Sluice process (pid {pid}): {what} is already in use; stop that process or give this one another canal.file.data.dir")]
    Held {
        path: PathBuf,
        what: String,
        /// The holder's pid as it wrote it, or "unknown".
        pid: String,
    },
    #[error("cannot lock {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A held folder lock; released when dropped (or when the process exits).
#[derive(Debug)]
pub struct DirLock {
    _file: File,
    path: PathBuf,
}

impl DirLock {
    /// Locks `dir` (created if missing) for this process, or says who holds
    /// it. `what` names the folder's role in the error ("the data folder",
    /// "destination example").
    pub fn acquire(dir: &Path, what: &str) -> Result<DirLock, LockError> {
        let path = dir.join(LOCK_FILE);
        let io_err = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        fs::create_dir_all(dir).map_err(|source| LockError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_err)?;
        // SAFETY: flock on a file descriptor this function owns and keeps open.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc != 0 {
            let err = std::io::Error::last_os_error();
            if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let pid = holder.trim();
                return Err(LockError::Held {
                    path,
                    what: what.to_string(),
                    pid: if pid.is_empty() {
                        "unknown".to_string()
                    } else {
                        pid.to_string()
                    },
                });
            }
            return Err(io_err(err));
        }
        file.set_len(0).map_err(io_err)?;
        file.seek(SeekFrom::Start(0)).map_err(io_err)?;
        writeln!(file, "{}", std::process::id()).map_err(io_err)?;
        Ok(DirLock { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_a_folder_is_refused_with_the_holders_pid() {
        let dir = tempfile::tempdir().unwrap();
        let held = DirLock::acquire(dir.path(), "the data folder").unwrap();
        // flock locks belong to the open file: a second open in the same
        // process conflicts just as another process would.
        let err = DirLock::acquire(dir.path(), "the data folder").unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(&std::process::id().to_string()),
            "names the holder: {text}"
        );
        assert!(text.contains("sluice.lock"), "names the file: {text}");
        drop(held);
        DirLock::acquire(dir.path(), "the data folder").expect("free again once dropped");
    }
}
