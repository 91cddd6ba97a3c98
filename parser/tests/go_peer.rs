//! The 39 leaf cases of the agentops Go parser's suite
//! (`reference/go-peer-parser.md` §6), as whole-message tests with the values
//! observed there. Where our design deliberately differs, the test asserts
//! our behaviour and says why.

use amail_parser::filter::{by_bead, by_type, completions, pending, successes};
use amail_parser::{parse, MessageType, OwnedMessage, ParseOptions};

/// Spec text framing: `Subject:`, optional headers, a blank line, `Body:`.
fn spec(subject: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut s = format!("Subject: {subject}\n");
    for (k, v) in headers {
        s.push_str(&format!("{k}: {v}\n"));
    }
    s.push_str("\nBody:\n");
    s.push_str(body);
    s
}

fn one(text: &str) -> OwnedMessage {
    let mut msgs = parse(text, &ParseOptions::default()).expect("lenient parse never fails");
    assert_eq!(msgs.len(), 1, "one message in {text:?}");
    msgs.remove(0).into_owned()
}

fn msg(subject: &str, body: &str) -> OwnedMessage {
    one(&spec(subject, &[], body))
}

fn s<'a>(v: &'a Option<std::borrow::Cow<'_, str>>) -> Option<&'a str> {
    v.as_deref()
}

fn list<'a>(v: &'a Option<Vec<std::borrow::Cow<'_, str>>>) -> Option<Vec<&'a str>> {
    v.as_ref().map(|l| l.iter().map(|x| x.as_ref()).collect())
}

// 1
#[test]
fn case01_parse_bead_accepted() {
    let m = one(&spec(
        "BEAD_ACCEPTED",
        &[
            ("Id", "msg-001"),
            ("From", "demigod-ol-527-1"),
            ("To", "crank-ol527"),
            ("Thread", "ol-527.1"),
            ("Date", "2026-01-31T10:00:00Z"),
            ("Ack-Required", "false"),
        ],
        "Accepted bead: ol-527.1\nTitle: Add authentication middleware\nStarting implementation at: 2026-01-31T10:00:00Z\n",
    ));
    assert_eq!(m.kind, MessageType::BeadAccepted);
    assert_eq!(s(&m.id), Some("msg-001"));
    assert_eq!(s(&m.parsed.bead_id), Some("ol-527.1"));
    assert_eq!(s(&m.parsed.title), Some("Add authentication middleware"));
    assert_eq!(s(&m.from), Some("demigod-ol-527-1"));
    assert_eq!(m.to, vec!["crank-ol527"]);
    assert_eq!(s(&m.thread_id), Some("ol-527.1"));
    assert!(!m.ack_required);
    assert_eq!(
        m.timestamp.map(|t| t.to_rfc3339()),
        Some("2026-01-31T10:00:00+00:00".to_string())
    );
    // Ours: `Starting implementation at` is captured (Go drops it).
    assert_eq!(s(&m.parsed.started_at), Some("2026-01-31T10:00:00Z"));
    assert_eq!(m.warnings().count(), 0, "{:?}", m.diagnostics);
}

// 2
#[test]
fn case02_bead_accepted_with_bracket_subject() {
    let m = msg(
        "[ol-527.1] BEAD_ACCEPTED",
        "Starting work on authentication middleware\n",
    );
    assert_eq!(m.kind, MessageType::BeadAccepted);
    assert_eq!(s(&m.parsed.bead_id), Some("ol-527.1"));
    // Ours: absent is `None`, not "".
    assert_eq!(m.parsed.title, None);
    assert_eq!(m.parsed.started_at, None);
    // The subject names the bead, so `Accepted bead` is not missing.
    assert_eq!(m.warnings().count(), 0, "{:?}", m.diagnostics);
}

