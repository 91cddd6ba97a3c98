//! One message, laid out by type: the envelope with per-recipient ack
//! state, then the fields that type carries (a context-usage bar for
//! progress, problem/question for help, the self-validation checklist for
//! an offering, reason and recommendation for a failure...), then the
//! body. `v` switches to the raw source with the parser's diagnostics.
//!
//! Nothing is hidden: after the fields, every body line the parser did not
//! map to one of them (an `### problem` section, intro prose) follows under
//! "Also in the message", so the view never has fewer words than the file.
//! `v` shows the file itself (read through the backend when asked), with
//! the file's own line numbers, so a diagnostic at 5:13 points at line 5.
//!
//! `detail_rows` answers `update` (which bounds scrolling by them) and
//! the view alike, so scrolling stops where the drawn rows end: every
//! line is wrapped here, once, at words (`wrap`: field values and raw
//! lines hang under their text, and no row is wider than the pane),
//! and the view draws the rows from
//! the scroll position on, unwrapped. (Left to the paragraph's own
//! wrapping, a line took more rows than the count guessed from its width,
//! and `G` stopped short of the end; and its scroll was 16 bits.)

use std::rc::Rc;

use amail_parser::{MessageType, Severity};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{line_text, para_text, titled};
use crate::keymap::Action;
use crate::model::{age, DetailRows, Model, Pane, RowsKey, Screen};
use amail_core::inbox::{InboxMessage, RecipientKind};

/// "5m ago", or "just now".
fn ago(now: chrono::DateTime<chrono::Utc>, then: chrono::DateTime<chrono::Utc>) -> String {
    match age(now, Some(then)).as_str() {
        "now" => "just now".into(),
        a => format!("{a} ago"),
    }
}
use crate::theme::{message_badge, Theme};
use amail_core::safe_text::reveal;

pub fn draw(m: &Model, f: &mut Frame, area: Rect) {
    let focused = m.screen == Screen::Inbox && m.focus == Pane::Message;
    let title = match m.current_message() {
        Some(x) if m.raw => format!("Raw · {}", line_text(&x.key)),
        Some(x) => {
            let (g, w, _) = message_badge(x);
            format!("{g} {w} · {}", line_text(&x.message.subject))
        }
        None => "Message".into(),
    };
    let block = titled(m, title, focused, area);
    let rows = detail_rows(m, usize::from(area.width.saturating_sub(2)));
    let height = usize::from(area.height.saturating_sub(2));
    let shown: Vec<Line<'static>> = rows
        .iter()
        .skip(shown_from(m.detail_scroll, rows.len(), height))
        .take(height)
        .cloned()
        .collect();
    f.render_widget(Paragraph::new(shown).block(block), area);
}

/// The first row a pane of `height` rows shows of `rows` scrolled to
/// `scroll`: the last page fills the pane, whatever scroll a shorter pane
/// (or a longer message) left.
pub(crate) fn shown_from(scroll: usize, rows: usize, height: usize) -> usize {
    scroll.min(rows.saturating_sub(height))
}

/// The message view's pane at the model's size, as the inbox lays it
/// out with the message view on screen (`view::inbox_panes_in`).
fn detail_pane(m: &Model) -> Rect {
    let messages = m.selected_thread().map_or(0, |t| t.messages.len());
    super::inbox_layout(super::body(m), Pane::Message, messages)
        .into_iter()
        .find_map(|(pane, r)| (pane == Pane::Message).then_some(r))
        .unwrap_or_default()
}

/// Rows of text the message view shows at once (for scrolling): its
/// pane's height inside the borders.
pub(crate) fn detail_rows_visible(m: &Model) -> usize {
    usize::from(detail_pane(m).height.saturating_sub(2)).max(1)
}

/// Rows the message view holds at its pane's inner width.
pub(crate) fn detail_line_count(m: &Model) -> usize {
    detail_rows(m, usize::from(detail_pane(m).width.saturating_sub(2))).len()
}

