//! The design's parsing rules ("The parser" in DESIGN.md), one test per
//! rule family: subject forms, labels, sections, lists, numbers, PASS/FAIL,
//! headers and framings. Where the Go parser differs, the comment says so.

use amail_parser::{parse, MessageType, OwnedMessage, ParseOptions};

fn one(text: &str) -> OwnedMessage {
    let mut v = parse(text, &ParseOptions::default()).unwrap();
    assert_eq!(v.len(), 1, "{text}");
    v.remove(0).into_owned()
}

fn subject(s: &str) -> OwnedMessage {
    one(&format!("Subject: {s}\n\nBody:\nStatus: x\n"))
}

fn codes(m: &OwnedMessage) -> Vec<(&str, u32, u32)> {
    m.diagnostics
        .iter()
        .map(|d| (d.code.as_ref(), d.line, d.column))
        .collect()
}

/// The message of `m`'s first diagnostic of `code`, as text; a test of
/// `what` fails naming every diagnostic when there is none.
fn message_of(m: &OwnedMessage, code: &str, what: &str) -> String {
    m.diagnostics
        .iter()
        .find(|d| d.code.as_ref() == code)
        .unwrap_or_else(|| panic!("{what}: no {code} in {:?}", codes(m)))
        .message
        .to_string()
}

#[test]
fn subject_forms() {
    for (s, kind, bead, reply) in [
        (
            "[ol-527.1] PROGRESS",
            MessageType::Progress,
            Some("ol-527.1"),
            false,
        ),
        ("[ol-1]DONE", MessageType::Done, Some("ol-1"), false),
        // Brackets are trimmed (Go keeps the spaces).
        ("[ ol-1 ] DONE", MessageType::Done, Some("ol-1"), false),
        // Leading spaces and reply chains do not hide the bead (Go: "").
        ("  [ol-1] DONE", MessageType::Done, Some("ol-1"), false),
        ("Re: [ol-1] DONE", MessageType::Done, Some("ol-1"), true),
        (
            "Re[2]: [ol-1] PROGRESS",
            MessageType::Progress,
            Some("ol-1"),
            true,
        ),
        // `id: TYPE` with several hyphens, underscores, spaces (Go: "").
        ("gt-123: done", MessageType::Done, Some("gt-123"), false),
        (
            "my-bead-1: DONE",
            MessageType::Done,
            Some("my-bead-1"),
            false,
        ),
        ("Fwd: ol_527: done", MessageType::Done, Some("ol_527"), true),
        ("ol-1 : DONE", MessageType::Done, Some("ol-1"), false),
        // TYPE then a bracketed bead and words.
        (
            "DONE [ol-1] finished",
            MessageType::Done,
            Some("ol-1"),
            false,
        ),
        ("\tPROGRESS  ", MessageType::Progress, None, false),
        ("Help Request", MessageType::HelpRequest, None, false),
        ("spawn-ack", MessageType::SpawnAck, None, false),
        // Whole tokens only (Go: FAILED, CHECKPOINT by substring).
        (
            "Build DONE but tests FAILED",
            MessageType::Unknown,
            None,
            false,
        ),
        ("PROGRESS checkpoint", MessageType::Progress, None, false),
        (
            "Re: Re: HELP_RESPONSE",
            MessageType::HelpResponse,
            None,
            true,
        ),
    ] {
        let m = subject(s);
        assert_eq!(m.kind, kind, "{s}");
        assert_eq!(m.parsed.bead_id.as_deref(), bead, "{s}");
        assert_eq!(m.is_reply, reply, "{s}");
    }
}

#[test]
fn bead_precedence_body_then_brackets_then_prefix() {
    // The body's field wins (and disagreeing is a diagnostic).
    let m = one("Subject: [subj-1] PROGRESS\n\nBody:\nBead: body-1\n");
    assert_eq!(m.parsed.bead_id.as_deref(), Some("body-1"));
    assert_eq!(codes(&m), [("bead-mismatch", 4, 7)]);
    // An empty `Bead:` is missing: the subject's is used.
    let m = one("Subject: [subj-1] PROGRESS\n\nBody:\nBead:   \nStep: s\n");
    assert_eq!(m.parsed.bead_id.as_deref(), Some("subj-1"));
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
}

