//! One pass over a message body: its `##` sections, the first occurrence of
//! every known field label in each section, and fenced code to leave alone.
//!
//! The extractors in `extract.rs` then look values up in this index instead
//! of rescanning the text, so the cost of a body is one pass plus a lookup
//! per field, whatever the input looks like.
//!
//! In that pass each line's first byte is read once and chooses the tests
//! that can still apply (a letter: long prose or a field; a bullet: a log
//! item, an inert item or a field; `#`: a heading; anything else: fence,
//! item, heading, field in turn), and the shapes the protocol and agents
//! write most (`Bead:`, `- Tests:`, `## Summary`, `**Bead**:`) are read by
//! a compare or one pass over their bytes before the general grammar.

use std::borrow::Cow;

use smallvec::SmallVec;

use crate::diag::{Code, Diags};
use crate::grammar::{
    field_line, heading, is_fence, is_inert_item, letter_field_line, list_item, spelled_field_at,
    spelled_field_from, FieldLine, ProseAhead,
};
use crate::lines::{join_lines, physical, Line};
use crate::model::Note;
use crate::trim::trim;
use crate::values::inline_list;
use crate::words::{name, Name};

/// Field labels the protocol uses. Matching is case-insensitive and
/// anchored at the line start (after an optional bullet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Label {
    AcceptedBead,
    Title,
    StartingAt,
    Bead,
    Step,
    Status,
    ContextUsage,
    FilesTouched,
    IssueType,
    Commit,
    Files,
    Tests,
    Lint,
    Build,
    Type,
    Reason,
    InternalAttempts,
    Description,
    Issue,
    Resume,
    Checkpoint,
    Orchestrator,
    Session,
}

impl Label {
    /// Case-insensitive lookup, since this runs for every field line of
    /// every message: the label's bytes are read as a few overlapping
    /// words ([`crate::words`]), OR-ed with `0x20` at the name's letters
    /// (which folds exactly the ASCII capitals onto their small letters)
    /// and compared whole with each name of the label's length, one or a
    /// few. (A case-insensitive compare byte by byte cost about 130
    /// instructions a line; this costs about 30.)
    #[inline]
    pub(crate) fn lookup(label: &str) -> Option<Label> {
        let l = label.as_bytes();
        let names: &[Name<Label>] = match l.len() {
            4 => &NAMES_4,
            5 => &NAMES_5,
            6 => &NAMES_6,
            7 => &NAMES_7,
            10 => &NAMES_10,
            11 => &NAMES_11,
            12 => &NAMES_12,
            13 => &NAMES_13,
            17 => &NAMES_17,
            26 => &NAMES_26,
            _ => return None,
        };
        crate::words::find(names, l)
    }

    /// Whether `line` opens with a label as the protocol spells it (see
    /// [`Label::spec_spelling`]): a line in which the field grammar reads
    /// a known label (a test holds the two alike).
    #[inline]
    pub(crate) fn opens_spelled(line: &str) -> bool {
        Self::spec_spelling(line.as_bytes()).is_some()
    }

    /// The label a line opens with when it is written as the protocol
    /// spells it, colon and all (`Bead:`, `Context usage:`), and where the
    /// colon is: decided by the first byte and a compare of a few bytes,
    /// where the colon search and [`Label::lookup`] cost ~45 instructions
    /// a field line. The general reading finds the same (a line that opens
    /// with a letter has its label end at its first colon, and no name
    /// holds one or ends in a space), so the rest of the line is cut as it
    /// cuts it (`grammar::field_at`); a test holds the two alike.
    #[inline(always)]
    fn spec_spelling(b: &[u8]) -> Option<(Label, usize)> {
        // Each name a constant (`spell::spelling!` writes the match and
        // the colon's offset), in the order the agents corpus has them
        // most: a compare of a few bytes in registers.
        crate::spell::spelling!(b;
            b'B' b"Bead:" => Label::Bead,
            b'B' b"Build:" => Label::Build,
            b'S' b"Status:" => Label::Status,
            b'S' b"Step:" => Label::Step,
            b'S' b"Session:" => Label::Session,
            b'C' b"Context usage:" => Label::ContextUsage,
            b'C' b"Commit:" => Label::Commit,
            b'F' b"Files touched:" => Label::FilesTouched,
            b'F' b"Files:" => Label::Files,
            b'R' b"Reason:" => Label::Reason,
            b'I' b"Issue Type:" => Label::IssueType,
            b'I' b"Issue:" => Label::Issue,
            b'T' b"Type:" => Label::Type,
            b'T' b"Tests:" => Label::Tests,
            b'L' b"Lint:" => Label::Lint,
        )
    }

    /// A bullet, one space and a label as the protocol spells it
    /// (`- Tests: PASS`, ~1 line a message of the agents corpus), read
    /// as the field grammar reads it (its prelude ends at the label's
    /// first letter, and the label at its colon; a test holds the two
    /// alike) without the label's byte scan and lookup: ~60
    /// instructions a line.
    #[inline(always)]
    fn spelled_after_bullet(line: &str, plain_end: bool) -> Option<(FieldLine<'_>, Option<Label>)> {
        let [b'-' | b'+' | b'*', b' ', rest @ ..] = line.as_bytes() else {
            return None;
        };
        let (label, colon) = Label::spec_spelling(rest)?;
        Some((
            spelled_field_from(line, 2, colon + 2, plain_end)?,
            Some(label),
        ))
    }

    /// A label as the protocol spells it in bold, its colon inside the
    /// emphasis, alone or after a bullet and one space (`**Bead:** ol-7`,
    /// `- **Status:** ok`: ~1 line a message of the agents corpus), read
    /// as `decor::bold_label_read` reads it (its label is the run of label
    /// bytes after the `**`, which ends at a spelled name's colon; a test
    /// holds the two alike) without the run's scan, the label's lookup and
    /// the value's trim calls: ~90 instructions a line.
    #[inline(always)]
    fn spelled_in_bold(line: &str, plain_end: bool) -> Option<(FieldLine<'_>, Label)> {
        let b = line.as_bytes();
        let at = match b {
            [b'-' | b'*' | b'+', b' ', b'*', b'*', ..] => 4,
            [b'*', b'*', ..] => 2,
            _ => return None,
        };
        let (label, colon) = Label::spec_spelling(&b[at..])?;
        let colon = at + colon;
        if b.get(colon + 1..colon + 3)? != b"**" {
            return None;
        }
        let mut from = colon + 3;
        while matches!(b.get(from), Some(b' ' | b'\t')) {
            from += 1;
        }
        // Every cut is after an ASCII byte: on a character boundary.
        let value = line.get(from..)?;
        // A line that ends plainly ends in no blank (see `Line::plain_end`).
        let value = if plain_end {
            value
        } else {
            crate::grammar::trim_end_blanks(value)
        };
        Some((
            FieldLine {
                label: line.get(at..colon)?,
                value,
            },
            label,
        ))
    }

    fn bit(self) -> u32 {
        1u32 << (self as u8)
    }
}

const NAMES_4: [Name<Label>; 4] = [
    name(b"bead", Label::Bead),
    name(b"step", Label::Step),
    name(b"type", Label::Type),
    name(b"lint", Label::Lint),
];
const NAMES_5: [Name<Label>; 5] = [
    name(b"title", Label::Title),
    name(b"files", Label::Files),
    name(b"tests", Label::Tests),
    name(b"build", Label::Build),
    name(b"issue", Label::Issue),
];
const NAMES_6: [Name<Label>; 4] = [
    name(b"status", Label::Status),
    name(b"commit", Label::Commit),
    name(b"reason", Label::Reason),
    name(b"resume", Label::Resume),
];
const NAMES_7: [Name<Label>; 3] = [
    name(b"bead id", Label::Bead),
    name(b"context", Label::ContextUsage),
    name(b"session", Label::Session),
];
const NAMES_10: [Name<Label>; 4] = [
    name(b"started at", Label::StartingAt),
    name(b"issue type", Label::IssueType),
    name(b"commit sha", Label::Commit),
    name(b"checkpoint", Label::Checkpoint),
];
const NAMES_11: [Name<Label>; 1] = [name(b"description", Label::Description)];
const NAMES_12: [Name<Label>; 2] = [
    name(b"failure type", Label::Type),
    name(b"orchestrator", Label::Orchestrator),
];
// A PROGRESS's two first (every message of a worker's turn carries them);
// each name before the match is a compare.
const NAMES_13: [Name<Label>; 4] = [
    name(b"context usage", Label::ContextUsage),
    name(b"files touched", Label::FilesTouched),
    name(b"accepted bead", Label::AcceptedBead),
    name(b"files changed", Label::Files),
];
const NAMES_17: [Name<Label>; 1] = [name(b"internal attempts", Label::InternalAttempts)];
const NAMES_26: [Name<Label>; 1] = [name(b"starting implementation at", Label::StartingAt)];

