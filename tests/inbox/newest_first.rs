//! A plain mailbox is read newest first, and a load in steps hands out a
//! browsable inbox of the newest messages before the whole one (issue 16:
//! the TUI shows the newest threads while the rest loads).
use std::cell::RefCell;
use std::path::Path;

use amail_core::inbox::Inbox;
use amail_core::stores::mailbox::journal::{self, JournalEntry};
use amail_core::stores::mailbox::{load_mailbox_in_steps, FIRST_STEP};
use chrono::TimeZone;

const MAX: u64 = amail_core::fsio::DEFAULT_MAX_MESSAGE_BYTES;

fn load_mailbox(root: &Path) -> Inbox {
    amail_core::stores::load_mailbox(root, MAX).unwrap()
}

/// The steps a load of `root` hands out, and the inbox it returns.
fn load_in_steps(root: &Path) -> (Vec<Inbox>, Inbox) {
    let parts = RefCell::new(Vec::new());
    let counted = RefCell::new(Vec::new());
    let whole = load_in_steps_counted(root, &parts, &counted);
    // Each step comes after the progress call that counted its files.
    let counted = counted.into_inner();
    assert!(counted.windows(2).all(|w| w[0] <= w[1]), "{counted:?}");
    (parts.into_inner(), whole)
}

fn load_in_steps_counted(
    root: &Path,
    parts: &RefCell<Vec<Inbox>>,
    counted: &RefCell<Vec<usize>>,
) -> Inbox {
    let done = std::cell::Cell::new(0);
    load_mailbox_in_steps(root, MAX, &|n, _| done.set(n), &|inbox| {
        counted.borrow_mut().push(done.get());
        parts.borrow_mut().push(inbox);
    })
    .unwrap()
}

/// `agent`'s ack of `key` at `now`, appended to the journal of `root`.
fn ack_in_journal(root: &Path, key: &str, agent: &str, now: chrono::DateTime<chrono::Utc>) {
    let entry = JournalEntry {
        key: key.to_string(),
        id: None,
        agent: agent.to_string(),
        ack_at: Some(now),
        read_at: now,
    };
    journal::append(root, entry).unwrap();
}

/// Each message's thread id, by key, from the threads' message lists.
pub(crate) fn thread_of(inbox: &Inbox) -> std::collections::HashMap<&str, &str> {
    inbox
        .threads
        .iter()
        .flat_map(|t| {
            t.messages
                .iter()
                .map(|&i| (inbox.messages[i].key.as_str(), t.id.as_str()))
        })
        .collect()
}

#[test]
fn a_load_in_steps_hands_out_the_newest_threads_first_then_the_whole_inbox() {
    let (_dir, root) = super::incremental::corpus(20_000);
    let now = chrono::Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    // Some acks, old and new, so the steps have acks to show.
    let whole = load_mailbox(&root);
    let acked: Vec<_> = whole
        .messages
        .iter()
        .filter(|m| m.message.ack_required && !m.recipients.is_empty())
        .step_by(97)
        .map(|m| (m.key.to_string(), m.recipients[0].agent))
        .collect();
    assert!(acked.len() > 10);
    for (key, agent) in &acked {
        ack_in_journal(&root, key, agent, now);
    }
    let whole = load_mailbox(&root);

    let (parts, stepped) = load_in_steps(&root);
    assert_eq!(stepped, whole, "a load in steps ends with the same inbox");
    // 20,000 files: a step at the first ~1,000 messages, and none after
    // it, since the next (~4,000) would hold more than a sixteenth of the
    // files (`stores::steps`: what each load hands out is tested there).
    assert_eq!(
        parts.len(),
        1,
        "{:?}",
        parts.iter().map(|p| p.messages.len()).collect::<Vec<_>>()
    );
    assert!(parts[0].messages.len() >= FIRST_STEP);
    assert!(parts[0].messages.len() < whole.messages.len());

    for part in &parts {
        assert_newest_top(part, &whole);
        // Browsable as it is: each thread's messages and acks as in the
        // whole inbox, for the messages it holds.
        let (in_part, in_whole) = (thread_of(part), thread_of(&whole));
        for m in &part.messages {
            let full = whole.message_by_key(&m.key).unwrap();
            assert_eq!(m.recipients, full.recipients, "{}", m.key);
            assert_eq!(in_part[m.key.as_str()], in_whole[m.key.as_str()]);
        }
        assert!(part.agents.len() <= whole.agents.len());
        assert!(!part.agents.is_empty());
    }
    assert!(acks_in(&parts[0]) > 0, "the step shows the acks it holds");
    assert_eq!(acks_in(&whole), acked.len());
}

