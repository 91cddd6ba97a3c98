//! The body index's tests: each fast path held to the general reading it
//! stands in for, and the index's answers on written bodies.

use super::label::LABEL_LENGTHS;
use super::tables::{row_parts, table_label, ROW_SEPARATOR};
use super::*;
use crate::grammar::{field_line, is_inert_line, known_field_line};

/// [`Body::within`] as first written: the section's hits searched
/// first, the label's first hit anywhere after.
fn within_by_search<'a>(
    body: &Body<'_, 'a>,
    kind: SectionKind,
    label: Label,
    diags: &mut Diags<'_, 'a>,
) -> Option<Hit<'a>> {
    if let Some(s) = body.section(kind) {
        if let Some(h) = body.in_section(s, label) {
            return Some(h);
        }
    }
    let h = body.top(label)?;
    if body.sectionless {
        return Some(h);
    }
    let line = &body.lines[h.line];
    diags.at(
        Code::FieldOutsideSection,
        line,
        crate::trim::trim_start(line.text),
        Note::join(&["field found outside its `## ", kind.name(), "` section"]),
    );
    Some(h)
}

proptest::proptest! {
    /// `may_be_other`'s test of a line that opens with a letter (the
    /// places at once) answers as the ten places asked one by one do,
    /// whatever the line's length and bytes.
    #[test]
    fn dash_places_read_as_asked_one_by_one(
        rest in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b' ', b'-', 0xE2, b':', b'*']),
            0..40,
        ),
    ) {
        let mut b = vec![b'S'];
        b.extend(rest);
        let one_by_one = LABEL_LENGTHS
            .iter()
            .any(|&l| matches!(b.get(l + 1), Some(&(b'-' | 0xE2))));
        proptest::prop_assert_eq!(may_be_other(&b), one_by_one);
    }
}

proptest::proptest! {
    /// A label in a section is found, and noted when found outside
    /// it, as the search of the section's hits first found it: bodies
    /// of the sections and labels a DONE and a FAILED are asked for,
    /// each label in none, one or several of them.
    #[test]
    fn labels_within_sections_read_as_searched(
        picks in proptest::collection::vec(0usize..16, 0..24),
        sectionless in proptest::bool::ANY,
    ) {
        const LINES: [&str; 16] = [
            "## Changes", "## Self-Validation", "## Failure", "### Changes",
            "**Summary**", "Commit: abc", "Tests: PASS", "Files: a.rs",
            "Type: STUCK", "Lint: FAIL", "- Build: PASS", "",
            "prose here", "Reason: x", "- **Commit**: def", "Tests: FAIL",
        ];
        let text: String = picks.iter().map(|&i| format!("{}\n", LINES[i])).collect();
        let lines = crate::lines::split_lines(&text, 1);
        let source = crate::diag::Source { text: &text, lines: &lines };
        let mut body = Body::new(&text, &lines);
        body.read(&mut Diags::new(false, source));
        body.sectionless = sectionless;
        let kinds = [SectionKind::Changes, SectionKind::SelfValidation, SectionKind::Failure, SectionKind::Preamble];
        let labels = [Label::Commit, Label::Files, Label::Tests, Label::Lint, Label::Build, Label::Type, Label::Reason];
        for kind in kinds {
            for label in labels {
                let (mut a, mut b) = (Diags::new(false, source), Diags::new(false, source));
                let found = body.within(kind, label, &mut a).map(|h| (h.section, h.line, h.value));
                let searched = within_by_search(&body, kind, label, &mut b).map(|h| (h.section, h.line, h.value));
                proptest::prop_assert_eq!(found, searched);
                proptest::prop_assert_eq!(format!("{:?}", a.list), format!("{:?}", b.list));
            }
        }
    }
}

/// [`SectionKind::from_title`] as first written: each title compared
/// in turn.
fn from_title_by_compare(title: &str) -> SectionKind {
    let t = title.trim_end_matches(':').trim();
    let is = |s: &str| t.eq_ignore_ascii_case(s);
    if is("problem") {
        SectionKind::Problem
    } else if is("what i tried") || is("what i've tried") || is("what was tried") {
        SectionKind::WhatTried
    } else if is("files touched") {
        SectionKind::FilesTouched
    } else if is("question") || is("questions") {
        SectionKind::Question
    } else if is("changes") {
        SectionKind::Changes
    } else if is("self-validation") || is("self validation") || is("validation") {
        SectionKind::SelfValidation
    } else if is("summary") {
        SectionKind::Summary
    } else if is("failure") {
        SectionKind::Failure
    } else if is("partial progress") {
        SectionKind::PartialProgress
    } else if is("recommendation") {
        SectionKind::Recommendation
    } else if is("progress") {
        SectionKind::Progress
    } else if is("next steps for successor") || is("next steps") {
        SectionKind::NextSteps
    } else {
        SectionKind::Other
    }
}

