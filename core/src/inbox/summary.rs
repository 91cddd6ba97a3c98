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
        .unwrap_or_else(|| first_body_line(msg).unwrap_or_else(|| msg.subject.to_string()))
}

/// The name a message's type is shown by (the TUI's badge, the tables of
/// `amail threads` and `amail pending`): the protocol's type; a type the
/// protocol does not list, by the name its subject gives it (`[ol-1]
/// GUIDANCE`, what amail sends; `HANDOFF`, `A2A_RESULT`), so the person
/// who sent guidance reads it back as guidance; `NOTE` when it names none
/// (never the parser's `UNKNOWN`, which `--json` keeps). The agents' text:
/// callers make it safe for their terminal.
pub fn type_name<'m>(msg: &'m amail_parser::Message<'_>) -> &'m str {
    match (msg.kind, msg.raw_type.as_deref()) {
        (MessageType::Unknown, Some(raw)) if !raw.is_empty() => raw,
        (MessageType::Unknown, _) => "NOTE",
        (kind, _) => kind.as_str(),
    }
}

/// The first line of the body that is prose: not blank, not a heading,
/// not the `Bead:` label, not the message's type line (`GUIDANCE`,
/// `[ol-1] NUDGE`: typed mail carries its type there, amail's own
/// included, see `stores::draft`).
pub fn first_body_line(msg: &OwnedMessage) -> Option<String> {
    msg.body
        .lines()
        .map(str::trim)
        .find(|l| {
            !l.is_empty() && !l.starts_with('#') && !l.starts_with("Bead:") && !is_type_line(l, msg)
        })
        .map(str::to_string)
}

/// `line` (trimmed) is `msg`'s type alone, after a `[bead]` and before a
/// `:`: the type its subject named, known or not (`raw_type`).
fn is_type_line(line: &str, msg: &OwnedMessage) -> bool {
    let rest = match line.strip_prefix('[').and_then(|r| r.split_once(']')) {
        Some((_, rest)) => rest,
        None => line,
    };
    let word = rest.trim().trim_end_matches(':').trim_end();
    let known = (msg.kind != MessageType::Unknown).then(|| msg.kind.as_str());
    !word.is_empty()
        && msg
            .raw_type
            .as_deref()
            .into_iter()
            .chain(known)
            .any(|t| word.eq_ignore_ascii_case(t))
}

/// The first `shown` of `items`, and how many more (`a, b, and 7 more`):
/// warnings that name beads or agents stay a line long however many a
/// big mailbox holds.
pub fn first_few<S: AsRef<str>>(items: &[S], shown: usize) -> String {
    let mut out = items
        .iter()
        .take(shown)
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > shown {
        out.push_str(&format!(", and {} more", items.len() - shown));
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;
    use amail_parser::{parse, ParseOptions};

    fn one(text: &str) -> OwnedMessage {
        parse(text, &ParseOptions::default()).unwrap()[0]
            .clone()
            .into_owned()
    }

    /// amail writes a typed message as agents do, the type on the body's
    /// first line (`stores::draft`); its summary was that line: a thread
    /// of guidance read "BlueLake: GUIDANCE" in the inbox and `amail
    /// threads`. The type line is passed over, whatever the type.
    #[test]
    fn a_body_s_type_line_is_not_its_summary() {
        for kind in ["GUIDANCE", "NUDGE", "TERMINATE"] {
            let m = one(&format!(
                "Subject: {kind}: Rebase on main\nFrom: BlueLake\nTo: GreenCastle\n\n\
                 Body:\n{kind}\n\nThe limiter fix landed; rebase before review.\n"
            ));
            assert_eq!(
                message_line(&m),
                "The limiter fix landed; rebase before review.",
                "{kind}"
            );
        }
        // A bead and a type line in brackets, as a known type writes it.
        let m = one("Subject: [ol-1] NUDGE\nFrom: BlueLake\nTo: GreenCastle\n\n\
             Body:\n[ol-1] NUDGE\nStill there?\n");
        assert_eq!(message_line(&m), "Still there?");
        // A body that is only its type line says the subject.
        let m = one("Subject: NUDGE: are you there\nFrom: BlueLake\n\nBody:\nNUDGE\n");
        assert_eq!(message_line(&m), "NUDGE: are you there");
        // Prose that merely opens with the word stays.
        let m = one("Subject: note\nFrom: BlueLake\n\nBody:\nGUIDANCE is below.\n");
        assert_eq!(message_line(&m), "GUIDANCE is below.");
    }
}