// 3
#[test]
fn case03_parse_progress() {
    let m = msg(
        "PROGRESS",
        "Bead: ol-527.1\nStep: Step 4 - implementing auth middleware\nStatus: Writing middleware handler\nContext usage: 45%\nFiles touched: src/auth.py, tests/test_auth.py\n",
    );
    assert_eq!(m.kind, MessageType::Progress);
    assert_eq!(s(&m.parsed.bead_id), Some("ol-527.1"));
    assert_eq!(
        s(&m.parsed.step),
        Some("Step 4 - implementing auth middleware")
    );
    assert_eq!(s(&m.parsed.status), Some("Writing middleware handler"));
    assert_eq!(m.parsed.context_usage, Some(45));
    assert_eq!(
        list(&m.parsed.files_touched),
        Some(vec!["src/auth.py", "tests/test_auth.py"])
    );
    assert_eq!(m.warnings().count(), 0, "{:?}", m.diagnostics);
}

// 4
#[test]
fn case04_parse_help_request() {
    let m = one(&spec(
        "HELP_REQUEST",
        &[("Ack-Required", "true")],
        "Bead: ol-527.2\nIssue Type: STUCK\n\n## Problem\nCannot find the existing auth module to integrate with.\n\n## What I Tried\n- Searched for auth.py\n- Checked lib/ directory\n- Looked at imports in main.py\n\n## Files Touched\n- src/main.py\n- lib/utils.py\n\n## Question\nWhere is the existing authentication module located?\n",
    ));
    assert_eq!(m.kind, MessageType::HelpRequest);
    assert_eq!(s(&m.parsed.bead_id), Some("ol-527.2"));
    assert_eq!(s(&m.parsed.issue_type), Some("STUCK"));
    assert_eq!(
        s(&m.parsed.problem),
        Some("Cannot find the existing auth module to integrate with.")
    );
    assert_eq!(
        s(&m.parsed.what_tried),
        Some("- Searched for auth.py\n- Checked lib/ directory\n- Looked at imports in main.py")
    );
    assert_eq!(
        s(&m.parsed.question),
        Some("Where is the existing authentication module located?")
    );
    assert_eq!(
        list(&m.parsed.files_touched),
        Some(vec!["src/main.py", "lib/utils.py"])
    );
    assert!(m.ack_required);
    assert_eq!(m.warnings().count(), 0, "{:?}", m.diagnostics);
}

// 5a-d: one leaf per Issue Type.
fn help_request_variant(x: &str) {
    let m = msg(
        "HELP_REQUEST",
        &format!("Bead: test-123\nIssue Type: {x}\n\n## Problem\nTest"),
    );
    assert_eq!(s(&m.parsed.issue_type), Some(x));
    assert_eq!(s(&m.parsed.bead_id), Some("test-123"));
    assert_eq!(s(&m.parsed.problem), Some("Test"));
    // No `## Question` but a `## Problem`: the requirement is met.
    assert_eq!(m.warnings().count(), 0, "{x}: {:?}", m.diagnostics);
}

#[test]
fn case05a_help_request_stuck() {
    help_request_variant("STUCK");
}

#[test]
fn case05b_help_request_spec_unclear() {
    help_request_variant("SPEC_UNCLEAR");
}

#[test]
fn case05c_help_request_blocked() {
    help_request_variant("BLOCKED");
}

#[test]
fn case05d_help_request_technical() {
    help_request_variant("TECHNICAL");
}

const OFFERING_BODY: &str = "Bead: ol-527.1\nStatus: DONE\n\n## Changes\n- Commit: abc123def\n- Files: src/auth.py, tests/test_auth.py, src/middleware.py\n\n## Self-Validation\n- Tests: PASS\n- Lint: PASS\n- Build: PASS\n\n## Summary\nAdded JWT authentication middleware with token validation and refresh logic.\n";

