//! Router conformance: the scenarios of aof-router.md §7.4-§7.7 and §7.10
//! that follow the seed. Where real AOF deviates from the seed (§9) the
//! test follows the seed and says so.

use std::fs;

use amail_core::aof::validate::{envelope_from_value, Validated};
use amail_core::aof::Routable;
use amail_core::aof::{Envelope, TaskStatus};
use amail_core::router::events::{self, Event};
use amail_core::router::task::Task;
use amail_core::router::{RouteOutcome, Router, RouterOptions, Store};
use chrono::{DateTime, Utc};
use serde_json::{json, Value};

const T0: &str = "2026-02-09T20:00:00.000Z";

struct Fx {
    _dir: tempfile::TempDir,
    r: Router,
}

impl Fx {
    fn new() -> Fx {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("store")).unwrap();
        Fx {
            _dir: dir,
            r: Router::new(store, RouterOptions::default()),
        }
    }

    fn root(&self) -> &std::path::Path {
        self.r.store.root()
    }

    /// A task in `status`, routed to `agent`.
    fn task(&self, id: &str, status: &str, agent: Option<&str>, meta: Value) {
        let mut t = Task::new(id, &format!("Task {id}"), status, T0);
        t.fm.routing.agent = agent.map(str::to_string);
        if let Value::Object(m) = meta {
            t.fm.metadata.extend(m);
        }
        self.r.store.insert(t).unwrap();
    }

    /// A task in progress, leased to `agent` (ready + status.update to in-progress).
    fn running(&self, id: &str, agent: &str, meta: Value) {
        self.task(id, "ready", Some(agent), meta);
        let out = self.send(
            "status.update",
            id,
            agent,
            json!({ "taskId": id, "agentId": agent, "status": "in-progress" }),
        );
        assert!(
            matches!(out, RouteOutcome::Routed { transitions: 1, .. }),
            "{out:?}"
        );
    }

    fn send(&self, kind: &str, id: &str, from: &str, payload: Value) -> RouteOutcome {
        send_by(&self.r, kind, id, from, payload)
    }

    fn status(&self, id: &str) -> TaskStatus {
        self.r.store.get(id).unwrap().unwrap().0
    }

    fn get(&self, id: &str) -> Task {
        self.r.store.get(id).unwrap().unwrap().1
    }

    fn events(&self) -> Vec<Event> {
        events::read_all(&self.root().join("events")).unwrap().0
    }

    fn events_of(&self, kind: &str) -> Vec<Event> {
        self.events()
            .into_iter()
            .filter(|e| e.kind == kind)
            .collect()
    }

    fn run_file(&self, id: &str, f: &str) -> Option<Value> {
        let text = fs::read_to_string(self.root().join(format!("state/runs/{id}/{f}"))).ok()?;
        serde_json::from_str(&text).ok()
    }
}

/// One envelope routed by `r` (a fixture's router, or a second one over
/// the same store: another process, in effect).
fn send_by(r: &Router, kind: &str, id: &str, from: &str, payload: Value) -> RouteOutcome {
    r.route(&Routable::named(
        envelope(kind, id, from, payload),
        None,
        None,
    ))
    .unwrap()
}

fn envelope(kind: &str, id: &str, from: &str, payload: Value) -> Envelope {
    let v = json!({
        "protocol": "aof", "version": 1, "type": kind, "projectId": "demo", "taskId": id,
        "fromAgent": from, "toAgent": "dispatcher", "sentAt": "2026-02-09T21:00:00.000Z", "payload": payload
    });
    match envelope_from_value(&v) {
        Ok(Validated::Envelope(e)) => e,
        other => panic!("{other:?}"),
    }
}

fn report(outcome: &str) -> Value {
    json!({ "outcome": outcome, "summaryRef": "outputs/summary.md", "deliverables": ["src/a.rs"],
            "tests": { "total": 10, "passed": 8, "failed": 2 }, "blockers": [], "notes": "notes here" })
}

const A: &str = "TASK-2026-02-09-057";
const B: &str = "TASK-2026-02-09-058";
const C: &str = "TASK-2026-02-09-059";
const SWE: &str = "swe-backend";

// §7.4 completion-status

#[test]
fn done_goes_to_review_with_run_result() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    f.send("completion.report", A, SWE, report("done"));
    assert_eq!(f.status(A), TaskStatus::Review);
    let rr = f.run_file(A, "run_result.json").unwrap();
    assert_eq!(rr["outcome"], "done");
    assert_eq!(rr["handoffRef"], "outputs/handoff.md");
    assert_eq!(rr["agentId"], SWE);
    assert_eq!(rr["deliverables"], json!(["src/a.rs"]));
    assert_eq!(
        rr["tests"],
        json!({ "total": 10, "passed": 8, "failed": 2 })
    );
    // received (actor = sender), task.completed, one transition in-progress -> review.
    let rec = f.events_of("protocol.message.received");
    assert_eq!(rec.last().unwrap().actor, SWE);
    assert_eq!(
        rec.last().unwrap().payload,
        json!({ "type": "completion.report" })
    );
    let done = f.events_of("task.completed");
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].payload, json!({ "outcome": "done" }));
    let tr: Vec<_> = f
        .events_of("task.transitioned")
        .into_iter()
        .filter(|e| e.payload["to"] == "review")
        .collect();
    assert_eq!(tr.len(), 1);
    assert_eq!(tr[0].payload["from"], "in-progress");
    // run.json marked completed.
    assert_eq!(f.run_file(A, "run.json").unwrap()["status"], "completed");
}

#[test]
fn done_without_review_goes_through_review_to_done() {
    let f = Fx::new();
    f.running(A, SWE, json!({ "reviewRequired": false }));
    f.send("completion.report", A, SWE, report("done"));
    assert_eq!(f.status(A), TaskStatus::Done);
    let tos: Vec<_> = f
        .events_of("task.transitioned")
        .iter()
        .map(|e| e.payload["to"].clone())
        .collect();
    assert_eq!(tos, ["in-progress", "review", "done"]);
    // done clears the lease.
    assert!(f.get(A).fm.lease.is_none());
}

#[test]
fn blocked_needs_review_and_partial_outcomes() {
    let f = Fx::new();
    for (id, outcome, want) in [
        (A, "blocked", TaskStatus::Blocked),
        (B, "needs_review", TaskStatus::Review),
        (C, "partial", TaskStatus::Review),
    ] {
        f.running(id, SWE, json!({}));
        let mut p = report(outcome);
        if outcome == "blocked" {
            p["blockers"] = json!(["Awaiting API key", "Need db creds"]);
        }
        f.send("completion.report", id, SWE, p);
        assert_eq!(f.status(id), want, "{outcome}");
    }
    // The blocked transition's reason is the blockers.
    let tr = f
        .events_of("task.transitioned")
        .into_iter()
        .find(|e| e.payload["to"] == "blocked")
        .unwrap();
    assert_eq!(tr.payload["reason"], "Awaiting API key; Need db creds");
    assert_eq!(
        f.run_file(A, "run_result.json").unwrap()["blockers"][0],
        "Awaiting API key"
    );
}

