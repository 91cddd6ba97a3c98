//! An mcp_agent_mail storage root loads newest first too (issue 16): a
//! load in steps hands out browsable inboxes of the newest messages, read
//! and ack state applied, from the database's rows or (without a
//! database) the archive's files, and ends with the inbox a plain load
//! gives.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::Path;

use amail::demo::corpus::mcp;
use amail_core::inbox::Inbox;
use amail_core::stores::{self, LoadOptions, FIRST_STEP};
use chrono::{TimeZone, Utc};
use rusqlite::Connection;

/// Enough messages for one step: the first comes within the first
/// quarter of the work, the next (four times as many) would not.
const MESSAGES: usize = 5 * FIRST_STEP;

fn load(root: &Path) -> Inbox {
    stores::load(root, &LoadOptions::default()).unwrap()
}

/// The steps a load of `root` in steps hands out, and the inbox it
/// returns; each step comes after the progress call that counted it, and
/// the count never goes back.
fn load_in_steps(root: &Path) -> (Vec<Inbox>, Inbox) {
    let store = stores::open(root, &LoadOptions::default()).unwrap();
    let (parts, counted, seen) = (
        RefCell::new(Vec::new()),
        RefCell::new(Vec::new()),
        Cell::new(0),
    );
    let whole = store
        .load_in_steps(
            &|done, total| {
                assert!(done >= seen.get() && done <= total, "{done} of {total}");
                seen.set(done);
            },
            &|inbox| {
                counted.borrow_mut().push(seen.get());
                parts.borrow_mut().push(inbox);
            },
        )
        .unwrap();
    let parts = parts.into_inner();
    for (part, counted) in parts.iter().zip(counted.into_inner()) {
        assert!(counted >= part.messages.len(), "{counted}");
    }
    (parts, whole)
}

/// Each message's thread id, by key, from the threads' message lists.
fn thread_of(inbox: &Inbox) -> HashMap<&str, &str> {
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

/// `part` holds the newest messages of `whole`, as `whole` holds them, so
/// its threads are the top of `whole`'s list, in order.
fn check_part(part: &Inbox, whole: &Inbox) {
    assert!(part.messages.len() >= FIRST_STEP);
    assert!(part.messages.len() < whole.messages.len());
    super::newest_first::assert_newest_top(part, whole);
    let (in_part, in_whole) = (thread_of(part), thread_of(whole));
    for m in &part.messages {
        // The same message, acks and all; where its thread stands is an
        // index into each inbox's own list (checked just below by id).
        let (mut held, mut full) = (m.clone(), whole.message_by_key(&m.key).unwrap().clone());
        (held.thread_from_end, full.thread_from_end) = (0, 0);
        assert_eq!(held, full, "{}", m.key);
        assert_eq!(in_part[m.key.as_str()], in_whole[m.key.as_str()]);
    }
    assert!(!part.agents.is_empty() && part.agents.len() <= whole.agents.len());
}

fn acks_in(inbox: &Inbox) -> usize {
    inbox
        .messages
        .iter()
        .flat_map(|m| &m.recipients)
        .filter(|r| r.ack_at.is_some())
        .count()
}

fn corpus(dir: &Path) -> mcp::McpCorpusInfo {
    let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    mcp::write_mcp_corpus(dir, MESSAGES, now).unwrap()
}

#[test]
fn the_database_s_newest_rows_come_first_with_their_acks() {
    let dir = tempfile::tempdir().unwrap();
    let info = corpus(dir.path());
    // Acks old and new, as the server records them.
    let conn = Connection::open(&info.db).unwrap();
    let acked = conn
        .execute(
            "UPDATE message_recipients SET read_ts = '2026-01-15 12:00:00.000000',
             ack_ts = '2026-01-15 12:00:00.000000' WHERE message_id % 23 = 0",
            [],
        )
        .unwrap();
    assert!(acked > 100);
    drop(conn);

    let whole = load(dir.path());
    assert_eq!(acks_in(&whole), acked);
    let (parts, stepped) = load_in_steps(dir.path());
    assert_eq!(
        stepped, whole,
        "a load in steps ends with the plain load's inbox"
    );
    assert_eq!(
        parts.len(),
        1,
        "{:?}",
        parts.iter().map(|p| p.messages.len()).collect::<Vec<_>>()
    );
    check_part(&parts[0], &whole);
    assert!(acks_in(&parts[0]) > 0, "the step shows the acks it holds");
}

#[test]
fn without_a_database_the_newest_archive_files_come_first() {
    let dir = tempfile::tempdir().unwrap();
    let info = corpus(dir.path());
    for end in ["", "-wal", "-shm"] {
        let mut name = info.db.clone().into_os_string();
        name.push(end);
        let _ = std::fs::remove_file(name);
    }
    let whole = load(dir.path());
    assert!(
        whole
            .problems
            .iter()
            .any(|(_, why)| why.contains("no storage.sqlite3")),
        "{:?}",
        whole.problems
    );
    assert_eq!(whole.messages.len(), MESSAGES);
    let (parts, stepped) = load_in_steps(dir.path());
    assert_eq!(stepped, whole);
    assert_eq!(parts.len(), 1);
    check_part(&parts[0], &whole);
}

/// Rows without a body take their text from the archive, all read before
/// the rows: no step (the files are more than a quarter of the work), the
/// same inbox.
#[test]
fn rows_without_a_body_load_whole_and_alike() {
    let dir = tempfile::tempdir().unwrap();
    let info = corpus(dir.path());
    let conn = Connection::open(&info.db).unwrap();
    conn.execute("UPDATE messages SET body_md = ''", [])
        .unwrap();
    drop(conn);
    let whole = load(dir.path());
    let (parts, stepped) = load_in_steps(dir.path());
    assert!(parts.is_empty());
    assert_eq!(stepped, whole);
}