#[test]
fn labels_are_anchored_and_case_insensitive() {
    let m = one(
        "Subject: [ol-1] PROGRESS\n\nBody:\nbead: ol-1\nBuild Status: green\nSTATUS: DONE\nSee Step: nothing\nstep: real\n",
    );
    assert_eq!(m.parsed.bead_id.as_deref(), Some("ol-1"));
    // Go takes `Build Status: green` (unanchored); we take `STATUS:`.
    assert_eq!(m.parsed.status.as_deref(), Some("DONE"));
    assert_eq!(m.parsed.step.as_deref(), Some("real"));
    let m = one(
        "Subject: [x-1] BEAD_ACCEPTED\n\nBody:\nAccepted Bead: x-1\nSubtitle: no\nTitle: yes\n",
    );
    assert_eq!(m.parsed.bead_id.as_deref(), Some("x-1"));
    assert_eq!(m.parsed.title.as_deref(), Some("yes"));
}

#[test]
fn sections_end_only_at_level_one_or_two_headings() {
    let m = one(
        "Subject: [x-1] DONE\n\nBody:\nBead: x-1\n## Summary\nFixed issue ##42 and C## stuff\nsee ## Summary below\n####### seven\n## Other\nnot it\n",
    );
    assert_eq!(
        m.parsed.summary.as_deref(),
        Some("Fixed issue ##42 and C## stuff\nsee ## Summary below\n####### seven")
    );
    // A section opened at a deeper level ends at a heading of its own
    // level (its sibling), and keeps deeper ones (its parts).
    let m = one(
        "Subject: [x-1] DONE\n\nBody:\nBead: x-1\n### Summary\nFixed it.\n#### Details\nLRU.\n### Notes\nnot it\n",
    );
    assert_eq!(
        m.parsed.summary.as_deref(),
        Some("Fixed it.\n#### Details\nLRU.")
    );
    // A field outside its section is still read, with an info.
    let m = one("Subject: [x-1] FAILED\n\nBody:\nBead: x-1\nType: ERROR\nReason: outside\n");
    assert_eq!(m.parsed.failure_type.as_deref(), Some("ERROR"));
    assert_eq!(m.parsed.reason.as_deref(), Some("outside"));
    assert_eq!(
        codes(&m),
        [
            ("field-outside-section", 5, 1),
            ("field-outside-section", 6, 1)
        ]
    );
    assert_eq!(m.warnings().count(), 0);
}

/// `**Bead:** ol-7 | **Step:** 3 | **Status:** ok`: a row of fields whose
/// first label is in bold reads as one field each, when every part is a
/// field; a plain line, or a part that is no field, is read as written.
#[test]
fn a_decorated_row_of_fields_reads_as_one_field_each() {
    let m = one("Subject: [x-1] PROGRESS\n\nBody:\n**Bead:** x-1 | **Step:** 3 of 5 | **Mood:** fine\n- **Status:** ok | Context usage: 30%\n");
    assert_eq!(m.parsed.bead_id.as_deref(), Some("x-1"));
    assert_eq!(m.parsed.step.as_deref(), Some("3 of 5"));
    assert_eq!(m.parsed.status.as_deref(), Some("ok"));
    assert_eq!(m.parsed.context_usage, Some(30));
    assert_eq!(
        codes(&m),
        [("normalised", 4, 1), ("normalised", 5, 1)],
        "{:?}",
        m.diagnostics
    );
    for (line, status) in [
        ("Status: red | green", "red | green"),
        ("- **Status:** red | green", "red | green"),
        // A plain label after a bullet is the plain form: as written.
        (
            "- Status: ok | Context usage: 30%",
            "ok | Context usage: 30%",
        ),
        ("**Status:** a | see: the log", "a | see: the log"),
        ("**Status:** red|green", "red|green"),
    ] {
        let m = one(&format!("Subject: [x-1] PROGRESS\n\nBody:\n{line}\n"));
        assert_eq!(m.parsed.status.as_deref(), Some(status), "{line}");
    }
}

