//! Keys for the modal overlays: help, the recipient chooser and the inline
//! reply editor. An open overlay consumes every key.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::mail::*;
use crate::keymap::Action;
use crate::model::{ChoiceFor, EditMode, Model, Notice, Overlay};
use crate::msg::Command;

pub(super) fn overlay_key(m: &mut Model, k: KeyEvent) -> Option<Command> {
    let k = super::search::as_cancel(k);
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    // In an editor a notice is about what was typed (a refusal, a failed
    // send): the next key takes it back, as a fresh action does outside.
    // It stayed: "type a reply first" under a reply half written, and
    // over the discard question, whose keys it hid.
    if matches!(
        m.overlay,
        Some(Overlay::Editor { .. } | Overlay::Compose { .. })
    ) {
        m.notice = None;
    }
    let overlay = m.overlay.as_mut()?;
    match overlay {
        Overlay::Help { scroll } => {
            // Moves start from where the view is (a resize may have left
            // `scroll` past the end) and stop at the last page, so every
            // key moves what is on screen.
            let shown = *scroll;
            let max = crate::view::help::max_scroll(m);
            let mut next = usize::from(shown.min(max));
            match m.config.keymap.action_for(&k) {
                Some(Action::Help | Action::Back | Action::Quit) => {
                    m.overlay = None;
                    return None;
                }
                _ if k.code == KeyCode::Esc => {
                    m.overlay = None;
                    return None;
                }
                // The help's first lines move as a list of `max + 1`.
                Some(a) => _ = move_in_list(&mut next, usize::from(max) + 1, a),
                None => {}
            }
            if let Some(Overlay::Help { scroll }) = m.overlay.as_mut() {
                *scroll = next as u16;
            }
            None
        }
        Overlay::Choose {
            options,
            index,
            typed,
            purpose,
            ..
        } => {
            let so_far = std::mem::take(typed);
            let action = m.config.keymap.action_for(&k);
            match (k.code, action) {
                _ if closes_list(&k, action) => m.overlay = None,
                (KeyCode::Enter, _) => {
                    let agent = options[*index].clone();
                    let purpose = purpose.clone();
                    m.overlay = None;
                    return match purpose {
                        ChoiceFor::Ack { keys } => Some(ack_command(m, keys, agent)),
                        ChoiceFor::Reply { external_editor } => {
                            reply_as_chosen(m, agent, external_editor)
                        }
                        ChoiceFor::MarkRead { keys } => Some(Command::MarkRead { keys, agent }),
                        ChoiceFor::ComposeFrom => super::triage::compose_from(m, agent),
                        ChoiceFor::ComposeKind { from, to } => {
                            super::triage::compose_kind(m, from, to, &agent)
                        }
                    };
                }
                (_, Some(a)) if move_in_list(index, options.len(), a) => {}
                (KeyCode::Char(c), _) if c.is_ascii_digit() => {
                    let digit = c.to_digit(10).unwrap_or(0) as usize;
                    // The digit goes on the number typed so far when that
                    // still names an option, else it starts one.
                    let n = Some(so_far * 10 + digit)
                        .filter(|&n| so_far > 0 && n <= options.len())
                        .unwrap_or(digit);
                    if n >= 1 && n <= options.len() {
                        *index = n - 1;
                        if n * 10 <= options.len() {
                            *typed = n;
                        }
                    }
                }
                _ => {}
            }
            None
        }
        Overlay::Editor {
            key,
            agent,
            to,
            kind,
            text,
            cursor,
            mode,
        } => {
            match (*mode, k.code) {
                (EditMode::ConfirmDiscard, _) => {
                    match discard_answer(&k) {
                        Discard::Yes => {
                            let key = key.clone();
                            discard_reply(m, Some(&key));
                        }
                        Discard::Keep => {
                            m.drafts.insert(key.clone(), text.clone());
                            m.overlay = None;
                            m.notice = Some(Notice::info(format!(
                                "draft kept: {} on this message picks it up",
                                m.config.keymap.first_key(Action::Reply)
                            )));
                        }
                        Discard::No => *mode = EditMode::Typing,
                    }
                    return None;
                }
                (EditMode::Review, KeyCode::Char('y')) => {
                    let cmd = Command::Reply {
                        key: key.clone(),
                        agent: agent.clone(),
                        body: text.trim().to_string(),
                    };
                    let to = to.clone();
                    return Some(send_reply(m, cmd, &to));
                }
                (EditMode::Review, KeyCode::Char('e')) => {
                    let (key, agent, to, kind, text) =
                        (key.clone(), agent.clone(), to.clone(), *kind, text.clone());
                    let initial = editor_file(m, &key, &agent, &to, kind, &text);
                    return Some(Command::Editor { initial });
                }
                (EditMode::Review, KeyCode::Char('d')) => {
                    let key = key.clone();
                    discard_reply(m, Some(&key));
                    return None;
                }
                (EditMode::Review, KeyCode::Esc) => {
                    *mode = EditMode::Typing;
                    *cursor = text.len();
                    return None;
                }
                (EditMode::Review, KeyCode::Char('s')) if ctrl => {}
                (EditMode::Review, _) => return None,
                (EditMode::Typing, _) => {}
            }
            match k.code {
                // Emptied by hand: a kept draft it started from goes too,
                // as the notice says ("reply discarded"); the next `r`
                // would otherwise bring back what was just deleted.
                KeyCode::Esc if text.trim().is_empty() => {
                    let key = key.clone();
                    discard_reply(m, Some(&key));
                }
                KeyCode::Esc => *mode = EditMode::ConfirmDiscard,
                KeyCode::Char('s') if ctrl => {
                    if text.trim().is_empty() {
                        m.notice = Some(Notice::error("type a reply first (Esc discards)"));
                        return None;
                    }
                    let cmd = Command::Reply {
                        key: key.clone(),
                        agent: agent.clone(),
                        body: text.trim().to_string(),
                    };
                    let to = to.clone();
                    return Some(send_reply(m, cmd, &to));
                }
                KeyCode::Char('e') if ctrl => {
                    let (key, agent, to, kind, text) =
                        (key.clone(), agent.clone(), to.clone(), *kind, text.clone());
                    let initial = editor_file(m, &key, &agent, &to, kind, &text);
                    return Some(Command::Editor { initial });
                }
                _ => edit_key(text, cursor, k),
            }
            None
        }
        Overlay::Pick { .. } | Overlay::Compose { .. } => super::triage::overlay_key(m, k),
        Overlay::Reason { .. } => super::review::reason_key(m, k),
    }
}

