//! `sluice binlog decode`: events as JSON lines (format in the README;
//! rendered by `sluice_encode::binlog_json`).

use std::io::{BufWriter, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use sluice_binlog::{walk_file, BinlogFile};
use sluice_encode::binlog_json::{BinlogJson, EventJsonError};

#[derive(Args)]
pub struct DecodeArgs {
    /// Binlog files, decoded in the order given.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,

    /// The largest size, in bytes, that a compressed event's content may
    /// inflate to (MariaDB compressed events, MySQL transaction payloads);
    /// a bigger one stops decoding with an error. Default 268435456 (256 MiB),
    /// at most 1073741824.
    #[arg(long, value_name = "BYTES", value_parser = parse_event_size)]
    pub max_event_size: Option<usize>,
}

pub fn run(args: &DecodeArgs) -> Result<()> {
    if let Some(n) = args.max_event_size {
        sluice_binlog::compression::set_max_uncompressed(n);
    }
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut encoder = BinlogJson::new();
    for path in &args.files {
        let file = BinlogFile::open(path)
            .with_context(|| format!("cannot open binlog file {}", path.display()))?;
        let name = file.name();
        let mut write_error = None;
        let walked = walk_file(&name, file.bytes(), |at, raw, data| {
            match encoder.write_event(&mut out, &name, at, raw, data) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    write_error = Some(e);
                    ControlFlow::Break(())
                }
            }
        });
        out.flush().context("writing to standard output")?;
        match write_error {
            Some(EventJsonError::Output(e)) => {
                return Err(anyhow::Error::new(e).context("writing to standard output"))
            }
            Some(e) => return Err(e.into()),
            None => {}
        }
        walked.with_context(|| {
            format!(
                "decoding stopped in {}; the events before the offset above were printed",
                path.display()
            )
        })?;
    }
    Ok(())
}

/// `--max-event-size`: a number of bytes, 1 to 1 GiB.
pub fn parse_event_size(s: &str) -> std::result::Result<usize, String> {
    let max = sluice_binlog::compression::MAX_UNCOMPRESSED_LIMIT;
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("expected a number of bytes from 1 to {max}")),
    }
}
