//! What can go wrong loading an inbox or writing an ack or a reply, in
//! any store: one error type, so the CLI maps every store's failures to the
//! same exit codes and the TUI shows them the same way.

use std::path::PathBuf;

/// A store error. Every variant's text names the file or message involved
/// and, where it helps, what to do.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: {message}", path.display())]
    Db {
        path: PathBuf,
        message: String,
        /// Another connection held the database (SQLite busy or locked).
        locked: bool,
    },
    /// The source path is not something we can read.
    #[error("{0}")]
    Source(String),
    /// `where_` is where it was looked for; `listing` what `amail
    /// threads` is given to list the ids there ([`Error::not_found`]);
    /// `near` the one id there that `key` is a slip from
    /// ([`Error::near_miss`]). The text form of `amail threads` names
    /// threads, not messages: `--json` is what lists the ids.
    #[error("no message {key} in {where_}{}; `amail threads {listing} --json` lists the ids", amail_parser::near::did_you_mean(.near.as_deref()))]
    NotFound {
        key: String,
        where_: String,
        listing: String,
        near: Option<String>,
    },
    /// `near`: the recipient `agent` is a slip from
    /// ([`crate::inbox::SourceKind::agent_near`]).
    #[error("{agent}{} is not a recipient of message {key} (recipients: {recipients}); use --as with one of them", amail_parser::near::did_you_mean(.near.as_deref()))]
    NotRecipient {
        key: String,
        agent: String,
        recipients: String,
        near: Option<String>,
    },
    /// A reply `--as` an agent who neither sent nor received the message:
    /// bad input, as [`Error::NotRecipient`] is for an ack (not a usage
    /// error, which it was until a reply through a live server showed the
    /// two commands disagreeing: exit 2 against ack's 1).
    /// `near`: the one of `party` that `agent` is a slip from.
    #[error("{agent}{} is neither the sender nor a recipient of message {key} ({party}); reply --as one of them", amail_parser::near::did_you_mean(.near.as_deref()))]
    NotParty {
        key: String,
        agent: String,
        party: String,
        near: Option<String>,
    },
    /// The operation cannot be done on this source (e.g. writing to stdin).
    #[error("{0}")]
    Unsupported(String),
    /// Bad arguments, whatever the store holds (an empty body, an empty
    /// `--as`, ...): a usage error.
    #[error("{0}")]
    Invalid(String),
    /// What was asked does not fit what the store holds: a name that is
    /// none of its agents, a message with no one to reply to, no project
    /// with all of them, a stored name that cannot become a path. Bad
    /// input, as an unknown id is; it was [`Error::Invalid`] (exit 2)
    /// until `amail reply --as` a stranger on a storage root exited 2
    /// where a mailbox and `ack` exited 1.
    #[error("{0}")]
    Rejected(String),
    /// A mail server was asked and the asking failed: `message` is the
    /// sentence, `failure` how it failed, so what shows the link's state
    /// (the inbox's status bar) reads the kind, not the words.
    #[error("{message}")]
    Server {
        message: String,
        failure: ServerFailure,
    },
}

/// How asking a server failed, as far as it matters to whoever asked
/// again: a refused token stays refused, an absent server may come back,
/// a server that answered with an error may not fail next time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerFailure {
    /// It answered 401 or 403: the token (or its rights) is the matter.
    Refused,
    /// Nothing answered there, or not in time.
    Unreachable,
    /// It answered, with an error of its tool, an answer that is not
    /// MCP Agent Mail's, or a release without what was asked.
    Answered,
}

/// A name a write would go by (an agent's, a project's slug) or go into
/// (a thread, a bead, a topic) that was not UTF-8 where it was read, a
/// file or a database row: shown with U+FFFD, which is not the name as
/// written, so nothing is written by it, to it or into it (a reply to it
/// would reach no agent, a copy no project's folder, an answer no
/// thread or task that matches the bytes as written).
#[derive(Debug)]
pub(crate) struct NameNotUtf8 {
    /// `its sender's name`.
    pub what: &'static str,
    /// The name as shown.
    pub shown: String,
    /// `in the database`, `where it was read`.
    pub place: &'static str,
    /// What is refused: [`NameNotUtf8::BY_OR_TO`] for an agent or project,
    /// [`NameNotUtf8::INTO`] for where a reply or new message is filed.
    pub unwritten: &'static str,
}

impl std::fmt::Display for NameNotUtf8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} \"{}\" was not UTF-8 {} (shown with U+FFFD), so {}; nothing was changed",
            self.what,
            crate::safe_text::clean_line(&self.shown),
            self.place,
            self.unwritten
        )
    }
}

impl std::error::Error for NameNotUtf8 {}

