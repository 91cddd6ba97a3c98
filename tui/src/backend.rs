//! Everything the TUI does to the outside world, behind one trait.
//!
//! `update` never performs I/O: it returns a [`super::msg::Command`], and
//! the runtime (or a test) hands it to a [`Backend`]. The real backend
//! (in the `amail` binary) wraps a mail store (`amail_core::stores::MailStore`)
//! and the router's store; tests use [`super::testing::FakeBackend`], an
//! in-memory mailbox.

use std::path::PathBuf;

use amail_core::inbox::Inbox;
use amail_core::router::TaskSummary;

/// The TUI's side effects. Errors are user-facing sentences.
pub trait Backend {
    /// A short description of where mail comes from, for the status bar.
    fn describe(&self) -> String;
    /// Reads the whole inbox (called at start, on reload and on file change).
    fn load(&mut self) -> Result<Inbox, String>;
    /// Brings `inbox` (the one on screen) up to date after the watcher saw
    /// `changed` files change. The default reads everything again; on an
    /// error `inbox` is left as it was.
    fn reload(&mut self, inbox: &mut Inbox, changed: &[PathBuf]) -> Result<(), String> {
        let _ = changed;
        *inbox = self.load()?;
        Ok(())
    }
    /// The task board; `Ok(vec![])` when there is no store.
    fn tasks(&mut self) -> Result<Vec<TaskSummary>, String>;
    /// Records `as_agent`'s ack of each message in `keys`; returns how many
    /// changed (acking twice is a no-op). `inbox` is the one on screen, so
    /// a store that works from a loaded inbox (`MailStore::ack`) need not
    /// read the mailbox again.
    fn ack(&mut self, inbox: &Inbox, keys: &[String], as_agent: &str) -> Result<usize, String>;
    /// Writes a reply to message `key` from `as_agent`; the store decides
    /// its recipients and type (`amail_core::stores::reply_rule`).
    fn reply(&mut self, inbox: &Inbox, key: &str, as_agent: &str, body: &str)
        -> Result<(), String>;
    /// Files and directories whose changes should trigger a reload.
    fn watch_paths(&self) -> Vec<PathBuf>;
    /// How often to reload with no file change (a server polled for new
    /// mail); `None`: only on changes.
    fn poll_interval(&self) -> Option<std::time::Duration> {
        None
    }
}
