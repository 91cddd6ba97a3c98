//! The thread list: one row per thread with flags, type badge, bead,
//! who said what last, and age.
//!
//! Row: `▶ ●ACK ‼HELP  ? HELP     ol-527.2  PurpleBear: Which auth…   5m`
//! The flags and the badge carry both a glyph and a word so they read the
//! same without colour.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{full_row, line_text, scroll_window, titled};
use crate::keymap::Action;
use crate::model::{age, Model, Pane, Screen};
use crate::text::{fit, fit_middle, fit_right, width as width_of};
use crate::theme::{badge, badge_cell, type_badge, Tone};
use amail_core::inbox::{HelpState, Thread};

pub fn draw(m: &Model, f: &mut Frame, area: Rect) {
    let focused = m.screen == Screen::Inbox && m.focus == Pane::Threads;
    // Positions, not a list of every thread shown: only the rows on
    // screen are read.
    let visible = m.visible_indices();
    let selected = m.sel.thread.as_deref().and_then(|k| m.visible_position(k));
    // The rows inside the borders; a longer list says which of them show.
    let h = area.height.saturating_sub(2) as usize;
    let start = scroll_window(&m.offsets.threads, selected, visible.len(), h);
    let mut title = format!(
        "Threads · {}{}",
        m.filter.label(),
        super::count_note(start, h, visible.len())
    );
    title.push_str(&super::kept_search_title(
        m,
        crate::model::ListKind::Threads,
    ));
    if !m.marks.threads.is_empty() {
        title.push_str(&format!(" · {} marked", m.marks.threads.len()));
    }
    let block = titled(m, title, focused, area);
    let inner = block.inner(area);
    f.render_widget(block, area);
    if visible.is_empty() {
        let msg = if m.inbox.threads.is_empty() {
            empty_reason(m)
        } else {
            format!("No threads under “{}”. Press 1 for all.", m.filter.label())
        };
        f.render_widget(
            Paragraph::new(Line::styled(msg, m.config.theme.muted()))
                .wrap(ratatui::widgets::Wrap { trim: false }),
            inner,
        );
        return;
    }
    let shown: Vec<&Thread> = visible
        .iter()
        .skip(start)
        .take(h)
        .map(|&i| &m.inbox.threads[i])
        .collect();
    let cols = Columns::for_rows(m, &shown, inner.width as usize);
    let lines: Vec<Line> = shown
        .iter()
        .enumerate()
        .map(|(k, &t)| (start + k, t))
        .map(|(i, t)| {
            full_row(
                row(m, t, inner.width as usize, &cols, selected == Some(i)),
                inner.width,
                selected == Some(i),
                m,
            )
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}

fn empty_reason(m: &Model) -> String {
    let mut s = String::from(
        "No mail yet. New messages appear here as agents send them; ? lists the keys.",
    );
    if let Some((_, why)) = m.inbox.problems.first() {
        s = format!("No mail: {}", line_text(why));
    }
    if let Some(e) = &m.load_error {
        s = format!("Could not load: {}", line_text(e));
    }
    s
}

/// The one-line summary of what a thread is at: last sender + status
/// (the same words as `amail threads`), safe for the terminal.
pub(crate) fn status_line(m: &Model, t: &Thread) -> String {
    line_text(&m.inbox.thread_state(t))
}

/// The most telling single line of a message, by type (sanitised).
pub fn summary(msg: &amail_parser::OwnedMessage) -> String {
    line_text(&amail_core::inbox::summary::message_line(msg))
}

/// Column widths shared by every row of one frame.
pub(crate) struct Columns {
    /// `●ACK` and `‼HELP` each get a column only when a row shown carries
    /// them, so no gutter sits empty; narrow rows that need both share one
    /// (help first).
    flags: Flags,
    /// The `●ACK` column: as wide as the widest count shown needs, so
    /// `●ACK120` is never cut to `●ACK1…` (read as one owed).
    ack: usize,
    id: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flags {
    Both,
    Ack,
    Help,
    One,
    None,
}

const CURSOR: usize = 2;
const BADGE: usize = 11;
const AGE: usize = 5;
/// Columns a row keeps for who wrote what before its id gives way.
const STATE_KEPT: usize = 16;
/// The narrowest id worth showing (`ol-5…2.1`): below it, none.
const ID_MIN: usize = 8;

impl Columns {
    /// Ids get what the longest shown one needs, up to a third of the row
    /// (ids that share a prefix are cut in the middle, see `shorten_middle`).
    pub(crate) fn for_rows(m: &Model, threads: &[&Thread], width: usize) -> Columns {
        let help = threads.iter().any(|t| t.help == HelpState::Unanswered);
        let widest_ack = threads
            .iter()
            .map(|t| width_of(&ack_mark(m.thread_pending(t))))
            .max()
            .unwrap_or(0);
        let ack = widest_ack > 0;
        let flags = match (ack, help) {
            (true, true) if width >= 76 => Flags::Both,
            (true, true) => Flags::One,
            (true, false) => Flags::Ack,
            (false, true) => Flags::Help,
            (false, false) => Flags::None,
        };
        let longest = threads
            .iter()
            .map(|t| width_of(&line_text(t.bead.as_deref().unwrap_or(&t.id))))
            .max()
            .unwrap_or(8);
        let id = (longest + 1).clamp(8, (width / 3).max(8));
        // Never narrower than the `●ACK2` the columns were made for; alone,
        // a blank after the widest mark (beside `‼HELP`, the `‼` parts
        // them, as it always has: `●ACK2‼HELP`).
        let ack = match flags {
            Flags::Both => widest_ack.max(5),
            _ => (widest_ack + 1).max(6),
        };
        let mut cols = Columns { flags, ack, id };
        // Who wrote what keeps [`STATE_KEPT`] columns: the id gives way to
        // it, and goes where less than [`ID_MIN`] of it would be left (at
        // 40 columns the id's third left the sender one column, `B…`).
        let room = width.saturating_sub(CURSOR + cols.flags_w() + BADGE + AGE);
        if room < cols.id + STATE_KEPT {
            cols.id = room.saturating_sub(STATE_KEPT);
            if cols.id < ID_MIN {
                cols.id = 0;
            }
        }
        cols
    }

    fn flags_w(&self) -> usize {
        match self.flags {
            Flags::Both => self.ack + 6,
            Flags::Ack | Flags::One => self.ack,
            Flags::Help => 6,
            Flags::None => 0,
        }
    }
}

/// `●ACK`, `●ACK3`, or nothing: the acks a thread still owes.
fn ack_mark(pending: usize) -> String {
    match pending {
        0 => String::new(),
        1 => "●ACK".to_string(),
        n => format!("●ACK{n}"),
    }
}

fn row(m: &Model, t: &Thread, width: usize, cols: &Columns, selected: bool) -> Line<'static> {
    let th = &m.config.theme;
    let pending = m.thread_pending(t);
    let (g, word, tone) = match m.last_message(t) {
        Some(x) => type_badge(&x.message),
        None => {
            let (g, w, tone) = badge(amail_parser::MessageType::Unknown);
            (g, w.into(), tone)
        }
    };
    let bead = line_text(t.bead.as_deref().unwrap_or(&t.id));
    let ack = ack_mark(pending);
    let help = t.help == HelpState::Unanswered;
    let age_s = age(m.now, t.last_at);
    let fixed = CURSOR + cols.flags_w() + BADGE + cols.id + AGE;
    let rest = width.saturating_sub(fixed);
    let mut spans = vec![Span::styled(
        super::cursor(selected, m.marks.threads.contains(&t.id)),
        th.accent(),
    )];
    let help_mark = if help { "‼HELP" } else { "" };
    match cols.flags {
        Flags::Both => {
            spans.push(Span::styled(fit(&ack, cols.ack), th.warn()));
            spans.push(Span::styled(fit(help_mark, 6), th.error()));
        }
        Flags::Ack => spans.push(Span::styled(fit(&ack, cols.ack), th.warn())),
        Flags::Help => spans.push(Span::styled(fit(help_mark, 6), th.error())),
        Flags::One if help => spans.push(Span::styled(fit(help_mark, cols.ack), th.error())),
        Flags::One => spans.push(Span::styled(fit(&ack, cols.ack), th.warn())),
        Flags::None => {}
    }
    spans.push(Span::styled(badge_cell(g, &word, BADGE), th.tone(tone)));
    if cols.id > 0 {
        spans.push(Span::styled(
            fit_middle(&bead, cols.id - 1) + " ",
            th.info(),
        ));
    }
    if rest > 0 {
        spans.push(Span::styled(
            fit(&status_line(m, t), rest),
            if tone == Tone::Muted {
                th.muted()
            } else {
                th.base()
            },
        ));
    }
    spans.push(Span::styled(fit_right(&age_s, AGE), th.muted()));
    Line::from(spans)
}

/// Key hints this pane offers (gitui style: the focused component says).
pub fn hints(m: &Model) -> Vec<(String, &'static str)> {
    let k = &m.config.keymap;
    // Most used first: narrow terminals keep the front of the list.
    let mut hints = super::kept_search_hints(m);
    hints.extend([
        (k.first_key(Action::Open), "open"),
        (k.first_key(Action::Ack), "ack"),
        (k.first_key(Action::Reply), "reply"),
        (k.first_key(Action::Search), "search"),
        (k.first_key(Action::Help), "help"),
        (k.first_key(Action::Mark), "mark"),
        (k.first_key(Action::Compose), "new"),
        (
            k.run(&[
                Action::FilterAll,
                Action::FilterPending,
                Action::FilterHelp,
                Action::FilterInProgress,
                Action::FilterFailed,
                Action::FilterDone,
            ]),
            "filter",
        ),
        (k.first_key(Action::ScreenTasks), "tasks"),
        (k.first_key(Action::Quit), "quit"),
    ]);
    hints
}
