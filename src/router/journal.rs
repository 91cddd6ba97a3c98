//! The redo journal: how one routed message becomes all-or-nothing.
//!
//! Handling a message touches several files (the task file, its move
//! between status directories, run artifacts, handoff artifacts, the bead
//! index, the dedupe marker, the event log). Rather than make each step
//! individually safe, the router first computes every step in memory as a
//! [`Plan`], writes the plan atomically to `state/amail/journal.json`, then
//! applies it and deletes the journal. Every step is idempotent, so after a
//! crash the next process that takes the store lock simply applies the
//! journal again from the start. A crash before the journal is written
//! leaves the store untouched; a crash after it leaves a journal that
//! completes the message. Either way no task ends up in two status
//! directories and no transition is logged twice.

use std::fs;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::events::{self, Event};
use super::fsio;

/// One idempotent step. Paths are relative to the project root.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum Op {
    /// Atomically replace a file's content.
    Write { path: String, content: String },
    /// Move a directory; when the target exists, merge into it.
    MoveDir { from: String, to: String },
    /// Remove a file if it exists.
    Remove { path: String },
    /// Create a directory and its parents.
    Mkdir { path: String },
    /// Append events (ids already present are skipped).
    Events { events: Vec<Event> },
}

/// The steps of one message, in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub ops: Vec<Op>,
}

pub const JOURNAL: &str = "state/amail/journal.json";

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Journals the plan, applies it, and clears the journal.
    pub fn commit(&self, root: &Path) -> io::Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        let text = serde_json::to_string(self).map_err(io::Error::other)?;
        fsio::crash_point();
        fsio::write_atomic(&root.join(JOURNAL), text.as_bytes())?;
        self.apply(root)?;
        fsio::crash_point();
        fsio::remove_file(&root.join(JOURNAL))
    }

    /// Applies every step; safe to repeat.
    pub fn apply(&self, root: &Path) -> io::Result<()> {
        for op in &self.ops {
            match op {
                Op::Write { path, content } => {
                    fsio::crash_point();
                    fsio::write_atomic(&root.join(path), content.as_bytes())?;
                }
                Op::MoveDir { from, to } => {
                    let (from, to) = (root.join(from), root.join(to));
                    if from.is_dir() {
                        fsio::crash_point();
                        move_merge(&from, &to)?;
                    }
                }
                Op::Remove { path } => {
                    let p = root.join(path);
                    if p.exists() {
                        fsio::crash_point();
                        fsio::remove_file(&p)?;
                    }
                }
                Op::Mkdir { path } => fsio::create_dirs(&root.join(path))?,
                Op::Events { events: evs } => events::append(&root.join("events"), evs)?,
            }
        }
        Ok(())
    }
}

/// Completes an interrupted message, if one left a journal. Returns whether
/// there was one. Called with the store lock held.
pub fn recover(root: &Path) -> io::Result<bool> {
    let path = root.join(JOURNAL);
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    // The journal is written atomically, so it is whole or absent; a
    // journal that still does not parse cannot be replayed and is set aside
    // for a human rather than deleted.
    match serde_json::from_str::<Plan>(&text) {
        Ok(plan) => {
            plan.apply(root)?;
            fsio::remove_file(&path)?;
        }
        Err(_) => {
            fs::rename(&path, path.with_extension("json.bad"))?;
        }
    }
    Ok(true)
}

/// Renames `from` to `to`; when `to` exists, moves `from`'s entries into it
/// (replacing files of the same name) and removes `from`.
pub fn move_merge(from: &Path, to: &Path) -> io::Result<()> {
    if !to.exists() {
        if let Some(parent) = to.parent() {
            fsio::create_dirs(parent)?;
        }
        fs::rename(from, to)?;
        fsio::sync_dir(fsio::parent_of(from))?;
        return fsio::sync_dir(fsio::parent_of(to));
    }
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() && target.is_dir() {
            move_merge(&entry.path(), &target)?;
        } else {
            fs::rename(entry.path(), &target)?;
        }
    }
    fsio::sync_dir(to)?;
    fs::remove_dir(from)?;
    fsio::sync_dir(fsio::parent_of(from))
}
