//! Triage: marks (Space, `V`) so one `a` or `m` acts on many messages in
//! one store call (one transaction); `m` marks read without acking; `c`
//! composes a new message to one agent, several, or all of them, with the
//! protocol types agents act on (GUIDANCE, NUDGE, TERMINATE, HELP_RESPONSE),
//! sent through the store (`Command::Send`).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::overlays::edit_key;
use crate::model::{ChoiceFor, EditMode, ListKind, Model, Notice, Overlay, Pane, Screen};
use crate::msg::Command;
use amail_core::inbox::InboxMessage;
use amail_core::stores::names::read_whole;
use amail_core::stores::Draft;

/// The types offered by `c`, then "plain".
pub(crate) const COMPOSE_KINDS: [&str; 5] = [
    "GUIDANCE",
    "NUDGE",
    "TERMINATE",
    "HELP_RESPONSE",
    "plain message",
];

pub(crate) use crate::model::PERSON;

fn marks_of(m: &mut Model, kind: ListKind) -> Option<&mut std::collections::BTreeSet<String>> {
    match kind {
        ListKind::Threads => Some(&mut m.marks.threads),
        ListKind::Messages => Some(&mut m.marks.messages),
        _ => None,
    }
}

/// Space: marks or unmarks the item under the cursor, then moves down.
pub(super) fn toggle_mark(m: &mut Model) {
    let Some(kind) = m.current_list().filter(|_| m.screen == Screen::Inbox) else {
        return;
    };
    let Some(key) = m.selected_key(kind) else {
        return;
    };
    let set = marks_of(m, kind).expect("inbox lists hold marks");
    if !set.remove(&key) {
        set.insert(key.clone());
    }
    m.marks.anchor = Some(key);
    super::nav::step(m, 1);
}

/// `V`: marks every item from the last one marked to the cursor.
pub(super) fn mark_range(m: &mut Model) {
    let Some(kind) = m.current_list().filter(|_| m.screen == Screen::Inbox) else {
        return;
    };
    let keys = m.list_keys(kind);
    let Some(cur) = m.selected_index(kind) else {
        return;
    };
    let from = m
        .marks
        .anchor
        .as_ref()
        .and_then(|a| keys.iter().position(|k| k == a))
        .unwrap_or(cur);
    let (lo, hi) = (from.min(cur), from.max(cur));
    let set = marks_of(m, kind).expect("inbox lists hold marks");
    set.extend(keys[lo..=hi].iter().cloned());
    m.marks.anchor = Some(keys[cur].clone());
}

