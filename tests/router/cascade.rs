//! Dependency cascades, conformance with AOF's own tests (aof-router.md
//! §7.8 `block-cascade.test.ts`, §7.12 `dep-cascader.test.ts`, §7.10
//! stale-heartbeat recovery "cascade on done" and `expireLeases`, and the
//! cascade integration suite: completion, multi-dependency, block opt-in
//! and opt-out, an A -> B -> C lifecycle), then what AOF pays for and amail
//! must not: a chain of 1,000 tasks completed one by one, a diamond, a
//! cycle refused, dependencies AOF itself wrote into the store, and
//! `reviewRequired: false`. The cost side is in `benches/router.rs`.

use std::fs;

use amail_core::aof::validate::{envelope_from_value, Validated};
use amail_core::aof::{Envelope, Routable, TaskStatus};
use amail_core::router::events::{self, Event};
use amail_core::router::task::Task;
use amail_core::router::{deps, review, RouteOutcome, Router, RouterOptions, Store};
use serde_json::{json, Value};

const T0: &str = "2026-02-09T20:00:00.000Z";
const SWE: &str = "swe-backend";

pub(crate) fn id(i: usize) -> String {
    format!("TASK-2026-02-09-{:03}-{:02}", i / 100, i % 100)
}

pub(crate) struct Fx {
    _dir: tempfile::TempDir,
    pub r: Router,
}

impl Fx {
    pub fn new() -> Fx {
        // tmpfs when there is one: the chain test routes a thousand reports.
        let dir = crate::support::router::scratch();
        let store = Store::open(dir.path().join("store")).unwrap();
        Fx {
            _dir: dir,
            r: Router::new(store, RouterOptions::default()),
        }
    }

    pub fn store(&self) -> &Store {
        &self.r.store
    }

    /// A task in `status` routed to SWE, depending on `deps`.
    pub fn task(&self, id: &str, status: &str, deps: &[&str], meta: Value) {
        let mut t = Task::new(id, &format!("Task {id}"), status, T0);
        t.fm.routing.agent = Some(SWE.into());
        t.fm.depends_on = deps.iter().map(|d| d.to_string()).collect();
        if let Value::Object(m) = meta {
            t.fm.metadata.extend(m);
        }
        self.r.store.insert(t).unwrap();
    }

    pub fn send(&self, kind: &str, id: &str, payload: Value) -> RouteOutcome {
        self.r
            .route(&Routable::named(envelope(kind, id, payload), None, None))
            .unwrap()
    }

    /// A completion report with outcome `outcome` from SWE.
    pub fn complete(&self, id: &str, outcome: &str) -> RouteOutcome {
        self.send(
            "completion.report",
            id,
            json!({ "outcome": outcome, "summaryRef": "", "tests": { "total": 0, "passed": 0, "failed": 0 },
                    "blockers": ["stuck"], "notes": "" }),
        )
    }

    pub fn set_status(&self, id: &str, status: &str) -> RouteOutcome {
        self.send(
            "status.update",
            id,
            json!({ "taskId": id, "agentId": SWE, "status": status }),
        )
    }

    pub fn status(&self, id: &str) -> TaskStatus {
        self.r.store.get(id).unwrap().unwrap().0
    }

    pub fn get(&self, id: &str) -> Task {
        self.r.store.get(id).unwrap().unwrap().1
    }

    pub fn events_of(&self, kind: &str) -> Vec<Event> {
        events::read_all(&self.r.store.root().join("events"))
            .unwrap()
            .0
            .into_iter()
            .filter(|e| e.kind == kind)
            .collect()
    }

    pub fn cascade_blocks(&self, on: bool) {
        let p = self.r.store.root().join(deps::SETTINGS);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, json!({ "cascadeBlocks": on }).to_string()).unwrap();
    }
}

fn envelope(kind: &str, id: &str, payload: Value) -> Envelope {
    let v = json!({
        "protocol": "aof", "version": 1, "type": kind, "projectId": "demo", "taskId": id,
        "fromAgent": SWE, "toAgent": "dispatcher", "sentAt": "2026-02-09T21:00:00.000Z", "payload": payload
    });
    match envelope_from_value(&v) {
        Ok(Validated::Envelope(e)) => e,
        other => panic!("{other:?}"),
    }
}

fn no_review() -> Value {
    json!({ "reviewRequired": false })
}

