//! Task dependencies (`dependsOn`): the dependents index and AOF's two
//! cascades.
//!
//! AOF finds a task's dependents by listing, parsing and validating every
//! task file on each completion (`cascadeOnCompletion` calls
//! `store.list()`): about 0.7 ms per task in the store. Here the reverse
//! edges are kept in an index beside the bead index, one small file per
//! task that others depend on:
//!
//! ```text
//! state/amail/deps/<hash of id>.json   {"taskId": id, "dependents": [ids, sorted]}
//! state/amail/deps/scan.json           status dir -> mtime (ns) when last indexed
//! ```
//!
//! so a cascade reads one index file, then each dependent and each of its
//! dependencies by path: its cost follows the dependency graph around the
//! task, never the size of the store.
//!
//! The index is written through the transaction's plan (the write-ahead
//! log), so it is exactly as durable and crash-safe as the task files it
//! describes, and `amail doctor` rebuilds it from the task files. It may
//! hold stale edges (a dependency AOF removed): every use checks the
//! dependent's own `dependsOn`, so a stale edge costs one read and changes
//! nothing. It must never miss one, so edges written by another program
//! (AOF's `addDep`, its `create` with `dependsOn`) are picked up when a
//! transaction starts: every write to a task file renames a file into its
//! status directory, which changes the directory's mtime. When a
//! non-terminal status directory's mtime differs from `scan.json`, the task
//! files in it modified since then (with a margin for coarse clocks) are
//! read and their edges added. amail's own commits record the new mtimes,
//! unless the directory changed between the start of the transaction and
//! its commit (then the next transaction looks). A store first seen by this
//! code, or whose `scan.json` is lost, is scanned once in full. `done` and
//! `cancelled` are not scanned: nothing waits on a finished task's own
//! dependencies.
//!
//! The cascades (`on_done`, `on_blocked`) follow AOF's `dep-cascader`:
//! a task reaching `done` promotes each dependent in `backlog` or `blocked`
//! whose dependencies are all done to `ready` (reason
//! `dependency_satisfied`), the others are "skipped", and one
//! `dependency.cascaded {trigger, action: "promote", count, promoted,
//! skipped}` is logged when there was any dependent; with `cascadeBlocks` a
//! status update that moves a task to `blocked` (AOF calls `cascadeOnBlock`
//! from there alone) blocks its `backlog` and `ready` dependents
//! (`metadata.blockReason = "upstream blocked: <id>"`, `task.blocked`) and
//! logs `dependency.cascaded {trigger, action: "block", count, blocked}`.
//! Only direct dependents move, as in AOF.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use super::payloads::{Blocked, CascadedBlock, CascadedPromote, DepAdded};
use super::store::{hash16, Result, Store, Txn};
use super::task::Task;
use crate::aof::TaskStatus;

/// The index directory, relative to the root.
pub(crate) const DIR: &str = "state/amail/deps";
/// The scan stamps, relative to the root.
pub(crate) const SCAN: &str = "state/amail/deps/scan.json";
/// amail's own settings for a store (AOF keeps `cascadeBlocks` in its
/// service configuration, not in the store; see docs/router.md).
pub const SETTINGS: &str = "state/amail/settings.json";

/// How far before the recorded mtime a changed directory is re-read: a
/// file renamed into the directory may carry an older mtime (written before
/// the rename) and some filesystems keep coarse times.
const MARGIN: Duration = Duration::from_secs(2);

/// The status directories whose task files may still wait on others.
pub(crate) const SCANNED: [TaskStatus; 6] = [
    TaskStatus::Backlog,
    TaskStatus::Ready,
    TaskStatus::InProgress,
    TaskStatus::Blocked,
    TaskStatus::Review,
    TaskStatus::Deadletter,
];

/// The mtime of each scanned status directory (ns since the epoch; absent
/// when the directory is missing).
pub(crate) type Mtimes = BTreeMap<&'static str, u64>;

pub(crate) fn rel_dependents(id: &str) -> String {
    format!("{DIR}/{}.json", hash16(id))
}

fn nanos(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// The current mtimes of the scanned directories.
pub(crate) fn mtimes(root: &Path) -> Mtimes {
    let mut out = Mtimes::new();
    for s in SCANNED {
        if let Ok(m) = fs::metadata(root.join("tasks").join(s.as_str())) {
            if let Ok(t) = m.modified() {
                out.insert(s.as_str(), nanos(t));
            }
        }
    }
    out
}

/// `scan.json` as last written (empty when missing or unreadable).
pub(crate) fn read_scan(root: &Path) -> Mtimes {
    let Ok(text) = fs::read_to_string(root.join(SCAN)) else {
        return Mtimes::new();
    };
    let v: BTreeMap<String, u64> = serde_json::from_str(&text).unwrap_or_default();
    SCANNED
        .iter()
        .filter_map(|s| v.get(s.as_str()).map(|t| (s.as_str(), *t)))
        .collect()
}

/// Records `m` as indexed. Not journaled: a lost or stale stamp only makes
/// the next transaction re-read a directory.
pub(crate) fn write_scan(root: &Path, m: &Mtimes) {
    let text = serde_json::to_string(m).unwrap_or_default();
    let _ = crate::fsio::write_atomic_unsynced(&root.join(SCAN), text.as_bytes());
}

/// The dependents index entry of `id`, as parsed from `text`.
pub(crate) fn parse_entry(text: &str) -> Vec<String> {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.get("dependents").cloned())
        .and_then(|d| serde_json::from_value(d).ok())
        .unwrap_or_default()
}

