//! An existing AOF data dir works: a task file and event log as the real
//! AOF writes them (reference §1.3, §4) are read, routed into and written
//! back with the same fields, and our event ids continue after AOF's.

use std::fs;

use amail_core::aof::validate::{envelope_from_value, Validated};
use amail_core::aof::Routable;
use amail_core::aof::TaskStatus;
use amail_core::router::events;
use amail_core::router::{Router, RouterOptions, Store};
use serde_json::json;

const ID: &str = "TASK-2026-11-22-D4j2t7Vy";

const AOF_TASK: &str = "---
schemaVersion: 1
id: TASK-2026-11-22-D4j2t7Vy
project: demo
title: Probe task
status: review
priority: normal
routing:
  agent: swe-backend
  tags: []
lease:
  agent: swe-backend
  acquiredAt: 2026-11-22T03:13:33.909Z
  expiresAt: 2026-11-22T03:23:33.909Z
  renewCount: 0
createdAt: 2026-11-22T03:13:33.874Z
updatedAt: 2026-11-22T03:13:33.989Z
lastTransitionAt: 2026-11-22T03:13:33.989Z
createdBy: main
dependsOn: []
contentHash: ee3489a0a8406ca7
metadata:
  reviewRequired: true
gateHistory: []
tests: []
---

## Instructions

Do it.

## Work Log
- 2026-11-22T03:13:33.942Z Progress: half done | Notes: ok
";

#[test]
fn routes_into_a_store_written_by_aof() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("tasks/review").join(ID).join("outputs")).unwrap();
    fs::write(root.join(format!("tasks/review/{ID}.md")), AOF_TASK).unwrap();
    fs::write(
        root.join(format!("tasks/review/{ID}/outputs/summary.md")),
        "s\n",
    )
    .unwrap();
    fs::create_dir_all(root.join("events")).unwrap();
    fs::write(
        root.join("events/2026-11-22.jsonl"),
        "{\"eventId\":7,\"type\":\"task.transitioned\",\"timestamp\":\"2026-11-22T03:13:33.991Z\",\"actor\":\"swe-backend\",\"taskId\":\"TASK-2026-11-22-D4j2t7Vy\",\"payload\":{\"from\":\"in-progress\",\"to\":\"review\",\"reason\":\"done!\"}}\n",
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("2026-11-22.jsonl", root.join("events/events.jsonl")).unwrap();

    let store = Store::open(root).unwrap();
    let tasks = store.list().unwrap();
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0].status, "review");
    assert_eq!(tasks[0].agent.as_deref(), Some("swe-backend"));

    let v = json!({ "protocol": "aof", "version": 1, "type": "status.update", "projectId": "demo", "taskId": ID,
                    "fromAgent": "reviewer", "toAgent": "dispatcher", "sentAt": "2026-11-22T04:00:00.000Z",
                    "payload": { "taskId": ID, "agentId": "reviewer", "status": "done", "notes": "approved" } });
    let Ok(Validated::Envelope(e)) = envelope_from_value(&v) else {
        panic!()
    };
    let router = Router::new(store.clone(), RouterOptions::default());
    router.route(&Routable::named(e, None, None)).unwrap();
    store.checkpoint().unwrap();

    assert_eq!(store.locate_all(ID), vec![TaskStatus::Done]);
    assert!(root
        .join(format!("tasks/done/{ID}/outputs/summary.md"))
        .is_file());
    let text = fs::read_to_string(root.join(format!("tasks/done/{ID}.md"))).unwrap();
    // Same keys in the same order, values carried over; done clears the lease.
    let keys: Vec<&str> = text
        .lines()
        .skip(1)
        .take_while(|l| *l != "---")
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "schemaVersion",
            "id",
            "project",
            "title",
            "status",
            "priority",
            "routing",
            "createdAt",
            "updatedAt",
            "lastTransitionAt",
            "createdBy",
            "dependsOn",
            "contentHash",
            "metadata",
            "gateHistory",
            "tests"
        ]
    );
    assert!(text.contains("status: done\n"));
    assert!(text.contains("createdBy: main\n"));
    assert!(text.contains("lastTransitionAt: 2026-11-22T04:00:00.000Z\n"));
    assert!(text.contains("## Instructions\n\nDo it."));
    // Event ids continue after AOF's 7; the symlink is not read as a log.
    let (evs, bad) = events::read_all(&root.join("events")).unwrap();
    assert!(bad.is_empty(), "{bad:?}");
    let ids: Vec<u64> = evs.iter().map(|e| e.event_id).collect();
    assert_eq!(ids, [7, 8, 9]);
    assert_eq!(
        evs[2].payload,
        json!({ "from": "review", "to": "done", "reason": "approved" })
    );
}

/// The board takes a task's status from the directory its file is in, as
/// AOF does: a front-matter status AOF does not know (or one that
/// disagrees) does not hide the task or invent a new column.
#[test]
fn a_task_with_an_unknown_status_is_listed_by_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("tasks/review")).unwrap();
    fs::write(
        root.join(format!("tasks/review/{ID}.md")),
        AOF_TASK.replace("status: review", "status: on-hold"),
    )
    .unwrap();
    let tasks = Store::open(root).unwrap().list().unwrap();
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0].status, TaskStatus::Review);
    assert_eq!(
        serde_json::to_value(&tasks[0]).unwrap()["status"],
        json!("review")
    );
}