const A: &str = "TASK-2026-02-09-101";
const B: &str = "TASK-2026-02-09-102";
const C: &str = "TASK-2026-02-09-103";
const D: &str = "TASK-2026-02-09-104";
const E: &str = "TASK-2026-02-09-105";

// dep-cascader.test.ts

#[test]
fn done_promotes_only_dependents_whose_dependencies_are_all_done() {
    let fx = Fx::new();
    fx.task(A, "in-progress", &[], no_review());
    fx.task(E, "ready", &[], json!({}));
    fx.task(B, "backlog", &[A], json!({}));
    fx.task(C, "backlog", &[A, E], json!({}));
    fx.task(D, "backlog", &[], json!({}));
    fx.complete(A, "done");
    assert_eq!(fx.status(A), TaskStatus::Done);
    assert_eq!(fx.status(B), TaskStatus::Ready);
    assert_eq!(fx.status(C), TaskStatus::Backlog);
    assert_eq!(fx.status(D), TaskStatus::Backlog);
    let ev = fx.events_of("dependency.cascaded");
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].actor, "system");
    assert_eq!(ev[0].task_id.as_deref(), Some(A));
    assert_eq!(
        ev[0].payload,
        json!({ "trigger": A, "action": "promote", "count": 1, "promoted": [B], "skipped": [C] })
    );
    // The promotion is a transition, logged once with AOF's reason.
    let t: Vec<_> = fx
        .events_of("task.transitioned")
        .into_iter()
        .filter(|e| e.task_id.as_deref() == Some(B))
        .collect();
    assert_eq!(t.len(), 1);
    assert_eq!(
        t[0].payload,
        json!({ "from": "backlog", "to": "ready", "reason": "dependency_satisfied" })
    );
}

#[test]
fn no_dependents_no_event() {
    let fx = Fx::new();
    fx.task(A, "in-progress", &[], no_review());
    fx.task(B, "backlog", &[], json!({}));
    fx.complete(A, "done");
    assert_eq!(fx.status(A), TaskStatus::Done);
    assert!(fx.events_of("dependency.cascaded").is_empty());
    assert_eq!(fx.status(B), TaskStatus::Backlog);
}

#[test]
fn blocked_dependents_are_promoted_too_and_others_are_left() {
    let fx = Fx::new();
    fx.task(A, "in-progress", &[], no_review());
    fx.task(B, "blocked", &[A], json!({}));
    // Not waiting in backlog/blocked: a cascade leaves them alone.
    fx.task(C, "in-progress", &[A], json!({}));
    fx.task(D, "review", &[A], json!({}));
    fx.complete(A, "done");
    assert_eq!(fx.status(B), TaskStatus::Ready);
    assert_eq!(fx.status(C), TaskStatus::InProgress);
    assert_eq!(fx.status(D), TaskStatus::Review);
    let ev = fx.events_of("dependency.cascaded");
    assert_eq!(ev[0].payload["promoted"], json!([B]));
    assert_eq!(ev[0].payload["skipped"], json!([]));
}

/// AOF cascades on every `done` report, also one that only reached review
/// (review required): its dependents are "skipped".
#[test]
fn done_report_that_only_reaches_review_skips_its_dependents() {
    let fx = Fx::new();
    fx.task(A, "in-progress", &[], json!({}));
    fx.task(B, "backlog", &[A], json!({}));
    fx.complete(A, "done");
    assert_eq!(fx.status(A), TaskStatus::Review);
    assert_eq!(fx.status(B), TaskStatus::Backlog);
    let ev = fx.events_of("dependency.cascaded");
    assert_eq!(
        ev[0].payload,
        json!({ "trigger": A, "action": "promote", "count": 0, "promoted": [], "skipped": [B] })
    );
    // Approving it finishes the job.
    let out = review::approve(fx.store(), A, "lead").unwrap();
    assert_eq!(out.promoted, vec![B.to_string()]);
    assert_eq!(fx.status(B), TaskStatus::Ready);
}

// block-cascade.test.ts