/// `## Section` kinds the protocol names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SectionKind {
    /// Text before the first heading.
    Preamble,
    Problem,
    WhatTried,
    FilesTouched,
    Question,
    Changes,
    SelfValidation,
    Summary,
    Failure,
    PartialProgress,
    Recommendation,
    Progress,
    NextSteps,
    Other,
}

impl SectionKind {
    pub(crate) fn from_title(title: &str) -> SectionKind {
        use crate::words::find;
        // An emoji first (`🧩 Problem`, the plain reading of a decorated
        // title) survives the trim, and no title opens with one: decided
        // without the trim's decoding and the lookup.
        if crate::glyph::opens_with_emoji(title) {
            return SectionKind::Other;
        }
        use SectionKind as K;
        // Compared as words by length (see `words`): comparing each title
        // in turn cost up to sixteen compares a heading.
        const SEVEN: [Name<K>; 4] = [
            name(b"problem", K::Problem),
            name(b"changes", K::Changes),
            name(b"summary", K::Summary),
            name(b"failure", K::Failure),
        ];
        const EIGHT: [Name<K>; 2] = [
            name(b"question", K::Question),
            name(b"progress", K::Progress),
        ];
        const TEN: [Name<K>; 2] = [
            name(b"validation", K::SelfValidation),
            name(b"next steps", K::NextSteps),
        ];
        const TWELVE: [Name<K>; 1] = [name(b"what i tried", K::WhatTried)];
        const THIRTEEN: [Name<K>; 1] = [name(b"files touched", K::FilesTouched)];
        const FOURTEEN: [Name<K>; 2] = [
            name(b"what was tried", K::WhatTried),
            name(b"recommendation", K::Recommendation),
        ];
        const FIFTEEN: [Name<K>; 3] = [
            name(b"what i've tried", K::WhatTried),
            name(b"self-validation", K::SelfValidation),
            name(b"self validation", K::SelfValidation),
        ];
        const SIXTEEN: [Name<K>; 1] = [name(b"partial progress", K::PartialProgress)];
        const TWENTY_FOUR: [Name<K>; 1] = [name(b"next steps for successor", K::NextSteps)];
        // Colons cut on bytes: `trim_end_matches` went through the
        // generic `char` pattern for every heading.
        let colons = title.bytes().rev().take_while(|&b| b == b':').count();
        let t = crate::trim::trim(&title[..title.len() - colons]);
        let names: &[Name<K>] = match t.len() {
            7 => &SEVEN,
            8 => &EIGHT,
            10 => &TEN,
            12 => &TWELVE,
            13 => &THIRTEEN,
            14 => &FOURTEEN,
            15 => &FIFTEEN,
            16 => &SIXTEEN,
            24 => &TWENTY_FOUR,
            _ => return K::Other,
        };
        find(names, t.as_bytes()).unwrap_or(K::Other)
    }

    /// A section's heading line exactly as the protocol writes it
    /// (`## Changes`, [`SectionKind::title`]): its kind, as the heading
    /// grammar and [`SectionKind::from_title`] read it (level 2, a known
    /// title), decided by the title's first byte and one compare of a
    /// constant, without the grammar, the trims and the lookup (~120
    /// instructions a heading; a test holds the two alike). `None` for any
    /// other line, which the general reading reads. Out of line: inlined,
    /// the body index's code cost the plain message, which has no heading,
    /// ~5 instructions (the call costs a heading ~5).
    #[inline(never)]
    fn spec_heading(b: &[u8]) -> Option<SectionKind> {
        use SectionKind as K;
        let [b'#', b'#', b' ', title @ ..] = b else {
            return None;
        };
        // In the order the agents corpus has them most.
        Some(match title.first()? {
            b'S' if title == b"Summary" => K::Summary,
            b'S' if title == b"Self-Validation" => K::SelfValidation,
            b'C' if title == b"Changes" => K::Changes,
            b'Q' if title == b"Question" => K::Question,
            b'P' if title == b"Problem" => K::Problem,
            b'P' if title == b"Progress" => K::Progress,
            b'P' if title == b"Partial Progress" => K::PartialProgress,
            b'F' if title == b"Failure" => K::Failure,
            b'F' if title == b"Files Touched" => K::FilesTouched,
            b'N' if title == b"Next Steps for Successor" => K::NextSteps,
            b'R' if title == b"Recommendation" => K::Recommendation,
            b'W' if title == b"What I Tried" => K::WhatTried,
            _ => return None,
        })
    }

    /// The heading the protocol writes for this kind.
    fn title(self) -> &'static str {
        match self {
            SectionKind::Preamble | SectionKind::Other => "",
            SectionKind::Problem => "Problem",
            SectionKind::WhatTried => "What I Tried",
            SectionKind::FilesTouched => "Files Touched",
            SectionKind::Question => "Question",
            SectionKind::Changes => "Changes",
            SectionKind::SelfValidation => "Self-Validation",
            SectionKind::Summary => "Summary",
            SectionKind::Failure => "Failure",
            SectionKind::PartialProgress => "Partial Progress",
            SectionKind::Recommendation => "Recommendation",
            SectionKind::Progress => "Progress",
            SectionKind::NextSteps => "Next Steps for Successor",
        }
    }

    /// The kind's name in a field-outside-its-section note (its `Debug`
    /// form, as that note was first written with `format!`).
    fn name(self) -> &'static str {
        match self {
            SectionKind::Preamble => "Preamble",
            SectionKind::Problem => "Problem",
            SectionKind::WhatTried => "WhatTried",
            SectionKind::FilesTouched => "FilesTouched",
            SectionKind::Question => "Question",
            SectionKind::Changes => "Changes",
            SectionKind::SelfValidation => "SelfValidation",
            SectionKind::Summary => "Summary",
            SectionKind::Failure => "Failure",
            SectionKind::PartialProgress => "PartialProgress",
            SectionKind::Recommendation => "Recommendation",
            SectionKind::Progress => "Progress",
            SectionKind::NextSteps => "NextSteps",
            SectionKind::Other => "Other",
        }
    }

    /// A decorated title (`🧩 Problem`, `**Summary**`) read through: the
    /// kind it names, `None` for none.
    fn from_decorated_title(title: &str) -> Option<SectionKind> {
        let t = crate::decor::strip(title);
        let t = t.strip_suffix(':').unwrap_or(t);
        match SectionKind::from_title(crate::decor::strip(t)) {
            SectionKind::Other => None,
            k => Some(k),
        }
    }
}

/// Ends the current section (or the preamble) at line `i` and opens a
/// `kind` section from the next line to the end.
fn open_section(
    headed: &mut Headed,
    preamble: &mut Section,
    kind: SectionKind,
    level: u8,
    i: usize,
    lines: usize,
) {
    headed.last_mut().unwrap_or(preamble).end = i;
    headed.push(Section {
        kind,
        level,
        start: i + 1,
        end: lines,
        seen: 0,
    });
}

/// The `info` for a decorated line (`**Problem:**`, `Problem:`) read as
/// the heading `## Problem`.
fn alone_as_heading<'a>(diags: &mut Diags<'_, 'a>, line: &Line<'a>, kind: SectionKind) {
    diags.normalised(
        line,
        crate::trim::trim_start(line.text),
        Note::join(&[
            "`",
            trim(line.text),
            "` alone on its line reads as the heading `## ",
            kind.title(),
            "`",
        ]),
    );
}

/// The `info` for a decorated heading (`### Problem`, `**Problem**`) read
/// as `## Problem`. Out of line: the plain message's body loop, which
/// never makes one, was ~20 instructions dearer with it inline.
#[cold]
#[inline(never)]
fn note_heading<'a>(diags: &mut Diags<'_, 'a>, line: &Line<'a>, kind: SectionKind) {
    let (kept, cut) = crate::decor::shorten(trim(line.text));
    diags.normalised(
        line,
        crate::trim::trim_start(line.text),
        Note::join(&[
            "heading `",
            kept,
            crate::decor::cut_then!(cut, "` reads as `## "),
            kind.title(),
            "`",
        ]),
    );
}

/// The headed sections of a body: on the stack for a message's few (an
/// OFFERING_READY has three or four), where each message with a heading
/// allocated the list.
type Headed = SmallVec<[Section; 4]>;

