//! The AOF protocol router and its task store.
//!
//! - [`store`]: the AOF project root on disk, the store lock, transactions;
//!   `Store::open_existing(root)` (never creates) and
//!   `Store::list() -> Vec<TaskSummary>` for readers, `Store::open(root)`
//!   (creates a store when there is none) for `amail route`.
//! - [`task`]: the task file format (YAML front matter + body, Work Log).
//! - `Router::route` (in `route.rs`): the one entry, taking a
//!   [`crate::aof::Routable`] from any bridge: dedupe, bead -> task
//!   resolution (with auto-create), the handlers, one commit.
//! - `handlers`: what each AOF/1 message does ([`Router`]), session end,
//!   stale-heartbeat recovery.
//! - [`journal`]: the write-ahead log that makes each message atomic and
//!   durable (its file writes go through [`crate::fsio`]).
//! - [`events`]: the daily JSON Lines event log; [`runs`]: run artifacts.
//! - [`doctor`]: consistency checks and healing.
//!
//! The router knows AOF/1 and its store only: it never parses mail, walks
//! sources or calls a bridge (those are below it or beside it).

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::aof::TaskStatus;

/// One task as the board shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskSummary {
    /// `task_id` in JSON, as every `--json` output names a task's id (the
    /// README's JSON field names table).
    #[serde(rename = "task_id")]
    pub id: String,
    pub title: String,
    /// The status directory the task file sits in (serialised kebab-case,
    /// as AOF names it).
    pub status: TaskStatus,
    #[serde(rename = "bead_id")]
    pub bead: Option<String>,
    pub agent: Option<String>,
    pub updated_at: Option<DateTime<Utc>>,
}

/// The board: every task, and the task files it had to skip, each as one
/// line naming the file (and the line and column) and why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Board {
    pub tasks: Vec<TaskSummary>,
    pub skipped: Vec<String>,
}

impl From<Vec<TaskSummary>> for Board {
    fn from(tasks: Vec<TaskSummary>) -> Board {
        Board {
            tasks,
            skipped: Vec::new(),
        }
    }
}

impl TaskSummary {
    /// The summary of `task`, found in `status`'s directory.
    pub fn of(id: String, status: TaskStatus, task: &task::Task) -> TaskSummary {
        TaskSummary {
            id,
            title: task.fm.title.clone(),
            status,
            bead: task.bead().map(str::to_string),
            agent: task
                .fm
                .lease
                .as_ref()
                .map(|l| l.agent.clone())
                .or_else(|| task.fm.routing.agent.clone()),
            updated_at: DateTime::parse_from_rfc3339(&task.fm.updated_at)
                .ok()
                .map(|t| t.with_timezone(&Utc)),
        }
    }
}

pub mod deps;
pub mod events;
pub mod journal;
pub mod mailbox;
pub(crate) mod payloads;
pub mod review;
pub mod runs;
pub mod store;
pub mod task;

pub use store::{Store, StoreError};
pub(crate) mod handlers;

pub use route::{RouteOutcome, Router, RouterOptions};
pub mod doctor;
mod route;

#[cfg(test)]
mod tests {
    use super::*;

    /// `amail tasks --json` prints statuses as AOF spells them, as it did
    /// when the field was a string.
    #[test]
    fn task_summary_json_spells_status_as_aof_does() {
        let t = TaskSummary {
            id: "TASK-1".into(),
            title: "t".into(),
            status: TaskStatus::InProgress,
            bead: None,
            agent: Some("a".into()),
            updated_at: None,
        };
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"task_id":"TASK-1","title":"t","status":"in-progress","bead_id":null,"agent":"a","updated_at":null}"#
        );
    }
}