proptest::proptest! {
    /// A row's parts are `str::split`'s on the separator, with bars
    /// and blanks run together and at either end.
    #[test]
    fn row_parts_are_splits_on_the_separator(value in "([ |]|[a-z*:é]){0,16}") {
        proptest::prop_assert_eq!(
            row_parts(&value).collect::<Vec<_>>(),
            value.split(ROW_SEPARATOR).collect::<Vec<_>>()
        );
    }
}

proptest::proptest! {
    /// The compare by length reads every title as comparing each in
    /// turn did: each title in any case, with colons and blanks
    /// around it, near misses (one byte changed) and any text.
    /// A decorated label line's label part reads on bytes as the
    /// general trim reads it.
    #[test]
    fn decorated_label_parts_read_as_trimmed(
        line in "[ ]{0,3}([-*+]|1\\.)?[ \t]{0,2}(🔖 |✅\t|\\[x\\] )?(\\*\\*|_)?[A-Za-zé][a-z é]{0,8}(\\*\\*|_)?[ ]?:(\\*\\*)?[ \t\u{a0}]{0,2}[a-z✅ ]{0,5}",
    ) {
        if let Some(f) = crate::decor::decorated_field(&line) {
            proptest::prop_assert_eq!(decorated_label_part(&line, f.value), crate::grammar::label_part(&line, f.value));
        }
    }

    /// A title the plain reading knows reads as the same section
    /// through decorations (so the body index asks only the first).
    #[test]
    fn known_titles_read_alike_through_decorations(
        t in "[ \t]{0,2}(:|\\*\\*|✅ )?(Problem|question|WHAT I TRIED|Self-Validation|self validation|Next Steps|summary|Changes|x|)(:{0,3}|\\*\\*| 🧩)[ \t]{0,2}",
    ) {
        let plain = SectionKind::from_title(&t);
        if plain != SectionKind::Other {
            proptest::prop_assert_eq!(SectionKind::from_decorated_title(&t), Some(plain));
        }
    }

    /// A label as the protocol spells it in bold reads as the bold
    /// label's reading reads it, its label looked up: any case, blanks
    /// and marks around the colon, any value, the line's end plain or
    /// not (`marked_field_line` asks the spelling first).
    #[test]
    fn spelled_bold_labels_read_as_the_bold_reading(
        t in "([-*+] )?\\*\\*(Bead|Context usage|Files touched|Files|Issue Type|Issue|Tests|Lint|bead|BUILD|Stat|x)( ?:|:)(\\*\\*|\\*| \\*\\*)?[ \t]{0,2}[a-z0-9✅`*:]{0,5}[ \t\r]{0,2}",
    ) {
        let plain = !t.ends_with([' ', '\t', '\r']);
        for plain_end in [plain, false] {
            if let Some((f, label)) = Label::spelled_in_bold(&t, plain_end) {
                proptest::prop_assert_eq!(crate::decor::bold_label_read(&t), Some((f, true)));
                proptest::prop_assert_eq!(Label::lookup(f.label), Some(label));
            }
        }
    }

    /// A line that opens with a number or an emoji is no field to the
    /// field grammar, the bullet's spelling or the bold label's reading
    /// (`marked_field_line` answers so at once).
    #[test]
    fn numbered_and_emoji_lines_are_no_marked_field(
        t in "([0-9]{1,3}[.)]?|🔖|✅|📊|\u{2600}|\u{FE0F})[ \t]{0,2}(\\*\\*|_|-|\\[x\\] )?(Bead|Context usage|x|é|[0-9])?(\\*\\*)?:?(\\*\\*)?[ ]?[a-z0-9%]{0,4}",
    ) {
        for plain_end in [true, false] {
            proptest::prop_assert!(Label::spelled_after_bullet(&t, plain_end).is_none());
        }
        proptest::prop_assert!(crate::decor::bold_label_read(&t).is_none());
        proptest::prop_assert!(field_line(&t).is_none());
    }

    /// A title with glyphs first reads as the title comparisons read
    /// it (see `SectionKind::from_title`'s emoji test).
    #[test]
    fn glyph_titles_read_as_comparing_each_did(
        t in "(🧩|✅|➡️|\u{FE0F}|\u{200D}|é|\\*){0,3}( |  |\t|\u{a0})?(Problem|problem:|Next Steps|x|é|\\*\\*|_| |:){0,3}",
    ) {
        proptest::prop_assert_eq!(SectionKind::from_title(&t), from_title_by_compare(&t));
    }

    #[test]
    fn titles_read_as_comparing_each_did(
        s in crate::words::spellings(&[
            "problem", "what i tried", "what i've tried", "what was tried", "files touched",
            "question", "questions", "changes", "self-validation", "self validation", "validation",
            "summary", "failure", "partial progress", "recommendation", "progress",
            "next steps for successor", "next steps",
        ], 26),
        around in "[ :\t]{0,2}",
    ) {
        let whole = format!("{}{around}", s.name);
        for t in s.all().chain([whole.as_str()]) {
            proptest::prop_assert_eq!(SectionKind::from_title(t), from_title_by_compare(t));
        }
    }
}

