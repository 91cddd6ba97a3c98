//! The TUI: snapshots of every view on sample and real data, key-driven
//! flows, odd sizes and the sanitiser, the terminal guard, live refresh
//! from a watched mailbox, and the real binary in tmux.

mod flows;
mod keys;
mod loading;
mod real_snapshots;
mod reply_identity;
mod review;
mod robustness;
mod snapshots;
mod terminal;
mod tmux;
mod triage;
mod truth;
mod watch;
mod worker;
