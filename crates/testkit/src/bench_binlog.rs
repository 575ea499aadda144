//! The benchmarks' binlog: the files `scripts/gen-bench-binlog` writes (1.3 M
//! row changes of a 22-column table by default), found or generated, and a
//! private MariaDB that serves them as its own binlog.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::{MariaDb, MariaDbConfig};

/// The generated binlog files.
pub struct BenchBinlog {
    pub dir: PathBuf,
    /// File names (`binlog.000001`, ...), in order.
    pub files: Vec<String>,
    /// The first line of the generator's MANIFEST (what was generated).
    pub manifest: String,
}

impl BenchBinlog {
    /// `SLUICE_BENCH_BINLOG` if set, else `{target}/bench-data` under the
    /// workspace at `root`, generated there when missing or incomplete.
    pub fn locate(root: &Path) -> Result<Self> {
        let dir = match std::env::var_os("SLUICE_BENCH_BINLOG") {
            Some(p) => PathBuf::from(p),
            None => {
                let target = std::env::var_os("CARGO_TARGET_DIR")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| root.join("target"));
                let dir = target.join("bench-data");
                let status = Command::new(root.join("scripts/gen-bench-binlog"))
                    .arg(&dir)
                    .status()
                    .context("running scripts/gen-bench-binlog")?;
                if !status.success() {
                    bail!("scripts/gen-bench-binlog failed");
                }
                dir
            }
        };
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .with_context(|| format!("reading {}", dir.display()))?
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| {
                n.strip_prefix("binlog.")
                    .is_some_and(|x| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit()))
            })
            .collect();
        files.sort();
        if files.is_empty() {
            bail!("no binlog files in {}", dir.display());
        }
        let manifest = std::fs::read_to_string(dir.join("MANIFEST"))
            .ok()
            .and_then(|m| {
                m.lines()
                    .next()
                    .map(|l| l.trim_start_matches("# ").to_string())
            })
            .unwrap_or_default();
        Ok(BenchBinlog {
            dir,
            files,
            manifest,
        })
    }

    /// Total size of the files.
    pub fn bytes(&self) -> u64 {
        self.files
            .iter()
            .filter_map(|f| std::fs::metadata(self.dir.join(f)).ok())
            .map(|m| m.len())
            .sum()
    }

    /// A private MariaDB whose binlog is these files.
    pub fn serve(&self) -> Result<MariaDb> {
        self.serve_with(MariaDbConfig::default())
    }

    /// A private MariaDB started with `config` whose binlog is these files.
    pub fn serve_with(&self, config: MariaDbConfig) -> Result<MariaDb> {
        let mut db = MariaDb::start(config)?;
        db.stop()?;
        let dir = db.datadir().to_path_buf();
        for e in std::fs::read_dir(&dir)? {
            let p = e?.path();
            let is_binlog = p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("binlog."));
            if is_binlog {
                std::fs::remove_file(&p)?;
            }
        }
        let mut index = String::new();
        for name in &self.files {
            let to = dir.join(name);
            std::fs::copy(self.dir.join(name), &to)
                .with_context(|| format!("copying {name} into the datadir"))?;
            let _ = writeln!(index, "{}", to.display());
        }
        std::fs::write(dir.join("binlog.index"), index)?;
        db.restart()?;
        Ok(db)
    }
}
