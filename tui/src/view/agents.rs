//! The agent roster: who is working on what, who waits for help, how many
//! acks each still owes, and when each was last heard from. One state per
//! agent ([`roster_state`]): what its mail says when that is news (help,
//! offered, failed, checkpoint), else its AgentTurn state (dispatched,
//! running, suspended), so "idle" never stands beside "running". An agent with
//! two or more beads in progress at once breaks the single-active-turn rule
//! and is flagged in red (`⚠ N beads` in place of its bead).

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{full_row, line_text, scroll_window, titled};
use crate::keymap::Action;
use crate::model::{age, Model};
use crate::text::{fit, fit_right};
use crate::theme::Tone;
use amail_core::inbox::{AgentState, TurnState};

pub(crate) fn state_badge(s: AgentState) -> (&'static str, Tone) {
    match s {
        AgentState::Idle => ("○ idle", Tone::Muted),
        AgentState::Working => ("… working", Tone::Info),
        AgentState::WaitingForHelp => ("? needs help", Tone::Warn),
        AgentState::Offered => ("◆ offered", Tone::Ok),
        AgentState::Failed => ("✗ failed", Tone::Error),
        AgentState::Checkpointed => ("⟳ checkpoint", Tone::Warn),
    }
}

pub(crate) fn turn_badge(s: TurnState) -> (&'static str, Tone) {
    match s {
        TurnState::Idle => ("○ idle", Tone::Muted),
        TurnState::Dispatched => ("→ dispatched", Tone::Info),
        TurnState::Running => ("▶ running", Tone::Ok),
        TurnState::Suspended => ("‖ suspended", Tone::Warn),
    }
}

/// The one state shown for an agent. Mail that asks for a person (help,
/// an offering, a failure, a checkpoint) wins; otherwise a live turn
/// (dispatched, running, suspended) says more than "working" or "idle".
pub(crate) fn roster_state(a: &amail_core::inbox::Agent) -> (&'static str, Tone) {
    match (a.state, a.turn) {
        (
            AgentState::Idle | AgentState::Working,
            TurnState::Dispatched | TurnState::Running | TurnState::Suspended,
        ) => turn_badge(a.turn),
        (s, _) => state_badge(s),
    }
}

pub fn draw(m: &Model, f: &mut Frame, area: Rect) {
    let th = &m.config.theme;
    let block = titled(m, format!("Agents · {}", m.inbox.agents.len()), true, area);
    let inner = block.inner(area);
    f.render_widget(block, area);
    if m.inbox.agents.is_empty() {
        f.render_widget(
            Paragraph::new(Line::styled("No agents have written yet.", th.muted())),
            inner,
        );
        return;
    }
    let w = inner.width as usize;
    let last_w = w.saturating_sub(2 + 16 + 14 + 13 + 8 + 5);
    let mut lines = vec![Line::styled(
        format!(
            "  {}{}{}{}{}{}",
            fit("agent", 16),
            fit("state", 14),
            fit("bead", 13),
            fit("owes", 8),
            fit("last message", last_w),
            fit_right("seen", 5)
        ),
        th.muted(),
    )];
    let h = (inner.height as usize).saturating_sub(1);
    let selected = m
        .sel
        .agent
        .as_ref()
        .and_then(|k| m.inbox.agents.iter().position(|a| &a.name == k));
    let start = scroll_window(&m.offsets.agents, selected, m.inbox.agents.len(), h);
    let owed = m.counts().owed;
    for (i, a) in m.inbox.agents.iter().enumerate().skip(start).take(h) {
        let sel = selected == Some(i);
        let (word, tone) = roster_state(a);
        let bead = if a.multiple_active {
            Span::styled(
                fit(&format!("⚠ {} beads", a.active_beads.len()), 13),
                th.tone(Tone::Error),
            )
        } else {
            // The state's bead, else the bead of the active turn.
            let b = a
                .bead
                .as_deref()
                .or(a.active_beads.last().map(String::as_str));
            Span::styled(fit(&line_text(b.unwrap_or("-")), 13), th.info())
        };
        let owes = owed.get(&a.name).copied().unwrap_or(0);
        let last = a
            .last_message
            .and_then(|i| m.inbox.messages.get(i))
            .map(|x| line_text(&x.message.subject))
            .unwrap_or_default();
        let line = Line::from(vec![
            Span::styled(if sel { "▶ " } else { "  " }, th.accent()),
            Span::styled(fit(&line_text(&a.name), 16), th.base()),
            Span::styled(fit(word, 14), th.tone(tone)),
            bead,
            Span::styled(
                fit(
                    &if owes > 0 {
                        format!("●{owes} ack")
                    } else {
                        "-".into()
                    },
                    8,
                ),
                if owes > 0 { th.warn() } else { th.muted() },
            ),
            Span::styled(fit(&last, last_w), th.base()),
            Span::styled(fit_right(&age(m.now, a.last_at), 5), th.muted()),
        ]);
        lines.push(full_row(line, inner.width, sel, m));
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// Whether row `y` is the column headings of the roster drawn in `area`.
pub(crate) fn is_header(y: u16, area: Rect) -> bool {
    y == area.y + 1
}

pub fn hints(m: &Model) -> Vec<(String, &'static str)> {
    let k = &m.config.keymap;
    vec![
        (k.first_key(Action::Open), "thread"),
        (k.first_key(Action::Search), "search"),
        (k.first_key(Action::ScreenInbox), "inbox"),
        (k.first_key(Action::ScreenTasks), "tasks"),
        (k.first_key(Action::Help), "help"),
        (k.first_key(Action::Quit), "quit"),
    ]
}
