//! Modal overlays: the "act as which agent" chooser and the inline reply
//! editor. The editor shows the message being answered above the text.

use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};
use ratatui::Frame;

use super::{centered, line_text, pane, para_text, scroll_window, titled, window_note, with_keys};
use crate::model::{EditMode, Model, Overlay};
use crate::text::{width, wrap_typed};

pub(crate) fn draw_chooser(m: &Model, f: &mut Frame, body: Rect, o: &Overlay) {
    let Overlay::Choose {
        title,
        options,
        index,
        purpose,
        ..
    } = o
    else {
        return;
    };
    let t = &m.config.theme;
    let area = chooser_area(body, title, options);
    f.render_widget(Clear, area);
    let mut lines = vec![Line::styled(purpose.prompt(), t.muted())];
    // Right-aligned, so the names line up past nine.
    let digits = options.len().to_string().len();
    let (shown, note) = choice_window(m, area, *index, options.len());
    for (i, opt) in options
        .iter()
        .enumerate()
        .skip(shown.start)
        .take(shown.len())
    {
        let sel = i == *index;
        let text = format!(
            "{} {:>digits$}. {}",
            if sel { "▶" } else { " " },
            i + 1,
            line_text(opt)
        );
        lines.push(if sel {
            Line::styled(text, t.selected())
        } else {
            Line::styled(text, t.base())
        });
    }
    f.render_widget(
        Paragraph::new(lines).block(pane(m, chooser_title(title, &note, area), true)),
        area,
    );
}

/// Where a chooser asking `title` among `options` is drawn in `body`.
fn chooser_area(body: Rect, title: &str, options: &[String]) -> Rect {
    let w = options
        .iter()
        .map(|s| width(s))
        .max()
        .unwrap_or(10)
        .max(title.len())
        .max(20) as u16
        + 10;
    centered(body, w, options.len() as u16 + 4)
}

/// The option of the open chooser or recipients' list drawn at (`x`,
/// `y`), for a click: the box [`draw_chooser`] and `compose::draw_pick`
/// lay out, its rows from where the last frame's window started.
pub(crate) fn option_at(m: &Model, x: u16, y: u16) -> Option<usize> {
    let body = super::body(m);
    let (area, len) = match m.overlay.as_ref()? {
        Overlay::Choose { title, options, .. } => {
            (chooser_area(body, title, options), options.len())
        }
        Overlay::Pick { options, .. } => (super::compose::pick_area(body, options), options.len()),
        _ => return None,
    };
    // A border, then the prompt line, then the options; a border below.
    let first = area.y + 2;
    let inside = x > area.x && x + 1 < area.x + area.width;
    if !inside || y < first || y + 1 >= area.y + area.height {
        return None;
    }
    let i = m.offsets.choice.get() + (y - first) as usize;
    (i < len).then_some(i)
}

/// A chooser's title in its box: the question, cut with `…` where the
/// box is narrower, then the note of where the list is, which always
/// shows (a border clipped both, and with them "1-2 of 5 ↓").
pub(crate) fn chooser_title(title: &str, note: &str, area: Rect) -> String {
    let room = (area.width as usize).saturating_sub(4 + width(note));
    format!(
        "{}{note}",
        crate::text::truncate(&format!("{title}…"), room)
    )
}

/// The rows of a chooser or the recipients' list that fit its box (a
/// border each side and the prompt line above them), kept around the
/// cursor, and the title's note of where they are in the list.
pub(crate) fn choice_window(
    m: &Model,
    area: Rect,
    index: usize,
    len: usize,
) -> (std::ops::Range<usize>, String) {
    let rows = (area.height as usize).saturating_sub(3);
    let start = scroll_window(&m.offsets.choice, Some(index), len, rows);
    let end = (start + rows).min(len);
    (start..end, window_note(start, rows, len))
}

pub(crate) fn draw_editor(m: &Model, f: &mut Frame, body: Rect, o: &Overlay) {
    let Overlay::Editor {
        key,
        agent,
        to,
        text,
        cursor,
        mode,
        ..
    } = o
    else {
        return;
    };
    let t = &m.config.theme;
    let area = editor_box(body);
    f.render_widget(Clear, area);
    let who = format!("{} → {}", line_text(agent), line_text(to));
    let room = area.width.saturating_sub(4) as usize;
    let title = match mode {
        EditMode::Typing => with_keys(
            &format!("Reply as {who}"),
            " · ",
            &["Ctrl-s send", "Esc discard"],
            room,
        ),
        EditMode::ConfirmDiscard => discard_title("reply", room),
        EditMode::Review => with_keys(
            &format!("Review reply as {who}"),
            " · ",
            &["y send", "e edit again", "d discard", "Esc edit here"],
            room,
        ),
    };
    let block = titled(m, title, true, area);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let [quote, sep, edit] = reply_rows(inner);
    if let Some(x) = m.inbox.message_by_key(key) {
        let q: Vec<Line> = para_text(&x.message.body, t.muted())
            .into_iter()
            .map(|l| {
                let mut spans = vec![Span::styled("> ", t.muted())];
                spans.extend(l.spans);
                Line::from(spans)
            })
            .collect();
        f.render_widget(Paragraph::new(q).wrap(Wrap { trim: false }), quote);
    }
    f.render_widget(
        Paragraph::new(Line::styled("─".repeat(sep.width as usize), t.muted())),
        sep,
    );
    draw_typed(
        f,
        edit,
        text,
        *cursor,
        Line::styled("Type your answer. Enter: new line.", t.muted()),
        |_| t.base(),
    );
}