#[test]
fn already_at_target_is_a_no_op() {
    let f = Fx::new();
    f.task(A, "review", Some(SWE), json!({}));
    f.task(B, "blocked", Some(SWE), json!({}));
    let before_a = f.get(A).fm.last_transition_at;
    let before_b = f.get(B).fm.last_transition_at;
    f.send("completion.report", A, SWE, report("needs_review"));
    f.send("completion.report", B, SWE, report("blocked"));
    assert_eq!(f.status(A), TaskStatus::Review);
    assert_eq!(f.status(B), TaskStatus::Blocked);
    assert_eq!(f.get(A).fm.last_transition_at, before_a);
    assert_eq!(f.get(B).fm.last_transition_at, before_b);
    assert!(f.events_of("task.transitioned").is_empty());
    // run_result still written, task.completed still logged.
    assert!(f.run_file(A, "run_result.json").is_some());
    assert_eq!(f.events_of("task.completed").len(), 2);
}

#[test]
fn resent_completion_adds_no_transition() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    f.send("completion.report", A, SWE, report("done"));
    f.send("completion.report", A, SWE, report("done"));
    let to_review = f
        .events_of("task.transitioned")
        .into_iter()
        .filter(|e| e.payload["to"] == "review")
        .count();
    assert_eq!(to_review, 1);
    assert_eq!(f.status(A), TaskStatus::Review);
}

/// AOF's `completeRunArtifact` stamps `run.json` on every completion
/// report (status `completed`, `metadata.completedAt`), so a later report
/// moves `completedAt` along with the `run_result.json` it rewrites.
#[test]
fn a_later_report_restamps_the_completed_run() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    f.send("completion.report", A, SWE, report("needs_review"));
    let first = f.run_file(A, "run.json").unwrap();
    assert_eq!(first["status"], "completed");
    assert_eq!(first["metadata"]["completedAt"], "2026-02-09T21:00:00.000Z");
    let mut v =
        serde_json::to_value(envelope("completion.report", A, SWE, report("partial"))).unwrap();
    v["sentAt"] = json!("2026-02-09T22:30:00.000Z");
    let Ok(Validated::Envelope(e)) = envelope_from_value(&v) else {
        panic!()
    };
    f.r.route(&Routable::named(e, None, None)).unwrap();
    assert_eq!(f.status(A), TaskStatus::Review);
    let rr = f.run_file(A, "run_result.json").unwrap();
    assert_eq!(rr["completedAt"], "2026-02-09T22:30:00.000Z");
    let run = f.run_file(A, "run.json").unwrap();
    assert_eq!(run["status"], "completed");
    assert_eq!(run["metadata"]["completedAt"], "2026-02-09T22:30:00.000Z");
}

#[test]
fn completion_from_another_agent_follows_the_seed() {
    // Seed: no sender authorisation. Real AOF (§3.1, §7.4) rejects a report
    // from an agent that is neither the lease nor the routing agent with
    // `unauthorized_agent`; we follow the seed and apply it.
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    f.send(
        "completion.report",
        A,
        "rogue-agent",
        report("needs_review"),
    );
    assert_eq!(f.status(A), TaskStatus::Review);
    assert_eq!(
        f.run_file(A, "run_result.json").unwrap()["agentId"],
        "rogue-agent"
    );
    assert!(f.events_of("protocol.message.rejected").is_empty());
}

#[test]
fn unknown_task_is_rejected() {
    let f = Fx::new();
    let out = f.send(
        "completion.report",
        "TASK-9999-99-99-999",
        SWE,
        report("done"),
    );
    assert_eq!(out, RouteOutcome::Rejected("task_not_found".into()));
    let rej = f.events_of("protocol.message.rejected");
    assert_eq!(rej.len(), 1);
    assert_eq!(rej[0].task_id.as_deref(), Some("TASK-9999-99-99-999"));
    assert_eq!(rej[0].payload["reason"], "task_not_found");
    assert!(f
        .run_file("TASK-9999-99-99-999", "run_result.json")
        .is_none());
    const NONE: &str = "TASK-9999-99-99-999";
    f.task(A, "ready", Some(SWE), json!({}));
    for (kind, p) in [
        (
            "status.update",
            json!({ "taskId": NONE, "agentId": SWE, "notes": "x" }),
        ),
        (
            "handoff.accepted",
            json!({ "taskId": NONE, "accepted": true }),
        ),
        (
            "handoff.rejected",
            json!({ "taskId": NONE, "accepted": false, "reason": "no" }),
        ),
        ("handoff.request", handoff(NONE, A, SWE, "architect")),
        // The task is looked up before the handler's own checks.
        ("handoff.request", handoff(A, A, SWE, "architect")),
    ] {
        assert_eq!(
            f.send(kind, NONE, SWE, p),
            RouteOutcome::Rejected("task_not_found".into()),
            "{kind}"
        );
    }
    // AOF's route() pre-check (§3.1 step 3): `{reason, projectId}`, and
    // nothing else: no handler ran, so no `protocol.message.received` and
    // no `delegation.rejected`.
    let rej = raw_of(&f, "protocol.message.rejected");
    assert_eq!(rej.len(), 6);
    assert!(
        rej.iter()
            .all(|p| p == r#"{"reason":"task_not_found","projectId":"demo"}"#),
        "{rej:?}"
    );
    assert!(f.events_of("protocol.message.received").is_empty());
    assert!(f.events_of("delegation.rejected").is_empty());
    assert_eq!(f.get(A).fm.metadata.get("delegationDepth"), None);
}

/// An envelope without `projectId` (optional in amail, required in AOF)
/// has none to name in the pre-check's rejection.
#[test]
fn unknown_task_without_project_names_no_project() {
    let f = Fx::new();
    let mut env = envelope(
        "completion.report",
        "TASK-9999-99-99-999",
        SWE,
        report("done"),
    );
    env.project_id = None;
    let out = f.r.route(&Routable::named(env, None, None)).unwrap();
    assert_eq!(out, RouteOutcome::Rejected("task_not_found".into()));
    assert_eq!(
        raw_of(&f, "protocol.message.rejected"),
        [r#"{"reason":"task_not_found"}"#]
    );
}

#[test]
fn summary_file_warning() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    f.running(B, SWE, json!({}));
    f.send("completion.report", A, SWE, report("done"));
    let w = f.events_of("protocol.message.warning");
    assert_eq!(w.len(), 1);
    assert_eq!(
        w[0].payload,
        json!({ "reason": "summary_file_not_found", "summaryRef": "outputs/summary.md" })
    );
    // Transition proceeds anyway.
    assert_eq!(f.status(A), TaskStatus::Review);
    // A summary that exists (relative to the task directory): no warning.
    let dir = f.root().join(format!("tasks/in-progress/{B}/outputs"));
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("summary.md"), "done\n").unwrap();
    f.send("completion.report", B, SWE, report("done"));
    assert_eq!(f.events_of("protocol.message.warning").len(), 1);
    // The summary moved with the task.
    assert!(f
        .root()
        .join(format!("tasks/review/{B}/outputs/summary.md"))
        .is_file());
}

