//! The view: draws a [`Model`] into a ratatui `Frame`. No side effects
//! beyond remembering list scroll offsets (see `model`).
//!
//! Layout: a header (screens + filter tabs), the body, and a two-line
//! footer (status line; key hints, notice or search prompt). The body
//! adapts to width: 120 columns and up show thread list | messages over
//! message side by side; narrower terminals show the focused pane only.
//!
//! Every string that came from an agent goes through [`amail_core::safe_text`]
//! before it becomes a `Span`: the helpers `line_text` and `para_text`
//! are the only way agent text enters a buffer here.

pub(crate) mod agent_queues;
pub mod agents;
pub(crate) mod columns;
pub(crate) mod compose;
pub(crate) mod footer;
pub mod help;
pub mod hit;
pub mod message;
pub mod messages;
pub(crate) mod overlays;
pub mod tasks;
pub mod threads;

use std::cell::Cell;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph};
use ratatui::Frame;

use super::keymap::Action;
use super::model::{Filter, ListKind, Model, Overlay, Pane, Screen};
use super::text;
use amail_core::safe_text::{clean_line, clean_text};

/// Draws the whole app.
pub fn view(m: &Model, f: &mut Frame) {
    let area = f.area();
    let [header, tabs, body, status, hints] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_header(m, f, header);
    draw_tabs(m, f, tabs);
    match m.screen {
        Screen::Inbox => draw_inbox(m, f, body),
        Screen::Tasks => tasks::draw(m, f, body),
        Screen::Agents => agents::draw(m, f, body),
    }
    footer::draw_status(m, f, status);
    footer::draw_hints(m, f, hints);
    match &m.overlay {
        Some(Overlay::Help { scroll }) => help::draw(m, f, body, *scroll),
        Some(o @ Overlay::Choose { .. }) => overlays::draw_chooser(m, f, body, o),
        Some(o @ Overlay::Editor { .. }) => overlays::draw_editor(m, f, body, o),
        Some(o @ Overlay::Pick { .. }) => compose::draw_pick(m, f, body, o),
        Some(o @ Overlay::Compose { .. }) => compose::draw_compose(m, f, body, o),
        // A one-line prompt: the footer draws it.
        Some(Overlay::Reason { .. }) | None => {}
    }
    footer::draw_tall_notice(m, f, area);
}

/// How much of each filter tab [`filter_tabs`] shows.
#[derive(Clone, Copy, PartialEq)]
enum TabForm {
    /// Key digit, name and count (80 columns and up).
    Keyed,
    Counted,
    /// The name alone, but the selected tab's count.
    Named,
}

/// The inbox's filter tabs in the widest form that fits `room` columns:
/// key digits (80 columns and up), names and counts, then the count on
/// the selected tab only, then the tabs farthest from the selected one
/// left out under `…`. A name is never cut: a cut `Fail` reads as a
/// filter of its own, and a tab that falls off the edge unmarked looks
/// like one that does not exist.
fn filter_tabs(m: &Model, room: usize) -> Vec<(Option<Filter>, Span<'static>)> {
    let t = &m.config.theme;
    let text = |i: usize, filter: Filter, form: TabForm| {
        let label = filter.label();
        let count = m.filter_count(filter);
        let selected = m.filter == filter;
        match form {
            TabForm::Keyed if selected => format!("[{} {label} {count}]", i + 1),
            TabForm::Keyed => format!(" {} {label} {count} ", i + 1),
            _ if selected => format!("[{label} {count}]"),
            TabForm::Counted => format!("{label} {count}"),
            TabForm::Named => label.to_string(),
        }
    };
    // One blank between tabs (the one after the last may fall off).
    let width_of = |tabs: &[String]| {
        tabs.iter()
            .map(|s| text::width(s) + 1)
            .sum::<usize>()
            .saturating_sub(1)
    };
    let forms: &[TabForm] = if room >= 79 {
        &[TabForm::Keyed, TabForm::Counted, TabForm::Named]
    } else {
        &[TabForm::Counted, TabForm::Named]
    };
    let mut tabs = Vec::new();
    for &form in forms {
        tabs = Filter::ALL
            .into_iter()
            .enumerate()
            .map(|(i, filter)| text(i, filter, form))
            .collect();
        if width_of(&tabs) <= room {
            break;
        }
    }
    // Still too wide (Named): a window of tabs around the selected one,
    // shrunk from its farther end, each side left out marked `… `.
    let selected = Filter::ALL.iter().position(|&f| f == m.filter).unwrap_or(0);
    let (mut from, mut to) = (0, tabs.len());
    let marks =
        |from: usize, to: usize| 2 * usize::from(from > 0) + 2 * usize::from(to < tabs.len());
    while width_of(&tabs[from..to]) + marks(from, to) > room && to - from > 1 {
        if to - 1 - selected >= selected - from {
            to -= 1;
        } else {
            from += 1;
        }
    }
    let mut spans = Vec::new();
    let mark = |spans: &mut Vec<(Option<Filter>, Span<'static>)>| {
        spans.push((None, Span::styled("… ", t.muted())))
    };
    if from > 0 {
        mark(&mut spans);
    }
    for (i, tab) in tabs.into_iter().enumerate().take(to).skip(from) {
        let style = if i == selected {
            t.selected()
        } else {
            t.base()
        };
        spans.push((Some(Filter::ALL[i]), Span::styled(tab, style)));
        spans.push((None, Span::raw(" ")));
    }
    if to < Filter::ALL.len() {
        mark(&mut spans);
    }
    spans
}

