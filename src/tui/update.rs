//! `update`: the only place state changes. Pure over the model: no I/O,
//! no clock reads, no terminal; side effects leave as a [`Command`].
//!
//! Keys are routed most-specific first: an open overlay (reply editor,
//! chooser, help) takes every key; then the search prompt; then the
//! keymap's actions, which act on the focused pane.

use amail_parser::MessageType;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::keymap::Action;
use super::model::{ChoiceFor, Filter, ListKind, Model, Notice, Overlay, Pane, Screen, Search};
use super::msg::{Command, Msg};
use super::view::message::detail_line_count;
use crate::inbox::HelpState;

pub fn update(m: &mut Model, msg: Msg) -> Option<Command> {
    match msg {
        Msg::Key(k) => {
            if k.kind == KeyEventKind::Release {
                return None;
            }
            m.dirty = true;
            key(m, k)
        }
        Msg::Resize(w, h) => {
            m.size = (w, h);
            m.dirty = true;
            None
        }
        Msg::Tick(now) => {
            // Ages show minutes at best: redraw only when the minute turns.
            if now.timestamp() / 60 != m.now.timestamp() / 60 {
                m.dirty = true;
            }
            m.now = now;
            None
        }
        Msg::MailChanged => Some(Command::Load),
        Msg::Loaded { inbox, tasks } => {
            loaded(m, inbox, tasks);
            m.dirty = true;
            None
        }
        Msg::Acked {
            agent,
            done,
            errors,
        } => {
            m.notice = Some(if errors.is_empty() {
                Notice {
                    text: format!("✓ acknowledged {done} message{} as {agent}", plural(done)),
                    error: false,
                }
            } else {
                Notice {
                    text: format!("✗ ack failed: {}", errors.join("; ")),
                    error: true,
                }
            });
            m.dirty = true;
            Some(Command::Load)
        }
        Msg::Replied { key, result } => {
            m.dirty = true;
            let to = m
                .inbox
                .message_by_key(&key)
                .and_then(|x| x.message.from.as_deref())
                .unwrap_or("the sender")
                .to_string();
            match result {
                Ok(()) => {
                    m.notice = Some(Notice {
                        text: format!("✓ reply sent to {to}"),
                        error: false,
                    });
                    Some(Command::Load)
                }
                Err(e) => {
                    m.notice = Some(Notice {
                        text: format!("✗ reply failed: {e}"),
                        error: true,
                    });
                    None
                }
            }
        }
        Msg::EditorClosed(result) => {
            m.dirty = true;
            match (result, m.overlay.take()) {
                (Ok(text), Some(Overlay::Editor { key, agent, to, .. })) => {
                    let body = strip_template(&text);
                    if body.trim().is_empty() {
                        m.notice = Some(Notice {
                            text: "reply not sent: the editor returned an empty body".into(),
                            error: false,
                        });
                        None
                    } else {
                        m.notice = Some(Notice {
                            text: format!("sending reply to {to}…"),
                            error: false,
                        });
                        Some(Command::Reply { key, agent, body })
                    }
                }
                (Err(e), overlay) => {
                    m.overlay = overlay;
                    m.notice = Some(Notice {
                        text: format!("✗ $EDITOR: {e}"),
                        error: true,
                    });
                    None
                }
                (Ok(_), other) => {
                    m.overlay = other;
                    None
                }
            }
        }
        Msg::Watch(w) => {
            m.watch = w;
            m.dirty = true;
            None
        }
    }
}

const RELOADING: &str = "reloading…";

/// Lines starting with this are instructions in the `$EDITOR` file.
pub const TEMPLATE_MARK: &str = "# amail:";

fn strip_template(text: &str) -> String {
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with(TEMPLATE_MARK))
        .collect();
    kept.join("\n").trim().to_string()
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn loaded(
    m: &mut Model,
    inbox: Result<crate::inbox::Inbox, String>,
    tasks: Result<Vec<crate::router::TaskSummary>, String>,
) {
    let before = m.sel.clone();
    let old = (
        m.list_keys(ListKind::Threads),
        m.list_keys(ListKind::Messages),
        m.list_keys(ListKind::Tasks),
        m.list_keys(ListKind::Agents),
    );
    let mut errors = Vec::new();
    match inbox {
        Ok(i) => m.inbox = i,
        Err(e) => errors.push(format!("mail: {e}")),
    }
    match tasks {
        Ok(t) => m.tasks = t,
        Err(e) => errors.push(format!("tasks: {e}")),
    }
    m.load_error = if errors.is_empty() {
        None
    } else {
        Some(errors.join("; "))
    };
    if m.notice.as_ref().is_some_and(|n| n.text == RELOADING) {
        m.notice = Some(Notice {
            text: format!(
                "✓ reloaded: {} threads, {} tasks",
                m.inbox.threads.len(),
                m.tasks.len()
            ),
            error: false,
        });
    }
    m.fix_selection(&before, &old.0, &old.1, &old.2, &old.3);
}

