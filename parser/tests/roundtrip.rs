//! Property tests: a structured message rendered with `canonical_body` and a
//! subject parses back to exactly the fields it was built from, and
//! `parse(render(m)) == m` for every message so parsed (a fixpoint).

use std::borrow::Cow;

use amail_parser::{canonical_body, parse, render, MessageType, ParseOptions, Parsed};
use proptest::prelude::*;

type P = Parsed<'static>;

fn own(s: String) -> Cow<'static, str> {
    Cow::Owned(s)
}

/// Bead ids with several hyphens, underscores and dots.
fn bead() -> impl Strategy<Value = String> {
    "[a-z]{1,4}(-[a-z0-9]{1,4}){1,3}([._][a-z0-9]{1,3}){0,2}"
}

/// A single-line value: no leading/trailing space, unicode included.
fn value() -> impl Strategy<Value = String> {
    "[A-Za-z0-9éüİẞ日本🎉\\[][A-Za-z0-9 éüİẞ日本🎉.()/#:,|*%`\\[\\]~-]{0,24}[A-Za-z0-9éüİẞ日本🎉.)\\]]"
}

/// One line of section text: starts with a word no type or label can be
/// (`abc1`), holds no heading.
fn text_line() -> impl Strategy<Value = String> {
    "[a-z]{1,6}[0-9]( [A-Za-z0-9éüİẞ日本🎉.,!?()#-]{1,12}){0,5}"
}

/// Multi-line section text, possibly with blank lines and bullets inside.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (text_line(), 0..4u8).prop_map(|(l, k)| match k {
            0 => format!("- {l}"),
            1 => format!("{l}\n"),
            _ => l,
        }),
        1..5,
    )
    .prop_map(|lines| lines.join("\n").trim_end().to_string())
}

fn files() -> impl Strategy<Value = Vec<Cow<'static, str>>> {
    prop::collection::vec(
        "[a-z0-9_日本]{1,8}(/[a-z0-9_é]{1,8}){0,2}\\.[a-z]{1,3}".prop_map(own),
        1..5,
    )
}

fn timestamp() -> impl Strategy<Value = String> {
    (
        2000..2100u32,
        1..=12u32,
        1..=28u32,
        0..24u32,
        0..60u32,
        0..60u32,
    )
        .prop_map(|(y, mo, d, h, mi, s)| format!("{y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z"))
}

/// Every field a message could carry; each type keeps the ones it renders.
#[derive(Debug, Clone)]
struct Pool {
    bead: String,
    v: [String; 4],
    texts: [String; 3],
    started: Option<String>,
    files: Option<Vec<Cow<'static, str>>>,
    checks: [Option<bool>; 3],
    pct: Option<u8>,
    attempts: Option<u32>,
    resume: Option<bool>,
    opt: [bool; 4],
    e: usize,
}

fn pool() -> impl Strategy<Value = Pool> {
    (
        bead(),
        [value(), value(), value(), value()],
        [text(), text(), text()],
        prop::option::of(timestamp()),
        prop::option::of(files()),
        [
            any::<Option<bool>>(),
            any::<Option<bool>>(),
            any::<Option<bool>>(),
        ],
        prop::option::of(0..=100u8),
        prop::option::of(0..1000u32),
        any::<Option<bool>>(),
        any::<[bool; 4]>(),
        0..5usize,
    )
        .prop_map(
            |(bead, v, texts, started, files, checks, pct, attempts, resume, opt, e)| Pool {
                bead,
                v,
                texts,
                started,
                files,
                checks,
                pct,
                attempts,
                resume,
                opt,
                e,
            },
        )
}

const ISSUE: &[&str] = &["STUCK", "SPEC_UNCLEAR", "BLOCKED", "TECHNICAL"];
const FAILURE: &[&str] = &[
    "TESTS_FAIL",
    "BUILD_FAIL",
    "SPEC_IMPOSSIBLE",
    "CONTEXT_HIGH",
    "ERROR",
];
const REASON: &[&str] = &["CONTEXT_HIGH", "MANUAL", "TIMEOUT"];
const SPAWN: &[&str] = &["spawned", "failed"];

