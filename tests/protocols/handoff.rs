//! Handoff v0.1: every state from the fixtures, the diagnostics of the
//! invalid ones (with line and column), the state machine, and the AOF/1
//! envelopes each state bridges to.

use std::path::Path;

use amail_core::aof::{detect, Detected, Input, MessageKind, Outcome, Payload};
use amail_core::bridge::protocol as bridge;
use amail_core::formats::{self as protocols, handoff, HandoffStatus, Item, Protocol};

fn data(rel: &str) -> (String, String) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/handoff")
        .join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    (format!("tests/data/handoff/{rel}"), text)
}

fn items(rel: &str) -> protocols::Parsed {
    let (path, text) = data(rel);
    let (proto, parsed) = protocols::detect(&path, &text).expect("detected as a protocol file");
    assert_eq!(proto, Protocol::Handoff);
    parsed
}

fn only(rel: &str) -> protocols::Handoff {
    let p = items(rel);
    assert!(p.diags.is_empty(), "{rel}: {:?}", p.diags);
    match p.items.as_slice() {
        [Item::Handoff(h)] => h.clone(),
        other => panic!("{rel}: {other:?}"),
    }
}

#[test]
fn every_state_reads_cleanly() {
    for (file, state) in [
        ("valid/offered.json", "offered"),
        ("valid/accepted.json", "accepted"),
        ("valid/completed.json", "completed"),
        ("valid/failed.json", "failed"),
        ("valid/rejected.json", "rejected"),
    ] {
        let h = only(file);
        assert_eq!(h.state(), state, "{file}");
    }
    let offered = only("valid/offered.json");
    assert_eq!(offered.to_agent, None, "empty to_agent means anyone");
    assert_eq!(offered.context["line"], 42);
    // Python's isoformat() without an offset is read as UTC.
    let accepted = only("valid/accepted.json");
    assert_eq!(
        accepted.updated_at.to_rfc3339(),
        "2026-11-20T09:10:00.250+00:00"
    );
}

