//! An mcp_agent_mail storage root: the Git archive of message files
//! (`projects/<slug>/...`) and the SQLite database `storage.sqlite3`, read
//! and written exactly as the server itself does, so the agents see what
//! amail wrote through their normal tools and the server keeps running.
//!
//! - [`db`]: the database (read-only snapshot reads, short write
//!   transactions) in either [`timestamps`] dialect;
//! - [`frontmatter`]: the `---json` envelope of an archive file;
//! - [`locate`]: where the database is (`--db`, `DATABASE_URL`, the
//!   server's `.env`, beside the archive);
//! - `load`: the database's rows joined with the canonical archive files;
//! - `ack`: the server's `acknowledge_message` (database only), every key
//!   of one call in one transaction; `read`: its `mark_message_read`;
//! - `reply`: the server's `reply_message` (database row, then the
//!   [`archive`] copies, thread digest and Git commit, under the server's
//!   own locks); `send`: its `send_message`, the same writes.

mod ack;
pub mod archive;
pub mod db;
pub mod frontmatter;
mod insert;
mod load;
pub mod locate;
mod read;
mod render;
mod reply;
mod send;
pub mod timestamps;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

pub(crate) use load::load_mcp;

use super::error::Error;
use super::store::{
    check_reply, micros, AckOutcome, Draft, MailStore, ReadOutcome, Refresh, ReplyOutcome,
};
use crate::inbox::Inbox;
use crate::source::detect::DB_FILE;

/// An mcp_agent_mail storage root as a [`MailStore`].
#[derive(Debug, Clone)]
pub struct McpStore {
    /// The storage root as the user named it.
    at: PathBuf,
    /// The folder holding `projects/`.
    archive: PathBuf,
    /// The database, when one was found or named.
    db: Option<PathBuf>,
    /// The database was named (`--db`) and may lie outside `at`.
    db_named: bool,
    /// Archive files over this size are problems, not read.
    max_bytes: u64,
}

impl McpStore {
    /// `at`: the storage root as named; `archive`: the folder holding
    /// `projects/` (`at` or its `archive/`); `db`: the database, if found,
    /// with `db_named` when the user named it.
    pub fn new(
        at: PathBuf,
        archive: PathBuf,
        db: Option<PathBuf>,
        db_named: bool,
        max_bytes: u64,
    ) -> Self {
        McpStore {
            at,
            archive,
            db,
            db_named,
            max_bytes,
        }
    }

    /// Where writes go: the database found, else where it should be (a
    /// write then fails naming it; nothing is created).
    fn db_path(&self) -> PathBuf {
        self.db
            .clone()
            .unwrap_or_else(|| self.archive.join(DB_FILE))
    }

    /// The SOURCE as `amail threads` takes it: the root as named, and
    /// `--db DB` when the root alone would not lead to this database.
    fn source(&self) -> String {
        let db = self.db_path();
        let found = match super::detect_store(&self.at, None) {
            Ok(crate::source::Detected::McpStore { db: Some(d), .. }) => {
                std::fs::canonicalize(d).ok()
            }
            _ => None,
        };
        if found.is_some() && found == std::fs::canonicalize(&db).ok() {
            self.at.display().to_string()
        } else {
            format!("{} --db {}", self.at.display(), db.display())
        }
    }
}

impl MailStore for McpStore {
    fn describe(&self) -> String {
        self.at.display().to_string()
    }

    /// Looked for in the database, listed from the root as named.
    fn not_found(&self, key: &str) -> Error {
        Error::not_found(key, self.db_path().display().to_string(), self.source())
    }

    fn load(&self) -> Result<Inbox, Error> {
        self.load_with_progress(&|_, _| ())
    }

    fn load_with_progress(&self, progress: &dyn Fn(usize, usize)) -> Result<Inbox, Error> {
        load_mcp(
            &self.archive,
            self.db.as_deref(),
            self.max_bytes,
            progress,
            None,
        )
    }

