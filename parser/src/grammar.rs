//! The line grammar: one small nom parser per kind of line.
//!
//! A body is never parsed as a whole; each line is classified on its own
//! (field, heading, list item, fence, prose), which keeps the parser linear
//! on every input and lets a bad line cost only itself.
//!
//! Each line kind, and each subject prefix, is a nom 8 combinator over the
//! line's **bytes** (`&[u8]`) with `()` as the error type ([`PResult`]):
//!
//! - Byte input, because nom's `&str` parsers decode a `char` per step.
//!   Every token the grammar looks for is ASCII; a `char` is decoded only
//!   where a label or a bead id holds a non-ASCII byte ([`word_with_unicode`]).
//! - `()` as the error, because these parsers run on every line of every
//!   message and most lines are not fields, headings or items: a miss must
//!   cost a return, not the building of an error value.
//!
//! Results go back to `&str` only at the boundary ([`sub`]), by position in
//! the line: every cut the grammar makes is at an ASCII byte (or after a
//! whole decoded `char`), so it is on a character boundary, and `str::get`
//! checks that anyway (no `unsafe`, no panic). Cheap first-byte tests that
//! rule a line out before any parser runs stay plain code.
//!
//! Five small primitives stand in for nom's own: [`byte`] and [`byte_if`]
//! for `char`/`satisfy`, [`bytes_while`] and [`bytes_while1`] for
//! `take_while`/`take_while1`, and [`check`] for `verify`. They are the same
//! parsers, with the same signature (`Fn(&[u8]) -> IResult`), and compose
//! with nom's combinators like them; they exist because nom 8.0's versions
//! do not inline on `&[u8]` (they step with `Input::take_from`, which is not
//! `#[inline]` for byte slices, and `Verify` stayed out of line), and an
//! out-of-line call per token on every line was most of the cost of going
//! back to nom. The two runs are built the way nom builds `space0` and
//! `digit1`, on `Input::split_at_position*_complete`. nom's own `space0`,
//! `space1`, `digit1`, `opt`, `alt`, `preceded`, `terminated`, `delimited`
//! and tuples are used as they are, and so is `tag` where a first byte has
//! already said the line may match.
//!
//! Hand-written steps: inside [`word_with_unicode`], whether a non-ASCII
//! `char` in a label or bead id is a letter or digit (nom over bytes has
//! no parser for a run of `char`s that would not decode every byte, so it
//! decodes, with `str::from_utf8`, only a run that has already been found
//! to hold a non-ASCII byte); and the runs of a few marks that open a
//! decorated label ([`prelude`]: indent, bullet, `**`) and a heading
//! ([`atx_heading`]: indent, hashes), which were `take_while_m_n` and
//! `tag` and ran out of line (`TakeWhileMN::process`) on every decorated
//! label and heading, about a fifth of a decorated message's line cost.
//!
//! The grammar each function accepts is spelled out in its doc and pinned
//! against nom `&str` parsers with nom's default error type (the grammar as
//! first written, `tests::str_reference`) by the property tests at the end
//! of this file.

use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::{digit1, space0, space1};
use nom::combinator::opt;
use nom::error::ErrorKind;
use nom::sequence::{delimited, preceded, terminated};
use nom::{IResult, Input, Parser};

/// A parser over a line's bytes whose misses carry nothing.
type PResult<'a, O> = IResult<&'a [u8], O, ()>;

/// `- Label: value`, `* **Label:** value`, `Label: value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FieldLine<'a> {
    pub label: &'a str,
    pub value: &'a str,
}

/// Longest label accepted, in bytes: longer runs are prose, and the cap
/// bounds the scan of a line that never reaches a colon.
const MAX_LABEL: usize = 48;

/// The part of `line` that `part` (a slice of `line`'s bytes, as every
/// parser here returns) spans. `None` only if `part` were not inside `line`
/// or not on character boundaries, which the grammar never produces.
#[inline]
fn sub<'a>(line: &'a str, part: &[u8]) -> Option<&'a str> {
    let start = (part.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    line.get(start..start.checked_add(part.len())?)
}

/// One byte equal to `b`: nom's `char` for byte input.
///
/// `char`, `satisfy`, `tag` and `bytes::take_while` on `&[u8]` step past
/// what they matched with `Input::take_from`, which nom 8.0 does not mark
/// `#[inline]` for `&[u8]`: an out-of-line call per token on every line.
/// This and the next four primitives are the same parsers, written so that
/// they inline (see the module doc).
#[inline]
fn byte<'a>(b: u8) -> impl Fn(&'a [u8]) -> PResult<'a, u8> {
    byte_if(move |c| c == b)
}

/// One byte for which `pred` holds: nom's `satisfy` for byte input (see
/// [`byte`]).
#[inline]
fn byte_if<'a>(pred: impl Fn(u8) -> bool) -> impl Fn(&'a [u8]) -> PResult<'a, u8> {
    move |i| match i {
        [c, rest @ ..] if pred(*c) => Ok((rest, *c)),
        _ => Err(nom::Err::Error(())),
    }
}

/// The longest run of bytes for which `cond` holds, maybe empty: nom's
/// `take_while` for byte input, built as nom builds `space0`, on
/// `Input::split_at_position_complete` (see [`byte`]).
#[inline]
fn bytes_while<'a>(cond: impl Fn(u8) -> bool) -> impl Fn(&'a [u8]) -> PResult<'a, &'a [u8]> {
    move |i| i.split_at_position_complete(|b| !cond(b))
}

/// [`bytes_while`], at least one byte: nom's `take_while1` for byte input.
#[inline]
fn bytes_while1<'a>(cond: impl Fn(u8) -> bool) -> impl Fn(&'a [u8]) -> PResult<'a, &'a [u8]> {
    move |i| i.split_at_position1_complete(|b| !cond(b), ErrorKind::TakeWhile1)
}

