//! The one interface of a mailbox backend, [`MailStore`], and what its
//! operations take and give back. Each store (`mailbox/`, `mcp/`, `stdin`)
//! implements it; callers hold a `Box<dyn MailStore>` and never ask which
//! one they have.

use std::path::PathBuf;
use std::sync::Arc;

use chrono::{DateTime, DurationRound, TimeDelta, Utc};

use super::error::Error;
use super::mailbox::incremental::{apply_changed, ChangedFiles};
use crate::inbox::Inbox;

/// What a store read after some of its files changed, not yet applied
/// (see [`MailStore::refresh`]).
#[derive(Debug, Clone)]
pub enum Refresh {
    /// Nothing the inbox shows changed.
    Unchanged,
    /// Everything, read again.
    Whole(Inbox),
    /// Only the changed files of a plain mailbox.
    Files(ChangedFiles),
    /// What a polled store (a server) fetched since its last read, merged
    /// into the inbox by the store's own rule (see [`Patch`]).
    Patch(Arc<dyn Patch>),
}

/// A store's own change to an inbox loaded from it, made in memory: a
/// server's poll hands back the mail newer than what the inbox holds and
/// the acks made elsewhere, and only the server's store knows how its
/// payloads merge into held messages, so the rule travels with the data
/// (the reading stays on the caller's worker; the merge, in `update`,
/// threads the whole inbox again, so a store hands back
/// [`Refresh::Unchanged`] for a poll that found nothing new).
pub trait Patch: std::fmt::Debug + Send + Sync {
    /// Brings `inbox` up to date; false (with `inbox` untouched) when it
    /// was not loaded from this store.
    fn apply(&self, inbox: &mut Inbox) -> bool;
}

impl Refresh {
    /// Brings `inbox` up to date; false (with `inbox` untouched) when the
    /// change cannot be applied exactly to it: then load everything again.
    pub fn apply(self, inbox: &mut Inbox) -> bool {
        match self {
            Refresh::Unchanged => true,
            Refresh::Whole(whole) => {
                *inbox = whole;
                true
            }
            Refresh::Files(files) => apply_changed(inbox, files),
            Refresh::Patch(patch) => patch.apply(inbox),
        }
    }
}

/// How to open and read a store.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// The mcp_agent_mail database, when it is not beside the archive (`--db`).
    pub db: Option<PathBuf>,
    /// Files larger than this are named in `Inbox::problems`, not read.
    pub max_bytes: u64,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            db: None,
            max_bytes: crate::fsio::DEFAULT_MAX_MESSAGE_BYTES,
        }
    }
}

/// What one ack did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AckOutcome {
    pub key: String,
    pub agent: String,
    pub ack_at: DateTime<Utc>,
    pub read_at: Option<DateTime<Utc>>,
    /// False when the recipient had already acknowledged (nothing written).
    pub changed: bool,
}

/// What a reply wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReplyOutcome {
    /// The new message's key (mcp id, or the mail file's `Id:`).
    pub key: String,
    /// Who wrote it, as the store spells the agent: an `--as` typed in
    /// another case on an mcp store or a server is the store's name here,
    /// and what amail prints says that name.
    pub from: String,
    pub thread: String,
    pub subject: String,
    pub to: Vec<String>,
    /// Files written (absolute).
    pub paths: Vec<PathBuf>,
    /// A Git commit was made in the archive.
    pub committed: bool,
}

/// What one mark-read did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReadOutcome {
    pub key: String,
    pub agent: String,
    pub read_at: DateTime<Utc>,
    /// False when the recipient had already read it (nothing written).
    pub changed: bool,
}

/// A new message a person writes to agents (`c` in the TUI, and any
/// future `amail send`): not an answer to one message, so no reply rule
/// applies; the store writes it where the recipients read mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    pub from: String,
    /// One or more agents; a caller that means "all agents of the
    /// project" expands the roster before building the draft.
    pub to: Vec<String>,
    /// The protocol type written into the subject and first body line
    /// (HELP_RESPONSE, GUIDANCE, NUDGE, TERMINATE), or `None` for a plain
    /// message.
    pub kind: Option<String>,
    /// The bead the message is about, written as `[bead]` in the subject.
    pub bead: Option<String>,
    pub subject: String,
    pub body: String,
    /// The thread to file it under; `None` starts a new one.
    pub thread: Option<String>,
    pub importance: Option<String>,
    pub ack_required: bool,
}

