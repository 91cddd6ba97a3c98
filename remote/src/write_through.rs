//! [`WriteThrough`]: a storage root read from the disk, written through
//! the server that owns it. When the config names a running server for a
//! storage root (`[[servers]]`), amail still reads the root's files and
//! database (fast, and the same view the agents' tools have), but every
//! ack, mark-read, reply and new message is that server's own tool call,
//! so the server's rules (tokens, cross-project replies, its commit lock)
//! apply and nothing is written behind its back.
//!
//! A configured server that does not answer is an error, never a silent
//! fallback to writing the files: the line names the server, says nothing
//! was written, and how to write directly (remove the `[[servers]]` entry).

use std::borrow::Cow;
use std::path::PathBuf;
use std::time::Duration;

use amail_core::inbox::Inbox;
use amail_core::stores::{AckOutcome, Draft, Error, MailStore, ReadOutcome, Refresh, ReplyOutcome};
use chrono::{DateTime, Utc};

use crate::ServerStore;

/// A local store whose writes go through a server.
pub struct WriteThrough {
    local: Box<dyn MailStore>,
    server: ServerStore,
    /// Where the rule comes from (the config file), for the error line.
    rule: String,
}

impl WriteThrough {
    /// Reads from `local`, writes through `server`; `rule` names where the
    /// pairing is configured (the config file's path).
    pub fn new(local: Box<dyn MailStore>, server: ServerStore, rule: String) -> WriteThrough {
        WriteThrough {
            local,
            server,
            rule,
        }
    }

    /// A server error of a write, with what it means here.
    fn explain(&self, e: Error) -> Error {
        let explained = |msg: String| {
            format!(
                "{msg} [{} writes through this server ({}); nothing was written: start the \
                 server, or remove its [[servers]] entry to write into the files directly]",
                self.local.describe(),
                self.rule
            )
        };
        match e {
            Error::Source(msg) => Error::Source(explained(msg)),
            Error::Server { message, failure } => Error::Server {
                message: explained(message),
                failure,
            },
            other => other,
        }
    }
}

impl MailStore for WriteThrough {
    fn describe(&self) -> String {
        format!(
            "{} (writes through {})",
            self.local.describe(),
            self.server.describe()
        )
    }

    /// The ids are the local store's (it is what is read).
    fn not_found(&self, key: &str) -> Error {
        self.local.not_found(key)
    }

    fn load(&self) -> Result<Inbox, Error> {
        self.local.load()
    }

    fn load_with_progress(&self, progress: &dyn Fn(usize, usize)) -> Result<Inbox, Error> {
        self.local.load_with_progress(progress)
    }

    fn reload(&self, inbox: &mut Inbox, changed: &[PathBuf]) -> Result<(), Error> {
        self.local.reload(inbox, changed)
    }

    fn refresh(&self, changed: &[PathBuf]) -> Result<Refresh, Error> {
        self.local.refresh(changed)
    }

    fn ack(
        &self,
        inbox: Option<&Inbox>,
        keys: &[String],
        as_agent: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<AckOutcome>, Error> {
        let inbox = self.held(inbox)?;
        self.server
            .ack(Some(&inbox), keys, as_agent, now)
            .map_err(|e| self.explain(e))
    }

    fn mark_read(
        &self,
        inbox: Option<&Inbox>,
        keys: &[String],
        as_agent: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<ReadOutcome>, Error> {
        let inbox = self.held(inbox)?;
        self.server
            .mark_read(Some(&inbox), keys, as_agent, now)
            .map_err(|e| self.explain(e))
    }

    fn reply(
        &self,
        inbox: Option<&Inbox>,
        key: &str,
        as_agent: &str,
        body: &str,
        now: DateTime<Utc>,
    ) -> Result<ReplyOutcome, Error> {
        let inbox = self.held(inbox)?;
        self.server
            .reply(Some(&inbox), key, as_agent, body, now)
            .map_err(|e| self.explain(e))
    }

    fn send(
        &self,
        inbox: Option<&Inbox>,
        draft: &Draft,
        now: DateTime<Utc>,
    ) -> Result<ReplyOutcome, Error> {
        self.server
            .send(inbox, draft, now)
            .map_err(|e| self.explain(e))
    }

    fn watch_paths(&self) -> Vec<PathBuf> {
        self.local.watch_paths()
    }

    fn poll_interval(&self) -> Option<Duration> {
        self.local.poll_interval()
    }
}

impl WriteThrough {
    /// The messages a write names, as the files hold them (their ids are
    /// the server's, their project its slug): the caller's inbox, else the
    /// root read now, so the server store needs no read of its own.
    fn held<'a>(&self, inbox: Option<&'a Inbox>) -> Result<Cow<'a, Inbox>, Error> {
        match inbox {
            Some(i) => Ok(Cow::Borrowed(i)),
            None => self.local.load().map(Cow::Owned),
        }
    }
}
