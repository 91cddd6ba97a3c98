//! The `/` search: the query as typed, the list it is of, and its count,
//! made a slice per frame (`search_count`). What an item matches is
//! `matching`'s; this is which list is searched and how far the count is.

use super::matching::{contains_ci, message_matches, thread_matches};
use super::screen::{Filter, ListKind, Pane, Screen};
use super::Model;
use crate::search_count::{Count, CountKey, SLICE};
use amail_core::source::parallel;

/// `/` search: incremental while typing, then `n`/`N`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Search {
    pub query: String,
    /// The prompt is open and takes keys.
    pub typing: bool,
    /// The selection when the prompt opened (Esc goes back to it).
    pub origin: Option<String>,
    /// The list searched; counts are shown only while it is the one `/`
    /// would search now.
    pub list: Option<ListKind>,
    /// Typing found no match near the origin in a long thread list: the
    /// first one is selected once the count has them all
    /// (`Msg::SearchCounted`).
    pub pending: bool,
}

impl Model {
    /// Whether an item matches a `/` query (case-insensitive substring of
    /// any of its fields). Checks field by field without building one big
    /// string, since a thread search runs over every body on each keystroke.
    pub(crate) fn item_matches(&self, kind: ListKind, key: &str, query: &str) -> bool {
        let hit = |s: &str| contains_ci(s, query);
        match kind {
            ListKind::Threads => self
                .thread(key)
                .is_some_and(|t| thread_matches(&self.inbox, t, query)),
            ListKind::Messages => self
                .inbox
                .message_by_key(key)
                .is_some_and(|m| message_matches(m, query)),
            ListKind::Tasks => self.tasks.iter().find(|t| t.id == key).is_some_and(|t| {
                hit(&t.id)
                    || hit(&t.title)
                    || hit(t.status.as_str())
                    || t.bead.as_deref().is_some_and(hit)
                    || t.agent.as_deref().is_some_and(hit)
            }),
            ListKind::Agents => self
                .inbox
                .agents
                .iter()
                .find(|a| a.name == key)
                .is_some_and(|a| {
                    hit(&a.name)
                        || a.bead.as_deref().is_some_and(hit)
                        || hit(&format!("{:?}", a.state))
                }),
        }
    }

    /// The list `/` searches: the focused one; from the message view, the
    /// thread's messages.
    pub(crate) fn search_list(&self) -> Option<ListKind> {
        self.current_list().or(match self.screen {
            Screen::Inbox => Some(ListKind::Messages),
            _ => None,
        })
    }

    /// How many items of the searched list match the query, and which of
    /// them (1-based) is selected, for "3/7" and "no match"; `None` when
    /// there is no query or the focus moved to another list since. Each
    /// call takes the count a slice further (`search_count`): until
    /// [`Model::search_counting`] is false, the answer is the count so far.
    pub fn search_matches(&self) -> Option<(usize, Option<usize>)> {
        self.search_progress().map(|(n, at, _)| (n, at))
    }

    /// [`Model::search_matches`], and whether the count is still under way
    /// after this call's slice: what a frame shows ("3/120…"), asked once.
    pub fn search_progress(&self) -> Option<(usize, Option<usize>, bool)> {
        let key = self.count_key()?;
        let kind = key.list.kind;
        let threads = (kind == ListKind::Threads).then(|| self.visible_indices());
        let keys = match &threads {
            Some(_) => Vec::new(),
            None => self.list_key_refs(kind),
        };
        let mut cache = self.search_cache.borrow_mut();
        if cache.as_ref().is_none_or(|c| c.key != key) {
            let last = cache.take();
            *cache = Some(Count::new(key, last));
        }
        let count = cache.as_mut().expect("just set");
        let q = &self.search.query;
        match &threads {
            // The thread list: slice by slice, threads read directly; on
            // every core once the worker is idle (while a load runs, its
            // readers have the other cores, and a frame waiting for a part
            // there would hold keys up).
            Some(v) => {
                let inbox = &self.inbox;
                let cores = if self.working { 1 } else { parallel::cores() };
                count.step_on(SLICE, cores, |i| {
                    inbox
                        .threads
                        .get(v[i])
                        .is_some_and(|t| thread_matches(inbox, t, q))
                })
            }
            // The others are short (one thread's messages, the tasks, the
            // agents): whole at once.
            None => count.step(usize::MAX, |i| self.item_matches(kind, keys[i], q)),
        }
        let selected = match (&threads, self.selected_key(kind)) {
            (Some(_), Some(sel)) => self.visible_position(&sel),
            (None, Some(sel)) => keys.iter().position(|k| *k == sel),
            (_, None) => None,
        };
        let (n, at) = count.answer(selected);
        Some((n, at, !count.done()))
    }

