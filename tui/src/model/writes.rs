//! The writes handed to the worker and not yet answered, and the texts
//! kept beside them (drafts, reasons): what `q` waits for and what a quit
//! would lose, held together because a typed text is in one of them at a
//! time: its write's while it is written, kept again if the write fails.

use super::overlay::Overlay;
use super::Model;

/// Which kept text an editor resumes: a reply's draft (by message key) or
/// a rejection's reason (by task id).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Resume {
    Reply,
    Reason,
}

/// A write the user asked for, handed to the worker and not yet
/// answered: what `q` waits for, and what a forced quit tells the fate of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Write {
    /// An ack of this many messages.
    Ack(usize),
    /// A read mark on this many messages.
    MarkRead(usize),
    /// A reply to the message with this key, and its text: out of
    /// `drafts` while it is written, back there if the write fails.
    Reply { key: String, text: String },
    /// A new message, in its editor as it was sent: the editor comes back
    /// if the send fails.
    Send(Box<Overlay>),
    /// Approving the task with this id.
    Approve(String),
    /// Rejecting the task with this id, and the reason as typed: out of
    /// `reasons` while it is written, back there if the write fails.
    Reject { id: String, reason: String },
}

impl Write {
    /// The write `cmd` asks for, if it writes
    /// ([`Command::writes`](crate::msg::Command::writes)) and carries all
    /// the write holds. A send and a rejection do not (the editor as sent,
    /// the reason as typed): the keys that send them push their writes.
    pub fn of(cmd: &crate::msg::Command) -> Option<Write> {
        use crate::msg::Command as C;
        Some(match cmd {
            C::Ack { keys, .. } => Write::Ack(keys.len()),
            C::MarkRead { keys, .. } => Write::MarkRead(keys.len()),
            C::Reply { key, body, .. } => Write::Reply {
                key: key.clone(),
                text: body.clone(),
            },
            C::Approve { id } => Write::Approve(id.clone()),
            _ => return None,
        })
    }

    /// The text this write carries that the user typed, with what it is.
    pub fn text(&self) -> Option<(&'static str, &str)> {
        match self {
            Write::Reply { text, .. } => Some(("your reply", text)),
            Write::Reject { reason, .. } => Some(("your reason", reason)),
            Write::Send(o) => match o.as_ref() {
                Overlay::Compose { text, .. } => Some(("your message", text)),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether `msg` is this write's answer, and if so whether it was
    /// written.
    pub fn answered_by(&self, msg: &crate::msg::Msg) -> Option<bool> {
        use crate::msg::{Msg as M, Verdict};
        match (self, msg) {
            (Write::Ack(_), M::Acked { errors, .. }) => Some(errors.is_empty()),
            (Write::MarkRead(_), M::MarkedRead { result, .. }) => Some(result.is_ok()),
            (Write::Reply { key: k, .. }, M::Replied { key, result }) if k == key => {
                Some(result.is_ok())
            }
            (Write::Send(_), M::Sent { result, .. }) => Some(result.is_ok()),
            (
                Write::Approve(i),
                M::Reviewed {
                    id,
                    verdict: Verdict::Approved,
                    result,
                },
            )
            | (
                Write::Reject { id: i, .. },
                M::Reviewed {
                    id,
                    verdict: Verdict::Rejected,
                    result,
                },
            ) if i == id => Some(result.is_ok()),
            _ => None,
        }
    }
}

/// "1 ack and 2 replies": the writes out, counted by kind, in words.
pub fn writes_in_words(writes: &[Write]) -> String {
    let mut n = [0usize; 6];
    for w in writes {
        match w {
            Write::Ack(k) => n[0] += (*k).max(1),
            Write::MarkRead(k) => n[1] += (*k).max(1),
            Write::Reply { .. } => n[2] += 1,
            Write::Send(_) => n[3] += 1,
            Write::Approve(_) => n[4] += 1,
            Write::Reject { .. } => n[5] += 1,
        }
    }
    let names = [
        ("ack", "acks"),
        ("read mark", "read marks"),
        ("reply", "replies"),
        ("message", "messages"),
        ("approval", "approvals"),
        ("rejection", "rejections"),
    ];
    let parts: Vec<String> = n
        .iter()
        .zip(names)
        .filter(|(k, _)| **k > 0)
        .map(|(k, (one, many))| format!("{k} {}", if *k == 1 { one } else { many }))
        .collect();
    match parts.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

impl Model {
    /// Replies kept as drafts (Esc, then `k`, or a send that failed) and
    /// new messages kept (with `k`, or by a send that failed), that a quit
    /// would lose: they live only in the app.
    pub fn kept_drafts(&self) -> usize {
        self.drafts
            .keys()
            .filter(|k| self.reply_out(k).is_none())
            .count()
            + self.composed.len()
    }

    /// The text of the reply to `key` on its way to the store, if one is.
    pub(crate) fn reply_out(&self, key: &str) -> Option<&str> {
        self.writing.iter().find_map(|w| match w {
            Write::Reply { key: k, text } if k == key => Some(text.as_str()),
            _ => None,
        })
    }

    /// The reason of the rejection of `id` on its way to the store, if one is.
    pub(crate) fn reject_out(&self, id: &str) -> Option<&str> {
        self.writing.iter().find_map(|w| match w {
            Write::Reject { id: i, reason } if i == id => Some(reason.as_str()),
            _ => None,
        })
    }

    /// The text an editor for `key` opens with: the one kept from its last
    /// editor (Esc, or a write that failed), else the one on its way to
    /// the store, so a second editor never starts blank over text not yet
    /// written.
    pub(crate) fn resume(&self, what: Resume, key: &str) -> String {
        let (kept, out) = match what {
            Resume::Reply => (&self.drafts, self.reply_out(key)),
            Resume::Reason => (&self.reasons, self.reject_out(key)),
        };
        kept.get(key)
            .map(String::as_str)
            .or(out)
            .unwrap_or_default()
            .to_string()
    }

    /// Rejection reasons kept for a task's next `X` (after Esc, or a
    /// write that failed) that a quit would lose; one being written is
    /// waited for.
    pub fn kept_reasons(&self) -> usize {
        self.reasons
            .keys()
            .filter(|id| self.reject_out(id).is_none())
            .count()
    }
}
