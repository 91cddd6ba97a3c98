//! `amail pending [SOURCE] [--as AGENT] [--json]`: messages waiting for an ack.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use super::table::{Align, Table};
use super::threads::load_source;
use super::CliResult;
use amail_core::inbox::RecipientKind;
use amail_core::safe_text::clean_line;

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  amail pending --as BlueLake\n  amail pending ~/.mcp_agent_mail_git_mailbox_repo --json\n  amail pending http://127.0.0.1:8765/mcp/ --as BlueLake   # a server\n  amail pending - --as BlueLake < fetch_inbox.json"
)]
pub struct PendingArgs {
    /// Mailbox directory, mcp_agent_mail storage root or a server's URL
    /// (as --server URL); "-" reads JSON on stdin.
    pub source: Option<PathBuf>,
    /// Only this recipient's pending acks (default: every recipient's).
    /// For piped `fetch_inbox` JSON, whose inbox it is (default: `(you)`).
    #[arg(long = "as", value_name = "AGENT", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub as_agent: Option<String>,
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

#[derive(Serialize)]
struct PendingJson<'a> {
    /// The message's id, named as `amail parse` names it.
    id: &'a str,
    agent: &'a str,
    kind: RecipientKind,
    /// The parser's name in JSON; the text table writes `type_name`.
    #[serde(rename = "type")]
    message_type: amail_parser::MessageType,
    /// The type's name as the tables and the TUI show it
    /// ([`amail_core::inbox::summary::type_name`]).
    #[serde(skip)]
    type_name: &'a str,
    subject: &'a str,
    from: Option<&'a str>,
    /// The thread amail files the message under (`threads --json`'s
    /// `thread_id`).
    thread_id: &'a str,
    project: Option<&'a str>,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    importance: &'a str,
    read: bool,
}

pub fn run(mut args: PendingArgs, config: &amail::config::Config) -> CliResult {
    let max_bytes = config.max_bytes;
    args.server
        .take_source(&mut args.source, args.db.as_deref())?;
    let inbox = match super::server::open(&args.server, config)? {
        Some(store) => super::server::load(store.as_ref())?,
        None => load_source(
            args.source.as_deref(),
            args.db,
            args.as_agent.as_deref(),
            max_bytes,
        )?,
    };
    if let Some(a) = args.as_agent.as_deref() {
        if !inbox.agents.is_empty() && inbox.agent_named(a).is_none() {
            let names: Vec<&str> = inbox.agents.iter().map(|a| a.name.as_str()).collect();
            crate::errln!(
                "amail: warning: no agent named {}{} in this inbox (agents: {})",
                clean_line(a),
                clean_line(&amail_parser::near::did_you_mean(inbox.agent_near(a))),
                clean_line(&amail_core::inbox::summary::first_few(&names, 20))
            );
        }
    }
    let pending = inbox.pending(args.as_agent.as_deref());
    let rows: Vec<PendingJson> = pending
        .iter()
        .map(|p| {
            let m = &inbox.messages[p.message];
            let r = m.recipients.iter().find(|r| r.agent == p.agent);
            PendingJson {
                id: &m.key,
                agent: &p.agent,
                kind: r.map(|r| r.kind).unwrap_or(RecipientKind::To),
                message_type: m.message.kind,
                type_name: amail_core::inbox::summary::type_name(&m.message),
                subject: &m.message.subject,
                from: m.message.from.as_deref(),
                thread_id: &inbox.thread_for(m).id,
                project: m.project.as_deref(),
                timestamp: m.message.timestamp,
                importance: &m.message.importance,
                read: r.is_some_and(|r| r.read_at.is_some()),
            }
        })
        .collect();
    if args.json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if rows.is_empty() {
        crate::outln!("nothing pending");
    }
    let mut table = Table::new(&[
        Align::Right,
        Align::Left,
        Align::Left,
        Align::Left,
        Align::Left,
        Align::Left,
    ]);
    for r in &rows {
        let kind = match r.kind {
            RecipientKind::To => "",
            RecipientKind::Cc => " (cc)",
            RecipientKind::Bcc => " (bcc)",
        };
        table.push(vec![
            clean_line(r.id).into_owned(),
            format!("{}{kind}", clean_line(r.agent)),
            clean_line(r.type_name).into_owned(),
            format!("from {}", clean_line(r.from.unwrap_or("?"))),
            format!("thread {}", clean_line(r.thread_id)),
            format!(
                "{}{}",
                super::table::glance(&clean_line(r.subject)),
                if r.read { "" } else { "  [unread]" }
            ),
        ]);
    }
    for line in table.lines() {
        crate::outln!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}
