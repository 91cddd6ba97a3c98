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
//!
//! The pass and the index it fills are here; the rules it calls live
//! beside it by subject: [`label`] (the labels and their spellings),
//! [`headings`] (the sections and the heading lines that open them),
//! [`tables`] (a row of fields, a table of labels and values),
//! [`decorated`] (lines read through what language models add) and
//! [`queries`] (what the extractors ask of the index). When the index was
//! split from one file, the crate's codegen units were grouped anew and
//! LLVM left some helpers out of line that it had inlined into their
//! callers (a table's reading, a dash field, a decorated line's rest):
//! the agents corpus went from 705,606 to 713,834 instructions a round.
//! Those helpers are marked `#[inline]` (708,394); the rest is code of
//! other modules laid out anew (`docs/parser.md`, session 37).

use std::borrow::Cow;

use smallvec::SmallVec;

use crate::diag::{Code, Diags};
use crate::grammar::{
    heading, is_fence, is_inert_item, letter_field_line, spelled_field_at, FieldLine, ProseAhead,
};
use crate::lines::{physical, Line};
use crate::model::Note;
use crate::trim::trim;

mod decorated;
mod headings;
mod label;
mod queries;
mod tables;
#[cfg(test)]
mod tests;

use decorated::{
    bold_field, decorated_label_part, decorated_line, marked_field_line, may_be_other, Decorated,
    Marked,
};
pub(crate) use headings::SectionKind;
use headings::{alone_as_heading, note_heading, other_heading, spelled_heading};
pub(crate) use label::Label;
pub(crate) use queries::whole_text;
use tables::{has_row_separator, Table};

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
    /// For a section opened by a title with its text after it on the same
    /// line (`**Problem:** the build fails`): where that text starts in
    /// the title's line (`lines[start - 1]`). 0 for any other section.
    pub lead: u16,
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
                lead: 0,
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
                        body.open_section(kind, 2, i);
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
                    body.open_section(kind, level, i);
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
                        // heading; with text after it, the heading and its
                        // first line.
                        if f.value.is_empty() {
                            if let Some(kind) = SectionKind::from_decorated_title(f.label) {
                                alone_as_heading(diags, line, kind);
                                body.open_section(kind, 2, i);
                            }
                        } else {
                            // A label the grammar read opens with a letter
                            // and holds no marks: its title read plainly
                            // (through decorations, each line of prose with
                            // a colon cost ~40 instructions more).
                            match SectionKind::from_title(f.label) {
                                SectionKind::Other => {}
                                kind => body.open_lead(diags, line, i, kind, f.value),
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
                        body.open_section(kind, 2, i);
                        continue;
                    }
                    Decorated::Lead(kind, value) => {
                        body.open_lead(diags, line, i, kind, value);
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

    /// Ends the current section (or the preamble) at line `i` and opens a
    /// `kind` section from the next line to the end.
    fn open_section(&mut self, kind: SectionKind, level: u8, i: usize) {
        self.headed.last_mut().unwrap_or(&mut self.preamble).end = i;
        self.headed.push(Section {
            kind,
            level,
            start: i + 1,
            end: self.lines.len(),
            seen: 0,
            lead: 0,
        });
    }

    /// `Problem: the build fails` or `**Question:** who owns it?`: a title
    /// naming a section, with text after it on its line, opens that
    /// section, the text its first line (the section's text then runs to
    /// the next field or heading, see `section_text`). Not where the
    /// section open is that kind already: there the line is its text.
    #[cold]
    #[inline(never)]
    fn open_lead(
        &mut self,
        diags: &mut Diags<'_, 'a>,
        line: &Line<'a>,
        i: usize,
        kind: SectionKind,
        value: &'a str,
    ) {
        if self.headed.last().unwrap_or(&self.preamble).kind == kind {
            return;
        }
        let at = (value.as_ptr() as usize).wrapping_sub(line.text.as_ptr() as usize);
        // A title so far into its line (64 KiB) is left as it was.
        let Some(lead) = u16::try_from(at).ok().filter(|&l| l > 0) else {
            return;
        };
        self.open_section(kind, 2, i);
        if let Some(s) = self.headed.last_mut() {
            s.lead = lead;
        }
        let title = line.text.get(..at).unwrap_or(line.text);
        diags.normalised(
            line,
            crate::trim::trim_start(line.text),
            Note::join(&[
                "`",
                trim(title),
                "` and the text after it read as the heading `## ",
                kind.title(),
                "` and its first line",
            ]),
        );
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
}

/// The `normalised` note of a field read from `line` through a
/// decoration (a decorated label, a table row, a dash), at the line's
/// text. Every such line opens with its decoration or with spaces (a
/// decorated label's indent, see `decor::decorated_field`): cut on bytes.
fn read_through<'a>(diags: &mut Diags<'_, 'a>, line: &Line<'a>, note: Note<'a>) {
    diags.normalised(line, crate::grammar::trim_start_blanks(line.text), note);
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
