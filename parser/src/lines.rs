//! Splitting a document into lines once, remembering where each one starts.
//!
//! Everything after this works on [`Line`]s, so LF and CRLF input look the
//! same to the grammar and every diagnostic can name a line and column of the
//! original document.

/// One line of the document, without its line ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    /// The text, without `\n` or `\r\n`. Trailing spaces are kept here and
    /// trimmed by whoever reads a value out of it.
    pub text: &'a str,
    /// 1-based line number in the whole document.
    pub no: u32,
    /// Byte offset of the first character in the document.
    pub start: usize,
}

impl<'a> Line<'a> {
    /// 1-based column (in characters) of a byte position inside this line's text.
    pub(crate) fn column_of(&self, inner: &str) -> u32 {
        let offset = (inner.as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize);
        let offset = offset.min(self.text.len());
        let prefix = self.text.get(..offset).unwrap_or(self.text);
        // Counting `char`s decodes; an ASCII prefix (the usual one) has as
        // many as bytes, and checking that is cheaper.
        let chars = if prefix.is_ascii() {
            prefix.len()
        } else {
            prefix.chars().count()
        };
        chars as u32 + 1
    }

    pub(crate) fn is_blank(&self) -> bool {
        trim(self.text).is_empty()
    }
}

/// Whether `b` starts or ends a string that `str::trim` leaves alone: an
/// ASCII byte that is not whitespace (`char::is_whitespace`, which unlike
/// `u8::is_ascii_whitespace` includes the vertical tab).
fn is_solid(b: u8) -> bool {
    b.is_ascii() && !(b == b' ' || (b'\t'..=b'\r').contains(&b))
}

/// `str::trim`, with a shortcut for the common case of text that starts
/// and ends with a visible ASCII character: `str::trim` decodes a `char` at
/// each end and looks it up in the Unicode tables, which added up to a tenth
/// of a small message's parse time over the dozens of values trimmed.
pub(crate) fn trim(s: &str) -> &str {
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (Some(&first), Some(&last)) if is_solid(first) && is_solid(last) => s,
        _ => s.trim(),
    }
}

/// `str::trim_start`, with the same shortcut as [`trim`].
pub(crate) fn trim_start(s: &str) -> &str {
    match s.as_bytes().first() {
        Some(&first) if is_solid(first) => s,
        _ => s.trim_start(),
    }
}

/// `s.trim_matches('`')` (inline-code backticks around a value), without
/// the generic pattern searcher when there are none.
pub(crate) fn trim_ticks(s: &str) -> &str {
    if s.starts_with('`') || s.ends_with('`') {
        s.trim_matches('`')
    } else {
        s
    }
}

/// Splits `input` (which starts at byte `base` and line `first_no` of the
/// document) into lines. A final line ending does not start an empty line.
pub(crate) fn split_lines(input: &str, base: usize, first_no: u32) -> Vec<Line<'_>> {
    let mut out = Vec::with_capacity(input.len() / 32 + 1);
    for_each_line(input, base, first_no, |l| out.push(l));
    out
}

/// Documents of up to this many lines keep them on the stack.
const FEW: usize = 8;

