//! Filters over parsed messages, as the protocol's consumers use them.
//! Each keeps input order and returns references, never copies.

use crate::model::{Message, MessageType};

pub fn by_type<'m, 'a>(msgs: &'m [Message<'a>], kind: MessageType) -> Vec<&'m Message<'a>> {
    msgs.iter().filter(|m| m.kind == kind).collect()
}

/// Messages about `bead` (the bead id, or a spawn message's issue id).
pub fn by_bead<'m, 'a>(msgs: &'m [Message<'a>], bead: &str) -> Vec<&'m Message<'a>> {
    msgs.iter().filter(|m| m.bead() == Some(bead)).collect()
}

/// OFFERING_READY, DONE, FAILED and CHECKPOINT.
pub fn completions<'m, 'a>(msgs: &'m [Message<'a>]) -> Vec<&'m Message<'a>> {
    msgs.iter().filter(|m| m.kind.is_completion()).collect()
}

/// OFFERING_READY and DONE whose self-validation reports no FAIL. Unlike
/// the Go parser, a DONE with `Tests: FAIL` is not a success.
pub fn successes<'m, 'a>(msgs: &'m [Message<'a>]) -> Vec<&'m Message<'a>> {
    msgs.iter().filter(|m| is_success(m)).collect()
}

pub fn is_success(m: &Message<'_>) -> bool {
    matches!(m.kind, MessageType::OfferingReady | MessageType::Done)
        && ![m.parsed.tests_pass, m.parsed.lint_pass, m.parsed.build_pass].contains(&Some(false))
}

/// Ack required and not acknowledged by the viewer; `acked` says whether
/// the viewer has acknowledged a message (ack state lives outside the mail).
pub fn pending<'m, 'a>(
    msgs: &'m [Message<'a>],
    acked: impl Fn(&Message<'a>) -> bool,
) -> Vec<&'m Message<'a>> {
    msgs.iter()
        .filter(|m| m.ack_required && !acked(m))
        .collect()
}
