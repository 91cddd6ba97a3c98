//! The line grammar: one small parser per kind of line.
//!
//! A body is never parsed as a whole; each line is classified on its own
//! (field, heading, list item, fence, prose), which keeps the parser linear
//! on every input and lets a bad line cost only itself.
//!
//! The per-line classifiers (`field_line`, `heading`, `list_item`,
//! `is_fence`) run on every line of every message, so they are written as
//! byte scanners rather than nom combinators: nom's `&str` parsers decode a
//! `char` per step and build error values on every miss, which made them most
//! of a small message's parse time. They look at ASCII bytes and decode a
//! `char` only where a label may hold a non-ASCII letter. The subject-line
//! parsers below, which run once per message, stay nom; the grammar each
//! function accepts is spelled out in its doc and pinned against the former
//! nom versions by the property tests at the end of this file.

/// `- Label: value`, `* **Label:** value`, `Label: value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FieldLine<'a> {
    pub label: &'a str,
    pub value: &'a str,
}

/// Longest label accepted, in bytes: longer runs are prose, and the cap
/// bounds the scan of a line that never reaches a colon.
const MAX_LABEL: usize = 48;

fn is_blank_byte(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Count of leading bytes of `b` equal to `what`, at most `max`.
fn run_of(b: &[u8], what: u8, max: usize) -> usize {
    b.iter().take(max).take_while(|&&c| c == what).count()
}

/// Count of leading spaces and tabs.
fn blanks(b: &[u8]) -> usize {
    b.iter().take_while(|&&c| is_blank_byte(c)).count()
}

/// Up to three spaces of indentation, as markdown allows before a block.
fn indent(b: &[u8]) -> usize {
    run_of(b, b' ', 3)
}

/// A bullet (`-`, `*` or `+` followed by spaces or tabs) at the start of
/// `b`: the bytes it spans, or 0 when there is none.
fn bullet(b: &[u8]) -> usize {
    match b {
        [b'-' | b'*' | b'+', rest @ ..] if rest.first().is_some_and(|&c| is_blank_byte(c)) => {
            1 + blanks(rest)
        }
        _ => 0,
    }
}

/// Bytes a label may hold as they are: ASCII letters, digits, space, `-`,
/// `_`, `/`. (Non-ASCII bytes are `false` here and decoded by the caller.)
/// A table, because this test runs for every byte of every label.
const LABEL_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        table[c] = b.is_ascii_alphanumeric() || matches!(b, b' ' | b'-' | b'_' | b'/');
        c += 1;
    }
    table
};

/// The label at the start of `s`: letters and digits (any script), spaces,
/// `-`, `_` and `/`, starting with a letter, at most [`MAX_LABEL`] bytes.
/// Returns its length in bytes. The run is maximal, as the nom version's
/// `take_while1` was: a run that is too long is not cut short to fit.
fn label_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let starts_with_letter = match b.first()? {
        c if c.is_ascii() => c.is_ascii_alphabetic(),
        _ => s.chars().next().is_some_and(char::is_alphabetic),
    };
    if !starts_with_letter {
        return None;
    }
    // Looking one byte past the longest label is enough to know a run is
    // too long.
    let limit = b.len().min(MAX_LABEL + 1);
    let mut i = 0;
    loop {
        while i < limit && LABEL_BYTES[usize::from(b[i])] {
            i += 1;
        }
        if i > MAX_LABEL {
            return None;
        }
        // Only here is a `char` decoded: a non-ASCII letter or digit
        // continues the label, anything else ends it.
        if b.get(i).is_none_or(u8::is_ascii) {
            return Some(i);
        }
        match s.get(i..).and_then(|rest| rest.chars().next()) {
            Some(ch) if !ch.is_ascii() && ch.is_alphanumeric() => i += ch.len_utf8(),
            _ => return Some(i),
        }
    }
}

/// `s` without trailing spaces and tabs.
pub(crate) fn trim_end_blanks(s: &str) -> &str {
    let keep = s.len() - s.bytes().rev().take_while(|&c| is_blank_byte(c)).count();
    // Spaces and tabs are ASCII, so `keep` is on a character boundary.
    s.get(..keep).unwrap_or(s)
}

/// Lines longer than this are searched for a `:` (SIMD) before a label is
/// looked for; on shorter ones the search costs more than it saves.
const LONG_LINE: usize = 64;