#[derive(Debug)]
pub(crate) struct Section {
    pub kind: SectionKind,
    /// The level of the heading that opened it (`###` is 3; a line read
    /// as `## Problem` is 2; the preamble 0): a heading of this level or
    /// higher ends it, whatever it names.
    level: u8,
    /// Content lines: indices into `Body::lines`, `start..end`.
    pub start: usize,
    pub end: usize,
    seen: u32,
}

/// The first `Label: value` of one label in one section.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hit<'a> {
    pub label: Label,
    pub section: usize,
    /// Index into `Body::lines`.
    pub line: usize,
    /// The value, trimmed ([`trim`]): its readers rely on it.
    pub value: &'a str,
}

/// A list-valued field's items.
pub(crate) type Items<'a> = SmallVec<[&'a str; 4]>;

/// A body's fields given as values rather than read from its lines: a
/// simple fenced JSON object's (see `json_body`), read straight into the
/// index ([`Body::read_json`]), borrowed from the document.
#[derive(Debug, Default)]
pub(crate) struct Direct<'a> {
    /// Each labelled field: its label, its value as the field's text,
    /// and where the value is written.
    pub labels: SmallVec<[(Label, &'a str, &'a str); 8]>,
    /// The items of list-valued fields (`Files`, `Files touched`).
    pub lists: SmallVec<[(Label, Items<'a>); 2]>,
    /// Each section: its kind and text (`None`: present, empty).
    pub sections: SmallVec<[(SectionKind, Option<Cow<'a, str>>); 4]>,
}

/// The indexed body.
pub(crate) struct Body<'l, 'a> {
    pub doc: &'a str,
    pub lines: &'l [Line<'a>],
    /// Section 0: the text before the first heading. Kept apart from the
    /// headed sections so that a body without headings allocates no list.
    preamble: Section,
    /// Sections 1.. (`## Heading` onwards), at `headed[n - 1]`.
    headed: Headed,
    /// On the stack for a typical message's fields: allocating and
    /// freeing the list was a tenth of a small message's index.
    pub hits: SmallVec<[Hit<'a>; 8]>,
    /// For each label, its first hit's index in `hits` plus one (0: none,
    /// or past the 255th hit, where it is searched for): what `top` asks
    /// for, five times or more a message, answered without a search.
    first: [u8; LABELS],
    /// The fields of a fenced JSON object (see `json_body`): JSON has no
    /// sections, so no field of it is outside one.
    pub sectionless: bool,
    /// A fenced JSON object read directly (see [`Body::read_json`]): its
    /// lists and sections, which are not lines.
    direct: Option<&'l Direct<'a>>,
    /// The markdown table the last `|` line read was in (see
    /// [`Body::table_line`]): kept here, not in [`Body::read`]'s frame,
    /// whose loop was dearer for plain mail with it there.
    /// Boxed: one word to set up for the messages with no table.
    table: Option<Box<Table<'a>>>,
}

/// How many labels there are (`Label` as an index).
const LABELS: usize = Label::Session as usize + 1;

/// Beyond this many, duplicate-field diagnostics are summarised: adversarial
/// input must not turn into an unbounded diagnostic list.
const MAX_DUPLICATE_REPORTS: usize = 20;

impl<'l, 'a> Body<'l, 'a> {
    /// An index of `lines` with nothing in it yet: [`Body::read`] fills
    /// it. (Built by the caller and filled in place: returned filled, the
    /// index, its hits on the stack, was copied whole, ~80 instructions a
    /// message.)
    pub(crate) fn new(doc: &'a str, lines: &'l [Line<'a>]) -> Body<'l, 'a> {
        Body {
            doc,
            lines,
            preamble: Section {
                kind: SectionKind::Preamble,
                level: 0,
                start: 0,
                end: lines.len(),
                seen: 0,
            },
            headed: SmallVec::new(),
            hits: SmallVec::new(),
            first: [0; LABELS],
            sectionless: false,
            direct: None,
            table: None,
        }
    }

    /// Indexes a body that is one simple fenced JSON object, read directly
    /// (see `json_body`): a hit per labelled field, at the line (of the
    /// body's) where its value is written; its lists and sections are
    /// answered from `direct`. Out of line: a message with a markdown body
    /// (nearly every one) pays nothing for it.
    #[cold]
    #[inline(never)]
    pub(crate) fn read_json(&mut self, direct: &'l Direct<'a>) {
        let (doc, lines) = (self.doc, self.lines);
        self.sectionless = true;
        self.direct = Some(direct);
        for &(label, value, at) in &direct.labels {
            let offset = (at.as_ptr() as usize).wrapping_sub(doc.as_ptr() as usize);
            let line = lines
                .iter()
                .rposition(|l| l.start(doc) <= offset)
                .unwrap_or(0);
            self.hits.push(Hit {
                label,
                section: 0,
                line,
                value,
            });
            if let Some(first @ 0) = self.first.get_mut(label as usize) {
                *first = u8::try_from(self.hits.len()).unwrap_or(0);
            }
        }
    }

    /// Indexes the lines (see the module doc), once.
    pub(crate) fn read(&mut self, diags: &mut Diags<'_, 'a>) {
        let (doc, lines) = (self.doc, self.lines);
        let body = self;
        let mut in_fence: Option<usize> = None;
        let mut duplicates = 0usize;
        let mut prose = ProseAhead::new(doc);
        let mut i = 0;
        while let Some(line) = lines.get(i) {
            i += 1;
            let i = i - 1;
            // Lines no rule reads, most of a long body (a log, prose), are
            // passed over first; in a large document they were tested as
            // it was split (see `lines`). (Testing the first of a prose
            // body again searched the rest of it for a colon: 1.3 M
            // instructions on 10.8 MB.)
            if line.inert {
                continue;
            }
            let text = line.text.as_bytes();
            let Some(&first) = text.first() else {
                continue;
            };
            // The first byte read once, and every test after it chosen by
            // it (`is_inert_line`'s, then this loop's, asked it again: a
            // bullet's line was tested as an inert item twice, as a fence
            // and as a heading, where its first byte rules out all three).
            let (heading, letter) = match first {
                // A line that opens with a letter (most fields, most
                // prose) is no fence, heading or list item: inert only as
                // long colonless prose, else only a field may read it.
                // (Not asked whether it is a heading at all: `heading`'s
                // own test of the first byte was ~5 instructions a field
                // line.)
                b'a'..=b'z' | b'A'..=b'Z' => {
                    if prose.colonless_prose(text) || in_fence.is_some() {
                        continue;
                    }
                    (None, true)
                }
                // A bullet opens no fence or heading: inert as a log item
                // (`- 10:00:01 run 1: ok`, three byte tests) or an item
                // no rule reads, else only a field may read it.
                b'-' | b'+' => {
                    if in_fence.is_some() {
                        continue;
                    }
                    let log = matches!(text, [_, b' ', c, ..] if c.is_ascii_digit());
                    if log || is_inert_item(text) {
                        continue;
                    }
                    // A label as the protocol spells it after the bullet
                    // (`- Tests: PASS`, most bullets of the agents
                    // corpus), or in bold after it (`- **Bead:** x`),
                    // read here as `marked_field_line` reads them first,
                    // without the call and its answer (~40 instructions
                    // a line). Inline before the log and inert tests it
                    // was ~75, but moved the plain message's path (4,185
                    // against 4,160).
                    if let Some((f, label, bold)) =
                        Label::spelled_after_bullet(line.text, line.plain_end)
                            .and_then(|(f, label)| Some((f, label?, false)))
                            .or_else(|| {
                                Label::spelled_in_bold(line.text, line.plain_end)
                                    .map(|(f, label)| (f, label, true))
                            })
                    {
                        // A bold row of fields (`- **Bead:** x | **Step:**
                        // 3`) is read by parts; one push site, as before.
                        if !(bold
                            && has_row_separator(f.value)
                            && body.row_of_fields(diags, line, i, f, label, &mut duplicates))
                        {
                            body.push_field(diags, line, i, f, label, &mut duplicates);
                        }
                        continue;
                    }
                    (None, false)
                }
                // Emphasis (`**Bead:**`) or a bullet: no fence, inert item
                // or heading opens with it.
                b'*' => {
                    if in_fence.is_some() {
                        continue;
                    }
                    (None, false)
                }
                // A heading, or a line no rule reads: no fence or inert
                // item opens with it.
                b'#' => {
                    if in_fence.is_some() {
                        continue;
                    }
                    if let Some(kind) = SectionKind::spec_heading(text) {
                        open_section(
                            &mut body.headed,
                            &mut body.preamble,
                            kind,
                            2,
                            i,
                            lines.len(),
                        );
                        continue;
                    }
                    (
                        spelled_heading(line.text).or_else(|| other_heading(line.text)),
                        false,
                    )
                }
                // No other first byte opens inert prose (it opens with a
                // letter) or a log item.
                _ => {
                    if is_fence(line.text) {
                        in_fence = if in_fence.is_some() { None } else { Some(i) };
                        continue;
                    }
                    if in_fence.is_some() || is_inert_item(text) {
                        continue;
                    }
                    // A table row (no fence or inert item opens with `|`).
                    if first == b'|' && body.table_line(diags, i, &mut duplicates) {
                        continue;
                    }
                    (heading(line.text), false)
                }
            };
            if let Some((level, title)) = heading {
                let plain = SectionKind::from_title(title);
                let kind = if level <= 2 && plain != SectionKind::Other {
                    Some(plain)
                } else {
                    // `### Problem`, `## 🧩 Problem`: a known section at
                    // any level, through decorations. A title the plain
                    // reading knows is one through decorations as well (a
                    // test holds the two alike): not looked up again.
                    let decorated = match plain {
                        SectionKind::Other => SectionKind::from_decorated_title(title),
                        known => Some(known),
                    };
                    if let Some(k) = decorated {
                        note_heading(diags, line, k);
                    }
                    // `###` and deeper naming no section stay inside the
                    // current one, unless it was opened at their level or
                    // deeper: `### Notes` after `### Summary` is the
                    // summary's sibling, not a part of it.
                    let open = body.headed.last().map_or(0, |s| s.level);
                    decorated.or((level <= 2 || level <= usize::from(open)).then_some(plain))
                };
                if let Some(kind) = kind {
                    let level = u8::try_from(level).unwrap_or(u8::MAX);
                    open_section(
                        &mut body.headed,
                        &mut body.preamble,
                        kind,
                        level,
                        i,
                        lines.len(),
                    );
                }
                continue;
            }
            // A label as the protocol spells it is read without the
            // general reading's search and lookup (see `spec_spelling`);
            // a line that opens with no letter is spelled so by no label,
            // and goes to the field grammar without the letter's tests.
            let mut bold = None;
            let read = if letter {
                Label::spec_spelling(text)
                    .and_then(|(label, colon)| {
                        Some((
                            spelled_field_at(line.text, colon, line.plain_end)?,
                            Some(label),
                        ))
                    })
                    .or_else(|| letter_field_line(line.text, Label::lookup))
            } else {
                match marked_field_line(line.text, line.plain_end) {
                    Marked::Field(f, label) => {
                        // A decorated row of fields (`**Bead:** ol-7 |
                        // **Step:** 3`), asked here and of the decorated
                        // rule's fields below, not of a line that opens
                        // with a label (a plain `Status: red | green` is
                        // read as written; and the plain message's path
                        // was ~100 instructions longer with the test where
                        // every field is pushed).
                        if let (Some(label), b'*') = (label, first) {
                            if has_row_separator(f.value)
                                && body.row_of_fields(diags, line, i, f, label, &mut duplicates)
                            {
                                continue;
                            }
                        }
                        Some((f, label))
                    }
                    Marked::Bold(f) => {
                        bold = Some(f);
                        None
                    }
                    Marked::Neither => None,
                }
            };
            let (f, label, decorated) = match read {
                Some((f, label)) => match label {
                    Some(label) => (f, label, false),
                    None => {
                        // `Problem:` or `**Problem:**` alone on its line: a
                        // heading.
                        if f.value.is_empty() {
                            if let Some(kind) = SectionKind::from_decorated_title(f.label) {
                                alone_as_heading(diags, line, kind);
                                open_section(
                                    &mut body.headed,
                                    &mut body.preamble,
                                    kind,
                                    2,
                                    i,
                                    lines.len(),
                                );
                            }
                        }
                        continue;
                    }
                },
                None => match bold
                    .map_or_else(|| decorated_line(line.text), |f| bold_field(f, line.text))
                {
                    Decorated::Field(f, label) => {
                        if has_row_separator(f.value)
                            && body.row_of_fields(diags, line, i, f, label, &mut duplicates)
                        {
                            continue;
                        }
                        (f, label, true)
                    }
                    Decorated::Heading(kind) => {
                        alone_as_heading(diags, line, kind);
                        open_section(
                            &mut body.headed,
                            &mut body.preamble,
                            kind,
                            2,
                            i,
                            lines.len(),
                        );
                        continue;
                    }
                    Decorated::Neither => {
                        // A line of prose that opens with a letter is
                        // tested here, without the call.
                        if may_be_other(text) {
                            body.other_line(diags, i, &mut duplicates);
                        }
                        continue;
                    }
                },
            };
            // A decorated line of several fields (`**Bead:** ol-7 | **Step:**
            // 3`; bulleted ones above): asked only of a line that opens
            // with no letter or was read through decorations (a plain
            // `Status: red | green` is read as written), and only when the
            // value holds a `|`, `·` or `•`.
            if body.push_field(diags, line, i, f, label, &mut duplicates) && decorated {
                let note = Note::join(&[
                    "`",
                    decorated_label_part(line.text, f.value),
                    "` reads as the field `",
                    f.label,
                    ":`",
                ]);
                read_through(diags, line, note);
            }
        }
        if duplicates > 0 {
            second_header(diags, doc, lines);
        }
        if duplicates > MAX_DUPLICATE_REPORTS {
            let last = lines.last().map(Line::last_no).unwrap_or(1);
            diags.push_body(
                Code::DuplicateField,
                last,
                1,
                format!(
                    "{} more duplicate fields not listed",
                    duplicates - MAX_DUPLICATE_REPORTS
                ),
            );
        }
        if let Some(open) = in_fence {
            diags.at(
                Code::UnclosedFence,
                &lines[open],
                lines[open].text.trim_start(),
                "this code block is never closed",
            );
        }
    }

    /// Records `f` as the field `label` read from `line`, line `i`: the
    /// first one of a section is kept, a duplicate is a warning. True
    /// when it was kept (a rule that read it through a decoration then
    /// notes so, see [`read_through`]). Every rule records a field here.
    /// Always inlined: the plain field's path is `Body::read`'s hot loop,
    /// where a call cost each field line.
    #[inline(always)]
    fn push_field(
        &mut self,
        diags: &mut Diags<'_, 'a>,
        line: &Line<'a>,
        i: usize,
        f: FieldLine<'a>,
        label: Label,
        duplicates: &mut usize,
    ) -> bool {
        let section = self.headed.len();
        let cur = self.headed.last_mut().unwrap_or(&mut self.preamble);
        if cur.seen & label.bit() != 0 {
            *duplicates += 1;
            if *duplicates <= MAX_DUPLICATE_REPORTS {
                diags.at(
                    Code::DuplicateField,
                    line,
                    f.label,
                    Note::join(&["`", f.label, ":` appears again; the first one is used"]),
                );
            }
            return false;
        }
        cur.seen |= label.bit();
        self.hits.push(Hit {
            label,
            section,
            line: i,
            value: trim(f.value),
        });
        if let Some(first @ 0) = self.first.get_mut(label as usize) {
            *first = u8::try_from(self.hits.len()).unwrap_or(0);
        }
        true
    }

    /// `**Bead:** ol-79 | **Step:** 3 of 5 | **Context usage:** ~60 %`: a
    /// line of fields whose first label is in bold, each after a ` | `, as
    /// language models write a status line. Read as a field each when
    /// every part after the first is a field (see below) with a value;
    /// any other value with a ` | ` (a part that is prose) is left as
    /// written, as is a plain line (its caller does not ask). True when
    /// the line was read here.
    #[cold]
    #[inline(never)]
    fn row_of_fields(
        &mut self,
        diags: &mut Diags<'_, 'a>,
        line: &Line<'a>,
        i: usize,
        f: FieldLine<'a>,
        label: Label,
        duplicates: &mut usize,
    ) -> bool {
        let sep = ROW_SEPARATOR;
        let mut parts = row_parts(f.value);
        let first = parts.next().unwrap_or_default();
        // Every part a field: a known label, or an emphasised one
        // (`**Progress:** 60 %`, none of this message's: left out, as its
        // own line would be). A part `see: the log` is prose.
        let mut rest: SmallVec<[(FieldLine<'a>, Option<Label>); 4]> = SmallVec::new();
        for part in parts {
            let part = trim(part);
            let emphasised = matches!(part.as_bytes().first(), Some(b'*' | b'_'));
            match crate::grammar::field_line(part).or_else(|| crate::decor::decorated_field(part)) {
                Some(g) if !trim(g.value).is_empty() => match Label::lookup(g.label) {
                    None if !emphasised => return false,
                    known => rest.push((g, known)),
                },
                _ => return false,
            }
        }
        // No ` | ` at all (`a|b`), or nothing before the first.
        if rest.is_empty() || trim(first).is_empty() {
            return false;
        }
        let first = FieldLine {
            label: f.label,
            value: first,
        };
        self.push_field(diags, line, i, first, label, duplicates);
        for (g, l) in rest {
            if let Some(l) = l {
                self.push_field(diags, line, i, g, l, duplicates);
            }
        }
        read_through(
            diags,
            line,
            Note::join(&[
                "`",
                trim(line.text),
                "` reads as one field per part between `",
                trim(sep),
                "`",
            ]),
        );
        true
    }

    /// A line that opens with `|`, outside fenced code: a row of a
    /// markdown table. A table of two columns whose first column is
    /// labels (`| Bead | ol-7 |`, `| **Status:** | ok |`; a header row
    /// such as `| Field | Value |` and the `|---|---|` row allowed) is
    /// read as fields, a row a field: the table is taken when every row
    /// has two cells and at least half of the rows that are not the
    /// `---` row name a known label. Any other table (a table of files
    /// with a status column) is left to the other rules, as before.
    /// The table this line is in is read at its first row. True when the line was read
    /// here (a row of a table of fields).
    #[cold]
    #[inline(never)]
    fn table_line(&mut self, diags: &mut Diags<'_, 'a>, i: usize, duplicates: &mut usize) -> bool {
        let lines = self.lines;
        let table = self.table.get_or_insert_with(Default::default);
        if i >= table.end {
            let end = lines[i..]
                .iter()
                .position(|l| {
                    let b = l.text.as_bytes();
                    b.iter().find(|&&c| !is_row_blank(c)) != Some(&b'|')
                })
                .map_or(lines.len(), |n| i + n);
            table.read(&lines[i..end], i);
        }
        let noted = table.noted;
        let Some(&row) = i.checked_sub(table.start).and_then(|k| table.rows.get(k)) else {
            return false;
        };
        let Some((label_cell, name, value, label)) = row else {
            // The header, the `---` row or a label the protocol does not
            // name.
            return true;
        };
        // One note a table, at its first field (notes are most of what
        // a decorated message costs beyond the plain one).
        let note = (!noted).then(|| {
            Note::join(&[
                "a table of labels and values reads as fields, a row a field (`",
                label_cell,
                "` as `",
                name,
                ":`)",
            ])
        });
        // The note is made at the table's first field read (a duplicate
        // is not read), so that strict mode refuses every table read.
        let line = &self.lines[i];
        let read = self.push_field(
            diags,
            line,
            i,
            FieldLine { label: name, value },
            label,
            duplicates,
        );
        if let (true, Some(note)) = (read, note) {
            read_through(diags, line, note);
        }
        if let Some(table) = &mut self.table {
            table.noted |= read;
        }
        true
    }

    /// A line no rule read: a setext underline (`Problem` over `-------`
    /// or `=======`) under a title that names a section opens it; a known
    /// label and its value split by a dash (`Status — in progress`) are
    /// that field when the section has none yet. Cold: only lines no
    /// other rule reads reach it.
    #[cold]
    #[inline(never)]
    fn other_line(&mut self, diags: &mut Diags<'_, 'a>, i: usize, duplicates: &mut usize) {
        let text = self.lines[i].text;
        let b = text.as_bytes();
        if let Some(&c @ (b'-' | b'=')) = b.first() {
            if b.get(1) == Some(&c) && b.iter().all(|&x| x == c || is_row_blank(x)) {
                self.setext(diags, i);
                return;
            }
        }
        let Some((f, label)) = dash_field(text) else {
            return;
        };
        let cur = self.headed.last().unwrap_or(&self.preamble);
        if cur.seen & label.bit() != 0 {
            // A plain field of the label was read: the dash line is prose.
            return;
        }
        let note = Note::join(&[
            "`",
            label_before_dash(text, f.value),
            "` and a dash read as the field `",
            f.label,
            ":`",
        ]);
        let line = &self.lines[i];
        if self.push_field(diags, line, i, f, label, duplicates) {
            read_through(diags, line, note);
        }
    }

    /// Line `i`, a run of `-` or `=`, under a line whose text names a
    /// section (`Problem`, `**Question**`, `Next Steps:`): that section's
    /// heading, the title line left out of the section before it.
    fn setext(&mut self, diags: &mut Diags<'_, 'a>, i: usize) {
        let Some(prev) = i.checked_sub(1).and_then(|p| self.lines.get(p)) else {
            return;
        };
        let title = trim(prev.text);
        if title.is_empty() || title.starts_with('#') {
            return;
        }
        // The title line opened a section itself (`**Problem**` over
        // `---`): the underline is its heading's, not the section's text.
        if let Some(s) = self.headed.last_mut().filter(|s| s.start == i) {
            s.start = i + 1;
            return;
        }
        let Some(kind) = SectionKind::from_decorated_title(title) else {
            return;
        };
        diags.normalised(
            prev,
            crate::trim::trim_start(prev.text),
            Note::join(&[
                "`",
                title,
                "` underlined reads as the heading `## ",
                kind.title(),
                "`",
            ]),
        );
        open_section(
            &mut self.headed,
            &mut self.preamble,
            kind,
            2,
            i,
            self.lines.len(),
        );
        let before = self.headed.len() - 1;
        let cur = match before.checked_sub(1) {
            Some(b) => &mut self.headed[b],
            None => &mut self.preamble,
        };
        cur.end = (i - 1).max(cur.start);
    }

    /// The number of the first section of `kind`.
    pub(crate) fn section(&self, kind: SectionKind) -> Option<usize> {
        if kind == SectionKind::Preamble {
            return Some(0);
        }
        if let Some(direct) = self.direct {
            // Numbered after the preamble, as a section read from lines.
            return direct
                .sections
                .iter()
                .position(|s| s.0 == kind)
                .map(|i| i + 1);
        }
        self.headed
            .iter()
            .position(|s| s.kind == kind)
            .map(|i| i + 1)
    }

    /// Section number `n` (0 is the preamble).
    fn section_at(&self, n: usize) -> Option<&Section> {
        match n.checked_sub(1) {
            None => Some(&self.preamble),
            Some(i) => self.headed.get(i),
        }
    }

    pub(crate) fn has_section(&self, kind: SectionKind) -> bool {
        self.section(kind).is_some()
    }

    /// A label in the preamble, else anywhere in the body.
    pub(crate) fn top(&self, label: Label) -> Option<Hit<'a>> {
        // Sections are numbered in line order and hits kept in it: a
        // label's first hit is in the preamble whenever one is.
        match self.first.get(label as usize) {
            Some(0) if self.hits.len() <= usize::from(u8::MAX) => None,
            Some(&n) if n > 0 => self.hits.get(usize::from(n) - 1).copied(),
            _ => self.hits.iter().find(|h| h.label == label).copied(),
        }
    }

    /// A label in the first section of `kind`; outside it, the first one
    /// anywhere, reported as an info because the writer put it elsewhere.
    pub(crate) fn within(
        &self,
        kind: SectionKind,
        label: Label,
        diags: &mut Diags<'_, 'a>,
    ) -> Option<Hit<'a>> {
        // The label's first hit first (a lookup): with none, there is none
        // in the section either; in the section, it is the section's first.
        // The hits are searched only for a label first found elsewhere
        // (a DONE asked five labels this way, ~100 instructions each).
        let h = self.top(label)?;
        if let Some(s) = self.section(kind) {
            if h.section == s {
                return Some(h);
            }
            if let Some(h) = self.in_section(s, label) {
                return Some(h);
            }
        }
        if self.sectionless {
            return Some(h);
        }
        let line = &self.lines[h.line];
        diags.at(
            Code::FieldOutsideSection,
            line,
            crate::trim::trim_start(line.text),
            Note::join(&["field found outside its `## ", kind.name(), "` section"]),
        );
        Some(h)
    }

    fn in_section(&self, section: usize, label: Label) -> Option<Hit<'a>> {
        self.hits
            .iter()
            .find(|h| h.section == section && h.label == label)
            .copied()
    }

    /// The text of a section, blank lines at either end trimmed.
    pub(crate) fn section_text(&self, kind: SectionKind) -> Option<Cow<'a, str>> {
        if let Some(direct) = self.direct {
            let (_, text) = direct.sections.iter().find(|s| s.0 == kind)?;
            return text.clone();
        }
        let s = self.section_at(self.section(kind)?)?;
        let content = trim_blank(&self.lines[s.start..s.end]);
        if content.is_empty() {
            return None;
        }
        Some(join_lines(self.doc, content))
    }

    /// The list a section holds: its bullet or numbered items, else the
    /// comma-separated or one-per-line entries of its text.
    pub(crate) fn section_list(
        &self,
        kind: SectionKind,
        diags: &mut Diags<'_, 'a>,
    ) -> Option<Vec<Cow<'a, str>>> {
        if self.direct.is_some() {
            // A fenced JSON body's lists are fields (`files_touched` is
            // the label `Files touched`), never a section's.
            return None;
        }
        let s = self.section_at(self.section(kind)?)?;
        let lines = &self.lines[s.start..s.end];
        let items = file_items(
            physical(self.doc, lines).filter_map(|l| Some((l, list_item(l.text)?))),
            diags,
        );
        if !items.is_empty() {
            return Some(items);
        }
        let items: Vec<Cow<'a, str>> = physical(self.doc, lines)
            .filter(|l| !l.is_blank())
            .flat_map(|l| inline_list(l.text))
            .collect();
        (!items.is_empty()).then_some(items)
    }

    /// A list-valued field: `Files: a, b`, or `Files:` followed by bullets.
    /// A field with no items is absent (`None`), like an empty scalar.
    pub(crate) fn field_list(
        &self,
        hit: Hit<'a>,
        diags: &mut Diags<'_, 'a>,
    ) -> Option<Vec<Cow<'a, str>>> {
        let items = self.field_items(hit, diags);
        (!items.is_empty()).then_some(items)
    }

    fn field_items(&self, hit: Hit<'a>, diags: &mut Diags<'_, 'a>) -> Vec<Cow<'a, str>> {
        if let Some(direct) = self.direct {
            return direct
                .lists
                .iter()
                .find(|l| l.0 == hit.label)
                .map(|(_, items)| items.iter().map(|i| Cow::Borrowed(*i)).collect())
                .unwrap_or_default();
        }
        let line = &self.lines[hit.line];
        if !hit.value.is_empty() {
            // `` `a.rs` `b.rs` ``: backtick spans with no commas between.
            if let Some(spans) = crate::decor::backtick_spans(hit.value) {
                diags.normalised(
                    line,
                    hit.value,
                    "files in backticks separated by spaces read as a list",
                );
                return spans.into_iter().map(Cow::Borrowed).collect();
            }
            return inline_list(hit.value);
        }
        let field_indent = indent_of(line.text);
        let following = || physical(self.doc, &self.lines[hit.line + 1..]);
        let items = following().take_while(|l| {
            list_item(l.text).is_some()
                && (indent_of(l.text) > field_indent || !crate::find::has(l.text.as_bytes(), b':'))
                && heading(l.text).is_none()
        });
        let items = file_items(items.filter_map(|l| Some((l, list_item(l.text)?))), diags);
        if !items.is_empty() {
            return items;
        }
        // One file per line, with no list marker.
        let bare: Vec<(Line<'a>, &'a str)> = following()
            .map_while(|l| Some((l, crate::decor::bare_file_line(l.text)?)))
            .collect();
        if let Some((first, _)) = bare.first() {
            diags.normalised(
                first,
                first.text.trim_start(),
                "files one per line, with no list marker, read as a list",
            );
        }
        bare.into_iter().map(|(_, f)| Cow::Borrowed(f)).collect()
    }

    pub(crate) fn line(&self, hit: &Hit<'a>) -> &Line<'a> {
        &self.lines[hit.line]
    }
}

/// The files a list's items name: each item's text, backticks trimmed; an
/// item with a note (`` `a.rs` — new ``, `b.rs (new)`) is its file, with
/// one normalisation reported for the list.
fn file_items<'a>(
    items: impl Iterator<Item = (Line<'a>, &'a str)>,
    diags: &mut Diags<'_, 'a>,
) -> Vec<Cow<'a, str>> {
    let mut noted = false;
    let mut out = Vec::new();
    for (line, text) in items {
        if text.is_empty() {
            continue;
        }
        let file = match crate::decor::file_item(text) {
            Some(file) => {
                if !noted {
                    noted = true;
                    let (kept, cut) = crate::decor::shorten(text);
                    diags.normalised(
                        &line,
                        text,
                        Note::join(&[
                            "list item `",
                            kept,
                            crate::decor::cut_then!(cut, "` reads as the file `"),
                            file,
                            "`",
                        ]),
                    );
                }
                file
            }
            None => text.trim_matches('`'),
        };
        out.push(Cow::Borrowed(file));
    }
    out
}