/// The wheel while an overlay is open. The overlay is modal, so it takes
/// the wheel wherever the pointer is, as it takes the keys: the help
/// scrolls and a chooser's or the recipients' list's cursor moves, as
/// `j`/`k` move them; the editors and the reason have nothing to scroll.
/// The panes behind never move. False when no overlay is open.
/// A click while an overlay is open. Over a chooser or the recipients'
/// list the cursor goes to the option clicked, as the wheel moves it
/// (`Enter` takes it, `Space` marks it); in an editor's text the cursor
/// goes to the character clicked. Beside the help it closes the help,
/// which is read and holds nothing a person did; beside a chooser or an
/// editor nothing happens (a stray click cost no choice in progress and
/// no typed text), nor anywhere over the reason's prompt.
pub(super) fn overlay_click(m: &mut Model, x: u16, y: u16) {
    if matches!(m.overlay, Some(Overlay::Help { .. })) {
        let r = crate::view::help::area(m);
        if !crate::view::hit::inside(r, x, y) {
            m.overlay = None;
        }
        return;
    }
    if let Some(at) = crate::view::overlays::typed_at(m, x, y) {
        if let Some(Overlay::Editor { cursor, .. } | Overlay::Compose { cursor, .. }) =
            m.overlay.as_mut()
        {
            *cursor = at;
        }
        return;
    }
    let Some(at) = crate::view::overlays::option_at(m, x, y) else {
        return;
    };
    match m.overlay.as_mut() {
        Some(Overlay::Choose { index, typed, .. }) => {
            *index = at;
            *typed = 0;
        }
        Some(Overlay::Pick { index, .. }) => *index = at,
        _ => {}
    }
}

