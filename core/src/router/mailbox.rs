//! AOF's per-agent mailbox view (`src/views/mailbox.ts`), computed in
//! memory: a task's owner is its lease agent, else its routing agent, else
//! `metadata.assignee`; `ready` tasks are the owner's inbox, `in-progress`
//! and `blocked` its processing queue, `review` its outbox. Backlog and the
//! final statuses appear nowhere. AOF writes the view as pointer files
//! under `views/mailbox/`; amail only reads (a view is derived, never a
//! source of truth), so nothing is written.

use serde::Serialize;
use serde_json::Value;

use super::store::{Result, Store};
use super::task::Task;
use super::TaskSummary;
use crate::aof::TaskStatus;

/// One agent's three queues, each ordered by task id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Mailbox {
    pub agent: String,
    pub inbox: Vec<TaskSummary>,
    pub processing: Vec<TaskSummary>,
    pub outbox: Vec<TaskSummary>,
    /// The task files of the four folders that were skipped (unreadable,
    /// or front matter that does not parse), each as `PATH:LINE:COL: why`:
    /// one of them may be this agent's. Not part of AOF's view (not
    /// serialised).
    #[serde(skip)]
    pub skipped: Vec<String>,
}

/// The owner AOF's view files a task under.
pub fn owner(task: &Task) -> Option<&str> {
    task.fm
        .lease
        .as_ref()
        .map(|l| l.agent.as_str())
        .or(task.fm.routing.agent.as_deref())
        .or_else(|| task.fm.metadata.get("assignee").and_then(Value::as_str))
}

impl Store {
    /// `agent`'s mailbox: reads the four status directories that feed it,
    /// once, noting the files skipped there.
    pub fn mailbox(&self, agent: &str) -> Result<Mailbox> {
        let mut m = Mailbox {
            agent: agent.to_string(),
            ..Mailbox::default()
        };
        for status in [
            TaskStatus::Ready,
            TaskStatus::InProgress,
            TaskStatus::Blocked,
            TaskStatus::Review,
        ] {
            for (id, task) in self.tasks_checked(status, &mut m.skipped)? {
                // A copy left behind mid-move names another status.
                if task.fm.status != status.as_str() || owner(&task) != Some(agent) {
                    continue;
                }
                let queue = match status {
                    TaskStatus::Ready => &mut m.inbox,
                    TaskStatus::Review => &mut m.outbox,
                    _ => &mut m.processing,
                };
                queue.push(TaskSummary::of(id, status, &task));
            }
        }
        Ok(m)
    }
}
