//! The bridge's mapping table, message type by message type (DESIGN.md,
//! "AOF events and the bridge"). Messages come from the real parser where
//! that is clearest, and are built by hand where a field must be absent.

use amail_core::aof::{Envelope, MessageKind, Outcome, Payload, TaskStatus};
use amail_core::bridge::{self, to_envelope};
use amail_parser::{parse, Message, MessageType, ParseOptions};
use serde_json::json;

const TASK: &str = "TASK-2026-11-22-ABCDEFGH";

fn msg(subject: &str, body: &str) -> Message<'static> {
    let text = format!("Subject: {subject}\nFrom: worker\nTo: boss\nId: 7\nDate: 2026-11-22T03:00:00.123456Z\n\nBody:\n{body}\n");
    let text: &'static str = Box::leak(text.into_boxed_str());
    let mut v = parse(text, &ParseOptions::default()).unwrap();
    assert_eq!(v.len(), 1);
    v.remove(0)
}

fn env(m: &Message<'_>) -> Envelope {
    to_envelope(m, TASK).unwrap_or_else(|| panic!("no envelope for {:?}", m.kind))
}

fn status_update(e: &Envelope) -> &amail_core::aof::StatusUpdate {
    match &e.payload {
        Payload::StatusUpdate(p) => p,
        other => panic!("{other:?}"),
    }
}

fn completion(e: &Envelope) -> &amail_core::aof::CompletionReport {
    match &e.payload {
        Payload::CompletionReport(p) => p,
        other => panic!("{other:?}"),
    }
}

#[test]
fn envelope_fields_come_from_the_mail() {
    let m = msg(
        "[bd-1] PROGRESS",
        "Bead: bd-1\nStep: Step 1 - x\nStatus: ok",
    );
    let e = env(&m);
    assert_eq!(e.protocol, "aof");
    assert_eq!(e.version, 1);
    assert_eq!(e.task_id, TASK);
    assert_eq!(e.from_agent, "worker");
    assert_eq!(e.to_agent, "boss");
    // sentAt: the mail's creation time, UTC, milliseconds, Z.
    assert_eq!(e.sent_at, "2026-11-22T03:00:00.123Z");
    // The envelope we print validates as AOF/1.
    let v: serde_json::Value = serde_json::from_str(&e.to_json_line()).unwrap();
    assert!(amail_core::aof::validate::envelope_from_value(&v).is_ok());
}

#[test]
fn bead_accepted() {
    let e = env(&msg(
        "[bd-1] BEAD_ACCEPTED",
        "Accepted bead: bd-1\nTitle: Add auth\nStarting implementation at: 2026-01-01T10:00:00Z",
    ));
    assert_eq!(e.kind, MessageKind::StatusUpdate);
    let p = status_update(&e);
    assert_eq!(p.status, Some(TaskStatus::InProgress));
    assert_eq!(p.progress.as_deref(), Some("accepted: Add auth"));
    assert_eq!(p.agent_id, "worker");
    assert_eq!(p.task_id, TASK);
}

#[test]
fn progress() {
    let e = env(&msg(
        "[bd-1] PROGRESS",
        "Bead: bd-1\nStep: Step 4 - implementing auth\nStatus: running tests\nContext usage: 45%\nFiles touched: a.rs, b.rs",
    ));
    let p = status_update(&e);
    assert_eq!(p.status, None);
    assert_eq!(
        p.progress.as_deref(),
        Some("Step 4 - implementing auth: running tests")
    );
    assert_eq!(p.notes.as_deref(), Some("context 45%; files: a.rs, b.rs"));
    assert_eq!(p.blockers, None);
    // Only what was reported: no context, no files -> no notes.
    let e = env(&msg("[bd-1] PROGRESS", "Bead: bd-1\nStatus: thinking"));
    let p = status_update(&e);
    assert_eq!(p.progress.as_deref(), Some("thinking"));
    assert_eq!(p.notes, None);
}

#[test]
fn help_request_blocks_only_for_blocked() {
    let body = |t: &str| {
        format!("Bead: bd-1\nIssue Type: {t}\n\n## Problem\nFirst line.\nSecond line.\n\n## Question\nWhat now?")
    };
    let e = env(&msg("[bd-1] HELP_REQUEST", &body("SPEC_UNCLEAR")));
    let p = status_update(&e);
    assert_eq!(p.status, None);
    assert_eq!(
        p.blockers,
        Some(vec!["SPEC_UNCLEAR: First line.".to_string()])
    );
    assert_eq!(p.notes.as_deref(), Some("What now?"));
    let e = env(&msg("[bd-1] HELP_REQUEST", &body("BLOCKED")));
    assert_eq!(status_update(&e).status, Some(TaskStatus::Blocked));
}