/// The inbox's tab line `width` columns wide, each span with the filter
/// whose tab it is: a blank, the filter tabs, then the inbox's own kept
/// search with its count. The search's room is taken first (up to half
/// the line, its query cut before its count), so the tabs narrow for it:
/// at 80 columns the count fell off the edge (`/green` and nothing).
/// The mouse's hit test walks the same spans.
pub(crate) fn inbox_tabs(m: &Model, width: u16) -> Vec<(Option<Filter>, Span<'static>)> {
    let room = (width as usize).saturating_sub(1);
    let search = inbox_search(m, room / 2);
    let taken = search.as_ref().map_or(0, |s| text::width(s) + 1);
    let mut spans = vec![(None, Span::raw(" "))];
    spans.extend(filter_tabs(m, room.saturating_sub(taken)));
    if let Some(s) = search {
        spans.push((None, Span::styled(s, m.config.theme.warn())));
    }
    spans
}

/// `/query 3/7` for the tab line, at most `room` wide (the query cut, the
/// count whole), when a kept search is the inbox's (`search_shows_in`).
fn inbox_search(m: &Model, room: usize) -> Option<String> {
    let inbox = m.search_shows_in(ListKind::Threads) || m.search_shows_in(ListKind::Messages);
    if !inbox || m.search.typing {
        return None;
    }
    let found = m.search_progress();
    let so_far = if found.is_some_and(|f| f.2) {
        "…"
    } else {
        ""
    };
    let pos = match found.map(|(n, at, _)| (n, at)) {
        None => String::new(),
        Some((0, _)) if !so_far.is_empty() => " …".to_string(),
        Some((0, _)) => " no match".to_string(),
        Some((n, Some(i))) => format!(" {i}/{n}{so_far}"),
        Some((n, None)) => format!(" {n}{so_far}"),
    };
    let query = text::truncate(
        &clean_line(&m.search.query),
        room.saturating_sub(1 + text::width(&pos)).max(1),
    );
    Some(format!("/{query}{pos}"))
}

fn draw_header(m: &Model, f: &mut Frame, area: Rect) {
    let t = &m.config.theme;
    let screens = |keyed: bool| {
        let mut spans = vec![
            Span::styled(" amail ", t.accent()),
            Span::styled("│", t.muted()),
        ];
        for (screen, label, action) in [
            (Screen::Inbox, "Inbox", super::keymap::Action::ScreenInbox),
            (Screen::Tasks, "Tasks", super::keymap::Action::ScreenTasks),
            (
                Screen::Agents,
                "Agents",
                super::keymap::Action::ScreenAgents,
            ),
        ] {
            let text = if keyed {
                format!(" {label} [{}] ", m.config.keymap.first_key(action))
            } else {
                format!(" {label} ")
            };
            spans.push(if m.screen == screen {
                Span::styled(format!("▸{}", text.trim_start()), t.selected())
            } else {
                Span::styled(text, t.muted())
            });
        }
        Line::from(spans)
    };
    let who = match &m.identity {
        Some(me) => format!("as {} ", clean_line(me)),
        None => "as any recipient ".into(),
    };
    let room = area.width as usize;
    // Narrower than the whole header, the key hints go first (the footer
    // and `?` give them), then who the inbox is read as (the status bar
    // says it too): every screen keeps its name whole.
    let mut line = screens(true);
    if line.width() + text::width(&who) > room {
        line = screens(false);
    }
    let used = line.width();
    if used + text::width(&who) <= room {
        line.spans
            .push(Span::raw(" ".repeat(room - used - text::width(&who))));
        line.spans.push(Span::styled(who, t.info()));
    }
    f.render_widget(Paragraph::new(line), area);
}

