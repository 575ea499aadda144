//! Binlog fixtures for tests: the corpus of binlogs written by real MySQL
//! and MariaDB servers (`testdata/binlogs` of the repository), and any
//! folder of fixture files.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The corpus: `testdata/binlogs` of the repository (its README says
/// where each file comes from).
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/binlogs")
}

/// Every binlog file below `root` (`.gz` files unpacked), named by its path
/// relative to `root`, in name order. Files that are not binlogs are
/// skipped.
///
/// # Panics
/// On a `.gz` file that does not unpack: a broken fixture.
pub fn binlog_files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let Ok(mut bytes) = std::fs::read(&path) else {
                continue;
            };
            if path.extension().is_some_and(|x| x == "gz") {
                let mut plain = Vec::new();
                if let Err(e) =
                    flate2::read::GzDecoder::new(bytes.as_slice()).read_to_end(&mut plain)
                {
                    panic!("{}: not a readable gzip fixture: {e}", path.display());
                }
                bytes = plain;
            }
            if bytes.starts_with(b"\xfebin") {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                out.push((rel.display().to_string(), bytes));
            }
        }
    }
    out.sort();
    out
}

/// Every binlog of the corpus.
///
/// # Panics
/// When the corpus is not found (fewer than 20 files), saying where it
/// was looked for.
pub fn corpus_binlogs() -> Vec<(String, Vec<u8>)> {
    let dir = corpus_dir();
    let files = binlog_files(&dir);
    assert!(
        files.len() >= 20,
        "binlog corpus not found at {} (testdata/binlogs of the repository)",
        dir.display()
    );
    files
}