#[test]
fn block_cascade_is_off_by_default() {
    let fx = Fx::new();
    fx.task(A, "in-progress", &[], json!({}));
    fx.task(B, "backlog", &[A], json!({}));
    fx.task(C, "ready", &[A], json!({}));
    fx.set_status(A, "blocked");
    assert_eq!(fx.status(A), TaskStatus::Blocked);
    assert_eq!(fx.status(B), TaskStatus::Backlog);
    assert_eq!(fx.status(C), TaskStatus::Ready);
    assert!(fx.events_of("dependency.cascaded").is_empty());
    // Explicitly false: the same.
    let fx = Fx::new();
    fx.cascade_blocks(false);
    fx.task(A, "in-progress", &[], json!({}));
    fx.task(C, "ready", &[A], json!({}));
    fx.set_status(A, "blocked");
    assert_eq!(fx.status(C), TaskStatus::Ready);
}

#[test]
fn block_cascade_blocks_backlog_and_ready_dependents_only() {
    let fx = Fx::new();
    fx.cascade_blocks(true);
    fx.task(A, "in-progress", &[], json!({}));
    fx.task(B, "backlog", &[A], json!({}));
    fx.task(C, "ready", &[A], json!({}));
    fx.task(D, "in-progress", &[A], json!({}));
    fx.task(E, "ready", &[], json!({}));
    fx.set_status(A, "blocked");
    assert_eq!(fx.status(B), TaskStatus::Blocked);
    assert_eq!(fx.status(C), TaskStatus::Blocked);
    assert_eq!(fx.status(D), TaskStatus::InProgress);
    assert_eq!(fx.status(E), TaskStatus::Ready);
    for t in [B, C] {
        let reason = fx.get(t).fm.metadata["blockReason"].clone();
        assert_eq!(reason, json!(format!("upstream blocked: {A}")));
    }
    let ev = fx.events_of("dependency.cascaded");
    assert_eq!(ev.len(), 1);
    assert_eq!(
        ev[0].payload,
        json!({ "trigger": A, "action": "block", "count": 2, "blocked": [B, C] })
    );
    let blocked = fx.events_of("task.blocked");
    assert_eq!(blocked.len(), 2);
    assert_eq!(
        blocked[0].payload,
        json!({ "reason": format!("upstream blocked: {A}") })
    );
    // A second blocked update is a no-op, without error.
    let out = fx.set_status(A, "blocked");
    assert!(
        matches!(out, RouteOutcome::Routed { transitions: 0, .. }),
        "{out:?}"
    );
    assert_eq!(fx.events_of("dependency.cascaded").len(), 1);
}

/// Only a status update to `blocked` cascades, as in AOF, where
/// `cascadeOnBlock` is called from `handleStatusUpdate` alone (reference
/// §3.3 step 4; §3.2 cascades only on `done`, §3.5 not at all): a blocked
/// completion report (amail's FAILED mail) and a rejected handoff block
/// the task and leave its dependents where they are.
#[test]
fn only_a_blocked_status_update_cascades() {
    let fx = Fx::new();
    fx.cascade_blocks(true);
    fx.task(A, "in-progress", &[], json!({}));
    fx.task(B, "backlog", &[A], json!({}));
    fx.complete(A, "blocked");
    assert_eq!(fx.status(A), TaskStatus::Blocked);
    assert_eq!(fx.status(B), TaskStatus::Backlog);
    fx.task(C, "ready", &[], json!({}));
    fx.task(D, "ready", &[C], json!({}));
    let out = fx.send(
        "handoff.rejected",
        C,
        json!({ "taskId": C, "accepted": false, "reason": "no" }),
    );
    assert!(
        matches!(out, RouteOutcome::Routed { transitions: 1, .. }),
        "{out:?}"
    );
    assert_eq!(fx.status(C), TaskStatus::Blocked);
    assert_eq!(fx.status(D), TaskStatus::Ready);
    assert!(fx.events_of("dependency.cascaded").is_empty());
    assert!(fx.events_of("task.blocked").is_empty());
}

// Integration suite: multi-dependency and a full lifecycle.

#[test]
fn a_task_waiting_for_two_is_promoted_when_the_second_is_done() {
    let fx = Fx::new();
    fx.task(A, "in-progress", &[], no_review());
    fx.task(B, "in-progress", &[], no_review());
    fx.task(C, "backlog", &[A, B], json!({}));
    fx.complete(A, "done");
    assert_eq!(fx.status(C), TaskStatus::Backlog);
    fx.complete(B, "done");
    assert_eq!(fx.status(C), TaskStatus::Ready);
}