#[test]
fn a_small_mailbox_loads_whole_without_steps() {
    let (_dir, root) = super::incremental::corpus(300);
    let (parts, whole) = load_in_steps(&root);
    assert!(parts.is_empty());
    assert_eq!(whole, load_mailbox(&root));
}

/// Keys are made unique in reading order, newest name first: of two
/// files with the same id, the newer keeps it, on every load.
#[test]
fn of_two_files_with_one_id_the_newer_by_name_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("000001-old.md"), same_id_mail("old")).unwrap();
    std::fs::write(root.join("000002-new.md"), same_id_mail("new")).unwrap();
    for _ in 0..2 {
        let inbox = load_mailbox(root);
        let by = |key: &str| subject_of(&inbox, key);
        assert_eq!(by("same-id"), "new");
        assert_eq!(by("000001-old.md"), "old");
    }
}

/// Newest name first across folders and depths, not folder by folder:
/// in path order the oldest file comes first, so a load that read in
/// path order would give it the id.
#[test]
fn files_are_read_newest_name_first_across_folders() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (rel, subject) in [
        ("a/000001-old.md", "old"),
        ("a/notes.md", "undated"),
        ("b/000002-mid.md", "mid"),
        ("b/c/000003-new.md", "new"),
        ("b/c/d/000000-oldest.md", "oldest"),
    ] {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, same_id_mail(subject)).unwrap();
    }
    let inbox = load_mailbox(root);
    let subject = |key: &str| subject_of(&inbox, key);
    assert_eq!(subject("same-id"), "new");
    assert_eq!(subject("a/000001-old.md"), "old");
    assert_eq!(subject("a/notes.md"), "undated");
}

/// A JSON file of A2A items read in a step is left out of it: the whole
/// inbox shows its items, never the file as a message, and a step must
/// not show what the whole inbox will not.
#[test]
fn a_step_leaves_out_the_files_whose_items_come_with_the_whole_inbox() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("mail");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mixed/mail");
    crate::support::fs::copy_dir(&data, &root);
    // Named to be read first.
    let items = root.join("a2a/999999-task.json");
    std::fs::rename(root.join("a2a/task.json"), &items).unwrap();
    let filler = root.join("Filler");
    std::fs::create_dir_all(&filler).unwrap();
    // Enough for one step: it comes within the first quarter of the files.
    for n in 1..=4 * FIRST_STEP + 100 {
        std::fs::write(
            filler.join(format!("{n:06}-note.md")),
            format!("Subject: note {n}\nFrom: Filler\nTo: BlueLake\n\nBody:\nnote {n}\n"),
        )
        .unwrap();
    }
    let whole = load_mailbox(&root);
    let from_items = |i: &Inbox| {
        i.messages
            .iter()
            .filter(|m| m.path.as_deref() == Some(items.as_path()))
            .map(|m| m.key.to_string())
            .collect::<Vec<_>>()
    };
    assert!(!from_items(&whole).is_empty(), "the file's items are in");
    let (parts, stepped) = load_in_steps(&root);
    assert_eq!(stepped, whole);
    assert_eq!(parts.len(), 1);
    let part = &parts[0];
    assert!(part.messages.len() >= FIRST_STEP);
    // Every message a step holds is in the whole inbox.
    for m in &part.messages {
        let full = whole.message_by_key(&m.key);
        assert!(full.is_some(), "{} is not in the whole inbox", m.key);
    }
    assert!(from_items(part).is_empty(), "{:?}", from_items(part));
}

