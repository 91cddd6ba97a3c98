//! Incremental reload of a plain mailbox (issue 6): when the watcher reports
//! a few changed files, only those are read and parsed; the other messages
//! are kept as loaded and the threads, help states and roster are rebuilt
//! from memory (no directory walk, no other file read).
//!
//! The result must equal a full [`super::load_mailbox`]. Where equality is
//! not cheap to guarantee the reload falls back to a full load:
//! - the source is not a plain mailbox, or the ack journal (or anything
//!   outside `root`, or a hidden or non-mail file) changed;
//! - the previous load recorded problems (their order depends on the walk);
//! - a new message's id collides with a key in use (key uniqueness depends
//!   on path order in a full load).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::build::build;
use super::load::{file_entries, load_mailbox, read_and_parse};
use super::{journal, Error, Inbox, SourceKind};
use crate::source::files::is_mail_name;

/// How a reload was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reload {
    /// Only the changed files were read.
    Incremental,
    /// Everything was read again.
    Full,
}

/// The inbox after `changed` files (added, modified or removed) under the
/// mailbox `inbox` was loaded from, and how it was made.
pub fn reload_changed(inbox: Inbox, changed: &[PathBuf]) -> Result<(Inbox, Reload), Error> {
    let root = match &inbox.source {
        SourceKind::Mailbox { root } => root.clone(),
        _ => {
            return Err(Error::Source(
                "incremental reload is for plain mailboxes".into(),
            ))
        }
    };
    match incremental(inbox, &root, changed) {
        Some(i) => Ok((i, Reload::Incremental)),
        None => Ok((load_mailbox(&root)?, Reload::Full)),
    }
}

fn eligible(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let visible = rel
        .components()
        .all(|c| !c.as_os_str().to_string_lossy().starts_with('.'));
    visible && is_mail_name(path) && !path.is_symlink()
}

fn incremental(inbox: Inbox, root: &Path, changed: &[PathBuf]) -> Option<Inbox> {
    if !inbox.problems.is_empty() || changed.iter().any(|p| !eligible(root, p)) {
        return None;
    }
    let changed: HashSet<&Path> = changed.iter().map(PathBuf::as_path).collect();
    let (acks, journal_problems) = journal::read(root);
    if !journal_problems.is_empty() {
        return None;
    }
    let Inbox {
        source, messages, ..
    } = inbox;
    // Drop what the changed files held before; keep the rest as loaded.
    let mut kept: Vec<_> = messages
        .into_iter()
        .filter(|m| !m.path.as_deref().is_some_and(|p| changed.contains(p)))
        .collect();
    if kept.iter().any(collided) {
        return None;
    }
    let mut seen: HashSet<String> = kept.iter().map(|m| m.key.clone()).collect();
    let mut paths: Vec<&Path> = changed.into_iter().collect();
    paths.sort();
    for path in paths {
        if !path.is_file() {
            continue; // removed
        }
        let file = read_and_parse(path).ok()?;
        let entries = file_entries(root, path, file, &acks, &mut seen);
        if entries.iter().any(collided) {
            return None;
        }
        kept.extend(entries);
    }
    // Acks may have been added since the previous load.
    for m in &mut kept {
        for r in &mut m.recipients {
            if let Some(e) = acks.get(&(m.key.clone(), r.agent.clone())) {
                r.ack_at = Some(e.ack_at);
                r.read_at = Some(e.read_at);
            }
        }
    }
    Some(build(source, kept, Vec::new()))
}

/// The key was made unique against another message's (see
/// `load::unique_key`): the message's id was taken, or its path-derived key
/// got a `~N` suffix. Which message wins depends on path order in a full
/// load, so such inboxes are reloaded in full.
fn collided(m: &super::InboxMessage) -> bool {
    let id = m.message.id.as_deref().map(str::trim).unwrap_or("");
    if !id.is_empty() && m.key != id {
        return true;
    }
    match m.key.rsplit_once('~') {
        Some((_, n)) => !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn corpus(n: usize) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let now = chrono::Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
        let info = super::super::corpus::write_corpus(&dir.path().join("mail"), n, now).unwrap();
        (dir, info.mailbox)
    }

    #[test]
    fn one_new_file_gives_the_same_model_as_a_full_load() {
        let (_d, root) = corpus(300);
        let before = load_mailbox(&root).unwrap();
        let count = before.messages.len();
        let new = root.join("PurpleBear").join("zz-new.md");
        std::fs::write(
            &new,
            "Subject: [ol-527.2] PROGRESS\nFrom: PurpleBear\nTo: Orchestrator\nThread: ol-527.2\n\nBody:\nBead: ol-527.2\nStep: Step 3 - backfill\nStatus: running\nContext usage: 40%\n",
        )
        .unwrap();
        let (inc, how) = reload_changed(before, std::slice::from_ref(&new)).unwrap();
        assert_eq!(how, Reload::Incremental);
        assert_eq!(inc.messages.len(), count + 1);
        assert_eq!(inc, load_mailbox(&root).unwrap());
    }

    #[test]
    fn modified_and_removed_files_match_a_full_load() {
        let (_d, root) = corpus(300);
        let before = load_mailbox(&root).unwrap();
        let a = before.messages[5].path.clone().unwrap();
        let b = before.messages[9].path.clone().unwrap();
        std::fs::remove_file(&a).unwrap();
        let text = std::fs::read_to_string(&b).unwrap();
        std::fs::write(&b, text.replace("Subject: [", "Subject: Re: [")).unwrap();
        let (inc, how) = reload_changed(before, &[a, b]).unwrap();
        assert_eq!(how, Reload::Incremental);
        assert_eq!(inc.messages.len(), 299);
        assert_eq!(inc, load_mailbox(&root).unwrap());
    }

    #[test]
    fn a_journal_change_falls_back_to_a_full_load() {
        let (_d, root) = corpus(50);
        let before = load_mailbox(&root).unwrap();
        let journal = journal::journal_path(&root);
        let (inc, how) = reload_changed(before, &[journal]).unwrap();
        assert_eq!(how, Reload::Full);
        assert_eq!(inc, load_mailbox(&root).unwrap());
    }
}
