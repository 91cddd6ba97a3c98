//! Mail flows beyond the fixture, end to end through `amail route`: every
//! completion type, a BLOCKED help request, spawn traffic, and a bead whose
//! first message is not BEAD_ACCEPTED.

use std::collections::HashMap;

use amail_core::router::Store;

use crate::support::router::*;

fn accept(dir: &std::path::Path, bead: &str, n: u32) {
    write_mail(
        dir,
        &format!("{bead}-0.md"),
        &format!("{bead}-0"),
        &format!("w-{bead}"),
        &format!("2026-11-22T02:{n:02}:00Z"),
        &format!("[{bead}] BEAD_ACCEPTED"),
        &format!("Accepted bead: {bead}\nTitle: Title {bead}\nStarting implementation at: 2026-11-22T02:00:00Z"),
    );
}

fn send(dir: &std::path::Path, bead: &str, n: u32, kind: &str, body: &str) {
    write_mail(
        dir,
        &format!("{bead}-{kind}.md"),
        &format!("{bead}-{kind}"),
        &format!("w-{bead}"),
        &format!("2026-11-22T02:{n:02}:30Z"),
        &format!("[{bead}] {kind}"),
        &format!("Bead: {bead}\n{body}"),
    );
}

#[test]
fn each_kind_of_report_lands_where_the_table_says() {
    let dir = scratch();
    let mail = dir.path().join("mail");
    for (i, b) in ["done-ok", "done-fail", "failed", "checkpoint", "blocked"]
        .iter()
        .enumerate()
    {
        accept(&mail, b, i as u32);
    }
    send(&mail, "done-ok", 0, "DONE", "Status: DONE\n\n## Self-Validation\n- Tests: PASS\n- Lint: PASS\n- Build: PASS\n\n## Summary\nAll good.");
    send(
        &mail,
        "done-fail",
        1,
        "DONE",
        "Status: DONE\n\n## Self-Validation\n- Tests: FAIL\n\n## Summary\nMostly.",
    );
    send(&mail, "failed", 2, "FAILED", "Status: FAILED\n\n## Failure\nType: BUILD_FAIL\nReason: linker error\n\n## Recommendation\nUpdate the toolchain.");
    send(&mail, "checkpoint", 3, "CHECKPOINT", "Reason: CONTEXT_HIGH\n\n## Progress\n- Description: half\n\n## Next Steps for Successor\nDo the rest.");
    send(
        &mail,
        "blocked",
        4,
        "HELP_REQUEST",
        "Issue Type: BLOCKED\n\n## Problem\nNo database access.\n\n## Question\nCredentials?",
    );
    // A PROGRESS for a bead never accepted: the task is created ready and stays there.
    send(
        &mail,
        "orphan",
        5,
        "PROGRESS",
        "Step: Step 1\nStatus: started",
    );
    // Spawn traffic for a bead: notes only.
    write_mail(
        &mail,
        "spawn.md",
        "spawn-1",
        "orchestrator",
        "2026-11-22T02:59:00Z",
        "[done-ok] SPAWN_REQUEST",
        "Issue: done-ok\nResume: false",
    );

    let store_dir = dir.path().join("store");
    let out = route(&store_dir, &[&mail]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let store = Store::open(&store_dir).unwrap();
    let by_bead: HashMap<String, String> = store
        .list()
        .unwrap()
        .into_iter()
        .map(|t| (t.bead.unwrap(), t.status.to_string()))
        .collect();
    assert_eq!(
        by_bead["done-ok"], "review",
        "done goes to review (review required by default)"
    );
    assert_eq!(by_bead["done-fail"], "review");
    assert_eq!(by_bead["failed"], "blocked");
    assert_eq!(by_bead["checkpoint"], "review");
    assert_eq!(by_bead["blocked"], "blocked");
    assert_eq!(by_bead["orphan"], "ready");
    assert_eq!(by_bead.len(), 6);

    let log = event_log(&store_dir);
    let completed: Vec<_> = log
        .iter()
        .filter(|e| e.1 == "task.completed")
        .map(|e| e.4.clone())
        .collect();
    for outcome in ["done", "needs_review", "blocked", "partial"] {
        assert!(
            completed
                .iter()
                .any(|p| p.contains(&format!("\"{outcome}\""))),
            "{outcome}: {completed:?}"
        );
    }
    let failed_reason = log
        .iter()
        .find(|e| {
            e.1 == "task.transitioned"
                && e.4.contains("\"to\":\"blocked\"")
                && e.4.contains("BUILD_FAIL")
        })
        .map(|e| e.4.clone());
    assert!(failed_reason.unwrap().contains("BUILD_FAIL: linker error"));
    // FAILED and CHECKPOINT carry no summary (`summaryRef` ""), DONE's is
    // written by the router: no report warns about a summary file.
    assert!(
        !log.iter().any(|e| e.1 == "protocol.message.warning"),
        "{log:?}"
    );
    // The spawn request is a note in done-ok's Work Log.
    let done_ok = store
        .list()
        .unwrap()
        .into_iter()
        .find(|t| t.bead.as_deref() == Some("done-ok"))
        .unwrap();
    let (_, task) = store.get(&done_ok.id).unwrap().unwrap();
    assert!(
        task.body.contains("Notes: spawn requested for done-ok"),
        "{}",
        task.body
    );
}

/// Answering a BLOCKED help request unblocks the task (blocked -> ready),
/// once: re-routing the same answer changes nothing, and an answer to a
/// task that was never blocked leaves its status alone.
#[test]
fn an_answer_unblocks_a_blocked_task_once() {
    let dir = scratch();
    let mail = dir.path().join("mail");
    accept(&mail, "stuck", 0);
    accept(&mail, "busy", 1);
    send(
        &mail,
        "stuck",
        2,
        "HELP_REQUEST",
        "Issue Type: BLOCKED\n\n## Problem\nNo database access.\n\n## Question\nCredentials?",
    );
    send(
        &mail,
        "busy",
        3,
        "HELP_REQUEST",
        "Issue Type: TECHNICAL\n\n## Problem\nSlow test.\n\n## Question\nSkip it?",
    );
    let store_dir = dir.path().join("store");
    assert!(route(&store_dir, &[&mail]).status.success());
    let status = |bead: &str| {
        Store::open(&store_dir)
            .unwrap()
            .list()
            .unwrap()
            .into_iter()
            .find(|t| t.bead.as_deref() == Some(bead))
            .unwrap()
            .status
    };
    assert_eq!(status("stuck"), "blocked");
    assert_eq!(status("busy"), "in-progress");

    for (bead, n) in [("stuck", 4), ("busy", 5)] {
        write_mail(
            &mail,
            &format!("{bead}-answer.md"),
            &format!("{bead}-answer"),
            "orchestrator",
            &format!("2026-11-22T02:{n:02}:45Z"),
            &format!("Re: [{bead}] HELP_REQUEST"),
            "HELP_RESPONSE\n\nUse the staging credentials.",
        );
    }
    assert!(route(&store_dir, &[&mail]).status.success());
    assert_eq!(status("stuck"), "ready", "the answer unblocks the worker");
    assert_eq!(
        status("busy"),
        "in-progress",
        "an answer never moves unblocked work"
    );
    let unblocked = |log: &[(u64, String, String, Option<String>, String)]| {
        log.iter()
            .filter(|e| e.1 == "task.transitioned" && e.4.contains("\"to\":\"ready\""))
            .count()
    };
    assert_eq!(unblocked(&event_log(&store_dir)), 1);

    let before = snapshot(&store_dir);
    assert!(route(&store_dir, &[&mail]).status.success());
    assert_same(&snapshot(&store_dir), &before, "re-routing the answer");
}

/// A task retitled by a later BEAD_ACCEPTED is logged as AOF's `update`
/// logs a title patch: `task.updated {changes: {title: {from, to}}}`,
/// actor `system`.
#[test]
fn a_retitle_is_logged_as_aofs_title_update() {
    let dir = scratch();
    let mail = dir.path().join("mail");
    let store = dir.path().join("store");
    send(
        &mail,
        "ol-9",
        1,
        "PROGRESS",
        "Step: wiring\nStatus: started",
    );
    accept(&mail, "ol-9", 2);
    assert!(route(&store, &[&mail]).status.success());
    let updated: Vec<_> = event_log(&store)
        .into_iter()
        .filter(|e| e.1 == "task.updated")
        .collect();
    assert_eq!(updated.len(), 1, "{updated:?}");
    assert_eq!(updated[0].2, "system");
    assert_eq!(
        updated[0].4,
        r#"{"changes":{"title":{"from":"ol-9","to":"Title ol-9"}}}"#
    );
}