/// `p`'s output when `cond` holds of it: nom's `verify`, which nom 8.0
/// does not inline here (an out-of-line call on every line); the same
/// combinator, written so that it does.
#[inline]
fn check<'a, O>(
    mut p: impl Parser<&'a [u8], Output = O, Error = ()>,
    cond: impl Fn(&O) -> bool,
) -> impl FnMut(&'a [u8]) -> PResult<'a, O> {
    move |i| match p.parse(i) {
        Ok((rest, o)) if cond(&o) => Ok((rest, o)),
        Ok(_) => Err(nom::Err::Error(())),
        Err(e) => Err(e),
    }
}

fn is_blank_byte(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// A bullet: `-`, `*` or `+` followed by spaces or tabs.
#[inline]
fn bullet(i: &[u8]) -> PResult<'_, u8> {
    terminated(byte_if(|c| matches!(c, b'-' | b'*' | b'+')), space1).parse(i)
}

/// Which ASCII bytes may be part of a word (a label, a bead id): letters,
/// digits and the bytes in `extra`. A table, because this test runs for
/// every byte of every label.
const fn word_bytes(extra: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 128 {
        table[c] = (c as u8).is_ascii_alphanumeric();
        c += 1;
    }
    let mut e = 0;
    while e < extra.len() {
        table[extra[e] as usize] = true;
        e += 1;
    }
    table
}

/// Label bytes: ASCII letters and digits, space, `-`, `_`, `/`.
pub(crate) const LABEL_BYTES: [bool; 256] = word_bytes(b" -_/");

/// Bead id bytes: ASCII letters and digits, `-`, `_`, `.`, `/`.
const BEAD_BYTES: [bool; 256] = word_bytes(b"-_./");

/// A maximal run of the ASCII bytes `table` admits and of non-ASCII letters
/// and digits (any script): the shape of labels and bead ids.
///
/// The usual word is all ASCII: one `take_while1`, and a look at the byte
/// that ended it. Only when that byte is not ASCII is [`word_with_unicode`]
/// run, the one place a `char` is decoded.
#[inline]
fn word(table: &'static [bool; 256]) -> impl Fn(&[u8]) -> PResult<'_, &[u8]> {
    move |i| match bytes_while(|b| table[usize::from(b)])(i) {
        Ok((rest, _)) if rest.first().is_some_and(|b| !b.is_ascii()) => word_with_unicode(table, i),
        Ok((_, [])) => Err(nom::Err::Error(())),
        done => done,
    }
}

/// [`word`] where a non-ASCII byte follows an ASCII run: every byte that
/// may belong to the word (the ASCII ones `table` admits, every non-ASCII
/// one), then the run up to its first non-ASCII `char` that is not a letter
/// or digit. (nom over bytes has no run of `char`s that would not decode
/// every byte.)
#[cold]
fn word_with_unicode<'a>(table: &[bool; 256], i: &'a [u8]) -> PResult<'a, &'a [u8]> {
    let (_, run) = bytes_while1(|b| table[usize::from(b)] || !b.is_ascii())(i)?;
    // A run cut short of a whole `char` (see `label`) keeps its valid part.
    let valid = match std::str::from_utf8(run) {
        Ok(s) => s,
        Err(e) => {
            std::str::from_utf8(run.get(..e.valid_up_to()).unwrap_or_default()).unwrap_or_default()
        }
    };
    let end = valid
        .char_indices()
        .find(|&(_, c)| !c.is_ascii() && !c.is_alphanumeric())
        .map_or(valid.len(), |(at, _)| at);
    match (run.get(..end), i.get(end..)) {
        (Some(run), Some(rest)) if !run.is_empty() => Ok((rest, run)),
        _ => Err(nom::Err::Error(())),
    }
}

/// Whether `w` (valid UTF-8, as [`word`] returns) starts with a letter of
/// any script.
#[inline]
fn starts_with_letter(w: &[u8]) -> bool {
    match w.first() {
        Some(b) if b.is_ascii() => b.is_ascii_alphabetic(),
        _ => std::str::from_utf8(w)
            .ok()
            .and_then(|w| w.chars().next())
            .is_some_and(char::is_alphabetic),
    }
}

/// A label: letters and digits (any script), spaces, `-`, `_` and `/`,
/// starting with a letter, at most [`MAX_LABEL`] bytes. The run is maximal:
/// one that is too long is not cut short to fit.
#[inline]
fn label(i: &[u8]) -> PResult<'_, &[u8]> {
    // Looking one byte past the longest label is enough to know a run is
    // too long; the cap bounds the scan of a long line. A run cut there in
    // the middle of a `char` ends before it, at most MAX_LABEL bytes in, and
    // is then followed by that `char`'s first byte, not the `:` a field
    // needs: the line is not a field either way.
    let capped = &i[..i.len().min(MAX_LABEL + 1)];
    let (_, run) = check(word(&LABEL_BYTES), |run: &&[u8]| {
        run.len() <= MAX_LABEL && starts_with_letter(run)
    })(capped)?;
    Ok((&i[run.len()..], run))
}

/// `field_line`'s grammar: the label, untrimmed; what remains is the value.
///
/// The prelude (indent, bullet, `**`) is [`prelude`], by hand: nom's
/// `take_while_m_n` and `tag` do not inline on bytes (see the module
/// doc), and this runs on every decorated label line.
#[inline]
fn field(i: &[u8]) -> PResult<'_, &[u8]> {
    let (start, bold) = prelude(i);
    let i = &i[start..];
    let (i, label) = terminated(label, byte(b':')).parse(i)?;
    let i = match i {
        [b'*', b'*', rest @ ..] if bold => rest,
        _ => i,
    };
    let (value, _) = space0(i)?;
    Ok((value, label))
}

/// The prelude of a decorated label: up to three spaces (`indent`), an
/// optional bullet (`-`, `*` or `+` and at least one blank), an optional
/// `**`: the offset where the label may start, and whether `**` opened.
/// The grammar of `(indent, opt(bullet), opt(tag("**")))`, by hand.
#[inline]
fn prelude(b: &[u8]) -> (usize, bool) {
    let blank = |i: usize| matches!(b.get(i), Some(b' ' | b'\t'));
    let mut i = 0;
    while i < 3 && b.get(i) == Some(&b' ') {
        i += 1;
    }
    if matches!(b.get(i), Some(b'-' | b'*' | b'+')) && blank(i + 1) {
        i += 2;
        while blank(i) {
            i += 1;
        }
    }
    let bold = b.get(i..i + 2) == Some(&b"**"[..]);
    (if bold { i + 2 } else { i }, bold)
}

/// `s` without leading spaces and tabs: on bytes, where the pattern
/// search `trim_start_matches([' ', '\t'])` cost several times more on
/// every decorated label's value.
/// The usual text, with no blank to trim, is decided by its first byte
/// where the call is made (the call was ~50 instructions a value).
#[inline]
pub(crate) fn trim_start_blanks(s: &str) -> &str {
    match s.as_bytes().first() {
        Some(&c) if is_blank_byte(c) => trim_start_blanks_rest(s),
        _ => s,
    }
}

fn trim_start_blanks_rest(s: &str) -> &str {
    let skip = leading_blanks(s.as_bytes());
    // Spaces and tabs are ASCII, so `skip` is on a character boundary.
    s.get(skip..).unwrap_or(s)
}

/// `s` without trailing spaces and tabs ([`trim_start_blanks`]'s way).
#[inline]
pub(crate) fn trim_end_blanks(s: &str) -> &str {
    match s.as_bytes().last() {
        Some(&c) if is_blank_byte(c) => trim_end_blanks_rest(s),
        _ => s,
    }
}

/// The line before `value` (a slice of it), trimmed: the label as written.
/// (The header reader's and the body's: here, where both read labels.)
pub(crate) fn label_part<'a>(line: &'a str, value: &str) -> &'a str {
    let end = (value.as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
    crate::trim::trim(line.get(..end).unwrap_or(line))
}

/// How many spaces and tabs `b` opens with.
#[inline]
fn leading_blanks(b: &[u8]) -> usize {
    b.iter().take_while(|&&c| is_blank_byte(c)).count()
}

fn trim_end_blanks_rest(s: &str) -> &str {
    let keep = s.len() - s.bytes().rev().take_while(|&c| is_blank_byte(c)).count();
    // Spaces and tabs are ASCII, so `keep` is on a character boundary.
    s.get(..keep).unwrap_or(s)
}

/// Lines longer than this are searched for a `:` (SIMD) before a label is
/// looked for; on shorter ones the search costs more than it saves. (Not
/// below `MAX_LABEL + 1`: see [`field_line`].)
pub(crate) const LONG_LINE: usize = 64;

/// A `Label: value` line, or `None` for anything else.
///
/// Grammar: up to three spaces, an optional bullet, an optional `**`, the
/// label, `:`, a closing `**` when one opened, blanks, then the value
/// (trailing spaces and tabs dropped).
#[inline]
pub(crate) fn field_line(line: &str) -> Option<FieldLine<'_>> {
    // Every field has a `:`; most long body lines (prose, code) have none
    // where a label could end, and one SIMD search costs less than
    // scanning their first words (on a 10.8 MB body of prose lines, this
    // halved the cost of a line). A line that opens with a letter has no
    // prelude: its colon ends the label, at most `MAX_LABEL` bytes in, so
    // only those bytes are searched.
    let b = line.as_bytes();
    if b.len() > LONG_LINE {
        if b[0].is_ascii_alphabetic() {
            if colonless_prose(b) {
                return None;
            }
        } else {
            memchr::memchr(b':', b)?;
        }
    }
    field_line_rest(line)
}

