//! A binlog file on disk, mapped into memory for zero-copy decoding.

use std::path::{Path, PathBuf};

/// The sequence number of a binlog file: the numeric extension of its name
/// (`binlog.000042` → 42, a directory in front is ignored); `None` for a
/// name without one. The one place the number is read: every position type
/// orders files by it.
pub fn file_sequence(name: &str) -> Option<u64> {
    let base = name.rsplit('/').next().unwrap_or(name);
    base.rsplit_once('.').and_then(|(_, n)| n.parse().ok())
}

/// A binlog file's bytes, memory-mapped.
pub struct BinlogFile {
    path: PathBuf,
    map: Option<memmap2::Mmap>,
}

impl BinlogFile {
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = std::fs::File::open(&path)?;
        let len = file.metadata()?.len();
        // An empty file cannot be mapped; it decodes as "no magic".
        let map = if len == 0 {
            None
        } else {
            // SAFETY: binlog files are append-only; the server never truncates
            // or rewrites the bytes already written, so the mapping stays valid.
            Some(unsafe { memmap2::Mmap::map(&file)? })
        };
        Ok(BinlogFile { path, map })
    }

    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file name as shown in errors and positions.
    pub fn name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.path.display().to_string())
    }
}

#[cfg(test)]
mod file_sequence_tests {
    use super::file_sequence;

    #[test]
    fn the_sequence_is_the_numeric_extension() {
        assert_eq!(file_sequence("mysql-bin.000042"), Some(42));
        assert_eq!(file_sequence("/var/lib/mysql/binlog.001000"), Some(1000));
        assert_eq!(file_sequence("my.host-bin.000007"), Some(7));
        assert_eq!(file_sequence("binlog"), None);
        assert_eq!(file_sequence("binlog.index"), None);
        assert_eq!(file_sequence(""), None);
    }
}
