//! Parser throughput: a 195-byte PROGRESS message (the Go peer's unit of
//! comparison) and a 10 MB body, against a plain newline scan of the same bytes.

use std::hint::black_box;

use amail_parser::{parse, ParseOptions};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// 195 bytes, like the Go peer's spec-format corpus.
const PROGRESS: &str = "Subject: [ol-527.1] PROGRESS\nBody:\nBead: ol-527.1\nStep: Step 4 - implementing auth middleware\nStatus: Writing middleware handler\nContext usage: 45%\nFiles touched: src/auth.py, tests/test_auth.py\n";

fn big_body() -> String {
    let mut s = String::from(
        "Subject: [ol-1] OFFERING_READY\n\nBody:\nBead: ol-1\nStatus: DONE\n\n## Summary\n",
    );
    let line =
        "Implemented the token refresh path, with retries and a jittered backoff; see notes.\n";
    while s.len() < 10_800_000 {
        s.push_str(line);
    }
    s
}

fn bench(c: &mut Criterion) {
    let opts = ParseOptions::default();
    assert_eq!(PROGRESS.len(), 195);
    let mut g = c.benchmark_group("parse");
    g.throughput(Throughput::Bytes(PROGRESS.len() as u64));
    g.bench_function("progress_195B", |b| {
        b.iter(|| parse(black_box(PROGRESS), &opts).unwrap())
    });
    let big = big_body();
    g.throughput(Throughput::Bytes(big.len() as u64));
    g.sample_size(10);
    g.bench_function("body_10MB", |b| {
        b.iter(|| parse(black_box(&big), &opts).unwrap())
    });
    g.bench_function("newline_scan_10MB", |b| {
        b.iter(|| black_box(&big).bytes().filter(|&c| c == b'\n').count())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