fn draw_tabs(m: &Model, f: &mut Frame, area: Rect) {
    let t = &m.config.theme;
    let mut spans = Vec::new();
    match m.screen {
        Screen::Inbox => spans.extend(inbox_tabs(m, area.width).into_iter().map(|(_, s)| s)),
        Screen::Tasks => {
            spans.push(Span::raw(" "));
            spans.push(Span::styled("Task board", t.accent()));
            spans.push(Span::styled(
                format!("  {} tasks", m.tasks.len()),
                t.muted(),
            ));
            // Task files the board could not read are named by `amail
            // doctor` (and `amail tasks`); here only that they exist.
            let skipped = m.tasks_skipped.len();
            if skipped > 0 {
                spans.push(Span::styled(
                    format!(
                        "  {} (unreadable): amail doctor names {}",
                        skipped_task_files(skipped),
                        if skipped == 1 { "it" } else { "them" }
                    ),
                    t.warn(),
                ));
            }
        }
        Screen::Agents => {
            spans.push(Span::raw(" "));
            spans.push(Span::styled("Agent roster", t.accent()));
            spans.push(Span::styled(
                format!("  {} agents", m.roster().len()),
                t.muted(),
            ));
        }
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn draw_inbox(m: &Model, f: &mut Frame, area: Rect) {
    // Decided from the frame, not the model, so layout never lags a resize.
    for (pane, r) in inbox_panes_in(m, area) {
        match pane {
            Pane::Threads => threads::draw(m, f, r),
            Pane::Messages => messages::draw(m, f, r),
            Pane::Message => message::draw(m, f, r),
        }
    }
}

/// A bordered pane; the focused one gets the accent and a heavier border.
/// The body rectangle, as [`view`] splits the frame (the mouse's hit
/// test and the roster's `Tab` ask it the other way round).
pub(crate) fn body(m: &Model) -> Rect {
    let (w, h) = m.size;
    Rect::new(0, 2, w, h.saturating_sub(4))
}

/// The inbox's panes at the model's size (see [`inbox_panes_in`]).
pub(crate) fn inbox_panes(m: &Model) -> Vec<(Pane, Rect)> {
    inbox_panes_in(m, body(m))
}

/// The inbox's panes in `area`, the focused one alone on a narrow
/// terminal (see [`inbox_layout`]).
pub(crate) fn inbox_panes_in(m: &Model, area: Rect) -> Vec<(Pane, Rect)> {
    let messages = m.selected_thread().map_or(0, |t| t.messages.len());
    inbox_layout(area, m.focus, messages)
}

/// The inbox's panes in `area`: on a terminal 120 columns wide or more,
/// the threads beside the selected thread's `messages` over the message
/// itself; narrower, the `focus` pane alone. The one home of this layout:
/// drawing, clicks and the message view's scrolling all ask it. The
/// message list takes a row a message and its borders, at least 4 rows
/// and at most half the height (in a pane under 8 rows tall, half).
pub(crate) fn inbox_layout(area: Rect, focus: Pane, messages: usize) -> Vec<(Pane, Rect)> {
    if area.width < 120 {
        return vec![(focus, area)];
    }
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(52), Constraint::Percentage(48)]).areas(area);
    let rows = u16::try_from(messages.saturating_add(2)).unwrap_or(u16::MAX);
    let list_h = rows.max(4).min(right.height / 2);
    let [top, bottom] =
        Layout::vertical([Constraint::Length(list_h), Constraint::Min(3)]).areas(right);
    vec![
        (Pane::Threads, left),
        (Pane::Messages, top),
        (Pane::Message, bottom),
    ]
}

