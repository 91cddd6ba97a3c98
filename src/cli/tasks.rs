//! `amail tasks`: the task board by AOF status, one agent's mailbox
//! (`--agent`), and the commands a person gives the store: `depend`,
//! `approve`, `reject`. Every one works on the store the user named
//! (`--store`, else the default) and never creates one.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::table::{Align, Table};
use super::{CliError, CliResult};
use amail_core::aof::TaskStatus;
use amail_core::router::{deps, review, Store, TaskSummary};
use amail_core::safe_text::clean_line;
use amail_parser::near::{did_you_mean, nearest_id, nearest_name};

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  amail tasks --store ./store\n  amail tasks --json | jq '.[] | select(.status == \"review\")'\n  amail tasks --agent GreenCastle\n  amail tasks depend TASK-B --on TASK-A\n  amail tasks approve TASK-A\n  amail tasks reject TASK-A --reason \"tests fail on CI\""
)]
pub struct TasksArgs {
    /// AOF project root (default: the store under the amail data dir); it
    /// must exist (only `amail route` creates one).
    #[arg(long, value_name = "DIR", global = true)]
    pub store: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Show one agent's mailbox (AOF's view): inbox = ready, processing =
    /// in-progress and blocked, outbox = review. The owner of a task is its
    /// lease agent, else its routing agent, else `metadata.assignee`.
    #[arg(long, value_name = "NAME", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub agent: Option<String>,
    #[command(subcommand)]
    pub cmd: Option<TasksCmd>,
}

#[derive(Debug, Subcommand)]
pub enum TasksCmd {
    /// Make TASK wait for another task (AOF's `dependsOn`); a cycle is refused.
    Depend {
        #[arg(value_parser = clap::builder::NonEmptyStringValueParser::new())]
        task: String,
        /// The task TASK waits for.
        #[arg(long, value_name = "TASK", value_parser = clap::builder::NonEmptyStringValueParser::new())]
        on: String,
        /// Who is asking (the event's actor).
        #[arg(long, value_name = "NAME", default_value = "human", value_parser = clap::builder::NonEmptyStringValueParser::new())]
        actor: String,
    },
    /// Accept a task in review: review -> done, which promotes the tasks
    /// that were waiting only for it.
    Approve {
        #[arg(value_parser = clap::builder::NonEmptyStringValueParser::new())]
        task: String,
        #[arg(long, value_name = "NAME", default_value = "human", value_parser = clap::builder::NonEmptyStringValueParser::new())]
        actor: String,
    },
    /// Send a task in review back to work: review -> in-progress, the
    /// reason in its Work Log.
    Reject {
        #[arg(value_parser = clap::builder::NonEmptyStringValueParser::new())]
        task: String,
        #[arg(long, value_name = "TEXT")]
        reason: String,
        #[arg(long, value_name = "NAME", default_value = "human", value_parser = clap::builder::NonEmptyStringValueParser::new())]
        actor: String,
    },
}

pub fn run(args: TasksArgs) -> CliResult {
    let root = args.store.clone().unwrap_or_else(super::default_store);
    let store = super::open_store(&root)?;
    match args.cmd {
        Some(cmd) => command(&store, args.store.as_deref(), cmd, args.json),
        None => match &args.agent {
            Some(agent) => mailbox(&store, agent, args.json),
            None => board(&store, &root, args.json),
        },
    }
}

/// `named`: the store as the user named it (`None`: the default), for the
/// command an unknown task id's error names.
fn command(store: &Store, named: Option<&Path>, cmd: TasksCmd, json: bool) -> CliResult {
    let (id, said, extra) = match cmd {
        TasksCmd::Depend { task, on, actor } => {
            let added = deps::add(store, &task, &on, &actor).map_err(|e| match e {
                deps::DependError::NotFound(id) => no_task(store, named, &id),
                e => CliError::bad_input(e.to_string()),
            })?;
            let said = if added {
                format!("{task} now depends on {on}")
            } else {
                format!("{task} already depends on {on}")
            };
            (
                task,
                said,
                serde_json::json!({ "depends_on": on, "added": added }),
            )
        }
        TasksCmd::Approve { task, actor } => {
            let done = review::approve(store, &task, &actor).map_err(|e| match e {
                review::ReviewError::NotFound(id) => no_task(store, named, &id),
                e => CliError::bad_input(e.to_string()),
            })?;
            let mut said = format!("{task}: review -> done");
            if !done.promoted.is_empty() {
                said.push_str(&format!("; ready now: {}", done.promoted.join(", ")));
            }
            (
                task,
                said,
                serde_json::json!({ "status": "done", "promoted": done.promoted }),
            )
        }
        TasksCmd::Reject {
            task,
            reason,
            actor,
        } => {
            review::reject(store, &task, &reason, &actor).map_err(|e| match e {
                // A request the command cannot make, as an empty reply
                // body is: usage.
                review::ReviewError::NoReason => CliError::usage(e.to_string()),
                review::ReviewError::NotFound(id) => no_task(store, named, &id),
                e => CliError::bad_input(e.to_string()),
            })?;
            (
                task.clone(),
                format!("{task}: review -> in-progress"),
                serde_json::json!({ "status": "in-progress" }),
            )
        }
    };
    if json {
        // `task_id`, as the board (`tasks --json`) names a task.
        let mut v = extra;
        v["task_id"] = serde_json::json!(id);
        crate::outln!("{v}");
    } else {
        crate::outln!("{}", clean_line(&said));
    }
    Ok(ExitCode::SUCCESS)
}

