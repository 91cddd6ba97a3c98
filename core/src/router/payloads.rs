//! Every event payload the router logs, one struct each, with its fields
//! declared in the order AOF's code builds that payload (reference §2.3,
//! §3, §4): AOF writes `JSON.stringify` of an object literal, so a key's
//! place in the line is its place in the literal. `Txn::log` takes only
//! these ([`Logged`]), so a payload cannot be built as a `json!` map,
//! which would sort its keys.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::aof::detect::{Rejection, RejectionDetail};

/// A payload, and the event type it is logged under.
pub(crate) trait Logged: Serialize {
    const TYPE: &'static str;
}

macro_rules! logged {
    ($($ty:ident => $name:literal),* $(,)?) => {
        $(impl Logged for $ty<'_> {
            const TYPE: &'static str = $name;
        })*
    };
}

/// `{type}`
#[derive(Serialize)]
pub(crate) struct Received<'a> {
    #[serde(rename = "type")]
    pub kind: &'a str,
}

/// `{type}`
#[derive(Serialize)]
pub(crate) struct Unknown<'a> {
    #[serde(rename = "type")]
    pub kind: &'a str,
}

/// `{reason, summaryRef}`
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Warning<'a> {
    pub reason: &'a str,
    pub summary_ref: &'a str,
}

/// `{from, to, reason?}` (AOF's `logTransition`; an absent reason is
/// `undefined`, which `JSON.stringify` leaves out).
#[derive(Serialize)]
pub(crate) struct Transitioned<'a> {
    pub from: &'a str,
    pub to: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
}

/// `{agent}`
#[derive(Serialize)]
pub(crate) struct Assigned<'a> {
    pub agent: &'a str,
}

/// `{outcome}`
#[derive(Serialize)]
pub(crate) struct Completed<'a> {
    pub outcome: &'a str,
}

/// `{title, status, beadId}` (amail's: AOF's store logs no creation).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Created<'a> {
    pub title: &'a str,
    pub status: &'a str,
    pub bead_id: &'a str,
}

/// `{changes: {title: {from, to}}}`: AOF's `updateTask` records each
/// patched field as its old and new value.
#[derive(Serialize)]
pub(crate) struct Updated<'a> {
    pub changes: TitleChange<'a>,
}

#[derive(Serialize)]
pub(crate) struct TitleChange<'a> {
    pub title: FromTo<'a>,
}

#[derive(Serialize)]
pub(crate) struct FromTo<'a> {
    pub from: &'a str,
    pub to: &'a str,
}

/// `{reason}`
#[derive(Serialize)]
pub(crate) struct Blocked<'a> {
    pub reason: &'a str,
}

/// `{taskId, blockerId}`
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DepAdded<'a> {
    pub task_id: &'a str,
    pub blocker_id: &'a str,
}

/// `{parentTaskId, toAgent}`
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DelegationRequested<'a> {
    pub parent_task_id: &'a str,
    pub to_agent: &'a str,
}

/// `{}`
#[derive(Serialize)]
pub(crate) struct DelegationAccepted {}

impl Logged for DelegationAccepted {
    const TYPE: &'static str = "delegation.accepted";
}

/// `{reason}`
#[derive(Serialize)]
pub(crate) struct DelegationRejected<'a> {
    pub reason: &'a str,
}

/// `{trigger, action: "promote", count, promoted, skipped}`
#[derive(Serialize)]
pub(crate) struct CascadedPromote<'a> {
    pub trigger: &'a str,
    pub action: &'a str,
    pub count: usize,
    pub promoted: &'a [String],
    pub skipped: &'a [String],
}

/// `{trigger, action: "block", count, blocked}`
#[derive(Serialize)]
pub(crate) struct CascadedBlock<'a> {
    pub trigger: &'a str,
    pub action: &'a str,
    pub count: usize,
    pub blocked: &'a [String],
}

logged! {
    Received => "protocol.message.received",
    Unknown => "protocol.message.unknown",
    Warning => "protocol.message.warning",
    Transitioned => "task.transitioned",
    Assigned => "task.assigned",
    Completed => "task.completed",
    Created => "task.created",
    Updated => "task.updated",
    Blocked => "task.blocked",
    DepAdded => "task.dep.added",
    DelegationRequested => "delegation.requested",
    DelegationRejected => "delegation.rejected",
    CascadedPromote => "dependency.cascaded",
    CascadedBlock => "dependency.cascaded",
}

impl Logged for Rejection {
    const TYPE: &'static str = "protocol.message.rejected";
}

/// `{reason, ...}`: AOF puts the reason first in every rejection, then
/// what the rejection names (reference §2.3 and the router's table).
impl Serialize for Rejection {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("reason", self.reason)?;
        match &self.detail {
            RejectionDetail::None => {}
            RejectionDetail::PayloadTooLarge { max_bytes } => {
                m.serialize_entry("maxBytes", max_bytes)?;
            }
            RejectionDetail::InvalidJson { source, error } => {
                m.serialize_entry("source", source)?;
                m.serialize_entry("error", error)?;
            }
            RejectionDetail::InvalidEnvelope { errors } => {
                m.serialize_entry("errors", errors)?;
            }
            RejectionDetail::Project {
                project_id,
                bead_id,
            } => {
                // An envelope without `projectId` (AOF requires one) has
                // none to name: left out, as JavaScript leaves `undefined`.
                if let Some(p) = project_id {
                    m.serialize_entry("projectId", p)?;
                }
                if let Some(b) = bead_id {
                    m.serialize_entry("beadId", b)?;
                }
            }
            RejectionDetail::InvalidTransition { from, to, outcome } => {
                m.serialize_entry("from", from)?;
                m.serialize_entry("to", to)?;
                m.serialize_entry("outcome", outcome)?;
            }
        }
        m.end()
    }
}
