//! Envelope validation, equivalent to the seed's zod schemas.
//!
//! Every problem is collected (not just the first), each as a short message
//! prefixed with its JSON path, e.g. `payload.tests: passed + failed must not
//! exceed total`. Where the seed and real AOF differ the seed wins and the
//! difference is noted at the check.

use serde_json::{Map, Value};

use super::envelope::*;
use super::status::TaskStatus;
use super::task_id::is_valid_task_id;

/// What a structurally valid envelope turned out to be.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Validated {
    Envelope(Envelope),
    /// Well-formed but of a type AOF/1 does not know: the seed logs these as
    /// `protocol.message.unknown` (real AOF folds them into
    /// `invalid_envelope`; we follow the seed).
    UnknownType {
        kind: String,
        task_id: Option<String>,
        from_agent: Option<String>,
    },
}

/// Whether `s` is an ISO 8601 UTC datetime with a `Z` suffix
/// (`2026-02-09T21:00:00Z`, fractional seconds optional; offsets rejected).
pub(crate) fn is_utc_datetime(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 20 || b[b.len() - 1] != b'Z' || b[10] != b'T' {
        return false;
    }
    if b.len() > 20 {
        // Fractional part: `.` then at least one digit.
        let frac = &b[19..b.len() - 1];
        if frac.len() < 2 || frac[0] != b'.' || !frac[1..].iter().all(u8::is_ascii_digit) {
            return false;
        }
    }
    chrono::DateTime::parse_from_rfc3339(s).is_ok()
}

struct Checker<'a> {
    errors: Vec<String>,
    obj: &'a Map<String, Value>,
    prefix: &'static str,
}

impl<'a> Checker<'a> {
    fn err(&mut self, field: &str, msg: impl AsRef<str>) {
        self.errors
            .push(format!("{}{}: {}", self.prefix, field, msg.as_ref()));
    }

    fn string(&mut self, field: &str, required: bool, max: Option<usize>) -> Option<String> {
        match self.obj.get(field) {
            None => {
                if required {
                    self.err(field, "Required");
                }
                None
            }
            Some(Value::String(s)) => {
                if let Some(max) = max {
                    if limits::len(s) > max {
                        self.err(
                            field,
                            format!("String must contain at most {max} character(s)"),
                        );
                        return None;
                    }
                }
                Some(s.clone())
            }
            Some(other) => {
                self.err(
                    field,
                    format!("Expected string, received {}", type_name(other)),
                );
                None
            }
        }
    }

    fn task_id(&mut self, field: &str) -> Option<String> {
        let s = self.string(field, true, None)?;
        if is_valid_task_id(&s) {
            Some(s)
        } else {
            self.err(field, "Invalid task id");
            None
        }
    }

    fn datetime(&mut self, field: &str) -> Option<String> {
        let s = self.string(field, true, None)?;
        if is_utc_datetime(&s) {
            Some(s)
        } else {
            self.err(field, "Invalid datetime");
            None
        }
    }

