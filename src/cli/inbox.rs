//! `amail inbox [SOURCE] [--as AGENT] [--demo] [--db FILE]`: the TUI.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{CliError, CliResult};
use crate::tui::{self, Backend, EmptyBackend, RunOptions, UiConfig};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  amail inbox --demo\n  amail inbox ~/.mcp_agent_mail_git_mailbox_repo --as BlueLake\n  amail inbox ./mail\n\nKeys: ? in the app lists them; rebind in the config file's [keys] table."
)]
pub struct InboxArgs {
    /// A mailbox directory or an mcp_agent_mail storage root (default: the amail mailbox).
    pub source: Option<PathBuf>,
    /// Act as this agent: whose acks are pending, who acknowledges and replies.
    #[arg(long = "as", value_name = "AGENT")]
    pub as_agent: Option<String>,
    /// Open a fresh demo mailbox (nothing to set up).
    #[arg(long, conflicts_with = "source")]
    pub demo: bool,
    /// The mcp_agent_mail SQLite database, when it is not inside SOURCE.
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
}

pub fn run(args: InboxArgs) -> CliResult {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return Err(CliError::usage(
            "amail inbox needs a terminal; for scripts use `amail threads` or `amail pending`",
        ));
    }
    let config = UiConfig::load(&super::config_path(), tui::config::no_color_env());
    let backend = make_backend(&args)?;
    tui::run(
        backend,
        RunOptions {
            identity: args.as_agent.clone(),
            config,
        },
    )
    .map_err(|e| CliError::bad_input(format!("terminal error: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// >>> REAL BACKEND GOES HERE (lead, at merge) <<<
///
/// - `--demo`: call `inbox::write_demo(tempdir)` and open that directory
///   like any SOURCE. Until `write_demo` exists, the in-memory sample
///   mailbox stands in (acks and replies work, in memory only).
/// - SOURCE / default mailbox: wrap `inbox::load(source, opts)`, the ack
///   and reply writers and `router::Store::list()` in a `tui::Backend`
///   impl; `watch_paths` returns the mailbox dir (or the mcp archive +
///   the SQLite file's directory) and the store dir.
fn make_backend(args: &InboxArgs) -> Result<Box<dyn Backend>, CliError> {
    if args.demo {
        let mut demo = tui::testing::FakeBackend::sample();
        demo.now = chrono::Utc::now();
        let offset = demo.now - tui::testing::fixed_now();
        shift_times(&mut demo, offset);
        return Ok(Box::new(demo));
    }
    let source = args.source.clone().unwrap_or_else(super::default_mailbox);
    Ok(Box::new(EmptyBackend {
        reason: format!(
            "no source yet: reading {} lands with the inbox loader (try --demo)",
            source.display()
        ),
    }))
}

/// Moves the sample's timestamps so ages read as they do in the snapshots.
fn shift_times(b: &mut tui::testing::FakeBackend, by: chrono::Duration) {
    for m in b.inbox.messages.iter_mut() {
        m.message.timestamp = m.message.timestamp.map(|t| t + by);
        for r in m.recipients.iter_mut() {
            r.ack_at = r.ack_at.map(|t| t + by);
            r.read_at = r.read_at.map(|t| t + by);
        }
    }
    for t in b.inbox.threads.iter_mut() {
        t.last_at = t.last_at.map(|x| x + by);
    }
    for a in b.inbox.agents.iter_mut() {
        a.last_at = a.last_at.map(|x| x + by);
    }
    for t in b.tasks.iter_mut() {
        t.updated_at = t.updated_at.map(|x| x + by);
    }
}