/// Whether `c` is a blank a table row's ends may hold (a CRLF line's
/// `\r` too).
fn is_row_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r')
}

/// The two cells of a table row (`| a | b |`, `| a | b`), trimmed;
/// `None` for any other number of cells. On bytes: the row's cost is a
/// few searches, not a `str` pattern's.
fn table_cells(text: &str) -> Option<(&str, &str)> {
    let b = text.as_bytes();
    let start = b.iter().position(|&c| !is_row_blank(c))?;
    if b[start] != b'|' {
        return None;
    }
    let a0 = start + 1;
    let a1 = a0 + crate::find::byte(&b[a0..], b'|')?;
    let b0 = a1 + 1;
    let (b1, rest) = match crate::find::byte(&b[b0..], b'|') {
        Some(k) => (b0 + k, b0 + k + 1),
        None => (b.len(), b.len()),
    };
    if !b[rest..].iter().all(|&c| is_row_blank(c)) {
        return None;
    }
    // Every cut is at an ASCII `|` or the end: on character boundaries.
    Some((cell(text.get(a0..a1)?), cell(text.get(b0..b1)?)))
}

/// A cell's text without blanks at its ends: ASCII ones on bytes (the
/// usual `| Bead | ol-7 |`), then [`trim`]'s test of its ends, which a
/// cell that ends in a letter passes at once (`str::trim` was most of a
/// row's cost).
fn cell(c: &str) -> &str {
    let b = c.as_bytes();
    let s = b.iter().take_while(|&&x| is_row_blank(x)).count();
    let e = b.len()
        - b[s..]
            .iter()
            .rev()
            .take_while(|&&x| is_row_blank(x))
            .count();
    // Cut after and before ASCII blanks: on character boundaries.
    let t = c.get(s..e).unwrap_or(c);
    match (t.as_bytes().first(), t.as_bytes().last()) {
        // Both ends visible ASCII: nothing for `trim` to take.
        (Some(b'!'..=b'~'), Some(b'!'..=b'~')) => t,
        _ => trim(t),
    }
}