/// The box of an editor (the reply's and the new message's) in `body`.
pub(crate) fn editor_box(body: Rect) -> Rect {
    centered(
        body,
        body.width.saturating_sub(4).max(20),
        body.height.saturating_sub(2).max(6),
    )
}

/// The reply editor inside its borders: the message quoted, a rule, the
/// text typed.
fn reply_rows(inner: Rect) -> [Rect; 3] {
    let quote_h = (inner.height / 3).max(1);
    Layout::vertical([
        Constraint::Length(quote_h),
        Constraint::Length(1),
        Constraint::Min(1),
    ])
    .areas(inner)
}

/// Where in the text of the open editor a click at (`x`, `y`) puts the
/// cursor: on the character clicked, at a row's end past it, at the
/// text's end below its last row. `None` off the text (the quote, the
/// borders, beside the box) and while the editor asks a question.
pub(crate) fn typed_at(m: &Model, x: u16, y: u16) -> Option<usize> {
    let inner = editor_box(super::body(m)).inner(ratatui::layout::Margin::new(1, 1));
    let (area, text, cursor) = match m.overlay.as_ref()? {
        Overlay::Editor {
            text,
            cursor,
            mode: EditMode::Typing,
            ..
        } => (reply_rows(inner)[2], text, *cursor),
        Overlay::Compose {
            text,
            cursor,
            mode: EditMode::Typing,
            ..
        } => (inner, text, *cursor),
        _ => return None,
    };
    if !super::hit::inside(area, x, y) {
        return None;
    }
    // The rows as `draw_typed` wraps and scrolls them.
    let (rows, row, _) = wrap_typed(text, cursor, area.width as usize);
    let scroll = row.saturating_sub(area.height.saturating_sub(1) as usize);
    let Some((_, s)) = rows.get(scroll + (y - area.y) as usize) else {
        return Some(text.len());
    };
    // Each row is a slice of the text: where it starts in it.
    let start = s.as_ptr() as usize - text.as_ptr() as usize;
    let want = (x - area.x) as usize;
    let mut used = 0;
    for (i, c) in s.char_indices() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > want {
            return Some(start + i);
        }
        used += w;
    }
    Some(start + s.len())
}

/// Text being typed (the reply and compose editors) in `area`: wrapped
/// at its width, so a line wider than the editor goes on under itself
/// rather than off its edge, scrolled to keep the cursor's row in view,
/// and the cursor put where the next character goes. `style` gives each
/// typed line's style by its number; `empty` shows while nothing is typed.
/// The text is the user's own, but it is sanitised like everything else.
pub(crate) fn draw_typed(
    f: &mut Frame,
    area: Rect,
    text: &str,
    cursor: usize,
    empty: Line<'static>,
    style: impl Fn(usize) -> ratatui::style::Style,
) {
    let (rows, row, col) = wrap_typed(text, cursor, area.width as usize);
    let lines: Vec<Line> = if text.is_empty() {
        vec![empty]
    } else {
        rows.iter()
            .map(|(n, r)| Line::styled(line_text(r), style(*n)))
            .collect()
    };
    let row = row as u16;
    let scroll = row.saturating_sub(area.height.saturating_sub(1));
    f.render_widget(Paragraph::new(lines).scroll((scroll, 0)), area);
    let x = area.x + (col as u16).min(area.width.saturating_sub(1));
    let y = area.y + (row - scroll).min(area.height.saturating_sub(1));
    f.set_cursor_position(Position::new(x, y));
}

/// The discard question's title in `room` columns, the same keys in both
/// editors (`update::overlays::discard_answer` reads them).
pub(crate) fn discard_title(what: &str, room: usize) -> String {
    with_keys(
        &format!("Discard this {what}?"),
        " ",
        &["y discard", "k keep as draft", "other keys: keep typing"],
        room,
    )
}

/// The discard question's key hints, as its title says them.
pub(crate) fn discard_hints() -> Vec<(String, &'static str)> {
    vec![
        ("y".into(), "discard"),
        ("k".into(), "keep as draft"),
        ("any key".into(), "keep typing"),
    ]
}