#[test]
fn help_response_reply_carries_the_guidance() {
    let m = msg(
        "Re: [bd-1] HELP_REQUEST",
        "HELP_RESPONSE\n\nKeep the index.",
    );
    assert_eq!(m.kind, MessageType::HelpResponse);
    assert!(m.is_reply);
    let p = status_update(&env(&m)).clone();
    assert_eq!(p.notes.as_deref(), Some("Keep the index."));
    assert_eq!(p.status, None);
    // The worker is the one the answer is for.
    assert_eq!(bridge::worker_of(&m).as_deref(), Some("boss"));
}

#[test]
fn other_replies_and_unknown_types_stay_in_the_inbox() {
    // (A reply in a help thread is the parser's HELP_RESPONSE; a reply to
    // anything else is conversation.)
    let m = msg("Re: [bd-1] PROGRESS", "Nice.");
    assert!(m.is_reply);
    assert_ne!(m.kind, MessageType::HelpResponse);
    assert!(to_envelope(&m, TASK).is_none());
    assert!(to_envelope(&msg("Wave 1 status", "Both beads reported."), TASK).is_none());
    // No bead anywhere: nothing to route to.
    assert!(to_envelope(&msg("PROGRESS", "Step: x\nStatus: y"), TASK).is_none());
}

#[test]
fn offering_ready_counts_only_reported_checks() {
    let e = env(&msg(
        "[bd-1] OFFERING_READY",
        "Bead: bd-1\nStatus: DONE\n\n## Changes\n- Commit: abc\n- Files: a.rs, b.rs\n\n## Self-Validation\n- Tests: PASS\n- Build: FAIL\n\n## Summary\nDid it.",
    ));
    assert_eq!(e.kind, MessageKind::CompletionReport);
    let p = completion(&e);
    assert_eq!(p.outcome, Outcome::NeedsReview);
    assert_eq!(p.deliverables, ["a.rs", "b.rs"]);
    // Lint was not reported: two checks, not three.
    assert_eq!(
        serde_json::to_value(p.tests).unwrap(),
        json!({ "total": 2, "passed": 1, "failed": 1 })
    );
    assert_eq!(p.summary_ref, "outputs/summary.md");
    assert_eq!(p.notes, "");
    assert!(p.blockers.is_empty());
}

#[test]
fn done_is_done_unless_a_check_failed() {
    let body = |b: &str| {
        format!("Bead: bd-1\nStatus: DONE\n\n## Self-Validation\n- Tests: PASS\n- Lint: PASS\n- Build: {b}\n\n## Summary\nS.")
    };
    assert_eq!(
        completion(&env(&msg("[bd-1] DONE", &body("PASS")))).outcome,
        Outcome::Done
    );
    assert_eq!(
        completion(&env(&msg("[bd-1] DONE", &body("FAIL")))).outcome,
        Outcome::NeedsReview
    );
    // No checks reported: zero counts, not invented passes.
    let p = completion(&env(&msg("[bd-1] DONE", "Bead: bd-1\nStatus: DONE"))).clone();
    assert_eq!(
        serde_json::to_value(p.tests).unwrap(),
        json!({ "total": 0, "passed": 0, "failed": 0 })
    );
    assert_eq!(p.outcome, Outcome::Done);
}

#[test]
fn failed_is_blocked_with_reason_and_recommendation() {
    let e = env(&msg(
        "[bd-1] FAILED",
        "Bead: bd-1\nStatus: FAILED\n\n## Failure\nType: TESTS_FAIL\nReason: flaky db\nInternal Attempts: 3\n\n## Recommendation\nPin the db version.",
    ));
    let p = completion(&e);
    assert_eq!(p.outcome, Outcome::Blocked);
    assert_eq!(p.blockers, ["TESTS_FAIL: flaky db"]);
    assert_eq!(p.notes, "Pin the db version.");
}

#[test]
fn checkpoint_is_partial_with_progress_and_next_steps() {
    let m = msg(
        "[bd-1] CHECKPOINT",
        "Bead: bd-1\nReason: CONTEXT_HIGH\n\n## Progress\n- Commit: abc\n- Description: half the endpoints\n- Context usage: 85%\n\n## Next Steps for Successor\nFinish the rest.",
    );
    let p = completion(&env(&m)).clone();
    assert_eq!(p.outcome, Outcome::Partial);
    assert!(p.notes.contains("Finish the rest."), "{}", p.notes);
    if let Some(progress) = m.parsed.progress.as_deref() {
        assert!(p.notes.starts_with(progress.trim()), "{}", p.notes);
    }
}