#[test]
fn a_history_shows_the_re_offer() {
    let p = items("valid/reoffered.json");
    assert!(p.diags.is_empty(), "{:?}", p.diags);
    let states: Vec<String> = p
        .items
        .iter()
        .map(|i| match i {
            Item::Handoff(h) => h.state().to_string(),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(states, ["offered", "accepted", "failed", "re-offered"]);
    // Each snapshot knows its line in the array.
    let lines: Vec<u32> = p.items.iter().map(|i| i.source().line).collect();
    assert_eq!(lines, [2, 3, 4, 5]);
}

#[test]
fn state_machine() {
    use HandoffStatus::*;
    let allowed = [
        (Offered, Accepted),
        (Offered, Rejected),
        (Accepted, Completed),
        (Accepted, Failed),
        (Failed, Offered),
    ];
    let all = [Offered, Accepted, Completed, Failed, Rejected];
    for a in all {
        for b in all {
            let expect = a == b || allowed.contains(&(a, b));
            assert_eq!(a.can_go_to(b), expect, "{a:?} -> {b:?}");
        }
    }
}

fn diag(rel: &str) -> Vec<(u32, u32, &'static str, String)> {
    let (path, text) = data(rel);
    // Invalid files may not classify (broken JSON); in a handoff directory
    // they are read as handoffs anyway.
    let parsed = protocols::detect(&path, &text)
        .map(|(_, p)| p)
        .unwrap_or_else(|| handoff::parse(&path, &text));
    assert!(parsed.items.iter().all(|i| !matches!(i, Item::Handoff(h) if h.task_id.starts_with("bad-") && rel != "invalid/impossible-transition.json")));
    parsed
        .diags
        .into_iter()
        .map(|d| {
            assert_eq!(d.path, path);
            (d.line, d.column, d.code, d.message)
        })
        .collect()
}

#[test]
fn schema_violations_are_located() {
    let d = diag("invalid/missing-field.json");
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!((d[0].0, d[0].1, d[0].2), (1, 1, "schema"));
    assert!(d[0].3.contains("`description`"), "{d:?}");

    let d = diag("invalid/bad-status.json");
    assert_eq!((d[0].0, d[0].1), (4, 3), "{d:?}");
    assert!(d[0].3.contains("`done`"));

    let mut d = diag("invalid/bad-time.json");
    d.sort();
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!((d[0].0, d[0].1), (6, 3), "context: {d:?}");
    assert_eq!((d[1].0, d[1].1), (7, 3), "created_at: {d:?}");
    assert!(d[1].3.contains("yesterday"));
}

#[test]
fn broken_json_is_a_diagnostic_not_a_crash() {
    let (path, text) = data("invalid/not-json.json");
    let p = handoff::parse(&path, &text);
    assert!(p.items.is_empty());
    assert_eq!(p.diags.len(), 1);
    assert_eq!(p.diags[0].code, "invalid_json");
    assert_eq!(
        (p.diags[0].line, p.diags[0].column),
        (4, 3),
        "{:?}",
        p.diags
    );
    // Inside a `.handoffs/` directory it is detected as a handoff file.
    let (proto, p) = protocols::detect("x/.handoffs/a.json", &text).unwrap();
    assert_eq!(proto, Protocol::Handoff);
    assert_eq!(p.diags[0].code, "invalid_json");
}

#[test]
fn impossible_transition_is_reported_on_the_later_snapshot() {
    let d = diag("invalid/impossible-transition.json");
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!((d[0].0, d[0].2), (3, "impossible_transition"));
    assert!(d[0].3.contains("offered -> completed"), "{d:?}");
}

#[test]
fn transitions_are_checked_across_files() {
    let (_, a) = data("valid/accepted.json");
    let later = a
        .replace("\"accepted\"", "\"rejected\"")
        .replace("2026-11-20T09:10:00.250000", "2026-11-20T09:20:00Z");
    let p = protocols::parse_files(&[
        protocols::File::named("a.json".into(), a),
        protocols::File::named("b.json".into(), later),
    ]);
    assert_eq!(p.items.len(), 2);
    assert_eq!(p.diags.len(), 1, "{:?}", p.diags);
    assert_eq!(p.diags[0].path, "b.json");
    assert!(p.diags[0].message.contains("accepted -> rejected"));
}

#[test]
fn handoff_dir_env() {
    let root = Path::new("/m");
    assert_eq!(handoff::dir_for(root, None), Path::new("/m/.handoffs"));
    assert_eq!(
        handoff::dir_for(root, Some("shared/ho".as_ref())),
        Path::new("/m/shared/ho")
    );
    assert_eq!(
        handoff::dir_for(root, Some("/abs".as_ref())),
        Path::new("/abs")
    );
    assert_eq!(
        handoff::dir_for(root, Some("".as_ref())),
        Path::new("/m/.handoffs")
    );
}

fn envelope(rel: &str, n: usize) -> amail_core::aof::Envelope {
    let p = items(rel);
    let env = bridge::to_envelope_standalone(&p.items[n]);
    // What we print is what the AOF/1 validator accepts.
    match detect(Input::Text(&env.to_json_line())) {
        Detected::Envelope(e) => assert_eq!(e, env),
        other => panic!("{rel}: not a valid envelope: {other:?}"),
    }
    env
}

#[test]
fn bridge_maps_each_state() {
    let e = envelope("valid/offered.json", 0);
    assert_eq!(e.kind, MessageKind::HandoffRequest);
    assert_eq!(
        (e.from_agent.as_str(), e.to_agent.as_str()),
        ("scanner", "anyone")
    );
    let Payload::HandoffRequest(p) = &e.payload else {
        panic!()
    };
    assert_eq!(p.context_refs, ["file=src/auth.py", "line=42"]);
    assert_eq!(
        p.acceptance_criteria,
        ["Review the auth module for timing attacks"]
    );
    assert_ne!(p.parent_task_id, p.task_id);

    let e = envelope("valid/accepted.json", 0);
    assert_eq!(e.kind, MessageKind::HandoffAccepted);
    assert_eq!(
        (e.from_agent.as_str(), e.to_agent.as_str()),
        ("reviewer", "scanner")
    );

    let e = envelope("valid/rejected.json", 0);
    assert_eq!(e.kind, MessageKind::HandoffRejected);
    let Payload::HandoffAck(a) = &e.payload else {
        panic!()
    };
    assert_eq!(a.reason.as_deref(), Some("no design capacity this week"));

    let e = envelope("valid/completed.json", 0);
    assert_eq!(e.kind, MessageKind::CompletionReport);
    let Payload::CompletionReport(c) = &e.payload else {
        panic!()
    };
    assert_eq!(c.outcome, Outcome::Done);

    let e = envelope("valid/failed.json", 0);
    let Payload::CompletionReport(c) = &e.payload else {
        panic!()
    };
    assert_eq!(c.outcome, Outcome::Blocked);
    assert_eq!(
        c.blockers,
        ["handoff failed: out of memory on the 2 GB fixture"]
    );

    // The re-offer is a new handoff.request, to the new taker.
    let e = envelope("valid/reoffered.json", 3);
    assert_eq!(e.kind, MessageKind::HandoffRequest);
    assert_eq!(e.to_agent, "tester");
}

#[test]
fn bridge_output_snapshot() {
    let mut out = String::new();
    for f in [
        "offered",
        "accepted",
        "completed",
        "failed",
        "rejected",
        "reoffered",
    ] {
        let p = items(&format!("valid/{f}.json"));
        for it in &p.items {
            out.push_str(&bridge::to_envelope_standalone(it).to_json_line());
            out.push('\n');
        }
    }
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!("proto_handoff_bridge", out);
    });
}

