//! A plain mailbox: a directory of mail files in any framing (spec text,
//! Markdown, JSON, archive files), as agents without a server write them.
//!
//! - [`load_mailbox`] reads every file the walker lists, in parallel,
//!   newest names first, plus the ack journal and the handoff and A2A
//!   items (`protocol`); [`load_mailbox_in_steps`] hands out a browsable
//!   inbox of the newest messages as it goes;
//! - [`reload_changed`] reads only the files the watcher names and patches
//!   the inbox in place, falling back to a full load where that would not
//!   be exact;
//! - an ack or a mark-read is a line appended to the [`journal`] (mail
//!   files belong to the agents that wrote them and are never edited);
//!   several keys are one batch (`read`);
//! - a reply is a new spec-text file under `replies/` ([`render_spec_text`]);
//!   a new message (`send`) one in its sender's folder.

mod ack;
mod homes;
pub mod incremental;
pub mod journal;
mod load;
pub(crate) mod protocol;
mod read;
mod reply;
mod send;

use std::path::PathBuf;

use chrono::{DateTime, Utc};

pub use super::steps::FIRST_STEP;
pub use incremental::{apply_changed, read_changed, reload_changed, ChangedFiles, Reload};
pub(crate) use load::newest_first_by;
pub use load::{load_mailbox, load_mailbox_in_steps, load_mailbox_with};
pub use reply::{render_spec_text, SpecMail};

use super::error::Error;
use super::store::{
    check_reply, micros, AckOutcome, Draft, MailStore, ReadOutcome, Refresh, ReplyOutcome,
};
use crate::inbox::{Inbox, SourceKind};

/// The keys of the messages that decide which mailbox a new message
/// (`draft`) goes into when a folder above mailboxes is named: a caller
/// that hands [`MailStore::send`] a part of its inbox (the TUI's worker)
/// hands these (`Inbox::subset`). Empty when the folder named is the one
/// mailbox.
pub fn send_context<'a>(inbox: &'a Inbox, draft: &Draft) -> Vec<&'a str> {
    homes::deciding_keys(
        inbox,
        draft.from.trim(),
        &crate::stores::draft::recipients(draft),
    )
}

/// `keys` and the keys of the messages that decide how a write to them
/// (an ack, a read, a reply) is recorded when a folder above mailboxes
/// is named: a caller that hands the store a part of its inbox (the
/// TUI's worker) hands these (`Inbox::subset`). `keys` alone when the
/// folder named is the one mailbox.
pub fn write_context<'a>(inbox: &'a Inbox, keys: &[&'a str]) -> Vec<&'a str> {
    homes::write_keys(inbox, keys)
}

/// A plain mailbox directory as a [`MailStore`].
#[derive(Debug, Clone)]
pub struct MailboxStore {
    root: PathBuf,
    /// Files over this size are problems, not read.
    max_bytes: u64,
}

impl MailboxStore {
    pub fn new(root: PathBuf, max_bytes: u64) -> Self {
        // Spelled as the walk spells its paths (`mail/` as `mail`), so the
        // changed paths the watcher reports match them byte for byte and a
        // reload reads only what changed.
        let root = incremental::plain(&root).unwrap_or(root);
        MailboxStore { root, max_bytes }
    }

    /// `inbox` when given, else the mailbox read now.
    fn messages<'a>(
        &self,
        inbox: Option<&'a Inbox>,
        fresh: &'a mut Option<Inbox>,
    ) -> Result<&'a Inbox, Error> {
        Ok(match inbox {
            Some(i) => i,
            None => fresh.insert(load_mailbox(&self.root, self.max_bytes)?),
        })
    }
}

impl MailStore for MailboxStore {
    fn describe(&self) -> String {
        self.root.display().to_string()
    }

    fn load(&self) -> Result<Inbox, Error> {
        load_mailbox(&self.root, self.max_bytes)
    }

    fn load_with_progress(&self, progress: &dyn Fn(usize, usize)) -> Result<Inbox, Error> {
        load_mailbox_with(&self.root, self.max_bytes, progress)
    }

    /// Newest files first, a browsable inbox at growing steps
    /// ([`load_mailbox_in_steps`]).
    fn load_in_steps(
        &self,
        progress: &dyn Fn(usize, usize),
        partial: &dyn Fn(Inbox),
    ) -> Result<Inbox, Error> {
        load_mailbox_in_steps(&self.root, self.max_bytes, progress, partial)
    }

    /// Only the changed files are read ([`reload_changed`]), unless `inbox`
    /// did not come from this mailbox.
    fn reload(&self, inbox: &mut Inbox, changed: &[PathBuf]) -> Result<(), Error> {
        if !matches!(&inbox.source, SourceKind::Mailbox { root } if *root == self.root) {
            *inbox = self.load()?;
            return Ok(());
        }
        reload_changed(inbox, changed, self.max_bytes).map(|_| ())
    }

    /// Only the changed files are read ([`read_changed`]); `None` from it
    /// (a change only a full load gets exactly right) reads everything.
    fn refresh(&self, changed: &[PathBuf]) -> Result<Refresh, Error> {
        match incremental::read_changed(&self.root, changed, self.max_bytes) {
            Some(files) => Ok(Refresh::Files(files)),
            None => Ok(Refresh::Whole(self.load()?)),
        }
    }

    fn ack(
        &self,
        inbox: Option<&Inbox>,
        keys: &[String],
        as_agent: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<AckOutcome>, Error> {
        let now = micros(now);
        let mut fresh = None;
        let inbox = self.messages(inbox, &mut fresh)?;
        ack::ack(inbox, &self.root, keys, as_agent, now)
    }

    fn mark_read(
        &self,
        inbox: Option<&Inbox>,
        keys: &[String],
        as_agent: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<ReadOutcome>, Error> {
        let now = micros(now);
        let mut fresh = None;
        let inbox = self.messages(inbox, &mut fresh)?;
        read::mark_read(inbox, &self.root, keys, as_agent, now)
    }

    /// A new file in the sender's folder (of the mailbox where the mail
    /// is, when a folder above it is named: read from `inbox`).
    fn send(
        &self,
        inbox: Option<&Inbox>,
        draft: &Draft,
        now: DateTime<Utc>,
    ) -> Result<ReplyOutcome, Error> {
        // Judged before the mailbox is read: a refused draft costs no
        // load, and says what is wrong with it, not with the mailbox.
        crate::stores::draft::check(draft)?;
        let mut fresh = None;
        let inbox = self.messages(inbox, &mut fresh)?;
        send::send(inbox, &self.root, draft, micros(now))
    }

    fn reply(
        &self,
        inbox: Option<&Inbox>,
        key: &str,
        as_agent: &str,
        body: &str,
        now: DateTime<Utc>,
    ) -> Result<ReplyOutcome, Error> {
        check_reply(as_agent, body)?;
        let now = micros(now);
        let mut fresh = None;
        let inbox = self.messages(inbox, &mut fresh)?;
        reply::reply(inbox, &self.root, key, as_agent, body, now)
    }

    /// The root, recursively: the mail files and the ack journal.
    fn watch_paths(&self) -> Vec<PathBuf> {
        vec![self.root.clone()]
    }
}
