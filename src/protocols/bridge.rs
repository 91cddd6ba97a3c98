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

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::Value;

use super::{A2aItem, A2aKind, A2aStatus, Handoff, HandoffStatus, Item};
use crate::aof::{
    CompletionReport, Envelope, HandoffAck, HandoffRequest, Outcome, Payload, StatusUpdate,
    TaskStatus, TestReport,
};

/// The recipient written when a task is offered to anyone.
pub const ANYONE: &str = "anyone";

fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn clip(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// The bead (store key) of an item's task.
pub fn bead(item: &Item) -> String {
    item.task_id().to_string()
}

/// The bead of the parent a handoff.request names, if the item has one.
pub fn parent_bead(item: &Item) -> Option<String> {
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

/// When the item happened.
pub fn at(item: &Item) -> DateTime<Utc> {
    match item {
        Item::Handoff(h) => h.updated_at,
        Item::A2a(a) => a.at,
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
    let day = at(item);
    let id = crate::router::store::task_id_for_bead(&bead(item), day, 0);
    let parent = parent_bead(item).map(|p| crate::router::store::task_id_for_bead(&p, day, 0));
    to_envelope(item, &id, parent.as_deref())
}

fn handoff(h: &Handoff, task_id: &str, parent: &str) -> Envelope {
    let to = h.to_agent.clone().unwrap_or_else(|| ANYONE.into());
    let sent = iso(h.updated_at);
    let ctx = |k: &str| h.context.get(k).and_then(Value::as_str).map(str::to_string);
    match h.status {
        HandoffStatus::Offered => {
            let due = ctx("due_by")
                .or_else(|| ctx("deadline"))
                .filter(|d| super::handoff::parse_time(d).is_some())
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
                    clip(&format!("{k}={v}"), crate::aof::limits::LIST_ITEM)
                })
                .collect();
            let p = HandoffRequest {
                task_id: task_id.into(),
                parent_task_id: parent.into(),
                from_agent: h.from_agent.clone(),
                to_agent: to.clone(),
                acceptance_criteria: vec![clip(&h.description, crate::aof::limits::LIST_ITEM)],
                expected_outputs: Vec::new(),
                context_refs: refs,
                constraints: Vec::new(),
                due_by: due,
            };
            Envelope::new(Payload::HandoffRequest(p), task_id, &h.from_agent, to, sent)
        }
        HandoffStatus::Accepted | HandoffStatus::Rejected => {
            let accepted = h.status == HandoffStatus::Accepted;
            let reason = (!accepted).then(|| {
                clip(
                    &ctx("reason").unwrap_or_else(|| "rejected".into()),
                    crate::aof::limits::REASON,
                )
            });
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
                clip(&h.description, crate::aof::limits::NOTES),
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
    Some(clip(&t, crate::aof::limits::PROGRESS))
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
                    clip(&format!("{k}={v}"), crate::aof::limits::LIST_ITEM)
                })
                .collect(),
            constraints: vec![format!(
                "priority: {}",
                a.priority
                    .unwrap_or(super::Priority::Unspecified)
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
                clip(
                    &Value::Object(a.data.clone()).to_string(),
                    crate::aof::limits::NOTES,
                )
            };
            Payload::CompletionReport(finished(
                done,
                a.text.as_deref().unwrap_or("task failed"),
                notes,
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
/// deliverables or tests, so none are claimed.
fn finished(done: bool, failure: &str, notes: String) -> CompletionReport {
    CompletionReport {
        outcome: if done {
            Outcome::Done
        } else {
            Outcome::Blocked
        },
        summary_ref: crate::bridge::SUMMARY_REF.into(),
        deliverables: Vec::new(),
        tests: TestReport::default(),
        blockers: if done {
            Vec::new()
        } else {
            vec![clip(failure, crate::aof::limits::LIST_ITEM)]
        },
        notes,
    }
}