/// AOF checks `existsSync(summaryRef)` with no test for an empty string
/// (aof-router.md §3.2 step 3), and `existsSync("")` is false: an AOF/1
/// report naming no summary gets the warning. (A mail with no summary
/// does not: `""` is then the bridge's own "none", see mail_flows.)
#[test]
fn an_empty_summary_ref_in_an_aof_envelope_warns_as_aof_does() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    let mut p = report("needs_review");
    p["summaryRef"] = json!("");
    f.send("completion.report", A, SWE, p);
    assert_eq!(
        raw_of(&f, "protocol.message.warning"),
        [r#"{"reason":"summary_file_not_found","summaryRef":""}"#]
    );
    assert_eq!(f.status(A), TaskStatus::Review);
    assert_eq!(f.run_file(A, "run_result.json").unwrap()["summaryRef"], "");
}

/// A summary named by an absolute path that exists: no warning (§7.4).
#[test]
fn a_summary_named_by_an_absolute_path_that_exists_gives_no_warning() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    let file = f.root().join("summary-elsewhere.md");
    fs::write(&file, "done\n").unwrap();
    assert!(file.is_absolute());
    let mut p = report("done");
    p["summaryRef"] = json!(file.to_str().unwrap());
    f.send("completion.report", A, SWE, p);
    assert!(f.events_of("protocol.message.warning").is_empty());
    assert_eq!(f.status(A), TaskStatus::Review);
}

#[test]
fn summary_text_from_mail_is_written_to_outputs() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    f.r.route(&Routable::named(
        envelope("completion.report", A, SWE, report("needs_review")),
        None,
        Some("It works.".into()),
    ))
    .unwrap();
    let text = fs::read_to_string(
        f.root()
            .join(format!("tasks/review/{A}/outputs/summary.md")),
    )
    .unwrap();
    assert_eq!(text, "It works.\n");
    assert!(f.events_of("protocol.message.warning").is_empty());
}

// Status updates.

#[test]
fn status_update_transitions_with_reason() {
    let f = Fx::new();
    f.running(A, "swe-qa", json!({}));
    f.send(
        "status.update",
        A,
        "swe-qa",
        json!({ "taskId": A, "agentId": "swe-qa", "status": "blocked",
                "blockers": ["Test environment unreachable"], "notes": "later" }),
    );
    assert_eq!(f.status(A), TaskStatus::Blocked);
    let tr = f.events_of("task.transitioned").pop().unwrap();
    assert_eq!(
        tr.payload,
        json!({ "from": "in-progress", "to": "blocked", "reason": "Test environment unreachable" })
    );
    // A transition writes no Work Log entry.
    assert!(!f.get(A).body.contains("Work Log"));
}

/// `cancelled` and `deadletter` by status update go through AOF's table
/// like any status (§3.3, last paragraph; §9 item 16): `in-progress ->
/// cancelled` is taken, the lease is kept and no `cancellationReason` is
/// written (that is AOF's `cancel()`, which bypasses the table); `backlog
/// -> deadletter` is not in the table and changes no status.
#[test]
fn cancelled_and_deadletter_by_status_update_follow_the_table() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    f.send(
        "status.update",
        A,
        SWE,
        json!({ "taskId": A, "agentId": SWE, "status": "cancelled", "notes": "superseded" }),
    );
    assert_eq!(f.status(A), TaskStatus::Cancelled);
    let t = f.get(A);
    assert_eq!(t.fm.lease.unwrap().agent, SWE);
    assert!(!t.fm.metadata.contains_key("cancellationReason"));
    assert_eq!(
        raw_of(&f, "task.transitioned").last().unwrap(),
        r#"{"from":"in-progress","to":"cancelled","reason":"superseded"}"#
    );
    f.task(B, "backlog", Some(SWE), json!({}));
    f.send(
        "status.update",
        B,
        SWE,
        json!({ "taskId": B, "agentId": SWE, "status": "deadletter" }),
    );
    assert_eq!(f.status(B), TaskStatus::Backlog);
}

#[test]
fn status_update_without_status_appends_the_work_log() {
    let f = Fx::new();
    f.running(A, "swe-qa", json!({}));
    f.send(
        "status.update",
        A,
        "swe-qa",
        json!({ "taskId": A, "agentId": "swe-qa", "progress": "Executed 50/100 test cases", "notes": "No issues found so far" }),
    );
    f.send(
        "status.update",
        A,
        "swe-qa",
        json!({ "taskId": A, "agentId": "swe-qa", "blockers": ["a", "b"] }),
    );
    assert_eq!(f.status(A), TaskStatus::InProgress);
    let body = f.get(A).body;
    // The seed's entry format, with the message's sentAt, in one section.
    assert_eq!(
        body,
        "## Work Log\n- 2026-02-09T21:00:00.000Z Progress: Executed 50/100 test cases | Notes: No issues found so far\n- 2026-02-09T21:00:00.000Z Blockers: a, b"
    );
    // contentHash follows the body.
    assert_eq!(
        f.get(A).fm.content_hash.as_deref(),
        Some(Task::content_hash(&body).as_str())
    );
}

#[test]
fn invalid_or_same_status_appends_the_work_log_instead() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    // in-progress -> backlog is not in the table.
    f.send(
        "status.update",
        A,
        SWE,
        json!({ "taskId": A, "agentId": SWE, "status": "backlog", "notes": "n1" }),
    );
    f.send(
        "status.update",
        A,
        SWE,
        json!({ "taskId": A, "agentId": SWE, "status": "in-progress", "notes": "n2" }),
    );
    assert_eq!(f.status(A), TaskStatus::InProgress);
    let body = f.get(A).body;
    assert!(
        body.contains("Notes: n1") && body.contains("Notes: n2"),
        "{body}"
    );
    // Only the initial ready -> in-progress transition.
    assert_eq!(f.events_of("task.transitioned").len(), 1);
}

#[test]
fn entering_in_progress_takes_a_lease_and_writes_run_artifacts() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    let lease = f.get(A).fm.lease.unwrap();
    assert_eq!(lease.agent, SWE);
    assert_eq!(lease.expires_at, "2026-02-09T21:10:00.000Z");
    let run = f.run_file(A, "run.json").unwrap();
    assert_eq!(run["status"], "running");
    assert_eq!(
        run["artifactPaths"],
        json!({ "inputs": "inputs/", "work": "work/", "output": "output/" })
    );
    let hb = f.run_file(A, "run_heartbeat.json").unwrap();
    assert_eq!(hb["beatCount"], 0);
    assert_eq!(hb["expiresAt"], "2026-02-09T21:05:00.000Z");
    // A progress message from the lease holder is a heartbeat.
    f.send(
        "status.update",
        A,
        SWE,
        json!({ "taskId": A, "agentId": SWE, "progress": "p" }),
    );
    assert_eq!(f.run_file(A, "run_heartbeat.json").unwrap()["beatCount"], 1);
}