pub(crate) fn render_entry(id: &str, dependents: &BTreeSet<String>) -> String {
    json!({ "taskId": id, "dependents": dependents }).to_string()
}

impl Store {
    /// Tasks that may depend on `id` (from the index; each still has to be
    /// checked against its own `dependsOn`).
    pub fn dependents_of(&self, id: &str) -> Vec<String> {
        fs::read_to_string(self.root().join(rel_dependents(id)))
            .map(|t| parse_entry(&t))
            .unwrap_or_default()
    }

    /// `cascadeBlocks` from the store's settings (default false).
    pub fn cascade_blocks(&self) -> bool {
        fs::read_to_string(self.root().join(SETTINGS))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|v| v.get("cascadeBlocks").and_then(Value::as_bool))
            .unwrap_or(false)
    }
}

/// Brings the index up to date with task files written by other programs
/// (see the module docs) and returns the mtimes it now covers. Runs when a
/// transaction starts, under the store lock.
pub(crate) fn sync(tx: &mut Txn<'_>) -> Result<Mtimes> {
    let root = tx.root().to_path_buf();
    let seen = read_scan(&root);
    let now = mtimes(&root);
    for s in SCANNED {
        let key = s.as_str();
        if now.get(key) == seen.get(key) {
            continue;
        }
        let since = seen
            .get(key)
            .map(|t| t.saturating_sub(MARGIN.as_nanos() as u64));
        for (id, path) in tx.store().files_in(s)? {
            if let Some(since) = since {
                let m = fs::metadata(&path).and_then(|m| m.modified()).map(nanos);
                if m.is_ok_and(|m| m < since) {
                    continue;
                }
            }
            let Ok(bytes) = fs::read(&path) else {
                continue;
            };
            // Unreadable files are doctor's to report.
            if let Ok(task) = Task::parse_bytes(bytes) {
                for dep in &task.fm.depends_on {
                    add_dependent(tx, dep, &id);
                }
            }
        }
    }
    Ok(now)
}

/// The dependents of `id` as this transaction sees them.
pub(crate) fn dependents(tx: &Txn<'_>, id: &str) -> BTreeSet<String> {
    tx.read_own(&rel_dependents(id))
        .map(|t| parse_entry(&t).into_iter().collect())
        .unwrap_or_default()
}

/// Records that `dependent` depends on `id` (no write when known).
pub(crate) fn add_dependent(tx: &mut Txn<'_>, id: &str, dependent: &str) {
    let mut set = dependents(tx, id);
    if set.insert(dependent.to_string()) {
        tx.write(rel_dependents(id), render_entry(id, &set));
    }
}

fn status_of(tx: &mut Txn<'_>, id: &str) -> Result<Option<TaskStatus>> {
    Ok(tx.get(id)?.map(|(s, _)| s))
}

/// AOF's `cascadeOnCompletion`, after `id` was reported done (whether or
/// not it reached `done`: a task still in review leaves its dependents
/// "skipped", as in AOF). Returns the promoted ids.
pub(crate) fn on_done(tx: &mut Txn<'_>, id: &str, at: &str) -> Result<Vec<String>> {
    let mut promoted = Vec::new();
    let mut skipped = Vec::new();
    for d in dependents(tx, id) {
        let Some((status, task)) = tx.get(&d)? else {
            continue;
        };
        if !task.fm.depends_on.iter().any(|x| x == id)
            || !matches!(status, TaskStatus::Backlog | TaskStatus::Blocked)
        {
            continue;
        }
        let mut all_done = true;
        for dep in &task.fm.depends_on {
            if status_of(tx, dep)? != Some(TaskStatus::Done) {
                all_done = false;
                break;
            }
        }
        if all_done {
            super::handlers::transition(
                tx,
                status,
                task,
                TaskStatus::Ready,
                Some("dependency_satisfied"),
                "system",
                at,
            )?;
            promoted.push(d);
        } else {
            skipped.push(d);
        }
    }
    if !promoted.is_empty() || !skipped.is_empty() {
        tx.log(
            "system",
            Some(id),
            &CascadedPromote {
                trigger: id,
                action: "promote",
                count: promoted.len(),
                promoted: &promoted,
                skipped: &skipped,
            },
        );
    }
    Ok(promoted)
}

