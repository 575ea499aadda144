//! The log options of the server commands (see [`sluice_server::logs::init`]).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use sluice_server::logs::{LineFormat, LogGuard};
use sluice_server::{LogFiles, LogLayout};

#[derive(Debug, Clone, Copy, Default, ValueEnum)]
pub enum LogFormat {
    /// One human-readable line per event.
    #[default]
    Text,
    /// One JSON object per event (timestamp, level, message, fields).
    Json,
}

#[derive(Debug, Clone, Copy, Default, ValueEnum)]
pub enum LayoutArg {
    /// DIR/sluice.log.YYYY-MM-DD, one file a day.
    #[default]
    Sluice,
    /// Canal's: DIR/canal/canal.log for the server, DIR/{destination}/{destination}.log
    /// for each destination, rotated daily to {name}-YYYY-MM-DD.log.
    Canal,
}

#[derive(Debug, Clone, Default, Args)]
pub struct LogArgs {
    /// Write logs to files in DIR instead of stderr: one a day, named by
    /// its date (sluice.log.2026-12-03), or as --log-layout says.
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,
    /// How log lines are written.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// How the files of --log-dir are laid out.
    #[arg(long, value_enum, default_value_t = LayoutArg::Sluice, requires = "log_dir")]
    pub log_layout: LayoutArg,
}

impl LogArgs {
    /// Where the log files are (also for the server's canal-admin log requests).
    pub fn files(&self) -> Option<LogFiles> {
        let dir = self.log_dir.as_ref()?;
        Some(LogFiles {
            dir: std::path::absolute(dir).unwrap_or_else(|_| dir.clone()),
            layout: match self.log_layout {
                LayoutArg::Sluice => LogLayout::Sluice,
                LayoutArg::Canal => LogLayout::Canal,
            },
        })
    }
}

/// Installs the log subscriber once (later calls do nothing). Keep the
/// guard until the process ends: it flushes what is buffered for the files.
pub fn init(args: &LogArgs) -> anyhow::Result<LogGuard> {
    let format = match args.log_format {
        LogFormat::Text => LineFormat::Text,
        LogFormat::Json => LineFormat::Json,
    };
    Ok(sluice_server::logs::init(args.files().as_ref(), format)?)
}
