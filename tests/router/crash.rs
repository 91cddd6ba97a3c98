//! Crash safety: a routing process is killed between durable steps, then
//! `amail doctor` must find (or make) the store consistent and re-routing
//! must reach exactly the state of an uninterrupted run.
//!
//! The kill comes from the `AMAIL_CRASH_AFTER=N` hook, which aborts the
//! process (no unwinding, no flushing: the effect of `kill -9`) just before
//! its N-th durable step (write, rename, unlink, append). Every N from 1 to
//! the number of steps of a full run is tried, then random N with a second
//! crash during recovery, for at least 200 runs in all. The comparison
//! covers every file's bytes, the directory tree and the event log (ids,
//! types, actors, tasks, payloads; only logging times may differ).

use std::path::Path;

use crate::support::fixture::fixture;
use crate::support::router::*;

fn route_with_crash(store: &Path, n: u64) -> bool {
    let s = store.to_str().unwrap();
    let f = fixture();
    let out = amail(
        &["route", f.to_str().unwrap(), "--store", s],
        &[("AMAIL_CRASH_AFTER", &n.to_string())],
    );
    out.status.success()
}

#[test]
fn killed_routing_recovers_to_the_uninterrupted_state() {
    let dir = scratch();
    let reference = dir.path().join("reference");
    assert!(route(&reference, &[&fixture()]).status.success());
    let want_files = snapshot(&reference);
    let want_events = event_log(&reference);

    // A cheap deterministic generator (no timing, no external seed).
    let mut rng: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |bound: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % bound + 1
    };

    let mut runs = 0;
    let mut total_steps = None;
    let mut n = 1;
    while runs < 200 {
        let store = dir.path().join(format!("run-{runs}"));
        let (first, second) = match total_steps {
            None => (n, None),
            Some(t) => (next(t), Some(next(t))),
        };
        let finished = route_with_crash(&store, first);
        if finished && total_steps.is_none() {
            // `first` exceeded the number of steps of a full run: every
            // single kill point has been tried.
            total_steps = Some(first - 1);
            assert!(
                first > 20,
                "a full fixture run should take many durable steps"
            );
        }
        if let Some(second) = second {
            // A second crash, during the recovery run itself.
            route_with_crash(&store, second);
        }
        let doc = amail(&["doctor", "--store", store.to_str().unwrap()], &[]);
        let report = String::from_utf8_lossy(&doc.stdout).into_owned();
        assert!(
            doc.status.success(),
            "kill at step {first}: doctor failed:\n{report}"
        );
        assert!(
            report.contains("is consistent"),
            "kill at step {first}:\n{report}"
        );
        assert!(
            !report.contains("status directories"),
            "kill at step {first}: a task was in two status directories after recovery:\n{report}"
        );
        let out = route(&store, &[&fixture()]);
        assert!(
            out.status.success(),
            "kill at step {first}: re-route failed"
        );
        assert_same(
            &snapshot(&store),
            &want_files,
            &format!("kill at step {first}"),
        );
        assert_eq!(
            event_log(&store),
            want_events,
            "kill at step {first}: event log differs"
        );
        // Doctor after the final run must have nothing to heal.
        let doc = amail(&["doctor", "--store", store.to_str().unwrap()], &[]);
        assert!(!String::from_utf8_lossy(&doc.stdout).contains("healed"));
        std::fs::remove_dir_all(&store).unwrap();
        runs += 1;
        n += 1;
    }
    assert!(
        total_steps.is_some(),
        "200 runs did not cover every kill point"
    );
}
