//! Decorations: what language models add around the protocol's plain form,
//! and how lenient mode reads through them.
//!
//! Agents that send Agent Mail decorate: an emoji or a status glyph before
//! the subject, the subject or a type line in bold, `### Problem` or
//! `## 🧩 Problem:` or `## 1. Problem` for `## Problem`, `**Bead**:` or
//! `- *Status*:` or `1. Step:` or `` `Commit`: `` for a label (and
//! `**Subject:**` or `- *From*:` for a spec header's, read by framing
//! through the same rule), `**PASS**` or `` `a1b2c3d` (feat: ...) `` or
//! `"Add the lexer"` or a markdown link (`[a1b2c3d](https://…)`) for a
//! value, file lists in backticks, as links or one per line, the whole
//! message in a fenced code block or after a line of prose, a body that is
//! one fenced JSON object of the fields. (Files listed under the other
//! message kinds' label are read where the message's fields are taken,
//! `extract.rs`; a section's title with its text on its line, `**Problem:**
//! x`, and one worded at more length, `## Problem Statement`, where the
//! body is indexed, `body/`; words before a subject's `[bead] TYPE`,
//! `subject.rs`; a PASS/FAIL written as a tally, `42 passed, 0 failed`, and
//! a context usage as a share, `90k/200k tokens`, `values.rs`; a
//! placeholder such as `N/A` is no value, `values.rs`, and not a
//! decoration: plain mail writes it, and strict mode reads it so.) Each
//! family is read by one rule here, and every rule runs only where the
//! plain grammar found nothing (so a plain message pays for none of them,
//! and nothing that parsed before parses differently). What a rule read is
//! reported by the caller as an `info` diagnostic with code `normalised`,
//! which strict mode refuses: strict mode reads the protocol's plain form
//! only, and its error says what lenient mode would have read.

use smallvec::SmallVec;

use crate::glyph::is_emoji;
use crate::grammar::{
    field_line, is_fence, trim_end_blanks, trim_start_blanks, FieldLine, LABEL_BYTES,
};
use crate::lines::{physical_indexed, Line};
use crate::model::Note;
use crate::trim::trim;

/// A character that decorates rather than says something: markdown
/// emphasis, code, heading and quote marks, and any symbol that is not a
/// letter or digit of some script (emoji, check marks, arrows, the
/// variation selectors and joiners inside emoji).
pub(crate) fn is_decoration(c: char) -> bool {
    if c.is_ascii() {
        is_mark(c as u8)
    } else {
        is_emoji(c) || (!c.is_alphanumeric() && !c.is_whitespace())
    }
}

/// The ASCII marks that decorate: markdown emphasis, code, heading, quote,
/// strike and table marks. One list for every rule here that names them.
#[inline]
const fn is_mark(b: u8) -> bool {
    matches!(b, b'*' | b'_' | b'`' | b'#' | b'>' | b'~' | b'|')
}

/// An ASCII byte that [`strip_start`] and [`strip_end`] remove: a mark
/// [`is_decoration`] names, or whitespace as `char::is_whitespace` sees it.
#[inline]
fn is_ascii_strip(b: u8) -> bool {
    is_mark(b) || matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Whether a non-ASCII `c` is a glyph (no letter or digit of any
/// script): an emoji by range, before the Unicode tables are looked up
/// (an emoji label's line looked up each of its glyphs in the
/// alphanumeric tables' slow path several times, ~1,500 instructions a
/// line; a test holds the emoji ranges free of letters and digits).
#[inline]
fn is_glyph(c: char) -> bool {
    !c.is_ascii() && (is_emoji(c) || !c.is_alphanumeric())
}

/// `s` without decorations and whitespace at its start. The ASCII marks
/// are passed over on bytes; a `char` is decoded only from the first
/// non-ASCII byte on (an emoji), where the pattern search it was written
/// with decoded and looked up every `char` (a tenth of a decorated
/// message's parse went to these two trims).
pub(crate) fn strip_start(s: &str) -> &str {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_ascii_strip(b[i]) {
        i += 1;
    }
    // Every byte before `i` is ASCII: `i` is on a character boundary.
    let rest = s.get(i..).unwrap_or(s);
    if b.get(i).is_some_and(|c| !c.is_ascii()) {
        return rest.trim_start_matches(|c: char| is_decoration(c) || c.is_whitespace());
    }
    rest
}

/// `s` without decorations and whitespace at its end ([`strip_start`]'s
/// way, from the end).
pub(crate) fn strip_end(s: &str) -> &str {
    let b = s.as_bytes();
    let mut end = b.len();
    while end > 0 && is_ascii_strip(b[end - 1]) {
        end -= 1;
    }
    // Every byte from `end` on is ASCII: `end` is on a character boundary.
    let rest = s.get(..end).unwrap_or(s);
    if end > 0 && !b[end - 1].is_ascii() {
        return rest.trim_end_matches(|c: char| is_decoration(c) || c.is_whitespace());
    }
    rest
}

/// `s` without decorations at either end.
pub(crate) fn strip(s: &str) -> &str {
    strip_end(strip_start(s))
}

/// Whether `b`, the first byte of a line, may open a decoration (ASCII
/// marks, list markers, or a non-ASCII character): a line starting with
/// anything else is never read by a rule here.
#[inline]
pub(crate) fn may_decorate(b: u8) -> bool {
    !b.is_ascii()
        || is_mark(b)
        || matches!(b, b'-' | b'+' | b'[' | b' ' | b'\t')
        || b.is_ascii_digit()
}

/// `**x**`, `__x__`, `*x*`, `_x_`: the text inside emphasis around the
/// whole of `v`, when there is some.
#[inline]
pub(crate) fn unemphasise(v: &str) -> Option<&str> {
    // Most values open with a letter or digit: no emphasis to look for.
    if !matches!(v.as_bytes().first(), Some(b'*' | b'_')) {
        return None;
    }
    for mark in ["***", "**", "__", "*", "_"] {
        if let Some(inner) = v
            .strip_prefix(mark)
            .and_then(|r| r.strip_suffix(mark))
            .map(trim)
        {
            if !inner.is_empty() {
                return Some(inner);
            }
        }
    }
    None
}

/// `"x"`: the text inside quotes around the whole of `v`, when there is
/// some and it holds no quote of its own (`"a" or "b"` is two quotes,
/// read as written). Not `“x”`: its first byte is a glyph's too (`✅`), and
/// testing for it cost the plain message's values ~5 instructions and the
/// agents corpus ~500 a round.
pub(crate) fn unquote(v: &str) -> Option<&str> {
    let inner = trim(v.strip_prefix('"')?.strip_suffix('"')?);
    (!inner.is_empty() && !inner.contains('"')).then_some(inner)
}

/// A label line in one of the decorated forms: up to three spaces, then any
/// of a list marker (`-`, `*`, `+`, `1.`, `2)`), a task box (`[x]`), glyphs
/// (`📊`, `✅`) and emphasis (`**`, `*`, `__`, `_`), then the label, with
/// the colon inside or outside the emphasis. `None` for the plain forms
/// [`field_line`] reads (call it first) and for anything else.
#[inline]
pub(crate) fn decorated_field(line: &str) -> Option<FieldLine<'_>> {
    match bold_label(line) {
        Some(f) => Some(f),
        None => decorated_field_rest(line),
    }
}

/// [`decorated_field`] of its usual line, a bold label (`**Bead**: ol-7`,
/// `- **Commit**: abc`, `**Subject:** x`): a bullet and one space or
/// nothing before the `**`, an ASCII label that opens with a letter, its
/// colon after the emphasis or inside it. Read in one pass over its
/// bytes, as the general rule reads it (a test holds the two alike),
/// where that rule's marker, glyph, emphasis and label steps cost ~340
/// instructions a line. (In a body the field grammar reads a colon
/// inside the emphasis before this rule is asked; a header line that
/// opens with `*` comes here first.) `None` for any other line, which the
/// general rule reads.
#[inline]
fn bold_label(line: &str) -> Option<FieldLine<'_>> {
    bold_label_parts(line).map(|(f, ..)| f)
}

