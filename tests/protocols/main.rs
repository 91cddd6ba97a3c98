//! The neighbouring protocols beside Agent Mail: handoff v0.1 and A2A task
//! JSON parsed, diagnosed and bridged to AOF/1, a mailbox mixing all three
//! (inbox, TUI snapshots, routing), AgentTurn states in the roster, and the
//! CLI commands that detect them by themselves.

// Only the shared helpers this binary calls (see tests/inbox/main.rs).
#[path = "../support"]
mod support {
    pub mod fs;
}

mod a2a;
mod cli;
mod handoff;
mod mixed;
mod roster;