    /// Newest messages first: see `load::load_mcp`.
    fn load_in_steps(
        &self,
        progress: &dyn Fn(usize, usize),
        partial: &dyn Fn(Inbox),
    ) -> Result<Inbox, Error> {
        load_mcp(
            &self.archive,
            self.db.as_deref(),
            self.max_bytes,
            progress,
            Some(partial),
        )
    }

    /// The database is the truth: `inbox` is not consulted.
    fn ack(
        &self,
        _inbox: Option<&Inbox>,
        keys: &[String],
        as_agent: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<AckOutcome>, Error> {
        let now = micros(now);
        let db = self.db_path();
        let conn = db::open_read_write(&db).map_err(|e| Error::db(&db, e))?;
        ack::ack(&conn, &db, keys, as_agent, now).map_err(|e| e.listed_by(self.source()))
    }

    /// The database is the truth: `inbox` is not consulted.
    fn mark_read(
        &self,
        _inbox: Option<&Inbox>,
        keys: &[String],
        as_agent: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<ReadOutcome>, Error> {
        let now = micros(now);
        let db = self.db_path();
        let conn = db::open_read_write(&db).map_err(|e| Error::db(&db, e))?;
        read::mark_read(&conn, &db, keys, as_agent, now).map_err(|e| e.listed_by(self.source()))
    }

    fn send(
        &self,
        _inbox: Option<&Inbox>,
        draft: &Draft,
        now: DateTime<Utc>,
    ) -> Result<ReplyOutcome, Error> {
        send::send(&self.archive, &self.db_path(), draft, micros(now))
    }

    /// The database is the truth: `inbox` is not consulted.
    fn reply(
        &self,
        _inbox: Option<&Inbox>,
        key: &str,
        as_agent: &str,
        body: &str,
        now: DateTime<Utc>,
    ) -> Result<ReplyOutcome, Error> {
        check_reply(as_agent, body)?;
        reply::reply(
            &self.archive,
            &self.db_path(),
            key,
            as_agent,
            body,
            micros(now),
        )
        .map_err(|e| e.listed_by(self.source()))
    }

    /// The storage root as named, recursively (archive, and the database
    /// with its `-wal` when they lie inside it), plus the folder of a
    /// database named with `--db` (SQLite writes the `-wal` beside it).
    /// Reads everything again, unless all that changed is what SQLite's
    /// readers leave beside the database: its wal-index (`-shm`), which
    /// every connection rewrites, and an empty WAL, which a reader makes
    /// when there is none. amail's own load left both, so a watched root
    /// read itself again after every load, for good. Mail and acks land
    /// in the WAL (then not empty) or the database file.
    fn refresh(&self, changed: &[PathBuf]) -> Result<Refresh, Error> {
        let traces = self
            .db
            .as_deref()
            .map(|db| (db::side_file(db, "-shm"), db::side_file(db, "-wal")));
        let reader_trace = |p: &PathBuf| {
            traces.as_ref().is_some_and(|(shm, wal)| {
                same_file(p, shm)
                    || (same_file(p, wal) && std::fs::metadata(p).map_or(true, |m| m.len() == 0))
            })
        };
        if !changed.is_empty() && changed.iter().all(reader_trace) {
            return Ok(Refresh::Unchanged);
        }
        Ok(Refresh::Whole(self.load()?))
    }

    fn watch_paths(&self) -> Vec<PathBuf> {
        let mut watch = vec![self.at.clone()];
        if let (true, Some(db)) = (self.db_named, &self.db) {
            watch.push(db.parent().map(PathBuf::from).unwrap_or_else(|| db.clone()));
        }
        watch
    }
}

/// Whether `a` and `b` name one file, however each is spelled (a watcher
/// reports the folder it was given; `--db` may be relative): the same
/// name in the same folder. The file itself need not exist.
fn same_file(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    let folder = |p: &Path| {
        p.parent().and_then(|d| {
            std::fs::canonicalize(if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            })
            .ok()
        })
    };
    a.file_name() == b.file_name() && folder(a).is_some() && folder(a) == folder(b)
}
