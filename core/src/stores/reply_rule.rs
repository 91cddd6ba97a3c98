//! The one rule for a reply, whatever store it is written to: who may
//! reply, to whom it goes, what it inherits and what type it is. Both
//! stores (`mailbox/reply.rs`, `mcp/reply.rs`) and the TUI (to show who a
//! reply goes to before it is written) ask [`plan`]; only the framing
//! (spec-text headers or the server's rows and archive copies) is theirs.
//!
//! The rule is the mcp_agent_mail 0.3.x server's `reply_message`: only a
//! sender or recipient of a message may answer it; the reply stays in the
//! message's thread and keeps its importance and ack requirement; it goes
//! to the original sender, or, when the sender answers their own message,
//! to the original recipients. A reply is a HELP_RESPONSE only when it
//! answers someone else's help request; anything else gets a plain `Re:` reply, so an
//! "ok, merging" to an OFFERING_READY is not counted as help given.

use amail_parser::MessageType;

use super::error::{Error, NameNotUtf8};
use crate::inbox::SourceKind;

/// What a reply is, decided by what it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyKind {
    /// The answer to a HELP_REQUEST.
    HelpResponse,
    /// Any other answer: `Re: <subject>`, no type of its own.
    Plain,
}

impl ReplyKind {
    /// The type a reply to a message of `kind` has.
    pub fn answering(kind: MessageType) -> ReplyKind {
        if kind == MessageType::HelpRequest {
            ReplyKind::HelpResponse
        } else {
            ReplyKind::Plain
        }
    }

    /// For people: "HELP_RESPONSE" or "reply".
    pub fn label(self) -> &'static str {
        match self {
            ReplyKind::HelpResponse => "HELP_RESPONSE",
            ReplyKind::Plain => "reply",
        }
    }
}

/// The message being answered, as every store can describe it.
#[derive(Debug, Clone, Copy)]
pub struct Original<'a> {
    pub key: &'a str,
    pub sender: Option<&'a str>,
    /// `to` recipients first, then `cc` and `bcc`: the order the reply keeps.
    pub to: &'a [String],
    pub cc: &'a [String],
    pub subject: &'a str,
    pub kind: MessageType,
    /// Its thread as it names it (`Thread:`, the row's `thread_id`);
    /// `None`: its key names the thread.
    pub thread: Option<&'a str>,
    /// Its bead, which a HELP_RESPONSE's subject carries.
    pub bead: Option<&'a str>,
    /// Where the message is: how `--as` names its agents
    /// ([`SourceKind::same_agent`], the rule `ack` and `pending` use too).
    pub source: &'a SourceKind,
}

/// What a reply will be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyPlan {
    /// The replying agent's name as the message spells it.
    pub from: String,
    pub to: Vec<String>,
    pub kind: ReplyKind,
    /// `Re: <original subject>` (not doubled).
    pub re_subject: String,
}

/// Decides the reply to `orig` by `as_agent`, or says why it may not be
/// written.
pub fn plan(orig: &Original<'_>, as_agent: &str) -> Result<ReplyPlan, Error> {
    let same = |stored: &str, typed: &str| orig.source.same_agent(stored.trim(), typed.trim());
    let sender = orig.sender.map(str::trim).filter(|s| !s.is_empty());
    let recipients: Vec<&String> = orig.to.iter().chain(orig.cc.iter()).collect();
    let from = if let Some(s) = sender.filter(|s| same(s, as_agent)) {
        s.to_string()
    } else if let Some(r) = recipients.iter().find(|r| same(r, as_agent)) {
        r.trim().to_string()
    } else {
        let mut party: Vec<String> = sender.map(String::from).into_iter().collect();
        party.extend(recipients.iter().map(|r| r.trim().to_string()));
        let near = orig
            .source
            .agent_near(as_agent.trim(), party.iter().map(String::as_str));
        return Err(Error::NotParty {
            key: orig.key.to_string(),
            agent: as_agent.trim().to_string(),
            near: near.map(String::from),
            party: party.join(", "),
        });
    };
    let own = sender.is_some_and(|s| same(s, &from));
    let to: Vec<String> = match sender {
        Some(_) if own => {
            // Your own message: a follow-up to the people it went to
            // (`to` first, else everyone it reached), never to yourself.
            let others = |list: &[String]| -> Vec<String> {
                let mut v: Vec<String> = Vec::new();
                for r in list.iter().map(|r| r.trim()) {
                    if !r.is_empty() && !same(r, &from) && !v.iter().any(|x| same(x, r)) {
                        v.push(r.to_string());
                    }
                }
                v
            };
            let mut v = others(orig.to);
            if v.is_empty() {
                v = others(orig.cc);
            }
            if v.is_empty() {
                return Err(Error::Rejected(format!(
                    "message {} went only to {from}: there is no one else to reply to",
                    orig.key
                )));
            }
            v
        }
        Some(s) => vec![s.to_string()],
        None => {
            return Err(Error::Rejected(format!(
                "message {} has no sender (From:) to reply to",
                orig.key
            )))
        }
    };
    // A name read with U+FFFD is not the name as written: answered as or
    // to, the reply would reach nobody.
    let mut names = vec![("the name it is answered as", from.as_str())];
    names.extend(to.iter().map(|t| {
        let what = match sender {
            Some(s) if s == t => "its sender's name",
            _ => "a recipient's name",
        };
        (what, t.as_str())
    }));
    if let Some(name) = super::names::replaced(&names, NameNotUtf8::BY_OR_TO) {
        return Err(Error::Rejected(format!("message {}: {name}", orig.key)));
    }
    // Nor is a thread or bead read so: the reply would be filed there in
    // amail's view (which reads it the same way) and nowhere for an agent
    // or router that matches the bytes as written.
    let thread = orig.thread.unwrap_or(orig.key);
    if let Some(place) =
        super::names::place_replaced(("its bead", orig.bead), ("its thread", Some(thread)))
    {
        return Err(Error::Rejected(format!("message {}: {place}", orig.key)));
    }
    let subject = orig.subject.trim();
    let re_subject = if subject.to_lowercase().starts_with("re:") {
        subject.to_string()
    } else {
        format!("Re: {subject}").trim().to_string()
    };
    Ok(ReplyPlan {
        from,
        to,
        // Following up your own request is not help given.
        kind: if own {
            ReplyKind::Plain
        } else {
            ReplyKind::answering(orig.kind)
        },
        re_subject,
    })
}

