//! Splitting a document into lines once, remembering where each one starts.
//!
//! Everything after this works on [`Line`]s, so LF and CRLF input look the
//! same to the grammar and every diagnostic can name a line and column of the
//! original document.
//!
//! ## Runs of inert lines
//!
//! A large document ([`RUNS_FROM`] bytes or more, not JSON) is not split
//! into one [`Line`] per line: lines no rule reads ([`is_inert_line`]: a
//! log's `- 10:00:01 run 1: ok` items, long colonless prose, the empty
//! lines between them) are gathered into runs, one entry each, as they are
//! split. On a 10.8 MB body, making and keeping an entry for every line
//! was three quarters of the parse. A run looks like its first line to
//! every reader (`text` is that line's text, `no` its number), so a rule
//! that tests a line reads it as it would read the line alone; readers of
//! a stretch of text ([`join_lines`]) take the run's bytes whole, and
//! readers that walk line by line past the first ones (list items, the
//! lines before a message) go through [`physical`], which splits a run
//! again where one is met.
//!
//! Rules that read "the first non-blank line after X" and the one after it
//! (a body's type line and the prose before it) must still see real lines:
//! so the first inert line after a line a rule reads is never part of a
//! run (only the second one on may open one), and a run never starts or
//! ends with an empty line. Whether a document is split with runs or not
//! gives the same messages and diagnostics; a test parses every fixture
//! both ways.
//!
//! Once a run is open, the lines [`is_inert_line`] decides by their first
//! bytes (a log item, `- ` and a digit; long prose that opens with a
//! letter) are taken in by a loop of its own ([`Open::skip`]) that reads
//! the newline masks directly and keeps only a count and the last line's
//! end: on the 10.8 MB bodies a line costs ~35 instructions there, its
//! 64-byte block's newline mask ~29 more. Any other line goes through the
//! general loop, line by line, as before.

use crate::grammar::{is_inert_line, ProseAhead, LONG_LINE};
use crate::trim::is_blank_text;

/// One line of the document, without its line ending; or a run of inert
/// lines (see the module doc), which reads as its first line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    /// The text, without `\n` or `\r\n` (a run's first line's). Trailing
    /// spaces are kept here and trimmed by whoever reads a value out of it.
    pub text: &'a str,
    /// 1-based line number in the whole document (a run's first line's).
    /// (Where it starts in the document is where `text` does: see
    /// [`Line::start`]; kept as a field too, a `Line` was 40 bytes, not 32,
    /// which cost a small message ~90 instructions.)
    pub no: u32,
    /// The line ends plainly: its text does not end in a space or tab, and
    /// it is followed by a bare `\n` (not `\r\n`) or by the end of the
    /// text. Set once where the line is split, so that [`join_lines`] need
    /// not look at every line's bytes again. For a run: every line of it.
    pub plain_end: bool,
    /// For a run: every ending inside it is plain and its last line's text
    /// ends in no space or tab (its own ending aside).
    plain_inside: bool,
    /// Known to be read by no rule ([`is_inert_line`]): set on the lines
    /// of a document split with runs (and on every run), where each line
    /// is tested as it is split; `false` where untested.
    pub inert: bool,
    /// For a run: how many lines it holds after the first (0 for a line).
    pub more: u32,
    /// For a run: its length in bytes, from its first line's start to the
    /// end of its last line's text.
    run_len: u32,
}

impl<'a> Line<'a> {
    /// The line from byte `at` of its text on: its text's tail, with the
    /// same number and ending. `None` for a run, or `at` off a character
    /// boundary or past the end.
    pub(crate) fn tail(&self, at: usize) -> Option<Line<'a>> {
        if self.more != 0 {
            return None;
        }
        Some(Line {
            text: self.text.get(at..)?,
            ..*self
        })
    }

    /// A line of its own (not a run).
    pub(crate) fn new(text: &'a str, no: u32, plain_end: bool) -> Self {
        Line {
            text,
            no,
            plain_end,
            plain_inside: true,
            inert: false,
            more: 0,
            run_len: 0,
        }
    }

    /// The number of the last line it covers (a run's last line's).
    #[inline]
    pub(crate) fn last_no(&self) -> u32 {
        self.no.saturating_add(self.more)
    }

    /// The byte offset in `doc`, the text it was split from, where it
    /// starts.
    #[inline]
    pub(crate) fn start(&self, doc: &str) -> usize {
        (self.text.as_ptr() as usize).wrapping_sub(doc.as_ptr() as usize)
    }

    /// The byte offset in `doc` where its text ends (a run's last line's).
    #[inline]
    pub(crate) fn end(&self, doc: &str) -> usize {
        self.start(doc)
            + if self.more == 0 {
                self.text.len()
            } else {
                self.run_len as usize
            }
    }

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

