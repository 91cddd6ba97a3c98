//! `amail threads [SOURCE] [--json]`, and the source handling every inbox
//! command shares.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use super::{default_mailbox, CliError, CliResult, EXIT_BAD_INPUT, EXIT_USAGE};
use amail_core::inbox::{HelpState, Inbox};
use amail_core::safe_text::{clean_line, clean_text};
use amail_core::stores::{self, LoadOptions};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  amail threads\n  amail threads ~/.mcp_agent_mail_git_mailbox_repo --json\n  amail threads ./archive --db ./storage.sqlite3\n  cat inbox.json | amail threads -"
)]
pub struct ThreadsArgs {
    /// Mailbox directory or mcp_agent_mail storage root ("-" reads JSON on stdin).
    /// Default: the amail mailbox (`$AMAIL_HOME/mail`).
    pub source: Option<PathBuf>,
    /// The mcp_agent_mail SQLite database, when it is not beside the archive.
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    #[command(flatten)]
    pub server: super::server::ServerArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Loads SOURCE (default mailbox; `-` = stdin) and reports skipped files on
/// stderr, so a bad file never hides the rest.
/// `viewer` (`--as`) is whose inbox piped `fetch_inbox` JSON is.
/// Files (or stdin) over `max_bytes` are skipped as problems.
pub fn load_source(
    source: Option<&Path>,
    db: Option<PathBuf>,
    viewer: Option<&str>,
    max_bytes: u64,
) -> Result<Inbox, CliError> {
    let opts = LoadOptions { db, max_bytes };
    let inbox = match source {
        Some(p) if p == Path::new("-") => stores::load_stdin_as(viewer, max_bytes),
        Some(p) => stores::load(p, &opts),
        None => {
            let p = default_mailbox();
            if !p.exists() {
                return Err(CliError::bad_input(format!(
                    "no mailbox at {} yet: give a SOURCE, or run `amail demo` to write a sample",
                    p.display()
                )));
            }
            stores::load(&p, &opts)
        }
    }
    .map_err(from_inbox_error)?;
    for (path, why) in &inbox.problems {
        eprintln!(
            "amail: warning: {}: {}",
            clean_line(&path.display().to_string()),
            clean_text(why)
        );
    }
    Ok(inbox)
}

/// Exit status of a command that can simply be run again (sysexits'
/// `EX_TEMPFAIL`): the SQLite database was locked by another writer.
pub const EXIT_RETRY: u8 = 75;

/// Store errors as exit codes, as the README lists them: a request the
/// command cannot make (writing to stdin, an empty body) is usage (2);
/// an unknown id, a wrong recipient or an unreadable store is bad input
/// (1).
pub fn from_inbox_error(e: stores::Error) -> CliError {
    CliError {
        // 75 (EX_TEMPFAIL): the database was locked; run it again.
        code: if e.is_retryable() {
            EXIT_RETRY
        } else if e.is_usage() {
            EXIT_USAGE
        } else {
            EXIT_BAD_INPUT
        },
        message: e.to_string(),
    }
}

#[derive(Serialize)]
struct ThreadJson<'a> {
    id: &'a str,
    project: Option<&'a str>,
    bead: Option<&'a str>,
    subject: &'a str,
    messages: Vec<&'a str>,
    last_at: Option<chrono::DateTime<chrono::Utc>>,
    pending: usize,
    help: HelpState,
}

pub fn run(args: ThreadsArgs, max_bytes: u64) -> CliResult {
    let inbox = match super::server::open(&args.server)? {
        Some(store) => super::server::load(store.as_ref())?,
        None => load_source(args.source.as_deref(), args.db, None, max_bytes)?,
    };
    for w in amail_core::inbox::turn::warnings(&inbox) {
        eprintln!("amail: warning: {}", clean_line(&w));
    }
    if args.json {
        let out: Vec<ThreadJson> = inbox
            .threads
            .iter()
            .map(|t| ThreadJson {
                id: &t.id,
                project: t.project.as_deref(),
                bead: t.bead.as_deref(),
                subject: &t.subject,
                messages: t
                    .messages
                    .iter()
                    .map(|&i| inbox.messages[i].key.as_str())
                    .collect(),
                last_at: t.last_at,
                pending: t.pending,
                help: t.help,
            })
            .collect();
        crate::outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return Ok(ExitCode::SUCCESS);
    }
    if inbox.threads.is_empty() {
        crate::outln!("no messages");
    }
    for t in &inbox.threads {
        let help = match t.help {
            HelpState::None => "",
            HelpState::Unanswered => "  ? help unanswered",
            HelpState::Answered => "  help answered",
        };
        let last = t
            .last_at
            .map(|d| d.format("%Y-%m-%d %H:%M").to_string())
            .unwrap_or_else(|| "-".into());
        let project = t
            .project
            .as_deref()
            .map(|p| format!("  [{}]", clean_line(p)))
            .unwrap_or_default();
        crate::outln!(
            "{:<20} {:>3} msg  {:>2} pending  {last}  {}{help}{project}",
            clean_line(&t.id),
            t.messages.len(),
            t.pending,
            clean_line(&t.subject),
        );
    }
    Ok(ExitCode::SUCCESS)
}
