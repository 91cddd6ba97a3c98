//! Reading typed values out of field text: percentages, counts, PASS/FAIL,
//! yes/no, enum words, lists and timestamps. Each reader says *why* it could
//! not read a value so the caller can turn that into a diagnostic.

use std::borrow::Cow;

use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};

use nom::branch::alt;
use nom::bytes::complete::{tag, tag_no_case};
use nom::character::complete::{char, digit1, space0};
use nom::combinator::{opt, recognize};
use nom::sequence::preceded;
use nom::{IResult, Parser};

use crate::trim::{trim, trim_ticks};

/// Why a value could not be read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ValueError {
    NotANumber,
    OutOfRange(f64),
    NotInEnum,
}

/// A reader over a value's bytes whose misses carry nothing (see the
/// grammar module: byte input and `()` errors keep nom as cheap as a loop).
type PResult<'a, O> = IResult<&'a [u8], O, ()>;

/// Blanks, an optional approximation marker (`~`, `≈`, `about `,
/// `approx. `, `approx `; any case) and blanks again.
fn approx(i: &[u8]) -> PResult<'_, ()> {
    // A value that starts with a digit (the usual case) has no marker:
    // decided before the five tags are tried.
    if i.first().is_some_and(u8::is_ascii_digit) {
        return Ok((i, ()));
    }
    let marker = alt((
        tag(&b"~"[..]),
        tag("≈".as_bytes()),
        tag_no_case(&b"about "[..]),
        tag_no_case(&b"approx. "[..]),
        tag_no_case(&b"approx "[..]),
    ));
    let (i, _) = (space0, opt(marker), space0).parse(i)?;
    Ok((i, ()))
}

/// An optional `-` and the digits of a number, after any approximation
/// marker: (negative, the digits).
fn signed<'a>(
    digits: impl Parser<&'a [u8], Output = &'a [u8], Error = ()>,
) -> impl Parser<&'a [u8], Output = (bool, &'a [u8]), Error = ()> {
    preceded(approx, (opt(char('-')).map(|m| m.is_some()), digits))
}

/// Digits with an optional fraction: `.` and at least one digit (`45.` is
/// 45, then `.`).
fn decimal(i: &[u8]) -> PResult<'_, &[u8]> {
    recognize((digit1, opt(preceded(char('.'), digit1)))).parse(i)
}

/// The text of a number the grammar recognised: ASCII digits, `.`.
fn number_text(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap_or_default()
}

/// `45%`, `45 %`, `~45%`, `45`, `45.5%` (rounded): 0..=100.
// Inlined, the rest out of line: the usual value is read for less than
// the call of a function the size of the whole reader (~40 instructions).
#[inline]
pub(crate) fn percent(s: &str) -> Result<u8, ValueError> {
    // The usual value, one to three digits and `%` (`45%`), read at once:
    // the combinators of `percent_in_full` cost several times more and
    // give the same.
    match plain_percent(s.as_bytes()) {
        Some(v) => v,
        None => percent_in_full(s),
    }
}

#[inline(never)]
fn percent_in_full(s: &str) -> Result<u8, ValueError> {
    let mut number = (signed(decimal), space0, opt(char('%')));
    let (after, ((minus, num), _, _)) = number
        .parse(s.as_bytes())
        .map_err(|_: nom::Err<()>| ValueError::NotANumber)?;
    // Trailing words ("45% (estimate)") are allowed; trailing digits are
    // not. What follows starts after an ASCII byte: `s` from there is valid
    // UTF-8, and `trim_start` skips any whitespace as before.
    let after = s.get(s.len() - after.len()..).unwrap_or_default();
    if after.trim_start().starts_with(|c: char| c.is_ascii_digit()) {
        return Err(ValueError::NotANumber);
    }
    // A count of tokens (`90k`, `90k/200k tokens`, `90/200`) is no
    // percentage as written: its first number is not the share (lenient
    // mode reads a share, see `share_of`).
    let num_end = num.as_ptr() as usize - s.as_ptr() as usize + num.len();
    if is_count_of_tokens(s.as_bytes().get(num_end), after) {
        return Err(ValueError::NotANumber);
    }
    let v = if num.len() <= 15 && num.iter().all(u8::is_ascii_digit) {
        // A whole number below 2^53 is exactly the f64 that parsing its
        // text would give; adding up its digits is much cheaper.
        num.iter().fold(0u64, |v, d| v * 10 + u64::from(d - b'0')) as f64
    } else {
        number_text(num)
            .parse()
            .map_err(|_| ValueError::NotANumber)?
    };
    // `-5%` is a number, just not a percentage of anything.
    let v = if minus { -v } else { v };
    if !(0.0..=100.0).contains(&v) {
        return Err(ValueError::OutOfRange(v));
    }
    Ok(v.round() as u8)
}

/// Whether a number followed by `next` (the byte just after its digits)
/// and then `after` (past blanks and a `%`) counts tokens: a `k` or `M`
/// on its digits (`90k`), or a `/` after it (`90/200`).
fn is_count_of_tokens(next: Option<&u8>, after: &str) -> bool {
    matches!(next, Some(b'k' | b'K' | b'm' | b'M')) || after.trim_start().starts_with('/')
}

/// A context usage written as a share of the window (`90k/200k tokens`,
/// `90,000 / 200,000`, `90k of 200k`): the percentage it is, rounded.
/// `None` for anything else, and for a share above the whole.
pub(crate) fn share_of(s: &str) -> Option<u8> {
    /// A count of tokens at the start of `s` (`90`, `90,000`, `1.5`,
    /// `90k`, `1M`, after a `~`) and what follows it.
    fn amount(s: &str) -> Option<(f64, &str)> {
        let s = s.strip_prefix('~').unwrap_or(s);
        let b = s.as_bytes();
        // Digits with `,` or `_` between thousands, then a fraction.
        let (mut n, mut scale, mut end) = (0f64, None::<f64>, 0);
        for &c in b {
            match (c, scale.as_mut()) {
                (b'0'..=b'9', None) => n = n * 10.0 + f64::from(c - b'0'),
                (b'0'..=b'9', Some(s)) => {
                    *s /= 10.0;
                    n += f64::from(c - b'0') * *s;
                }
                (b',' | b'_', None) if end > 0 => {}
                (b'.', None) if end > 0 => scale = Some(1.0),
                _ => break,
            }
            end += 1;
        }
        if end == 0 || !b[end - 1].is_ascii_digit() {
            return None;
        }
        // Every cut is after an ASCII byte: on a character boundary.
        let rest = s.get(end..)?;
        let (unit, rest) = match rest.as_bytes() {
            [b'k' | b'K', ..] => (1e3, rest.get(1..)?),
            [b'm' | b'M', ..] => (1e6, rest.get(1..)?),
            _ => (1.0, rest),
        };
        if rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return None;
        }
        Some((n * unit, rest))
    }
    use crate::grammar::trim_start_blanks;
    let (used, rest) = amount(s.trim())?;
    let rest = trim_start_blanks(rest);
    let rest = trim_start_blanks(rest.strip_prefix("tokens").unwrap_or(rest));
    let rest = match rest.as_bytes() {
        [b'/', ..] => rest.get(1..)?,
        [b'o' | b'O', b'f' | b'F', b' ', ..] => rest.get(3..)?,
        _ => return None,
    };
    let (window, after) = amount(trim_start_blanks(rest))?;
    if after.starts_with(|c: char| c.is_ascii_digit()) || window <= 0.0 || used > window {
        return None;
    }
    Some((used / window * 100.0).round() as u8)
}