/// Splits `input` (which starts at line `first_no` of the
/// document) into lines. A final line ending does not start an empty line.
pub(crate) fn split_lines(input: &str, first_no: u32) -> Vec<Line<'_>> {
    struct ToVec(usize);
    impl<'a> Collect<'a> for ToVec {
        type Out = Vec<Line<'a>>;
        fn collect(self, lines: impl Iterator<Item = Line<'a>>) -> Vec<Line<'a>> {
            let mut out = Vec::with_capacity(line_estimate(self.0));
            out.extend(lines);
            out
        }
    }
    with_lines(input, first_no, ToVec(input.len()))
}

/// Documents of up to this many lines keep them on the stack.
const FEW: usize = 24;

/// A whole document's lines: on the stack for up to [`FEW`] (nearly every
/// message, decorated ones included), since allocating and freeing the
/// list showed in the profile of small messages; in a `Vec` otherwise.
pub(crate) type DocLines<'a> = smallvec::SmallVec<[Line<'a>; FEW]>;

/// Documents of this many bytes or more are split with runs of inert lines
/// (see the module doc). Below it a message's lines are too few for runs to
/// pay for the test of each line as it is split.
pub(crate) const RUNS_FROM: usize = 16 * 1024;

#[cfg(test)]
thread_local! {
    /// In tests: split every document with runs (`Some(true)`) or none
    /// (`Some(false)`) whatever its size, to check that both read alike.
    pub(crate) static FORCE_RUNS: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
    /// In tests: whether runs take lines in through [`Open::skip`] (`true`,
    /// as outside tests) or line by line only, to check both split alike.
    pub(crate) static SKIP: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Whether `input` is split with runs: a large document, unless it opens
/// as JSON (a JSON document's lines are read one by one as JSON Lines, and
/// it has no markdown body to pass over).
fn with_runs(input: &str) -> bool {
    #[cfg(test)]
    if let Some(forced) = FORCE_RUNS.with(std::cell::Cell::get) {
        return forced && !input.trim_start().starts_with(['{', '[']);
    }
    // Fuzzing (cargo-fuzz's `--cfg fuzzing`) tries inputs of a few KiB:
    // half of them, whatever their size, go through runs.
    #[cfg(fuzzing)]
    if input.len() % 2 == 1 {
        return !input.trim_start().starts_with(['{', '[']);
    }
    input.len() >= RUNS_FROM && !input.trim_start().starts_with(['{', '['])
}

/// [`split_lines`] of a whole document (from byte 0, line 1); a large one
/// with runs of inert lines (see the module doc).
pub(crate) fn doc_lines<'a>(input: &'a str, out: &mut DocLines<'a>) {
    struct ToDoc<'o, 'a>(&'o mut DocLines<'a>);
    impl<'a> Collect<'a> for ToDoc<'_, 'a> {
        type Out = ();
        fn collect(self, lines: impl Iterator<Item = Line<'a>>) {
            for l in lines {
                self.0.push(l);
            }
        }
    }
    if with_runs(input) {
        *out = DocLines::from_vec(runs(input));
        return;
    }
    with_lines(input, 1, ToDoc(out))
}

/// The lines of a large document, with runs: out of line, so that the
/// path of a small message is compiled as if it were not there (inlined,
/// it cost the 195-byte message ~50 instructions).
#[inline(never)]
fn runs(input: &str) -> Vec<Line<'_>> {
    Runs::new(input).split(Newlines::new(input.as_bytes()))
}

/// The lines of a document gathered into runs as they are split (see the
/// module doc).
struct Runs<'a> {
    doc: &'a str,
    out: Vec<Line<'a>>,
    prose: ProseAhead<'a>,
    /// The last non-empty line was inert: the next inert one may open a run.
    after_inert: bool,
    /// The run being gathered, whose first line is the last of `out`.
    open: Option<Open>,
}

/// A run being gathered: what its entry will say once it closes (kept
/// here rather than written to the entry at each line it takes in).
struct Open {
    /// Its first line's start.
    first_start: usize,
    /// Its last line's number and the end of that line's text.
    last_no: u32,
    last_end: usize,
    /// Every line of it ends plainly; every one before the last does.
    plain_end: bool,
    plain_before_last: bool,
    /// Empty lines after its last line, not yet taken in or listed: the
    /// first one's start and number; and whether all end plainly.
    empty: Option<(usize, u32)>,
    empty_plain: bool,
}

impl<'a> Runs<'a> {
    fn new(doc: &'a str) -> Self {
        Runs {
            doc,
            out: Vec::with_capacity(64),
            prose: ProseAhead::new(doc),
            after_inert: false,
            open: None,
        }
    }

