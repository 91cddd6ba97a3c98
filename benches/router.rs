//! Router costs, with fsync, by store size: they must stay flat (lookups
//! are by path, the dependency cascade reads its index, never the store).
//!
//! - `route_envelope`: one status update / completion report in stores of
//!   100 and 10,000 tasks;
//! - `cascade_completion`: a `done` report (in-progress -> review -> done,
//!   reviewRequired false) that promotes its dependent, in stores of 100,
//!   10,000 and 100,000 tasks. The real AOF pays about 0.7 ms per task in
//!   the store for the same report (it parses every task file to find the
//!   dependents): 7 s at 10,000 tasks;
//! - `create_task`: tasks created per second (one journaled transaction
//!   each), in a store of 10,000 tasks.
//!
//! Stores are generated once per size, written directly (setup, not
//! measured), and reused across iterations; each iteration adds its own
//! pair of tasks outside the measured time. Samples are few and short: the
//! machine is shared. Set `AMAIL_BENCH_DIR` to put the stores on a
//! particular filesystem (default: the system temp dir).

use std::fs;
use std::hint::black_box;
use std::time::{Duration, Instant};

use amail_core::aof::validate::{envelope_from_value, Validated};
use amail_core::aof::{Envelope, Routable, TaskStatus};
use amail_core::router::task::Task;
use amail_core::router::{Router, RouterOptions, Store};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use serde_json::json;

/// A task id with AOF's 8-character suffix (`i` in its alphabet), valid
/// for any number of tasks.
fn id(i: usize) -> String {
    const ALPHABET: &[u8] = b"23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    let mut suffix = [b'2'; 8];
    let mut v = i;
    for c in suffix.iter_mut().rev() {
        *c = ALPHABET[v % ALPHABET.len()];
        v /= ALPHABET.len();
    }
    format!("TASK-2026-02-09-{}", std::str::from_utf8(&suffix).unwrap())
}

fn envelope(kind: &str, task: &str, payload: serde_json::Value) -> Envelope {
    let v = json!({ "protocol": "aof", "version": 1, "type": kind, "taskId": task, "fromAgent": "w",
                    "toAgent": "d", "sentAt": "2026-02-09T21:00:00.000Z", "payload": payload });
    match envelope_from_value(&v) {
        Ok(Validated::Envelope(e)) => e,
        other => panic!("{other:?}"),
    }
}

fn bench_dir() -> tempfile::TempDir {
    let base = std::env::var_os("AMAIL_BENCH_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    tempfile::tempdir_in(base).unwrap()
}

/// A store of `n` tasks in `status`, written directly (setup, not measured).
fn store(n: usize, status: TaskStatus) -> (tempfile::TempDir, Router) {
    let dir = bench_dir();
    let store = Store::open(dir.path().join("store")).unwrap();
    for i in 0..n {
        let mut t = Task::new(&id(i), "bench", status.as_str(), "2026-02-09T20:00:00.000Z");
        t.fm.routing.agent = Some("w".into());
        // Every tenth task waits for the one before it, as a real store's
        // do: the cascade index has entries of its own.
        if i % 10 == 9 {
            t.fm.depends_on = vec![id(i - 1)];
        }
        fs::write(store.task_path(status, &id(i)), t.render()).unwrap();
    }
    // One transaction indexes what was written behind the store's back
    // (the once-only full scan), then flush the setup's writes so they do
    // not slow the measured fsyncs.
    let mut seed = Task::new(&id(n), "seed", "done", "2026-02-09T20:00:00.000Z");
    seed.fm.routing.agent = Some("w".into());
    store.insert(seed).unwrap();
    store.checkpoint().unwrap();
    (dir, Router::new(store, RouterOptions::default()))
}

fn completion(task: &str) -> Routable {
    let e = envelope(
        "completion.report",
        task,
        json!({ "outcome": "done", "summaryRef": "", "tests": { "total": 0, "passed": 0, "failed": 0 }, "notes": "" }),
    );
    Routable::named(e, None, None)
}

fn route_envelope(c: &mut Criterion) {
    let mut g = c.benchmark_group("route_envelope");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for n in [100usize, 10_000] {
        let (_dir, router) = store(n, TaskStatus::InProgress);
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

fn cascade_completion(c: &mut Criterion) {
    let mut g = c.benchmark_group("cascade_completion");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in [100usize, 10_000, 100_000] {
        // Mostly finished work, as a store that has run for a while holds.
        let (_dir, router) = store(n, TaskStatus::Done);
        let mut next = n + 1;
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    // Setup: an upstream task in progress and its dependent.
                    let (up, down) = (id(next), id(next + 1));
                    next += 2;
                    let mut u = Task::new(&up, "up", "in-progress", "2026-02-09T20:00:00.000Z");
                    u.fm.routing.agent = Some("w".into());
                    u.fm.metadata.insert("reviewRequired".into(), json!(false));
                    router.store.insert(u).unwrap();
                    let mut d = Task::new(&down, "down", "backlog", "2026-02-09T20:00:00.000Z");
                    d.fm.depends_on = vec![up.clone()];
                    router.store.insert(d).unwrap();
                    let input = completion(&up);
                    let t = Instant::now();
                    black_box(router.route(&input).unwrap());
                    spent += t.elapsed();
                    debug_assert_eq!(
                        router.store.get(&down).unwrap().unwrap().0,
                        TaskStatus::Ready
                    );
                }
                spent
            })
        });
        router.store.checkpoint().unwrap();
    }
    g.finish();
}

fn create_task(c: &mut Criterion) {
    let mut g = c.benchmark_group("create_task");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    let n = 10_000;
    let (_dir, router) = store(n, TaskStatus::Done);
    let mut next = n + 1;
    g.throughput(criterion::Throughput::Elements(1));
    g.bench_function(BenchmarkId::from_parameter(n), |b| {
        b.iter(|| {
            let mut t = Task::new(&id(next), "new", "ready", "2026-02-09T20:00:00.000Z");
            t.fm.routing.agent = Some("w".into());
            next += 1;
            router.store.insert(t).unwrap();
        })
    });
    router.store.checkpoint().unwrap();
    g.finish();
}

criterion_group!(benches, route_envelope, cascade_completion, create_task);
criterion_main!(benches);