/// A long line that opens with a letter and has no `:` in its first
/// `MAX_LABEL + 1` bytes: no field, since with no prelude before it the
/// label's colon would be there (see [`field_line`]).
#[inline]
fn colonless_prose(b: &[u8]) -> bool {
    b.len() > LONG_LINE
        && b.first().is_some_and(u8::is_ascii_alphabetic)
        && !has_colon(&b[..MAX_LABEL + 1])
}

/// [`colonless_prose`] for lines of one text asked about in order (a
/// body's lines, by the index): the text's next `:` is found by one
/// `memchr` over the text ahead and kept from line to line, so that a
/// run of long prose with no colon (the 10.8 MB summary shape) costs a
/// SIMD search of the run and a few byte tests a line, where each line's
/// head searched on its own cost 79 instructions a line (7.1 M of the
/// shape's 29.7 M).
pub(crate) struct ProseAhead<'a> {
    hay: &'a [u8],
    /// The first `:` at or after the last line asked about, once searched
    /// (`hay.len()` for none).
    colon: Option<usize>,
}

impl<'a> ProseAhead<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        ProseAhead {
            hay: text.as_bytes(),
            colon: None,
        }
    }

    /// [`colonless_prose`] of `line`; read from the text when `line` is
    /// a slice of it, on its own bytes otherwise.
    #[inline(always)]
    pub(crate) fn colonless_prose(&mut self, b: &[u8]) -> bool {
        if b.len() <= LONG_LINE || !b[0].is_ascii_alphabetic() {
            return false;
        }
        let at = (b.as_ptr() as usize).wrapping_sub(self.hay.as_ptr() as usize);
        if at
            .checked_add(b.len())
            .is_none_or(|end| end > self.hay.len())
        {
            return colonless_prose(b);
        }
        self.no_colon_near(at)
    }

    /// No `:` in the text's `MAX_LABEL + 1` bytes from `at`.
    #[inline(always)]
    pub(crate) fn no_colon_near(&mut self, at: usize) -> bool {
        self.no_colon_near_by(at, Self::search)
    }

    /// [`Self::no_colon_near`], the text searched by `search` ([`Self::search`]
    /// or [`Self::search_apart`]) where no colon found before tells.
    #[inline(always)]
    pub(crate) fn no_colon_near_by(
        &mut self,
        at: usize,
        search: impl FnOnce(&mut Self, usize) -> usize,
    ) -> bool {
        // A colon found from an earlier line on, at or after this line's
        // start, is also the first from this line on.
        let colon = match self.colon {
            Some(c) if c >= at => c,
            _ => search(self, at),
        };
        colon > at + MAX_LABEL
    }

    /// [`Self::search`] out of line, for a loop that keeps its state in
    /// registers (the splitter's, see `lines`): the call's registers
    /// would otherwise be saved around every line's test, though the
    /// search runs once for many lines of prose (inline in the body
    /// index instead, where out of line cost a message ~25 instructions).
    #[inline(never)]
    pub(crate) fn search_apart(&mut self, at: usize) -> usize {
        self.search(at)
    }

    /// The first `:` from `at` on, searched and kept.
    #[inline]
    fn search(&mut self, at: usize) -> usize {
        let ahead = self.hay.get(at..).unwrap_or_default();
        let c = memchr::memchr(b':', ahead).map_or(self.hay.len(), |p| at + p);
        self.colon = Some(c);
        c
    }
}

/// A line no rule of [`crate::body::Body::read`] reads, inside a fence or outside
/// it: an empty line, an inert list item ([`is_inert_item`]), or long prose
/// that opens with a letter and has no colon where a label could end
/// ([`ProseAhead::colonless_prose`]: a letter opens no fence, heading, list item or
/// decoration, and such a line is no field either).
#[inline(always)]
pub(crate) fn is_inert_line(text: &[u8], prose: &mut ProseAhead<'_>) -> bool {
    match text {
        [] => true,
        // A log line (`- 10:00:01 run 1: ok`), the usual inert item, in
        // three byte tests.
        [b'-' | b'+', b' ', c, ..] if c.is_ascii_digit() => true,
        [b'-' | b'+', ..] => is_inert_item(text),
        _ => prose.colonless_prose(text),
    }
}

/// A `-` or `+` list item whose text opens with an ASCII byte that can
/// open no label, emphasis or task box (`- 10:32 run 1: ok`, a log line):
/// no rule of [`crate::body::Body::read`] reads it (no fence or heading opens with a
/// bullet; a field's label, plain or decorated, opens with a letter, `*`,
/// `_`, `[`, a code span that holds a label ([`is_code_label`]) or a
/// non-ASCII glyph after one marker; an emphasised title
/// opens with `*` or `_`). Decided in a few byte tests instead of every
/// rule's own, which made such lines five times the cost of prose.
#[inline]
pub(crate) fn is_inert_item(b: &[u8]) -> bool {
    let mut i = 0;
    while i < 3 && b.get(i) == Some(&b' ') {
        i += 1;
    }
    if !matches!(b.get(i), Some(b'-' | b'+')) || !matches!(b.get(i + 1), Some(b' ' | b'\t')) {
        return false;
    }
    i += 2;
    while matches!(b.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    match b.get(i) {
        // A code span: a label in code (`` - `Files`: a.rs ``) is read, a
        // file or a command in code is not.
        Some(b'`') => !is_code_label(&b[i..]),
        Some(&c) => c.is_ascii() && !c.is_ascii_alphabetic() && !matches!(c, b'*' | b'_' | b'['),
        None => false,
    }
}

/// Whether `b`, which opens with a backtick, opens with a code span
/// holding a label and its colon or followed by it (`` `Bead`: ``,
/// `` `Bead:` ``): the one shape of code span a decorated label takes.
#[inline]
fn is_code_label(b: &[u8]) -> bool {
    // A byte at a time: a label's span is a few bytes.
    match b.iter().skip(1).position(|&c| c == b'`') {
        Some(j) => b[j] == b':' || b.get(j + 2) == Some(&b':'),
        None => false,
    }
}

/// [`field_line`] past its colon test: the usual line (a letter first,
/// an ASCII label) inline where lines are read, every other shape out of
/// line ([`field_line_marked`]); the call per field line cost more than
/// the plain read.
#[inline]
fn field_line_rest(line: &str) -> Option<FieldLine<'_>> {
    match plain_field_line(line) {
        Some(found) => found,
        None => field_line_marked(line),
    }
}

