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
    /// The line ends plainly: its text does not end in a space or tab, and
    /// it is followed by a bare `\n` (not `\r\n`) or by the end of the
    /// text. Set once where the line is split, so that [`join_lines`] need
    /// not look at every line's bytes again.
    pub plain_end: bool,
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

    /// Empty or all whitespace (`str::trim` leaves nothing): decided by
    /// the first byte for nearly every line. (Kept as a flag set at the
    /// split instead, it cost every line of a 10.8 MB body ~7
    /// instructions, 0.9 M in all, for a few lines asked.)
    #[inline]
    pub(crate) fn is_blank(&self) -> bool {
        is_blank_text(self.text)
    }
}

/// Whether `b` starts or ends a string that `str::trim` leaves alone: an
/// ASCII byte that is not whitespace (`char::is_whitespace`, which unlike
/// `u8::is_ascii_whitespace` includes the vertical tab).
fn is_solid(b: u8) -> bool {
    b.is_ascii() && !(b == b' ' || (b'\t'..=b'\r').contains(&b))
}

/// Whether `text` is empty or all whitespace, as `str::trim` sees it: a
/// visible ASCII first byte (nearly every line) decides at once.
#[inline]
pub(crate) fn is_blank_text(text: &str) -> bool {
    match text.as_bytes().first() {
        None => true,
        Some(&b) if is_solid(b) => false,
        _ => text.trim().is_empty(),
    }
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
    struct ToVec(usize);
    impl<'a> Collect<'a> for ToVec {
        type Out = Vec<Line<'a>>;
        fn collect(self, lines: impl Iterator<Item = Line<'a>>) -> Vec<Line<'a>> {
            let mut out = Vec::with_capacity(line_estimate(self.0));
            out.extend(lines);
            out
        }
    }
    with_lines(input, base, first_no, ToVec(input.len()))
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
        plain_end: true,
    };
    struct ToDoc(usize);
    impl<'a> Collect<'a> for ToDoc {
        type Out = DocLines<'a>;
        fn collect(self, mut lines: impl Iterator<Item = Line<'a>>) -> DocLines<'a> {
            let mut few = [NONE; FEW];
            for (n, slot) in few.iter_mut().enumerate() {
                match lines.next() {
                    Some(l) => *slot = l,
                    None => return DocLines::Few(few, n),
                }
            }
            let mut many = Vec::with_capacity(line_estimate(self.0));
            many.extend_from_slice(&few);
            many.extend(lines);
            DocLines::Many(many)
        }
    }
    with_lines(input, 0, 1, ToDoc(input.len()))
}

/// How many lines to make room for in a text of `len` bytes: short lines
/// (16 bytes) in a small text, so that a message's list never grows (the
/// growth, copying as it went, cost a decorated message 800 instructions
/// when a line was taken to be 32 bytes); 32 in a large one, where the
/// room would be memory and the growth is a small share.
fn line_estimate(len: usize) -> usize {
    if len <= 64 * 1024 {
        len / 16 + FEW
    } else {
        len / 32 + 1
    }
}

/// What becomes of a text's lines ([`with_lines`]): a trait rather than a
/// closure, so that the line iterator's type (it depends on the CPU) stays
/// static and its steps inline.
trait Collect<'a> {
    type Out;
    fn collect(self, lines: impl Iterator<Item = Line<'a>>) -> Self::Out;
}

/// Hands `to` the lines of `input`, as [`split_lines`] lists them, from
/// one SIMD newline search (the `memchr` crate) that keeps its state from
/// one line to the next. On a 10 MB body the split is most of the work;
/// a `memchr` call per line paid its dispatch and set-up again on every
/// line.
#[inline]
fn with_lines<'a, C: Collect<'a>>(input: &'a str, base: usize, first_no: u32, to: C) -> C::Out {
    let hay = input.as_bytes();
    #[cfg(target_arch = "x86_64")]
    if let Some(one) = memchr::arch::x86_64::avx2::memchr::One::new(b'\n') {
        return to.collect(LineIter::new(input, base, first_no, one.iter(hay)));
    }
    to.collect(LineIter::new(
        input,
        base,
        first_no,
        memchr::memchr_iter(b'\n', hay),
    ))
}

/// The lines of a text, from the positions of its newlines.
struct LineIter<'a, I> {
    input: &'a str,
    base: usize,
    no: u32,
    start: usize,
    newlines: I,
}

impl<'a, I: Iterator<Item = usize>> LineIter<'a, I> {
    fn new(input: &'a str, base: usize, first_no: u32, newlines: I) -> Self {
        LineIter {
            input,
            base,
            no: first_no,
            start: 0,
            newlines,
        }
    }
}

impl<'a, I: Iterator<Item = usize>> Iterator for LineIter<'a, I> {
    type Item = Line<'a>;

