//! A2A task messages as JSON: `TaskMessage`, `TaskProgress`, `TaskResult`
//! (bare, or wrapped as `{"task": ..}`, `{"progress": ..}`, `{"result": ..}`
//! like the Publish*Request messages), with the `Priority` and `TaskStatus`
//! enums by name (`PRIORITY_HIGH`, `HIGH`, `high`) or number.
//!
//! Which message an object is comes from its fields: `task_type` or
//! `requester_agent_id` -> TaskMessage; `completed_at` -> TaskResult;
//! `executor_agent_id` otherwise -> TaskProgress.
//!
//! Transitions per task (messages ordered by time; a TaskMessage is
//! PENDING) follow the reference's rules: PENDING -> IN_PROGRESS ->
//! COMPLETED | FAILED | CANCELLED, PENDING -> CANCELLED, repeated
//! PENDING or IN_PROGRESS updates; nothing goes back to PENDING and COMPLETED, FAILED
//! and CANCELLED are final. Anything else is an `invalid_transition`.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value};

use super::handoff::parse_time;
use super::pos::Places;
use super::{objects, read_objects, Diag, Item, Parsed, Source, Values};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum A2aKind {
    TaskMessage,
    TaskProgress,
    TaskResult,
}

impl A2aKind {
    /// The synthetic `raw_type` in the inbox.
    pub fn raw_type(self) -> &'static str {
        match self {
            A2aKind::TaskMessage => "A2A_TASK",
            A2aKind::TaskProgress => "A2A_PROGRESS",
            A2aKind::TaskResult => "A2A_RESULT",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Priority {
    Unspecified,
    Low,
    Medium,
    High,
    Critical,
}

impl Priority {
    const NAMES: [&'static str; 5] = ["UNSPECIFIED", "LOW", "MEDIUM", "HIGH", "CRITICAL"];
    const ALL: [Priority; 5] = [
        Priority::Unspecified,
        Priority::Low,
        Priority::Medium,
        Priority::High,
        Priority::Critical,
    ];
    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }
    /// UNSPECIFIED is treated as MEDIUM.
    pub(crate) fn effective(self) -> Priority {
        if self == Priority::Unspecified {
            Priority::Medium
        } else {
            self
        }
    }
    /// AOF's task priority word.
    pub fn aof(self) -> &'static str {
        match self.effective() {
            Priority::Low => "low",
            Priority::High => "high",
            Priority::Critical => "critical",
            _ => "normal",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum A2aStatus {
    Unspecified,
    Pending,
    InProgress,
    Completed,
    Failed,
    Cancelled,
}

impl A2aStatus {
    const NAMES: [&'static str; 6] = [
        "UNSPECIFIED",
        "PENDING",
        "IN_PROGRESS",
        "COMPLETED",
        "FAILED",
        "CANCELLED",
    ];
    const ALL: [A2aStatus; 6] = [
        A2aStatus::Unspecified,
        A2aStatus::Pending,
        A2aStatus::InProgress,
        A2aStatus::Completed,
        A2aStatus::Failed,
        A2aStatus::Cancelled,
    ];
    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }
    pub(crate) fn is_final(self) -> bool {
        matches!(
            self,
            A2aStatus::Completed | A2aStatus::Failed | A2aStatus::Cancelled
        )
    }
    /// The reference's transition rules; `None` when allowed, else why not.
    pub fn transition_error(self, to: A2aStatus) -> Option<&'static str> {
        use A2aStatus::*;
        match (self, to) {
            (Pending, Pending | InProgress | Cancelled) | (InProgress, InProgress) => None,
            (InProgress, Completed | Failed | Cancelled) => None,
            (_, Pending) => Some("no status may go back to PENDING"),
            (Completed, _) => Some("COMPLETED is final"),
            (Failed, _) => Some("FAILED is final (a retry is a new task)"),
            (Cancelled, _) => Some("CANCELLED is final"),
            (Pending, Completed | Failed) => Some("a task must be IN_PROGRESS before it ends"),
            _ => Some("not an allowed transition"),
        }
    }
}

/// An enum by name (with or without its prefix, any case) or by number.
fn enum_value(v: &Value, prefix: &str, names: &[&str]) -> Option<usize> {
    match v {
        Value::Number(n) => n.as_u64().map(|n| n as usize).filter(|&n| n < names.len()),
        Value::String(s) => {
            let up = s.trim().to_ascii_uppercase().replace(['-', ' '], "_");
            let bare = up.strip_prefix(prefix).unwrap_or(&up);
            names.iter().position(|n| *n == bare)
        }
        _ => None,
    }
}

/// One A2A message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct A2aItem {
    pub protocol: &'static str,
    pub message: A2aKind,
    pub task_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_type: Option<String>,
    /// Requester (TaskMessage) or executor (progress, result).
    pub agent: String,
    /// TaskMessage's responder (None: broadcast).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub responder: Option<String>,
    pub status: A2aStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<Priority>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress_percentage: Option<u8>,
    /// progress_message or error_message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// parameters, progress_data or result.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub data: Map<String, Value>,
    pub at: DateTime<Utc>,
    #[serde(skip)]
    pub source: Source,
}

/// The message object and its kind, unwrapping Publish*Request wrappers.
pub fn unwrap(v: &Value) -> Option<(A2aKind, &Map<String, Value>)> {
    let o = v.as_object()?;
    for (k, kind) in [
        ("task", A2aKind::TaskMessage),
        ("progress", A2aKind::TaskProgress),
        ("result", A2aKind::TaskResult),
    ] {
        if o.len() == 1 {
            if let Some(Value::Object(inner)) = o.get(k) {
                if inner.contains_key("task_id") {
                    return Some((kind, inner));
                }
            }
        }
    }
    if !o.contains_key("task_id") {
        return None;
    }
    if o.contains_key("task_type") || o.contains_key("requester_agent_id") {
        Some((A2aKind::TaskMessage, o))
    } else if o.contains_key("completed_at") {
        Some((A2aKind::TaskResult, o))
    } else if o.contains_key("executor_agent_id") {
        Some((A2aKind::TaskProgress, o))
    } else {
        None
    }
}

/// Reads one file's messages without checking transitions.
pub fn read(path: &str, text: &str) -> Parsed {
    read_values(path, text, objects(text))
}

/// [`read`] of a file whose values are read already.
pub(crate) fn read_values(path: &str, text: &str, values: Values) -> Parsed {
    let mut out = Parsed::default();
    let mut places = Places::new(text);
    for o in read_objects(path, values, &mut out) {
        let Some((kind, m)) = unwrap(&o.value) else {
            let (line, column) = places.at(o.offset);
            out.diags.push(Diag {
                path: path.into(),
                line,
                column,
                code: "schema",
                message: "not a TaskMessage, TaskProgress or TaskResult".into(),
            });
            continue;
        };
        // A wrapped message's fields lie one level in, in its wrapper's value.
        let at = match o.value.as_object() {
            Some(outer) if !std::ptr::eq(outer, m) => outer
                .keys()
                .next()
                .map_or(o.offset, |k| places.value_of(o.offset, k)),
            _ => o.offset,
        };
        match one(path, &mut places, at, o.line, kind, m) {
            Ok(a) => out.items.push(Item::A2a(a)),
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
    kind: A2aKind,
    o: &Map<String, Value>,
) -> Result<A2aItem, Vec<Diag>> {
    let mut diags = Vec::new();
    let mut err = |key: &str, message: String| {
        let (line, column) = places.key(offset, key);
        diags.push(Diag {
            path: path.into(),
            line,
            column,
            code: "schema",
            message,
        });
    };
    let mut string = |key: &str, required: bool| -> Option<String> {
        match o.get(key) {
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
            None | Some(Value::Null) | Some(Value::String(_)) if !required => None,
            None => {
                err(key, format!("required field `{key}` is missing"));
                None
            }
            Some(_) => {
                err(key, format!("`{key}` must be a non-empty string"));
                None
            }
        }
    };
    let task_id = string("task_id", true);
    let (agent_key, time_key) = match kind {
        A2aKind::TaskMessage => ("requester_agent_id", "created_at"),
        A2aKind::TaskProgress => ("executor_agent_id", "updated_at"),
        A2aKind::TaskResult => ("executor_agent_id", "completed_at"),
    };
    let agent = string(agent_key, true);
    let task_type = string("task_type", kind == A2aKind::TaskMessage);
    let responder = string("responder_agent_id", false);
    let text_field = match kind {
        A2aKind::TaskProgress => string("progress_message", false),
        A2aKind::TaskResult => string("error_message", false),
        A2aKind::TaskMessage => None,
    };
    let mut time = |key: &str, required: bool| -> Option<DateTime<Utc>> {
        match o.get(key) {
            None | Some(Value::Null) if !required => None,
            None => {
                err(key, format!("required field `{key}` is missing"));
                None
            }
            Some(Value::String(s)) => {
                let t = parse_time(s);
                if t.is_none() {
                    err(key, format!("`{key}` is not an RFC 3339 timestamp: {s:?}"));
                }
                t
            }
            Some(Value::Object(ts)) => {
                let secs = ts.get("seconds").and_then(|s| {
                    s.as_i64()
                        .or_else(|| s.as_str().and_then(|s| s.parse().ok()))
                });
                let nanos = ts.get("nanos").and_then(Value::as_u64).unwrap_or(0) as u32;
                let t = secs.and_then(|s| DateTime::from_timestamp(s, nanos));
                if t.is_none() {
                    err(key, format!("`{key}` is not a timestamp"));
                }
                t
            }
            Some(_) => {
                err(key, format!("`{key}` is not a timestamp"));
                None
            }
        }
    };
    let at = time(time_key, true);
    let deadline = time("deadline", false);
    let status = if kind == A2aKind::TaskMessage {
        Some(A2aStatus::Pending)
    } else {
        match o.get("status") {
            None | Some(Value::Null) => {
                err("status", "required field `status` is missing".into());
                None
            }
            Some(v) => match enum_value(v, "TASK_STATUS_", &A2aStatus::NAMES) {
                Some(0) | None => {
                    err("status", format!("status {v} is not a valid TaskStatus"));
                    None
                }
                Some(n) => Some(A2aStatus::ALL[n]),
            },
        }
    };
    if let (A2aKind::TaskResult, Some(s)) = (kind, status) {
        if !s.is_final() {
            err(
                "status",
                format!("a TaskResult carries a final status, not {}", s.as_str()),
            );
        }
    }
    let priority = match o.get("priority") {
        None | Some(Value::Null) => None,
        Some(v) => match enum_value(v, "PRIORITY_", &Priority::NAMES) {
            Some(n) => Some(Priority::ALL[n]),
            None => {
                err("priority", format!("priority {v} is not a Priority"));
                None
            }
        },
    };
    let progress_percentage = match o.get("progress_percentage") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_i64() {
            Some(p @ 0..=100) => Some(p as u8),
            _ => {
                err(
                    "progress_percentage",
                    format!("progress_percentage {v} is not an integer 0..=100"),
                );
                None
            }
        },
    };
    let data_key = match kind {
        A2aKind::TaskMessage => "parameters",
        A2aKind::TaskProgress => "progress_data",
        A2aKind::TaskResult => "result",
    };
    let data = match o.get(data_key) {
        Some(Value::Object(m)) => m.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(_) => {
            err(data_key, format!("`{data_key}` must be an object"));
            Map::new()
        }
    };
    match (task_id, agent, status, at) {
        (Some(task_id), Some(agent), Some(status), Some(at)) if diags.is_empty() => Ok(A2aItem {
            protocol: "a2a",
            message: kind,
            task_id,
            task_type,
            agent,
            responder,
            status,
            priority,
            deadline,
            progress_percentage,
            text: text_field,
            data,
            at,
            source: Source {
                path: path.into(),
                line,
            },
        }),
        _ => Err(diags),
    }
}

/// Checks each task's status sequence (ordered by time, a TaskMessage
/// first on ties); invalid steps are reported, the messages still shown.
pub(crate) fn check_transitions(p: &mut Parsed) {
    let mut by_task: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, it) in p.items.iter().enumerate() {
        if let Item::A2a(a) = it {
            by_task.entry(a.task_id.clone()).or_default().push(i);
        }
    }
    for idx in by_task.values_mut() {
        let key = |i: usize| match &p.items[i] {
            Item::A2a(a) => (a.at, a.message != A2aKind::TaskMessage, a.source.line),
            _ => (DateTime::<Utc>::MIN_UTC, true, 0),
        };
        idx.sort_by_key(|&i| key(i));
        for w in idx.windows(2) {
            let (Item::A2a(a), Item::A2a(b)) = (&p.items[w[0]], &p.items[w[1]]) else {
                continue;
            };
            if let Some(why) = a.status.transition_error(b.status) {
                p.diags.push(Diag {
                    path: b.source.path.clone(),
                    line: b.source.line,
                    column: 1,
                    code: "invalid_transition",
                    message: format!(
                        "task {}: {} -> {}: {why}",
                        b.task_id,
                        a.status.as_str(),
                        b.status.as_str()
                    ),
                });
            }
        }
    }
}
