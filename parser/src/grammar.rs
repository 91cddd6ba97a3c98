//! The line grammar: small nom parsers, one per kind of line.
//!
//! A body is never parsed as a whole; each line is classified on its own
//! (field, heading, list item, fence, prose), which keeps the parser linear
//! on every input and lets a bad line cost only itself.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1, take_while_m_n};
use nom::character::complete::{char, digit1, one_of, space0, space1};
use nom::combinator::{opt, rest, verify};
use nom::sequence::{preceded, terminated};
use nom::{IResult, Parser};

/// `- Label: value`, `* **Label:** value`, `Label: value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FieldLine<'a> {
    pub label: &'a str,
    pub value: &'a str,
}

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

/// Up to three spaces of indentation, as markdown allows before a block.
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

/// A `Label: value` line, or `None` for anything else.
pub(crate) fn field_line(line: &str) -> Option<FieldLine<'_>> {
    // Cheap exact pre-filter: every field has a `:`, and most body lines
    // (prose, code) have none; the SIMD search costs far less than running
    // the label parser over the line.
    memchr::memchr(b':', line.as_bytes())?;
    field_line_inner(line).ok().map(|(_, f)| f)
}

/// `# Title` / `## Title`: (level, title). `##42` (no space) is prose.
pub(crate) fn heading(line: &str) -> Option<(usize, &str)> {
    // Both forms below need a `#`: skip the parsers for lines without one.
    memchr::memchr(b'#', line.as_bytes())?;
    let parsed: IResult<&str, (&str, &str)> = (
        preceded(indent, take_while_m_n(1, 6, |c| c == '#')),
        preceded(space1, rest),
    )
        .parse(line);
    match parsed {
        Ok((_, (hashes, title))) => Some((hashes.len(), title.trim())),
        Err(_) => {
            // A bare `##` with nothing after it is an empty heading.
            let t = line.trim();
            (!t.is_empty() && t.len() <= 6 && t.bytes().all(|b| b == b'#')).then_some((t.len(), ""))
        }
    }
}

fn numbered(i: &str) -> IResult<&str, &str> {
    terminated(digit1, terminated(alt((char('.'), char(')'))), space1)).parse(i)
}

/// A list item (`- x`, `* x`, `+ x`, `1. x`, `2) x`): its text.
pub(crate) fn list_item(line: &str) -> Option<&str> {
    // An item starts (after blanks) with a digit or a bullet; the first
    // other byte rules the line out without running the parsers.
    let first = line.bytes().find(|&b| b != b' ' && b != b'\t')?;
    if !(first.is_ascii_digit() || matches!(first, b'-' | b'*' | b'+')) {
        return None;
    }
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

/// A fenced code block delimiter (```` ``` ```` or `~~~`).
pub(crate) fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// A `Re:` / `Fwd:` / `Fw:` prefix (any case), with the space after it.
pub(crate) fn reply_prefix(i: &str) -> IResult<&str, &str> {
    let (i, _) = space0(i)?;
    let (rest_, word) = take_while1(|c: char| c.is_ascii_alphabetic()).parse(i)?;
    if !matches!(word.to_ascii_lowercase().as_str(), "re" | "fwd" | "fw") {
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
pub(crate) fn bracket_bead(i: &str) -> IResult<&str, &str> {
    let (i, _) = space0(i)?;
    let (i, inner) = preceded(char('['), take_while1(|c| c != ']' && c != '[')).parse(i)?;
    let (i, _) = char(']').parse(i)?;
    let (i, _) = space0(i)?;
    Ok((i, inner.trim()))
}

/// A bead id written as a prefix, `ol-527.1:`. Ids may hold several
/// hyphens, underscores and dots.
pub(crate) fn colon_bead(i: &str) -> IResult<&str, &str> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(reply_prefix("Review: x").is_err());
        assert_eq!(bracket_bead("[ ol-1 ] DONE").unwrap(), ("DONE", "ol-1"));
        assert_eq!(
            colon_bead("my-bead_1.2: DONE").unwrap(),
            ("DONE", "my-bead_1.2")
        );
        assert!(colon_bead("Note: x").is_err());
        assert_eq!(colon_bead("ol-1 : DONE").unwrap(), ("DONE", "ol-1"));
        assert!(colon_bead("Step 2: DONE").is_err());
    }
}
