//! [`Routable`]: everything the router needs to route one input, and
//! nothing it would have to look up in the input's own format.
//!
//! The router knows AOF/1 and its task store; it must not know Agent Mail,
//! handoff files or A2A JSON. So each bridge turns its input into a
//! `Routable`: the envelope (its task ids still unassigned when the task is
//! found by bead), which task it is about and how to create that task if
//! the store has none, the key that makes routing it twice a no-op, and the
//! few extras an envelope cannot carry. The router has one entry,
//! `Router::route(&Routable)`, and one transaction tail for all of them.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::detect::Rejection;
use super::envelope::Envelope;

/// One input, ready to route.
#[derive(Debug, Clone, PartialEq)]
pub enum Routable {
    /// An envelope to apply to a task.
    Deliver(Box<Delivery>),
    /// An AOF/1 input that failed validation: logged as
    /// `protocol.message.rejected`.
    Rejected(Rejection),
    /// A well-formed AOF/1 input of a type the protocol does not define:
    /// logged once per key as `protocol.message.unknown`.
    Unknown {
        key: Option<String>,
        kind: String,
        task_id: Option<String>,
    },
    /// Nothing for the task store (chat, a plain reply, a type the bridge
    /// does not map): the message stays in the inbox only.
    Ignored,
}

impl Routable {
    /// An envelope that names its own task (AOF/1 input), deduped by `key`,
    /// with the completion summary an envelope cannot carry.
    pub fn named(envelope: Envelope, key: Option<String>, summary: Option<String>) -> Routable {
        Routable::Deliver(Box::new(Delivery {
            key,
            task: TaskRef::Named,
            envelope,
            follow_up: None,
            summary,
            unblocks: false,
            title: None,
        }))
    }
}

/// An envelope and what the router needs around it.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    /// Dedupe key: an input whose key was routed before is a `Duplicate`.
    pub key: Option<String>,
    /// Which task the envelope is about.
    pub task: TaskRef,
    pub envelope: Envelope,
    /// A second envelope for the same task, applied after the first in the
    /// same transaction when the first was routed (a handoff accepted also
    /// starts the task).
    pub follow_up: Option<Envelope>,
    /// Text for `outputs/summary.md` (completion reports).
    pub summary: Option<String>,
    /// An answer to a help request: a status.update without a status moves a
    /// `blocked` task back to `ready`.
    pub unblocks: bool,
    /// The task's title, when this input knows it for certain (Agent
    /// Mail's BEAD_ACCEPTED states it): a bead's existing task titled
    /// otherwise takes it (`task.updated`). Without it, `new_task.title`
    /// titles a new task, and replaces only a placeholder (a title that is
    /// just the bead id).
    pub title: Option<String>,
}

/// How the router finds the envelope's task. (It lives inside the boxed
/// [`Delivery`]; boxing the large variant again would only add an
/// allocation per message.)
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum TaskRef {
    /// The envelope names its task (AOF/1 input): used as it is.
    Named,
    /// The task of a bead (an Agent Mail bead, a handoff or A2A task id),
    /// through the store's bead index; created when the store has none and
    /// creation is on. `parent` is the bead of a handoff.request's parent,
    /// resolved (and created) the same way.
    Bead {
        bead: String,
        new_task: NewTask,
        parent: Option<(String, NewTask)>,
    },
}

/// The task to create for a bead the store does not know.
#[derive(Debug, Clone, PartialEq)]
pub struct NewTask {
    pub title: String,
    /// `routing.agent`: who works on it.
    pub agent: Option<String>,
    /// Who the `task.created` event names.
    pub actor: String,
    /// The day its id is dated by.
    pub day: DateTime<Utc>,
    /// `createdAt` / `updatedAt`, as the input gives its time.
    pub created_at: String,
    pub project: Option<String>,
    /// AOF `priority` (default `normal`).
    pub priority: Option<String>,
    /// Extra `metadata` entries beside `beadId`, in order.
    pub metadata: Vec<(String, Value)>,
}
