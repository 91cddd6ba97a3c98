//! Reading the subject line: `Re:`/`Fwd:` chain, bead id, type token.
//!
//! Accepted shapes (after the reply chain): `[bead] TYPE words`,
//! `bead: TYPE words`, `TYPE words`, `TYPE [bead] words`. The type is a whole
//! token, case-insensitive, with `_`, `-` or a space between its words, so
//! `Abandoned` is not DONE and `work in progress` is not PROGRESS.

use crate::grammar::{bracket_bead, colon_bead, reply_prefix};
use crate::model::MessageType;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Subject<'a> {
    pub is_reply: bool,
    pub bead: Option<&'a str>,
    pub kind: Option<MessageType>,
    /// The token that stood where the type goes, as written.
    pub raw_type: Option<&'a str>,
}

/// Longest type names have two words (`HELP REQUEST`); try those first.
fn type_at(s: &str) -> Option<(MessageType, &str, &str)> {
    type_at_with(s, trim_end_punctuation)
}

/// [`type_at`], with `trim` cutting what may follow a type token.
#[inline]
fn type_at_with(s: &str, trim: impl Fn(&str) -> &str + Copy) -> Option<(MessageType, &str, &str)> {
    let mut words = word_spans(s);
    let (start, first) = words.next()?;
    if let Some((at, second)) = words.next() {
        if let Some(found) = type_in(s, start, at + second.len(), trim) {
            return Some(found);
        }
    }
    type_in(s, start, start + first.len(), trim)
}

/// The type named by `s[start..end]` (trailing punctuation aside): the
/// type, its token and the text after it.
#[inline]
fn type_in(
    s: &str,
    start: usize,
    end: usize,
    trim: impl Fn(&str) -> &str,
) -> Option<(MessageType, &str, &str)> {
    let candidate = trim(s.get(start..end)?);
    Some((
        MessageType::from_token(candidate)?,
        candidate,
        s.get(end..)?,
    ))
}

/// [`trim_end_punctuation`], and decorations (`PROGRESS**`, `DONE✅`).
fn trim_end_decorated(w: &str) -> &str {
    let w = crate::decor::strip_end(w);
    trim_end_punctuation(w)
}

/// `w` without trailing `:`, `.`, `,`, `;` and `!` (`DONE:`, `DONE!`).
/// A word that ends otherwise (nearly every type token) is decided by its
/// last byte, inline: the call was ~20 instructions a subject.
#[inline(always)]
fn trim_end_punctuation(w: &str) -> &str {
    if !matches!(w.as_bytes().last(), Some(b':' | b'.' | b',' | b';' | b'!')) {
        return w;
    }
    let punctuation = w
        .bytes()
        .rev()
        .take_while(|b| matches!(b, b':' | b'.' | b',' | b';' | b'!'))
        .count();
    // ASCII punctuation: the cut is on a character boundary.
    w.get(..w.len() - punctuation).unwrap_or(w)
}

/// The words of `s` (split on single spaces, empty pieces skipped) with
/// their byte offsets.
fn word_spans(s: &str) -> impl Iterator<Item = (usize, &str)> {
    let b = s.as_bytes();
    let mut pos = 0;
    std::iter::from_fn(move || {
        pos += b.get(pos..)?.iter().take_while(|&&c| c == b' ').count();
        let start = pos;
        let len = b[start..].iter().take_while(|&&c| c != b' ').count();
        pos += len;
        (len > 0).then(|| (start, &s[start..pos]))
    })
}

/// Looks like a type token someone meant: upper-case letters, digits and
/// `_`/`-`, at least two characters, at least one letter.
fn looks_like_type(w: &str) -> bool {
    w.len() >= 2
        && w.bytes().any(|b| b.is_ascii_uppercase())
        && w.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

pub(crate) fn parse_subject(subject: &str) -> Subject<'_> {
    let s = crate::trim::trim(subject);
    plain_subject(s).unwrap_or_else(|| parse_subject_in_full(s))
}

