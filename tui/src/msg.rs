//! What can happen to the app ([`Msg`]) and what the app asks the runtime
//! to do ([`Command`]). `update` turns one `Msg` into state changes plus at
//! most one `Command`; the runtime performs it (through the
//! [`super::Backend`]) and feeds the outcome back as another `Msg`.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use ratatui::crossterm::event::KeyEvent;

// The watcher state is the model's; a `Msg::Watch` carries it.
pub use super::model::WatchState;
use amail_core::inbox::Inbox;
use amail_core::router::mailbox::Mailbox;
use amail_core::router::Board;
use amail_core::stores::{Refresh, ServerFailure};

/// What a review decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Approved,
    Rejected,
}

#[derive(Debug, Clone)]
pub enum Msg {
    Key(KeyEvent),
    /// Mouse wheel over the focused pane: positive scrolls down (only
    /// with `mouse = true`).
    Scroll(i8),
    /// Mouse wheel at column `x`, row `y`: scrolls the pane under the
    /// pointer.
    ScrollAt {
        x: u16,
        y: u16,
        lines: i8,
    },
    /// Left click at column `x`, row `y`: selects the tab or row there.
    Click {
        x: u16,
        y: u16,
    },
    Resize(u16, u16),
    /// The clock moved (ages in lists).
    Tick(DateTime<Utc>),
    /// The `/` search's count is done, and typing left the first match to
    /// it (`Model::search_settle_due`).
    SearchCounted,
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
    /// A load on the worker has read the newest messages of a large
    /// mailbox: a browsable inbox of them, shown while the rest loads (the
    /// whole one comes as [`Msg::Loaded`]).
    Partial(Box<Inbox>),
    Loaded {
        inbox: Result<Inbox, ReadError>,
        tasks: Result<Board, String>,
    },
    /// What changed files hold now (or why they could not be read), to
    /// apply to the inbox on screen. Selections survive it as they survive
    /// a full load: they are taken where the lists stand when it arrives,
    /// so a selection moved while the worker read stays moved.
    Reloaded {
        refresh: Result<Refresh, ReadError>,
        tasks: Result<Board, String>,
    },
    Acked {
        agent: String,
        done: usize,
        errors: Vec<String>,
    },
    /// Messages were marked read (how many changed), or why not.
    MarkedRead {
        agent: String,
        result: Result<usize, String>,
    },
    /// A new message was written (or not).
    Sent {
        to: Vec<String>,
        result: Result<(), String>,
    },
    /// A reply to message `key` was written (or not).
    Replied {
        key: String,
        result: Result<(), String>,
    },
    /// A mail file was read for `v` (or why not).
    FileRead {
        path: PathBuf,
        text: Result<String, String>,
    },
    /// A task in review was approved or rejected (the backend's sentence),
    /// or why not.
    Reviewed {
        id: String,
        verdict: Verdict,
        result: Result<String, String>,
    },
    /// An agent's three task queues for the agents view (or why not).
    MailboxRead {
        agent: String,
        result: Result<Mailbox, String>,
    },
    /// `$EDITOR` returned: the text, or why it failed.
    EditorClosed(Result<String, String>),
    /// Ctrl-Z's stop was dropped: no job-control shell could `fg` the
    /// process (the kernel drops a stop in an orphaned process group).
    NotSuspended,
    Watch(WatchState),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Load,
    /// Bring the inbox on screen up to date after `changed` files changed.
    Reload {
        changed: Vec<PathBuf>,
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
    MarkRead {
        keys: Vec<String>,
        agent: String,
    },
    Send(Box<amail_core::stores::Draft>),
    /// Read a mail file for the raw view.
    ReadFile {
        path: PathBuf,
    },
    /// `A`: approve task `id` in review (review -> done).
    Approve {
        id: String,
    },
    /// `X`: send task `id` in review back to work with `reason`.
    Reject {
        id: String,
        reason: String,
    },
    /// Read `agent`'s three task queues (the agents view).
    Mailbox {
        agent: String,
    },
    /// Suspend the terminal and edit `initial` in `$EDITOR`.
    Editor {
        initial: String,
    },
    /// Ctrl-Z: give the terminal back and stop, as a shell's job; `fg`
    /// takes it again.
    Suspend,
    Quit,
}

impl Command {
    /// Writes what the user asked for (an ack, a read mark, a reply, a new
    /// message, a review): quitting waits for these, never for a read.
    pub fn writes(&self) -> bool {
        match self {
            Command::Ack { .. }
            | Command::MarkRead { .. }
            | Command::Reply { .. }
            | Command::Send(_)
            | Command::Approve { .. }
            | Command::Reject { .. } => true,
            Command::Load
            | Command::Reload { .. }
            | Command::ReadFile { .. }
            | Command::Mailbox { .. }
            | Command::Editor { .. }
            | Command::Suspend
            | Command::Quit => false,
        }
    }
}

/// Why mail could not be read: the sentence the user reads and, when a
/// server was asked, how asking it failed. The status bar's link state
/// (`model::Link`) comes from the kind, not from the sentence's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    pub text: String,
    pub server: Option<ServerFailure>,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl From<String> for ReadError {
    fn from(text: String) -> ReadError {
        ReadError { text, server: None }
    }
}

impl From<&str> for ReadError {
    fn from(text: &str) -> ReadError {
        ReadError::from(text.to_string())
    }
}

impl From<amail_core::stores::Error> for ReadError {
    fn from(e: amail_core::stores::Error) -> ReadError {
        let server = match &e {
            amail_core::stores::Error::Server { failure, .. } => Some(*failure),
            _ => None,
        };
        ReadError {
            text: e.to_string(),
            server,
        }
    }
}
