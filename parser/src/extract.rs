//! Per-type field extraction over an indexed [`Body`], and the per-type
//! rules for which fields the protocol requires.

use std::borrow::Cow;

use crate::body::{Body, Hit, Label, SectionKind};
use crate::diag::{Code, Diags};
use crate::model::{MessageType, Note, Parsed};
use crate::trim::{trim, trim_ticks};
use crate::values::{
    count, enum_known, enum_normalised, is_template, parse_timestamp, pass_fail, percent, yes_no,
    ValueError,
};

pub(crate) const ISSUE_TYPES: &[&str] = &["STUCK", "SPEC_UNCLEAR", "BLOCKED", "TECHNICAL"];
pub(crate) const FAILURE_TYPES: &[&str] = &[
    "TESTS_FAIL",
    "BUILD_FAIL",
    "SPEC_IMPOSSIBLE",
    "CONTEXT_HIGH",
    "ERROR",
];
pub(crate) const CHECKPOINT_REASONS: &[&str] = &["CONTEXT_HIGH", "MANUAL", "TIMEOUT"];
pub(crate) const SPAWN_STATUSES: &[&str] = &["spawned", "failed"];

/// An enum field's allowed values as its note on a value outside them
/// lists them (`allowed.join(", ")`, a test holds each alike): a constant
/// piece of the note, where the note was a `format!` of a joined list
/// (two strings made and freed, ~400 instructions a value; the agents
/// write a sentence for a checkpoint's reason).
#[derive(Clone, Copy)]
struct Allowed {
    values: &'static [&'static str],
    listed: &'static str,
    /// Every value is in small letters (`spawned`): a value outside them
    /// is kept lowered, not upper-cased (a test holds it to the values).
    lower: bool,
}

const ISSUE_TYPES_LISTED: Allowed = Allowed {
    values: ISSUE_TYPES,
    lower: false,
    listed: "STUCK, SPEC_UNCLEAR, BLOCKED, TECHNICAL",
};
const FAILURE_TYPES_LISTED: Allowed = Allowed {
    values: FAILURE_TYPES,
    lower: false,
    listed: "TESTS_FAIL, BUILD_FAIL, SPEC_IMPOSSIBLE, CONTEXT_HIGH, ERROR",
};
const CHECKPOINT_REASONS_LISTED: Allowed = Allowed {
    values: CHECKPOINT_REASONS,
    lower: false,
    listed: "CONTEXT_HIGH, MANUAL, TIMEOUT",
};
const SPAWN_STATUSES_LISTED: Allowed = Allowed {
    values: SPAWN_STATUSES,
    lower: true,
    listed: "spawned, failed",
};

