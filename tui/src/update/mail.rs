//! `a` and `r`: which messages and which recipient identity an ack or a
//! reply applies to, and the commands that carry them out.

use amail_parser::MessageType;

use crate::model::{ChoiceFor, Model, Notice, Overlay, Pane, Screen};
use crate::msg::Command;
use amail_core::inbox::HelpState;

/// Lines starting with this are instructions in the `$EDITOR` file.
pub const TEMPLATE_MARK: &str = "# amail:";

pub(super) fn strip_template(text: &str) -> String {
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with(TEMPLATE_MARK))
        .collect();
    kept.join("\n").trim().to_string()
}

/// The messages `a` acts on: the selected message, or in the thread list
/// every message of the thread still owed an ack.
pub(super) fn ack_targets(m: &Model) -> Vec<String> {
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

pub(super) fn ack(m: &mut Model) -> Option<Command> {
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
pub(super) fn ack_command(m: &Model, keys: Vec<String>, agent: String) -> Command {
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
pub(super) fn reply_target(m: &Model) -> Option<String> {
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

pub(super) fn reply(m: &mut Model, external_editor: bool) -> Option<Command> {
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

pub(super) fn start_reply(
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

pub(super) fn editor_template(agent: &str, to: &str) -> String {
    format!(
        "\n{TEMPLATE_MARK} reply from {agent} to {to} (HELP_RESPONSE).\n{TEMPLATE_MARK} Lines starting with '{TEMPLATE_MARK}' are dropped. Save an empty body to cancel.\n"
    )
}
