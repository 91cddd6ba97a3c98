//! The keys a JSON message is read by, shared by the reading of its
//! values (`framing`) and the finding of where they were written
//! (`json_pos`), so the two never disagree on which key holds the body
//! and neither has to ask the other.

/// The keys that make an object a message.
pub(crate) const MESSAGE_KEYS: &[&str] = &["subject", "body_md", "body"];

/// Where a message's body is, the first present and not null.
pub(crate) const BODY_KEYS: &[&str] = &["body_md", "body", "text"];

/// The keys of the server's wrappers around messages, in the order they
/// are read.
pub(crate) const WRAPPER_KEYS: &[&str] = &[
    "result",
    "messages",
    "deliveries",
    "payload",
    "structuredContent",
];

/// Where the subject is.
pub(crate) const SUBJECT_KEYS: &[&str] = &["subject"];

/// Where the time is, the first present.
pub(crate) const TIMESTAMP_KEYS: &[&str] =
    &["created_ts", "created", "timestamp", "created_at", "date"];
