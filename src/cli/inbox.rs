//! `amail inbox [SOURCE] [--as AGENT] [--store DIR] [--demo] [--db FILE]`: the TUI.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{CliError, CliResult};
use amail::backend::RealBackend;
use amail_core::stores::{LoadOptions, StdinStore};
use amail_tui::{Backend, RunOptions};

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  amail inbox --demo\n  amail inbox --demo --fresh\n  amail inbox ~/.mcp_agent_mail_git_mailbox_repo --as BlueLake\n  amail inbox http://127.0.0.1:8765/mcp/ --as BlueLake   # a server (as --server URL)\n  amail inbox ./mail              # board: ./store when it exists\n  amail inbox ./mail --store ./tasks\n  amail inbox - --as BlueLake < fetch_inbox.json   # a piped result, read-only\n\nThe demo mailbox is DATA_DIR/demo-inbox (DATA_DIR: $AMAIL_HOME, else ~/.local/share/amail);\nits path is printed on stderr.\n\nKeys: ? in the app lists them; rebind in the config file's [keys] table."
)]
pub struct InboxArgs {
    /// A mailbox directory, an mcp_agent_mail storage root or a server's
    /// URL (as --server URL); default: the amail mailbox; "-" reads JSON
    /// on stdin (a `fetch_inbox` result).
    pub source: Option<PathBuf>,
    /// Act as this agent: whose acks are pending, who acknowledges and replies.
    #[arg(long = "as", value_name = "AGENT", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub as_agent: Option<String>,
    /// Open the demo mailbox (nothing to set up): `demo-inbox` under the
    /// data directory, written on first use and reused after, so acks and
    /// replies stay; its path is printed.
    #[arg(long, conflicts_with_all = ["source", "server"])]
    pub demo: bool,
    /// With --demo: write the demo mailbox anew, dropping earlier acks and
    /// replies.
    // Checked in `run`, not by clap's `requires = "demo"`: a bool flag is
    // always present to `requires` (false is its value when absent), so
    // `--fresh DIR` went through and the flag was ignored.
    #[arg(long)]
    pub fresh: bool,
    /// The mcp_agent_mail SQLite database, when it is not inside SOURCE.
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// The task store the board shows (default: the `store` directory
    /// beside SOURCE when there is one, else the amail data dir's store).
    #[arg(long, value_name = "DIR", conflicts_with = "demo")]
    pub store: Option<PathBuf>,
    #[command(flatten)]
    pub server: super::server::ServerArgs,
    #[command(flatten)]
    pub limit: super::ReadLimit,
}

