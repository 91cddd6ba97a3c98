//! The malformed corpus (`parser/fixtures/malformed/*.md`): for each file,
//! the diagnostics lenient mode reports (code, line, column) and the error
//! strict mode fails with (line, column, code). Positions are document
//! lines and columns, 1-based, columns in characters. Every file's CRLF twin
//! must give the same answers.

use amail_parser::{parse_bytes, MessageType, ParseOptions, Severity};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/malformed");

struct Case {
    file: &'static str,
    /// The type lenient mode still reports.
    kind: MessageType,
    /// Every lenient diagnostic, in order: (code, line, column).
    lenient: &'static [(&'static str, u32, u32)],
    /// Strict mode's error: (line, column, code).
    strict: (u32, u32, &'static str),
}

#[rustfmt::skip]
const CASES: &[Case] = &[
    // No subject and nothing in the body that names or implies a type.
    Case { file: "no_subject", kind: MessageType::Unknown,
        lenient: &[("no-subject", 1, 1)], strict: (1, 1, "no-subject") },
    // `NUDGE` is not a protocol type: the error points at the token.
    Case { file: "unknown_type", kind: MessageType::Unknown,
        lenient: &[("unknown-type", 1, 17)], strict: (1, 17, "unknown-type") },
    // PROGRESS requires `Bead` (none in the body or the subject).
    Case { file: "missing_bead", kind: MessageType::Progress,
        lenient: &[("missing-field", 4, 1)], strict: (4, 1, "missing-field") },
    // FAILED requires `Type` and `Reason` in `## Failure`.
    Case { file: "missing_failure_fields", kind: MessageType::Failed,
        lenient: &[("missing-field", 4, 1), ("missing-field", 4, 1)], strict: (4, 1, "missing-field") },
    Case { file: "bad_issue_type", kind: MessageType::HelpRequest,
        lenient: &[("bad-enum", 5, 13)], strict: (5, 13, "bad-enum") },
    // `A | B` copied from the spec template is not one value.
    Case { file: "bad_failure_type", kind: MessageType::Failed,
        lenient: &[("bad-enum", 7, 7)], strict: (7, 7, "bad-enum") },
    Case { file: "bad_checkpoint_reason", kind: MessageType::Checkpoint,
        lenient: &[("bad-enum", 5, 9)], strict: (5, 9, "bad-enum") },
    // `- Lint: maybe` is neither PASS nor FAIL.
    Case { file: "bad_pass_fail", kind: MessageType::Done,
        lenient: &[("bad-enum", 8, 9)], strict: (8, 9, "bad-enum") },
    // SPAWN_ACK Status is spawned | failed.
    // The spec's template copied unfilled: not a PASS.
    Case { file: "template_pass_fail", kind: MessageType::OfferingReady,
        lenient: &[("bad-enum", 8, 10)], strict: (8, 10, "bad-enum") },
    Case { file: "bad_spawn_status", kind: MessageType::SpawnAck,
        lenient: &[("bad-enum", 5, 9)], strict: (5, 9, "bad-enum") },
    Case { file: "bad_resume", kind: MessageType::SpawnRequest,
        lenient: &[("bad-enum", 5, 9)], strict: (5, 9, "bad-enum") },
    Case { file: "out_of_range", kind: MessageType::Progress,
        lenient: &[("out-of-range", 5, 16)], strict: (5, 16, "out-of-range") },
    Case { file: "bad_number", kind: MessageType::Progress,
        lenient: &[("bad-number", 5, 16)], strict: (5, 16, "bad-number") },
    // A `Date:` header that is not a timestamp.
    Case { file: "bad_timestamp", kind: MessageType::Progress,
        lenient: &[("bad-timestamp", 2, 7)], strict: (2, 7, "bad-timestamp") },
    // BEAD_ACCEPTED `Starting implementation at:` is a timestamp too.
    Case { file: "bad_started_at", kind: MessageType::BeadAccepted,
        lenient: &[("bad-timestamp", 5, 29)], strict: (5, 29, "bad-timestamp") },
    // Subject `[ol-13]`, body `Bead: ol-31`: the error points at the body's value.
    Case { file: "bead_mismatch", kind: MessageType::Progress,
        lenient: &[("bead-mismatch", 4, 7)], strict: (4, 7, "bead-mismatch") },
    Case { file: "duplicate_field", kind: MessageType::Progress,
        lenient: &[("duplicate-field", 6, 1)], strict: (6, 1, "duplicate-field") },
    // `"body_md": }`: serde's position of the bad value.
    Case { file: "invalid_json", kind: MessageType::Unknown,
        lenient: &[("invalid-json", 2, 13), ("no-subject", 1, 1)], strict: (2, 13, "invalid-json") },
    // Valid JSON that holds no message object.
    Case { file: "not_a_message", kind: MessageType::Unknown,
        lenient: &[("not-a-message", 1, 1), ("no-subject", 1, 1)], strict: (1, 1, "not-a-message") },
    Case { file: "unterminated_front_matter", kind: MessageType::Unknown,
        lenient: &[("unterminated-front-matter", 1, 1), ("no-subject", 1, 1)], strict: (1, 1, "unterminated-front-matter") },
    // A JSON body is not document text: body problems are reported where
    // the character is written in the body's string (`150%` after the
    // `\n` escape), the body position in the message.
    Case { file: "json_body_out_of_range", kind: MessageType::Progress,
        lenient: &[("out-of-range", 3, 42)], strict: (3, 42, "out-of-range") },
    // Archive front matter: the `"created"` line, at its value.
    Case { file: "archive_bad_created", kind: MessageType::Progress,
        lenient: &[("bad-timestamp", 5, 14)], strict: (5, 14, "bad-timestamp") },
    // Front matter on one line: the value's column, not the `---json` line.
    Case { file: "archive_one_line_front_matter", kind: MessageType::Progress,
        lenient: &[("bad-timestamp", 2, 74)], strict: (2, 74, "bad-timestamp") },
    // The same key in an object the front matter holds is not its own.
    Case { file: "archive_nested_key", kind: MessageType::Progress,
        lenient: &[("bad-timestamp", 8, 14)], strict: (8, 14, "bad-timestamp") },
    // The opening fence is reported.
    Case { file: "unclosed_fence", kind: MessageType::Done,
        lenient: &[("unclosed-fence", 7, 1)], strict: (7, 1, "unclosed-fence") },
    // `caf\xC3 \xFF`: the first bad byte is the 10th character of line 5.
    Case { file: "invalid_utf8", kind: MessageType::Progress,
        lenient: &[("invalid-utf8", 5, 10)], strict: (5, 10, "invalid-utf8") },
];

