//! The bridges: each input format to one [`Routable`],
//! the only thing the router takes.
//!
//! - [`mail`]: one parsed Agent Mail message (the design's mapping table);
//! - [`protocol`]: one handoff v0.1 or A2A item;
//! - [`envelope`]: one AOF/1 input (object or text), already an envelope,
//!   or a rejection or an unknown type to log.
//!
//! A bridge is pure: it reads its input and builds envelopes, never the
//! store. Finding a bead's task is the router's, so the envelopes a bridge
//! builds leave the task unassigned and say how to create it.

pub mod envelope;
pub mod mail;
pub mod protocol;

use crate::aof::Routable;
use crate::source::inputs::Item;

/// What the router is given for one input, by its bridge: the one
/// reading of an input for everything that routes (`amail route`, the
/// demo's store).
pub fn routable(item: &Item) -> Routable {
    match item {
        Item::Mail { msg, .. } => mail::routable(msg),
        Item::Aof { text, .. } => envelope::routable_text(text),
        Item::Protocol(p) => protocol::routable(p),
    }
}

pub(crate) use mail::SUMMARY_REF;
pub use mail::{dedupe_key, sent_at, to_envelope, to_envelope_standalone, worker_of};