    /// An optional list of strings (default `[]`) with item count and
    /// item length limits.
    /// (zod's `.optional()` is "absent", so a `null` is a type error, as
    /// for [`Checker::string`].)
    fn list(&mut self, field: &str, max_items: usize, max_len: usize) -> Option<Vec<String>> {
        match self.obj.get(field) {
            None => None,
            Some(Value::Array(items)) => {
                if items.len() > max_items {
                    self.err(
                        field,
                        format!("Array must contain at most {max_items} element(s)"),
                    );
                    return None;
                }
                let mut out = Vec::with_capacity(items.len());
                for (i, it) in items.iter().enumerate() {
                    match it {
                        Value::String(s) if limits::len(s) <= max_len => out.push(s.clone()),
                        Value::String(_) => self.err(
                            &format!("{field}[{i}]"),
                            format!("String must contain at most {max_len} character(s)"),
                        ),
                        other => self.err(
                            &format!("{field}[{i}]"),
                            format!("Expected string, received {}", type_name(other)),
                        ),
                    }
                }
                Some(out)
            }
            Some(other) => {
                self.err(
                    field,
                    format!("Expected array, received {}", type_name(other)),
                );
                None
            }
        }
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Validates a JSON value as an AOF/1 envelope.
pub fn envelope_from_value(v: &Value) -> Result<Validated, Vec<String>> {
    let Some(obj) = v.as_object() else {
        return Err(vec![format!("Expected object, received {}", type_name(v))]);
    };
    let mut c = Checker {
        errors: Vec::new(),
        obj,
        prefix: "",
    };
    match obj.get("protocol") {
        Some(Value::String(s)) if s == "aof" => {}
        None => c.err("protocol", "Required"),
        Some(_) => c.err("protocol", "Invalid literal value, expected \"aof\""),
    }
    match obj.get("version") {
        // A JavaScript number: `1.0` is 1 to z.literal(1).
        Some(Value::Number(n)) if n.as_f64() == Some(1.0) => {}
        None => c.err("version", "Required"),
        Some(_) => c.err("version", "Invalid literal value, expected 1"),
    }
    // `project_id` is accepted as an alias of `projectId`. Real AOF requires
    // a project id; the seed's envelope table does not list one, so it is
    // optional here.
    let project_id = match obj.get("projectId").or_else(|| obj.get("project_id")) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            c.err(
                "projectId",
                format!("Expected string, received {}", type_name(other)),
            );
            None
        }
    };
    let task_relpath = c.string("taskRelpath", false, None);
    let task_id = c.task_id("taskId");
    let from_agent = c.string("fromAgent", true, None);
    let to_agent = c.string("toAgent", true, None);
    let sent_at = c.datetime("sentAt");
    let kind_text = c.string("type", true, None);
    let payload_obj = match obj.get("payload") {
        Some(Value::Object(p)) => Some(p),
        None | Some(Value::Null) => {
            c.err("payload", "Required");
            None
        }
        Some(other) => {
            c.err(
                "payload",
                format!("Expected object, received {}", type_name(other)),
            );
            None
        }
    };
    let mut errors = c.errors;
    let Some(kind_text) = kind_text else {
        return Err(errors);
    };
    let Some(kind) = MessageKind::parse(&kind_text) else {
        if errors.is_empty() {
            return Ok(Validated::UnknownType {
                kind: kind_text,
                task_id,
                from_agent,
            });
        }
        return Err(errors);
    };
    let payload = payload_obj.and_then(|p| match payload_from_object(kind, p) {
        Ok(p) => Some(p),
        Err(mut e) => {
            errors.append(&mut e);
            None
        }
    });
    if !errors.is_empty() {
        return Err(errors);
    }
    match (task_id, from_agent, to_agent, sent_at, payload) {
        (Some(task_id), Some(from_agent), Some(to_agent), Some(sent_at), Some(payload)) => {
            Ok(Validated::Envelope(Envelope {
                protocol: "aof".into(),
                version: 1,
                kind,
                project_id,
                task_relpath,
                task_id,
                from_agent,
                to_agent,
                sent_at,
                payload,
            }))
        }
        _ => Err(vec!["Invalid envelope".into()]),
    }
}

