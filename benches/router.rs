//! Router cost per envelope, with fsync, in stores of 100 and 10,000 tasks:
//! the two numbers should be about the same (lookups are by path, never by
//! scanning the store). Set `AMAIL_BENCH_DIR` to put the stores on a
//! particular filesystem (default: the system temp dir).

use std::fs;
use std::hint::black_box;

use amail_core::aof::validate::{envelope_from_value, Validated};
use amail_core::aof::Envelope;
use amail_core::aof::Routable;
use amail_core::router::task::Task;
use amail_core::router::{Router, RouterOptions, Store};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use serde_json::json;

fn id(i: usize) -> String {
    format!("TASK-2026-02-09-{:03}-{:02}", i / 100, i % 100)
}

fn envelope(kind: &str, task: &str, payload: serde_json::Value) -> Envelope {
    let v = json!({ "protocol": "aof", "version": 1, "type": kind, "taskId": task, "fromAgent": "w",
                    "toAgent": "d", "sentAt": "2026-02-09T21:00:00.000Z", "payload": payload });
    match envelope_from_value(&v) {
        Ok(Validated::Envelope(e)) => e,
        other => panic!("{other:?}"),
    }
}

/// A store with `n` in-progress tasks, written directly (setup, not measured).
fn store(n: usize) -> (tempfile::TempDir, Router) {
    let base = std::env::var_os("AMAIL_BENCH_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let dir = tempfile::tempdir_in(base).unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    for i in 0..n {
        let mut t = Task::new(&id(i), "bench", "in-progress", "2026-02-09T20:00:00.000Z");
        t.fm.routing.agent = Some("w".into());
        let p = store.task_path(amail_core::aof::TaskStatus::InProgress, &id(i));
        fs::write(p, t.render()).unwrap();
    }
    // Flush the setup's writes so they do not slow the measured fsyncs.
    store.checkpoint().unwrap();
    (dir, Router::new(store, RouterOptions::default()))
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("route_envelope");
    g.sample_size(20);
    for n in [100usize, 10_000] {
        let (_dir, router) = store(n);
        let mut k = 0usize;
        g.bench_with_input(BenchmarkId::new("status.update", n), &n, |b, &n| {
            b.iter(|| {
                k += 1;
                let t = id(k * 7919 % n);
                let e = envelope(
                    "status.update",
                    &t,
                    json!({ "taskId": t, "agentId": "w", "progress": format!("step {k}") }),
                );
                black_box(router.route(&Routable::named(e, None, None)).unwrap());
            })
        });
        let mut k = 0usize;
        g.bench_with_input(BenchmarkId::new("completion.report", n), &n, |b, &n| {
            b.iter(|| {
                k += 1;
                let t = id(k * 7919 % n);
                let e = envelope(
                    "completion.report",
                    &t,
                    json!({ "outcome": "partial", "summaryRef": "", "tests": { "total": 0, "passed": 0, "failed": 0 }, "notes": "" }),
                );
                black_box(router.route(&Routable::named(e, None, None)).unwrap());
            })
        });
        router.store.checkpoint().unwrap();
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
