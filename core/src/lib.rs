//! # amail-core
//!
//! Everything amail knows about Agent Mail, AOF and the stores they live
//! in, with no terminal, no command line and no async runtime: the TUI
//! (`amail-tui`) and the `amail` binary are thin layers over it.
//!
//! ## Layers
//!
//! The modules form a stack. Each may use the ones below it and the
//! `amail-parser` crate, never one above; `tests/architecture.rs` in the
//! workspace checks the rule on every `use`.
//!
//! ```text
//!  stores/   mailbox/ (plain directories)   mcp/ (mcp_agent_mail root)
//!     │        one MailStore trait: load, reload, ack, reply, watch paths
//!  inbox/    the pure model: threads, pending acks, roster, turns, patch
//!  router/   the AOF task store: one entry, Router::route(&Routable)
//!  bridge/   mail, handoff, A2A, AOF/1 input ──► Routable
//!  source/   one walker; each file read and classified once
//!  formats/  handoff v0.1 and A2A JSON: parsing only
//!  aof/      envelope, validation, detection, task ids, typed status,
//!            Routable (what the router takes)
//!  fsio, safe_text, utf8_text, words   one atomic writer and one
//!            size-limited reader; the one terminal sanitiser; text whose
//!            bad byte spoils only its line or file; counted nouns
//! ```
//!
//! Two edges the stack would allow are refused on purpose: the router
//! never uses the parser, a bridge, a source or the inbox (it knows AOF/1
//! and its store, and takes [`aof::Routable`]s only), and a bridge never
//! uses the router (finding a bead's task is the router's job, so a bridge
//! says how to create the task instead of creating it).
//!
//! ## Why the pieces are where they are
//!
//! - Parsing never does I/O and never panics; it lives in `amail-parser`.
//!   Everything that reads a file does it through [`fsio`], with the size
//!   limit passed in by the caller: there is no process-wide setting.
//! - Agent text reaches a terminal only through [`safe_text`], whichever
//!   printer or widget shows it.
//! - A mailbox backend (plain directory, mcp_agent_mail storage root) is a
//!   [`stores::MailStore`]: the TUI and the binary ask it to load, reload
//!   changed paths, ack and reply, and never know which one they hold.
#![forbid(unsafe_code)]

pub mod aof;
pub mod bridge;
pub mod formats;
pub mod fsio;
pub mod inbox;
pub mod router;
pub mod safe_text;
pub mod source;
pub mod stores;
pub mod utf8_text;
pub mod words;
