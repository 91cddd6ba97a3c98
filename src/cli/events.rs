//! `amail events`: the event log.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{CliError, CliResult};
use amail_core::router::events;
use amail_core::safe_text::clean_line;

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  amail events --store ./store --type task.transitioned\n  amail events --json --task TASK-2026-11-22-D4j2t7Vy"
)]
pub struct EventsArgs {
    /// AOF project root (default: the store under the amail data dir); it
    /// must exist (only `amail route` creates one).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// Print the events as JSON Lines, in AOF's line format.
    #[arg(long)]
    pub json: bool,
    /// Only events of this task.
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
    /// Only events of this type (e.g. task.transitioned).
    #[arg(long = "type", value_name = "TYPE")]
    pub kind: Option<String>,
}

pub fn run(args: EventsArgs) -> CliResult {
    let root = args.store.unwrap_or_else(super::default_store);
    let store = super::open_store(&root)?;
    let dir = store.root().join("events");
    let (all, bad) = events::read_all(&dir)
        .map_err(|e| CliError::bad_input(format!("{}: {e}", dir.display())))?;
    for e in all.iter().filter(|e| {
        args.task
            .as_ref()
            .is_none_or(|t| e.task_id.as_ref() == Some(t))
            && args.kind.as_ref().is_none_or(|k| &e.kind == k)
    }) {
        if args.json {
            crate::outln!("{}", serde_json::to_string(e).unwrap_or_default());
        } else {
            crate::outln!(
                "{:>5} {} {:<26} {:<14} {} {}",
                e.event_id,
                clean_line(&e.timestamp),
                clean_line(&e.kind),
                clean_line(&e.actor),
                clean_line(e.task_id.as_deref().unwrap_or("-")),
                clean_line(&e.payload.to_string())
            );
        }
    }
    if bad > 0 {
        crate::errln!(
            "amail: skipped {bad} line(s) that are not events; run `amail doctor` to check the log"
        );
    }
    Ok(ExitCode::SUCCESS)
}