// Transitions move the file and its companion directory.

/// A task left in two status directories (a move interrupted by a crash,
/// AOF's or ours): AOF's `get` keeps one copy and deletes the others on
/// every read. The router writes the copy it chose and removes the others
/// in the same step, so the duplicate does not outlive the next message.
#[test]
fn a_copy_left_mid_move_is_removed_when_the_task_is_written() {
    let f = Fx::new();
    f.task(A, "ready", Some(SWE), json!({}));
    let stale = |status: &str| {
        let text = fs::read_to_string(f.root().join(format!("tasks/ready/{A}.md"))).unwrap();
        let text = text
            .replace("status: ready", &format!("status: {status}"))
            .replace(T0, "2026-02-09T19:00:00.000Z");
        fs::write(f.root().join(format!("tasks/{status}/{A}.md")), text).unwrap();
    };
    stale("backlog");
    assert_eq!(
        f.r.store.locate_all(A),
        vec![TaskStatus::Backlog, TaskStatus::Ready]
    );
    // Written in place (Work Log).
    f.send(
        "status.update",
        A,
        SWE,
        json!({ "taskId": A, "agentId": SWE, "notes": "looking" }),
    );
    assert_eq!(f.r.store.locate_all(A), vec![TaskStatus::Ready]);
    assert!(f.get(A).body.contains("looking"));
    // Moved.
    stale("backlog");
    f.send(
        "status.update",
        A,
        SWE,
        json!({ "taskId": A, "agentId": SWE, "status": "in-progress" }),
    );
    assert_eq!(f.r.store.locate_all(A), vec![TaskStatus::InProgress]);
}

/// AOF's `create` makes the four companion directories `inputs`, `work`,
/// `outputs` and `subtasks`; a task amail creates has the same, and they
/// move with it.
#[test]
fn a_created_task_has_aofs_four_companion_dirs() {
    let f = Fx::new();
    f.task(A, "ready", Some(SWE), json!({}));
    for sub in ["inputs", "work", "outputs", "subtasks"] {
        assert!(
            f.root().join(format!("tasks/ready/{A}/{sub}")).is_dir(),
            "{sub}"
        );
    }
    f.running(A, SWE, json!({}));
    assert!(f
        .root()
        .join(format!("tasks/in-progress/{A}/subtasks"))
        .is_dir());
}

#[test]
fn transitions_move_file_and_companion_dir_leaving_one_copy() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    assert!(f
        .root()
        .join(format!("tasks/in-progress/{A}/inputs"))
        .is_dir());
    assert!(!f.root().join(format!("tasks/ready/{A}")).exists());
    assert!(!f.root().join(format!("tasks/ready/{A}.md")).exists());
    assert_eq!(f.r.store.locate_all(A), vec![TaskStatus::InProgress]);
    let t = f.get(A);
    assert_eq!(t.fm.status, "in-progress");
    assert_eq!(t.fm.last_transition_at, "2026-02-09T21:00:00.000Z");
}

// §7.5 / §7.6 handoffs.

fn handoff(child: &str, parent: &str, from: &str, to: &str) -> Value {
    json!({ "taskId": child, "parentTaskId": parent, "fromAgent": from, "toAgent": to,
            "acceptanceCriteria": ["All tests pass", "Update docs"], "expectedOutputs": ["tests/report.md"],
            "contextRefs": [], "constraints": [], "dueBy": "2026-02-10T12:00:00.000Z" })
}

#[test]
fn handoff_request_writes_artifacts_and_sets_depth() {
    let f = Fx::new();
    f.task(A, "ready", Some("architect"), json!({}));
    f.task(B, "ready", Some("architect"), json!({}));
    let out = f.send(
        "handoff.request",
        B,
        "architect",
        handoff(B, A, "architect", SWE),
    );
    assert!(matches!(out, RouteOutcome::Routed { .. }), "{out:?}");
    let inputs = f.root().join(format!("tasks/ready/{B}/inputs"));
    let hj: Value =
        serde_json::from_str(&fs::read_to_string(inputs.join("handoff.json")).unwrap()).unwrap();
    assert_eq!(hj, handoff(B, A, "architect", SWE));
    let md = fs::read_to_string(inputs.join("handoff.md")).unwrap();
    assert_eq!(
        md,
        "# Handoff Request\n\n**From:** architect\n**To:** swe-backend\n**Due By:** 2026-02-10T12:00:00.000Z\n\n## Acceptance Criteria\n\n- All tests pass\n- Update docs\n\n## Expected Outputs\n\n- tests/report.md\n\n## Context References\n\nNone\n\n## Constraints\n\nNone\n"
    );
    let child = f.get(B);
    assert_eq!(child.delegation_depth(), 1.0);
    assert_eq!(child.fm.routing.agent.as_deref(), Some(SWE));
    let req = f.events_of("delegation.requested");
    assert_eq!(req.len(), 1);
    assert_eq!(req[0].actor, "architect");
    assert_eq!(req[0].task_id.as_deref(), Some(B));
    assert_eq!(req[0].payload, json!({ "parentTaskId": A, "toAgent": SWE }));

    // Seed: a re-sent request writes the same artifacts and is no duplicate
    // delegation. (Real AOF re-routes the child on the first request, so
    // its second request is rejected unauthorized_agent, §9.7.)
    f.send(
        "handoff.request",
        B,
        "architect",
        handoff(B, A, "architect", SWE),
    );
    assert_eq!(f.events_of("delegation.requested").len(), 1);
    assert!(f.events_of("protocol.message.rejected").is_empty());

    // Accept: no state change, logged.
    f.send(
        "handoff.accepted",
        B,
        SWE,
        json!({ "taskId": B, "accepted": true }),
    );
    assert_eq!(f.status(B), TaskStatus::Ready);
    assert_eq!(f.events_of("delegation.accepted").len(), 1);

    // Then the child runs and completes: the artifacts moved with it.
    f.send(
        "status.update",
        B,
        SWE,
        json!({ "taskId": B, "agentId": SWE, "status": "in-progress" }),
    );
    f.send("completion.report", B, SWE, report("done"));
    assert_eq!(f.status(B), TaskStatus::Review);
    assert!(f
        .root()
        .join(format!("tasks/review/{B}/inputs/handoff.json"))
        .is_file());
    assert_eq!(f.get(B).delegation_depth(), 1.0);
}