/// Fills `p` (all absent on entry) for a message of type `kind` from its
/// body. Filled in place: `Parsed` is large, and returning it was a copy.
/// `outer`: the bead the subject (or a body type line) names, so a body
/// without `Bead:` still identifies it and the field is not missing.
pub(crate) fn extract<'a>(
    kind: MessageType,
    body: &Body<'_, 'a>,
    outer: Option<&str>,
    d: &mut Diags<'_, 'a>,
    p: &mut Parsed<'a>,
) {
    let outer_bead = outer.is_some();
    let x = Extractor { body, kind, outer };
    match kind {
        MessageType::BeadAccepted => {
            p.bead_id = x
                .id(body.top(Label::AcceptedBead), d)
                .or_else(|| x.id(body.top(Label::Bead), d));
            p.title = x.value(body.top(Label::Title), d);
            if let Some(h) = body.top(Label::StartingAt) {
                if parse_timestamp(h.value).is_none() && !h.value.is_empty() {
                    d.at(
                        Code::BadTimestamp,
                        body.line(&h),
                        h.value,
                        format!("`{}` is not a timestamp", h.value),
                    );
                }
                p.started_at = x.value(Some(h), d);
            }
            x.require(d, p.bead_id.is_some() || outer_bead, "Accepted bead");
        }
        MessageType::Progress => {
            p.bead_id = x.id(body.top(Label::Bead), d);
            p.step = x.value(body.top(Label::Step), d);
            p.status = x.value(body.top(Label::Status), d);
            p.context_usage = x.percent(body.top(Label::ContextUsage), d);
            let files = body.top(Label::FilesTouched);
            let other = |_: &mut Diags<'_, 'a>| body.top(Label::Files);
            p.files_touched = files_or_other(body, files, other, "Files touched:", d);
            x.require(d, p.bead_id.is_some() || outer_bead, "Bead");
        }
        MessageType::HelpRequest => {
            p.bead_id = x.id(body.top(Label::Bead), d);
            p.issue_type = x.enum_value(
                body.top(Label::IssueType),
                ISSUE_TYPES_LISTED,
                "Issue Type `",
                d,
            );
            p.problem = body.section_text(SectionKind::Problem);
            p.what_tried = body.section_text(SectionKind::WhatTried);
            p.files_touched = body.section_list(SectionKind::FilesTouched, d).or_else(|| {
                let files = body.top(Label::FilesTouched);
                let other = |_: &mut Diags<'_, 'a>| body.top(Label::Files);
                files_or_other(body, files, other, "Files touched:", d)
            });
            p.question = body.section_text(SectionKind::Question);
            x.require(d, p.bead_id.is_some() || outer_bead, "Bead");
            x.require(d, p.issue_type.is_some(), "Issue Type");
            x.require(
                d,
                p.question.is_some() || p.problem.is_some(),
                "## Question",
            );
        }
        MessageType::HelpResponse => {
            p.bead_id = x.id(body.top(Label::Bead), d);
            p.guidance = guidance(body);
        }
        MessageType::OfferingReady | MessageType::Done => {
            p.bead_id = x.id(body.top(Label::Bead), d);
            p.status = x.value(body.top(Label::Status), d);
            p.commit_sha = x.id(body.within(SectionKind::Changes, Label::Commit, d), d);
            let ch = SectionKind::Changes;
            let files = body.within(ch, Label::Files, d);
            let other = |d: &mut Diags<'_, 'a>| body.within(ch, Label::FilesTouched, d);
            p.files = files_or_other(body, files, other, "Files:", d);
            let sv = SectionKind::SelfValidation;
            p.tests_pass = x.pass_fail(body.within(sv, Label::Tests, d), d);
            p.lint_pass = x.pass_fail(body.within(sv, Label::Lint, d), d);
            p.build_pass = x.pass_fail(body.within(sv, Label::Build, d), d);
            p.summary = body.section_text(SectionKind::Summary);
            x.require(d, p.bead_id.is_some() || outer_bead, "Bead");
        }
        MessageType::Failed => {
            p.bead_id = x.id(body.top(Label::Bead), d);
            p.status = x.value(body.top(Label::Status), d);
            let f = SectionKind::Failure;
            p.failure_type = x.enum_value(
                body.within(f, Label::Type, d),
                FAILURE_TYPES_LISTED,
                "Failure Type `",
                d,
            );
            p.reason = x.value(body.within(f, Label::Reason, d), d);
            p.internal_attempts = x.count(body.within(f, Label::InternalAttempts, d), d);
            let pp = SectionKind::PartialProgress;
            if body.has_section(pp) {
                p.partial_commit_sha = x.id(body.within(pp, Label::Commit, d), d);
                let files = body.within(pp, Label::Files, d);
                let other = |d: &mut Diags<'_, 'a>| body.within(pp, Label::FilesTouched, d);
                p.files = files_or_other(body, files, other, "Files:", d);
            }
            p.recommendation = body.section_text(SectionKind::Recommendation);
            x.require(d, p.bead_id.is_some() || outer_bead, "Bead");
            x.require(d, p.failure_type.is_some(), "Type");
            x.require(d, p.reason.is_some(), "Reason");
        }
        MessageType::Checkpoint => {
            p.bead_id = x.id(body.top(Label::Bead), d);
            p.checkpoint_reason = x.enum_value(
                body.top(Label::Reason),
                CHECKPOINT_REASONS_LISTED,
                "Reason `",
                d,
            );
            let pr = SectionKind::Progress;
            p.partial_commit_sha = x.id(body.within(pr, Label::Commit, d), d);
            p.progress = x.value(body.within(pr, Label::Description, d), d);
            if p.progress.is_none() {
                p.progress = progress_prose(body, d);
            }
            p.context_usage = x.percent(body.within(pr, Label::ContextUsage, d), d);
            p.next_steps = body.section_text(SectionKind::NextSteps);
            x.require(d, p.bead_id.is_some() || outer_bead, "Bead");
            x.require(d, p.checkpoint_reason.is_some(), "Reason");
        }
        MessageType::SpawnRequest => {
            p.issue_id = x
                .id(body.top(Label::Issue), d)
                .or_else(|| x.id(body.top(Label::Bead), d));
            p.resume = x.yes_no(body.top(Label::Resume), d);
            p.partial_commit_sha = x.id(body.top(Label::Checkpoint), d);
            p.orchestrator = x.value(body.top(Label::Orchestrator), d);
            x.require(d, p.issue_id.is_some(), "Issue");
        }
        MessageType::SpawnAck => {
            p.issue_id = x
                .id(body.top(Label::Issue), d)
                .or_else(|| x.id(body.top(Label::Bead), d));
            p.status = x.enum_value(
                body.top(Label::Status),
                SPAWN_STATUSES_LISTED,
                "Status `",
                d,
            );
            p.session = x.id(body.top(Label::Session), d);
            x.require(d, p.issue_id.is_some(), "Issue");
        }
        MessageType::Unknown => {
            // Unknown mail still often names its bead.
            p.bead_id = x.id(body.top(Label::Bead), d);
        }
    }
}

