//! The agents corpus (`parser/fixtures/agents/*.md`): mail as language
//! models really write it, decorated (emoji and bold subjects, headings at
//! any level, labels in bold or italics behind bullets or numbers, values
//! with glyphs and notes, file lists in backticks or one per line, a body
//! in one fenced block, a line of prose before the message).
//!
//! For each file (named `<type>__<family>.md`):
//! - lenient mode reads the type from the name and every field listed in
//!   [`EXPECT`] (what a person reads from the message), with no warning;
//!   whatever it normalised is an `info` diagnostic named `normalised`;
//! - strict mode fails exactly at the first diagnostic it refuses (a
//!   normalisation names what lenient mode would have done);
//! - the CRLF twin gives identical JSON;
//! - both results are snapshotted under `snapshots/parser/`
//!   (`agents__<name>` lenient, `agents_strict__<name>` strict).

use std::path::PathBuf;

use amail_parser::{parse_bytes, OwnedMessage, ParseOptions, Severity};
use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/agents");

/// What a person reads from each message: `field=value` pairs separated by
/// `|`; lists joined with `,`; `field~=text` when the value starts with
/// `text` (long prose). Fields are looked up in `parsed`, then the message.
#[rustfmt::skip]
const EXPECT: &[(&str, &str)] = &[
    ("bead_accepted__bold_labels", "bead_id=ol-527.1|title=Add authentication middleware|started_at=2026-01-31T10:00:00Z"),
    ("bead_accepted__bullets", "bead_id=ol-527.1|title=Add authentication middleware|started_at=2026-01-31T10:00:00Z"),
    ("bead_accepted__emoji_subject", "bead_id=ol-527.1|title=Add authentication middleware"),
    ("bead_accepted__fenced", "bead_id=ol-527.1|title=Add authentication middleware|started_at=2026-01-31T10:00:00Z"),
    ("checkpoint__bold_labels", "bead_id=ol-527.5|checkpoint_reason=MANUAL|partial_commit_sha=jkl012|progress=Paused at the orchestrator's request|context_usage=40|next_steps=Resume from the renderer."),
    ("checkpoint__emoji", "bead_id=ol-527.5|checkpoint_reason=CONTEXT_HIGH|partial_commit_sha=jkl012|progress=Parser done, renderer half done|context_usage=85|next_steps=Finish the renderer and run the round-trip tests."),
    ("checkpoint__h3_progress", "bead_id=ol-527.5|checkpoint_reason=CONTEXT_HIGH|partial_commit_sha=jkl012|context_usage=85|next_steps~=1. Complete Step 4"),
    ("checkpoint__json_body", "bead_id=ol-527.5|checkpoint_reason=CONTEXT_HIGH|partial_commit_sha=jkl012|progress=Parser done, renderer half done|context_usage=85|next_steps~=Finish the renderer"),
    ("checkpoint__prose_first", "bead_id=ol-527.5|checkpoint_reason=TIMEOUT|partial_commit_sha=jkl012|progress=Benchmarks written, not yet run|next_steps~=Run bench/run.sh"),
    ("checkpoint__reason_decorated", "bead_id=ol-527.5|checkpoint_reason=CONTEXT_HIGH|context_usage=87|next_steps~=Run the remaining"),
    ("done__bare_heading_type", "bead_id=ol-10|commit_sha=5e6f7a8|files=src/lib.rs|tests_pass=true|lint_pass=true|build_pass=true"),
    ("done__bold_labels", "bead_id=ol-7|status=complete|commit_sha=9f8e7d6|files=src/reconnect.rs,src/backoff.rs|tests_pass=true|lint_pass=true|build_pass=true"),
    ("done__bold_type_line", "bead_id=ol-7|status=DONE|summary=Small fix, no review needed."),
    ("done__bullet_headers", "bead_id=ol-7|commit_sha=9f8e7d6|files=src/reconnect.rs|tests_pass=true|lint_pass=true|build_pass=true|from=TealHeron|to=BlueLake,GreenCastle|ack_required=true"),
    ("done__emoji_subject", "bead_id=ol-7|commit_sha=9f8e7d6|tests_pass=true|summary~=Reconnects back off"),
    ("done__h3_sections", "bead_id=ol-7|commit_sha=9f8e7d6|files=src/reconnect.rs|tests_pass=true|lint_pass=true|build_pass=true|summary=Done."),
    ("done__json_body", "bead_id=ol-7|commit_sha=9f8e7d6|files=src/reconnect.rs,src/backoff.rs|tests_pass=true|lint_pass=true|build_pass=true|summary=Reconnects back off exponentially."),
    ("done__prose_first", "bead_id=ol-7|status=DONE|summary=Backoff shipped.|from=TealHeron"),
    ("failed__bold_subject", "bead_id=ol-8|failure_type=SPEC_IMPOSSIBLE|reason~=The spec asks|internal_attempts=1"),
    ("failed__emoji_headings", "bead_id=ol-8|failure_type=BUILD_FAIL|reason~=The vendored OpenSSL|internal_attempts=2|partial_commit_sha=1a2b3c4|files=build.rs|recommendation=Switch to rustls."),
    ("failed__fenced_body", "bead_id=ol-8|failure_type=CONTEXT_HIGH|reason=Context ran out while refactoring the parser|internal_attempts=1"),
    ("failed__h3_failure", "bead_id=ol-8|failure_type=TESTS_FAIL|reason~=The integration suite|internal_attempts=3|recommendation=Run the suite on a runner with Docker."),
    ("failed__numbered_fields", "bead_id=ol-8|failure_type=ERROR|reason~=The task tracker|internal_attempts=4|recommendation~=Retry once"),
    ("failed__prose_then_bold_subject", "bead_id=ol-8|failure_type=TESTS_FAIL|reason=The flaky suite fails three runs in a row|internal_attempts=3|from=TealHeron"),
    ("failed__type_decorated", "bead_id=ol-8|failure_type=BUILD_FAIL|reason=Linker out of memory|internal_attempts=3"),
    ("help_request__bold_pseudo_headings", "bead_id=ol-527.2|issue_type=STUCK|problem~=The snapshot test differs|what_tried=Pinned the locale and the time zone.|question~=Is there a known CI"),
    ("help_request__bold_subject_emoji", "bead_id=ol-9|issue_type=TECHNICAL|problem~=The websocket|question~=Is exponential backoff"),
    ("help_request__emoji_headings", "bead_id=ol-527.2|issue_type=TECHNICAL|problem~=The async runtime|what_tried~=1. Raised|files_touched=src/pool.rs,src/runtime.rs|question=Should acquire fail fast instead of waiting?"),
    ("help_request__files_section_backticks", "bead_id=ol-527.2|issue_type=SPEC_UNCLEAR|files_touched=docs/retries.md,src/retry.rs|question=Which number is right?"),
    ("help_request__followup", "bead_id=ol-527.2|is_reply=true|issue_type=STUCK|problem~=Following up|question~=Can the CI runner"),
    ("help_request__h3_sections", "bead_id=ol-527.2|issue_type=SPEC_UNCLEAR|problem~=The spec does not say|what_tried~=- Read docs|question~=Keep the UNIQUE"),
    ("help_request__h4_question", "bead_id=ol-527.2|issue_type=BLOCKED|problem~=The staging database|what_tried=Rotated the token twice.|question~=Who can grant"),
    ("help_request__h4_sibling_heading", "bead_id=ol-78|issue_type=SPEC_UNCLEAR|problem=The users migration needs a backfill and a new index.|question=Should the backfill run before or after the index is created?"),
    ("help_request__issue_type_decorated", "bead_id=ol-527.2|issue_type=BLOCKED|problem~=The payments sandbox|question~=Can someone"),
    ("help_request__italic_headers", "bead_id=ol-527.2|issue_type=STUCK|problem=The migration hangs on the second run.|question=Should the lock be taken per table?|from=PurpleBear|to=BlueLake|cc=GreenCastle"),
    ("help_request__json_body", "bead_id=ol-527.2|issue_type=BLOCKED|problem=The staging database rejects the service token.|question=Who can grant the token read access?"),
    ("help_request__prose_before_subject", "bead_id=ol-527.2|issue_type=STUCK|problem~=`cargo build`|question~=Can we turn off LTO|from=PurpleBear"),
    ("help_response__bold_type_line", "bead_id=ol-3|is_reply=true|guidance~=Use exponential backoff"),
    ("help_response__fenced_body", "bead_id=ol-5|guidance~=Retry three times"),
    ("help_response__prose_first", "bead_id=ol-6|is_reply=true|guidance~=Pin the sort order|from=Chiron"),
    ("help_response__re_bold", "bead_id=ol-527.2|is_reply=true|guidance~=Keep the UNIQUE index"),
    ("help_response__subject_glyph", "bead_id=ol-4|guidance~=Split the test crate"),
    ("offering_ready__bead_note", "bead_id=ol-527.1|commit_sha=abc123def|tests_pass=true|summary~=Middleware merged"),
    ("offering_ready__bold_values", "bead_id=ol-527.1|status=DONE|commit_sha=abc123def|files=src/auth.py,tests/test_auth.py|tests_pass=true|lint_pass=true|build_pass=true"),
    ("offering_ready__checkbox_validation", "bead_id=ol-527.1|commit_sha=abc123def|tests_pass=true|lint_pass=true|build_pass=true"),
    ("offering_ready__commit_backtick_note", "bead_id=ol-527.1|commit_sha=a1b2c3d|files=src/auth.py|tests_pass=true"),
    ("offering_ready__emoji_headings", "bead_id=ol-527.1|commit_sha=abc123def|files=src/auth.py|tests_pass=true|lint_pass=true|build_pass=true|summary~=Token validation"),
    ("offering_ready__files_list", "bead_id=ol-527.1|commit_sha=abc123def|files=src/auth.py,src/tokens.py,tests/test_auth.py|tests_pass=true|lint_pass=true|build_pass=true"),
    ("offering_ready__h3_sections", "bead_id=ol-527.1|commit_sha=abc123def|files=src/auth.py,src/middleware.py|tests_pass=true|lint_pass=true|build_pass=true|summary~=Middleware is in place"),
    ("offering_ready__h3_sibling_heading", "bead_id=ol-77|commit_sha=4e5f6a7|files=src/auth/mod.rs,src/auth/cache.rs|tests_pass=true|lint_pass=true|build_pass=true|summary=Refactored the auth middleware to use the new token cache."),
    ("offering_ready__pass_emoji", "bead_id=ol-527.1|commit_sha=abc123def|tests_pass=true|lint_pass=true|build_pass=true|summary~=Added JWT"),
    ("offering_ready__subject_emoji_trailing", "bead_id=ol-527.1|commit_sha=abc123def|tests_pass=true|summary=Ready for review."),
    ("offering_ready__whole_fenced", "bead_id=ol-527.1|commit_sha=abc123def|files=src/auth.py|tests_pass=true|lint_pass=true|build_pass=true|summary=Ready for review.|from=GreenCastle"),
    ("progress__bare_prose_type_line", "bead_id=ab-13|step=Step 1 - scaffolding|status=Crate created|context_usage=12"),
    ("progress__bold_headers", "bead_id=ol-527.1|step=Step 3 - session refresh|status=Refresh tokens rotate on use|context_usage=48|from=GreenCastle|to=BlueLake|thread_id=ol-527.1"),
    ("progress__bold_labels_colon_outside", "bead_id=ol-527.1|step=Step 5 - error handling|status=Adding typed errors to the middleware|context_usage=61|files_touched=src/errors.py,src/auth.py"),
    ("progress__bold_subject", "bead_id=ol-527.1|step=Step 2 - wiring the token store|context_usage=30"),
    ("progress__bullet_italic_labels", "bead_id=ol-527.1|step=Step 6 - docs|status=ok, writing the README section|context_usage=64|files_touched=README.md,docs/auth.md"),
    ("progress__emoji_labels", "bead_id=ab-12|step=Step 2 - schema migration|status=Migration written and applied locally|context_usage=38|files_touched=migrations/0007_add_index.sql"),
    ("progress__emoji_subject", "bead_id=ol-527.1|step=Step 4 - implementing auth middleware|context_usage=45|files_touched=src/auth.py,tests/test_auth.py"),
    ("progress__fenced_body", "bead_id=gt-88|step=Step 5 - error messages|status=Adding spans to every error|context_usage=60|files_touched=src/error.rs"),
    ("progress__files_backticks", "bead_id=gt-88|context_usage=45|files_touched=src/lexer.rs,tests/lexer.rs,Cargo.toml"),
    ("progress__files_markdown_list", "bead_id=gt-88|status=PASS ✅ on the new unit tests|context_usage=48|files_touched=src/lexer.rs,src/token.rs,tests/lexer.rs"),
    ("progress__files_one_per_line", "bead_id=gt-88|context_usage=55|files_touched=src/parser.rs,src/ast.rs,tests/parser.rs"),
    ("progress__heading_fields", "bead_id=ab-12|step=Step 3 - backfill script|context_usage=42|files_touched=scripts/backfill.py,tests/test_backfill.py"),
    ("progress__json_body", "bead_id=ol-527.1|step=Step 4 - implementing auth middleware|status=Writing the middleware handler|context_usage=45|files_touched=src/auth.py,tests/test_auth.py"),
    ("progress__numbered_labels", "bead_id=ol-527.1|step=Step 7 - integration tests|status=Two of five suites pass|context_usage=70|files_touched=tests/test_integration.py"),
    ("progress__percent_words", "bead_id=gt-88|step=Step 1 - reading the parser|context_usage=45"),
    ("progress__pipe_row", "bead_id=ol-79|step=3 of 5 — wiring the CLI|context_usage=60|status=on track|files_touched=src/cli.rs,src/main.rs"),
    ("progress__prose_first", "bead_id=gt-88|step=Step 6 - fuzzing|context_usage=66|from=RedFox"),
    ("progress__prose_in_body", "bead_id=ab-12|step=Step 4 - verification|context_usage=47"),
    ("progress__trailing_update", "bead_id=ol-527.1|step=Step 3 - refresh tokens|context_usage=52|files_touched=src/refresh.py"),
    ("progress__whole_doc_fenced", "bead_id=gt-88|step=Step 7 - benchmarks|context_usage=71|files_touched=benches/parse.rs|from=RedFox"),
    ("spawn_ack__bold", "issue_id=ol-527.6|status=spawned|session=demigod-ol-527-6"),
    ("spawn_ack__emoji_subject", "issue_id=ol-527.8|status=spawned|session=demigod-ol-527-8"),
    ("spawn_ack__prose_first", "issue_id=ol-527.9|status=failed|session=null|from=spawner"),
    ("spawn_ack__status_decorated", "issue_id=ol-527.7|status=spawned|session=demigod-ol-527-7"),
    ("spawn_request__bold_labels", "issue_id=ol-527.6|resume=true|partial_commit_sha=jkl012|orchestrator=crank-ol527"),
    ("spawn_request__emoji_subject", "issue_id=ol-527.7|resume=false|orchestrator=crank-ol527"),
    ("spawn_request__fenced", "issue_id=ol-527.8|resume=true|partial_commit_sha=abc999|orchestrator=crank-ol527"),
    ("spawn_request__numbered", "issue_id=ol-527.9|resume=false|orchestrator=crank-ol527"),
    ("progress__subject_bracketed_type", "bead_id=ol-9|step=Step 2 - token checks|status=in progress|context_usage=35"),
    ("progress__subject_type_before_bead", "bead_id=ol-9|step=Step 3 - session refresh|status=in progress|context_usage=41"),
    ("help_request__reply_bracketed_type", "bead_id=ol-9|is_reply=true|issue_type=STUCK|problem~=Following up|question~=Can the store"),
    ("progress__subject_paren_bead", "bead_id=ol-9|step=Step 4 - middleware wiring|status=in progress|context_usage=47"),
    ("done__subject_colon_after_bracket", "bead_id=ol-7|status=complete|commit_sha=9f8e7d6|files=src/reconnect.rs|tests_pass=true|lint_pass=true|build_pass=true"),
    ("progress__subject_pipes", "bead_id=ol-9|step=Step 5 - error paths|status=in progress|context_usage=52"),
    ("progress__table_fields", "bead_id=ol-7|step=Step 2 - retry loop|status=in progress|context_usage=45"),
    ("done__table_bold_labels_no_header", "bead_id=ol-7|status=complete|commit_sha=9f8e7d6|files=src/reconnect.rs,src/backoff.rs|tests_pass=true|lint_pass=true|build_pass=true"),
    ("offering_ready__file_table_left_alone", "bead_id=ol-527.1|commit_sha=abc123def|files=src/auth.py,tests/test_auth.py|tests_pass=true|lint_pass=true|build_pass=true|summary=Auth middleware ready for review."),
    ("progress__dash_labels", "bead_id=ol-9|step=Step 6 - rate limits|status=in progress|context_usage=58"),
    ("progress__dash_bullet_left_alone", "bead_id=ol-9|step=Step 7 - status page|context_usage=61|status=null"),
    ("help_request__numbered_headings", "bead_id=ol-60|issue_type=TECHNICAL|problem~=The release build segfaults|what_tried~=- Ran the debug build|files_touched=Cargo.toml,src/main.rs|question~=Should I turn LTO off"),
    ("offering_ready__link_values", "bead_id=ol-61|status=DONE|commit_sha=9f3c2e1|files=src/auth.rs,src/lib.rs|tests_pass=true|lint_pass=true|build_pass=true|summary~=Token refresh"),
    ("checkpoint__link_commit_note", "bead_id=ol-62|checkpoint_reason=CONTEXT_HIGH|partial_commit_sha=deadbee|progress~=The lexer is done|context_usage=84|next_steps~=Finish the parser"),
    ("progress__link_file_list", "bead_id=ol-63|step=Step 2 - the retry loop|status=in progress|context_usage=40|files_touched=src/retry.rs,tests/retry.rs"),
    ("progress__files_changed_label", "bead_id=ol-64|step=Step 3 - the cache layer|status=in progress|context_usage=52|files_touched=src/cache.rs,src/lib.rs"),
    ("done__files_touched_in_changes", "bead_id=ol-65|status=DONE|commit_sha=7c8d9e0|files=src/cache.rs,tests/cache.rs|tests_pass=true|lint_pass=true|build_pass=true|summary=The cache evicts by age."),
    ("progress__files_semicolons", "bead_id=ol-66|step=Step 4 - the retry budget|status=in progress|context_usage=58|files_touched=src/budget.rs,src/retry.rs,tests/budget.rs"),
    ("spawn_request__no_checkpoint", "issue_id=ol-71|resume=false|partial_commit_sha=null|orchestrator=crank-ol71"),
    ("done__not_applicable", "bead_id=ol-72|status=DONE|commit_sha=0a1b2c3|files=docs/retries.md|tests_pass=null|lint_pass=true|build_pass=null|summary~=Documentation only"),
    ("progress__context_fraction", "bead_id=ol-73|step=Step 2 - the parser|status=in progress|context_usage=45|files_touched=src/parse.rs"),
    ("bead_accepted__utc_time", "bead_id=ol-74|title=Add the retry budget|started_at=2026-12-01 09:00 UTC"),
    ("help_request__questions_heading", "bead_id=ol-70|issue_type=BLOCKED|problem~=The staging cluster|question=1. When is staging expected back?\n2. May I test against a local stack meanwhile?"),
    ("help_request__inline_section_labels", "bead_id=ol-67|issue_type=STUCK|problem=The migration deadlocks when two workers start together.\nIt happens on every third deploy.|what_tried=Advisory locks, then a retry loop around the migration.|question=Should the migration run on one leader only?"),
    ("offering_ready__inline_summary", "bead_id=ol-68|status=DONE|summary=The cache evicts entries by age and by size.|commit_sha=1f2e3d4|files=src/cache.rs|tests_pass=true|lint_pass=true|build_pass=true"),
    ("failed__inline_recommendation", "bead_id=ol-69|failure_type=SPEC_IMPOSSIBLE|reason=The API the spec names was removed upstream.|internal_attempts=2|recommendation=Rewrite the bead against the v2 API."),
    ("help_request__setext_headings", "bead_id=ol-527.2|issue_type=TECHNICAL|problem~=The websocket client|what_tried~=Added a fixed|question=Is exponential backoff with jitter the expected fix?"),
    ("checkpoint__setext_headings", "bead_id=ol-527.5|checkpoint_reason=CONTEXT_HIGH|partial_commit_sha=jkl012|context_usage=84|next_steps~=Finish the renderer"),
    ("progress__backtick_labels", "bead_id=ol-81|step=3/5 - wiring the cache|status=cache hits logged|context_usage=52|files_touched=src/cache.rs,src/lib.rs"),
    ("help_request__worded_headings", "bead_id=ol-82|issue_type=TECHNICAL|problem=The migration deadlocks when two workers start together.|what_tried~=- Advisory locks|question=Should the migration run on one leader only?"),
    ("failed__worded_headings", "bead_id=ol-83|status=FAILED|failure_type=BUILD_FAIL|reason=The linker runs out of memory on the CI runner|internal_attempts=2|recommendation=Build on the larger runner."),
    ("checkpoint__progress_inline", "bead_id=ol-84|checkpoint_reason=CONTEXT_HIGH|partial_commit_sha=4f2a9c1|progress=parser done, lexer half done|context_usage=85|next_steps~=Finish the lexer"),
    ("checkpoint__progress_prose", "bead_id=ol-85|checkpoint_reason=MANUAL|partial_commit_sha=7b8c9d0|progress=The parser is done; the lexer still drops CRLF line ends.|context_usage=61|next_steps=Fix the lexer's line ends."),
    ("offering_ready__test_counts", "bead_id=ol-86|commit_sha=3c4d5e6|files=src/retry.rs|tests_pass=true|lint_pass=true|build_pass=true|summary=Retries back off with jitter."),
    ("done__test_counts_failing", "bead_id=ol-87|commit_sha=8d9e0f1|files=src/queue.rs|tests_pass=false|lint_pass=true|build_pass=true"),
    ("progress__prose_subject", "bead_id=ol-88|step=2/4 - the index|status=index builds in 40 ms|context_usage=33"),
    ("progress__current_step", "bead_id=ol-89|step=4/6 - the renderer|status=tables render, lists next|context_usage=58"),
    ("progress__context_tokens", "bead_id=ol-91|step=2/4 - the tokenizer|context_usage=45|files_touched=src/token.rs,src/lib.rs"),
    ("spawn_request__checkpoint_note", "issue_id=ol-92|resume=true|partial_commit_sha=4e5f6a7|orchestrator=BlueLake"),
    ("offering_ready__glyph_selectors", "bead_id=ol-93|commit_sha=5a6b7c8|files=src/budget.rs,tests/budget.rs|tests_pass=true|lint_pass=true|build_pass=true|summary=Retries share one budget per host."),
    ("bead_accepted__quoted_title", "bead_id=ol-94|title=Add the retry budget|started_at=2026-12-02T18:00:00Z"),
    ("progress__quoted_values", "bead_id=ol-95|step=3/5 - the budget's tests|status=waiting on CI|context_usage=51"),
];

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

