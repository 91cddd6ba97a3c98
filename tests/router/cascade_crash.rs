//! A cascade killed at every durable step: a `done` report that promotes
//! two dependents, skips a third and leaves a task that does not wait, run
//! by `amail route` with `AMAIL_CRASH_AFTER=N` for every N until a run
//! completes, then `amail doctor` and the same report again. The store must
//! end byte for byte as after an uninterrupted run, with the same event log:
//! nothing lost (the index, the promotions) and nothing promoted twice.

use std::fs;
use std::path::Path;

use amail_core::router::task::{Lease, Task};
use amail_core::router::Store;

use crate::support::router::*;

const A: &str = "TASK-2026-02-09-201";
const B: &str = "TASK-2026-02-09-202";
const C: &str = "TASK-2026-02-09-203";
const D: &str = "TASK-2026-02-09-204";
const E: &str = "TASK-2026-02-09-205";
const T0: &str = "2026-02-09T20:00:00.000Z";

/// A (in progress, no review) with dependents B (backlog), C (blocked) and
/// D (backlog, also waiting for E, which is ready).
fn setup(root: &Path) {
    let store = Store::open(root).unwrap();
    let mut a = Task::new(A, "upstream", "in-progress", T0);
    a.fm.routing.agent = Some("w".into());
    a.fm.lease = Some(Lease {
        agent: "w".into(),
        acquired_at: T0.into(),
        expires_at: "2026-02-09T20:10:00.000Z".into(),
        renew_count: 0,
    });
    a.fm.metadata
        .insert("reviewRequired".into(), serde_json::json!(false));
    store.insert(a).unwrap();
    for (id, status, deps) in [
        (E, "ready", vec![]),
        (B, "backlog", vec![A]),
        (C, "blocked", vec![A]),
        (D, "backlog", vec![A, E]),
    ] {
        let mut t = Task::new(id, "downstream", status, T0);
        t.fm.depends_on = deps.into_iter().map(str::to_string).collect();
        store.insert(t).unwrap();
    }
    store.checkpoint().unwrap();
}

fn report_file(dir: &Path) -> std::path::PathBuf {
    let p = dir.join("done.aof");
    fs::write(
        &p,
        format!(
            r#"AOF/1 {{"protocol":"aof","version":1,"type":"completion.report","projectId":"demo","taskId":"{A}","fromAgent":"w","toAgent":"dispatcher","sentAt":"2026-02-09T21:00:00.000Z","payload":{{"outcome":"done","summaryRef":"","tests":{{"total":0,"passed":0,"failed":0}},"notes":"done"}}}}"#
        ) + "\n",
    )
    .unwrap();
    p
}

fn route_report(store: &Path, report: &Path, crash: Option<u64>) -> bool {
    let n = crash.map(|n| n.to_string());
    let env: Vec<(&str, &str)> = n
        .as_deref()
        .map(|n| vec![("AMAIL_CRASH_AFTER", n)])
        .unwrap_or_default();
    amail(
        &[
            "route",
            report.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
        &env,
    )
    .status
    .success()
}

#[test]
fn a_cascade_killed_at_every_durable_step_recovers_exactly_once() {
    let dir = scratch();
    let report = report_file(dir.path());
    let reference = dir.path().join("reference");
    setup(&reference);
    assert!(route_report(&reference, &report, None));
    let want_files = snapshot(&reference);
    let want_events = event_log(&reference);
    // The uninterrupted run did what the cascade should.
    let promoted: Vec<_> = want_events
        .iter()
        .filter(|e| e.1 == "task.transitioned" && e.4.contains("dependency_satisfied"))
        .map(|e| e.3.clone().unwrap())
        .collect();
    assert_eq!(promoted, [B, C]);
    assert!(want_files.contains_key(&format!("tasks/ready/{B}.md")));
    assert!(want_files.contains_key(&format!("tasks/ready/{C}.md")));
    assert!(want_files.contains_key(&format!("tasks/backlog/{D}.md")));

    let mut n = 1;
    loop {
        let store = dir.path().join(format!("run-{n}"));
        setup(&store);
        let finished = route_report(&store, &report, Some(n));
        let doc = amail(&["doctor", "--store", store.to_str().unwrap()], &[]);
        let text = String::from_utf8_lossy(&doc.stdout).into_owned();
        assert!(
            doc.status.success() && text.contains("is consistent"),
            "kill at step {n}: doctor:\n{text}"
        );
        assert!(
            route_report(&store, &report, None),
            "kill at step {n}: re-route failed"
        );
        assert_same(&snapshot(&store), &want_files, &format!("kill at step {n}"));
        assert_eq!(
            event_log(&store),
            want_events,
            "kill at step {n}: event log differs"
        );
        fs::remove_dir_all(&store).unwrap();
        if finished {
            break;
        }
        n += 1;
    }
    assert!(n > 10, "a cascade should take many durable steps, took {n}");
}