/// The message view's rows at `inner` columns: its lines, each wrapped at
/// words to that width, as they are drawn. Made once for what they show
/// ([`rows_key`]) and kept in the model until the inbox changes.
pub(crate) fn detail_rows(m: &Model, inner: usize) -> Rc<[Line<'static>]> {
    let inner = inner.max(1);
    let key = rows_key(m, inner);
    if let Some(kept) = m.detail_rows.borrow().as_ref().filter(|r| r.key == key) {
        return kept.rows.clone();
    }
    let gutter = |line: &Line<'static>| gutter_of(line, m.raw);
    let rows: Rc<[Line<'static>]> = wrap(detail_lines(m), inner, gutter).into();
    m.detail_rows.replace(Some(DetailRows {
        key,
        rows: rows.clone(),
    }));
    rows
}

/// What the message view's rows at `inner` columns show, as
/// [`RowsKey`] keeps it.
fn rows_key(m: &Model, inner: usize) -> RowsKey {
    let shown = m.current_message();
    let ages = shown.map_or_else(Vec::new, |x| {
        let acks = x.recipients.iter().filter_map(|r| r.ack_at);
        let times = x.message.timestamp.into_iter().chain(acks);
        times.map(|at| ago(m.now, at)).collect()
    });
    RowsKey {
        message: shown.map(|x| x.key.clone()),
        inner,
        raw: m.raw,
        ages,
        partial: m.partial,
        file: m.file.clone(),
    }
}

/// The message view's lines, one a field or a line of text, before they
/// are wrapped to the pane.
pub(crate) fn detail_lines(m: &Model) -> Vec<Line<'static>> {
    let Some(x) = m.current_message() else {
        return vec![Line::styled("No message selected.", m.config.theme.muted())];
    };
    match m.raw {
        true => raw_lines(m, x),
        false => structured_lines(m, x),
    }
}

/// Width of the field-name gutter (`{:>13}` and two spaces).
const GUTTER: usize = 15;

/// Width of the raw view's number gutter (`▸` or a blank, `{:>4}`, a blank).
const RAW_GUTTER: usize = 6;

/// The gutter a line's continuation rows hang under: a field's name
/// (continuation rows start under the value, not under the name), in the
/// raw view a line's number; 0 for every other line (its rows start at
/// the left edge).
fn gutter_of(line: &Line<'static>, raw: bool) -> usize {
    let first = match line.spans.as_slice() {
        [first, _, ..] => first,
        _ => return 0,
    };
    let width = crate::text::width(&first.content);
    if width == GUTTER && first.content.ends_with("  ") {
        GUTTER
    } else if raw && width == RAW_GUTTER {
        RAW_GUTTER
    } else {
        0
    }
}

/// Wraps each line wider than `width` at words, once: a line with a
/// gutter (`gutter` says how wide its first span is, 0 for none) hangs
/// its continuation rows under its text, where the pane leaves the text
/// at least 8 columns beside the gutter; other lines, and every line of a
/// pane narrower than that, wrap at the left edge. No row is wider than
/// `width` (but for one character wider than the pane).
fn wrap(
    lines: Vec<Line<'static>>,
    width: usize,
    gutter: impl Fn(&Line<'static>) -> usize,
) -> Vec<Line<'static>> {
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        if line.width() <= width {
            out.push(line);
            continue;
        }
        let gutter = Some(gutter(&line)).filter(|&g| g > 0 && width >= g + 8);
        let (room, head, text) = match gutter {
            None => (width.max(1), Vec::new(), &line.spans[..]),
            Some(g) => (width - g, vec![line.spans[0].clone()], &line.spans[1..]),
        };
        let indent = || match gutter {
            None => Vec::new(),
            Some(g) => vec![Span::raw(" ".repeat(g))],
        };
        let mut rows: Vec<Vec<Span<'static>>> = vec![head];
        let mut used = 0;
        for span in text {
            for word in span.content.split_inclusive(' ') {
                let mut word = word.to_string();
                loop {
                    // A word fits when its letters do: the blank after it
                    // may fall past the edge, where it shows nothing.
                    let w = crate::text::width(&word);
                    if used + crate::text::width(word.trim_end()) <= room {
                        rows.last_mut()
                            .expect("one row")
                            .push(Span::styled(word, span.style));
                        used += w;
                        break;
                    }
                    if used > 0 {
                        rows.push(indent());
                        used = 0;
                        if word.trim().is_empty() {
                            break;
                        }
                        continue;
                    }
                    // One word longer than the room: cut it.
                    let head = split_at_width(&word, room);
                    let tail = word[head.len()..].to_string();
                    rows.last_mut()
                        .expect("one row")
                        .push(Span::styled(head, span.style));
                    rows.push(indent());
                    word = tail;
                    if word.is_empty() {
                        break;
                    }
                }
            }
        }
        let style = line.style;
        out.extend(rows.into_iter().map(|r| Line::from(r).style(style)));
    }
    out
}

/// The longest prefix of `s` at most `cols` wide (at least one char).
fn split_at_width(s: &str, cols: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > cols && !out.is_empty() {
            break;
        }
        used += w;
        out.push(c);
    }
    out
}