/// The `|---|:---:|` row under a table's header.
fn is_table_rule(text: &str) -> bool {
    let mut dash = false;
    for &c in text.as_bytes() {
        match c {
            b'-' => dash = true,
            b'|' | b':' | b' ' | b'\t' | b'\r' => {}
            _ => return false,
        }
    }
    dash
}

/// A label cell's label: its emphasis and a colon inside or outside it
/// as `decor::emphasised_title` takes them from a title (`**Status:**`,
/// `*Bead*:`), else a code span's marks (`` `Commit` ``, as agents write
/// the names of things) and a colon. A mark on one side only is no
/// emphasis and is kept (`**Status` names no label): the ends' marks were
/// each stripped on their own here before.
fn table_label(cell: &str) -> Option<&str> {
    let label = match crate::decor::emphasised_title(cell) {
        Some(title) => title,
        None => {
            let t = cell.strip_suffix(':').unwrap_or(cell);
            let t = t
                .strip_prefix('`')
                .and_then(|t| t.strip_suffix('`'))
                .unwrap_or(t);
            trim(t.strip_suffix(':').unwrap_or(t))
        }
    };
    (!label.is_empty()).then_some(label)
}

/// A markdown table a body's `|` lines are in (see `Body::table_line`):
/// where it starts and ends, each row's field when it is a table of
/// fields (none when it is not), and whether its note was made. Each row
/// is read once, when the table's first row is met.
#[derive(Default)]
struct Table<'a> {
    start: usize,
    end: usize,
    /// A row's label cell as written, label, value and `Label`; `None`
    /// for the header, the `---` row and a label the protocol does not
    /// name. Empty when the table is not fields.
    rows: Vec<Option<(&'a str, &'a str, &'a str, Label)>>,
    noted: bool,
}

