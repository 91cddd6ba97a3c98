//! One pass over a message body: its `##` sections, the first occurrence of
//! every known field label in each section, and fenced code to leave alone.
//!
//! The extractors in `extract.rs` then look values up in this index instead
//! of rescanning the text, so the cost of a body is one pass plus a lookup
//! per field, whatever the input looks like.

use std::borrow::Cow;

use crate::diag::{Code, Diags};
use crate::grammar::{field_line, heading, is_fence, list_item, lower_ascii};
use crate::lines::{join_lines, trim, Line};
use crate::values::inline_list;

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
    /// Case-insensitive lookup: the label is lower-cased into a stack buffer
    /// and matched as bytes (a length switch and a compare or two), since this
    /// runs for every field line of every message.
    fn lookup(label: &str) -> Option<Label> {
        let mut buf = [0u8; 32];
        Some(match lower_ascii(label, &mut buf)? {
            b"accepted bead" => Label::AcceptedBead,
            b"title" => Label::Title,
            b"starting implementation at" => Label::StartingAt,
            b"started at" => Label::StartingAt,
            b"bead" => Label::Bead,
            b"bead id" => Label::Bead,
            b"step" => Label::Step,
            b"status" => Label::Status,
            b"context usage" => Label::ContextUsage,
            b"context" => Label::ContextUsage,
            b"files touched" => Label::FilesTouched,
            b"issue type" => Label::IssueType,
            b"commit" => Label::Commit,
            b"commit sha" => Label::Commit,
            b"files" => Label::Files,
            b"files changed" => Label::Files,
            b"tests" => Label::Tests,
            b"lint" => Label::Lint,
            b"build" => Label::Build,
            b"type" => Label::Type,
            b"failure type" => Label::Type,
            b"reason" => Label::Reason,
            b"internal attempts" => Label::InternalAttempts,
            b"description" => Label::Description,
            b"issue" => Label::Issue,
            b"resume" => Label::Resume,
            b"checkpoint" => Label::Checkpoint,
            b"orchestrator" => Label::Orchestrator,
            b"session" => Label::Session,
            _ => return None,
        })
    }

    fn bit(self) -> u32 {
        1u32 << (self as u8)
    }
}

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
    fn from_title(title: &str) -> SectionKind {
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
}

#[derive(Debug)]
pub(crate) struct Section {
    pub kind: SectionKind,
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
    pub value: &'a str,
}

/// The indexed body.
pub(crate) struct Body<'l, 'a> {
    pub doc: &'a str,
    pub lines: &'l [Line<'a>],
    /// Section 0: the text before the first heading. Kept apart from the
    /// headed sections so that a body without headings allocates no list.
    preamble: Section,
    /// Sections 1.. (`## Heading` onwards), at `headed[n - 1]`.
    headed: Vec<Section>,
    pub hits: Vec<Hit<'a>>,
}

/// Beyond this many, duplicate-field diagnostics are summarised: adversarial
/// input must not turn into an unbounded diagnostic list.
const MAX_DUPLICATE_REPORTS: usize = 20;