pub fn run(mut args: InboxArgs, settings: &amail::config::Config) -> CliResult {
    if args.fresh && !args.demo {
        return Err(CliError::usage(
            "--fresh writes the demo mailbox anew, so it needs --demo: `amail inbox --demo --fresh`",
        ));
    }
    args.server
        .take_source(&mut args.source, args.db.as_deref())?;
    // The source is checked before the terminal is touched: a mistyped
    // path is a command-line error, not a screen with an error inside.
    if !args.demo && args.server.server.is_none() {
        check_source(&args)?;
    }
    if let Some(store) = &args.store {
        // A mistyped --store must say so, not show an empty board.
        super::open_store(store)?;
    }
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return Err(CliError::usage(
            "amail inbox needs a terminal; for scripts use `amail threads` or `amail pending`",
        ));
    }
    let config = settings.ui_config(amail_tui::config::no_color_env());
    let backend = make_backend(&args, settings)?;
    let exit = amail_tui::run(
        backend,
        RunOptions {
            identity: args.as_agent.clone(),
            config,
        },
    )
    .map_err(|e| CliError::bad_input(format!("terminal error: {e}")))?;
    // Writes still out when the user forced the quit: what became of each
    // (a refused reply with its text), now that the terminal is back.
    for note in &exit.notes {
        crate::errln!("amail: {note}");
    }
    Ok(if exit.clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// SOURCE (or the default mailbox) must be a mailbox or a storage root,
/// or `-` (JSON on stdin).
fn check_source(args: &InboxArgs) -> Result<(), CliError> {
    if is_stdin(args) {
        return Ok(());
    }
    let Some(source) = &args.source else {
        let p = super::default_mailbox();
        if p.exists() {
            return Ok(());
        }
        return Err(CliError::bad_input(format!(
            "no mailbox at {} yet: give a SOURCE, or try `amail inbox --demo`",
            p.display()
        )));
    };
    amail_core::source::detect(source, args.db.as_deref())
        .map(|_| ())
        .map_err(CliError::bad_input)
}

/// The real backend over `stores::` and `router::`.
///
/// `--demo` opens the demo mailbox under the data dir (see [`demo_dir`]),
/// routed into its own store, so the board has tasks and follows the
/// replies.
/// Any other SOURCE is read as is; the board shows `--store`, else the
/// store beside SOURCE (`DIR/store` for `DIR/mail`), else the default one.
/// With `--server`, the mail is the server's and the board `--store` or
/// the default one.
fn make_backend(
    args: &InboxArgs,
    config: &amail::config::Config,
) -> Result<Box<dyn Backend + Send>, CliError> {
    let max_bytes = config.max_bytes;
    if let Some(store) = super::server::open_paged(&args.server, config)? {
        return Ok(Box::new(RealBackend::with_store(
            store,
            args.store.clone().unwrap_or_else(super::default_store),
        )));
    }
    if args.demo {
        let dir = demo_dir(&super::amail_home(), args.fresh)?;
        return Ok(Box::new(RealBackend::new(
            dir.join("mail"),
            LoadOptions {
                db: None,
                max_bytes,
            },
            dir.join("store"),
            true,
        )));
    }
    if is_stdin(args) {
        // Read before the terminal is touched; keys then come from the
        // terminal itself (crossterm opens it when stdin is not one).
        super::say_reading_stdin();
        let mail = StdinStore::read_now(args.as_agent.as_deref(), max_bytes)
            .map_err(|e| CliError::bad_input(e.to_string()))?;
        return Ok(Box::new(RealBackend::with_store(
            Box::new(mail),
            args.store.clone().unwrap_or_else(super::default_store),
        )));
    }
    let source = args.source.clone().unwrap_or_else(super::default_mailbox);
    let store = match &args.store {
        Some(s) => s.clone(),
        None => amail::backend::store_beside(&source, super::default_store()),
    };
    let opts = LoadOptions {
        db: args.db.clone(),
        max_bytes,
    };
    // A storage root whose config names its server: read here, written
    // through the server.
    let timeout = std::time::Duration::from_secs(args.server.timeout.max(1));
    if let Some(mail) = super::server::write_through(&source, &opts, timeout, config)? {
        return Ok(Box::new(RealBackend::with_store(mail, store)));
    }
    Ok(Box::new(RealBackend::new(source, opts, store, false)))
}

/// The one demo folder, `HOME/demo-inbox`: written when it is missing or
/// `fresh` is asked, else reused (one folder, not one per run). It is
/// written beside and renamed into place, so a run killed while writing
/// leaves no half demo to be reused. Its path goes to stderr before the
/// terminal switches to the inbox's screen, so it is still there after
/// quitting.
fn demo_dir(home: &std::path::Path, fresh: bool) -> Result<PathBuf, CliError> {
    let dir = home.join("demo-inbox");
    let cannot = |p: &std::path::Path, e: std::io::Error| {
        CliError::bad_input(format!("{}: cannot write the demo: {e}", p.display()))
    };
    let reused = !fresh && dir.join("mail").is_dir();
    if !reused {
        let new = home.join("demo-inbox.new");
        if new.exists() {
            std::fs::remove_dir_all(&new).map_err(|e| cannot(&new, e))?;
        }
        amail::demo::mailbox::write_demo(&new).map_err(|e| cannot(&new, e))?;
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| cannot(&dir, e))?;
        }
        std::fs::rename(&new, &dir).map_err(|e| cannot(&dir, e))?;
    }
    crate::errln!(
        "amail: demo mailbox at {} ({}; `amail inbox --demo --fresh` writes it anew)",
        amail_core::safe_text::clean_line(&dir.display().to_string()),
        if reused { "reused" } else { "written" }
    );
    Ok(dir)
}

/// `amail inbox -`: the mail is JSON piped on stdin (`fetch_inbox` output),
/// as `threads -` and `pending -` read it.
fn is_stdin(args: &InboxArgs) -> bool {
    args.source.as_deref().is_some_and(super::names_stdin)
}
