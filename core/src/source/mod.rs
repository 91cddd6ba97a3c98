//! Where mail comes from, and nothing more: walking files and directories,
//! finding the files of a plain mailbox or of an mcp_agent_mail archive
//! ([`walk`], [`detect()`]), reading one mail file within the size limit
//! ([`files`]), and classifying what `amail route` reads ([`inputs`]).
//!
//! Turning what is read here into an inbox, and reading the mcp_agent_mail
//! database and archive front matter, is `stores/`'s job; threads and
//! pending acks are `inbox/`'s.

pub mod detect;
pub mod files;
pub mod inputs;
pub mod parallel;
pub mod walk;

pub use detect::{detect, Detected};