/// A whole document's lines: on the stack when there are few (a typical
/// message), since allocating and freeing the list showed in the profile of
/// small messages; in a `Vec` otherwise.
// `Few` is large, but boxing it would be the very allocation this avoids.
#[allow(clippy::large_enum_variant)]
pub(crate) enum DocLines<'a> {
    Few([Line<'a>; FEW], usize),
    Many(Vec<Line<'a>>),
}

impl<'a> std::ops::Deref for DocLines<'a> {
    type Target = [Line<'a>];
    fn deref(&self) -> &[Line<'a>] {
        match self {
            DocLines::Few(lines, n) => lines.get(..*n).unwrap_or(lines),
            DocLines::Many(lines) => lines,
        }
    }
}

/// [`split_lines`] of a whole document (from byte 0, line 1).
pub(crate) fn doc_lines(input: &str) -> DocLines<'_> {
    const NONE: Line<'static> = Line {
        text: "",
        no: 0,
        start: 0,
    };
    let mut few = [NONE; FEW];
    let mut n = 0;
    let mut many: Option<Vec<Line<'_>>> = None;
    for_each_line(input, 0, 1, |l| match &mut many {
        Some(lines) => lines.push(l),
        None if n < FEW => {
            few[n] = l;
            n += 1;
        }
        None => {
            let mut lines = Vec::with_capacity((input.len() / 32 + 1).max(2 * FEW));
            lines.extend_from_slice(&few);
            lines.push(l);
            many = Some(lines);
        }
    });
    match many {
        Some(lines) => DocLines::Many(lines),
        None => DocLines::Few(few, n),
    }
}

/// Calls `f` with each line of `input`, as [`split_lines`] lists them.
#[inline]
fn for_each_line<'a>(input: &'a str, base: usize, first_no: u32, mut f: impl FnMut(Line<'a>)) {
    let mut start = 0usize;
    let mut no = first_no;
    let bytes = input.as_bytes();
    while start < bytes.len() {
        let end = match memchr_newline(&bytes[start..]) {
            Some(i) => start + i,
            None => bytes.len(),
        };
        let mut text_end = end;
        if text_end > start && bytes[text_end - 1] == b'\r' {
            text_end -= 1;
        }
        f(Line {
            text: &input[start..text_end],
            no,
            start: base + start,
        });
        no = no.saturating_add(1);
        start = end + 1;
    }
}

/// SIMD newline search (the `memchr` crate): on a 10 MB body the split is
/// most of the work, and a byte-at-a-time scan is several times slower.
fn memchr_newline(hay: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', hay)
}

/// The text spanned by `lines` (inclusive range), sliced from the document
/// when that is already canonical (LF endings, no trailing blanks on any
/// line), otherwise rebuilt: CRLF and trailing whitespace must not change
/// what a section holds.
pub(crate) fn join_lines<'a>(doc: &'a str, lines: &[Line<'a>]) -> std::borrow::Cow<'a, str> {
    use std::borrow::Cow;
    let (first, last) = match (lines.first(), lines.last()) {
        (Some(f), Some(l)) => (f, l),
        _ => return Cow::Borrowed(""),
    };
    let canonical = lines
        .windows(2)
        .all(|w| w[1].start == w[0].start + w[0].text.len() + 1)
        && lines.iter().all(|l| !l.text.ends_with([' ', '\t']));
    if canonical {
        if let Some(s) = doc.get(first.start..last.start + last.text.len()) {
            return Cow::Borrowed(s);
        }
    }
    let mut s = String::with_capacity(lines.iter().map(|l| l.text.len() + 1).sum());
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        s.push_str(l.text.trim_end_matches([' ', '\t']));
    }
    Cow::Owned(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_lines_agree_with_split_lines() {
        for n in [0, 1, 7, 8, 9, 20] {
            let doc: String = (0..n).map(|i| format!("line {i}\r\n")).collect();
            assert_eq!(&doc_lines(&doc)[..], &split_lines(&doc, 0, 1)[..]);
            let doc = doc + "tail";
            assert_eq!(&doc_lines(&doc)[..], &split_lines(&doc, 0, 1)[..]);
        }
    }

    #[test]
    fn crlf_and_lf_split_alike() {
        let lf = split_lines("a\nb\n\nc", 0, 1);
        let crlf = split_lines("a\r\nb\r\n\r\nc", 0, 1);
        fn texts<'a>(v: &[Line<'a>]) -> Vec<&'a str> {
            v.iter().map(|l| l.text).collect()
        }
        assert_eq!(texts(&lf), vec!["a", "b", "", "c"]);
        assert_eq!(texts(&lf), texts(&crlf));
        assert_eq!(crlf[3].start, 8);
        assert_eq!(crlf[3].no, 4);
    }

    #[test]
    fn join_borrows_canonical_text_and_rebuilds_crlf() {
        let doc = "x\na\nb\n";
        let lines = split_lines(doc, 0, 1);
        assert!(matches!(
            join_lines(doc, &lines[1..]),
            std::borrow::Cow::Borrowed("a\nb")
        ));
        let doc = "x\r\na \r\nb\r\n";
        let lines = split_lines(doc, 0, 1);
        assert_eq!(join_lines(doc, &lines[1..]), "a\nb");
    }

    #[test]
    fn column_counts_characters() {
        let doc = "héllo: wörld";
        let lines = split_lines(doc, 0, 1);
        let value = &lines[0].text[8..];
        assert_eq!(value, "wörld");
        assert_eq!(lines[0].column_of(value), 8);
    }
}