/// Lowercase words of `s` (runs of letters and digits).
fn words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// The body lines with a word the lines already built do not show: what
/// the parser did not map to a field. A line whose every word is shown is
/// left out (it is the field), so nothing appears twice and no word of
/// the file is missing.
fn unmapped_lines(shown: &[Line<'static>], body: &str) -> Vec<String> {
    let seen: std::collections::HashSet<String> = shown
        .iter()
        .flat_map(|l| l.spans.iter())
        .flat_map(|s| words(&s.content).collect::<Vec<_>>())
        .collect();
    let body = amail_core::safe_text::clean_text(body);
    let lines: Vec<&str> = body.lines().collect();
    let keep: Vec<bool> = lines
        .iter()
        .map(|l| words(l).any(|w| !seen.contains(&w)))
        .collect();
    // Keep blank lines only between kept lines, so paragraphs stay apart.
    let mut out: Vec<String> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if keep[i] {
            out.push(l.trim_end().to_string());
        } else if l.trim().is_empty() && out.last().is_some_and(|p| !p.is_empty()) {
            out.push(String::new());
        }
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

fn field(t: &Theme, name: &str, value: String) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{name:>13}  "), t.muted()),
        Span::styled(value, t.base()),
    ])
}

fn section(t: &Theme, out: &mut Vec<Line<'static>>, title: &str, body: Option<&str>) {
    if let Some(b) = body.filter(|b| !b.trim().is_empty()) {
        out.push(Line::raw(""));
        out.push(Line::styled(title.to_string(), t.heading()));
        out.extend(para_text(b.trim(), t.base()));
    }
}

