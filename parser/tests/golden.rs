//! Golden fixtures: every `parser/fixtures/golden/*.md` parses, its CRLF
//! twin (`*.crlf.md`) gives identical JSON, and the JSON is snapshotted
//! under `snapshots/parser/`. Plus targeted assertions on the variants, so a
//! wrong snapshot cannot hide a wrong value.

use std::path::PathBuf;

use amail_parser::{parse_bytes, MessageType, OwnedMessage, ParseOptions};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/golden");

fn lf_fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.ends_with(".md") && !n.ends_with(".crlf.md")
        })
        .collect();
    v.sort();
    v
}

fn load(name: &str) -> Vec<OwnedMessage> {
    let bytes = std::fs::read(format!("{DIR}/{name}.md")).unwrap();
    parse_bytes(&bytes, &ParseOptions::default()).unwrap()
}

fn one(name: &str) -> OwnedMessage {
    let mut v = load(name);
    assert_eq!(v.len(), 1, "{name}");
    v.remove(0)
}

fn s<'a>(v: &'a Option<std::borrow::Cow<'_, str>>) -> Option<&'a str> {
    v.as_deref()
}

fn list<'a>(v: &'a Option<Vec<std::borrow::Cow<'_, str>>>) -> Option<Vec<&'a str>> {
    v.as_ref().map(|l| l.iter().map(|x| x.as_ref()).collect())
}

#[test]
fn every_fixture_has_a_crlf_twin_with_identical_json_and_a_snapshot() {
    let fixtures = lf_fixtures();
    assert!(fixtures.len() >= 25, "golden corpus is missing");
    for lf in fixtures {
        let stem = lf
            .file_name()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches(".md")
            .to_string();
        let lf_bytes = std::fs::read(&lf).unwrap();
        assert!(!lf_bytes.contains(&b'\r'), "{stem}: LF fixture has CR");
        let crlf_bytes = std::fs::read(format!("{DIR}/{stem}.crlf.md"))
            .unwrap_or_else(|_| panic!("{stem}: no CRLF twin; run make-crlf-twins.sh"));
        let lf_lines = lf_bytes.split(|&b| b == b'\n').count();
        assert_eq!(
            crlf_bytes.windows(2).filter(|w| w == b"\r\n").count() + 1,
            lf_lines,
            "{stem}: twin is not CRLF throughout"
        );
        let lf_msgs = parse_bytes(&lf_bytes, &ParseOptions::default()).unwrap();
        let crlf_msgs = parse_bytes(&crlf_bytes, &ParseOptions::default()).unwrap();
        let lf_json = serde_json::to_value(&lf_msgs).unwrap();
        let crlf_json = serde_json::to_value(&crlf_msgs).unwrap();
        assert_eq!(lf_json, crlf_json, "{stem}: CRLF twin differs");
        for m in &lf_msgs {
            let warnings: Vec<_> = m.warnings().collect();
            assert!(warnings.is_empty(), "{stem}: {warnings:?}");
        }
        insta::with_settings!({
            snapshot_path => "../../snapshots/parser",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_json_snapshot!(format!("golden__{stem}"), lf_msgs);
        });
    }
}

#[test]
fn one_fixture_per_type() {
    for (name, kind) in [
        ("bead_accepted", MessageType::BeadAccepted),
        ("progress", MessageType::Progress),
        ("help_request", MessageType::HelpRequest),
        ("help_response", MessageType::HelpResponse),
        ("offering_ready", MessageType::OfferingReady),
        ("done", MessageType::Done),
        ("failed", MessageType::Failed),
        ("checkpoint", MessageType::Checkpoint),
        ("spawn_request", MessageType::SpawnRequest),
        ("spawn_ack", MessageType::SpawnAck),
        ("unknown_type", MessageType::Unknown),
    ] {
        assert_eq!(one(name).kind, kind, "{name}");
    }
}

