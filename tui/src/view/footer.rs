//! The two footer lines: status (source, identity, counts, watch state)
//! and below it the search prompt, a notice, or the focused pane's hints.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{agents, line_text, message, messages, tasks, threads};
use crate::keymap::Action;
use crate::model::{EditMode, Link, Model, Overlay, Pane, Screen};
use crate::msg::WatchState;
use crate::text::{truncate, truncate_left, width};

pub(crate) fn draw_status(m: &Model, f: &mut Frame, area: Rect) {
    let t = &m.config.theme;
    // The person's name and some of the source stay: the totals take the
    // widest form that leaves them room (at 80 columns the words ran the
    // watch state off the edge).
    let who = status_who(m);
    let keep = width(&who) + 10;
    let cols = area.width as usize;
    let parts = status_right(m);
    let form = Words::ALL
        .into_iter()
        .find(|&w| parts.iter().map(|p| width(p.form(w))).sum::<usize>() + keep <= cols)
        .unwrap_or(Words::Glyphs);
    let right: Vec<Span<'static>> = parts
        .into_iter()
        .map(|p| {
            let style = p.style;
            Span::styled(
                p.forms.into_iter().nth(form as usize).unwrap_or_default(),
                style,
            )
        })
        .collect();
    let rw: usize = right.iter().map(|s| width(&s.content)).sum();
    let room = (area.width as usize).saturating_sub(rw + width(&who) + 1);
    let src = format!("{}{}", who, truncate_left(&line_text(&m.source), room));
    let pad = (area.width as usize).saturating_sub(width(&src) + rw);
    let mut spans = vec![Span::styled(src, t.info()), Span::raw(" ".repeat(pad))];
    spans.extend(right);
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// How many words the status line's totals and watch state carry: the
/// threads go first, then the watch state's words, then the totals'; the
/// glyphs stay.
#[derive(Clone, Copy, PartialEq)]
enum Words {
    /// "●3 to ack in 2 threads ‼1 unanswered ✗1 failed ◉ live".
    Full,
    /// "●3 to ack ‼1 unanswered ✗1 failed ◉ live".
    Short,
    /// "●3 to ack ‼1 unanswered ✗1 failed ⚠1 problem ◉": the totals'
    /// words before the watch state's (with a ⚠ and "not watching" the
    /// short form took 63 columns, and 80 showed none of the words).
    Terse,
    /// "●3 ‼1 ✗1 ◉" (the glyphs say which is which; `?` has the legend).
    Glyphs,
}

impl Words {
    /// Widest first.
    const ALL: [Words; 4] = [Words::Full, Words::Short, Words::Terse, Words::Glyphs];
}

/// A piece of the status line's right-hand side in each of its forms (by
/// [`Words`], widest first), made once a frame: the totals are read once
/// and the line takes the widest form that fits.
struct Part {
    forms: [String; 4],
    style: Style,
}

impl Part {
    fn new(style: Style, form: impl Fn(Words) -> String) -> Part {
        Part {
            forms: Words::ALL.map(form),
            style,
        }
    }

    /// The same text in every form.
    fn whole(style: Style, text: String) -> Part {
        Part::new(style, |_| text.clone())
    }

    fn form(&self, w: Words) -> &str {
        &self.forms[w as usize]
    }
}

/// " as BlueLake · ": who the person at the keyboard is.
fn status_who(m: &Model) -> String {
    // The agent as the store spells it (`--as bluelake` on an mcp store
    // is BlueLake, as the commands' output says), else as typed.
    let who = m
        .identity
        .as_deref()
        .map(|me| line_text(m.inbox.agent_named(me).map_or(me, |a| a.name.as_str())))
        .unwrap_or_else(|| "any recipient".into());
    format!(" as {who} · ")
}

/// The status line's right-hand side: totals, load, link or watch state,
/// each part in every form.
fn status_right(m: &Model) -> Vec<Part> {
    let t = &m.config.theme;
    let pending = m.pending_total();
    let help = m.unanswered_help();
    let failed = m.filter_count(crate::model::Filter::Failed);
    let threads = m.filter_count(crate::model::Filter::PendingAck);
    // The watch or link state's narrow form from `Terse` on, the totals'
    // glyphs alone at `Glyphs`.
    let narrow = |w: Words| matches!(w, Words::Terse | Words::Glyphs);
    let word = |w: Words, text: &'static str| if w == Words::Glyphs { "" } else { text };
    // Each total says what it counts: the acks owed are not the Pending
    // tab's threads ("●4 pending" beside "Pending 3" read as one number
    // that disagreed with itself), nor are the unanswered help requests
    // the Help tab's threads.
    let owed_in = |w: Words| match threads {
        _ if w != Words::Full => String::new(),
        0 => String::new(),
        1 => " in 1 thread".to_string(),
        n => format!(" in {n} threads"),
    };
    // A total of zero is not said ("✗0 failed" beside "5 Failed 0"), as
    // the ⚠ of mail problems never was: the tabs count every filter.
    let mut right = Vec::new();
    let totals = [
        (
            pending,
            Part::new(t.warn(), |w| {
                format!("●{pending}{}", word(w, " to ack")) + &owed_in(w)
            }),
        ),
        (
            help,
            Part::new(t.error(), |w| format!("‼{help}{}", word(w, " unanswered"))),
        ),
        (
            failed,
            Part::new(t.error(), |w| format!("✗{failed}{}", word(w, " failed"))),
        ),
    ];
    for (n, part) in totals {
        if n > 0 {
            right.push(part);
            right.push(Part::whole(Style::default(), " ".into()));
        }
    }
    // "problems", not "unreadable": some were read (a file or row that
    // is not UTF-8 loads with U+FFFD); `?` lists each.
    let problems = m.inbox.problems.len();
    if problems > 0 {
        let noun = if problems == 1 {
            " problem"
        } else {
            " problems"
        };
        right.push(Part::new(t.warn(), |w| {
            format!("⚠{problems}{} ", word(w, noun))
        }));
    }
    match m.progress {
        // A step before the walk has counted the files (a mailbox filed
        // by date hands out its newest months first): nothing to count yet.
        Some((_, 0, _)) if m.working => right.push(Part::whole(
            t.warn(),
            format!("{} loading · listing the files ", spinner(m)),
        )),
        Some((done, total, per_sec)) if m.working => right.push(Part::whole(
            t.warn(),
            format!("{} loading {done}/{total} · {per_sec}/s ", spinner(m)),
        )),
        _ if m.working => right.push(Part::whole(t.warn(), format!("{} working ", spinner(m)))),
        _ => {}
    }
    // Each state's wide and narrow words.
    let (wide, short, style): (String, String, Style) = match (&m.link, &m.watch) {
        // The server did not answer the last poll; the next one retries.
        (Some(Link::Down), _) => (
            "✗ server unreachable · retrying ".into(),
            "✗ offline ".into(),
            t.error(),
        ),
        // It answered, and asking again with the same token will not
        // help: no "retrying". The line under the panes says which token
        // and what to do.
        (Some(Link::Refused), _) => (
            "✗ server refused the token ".into(),
            "✗ refused ".into(),
            t.error(),
        ),
        // It answered; a later poll may pass (a tool that failed on a
        // busy database), so polls go on.
        (Some(Link::Failing), _) => (
            "✗ server error · retrying ".into(),
            "✗ error ".into(),
            t.error(),
        ),
        // A polled server is live while it answers: new mail comes by
        // the poll, whatever the watch of files beside it (a task store)
        // says.
        (Some(Link::Up), _) | (_, WatchState::Watching) => ("◉ live ".into(), "◉ ".into(), t.ok()),
        (_, WatchState::Starting) => ("◌ starting watch ".into(), "◌ ".into(), t.muted()),
        (_, WatchState::Off) => ("○ not watching ".into(), "○ ".into(), t.muted()),
        (_, WatchState::Failed(_)) => {
            // The key as bound: a rebind may have given `R` to another action.
            let r = m.config.keymap.first_key(crate::keymap::Action::Reload);
            (
                format!("✗ watch failed ({r} reloads) "),
                format!("✗ {r} "),
                t.error(),
            )
        }
    };
    right.push(Part::new(style, |w| {
        if narrow(w) {
            short.clone()
        } else {
            wide.clone()
        }
    }));
    right
}

pub(crate) fn draw_hints(m: &Model, f: &mut Frame, area: Rect) {
    let t = &m.config.theme;
    let keys = &m.config.keymap;
    if m.search.typing {
        let found = m.search_progress();
        let so_far = if found.is_some_and(|f| f.2) {
            "…"
        } else {
            ""
        };
        let count = match found.map(|(n, at, _)| (n, at)) {
            None => Span::raw(""),
            Some((0, _)) if !so_far.is_empty() => Span::styled("  searching…", t.muted()),
            Some((0, _)) => Span::styled("  no match", t.error()),
            Some((n, Some(i))) => Span::styled(format!("  {i}/{n}{so_far}"), t.ok()),
            Some((n, None)) => Span::styled(format!("  {n} matches{so_far}"), t.ok()),
        };
        // The query's end (where the cursor is) and its count stay in
        // view: a longer query loses its front.
        let room = (area.width as usize).saturating_sub(2 + width(&count.content));
        let line = Line::from(vec![
            Span::styled("/", t.accent()),
            Span::styled(truncate_left(&line_text(&m.search.query), room), t.base()),
            Span::styled("▏", t.accent()),
            count,
            Span::styled(
                format!(
                    "  Enter keep, then {} · Esc cancel",
                    m.config
                        .keymap
                        .run(&[Action::SearchNext, Action::SearchPrev])
                ),
                t.muted(),
            ),
        ]);
        f.render_widget(Paragraph::new(line), area);
        return;
    }
    if let Some(Overlay::Reason { task, text, .. }) = &m.overlay {
        draw_reason(m, f, area, task, text);
        return;
    }
    if let Some(n) = &m.notice {
        let style = if n.error { t.error() } else { t.ok() };
        f.render_widget(
            Paragraph::new(Line::styled(
                format!(
                    " {}",
                    notice_line(n, (area.width as usize).saturating_sub(1))
                ),
                style,
            )),
            area,
        );
        return;
    }
    if let Some(e) = &m.load_error {
        // Cut with `…` as a notice is (cut at the edge, a live server's
        // hint stopped mid-word with no sign of the rest), and naming the
        // key that shows it whole: it stays while the source fails, so it
        // does not take rows from the panes as a notice does.
        let whole = format!("✗ {}", line_text(e));
        let cols = (area.width as usize).saturating_sub(1);
        let text = if width(&whole) <= cols {
            whole
        } else {
            let help = format!(" · {} whole", keys.first_key(Action::Help));
            fit_row(&whole, &help, cols)
        };
        f.render_widget(
            Paragraph::new(Line::styled(format!(" {text}"), t.error())),
            area,
        );
        return;
    }
    let hints: Vec<(String, &str)> = match &m.overlay {
        Some(Overlay::Editor { mode, .. }) => match mode {
            // Esc before Ctrl-e: a narrow footer, which drops the last,
            // keeps how to leave (the title leaves its keys to this line).
            EditMode::Typing => vec![
                ("Ctrl-s".into(), "send"),
                ("Esc".into(), "discard"),
                ("Ctrl-e".into(), "$EDITOR"),
            ],
            EditMode::ConfirmDiscard => super::overlays::discard_hints(),
            EditMode::Review => vec![
                ("y".into(), "send"),
                ("e".into(), "edit again"),
                ("d".into(), "discard"),
                ("Esc".into(), "edit here"),
            ],
        },
        // The lists and the help move by the keymap's moves and close on
        // its back keys (Esc too, always), so their hints are the keymap's.
        Some(Overlay::Choose { .. }) => vec![
            (keys.run(&[Action::Down, Action::Up]), "move"),
            ("Enter".into(), "choose"),
            (keys.first_key(Action::Back), "cancel"),
        ],
        Some(Overlay::Help { .. }) => vec![
            (keys.run(&[Action::Down, Action::Up]), "scroll"),
            (keys.first_key(Action::Back), "close"),
        ],
        Some(Overlay::Pick { .. }) => vec![
            ("Space".into(), "mark"),
            ("Enter".into(), "take"),
            (keys.first_key(Action::Back), "cancel"),
            (keys.run(&[Action::Down, Action::Up]), "move"),
        ],
        Some(Overlay::Reason { .. }) => Vec::new(),
        Some(Overlay::Compose { mode, .. }) => match mode {
            EditMode::ConfirmDiscard => super::overlays::discard_hints(),
            _ => vec![("Ctrl-s".into(), "send"), ("Esc".into(), "cancel")],
        },
        None => match m.screen {
            Screen::Tasks => tasks::hints(m),
            Screen::Agents => agents::hints(m),
            Screen::Inbox => match m.focus {
                Pane::Threads => threads::hints(m),
                Pane::Messages => messages::hints(m),
                Pane::Message => message::hints(m),
            },
        },
    };
    let mut spans = vec![Span::raw(" ")];
    let mut used = 1;
    for (k, label) in hints {
        if k.is_empty() {
            continue;
        }
        let piece = width(&k) + width(label) + 3;
        if used + piece > area.width as usize {
            break;
        }
        used += piece;
        spans.push(Span::styled(k, t.accent()));
        spans.push(Span::styled(format!(" {label}  "), t.muted()));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// `X`'s prompt: why the task goes back to work. The reason is one line;
/// a refusal (empty reason) shows after it in place of the key hints.
fn draw_reason(m: &Model, f: &mut Frame, area: Rect, task: &str, text: &str) {
    let t = &m.config.theme;
    let tail = match &m.notice {
        Some(n) if n.error => Span::styled(format!("  {}", line_text(&n.text)), t.error()),
        _ => Span::styled("  Enter reject · Esc cancel", t.muted()),
    };
    // A router id is long (`TASK-2026-11-28-R6GR2xJw`): on a narrow
    // footer it loses its middle, so that half the line is left for the
    // reason (at 40 columns the whole id took all of it).
    let frame = width(" reject  · why: ");
    let id_room = (area.width as usize / 2).saturating_sub(frame).max(8);
    let prompt = format!(
        " reject {} · why: ",
        crate::text::shorten_middle(&line_text(task), id_room)
    );
    // The reason's end (where the cursor is) stays in view, and so does a
    // refusal after it: a longer reason loses its front.
    let keep = if m.notice.as_ref().is_some_and(|n| n.error) {
        width(&tail.content)
    } else {
        0
    };
    let room = (area.width as usize).saturating_sub(width(&prompt) + 1 + keep);
    let line = Line::from(vec![
        Span::styled(prompt, t.accent()),
        Span::styled(truncate_left(&line_text(text), room), t.base()),
        Span::styled("▏", t.accent()),
        tail,
    ]);
    f.render_widget(Paragraph::new(line), area);
}

/// One frame of the spinner shown while backend work is out, turned by
/// the clock's ticks.
fn spinner(m: &Model) -> char {
    const FRAMES: [char; 4] = ['◐', '◓', '◑', '◒'];
    FRAMES[(m.now.timestamp().rem_euclid(4)) as usize]
}

/// A notice in `cols` columns. Too wide, its description is cut (`…`)
/// before the part that says which key to press, which stays whole: cut at
/// the edge, the quit warning ended "would be l" and never said `q`.
fn notice_line(n: &crate::model::Notice, cols: usize) -> String {
    let (what, keys) = notice_parts(n);
    fit_row(&what, &keys, cols)
}

/// `what` then `keys` in one row of `cols` columns: too wide, `what` is
/// cut (`…`) and `keys` kept whole ([`notice_line`]'s rule, for any text
/// that names a key at its end).
fn fit_row(what: &str, keys: &str, cols: usize) -> String {
    if width(what) + width(keys) <= cols {
        return format!("{what}{keys}");
    }
    if keys.is_empty() {
        return truncate(what, cols);
    }
    let room = cols.saturating_sub(width(keys));
    // Less than a word of the description is noise: the keys alone (cut
    // at the end only where they are wider than the footer).
    if room < 4 {
        return truncate(keys, cols);
    }
    // A blank between the cut and the keys, as between words.
    format!("{} {keys}", truncate(what.trim_end(), room - 1))
}

/// A notice's description and the part naming its keys
/// ([`Notice::keep`](crate::model::Notice::keep)), each made safe for the
/// terminal.
fn notice_parts(n: &crate::model::Notice) -> (String, String) {
    let split = n
        .text
        .len()
        .checked_sub(n.keep)
        .filter(|at| n.text.is_char_boundary(*at))
        .unwrap_or(0);
    let (what, keys) = n.text.split_at(split);
    (line_text(what), line_text(keys))
}

/// The rows a notice takes at `cols` columns, at most `most`: one where it
/// fits ([`notice_line`]), else wrapped at words; one that would take more
/// than `most` has its last row cut as a one-row notice is, its keys kept.
fn notice_rows(n: &crate::model::Notice, cols: usize, most: usize) -> Vec<String> {
    let (what, keys) = notice_parts(n);
    if most <= 1 || width(&what) + width(&keys) <= cols {
        return vec![fit_row(&what, &keys, cols)];
    }
    let mut rows = crate::text::wrap_words(&(what + &keys), cols);
    if rows.len() > most {
        let rest = rows[most - 1..].join(" ");
        rows.truncate(most - 1);
        // The rows rejoined end with the keys (a wrap only drops the
        // blanks at its breaks).
        let last = match rest.strip_suffix(keys.as_str()) {
            Some(before) => fit_row(before, &keys, cols),
            None => fit_row(&rest, "", cols),
        };
        rows.push(last);
    }
    rows
}

/// A notice wider than the footer, whole: its rows over the footer and
/// the bottom of the panes, as a pager's message grows up the screen (a
/// refusal cut to the footer's width lost what was refused and why, and
/// no key brought it back). It goes with the next key, as any notice
/// does. Drawn last, over any overlay; not while a prompt holds the
/// footer (a search, a reason being typed), which draws its own.
pub(crate) fn draw_tall_notice(m: &Model, f: &mut Frame, area: Rect) {
    let Some(n) = &m.notice else { return };
    if m.search.typing || matches!(m.overlay, Some(Overlay::Reason { .. })) {
        return;
    }
    // Half the screen at most: the selection above it stays in view.
    let most = (area.height as usize / 2).max(1);
    let rows = notice_rows(n, (area.width as usize).saturating_sub(1), most);
    if rows.len() < 2 {
        return;
    }
    let t = &m.config.theme;
    let style = if n.error { t.error() } else { t.ok() };
    let height = rows.len() as u16;
    let at = Rect::new(
        area.x,
        area.y + area.height.saturating_sub(height),
        area.width,
        height.min(area.height),
    );
    let lines: Vec<Line> = rows
        .into_iter()
        .map(|r| Line::styled(format!(" {r}"), style))
        .collect();
    f.render_widget(ratatui::widgets::Clear, at);
    f.render_widget(Paragraph::new(lines).style(t.base()), at);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Notice;

    fn quit_warning() -> Notice {
        Notice::keyed(
            "1 rejection reason (kept for X) would be lost: ".into(),
            "q again quits, other keys stay",
            true,
        )
    }

    #[test]
    fn a_notice_that_fits_is_one_row() {
        let n = quit_warning();
        assert_eq!(notice_rows(&n, 200, 10), std::slice::from_ref(&n.text));
    }

    #[test]
    fn a_wide_notice_is_wrapped_at_words_whole() {
        let rows = notice_rows(&quit_warning(), 40, 10);
        assert_eq!(
            rows,
            [
                "1 rejection reason (kept for X) would be",
                "lost: q again quits, other keys stay",
            ]
        );
    }

    /// Past its rows, the last row is cut as a one-row notice is: the
    /// description loses its end, the keys stay whole.
    #[test]
    fn a_notice_past_its_rows_keeps_its_keys() {
        let n = quit_warning();
        assert_eq!(
            notice_rows(&n, 40, 1),
            ["1 reject… q again quits, other keys stay"]
        );
        let rows = notice_rows(&n, 35, 2);
        assert_eq!(
            rows,
            [
                "1 rejection reason (kept for X)",
                "wou… q again quits, other keys stay"
            ]
        );
    }
}
