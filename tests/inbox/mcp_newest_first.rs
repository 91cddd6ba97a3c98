//! An mcp_agent_mail storage root loads newest first too (issue 16): a
//! load in steps hands out browsable inboxes of the newest messages, read
//! and ack state applied, from the database's rows or (without a
//! database) the archive's files, and ends with the inbox a plain load
//! gives.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::path::Path;

use amail::demo::corpus::mcp;
use amail_core::inbox::Inbox;
use amail_core::stores::mcp::db::PAGE_ROWS;
use amail_core::stores::{self, LoadOptions, FIRST_STEP};

use super::newest_first::{acks_in, thread_of};
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
    let (parts, whole) = try_load_in_steps(root);
    (parts, whole.unwrap())
}

/// [`load_in_steps`], the load's error returned.
fn try_load_in_steps(root: &Path) -> (Vec<Inbox>, Result<Inbox, stores::Error>) {
    let store = stores::open(root, &LoadOptions::default()).unwrap();
    let (parts, counted, seen) = (
        RefCell::new(Vec::new()),
        RefCell::new(Vec::new()),
        Cell::new(0),
    );
    let whole = store.load_in_steps(
        &|done, total| {
            assert!(done >= seen.get() && done <= total, "{done} of {total}");
            seen.set(done);
        },
        &|inbox| {
            counted.borrow_mut().push(seen.get());
            parts.borrow_mut().push(inbox);
        },
    );
    let parts = parts.into_inner();
    for (part, counted) in parts.iter().zip(counted.into_inner()) {
        assert!(counted >= part.messages.len(), "{counted}");
    }
    (parts, whole)
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
        // A step the database's rows made before the archive's listing was
        // in knows no file yet (the whole inbox does).
        if held.path.is_none() {
            full.path = None;
        }
        assert_eq!(held, full, "{}", m.key);
        assert_eq!(in_part[m.key.as_str()], in_whole[m.key.as_str()]);
    }
    assert!(!part.agents.is_empty() && part.agents.len() <= whole.agents.len());
}

fn corpus(dir: &Path) -> mcp::McpCorpusInfo {
    corpus_of(dir, MESSAGES)
}

fn corpus_of(dir: &Path, messages: usize) -> mcp::McpCorpusInfo {
    let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    mcp::write_mcp_corpus(dir, messages, now).unwrap()
}

/// The sizes of a load's steps.
fn sizes(parts: &[Inbox]) -> Vec<usize> {
    parts.iter().map(|p| p.messages.len()).collect()
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

/// The rows come from the database in pages (`PAGE_ROWS`), newest first
/// by `created_ts` then id. Runs of 700 rows share one time, so page
/// boundaries (1,024, 2,048, ...) fall inside runs: no row is lost or
/// read twice there, and the step holds the newest rows, the highest ids
/// of its oldest run, as the inbox orders them.
#[test]
fn equal_times_across_page_boundaries_lose_and_repeat_no_row() {
    let dir = tempfile::tempdir().unwrap();
    let info = corpus(dir.path());
    let conn = Connection::open(&info.db).unwrap();
    let moved = conn
        .execute(
            "UPDATE messages SET created_ts = (SELECT m.created_ts FROM messages m
             WHERE m.id = ((messages.id - 1) / 700) * 700 + 1)",
            [],
        )
        .unwrap();
    assert_eq!(moved, MESSAGES);
    let times: i64 = conn
        .query_row("SELECT count(DISTINCT created_ts) FROM messages", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(times, MESSAGES.div_ceil(700) as i64);
    drop(conn);

    let whole = load(dir.path());
    assert_eq!(whole.messages.len(), MESSAGES);
    let (parts, stepped) = load_in_steps(dir.path());
    assert_eq!(stepped, whole);
    assert_eq!(sizes(&parts), [PAGE_ROWS]);
    check_part(&parts[0], &whole);
    // The step ends inside a run: its oldest rows share a time with rows
    // it does not hold, and it holds the higher ids of that run.
    let keys: HashSet<u64> = parts[0]
        .messages
        .iter()
        .map(|m| m.key.parse().unwrap())
        .collect();
    let top = MESSAGES as u64;
    assert_eq!(keys, (top - PAGE_ROWS as u64 + 1..=top).collect());
}

/// 4 pages of rows: the first page ends exactly where the step policy's
/// last step may come (a quarter of the work), so the one step is that
/// page, whole, and no second page joins it.
#[test]
fn a_page_ending_at_a_quarter_of_the_rows_is_the_one_step() {
    let dir = tempfile::tempdir().unwrap();
    corpus_of(dir.path(), 4 * PAGE_ROWS);
    let whole = load(dir.path());
    let (parts, stepped) = load_in_steps(dir.path());
    assert_eq!(stepped, whole);
    assert_eq!(sizes(&parts), [PAGE_ROWS]);
    check_part(&parts[0], &whole);
}

/// The first step comes after the first page, before the last one is
/// read: the oldest row is made unreadable (its project's slug a BLOB),
/// so the load fails on its last page, yet the step of the newest rows
/// was handed out before. (Read whole before the first step, the query
/// failed before any.)
#[test]
fn the_first_step_comes_before_the_oldest_rows_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let info = corpus(dir.path());
    let conn = Connection::open(&info.db).unwrap();
    conn.execute_batch(
        "INSERT INTO projects (id, slug, human_key, created_at)
         VALUES (99, X'FF', 'unreadable', '2026-01-01 00:00:00.000000');
         UPDATE messages SET project_id = 99 WHERE id = 1;",
    )
    .unwrap();
    drop(conn);
    assert!(stores::load(dir.path(), &LoadOptions::default()).is_err());
    let (parts, whole) = try_load_in_steps(dir.path());
    let error = whole.unwrap_err().to_string();
    assert!(error.contains("storage.sqlite3"), "{error}");
    assert_eq!(sizes(&parts), [PAGE_ROWS]);
    assert_eq!(
        parts[0]
            .messages
            .iter()
            .map(|m| m.key.parse::<usize>().unwrap())
            .min(),
        Some(MESSAGES - PAGE_ROWS + 1)
    );
}
