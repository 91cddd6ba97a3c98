//! `amail route`: parse mail (or read AOF/1 envelopes), bridge, route into
//! the store, and print one summary line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::tally::Tally;
use super::{CliError, CliResult};
use amail_core::bridge;
use amail_core::router::{Router, RouterOptions, Store};
use amail_core::source::inputs::{self, InputOptions};
use amail_core::words::counted;

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  amail route ~/.mcp_agent_mail_git_mailbox_repo --store ./store\n  amail route mail/ && amail tasks"
)]
pub struct RouteArgs {
    /// Mail files, mailbox directories, mcp_agent_mail storage roots, or
    /// files of AOF/1 envelopes; standard input when none or "-" (on a
    /// terminal, until Ctrl-D). Binary files are skipped with a warning.
    pub paths: Vec<PathBuf>,
    /// AOF project root (default: the store under the amail data dir);
    /// created, with a note on stderr, when there is none.
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// Refuse messages about beads the store has no task for
    /// (rejected `task_not_found`) instead of creating tasks.
    #[arg(long)]
    pub no_create: bool,
    #[command(flatten)]
    pub limit: super::ReadLimit,
}

pub fn run(args: RouteArgs, max_bytes: u64) -> CliResult {
    super::server::refuse_urls(&args.paths, "route")?;
    if args.paths.is_empty() || args.paths.iter().any(|p| super::names_stdin(p)) {
        super::say_reading_stdin();
    }
    let opts = InputOptions { max_bytes };
    let inputs = inputs::collect(&args.paths, &opts).map_err(|e| {
        // The system's errors get the hint; amail's own refusals (a task
        // store named as mail, a file over the size limit) say what to do
        // themselves.
        // A link that leads nowhere is named as one, without the hint:
        // the path is there, its target is not.
        let (why, hint) = match amail_core::fsio::broken_link(&e.path) {
            Some(broken) => (broken, ""),
            None if e.error.raw_os_error().is_some() => (
                amail_core::fsio::reason(&e.error),
                " (check the path and its permissions)",
            ),
            None => (amail_core::fsio::reason(&e.error), ""),
        };
        CliError::bad_input(format!("{}: {why}{hint}", e.path.display()))
    })?;
    let root = args.store.unwrap_or_else(super::default_store);
    refuse_store_in_place_of_mail(&root, &args.paths)?;
    // The one command that may start a store; it says so, since a
    // mistyped --store would otherwise go unnoticed.
    let fresh = !Store::exists(&root);
    let store =
        Store::open(&root).map_err(|e| CliError::bad_input(format!("cannot open store: {e}")))?;
    if fresh {
        crate::errln!(
            "amail: created a new task store at {}",
            amail_core::safe_text::clean_line(&root.display().to_string())
        );
    }
    let router = Router::new(
        store,
        RouterOptions {
            create_missing: !args.no_create,
        },
    );
    let mut t = Tally::default();
    // A protocol file's diagnostic is an input that is not routed; it
    // makes the command exit with the bad-input code.
    for d in &inputs.diags {
        crate::errln!("{d}: not routed");
        t.rejected += 1;
    }
    for (name, why) in &inputs.skipped {
        crate::errln!(
            "amail: warning: {}: {why}",
            amail_core::safe_text::clean_line(name)
        );
    }
    for item in &inputs.items {
        let routable = bridge::routable(item);
        let out = router
            .route(&routable)
            .map_err(|e| CliError::bad_input(format!("{}: store error: {e}", item.location())))?;
        let why = match &routable {
            amail_core::aof::Routable::Rejected(r) => r.why(),
            _ => None,
        };
        t.record(out, &item.location(), why);
    }
    // One flush for the whole batch makes it durable (each message is
    // already durable in the write-ahead log).
    router
        .store
        .checkpoint()
        .map_err(|e| CliError::bad_input(format!("cannot flush store: {e}")))?;
    crate::outln!(
        "routed {} of {} into {}: {} created, {}, {}, {} rejected, {} unknown type, {} inbox only",
        t.routed,
        counted(t.messages, "message"),
        root.display(),
        counted(t.created, "task"),
        counted(t.transitions, "transition"),
        counted(t.duplicates, "duplicate"),
        t.rejected,
        t.unknown,
        t.inbox_only
    );
    Ok(if t.rejected > 0 {
        ExitCode::from(super::EXIT_BAD_INPUT)
    } else {
        ExitCode::SUCCESS
    })
}

/// A store at a mailbox being routed (`amail route MAIL --store MAIL`,
/// however spelled) would put AOF's folders among the agents' and make
/// the mailbox a task store, which no command then reads as mail: it is
/// refused before anything is written; so is a storage root's archive. A store inside or beside the
/// mailbox (`DIR/store` beside `DIR/mail`) is fine: mail reading skips it.
fn refuse_store_in_place_of_mail(
    root: &std::path::Path,
    paths: &[PathBuf],
) -> Result<(), CliError> {
    let Ok(store) = std::fs::canonicalize(root) else {
        return Ok(());
    };
    for p in paths.iter().filter(|p| !super::names_stdin(p)) {
        // An mcp storage root's mail is its archive as much as the root:
        // a store there sat among the server's projects, in its Git tree.
        let archive = match amail_core::source::detect(p, None) {
            Ok(amail_core::source::Detected::McpStore { archive, .. }) => {
                std::fs::canonicalize(archive).ok()
            }
            _ => None,
        };
        if std::fs::canonicalize(p).is_ok_and(|m| m == store && m.is_dir())
            || archive.is_some_and(|a| a == store)
        {
            let clean = |p: &std::path::Path| {
                amail_core::safe_text::clean_line(&p.display().to_string()).into_owned()
            };
            return Err(CliError::usage(format!(
                "--store {} is the mailbox being routed ({}); a store there would make it a task store, not mail. Name a folder of its own (`amail demo DIR` puts it at DIR/store, beside DIR/mail); nothing was written",
                clean(root),
                clean(p)
            )));
        }
    }
    Ok(())
}
