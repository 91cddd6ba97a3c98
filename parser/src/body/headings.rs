//! The sections the protocol names and the heading lines that open
//! them: a title's kind (plain, or read through decorations), the
//! headings the protocol and agents write read without the general
//! heading grammar, and the `info` notes of a heading read through a
//! decoration.

use crate::diag::Diags;
use crate::grammar::heading;
use crate::lines::Line;
use crate::model::Note;
use crate::trim::trim;
use crate::words::{name, Name};

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
        // `Questions`: an agent with more than one asks them under one
        // heading.
        const NINE: [Name<K>; 1] = [name(b"questions", K::Question)];
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
            9 => &NINE,
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
    pub(super) fn spec_heading(b: &[u8]) -> Option<SectionKind> {
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
    pub(super) fn title(self) -> &'static str {
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
    pub(super) fn name(self) -> &'static str {
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
    ///
    /// A numbered title (`1. Problem`, `3) Files Touched`, `2: What I
    /// Tried`, as agents number their sections) is read without its
    /// number; a title in more words than the protocol's, by the word
    /// that names the section ([`SectionKind::from_words`]).
    pub(super) fn from_decorated_title(title: &str) -> Option<SectionKind> {
        let t = crate::decor::strip(title);
        let t = t.strip_suffix(':').unwrap_or(t);
        let t = crate::decor::strip(t);
        match SectionKind::from_title(t) {
            SectionKind::Other => match crate::decor::unnumbered(t) {
                Some(rest) => SectionKind::from_decorated_title(rest),
                None => SectionKind::from_words(t),
            },
            k => Some(k),
        }
    }

    /// A title worded as agents word a section's heading, in up to four
    /// words: one that opens with the section's word (`Problem
    /// Statement`, `Failure Details`, `Changes Made`, `Questions for
    /// Review`, `Next Steps`, `Recommendations`; not `Progress`, see
    /// below), or ends with it after one or two words that only qualify
    /// it (`My Question`, `Our Recommendation`, `Brief Summary`);
    /// `Attempts`, or any such title with `tried` in it (`Approaches
    /// Tried`, `What I Have Tried`), for What I Tried. A title that ends
    /// with a section's word after any other (`Answer to Your Question`,
    /// `Root Cause Summary`) names none: the words before it may say it
    /// is about something else; nor does a title of five words or more,
    /// a sentence more than a title.
    fn from_words(t: &str) -> Option<SectionKind> {
        use SectionKind as K;
        // Four words of a title, of up to twenty letters each.
        if t.len() > 84 {
            return None;
        }
        let is = |w: &str, name: &str| w.eq_ignore_ascii_case(name);
        let tried = |w: &str| is(w, "attempts") || is(w, "attempted");
        // Not `Progress`: `Progress Update` and `Progress Report` title
        // a PROGRESS's body, which has no section, as often as a
        // checkpoint's progress.
        let one = |w: &str| match SectionKind::from_title(w) {
            K::Other if is(w, "recommendations") => Some(K::Recommendation),
            K::Other | K::NextSteps | K::Progress => None,
            k => Some(k),
        };
        let mut words = t.split_ascii_whitespace();
        let first = words.next()?;
        let Some(second) = words.next() else {
            return tried(first).then_some(K::WhatTried).or_else(|| one(first));
        };
        let (third, fourth) = (words.next(), words.next());
        if words.next().is_some() {
            return None;
        }
        let after_first = [Some(second), third, fourth];
        if tried(first) || after_first.iter().flatten().any(|w| is(w, "tried")) {
            return Some(K::WhatTried);
        }
        if is(first, "next") && is(second, "steps") {
            return Some(K::NextSteps);
        }
        if let Some(k) = one(first) {
            return Some(k);
        }
        // The last word, after one or two that only qualify it (the
        // qualifiers asked only of a title that ends with a section's
        // word: most titles here name none, `Notes for the reviewer`).
        const QUALIFIERS: [&str; 14] = [
            "my",
            "our",
            "the",
            "specific",
            "open",
            "main",
            "key",
            "brief",
            "short",
            "current",
            "final",
            "remaining",
            "executive",
            "quick",
        ];
        let qualified = |w: &str| QUALIFIERS.iter().any(|q| is(w, q));
        match (third, fourth) {
            (None, _) if qualified(first) => one(second),
            (Some(last), None) if qualified(first) && qualified(second) => one(last),
            _ => None,
        }
    }
}

/// The `info` for a decorated line (`**Problem:**`, `Problem:`) read as
/// the heading `## Problem`.
pub(super) fn alone_as_heading<'a>(diags: &mut Diags<'_, 'a>, line: &Line<'a>, kind: SectionKind) {
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
pub(super) fn note_heading<'a>(diags: &mut Diags<'_, 'a>, line: &Line<'a>, kind: SectionKind) {
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

/// `## Title` as the protocol writes a section's heading (two marks, one
/// space, a title that opens with a letter and ends in a letter or digit):
/// [`heading`]'s reading of it (level 2, the title with nothing to trim),
/// without the heading grammar and the trim (~50 instructions a heading;
/// a test holds the two alike).
#[inline]
pub(super) fn spelled_heading(line: &str) -> Option<(usize, &str)> {
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
pub(super) fn other_heading(line: &str) -> Option<(usize, &str)> {
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
