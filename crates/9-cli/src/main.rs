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

fn main() -> ExitCode {
    sluice_server::keep_freed_memory();
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
