//! What the footer and the status bar say besides the lists: the notice,
//! the live refresh, a server's link, where the mail comes from.

use amail_core::inbox::SourceKind;

/// A one-line message for the user in the footer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub text: String,
    pub error: bool,
    /// How many bytes at the end of `text` tell which key to press: a
    /// footer too narrow for the whole cuts the description before them,
    /// never them (cut at the edge, the quit warning lost its key).
    pub keep: usize,
}

impl Notice {
    /// A notice with no key to keep whole; `error` draws it as a failure.
    pub(crate) fn new(text: impl Into<String>, error: bool) -> Notice {
        Notice {
            text: text.into(),
            error,
            keep: 0,
        }
    }

    /// What happened, as news.
    pub(crate) fn info(text: impl Into<String>) -> Notice {
        Notice::new(text, false)
    }

    /// What failed or was refused.
    pub(crate) fn error(text: impl Into<String>) -> Notice {
        Notice::new(text, true)
    }

    /// `what` then `keys`, the part that names the key to press (kept
    /// whole on a narrow footer).
    pub(crate) fn keyed(what: String, keys: &str, error: bool) -> Notice {
        Notice {
            keep: keys.len(),
            text: what + keys,
            error,
        }
    }
}

/// Whether live refresh is running, shown in the status bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchState {
    /// Not started yet (tests, or before the first event loop turn).
    Off,
    /// Its watches are being added (a big tree takes a while), behind
    /// the first frame.
    Starting,
    Watching,
    /// Watching failed; the reason, and reload is manual (`R`).
    Failed(String),
}

/// A polled store's (a server's) connection, as the last poll found it.
/// A poll that fails shows why in the status bar (the line under the
/// panes has the whole sentence); the next poll tries again (the store
/// reconnects), and the first that succeeds shows the link up again.
/// Nothing on screen is dropped meanwhile: the inbox stays as last read,
/// drafts stay in their editors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    Up,
    /// Nothing answered, or not in time.
    Down,
    /// The server answered and refused the token (401, or 403 for what
    /// the token may not do): asking again with the same token will not
    /// help, so the status bar does not call it unreachable. Polls go on,
    /// so a fix on the server's side still brings the link up.
    Refused,
    /// The server answered with another error (its tool failed, an
    /// answer that is not an MCP Agent Mail server's, a release without
    /// a tool): not unreachable; it may pass on a later poll.
    Failing,
}

impl Link {
    /// The link after a failed load or poll, by how asking the server
    /// failed (a read error that is no server's is an answer gone wrong).
    pub fn after_error(error: &crate::msg::ReadError) -> Link {
        use amail_core::stores::ServerFailure;
        match error.server {
            Some(ServerFailure::Refused) => Link::Refused,
            Some(ServerFailure::Unreachable) => Link::Down,
            Some(ServerFailure::Answered) | None => Link::Failing,
        }
    }
}

pub(crate) fn describe_source(s: &SourceKind) -> String {
    match s {
        SourceKind::Mailbox { root } => root.display().to_string(),
        SourceKind::McpStore { root, .. } => root.display().to_string(),
        SourceKind::Stdin => "stdin".into(),
        SourceKind::Server { url } => url.clone(),
    }
}
