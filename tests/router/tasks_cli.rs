//! `amail tasks depend | approve | reject` and `amail tasks --agent`: what
//! a person does to a store from the shell, on the store named only.

use std::fs;
use std::path::Path;

use amail_core::router::events;
use amail_core::router::task::{Lease, Task};
use amail_core::router::Store;
use serde_json::{json, Value};

use crate::support::router::*;

const A: &str = "TASK-2026-02-09-301";
const B: &str = "TASK-2026-02-09-302";
const C: &str = "TASK-2026-02-09-303";
const D: &str = "TASK-2026-02-09-304";
const T0: &str = "2026-02-09T20:00:00.000Z";

fn put(store: &Store, id: &str, status: &str, f: impl FnOnce(&mut Task)) {
    let mut t = Task::new(id, &format!("Task {id}"), status, T0);
    f(&mut t);
    store.insert(t).unwrap();
}

fn tasks(root: &Path, args: &[&str]) -> std::process::Output {
    let mut a = vec!["tasks"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--store", root.to_str().unwrap()]);
    amail(&a, &[])
}

#[test]
fn depend_approve_and_the_cascade_from_the_shell() {
    let dir = scratch();
    let root = dir.path().join("store");
    let store = Store::open(&root).unwrap();
    put(&store, A, "review", |_| {});
    put(&store, B, "backlog", |_| {});
    let out = tasks(&root, &["depend", B, "--on", A]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("{B} now depends on {A}")
    );
    // The cycle back is refused, naming it, exit 1, nothing written.
    let before = fs::read_to_string(root.join(format!("tasks/review/{A}.md"))).unwrap();
    let out = tasks(&root, &["depend", A, "--on", B]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains(&format!(
            "would close a dependency cycle: {A} -> {B} -> {A}"
        )),
        "{}",
        text(&out)
    );
    let after = fs::read_to_string(root.join(format!("tasks/review/{A}.md"))).unwrap();
    assert_eq!(before, after);

    let out = tasks(&root, &["approve", A, "--actor", "lead"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("{A}: review -> done; ready now: {B}")
    );
    let (s, _) = store.get(B).unwrap().unwrap();
    assert_eq!(s.as_str(), "ready");
    let evs = events::read_all(&root.join("events")).unwrap().0;
    let approve = evs
        .iter()
        .find(|e| e.kind == "task.transitioned" && e.task_id.as_deref() == Some(A))
        .unwrap();
    assert_eq!(approve.actor, "lead");
    assert_eq!(
        approve.payload,
        json!({ "from": "review", "to": "done", "reason": "approved" })
    );
    assert!(evs
        .iter()
        .any(|e| e.kind == "dependency.cascaded" && e.payload["promoted"] == json!([B])));
    // Approving again: refused, it is not in review any more.
    let out = tasks(&root, &["approve", A]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains(&format!("task {A} is in 'done', not in review")),
        "{}",
        text(&out)
    );
}

#[test]
fn reject_sends_the_work_back_with_the_reason_in_the_work_log() {
    let dir = scratch();
    let root = dir.path().join("store");
    let store = Store::open(&root).unwrap();
    put(&store, A, "review", |t| {
        t.fm.routing.agent = Some("GreenCastle".into());
        t.fm.lease = Some(Lease {
            agent: "GreenCastle".into(),
            acquired_at: T0.into(),
            expires_at: T0.into(),
            renew_count: 0,
        });
    });
    let out = tasks(&root, &["reject", A, "--reason", "tests fail on CI"]);
    assert!(out.status.success(), "{}", text(&out));
    let (s, t) = store.get(A).unwrap().unwrap();
    assert_eq!(s.as_str(), "in-progress");
    let log = t.body.split("## Work Log").nth(1).expect("a Work Log");
    assert!(
        log.contains("Review rejected by human | Notes: tests fail on CI"),
        "{log}"
    );
    // The work goes back to the worker who held it, with a fresh lease.
    let lease = t.fm.lease.unwrap();
    assert_eq!(lease.agent, "GreenCastle");
    assert_ne!(lease.expires_at, T0);
    let evs = events::read_all(&root.join("events")).unwrap().0;
    let ev = evs.iter().find(|e| e.kind == "task.transitioned").unwrap();
    assert_eq!(ev.actor, "human");
    assert_eq!(
        ev.payload,
        json!({ "from": "review", "to": "in-progress", "reason": "tests fail on CI" })
    );
    // The task is the worker's again: AOF's `task.assigned`, actor and
    // payload the agent it went to (the reviewer only moved it).
    let kinds: Vec<_> = evs.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["task.transitioned", "task.assigned"]);
    assert_eq!(evs[1].actor, "GreenCastle");
    assert_eq!(evs[1].task_id.as_deref(), Some(A));
    assert_eq!(evs[1].payload.to_string(), r#"{"agent":"GreenCastle"}"#);
    // A reason is required: a blank one is a request the command cannot
    // make, usage (2) as an empty reply body is, and the task stays put.
    let out = tasks(&root, &["reject", A, "--reason", "  "]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("reason"));
}

#[test]
fn agent_mailbox_in_text_and_json() {
    let dir = scratch();
    let root = dir.path().join("store");
    let store = Store::open(&root).unwrap();
    // Owner: lease agent, else routing agent, else metadata.assignee.
    put(&store, A, "ready", |t| {
        t.fm.routing.agent = Some("ann".into())
    });
    put(&store, B, "blocked", |t| {
        t.fm.metadata.insert("assignee".into(), json!("ann"));
    });
    put(&store, C, "review", |t| {
        t.fm.routing.agent = Some("bob".into());
        t.fm.lease = Some(Lease {
            agent: "ann".into(),
            acquired_at: T0.into(),
            expires_at: T0.into(),
            renew_count: 0,
        });
    });
    // Someone else's, and a backlog task of ann's that appears nowhere.
    put(&store, D, "in-progress", |t| {
        t.fm.routing.agent = Some("bob".into())
    });
    put(&store, "TASK-2026-02-09-305", "backlog", |t| {
        t.fm.routing.agent = Some("ann".into())
    });
    let out = tasks(&root, &["--agent", "ann", "--json"]);
    assert!(out.status.success(), "{}", text(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids = |k: &str| -> Vec<String> {
        v[k].as_array()
            .unwrap()
            .iter()
            .map(|t| t["task_id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(v["agent"], "ann");
    assert_eq!(ids("inbox"), [A]);
    assert_eq!(ids("processing"), [B]);
    assert_eq!(ids("outbox"), [C]);
    let out = tasks(&root, &["--agent", "bob"]);
    let t = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        t.contains("inbox (0)") && t.contains("processing (1)") && t.contains("outbox (0)"),
        "{t}"
    );
    assert!(t.contains(D), "{t}");
}

#[test]
fn review_commands_never_create_a_store() {
    let dir = scratch();
    let missing = dir.path().join("typo");
    for args in [
        vec!["approve", A],
        vec!["reject", A, "--reason", "no"],
        vec!["depend", A, "--on", B],
        vec!["--agent", "ann"],
    ] {
        let out = tasks(&missing, &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(text(&out).contains("no task store at"), "{}", text(&out));
        assert!(!missing.exists(), "{args:?} created a store");
    }
}

/// The TUI's real backend reviews and reads queues through the same
/// router calls (`amail_tui::Backend::{approve, reject, mailbox}`).
#[test]
fn the_tui_backend_approves_rejects_and_reads_an_agents_queues() {
    use amail_tui::Backend;
    let dir = scratch();
    let root = dir.path().join("store");
    let store = Store::open(&root).unwrap();
    put(&store, A, "review", |t| {
        t.fm.routing.agent = Some("ann".into())
    });
    put(&store, B, "backlog", |t| t.fm.depends_on = vec![A.into()]);
    put(&store, C, "review", |t| {
        t.fm.routing.agent = Some("ann".into())
    });
    let mut backend = amail::backend::RealBackend::new(
        dir.path().join("no-mail"),
        amail_core::stores::LoadOptions::default(),
        root.clone(),
        false,
    );
    let m = backend.mailbox("ann").unwrap();
    assert_eq!(m.outbox.len(), 2);
    assert_eq!(
        backend.approve(A).unwrap(),
        format!("{A} approved: done; 1 dependent ready now: {B}")
    );
    assert_eq!(store.get(B).unwrap().unwrap().0.as_str(), "ready");
    backend.reject(C, "missing tests").unwrap();
    let m = backend.mailbox("ann").unwrap();
    assert!(m.outbox.is_empty());
    assert_eq!(m.processing.len(), 1);
    assert!(backend.approve(C).unwrap_err().contains("not in review"));
    // Without a store: empty queues, and nothing is created.
    let mut none = amail::backend::RealBackend::new(
        dir.path().join("no-mail"),
        amail_core::stores::LoadOptions::default(),
        dir.path().join("typo"),
        false,
    );
    assert!(none.mailbox("ann").unwrap().inbox.is_empty());
    assert!(none.approve(A).is_err());
    assert!(!dir.path().join("typo").exists());
}

/// `tasks --agent` reads the four status folders that feed a mailbox once
/// and warns of the files it skipped there, each with its line and column
/// (it read every task folder a second time for the warnings, and warned
/// of files no mailbox is made from).
#[test]
fn an_agent_s_queues_name_the_task_files_they_skipped() {
    let dir = scratch();
    let root = dir.path().join("store");
    let store = Store::open(&root).unwrap();
    put(&store, A, "ready", |t| {
        t.fm.routing.agent = Some("ann".into())
    });
    let broken = root.join("tasks/in-progress/TASK-2026-02-09-399.md");
    fs::write(&broken, "---\nid: [unclosed\n---\n").unwrap();
    fs::write(
        root.join("tasks/done/TASK-2026-02-09-398.md"),
        "---\nid: [unclosed\n---\n",
    )
    .unwrap();
    let m = store.mailbox("ann").unwrap();
    assert_eq!(m.inbox.len(), 1);
    assert_eq!(m.skipped.len(), 1, "{:?}", m.skipped);
    assert!(
        m.skipped[0].starts_with(&format!("{}:2:5: ", broken.display())),
        "{:?}",
        m.skipped
    );
    let out = tasks(&root, &["--agent", "ann"]);
    assert!(out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("TASK-2026-02-09-399.md:2:5: "), "{err}");
    // The JSON keeps its shape: the three queues.
    let out = tasks(&root, &["--agent", "ann", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.get("skipped").is_none(), "{v}");
}
