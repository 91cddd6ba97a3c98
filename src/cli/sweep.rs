//! `amail sweep`: session-end and stale-heartbeat recovery.

use std::path::PathBuf;
use std::process::ExitCode;

use chrono::{DateTime, Utc};
use clap::Args;

use super::{CliError, CliResult};
use amail_core::router::{Router, RouterOptions};
use amail_core::words::counted;

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  amail sweep --store ./store\n  amail sweep --now 2026-11-22T06:00:00Z"
)]
pub struct SweepArgs {
    /// AOF project root (default: the store under the amail data dir); it
    /// must exist (only `amail route` creates one).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// Evaluate heartbeats as of this time (RFC 3339) instead of now.
    #[arg(long, value_name = "TIME", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub now: Option<String>,
}

pub fn run(args: SweepArgs) -> CliResult {
    let now: DateTime<Utc> = match &args.now {
        Some(s) => DateTime::parse_from_rfc3339(s)
            .map_err(|e| {
                CliError::usage(format!("--now {s}: {e} (use e.g. 2026-11-22T06:00:00Z)"))
            })?
            .with_timezone(&Utc),
        None => Utc::now(),
    };
    let root = args.store.unwrap_or_else(super::default_store);
    let store = super::open_store(&root)?;
    let router = Router::new(store, RouterOptions::default());
    let ended = router
        .session_end()
        .map_err(|e| CliError::bad_input(e.to_string()))?;
    let stale = router
        .sweep_stale(now)
        .map_err(|e| CliError::bad_input(e.to_string()))?;
    router
        .store
        .checkpoint()
        .map_err(|e| CliError::bad_input(e.to_string()))?;
    crate::outln!(
        "sweep: {}, {} recovered{}{}",
        counted(ended, "session-end transition"),
        counted(stale.len(), "stale task"),
        if stale.is_empty() { "" } else { ": " },
        amail_core::safe_text::clean_line(&stale.join(", "))
    );
    Ok(ExitCode::SUCCESS)
}
