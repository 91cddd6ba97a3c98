//! The AOF/1 envelope and its payloads, in the JSON shape of the seed.
//!
//! Field names and key order follow the seed's examples (and AOF's zod
//! schemas), so the JSON we print is what AOF itself would accept.

use serde::{Deserialize, Serialize};

use super::status::TaskStatus;

/// The five message types of AOF/1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MessageKind {
    #[serde(rename = "handoff.request")]
    HandoffRequest,
    #[serde(rename = "handoff.accepted")]
    HandoffAccepted,
    #[serde(rename = "handoff.rejected")]
    HandoffRejected,
    #[serde(rename = "status.update")]
    StatusUpdate,
    #[serde(rename = "completion.report")]
    CompletionReport,
}

impl MessageKind {
    pub const ALL: [MessageKind; 5] = [
        MessageKind::HandoffRequest,
        MessageKind::HandoffAccepted,
        MessageKind::HandoffRejected,
        MessageKind::StatusUpdate,
        MessageKind::CompletionReport,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MessageKind::HandoffRequest => "handoff.request",
            MessageKind::HandoffAccepted => "handoff.accepted",
            MessageKind::HandoffRejected => "handoff.rejected",
            MessageKind::StatusUpdate => "status.update",
            MessageKind::CompletionReport => "completion.report",
        }
    }

    pub fn parse(s: &str) -> Option<MessageKind> {
        MessageKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// A validated AOF/1 envelope.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Envelope {
    /// Always `"aof"`.
    pub protocol: String,
    /// Always `1`.
    pub version: u8,
    #[serde(rename = "type")]
    pub kind: MessageKind,
    /// Optional in the seed; real AOF requires it (we write it when known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_relpath: Option<String>,
    pub task_id: String,
    pub from_agent: String,
    pub to_agent: String,
    /// ISO 8601 UTC with `Z`.
    pub sent_at: String,
    pub payload: Payload,
}

impl Envelope {
    /// A fresh envelope with the fixed protocol and version.
    ///
    /// Every envelope amail makes is built here from text it did not
    /// write (mail, handoffs, A2A tasks), so its payload is clipped here,
    /// once, to AOF's size limits ([`Payload::clip_to_limits`]).
    pub fn new(
        mut kind_payload: Payload,
        task_id: impl Into<String>,
        from_agent: impl Into<String>,
        to_agent: impl Into<String>,
        sent_at: impl Into<String>,
    ) -> Envelope {
        kind_payload.clip_to_limits();
        Envelope {
            protocol: "aof".into(),
            version: 1,
            kind: kind_payload.kind(),
            project_id: None,
            task_relpath: None,
            task_id: task_id.into(),
            from_agent: from_agent.into(),
            to_agent: to_agent.into(),
            sent_at: sent_at.into(),
            payload: kind_payload,
        }
    }

    /// Points the envelope at the store's task `task_id` (and, for a
    /// handoff.request, at `parent`, defaulting to the task itself). The
    /// bridge builds envelopes before the router has found their task: every
    /// field that names the task is set here, in one place.
    pub(crate) fn assign_task(&mut self, task_id: &str, parent: Option<&str>) {
        self.task_id = task_id.to_string();
        match &mut self.payload {
            Payload::StatusUpdate(p) => p.task_id = task_id.to_string(),
            Payload::HandoffRequest(p) => {
                p.task_id = task_id.to_string();
                p.parent_task_id = parent.unwrap_or(task_id).to_string();
            }
            Payload::HandoffAck(p) => p.task_id = task_id.to_string(),
            Payload::CompletionReport(_) => {}
        }
    }

    /// One JSON line (the form `amail parse --format aof` prints).
    pub fn to_json_line(&self) -> String {
        // Serialising plain strings, numbers and vectors cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The type-specific payload.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Payload {
    CompletionReport(CompletionReport),
    StatusUpdate(StatusUpdate),
    HandoffRequest(HandoffRequest),
    /// `accepted` tells the two ack types apart when there is no envelope.
    HandoffAck(HandoffAck),
}

impl Payload {
    pub fn kind(&self) -> MessageKind {
        match self {
            Payload::CompletionReport(_) => MessageKind::CompletionReport,
            Payload::StatusUpdate(_) => MessageKind::StatusUpdate,
            Payload::HandoffRequest(_) => MessageKind::HandoffRequest,
            Payload::HandoffAck(a) if a.accepted => MessageKind::HandoffAccepted,
            Payload::HandoffAck(_) => MessageKind::HandoffRejected,
        }
    }
}

/// `done | blocked | needs_review | partial`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Done,
    Blocked,
    NeedsReview,
    Partial,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Done => "done",
            Outcome::Blocked => "blocked",
            Outcome::NeedsReview => "needs_review",
            Outcome::Partial => "partial",
        }
    }

    pub fn parse(s: &str) -> Option<Outcome> {
        [
            Outcome::Done,
            Outcome::Blocked,
            Outcome::NeedsReview,
            Outcome::Partial,
        ]
        .into_iter()
        .find(|o| o.as_str() == s)
    }
}

