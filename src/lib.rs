//! # amail (the binary's library)
//!
//! The `amail` binary is clap, configuration read once, and the wiring
//! between the library crates; this library holds the wiring the tests and
//! benches reach too:
//!
//! - [`config`]: the config file, read once, and the `--max-size` limit;
//! - [`backend`]: the TUI's real backend: a mail store from `amail-core`,
//!   the task board from its router, routing on load for the demo;
//! - [`demo`]: the demo mailbox and the benchmark corpora (plain and
//!   mcp_agent_mail), which the tests and `bench/run.sh` generate.
//!
//! The layers underneath are crates: `amail-parser` (no I/O) <
//! `amail-core` (sources, bridge, router, inbox model, stores) <
//! `amail-tui` (the ratatui app); see `docs/architecture.md`.
#![forbid(unsafe_code)]

pub mod backend;
pub mod config;
pub mod demo;