#[test]
fn lists_accept_bullets_numbers_and_commas() {
    let m = one(
        "Subject: [x-1] HELP_REQUEST\n\nBody:\nBead: x-1\nIssue Type: spec-unclear\n## Problem\np\n## Files Touched\n+ a.rs\n* b.rs\n1. c.rs\n",
    );
    assert_eq!(
        m.parsed.files_touched,
        Some(vec!["a.rs".into(), "b.rs".into(), "c.rs".into()])
    );
    // Enum words are normalised (`spec-unclear` is SPEC_UNCLEAR).
    assert_eq!(m.parsed.issue_type.as_deref(), Some("SPEC_UNCLEAR"));
    let m = one("Subject: [x-1] DONE\n\nBody:\nBead: x-1\n## Changes\n- Files: a.go,, b.go ,\n");
    assert_eq!(m.parsed.files, Some(vec!["a.go".into(), "b.go".into()]));
}

#[test]
fn numbers_keep_their_meaning() {
    for (v, want, diag) in [
        ("45%", Some(45), None),
        ("45 %", Some(45), None),
        ("~45%", Some(45), None),
        ("about 30", Some(30), None),
        ("45% (estimate)", Some(45), None),
        ("45.5%", Some(46), None),
        ("0", Some(0), None),
        ("100%", Some(100), None),
        ("101%", None, Some("out-of-range")),
        ("150", None, Some("out-of-range")),
        ("-5%", None, Some("out-of-range")),
        ("4 5%", None, Some("bad-number")),
        ("lots", None, Some("bad-number")),
    ] {
        let m = one(&format!(
            "Subject: [ol-1] PROGRESS\n\nBody:\nBead: ol-1\nContext usage: {v}\n"
        ));
        assert_eq!(m.parsed.context_usage, want, "{v}");
        let got: Vec<_> = m.diagnostics.iter().map(|d| d.code.as_ref()).collect();
        assert_eq!(got, diag.into_iter().collect::<Vec<_>>(), "{v}");
        if let Some(code) = diag {
            // Column 16: the value after `Context usage: `.
            assert_eq!(codes(&m), [(code, 5, 16)]);
        }
    }
    for (v, want, diag) in [
        ("3", Some(3), None),
        ("3 (max)", Some(3), None),
        ("-1", None, Some("out-of-range")),
        ("99999999999", None, Some("out-of-range")),
        ("three", None, Some("bad-number")),
    ] {
        let m = one(&format!(
            "Subject: [ol-1] FAILED\n\nBody:\nBead: ol-1\n## Failure\nType: ERROR\nReason: r\nInternal Attempts: {v}\n"
        ));
        assert_eq!(m.parsed.internal_attempts, want, "{v}");
        let got: Vec<_> = m.diagnostics.iter().map(|d| d.code.as_ref()).collect();
        assert_eq!(got, diag.into_iter().collect::<Vec<_>>(), "{v}");
    }
}

#[test]
fn pass_fail_and_booleans_are_tri_state() {
    for (v, want) in [
        ("PASS", Some(true)),
        ("pass (2 skipped)", Some(true)),
        ("PASSED", Some(true)),
        ("✅", Some(true)),
        ("ok", Some(true)),
        ("Fail", Some(false)),
        ("❌ 3 failing", Some(false)),
        ("maybe", None),
    ] {
        let m = one(&format!(
            "Subject: [x-1] DONE\n\nBody:\nBead: x-1\n## Self-Validation\n- Tests: {v}\n"
        ));
        assert_eq!(m.parsed.tests_pass, want, "{v}");
        // Absent checks are null, never false.
        assert_eq!((m.parsed.lint_pass, m.parsed.build_pass), (None, None));
    }
    for (v, want) in [("1", true), ("yes", true), ("No", false), ("TRUE", true)] {
        let m = one(&format!(
            "Subject: SPAWN_REQUEST\n\nBody:\nIssue: x-1\nResume: {v}\n"
        ));
        assert_eq!(m.parsed.resume, Some(want), "{v}");
    }
}