/// The fields of a well-formed message of `kind` (required ones present).
fn fields(kind: MessageType, p: &Pool) -> P {
    let s = |i: usize| Some(own(p.v[i].clone()));
    let t = |i: usize| Some(own(p.texts[i].clone()));
    let o = |i: usize, v: Option<Cow<'static, str>>| if p.opt[i] { v } else { None };
    let b = Some(own(p.bead.clone()));
    let pick = |e: &'static [&'static str]| Some(Cow::Borrowed(e[p.e % e.len()]));
    let mut f = P::default();
    match kind {
        MessageType::BeadAccepted => {
            f.bead_id = b;
            f.title = o(0, s(0));
            f.started_at = p.started.clone().map(own);
        }
        MessageType::Progress => {
            f.bead_id = b;
            f.step = o(0, s(0));
            f.status = o(1, s(1));
            f.context_usage = p.pct;
            f.files_touched = p.files.clone();
        }
        MessageType::HelpRequest => {
            f.bead_id = b;
            f.issue_type = pick(ISSUE);
            f.problem = o(0, t(0));
            f.what_tried = o(1, t(1));
            f.files_touched = p.files.clone();
            f.question = t(2);
        }
        MessageType::HelpResponse => {
            f.bead_id = o(0, b);
            f.guidance = t(0);
        }
        MessageType::OfferingReady | MessageType::Done => {
            f.bead_id = b;
            f.status = o(0, s(0));
            f.commit_sha = o(1, s(1));
            f.files = p.files.clone();
            [f.tests_pass, f.lint_pass, f.build_pass] = p.checks;
            f.summary = o(2, t(0));
        }
        MessageType::Failed => {
            f.bead_id = b;
            f.status = o(0, s(0));
            f.failure_type = pick(FAILURE);
            f.reason = s(1);
            f.internal_attempts = p.attempts;
            f.partial_commit_sha = o(1, s(2));
            f.files = p.files.clone();
            f.recommendation = o(2, t(0));
        }
        MessageType::Checkpoint => {
            f.bead_id = b;
            f.checkpoint_reason = pick(REASON);
            f.partial_commit_sha = o(0, s(0));
            f.progress = o(1, s(1));
            f.context_usage = p.pct;
            f.next_steps = o(2, t(0));
        }
        MessageType::SpawnRequest => {
            f.issue_id = b;
            f.resume = p.resume;
            f.partial_commit_sha = o(0, s(0));
            f.orchestrator = o(1, s(1));
        }
        MessageType::SpawnAck => {
            f.issue_id = b;
            f.status = pick(SPAWN);
            f.session = o(0, s(0));
        }
        MessageType::Unknown => unreachable!(),
    }
    f
}

/// A subject in one of the accepted forms: `[bead] TYPE`, `bead: TYPE`,
/// bare `TYPE`, lower-case / kebab spelling, and a `Re:` chain (not for
/// HELP_REQUEST, whose reply is a HELP_RESPONSE).
fn subject(kind: MessageType, f: &P, style: usize) -> String {
    let t = kind.as_str();
    let spelled = match style % 3 {
        0 => t.to_string(),
        1 => t.to_ascii_lowercase(),
        _ => t.to_ascii_lowercase().replace('_', "-"),
    };
    let reply = if style >= 6 && kind != MessageType::HelpRequest {
        "Re: Fwd: "
    } else {
        ""
    };
    match (&f.bead_id, style % 2) {
        (Some(b), 0) => format!("{reply}[{b}] {spelled}"),
        (Some(b), _) => format!("{reply}{b}: {spelled} update"),
        (None, _) => format!("{reply}{spelled}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn rendered_fields_parse_back_and_render_is_a_fixpoint(
        kind in prop::sample::select(&MessageType::KNOWN[..]),
        p in pool(),
        style in 0..9usize,
    ) {
        let want = fields(kind, &p);
        let subject = subject(kind, &want, style);
        let text = format!("Subject: {subject}\n\nBody:\n{}", canonical_body(kind, &want));
        let msgs = parse(&text, &ParseOptions::default()).unwrap();
        prop_assert_eq!(msgs.len(), 1);
        let m = &msgs[0];
        // (a) the parsed fields are the generated ones, with no diagnostics,
        // and strict mode agrees.
        prop_assert_eq!(m.kind, kind, "{}", text);
        prop_assert_eq!(m.raw_type.as_deref(), Some(kind.as_str()));
        prop_assert_eq!(m.is_reply, subject.starts_with("Re:"));
        prop_assert_eq!(&m.parsed, &want, "{}", text);
        prop_assert!(m.diagnostics.is_empty(), "{:?}\n{}", m.diagnostics, text);
        prop_assert!(parse(&text, &ParseOptions::strict()).is_ok(), "{}", text);
        // (b) parse(render(m)) == m, and rendering again changes nothing.
        let out = render(m);
        let again = parse(&out, &ParseOptions::default()).unwrap();
        prop_assert_eq!(again.len(), 1);
        prop_assert_eq!(&again[0], m, "{}", out);
        prop_assert_eq!(render(&again[0]), out);
    }

    /// A message with no body renders its fields from `canonical_body`, and
    /// that parses back to the same fields.
    #[test]
    fn empty_body_renders_canonical_fields(
        kind in prop::sample::select(&MessageType::KNOWN[..]),
        p in pool(),
    ) {
        let want = fields(kind, &p);
        let text = format!("Subject: {}\n\nBody:\n{}", subject(kind, &want, 0), canonical_body(kind, &want));
        let mut m = parse(&text, &ParseOptions::default()).unwrap().remove(0);
        m.body = Cow::Borrowed("");
        let out = render(&m);
        let again = parse(&out, &ParseOptions::default()).unwrap().remove(0);
        prop_assert_eq!(&again.parsed, &want, "{}", out);
    }
}
