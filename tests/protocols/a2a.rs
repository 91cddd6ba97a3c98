//! A2A task messages: the three message kinds (bare and wrapped), enums by
//! name or number, the reference's status transition rules, located
//! diagnostics, and the AOF/1 envelopes they bridge to.

use std::path::Path;

use amail_core::aof::{detect, Detected, Input, MessageKind, Outcome, Payload, TaskStatus};
use amail_core::bridge::protocol as bridge;
use amail_core::formats::{self as protocols, A2aKind, A2aStatus, Item, Priority, Protocol};

fn data(rel: &str) -> (String, String) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/a2a")
        .join(rel);
    (
        format!("tests/data/a2a/{rel}"),
        std::fs::read_to_string(p).unwrap(),
    )
}

fn parsed(rel: &str) -> protocols::Parsed {
    let (path, text) = data(rel);
    let (proto, p) = protocols::detect(&path, &text).expect("detected");
    assert_eq!(proto, Protocol::A2a);
    p
}

fn a2a(p: &protocols::Parsed) -> Vec<&protocols::A2aItem> {
    p.items
        .iter()
        .map(|i| match i {
            Item::A2a(a) => a,
            other => panic!("{other:?}"),
        })
        .collect()
}

#[test]
fn task_message_with_priority_and_deadline() {
    let p = parsed("valid/task.json");
    assert!(p.diags.is_empty(), "{:?}", p.diags);
    let a = a2a(&p)[0];
    assert_eq!(a.message, A2aKind::TaskMessage);
    assert_eq!(a.status, A2aStatus::Pending);
    assert_eq!(a.priority, Some(Priority::High));
    assert_eq!(
        a.deadline.unwrap().to_rfc3339(),
        "2026-11-21T12:00:00+00:00"
    );
    assert_eq!(a.responder.as_deref(), Some("data_processor_01"));
    assert_eq!(a.data["dataset_path"], "/data/sales_2024.csv");
}

#[test]
fn enums_by_name_or_number_and_wrapped_messages() {
    let p = parsed("valid/progress.jsonl");
    assert!(p.diags.is_empty(), "{:?}", p.diags);
    let v = a2a(&p);
    assert_eq!(v.len(), 2);
    // `"status": 2` and `"IN_PROGRESS"` are the same.
    assert!(v.iter().all(|a| a.status == A2aStatus::InProgress));
    assert_eq!(v[0].progress_percentage, Some(45));
    // {"progress": {...}} with a {seconds, nanos} timestamp.
    assert_eq!(v[1].message, A2aKind::TaskProgress);
    assert_eq!(v[1].at.to_rfc3339(), "2026-11-20T09:20:00+00:00");
    assert_eq!(v[1].source.line, 2);

    let p = parsed("valid/result.json");
    let r = a2a(&p)[0];
    assert_eq!(
        (r.message, r.status),
        (A2aKind::TaskResult, A2aStatus::Completed)
    );

    let p = parsed("valid/lifecycle.jsonl");
    assert!(p.diags.is_empty(), "{:?}", p.diags);
    let v = a2a(&p);
    assert_eq!(v[0].priority, Some(Priority::Low), "priority 1");
    assert_eq!(v[2].status, A2aStatus::Failed, "lower-case name");
    assert_eq!(v[3].priority, Some(Priority::Critical), "bare name");
    assert_eq!(v[5].status, A2aStatus::Cancelled, "status 5");
}

#[test]
fn transition_rules() {
    use A2aStatus::*;
    let ok = [
        (Pending, Pending),
        (Pending, InProgress),
        (Pending, Cancelled),
        (InProgress, InProgress),
        (InProgress, Completed),
        (InProgress, Failed),
        (InProgress, Cancelled),
    ];
    let all = [Pending, InProgress, Completed, Failed, Cancelled];
    for a in all {
        for b in all {
            assert_eq!(
                a.transition_error(b).is_none(),
                ok.contains(&(a, b)),
                "{a:?} -> {b:?}"
            );
        }
    }
}

#[test]
fn invalid_transitions_are_reported_with_their_line() {
    let p = parsed("invalid/bad-transition.jsonl");
    let d: Vec<(u32, &str, &str)> = p
        .diags
        .iter()
        .map(|d| (d.line, d.code, d.message.as_str()))
        .collect();
    assert_eq!(d.len(), 3, "{d:?}");
    assert!(d.iter().all(|(_, c, _)| *c == "invalid_transition"));
    assert_eq!(d[0].0, 4);
    assert!(d[0].2.contains("COMPLETED -> IN_PROGRESS"), "{d:?}");
    assert_eq!(d[1].0, 6);
    assert!(d[1].2.contains("PENDING -> COMPLETED"), "{d:?}");
    assert_eq!(d[2].0, 8);
    assert!(d[2].2.contains("back to PENDING"), "{d:?}");
    // The messages are still shown.
    assert_eq!(p.items.len(), 8);
}

