//! What a message says in one line, and what a thread is at: the newest
//! message's sender and that line. The TUI's thread list and `amail
//! threads` show the same words, so both come from here. The text is the
//! agents' own: callers make it safe for their terminal
//! (`crate::safe_text`).

use amail_parser::{MessageType, OwnedMessage};

use super::model::{Inbox, InboxMessage, Thread};

/// The most telling single line of a message, by type: a help request's
/// question, a status that is not just "done"/"failed", a failure's
/// reason, a summary, the step, guidance, next steps, the title; else the
/// first line of prose in the body, else the subject.
pub fn message_line(msg: &OwnedMessage) -> String {
    let p = &msg.parsed;
    p.question
        .as_deref()
        .filter(|_| msg.kind == MessageType::HelpRequest)
        .or(p
            .status
            .as_deref()
            .filter(|s| !s.eq_ignore_ascii_case("done") && !s.eq_ignore_ascii_case("failed")))
        .or(p.reason.as_deref())
        .or(p.summary.as_deref())
        .or(p.step.as_deref())
        .or(p.guidance.as_deref())
        .or(p.next_steps.as_deref())
        .or(p.title.as_deref())
        .map(str::to_string)
        .unwrap_or_else(|| first_body_line(&msg.body).unwrap_or_else(|| msg.subject.to_string()))
}

/// The first line of the body that is prose: not blank, not a heading,
/// not the `Bead:` label.
pub fn first_body_line(body: &str) -> Option<String> {
    body.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("Bead:"))
        .map(str::to_string)
}

impl Inbox {
    /// The thread's newest message.
    pub fn last_message(&self, t: &Thread) -> Option<&InboxMessage> {
        t.messages.last().and_then(|&i| self.messages.get(i))
    }

    /// What the thread is at: `Sender: line` of its newest message, or
    /// its subject when it has none.
    pub fn thread_state(&self, t: &Thread) -> String {
        let Some(last) = self.last_message(t) else {
            return t.subject.to_string();
        };
        let what = message_line(&last.message);
        match last.message.from {
            Some(from) => format!("{from}: {what}"),
            None => what,
        }
    }
}