pub(super) fn overlay_wheel(m: &mut Model, lines: isize) -> bool {
    let help_max = matches!(m.overlay, Some(Overlay::Help { .. }))
        .then(|| usize::from(crate::view::help::max_scroll(m)));
    let Some(overlay) = m.overlay.as_mut() else {
        return false;
    };
    let moved = |at: usize, last: usize| at.saturating_add_signed(lines).min(last);
    match overlay {
        // From where the view is, as the keys go (`max_scroll`).
        Overlay::Help { scroll } => {
            let max = help_max.unwrap_or_default();
            *scroll = moved(usize::from(*scroll).min(max), max) as u16;
        }
        Overlay::Choose {
            options,
            index,
            typed,
            ..
        } => {
            *typed = 0;
            *index = moved(*index, options.len().saturating_sub(1));
        }
        Overlay::Pick { options, index, .. } => {
            *index = moved(*index, options.len().saturating_sub(1));
        }
        Overlay::Editor { .. } | Overlay::Compose { .. } | Overlay::Reason { .. } => {}
    }
    true
}

/// An answer to "Discard this reply/message?", which both editors ask on
/// Esc over typed text.
pub(super) enum Discard {
    Yes,
    Keep,
    No,
}

/// The one reading of the keys that answer the discard question, so the
/// reply's and the new message's editors cannot drift apart again (`k`
/// kept a reply but went back to typing in a new message).
pub(super) fn discard_answer(k: &KeyEvent) -> Discard {
    match k.code {
        KeyCode::Char('y') => Discard::Yes,
        KeyCode::Char('k') => Discard::Keep,
        _ => Discard::No,
    }
}

/// The keys that close a chooser or the recipients' list: Esc, and the
/// keys `?` lists as "back / close" (`h`, `←`), which the recipients'
/// list ignored while the chooser before it took them.
pub(super) fn closes_list(k: &KeyEvent, action: Option<Action>) -> bool {
    k.code == KeyCode::Esc || (action == Some(Action::Back) && k.code != KeyCode::Enter)
}

/// The keys that move the cursor in a chooser's or the recipients' list,
/// as in every list (`j`/`k`, `g`/`G`, half pages of ten); false for an
/// action that is not a move.
pub(super) fn move_in_list(index: &mut usize, len: usize, action: Action) -> bool {
    let last = len.saturating_sub(1);
    *index = match action {
        Action::Down => (*index + 1).min(last),
        Action::Up => index.saturating_sub(1),
        Action::Top => 0,
        Action::Bottom => last,
        Action::HalfPageDown => (*index + 10).min(last),
        Action::HalfPageUp => index.saturating_sub(10),
        _ => return false,
    };
    true
}

/// Sends the reply in the editor (`cmd`, to `to`): the editor closes and
/// the status bar says where it goes. Its text is its write's
/// ([`crate::model::Write::Reply`]) until the store says it was written,
/// and back in the drafts if the send fails (a server that went away), so
/// nothing is lost: `r` picks it up again.
fn send_reply(m: &mut Model, cmd: Command, to: &str) -> Command {
    if let Command::Reply { key, .. } = &cmd {
        m.drafts.remove(key);
    }
    m.notice = Some(Notice::info(format!("sending reply to {to}…")));
    m.overlay = None;
    cmd
}

/// Closes the reply editor without sending; `key`'s kept draft, if any,
/// goes too.
fn discard_reply(m: &mut Model, key: Option<&str>) {
    if let Some(key) = key {
        m.drafts.remove(key);
    }
    m.overlay = None;
    m.notice = Some(Notice::info("reply discarded"));
}