/// AOF's `cascadeOnBlock`, after `id` entered `blocked`, when the store's
/// settings ask for it. Returns the blocked ids.
pub(crate) fn on_blocked(tx: &mut Txn<'_>, id: &str, at: &str) -> Result<Vec<String>> {
    if !tx.store().cascade_blocks() {
        return Ok(Vec::new());
    }
    let mut blocked = Vec::new();
    for d in dependents(tx, id) {
        let Some((status, mut task)) = tx.get(&d)? else {
            continue;
        };
        if !task.fm.depends_on.iter().any(|x| x == id)
            || !matches!(status, TaskStatus::Backlog | TaskStatus::Ready)
        {
            continue;
        }
        // AOF's `store.block`: the reason in metadata, the transition, then
        // `task.blocked`.
        let reason = format!("upstream blocked: {id}");
        task.fm
            .metadata
            .insert("blockReason".into(), json!(reason.clone()));
        super::handlers::transition(
            tx,
            status,
            task,
            TaskStatus::Blocked,
            Some(&reason),
            "system",
            at,
        )?;
        tx.log("system", Some(&d), &Blocked { reason: &reason });
        blocked.push(d);
    }
    if !blocked.is_empty() {
        tx.log(
            "system",
            Some(id),
            &CascadedBlock {
                trigger: id,
                action: "block",
                count: blocked.len(),
                blocked: &blocked,
            },
        );
    }
    Ok(blocked)
}

/// The path of dependencies from `from` back to `to`, if `from` already
/// depends (directly or not) on `to`: adding `to -> from` would close it.
/// Walks only the tasks upstream of `from`.
pub(crate) fn path_between(tx: &mut Txn<'_>, from: &str, to: &str) -> Result<Option<Vec<String>>> {
    let mut seen = BTreeSet::new();
    // Depth-first, remembering the way back.
    let mut stack: Vec<(String, Vec<String>)> = vec![(from.to_string(), vec![from.to_string()])];
    while let Some((at, way)) = stack.pop() {
        if at == to {
            return Ok(Some(way));
        }
        if !seen.insert(at.clone()) {
            continue;
        }
        let Some((_, task)) = tx.get(&at)? else {
            continue;
        };
        for dep in task.fm.depends_on.iter().rev() {
            if !seen.contains(dep) {
                let mut w = way.clone();
                w.push(dep.clone());
                stack.push((dep.clone(), w));
            }
        }
    }
    Ok(None)
}

/// Why `amail tasks depend` refused.
#[derive(Debug, thiserror::Error)]
pub enum DependError {
    #[error("no task {0} in the store")]
    NotFound(String),
    #[error("a task cannot depend on itself: {0}")]
    OnItself(String),
    #[error("refused: {task} -> {on} would close a dependency cycle: {}", cycle.join(" -> "))]
    Cycle {
        task: String,
        on: String,
        cycle: Vec<String>,
    },
    #[error(transparent)]
    Store(#[from] super::store::StoreError),
}

/// Makes `task` depend on `on` (AOF's `addDep`): `dependsOn` gains `on`,
/// `updatedAt` moves, `task.dep.added {taskId, blockerId}` is logged.
/// Returns false when the dependency was already there. A cycle is refused
/// with the whole cycle named.
pub fn add(
    store: &Store,
    task: &str,
    on: &str,
    actor: &str,
) -> std::result::Result<bool, DependError> {
    if task == on {
        return Err(DependError::OnItself(task.to_string()));
    }
    let mut tx = store.begin()?;
    let Some((status, mut t)) = tx.get(task)? else {
        return Err(DependError::NotFound(task.to_string()));
    };
    if tx.get(on)?.is_none() {
        return Err(DependError::NotFound(on.to_string()));
    }
    if t.fm.depends_on.iter().any(|d| d == on) {
        // Make sure the index knows it (an edge AOF wrote, say).
        add_dependent(&mut tx, on, task);
        tx.commit()?;
        return Ok(false);
    }
    if let Some(mut way) = path_between(&mut tx, on, task)? {
        // task -> on -> ... -> task
        way.insert(0, task.to_string());
        return Err(DependError::Cycle {
            task: task.to_string(),
            on: on.to_string(),
            cycle: way,
        });
    }
    t.fm.depends_on.push(on.to_string());
    t.fm.updated_at = super::store::iso(chrono::Utc::now());
    tx.save(status, t);
    add_dependent(&mut tx, on, task);
    tx.log(
        actor,
        Some(task),
        &DepAdded {
            task_id: task,
            blocker_id: on,
        },
    );
    tx.commit()?;
    store.checkpoint()?;
    Ok(true)
}