/// A label as the protocol spells it reads as the general reading
/// reads it: every name and near miss, in several cases, with values
/// and blanks of every kind after it.
#[test]
fn spec_spellings_read_as_the_general_reading() {
    let names = [
        "Bead",
        "Build",
        "Status",
        "Step",
        "Session",
        "Context usage",
        "Commit",
        "Files touched",
        "Files",
        "Reason",
        "Issue Type",
        "Issue",
        "Type",
        "Tests",
        "Lint",
        "Accepted bead",
        "Title",
        "Internal Attempts",
        "Checkpoint",
        "Bead id",
        "Beads",
        "Bea",
        "Stat",
        "Context",
        "Files changed",
        "Failure type",
    ];
    let (mut read, mut bulleted, mut bold) = (0, 0, 0);
    for name in names {
        for spelled in [
            name.to_string(),
            name.to_lowercase(),
            name.to_uppercase(),
            format!("{name} "),
            format!("{name}2"),
        ] {
            for after in [
                ":",
                ": x",
                ":x",
                ":  ol-1  ",
                ":\tv\t",
                ": a: b",
                ":: x",
                ": \u{a0}v\u{3000}",
                ": PASS ✅",
                ": `a`",
                ":\r",
                ": \u{b}x\u{c}",
            ] {
                let text = format!("{spelled}{after}");
                let general = known_field_line(&text, Label::lookup);
                // A message line's test (`lib::is_message_line`).
                if Label::opens_spelled(&text) {
                    assert!(
                        field_line(&text).is_some_and(|f| Label::lookup(f.label).is_some()),
                        "{text:?}"
                    );
                }
                // Read as a line that ends plainly when it does (no
                // trailing blank or `\r`), and as one that does not.
                let plain = !text.ends_with([' ', '\t', '\r']);
                for plain_end in [plain, false] {
                    let spec = Label::spec_spelling(text.as_bytes()).and_then(|(l, colon)| {
                        Some((spelled_field_at(&text, colon, plain_end)?, Some(l)))
                    });
                    if spec.is_some() {
                        read += 1;
                        assert_eq!(spec, general, "{text:?}");
                    }
                }
                // In bold, the colon inside the emphasis, alone or
                // after a bullet, as the bold label's reading reads it.
                if let Some(after) = after.strip_prefix(':') {
                    for open in ["**", "- **", "+ **", "* **"] {
                        let text = format!("{open}{spelled}:**{after}");
                        let general = crate::decor::bold_label_read(&text)
                            .filter(|&(_, inside)| inside)
                            .and_then(|(f, _)| Some((f, Label::lookup(f.label)?)));
                        let plain = !text.ends_with([' ', '\t', '\r']);
                        for plain_end in [plain, false] {
                            let spec = Label::spelled_in_bold(&text, plain_end);
                            if spec.is_some() {
                                bold += 1;
                                assert_eq!(spec, general, "{text:?}");
                            }
                        }
                    }
                }
                // After a bullet, as the field grammar reads it.
                for bullet in ["- ", "+ ", "* "] {
                    let text = format!("{bullet}{text}");
                    let general = field_line(&text).map(|f| (f, Label::lookup(f.label)));
                    let plain = !text.ends_with([' ', '\t', '\r']);
                    for plain_end in [plain, false] {
                        let spec = Label::spelled_after_bullet(&text, plain_end);
                        if spec.is_some() {
                            bulleted += 1;
                            assert_eq!(spec, general, "{text:?}");
                        }
                    }
                }
            }
        }
    }
    // Each of the fifteen spellings, with each of the values.
    assert_eq!(read, 2 * 15 * 12);
    assert_eq!(bulleted, 2 * 3 * 15 * 12);
    assert_eq!(bold, 2 * 4 * 15 * 12);
}