fn key(m: &mut Model, k: KeyEvent) -> Option<Command> {
    if m.overlay.is_some() {
        return overlay_key(m, k);
    }
    if m.search.typing {
        search_key(m, k);
        return None;
    }
    let action = m.config.keymap.action_for(&k)?;
    // A fresh action clears the last notice so old news does not linger.
    m.notice = None;
    act(m, action)
}

fn act(m: &mut Model, a: Action) -> Option<Command> {
    match a {
        Action::Quit => {
            m.quit = true;
            return Some(Command::Quit);
        }
        Action::Help => m.overlay = Some(Overlay::Help { scroll: 0 }),
        Action::Reload => {
            m.notice = Some(Notice {
                text: RELOADING.into(),
                error: false,
            });
            return Some(Command::Load);
        }
        Action::Up => step(m, -1),
        Action::Down => step(m, 1),
        Action::HalfPageDown => step(m, (m.page_rows() / 2).max(1) as isize),
        Action::HalfPageUp => step(m, -((m.page_rows() / 2).max(1) as isize)),
        Action::Top => step(m, isize::MIN),
        Action::Bottom => step(m, isize::MAX),
        Action::Open => open(m),
        Action::Back => back(m),
        Action::NextPane | Action::PrevPane if m.screen == Screen::Inbox => {
            let order = [Pane::Threads, Pane::Messages, Pane::Message];
            let i = order.iter().position(|p| *p == m.focus).unwrap_or(0);
            let n = if a == Action::NextPane {
                (i + 1) % 3
            } else {
                (i + 2) % 3
            };
            m.focus = order[n];
            if m.focus != Pane::Threads && m.sel.message.is_none() {
                m.sel.message = m.current_message().map(|x| x.key.clone());
            }
        }
        Action::NextPane | Action::PrevPane => {}
        Action::FilterAll => set_filter(m, Filter::All),
        Action::FilterPending => set_filter(m, Filter::PendingAck),
        Action::FilterHelp => set_filter(m, Filter::Help),
        Action::FilterInProgress => set_filter(m, Filter::InProgress),
        Action::FilterFailed => set_filter(m, Filter::Failed),
        Action::FilterDone => set_filter(m, Filter::Done),
        Action::ScreenInbox => m.screen = Screen::Inbox,
        Action::ScreenTasks => m.screen = Screen::Tasks,
        Action::ScreenAgents => m.screen = Screen::Agents,
        Action::Search => {
            let origin = search_list(m).and_then(|l| m.selected_key(l));
            m.search = Search {
                query: String::new(),
                typing: true,
                origin,
            };
        }
        Action::SearchNext => jump_match(m, true, false),
        Action::SearchPrev => jump_match(m, false, false),
        Action::ToggleRaw => {
            m.raw = !m.raw;
            m.detail_scroll = 0;
        }
        Action::Ack => return ack(m),
        Action::Reply => return reply(m, false),
        Action::ReplyInEditor => return reply(m, true),
    }
    None
}

fn set_filter(m: &mut Model, f: Filter) {
    m.screen = Screen::Inbox;
    m.filter = f;
    m.focus = Pane::Threads;
    // Keep the thread if it is still shown; else the first one.
    let keys = m.list_keys(ListKind::Threads);
    if !m.sel.thread.as_ref().is_some_and(|k| keys.contains(k)) {
        let first = keys.first().cloned();
        m.set_selected(ListKind::Threads, first);
    }
}

/// Moves the focused list's selection by `delta` (clamped; MIN/MAX = ends),
/// or scrolls the message view when that has focus.
fn step(m: &mut Model, delta: isize) {
    let Some(kind) = m.current_list() else {
        let max = detail_line_count(m).saturating_sub(1) as isize;
        let cur = m.detail_scroll as isize;
        let next = cur.saturating_add(delta).clamp(0, max.max(0));
        m.detail_scroll = next as u16;
        return;
    };
    let keys = m.list_keys(kind);
    if keys.is_empty() {
        return;
    }
    let cur = m.selected_index(kind).unwrap_or(0) as isize;
    let next = cur.saturating_add(delta).clamp(0, keys.len() as isize - 1) as usize;
    m.set_selected(kind, Some(keys[next].clone()));
}