/// The usual subject, `[bead] TYPE` with nothing after the type but
/// punctuation, read in one scan: what [`parse_subject_in_full`] reads
/// from it (no reply prefix can open with `[`; the bead is the bracket's
/// text up to the first `]`, trimmed; the type is the one word left, as
/// `type_at` reads a lone word). `None` for any other shape, which the
/// full parser then reads. (The reply, bracket and colon parsers and the
/// word splitter were most of a small message's subject cost.) Always
/// inlined: [`glyphs_then_plain`] reads with it too, and as one function
/// of two callers its call cost the plain message ~30 instructions.
#[inline(always)]
fn plain_subject(s: &str) -> Option<Subject<'_>> {
    let after_open = s.strip_prefix('[')?;
    // Searched eight bytes at a time (see `find`).
    let close = crate::find::either(after_open.as_bytes(), b']', b'[')?;
    if close == 0 || after_open.as_bytes()[close] != b']' {
        return None;
    }
    // `[` and `]` are ASCII: both cuts are on character boundaries.
    let bead = crate::trim::trim(&after_open[..close]);
    let rest = crate::grammar::trim_start_blanks(&after_open[close + 1..]);
    let first = *rest.as_bytes().first()?;
    if bead.is_empty()
        || !first.is_ascii_graphic()
        || crate::find::byte(rest.as_bytes(), b' ').is_some()
    {
        return None;
    }
    let token = trim_end_punctuation(rest);
    Some(Subject {
        is_reply: false,
        bead: Some(bead),
        kind: Some(MessageType::from_token(token)?),
        raw_type: Some(token),
    })
}

/// [`parse_subject`] of a trimmed subject, every shape. Out of line and
/// cold: inlined into the plain message's path, which never runs it, its
/// growth in the fifteenth round moved that path and cost the plain
/// message 20% of its wall time on the same instructions; out of line it
/// gives back about a quarter of it (best of 5, 2,000,000 parses: 417-429
/// ms inline, 402-404 ms here, 347-349 ms before the round), the corpus
/// unchanged (785-798 against 788-811 ms).
#[cold]
#[inline(never)]
fn parse_subject_in_full(subject: &str) -> Subject<'_> {
    // A reply to the usual subject (`Re: [ol-6] HELP_REQUEST`, the usual
    // HELP_RESPONSE): `Re:` and blanks are one reply prefix, and what
    // follows opens with `[`, where no other reply prefix opens, so the
    // reading below reads the rest as it reads a subject of its own,
    // which `plain_subject` reads in one scan (~250 instructions less
    // than the reply, bracket and word parsers; a test holds the two
    // alike).
    if let Some(rest) = subject.strip_prefix("Re:") {
        if let Some(plain) = plain_subject(crate::grammar::trim_start_blanks(rest)) {
            return Subject {
                is_reply: true,
                ..plain
            };
        }
    }
    if let Some(plain) = slotted_shape(subject) {
        return plain;
    }
    parse_subject_general(subject)
}

/// What the plain and the decorated readings find in a subject that
/// opens with `(`, or with `[bead]` and then `[`, `(` or `:` (`(ol-9)
/// PROGRESS`, `[ol-9] [PROGRESS]`, `[ol-9]: DONE`), decided by its first
/// bytes: no type (every word either reading could take for one opens
/// with that `[`, `(` or `:`, which no type token does, and neither
/// strips it), and the plain reading's bead, the bracket's text. `None`
/// for any other subject. (Both readings were ~1,700 instructions such a
/// subject before the slotted reading; tests hold the three alike.)
#[inline]
fn slotted_shape(s: &str) -> Option<Subject<'_>> {
    match s.as_bytes().first()? {
        b'(' => Some(Subject::default()),
        // `[bead]`, blanks, then the next slot's opening.
        b'[' => {
            let (rest, bead) = bracket_bead(s)?;
            matches!(rest.as_bytes().first()?, b'[' | b'(' | b':').then(|| Subject {
                bead: (!bead.is_empty()).then_some(bead),
                ..Subject::default()
            })
        }
        _ => None,
    }
}

/// [`parse_subject_in_full`] of any subject.
#[inline]
fn parse_subject_general(subject: &str) -> Subject<'_> {
    if opens_with_decoration(subject) {
        return Subject::default();
    }
    let mut out = Subject::default();
    let (is_reply, mut s) = after_replies(subject, |s| s);
    out.is_reply = is_reply;
    if let Some((rest, bead)) = bracket_bead(s) {
        if !bead.is_empty() {
            out.bead = Some(bead);
        }
        s = rest;
    } else if let Some((rest, bead)) = bead_before_colon(s) {
        // `id: TYPE` only when a type follows, so `Note: x` keeps its text.
        if type_at(rest).is_some() {
            out.bead = Some(bead);
            s = rest;
        }
    }
    match type_at(crate::trim::trim_start(s)) {
        Some((kind, raw, rest)) => {
            out.kind = Some(kind);
            out.raw_type = Some(raw);
            if out.bead.is_none() {
                out.bead = trailing_bead(rest);
            }
        }
        None => {
            let first = s.split_whitespace().next().unwrap_or("");
            let first = first.trim_end_matches([':', '.', ',', ';', '!']);
            if looks_like_type(first) {
                out.raw_type = Some(first);
            }
        }
    }
    out
}

