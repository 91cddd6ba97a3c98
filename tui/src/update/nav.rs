//! Moving around: selection steps, drilling in and out, filters, screens.

use crate::model::{Filter, ListKind, Model, Notice, Pane, Screen, Search};
use crate::view::hit::{hit, Hit};
use crate::view::message::{detail_line_count, detail_rows_visible, shown_from};

/// A click: a screen tab, a filter tab, or a row (which also focuses its
/// pane), or the message view (focuses it).
pub(super) fn click(m: &mut Model, x: u16, y: u16) {
    let Some(hit) = hit(m, x, y) else { return };
    match hit {
        Hit::Screen(s) => {
            m.screen = s;
            m.came_from = None;
        }
        Hit::Filter(f) => set_filter(m, f),
        Hit::Row(kind, i) => {
            focus_list(m, kind);
            let key = m.list_keys(kind).get(i).cloned();
            m.set_selected(kind, key);
        }
        Hit::List(kind) => focus_list(m, kind),
        Hit::Message => m.focus = Pane::Message,
        // The queues take the focus as `Tab` gives it (and say why when
        // they cannot), on the task clicked when there is one.
        Hit::Queues(task) => {
            if task.is_some() {
                m.sel.queued = task;
            }
            if !m.queue_focus {
                super::review::toggle_queues(m);
            }
        }
    }
}

/// The wheel: the pane under the pointer scrolls (its selection moves, or
/// the message view scrolls), whichever pane has the focus.
pub(super) fn scroll_at(m: &mut Model, x: u16, y: u16, delta: isize) {
    match hit(m, x, y) {
        // On the board a status is a pane: the wheel over another one
        // goes to it (as `h`/`l` would) rather than moving the one selected.
        Some(Hit::Row(ListKind::Tasks, i))
            if crate::view::tasks::in_columns(m) && !in_selected_column(m, i) =>
        {
            let key = m.list_keys(ListKind::Tasks).get(i).cloned();
            m.set_selected(ListKind::Tasks, key);
        }
        Some(Hit::Row(kind, _) | Hit::List(kind)) => step_list(m, kind, delta),
        Some(Hit::Message) => step_detail(m, delta),
        // The queues' cursor shows only while they have the focus, so the
        // wheel gives it to them, as `Tab` does where they hold a task.
        Some(Hit::Queues(_)) if m.queued_selected().is_some() => {
            m.queue_focus = true;
            super::review::queue_step(m, delta);
        }
        _ => {}
    }
}

/// Whether the board's task `i` (in list order) has the selected task's
/// status: the same column.
fn in_selected_column(m: &Model, i: usize) -> bool {
    let status = |id: Option<&str>| {
        m.tasks
            .iter()
            .find(|t| Some(t.id.as_str()) == id)
            .map(|t| t.status)
    };
    let keys = m.list_keys(ListKind::Tasks);
    status(keys.get(i).map(String::as_str)) == status(m.sel.task.as_deref())
}

/// A click anywhere in a list's pane focuses it: the inbox's pane, or the
/// roster over its task queues.
fn focus_list(m: &mut Model, kind: ListKind) {
    if let Some(pane) = pane_of(kind) {
        m.focus = pane;
    }
    if kind == ListKind::Agents {
        m.queue_focus = false;
    }
}

fn pane_of(kind: ListKind) -> Option<Pane> {
    match kind {
        ListKind::Threads => Some(Pane::Threads),
        ListKind::Messages => Some(Pane::Messages),
        _ => None,
    }
}

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
    if m.screen == Screen::Agents && m.queue_focus {
        return super::review::queue_step(m, delta);
    }
    match m.current_list() {
        Some(kind) => step_list(m, kind, delta),
        None => step_detail(m, delta),
    }
}

/// Scrolls the message view from what it shows; the last page fills the
/// pane, so scrolling stops when the end shows.
fn step_detail(m: &mut Model, delta: isize) {
    let (rows, height) = (detail_line_count(m), detail_rows_visible(m));
    let from = shown_from(m.detail_scroll, rows, height);
    m.detail_scroll = shown_from(from.saturating_add_signed(delta), rows, height);
}

fn step_list(m: &mut Model, kind: ListKind, delta: isize) {
    if kind == ListKind::Tasks {
        return board_step(m, delta);
    }
    let keys = m.list_keys(kind);
    if keys.is_empty() {
        return;
    }
    let cur = m.selected_index(kind).unwrap_or(0) as isize;
    let next = cur.saturating_add(delta).clamp(0, keys.len() as isize - 1) as usize;
    m.set_selected(kind, Some(keys[next].clone()));
}