#[test]
fn schema_violations_are_located() {
    let p = parsed("invalid/bad-fields.jsonl");
    let d: Vec<(u32, u32, String)> = p
        .diags
        .iter()
        .map(|d| (d.line, d.column, d.message.clone()))
        .collect();
    assert_eq!(d.len(), 5, "{d:?}");
    assert_eq!((d[0].0, d[0].1), (1, 64));
    assert!(d[0].2.contains("URGENT"));
    assert_eq!((d[1].0, d[1].1), (2, 44));
    assert!(d[1].2.contains("140"));
    assert!(d[2].2.contains("TASK_STATUS_UNSPECIFIED"));
    assert!(d[3].2.contains("final status"));
    assert!(d[4].2.contains("requester_agent_id"));
    assert!(p.items.is_empty(), "{:?}", p.items);
}

#[test]
fn garbage_never_panics() {
    for text in [
        "", "{", "[]", "[1, 2]", "null", "{\"task_id\": 5, \"task_type\": []}",
        "{\"task\": {\"task_id\": \"x\"}}", "{\"progress_percentage\": -1}",
        "{\"task_id\":\"x\",\"executor_agent_id\":\"e\",\"status\":99,\"updated_at\":{\"seconds\":\"zz\"}}",
    ] {
        let _ = protocols::detect("x.json", text);
        let _ = protocols::a2a::parse("x.json", text);
        let _ = protocols::handoff::parse("x.json", text);
    }
}

fn env(item: &Item) -> amail_core::aof::Envelope {
    let e = bridge::to_envelope_standalone(item);
    match detect(Input::Text(&e.to_json_line())) {
        Detected::Envelope(v) => assert_eq!(v, e),
        other => panic!("not valid AOF/1: {other:?}"),
    }
    e
}

#[test]
fn bridge_maps_each_message() {
    let p = parsed("valid/task.json");
    let e = env(&p.items[0]);
    assert_eq!(e.kind, MessageKind::HandoffRequest);
    let Payload::HandoffRequest(h) = &e.payload else {
        panic!()
    };
    assert_eq!(h.to_agent, "data_processor_01");
    assert_eq!(h.due_by, "2026-11-21T12:00:00.000Z");
    assert_eq!(h.constraints, ["priority: HIGH"]);

    let p = parsed("valid/progress.jsonl");
    let e = env(&p.items[0]);
    let Payload::StatusUpdate(s) = &e.payload else {
        panic!()
    };
    assert_eq!(s.status, Some(TaskStatus::InProgress));
    assert_eq!(s.progress.as_deref(), Some("45%: Processing data"));

    let p = parsed("valid/result.json");
    let Payload::CompletionReport(c) = &env(&p.items[0]).payload else {
        panic!()
    };
    assert_eq!(c.outcome, Outcome::Done);

    let p = parsed("valid/lifecycle.jsonl");
    let Payload::CompletionReport(c) = &env(&p.items[2]).payload else {
        panic!()
    };
    assert_eq!(
        (c.outcome, c.blockers.as_slice()),
        (Outcome::Blocked, &["GPU quota exceeded".to_string()][..])
    );
    let Payload::StatusUpdate(s) = &env(&p.items[5]).payload else {
        panic!()
    };
    assert_eq!(s.status, Some(TaskStatus::Cancelled));
}

#[test]
fn bridge_output_snapshot() {
    let mut out = String::new();
    for f in [
        "task.json",
        "progress.jsonl",
        "result.json",
        "lifecycle.jsonl",
    ] {
        for it in &parsed(&format!("valid/{f}")).items {
            out.push_str(&bridge::to_envelope_standalone(it).to_json_line());
            out.push('\n');
        }
    }
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!("proto_a2a_bridge", out);
    });
}

/// A wrapped message's diagnostic names the key inside the wrapper; a
/// value spelled like the key is not it.
#[test]
fn a_wrapped_messages_diagnostic_names_its_key() {
    let text = "{\"task\": {\"task_id\": \"t\", \"task_type\": \"priority\", \"created_at\": \"2026-11-20T09:00:00Z\",\n  \"requester_agent_id\": \"r\", \"priority\": \"URGENT\"}}\n";
    let p = protocols::a2a::read("x.json", text);
    let d: Vec<(u32, u32)> = p.diags.iter().map(|d| (d.line, d.column)).collect();
    assert_eq!(d, [(2, 30)], "{:?}", p.diags);
}
