//! The selected agent's three task queues, under the roster: AOF's
//! mailbox view (`aof watch mailbox`), read through
//! `Backend::mailbox`. Inbox is what waits for the agent (ready),
//! processing what it holds (in-progress, blocked), outbox what waits for
//! a reviewer (review, where `A`/`X` on the board answer it).
//!
//! Three columns side by side at every width, one task per row, so the
//! queues keep their shape from 60 columns up; a wide or tall terminal
//! shows more of each title and more rows, and a queue longer than its
//! column says how many tasks are above and below those it shows
//! ("↑ 2 more", "↓ 3 more"), as the board's columns do.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{line_text, titled};
use crate::model::{age, Model};
use crate::text::{fit, fit_middle, fit_right, width};
use crate::theme::task_status;
use amail_core::router::TaskSummary;

/// Rows the pane needs at least: borders, the headings and three tasks.
pub(crate) const MIN_HEIGHT: u16 = 6;

/// The tasks a queue `height` rows high shows (the heading takes one),
/// the selected task in view: the board's [`super::Column`], one row a
/// task.
fn window(tasks: &[TaskSummary], height: u16, selected: Option<&str>) -> super::Column {
    let sel = tasks.iter().position(|t| Some(t.id.as_str()) == selected);
    super::Column::new(tasks.len(), 1, (height as usize).saturating_sub(1), sel)
}

/// The selected task as drawn: marked only while the queues have the focus.
fn drawn_selection(m: &Model) -> Option<&str> {
    m.queue_focus
        .then(|| m.queued_selected().map(|t| t.id.as_str()))
        .flatten()
}

/// The three queues' columns inside the pane drawn in `area`.
fn columns(area: Rect) -> std::rc::Rc<[Rect]> {
    let inner = Rect::new(
        area.x + 1,
        area.y + 1,
        area.width.saturating_sub(2),
        area.height.saturating_sub(2),
    );
    Layout::horizontal([Constraint::Ratio(1, 3); 3]).split(inner)
}

/// The task drawn at (`x`, `y`) of the queues in `area`, for a click: the
/// same columns and rows [`draw`] lays out, asked the other way round.
pub(crate) fn task_at(m: &Model, area: Rect, x: u16, y: u16) -> Option<String> {
    let agent = m.sel.agent.as_deref()?;
    let q = match &m.queues {
        Some((a, Ok(q))) if a == agent => q,
        _ => return None,
    };
    let selected = drawn_selection(m);
    let cols = columns(area);
    let (i, col) = cols
        .iter()
        .enumerate()
        .find(|(_, c)| x >= c.x && x < c.x + c.width && y > c.y && y < c.y + c.height)?;
    let tasks = [&q.inbox, &q.processing, &q.outbox][i];
    let column = window(tasks, col.height, selected);
    let row = ((y - col.y - 1) as usize).checked_sub(column.lead())?;
    (row < column.shown).then(|| tasks[column.start + row].id.clone())
}

pub(crate) fn draw(m: &Model, f: &mut Frame, area: Rect) {
    let th = &m.config.theme;
    let Some(agent) = m.sel.agent.as_deref() else {
        return;
    };
    // The answer on screen is drawn only beside its own agent.
    let answer = m
        .queues
        .as_ref()
        .filter(|(a, _)| a == agent)
        .map(|(_, r)| r);
    // Narrow panes leave the counts to the column headings.
    let mut title = match answer {
        Some(Ok(q)) if area.width >= 90 => format!(
            "Task queues · {} · {} to do · {} working · {} in review",
            line_text(agent),
            q.inbox.len(),
            q.processing.len(),
            q.outbox.len()
        ),
        _ => format!("Task queues · {}", line_text(agent)),
    };
    // A skipped file may be this agent's: the queues are not known whole.
    // `amail doctor` names the files, as the board's header says.
    if let Some(Ok(q)) = answer {
        let skipped = q.skipped.len();
        if skipped > 0 {
            title.push_str(&format!(
                " · {} (amail doctor)",
                super::skipped_task_files(skipped)
            ));
        }
    }
    let block = titled(m, title, m.queue_focus, area);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let q = match answer {
        Some(Ok(q)) => q,
        Some(Err(e)) => {
            f.render_widget(
                Paragraph::new(Line::styled(format!("✗ {}", line_text(e)), th.error())),
                inner,
            );
            return;
        }
        None => {
            f.render_widget(
                Paragraph::new(Line::styled("reading the task store…", th.muted())),
                inner,
            );
            return;
        }
    };
    let cols = columns(area);
    let narrow = inner.width < 90;
    let selected = drawn_selection(m);
    for ((label, hint, tasks), col) in [
        ("INBOX", "ready", &q.inbox),
        ("PROCESSING", "in progress, blocked", &q.processing),
        ("OUTBOX", "review", &q.outbox),
    ]
    .into_iter()
    .zip(cols.iter())
    {
        let hint = if narrow { "" } else { hint };
        draw_queue(m, f, *col, (label, hint), tasks, selected);
    }
}

fn draw_queue(
    m: &Model,
    f: &mut Frame,
    col: Rect,
    (label, hint): (&str, &str),
    tasks: &[TaskSummary],
    selected: Option<&str>,
) {
    let th = &m.config.theme;
    // One column of space between queues.
    let w = (col.width as usize).saturating_sub(1);
    let heading = if hint.is_empty() {
        format!("{label} {}", tasks.len())
    } else {
        format!("{label} {} ({hint})", tasks.len())
    };
    let mut lines = vec![Line::styled(
        fit(&heading, w),
        th.accent().add_modifier(ratatui::style::Modifier::BOLD),
    )];
    if tasks.is_empty() {
        lines.push(Line::styled(fit("  none", w), th.muted()));
    }
    let column = window(tasks, col.height, selected);
    let (start, shown) = (column.start, column.shown);
    lines.extend(column.above(m));
    // Ids take what the longest needs, up to two thirds of the column
    // (the id is what `A`/`X` and the CLI take); the title gets the rest,
    // and the age shows once there is room for it.
    let longest = tasks
        .iter()
        .skip(start)
        .take(shown)
        .map(|t| width(&line_text(&t.id)))
        .max()
        .unwrap_or(0);
    let id_w = longest.min(w * 2 / 3).max(6.min(w));
    let age_w = if w >= 40 { 5 } else { 0 };
    let title_w = w.saturating_sub(2 + id_w + 1 + age_w);
    for t in tasks.iter().skip(start).take(shown) {
        let (g, tone) = task_status(t.status);
        let sel = selected == Some(t.id.as_str());
        let line = Line::from(vec![
            // The mark takes the blank after the glyph: the row keeps its width.
            Span::styled(
                if sel {
                    format!("▶{g}")
                } else {
                    format!("{g} ")
                },
                th.tone(tone),
            ),
            Span::styled(fit_middle(&line_text(&t.id), id_w), th.tone(tone)),
            Span::raw(" "),
            Span::styled(fit(&line_text(&t.title), title_w), th.base()),
            Span::styled(
                if age_w > 0 {
                    fit_right(&age(m.now, t.updated_at), age_w)
                } else {
                    String::new()
                },
                th.muted(),
            ),
        ]);
        lines.push(super::full_row(line, w as u16, sel, m));
    }
    lines.extend(column.below(m));
    f.render_widget(Paragraph::new(lines), col);
}
