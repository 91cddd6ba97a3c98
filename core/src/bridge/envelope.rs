//! AOF/1 input to a [`Routable`]: an envelope names its own task, so there
//! is nothing to resolve; a rejection and an unknown type are logged by the
//! router as they are.

use crate::aof::{detect, Detected, Input, Routable};

/// The dedupe key of one AOF/1 input text: a hash of its content, so
/// routing the same file twice is a no-op.
pub(crate) fn key_of(text: &str) -> String {
    format!("aof:{}", content_key(text))
}

fn content_key(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.trim().as_bytes())
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One AOF/1 input text (a line or a whole file).
pub fn routable_text(text: &str) -> Routable {
    routable(detect(Input::Text(text)), Some(key_of(text)))
}

/// What detection found, ready to route under the dedupe `key`.
pub fn routable(detected: Detected, key: Option<String>) -> Routable {
    match detected {
        Detected::Envelope(envelope) => Routable::named(envelope, key, None),
        Detected::Unknown { kind, task_id, .. } => Routable::Unknown { key, kind, task_id },
        Detected::Rejected(r) => Routable::Rejected(r),
        Detected::NotProtocol => Routable::Ignored,
    }
}