#[test]
fn handoff_rejected_blocks_the_child_once() {
    let f = Fx::new();
    f.task(B, "ready", Some(SWE), json!({}));
    f.send(
        "handoff.rejected",
        B,
        SWE,
        json!({ "taskId": B, "accepted": false, "reason": "Insufficient context" }),
    );
    assert_eq!(f.status(B), TaskStatus::Blocked);
    let tr = f.events_of("task.transitioned");
    assert_eq!(tr.len(), 1);
    assert_eq!(
        tr[0].payload,
        json!({ "from": "ready", "to": "blocked", "reason": "Insufficient context" })
    );
    let rej = f.events_of("delegation.rejected");
    assert_eq!(rej.len(), 1);
    assert_eq!(rej[0].payload, json!({ "reason": "Insufficient context" }));
    // Rejecting again: AOF logs a fake blocked -> blocked transition (§9.4);
    // we log transitions only when they happen.
    f.send(
        "handoff.rejected",
        B,
        SWE,
        json!({ "taskId": B, "accepted": false }),
    );
    assert_eq!(f.events_of("task.transitioned").len(), 1);
    assert_eq!(
        f.events_of("delegation.rejected")[1].payload,
        json!({ "reason": "handoff_rejected" })
    );
}

/// AOF's depth guard takes the parent's `metadata.delegationDepth` when it
/// is a number (any JavaScript number: `1.0`, `0.5`, `-1`), else 0, and
/// refuses when that plus one exceeds 1.
#[test]
fn depth_guard_takes_any_number_as_aof_does() {
    let f = Fx::new();
    for (i, (parent_depth, child)) in [
        (json!(1.0), None),    // 2 > 1: nested
        (json!(0.5), None),    // 1.5 > 1: nested
        (json!(-1), Some(0)),  // child depth 0
        (json!("1"), Some(1)), // not a number: 0
        (json!(0), Some(1)),
    ]
    .into_iter()
    .enumerate()
    {
        let parent = format!("TASK-2026-02-09-1{i}0");
        let kid = format!("TASK-2026-02-09-1{i}1");
        f.task(
            &parent,
            "ready",
            Some("architect"),
            json!({ "delegationDepth": parent_depth }),
        );
        f.task(&kid, "ready", Some("architect"), json!({}));
        let out = f.send(
            "handoff.request",
            &kid,
            "architect",
            handoff(&kid, &parent, "architect", SWE),
        );
        match child {
            None => {
                assert_eq!(
                    out,
                    RouteOutcome::Rejected("nested_delegation".into()),
                    "{parent_depth}"
                )
            }
            Some(d) => {
                assert!(matches!(out, RouteOutcome::Routed { .. }), "{out:?}");
                assert_eq!(
                    f.get(&kid).fm.metadata.get("delegationDepth"),
                    Some(&json!(d)),
                    "{parent_depth}"
                );
            }
        }
    }
}

#[test]
fn handoff_guards() {
    let f = Fx::new();
    f.task(
        A,
        "ready",
        Some("architect"),
        json!({ "delegationDepth": 1 }),
    );
    f.task(B, "ready", Some("architect"), json!({}));
    // payload/envelope taskId mismatch.
    let out = f.send(
        "handoff.request",
        B,
        "architect",
        handoff(C, A, "architect", SWE),
    );
    assert_eq!(out, RouteOutcome::Rejected("taskId_mismatch".into()));
    assert_eq!(
        f.events_of("protocol.message.rejected")[0].payload["reason"],
        "taskId_mismatch"
    );
    assert!(f.events_of("delegation.rejected").is_empty());
    // Parent missing.
    let out = f.send(
        "handoff.request",
        B,
        "architect",
        handoff(B, "TASK-2026-02-09-999", "architect", SWE),
    );
    assert_eq!(out, RouteOutcome::Rejected("parent_not_found".into()));
    // Nested delegation: parent depth 1 -> child depth 2, refused, no files.
    let out = f.send(
        "handoff.request",
        B,
        "architect",
        handoff(B, A, "architect", SWE),
    );
    assert_eq!(out, RouteOutcome::Rejected("nested_delegation".into()));
    let reasons: Vec<_> = f
        .events_of("delegation.rejected")
        .iter()
        .map(|e| e.payload["reason"].clone())
        .collect();
    assert_eq!(reasons, ["parent_not_found", "nested_delegation"]);
    assert!(!f
        .root()
        .join(format!("tasks/ready/{B}/inputs/handoff.json"))
        .exists());
    assert_eq!(f.get(B).fm.metadata.get("delegationDepth"), None);
    // Child missing: refused by route()'s lookup before the handler, as
    // AOF's pre-check does (its handler's own `delegation.rejected
    // {task_not_found}` is only reached when called directly).
    let out = f.send(
        "handoff.request",
        C,
        "architect",
        handoff(C, B, "architect", SWE),
    );
    assert_eq!(out, RouteOutcome::Rejected("task_not_found".into()));
    assert_eq!(f.events_of("delegation.rejected").len(), 2);
}

// §3.6 session end and §7.10 stale heartbeats.

fn write_result(f: &Fx, id: &str, outcome: &str) {
    let rr = json!({ "taskId": id, "agentId": SWE, "completedAt": T0, "outcome": outcome,
                     "summaryRef": "outputs/summary.md", "handoffRef": "outputs/handoff.md",
                     "deliverables": [], "tests": { "total": 0, "passed": 0, "failed": 0 },
                     "blockers": [], "notes": "" });
    fs::write(
        f.root().join(format!("state/runs/{id}/run_result.json")),
        rr.to_string(),
    )
    .unwrap();
}

#[test]
fn session_end_applies_run_results() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    f.running(B, SWE, json!({ "reviewRequired": false }));
    f.running(C, SWE, json!({}));
    f.running("TASK-2026-02-09-060", SWE, json!({}));
    write_result(&f, A, "done");
    write_result(&f, B, "done");
    write_result(&f, C, "blocked");
    // The fourth has no run_result and stays in progress.
    let n = f.r.session_end().unwrap();
    assert_eq!(n, 4);
    assert_eq!(f.status(A), TaskStatus::Review);
    assert_eq!(f.status(B), TaskStatus::Done);
    assert_eq!(f.status(C), TaskStatus::Blocked);
    assert_eq!(f.status("TASK-2026-02-09-060"), TaskStatus::InProgress);
    // The result stays where the worker left it (§7.5: "run_result kept").
    assert_eq!(f.run_file(A, "run_result.json").unwrap()["outcome"], "done");
    // Idempotent.
    assert_eq!(f.r.session_end().unwrap(), 0);
}

/// A `run_result.json` that does not parse is no result (§7.10: corrupt
/// `{not-json` reads as undefined; §9 item 11): session end passes the
/// task by, and stale-heartbeat recovery reclaims it as it would a task
/// with none.
#[test]
fn a_corrupt_run_result_counts_as_none() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    fs::write(
        f.root().join(format!("state/runs/{A}/run_result.json")),
        "{not-json",
    )
    .unwrap();
    assert_eq!(f.r.session_end().unwrap(), 0);
    assert_eq!(f.status(A), TaskStatus::InProgress);
    assert_eq!(
        f.r.sweep_stale(at("2026-02-09T21:05:00Z")).unwrap(),
        vec![A.to_string()]
    );
    assert_eq!(f.status(A), TaskStatus::Ready);
    let tr = f.events_of("task.transitioned").pop().unwrap();
    assert_eq!(tr.payload["reason"], "stale_heartbeat_reclaim");
    assert_eq!(f.run_file(A, "run.json").unwrap()["status"], "failed");
}

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