// 6
#[test]
fn case06_parse_offering_ready() {
    let m = one(&spec(
        "OFFERING_READY",
        &[("Ack-Required", "true")],
        OFFERING_BODY,
    ));
    assert_eq!(m.kind, MessageType::OfferingReady);
    assert_eq!(s(&m.parsed.bead_id), Some("ol-527.1"));
    assert_eq!(s(&m.parsed.status), Some("DONE"));
    assert_eq!(s(&m.parsed.commit_sha), Some("abc123def"));
    assert_eq!(m.parsed.tests_pass, Some(true));
    assert_eq!(m.parsed.lint_pass, Some(true));
    assert_eq!(m.parsed.build_pass, Some(true));
    assert_eq!(
        list(&m.parsed.files),
        Some(vec![
            "src/auth.py",
            "tests/test_auth.py",
            "src/middleware.py"
        ])
    );
    assert_eq!(
        s(&m.parsed.summary),
        Some("Added JWT authentication middleware with token validation and refresh logic.")
    );
    assert!(m.kind.is_completion());
    let v = vec![m];
    assert_eq!(successes(&v).len(), 1);
    assert!(v[0].ack_required);
    assert_eq!(v[0].warnings().count(), 0, "{:?}", v[0].diagnostics);
}

// 7
#[test]
fn case07_parse_done() {
    let m = msg(
        "[ol-527.3] DONE",
        "Bead: ol-527.3\nStatus: DONE\n\n## Changes\n- Commit: def456abc\n- Files: docs/api.md\n\n## Self-Validation\n- Tests: PASS\n- Lint: PASS\n- Build: PASS\n\n## Summary\nUpdated API documentation with new endpoints.\n",
    );
    assert_eq!(m.kind, MessageType::Done);
    assert!(m.kind.is_completion());
    assert_eq!(s(&m.parsed.bead_id), Some("ol-527.3"));
    assert_eq!(s(&m.parsed.status), Some("DONE"));
    assert_eq!(s(&m.parsed.commit_sha), Some("def456abc"));
    assert_eq!(list(&m.parsed.files), Some(vec!["docs/api.md"]));
    assert_eq!(
        s(&m.parsed.summary),
        Some("Updated API documentation with new endpoints.")
    );
    let v = vec![m];
    assert_eq!(successes(&v).len(), 1);
    assert_eq!(v[0].warnings().count(), 0, "{:?}", v[0].diagnostics);
}

// 8
#[test]
fn case08_parse_failed() {
    let m = msg(
        "FAILED",
        "Bead: ol-527.4\nStatus: FAILED\n\n## Failure\nType: TESTS_FAIL\nReason: Integration tests fail due to missing database connection\nInternal Attempts: 3\n\n## Partial Progress\n- Commit: ghi789\n- Files: src/db.py, tests/test_db.py\n\n## Recommendation\nCheck database configuration and ensure test fixtures are properly set up.\n",
    );
    assert_eq!(m.kind, MessageType::Failed);
    assert_eq!(s(&m.parsed.bead_id), Some("ol-527.4"));
    assert_eq!(s(&m.parsed.status), Some("FAILED"));
    assert_eq!(s(&m.parsed.failure_type), Some("TESTS_FAIL"));
    assert_eq!(
        s(&m.parsed.reason),
        Some("Integration tests fail due to missing database connection")
    );
    assert_eq!(m.parsed.internal_attempts, Some(3));
    assert_eq!(s(&m.parsed.partial_commit_sha), Some("ghi789"));
    assert_eq!(
        list(&m.parsed.files),
        Some(vec!["src/db.py", "tests/test_db.py"])
    );
    assert_eq!(
        s(&m.parsed.recommendation),
        Some("Check database configuration and ensure test fixtures are properly set up.")
    );
    assert!(m.kind.is_completion());
    let v = vec![m];
    assert!(successes(&v).is_empty());
    assert_eq!(v[0].warnings().count(), 0, "{:?}", v[0].diagnostics);
}