#[test]
fn a_b_c_chain_through_the_whole_lifecycle() {
    let fx = Fx::new();
    fx.task(A, "ready", &[], json!({}));
    fx.task(B, "backlog", &[A], json!({}));
    fx.task(C, "backlog", &[B], json!({}));
    for (t, next) in [(A, Some(B)), (B, Some(C)), (C, None)] {
        fx.set_status(t, "in-progress");
        fx.complete(t, "done");
        assert_eq!(fx.status(t), TaskStatus::Review);
        review::approve(fx.store(), t, "lead").unwrap();
        assert_eq!(fx.status(t), TaskStatus::Done);
        if let Some(n) = next {
            assert_eq!(fx.status(n), TaskStatus::Ready, "{n} after {t}");
        }
    }
    // Nothing promoted twice.
    let promoted: Vec<_> = fx
        .events_of("task.transitioned")
        .into_iter()
        .filter(|e| e.payload["reason"] == "dependency_satisfied")
        .map(|e| e.task_id.unwrap())
        .collect();
    assert_eq!(promoted, [B, C]);
}

// Recovery paths that apply a `done` outcome cascade as well.

#[test]
fn stale_heartbeat_with_a_done_result_cascades() {
    let fx = Fx::new();
    fx.task(A, "ready", &[], no_review());
    fx.task(B, "backlog", &[A], json!({}));
    fx.set_status(A, "in-progress");
    // A run_result written while in progress (the report never came).
    let rr = json!({ "taskId": A, "agentId": SWE, "completedAt": T0, "outcome": "done", "summaryRef": "",
                     "handoffRef": "outputs/handoff.md", "deliverables": [], "tests": { "total": 0, "passed": 0, "failed": 0 },
                     "blockers": [], "notes": "" });
    let p = fx
        .store()
        .root()
        .join(format!("state/runs/{A}/run_result.json"));
    fs::write(p, rr.to_string()).unwrap();
    let later = chrono::DateTime::parse_from_rfc3339("2026-02-10T21:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    fx.r.sweep_stale(later).unwrap();
    assert_eq!(fx.status(A), TaskStatus::Done);
    assert_eq!(fx.status(B), TaskStatus::Ready);
}

/// `expireLeases`: a blocked task whose lease expired is requeued only
/// when its dependencies are done; otherwise it stays blocked, lease gone.
#[test]
fn expired_lease_requeues_a_blocked_task_only_when_its_dependencies_are_done() {
    let fx = Fx::new();
    fx.task(A, "done", &[], json!({}));
    fx.task(E, "ready", &[], json!({}));
    for (t, deps) in [(B, vec![A]), (C, vec![A, E])] {
        let mut task = Task::new(t, "leased", "blocked", T0);
        task.fm.depends_on = deps.iter().map(|d| d.to_string()).collect();
        task.fm.lease = Some(amail_core::router::task::Lease {
            agent: SWE.into(),
            acquired_at: T0.into(),
            expires_at: "2026-02-09T20:10:00.000Z".into(),
            renew_count: 0,
        });
        fx.store().insert(task).unwrap();
    }
    let later = chrono::DateTime::parse_from_rfc3339("2026-02-09T21:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    let moved = fx.r.sweep_stale(later).unwrap();
    assert_eq!(moved, vec![B.to_string()]);
    assert_eq!(fx.status(B), TaskStatus::Ready);
    assert!(fx.get(B).fm.lease.is_none());
    assert_eq!(fx.status(C), TaskStatus::Blocked);
    assert!(fx.get(C).fm.lease.is_none());
    let t = fx.events_of("task.transitioned");
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].payload["reason"], "lease_expired_requeue");
}

// What AOF pays for with a scan of the store.

#[test]
fn a_chain_of_1000_tasks_completed_one_by_one() {
    let fx = Fx::new();
    let n = 1000;
    for i in 0..n {
        let prev = if i == 0 { vec![] } else { vec![id(i - 1)] };
        let prev: Vec<&str> = prev.iter().map(String::as_str).collect();
        let status = if i == 0 { "ready" } else { "backlog" };
        fx.task(&id(i), status, &prev, no_review());
    }
    for i in 0..n {
        assert_eq!(fx.status(&id(i)), TaskStatus::Ready, "task {i}");
        if i + 1 < n {
            assert_eq!(fx.status(&id(i + 1)), TaskStatus::Backlog, "task {}", i + 1);
        }
        // ready -> in-progress -> review -> done, then the next is promoted.
        fx.complete(&id(i), "done");
        assert_eq!(fx.status(&id(i)), TaskStatus::Done, "task {i}");
    }
    let ev = fx.events_of("dependency.cascaded");
    assert_eq!(ev.len(), n - 1);
    for (i, e) in ev.iter().enumerate() {
        assert_eq!(e.payload["promoted"], json!([id(i + 1)]));
    }
    let promotions = fx
        .events_of("task.transitioned")
        .into_iter()
        .filter(|e| e.payload["reason"] == "dependency_satisfied")
        .count();
    assert_eq!(promotions, n - 1, "each task promoted exactly once");
}

