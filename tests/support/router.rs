//! The router tests' helpers: a scratch store, `amail route` through the
//! built binary, and the store's files and event log read back for
//! comparison.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use amail_core::router::events;

/// A scratch directory, on tmpfs when there is one (fsync there is cheap,
/// which keeps the crash test's hundreds of runs fast; crash safety under
/// a killed process does not depend on the disk).
pub fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(d) = tempfile::Builder::new()
            .prefix("amail-test-")
            .tempdir_in(shm)
        {
            return d;
        }
    }
    tempfile::tempdir().expect("temp dir")
}

/// Runs the built `amail` binary.
pub fn amail(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_amail"));
    c.args(args).env_remove("AMAIL_CRASH_AFTER");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run amail")
}

pub fn route(store: &Path, inputs: &[&Path]) -> Output {
    let mut args = vec!["route".to_string()];
    args.extend(inputs.iter().map(|p| p.display().to_string()));
    args.push("--store".into());
    args.push(store.display().to_string());
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    amail(&a, &[])
}

/// Every file under the store except the lock and the event log, by
/// relative path. Directories are listed too (as empty content with a
/// trailing slash) so a missing companion directory shows.
pub fn snapshot(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap()).collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            // scan.json holds directory mtimes: a cache, different every run.
            if rel == "state/amail/lock"
                || rel == "state/amail/deps/scan.json"
                || rel.starts_with("events")
            {
                continue;
            }
            if p.is_dir() {
                out.insert(format!("{rel}/"), String::new());
                walk(root, &p, out);
            } else {
                out.insert(
                    rel,
                    String::from_utf8_lossy(&fs::read(&p).unwrap()).into_owned(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// A command's stdout, then its stderr, as text.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The id of the task `bead` maps to.
pub fn task_of_bead(store: &amail_core::router::Store, bead: &str) -> String {
    store
        .list()
        .unwrap()
        .into_iter()
        .find(|t| t.bead.as_deref() == Some(bead))
        .unwrap()
        .id
}

/// The store's newest day file of its event log.
pub fn events_file(root: &Path) -> PathBuf {
    events::day_files(&root.join("events"))
        .unwrap()
        .pop()
        .unwrap()
}

/// The event log without logging times: (eventId, type, actor, taskId, payload).
pub fn event_log(root: &Path) -> Vec<(u64, String, String, Option<String>, String)> {
    let (evs, bad) = events::read_all(&root.join("events")).unwrap();
    assert!(
        bad.is_empty(),
        "event log has lines that are not events: {bad:?}"
    );
    evs.into_iter()
        .map(|e| {
            (
                e.event_id,
                e.kind,
                e.actor,
                e.task_id,
                e.payload.to_string(),
            )
        })
        .collect()
}

/// Writes a mail file in the protocol's text framing.
pub fn write_mail(
    dir: &Path,
    name: &str,
    id: &str,
    from: &str,
    date: &str,
    subject: &str,
    body: &str,
) {
    fs::create_dir_all(dir).unwrap();
    let text = format!(
        "Subject: {subject}\nFrom: {from}\nTo: boss\nId: {id}\nDate: {date}\n\nBody:\n{body}\n"
    );
    fs::write(dir.join(name), text).unwrap();
}

/// A plain mailbox with `n` beads, each accepted, progressed and offered.
pub fn synthetic_mailbox(dir: &Path, prefix: &str, n: usize) {
    for i in 0..n {
        let bead = format!("{prefix}-{i}");
        let w = format!("worker-{prefix}-{i}");
        let t = |s: usize| format!("2026-11-22T01:{:02}:{:02}Z", i % 60, s);
        write_mail(
            dir,
            &format!("{bead}-1.md"),
            &format!("{bead}-1"),
            &w,
            &t(1),
            &format!("[{bead}] BEAD_ACCEPTED"),
            &format!(
                "Accepted bead: {bead}\nTitle: Work on {bead}\nStarting implementation at: {}",
                t(1)
            ),
        );
        write_mail(
            dir,
            &format!("{bead}-2.md"),
            &format!("{bead}-2"),
            &w,
            &t(2),
            &format!("[{bead}] PROGRESS"),
            &format!("Bead: {bead}\nStep: Step 1 - start\nStatus: going\nContext usage: 10%\nFiles touched: a.rs"),
        );
        write_mail(
            dir,
            &format!("{bead}-3.md"),
            &format!("{bead}-3"),
            &w,
            &t(3),
            &format!("[{bead}] OFFERING_READY"),
            &format!(
                "Bead: {bead}\nStatus: DONE\n\n## Changes\n- Commit: abc123\n- Files: a.rs\n\n## Self-Validation\n- Tests: PASS\n- Lint: PASS\n- Build: PASS\n\n## Summary\nDid {bead}."
            ),
        );
    }
}

/// Panics naming only the paths whose content differs.
pub fn assert_same(got: &BTreeMap<String, String>, want: &BTreeMap<String, String>, context: &str) {
    let mut diffs = Vec::new();
    for (k, v) in want {
        match got.get(k) {
            None => diffs.push(format!("missing {k}")),
            Some(g) if g != v => diffs.push(format!("differs {k}:\n--- want\n{v}\n--- got\n{g}")),
            _ => {}
        }
    }
    for k in got.keys().filter(|k| !want.contains_key(*k)) {
        diffs.push(format!("extra {k}"));
    }
    assert!(
        diffs.is_empty(),
        "{context}: store differs:\n{}",
        diffs.join("\n")
    );
}