// 9a-e: one leaf per Failure Type.
fn failed_variant(x: &str) {
    let m = msg(
        "FAILED",
        &format!("Bead: test-123\n\n## Failure\nType: {x}\nReason: Test failure"),
    );
    assert_eq!(s(&m.parsed.failure_type), Some(x));
    assert_eq!(s(&m.parsed.reason), Some("Test failure"));
    // Ours: Go hard-codes Status "FAILED"; we report what the body says
    // (nothing here), so absent is `None`.
    assert_eq!(m.parsed.status, None);
    assert_eq!(m.warnings().count(), 0, "{x}: {:?}", m.diagnostics);
}

#[test]
fn case09a_failed_tests_fail() {
    failed_variant("TESTS_FAIL");
}

#[test]
fn case09b_failed_build_fail() {
    failed_variant("BUILD_FAIL");
}

#[test]
fn case09c_failed_spec_impossible() {
    failed_variant("SPEC_IMPOSSIBLE");
}

#[test]
fn case09d_failed_context_high() {
    failed_variant("CONTEXT_HIGH");
}

#[test]
fn case09e_failed_error() {
    failed_variant("ERROR");
}

// 10
#[test]
fn case10_parse_checkpoint() {
    let m = msg(
        "CHECKPOINT",
        "Bead: ol-527.5\nReason: CONTEXT_HIGH\n\n## Progress\n- Commit: jkl012\n- Description: Steps 1-3 complete, Step 4 in progress\n- Context usage: 85%\n\n## Next Steps for Successor\n1. Complete Step 4 token refresh\n2. Add integration tests\n3. Update documentation\n",
    );
    assert_eq!(m.kind, MessageType::Checkpoint);
    assert_eq!(s(&m.parsed.bead_id), Some("ol-527.5"));
    assert_eq!(s(&m.parsed.checkpoint_reason), Some("CONTEXT_HIGH"));
    assert_eq!(s(&m.parsed.partial_commit_sha), Some("jkl012"));
    assert_eq!(m.parsed.context_usage, Some(85));
    assert_eq!(
        s(&m.parsed.progress),
        Some("Steps 1-3 complete, Step 4 in progress")
    );
    assert_eq!(
        s(&m.parsed.next_steps),
        Some("1. Complete Step 4 token refresh\n2. Add integration tests\n3. Update documentation")
    );
    assert!(m.kind.is_completion());
    let v = vec![m];
    assert!(successes(&v).is_empty());
    assert_eq!(v[0].warnings().count(), 0, "{:?}", v[0].diagnostics);
}

// 11
#[test]
fn case11_parse_spawn_request() {
    let m = one(&spec(
        "SPAWN_REQUEST",
        &[("Ack-Required", "true")],
        "Issue: ol-527.6\nResume: true\nCheckpoint: jkl012\nOrchestrator: crank-ol527\n",
    ));
    assert_eq!(m.kind, MessageType::SpawnRequest);
    assert_eq!(s(&m.parsed.issue_id), Some("ol-527.6"));
    assert_eq!(m.parsed.resume, Some(true));
    assert_eq!(s(&m.parsed.partial_commit_sha), Some("jkl012"));
    assert_eq!(s(&m.parsed.orchestrator), Some("crank-ol527"));
    assert_eq!(m.parsed.bead_id, None);
    assert!(m.ack_required);
    assert_eq!(m.warnings().count(), 0, "{:?}", m.diagnostics);
}

// 12
#[test]
fn case12_parse_spawn_ack() {
    let m = msg(
        "SPAWN_ACK",
        "Issue: ol-527.6\nStatus: spawned\nSession: demigod-ol-527-6\n",
    );
    assert_eq!(m.kind, MessageType::SpawnAck);
    assert_eq!(s(&m.parsed.issue_id), Some("ol-527.6"));
    assert_eq!(s(&m.parsed.status), Some("spawned"));
    // Ours: the spec's `Session:` is captured (Go drops it).
    assert_eq!(s(&m.parsed.session), Some("demigod-ol-527-6"));
    assert_eq!(m.parsed.bead_id, None);
    assert_eq!(m.warnings().count(), 0, "{:?}", m.diagnostics);
}

