//! Every canonical message of the mcp_agent_mail 0.1.0 fixture archive
//! parses with the right type, bead, thread, ack flag and fields, and with
//! no warnings (infos are allowed: message 11 is ordinary mail).

use std::path::{Path, PathBuf};

use amail_parser::{parse, parse_bytes, MessageType, OwnedMessage, ParseOptions, Severity};

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/data/mcp-agent-mail-0.1.0/archive/projects/home-dev-demo-repo/messages/2026/11"
);

/// The archive file whose name ends in `__<id>.md`.
fn path(id: u32) -> PathBuf {
    let suffix = format!("__{id}.md");
    std::fs::read_dir(DIR)
        .expect("fixture archive")
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(&suffix))
        .unwrap_or_else(|| panic!("no archive message {id}"))
}

fn load(p: &Path) -> OwnedMessage {
    let bytes = std::fs::read(p).unwrap();
    let mut msgs = parse_bytes(&bytes, &ParseOptions::default()).unwrap();
    assert_eq!(msgs.len(), 1, "{}", p.display());
    msgs.remove(0)
}

fn s<'a>(v: &'a Option<std::borrow::Cow<'_, str>>) -> Option<&'a str> {
    v.as_deref()
}

fn list<'a>(v: &'a Option<Vec<std::borrow::Cow<'_, str>>>) -> Option<Vec<&'a str>> {
    v.as_ref().map(|l| l.iter().map(|x| x.as_ref()).collect())
}

struct Want {
    id: u32,
    kind: MessageType,
    bead: &'static str,
    thread: Option<&'static str>,
    ack: bool,
    from: &'static str,
    importance: &'static str,
}

const ALL: &[Want] = &[
    Want {
        id: 1,
        kind: MessageType::BeadAccepted,
        bead: "ol-527.1",
        thread: Some("ol-527.1"),
        ack: false,
        from: "GreenCastle",
        importance: "normal",
    },
    Want {
        id: 2,
        kind: MessageType::BeadAccepted,
        bead: "ol-527.2",
        thread: Some("ol-527.2"),
        ack: false,
        from: "PurpleBear",
        importance: "normal",
    },
    Want {
        id: 3,
        kind: MessageType::Progress,
        bead: "ol-527.1",
        thread: Some("ol-527.1"),
        ack: false,
        from: "GreenCastle",
        importance: "normal",
    },
    Want {
        id: 4,
        kind: MessageType::Progress,
        bead: "ol-527.2",
        thread: Some("ol-527.2"),
        ack: false,
        from: "PurpleBear",
        importance: "normal",
    },
    Want {
        id: 5,
        kind: MessageType::HelpRequest,
        bead: "ol-527.2",
        thread: Some("ol-527.2"),
        ack: true,
        from: "PurpleBear",
        importance: "high",
    },
    Want {
        id: 6,
        kind: MessageType::Progress,
        bead: "ol-527.1",
        thread: Some("ol-527.1"),
        ack: false,
        from: "GreenCastle",
        importance: "normal",
    },
    Want {
        id: 7,
        kind: MessageType::HelpResponse,
        bead: "ol-527.2",
        thread: Some("ol-527.2"),
        ack: true,
        from: "BlueLake",
        importance: "high",
    },
    Want {
        id: 8,
        kind: MessageType::OfferingReady,
        bead: "ol-527.1",
        thread: Some("ol-527.1"),
        ack: true,
        from: "GreenCastle",
        importance: "normal",
    },
    Want {
        id: 9,
        kind: MessageType::Progress,
        bead: "ol-527.2",
        thread: Some("ol-527.2"),
        ack: false,
        from: "PurpleBear",
        importance: "normal",
    },
    Want {
        id: 10,
        kind: MessageType::OfferingReady,
        bead: "ol-527.2",
        thread: Some("ol-527.2"),
        ack: true,
        from: "PurpleBear",
        importance: "normal",
    },
    Want {
        id: 11,
        kind: MessageType::Unknown,
        bead: "",
        thread: None,
        ack: false,
        from: "BlueLake",
        importance: "normal",
    },
];

