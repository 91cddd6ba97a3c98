//! `amail doctor`: finds and heals split or misplaced tasks, orphaned
//! companion directories, a lost bead index entry, leftover temp files and
//! a torn event line; reports what it cannot fix.

use std::fs;

use amail_core::aof::TaskStatus;
use amail_core::router::{doctor, Store};

use crate::support::fixture::fixture;
use crate::support::router::*;

fn routed_store() -> (tempfile::TempDir, Store, String) {
    let dir = scratch();
    let root = dir.path().join("store");
    assert!(route(&root, &[&fixture()]).status.success());
    let store = Store::open(&root).unwrap();
    let id = task_of_bead(&store, "ol-527.1");
    (dir, store, id)
}

#[test]
fn a_clean_store_needs_nothing() {
    let (_d, store, _) = routed_store();
    let r = doctor::run(&store, true).unwrap();
    assert!(r.consistent() && r.healed.is_empty(), "{r:?}");
    assert_eq!(r.tasks, 2);
}

#[test]
fn a_task_in_two_status_directories_is_healed() {
    let (_d, store, id) = routed_store();
    let root = store.root().to_path_buf();
    // An older copy left behind in in-progress/, with a companion file.
    let text = fs::read_to_string(root.join(format!("tasks/review/{id}.md"))).unwrap();
    // (The stale copy is the one from before the last transition.)
    let stale = text
        .replace("status: review", "status: in-progress")
        .replace(
            "lastTransitionAt: 2026-11-22T03:23:50.614Z",
            "lastTransitionAt: 2026-11-22T03:23:50.175Z",
        )
        .replace(
            "updatedAt: 2026-11-22T03:23:50.614Z",
            "updatedAt: 2026-11-22T03:23:50.490Z",
        );
    assert_ne!(stale, text);
    fs::write(root.join(format!("tasks/in-progress/{id}.md")), stale).unwrap();
    fs::create_dir_all(root.join(format!("tasks/in-progress/{id}/work"))).unwrap();
    fs::write(
        root.join(format!("tasks/in-progress/{id}/work/notes.txt")),
        "keep me",
    )
    .unwrap();
    assert_eq!(store.locate_all(&id).len(), 2);
    // list() shows the task once, from the copy that agrees with its directory.
    let tasks = store.list().unwrap();
    assert_eq!(tasks.iter().filter(|t| t.id == id).count(), 1);

    let check = doctor::run(&store, false).unwrap();
    assert!(!check.consistent(), "check-only mode must report, not heal");
    let r = doctor::run(&store, true).unwrap();
    assert!(r.consistent(), "{r:?}");
    assert!(
        r.healed.iter().any(|h| h.contains("status directories")),
        "{r:?}"
    );
    assert_eq!(store.locate_all(&id), vec![TaskStatus::Review]);
    assert_eq!(
        fs::read_to_string(root.join(format!("tasks/review/{id}/work/notes.txt"))).unwrap(),
        "keep me"
    );
    assert!(!root.join(format!("tasks/in-progress/{id}")).exists());
}

#[test]
fn misplaced_task_index_temp_files_and_torn_events_are_healed() {
    let (_d, store, id) = routed_store();
    let root = store.root().to_path_buf();
    // Front matter says review, file sits in blocked/ (frontmatter wins, as AOF's reconcileDrift).
    fs::rename(
        root.join(format!("tasks/review/{id}.md")),
        root.join(format!("tasks/blocked/{id}.md")),
    )
    .unwrap();
    // The bead index entry is lost.
    for e in fs::read_dir(root.join("state/amail/beads")).unwrap() {
        fs::remove_file(e.unwrap().path()).unwrap();
    }
    // A leftover temp file and a torn last event line.
    fs::write(root.join("tasks/review/.amail-tmp-xyz"), "half").unwrap();
    let ev = events_file(&root);
    let mut text = fs::read_to_string(&ev).unwrap();
    text.push_str("{\"eventId\":99,\"ty");
    fs::write(&ev, text).unwrap();

    let r = doctor::run(&store, true).unwrap();
    assert!(r.consistent(), "{r:?}");
    assert_eq!(store.locate_all(&id), vec![TaskStatus::Review]);
    assert_eq!(
        store.task_for_bead("ol-527.1").as_deref(),
        Some(id.as_str())
    );
    assert!(!root.join("tasks/review/.amail-tmp-xyz").exists());
    assert!(fs::read_to_string(&ev).unwrap().ends_with("}\n"));
    // A second run finds nothing.
    let again = doctor::run(&store, true).unwrap();
    assert!(again.healed.is_empty(), "{again:?}");
    // And routing still works on the healed store: all duplicates.
    let out = route(&root, &[&fixture()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("10 duplicates"));
}

#[test]
fn unreadable_task_files_are_reported_with_location() {
    let (_d, store, _) = routed_store();
    let bad = store.root().join("tasks/ready/TASK-2026-11-22-BADBADBA.md");
    fs::write(&bad, "---\nid: [unclosed\n---\n").unwrap();
    let out = amail(&["doctor", "--store", store.root().to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("TASK-2026-11-22-BADBADBA.md:"), "{text}");
    assert!(bad.exists(), "doctor never deletes what it cannot read");
    let out = amail(
        &[
            "doctor",
            "--json",
            "--store",
            store.root().to_str().unwrap(),
        ],
        &[],
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["consistent"], false);
    assert_eq!(v["problems"].as_array().unwrap().len(), 1);
}

/// A line of the event log that is not an event was "FILE:LINE:1: not an
/// event", the column always 1 and no reason: which field was missing,
/// or where the JSON broke, had to be found by hand. The line is named
/// with the place and the reason serde gives, placed in the file.
#[test]
fn a_line_that_is_not_an_event_is_named_with_its_place_and_reason() {
    let (_d, store, _) = routed_store();
    let log = events_file(store.root());
    let whole = fs::read_to_string(&log).unwrap();
    fs::write(
        &log,
        format!("{{\"eventId\": 1, \"type\": x}}\n{{\"eventId\": 2}}\n{whole}"),
    )
    .unwrap();
    let r = doctor::run(&store, false).unwrap();
    let at = |n: usize| format!("{}:{n}:", log.display());
    assert!(
        r.problems
            .iter()
            .any(|p| p.starts_with(&format!("{}24: not an event: expected value", at(1)))),
        "{r:?}"
    );
    assert!(
        r.problems
            .iter()
            .any(|p| p.starts_with(&at(2)) && p.contains("not an event: missing field")),
        "{r:?}"
    );
}
