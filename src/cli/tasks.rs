//! `amail tasks`: the task board, by AOF status.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{CliError, CliResult};
use amail_core::aof::TaskStatus;
use amail_core::safe_text::clean_line;

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  amail tasks --store ./store\n  amail tasks --json | jq '.[] | select(.status == \"review\")'"
)]
pub struct TasksArgs {
    /// AOF project root (default: the store under the amail data dir); it
    /// must exist (only `amail route` creates one).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// Print a JSON array of tasks instead of the board.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: TasksArgs) -> CliResult {
    let root = args.store.unwrap_or_else(super::default_store);
    let store = super::open_store(&root)?;
    let tasks = store
        .list()
        .map_err(|e| CliError::bad_input(e.to_string()))?;
    for (path, why) in store.unreadable_tasks() {
        eprintln!(
            "amail: warning: {}: {}; skipped (see `amail doctor`)",
            clean_line(&path.display().to_string()),
            clean_line(&why)
        );
    }
    if args.json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&tasks).unwrap_or_default()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if tasks.is_empty() {
        crate::outln!("no tasks in {}", root.display());
        return Ok(ExitCode::SUCCESS);
    }
    for s in TaskStatus::ALL {
        let col: Vec<_> = tasks.iter().filter(|t| t.status == s).collect();
        if col.is_empty() {
            continue;
        }
        crate::outln!("{s} ({})", col.len());
        for t in col {
            crate::outln!(
                "  {}  {:<12} {:<14} {}",
                clean_line(&t.id),
                clean_line(t.bead.as_deref().unwrap_or("-")),
                clean_line(t.agent.as_deref().unwrap_or("-")),
                clean_line(&t.title)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
