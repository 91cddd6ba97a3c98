//! Where mail comes from, and nothing more: walking files and directories,
//! finding the files of a plain mailbox or of an mcp_agent_mail archive,
//! reading `---json` front matter, and reading (never writing) the
//! mcp_agent_mail SQLite database; classifying what `amail route` reads
//! ([`inputs`]).
//!
//! Turning what is read here into threads and pending acks is `inbox/`'s job;
//! writing acks and replies is `inbox/`'s job too.

pub mod detect;
pub mod files;
pub mod frontmatter;
pub mod inputs;
pub mod mcp_db;
pub mod parallel;
pub mod timestamps;
pub mod walk;

pub use detect::{detect, Detected};