/// A bold label's field as the body index reads it (see
/// `body::marked_field_line`), and whether the field grammar reads it so
/// too: with the colon inside the emphasis or no closing marks (`- **Bead:**
/// ol-7`, `**Bead: x`), the grammar's reading of the line (the same
/// prelude, label and value, when the label's run is no longer than a
/// label may be: the grammar stops looking there); with the colon after
/// the emphasis (`**Bead**: ol-7`), a line in which the grammar finds no
/// field (its label ends at the `*`), the decorated rule's. `None` for
/// any other line. (Both tested: the bold label read once, where the
/// grammar read it first and the decorated rule again.)
#[inline(always)]
pub(crate) fn bold_label_read(line: &str) -> Option<(FieldLine<'_>, bool)> {
    match bold_label_parts(line)? {
        (f, false, _) => Some((f, false)),
        (f, true, run) if run <= 48 => Some((f, true)),
        _ => None,
    }
}

/// [`bold_label`], whether its colon is inside the emphasis (or has no
/// closing marks), and the length of the label's run of bytes before
/// its blanks are trimmed.
#[inline(always)]
fn bold_label_parts(line: &str) -> Option<(FieldLine<'_>, bool, usize)> {
    let b = line.as_bytes();
    let at = match b {
        [b'-' | b'*' | b'+', b' ', b'*', b'*', ..] => 4,
        [b'*', b'*', ..] => 2,
        _ => return None,
    };
    if !b.get(at)?.is_ascii_alphabetic() {
        return None;
    }
    let mut end = at + 1;
    while end < b.len() && LABEL_BYTES[usize::from(b[end])] {
        end += 1;
    }
    // The colon after the emphasis or inside it (the closing `**` after
    // it, or none).
    let (from, inside) = match b.get(end..)? {
        [b'*', b'*', b':', ..] => (end + 3, false),
        [b':', b'*', b'*', ..] => (end + 3, true),
        [b':', ..] => (end + 1, true),
        _ => return None,
    };
    // Every cut is after an ASCII byte: on a character boundary.
    let label = trim_end_blanks(line.get(at..end)?);
    if label.len() > 48 {
        return None;
    }
    let value = trim_end_blanks(trim_start_blanks(line.get(from..)?));
    Some((FieldLine { label, value }, inside, end - at))
}

/// Whether `b` opens with `n` stars (`n` is at most 3): byte by byte,
/// where `starts_with` on a slice of `***` called `memcmp` (~11
/// instructions a call and the call itself, 58 calls a round of the
/// agents corpus).
#[inline(always)]
fn opens_with_stars(b: &[u8], n: usize) -> bool {
    b.get(..n).is_some_and(|s| s.iter().all(|&c| c == b'*'))
}