/// The messages an action applies to: the focused list's marks when it
/// has any (a marked thread stands for its messages that `wanted`), else
/// the selected message, or in the thread list the selected thread's.
pub(super) fn targets(m: &Model, wanted: impl Fn(&InboxMessage) -> bool) -> Vec<String> {
    if m.screen != Screen::Inbox {
        return Vec::new();
    }
    let thread_msgs = |id: &str| -> Vec<String> {
        m.thread(id)
            .map(|t| {
                t.messages
                    .iter()
                    .filter_map(|&i| m.inbox.messages.get(i))
                    .filter(|x| wanted(x))
                    .map(|x| x.key.to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    match m.focus {
        Pane::Threads if !m.marks.threads.is_empty() => m
            .visible_threads()
            .iter()
            .filter(|t| m.marks.threads.contains(&t.id))
            .flat_map(|t| thread_msgs(&t.id))
            .collect(),
        Pane::Threads => m.sel.thread.as_deref().map(thread_msgs).unwrap_or_default(),
        _ if !m.marks.messages.is_empty() => m
            .list_keys(ListKind::Messages)
            .into_iter()
            .filter(|k| m.marks.messages.contains(k))
            .collect(),
        _ => m
            .current_message()
            .map(|x| vec![x.key.to_string()])
            .unwrap_or_default(),
    }
}

/// Recipients (just `--as` when set) who have not read `x`.
fn unread_by(m: &Model, x: &InboxMessage) -> Vec<String> {
    x.recipients
        .iter()
        .filter(|r| r.read_at.is_none() && r.ack_at.is_none())
        .filter(|r| m.is_me(&r.agent))
        .map(|r| r.agent.to_string())
        .collect()
}

/// `m`: marks the targets read (not acknowledged) for the one recipient
/// they are unread by, or asks which.
pub(super) fn mark_read(m: &mut Model) -> Option<Command> {
    let keys = targets(m, |x| !unread_by(m, x).is_empty());
    let mut who: Vec<String> = Vec::new();
    for k in &keys {
        if let Some(x) = m.inbox.message_by_key(k) {
            for a in unread_by(m, x) {
                if !who.contains(&a) {
                    who.push(a);
                }
            }
        }
    }
    match who.len() {
        0 => {
            m.notice = Some(Notice::info("nothing here is unread"));
            None
        }
        1 => Some(read_command(m, keys, who.remove(0))),
        _ => {
            who.sort();
            m.overlay = Some(Overlay::choose(
                "Mark read as",
                who,
                ChoiceFor::MarkRead { keys },
            ));
            None
        }
    }
}

/// Only the messages `agent` has not read yet.
fn read_command(m: &Model, keys: Vec<String>, agent: String) -> Command {
    let keys = keys
        .into_iter()
        .filter(|k| {
            m.inbox.message_by_key(k).is_some_and(|x| {
                x.recipients
                    .iter()
                    .any(|r| r.agent == agent && r.read_at.is_none() && r.ack_at.is_none())
            })
        })
        .collect();
    Command::MarkRead { keys, agent }
}

/// `c`: who sends (`--as`, the identity a reply chose, or asked), then
/// to whom, which type, and the text.
pub(super) fn compose(m: &mut Model) -> Option<Command> {
    // A message kept with `k` comes back first, as a kept reply does on `r`.
    if let Some(kept) = m.composed.pop() {
        m.overlay = Some(kept);
        m.notice = Some(Notice::keyed(
            "the message you kept: ".into(),
            "Ctrl-s sends it, Esc then y discards it",
            false,
        ));
        return None;
    }
    if m.roster().is_empty() {
        // While a large mailbox loads, its newest part comes first: say
        // that the roster is on its way, not that there is none.
        let c = m.config.keymap.first_key(crate::keymap::Action::Compose);
        let again = format!("{c} again once it shows mail");
        m.notice = Some(match (m.loading(), m.working) {
            (Some((done, total)), _) => Notice::keyed(
                format!("no agents yet: the inbox is still loading ({done}/{total} files read); "),
                &again,
                true,
            ),
            (None, true) => Notice::keyed(
                "no agents yet: the inbox is still loading; ".into(),
                &again,
                true,
            ),
            (None, false) => Notice::keyed(
                "no agents to write to: the inbox has no mail".into(),
                "",
                true,
            ),
        });
        return None;
    }
    match m.identity.clone().or_else(|| m.reply_as.clone()) {
        Some(me) => compose_from(m, me),
        None => {
            // The person once: after they have written, the mailbox
            // has an agent of that name too. The server's person
            // (`HumanOverseer`), no agent of the roster, may be who the
            // person writes as.
            let mut options = vec![PERSON.to_string()];
            options.extend(
                m.inbox
                    .agents
                    .iter()
                    .filter(|a| !m.inbox.source.same_agent(&a.name, PERSON))
                    .map(|a| a.name.clone()),
            );
            m.overlay = Some(Overlay::choose("Send as", options, ChoiceFor::ComposeFrom));
            None
        }
    }
}

/// The sender is known: pick recipients ("all agents" first; the agent
/// selected in the roster comes marked).
pub(super) fn compose_from(m: &mut Model, from: String) -> Option<Command> {
    // Refused before anything is chosen or typed: the store would refuse
    // the thread at the send, with the message written.
    let (bead, thread) = compose_place(m);
    if let Err(e) = amail_core::stores::draft::check_place(bead.as_deref(), thread.as_deref()) {
        // As `r` words a reply it refuses.
        m.notice = Some(Notice::error(e.to_string()));
        return None;
    }
    let agents: Vec<String> = m
        .inbox
        .agents
        .iter()
        .map(|a| a.name.clone())
        .filter(|a| *a != from)
        .collect();
    // On the newest part of a mailbox still loading the roster is that
    // part's: "all" says so.
    // "all agents" leaves out the person (who is in the mailbox once
    // they have written): pick them by name; and, as it counts them, the
    // names no message can reach ([`reachable`]).
    let n = agents
        .iter()
        .filter(|a| !m.is_person(a) && read_whole(a))
        .count();
    let all = if m.partial {
        format!("all agents seen so far ({n}; still loading)")
    } else {
        format!("all agents ({n})")
    };
    let mut options = vec![all];
    options.extend(agents);
    let pre = (m.screen == Screen::Agents)
        .then(|| m.sel.agent.clone())
        .flatten();
    let marked = options
        .iter()
        .enumerate()
        .map(|(i, o)| i > 0 && pre.as_deref() == Some(o.as_str()))
        .collect();
    m.overlay = Some(Overlay::Pick {
        title: "To".into(),
        options,
        marked,
        index: 0,
        from,
    });
    None
}

/// The recipients are chosen: which type.
fn compose_to(m: &mut Model, from: String, to: Vec<String>) {
    m.overlay = Some(Overlay::choose(
        format!("Type of the message to {}", to.join(", ")),
        COMPOSE_KINDS.iter().map(|s| s.to_string()).collect(),
        ChoiceFor::ComposeKind { from, to },
    ));
}

/// The type is chosen: the editor. Inside a thread the message goes into
/// that thread, about its bead; elsewhere it starts a new one.
pub(super) fn compose_kind(
    m: &mut Model,
    from: String,
    to: Vec<String>,
    kind: &str,
) -> Option<Command> {
    let (bead, thread) = compose_place(m);
    m.overlay = Some(Overlay::Compose {
        from,
        to,
        kind: COMPOSE_KINDS[..4].contains(&kind).then(|| kind.to_string()),
        bead,
        thread,
        text: String::new(),
        cursor: 0,
        mode: EditMode::Typing,
    });
    None
}

/// Where a new message goes, as (bead, thread): inside a thread, that
/// thread and its bead; elsewhere, nowhere yet (a new thread).
fn compose_place(m: &Model) -> (Option<String>, Option<String>) {
    let in_thread = m.screen == Screen::Inbox && m.focus != Pane::Threads;
    match m.selected_thread().filter(|_| in_thread) {
        Some(t) => (t.bead.map(|b| b.to_string()), Some(t.id.clone())),
        None => (None, None),
    }
}

/// "All agents" as a message can reach them, and a word on the names it
/// leaves out: a name read with U+FFFD is no agent's, and the store would
/// refuse the message to all for it.
fn reachable(agents: Vec<String>) -> (Vec<String>, Option<String>) {
    let (to, out): (Vec<String>, Vec<String>) = agents.into_iter().partition(|a| read_whole(a));
    let said = (!out.is_empty()).then(|| {
        format!(
            "left out {}: not UTF-8 where read (shown with U+FFFD), so nothing is written to it",
            out.join(", ")
        )
    });
    (to, said)
}

/// Keys of the recipient picker and the compose editor.
pub(super) fn overlay_key(m: &mut Model, k: KeyEvent) -> Option<Command> {
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    let action = m.config.keymap.action_for(&k);
    match m.overlay.as_mut()? {
        Overlay::Pick {
            options,
            marked,
            index,
            from,
            ..
        } => {
            match (k.code, action) {
                _ if super::overlays::closes_list(&k, action) => m.overlay = None,
                (KeyCode::Char(' '), _) => {
                    marked[*index] = !marked[*index];
                    *index = (*index + 1).min(options.len() - 1);
                }
                (KeyCode::Enter, _) => {
                    let all = marked[0] || (!marked.iter().any(|b| *b) && *index == 0);
                    let mut left_out = None;
                    let to: Vec<String> = if all {
                        let (to, out) = reachable(
                            options[1..]
                                .iter()
                                .filter(|o| !crate::model::is_person_in(&m.inbox.source, o))
                                .cloned()
                                .collect(),
                        );
                        left_out = out;
                        to
                    } else if marked.iter().any(|b| *b) {
                        options
                            .iter()
                            .zip(marked.iter())
                            .filter(|(_, b)| **b)
                            .map(|(o, _)| o.clone())
                            .collect()
                    } else {
                        vec![options[*index].clone()]
                    };
                    let from = from.clone();
                    if to.is_empty() {
                        m.overlay = None;
                        m.notice = left_out.map(Notice::error);
                        return None;
                    }
                    // Refused here, where another pick is a key away, not
                    // at the send with the message typed.
                    if let Err(e) = amail_core::stores::draft::check_names(&from, &to) {
                        m.notice = Some(Notice::error(e.to_string()));
                        return None;
                    }
                    compose_to(m, from, to);
                    m.notice = left_out.map(Notice::info);
                }
                (_, Some(a)) if super::overlays::move_in_list(index, options.len(), a) => {}
                _ => {}
            }
            None
        }
        Overlay::Compose {
            from,
            to,
            kind,
            bead,
            thread,
            text,
            cursor,
            mode,
        } => {
            if *mode == EditMode::ConfirmDiscard {
                use super::overlays::{discard_answer, Discard};
                match discard_answer(&k) {
                    Discard::Yes => {
                        m.overlay = None;
                        m.notice = Some(Notice::info("message discarded"));
                    }
                    Discard::Keep => {
                        *mode = EditMode::Typing;
                        m.composed.extend(m.overlay.take());
                        m.notice = Some(Notice::info(format!(
                            "draft kept: {} opens it again",
                            m.config.keymap.first_key(crate::keymap::Action::Compose)
                        )));
                    }
                    Discard::No => *mode = EditMode::Typing,
                }
                return None;
            }
            match k.code {
                KeyCode::Esc if text.trim().is_empty() => m.overlay = None,
                KeyCode::Esc => *mode = EditMode::ConfirmDiscard,
                KeyCode::Char('s') if ctrl => {
                    let (subject, body) = match text.trim().split_once('\n') {
                        Some((s, b)) => (s.trim().to_string(), b.trim().to_string()),
                        None => (text.trim().to_string(), String::new()),
                    };
                    if subject.is_empty() && body.is_empty() {
                        m.notice = Some(Notice::error("type a message first (Esc cancels)"));
                        return None;
                    }
                    let draft = Draft {
                        from: from.clone(),
                        to: to.clone(),
                        kind: kind.clone(),
                        bead: bead.clone(),
                        subject,
                        body,
                        thread: thread.clone(),
                        importance: None,
                        // What agents must act on asks for an ack.
                        ack_required: kind.is_some(),
                    };
                    m.notice = Some(Notice::info(format!("sending to {}…", to.join(", "))));
                    // Kept, in its editor, until the store says it was
                    // written.
                    if let Some(editor) = m.overlay.take() {
                        m.writing.push(crate::model::Write::Send(Box::new(editor)));
                    }
                    return Some(Command::Send(Box::new(draft)));
                }
                _ => edit_key(text, cursor, k),
            }
            None
        }
        _ => None,
    }
}
