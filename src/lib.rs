//! # amail
//!
//! The library behind the `amail` binary: a terminal inbox, parser front end
//! and AOF/1 protocol router for Agent Mail.
//!
//! Data flows one way, and each stage lives in its own module:
//!
//! ```text
//! source ──► parser ──► bridge ──► router ──► inbox / tui
//! (files,    (amail-    (mail →    (AOF task   (threads, acks,
//!  SQLite,    parser     AOF/1      store,      replies, the
//!  stdin)     crate)     events)    events)     ratatui app)
//! ```
//!
//! - [`source`] finds mail: plain mailbox directories, mcp_agent_mail storage
//!   roots (canonical archive copies + `storage.sqlite3`), JSON on stdin.
//! - Parsing is the [`amail_parser`] crate: no I/O, never panics, lenient by
//!   default with diagnostics, strict on request.
//! - [`aof`] holds the AOF/1 envelope types, validation and detection;
//!   [`bridge`] maps one parsed message to one envelope.
//! - [`router`] is the only writer of the task store (atomic writes, a
//!   store-wide lock); [`inbox`] is the only writer of acks and replies.
//! - [`tui`] never parses text itself; it renders the inbox model.
//! - [`cli`] holds one module per subcommand; `main.rs` only dispatches.
//! - [`safe_text`] is the one terminal sanitiser: every printer and the TUI
//!   pass agent text through it; it depends on nothing else in the crate.
#![forbid(unsafe_code)]

pub mod aof;
pub mod bridge;
pub mod cli;
pub mod config;
pub mod formats;
pub mod fsio;
pub mod inbox;
pub mod router;
pub mod safe_text;
pub mod source;
pub mod tui;
