//! `amail doctor`: check the store and heal what can be healed.
//!
//! With the lock held (which by itself replays the write-ahead log when a writer was
//! interrupted):
//! leftover temp files are removed; a task found in two status directories
//! keeps the copy whose front matter names its directory (then the newest
//! `updatedAt`, then the newest file) and the other copy's companion files
//! are merged into it; a task whose front matter disagrees with its
//! directory is moved to the front matter's status (AOF's reconcileDrift
//! rule); an orphaned companion directory is merged into its task's; the
//! bead index is rebuilt from `metadata.beadId`; a torn last event line is
//! cut; the dependents index ([`super::deps`]) is rebuilt from every task's
//! `dependsOn`. Unreadable task files are reported, never deleted.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use super::deps;
use super::journal::move_merge;
use super::store::{rel_bead, rel_companion, rel_task, Result, Store};
use super::task::Task;
use crate::aof::TaskStatus;
use crate::{fsio, utf8_text};

/// What doctor found.
#[derive(Debug, Default)]
pub struct Report {
    /// Problems fixed, one line each.
    pub healed: Vec<String>,
    /// Problems left for a human (file:line:col where known).
    pub problems: Vec<String>,
    pub tasks: usize,
}

impl Report {
    pub fn consistent(&self) -> bool {
        self.problems.is_empty()
    }
}

fn rel(store: &Store, p: &Path) -> String {
    p.strip_prefix(store.root())
        .unwrap_or(p)
        .display()
        .to_string()
}

fn remove_temps(store: &Store, dir: &Path, report: &mut Report) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    for e in rd.filter_map(|e| e.ok()) {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(".amail-tmp-") && p.is_file() {
            if fsio::remove_file(&p).is_ok() {
                report
                    .healed
                    .push(format!("removed leftover temp file {}", rel(store, &p)));
            }
        } else if p.is_dir() && !e.file_type().map(|t| t.is_symlink()).unwrap_or(true) {
            remove_temps(store, &p, report);
        }
    }
}