/// [`field_line`] of a line that opens with a mark (indent, bullet, `**`)
/// or holds a non-ASCII label.
#[inline(never)]
fn field_line_marked(line: &str) -> Option<FieldLine<'_>> {
    let b = line.as_bytes();
    let (start, bold) = prelude(b);
    match b.get(start) {
        Some(c) if c.is_ascii_alphabetic() => {}
        Some(c) if !c.is_ascii() => return field_line_marked_unicode(line),
        _ => return None,
    }
    // [`field`] for an ASCII label, by hand (nom's combinators were most
    // of a bullet or bold label line's cost): the label is the run of
    // label bytes after the prelude, at most `MAX_LABEL` of them, then
    // `:`; a non-ASCII byte in the run's reach goes to the grammar.
    let cap = b.len().min(start + MAX_LABEL + 1);
    let mut end = start + 1;
    while end < cap && LABEL_BYTES[usize::from(b[end])] {
        end += 1;
    }
    if end < cap && !b[end].is_ascii() {
        return field_line_marked_unicode(line);
    }
    if end - start > MAX_LABEL || b.get(end) != Some(&b':') {
        return None;
    }
    let mut from = end + 1;
    if bold && b.get(from..from + 2) == Some(&b"**"[..]) {
        from += 2;
    }
    while from < b.len() && is_blank_byte(b[from]) {
        from += 1;
    }
    Some(FieldLine {
        // A label's only whitespace is the space.
        label: trim_end_blanks(line.get(start..end)?),
        value: trim_end_blanks(line.get(from..)?),
    })
}

/// [`field_line_marked`] of a line whose label may hold a non-ASCII
/// letter: through the grammar, [`field`].
#[cold]
#[inline(never)]
fn field_line_marked_unicode(line: &str) -> Option<FieldLine<'_>> {
    if !may_open_label(line) {
        return None;
    }
    let (value, label) = field(line.as_bytes()).ok()?;
    Some(FieldLine {
        // A label's only whitespace is the space.
        label: trim_end_blanks(sub(line, label)?),
        value: trim_end_blanks(sub(line, value)?),
    })
}

/// Whether `b` (a line's head, a few dozen bytes) holds a `:`, eight
/// bytes at a time in a `u64` ([`first_colon`]). `memchr` picks its SIMD
/// searcher through a function pointer on every call, which on a head of
/// 49 bytes cost more than the search (about 75 instructions against 40
/// here; on the 10.8 MB summary shape, a tenth of the parse).
#[inline]
fn has_colon(b: &[u8]) -> bool {
    first_colon(b).is_some()
}

/// Where the first `:` of `b` (a line's head, a few dozen bytes) is,
/// eight bytes at a time (see `find`).
#[inline]
fn first_colon(b: &[u8]) -> Option<usize> {
    crate::find::byte(b, b':')
}

/// Whether [`field`]'s prelude (indent, bullet, `**`) can be followed by
/// a label on this line: the byte after it is an ASCII letter, or a
/// non-ASCII byte (maybe a letter of another script; [`field`] decides).
/// A body line that is no field (`- 10:32 run 1: ok`, a log line) costs a
/// few byte tests.
#[inline]
fn may_open_label(line: &str) -> bool {
    let b = line.as_bytes();
    let (i, _) = prelude(b);
    match b.get(i) {
        Some(c) if c.is_ascii() => c.is_ascii_alphabetic(),
        // A prelude is ASCII: `i` is on a character boundary. An emoji
        // (`🔖 Bead:`) opens no label, which opens with a letter (and
        // emoji are none, see `glyph::is_emoji`): decided by range before
        // [`field`] decodes the run and looks each `char` up in the
        // Unicode tables (about 600 instructions an emoji label's line).
        Some(_) => !line
            .get(i..)
            .and_then(|s| s.chars().next())
            .is_some_and(crate::glyph::is_emoji),
        None => false,
    }
}

/// [`field_line`] for the usual line, one that starts with an ASCII
/// letter and whose label is ASCII: decided by one scan of the label's
/// bytes through [`LABEL_BYTES`] up to the colon. The same grammar as
/// [`field`] (no indent, bullet or `**` can precede a letter; the run is
/// maximal and at most [`MAX_LABEL`] bytes), without the combinators' cost
/// per byte, which made `field_line` the largest share of a small
/// message's parse (about 250 instructions a line). `None` when the line
/// is not of that kind (then [`field`] decides): a first byte that is not a
/// letter, or a non-ASCII byte in the label's run.
#[inline]
fn plain_field_line(line: &str) -> Option<Option<FieldLine<'_>>> {
    let b = line.as_bytes();
    if !b.first()?.is_ascii_alphabetic() {
        return None;
    }
    let cap = b.len().min(MAX_LABEL + 1);
    let mut i = 1;
    while i < cap && LABEL_BYTES[usize::from(b[i])] {
        i += 1;
    }
    if i == MAX_LABEL + 1 {
        // The run is longer than a label may be: prose.
        return Some(None);
    }
    match b.get(i) {
        Some(b':') => {}
        Some(c) if !c.is_ascii() => return None,
        _ => return Some(None),
    }
    Some(field_at(line, i))
}

/// The field of a line whose label (ASCII, from the line's first byte)
/// ends at the `:` at `colon`: the label without the spaces before the
/// colon (its only blank), the value without blanks at either end. Found
/// by index, where slicing and trimming each piece in turn checked every
/// cut twice. `:` and blanks are ASCII, and so are the label's bytes:
/// every cut is on a character boundary (`get` checks anyway).
#[inline(always)]
pub(crate) fn field_at(line: &str, colon: usize) -> Option<FieldLine<'_>> {
    let b = line.as_bytes();
    let mut label_end = colon;
    while label_end > 1 && b[label_end - 1] == b' ' {
        label_end -= 1;
    }
    value_at(line, label_end, colon)
}

/// [`field_at`] of a line whose label is known to end right at its colon
/// (a name as the protocol spells it: its last byte is a letter), without
/// the search for spaces before the colon. `plain_end`: the line ends
/// plainly (`Line::plain_end`, read at the split), so in no space or tab:
/// the value's end is the line's, not searched for blanks (and the cut
/// has one end to test, not two: ~8 instructions a field line).
#[inline(always)]
pub(crate) fn spelled_field_at(line: &str, colon: usize, plain_end: bool) -> Option<FieldLine<'_>> {
    if !plain_end {
        return value_at(line, colon, colon);
    }
    let b = line.as_bytes();
    let mut from = colon + 1;
    while from < b.len() && is_blank_byte(b[from]) {
        from += 1;
    }
    Some(FieldLine {
        label: line.get(..colon)?,
        value: line.get(from..)?,
    })
}

/// [`spelled_field_at`] of a label that starts at `start` (after a
/// bullet and its space) and ends right at its colon, at `colon`; its
/// value cut as that function cuts it (`plain_end` the same).
#[inline(always)]
pub(crate) fn spelled_field_from(
    line: &str,
    start: usize,
    colon: usize,
    plain_end: bool,
) -> Option<FieldLine<'_>> {
    let f = spelled_field_at(line, colon, plain_end)?;
    Some(FieldLine {
        label: line.get(start..colon)?,
        value: f.value,
    })
}

/// The field of a line whose label ends at `label_end` and whose colon is
/// at `colon`: [`field_at`]'s value cut.
#[inline(always)]
fn value_at(line: &str, label_end: usize, colon: usize) -> Option<FieldLine<'_>> {
    let b = line.as_bytes();
    let mut from = colon + 1;
    while from < b.len() && is_blank_byte(b[from]) {
        from += 1;
    }
    let mut to = b.len();
    while to > from && is_blank_byte(b[to - 1]) {
        to -= 1;
    }
    Some(FieldLine {
        label: line.get(..label_end)?,
        value: line.get(from..to)?,
    })
}