impl<'a> Table<'a> {
    /// Reads `rows`, the lines `start..` of a body: a table of fields
    /// when every row has two cells and at least half of the rows that
    /// are neither the `---` row nor the header above it name a known
    /// label.
    fn read(&mut self, rows: &[Line<'a>], start: usize) {
        self.start = start;
        self.end = start + rows.len();
        self.noted = false;
        self.rows.clear();
        let (mut data, mut labels) = (0usize, 0usize);
        // A row is the `---` row or the header above it (which names the
        // columns, `| Field | Value |`, and is never a field) when it or
        // the next row is the rule: whether each row is the rule is asked
        // once and carried to the next row (asked of both rows at each,
        // it was asked of each row three times).
        let mut rule = rows.first().is_some_and(|r| is_table_rule(r.text));
        for (k, row) in rows.iter().enumerate() {
            let next_rule = rows.get(k + 1).is_some_and(|r| is_table_rule(r.text));
            let this_rule = std::mem::replace(&mut rule, next_rule);
            if this_rule || next_rule {
                self.rows.push(None);
                continue;
            }
            let Some((cell, value)) = table_cells(row.text) else {
                self.rows.clear();
                return;
            };
            data += 1;
            let field = table_label(cell).and_then(|n| Some((cell, n, value, Label::lookup(n)?)));
            labels += usize::from(field.is_some());
            self.rows.push(field);
        }
        if labels == 0 || 2 * labels < data {
            self.rows.clear();
        }
    }
}

/// Whether [`Body::other_line`] may read a line that opens with `b`
/// (which no other rule read): a setext underline, or a dash after a
/// label's name or after emphasis. A line of prose that opens with a
/// letter costs the ten byte tests of [`dash_field`], inline.
#[inline(always)]
fn may_be_other(b: &[u8]) -> bool {
    match b.first() {
        // The places at once, with no bounds test each, on a line as long
        // as the first eight names and their blank (most prose); the two
        // longest names' places then on their own.
        Some(b'a'..=b'z' | b'A'..=b'Z') => match b.get(..15) {
            Some(h) => {
                let d = |c: u8| u8::from(matches!(c, b'-' | 0xE2));
                (d(h[5]) | d(h[6]) | d(h[7]) | d(h[8]) | d(h[11]) | d(h[12]) | d(h[13]) | d(h[14]))
                    != 0
                    || matches!(b.get(18), Some(&(b'-' | 0xE2)))
                    || matches!(b.get(27), Some(&(b'-' | 0xE2)))
            }
            None => LABEL_LENGTHS
                .iter()
                .any(|&l| matches!(b.get(l + 1), Some(&(b'-' | 0xE2)))),
        },
        Some(_) => true,
        None => false,
    }
}

/// The lengths of the labels' names (see `Label::lookup`).
const LABEL_LENGTHS: [usize; 10] = [4, 5, 6, 7, 10, 11, 12, 13, 17, 26];

/// The width of the dash at `b[at..]`: ` - ` (3), ` – ` or ` — ` (5).
#[inline]
fn dash_at(b: &[u8], at: usize) -> Option<usize> {
    match b.get(at..at + 3)? {
        [b' ', b'-', b' '] => Some(3),
        [b' ', 0xE2, 0x80] => matches!(b.get(at + 3..at + 5)?, [0x93 | 0x94, b' ']).then_some(5),
        _ => None,
    }
}

/// A known label, a dash and a value (`Status — in progress`, `Step –
/// Step 4`, `**Context usage** - 45%`), the dash an em or en dash or a
/// hyphen with blanks on both sides. The label opens the line or, in
/// emphasis, follows a bullet or a number (`- **Status** — ok`); a plain
/// label after a bullet (`- Status - the page shows retries`) is a list
/// of prose, and is not read. A line of prose costs a few byte tests: a
/// plain label's dash is looked for only after a name's length.
fn dash_field(text: &str) -> Option<(FieldLine<'_>, Label)> {
    let b = text.as_bytes();
    let (start, end, after) = match *b.first()? {
        b'A'..=b'Z' | b'a'..=b'z' => {
            // A dash just after one of the names' lengths: a byte test
            // or two at each of ten places (a search of the line's head
            // was ~80 instructions a line of prose).
            let end = LABEL_LENGTHS
                .iter()
                .copied()
                .find(|&l| matches!(b.get(l + 1), Some(&(b'-' | 0xE2))) && b[l] == b' ')?;
            (0, end, end)
        }
        first => {
            // A bullet or a number, one blank, then the emphasis.
            let k = match first {
                b'-' | b'+' | b'*' if b.get(1) == Some(&b' ') => 2,
                b'0'..=b'9' => {
                    let d = b.iter().take_while(|c| c.is_ascii_digit()).count();
                    match b.get(d..d + 2)? {
                        [b'.' | b')', b' '] => d + 2,
                        _ => return None,
                    }
                }
                _ => 0,
            };
            let mark = *b.get(k)?;
            if !matches!(mark, b'*' | b'_') {
                return None;
            }
            let open = k + b[k..].iter().take_while(|&&c| c == mark).count();
            let close = open + b.get(open..)?.iter().take(30).position(|&c| c == mark)?;
            let after = close + b[close..].iter().take_while(|&&c| c == mark).count();
            (open, close, after)
        }
    };
    let width = dash_at(b, after)?;
    // Cuts after and before ASCII bytes: on character boundaries.
    let name = text.get(start..end)?;
    let name = name.strip_suffix(':').unwrap_or(name);
    let label = Label::lookup(name)?;
    let value = trim(text.get(after + width..)?);
    if value.is_empty() {
        return None;
    }
    Some((FieldLine { label: name, value }, label))
}

/// The line before a dash field's dash, trimmed.
fn label_before_dash<'a>(line: &'a str, value: &str) -> &'a str {
    let at = (value.as_ptr() as usize).wrapping_sub(line.as_ptr() as usize);
    let head = line.get(..at).unwrap_or(line);
    trim(head.trim_end_matches([' ', '-', '–', '—']))
}

