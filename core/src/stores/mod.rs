//! Mail stores: where an inbox is read from and where its acks and replies
//! are written, behind one trait, [`MailStore`] (load, reload changed
//! paths, ack, reply, paths to watch).
//!
//! - [`mailbox`]: a plain directory of mail files; acks go to a journal in
//!   it, replies are new files.
//! - [`mcp`]: an mcp_agent_mail storage root (Git archive and SQLite
//!   database), read and written exactly as the server does.
//! - [`StdinStore`]: JSON piped on stdin, read-only.
//!
//! [`open`] decides which store a path is (`source::detect`) without
//! reading any mail; [`for_source`] gives the store an inbox was loaded
//! from. The TUI's backend and the binary's commands hold a
//! `Box<dyn MailStore>` and never ask which one it is. The free functions
//! here ([`load`], [`ack`], [`reply`], ...) are those two plus one call, for
//! callers that do one thing and exit.
//!
//! Inside, each file has one job and imports flow one way: `store` (the
//! trait) and `error` at the bottom, `names` (path components, slugs) and
//! `read` (one mail file into inbox entries) and `steps` (when a load
//! hands out a partial inbox) above them, then each store's
//! files, then this module, which only wires them. What every store derives
//! from the messages (threads, pending, roster) is the model's (`inbox/`).
//! See `docs/inbox.md` for the choices and their limits.

pub mod draft;
mod error;
pub mod mailbox;
pub mod mcp;
pub mod names;
pub(crate) mod read;
pub mod reply_rule;
mod stdin;
mod steps;
mod store;

use std::path::Path;

use chrono::{DateTime, Utc};

pub use error::{Error, ServerFailure};
pub use mailbox::{load_mailbox, MailboxStore};
pub use mcp::McpStore;
pub use stdin::{load_json_as, load_stdin_as, StdinStore};
pub use steps::FIRST_STEP;
pub use store::{
    AckOutcome, Draft, LoadOptions, MailStore, Patch, ReadOutcome, Refresh, ReplyOutcome,
};

use crate::inbox::{Inbox, SourceKind};
use crate::source::{detect, Detected};

/// The store at `path`: a plain mailbox or an mcp_agent_mail storage root,
/// detected from what `path` holds (see [`crate::source::detect()`]). No mail
/// is read.
pub fn open(path: &Path, opts: &LoadOptions) -> Result<Box<dyn MailStore>, Error> {
    let detected = detect_store(path, opts.db.as_deref()).map_err(Error::Source)?;
    Ok(open_detected(path, detected, opts))
}

/// [`open`] with what `path` holds already found ([`detect_store`]), for
/// a caller that looked at it first.
pub fn open_detected(path: &Path, detected: Detected, opts: &LoadOptions) -> Box<dyn MailStore> {
    match detected {
        Detected::Mailbox { root } => Box::new(MailboxStore::new(root, opts.max_bytes)),
        Detected::McpStore { archive, db } => Box::new(McpStore::new(
            path.to_path_buf(),
            archive,
            db,
            opts.db.is_some(),
            opts.max_bytes,
        )),
    }
}

/// What `path` is ([`crate::source::detect()`]), with the database of a
/// storage root found the way the server finds it when `--db` (`db`) does
/// not name it: `DATABASE_URL`, the server's `.env`, beside the archive
/// (see [`mcp::locate`]).
pub fn detect_store(path: &Path, db: Option<&Path>) -> Result<Detected, String> {
    Ok(match detect(path, db)? {
        Detected::McpStore { archive, db: found } if db.is_none() => Detected::McpStore {
            db: mcp::locate::database(path, &archive, found, &mcp::locate::Env::current()),
            archive,
        },
        other => other,
    })
}

/// The store an inbox with this source was loaded from, to write to it.
/// `max_bytes` bounds what a write reads when it is not given the inbox.
pub fn for_source(source: &SourceKind, max_bytes: u64) -> Box<dyn MailStore> {
    match source {
        SourceKind::Mailbox { root } => Box::new(MailboxStore::new(root.clone(), max_bytes)),
        SourceKind::McpStore { root, db } => Box::new(McpStore::new(
            root.clone(),
            root.clone(),
            Some(db.clone()),
            false,
            max_bytes,
        )),
        SourceKind::Stdin => Box::new(StdinStore {
            max_bytes,
            ..StdinStore::default()
        }),
        // Written through the server store that loaded it (amail-remote);
        // from here only a refusal naming it.
        SourceKind::Server { url } => Box::new(ServerSource(url.clone())),
    }
}