    /// The search's count is still under way: the frame shows the count so
    /// far, and the event loop draws again (taking keys in between). Asks
    /// without counting (a frame asks after its [`Model::search_matches`]).
    pub fn search_counting(&self) -> bool {
        let Some(key) = self.count_key() else {
            return false;
        };
        match self.search_cache.borrow().as_ref() {
            Some(c) if c.key == key => !c.done(),
            // Not begun for this query and list yet.
            _ => true,
        }
    }

    /// The next match of the thread list after (or at) `from`, from a
    /// finished count of the query as it stands; `None` when there is none
    /// or it is not counted yet.
    pub(crate) fn counted_match(
        &self,
        from: usize,
        forward: bool,
        inclusive: bool,
    ) -> Option<usize> {
        let key = self.count_key()?;
        let cache = self.search_cache.borrow();
        let count = cache.as_ref().filter(|c| c.key == key)?;
        count.next_match(from, forward, inclusive)
    }

    /// Typing left the first match to the count, and the count is done:
    /// the event loop then hands `update` a `Msg::SearchCounted`.
    pub fn search_settle_due(&self) -> bool {
        self.search.pending && !self.search_counting()
    }

    /// Whether the kept search shows in `kind`'s view: a search belongs
    /// to the list it was made in, and shows there while that list is the
    /// one `/` searches, so it always shows with its count. (`/Silver`
    /// made in the roster showed in the inbox's filter line and thread
    /// title, where it counts nothing.)
    pub(crate) fn search_shows_in(&self, kind: ListKind) -> bool {
        self.searched_list() == Some(kind)
    }

    /// The list a search with a query is of, while it is the one `/`
    /// would search now (`n`/`N` move in it); `None` otherwise.
    pub(crate) fn searched_list(&self) -> Option<ListKind> {
        let kind = self.search_list()?;
        (!self.search.query.is_empty() && self.search.list.is_none_or(|l| l == kind))
            .then_some(kind)
    }

    /// Esc in the thread list clears a kept search (after the marks, and
    /// unless it goes back to the screen Enter came from: `update::nav::back`).
    pub(crate) fn esc_clears_search(&self) -> bool {
        self.screen == Screen::Inbox
            && self.focus == Pane::Threads
            && self.marks.is_empty()
            && self.came_from.is_none()
            && !self.search.query.is_empty()
    }

    /// What the search's count is of now; `None` when there is no query or
    /// the focus moved to another list since.
    fn count_key(&self) -> Option<CountKey<Listed>> {
        let kind = self.searched_list()?;
        let len = match kind {
            ListKind::Threads => self.visible_indices().len(),
            _ => self.list_key_refs(kind).len(),
        };
        Some(CountKey {
            query: self.search.query.clone(),
            list: Listed {
                kind,
                thread: self
                    .sel
                    .thread
                    .clone()
                    .filter(|_| kind == ListKind::Messages),
                filter: self.filter,
            },
            len,
        })
    }
}

/// Which list a search's count is of (`search_count::CountKey`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    kind: ListKind,
    /// The thread whose messages are the list (the message list).
    thread: Option<String>,
    filter: Filter,
}
