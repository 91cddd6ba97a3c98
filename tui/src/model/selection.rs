//! Selections held by key, the marks, the lists' scroll offsets, and the
//! selection kept across a data change (by key, else by position): why a
//! reload leaves the user on the same thing.

use std::cell::Cell;

use super::screen::ListKind;
use super::Model;

/// Items marked with Space or `V` for one ack or mark-read: thread ids in
/// the thread list, message keys in a thread's messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    pub threads: std::collections::BTreeSet<String>,
    pub messages: std::collections::BTreeSet<String>,
    /// Where a `V` range starts: the last item marked.
    pub anchor: Option<String>,
}

impl Marks {
    pub fn is_empty(&self) -> bool {
        self.threads.is_empty() && self.messages.is_empty()
    }
}

#[derive(Debug, Default)]
pub struct Offsets {
    pub threads: Cell<usize>,
    pub messages: Cell<usize>,
    pub tasks: Cell<usize>,
    pub agents: Cell<usize>,
    /// The open chooser's or recipients' list (one at a time).
    pub choice: Cell<usize>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    pub thread: Option<String>,
    pub message: Option<String>,
    pub task: Option<String>,
    pub agent: Option<String>,
    /// The task selected in the roster's task queues (`Tab` there).
    pub queued: Option<String>,
}

/// The selection before a data change and where each selected key stood
/// in its list, for [`Model::fix_selection`] once the new data is in. Only
/// the positions: copying every thread's key on each reload of a large
/// inbox cost more than the patch itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ListsBefore {
    pub sel: Selection,
    /// Index of the selected key in the threads, messages, tasks and agents
    /// lists (in [`ListKind`] order as [`LISTS`] gives it); `None` when
    /// nothing was selected or the key was not in its list.
    pub at: [Option<usize>; 4],
}

/// The lists [`ListsBefore::at`] indexes, in order.
const LISTS: [ListKind; 4] = [
    ListKind::Threads,
    ListKind::Messages,
    ListKind::Tasks,
    ListKind::Agents,
];

impl Model {
    pub(crate) fn selected_key(&self, kind: ListKind) -> Option<String> {
        match kind {
            ListKind::Threads => self.sel.thread.clone(),
            ListKind::Messages => self.current_message().map(|m| m.key.to_string()),
            ListKind::Tasks => self.sel.task.clone(),
            ListKind::Agents => self.sel.agent.clone(),
        }
    }

    pub(crate) fn set_selected(&mut self, kind: ListKind, key: Option<String>) {
        match kind {
            ListKind::Threads => {
                if self.sel.thread != key {
                    self.sel.message = None;
                    self.detail_scroll = 0;
                }
                self.sel.thread = key;
            }
            ListKind::Messages => {
                if self.sel.message != key {
                    self.detail_scroll = 0;
                }
                self.sel.message = key;
            }
            ListKind::Tasks => self.sel.task = key,
            ListKind::Agents => self.sel.agent = key,
        }
    }

    /// Index of the selection in its list.
    pub fn selected_index(&self, kind: ListKind) -> Option<usize> {
        let key = self.selected_key(kind)?;
        self.list_keys(kind).iter().position(|k| *k == key)
    }

    /// What [`Model::restore_selection`] needs, taken before a data change.
    pub(crate) fn lists_before(&self) -> ListsBefore {
        let sel = self.sel.clone();
        let at = LISTS.map(|kind| {
            let key = match kind {
                ListKind::Threads => sel.thread.as_deref(),
                ListKind::Messages => sel.message.as_deref(),
                ListKind::Tasks => sel.task.as_deref(),
                ListKind::Agents => sel.agent.as_deref(),
            }?;
            match kind {
                ListKind::Threads => self.visible_position(key),
                _ => self.list_key_refs(kind).iter().position(|k| *k == key),
            }
        });
        ListsBefore { sel, at }
    }

    /// [`Model::fix_selection`] from a [`ListsBefore`].
    pub(crate) fn restore_selection(&mut self, b: &ListsBefore) {
        self.fix_selection(&b.sel, &b.at);
    }

    /// After the data changed: keep every selection whose key still exists;
    /// otherwise take the item now at the old position `at` (see
    /// [`ListsBefore::at`]), or the first.
    pub(crate) fn fix_selection(&mut self, before: &Selection, at: &[Option<usize>; 4]) {
        // Threads before messages: the message list is the selected
        // thread's.
        for kind in [
            ListKind::Threads,
            ListKind::Tasks,
            ListKind::Agents,
            ListKind::Messages,
        ] {
            let slot = LISTS.iter().position(|k| *k == kind).unwrap_or(0);
            let prev = match kind {
                ListKind::Threads => &before.thread,
                ListKind::Messages => &before.message,
                ListKind::Tasks => &before.task,
                ListKind::Agents => &before.agent,
            };
            let chosen = if kind == ListKind::Threads {
                // Looked up, not listed: a million threads' keys per
                // reload was most of its cost.
                let v = self.visible_indices();
                match prev
                    .as_deref()
                    .filter(|k| self.visible_position(k).is_some())
                {
                    Some(k) => Some(k.to_string()),
                    None => {
                        let at = at[slot].unwrap_or(0);
                        v.get(at.min(v.len().saturating_sub(1)))
                            .map(|&i| self.inbox.threads[i].id.clone())
                    }
                }
            } else {
                let keys = self.list_key_refs(kind);
                match prev.as_deref().filter(|k| keys.contains(k)) {
                    Some(k) => Some(k.to_string()),
                    None if kind == ListKind::Messages => None,
                    None => {
                        let at = at[slot].unwrap_or(0);
                        keys.get(at.min(keys.len().saturating_sub(1)))
                            .map(|k| k.to_string())
                    }
                }
            };
            match kind {
                ListKind::Threads => self.sel.thread = chosen,
                ListKind::Messages => self.sel.message = chosen,
                ListKind::Tasks => self.sel.task = chosen,
                ListKind::Agents => self.sel.agent = chosen,
            }
        }
    }
}
