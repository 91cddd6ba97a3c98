//! `update`: the only place state changes. Pure over the model: no I/O,
//! no clock reads, no terminal; side effects leave as a [`Command`].
//!
//! Keys are routed most-specific first, each component consuming what it
//! handles: an open overlay (reply editor, chooser, help: `overlays`)
//! takes every key; then the search prompt (`search`); then the keymap's
//! actions, which act on the focused pane (`nav` for movement and views,
//! `mail` for ack and reply).

mod mail;
mod nav;
mod overlays;
mod search;

use ratatui::crossterm::event::{KeyEvent, KeyEventKind};

use crate::keymap::Action;
use crate::model::{Filter, ListsBefore, Model, Notice, Overlay, Pane, Screen, Search};
use crate::msg::{Command, Msg};
use mail::*;
use nav::*;
use overlays::*;
use search::*;

pub fn update(m: &mut Model, msg: Msg) -> Option<Command> {
    match msg {
        Msg::Key(k) => {
            if k.kind == KeyEventKind::Release {
                return None;
            }
            m.dirty = true;
            key(m, k)
        }
        Msg::Scroll(lines) => {
            m.dirty = true;
            if m.overlay.is_none() {
                step(m, lines as isize);
            }
            None
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
        Msg::FilesChanged(changed) => Some(Command::Reload {
            changed,
            before: Box::new(m.lists_before()),
        }),
        Msg::Progress {
            done,
            total,
            per_sec,
        } => {
            m.progress = Some((done, total, per_sec));
            m.dirty = true;
            None
        }
        Msg::Loaded { inbox, tasks } => {
            m.progress = None;
            let before = m.lists_before();
            let inbox = inbox.map(|i| m.inbox = i);
            loaded(m, &before, inbox, tasks);
            m.dirty = true;
            None
        }
        Msg::Reloaded {
            before,
            inbox,
            tasks,
        } => {
            loaded(m, &before, inbox, tasks);
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

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// After a load or reload: `inbox` says whether the inbox on screen is new
/// (it is already in place); the tasks are taken; selections are fixed up
/// against `before`.
fn loaded(
    m: &mut Model,
    before: &ListsBefore,
    inbox: Result<(), String>,
    tasks: Result<Vec<amail_core::router::TaskSummary>, String>,
) {
    let mut errors = Vec::new();
    if let Err(e) = inbox {
        errors.push(format!("mail: {e}"));
    }
    match tasks {
        Ok(t) => m.tasks = t,
        Err(e) => errors.push(format!("tasks: {e}")),
    }
    m.data_changed();
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
    m.restore_selection(before);
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