/// The type and bead of a message known only by its subject and body (a
/// database row), read the way the parser reads any mail.
pub(crate) fn kind_and_bead(subject: &str, body: &str) -> (MessageType, Option<String>) {
    let text = format!(
        "Subject: {}\n\nBody:\n{body}\n",
        subject.replace(['\r', '\n'], " ")
    );
    amail_parser::parse(&text, &amail_parser::ParseOptions::default())
        .ok()
        .and_then(|v| v.into_iter().next())
        .map_or((MessageType::Unknown, None), |m| {
            (m.kind, m.bead().map(str::to_string))
        })
}

/// [`plan`] for a message of a loaded inbox: its recipients as the store
/// recorded them (the envelope's `To:`/`Cc:` when it recorded none).
pub fn plan_for(
    source: &SourceKind,
    m: &crate::inbox::InboxMessage,
    as_agent: &str,
) -> Result<ReplyPlan, Error> {
    use crate::inbox::RecipientKind;
    let (mut to, mut cc): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for r in &m.recipients {
        match r.kind {
            RecipientKind::To => to.push(r.agent.to_string()),
            RecipientKind::Cc | RecipientKind::Bcc => cc.push(r.agent.to_string()),
        }
    }
    if to.is_empty() && cc.is_empty() {
        to = m.message.to.iter().map(|s| s.to_string()).collect();
        cc = m.message.cc.iter().map(|s| s.to_string()).collect();
    }
    plan(
        &Original {
            key: &m.key,
            sender: m.message.from.as_deref(),
            to: &to,
            cc: &cc,
            subject: &m.message.subject,
            kind: m.message.kind,
            thread: m.message.thread_id.as_deref(),
            bead: m.message.bead().as_deref(),
            source,
        },
        as_agent,
    )
}

/// The body of an mcp_agent_mail HELP_RESPONSE (direct write or through
/// the server's `reply_message`): the HELP_RESPONSE type on the
/// first line (as the fixture's orchestrator writes it), because the
/// subject stays the original's `Re: [bead] HELP_REQUEST`.
pub fn help_response_body(body: &str) -> String {
    let b = body_text(body);
    let first = b.lines().next().unwrap_or("").trim();
    if first.eq_ignore_ascii_case("HELP_RESPONSE") {
        b.to_string()
    } else {
        format!("HELP_RESPONSE\n\n{b}")
    }
}

/// The text of a body as the user wrote it, for every store's reply and
/// new message: without the blank lines before it and the whitespace
/// after it, but with its first line's indentation (Markdown code, a
/// quoted block). `trim()` took that indentation too, on the mcp storage
/// root and through a server, where a plain mailbox kept it.
pub fn body_text(body: &str) -> &str {
    let body = body.trim_end();
    let mut start = 0;
    for line in body.split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        start += line.len();
    }
    &body[start..]
}

#[cfg(test)]
mod body_text_tests {
    use super::body_text;

    #[test]
    fn keeps_the_first_line_s_indentation() {
        assert_eq!(body_text("\n \n    code\n  more\n\n"), "    code\n  more");
        assert_eq!(body_text("plain"), "plain");
        assert_eq!(body_text(" \n\t\n"), "");
        assert_eq!(body_text("\r\n  x\r\n"), "  x");
    }
}
