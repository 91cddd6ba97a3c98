//! The field labels the protocol names, and the two ways a line's label
//! is found: looked up by its name's words in any case ([`Label::lookup`],
//! the general reading), or read at once where the line spells it as the
//! protocol does (`Bead:`, `- Tests:`, `**Status:**`), which is most
//! field lines of real mail and costs a compare of a few bytes.

use crate::grammar::{spelled_field_from, FieldLine};
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
            14 => &NAMES_14,
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
    pub(super) fn spec_spelling(b: &[u8]) -> Option<(Label, usize)> {
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
    pub(super) fn spelled_after_bullet(
        line: &str,
        plain_end: bool,
    ) -> Option<(FieldLine<'_>, Option<Label>)> {
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
    pub(super) fn spelled_in_bold(line: &str, plain_end: bool) -> Option<(FieldLine<'_>, Label)> {
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

    pub(super) fn bit(self) -> u32 {
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
const NAMES_12: [Name<Label>; 3] = [
    name(b"failure type", Label::Type),
    name(b"orchestrator", Label::Orchestrator),
    name(b"current step", Label::Step),
];
// A PROGRESS's two first (every message of a worker's turn carries them);
// each name before the match is a compare.
const NAMES_13: [Name<Label>; 4] = [
    name(b"context usage", Label::ContextUsage),
    name(b"files touched", Label::FilesTouched),
    name(b"accepted bead", Label::AcceptedBead),
    name(b"files changed", Label::Files),
];
// As agents word a PROGRESS's fields.
const NAMES_14: [Name<Label>; 2] = [
    name(b"current status", Label::Status),
    name(b"context window", Label::ContextUsage),
];
const NAMES_17: [Name<Label>; 1] = [name(b"internal attempts", Label::InternalAttempts)];
const NAMES_26: [Name<Label>; 1] = [name(b"starting implementation at", Label::StartingAt)];

/// The lengths of the labels' names (see `Label::lookup`).
pub(super) const LABEL_LENGTHS: [usize; 11] = [4, 5, 6, 7, 10, 11, 12, 13, 14, 17, 26];
