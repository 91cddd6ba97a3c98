//! The agent roster: who is working on what, who waits for help, how many
//! acks each still owes, and when each was last heard from. One state per
//! agent (`roster_state`): what its mail says when that is news (help,
//! offered, failed, checkpoint), else its AgentTurn state (dispatched,
//! running, suspended), so "idle" never stands beside "running". An agent with
//! two or more beads in progress at once breaks the single-active-turn rule
//! and is flagged in red (`⚠ N beads` in place of its bead).

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{full_row, line_text, scroll_window, titled};
use crate::keymap::Action;
use crate::model::{age, Model};
use crate::text::{cell, fit, fit_right, id_cell};
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

/// The roster over the selected agent's task queues: the roster takes
/// the rows its agents need (it scrolls once the queues' minimum is
/// reached), the queues take the rest. The roster comes first: when the
/// queues would leave it fewer than [`ROSTER_MIN`] rows (and it needs
/// them), or there are no agents, the roster takes it all.
pub(crate) fn split(m: &Model, area: Rect) -> (Rect, Option<Rect>) {
    // Borders and the column headings, then one row per agent.
    let agents = m.roster().len();
    let want = agents as u16 + 3;
    let room = area.height.saturating_sub(super::agent_queues::MIN_HEIGHT);
    if agents == 0 || room < want.min(ROSTER_MIN) {
        return (area, None);
    }
    let roster_h = want.min(room);
    let [roster, queues] =
        Layout::vertical([Constraint::Length(roster_h), Constraint::Min(0)]).areas(area);
    (roster, Some(queues))
}

/// Whether the selected agent's queues show under the roster at the
/// current size (a short terminal leaves them out): `Tab` focuses them
/// only then.
pub(crate) fn queues_shown(m: &Model) -> bool {
    split(m, super::body(m)).1.is_some()
}

/// Rows the roster keeps before the queues get any: borders, headings and
/// five agents.
const ROSTER_MIN: u16 = 8;

