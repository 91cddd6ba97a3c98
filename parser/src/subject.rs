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
    let mut words = word_spans(s);
    let (start, first) = words.next()?;
    if let Some((at, second)) = words.next() {
        if let Some(found) = type_in(s, start, at + second.len()) {
            return Some(found);
        }
    }
    type_in(s, start, start + first.len())
}

/// The type named by `s[start..end]` (trailing punctuation aside): the
/// type, its token and the text after it.
fn type_in(s: &str, start: usize, end: usize) -> Option<(MessageType, &str, &str)> {
    let candidate = trim_end_punctuation(s.get(start..end)?);
    Some((
        MessageType::from_token(candidate)?,
        candidate,
        s.get(end..)?,
    ))
}

/// `w` without trailing `:`, `.`, `,`, `;` and `!` (`DONE:`, `DONE!`).
fn trim_end_punctuation(w: &str) -> &str {
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
    let mut s = crate::lines::trim(subject);
    let mut out = Subject::default();
    while let Some((rest, _)) = reply_prefix(s) {
        out.is_reply = true;
        s = rest;
    }
    if let Some((rest, bead)) = bracket_bead(s) {
        if !bead.is_empty() {
            out.bead = Some(bead);
        }
        s = rest;
    } else if let Some((rest, bead)) = colon_bead(s) {
        // `id: TYPE` only when a type follows, so `Note: x` keeps its text.
        if type_at(rest).is_some() {
            out.bead = Some(bead);
            s = rest;
        }
    }
    match type_at(crate::lines::trim_start(s)) {
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

/// `PROGRESS [ol-1]`: a bracketed id after the type.
fn trailing_bead(rest: &str) -> Option<&str> {
    let open = rest.find('[')?;
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
    fn unknown_tokens_keep_their_text() {
        let s = parse_subject("[x-1] RANDOM_MESSAGE about things");
        assert_eq!(s.kind, None);
        assert_eq!(s.raw_type, Some("RANDOM_MESSAGE"));
        assert_eq!(parse_subject("Wave 1 status").raw_type, None);
    }
}
