//! Sending a new message from a plain mailbox: one spec-text file in the
//! sender's folder (`<root>/<from>/`, where the demo and agents without a
//! server keep what each agent wrote), written atomically and never over
//! an existing file, with the reply's writer ([`render_spec_text`]). From
//! a folder above a mailbox, the sender's folder of the mailbox where
//! their mail is (`homes::home_for_new`).

use std::path::Path;

use chrono::{DateTime, Utc};

use super::reply::{render_spec_text, SpecMail};
use crate::inbox::Inbox;
use crate::stores::draft;
use crate::stores::error::Error;
use crate::stores::names::{check_components, subject_slug};
use crate::stores::store::{Draft, ReplyOutcome};

/// `d` as a file in `root`'s mailbox; `d` has passed `draft::check`,
/// which `MailboxStore::send` asks before it reads the mailbox.
pub(crate) fn send(
    inbox: &Inbox,
    root: &Path,
    d: &Draft,
    now: DateTime<Utc>,
) -> Result<ReplyOutcome, Error> {
    let from = d.from.trim();
    check_components(&[("agent name", from)])?;
    let to = draft::recipients(d);
    let subject = draft::subject(d);
    let body = draft::body(d);
    let stamp = now
        .format("%Y%m%dT%H%M%S%.6fZ")
        .to_string()
        .replace('.', "");
    let id = format!("amail-{stamp}-{}", subject_slug(from));
    let thread = d.thread.clone().unwrap_or_else(|| id.clone());
    let text = render_spec_text(&SpecMail {
        id: &id,
        from,
        to: &to,
        thread: &thread,
        date: now,
        subject: &subject,
        body: &body,
        ack_required: d.ack_required,
        importance: d.importance.as_deref().unwrap_or("normal"),
    });
    // Into the mailbox its agents read when a folder above it is named
    // ([`super::homes`]).
    let dir = super::homes::home_for_new(root, inbox, from, &to).join(from);
    let name = format!(
        "{}__{}.md",
        now.format("%Y-%m-%dT%H-%M-%SZ"),
        subject_slug(&subject)
    );
    // Never overwrite: a second message in the same second gets a suffix.
    let path = crate::fsio::write_new_numbered(&dir, &name, text.as_bytes())?;
    Ok(ReplyOutcome {
        key: id,
        from: from.to_string(),
        thread,
        subject,
        to,
        paths: vec![path],
        committed: false,
    })
}