/// A subject the plain grammar finds no type in, read through decorations
/// (see `decor`): an emoji or glyph first (`🚧 [ol-1] PROGRESS`), bold or
/// code around it (`**[ol-1] PROGRESS**`), a glyph between the bead and
/// the type (`[ol-1] ✅ DONE`). The subject and the byte offset of the
/// first decoration read through, or of the first slot of a subject
/// read as two slots ([`parse_slotted`]); `None` when no type is found
/// these ways either.
pub(crate) fn parse_decorated(subject: &str) -> Option<(Subject<'_>, usize)> {
    // Where the decorated reading finds nothing by the subject's first
    // bytes (see `slotted_shape`), the slotted reading at once.
    if slotted_shape(subject).is_some() {
        return parse_slotted(subject);
    }
    match glyphs_then_plain(subject) {
        Some(plain) => Some((plain, 0)),
        // Then as two slots (`[ol-9] [PROGRESS]`, `ol-9 | PROGRESS`), then
        // after words (`Status update: [ol-9] PROGRESS`).
        None => parse_decorated_in_full(subject)
            .or_else(|| parse_slotted(subject))
            .or_else(|| prose_then_bead(subject)),
    }
}

/// A subject with words before its `[bead] TYPE` (`Status update:
/// [ol-9] PROGRESS`, `Heads up - [ol-9] HELP_REQUEST: the pool`): read
/// from the first `[` after a blank that opens a bead-shaped bead (see
/// [`bead_shaped`]) with a type written in capitals after it, as the
/// plain grammar reads `[bead] TYPE words`; the offset is the words'. A
/// type in any other case there is a word of a sentence (`Question about
/// [ol-9] progress`), and a bracket that is no bead a tag (`Heads up
/// [WIP] DONE`): both left alone. Cold: only subjects every other reading
/// found no type in reach it.
#[cold]
#[inline(never)]
fn prose_then_bead(subject: &str) -> Option<(Subject<'_>, usize)> {
    let (is_reply, s) = after_replies(subject, crate::grammar::trim_start_blanks);
    let at = s.as_ptr() as usize - subject.as_ptr() as usize;
    let b = s.as_bytes();
    let mut from = 1;
    while let Some(i) = crate::find::byte(b.get(from..)?, b'[') {
        let open = from + i;
        // After a blank (ASCII): on a character boundary.
        if matches!(b[open - 1], b' ' | b'\t') {
            // Through the full reading's one door: a second caller of
            // the general reading took it out of line there (~3,000
            // instructions a round of the agents corpus).
            let mut out = parse_subject_in_full(s.get(open..)?);
            let typed = out.raw_type.is_some_and(looks_like_type) && out.kind.is_some();
            if typed && out.bead.is_some_and(bead_shaped) {
                out.is_reply |= is_reply;
                return Some((out, at));
            }
        }
        from = open + 1;
    }
    None
}

/// Whether `subject` opens with a glyph (`🚧 [ol-1] PROGRESS`) or a mark
/// that no bead opens with (`**[ol-1] DONE**`, a decorated type line):
/// the plain grammar finds nothing in such a subject (no reply word,
/// bracket, bead or type token opens with one; a test holds
/// [`parse_subject`] to `Subject::default()` there), so
/// [`parse_subject_in_full`] answers at once, and its caller goes on to
/// the decorated reading. (The plain reading, the bead's Unicode run and
/// the words' lookups, was ~700 instructions such a subject.) Not `_`,
/// which a bead may open with (`_ol-1: DONE`).
#[inline]
fn opens_with_decoration(subject: &str) -> bool {
    match subject.as_bytes().first() {
        Some(b'*' | b'`' | b'#' | b'>' | b'~' | b'|') => true,
        _ => crate::glyph::opens_with_emoji(subject),
    }
}

