//! The protocol router: what each AOF/1 message does to the store.
//!
//! Behaviour follows the seed (`aof-protocols-user-guide`); where the real
//! AOF differs (reference section 9) we follow the seed and log each
//! transition exactly once:
//! - no sender authorisation (the seed has none; AOF checks lease/routing
//!   agent for completion and handoff messages);
//! - a completion report writes `run_result.json` and applies the
//!   session-end step for that task at once (as AOF does, then logs
//!   `task.completed` last): in Agent Mail a completion message
//!   (OFFERING_READY, DONE, FAILED, CHECKPOINT) ends the worker's turn on
//!   the bead, so it *is* the session end. The outcome-driven transitions
//!   are the seed's `resolveCompletionTransitions`;
//! - a completion report for a task that is not in progress reaches its
//!   outcome's status through in-progress ([`completion_path`]): the mail
//!   shows the work was done, so `ready -> review` (not in AOF's table, and
//!   silently dropped by AOF) becomes `ready -> in-progress -> review`. A
//!   report for a `done` or `cancelled` task, which nothing can move, is
//!   rejected `invalid_transition` with nothing written (AOF writes
//!   `run_result.json` and logs `task.completed` for a move that never
//!   happens);
//! - `handoff.rejected` logs `task.transitioned` only when the child really
//!   moved (AOF logs a fake `blocked -> blocked`);
//! - a re-sent `handoff.request` rewrites nothing and logs no second
//!   `delegation.requested` (the seed's "no duplicate delegation");
//! - Work Log entries carry the message's `sentAt` (as in the seed's
//!   examples) and go into one `## Work Log` section.
//!
//! Task timestamps (`updatedAt`, lease and heartbeat times, Work Log) come
//! from the message's `sentAt`, so routing the same mail into two empty
//! stores yields the same task files; event timestamps are wall-clock
//! logging times, as in AOF.

use chrono::{DateTime, Duration, Utc};
use serde_json::json;

use super::deps;
use super::payloads::{
    Assigned, Completed, DelegationAccepted, DelegationRejected, DelegationRequested, Received,
    Transitioned, Warning,
};
use super::route::{RouteOutcome, Router, RouterOptions};
use super::runs::*;
use super::store::{iso, rel_companion, rel_run, Result, Store, Txn};
use super::task::{append_work_log, Lease, Task};
use crate::aof::{
    CompletionReport, Envelope, HandoffAck, HandoffRequest, MessageKind, Outcome, Payload,
    Rejection, RejectionDetail, StatusUpdate, TaskStatus,
};

