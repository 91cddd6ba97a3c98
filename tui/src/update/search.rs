//! `/` incremental search and `n`/`N`: search selects, it does not filter.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::model::{ListKind, Model, Notice, Search};

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
                m.notice = Some(Notice {
                    text: format!("no match for “{}”", m.search.query),
                    error: true,
                });
            }
        }
        KeyCode::Backspace => {
            m.search.query.pop();
            jump_match(m, true, true);
        }
        KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => {
            m.search.query.push(c);
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
    m.list_keys(kind)
        .iter()
        .any(|k| m.item_matches(kind, k, &m.search.query))
}

/// Selects the next (or previous) item matching the query. While typing
/// (`from_origin`), the search starts at the item selected when `/` was
/// pressed, inclusive, so each keystroke refines the same hit.
pub(super) fn jump_match(m: &mut Model, forward: bool, from_origin: bool) {
    let Some(kind) = search_list(m) else { return };
    if m.search.query.is_empty() {
        return;
    }
    let q = m.search.query.clone();
    let keys = m.list_keys(kind);
    if keys.is_empty() {
        return;
    }
    let n = keys.len();
    let start = if from_origin {
        m.search
            .origin
            .as_ref()
            .and_then(|o| keys.iter().position(|k| k == o))
            .unwrap_or(0)
    } else {
        let cur = m.selected_index(kind).unwrap_or(0);
        if forward {
            (cur + 1) % n
        } else {
            (cur + n - 1) % n
        }
    };
    for i in 0..n {
        let idx = if forward {
            (start + i) % n
        } else {
            (start + n - i) % n
        };
        if m.item_matches(kind, &keys[idx], &q) {
            m.set_selected(kind, Some(keys[idx].clone()));
            return;
        }
    }
    if !from_origin {
        m.notice = Some(Notice {
            text: format!("no match for “{}”", m.search.query),
            error: true,
        });
    }
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
