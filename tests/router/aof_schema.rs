//! Envelope and payload validation and detection: the scenarios of
//! aof-router.md §7.1-§7.3 that follow the seed.

use amail_core::aof::validate::{envelope_from_value, Validated};
use amail_core::aof::{detect, Detected, Input, MessageKind, Payload, Rejection, RejectionDetail};
use serde_json::{json, Value};

fn env(kind: &str, payload: Value) -> Value {
    json!({
        "protocol": "aof", "version": 1, "type": kind, "projectId": "demo",
        "taskId": "TASK-2026-02-09-057", "fromAgent": "swe-backend", "toAgent": "dispatcher",
        "sentAt": "2026-02-09T21:00:00.000Z", "payload": payload
    })
}

fn completion() -> Value {
    json!({ "outcome": "done", "summaryRef": "outputs/summary.md", "deliverables": ["src/foo.ts"],
            "tests": { "total": 120, "passed": 120, "failed": 0 }, "blockers": [], "notes": "ok" })
}

fn status() -> Value {
    json!({ "taskId": "TASK-2026-02-09-057", "agentId": "swe-backend", "progress": "half" })
}

fn handoff() -> Value {
    json!({ "taskId": "TASK-2026-02-09-057", "parentTaskId": "TASK-2026-02-09-050",
            "fromAgent": "a", "toAgent": "b", "dueBy": "2026-02-10T12:00:00.000Z" })
}

fn ok(v: &Value) -> amail_core::aof::Envelope {
    match envelope_from_value(v) {
        Ok(Validated::Envelope(e)) => e,
        other => panic!("expected a valid envelope, got {other:?}"),
    }
}

fn bad(v: &Value) -> Vec<String> {
    match envelope_from_value(v) {
        Err(e) => e,
        other => panic!("expected a rejection, got {other:?}"),
    }
}

#[test]
fn valid_payloads_of_every_type() {
    assert_eq!(
        ok(&env("completion.report", completion())).kind,
        MessageKind::CompletionReport
    );
    assert_eq!(
        ok(&env("status.update", status())).kind,
        MessageKind::StatusUpdate
    );
    let h = ok(&env("handoff.request", handoff()));
    match h.payload {
        // Optional arrays default to [].
        Payload::HandoffRequest(p) => {
            assert!(p.acceptance_criteria.is_empty() && p.constraints.is_empty())
        }
        other => panic!("{other:?}"),
    }
    let ack = json!({ "taskId": "TASK-2026-02-09-057", "accepted": true });
    assert_eq!(
        ok(&env("handoff.accepted", ack.clone())).kind,
        MessageKind::HandoffAccepted
    );
    assert_eq!(
        ok(&env("handoff.rejected", ack)).kind,
        MessageKind::HandoffRejected
    );
}

#[test]
fn bad_enum_ids_datetimes_and_booleans_are_rejected() {
    let mut c = completion();
    c["outcome"] = json!("done-ish");
    bad(&env("completion.report", c));
    let mut c = completion();
    c["outcome"] = json!("in-progress");
    bad(&env("completion.report", c));
    let mut s = status();
    s["taskId"] = json!("not-a-task");
    assert!(bad(&env("status.update", s))
        .iter()
        .any(|e| e.contains("Invalid task id")));
    let mut h = handoff();
    h["dueBy"] = json!("soon");
    bad(&env("handoff.request", h));
    let mut h = handoff();
    h["dueBy"] = json!("tomorrow");
    bad(&env("handoff.request", h));
    bad(&env(
        "handoff.accepted",
        json!({ "taskId": "TASK-2026-02-09-057", "accepted": "yes" }),
    ));
}

