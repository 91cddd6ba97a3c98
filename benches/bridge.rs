//! The bridge: parsed messages to AOF/1 envelopes, over the demo mix
//! (every type; plain mail maps to nothing). `cargo bench --bench bridge`

use amail::demo::corpus;
use amail_parser::{parse, ParseOptions};
use chrono::TimeZone;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let now = chrono::Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    let texts: Vec<String> = corpus::corpus_mails(2_200, now)
        .iter()
        .map(corpus::render)
        .collect();
    let msgs: Vec<_> = texts
        .iter()
        .flat_map(|t| parse(t, &ParseOptions::default()).unwrap())
        .collect();
    let mut g = c.benchmark_group("bridge");
    g.throughput(Throughput::Elements(msgs.len() as u64));
    g.bench_function("to_envelope_2200_msgs", |b| {
        b.iter(|| {
            msgs.iter()
                .filter_map(amail_core::bridge::to_envelope_standalone)
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