/// AOF keeps a task's `metadata` keys (and unknown front-matter keys) in
/// the order they were written (JavaScript objects keep insertion order;
/// `yaml.stringify` writes them so). A rewrite by amail keeps that order
/// and adds its own keys at the end, instead of sorting them.
#[test]
fn metadata_and_unknown_keys_keep_their_order_on_rewrite() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("tasks/in-progress")).unwrap();
    let task = AOF_TASK
        .replace("status: review", "status: in-progress")
        .replace(
            "metadata:\n  reviewRequired: true\n",
            "metadata:\n  sessionId: s-1\n  reviewRequired: true\n  assignee: ann\n  correlationId: c-9\n",
        )
        .replace("tests: []\n", "tests: []\nzeta: 1\nalpha: 2\n");
    fs::write(root.join(format!("tasks/in-progress/{ID}.md")), task).unwrap();
    let store = Store::open(root).unwrap();
    let v = json!({ "protocol": "aof", "version": 1, "type": "status.update", "projectId": "demo", "taskId": ID,
                    "fromAgent": "swe-backend", "toAgent": "dispatcher", "sentAt": "2026-11-22T04:00:00.000Z",
                    "payload": { "taskId": ID, "agentId": "swe-backend", "status": "blocked", "blockers": ["db"] } });
    let Ok(Validated::Envelope(e)) = envelope_from_value(&v) else {
        panic!()
    };
    let router = Router::new(store.clone(), RouterOptions::default());
    router.route(&Routable::named(e, None, None)).unwrap();
    store.checkpoint().unwrap();
    let text = fs::read_to_string(root.join(format!("tasks/blocked/{ID}.md"))).unwrap();
    assert!(
        text.contains(
            "metadata:\n  sessionId: s-1\n  reviewRequired: true\n  assignee: ann\n  correlationId: c-9\n"
        ),
        "{text}"
    );
    assert!(text.contains("tests: []\nzeta: 1\nalpha: 2\n---"), "{text}");
}

/// `amail events --json` prints an event log AOF wrote as AOF wrote it:
/// the reference's sample lines (§4), and one with a nested payload (AOF's
/// `task.updated {changes: {title: {from, to}}}`), keys in AOF's order,
/// not sorted.
#[test]
fn events_json_prints_aofs_lines_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("tasks/ready")).unwrap();
    fs::create_dir_all(root.join("events")).unwrap();
    let lines = [
        r#"{"eventId":3,"type":"protocol.message.received","timestamp":"2026-11-22T03:13:33.973Z","actor":"swe-backend","taskId":"TASK-2026-11-22-D4j2t7Vy","payload":{"type":"completion.report"}}"#,
        r#"{"eventId":5,"type":"task.transitioned","timestamp":"2026-11-22T03:13:33.991Z","actor":"swe-backend","taskId":"TASK-2026-11-22-D4j2t7Vy","payload":{"from":"in-progress","to":"review","reason":"done!"}}"#,
        r#"{"eventId":7,"type":"protocol.message.rejected","timestamp":"2026-11-22T03:13:34.008Z","actor":"system","payload":{"reason":"invalid_json","source":"json","error":"Expected property name or '}' in JSON at position 1"}}"#,
        r#"{"eventId":8,"type":"task.updated","timestamp":"2026-11-22T03:13:34.100Z","actor":"system","taskId":"TASK-2026-11-22-D4j2t7Vy","payload":{"changes":{"title":{"from":"b","to":"a"}}}}"#,
    ];
    let mut log = lines.join("\n");
    log.push('\n');
    fs::write(root.join("events/2026-11-22.jsonl"), &log).unwrap();
    let out = crate::support::router::amail(
        &["events", "--json", "--store", root.to_str().unwrap()],
        &[],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), log);
}

/// A `run.json` AOF wrote keeps its metadata keys in AOF's order when a
/// completion report completes it: AOF spreads the old metadata and adds
/// `completedAt` after it (reference §5.1, "preserve other metadata").
#[test]
fn run_json_metadata_keeps_aofs_order_when_completed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let running = AOF_TASK
        .replace("status: review", "status: in-progress")
        .replace(
            "  reviewRequired: true\n",
            "  reviewRequired: true\n  sessionId: s-1\n",
        );
    fs::create_dir_all(root.join("tasks/in-progress")).unwrap();
    fs::write(root.join(format!("tasks/in-progress/{ID}.md")), running).unwrap();
    let run_dir = root.join(format!("state/runs/{ID}"));
    fs::create_dir_all(&run_dir).unwrap();
    fs::write(
        run_dir.join("run.json"),
        r#"{
  "taskId": "TASK-2026-11-22-D4j2t7Vy",
  "agentId": "swe-backend",
  "startedAt": "2026-11-22T03:13:33.909Z",
  "status": "running",
  "artifactPaths": {
    "inputs": "inputs/",
    "work": "work/",
    "output": "output/"
  },
  "metadata": {
    "sessionId": "s-1",
    "correlationId": "c-1"
  }
}"#,
    )
    .unwrap();
    let store = Store::open(root).unwrap();
    let v = json!({ "protocol": "aof", "version": 1, "type": "completion.report", "projectId": "demo", "taskId": ID,
                    "fromAgent": "swe-backend", "toAgent": "dispatcher", "sentAt": "2026-11-22T04:00:00.000Z",
                    "payload": { "outcome": "needs_review", "summaryRef": "", "tests": { "total": 0, "passed": 0, "failed": 0 }, "notes": "" } });
    let Ok(Validated::Envelope(e)) = envelope_from_value(&v) else {
        panic!()
    };
    Router::new(store, RouterOptions::default())
        .route(&Routable::named(e, None, None))
        .unwrap();
    let run = fs::read_to_string(run_dir.join("run.json")).unwrap();
    assert!(
        run.contains(
            r#"  "metadata": {
    "sessionId": "s-1",
    "correlationId": "c-1",
    "completedAt": "2026-11-22T04:00:00.000Z"
  }"#
        ),
        "{run}"
    );
}