/// What a line the plain grammar does not read may be, decorated.
enum Decorated<'a> {
    Field(FieldLine<'a>, Label),
    Heading(SectionKind),
    Neither,
}

/// A decorated field with a known label (`**Bead**: x`, `1. Step: y`,
/// `📊 Context usage: 45%`) or an emphasised title naming a section
/// (`**Problem**`). Lines that cannot start a decoration cost one test.
#[inline]
fn decorated_line(text: &str) -> Decorated<'_> {
    match text.as_bytes().first() {
        Some(&b) if crate::decor::may_decorate(b) => decorated_line_rest(text),
        _ => Decorated::Neither,
    }
}

fn decorated_line_rest(text: &str) -> Decorated<'_> {
    if let Some(f) = crate::decor::decorated_field(text) {
        if let Some(label) = Label::lookup(f.label) {
            return Decorated::Field(f, label);
        }
    }
    match crate::decor::emphasised_title(text).and_then(SectionKind::from_decorated_title) {
        Some(kind) => Decorated::Heading(kind),
        None => Decorated::Neither,
    }
}

/// `## Title` as the protocol writes a section's heading (two marks, one
/// space, a title that opens with a letter and ends in a letter or digit):
/// [`heading`]'s reading of it (level 2, the title with nothing to trim),
/// without the heading grammar and the trim (~50 instructions a heading;
/// a test holds the two alike).
#[inline]
fn spelled_heading(line: &str) -> Option<(usize, &str)> {
    match line.as_bytes() {
        [b'#', b'#', b' ', first, .., last]
            if first.is_ascii_alphabetic() && last.is_ascii_alphanumeric() =>
        {
            // After three ASCII bytes: on a character boundary.
            Some((2, line.get(3..)?))
        }
        _ => None,
    }
}

/// [`heading`] of a line that opens with `#` and is not [`spelled_heading`]'s,
/// out of line (the plain message has no such line). The headings agents
/// write (three or four marks, `### Problem`; an emoji first, `## 🧩
/// Problem`), with a title that ends in a letter or digit, read as the
/// heading grammar reads them (the level, the title with nothing to
/// trim), without the grammar and the trim (~50 instructions a heading,
/// ~150 with an emoji; a test holds the two alike).
#[inline(never)]
fn other_heading(line: &str) -> Option<(usize, &str)> {
    let level = match line.as_bytes() {
        [b'#', b'#', b' ', ..] => 2,
        [b'#', b'#', b'#', b' ', ..] => 3,
        [b'#', b'#', b'#', b'#', b' ', ..] => 4,
        _ => return heading(line),
    };
    // After ASCII bytes: on a character boundary.
    let title = line.get(level + 1..)?;
    match (title.as_bytes().first(), title.as_bytes().last()) {
        (Some(first), Some(last))
            if (first.is_ascii_alphabetic() || crate::glyph::opens_with_emoji(title))
                && last.is_ascii_alphanumeric() =>
        {
            Some((level, title))
        }
        _ => heading(line),
    }
}