/// The files a message lists under the other kinds' label: `Files:` or
/// `Files changed:` in a PROGRESS or HELP_REQUEST, whose label is `Files
/// touched:`, and `Files touched:` in a DONE's changes or a FAILED's
/// partial progress, whose label is `Files:`. A person reads either as
/// the message's files; the note names the label it reads as.
#[cold]
#[inline(never)]
fn files_as<'a>(
    body: &Body<'_, 'a>,
    hit: Option<Hit<'a>>,
    reads_as: &'static str,
    d: &mut Diags<'_, 'a>,
) -> Option<Vec<Cow<'a, str>>> {
    let h = hit?;
    let files = body.field_list(h, d)?;
    let line = body.line(&h);
    // The note names no text of the line: a fenced JSON body's key and
    // its markdown form read alike (a test holds the two the same).
    d.normalised(
        line,
        crate::trim::trim_start(line.text),
        Note::join(&[
            "files listed under the other message kinds' label read as `",
            reads_as,
            "`",
        ]),
    );
    Some(files)
}

/// A message's files: the list under its own label's `hit`, else the one
/// under the other kinds' label (`other`, asked only then, [`files_as`]).
#[inline]
fn files_or_other<'a>(
    body: &Body<'_, 'a>,
    hit: Option<Hit<'a>>,
    other: impl FnOnce(&mut Diags<'_, 'a>) -> Option<Hit<'a>>,
    reads_as: &'static str,
    d: &mut Diags<'_, 'a>,
) -> Option<Vec<Cow<'a, str>>> {
    match hit {
        Some(h) => body.field_list(h, d),
        None => {
            let other = other(d);
            files_as(body, other, reads_as, d)
        }
    }
}

/// A checkpoint's progress written as the text of its `## Progress`
/// section rather than in a `Description:` field (`**Progress:** parser
/// done`, or `## Progress` with a sentence before its fields): that text,
/// as a person reads it. The prose after a heading is noted, and so
/// refused by strict mode (the protocol writes it as the field), which
/// before dropped it; a title with its text was noted where it was read.
fn progress_prose<'a>(body: &Body<'_, 'a>, d: &mut Diags<'_, 'a>) -> Option<Cow<'a, str>> {
    let (text, line) = body.section_prose(SectionKind::Progress)?;
    if let Some(line) = line {
        d.normalised(
            line,
            crate::trim::trim(line.text),
            "the text of `## Progress` before its fields read as its `Description:`",
        );
    }
    Some(text)
}

/// HELP_RESPONSE guidance: the body without a leading type line or `Bead:`
/// line, which some senders put first.
fn guidance<'a>(body: &Body<'_, 'a>) -> Option<Cow<'a, str>> {
    let mut lines = body.lines;
    while let Some((first, rest)) = lines.split_first() {
        let t = first.text.trim();
        let is_type_line = MessageType::from_token(t.trim_end_matches(':')).is_some();
        let is_bead_line = crate::grammar::field_line(first.text)
            .is_some_and(|f| f.label.eq_ignore_ascii_case("bead"));
        if t.is_empty() || is_type_line || is_bead_line {
            lines = rest;
        } else {
            break;
        }
    }
    let text = crate::body::whole_text(body.doc, lines);
    (!text.is_empty()).then_some(text)
}