/// A heading as the protocol writes it reads as the heading grammar
/// reads it, and its near misses are left to that grammar.
#[test]
fn spelled_headings_read_as_the_grammar() {
    let mut spelled = 0;
    for marks in ["#", "##", "###", "####", "#####", " ##", "##\t", "##  "] {
        for title in [
            "Changes",
            "Self-Validation",
            "Next Steps for Successor",
            "Summary:",
            "Summary ",
            "Summary\u{a0}",
            "🧩 Problem",
            "Problem 🧩",
            "a",
            "ab",
            "1abc",
            "a1",
            "é",
            "aé",
            "",
            "#",
            "Files Touched",
            "📋 Summary",
            "📋 Summary:",
            "✅  Summary",
            "➡️ Next Steps",
            "🧩",
            "\u{a0}Summary",
        ] {
            let line = format!("{marks} {title}");
            if let Some(h) = spelled_heading(&line) {
                spelled += 1;
                assert_eq!(Some(h), heading(&line), "{line:?}");
            }
            assert_eq!(other_heading(&line), heading(&line), "{line:?}");
        }
    }
    assert_eq!(spelled, 6);
}

/// A heading as the protocol writes it is the section the heading
/// grammar and the title lookup read, for every kind; its near misses
/// are left to them.
#[test]
fn spec_headings_read_as_the_general_reading() {
    use SectionKind as K;
    let kinds = [
        K::Problem,
        K::WhatTried,
        K::FilesTouched,
        K::Question,
        K::Changes,
        K::SelfValidation,
        K::Summary,
        K::Failure,
        K::PartialProgress,
        K::Recommendation,
        K::Progress,
        K::NextSteps,
    ];
    for kind in kinds {
        let title = kind.title();
        let line = format!("## {title}");
        let general = heading(&line).map(|(level, t)| (level, SectionKind::from_title(t)));
        assert_eq!(general, Some((2, kind)), "{line:?}");
        assert_eq!(
            SectionKind::spec_heading(line.as_bytes()),
            Some(kind),
            "{line:?}"
        );
        for miss in [
            format!("# {title}"),
            format!("### {title}"),
            format!("##  {title}"),
            format!("## {title}:"),
            format!("## {title} "),
            format!("## {}", title.to_lowercase()),
            format!("## {title}s"),
            format!(" ## {title}"),
        ] {
            assert_eq!(SectionKind::spec_heading(miss.as_bytes()), None, "{miss:?}");
        }
    }
}

/// Every label name, in any case, and nothing else.
#[test]
fn labels_look_up_in_any_case() {
    for (name, label) in [
        ("accepted bead", Label::AcceptedBead),
        ("title", Label::Title),
        ("starting implementation at", Label::StartingAt),
        ("started at", Label::StartingAt),
        ("bead", Label::Bead),
        ("bead id", Label::Bead),
        ("step", Label::Step),
        ("status", Label::Status),
        ("context usage", Label::ContextUsage),
        ("context", Label::ContextUsage),
        ("files touched", Label::FilesTouched),
        ("issue type", Label::IssueType),
        ("commit", Label::Commit),
        ("commit sha", Label::Commit),
        ("files", Label::Files),
        ("files changed", Label::Files),
        ("tests", Label::Tests),
        ("lint", Label::Lint),
        ("build", Label::Build),
        ("type", Label::Type),
        ("failure type", Label::Type),
        ("reason", Label::Reason),
        ("internal attempts", Label::InternalAttempts),
        ("description", Label::Description),
        ("issue", Label::Issue),
        ("resume", Label::Resume),
        ("checkpoint", Label::Checkpoint),
        ("orchestrator", Label::Orchestrator),
        ("session", Label::Session),
    ] {
        assert_eq!(Label::lookup(name), Some(label), "{name}");
        assert_eq!(Label::lookup(&name.to_uppercase()), Some(label), "{name}");
        let mut title = name.to_string();
        title[..1].make_ascii_uppercase();
        assert_eq!(Label::lookup(&title), Some(label), "{name}");
    }
    for other in ["", "bead ", "beads", "Stat", "contexts", "Größe", "summary"] {
        assert_eq!(Label::lookup(other), None, "{other}");
    }
}

