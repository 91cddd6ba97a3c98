//! Threads, pending acks, the agent roster, and the ack/reply writers.
//!
//! Contract for the rest of the crate (implementations land with the inbox issue):
//! - `load(source: &Path, opts: &LoadOptions) -> Result<Inbox, Error>` auto-detects a
//!   mailbox directory or an mcp_agent_mail storage root.
//! - `ack(inbox_source: &SourceKind, keys: &[String], as_agent: &str)` and
//!   `reply(inbox_source, key, as_agent, body)` write through `inbox/`, never elsewhere.

pub mod model;

pub use model::*;
