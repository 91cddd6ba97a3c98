//! One TUI frame (120×40 `TestBackend`) over inboxes of 1,000 and 10,000
//! corpus messages: the redraw cost a key press pays.
//! `cargo bench --bench tui_frame`

use amail::demo::corpus;
use amail_core::stores::{self, LoadOptions};
use amail_tui::testing::render_terminal;
use amail_tui::{Model, UiConfig};
use chrono::TimeZone;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

fn bench(c: &mut Criterion) {
    let now = chrono::Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
    let mut g = c.benchmark_group("tui_frame");
    g.sample_size(20);
    for n in [1_000usize, 10_000] {
        let dir = tempfile::tempdir().unwrap();
        let info = corpus::write_corpus(&dir.path().join("mail"), n, now).unwrap();
        let inbox = stores::load(&info.mailbox, &LoadOptions::default()).unwrap();
        let model = Model::new(inbox, Vec::new(), now, UiConfig::default());
        g.bench_with_input(BenchmarkId::from_parameter(n), &model, |b, m| {
            b.iter(|| render_terminal(m, 120, 40))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
