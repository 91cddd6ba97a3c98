//! Moving around: selection steps, drilling in and out, filters, screens.

use crate::model::{Filter, ListKind, Model, Notice, Pane, Screen, Search};
use crate::view::message::{detail_line_count, detail_rows_visible};

pub(super) fn set_filter(m: &mut Model, f: Filter) {
    m.screen = Screen::Inbox;
    m.filter = f;
    m.focus = Pane::Threads;
    // Keep the thread if it is still shown; else the first one.
    let keys = m.list_keys(ListKind::Threads);
    if !m.sel.thread.as_ref().is_some_and(|k| keys.contains(k)) {
        let first = keys.first().cloned();
        m.set_selected(ListKind::Threads, first);
    }
}

/// Moves the focused list's selection by `delta` (clamped; MIN/MAX = ends),
/// or scrolls the message view when that has focus.
pub(super) fn step(m: &mut Model, delta: isize) {
    let Some(kind) = m.current_list() else {
        // The last page fills the pane: scrolling stops when the end shows.
        let max = detail_line_count(m).saturating_sub(detail_rows_visible(m)) as isize;
        let cur = m.detail_scroll as isize;
        let next = cur.saturating_add(delta).clamp(0, max.max(0));
        m.detail_scroll = next as u16;
        return;
    };
    let keys = m.list_keys(kind);
    if keys.is_empty() {
        return;
    }
    let cur = m.selected_index(kind).unwrap_or(0) as isize;
    let next = cur.saturating_add(delta).clamp(0, keys.len() as isize - 1) as usize;
    m.set_selected(kind, Some(keys[next].clone()));
}

pub(super) fn open(m: &mut Model) {
    match m.screen {
        Screen::Inbox => match m.focus {
            Pane::Threads => {
                if m.sel.thread.is_some() {
                    m.sel.message = m.current_message().map(|x| x.key.clone());
                    m.focus = Pane::Messages;
                }
            }
            Pane::Messages => {
                m.sel.message = m.current_message().map(|x| x.key.clone());
                m.focus = Pane::Message;
            }
            Pane::Message => {}
        },
        // From a task or an agent, jump to its thread when there is one.
        Screen::Tasks => {
            let bead = m
                .sel
                .task
                .as_ref()
                .and_then(|id| m.tasks.iter().find(|t| &t.id == id))
                .and_then(|t| t.bead.clone());
            jump_to_bead(m, bead);
        }
        Screen::Agents => {
            let bead = m
                .sel
                .agent
                .as_ref()
                .and_then(|n| m.inbox.agents.iter().find(|a| &a.name == n))
                .and_then(|a| a.bead.clone());
            jump_to_bead(m, bead);
        }
    }
}

pub(super) fn jump_to_bead(m: &mut Model, bead: Option<String>) {
    let Some(bead) = bead else {
        m.notice = Some(Notice {
            text: "no thread for this item".into(),
            error: false,
        });
        return;
    };
    let Some(id) = m
        .inbox
        .threads
        .iter()
        .find(|t| t.bead.as_deref() == Some(bead.as_str()) || t.id == bead)
        .map(|t| t.id.clone())
    else {
        m.notice = Some(Notice {
            text: format!("no mail about {bead}"),
            error: false,
        });
        return;
    };
    m.screen = Screen::Inbox;
    m.filter = Filter::All;
    m.set_selected(ListKind::Threads, Some(id));
    m.focus = Pane::Messages;
}

pub(super) fn back(m: &mut Model) {
    if m.screen != Screen::Inbox {
        m.screen = Screen::Inbox;
        return;
    }
    match m.focus {
        Pane::Message => m.focus = Pane::Messages,
        Pane::Messages => m.focus = Pane::Threads,
        Pane::Threads => {
            if !m.search.query.is_empty() {
                m.search = Search::default();
            } else if m.filter != Filter::All {
                set_filter(m, Filter::All);
            }
        }
    }
}
