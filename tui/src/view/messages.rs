//! The selected thread's messages, oldest first, with per-message ack state.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::threads::summary;
use super::{full_row, line_text, pane, scroll_window, titled};
use crate::keymap::Action;
use crate::model::{age, Model, Pane, Screen};
use crate::text::{fit, fit_right, id_cell};
use crate::theme::{badge_cell, message_badge};
use amail_core::inbox::InboxMessage;

pub fn draw(m: &Model, f: &mut Frame, area: Rect) {
    let focused = m.screen == Screen::Inbox && m.focus == Pane::Messages;
    let Some(t) = m.selected_thread() else {
        let block = pane(m, "Messages".into(), focused);
        f.render_widget(Paragraph::new("No thread selected.").block(block), area);
        return;
    };
    let msgs: Vec<&InboxMessage> = t
        .messages
        .iter()
        .filter_map(|&i| m.inbox.messages.get(i))
        .collect();
    let cur = m.current_message().map(|x| x.key.to_string());
    let selected = cur
        .as_ref()
        .and_then(|k| msgs.iter().position(|x| &x.key == k));
    // The rows inside the borders; a longer thread says which show.
    let h = area.height.saturating_sub(2) as usize;
    let start = scroll_window(&m.offsets.messages, selected, msgs.len(), h);
    let mut title = format!(
        "Thread {} · {} message{}{}",
        line_text(t.bead.as_deref().unwrap_or(&t.id)),
        msgs.len(),
        amail_core::words::plural(msgs.len()),
        super::window_note(start, h, msgs.len())
    );
    if !m.marks.messages.is_empty() {
        title.push_str(&format!(" · {} marked", m.marks.messages.len()));
    }
    let block = titled(m, title, focused, area);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let ack_w = if msgs.iter().any(|x| m.owes_ack(x).is_some()) {
        5
    } else {
        0
    };
    let lines: Vec<Line> = msgs
        .iter()
        .enumerate()
        .skip(start)
        .take(h)
        .map(|(i, x)| {
            full_row(
                row(m, x, inner.width as usize, ack_w, selected == Some(i)),
                inner.width,
                selected == Some(i),
                m,
            )
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}

/// `●ACK` when someone (with `--as`: that agent) still owes an ack,
/// `✓ACK` when they all acked; nothing when no ack was ever owed by them
/// (with `--as`, mail to other agents is not theirs to acknowledge).
pub(crate) fn ack_mark(m: &Model, x: &InboxMessage) -> (&'static str, bool) {
    match m.owes_ack(x) {
        None => ("", false),
        Some(false) => ("✓ACK", false),
        Some(true) => ("●ACK", true),
    }
}

/// `ack_w`: the ack mark column's width, 0 when no message shown has one
/// (no empty gutter).
fn row(m: &Model, x: &InboxMessage, width: usize, ack_w: usize, selected: bool) -> Line<'static> {
    let th = &m.config.theme;
    let (g, word, tone) = message_badge(x);
    let (mark, pending) = ack_mark(m, x);
    let from = line_text(x.message.from.as_deref().unwrap_or("?"));
    let what = summary(&x.message);
    let fixed = 2 + ack_w + 11 + 13 + 5;
    Line::from(vec![
        Span::styled(
            super::cursor(selected, m.marks.messages.contains(x.key.as_str())),
            th.accent(),
        ),
        Span::styled(fit(mark, ack_w), if pending { th.warn() } else { th.ok() }),
        Span::styled(badge_cell(g, &word, 11), th.tone(tone)),
        // Cut in the middle with a blank after, as the roster cuts its
        // names: `orche…worker-01` and `…-02` stay two senders, and a
        // long one never runs into the summary.
        Span::styled(id_cell(&from, 13), th.info()),
        Span::styled(fit(&what, width.saturating_sub(fixed)), th.base()),
        Span::styled(fit_right(&age(m.now, x.message.timestamp), 5), th.muted()),
    ])
}

pub fn hints(m: &Model) -> Vec<(String, &'static str)> {
    let k = &m.config.keymap;
    let mut hints = super::kept_search_hints(m);
    hints.extend([
        (k.first_key(Action::Open), "read"),
        (k.first_key(Action::Back), "back"),
        (k.first_key(Action::Ack), "ack"),
        (k.first_key(Action::Reply), "reply"),
        (k.first_key(Action::NextPane), "pane"),
        (k.first_key(Action::Help), "help"),
    ]);
    hints
}
