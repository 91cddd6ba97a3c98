//! Inbox load cost: a plain mailbox of demo waves (22 messages per wave),
//! the same number of corpus messages as an mcp_agent_mail store (archive +
//! SQLite, `amail demo --messages N --format mcp`), and the fixture store.
//! `cargo bench --bench inbox_load`

use std::path::Path;

use amail::demo::{corpus, mailbox as demo};
use amail_core::stores::{self, LoadOptions};
use chrono::{TimeZone, Utc};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn mailbox(c: &mut Criterion) {
    let mut group = c.benchmark_group("inbox_load_mailbox");
    group.sample_size(10);
    for waves in [10usize, 100] {
        let dir = tempfile::tempdir().unwrap();
        let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
        let info = demo::write_demo_waves(dir.path(), now, waves).unwrap();
        group.throughput(Throughput::Elements(info.messages as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(info.messages),
            &info.mailbox,
            |b, m| b.iter(|| stores::load(m, &LoadOptions::default()).unwrap()),
        );
    }
    group.finish();
}

fn mcp_corpus(c: &mut Criterion) {
    let mut group = c.benchmark_group("inbox_load_mcp_corpus");
    group.sample_size(10);
    for n in [220usize, 2_200] {
        let dir = tempfile::tempdir().unwrap();
        let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
        let info = corpus::mcp::write_mcp_corpus(dir.path(), n, now).unwrap();
        group.throughput(Throughput::Elements(info.messages as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), dir.path(), |b, d| {
            b.iter(|| stores::load(d, &LoadOptions::default()).unwrap())
        });
    }
    group.finish();
}

fn mcp_store(c: &mut Criterion) {
    // A copy: even a read-only SQLite reader of a WAL database leaves
    // `-wal`/`-shm` files beside it, and the fixture stays pristine.
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mcp-agent-mail-0.1.0");
    let copy = tempfile::tempdir().unwrap();
    copy_dir(&fixture, copy.path());
    c.bench_function("inbox_load_mcp_fixture", |b| {
        b.iter(|| stores::load(copy.path(), &LoadOptions::default()).unwrap())
    });
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

criterion_group!(benches, mailbox, mcp_corpus, mcp_store);
criterion_main!(benches);
