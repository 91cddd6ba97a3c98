//! `?`: every action with its live keys, grouped, plus the legend of marks
//! and the config path. Built from the keymap at draw time, so rebinds in
//! the config file show here as they are.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

use super::{centered, line_text, pane};
use crate::keymap::{Action, Group};
use crate::model::Model;
use crate::text::fit;
use crate::theme::badge;
use amail_parser::MessageType;

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
    for g in [
        Group::Move,
        Group::Views,
        Group::Mail,
        Group::Tasks,
        Group::App,
    ] {
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
        ("  Ctrl-s", "send the reply or message"),
        ("  Ctrl-e", "continue the reply in $EDITOR"),
        (
            "  Ctrl-w  Ctrl-u",
            "delete the word / the line before the cursor",
        ),
        ("  Esc  Ctrl-c", "cancel search; on typed text, ask first"),
        ("  y / k", "asked: discard / keep the draft"),
        ("  y / e / d", "after $EDITOR: send / edit again / discard"),
        ("  Space", "choosing recipients: mark several"),
        ("  Enter", "keep search / choose"),
        ("  Enter / Esc", "reject's reason: reject / cancel"),
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
        ("  ✓ACK", "every recipient (with --as: you) acknowledged"),
        ("  ‼HELP", "a help request nobody has answered"),
        (
            "  ●  (status line)",
            "acks still owed (the Pending tab: their threads)",
        ),
        (
            "  ‼  (status line)",
            "help requests unanswered (the Help tab: all)",
        ),
        (
            "  ✗  (status line)",
            "failed threads (the Failed tab's count)",
        ),
        (
            "  ⚠  (status line)",
            "mail not read, or not whole (listed at the end)",
        ),
    ] {
        out.push(Line::from(vec![
            Span::styled(fit(k, 26), t.base()),
            Span::styled(d.to_string(), t.muted()),
        ]));
    }
    // Every badge a row can carry, from the same table the rows use.
    let mut kinds = MessageType::KNOWN.to_vec();
    kinds.push(MessageType::Unknown);
    for kind in kinds {
        let (g, w, tone) = badge(kind);
        out.push(Line::from(vec![
            Span::styled(fit(&format!("  {g} {w}"), 26), t.tone(tone)),
            Span::styled(badge_meaning(kind).to_string(), t.muted()),
        ]));
    }
    let (g, w, tone) = crate::theme::REPLY;
    out.push(Line::from(vec![
        Span::styled(fit(&format!("  {g} {w}"), 26), t.tone(tone)),
        Span::styled(
            "a reply (`Re:`), whatever type it names".to_string(),
            t.muted(),
        ),
    ]));
    out.push(Line::raw(""));
    let c = &m.config;
    let path = match &c.path {
        None => "(built-in defaults)".into(),
        Some(p) => {
            let p = line_text(&p.display().to_string());
            match (c.path_read, c.warnings.is_empty()) {
                (true, _) => p,
                (false, true) => format!("{p} (not there: built-in defaults)"),
                (false, false) => format!("{p} (not read: built-in defaults)"),
            }
        }
    };
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
    // Config problems whole: wrapped here (the overlay does not wrap, so
    // its scrolling counts real rows), continuation rows indented.
    for w in &m.config.warnings {
        warning(&mut out, m, &line_text(w));
    }
    // The last load's failure whole: the footer, where it stays while
    // the source fails, has one row for it.
    if let Some(e) = &m.load_error {
        out.push(Line::raw(""));
        warning(&mut out, m, &format!("Could not load: {}", line_text(e)));
    }
    // The mail's, which the status line counts, as the command line
    // names them: path and why.
    let problems = &m.inbox.problems;
    if !problems.is_empty() {
        out.push(Line::raw(""));
        out.push(Line::styled(
            format!("Mail problems: {}", problems.len()),
            t.heading(),
        ));
        for (path, why) in problems.iter().take(LISTED) {
            let path = line_text(&path.display().to_string());
            warning(&mut out, m, &format!("{path}: {}", line_text(why)));
        }
        if problems.len() > LISTED {
            out.push(Line::styled(
                format!(
                    "… and {} more: `amail threads` on the source names each",
                    problems.len() - LISTED
                ),
                t.muted(),
            ));
        }
    }
    out
}

/// The mail problems listed one by one: a mailbox of a thousand broken
/// files is summed up after these.
const LISTED: usize = 200;

/// `text` as a warning, wrapped, its continuation rows indented.
fn warning(out: &mut Vec<Line<'static>>, m: &Model, text: &str) {
    let text = format!("⚠ {text}");
    for (i, row) in crate::text::wrap_words(&text, WRAP - 2)
        .into_iter()
        .enumerate()
    {
        let indent = if i == 0 { "" } else { "  " };
        out.push(Line::styled(
            format!("{indent}{row}"),
            m.config.theme.warn(),
        ));
    }
}

/// Columns the help text is wrapped to (fits the 76-column overlay).
const WRAP: usize = 70;

fn badge_meaning(kind: MessageType) -> &'static str {
    match kind {
        MessageType::BeadAccepted => "an agent took the bead",
        MessageType::Progress => "work under way",
        MessageType::HelpRequest => "a help request",
        MessageType::HelpResponse => "an answer to a help request",
        MessageType::OfferingReady => "offered for review",
        MessageType::Done => "done",
        MessageType::Failed => "failed",
        MessageType::Checkpoint => "checkpointed for a successor",
        MessageType::SpawnRequest => "asks for an agent to be started",
        MessageType::SpawnAck => "an agent was started",
        MessageType::Unknown => "a note, or the unlisted type its subject names",
    }
}

