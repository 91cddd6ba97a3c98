//! Where a mouse event landed: the same layout the view draws, asked the
//! other way round (which tab, pane or row is at column x, row y). Pure
//! over the model and its size, so `update` can act on a click without
//! the view keeping a map of what it drew.

use ratatui::layout::Rect;

use super::agents;
use crate::keymap::Action;
use crate::model::{Filter, ListKind, Model, Pane, Screen};
use crate::text::width;

/// What is under the pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hit {
    Screen(Screen),
    Filter(Filter),
    /// Row `index` of a list (as `Model::list_keys` orders it).
    Row(ListKind, usize),
    /// A list pane, below its last row.
    List(ListKind),
    /// The message view.
    Message,
    /// The roster's task queues, and the task drawn there, if any.
    Queues(Option<String>),
}

/// Whether (`x`, `y`) is in `r`: the one test of a click against an area.
pub(crate) fn inside(r: Rect, x: u16, y: u16) -> bool {
    x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height
}

/// The tab labels of the header, in order, with their widths.
fn screen_tabs(m: &Model) -> Vec<(Screen, usize)> {
    [
        (Screen::Inbox, "Inbox", Action::ScreenInbox),
        (Screen::Tasks, "Tasks", Action::ScreenTasks),
        (Screen::Agents, "Agents", Action::ScreenAgents),
    ]
    .into_iter()
    .map(|(s, label, a)| {
        let key = m.config.keymap.first_key(a);
        (s, width(&format!(" {label} [{key}] ")))
    })
    .collect()
}

pub fn hit(m: &Model, x: u16, y: u16) -> Option<Hit> {
    let x_us = x as usize;
    if y == 0 {
        // " amail " and "│" come first.
        let mut at = width(" amail ") + 1;
        for (s, w) in screen_tabs(m) {
            if x_us >= at && x_us < at + w {
                return Some(Hit::Screen(s));
            }
            at += w;
        }
        return None;
    }
    if y == 1 {
        if m.screen != Screen::Inbox {
            return None;
        }
        // The spans `draw_tabs` draws, so a click cannot land beside them.
        let mut at = 0;
        for (f, span) in super::inbox_tabs(m, m.size.0) {
            let w = width(&span.content);
            if let Some(f) = f.filter(|_| x_us >= at && x_us < at + w) {
                return Some(Hit::Filter(f));
            }
            at += w;
        }
        return None;
    }
    let area = super::body(m);
    if !inside(area, x, y) {
        return None;
    }
    match m.screen {
        Screen::Inbox => {
            let (pane, r) = super::inbox_panes(m)
                .into_iter()
                .find(|(_, r)| inside(*r, x, y))?;
            let kind = match pane {
                Pane::Threads => ListKind::Threads,
                Pane::Messages => ListKind::Messages,
                Pane::Message => return Some(Hit::Message),
            };
            let offset = match kind {
                ListKind::Threads => m.offsets.threads.get(),
                _ => m.offsets.messages.get(),
            };
            row(m, kind, r, 0, offset, y)
        }
        Screen::Agents => {
            let (roster, queues) = agents::split(m, area);
            if let Some(q) = queues.filter(|q| inside(*q, x, y)) {
                return Some(Hit::Queues(super::agent_queues::task_at(m, q, x, y)));
            }
            if !inside(roster, x, y) {
                return None;
            }
            row(m, ListKind::Agents, roster, 1, m.offsets.agents.get(), y)
                .or_else(|| agents::is_header(y, roster).then_some(Hit::List(ListKind::Agents)))
        }
        Screen::Tasks => super::tasks::hit_row(m, area, x, y),
    }
}

/// Row `y` of a bordered list pane `r` whose first `skip` inner rows are
/// headings and whose view starts at `offset`.
fn row(m: &Model, kind: ListKind, r: Rect, skip: u16, offset: usize, y: u16) -> Option<Hit> {
    let first = r.y + 1 + skip;
    if y < first || y + 1 >= r.y + r.height {
        return Some(Hit::List(kind));
    }
    let index = offset + (y - first) as usize;
    if index < m.list_keys(kind).len() {
        Some(Hit::Row(kind, index))
    } else {
        Some(Hit::List(kind))
    }
}
