//! The task board: the router's tasks grouped by AOF status, in lifecycle
//! order, each group headed by its glyph, word and count. Every status is
//! listed even when empty so the board's shape never changes.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{full_row, line_text, scroll_window, titled};
use crate::keymap::Action;
use crate::model::{age, Model};
use crate::text::{cell, fit, fit_middle, fit_right, id_cell};
use crate::theme::task_status;
use amail_core::aof::TaskStatus;

enum Row<'a> {
    Header(TaskStatus, usize),
    Task(&'a amail_core::router::TaskSummary),
}

/// Whether the board inside `inner` is drawn as one column per status
/// (else a grouped list).
fn columns(m: &Model, inner: Rect) -> bool {
    inner.width >= 140 && !m.tasks.is_empty()
}

/// Whether the board is drawn in columns at the current size: a status
/// is then a pane of its own.
pub(crate) fn in_columns(m: &Model) -> bool {
    let area = super::body(m);
    columns(m, Rect::new(0, 0, area.width.saturating_sub(2), 0))
}

pub fn draw(m: &Model, f: &mut Frame, area: Rect) {
    let th = &m.config.theme;
    let search = super::kept_search_title(m, crate::model::ListKind::Tasks);
    let inner = area.inner(ratatui::layout::Margin::new(1, 1));
    if columns(m, inner) {
        let block = titled(m, format!("Task board{search}"), true, area);
        f.render_widget(block, area);
        draw_columns(m, f, inner);
        return;
    }
    let board = m.board();
    let mut rows = Vec::new();
    for s in TaskStatus::ALL {
        let n = board.iter().filter(|t| t.status == s).count();
        rows.push(Row::Header(s, n));
        rows.extend(board.iter().filter(|t| t.status == s).map(|t| Row::Task(t)));
    }
    let selected = m.sel.task.as_ref().and_then(|k| {
        rows.iter()
            .position(|r| matches!(r, Row::Task(t) if &t.id == k))
    });
    let h = inner.height as usize;
    let start = scroll_window(&m.offsets.tasks, selected, rows.len(), h);
    // A board longer than the pane says which of its tasks show (of the
    // tasks, as the header counts them, not of the rows with headings).
    let end = (start + h).min(rows.len());
    let tasks_to = |at: usize| {
        rows[..at]
            .iter()
            .filter(|r| matches!(r, Row::Task(_)))
            .count()
    };
    // Only a task out of view makes a range, and the arrows point at
    // tasks: empty headings cut below all the tasks said "1-12 of 12 ↓".
    let (before, to) = (tasks_to(start), tasks_to(end));
    let note = if before > 0 || to < board.len() {
        // (Headings alone in view: the last task above them.)
        let first = (before + 1).min(to);
        super::span_note(first, to, board.len(), before > 0, to < board.len())
    } else {
        String::new()
    };
    let block = titled(m, format!("Task board{note}{search}"), true, area);
    f.render_widget(block, area);
    let w = inner.width as usize;
    // Router ids are long and share their date (TASK-2026-11-24-3sEa…): the
    // column takes what the longest needs, up to a third of the row, and
    // an id that still does not fit loses its middle, not its tail.
    let longest = board
        .iter()
        .map(|t| crate::text::width(&line_text(&t.id)))
        .max()
        .unwrap_or(10);
    let ListColumns {
        id: id_w,
        title: title_w,
        bead: bead_w,
        agent: agent_w,
        age: age_w,
    } = ListColumns::at(w, (longest + 2).clamp(13, (w / 3).max(13)));
    let lines: Vec<Line> = rows
        .iter()
        .enumerate()
        .skip(start)
        .take(h)
        .map(|(i, r)| match r {
            Row::Header(s, n) => {
                let (g, tone) = task_status(*s);
                Line::from(vec![
                    Span::styled(
                        format!("{g} {}", s.as_str().to_uppercase()),
                        th.tone(tone).add_modifier(ratatui::style::Modifier::BOLD),
                    ),
                    Span::styled(format!(" ({n})"), th.muted()),
                ])
            }
            Row::Task(t) => {
                let sel = selected == Some(i);
                let (g, tone) = task_status(t.status);
                let line = Line::from(vec![
                    Span::styled(if sel { "▶ " } else { "  " }, th.accent()),
                    Span::styled(
                        format!("{g} {}", fit_middle(&line_text(&t.id), id_w - 2)),
                        th.tone(tone),
                    ),
                    Span::raw(" "),
                    Span::styled(cell(&line_text(&t.title), title_w), th.base()),
                    Span::styled(
                        id_cell(&line_text(t.bead.as_deref().unwrap_or("-")), bead_w),
                        th.info(),
                    ),
                    Span::styled(
                        id_cell(
                            &line_text(t.agent.as_deref().unwrap_or("unassigned")),
                            agent_w,
                        ),
                        th.base(),
                    ),
                    Span::styled(fit_right(&age(m.now, t.updated_at), age_w), th.muted()),
                ]);
                full_row(line, inner.width, sel, m)
            }
        })
        .collect();
    if board.is_empty() {
        let mut l = lines;
        l.push(Line::raw(""));
        l.push(Line::styled(
            "No tasks in the store yet (route some mail: amail route).",
            th.muted(),
        ));
        f.render_widget(Paragraph::new(l), inner);
    } else {
        f.render_widget(Paragraph::new(lines), inner);
    }
}

