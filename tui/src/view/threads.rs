//! The thread list: one row per thread with flags, type badge, bead,
//! who said what last, and age.
//!
//! Row: `▶ ●ACK ‼HELP  ? HELP     ol-527.2    PurpleBear: Which auth…   5m`
//! The flags and the badge carry both a glyph and a word so they read the
//! same without colour.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{full_row, line_text, pane, scroll_window};
use crate::keymap::Action;
use crate::model::{age, Model, Pane, Screen};
use crate::text::{fit, fit_right};
use crate::theme::{badge, Tone};
use amail_core::inbox::{HelpState, Thread};

pub fn draw(m: &Model, f: &mut Frame, area: Rect) {
    let focused = m.screen == Screen::Inbox && m.focus == Pane::Threads;
    let threads = m.visible_threads();
    let mut title = format!("Threads · {} · {}", m.filter.label(), threads.len());
    if !m.search.query.is_empty() {
        title.push_str(&format!(" · /{}", line_text(&m.search.query)));
    }
    let block = pane(m, title, focused);
    let inner = block.inner(area);
    f.render_widget(block, area);
    if threads.is_empty() {
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
    let selected = m
        .sel
        .thread
        .as_ref()
        .and_then(|k| threads.iter().position(|t| &t.id == k));
    let h = inner.height as usize;
    let start = scroll_window(&m.offsets.threads, selected, threads.len(), h);
    let lines: Vec<Line> = threads
        .iter()
        .enumerate()
        .skip(start)
        .take(h)
        .map(|(i, t)| {
            full_row(
                row(m, t, inner.width as usize, selected == Some(i)),
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

fn row(m: &Model, t: &Thread, width: usize, selected: bool) -> Line<'static> {
    let th = &m.config.theme;
    let pending = m.thread_pending(t);
    let kind = m
        .last_message(t)
        .map(|x| x.message.kind)
        .unwrap_or(amail_parser::MessageType::Unknown);
    let (g, word, tone) = badge(kind);
    let bead = line_text(t.bead.as_deref().unwrap_or(&t.id));
    let ack = if pending > 0 {
        format!(
            "●ACK{}",
            if pending > 1 {
                pending.to_string()
            } else {
                String::new()
            }
        )
    } else {
        String::new()
    };
    let help = if t.help == HelpState::Unanswered {
        "‼HELP"
    } else {
        ""
    };
    let age_s = age(m.now, t.last_at);
    // cursor 2 + ack 5 + help 6 + badge 11 + bead 13 + age 5
    let bead_w = if width >= 90 { 14 } else { 11 };
    let fixed = 2 + 5 + 6 + 11 + bead_w + 5;
    let rest = width.saturating_sub(fixed);
    let mut spans = vec![
        Span::styled(if selected { "▶ " } else { "  " }, th.accent()),
        Span::styled(fit(&ack, 5), th.warn()),
        Span::styled(fit(help, 6), th.error()),
        Span::styled(fit(&format!("{g} {word}"), 11), th.tone(tone)),
        Span::styled(fit(&bead, bead_w), th.info()),
        Span::styled(
            fit(&status_line(m, t), rest),
            if tone == Tone::Muted {
                th.muted()
            } else {
                th.base()
            },
        ),
        Span::styled(fit_right(&age_s, 5), th.muted()),
    ];
    if rest == 0 {
        spans.remove(5);
    }
    Line::from(spans)
}

/// Key hints this pane offers (gitui style: the focused component says).
pub fn hints(m: &Model) -> Vec<(String, &'static str)> {
    let k = &m.config.keymap;
    vec![
        (k.first_key(Action::Open), "open"),
        (k.first_key(Action::Ack), "ack"),
        (k.first_key(Action::Reply), "reply"),
        (k.first_key(Action::Search), "search"),
        ("1-6".into(), "filter"),
        (k.first_key(Action::ScreenTasks), "tasks"),
        (k.first_key(Action::Help), "help"),
        (k.first_key(Action::Quit), "quit"),
    ]
}
