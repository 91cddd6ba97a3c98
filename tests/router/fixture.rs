//! End to end over the fixture mailbox (mcp_agent_mail 0.1.0 sample):
//! `amail route`, then the store's board, Work Logs and event log.

use std::fs;

use amail_core::router::Store;

use crate::support::fixture::fixture;
use crate::support::router::*;

#[test]
fn fixture_routes_to_one_task_per_bead_both_in_review() {
    let dir = scratch();
    let store_dir = dir.path().join("store");
    let out = route(&store_dir, &[&fixture()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = String::from_utf8_lossy(&out.stdout);
    assert_eq!(line.lines().count(), 1, "one summary line: {line}");
    assert!(line.contains("2 tasks created"), "{line}");

    let store = Store::open(&store_dir).unwrap();
    let tasks = store.list().unwrap();
    assert_eq!(tasks.len(), 2, "{tasks:?}");
    let mut beads: Vec<_> = tasks.iter().map(|t| t.bead.clone().unwrap()).collect();
    beads.sort();
    assert_eq!(beads, ["ol-527.1", "ol-527.2"]);
    assert!(tasks.iter().all(|t| t.status == "review"), "{tasks:?}");
    let t1 = tasks
        .iter()
        .find(|t| t.bead.as_deref() == Some("ol-527.1"))
        .unwrap();
    assert_eq!(t1.title, "Add token auth to API");
    assert_eq!(t1.agent.as_deref(), Some("GreenCastle"));

    // The help request is a blocker in ol-527.2's Work Log, and the answer follows it.
    let t2 = tasks
        .iter()
        .find(|t| t.bead.as_deref() == Some("ol-527.2"))
        .unwrap();
    let (_, task) = store.get(&t2.id).unwrap().unwrap();
    let log = task.body.split("## Work Log").nth(1).expect("a Work Log");
    let help = log
        .lines()
        .find(|l| l.contains("Blockers: SPEC_UNCLEAR: The spec does not say"))
        .unwrap_or_else(|| panic!("no blocker line in:\n{log}"));
    assert!(
        help.contains("Notes: Keep the UNIQUE index on users.email, or drop it?"),
        "{help}"
    );
    assert!(
        log.contains("Notes: Keep the UNIQUE index on users.email; add a backfill step"),
        "{log}"
    );

    // Completion artifacts: summary, run_result with counted checks.
    let summary = store_dir.join(format!("tasks/review/{}/outputs/summary.md", t2.id));
    assert!(fs::read_to_string(summary)
        .unwrap()
        .contains("Users migration with email backfill"));
    let rr: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(store_dir.join(format!("state/runs/{}/run_result.json", t2.id)))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(rr["outcome"], "needs_review");
    assert_eq!(
        rr["tests"],
        serde_json::json!({ "total": 3, "passed": 2, "failed": 1 })
    );
    assert_eq!(rr["summaryRef"], "outputs/summary.md");

    // Each transition once: ready -> in-progress -> review per task.
    let log = event_log(&store_dir);
    let transitions: Vec<_> = log.iter().filter(|e| e.1 == "task.transitioned").collect();
    assert_eq!(transitions.len(), 4, "{transitions:?}");
    // The unknown-type message ("Wave 1 status") routed nowhere.
    let received = log
        .iter()
        .filter(|e| e.1 == "protocol.message.received")
        .count();
    assert_eq!(received, 10);
    assert!(!log
        .iter()
        .any(|e| e.1 == "protocol.message.unknown" || e.1 == "protocol.message.rejected"));
    assert!(!log
        .iter()
        .any(|e| e.2 == "BlueLake" && e.4.contains("Both beads reported")));
    // eventIds are 1..=n with no gaps.
    assert!(log.iter().enumerate().all(|(i, e)| e.0 == i as u64 + 1));
}

#[test]
fn routing_the_fixture_twice_changes_nothing() {
    let dir = scratch();
    let store_dir = dir.path().join("store");
    assert!(route(&store_dir, &[&fixture()]).status.success());
    let files = snapshot(&store_dir);
    let events_before = event_log(&store_dir);
    let raw_before: Vec<_> = fs::read_dir(store_dir.join("events"))
        .unwrap()
        .map(|e| fs::read(e.unwrap().path()).unwrap())
        .collect();
    let out = route(&store_dir, &[&fixture()]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("10 duplicates"));
    assert_same(&snapshot(&store_dir), &files, "second routing");
    assert_eq!(
        event_log(&store_dir),
        events_before,
        "a second routing logged events"
    );
    let raw_after: Vec<_> = fs::read_dir(store_dir.join("events"))
        .unwrap()
        .map(|e| fs::read(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(raw_before, raw_after);
}

#[test]
fn no_create_refuses_unknown_beads() {
    let dir = scratch();
    let store_dir = dir.path().join("store");
    let out = amail(
        &[
            "route",
            fixture().to_str().unwrap(),
            "--store",
            store_dir.to_str().unwrap(),
            "--no-create",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rejected: task_not_found"), "{err}");
    assert!(err.contains(".md:1:1"), "errors name file:line:col: {err}");
    assert!(Store::open(&store_dir).unwrap().list().unwrap().is_empty());
    let log = event_log(&store_dir);
    assert_eq!(log.len(), 10);
    assert!(log
        .iter()
        .all(|e| e.1 == "protocol.message.rejected" && e.4.contains("task_not_found")));
    // AOF's route pre-check payload, `{reason, projectId}` (the archive's
    // project), then the bead there is no task for.
    for e in &log {
        assert!(
            e.4.starts_with(r#"{"reason":"task_not_found","projectId":""#)
                && e.4.contains(r#"","beadId":""#),
            "{}",
            e.4
        );
    }
}

#[test]
fn tasks_events_doctor_commands_read_the_store() {
    let dir = scratch();
    let s = dir.path().join("store");
    let sp = s.to_str().unwrap();
    assert!(route(&s, &[&fixture()]).status.success());
    let board = amail(&["tasks", "--store", sp], &[]);
    let board = String::from_utf8_lossy(&board.stdout);
    assert!(board.starts_with("review (2)"), "{board}");
    let json = amail(&["tasks", "--store", sp, "--json"], &[]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2);
    let ev = amail(
        &[
            "events",
            "--store",
            sp,
            "--json",
            "--type",
            "task.transitioned",
        ],
        &[],
    );
    assert_eq!(String::from_utf8_lossy(&ev.stdout).lines().count(), 4);
    let doc = amail(&["doctor", "--store", sp], &[]);
    assert!(doc.status.success());
    assert!(String::from_utf8_lossy(&doc.stdout).contains("is consistent (2 tasks)"));
    // Nothing is in progress, so a sweep moves nothing.
    let sw = amail(&["sweep", "--store", sp], &[]);
    // Counts as a person says them (they read "transition(s)").
    assert!(
        String::from_utf8_lossy(&sw.stdout)
            .contains("sweep: 0 session-end transitions, 0 stale tasks recovered"),
        "{}",
        String::from_utf8_lossy(&sw.stdout)
    );
    for cmd in ["route", "tasks", "events", "sweep", "doctor"] {
        let help = amail(&[cmd, "--help"], &[]);
        assert!(
            String::from_utf8_lossy(&help.stdout).contains("Example"),
            "{cmd} --help"
        );
    }
}
