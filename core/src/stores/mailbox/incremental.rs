//! Incremental reload of a plain mailbox (issue 6): when the watcher reports
//! a few changed files, only those are read and parsed; the other messages
//! are kept as loaded, in place (no directory walk, no other file read, no
//! copy of the inbox), and the model's `patch` updates only the threads and
//! agents the change touched.
//!
//! The result must equal a full [`super::load_mailbox`]. Where equality is
//! not cheap to guarantee the reload falls back to a full load:
//! - the source is not a plain mailbox, or the ack journal (or anything
//!   outside `root`, or a file the walk does not list) changed;
//! - a changed path is (or was) a directory: a moved folder is one event;
//! - a changed file is JSON (it may hold handoff or A2A items, which
//!   `protocol_items` turns into messages over the whole mailbox);
//! - the previous load recorded problems (their order depends on the walk),
//!   or read acks from a journal of a mailbox below the root (the patch
//!   applies the root's journal; see `mailbox::homes`);
//! - a new message's id collides with a key in use, or a key in use was
//!   made unique against another (key uniqueness depends on path order in
//!   a full load);
//! - a changed path climbs (`..`), or the root is not spelled plainly
//!   (`a//b`): paths are matched as the walk spells them;
//! - the patch itself finds a case it does not handle (see `patch`).
//!
//! Every file is read before the inbox is touched, so a fallback starts
//! from the inbox as it was. The changed paths are found in the inbox's
//! index (by file, by key), not by a pass over its messages.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use super::journal;
use super::load::{file_entries, load_mailbox};
use super::protocol::is_json;
use crate::inbox::index::key_was_renamed;
use crate::inbox::patch::{self, Change};
use crate::inbox::{Acks, Inbox, InboxMessage, SourceKind};
use crate::source::files;
use crate::source::walk;
use crate::stores::error::Error;
use crate::stores::read::parse_records;

/// How a reload was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reload {
    /// Only the changed files were read.
    Incremental,
    /// Everything was read again.
    Full,
}

/// The changed files of a mailbox, read from disk but not yet applied to
/// an inbox: the I/O half of a reload, done off the UI thread (the TUI's
/// worker); [`apply_changed`] is the in-memory half.
#[derive(Debug, Clone)]
pub struct ChangedFiles {
    root: PathBuf,
    /// Eligible changed paths, as the watcher spelled them.
    changed: Vec<PathBuf>,
    /// Those of them that are gone.
    gone: Vec<PathBuf>,
    /// Gone paths the walk would skip (temp files).
    ignored: Vec<PathBuf>,
    /// What the changed files hold now (keys unique among themselves).
    added: Vec<InboxMessage>,
    acks: Acks,
}

impl ChangedFiles {
    /// The messages the changed files hold now (a router routes these).
    pub fn added(&self) -> &[InboxMessage] {
        &self.added
    }
}

/// Brings `inbox` up to date after `changed` files (added, modified or
/// removed) under the mailbox it was loaded from, and says how. On an
/// error (the full load failed) `inbox` is left as it was. `max_bytes` is
/// the size limit the inbox was loaded with.
pub fn reload_changed(
    inbox: &mut Inbox,
    changed: &[PathBuf],
    max_bytes: u64,
) -> Result<Reload, Error> {
    let root = match &inbox.source {
        SourceKind::Mailbox { root } => root.clone(),
        _ => {
            return Err(Error::Source(
                "incremental reload is for plain mailboxes".into(),
            ))
        }
    };
    if let Some(files) = read_changed(&root, changed, max_bytes) {
        if apply_changed(inbox, files) {
            return Ok(Reload::Incremental);
        }
    }
    *inbox = load_mailbox(&root, max_bytes)?;
    Ok(Reload::Full)
}

/// Applies files read by [`read_changed`] to `inbox`; false (with `inbox`
/// untouched) when only a full load is exact (see the module doc): then
/// the caller loads everything.
pub fn apply_changed(inbox: &mut Inbox, files: ChangedFiles) -> bool {
    if !matches!(&inbox.source, SourceKind::Mailbox { root } if *root == files.root) {
        return false;
    }
    match change_for(inbox, files) {
        Some(change) => patch::apply(inbox, change),
        None => false,
    }
}

/// A mail file the patch can handle (existing or gone).
fn eligible(root: &Path, path: &Path) -> bool {
    eligible_name(root, path) && !path.is_symlink() && !path.is_dir()
}

/// A file the walk of `root` lists, and not JSON (see the module doc).
fn eligible_name(root: &Path, path: &Path) -> bool {
    walk::lists(root, path) && !is_json(path)
}