/// [`parse_decorated`] of its usual subject: glyphs, one space and the
/// plain `[bead] TYPE` (`🚧 [ol-1] PROGRESS`), read by [`plain_subject`]
/// after the glyphs, with the first decoration at 0. What the full
/// reading finds there: its first strip passes over the glyphs and the
/// space and stops at `[`, its bracket is the plain one, and it strips
/// nothing more from a bead that opens and ends with a letter or digit
/// or from a type token (a name, then `:`, `.`, `,`, `;` or `!`). `None`
/// for any other subject. (A test holds the two alike; the full reading
/// was ~900 instructions such a subject, five of the agents corpus's 78.)
#[inline]
fn glyphs_then_plain(subject: &str) -> Option<Subject<'_>> {
    let (at, after) = subject
        .char_indices()
        .find(|&(_, c)| !crate::glyph::is_emoji(c))?;
    if at == 0 || after != ' ' {
        return None;
    }
    // After a space (one byte): on a character boundary.
    let plain = plain_subject(subject.get(at + 1..)?)?;
    let bead = plain.bead?.as_bytes();
    (bead.first()?.is_ascii_alphanumeric() && bead.last()?.is_ascii_alphanumeric()).then_some(plain)
}

/// [`parse_decorated`] of any subject.
fn parse_decorated_in_full(subject: &str) -> Option<(Subject<'_>, usize)> {
    use crate::decor::strip_start;
    let base = subject.as_ptr() as usize;
    let mut first_decoration: Option<usize> = None;
    let mut note = |before: &str, after: &str| {
        let t = before.trim_start();
        if t.len() != after.len() && first_decoration.is_none() {
            first_decoration = Some(t.as_ptr() as usize - base);
        }
    };
    let mut out = Subject::default();
    let (is_reply, mut s) = after_replies(subject, |s| {
        let t = strip_start(s);
        note(s, t);
        t
    });
    out.is_reply = is_reply;
    if let Some((rest, bead)) = bracket_bead(s) {
        let bead = crate::decor::strip(bead);
        if !bead.is_empty() {
            out.bead = Some(bead);
        }
        let t = strip_start(rest);
        note(rest, t);
        s = t;
    } else if let Some((rest, bead)) = bead_before_colon(s) {
        let t = strip_start(rest);
        if type_at_with(t, trim_end_decorated).is_some() {
            note(rest, t);
            out.bead = Some(bead);
            s = t;
        }
    }
    let (kind, raw, rest) = type_at_with(s, trim_end_decorated)?;
    // Decorations after the token (`PROGRESS**`): the token is cut before
    // them.
    let after = &s[raw.as_ptr() as usize - s.as_ptr() as usize + raw.len()..];
    if after.starts_with(crate::decor::is_decoration) {
        note(after, "");
    }
    out.kind = Some(kind);
    out.raw_type = Some(raw);
    if out.bead.is_none() {
        out.bead = trailing_bead(rest).map(crate::decor::strip);
    }
    Some((out, first_decoration?))
}

/// A subject neither the plain nor the decorated reading finds a type in,
/// read as two slots, a bead and a type in either order, each in square
/// brackets or parentheses or bare, with a separator between them
/// (`[ol-9] [PROGRESS] auth`, `[PROGRESS] [ol-9] auth`, `(ol-9) PROGRESS`,
/// `[ol-9]: PROGRESS`, `[ol-9] - PROGRESS`, `ol-9 | PROGRESS | auth`):
/// what language models write around the protocol's `[bead] TYPE`. The
/// bead must be bead-shaped (letters and digits, `-`, `_`, `.`, `/`,
/// with a digit, `-` or `.`: `[WIP] [DONE]` is a DONE with no bead,
/// `[auth] [ol-9] PROGRESS` is left alone); a bare bead
/// needs a separator (`:`, `|`, `-`, `–`, `—`, `/`, glyphs) before the
/// type, so that `v2 DONE` is left alone; a type in the first slot must
/// be wrapped (a bare one is the plain reading's). The subject and the
/// byte offset of the first slot; `None` when the slots do not read so.
/// Cold: only subjects the other readings found no type in reach it.
#[cold]
#[inline(never)]
fn parse_slotted(subject: &str) -> Option<(Subject<'_>, usize)> {
    use crate::decor::strip_start;
    let mut out = Subject::default();
    let (is_reply, s) = after_replies(subject, strip_start);
    out.is_reply = is_reply;
    let at = s.as_ptr() as usize - subject.as_ptr() as usize;
    let (first, first_wrapped, after_first) = slot(s)?;
    let (sep, rest) = separator(after_first);
    if first_wrapped {
        if let Some(kind) = wrapped_type(first) {
            out.kind = Some(kind);
            out.raw_type = Some(first);
            if let Some((second, wrapped, _)) = slot(rest) {
                if (wrapped || sep) && bead_shaped(second) {
                    out.bead = Some(second);
                }
            }
            return Some((out, at));
        }
    }
    if !(first_wrapped || sep) {
        return None;
    }
    let bead = bead_shaped(first);
    let (kind, raw) = match slot(rest)? {
        // A tag before a type in brackets (`[WIP] [DONE]`): the type,
        // and no bead.
        (inner, true, _) => (wrapped_type(inner)?, inner),
        (_, false, _) if bead => {
            let (kind, raw, _) = type_at_with(rest, trim_end_decorated)?;
            (kind, raw)
        }
        _ => return None,
    };
    out.bead = bead.then_some(first);
    out.kind = Some(kind);
    out.raw_type = Some(raw);
    Some((out, at))
}