#[test]
fn stale_heartbeat_without_result_reclaims_to_ready() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    // Heartbeat expires at 21:05; at 21:04 nothing is stale.
    assert!(f
        .r
        .sweep_stale(at("2026-02-09T21:04:59Z"))
        .unwrap()
        .is_empty());
    assert_eq!(
        f.r.sweep_stale(at("2026-02-09T21:05:00Z")).unwrap(),
        vec![A.to_string()]
    );
    assert_eq!(f.status(A), TaskStatus::Ready);
    assert!(f.get(A).fm.lease.is_none());
    let run = f.run_file(A, "run.json").unwrap();
    assert_eq!(run["status"], "failed");
    assert_eq!(run["metadata"]["expiredReason"], "stale_heartbeat");
    assert!(run["metadata"]["expiredAt"].is_string());
    let tr = f.events_of("task.transitioned").pop().unwrap();
    assert_eq!(tr.payload["reason"], "stale_heartbeat_reclaim");
    assert_eq!(tr.actor, "scheduler");
}

/// AOF's stale-heartbeat handler re-checks its task before acting: the
/// heartbeat's agent must still hold the lease (aof-router.md §5.4
/// "action.agent ≠ lease.agent → skip"; §7.10, the 2026-04-15 regression
/// test: a lease reassigned since the heartbeat means no transition, and
/// run_result is not read). The new holder's work is not reclaimed.
#[test]
fn stale_heartbeat_of_an_agent_no_longer_holding_the_lease_is_left() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    f.running(B, SWE, json!({}));
    write_result(&f, B, "done");
    for id in [A, B] {
        let mut t = f.get(id);
        t.fm.lease.as_mut().unwrap().agent = "agent-2".into();
        f.r.store.insert(t).unwrap();
    }
    let before = f.events().len();
    assert!(f
        .r
        .sweep_stale(at("2026-02-09T21:05:00Z"))
        .unwrap()
        .is_empty());
    for id in [A, B] {
        assert_eq!(f.status(id), TaskStatus::InProgress);
        assert_eq!(f.get(id).fm.lease.unwrap().agent, "agent-2");
        assert_eq!(f.run_file(id, "run.json").unwrap()["status"], "running");
    }
    assert_eq!(f.events().len(), before);
}

#[test]
fn stale_heartbeat_with_result_is_outcome_driven() {
    let f = Fx::new();
    let cases = [
        (A, "partial", json!({}), TaskStatus::Review),
        (B, "blocked", json!({}), TaskStatus::Blocked),
        (
            C,
            "done",
            json!({ "reviewRequired": false }),
            TaskStatus::Done,
        ),
        (
            "TASK-2026-02-09-060",
            "needs_review",
            json!({}),
            TaskStatus::Review,
        ),
    ];
    for (id, outcome, meta, _) in &cases {
        f.running(id, SWE, meta.clone());
        write_result(&f, id, outcome);
    }
    let moved = f.r.sweep_stale(at("2026-02-09T22:00:00Z")).unwrap();
    assert_eq!(moved.len(), 4);
    for (id, outcome, _, want) in &cases {
        assert_eq!(f.status(id), *want, "{outcome}");
    }
    let reasons: Vec<_> = f
        .events_of("task.transitioned")
        .iter()
        .filter(|e| {
            e.actor != SWE
                || e.payload["reason"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("stale"))
        })
        .map(|e| e.payload["reason"].clone())
        .collect();
    assert!(reasons.contains(&json!("stale_heartbeat_partial")));
    assert!(reasons.contains(&json!("stale_heartbeat_done")));
}

#[test]
fn tasks_without_heartbeat_are_never_stale() {
    let f = Fx::new();
    f.task(A, "in-progress", Some(SWE), json!({}));
    assert!(f
        .r
        .sweep_stale(at("2030-01-01T00:00:00Z"))
        .unwrap()
        .is_empty());
    assert_eq!(f.status(A), TaskStatus::InProgress);
}

// §4 event log.

#[test]
fn event_ids_stay_unique_across_restarts() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    // A second router over the same store (a new process, in effect).
    let r2 = Router::new(Store::open(f.root()).unwrap(), RouterOptions::default());
    send_by(
        &r2,
        "status.update",
        A,
        SWE,
        json!({ "taskId": A, "agentId": SWE, "notes": "x" }),
    );
    let ids: Vec<u64> = f.events().iter().map(|e| e.event_id).collect();
    let want: Vec<u64> = (1..=ids.len() as u64).collect();
    assert_eq!(ids, want);
    // Line shape and day file name.
    let files = events::day_files(&f.root().join("events")).unwrap();
    assert_eq!(files.len(), 1);
    let line = fs::read_to_string(&files[0])
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    assert!(line.starts_with("{\"eventId\":1,\"type\":"), "{line}");
}

#[test]
fn unknown_types_and_bad_input_are_logged_not_routed() {
    use amail_core::aof::{detect, Input};
    let f = Fx::new();
    let raw = r#"{"protocol":"aof","version":1,"type":"unknown.type","taskId":"TASK-2026-02-09-057","fromAgent":"a","toAgent":"b","sentAt":"2026-02-09T21:00:00Z","payload":{}}"#;
    assert_eq!(
        f.r.route(&amail_core::bridge::envelope::routable(
            detect(Input::Text(raw)),
            None
        ))
        .unwrap(),
        RouteOutcome::Unknown
    );
    assert_eq!(
        f.events_of("protocol.message.unknown")[0].payload,
        json!({ "type": "unknown.type" })
    );
    let out =
        f.r.route(&amail_core::bridge::envelope::routable(
            detect(Input::Text("AOF/1 {bad json")),
            None,
        ))
        .unwrap();
    assert_eq!(out, RouteOutcome::Rejected("invalid_json".into()));
    let rej = f.events_of("protocol.message.rejected");
    assert_eq!(rej[0].payload["source"], "AOF/1 prefix");
    assert_eq!(rej[0].actor, "system");
    assert_eq!(
        f.r.route(&amail_core::bridge::envelope::routable(
            detect(Input::Text("hello world")),
            None
        ))
        .unwrap(),
        RouteOutcome::Ignored
    );
    assert_eq!(f.events().len(), 2);
}

#[test]
fn dedupe_key_makes_a_resend_a_no_op() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    let e = envelope(
        "status.update",
        A,
        SWE,
        json!({ "taskId": A, "agentId": SWE, "notes": "once" }),
    );
    let x = Routable::named(e.clone(), Some("msg-1".into()), None);
    assert!(matches!(
        f.r.route(&x).unwrap(),
        RouteOutcome::Routed { .. }
    ));
    let n = f.events().len();
    assert_eq!(f.r.route(&x).unwrap(), RouteOutcome::Duplicate);
    assert_eq!(f.events().len(), n);
    assert_eq!(f.get(A).body.matches("Notes: once").count(), 1);
}

