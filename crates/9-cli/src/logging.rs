//! Logging of the server commands: `RUST_LOG` (default `info`, with the
//! ZooKeeper client's own connection chatter at `warn`), as text or JSON
//! lines, to stderr or to a daily-rotated file.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use tracing_appender::non_blocking::WorkerGuard;

/// What the log filter is when `RUST_LOG` is not set.
const DEFAULT_FILTER: &str = "info,zookeeper_client=warn";

#[derive(Debug, Clone, Copy, Default, ValueEnum)]
pub enum LogFormat {
    /// One human-readable line per event.
    #[default]
    Text,
    /// One JSON object per event (timestamp, level, message, fields).
    Json,
}

#[derive(Debug, Clone, Default, Args)]
pub struct LogArgs {
    /// Write logs to files in DIR instead of stderr: one a day, named by
    /// its date (sluice.log.2026-12-03).
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,
    /// How log lines are written.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// Installs the log subscriber once (later calls do nothing). Keep the
/// guard until the process ends: it flushes what is buffered for the file.
pub fn init(args: &LogArgs) -> anyhow::Result<Option<WorkerGuard>> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_FILTER));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    let Some(dir) = &args.log_dir else {
        let builder = builder
            .with_writer(std::io::stderr)
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
        let _ = match args.log_format {
            LogFormat::Text => builder.try_init(),
            LogFormat::Json => builder.json().try_init(),
        };
        return Ok(None);
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create the log folder {}: {e}", dir.display()))?;
    let appender = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("sluice.log")
        .build(dir)
        .map_err(|e| anyhow::anyhow!("cannot open a log file in {}: {e}", dir.display()))?;
    // Written on a thread of its own: a slow disk does not hold up the
    // tasks that log.
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let builder = builder.with_writer(writer).with_ansi(false);
    let _ = match args.log_format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
    Ok(Some(guard))
}
