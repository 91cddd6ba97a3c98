//! The lists a selection can live in, in display order: which one has the
//! focus, the task board, the selected agent's queues, and the keys of
//! each (what search, selection and moves go through).

use super::screen::{ListKind, Pane, Screen};
use super::Model;
use amail_core::router::TaskSummary;

impl Model {
    // ---- generic lists ----------------------------------------------------

    pub(crate) fn current_list(&self) -> Option<ListKind> {
        match self.screen {
            Screen::Tasks => Some(ListKind::Tasks),
            Screen::Agents => Some(ListKind::Agents),
            Screen::Inbox => match self.focus {
                Pane::Threads => Some(ListKind::Threads),
                Pane::Messages => Some(ListKind::Messages),
                Pane::Message => None,
            },
        }
    }

    /// The selected agent's queued tasks as its queues pane lists them
    /// (inbox, processing, outbox, each top to bottom); empty until the
    /// queues are read.
    pub fn queued_tasks(&self) -> Vec<&TaskSummary> {
        match (&self.queues, self.sel.agent.as_deref()) {
            (Some((agent, Ok(q))), Some(sel)) if agent == sel => q
                .inbox
                .iter()
                .chain(&q.processing)
                .chain(&q.outbox)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The task selected in the queues: the one chosen while it is still
    /// queued, else the first.
    pub fn queued_selected(&self) -> Option<&TaskSummary> {
        let tasks = self.queued_tasks();
        tasks
            .iter()
            .find(|t| self.sel.queued.as_deref() == Some(t.id.as_str()))
            .or(tasks.first())
            .copied()
    }

    /// Tasks in board order (status, then most recently updated).
    pub fn board(&self) -> Vec<&TaskSummary> {
        let mut v: Vec<&TaskSummary> = self.tasks.iter().collect();
        // `TaskStatus` orders as the board lists it (`TaskStatus::ALL`).
        v.sort_by(|a, b| {
            a.status
                .cmp(&b.status)
                .then(b.updated_at.cmp(&a.updated_at))
                .then(a.id.cmp(&b.id))
        });
        v
    }

    /// Keys of the items in a list, in display order.
    pub fn list_keys(&self, kind: ListKind) -> Vec<String> {
        self.list_key_refs(kind)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// [`Model::list_keys`] borrowed: a reload looks keys up in the thread
    /// list of the whole inbox, and copying them all is most of that cost.
    pub(crate) fn list_key_refs(&self, kind: ListKind) -> Vec<&str> {
        match kind {
            ListKind::Threads => self
                .visible_threads()
                .iter()
                .map(|t| t.id.as_str())
                .collect(),
            ListKind::Messages => self
                .selected_thread()
                .map(|t| {
                    t.messages
                        .iter()
                        .filter_map(|&i| self.inbox.messages.get(i))
                        .map(|m| m.key.as_str())
                        .collect()
                })
                .unwrap_or_default(),
            ListKind::Tasks => self.board().iter().map(|t| t.id.as_str()).collect(),
            ListKind::Agents => self.roster().iter().map(|a| a.name.as_str()).collect(),
        }
    }
}
