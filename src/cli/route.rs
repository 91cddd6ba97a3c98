//! `amail route`: parse mail (or read AOF/1 envelopes), bridge, route into
//! the store, and print one summary line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{CliError, CliResult};
use crate::aof::{detect, Input};
use crate::router::inputs::{self, Item};
use crate::router::{Extras, Router, RouterOptions, Store};

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  amail route ~/.mcp_agent_mail_git_mailbox_repo --store ./store\n  amail route mail/ && amail tasks"
)]
pub struct RouteArgs {
    /// Mail files, mailbox directories, mcp_agent_mail storage roots, or
    /// files of AOF/1 envelopes; standard input when none or "-".
    pub paths: Vec<PathBuf>,
    /// AOF project root (default: the store under the amail data dir).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// Refuse messages about beads the store has no task for
    /// (rejected `task_not_found`) instead of creating tasks.
    #[arg(long)]
    pub no_create: bool,
}

pub fn run(args: RouteArgs, max_bytes: u64) -> CliResult {
    let items = inputs::collect(&args.paths, max_bytes).map_err(|e| {
        CliError::bad_input(format!(
            "{}: {} (check the path and its permissions)",
            e.path.display(),
            e.error
        ))
    })?;
    let root = args.store.unwrap_or_else(super::default_store);
    let store =
        Store::open(&root).map_err(|e| CliError::bad_input(format!("cannot open store: {e}")))?;
    let router = Router::new(
        store,
        RouterOptions {
            create_missing: !args.no_create,
        },
    );
    let mut items = items;
    let mut t = crate::protocols::route::run_cli(&args.paths, &mut items, &router, max_bytes)?;
    for item in &items {
        let out = match item {
            Item::Mail { msg, .. } => router.route_mail(msg),
            Item::Aof { text, .. } => {
                let key = format!("aof:{}", crate::router::store::content_key(text));
                router.route_detected(
                    detect(Input::Text(text)),
                    &Extras {
                        key: Some(key),
                        summary: None,
                    },
                )
            }
        }
        .map_err(|e| CliError::bad_input(format!("{}: store error: {e}", item.location())))?;
        t.record(out, &item.location().to_string());
    }
    // One flush for the whole batch makes it durable (each message is
    // already durable in the write-ahead log).
    router
        .store
        .checkpoint()
        .map_err(|e| CliError::bad_input(format!("cannot flush store: {e}")))?;
    crate::outln!(
        "routed {} of {} messages into {}: {} tasks created, {} transitions, {} duplicates, {} rejected, {} unknown type, {} inbox only",
        t.routed,
        t.messages,
        root.display(),
        t.created,
        t.transitions,
        t.duplicates,
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