/// zod's `.optional()` means "absent", not null: `{"notes": null}` is
/// "Expected string, received null" in AOF, and so it is here. (Numbers
/// are JavaScript numbers: `1.0` is the integer 1.)
#[test]
fn null_is_not_absent_and_whole_floats_are_integers() {
    let mut st = status();
    st["notes"] = Value::Null;
    assert!(bad(&env("status.update", st))
        .iter()
        .any(|e| e.contains("payload.notes") && e.contains("received null")));
    for (kind, mut p, field) in [
        ("status.update", status(), "progress"),
        ("status.update", status(), "blockers"),
        ("status.update", status(), "status"),
        ("completion.report", completion(), "deliverables"),
        ("completion.report", completion(), "blockers"),
        ("handoff.request", handoff(), "constraints"),
        (
            "handoff.rejected",
            json!({ "taskId": "TASK-2026-02-09-057", "accepted": false }),
            "reason",
        ),
    ] {
        p[field] = Value::Null;
        bad(&env(kind, p));
    }
    let mut e = env("status.update", status());
    e["taskRelpath"] = Value::Null;
    bad(&e);
    // The "at least one field" rule counts only fields that are there.
    let st = json!({ "taskId": "TASK-2026-02-09-057", "agentId": "a", "notes": null });
    bad(&env("status.update", st));
    let mut c = completion();
    c["tests"] = json!({ "total": 2.0, "passed": 1.0, "failed": 0 });
    ok(&env("completion.report", c));
    let mut c = completion();
    c["tests"] = json!({ "total": 2.5, "passed": 1, "failed": 0 });
    bad(&env("completion.report", c));
    // `version: 1.0` is the JavaScript number 1: z.literal(1) accepts it.
    let mut e = env("status.update", status());
    e["version"] = json!(1.0);
    ok(&e);
    e["version"] = json!(1.5);
    bad(&e);
}

#[test]
fn envelope_fields() {
    let mut e = env("status.update", status());
    e["protocol"] = json!("not-aof");
    bad(&e);
    let mut e = env("status.update", status());
    e["version"] = json!(2);
    bad(&e);
    let mut e = env("status.update", status());
    e["version"] = json!("1");
    bad(&e);
    let mut e = env("status.update", status());
    e.as_object_mut().unwrap().remove("taskId");
    bad(&e);
    let mut e = env("status.update", status());
    e["taskId"] = json!("TASK-1");
    bad(&e);
    // sentAt must be UTC with Z.
    let mut e = env("status.update", status());
    e["sentAt"] = json!("2026-02-09T23:00:00+02:00");
    bad(&e);
    let mut e = env("status.update", status());
    e["sentAt"] = json!("2026-02-09T21:00:00Z");
    ok(&e);
}

#[test]
fn task_id_forms_seed_and_later() {
    for id in [
        "TASK-2026-02-09-057",
        "TASK-2026-02-09-057-02",
        "TASK-2026-11-22-D4j2t7Vy",
    ] {
        let mut e = env("status.update", status());
        e["taskId"] = json!(id);
        ok(&e);
    }
}

#[test]
fn project_id_optional_alias_and_task_relpath() {
    // Seed: projectId is not an envelope field, so it is optional. Real AOF
    // (§2.1) requires it; we follow the seed (§9) and accept its absence.
    let mut e = env("status.update", status());
    e.as_object_mut().unwrap().remove("projectId");
    assert_eq!(ok(&e).project_id, None);
    e["project_id"] = json!("snake");
    assert_eq!(ok(&e).project_id.as_deref(), Some("snake"));
    e["taskRelpath"] = json!("tasks/ready/x.md");
    assert_eq!(ok(&e).task_relpath.as_deref(), Some("tasks/ready/x.md"));
}

#[test]
fn size_limits_at_and_over_the_boundary() {
    let s = |n: usize| "x".repeat(n);
    let mut c = completion();
    c["summaryRef"] = json!(s(256));
    c["notes"] = json!(s(10_000));
    c["deliverables"] = json!(vec![s(256); 50]);
    ok(&env("completion.report", c));
    for (field, value) in [
        ("summaryRef", json!(s(257))),
        ("notes", json!(s(10_001))),
        ("deliverables", json!(vec!["a"; 51])),
        ("deliverables", json!([s(257)])),
        ("blockers", json!(vec!["a"; 21])),
    ] {
        let mut c = completion();
        c[field] = value;
        bad(&env("completion.report", c));
    }
    let mut h = handoff();
    h["contextRefs"] = json!(vec!["r"; 50]);
    ok(&env("handoff.request", h));
    let mut h = handoff();
    h["contextRefs"] = json!(vec!["r"; 51]);
    bad(&env("handoff.request", h));
    let mut h = handoff();
    h["contextRefs"] = json!([s(257)]);
    bad(&env("handoff.request", h));
    let mut st = status();
    st["progress"] = json!(s(1_001));
    bad(&env("status.update", st));
    let ack = json!({ "taskId": "TASK-2026-02-09-057", "accepted": false, "reason": s(513) });
    bad(&env("handoff.rejected", ack));
}

