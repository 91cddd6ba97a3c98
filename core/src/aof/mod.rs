//! AOF/1 protocol types: the envelope, every payload, task statuses and ids,
//! validation and detection, and [`Routable`], what the router routes.
//!
//! Design: the serde types in [`envelope`] are the *output* shape (what the
//! bridge produces and `amail parse --format aof` prints). Input goes the
//! other way, through [`validate::envelope_from_value`], a hand-written
//! checker over `serde_json::Value` instead of `#[derive(Deserialize)]`, so
//! that a bad envelope yields every problem as a readable message (the way
//! the seed's zod schemas report them) rather than serde's first error.
//! [`detect()`] decides whether a raw input (already-parsed object, JSON text
//! or `AOF/1 ` prefixed text) is a protocol message at all.

pub mod detect;
pub mod envelope;
pub mod js_json;
pub mod routable;
pub mod status;
pub mod task_id;
pub mod validate;

pub use detect::{detect, Detected, Input, Rejection, RejectionDetail};
pub use envelope::*;
pub use routable::{Delivery, NewTask, Routable, TaskRef};
pub use status::TaskStatus;
pub use task_id::is_valid_task_id;