/// A `Label: value` line, or `None` for anything else.
///
/// Grammar: up to three spaces, an optional bullet, an optional `**`, the
/// label, `:`, a closing `**` when one opened, blanks, then the value
/// (trailing spaces and tabs dropped).
pub(crate) fn field_line(line: &str) -> Option<FieldLine<'_>> {
    // Every field has a `:`; most long body lines (prose, code) have none,
    // and one SIMD search costs less than scanning their first words.
    if line.len() > LONG_LINE {
        memchr::memchr(b':', line.as_bytes())?;
    }
    let b = line.as_bytes();
    let mut i = indent(b);
    i += bullet(&b[i..]);
    let bold = b[i..].starts_with(b"**");
    if bold {
        i += 2;
    }
    let label_start = i;
    i += label_len(line.get(i..)?)?;
    let label = line.get(label_start..i)?;
    if b.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    if bold && b[i..].starts_with(b"**") {
        i += 2;
    }
    i += blanks(&b[i..]);
    Some(FieldLine {
        // A label's only whitespace is the space.
        label: trim_end_blanks(label),
        value: trim_end_blanks(line.get(i..)?),
    })
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
    let b = line.as_bytes();
    let i = indent(b);
    let hashes = run_of(&b[i..], b'#', 6);
    if hashes > 0 && b.get(i + hashes).is_some_and(|&c| is_blank_byte(c)) {
        return Some((hashes, line.get(i + hashes..)?.trim()));
    }
    // A bare `##` with nothing after it is an empty heading. A line that
    // does not start with `#` (after blanks) cannot be one: skip the trim.
    if hashes == 0 && b.get(i).is_some_and(|&c| c.is_ascii_graphic()) {
        return None;
    }
    let t = line.trim();
    (!t.is_empty() && t.len() <= 6 && t.bytes().all(|b| b == b'#')).then_some((t.len(), ""))
}

/// A list item (`- x`, `* x`, `+ x`, `1. x`, `2) x`): its text.
///
/// Grammar: blanks, then digits and `.` or `)`, or a bullet character, then
/// at least one blank, then the text (trimmed).
pub(crate) fn list_item(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    let i = blanks(b);
    let marker_end = match *b.get(i)? {
        b'0'..=b'9' => {
            let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            match b.get(i + digits) {
                Some(b'.' | b')') => i + digits + 1,
                _ => return None,
            }
        }
        b'-' | b'*' | b'+' => i + 1,
        _ => return None,
    };
    if !b.get(marker_end).is_some_and(|&c| is_blank_byte(c)) {
        return None;
    }
    Some(line.get(marker_end..)?.trim())
}