pub fn pane<'a>(m: &Model, title: String, focused: bool) -> Block<'a> {
    let t = &m.config.theme;
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Plain
        })
        .border_style(t.border(focused))
        .title(Span::styled(
            format!(" {title} "),
            if focused { t.accent() } else { t.base() },
        ))
}

/// [`pane`] with its title cut to the pane's width (an ellipsis shows it
/// was cut; ratatui would clip it silently).
pub fn titled<'a>(m: &Model, title: String, focused: bool, area: Rect) -> Block<'a> {
    let room = (area.width as usize).saturating_sub(4);
    pane(m, text::truncate(&title, room), focused)
}

/// A header: `what`, then as many of `keys` as fit in `room` columns,
/// each whole (`lead` before the first, ` · ` between), the last ones
/// left out first; `what` is cut with `…` only when it alone is too wide.
/// The footer names the keys too, so none is cut in the middle: at 40
/// columns the recipients' list said "Enter take" and the editors "Ctrl…".
pub(crate) fn with_keys(what: &str, lead: &str, keys: &[&str], room: usize) -> String {
    let mut out = what.to_string();
    for (i, key) in keys.iter().enumerate() {
        let next = format!("{out}{}{key}", if i == 0 { lead } else { " · " });
        if text::width(&next) > room {
            break;
        }
        out = next;
    }
    text::truncate(&out, room)
}

/// A kept search's keys, for a pane's hints: `n`/`N` move in the list it
/// is of (the pane's title shows only the count), and Esc clears it
/// where Esc does. Empty when no search is kept on the focused list:
/// `n` still moves in another list with the same query, as vim's last
/// pattern does, but with no count there the hint would follow every
/// thread opened from a search into its messages.
/// " · /query 3/7" for the title of `kind`'s pane while the kept search
/// is that list's (`Model::search_shows_in`), where `n`/`N` move: the
/// thread list's, the board's and the roster's alike (the board's had no
/// count, the roster's nothing). Empty otherwise.
pub(crate) fn kept_search_title(m: &Model, kind: ListKind) -> String {
    if !m.search_shows_in(kind) {
        return String::new();
    }
    let mut title = format!(" · /{}", line_text(&m.search.query));
    if m.search.typing {
        return title;
    }
    let found = m.search_progress();
    let so_far = if found.is_some_and(|f| f.2) {
        "…"
    } else {
        ""
    };
    match found.map(|(n, at, _)| (n, at)) {
        None => {}
        Some((0, _)) if !so_far.is_empty() => title.push_str(" …"),
        Some((0, _)) => title.push_str(" no match"),
        Some((n, Some(i))) => title.push_str(&format!(" {i}/{n}{so_far}")),
        Some((n, None)) => title.push_str(&format!(" ({n}{so_far})")),
    }
    title
}

pub(crate) fn kept_search_hints(m: &Model) -> Vec<(String, &'static str)> {
    if m.search.typing || m.searched_list().is_none() {
        return Vec::new();
    }
    let k = &m.config.keymap;
    let mut hints = vec![(k.run(&[Action::SearchNext, Action::SearchPrev]), "match")];
    // Cleared by the back action, whichever key that is now.
    if m.esc_clears_search() {
        hints.push((k.first_key(Action::Back), "clear search"));
    }
    hints
}

/// Agent text for one line: sanitised, newlines folded.
pub(crate) fn line_text(s: &str) -> String {
    clean_line(s).into_owned()
}

/// Agent text for a paragraph: sanitised, one `Line` per source line.
pub(crate) fn para_text(s: &str, style: Style) -> Vec<Line<'static>> {
    clean_text(s)
        .lines()
        .map(|l| Line::styled(l.to_string(), style))
        .collect()
}

/// First index to show so `selected` stays within `height` rows, moving
/// the remembered offset as little as possible (no jumpy recentring).
pub(crate) fn scroll_window(
    offset: &Cell<usize>,
    selected: Option<usize>,
    len: usize,
    height: usize,
) -> usize {
    let mut start = offset.get().min(len.saturating_sub(height.max(1)));
    if let Some(sel) = selected {
        if sel < start {
            start = sel;
        } else if height > 0 && sel >= start + height {
            start = sel + 1 - height;
        }
    }
    offset.set(start);
    start
}

