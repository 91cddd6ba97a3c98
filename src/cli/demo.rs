//! `amail demo [DIR]`: write a realistic sample mailbox.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::{amail_home, CliError, CliResult};
use amail::demo::{corpus, mailbox as demo};
use amail_core::safe_text::shell_arg;

/// How `--messages` writes its corpus.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum CorpusFormat {
    /// A plain mailbox `DIR/mail`: one file a message, a folder per sender.
    #[default]
    Plain,
    /// An mcp_agent_mail storage root as the server writes it:
    /// `DIR/archive` and its database `DIR/storage.sqlite3`.
    Mcp,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  amail demo\n  amail demo /tmp/amail-demo && amail threads /tmp/amail-demo/mail\n  amail demo --messages 100000 DIR\n  amail demo --messages 100000 --format mcp DIR && amail inbox DIR --as BlueLake"
)]
pub struct DemoArgs {
    /// Where to write (`DIR/mail`, and `DIR/store` for the task store;
    /// with --messages, no store). Default: a fresh folder under the
    /// amail data dir.
    pub dir: Option<PathBuf>,
    /// Write a benchmark corpus of N messages into `DIR/mail` instead
    /// (every type, demo-sized threads, some large bodies; nothing routed,
    /// so no task store).
    #[arg(long, value_name = "N")]
    pub messages: Option<usize>,
    /// With --messages: also write `DIR/big.md` (plain), or `DIR/big/`, a
    /// storage root (mcp), holding one message with a body of about this
    /// many bytes (e.g. 10800000).
    #[arg(long, value_name = "BYTES", requires = "messages")]
    pub big_body: Option<usize>,
    /// With --messages: write the corpus as a plain mailbox or as an
    /// mcp_agent_mail storage root with its SQLite database.
    #[arg(long, value_enum, default_value_t, requires = "messages")]
    pub format: CorpusFormat,
}

pub fn run(args: DemoArgs) -> CliResult {
    let dir = match args.dir {
        Some(d) => d,
        None => fresh_dir()?,
    };
    // Said before anything is tried: writing under a file failed with the
    // system's words about a path inside it ("DIR/mail/GreenCastle: Not
    // a directory (os error 20)").
    if dir.exists() && !dir.is_dir() {
        return Err(CliError::bad_input(format!(
            "{}: a file, not a folder; the demo writes into a new or empty folder",
            amail_core::safe_text::clean_line(&dir.display().to_string())
        )));
    }
    if let Some(n) = args.messages {
        // The big body's place is checked with the rest, before the
        // corpus is written: it went over a `big.md` already there, and
        // a `big/` holding a database was refused after the corpus.
        if args.big_body.is_some() {
            let fresh = match args.format {
                CorpusFormat::Plain => match dir.join("big.md") {
                    big if big.exists() => Err(format!("{}: already there", big.display())),
                    _ => Ok(()),
                },
                CorpusFormat::Mcp => {
                    corpus::mcp::fresh(&dir.join("big")).map_err(|e| e.to_string())
                }
            };
            fresh.map_err(|e| {
                CliError::bad_input(format!(
                    "{}; the big body goes into a new file; nothing was written",
                    amail_core::safe_text::clean_line(&e)
                ))
            })?;
        }
        return match args.format {
            CorpusFormat::Plain => corpus(&dir, n, args.big_body),
            CorpusFormat::Mcp => mcp_corpus(&dir, n, args.big_body),
        };
    }
    let info = demo::write_demo(&dir).map_err(|e| {
        CliError::bad_input(format!("{}: cannot write the demo: {e}", dir.display()))
    })?;
    crate::outln!(
        "wrote a demo mailbox: {} messages from {} agents on {} beads",
        info.messages,
        info.agents.len(),
        info.beads.len()
    );
    crate::outln!("  mailbox: {}", info.mailbox.display());
    crate::outln!("  store:   {}", info.store.display());
    crate::outln!("try:");
    let (mailbox, store) = (shell_arg(&info.mailbox), shell_arg(&info.store));
    crate::outln!("  amail threads {mailbox}");
    crate::outln!("  amail pending {mailbox} --as BlueLake");
    crate::outln!("  amail inbox {mailbox} --as BlueLake");
    crate::outln!("  amail tasks --store {store}");
    Ok(ExitCode::SUCCESS)
}