/// [`decorated_field_rest`] of the lines it mostly gets: a marker (a
/// bullet or a number) and one space, then a label or one to three `*`
/// and a label (`1. Bead: ol-7`, `3. **Reason:** z`, `- *Step*: 2`,
/// `*To*: x`; an emoji for the marker, `📊 Context usage: 38%`), or
/// one to three `*` and a label with no marker: decided
/// from one scan of the label's ASCII bytes, field or no field, as the
/// general rule decides it (its marker, glyph, emphasis and label steps
/// take the same path on these lines; a test holds the two alike), ~200
/// instructions a line less. `None` (undecided) for any other line, and
/// for a label that runs on into a non-ASCII byte: the general rule
/// reads those.
#[inline(always)]
fn marked_label(line: &str) -> Option<Option<FieldLine<'_>>> {
    let b = line.as_bytes();
    // The marker and the one space after it, or an emoji and the one
    // space after it (`📊 Context usage:`; no marker opens with a
    // non-ASCII byte, and an emoji is a glyph, see `is_glyph`).
    let at = match b {
        [b'-' | b'*' | b'+', b' ', ..] => 2,
        [b'0'..=b'9', ..] => {
            let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
            match b.get(digits..)? {
                [b'.' | b')', b' ', ..] => digits + 2,
                _ => return None,
            }
        }
        [c, ..] if !c.is_ascii() => {
            let glyph = line.chars().next().filter(|&g| is_emoji(g))?;
            let after = glyph.len_utf8();
            match b.get(after) {
                Some(b' ') => after + 1,
                _ => return None,
            }
        }
        _ => 0,
    };
    let stars = b.get(at..)?.iter().take_while(|&&c| c == b'*').count();
    // Neither marker nor emphasis: an indent, a glyph, a task box or no
    // decoration, for the general rule.
    if stars > 3 || (at == 0 && stars == 0) {
        return None;
    }
    let start = at + stars;
    match b.get(start)? {
        c if c.is_ascii_alphabetic() => {}
        // `_` joins the emphasis, `` ` `` opens a label in code, `[` after
        // a marker opens a task box, and blanks after a marker are passed
        // over (and `*` and a tab is a bullet): the general rule reads on.
        b'_' | b'`' | b' ' | b'\t' => return None,
        b'[' if stars == 0 => return None,
        // Any other ASCII byte opens no label (`**[ol-7] DONE**`,
        // `- 10:32 ...`, `1. 2x`): no field.
        c if c.is_ascii() => return Some(None),
        _ => return None,
    }
    let mut end = start + 1;
    while end < b.len() && LABEL_BYTES[usize::from(b[end])] {
        end += 1;
    }
    // The colon after the emphasis or inside it (the closing marks after
    // it, or none).
    let rest = b.get(end..)?;
    let from = match rest {
        // A label in another script: the general rule reads on.
        [c, ..] if !c.is_ascii() => return None,
        _ => match rest
            .get(stars..)
            .filter(|_| stars > 0 && opens_with_stars(rest, stars))
        {
            Some([b':', ..]) => end + stars + 1,
            Some(_) => return Some(None),
            None => match rest {
                [b':', after @ ..] if opens_with_stars(after, stars) => end + 1 + stars,
                [b':', ..] => end + 1,
                _ => return Some(None),
            },
        },
    };
    // Every cut is after an ASCII byte: on a character boundary.
    let label = trim_end_blanks(line.get(start..end)?);
    if label.len() > 48 {
        return Some(None);
    }
    let value = trim_end_blanks(trim_start_blanks(line.get(from..)?));
    Some(Some(FieldLine { label, value }))
}

/// [`decorated_field`] of any line but [`bold_label`]'s.
#[inline(never)]
fn decorated_field_rest(line: &str) -> Option<FieldLine<'_>> {
    match marked_label(line) {
        Some(decided) => decided,
        None => decorated_field_general(line),
    }
}

/// [`decorated_field_rest`] of the lines [`marked_label`] leaves.
#[inline(always)]
fn decorated_field_general(line: &str) -> Option<FieldLine<'_>> {
    let first = *line.as_bytes().first()?;
    if !may_decorate(first) {
        return None;
    }
    // The marker and the byte after it, on bytes: this runs on every body
    // line that opens with a bullet or a digit (a log of `- 10:32 ...`
    // lines), and the `char` patterns it was written with cost several
    // times more.
    let b = line.as_bytes();
    let indent = b.iter().take_while(|&&c| c == b' ').count();
    if indent > 3 {
        return None;
    }
    let blanks = |from: usize| {
        from + b
            .get(from..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count()
    };
    let is_blank = |i: usize| matches!(b.get(i), Some(b' ' | b'\t'));
    let mut at = indent;
    // A list marker: a bullet or a number, then blanks.
    if matches!(b.get(at), Some(b'-' | b'*' | b'+')) {
        if is_blank(at + 1) {
            at = blanks(at + 1);
        }
    } else {
        let digits = b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 {
            if !matches!(b.get(at + digits), Some(b'.' | b')')) || !is_blank(at + digits + 1) {
                return None;
            }
            at = blanks(at + digits + 1);
        }
    }
    // What follows the marker must open a label, emphasis, a task box or
    // a glyph: a log line (`- 10:32 ...`) is ruled out here, by one byte.
    match b.get(at) {
        Some(b)
            if b.is_ascii_alphabetic()
                || matches!(b, b'*' | b'_' | b'`' | b'[')
                || !b.is_ascii() => {}
        _ => return None,
    }
    // Every cut so far is after an ASCII byte: on a character boundary.
    let mut s = line.get(at..)?;
    // A task box.
    if s.starts_with('[') {
        for tick in ["[x] ", "[X] ", "[ ] "] {
            if let Some(rest) = s.strip_prefix(tick) {
                s = trim_start_blanks(rest);
            }
        }
    }
    // Glyphs, each followed by blanks (`✅ Tests:`, `📊 Context usage:`).
    while s.chars().next().is_some_and(is_glyph) {
        let glyphs = s.char_indices().find(|&(_, c)| !is_glyph(c));
        let after = s
            .get(glyphs.map_or(s.len(), |(at, _)| at)..)
            .unwrap_or_default();
        if !after.starts_with([' ', '\t']) {
            return None;
        }
        s = trim_start_blanks(after);
    }
    // Emphasis around the label, or a code span (`` `Bead`: ``), the
    // colon inside or outside it (its marks counted on bytes: the `char`
    // pattern decoded each).
    let open = match s.bytes().take_while(|&c| c == b'`').count() {
        0 => s.bytes().take_while(|&c| c == b'*' || c == b'_').count(),
        ticks => ticks,
    };
    let mark = &s[..open];
    s = &s[open..];
    let label_len = label_run(s);
    // `_` may end an emphasised label (`_Status_:`): it is not part of it.
    let label_len = if mark.contains('_') {
        s[..label_len].trim_end_matches('_').len()
    } else {
        label_len
    };
    let label = trim_end_blanks(&s[..label_len]);
    let opens_with_letter = match label.as_bytes().first() {
        Some(c) if c.is_ascii() => c.is_ascii_alphabetic(),
        _ => label.starts_with(char::is_alphabetic),
    };
    if label.is_empty() || label.len() > 48 || !opens_with_letter {
        return None;
    }
    let mut rest = &s[label_len..];
    if open > 0 {
        // `**Label**:` or `**Label:**` (and `*`, `_`, `__`).
        if let Some(r) = rest.strip_prefix(mark) {
            rest = r.strip_prefix(':')?;
        } else {
            rest = rest.strip_prefix(':')?;
            rest = rest.strip_prefix(mark).unwrap_or(rest);
        }
    } else {
        rest = rest.strip_prefix(':')?;
    }
    let value = trim_end_blanks(trim_start_blanks(rest));
    Some(FieldLine { label, value })
}