pub fn draw(m: &Model, f: &mut Frame, area: Rect) {
    let (area, queues) = split(m, area);
    if let Some(q) = queues {
        super::agent_queues::draw(m, f, q);
    }
    let th = &m.config.theme;
    let roster = m.roster();
    // The rows under the borders and the headings; a longer roster says
    // which agents show.
    let h = area.height.saturating_sub(3) as usize;
    let selected = m
        .sel
        .agent
        .as_ref()
        .and_then(|k| roster.iter().position(|a| &a.name == k));
    let start = scroll_window(&m.offsets.agents, selected, roster.len(), h);
    let block = titled(
        m,
        format!(
            "Agents{}{}",
            super::count_note(start, h, roster.len()),
            super::kept_search_title(m, crate::model::ListKind::Agents)
        ),
        !m.queue_focus,
        area,
    );
    let inner = block.inner(area);
    f.render_widget(block, area);
    if roster.is_empty() {
        f.render_widget(
            Paragraph::new(Line::styled("No agents have written yet.", th.muted())),
            inner,
        );
        return;
    }
    let Columns {
        agent: agent_w,
        bead: bead_w,
        owes: owes_w,
        ctx: ctx_w,
        rate: rate_w,
        last: last_w,
        seen: seen_w,
    } = Columns::at(inner.width as usize, owes_width(m));
    let activity = m.activity();
    let mut lines = vec![Line::styled(
        format!(
            "  {}{}{}{}{}{}{}{}",
            fit("agent", agent_w),
            fit("state", STATE_W),
            fit("bead", bead_w),
            fit("owes", owes_w),
            fit(if ctx_w > 0 { "context" } else { "" }, ctx_w),
            fit(if rate_w > 0 { "msg/h" } else { "" }, rate_w),
            fit("last message", last_w),
            fit_right("seen", seen_w)
        ),
        th.muted(),
    )];
    let owed = m.counts().owed;
    for (i, a) in roster.iter().enumerate().skip(start).take(h) {
        let sel = selected == Some(i);
        let (word, tone) = roster_state(a);
        let bead = if a.multiple_active {
            Span::styled(
                cell(&format!("⚠ {} beads", a.active_beads.len()), bead_w),
                th.tone(Tone::Error),
            )
        } else {
            // The state's bead, else the bead of the active turn.
            let b = a
                .bead
                .as_deref()
                .or(a.active_beads.last().map(String::as_str));
            Span::styled(id_cell(&line_text(b.unwrap_or("-")), bead_w), th.info())
        };
        let owes = owed.get(&a.name).copied().unwrap_or(0);
        let last = a
            .last_message
            .and_then(|i| m.inbox.messages.get(i))
            .map(|x| line_text(&x.message.subject))
            .unwrap_or_default();
        let line = Line::from(vec![
            Span::styled(if sel { "▶ " } else { "  " }, th.accent()),
            Span::styled(id_cell(&line_text(&a.name), agent_w), th.base()),
            Span::styled(cell(word, STATE_W), th.tone(tone)),
            bead,
            Span::styled(
                cell(
                    &if owes > 0 {
                        format!("●{owes} ack")
                    } else {
                        "-".into()
                    },
                    owes_w,
                ),
                if owes > 0 { th.warn() } else { th.muted() },
            ),
            context_span(m, activity.context(&a.name), ctx_w),
            Span::styled(
                fit(&activity.per_hour(&a.name).to_string(), rate_w),
                th.muted(),
            ),
            Span::styled(fit(&last, last_w), th.base()),
            Span::styled(fit_right(&age(m.now, a.last_at), seen_w), th.muted()),
        ]);
        lines.push(full_row(line, inner.width, sel, m));
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// The state column's width: its longest word (`? needs help`) and a blank.
const STATE_W: usize = 14;

/// The roster's column widths for a pane `w` columns wide: at 96 columns
/// and up with context and rate, from 58 the last message in what is
/// left. Narrower, the columns a person can do without go first (seen,
/// then owes), then the agent and bead columns narrow in turn to 8 each
/// (their values cut in the middle, so neighbours still differ): nothing
/// runs under the border uncut.
struct Columns {
    agent: usize,
    bead: usize,
    owes: usize,
    ctx: usize,
    rate: usize,
    last: usize,
    seen: usize,
}

impl Columns {
    fn at(w: usize, owes: usize) -> Columns {
        use super::columns::{give_way, Col, Give};
        // Context and rate only where the last message keeps room to be read.
        let (ctx, rate) = if w >= 96 { (CONTEXT_W, 7) } else { (0, 0) };
        // The agent stays up to two wider than the bead as both narrow.
        let mut c = [
            Col {
                w: 16,
                min: 8,
                lean: 2,
            },
            Col::new(13, 8),
            Col::new(owes, owes),
            Col::new(ctx, ctx),
            Col::new(rate, rate),
            Col::new(5, 5),
        ];
        const STEPS: [Give; 3] = [Give::Drop(5), Give::Drop(2), Give::Narrow(&[0, 1])];
        // The selection mark and the state never change.
        let last = give_way(w, 2 + STATE_W, 0, &mut c, &STEPS);
        let [agent, bead, owes, ctx, rate, seen] = c.map(|c| c.w);
        Columns {
            agent,
            bead,
            owes,
            ctx,
            rate,
            last,
            seen,
        }
    }
}

/// The owes column's width: its widest value (`●454 ack`) and a blank,
/// at least the 8 of `●2 ack`. A fixed 8 cut `●454 ack` to `●454 a…`
/// beside a wide, empty last-message column.
fn owes_width(m: &Model) -> usize {
    m.counts()
        .owed
        .values()
        .max()
        .map_or(0, |n| crate::text::width(&format!("●{n} ack")) + 1)
        .max(8)
}

/// Width of the context column: an 8-reading sparkline and the latest %.
const CONTEXT_W: usize = 14;
/// `▂▃▅▇  82%`: one bar per reading (eighths of 100%), then the latest,
/// in the warn or error tone once it runs high (as the message view's bar).
pub(crate) fn sparkline(readings: &[(chrono::DateTime<chrono::Utc>, u8)]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let bars: String = readings
        .iter()
        .map(|(_, p)| BARS[((*p as usize) * 8 / 101).min(7)])
        .collect();
    match readings.last() {
        Some((_, p)) => format!("{bars:<8} {p:>3}%"),
        None => "-".into(),
    }
}

fn context_span(
    m: &Model,
    readings: &[(chrono::DateTime<chrono::Utc>, u8)],
    w: usize,
) -> Span<'static> {
    let th = &m.config.theme;
    let style = match readings.last().map(|(_, p)| *p) {
        Some(80..) => th.error(),
        Some(60..) => th.warn(),
        Some(_) => th.ok(),
        None => th.muted(),
    };
    Span::styled(fit(&sparkline(readings), w), style)
}

/// Whether row `y` is the column headings of the roster drawn in `area`.
pub(crate) fn is_header(y: u16, area: Rect) -> bool {
    y == area.y + 1
}

pub fn hints(m: &Model) -> Vec<(String, &'static str)> {
    let k = &m.config.keymap;
    if m.queue_focus {
        return vec![
            (k.first_key(Action::Open), "on the board"),
            (k.first_key(Action::NextPane), "roster"),
            (k.first_key(Action::Back), "roster"),
            (k.first_key(Action::ScreenInbox), "inbox"),
            (k.first_key(Action::ScreenTasks), "tasks"),
            (k.first_key(Action::Help), "help"),
            (k.first_key(Action::Quit), "quit"),
        ];
    }
    let mut hints = super::kept_search_hints(m);
    hints.extend([
        (k.first_key(Action::Open), "thread"),
        (
            if queues_shown(m) {
                k.first_key(Action::NextPane)
            } else {
                String::new()
            },
            "queues",
        ),
        (k.first_key(Action::Search), "search"),
        (k.first_key(Action::ScreenInbox), "inbox"),
        (k.first_key(Action::ScreenTasks), "tasks"),
        (k.first_key(Action::Help), "help"),
        (k.first_key(Action::Quit), "quit"),
    ]);
    hints
}
