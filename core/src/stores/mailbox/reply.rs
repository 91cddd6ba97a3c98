//! Replying in a plain mailbox: a new mail file under `replies/` of the
//! answered message's mailbox (the named folder's, or the mailbox below
//! it whose journal holds that message's acks) in spec-text framing
//! (headers, `Subject:`, `Body:`), written atomically and never over an
//! existing file; nothing existing is touched. Who may
//! reply, to whom and with what type is [`reply_rule`]'s.

use std::path::Path;

use chrono::{DateTime, Utc};

use crate::inbox::Inbox;
use crate::stores::error::Error;
use crate::stores::names::subject_slug;
use crate::stores::reply_rule::{self, ReplyKind};
use crate::stores::store::ReplyOutcome;

/// Answers `key` of `inbox` (loaded from `root`) as `as_agent` at `now`,
/// as [`reply_rule::plan`] decides: in its thread, with its importance
/// and ack requirement. A HELP_RESPONSE is framed as the protocol's
/// `[bead] HELP_RESPONSE` subject; a plain reply is `Re: <subject>`.
pub(crate) fn reply(
    inbox: &Inbox,
    root: &Path,
    key: &str,
    as_agent: &str,
    body: &str,
    now: DateTime<Utc>,
) -> Result<ReplyOutcome, Error> {
    let orig = inbox.message_by_key(key).ok_or_else(|| {
        let root = root.display().to_string();
        Error::not_found(key, root.clone(), root).near_miss(inbox.keys())
    })?;
    let plan = reply_rule::plan_for(&inbox.source, orig, as_agent)?;
    let as_agent = plan.from.as_str();
    let to = plan.to;
    let thread = inbox.thread_for(orig).id.clone();
    // Into the mailbox of the message answered, which its agents read,
    // when a folder above it is named ([`super::homes`]).
    let home = super::homes::mailbox_of(root, orig);
    // A thread named by a message's key is written as that mailbox keys
    // the message (`ask.md`, not `mail/ask.md`), so the reply joins it in
    // the mailbox's own view too.
    let written_thread = inbox
        .message_by_key(&thread)
        .filter(|seed| super::homes::mailbox_of(root, seed) == home)
        .map_or_else(
            || thread.clone(),
            |seed| super::homes::key_in(root, &home, seed, inbox).into_owned(),
        );
    let bead = orig.message.bead().map(|b| b.to_string());
    let subject = match (plan.kind, &bead) {
        (ReplyKind::HelpResponse, Some(b)) => format!("[{b}] HELP_RESPONSE"),
        (ReplyKind::HelpResponse, None) => "HELP_RESPONSE".to_string(),
        (ReplyKind::Plain, _) => plan.re_subject,
    };
    let stamp = now
        .format("%Y%m%dT%H%M%S%.6fZ")
        .to_string()
        .replace('.', "");
    let id = format!("amail-{stamp}-{}", subject_slug(as_agent));
    let text = render_spec_text(&SpecMail {
        id: &id,
        from: as_agent,
        to: &to,
        thread: &written_thread,
        date: now,
        subject: &subject,
        body: reply_rule::body_text(body),
        ack_required: orig.message.ack_required,
        importance: &orig.message.importance,
    });
    let name = format!(
        "{}__{}__re-{}.md",
        now.format("%Y-%m-%dT%H-%M-%SZ"),
        subject_slug(&subject),
        // A message with no `Id:` is keyed by its path (as its mailbox
        // names it): its `.md` is not the reply's.
        subject_slug(crate::source::walk::without_mail_extension(
            &super::homes::key_in(root, &home, orig, inbox)
        ))
    );
    let dir = home.join("replies");
    // Never overwrite: a second message in the same second gets a suffix.
    let path = crate::fsio::write_new_numbered(&dir, &name, text.as_bytes())?;
    Ok(ReplyOutcome {
        key: id,
        from: as_agent.to_string(),
        thread,
        subject,
        to,
        paths: vec![path],
        committed: false,
    })
}

/// A message in the protocol's spec-text framing with envelope headers.
pub struct SpecMail<'a> {
    pub id: &'a str,
    pub from: &'a str,
    pub to: &'a [String],
    pub thread: &'a str,
    pub date: DateTime<Utc>,
    pub subject: &'a str,
    pub body: &'a str,
    pub ack_required: bool,
    pub importance: &'a str,
}

/// `Subject:` first (every reader of the seed's form expects it), then the
/// envelope headers, a blank line, `Body:` and the body.
pub fn render_spec_text(m: &SpecMail<'_>) -> String {
    let one_line = |s: &str| s.replace(['\r', '\n'], " ");
    let mut out = String::new();
    out.push_str(&format!("Subject: {}\n", one_line(m.subject)));
    out.push_str(&format!("Id: {}\n", one_line(m.id)));
    out.push_str(&format!("From: {}\n", one_line(m.from)));
    out.push_str(&format!("To: {}\n", one_line(&m.to.join(", "))));
    if !m.thread.trim().is_empty() {
        out.push_str(&format!("Thread: {}\n", one_line(m.thread)));
    }
    out.push_str(&format!(
        "Date: {}\n",
        m.date.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
    ));
    out.push_str(&format!("Importance: {}\n", one_line(m.importance)));
    out.push_str(&format!("Ack-Required: {}\n", m.ack_required));
    out.push_str("\nBody:\n");
    out.push_str(m.body.trim_end());
    out.push('\n');
    out
}