#[test]
fn subject_forms() {
    let m = one("subject_colon");
    assert_eq!(m.kind, MessageType::Progress);
    assert_eq!(s(&m.parsed.bead_id), Some("my-bead_1.2"));
    assert_eq!(m.parsed.context_usage, Some(30));

    let m = one("subject_bare_lowercase");
    assert_eq!(m.kind, MessageType::Done);
    assert_eq!(s(&m.raw_type), Some("DONE"));
    assert_eq!(s(&m.parsed.bead_id), Some("gt-123"));

    let m = one("subject_kebab");
    assert_eq!(m.kind, MessageType::HelpRequest);
    assert_eq!(s(&m.parsed.issue_type), Some("BLOCKED"));
    assert!(
        m.ack_required,
        "HELP_REQUEST needs an ack by the spec table"
    );

    let m = one("subject_reply_chain");
    assert!(m.is_reply);
    assert_eq!(m.kind, MessageType::HelpResponse);
    assert_eq!(s(&m.parsed.bead_id), Some("ol-527.2"));
    assert_eq!(
        s(&m.parsed.guidance),
        Some("Drop the index; the product owner confirmed duplicates are allowed.")
    );

    let m = one("unknown_type");
    assert_eq!(s(&m.raw_type), Some("HELP_ROUTE"));
    assert_eq!(s(&m.parsed.bead_id), Some("ol-527.2"));
}

#[test]
fn bom_and_missing_body_label() {
    let m = one("bom");
    assert_eq!(m.subject, "[ol-1] PROGRESS");
    assert_eq!(m.parsed.context_usage, Some(5));

    let m = one("no_body_label");
    assert_eq!(m.kind, MessageType::Progress);
    assert_eq!(s(&m.from), Some("GreenCastle"));
    assert_eq!(s(&m.parsed.status), Some("no Body: label in this file"));
    assert_eq!(m.parsed.context_usage, Some(12));
    assert!(m.body.starts_with("Bead: ol-2\n"));
}

#[test]
fn bullets_and_numbered_lists() {
    let m = one("bullets");
    assert_eq!(s(&m.parsed.commit_sha), Some("0a1b2c3"));
    assert_eq!(
        list(&m.parsed.files),
        Some(vec!["src/a.rs", "src/b.rs", "src/c.rs"])
    );
    assert_eq!(
        (m.parsed.tests_pass, m.parsed.lint_pass, m.parsed.build_pass),
        (Some(true), Some(true), Some(true))
    );

    let m = one("numbered_lists");
    assert_eq!(
        list(&m.parsed.files_touched),
        Some(vec!["build.rs", "Cargo.toml"])
    );
    assert_eq!(
        s(&m.parsed.what_tried),
        Some("1. Cleaned the cache\n2. Pinned the toolchain\n3) Disabled LTO")
    );
}

#[test]
fn subsections_and_fences_stay_in_their_section() {
    let m = one("subsections");
    assert_eq!(
        s(&m.parsed.summary),
        Some("Implemented the cache.\n\n### Details\nEviction is LRU; fixed issue ##42 along the way.\n\n### Follow-ups\nNone.")
    );

    let m = one("fenced_code");
    let next = s(&m.parsed.next_steps).unwrap();
    assert!(next.starts_with("Run this first:"), "{next}");
    assert!(next.contains("## Summary\nthis heading is inside a code block"));
    assert!(next.ends_with("Then finish the parser."), "{next}");
    assert_eq!(m.parsed.summary, None);
    assert_eq!(s(&m.parsed.bead_id), Some("ol-6"));
}

