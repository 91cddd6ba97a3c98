//! Everything the TUI does to the outside world, behind one trait.
//!
//! `update` never performs I/O: it returns a [`super::msg::Command`], and
//! the worker thread (or a test) hands it to [`execute`], which does it
//! through a [`Backend`] and answers with the [`Msg`] that says what
//! happened. The real backend
//! (in the `amail` binary) wraps a mail store (`amail_core::stores::MailStore`)
//! and the router's store; tests use `super::testing::FakeBackend`, an
//! in-memory mailbox.

use std::path::PathBuf;

use amail_core::inbox::Inbox;
use amail_core::router::mailbox::Mailbox;
use amail_core::router::Board;
use amail_core::stores::{Draft, Refresh};

use super::msg::{Command, Msg, ReadError, Verdict};

/// The TUI's side effects. Errors are user-facing sentences.
pub trait Backend {
    /// A short description of where mail comes from, for the status bar.
    fn describe(&self) -> String;
    /// Reads the whole inbox (called at start, on reload and on file change).
    fn load(&mut self) -> Result<Inbox, ReadError>;
    /// [`load`](Backend::load), telling `progress` files done and files
    /// in all as it goes (the worker turns it into the status bar's
    /// count). The default reports nothing.
    fn load_with_progress(&mut self, progress: &dyn Fn(usize, usize)) -> Result<Inbox, ReadError> {
        let _ = progress;
        self.load()
    }
    /// [`load_with_progress`](Backend::load_with_progress), also handing
    /// `partial` a browsable inbox of the newest messages read so far, at
    /// growing steps, before the whole one is returned (the worker shows
    /// them while the rest loads: `MailStore::load_in_steps`). The default
    /// hands out none.
    fn load_in_steps(
        &mut self,
        progress: &dyn Fn(usize, usize),
        partial: &dyn Fn(Inbox),
    ) -> Result<Inbox, ReadError> {
        let _ = partial;
        self.load_with_progress(progress)
    }
    /// A reload's I/O, run on the worker after the watcher saw `changed`
    /// files change (or a poll found none to watch): what they hold now,
    /// for the event loop to apply to the inbox on screen
    /// ([`Refresh::apply`], in memory). The default reads everything.
    fn refresh(&mut self, changed: &[PathBuf]) -> Result<Refresh, ReadError> {
        let _ = changed;
        Ok(Refresh::Whole(self.load()?))
    }
    /// The task board; `Ok(vec![])` when there is no store.
    fn tasks(&mut self) -> Result<Board, String>;
    /// Records `as_agent`'s ack of each message in `keys`; returns how many
    /// changed (acking twice is a no-op). `inbox` is the one on screen, so
    /// a store that works from a loaded inbox (`MailStore::ack`) need not
    /// read the mailbox again.
    fn ack(&mut self, inbox: &Inbox, keys: &[String], as_agent: &str) -> Result<usize, String>;
    /// Writes a reply to message `key` from `as_agent`; the store decides
    /// its recipients and type (`amail_core::stores::reply_rule`).
    fn reply(&mut self, inbox: &Inbox, key: &str, as_agent: &str, body: &str)
        -> Result<(), String>;
    /// Marks each message in `keys` read by `as_agent` without acking;
    /// returns how many changed. Stores that cannot record reads refuse.
    fn mark_read(
        &mut self,
        inbox: &Inbox,
        keys: &[String],
        as_agent: &str,
    ) -> Result<usize, String> {
        let _ = (inbox, keys, as_agent);
        Err(format!("{} cannot record reads", self.describe()))
    }
    /// Writes a new message (`c`) where its recipients read mail.
    fn send(&mut self, inbox: &Inbox, draft: &Draft) -> Result<(), String> {
        let _ = (inbox, draft);
        Err(format!("{} cannot be written to", self.describe()))
    }
    /// The text of a mail file, for `v` (lossy UTF-8, at most the
    /// message size limit).
    fn read_file(&mut self, path: &std::path::Path) -> Result<String, String> {
        let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let bytes = amail_core::fsio::read_limited(f, amail_core::fsio::DEFAULT_MAX_MESSAGE_BYTES)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
    /// Files and directories whose changes should trigger a reload.
    fn watch_paths(&self) -> Vec<PathBuf>;
    /// Approves task `id` in review (review -> done, which promotes the
    /// tasks that waited only for it); returns a sentence for the status
    /// bar. The default has no task store to write to.
    fn approve(&mut self, id: &str) -> Result<String, String> {
        let _ = id;
        Err("no task store to approve in".into())
    }
    /// Sends task `id` in review back to work with `reason` in its Work Log.
    fn reject(&mut self, id: &str, reason: &str) -> Result<String, String> {
        let _ = (id, reason);
        Err("no task store to reject in".into())
    }
    /// `agent`'s three queues (AOF's mailbox view); empty without a store.
    fn mailbox(&mut self, agent: &str) -> Result<Mailbox, String> {
        Ok(Mailbox {
            agent: agent.to_string(),
            ..Mailbox::default()
        })
    }

    /// How often to reload with no file change (a server polled for new
    /// mail); `None`: only on changes.
    fn poll_interval(&self) -> Option<std::time::Duration> {
        None
    }
}

/// What an approval says on the status bar: the task, and the tasks the
/// cascade made ready (how many, then which).
pub fn approved_sentence(id: &str, promoted: &[String]) -> String {
    match promoted.len() {
        0 => format!("{id} approved: done"),
        n => format!(
            "{id} approved: done; {n} dependent{} ready now: {}",
            amail_core::words::plural(n),
            promoted.join(", ")
        ),
    }
}

/// Performs a command's I/O and returns what happened. Editor, Suspend and Quit
/// need the terminal and are handled by the runtime, so they return `None`.
/// Tests drive the same function with a fake backend. `inbox` holds the
/// messages an ack or a reply names. A reload only reads the changed
/// files; `update` applies them to the inbox on screen, so a big inbox is
/// neither copied nor read again when one file changes.
pub fn execute(backend: &mut dyn Backend, inbox: &mut Inbox, cmd: Command) -> Option<Msg> {
    match cmd {
        Command::Load => Some(Msg::Loaded {
            inbox: backend.load(),
            tasks: backend.tasks(),
        }),
        Command::Reload { changed } => Some(Msg::Reloaded {
            refresh: backend.refresh(&changed),
            tasks: backend.tasks(),
        }),
        Command::Ack { keys, agent } => {
            let (done, errors) = match backend.ack(inbox, &keys, &agent) {
                Ok(n) => (n, Vec::new()),
                Err(e) => (0, vec![e]),
            };
            Some(Msg::Acked {
                agent,
                done,
                errors,
            })
        }
        Command::Reply { key, agent, body } => {
            let result = backend.reply(inbox, &key, &agent, &body);
            Some(Msg::Replied { key, result })
        }
        Command::MarkRead { keys, agent } => {
            let result = backend.mark_read(inbox, &keys, &agent);
            Some(Msg::MarkedRead { agent, result })
        }
        Command::Send(draft) => {
            let result = backend.send(inbox, &draft);
            Some(Msg::Sent {
                to: draft.to.clone(),
                result,
            })
        }
        Command::ReadFile { path } => {
            let text = backend.read_file(&path);
            Some(Msg::FileRead { path, text })
        }
        Command::Approve { id } => {
            let result = backend.approve(&id);
            Some(Msg::Reviewed {
                id,
                verdict: Verdict::Approved,
                result,
            })
        }
        Command::Reject { id, reason } => {
            let result = backend.reject(&id, &reason);
            Some(Msg::Reviewed {
                id,
                verdict: Verdict::Rejected,
                result,
            })
        }
        Command::Mailbox { agent } => {
            let result = backend.mailbox(&agent);
            Some(Msg::MailboxRead { agent, result })
        }
        Command::Editor { .. } | Command::Suspend | Command::Quit => None,
    }
}