    /// The lines of the document, from the positions of its newlines: a
    /// `Line` is made only for a line kept as one; most lines of a long
    /// body only move the end of the open run.
    fn split(mut self, newlines: Newlines<'a>) -> Vec<Line<'a>> {
        let hay = self.doc.as_bytes();
        let mut lines = Ends {
            hay,
            newlines,
            start: 0,
            no: 1,
        };
        while let Some((start, text, no, plain_end)) = lines.next() {
            // A run open: the lines it takes in are read in a loop of their
            // own, its state kept aside (most lines of a long body).
            let mut line = Some((start, text, no, plain_end));
            if let Some(mut run) = self.open.take() {
                while let Some((start, text, no, plain_end)) = line {
                    if text.is_empty() {
                        run.empty.get_or_insert((start, no));
                        run.empty_plain &= plain_end;
                    } else if !(is_inert_line(text, &mut self.prose)
                        && run.take(start + text.len(), no, plain_end))
                    {
                        break;
                    }
                    #[cfg(test)]
                    let skip = SKIP.with(std::cell::Cell::get);
                    #[cfg(not(test))]
                    let skip = true;
                    if skip {
                        run.skip(&mut lines, &mut self.prose);
                    }
                    line = lines.next();
                }
                self.open = Some(run);
            }
            if let Some((start, text, no, plain_end)) = line {
                self.line(start, start + text.len(), no, plain_end);
            }
        }
        self.close(hay.len());
        self.out
    }

    /// Line `no`, its text at `start..end`, when no run takes it in (out
    /// of line: in a long body, one line in many).
    #[inline(never)]
    fn line(&mut self, start: usize, end: usize, no: u32, plain_end: bool) {
        // `\r` and `\n` are ASCII: both ends are on character boundaries.
        let text = self.doc.get(start..end).unwrap_or_default();
        let mut line = Line::new(text, no, plain_end);
        if text.is_empty() {
            self.out.push(line);
            return;
        }
        self.close(start);
        let inert = is_inert_line(text.as_bytes(), &mut self.prose);
        line.inert = inert;
        self.out.push(line);
        // The first inert line after one a rule reads stays a line of its
        // own; the next may open a run.
        self.open = (inert && self.after_inert).then_some(Open {
            first_start: start,
            last_no: no,
            last_end: end,
            plain_end,
            plain_before_last: true,
            empty: None,
            empty_plain: true,
        });
        self.after_inert = inert;
    }

    /// Closes the open run, if any: its entry written, and the empty lines
    /// after it (up to `end`) listed.
    fn close(&mut self, end: usize) {
        let Some(run) = self.open.take() else {
            return;
        };
        if let Some(first) = self.out.last_mut() {
            first.more = run.last_no.saturating_sub(first.no);
            let start = first.start(self.doc);
            first.run_len = u32::try_from(run.last_end - start).unwrap_or(u32::MAX);
            first.plain_end = run.plain_end;
            // The last line's trailing blanks, read where the run ends.
            let last = self.doc.as_bytes().get(run.last_end.wrapping_sub(1));
            first.plain_inside = run.plain_before_last && !matches!(last, Some(b' ' | b'\t'));
        }
        if let Some((start, no)) = run.empty {
            let text = self.doc.get(start..end).unwrap_or_default();
            self.out.extend(split_lines(text, no));
        }
    }
}

/// A text's lines as positions: each one's start, text (without its
/// ending), number and whether it ends plainly, from the positions of the
/// text's newlines.
struct Ends<'h, I> {
    hay: &'h [u8],
    newlines: I,
    start: usize,
    no: u32,
}

impl<'h, I: Iterator<Item = usize>> Ends<'h, I> {
    #[inline]
    fn next(&mut self) -> Option<(usize, &'h [u8], u32, bool)> {
        let start = self.start;
        let end = match self.newlines.next() {
            Some(end) => end,
            None if start < self.hay.len() => self.hay.len(),
            None => return None,
        };
        self.start = end + 1;
        let no = self.no;
        self.no = no.saturating_add(1);
        let (text_end, plain_end) = line_end(self.hay, start, end);
        let text = self.hay.get(start..text_end).unwrap_or_default();
        Some((start, text, no, plain_end))
    }
}