#[test]
fn a_diamond_joins_only_when_both_sides_are_done() {
    // A -> {B, C} -> D
    let fx = Fx::new();
    fx.task(A, "ready", &[], no_review());
    fx.task(B, "backlog", &[A], no_review());
    fx.task(C, "backlog", &[A], no_review());
    fx.task(D, "backlog", &[B, C], no_review());
    fx.complete(A, "done");
    assert_eq!(fx.status(B), TaskStatus::Ready);
    assert_eq!(fx.status(C), TaskStatus::Ready);
    assert_eq!(fx.status(D), TaskStatus::Backlog);
    fx.complete(C, "done");
    assert_eq!(fx.status(D), TaskStatus::Backlog);
    let last = fx.events_of("dependency.cascaded").pop().unwrap();
    assert_eq!(last.payload["skipped"], json!([D]));
    fx.complete(B, "done");
    assert_eq!(fx.status(D), TaskStatus::Ready);
    let d_promotions = fx
        .events_of("task.transitioned")
        .into_iter()
        .filter(|e| e.task_id.as_deref() == Some(D))
        .count();
    assert_eq!(d_promotions, 1);
}

#[test]
fn a_cycle_is_refused_and_named() {
    let fx = Fx::new();
    fx.task(A, "backlog", &[], json!({}));
    fx.task(B, "backlog", &[A], json!({}));
    fx.task(C, "backlog", &[B], json!({}));
    let err = deps::add(fx.store(), A, C, "lead").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("refused: {A} -> {C} would close a dependency cycle: {A} -> {C} -> {B} -> {A}")
    );
    assert!(fx.get(A).fm.depends_on.is_empty(), "nothing written");
    assert!(fx.events_of("task.dep.added").is_empty());
    let err = deps::add(fx.store(), A, A, "lead").unwrap_err();
    assert!(err.to_string().contains("cannot depend on itself"), "{err}");
    let err = deps::add(fx.store(), A, "TASK-2026-02-09-999", "lead").unwrap_err();
    assert!(
        err.to_string().contains("no task TASK-2026-02-09-999"),
        "{err}"
    );
}

#[test]
fn a_dependency_added_by_command_cascades_and_is_logged_as_aof_does() {
    let fx = Fx::new();
    fx.task(A, "ready", &[], no_review());
    fx.task(B, "backlog", &[], json!({}));
    assert!(deps::add(fx.store(), B, A, "lead").unwrap());
    assert!(
        !deps::add(fx.store(), B, A, "lead").unwrap(),
        "already there"
    );
    assert_eq!(fx.get(B).fm.depends_on, vec![A.to_string()]);
    let ev = fx.events_of("task.dep.added");
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].payload, json!({ "taskId": B, "blockerId": A }));
    fx.complete(A, "done");
    assert_eq!(fx.status(B), TaskStatus::Ready);
}

/// AOF writes task files into the same store (its `create` with
/// `dependsOn`, its `addDep`) without telling amail: the next transaction
/// finds them by the status directories' mtimes.
#[test]
fn dependencies_written_by_aof_itself_are_honoured() {
    let fx = Fx::new();
    fx.task(A, "ready", &[], no_review());
    fx.task(C, "ready", &[], no_review());
    // Something routed, so the index is current for amail's own writes.
    fx.set_status(C, "in-progress");
    let text = format!(
        "---\nschemaVersion: 1\nid: {B}\ntitle: From AOF\nstatus: backlog\npriority: normal\nrouting:\n  tags: []\ncreatedAt: 2026-11-22T00:00:00.000Z\nupdatedAt: 2026-11-22T00:00:00.000Z\nlastTransitionAt: 2026-11-22T00:00:00.000Z\ncreatedBy: main\ndependsOn:\n  - {A}\nmetadata: {{}}\n---\n\nDo it.\n"
    );
    fs::write(
        fx.store().root().join(format!("tasks/backlog/{B}.md")),
        text,
    )
    .unwrap();
    fx.complete(A, "done");
    assert_eq!(fx.status(B), TaskStatus::Ready);
    // And `amail doctor` finds the index whole.
    let report = amail_core::router::doctor::run(fx.store(), false).unwrap();
    assert!(report.consistent(), "{:?}", report.problems);
}