#[test]
fn spec_headers() {
    let m = one(
        "Subject: [x-1] DONE\nFrom: a\nTo: b, c\nCc: d\nThread: t-1\nId: m-9\nCreated: 2026-01-31 10:00:00\nImportance: urgent\nAck-Required: yes\n\nBody:\nBead: x-1\n",
    );
    assert_eq!(m.from.as_deref(), Some("a"));
    assert_eq!(m.to, vec!["b", "c"]);
    assert_eq!(m.cc, vec!["d"]);
    assert_eq!(m.thread_id.as_deref(), Some("t-1"));
    assert_eq!(m.id.as_deref(), Some("m-9"));
    assert_eq!(
        m.timestamp.unwrap().to_rfc3339(),
        "2026-01-31T10:00:00+00:00"
    );
    assert_eq!(m.importance, "urgent");
    // The envelope overrides the type's default (DONE needs no ack).
    assert!(m.ack_required);
}

#[test]
fn trailing_blanks_crlf_and_bom_read_the_same() {
    let plain = one("Subject: [x-1] DONE\nFrom: a\n\nBody:\nBead: x-1\nStatus: DONE\n");
    let noisy = one("\u{feff}Subject: [x-1] DONE  \t\r\nFrom: a\t\r\n\r\nBody:  \r\nBead: x-1  \r\nStatus: DONE\t\r\n\r\n\r\n");
    assert_eq!(
        serde_json::to_value(&plain).unwrap(),
        serde_json::to_value(&noisy).unwrap()
    );
}

#[test]
fn json_envelopes_in_both_key_sets() {
    let m = one(
        r#"{"id": 7, "subject": "[x-1] DONE", "to": "a", "ack_required": 1, "created_ts": "2026-01-31T10:00:00.123456+00:00", "thread_id": null}"#,
    );
    assert_eq!(m.id.as_deref(), Some("7"));
    assert_eq!(m.to, vec!["a"]);
    assert!(m.ack_required);
    assert_eq!(m.thread_id, None);
    // No body: headers only, the bead from the subject.
    assert_eq!(m.body, "");
    assert_eq!(m.parsed.bead_id.as_deref(), Some("x-1"));
    let m = one(
        "\u{feff}{\"subject\": \"[x-1] DONE\",\r\n \"sender_name\": \"s\", \"body_md\": \"Bead: x-1\\r\\nStatus: DONE\"}\r\n",
    );
    assert_eq!(m.from.as_deref(), Some("s"));
    assert_eq!(m.parsed.status.as_deref(), Some("DONE"));
}

#[test]
fn crlf_inside_sections_is_normalised() {
    // Go keeps inner `\r` in multi-line sections.
    let m = one("Subject: [x-1] CHECKPOINT\r\n\r\nBody:\r\nBead: x-1\r\nReason: context high\r\n\r\n## Next Steps\r\n1. a\r\n2. b\r\n");
    assert_eq!(m.parsed.next_steps.as_deref(), Some("1. a\n2. b"));
    assert_eq!(m.parsed.checkpoint_reason.as_deref(), Some("CONTEXT_HIGH"));
}

#[test]
fn date_headers_in_the_forms_mail_uses() {
    for (v, want) in [
        ("2026-01-31T10:00:00Z", "2026-01-31T10:00:00+00:00"),
        (
            "2026-01-31T10:00:00.123456+00:00",
            "2026-01-31T10:00:00.123456+00:00",
        ),
        ("2026-01-31T12:00:00+0200", "2026-01-31T10:00:00+00:00"),
        ("2026-01-31 10:00:00", "2026-01-31T10:00:00+00:00"),
        // An email `Date:` header (RFC 2822).
        (
            "Sat, 31 Jan 2026 10:00:00 +0000",
            "2026-01-31T10:00:00+00:00",
        ),
        (
            "Sat, 31 Jan 2026 05:00:00 -0500",
            "2026-01-31T10:00:00+00:00",
        ),
    ] {
        let m = one(&format!(
            "Subject: [x-1] DONE\nDate: {v}\n\nBody:\nBead: x-1\n"
        ));
        assert_eq!(
            m.timestamp.map(|t| t.to_rfc3339()).as_deref(),
            Some(want),
            "{v}"
        );
        assert!(m.diagnostics.is_empty(), "{v}: {:?}", m.diagnostics);
    }
}