impl<'l, 'a> Body<'l, 'a> {
    pub fn index(doc: &'a str, lines: &'l [Line<'a>], diags: &mut Diags<'_>) -> Body<'l, 'a> {
        let mut preamble = Section {
            kind: SectionKind::Preamble,
            start: 0,
            end: lines.len(),
            seen: 0,
        };
        let mut headed: Vec<Section> = Vec::new();
        // Sized for a typical message's fields, so that it does not grow.
        let mut hits = Vec::with_capacity(lines.len().min(16));
        let mut in_fence: Option<usize> = None;
        let mut duplicates = 0usize;
        for (i, line) in lines.iter().enumerate() {
            if is_fence(line.text) {
                in_fence = if in_fence.is_some() { None } else { Some(i) };
                continue;
            }
            if in_fence.is_some() {
                continue;
            }
            if let Some((level, title)) = heading(line.text) {
                // `###` and deeper stay inside the current section.
                if level <= 2 {
                    headed.last_mut().unwrap_or(&mut preamble).end = i;
                    headed.push(Section {
                        kind: SectionKind::from_title(title),
                        start: i + 1,
                        end: lines.len(),
                        seen: 0,
                    });
                }
                continue;
            }
            let Some(f) = field_line(line.text) else {
                continue;
            };
            let Some(label) = Label::lookup(f.label) else {
                continue;
            };
            let section = headed.len();
            let cur = headed.last_mut().unwrap_or(&mut preamble);
            if cur.seen & label.bit() != 0 {
                duplicates += 1;
                if duplicates <= MAX_DUPLICATE_REPORTS {
                    diags.at(
                        Code::DuplicateField,
                        line,
                        f.label,
                        format!("`{}:` appears again; the first one is used", f.label),
                    );
                }
                continue;
            }
            cur.seen |= label.bit();
            hits.push(Hit {
                label,
                section,
                line: i,
                value: trim(f.value),
            });
        }
        if duplicates > MAX_DUPLICATE_REPORTS {
            let last = lines.last().map(|l| l.no).unwrap_or(1);
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
        Body {
            doc,
            lines,
            preamble,
            headed,
            hits,
        }
    }

    /// The number of the first section of `kind`.
    pub fn section(&self, kind: SectionKind) -> Option<usize> {
        if kind == SectionKind::Preamble {
            return Some(0);
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

    pub fn has_section(&self, kind: SectionKind) -> bool {
        self.section(kind).is_some()
    }

    /// A label in the preamble, else anywhere in the body.
    pub fn top(&self, label: Label) -> Option<Hit<'a>> {
        self.in_section(0, label)
            .or_else(|| self.hits.iter().find(|h| h.label == label).copied())
    }

    /// A label in the first section of `kind`; outside it, the first one
    /// anywhere, reported as an info because the writer put it elsewhere.
    pub fn within(
        &self,
        kind: SectionKind,
        label: Label,
        diags: &mut Diags<'_>,
    ) -> Option<Hit<'a>> {
        if let Some(s) = self.section(kind) {
            if let Some(h) = self.in_section(s, label) {
                return Some(h);
            }
        }
        let h = self.hits.iter().find(|h| h.label == label).copied()?;
        let line = &self.lines[h.line];
        diags.at(
            Code::FieldOutsideSection,
            line,
            line.text.trim_start(),
            format!("field found outside its `## {kind:?}` section"),
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
    pub fn section_text(&self, kind: SectionKind) -> Option<Cow<'a, str>> {
        let s = self.section_at(self.section(kind)?)?;
        let content = trim_blank(&self.lines[s.start..s.end]);
        if content.is_empty() {
            return None;
        }
        Some(join_lines(self.doc, content))
    }

    /// The list a section holds: its bullet or numbered items, else the
    /// comma-separated or one-per-line entries of its text.
    pub fn section_list(&self, kind: SectionKind) -> Option<Vec<Cow<'a, str>>> {
        let s = self.section_at(self.section(kind)?)?;
        let lines = &self.lines[s.start..s.end];
        let items: Vec<Cow<'a, str>> = lines
            .iter()
            .filter_map(|l| list_item(l.text))
            .filter(|t| !t.is_empty())
            .map(|t| Cow::Borrowed(t.trim_matches('`')))
            .collect();
        if !items.is_empty() {
            return Some(items);
        }
        let items: Vec<Cow<'a, str>> = lines
            .iter()
            .filter(|l| !l.is_blank())
            .flat_map(|l| inline_list(l.text))
            .collect();
        (!items.is_empty()).then_some(items)
    }

    /// A list-valued field: `Files: a, b`, or `Files:` followed by bullets.
    /// A field with no items is absent (`None`), like an empty scalar.
    pub fn field_list(&self, hit: Hit<'a>) -> Option<Vec<Cow<'a, str>>> {
        let items = self.field_items(hit);
        (!items.is_empty()).then_some(items)
    }

    fn field_items(&self, hit: Hit<'a>) -> Vec<Cow<'a, str>> {
        if !hit.value.is_empty() {
            return inline_list(hit.value);
        }
        let field_indent = indent_of(self.lines[hit.line].text);
        self.lines[hit.line + 1..]
            .iter()
            .take_while(|l| {
                list_item(l.text).is_some()
                    && (indent_of(l.text) > field_indent || !l.text.contains(':'))
                    && heading(l.text).is_none()
            })
            .filter_map(|l| list_item(l.text))
            .filter(|t| !t.is_empty())
            .map(|t| Cow::Borrowed(t.trim_matches('`')))
            .collect()
    }

    pub fn line(&self, hit: &Hit<'a>) -> &Line<'a> {
        &self.lines[hit.line]
    }
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

/// The whole body text with blank lines at either end trimmed.
pub(crate) fn whole_text<'a>(doc: &'a str, lines: &[Line<'a>]) -> Cow<'a, str> {
    join_lines(doc, trim_blank(lines))
}
