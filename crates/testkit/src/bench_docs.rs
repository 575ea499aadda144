//! `docs/benchmarks.md`: each benchmark (or measuring test) owns one section
//! between its two marker comments and replaces only that section when it
//! runs again.

use std::io;
use std::path::{Path, PathBuf};

const INTRO: &str = "# Benchmarks\n\nMeasured numbers for Sluice. Each section is written by the benchmark it names, with the machine, date and commands to reproduce it; rerunning a benchmark replaces only its own section.\n";

/// The workspace's `docs/benchmarks.md`.
pub fn path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/benchmarks.md")
}

/// Writes `body` between `begin` and `end` in the workspace's
/// `docs/benchmarks.md`; returns the file's path.
pub fn write_section(begin: &str, end: &str, body: &str) -> io::Result<PathBuf> {
    let path = path();
    write_section_in(&path, begin, end, body)?;
    Ok(path)
}

/// Replaces what stands between `begin` and `end` (markers included) in the
/// file at `path` with the markers around `body`, or appends that section
/// when the markers are not both there; creates the file with a short
/// introduction when it is missing. The rest of the file is left as it is.
pub fn write_section_in(path: &Path, begin: &str, end: &str, body: &str) -> io::Result<()> {
    let old = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) if e.kind() == io::ErrorKind::NotFound => INTRO.to_string(),
        Err(e) => return Err(e),
    };
    let newline = if body.ends_with('\n') { "" } else { "\n" };
    let section = format!("{begin}\n{body}{newline}{end}");
    let new = match (old.find(begin), old.find(end)) {
        (Some(b), Some(e)) if b < e => {
            format!("{}{section}{}", &old[..b], &old[e + end.len()..])
        }
        _ => format!("{}\n\n{section}\n", old.trim_end()),
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, new)
}

/// CPU seconds (user + system) and peak resident memory in MB (`VmHWM`) of
/// process `pid` so far, read from `/proc`; zeros when it is gone.
pub fn process_usage(pid: u32) -> (f64, f64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at ") ".
    let rest = stat.rsplit_once(") ").map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // SAFETY: sysconf reads a constant.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let cpu = (ticks(11) + ticks(12)) / hz.max(1.0);
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let hwm_kb = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0);
    (cpu, hwm_kb / 1024.0)
}

/// The processor's name as /proc/cpuinfo gives it, for the machine line of
/// a benchmark section.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: &str = "<!-- x:begin -->";
    const E: &str = "<!-- x:end -->";

    #[test]
    fn a_section_is_created_replaced_and_nothing_else_moves() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("docs/benchmarks.md");
        write_section_in(&path, B, E, "one").unwrap();
        let first = std::fs::read_to_string(&path).unwrap();
        assert!(first.starts_with("# Benchmarks\n"));
        assert!(
            first.ends_with("<!-- x:begin -->\none\n<!-- x:end -->\n"),
            "{first}"
        );

        let around = format!("head\n\n{B}\nold\n{E}\n\ntail\n");
        std::fs::write(&path, &around).unwrap();
        write_section_in(&path, B, E, "new\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("head\n\n{B}\nnew\n{E}\n\ntail\n")
        );

        std::fs::write(&path, "head\n").unwrap();
        write_section_in(&path, B, E, "body").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("head\n\n{B}\nbody\n{E}\n")
        );
    }
}