/// Doctor rebuilds a lost index, and a cascade after that works.
#[test]
fn doctor_rebuilds_the_dependents_index() {
    let fx = Fx::new();
    fx.task(A, "ready", &[], no_review());
    fx.task(B, "backlog", &[A], json!({}));
    let deps_dir = fx.store().root().join("state/amail/deps");
    for e in fs::read_dir(&deps_dir).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().unwrap() != "scan.json" {
            fs::remove_file(p).unwrap();
        }
    }
    assert!(fx.store().dependents_of(A).is_empty());
    let check = amail_core::router::doctor::run(fx.store(), false).unwrap();
    assert!(!check.consistent());
    assert!(
        check.problems.iter().any(|p| p.contains(A)),
        "{:?}",
        check.problems
    );
    let heal = amail_core::router::doctor::run(fx.store(), true).unwrap();
    assert!(
        heal.healed.iter().any(|h| h.contains("dependents index")),
        "{:?}",
        heal.healed
    );
    assert_eq!(fx.store().dependents_of(A), vec![B.to_string()]);
    fx.complete(A, "done");
    assert_eq!(fx.status(B), TaskStatus::Ready);
}

// reviewRequired: false

/// A `done` report on a task that needs no review goes review -> done in
/// sequence (two transition events), the lease is cleared, and nothing is
/// left that AOF's lint reports ("Active lease but status is ...", "Status
/// mismatch").
#[test]
fn review_not_required_goes_through_review_to_done_and_clears_the_lease() {
    let fx = Fx::new();
    fx.task(A, "ready", &[], no_review());
    fx.set_status(A, "in-progress");
    assert!(fx.get(A).fm.lease.is_some());
    fx.complete(A, "done");
    assert_eq!(fx.status(A), TaskStatus::Done);
    let t = fx.get(A);
    assert!(t.fm.lease.is_none(), "done clears the lease");
    assert_eq!(t.fm.status, "done");
    let moves: Vec<_> = fx
        .events_of("task.transitioned")
        .into_iter()
        .map(|e| (e.payload["from"].clone(), e.payload["to"].clone()))
        .collect();
    assert_eq!(
        moves,
        [
            (json!("ready"), json!("in-progress")),
            (json!("in-progress"), json!("review")),
            (json!("review"), json!("done")),
        ]
    );
    assert_eq!(aof_lint(fx.store()), Vec::<String>::new());
}

/// Every outcome on every status, checked against AOF's table and lease
/// rule: each step is a valid transition, and the task file ends in its
/// directory with a lease only where AOF keeps one.
#[test]
fn every_outcome_respects_aofs_transition_and_lease_rules() {
    for rr in [true, false] {
        for outcome in ["done", "blocked", "needs_review", "partial"] {
            for start in ["backlog", "ready", "in-progress", "blocked", "review"] {
                let fx = Fx::new();
                let meta = json!({ "reviewRequired": rr });
                fx.task(A, "ready", &[], meta);
                if start != "ready" {
                    // Reach `start` as AOF would.
                    match start {
                        "backlog" => {
                            fs::rename(
                                fx.store().root().join(format!("tasks/ready/{A}.md")),
                                fx.store().root().join(format!("tasks/backlog/{A}.md")),
                            )
                            .unwrap();
                            let mut t = fx.get(A);
                            t.fm.status = "backlog".into();
                            fs::write(
                                fx.store().root().join(format!("tasks/backlog/{A}.md")),
                                t.render(),
                            )
                            .unwrap();
                        }
                        "in-progress" => {
                            fx.set_status(A, "in-progress");
                        }
                        "blocked" => {
                            fx.set_status(A, "blocked");
                        }
                        "review" => {
                            fx.set_status(A, "in-progress");
                            fx.complete(A, "needs_review");
                        }
                        _ => unreachable!(),
                    }
                }
                fx.complete(A, outcome);
                let ctx = format!("rr={rr} {start} + {outcome}");
                for e in fx.events_of("task.transitioned") {
                    let (from, to) = (
                        e.payload["from"].as_str().unwrap(),
                        e.payload["to"].as_str().unwrap(),
                    );
                    assert!(aof_allows(from, to), "{ctx}: {from} -> {to}");
                }
                let lint = aof_lint(fx.store());
                let end = fx.status(A);
                let expected_end = match (outcome, rr) {
                    ("done", false) => TaskStatus::Done,
                    ("blocked", _) => TaskStatus::Blocked,
                    _ => TaskStatus::Review,
                };
                assert_eq!(end, expected_end, "{ctx}");
                // AOF keeps the lease into review and blocked (its own lint
                // then reports it, §9.6); it must be gone wherever AOF
                // clears it.
                let lease = fx.get(A).fm.lease.is_some();
                if matches!(
                    end,
                    TaskStatus::Done | TaskStatus::Ready | TaskStatus::Backlog
                ) {
                    assert!(!lease, "{ctx}: lease left on {end}");
                }
                for l in lint {
                    assert!(l.starts_with("Active lease but status is"), "{ctx}: {l}");
                }
            }
        }
    }
}

