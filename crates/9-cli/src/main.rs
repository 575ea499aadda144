//! The `sluice` command line.

mod admin;
mod decode;
mod logging;
mod release;
mod server;
mod tail;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "sluice",
    version,
    about = "Change data capture for MySQL and MariaDB"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Work with binlog files on disk.
    Binlog {
        #[command(subcommand)]
        command: BinlogCommand,
    },
    /// Follow a live server as a replica; print every committed row change as JSON lines.
    Tail(tail::TailArgs),
    /// Run the destinations of a Canal configuration folder and serve Canal clients.
    Server(server::ServerArgs),
    /// Move a destination off the server that runs it (ZooKeeper cluster): a standby takes it over.
    Release(release::ReleaseArgs),
    /// Inspect and operate a running server through its admin API (sluice.admin.http.port).
    Admin(admin::AdminArgs),
}

#[derive(Subcommand)]
enum BinlogCommand {
    /// Print every event of the given binlog files as one JSON object per line.
    Decode(decode::DecodeArgs),
}

/// Buffers of megabytes (a snapshot chunk's rows and entry, the rows of a
/// large transaction) are allocated and freed all the time, on different
/// threads. glibc's defaults hand such memory back to the kernel, which
/// then faults zeroed pages in for the next buffer: a tenth of a snapshot's
/// CPU. Freed memory is kept for reuse instead; what the process holds
/// stays bounded by what it ever used at once.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; it is called before
    // any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 64 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
    }
}

fn main() -> ExitCode {
    keep_freed_memory();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Binlog {
            command: BinlogCommand::Decode(args),
        } => decode::run(&args),
        Command::Tail(args) => tail::run(&args),
        Command::Server(args) => server::run(&args),
        Command::Release(args) => release::run(&args),
        Command::Admin(args) => admin::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sluice: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