/// `part` holds the newest messages of `whole` (none left out is newer
/// than one held), so its threads are the top of `whole`'s list, in
/// order: what the first screen shows does not move when the rest comes.
/// Shared with the mcp root's steps (`mcp_newest_first`).
pub(crate) fn assert_newest_top(part: &Inbox, whole: &Inbox) {
    let held: std::collections::HashSet<&str> =
        part.messages.iter().map(|m| m.key.as_str()).collect();
    let oldest_held = part.messages.iter().map(|m| m.message.timestamp).min();
    let newest_left = whole
        .messages
        .iter()
        .filter(|m| !held.contains(m.key.as_str()))
        .map(|m| m.message.timestamp)
        .max();
    assert!(
        newest_left <= oldest_held,
        "{newest_left:?} > {oldest_held:?}"
    );
    let ids = |i: &Inbox| i.threads.iter().map(|t| t.id.clone()).collect::<Vec<_>>();
    let top = ids(part);
    assert_eq!(top, ids(whole)[..top.len()]);
}

/// The subject of the message `key` names in `inbox`.
fn subject_of(inbox: &Inbox, key: &str) -> String {
    inbox
        .message_by_key(key)
        .unwrap()
        .message
        .subject
        .to_string()
}

/// How many (message, recipient) pairs of `inbox` are acknowledged.
pub(crate) fn acks_in(inbox: &Inbox) -> usize {
    inbox
        .messages
        .iter()
        .flat_map(|m| &m.recipients)
        .filter(|r| r.ack_at.is_some())
        .count()
}

/// A message with the id `same-id` and `subject`, for the tests of which
/// file keeps an id.
fn same_id_mail(subject: &str) -> String {
    format!("Subject: {subject}\nId: same-id\nFrom: BlueLake\nTo: GreenCastle\n\nBody:\nhello\n")
}

/// A mailbox filed by date (`<agent>/YYYY/MM/`, as the server files its
/// copies and `amail demo --messages` writes its corpus) shows its newest
/// threads before the whole tree is listed: the newest months are listed
/// first, and once they hold a step's worth of files that no unlisted
/// folder can be newer than, those are read and handed out. Then the
/// whole load runs as before. Issue 16: at a million files the listing
/// of every folder alone took most of a second before the first step.
#[test]
fn a_mailbox_filed_by_month_shows_its_newest_threads_before_the_whole_walk() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("mail");
    let per = 600;
    let mut n = 0;
    for month in [9, 10, 11] {
        for i in 0..per {
            for (k, agent) in ["Alpha", "Bravo", "Charlie"].into_iter().enumerate() {
                let folder = root.join(format!("{agent}/2026/{month:02}"));
                std::fs::create_dir_all(&folder).unwrap();
                // Named and dated in the order they were written.
                n += 1;
                let (day, minute, second) = (1 + i / 60, i % 60, 10 * k);
                std::fs::write(
                    folder.join(format!("{n:06}-note.md")),
                    format!(
                        "Subject: [t-{n}] PROGRESS\nFrom: {agent}\nTo: Delta\n\
                         Date: 2026-{month:02}-{day:02}T10:{minute:02}:{second:02}Z\n\nBody:\nnote {n}\n"
                    ),
                )
                .unwrap();
            }
        }
    }
    // A link that leads nowhere in the oldest month: a problem of the
    // walk, which only a listing of that month finds.
    let gone = root.join("Alpha/2026/09/000000-gone.md");
    std::os::unix::fs::symlink(root.join("nowhere.md"), &gone).unwrap();

    let whole = load_mailbox(&root);
    assert!(whole.problems.iter().any(|(p, _)| p == &gone));
    let parts = RefCell::new(Vec::new());
    let progress_before = RefCell::new(Vec::new());
    let called = std::cell::Cell::new(false);
    let stepped = load_mailbox_in_steps(&root, MAX, &|_, _| called.set(true), &|inbox| {
        progress_before.borrow_mut().push(called.get());
        parts.borrow_mut().push(inbox);
    })
    .unwrap();
    assert_eq!(stepped, whole);
    let parts = parts.into_inner();
    assert_eq!(parts.len(), 1, "one step, then the whole inbox");
    let part = &parts[0];
    assert_eq!(
        progress_before.into_inner(),
        [false],
        "the step comes before the whole walk (whose end the first progress call reports)"
    );
    assert!(
        !part.problems.iter().any(|(p, _)| p == &gone),
        "the oldest month was not listed for the step"
    );
    assert!(part.messages.len() >= FIRST_STEP);
    assert!(
        part.messages.len() <= 3 * per,
        "only the newest month is read"
    );
    assert_newest_top(part, &whole);
}