/// A task id the store does not hold, named with the one id of the
/// store it is a slip from and the command that lists them, as `events
/// --task` names them.
fn no_task(store: &Store, named: Option<&Path>, id: &str) -> CliError {
    let tasks = store.board_of().map(|b| b.tasks).unwrap_or_default();
    let near = did_you_mean(nearest_id(id, tasks.iter().map(|t| t.id.as_str())));
    CliError::bad_input(format!(
        "no task {}{} in the store (`{}` lists the task ids)",
        clean_line(id),
        clean_line(&near),
        clean_line(&super::tasks_lister(named))
    ))
}

/// The task files a listing skipped, one warning each.
fn warn_skipped(problems: &[String]) {
    for problem in problems {
        crate::errln!(
            "amail: warning: {}; skipped (see `amail doctor`)",
            clean_line(problem)
        );
    }
}

/// Groups of tasks under their headings (`ready (4)`), every row of every
/// group lined up in one table by display width (a bead can be a UUID,
/// an agent's name CJK), as `threads` and `pending` are; `extra` adds a
/// last column.
fn print_groups(groups: &[(String, Vec<&TaskSummary>)], extra: impl Fn(&TaskSummary) -> String) {
    let mut table = Table::new(&[Align::Left; 5]);
    for (_, tasks) in groups {
        for t in tasks {
            table.push(vec![
                format!("  {}", clean_line(&t.id)),
                clean_line(t.bead.as_deref().unwrap_or("-")).into_owned(),
                clean_line(t.agent.as_deref().unwrap_or("-")).into_owned(),
                super::table::glance(&clean_line(&t.title)),
                extra(t),
            ]);
        }
    }
    let mut lines = table.lines().into_iter();
    for (heading, tasks) in groups {
        crate::outln!("{heading}");
        for line in lines.by_ref().take(tasks.len()) {
            crate::outln!("{}", line.trim_end());
        }
    }
}

fn mailbox(store: &Store, agent: &str, json: bool) -> CliResult {
    let m = store
        .mailbox(agent)
        .map_err(|e| CliError::bad_input(e.to_string()))?;
    warn_skipped(&m.skipped);
    if m.inbox.is_empty() && m.processing.is_empty() && m.outbox.is_empty() {
        warn_unknown_agent(store, agent);
    }
    if json {
        crate::outln!("{}", serde_json::to_string_pretty(&m).unwrap_or_default());
        return Ok(ExitCode::SUCCESS);
    }
    crate::outln!("{}", clean_line(agent));
    let groups: Vec<(String, Vec<&TaskSummary>)> = [
        ("inbox", &m.inbox),
        ("processing", &m.processing),
        ("outbox", &m.outbox),
    ]
    .into_iter()
    .map(|(name, queue)| (format!("{name} ({})", queue.len()), queue.iter().collect()))
    .collect();
    print_groups(&groups, |t| t.status.to_string());
    Ok(ExitCode::SUCCESS)
}

/// Empty queues for a name no task in the store knows are most likely a
/// mistyped name, not an idle agent: said on stderr (as the inbox says
/// of an `--as` it does not know), with the names the store does know.
fn warn_unknown_agent(store: &Store, agent: &str) {
    let Ok(board) = store.board_of() else { return };
    let mut known: Vec<&str> = board
        .tasks
        .iter()
        .filter_map(|t| t.agent.as_deref())
        .collect();
    if known.contains(&agent) {
        return;
    }
    known.sort_unstable();
    known.dedup();
    // Case counted: the store's names are matched exactly.
    let near = did_you_mean(nearest_name(agent, known.iter().copied(), false));
    let known = if known.is_empty() {
        "none".to_string()
    } else {
        known.join(", ")
    };
    crate::errln!(
        "amail: warning: no task in the store is leased or routed to {}{}, so its queues are empty (agents: {})",
        clean_line(agent),
        clean_line(&near),
        clean_line(&known)
    );
}

fn board(store: &Store, root: &Path, json: bool) -> CliResult {
    // The tasks and the files skipped, in one pass over the task files.
    let board = store
        .board_of()
        .map_err(|e| CliError::bad_input(e.to_string()))?;
    warn_skipped(&board.skipped);
    let tasks = board.tasks;
    if json {
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
    let groups: Vec<(String, Vec<&TaskSummary>)> = TaskStatus::ALL
        .into_iter()
        .map(|s| {
            (
                s,
                tasks.iter().filter(|t| t.status == s).collect::<Vec<_>>(),
            )
        })
        .filter(|(_, col)| !col.is_empty())
        .map(|(s, col)| (format!("{s} ({})", col.len()), col))
        .collect();
    print_groups(&groups, |_| String::new());
    Ok(ExitCode::SUCCESS)
}
