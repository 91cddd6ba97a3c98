//! Incremental reload of a plain mailbox (issue 6): when the watcher reports
//! a few changed files, only those are read and parsed; the other messages
//! are kept as loaded, in place (no directory walk, no other file read, no
//! copy of the inbox), and [`super::patch`] updates only the threads and
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

use super::load::{file_entries, load_mailbox, read_and_parse};
use super::{journal, Error, Inbox, InboxMessage, SourceKind};
use crate::source::walk;

/// How a reload was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reload {
    /// Only the changed files were read.
    Incremental,
    /// Everything was read again.
    Full,
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
    if let Some(change) = read_change(inbox, &root, changed, max_bytes) {
        if super::patch::apply(inbox, change) {
            return Ok(Reload::Incremental);
        }
    }
    *inbox = load_mailbox(&root, max_bytes)?;
    Ok(Reload::Full)
}

/// What a change does to the inbox, read from disk but not yet applied.
pub(crate) struct Change {
    /// Indices into `Inbox::messages` of what the changed files held.
    pub removed: Vec<usize>,
    /// What they hold now (threads not assigned, acks applied).
    pub added: Vec<InboxMessage>,
    pub acks: journal::Acks,
}

/// A mail file the patch can handle (existing or gone).
fn eligible(root: &Path, path: &Path) -> bool {
    eligible_name(root, path) && !path.is_symlink() && !path.is_dir()
}

/// A file the walk of `root` lists, and not JSON (see the module doc).
fn eligible_name(root: &Path, path: &Path) -> bool {
    walk::lists(root, path) && !is_json(path)
}

fn is_json(p: &Path) -> bool {
    p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["json", "jsonl", "ndjson"]
            .iter()
            .any(|j| e.eq_ignore_ascii_case(j))
    })
}

fn read_change(inbox: &Inbox, root: &Path, changed: &[PathBuf], max_bytes: u64) -> Option<Change> {
    if !inbox.problems.is_empty() {
        return None;
    }
    // A gone file the walk would skip (hidden, not a mail name) cannot
    // change a load: an editor's or an atomic writer's temp file. (Unless
    // it was a folder of mail: checked below with the other gone paths.)
    // Anything else not eligible (the journal, a folder, JSON, outside
    // root) reloads everything.
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
    // Matched as bytes against the sorted changed paths: `Path` equality
    // and `file_name` walk components, and doing that (or hashing) for
    // every message cost about half the reload of a large inbox. A changed
    // path spelled another way (`a//b`) is then not matched; its file reads
    // as a new message whose key clashes with the kept one (or, gone, it
    // is a prefix of a message's path), and both checks below reload in
    // full, so the result stays exact.
    let mut wanted: Vec<&[u8]> = changed.iter().map(|p| bytes(p)).collect();
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
    let gone = changed
        .iter()
        .filter(|p| !p.exists() && !matched.contains(bytes(p)));
    for p in gone.chain(&ignored) {
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
    let mut seen = HashSet::new();
    let mut paths = changed;
    paths.sort();
    paths.dedup();
    let mut added = Vec::new();
    for path in paths {
        if !path.is_file() {
            continue; // removed
        }
        let file = read_and_parse(path, max_bytes).ok()?;
        let entries = file_entries(root, path, file, &mut seen);
        // A damaged file is named in `problems` by a full load.
        let damaged = |m: &InboxMessage| {
            m.message
                .diagnostics
                .iter()
                .any(|d| d.code == "invalid-utf8")
        };
        if entries.iter().any(|m| collided(m) || damaged(m)) {
            return None;
        }
        added.extend(entries);
    }
    if !added.is_empty() {
        let new_keys: Vec<&str> = added.iter().map(|m| m.key.as_str()).collect();
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
        added,
        acks,
    })
}

