//! A byte that is not UTF-8 in a store's file spoils its line or its file,
//! never the store: a write torn inside a character (a crash or a full
//! disk while appending a title such as `Übersetzung`), or a foreign
//! program's bytes. The write-ahead log drops a torn last line as it drops
//! any other, the event log skips the line, a task file is a bad file
//! named by its line and column, and `amail doctor` reports and heals it
//! as it does the same damage in ASCII.

use std::fs;
use std::io::Write;
use std::path::Path;

use amail_core::router::{doctor, Store};

use crate::support::fixture::fixture;
use crate::support::router::*;

/// A store with the fixture mailbox routed into it, checkpointed (its
/// write-ahead log empty).
fn routed() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = scratch();
    let root = dir.path().join("store");
    assert!(route(&root, &[&fixture()]).status.success());
    (dir, root)
}

fn append(path: &Path, bytes: &[u8]) {
    fs::OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

/// The first half of `Ü` (0xC3 0x9C): where a torn write of a title stops.
const TORN: &[u8] = b"{\"eventId\":99,\"type\":\"task.created\",\"actor\":\"\xc3";

#[test]
fn a_write_ahead_log_torn_inside_a_character_is_dropped_like_any_torn_line() {
    let (_d, root) = routed();
    let wal = root.join("state/amail/wal.jsonl");
    assert_eq!(fs::metadata(&wal).unwrap().len(), 0, "checkpointed");
    let before = snapshot(&root);
    append(
        &wal,
        b"{\"ops\":[{\"op\":\"write\",\"path\":\"tasks/ready/x.md\",\"content\":\"\xc3",
    );
    let out = amail(&["tasks", "--store", root.to_str().unwrap()], &[]);
    assert!(out.status.success(), "{}", text(&out));
    // Routing again works, and finds everything routed already.
    let out = route(&root, &[&fixture()]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("10 duplicates"), "{}", text(&out));
    let after = snapshot(&root);
    assert_same(&after, &before, "the torn plan never ran");
    assert!(!root.join("tasks/ready/x.md").exists());
}

#[test]
fn an_event_log_torn_inside_a_character_is_read_to_its_last_whole_line_and_healed() {
    let (_d, root) = routed();
    let store = root.to_str().unwrap();
    let log = events_file(&root);
    let whole = fs::read(&log).unwrap();
    append(&log, TORN);

    let out = amail(&["events", "--store", store], &[]);
    assert!(out.status.success(), "{}", text(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("task.created"), "{shown}");
    assert!(
        text(&out).contains("skipped 1 line that is not an event"),
        "{}",
        text(&out)
    );

    let s = Store::open(&root).unwrap();
    let check = doctor::run(&s, false).unwrap();
    let line = whole.iter().filter(|b| **b == b'\n').count() + 1;
    let at = format!("{}:{line}:", log.display());
    assert!(
        check.problems.iter().any(|p| p.starts_with(&at)),
        "{check:?}"
    );
    let healed = doctor::run(&s, true).unwrap();
    assert!(healed.consistent(), "{healed:?}");
    assert_eq!(fs::read(&log).unwrap(), whole, "the torn line cut off");
}

#[test]
fn an_event_line_that_is_not_utf8_is_named_by_line_and_column_and_the_rest_is_read() {
    let (_d, root) = routed();
    let store = root.to_str().unwrap();
    let log = events_file(&root);
    let whole = fs::read(&log).unwrap();
    let lines = whole.iter().filter(|b| **b == b'\n').count();
    // A whole line, not the last, with a stray byte at its ninth column.
    let mut bytes = b"{\"eventI\xff\":1}\n".to_vec();
    bytes.extend_from_slice(&whole);
    fs::write(&log, &bytes).unwrap();

    let out = amail(&["events", "--store", store], &[]);
    assert!(out.status.success(), "{}", text(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        shown.lines().filter(|l| l.contains("task.")).count(),
        String::from_utf8_lossy(&whole)
            .lines()
            .filter(|l| l.contains("\"task."))
            .count(),
        "{shown}"
    );
    let out = amail(&["doctor", "--check", "--store", store], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let want = format!("{}:1:9: not an event: invalid UTF-8", log.display());
    assert!(text(&out).contains(&want), "{}", text(&out));
    // Not healed: only a torn last line is doctor's to cut.
    let out = amail(&["doctor", "--store", store], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(fs::read(&log).unwrap().len(), bytes.len());
    assert_eq!(lines + 1, bytes.iter().filter(|b| **b == b'\n').count());
}

#[test]
fn a_task_file_that_is_not_utf8_is_named_by_line_and_column() {
    let (d, root) = routed();
    let store = root.to_str().unwrap();
    let id = task_of_bead(&Store::open(&root).unwrap(), "ol-527.1");
    let task = root.join(format!("tasks/review/{id}.md"));
    let text_of = fs::read_to_string(&task).unwrap();
    let line = text_of
        .lines()
        .position(|l| l.starts_with("title: "))
        .unwrap()
        + 1;
    let mut bytes = text_of.replacen("title: ", "title: \u{e9}", 1).into_bytes();
    // `é` cut to its first byte: the title's eighth column.
    let at = bytes.windows(2).position(|w| w == "é".as_bytes()).unwrap();
    bytes.remove(at + 1);
    fs::write(&task, &bytes).unwrap();
    let want = format!("{}:{line}:8: invalid UTF-8 (byte 0xc3)", task.display());

    let out = amail(&["tasks", "--store", store], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains(&want), "{}", text(&out));
    let out = amail(&["doctor", "--check", "--store", store], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains(&want), "{}", text(&out));
    // New mail for that task names the file the same way.
    let mail = d.path().join("more");
    write_mail(
        &mail,
        "progress.md",
        "more-1",
        "GreenCastle",
        "2026-11-22T04:00:00Z",
        "[ol-527.1] PROGRESS",
        "Bead: ol-527.1\nStatus: still going\n",
    );
    let out = route(&root, &[&mail]);
    assert!(text(&out).contains(&want), "{}", text(&out));
    assert_eq!(fs::read(&task).unwrap(), bytes, "nothing rewritten");
}
