//! The inbox model over both mailbox kinds: plain mail directories (the
//! demo generator, threads, roster, ack journal, replies) and an
//! mcp_agent_mail storage root in both SQLite dialects (pending, read and
//! ack state, ack and reply), the incremental reload against a full load,
//! the generated mcp corpus against the real server's shapes, and one
//! walker for `amail parse` and the inbox.

// Only the shared helpers this binary calls: one it stops calling is a
// dead-code warning, so helpers no test uses do not pile up.
#[path = "../support"]
mod support {
    pub mod cli;
    pub mod copy;
    pub mod fixture;
    pub mod fs;
    pub mod integer_dialect;
    pub mod tree;
    pub mod walk;
}

mod demo_mcp_corpus;
mod incremental;
mod mailbox;
mod mcp_db_bodies;
mod mcp_newest_first;
mod mcp_refresh;
mod mcp_store;
mod newest_first;
mod reply_rules;
mod server_rules;
mod source_same_files;
mod subset;
mod triage;
mod write_through;
