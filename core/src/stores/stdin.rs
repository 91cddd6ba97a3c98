//! JSON piped on stdin (`amail threads -`): `fetch_inbox` output (a bare
//! list or `{"result": [...]}`), a message object, or JSON Lines. A store
//! that only reads: there is nowhere to write an ack or a reply back to.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::PathBuf;

use amail_parser::ParseOptions;
use chrono::{DateTime, Utc};

use super::error::Error;
use super::read::{recipients_from, unique_key};
use super::store::{check_reply, AckOutcome, MailStore, ReplyOutcome};
use crate::inbox::{build, Inbox, InboxMessage, SourceKind};

/// Stdin as a [`MailStore`]: loads once, refuses acks and replies.
#[derive(Debug, Clone, Default)]
pub struct StdinStore {
    /// Whose inbox piped `fetch_inbox` JSON is (see [`load_stdin_as`]).
    pub viewer: Option<String>,
    /// At most this many bytes are read.
    pub max_bytes: u64,
}

impl MailStore for StdinStore {
    fn describe(&self) -> String {
        "stdin".into()
    }

    fn load(&self) -> Result<Inbox, Error> {
        load_stdin_as(self.viewer.as_deref(), self.max_bytes)
    }

    fn ack(
        &self,
        _inbox: Option<&Inbox>,
        _keys: &[String],
        _as_agent: &str,
        _now: DateTime<Utc>,
    ) -> Result<Vec<AckOutcome>, Error> {
        Err(Error::Unsupported(
            "JSON read from stdin is read-only: ack in the mailbox or store it came from".into(),
        ))
    }

    fn reply(
        &self,
        _inbox: Option<&Inbox>,
        _key: &str,
        as_agent: &str,
        body: &str,
        _now: DateTime<Utc>,
    ) -> Result<ReplyOutcome, Error> {
        check_reply(as_agent, body)?;
        Err(Error::Unsupported(
            "JSON read from stdin is read-only: reply in the mailbox or store it came from".into(),
        ))
    }

    fn watch_paths(&self) -> Vec<PathBuf> {
        Vec::new()
    }
}

/// Loads JSON read from stdin, of at most `max_bytes`. Read-only.
pub fn load_stdin(max_bytes: u64) -> Result<Inbox, Error> {
    load_stdin_as(None, max_bytes)
}

/// [`load_stdin`] for a viewer: `fetch_inbox` output is one agent's inbox
/// and names no recipients, so messages without any are taken as addressed
/// to `viewer` (with unknown read/ack state: the Python server's
/// `fetch_inbox` does not report it).
pub fn load_stdin_as(viewer: Option<&str>, max_bytes: u64) -> Result<Inbox, Error> {
    let buf = crate::fsio::read_limited(std::io::stdin().lock(), max_bytes)
        .map_err(|e| Error::io("<stdin>", e))?;
    load_json_as(&buf, viewer)
}

/// Loads a JSON document held in memory, as [`load_stdin`] does.
pub fn load_json(bytes: &[u8]) -> Result<Inbox, Error> {
    load_json_as(bytes, None)
}

/// Loads a JSON document held in memory, as [`load_stdin_as`] does.
pub fn load_json_as(bytes: &[u8], viewer: Option<&str>) -> Result<Inbox, Error> {
    let mut problems = Vec::new();
    let mut loaded = Vec::new();
    match amail_parser::parse_bytes(bytes, &ParseOptions::default()) {
        Ok(messages) => {
            let mut seen = HashSet::new();
            for (n, m) in messages.into_iter().enumerate() {
                let key = unique_key(m.id.as_deref(), || format!("stdin#{}", n + 1), &mut seen);
                let mut recipients = recipients_from(&m.to, &m.cc, &[]);
                if let (true, Some(v)) = (recipients.is_empty(), viewer) {
                    recipients = recipients_from(&[Cow::Owned(v.to_string())], &[], &[]);
                }
                loaded.push(InboxMessage {
                    key,
                    project: m.project.as_deref().map(str::to_owned),
                    message: m,
                    path: None,
                    recipients,
                    thread: 0,
                });
            }
        }
        Err(e) => problems.push((PathBuf::from("<stdin>"), e.to_string())),
    }
    Ok(build(SourceKind::Stdin, loaded, problems))
}