/// JSON has no sections: a fenced JSON body's `commit` or `tests_pass`
/// is where the object puts it, while the same field written as a flat
/// markdown line is outside the `## Changes` / `## Self-Validation`
/// section the protocol gives it (an info). The JSON form once reported
/// those infos against lines of the markdown it is read through, which
/// the writer never wrote.
#[test]
fn fenced_json_fields_are_in_no_section() {
    let json = one("Subject: [ol-7] DONE\n\nBody:\n```json\n{\"bead_id\": \"ol-7\", \"commit\": \"9f8e7d6\", \"tests_pass\": true}\n```\n");
    assert_eq!(json.parsed.commit_sha.as_deref(), Some("9f8e7d6"));
    assert_eq!(json.parsed.tests_pass, Some(true));
    assert!(
        !codes(&json).iter().any(|c| c.0 == "field-outside-section"),
        "{:?}",
        codes(&json)
    );
    let flat = one("Subject: [ol-7] DONE\n\nBody:\nBead: ol-7\nCommit: 9f8e7d6\nTests: PASS\n");
    assert_eq!(flat.parsed.commit_sha.as_deref(), Some("9f8e7d6"));
    let outside: Vec<_> = codes(&flat)
        .into_iter()
        .filter(|c| c.0 == "field-outside-section")
        .collect();
    assert_eq!(
        outside,
        [
            ("field-outside-section", 5, 1),
            ("field-outside-section", 6, 1)
        ]
    );
}

/// A bad failure type is named as the failure's type, however it was
/// labelled (`Type:` under `## Failure`, or `Failure Type:`): the message
/// said "Type `NOPE` ...", a word the `Failure Type:` line does not start
/// with.
#[test]
fn a_bad_failure_type_is_named_as_the_failure_s_type() {
    for body in [
        "Bead: x\nFailure Type: NOPE\nReason: r\n",
        "Bead: x\n\n## Failure\nType: NOPE\nReason: r\n",
    ] {
        let m = one(&format!("Subject: [x] FAILED\n\nBody:\n{body}"));
        let message = message_of(&m, "bad-enum", body);
        assert!(
            message.starts_with("Failure Type `NOPE` is not one of"),
            "{body}: {message}"
        );
    }
}

/// A type token a letter or two from a protocol type (`PROGRES`) is
/// named with the type it is nearest, in lenient and strict mode alike;
/// nothing is guessed: the message stays UNKNOWN. A token far from every
/// type (`HELP_ROUTE`), or as far from a short one as it is long (`NOTE`
/// and `DONE`), gets no hint.
#[test]
fn a_misspelled_type_names_the_type_it_is_nearest() {
    for (token, nearest) in [
        ("PROGRES", Some("PROGRESS")),
        ("HELP_REQEST", Some("HELP_REQUEST")),
        ("CHEKPIONT", Some("CHECKPOINT")),
        ("FAIL", Some("FAILED")),
        ("DONES", Some("DONE")),
        ("HELP_ROUTE", None),
        ("NOTE", None),
    ] {
        let text = format!("Subject: [ol-1] {token}\n\nBody:\nBead: ol-1\n");
        let m = one(&text);
        assert_eq!(m.kind, MessageType::Unknown, "{token}");
        let message = message_of(&m, "unknown-type", token);
        let plain = format!("`{token}` is not a protocol message type");
        let expected = match nearest {
            Some(n) => format!("{plain} (did you mean `{n}`?)"),
            None => plain,
        };
        assert_eq!(message, expected);
        let strict = parse(&text, &ParseOptions::strict()).unwrap_err();
        assert_eq!(strict.message.to_string(), expected, "{token}");
    }
}