/// A server inbox met without its store: every write is refused with the
/// way to reach it.
struct ServerSource(String);

impl MailStore for ServerSource {
    fn describe(&self) -> String {
        self.0.clone()
    }
    fn load(&self) -> Result<Inbox, Error> {
        Err(self.refuse())
    }
    fn ack(
        &self,
        _: Option<&Inbox>,
        _: &[String],
        _: &str,
        _: DateTime<Utc>,
    ) -> Result<Vec<AckOutcome>, Error> {
        Err(self.refuse())
    }
    fn reply(
        &self,
        _: Option<&Inbox>,
        _: &str,
        _: &str,
        _: &str,
        _: DateTime<Utc>,
    ) -> Result<ReplyOutcome, Error> {
        Err(self.refuse())
    }
    fn watch_paths(&self) -> Vec<std::path::PathBuf> {
        Vec::new()
    }
}

impl ServerSource {
    fn refuse(&self) -> Error {
        Error::Unsupported(format!(
            "{}: mail of a server is read and written through it: give --server {}",
            self.0, self.0
        ))
    }
}

/// Loads a mailbox directory or an mcp_agent_mail storage root.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Inbox, Error> {
    open(path, opts)?.load()
}

/// Acks each of `keys` as `as_agent`, in order, now, reading what is
/// needed now (a plain mailbox with the size limit `max_bytes`). Stops at
/// the first error; acks already recorded stay recorded.
pub fn ack(
    source: &SourceKind,
    keys: &[String],
    as_agent: &str,
    max_bytes: u64,
) -> Result<Vec<AckOutcome>, Error> {
    ack_at(source, keys, as_agent, Utc::now(), max_bytes)
}

/// [`ack`] with a given clock (tests, deterministic demos).
pub fn ack_at(
    source: &SourceKind,
    keys: &[String],
    as_agent: &str,
    now: DateTime<Utc>,
    max_bytes: u64,
) -> Result<Vec<AckOutcome>, Error> {
    for_source(source, max_bytes).ack(None, keys, as_agent, now)
}

/// [`ack`] using an inbox already loaded (the TUI's): a plain mailbox is
/// not read again. The journal and the database are still the truth for
/// "already acked", so a stale inbox cannot cause a double ack.
pub fn ack_loaded(
    inbox: &Inbox,
    keys: &[String],
    as_agent: &str,
) -> Result<Vec<AckOutcome>, Error> {
    for_source(&inbox.source, crate::fsio::DEFAULT_MAX_MESSAGE_BYTES).ack(
        Some(inbox),
        keys,
        as_agent,
        Utc::now(),
    )
}

/// Replies to `key` as `as_agent` with `body`, now, reading what is needed
/// now (a plain mailbox with the size limit `max_bytes`).
pub fn reply(
    source: &SourceKind,
    key: &str,
    as_agent: &str,
    body: &str,
    max_bytes: u64,
) -> Result<ReplyOutcome, Error> {
    reply_at(source, key, as_agent, body, Utc::now(), max_bytes)
}

/// [`reply`] with a given clock.
pub(crate) fn reply_at(
    source: &SourceKind,
    key: &str,
    as_agent: &str,
    body: &str,
    now: DateTime<Utc>,
    max_bytes: u64,
) -> Result<ReplyOutcome, Error> {
    for_source(source, max_bytes).reply(None, key, as_agent, body, now)
}