/// [`field_line`] with what `known` (a lookup of field labels, of
/// headers) makes of its label: through [`letter_field_line`] where the
/// line opens with a letter, the grammar then the lookup elsewhere: the
/// reading the tests hold [`named_field_line`] (the header test) and the
/// spelled headers to.
#[cfg(test)]
pub(crate) fn known_field_line<T>(
    line: &str,
    known: impl Fn(&str) -> Option<T>,
) -> Option<(FieldLine<'_>, Option<T>)> {
    if line.as_bytes().first().is_some_and(u8::is_ascii_alphabetic) {
        letter_field_line(line, known)
    } else {
        field_line(line).map(|f| (f, known(f.label)))
    }
}

/// [`known_field_line`] of a line only where `known` names its label:
/// the header test of every line before a message (prose: `Here is my
/// update:`) and the message line test of prose. A line that opens with a
/// letter and whose label `known` does not name is decided without its
/// label's bytes tested one by one, where they are ASCII: they decide
/// only between an unknown label and no field, both no name; only a
/// non-ASCII byte in it sends the line to the marked grammar, which may
/// read another label (a test holds the two alike).
#[inline(always)]
pub(crate) fn named_field_line<T>(
    line: &str,
    known: impl Fn(&str) -> Option<T>,
) -> Option<(FieldLine<'_>, T)> {
    let b = line.as_bytes();
    if !b.first().is_some_and(u8::is_ascii_alphabetic) {
        let f = field_line(line)?;
        return Some((f, known(f.label)?));
    }
    let colon = first_colon(&b[..b.len().min(MAX_LABEL + 1)])?;
    let f = field_at(line, colon)?;
    if let Some(t) = known(f.label) {
        return Some((f, t));
    }
    if b[1..colon].is_ascii() {
        return None;
    }
    match b[1..colon].iter().find(|&&c| !LABEL_BYTES[usize::from(c)]) {
        Some(c) if !c.is_ascii() => {
            let f = field_line_marked(line)?;
            Some((f, known(f.label)?))
        }
        _ => None,
    }
}

/// [`field_line`] of a line that opens with a letter (`None` for any
/// other), with what `known` (a lookup of field labels, of headers) makes
/// of its label. The label's colon is found a word at a time and the name
/// looked up first: every name is ASCII letters, spaces, `-` and `_`, all
/// label bytes, and a name matches only a text of those bytes (see
/// `words`), so a known label is the one the grammar reads without a test
/// of each of its bytes (about a third of a small message's field
/// lines). An unknown one has its bytes tested as [`plain_field_line`]
/// tests them.
#[inline]
pub(crate) fn letter_field_line<T>(
    line: &str,
    known: impl Fn(&str) -> Option<T>,
) -> Option<(FieldLine<'_>, Option<T>)> {
    let b = line.as_bytes();
    if !b.first()?.is_ascii_alphabetic() {
        return None;
    }
    // With no prelude before it, the label's colon is at most `MAX_LABEL`
    // bytes in (see `colonless_prose`), on any line, long or short.
    let colon = first_colon(&b[..b.len().min(MAX_LABEL + 1)])?;
    let f = field_at(line, colon)?;
    if let Some(t) = known(f.label) {
        return Some((f, Some(t)));
    }
    // The label's run of bytes must end at the colon, the first there is.
    match b[1..colon].iter().find(|&&c| !LABEL_BYTES[usize::from(c)]) {
        None => Some((f, None)),
        Some(c) if !c.is_ascii() => field_line_marked(line).map(|f| (f, known(f.label))),
        Some(_) => None,
    }
}

/// `heading`'s main grammar: the hashes; what remains is the title,
/// untrimmed.
///
/// By hand (`delimited(indent, take_while_m_n(1, 6, '#'), space1)`): nom's
/// `take_while_m_n` does not inline on bytes, and this runs on every line
/// that opens with `#` or a blank.
#[inline]
fn atx_heading(b: &[u8]) -> PResult<'_, &[u8]> {
    let mut i = 0;
    while i < 3 && b.get(i) == Some(&b' ') {
        i += 1;
    }
    let hashes = i;
    while i < hashes + 6 && b.get(i) == Some(&b'#') {
        i += 1;
    }
    let marks = &b[hashes..i];
    if marks.is_empty() || !matches!(b.get(i), Some(b' ' | b'\t')) {
        return Err(nom::Err::Error(()));
    }
    while matches!(b.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    Ok((&b[i..], marks))
}

/// `# Title` / `## Title`: (level, title). `##42` (no space) is prose.
///
/// Grammar: up to three spaces, one to six `#`, at least one blank, the
/// title (trimmed); or a line of nothing but one to six `#` (an empty
/// heading).
// Inlined: called for every body line, and most lines are rejected by
// their first byte in a few instructions, less than the call.
#[inline]
pub(crate) fn heading(line: &str) -> Option<(usize, &str)> {
    // A line that starts with a letter or digit is no heading: decided
    // before any parser runs.
    if line
        .as_bytes()
        .first()
        .is_some_and(u8::is_ascii_alphanumeric)
    {
        return None;
    }
    heading_rest(line)
}

fn heading_rest(line: &str) -> Option<(usize, &str)> {
    // A heading's first character other than whitespace is `#`: a line
    // that opens with any other ASCII byte (a bullet, a quote) is none.
    match line.as_bytes().first() {
        Some(b'#') => {}
        Some(b) if b.is_ascii() && !b.is_ascii_whitespace() && *b != 0x0b => return None,
        // Nor does any other character but whitespace (an emoji first:
        // the trim below decoded and looked up the whole line's ends).
        Some(b) if !b.is_ascii() && !line.starts_with(char::is_whitespace) => return None,
        _ => {}
    }
    if let Ok((title, hashes)) = atx_heading(line.as_bytes()) {
        return Some((hashes.len(), crate::trim::trim(sub(line, title)?)));
    }
    // A bare `##` with nothing after it is an empty heading: a line whose
    // first byte after its ASCII blanks is another ASCII byte is none,
    // decided without `str::trim` (which decoded and looked up both ends
    // of every indented line, a JSON body's, ~65 instructions each).
    let b = line.as_bytes();
    if b.get(leading_blanks(b))
        .is_some_and(|&c| c.is_ascii() && c != b'#' && !c.is_ascii_whitespace() && c != 0x0b)
    {
        return None;
    }
    let t = line.trim();
    (!t.is_empty() && t.len() <= 6 && t.bytes().all(|b| b == b'#')).then_some((t.len(), ""))
}

/// `list_item`'s grammar: the marker; what remains is the text, untrimmed.
#[inline]
fn item(i: &[u8]) -> PResult<'_, ()> {
    let numbered = terminated(
        digit1,
        terminated(byte_if(|c| c == b'.' || c == b')'), space1),
    );
    preceded(space0, alt((numbered.map(|_| ()), bullet.map(|_| ())))).parse(i)
}

/// A list item (`- x`, `* x`, `+ x`, `1. x`, `2) x`): its text.
///
/// Grammar: blanks, then digits and `.` or `)`, or a bullet character, then
/// at least one blank, then the text (trimmed).
pub(crate) fn list_item(line: &str) -> Option<&str> {
    let (text, ()) = item(line.as_bytes()).ok()?;
    Some(crate::trim::trim(sub(line, text)?))
}

/// A fenced code block delimiter (```` ``` ```` or `~~~`), after any
/// whitespace.
// Inlined: called for every body line, and decided by the first byte on
// nearly all of them.
#[inline]
pub(crate) fn is_fence(line: &str) -> bool {
    is_fence_inline(line)
}