/// A value a letter or two from one of its field's values is named with
/// it, as a type is (`TEST_FAIL`: `TESTS_FAIL`); the value is kept as
/// written, never read as the value it is near.
#[test]
fn a_misspelled_value_names_the_value_it_is_nearest() {
    for (text, field, value, message) in [
        (
            "Subject: [x] FAILED\n\nBody:\nBead: x\nFailure Type: TEST_FAIL\nReason: r\n",
            "failure_type",
            Some("TEST_FAIL"),
            "Failure Type `TEST_FAIL` is not one of TESTS_FAIL, BUILD_FAIL, SPEC_IMPOSSIBLE, CONTEXT_HIGH, ERROR (did you mean `TESTS_FAIL`?)",
        ),
        (
            "Subject: [x] HELP_REQUEST\n\nBody:\nBead: x\nIssue Type: STUK\n\n## Problem\np\n\n## Question\nq\n",
            "issue_type",
            Some("STUK"),
            "Issue Type `STUK` is not one of STUCK, SPEC_UNCLEAR, BLOCKED, TECHNICAL (did you mean `STUCK`?)",
        ),
        (
            "Subject: [x] DONE\n\nBody:\nBead: x\n\n## Self-Validation\n- Tests: PASSS\n",
            "tests_pass",
            None,
            "`PASSS` is neither PASS nor FAIL (did you mean `PASS`?)",
        ),
        (
            "Subject: [x] DONE\n\nBody:\nBead: x\n\n## Self-Validation\n- Tests: maybe\n",
            "tests_pass",
            None,
            "`maybe` is neither PASS nor FAIL",
        ),
    ] {
        let m = one(text);
        let message_is = message_of(&m, "bad-enum", text);
        assert_eq!(message_is, message, "{text}");
        let kept = serde_json::to_value(&m.parsed).unwrap()[field].clone();
        assert_eq!(kept.as_str(), value, "{text}");
    }
}

/// Fields in a markdown table of labels and values (the twentieth
/// round): read when the first column is labels; a table of files with
/// a status column, or one whose only label is its header, is left alone.
#[test]
fn label_tables_read_as_fields_and_other_tables_are_left_alone() {
    let progress = |body: &str| one(&format!("Subject: [ol-7] PROGRESS\n\nBody:\n{body}"));
    for body in [
        "| Field | Value |\n|---|---|\n| Bead | ol-7 |\n| Status | in progress |\n| Context usage | 45% |\n",
        "| **Bead** | ol-7 |\n| **Status:** | in progress |\n| *Context usage* | 45% |\n",
        "|Bead|ol-7|\n|Status|in progress|\n|Context usage|45%\n",
        "| Field | Value |\n| :--- | ---: |\n| Status | in progress |\n| Notes | none |\n| Context usage | 45% |\n",
    ] {
        let m = progress(body);
        assert_eq!(m.parsed.status.as_deref(), Some("in progress"), "{body}");
        assert_eq!(m.parsed.context_usage, Some(45), "{body}");
        assert!(m.diagnostics.iter().any(|d| d.code == "normalised"), "{body}");
        assert!(parse(&format!("Subject: [ol-7] PROGRESS\n\nBody:\n{body}"), &ParseOptions::strict()).is_err());
    }
    for body in [
        "| File | Status |\n|---|---|\n| src/a.rs | new |\n| src/b.rs | modified |\n",
        "| Files | Status |\n|---|---|\n| src/a.rs | new |\n",
        "| Status | Owner | Due |\n|---|---|---|\n| open | ann | mon |\n",
        "| Note | text |\n| Other | more |\n| Status | in progress |\n",
        "```\n| Status | in progress |\n```\n",
    ] {
        let m = progress(body);
        assert_eq!(m.parsed.status, None, "{body}");
        assert!(
            m.diagnostics.iter().all(|d| d.code != "normalised"),
            "{body}"
        );
    }
}

/// A known label and its value split by a dash: read where the section
/// has no such field; a plain label behind a bullet is prose.
#[test]
fn dash_labels_read_where_no_field_is() {
    let progress = |body: &str| one(&format!("Subject: [ol-7] PROGRESS\n\nBody:\n{body}"));
    for (body, status) in [
        ("Status — in progress\n", Some("in progress")),
        ("Status – in progress\n", Some("in progress")),
        ("Status - in progress\n", Some("in progress")),
        ("- **Status** — in progress\n", Some("in progress")),
        ("1. *Status* - in progress\n", Some("in progress")),
        ("Status: ok\nStatus — in progress\n", Some("ok")),
        ("- Status - the status page shows retries\n", None),
        ("Status—in progress\n", None),
        ("Status -\n", None),
        ("The status - in progress\n", None),
        ("Stat — x\n", None),
    ] {
        let m = progress(body);
        assert_eq!(m.parsed.status.as_deref(), status, "{body}");
        assert!(m.warnings().next().is_none(), "{body}: {:?}", m.diagnostics);
    }
}