/// An enum value with decorations or a note (`BLOCKED (waiting on keys)`,
/// `BUILD_FAIL ❌`, `` `SPEC_UNCLEAR` ``, `spawned ✅`): the allowed value
/// its first one or two words name, as the protocol spells it.
fn decorated_enum(v: &str, allowed: &[&'static str]) -> Option<&'static str> {
    // `A | B`, the spec's template copied unfilled, names no value.
    if is_template(v) {
        return None;
    }
    let v = crate::decor::strip(v);
    let mut split = v
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ',' | ';' | '-' | '—'))
        .filter(|w| !w.is_empty());
    let words: [Option<&str>; 2] = [split.next(), split.next()];
    let words: &[&str] = match words {
        [Some(a), Some(b)] => &[a, b],
        [Some(a), None] => &[a],
        _ => &[],
    };
    // The first `n` words, each stripped of decorations, joined by `_`:
    // compared in place, case aside, where they were joined into a string.
    let names = |a: &str, n: usize| {
        let mut rest = a.as_bytes();
        for (i, w) in words[..n].iter().enumerate() {
            if i > 0 {
                match rest.split_first() {
                    Some((b'_', r)) => rest = r,
                    _ => return false,
                }
            }
            let w = crate::decor::strip(w).as_bytes();
            match rest.split_at_checked(w.len()) {
                Some((head, r)) if head.eq_ignore_ascii_case(w) => rest = r,
                _ => return false,
            }
        }
        rest.is_empty()
    };
    (1..=words.len()).find_map(|n| allowed.iter().find(|a| names(a, n)).copied())
}

struct Extractor<'b, 'a> {
    body: &'b Body<'b, 'a>,
    kind: MessageType,
    outer: Option<&'b str>,
}

