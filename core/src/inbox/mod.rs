//! The inbox model: threads, pending acks, the agent roster and turns,
//! derived from messages however they were read. Pure: no file or database
//! I/O, and nothing here knows which store the mail came from.
//!
//! - `compact`: [`CompactMessage`], a message as the inbox holds it: the
//!   envelope kept small, the rest parsed again from the file's text on
//!   first use;
//! - `mail_path`: [`MailPath`], a message's file as a range of a buffer
//!   shared by the paths a load made together;
//! - [`model`]: the types ([`Inbox`], [`InboxMessage`], [`Thread`],
//!   [`Agent`], ...);
//! - `build`: from loaded messages to the [`Inbox`] ([`assemble`] for
//!   messages from anywhere), and recorded acks applied to recipients;
//! - `index`: what the inbox keeps beside its messages so that a change
//!   costs in proportion to itself (messages by key and file, the acks in
//!   effect, each agent's roster evidence);
//! - `patch`: an incremental change applied in place, touching only the
//!   threads and agents it concerns (a store reads the change, this
//!   applies it);
//! - [`turn`]: AgentTurn states for the roster;
//! - [`protocol_items`]: handoff and A2A items shown as messages;
//! - [`summary`]: one line for a message, and what a thread is at (the
//!   TUI's thread list and `amail threads` say the same).
//!
//! Reading a mailbox or an mcp_agent_mail root, and writing acks and
//! replies, is `stores/`'s job. See `docs/inbox.md` for the choices and
//! their limits.

mod build;
mod compact;
pub(crate) mod index;
mod mail_path;
pub mod model;
pub(crate) mod patch;
pub mod protocol_items;
mod reparse;
pub mod summary;
pub mod turn;

/// The hash map of the derivation's internal tables (threads by id, the
/// roster's evidence, acks by key): hashbrown's with its default hasher,
/// foldhash, several times faster than the standard SipHash on these
/// short keys (SipHash was a tenth of a 100,000-message build). The keys
/// (message keys, thread ids, agent names) can come from a remote server,
/// so a collision flood is the risk to weigh: foldhash seeds every map
/// from a per-process random seed, so colliding keys cannot be prepared
/// in advance, and a worst case would cost one slow load of that
/// server's own mail, not a service to others.
pub(crate) type FastMap<K, V> = hashbrown::HashMap<K, V>;

pub use build::assemble;
pub(crate) use build::{apply_acks, build, build_to_patch, explicit_thread};
pub use compact::{intern, parsed_again, CompactMessage, Name, Names, Text, TextChunk};
pub use mail_path::MailPath;
pub use model::*;