impl Open {
    /// Takes in the lines from `lines`' next one on that are inert by
    /// their first bytes alone, as [`is_inert_line`] decides the usual
    /// ones (a log item, `- ` and a digit; long prose that opens with a
    /// letter, its colon searched once for many lines). It reads the
    /// newline masks itself and keeps a count of lines and of unplain
    /// endings in registers (out of line, where few values are live);
    /// the run's state is written once, as [`Open::take`] line by line
    /// would leave it. The general loop made a tuple for every line and
    /// carried that state through `take`: ~110 instructions a line of
    /// the 10.8 MB log, ~65 here with the line's share of its block's
    /// mask. Stops at the first line it cannot decide (an empty one
    /// among them, or prose whose newline is `LONG_LINE + 1` bytes on or
    /// nearer) and in the last, partial block: the general loop reads
    /// those.
    #[inline(never)]
    fn skip(&mut self, lines: &mut Ends<'_, Newlines<'_>>, prose: &mut ProseAhead<'_>) {
        let hay = lines.hay;
        // Past this length the run's entry could not count its bytes:
        // `take` decides line by line.
        if hay.len() - self.first_start > u32::MAX as usize {
            return;
        }
        let Newlines {
            mut mask,
            mut base,
            mut next,
            ..
        } = lines.newlines;
        let mut start = lines.start;
        // How many lines it took in, and of them how many did not end
        // plainly (their last byte a `\r`, space or tab).
        let (mut taken, mut unplain) = (0u32, 0u32);
        loop {
            while mask == 0 {
                let Some(block) = hay.get(next..).and_then(<[u8]>::first_chunk::<64>) else {
                    break;
                };
                mask = block_mask(block);
                base = next;
                next += 64;
            }
            if mask == 0 {
                break;
            }
            let nl = base + mask.trailing_zeros() as usize;
            let Some(&[first, second, third]) = hay.get(start..).and_then(<[u8]>::first_chunk)
            else {
                break;
            };
            if matches!(first, b'-' | b'+') {
                if second != b' ' || !third.is_ascii_digit() {
                    break;
                }
            } else if !first.is_ascii_alphabetic()
                // Longer than `LONG_LINE` whatever its ending; a line
                // at the edge is left to the general loop.
                || nl - start <= LONG_LINE + 1
                || !prose.no_colon_near_by(start, ProseAhead::search_apart)
            {
                break;
            }
            // Not empty: the byte before the newline is the line's.
            let before = hay.get(nl.wrapping_sub(1)).copied().unwrap_or_default();
            unplain += u32::from(matches!(before, b'\r' | b' ' | b'\t'));
            taken += 1;
            mask &= mask - 1;
            start = nl + 1;
        }
        lines.newlines.mask = mask;
        lines.newlines.base = base;
        lines.newlines.next = next;
        if taken > 0 {
            // What `take` line by line would leave, the last line's end
            // read again as `Ends::next` reads it (from the first line
            // taken: the lines are not empty, so the last byte before the
            // newline is the last line's).
            let nl = start - 1;
            let (end, plain) = line_end(hay, lines.start, nl);
            let plain_before = unplain == u32::from(!plain);
            self.plain_before_last = self.plain_end && self.empty_plain && plain_before;
            self.plain_end = self.plain_before_last && plain;
            self.last_no = lines.no.saturating_add(taken - 1);
            self.last_end = end;
            self.empty = None;
            self.empty_plain = true;
            lines.no = lines.no.saturating_add(taken);
            lines.start = start;
        }
    }

    /// Takes line `no` (inert, not empty, its text `text` ending at `end`)
    /// in, unless the run's length would pass what its entry counts in
    /// (then the line opens the next run).
    #[inline]
    fn take(&mut self, end: usize, no: u32, plain_end: bool) -> bool {
        if end - self.first_start > u32::MAX as usize {
            return false;
        }
        self.plain_before_last = self.plain_end && self.empty_plain;
        self.plain_end = self.plain_before_last && plain_end;
        self.last_no = no;
        self.last_end = end;
        self.empty = None;
        self.empty_plain = true;
        true
    }
}

/// The positions of `\n` in a text, read from a bit mask per 64-byte
/// block: the splitter of a large document asks for every newline, and
/// `memchr`'s iterator paid its search's set-up again at each one (~55
/// instructions a line of 75 bytes; this is ~30, callgrind on the 10.8 MB
/// log).
struct Newlines<'h> {
    hay: &'h [u8],
    /// Where the block `mask` describes starts, and where the next one does.
    base: usize,
    next: usize,
    /// The newlines of the block not yet handed out, one bit each.
    mask: u64,
}

impl<'h> Newlines<'h> {
    fn new(hay: &'h [u8]) -> Self {
        Newlines {
            hay,
            base: 0,
            next: 0,
            mask: 0,
        }
    }
}

impl Newlines<'_> {
    /// The next newline's position, not handed out yet.
    #[inline]
    fn peek(&mut self) -> Option<usize> {
        while self.mask == 0 {
            let rest = self.hay.get(self.next..).filter(|r| !r.is_empty())?;
            self.mask = match rest.first_chunk::<64>() {
                Some(block) => block_mask(block),
                None => tail_mask(self.hay, rest.len()),
            };
            self.base = self.next;
            self.next += 64;
        }
        Some(self.base + self.mask.trailing_zeros() as usize)
    }

    /// Hands out the newline [`Newlines::peek`] found.
    #[inline]
    fn advance(&mut self) {
        self.mask &= self.mask.wrapping_sub(1);
    }
}