/// The board's columns: each status that holds tasks, in board order, with
/// its task ids.
fn board_columns(m: &Model) -> Vec<Vec<String>> {
    let board = m.board();
    let mut cols: Vec<Vec<String>> = Vec::new();
    let mut last = None;
    for t in board {
        if last != Some(t.status) {
            cols.push(Vec::new());
            last = Some(t.status);
        }
        cols.last_mut().expect("pushed").push(t.id.clone());
    }
    cols
}

/// Where the selected task is: (column, row).
fn board_position(m: &Model, cols: &[Vec<String>]) -> (usize, usize) {
    let sel = m.sel.task.as_deref();
    cols.iter()
        .enumerate()
        .find_map(|(c, ids)| {
            ids.iter()
                .position(|id| Some(id.as_str()) == sel)
                .map(|r| (c, r))
        })
        .unwrap_or((0, 0))
}

/// `j`/`k` on the board: within the selected task's column.
fn board_step(m: &mut Model, delta: isize) {
    let cols = board_columns(m);
    if cols.is_empty() {
        return;
    }
    let (c, r) = board_position(m, &cols);
    let col = &cols[c];
    let next = (r as isize)
        .saturating_add(delta)
        .clamp(0, col.len() as isize - 1) as usize;
    m.sel.task = Some(col[next].clone());
}

/// `h`/`l` (and the arrows) on the board: the next column that holds
/// tasks, at the same row where it can. `round`: past the last column is
/// the first (Tab, as Tab goes round the inbox's panes); `h`/`l` stop.
pub(super) fn board_column(m: &mut Model, right: bool, round: bool) {
    let cols = board_columns(m);
    if cols.is_empty() {
        return;
    }
    let (c, r) = board_position(m, &cols);
    let n = cols.len();
    let next = match (right, round) {
        (true, true) => (c + 1) % n,
        (false, true) => (c + n - 1) % n,
        (true, false) => (c + 1).min(n - 1),
        (false, false) => c.saturating_sub(1),
    };
    let col = &cols[next];
    m.sel.task = Some(col[r.min(col.len() - 1)].clone());
}

pub(super) fn open(m: &mut Model) {
    match m.screen {
        Screen::Inbox => match m.focus {
            Pane::Threads => {
                if m.sel.thread.is_some() {
                    m.sel.message = m.current_message().map(|x| x.key.to_string());
                    m.focus = Pane::Messages;
                }
            }
            Pane::Messages => {
                m.sel.message = m.current_message().map(|x| x.key.to_string());
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
        Screen::Agents if m.queue_focus => super::review::open_queued(m),
        Screen::Agents => {
            let bead = m
                .sel
                .agent
                .as_ref()
                .and_then(|n| m.roster().iter().find(|a| &a.name == n))
                .and_then(|a| a.bead.clone());
            jump_to_bead(m, bead);
        }
    }
}

pub(super) fn jump_to_bead(m: &mut Model, bead: Option<String>) {
    let Some(bead) = bead else {
        m.notice = Some(Notice::info("no thread for this item"));
        return;
    };
    let Some(id) = m
        .inbox
        .threads
        .iter()
        .find(|t| t.bead.is_some_and(|b| b == bead) || t.id == bead)
        .map(|t| t.id.clone())
    else {
        m.notice = Some(Notice::info(format!("no mail about {bead}")));
        return;
    };
    // Esc from here goes back where Enter was pressed (the board, the roster).
    m.came_from = Some(m.screen).filter(|s| *s != Screen::Inbox);
    m.screen = Screen::Inbox;
    m.filter = Filter::All;
    m.set_selected(ListKind::Threads, Some(id));
    m.focus = Pane::Messages;
}

pub(super) fn back(m: &mut Model) {
    // Out of the queues first, as Esc steps out of the inbox's panes.
    if m.screen == Screen::Agents && m.queue_focus {
        m.queue_focus = false;
        return;
    }
    if m.screen != Screen::Inbox {
        // The board shown from the roster's queues goes back to them.
        m.screen = match m.came_from.take() {
            Some(Screen::Agents) if m.screen == Screen::Tasks => Screen::Agents,
            _ => Screen::Inbox,
        };
        return;
    }
    // The first Esc drops the marks.
    if !m.marks.is_empty() {
        m.marks = Default::default();
        return;
    }
    if m.focus != Pane::Message {
        if let Some(s) = m.came_from.take() {
            m.screen = s;
            return;
        }
    }
    match m.focus {
        Pane::Message => m.focus = Pane::Messages,
        Pane::Messages => m.focus = Pane::Threads,
        Pane::Threads => {
            if m.esc_clears_search() {
                m.search = Search::default();
            } else if m.filter != Filter::All {
                set_filter(m, Filter::All);
            }
        }
    }
}
