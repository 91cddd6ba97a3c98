//! Handoff v0.1: one JSON file per task in a `.handoffs/` directory (or
//! `HANDOFF_DIR`), eight fields, and the state machine
//! `offered -> accepted -> completed | failed`, `offered -> rejected`,
//! `failed -> offered` (a re-offer).
//!
//! A file is a snapshot, so a transition is only visible when several
//! snapshots of one task are at hand: a file holding an array (or JSON
//! Lines) of snapshots, or several files naming the same `task_id`. They are
//! ordered by `updated_at`; a step the state machine does not allow is an
//! `impossible_transition` diagnostic on the later snapshot (it is still
//! shown). An `offered` snapshot after a `failed` one is "re-offered"; so is
//! one whose `context.reoffered` is `true`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value};

use super::pos::Places;
use super::{objects, read_objects, Diag, Item, Parsed, Source, Values};

/// The five stored statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HandoffStatus {
    Offered,
    Accepted,
    Completed,
    Failed,
    Rejected,
}

impl HandoffStatus {
    pub fn parse(s: &str) -> Option<HandoffStatus> {
        Some(match s {
            "offered" => HandoffStatus::Offered,
            "accepted" => HandoffStatus::Accepted,
            "completed" => HandoffStatus::Completed,
            "failed" => HandoffStatus::Failed,
            "rejected" => HandoffStatus::Rejected,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            HandoffStatus::Offered => "offered",
            HandoffStatus::Accepted => "accepted",
            HandoffStatus::Completed => "completed",
            HandoffStatus::Failed => "failed",
            HandoffStatus::Rejected => "rejected",
        }
    }
    /// The v0.1 state machine (a repeated snapshot of one status is fine).
    pub fn can_go_to(self, to: HandoffStatus) -> bool {
        use HandoffStatus::*;
        self == to
            || matches!(
                (self, to),
                (Offered, Accepted)
                    | (Offered, Rejected)
                    | (Accepted, Completed)
                    | (Accepted, Failed)
                    | (Failed, Offered)
            )
    }
}

/// One validated handoff snapshot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Handoff {
    pub protocol: &'static str,
    pub task_id: String,
    pub from_agent: String,
    /// `None`: anyone may take it.
    pub to_agent: Option<String>,
    pub status: HandoffStatus,
    /// `offered` again after a failure.
    pub reoffered: bool,
    pub description: String,
    pub context: Map<String, Value>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    #[serde(skip)]
    pub source: Source,
    /// Byte offset of the object in its file (for diagnostics).
    #[serde(skip)]
    pub offset: usize,
}

impl Handoff {
    /// The state shown: the status, or `re-offered`.
    pub fn state(&self) -> &'static str {
        if self.reoffered && self.status == HandoffStatus::Offered {
            "re-offered"
        } else {
            self.status.as_str()
        }
    }
}

/// A mailbox's handoff folder, by the protocol's name for it.
pub const DIR_NAME: &str = ".handoffs";

/// The directory to read: `HANDOFF_DIR` (relative to `root`) when set,
/// else `root/.handoffs`.
pub fn dir_for(root: &Path, env: Option<&std::ffi::OsStr>) -> PathBuf {
    match env.filter(|e| !e.is_empty()) {
        Some(d) => root.join(d),
        None => root.join(DIR_NAME),
    }
}

/// Reads one file's snapshots without checking transitions.
pub fn read(path: &str, text: &str) -> Parsed {
    read_values(path, text, objects(text))
}

/// [`read`] of a file whose values are read already.
pub(crate) fn read_values(path: &str, text: &str, values: Values) -> Parsed {
    let mut out = Parsed::default();
    let mut places = Places::new(text);
    for o in read_objects(path, values, &mut out) {
        match one(path, &mut places, o.offset, o.line, &o.value) {
            Ok(h) => out.items.push(Item::Handoff(h)),
            Err(d) => out.diags.extend(d),
        }
    }
    out
}

/// Reads one file and checks transitions within it.
pub fn parse(path: &str, text: &str) -> Parsed {
    let mut p = read(path, text);
    check_transitions(&mut p);
    p
}