fn open(m: &mut Model) {
    match m.screen {
        Screen::Inbox => match m.focus {
            Pane::Threads => {
                if m.sel.thread.is_some() {
                    m.sel.message = m.current_message().map(|x| x.key.clone());
                    m.focus = Pane::Messages;
                }
            }
            Pane::Messages => {
                m.sel.message = m.current_message().map(|x| x.key.clone());
                m.focus = Pane::Message;
            }
            Pane::Message => {}
        },
        // From a task or an agent, jump to its thread when there is one.
        Screen::Tasks => {
            let bead = m
                .sel
                .task
                .as_ref()
                .and_then(|id| m.tasks.iter().find(|t| &t.id == id))
                .and_then(|t| t.bead.clone());
            jump_to_bead(m, bead);
        }
        Screen::Agents => {
            let bead = m
                .sel
                .agent
                .as_ref()
                .and_then(|n| m.inbox.agents.iter().find(|a| &a.name == n))
                .and_then(|a| a.bead.clone());
            jump_to_bead(m, bead);
        }
    }
}

fn jump_to_bead(m: &mut Model, bead: Option<String>) {
    let Some(bead) = bead else {
        m.notice = Some(Notice {
            text: "no thread for this item".into(),
            error: false,
        });
        return;
    };
    let Some(id) = m
        .inbox
        .threads
        .iter()
        .find(|t| t.bead.as_deref() == Some(bead.as_str()) || t.id == bead)
        .map(|t| t.id.clone())
    else {
        m.notice = Some(Notice {
            text: format!("no mail about {bead}"),
            error: false,
        });
        return;
    };
    m.screen = Screen::Inbox;
    m.filter = Filter::All;
    m.set_selected(ListKind::Threads, Some(id));
    m.focus = Pane::Messages;
}

fn back(m: &mut Model) {
    if m.screen != Screen::Inbox {
        m.screen = Screen::Inbox;
        return;
    }
    match m.focus {
        Pane::Message => m.focus = Pane::Messages,
        Pane::Messages => m.focus = Pane::Threads,
        Pane::Threads => {
            if !m.search.query.is_empty() {
                m.search = Search::default();
            } else if m.filter != Filter::All {
                set_filter(m, Filter::All);
            }
        }
    }
}

fn search_key(m: &mut Model, k: KeyEvent) {
    match k.code {
        KeyCode::Esc => {
            let origin = m.search.origin.take();
            if let Some(kind) = search_list(m) {
                if origin.is_some() {
                    m.set_selected(kind, origin);
                }
            }
            m.search = Search::default();
        }
        KeyCode::Enter => {
            m.search.typing = false;
            if !m.search.query.is_empty() && !has_match(m) {
                m.notice = Some(Notice {
                    text: format!("no match for “{}”", m.search.query),
                    error: true,
                });
            }
        }
        KeyCode::Backspace => {
            m.search.query.pop();
            jump_match(m, true, true);
        }
        KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => {
            m.search.query.push(c);
            jump_match(m, true, true);
        }
        _ => {}
    }
}

/// The list `/` searches: the focused one; from the message view, the
/// thread's messages.
fn search_list(m: &Model) -> Option<ListKind> {
    m.current_list().or(match m.screen {
        Screen::Inbox => Some(ListKind::Messages),
        _ => None,
    })
}

fn has_match(m: &Model) -> bool {
    let Some(kind) = search_list(m) else {
        return false;
    };
    m.list_keys(kind)
        .iter()
        .any(|k| m.item_matches(kind, k, &m.search.query))
}

/// Selects the next (or previous) item matching the query. While typing
/// (`from_origin`), the search starts at the item selected when `/` was
/// pressed, inclusive, so each keystroke refines the same hit.
fn jump_match(m: &mut Model, forward: bool, from_origin: bool) {
    let Some(kind) = search_list(m) else { return };
    if m.search.query.is_empty() {
        return;
    }
    let q = m.search.query.clone();
    let keys = m.list_keys(kind);
    if keys.is_empty() {
        return;
    }
    let n = keys.len();
    let start = if from_origin {
        m.search
            .origin
            .as_ref()
            .and_then(|o| keys.iter().position(|k| k == o))
            .unwrap_or(0)
    } else {
        let cur = m.selected_index(kind).unwrap_or(0);
        if forward {
            (cur + 1) % n
        } else {
            (cur + n - 1) % n
        }
    };
    for i in 0..n {
        let idx = if forward {
            (start + i) % n
        } else {
            (start + n - i) % n
        };
        if m.item_matches(kind, &keys[idx], &q) {
            m.set_selected(kind, Some(keys[idx].clone()));
            return;
        }
    }
    if !from_origin {
        m.notice = Some(Notice {
            text: format!("no match for “{}”", m.search.query),
            error: true,
        });
    }
}

