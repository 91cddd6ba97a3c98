//! The write-ahead log: how one routed message becomes all-or-nothing, and
//! durable with one fsync.
//!
//! Handling a message touches several files (the task file, its move
//! between status directories, run artifacts, handoff artifacts, the bead
//! index, the dedupe marker, the event log). The router first computes every
//! step in memory as a `Plan`, appends the plan as one line to
//! `state/amail/wal.jsonl` and fsyncs it, and only then applies the steps.
//! Every step is idempotent and states its full result (whole file
//! contents, not edits), so replaying the log from the start, in order,
//! always ends in the state the last plan left.
//!
//! The steps themselves are written without fsync (atomically: temp file +
//! rename, so readers never see a torn file); the log is what makes them
//! durable. A *checkpoint* flushes everything (`syncfs` on Linux, else an
//! fsync of each touched file and directory) and truncates the log. It runs
//! every `CHECKPOINT_EVERY` plans and when a command finishes
//! ([`super::Store::checkpoint`]).
//!
//! Recovery: a process that takes the store lock and finds the log longer
//! than it left it (another process crashed, or wrote and has not
//! checkpointed yet) replays the whole log and checkpoints. A torn last
//! line is a plan whose append never completed; none of its steps ran, so
//! it is dropped. A crash before the append leaves the store untouched; a
//! crash after it leaves a plan the next writer completes. Either way no
//! task ends up in two status directories and no transition is logged twice
//! (events carry their ids in the plan and an id already in the log is not
//! appended again).

use std::collections::BTreeSet;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::events::{self, Event};
use crate::{fsio, utf8_text};

/// One idempotent step. Paths are relative to the project root.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub(crate) enum Op {
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
pub(crate) struct Plan {
    pub ops: Vec<Op>,
}

/// The log file, relative to the root.
pub const WAL: &str = "state/amail/wal.jsonl";

/// Plans between automatic checkpoints.
pub(crate) const CHECKPOINT_EVERY: usize = 256;

/// What this process knows about the log (kept in the `Store`).
#[derive(Debug, Default)]
pub struct WalState {
    /// Log length after this process's last append or checkpoint; any
    /// other length means someone else touched it.
    known_len: u64,
    /// Plans appended since the last checkpoint.
    pending: usize,
    /// Files and directories written without fsync since the last checkpoint.
    dirty: BTreeSet<PathBuf>,
}

impl Plan {
    pub(crate) fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Logs the plan durably, then applies it.
    pub(crate) fn commit(&self, root: &Path, wal: &mut WalState) -> io::Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        let mut line = serde_json::to_string(self).map_err(io::Error::other)?;
        line.push('\n');
        let path = root.join(WAL);
        let fresh = !path.exists();
        let mut f = fsio::open_append(&path)?;
        fsio::crash_point();
        f.write_all(line.as_bytes())?;
        f.sync_data()?;
        if fresh {
            fsio::sync_dir(fsio::parent_of(&path))?;
        }
        wal.known_len = f.metadata()?.len();
        wal.pending += 1;
        self.apply(root, &mut wal.dirty)?;
        if wal.pending >= CHECKPOINT_EVERY {
            checkpoint(root, wal)?;
        }
        Ok(())
    }

    /// Applies every step without fsync, recording what it touched; safe
    /// to repeat.
    pub(crate) fn apply(&self, root: &Path, dirty: &mut BTreeSet<PathBuf>) -> io::Result<()> {
        let mut touch = |p: &Path| {
            dirty.insert(p.to_path_buf());
            dirty.insert(fsio::parent_of(p).to_path_buf());
        };
        for op in &self.ops {
            match op {
                Op::Write { path, content } => {
                    let p = root.join(path);
                    fsio::crash_point();
                    fsio::write_atomic_unsynced(&p, content.as_bytes())?;
                    touch(&p);
                }
                Op::MoveDir { from, to } => {
                    let (from, to) = (root.join(from), root.join(to));
                    if from.is_dir() {
                        fsio::crash_point();
                        move_merge(&from, &to, false)?;
                        touch(&from);
                        touch(&to);
                    }
                }
                Op::Remove { path } => {
                    let p = root.join(path);
                    if p.exists() {
                        fsio::crash_point();
                        fs::remove_file(&p)?;
                        touch(&p);
                    }
                }
                Op::Mkdir { path } => {
                    let p = root.join(path);
                    if !p.is_dir() {
                        fs::create_dir_all(&p)?;
                        // Every new level's parent must be synced; the
                        // companion dirs are two levels below a status dir.
                        let mut q = p.as_path();
                        for _ in 0..3 {
                            touch(q);
                            q = fsio::parent_of(q);
                        }
                    }
                }
                Op::Events { events: evs } => {
                    let dir = root.join("events");
                    for file in events::append(&dir, evs, false)? {
                        touch(&file);
                    }
                }
            }
        }
        Ok(())
    }
}

