//! Auto-detection of a source path: plain mailbox directory or
//! mcp_agent_mail storage root; and what is neither, an AOF task store,
//! which the walker leaves out of a mailbox and a command refuses as one.

use std::path::{Path, PathBuf};

use crate::aof::TaskStatus;

/// What a path turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detected {
    /// A directory of mail files.
    Mailbox { root: PathBuf },
    /// An mcp_agent_mail archive: `archive` is the folder holding
    /// `projects/`; `db` is the SQLite database if one was found.
    McpStore {
        archive: PathBuf,
        db: Option<PathBuf>,
    },
}

/// The database file name both server implementations use by default.
pub const DB_FILE: &str = "storage.sqlite3";

/// Decides what `path` is. `db` (from `--db`) wins over any database found
/// next to the archive.
///
/// Accepted mcp_agent_mail layouts:
/// - the storage root itself (it has `projects/`), with the database inside
///   it (Rust port default) or in its parent (a clone dir holding both);
/// - a folder holding `archive/` (with `projects/`) and `storage.sqlite3`,
///   as the sample generator writes.
///
/// Anything else that is a directory is a plain mailbox.
pub fn detect(path: &Path, db: Option<&Path>) -> Result<Detected, String> {
    let meta = std::fs::metadata(path)
        .map_err(|e| format!("{}: {}", path.display(), crate::fsio::reason_at(path, &e)))?;
    if !meta.is_dir() {
        return Err(format!(
            "{}: not a directory; give a mailbox directory or an mcp_agent_mail storage root \
             (pipe JSON with `-` to read one file)",
            path.display()
        ));
    }
    if is_task_store_dir(path) {
        return Err(format!("{}: {}", path.display(), not_a_mailbox(path)));
    }
    let found_db = |candidates: &[PathBuf]| -> Option<PathBuf> {
        if let Some(db) = db {
            return Some(db.to_path_buf());
        }
        candidates.iter().find(|c| c.is_file()).cloned()
    };
    match archive_of(path) {
        Some(archive) if archive == path => {
            let mut candidates = vec![path.join(DB_FILE)];
            if let Some(parent) = path.parent() {
                candidates.push(parent.join(DB_FILE));
            }
            Ok(Detected::McpStore {
                archive,
                db: found_db(&candidates),
            })
        }
        Some(archive) => {
            let candidates = [path.join(DB_FILE), archive.join(DB_FILE)];
            Ok(Detected::McpStore {
                db: found_db(&candidates),
                archive,
            })
        }
        None => Ok(Detected::Mailbox {
            root: path.to_path_buf(),
        }),
    }
}

/// The mcp_agent_mail archive (the folder holding `projects/`) when `path`
/// is a storage root in one of the layouts [`detect`] accepts: `path`
/// itself, or its `archive/`. The walker asks this too, so what is read as
/// a storage root is decided in one place.
pub(crate) fn archive_of(path: &Path) -> Option<PathBuf> {
    if path.join("projects").is_dir() {
        return Some(path.to_path_buf());
    }
    let archive = path.join("archive");
    archive.join("projects").is_dir().then_some(archive)
}

/// What a command says of a task store named where mail was asked for.
pub fn not_a_mailbox(dir: &Path) -> String {
    format!(
        "an AOF task store, not mail: `amail tasks --store {}` shows its tasks",
        crate::safe_text::shell_arg(dir)
    )
}

/// Whether `dir` is an AOF task store: a `tasks/` folder holding one of
/// AOF's status folders (a folder merely named `tasks` is any folder).
pub(crate) fn is_task_store_dir(dir: &Path) -> bool {
    let tasks = dir.join("tasks");
    is_real_dir(&tasks)
        && TaskStatus::ALL
            .iter()
            .any(|s| is_real_dir(&tasks.join(s.as_str())))
}

/// A directory, not a symlink to one (the walk does not enter those).
pub(crate) fn is_real_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}