    #[inline]
    fn next(&mut self) -> Option<Line<'a>> {
        let bytes = self.input.as_bytes();
        let start = self.start;
        let end = match self.newlines.next() {
            Some(end) => end,
            // The text after the last newline, if any, is the last line.
            None if start < bytes.len() => bytes.len(),
            None => return None,
        };
        self.start = end + 1;
        // The line's last byte decides both its end and whether the end
        // is plain: a `\r` (before the `\n`) is not text, and neither a
        // CRLF nor a trailing blank is plain. (Read once: two bounds-checked
        // reads of it cost ~10 instructions a line more on a big body.)
        let (text_end, plain_end) = match bytes.get(start..end).and_then(<[u8]>::last) {
            Some(b'\r') => (end - 1, false),
            Some(b' ' | b'\t') => (end, false),
            _ => (end, true),
        };
        let no = self.no;
        self.no = no.saturating_add(1);
        // `\r` and `\n` are ASCII: both ends are on character
        // boundaries (`get` checks, and never fails here).
        let text = self.input.get(start..text_end).unwrap_or_default();
        Some(Line {
            text,
            no,
            start: self.base + start,
            plain_end,
        })
    }
}

/// The text spanned by `lines` (inclusive range), sliced from the document
/// when that is already canonical (LF endings, no trailing blanks on any
/// line), otherwise rebuilt: CRLF and trailing whitespace must not change
/// what a section holds. `lines` are consecutive lines of one split (their
/// numbers say so), so the text between them is exactly their line
/// endings, which [`Line::plain_end`] describes: no byte is looked at here.
pub(crate) fn join_lines<'a>(doc: &'a str, lines: &[Line<'a>]) -> std::borrow::Cow<'a, str> {
    use std::borrow::Cow;
    let (first, last) = match (lines.first(), lines.last()) {
        (Some(f), Some(l)) => (f, l),
        _ => return Cow::Borrowed(""),
    };
    let consecutive = (last.no - first.no) as usize + 1 == lines.len();
    // The last line's own ending is not part of the text: only its
    // trailing blanks count.
    let canonical = consecutive
        && lines[..lines.len() - 1].iter().all(|l| l.plain_end)
        && !last.text.ends_with([' ', '\t']);
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

/// [`join_lines`] as it was written first, looking at the lines' bytes
/// and positions: the reference the property test holds it to.
#[cfg(test)]
fn join_lines_by_bytes<'a>(doc: &'a str, lines: &[Line<'a>]) -> std::borrow::Cow<'a, str> {
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
    let mut s = String::new();
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

    proptest::proptest! {
        /// Joining any run of lines gives the text, and the borrowed or
        /// rebuilt form, that looking at every line's bytes gives.
        #[test]
        fn join_agrees_with_the_bytes(
            doc in "(a|b |c\t|\r\n|\n|\r| ){0,40}",
            from in 0usize..12,
            len in 0usize..12,
        ) {
            let lines = split_lines(&doc, 0, 1);
            let from = from.min(lines.len());
            let run = &lines[from..(from + len).min(lines.len())];
            let (ours, theirs) = (join_lines(&doc, run), join_lines_by_bytes(&doc, run));
            proptest::prop_assert_eq!(&ours, &theirs);
            proptest::prop_assert_eq!(
                matches!(ours, std::borrow::Cow::Borrowed(_)),
                matches!(theirs, std::borrow::Cow::Borrowed(_))
            );
            proptest::prop_assert_eq!(&doc_lines(&doc)[..], &lines[..]);
        }
    }

    proptest::proptest! {
        #[test]
        fn trim_is_str_trim(s in "[ \t\u{a0}\u{3000}\u{b}\r\n]{0,3}(a|é|,| |\t|\u{a0}){0,4}[ \t\u{a0}\u{2003}\r]{0,3}") {
            proptest::prop_assert_eq!(trim(&s), s.trim());
            proptest::prop_assert_eq!(trim_start(&s), s.trim_start());
        }
    }

    proptest::proptest! {
        /// Each line knows it is blank exactly when `str::trim` leaves
        /// nothing of it (Unicode whitespace included), in a short
        /// document (lines on the stack) and a long one.
        #[test]
        fn lines_know_whether_they_are_blank(
            doc in "([ \t\u{a0}\u{3000}\u{b}\u{c}]{0,2}(a|é|\u{2003})?[ \t\u{a0}]{0,2}(\r\n|\n|\r)){0,12}",
        ) {
            for doc in [doc.clone(), doc.repeat(3)] {
                let lines = doc_lines(&doc);
                for l in lines.iter() {
                    proptest::prop_assert_eq!(l.is_blank(), l.text.trim().is_empty());
                }
            }
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
