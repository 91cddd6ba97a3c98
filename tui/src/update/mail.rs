//! `a` and `r`: which messages and which recipient identity an ack or a
//! reply applies to, and the commands that carry them out. Who may reply,
//! to whom and with which type is core's `reply_rule`, the same rule the
//! stores apply when they write, so the editor shows what will be sent.

use crate::model::{ChoiceFor, EditMode, Model, Notice, Overlay, Pane, Resume, Screen};
use crate::msg::Command;
use amail_core::inbox::{HelpState, InboxMessage};
use amail_core::safe_text::{clean_line, clean_text};
use amail_core::stores::reply_rule::{self, ReplyKind};
use amail_parser::MessageType;

/// Lines starting with this are instructions in the `$EDITOR` file.
pub(crate) const TEMPLATE_MARK: &str = "# amail:";

pub(super) fn strip_template(text: &str) -> String {
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with(TEMPLATE_MARK))
        .collect();
    kept.join("\n").trim().to_string()
}

/// The messages `a` acts on: the marked ones (Space, `V`) when the focused
/// list has marks, else the selected message, or in the thread list every
/// message of the thread still owed an ack.
pub(super) fn ack_targets(m: &Model) -> Vec<String> {
    super::triage::targets(m, |x| !m.pending_recipients(x).is_empty())
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
        m.notice = Some(Notice::info(match &m.identity {
            Some(me) => format!("nothing here waits for {me}'s ack"),
            None => "nothing here waits for an ack".into(),
        }));
        return None;
    }
    if who.len() == 1 {
        let agent = who.remove(0);
        return Some(ack_command(m, keys, agent));
    }
    who.sort();
    m.overlay = Some(Overlay::choose(
        "Acknowledge as",
        who,
        ChoiceFor::Ack { keys },
    ));
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

/// Who the person replying is: configured or `--as`, else the agent they
/// chose the first time a reply asked (remembered while the inbox is open).
fn replying_identity(m: &Model) -> Option<String> {
    m.identity.clone().or_else(|| m.reply_as.clone())
}

fn addressed_to(m: &Model, x: &InboxMessage, me: &str) -> bool {
    let same = |name: &str| m.inbox.source.same_agent(name, me);
    x.recipients.iter().any(|r| same(&r.agent))
        || x.message.to.iter().any(|t| same(t))
        || x.message.cc.iter().any(|t| same(t))
}

/// The message `r` answers as `me`: the selected one in the message pane;
/// in the thread list the thread's newest message addressed to `me`.
pub(super) fn reply_target(m: &Model, me: &str) -> Result<String, String> {
    if m.screen != Screen::Inbox {
        return Err("select a thread or message to reply to".into());
    }
    if m.focus != Pane::Threads {
        return m
            .current_message()
            .map(|x| x.key.to_string())
            .ok_or_else(|| "select a thread or message to reply to".into());
    }
    let t = m
        .selected_thread()
        .ok_or_else(|| "select a thread or message to reply to".to_string())?;
    t.messages
        .iter()
        .rev()
        .filter_map(|&i| m.inbox.messages.get(i))
        .find(|x| addressed_to(m, x, me))
        .map(|x| x.key.to_string())
        .ok_or_else(|| {
            format!("nothing in this thread is addressed to {me}; open it and select the message to answer")
        })
}

/// The agents a person replying here could be, when they have not said:
/// everyone the selected message was addressed to; in the thread list,
/// whoever an unanswered help request asks (that is what `r` on a help
/// thread is for), else everyone any message of the thread reached.
fn identity_candidates(m: &Model) -> Vec<String> {
    let msgs: Vec<&InboxMessage> = if m.focus != Pane::Threads {
        m.current_message().into_iter().collect()
    } else {
        let Some(t) = m.selected_thread() else {
            return Vec::new();
        };
        let all: Vec<&InboxMessage> = t
            .messages
            .iter()
            .filter_map(|&i| m.inbox.messages.get(i))
            .collect();
        let request = (t.help == HelpState::Unanswered)
            .then(|| {
                all.iter()
                    .rev()
                    .find(|x| x.message.kind == MessageType::HelpRequest && !x.is_reply())
            })
            .flatten();
        match request {
            Some(r) => vec![*r],
            None => all,
        }
    };
    let mut v: Vec<String> = msgs
        .iter()
        .flat_map(|x| x.recipients.iter().map(|r| r.agent.to_string()))
        .collect();
    v.sort();
    v.dedup();
    v
}