/// [`is_fence`], always inlined: for a loop over every line of a block
/// (`decor::fenced_whole`), where the call was most of a line's test.
#[inline(always)]
pub(crate) fn is_fence_inline(line: &str) -> bool {
    match line.as_bytes().first() {
        // Most lines start with a letter: nothing to trim, no `char` to
        // decode (`trim_start` looks up every leading `char`).
        Some(b) if b.is_ascii_alphanumeric() => false,
        // A fence opens with a mark or whitespace: any other ASCII byte (a
        // bullet, a quote) rules the line out without a trim.
        Some(b)
            if b.is_ascii()
                && !matches!(b, b'`' | b'~')
                && !b.is_ascii_whitespace()
                && *b != 0x0b =>
        {
            false
        }
        _ => {
            // Spaces and tabs passed over on bytes (an indented line, a
            // JSON body's, decided by the byte after them, without
            // `trim_start`'s `char` decoding and lookups, ~100
            // instructions a line).
            let b = line.as_bytes();
            let indent = leading_blanks(b);
            match b.get(indent) {
                Some(b'`' | b'~') => matches!(b.get(indent..indent + 3), Some(b"```" | b"~~~")),
                Some(c) if c.is_ascii() && !c.is_ascii_whitespace() && *c != 0x0b => false,
                None => false,
                // `trim_start` rather than `space0`: any Unicode whitespace counts.
                _ => alt((tag::<_, _, ()>(&b"```"[..]), tag(&b"~~~"[..])))
                    .parse(line.trim_start().as_bytes())
                    .is_ok(),
            }
        }
    }
}

/// `s` with ASCII letters lower-cased, in `buf`; `None` when `s` is longer
/// than `buf` (then it is none of the short names looked up with this).
/// Non-ASCII bytes are kept, so they never equal an ASCII name, exactly as
/// with `eq_ignore_ascii_case`.
pub(crate) fn lower_ascii<'b, const N: usize>(s: &str, buf: &'b mut [u8; N]) -> Option<&'b [u8]> {
    let out = buf.get_mut(..s.len())?;
    for (o, b) in out.iter_mut().zip(s.bytes()) {
        *o = b.to_ascii_lowercase();
    }
    Some(out)
}

/// Runs `p` on `s`'s bytes: (what follows, from `s`; the output, from `s`).
#[inline]
fn run_on<'a>(
    s: &'a str,
    mut p: impl Parser<&'a [u8], Output = &'a [u8], Error = ()>,
) -> Option<(&'a str, &'a str)> {
    let (rest, out) = p.parse(s.as_bytes()).ok()?;
    Some((sub(s, rest)?, sub(s, out)?))
}

/// `Re`, `Fwd` or `Fw` in any case, as a whole word.
#[inline]
fn reply_word(i: &[u8]) -> PResult<'_, &[u8]> {
    check(bytes_while1(|b| b.is_ascii_alphabetic()), |w: &&[u8]| {
        [&b"re"[..], b"fwd", b"fw"]
            .iter()
            .any(|r| r.eq_ignore_ascii_case(w))
    })(i)
}

/// A `Re:` / `Fwd:` / `Fw:` prefix (any case; `Re[2]:` too), with the
/// blanks around it: (what follows, the word).
pub(crate) fn reply_prefix(s: &str) -> Option<(&str, &str)> {
    run_on(
        s,
        delimited(
            space0,
            reply_word,
            (opt((byte(b'['), digit1, byte(b']'))), byte(b':'), space0),
        ),
    )
}

/// `[bead-id]` at the start of `s` (after blanks), brackets and inner
/// spaces trimmed: (what follows, after blanks; the id). On bytes, its
/// close found eight bytes at a time (see `find`): as a nom parser it was
/// ~150 instructions a call, asked of every subject the usual one-scan
/// reading leaves (a test holds it to the grammar's `&str` reading).
pub(crate) fn bracket_bead(s: &str) -> Option<(&str, &str)> {
    let t = trim_start_blanks(s);
    let end = bracketed(t.as_bytes(), b'[', b']')?;
    // `[]`: the id is one byte or more before it is trimmed.
    if end == 1 {
        return None;
    }
    // `[` and `]` are ASCII: the cuts are on character boundaries.
    Some((
        trim_start_blanks(&t[end + 1..]),
        crate::trim::trim(&t[1..end]),
    ))
}

/// Where the `close` is of the bracket `b` opens with (`open`): the first
/// `close`, with no `open` before it (`[a [b]` is no bracket). The one
/// reading of a bracket in a subject (the bead's, and the slots' of
/// `subject::parse_slotted`).
#[inline]
pub(crate) fn bracketed(b: &[u8], open: u8, close: u8) -> Option<usize> {
    if b.first() != Some(&open) {
        return None;
    }
    let end = 1 + crate::find::either(&b[1..], close, open)?;
    (b[end] == close).then_some(end)
}