/// `amail demo --messages N DIR`: a benchmark corpus.
fn corpus(dir: &std::path::Path, n: usize, big: Option<usize>) -> CliResult {
    let info = corpus::write_corpus(&dir.join("mail"), n, chrono::Utc::now()).map_err(|e| {
        CliError::bad_input(format!("{}: cannot write the corpus: {e}", dir.display()))
    })?;
    crate::outln!(
        "wrote a corpus: {} messages, {} bytes, {} large bodies\n  mailbox: {}",
        info.messages,
        info.bytes,
        info.large,
        info.mailbox.display()
    );
    // A corpus is not routed (a million messages would take a
    // millisecond each, fsynced; the benchmarks route one into a store of
    // their own): said, with the command that makes the store the inbox
    // over this mailbox would show, since `amail demo DIR` makes one.
    crate::outln!(
        "  store:   no task store (a corpus is not routed); `amail route {} --store {}` makes one",
        shell_arg(&info.mailbox),
        shell_arg(&dir.join("store"))
    );
    if let Some(bytes) = big {
        let path = dir.join("big.md");
        amail_core::fsio::write_new(&path, corpus::big_message(bytes).as_bytes()).map_err(|e| {
            CliError::bad_input(format!(
                "{}: cannot write: {}",
                path.display(),
                amail_core::fsio::reason(&e.source)
            ))
        })?;
        crate::outln!("  big body: {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `amail demo --messages N --format mcp DIR`: the corpus as a storage
/// root (`DIR/archive` + `DIR/storage.sqlite3`).
fn mcp_corpus(dir: &std::path::Path, n: usize, big: Option<usize>) -> CliResult {
    let now = chrono::Utc::now();
    let info = corpus::mcp::write_mcp_corpus(dir, n, now).map_err(|e| {
        CliError::bad_input(format!("{}: cannot write the corpus: {e}", dir.display()))
    })?;
    crate::outln!(
        "wrote an mcp_agent_mail corpus: {} messages from {} agents, {} archive files, {} bytes, {} large bodies",
        info.messages,
        info.agents,
        info.files,
        info.bytes,
        info.large
    );
    crate::outln!("  storage root: {}", info.archive.display());
    crate::outln!("  database:     {}", info.db.display());
    crate::outln!("  store:        no task store (a corpus is not routed)");
    if let Some(bytes) = big {
        // Its own store, as the plain form's big.md is its own file.
        let big_dir = dir.join("big");
        corpus::mcp::write_store(&big_dir, &[corpus::big_mail(bytes, now)]).map_err(|e| {
            CliError::bad_input(format!("{}: cannot write: {e}", big_dir.display()))
        })?;
        crate::outln!(
            "  big body:     {} (a storage root with one message)",
            big_dir.display()
        );
    }
    crate::outln!("try:");
    crate::outln!("  amail inbox {} --as BlueLake", shell_arg(dir));
    Ok(ExitCode::SUCCESS)
}

/// `<home>/demo-YYYYmmdd-HHMMSS`, with a suffix if that exists already.
fn fresh_dir() -> Result<PathBuf, CliError> {
    let base = amail_home().join(format!(
        "demo-{}",
        chrono::Utc::now().format("%Y%m%d-%H%M%S")
    ));
    let mut dir = base.clone();
    let mut n = 2;
    while dir.exists() {
        dir = PathBuf::from(format!("{}-{n}", base.display()));
        n += 1;
    }
    Ok(dir)
}