/// Makes everything written so far durable and empties the log.
pub fn checkpoint(root: &Path, wal: &mut WalState) -> io::Result<()> {
    sync_all(root, &wal.dirty)?;
    let path = root.join(WAL);
    if let Ok(f) = OpenOptions::new().write(true).open(&path) {
        fsio::crash_point();
        f.set_len(0)?;
        f.sync_all()?;
    }
    wal.known_len = 0;
    wal.pending = 0;
    wal.dirty.clear();
    Ok(())
}

#[cfg(target_os = "linux")]
fn sync_all(root: &Path, _dirty: &BTreeSet<PathBuf>) -> io::Result<()> {
    // One call flushes every dirty page of the store's filesystem,
    // including files another process wrote.
    let dir = fs::File::open(root)?;
    rustix::fs::syncfs(&dir).map_err(io::Error::from)
}

#[cfg(not(target_os = "linux"))]
fn sync_all(_root: &Path, dirty: &BTreeSet<PathBuf>) -> io::Result<()> {
    // Files first, then directories (a directory entry must not outlive
    // the data it names).
    for p in dirty.iter().filter(|p| p.is_file()) {
        fs::File::open(p)?.sync_all()?;
    }
    for p in dirty.iter().filter(|p| p.is_dir()) {
        fsio::sync_dir(p)?;
    }
    Ok(())
}

/// Completes interrupted or foreign plans when the log is not as this
/// process left it. Returns whether there was anything to replay. Called
/// with the store lock held.
pub fn recover(root: &Path, wal: &mut WalState) -> io::Result<bool> {
    let path = root.join(WAL);
    let len = match fs::metadata(&path) {
        Ok(m) => m.len(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => 0,
        Err(e) => return Err(e),
    };
    if len == wal.known_len {
        return Ok(false);
    }
    if len == 0 {
        // Another process checkpointed (and synced) since our last write.
        wal.known_len = 0;
        wal.pending = 0;
        wal.dirty.clear();
        return Ok(false);
    }
    // Bytes, not text: a torn last line may end inside a character, and
    // it is dropped as any torn line is (read as text, it failed the
    // whole read, and every command on the store with it).
    let bytes = fs::read(&path)?;
    // Only newline-terminated lines are whole plans.
    let whole = &bytes[..memchr::memrchr(b'\n', &bytes).map_or(0, |p| p + 1)];
    for (_, line) in utf8_text::lines(whole) {
        // The log is written by this program only; a line that does not
        // parse cannot be replayed and is skipped rather than blocking the
        // store (doctor reports the journal count it replayed).
        if let Ok(Ok(plan)) = line.map(serde_json::from_str::<Plan>) {
            plan.apply(root, &mut wal.dirty)?;
        }
    }
    checkpoint(root, wal)?;
    Ok(true)
}

/// Renames `from` to `to`; when `to` exists, moves `from`'s entries into it
/// (replacing files of the same name) and removes `from`. With `durable`,
/// fsyncs the directories involved.
pub(crate) fn move_merge(from: &Path, to: &Path, durable: bool) -> io::Result<()> {
    let sync = |d: &Path| if durable { fsio::sync_dir(d) } else { Ok(()) };
    if !to.exists() {
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::rename(from, to)?;
        sync(fsio::parent_of(from))?;
        return sync(fsio::parent_of(to));
    }
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() && target.is_dir() {
            move_merge(&entry.path(), &target, durable)?;
        } else {
            fs::rename(entry.path(), &target)?;
        }
    }
    sync(to)?;
    fs::remove_dir(from)?;
    sync(fsio::parent_of(from))
}
