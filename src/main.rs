//! The `amail` binary: clap definitions and dispatch only.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "amail", version, about = "Terminal inbox, parser and AOF router for Agent Mail")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The terminal inbox: threads, pending acks, tasks and agents.
    Inbox(amail::cli::inbox::InboxArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: amail::cli::CliResult = match cli.command {
        Command::Inbox(args) => amail::cli::inbox::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("amail: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}