// ---- ack and reply -----------------------------------------------------------

/// The messages `a` acts on: the selected message, or in the thread list
/// every message of the thread still owed an ack.
fn ack_targets(m: &Model) -> Vec<String> {
    if m.screen != Screen::Inbox {
        return Vec::new();
    }
    match m.focus {
        Pane::Threads => m
            .selected_thread()
            .map(|t| {
                t.messages
                    .iter()
                    .filter_map(|&i| m.inbox.messages.get(i))
                    .filter(|x| !m.pending_recipients(x).is_empty())
                    .map(|x| x.key.clone())
                    .collect()
            })
            .unwrap_or_default(),
        _ => m
            .current_message()
            .map(|x| vec![x.key.clone()])
            .unwrap_or_default(),
    }
}

fn ack(m: &mut Model) -> Option<Command> {
    let keys = ack_targets(m);
    let mut who: Vec<String> = Vec::new();
    for k in &keys {
        if let Some(msg) = m.inbox.message_by_key(k) {
            for a in m.pending_recipients(msg) {
                if !who.contains(&a) {
                    who.push(a);
                }
            }
        }
    }
    if who.is_empty() {
        m.notice = Some(Notice {
            text: match &m.identity {
                Some(me) => format!("nothing here waits for {me}'s ack"),
                None => "nothing here waits for an ack".into(),
            },
            error: false,
        });
        return None;
    }
    if who.len() == 1 {
        let agent = who.remove(0);
        return Some(ack_command(m, keys, agent));
    }
    who.sort();
    m.overlay = Some(Overlay::Choose {
        title: "Acknowledge as".into(),
        options: who,
        index: 0,
        purpose: ChoiceFor::Ack { keys },
    });
    None
}

/// Only the messages this agent still owes an ack on.
fn ack_command(m: &Model, keys: Vec<String>, agent: String) -> Command {
    let keys = keys
        .into_iter()
        .filter(|k| {
            m.inbox.message_by_key(k).is_some_and(|x| {
                x.message.ack_required
                    && x.recipients
                        .iter()
                        .any(|r| r.agent == agent && r.ack_at.is_none())
            })
        })
        .collect();
    Command::Ack { keys, agent }
}

/// The message `r` answers: the selected one, or in the thread list the
/// latest unanswered help request, else the latest message.
fn reply_target(m: &Model) -> Option<String> {
    if m.screen != Screen::Inbox {
        return None;
    }
    if m.focus != Pane::Threads {
        return m.current_message().map(|x| x.key.clone());
    }
    let t = m.selected_thread()?;
    let msgs: Vec<_> = t
        .messages
        .iter()
        .filter_map(|&i| m.inbox.messages.get(i))
        .collect();
    let help = (t.help == HelpState::Unanswered)
        .then(|| {
            msgs.iter()
                .rev()
                .find(|x| x.message.kind == MessageType::HelpRequest)
        })
        .flatten();
    help.or(msgs.last()).map(|x| x.key.clone())
}

fn reply(m: &mut Model, external_editor: bool) -> Option<Command> {
    let Some(key) = reply_target(m) else {
        m.notice = Some(Notice {
            text: "select a thread or message to reply to".into(),
            error: false,
        });
        return None;
    };
    let candidates: Vec<String> = match &m.identity {
        Some(me) => vec![me.clone()],
        None => {
            let mut v: Vec<String> = m
                .inbox
                .message_by_key(&key)
                .map(|x| x.recipients.iter().map(|r| r.agent.clone()).collect())
                .unwrap_or_default();
            v.sort();
            v.dedup();
            v
        }
    };
    match candidates.len() {
        0 => {
            m.notice = Some(Notice {
                text: "no recipient to reply as; start with --as AGENT".into(),
                error: true,
            });
            None
        }
        1 => start_reply(m, key, candidates[0].clone(), external_editor),
        _ => {
            m.overlay = Some(Overlay::Choose {
                title: "Reply as".into(),
                options: candidates,
                index: 0,
                purpose: ChoiceFor::Reply {
                    key,
                    external_editor,
                },
            });
            None
        }
    }
}