/// A path as the bytes it is spelled with, for matching without parsing
/// components.
fn bytes(p: &Path) -> &[u8] {
    p.as_os_str().as_encoded_bytes()
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

    // These tests load and reload with the default size limit.
    const MAX: u64 = crate::fsio::DEFAULT_MAX_MESSAGE_BYTES;

    fn load_mailbox(root: &Path) -> Result<Inbox, Error> {
        super::load_mailbox(root, MAX)
    }

    fn reload_changed(inbox: &mut Inbox, changed: &[PathBuf]) -> Result<Reload, Error> {
        super::reload_changed(inbox, changed, MAX)
    }

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
        let mut inc = before;
        let how = reload_changed(&mut inc, std::slice::from_ref(&new)).unwrap();
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
        let mut inc = before;
        let how = reload_changed(&mut inc, &[a, b]).unwrap();
        assert_eq!(how, Reload::Incremental);
        assert_eq!(inc.messages.len(), 299);
        assert_eq!(inc, load_mailbox(&root).unwrap());
    }

    /// Changed paths are matched as spelled; one spelled another way than
    /// the load spelled it must still end equal to a full load (by falling
    /// back), never as a duplicate message.
    #[test]
    fn a_changed_path_spelled_another_way_still_matches_a_full_load() {
        let (_d, root) = corpus(300);
        let before = load_mailbox(&root).unwrap();
        let a = before.messages[5].path.clone().unwrap();
        let b = before.messages[9].path.clone().unwrap();
        let text = std::fs::read_to_string(&a).unwrap();
        std::fs::write(&a, text.replace("Subject: [", "Subject: Re: [")).unwrap();
        std::fs::remove_file(&b).unwrap();
        let respell = |p: &Path| {
            let s = p.to_str().unwrap();
            let (dir, name) = s.rsplit_once('/').unwrap();
            PathBuf::from(format!("{dir}//{name}"))
        };
        let mut inc = before;
        reload_changed(&mut inc, &[respell(&a), respell(&b)]).unwrap();
        assert_eq!(inc.messages.len(), 299);
        assert_eq!(inc, load_mailbox(&root).unwrap());
    }

    /// Reloads `changed` incrementally and checks the result against a
    /// full load of the mailbox as it is now.
    fn same_as_full(root: &Path, inbox: &mut Inbox, changed: &[PathBuf]) {
        let how = reload_changed(inbox, changed).unwrap();
        assert_eq!(how, Reload::Incremental, "{changed:?}");
        let full = load_mailbox(root).unwrap();
        if *inbox != full {
            panic!(
                "after {changed:?} the patched inbox differs from a full load: {}",
                first_difference(inbox, &full)
            );
        }
    }

    fn first_difference(a: &Inbox, b: &Inbox) -> String {
        if a.messages.len() != b.messages.len() {
            return format!("{} vs {} messages", a.messages.len(), b.messages.len());
        }
        if let Some(i) = (0..a.messages.len()).find(|&i| a.messages[i] != b.messages[i]) {
            return format!("message {i}: {:?}\nvs {:?}", a.messages[i], b.messages[i]);
        }
        if a.threads.len() != b.threads.len() {
            return format!("{} vs {} threads", a.threads.len(), b.threads.len());
        }
        if let Some(i) = (0..a.threads.len()).find(|&i| a.threads[i] != b.threads[i]) {
            return format!("thread {i}: {:?}\nvs {:?}", a.threads[i], b.threads[i]);
        }
        if a.agents.len() != b.agents.len() {
            return format!("{:?}\nvs {:?}", a.agents, b.agents);
        }
        if let Some(i) = (0..a.agents.len()).find(|&i| a.agents[i] != b.agents[i]) {
            return format!("agent {i}: {:?}\nvs {:?}", a.agents[i], b.agents[i]);
        }
        "problems or source".into()
    }

    /// Sets header `name` in a spec-text mail (added if missing).
    fn set_header(text: &str, name: &str, value: &str) -> String {
        let prefix = format!("{name}: ");
        let (head, body) = text.split_once("\n\n").unwrap();
        if !head.lines().any(|l| l.starts_with(&prefix)) {
            return format!("{head}\n{prefix}{value}\n\n{body}");
        }
        let head: Vec<String> = head
            .lines()
            .map(|l| {
                if l.starts_with(&prefix) {
                    format!("{prefix}{value}")
                } else {
                    l.to_string()
                }
            })
            .collect();
        format!("{}\n\n{body}", head.join("\n"))
    }

    /// Writes a copy of mail `from` at `to` with headers set.
    fn copy_with(from: &Path, to: &Path, headers: &[(&str, &str)]) -> PathBuf {
        let mut text = std::fs::read_to_string(from).unwrap();
        for (name, value) in headers {
            text = set_header(&text, name, value);
        }
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, text).unwrap();
        to.to_path_buf()
    }

    #[test]
    fn each_kind_of_change_in_turn_matches_a_full_load() {
        let (_d, root) = corpus(300);
        let mut inbox = load_mailbox(&root).unwrap();
        let path_of = |inbox: &Inbox, i: usize| inbox.messages[i].path.clone().unwrap();

        // A reply that answers an open help request: its thread becomes
        // answered and the asker's state changes.
        let (t, req) = inbox
            .threads
            .iter()
            .enumerate()
            .find_map(|(t, th)| {
                (th.help == super::super::HelpState::Unanswered).then(|| {
                    let req = *th
                        .messages
                        .iter()
                        .find(|&&i| inbox.messages[i].is_help_request())
                        .unwrap();
                    (t, req)
                })
            })
            .expect("an unanswered help request in the corpus");
        let thread_id = inbox.threads[t].id.clone();
        let asker = inbox.messages[req]
            .message
            .from
            .as_deref()
            .unwrap()
            .to_string();
        let helper = inbox.messages[req].recipients[0].agent.clone();
        let subject = format!("Re: {}", inbox.messages[req].message.subject);
        let reply = copy_with(
            &path_of(&inbox, req),
            &root.join(&helper).join("zz-reply.md"),
            &[
                ("Id", "inc-reply-1"),
                ("From", &helper),
                ("To", &asker),
                ("Subject", &subject),
            ],
        );
        same_as_full(&root, &mut inbox, &[reply]);
        let th = inbox.threads.iter().find(|t| t.id == thread_id).unwrap();
        assert_eq!(th.help, super::super::HelpState::Answered);

        // A new thread, older than everything (inserted first: every index
        // shifts), from and to agents nobody has seen.
        let old = copy_with(
            &path_of(&inbox, 7),
            &root.join("Newcomer").join("old.md"),
            &[
                ("Id", "inc-old-1"),
                ("From", "Newcomer"),
                ("To", "Stranger"),
                ("Thread", "inc-brand-new-thread"),
                ("Date", "2001-01-01T00:00:00Z"),
            ],
        );
        same_as_full(&root, &mut inbox, std::slice::from_ref(&old));
        assert!(inbox.agent("Stranger").is_some());

        // A modified file: its subject becomes a reply.
        let m = path_of(&inbox, 40);
        let text = std::fs::read_to_string(&m).unwrap();
        std::fs::write(&m, text.replacen("Subject: ", "Subject: Re: ", 1)).unwrap();
        same_as_full(&root, &mut inbox, &[m]);

        // Every message of a thread removed: the thread goes.
        let gone = inbox
            .threads
            .iter()
            .find(|t| t.messages.len() >= 2)
            .unwrap()
            .clone();
        let files: Vec<PathBuf> = gone.messages.iter().map(|&i| path_of(&inbox, i)).collect();
        for f in &files {
            std::fs::remove_file(f).unwrap();
        }
        same_as_full(&root, &mut inbox, &files);
        assert!(!inbox.threads.iter().any(|t| t.id == gone.id));

        // The newcomers' only message removed: they leave the roster.
        std::fs::remove_file(&old).unwrap();
        same_as_full(&root, &mut inbox, &[old]);
        assert!(inbox.agent("Stranger").is_none());

        // Several changes in one burst: two added, one removed, one edited.
        let a = copy_with(
            &path_of(&inbox, 3),
            &root.join("zz-a.md"),
            &[("Id", "inc-burst-a")],
        );
        let b = copy_with(
            &path_of(&inbox, 100),
            &root.join("sub").join("zz-b.md"),
            &[("Id", "inc-burst-b"), ("Thread", "inc-burst-thread")],
        );
        let r = path_of(&inbox, 150);
        std::fs::remove_file(&r).unwrap();
        let e = path_of(&inbox, 200);
        let text = std::fs::read_to_string(&e).unwrap();
        std::fs::write(&e, set_header(&text, "Ack-Required", "true")).unwrap();
        same_as_full(&root, &mut inbox, &[a, b, r, e]);
    }

    #[test]
    fn a_new_seed_of_existing_replies_falls_back_to_a_full_load() {
        let (_d, root) = corpus(60);
        let src = root.join("orphan.md");
        let first = load_mailbox(&root).unwrap();
        let any = first.messages[3].path.clone().unwrap();
        let mut inbox = first;
        // A reply naming a thread no message seeds yet ...
        let text = std::fs::read_to_string(&any).unwrap();
        let text = set_header(&text, "Id", "inc-orphan");
        std::fs::write(&src, set_header(&text, "Thread", "inc-seed")).unwrap();
        same_as_full(&root, &mut inbox, std::slice::from_ref(&src));
        // ... then the message it names, without a thread id: the reply
        // moves to the seed's thread, which the patch does not do.
        let seed = root.join("seed.md");
        let text: String = set_header(&text, "Id", "inc-seed")
            .lines()
            .filter(|l| !l.starts_with("Thread: "))
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(&seed, text).unwrap();
        let how = reload_changed(&mut inbox, std::slice::from_ref(&seed)).unwrap();
        assert_eq!(how, Reload::Full);
        assert_eq!(inbox, load_mailbox(&root).unwrap());
    }

    #[test]
    fn a_removed_folder_falls_back_to_a_full_load() {
        let (_d, root) = corpus(60);
        let mut inbox = load_mailbox(&root).unwrap();
        let dir = inbox.messages[0].path.clone().unwrap();
        let dir = dir.parent().unwrap().to_path_buf();
        std::fs::remove_dir_all(&dir).unwrap();
        let how = reload_changed(&mut inbox, &[dir]).unwrap();
        assert_eq!(how, Reload::Full);
        assert_eq!(inbox, load_mailbox(&root).unwrap());
    }

    #[test]
    fn a_journal_change_falls_back_to_a_full_load() {
        let (_d, root) = corpus(50);
        let before = load_mailbox(&root).unwrap();
        let journal = journal::journal_path(&root);
        let mut inc = before;
        let how = reload_changed(&mut inc, &[journal]).unwrap();
        assert_eq!(how, Reload::Full);
        assert_eq!(inc, load_mailbox(&root).unwrap());
    }
}