/// [`Label::lookup`] as first written: a case-insensitive compare
/// with each name in turn.
fn lookup_by_compare(label: &str) -> Option<Label> {
    use Label::*;
    [
        ("bead", Bead),
        ("bead id", Bead),
        ("step", Step),
        ("type", Type),
        ("failure type", Type),
        ("lint", Lint),
        ("title", Title),
        ("files", Files),
        ("files changed", Files),
        ("tests", Tests),
        ("build", Build),
        ("issue", Issue),
        ("status", Status),
        ("commit", Commit),
        ("commit sha", Commit),
        ("reason", Reason),
        ("resume", Resume),
        ("context", ContextUsage),
        ("context usage", ContextUsage),
        ("session", Session),
        ("started at", StartingAt),
        ("starting implementation at", StartingAt),
        ("issue type", IssueType),
        ("checkpoint", Checkpoint),
        ("description", Description),
        ("orchestrator", Orchestrator),
        ("accepted bead", AcceptedBead),
        ("files touched", FilesTouched),
        ("internal attempts", InternalAttempts),
        ("current step", Step),
        ("current status", Status),
        ("context window", ContextUsage),
    ]
    .into_iter()
    .find(|(n, _)| n.eq_ignore_ascii_case(label))
    .map(|(_, l)| l)
}

proptest::proptest! {
    /// The word compare finds exactly the names a case-insensitive
    /// compare finds, whatever the bytes (near misses: a name with
    /// one byte changed to any other).
    #[test]
    fn labels_look_up_as_a_compare_would(
        s in crate::words::spellings(&[
            "bead", "bead id", "step", "type", "failure type", "lint", "title", "files",
            "files changed", "tests", "build", "issue", "status", "commit", "commit sha",
            "reason", "resume", "context", "context usage", "session", "started at",
            "starting implementation at", "issue type", "checkpoint", "description",
            "orchestrator", "accepted bead", "files touched", "internal attempts",
            "current step", "current status", "context window",
        ], 30),
    ) {
        for t in s.all() {
            proptest::prop_assert_eq!(Label::lookup(t), lookup_by_compare(t));
        }
    }

    /// A line `is_inert_item` skips is one no rule reads: no fence,
    /// heading, plain field or decoration.
    #[test]
    fn inert_items_are_read_by_no_rule(
        line in "[ ]{0,4}[-+*]?[ \t]{0,2}(\\PC|[*_#`~\\[0-9:. ]){0,12}(:| )?(\\PC){0,6}"
    ) {
        if is_inert_line(line.as_bytes(), &mut ProseAhead::new(&line)) {
            proptest::prop_assert!(!is_fence(&line));
            proptest::prop_assert_eq!(heading(&line), None);
            proptest::prop_assert_eq!(field_line(&line), None);
            proptest::prop_assert!(matches!(decorated_line(&line), Decorated::Neither));
        }
        if is_inert_item(line.as_bytes()) {
            proptest::prop_assert!(!is_fence(&line));
            proptest::prop_assert_eq!(heading(&line), None);
            proptest::prop_assert_eq!(field_line(&line), None);
            proptest::prop_assert!(matches!(decorated_line(&line), Decorated::Neither));
        }
    }
}

proptest::proptest! {
    /// Long prose the index passes over is read by no rule.
    #[test]
    fn passed_over_prose_is_read_by_no_rule(
        line in "[A-Za-zé][a-zA-Z0-9 ,.()é*_#`\\[\\]-]{40,70}(:)?[a-z :]{0,20}"
    ) {
        if is_inert_line(line.as_bytes(), &mut ProseAhead::new(&line)) {
            proptest::prop_assert_eq!(heading(&line), None);
            proptest::prop_assert_eq!(field_line(&line), None);
            proptest::prop_assert!(matches!(decorated_line(&line), Decorated::Neither));
            proptest::prop_assert!(!is_fence(&line));
        }
    }
}

