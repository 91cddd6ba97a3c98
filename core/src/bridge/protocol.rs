//! Protocol items -> AOF/1 envelopes.
//!
//! | item | AOF type | payload |
//! |---|---|---|
//! | handoff `offered` / re-offered | handoff.request | toAgent = `to_agent` (`anyone` when empty), contextRefs = `context` as `k=v`, dueBy = `context.due_by`/`deadline`, else `updated_at` |
//! | handoff `accepted` | handoff.accepted | from the taker (`to_agent`) |
//! | handoff `rejected` | handoff.rejected | reason = `context.reason`, else `rejected` |
//! | handoff `completed` | completion.report | outcome `done`, notes = description |
//! | handoff `failed` | completion.report | outcome `blocked`, blockers `[handoff failed: <context.error / reason>]` |
//! | A2A TaskMessage | handoff.request | toAgent = responder (`anyone`), dueBy = deadline (else created_at), constraints `[priority: P]` |
//! | A2A TaskProgress PENDING / IN_PROGRESS | status.update | status `in-progress` for IN_PROGRESS, progress `<n>%: <message>` |
//! | A2A TaskResult (or progress) COMPLETED | completion.report | `done`, notes = result as JSON |
//! | A2A TaskResult FAILED | completion.report | `blocked`, blockers `[<error_message>]` |
//! | A2A CANCELLED | status.update | status `cancelled` |
//!
//! A handoff.request needs a parent task: `context.parent_task_id` (the
//! seed's way to chain handoffs) or, without one, an umbrella task per
//! offering agent (bead `handoffs:<agent>` / `a2a:<agent>`).
//!
//! [`routable`] hands the router each item's envelope with the task to find
//! by its protocol task id (the store's bead index, shared with mail, so an
//! Agent Mail bead and a handoff with the same id are one task) or to
//! create `ready`, assigned to the receiver, with the A2A priority and
//! deadline; a handoff.request's parent is found or created the same way.
//! The dedupe key is a hash of the item, so routing a directory twice is a
//! no-op.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::aof::{
    task_id, CompletionReport, Delivery, Envelope, HandoffAck, HandoffRequest, NewTask, Outcome,
    Payload, Routable, StatusUpdate, TaskRef, TaskStatus, TestReport,
};
use crate::formats::{A2aItem, A2aKind, A2aStatus, Handoff, HandoffStatus, Item};

/// The recipient written when a task is offered to anyone.
pub(crate) const ANYONE: &str = "anyone";

fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The bead (store key) of an item's task.
pub fn bead(item: &Item) -> String {
    item.task_id().to_string()
}

/// The bead of the parent a handoff.request names, if the item has one.
pub(crate) fn parent_bead(item: &Item) -> Option<String> {
    match item {
        Item::Handoff(h) if h.status == HandoffStatus::Offered => Some(
            h.context
                .get("parent_task_id")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| format!("handoffs:{}", h.from_agent)),
        ),
        Item::A2a(a) if a.message == A2aKind::TaskMessage => Some(
            a.data
                .get("parent_task_id")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| format!("a2a:{}", a.agent)),
        ),
        _ => None,
    }
}

/// The envelope for an item, given the store's task id (and parent's, for
/// a handoff.request).
pub fn to_envelope(item: &Item, task_id: &str, parent_id: Option<&str>) -> Envelope {
    match item {
        Item::Handoff(h) => handoff(h, task_id, parent_id.unwrap_or(task_id)),
        Item::A2a(a) => a2a(a, task_id, parent_id.unwrap_or(task_id)),
    }
}

/// The envelope with the task ids the router gives first-seen beads that
/// day (for `amail parse` where no store is at hand).
pub fn to_envelope_standalone(item: &Item) -> Envelope {
    let day = item.at();
    let id = task_id::for_bead(&bead(item), day, 0);
    let parent = parent_bead(item).map(|p| task_id::for_bead(&p, day, 0));
    to_envelope(item, &id, parent.as_deref())
}

/// What the router needs to route `item` (see the module docs).
pub fn routable(item: &Item) -> Routable {
    let envelope = to_envelope(item, "", None);
    let parent = parent_bead(item).map(|p| (p, new_task(item, true)));
    Routable::Deliver(Box::new(Delivery {
        key: Some(key_of(item)),
        task: TaskRef::Bead {
            bead: bead(item),
            new_task: new_task(item, false),
            parent,
        },
        follow_up: follow_up(item, &envelope),
        envelope,
        summary: summary_of(item),
        unblocks: false,
        title: None,
    }))
}

/// The text a finished item gives `outputs/summary.md`: the handoff's
/// description, the A2A result's text (else its task type).
pub(crate) fn summary_of(item: &Item) -> Option<String> {
    match item {
        Item::Handoff(h) => handoff_summary(h),
        Item::A2a(a) => a2a_summary(a),
    }
}