// 13
#[test]
fn case13_parse_unknown_type() {
    let m = msg("RANDOM_MESSAGE", "Some content");
    assert_eq!(m.kind, MessageType::Unknown);
    // Ours: the unknown token is kept rather than collapsed.
    assert_eq!(s(&m.raw_type), Some("RANDOM_MESSAGE"));
    assert_eq!(m.parsed, Default::default());
    // Unknown types are an info in lenient mode, an error in strict mode.
    assert_eq!(m.warnings().count(), 0);
    assert!(m.diagnostics.iter().any(|d| d.code == "unknown-type"));
    let err = parse(
        &spec("RANDOM_MESSAGE", &[], "Some content"),
        &ParseOptions::strict(),
    )
    .unwrap_err();
    assert_eq!(err.code.as_str(), "unknown-type");
    assert_eq!((err.line, err.column), (1, 10));
}

// 14: `Parse(nil)` has no Rust counterpart (no null input); the closest is
// an empty document, which holds no message in either mode (issue 12: empty
// standard input is zero messages, not an UNKNOWN one).
#[test]
fn case14_parse_nil_message() {
    assert!(parse("", &ParseOptions::default()).unwrap().is_empty());
    assert!(parse("", &ParseOptions::strict()).unwrap().is_empty());
    // Anything that is not blank is still a message, however bare.
    let m = one("x");
    assert_eq!(m.kind, MessageType::Unknown);
    assert!(m.diagnostics.iter().any(|d| d.code == "no-subject"));
    let err = parse("x", &ParseOptions::strict()).unwrap_err();
    assert_eq!(err.code.as_str(), "no-subject");
    assert_eq!((err.line, err.column), (1, 1));
}

// 15
#[test]
fn case15_parse_timestamp() {
    let m = one(&spec(
        "PROGRESS",
        &[("Date", "2026-01-31T10:30:00Z")],
        "Bead: test-123",
    ));
    let ts = m.timestamp.expect("timestamp");
    assert_eq!(ts.to_rfc3339(), "2026-01-31T10:30:00+00:00");
    assert_eq!(s(&m.parsed.bead_id), Some("test-123"));
}

// 16: ParseBatch, as a JSON array of three message objects (one document).
#[test]
fn case16_parse_batch() {
    let doc = r#"[
  {"id": "1", "subject": "BEAD_ACCEPTED", "body_md": "Accepted bead: test-1"},
  {"id": "2", "subject": "PROGRESS", "body_md": "Bead: test-1\nStep: Working"},
  {"id": "3", "subject": "OFFERING_READY", "body_md": "Bead: test-1\nStatus: DONE"}
]"#;
    let msgs = parse(doc, &ParseOptions::default()).unwrap();
    let kinds: Vec<_> = msgs.iter().map(|m| m.kind).collect();
    assert_eq!(
        kinds,
        [
            MessageType::BeadAccepted,
            MessageType::Progress,
            MessageType::OfferingReady
        ]
    );
    for m in &msgs {
        assert_eq!(s(&m.parsed.bead_id), Some("test-1"));
    }
    assert_eq!(s(&msgs[1].parsed.step), Some("Working"));
    assert_eq!(s(&msgs[2].parsed.status), Some("DONE"));
    // The same batch in strict mode has no error.
    assert_eq!(parse(doc, &ParseOptions::strict()).unwrap().len(), 3);
}

fn typed(kind: &str, bead: &str) -> OwnedMessage {
    msg(&format!("[{bead}] {kind}"), &format!("Bead: {bead}\n"))
}

// 17
#[test]
fn case17_filter_by_type() {
    let v: Vec<_> = ["BEAD_ACCEPTED", "PROGRESS", "PROGRESS", "OFFERING_READY"]
        .iter()
        .map(|t| typed(t, "t-1"))
        .collect();
    let got = by_type(&v, MessageType::Progress);
    assert_eq!(got.len(), 2);
    assert!(got.iter().all(|m| m.kind == MessageType::Progress));
}