impl Iterator for Newlines<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let at = self.peek()?;
        self.advance();
        Some(at)
    }
}

/// One bit per `\n` among (up to) the first 64 bytes of `b`, byte by byte.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
fn newline_mask(b: &[u8]) -> u64 {
    b.iter()
        .take(64)
        .enumerate()
        .fold(0, |m, (i, &c)| m | (u64::from(c == b'\n') << i))
}

/// Where the text of the line `hay[start..end]` (its `\n` left out)
/// ends, and whether its ending is plain: its last byte decides both (a
/// `\r` before the `\n` is not text; neither a CRLF nor a trailing blank
/// is plain). Read once: two bounds-checked reads of it cost ~10
/// instructions a line more on a big body. The large document's
/// splitter's rule; [`LineIter`] reads the same rule from the line it
/// has cut (a test holds the two splitters alike).
#[inline(always)]
fn line_end(hay: &[u8], start: usize, end: usize) -> (usize, bool) {
    match hay.get(start..end).and_then(<[u8]>::last) {
        Some(b'\r') => (end - 1, false),
        Some(b' ' | b'\t') => (end, false),
        _ => (end, true),
    }
}

/// `newline_mask` of the last `len` bytes of `hay`, fewer than 64: from
/// the block that ends the text (or, in a text shorter than a block, a
/// copy padded with zeros), as a byte-by-byte loop over the tail cost a
/// small message more than its whole blocks.
#[inline]
fn tail_mask(hay: &[u8], len: usize) -> u64 {
    let from = hay.len().saturating_sub(64);
    match hay.get(from..).and_then(<[u8]>::first_chunk::<64>) {
        Some(block) => block_mask(block) >> (64 - len).min(63),
        None => {
            let mut padded = [0u8; 64];
            if let Some(to) = padded.get_mut(..hay.len()) {
                to.copy_from_slice(hay);
            }
            block_mask(&padded) >> (hay.len() - len)
        }
    }
}

/// `newline_mask` of a whole block, 16 bytes at a time with SSE2 (the
/// x86_64 baseline; `safe_arch` wraps its intrinsics without `unsafe`).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
fn block_mask(block: &[u8; 64]) -> u64 {
    use safe_arch::{
        cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };
    let newline = set_splat_i8_m128i(b'\n' as i8);
    let mut mask = 0u64;
    for k in 0..4 {
        let Some(chunk) = block.get(16 * k..).and_then(<[u8]>::first_chunk::<16>) else {
            break;
        };
        let bits = move_mask_i8_m128i(cmp_eq_mask_i8_m128i(load_unaligned_m128i(chunk), newline));
        mask |= u64::from(bits as u16) << (16 * k);
    }
    mask
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline]
fn block_mask(block: &[u8; 64]) -> u64 {
    newline_mask(block)
}

/// The lines `lines` cover one by one: a run split again into its lines
/// (see the module doc), any other line as it is. `doc` is the text the
/// lines were split from.
pub(crate) fn physical<'l, 'a: 'l>(
    doc: &'a str,
    lines: &'l [Line<'a>],
) -> impl Iterator<Item = Line<'a>> + 'l {
    physical_indexed(doc, lines).map(|(_, l)| l)
}