/// [`percent`] of `N%` or `N` (one to three ASCII digits, nothing else):
/// `None` for any other text.
#[inline]
pub(crate) fn plain_percent(b: &[u8]) -> Option<Result<u8, ValueError>> {
    let digits = b.strip_suffix(b"%").unwrap_or(b);
    if digits.is_empty() || digits.len() > 3 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let v = digits
        .iter()
        .fold(0u32, |v, d| v * 10 + u32::from(d - b'0'));
    Some(match u8::try_from(v) {
        Ok(v) if v <= 100 => Ok(v),
        _ => Err(ValueError::OutOfRange(f64::from(v))),
    })
}

/// A leading count: `3`, `3 (max)`, `~3`.
pub(crate) fn count(s: &str) -> Result<u32, ValueError> {
    let (_, (minus, num)) = signed(digit1)
        .parse(s.as_bytes())
        .map_err(|_: nom::Err<()>| ValueError::NotANumber)?;
    let num = number_text(num);
    if minus {
        return Err(ValueError::OutOfRange(
            -num.parse::<f64>().unwrap_or(f64::MAX),
        ));
    }
    num.parse::<u32>()
        .map_err(|_| ValueError::OutOfRange(num.parse::<f64>().unwrap_or(f64::MAX)))
}

fn first_word(s: &str) -> &str {
    // Read on bytes while they are ASCII: splitting on a `char` predicate
    // decoded every character of the value (a third of reading a
    // `Tests: PASS`). A non-ASCII character where the word starts or ends
    // may be whitespace (`U+00A0`): the `char` reader decides those.
    let b = s.as_bytes();
    let is_sep =
        |c: u8| c == b' ' || (b'\t'..=b'\r').contains(&c) || matches!(c, b'(' | b',' | b';' | b'.');
    let start = b.iter().position(|&c| !is_sep(c)).unwrap_or(b.len());
    let end = b[start..]
        .iter()
        .position(|&c| !c.is_ascii() || is_sep(c))
        .map_or(b.len(), |n| start + n);
    if b.get(start).is_some_and(|c| !c.is_ascii()) || b.get(end).is_some_and(|c| !c.is_ascii()) {
        return first_word_chars(s);
    }
    &s[start..end]
}

/// [`first_word`] on `char`s, whatever the text.
fn first_word_chars(s: &str) -> &str {
    s.split(|c: char| c.is_whitespace() || matches!(c, '(' | ',' | ';' | '.'))
        .find(|w| !w.is_empty())
        .unwrap_or("")
}

/// A value that says there is none: `N/A`, `none`, `null`, `TBD`, `-`
/// (any case), as agents fill a field that does not apply (`Checkpoint:
/// N/A` when not resuming, `Tests: N/A` on a change to docs).
#[inline(always)]
pub(crate) fn is_placeholder(v: &str) -> bool {
    // At most four bytes (`n.a.`, `none`, `null`; a dash is three) and
    // the first byte of one: an id or a file is decided by its length or
    // first byte, inline (`ol-7` too); the words out of line (inline, the
    // plain message's bead cost ~10 instructions more).
    v.len() <= 4
        && matches!(
            v.as_bytes().first(),
            Some(b'n' | b'N' | b't' | b'T' | b'-' | 0xE2)
        )
        && is_placeholder_word(v)
}

#[inline(never)]
fn is_placeholder_word(v: &str) -> bool {
    let mut lower = [0u8; 4];
    for (l, b) in lower.iter_mut().zip(v.bytes()) {
        *l = b.to_ascii_lowercase();
    }
    matches!(
        &lower[..v.len()],
        b"n/a" | b"n.a." | b"none" | b"null" | b"nil" | b"tbd" | b"-"
            // An em or en dash.
            | [0xE2, 0x80, 0x94 | 0x93]
    )
}

/// A share written as a fraction of one, with no `%` (`0.45`, an agent's
/// context usage): the percentage it is (45). `None` for any other text
/// (`0.45%` is a percentage already, `1.5` no fraction of one).
pub(crate) fn fraction_of_one(s: &str) -> Option<u8> {
    let digits = s.strip_prefix("0.")?;
    if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: f64 = s.parse().ok()?;
    (v > 0.0).then(|| (v * 100.0).round() as u8)
}

/// `PASS | FAIL`, `true | false`: the spec's template copied unfilled, which
/// says nothing (its first word must not count as the answer).
pub(crate) fn is_template(s: &str) -> bool {
    crate::find::has(s.as_bytes(), b'|')
}

/// PASS/FAIL as a tri-state: `None` is returned by the caller for an absent
/// line; here an unreadable value is an error.
// The protocol's own two words decided by one compare each (`Tests:
// PASS`, most values): the template test, the first word and its upper
// case were ~250 instructions a value. Any other value is read in full.
pub(crate) fn pass_fail(s: &str) -> Result<bool, ValueError> {
    match s {
        "PASS" => Ok(true),
        "FAIL" => Ok(false),
        _ => pass_fail_in_full(s),
    }
}

