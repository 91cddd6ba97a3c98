//! How soon a plain mailbox's load hands out its first step (issue 16),
//! for `bench/run.sh`: the walk, the newest-first order and the first
//! 1,000 or so messages read, parsed and built into an inbox, without the
//! TUI around it (`first_frame` measures that through the worker) and
//! without waiting for the rest of the load (the process ends at the
//! step). Prints `walk_ms first_step_ms files`: the walk alone (every
//! path made, as `amail parse` walks), then the load to its first step.
//! A mailbox too small for a step prints its whole load's time instead.
//!
//!     cargo run --release --example first_step -- DIR

use std::path::Path;
use std::time::Instant;

use amail_core::fsio::DEFAULT_MAX_MESSAGE_BYTES;
use amail_core::source::walk;
use amail_core::stores::mailbox::load_mailbox_in_steps;

fn main() {
    let Some(dir) = std::env::args_os().nth(1) else {
        eprintln!("usage: first_step DIR");
        std::process::exit(2);
    };
    let root = Path::new(&dir);
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1000.0;
    let t = Instant::now();
    let files = walk::walk(root).files.len();
    let walk_ms = ms(t);
    let t = Instant::now();
    let report = |step_ms: f64| println!("{walk_ms:.1} {step_ms:.1} {files}");
    let _ = load_mailbox_in_steps(root, DEFAULT_MAX_MESSAGE_BYTES, &|_, _| (), &|_| {
        report(ms(t));
        std::process::exit(0);
    });
    report(ms(t));
}