/// A fenced code block delimiter (```` ``` ```` or `~~~`).
pub(crate) fn is_fence(line: &str) -> bool {
    let fence = |t: &str| t.starts_with("```") || t.starts_with("~~~");
    match line.as_bytes().first() {
        // Most lines start with a letter: nothing to trim, no `char` to
        // decode (`trim_start` looks up every leading `char`).
        Some(b) if b.is_ascii_alphanumeric() => false,
        _ => fence(line.trim_start()),
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

/// `s` after leading spaces and tabs.
fn skip_blanks(s: &str) -> &str {
    // Spaces and tabs are ASCII: the cut is on a character boundary.
    s.get(blanks(s.as_bytes())..).unwrap_or(s)
}

/// A `Re:` / `Fwd:` / `Fw:` prefix (any case; `Re[2]:` too), with the
/// blanks around it: (what follows, the word).
pub(crate) fn reply_prefix(s: &str) -> Option<(&str, &str)> {
    let s = skip_blanks(s);
    let n = s.bytes().take_while(u8::is_ascii_alphabetic).count();
    let (word, rest) = s.split_at(n);
    if !["re", "fwd", "fw"]
        .iter()
        .any(|w| w.eq_ignore_ascii_case(word))
    {
        return None;
    }
    let rest = rest.strip_prefix(':').or_else(|| {
        let count = rest.strip_prefix('[')?;
        let digits = count.bytes().take_while(u8::is_ascii_digit).count();
        count
            .get(digits..)?
            .strip_prefix(']')
            .filter(|_| digits > 0)?
            .strip_prefix(':')
    })?;
    Some((skip_blanks(rest), word))
}

/// `[bead-id]` at the start of `s` (after blanks), brackets and inner
/// spaces trimmed: (what follows, after blanks; the id).
pub(crate) fn bracket_bead(s: &str) -> Option<(&str, &str)> {
    let inner = skip_blanks(s).strip_prefix('[')?;
    let n = inner
        .bytes()
        .take_while(|&c| c != b']' && c != b'[')
        .count();
    let rest = inner.get(n..)?.strip_prefix(']')?;
    (n > 0).then(|| (skip_blanks(rest), crate::lines::trim(&inner[..n])))
}

/// A bead id written as a prefix, `ol-527.1:`: letters and digits (any
/// script), `-`, `_`, `.` and `/`, with at least one digit, `-` or `.`
/// (so `Note:` is not one), then blanks and `:`. Ids may hold several
/// hyphens, underscores and dots. Returns (what follows, after blanks;
/// the id).
pub(crate) fn colon_bead(s: &str) -> Option<(&str, &str)> {
    let s = skip_blanks(s);
    let b = s.as_bytes();
    let mut n = 0;
    while let Some(&c) = b.get(n) {
        if c.is_ascii() {
            if !(c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'/')) {
                break;
            }
            n += 1;
        } else {
            // Decoded only for non-ASCII: letters and digits of any script.
            match s.get(n..).and_then(|rest| rest.chars().next()) {
                Some(ch) if ch.is_alphanumeric() => n += ch.len_utf8(),
                _ => break,
            }
        }
    }
    let (id, rest) = s.split_at(n);
    if !id
        .bytes()
        .any(|c| c.is_ascii_digit() || c == b'-' || c == b'.')
    {
        return None;
    }
    // `ol-1 : DONE` too: spaces before the colon.
    let rest = skip_blanks(rest).strip_prefix(':')?;
    Some((skip_blanks(rest), id))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nom parsers the byte scanners above replaced, kept as the
    /// reference they must agree with on every line.
    mod nom_reference {
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

        pub fn field_line(line: &str) -> Option<FieldLine<'_>> {
            field_line_inner(line).ok().map(|(_, f)| f)
        }

        pub fn heading(line: &str) -> Option<(usize, &str)> {
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

        pub fn list_item(line: &str) -> Option<&str> {
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
        pub fn reply_prefix(i: &str) -> IResult<&str, &str> {
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
        pub fn bracket_bead(i: &str) -> IResult<&str, &str> {
            let (i, _) = space0(i)?;
            let (i, inner) = preceded(char('['), take_while1(|c| c != ']' && c != '[')).parse(i)?;
            let (i, _) = char(']').parse(i)?;
            let (i, _) = space0(i)?;
            Ok((i, inner.trim()))
        }

        /// A bead id written as a prefix, `ol-527.1:`. Ids may hold several
        /// hyphens, underscores and dots.
        pub fn colon_bead(i: &str) -> IResult<&str, &str> {
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
        #[test]
        fn byte_scanners_agree_with_nom(line in line_strategy()) {
            proptest::prop_assert_eq!(field_line(&line), nom_reference::field_line(&line));
            proptest::prop_assert_eq!(heading(&line), nom_reference::heading(&line));
            proptest::prop_assert_eq!(list_item(&line), nom_reference::list_item(&line));
        }

        #[test]
        fn subject_parsers_agree_with_nom(
            s in "[ \t]{0,2}(Re|FWD|fw|Rev|\\[|\\]|[a-z0-9._/-]{1,8}|é|[0-9]{1,2}|:| ){0,6}"
        ) {
            proptest::prop_assert_eq!(reply_prefix(&s), nom_reference::reply_prefix(&s).ok());
            proptest::prop_assert_eq!(bracket_bead(&s), nom_reference::bracket_bead(&s).ok());
            proptest::prop_assert_eq!(colon_bead(&s), nom_reference::colon_bead(&s).ok());
        }

        #[test]
        fn byte_scanners_agree_with_nom_on_any_text(line in "\\PC{0,80}") {
            proptest::prop_assert_eq!(field_line(&line), nom_reference::field_line(&line));
            proptest::prop_assert_eq!(heading(&line), nom_reference::heading(&line));
            proptest::prop_assert_eq!(list_item(&line), nom_reference::list_item(&line));
            proptest::prop_assert_eq!(reply_prefix(&line), nom_reference::reply_prefix(&line).ok());
            proptest::prop_assert_eq!(bracket_bead(&line), nom_reference::bracket_bead(&line).ok());
            proptest::prop_assert_eq!(colon_bead(&line), nom_reference::colon_bead(&line).ok());
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
    }
}
