//! Runs one fixed path of `sluice_bench::paths` once over the start of a
//! binlog file, for `scripts/bench-callgrind` to count its instructions:
//!
//! `bench-path decode|tail|canal FILE ROWS`
//!
//! Prints `rows=N output_bytes=N fold=N` (the same for the same input).

use std::io::Read;

use anyhow::{bail, Context, Result};
use sluice_bench::paths::{measured, slice, Path};

/// Enough of the bench binlog for well over 100 000 row changes; the file
/// itself is 476 MB and need not be read whole.
const PREFIX_BYTES: u64 = 96 << 20;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, file, rows] = args.as_slice() else {
        bail!("usage: bench-path decode|tail|canal FILE ROWS");
    };
    let path = Path::parse(path).with_context(|| format!("no path named {path:?}"))?;
    let rows: u64 = rows
        .parse()
        .with_context(|| format!("ROWS {rows:?} is not a number"))?;
    let mut buf = Vec::new();
    std::fs::File::open(file)
        .with_context(|| format!("opening {file}"))?
        .take(PREFIX_BYTES)
        .read_to_end(&mut buf)
        .with_context(|| format!("reading {file}"))?;
    let name = std::path::Path::new(file)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(file);
    let cut = slice(name, &buf, rows)?;
    let done = measured(path, name, &buf, cut.end)?;
    println!(
        "rows={} end={} output_bytes={} fold={}",
        cut.rows, cut.end, done.output_bytes, done.fold
    );
    Ok(())
}
