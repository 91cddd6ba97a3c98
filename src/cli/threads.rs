//! `amail threads [SOURCE] [--json]`, and the source handling every inbox
//! command shares.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use super::table::{Align, Table};
use super::{default_mailbox, from_inbox_error, CliError, CliResult};
use amail_core::inbox::{HelpState, Inbox};
use amail_core::safe_text::{clean_line, clean_text};
use amail_core::stores::{self, LoadOptions};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  amail threads\n  amail threads ~/.mcp_agent_mail_git_mailbox_repo --json\n  amail threads ./archive --db ./storage.sqlite3\n  amail threads http://127.0.0.1:8765/mcp/      # a server (as --server URL)\n  cat inbox.json | amail threads -"
)]
pub struct ThreadsArgs {
    /// Mailbox directory, mcp_agent_mail storage root or a server's URL
    /// (as --server URL); "-" reads JSON on stdin.
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
    #[command(flatten)]
    pub limit: super::ReadLimit,
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
        Some(p) if super::names_stdin(p) => stores::load_stdin_as(viewer, max_bytes),
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
        crate::errln!(
            "amail: warning: {}: {}",
            clean_line(&path.display().to_string()),
            clean_text(why)
        );
    }
    Ok(inbox)
}

#[derive(Serialize)]
struct ThreadJson<'a> {
    thread_id: &'a str,
    project: Option<&'a str>,
    bead_id: Option<&'a str>,
    subject: &'a str,
    /// The ids of its messages, oldest first (`amail parse`'s `id`).
    message_ids: Vec<&'a str>,
    last_at: Option<chrono::DateTime<chrono::Utc>>,
    pending: usize,
    help: HelpState,
}

pub fn run(mut args: ThreadsArgs, config: &amail::config::Config) -> CliResult {
    let max_bytes = config.max_bytes;
    args.server
        .take_source(&mut args.source, args.db.as_deref())?;
    let mut inbox = match super::server::open(&args.server, config)? {
        Some(store) => super::server::load(store.as_ref())?,
        None => load_source(args.source.as_deref(), args.db, None, max_bytes)?,
    };
    for w in amail_core::inbox::turn::warnings(&inbox) {
        crate::errln!("amail: warning: {}", clean_line(&w));
    }
    if args.json {
        let out: Vec<ThreadJson> = inbox
            .threads
            .iter()
            .map(|t| ThreadJson {
                thread_id: &t.id,
                project: t.project.as_deref(),
                bead_id: t.bead.as_deref(),
                subject: &t.subject,
                message_ids: t
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
    // id, size, acks owed, newest, its type, what the thread is at now
    // (the newest message's sender and line, as the TUI's list shows it).
    for line in table_of(&mut inbox).lines() {
        crate::outln!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The threads as `amail threads` prints them.
fn table_of(inbox: &mut Inbox) -> Table {
    let mut table = Table::new(&[
        Align::Left,
        Align::Right,
        Align::Right,
        Align::Left,
        Align::Left,
        Align::Left,
    ]);
    for i in 0..inbox.threads.len() {
        let t = &inbox.threads[i];
        let help = match t.help {
            HelpState::None => "",
            HelpState::Unanswered => "  ? help unanswered",
            HelpState::Answered => "  help answered",
        };
        let last = t
            .last_at
            .map(|d| d.format("%Y-%m-%d %H:%M").to_string())
            .unwrap_or_else(|| "-".into());
        let kind = inbox.last_message(t).map_or("NOTE", |m| {
            amail_core::inbox::summary::type_name(&m.message)
        });
        let project = t
            .project
            .map(|p| format!("  [{}]", clean_line(&p)))
            .unwrap_or_default();
        table.push(vec![
            clean_line(&t.id).into_owned(),
            format!("{} msg", t.messages.len()),
            format!("{} pending", t.pending),
            last,
            clean_line(kind).into_owned(),
            format!(
                "{}{help}{project}",
                super::table::glance(&clean_line(&inbox.thread_state(t)))
            ),
        ]);
        // Its line is written: the newest message's parse goes (a million
        // messages held 318,000 of them, 2 GB).
        if let Some(&last) = inbox.threads[i].messages.last() {
            inbox.messages[last].message.let_go();
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread's line reads its newest message through a full parse,
    /// which the record keeps: at a million messages the table held
    /// 318,000 of them (2 GB, against 870 MB for the inbox itself).
    #[test]
    fn the_table_holds_no_parse_of_its_threads() {
        let dir = tempfile::tempdir().unwrap();
        let now = chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2026, 1, 15, 12, 0, 0).unwrap();
        let mail = dir.path().join("mail");
        amail::demo::corpus::write_corpus(&mail, 300, now).unwrap();
        let mut inbox = amail_core::stores::load(&mail, &Default::default()).unwrap();
        let rows = table_of(&mut inbox).lines().len();
        assert_eq!(rows, inbox.threads.len());
        let held = inbox
            .messages
            .iter()
            .filter(|m| m.message.full_if_held().is_some())
            .count();
        assert_eq!(
            held,
            0,
            "{held} of {} threads' parses held",
            inbox.threads.len()
        );
    }
}
