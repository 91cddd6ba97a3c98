//! `c`'s overlays: the recipient picker (several at once) and the editor
//! of a new message, whose title says who it goes to and as what type.

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

use super::{centered, line_text, titled};
use crate::model::{EditMode, Model, Overlay};
use crate::text::width;

/// Where the recipients' list of `options` is drawn in `body`.
pub(crate) fn pick_area(body: Rect, options: &[String]) -> Rect {
    let w = options.iter().map(|s| width(s)).max().unwrap_or(10).max(30) as u16 + 12;
    centered(body, w, options.len() as u16 + 4)
}

pub(crate) fn draw_pick(m: &Model, f: &mut Frame, body: Rect, o: &Overlay) {
    let Overlay::Pick {
        title,
        options,
        marked,
        index,
        from,
    } = o
    else {
        return;
    };
    let t = &m.config.theme;
    let area = pick_area(body, options);
    f.render_widget(Clear, area);
    let mut lines = vec![Line::styled(
        super::with_keys(
            &format!("from {}", line_text(from)),
            ": ",
            &["Space marks, Enter takes"],
            area.width.saturating_sub(2) as usize,
        ),
        t.muted(),
    )];
    let (shown, note) = super::overlays::choice_window(m, area, *index, options.len());
    for (i, opt) in options
        .iter()
        .enumerate()
        .skip(shown.start)
        .take(shown.len())
    {
        let text = format!(
            "{} [{}] {}",
            if i == *index { "▶" } else { " " },
            if marked[i] { "x" } else { " " },
            line_text(opt)
        );
        lines.push(if i == *index {
            Line::styled(text, t.selected())
        } else {
            Line::styled(text, t.base())
        });
    }
    let block = super::pane(m, super::overlays::chooser_title(title, &note, area), true);
    f.render_widget(Paragraph::new(lines).block(block), area);
}

pub(crate) fn draw_compose(m: &Model, f: &mut Frame, body: Rect, o: &Overlay) {
    let Overlay::Compose {
        from,
        to,
        kind,
        bead,
        text,
        cursor,
        mode,
        ..
    } = o
    else {
        return;
    };
    let t = &m.config.theme;
    let area = super::overlays::editor_box(body);
    f.render_widget(Clear, area);
    let what = match (kind, bead) {
        (Some(k), Some(b)) => format!("[{}] {k}", line_text(b)),
        (Some(k), None) => k.clone(),
        (None, Some(b)) => format!("[{}]", line_text(b)),
        (None, None) => "message".into(),
    };
    let room = area.width.saturating_sub(4) as usize;
    let title = match mode {
        EditMode::ConfirmDiscard => super::overlays::discard_title("message", room),
        _ => super::with_keys(
            &format!(
                "New {what} from {} → {}",
                line_text(from),
                line_text(&to.join(", "))
            ),
            " · ",
            &["Ctrl-s send", "Esc cancel"],
            room,
        ),
    };
    let block = titled(m, title, true, area);
    let inner = block.inner(area);
    f.render_widget(block, area);
    super::overlays::draw_typed(
        f,
        inner,
        text,
        *cursor,
        Line::styled(
            "First line: the subject. Then the body. Enter: new line.",
            t.muted(),
        ),
        |n| if n == 0 { t.heading() } else { t.base() },
    );
}
