//! `amail reply ID [SOURCE] --as AGENT [--body TEXT]`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::ack::source_kind;
use super::from_inbox_error;
use super::{CliError, CliResult};
use amail_core::safe_text::{clean_line, shell_arg};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  amail reply 5 ~/.mcp_agent_mail_git_mailbox_repo --as BlueLake --body 'Keep the index.'\n  echo 'Use the v2 API.' | amail reply help-1 ./mail --as Chiron\n  amail reply 42 http://127.0.0.1:8765/mcp/ --as BlueLake --body 'Keep the index.'"
)]
pub struct ReplyArgs {
    /// The message to answer (as `amail threads --json` / `amail pending` print it).
    #[arg(value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub id: String,
    /// Mailbox directory, mcp_agent_mail storage root or a server's URL (as
    /// --server URL); default: the amail mailbox. It may come before the
    /// ID too, as `amail threads SOURCE` takes it.
    pub source: Option<PathBuf>,
    /// Who answers: a sender or recipient of the message (answering your
    /// own message writes to its recipients).
    #[arg(long = "as", value_name = "AGENT", required = true, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub as_agent: String,
    /// The answer; read from stdin when absent or `-` (a body read from
    /// stdin whose reply fails is kept in DATA_DIR/drafts/, and named).
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

pub fn run(mut args: ReplyArgs, config: &amail::config::Config) -> CliResult {
    let max_bytes = config.max_bytes;
    // An existing directory or a URL is never an id: the SOURCE came
    // first, as `threads SOURCE` takes it, or the id was left out.
    if super::ack::names_source(Path::new(&args.id)) {
        let first = PathBuf::from(&args.id);
        match args.source.take() {
            Some(id) if !super::ack::names_source(&id) => {
                args.id = id.to_string_lossy().into_owned();
                args.source = Some(first);
            }
            _ => {
                return Err(CliError::usage(format!(
                    "{}: a {}, and no message id to answer: `amail reply ID {} --as AGENT`",
                    clean_line(&args.id),
                    super::ack::source_word(&first),
                    shell_arg(&first)
                )));
            }
        }
    }
    args.server
        .take_source(&mut args.source, args.db.as_deref())?;
    // The source first: a mistyped one fails before stdin is read.
    let mut server = super::server::open(&args.server, config)?;
    let kind = match server {
        Some(_) => None,
        None => Some(source_kind(args.source.clone(), args.db.clone())?),
    };
    // A storage root whose config names its server writes through it.
    if let Some(kind) = &kind {
        server = super::ack::through(args.source.as_deref(), kind, &args.server, config)?;
    }
    // `-` names stdin, as everywhere amail takes input.
    let from_stdin = args.body.as_deref().is_none_or(|b| b == "-");
    let body = match args.body.filter(|b| b != "-") {
        Some(b) => b,
        None => {
            say_reading_reply();
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).map_err(|e| {
                let e = amail_core::fsio::stdin_error(e, "give --body TEXT, or redirect a file");
                CliError::bad_input(format!("<stdin>: cannot read the reply body: {e}"))
            })?;
            s
        }
    };
    let out = match (&server, &kind) {
        (Some(store), _) => store.reply(None, &args.id, &args.as_agent, &body, chrono::Utc::now()),
        (None, Some(kind)) => super::ack::store_as_named(
            args.source.as_deref(),
            args.db,
            kind,
            max_bytes,
        )
        .reply(None, &args.id, &args.as_agent, &body, chrono::Utc::now()),
        (None, None) => unreachable!("a source or a server"),
    }
    .map_err(from_inbox_error)
    .map_err(|e| {
        if from_stdin {
            keep_unsent(e, &args.id, &body, &super::amail_home())
        } else {
            e
        }
    })?;
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

/// Says on stderr that the answer is read from the terminal: without it,
/// `amail reply ID --as AGENT` sat silent, waiting.
fn say_reading_reply() {
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() {
        crate::errln!(
            "amail: type the reply, then Ctrl-D on a line of its own to send it (Ctrl-C to quit)"
        );
    }
}

/// `e`, the reply's failure, with the body read from stdin kept in a file
/// under `home`'s `drafts/` that the error names, to send again from it:
/// an answer typed on the terminal (or piped from a program's output) has
/// no other copy, and a server that went away, an unknown id or a locked
/// database lost it. A body given with --body is on the command line
/// still; an empty one is no loss. When no draft can be written, the
/// text itself ends the error.
fn keep_unsent(mut e: CliError, id: &str, body: &str, home: &std::path::Path) -> CliError {
    if body.trim().is_empty() {
        return e;
    }
    // The id as a file name: the server's slug, as reply files are named.
    let name = format!(
        "reply-{}-{}.md",
        amail_core::stores::names::subject_slug(id),
        chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ")
    );
    let path = home.join("drafts").join(name);
    let written = amail_core::fsio::write_new(&path, body.as_bytes()).map_err(std::io::Error::from);
    let path = clean_line(&path.display().to_string()).into_owned();
    match written {
        Ok(()) => e.message.push_str(&format!(
            "; the reply's text is kept in {path}: to send it again, run the same `amail reply` \
             with `< {path}`"
        )),
        // Nowhere to keep it: the text goes back to the user on stderr,
        // the one copy left, rather than being dropped.
        Err(err) => e.message.push_str(&format!(
            "; keeping the reply's text in {path} failed too ({}), so here it is, \
             everything below this line:\n{}",
            amail_core::fsio::reason(&err),
            body.trim_end_matches('\n')
        )),
    }
    e
}