/// `{total, passed, failed}`, with `passed + failed <= total`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestReport {
    pub total: u64,
    pub passed: u64,
    pub failed: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompletionReport {
    pub outcome: Outcome,
    pub summary_ref: String,
    #[serde(default)]
    pub deliverables: Vec<String>,
    pub tests: TestReport,
    #[serde(default)]
    pub blockers: Vec<String>,
    pub notes: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusUpdate {
    pub task_id: String,
    pub agent_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<TaskStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blockers: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HandoffRequest {
    pub task_id: String,
    pub parent_task_id: String,
    pub from_agent: String,
    pub to_agent: String,
    #[serde(default)]
    pub acceptance_criteria: Vec<String>,
    #[serde(default)]
    pub expected_outputs: Vec<String>,
    #[serde(default)]
    pub context_refs: Vec<String>,
    #[serde(default)]
    pub constraints: Vec<String>,
    pub due_by: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HandoffAck {
    pub task_id: String,
    pub accepted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Payload {
    /// Clips every field to AOF's size limits ([`limits`]): text to its
    /// maximum length, lists to their maximum count. The bridge builds
    /// payloads from mail of any length; AOF rejects an envelope with a
    /// field over its limit (`invalid_envelope`), so what the bridge makes
    /// must fit.
    pub fn clip_to_limits(&mut self) {
        use limits::*;
        let list = |v: &mut Vec<String>, items: usize| {
            v.truncate(items);
            v.iter_mut().for_each(|s| clip(s, LIST_ITEM));
        };
        match self {
            Payload::CompletionReport(c) => {
                clip(&mut c.summary_ref, SUMMARY_REF);
                list(&mut c.deliverables, LIST_ITEMS);
                list(&mut c.blockers, BLOCKERS);
                clip(&mut c.notes, NOTES);
            }
            Payload::StatusUpdate(u) => {
                if let Some(p) = &mut u.progress {
                    clip(p, PROGRESS);
                }
                if let Some(b) = &mut u.blockers {
                    list(b, BLOCKERS);
                }
                if let Some(n) = &mut u.notes {
                    clip(n, NOTES);
                }
            }
            Payload::HandoffRequest(h) => {
                list(&mut h.acceptance_criteria, LIST_ITEMS);
                list(&mut h.expected_outputs, LIST_ITEMS);
                list(&mut h.context_refs, LIST_ITEMS);
                list(&mut h.constraints, LIST_ITEMS);
            }
            Payload::HandoffAck(a) => {
                if let Some(r) = &mut a.reason {
                    clip(r, REASON);
                }
            }
        }
    }
}

/// Size limits of the payload schemas (AOF's SEC-003).
pub mod limits {
    pub(crate) const SUMMARY_REF: usize = 256;
    pub(crate) const LIST_ITEMS: usize = 50;
    pub(crate) const LIST_ITEM: usize = 256;
    pub(crate) const BLOCKERS: usize = 20;
    pub const NOTES: usize = 10_000;
    pub const PROGRESS: usize = 1_000;
    pub(crate) const REASON: usize = 512;
    /// A raw protocol string above this is rejected `payload_too_large`.
    pub(crate) const MAX_ENVELOPE_BYTES: usize = 10 * 1024 * 1024;

    /// A string's length as the limits count it: zod's `.max(n)` checks a
    /// JavaScript string's `length`, in UTF-16 code units, so a character
    /// outside the Basic Multilingual Plane (most emoji) counts two.
    pub(crate) fn len(s: &str) -> usize {
        s.chars().map(char::len_utf16).sum()
    }

    /// Cuts `s` to at most `max` (as [`len`] counts), on a character
    /// boundary (never half a surrogate pair).
    pub(crate) fn clip(s: &mut String, max: usize) {
        let mut units = 0;
        for (i, c) in s.char_indices() {
            units += c.len_utf16();
            if units > max {
                s.truncate(i);
                return;
            }
        }
    }
}