fn start_reply(
    m: &mut Model,
    key: String,
    agent: String,
    external_editor: bool,
) -> Option<Command> {
    let to = m
        .inbox
        .message_by_key(&key)
        .and_then(|x| x.message.from.as_deref().map(String::from))
        .unwrap_or_else(|| "(unknown sender)".into());
    m.overlay = Some(Overlay::Editor {
        key,
        agent: agent.clone(),
        to: to.clone(),
        text: String::new(),
        cursor: 0,
    });
    if external_editor {
        return Some(Command::Editor {
            initial: editor_template(&agent, &to),
        });
    }
    None
}

fn editor_template(agent: &str, to: &str) -> String {
    format!(
        "\n{TEMPLATE_MARK} reply from {agent} to {to} (HELP_RESPONSE).\n{TEMPLATE_MARK} Lines starting with '{TEMPLATE_MARK}' are dropped. Save an empty body to cancel.\n"
    )
}

fn overlay_key(m: &mut Model, k: KeyEvent) -> Option<Command> {
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    let overlay = m.overlay.as_mut()?;
    match overlay {
        Overlay::Help { scroll } => {
            match m.config.keymap.action_for(&k) {
                Some(Action::Down) => {
                    let max = super::view::help::help_lines(m).len() as u16;
                    if let Some(Overlay::Help { scroll }) = m.overlay.as_mut() {
                        *scroll = (*scroll + 1).min(max);
                    }
                }
                Some(Action::Up) => *scroll = scroll.saturating_sub(1),
                Some(Action::HalfPageDown) => *scroll = scroll.saturating_add(10),
                Some(Action::HalfPageUp) => *scroll = scroll.saturating_sub(10),
                Some(Action::Top) => *scroll = 0,
                Some(Action::Bottom) => {
                    let visible = (m.size.1 as usize).saturating_sub(6);
                    let total = super::view::help::help_lines(m).len();
                    let end = total.saturating_sub(visible) as u16;
                    if let Some(Overlay::Help { scroll }) = m.overlay.as_mut() {
                        *scroll = end;
                    }
                }
                Some(Action::Help | Action::Back | Action::Quit) => m.overlay = None,
                _ if k.code == KeyCode::Esc => m.overlay = None,
                _ => {}
            }
            None
        }
        Overlay::Choose {
            options,
            index,
            purpose,
            ..
        } => {
            match (k.code, m.config.keymap.action_for(&k)) {
                (KeyCode::Esc, _) | (_, Some(Action::Back)) if k.code != KeyCode::Enter => {
                    m.overlay = None;
                }
                (KeyCode::Enter, _) => {
                    let agent = options[*index].clone();
                    let purpose = purpose.clone();
                    m.overlay = None;
                    return match purpose {
                        ChoiceFor::Ack { keys } => Some(ack_command(m, keys, agent)),
                        ChoiceFor::Reply {
                            key,
                            external_editor,
                        } => start_reply(m, key, agent, external_editor),
                    };
                }
                (_, Some(Action::Down)) => *index = (*index + 1).min(options.len() - 1),
                (_, Some(Action::Up)) => *index = index.saturating_sub(1),
                (KeyCode::Char(c), _) if c.is_ascii_digit() => {
                    let n = c.to_digit(10).unwrap_or(0) as usize;
                    if n >= 1 && n <= options.len() {
                        *index = n - 1;
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
            text,
            cursor,
        } => {
            match k.code {
                KeyCode::Esc => {
                    m.overlay = None;
                    m.notice = Some(Notice {
                        text: "reply discarded".into(),
                        error: false,
                    });
                }
                KeyCode::Char('s') if ctrl => {
                    if text.trim().is_empty() {
                        m.notice = Some(Notice {
                            text: "type a reply first (Esc discards)".into(),
                            error: true,
                        });
                        return None;
                    }
                    let cmd = Command::Reply {
                        key: key.clone(),
                        agent: agent.clone(),
                        body: text.trim().to_string(),
                    };
                    m.notice = Some(Notice {
                        text: format!("sending reply to {to}…"),
                        error: false,
                    });
                    m.overlay = None;
                    return Some(cmd);
                }
                KeyCode::Char('e') if ctrl => {
                    let mut initial = text.clone();
                    initial.push_str(&editor_template(agent, to));
                    return Some(Command::Editor { initial });
                }
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
                KeyCode::End => {
                    *cursor += text[*cursor..].find('\n').unwrap_or(text.len() - *cursor)
                }
                KeyCode::Up | KeyCode::Down => {
                    *cursor = vertical(text, *cursor, k.code == KeyCode::Up);
                }
                _ => {}
            }
            None
        }
    }
}

/// Cursor movement one line up or down, keeping the column (in chars).
fn vertical(text: &str, cursor: usize, up: bool) -> usize {
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
