//! What became of a write that answered after the user forced the quit
//! (`q` twice with writes out): a line for stderr, once the terminal is
//! restored (`runtime::settle_writes`). Whatever the user typed and the
//! store refused is given whole, since the app that kept it is gone.

use amail_core::safe_text::{clean_line, clean_text};

use crate::model::{Model, Write};
use crate::msg::{Msg, Verdict};

/// Whether `msg`, answering a write out, says it was written, and the
/// line telling so. Read before `update` takes the answer in (a failed
/// write's text is the model's until then).
pub fn outcome(m: &Model, msg: &Msg) -> Option<(bool, String)> {
    let (write, written) = m
        .writing
        .iter()
        .find_map(|w| w.answered_by(msg).map(|ok| (w, ok)))?;
    let typed = write.text().map_or("", |(_, t)| t);
    let line = match msg {
        Msg::Acked {
            agent,
            done,
            errors,
        } => {
            if errors.is_empty() {
                super::acked_line(agent, *done)
            } else {
                format!(
                    "✗ not acknowledged as {agent}: {}",
                    clean_line(&errors.join("; "))
                )
            }
        }
        Msg::MarkedRead { agent, result } => match result {
            Ok(n) => super::marked_line(agent, *n),
            Err(e) => format!("✗ not marked read as {agent}: {}", clean_line(e)),
        },
        Msg::Replied { key, result } => {
            let to = m
                .inbox
                .message_by_key(key)
                .and_then(|x| x.message.from)
                .map_or("the sender", |n| n.as_str())
                .to_string();
            match result {
                Ok(()) => format!("✓ reply sent to {to}"),
                Err(e) => {
                    format!(
                        "✗ reply to {to} not sent: {}{}",
                        clean_line(e),
                        your_text("your reply", typed)
                    )
                }
            }
        }
        Msg::Sent { to, result } => match result {
            Ok(()) => format!("✓ sent to {}", to.join(", ")),
            Err(e) => {
                format!(
                    "✗ message to {} not sent: {}{}",
                    to.join(", "),
                    clean_line(e),
                    your_text("your message (first line: the subject)", typed)
                )
            }
        },
        Msg::Reviewed {
            id,
            verdict,
            result,
        } => match (verdict, result) {
            (_, Ok(sentence)) => format!("✓ {}", clean_line(sentence)),
            (Verdict::Approved, Err(e)) => format!("✗ {id} not approved: {}", clean_line(e)),
            (Verdict::Rejected, Err(e)) => {
                format!(
                    "✗ {id} not rejected: {}{}",
                    clean_line(e),
                    your_text("your reason", typed)
                )
            }
        },
        _ => return None,
    };
    Some((written, line))
}

/// The line for the writes still out when the wait for them ended: they
/// may or may not have landed, where to look, and any text they carry.
pub fn still_out(m: &Model, waited: std::time::Duration) -> Option<String> {
    if m.writing.is_empty() {
        return None;
    }
    let mut line = format!(
        "✗ {} still being written after {} s: it may not have landed \
         (`amail pending` and `amail threads` show what the store holds)",
        crate::model::writes_in_words(&m.writing),
        waited.as_secs().max(1)
    );
    // The replies' and reasons' texts, then the new messages'.
    let (sends, others): (Vec<&Write>, Vec<&Write>) =
        m.writing.iter().partition(|w| matches!(w, Write::Send(_)));
    for w in others.into_iter().chain(sends) {
        if let Some((what, text)) = w.text() {
            line.push_str(&your_text(what, text));
        }
    }
    Some(line)
}

/// The text the user typed, to copy again: under a heading, indented.
fn your_text(what: &str, text: &str) -> String {
    if text.trim().is_empty() {
        return String::new();
    }
    let body: Vec<String> = clean_text(text)
        .lines()
        .map(|l| format!("    {l}"))
        .collect();
    format!("\n  {what}:\n{}", body.join("\n"))
}