/// A mailbox backend: where mail is read from and acks and replies are
/// written to, exactly as the agents' own tools would.
///
/// `inbox` in [`ack`](MailStore::ack) and [`reply`](MailStore::reply) is
/// an inbox the caller loaded from this store (the TUI's, on screen), so a
/// store that needs the messages to write need not read them again; `None`
/// reads what is needed now (the CLI). The store's own records (the ack
/// journal, the database) stay the truth for "already acked", so a stale
/// inbox cannot cause a double ack.
pub trait MailStore: Send {
    /// Where the mail is, as the user named it (for the status bar).
    fn describe(&self) -> String;
    /// The error for an id this store does not hold: where it was looked
    /// for, and the `amail threads` that lists this store's ids.
    fn not_found(&self, key: &str) -> Error {
        Error::not_found(key, self.describe(), self.describe())
    }
    /// Reads every message into an [`Inbox`]. Problems with single files go
    /// to `Inbox::problems`; the rest loads.
    fn load(&self) -> Result<Inbox, Error>;
    /// [`load`](MailStore::load), telling `progress` how many of how many
    /// files are read as it goes (for a progress count; called from the
    /// loading thread, often). The default reports nothing.
    fn load_with_progress(&self, progress: &dyn Fn(usize, usize)) -> Result<Inbox, Error> {
        let _ = progress;
        self.load()
    }
    /// [`load_with_progress`](MailStore::load_with_progress), also handing
    /// `partial` a browsable inbox of the newest messages read so far, at
    /// growing steps, before the whole one is returned (the TUI shows the
    /// newest threads while the rest loads). A step is whole in itself
    /// (threads, counts, acks of what it holds), only smaller. The default
    /// hands out none.
    fn load_in_steps(
        &self,
        progress: &dyn Fn(usize, usize),
        partial: &dyn Fn(Inbox),
    ) -> Result<Inbox, Error> {
        let _ = partial;
        self.load_with_progress(progress)
    }
    /// Brings `inbox` (loaded from this store) up to date after `changed`
    /// paths changed (added, modified or removed); an empty list means
    /// "something changed". The default reads everything again. On an
    /// error `inbox` is left as it was.
    fn reload(&self, inbox: &mut Inbox, changed: &[PathBuf]) -> Result<(), Error> {
        let _ = changed;
        *inbox = self.load()?;
        Ok(())
    }
    /// The I/O half of [`reload`](MailStore::reload), without the inbox:
    /// what `changed` paths hold now, for [`Refresh::apply`] to bring an
    /// inbox loaded from this store up to date (the TUI reads on its
    /// worker and applies on the UI thread). The default reads everything.
    fn refresh(&self, changed: &[PathBuf]) -> Result<Refresh, Error> {
        let _ = changed;
        Ok(Refresh::Whole(self.load()?))
    }
    /// Acks each of `keys` as `as_agent`, in order, at `now`. Stops at the
    /// first error; acks already recorded stay recorded. Acking twice
    /// changes nothing and reports the first ack's time.
    fn ack(
        &self,
        inbox: Option<&Inbox>,
        keys: &[String],
        as_agent: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<AckOutcome>, Error>;
    /// Answers message `key` as `as_agent` with `body` at `now`, in its
    /// thread, as [`super::reply_rule::plan`] decides: refused unless
    /// `as_agent` sent or received it; a HELP_RESPONSE only to someone
    /// else's help request, else a plain `Re:` reply.
    fn reply(
        &self,
        inbox: Option<&Inbox>,
        key: &str,
        as_agent: &str,
        body: &str,
        now: DateTime<Utc>,
    ) -> Result<ReplyOutcome, Error>;
    /// Marks each of `keys` read by `as_agent` at `now`, without
    /// acknowledging. Same ordering and idempotence as [`ack`](Self::ack).
    /// Stores that cannot record reads (mail piped on stdin) refuse.
    fn mark_read(
        &self,
        inbox: Option<&Inbox>,
        keys: &[String],
        as_agent: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<ReadOutcome>, Error> {
        let _ = (inbox, keys, as_agent, now);
        Err(Error::Unsupported(format!(
            "{} cannot record reads",
            self.describe()
        )))
    }
    /// Writes a new message from `draft.from` to `draft.to` at `now`,
    /// where the recipients read mail (the same files and rows a reply
    /// writes). Stores that cannot be written (stdin) refuse.
    fn send(
        &self,
        inbox: Option<&Inbox>,
        draft: &Draft,
        now: DateTime<Utc>,
    ) -> Result<ReplyOutcome, Error> {
        let _ = (inbox, draft, now);
        Err(Error::Unsupported(format!(
            "{} cannot be written to",
            self.describe()
        )))
    }
    /// Files and directories whose changes should trigger a reload
    /// (directories recursively).
    fn watch_paths(&self) -> Vec<PathBuf>;
    /// How often the TUI should call [`refresh`](Self::refresh) without a
    /// file change: a store with nothing on disk to watch (a server,
    /// polled for mail newer than what it holds). `None`: only on changes.
    fn poll_interval(&self) -> Option<std::time::Duration> {
        None
    }
}

/// Microsecond precision: what both SQLite dialects and the journal keep,
/// so what a write reports is what a later read sees.
pub(crate) fn micros(t: DateTime<Utc>) -> DateTime<Utc> {
    t.duration_trunc(TimeDelta::microseconds(1)).unwrap_or(t)
}

/// The arguments every store's reply refuses before looking at anything.
pub(crate) fn check_reply(as_agent: &str, body: &str) -> Result<(), Error> {
    if body.trim().is_empty() {
        return Err(Error::Invalid(
            "the reply body is empty: give --body TEXT or pipe it on stdin".into(),
        ));
    }
    if as_agent.trim().is_empty() {
        return Err(Error::Invalid("--as AGENT is empty".into()));
    }
    Ok(())
}