/// [`pass_fail`] of any value.
fn pass_fail_in_full(s: &str) -> Result<bool, ValueError> {
    if is_template(s) {
        return Err(ValueError::NotInEnum);
    }
    let w = first_word(s);
    // `no warnings`, `No errors`: no word alone says so, and the first
    // word's `NO` is FAIL; lenient mode reads it as a tally ([`tally`]).
    if w.eq_ignore_ascii_case("no") && tally(s) == Some(true) {
        return Err(ValueError::NotInEnum);
    }
    // An ASCII word is upper-cased on the stack: `to_uppercase` allocated
    // a string for every PASS/FAIL value read. Anything else goes through
    // `to_uppercase` as before (`ß` upper-cases to `SS`). Compared as
    // bytes: making a `str` of the buffer validated it (a fifth of the
    // read).
    let mut buf = [0u8; 8];
    match w.is_ascii().then(|| buf.get_mut(..w.len())).flatten() {
        Some(out) => {
            out.copy_from_slice(w.as_bytes());
            out.make_ascii_uppercase();
            pass_fail_word(out)
        }
        // A glyph with its presentation selector (`✔️`, `✔︎`) is the
        // glyph: the selector only says how to draw it.
        None => {
            let w = w
                .strip_suffix('\u{fe0f}')
                .or_else(|| w.strip_suffix('\u{fe0e}'))
                .unwrap_or(w);
            pass_fail_word(w.to_uppercase().as_bytes())
        }
    }
}

/// An upper-cased first word of a PASS/FAIL value.
fn pass_fail_word(upper: &[u8]) -> Result<bool, ValueError> {
    const CHECK: &[u8] = "✅".as_bytes();
    const TICK: &[u8] = "✓".as_bytes();
    const HEAVY_TICK: &[u8] = "✔".as_bytes();
    const CROSS: &[u8] = "❌".as_bytes();
    const BALLOT_X: &[u8] = "✗".as_bytes();
    const HEAVY_BALLOT_X: &[u8] = "✘".as_bytes();
    match upper {
        b"PASS" | b"PASSED" | b"PASSING" | b"OK" | b"TRUE" | b"YES" | b"GREEN" | CHECK | TICK
        | HEAVY_TICK => Ok(true),
        b"FAIL" | b"FAILED" | b"FAILING" | b"FALSE" | b"NO" | b"RED" | CROSS | BALLOT_X
        | HEAVY_BALLOT_X => Ok(false),
        _ => Err(ValueError::NotInEnum),
    }
}

/// A PASS/FAIL value written as the run's tally or in words, as agents
/// report a test or lint run: failures counted (`42 passed, 0 failed`,
/// `0 errors`, `no warnings`: none is PASS; `40 passed, 2 failed`, `3
/// errors`: any is FAIL), a count of all (`12/12`, `40/42 passing`: all
/// is PASS, fewer is FAIL), `clean`, or a count of passes alone (`42
/// passed`, `all passing`). A count of warnings above none decides
/// nothing (a lint may allow them), nor does anything else: `None`.
pub(crate) fn tally(s: &str) -> Option<bool> {
    /// What a word of a tally says.
    enum Word {
        Count(u64),
        /// `12/12`: whether all of them.
        All(bool),
        Failures,
        Warnings,
        Passes,
        Clean,
        /// `no`, `zero`: a count of none.
        None,
        /// `all` before `passing`.
        Every,
        /// `tests` in `118 tests passed`: what is counted, between the
        /// count and what it says.
        Noun,
        Other,
    }
    // Read on bytes, a word's letters lowered on the stack and matched
    // whole (split by `char` and compared with each name in turn, three
    // tallies cost a message ~2,400 instructions; this way ~1,000).
    fn word(word: &str) -> Word {
        let w = word.as_bytes();
        if w[0].is_ascii_digit() {
            let number = |d: &[u8]| -> Option<u64> {
                if d.is_empty() || d.len() > 9 || !d.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                Some(d.iter().fold(0, |n, &c| n * 10 + u64::from(c - b'0')))
            };
            return match w.iter().position(|&c| c == b'/') {
                None => number(w).map_or(Word::Other, Word::Count),
                Some(slash) => match (number(&w[..slash]), number(&w[slash + 1..])) {
                    (Some(done), Some(of)) if of > 0 && done <= of => Word::All(done == of),
                    _ => Word::Other,
                },
            };
        }
        let mut buf = [0u8; 9];
        let Some(lower) = crate::grammar::lower_ascii(word, &mut buf) else {
            return Word::Other;
        };
        match lower {
            b"failed" | b"failing" | b"failures" | b"failure" | b"fails" | b"errors" | b"error" => {
                Word::Failures
            }
            b"tests" | b"test" | b"checks" | b"cases" | b"specs" | b"targets" => Word::Noun,
            b"warnings" | b"warning" => Word::Warnings,
            b"passed" | b"passing" | b"passes" | b"pass" | b"succeeded" => Word::Passes,
            b"clean" => Word::Clean,
            b"no" | b"zero" => Word::None,
            b"all" => Word::Every,
            _ => Word::Other,
        }
    }
    let (mut failures, mut fine) = (false, false);
    let mut all_of: Option<bool> = None;
    // What the word before said: a count, none, or `all`.
    let mut before = Word::Other;
    // The bytes of a tally's words, ASCII letters and digits and `/`, by
    // table (tested as letters and digits, ~19 instructions a byte).
    const WORD: [bool; 256] = {
        let mut t = [false; 256];
        let mut c = 0;
        while c < 256 {
            let b = c as u8;
            t[c] = b.is_ascii_alphanumeric() || b == b'/';
            c += 1;
        }
        t
    };
    let is_word = |c: u8| WORD[usize::from(c)];
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !is_word(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_word(b[i]) {
            i += 1;
        }
        // The word's bytes are ASCII: both cuts are on character
        // boundaries.
        let Some(w) = s.get(start..i) else { break };
        let count = match before {
            Word::Count(n) => Some(n),
            Word::None => Some(0),
            _ => None,
        };
        let this = word(w);
        match this {
            Word::All(all) => all_of = Some(all),
            Word::Failures => match count {
                Some(0) => fine = true,
                Some(_) => failures = true,
                None => {}
            },
            Word::Warnings if count == Some(0) => fine = true,
            Word::Passes if count.is_some() || matches!(before, Word::Every) => fine = true,
            Word::Clean => fine = true,
            // The count before it is the count of what follows.
            Word::Noun => continue,
            _ => {}
        }
        before = this;
    }
    if failures {
        return Some(false);
    }
    all_of.or(fine.then_some(true))
}

/// Whether `s` is a commit's hash as written in mail: 7 to 40 hex digits,
/// at least one a decimal digit (`decade` and `added` are words).
pub(crate) fn is_commit_hash(s: &str) -> bool {
    (7..=40).contains(&s.len())
        && s.bytes().all(|b| b.is_ascii_hexdigit())
        && s.bytes().any(|b| b.is_ascii_digit())
}