/// Validates a payload object for a known type.
pub(crate) fn payload_from_object(
    kind: MessageKind,
    p: &Map<String, Value>,
) -> Result<Payload, Vec<String>> {
    let mut c = Checker {
        errors: Vec::new(),
        obj: p,
        prefix: "payload.",
    };
    let payload = match kind {
        MessageKind::CompletionReport => {
            let outcome = match c.string("outcome", true, None) {
                Some(s) => match Outcome::parse(&s) {
                    Some(o) => Some(o),
                    None => {
                        c.err(
                            "outcome",
                            "Invalid enum value. Expected 'done' | 'blocked' | 'needs_review' | 'partial'",
                        );
                        None
                    }
                },
                None => None,
            };
            let summary_ref = c.string("summaryRef", true, Some(limits::SUMMARY_REF));
            let deliverables = c.list("deliverables", limits::LIST_ITEMS, limits::LIST_ITEM);
            let tests = tests_report(&mut c);
            let blockers = c.list("blockers", limits::BLOCKERS, limits::LIST_ITEM);
            let notes = c.string("notes", true, Some(limits::NOTES));
            match (outcome, summary_ref, tests, notes) {
                (Some(outcome), Some(summary_ref), Some(tests), Some(notes)) => {
                    Some(Payload::CompletionReport(CompletionReport {
                        outcome,
                        summary_ref,
                        deliverables: deliverables.unwrap_or_default(),
                        tests,
                        blockers: blockers.unwrap_or_default(),
                        notes,
                    }))
                }
                _ => None,
            }
        }
        MessageKind::StatusUpdate => {
            let task_id = c.task_id("taskId");
            let agent_id = c.string("agentId", true, None);
            let status = match c.string("status", false, None) {
                Some(s) => match TaskStatus::parse(&s) {
                    Some(st) => Some(st),
                    None => {
                        c.err("status", "Invalid enum value");
                        None
                    }
                },
                None => None,
            };
            let progress = c.string("progress", false, Some(limits::PROGRESS));
            let blockers = c.list("blockers", limits::BLOCKERS, limits::LIST_ITEM);
            let notes = c.string("notes", false, Some(limits::NOTES));
            let has_any = ["status", "progress", "blockers", "notes"]
                .iter()
                .any(|k| !matches!(p.get(*k), None | Some(Value::Null)));
            if !has_any {
                c.errors
                    .push("Status update must include status, progress, blockers, or notes".into());
            }
            match (task_id, agent_id) {
                (Some(task_id), Some(agent_id)) => Some(Payload::StatusUpdate(StatusUpdate {
                    task_id,
                    agent_id,
                    status,
                    progress,
                    blockers,
                    notes,
                })),
                _ => None,
            }
        }
        MessageKind::HandoffRequest => {
            let task_id = c.task_id("taskId");
            let parent_task_id = c.task_id("parentTaskId");
            let from_agent = c.string("fromAgent", true, None);
            let to_agent = c.string("toAgent", true, None);
            let ac = c.list("acceptanceCriteria", limits::LIST_ITEMS, limits::LIST_ITEM);
            let eo = c.list("expectedOutputs", limits::LIST_ITEMS, limits::LIST_ITEM);
            let cr = c.list("contextRefs", limits::LIST_ITEMS, limits::LIST_ITEM);
            let co = c.list("constraints", limits::LIST_ITEMS, limits::LIST_ITEM);
            let due_by = c.datetime("dueBy");
            match (task_id, parent_task_id, from_agent, to_agent, due_by) {
                (
                    Some(task_id),
                    Some(parent_task_id),
                    Some(from_agent),
                    Some(to_agent),
                    Some(due_by),
                ) => Some(Payload::HandoffRequest(HandoffRequest {
                    task_id,
                    parent_task_id,
                    from_agent,
                    to_agent,
                    acceptance_criteria: ac.unwrap_or_default(),
                    expected_outputs: eo.unwrap_or_default(),
                    context_refs: cr.unwrap_or_default(),
                    constraints: co.unwrap_or_default(),
                    due_by,
                })),
                _ => None,
            }
        }
        MessageKind::HandoffAccepted | MessageKind::HandoffRejected => {
            let task_id = c.task_id("taskId");
            let accepted = match p.get("accepted") {
                Some(Value::Bool(b)) => Some(*b),
                None => {
                    c.err("accepted", "Required");
                    None
                }
                Some(other) => {
                    c.err(
                        "accepted",
                        format!("Expected boolean, received {}", type_name(other)),
                    );
                    None
                }
            };
            let reason = c.string("reason", false, Some(limits::REASON));
            match (task_id, accepted) {
                // The type, not the flag, decides what the router does (as in
                // AOF); keep the flag as sent.
                (Some(task_id), Some(accepted)) => Some(Payload::HandoffAck(HandoffAck {
                    task_id,
                    accepted,
                    reason,
                })),
                _ => None,
            }
        }
    };
    if c.errors.is_empty() {
        payload.ok_or_else(|| vec!["payload: invalid".into()])
    } else {
        Err(c.errors)
    }
}

fn tests_report(c: &mut Checker<'_>) -> Option<TestReport> {
    let t = match c.obj.get("tests") {
        Some(Value::Object(t)) => t,
        None | Some(Value::Null) => {
            c.err("tests", "Required");
            return None;
        }
        Some(other) => {
            c.err(
                "tests",
                format!("Expected object, received {}", type_name(other)),
            );
            return None;
        }
    };
    // A JavaScript number: `2.0` is the integer 2 for zod's `.int()`.
    let whole = |v: &Value| {
        v.as_u64().or_else(|| {
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64)
                .map(|f| f as u64)
        })
    };
    let mut get = |k: &str| match t.get(k).and_then(whole) {
        Some(n) => Some(n),
        None => {
            c.err(&format!("tests.{k}"), "Expected a non-negative integer");
            None
        }
    };
    let (total, passed, failed) = (get("total")?, get("passed")?, get("failed")?);
    if passed.saturating_add(failed) > total {
        c.err("tests", "passed + failed must not exceed total");
        return None;
    }
    Some(TestReport {
        total,
        passed,
        failed,
    })
}