fn nonempty(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn handoff_summary(h: &Handoff) -> Option<String> {
    nonempty(Some(&h.description))
}

fn a2a_summary(a: &A2aItem) -> Option<String> {
    nonempty(a.text.as_deref()).or_else(|| nonempty(a.task_type.as_deref()))
}

fn key_of(item: &Item) -> String {
    let mut h = Sha256::new();
    h.update(serde_json::to_vec(item).unwrap_or_default());
    let d = h.finalize();
    let hex: String = d.iter().take(12).map(|b| format!("{b:02x}")).collect();
    format!("proto:{hex}")
}

/// The task an item's bead gets when the store has none; `umbrella`: the
/// parent task that collects one agent's offers.
fn new_task(item: &Item, umbrella: bool) -> NewTask {
    let day = item.at();
    let (title, agent, actor) = match (item, umbrella) {
        (Item::Handoff(h), true) => (
            format!("Handoffs offered by {}", h.from_agent),
            Some(h.from_agent.clone()),
            h.from_agent.clone(),
        ),
        (Item::A2a(a), true) => (
            format!("A2A tasks requested by {}", a.agent),
            Some(a.agent.clone()),
            a.agent.clone(),
        ),
        (Item::Handoff(h), false) => (
            h.description.clone(),
            h.to_agent.clone(),
            h.from_agent.clone(),
        ),
        (Item::A2a(a), false) => (
            a2a_title(a),
            if a.message == A2aKind::TaskMessage {
                a.responder.clone()
            } else {
                Some(a.agent.clone())
            },
            a.agent.clone(),
        ),
    };
    let mut metadata = Vec::new();
    let mut priority = None;
    if !umbrella {
        match item {
            Item::Handoff(_) => metadata.push(("protocol".into(), json!("handoff/0.1"))),
            Item::A2a(a) => {
                metadata.push(("protocol".into(), json!("a2a")));
                priority = a.priority.map(|p| p.aof().to_string());
                if let Some(d) = a.deadline {
                    metadata.push(("deadline".into(), json!(d.to_rfc3339())));
                }
            }
        }
    }
    NewTask {
        title,
        agent,
        actor,
        day,
        created_at: iso(day),
        project: None,
        priority,
        metadata,
    }
}

/// An A2A task's title on the board: its type, priority and deadline (the
/// board lists titles; AOF's priority field is set too).
fn a2a_title(a: &A2aItem) -> String {
    let mut t = a.task_type.clone().unwrap_or_else(|| a.task_id.clone());
    if let Some(p) = a.priority {
        t.push_str(" · ");
        t.push_str(p.effective().as_str());
    }
    if let Some(d) = a.deadline {
        t.push_str(&d.format(" · due %Y-%m-%d %H:%M").to_string());
    }
    t
}

/// The board follows the handoff state machine where AOF's handoff acks
/// alone would not move the task: an accepted handoff starts the task
/// (`in-progress`, as BEAD_ACCEPTED does) and a re-offer after a failure
/// makes it `ready` again. Both are status.updates from the agent that
/// acted; the router skips them when the task is already there.
fn follow_up(item: &Item, env: &Envelope) -> Option<Envelope> {
    let Item::Handoff(h) = item else {
        return None;
    };
    let (status, agent) = match h.status {
        HandoffStatus::Accepted => (TaskStatus::InProgress, env.from_agent.clone()),
        HandoffStatus::Offered if h.reoffered => (TaskStatus::Ready, h.from_agent.clone()),
        _ => return None,
    };
    let p = StatusUpdate {
        task_id: env.task_id.clone(),
        agent_id: agent.clone(),
        status: Some(status),
        progress: Some(format!("handoff {}", h.state())),
        blockers: None,
        notes: None,
    };
    Some(Envelope::new(
        Payload::StatusUpdate(p),
        env.task_id.clone(),
        agent,
        "system",
        env.sent_at.clone(),
    ))
}

fn handoff(h: &Handoff, task_id: &str, parent: &str) -> Envelope {
    let to = h.to_agent.clone().unwrap_or_else(|| ANYONE.into());
    let sent = iso(h.updated_at);
    let ctx = |k: &str| h.context.get(k).and_then(Value::as_str).map(str::to_string);
    match h.status {
        HandoffStatus::Offered => {
            let due = ctx("due_by")
                .or_else(|| ctx("deadline"))
                .filter(|d| crate::formats::handoff::parse_time(d).is_some())
                .unwrap_or_else(|| sent.clone());
            let refs = h
                .context
                .iter()
                .filter(|(k, _)| k.as_str() != "parent_task_id")
                .take(crate::aof::limits::LIST_ITEMS)
                .map(|(k, v)| {
                    let v = v
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string());
                    format!("{k}={v}")
                })
                .collect();
            let p = HandoffRequest {
                task_id: task_id.into(),
                parent_task_id: parent.into(),
                from_agent: h.from_agent.clone(),
                to_agent: to.clone(),
                acceptance_criteria: vec![h.description.clone()],
                expected_outputs: Vec::new(),
                context_refs: refs,
                constraints: Vec::new(),
                due_by: due,
            };
            Envelope::new(Payload::HandoffRequest(p), task_id, &h.from_agent, to, sent)
        }
        HandoffStatus::Accepted | HandoffStatus::Rejected => {
            let accepted = h.status == HandoffStatus::Accepted;
            let reason = (!accepted).then(|| ctx("reason").unwrap_or_else(|| "rejected".into()));
            let p = HandoffAck {
                task_id: task_id.into(),
                accepted,
                reason,
            };
            Envelope::new(Payload::HandoffAck(p), task_id, to, &h.from_agent, sent)
        }
        HandoffStatus::Completed | HandoffStatus::Failed => {
            let done = h.status == HandoffStatus::Completed;
            let why = ctx("error")
                .or_else(|| ctx("reason"))
                .unwrap_or_else(|| h.description.clone());
            let p = finished(
                done,
                &format!("handoff failed: {why}"),
                h.description.clone(),
                handoff_summary(h).is_some(),
            );
            Envelope::new(
                Payload::CompletionReport(p),
                task_id,
                to,
                &h.from_agent,
                sent,
            )
        }
    }
}