/// The keys every text box shares (the reply and compose editors):
/// typing, Enter for a new line, Backspace/Delete, arrows, Home/End.
pub(super) fn edit_key(text: &mut String, cursor: &mut usize, k: KeyEvent) {
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    match k.code {
        KeyCode::Char('w') if ctrl => kill_back(text, cursor, Kill::Word),
        KeyCode::Char('u') if ctrl => kill_back(text, cursor, Kill::Line),
        KeyCode::Char(c) if !ctrl => {
            text.insert(*cursor, c);
            *cursor += c.len_utf8();
        }
        KeyCode::Enter => {
            text.insert(*cursor, '\n');
            *cursor += 1;
        }
        KeyCode::Tab => {
            text.insert_str(*cursor, "    ");
            *cursor += 4;
        }
        KeyCode::Backspace => {
            if let Some(c) = text[..*cursor].chars().next_back() {
                *cursor -= c.len_utf8();
                text.remove(*cursor);
            }
        }
        KeyCode::Delete if *cursor < text.len() => {
            text.remove(*cursor);
        }
        KeyCode::Left => {
            if let Some(c) = text[..*cursor].chars().next_back() {
                *cursor -= c.len_utf8();
            }
        }
        KeyCode::Right => {
            if let Some(c) = text[*cursor..].chars().next() {
                *cursor += c.len_utf8();
            }
        }
        KeyCode::Home => *cursor = text[..*cursor].rfind('\n').map_or(0, |i| i + 1),
        KeyCode::End => *cursor += text[*cursor..].find('\n').unwrap_or(text.len() - *cursor),
        KeyCode::Up | KeyCode::Down => {
            *cursor = vertical(text, *cursor, k.code == KeyCode::Up);
        }
        _ => {}
    }
}

/// What `Ctrl-w` and `Ctrl-u` delete before the cursor, as readline does.
#[derive(Clone, Copy)]
pub(super) enum Kill {
    /// The word before the cursor, and the blanks after it.
    Word,
    /// The cursor's line up to the cursor.
    Line,
}

/// Deletes what `kill` names before `cursor` in `text` (one home for the
/// editors and the search prompt).
pub(super) fn kill_back(text: &mut String, cursor: &mut usize, kill: Kill) {
    let before = &text[..*cursor];
    let start = match kill {
        Kill::Line => before.rfind('\n').map_or(0, |i| i + 1),
        Kill::Word => {
            // Blanks before the cursor (not a line's end: the word stays on
            // its line), then the word before them: both by character, as
            // a blank may be wider than a byte (U+3000).
            let word = before.trim_end_matches(|c: char| c.is_whitespace() && c != '\n');
            word.char_indices()
                .rev()
                .find(|(_, c)| c.is_whitespace())
                .map_or(0, |(i, c)| i + c.len_utf8())
        }
    };
    text.replace_range(start..*cursor, "");
    *cursor = start;
}

/// Cursor movement one line up or down, keeping the column (in chars).
pub(super) fn vertical(text: &str, cursor: usize, up: bool) -> usize {
    let line_start = text[..cursor].rfind('\n').map_or(0, |i| i + 1);
    let col = text[line_start..cursor].chars().count();
    let target_start = if up {
        if line_start == 0 {
            return cursor;
        }
        text[..line_start - 1].rfind('\n').map_or(0, |i| i + 1)
    } else {
        match text[cursor..].find('\n') {
            Some(i) => cursor + i + 1,
            None => return cursor,
        }
    };
    let line_end = text[target_start..]
        .find('\n')
        .map_or(text.len(), |i| target_start + i);
    let mut pos = target_start;
    for (n, (i, c)) in text[target_start..line_end].char_indices().enumerate() {
        if n == col {
            return target_start + i;
        }
        pos = target_start + i + c.len_utf8();
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_lines_are_dropped() {
        assert_eq!(strip_template("Use PKCE.\n# amail: x\n"), "Use PKCE.");
    }

    #[test]
    fn vertical_moves_keep_column() {
        let t = "abc\nde\nfghij";
        assert_eq!(vertical(t, 2, false), 6); // 'c' -> end of "de"
        assert_eq!(vertical(t, 6, false), 9);
        assert_eq!(vertical(t, 9, true), 6);
        assert_eq!(vertical(t, 1, true), 1);
    }
}