fn one(
    path: &str,
    places: &mut Places,
    offset: usize,
    line: u32,
    v: &Value,
) -> Result<Handoff, Vec<Diag>> {
    let Some(o) = v.as_object() else {
        let (line, column) = places.at(offset);
        return Err(vec![Diag {
            path: path.into(),
            line,
            column,
            code: "schema",
            message: "a handoff must be a JSON object".into(),
        }]);
    };
    let mut diags = Vec::new();
    let mut err = |key: &str, code: &'static str, message: String| {
        let (line, column) = places.key(offset, key);
        diags.push(Diag {
            path: path.into(),
            line,
            column,
            code,
            message,
        });
    };
    let mut string = |key: &str, required: bool| -> Option<String> {
        match o.get(key) {
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
            None | Some(Value::Null) if !required => None,
            Some(Value::String(_)) if !required => None,
            None => {
                err(key, "schema", format!("required field `{key}` is missing"));
                None
            }
            Some(_) => {
                err(key, "schema", format!("`{key}` must be a non-empty string"));
                None
            }
        }
    };
    let task_id = string("task_id", true);
    let from_agent = string("from_agent", true);
    let to_agent = string("to_agent", false);
    let description = string("description", true);
    let status_text = string("status", true);
    let created = string("created_at", true);
    let updated = string("updated_at", true);
    let status = status_text.as_deref().and_then(|s| {
        let st = HandoffStatus::parse(s);
        if st.is_none() {
            err(
                "status",
                "schema",
                format!(
                    "status `{s}` is not one of offered, accepted, completed, failed, rejected"
                ),
            );
        }
        st
    });
    let mut time = |key: &str, s: Option<String>| {
        s.and_then(|s| match parse_time(&s) {
            Some(t) => Some(t),
            None => {
                err(
                    key,
                    "schema",
                    format!("`{key}` is not an ISO 8601 time: {s:?}"),
                );
                None
            }
        })
    };
    let created_at = time("created_at", created);
    let updated_at = time("updated_at", updated);
    let context = match o.get("context") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => {
            err("context", "schema", "`context` must be an object".into());
            Map::new()
        }
    };
    if let (Some(c), Some(u)) = (created_at, updated_at) {
        if u < c {
            err(
                "updated_at",
                "schema",
                "`updated_at` is before `created_at`".into(),
            );
        }
    }
    match (
        task_id,
        from_agent,
        description,
        status,
        created_at,
        updated_at,
    ) {
        (Some(task_id), Some(from_agent), Some(description), Some(status), Some(c), Some(u))
            if diags.is_empty() =>
        {
            let reoffered = context.get("reoffered") == Some(&Value::Bool(true));
            Ok(Handoff {
                protocol: "handoff/0.1",
                task_id,
                from_agent,
                to_agent,
                status,
                reoffered,
                description,
                context,
                created_at: c,
                updated_at: u,
                source: Source {
                    path: path.into(),
                    line,
                },
                offset,
            })
        }
        _ => Err(diags),
    }
}

pub(crate) fn parse_time(s: &str) -> Option<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    // Python's isoformat() without an offset: read as UTC.
    chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f")
        .ok()
        .map(|n| n.and_utc())
}

/// Orders each task's snapshots by `updated_at`, marks re-offers and
/// reports impossible transitions, each at its later snapshot's line.
pub(crate) fn check_transitions(p: &mut Parsed) {
    let mut by_task: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, it) in p.items.iter().enumerate() {
        if let Item::Handoff(h) = it {
            by_task.entry(h.task_id.clone()).or_default().push(i);
        }
    }
    for idx in by_task.values_mut() {
        idx.sort_by_key(|&i| match &p.items[i] {
            Item::Handoff(h) => (h.updated_at, h.source.path.clone(), h.source.line),
            _ => (DateTime::<Utc>::MIN_UTC, String::new(), 0),
        });
        for w in idx.windows(2) {
            let (Item::Handoff(a), Item::Handoff(b)) = (&p.items[w[0]], &p.items[w[1]]) else {
                continue;
            };
            let (from, to) = (a.status, b.status);
            let (path, line) = (b.source.path.clone(), b.source.line);
            if from == HandoffStatus::Failed && to == HandoffStatus::Offered {
                if let Item::Handoff(b) = &mut p.items[w[1]] {
                    b.reoffered = true;
                }
            } else if !from.can_go_to(to) {
                p.diags.push(Diag {
                    path,
                    line,
                    column: 1,
                    code: "impossible_transition",
                    message: format!(
                        "task {}: {} -> {} is not in the handoff v0.1 state machine (offered -> accepted -> completed|failed, offered -> rejected, failed -> offered)",
                        b.task_id,
                        from.as_str(),
                        to.as_str()
                    ),
                });
            }
        }
    }
}