/// A column of items `per` rows each in `rows` rows (the board's cards,
/// an agent's queued tasks): which show, from `start`, `shown` of them,
/// the selected one in view. A column that does not hold them all keeps
/// a line over its items and one under them, to say how many are out of
/// view each way ("↑ 2 more", "↓ 4 more"): the board's cards above the
/// selected one went unannounced and its `+N more` below fell off a full
/// column; a queue's `+N more` counted the tasks above with those below.
pub(crate) struct Column {
    pub(crate) start: usize,
    pub(crate) shown: usize,
    len: usize,
}

impl Column {
    pub(crate) fn new(len: usize, per: usize, rows: usize, selected: Option<usize>) -> Column {
        let shown = if len * per <= rows {
            len
        } else {
            (rows.saturating_sub(2) / per.max(1)).max(1)
        };
        let start = selected.map_or(0, |i| (i + 1).saturating_sub(shown));
        Column { start, shown, len }
    }

    /// The rows before the first item: the line over them when cut.
    pub(crate) fn lead(&self) -> usize {
        usize::from(self.len > self.shown)
    }

    /// The line over the items: how many are above, blank when none are
    /// (the items do not move when some go out of view); `None` when all show.
    pub(crate) fn above(&self, m: &Model) -> Option<Line<'static>> {
        if self.start > 0 {
            Some(Line::styled(
                format!("  ↑ {} more", self.start),
                m.config.theme.muted(),
            ))
        } else {
            (self.lead() > 0).then(|| Line::raw(""))
        }
    }

    /// The line under the items: how many are below, if any.
    pub(crate) fn below(&self, m: &Model) -> Option<Line<'static>> {
        let after = self.len.saturating_sub(self.start + self.shown);
        (after > 0).then(|| Line::styled(format!("  ↓ {after} more"), m.config.theme.muted()))
    }
}

/// ` · 1-20 of 64 ↓` for a title: where a window on a longer list is and
/// which way more is; empty when everything shows.
pub(crate) fn window_note(start: usize, visible: usize, total: usize) -> String {
    if total <= visible {
        return String::new();
    }
    let last = (start + visible).min(total);
    span_note(start + 1, last, total, start > 0, last < total)
}

/// ` · 3-9 of 12 ↑↓`: items `first` to `last` of `total` show, and more
/// are above (`up`) or below (`down`).
pub(crate) fn span_note(first: usize, last: usize, total: usize, up: bool, down: bool) -> String {
    let arrows = match (up, down) {
        (true, true) => " ↑↓",
        (true, false) => " ↑",
        (false, true) => " ↓",
        (false, false) => "",
    };
    format!(" · {first}-{last} of {total}{arrows}")
}

/// ` · 7` for a title, or where the window is when the pane does not
/// show all seven (` · 1-4 of 7 ↓`, [`window_note`]).
pub(crate) fn count_note(start: usize, visible: usize, total: usize) -> String {
    match window_note(start, visible, total) {
        w if w.is_empty() => format!(" · {total}"),
        w => w,
    }
}

/// The two columns before a row: `▶` on the cursor's row, `■` on a
/// marked one (Space, `V`).
pub(crate) fn cursor(selected: bool, marked: bool) -> &'static str {
    match (selected, marked) {
        (true, true) => "▶■",
        (true, false) => "▶ ",
        (false, true) => " ■",
        (false, false) => "  ",
    }
}

/// Pads a row to the pane width so a selected row is highlighted edge to edge.
pub(crate) fn full_row(
    mut line: Line<'static>,
    width: u16,
    selected: bool,
    m: &Model,
) -> Line<'static> {
    let w = line.width();
    if w < width as usize {
        line.spans.push(Span::raw(" ".repeat(width as usize - w)));
    }
    if selected {
        line = line.style(m.config.theme.selected());
    }
    line
}

/// Centered rectangle for overlays.
pub(crate) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// `⚠ N task files skipped`: the board's header and an agent's queues say
/// it alike when task files did not parse.
pub(crate) fn skipped_task_files(n: usize) -> String {
    format!("⚠ {n} task file{} skipped", amail_core::words::plural(n))
}