// 18
#[test]
fn case18_filter_by_bead_id() {
    let v = vec![
        typed("PROGRESS", "test-1"),
        typed("PROGRESS", "test-2"),
        typed("OFFERING_READY", "test-1"),
    ];
    let got = by_bead(&v, "test-1");
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].kind, MessageType::Progress);
    assert_eq!(got[1].kind, MessageType::OfferingReady);
}

// 19
#[test]
fn case19_filter_completions() {
    let v: Vec<_> = [
        "PROGRESS",
        "OFFERING_READY",
        "DONE",
        "FAILED",
        "CHECKPOINT",
        "BEAD_ACCEPTED",
    ]
    .iter()
    .map(|t| typed(t, "t-1"))
    .collect();
    let kinds: Vec<_> = completions(&v).iter().map(|m| m.kind).collect();
    assert_eq!(
        kinds,
        [
            MessageType::OfferingReady,
            MessageType::Done,
            MessageType::Failed,
            MessageType::Checkpoint
        ]
    );
}

// 20
#[test]
fn case20_filter_successes() {
    let v: Vec<_> = ["OFFERING_READY", "DONE", "FAILED", "CHECKPOINT"]
        .iter()
        .map(|t| typed(t, "t-1"))
        .collect();
    assert_eq!(successes(&v).len(), 2);
    // Ours: a DONE whose self-validation reports a FAIL is not a success
    // (Go counts it); the design defines success that way.
    let failing = msg(
        "DONE",
        "Bead: t-1\n\n## Self-Validation\n- Tests: FAIL\n- Lint: PASS\n- Build: PASS\n",
    );
    assert_eq!(failing.parsed.tests_pass, Some(false));
    let v = vec![failing];
    assert!(successes(&v).is_empty());
}

// 21: ack state lives outside the mail, so `pending` takes the viewer's
// "acked" predicate; here message ids stand for the acked set.
#[test]
fn case21_filter_pending() {
    let mk = |id: &str, kind: &str, ack: bool| {
        one(&spec(
            kind,
            &[
                ("Id", id),
                ("Ack-Required", if ack { "true" } else { "false" }),
            ],
            "Bead: t-1\n",
        ))
    };
    let v = vec![
        mk("a", "OFFERING_READY", true),
        mk("b", "PROGRESS", false),
        mk("c", "HELP_REQUEST", true),
        mk("d", "DONE", true),
    ];
    let acked = |m: &amail_parser::Message<'_>| m.id.as_deref() == Some("c");
    let got: Vec<_> = pending(&v, acked)
        .iter()
        .map(|m| m.id.as_deref().unwrap())
        .collect();
    assert_eq!(got, ["a", "d"]);
}

// 22a-f: the Go test calls its subject helper directly; here each subject
// becomes a whole message with a body that names no bead.
fn bead_from_subject(subject: &str, want: Option<&str>) {
    let m = msg(subject, "Some text\n");
    assert_eq!(s(&m.parsed.bead_id), want, "{subject}");
}

#[test]
fn case22a_subject_brackets() {
    bead_from_subject("[ol-527.1] PROGRESS", Some("ol-527.1"));
}

#[test]
fn case22b_subject_brackets_test_id() {
    bead_from_subject("[test-123] DONE", Some("test-123"));
}

#[test]
fn case22c_subject_brackets_dotted_id() {
    bead_from_subject("[ag-p43.13] OFFERING_READY", Some("ag-p43.13"));
}

#[test]
fn case22d_subject_colon_prefix() {
    bead_from_subject("ol-527.1: PROGRESS", Some("ol-527.1"));
}

#[test]
fn case22e_subject_type_only() {
    bead_from_subject("PROGRESS", None);
}

#[test]
fn case22f_subject_plain_text() {
    bead_from_subject("Just a message", None);
}