// §7.7 concurrent handling (threads in one process; processes are in
// concurrency.rs).

#[test]
fn concurrent_reports_leave_one_whole_result_and_one_transition() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    f.running(B, SWE, json!({}));
    std::thread::scope(|s| {
        for n in 0..10 {
            let r = f.r.clone();
            s.spawn(move || {
                let mut p = report("done");
                p["deliverables"] = json!([format!("file-{n}")]);
                p["notes"] = json!(format!("Completion {n}"));
                r.route(&Routable::named(
                    envelope("completion.report", A, SWE, p),
                    None,
                    None,
                ))
                .unwrap();
            });
        }
        for n in 0..5 {
            let r = f.r.clone();
            s.spawn(move || {
                let e = envelope(
                    "status.update",
                    B,
                    SWE,
                    json!({ "taskId": B, "agentId": SWE, "progress": format!("p{n}") }),
                );
                r.route(&Routable::named(e, None, None)).unwrap();
            });
        }
    });
    let rr = f.run_file(A, "run_result.json").unwrap();
    assert_eq!(rr["deliverables"].as_array().unwrap().len(), 1);
    let n = rr["notes"]
        .as_str()
        .unwrap()
        .trim_start_matches("Completion ")
        .to_string();
    assert_eq!(
        rr["deliverables"][0],
        format!("file-{n}"),
        "one whole report, not a mix"
    );
    assert_eq!(f.status(A), TaskStatus::Review);
    assert_eq!(f.r.store.locate_all(A), vec![TaskStatus::Review]);
    let to_review = f
        .events_of("task.transitioned")
        .into_iter()
        .filter(|e| e.payload["to"] == "review")
        .count();
    assert_eq!(to_review, 1);
    // All five updates landed in B's Work Log.
    let body = f.get(B).body;
    for n in 0..5 {
        assert!(body.contains(&format!("Progress: p{n}")), "{body}");
    }
    let ids: Vec<u64> = f.events().iter().map(|e| e.event_id).collect();
    let unique: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len());
}

// §4 event log: payload keys in the order AOF's code builds them. The
// bytes matter (a line differing only in key order is a different line to
// anything comparing or hashing AOF's log), so these compare raw text.

/// Every event line's payload as written, with its type: `(type, payload)`.
fn raw_payloads(f: &Fx) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for file in events::day_files(&f.root().join("events")).unwrap() {
        for line in fs::read_to_string(&file).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let at = line.find(",\"payload\":").expect(line) + ",\"payload\":".len();
            assert!(line.ends_with('}'), "{line}");
            out.push((
                v["type"].as_str().unwrap().to_string(),
                line[at..line.len() - 1].to_string(),
            ));
        }
    }
    out
}

fn raw_of(f: &Fx, kind: &str) -> Vec<String> {
    raw_payloads(f)
        .into_iter()
        .filter(|(k, _)| k == kind)
        .map(|(_, p)| p)
        .collect()
}