/// `s` after its chain of reply prefixes (`Re: Fwd: `), and whether it
/// had one: `strip` is asked of `s` and of what follows each prefix, what
/// the reading passes over there (nothing for the plain reading,
/// decorations for the decorated and slotted ones, which may note them).
/// The one home of the chain for the three readings.
#[inline(always)]
fn after_replies<'a>(s: &'a str, mut strip: impl FnMut(&'a str) -> &'a str) -> (bool, &'a str) {
    let mut s = strip(s);
    let mut is_reply = false;
    // No reply word opens with another byte (after `reply_prefix`'s
    // blanks): its nom parser is not asked (~60 instructions a subject).
    while may_reply(s) {
        let Some((rest, _)) = reply_prefix(s) else {
            break;
        };
        is_reply = true;
        s = strip(rest);
    }
    (is_reply, s)
}

/// Whether `s` may open with a reply prefix (`Re:`, `Fwd:`, `Fw:` in
/// any case, after blanks): its first byte after blanks is `r` or `f`.
#[inline]
fn may_reply(s: &str) -> bool {
    matches!(
        crate::grammar::trim_start_blanks(s).as_bytes().first(),
        Some(b'R' | b'r' | b'F' | b'f')
    )
}

/// The slot `s` opens with: the text inside `[...]` or `(...)` (trimmed,
/// decorations aside; `true`), or its first word up to a blank, `|`,
/// `:` or `,` (`false`); and what follows it.
fn slot(s: &str) -> Option<(&str, bool, &str)> {
    let b = s.as_bytes();
    let close = match b.first()? {
        b'[' => b']',
        b'(' => b')',
        _ => {
            let end = b
                .iter()
                .position(|&c| matches!(c, b' ' | b'\t' | b'|' | b':' | b','))
                .unwrap_or(b.len());
            // ASCII cut: on a character boundary.
            let word = crate::decor::strip(s.get(..end)?);
            return (!word.is_empty()).then(|| (word, false, &s[end..]));
        }
    };
    let end = crate::grammar::bracketed(b, b[0], close)?;
    // `[`, `(`, `]` and `)` are ASCII: the cuts are on character boundaries.
    // Decorations aside, where the plain bead (`bracket_bead`) keeps
    // them: a slot is read only through decorations (`[**PROGRESS**]`),
    // and its text is tested as a type or a bead's shape, where the
    // plain reading's bead is what the subject wrote.
    let inner = crate::decor::strip(crate::trim::trim(&s[1..end]));
    (!inner.is_empty()).then(|| (inner, true, &s[end + 1..]))
}

/// `s` after blanks, one separator (`:`, `-`, `/`, or marks and glyphs
/// such as `|`, `—`) and blanks, and whether there was a separator.
fn separator(s: &str) -> (bool, &str) {
    let t = crate::grammar::trim_start_blanks(s);
    let u = t.strip_prefix([':', '-', '/']).unwrap_or(t);
    // `t` opens with no blank: whatever the strip takes is a separator.
    let u = crate::decor::strip_start(u);
    (u.len() != t.len(), u)
}

/// The type a wrapped slot names (`[PROGRESS]`, `(help request)`).
fn wrapped_type(inner: &str) -> Option<MessageType> {
    MessageType::from_token(trim_end_punctuation(inner))
}

/// A bead id as [`colon_bead`] takes one: letters and digits of any
/// script, `-`, `_`, `.` and `/`, with at least one digit, `-` or `.`.
fn bead_shaped(s: &str) -> bool {
    s.chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        && s.bytes()
            .any(|c| c.is_ascii_digit() || c == b'-' || c == b'.')
}

/// [`colon_bead`] of a subject that holds a colon, which its grammar needs
/// (`ol-1: DONE`): most subjects that reach it hold none (`SPAWN_ACK`,
/// `DONE - x`), and the search a word at a time (see `find`) costs less
/// than the bead's scan and check.
#[inline]
fn bead_before_colon(s: &str) -> Option<(&str, &str)> {
    crate::find::byte(s.as_bytes(), b':')?;
    colon_bead(s)
}