// 23
#[test]
fn case23_parse_validation_failures() {
    let m = msg(
        "OFFERING_READY",
        "Bead: test-fail\nStatus: DONE\n\n## Self-Validation\n- Tests: FAIL\n- Lint: PASS\n- Build: FAIL\n",
    );
    assert_eq!(m.parsed.tests_pass, Some(false));
    assert_eq!(m.parsed.lint_pass, Some(true));
    assert_eq!(m.parsed.build_pass, Some(false));
    // Ours: absent values are `None` (Go gives "", nil).
    assert_eq!(m.parsed.commit_sha, None);
    assert_eq!(m.parsed.files, None);
    assert_eq!(m.parsed.summary, None);
}

// 24a-c: the Go test calls its file-list helper directly; here each list
// shape sits in a whole message. A one-per-line list (no bullets) is what a
// `## Files Touched` section holds; the comma and bullet shapes are the
// `- Files:` field of `## Changes`.
#[test]
fn case24a_file_list_comma() {
    let m = msg(
        "DONE",
        "Bead: t-1\n\n## Changes\n- Commit: abc\n- Files: src/auth.py, tests/test_auth.py, lib/utils.py\n",
    );
    assert_eq!(
        list(&m.parsed.files),
        Some(vec!["src/auth.py", "tests/test_auth.py", "lib/utils.py"])
    );
}

#[test]
fn case24b_file_list_newline() {
    let m = msg(
        "HELP_REQUEST",
        "Bead: t-1\nIssue Type: STUCK\n\n## Files Touched\nsrc/auth.py\ntests/test_auth.py\n\n## Question\nwhere?\n",
    );
    assert_eq!(
        list(&m.parsed.files_touched),
        Some(vec!["src/auth.py", "tests/test_auth.py"])
    );
}

#[test]
fn case24c_file_list_markdown() {
    let m = msg(
        "DONE",
        "Bead: t-1\n\n## Changes\n- Commit: abc\n- Files:\n  - src/auth.py\n  - tests/test_auth.py\n\n## Summary\nx\n",
    );
    assert_eq!(
        list(&m.parsed.files),
        Some(vec!["src/auth.py", "tests/test_auth.py"])
    );
    // A `Files:` line with no items is absent, not an empty list.
    let empty = msg("DONE", "Bead: t-1\n\n## Changes\n- Commit: abc\n- Files:\n");
    assert_eq!(empty.parsed.files, None);
}

// 25
#[test]
fn case25_help_response() {
    let m = one(&spec(
        "HELP_RESPONSE",
        &[("Thread", "ol-527.2")],
        "The authentication module is located at lib/auth/middleware.py",
    ));
    assert_eq!(m.kind, MessageType::HelpResponse);
    assert_eq!(s(&m.thread_id), Some("ol-527.2"));
    // Ours: the guidance text is captured (Go has no field for it).
    assert_eq!(
        s(&m.parsed.guidance),
        Some("The authentication module is located at lib/auth/middleware.py")
    );
    assert_eq!(m.parsed.bead_id, None);
}

// §3.2 observed type table: where the design differs, our values.
#[test]
fn type_detection_differences() {
    for (subject, want, reply) in [
        // Whole-token matching: Go's substring search gives DONE/PROGRESS/...
        ("Abandoned", MessageType::Unknown, false),
        ("undone", MessageType::Unknown, false),
        ("work in progress", MessageType::Unknown, false),
        ("SPAWN_ACKNOWLEDGED", MessageType::Unknown, false),
        // `Re:` of a help request is a reply in the help thread.
        ("Re: HELP_REQUEST", MessageType::HelpResponse, true),
        ("offering_ready", MessageType::OfferingReady, false),
        ("help-request", MessageType::HelpRequest, false),
        ("HELP REQUEST", MessageType::HelpRequest, false),
        ("HELP_ROUTE", MessageType::Unknown, false),
    ] {
        let m = msg(subject, "Some text\n");
        assert_eq!((m.kind, m.is_reply), (want, reply), "{subject}");
    }
}