/// The list's column widths for a pane `w` wide whose id column wants
/// `id`: the title takes what is left, and keeps [`TITLE_KEPT`] before
/// the others give way. Narrower than they need with it (64 at the least
/// id), the age goes, then the widest of the id, bead and agent columns
/// narrows in turn (to 10, 8 and 8; ids and names are cut in the middle,
/// so neighbours still differ), then the bead goes, then the agent:
/// nothing runs into the next column or under the border uncut, and a
/// title is never cut to a word's start (at 60 columns the demo's were
/// three characters, at 40 none).
struct ListColumns {
    id: usize,
    title: usize,
    bead: usize,
    agent: usize,
    age: usize,
}

/// What a task's title keeps in the list before other columns give way:
/// a few words ("Token refresh e…"), then the cell's blank.
const TITLE_KEPT: usize = 16 + 1;

impl ListColumns {
    fn at(w: usize, id: usize) -> ListColumns {
        use super::columns::{give_way, Col, Give};
        let mut c = [
            Col::new(id, 10),
            Col::new(13, 8),
            Col::new(13, 8),
            Col::new(5, 5),
        ];
        const STEPS: [Give; 4] = [
            Give::Drop(3),
            Give::Narrow(&[0, 1, 2]),
            Give::Drop(1),
            Give::Drop(2),
        ];
        // The selection mark and the blank after the id.
        let title = give_way(w, 2 + 1, TITLE_KEPT, &mut c, &STEPS);
        let [id, bead, agent, age] = c.map(|c| c.w);
        ListColumns {
            id,
            title,
            bead,
            agent,
            age,
        }
    }
}

/// The task at (`x`, `y`) of the board drawn in `area`: in the list, the
/// row's task (a status heading selects nothing); in columns, the card,
/// and off the cards the column (a status is a pane there).
pub(crate) fn hit_row(m: &Model, area: Rect, x: u16, y: u16) -> Option<super::hit::Hit> {
    use super::hit::Hit;
    use crate::model::ListKind;
    let inner = Rect::new(
        area.x + 1,
        area.y + 1,
        area.width.saturating_sub(2),
        area.height.saturating_sub(2),
    );
    if y < inner.y || y >= inner.y + inner.height {
        return None;
    }
    let board = m.board();
    let keys = m.list_keys(ListKind::Tasks);
    let index_of = |id: &str| keys.iter().position(|k| k == id);
    if columns(m, inner) {
        let cols = Layout::horizontal(
            [Constraint::Ratio(1, TaskStatus::ALL.len() as u32); TaskStatus::ALL.len()],
        )
        .split(inner);
        let (status, col) = TaskStatus::ALL
            .into_iter()
            .zip(cols.iter())
            .find(|(_, c)| x >= c.x && x < c.x + c.width)?;
        let tasks: Vec<_> = board.iter().filter(|t| t.status == status).collect();
        let cap = ((col.height as usize).saturating_sub(2) / 4).max(1);
        let sel = tasks
            .iter()
            .position(|t| m.sel.task.as_deref() == Some(t.id.as_str()));
        let start = sel.map_or(0, |i| (i + 1).saturating_sub(cap));
        let card = y.checked_sub(col.y + 2).map(|r| start + (r / 4) as usize);
        // Off the cards (the heading, below the last), the column as
        // `h`/`l` reach it: the row the selection is at, where it can.
        let t = match card.and_then(|c| tasks.get(c)) {
            Some(t) => t,
            None => {
                let row = board
                    .iter()
                    .find(|t| m.sel.task.as_deref() == Some(t.id.as_str()))
                    .and_then(|s| {
                        board
                            .iter()
                            .filter(|t| t.status == s.status)
                            .position(|t| t.id == s.id)
                    })
                    .unwrap_or(0);
                tasks.get(row.min(tasks.len().checked_sub(1)?))?
            }
        };
        return index_of(&t.id).map(|i| Hit::Row(ListKind::Tasks, i));
    }
    let mut rows: Vec<Option<&str>> = Vec::new();
    for s in TaskStatus::ALL {
        rows.push(None);
        rows.extend(
            board
                .iter()
                .filter(|t| t.status == s)
                .map(|t| Some(t.id.as_str())),
        );
    }
    let at = m.offsets.tasks.get() + (y - inner.y) as usize;
    let id = rows.get(at).copied().flatten()?;
    index_of(id).map(|i| Hit::Row(ListKind::Tasks, i))
}