/// [`physical`], with the index in `lines` of the entry each line is in.
pub(crate) fn physical_indexed<'l, 'a: 'l>(
    doc: &'a str,
    lines: &'l [Line<'a>],
) -> impl Iterator<Item = (usize, Line<'a>)> + 'l {
    Physical {
        doc,
        lines,
        next: 0,
        run: None,
    }
}

/// The iterator of [`physical_indexed`]. A line that is no run (every line
/// of a document below [`RUNS_FROM`]) is handed on as it is, with one
/// test: a `flat_map` over a per-entry iterator, which held a run's
/// splitter whether or not there was one, moved and matched that state at
/// every line (~50 instructions a line of the prose before a message).
struct Physical<'l, 'a> {
    doc: &'a str,
    lines: &'l [Line<'a>],
    /// The index of the entry after the one being read.
    next: usize,
    /// The run being split, and its entry's index.
    run: Option<(usize, RunLines<'a>)>,
}

/// The lines of a run, split again.
type RunLines<'a> = std::iter::Take<LineIter<'a, memchr::Memchr<'a>>>;

impl<'a> Iterator for Physical<'_, 'a> {
    type Item = (usize, Line<'a>);

    #[inline]
    fn next(&mut self) -> Option<(usize, Line<'a>)> {
        if let Some((i, run)) = &mut self.run {
            if let Some(l) = run.next() {
                return Some((*i, l));
            }
            self.run = None;
        }
        let i = self.next;
        let l = self.lines.get(i)?;
        self.next = i + 1;
        if l.more == 0 {
            return Some((i, *l));
        }
        self.open_run(i, l)
    }
}

impl<'a> Physical<'_, 'a> {
    /// The first line of the run `l`, the entry at `i`, the rest kept to
    /// be handed on next (out of line: no message below [`RUNS_FROM`] has
    /// a run).
    #[cold]
    #[inline(never)]
    fn open_run(&mut self, i: usize, l: &Line<'a>) -> Option<(usize, Line<'a>)> {
        let Some(rest) = self.doc.get(l.start(self.doc)..) else {
            return Some((i, *l));
        };
        let mut run = LineIter::new(rest, l.no, memchr::memchr_iter(b'\n', rest.as_bytes()))
            .take(l.more as usize + 1);
        let first = run.next();
        self.run = Some((i, run));
        match first {
            Some(first) => Some((i, first)),
            None => self.next(),
        }
    }
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
/// the 64-byte newline masks ([`Newlines`]) that the large document's
/// splitter reads too: `memchr`'s AVX2 iterator cost a 195-byte message
/// ~170 instructions more (its set-up, and its tail read byte by byte).
#[inline]
fn with_lines<'a, C: Collect<'a>>(input: &'a str, first_no: u32, to: C) -> C::Out {
    to.collect(LineIter::new(
        input,
        first_no,
        Newlines::new(input.as_bytes()),
    ))
}

/// The lines of a text, from the positions of its newlines.
struct LineIter<'a, I> {
    /// The text from `start` on, not split yet.
    rest: &'a str,
    no: u32,
    start: usize,
    newlines: I,
}

