//! The AOF protocol router and its task store.
//!
//! - [`store`]: the AOF project root on disk, the store lock, transactions;
//!   `Store::open(root)` and `Store::list() -> Vec<TaskSummary>` for readers.
//! - [`task`]: the task file format (YAML front matter + body, Work Log).
//! - [`handlers`]: what each AOF/1 message does ([`Router`]), session end,
//!   stale-heartbeat recovery; [`mail`]: bead -> task resolution for mail.
//! - [`journal`]: the write-ahead log that makes each message atomic and
//!   durable (its file writes go through [`crate::fsio`]).
//! - [`events`]: the daily JSON Lines event log; [`runs`]: run artifacts.
//! - [`doctor`]: consistency checks and healing; [`inputs`]: what
//!   `amail route` reads.

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
pub mod journal;
pub mod runs;
pub mod store;
pub mod tally;
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
        .filter(|&c| !crate::tui::sanitize::is_bidi_control(c))
        .map(|c| {
            if c.is_control() && c != '\t' {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect()
}
