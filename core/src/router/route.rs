//! The router's one entry, behind `Router::route`: a [`Routable`] from any
//! bridge (mail, handoff, A2A, AOF/1 input) is applied in one transaction
//! with one tail: dedupe, find or create the task (and a handoff's parent)
//! through the bead index, give it the best title known, point the envelope
//! at it, run the handlers, mark the key routed, commit.

use serde_json::json;

use super::payloads::{Created, FromTo, TitleChange, Unknown, Updated};
use super::store::{Result, Store, Txn};
use super::task::{Routing, Task};
use crate::aof::{
    task_id, Delivery, NewTask, Payload, Rejection, RejectionDetail, Routable, TaskRef, TaskStatus,
};

/// What routing one input did.
#[derive(Debug, Clone, PartialEq)]
pub enum RouteOutcome {
    /// Handled; `transitions` status changes were applied; `created` when
    /// the task was created for this message (mail routing only).
    Routed {
        task_id: String,
        transitions: usize,
        created: bool,
    },
    /// This message (by its dedupe key) was routed before: nothing done.
    Duplicate,
    /// Refused with this reason (logged as `protocol.message.rejected`).
    Rejected(String),
    /// A type AOF/1 does not define (logged as `protocol.message.unknown`).
    Unknown,
    /// Not a protocol message; nothing logged.
    Ignored,
}

/// Router options.
#[derive(Debug, Clone)]
pub struct RouterOptions {
    /// Create a task for a bead the store has never seen (else reject
    /// `task_not_found`).
    pub create_missing: bool,
}

impl Default for RouterOptions {
    fn default() -> Self {
        RouterOptions {
            create_missing: true,
        }
    }
}

/// The router over one store.
#[derive(Debug, Clone)]
pub struct Router {
    pub store: Store,
    pub opts: RouterOptions,
}

/// Routes one input (see the module docs).
pub(super) fn route(this: &Router, input: &Routable) -> Result<RouteOutcome> {
    match input {
        Routable::Deliver(d) => deliver(this, d),
        Routable::Ignored => Ok(RouteOutcome::Ignored),
        Routable::Rejected(r) => {
            let mut tx = this.store.begin()?;
            tx.log("system", None, r);
            tx.commit()?;
            Ok(RouteOutcome::Rejected(r.reason.to_string()))
        }
        Routable::Unknown { key, kind, task_id } => {
            if key.as_deref().is_some_and(|k| this.store.was_routed(k)) {
                return Ok(RouteOutcome::Duplicate);
            }
            let mut tx = this.store.begin()?;
            tx.log("system", task_id.as_deref(), &Unknown { kind });
            if let Some(k) = key {
                tx.mark_routed(k);
            }
            tx.commit()?;
            Ok(RouteOutcome::Unknown)
        }
    }
}

fn deliver(this: &Router, d: &Delivery) -> Result<RouteOutcome> {
    let mut tx = this.store.begin()?;
    if d.key.as_deref().is_some_and(|k| this.store.was_routed(k)) {
        return Ok(RouteOutcome::Duplicate);
    }
    let mut env = d.envelope.clone();
    let mut created = false;
    if let TaskRef::Bead {
        bead,
        new_task,
        parent,
    } = &d.task
    {
        let before = tx.logged().len();
        let Some(id) = task_of_bead(this, &mut tx, bead, new_task)? else {
            tx.log(
                "system",
                None,
                &Rejection::new(
                    "task_not_found",
                    RejectionDetail::Project {
                        project_id: env.project_id.clone(),
                        bead_id: Some(bead.clone()),
                    },
                ),
            );
            tx.commit()?;
            return Ok(RouteOutcome::Rejected("task_not_found".into()));
        };
        created = tx.logged()[before..]
            .iter()
            .any(|e| e.kind == "task.created" && e.task_id.as_deref() == Some(id.as_str()));
        if !created {
            retitle(
                &mut tx,
                &id,
                bead,
                d.title.as_deref(),
                new_task,
                &env.sent_at,
            )?;
        }
        let parent_id = match parent {
            Some((p, new_parent)) => task_of_bead(this, &mut tx, p, new_parent)?,
            None => None,
        };
        env.assign_task(&id, parent_id.as_deref());
    }
    // AOF's route() looks the task up before any handler runs and stops
    // there (reference §3.1 step 3): `{reason, projectId}`, no
    // `protocol.message.received`, no handler's own checks or events.
    let mut out = if tx.get(&env.task_id)?.is_none() {
        tx.log(
            "system",
            Some(&env.task_id),
            &Rejection::new(
                "task_not_found",
                RejectionDetail::Project {
                    project_id: env.project_id.clone(),
                    bead_id: None,
                },
            ),
        );
        RouteOutcome::Rejected("task_not_found".into())
    } else {
        if d.unblocks {
            unblock_on_answer(&mut tx, &mut env)?;
        }
        // An envelope naming its task is AOF/1 input as its sender wrote
        // it; a bridge's `summaryRef: ""` is the bridge saying "no summary".
        let verbatim = matches!(d.task, TaskRef::Named);
        this.handle(&mut tx, &env, d.summary.as_deref(), verbatim)?
    };
    if let (Some(follow), RouteOutcome::Routed { transitions, .. }) = (&d.follow_up, &mut out) {
        let mut follow = follow.clone();
        follow.assign_task(&env.task_id, None);
        if let RouteOutcome::Routed { transitions: n, .. } =
            this.handle(&mut tx, &follow, None, false)?
        {
            *transitions += n;
        }
    }
    if let RouteOutcome::Routed { created: c, .. } = &mut out {
        *c = created;
    }
    // An envelope that names its task is remembered only once routed:
    // it may be refused because its task does not exist yet, and the
    // same envelope must route once the task is there. A bead's task is
    // created on demand, so a refusal of bead-addressed input is final.
    let remember =
        matches!(d.task, TaskRef::Bead { .. }) || matches!(out, RouteOutcome::Routed { .. });
    if let (Some(k), true) = (&d.key, remember) {
        tx.mark_routed(k);
    }
    tx.commit()?;
    Ok(out)
}