/// AOF's VALID_TRANSITIONS (§1.4), written out here as the oracle.
fn aof_allows(from: &str, to: &str) -> bool {
    let targets: &[&str] = match from {
        "backlog" => &["ready", "blocked", "cancelled"],
        "ready" => &["in-progress", "blocked", "deadletter", "cancelled"],
        "in-progress" => &["review", "ready", "blocked", "deadletter", "cancelled"],
        "blocked" => &["ready", "deadletter", "cancelled"],
        "review" => &["done", "in-progress", "blocked", "cancelled"],
        "deadletter" => &["ready"],
        _ => &[],
    };
    targets.contains(&to)
}

/// What AOF's `lint()` reports for a store (§1.5): status mismatch, an
/// active lease outside in-progress, a file that does not parse.
pub(crate) fn aof_lint(store: &Store) -> Vec<String> {
    let mut out = Vec::new();
    for s in TaskStatus::ALL {
        let dir = store.root().join("tasks").join(s.as_str());
        for e in fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.extension().is_none_or(|x| x != "md") {
                continue;
            }
            match Task::parse(&fs::read_to_string(&p).unwrap()) {
                Err(e) => out.push(format!("Parse error: {e}")),
                Ok(t) => {
                    if t.fm.status != s.as_str() {
                        out.push(format!(
                            "Status mismatch: frontmatter='{}' but file in '{}/'",
                            t.fm.status,
                            s.as_str()
                        ));
                    }
                    if t.fm.lease.is_some() && s != TaskStatus::InProgress {
                        out.push(format!(
                            "Active lease but status is '{}' (expected in-progress)",
                            s.as_str()
                        ));
                    }
                }
            }
        }
    }
    out
}

/// The cascade's events as AOF's `dep-cascader` and `addDependency` write
/// them, keys in that order (reference §4: `{trigger, action, count,
/// promoted, skipped}`, `{trigger, action, count, blocked}`; `task.dep.added
/// {taskId, blockerId}`), compared as the text of the line.
#[test]
fn cascade_events_keep_aofs_key_order() {
    let fx = Fx::new();
    fx.cascade_blocks(true);
    fx.task(A, "in-progress", &[], no_review());
    fx.task(B, "backlog", &[], json!({}));
    fx.task(C, "backlog", &[A, E], json!({}));
    fx.task(E, "ready", &[], json!({}));
    deps::add(fx.store(), B, A, "lead").unwrap();
    fx.complete(A, "done");
    fx.task(D, "in-progress", &[], json!({}));
    fx.task("TASK-2026-02-09-070", "ready", &[D], json!({}));
    fx.set_status(D, "blocked");
    let text = |kind: &str| -> Vec<String> {
        fx.events_of(kind)
            .iter()
            .map(|e| e.payload.to_string())
            .collect()
    };
    assert_eq!(
        text("task.dep.added"),
        [format!(r#"{{"taskId":"{B}","blockerId":"{A}"}}"#)]
    );
    assert_eq!(
        text("dependency.cascaded"),
        [
            format!(
                r#"{{"trigger":"{A}","action":"promote","count":1,"promoted":["{B}"],"skipped":["{C}"]}}"#
            ),
            format!(
                r#"{{"trigger":"{D}","action":"block","count":1,"blocked":["TASK-2026-02-09-070"]}}"#
            ),
        ]
    );
}