pub(super) fn reply(m: &mut Model, external_editor: bool) -> Option<Command> {
    let notice = |m: &mut Model, text: String, error: bool| {
        m.notice = Some(Notice::new(text, error));
        None
    };
    if m.screen != Screen::Inbox {
        return notice(m, "select a thread or message to reply to".into(), false);
    }
    let me = match replying_identity(m) {
        Some(me) => me,
        None => {
            let mut candidates = identity_candidates(m);
            match candidates.len() {
                0 => {
                    return notice(
                        m,
                        "no recipient to reply as; start with --as AGENT".into(),
                        true,
                    )
                }
                // Only one agent this mail reached: that is who answers.
                1 => candidates.remove(0),
                _ => {
                    m.overlay = Some(Overlay::choose(
                        "Reply as",
                        candidates,
                        ChoiceFor::Reply { external_editor },
                    ));
                    return None;
                }
            }
        }
    };
    let key = match reply_target(m, &me) {
        Ok(k) => k,
        Err(e) => return notice(m, e, true),
    };
    let Some(orig) = m.inbox.message_by_key(&key) else {
        return notice(m, "select a thread or message to reply to".into(), false);
    };
    match reply_rule::plan_for(&m.inbox.source, orig, &me) {
        Ok(plan) => start_reply(
            m,
            key,
            plan.from,
            plan.to.join(", "),
            plan.kind,
            external_editor,
        ),
        Err(e) => notice(m, e.to_string(), true),
    }
}

/// The person chose who they are: remembered for every later reply.
pub(super) fn reply_as_chosen(
    m: &mut Model,
    agent: String,
    external_editor: bool,
) -> Option<Command> {
    m.reply_as = Some(agent);
    reply(m, external_editor)
}

pub(super) fn start_reply(
    m: &mut Model,
    key: String,
    agent: String,
    to: String,
    kind: ReplyKind,
    external_editor: bool,
) -> Option<Command> {
    let text = m.resume(Resume::Reply, &key);
    let initial = external_editor.then(|| editor_file(m, &key, &agent, &to, kind, &text));
    m.overlay = Some(Overlay::Editor {
        key,
        agent,
        to,
        kind,
        cursor: text.len(),
        text,
        mode: EditMode::Typing,
    });
    initial.map(|initial| Command::Editor { initial })
}

/// The `$EDITOR` file: the text so far, then the instructions and the
/// message being answered, quoted in full (instruction lines, so they are
/// never sent back to the agents, who have the thread already).
pub(super) fn editor_file(
    m: &Model,
    key: &str,
    agent: &str,
    to: &str,
    kind: ReplyKind,
    text: &str,
) -> String {
    let mut out = String::from(text);
    out.push_str(&editor_template(agent, to, kind));
    if let Some(x) = m.inbox.message_by_key(key) {
        let from = x.message.from.as_deref().unwrap_or("?");
        let when = x
            .message
            .timestamp
            .map(|t| t.format(" on %Y-%m-%d %H:%M UTC").to_string())
            .unwrap_or_default();
        out.push_str(&format!(
            "{TEMPLATE_MARK}\n{TEMPLATE_MARK} {from} wrote{when}:\n{TEMPLATE_MARK} > {}\n",
            clean_line(&x.message.subject)
        ));
        for line in clean_text(&x.message.body).lines() {
            out.push_str(&format!("{TEMPLATE_MARK} > {line}\n"));
        }
    }
    out
}

pub(super) fn editor_template(agent: &str, to: &str, kind: ReplyKind) -> String {
    let kind = kind.label();
    format!(
        "\n{TEMPLATE_MARK} reply from {agent} to {to} ({kind}).\n{TEMPLATE_MARK} Lines starting with '{TEMPLATE_MARK}' are dropped. Save an empty body to cancel.\n"
    )
}