impl<'a> Extractor<'_, 'a> {
    /// A text value, trimmed, inline-code ticks dropped; emphasis around
    /// the whole of it (`**DONE**`) is read through. The usual value (no
    /// tick at either end, no emphasis mark first) is taken as the index
    /// trimmed it, inline: the call, most of it saving and restoring
    /// registers, was ~40 instructions a value.
    #[inline]
    fn value(&self, hit: Option<Hit<'a>>, d: &mut Diags<'_, 'a>) -> Option<Cow<'a, str>> {
        self.value_of::<false>(hit?, d)
    }

    /// [`Extractor::value`], and for an id (`ID`): a placeholder (`N/A`)
    /// is no value, and a value that opens with `[` goes to
    /// [`Extractor::linked_id`], by one test of the first byte against a
    /// set (a test of its own before it cost the plain message ~10
    /// instructions).
    #[inline(always)]
    fn value_of<const ID: bool>(&self, h: Hit<'a>, d: &mut Diags<'_, 'a>) -> Option<Cow<'a, str>> {
        // Marks, a quote and, for an id, a link: tested on the first
        // byte, as one set.
        let plain = |b: &u8| match ID {
            true => !matches!(b, b'`' | b'*' | b'_' | b'[' | b'"'),
            false => !matches!(b, b'`' | b'*' | b'_' | b'"'),
        };
        if ID && crate::values::is_placeholder(h.value) {
            return self.no_value(h, d);
        }
        match h.value.as_bytes() {
            [first, .., last] if plain(first) && *last != b'`' => Some(Cow::Borrowed(h.value)),
            [only] if plain(only) => Some(Cow::Borrowed(h.value)),
            [b'[', ..] if ID => self.linked_id(h, d),
            _ => self.marked_value(h, d),
        }
    }

    /// [`Extractor::value`] of a value with ticks or emphasis marks at an
    /// end, in quotes (`"Add the lexer"`), or an empty one.
    #[inline(never)]
    fn marked_value(&self, h: Hit<'a>, d: &mut Diags<'_, 'a>) -> Option<Cow<'a, str>> {
        // The index trimmed the value; trimmed again only if ticks came off.
        let v = match trim_ticks(h.value) {
            t if t.len() == h.value.len() => t,
            t => trim(t),
        };
        if let Some(inner) = crate::decor::unemphasise(v).or_else(|| crate::decor::unquote(v)) {
            let note = Note::join(&["value `", v, "` reads as `", inner, "`"]);
            self.normalised(&h, note, d);
            return Some(Cow::Borrowed(inner));
        }
        (!v.is_empty()).then_some(Cow::Borrowed(v))
    }

    /// An id (bead, commit, issue, session): [`Extractor::value`], and a
    /// note after the id is not part of it when the id is in backticks
    /// (`` `a1b2c3d` (feat: x) ``), is the subject's bead (`ol-1 (auth)`
    /// under `[ol-1]`) or is a commit's hash (`4e5f6a7 (parser done)`,
    /// `5a6b7c8 - feat: x`). Only then: a plain value is taken as
    /// written, whatever it holds (the renderer cannot escape one).
    ///
    /// One word (nearly every id) is [`Extractor::value`] inline, as
    /// `decor::id_before_note` finds no note without a blank; the call
    /// was about half of the usual id's cost. (Always: `#[inline]` left
    /// the fifteen callers a call, ~25 instructions an id.)
    #[inline(always)]
    fn id(&self, hit: Option<Hit<'a>>, d: &mut Diags<'_, 'a>) -> Option<Cow<'a, str>> {
        let h = hit?;
        if crate::find::blank(h.value.as_bytes()).is_none() {
            return self.value_of::<true>(h, d);
        }
        self.noted_id(h, d)
    }

    /// [`Extractor::id`] of a one-word value that opens with `[`: a
    /// markdown link (`[ol-61](https://tracker/ol-61)`, `` [`9f3c2e1`](…) ``)
    /// is its text, any other such value is taken as written.
    #[cold]
    #[inline(never)]
    fn linked_id(&self, h: Hit<'a>, d: &mut Diags<'_, 'a>) -> Option<Cow<'a, str>> {
        match crate::decor::link_text(h.value) {
            Some(id) => {
                let note = Note::join(&["link `", h.value, "` reads as the id `", id, "`"]);
                self.normalised(&h, note, d);
                Some(Cow::Borrowed(id))
            }
            None => self.value(Some(h), d),
        }
    }

    /// [`Extractor::id`] of a value of more than one word.
    #[inline(never)]
    fn noted_id(&self, h: Hit<'a>, d: &mut Diags<'_, 'a>) -> Option<Cow<'a, str>> {
        // Trimmed by the index.
        let v = h.value;
        // A link's text is the id, as a backticked id is (`[a1b2c3d](…)
        // (wip: lexer)`).
        let noted = crate::decor::id_before_note(v).and_then(|id| match v.as_bytes().first() {
            Some(b'[') => crate::decor::link_text(id),
            Some(b'`') => Some(id),
            _ => (self.outer == Some(id) || crate::values::is_commit_hash(id)).then_some(id),
        });
        if let Some(id) = noted {
            let note = Note::join(&["`", v, "` reads as the id `", id, "`"]);
            self.normalised(&h, note, d);
            return Some(Cow::Borrowed(id));
        }
        self.value(Some(h), d)
    }

    /// A field filled with a placeholder (`Checkpoint: N/A`, `Tests:
    /// none`): no value, noted.
    #[cold]
    #[inline(never)]
    fn no_value<T>(&self, h: Hit<'a>, d: &mut Diags<'_, 'a>) -> Option<T> {
        let note = Note::join(&["`", h.value, "` reads as no value"]);
        d.at(Code::NoValue, self.body.line(&h), h.value, note);
        None
    }

    fn normalised(&self, h: &Hit<'a>, note: impl Into<Note<'a>>, d: &mut Diags<'_, 'a>) {
        d.normalised(self.body.line(h), h.value, note);
    }

    /// `v` read through decorations, for a reader that refused it as
    /// written: the value without emphasis or code marks, else its first
    /// word without glyphs (`PASS ✅`, `**45%**`).
    fn undecorated(v: &str) -> Option<&str> {
        let inner = crate::decor::strip(v);
        (inner != v && !inner.is_empty()).then_some(inner)
    }

    fn require(&self, d: &mut Diags<'_, 'a>, present: bool, field: &str) {
        if present {
            return;
        }
        let (line, col) = self.body.lines.first().map(|l| (l.no, 1)).unwrap_or((1, 1));
        d.push_body(
            Code::MissingField,
            line,
            col,
            format!("{} requires `{field}`", self.kind),
        );
    }

    /// A percentage. The usual value (`45%`) read inline by
    /// `values::plain_percent`; any other through [`Extractor::percent_in_full`],
    /// out of line: the call was ~60 instructions of the usual value's ~90.
    #[inline]
    fn percent(&self, hit: Option<Hit<'a>>, d: &mut Diags<'_, 'a>) -> Option<u8> {
        let h = hit?;
        match crate::values::plain_percent(h.value.as_bytes()) {
            Some(Ok(v)) => Some(v),
            _ => self.percent_in_full(h, d),
        }
    }

    #[inline(never)]
    fn percent_in_full(&self, h: Hit<'a>, d: &mut Diags<'_, 'a>) -> Option<u8> {
        if h.value.is_empty() {
            return None;
        }
        if let Some(v) = crate::values::fraction_of_one(h.value) {
            let note = format!("`{}` (a fraction of one) reads as {v}%", h.value);
            self.normalised(&h, note, d);
            return Some(v);
        }
        match percent(h.value) {
            Ok(v) => Some(v),
            Err(e) => {
                if let Some(v) = Self::undecorated(h.value).and_then(|u| percent(u).ok()) {
                    self.normalised(&h, format!("`{}` reads as {v}%", h.value), d);
                    return Some(v);
                }
                if let Some(v) = crate::values::share_of(h.value) {
                    let note = format!("`{}` (a share of the window) reads as {v}%", h.value);
                    self.normalised(&h, note, d);
                    return Some(v);
                }
                self.number_error(&h, e, "0 to 100", d);
                None
            }
        }
    }

    fn count(&self, hit: Option<Hit<'a>>, d: &mut Diags<'_, 'a>) -> Option<u32> {
        let h = hit.filter(|h| !h.value.is_empty())?;
        match count(h.value) {
            Ok(v) => Some(v),
            Err(e) => {
                self.number_error(&h, e, "a whole number", d);
                None
            }
        }
    }

    fn number_error(&self, h: &Hit<'a>, e: ValueError, range: &str, d: &mut Diags<'_, 'a>) {
        let line = self.body.line(h);
        match e {
            ValueError::OutOfRange(v) => d.at(
                Code::OutOfRange,
                line,
                h.value,
                format!("{v} is out of range ({range})"),
            ),
            _ => d.at(
                Code::BadNumber,
                line,
                h.value,
                format!("`{}` is not a number", h.value),
            ),
        }
    }

    fn pass_fail(&self, hit: Option<Hit<'a>>, d: &mut Diags<'_, 'a>) -> Option<bool> {
        self.boolean(hit, pass_fail, crate::values::tally, ["PASS", "FAIL"], d)
    }

    fn yes_no(&self, hit: Option<Hit<'a>>, d: &mut Diags<'_, 'a>) -> Option<bool> {
        self.boolean(hit, yes_no, |_| None, ["true", "false"], d)
    }

    /// A two-valued field read by `read`; anything else is a bad-enum
    /// diagnostic and an absent value (tri-state: never a guessed `false`).
    fn boolean(
        &self,
        hit: Option<Hit<'a>>,
        read: fn(&str) -> Result<bool, ValueError>,
        // What lenient mode reads of a value `read` refuses, besides its
        // decorations (a PASS/FAIL written as a tally, `values::tally`).
        in_words: fn(&str) -> Option<bool>,
        // The two words as the diagnostic names them (true, false).
        words: [&'static str; 2],
        d: &mut Diags<'_, 'a>,
    ) -> Option<bool> {
        let h = hit.filter(|h| !h.value.is_empty())?;
        // A value that opens with a mark (`**PASS**`, `` `true` ``) is
        // refused as written by both readers (its first word opens with
        // the mark, and no word they know does): read through its
        // decorations at once, not read and refused first (~300
        // instructions a value).
        let marked = matches!(h.value.as_bytes().first(), Some(b'*' | b'_' | b'`'));
        match if marked {
            Err(ValueError::NotInEnum)
        } else {
            read(h.value)
        } {
            Ok(v) => Some(v),
            Err(_) => {
                if crate::values::is_placeholder(h.value) {
                    return self.no_value(h, d);
                }
                let undecorated = Self::undecorated(h.value).and_then(|u| read(u).ok());
                if let Some(v) = undecorated.or_else(|| in_words(h.value)) {
                    // In the field's own words: `PASS`, not `true`.
                    let read = if v { words[0] } else { words[1] };
                    self.normalised(&h, Note::join(&["`", h.value, "` reads as ", read]), d);
                    return Some(v);
                }
                let [yes, no] = words;
                let hint = crate::near::did_you_mean(crate::near::nearest(trim(h.value), &words));
                d.at(
                    Code::BadEnum,
                    self.body.line(&h),
                    h.value,
                    format!("`{}` is neither {yes} nor {no}{hint}", h.value),
                );
                None
            }
        }
    }

    /// An enum field: kept (normalised) even when outside the enum, so no
    /// text is lost; the diagnostic says it is not one of the values.
    fn enum_value(
        &self,
        hit: Option<Hit<'a>>,
        enumerated: Allowed,
        // The field's name and the backtick that opens the value after it
        // (`Issue Type ``), one piece of the notes (see `Note::MAX_PIECES`).
        named: &'static str,
        d: &mut Diags<'_, 'a>,
    ) -> Option<Cow<'a, str>> {
        let allowed = enumerated.values;
        let h = hit.filter(|h| !h.value.is_empty())?;
        let is_lower_enum = enumerated.lower;
        let t = trim(h.value);
        // An allowed value returns here. Else `lowered` is what a
        // lower-case enum keeps of a bad value; an upper-case enum's
        // normalised word is made below, only for a bad value.
        let lowered = if is_lower_enum {
            // Lowered only when there is a capital to lower.
            let word = match t.bytes().any(|b| b.is_ascii_uppercase()) {
                true => Cow::Owned(t.to_ascii_lowercase()),
                false => Cow::Borrowed(t),
            };
            if allowed.contains(&word.as_ref()) {
                return Some(word);
            }
            Some(word)
        } else {
            if let Some(word) = enum_known(t, allowed) {
                return Some(word);
            }
            None
        };
        if let Some(word) = decorated_enum(h.value, allowed) {
            let note = Note::join(&[named, h.value, "` reads as `", word, "`"]);
            self.normalised(&h, note, d);
            return Some(Cow::Borrowed(word));
        }
        let word = lowered.unwrap_or_else(|| Cow::Owned(enum_normalised(t)));
        // `near::did_you_mean`'s words, as pieces of the note: a bad value
        // is noted without a string of its own (see `Note`).
        let note = match crate::near::nearest(t, allowed) {
            Some(near) => Note::join(&[
                named,
                h.value,
                "` is not one of ",
                enumerated.listed,
                " (did you mean `",
                near,
                "`?)",
            ]),
            None => Note::join(&[named, h.value, "` is not one of ", enumerated.listed]),
        };
        d.at(Code::BadEnum, self.body.line(&h), h.value, note);
        Some(word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`decorated_enum`] as first written: the words joined into strings.
    fn decorated_enum_by_join(v: &str, allowed: &[&'static str]) -> Option<&'static str> {
        if v.contains('|') {
            return None;
        }
        let v = crate::decor::strip(v);
        let words: Vec<&str> = v
            .split(|c: char| c.is_whitespace() || matches!(c, '(' | ',' | ';' | '-' | '—'))
            .filter(|w| !w.is_empty())
            .take(2)
            .collect();
        (1..=words.len()).find_map(|n| {
            let name = words[..n]
                .iter()
                .map(|w| crate::decor::strip(w).to_ascii_uppercase())
                .collect::<Vec<_>>()
                .join("_");
            allowed
                .iter()
                .find(|a| a.eq_ignore_ascii_case(&name))
                .copied()
        })
    }

    #[test]
    fn allowed_values_are_listed_as_joined() {
        for a in [
            ISSUE_TYPES_LISTED,
            FAILURE_TYPES_LISTED,
            CHECKPOINT_REASONS_LISTED,
            SPAWN_STATUSES_LISTED,
        ] {
            assert_eq!(a.listed, a.values.join(", "));
            let lower = a
                .values
                .iter()
                .all(|v| v.bytes().all(|b| !b.is_ascii_uppercase()));
            assert_eq!(a.lower, lower);
        }
    }

    proptest::proptest! {
        /// Enum values read through decorations as they were when each
        /// candidate was joined into a string.
        #[test]
        fn decorated_enums_read_as_joined(
            v in "(spec|SPEC|unclear|Unclear|context|high|_|-| |\\(|,|✅|\\*\\*|`|é|ß|x|\\|){0,8}"
        ) {
            for allowed in [ISSUE_TYPES, FAILURE_TYPES, CHECKPOINT_REASONS, SPAWN_STATUSES] {
                proptest::prop_assert_eq!(decorated_enum(&v, allowed), decorated_enum_by_join(&v, allowed));
            }
        }
    }
}
