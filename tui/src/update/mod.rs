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
mod quitting;
mod review;
mod search;
mod triage;

use amail_core::words::plural;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::keymap::Action;
use crate::model::{
    EditMode, Filter, ListsBefore, Model, Notice, Overlay, Pane, Screen, Search, Write,
};
use crate::msg::{Command, Msg};
use mail::*;
use nav::*;
use overlays::*;
use search::*;

pub use quitting::{outcome, still_out};

pub fn update(m: &mut Model, msg: Msg) -> Option<Command> {
    let written = answered(m, &msg);
    let ok = written.as_ref().map(|(_, ok)| *ok);
    let cmd = handle(m, msg, written.map(|(w, _)| w));
    if let Some(w) = cmd.as_ref().and_then(Write::of) {
        m.writing.push(w);
    }
    match ok {
        Some(ok) if m.quit_after_writes => quit_once_written(m, ok).or(cmd),
        _ => cmd,
    }
}

/// `msg` answers a write out ([`Model::writing`]): it is no longer out;
/// the write (with the text it carries) and whether it was written.
fn answered(m: &mut Model, msg: &Msg) -> Option<(Write, bool)> {
    let (i, ok) = m
        .writing
        .iter()
        .enumerate()
        .find_map(|(i, w)| w.answered_by(msg).map(|ok| (i, ok)))?;
    Some((m.writing.remove(i), ok))
}

/// A quit waiting for the writes out ([`Model::quit_after_writes`]) after
/// one of them answered: a failure takes the quit back (its handler kept
/// the text and said why); the last one written quits.
fn quit_once_written(m: &mut Model, ok: bool) -> Option<Command> {
    if !ok {
        m.quit_after_writes = false;
        if let Some(n) = &mut m.notice {
            n.text.insert_str(0, "quit cancelled · ");
        }
        return None;
    }
    if !m.writing.is_empty() {
        m.notice = Some(waiting_to_quit(m));
        return None;
    }
    m.quit = true;
    Some(Command::Quit)
}

/// "sending 1 ack, then quitting: q again quits now, other keys stay".
fn waiting_to_quit(m: &Model) -> Notice {
    Notice::keyed(
        format!(
            "sending {}, then quitting: ",
            crate::model::writes_in_words(&m.writing)
        ),
        &format!(
            "{} again quits now, other keys stay",
            m.config.keymap.first_key(Action::Quit)
        ),
        false,
    )
}