/// [`reply`] using an inbox already loaded (the TUI's): a plain mailbox is
/// not read again.
pub fn reply_loaded(
    inbox: &Inbox,
    key: &str,
    as_agent: &str,
    body: &str,
) -> Result<ReplyOutcome, Error> {
    for_source(&inbox.source, crate::fsio::DEFAULT_MAX_MESSAGE_BYTES).reply(
        Some(inbox),
        key,
        as_agent,
        body,
        Utc::now(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn opts(db: Option<PathBuf>) -> LoadOptions {
        LoadOptions {
            db,
            ..LoadOptions::default()
        }
    }

    #[test]
    fn open_tells_a_mailbox_from_a_storage_root_and_watches_what_the_user_named() {
        let dir = tempfile::tempdir().unwrap();
        let mail = dir.path().join("mail");
        std::fs::create_dir_all(&mail).unwrap();
        let store = open(&mail, &opts(None)).unwrap();
        assert_eq!(store.describe(), mail.display().to_string());
        assert_eq!(store.watch_paths(), vec![mail.clone()]);
        assert!(matches!(
            store.load().unwrap().source,
            SourceKind::Mailbox { .. }
        ));

        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("projects")).unwrap();
        let store = open(&root, &opts(None)).unwrap();
        assert_eq!(store.describe(), root.display().to_string());
        assert_eq!(store.watch_paths(), vec![root.clone()]);
        // A database named elsewhere: its folder too (SQLite writes the
        // -wal beside it).
        let db = dir.path().join("elsewhere").join("storage.sqlite3");
        let store = open(&root, &opts(Some(db))).unwrap();
        assert_eq!(
            store.watch_paths(),
            vec![root.clone(), dir.path().join("elsewhere")]
        );
    }

    #[test]
    fn open_refuses_a_file_without_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("one.md");
        std::fs::write(&file, "Subject: x\n").unwrap();
        let Err(e) = open(&file, &opts(None)) else {
            panic!("a file is no store");
        };
        assert!(e.to_string().contains("not a directory"), "{e}");
    }

    #[test]
    fn a_mailbox_reloads_an_inbox_from_elsewhere_in_full() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("1.md"),
            "Subject: [b1] PROGRESS\nFrom: A\nTo: B\n\nBody:\nhi\n",
        )
        .unwrap();
        let store = open(dir.path(), &opts(None)).unwrap();
        // What the TUI holds before its first load succeeds.
        let mut inbox = stdin::load_json(b"[]").unwrap();
        store.reload(&mut inbox, &[]).unwrap();
        assert_eq!(inbox, store.load().unwrap());
        assert_eq!(inbox.messages.len(), 1);
    }

    /// The TUI lets go of its parses between frames
    /// (`Inbox::let_go_of_parses`): that takes with it the messages of a
    /// file of many that the first read of one of them kept for the rest
    /// (`inbox::reparse`), which would otherwise stay on the thread until
    /// it next parsed such a file.
    #[test]
    fn letting_go_of_an_inbox_parses_lets_go_of_a_files_kept_messages() {
        let dir = tempfile::tempdir().unwrap();
        let lines: String = (0..40)
            .map(|i| {
                format!(
                    r#"{{"subject":"[k-{i}] PROGRESS","from":"A","to":["B"],"body_md":"Bead: k-{i}\nStep: {i}"}}"#
                ) + "\n"
            })
            .collect();
        std::fs::write(dir.path().join("export.jsonl"), lines).unwrap();
        let mut inbox = load(dir.path(), &opts(None)).unwrap();
        assert_eq!(inbox.messages.len(), 40);
        let first = inbox.messages[0].message.full().parsed.bead_id.clone();
        assert!(first.is_some_and(|b| b.starts_with("k-")));
        // The one read, and the 39 kept for the others' first reads.
        assert_eq!(inbox.let_go_of_parses(), 40);
        // Nothing left, kept or held.
        assert_eq!(inbox.let_go_of_parses(), 0);
    }

    #[test]
    fn stdin_is_read_only_whatever_is_asked() {
        let store = for_source(&SourceKind::Stdin, 1024);
        let now = Utc::now();
        let ack = store.ack(None, &["1".into()], "A", now).unwrap_err();
        assert!(
            ack.is_usage() && ack.to_string().contains("read-only"),
            "{ack}"
        );
        let reply = store.reply(None, "1", "A", "text", now).unwrap_err();
        assert!(reply.to_string().contains("read-only"), "{reply}");
        assert!(store.watch_paths().is_empty());
    }
}