/// A bead id written as a prefix, `ol-527.1:`: letters and digits (any
/// script), `-`, `_`, `.` and `/`, with at least one digit, `-` or `.`
/// (so `Note:` is not one), then blanks and `:`. Ids may hold several
/// hyphens, underscores and dots. Returns (what follows, after blanks;
/// the id).
pub(crate) fn colon_bead(s: &str) -> Option<(&str, &str)> {
    let id = check(word(&BEAD_BYTES), |id: &&[u8]| {
        id.iter()
            .any(|&c| c.is_ascii_digit() || c == b'-' || c == b'.')
    });
    // `ol-1 : DONE` too: spaces before the colon.
    run_on(s, delimited(space0, id, (space0, byte(b':'), space0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The grammar as nom parsers over `&str` with nom's default error type,
    /// as it was first written: the byte parsers above must agree with it on
    /// every line, which is the proof that moving to bytes and `()` errors
    /// (and back from the hand-written scanners of an earlier version)
    /// changed no result.
    mod str_reference {
        use nom::branch::alt;
        use nom::bytes::complete::{tag, take_while, take_while1, take_while_m_n};
        use nom::character::complete::{char, digit1, one_of, space0, space1};
        use nom::combinator::{opt, rest, verify};
        use nom::sequence::{preceded, terminated};
        use nom::{IResult, Parser};

        use super::super::FieldLine;

        fn bullet(i: &str) -> IResult<&str, char> {
            terminated(one_of("-*+"), space1).parse(i)
        }

        fn label(i: &str) -> IResult<&str, &str> {
            verify(
                take_while1(|c: char| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '/')),
                |s: &str| s.len() <= 48 && s.starts_with(|c: char| c.is_alphabetic()),
            )
            .parse(i)
        }

        fn indent(i: &str) -> IResult<&str, &str> {
            take_while_m_n(0, 3, |c| c == ' ').parse(i)
        }

        fn field_line_inner(i: &str) -> IResult<&str, FieldLine<'_>> {
            let (i, _) = indent(i)?;
            let (i, _) = opt(bullet).parse(i)?;
            let (i, bold) = opt(tag("**")).parse(i)?;
            let (i, label) = label(i)?;
            let (i, _) = char(':').parse(i)?;
            let (i, _) = if bold.is_some() {
                opt(tag("**")).parse(i)?
            } else {
                (i, None)
            };
            let (i, _) = space0(i)?;
            let (i, value) = rest(i)?;
            Ok((
                i,
                FieldLine {
                    label: label.trim_end(),
                    value: value.trim_end_matches([' ', '\t']),
                },
            ))
        }

        pub(super) fn field_line(line: &str) -> Option<FieldLine<'_>> {
            field_line_inner(line).ok().map(|(_, f)| f)
        }

        pub(super) fn heading(line: &str) -> Option<(usize, &str)> {
            let parsed: IResult<&str, (&str, &str)> = (
                preceded(indent, take_while_m_n(1, 6, |c| c == '#')),
                preceded(space1, rest),
            )
                .parse(line);
            match parsed {
                Ok((_, (hashes, title))) => Some((hashes.len(), title.trim())),
                Err(_) => {
                    let t = line.trim();
                    (!t.is_empty() && t.len() <= 6 && t.bytes().all(|b| b == b'#'))
                        .then_some((t.len(), ""))
                }
            }
        }

        fn numbered(i: &str) -> IResult<&str, &str> {
            terminated(digit1, terminated(alt((char('.'), char(')'))), space1)).parse(i)
        }

        pub(super) fn list_item(line: &str) -> Option<&str> {
            let parsed: IResult<&str, &str> = preceded(
                (
                    take_while(|c| c == ' ' || c == '\t'),
                    alt((numbered, bullet.map(|_| ""))),
                ),
                rest,
            )
            .parse(line);
            parsed.ok().map(|(_, item)| item.trim())
        }

        /// A `Re:` / `Fwd:` / `Fw:` prefix (any case), with the space after it.
        pub(super) fn reply_prefix(i: &str) -> IResult<&str, &str> {
            let (i, _) = space0(i)?;
            let (rest_, word) = take_while1(|c: char| c.is_ascii_alphabetic()).parse(i)?;
            if !["re", "fwd", "fw"]
                .iter()
                .any(|w| w.eq_ignore_ascii_case(word))
            {
                return Err(nom::Err::Error(nom::error::Error::new(
                    i,
                    nom::error::ErrorKind::Tag,
                )));
            }
            // `Re[2]:` counts too.
            let (rest_, _) = opt((char('['), digit1, char(']'))).parse(rest_)?;
            let (rest_, _) = char(':').parse(rest_)?;
            let (rest_, _) = space0(rest_)?;
            Ok((rest_, word))
        }

        /// `[bead-id]` at the start of `i`, brackets and inner spaces trimmed.
        pub(super) fn bracket_bead(i: &str) -> IResult<&str, &str> {
            let (i, _) = space0(i)?;
            let (i, inner) = preceded(char('['), take_while1(|c| c != ']' && c != '[')).parse(i)?;
            let (i, _) = char(']').parse(i)?;
            let (i, _) = space0(i)?;
            Ok((i, inner.trim()))
        }

        /// A bead id written as a prefix, `ol-527.1:`. Ids may hold several
        /// hyphens, underscores and dots.
        pub(super) fn colon_bead(i: &str) -> IResult<&str, &str> {
            let (i, _) = space0(i)?;
            let (i, id) = verify(
                take_while1(|c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/')),
                |s: &str| {
                    s.chars()
                        .any(|c| c.is_ascii_digit() || c == '-' || c == '.')
                },
            )
            .parse(i)?;
            // `ol-1 : DONE` too: spaces before the colon.
            let (i, _) = (space0, char(':')).parse(i)?;
            let (i, _) = space0(i)?;
            Ok((i, id))
        }
    }

    /// Lines made of the characters the grammar cares about, so that
    /// random strings often come close to being fields, headings or items.
    fn line_strategy() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::string::string_regex(
            "[ \t]{0,5}[-*+#0-9.)]{0,3}[ \t]{0,2}(\\*\\*)?[a-zA-Zé0-9 _/:\u{a0}\u{2003}ß*#-]{0,60}[: \t]{0,3}[a-z ]{0,5}",
        )
        .unwrap()
    }

    proptest::proptest! {
        /// A list item is never a heading (a list's items after a label are
        /// read without the heading test: `body::queries`).
        #[test]
        fn no_list_item_is_a_heading(line in "[ \t\u{a0}]{0,4}(#{1,7}|-|\\*|\\+|[0-9]{1,3}[.)]|x)?[ \t#]{0,3}(#|-|a|1|\\*)?[a-z #]{0,6}") {
            if list_item(&line).is_some() {
                proptest::prop_assert_eq!(heading(&line), None);
            }
        }

        #[test]
        fn colons_are_found_as_a_byte_search_finds_them(b in proptest::collection::vec(proptest::num::u8::ANY, 0..70)) {
            proptest::prop_assert_eq!(has_colon(&b), b.contains(&b':'));
            let colons: Vec<u8> = b.iter().map(|&c| if c % 7 == 0 { b':' } else { c ^ 0x3a }).collect();
            proptest::prop_assert_eq!(has_colon(&colons), colons.contains(&b':'));
            proptest::prop_assert_eq!(first_colon(&b), b.iter().position(|&c| c == b':'));
            proptest::prop_assert_eq!(first_colon(&colons), colons.iter().position(|&c| c == b':'));
        }

        /// A line that opens with a letter reads as the grammar reads it,
        /// its label looked up or not: known labels in any case, near
        /// misses, spaces before the colon, non-ASCII and other bytes in
        /// the label, long lines, and any text.
        #[test]
        fn letter_lines_read_as_the_grammar_reads_them(
            line in r"(Bead|bead id|Context Usage|FILES touched|sTep|Bead\(x\)|Béad|[a-zA-Zé0-9 _/.()-]{0,52})[ ]{0,2}(:|é:|\*\*:)?[ \t]{0,2}[a-z:é ]{0,70}",
            any in "\\PC{0,80}",
            near in line_strategy(),
        ) {
            for l in [&line, &any, &near] {
                let lookup = crate::body::Label::lookup;
                let expected = l
                    .as_bytes()
                    .first()
                    .filter(|b| b.is_ascii_alphabetic())
                    .and_then(|_| field_line(l))
                    .map(|f| (f, lookup(f.label)));
                proptest::prop_assert_eq!(letter_field_line(l, lookup), expected);
            }
        }

        /// A line's named label (a field label, a header) is the one the
        /// general reading names: the lines above, and lines of prose
        /// with a glyph or a mark in the label.
        #[test]
        fn named_labels_read_as_the_general_reading(
            line in r"(Bead|bead id|Context Usage|FILES touched|sTep|Subject|from|Bead\(x\)|Béad|Sub✅ject|Here is my update|[a-zA-Zé✅*0-9 _/.()-]{0,52})[ ]{0,2}(:|é:|\*\*:)?[ \t]{0,2}[a-z:é ]{0,70}",
            any in "\\PC{0,80}",
            near in line_strategy(),
        ) {
            for l in [&line, &any, &near] {
                let label = crate::body::Label::lookup;
                let expected = known_field_line(l, label).and_then(|(f, t)| Some((f, t?)));
                proptest::prop_assert_eq!(named_field_line(l, label), expected);
                let header = crate::framing::header_name;
                let expected = known_field_line(l, header).and_then(|(f, t)| Some((f, t?)));
                proptest::prop_assert_eq!(named_field_line(l, header), expected);
            }
        }

        /// The search ahead reads each line of a text, asked in order
        /// (some lines not asked at all), as the line's own head does:
        /// long lines with a colon before, at and after the head's end,
        /// short lines, lines opening with a mark; a line that is not a
        /// slice of the text is read on its own.
        #[test]
        fn prose_ahead_reads_lines_as_their_heads_do(
            doc in "([A-Za-z-]?[a-z ]{0,60}:?[a-z ]{0,60}\r?\n){0,12}",
            asked in proptest::collection::vec(proptest::bool::ANY, 12),
        ) {
            let mut ahead = ProseAhead::new(&doc);
            for (line, ask) in doc.split('\n').zip(asked.iter().cycle()) {
                if *ask {
                    proptest::prop_assert_eq!(ahead.colonless_prose(line.as_bytes()), colonless_prose(line.as_bytes()));
                }
            }
            let apart = doc.replace('\n', "");
            proptest::prop_assert_eq!(ahead.colonless_prose(apart.as_bytes()), colonless_prose(apart.as_bytes()));
        }

        /// Long lines, where `field_line` first tests the head for a
        /// colon: labels near the 48-byte cap, prose with and without one.
        #[test]
        fn long_lines_agree_with_str_parsers(
            line in "[ ]{0,2}[-*]?[ ]?(\\*\\*)?[A-Za-zé][a-z ,.()é/_-]{30,60}(:|\\*\\*:)?[a-z :]{0,30}"
        ) {
            proptest::prop_assert_eq!(field_line(&line), str_reference::field_line(&line));
        }

        /// Fences after any indent, Unicode whitespace among it, as the
        /// trim and tag they were first read with read them.
        #[test]
        fn fences_read_as_a_trim_and_tag_read_them(
            line in "[ \t\u{a0}\u{2003}\u{b}\u{c}\r]{0,4}(```|~~~|``|~~|`~`|[a-z\"{}])?[a-z` ]{0,5}",
            any in "\\PC{0,12}",
        ) {
            for l in [&line, &any] {
                let by_trim = l.trim_start().starts_with("```") || l.trim_start().starts_with("~~~");
                proptest::prop_assert_eq!(is_fence(l), by_trim);
            }
        }

        #[test]
        fn byte_parsers_agree_with_str_parsers(line in line_strategy()) {
            proptest::prop_assert_eq!(field_line(&line), str_reference::field_line(&line));
            proptest::prop_assert_eq!(heading(&line), str_reference::heading(&line));
            proptest::prop_assert_eq!(list_item(&line), str_reference::list_item(&line));
        }

        /// Marked lines (indent, bullet, `**`) whose ASCII label is
        /// around the 48-byte cap, the colon inside or outside `**`.
        #[test]
        fn marked_ascii_labels_agree_with_str_parsers(
            line in "[ ]{0,4}([-*+][ 	]{1,2})?(\\*\\*)?[a-zA-Z][a-z0-9 _/-]{44,50}[ ]?(:|\\*\\*:|:\\*\\*|é:)?[ 	]{0,2}[a-z]{0,3}"
        ) {
            proptest::prop_assert_eq!(field_line(&line), str_reference::field_line(&line));
        }

        /// Labels around the 48-byte cap, with non-ASCII letters and
        /// non-letters straddling it.
        #[test]
        fn long_labels_agree_with_str_parsers(
            line in "[ ]{0,2}(\\*\\*)?[a-zé\u{a0}ß ]{40,56}(:|\\*\\*:|é:)? ?[a-z]{0,3}"
        ) {
            proptest::prop_assert_eq!(field_line(&line), str_reference::field_line(&line));
        }

        #[test]
        fn subject_parsers_agree_with_str_parsers(
            s in "[ \t]{0,2}(Re|FWD|fw|Rev|\\[|\\]|[a-z0-9._/-]{1,8}|é|[0-9]{1,2}|:| ){0,6}"
        ) {
            proptest::prop_assert_eq!(reply_prefix(&s), str_reference::reply_prefix(&s).ok());
            proptest::prop_assert_eq!(bracket_bead(&s), str_reference::bracket_bead(&s).ok());
            proptest::prop_assert_eq!(colon_bead(&s), str_reference::colon_bead(&s).ok());
        }

        #[test]
        fn byte_parsers_agree_with_str_parsers_on_any_text(line in "\\PC{0,80}") {
            proptest::prop_assert_eq!(field_line(&line), str_reference::field_line(&line));
            proptest::prop_assert_eq!(heading(&line), str_reference::heading(&line));
            proptest::prop_assert_eq!(list_item(&line), str_reference::list_item(&line));
            proptest::prop_assert_eq!(reply_prefix(&line), str_reference::reply_prefix(&line).ok());
            proptest::prop_assert_eq!(bracket_bead(&line), str_reference::bracket_bead(&line).ok());
            proptest::prop_assert_eq!(colon_bead(&line), str_reference::colon_bead(&line).ok());
        }
    }

    #[test]
    fn field_lines() {
        assert_eq!(
            field_line("- Commit: abc123"),
            Some(FieldLine {
                label: "Commit",
                value: "abc123"
            })
        );
        assert_eq!(
            field_line("**Status:** DONE  "),
            Some(FieldLine {
                label: "Status",
                value: "DONE"
            })
        );
        assert_eq!(
            field_line("Context usage: 45%").unwrap().label,
            "Context usage"
        );
        assert_eq!(field_line("no colon here"), None);
        assert_eq!(field_line("    indented code: x"), None);
        assert_eq!(field_line(": empty label"), None);
    }

    #[test]
    fn headings() {
        assert_eq!(heading("## Problem"), Some((2, "Problem")));
        assert_eq!(heading("### Sub"), Some((3, "Sub")));
        assert_eq!(heading("##42 is not a heading"), None);
        assert_eq!(heading("# Top "), Some((1, "Top")));
        assert_eq!(heading("##"), Some((2, "")));
        assert_eq!(heading("text"), None);
    }

    #[test]
    fn list_items() {
        assert_eq!(list_item("- a.rs"), Some("a.rs"));
        assert_eq!(list_item("  * b.rs "), Some("b.rs"));
        assert_eq!(list_item("+ c"), Some("c"));
        assert_eq!(list_item("12. step"), Some("step"));
        assert_eq!(list_item("3) step"), Some("step"));
        assert_eq!(list_item("-notalist"), None);
        assert_eq!(list_item("plain"), None);
    }

    #[test]
    fn subject_prefixes() {
        assert_eq!(reply_prefix("Re: x").unwrap(), ("x", "Re"));
        assert_eq!(reply_prefix("FWD:x").unwrap(), ("x", "FWD"));
        assert!(reply_prefix("Review: x").is_none());
        assert_eq!(bracket_bead("[ ol-1 ] DONE").unwrap(), ("DONE", "ol-1"));
        assert_eq!(
            colon_bead("my-bead_1.2: DONE").unwrap(),
            ("DONE", "my-bead_1.2")
        );
        assert!(colon_bead("Note: x").is_none());
        assert_eq!(colon_bead("ol-1 : DONE").unwrap(), ("DONE", "ol-1"));
        assert!(colon_bead("Step 2: DONE").is_none());
    }

    #[test]
    fn long_and_unicode_labels() {
        let long = format!("{}: x", "a".repeat(48));
        assert_eq!(field_line(&long).unwrap().value, "x");
        assert_eq!(field_line(&format!("{}: x", "a".repeat(49))), None);
        assert_eq!(field_line("Größe: 3").unwrap().label, "Größe");
        assert_eq!(field_line("é: 3").unwrap().label, "é");
        assert_eq!(field_line("1abc: 3"), None);
        assert_eq!(field_line("-Status: x").map(|f| f.label), None);
        assert_eq!(field_line("- **Status:**x").unwrap().value, "x");
        // A two-byte letter across the cap: the run is 50 bytes, too long.
        assert_eq!(field_line(&format!("{}é: x", "a".repeat(48))), None);
        assert_eq!(
            field_line(&format!("{}é: x", "a".repeat(46)))
                .unwrap()
                .value,
            "x"
        );
        assert_eq!(field_line("ab\u{a0}: x"), None);
        assert_eq!(field_line("Größe\u{2003}: x"), None);
    }
}