fn parse_time(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

fn plus_ms(s: &str, ms: i64) -> String {
    parse_time(s)
        .map(|t| iso(t + Duration::milliseconds(ms)))
        .unwrap_or_else(|| s.to_string())
}

impl Router {
    pub fn new(store: Store, opts: RouterOptions) -> Router {
        Router { store, opts }
    }

    /// Routes one input from any bridge: the router's one entry (the
    /// transaction tail is in `route.rs`).
    pub fn route(&self, input: &crate::aof::Routable) -> Result<RouteOutcome> {
        super::route::route(self, input)
    }

    /// Runs the handler for an envelope inside an open transaction.
    /// `verbatim`: the envelope is AOF/1 input as its sender wrote it (not
    /// a bridge's), so its `summaryRef` is checked exactly as AOF checks it.
    pub(super) fn handle(
        &self,
        tx: &mut Txn<'_>,
        env: &Envelope,
        summary: Option<&str>,
        verbatim: bool,
    ) -> Result<RouteOutcome> {
        tx.log(
            &env.from_agent,
            Some(&env.task_id),
            &Received {
                kind: env.kind.as_str(),
            },
        );
        match (&env.kind, &env.payload) {
            (MessageKind::CompletionReport, Payload::CompletionReport(p)) => {
                self.completion(tx, env, p, summary, verbatim)
            }
            (MessageKind::StatusUpdate, Payload::StatusUpdate(p)) => self.status_update(tx, env, p),
            (MessageKind::HandoffRequest, Payload::HandoffRequest(p)) => {
                self.handoff_request(tx, env, p)
            }
            (MessageKind::HandoffAccepted, Payload::HandoffAck(p)) => {
                self.handoff_ack(tx, env, p, true)
            }
            (MessageKind::HandoffRejected, Payload::HandoffAck(p)) => {
                self.handoff_ack(tx, env, p, false)
            }
            _ => Ok(reject(
                tx,
                env,
                "invalid_envelope",
                RejectionDetail::InvalidEnvelope {
                    errors: vec!["payload does not match type".into()],
                },
            )),
        }
    }

    fn completion(
        &self,
        tx: &mut Txn<'_>,
        env: &Envelope,
        p: &CompletionReport,
        summary: Option<&str>,
        verbatim: bool,
    ) -> Result<RouteOutcome> {
        let Some((status, task)) = tx.get(&env.task_id)? else {
            return Ok(reject(tx, env, "task_not_found", RejectionDetail::None));
        };
        let id = env.task_id.clone();
        // A report whose outcome the task can no longer reach (it is done or
        // cancelled) changes nothing and says so: it is not a routed report.
        if completion_path(status, task.review_required(), p.outcome).is_none() {
            let to = completion_targets(status, task.review_required(), p.outcome);
            return Ok(reject(
                tx,
                env,
                "invalid_transition",
                RejectionDetail::InvalidTransition {
                    from: status.as_str(),
                    to: to.last().map(|t| t.as_str()),
                    outcome: p.outcome.as_str(),
                },
            ));
        }
        // The summary the mail carried goes to outputs/summary.md.
        let mut summary_written = false;
        if let Some(text) = summary {
            if p.summary_ref == "outputs/summary.md" {
                let mut text = text.trim_end().to_string();
                text.push('\n');
                tx.write(
                    format!("{}/outputs/summary.md", rel_companion(status, &id)),
                    text,
                );
                summary_written = true;
            }
        }
        // AOF warns whenever `existsSync(summaryRef)` is false, and it is
        // for `""` (reference §3.2 step 3): an AOF/1 report naming no
        // summary is warned about. A bridge's `""` means the mail had no
        // summary, and warning about amail's own report would be noise on
        // every FAILED or CHECKPOINT mail.
        let check = if p.summary_ref.is_empty() {
            verbatim
        } else {
            !summary_written
        };
        if check {
            let on_disk = self
                .store
                .root()
                .join(rel_companion(status, &id))
                .join(&p.summary_ref);
            let named = std::path::Path::new(&p.summary_ref);
            let exists = !p.summary_ref.is_empty() && (on_disk.exists() || named.exists());
            if !exists {
                tx.log(
                    "system",
                    Some(&id),
                    &Warning {
                        reason: "summary_file_not_found",
                        summary_ref: &p.summary_ref,
                    },
                );
            }
        }
        let result = RunResult {
            task_id: id.clone(),
            agent_id: env.from_agent.clone(),
            completed_at: env.sent_at.clone(),
            outcome: p.outcome,
            summary_ref: p.summary_ref.clone(),
            handoff_ref: "outputs/handoff.md".into(),
            deliverables: p.deliverables.clone(),
            tests: p.tests,
            blockers: p.blockers.clone(),
            notes: p.notes.clone(),
        };
        tx.write(rel_run(&id, "run_result.json"), to_pretty(&result));
        let n = apply_outcome(
            tx,
            status,
            task,
            &result,
            &env.from_agent,
            &env.sent_at,
            None,
        )?;
        complete_run(tx, &id, &env.sent_at);
        // Last, after the transitions and the cascade, as AOF logs it.
        tx.log(
            &env.from_agent,
            Some(&id),
            &Completed {
                outcome: p.outcome.as_str(),
            },
        );
        Ok(RouteOutcome::Routed {
            task_id: id,
            transitions: n,
            created: false,
        })
    }

    fn status_update(
        &self,
        tx: &mut Txn<'_>,
        env: &Envelope,
        p: &StatusUpdate,
    ) -> Result<RouteOutcome> {
        let Some((status, mut task)) = tx.get(&env.task_id)? else {
            return Ok(reject(tx, env, "task_not_found", RejectionDetail::None));
        };
        let id = env.task_id.clone();
        let actor = if p.agent_id.is_empty() {
            env.from_agent.clone()
        } else {
            p.agent_id.clone()
        };
        let blockers = p.blockers.clone().unwrap_or_default();
        // An empty string is absent, as AOF tests these fields for
        // truthiness (its reason and Work Log entry skip `""`).
        let progress = p.progress.as_deref().filter(|s| !s.is_empty());
        let notes = p.notes.as_deref().filter(|s| !s.is_empty());
        let reason = if !blockers.is_empty() {
            Some(blockers.join("; "))
        } else {
            notes.or(progress).map(str::to_string)
        };
        let mut transitions = 0;
        if let Some(to) = p.status {
            if to != status && status.can_transition_to(to) {
                transition(
                    tx,
                    status,
                    task.clone(),
                    to,
                    reason.as_deref(),
                    &actor,
                    &env.sent_at,
                )?;
                transitions = 1;
                after_move(tx, &id, to, &env.sent_at)?;
            }
        }
        if transitions == 0 {
            let mut parts = Vec::new();
            if let Some(pr) = progress {
                parts.push(format!("Progress: {pr}"));
            }
            if let Some(n) = notes {
                parts.push(format!("Notes: {n}"));
            }
            if !blockers.is_empty() {
                parts.push(format!("Blockers: {}", blockers.join(", ")));
            }
            if !parts.is_empty() {
                let entry = format!("- {} {}", env.sent_at, parts.join(" | "));
                let body = append_work_log(&task.body, &entry);
                task.set_body(body);
                task.fm.updated_at = env.sent_at.clone();
                tx.save(status, task.clone());
            }
            // A message from the worker holding the task is its heartbeat.
            if status == TaskStatus::InProgress
                && task.fm.lease.as_ref().map(|l| &l.agent) == Some(&actor)
            {
                beat(tx, &id, &actor, &env.sent_at);
            }
        }
        Ok(RouteOutcome::Routed {
            task_id: id,
            transitions,
            created: false,
        })
    }

    fn handoff_request(
        &self,
        tx: &mut Txn<'_>,
        env: &Envelope,
        p: &HandoffRequest,
    ) -> Result<RouteOutcome> {
        if p.task_id != env.task_id {
            return Ok(reject(tx, env, "taskId_mismatch", RejectionDetail::None));
        }
        let Some((status, mut child)) = tx.get(&env.task_id)? else {
            let out = reject(tx, env, "task_not_found", RejectionDetail::None);
            tx.log(
                &env.from_agent,
                Some(&env.task_id),
                &DelegationRejected {
                    reason: "task_not_found",
                },
            );
            return Ok(out);
        };
        let Some((_, parent)) = tx.get(&p.parent_task_id)? else {
            tx.log(
                &env.from_agent,
                Some(&env.task_id),
                &DelegationRejected {
                    reason: "parent_not_found",
                },
            );
            return Ok(RouteOutcome::Rejected("parent_not_found".into()));
        };
        let depth = parent.delegation_depth() + 1.0;
        if depth > 1.0 {
            tx.log(
                &env.from_agent,
                Some(&env.task_id),
                &DelegationRejected {
                    reason: "nested_delegation",
                },
            );
            return Ok(RouteOutcome::Rejected("nested_delegation".into()));
        }
        let inputs = format!("{}/inputs", rel_companion(status, &env.task_id));
        let handoff_json = to_pretty(p);
        let existing =
            std::fs::read_to_string(self.store.root().join(&inputs).join("handoff.json")).ok();
        // Written as JavaScript writes the number: `1`, not `1.0`.
        let depth = if depth.fract() == 0.0 {
            json!(depth as i64)
        } else {
            json!(depth)
        };
        let same_depth = child.fm.metadata.get("delegationDepth") == Some(&depth);
        let same_agent = child.fm.routing.agent.as_deref() == Some(p.to_agent.as_str());
        if existing.as_deref() == Some(handoff_json.as_str()) && same_depth && same_agent {
            // The same request again: same artifacts already there, no
            // duplicate delegation.
            return Ok(RouteOutcome::Routed {
                task_id: env.task_id.clone(),
                transitions: 0,
                created: false,
            });
        }
        child.fm.metadata.insert("delegationDepth".into(), depth);
        child.fm.routing.agent = Some(p.to_agent.clone());
        child.fm.updated_at = env.sent_at.clone();
        tx.save(status, child);
        tx.write(format!("{inputs}/handoff.json"), handoff_json);
        tx.write(format!("{inputs}/handoff.md"), handoff_markdown(p));
        tx.log(
            &env.from_agent,
            Some(&env.task_id),
            &DelegationRequested {
                parent_task_id: &p.parent_task_id,
                to_agent: &p.to_agent,
            },
        );
        Ok(RouteOutcome::Routed {
            task_id: env.task_id.clone(),
            transitions: 0,
            created: false,
        })
    }

    fn handoff_ack(
        &self,
        tx: &mut Txn<'_>,
        env: &Envelope,
        p: &HandoffAck,
        accepted: bool,
    ) -> Result<RouteOutcome> {
        let Some((status, child)) = tx.get(&env.task_id)? else {
            return Ok(reject(tx, env, "task_not_found", RejectionDetail::None));
        };
        let id = env.task_id.clone();
        if accepted {
            tx.log(&env.from_agent, Some(&id), &DelegationAccepted {});
            return Ok(RouteOutcome::Routed {
                task_id: id,
                transitions: 0,
                created: false,
            });
        }
        let reason = p
            .reason
            .clone()
            .unwrap_or_else(|| "handoff_rejected".into());
        let mut n = 0;
        if status != TaskStatus::Blocked && status.can_transition_to(TaskStatus::Blocked) {
            transition(
                tx,
                status,
                child,
                TaskStatus::Blocked,
                Some(&reason),
                &env.from_agent,
                &env.sent_at,
            )?;
            // No block cascade: AOF's only one is a status update's.
            n = 1;
        }
        tx.log(
            &env.from_agent,
            Some(&id),
            &DelegationRejected { reason: &reason },
        );
        Ok(RouteOutcome::Routed {
            task_id: id,
            transitions: n,
            created: false,
        })
    }

    /// `session_end`: every in-progress task with a readable `run_result.json`
    /// gets its outcome's transitions. Returns the number of transitions.
    pub fn session_end(&self) -> Result<usize> {
        let mut tx = self.store.begin()?;
        let now = iso(Utc::now());
        let mut n = 0;
        for (id, _) in self.store.files_in(TaskStatus::InProgress)? {
            let Some(result) = self.store.read_run::<RunResult>(&id, "run_result.json") else {
                continue;
            };
            let Some((status, task)) = tx.get(&id)? else {
                continue;
            };
            if status != TaskStatus::InProgress {
                continue;
            }
            n += apply_outcome(&mut tx, status, task, &result, &result.agent_id, &now, None)?;
            complete_run(&mut tx, &id, &now);
        }
        tx.commit()?;
        Ok(n)
    }

    /// Stale-heartbeat recovery at time `now`: an in-progress task whose
    /// heartbeat expired gets its `run_result` outcome applied when there is
    /// one, and is reclaimed to `ready` (run marked expired) when there is
    /// none. Tasks without a heartbeat are never stale. Returns the ids of
    /// the tasks it moved.
    pub fn sweep_stale(&self, now: DateTime<Utc>) -> Result<Vec<String>> {
        let mut tx = self.store.begin()?;
        let stamp = iso(now);
        let mut moved = Vec::new();
        for (id, _) in self.store.files_in(TaskStatus::InProgress)? {
            let Some(hb) = self
                .store
                .read_run::<RunHeartbeat>(&id, "run_heartbeat.json")
            else {
                continue;
            };
            let Some(expires) = parse_time(&hb.expires_at) else {
                continue;
            };
            if expires > now {
                continue;
            }
            let Some((status, task)) = tx.get(&id)? else {
                continue;
            };
            if status != TaskStatus::InProgress {
                continue;
            }
            // The heartbeat is that of a run the lease has since passed to
            // another agent: reclaiming would take the new holder's work
            // (AOF's handler skips it, and reads no run_result). A task
            // with no lease at all is still recovered, or nothing would
            // ever move it out of in-progress.
            if task
                .fm
                .lease
                .as_ref()
                .is_some_and(|l| l.agent != hb.agent_id)
            {
                continue;
            }
            match self.store.read_run::<RunResult>(&id, "run_result.json") {
                Some(result) => {
                    let reason = format!("stale_heartbeat_{}", result.outcome.as_str());
                    // The scheduler's moves, as AOF's recovery logs them.
                    apply_outcome(
                        &mut tx,
                        status,
                        task,
                        &result,
                        "scheduler",
                        &stamp,
                        Some(&reason),
                    )?;
                }
                None => {
                    transition(
                        &mut tx,
                        status,
                        task,
                        TaskStatus::Ready,
                        Some("stale_heartbeat_reclaim"),
                        "scheduler",
                        &stamp,
                    )?;
                    if let Some(mut run) = self.store.read_run::<RunArtifact>(&id, "run.json") {
                        run.status = "failed".into();
                        run.metadata.insert("expiredAt".into(), json!(stamp));
                        run.metadata
                            .insert("expiredReason".into(), json!("stale_heartbeat"));
                        tx.write(rel_run(&id, "run.json"), to_pretty(&run));
                    }
                }
            }
            moved.push(id);
        }
        // AOF's `expireLeases` for blocked tasks: an expired lease is
        // cleared, and the task is requeued only when everything it
        // depends on is done (else it stays blocked, lease cleared).
        for (id, _) in self.store.files_in(TaskStatus::Blocked)? {
            let Some((status, mut task)) = tx.get(&id)? else {
                continue;
            };
            let expired = task
                .fm
                .lease
                .as_ref()
                .and_then(|l| parse_time(&l.expires_at))
                .is_some_and(|t| t <= now);
            if status != TaskStatus::Blocked || !expired {
                continue;
            }
            let mut deps_done = true;
            for dep in &task.fm.depends_on {
                if tx.get(dep)?.map(|(s, _)| s) != Some(TaskStatus::Done) {
                    deps_done = false;
                    break;
                }
            }
            task.fm.lease = None;
            if deps_done {
                transition(
                    &mut tx,
                    status,
                    task,
                    TaskStatus::Ready,
                    Some("lease_expired_requeue"),
                    "system",
                    &stamp,
                )?;
                moved.push(id);
            } else {
                task.fm.updated_at = stamp.clone();
                tx.save(status, task);
            }
        }
        tx.commit()?;
        Ok(moved)
    }
}

/// Logs `protocol.message.rejected` for an envelope's task.
fn reject(
    tx: &mut Txn<'_>,
    env: &Envelope,
    reason: &'static str,
    detail: RejectionDetail,
) -> RouteOutcome {
    tx.log(
        "system",
        Some(&env.task_id),
        &Rejection::new(reason, detail),
    );
    RouteOutcome::Rejected(reason.to_string())
}

/// `resolveCompletionTransitions` (seed form: a task already at the target
/// yields nothing).
pub(crate) fn completion_targets(
    status: TaskStatus,
    review_required: bool,
    outcome: Outcome,
) -> Vec<TaskStatus> {
    use TaskStatus::*;
    let targets = match outcome {
        Outcome::Done if status == Done => vec![],
        Outcome::Done if review_required => vec![Review],
        Outcome::Done => vec![Review, Done],
        Outcome::Blocked => vec![Blocked],
        Outcome::NeedsReview | Outcome::Partial => vec![Review],
    };
    if targets.last() == Some(&status) {
        return vec![];
    }
    targets
}

/// Every status a completion takes the task through, in order: the
/// outcome's targets ([`completion_targets`]), each reached along AOF's
/// table. A target the task cannot enter from where it is goes through the
/// work statuses first: a report for a `ready` task (never accepted, or its
/// BEAD_ACCEPTED lost) takes it `ready -> in-progress -> review`, since the
/// report shows the work ran, where AOF would drop the move (`ready ->
/// review` is not in its table). `None` when a target cannot be reached at
/// all: the task is `done` or `cancelled`.
pub(crate) fn completion_path(
    status: TaskStatus,
    review_required: bool,
    outcome: Outcome,
) -> Option<Vec<TaskStatus>> {
    let mut at = status;
    let mut path = Vec::new();
    for to in completion_targets(status, review_required, outcome) {
        if to != at {
            path.extend(way_to(at, to)?);
            at = to;
        }
    }
    Some(path)
}

/// The shortest way from `from` to `to` in AOF's table, passing only
/// through `ready` and `in-progress` (how work gets done); `None` if there
/// is none.
fn way_to(from: TaskStatus, to: TaskStatus) -> Option<Vec<TaskStatus>> {
    use TaskStatus::{InProgress, Ready};
    let mut ways: Vec<Vec<TaskStatus>> = vec![Vec::new()];
    // Two work statuses: no useful way has more than three steps.
    for _ in 0..3 {
        let mut next = Vec::new();
        for way in ways {
            let at = way.last().copied().unwrap_or(from);
            if at.can_transition_to(to) {
                let mut w = way;
                w.push(to);
                return Some(w);
            }
            for via in [Ready, InProgress] {
                if at.can_transition_to(via) && !way.contains(&via) {
                    let mut w = way.clone();
                    w.push(via);
                    next.push(w);
                }
            }
        }
        ways = next;
    }
    None
}

/// Applies a completion outcome along [`completion_path`], as `actor`.
/// The steps taken only to reach a target carry the reason
/// `completion_reported`. Returns the number of transitions.
fn apply_outcome(
    tx: &mut Txn<'_>,
    mut status: TaskStatus,
    mut task: Task,
    result: &RunResult,
    actor: &str,
    at: &str,
    reason_override: Option<&str>,
) -> Result<usize> {
    let reason = match reason_override {
        Some(r) => r.to_string(),
        None if result.outcome == Outcome::Blocked && !result.blockers.is_empty() => {
            result.blockers.join("; ")
        }
        None => result.notes.clone(),
    };
    let review_required = task.review_required();
    let targets = completion_targets(status, review_required, result.outcome);
    let path = completion_path(status, review_required, result.outcome).unwrap_or_default();
    let mut n = 0;
    for to in path {
        let r = if !targets.contains(&to) {
            Some(reason_override.unwrap_or("completion_reported"))
        } else {
            // An empty reason too: AOF's is the notes, always a string, and
            // an empty string stays in its line as `"reason":""`.
            Some(reason.as_str())
        };
        task = transition(tx, status, task, to, r, actor, at)?;
        status = to;
        n += 1;
    }
    // AOF cascades on every `done` report, even one that only reached
    // review (its dependents are then "skipped"), and on no other outcome:
    // its block cascade is a status update's alone.
    if result.outcome == Outcome::Done {
        deps::on_done(tx, &result.task_id, at)?;
    }
    Ok(n)
}

/// Moves a task to `to` and logs `task.transitioned` once. Entering
/// `in-progress` takes a lease for the actor, writes `run.json` and the
/// first heartbeat (the seed's acquireLease) and logs `task.assigned`;
/// `done`, `ready` and `backlog` clear the lease.
pub(crate) fn transition(
    tx: &mut Txn<'_>,
    from: TaskStatus,
    task: Task,
    to: TaskStatus,
    reason: Option<&str>,
    actor: &str,
    at: &str,
) -> Result<Task> {
    transition_as(tx, from, task, to, reason, actor, actor, at)
}

/// [`transition`] where the lease taken on entering `in-progress` goes to
/// `worker` rather than to the actor logged (a reviewer sending work back).
#[allow(clippy::too_many_arguments)]
pub(crate) fn transition_as(
    tx: &mut Txn<'_>,
    from: TaskStatus,
    mut task: Task,
    to: TaskStatus,
    reason: Option<&str>,
    actor: &str,
    worker: &str,
    at: &str,
) -> Result<Task> {
    let id = task.fm.id.clone();
    task.fm.status = to.as_str().to_string();
    task.fm.updated_at = at.to_string();
    task.fm.last_transition_at = at.to_string();
    if matches!(
        to,
        TaskStatus::Done | TaskStatus::Ready | TaskStatus::Backlog
    ) {
        task.fm.lease = None;
    }
    if to == TaskStatus::InProgress {
        task.fm.lease = Some(Lease {
            agent: worker.to_string(),
            acquired_at: at.to_string(),
            expires_at: plus_ms(at, LEASE_TTL_MS),
            renew_count: 0,
        });
        let run = RunArtifact {
            task_id: id.clone(),
            agent_id: worker.to_string(),
            started_at: at.to_string(),
            status: "running".into(),
            artifact_paths: ArtifactPaths::default(),
            metadata: Default::default(),
        };
        tx.write(rel_run(&id, "run.json"), to_pretty(&run));
        let hb = RunHeartbeat {
            task_id: id.clone(),
            agent_id: worker.to_string(),
            last_heartbeat: at.to_string(),
            beat_count: 0,
            expires_at: plus_ms(at, HEARTBEAT_TTL_MS),
        };
        tx.write(rel_run(&id, "run_heartbeat.json"), to_pretty(&hb));
    }
    tx.relocate(from, task.clone())?;
    tx.log(
        actor,
        Some(&id),
        &Transitioned {
            from: from.as_str(),
            to: to.as_str(),
            reason,
        },
    );
    // AOF's store follows a move into in-progress with an agent by
    // `task.assigned`, actor and payload that agent: here the worker the
    // lease went to (the actor, unless a reviewer sent the work back).
    if to == TaskStatus::InProgress && !worker.is_empty() {
        tx.log(worker, Some(&id), &Assigned { agent: worker });
    }
    Ok(task)
}

/// The cascades a status update's transition starts: `done` promotes
/// dependents, `blocked` blocks them when the store asks for it (AOF's
/// `cascadeOnBlock`, which only a status update calls).
pub(crate) fn after_move(tx: &mut Txn<'_>, id: &str, to: TaskStatus, at: &str) -> Result<()> {
    match to {
        TaskStatus::Done => {
            deps::on_done(tx, id, at)?;
        }
        TaskStatus::Blocked => {
            deps::on_blocked(tx, id, at)?;
        }
        _ => {}
    }
    Ok(())
}

/// Refreshes the heartbeat of a running task.
fn beat(tx: &mut Txn<'_>, id: &str, agent: &str, at: &str) {
    let prev = tx.read_run::<RunHeartbeat>(id, "run_heartbeat.json");
    let count = prev.map(|h| h.beat_count + 1).unwrap_or(0);
    let hb = RunHeartbeat {
        task_id: id.to_string(),
        agent_id: agent.to_string(),
        last_heartbeat: at.to_string(),
        beat_count: count,
        expires_at: plus_ms(at, HEARTBEAT_TTL_MS),
    };
    tx.write(rel_run(id, "run_heartbeat.json"), to_pretty(&hb));
}

/// `completeRunArtifact`: run.json -> completed, `completedAt` = `at`, on
/// every report as in AOF (no-op without run.json, or when it already says
/// exactly that).
fn complete_run(tx: &mut Txn<'_>, id: &str, at: &str) {
    if let Some(mut run) = tx.read_run::<RunArtifact>(id, "run.json") {
        if run.status == "completed" && run.metadata.get("completedAt") == Some(&json!(at)) {
            return;
        }
        run.status = "completed".into();
        run.metadata.insert("completedAt".into(), json!(at));
        tx.write(rel_run(id, "run.json"), to_pretty(&run));
    }
}

/// `inputs/handoff.md`, the human-readable handoff.
pub(crate) fn handoff_markdown(p: &HandoffRequest) -> String {
    let mut s = format!(
        "# Handoff Request\n\n**From:** {}\n**To:** {}\n**Due By:** {}\n\n",
        p.from_agent, p.to_agent, p.due_by
    );
    for (title, items) in [
        ("Acceptance Criteria", &p.acceptance_criteria),
        ("Expected Outputs", &p.expected_outputs),
        ("Context References", &p.context_refs),
        ("Constraints", &p.constraints),
    ] {
        s.push_str(&format!("## {title}\n\n"));
        if items.is_empty() {
            s.push_str("None\n");
        } else {
            for it in items {
                s.push_str(&format!("- {it}\n"));
            }
        }
        s.push('\n');
    }
    s.truncate(s.trim_end().len());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use TaskStatus::*;

    #[test]
    fn a_completion_reaches_its_status_through_the_work_statuses() {
        let path = |s, rr, o| completion_path(s, rr, o);
        assert_eq!(
            path(Ready, true, Outcome::NeedsReview),
            Some(vec![InProgress, Review])
        );
        assert_eq!(
            path(Ready, false, Outcome::Done),
            Some(vec![InProgress, Review, Done])
        );
        assert_eq!(
            path(Backlog, true, Outcome::Partial),
            Some(vec![Ready, InProgress, Review])
        );
        assert_eq!(
            path(Blocked, true, Outcome::Done),
            Some(vec![Ready, InProgress, Review])
        );
        assert_eq!(
            path(Deadletter, true, Outcome::NeedsReview),
            Some(vec![Ready, InProgress, Review])
        );
        // Entered directly where the table allows it.
        assert_eq!(path(Ready, true, Outcome::Blocked), Some(vec![Blocked]));
        assert_eq!(path(Review, true, Outcome::Blocked), Some(vec![Blocked]));
        assert_eq!(
            path(InProgress, false, Outcome::Done),
            Some(vec![Review, Done])
        );
        assert_eq!(path(Review, false, Outcome::Done), Some(vec![Done]));
        // Already there: nothing to do, and nothing wrong.
        assert_eq!(path(Review, true, Outcome::Partial), Some(vec![]));
        assert_eq!(path(Blocked, true, Outcome::Blocked), Some(vec![]));
        assert_eq!(path(Done, false, Outcome::Done), Some(vec![]));
        // Final statuses: no way anywhere.
        assert_eq!(path(Done, true, Outcome::Partial), None);
        assert_eq!(path(Cancelled, true, Outcome::Blocked), None);
        assert_eq!(path(Cancelled, true, Outcome::Done), None);
    }

    #[test]
    fn every_step_of_a_path_is_in_the_table() {
        for s in TaskStatus::ALL {
            for o in [
                Outcome::Done,
                Outcome::Blocked,
                Outcome::NeedsReview,
                Outcome::Partial,
            ] {
                for rr in [true, false] {
                    let Some(p) = completion_path(s, rr, o) else {
                        assert!(matches!(s, Done | Cancelled), "{s:?} {o:?}");
                        continue;
                    };
                    let mut at = s;
                    for to in p {
                        assert!(at.can_transition_to(to), "{at:?} -> {to:?}");
                        at = to;
                    }
                }
            }
        }
    }
}