/// Reads the `changed` files under the mailbox at `root` (no inbox
/// needed); `None` when only a full load is exact.
pub fn read_changed(root: &Path, changed: &[PathBuf], max_bytes: u64) -> Option<ChangedFiles> {
    // A gone file the walk would skip (hidden, not a mail name) cannot
    // change a load: an editor's or an atomic writer's temp file. (Unless
    // it was a folder of mail: checked with the other gone paths when
    // applied.) Anything else not eligible (the journal, a folder, JSON,
    // outside root) reloads everything.
    // Paths are matched as the walk spells them (bytes, not components:
    // see `change_for`), so the changed ones are spelled that way first;
    // a root spelled otherwise is read again whole.
    if plain(root).is_none_or(|r| r.as_os_str() != root.as_os_str()) {
        return None;
    }
    let changed: Vec<PathBuf> = changed.iter().map(|p| plain(p)).collect::<Option<_>>()?;
    let journal = journal::journal_path(root);
    let skipped =
        |p: &Path| !p.exists() && *p != journal && p.starts_with(root) && !eligible_name(root, p);
    let (ignored, changed): (Vec<&Path>, Vec<&Path>) = changed
        .iter()
        .map(PathBuf::as_path)
        .partition(|p| skipped(p));
    if changed.iter().any(|p| !eligible(root, p)) {
        return None;
    }
    let (acks, journal_problems) = journal::read(root);
    if !journal_problems.is_empty() {
        return None;
    }
    let gone = changed
        .iter()
        .filter(|p| !p.exists())
        .map(|p| p.to_path_buf())
        .collect();
    let mut seen = HashSet::new();
    let mut paths = changed.clone();
    paths.sort();
    paths.dedup();
    let mut added = Vec::new();
    for path in paths {
        if !path.is_file() {
            continue; // removed
        }
        let file = parse_records(&files::read_mail_file(path, max_bytes).ok()?).ok()?;
        let entries = file_entries(root, path, file, &mut seen);
        // A damaged file is named in `problems` by a full load.
        let damaged = |m: &InboxMessage| {
            m.message
                .full_if_held()
                .is_some_and(|full| full.diagnostics.iter().any(|d| d.code == "invalid-utf8"))
        };
        if entries.iter().any(|m| key_was_renamed(m) || damaged(m)) {
            return None;
        }
        added.extend(entries);
    }
    Some(ChangedFiles {
        root: root.to_path_buf(),
        changed: changed.iter().map(|p| p.to_path_buf()).collect(),
        gone,
        ignored: ignored.iter().map(|p| p.to_path_buf()).collect(),
        added,
        acks,
    })
}

/// What `files` do to `inbox`, matched by path; `None` when only a full
/// load is exact. Looked up in the inbox's index (by path, by key), so
/// this costs in proportion to the change, not the inbox.
fn change_for(inbox: &mut Inbox, files: ChangedFiles) -> Option<Change> {
    if !inbox.problems.is_empty() || inbox.index.journals_below {
        return None;
    }
    // Made now if the load did not (or the inbox changed by hand); the
    // patch uses the same tables.
    if !inbox.index.fit(&inbox.messages) {
        return None;
    }
    // A key made unique against another's: which message got which key
    // depends on the order of a full load.
    if inbox.index.renamed() {
        return None;
    }
    // The changed paths are spelled as the walk spells paths under a
    // plain root (see `read_changed`), so they are matched as bytes.
    let mut removed = Vec::new();
    let mut gone = Vec::new();
    for p in &files.changed {
        let before = removed.len();
        removed.extend(inbox.index.by_path(&inbox.messages, p));
        if removed.len() == before && files.gone.contains(p) {
            gone.push(p);
        }
    }
    removed.sort_unstable();
    removed.dedup();
    // A gone path that held no message may have been a folder of mail
    // (moving one out is a single event): then the messages under it go.
    for p in gone.into_iter().chain(&files.ignored) {
        if inbox.index.holds_under(&inbox.messages, p) {
            return None;
        }
    }
    // Keys are made unique against the new files only; a new key that a
    // kept message already has means a full load would have renamed one of
    // them, depending on path order.
    for m in &files.added {
        let kept = inbox.index.by_key(&inbox.messages, &m.key);
        if kept.is_some_and(|i| removed.binary_search(&i).is_err()) {
            return None;
        }
    }
    Some(Change {
        removed,
        added: files.added,
        acks: Some(files.acks),
        restated: Vec::new(),
    })
}

/// `p` spelled as the walk spells it: its components joined by single
/// separators (`a//b` and `a/./b` are `a/b`); `None` when a component
/// climbs (`..`), which only the file system could resolve.
pub(crate) fn plain(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        if c == Component::ParentDir {
            return None;
        }
        out.push(c);
    }
    Some(out)
}
