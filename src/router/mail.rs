//! Routing parsed mail: bead -> task resolution (with auto-create), then the
//! bridge's envelope through the protocol handlers, all in one transaction.

use amail_parser::Message;
use serde_json::json;

use super::handlers::{Extras, RouteOutcome, Router};
use super::store::{task_id_for_bead, Result, Txn};
use super::task::{Routing, Task};
use crate::aof::TaskStatus;
use crate::bridge;

impl Router {
    /// Routes one parsed message. Messages the bridge does not map (unknown
    /// types, plain replies, no bead) are `Ignored` and leave no trace.
    pub fn route_mail(&self, msg: &Message<'_>) -> Result<RouteOutcome> {
        let Some(bead) = bridge::bead_of(msg).filter(|_| bridge::is_bridged(msg)) else {
            return Ok(RouteOutcome::Ignored);
        };
        // Check the bridge maps it before taking the lock (cheap, pure).
        if bridge::to_envelope(msg, "TASK-2000-01-01-000").is_none() {
            return Ok(RouteOutcome::Ignored);
        }
        let key = bridge::dedupe_key(msg);
        let mut tx = self.store.begin()?;
        if self.store.was_routed(&key) {
            return Ok(RouteOutcome::Duplicate);
        }
        let before = tx.logged().len();
        let task_id = match self.resolve_bead(&mut tx, &bead, msg)? {
            Some(id) => id,
            None => {
                tx.log(
                    "protocol.message.rejected",
                    "system",
                    None,
                    json!({ "reason": "task_not_found", "beadId": bead }),
                );
                tx.commit()?;
                return Ok(RouteOutcome::Rejected("task_not_found".into()));
            }
        };
        let Some(mut env) = bridge::to_envelope(msg, &task_id) else {
            return Ok(RouteOutcome::Ignored);
        };
        unblock_on_answer(&mut tx, msg, &mut env)?;
        let extras = Extras {
            key: Some(key.clone()),
            summary: bridge::summary_of(msg),
        };
        let created = tx.logged()[before..]
            .iter()
            .any(|e| e.kind == "task.created");
        let mut out = self.handle(&mut tx, &env, &extras)?;
        if let RouteOutcome::Routed { created: c, .. } = &mut out {
            *c = created;
        }
        tx.mark_routed(&key);
        tx.commit()?;
        Ok(out)
    }

    /// The task for a bead: from the index, else created (status `ready`,
    /// assigned to the worker) unless creation is off.
    fn resolve_bead(
        &self,
        tx: &mut Txn<'_>,
        bead: &str,
        msg: &Message<'_>,
    ) -> Result<Option<String>> {
        if let Some(id) = self.store.task_for_bead(bead) {
            if tx.get(&id)?.is_some() {
                return Ok(Some(id));
            }
            // Indexed but the task file is gone: recreate it under that id
            // (when allowed), so the index stays the single mapping.
            if !self.opts.create_missing {
                return Ok(None);
            }
            self.create_task(tx, &id, bead, msg);
            return Ok(Some(id));
        }
        if !self.opts.create_missing {
            return Ok(None);
        }
        let day = msg.timestamp.unwrap_or_else(chrono::Utc::now);
        let mut salt = 0;
        let id = loop {
            let id = task_id_for_bead(bead, day, salt);
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
        self.create_task(tx, &id, bead, msg);
        Ok(Some(id))
    }

    fn create_task(&self, tx: &mut Txn<'_>, id: &str, bead: &str, msg: &Message<'_>) {
        let at = bridge::sent_at(msg);
        let title = bridge::title_of(msg);
        let mut task = Task::new(id, &title, TaskStatus::Ready.as_str(), &at);
        task.fm.project = msg.project.as_deref().map(str::to_string);
        task.fm.routing = Routing {
            agent: bridge::worker_of(msg),
            ..Routing::default()
        };
        task.fm.metadata.insert("beadId".to_string(), json!(bead));
        tx.index_bead(bead, id);
        tx.create(TaskStatus::Ready, task);
        let actor = msg.from.as_deref().unwrap_or("system").to_string();
        tx.log(
            "task.created",
            &actor,
            Some(id),
            json!({ "title": title, "status": "ready", "beadId": bead }),
        );
    }
}

/// An answer to a help request unblocks the worker: a HELP_RESPONSE that
/// reaches a task which is `blocked` moves it back to `ready` (the only way
/// out of `blocked` in AOF's transition table), so the board shows the work
/// can resume. The design's table maps HELP_RESPONSE to notes only; a task
/// left blocked after its question was answered is the wrong picture, so
/// this is the one place the router looks at the task before the envelope.
fn unblock_on_answer(
    tx: &mut Txn<'_>,
    msg: &Message<'_>,
    env: &mut crate::aof::Envelope,
) -> Result<()> {
    if msg.kind != amail_parser::MessageType::HelpResponse {
        return Ok(());
    }
    let crate::aof::Payload::StatusUpdate(update) = &mut env.payload else {
        return Ok(());
    };
    if update.status.is_none() {
        if let Some((TaskStatus::Blocked, _)) = tx.get(&update.task_id)? {
            update.status = Some(TaskStatus::Ready);
        }
    }
    Ok(())
}