/// true/false, yes/no, 1/0.
pub(crate) fn yes_no(s: &str) -> Result<bool, ValueError> {
    if is_template(s) {
        return Err(ValueError::NotInEnum);
    }
    // Lower-cased on the stack (`to_ascii_lowercase` allocated): no word
    // of more than 5 bytes is one of these.
    let mut buf = [0u8; 5];
    match crate::grammar::lower_ascii(first_word(s), &mut buf) {
        Some(b"true" | b"yes" | b"y" | b"1") => Ok(true),
        Some(b"false" | b"no" | b"n" | b"0") => Ok(false),
        _ => Err(ValueError::NotInEnum),
    }
}

/// An enum value that is one of `allowed` once upper-cased with
/// `-`/space read as `_`: borrowed from the value when already canonical,
/// else the allowed spelling. Compared in place, without making the
/// normalised word ([`enum_normalised`]; ASCII only: `enum_byte` leaves any
/// other character as it is).
pub(crate) fn enum_known<'a>(s: &'a str, allowed: &[&'static str]) -> Option<Cow<'a, str>> {
    let t = trim(s);
    // A value as the protocol spells it (the usual one), found by a
    // compare of equal lengths: it matches itself only, as below.
    if let Some(a) = allowed.iter().find(|a| **a == t) {
        return Some(Cow::Borrowed(*a));
    }
    // One pass, no test of whether the value is canonical first: the
    // allowed values are canonical (capitals, digits, `_`), which
    // `enum_byte` leaves as they are, so a canonical value matches only
    // itself, and the spelling returned is the same text either way.
    allowed
        .iter()
        .find(|a| a.len() == t.len() && a.bytes().zip(t.bytes()).all(|(a, b)| a == enum_byte(b)))
        .map(|a| Cow::Borrowed(*a))
}

/// An enum value upper-cased with `-`/space normalised to `_`, for the
/// diagnostic on a value that is not allowed.
pub(crate) fn enum_normalised(s: &str) -> String {
    // Byte by byte into a string made at its size: `enum_byte` changes
    // ASCII bytes into ASCII bytes only, so every other character's bytes
    // stay as they are, and the text stays UTF-8. (Collected from `char`s,
    // the string grew from a quarter of the value's length: a sentence
    // (a checkpoint's reason written out) was reallocated three or four
    // times.)
    let bytes = trim(s).bytes().map(enum_byte).collect();
    String::from_utf8(bytes).unwrap_or_default()
}

fn enum_byte(b: u8) -> u8 {
    match b {
        b'-' | b' ' => b'_',
        b => b.to_ascii_uppercase(),
    }
}

/// A list's first item read through a decoration (a markdown link, a
/// note after a file): as written, and the file it reads as.
pub(crate) type Linked<'a> = Option<(&'a str, &'a str)>;

/// Splits an inline list: commas first, else whitespace-free single item.
/// An item that is a markdown link (`[src/a.rs](src/a.rs)`) is its text, a
/// file with a note in parentheses after it (`src/a.rs (new)`) the file;
/// the first such item, as written and as read, is put in `linked`, for
/// the caller's note.
pub(crate) fn inline_list<'a>(s: &'a str, linked: &mut Linked<'a>) -> Vec<Cow<'a, str>> {
    list_split_on(s, b',', linked)
}

/// [`inline_list`] split on `sep` (`,`, or `;` for a list written with
/// semicolons). Always inlined: a separator known at the call keeps the
/// comma's search a constant's (as a value, the plain message's list cost
/// ~12 instructions more).
#[inline(always)]
pub(crate) fn list_split_on<'a>(s: &'a str, sep: u8, linked: &mut Linked<'a>) -> Vec<Cow<'a, str>> {
    // A plain loop over byte positions: the iterator chain it replaced
    // (split, trims, filter, collect) cost several times more on the usual
    // two or three short items. Sized for those, so it does not regrow.
    let mut items = Vec::with_capacity(4);
    let mut rest = s;
    loop {
        // Eight bytes at a time (see `find`): items are short, shorter
        // than a SIMD search's set-up, and a byte loop cost ~5 a byte.
        let comma = crate::find::byte(rest.as_bytes(), sep);
        // The separator is ASCII: both sides of it start and end on
        // character boundaries.
        let (item, next) = match comma {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        // The blanks after a comma (`a, b`) cut on bytes first: `trim`'s
        // shortcut then holds, where a leading blank sent every item
        // after the first through `str::trim`'s Unicode tables.
        let blanks = item
            .bytes()
            .take_while(|&b| b == b' ' || b == b'\t')
            .count();
        // Blanks are ASCII: the cut is on a character boundary. Trimmed
        // again only if ticks came off (`trim` of a trimmed text is that
        // text): an item's second trim was ~14 instructions.
        let item = trim(item.get(blanks..).unwrap_or(item));
        let item = match trim_ticks(item) {
            t if t.len() == item.len() => t,
            t => trim(t),
        };
        if let (Some(&first), Some(&last)) = (item.as_bytes().first(), item.as_bytes().last()) {
            let item = match (first, last) {
                (b'[', _) => read_item(item, linked, crate::decor::link_text),
                // A file with a note after it (`src/a.rs (new)`, `src/b.rs
                // (+3/-1)`): one byte's test where no plain item ends so.
                (_, b')') => read_item(item, linked, crate::decor::file_item),
                _ => item,
            };
            items.push(Cow::Borrowed(item));
        }
        match next {
            Some(n) => rest = n,
            None => return items,
        }
    }
}

/// An [`inline_list`] item read through a decoration by `read`: a
/// markdown link's text (`decor::link_text`, an item that opens with
/// `[`), a file before its note (`decor::file_item`, one that ends with
/// `)`: `src/a.rs (new)`); noted in `linked` the first time, else as
/// written (`foo(1)`). Out of line: no plain list has one, and inline it
/// cost the plain message's `Files touched` list a few instructions an
/// item.
#[cold]
#[inline(never)]
fn read_item<'a>(
    item: &'a str,
    linked: &mut Linked<'a>,
    read: fn(&str) -> Option<&str>,
) -> &'a str {
    match read(item) {
        Some(text) => {
            linked.get_or_insert((item, text));
            text
        }
        None => item,
    }
}