#[test]
fn event_payloads_keep_aofs_key_order() {
    use amail_core::aof::{detect, Input};
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    // A report with a summary nobody wrote: warning, run_result, blocked.
    let mut p = report("blocked");
    p["summaryRef"] = json!("outputs/missing.md");
    p["blockers"] = json!(["Awaiting API key"]);
    f.send("completion.report", A, SWE, p);
    assert_eq!(
        raw_of(&f, "task.transitioned"),
        [
            r#"{"from":"ready","to":"in-progress"}"#,
            r#"{"from":"in-progress","to":"blocked","reason":"Awaiting API key"}"#,
        ]
    );
    assert_eq!(
        raw_of(&f, "protocol.message.warning"),
        [r#"{"reason":"summary_file_not_found","summaryRef":"outputs/missing.md"}"#]
    );
    // A handoff and its rejection.
    f.task(B, "ready", Some("architect"), json!({}));
    f.task(C, "ready", Some("architect"), json!({}));
    f.send(
        "handoff.request",
        C,
        "architect",
        handoff(C, B, "architect", SWE),
    );
    assert_eq!(
        raw_of(&f, "delegation.requested"),
        [format!(r#"{{"parentTaskId":"{B}","toAgent":"{SWE}"}}"#)]
    );
    // Rejections raised while reading input: reason first, then the rest.
    for text in ["AOF/1 {bad json", "{\"protocol\":\"aof\",\"version\":1}"] {
        f.r.route(&amail_core::bridge::envelope::routable(
            detect(Input::Text(text)),
            None,
        ))
        .unwrap();
    }
    let big = format!("AOF/1 {}", " ".repeat(10 * 1024 * 1024 + 1));
    f.r.route(&amail_core::bridge::envelope::routable(
        detect(Input::Text(&big)),
        None,
    ))
    .unwrap();
    let rejected = raw_of(&f, "protocol.message.rejected");
    assert_eq!(rejected.len(), 3, "{rejected:?}");
    assert!(
        rejected[0].starts_with(r#"{"reason":"invalid_json","source":"AOF/1 prefix","error":""#),
        "{}",
        rejected[0]
    );
    assert!(
        rejected[1].starts_with(r#"{"reason":"invalid_envelope","errors":["#),
        "{}",
        rejected[1]
    );
    assert_eq!(
        rejected[2],
        r#"{"reason":"payload_too_large","maxBytes":10485760}"#
    );
    // A report for a done task: amail's own rejection, reason first too.
    f.task("TASK-2026-02-09-060", "done", Some(SWE), json!({}));
    f.send(
        "completion.report",
        "TASK-2026-02-09-060",
        SWE,
        report("partial"),
    );
    assert_eq!(
        raw_of(&f, "protocol.message.rejected")[3],
        r#"{"reason":"invalid_transition","from":"done","to":"review","outcome":"partial"}"#
    );
}

/// The order survives the write-ahead log: a plan whose events never
/// reached the log (the writer was killed after logging its plan) is
/// replayed by the next writer, and the lines it appends are the ones the
/// first would have written.
#[test]
fn replayed_events_keep_aofs_key_order() {
    use amail_core::router::journal::WAL;
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    f.send(
        "status.update",
        A,
        SWE,
        json!({ "taskId": A, "agentId": SWE, "status": "blocked", "blockers": ["db down"] }),
    );
    let events_dir = f.root().join("events");
    let logged = fs::read_to_string(&events::day_files(&events_dir).unwrap()[0]).unwrap();
    assert!(
        logged.contains(r#""payload":{"from":"in-progress","to":"blocked","reason":"db down"}"#),
        "{logged}"
    );
    // The plan is still in the write-ahead log (no checkpoint yet).
    assert!(!fs::read_to_string(f.root().join(WAL)).unwrap().is_empty());
    fs::remove_dir_all(&events_dir).unwrap();
    // Another writer takes the lock and replays the log first.
    let other = Router::new(Store::open(f.root()).unwrap(), RouterOptions::default());
    send_by(
        &other,
        "status.update",
        A,
        SWE,
        json!({ "taskId": A, "agentId": SWE, "notes": "x" }),
    );
    let replayed = fs::read_to_string(&events::day_files(&events_dir).unwrap()[0]).unwrap();
    assert!(replayed.starts_with(&logged), "{replayed}\n---\n{logged}");
}

/// AOF's store logs `task.assigned {agent}` right after the transition
/// whenever a task enters in-progress with an agent (reference §1.5 step
/// 7), actor = that agent.
#[test]
fn entering_in_progress_logs_task_assigned() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    // A report for a ready task passes through in-progress (completion_path).
    f.task(B, "ready", Some("other"), json!({}));
    f.send("completion.report", B, SWE, report("needs_review"));
    let seq: Vec<(String, String, Option<String>, String)> = f
        .events()
        .into_iter()
        .filter(|e| e.kind == "task.transitioned" || e.kind == "task.assigned")
        .map(|e| (e.kind, e.actor, e.task_id, e.payload.to_string()))
        .collect();
    let assigned = |id: &str| {
        (
            "task.assigned".to_string(),
            SWE.to_string(),
            Some(id.to_string()),
            format!(r#"{{"agent":"{SWE}"}}"#),
        )
    };
    let moved = |id: &str, from: &str, to: &str, reason: &str| {
        (
            "task.transitioned".to_string(),
            SWE.to_string(),
            Some(id.to_string()),
            format!(r#"{{"from":"{from}","to":"{to}","reason":"{reason}"}}"#),
        )
    };
    assert_eq!(
        seq,
        [
            (
                "task.transitioned".to_string(),
                SWE.to_string(),
                Some(A.to_string()),
                r#"{"from":"ready","to":"in-progress"}"#.to_string()
            ),
            assigned(A),
            moved(B, "ready", "in-progress", "completion_reported"),
            assigned(B),
            moved(B, "in-progress", "review", "notes here"),
        ]
    );
}

/// A completion report's events in AOF's order (reference §3.2 and its
/// probe): received, the outcome's transitions, the cascade, and
/// `task.completed` last.
#[test]
fn completion_events_come_in_aofs_order() {
    let f = Fx::new();
    f.running(A, SWE, json!({ "reviewRequired": false }));
    let mut dependent = Task::new(B, "Dependent", "backlog", T0);
    dependent.fm.depends_on = vec![A.to_string()];
    f.r.store.insert(dependent).unwrap();
    let before = f.events().len();
    f.send("completion.report", A, SWE, report("done"));
    let seq: Vec<(String, Option<String>)> = f.events()[before..]
        .iter()
        .map(|e| (e.kind.clone(), e.task_id.clone()))
        .collect();
    let ev = |k: &str, id: &str| (k.to_string(), Some(id.to_string()));
    assert_eq!(
        seq,
        [
            ev("protocol.message.received", A),
            ev("protocol.message.warning", A),
            ev("task.transitioned", A),
            ev("task.transitioned", A),
            ev("task.transitioned", B),
            ev("dependency.cascaded", A),
            ev("task.completed", A),
        ]
    );
}

/// Stale-heartbeat recovery moves a task as AOF's scheduler does: with a
/// run_result, each of the outcome's transitions is the scheduler's
/// (reference §5.4: reason `stale_heartbeat_<outcome>`, actor
/// `scheduler`), as the reclaim without one already was.
#[test]
fn stale_heartbeat_outcome_transitions_are_the_schedulers() {
    let f = Fx::new();
    f.running(A, SWE, json!({ "reviewRequired": false }));
    write_result(&f, A, "done");
    let before = f.events().len();
    f.r.sweep_stale(at("2026-02-09T22:00:00Z")).unwrap();
    let moves: Vec<(String, String)> = f.events()[before..]
        .iter()
        .filter(|e| e.kind == "task.transitioned")
        .map(|e| (e.actor.clone(), e.payload.to_string()))
        .collect();
    let by_scheduler = |from: &str, to: &str| {
        (
            "scheduler".to_string(),
            format!(r#"{{"from":"{from}","to":"{to}","reason":"stale_heartbeat_done"}}"#),
        )
    };
    assert_eq!(
        moves,
        [
            by_scheduler("in-progress", "review"),
            by_scheduler("review", "done")
        ]
    );
}

/// A completion's transitions carry the report's notes as their reason
/// even when the notes are empty: AOF's reason is a string there (notes is
/// required), and `JSON.stringify` keeps `"reason":""` (only `undefined`
/// is left out). Session end does the same with the run_result's notes.
#[test]
fn completion_transitions_keep_an_empty_reason() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    let mut p = report("needs_review");
    p["notes"] = json!("");
    f.send("completion.report", A, SWE, p);
    f.running(B, SWE, json!({}));
    fs::write(
        f.root().join(format!("state/runs/{B}/run_result.json")),
        json!({ "taskId": B, "agentId": SWE, "completedAt": T0, "outcome": "partial",
                "summaryRef": "", "handoffRef": "outputs/handoff.md", "deliverables": [],
                "tests": { "total": 0, "passed": 0, "failed": 0 }, "blockers": [], "notes": "" })
        .to_string(),
    )
    .unwrap();
    f.r.session_end().unwrap();
    let to_review: Vec<String> = raw_of(&f, "task.transitioned")
        .into_iter()
        .filter(|p| p.contains(r#""to":"review""#))
        .collect();
    assert_eq!(
        to_review,
        [
            r#"{"from":"in-progress","to":"review","reason":""}"#,
            r#"{"from":"in-progress","to":"review","reason":""}"#,
        ]
    );
}

/// Empty strings count as absent in a status update, as in AOF's
/// `buildStatusReason` and Work Log entry (JavaScript truthiness): an
/// empty `notes` gives way to `progress` as the reason, and empty fields
/// make no Work Log entry.
#[test]
fn empty_status_fields_are_absent() {
    let f = Fx::new();
    f.running(A, SWE, json!({}));
    f.send(
        "status.update",
        A,
        SWE,
        json!({ "taskId": A, "agentId": SWE, "status": "blocked", "notes": "", "progress": "half" }),
    );
    assert_eq!(
        raw_of(&f, "task.transitioned").last().unwrap(),
        r#"{"from":"in-progress","to":"blocked","reason":"half"}"#
    );
    f.send(
        "status.update",
        A,
        SWE,
        json!({ "taskId": A, "agentId": SWE, "status": "ready", "notes": "" }),
    );
    assert_eq!(
        raw_of(&f, "task.transitioned").last().unwrap(),
        r#"{"from":"blocked","to":"ready"}"#
    );
    let body = f.get(A).body;
    f.send(
        "status.update",
        A,
        SWE,
        json!({ "taskId": A, "agentId": SWE, "notes": "", "progress": "" }),
    );
    assert_eq!(f.get(A).body, body);
    f.send(
        "status.update",
        A,
        SWE,
        json!({ "taskId": A, "agentId": SWE, "notes": "", "progress": "p" }),
    );
    assert!(f.get(A).body.ends_with(" Progress: p"), "{}", f.get(A).body);
}
