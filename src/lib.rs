//! amail: placeholder crate doc (rewritten when the parts land).
#![forbid(unsafe_code)]

pub mod aof;
pub mod bridge;
pub mod cli;
pub mod inbox;
pub mod router;
pub mod source;
pub mod tui;