/// Setext headings naming a section open it; other underlined lines and
/// thematic breaks are left alone.
#[test]
fn setext_headings_open_known_sections() {
    let help = |body: &str| {
        one(&format!(
            "Subject: [ol-7] HELP_REQUEST\n\nBody:\nBead: ol-7\nIssue Type: STUCK\n{body}"
        ))
    };
    let m = help("\nProblem\n-------\nIt hangs.\n\n**Question**\n===\nWhy?\n");
    assert_eq!(m.parsed.problem.as_deref(), Some("It hangs."));
    assert_eq!(m.parsed.question.as_deref(), Some("Why?"));
    let m = help("\n## Problem\n---\nIt hangs.\n\nSome notes\n---\nWhy?\n");
    let problem = m.parsed.problem.as_deref().unwrap_or("");
    assert!(
        problem.starts_with("---\nIt hangs.") && problem.ends_with("Why?"),
        "{problem}"
    );
    assert_eq!(
        m.diagnostics
            .iter()
            .filter(|d| d.code == "normalised")
            .count(),
        0
    );
}

/// A section's title with its text on its line opens the section, the
/// text its first line; the section's text runs to the next field or
/// heading. Bulleted and emphasised titles too; where the open section is
/// that kind already, the line is its text (nothing is opened again).
#[test]
fn a_title_with_its_text_opens_its_section() {
    let m = one(
        "Subject: [ol-1] HELP_REQUEST\n\nBody:\nBead: ol-1\nIssue Type: STUCK\n\n- *Problem*: the lock\nis never released\n- *Question*: who owns it?\n",
    );
    assert_eq!(
        m.parsed.problem.as_deref(),
        Some("the lock\nis never released")
    );
    assert_eq!(m.parsed.question.as_deref(), Some("who owns it?"));
    // A field after the text ends it.
    let m = one(
        "Subject: [ol-1] DONE\n\nBody:\nBead: ol-1\n**Summary:** the cache evicts by age.\n**Tests:** PASS\n",
    );
    assert_eq!(
        m.parsed.summary.as_deref(),
        Some("the cache evicts by age.")
    );
    assert_eq!(m.parsed.tests_pass, Some(true));
    // Inside its own section, the line is the section's text.
    let m = one("Subject: [ol-1] DONE\n\nBody:\nBead: ol-1\n\n## Summary\nSummary: all done.\n");
    assert_eq!(m.parsed.summary.as_deref(), Some("Summary: all done."));
    // A title no section has stays prose.
    let m = one("Subject: [ol-1] DONE\n\nBody:\nBead: ol-1\n\nNote: the summary follows.\n");
    assert_eq!(m.parsed.summary, None);
    // Strict mode refuses the reading, saying what lenient mode reads.
    let e = parse(
        "Subject: [ol-1] DONE\n\nBody:\nBead: ol-1\nSummary: done.\n",
        &ParseOptions::strict(),
    )
    .unwrap_err();
    assert_eq!((e.line, e.code.as_str()), (5, "normalised"), "{e}");
}

/// A placeholder is no value in both modes, noted `no-value`; a value
/// that only begins like one is kept.
#[test]
fn placeholders_are_no_value() {
    let text = "Subject: [ol-1] SPAWN_REQUEST\n\nBody:\nIssue: ol-1\nResume: false\nCheckpoint: N/A\nOrchestrator: o\n";
    for opts in [ParseOptions::default(), ParseOptions::strict()] {
        let m = parse(text, &opts).unwrap().remove(0).into_owned();
        assert_eq!(m.parsed.partial_commit_sha, None);
        assert_eq!(codes(&m), [("no-value", 6, 13)]);
    }
    let m = one("Subject: [ol-1] SPAWN_REQUEST\n\nBody:\nIssue: ol-1\nCheckpoint: none1\n");
    assert_eq!(m.parsed.partial_commit_sha.as_deref(), Some("none1"));
}
