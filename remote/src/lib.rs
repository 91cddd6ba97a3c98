//! amail's mail store over a running MCP Agent Mail server.
//!
//! [`ServerStore`] implements `amail_core::stores::MailStore` by calling
//! the server's own MCP tools and resources over streamable HTTP, with the
//! official Rust SDK (`rmcp`): `fetch_inbox` per agent (with `since_ts`
//! for updates), the `ack-required` view for pending state,
//! `acknowledge_message`, `mark_message_read`, `reply_message`,
//! `send_message`, and the project and agent lists. The server does every
//! write; amail keeps no shadow state, so what it shows is what the
//! agents' own tools see.
//!
//! The crate is apart from `amail-core` because `rmcp` needs tokio: the
//! store owns a current-thread runtime and blocks on it, so its callers
//! (the commands, the TUI's backend) stay synchronous.
//!
//! https is built in, as a server on another machine is usually reached
//! through a TLS proxy: rustls with ring's crypto (not reqwest's default,
//! aws-lc, a C library of its own to build), the certificate checked
//! against the system's store or the PEM file `SSL_CERT_FILE` names.
//!
//! - [`session`]: one connection (bearer token, timeouts, reconnecting
//!   after a failure), calls and their errors in one line each;
//! - [`toolset`]: which release's tool set the server offers;
//! - [`convert`]: server payloads into inbox messages;
//! - `store`: the `MailStore` itself;
//! - [`write_through`]: a storage root read from disk, written through its
//!   server;
//! - `tls`: which server certificates are taken;
//! - `testing` (feature `testing`): fake HTTP servers, and a TLS front
//!   for them or a live server, for tests.

pub mod convert;
pub mod session;
mod store;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
mod tls;
pub mod toolset;
pub mod write_through;

pub use session::{AgentTokens, Request, ServerConfig, ServerError};
pub use store::{ServerStore, FIRST_PAGE};
pub use toolset::ToolSet;
pub use write_through::WriteThrough;