pub fn hints(m: &Model) -> Vec<(String, &'static str)> {
    let k = &m.config.keymap;
    let review = [
        (k.first_key(Action::Approve), "approve"),
        (k.first_key(Action::Reject), "reject"),
    ];
    // A task waiting for review puts its two answers first.
    let in_review = m
        .sel
        .task
        .as_deref()
        .and_then(|id| m.tasks.iter().find(|t| t.id == id))
        .is_some_and(|t| t.status == TaskStatus::Review);
    let mut hints = Vec::new();
    if in_review {
        hints.extend(review.clone());
    }
    hints.extend(super::kept_search_hints(m));
    // Shown from the roster's queues, `Esc` goes back there.
    if m.came_from == Some(crate::model::Screen::Agents) {
        hints.push((k.first_key(Action::Back), "roster"));
    }
    hints.extend([
        (k.first_key(Action::Open), "thread"),
        (k.first_key(Action::NextPane), "status"),
        (k.first_key(Action::Search), "search"),
    ]);
    if !in_review {
        hints.extend(review);
    }
    hints.extend([
        (k.first_key(Action::ScreenInbox), "inbox"),
        (k.first_key(Action::ScreenAgents), "agents"),
        (k.first_key(Action::Help), "help"),
        (k.first_key(Action::Quit), "quit"),
    ]);
    hints
}

/// Wide terminals: one column per status, a three-line card per task.
fn draw_columns(m: &Model, f: &mut Frame, area: Rect) {
    let th = &m.config.theme;
    let board = m.board();
    let cols = Layout::horizontal(
        [Constraint::Ratio(1, TaskStatus::ALL.len() as u32); TaskStatus::ALL.len()],
    )
    .split(area);
    for (status, col) in TaskStatus::ALL.into_iter().zip(cols.iter()) {
        let w = col.width.saturating_sub(1) as usize;
        let tasks: Vec<_> = board.iter().filter(|t| t.status == status).collect();
        let (g, tone) = task_status(status);
        let mut lines = vec![
            Line::styled(
                fit(
                    &format!("{g} {} {}", status.as_str().to_uppercase(), tasks.len()),
                    w,
                ),
                th.tone(tone).add_modifier(ratatui::style::Modifier::BOLD),
            ),
            Line::styled("─".repeat(w), th.muted()),
        ];
        let sel = tasks
            .iter()
            .position(|t| m.sel.task.as_deref() == Some(t.id.as_str()));
        // Four rows a card; what is out of view said over and under them.
        let column =
            super::Column::new(tasks.len(), 4, (col.height as usize).saturating_sub(2), sel);
        let (start, cap) = (column.start, column.shown);
        lines.extend(column.above(m));
        for (i, t) in tasks.iter().enumerate().skip(start).take(cap) {
            let selected = sel == Some(i);
            let style = if selected { th.selected() } else { th.base() };
            let cursor = if selected { "▶ " } else { "  " };
            // The bead says more than a generated task id in a narrow card.
            let label = t.bead.as_deref().unwrap_or(&t.id);
            lines.push(Line::styled(
                fit(
                    &format!(
                        "{cursor}{g} {}",
                        crate::text::shorten_middle(&line_text(label), w.saturating_sub(4))
                    ),
                    w,
                ),
                if selected { style } else { th.tone(tone) },
            ));
            lines.push(Line::styled(
                fit(&format!("  {}", line_text(&t.title)), w),
                style,
            ));
            let who = line_text(t.agent.as_deref().unwrap_or("unassigned"));
            lines.push(Line::styled(
                fit(&format!("  {who} · {}", age(m.now, t.updated_at)), w),
                if selected { style } else { th.muted() },
            ));
            lines.push(Line::raw(""));
        }
        lines.extend(column.below(m));
        f.render_widget(Paragraph::new(lines), *col);
    }
}
