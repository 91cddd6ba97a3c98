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
    #[arg(long, value_name = "ID", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub task: Option<String>,
    /// Only events of this type (e.g. task.transitioned). A type or task
    /// with no event in the log is a warning naming the types it holds.
    #[arg(long = "type", value_name = "TYPE", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub kind: Option<String>,
}

/// How many lines that are not events are named one by one: a day file
/// overwritten with something else is thousands, which the count sums up.
const NAMED: usize = 10;

pub fn run(args: EventsArgs) -> CliResult {
    let named = args.store.clone();
    let root = args.store.unwrap_or_else(super::default_store);
    let store = super::open_store(&root)?;
    let dir = store.root().join("events");
    let (all, bad) = events::read_all(&dir)
        .map_err(|e| CliError::bad_input(format!("{}: {e}", dir.display())))?;
    let mut shown = 0usize;
    for e in all.iter().filter(|e| {
        args.task
            .as_ref()
            .is_none_or(|t| e.task_id.as_ref() == Some(t))
            && args.kind.as_ref().is_none_or(|k| &e.kind == k)
    }) {
        shown += 1;
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
    if shown == 0 && !all.is_empty() {
        let (task, kind) = (args.task.as_deref(), args.kind.as_deref());
        if let Some(note) = matched_nothing(&all, task, kind, named.as_deref()) {
            crate::errln!("amail: warning: {note}");
        }
    }
    if !bad.is_empty() {
        for not in bad.iter().take(NAMED) {
            crate::errln!("amail: warning: {}; skipped", clean_line(&not.to_string()));
        }
        // Not `words::counted`: the clause after the noun agrees too.
        let lines = match bad.len() {
            1 => "line that is not an event",
            _ => "lines that are not events",
        };
        let named = match bad.len() {
            n if n > NAMED => format!(" (the first {NAMED} named above)"),
            _ => String::new(),
        };
        crate::errln!(
            "amail: skipped {} {lines}{named}; run `amail doctor` to check the log",
            bad.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Why a filtered log printed nothing, when a filter did it: each filter
/// that matches no event of the log is named, with what the log holds (a
/// typo, `task.transition`, is then seen at once): a task by the one
/// task id of the log it is a slip from, if any, and the command that
/// lists the task ids of `store` as it was named (`None`: the default).
/// `None` when each matches alone and only the pair matches nothing.
fn matched_nothing(
    all: &[events::Event],
    task: Option<&str>,
    kind: Option<&str>,
    store: Option<&std::path::Path>,
) -> Option<String> {
    let mut notes = Vec::new();
    if let Some(k) = kind.filter(|k| all.iter().all(|e| e.kind != *k)) {
        let mut kinds: Vec<&str> = all.iter().map(|e| e.kind.as_str()).collect();
        kinds.sort_unstable();
        kinds.dedup();
        // A closed set, as message types are: named by `near::nearest`.
        let near = amail_parser::near::did_you_mean(amail_parser::near::nearest(k, &kinds));
        notes.push(format!(
            "no event of type {}{} in the log (types there: {})",
            clean_line(k),
            clean_line(&near),
            clean_line(&kinds.join(", "))
        ));
    }
    if let Some(t) = task.filter(|t| all.iter().all(|e| e.task_id.as_deref() != Some(*t))) {
        let ids = all.iter().filter_map(|e| e.task_id.as_deref());
        let near = amail_parser::near::did_you_mean(amail_parser::near::nearest_id(t, ids));
        let lister = super::tasks_lister(store);
        notes.push(format!(
            "no event of task {}{} in the log (`{}` lists the task ids)",
            clean_line(t),
            clean_line(&near),
            clean_line(&lister)
        ));
    }
    if notes.is_empty() {
        if let (Some(t), Some(k)) = (task, kind) {
            return Some(format!(
                "task {} has no event of type {}",
                clean_line(t),
                clean_line(k)
            ));
        }
        return None;
    }
    Some(notes.join("; "))
}
