//! Superlinearity beyond the parser (the parser's own shapes, to 10 MB, are
//! in `parser/tests/linear.rs` and run in CI). These are too big for CI and
//! are `#[ignore]`d; run them with
//! `cargo test --release --test reliability scale:: -- --ignored --test-threads=1`.
//!
//! Each input goes through the whole read path: a mail file on disk, the
//! inbox loader (with the message size limit raised), thread building, and
//! the TUI's message view drawn into a `TestBackend`. The time at n/4 and
//! at n is compared (best of 3): linear is 4, quadratic 16; the bound is 10.
//!
//! Measured 2026-11-22 (`cargo test` profile, shared 2-CPU machine, a
//! fuzzer running beside it): 50 MB line 4.4 s -> 11.4 s (ratio 2.6);
//! 10^6 bullets 0.40 s -> 1.08 s (2.7); 10^5 `##` headings 33 ms -> 123 ms
//! (3.7); 200,000 levels of `>` nesting 15 ms -> 57 ms (3.8).

use std::fs;
use std::time::{Duration, Instant};

use amail_core::stores::{self, LoadOptions};
use amail_tui::config::UiConfig;
use amail_tui::testing::{fixed_now, FakeBackend, TestApp};

fn once(body: &str) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "Subject: [big] PROGRESS\nFrom: w\nTo: boss\nId: big\nDate: 2026-11-22T02:00:00Z\n\nBody:\n{body}\n"
    );
    fs::write(dir.path().join("big.md"), text).unwrap();
    let opts = LoadOptions {
        max_bytes: 1 << 30,
        ..LoadOptions::default()
    };
    let t = Instant::now();
    let loaded = stores::load(dir.path(), &opts).unwrap();
    assert_eq!(loaded.messages.len(), 1, "{:?}", loaded.problems);
    let mut app = TestApp::new(
        FakeBackend::new(loaded, Vec::new(), fixed_now()),
        UiConfig::default(),
    );
    app.press("<enter>");
    let _ = app.render(120, 40);
    t.elapsed()
}

fn assert_linear(name: &str, make: impl Fn(usize) -> String, n: usize) {
    let best = |k: usize| (0..3).map(|_| once(&make(k))).min().unwrap();
    let (small, large) = (best(n / 4), best(n));
    let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
    eprintln!("{name}: n/4 {small:?}, n {large:?}, ratio {ratio:.1}");
    assert!(
        ratio < 10.0,
        "{name}: time grew {ratio:.1}x for 4x the input"
    );
}

#[test]
#[ignore = "large inputs (50 MB, 10^6 lines): run by hand, see the module docs"]
fn one_fifty_megabyte_line() {
    assert_linear("50 MB line", |n| "x".repeat(n), 50 << 20);
}

#[test]
#[ignore = "large inputs (50 MB, 10^6 lines): run by hand, see the module docs"]
fn a_million_bullets() {
    assert_linear("10^6 bullets", |n| "- item\n".repeat(n), 1_000_000);
}

#[test]
#[ignore = "large inputs (50 MB, 10^6 lines): run by hand, see the module docs"]
fn thousands_of_headings_and_deep_nesting() {
    assert_linear("## x 10^5", |n| "## heading\ntext\n".repeat(n), 100_000);
    assert_linear(
        "> nesting",
        |n| format!("{}deep\n", "> ".repeat(n)),
        200_000,
    );
}