/// A diagnostic names the key of its own object: not a value spelled like
/// the key, not the same key in a later object (a missing field is placed
/// at its object's `{`).
#[test]
fn a_diagnostic_names_its_own_objects_key() {
    let text = r#"[
  {
    "task_id": "a",
    "from_agent": "status",
    "status": "done",
    "description": "x",
    "created_at": "2026-11-20T09:00:00Z",
    "updated_at": "2026-11-20T09:00:00Z"
  },
  {
    "task_id": "b",
    "from_agent": "scanner",
    "status": "offered",
    "created_at": "2026-11-20T09:00:00Z",
    "updated_at": "2026-11-20T09:00:00Z"
  },
  {
    "task_id": "c",
    "from_agent": "scanner",
    "status": "offered",
    "description": "x",
    "created_at": "2026-11-20T09:00:00Z",
    "updated_at": "2026-11-20T09:00:00Z"
  }
]"#;
    let p = handoff::read("h.json", text);
    let d: Vec<(u32, u32, &str)> = p
        .diags
        .iter()
        .map(|d| (d.line, d.column, d.message.as_str()))
        .collect();
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!((d[0].0, d[0].1), (5, 5), "the key, not a value: {d:?}");
    assert_eq!(
        (d[1].0, d[1].1),
        (10, 3),
        "a missing key at its own object: {d:?}"
    );
}

/// A JSON syntax error is placed as every diagnostic is, 1-based and in
/// characters: serde_json counts a column in bytes, and 0 at a line's
/// start (an empty handoff file was `1:0`; found by fuzzing).
#[test]
fn json_syntax_errors_are_placed_in_characters_from_one() {
    for (text, place) in [
        ("", (1, 1)),
        ("{\n", (2, 1)),
        ("{\"task_id\": \"ééé\", x}", (1, 20)),
        ("{\"a\": 1}\n{\"b\": \"é\" x}\n", (2, 11)),
        // A byte order mark is a character of the first line.
        ("\u{feff}{\"a\": é}", (1, 8)),
    ] {
        let p = handoff::parse("x/.handoffs/h.json", text);
        let d = &p.diags[0];
        assert_eq!(d.code, "invalid_json", "{text:?}: {d}");
        assert_eq!((d.line, d.column), place, "{text:?}: {d}");
    }
}