fn stem(p: &std::path::Path) -> String {
    let n = p.file_name().unwrap().to_string_lossy();
    n.trim_end_matches(".md").to_string()
}

fn lenient(bytes: &[u8]) -> Vec<OwnedMessage> {
    parse_bytes(bytes, &ParseOptions::default()).unwrap()
}

/// A JSON value as the expectation strings write it.
fn flat(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(flat).collect::<Vec<_>>().join(","),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

/// Every mismatch between `m` and the expectation `spec`.
fn mismatches(m: &OwnedMessage, spec: &str) -> Vec<String> {
    let json = serde_json::to_value(m).unwrap();
    let mut out = Vec::new();
    for pair in spec.split('|') {
        let (key, want, prefix) = match pair.split_once("~=") {
            Some((k, w)) => (k, w, true),
            None => {
                let (k, w) = pair.split_once('=').expect("field=value");
                (k, w, false)
            }
        };
        let got = json["parsed"]
            .get(key)
            .or_else(|| json.get(key))
            .unwrap_or_else(|| panic!("no field {key}"));
        let got = flat(got);
        let ok = if prefix {
            got.starts_with(want)
        } else {
            got == want
        };
        if !ok {
            out.push(format!("{key}: got {got:?}, want {want:?}"));
        }
    }
    out
}

#[test]
fn every_fixture_has_an_expectation_and_the_corpus_is_complete() {
    let stems: Vec<String> = lf_fixtures().iter().map(|p| stem(p)).collect();
    assert!(stems.len() >= 60, "agents corpus has {} files", stems.len());
    let mut listed: Vec<String> = EXPECT.iter().map(|(s, _)| s.to_string()).collect();
    listed.sort();
    assert_eq!(stems, listed, "EXPECT and the files disagree");
    // Every message type the parser knows has decorated mail.
    for kind in amail_parser::MessageType::KNOWN {
        let prefix = format!("{}__", kind.as_str().to_ascii_lowercase());
        assert!(
            stems.iter().any(|s| s.starts_with(&prefix)),
            "no decorated {kind}"
        );
    }
}

#[test]
fn lenient_mode_reads_every_field_a_person_would() {
    let mut failures = Vec::new();
    for (name, spec) in EXPECT {
        let bytes = std::fs::read(format!("{DIR}/{name}.md")).unwrap();
        let msgs = lenient(&bytes);
        if msgs.len() != 1 {
            failures.push(format!("{name}: {} messages", msgs.len()));
            continue;
        }
        let m = &msgs[0];
        let want_kind = name.split("__").next().unwrap().to_ascii_uppercase();
        let mut problems = Vec::new();
        if m.kind.as_str() != want_kind {
            problems.push(format!("type {} (want {want_kind})", m.kind));
        }
        problems.extend(mismatches(m, spec));
        problems.extend(m.warnings().map(|d| format!("warning {d:?}")));
        for d in &m.diagnostics {
            if d.code == "normalised" {
                assert_eq!(d.severity, Severity::Info, "{name}: {d:?}");
                assert!(d.line >= 1 && d.column >= 1, "{name}: {d:?}");
            }
        }
        if !problems.is_empty() {
            failures.push(format!("{name}:\n    {}", problems.join("\n    ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures lose fields:\n{}",
        failures.len(),
        EXPECT.len(),
        failures.join("\n")
    );
}

#[test]
fn crlf_twins_give_identical_json() {
    for lf in lf_fixtures() {
        let name = stem(&lf);
        let lf_bytes = std::fs::read(&lf).unwrap();
        assert!(!lf_bytes.contains(&b'\r'), "{name}: LF fixture has CR");
        let crlf_bytes = std::fs::read(format!("{DIR}/{name}.crlf.md"))
            .unwrap_or_else(|_| panic!("{name}: no CRLF twin; run make-crlf-twins.sh"));
        assert_eq!(
            crlf_bytes.windows(2).filter(|w| w == b"\r\n").count() + 1,
            lf_bytes.split(|&b| b == b'\n').count(),
            "{name}: twin is not CRLF throughout"
        );
        for opts in [ParseOptions::default(), ParseOptions::strict()] {
            let a = parse_bytes(&lf_bytes, &opts).map(|m| serde_json::to_value(m).unwrap());
            let b = parse_bytes(&crlf_bytes, &opts).map(|m| serde_json::to_value(m).unwrap());
            match (a, b) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{name}: CRLF twin differs"),
                (Err(a), Err(b)) => assert_eq!(
                    (a.line, a.column, a.code, a.message),
                    (b.line, b.column, b.code, b.message),
                    "{name}: CRLF twin fails elsewhere in strict mode"
                ),
                (a, b) => panic!("{name}: LF {a:?}, CRLF {b:?}"),
            }
        }
    }
}

/// Strict mode refuses the first diagnostic it refuses in lenient mode's
/// list (a normalisation, when the message needed one), at its position.
#[test]
fn strict_mode_refuses_at_the_first_refused_diagnostic() {
    const ACCEPTED: &[&str] = &[
        "type-inferred",
        "field-outside-section",
        "missing-body-label",
        "no-value",
    ];
    for lf in lf_fixtures() {
        let name = stem(&lf);
        let bytes = std::fs::read(&lf).unwrap();
        let m = &lenient(&bytes)[0];
        let refused = m
            .diagnostics
            .iter()
            .find(|d| !ACCEPTED.contains(&d.code.as_ref()));
        match (refused, parse_bytes(&bytes, &ParseOptions::strict())) {
            (None, Ok(_)) => {}
            (Some(d), Err(e)) => {
                assert_eq!(
                    (e.line, e.column, e.code.as_str()),
                    (d.line, d.column, d.code.as_ref()),
                    "{name}"
                );
                // A refused normalisation says what lenient mode would read.
                assert!(
                    e.message.contains(&*d.message.text()),
                    "{name}: {}",
                    e.message
                );
                if d.code == "normalised" {
                    assert!(e.message.contains("would read"), "{name}: {}", e.message);
                }
            }
            (d, r) => panic!("{name}: lenient {d:?}, strict {r:?}"),
        }
    }
}

#[test]
fn snapshots_of_both_modes() {
    for lf in lf_fixtures() {
        let name = stem(&lf);
        let bytes = std::fs::read(&lf).unwrap();
        let strict = match parse_bytes(&bytes, &ParseOptions::strict()) {
            Ok(msgs) => serde_json::json!({
                "ok": msgs.iter().map(|m| m.kind.as_str()).collect::<Vec<_>>()
            }),
            Err(e) => serde_json::json!({ "error": e.report(&format!("{name}.md")) }),
        };
        insta::with_settings!({
            snapshot_path => "../../snapshots/parser",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_json_snapshot!(format!("agents__{name}"), lenient(&bytes));
            insta::assert_json_snapshot!(format!("agents_strict__{name}"), strict);
        });
    }
}
