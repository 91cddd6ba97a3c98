//! Time ratios of parsing each shape of `tests/support/shapes.rs` at N/4
//! and N (best of 5, interleaved): linear is about 4, quadratic 16.
//! Printed by `bench/run.sh`; timing lives here, not in tests, because a
//! shared machine's load makes any timed assertion flaky.
//!
//! `cargo run --release -p amail-parser --example linear`

use std::time::{Duration, Instant};

use amail_parser::{parse, ParseOptions};

#[path = "../tests/support/shapes.rs"]
mod shapes;

fn time(text: &str, opts: &ParseOptions, reps: u32) -> Duration {
    let t = Instant::now();
    for _ in 0..reps {
        std::hint::black_box(parse(std::hint::black_box(text), opts)).ok();
    }
    t.elapsed()
}

fn main() {
    println!(
        "{:<26} {:>6} {:>12} {:>12} {:>6}",
        "shape", "strict", "N/4", "N", "ratio"
    );
    for s in shapes::SHAPES {
        let small = (s.make)(s.big / 4);
        let large = (s.make)(s.big);
        let modes: &[bool] = if s.strict_too {
            &[false, true]
        } else {
            &[false]
        };
        for &strict in modes {
            let opts = ParseOptions { strict };
            let once = time(&small, &opts, 1).max(Duration::from_micros(1));
            let reps = ((0.005 / once.as_secs_f64()).ceil() as u32).clamp(1, 2000);
            let (mut a, mut b) = (Duration::MAX, Duration::MAX);
            for _ in 0..5 {
                a = a.min(time(&small, &opts, reps));
                b = b.min(time(&large, &opts, reps));
            }
            println!(
                "{:<26} {:>6} {:>12?} {:>12?} {:>6.2}",
                s.name,
                strict,
                a / reps,
                b / reps,
                b.as_secs_f64() / a.as_secs_f64()
            );
        }
    }
}
