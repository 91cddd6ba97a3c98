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
//! - the previous load recorded problems (their order depends on the walk);
//! - a new message's id collides with a key in use (key uniqueness depends
//!   on path order in a full load);
//! - the patch itself finds a case it does not handle (see `patch`).
//!
//! Every file is read before the inbox is touched, so a fallback starts
//! from the inbox as it was.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::journal;
use super::load::{file_entries, load_mailbox};
use super::protocol::is_json;
use crate::inbox::patch::{self, Change};
use crate::inbox::trimmed;
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
        if entries.iter().any(|m| collided(m) || damaged(m)) {
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
/// load is exact.
fn change_for(inbox: &Inbox, files: ChangedFiles) -> Option<Change> {
    if !inbox.problems.is_empty() {
        return None;
    }
    // Matched as bytes against the sorted changed paths: `Path` equality
    // and `file_name` walk components, and doing that (or hashing) for
    // every message cost about half the reload of a large inbox. A changed
    // path spelled another way (`a//b`) is then not matched; its file reads
    // as a new message whose key clashes with the kept one (or, gone, it
    // is a prefix of a message's path), and both checks below reload in
    // full, so the result stays exact.
    let mut wanted: Vec<&[u8]> = files.changed.iter().map(|p| bytes(p)).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let mut removed = Vec::new();
    let mut matched: HashSet<&[u8]> = HashSet::new();
    for (i, m) in inbox.messages.iter().enumerate() {
        if collided(m) {
            return None;
        }
        let Some(p) = m.path.as_deref() else { continue };
        let b = bytes(p);
        if wanted.binary_search(&b).is_ok() {
            removed.push(i);
            matched.insert(b);
        }
    }
    // A gone path that held no message may have been a folder of mail
    // (moving one out is a single event): then the messages under it go.
    let gone = files.gone.iter().filter(|p| !matched.contains(bytes(p)));
    for p in gone.chain(&files.ignored) {
        if inbox
            .messages
            .iter()
            .any(|m| m.path.as_deref().is_some_and(|mp| mp.starts_with(p)))
        {
            return None;
        }
    }
    // Keys are made unique against the new files only; a new key that a
    // kept message already has means a full load would have renamed one of
    // them, depending on path order.
    if !files.added.is_empty() {
        let new_keys: Vec<&str> = files.added.iter().map(|m| m.key.as_str()).collect();
        let clash =
            inbox.messages.iter().enumerate().any(|(i, m)| {
                new_keys.contains(&m.key.as_str()) && removed.binary_search(&i).is_err()
            });
        if clash {
            return None;
        }
    }
    Some(Change {
        removed,
        added: files.added,
        acks: files.acks,
    })
}

/// A path as the bytes it is spelled with, for matching without parsing
/// components.
fn bytes(p: &Path) -> &[u8] {
    p.as_os_str().as_encoded_bytes()
}

/// The key was made unique against another message's (see
/// `stores::read::unique_key`): the message's id was taken, or its
/// path-derived key got a `~N` suffix. Which message wins depends on path order in a full
/// load, so such inboxes are reloaded in full.
fn collided(m: &InboxMessage) -> bool {
    let id = m.message.id.as_deref().map(trimmed).unwrap_or("");
    if !id.is_empty() && m.key != id {
        return true;
    }
    match m.key.rsplit_once('~') {
        Some((_, n)) => !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()),
        None => false,
    }
}
