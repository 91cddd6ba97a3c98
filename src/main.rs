//! The `amail` binary: clap definitions and dispatch only.

// Output goes through `outln!` and `errln!` (`cli/mod.rs`), which never
// panic on a stream that cannot be written.
#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod allocator;
mod cli;
mod mapped;

#[derive(Parser)]
#[command(
    name = "amail",
    version,
    about = "Terminal inbox, parser and AOF router for Agent Mail"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Each subcommand's arguments are built only when it is the one run:
// building all of them (clap's command tree) was about a fifth of the
// instructions of `amail parse` on a small file.
#[derive(Subcommand)]
#[command(defer = true)]
enum Command {
    /// The terminal inbox: threads, pending acks, tasks and agents.
    Inbox(cli::inbox::InboxArgs),
    /// Parse Agent Mail files, directories or stdin into JSON or text.
    Parse(cli::parse::ParseArgs),
    /// Parse mail, bridge it to AOF/1 events and route them into the task store.
    Route(cli::route::RouteArgs),
    /// Show the task board by AOF status.
    Tasks(cli::tasks::TasksArgs),
    /// Show the store's event log.
    Events(cli::events::EventsArgs),
    /// Apply session-end results and recover tasks with stale heartbeats.
    Sweep(cli::sweep::SweepArgs),
    /// Check the task store and heal what can be healed.
    Doctor(cli::doctor::DoctorArgs),
    /// Threads of a mailbox, mcp_agent_mail store or server, most recent first.
    Threads(cli::threads::ThreadsArgs),
    /// Messages waiting for an acknowledgement, per recipient (files or a server).
    Pending(cli::pending::PendingArgs),
    /// Acknowledge messages as a recipient.
    Ack(cli::ack::AckArgs),
    /// Answer a message in its thread (a HELP_RESPONSE to a help request).
    Reply(cli::reply::ReplyArgs),
    /// Write a realistic sample mailbox to try.
    Demo(cli::demo::DemoArgs),
}

fn main() -> ExitCode {
    allocator::tune();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(mut e) => {
            let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
            cli::store_tip(&mut e, &args);
            return clap_exit(&e);
        }
    };
    // The one place the size limit is decided; everything below gets it
    // as a value.
    let max_size = match &cli.command {
        Command::Inbox(a) => a.limit.max_size.as_deref(),
        Command::Parse(a) => a.limit.max_size.as_deref(),
        Command::Route(a) => a.limit.max_size.as_deref(),
        Command::Threads(a) => a.limit.max_size.as_deref(),
        Command::Pending(a) => a.limit.max_size.as_deref(),
        Command::Ack(a) => a.limit.max_size.as_deref(),
        Command::Reply(a) => a.limit.max_size.as_deref(),
        Command::Tasks(_)
        | Command::Events(_)
        | Command::Sweep(_)
        | Command::Doctor(_)
        | Command::Demo(_) => None,
    };
    let config = match amail::config::Config::load(max_size) {
        Ok(c) => c,
        Err(e) => {
            crate::errln!("amail: {e}");
            return ExitCode::from(2);
        }
    };
    // Every command, as cargo warns of an unused manifest key on every
    // run: a typo in the config file is found when it first misleads.
    // The inbox shows them on its screen too (`Config::ui_config`).
    for w in &config.warnings {
        crate::errln!("amail: warning: {}", amail_core::safe_text::clean_text(w));
    }
    let max_bytes = config.max_bytes;
    let result: cli::CliResult = match cli.command {
        Command::Inbox(args) => cli::inbox::run(args, &config),
        Command::Parse(args) => cli::parse::run(args, max_bytes),
        Command::Route(a) => cli::route::run(a, max_bytes),
        Command::Tasks(a) => cli::tasks::run(a),
        Command::Events(a) => cli::events::run(a),
        Command::Sweep(a) => cli::sweep::run(a),
        Command::Doctor(a) => cli::doctor::run(a),
        Command::Threads(a) => cli::threads::run(a, &config),
        Command::Pending(a) => cli::pending::run(a, &config),
        Command::Ack(a) => cli::ack::run(a, &config),
        Command::Reply(a) => cli::reply::run(a, &config),
        Command::Demo(a) => cli::demo::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            crate::errln!("amail: {}", amail_core::safe_text::clean_text(&e.message));
            ExitCode::from(e.code)
        }
    }
}

/// What `Cli::parse` does on help, version or a usage error, except that
/// help or a version that cannot be written (`amail --help >/dev/full`)
/// is an error, not success: clap drops the failure of its own print.
/// A closed pipe (`amail --help | head -1`) is still success.
fn clap_exit(e: &clap::Error) -> ExitCode {
    let code = u8::try_from(e.exit_code()).unwrap_or(cli::EXIT_USAGE);
    let shown = e
        .print()
        .and_then(|()| std::io::Write::flush(&mut std::io::stdout()));
    match shown {
        // Help and the version go to stdout; usage errors to stderr,
        // where there is nowhere to say that it failed.
        Err(w) if !e.use_stderr() => cli::exit_on_write_error(w),
        _ => ExitCode::from(code),
    }
}
