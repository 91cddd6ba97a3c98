//! `amail doctor`: check the store and heal what can be healed.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{CliError, CliResult, EXIT_BAD_INPUT};
use amail_core::router::doctor;
use amail_core::safe_text::clean_line;

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  amail doctor --store ./store\n  amail doctor --check   # report only, change nothing"
)]
pub struct DoctorArgs {
    /// AOF project root (default: the store under the amail data dir); it
    /// must exist (only `amail route` creates one).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// Report problems without healing them (an interrupted write is still
    /// completed: that is what taking the store lock does).
    #[arg(long)]
    pub check: bool,
    /// Print the report as JSON: {consistent, tasks, healed, problems}.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: DoctorArgs) -> CliResult {
    let root = args.store.unwrap_or_else(super::default_store);
    let store = super::open_store(&root)?;
    let report =
        doctor::run(&store, !args.check).map_err(|e| CliError::bad_input(e.to_string()))?;
    if args.json {
        let v = serde_json::json!({
            "consistent": report.consistent(),
            "tasks": report.tasks,
            "healed": report.healed,
            "problems": report.problems,
        });
        crate::outln!("{v}");
        let code = if report.consistent() {
            0
        } else {
            EXIT_BAD_INPUT
        };
        return Ok(ExitCode::from(code));
    }
    for h in &report.healed {
        crate::outln!("healed: {}", clean_line(h));
    }
    for p in &report.problems {
        crate::outln!("problem: {}", clean_line(p));
    }
    if report.consistent() {
        crate::outln!(
            "store {} is consistent ({})",
            root.display(),
            amail_core::words::counted(report.tasks, "task")
        );
        Ok(ExitCode::SUCCESS)
    } else {
        crate::outln!(
            "store {} has {} doctor cannot fix; fix or move the files named above",
            root.display(),
            amail_core::words::counted(report.problems.len(), "problem")
        );
        Ok(ExitCode::from(EXIT_BAD_INPUT))
    }
}