/// What [`marked_field_line`] read.
enum Marked<'a> {
    /// A field as the field grammar reads it, and its label if known.
    Field(FieldLine<'a>, Option<Label>),
    /// A bold label with its colon after the emphasis, in which the
    /// grammar finds no field, as the decorated rule reads it.
    Bold(FieldLine<'a>),
    Neither,
}

/// The field of a body line that opens with no letter (a bullet,
/// emphasis, an indent), and its label if known. Out of line: inlined in
/// the body index, the bulleted spelling's test cost the plain message's
/// letter lines ~20 instructions a message in the index's code layout.
/// A bold label (`**Bead**: ol-7`, `- **Commit:** abc`; 71 lines of the
/// agents corpus) is read by the decorated rule's one pass at once
/// (`decor::bold_label_read`): with its colon inside the emphasis as the
/// field grammar reads it, with its colon after it (where the grammar
/// finds nothing: its label ends at the `*`) as the decorated rule
/// reads it, which, asked after the grammar, read the line again from
/// its first byte.
#[inline(never)]
fn marked_field_line(text: &str, plain_end: bool) -> Marked<'_> {
    // A number (`1. Bead: x`) or an emoji (`📊 Context usage: 38%`) first:
    // no prelude the field grammar reads (blanks, a bullet, `**`) opens
    // with one, nor does a label (a letter; an emoji is none, see
    // `grammar::may_open_label`), a bullet's spelling or a bold label. The
    // decorated rule reads the line; the grammar's reading of it found
    // nothing (~100 instructions a line, the glyph decoded twice).
    match text.as_bytes().first() {
        Some(b'0'..=b'9') => return Marked::Neither,
        Some(b) if !b.is_ascii() && crate::glyph::opens_with_emoji(text) => return Marked::Neither,
        _ => {}
    }
    if let Some((f, label)) = Label::spelled_after_bullet(text, plain_end) {
        return Marked::Field(f, label);
    }
    if let Some((f, label)) = Label::spelled_in_bold(text, plain_end) {
        return Marked::Field(f, Some(label));
    }
    match crate::decor::bold_label_read(text) {
        Some((f, true)) => return Marked::Field(f, Label::lookup(f.label)),
        Some((f, false)) => return Marked::Bold(f),
        None => {}
    }
    match field_line(text) {
        Some(f) => Marked::Field(f, Label::lookup(f.label)),
        None => Marked::Neither,
    }
}

/// The `normalised` note of a field read from `line` through a
/// decoration (a decorated label, a table row, a dash), at the line's
/// text. Every such line opens with its decoration or with spaces (a
/// decorated label's indent, see `decor::decorated_field`): cut on bytes.
fn read_through<'a>(diags: &mut Diags<'_, 'a>, line: &Line<'a>, note: Note<'a>) {
    diags.normalised(line, crate::grammar::trim_start_blanks(line.text), note);
}

/// What separates the fields of a bold row ([`Body::row_of_fields`]);
/// `·` and `•` too cost the test of every bold field's value ~190
/// instructions a corpus message (`docs/parser.md`).
const ROW_SEPARATOR: &str = " | ";

/// `value` split on [`ROW_SEPARATOR`] as `str::split` splits it (each
/// separator the leftmost one not overlapping the last): found from its
/// `|` ([`crate::find::byte`]), where `split` with a `&str` pattern set
/// up a two-way searcher for a value of a few dozen bytes (~900
/// instructions a row, 1,800 a round of the agents corpus).
fn row_parts(value: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(value);
    std::iter::from_fn(move || {
        let text = rest?;
        let b = text.as_bytes();
        let mut from = 0;
        while let Some(at) = b.get(from..).and_then(|r| crate::find::byte(r, b'|')) {
            let bar = from + at;
            if bar > 0 && b[bar - 1] == b' ' && b.get(bar + 1) == Some(&b' ') {
                // The separator is ASCII: both cuts are on character
                // boundaries.
                rest = text.get(bar + 2..);
                return text.get(..bar - 1);
            }
            from = bar + 1;
        }
        rest = None;
        Some(text)
    })
}

/// Whether a field's value may hold a row of fields.
#[inline]
fn has_row_separator(value: &str) -> bool {
    crate::find::has(value.as_bytes(), b'|')
}

/// [`decorated_line`] of a line whose decorated field [`marked_field_line`]
/// read (the decorated rule's first reading of it): the same answer,
/// without reading it again when its label is known.
#[inline]
fn bold_field<'a>(f: FieldLine<'a>, text: &'a str) -> Decorated<'a> {
    match Label::lookup(f.label) {
        Some(label) => Decorated::Field(f, label),
        None => decorated_line(text),
    }
}

/// [`crate::grammar::label_part`] of a decorated label line (see
/// `decor::decorated_field`), whose indent is spaces and whose value
/// follows its label's colon or emphasis after blanks only: trimmed on
/// bytes (the general trim decoded an emoji label's glyph).
fn decorated_label_part<'a>(line: &'a str, value: &str) -> &'a str {
    let end = (value.as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
    let label = line.get(..end).unwrap_or(line);
    crate::grammar::trim_end_blanks(crate::grammar::trim_start_blanks(label))
}

fn indent_of(s: &str) -> usize {
    s.len() - s.trim_start().len()
}

fn trim_blank<'l, 'a>(lines: &'l [Line<'a>]) -> &'l [Line<'a>] {
    let start = lines
        .iter()
        .position(|l| !l.is_blank())
        .unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !l.is_blank())
        .map_or(start, |e| e + 1);
    &lines[start..end]
}

/// The whole body text with blank lines at either end trimmed. (Always
/// inlined: its three callers' calls were ~25 instructions a message.)
#[inline(always)]
pub(crate) fn whole_text<'a>(doc: &'a str, lines: &[Line<'a>]) -> Cow<'a, str> {
    // A body whose first and last lines hold text (nearly every one) has
    // nothing to trim: decided without the call.
    let ends_hold_text = match (lines.first(), lines.last()) {
        (Some(first), Some(last)) => !first.is_blank() && !last.is_blank(),
        _ => false,
    };
    join_lines(
        doc,
        if ends_hold_text {
            lines
        } else {
            trim_blank(lines)
        },
    )
}

/// Fields that repeat in a body with a `Subject:` line (outside a code
/// block; read as the header reader reads one, `framing::header_kind`):
/// most likely two messages in one text (`cat a.md b.md | amail
/// parse`), which is read as one message, so the second's fields repeat
/// the first's. A text has no separator between messages (a line that
/// looks like a header may be the body's own), so nothing is split; the
/// line is named, with what to do. Asked only when a field repeated.
fn second_header<'a>(diags: &mut Diags<'_, 'a>, doc: &'a str, lines: &[Line<'a>]) {
    let mut fenced = false;
    for line in physical(doc, lines) {
        if crate::grammar::is_fence(line.text) {
            fenced = !fenced;
        } else if !fenced && crate::framing::header_kind(&line) == Some(true) {
            let before = diags.list.len();
            diags.at(
                Code::DuplicateField,
                &line,
                line.text,
                "`Subject:` here reads as a second message's header: a text is one message, so its fields repeat the first's (name each file, or pipe the messages as JSON)",
            );
            // Read first, before the repeats it explains (it is above them).
            let code = Code::DuplicateField.as_str();
            let first = diags.list[..before].iter().position(|d| d.code == code);
            if let (Some(first), true) = (first, diags.list.len() == before + 1) {
                if let Some(hint) = diags.list.pop() {
                    diags.list.insert(first, hint);
                }
            }
            return;
        }
    }
}

#[cfg(test)]
mod tests {
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
        } else if is("question") {
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
                "question", "changes", "self-validation", "self validation", "validation",
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
        for read in [
            "- Status: ok",
            "- **Status:** ok",
            "- [x] Tests: PASS",
            "- ✅ Tests: PASS",
            "* *Problem*",
            "1. Step: x",
            "-10:32 not an item",
        ] {
            assert!(!is_inert_item(read.as_bytes()), "{read}");
        }
    }
}