/// zod's `.max(n)` counts a JavaScript string's `length`: UTF-16 code
/// units, so a character outside the Basic Multilingual Plane (an emoji)
/// counts two. The limits count the same way.
#[test]
fn size_limits_count_utf16_units_as_aof_does() {
    let emoji = |n: usize| "\u{1F600}".repeat(n);
    let mut c = completion();
    c["summaryRef"] = json!(emoji(128)); // 256 units
    c["notes"] = json!(emoji(5_000));
    ok(&env("completion.report", c));
    for (field, value) in [
        ("summaryRef", json!(emoji(129))), // 258 units, 129 characters
        ("notes", json!(emoji(5_001))),
        ("deliverables", json!([emoji(129)])),
    ] {
        let mut c = completion();
        c[field] = value;
        bad(&env("completion.report", c));
    }
    let mut st = status();
    st["progress"] = json!(emoji(501));
    bad(&env("status.update", st));
    // BMP characters count one, as before.
    let mut c = completion();
    c["summaryRef"] = json!("\u{e9}".repeat(256));
    ok(&env("completion.report", c));
    // Clipping keeps to the same count and never splits a pair.
    let mut p = ok(&env("completion.report", completion())).payload;
    if let Payload::CompletionReport(c) = &mut p {
        c.notes = format!("x{}", emoji(6_000));
    }
    p.clip_to_limits();
    let Payload::CompletionReport(c) = &p else {
        unreachable!()
    };
    assert_eq!(c.notes.encode_utf16().count(), 9_999);
    assert!(c.notes.ends_with('\u{1F600}'));
}

#[test]
fn test_counts_must_add_up() {
    for (t, p, f, valid) in [(10, 10, 0, true), (10, 5, 3, true), (10, 8, 3, false)] {
        let mut c = completion();
        c["tests"] = json!({ "total": t, "passed": p, "failed": f });
        assert_eq!(
            envelope_from_value(&env("completion.report", c)).is_ok(),
            valid
        );
    }
    let mut c = completion();
    c["tests"] = json!({ "total": -1, "passed": 0, "failed": 0 });
    bad(&env("completion.report", c));
    let mut c = completion();
    c.as_object_mut().unwrap().remove("tests");
    bad(&env("completion.report", c));
    let mut c = completion();
    c.as_object_mut().unwrap().remove("notes");
    bad(&env("completion.report", c));
    let mut c = completion();
    c["notes"] = json!("");
    ok(&env("completion.report", c));
}

#[test]
fn status_update_needs_one_field() {
    let s = json!({ "taskId": "TASK-2026-02-09-057", "agentId": "a" });
    assert!(bad(&env("status.update", s))
        .iter()
        .any(|e| e.contains("must include")));
    let s = json!({ "taskId": "TASK-2026-02-09-057", "agentId": "a", "blockers": ["x"] });
    ok(&env("status.update", s));
}