fn check(path: &str, c: &Case) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let msgs = parse_bytes(&bytes, &ParseOptions::default())
        .unwrap_or_else(|e| panic!("{path}: lenient mode failed: {e}"));
    assert_eq!(msgs.len(), 1, "{path}");
    let m = &msgs[0];
    assert_eq!(m.kind, c.kind, "{path}");
    let got: Vec<(&str, u32, u32)> = m
        .diagnostics
        .iter()
        .map(|d| (d.code.as_ref(), d.line, d.column))
        .collect();
    assert_eq!(got, c.lenient, "{path}: lenient diagnostics");
    // The problem the file is about is a warning or an error, never an info.
    assert!(
        m.diagnostics[0].severity >= Severity::Warning
            || c.lenient[0].0 == "no-subject"
            || c.lenient[0].0 == "unknown-type",
        "{path}: {:?}",
        m.diagnostics[0]
    );
    let err = parse_bytes(&bytes, &ParseOptions::strict())
        .expect_err(&format!("{path}: strict mode accepted it"));
    assert_eq!(
        (err.line, err.column, err.code.as_str()),
        c.strict,
        "{path}: strict error"
    );
    // The snippet shows the offending line and a caret under the column.
    let caret_line = err.snippet.lines().last().unwrap();
    let caret_at = caret_line.chars().count() - 1;
    let gutter = err.line.to_string().len() + 3;
    assert_eq!(
        caret_at + 1 - gutter,
        err.column as usize,
        "{path}: caret\n{}",
        err.snippet
    );
    assert!(err.report("mail.md").starts_with(&format!(
        "mail.md:{}:{}: error[{}]",
        c.strict.0, c.strict.1, c.strict.2
    )));
}

#[test]
fn every_malformed_fixture_has_its_diagnostics_and_strict_error() {
    for c in CASES {
        check(&format!("{DIR}/{}.md", c.file), c);
    }
}

#[test]
fn crlf_twins_report_the_same_positions() {
    for c in CASES {
        check(&format!("{DIR}/{}.crlf.md", c.file), c);
    }
}

