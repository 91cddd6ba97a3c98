//! `amail reply ID [SOURCE] --as AGENT [--body TEXT]`.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::ack::source_kind;
use super::from_inbox_error;
use super::{CliError, CliResult};
use amail_core::safe_text::clean_line;
use amail_core::stores;

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  amail reply 5 ~/.mcp_agent_mail_git_mailbox_repo --as BlueLake --body 'Keep the index.'\n  echo 'Use the v2 API.' | amail reply help-1 ./mail --as Chiron"
)]
pub struct ReplyArgs {
    /// The message to answer (as `amail threads --json` / `amail pending` print it).
    pub id: String,
    /// Mailbox directory or mcp_agent_mail storage root (default: the amail mailbox).
    pub source: Option<PathBuf>,
    /// Who answers: a sender or recipient of the message (answering your
    /// own message writes to its recipients).
    #[arg(long = "as", value_name = "AGENT", required = true)]
    pub as_agent: String,
    /// The answer; read from stdin when absent or `-`.
    #[arg(long, value_name = "TEXT")]
    pub body: Option<String>,
    /// The mcp_agent_mail SQLite database, when it is not beside the archive.
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    #[command(flatten)]
    pub server: super::server::ServerArgs,
    #[command(flatten)]
    pub limit: super::ReadLimit,
}

pub fn run(args: ReplyArgs, config: &amail::config::Config) -> CliResult {
    let max_bytes = config.max_bytes;
    // The source first: a mistyped one fails before stdin is read.
    let mut server = super::server::open(&args.server, config)?;
    let kind = match server {
        Some(_) => None,
        None => Some(source_kind(args.source.clone(), args.db)?),
    };
    // A storage root whose config names its server writes through it.
    if let Some(kind) = &kind {
        server = super::ack::through(args.source.as_deref(), kind, &args.server, config)?;
    }
    // `-` names stdin, as everywhere amail takes input.
    let body = match args.body.filter(|b| b != "-") {
        Some(b) => b,
        None => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).map_err(|e| {
                CliError::bad_input(format!("<stdin>: cannot read the reply body: {e}"))
            })?;
            s
        }
    };
    let out = match (&server, &kind) {
        (Some(store), _) => store.reply(None, &args.id, &args.as_agent, &body, chrono::Utc::now()),
        (None, Some(kind)) => stores::reply(kind, &args.id, &args.as_agent, &body, max_bytes),
        (None, None) => unreachable!("a source or a server"),
    }
    .map_err(from_inbox_error)?;
    crate::outln!(
        "replied to {} as {}: message {} \"{}\" to {} in thread {}{}",
        clean_line(&args.id),
        clean_line(&out.from),
        clean_line(&out.key),
        clean_line(&out.subject),
        clean_line(&out.to.join(", ")),
        clean_line(&out.thread),
        if out.committed { " (committed)" } else { "" }
    );
    for p in &out.paths {
        crate::outln!("  wrote {}", clean_line(&p.display().to_string()));
    }
    Ok(ExitCode::SUCCESS)
}