impl<'a, I: Iterator<Item = usize>> LineIter<'a, I> {
    fn new(input: &'a str, first_no: u32, newlines: I) -> Self {
        LineIter {
            rest: input,
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
        let start = self.start;
        let len = match self.newlines.next() {
            Some(end) => end.wrapping_sub(start),
            // The text after the last newline, if any, is the last line.
            None if !self.rest.is_empty() => self.rest.len(),
            None => return None,
        };
        self.start = start + len + 1;
        let no = self.no;
        self.no = no.saturating_add(1);
        // The line is cut from the text not split yet, at its `\n`: one
        // character-boundary test (`\n` is ASCII: it never fails), and the
        // `\n` comes off the rest by `strip_prefix`, which tests none (a
        // cut of the whole text tested both ends, ~5 instructions a line
        // more). The line's ending is read from its own last byte, as
        // [`line_end`] reads it, once the cut is made: reading it first
        // cost a second bounds test (~7 instructions a line); a `\r` comes
        // off by `strip_suffix`, which cuts without testing again.
        let (line, tail) = self.rest.split_at_checked(len)?;
        self.rest = tail.strip_prefix('\n').unwrap_or(tail);
        let (text, plain_end) = match line.as_bytes().last() {
            Some(b'\r') => (line.strip_suffix('\r').unwrap_or(line), false),
            Some(b' ' | b'\t') => (line, false),
            _ => (line, true),
        };
        Some(Line::new(text, no, plain_end))
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
    // A run (see the module doc) counts for all its lines; its ending
    // inside is what `plain_inside` says.
    let mut count = last.more as usize + 1;
    let mut plain = true;
    for l in &lines[..lines.len() - 1] {
        count += l.more as usize + 1;
        plain &= l.plain_end;
    }
    let consecutive = last
        .last_no()
        .checked_sub(first.no)
        .is_some_and(|d| d as usize + 1 == count);
    // The last line's own ending is not part of the text: only its
    // trailing blanks count. A line that ends plainly has none (the split
    // read its last byte): not read again.
    let last_plain = match last.more {
        0 => last.plain_end || !last.text.ends_with([' ', '\t']),
        _ => last.plain_inside,
    };
    if consecutive && plain && last_plain {
        if let Some(s) = doc.get(first.start(doc)..last.end(doc)) {
            return Cow::Borrowed(s);
        }
    }
    let len = last
        .end(doc)
        .saturating_sub(first.start(doc))
        .min(doc.len());
    let mut s = String::with_capacity(len + lines.len());
    for (i, l) in physical(doc, lines).enumerate() {
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
        .all(|w| w[1].start(doc) == w[0].start(doc) + w[0].text.len() + 1)
        && lines.iter().all(|l| !l.text.ends_with([' ', '\t']));
    if canonical {
        if let Some(s) = doc.get(first.start(doc)..last.start(doc) + last.text.len()) {
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
pub(crate) mod tests {
    /// [`doc_lines`] into a list of its own.
    fn doc_lines_of(input: &str) -> DocLines<'_> {
        let mut out = DocLines::new();
        doc_lines(input, &mut out);
        out
    }

    use super::*;

    proptest::proptest! {
        /// The block masks find every newline `memchr` finds, on texts
        /// around the block size; the SSE2 block and the byte loop agree.
        #[test]
        fn newlines_are_memchrs(text in "(a|\n|é|\r| ){0,200}") {
            let hay = text.as_bytes();
            let ours: Vec<usize> = Newlines::new(hay).collect();
            let theirs: Vec<usize> = memchr::memchr_iter(b'\n', hay).collect();
            proptest::prop_assert_eq!(ours, theirs);
            for block in hay.chunks(64) {
                if let Some(block) = block.first_chunk::<64>() {
                    proptest::prop_assert_eq!(block_mask(block), newline_mask(block));
                }
            }
        }
    }

    /// A generated line for the split and parse property tests: `head`
    /// (the bytes a rule may read a line by), `len` times `fill`, and a
    /// colon put at byte `colon` where that is a character of its own.
    pub(crate) fn probe_line(head: &str, fill: char, len: usize, colon: Option<usize>) -> String {
        let mut line = format!("{head}{}", fill.to_string().repeat(len));
        if let Some(at) = colon.filter(|&at| line.get(at..at + 1).is_some()) {
            line.replace_range(at..at + 1, ":");
        }
        line
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(1000))]

        /// Runs take lines in through the skip over plainly inert lines
        /// ([`Open::skip`]) as they do line by line: the same entries,
        /// with lines of every kind of first byte, lengths about
        /// `LONG_LINE`, a colon about `MAX_LABEL`, every ending, woven
        /// into long inert stretches.
        #[test]
        fn skip_splits_as_line_by_line(
            lines in proptest::collection::vec((
                proptest::sample::select(vec![
                    "- 1", "+ 2", "- a", "-", "- ", "-1", "- -", "+", "A", "z", "#", " ", "1",
                    "*", "_", "[", "`", "~", ">", "|", "é", "", "\t", "- **B:** x", "Bead: x",
                ]),
                0usize..80,
                proptest::option::of(0usize..80),
                proptest::sample::select(vec!["\n", "\r\n", " \n", "\t\r\n", "\r", ""]),
                0usize..5,
            ), 0..40),
        ) {
            let stretch = [
                "- 10:00:01 run 1: ok, 42 tests\n",
                "Implemented the token refresh path with retries and a jittered backoff.\n",
                "- 10:00:02 run 2: ok\r\n",
            ];
            let mut doc = String::new();
            for (i, (head, len, colon, end, inert)) in lines.iter().enumerate() {
                doc.push_str(&probe_line(head, 'x', *len, *colon));
                doc.push_str(end);
                for k in 0..*inert {
                    doc.push_str(stretch[(i + k) % stretch.len()]);
                }
            }
            let split = |skip: bool| {
                SKIP.with(|s| s.set(skip));
                FORCE_RUNS.with(|f| f.set(Some(true)));
                let lines = doc_lines_of(&doc).to_vec();
                FORCE_RUNS.with(|f| f.set(None));
                SKIP.with(|s| s.set(true));
                lines
            };
            let (skipped, one_by_one) = (split(true), split(false));
            proptest::prop_assert_eq!(&skipped, &one_by_one);
            fn texts<'a>(doc: &'a str, lines: &[Line<'a>]) -> Vec<(&'a str, u32)> {
                physical(doc, lines).map(|l| (l.text, l.no)).collect()
            }
            proptest::prop_assert_eq!(texts(&doc, &skipped), texts(&doc, &split_lines(&doc, 1)));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(500))]

        /// [`physical_indexed`] hands on the lines, and the entry each is
        /// in, that a `flat_map` of each entry's lines (its reading before
        /// the iterator of its own) did: documents split with runs and
        /// without, read from any entry on.
        #[test]
        fn physical_lines_read_as_flat_mapped(
            lines in proptest::collection::vec((
                proptest::sample::select(vec![
                    "- 10:00:01 run 1: ok", "Implemented the token refresh path with retries and a jittered backoff",
                    "Bead: x", "", " ", "- **B:** x", "## Summary", "é",
                ]),
                proptest::sample::select(vec!["\n", "\r\n", " \n", ""]),
            ), 0..40),
            runs in proptest::bool::ANY,
            from in 0usize..40,
        ) {
            let doc: String = lines.iter().map(|(l, e)| format!("{l}{e}")).collect();
            FORCE_RUNS.with(|f| f.set(Some(runs)));
            let split = doc_lines_of(&doc).to_vec();
            FORCE_RUNS.with(|f| f.set(None));
            let entries = &split[from.min(split.len())..];
            let flat_mapped: Vec<(usize, Line<'_>)> = entries
                .iter()
                .enumerate()
                .flat_map(|(i, l)| {
                    let lines: Vec<Line<'_>> = match doc.get(l.start(&doc)..) {
                        Some(rest) if l.more > 0 => LineIter::new(
                            rest,
                            l.no,
                            memchr::memchr_iter(b'\n', rest.as_bytes()),
                        )
                        .take(l.more as usize + 1)
                        .collect(),
                        _ => vec![*l],
                    };
                    lines.into_iter().map(move |l| (i, l))
                })
                .collect();
            let ours: Vec<(usize, Line<'_>)> = physical_indexed(&doc, entries).collect();
            proptest::prop_assert_eq!(&ours, &flat_mapped);
            let plain: Vec<Line<'_>> = physical(&doc, entries).collect();
            proptest::prop_assert_eq!(plain, flat_mapped.iter().map(|(_, l)| *l).collect::<Vec<_>>());
        }
    }

    proptest::proptest! {
        /// The small splitter cuts and ends every line as [`line_end`]
        /// (the large document's rule) does.
        #[test]
        fn small_split_ends_lines_as_line_end_does(text in "(a|\n|é|\r| |\t){0,120}") {
            let hay = text.as_bytes();
            let mut ends: Vec<usize> = memchr::memchr_iter(b'\n', hay).collect();
            if ends.last().map_or(0, |e| e + 1) < hay.len() {
                ends.push(hay.len());
            }
            let mut start = 0;
            let mut expected = Vec::new();
            for (i, &end) in ends.iter().enumerate() {
                let (text_end, plain) = line_end(hay, start, end);
                expected.push((&text[start..text_end], i as u32 + 1, plain));
                start = end + 1;
            }
            let got: Vec<_> = split_lines(&text, 1)
                .iter()
                .map(|l| (l.text, l.no, l.plain_end))
                .collect();
            proptest::prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn doc_lines_agree_with_split_lines() {
        for n in [0, 1, 7, 8, 9, 20] {
            let doc: String = (0..n).map(|i| format!("line {i}\r\n")).collect();
            assert_eq!(&doc_lines_of(&doc)[..], &split_lines(&doc, 1)[..]);
            let doc = doc + "tail";
            assert_eq!(&doc_lines_of(&doc)[..], &split_lines(&doc, 1)[..]);
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
            let lines = split_lines(&doc, 1);
            let from = from.min(lines.len());
            let run = &lines[from..(from + len).min(lines.len())];
            let (ours, theirs) = (join_lines(&doc, run), join_lines_by_bytes(&doc, run));
            proptest::prop_assert_eq!(&ours, &theirs);
            proptest::prop_assert_eq!(
                matches!(ours, std::borrow::Cow::Borrowed(_)),
                matches!(theirs, std::borrow::Cow::Borrowed(_))
            );
            proptest::prop_assert_eq!(&doc_lines_of(&doc)[..], &lines[..]);
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
                let lines = doc_lines_of(&doc);
                for l in lines.iter() {
                    proptest::prop_assert_eq!(l.is_blank(), l.text.trim().is_empty());
                }
            }
        }
    }

    #[test]
    fn crlf_and_lf_split_alike() {
        let lf = split_lines("a\nb\n\nc", 1);
        let crlf = split_lines("a\r\nb\r\n\r\nc", 1);
        fn texts<'a>(v: &[Line<'a>]) -> Vec<&'a str> {
            v.iter().map(|l| l.text).collect()
        }
        assert_eq!(texts(&lf), vec!["a", "b", "", "c"]);
        assert_eq!(texts(&lf), texts(&crlf));
        assert_eq!(crlf[3].start("a\r\nb\r\n\r\nc"), 8);
        assert_eq!(crlf[3].no, 4);
    }

    #[test]
    fn join_borrows_canonical_text_and_rebuilds_crlf() {
        let doc = "x\na\nb\n";
        let lines = split_lines(doc, 1);
        assert!(matches!(
            join_lines(doc, &lines[1..]),
            std::borrow::Cow::Borrowed("a\nb")
        ));
        let doc = "x\r\na \r\nb\r\n";
        let lines = split_lines(doc, 1);
        assert_eq!(join_lines(doc, &lines[1..]), "a\nb");
    }

    #[test]
    fn column_counts_characters() {
        let doc = "héllo: wörld";
        let lines = split_lines(doc, 1);
        let value = &lines[0].text[8..];
        assert_eq!(value, "wörld");
        assert_eq!(lines[0].column_of(value), 8);
    }
}