/// The table covers the whole corpus, and the corpus covers every code
/// strict mode refuses.
#[test]
fn table_and_corpus_agree() {
    let mut files: Vec<String> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".crlf.md"))
        .map(|n| n.trim_end_matches(".md").to_string())
        .collect();
    files.sort();
    let mut names: Vec<String> = CASES.iter().map(|c| c.file.to_string()).collect();
    names.sort();
    assert_eq!(files, names);
    for code in [
        "invalid-utf8",
        "invalid-json",
        "unterminated-front-matter",
        "not-a-message",
        "no-subject",
        "unknown-type",
        "missing-field",
        "duplicate-field",
        "bad-enum",
        "bad-number",
        "out-of-range",
        "bad-timestamp",
        "bead-mismatch",
        "unclosed-fence",
    ] {
        assert!(
            CASES.iter().any(|c| c.strict.2 == code),
            "no fixture for {code}"
        );
    }
}

/// Valid mail passes strict mode: the corpus is not just "everything fails".
#[test]
fn strict_accepts_well_formed_mail() {
    let text = "Subject: [ol-1] PROGRESS\n\nBody:\nBead: ol-1\nStep: one\nContext usage: 45%\n";
    assert!(amail_parser::parse(text, &ParseOptions::strict()).is_ok());
}

/// In JSON Lines each message's body problems point at its own line, and
/// the message says where in the (unescaped) body the problem is.
#[test]
fn json_lines_body_problems_point_at_their_line() {
    let doc = "{\"subject\": \"[a-1] PROGRESS\", \"body_md\": \"Bead: a-1\"}\n\
               {\"subject\": \"[a-1] PROGRESS\", \"body_md\": \"Bead: a-1\"}\n\
               {\"subject\": \"[a-1] PROGRESS\", \"body_md\": \"Bead: a-1\\nContext usage: 150%\"}\n";
    let msgs = amail_parser::parse(doc, &ParseOptions::default()).unwrap();
    assert_eq!(msgs.len(), 3);
    assert!(msgs[0].diagnostics.is_empty() && msgs[1].diagnostics.is_empty());
    let d = &msgs[2].diagnostics[0];
    // Column 69: the `150%` in the third line's string.
    assert_eq!((d.code.as_ref(), d.line, d.column), ("out-of-range", 3, 69));
    assert!(
        d.message.text().ends_with("(body line 2, column 16)"),
        "{}",
        d.message
    );
    let e = amail_parser::parse(doc, &ParseOptions::strict()).unwrap_err();
    assert_eq!((e.line, e.column), (3, 69));
    assert!(e.snippet.contains("Context usage: 150%"), "{}", e.snippet);
}

/// A bad byte is one problem among the others, in the file's order: strict
/// mode refuses the first problem of the file, whichever kind it is, and
/// lenient mode lists the bad byte where it stands. (Strict mode named a
/// bad byte on line 9 over a bad `Ack-Required` on line 4: the byte was
/// checked before anything else was read.)
#[test]
fn a_bad_byte_takes_its_place_among_the_other_problems() {
    let before = b"Subject: [ol-2] HELP_REQUEST\nFrom: A\nTo: B\nAck-Required: maybe\n\nBody:\nIssue Type: STUCK\n## Problem\ncaf\xe9\n## Question\nq?\n";
    let err = parse_bytes(before, &ParseOptions::strict()).unwrap_err();
    assert_eq!(
        (err.line, err.column, err.code.as_str()),
        (4, 15, "bad-enum")
    );
    let msgs = parse_bytes(before, &ParseOptions::default()).unwrap();
    let got: Vec<(&str, u32, u32)> = msgs[0]
        .diagnostics
        .iter()
        .map(|d| (d.code.as_ref(), d.line, d.column))
        .collect();
    assert_eq!(got, [("bad-enum", 4, 15), ("invalid-utf8", 9, 4)]);
    // The bad byte first: it is the problem strict mode names.
    let after = b"Subject: [ol-2] HELP_REQUEST\nFrom: A\nTo: B\nImportance: caf\xe9\nAck-Required: maybe\n\nBody:\nIssue Type: STUCK\n## Problem\np\n## Question\nq?\n";
    let err = parse_bytes(after, &ParseOptions::strict()).unwrap_err();
    assert_eq!(
        (err.line, err.column, err.code.as_str()),
        (4, 16, "invalid-utf8")
    );
    let msgs = parse_bytes(after, &ParseOptions::default()).unwrap();
    assert_eq!(msgs[0].diagnostics[0].code.as_ref(), "invalid-utf8");
}

