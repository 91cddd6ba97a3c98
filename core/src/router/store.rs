//! The task store: an AOF project root on disk.
//!
//! ```text
//! tasks/<status>/<TASK-ID>.md          task file (YAML front matter + body)
//! tasks/<status>/<TASK-ID>/{inputs,work,outputs}/   companion dir, moves with the task
//! state/runs/<TASK-ID>/run.json, run_heartbeat.json, run_result.json
//! events/YYYY-MM-DD.jsonl              event log
//! state/amail/                         ours: lock, journal, bead index, dedupe markers
//! ```
//!
//! Reading never creates: [`Store::open_existing`] (and [`Store::board`])
//! refuse a path that holds no store, and only [`Store::open`], for what
//! may start a store (`amail route`, the demo), makes one.
//!
//! Readers ([`Store::list`], [`Store::get`]) take no lock. Writers go
//! through `Store::begin`, which takes the store-wide advisory lock
//! (`flock` on `state/amail/lock`), completes any interrupted journal, and
//! returns a `Txn` that collects the message's steps into one journaled
//! `Plan`. Lookups are by path, never by scanning: a task id probes the
//! eight status directories; a bead id reads one index file.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::deps;
use super::events::{self, Event, EventPayload};
use super::journal::{self, Op, Plan, WalState};
use super::payloads::Logged;
use super::task::{Task, TaskParseError};
use super::Board;
use super::TaskSummary;
use crate::aof::TaskStatus;

/// A store failure: an I/O error with the path, or a task file that does not parse.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path}:{err}")]
    BadTask { path: PathBuf, err: TaskParseError },
    /// No store at this path (no `tasks/` directory): what a reader gets
    /// instead of a store made for it.
    #[error("no task store at {}", path.display())]
    Missing { path: PathBuf },
}

pub type Result<T> = std::result::Result<T, StoreError>;

pub(crate) fn io_at(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// ISO 8601 UTC with milliseconds and `Z`, as AOF writes times.
pub fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// An AOF project root.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
    /// This process's view of the write-ahead log (shared by clones).
    wal: Arc<Mutex<WalState>>,
}

impl Store {
    /// Whether `root` holds a store: an AOF project root has its `tasks/`
    /// directory (AOF's `init` makes it, and so does [`Store::open`]).
    pub fn exists(root: &Path) -> bool {
        root.join("tasks").is_dir()
    }

    /// Opens the store at `root` without creating anything: a missing store
    /// is [`StoreError::Missing`]. For every command that reads a store or
    /// works on an existing one (`tasks`, `events`, `sweep`, `doctor`, the
    /// TUI's board): a mistyped `--store` must not leave a new store behind.
    /// Writers through `Store::begin` still add amail's own `state/amail/`
    /// (the lock and journal) to a store the real AOF made.
    pub fn open_existing(root: impl Into<PathBuf>) -> Result<Store> {
        let root = root.into();
        if !Store::exists(&root) {
            return Err(StoreError::Missing { path: root });
        }
        Ok(Store {
            root,
            wal: Arc::default(),
        })
    }

    /// The board of the store at `root`, read without creating anything;
    /// empty when there is no store there yet (the inbox shows its mail
    /// whether or not anything was routed).
    pub fn board(root: &Path) -> Result<Board> {
        match Store::open_existing(root) {
            Ok(store) => store.board_of(),
            Err(StoreError::Missing { .. }) => Ok(Board::default()),
            Err(e) => Err(e),
        }
    }