impl NameNotUtf8 {
    /// An agent's or a project's name: nothing goes by it or to it.
    pub(crate) const BY_OR_TO: &'static str = "nothing is written by it or to it";
    /// A thread, bead or topic: a reply or new message would be filed
    /// where the original is not, for whoever matches the bytes as
    /// written.
    pub(crate) const INTO: &'static str = "nothing is written into it";

    /// `shown`, read from a database row.
    pub(crate) fn in_database(what: &'static str, shown: String) -> NameNotUtf8 {
        NameNotUtf8 {
            what,
            shown,
            place: "in the database",
            unwritten: Self::BY_OR_TO,
        }
    }

    /// The write's error: refused, naming the database.
    pub(crate) fn refused_in(&self, db: &std::path::Path) -> Error {
        Error::Rejected(format!("{}: {self}", db.display()))
    }
}

impl Error {
    /// No message `key` in `where_`, whose ids `amail threads source`
    /// lists: `source` is the SOURCE as the user gives it (a mailbox, a
    /// storage root and its `--db DB`, `--server URL`). A bare `amail
    /// threads` reads the default mailbox, never the one that was named.
    pub fn not_found(key: &str, where_: impl Into<String>, source: impl Into<String>) -> Self {
        Error::NotFound {
            key: key.to_string(),
            where_: where_.into(),
            listing: source.into(),
            near: None,
        }
    }

    /// `self`, naming the id of `known` (the ids where it was looked
    /// for) that an unknown id is a slip from, when there is exactly one
    /// ([`amail_parser::near::nearest_id`]). Asked only once the id is
    /// not found: it compares the id with every id there.
    pub fn near_miss<'k>(self, known: impl IntoIterator<Item = &'k str>) -> Self {
        match self {
            Error::NotFound {
                key,
                where_,
                listing,
                near: None,
            } => Error::NotFound {
                near: amail_parser::near::nearest_id(&key, known).map(str::to_owned),
                key,
                where_,
                listing,
            },
            e => e,
        }
    }

    /// `self`, with `source` as what lists the ids when it is an unknown
    /// id: a store's writers know its files, the store how it was named.
    pub(crate) fn listed_by(self, source: impl Into<String>) -> Self {
        match self {
            Error::NotFound {
                key, where_, near, ..
            } => Error::NotFound {
                key,
                where_,
                listing: source.into(),
                near,
            },
            e => e,
        }
    }
}

impl From<crate::fsio::PathError> for Error {
    fn from(e: crate::fsio::PathError) -> Self {
        Error::io(e.path, e.source)
    }
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn db(path: impl Into<PathBuf>, e: rusqlite::Error) -> Self {
        // By SQLite's result code (extended codes such as BUSY_SNAPSHOT
        // included), not its wording.
        let locked = matches!(
            e.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        );
        // A stored name that is not UTF-8 is said alone: its column's
        // number in a query is no help to whoever reads it.
        if let rusqlite::Error::FromSqlConversionFailure(_, _, why) = &e {
            if let Some(name) = why.downcast_ref::<NameNotUtf8>() {
                return name.refused_in(&path.into());
            }
        }
        let mut message = e.to_string();
        if locked {
            message.push_str(
                " (another program is writing to the database; nothing was changed, try again)",
            );
        }
        Error::Db {
            path: path.into(),
            message,
            locked,
        }
    }

    /// `agent` is not among `names`, the recipients of message `key`; the
    /// one it is a slip from is named, case counted unless the store
    /// matches names without regard to it (`ignores_case`,
    /// [`crate::inbox::SourceKind::ignores_case`]).
    pub fn not_recipient<'a>(
        key: &str,
        agent: &str,
        names: impl Iterator<Item = &'a str>,
        ignores_case: bool,
    ) -> Self {
        let names: Vec<&str> = names.collect();
        Error::NotRecipient {
            key: key.to_string(),
            agent: agent.to_string(),
            near: amail_parser::near::nearest_name(agent, names.iter().copied(), ignores_case)
                .map(String::from),
            recipients: if names.is_empty() {
                "none recorded".into()
            } else {
                names.join(", ")
            },
        }
    }

    /// True when the database was busy or locked by another writer: nothing
    /// was written and the same command can simply be run again.
    pub fn is_retryable(&self) -> bool {
        matches!(self, Error::Db { locked: true, .. })
    }

    /// True when the request cannot be made as asked (writing to stdin,
    /// an empty body) whatever the store holds. An unknown id, agent or
    /// recipient is not: that is bad input, like an unreadable store (the
    /// README's exit codes).
    pub fn is_usage(&self) -> bool {
        matches!(self, Error::Invalid(_) | Error::Unsupported(_))
    }
}