/// A header that is nearly `Subject:` is named in the no-subject problem,
/// in both modes: "no subject line" alone sent the writer looking at a line
/// that looked right (found by a colleague with `Subjct:`).
#[test]
fn a_misspelled_subject_header_is_named() {
    for (doc, name, line) in [
        (
            "Subjct: [ol-1] PROGRESS\nFrom: A\n\nBody:\nBead: ol-1\n",
            "Subjct",
            1,
        ),
        (
            "From: A\nsubjet: [ol-1] PROGRESS\n\nBody:\nBead: ol-1\n",
            "subjet",
            2,
        ),
        (
            "Subjects: [ol-1] PROGRESS\r\n\r\nBody:\r\nBead: ol-1\r\n",
            "Subjects",
            1,
        ),
    ] {
        let want = format!("`{name}:` on line {line} is not `Subject:`");
        let msgs = amail_parser::parse(doc, &ParseOptions::default()).unwrap();
        let d = msgs[0]
            .diagnostics
            .iter()
            .find(|d| d.code.as_ref() == "no-subject")
            .unwrap_or_else(|| panic!("{doc:?}: {:?}", msgs[0].diagnostics));
        assert!(
            d.message.to_string().contains(&want),
            "{doc:?}: {}",
            d.message
        );
        let err = amail_parser::parse(doc, &ParseOptions::strict()).unwrap_err();
        assert!(err.message.contains(&want), "{doc:?}: {}", err.message);
    }
    // A header of another name is not taken for one.
    let doc = "Summary: [ol-1] PROGRESS\n\nBody:\nBead: ol-1\n";
    let msgs = amail_parser::parse(doc, &ParseOptions::default()).unwrap();
    assert!(
        msgs[0]
            .diagnostics
            .iter()
            .all(|d| !d.message.to_string().contains("is not `Subject:`")),
        "{:?}",
        msgs[0].diagnostics
    );
}

/// A JSON syntax error is placed in characters, as every diagnostic is:
/// serde_json counts a column in bytes. Its message is serde's without
/// serde's own place, which counts from the JSON's start (a front matter's
/// `{`, one line of JSON Lines): `2:17 ... at line 1 column 18` named two
/// places that disagreed.
#[test]
fn json_syntax_errors_are_placed_in_characters() {
    for (text, place) in [
        ("{\"subject\": \"ééé\", x}", (1, 20)),
        ("---json\n{\"subject\": \"é\" x}\n---\nbody\n", (2, 17)),
        ("{\"subject\": \"a\"}\n{\"subject\": \"é\" x}\n", (2, 17)),
    ] {
        let msgs = parse_bytes(text.as_bytes(), &ParseOptions::default()).unwrap();
        let d = msgs
            .iter()
            .flat_map(|m| &m.diagnostics)
            .find(|d| d.code == "invalid-json")
            .unwrap_or_else(|| panic!("{text:?}: {msgs:?}"));
        assert_eq!((d.line, d.column), place, "{text:?}");
        let message = d.message.to_string();
        assert!(
            !message.contains(" at line ") && !message.trim().is_empty(),
            "{text:?}: {message}"
        );
    }
}

/// Two messages in one text (`cat a.md b.md | amail parse`) read as one:
/// the second's fields repeat the first's. Where the repeats follow a
/// `Subject:` line of the body, that line is named as what reads as a
/// second message's header; a `Subject:` quoted in a fence is not one.
#[test]
fn a_second_messages_header_in_the_body_is_named() {
    let two = "Subject: [ol-1] PROGRESS\n\nBead: ol-1\nStep: one\n\nSubject: [ol-2] PROGRESS\nFrom: RedFox\n\nBead: ol-2\nStep: two\n";
    let quoted = "Subject: [ol-1] PROGRESS\n\nBead: ol-1\nStep: one\n\n```\nSubject: [ol-2] PROGRESS\n```\n\nBead: ol-1\n";
    for (text, want) in [(two, Some((6, 1))), (quoted, None)] {
        for text in [text.to_string(), text.replace('\n', "\r\n")] {
            let msgs = parse_bytes(text.as_bytes(), &ParseOptions::default()).unwrap();
            assert_eq!(msgs.len(), 1);
            let m = &msgs[0];
            assert_eq!(m.bead(), Some("ol-1"), "the first message's fields stay");
            let hint = m
                .diagnostics
                .iter()
                .find(|d| d.message.text().contains("second message"));
            assert_eq!(
                hint.map(|d| (d.line, d.column)),
                want,
                "{:?}",
                m.diagnostics
            );
            if let Some(d) = hint {
                assert!(d.severity == Severity::Warning, "{d:?}");
                assert!(d.message.text().contains("one message"), "{d:?}");
                // Read before the repeats it explains.
                let repeats: Vec<u32> = m
                    .diagnostics
                    .iter()
                    .filter(|d| d.code == "duplicate-field")
                    .map(|d| d.line)
                    .collect();
                assert_eq!(repeats, [6, 9, 10], "{:?}", m.diagnostics);
            }
        }
    }
}
