//! Questions about threads and their messages: a thread by id, the
//! threads a filter shows, the message shown, who still owes an ack.
//! Asked many times a frame, so they answer from the inbox's tables and
//! the model's caches, not by walking every thread.

use super::screen::Filter;
use super::Model;
use amail_core::inbox::{HelpState, InboxMessage, Thread};

impl Model {
    // ---- thread questions -------------------------------------------------

    pub fn thread(&self, id: &str) -> Option<&Thread> {
        self.thread_position(id).map(|i| &self.inbox.threads[i])
    }

    /// Where the thread `id` is in `inbox.threads`: the one last looked
    /// up when it still is that thread (a patch follows it to where it
    /// went), else the first with that id (the inbox's thread table).
    fn thread_position(&self, id: &str) -> Option<usize> {
        let threads = &self.inbox.threads;
        let last = self.last_thread.get();
        if threads.get(last).is_some_and(|t| t.id == id) {
            return Some(last);
        }
        let i = self.inbox.thread_position(id)?;
        self.last_thread.set(i);
        Some(i)
    }

    /// Where the thread `id` is in the list the filter shows (as
    /// [`Model::list_keys`] orders it), found by its place in the inbox
    /// rather than by comparing every key shown.
    pub(crate) fn visible_position(&self, id: &str) -> Option<usize> {
        let v = self.visible_indices();
        let at = self.thread_position(id)?;
        let found = match self.filter {
            // Unanswered first: two runs, each in thread order.
            Filter::Help => v.iter().position(|&i| i == at),
            _ => v.binary_search(&at).ok(),
        };
        // Another project's thread of the same id may be the one shown.
        let threads = &self.inbox.threads;
        found.or_else(|| v.iter().position(|&i| threads[i].id == id))
    }

    pub(crate) fn last_message(&self, t: &Thread) -> Option<&InboxMessage> {
        self.inbox.last_message(t)
    }

    /// Pending (message, recipient) pairs in a thread, for `--as` if given.
    pub(crate) fn thread_pending(&self, t: &Thread) -> usize {
        // Without `--as` the inbox keeps the same sum with the thread
        // (`Thread::pending`): no walk of its messages, on every row drawn.
        if self.identity.is_none() {
            return t.pending;
        }
        t.messages
            .iter()
            .filter_map(|&i| self.inbox.messages.get(i))
            .map(|m| self.pending_count(m))
            .sum()
    }

    /// Whether `agent` (a recipient as the store spells it) is the person
    /// at the keyboard: with `--as`, that agent as the source matches
    /// names (`SourceKind::same_agent`: another ASCII case on an mcp store
    /// or a server, exactly in a plain mailbox), as `amail pending` and
    /// `amail ack` match it; without, anyone.
    pub(crate) fn is_me(&self, agent: &str) -> bool {
        self.identity
            .as_deref()
            .is_none_or(|me| self.inbox.source.same_agent(agent, me))
    }

    /// How many recipients still owe an ack on `m` (just `--as` when set).
    /// [`Model::pending_recipients`] without the names: the totals run it
    /// on every message, so it must not allocate.
    pub(crate) fn pending_count(&self, m: &InboxMessage) -> usize {
        if !m.message.ack_required {
            return 0;
        }
        m.recipients
            .iter()
            .filter(|r| r.ack_at.is_none())
            .filter(|r| self.is_me(&r.agent))
            .count()
    }

    /// Recipients still owing an ack on `m` (just `--as` when set).
    pub(crate) fn pending_recipients(&self, m: &InboxMessage) -> Vec<String> {
        if !m.message.ack_required {
            return Vec::new();
        }
        m.recipients
            .iter()
            .filter(|r| r.ack_at.is_none())
            .filter(|r| self.is_me(&r.agent))
            .map(|r| r.agent.to_string())
            .collect()
    }

    /// Whether thread `t` is listed under tab `f`.
    pub(crate) fn matches_filter(&self, t: &Thread, f: Filter) -> bool {
        f.lists(|| self.thread_pending(t) > 0, t.help, t.phase)
    }
    /// Whether `m` waits for an ack from the person at the keyboard: with
    /// `--as`, from that agent only (`None`: it was never theirs to ack);
    /// without, from anyone. `Some(false)`: owed and given.
    pub fn owes_ack(&self, m: &InboxMessage) -> Option<bool> {
        if !m.message.ack_required {
            return None;
        }
        let mut mine = m
            .recipients
            .iter()
            .filter(|r| self.is_me(&r.agent))
            .peekable();
        mine.peek()?;
        Some(mine.any(|r| r.ack_at.is_none()))
    }

    pub(crate) fn filter_count(&self, f: Filter) -> usize {
        let i = Filter::ALL.iter().position(|x| *x == f).unwrap_or(0);
        self.counts().filters[i]
    }

    /// Thread ids shown under the current filter, most recent first.
    pub fn visible_threads(&self) -> Vec<&Thread> {
        let threads = &self.inbox.threads;
        self.visible_indices()
            .iter()
            .filter_map(|&i| threads.get(i))
            .collect()
    }

    /// [`Model::visible_threads`] as indices into `inbox.threads`, cached
    /// until the data or the filter changes.
    pub(crate) fn visible_indices(&self) -> std::sync::Arc<[usize]> {
        if let Some((f, v)) = self.visible.borrow().as_ref() {
            if *f == self.filter {
                return v.clone();
            }
        }
        let threads = &self.inbox.threads;
        // Every thread: made without reading one (after each change).
        let mut v: Vec<usize> = if self.filter == Filter::All {
            (0..threads.len()).collect()
        } else {
            (0..threads.len())
                .filter(|&i| self.matches_filter(&threads[i], self.filter))
                .collect()
        };
        // Under "Help requests" the ones still waiting come first: that tab
        // is where people go to unblock someone. (Stable: recency within.)
        if self.filter == Filter::Help {
            v.sort_by_key(|&i| threads[i].help != HelpState::Unanswered);
        }
        let v: std::sync::Arc<[usize]> = v.into();
        self.visible.replace(Some((self.filter, v.clone())));
        v
    }

    pub(crate) fn selected_thread(&self) -> Option<&Thread> {
        self.sel.thread.as_deref().and_then(|id| self.thread(id))
    }

    /// The message shown for the selected thread: the selected one when it
    /// belongs to the thread, else the first still waiting for an ack, else
    /// the latest.
    pub(crate) fn current_message(&self) -> Option<&InboxMessage> {
        let t = self.selected_thread()?;
        let msgs: Vec<&InboxMessage> = t
            .messages
            .iter()
            .filter_map(|&i| self.inbox.messages.get(i))
            .collect();
        if let Some(k) = &self.sel.message {
            if let Some(m) = msgs.iter().find(|m| &m.key == k) {
                return Some(m);
            }
        }
        msgs.iter()
            .find(|m| self.pending_count(m) > 0)
            .or(msgs.last())
            .copied()
    }
}