#[test]
fn json_framings() {
    let m = one("json_object");
    assert_eq!(s(&m.id), Some("42"));
    assert_eq!(m.to, vec!["BlueLake"]);
    assert_eq!(m.thread_id, None);
    assert!(!m.ack_required);
    assert_eq!(s(&m.parsed.status), Some("\"quoted\" text"));
    assert_eq!(
        m.timestamp.unwrap().to_rfc3339(),
        "2026-01-31T10:00:00.123456+00:00"
    );

    let v = load("json_array");
    assert_eq!(v.len(), 2);
    assert_eq!(s(&v[0].from), Some("GreenCastle"));
    assert_eq!(s(&v[0].parsed.title), Some("Array framing"));
    assert_eq!(v[1].kind, MessageType::Failed);
    assert_eq!(s(&v[1].parsed.failure_type), Some("ERROR"));
    assert_eq!(v[1].parsed.internal_attempts, Some(1));

    let v = load("json_result");
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].parsed.resume, Some(false));
    assert_eq!(
        v[1].kind,
        MessageType::SpawnAck,
        "body type line decides a reply"
    );
    assert!(v[1].is_reply);
    assert_eq!(s(&v[1].parsed.status), Some("failed"));

    let v = load("json_lines");
    let steps: Vec<_> = v.iter().map(|m| s(&m.parsed.step)).collect();
    assert_eq!(steps, [Some("one"), Some("two"), None]);
    assert_eq!(v[2].kind, MessageType::Done);
}

#[test]
fn archive_and_bare_bodies() {
    let m = one("archive");
    assert_eq!(m.cc, vec!["Observer"]);
    assert_eq!(s(&m.thread_id), Some("ol-11"));
    assert_eq!(s(&m.parsed.summary), Some("Archive framing."));

    let m = one("bare_body");
    assert_eq!(m.kind, MessageType::HelpRequest);
    assert!(m.diagnostics.iter().any(|d| d.code == "type-inferred"));
    assert_eq!(s(&m.parsed.question), Some("What now?"));

    let m = one("bare_body_type_line");
    assert_eq!(m.kind, MessageType::Done);
    assert_eq!(s(&m.parsed.bead_id), Some("ol-13"));
}

/// Text that changes length when lower-cased (İ, ẞ, Ⱥ, the Kelvin sign)
/// before a section heading must not shift section boundaries (the Go
/// parser panics or loses lines here).
#[test]
fn unicode_does_not_shift_sections() {
    let m = one("unicode");
    assert_eq!(s(&m.parsed.bead_id), Some("ol-ü.1"));
    assert_eq!(s(&m.from), Some("Grüne-Burg"));
    assert_eq!(
        list(&m.parsed.files),
        Some(vec!["src/日本語.rs", "docs/ÉTÉ.md"])
    );
    assert_eq!(
        s(&m.parsed.summary),
        Some("İstanbul STRAẞE 完了しました 🎉🚀 — naïve café.\nSecond line: 中文 👩‍💻.")
    );
    assert_eq!(m.parsed.build_pass, Some(true));
}

/// Rendering any golden message and parsing the text again gives the same
/// type, envelope and fields (JSON, archive and bare framings included).
#[test]
fn golden_messages_survive_render() {
    for lf in lf_fixtures() {
        let bytes = std::fs::read(&lf).unwrap();
        for m in parse_bytes(&bytes, &ParseOptions::default()).unwrap() {
            let out = amail_parser::render(&m);
            let again = amail_parser::parse(&out, &ParseOptions::default()).unwrap();
            assert_eq!(again.len(), 1, "{}", lf.display());
            let a = &again[0];
            let name = lf.display();
            assert_eq!(a.kind, m.kind, "{name}\n{out}");
            assert_eq!(a.parsed, m.parsed, "{name}\n{out}");
            assert_eq!(a.body, m.body, "{name}\n{out}");
            assert_eq!(
                (&a.id, &a.from, &a.to, &a.cc, &a.thread_id, a.timestamp),
                (&m.id, &m.from, &m.to, &m.cc, &m.thread_id, m.timestamp),
                "{name}\n{out}"
            );
            assert_eq!(
                (a.ack_required, &a.importance, a.is_reply),
                (m.ack_required, &m.importance, m.is_reply),
                "{name}\n{out}"
            );
        }
    }
}