/// `written`: the write `msg` answers, if it answers one ([`answered`]).
fn handle(m: &mut Model, msg: Msg, written: Option<Write>) -> Option<Command> {
    match msg {
        Msg::Key(k) => {
            if k.kind == KeyEventKind::Release {
                return None;
            }
            m.dirty = true;
            let cmd = match esc_then(m, &k) {
                // Esc never asks the backend for anything, but should
                // it, the key after it still gets its say.
                Some(after) => {
                    let esc = key(m, KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
                    key(m, after).or(esc)
                }
                None => key(m, k),
            };
            while_loading(m, cmd.as_ref());
            cmd.or_else(|| wants_file(m))
                .or_else(|| review::wants_queues(m))
        }
        Msg::Scroll(lines) => {
            m.dirty = true;
            if !overlay_wheel(m, lines as isize) {
                step(m, lines as isize);
            }
            review::wants_queues(m)
        }
        Msg::ScrollAt { x, y, lines } => {
            m.dirty = true;
            if !overlay_wheel(m, lines as isize) {
                scroll_at(m, x, y, lines as isize);
            }
            review::wants_queues(m)
        }
        Msg::Click { x, y } => {
            m.dirty = true;
            if m.overlay.is_none() && !m.search.typing {
                click(m, x, y);
            } else {
                overlay_click(m, x, y);
            }
            review::wants_queues(m)
        }
        Msg::Resize(w, h) => {
            m.size = (w, h);
            // Queues a shorter terminal leaves out cannot hold the focus.
            m.queue_focus &= crate::view::agents::queues_shown(m);
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
        Msg::SearchCounted => {
            settle_search(m);
            m.dirty = true;
            wants_file(m)
        }
        Msg::MailChanged => Some(Command::Load),
        Msg::FilesChanged(changed) => Some(Command::Reload { changed }),
        Msg::Progress {
            done,
            total,
            per_sec,
        } => {
            m.progress = Some((done, total, per_sec));
            m.dirty = true;
            None
        }
        Msg::Partial(inbox) => {
            // The newest part of a large mailbox, while the rest loads:
            // browsable as it is; the selection, filter and search stay
            // (held by key), so the screen grows under the user. Nothing
            // else a load does (notifications, tasks, errors) happens
            // until the whole inbox is in.
            let before = m.lists_before();
            m.inbox = *inbox;
            m.partial = true;
            m.data_changed();
            m.restore_selection(&before);
            m.dirty = true;
            wants_file(m).or_else(|| review::wants_queues(m))
        }
        Msg::Loaded { inbox, tasks } => {
            m.progress = None;
            m.partial = false;
            let before = m.lists_before();
            let inbox = inbox.map(|i| m.inbox = i);
            // An ack's or a send's result stays on screen over the
            // warning below; `R`'s "reloading" gives way to it.
            let free = m.notice.as_ref().is_none_or(|n| n.text == RELOADING);
            let whole = inbox.is_ok();
            loaded(m, &before, inbox, tasks, None);
            if whole && free {
                point_out_unknown_identity(m);
            }
            m.dirty = true;
            wants_file(m).or_else(|| review::wants_queues(m))
        }
        Msg::Reloaded { refresh, tasks } => {
            // Applied here, in memory and in proportion to the change; one
            // it cannot apply exactly is read again whole, on the worker.
            let before = m.lists_before();
            let mut patched = None;
            let inbox = match refresh {
                Ok(r) => {
                    if !r.apply(&mut m.inbox) {
                        return Some(Command::Load);
                    }
                    // What the patch did, so the counts and lists move
                    // by it instead of being made again.
                    patched = m.inbox.take_patched();
                    Ok(())
                }
                Err(e) => Err(e),
            };
            loaded(m, &before, inbox, tasks, patched);
            m.dirty = true;
            wants_file(m).or_else(|| review::wants_queues(m))
        }
        Msg::FileRead { path, text } => {
            m.file = Some(std::rc::Rc::new(crate::model::FileText { path, text }));
            m.dirty = true;
            None
        }
        Msg::Acked {
            agent,
            done,
            errors,
        } => {
            if errors.is_empty() {
                m.marks = Default::default();
            }
            m.notice = Some(if errors.is_empty() {
                Notice::info(acked_line(&agent, done))
            } else {
                Notice::error(format!("✗ ack failed: {}", errors.join("; ")))
            });
            m.dirty = true;
            Some(Command::Load)
        }
        Msg::MarkedRead { agent, result } => {
            m.dirty = true;
            m.notice = Some(match result {
                Ok(n) => {
                    m.marks = Default::default();
                    Notice::info(marked_line(&agent, n))
                }
                Err(e) => Notice::error(format!("✗ mark read failed: {e}")),
            });
            Some(Command::Load)
        }
        Msg::Sent { to, result } => {
            m.dirty = true;
            match result {
                Ok(()) => {
                    m.notice = Some(Notice::info(format!("✓ sent to {}", to.join(", "))));
                    Some(Command::Load)
                }
                Err(e) => {
                    // The message comes back in its editor, to send again;
                    // with another overlay open it is not pushed aside but
                    // kept for `c`, as Esc then `k` keeps one.
                    let failed = match written {
                        Some(Write::Send(editor)) => Some(*editor),
                        _ => None,
                    };
                    m.notice = Some(if m.overlay.is_none() {
                        m.overlay = failed;
                        Notice::keyed(
                            format!("✗ send failed: {e} "),
                            "(kept in the editor: Ctrl-s sends again)",
                            true,
                        )
                    } else {
                        m.composed.extend(failed);
                        Notice::keyed(
                            format!("✗ send failed: {e} "),
                            &format!(
                                "(kept: {} opens it again)",
                                m.config.keymap.first_key(Action::Compose)
                            ),
                            true,
                        )
                    });
                    None
                }
            }
        }
        Msg::Replied { key, result } => {
            m.dirty = true;
            let to = m
                .inbox
                .message_by_key(&key)
                .and_then(|x| x.message.from)
                .map_or("the sender", |n| n.as_str())
                .to_string();
            match result {
                Ok(()) => {
                    m.drafts.remove(&key);
                    m.notice = Some(Notice::info(format!("✓ reply sent to {to}")));
                    Some(Command::Load)
                }
                Err(e) => {
                    // Back to the drafts (a draft kept meanwhile, with Esc
                    // then `k`, is the newer text).
                    if let Some(Write::Reply { text, .. }) = written {
                        m.drafts.entry(key).or_insert(text);
                    }
                    m.notice = Some(Notice::keyed(
                        format!("✗ reply failed: {e} "),
                        &format!(
                            "(draft kept: {} sends it again)",
                            m.config.keymap.first_key(Action::Reply)
                        ),
                        true,
                    ));
                    None
                }
            }
        }
        Msg::Reviewed {
            id,
            verdict,
            result,
        } => {
            m.dirty = true;
            review::reviewed(m, &id, verdict, result, written)
        }
        Msg::MailboxRead { agent, result } => {
            m.dirty = true;
            review::queues_read(m, agent, result);
            None
        }
        Msg::EditorClosed(result) => {
            m.dirty = true;
            match (result, m.overlay.as_mut()) {
                // Back from $EDITOR: the text comes up for review (aerc's
                // y send / e edit again / d discard), never sent unseen.
                (
                    Ok(text),
                    Some(Overlay::Editor {
                        text: t,
                        cursor,
                        mode,
                        ..
                    }),
                ) => {
                    let body = strip_template(&text);
                    if body.trim().is_empty() {
                        // The file says an empty body cancels: the draft
                        // it was started from is cancelled with it.
                        if let Some(Overlay::Editor { key, .. }) = m.overlay.take() {
                            m.drafts.remove(&key);
                        }
                        m.notice = Some(Notice::info(
                            "reply not sent: the editor returned an empty body",
                        ));
                    } else {
                        *cursor = body.len();
                        *t = body;
                        *mode = EditMode::Review;
                    }
                    None
                }
                (Err(e), _) => {
                    m.notice = Some(Notice::error(format!("✗ $EDITOR: {e}")));
                    None
                }
                (Ok(_), _) => None,
            }
        }
        Msg::Watch(w) => {
            m.watch = w;
            m.dirty = true;
            None
        }
        Msg::NotSuspended => {
            m.dirty = true;
            m.notice = Some(Notice::info(
                "not suspended: no job-control shell started amail, so none could fg it",
            ));
            None
        }
    }
}

const RELOADING: &str = "reloading…";

/// An ack or mark-read asked for while the screen shows the newest part of
/// a mailbox still loading runs on the worker once the load is done, on
/// the messages on screen now: say so, since older messages of the same
/// threads may not be loaded yet.
fn while_loading(m: &mut Model, cmd: Option<&Command>) {
    if !m.partial {
        return;
    }
    let Some((done, total)) = m.loading() else {
        return;
    };
    let (verb, n) = match cmd {
        Some(Command::Ack { keys, .. }) => ("acknowledging", keys.len()),
        Some(Command::MarkRead { keys, .. }) => ("marking read", keys.len()),
        _ => return,
    };
    m.notice = Some(Notice::info(format!(
            "still loading ({done}/{total} files): {verb} the {n} loaded message{} once it is done; older ones may follow",
            plural(n)
        )));
}

/// With the raw view on, the current message's file unless it is the one
/// already read.
fn wants_file(m: &Model) -> Option<Command> {
    if !m.raw {
        return None;
    }
    let path = m.current_message()?.path.as_deref()?.to_path_buf();
    if m.file.as_ref().is_some_and(|f| f.path == path) {
        return None;
    }
    Some(Command::ReadFile { path })
}

/// A written ack's line, on screen and, after a forced quit, on stderr.
pub(crate) fn acked_line(agent: &str, done: usize) -> String {
    format!("✓ acknowledged {done} message{} as {agent}", plural(done))
}

/// A written read mark's line, on screen and on stderr.
pub(crate) fn marked_line(agent: &str, n: usize) -> String {
    format!("✓ marked {n} message{} read as {agent}", plural(n))
}

/// After a load or reload: `inbox` says whether the inbox on screen is new
/// (it is already in place); the tasks are taken; selections are fixed up
/// against `before`.
fn loaded(
    m: &mut Model,
    before: &ListsBefore,
    inbox: Result<(), crate::msg::ReadError>,
    tasks: Result<amail_core::router::Board, String>,
    patched: Option<amail_core::inbox::Patched>,
) {
    if inbox.is_ok() {
        crate::notify::collect(m);
    }
    if let Some(link) = &mut m.link {
        *link = match &inbox {
            Ok(()) => crate::model::Link::Up,
            Err(e) => crate::model::Link::after_error(e),
        };
    }
    let mut errors = Vec::new();
    if let Err(e) = inbox {
        errors.push(format!("mail: {e}"));
    }
    match tasks {
        Ok(board) => {
            m.tasks = board.tasks;
            m.tasks_skipped = board.skipped;
        }
        Err(e) => errors.push(format!("tasks: {e}")),
    }
    // Made again, or moved by what a patch did (`None`: made again).
    m.inbox_patched(patched);
    // The queues may have moved with the tasks: ask again (the old answer
    // stays on screen until the new one comes).
    m.queues_asked = None;
    // The file may have changed with the mail: read it again when shown.
    m.file = None;
    m.load_error = if errors.is_empty() {
        None
    } else {
        Some(errors.join("; "))
    };
    if m.notice.as_ref().is_some_and(|n| n.text == RELOADING) {
        m.notice = Some(Notice::info(format!(
            "✓ reloaded: {} threads, {} tasks",
            m.inbox.threads.len(),
            m.tasks.len()
        )));
    }
    m.restore_selection(before);
}

/// `--as` a name no agent of the loaded mailbox has (a typo, another
/// case): nothing would show as pending for it, as if all were done.
/// Said once the whole inbox is in.
fn point_out_unknown_identity(m: &mut Model) {
    let Some(me) = m.identity.as_deref() else {
        return;
    };
    if m.inbox.agents.is_empty() || m.inbox.agent_named(me).is_some() {
        return;
    }
    let names: Vec<&str> = m.roster().iter().map(|a| a.name.as_str()).collect();
    // (Made safe for the terminal where notices are drawn.)
    m.notice = Some(Notice::error(format!(
        "⚠ no agent named {me}{} in this mailbox, so nothing is pending for it (agents: {})",
        amail_parser::near::did_you_mean(m.inbox.agent_near(me)),
        amail_core::inbox::summary::first_few(&names, 6)
    )));
}

/// The key an Alt+key stands for after an Esc (`keymap::after_esc`) where
/// nothing binds that Alt chord: text being typed (the editors, the
/// reason, the search prompt) has no Alt keys at all; elsewhere the
/// config may bind one, and then it is that binding.
fn esc_then(m: &Model, k: &KeyEvent) -> Option<KeyEvent> {
    let after = crate::keymap::after_esc(k)?;
    let typing = m
        .overlay
        .as_ref()
        .map_or(m.search.typing, Overlay::takes_text);
    (typing || m.config.keymap.action_for(k).is_none()).then_some(after)
}

fn key(m: &mut Model, k: KeyEvent) -> Option<Command> {
    if m.overlay.is_some() {
        return overlay_key(m, k);
    }
    if m.search.typing {
        search_key(m, k);
        return None;
    }
    let Some(action) = m.config.keymap.action_for(&k) else {
        // "other keys stay": a key bound to nothing takes a pending quit
        // back too (it went on waiting, and quit once the writes were
        // written), and its notice with it.
        if std::mem::take(&mut m.quit_asked) | std::mem::take(&mut m.quit_after_writes) {
            m.notice = None;
        }
        return None;
    };
    // A fresh action clears the last notice so old news does not linger.
    m.notice = None;
    // On the board, the open/back keys other than Enter and Esc (l h → ←)
    // move between columns, as in lazygit; Enter opens, Esc leaves.
    if m.screen == Screen::Tasks
        && matches!(action, Action::Open | Action::Back)
        && !matches!(k.code, KeyCode::Enter | KeyCode::Esc)
    {
        board_column(m, action == Action::Open, false);
        return None;
    }
    act(m, action)
}

/// The keys that act on the inbox's mail (ack, marks, mark read, reply,
/// the raw view), pressed on the board or the roster: a notice says where
/// they act, as `A`/`X` away from the board point to it. Space and `V`
/// did nothing without a word there, and `v` flipped the inbox's raw view
/// unseen. True when the key was refused.
fn inbox_only(m: &mut Model, a: Action) -> bool {
    let what = match a {
        Action::Ack => "acknowledges mail",
        Action::Mark | Action::MarkRange => "marks mail",
        Action::MarkRead => "marks mail read",
        Action::Reply | Action::ReplyInEditor => "replies to mail",
        Action::ToggleRaw => "shows a message's file",
        _ => return false,
    };
    if m.screen == Screen::Inbox {
        return false;
    }
    let key = m.config.keymap.first_key(a);
    let inbox = m.config.keymap.first_key(Action::ScreenInbox);
    m.notice = Some(Notice::keyed(
        format!("{key} {what} in the inbox "),
        &format!("({inbox})"),
        true,
    ));
    true
}

fn act(m: &mut Model, a: Action) -> Option<Command> {
    // `q` with kept drafts asks once; any other key takes the question back.
    let asked = std::mem::take(&mut m.quit_asked);
    let waiting = std::mem::take(&mut m.quit_after_writes);
    if inbox_only(m, a) {
        return None;
    }
    // The roster's search, pressed in its task queues: the focus goes to
    // the list it moves (it moved the agent behind the focused queues,
    // whose hints never said `n/N`).
    if m.screen == Screen::Agents
        && matches!(a, Action::Search | Action::SearchNext | Action::SearchPrev)
    {
        m.queue_focus = false;
    }
    match a {
        Action::Quit => {
            // Whatever typed text a quit would drop, kept replies and
            // messages and the reasons kept for a task's next reject alike.
            let drafts = m.kept_drafts();
            let reasons = m.kept_reasons();
            if drafts + reasons > 0 && !asked {
                let mut lost = Vec::new();
                if drafts > 0 {
                    lost.push(format!(
                        "{drafts} unsent draft{} (kept with k)",
                        plural(drafts)
                    ));
                }
                if reasons > 0 {
                    lost.push(format!(
                        "{reasons} rejection reason{} (kept for {})",
                        plural(reasons),
                        m.config.keymap.first_key(Action::Reject)
                    ));
                }
                m.quit_asked = true;
                m.notice = Some(Notice::keyed(
                    format!("{} would be lost: ", lost.join(" and ")),
                    &format!(
                        "{} again quits, other keys stay",
                        m.config.keymap.first_key(Action::Quit)
                    ),
                    true,
                ));
                return None;
            }
            // Writes out: quit once they are written (a failure takes the
            // quit back); `q` again quits now, and the runtime tells what
            // became of them once the terminal is restored.
            if !m.writing.is_empty() && !waiting {
                m.quit_after_writes = true;
                m.notice = Some(waiting_to_quit(m));
                return None;
            }
            m.quit = true;
            return Some(Command::Quit);
        }
        Action::Help => m.overlay = Some(Overlay::Help { scroll: 0 }),
        Action::Suspend => return Some(Command::Suspend),
        Action::Reload => {
            m.notice = Some(Notice::info(RELOADING));
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
                m.sel.message = m.current_message().map(|x| x.key.to_string());
            }
        }
        // The board's panes are its statuses' columns (side by side from
        // 140 columns, groups of one list below).
        Action::NextPane | Action::PrevPane if m.screen == Screen::Tasks => {
            board_column(m, a == Action::NextPane, true)
        }
        Action::NextPane | Action::PrevPane if m.screen == Screen::Agents => {
            review::toggle_queues(m)
        }
        Action::NextPane | Action::PrevPane => {}
        Action::FilterAll => set_filter(m, Filter::All),
        Action::FilterPending => set_filter(m, Filter::PendingAck),
        Action::FilterHelp => set_filter(m, Filter::Help),
        Action::FilterInProgress => set_filter(m, Filter::InProgress),
        Action::FilterFailed => set_filter(m, Filter::Failed),
        Action::FilterDone => set_filter(m, Filter::Done),
        Action::ScreenInbox => {
            m.screen = Screen::Inbox;
            m.came_from = None;
        }
        Action::ScreenTasks => {
            m.screen = Screen::Tasks;
            m.came_from = None;
        }
        Action::ScreenAgents => {
            m.screen = Screen::Agents;
            m.came_from = None;
        }
        Action::Search => {
            let origin = search_list(m).and_then(|l| m.selected_key(l));
            m.search = Search {
                query: String::new(),
                typing: true,
                origin,
                list: search_list(m),
                pending: false,
            };
        }
        Action::SearchNext => jump_match(m, true, false),
        Action::SearchPrev => jump_match(m, false, false),
        Action::ToggleRaw => {
            // Where the message view is not on screen (one pane at a
            // time), `v` opens the message as its file: switched unseen,
            // the raw view came up on the next message opened.
            let shown = crate::view::inbox_panes(m)
                .iter()
                .any(|(p, _)| *p == Pane::Message);
            if !shown && m.current_message().is_some() {
                m.sel.message = m.current_message().map(|x| x.key.to_string());
                m.focus = Pane::Message;
                m.raw = true;
            } else {
                m.raw = !m.raw;
            }
            m.detail_scroll = 0;
        }
        Action::Ack => return ack(m),
        Action::Mark => triage::toggle_mark(m),
        Action::MarkRange => triage::mark_range(m),
        Action::MarkRead => return triage::mark_read(m),
        Action::Compose => return triage::compose(m),
        Action::Approve => return review::approve(m),
        Action::Reject => review::reject(m),
        Action::Reply => return reply(m, false),
        Action::ReplyInEditor => return reply(m, true),
    }
    None
}

#[cfg(test)]
mod tests;
