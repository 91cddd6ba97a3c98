//! A person's review: `approve` takes a task from `review` to `done` (which
//! fires the dependency cascade), `reject` sends it back to `in-progress`
//! with the reason in its Work Log. AOF has no reviewer command of its own;
//! both are plain transitions in AOF's table, logged as AOF logs every
//! transition (`task.transitioned {from, to, reason}`), so AOF's tools and
//! `aof lint` read the result as their own.

use chrono::Utc;

use super::deps;
use super::handlers::{transition, transition_as};
use super::store::{iso, Store, StoreError};
use super::task::append_work_log;
use crate::aof::TaskStatus;

/// Why a review command was refused.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("no task {0} in the store")]
    NotFound(String),
    #[error("task {id} is in '{status}', not in review: only a task in review can be {verb}")]
    NotInReview {
        id: String,
        status: TaskStatus,
        verb: &'static str,
    },
    #[error("a rejection needs a reason (--reason TEXT)")]
    NoReason,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What an approval did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approved {
    /// Dependents the cascade moved to `ready`.
    pub promoted: Vec<String>,
}

/// `review -> done`, lease cleared, then the promote cascade.
pub fn approve(store: &Store, id: &str, actor: &str) -> Result<Approved, ReviewError> {
    let mut tx = store.begin()?;
    let Some((status, task)) = tx.get(id)? else {
        return Err(ReviewError::NotFound(id.to_string()));
    };
    if status != TaskStatus::Review {
        return Err(ReviewError::NotInReview {
            id: id.to_string(),
            status,
            verb: "approved",
        });
    }
    let at = iso(Utc::now());
    transition(
        &mut tx,
        status,
        task,
        TaskStatus::Done,
        Some("approved"),
        actor,
        &at,
    )?;
    let promoted = deps::on_done(&mut tx, id, &at)?;
    tx.commit()?;
    store.checkpoint()?;
    Ok(Approved { promoted })
}

/// `review -> in-progress`: the reason goes into the Work Log and the
/// event; the lease goes back to the worker who held the task (else its
/// routing agent), with a fresh heartbeat, so the work resumes where it was.
pub fn reject(store: &Store, id: &str, reason: &str, actor: &str) -> Result<(), ReviewError> {
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(ReviewError::NoReason);
    }
    let mut tx = store.begin()?;
    let Some((status, mut task)) = tx.get(id)? else {
        return Err(ReviewError::NotFound(id.to_string()));
    };
    if status != TaskStatus::Review {
        return Err(ReviewError::NotInReview {
            id: id.to_string(),
            status,
            verb: "rejected",
        });
    }
    let at = iso(Utc::now());
    let worker = task
        .fm
        .lease
        .as_ref()
        .map(|l| l.agent.clone())
        .or_else(|| task.fm.routing.agent.clone())
        .unwrap_or_else(|| actor.to_string());
    let entry = format!("- {at} Review rejected by {actor} | Notes: {reason}");
    let body = append_work_log(&task.body, &entry);
    task.set_body(body);
    transition_as(
        &mut tx,
        status,
        task,
        TaskStatus::InProgress,
        Some(reason),
        actor,
        &worker,
        &at,
    )?;
    tx.commit()?;
    store.checkpoint()?;
    Ok(())
}