fn structured_lines(m: &Model, x: &InboxMessage) -> Vec<Line<'static>> {
    let t = &m.config.theme;
    let msg = &x.message;
    let p = &msg.parsed;
    let mut out = Vec::new();
    let (g, w, tone) = message_badge(x);
    out.push(Line::from(vec![
        Span::styled(format!("{:>13}  ", "type"), t.muted()),
        Span::styled(format!("{g} {w}"), t.tone(tone)),
        Span::styled(
            if msg.importance != "normal" {
                format!("  importance: {}", line_text(&msg.importance))
            } else {
                String::new()
            },
            t.warn(),
        ),
    ]));
    out.push(field(
        t,
        "from",
        line_text(msg.from.as_deref().unwrap_or("?")),
    ));
    for r in &x.recipients {
        let kind = match r.kind {
            RecipientKind::To => "to",
            RecipientKind::Cc => "cc",
            RecipientKind::Bcc => "bcc",
        };
        let (state, style) = match (msg.ack_required, r.ack_at) {
            (true, Some(at)) => (format!("✓ acked {}", ago(m.now, at)), t.ok()),
            (true, None) => ("● ack pending".to_string(), t.warn()),
            (false, _) => (
                if r.read_at.is_some() {
                    "read".into()
                } else {
                    String::new()
                },
                t.muted(),
            ),
        };
        out.push(Line::from(vec![
            Span::styled(format!("{kind:>13}  "), t.muted()),
            Span::styled(format!("{}  ", line_text(&r.agent)), t.base()),
            Span::styled(state, style),
        ]));
    }
    out.push(field(t, "subject", line_text(&msg.subject)));
    if let Some(b) = msg.bead() {
        out.push(field(t, "bead", line_text(&b)));
    }
    if let Some(ts) = msg.timestamp {
        out.push(field(
            t,
            "sent",
            format!("{} ({})", ts.format("%Y-%m-%d %H:%M UTC"), ago(m.now, ts)),
        ));
    }
    let warnings = msg.warnings().count();
    if warnings > 0 {
        out.push(Line::styled(
            format!(
                "{:>13}  ⚠ {warnings} parse warning{} (v shows them)",
                "",
                amail_core::words::plural(warnings)
            ),
            t.warn(),
        ));
    }
    out.push(Line::raw(""));
    let before = out.len();
    let opt = |o: &Option<std::borrow::Cow<'static, str>>| o.as_deref().map(line_text);
    match msg.kind {
        MessageType::Progress => {
            if let Some(s) = opt(&p.step) {
                out.push(field(t, "step", s));
            }
            if let Some(s) = opt(&p.status) {
                out.push(field(t, "status", s));
            }
            if let Some(c) = p.context_usage {
                out.push(context_bar(t, c));
            }
        }
        MessageType::HelpRequest => {
            if let Some(s) = opt(&p.issue_type) {
                out.push(field(t, "issue", format!("? {s}")));
            }
            section(t, &mut out, "Problem", p.problem.as_deref());
            section(t, &mut out, "What I tried", p.what_tried.as_deref());
            section(t, &mut out, "Question", p.question.as_deref());
        }
        MessageType::HelpResponse => section(t, &mut out, "Guidance", p.guidance.as_deref()),
        MessageType::OfferingReady | MessageType::Done => {
            if let Some(s) = opt(&p.status) {
                out.push(field(t, "status", s));
            }
            if let Some(s) = opt(&p.commit_sha) {
                out.push(field(t, "commit", s));
            }
            if let Some(files) = p.files.as_ref().filter(|f| !f.is_empty()) {
                out.push(field(
                    t,
                    "files",
                    files
                        .iter()
                        .map(|f| line_text(f))
                        .collect::<Vec<_>>()
                        .join(", "),
                ));
            }
            if p.tests_pass.is_some() || p.lint_pass.is_some() || p.build_pass.is_some() {
                out.push(Line::raw(""));
                out.push(Line::styled("Self-validation", t.heading()));
                for (name, v) in [
                    ("Tests", p.tests_pass),
                    ("Lint", p.lint_pass),
                    ("Build", p.build_pass),
                ] {
                    let (mark, style) = match v {
                        Some(true) => ("✓ PASS", t.ok()),
                        Some(false) => ("✗ FAIL", t.error()),
                        None => ("? not reported", t.muted()),
                    };
                    out.push(Line::from(vec![
                        Span::styled(format!("  {mark:<15}"), style),
                        Span::styled(name.to_string(), t.base()),
                    ]));
                }
            }
            section(t, &mut out, "Summary", p.summary.as_deref());
        }
        MessageType::Failed => {
            if let Some(s) = opt(&p.failure_type) {
                out.push(Line::from(vec![
                    Span::styled(format!("{:>13}  ", "failure"), t.muted()),
                    Span::styled(format!("✗ {s}"), t.error()),
                ]));
            }
            if let Some(n) = p.internal_attempts {
                out.push(field(t, "attempts", n.to_string()));
            }
            if let Some(s) = opt(&p.partial_commit_sha) {
                out.push(field(t, "partial", s));
            }
            section(t, &mut out, "Reason", p.reason.as_deref());
            section(t, &mut out, "Recommendation", p.recommendation.as_deref());
        }
        MessageType::Checkpoint => {
            if let Some(s) = opt(&p.checkpoint_reason) {
                out.push(field(t, "reason", format!("⟳ {s}")));
            }
            if let Some(s) = opt(&p.partial_commit_sha) {
                out.push(field(t, "commit", s));
            }
            if let Some(c) = p.context_usage {
                out.push(context_bar(t, c));
            }
            section(t, &mut out, "Progress", p.progress.as_deref());
            section(t, &mut out, "Next steps", p.next_steps.as_deref());
        }
        MessageType::BeadAccepted => {
            if let Some(s) = opt(&p.title) {
                out.push(field(t, "title", s));
            }
            if let Some(s) = opt(&p.started_at) {
                out.push(field(t, "started", s));
            }
        }
        MessageType::SpawnRequest | MessageType::SpawnAck => {
            for (n, v) in [
                ("issue", &p.issue_id),
                ("status", &p.status),
                ("orchestrator", &p.orchestrator),
                ("session", &p.session),
            ] {
                if let Some(s) = opt(v) {
                    out.push(field(t, n, s));
                }
            }
            if let Some(r) = p.resume {
                out.push(field(t, "resume", r.to_string()));
            }
        }
        MessageType::Unknown => {}
    }
    let offering = matches!(msg.kind, MessageType::OfferingReady | MessageType::Done);
    let files = p
        .files_touched
        .as_ref()
        .or(p.files.as_ref().filter(|_| !offering));
    if let Some(files) = files.filter(|f| !f.is_empty()) {
        out.push(field(
            t,
            if p.files_touched.is_some() {
                "files touched"
            } else {
                "files"
            },
            files
                .iter()
                .map(|f| line_text(f))
                .collect::<Vec<_>>()
                .join(", "),
        ));
    }
    // Nothing type-specific was parsed: the body is the message.
    if out.len() == before || msg.kind == MessageType::Unknown {
        out.push(Line::styled("Body", t.heading()));
        out.extend(para_text(msg.body.trim(), t.base()));
        return out;
    }
    let rest = unmapped_lines(&out, &msg.body);
    if !rest.is_empty() {
        out.push(Line::raw(""));
        out.push(Line::styled("Also in the message", t.heading()));
        out.extend(rest.into_iter().map(|l| Line::styled(l, t.base())));
    }
    out
}

