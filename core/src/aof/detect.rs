//! Detection: is this input an AOF/1 protocol message, and if so which?
//!
//! The seed's order: an already-parsed object with `protocol == "aof"`; a
//! string holding JSON; a string starting with `AOF/1 ` followed by JSON.
//! (Real AOF tests the prefix first; the two string cases are disjoint, so
//! the outcome is the same.) Anything else is not a protocol message and is
//! ignored silently, as the seed says for chat text.

use serde_json::Value;

use super::envelope::{limits, Envelope};
use super::validate::{envelope_from_value, Validated};

/// A raw input to detect.
#[derive(Debug, Clone, Copy)]
pub enum Input<'a> {
    /// An event already parsed into JSON: the object itself when it is an
    /// envelope, else its `payload`, `message` or `content` member.
    Object(&'a Value),
    /// Message text.
    Text(&'a str),
}

/// Why an input was refused: the `protocol.message.rejected` payload,
/// `{reason, ...detail}` (serialised in the router, in AOF's key order).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    /// `invalid_json`, `invalid_envelope`, `payload_too_large`,
    /// `task_not_found`, `taskId_mismatch`, ...
    pub reason: &'static str,
    pub detail: RejectionDetail,
}

/// What a rejection names besides its reason, each in AOF's key order.
#[derive(Debug, Clone, PartialEq)]
pub enum RejectionDetail {
    /// `{reason}`
    None,
    /// `{reason, maxBytes}`
    PayloadTooLarge { max_bytes: usize },
    /// `{reason, source, error}`
    InvalidJson { source: &'static str, error: String },
    /// `{reason, errors}`
    InvalidEnvelope { errors: Vec<String> },
    /// `{reason, projectId}`, AOF's route pre-check; amail adds `beadId`
    /// for a message about a bead with no task (no task id to log).
    Project {
        project_id: Option<String>,
        bead_id: Option<String>,
    },
    /// `{reason, from, to, outcome}` (amail's: a completion for a task
    /// nothing can move).
    InvalidTransition {
        from: &'static str,
        to: Option<&'static str>,
        outcome: &'static str,
    },
}

impl Rejection {
    pub fn new(reason: &'static str, detail: RejectionDetail) -> Rejection {
        Rejection { reason, detail }
    }

    /// Why, in the words its event's payload logs (`amail route` prints
    /// it after the reason, which alone sent the user to `amail events`):
    /// the JSON error, the envelope's errors, the limit; `None` for a
    /// reason that says it all.
    pub fn why(&self) -> Option<String> {
        match &self.detail {
            RejectionDetail::InvalidJson { error, .. } => Some(error.clone()),
            RejectionDetail::InvalidEnvelope { errors } => Some(errors.join("; ")),
            RejectionDetail::PayloadTooLarge { max_bytes } => {
                Some(format!("over the limit of {max_bytes} bytes"))
            }
            _ => None,
        }
    }
}

/// What detection found. (The envelope is large but short-lived; boxing
/// it would only add an allocation per message.)
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Detected {
    Envelope(Envelope),
    /// A well-formed envelope of a type AOF/1 does not define.
    Unknown {
        kind: String,
        task_id: Option<String>,
        from_agent: Option<String>,
    },
    Rejected(Rejection),
    /// Not a protocol message (chat text, a non-AOF object).
    NotProtocol,
}

/// Classifies one input.
pub fn detect(input: Input<'_>) -> Detected {
    match input {
        Input::Object(v) => {
            let candidate = match v {
                // A bare envelope is its own candidate (AOF would look at
                // its `payload` and miss it).
                Value::Object(o) if o.get("protocol").and_then(Value::as_str) == Some("aof") => v,
                Value::Object(o) => o
                    .get("payload")
                    .or_else(|| o.get("message"))
                    .or_else(|| o.get("content"))
                    .unwrap_or(v),
                _ => v,
            };
            match candidate {
                Value::String(s) => detect_text(s),
                Value::Object(o) if o.get("protocol").and_then(Value::as_str) == Some("aof") => {
                    from_value(candidate)
                }
                _ => Detected::NotProtocol,
            }
        }
        Input::Text(s) => detect_text(s),
    }
}

fn detect_text(s: &str) -> Detected {
    if s.len() > limits::MAX_ENVELOPE_BYTES {
        return Detected::Rejected(Rejection::new(
            "payload_too_large",
            RejectionDetail::PayloadTooLarge {
                max_bytes: limits::MAX_ENVELOPE_BYTES,
            },
        ));
    }
    let t = s.trim();
    let (json_text, source) = if let Some(rest) = t.strip_prefix("AOF/1 ") {
        (rest.trim(), "AOF/1 prefix")
    } else if t.starts_with('{') || t.starts_with('[') {
        (t, "json")
    } else {
        return Detected::NotProtocol;
    };
    match serde_json::from_str::<Value>(json_text) {
        Ok(v) => from_value(&v),
        Err(e) => Detected::Rejected(Rejection::new(
            "invalid_json",
            RejectionDetail::InvalidJson {
                source,
                // AOF's words are JavaScript's; serde's stay for the
                // few texts JavaScript would accept.
                error: super::js_json::parse_error(json_text).unwrap_or_else(|| e.to_string()),
            },
        )),
    }
}

fn from_value(v: &Value) -> Detected {
    match envelope_from_value(v) {
        Ok(Validated::Envelope(e)) => Detected::Envelope(e),
        Ok(Validated::UnknownType {
            kind,
            task_id,
            from_agent,
        }) => Detected::Unknown {
            kind,
            task_id,
            from_agent,
        },
        Err(errors) => Detected::Rejected(Rejection::new(
            "invalid_envelope",
            RejectionDetail::InvalidEnvelope { errors },
        )),
    }
}