#[test]
fn every_canonical_message_has_its_envelope_and_no_warnings() {
    let files = std::fs::read_dir(DIR).unwrap().count();
    assert_eq!(files, ALL.len(), "one expectation per archive message");
    for w in ALL {
        let p = path(w.id);
        let m = load(&p);
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(m.kind, w.kind, "{name}");
        assert_eq!(s(&m.id), Some(w.id.to_string().as_str()), "{name}");
        let bead = (!w.bead.is_empty()).then_some(w.bead);
        assert_eq!(s(&m.parsed.bead_id), bead, "{name}");
        assert_eq!(s(&m.thread_id), w.thread, "{name}");
        assert_eq!(m.ack_required, w.ack, "{name}");
        assert_eq!(s(&m.from), Some(w.from), "{name}");
        assert_eq!(m.importance, w.importance, "{name}");
        assert!(m.timestamp.is_some(), "{name}: created parses");
        assert_eq!(m.project.as_deref(), Some("home-dev-demo-repo"), "{name}");
        let warnings: Vec<_> = m.warnings().collect();
        assert!(warnings.is_empty(), "{name}: {warnings:?}");
        // Strict mode accepts every canonical message except the plain
        // status note, which names no protocol type.
        let text = std::fs::read_to_string(&p).unwrap();
        let strict = parse(&text, &ParseOptions::strict());
        if w.kind == MessageType::Unknown {
            assert_eq!(strict.unwrap_err().code.as_str(), "unknown-type", "{name}");
        } else {
            assert!(strict.is_ok(), "{name}: {strict:?}");
        }
    }
}

#[test]
fn m1_bead_accepted() {
    let m = load(&path(1));
    assert_eq!(m.subject, "[ol-527.1] BEAD_ACCEPTED");
    assert_eq!(s(&m.parsed.title), Some("Add token auth to API"));
    assert_eq!(s(&m.parsed.started_at), Some("2026-01-01T10:00:00Z"));
    assert_eq!(m.to, vec!["BlueLake"]);
    assert_eq!(
        m.timestamp.unwrap().to_rfc3339(),
        "2026-11-22T03:23:50.175011+00:00"
    );
}

#[test]
fn m2_bead_accepted() {
    let m = load(&path(2));
    assert_eq!(s(&m.parsed.title), Some("Migrate users schema"));
    assert_eq!(s(&m.parsed.started_at), Some("2026-01-01T10:01:00Z"));
}

#[test]
fn progress_messages() {
    for (id, step, status, ctx, files) in [
        (
            3,
            "Step 4 - implementing auth",
            "running tests",
            45,
            vec!["a.rs", "b.rs"],
        ),
        (
            4,
            "Step 2 - writing migration",
            "drafting SQL",
            30,
            vec!["migrations/0042_users.sql"],
        ),
        (
            6,
            "Step 5 - fixing failing test",
            "1 test failing (token expiry)",
            62,
            vec!["a.rs", "b.rs", "tests/auth.rs"],
        ),
        (
            9,
            "Step 4 - backfill duplicates",
            "running migration tests",
            71,
            vec!["migrations/0042_users.sql", "src/db/users.rs"],
        ),
    ] {
        let m = load(&path(id));
        assert_eq!(s(&m.parsed.step), Some(step), "{id}");
        assert_eq!(s(&m.parsed.status), Some(status), "{id}");
        assert_eq!(m.parsed.context_usage, Some(ctx), "{id}");
        assert_eq!(list(&m.parsed.files_touched), Some(files), "{id}");
    }
}

#[test]
fn m5_help_request() {
    let m = load(&path(5));
    assert_eq!(s(&m.parsed.issue_type), Some("SPEC_UNCLEAR"));
    assert_eq!(
        s(&m.parsed.problem),
        Some("The spec does not say whether `users.email` must stay unique after the migration.")
    );
    assert_eq!(
        s(&m.parsed.what_tried),
        Some("- Read docs/schema.md\n- Grepped for unique constraints")
    );
    assert_eq!(
        list(&m.parsed.files_touched),
        Some(vec!["migrations/0042_users.sql", "src/db/users.rs"])
    );
    assert_eq!(
        s(&m.parsed.question),
        Some("Keep the UNIQUE index on users.email, or drop it?")
    );
    assert!(!m.is_reply);
}

#[test]
fn m7_reply_to_help_request_is_a_help_response() {
    let m = load(&path(7));
    assert_eq!(m.subject, "Re: [ol-527.2] HELP_REQUEST");
    assert!(m.is_reply);
    assert_eq!(m.kind, MessageType::HelpResponse);
    assert_eq!(s(&m.raw_type), Some("HELP_RESPONSE"));
    assert_eq!(m.to, vec!["PurpleBear"]);
    assert_eq!(
        s(&m.parsed.guidance),
        Some("Keep the UNIQUE index on users.email; add a backfill step for duplicates.")
    );
}

#[test]
fn offering_ready_messages() {
    let m = load(&path(8));
    assert_eq!(m.subject, "OFFERING_READY");
    assert_eq!(s(&m.parsed.status), Some("DONE"));
    assert_eq!(s(&m.parsed.commit_sha), Some("3f2c9ab"));
    assert_eq!(
        list(&m.parsed.files),
        Some(vec!["a.rs", "b.rs", "tests/auth.rs"])
    );
    assert_eq!(
        (m.parsed.tests_pass, m.parsed.lint_pass, m.parsed.build_pass),
        (Some(true), Some(true), Some(true))
    );
    assert_eq!(
        s(&m.parsed.summary),
        Some("Token auth middleware with expiry check.")
    );

    let m = load(&path(10));
    assert_eq!(s(&m.parsed.commit_sha), Some("9bd01e4"));
    assert_eq!(
        list(&m.parsed.files),
        Some(vec!["migrations/0042_users.sql", "src/db/users.rs"])
    );
    assert_eq!(
        (m.parsed.tests_pass, m.parsed.lint_pass, m.parsed.build_pass),
        (Some(true), Some(true), Some(false))
    );
    assert_eq!(
        s(&m.parsed.summary),
        Some("Users migration with email backfill; build fails on an unrelated crate.")
    );
    let v = vec![m];
    assert!(amail_parser::filter::successes(&v).is_empty());
}

