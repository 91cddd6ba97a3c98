//! The AOF protocol router and its task store (lands with the router issue).
//!
//! Contract for the TUI and CLI: `Store::open(root)` and `Store::list() -> Vec<TaskSummary>`
//! in `store.rs`; `TaskSummary` is defined here so readers can code against it now.

use chrono::{DateTime, Utc};
use serde::Serialize;

/// One task as the board shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskSummary {
    pub id: String,
    pub title: String,
    /// AOF status: backlog ready in-progress blocked review done cancelled deadletter.
    pub status: String,
    pub bead: Option<String>,
    pub agent: Option<String>,
    pub updated_at: Option<DateTime<Utc>>,
}

pub mod events;
pub mod fsio;
pub mod journal;
pub mod runs;
pub mod store;
pub mod task;

pub use store::{Store, StoreError};
pub mod handlers;

pub use handlers::{Extras, RouteOutcome, Router, RouterOptions};
pub mod doctor;
pub mod inputs;
pub mod mail;

/// Makes agent-written text safe for a terminal: control characters
/// (escape sequences included) become U+FFFD, except tab.
pub fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect()
}