fn progress_text(a: &A2aItem) -> Option<String> {
    let t = match (a.progress_percentage, a.text.as_deref()) {
        (Some(p), Some(m)) => format!("{p}%: {m}"),
        (Some(p), None) => format!("{p}%"),
        (None, Some(m)) => m.to_string(),
        (None, None) => return None,
    };
    Some(t)
}

fn a2a(a: &A2aItem, task_id: &str, parent: &str) -> Envelope {
    let sent = iso(a.at);
    let to = a.responder.clone().unwrap_or_else(|| ANYONE.into());
    if a.message == A2aKind::TaskMessage {
        let p = HandoffRequest {
            task_id: task_id.into(),
            parent_task_id: parent.into(),
            from_agent: a.agent.clone(),
            to_agent: to.clone(),
            acceptance_criteria: a.task_type.iter().cloned().collect(),
            expected_outputs: Vec::new(),
            context_refs: a
                .data
                .iter()
                .take(crate::aof::limits::LIST_ITEMS)
                .map(|(k, v)| {
                    let v = v
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string());
                    format!("{k}={v}")
                })
                .collect(),
            constraints: vec![format!(
                "priority: {}",
                a.priority
                    .unwrap_or(crate::formats::Priority::Unspecified)
                    .effective()
                    .as_str()
            )],
            due_by: iso(a.deadline.unwrap_or(a.at)),
        };
        return Envelope::new(Payload::HandoffRequest(p), task_id, &a.agent, to, sent);
    }
    let update = |status: Option<TaskStatus>| StatusUpdate {
        task_id: task_id.into(),
        agent_id: a.agent.clone(),
        status,
        progress: progress_text(a),
        blockers: None,
        notes: None,
    };
    let payload = match a.status {
        A2aStatus::Completed | A2aStatus::Failed => {
            let done = a.status == A2aStatus::Completed;
            let notes = if a.data.is_empty() {
                String::new()
            } else {
                Value::Object(a.data.clone()).to_string()
            };
            Payload::CompletionReport(finished(
                done,
                a.text.as_deref().unwrap_or("task failed"),
                notes,
                a2a_summary(a).is_some(),
            ))
        }
        A2aStatus::Cancelled => Payload::StatusUpdate(update(Some(TaskStatus::Cancelled))),
        A2aStatus::InProgress => Payload::StatusUpdate(update(Some(TaskStatus::InProgress))),
        _ => Payload::StatusUpdate(update(None)),
    };
    Envelope::new(payload, task_id, &a.agent, "system", sent)
}

/// The completion report for a handoff or A2A task that ended: `done`, or
/// `blocked` with `failure` as its one blocker. Nothing was reported about
/// deliverables or tests, so none are claimed. `summaryRef` names the
/// summary file only when the item has a summary for the router to write
/// there (see `bridge::mail`'s rule).
fn finished(done: bool, failure: &str, notes: String, has_summary: bool) -> CompletionReport {
    CompletionReport {
        outcome: if done {
            Outcome::Done
        } else {
            Outcome::Blocked
        },
        summary_ref: if has_summary {
            crate::bridge::SUMMARY_REF.into()
        } else {
            String::new()
        },
        deliverables: Vec::new(),
        tests: TestReport::default(),
        blockers: if done {
            Vec::new()
        } else {
            vec![failure.to_string()]
        },
        notes,
    }
}