/// `PROGRESS [ol-1]`: a bracketed id after the type.
fn trailing_bead(rest: &str) -> Option<&str> {
    let open = crate::find::byte(rest.as_bytes(), b'[')?;
    bracket_bead(&rest[open..])
        .map(|(_, b)| b)
        .filter(|b| !b.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use MessageType::*;

    fn kind(s: &str) -> Option<MessageType> {
        parse_subject(s).kind
    }

    #[test]
    fn whole_token_types() {
        assert_eq!(kind("PROGRESS"), Some(Progress));
        assert_eq!(kind("[ol-1] offering_ready"), Some(OfferingReady));
        assert_eq!(kind("help request"), Some(HelpRequest));
        assert_eq!(kind("Help-Request: stuck on auth"), Some(HelpRequest));
        assert_eq!(kind("DONE but tests FAILED"), Some(Done));
        assert_eq!(kind("Abandoned"), None);
        assert_eq!(kind("undone"), None);
        assert_eq!(kind("work in progress"), None);
        assert_eq!(kind("SPAWN_ACKNOWLEDGED"), None);
        assert_eq!(kind(""), None);
    }

    #[test]
    fn beads_and_replies() {
        let s = parse_subject("Re: Fwd: [ol-527.2] HELP_REQUEST");
        assert!(s.is_reply);
        assert_eq!(s.bead, Some("ol-527.2"));
        assert_eq!(s.kind, Some(HelpRequest));
        assert_eq!(parse_subject("my-bead-1: DONE").bead, Some("my-bead-1"));
        assert_eq!(parse_subject("ol_527: DONE").bead, Some("ol_527"));
        assert_eq!(parse_subject("[ ol-1 ] DONE").bead, Some("ol-1"));
        assert_eq!(parse_subject("PROGRESS [gt-9]").bead, Some("gt-9"));
        assert_eq!(parse_subject("Note: hello").bead, None);
    }

    #[test]
    fn decorated_subjects() {
        for (subject, bead, kind, at) in [
            ("🚧 [ol-1] PROGRESS", Some("ol-1"), Progress, 0),
            ("**[ol-1] PROGRESS**", Some("ol-1"), Progress, 0),
            ("Re: **[ol-2] HELP_REQUEST**", Some("ol-2"), HelpRequest, 4),
            ("[ol-1] ✅ DONE", Some("ol-1"), Done, 7),
            ("[ol-1] **DONE** - update", Some("ol-1"), Done, 7),
            ("❌ **[ol-8] FAILED**", Some("ol-8"), Failed, 0),
            ("🚀 SPAWN_REQUEST", None, SpawnRequest, 0),
        ] {
            assert_eq!(parse_subject(subject).kind, None, "{subject}");
            let (s, offset) = parse_decorated(subject).unwrap();
            assert_eq!(
                (s.bead, s.kind, offset),
                (bead, Some(kind), at),
                "{subject}"
            );
        }
        assert!(parse_decorated("🚧 work in progress").is_none());
        // The plain subject has no decoration (read_subject asks the
        // decorated readings only where the plain one found no type; the
        // slotted reading, last, reads the plain shape as it is).
        assert!(
            parse_decorated_in_full("[ol-1] PROGRESS").is_none(),
            "plain: no decoration"
        );
    }

    #[test]
    fn words_before_the_bead_and_type() {
        for (subject, bead, kind, reply, at) in [
            ("Status update: [ol-9] PROGRESS", "ol-9", Progress, false, 0),
            (
                "Heads up - [ol-9] HELP_REQUEST: the pool",
                "ol-9",
                HelpRequest,
                false,
                0,
            ),
            ("Re: Quick note [ol-9.2] DONE", "ol-9.2", Done, true, 4),
            (
                "Update [auth] then [ol-9] PROGRESS",
                "ol-9",
                Progress,
                false,
                0,
            ),
        ] {
            assert_eq!(parse_subject(subject).kind, None, "{subject}");
            let (s, offset) = parse_decorated(subject).unwrap();
            assert_eq!(
                (s.bead, s.kind, s.is_reply, offset),
                (Some(bead), Some(kind), reply, at),
                "{subject}"
            );
        }
        // A type in other case is a word of a sentence; a tag is no bead;
        // a bracket with no blank before it is part of a word.
        for left in [
            "Question about [ol-9] progress",
            "Heads up [WIP] DONE",
            "Status:[ol-9] PROGRESS",
            "Note [ol-9]",
            "x [",
        ] {
            let read = parse_decorated(left).and_then(|(s, _)| s.kind);
            assert_eq!(read, None, "{left}");
        }
    }

    proptest::proptest! {
        /// The one-scan reading of `[bead] TYPE` is the full parser's.
        #[test]
        fn plain_subjects_read_as_in_full(
            s in "[ \t]{0,2}\\[?[ \t]?(ol-1|x|é|\\[|\\]| |\t){0,4}\\]?[ \t\u{a0}]{0,2}(PROGRESS|done|Help-Request|HELP REQUEST|DONES|x|\\[a\\]|[:.!,; ]|é){0,4}"
        ) {
            let t = crate::trim::trim(&s);
            if let Some(fast) = plain_subject(t) {
                proptest::prop_assert_eq!(fast, parse_subject_general(t));
            }
            proptest::prop_assert_eq!(parse_subject(&s), parse_subject_general(t));
        }

        /// A reply to the usual subject read by the one-scan reading is
        /// read as the general reading reads it.
        #[test]
        fn replies_read_as_in_general(
            s in "(Re:|RE:|Re :|Re|Fwd:|Re: Re:)[ \t]{0,2}\\[?[ \t]?(ol-1|x|é|\\[|\\]| |\t){0,4}\\]?[ \t\u{a0}]{0,2}(PROGRESS|done|Help-Request|HELP REQUEST|DONES|x|\\[a\\]|[:.!,; ]|é){0,4}"
        ) {
            let t = crate::trim::trim(&s);
            proptest::prop_assert_eq!(parse_subject_in_full(t), parse_subject_general(t));
            proptest::prop_assert_eq!(parse_subject(&s), parse_subject_general(t));
        }
    }

    proptest::proptest! {
        /// No reading of the plain grammar finds anything in a subject
        /// that opens with a glyph or a mark (see `opens_with_decoration`).
        #[test]
        fn decorated_subjects_have_no_plain_reading(
            s in "(🚧|✅|➡️|❌|💾|\u{2600}|\u{27A1}|\u{FE0F}|\u{200D}|\\*|`|#|>|~|\\|){1,2}[ \t:]{0,2}(\\[|\\]|ol-1|Re:|Fwd:|PROGRESS|DONE|help request|x1:|[:.!,; ]|é|_|-){0,5}"
        ) {
            proptest::prop_assert!(opens_with_decoration(&s));
            proptest::prop_assert_eq!(parse_subject(&s), Subject::default());
        }

        /// The short reading of a glyph and a plain subject is the full one.
        #[test]
        fn glyphs_then_plain_read_as_in_full(
            s in "(🚧|✅|➡️|\u{200D}|é|a){0,3}( |  |\t|\u{a0})?\\[?[ \t]?(ol-1|\\*\\*|x|é|_|\\[|\\]|\u{2705}){0,3}\\]?[ \t]{0,2}(\\*\\*)?(PROGRESS|done|Help-Request|HELP REQUEST|x|[:.!,; *_]|✅|\u{FE0F}){0,4}"
        ) {
            if let Some(fast) = glyphs_then_plain(&s) {
                proptest::prop_assert_eq!(Some((fast, 0)), parse_decorated_in_full(&s));
            }
            proptest::prop_assert_eq!(
                parse_decorated(&s),
                parse_decorated_in_full(&s).or_else(|| parse_slotted(&s))
            );
        }
    }

    /// `read` answers for each of `taken` and for none of `left`.
    fn short_way(read: fn(&str) -> Option<Subject<'_>>, taken: &[&str], left: &[&str]) {
        for s in taken {
            assert!(read(s).is_some(), "{s}");
        }
        for s in left {
            assert!(read(s).is_none(), "{s}");
        }
    }

    #[test]
    fn glyphs_then_plain_take_the_short_way() {
        short_way(
            glyphs_then_plain,
            &[
                "🚧 [ol-527.1] PROGRESS",
                "➡️ [ol-4] HELP_RESPONSE",
                "✅ [x] done!",
            ],
            &[
                "🚧  [ol-1] PROGRESS",
                "🆘 **[ol-9] HELP_REQUEST**",
                "✅ [ol-1] DONE - update",
                "✅ [**ol-1**] DONE",
                "[ol-1] DONE",
            ],
        );
    }

    #[test]
    fn plain_subjects_take_the_short_way() {
        short_way(
            plain_subject,
            &["[ol-527.1] PROGRESS", "[ ol-1 ] done:", "[x]\tSPAWN_ACK!"],
            &[
                "[ol-1] HELP REQUEST",
                "Re: [x] DONE",
                "[] DONE",
                "[a[b] DONE",
                "[x] nudge",
            ],
        );
    }

    #[test]
    fn slotted_subjects() {
        for (subject, reply, bead, kind) in [
            (
                "[ol-9] [PROGRESS] auth middleware",
                false,
                Some("ol-9"),
                Progress,
            ),
            (
                "[PROGRESS] [ol-9] auth middleware",
                false,
                Some("ol-9"),
                Progress,
            ),
            (
                "Re: [ol-9] [HELP_REQUEST] stuck",
                true,
                Some("ol-9"),
                HelpRequest,
            ),
            ("[ol-9][DONE]", false, Some("ol-9"), Done),
            ("(ol-9) PROGRESS", false, Some("ol-9"), Progress),
            (
                "(ol-9) [help request] stuck",
                false,
                Some("ol-9"),
                HelpRequest,
            ),
            ("[ol-9]: PROGRESS", false, Some("ol-9"), Progress),
            ("[ol-9] - PROGRESS - update", false, Some("ol-9"), Progress),
            ("ol-9 | PROGRESS | auth", false, Some("ol-9"), Progress),
            ("ol-9 - HELP REQUEST", false, Some("ol-9"), HelpRequest),
            ("ol-527.1 / DONE", false, Some("ol-527.1"), Done),
            ("[PROGRESS] auth middleware", false, None, Progress),
            ("[DONE] | ol-7", false, Some("ol-7"), Done),
            ("[WIP] [DONE] cleanup", false, None, Done),
            ("(PROGRESS) ol-9", false, None, Progress),
        ] {
            let plain = parse_subject(subject);
            assert_eq!(plain.kind, None, "{subject}");
            assert!(parse_decorated_in_full(subject).is_none(), "{subject}");
            assert!(glyphs_then_plain(subject).is_none(), "{subject}");
            assert_eq!(parse_decorated(subject), parse_slotted(subject));
            let (s, _) = parse_slotted(subject).unwrap_or_else(|| panic!("{subject}"));
            assert_eq!(
                (s.is_reply, s.bead, s.kind),
                (reply, bead, Some(kind)),
                "{subject}"
            );
        }
        for left in [
            "v2 DONE",
            "Wave 1 | status",
            "ol-9 PROGRESS",
            "[auth] [ol-9] PROGRESS",
            "[ol-9] [progressing] auth",
            "(note) DONE",
            "",
            "[",
            "(ol-9",
            "[ol-9] |",
        ] {
            assert!(parse_slotted(left).is_none(), "{left}");
        }
    }

    proptest::proptest! {
        /// A subject of the slotted shape has the plain reading's answer
        /// `slotted_shape` gives and none of the decorated reading's.
        #[test]
        fn slotted_shapes_read_as_in_full(
            s in "(\\(|\\[)[ \t]?(ol-9|x|é|PROGRESS|done|help request|\\)|\\(|\\]|-|_|\\*| ){0,4}(\\]|\\))?[ \t]{0,2}(\\[|\\(|:|-|\\|)?[ \t]?(PROGRESS|DONE|done:|help request|HELP_REQUEST|\\]|\\)|\\*\\*|✅|ol-9|x| |:|!){0,4}"
        ) {
            let t = crate::trim::trim(&s);
            if let Some(fast) = slotted_shape(t) {
                proptest::prop_assert_eq!(fast, parse_subject_general(t));
                proptest::prop_assert!(parse_decorated_in_full(t).is_none());
                proptest::prop_assert!(glyphs_then_plain(t).is_none());
            }
            proptest::prop_assert_eq!(parse_subject(&s), parse_subject_general(t));
        }

        /// Any subject: the slotted reading answers without a panic, and
        /// its offset is inside the subject.
        #[test]
        fn slotted_reading_never_panics(
            s in "(Re: |\\*\\*|🚧 )?(\\[|\\(|\\]|\\)|ol-9|PROGRESS|help request|x|é|\u{2014}|[|:/ -]){0,8}"
        ) {
            if let Some((_, at)) = parse_slotted(&s) {
                proptest::prop_assert!(at <= s.len());
            }
        }
    }

    #[test]
    fn unknown_tokens_keep_their_text() {
        let s = parse_subject("[x-1] RANDOM_MESSAGE about things");
        assert_eq!(s.kind, None);
        assert_eq!(s.raw_type, Some("RANDOM_MESSAGE"));
        assert_eq!(parse_subject("Wave 1 status").raw_type, None);
    }
}