/// A folder above a mailbox loaded in steps: each step shows the acks
/// its messages have in the mailbox's own journal, as the whole inbox
/// does (`mailbox::homes`). The steps applied the named folder's journal
/// alone, so a message acked in its mailbox showed as owed until the
/// load was done. Both kinds of first step: a mailbox filed by date
/// (handed out before the whole walk) and a flat one.
#[test]
fn a_step_of_a_folder_above_a_mailbox_shows_the_mailbox_s_acks() {
    let now = chrono::Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    for dated in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let mail = dir.path().join("mail");
        if dated {
            amail::demo::corpus::write_corpus(&mail, 20_000, now).unwrap();
        } else {
            std::fs::create_dir_all(&mail).unwrap();
            for n in 1..=4 * FIRST_STEP + 100 {
                std::fs::write(
                    mail.join(format!("{n:06}-help.md")),
                    format!(
                        "Subject: [b-{n}] HELP_REQUEST\nFrom: W\nTo: O\nAck-Required: true\n\nBody:\nBead: b-{n}\nIssue Type: STUCK\n"
                    ),
                )
                .unwrap();
            }
        }
        // Acks in the mailbox's journal, among the newest messages too.
        let whole = load_mailbox(&mail);
        let mut owed: Vec<_> = whole
            .messages
            .iter()
            .filter(|m| m.message.ack_required && !m.recipients.is_empty())
            .map(|m| {
                let name = m.path.as_deref().unwrap().file_name().unwrap();
                (name.to_owned(), m.key.to_string(), m.recipients[0].agent)
            })
            .collect();
        // Newest names first, as a load reads them.
        owed.sort_by(|a, b| b.0.cmp(&a.0));
        for (_, key, agent) in owed.iter().step_by(7).take(200) {
            ack_in_journal(&mail, key, agent, now);
        }
        let whole = load_mailbox(dir.path());
        assert_eq!(acks_in(&whole), 200, "dated: {dated}");
        let (parts, stepped) = load_in_steps(dir.path());
        assert_eq!(stepped, whole, "dated: {dated}");
        assert!(!parts.is_empty(), "dated: {dated}");
        for part in &parts {
            for m in &part.messages {
                let full = whole.message_by_key(&m.key).unwrap();
                assert_eq!(m.recipients, full.recipients, "dated: {dated}, {}", m.key);
            }
            assert!(acks_in(part) > 0, "dated: {dated}");
            // A message written while the load runs (`c` on a step) is
            // placed by the step's messages as by the whole inbox's.
            let from = part.messages[0].message.from.as_deref().unwrap();
            let draft = amail_core::stores::Draft {
                from: from.to_string(),
                to: vec!["O".into()],
                kind: None,
                bead: None,
                subject: "s".into(),
                body: "b".into(),
                thread: None,
                importance: None,
                ack_required: false,
            };
            let keys = amail_core::stores::mailbox::send_context(part, &draft);
            assert!(!keys.is_empty(), "dated: {dated}");
        }
    }
}