#[test]
fn spawn_messages_are_recorded_as_notes() {
    let mut m = msg("[bd-9] PROGRESS", "Bead: bd-9\nStatus: x");
    m.kind = MessageType::SpawnRequest;
    m.parsed = Default::default();
    m.parsed.issue_id = Some("bd-9".into());
    let p = status_update(&env(&m)).clone();
    assert_eq!(p.status, None);
    assert_eq!(p.notes.as_deref(), Some("spawn requested for bd-9"));
    m.kind = MessageType::SpawnAck;
    m.parsed.session = Some("s-1".into());
    assert_eq!(
        status_update(&env(&m)).notes.as_deref(),
        Some("spawn acknowledged for bd-9 (session s-1)")
    );
    // Spawn traffic names no worker for the task.
    assert_eq!(bridge::worker_of(&m), None);
}

#[test]
fn standalone_ids_match_what_the_router_creates() {
    let m = msg("[bd-1] PROGRESS", "Bead: bd-1\nStatus: ok");
    let e = bridge::to_envelope_standalone(&m).unwrap();
    assert!(
        amail_core::aof::is_valid_task_id(&e.task_id),
        "{}",
        e.task_id
    );
    assert!(e.task_id.starts_with("TASK-2026-11-22-"));
    assert_eq!(
        e.task_id,
        bridge::to_envelope_standalone(&m).unwrap().task_id
    );
}

#[test]
fn dedupe_keys() {
    let a = msg("[bd-1] PROGRESS", "Bead: bd-1\nStatus: ok");
    // Outside mcp_agent_mail, an id alone is not trusted to be unique.
    assert_eq!(
        bridge::dedupe_key(&a),
        "mail::7:worker:2026-11-22T03:00:00.123456+00:00"
    );
    let mut p = a.clone();
    p.project = Some("proj".into());
    assert_eq!(bridge::dedupe_key(&p), "mail:proj:7");
    let mut b = a.clone();
    b.id = None;
    let k = bridge::dedupe_key(&b);
    assert!(k.starts_with("mail::sha:"));
    let mut c = b.clone();
    c.body = "Bead: bd-1\nStatus: other".into();
    assert_ne!(bridge::dedupe_key(&c), k);
}

/// AOF's SEC-003 limits hold for every envelope the bridge builds: a mail
/// whose text is longer than a field allows is clipped to fit, so the
/// envelope `amail parse --format aof` prints is one AOF (and our own
/// router) accepts.
#[test]
fn envelopes_from_long_mail_stay_within_aof_size_limits() {
    let long = |n: usize| "x".repeat(n);
    let files: Vec<String> = (0..60).map(|i| format!("{i}{}", long(300))).collect();
    let mails = [
        msg(
            "Re: [bd-1] HELP_REQUEST",
            &format!("HELP_RESPONSE\n\n{}", long(12_000)),
        ),
        msg(
            "[bd-1] PROGRESS",
            &format!("Bead: bd-1\nStep: {}\nStatus: ok", long(1_500)),
        ),
        msg(
            "[bd-1] HELP_REQUEST",
            &format!(
                "Bead: bd-1\nIssue Type: BLOCKED\n\n## Problem\n{}\n\n## Question\n{}",
                long(400),
                long(11_000)
            ),
        ),
        msg(
            "[bd-1] DONE",
            &format!(
                "Bead: bd-1\nStatus: DONE\n\n## Changes\n- Files: {}\n\n## Summary\nS.",
                files.join(", ")
            ),
        ),
        msg(
            "[bd-1] FAILED",
            &format!(
                "Bead: bd-1\nStatus: FAILED\n\n## Failure\nType: TESTS_FAIL\nReason: {}\n\n## Recommendation\n{}",
                long(400),
                long(10_500)
            ),
        ),
    ];
    for m in &mails {
        let e = env(m);
        let v: serde_json::Value = serde_json::from_str(&e.to_json_line()).unwrap();
        let r = amail_core::aof::validate::envelope_from_value(&v);
        assert!(r.is_ok(), "{:?}: {:?}", m.kind, r.err());
    }
    // Clipped, not dropped.
    let p = status_update(&env(&mails[0])).clone();
    assert_eq!(p.notes.as_deref().map(str::len), Some(10_000));
    assert_eq!(completion(&env(&mails[3])).deliverables.len(), 50);
}