/// Checks the store; heals when `heal` is true.
pub fn run(store: &Store, heal: bool) -> Result<Report> {
    let mut tx = store.begin()?;
    let mut report = Report::default();
    if tx.recovered {
        report
            .healed
            .push("replayed the write-ahead log (an interrupted or unsynced write)".into());
    }
    if heal {
        for d in ["tasks", "state", "events"] {
            remove_temps(store, &store.root().join(d), &mut report);
        }
    }

    // Every task file, grouped by id.
    let mut copies: BTreeMap<String, Vec<(TaskStatus, PathBuf, Option<Task>)>> = BTreeMap::new();
    for s in TaskStatus::ALL {
        for (id, path) in store.files_in(s)? {
            let task = match fs::read(&path) {
                Ok(bytes) => match Task::parse_bytes(bytes) {
                    Ok(t) => Some(t),
                    Err(e) => {
                        report.problems.push(format!("{}:{e}", path.display()));
                        None
                    }
                },
                Err(e) => {
                    report.problems.push(format!("{}: {e}", path.display()));
                    None
                }
            };
            copies.entry(id).or_default().push((s, path, task));
        }
    }
    report.tasks = copies.len();

    let mut beads: HashMap<String, Vec<String>> = HashMap::new();
    // id -> the tasks whose `dependsOn` names it.
    let mut dependents: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (id, mut list) in copies {
        list.retain(|(_, _, t)| t.is_some());
        if list.is_empty() {
            continue;
        }
        if list.len() > 1 {
            let dirs: Vec<&str> = list.iter().map(|(s, _, _)| s.as_str()).collect();
            let line = format!(
                "task {id} is in {} status directories ({})",
                list.len(),
                dirs.join(", ")
            );
            // Best copy: agrees with its directory, newest updatedAt, newest file.
            list.sort_by_key(|(s, p, t)| {
                let t = t
                    .as_ref()
                    .map(|t| (t.fm.status == s.as_str(), t.fm.updated_at.clone()));
                let mtime = fs::metadata(p).and_then(|m| m.modified()).ok();
                (t, mtime)
            });
            let keep = list.pop();
            if heal {
                if let Some((ks, _, _)) = &keep {
                    for (s, p, _) in &list {
                        let from = store.root().join(rel_companion(*s, &id));
                        let to = store.root().join(rel_companion(*ks, &id));
                        if from.is_dir() {
                            move_merge(&from, &to, true).map_err(super::store::io_at(&from))?;
                        }
                        fsio::remove_file(p).map_err(super::store::io_at(p))?;
                    }
                }
                report.healed.push(format!(
                    "{line}: kept {}",
                    keep.as_ref().map(|k| k.0.as_str()).unwrap_or("")
                ));
            } else {
                report.problems.push(line);
            }
            list = keep.into_iter().collect();
        }
        let Some((s, path, Some(task))) = list.pop() else {
            continue;
        };
        if task.fm.status != s.as_str() {
            match TaskStatus::parse(&task.fm.status) {
                Some(target) if heal => {
                    let to = store.root().join(rel_task(target, &id));
                    fsio::write_atomic(&to, task.render().as_bytes())
                        .map_err(|e| super::store::io_at(&to)(e.source))?;
                    let cfrom = store.root().join(rel_companion(s, &id));
                    if cfrom.is_dir() {
                        let cto = store.root().join(rel_companion(target, &id));
                        move_merge(&cfrom, &cto, true).map_err(super::store::io_at(&cfrom))?;
                    }
                    fsio::remove_file(&path).map_err(super::store::io_at(&path))?;
                    report.healed.push(format!(
                        "task {id}: front matter says '{}' but file was in '{}/': moved",
                        task.fm.status,
                        s.as_str()
                    ));
                }
                _ => report.problems.push(format!(
                    "{}: status mismatch: front matter '{}' but file in '{}/'",
                    path.display(),
                    task.fm.status,
                    s.as_str()
                )),
            }
        }
        if let Some(b) = task.bead() {
            beads.entry(b.to_string()).or_default().push(id.clone());
        }
        for dep in &task.fm.depends_on {
            dependents
                .entry(dep.clone())
                .or_default()
                .insert(id.clone());
        }
    }

    // Orphaned companion directories.
    for s in TaskStatus::ALL {
        let dir = store.root().join("tasks").join(s.as_str());
        let Ok(rd) = fs::read_dir(&dir) else { continue };
        for e in rd.filter_map(|e| e.ok()) {
            let p = e.path();
            if !p.is_dir() {
                continue;
            }
            let id = e.file_name().to_string_lossy().into_owned();
            if p.with_extension("md").is_file() || dir.join(format!("{id}.md")).is_file() {
                continue;
            }
            match store.locate_all(&id).first() {
                Some(owner) if heal => {
                    let to = store.root().join(rel_companion(*owner, &id));
                    move_merge(&p, &to, true).map_err(super::store::io_at(&p))?;
                    report.healed.push(format!(
                        "merged orphaned {} into {}",
                        rel(store, &p),
                        rel(store, &to)
                    ));
                }
                _ => report
                    .problems
                    .push(format!("orphaned companion directory {}", rel(store, &p))),
            }
        }
    }

    // Bead index.
    for (bead, ids) in &beads {
        if ids.len() > 1 {
            report.problems.push(format!(
                "bead {bead} maps to several tasks: {}",
                ids.join(", ")
            ));
            continue;
        }
        if store.task_for_bead(bead).as_deref() != Some(ids[0].as_str()) {
            if heal {
                let p = store.root().join(rel_bead(bead));
                let content = serde_json::json!({ "beadId": bead, "taskId": ids[0] }).to_string();
                fsio::write_atomic(&p, content.as_bytes())
                    .map_err(|e| super::store::io_at(&p)(e.source))?;
                report
                    .healed
                    .push(format!("bead index entry for {bead} rebuilt"));
            } else {
                report
                    .problems
                    .push(format!("bead index entry for {bead} missing or wrong"));
            }
        }
    }

    // Dependents index: exactly the reverse of every task's `dependsOn`
    // (as this transaction sees it: edges the start-up scan just found
    // count as indexed).
    let mut on_disk: BTreeSet<String> = BTreeSet::new();
    for e in fs::read_dir(store.root().join(deps::DIR))
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".json") && format!("{}/{name}", deps::DIR) != deps::SCAN {
            on_disk.insert(format!("{}/{name}", deps::DIR));
        }
    }
    for (id, want) in &dependents {
        let rel_entry = deps::rel_dependents(id);
        on_disk.remove(&rel_entry);
        if deps::dependents(&tx, id) == *want {
            continue;
        }
        if heal {
            tx.write(rel_entry, deps::render_entry(id, want));
            report
                .healed
                .push(format!("dependents index entry for {id} rebuilt"));
        } else {
            report
                .problems
                .push(format!("dependents index entry for {id} missing or wrong"));
        }
    }
    for stale in on_disk {
        if heal {
            report
                .healed
                .push(format!("removed stale dependents index entry {stale}"));
            tx.remove(stale);
        } else {
            report
                .problems
                .push(format!("stale dependents index entry {stale}"));
        }
    }

    check_events(store, heal, &mut report)?;
    if heal {
        tx.commit()?;
        store.checkpoint()?;
    } else {
        drop(tx);
    }
    Ok(report)
}

/// The event log: every line must be an event. Read as bytes: a line that
/// is not UTF-8 (an append torn inside a character) is a line that is not
/// an event, and the file's other lines are still checked. A torn last
/// line is cut off when healing; any other is reported.
fn check_events(store: &Store, heal: bool, report: &mut Report) -> Result<()> {
    for file in super::events::day_files(&store.root().join("events")).unwrap_or_default() {
        let bytes = match fs::read(&file) {
            Ok(bytes) => bytes,
            Err(e) => {
                report.problems.push(format!(
                    "{}: {}",
                    file.display(),
                    fsio::reason_at(&file, &e)
                ));
                continue;
            }
        };
        let last = utf8_text::lines(&bytes).count();
        for (n, line) in utf8_text::lines(&bytes) {
            let not = match super::events::event_at(&file, n, line) {
                Some(Err(not)) => not,
                _ => continue,
            };
            let torn = n == last && !bytes.ends_with(b"\n");
            if torn && heal {
                let keep = memchr::memrchr(b'\n', &bytes).map_or(0, |p| p + 1);
                let f = fs::OpenOptions::new()
                    .write(true)
                    .open(&file)
                    .map_err(super::store::io_at(&file))?;
                f.set_len(keep as u64).map_err(super::store::io_at(&file))?;
                f.sync_all().map_err(super::store::io_at(&file))?;
                report
                    .healed
                    .push(format!("{}:{n}: cut a torn event line", file.display()));
            } else {
                report.problems.push(not.to_string());
            }
        }
    }
    Ok(())
}