#[test]
fn detection_order_and_rejections() {
    let e = env("status.update", status());
    let text = e.to_string();
    // Already-parsed object, alone or under payload/message/content.
    assert!(matches!(detect(Input::Object(&e)), Detected::Envelope(_)));
    assert!(matches!(
        detect(Input::Object(&json!({ "payload": e.clone() }))),
        Detected::Envelope(_)
    ));
    assert!(matches!(
        detect(Input::Object(&json!({ "content": text.clone() }))),
        Detected::Envelope(_)
    ));
    // An object that is not AOF is ignored silently.
    assert_eq!(
        detect(Input::Object(&json!({ "hello": 1 }))),
        Detected::NotProtocol
    );
    // JSON text and the AOF/1 prefix.
    assert!(matches!(detect(Input::Text(&text)), Detected::Envelope(_)));
    assert!(matches!(
        detect(Input::Text(&format!("AOF/1 {text}"))),
        Detected::Envelope(_)
    ));
    // Chat text: nothing.
    assert_eq!(detect(Input::Text("hello world")), Detected::NotProtocol);
    let reason = |d: Detected| match d {
        Detected::Rejected(r) => r.reason,
        other => panic!("{other:?}"),
    };
    assert_eq!(reason(detect(Input::Text("{"))), "invalid_json");
    assert_eq!(
        reason(detect(Input::Text("AOF/1 {bad json"))),
        "invalid_json"
    );
    assert_eq!(
        reason(detect(Input::Text(r#"{"protocol":"aof","version":1}"#))),
        "invalid_envelope"
    );
    // JSON-shaped chat text that is not an envelope is invalid_envelope (as in AOF).
    assert_eq!(
        reason(detect(Input::Text(r#"{"hello":1}"#))),
        "invalid_envelope"
    );
    // Unknown type: its own outcome, logged as protocol.message.unknown.
    let mut u = env("status.update", status());
    u["type"] = json!("unknown.type");
    assert!(
        matches!(detect(Input::Object(&u)), Detected::Unknown { ref kind, .. } if kind == "unknown.type")
    );
}

/// `invalid_json`'s `error` is what AOF's `JSON.parse` says (V8, the
/// Node 20 wording of the reference's sample line, aof-router.md §4):
/// the position is a 0-based offset in UTF-16 units into the JSON text
/// (after the `AOF/1 ` prefix and trimming, §2.3 step 4), and an
/// unexpected character is quoted with up to 10 units of context either
/// side. Expected strings were printed by Node 20's `JSON.parse`.
#[test]
fn invalid_json_errors_are_worded_as_aofs_json_parse() {
    let error = |text: &str| match detect(Input::Text(text)) {
        Detected::Rejected(Rejection {
            reason: "invalid_json",
            detail: RejectionDetail::InvalidJson { error, .. },
        }) => error,
        other => panic!("{text:?}: {other:?}"),
    };
    let cases: &[(&str, &str)] = &[
        // The reference's sample and its router test's inputs (§4, §7.2).
        ("{", "Expected property name or '}' in JSON at position 1"),
        (
            "AOF/1 {bad json",
            "Expected property name or '}' in JSON at position 1",
        ),
        (
            "  AOF/1   {bad json  ",
            "Expected property name or '}' in JSON at position 1",
        ),
        (
            r#"{"a":1"#,
            "Expected ',' or '}' after property value in JSON at position 6",
        ),
        (
            r#"{"a":1 "b":2}"#,
            "Expected ',' or '}' after property value in JSON at position 7",
        ),
        (
            "[1,2",
            "Expected ',' or ']' after array element in JSON at position 4",
        ),
        (
            "[1 2]",
            "Expected ',' or ']' after array element in JSON at position 3",
        ),
        (
            r#"{"a" 1}"#,
            "Expected ':' after property name in JSON at position 5",
        ),
        (
            r#"{"a""#,
            "Expected ':' after property name in JSON at position 4",
        ),
        // After a later name V8 names what stands there instead.
        (
            r#"{"a":1,"b" 2}"#,
            "Unexpected number in JSON at position 11",
        ),
        (r#"{"a":1,"b""#, "Unexpected end of JSON input"),
        (
            r#"{"a":1,}"#,
            "Expected double-quoted property name in JSON at position 7",
        ),
        (
            r#"{"a"  :  1  ,  }"#,
            "Expected double-quoted property name in JSON at position 15",
        ),
        // Positions count UTF-16 units, as JavaScript indexes a string.
        (
            r#"{"😀":1,}"#,
            "Expected double-quoted property name in JSON at position 8",
        ),
        (
            r#"{"a":1}x"#,
            "Unexpected non-whitespace character after JSON at position 7",
        ),
        (
            "[]]",
            "Unexpected non-whitespace character after JSON at position 2",
        ),
        (
            "AOF/1 123abc",
            "Unexpected non-whitespace character after JSON at position 3",
        ),
        ("[", "Unexpected end of JSON input"),
        ("[1,", "Unexpected end of JSON input"),
        ("[nul", "Unexpected end of JSON input"),
        ("[\"\\", "Unexpected end of JSON input"),
        ("[\"abc", "Unterminated string in JSON at position 5"),
        (
            "[\"a\tb\"]",
            "Bad control character in string literal in JSON at position 3",
        ),
        ("[\"\\x\"]", "Bad escaped character in JSON at position 3"),
        ("[\"\\é\"]", "Bad escaped character in JSON at position 3"),
        ("[\"\\u12G4\"]", "Bad Unicode escape in JSON at position 6"),
        ("[\"\\u12", "Bad Unicode escape in JSON at position 6"),
        ("[-]", "No number after minus sign in JSON at position 2"),
        (
            "[1.]",
            "Unterminated fractional number in JSON at position 3",
        ),
        (
            "[1e+]",
            "Exponent part is missing a number in JSON at position 4",
        ),
        ("[01]", "Unexpected number in JSON at position 2"),
        ("[-01]", "Unexpected number in JSON at position 3"),
        ("[t1]", "Unexpected number in JSON at position 2"),
        // An unexpected character: the whole text when it is short ...
        ("[1,]", "Unexpected token ']', \"[1,]\" is not valid JSON"),
        (
            "[trux]",
            "Unexpected token 'x', \"[trux]\" is not valid JSON",
        ),
        (
            "[\"\\€\"]",
            "Unexpected token '€', \"[\"\\€\"]\" is not valid JSON",
        ),
        (
            "AOF/1 hello",
            "Unexpected token 'h', \"hello\" is not valid JSON",
        ),
        (
            r#"{"a":[1,{"b":}]}"#,
            "Unexpected token '}', \"{\"a\":[1,{\"b\":}]}\" is not valid JSON",
        ),
        // ... else 10 units either side, `...` where it is cut.
        (
            "[x, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]",
            "Unexpected token 'x', \"[x, 2, 3, 4\"... is not valid JSON",
        ),
        (
            "[1, 2, 3, 4, 5, 6, 7, 8, 9, ]",
            "Unexpected token ']', ...\" 7, 8, 9, ]\" is not valid JSON",
        ),
        (
            "[1, 2, 3, 4, 5, 6, 7, 8, }, 10, 11, 12, 13]",
            "Unexpected token '}', ...\" 6, 7, 8, }, 10, 11,\"... is not valid JSON",
        ),
        (
            "[         }         ]",
            "Unexpected token '}', ...\"[         }         \"... is not valid JSON",
        ),
        (
            "[          }        ]",
            "Unexpected token '}', ...\"          }        ]\" is not valid JSON",
        ),
        (
            "[                 }]",
            "Unexpected token '}', \"[                 }]\" is not valid JSON",
        ),
        // The texts JavaScript names whole.
        ("[object Object]", "\"[object Object]\" is not valid JSON"),
        ("AOF/1 NaN", "\"NaN\" is not valid JSON"),
    ];
    for (text, want) in cases {
        assert_eq!(error(text), *want, "{text:?}");
    }
    // `source` says which way the text was read.
    match detect(Input::Text("AOF/1 {")) {
        Detected::Rejected(Rejection {
            detail: RejectionDetail::InvalidJson { source, .. },
            ..
        }) => assert_eq!(source, "AOF/1 prefix"),
        other => panic!("{other:?}"),
    }
}

/// 475 mutated envelopes and their `JSON.parse` messages, printed by
/// Node 20 (`json_parse_errors.json`; every kind of message, short and
/// long texts): `js_json` says what JavaScript says for each.
#[test]
fn json_parse_errors_match_node_on_mutated_envelopes() {
    let cases: Vec<Value> = serde_json::from_str(include_str!("json_parse_errors.json")).unwrap();
    assert_eq!(cases.len(), 475);
    for c in &cases {
        let text = c["text"].as_str().unwrap();
        assert_eq!(
            amail_core::aof::js_json::parse_error(text).as_deref(),
            c["error"].as_str(),
            "{text:?}"
        );
    }
}

#[test]
fn oversized_strings_are_rejected_without_parsing() {
    let big = "x".repeat(10 * 1024 * 1024 + 1);
    let r = |d: Detected| match d {
        Detected::Rejected(r) => r.reason,
        other => panic!("{other:?}"),
    };
    assert_eq!(r(detect(Input::Text(&big))), "payload_too_large");
    assert_eq!(
        r(detect(Input::Object(&json!({ "payload": big })))),
        "payload_too_large"
    );
    assert_eq!(detect(Input::Text("small chat")), Detected::NotProtocol);
}

#[test]
fn envelope_serialises_in_seed_key_order() {
    let e = ok(&env("status.update", status()));
    let line = e.to_json_line();
    let pos = |k: &str| line.find(&format!("\"{k}\"")).unwrap();
    assert!(pos("protocol") < pos("version"));
    assert!(pos("version") < pos("type"));
    assert!(pos("taskId") < pos("fromAgent"));
    assert!(pos("sentAt") < pos("payload"));
    // And it validates again.
    ok(&serde_json::from_str::<Value>(&line).unwrap());
}
