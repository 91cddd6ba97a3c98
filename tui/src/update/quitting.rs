//! What became of a write that answered after the user forced the quit
//! (`q` twice with writes out): a line for stderr, once the terminal is
//! restored (`runtime::settle_writes`). Whatever the user typed and the
//! store refused is given whole, since the app that kept it is gone.

use amail_core::safe_text::{clean_line, clean_text};

use crate::model::{Model, Overlay, Write};
use crate::msg::{Msg, Verdict};

/// Whether `msg`, answering a write out, says it was written, and the
/// line telling so. Read before `update` takes the answer in (a failed
/// write's text is the model's until then).
pub fn outcome(m: &Model, msg: &Msg) -> Option<(bool, String)> {
    let written = m.writing.iter().find_map(|w| w.answered_by(msg))?;
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
                    let text = m.drafts.get(key).map(String::as_str).unwrap_or_default();
                    format!(
                        "✗ reply to {to} not sent: {}{}",
                        clean_line(e),
                        your_text("your reply", text)
                    )
                }
            }
        }
        Msg::Sent { to, result } => match result {
            Ok(()) => format!("✓ sent to {}", to.join(", ")),
            Err(e) => {
                let text = match m.unsent.front() {
                    Some(Overlay::Compose { text, .. }) => text.as_str(),
                    _ => "",
                };
                format!(
                    "✗ message to {} not sent: {}{}",
                    to.join(", "),
                    clean_line(e),
                    your_text("your message (first line: the subject)", text)
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
                let text = m.reasons.get(id).map(String::as_str).unwrap_or_default();
                format!(
                    "✗ {id} not rejected: {}{}",
                    clean_line(e),
                    your_text("your reason", text)
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
    for w in &m.writing {
        let text = match w {
            Write::Reply(key) => m.drafts.get(key).map(|t| ("your reply", t.as_str())),
            Write::Reject(id) => m.reasons.get(id).map(|t| ("your reason", t.as_str())),
            _ => None,
        };
        if let Some((what, text)) = text {
            line.push_str(&your_text(what, text));
        }
    }
    let sends = m.writing.iter().filter(|w| **w == Write::Send).count();
    for o in m.unsent.iter().take(sends) {
        if let Overlay::Compose { text, .. } = o {
            line.push_str(&your_text("your message", text));
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