/// Timestamps as they appear in the wild: RFC 3339 (`Z` or offset), the
/// Python server's naive-UTC `YYYY-MM-DD HH:MM:SS[.ffffff]`, and the Rust
/// port's integer microseconds since the epoch.
pub fn parse_timestamp(s: &str) -> Option<DateTime<Utc>> {
    let s = crate::trim::trim(s);
    if let Some(t) = common_timestamp(s.as_bytes()) {
        return Some(t);
    }
    // A zone named after a time with none (`2026-12-01 09:00 UTC`, as
    // agents write one): its time read by hand too, where chrono's
    // readers tried a dozen spellings first (~16,000 instructions).
    let named = s.strip_suffix(" UTC").or_else(|| s.strip_suffix(" GMT"));
    named
        .and_then(|x| common_timestamp(x.as_bytes()))
        .or_else(|| any_timestamp(s))
}

/// The two spellings nearly every timestamp has, read by hand: RFC 3339
/// in UTC with `Z` (`2026-09-13T05:32:15.081790467Z`: amail, the demo and
/// the Rust port write it) and the Python server's naive UTC
/// (`2026-09-13 05:32:15.081790`), each with no fraction or one of 1 to 9
/// digits. `None` for any other text, which [`any_timestamp`] reads: the
/// same instant whenever this reads one (a property test holds the two
/// alike). Why: chrono's RFC 3339 reader was ~940 instructions of a
/// demo file's ~8,300 (a tenth of `amail parse` over 10,000 files), and
/// the naive spelling reached its reader only after four that failed.
fn common_timestamp(s: &[u8]) -> Option<DateTime<Utc>> {
    // To the minute (`2026-09-13 05:32`, naive): read as `:00` after it.
    if let [_, _, _, _, b'-', _, _, b'-', _, _, b' ', _, _, b':', _, _] = s {
        let mut whole = [0u8; 19];
        whole[..16].copy_from_slice(s);
        whole[16..].copy_from_slice(b":00");
        return common_timestamp(&whole);
    }
    let [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1, sep, h0, h1, b':', i0, i1, b':', s0, s1, rest @ ..] =
        s
    else {
        return None;
    };
    // The fourteen digits tested at once, not one branch each (a
    // digit's test and early return were ~4 instructions apiece).
    let fields = [y0, y1, y2, y3, m0, m1, d0, d1, h0, h1, i0, i1, s0, s1];
    let not_digits = fields
        .iter()
        .fold(false, |bad, &&b| bad | (b.wrapping_sub(b'0') > 9));
    if not_digits {
        return None;
    }
    let digit = |b: u8| u32::from(b.wrapping_sub(b'0'));
    let two = |a: u8, b: u8| digit(a) * 10 + digit(b);
    let year = two(*y0, *y1) * 100 + two(*y2, *y3);
    let (month, day) = (two(*m0, *m1), two(*d0, *d1));
    let (hour, minute, second) = (two(*h0, *h1), two(*i0, *i1), two(*s0, *s1));
    // A fraction of 1 to 9 digits, then the end the separator asks for:
    // `Z` after `T`, nothing after a space.
    let (nano, end) = match rest {
        [b'.', fraction @ ..] => {
            let digits = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
            if !(1..=9).contains(&digits) {
                return None;
            }
            // Digits all (counted so): read without a test each.
            let nano = fraction[..digits].iter().fold(0, |n, &b| n * 10 + digit(b));
            (nano * 10u32.pow(9 - digits as u32), &fraction[digits..])
        }
        _ => (0, rest),
    };
    match (sep, end) {
        (b'T', b"Z") | (b' ', b"") => {}
        _ => return None,
    }
    // A leap second (`:60`) is no valid time here and goes to chrono.
    let date = chrono::NaiveDate::from_ymd_opt(year as i32, month, day)?;
    Some(date.and_hms_nano_opt(hour, minute, second, nano)?.and_utc())
}