/// A label's first hit is found however many hits come before it:
/// past the 255th, where its place is not kept, it is searched for.
/// A label cell reads as a label where its emphasis is emphasis (as
/// `decor::emphasised_title` reads a title: the marks on both sides,
/// a colon inside or outside) or its code marks a code span. A mark
/// on one side only is no emphasis (markdown shows it as written):
/// `**Status` names no label, as `**Status` opening a line names
/// none to the decorated rules' emphasis.
#[test]
fn table_labels_read_emphasis_as_titles_do() {
    for (cell, label) in [
        ("Bead", Some("Bead")),
        ("Bead:", Some("Bead")),
        ("Context usage :", Some("Context usage")),
        ("**Status:**", Some("Status")),
        ("**Status**:", Some("Status")),
        ("*Bead*:", Some("Bead")),
        ("__Step__", Some("Step")),
        ("***Lint***", Some("Lint")),
        ("`Commit`", Some("Commit")),
        ("`Commit`:", Some("Commit")),
        ("**", None),
        ("**:**", None),
        ("**Status", None),
        ("Status**", None),
        ("*Bead_", None),
        ("`Commit", None),
    ] {
        // What the table asks: the label the cell names.
        assert_eq!(
            table_label(cell).and_then(Label::lookup),
            label.and_then(Label::lookup),
            "{cell:?}"
        );
    }
}

#[test]
fn first_hits_are_found_past_the_kept_places() {
    let mut doc = String::from("Subject: [ol-1] PROGRESS\nBody:\nStatus: early\n");
    for n in 0..300 {
        doc.push_str(&format!("## Part {n}\nStep: {n}\nStatus: s{n}\n"));
    }
    doc.push_str("Context usage: 45%\nBead: ol-1\nFiles touched: a.rs\n");
    let m = &crate::parse(&doc, &crate::ParseOptions::default()).unwrap()[0];
    assert_eq!(m.parsed.status.as_deref(), Some("early"));
    assert_eq!(m.parsed.step.as_deref(), Some("0"));
    assert_eq!(m.parsed.context_usage, Some(45));
    assert_eq!(m.parsed.bead_id.as_deref(), Some("ol-1"));
    assert_eq!(m.parsed.files_touched, Some(vec!["a.rs".into()]));
}

#[test]
fn log_lines_are_inert_and_fields_are_not() {
    assert!(is_inert_item(b"- 10:32:01 run 1: ok, 42 tests"));
    assert!(is_inert_item(b"  + 3 files: a, b"));
    assert!(is_inert_item(b"- `src/a.rs` the parser"));
    assert!(is_inert_item(b"- `cargo test` passes"));
    for read in [
        "- Status: ok",
        "- **Status:** ok",
        "- [x] Tests: PASS",
        "- ✅ Tests: PASS",
        "* *Problem*",
        "1. Step: x",
        "-10:32 not an item",
        "- `Files`: a.rs",
        "- `Status:` ok",
    ] {
        assert!(!is_inert_item(read.as_bytes()), "{read}");
    }
}

#[test]
fn worded_titles_name_their_sections() {
    use SectionKind as K;
    for (title, kind) in [
        ("Problem Statement", Some(K::Problem)),
        ("problem description:", Some(K::Problem)),
        ("🧩 Failure Details", Some(K::Failure)),
        ("Changes Made", Some(K::Changes)),
        ("Summary of Changes", Some(K::Summary)),
        ("Questions for Review", Some(K::Question)),
        ("My Question", Some(K::Question)),
        ("Our Recommendation", Some(K::Recommendation)),
        ("Recommendations", Some(K::Recommendation)),
        ("Final Recommendations", Some(K::Recommendation)),
        ("Attempts", Some(K::WhatTried)),
        ("Attempts So Far", Some(K::WhatTried)),
        ("What I Have Tried", Some(K::WhatTried)),
        ("Approaches tried", Some(K::WhatTried)),
        ("Next Steps", Some(K::NextSteps)),
        ("Next steps for you", Some(K::NextSteps)),
        ("2. Problem Statement", Some(K::Problem)),
        // A qualified word after any other word, the progress words of a
        // PROGRESS's title, five words or more, and words alone: no section.
        ("Answer to Your Question", None),
        ("Root Cause Summary", None),
        ("Progress Update", None),
        ("Current Progress", None),
        ("Problem with the pool and the runtime", None),
        ("Next steps for my successor", None),
        ("Notes", None),
        ("", None),
        ("   ", None),
    ] {
        assert_eq!(SectionKind::from_decorated_title(title), kind, "{title}");
    }
}
