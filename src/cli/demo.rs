//! `amail demo [DIR]`: write a realistic sample mailbox.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{amail_home, CliError, CliResult};
use crate::inbox::{corpus, demo};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  amail demo\n  amail demo /tmp/amail-demo && amail threads /tmp/amail-demo/mail"
)]
pub struct DemoArgs {
    /// Where to write (`DIR/mail`, and `DIR/store` for the task store).
    /// Default: a fresh folder under the amail data dir.
    pub dir: Option<PathBuf>,
    /// Write a benchmark corpus of N messages into `DIR/mail` instead
    /// (every type, demo-sized threads, some large bodies; nothing routed).
    #[arg(long, value_name = "N")]
    pub messages: Option<usize>,
    /// With --messages: also write `DIR/big.md`, one message with a body of
    /// about this many bytes (e.g. 10800000).
    #[arg(long, value_name = "BYTES", requires = "messages")]
    pub big_body: Option<usize>,
}

pub fn run(args: DemoArgs) -> CliResult {
    let dir = match args.dir {
        Some(d) => d,
        None => fresh_dir()?,
    };
    if let Some(n) = args.messages {
        return corpus(&dir, n, args.big_body);
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
    crate::outln!("  amail threads {}", info.mailbox.display());
    crate::outln!("  amail pending {} --as BlueLake", info.mailbox.display());
    crate::outln!("  amail inbox {} --as BlueLake", info.mailbox.display());
    crate::outln!("  amail tasks --store {}", info.store.display());
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
    if let Some(bytes) = big {
        let path = dir.join("big.md");
        std::fs::write(&path, corpus::big_message(bytes))
            .map_err(|e| CliError::bad_input(format!("{}: cannot write: {e}", path.display())))?;
        crate::outln!("  big body: {}", path.display());
    }
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