/// `Help · ? closes · 1-20 of 64 ↓`: where the view is and which way more is.
fn title(m: &Model, scroll: usize, visible: usize, total: usize) -> String {
    format!(
        "Help · {} closes{}",
        m.config.keymap.first_key(Action::Help),
        super::window_note(scroll, visible, total)
    )
}

/// The overlay's shape in `body`: two columns (keys | legend) at 140
/// columns and up, else one. Drawing and scrolling both ask it, so a key
/// can never scroll to a place the view does not draw.
struct Shape {
    area: Rect,
    two_columns: bool,
    /// Rows the text can use.
    visible: usize,
    /// Rows of the longest column.
    total: usize,
}

fn shape(m: &Model, body: Rect) -> Shape {
    let two_columns = body.width >= 140;
    let area = centered(body, if two_columns { 150 } else { 76 }, body.height);
    let total = if two_columns {
        let w = column_width(area);
        fold(key_lines(m), w)
            .len()
            .max(fold(extra_lines(m), w).len())
    } else {
        fold(help_lines(m), inner_width(area)).len()
    };
    Shape {
        area,
        two_columns,
        visible: area.height.saturating_sub(2) as usize,
        total,
    }
}

/// The overlay's box on the current screen (a click beside it closes it).
pub(crate) fn area(m: &Model) -> Rect {
    shape(m, super::body(m)).area
}

/// The furthest the overlay scrolls on the current screen: the last page
/// fills the view (`G` asks for that, and `j` stops there).
pub(crate) fn max_scroll(m: &Model) -> u16 {
    let (w, h) = m.size;
    // The body: the screen less the header, tabs, status and hints rows.
    let body = Rect::new(0, 0, w, h.saturating_sub(4));
    let s = shape(m, body);
    s.total.saturating_sub(s.visible).min(u16::MAX as usize) as u16
}

pub fn draw(m: &Model, f: &mut Frame, body: Rect, scroll: u16) {
    let Shape {
        area,
        two_columns,
        visible,
        total,
    } = shape(m, body);
    f.render_widget(Clear, area);
    let scroll = scroll.min(total.saturating_sub(visible) as u16);
    let block = pane(m, title(m, scroll as usize, visible, total), true);
    // Wide terminals get two columns so everything fits without scrolling.
    if two_columns {
        let inner = block.inner(area);
        f.render_widget(block, area);
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(inner);
        let w = column_width(area);
        f.render_widget(
            Paragraph::new(fold(key_lines(m), w)).scroll((scroll, 0)),
            left,
        );
        f.render_widget(
            Paragraph::new(fold(extra_lines(m), w)).scroll((scroll, 0)),
            right,
        );
        return;
    }
    f.render_widget(
        Paragraph::new(fold(help_lines(m), inner_width(area)))
            .block(block)
            .scroll((scroll, 0)),
        area,
    );
}

fn inner_width(area: Rect) -> usize {
    area.width.saturating_sub(2) as usize
}

/// Each of the two columns' width (the layout's halves of the inner width).
fn column_width(area: Rect) -> usize {
    inner_width(area) / 2
}

/// `lines` folded to `width` columns: a line wider than that wraps at its
/// words, a key's description hanging under where it starts (or, when the
/// keys take more than half the width, on lines of its own under them),
/// so nothing is cut at the border: at 40 columns "half a page down" was
/// "half a page do". Drawing and scrolling both count the folded lines.
fn fold(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for line in lines {
        if line.width() <= width || width < 8 {
            out.push(line);
            continue;
        }
        let mut spans = line.spans.into_iter();
        let (prefix, rest): (Option<Span<'static>>, Vec<Span<'static>>) = if line_is_keyed(&spans) {
            (spans.next(), spans.collect())
        } else {
            (None, spans.collect())
        };
        let style = rest.first().map(|s| s.style).unwrap_or_default();
        let text: String = rest.iter().map(|s| s.content.as_ref()).collect();
        // The first row's lead (the keys, or nothing), the room it
        // leaves, and the indent of the rows after it.
        let (lead, first_room, indent) = match prefix {
            Some(p) if crate::text::width(&p.content) <= width / 2 => {
                let w = crate::text::width(&p.content);
                (p, width - w, w)
            }
            Some(p) => {
                // The keys on their own line, the description under them.
                let keys = p.content.trim_end().to_string();
                out.push(Line::from(Span::styled(keys, p.style)));
                (Span::raw("    "), width - 4, 4)
            }
            None => (Span::raw(""), width, 2),
        };
        let rows = crate::text::wrap_hanging(text.split_whitespace(), first_room, width - indent);
        for (i, row) in rows.into_iter().enumerate() {
            let lead = if i == 0 {
                lead.clone()
            } else {
                Span::raw(" ".repeat(indent))
            };
            out.push(Line::from(vec![lead, Span::styled(row, style)]));
        }
    }
    out
}

/// Whether a help line is a key (or mark) column and its description.
fn line_is_keyed(spans: &std::vec::IntoIter<Span<'static>>) -> bool {
    spans.len() >= 2
}
