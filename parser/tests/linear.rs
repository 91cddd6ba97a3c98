//! Parsing time grows linearly with the input, on ordinary and adversarial
//! shapes: each input is parsed at size N and 4N (the best of 3 runs each)
//! and the time ratio must stay under 10 (linear is 4, quadratic 16).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use amail_parser::{parse, ParseOptions};

const RUNS: usize = 3;
const MAX_RATIO: f64 = 10.0;
/// The machine is shared: a measurement that fails is retaken this many
/// times. Quadratic growth fails every attempt; a noisy neighbour does not.
const ATTEMPTS: usize = 5;

/// Timing tests run one at a time so they do not disturb each other.
static SERIAL: Mutex<()> = Mutex::new(());

/// Time of `reps` parses of `text`.
fn time_reps(text: &str, opts: &ParseOptions, reps: u32) -> Duration {
    let t = Instant::now();
    for _ in 0..reps {
        let r = parse(text, opts);
        // The result is real (and dropped inside the timed part, as a
        // caller's would be).
        if let Ok(msgs) = &r {
            assert!(!msgs.is_empty());
        }
    }
    t.elapsed()
}

/// The best of `RUNS` runs for each input, runs interleaved so a burst of
/// load hits both sizes alike. Fast inputs are repeated so the small one
/// takes at least ~5 ms, out of timer and scheduler noise.
fn best_pair(small: &str, large: &str, opts: &ParseOptions) -> (Duration, Duration) {
    let once = time_reps(small, opts, 1).max(Duration::from_micros(1));
    let reps = (Duration::from_millis(5).as_secs_f64() / once.as_secs_f64()).ceil() as u32;
    let reps = reps.clamp(1, 2000);
    let (mut s, mut l) = (Duration::MAX, Duration::MAX);
    for _ in 0..RUNS {
        s = s.min(time_reps(small, opts, reps));
        l = l.min(time_reps(large, opts, reps));
    }
    (s, l)
}

/// `make(n)` builds an input of about n units; compares n/4 with n.
fn assert_linear(name: &str, big: usize, strict_too: bool, make: impl Fn(usize) -> String) {
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let small_text = make(big / 4);
    let big_text = make(big);
    assert!(
        big_text.len() >= 3 * small_text.len(),
        "{name}: inputs do not scale"
    );
    let modes: &[bool] = if strict_too { &[false, true] } else { &[false] };
    for &strict in modes {
        let opts = ParseOptions { strict };
        let mut ratios = Vec::new();
        for _ in 0..ATTEMPTS {
            let (small, large) = best_pair(&small_text, &big_text, &opts);
            let ratio = large.as_secs_f64() / small.as_secs_f64();
            eprintln!(
                "{name} (strict={strict}): {} bytes {small:?}, {} bytes {large:?}, ratio {ratio:.2}",
                small_text.len(),
                big_text.len()
            );
            ratios.push(ratio);
            if ratio < MAX_RATIO {
                break;
            }
        }
        assert!(
            ratios.iter().any(|&r| r < MAX_RATIO),
            "{name}: 4x the input took {ratios:.1?}x the time in every attempt"
        );
    }
}

fn spec(body: &str) -> String {
    format!("Subject: [ol-1] DONE\n\nBody:\nBead: ol-1\nStatus: DONE\n\n## Summary\n{body}")
}

#[test]
fn ten_megabyte_body() {
    // 4N = 10 MB of ordinary prose lines.
    assert_linear("10 MB body", 10 << 20, false, |bytes| {
        let line = "Implemented the token refresh path and its tests, 45% done.\n";
        spec(&line.repeat(bytes / line.len()))
    });
}

#[test]
fn hundred_thousand_short_lines() {
    assert_linear("100k short lines", 100_000, true, |n| {
        spec(&"ok\n".repeat(n))
    });
}

#[test]
fn hundred_thousand_bullets() {
    assert_linear("100k bullets", 100_000, true, |n| {
        let mut b = String::from("## Changes\n- Commit: abc\n- Files:\n");
        for i in 0..n {
            b.push_str(&format!("  - src/file{i}.rs\n"));
        }
        spec(&b)
    });
}

#[test]
fn thousands_of_headings() {
    assert_linear("## headings", 8_000, true, |n| {
        let mut b = String::new();
        for i in 0..n {
            b.push_str(&format!("## Summary {i}\nText {i}\n### sub\n##{i}\n"));
        }
        spec(&b)
    });
}

#[test]
fn one_five_megabyte_line() {
    assert_linear("5 MB line", 5 << 20, false, |n| spec(&"x".repeat(n)));
    assert_linear("5 MB field value", 5 << 20, true, |n| {
        format!(
            "Subject: [ol-1] PROGRESS\n\nBody:\nBead: ol-1\nStep: {}\n",
            "y ".repeat(n / 2)
        )
    });
}

#[test]
fn deep_quote_nesting() {
    assert_linear("deep > nesting", 1 << 20, true, |n| {
        spec(&format!("{} Bead: x\n", ">".repeat(n)))
    });
    assert_linear("many nested quote lines", 20_000, true, |n| {
        let mut b = String::new();
        for i in 0..n {
            b.push_str(&">".repeat(i % 200 + 1));
            b.push_str(" - Files: a.rs\n");
        }
        spec(&b)
    });
}

#[test]
fn adversarial_headers_and_framings() {
    // A subject that is one long `Re:` chain and bracket run.
    assert_linear("Re: chain", 100_000, true, |n| {
        format!(
            "Subject: {}[{}] DONE\n\nBody:\nBead: x\n",
            "Re: ".repeat(n),
            "[".repeat(n)
        )
    });
    // Duplicate fields, unclosed fences and many type-like lines.
    assert_linear("duplicates and fences", 50_000, true, |n| {
        spec(&"Bead: ol-1\n```\nDONE\n".repeat(n))
    });
    // Thousands of lines that look like JSON but are not.
    assert_linear("broken JSON lines", 20_000, true, |n| {
        "{\"subject\": \"DONE\", \"body_md\": }\n".repeat(n)
    });
    // JSON Lines of real messages.
    assert_linear("JSON Lines", 20_000, true, |n| {
        "{\"subject\": \"[ol-1] PROGRESS\", \"body_md\": \"Bead: ol-1\\nStep: s\"}\n".repeat(n)
    });
    // Many header lines before the body.
    assert_linear("header lines", 50_000, true, |n| {
        format!(
            "Subject: DONE\n{}\nBody:\nBead: x\n",
            "To: a, b, c\n".repeat(n)
        )
    });
}