#[test]
fn m11_status_note_is_unknown_with_an_info() {
    let m = load(&path(11));
    assert_eq!(m.subject, "Wave 1 status");
    assert_eq!(m.raw_type, None);
    assert_eq!(m.to, vec!["GreenCastle", "PurpleBear"]);
    assert_eq!(m.body, "Both beads reported. Reviewing offerings now.");
    assert_eq!(m.parsed, Default::default());
    assert_eq!(m.diagnostics.len(), 1);
    assert_eq!(m.diagnostics[0].severity, Severity::Info);
    assert_eq!(m.diagnostics[0].code, "unknown-type");
    // At the `"subject"` value in the front matter.
    assert_eq!((m.diagnostics[0].line, m.diagnostics[0].column), (13, 14));
}

/// `parse_archive_under`, given the subject the front matter holds, reads
/// what `parse` reads from every canonical message of the real server's
/// archive, but the envelope it leaves to its caller (id, sender,
/// recipients, thread, time, ack, importance, project): the type, bead,
/// body, fields, sections and diagnostics alike (the subject given as the
/// front matter's own text, as `parse` read it). LF and CRLF.
#[test]
fn under_its_subject_an_archive_message_reads_as_parse_reads_it() {
    let mut n = 0;
    for e in std::fs::read_dir(DIR).unwrap() {
        let lf = std::fs::read_to_string(e.unwrap().path()).unwrap();
        for text in [lf.clone(), lf.replace('\n', "\r\n")] {
            let opts = ParseOptions::default();
            let whole = parse(&text, &opts).unwrap().remove(0);
            let mut under = amail_parser::parse_archive_under(&text, &whole.subject, &opts)
                .unwrap()
                .remove(0);
            assert_eq!(
                (&under.from, under.timestamp, &under.to),
                (&None, None, &Default::default())
            );
            under.id = whole.id.clone();
            under.from = whole.from.clone();
            under.to = whole.to.clone();
            under.cc = whole.cc.clone();
            under.thread_id = whole.thread_id.clone();
            under.timestamp = whole.timestamp;
            under.ack_required = whole.ack_required;
            under.importance = whole.importance.clone();
            under.project = whole.project.clone();
            assert_eq!(format!("{under:?}"), format!("{whole:?}"));
            n += 1;
        }
    }
    assert!(n >= 20, "{n}");
}

/// Any document that is not an archive document parses as `parse`
/// parses it, whatever subject is given: the golden and malformed
/// fixtures, LF and CRLF.
#[test]
fn a_document_without_front_matter_parses_as_parse_parses_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut n = 0;
    for dir in ["golden", "malformed", "agents"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue;
            };
            if text.trim_start().starts_with("---json") {
                continue;
            }
            for opts in [ParseOptions::default(), ParseOptions::strict()] {
                let under = amail_parser::parse_archive_under(&text, "[ol-1] PROGRESS", &opts);
                assert_eq!(
                    format!("{under:?}"),
                    format!("{:?}", parse(&text, &opts)),
                    "{}",
                    p.display()
                );
            }
            n += 1;
        }
    }
    assert!(n > 250, "{n}");
}

/// A subject given as any slice of the front matter is placed before it
/// on its line (a slice that opens its line, with no room before it, on
/// the `---json` line, as text of its own is): 1-based, never column 0.
#[test]
fn a_given_subject_is_placed_one_based() {
    let doc = "---json\n{\n\"subject\": \"x\",\n  \"id\": 1\n}\n---\n\nSome words.\n";
    let line = doc.lines().nth(2).unwrap();
    let own = String::from("Wave 1 status");
    for (subject, at) in [
        (line, (1, 1)),
        (&line[1..8], (3, 1)),
        (own.as_str(), (1, 1)),
    ] {
        let m = amail_parser::parse_archive_under(doc, subject, &ParseOptions::default())
            .unwrap()
            .remove(0);
        let d = m.diagnostics.iter().find(|d| d.code == "unknown-type");
        let d = d.unwrap_or_else(|| panic!("{subject:?}: {:?}", m.diagnostics));
        assert_eq!((d.line, d.column), at, "{subject:?}");
    }
}
