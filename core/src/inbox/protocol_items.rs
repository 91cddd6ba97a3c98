//! Protocol items in the inbox, as synthetic Agent Mail messages.
//!
//! Each item becomes an [`InboxMessage`] whose message has type `UNKNOWN`
//! and a `raw_type` naming the protocol (`HANDOFF`, `A2A_TASK`,
//! `A2A_PROGRESS`, `A2A_RESULT`), the protocol's task id as bead and thread
//! (so a handoff's snapshots, or an A2A task's messages, form one thread),
//! the state as `parsed.status`, and a body listing the structured fields
//! (state machine, priority, deadline, progress). Nothing downstream needs
//! to know about the protocols; the bridge and router work from the typed
//! items instead.
//!
//! Pure: finding the JSON files and the handoff directory of a mailbox is
//! the mailbox store's loader hook (`stores::mailbox::protocol`).

use std::borrow::Cow;
use std::fmt::Write as _;

use amail_parser::{Message, MessageType, OwnedMessage, Parsed as Fields};

use super::compact::intern;
use super::mail_path::MailPath;
use super::model::{InboxMessage, Recipient, RecipientKind};
use crate::formats::{A2aItem, A2aKind, Handoff, Item};

/// The synthetic `raw_type` of an item.
pub fn raw_type(item: &Item) -> &'static str {
    match item {
        Item::Handoff(_) => "HANDOFF",
        Item::A2a(a) => a.message.raw_type(),
    }
}

/// The state word shown for an item.
pub fn state(item: &Item) -> String {
    match item {
        Item::Handoff(h) => h.state().to_string(),
        Item::A2a(a) => a.status.as_str().to_string(),
    }
}

fn handoff_body(h: &Handoff) -> String {
    let mut b = String::new();
    let _ = writeln!(b, "Protocol: handoff v0.1");
    let _ = writeln!(b, "Task: {}", h.task_id);
    let _ = writeln!(b, "State: {}", h.state());
    let _ = writeln!(
        b,
        "State machine: offered -> accepted -> completed | failed; offered -> rejected; failed -> offered (re-offer)"
    );
    let _ = writeln!(b, "From: {}", h.from_agent);
    let _ = writeln!(b, "To: {}", h.to_agent.as_deref().unwrap_or("anyone"));
    let _ = writeln!(b, "Created: {}", h.created_at.to_rfc3339());
    let _ = writeln!(b, "Updated: {}", h.updated_at.to_rfc3339());
    let _ = writeln!(b, "\n{}", h.description);
    if !h.context.is_empty() {
        let _ = writeln!(b, "\nContext:");
        for (k, v) in &h.context {
            let v = v
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string());
            let _ = writeln!(b, "- {k}: {v}");
        }
    }
    b
}

fn a2a_body(a: &A2aItem) -> String {
    let mut b = String::new();
    let kind = match a.message {
        A2aKind::TaskMessage => "TaskMessage",
        A2aKind::TaskProgress => "TaskProgress",
        A2aKind::TaskResult => "TaskResult",
    };
    let _ = writeln!(b, "Protocol: A2A {kind}");
    let _ = writeln!(b, "Task: {}", a.task_id);
    if let Some(t) = &a.task_type {
        let _ = writeln!(b, "Task type: {t}");
    }
    let _ = writeln!(b, "Status: {}", a.status.as_str());
    if let Some(p) = a.priority {
        let _ = writeln!(b, "Priority: {}", p.effective().as_str());
    }
    if let Some(d) = a.deadline {
        let _ = writeln!(b, "Deadline: {}", d.to_rfc3339());
    }
    if let Some(p) = a.progress_percentage {
        let filled = (p as usize) / 10;
        let _ = writeln!(
            b,
            "Progress: {p}% [{}{}]",
            "#".repeat(filled),
            ".".repeat(10 - filled)
        );
    }
    let who = if a.message == A2aKind::TaskMessage {
        "Requester"
    } else {
        "Executor"
    };
    let _ = writeln!(b, "{who}: {}", a.agent);
    if let Some(r) = &a.responder {
        let _ = writeln!(b, "Responder: {r}");
    }
    if let Some(t) = &a.text {
        let _ = writeln!(b, "\n{t}");
    }
    if !a.data.is_empty() {
        let _ = writeln!(b, "\nData:");
        for (k, v) in &a.data {
            let _ = writeln!(b, "- {k}: {v}");
        }
    }
    b
}

/// The synthetic message for an item.
pub fn to_message(item: &Item) -> OwnedMessage {
    let (subject, from, to, body, title, ts) = match item {
        Item::Handoff(h) => (
            format!("[{}] HANDOFF {}: {}", h.task_id, h.state(), h.description),
            h.from_agent.clone(),
            h.to_agent.clone(),
            handoff_body(h),
            h.description.clone(),
            h.updated_at,
        ),
        Item::A2a(a) => {
            let mut s = format!(
                "[{}] {} {}",
                a.task_id,
                a.message.raw_type(),
                a.status.as_str()
            );
            if let Some(p) = a.priority {
                let _ = write!(s, " {}", p.effective().as_str());
            }
            if let Some(p) = a.progress_percentage {
                let _ = write!(s, " {p}%");
            }
            if let Some(t) = a.task_type.as_deref().or(a.text.as_deref()) {
                let _ = write!(s, ": {t}");
            }
            (
                s,
                a.agent.clone(),
                a.responder.clone(),
                a2a_body(a),
                a.task_type.clone().unwrap_or_else(|| a.task_id.clone()),
                a.at,
            )
        }
    };
    let fields = Fields {
        bead_id: Some(Cow::Owned(item.task_id().to_string())),
        title: Some(Cow::Owned(title)),
        status: Some(Cow::Owned(state(item))),
        ..Fields::default()
    };
    Message {
        kind: MessageType::Unknown,
        raw_type: Some(Cow::Borrowed(raw_type(item))),
        subject: Cow::Owned(subject),
        from: Some(Cow::Owned(from)),
        to: to.into_iter().map(Cow::Owned).collect(),
        thread_id: Some(Cow::Owned(item.task_id().to_string())),
        timestamp: Some(ts),
        importance: Cow::Borrowed("normal"),
        body: Cow::Owned(body),
        parsed: fields,
        line: item.source().line,
        ..Message::empty()
    }
}

/// The inbox entry for an item with a unique key.
pub fn to_inbox(item: &Item, key: String) -> InboxMessage {
    let message = to_message(item);
    let recipients = message
        .to
        .iter()
        .map(|a| Recipient {
            agent: intern(a),
            kind: RecipientKind::To,
            read_at: None,
            ack_at: None,
        })
        .collect();
    InboxMessage {
        key: key.into(),
        message: message.into(),
        path: Some(MailPath::new(item.source().path.as_ref())),
        project: None,
        recipients,
        thread_from_end: 0,
    }
}