/// Every spelling [`parse_timestamp`] reads, through chrono's readers.
fn any_timestamp(s: &str) -> Option<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    // An email `Date:` header (RFC 2822), and ISO 8601 offsets without a
    // colon (`+0000`).
    if let Ok(t) = DateTime::parse_from_rfc2822(s) {
        return Some(t.with_timezone(&Utc));
    }
    for fmt in ["%Y-%m-%dT%H:%M:%S%.f%z", "%Y-%m-%d %H:%M:%S%.f%z"] {
        if let Ok(t) = DateTime::parse_from_str(s, fmt) {
            return Some(t.with_timezone(&Utc));
        }
    }
    for fmt in [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, fmt) {
            return Some(Utc.from_utc_datetime(&t));
        }
    }
    // A zone named after a time with none (`2026-12-01 09:00 UTC`).
    if let Some(x) = s.strip_suffix(" UTC").or_else(|| s.strip_suffix(" GMT")) {
        return if x.ends_with(" UTC") || x.ends_with(" GMT") {
            None
        } else {
            any_timestamp(x)
        };
    }
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        let n: i64 = s.parse().ok()?;
        // Heuristic by magnitude: microseconds, milliseconds or seconds.
        return if n > 100_000_000_000_000 {
            DateTime::from_timestamp_micros(n)
        } else if n > 100_000_000_000 {
            DateTime::from_timestamp_millis(n)
        } else {
            DateTime::from_timestamp(n, 0)
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The readers as nom parsers over `&str` with nom's default error type,
    /// as first written: the byte readers above must agree with them.
    mod str_reference {
        use nom::character::complete::{char, digit1, space0};
        use nom::combinator::{opt, recognize};
        use nom::sequence::preceded;
        use nom::{IResult, Parser};

        use super::super::ValueError;

        fn approx_prefix(i: &str) -> IResult<&str, ()> {
            let (i, _) = space0(i)?;
            let (i, _) = opt(nom::branch::alt((
                nom::bytes::complete::tag("~"),
                nom::bytes::complete::tag("≈"),
                nom::bytes::complete::tag_no_case("about "),
                nom::bytes::complete::tag_no_case("approx. "),
                nom::bytes::complete::tag_no_case("approx "),
            )))
            .parse(i)?;
            let (i, _) = space0(i)?;
            Ok((i, ()))
        }

        fn decimal(i: &str) -> IResult<&str, &str> {
            recognize((digit1, opt(preceded(char('.'), digit1)))).parse(i)
        }

        pub(super) fn percent(s: &str) -> Result<u8, ValueError> {
            let parsed: IResult<&str, (Option<char>, &str)> =
                preceded(approx_prefix, (opt(char('-')), decimal)).parse(s);
            let (after, (minus, num)) = parsed.map_err(|_| ValueError::NotANumber)?;
            let (after, _) = (space0::<&str, nom::error::Error<&str>>, opt(char('%')))
                .parse(after)
                .map_err(|_| ValueError::NotANumber)?;
            if after.trim_start().starts_with(|c: char| c.is_ascii_digit()) {
                return Err(ValueError::NotANumber);
            }
            let num_end = num.as_ptr() as usize - s.as_ptr() as usize + num.len();
            if super::super::is_count_of_tokens(s.as_bytes().get(num_end), after) {
                return Err(ValueError::NotANumber);
            }
            let v: f64 = num.parse().map_err(|_| ValueError::NotANumber)?;
            let v = if minus.is_some() { -v } else { v };
            if !(0.0..=100.0).contains(&v) {
                return Err(ValueError::OutOfRange(v));
            }
            Ok(v.round() as u8)
        }

        pub(super) fn count(s: &str) -> Result<u32, ValueError> {
            let parsed: IResult<&str, (Option<char>, &str)> =
                preceded(approx_prefix, (opt(char('-')), digit1)).parse(s);
            let (_, (minus, num)) = parsed.map_err(|_| ValueError::NotANumber)?;
            if minus.is_some() {
                return Err(ValueError::OutOfRange(
                    -num.parse::<f64>().unwrap_or(f64::MAX),
                ));
            }
            num.parse::<u32>()
                .map_err(|_| ValueError::OutOfRange(num.parse::<f64>().unwrap_or(f64::MAX)))
        }
    }

    proptest::proptest! {
        #[test]
        fn numbers_read_as_str_parsers_read_them(
            s in "[ \t]{0,2}(~|≈|about |ABOUT |approx\\. |Approx |aboutx)?[ \t]{0,2}-?[0-9]{0,12}(\\.[0-9]{0,3})?[ \t%.]{0,3}[0-9a-z( ]{0,4}"
        ) {
            proptest::prop_assert_eq!(percent(&s), str_reference::percent(&s));
            proptest::prop_assert_eq!(count(&s), str_reference::count(&s));
        }

        #[test]
        fn numbers_read_as_str_parsers_read_them_on_any_text(s in "\\PC{0,20}") {
            proptest::prop_assert_eq!(percent(&s), str_reference::percent(&s));
            proptest::prop_assert_eq!(count(&s), str_reference::count(&s));
        }
    }

    /// PASS/FAIL and yes/no as first written, through `to_uppercase`
    /// and `to_ascii_lowercase` strings.
    fn pass_fail_by_strings(s: &str) -> Result<bool, ValueError> {
        if is_template(s) {
            return Err(ValueError::NotInEnum);
        }
        match first_word(s).to_uppercase().as_str() {
            "PASS" | "PASSED" | "PASSING" | "OK" | "TRUE" | "YES" | "GREEN" | "✅" | "✓" | "✔" => {
                Ok(true)
            }
            "FAIL" | "FAILED" | "FAILING" | "FALSE" | "NO" | "RED" | "❌" | "✗" | "✘" => {
                Ok(false)
            }
            _ => Err(ValueError::NotInEnum),
        }
    }

    fn yes_no_by_strings(s: &str) -> Result<bool, ValueError> {
        if is_template(s) {
            return Err(ValueError::NotInEnum);
        }
        match first_word(s).to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" | "1" => Ok(true),
            "false" | "no" | "n" | "0" => Ok(false),
            _ => Err(ValueError::NotInEnum),
        }
    }

    proptest::proptest! {
        #[test]
        fn two_valued_words_read_as_with_strings(
            s in "[ ]?(PASS|FAIL|pass|Passed|PASSING|ok|true|yes|Y|green|fail|FAILED|failing|false|No|n|red|1|0|paß|PAẞ|✅|✓|✔|❌|✗|✘|ﬁ|x|é|[ (,;.|])*"
        ) {
            proptest::prop_assert_eq!(pass_fail(&s), pass_fail_by_strings(&s));
            proptest::prop_assert_eq!(yes_no(&s), yes_no_by_strings(&s));
        }
    }

    /// A value that opens with a mark is refused by both two-valued
    /// readers as written (`extract` reads it through its decorations at
    /// once, without asking them).
    #[test]
    fn marked_two_valued_words_are_refused_as_written() {
        let words = [
            "pass", "PASS", "Passed", "ok", "true", "yes", "y", "1", "green", "fail", "FAILED",
            "false", "no", "n", "0", "red", "✅", "❌", "",
        ];
        for mark in ["*", "**", "_", "__", "`", "***"] {
            for w in words {
                for v in [
                    format!("{mark}{w}{mark}"),
                    format!("{mark}{w}"),
                    format!("{mark} {w}"),
                ] {
                    assert!(pass_fail(&v).is_err(), "{v:?}");
                    assert!(yes_no(&v).is_err(), "{v:?}");
                }
            }
        }
    }

    #[test]
    fn percentages_keep_their_meaning() {
        assert_eq!(percent("45%"), Ok(45));
        assert_eq!(percent("45 %"), Ok(45));
        assert_eq!(percent("~45%"), Ok(45));
        assert_eq!(percent("45"), Ok(45));
        assert_eq!(percent("45.5%"), Ok(46));
        assert_eq!(percent("45% (rough)"), Ok(45));
        assert_eq!(percent("150%"), Err(ValueError::OutOfRange(150.0)));
        assert_eq!(percent("-5%"), Err(ValueError::OutOfRange(-5.0)));
        assert_eq!(count("-1"), Err(ValueError::OutOfRange(-1.0)));
        assert_eq!(pass_fail("PASS | FAIL"), Err(ValueError::NotInEnum));
        assert_eq!(yes_no("true | false"), Err(ValueError::NotInEnum));
        assert_eq!(percent("lots"), Err(ValueError::NotANumber));
    }

    #[test]
    fn counts() {
        assert_eq!(count("3"), Ok(3));
        assert_eq!(count("3 (max)"), Ok(3));
        assert_eq!(count("three"), Err(ValueError::NotANumber));
    }

    #[test]
    fn pass_fail_is_tri_state_at_the_caller() {
        assert_eq!(pass_fail("PASS"), Ok(true));
        assert_eq!(pass_fail("pass (2 skipped)"), Ok(true));
        assert_eq!(pass_fail("✅"), Ok(true));
        assert_eq!(pass_fail("FAIL"), Ok(false));
        assert_eq!(pass_fail("flaky"), Err(ValueError::NotInEnum));
        assert_eq!(pass_fail("❌ 2 failing"), Ok(false));
        assert_eq!(pass_fail("Passing, 3 skipped"), Ok(true));
        assert_eq!(pass_fail("passingly"), Err(ValueError::NotInEnum));
    }

    proptest::proptest! {
        #[test]
        fn first_word_reads_as_on_chars(s in "[ \t\u{a0}\u{b}\u{85}(,;.]{0,3}(a|P|é|✅|,|\\.| |\t|\u{a0}|\u{2003}){0,6}") {
            proptest::prop_assert_eq!(first_word(&s), first_word_chars(&s));
        }
    }

    #[test]
    fn enum_words_normalise() {
        let allowed = ["SPEC_UNCLEAR", "STUCK"];
        assert_eq!(
            enum_known("spec-unclear", &allowed),
            Some("SPEC_UNCLEAR".into())
        );
        assert_eq!(
            enum_known(" Spec unclear ", &allowed),
            Some("SPEC_UNCLEAR".into())
        );
        assert!(matches!(
            enum_known("STUCK", &allowed),
            Some(Cow::Borrowed(_))
        ));
        assert_eq!(enum_known("confused", &allowed), None);
        assert_eq!(enum_known("spéc-unclear", &allowed), None);
        assert_eq!(enum_normalised(" spec-unclear é "), "SPEC_UNCLEAR_é");
    }

    /// [`enum_known`] as first written: a canonical value looked up as it
    /// is, any other compared through `enum_byte`.
    fn enum_known_in_two_passes<'a>(s: &'a str, allowed: &[&'static str]) -> Option<Cow<'a, str>> {
        let t = trim(s);
        if t.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        {
            return allowed.contains(&t).then_some(Cow::Borrowed(t));
        }
        allowed
            .iter()
            .find(|a| {
                a.len() == t.len() && a.bytes().zip(t.bytes()).all(|(a, b)| a == enum_byte(b))
            })
            .map(|a| Cow::Borrowed(*a))
    }

    proptest::proptest! {
        /// One pass finds what two did, for every enum of capitals.
        #[test]
        fn enum_known_reads_as_in_two_passes(
            s in "( |-|_|STUCK|stuck|SPEC|spec|UNCLEAR|Unclear|CONTEXT|high|HIGH|FAIL|TESTS|é|1|x){0,4}"
        ) {
            use crate::extract::{CHECKPOINT_REASONS, FAILURE_TYPES, ISSUE_TYPES};
            for allowed in [ISSUE_TYPES, FAILURE_TYPES, CHECKPOINT_REASONS] {
                proptest::prop_assert_eq!(enum_known(&s, allowed), enum_known_in_two_passes(&s, allowed));
            }
        }

        /// The normalised word made byte by byte is the one made from
        /// `char`s, upper-cased with `-` and a space read as `_`.
        #[test]
        fn enum_words_normalise_as_by_char(s in "( |-|_|a|Z|é|ß|ǅ|\\t|✅|x|\\u{a0}){0,12}") {
            let by_char: String = crate::trim::trim(&s)
                .chars()
                .map(|c| match c {
                    '-' | ' ' => '_',
                    c => c.to_ascii_uppercase(),
                })
                .collect();
            proptest::prop_assert_eq!(enum_normalised(&s), by_char);
        }
    }

    proptest::proptest! {
        /// The hand reader of the common spellings reads what chrono's
        /// readers read, or nothing: on text shaped like a timestamp
        /// with every separator, fraction length and ending near the
        /// common ones, and out-of-range fields.
        #[test]
        fn common_timestamps_read_as_chrono_reads_them(
            s in "[0-9]{4}-(0[0-9]|1[0-3])-([0-2][0-9]|3[0-2])[T t]([01][0-9]|2[0-4]):[0-6][0-9](:[0-6][0-9])?(\\.[0-9]{0,11})?(Z|z|\\+00:00|-05:30| UTC| GMT|)",
        ) {
            if let Some(t) = common_timestamp(s.as_bytes()) {
                proptest::prop_assert_eq!(Some(t), any_timestamp(&s));
            }
            // The whole reader as chrono's readers alone read it.
            proptest::prop_assert_eq!(parse_timestamp(&s), any_timestamp(&s));
        }

        /// The digits tested at once read as testing each in turn did
        /// (the reader as it was, below): written timestamps, both
        /// spellings, every fraction length, with any one byte swapped
        /// for a digit, a byte next to the digits, a separator or a
        /// letter.
        #[test]
        fn common_timestamps_read_as_digit_by_digit(
            secs in -62_167_219_200i64..253_402_300_800,
            nano in 0u32..1_000_000_000,
            naive in proptest::bool::ANY,
            at in 0usize..32,
            byte in proptest::sample::select(b"/:;a .-T0123456789".to_vec()),
        ) {
            let t = DateTime::<Utc>::from_timestamp(secs, nano).unwrap();
            let mut s = match naive {
                false => t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
                true => t.format("%Y-%m-%d %H:%M:%S%.f").to_string(),
            }
            .into_bytes();
            if let Some(b) = s.get_mut(at) {
                *b = byte;
            }
            let s = String::from_utf8(s).unwrap();
            fn by_digit(s: &[u8]) -> Option<DateTime<Utc>> {
                let [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1, sep, h0, h1, b':', i0, i1, b':', s0, s1, rest @ ..] =
                    s
                else {
                    return None;
                };
                let digit = |b: u8| {
                    let d = b.wrapping_sub(b'0');
                    (d < 10).then_some(u32::from(d))
                };
                let two = |a: u8, b: u8| Some(digit(a)? * 10 + digit(b)?);
                let year = two(*y0, *y1)? * 100 + two(*y2, *y3)?;
                let (month, day) = (two(*m0, *m1)?, two(*d0, *d1)?);
                let (hour, minute, second) = (two(*h0, *h1)?, two(*i0, *i1)?, two(*s0, *s1)?);
                let (nano, end) = match rest {
                    [b'.', fraction @ ..] => {
                        let digits = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
                        if !(1..=9).contains(&digits) {
                            return None;
                        }
                        let mut nano = 0;
                        for &b in &fraction[..digits] {
                            nano = nano * 10 + digit(b)?;
                        }
                        (nano * 10u32.pow(9 - digits as u32), &fraction[digits..])
                    }
                    _ => (0, rest),
                };
                match (sep, end) {
                    (b'T', b"Z") | (b' ', b"") => {}
                    _ => return None,
                }
                let date = chrono::NaiveDate::from_ymd_opt(year as i32, month, day)?;
                Some(date.and_hms_nano_opt(hour, minute, second, nano)?.and_utc())
            }
            proptest::prop_assert_eq!(common_timestamp(s.as_bytes()), by_digit(s.as_bytes()));
        }

        /// Every instant from year 0 to 9999, written as amail writes it
        /// (RFC 3339, `Z`, as many fraction digits as it needs) or as
        /// the Python server stores it, takes the hand reader.
        #[test]
        fn written_timestamps_take_the_common_path(
            secs in -62_167_219_200i64..253_402_300_800,
            nano in 0u32..1_000_000_000,
            micros in proptest::bool::ANY,
        ) {
            let nano = if micros { nano / 1000 * 1000 } else { nano };
            let t = DateTime::<Utc>::from_timestamp(secs, nano).unwrap();
            let rfc = t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true);
            proptest::prop_assert_eq!(common_timestamp(rfc.as_bytes()), Some(t));
            let naive = t.format("%Y-%m-%d %H:%M:%S%.f").to_string();
            proptest::prop_assert_eq!(common_timestamp(naive.as_bytes()), Some(t));
        }
    }

    #[test]
    fn shares_of_the_window() {
        for (v, read) in [
            ("90k/200k tokens", Some(45)),
            ("90k / 200k", Some(45)),
            ("90,000/200,000 tokens", Some(45)),
            ("~90k of 200k", Some(45)),
            ("90k tokens of 200k", Some(45)),
            ("1.5M/2M", Some(75)),
            ("90/200", Some(45)),
            ("200k/100k", None),
            ("90k/0", None),
            ("90k tokens", None),
            ("45%", None),
            ("45 (of 100)", None),
            ("90k/200kb", None),
            ("", None),
        ] {
            assert_eq!(share_of(v), read, "{v}");
        }
        // As written, a count of tokens is no percentage.
        assert_eq!(percent("90k/200k tokens"), Err(ValueError::NotANumber));
        assert_eq!(percent("90/200"), Err(ValueError::NotANumber));
        assert_eq!(percent("90k"), Err(ValueError::NotANumber));
        assert_eq!(percent("45% (90k/200k)"), Ok(45));
        assert_eq!(percent("45 percent"), Ok(45));
        assert_eq!(percent("45 mostly idle"), Ok(45));
    }

    #[test]
    fn tallies_read_as_a_person_reads_them() {
        for (v, read) in [
            ("42 passed, 0 failed", Some(true)),
            ("40 passed, 2 failed", Some(false)),
            ("clean (0 warnings)", Some(true)),
            ("no warnings", Some(true)),
            ("No errors", Some(true)),
            ("zero failures", Some(true)),
            ("0 warnings, 2 errors", Some(false)),
            ("12/12 targets", Some(true)),
            ("40/42 passing", Some(false)),
            ("all passing", Some(true)),
            ("118 tests passed", Some(true)),
            ("118 pass", Some(true)),
            ("40 tests passed, 2 tests failed", Some(false)),
            ("0 test failures", Some(true)),
            ("118 tests", None),
            ("3 warnings", None),
            ("see the CI log", None),
            ("0/0", None),
            ("", None),
        ] {
            assert_eq!(tally(v), read, "{v}");
        }
        // `no warnings` was FAIL by its first word; a lone `no` still is.
        assert_eq!(pass_fail("no warnings"), Err(ValueError::NotInEnum));
        assert_eq!(pass_fail("No"), Ok(false));
        assert_eq!(pass_fail("no, it fails"), Ok(false));
    }

    #[test]
    fn placeholders_and_fractions() {
        for v in [
            "N/A", "n/a", "None", "NONE", "null", "TBD", "-", "—", "n.a.",
        ] {
            assert!(is_placeholder(v), "{v}");
        }
        for v in ["", "ol-1", "nonee", "abc1234", "NA!", "--", "0"] {
            assert!(!is_placeholder(v), "{v}");
        }
        assert_eq!(fraction_of_one("0.45"), Some(45));
        assert_eq!(fraction_of_one("0.456"), Some(46));
        assert_eq!(fraction_of_one("0.0"), None);
        assert_eq!(fraction_of_one("0.45%"), None);
        assert_eq!(fraction_of_one("1.5"), None);
        assert_eq!(fraction_of_one("0."), None);
        assert_eq!(fraction_of_one("0.12345"), None);
    }

    #[test]
    fn timestamps_in_every_dialect() {
        let want = Utc.with_ymd_and_hms(2026, 1, 31, 10, 0, 0).unwrap();
        assert_eq!(parse_timestamp("2026-01-31T10:00:00Z"), Some(want));
        assert_eq!(parse_timestamp("2026-01-31T11:00:00+01:00"), Some(want));
        assert_eq!(parse_timestamp("2026-01-31 10:00:00.000000"), Some(want));
        assert_eq!(parse_timestamp("1769853600000000"), Some(want));
        assert_eq!(parse_timestamp("yesterday"), None);
        // A zone named after a time with none, to the minute too.
        assert_eq!(parse_timestamp("2026-01-31 10:00 UTC"), Some(want));
        assert_eq!(parse_timestamp("2026-01-31 10:00:00 GMT"), Some(want));
        assert_eq!(parse_timestamp("2026-01-31T10:00 UTC"), Some(want));
        assert_eq!(parse_timestamp("2026-01-31 10:00 UTC UTC"), None);
        // The common spellings, read by hand; what they cannot hold goes
        // to chrono (a leap second), or is no time at all (February 30).
        let t = Utc.with_ymd_and_hms(2026, 9, 13, 5, 32, 15).unwrap();
        let nine = t + chrono::Duration::nanoseconds(81_790_467);
        assert_eq!(
            common_timestamp(b"2026-09-13T05:32:15.081790467Z"),
            Some(nine)
        );
        assert_eq!(
            common_timestamp(b"2026-09-13 05:32:15.081790"),
            Some(t + chrono::Duration::microseconds(81_790))
        );
        assert_eq!(common_timestamp(b"2016-12-31T23:59:60Z"), None);
        assert!(parse_timestamp("2016-12-31T23:59:60Z").is_some());
        assert_eq!(parse_timestamp("2026-02-30T00:00:00Z"), None);
    }
}
