//! The TUI: snapshots of every view on sample and real data, key-driven
//! flows, odd sizes and the sanitiser, the terminal guard, live refresh
//! from a watched mailbox, and the real binary in tmux.

// Only the shared helpers this binary calls (see tests/inbox/main.rs).
#[path = "../support"]
mod support {
    pub mod copy;
    pub mod fixture;
    pub mod fs;
    pub mod tmux;
}

mod agents_view;
mod feel;
mod flows;
mod keys;
mod loading;
mod long_entry;
mod lookalike;
mod overlays;
mod patched;
mod real_snapshots;
mod reply_identity;
mod review;
mod robustness;
mod screen;
mod search;
mod snapshots;
mod terminal;
mod tmux;
mod triage;
mod truth;
mod units;
mod watch;
mod worker;