/// The length of the run of label characters (letters and digits of any
/// script, space, `-`, `_`, `/`) that `s` opens with: ASCII bytes tested
/// as bytes, `char`s decoded only from a non-ASCII byte on (a label in
/// another script), where a `char` search decoded every one.
#[inline]
fn label_run(s: &str) -> usize {
    let is_label = |c: char| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '/');
    // The field grammar's table: the ASCII label bytes, no others.
    let ascii = s
        .bytes()
        .take_while(|&c| LABEL_BYTES[usize::from(c)])
        .count();
    match (s.as_bytes().get(ascii), s.get(ascii..)) {
        (Some(c), Some(rest)) if !c.is_ascii() => {
            ascii + rest.find(|c: char| !is_label(c)).unwrap_or(rest.len())
        }
        _ => ascii,
    }
}

/// A title after its number, as agents number sections (`1. Problem`,
/// `3) Files Touched`, `2: What I Tried`): up to three digits, then `.`,
/// `)` or `:`, then a blank; the rest, its blanks trimmed. `None` for a
/// title with no such number (`2024 roadmap`, `1.5 notes`).
pub(crate) fn unnumbered(title: &str) -> Option<&str> {
    let b = title.as_bytes();
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if !(1..=3).contains(&digits) {
        return None;
    }
    match b.get(digits..)? {
        // Every cut is after an ASCII byte: on a character boundary.
        [b'.' | b')' | b':', b' ' | b'\t', ..] => Some(trim_start_blanks(&title[digits + 1..])),
        _ => None,
    }
}

/// A value that is one markdown link, `[text](target)`
/// (`` [`9f3c2e1`](https://git.example/commit/9f3c2e1) ``,
/// `[src/a.rs](src/a.rs)`): its text, code ticks trimmed. `None` for any
/// other value (`[WIP]`, two links, a target with a blank).
pub(crate) fn link_text(v: &str) -> Option<&str> {
    let inner = v.strip_prefix('[')?;
    // `]` and `(` are ASCII: every cut is on a character boundary.
    let close = crate::find::byte(inner.as_bytes(), b']')?;
    let target = inner[close + 1..].strip_prefix('(')?.strip_suffix(')')?;
    let tb = target.as_bytes();
    if tb.is_empty()
        || tb
            .iter()
            .any(|&c| matches!(c, b' ' | b'\t' | b'(' | b')' | b'[' | b']'))
    {
        return None;
    }
    let text = trim(&inner[..close]);
    if text.contains('[') {
        return None;
    }
    let text = trim(text.trim_matches('`'));
    (!text.is_empty()).then_some(text)
}

/// A line that is only an emphasised title, `**Problem**` or
/// `**Question:**` (the colon inside or outside): the title. Agents use it
/// for a heading.
pub(crate) fn emphasised_title(line: &str) -> Option<&str> {
    let t = trim(line);
    let inner = unemphasise(t.strip_suffix(':').unwrap_or(t))?;
    let inner = inner.strip_suffix(':').unwrap_or(inner);
    (!inner.contains(['*', '_'])).then_some(inner)
}

/// A fence line that opens a block: ```` ``` ```` or `~~~`, maybe with an
/// info word (```` ```markdown ````).
fn is_opening_fence(line: &str) -> bool {
    is_fence(line)
}

/// A fence line with nothing after the marks: the close of a block.
fn is_closing_fence(line: &str) -> bool {
    let t = trim(line);
    t.len() >= 3 && (t.bytes().all(|b| b == b'`') || t.bytes().all(|b| b == b'~'))
}

/// `lines` wrapped whole in one fenced block (the first and last non-blank
/// lines are its fences, and no fence is between them): the index of the
/// opening fence and the lines inside.
pub(crate) fn fenced_whole<'l, 'a>(lines: &'l [Line<'a>]) -> Option<(usize, &'l [Line<'a>])> {
    let open = lines.iter().position(|l| !l.is_blank())?;
    if !is_opening_fence(lines[open].text) {
        return None;
    }
    let close = lines.iter().rposition(|l| !l.is_blank())?;
    if close <= open || !is_closing_fence(lines[close].text) {
        return None;
    }
    let inner = &lines[open + 1..close];
    if inner
        .iter()
        .any(|l| crate::grammar::is_fence_inline(l.text))
    {
        return None;
    }
    Some((open, inner))
}

