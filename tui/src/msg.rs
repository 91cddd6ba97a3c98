//! What can happen to the app ([`Msg`]) and what the app asks the runtime
//! to do ([`Command`]). `update` turns one `Msg` into state changes plus at
//! most one `Command`; the runtime performs it (through the
//! [`super::Backend`]) and feeds the outcome back as another `Msg`.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use ratatui::crossterm::event::KeyEvent;

use super::model::ListsBefore;
// The watcher state is the model's; a `Msg::Watch` carries it.
pub use super::model::WatchState;
use amail_core::inbox::Inbox;
use amail_core::router::TaskSummary;

#[derive(Debug, Clone)]
pub enum Msg {
    Key(KeyEvent),
    /// Mouse wheel: positive scrolls down (only with `mouse = true`).
    Scroll(i8),
    Resize(u16, u16),
    /// The clock moved (ages in lists).
    Tick(DateTime<Utc>),
    /// Something watched changed, but not which files (already debounced):
    /// everything is read again.
    MailChanged,
    /// These watched files changed (a debounced burst): only they are read
    /// again where the backend can (see `Backend::reload`).
    FilesChanged(Vec<PathBuf>),
    /// A load on the worker has read `done` of `total` files, at
    /// `per_sec` files a second so far.
    Progress {
        done: usize,
        total: usize,
        per_sec: u64,
    },
    Loaded {
        inbox: Result<Inbox, String>,
        tasks: Result<Vec<TaskSummary>, String>,
    },
    /// The inbox on screen was brought up to date in place (or not: why).
    /// `before` is what the lists held when the reload was asked for, so
    /// selections survive it as they survive a full load.
    Reloaded {
        before: Box<ListsBefore>,
        inbox: Result<(), String>,
        tasks: Result<Vec<TaskSummary>, String>,
    },
    Acked {
        agent: String,
        done: usize,
        errors: Vec<String>,
    },
    /// A reply to message `key` was written (or not).
    Replied {
        key: String,
        result: Result<(), String>,
    },
    /// `$EDITOR` returned: the text, or why it failed.
    EditorClosed(Result<String, String>),
    Watch(WatchState),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Load,
    /// Bring the inbox on screen up to date after `changed` files changed.
    Reload {
        changed: Vec<PathBuf>,
        before: Box<ListsBefore>,
    },
    Ack {
        keys: Vec<String>,
        agent: String,
    },
    Reply {
        key: String,
        agent: String,
        body: String,
    },
    /// Suspend the terminal and edit `initial` in `$EDITOR`.
    Editor {
        initial: String,
    },
    Quit,
}