/// `context  [██████████░░░░░░░░░░]  52%`, with a word once it runs high.
fn context_bar(t: &Theme, pct: u8) -> Line<'static> {
    let pct = pct.min(100);
    let filled = (pct as usize * 20 + 50) / 100;
    let (word, style): (&str, Style) = match pct {
        0..=59 => ("", t.ok()),
        60..=79 => ("  high", t.warn()),
        _ => ("  ⚠ critical", t.error()),
    };
    Line::from(vec![
        Span::styled(format!("{:>13}  ", "context usage"), t.muted()),
        Span::styled(
            format!("[{}{}]", "█".repeat(filled), "░".repeat(20 - filled)),
            style,
        ),
        Span::styled(format!(" {pct:>3}%{word}"), style),
    ])
}

fn raw_lines(m: &Model, x: &InboxMessage) -> Vec<Line<'static>> {
    let t = &m.config.theme;
    let msg = &x.message;
    let mut out = Vec::new();
    if let Some(p) = &x.path {
        out.push(field(t, "file", line_text(&p.display().to_string())));
    }
    if msg.diagnostics.is_empty() {
        out.push(Line::styled("✓ no parse diagnostics", t.ok()));
    }
    for d in &msg.diagnostics {
        let (g, w, style) = match d.severity {
            Severity::Error => ("✗", "error", t.error()),
            Severity::Warning => ("⚠", "warning", t.warn()),
            Severity::Info => ("i", "info", t.info()),
        };
        out.push(Line::styled(
            format!(
                "{g} {w} {}:{} [{}] {}",
                d.line,
                d.column,
                line_text(&d.code),
                line_text(&d.message.text())
            ),
            style,
        ));
    }
    out.push(Line::styled("─".repeat(20), t.muted()));
    let file = x
        .path
        .as_deref()
        .and_then(|p| m.file.as_ref().filter(|f| f.path == p));
    match file.map(|f| &f.text) {
        Some(Ok(text)) => {
            // The file's own numbers: diagnostics are file positions.
            let flagged: std::collections::HashSet<u32> =
                msg.diagnostics.iter().map(|d| d.line).collect();
            for (i, l) in reveal(text).lines().enumerate() {
                let no = i as u32 + 1;
                let mark = if flagged.contains(&no) { "▸" } else { " " };
                out.push(Line::from(vec![
                    Span::styled(format!("{mark}{no:>4} "), t.muted()),
                    Span::styled(l.to_string(), t.base()),
                ]));
            }
        }
        other => {
            let why = match (other, &x.path) {
                (Some(Err(e)), _) => format!("cannot read the file ({})", line_text(e)),
                (_, Some(_)) => "reading the file…".to_string(),
                // A step of a load can come before the files are listed
                // (an mcp root's newest rows do not wait for its archive).
                (_, None) if m.partial => "file not known yet (still loading)".to_string(),
                (_, None) => no_file(&m.inbox.source).to_string(),
            };
            out.push(Line::styled(
                format!("{why}; the body as parsed, unnumbered:"),
                t.muted(),
            ));
            for l in reveal(&msg.body).lines() {
                out.push(Line::styled(format!("      {l}"), t.base()));
            }
        }
    }
    out
}

/// Why the raw view of a message has no file: where it came from.
fn no_file(source: &amail_core::inbox::SourceKind) -> &'static str {
    use amail_core::inbox::SourceKind;
    match source {
        SourceKind::Server { .. } => "no file: the message came from the server",
        SourceKind::Stdin => "no file: the message came from standard input",
        // A row without its archive copy.
        SourceKind::McpStore { .. } => "no file: the message came from the database",
        SourceKind::Mailbox { .. } => "no file known for this message",
    }
}

pub fn hints(m: &Model) -> Vec<(String, &'static str)> {
    let k = &m.config.keymap;
    let mut hints = super::kept_search_hints(m);
    hints.extend([
        (k.first_key(Action::Down), "scroll"),
        (
            k.first_key(Action::ToggleRaw),
            if m.raw { "fields" } else { "raw" },
        ),
        (k.first_key(Action::Ack), "ack"),
        (k.first_key(Action::Reply), "reply"),
        (k.first_key(Action::ReplyInEditor), "$EDITOR"),
        (k.first_key(Action::Back), "back"),
        (k.first_key(Action::Help), "help"),
    ]);
    hints
}