/// What a document-level rule read: the lines the message is in, and a
/// note (line index, message) per normalisation.
pub(crate) struct Unwrapped<'a> {
    pub start: usize,
    pub end: usize,
    /// At most two (prose, a fence), on the stack: a list allocated and
    /// freed was ~250 instructions of a document with prose before it.
    pub notes: SmallVec<[(usize, Note<'a>); 2]>,
}

/// Whether the document's first line opens with `Subject:` (in any
/// case): the usual document, which has no prose or fence before it to
/// unwrap ([`unwrap_document`] is not asked) and which framing reads as
/// spec text at once (`framing::spec_text_document`). Decided once, by
/// one word compare, for both: the prose rule and framing each decided it
/// again from the first line (~55 instructions a message).
#[inline(always)]
pub(crate) fn opens_with_subject(lines: &[Line<'_>]) -> bool {
    const SUBJECT: [crate::words::Name<()>; 1] = [crate::words::name(b"subject:", ())];
    lines.first().is_some_and(|l| {
        l.text
            .as_bytes()
            .get(..8)
            .is_some_and(|h| crate::words::find(&SUBJECT, h).is_some())
    })
}

/// What [`unwrap_document`] found.
// Returned once a document, by the prose rule only (a document that
// opens with `Subject:` never makes one): its notes on the stack are the
// point (boxed, they would be the allocation they replace).
#[allow(clippy::large_enum_variant)]
pub(crate) enum Unwrap<'a> {
    /// Prose before the message or a fence around it.
    Lines(Unwrapped<'a>),
    /// Neither, and the first non-blank line is no header and opens no
    /// framing of its own (`{`, `[`, `---json`): the document is a bare
    /// body, which `framing::bare_document` reads without testing that
    /// line as a header again (a decorated first line such as
    /// `**[ol-7] DONE**` cost ~150 a test).
    Bare,
    /// Neither; the framings read the document.
    Framing,
}

/// Prose before the message and a fence around it, at the document level,
/// in a document that does not open with `Subject:` (see
/// [`opens_with_subject`]): `Here is my progress update:` then `Subject:
/// ...`, or the whole message in a ```` ``` ```` block (after prose or
/// not). `header` says whether a line is a spec header (`Some(true)` for
/// `Subject:`, `Some(false)` for another), `is_message_line` whether a
/// line is something the parser reads in a bare body (a type line, a
/// known label). [`Unwrap::Bare`] or [`Unwrap::Framing`] when neither
/// applies. Out of line: the usual document never calls it.
#[inline(never)]
pub(crate) fn unwrap_document<'a>(
    doc: &'a str,
    lines: &[Line<'a>],
    header: impl Fn(&Line<'_>) -> Option<bool>,
    is_message_line: impl Fn(&Line<'_>) -> bool,
) -> Unwrap<'a> {
    let Some(first) = lines.iter().position(|l| !l.is_blank()) else {
        return Unwrap::Framing;
    };
    let head = trim(lines[first].text);
    // Framings that open with their own marks, and headers, are framing's.
    if head.starts_with(['{', '[']) || head == "---json" || header(&lines[first]).is_some() {
        return Unwrap::Framing;
    }
    match prose_or_fence(doc, lines, first, header, is_message_line) {
        Some(u) => Unwrap::Lines(u),
        None => Unwrap::Bare,
    }
}

/// [`unwrap_document`] past its first non-blank line, `lines[first]`,
/// which is neither a header nor a framing's mark.
#[inline(always)]
fn prose_or_fence<'a>(
    doc: &'a str,
    lines: &[Line<'a>],
    first: usize,
    header: impl Fn(&Line<'_>) -> Option<bool>,
    is_message_line: impl Fn(&Line<'_>) -> bool,
) -> Option<Unwrapped<'a>> {
    let head = trim(lines[first].text);
    let is_subject = |l: &Line<'_>| header(l) == Some(true);
    let mut notes = SmallVec::new();
    let mut at = first;
    // Up to three lines of prose before a `Subject:` line or a fence.
    if !is_opening_fence(lines[first].text) {
        let mut seen = 0;
        let mut found = None;
        // Line by line: a run of inert lines (see `lines`) counts as the
        // lines it holds. Whether the prose lines are message lines is
        // asked only once a `Subject:` or a fence is found after them (a
        // message line before it, read first, would have ended the search
        // with nothing found): a bare body that opens with a line of
        // prose is decided without asking (its lines were asked twice,
        // here and by the body's type line rule, ~1,100 instructions each).
        let mut prose: SmallVec<[Line<'a>; 3]> = SmallVec::new();
        for (i, l) in physical_indexed(doc, &lines[first..]) {
            let i = i + first;
            if l.is_blank() {
                continue;
            }
            // Read once: a line's header test is most of what this loop
            // costs. The first line's was read above (no header): it is
            // the first physical line of `lines[first]`, which is not
            // blank (tested again, a decorated first line such as
            // `**[ol-7] DONE**` cost ~150 more). A line that cannot be
            // `Subject:` is not tested here: another header before the
            // `Subject:` or the fence ends the search with nothing found,
            // as no `Subject:` and no fence does, so such a line is
            // tested only once one is found (below).
            let h = if seen == 0 || !may_name_subject(l.text) {
                None
            } else {
                header(&l)
            };
            if h == Some(true) || is_opening_fence(l.text) {
                found = Some(i);
                break;
            }
            if h.is_some() {
                return None;
            }
            seen += 1;
            if seen > 3 {
                break;
            }
            prose.push(l);
        }
        let found = found?;
        // The lines passed over untested: a header among them ends the
        // search (the first line was tested by the caller).
        if prose.iter().skip(1).any(|l| header(l).is_some()) {
            return None;
        }
        if prose.iter().any(&is_message_line) {
            return None;
        }
        if is_opening_fence(lines[found].text) && !fence_holds_message(lines, found, &is_subject) {
            return None;
        }
        let (kept, cut) = shorten(head);
        notes.push((
            first,
            Note::join(&[
                "prose before the message (`",
                kept,
                cut,
                "`) is not part of it",
            ]),
        ));
        at = found;
    }
    if is_opening_fence(lines[at].text) {
        let close = lines[at + 1..]
            .iter()
            .position(|l| is_fence(l.text))
            .map(|p| p + at + 1)?;
        let inner_first = lines[at + 1..close].iter().find(|l| !l.is_blank())?;
        let after_blank = lines[close + 1..].iter().all(Line::is_blank);
        if !(is_subject(inner_first) || (after_blank && is_message_line(inner_first))) {
            return None;
        }
        notes.push((
            at,
            "the message is wrapped in a fenced code block; read as the text inside it".into(),
        ));
        return Some(Unwrapped {
            start: at + 1,
            end: close,
            notes,
        });
    }
    Some(Unwrapped {
        start: at,
        end: lines.len(),
        notes,
    })
}

/// Whether `line` holds `subject` in any case: a `Subject:` header does,
/// in every spelling and decoration the header test reads (its label is
/// that word, a slice of the line). Asked of each line of the prose rule's
/// search, where the header test it spares cost ~250 a line (a bare
/// body's first lines: `Bead: ol-7`, `- **Commit**: x`, `## Summary`).
#[inline]
fn may_name_subject(line: &str) -> bool {
    // Found by its `j`, the word's rare letter, in a loop over the bytes:
    // the lines are short, and `memchr2_iter` on `s` was ~170 a line.
    let b = line.as_bytes();
    (3..b.len()).any(|j| {
        b[j] | 0x20 == b'j'
            && b.get(j - 3..j + 4)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"subject"))
    })
}

fn fence_holds_message(
    lines: &[Line<'_>],
    open: usize,
    is_subject: &impl Fn(&Line<'_>) -> bool,
) -> bool {
    lines[open + 1..]
        .iter()
        .find(|l| !l.is_blank())
        .is_some_and(is_subject)
}

/// The piece after a [`shorten`]ed quote: `cut` (`…` or nothing) and the
/// static text `after` in one piece, so that a note of six pieces is held
/// in five (see [`crate::Note`]).
macro_rules! cut_then {
    ($cut:expr, $after:literal) => {
        if $cut.is_empty() {
            $after
        } else {
            concat!("…", $after)
        }
    };
}
pub(crate) use cut_then;

/// At most 40 characters of `s`, for a note: what is kept, and `…` when
/// something was cut (`""` when not), as two pieces of the note (see
/// [`crate::Note`]).
pub(crate) fn shorten(s: &str) -> (&str, &'static str) {
    // No more bytes than that, no more characters: most notes quote a
    // short label or heading, and counting characters decodes each.
    if s.len() <= 40 {
        return (s, "");
    }
    // Forty ASCII bytes are forty characters.
    if let Some(head) = s.get(..40).filter(|h| h.is_ascii()) {
        return (head, "…");
    }
    match s.char_indices().nth(40) {
        Some((at, _)) => (&s[..at], "…"),
        None => (s, ""),
    }
}

/// An id-like value with a note after it: `ol-1 (auth)`, `` `a1b2c3d`
/// (feat: x) ``, `ol-1 — auth`: the id. `None` when `v` is one word or the
/// words after the first are not a note.
#[inline]
pub(crate) fn id_before_note(v: &str) -> Option<&str> {
    // An id is one word: most values have no blank to split at.
    // (Eight bytes at a time, see `find`: ids are a few bytes, shorter
    // than a SIMD search's set-up.)
    let at = crate::find::blank(v.as_bytes())?;
    // A blank is ASCII: both sides are on character boundaries.
    let (first, rest) = (&v[..at], &v[at + 1..]);
    let rest = rest.trim_start();
    let is_note = rest.starts_with(['(', '-', '—', '–', ':', '#', '['])
        || rest.starts_with(is_decoration_char);
    let id = first.trim_matches(|c: char| c == '`' || c == '*' || c == '_');
    (is_note && !id.is_empty()).then_some(id)
}

fn is_decoration_char(c: char) -> bool {
    !c.is_ascii() && !c.is_alphanumeric()
}

/// A list item that is a file with a note: `` `src/a.rs` — new ``,
/// `src/b.rs (new)`, `**src/c.rs**`: the file. `None` when the item is
/// already plain.
pub(crate) fn file_item(item: &str) -> Option<&str> {
    if let Some(inner) = item.strip_prefix('`') {
        // `` ` `` is ASCII: the cut is on a character boundary.
        let end = crate::find::byte(inner.as_bytes(), b'`')?;
        let file = trim(&inner[..end]);
        let rest = trim(&inner[end + 1..]);
        if !file.is_empty() && (rest.is_empty() || !rest.starts_with(',')) && end + 1 < inner.len()
        {
            return Some(file);
        }
        return None;
    }
    if let Some(inner) = unemphasise(item) {
        return Some(inner.trim_matches('`'));
    }
    // A blank is ASCII: the cut is on a character boundary. (Eight bytes
    // at a time, see `find`; `split_once` on two `char`s decoded each.)
    let first = &item[..crate::find::blank(item.as_bytes())?];
    let looks_like_path = first.contains(['/', '.']) && !first.ends_with('.');
    (looks_like_path && id_before_note(item).is_some()).then_some(first.trim_matches('`'))
}

/// Files written as backtick spans with only blanks between them:
/// `` `a.rs` `b.rs` ``. `None` unless there are at least two spans.
#[inline]
pub(crate) fn backtick_spans(v: &str) -> Option<Vec<&str>> {
    if !v.starts_with('`') || crate::find::has(v.as_bytes(), b',') {
        return None;
    }
    let mut out = Vec::new();
    let mut rest = v;
    while let Some(r) = rest.strip_prefix('`') {
        let end = crate::find::byte(r.as_bytes(), b'`')?;
        let item = trim(&r[..end]);
        if !item.is_empty() {
            out.push(item);
        }
        rest = r[end + 1..].trim_start();
    }
    (rest.is_empty() && out.len() >= 2).then_some(out)
}

/// A line after an empty list label that is one file on its own line (no
/// marker): one word with a `.` or `/` (a path, not `none`), no colon, not
/// a heading or a fence.
pub(crate) fn bare_file_line(line: &str) -> Option<&str> {
    let t = trim(line).trim_matches('`');
    let ok = t.contains(['.', '/'])
        && !t.contains([' ', '\t', ':'])
        && !t.starts_with(['#', '`', '~', '-', '*', '+'])
        && field_line(line).is_none();
    ok.then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_around_a_value() {
        assert_eq!(unquote("\"Add the lexer\""), Some("Add the lexer"));
        assert_eq!(unquote("\" x \""), Some("x"));
        for left in ["\"a\" or \"b\"", "\"\"", "\"", "“x”", "x", "\"open"] {
            assert_eq!(unquote(left), None, "{left}");
        }
    }

    /// A cut quote's mark and the text after it, as one piece, are the
    /// two pieces they stand for.
    #[test]
    fn cut_then_is_the_cut_and_the_text() {
        for s in ["short", &"x".repeat(60), &"é".repeat(60)] {
            let (_, cut) = shorten(s);
            assert_eq!(cut_then!(cut, "` reads as `"), format!("{cut}` reads as `"));
        }
    }

    proptest::proptest! {
        /// A line `may_name_subject` refuses is no `Subject:` header, in
        /// any spelling or decoration the header test reads; and it finds
        /// the word as a search in small letters does.
        #[test]
        fn subject_headers_name_the_subject(
            line in r"[ ]{0,2}(- |\* |\+ |1\. |2\) |> |✅ |📧 |- \[x\] )?(\*\*\*|\*\*|\*|__|_)?(Subject|SUBJECT|subject|sUbJeCt|Subjec|Subjekt|Sub ject|Bead|From|[a-zA-Z_ -]{0,10})(\*\*\*|\*\*|\*|__|_)?[ \t]{0,2}:?(\*\*|_)?[ ]?[a-z\[\] 0-9:-]{0,20}",
            any in "\\PC{0,60}",
        ) {
            for l in [&line, &any] {
                proptest::prop_assert_eq!(
                    may_name_subject(l),
                    l.to_ascii_lowercase().contains("subject")
                );
                for read in crate::lines::split_lines(l, 1) {
                    if !may_name_subject(read.text) {
                        proptest::prop_assert_ne!(crate::framing::header_kind(&read), Some(true));
                    }
                }
            }
        }

        /// The byte-wise strips remove what the `char` patterns removed.
        #[test]
        fn strips_are_the_char_patterns(
            s in "([*_`#>~| \t\n\u{b}\u{c}\r\u{a0}\u{3000}\u{2028}✅🧩\u{fe0f}\u{200d}→•]|[a-zé٣Ⅻ:.,]){0,12}"
        ) {
            let pattern = |c: char| is_decoration(c) || c.is_whitespace();
            proptest::prop_assert_eq!(strip_start(&s), s.trim_start_matches(pattern));
            proptest::prop_assert_eq!(strip_end(&s), s.trim_end_matches(pattern));
            let is_label = |c: char| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '/');
            proptest::prop_assert_eq!(label_run(&s), s.find(|c: char| !is_label(c)).unwrap_or(s.len()));
        }
    }

    proptest::proptest! {
        /// A note's quote is the first 40 characters, `…` when cut.
        #[test]
        fn shorten_keeps_forty_characters(s in "[a-z é🧩]{0,50}") {
            let (kept, cut) = shorten(&s);
            let forty: String = s.chars().take(40).collect();
            proptest::prop_assert_eq!(kept, forty.as_str());
            proptest::prop_assert_eq!(cut, if s.chars().count() > 40 { "…" } else { "" });
        }
    }

    fn f(line: &str) -> Option<(&str, &str)> {
        decorated_field(line).map(|f| (f.label, f.value))
    }

    /// A bold label read in one pass reads as the general rule reads it:
    /// every mix of bullets, emphasis, labels (edges of the label bytes,
    /// lengths about 48, non-ASCII), closings and values.
    #[test]
    fn bold_labels_read_as_the_general_rule() {
        let long = |n: usize| "a".repeat(n);
        let labels = [
            "Bead".to_string(),
            "Context usage".into(),
            "Bead id ".into(),
            "Bead\t".into(),
            " Bead".into(),
            "Bead_x".into(),
            "B/x-y".into(),
            "x*y".into(),
            "1abc".into(),
            "[ab-13] PROGRESS".into(),
            "10:32 run 1".into(),
            "#x".into(),
            "-x".into(),
            "\tBead".into(),
            "(a)".into(),
            "Bé".into(),
            "é".into(),
            "_a_".into(),
            String::new(),
            long(47),
            long(48),
            long(49),
            format!("{} ", long(48)),
        ];
        let (mut fast, mut marked, mut found) = (0, 0, 0);
        for bullet in [
            "",
            "- ",
            "* ",
            "+ ",
            "-",
            "-  ",
            " - ",
            "*",
            "1. ",
            "[x] ",
            "12) ",
            "3.",
            "4)  ",
            "5.\t",
            "6 ",
            "7: ",
            "- 1. ",
            "1. - ",
            "📊 ",
            "🔖 ",
            "✅ ",
            "✅\u{fe0f} ",
            "★ ",
            "é ",
            "📊  ",
            "📊\t",
            "📊",
            "- 📊 ",
            "\u{a0} ",
            "📊📍 ",
        ] {
            for open in [
                "**", "*", "_", "__", "***", "", "****", "*_", "_*", "`", "``", "*`",
            ] {
                for label in &labels {
                    for close in [
                        "**:", ":**", "*:", ":", "**", "** :", "**::", "__:", "***:", ":*", ":***",
                        "*", ":_", "_:", "****:", ": ", "`:", ":`", "``:", "`*:", "`",
                    ] {
                        for value in [
                            "",
                            " x",
                            "x",
                            "  ol-1  ",
                            "\t`a` b",
                            " **PASS**",
                            " ✅ ok",
                            " \u{a0}v\u{3000}",
                        ] {
                            let line = format!("{bullet}{open}{label}{close}{value}");
                            if let Some(f) = bold_label(&line) {
                                fast += 1;
                                assert_eq!(Some(f), decorated_field_rest(&line), "{line:?}");
                            }
                            // Decided by the one scan, field or none, as
                            // the general rule decides it.
                            if let Some(decided) = marked_label(&line) {
                                marked += 1;
                                found += usize::from(decided.is_some());
                                assert_eq!(decided, decorated_field_general(&line), "{line:?}");
                            }
                        }
                    }
                }
            }
        }
        assert!(fast > 100, "{fast}");
        assert!(marked > 10_000 && found > 1_000, "{marked} {found}");
    }

    /// A bold label read once for the body index reads as the field
    /// grammar reads it where the grammar reads it (the colon inside the
    /// emphasis), and where the grammar finds no field (the colon after
    /// it) as the decorated rule does.
    #[test]
    fn bold_labels_read_once_read_as_the_grammar_or_the_decorated_rule() {
        let (mut grammar, mut decorated) = (0, 0);
        let long = |n: usize| "a".repeat(n);
        let labels = [
            "Bead".to_string(),
            "Context usage".into(),
            "Bead id ".into(),
            "x*y".into(),
            "Bé".into(),
            "a_b".into(),
            format!("{} ", long(47)),
            format!("{}  ", long(47)),
            long(48),
            long(49),
            format!("{} ", long(48)),
        ];
        for bullet in ["", "- ", "* ", "+ ", "-", "1. ", "  ", "-  ", "\t"] {
            for open in ["**", "*", "***", ""] {
                for label in &labels {
                    for close in [
                        "**:", ":**", "**", ":", "** :", "**::", "***:", ":***", ":*",
                    ] {
                        for value in ["", " x", "x", "  ol-1  ", " **PASS**", " a: b", "\t`v`\t"] {
                            let long_value = "y".repeat(70);
                            for value in [value, long_value.as_str()] {
                                let line = format!("{bullet}{open}{label}{close}{value}");
                                match bold_label_read(&line) {
                                    Some((f, true)) => {
                                        grammar += 1;
                                        assert_eq!(
                                            crate::grammar::field_line(&line),
                                            Some(f),
                                            "{line:?}"
                                        );
                                    }
                                    Some((f, false)) => {
                                        decorated += 1;
                                        assert_eq!(
                                            crate::grammar::field_line(&line),
                                            None,
                                            "{line:?}"
                                        );
                                        assert_eq!(Some(f), decorated_field(&line), "{line:?}");
                                    }
                                    None => {}
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(grammar > 100 && decorated > 100, "{grammar} {decorated}");
    }

    /// The usual bold and marked labels take one of the one-pass
    /// readings, and read as the general rule reads them.
    #[test]
    fn usual_bold_labels_take_the_one_pass() {
        for line in [
            "**Subject:** [ol-7] DONE",
            "- **From:**  TealHeron",
            "**Bead**: ol-1",
            "- **Commit**: `abc123def`",
            "* **Context usage**:  64% ",
            "+ **Files touched**: a.rs, b.rs",
            "**Status**:",
            "- **Bead id **: x",
            "1. Bead: ol-7",
            "12) **Reason:** z",
            "*To*: BlueLake",
            "- Step: Step 1",
            "- *Context usage:* 64%",
        ] {
            let read = bold_label(line).or_else(|| marked_label(line).flatten());
            assert!(read.is_some(), "{line:?}");
            assert_eq!(read, decorated_field_general(line), "{line:?}");
        }
    }

    #[test]
    fn decorated_labels() {
        assert_eq!(f("**Bead**: ol-1"), Some(("Bead", "ol-1")));
        assert_eq!(f("- *Status*: ok"), Some(("Status", "ok")));
        assert_eq!(f("- _Status_: ok"), Some(("Status", "ok")));
        assert_eq!(f("- *Context usage:* 64%"), Some(("Context usage", "64%")));
        assert_eq!(f("1. Step: read"), Some(("Step", "read")));
        assert_eq!(f("2) **Type:** ERROR"), Some(("Type", "ERROR")));
        assert_eq!(f("📊 Context usage: 38%"), Some(("Context usage", "38%")));
        assert_eq!(f("- [x] Tests: PASS"), Some(("Tests", "PASS")));
        assert_eq!(f("- ✅ Tests: PASS"), Some(("Tests", "PASS")));
        assert_eq!(f("Bead: plain"), None, "plain lines are field_line's");
        assert_eq!(f("10:32 build started"), None);
        assert_eq!(f("- 10:32 build started"), None);
        assert_eq!(f("    **Bead**: code"), None);
        assert_eq!(f("**Bead** ol-1"), None);
        assert_eq!(f("1.5: x"), None);
    }

    #[test]
    fn numbered_titles() {
        assert_eq!(unnumbered("1. Problem"), Some("Problem"));
        assert_eq!(unnumbered("3)  Files Touched"), Some("Files Touched"));
        assert_eq!(unnumbered("12: What I Tried"), Some("What I Tried"));
        assert_eq!(unnumbered("1.5 notes"), None);
        assert_eq!(unnumbered("2024 roadmap"), None);
        assert_eq!(unnumbered("1234. Problem"), None);
        assert_eq!(unnumbered("1.Problem"), None);
        assert_eq!(unnumbered("Problem"), None);
        assert_eq!(unnumbered("1."), None);
    }

    #[test]
    fn links_read_as_their_text() {
        assert_eq!(link_text("[ol-61](https://t.example/ol-61)"), Some("ol-61"));
        assert_eq!(
            link_text("[`9f3c2e1`](https://g.example/c/9f3c2e1)"),
            Some("9f3c2e1")
        );
        assert_eq!(link_text("[src/a.rs](src/a.rs)"), Some("src/a.rs"));
        // Not one link: kept as written.
        assert_eq!(link_text("[WIP]"), None);
        assert_eq!(link_text("[a](b) and [c](d)"), None);
        assert_eq!(link_text("[a](b c)"), None);
        assert_eq!(link_text("[](b)"), None);
        assert_eq!(link_text("[a]()"), None);
        assert_eq!(link_text("[x] done"), None);
        assert_eq!(link_text("[a [b]](c)"), None);
    }

    #[test]
    fn emphasised_titles() {
        assert_eq!(emphasised_title("**Problem:**"), Some("Problem"));
        assert_eq!(emphasised_title("**Question**:"), Some("Question"));
        assert_eq!(emphasised_title("__What I Tried__"), Some("What I Tried"));
        assert_eq!(emphasised_title("**a** and **b**"), None);
        assert_eq!(emphasised_title("Problem:"), None);
    }

    #[test]
    fn values_with_notes() {
        assert_eq!(id_before_note("ol-1 (auth)"), Some("ol-1"));
        assert_eq!(id_before_note("`a1b2c3d` (feat: x)"), Some("a1b2c3d"));
        assert_eq!(id_before_note("ol-1 — auth"), Some("ol-1"));
        assert_eq!(id_before_note("two words"), None);
        assert_eq!(file_item("`src/a.rs` — new"), Some("src/a.rs"));
        assert_eq!(file_item("src/b.rs (new)"), Some("src/b.rs"));
        assert_eq!(file_item("src/b.rs"), None);
        assert_eq!(file_item("`src/b.rs`"), None);
        assert_eq!(backtick_spans("`a.rs` `b.rs`"), Some(vec!["a.rs", "b.rs"]));
        assert_eq!(backtick_spans("`a.rs`, `b.rs`"), None);
        assert_eq!(bare_file_line("src/a.rs"), Some("src/a.rs"));
        assert_eq!(bare_file_line("Some prose here"), None);
    }

    #[test]
    fn decorations_strip_from_either_end() {
        assert_eq!(strip("🚧 **[ol-1] PROGRESS**"), "[ol-1] PROGRESS");
        assert_eq!(strip("## 🧩 Problem:"), "Problem:");
        assert_eq!(strip("➡️ HELP_RESPONSE"), "HELP_RESPONSE");
    }
}
