//! Threads, pending acks, the agent roster, and the ack/reply writers.
//!
//! - [`load`] reads a mailbox directory or an mcp_agent_mail storage root
//!   (auto-detected) into an [`Inbox`]; [`load_stdin`] reads piped JSON.
//! - [`ack`] and [`reply`] write through this module, never elsewhere:
//!   an mcp store gets exactly what the server itself would write, a plain
//!   mailbox gets an ack journal line or a new mail file.
//! - (The demo mailbox and corpora are written by the `amail` package.)
//! - [`incremental::reload_changed`] brings a loaded mailbox up to date
//!   after a few files changed, reading only those (`patch` updates the
//!   threads and agents they touch); the TUI's watcher drives it.
//!
//! See `docs/inbox.md` for the choices and their limits.

pub mod ack;
mod build;
mod error;
pub mod incremental;
pub mod journal;
pub mod load;
pub mod mcp_archive;
pub mod model;
mod patch;
pub mod protocol_items;
pub mod reply;
pub mod turn;

pub use ack::{ack, ack_at, ack_loaded, AckOutcome};
pub use build::assemble;
pub use error::Error;
pub use load::{
    load, load_json, load_json_as, load_mailbox, load_mcp, load_stdin, load_stdin_as, LoadOptions,
};
pub use model::*;
pub use reply::{reply, reply_at, reply_loaded, ReplyOutcome};
pub use turn::TurnState;