/// The task for a bead: from the index, else created (status `ready`)
/// unless creation is off. An indexed task whose file is gone is
/// recreated under the same id, so the index stays the one mapping.
fn task_of_bead(
    this: &Router,
    tx: &mut Txn<'_>,
    bead: &str,
    new_task: &NewTask,
) -> Result<Option<String>> {
    if let Some(id) = this.store.task_for_bead(bead) {
        if tx.get(&id)?.is_some() {
            return Ok(Some(id));
        }
        if !this.opts.create_missing {
            return Ok(None);
        }
        create_task(tx, &id, bead, new_task);
        return Ok(Some(id));
    }
    if !this.opts.create_missing {
        return Ok(None);
    }
    let mut salt = 0;
    let id = loop {
        let id = task_id::for_bead(bead, new_task.day, salt);
        match tx.get(&id)? {
            None => break id,
            // Already ours (index entry lost): adopt it.
            Some((_, t)) if t.bead() == Some(bead) => {
                tx.index_bead(bead, &id);
                return Ok(Some(id));
            }
            Some(_) => salt += 1,
        }
    };
    create_task(tx, &id, bead, new_task);
    Ok(Some(id))
}

fn create_task(tx: &mut Txn<'_>, id: &str, bead: &str, new: &NewTask) {
    let mut task = Task::new(id, &new.title, TaskStatus::Ready.as_str(), &new.created_at);
    task.fm.project = new.project.clone();
    task.fm.routing = Routing {
        agent: new.agent.clone(),
        ..Routing::default()
    };
    if let Some(p) = &new.priority {
        task.fm.priority = p.clone();
    }
    task.fm.metadata.insert("beadId".to_string(), json!(bead));
    for (k, v) in &new.metadata {
        task.fm.metadata.insert(k.clone(), v.clone());
    }
    tx.index_bead(bead, id);
    tx.create(TaskStatus::Ready, task);
    tx.log(
        &new.actor,
        Some(id),
        &Created {
            title: &new.title,
            status: "ready",
            bead_id: bead,
        },
    );
}

/// Gives an existing task the best title known: `stated` (an input that
/// knows the real title) when it differs, else `new_task.title` in place of
/// a placeholder (a title that is only the bead id, given when the first
/// input had nothing better). A done task keeps its title, as AOF's
/// `update` refuses done tasks. Logged as AOF's `task.updated {changes:
/// {title: {from, to}}}`.
fn retitle(
    tx: &mut Txn<'_>,
    id: &str,
    bead: &str,
    stated: Option<&str>,
    new_task: &NewTask,
    at: &str,
) -> Result<()> {
    let Some((status, mut task)) = tx.get(id)? else {
        return Ok(());
    };
    let offered = new_task.title.trim();
    let title = match stated.map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) => t,
        None if task.fm.title == bead && !offered.is_empty() => offered,
        None => return Ok(()),
    };
    if title == task.fm.title || status == TaskStatus::Done {
        return Ok(());
    }
    let from = std::mem::replace(&mut task.fm.title, title.to_string());
    task.fm.updated_at = at.to_string();
    tx.save(status, task);
    // AOF's `update` logs as `system`, whoever asked for it.
    tx.log(
        "system",
        Some(id),
        &Updated {
            changes: TitleChange {
                title: FromTo {
                    from: &from,
                    to: title,
                },
            },
        },
    );
    Ok(())
}

/// An answer to a help request unblocks the worker: a HELP_RESPONSE that
/// reaches a task which is `blocked` moves it back to `ready` (the only way
/// out of `blocked` in AOF's transition table), so the board shows the work
/// can resume. The design's table maps HELP_RESPONSE to notes only; a task
/// left blocked after its question was answered is the wrong picture, so
/// this is the one place the router looks at the task before the envelope.
fn unblock_on_answer(tx: &mut Txn<'_>, env: &mut crate::aof::Envelope) -> Result<()> {
    let Payload::StatusUpdate(update) = &mut env.payload else {
        return Ok(());
    };
    if update.status.is_none() {
        if let Some((TaskStatus::Blocked, _)) = tx.get(&update.task_id)? {
            update.status = Some(TaskStatus::Ready);
        }
    }
    Ok(())
}
