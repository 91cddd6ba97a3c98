//! `/` incremental search and `n`/`N`: search selects, it does not filter.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::model::{ListKind, Model, Notice, Search};
use crate::search_count::SLICE;

use super::overlays::{kill_back, Kill};

pub(super) fn search_key(m: &mut Model, k: KeyEvent) {
    match as_cancel(k).code {
        KeyCode::Esc => {
            let origin = m.search.origin.take();
            if let Some(kind) = search_list(m) {
                if origin.is_some() {
                    m.set_selected(kind, origin);
                }
            }
            m.search = Search::default();
        }
        KeyCode::Enter => {
            m.search.typing = false;
            if !m.search.query.is_empty() && !has_match(m) {
                m.notice = Some(Notice::error(format!("no match for “{}”", m.search.query)));
            }
        }
        KeyCode::Backspace => {
            m.search.query.pop();
            m.search.pending = false;
            jump_match(m, true, true);
        }
        KeyCode::Char(c @ ('w' | 'u')) if k.modifiers.contains(KeyModifiers::CONTROL) => {
            let kill = if c == 'w' { Kill::Word } else { Kill::Line };
            let mut end = m.search.query.len();
            kill_back(&mut m.search.query, &mut end, kill);
            m.search.pending = false;
            jump_match(m, true, true);
        }
        KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => {
            m.search.query.push(c);
            m.search.pending = false;
            jump_match(m, true, true);
        }
        _ => {}
    }
}

/// The list `/` searches: the focused one; from the message view, the
/// thread's messages.
pub(super) fn search_list(m: &Model) -> Option<ListKind> {
    m.search_list()
}

pub(super) fn has_match(m: &Model) -> bool {
    let Some(kind) = search_list(m) else {
        return false;
    };
    m.list_key_refs(kind)
        .iter()
        .any(|k| m.item_matches(kind, k, &m.search.query))
}

/// Selects the next (or previous) item matching the query. While typing
/// (`from_origin`), the search starts at the item selected when `/` was
/// pressed, inclusive, so each keystroke refines the same hit.
pub(super) fn jump_match(m: &mut Model, forward: bool, from_origin: bool) {
    if m.search.query.is_empty() {
        // `n`/`N` with nothing to repeat (typing an empty query is not).
        if !from_origin {
            m.notice = Some(Notice::keyed(
                "no search to repeat: ".into(),
                &format!(
                    "{} starts one",
                    m.config.keymap.first_key(crate::keymap::Action::Search)
                ),
                true,
            ));
        }
        return;
    }
    // `n`/`N` move where the search shows (`Model::searched_list`): in
    // another list, the search is not that list's, and they say so.
    if !from_origin && m.searched_list().is_none() {
        return not_searched_here(m);
    }
    let Some(kind) = search_list(m) else { return };
    let q = &m.search.query;
    // Borrowed: a million-message inbox lists a third of a million
    // threads, and copying their keys on each keystroke showed.
    let keys = m.list_key_refs(kind);
    if keys.is_empty() {
        return;
    }
    let n = keys.len();
    let start = if from_origin {
        m.search
            .origin
            .as_deref()
            .and_then(|o| keys.iter().position(|k| *k == o))
            .unwrap_or(0)
    } else {
        let cur = m
            .selected_key(kind)
            .and_then(|s| keys.iter().position(|k| *k == s))
            .unwrap_or(0);
        if forward {
            (cur + 1) % n
        } else {
            (cur + n - 1) % n
        }
    };
    // A counted thread list answers at once (`search_count`). Else the
    // list is tried from `start`; while typing, a long thread list only
    // `SLICE` items on (a query nothing matches was a pass over every
    // message on each keystroke): past those the selection stays, and the
    // count, made frame by frame, gives the matches for `n` and `N`.
    let counted = (kind == ListKind::Threads)
        .then(|| m.counted_match(start, forward, true))
        .flatten();
    let tries = if from_origin && kind == ListKind::Threads {
        n.min(SLICE)
    } else {
        n
    };
    let found = counted
        .or_else(|| {
            (0..tries)
                .map(|i| {
                    if forward {
                        (start + i) % n
                    } else {
                        (start + n - i) % n
                    }
                })
                .find(|&idx| m.item_matches(kind, keys[idx], q))
        })
        .map(|idx| keys[idx].to_owned());
    if let Some(key) = found {
        m.set_selected(kind, Some(key));
        return;
    }
    if tries < n {
        m.search.pending = true;
        return;
    }
    if !from_origin {
        m.notice = Some(Notice::error(format!("no match for “{}”", m.search.query)));
    }
}

/// `n`/`N` away from the list the kept search was made in, where it does
/// not show: lazygit keeps a search per view, and aerc's is the index's,
/// so neither moves another list with it. Nothing moves; the notice names
/// whose search it is and the key that searches here.
fn not_searched_here(m: &mut Model) {
    let whose = match m.search.list {
        Some(ListKind::Threads) => "the thread list's",
        Some(ListKind::Messages) => "a thread's messages'",
        Some(ListKind::Tasks) => "the board's",
        Some(ListKind::Agents) => "the roster's",
        None => "another list's",
    };
    let key = m.config.keymap.first_key(crate::keymap::Action::Search);
    let what = format!(
        "the search “{}” is {whose}: ",
        crate::view::line_text(&m.search.query)
    );
    m.notice = Some(Notice::keyed(what, &format!("{key} searches here"), false));
}

// ---- ack and reply -----------------------------------------------------------

/// Ctrl-c in a prompt or overlay cancels it, like Esc (it never quits from
/// there: a half-typed reply is not worth losing the app over).
pub(super) fn as_cancel(k: KeyEvent) -> KeyEvent {
    if k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL) {
        KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)
    } else {
        k
    }
}

/// The first match at or after the origin, from the finished count, when
/// typing left it to the count (see [`jump_match`]).
pub(super) fn settle_search(m: &mut Model) {
    if !std::mem::take(&mut m.search.pending) {
        return;
    }
    let origin = m
        .search
        .origin
        .as_deref()
        .and_then(|o| m.visible_position(o));
    if let Some(i) = m.counted_match(origin.unwrap_or(0), true, true) {
        let key = m
            .visible_indices()
            .get(i)
            .map(|&t| m.inbox.threads[t].id.clone());
        m.set_selected(ListKind::Threads, key);
    }
}
