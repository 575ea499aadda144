//! Small helpers: free ports, temp dirs that honour `SLUICE_KEEP_TEST_DB`, and
//! locating the server binaries.

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// Environment variable: when set to `1` (or `true`/`yes`), test datadirs and
/// [`TempDirGuard`] directories are kept on drop and their paths printed to stderr.
pub const KEEP_ENV: &str = "SLUICE_KEEP_TEST_DB";

/// Whether [`KEEP_ENV`] asks to keep test directories.
pub fn keep_test_dirs() -> bool {
    env_flag(KEEP_ENV)
}

pub(crate) fn env_flag(name: &str) -> bool {
    matches!(
        std::env::var(name).as_deref().map(str::trim),
        Ok("1") | Ok("true") | Ok("TRUE") | Ok("yes") | Ok("YES")
    )
}

/// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0, read the
/// port the kernel chose, release it). Another process can still take it before
/// you bind it; [`crate::MariaDb::start`] retries with a new port when that happens.
pub fn find_free_port() -> Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .context("binding 127.0.0.1:0 to find a free TCP port")?;
    let port = listener
        .local_addr()
        .context("reading the port of a listener bound to 127.0.0.1:0")?
        .port();
    Ok(port)
}

/// A temporary directory removed on drop, unless `SLUICE_KEEP_TEST_DB=1`, in
/// which case it stays and its path is printed to stderr.
#[derive(Debug)]
pub struct TempDirGuard {
    dir: Option<tempfile::TempDir>,
    path: PathBuf,
}

impl TempDirGuard {
    /// Creates a fresh directory under the system temp dir (`$TMPDIR` or `/tmp`)
    /// whose name starts with `prefix`.
    pub fn new(prefix: &str) -> Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .with_context(|| {
                format!(
                    "creating a temporary directory in {} (is it writable and not full?)",
                    std::env::temp_dir().display()
                )
            })?;
        let path = dir.path().to_path_buf();
        Ok(TempDirGuard {
            dir: Some(dir),
            path,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps the directory on drop whatever the environment says.
    pub fn keep(&mut self) {
        if let Some(dir) = self.dir.take() {
            let _ = dir.keep();
        }
    }
}

impl Drop for TempDirGuard {
    fn drop(&mut self) {
        let Some(dir) = self.dir.take() else {
            return;
        };
        if keep_test_dirs() {
            let path = dir.keep();
            eprintln!("{KEEP_ENV} is set: keeping {}", path.display());
        } else if let Err(e) = dir.close() {
            eprintln!("warning: could not remove {}: {e}", self.path.display());
        }
    }
}

/// The first of `candidates` that exists as a file, else the first name found
/// on `$PATH`.
pub(crate) fn find_program(candidates: &[&str], names: &[&str]) -> Option<PathBuf> {
    for c in candidates {
        let p = Path::new(c);
        if p.is_file() {
            return Some(p.to_path_buf());
        }
    }
    let path = std::env::var_os("PATH")?;
    for name in names {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// `/usr/sbin/mariadbd`, else `mariadbd` or `mysqld` from `$PATH` or `/usr/sbin`.
pub(crate) fn mariadbd_binary() -> Result<PathBuf> {
    find_program(
        &["/usr/sbin/mariadbd", "/usr/sbin/mysqld"],
        &["mariadbd", "mysqld"],
    )
    .context(
        "mariadbd not found (looked for /usr/sbin/mariadbd, /usr/sbin/mysqld and $PATH): \
         install it with `apt-get install mariadb-server`",
    )
}

/// `mariadb-install-db`, else the older name `mysql_install_db`.
pub(crate) fn install_db_binary() -> Result<PathBuf> {
    find_program(
        &["/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db"],
        &["mariadb-install-db", "mysql_install_db"],
    )
    .context(
        "mariadb-install-db not found (looked in /usr/bin and $PATH): \
         install it with `apt-get install mariadb-server`",
    )
}

/// Whether this process runs as root (mariadbd then needs `--user=root`).
pub(crate) fn running_as_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// The last `max_lines` lines of a text file, for error messages.
pub(crate) fn tail_of_file(path: &Path, max_lines: usize) -> String {
    match std::fs::read(path) {
        Ok(bytes) => tail_of_text(&String::from_utf8_lossy(&bytes), max_lines),
        Err(e) => format!("(could not read {}: {e})", path.display()),
    }
}

pub(crate) fn tail_of_text(text: &str, max_lines: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(max_lines);
    let mut out = lines[start..].join("\n");
    if out.trim().is_empty() {
        out = "(empty)".to_string();
    }
    out
}

/// `sql` shortened for error messages.
pub(crate) fn sql_snippet(sql: &str) -> String {
    const MAX: usize = 300;
    let sql = sql.trim();
    if sql.len() <= MAX {
        return sql.to_string();
    }
    let mut end = MAX;
    while !sql.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &sql[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_port_is_bindable() {
        let port = find_free_port().unwrap();
        assert_ne!(port, 0);
        TcpListener::bind((Ipv4Addr::LOCALHOST, port)).unwrap();
    }

    #[test]
    fn temp_dir_guard_removes_dir() {
        let g = TempDirGuard::new("sluice-testkit-unit-").unwrap();
        let p = g.path().to_path_buf();
        assert!(p.is_dir());
        drop(g);
        if !keep_test_dirs() {
            assert!(!p.exists());
        }
    }

    #[test]
    fn tails_and_snippets() {
        assert_eq!(tail_of_text("a\nb\nc\n", 2), "b\nc");
        assert_eq!(tail_of_text("", 2), "(empty)");
        let long = "é".repeat(400);
        assert!(sql_snippet(&long).ends_with('…'));
        assert_eq!(sql_snippet("  SELECT 1 "), "SELECT 1");
    }
}
