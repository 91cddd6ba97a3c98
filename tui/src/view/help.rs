//! `?`: every action with its live keys, grouped, plus the legend of marks
//! and the config path. Built from the keymap at draw time, so rebinds in
//! the config file show here as they are.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};
use ratatui::Frame;

use super::{centered, line_text, pane};
use crate::keymap::{Action, Group};
use crate::model::Model;
use crate::text::fit;

/// Everything the overlay shows, in one column.
pub(crate) fn help_lines(m: &Model) -> Vec<Line<'static>> {
    let mut out = key_lines(m);
    out.extend(extra_lines(m));
    out
}

/// Every action with its live keys, by group.
pub(crate) fn key_lines(m: &Model) -> Vec<Line<'static>> {
    let t = &m.config.theme;
    let km = &m.config.keymap;
    let mut out = Vec::new();
    for g in [Group::Move, Group::Views, Group::Mail, Group::App] {
        out.push(Line::styled(g.title().to_string(), t.heading()));
        for a in Action::ALL.into_iter().filter(|a| a.group() == g) {
            out.push(Line::from(vec![
                Span::styled(format!("  {}", fit(&km.keys_label(a), 22)), t.accent()),
                Span::styled(a.describe().to_string(), t.base()),
            ]));
        }
        out.push(Line::raw(""));
    }
    out
}

/// Text-entry keys, the legend of marks, config path and warnings.
pub(crate) fn extra_lines(m: &Model) -> Vec<Line<'static>> {
    let t = &m.config.theme;
    let mut out = Vec::new();
    out.push(Line::styled("Text entry", t.heading()));
    for (k, d) in [
        ("  Ctrl-s", "send the reply"),
        ("  Ctrl-e", "continue the reply in $EDITOR"),
        ("  Esc  Ctrl-c", "discard the reply / cancel search"),
        ("  Enter", "keep search / choose"),
    ] {
        out.push(Line::from(vec![
            Span::styled(fit(k, 24), t.accent()),
            Span::styled(d.to_string(), t.base()),
        ]));
    }
    out.push(Line::raw(""));
    out.push(Line::styled("Marks", t.heading()));
    for (k, d) in [
        ("  ●ACK", "an acknowledgement is still owed (●ACK3: three)"),
        ("  ✓ACK", "every recipient acknowledged"),
        ("  ‼HELP", "a help request nobody has answered"),
        ("  ? HELP  ↩ ANSWER", "help request / help response"),
        ("  … PROGRESS  ▶ ACCEPTED", "work under way"),
        ("  ◆ OFFERED  ✓ DONE", "offered for review / done"),
        (
            "  ✗ FAILED  ⟳ CHECKPT",
            "failed / checkpointed for a successor",
        ),
    ] {
        out.push(Line::from(vec![
            Span::styled(fit(k, 26), t.base()),
            Span::styled(d.to_string(), t.muted()),
        ]));
    }
    out.push(Line::raw(""));
    let path = m
        .config
        .path
        .as_ref()
        .map(|p| line_text(&p.display().to_string()))
        .unwrap_or_else(|| "(built-in defaults)".into());
    out.push(Line::styled(format!("Config: {path}"), t.muted()));
    out.push(Line::styled(
        format!(
            "Theme: {}{}",
            m.config.theme.name,
            if m.config.theme.color {
                ""
            } else {
                " (no colour)"
            }
        ),
        t.muted(),
    ));
    for w in &m.config.warnings {
        out.push(Line::styled(format!("⚠ {}", line_text(w)), t.warn()));
    }
    out
}

pub fn draw(m: &Model, f: &mut Frame, body: Rect, scroll: u16) {
    let title = format!("Help · {} closes", m.config.keymap.first_key(Action::Help));
    // Wide terminals get two columns so everything fits without scrolling.
    if body.width >= 140 {
        let area = centered(body, 150, body.height);
        f.render_widget(Clear, area);
        let block = pane(m, title, true);
        let inner = block.inner(area);
        f.render_widget(block, area);
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(inner);
        let (keys, extra) = (key_lines(m), extra_lines(m));
        // Never scroll past the longer column (`G` asks for "the end").
        let longest = keys.len().max(extra.len());
        let scroll = scroll.min(longest.saturating_sub(inner.height as usize) as u16);
        f.render_widget(Paragraph::new(keys).scroll((scroll, 0)), left);
        f.render_widget(
            Paragraph::new(extra)
                .wrap(Wrap { trim: false })
                .scroll((scroll, 0)),
            right,
        );
        return;
    }
    let area = centered(body, 76, body.height);
    f.render_widget(Clear, area);
    let block = pane(m, title, true);
    let lines = help_lines(m);
    let visible = area.height.saturating_sub(2) as usize;
    let scroll = scroll.min(lines.len().saturating_sub(visible) as u16);
    f.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
}