    /// Opens the project root, creating a store there when there is none
    /// (status directories, `events/`, `state/runs/`, `state/amail/`). Only
    /// for what may start a store (`amail route`, the demo); anything else
    /// uses [`Store::open_existing`].
    pub fn open(root: impl Into<PathBuf>) -> Result<Store> {
        let root = root.into();
        let mut dirs: Vec<PathBuf> = TaskStatus::ALL
            .iter()
            .map(|s| root.join("tasks").join(s.as_str()))
            .collect();
        dirs.extend(
            [
                "events",
                "state/runs",
                "state/amail/beads",
                "state/amail/routed",
            ]
            .map(|d| root.join(d)),
        );
        for d in dirs {
            if let Err(e) = crate::fsio::create_dirs(&d) {
                // An existing store we may not write to (someone else's AOF
                // data dir) can still be read; writes report their own error.
                if !root.join("tasks").is_dir() {
                    return Err(StoreError::Io { path: d, source: e });
                }
            }
        }
        Ok(Store {
            root,
            wal: Arc::default(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn task_path(&self, status: TaskStatus, id: &str) -> PathBuf {
        self.root.join(rel_task(status, id))
    }

    /// Every copy of a task file, by probing the status directories.
    pub fn locate_all(&self, id: &str) -> Vec<TaskStatus> {
        TaskStatus::ALL
            .into_iter()
            .filter(|s| self.task_path(*s, id).is_file())
            .collect()
    }

    /// Reads a task by id: `(directory status, task)`.
    pub fn get(&self, id: &str) -> Result<Option<(TaskStatus, Task)>> {
        // A second copy can only be seen mid-write (the journal completes
        // it) or after a crash without a journal; prefer the copy whose
        // front matter agrees with its directory, then the latest
        // transition (the rule `amail doctor` heals by).
        let mut found: Option<(TaskStatus, Task)> = None;
        for s in self.locate_all(id) {
            let path = self.task_path(s, id);
            let bytes = match fs::read(&path) {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(StoreError::Io { path, source: e }),
            };
            let task = Task::parse_bytes(bytes).map_err(|err| StoreError::BadTask { path, err })?;
            let rank = |s: TaskStatus, t: &Task| {
                (t.fm.status == s.as_str(), t.fm.last_transition_at.clone())
            };
            if found
                .as_ref()
                .is_none_or(|(fs, ft)| rank(s, &task) > rank(*fs, ft))
            {
                found = Some((s, task));
            }
        }
        Ok(found)
    }

    /// The task a bead maps to, from the bead index.
    pub fn task_for_bead(&self, bead: &str) -> Option<String> {
        let text = fs::read_to_string(self.root.join(rel_bead(bead))).ok()?;
        let v: Value = serde_json::from_str(&text).ok()?;
        v.get("taskId").and_then(Value::as_str).map(str::to_string)
    }

    /// Whether a message with this dedupe key was routed already.
    pub(crate) fn was_routed(&self, key: &str) -> bool {
        self.root.join(rel_marker(key)).is_file()
    }

    /// Every task on the board, ordered by status then id. Unreadable files
    /// are skipped here; `amail doctor` reports them.
    pub fn list(&self) -> Result<Vec<TaskSummary>> {
        Ok(self.board_of()?.tasks)
    }

    /// [`Store::list`] and the files it skips (each `PATH:LINE:COL: why`,
    /// as `amail doctor` says it), in one pass over the task files.
    pub fn board_of(&self) -> Result<Board> {
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut out: Vec<TaskSummary> = Vec::new();
        let mut skipped = Vec::new();
        for s in TaskStatus::ALL {
            for (id, task) in self.tasks_checked(s, &mut skipped)? {
                let summary = TaskSummary::of(id.clone(), s, &task);
                match seen.get(&id) {
                    // A duplicate mid-move: keep the copy whose front matter
                    // names its own directory.
                    Some(&i) => {
                        if task.fm.status == s.as_str() {
                            out[i] = summary;
                        }
                    }
                    None => {
                        seen.insert(id, out.len());
                        out.push(summary);
                    }
                }
            }
        }
        Ok(Board {
            tasks: out,
            skipped,
        })
    }

    /// Parsed tasks in one status directory, telling `skipped` of each
    /// file skipped:
    /// `PATH:LINE:COL: why` for one that does not parse (as `amail doctor`
    /// says it), `PATH: why` for one not read.
    pub(crate) fn tasks_checked(
        &self,
        status: TaskStatus,
        skipped: &mut Vec<String>,
    ) -> Result<Vec<(String, Task)>> {
        let mut out = Vec::new();
        for (id, path) in self.files_in(status)? {
            let problem = match fs::read(&path) {
                Ok(bytes) => match Task::parse_bytes(bytes) {
                    Ok(task) => {
                        out.push((id, task));
                        continue;
                    }
                    Err(e) => format!("{}:{e}", path.display()),
                },
                Err(e) => format!("{}: cannot read: {e}", path.display()),
            };
            skipped.push(problem);
        }
        Ok(out)
    }

    /// `(id, path)` of every `*.md` in a status directory, sorted by id.
    pub(crate) fn files_in(&self, status: TaskStatus) -> Result<Vec<(String, PathBuf)>> {
        let dir = self.root.join("tasks").join(status.as_str());
        let mut out = Vec::new();
        let rd = match fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
            Err(e) => {
                return Err(StoreError::Io {
                    path: dir,
                    source: e,
                })
            }
        };
        for entry in rd {
            let entry = entry.map_err(io_at(&dir))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(id) = name.strip_suffix(".md") {
                if entry.path().is_file() {
                    out.push((id.to_string(), entry.path()));
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// Reads a JSON run artifact (`run.json`, `run_result.json`, ...);
    /// missing or invalid files are `None`, as in AOF.
    pub(crate) fn read_run<T: serde::de::DeserializeOwned>(
        &self,
        id: &str,
        file: &str,
    ) -> Option<T> {
        let text = fs::read_to_string(self.root.join(rel_run(id, file))).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Adds a task as it is (for imports and tests); its directory is its
    /// front matter's status. Replaces a task file of the same id there.
    pub fn insert(&self, task: Task) -> Result<()> {
        let status = TaskStatus::parse(&task.fm.status).unwrap_or(TaskStatus::Backlog);
        let mut tx = self.begin()?;
        let id = task.fm.id.clone();
        if let Some(b) = task.bead().map(str::to_string) {
            tx.index_bead(&b, &id);
        }
        for dep in &task.fm.depends_on {
            deps::add_dependent(&mut tx, dep, &id);
        }
        tx.create(status, task);
        tx.commit()
    }

    fn lock(&self) -> Result<(File, MutexGuard<'_, WalState>)> {
        let lock_path = self.root.join("state/amail/lock");
        // A store the real AOF made has no `state/amail/` yet: a writer adds
        // it (readers never get here).
        let own = crate::fsio::parent_of(&lock_path);
        if !own.is_dir() {
            crate::fsio::create_dirs(own).map_err(io_at(own))?;
        }
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io_at(&lock_path))?;
        // flock: one writer per store across processes (and across threads,
        // since each `begin` opens its own descriptor).
        fs4::FileExt::lock(&lock).map_err(io_at(&lock_path))?;
        // A panic while holding the guard leaves state that recovery
        // re-derives from the log, so a poisoned mutex is still usable.
        let wal = self.wal.lock().unwrap_or_else(|p| p.into_inner());
        Ok((lock, wal))
    }

    /// Makes every write so far durable and empties the write-ahead log.
    /// Commands call this when they finish; it also runs every
    /// `CHECKPOINT_EVERY` messages.
    pub fn checkpoint(&self) -> Result<()> {
        let (_lock, mut wal) = self.lock()?;
        journal::recover(&self.root, &mut wal).map_err(io_at(&self.root))?;
        journal::checkpoint(&self.root, &mut wal).map_err(io_at(&self.root))?;
        let ev = self.root.join("events");
        events::link_latest(&ev).map_err(io_at(&ev))
    }

    /// Takes the store lock, completes interrupted or foreign plans from the
    /// write-ahead log, and starts a transaction. The lock is released when
    /// the `Txn` is dropped.
    pub(crate) fn begin(&self) -> Result<Txn<'_>> {
        let (lock, mut wal) = self.lock()?;
        let recovered = journal::recover(&self.root, &mut wal).map_err(io_at(&self.root))?;
        let ev = self.root.join("events");
        let last = events::last_event_id(&ev).map_err(io_at(&ev))?;
        let mut tx = Txn {
            store: self,
            wal,
            _lock: lock,
            recovered,
            plan: Plan::default(),
            events: Vec::new(),
            cache: HashMap::new(),
            stale: HashMap::new(),
            next_event_id: last + 1,
            scanned: deps::Mtimes::new(),
        };
        tx.scanned = deps::sync(&mut tx)?;
        Ok(tx)
    }
}

pub(crate) fn rel_task(status: TaskStatus, id: &str) -> String {
    format!("tasks/{}/{id}.md", status.as_str())
}

pub(crate) fn rel_companion(status: TaskStatus, id: &str) -> String {
    format!("tasks/{}/{id}", status.as_str())
}

pub(crate) fn rel_run(id: &str, file: &str) -> String {
    format!("state/runs/{id}/{file}")
}

pub(crate) fn hash16(s: &str) -> String {
    Sha256::digest(s.as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub(crate) fn rel_bead(bead: &str) -> String {
    format!("state/amail/beads/{}.json", hash16(bead))
}

pub(crate) fn rel_marker(key: &str) -> String {
    format!("state/amail/routed/{}.json", hash16(key))
}

/// One message's worth of changes, under the store lock.
pub(crate) struct Txn<'s> {
    store: &'s Store,
    wal: MutexGuard<'s, WalState>,
    // Declared after `wal`: dropped (unlocked) last.
    _lock: File,
    /// Plans from the write-ahead log were replayed when the lock was taken.
    pub recovered: bool,
    plan: Plan,
    events: Vec<Event>,
    /// Tasks read or written in this transaction: id -> (directory, task).
    cache: HashMap<String, (TaskStatus, Task)>,
    /// Other copies of a task read here (a move interrupted by a crash,
    /// ours or AOF's): removed when the task is written, as AOF's `get`
    /// heals duplicates on every read.
    stale: HashMap<String, Vec<TaskStatus>>,
    next_event_id: u64,
    /// Status-directory mtimes the dependents index covers (see `deps`).
    scanned: deps::Mtimes,
}

impl<'s> Txn<'s> {
    pub(crate) fn store(&self) -> &'s Store {
        self.store
    }

    pub(crate) fn root(&self) -> &'s Path {
        &self.store.root
    }

    /// A file under the root as this transaction sees it: its own latest
    /// write, else the file on disk.
    pub(crate) fn read_own(&self, rel: &str) -> Option<String> {
        let own = self.plan.ops.iter().rev().find_map(|op| match op {
            Op::Write { path, content } if path == rel => Some(content.clone()),
            _ => None,
        });
        own.or_else(|| fs::read_to_string(self.store.root.join(rel)).ok())
    }

    /// The task as this transaction sees it (its own writes included).
    pub(crate) fn get(&mut self, id: &str) -> Result<Option<(TaskStatus, Task)>> {
        if let Some(t) = self.cache.get(id) {
            return Ok(Some(t.clone()));
        }
        let found = self.store.get(id)?;
        if let Some((status, _)) = &found {
            let others: Vec<TaskStatus> = self
                .store
                .locate_all(id)
                .into_iter()
                .filter(|s| s != status)
                .collect();
            if !others.is_empty() {
                self.stale.insert(id.to_string(), others);
            }
        }
        if let Some(t) = &found {
            self.cache.insert(id.to_string(), t.clone());
        }
        Ok(found)
    }

    /// Removes the other copies of a task now written in `status` (its
    /// companion files stay for `amail doctor` to merge).
    fn drop_stale(&mut self, id: &str, status: TaskStatus) {
        for s in self.stale.remove(id).unwrap_or_default() {
            if s != status {
                self.plan.ops.push(Op::Remove {
                    path: rel_task(s, id),
                });
            }
        }
    }

    /// Writes a task in place (in its current directory).
    pub(crate) fn save(&mut self, status: TaskStatus, task: Task) {
        let id = task.fm.id.clone();
        self.plan.ops.push(Op::Write {
            path: rel_task(status, &id),
            content: task.render(),
        });
        self.drop_stale(&id, status);
        self.cache.insert(id, (status, task));
    }

    /// Creates a new task file with its companion directories (AOF's four).
    pub(crate) fn create(&mut self, status: TaskStatus, task: Task) {
        let id = task.fm.id.clone();
        for sub in ["inputs", "work", "outputs", "subtasks"] {
            self.plan.ops.push(Op::Mkdir {
                path: format!("{}/{sub}", rel_companion(status, &id)),
            });
        }
        self.save(status, task);
    }

    /// Moves a task to another status directory: write the new file, move
    /// the companion dir, remove the old file (AOF's failure-safe order).
    /// The caller has already updated the front matter.
    pub(crate) fn relocate(&mut self, from: TaskStatus, task: Task) -> Result<()> {
        let id = task.fm.id.clone();
        let to = TaskStatus::parse(&task.fm.status).unwrap_or(from);
        if to == from {
            self.save(from, task);
            return Ok(());
        }
        self.plan.ops.push(Op::Write {
            path: rel_task(to, &id),
            content: task.render(),
        });
        self.plan.ops.push(Op::MoveDir {
            from: rel_companion(from, &id),
            to: rel_companion(to, &id),
        });
        self.plan.ops.push(Op::Remove {
            path: rel_task(from, &id),
        });
        self.drop_stale(&id, to);
        self.cache.insert(id, (to, task));
        Ok(())
    }

    /// A JSON run artifact as this transaction sees it: its own latest
    /// write, else the file ([`Store::read_run`]). A task started and
    /// completed by one message (a report for a task not in progress) has
    /// its `run.json` only in the plan.
    pub(crate) fn read_run<T: serde::de::DeserializeOwned>(
        &self,
        id: &str,
        file: &str,
    ) -> Option<T> {
        let rel = rel_run(id, file);
        let own = self.plan.ops.iter().rev().find_map(|op| match op {
            Op::Write { path, content } if *path == rel => Some(content),
            _ => None,
        });
        match own {
            Some(text) => serde_json::from_str(text).ok(),
            None => self.store.read_run(id, file),
        }
    }

    /// Writes any file under the root.
    pub(crate) fn write(&mut self, rel: String, content: String) {
        self.plan.ops.push(Op::Write { path: rel, content });
    }

    /// Removes a file under the root (if it is there).
    pub(crate) fn remove(&mut self, rel: String) {
        self.plan.ops.push(Op::Remove { path: rel });
    }

    /// Records the bead -> task mapping.
    pub(crate) fn index_bead(&mut self, bead: &str, task_id: &str) {
        let content = json!({ "beadId": bead, "taskId": task_id }).to_string();
        self.write(rel_bead(bead), content);
    }

    /// Marks a message as routed so routing it again is a no-op.
    pub(crate) fn mark_routed(&mut self, key: &str) {
        let content = json!({ "key": key }).to_string();
        self.write(rel_marker(key), content);
    }

    /// Logs an event (written when the transaction commits): the type
    /// comes with the payload, whose fields are in AOF's order.
    pub(crate) fn log<P: Logged>(&mut self, actor: &str, task_id: Option<&str>, payload: &P) {
        self.events.push(Event {
            event_id: self.next_event_id,
            kind: P::TYPE.to_string(),
            timestamp: iso(Utc::now()),
            actor: actor.to_string(),
            task_id: task_id.map(str::to_string),
            payload: EventPayload::of(payload),
        });
        self.next_event_id += 1;
    }

    /// Events logged so far in this transaction.
    pub(crate) fn logged(&self) -> &[Event] {
        &self.events
    }

    /// Logs the plan to the write-ahead log, applies it, releases the lock.
    pub(crate) fn commit(mut self) -> Result<()> {
        if !self.events.is_empty() {
            let evs = std::mem::take(&mut self.events);
            self.plan.ops.push(Op::Events { events: evs });
        }
        let root = &self.store.root;
        // The index covers this commit's own task writes; a directory
        // someone else changed since `begin` keeps its old stamp, so the
        // next transaction reads it.
        let before = deps::mtimes(root);
        self.plan.commit(root, &mut self.wal).map_err(io_at(root))?;
        let after = deps::mtimes(root);
        let mut stamp = self.scanned.clone();
        for (dir, t) in after {
            if before.get(dir) == self.scanned.get(dir) {
                stamp.insert(dir, t);
            }
        }
        if stamp != deps::read_scan(root) {
            deps::write_scan(root, &stamp);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(root: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut todo = vec![root.to_path_buf()];
        while let Some(d) = todo.pop() {
            for e in fs::read_dir(&d).into_iter().flatten().flatten() {
                if e.path().is_dir() {
                    todo.push(e.path());
                }
                out.push(e.path());
            }
        }
        out.sort();
        out
    }

    #[test]
    fn opening_an_existing_store_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("typo");
        assert!(matches!(
            Store::open_existing(&missing),
            Err(StoreError::Missing { path }) if path == missing
        ));
        assert!(!missing.exists());
        assert_eq!(Store::board(&missing).unwrap(), Board::default());
        assert!(!missing.exists());
        // A directory without `tasks/` is not a store either.
        fs::create_dir(&missing).unwrap();
        assert!(Store::open_existing(&missing).is_err());
        assert_eq!(Store::board(&missing).unwrap(), Board::default());
        assert!(tree(&missing).is_empty());
        // An AOF store: read as it is.
        fs::create_dir_all(missing.join("tasks/ready")).unwrap();
        let before = tree(&missing);
        let store = Store::open_existing(&missing).unwrap();
        assert!(store.list().unwrap().is_empty());
        assert_eq!(tree(&missing), before);
    }

    #[test]
    fn a_writer_adds_its_own_state_to_a_store_aof_made() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("tasks/ready")).unwrap();
        let store = Store::open_existing(dir.path()).unwrap();
        let mut tx = store.begin().unwrap();
        tx.log("me", None, &crate::router::payloads::DelegationAccepted {});
        tx.commit().unwrap();
        store.checkpoint().unwrap();
        assert!(dir.path().join("state/amail/lock").is_file());
        assert_eq!(
            super::events::read_all(&dir.path().join("events"))
                .unwrap()
                .0
                .len(),
            1
        );
    }

    #[test]
    fn open_creates_a_store() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("new");
        assert!(!Store::exists(&root));
        Store::open(&root).unwrap();
        assert!(Store::exists(&root));
        Store::open_existing(&root).unwrap();
    }
}
