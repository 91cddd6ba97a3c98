//! The guarantees of the README's reliability table, one module each: kills
//! during `amail ack` and `amail reply`, the fuzz seeds, bad and oversize
//! files, hostile names, read-only and missing things, growth with input
//! size (ignored in CI), a held SQLite database, and agent text that must
//! not drive the terminal.

// Only the shared helpers this binary calls: one it stops calling is a
// dead-code warning, so helpers no test uses do not pile up.
#[path = "../support"]
mod support {
    pub mod copy;
    pub mod fixture;
    pub mod fs;
    pub mod walk;
}

mod crash;
mod fuzz_seeds;
mod limits;
mod paths;
mod readonly;
mod scale;
mod sqlite_lock;
mod terminal;
