//! Lines the plain field grammar does not read, read through the
//! decorations language models add: a label in emphasis or after a
//! number or an emoji (`**Bead**: x`, `1. Step: y`), a bold label with its
//! colon after the emphasis, a label and a dash (`Status — ok`), an
//! emphasised title or a setext underline naming a section. Each rule
//! that reads a line here makes the `info` note that says so.

use super::label::LABEL_LENGTHS;
use super::tables::is_row_blank;
use super::{read_through, Body, Label, SectionKind};
use crate::diag::Diags;
use crate::grammar::{field_line, FieldLine};
use crate::model::Note;
use crate::trim::trim;

impl<'l, 'a> Body<'l, 'a> {
    /// A line no rule read: a setext underline (`Problem` over `-------`
    /// or `=======`) under a title that names a section opens it; a known
    /// label and its value split by a dash (`Status — in progress`) are
    /// that field when the section has none yet. Cold: only lines no
    /// other rule reads reach it.
    #[cold]
    #[inline(never)]
    pub(super) fn other_line(
        &mut self,
        diags: &mut Diags<'_, 'a>,
        i: usize,
        duplicates: &mut usize,
    ) {
        let text = self.lines[i].text;
        let b = text.as_bytes();
        if let Some(&c @ (b'-' | b'=')) = b.first() {
            if b.get(1) == Some(&c) && b.iter().all(|&x| x == c || is_row_blank(x)) {
                self.setext(diags, i);
                return;
            }
        }
        let Some((f, label)) = dash_field(text) else {
            return;
        };
        let cur = self.headed.last().unwrap_or(&self.preamble);
        if cur.seen & label.bit() != 0 {
            // A plain field of the label was read: the dash line is prose.
            return;
        }
        let note = Note::join(&[
            "`",
            label_before_dash(text, f.value),
            "` and a dash read as the field `",
            f.label,
            ":`",
        ]);
        let line = &self.lines[i];
        if self.push_field(diags, line, i, f, label, duplicates) {
            read_through(diags, line, note);
        }
    }

    /// Line `i`, a run of `-` or `=`, under a line whose text names a
    /// section (`Problem`, `**Question**`, `Next Steps:`): that section's
    /// heading, the title line left out of the section before it.
    fn setext(&mut self, diags: &mut Diags<'_, 'a>, i: usize) {
        let Some(prev) = i.checked_sub(1).and_then(|p| self.lines.get(p)) else {
            return;
        };
        let title = trim(prev.text);
        if title.is_empty() || title.starts_with('#') {
            return;
        }
        // The title line opened a section itself (`**Problem**` over
        // `---`): the underline is its heading's, not the section's text.
        if let Some(s) = self.headed.last_mut().filter(|s| s.start == i) {
            s.start = i + 1;
            return;
        }
        let Some(kind) = SectionKind::from_decorated_title(title) else {
            return;
        };
        diags.normalised(
            prev,
            crate::trim::trim_start(prev.text),
            Note::join(&[
                "`",
                title,
                "` underlined reads as the heading `## ",
                kind.title(),
                "`",
            ]),
        );
        self.open_section(kind, 2, i);
        let before = self.headed.len() - 1;
        let cur = match before.checked_sub(1) {
            Some(b) => &mut self.headed[b],
            None => &mut self.preamble,
        };
        cur.end = (i - 1).max(cur.start);
    }
}

/// Whether [`Body::other_line`] may read a line that opens with `b`
/// (which no other rule read): a setext underline, or a dash after a
/// label's name or after emphasis. A line of prose that opens with a
/// letter costs the eleven byte tests of [`dash_field`], inline.
#[inline(always)]
pub(super) fn may_be_other(b: &[u8]) -> bool {
    match b.first() {
        // The places at once, with no bounds test each, on a line as long
        // as the first nine names and their blank (most prose); the two
        // longest names' places then on their own.
        Some(b'a'..=b'z' | b'A'..=b'Z') => match b.get(..16) {
            Some(h) => {
                let d = |c: u8| u8::from(matches!(c, b'-' | 0xE2));
                (d(h[5])
                    | d(h[6])
                    | d(h[7])
                    | d(h[8])
                    | d(h[11])
                    | d(h[12])
                    | d(h[13])
                    | d(h[14])
                    | d(h[15]))
                    != 0
                    || matches!(b.get(18), Some(&(b'-' | 0xE2)))
                    || matches!(b.get(27), Some(&(b'-' | 0xE2)))
            }
            None => LABEL_LENGTHS
                .iter()
                .any(|&l| matches!(b.get(l + 1), Some(&(b'-' | 0xE2)))),
        },
        Some(_) => true,
        None => false,
    }
}

/// The width of the dash at `b[at..]`: ` - ` (3), ` – ` or ` — ` (5).
#[inline]
fn dash_at(b: &[u8], at: usize) -> Option<usize> {
    match b.get(at..at + 3)? {
        [b' ', b'-', b' '] => Some(3),
        [b' ', 0xE2, 0x80] => matches!(b.get(at + 3..at + 5)?, [0x93 | 0x94, b' ']).then_some(5),
        _ => None,
    }
}

/// A known label, a dash and a value (`Status — in progress`, `Step –
/// Step 4`, `**Context usage** - 45%`), the dash an em or en dash or a
/// hyphen with blanks on both sides. The label opens the line or, in
/// emphasis, follows a bullet or a number (`- **Status** — ok`); a plain
/// label after a bullet (`- Status - the page shows retries`) is a list
/// of prose, and is not read. A line of prose costs a few byte tests: a
/// plain label's dash is looked for only after a name's length.
#[inline]
fn dash_field(text: &str) -> Option<(FieldLine<'_>, Label)> {
    let b = text.as_bytes();
    let (start, end, after) = match *b.first()? {
        b'A'..=b'Z' | b'a'..=b'z' => {
            // A dash just after one of the names' lengths: a byte test
            // or two at each of ten places (a search of the line's head
            // was ~80 instructions a line of prose).
            let end = LABEL_LENGTHS
                .iter()
                .copied()
                .find(|&l| matches!(b.get(l + 1), Some(&(b'-' | 0xE2))) && b[l] == b' ')?;
            (0, end, end)
        }
        first => {
            // A bullet or a number, one blank, then the emphasis.
            let k = match first {
                b'-' | b'+' | b'*' if b.get(1) == Some(&b' ') => 2,
                b'0'..=b'9' => {
                    let d = b.iter().take_while(|c| c.is_ascii_digit()).count();
                    match b.get(d..d + 2)? {
                        [b'.' | b')', b' '] => d + 2,
                        _ => return None,
                    }
                }
                _ => 0,
            };
            let mark = *b.get(k)?;
            if !matches!(mark, b'*' | b'_') {
                return None;
            }
            let open = k + b[k..].iter().take_while(|&&c| c == mark).count();
            let close = open + b.get(open..)?.iter().take(30).position(|&c| c == mark)?;
            let after = close + b[close..].iter().take_while(|&&c| c == mark).count();
            (open, close, after)
        }
    };
    let width = dash_at(b, after)?;
    // Cuts after and before ASCII bytes: on character boundaries.
    let name = text.get(start..end)?;
    let name = name.strip_suffix(':').unwrap_or(name);
    let label = Label::lookup(name)?;
    let value = trim(text.get(after + width..)?);
    if value.is_empty() {
        return None;
    }
    Some((FieldLine { label: name, value }, label))
}

/// The line before a dash field's dash, trimmed.
#[inline]
fn label_before_dash<'a>(line: &'a str, value: &str) -> &'a str {
    let at = (value.as_ptr() as usize).wrapping_sub(line.as_ptr() as usize);
    let head = line.get(..at).unwrap_or(line);
    trim(head.trim_end_matches([' ', '-', '–', '—']))
}

/// What a line the plain grammar does not read may be, decorated.
pub(super) enum Decorated<'a> {
    Field(FieldLine<'a>, Label),
    Heading(SectionKind),
    /// A title naming a section with text after it (`**Problem**: x`):
    /// the section and the text.
    Lead(SectionKind, &'a str),
    Neither,
}

/// A decorated field with a known label (`**Bead**: x`, `1. Step: y`,
/// `📊 Context usage: 45%`) or an emphasised title naming a section
/// (`**Problem**`). Lines that cannot start a decoration cost one test.
#[inline]
pub(super) fn decorated_line(text: &str) -> Decorated<'_> {
    match text.as_bytes().first() {
        Some(&b) if crate::decor::may_decorate(b) => decorated_line_rest(text),
        _ => Decorated::Neither,
    }
}

#[inline]
fn decorated_line_rest(text: &str) -> Decorated<'_> {
    if let Some(f) = crate::decor::decorated_field(text) {
        if let Some(label) = Label::lookup(f.label) {
            return Decorated::Field(f, label);
        }
        if !f.value.is_empty() {
            if let Some(kind) = SectionKind::from_decorated_title(f.label) {
                return Decorated::Lead(kind, f.value);
            }
        }
    }
    match crate::decor::emphasised_title(text).and_then(SectionKind::from_decorated_title) {
        Some(kind) => Decorated::Heading(kind),
        None => Decorated::Neither,
    }
}

/// What [`marked_field_line`] read.
pub(super) enum Marked<'a> {
    /// A field as the field grammar reads it, and its label if known.
    Field(FieldLine<'a>, Option<Label>),
    /// A bold label with its colon after the emphasis, in which the
    /// grammar finds no field, as the decorated rule reads it.
    Bold(FieldLine<'a>),
    Neither,
}

/// The field of a body line that opens with no letter (a bullet,
/// emphasis, an indent), and its label if known. Out of line: inlined in
/// the body index, the bulleted spelling's test cost the plain message's
/// letter lines ~20 instructions a message in the index's code layout.
/// A bold label (`**Bead**: ol-7`, `- **Commit:** abc`; 71 lines of the
/// agents corpus) is read by the decorated rule's one pass at once
/// (`decor::bold_label_read`): with its colon inside the emphasis as the
/// field grammar reads it, with its colon after it (where the grammar
/// finds nothing: its label ends at the `*`) as the decorated rule
/// reads it, which, asked after the grammar, read the line again from
/// its first byte.
#[inline(never)]
pub(super) fn marked_field_line(text: &str, plain_end: bool) -> Marked<'_> {
    // A number (`1. Bead: x`) or an emoji (`📊 Context usage: 38%`) first:
    // no prelude the field grammar reads (blanks, a bullet, `**`) opens
    // with one, nor does a label (a letter; an emoji is none, see
    // `grammar::may_open_label`), a bullet's spelling or a bold label. The
    // decorated rule reads the line; the grammar's reading of it found
    // nothing (~100 instructions a line, the glyph decoded twice).
    match text.as_bytes().first() {
        Some(b'0'..=b'9') => return Marked::Neither,
        Some(b) if !b.is_ascii() && crate::glyph::opens_with_emoji(text) => return Marked::Neither,
        _ => {}
    }
    if let Some((f, label)) = Label::spelled_after_bullet(text, plain_end) {
        return Marked::Field(f, label);
    }
    if let Some((f, label)) = Label::spelled_in_bold(text, plain_end) {
        return Marked::Field(f, Some(label));
    }
    match crate::decor::bold_label_read(text) {
        Some((f, true)) => return Marked::Field(f, Label::lookup(f.label)),
        Some((f, false)) => return Marked::Bold(f),
        None => {}
    }
    match field_line(text) {
        Some(f) => Marked::Field(f, Label::lookup(f.label)),
        None => Marked::Neither,
    }
}

/// [`decorated_line`] of a line whose decorated field [`marked_field_line`]
/// read (the decorated rule's first reading of it): the same answer,
/// without reading it again when its label is known.
#[inline]
pub(super) fn bold_field<'a>(f: FieldLine<'a>, text: &'a str) -> Decorated<'a> {
    match Label::lookup(f.label) {
        Some(label) => Decorated::Field(f, label),
        None => decorated_line(text),
    }
}

/// [`crate::grammar::label_part`] of a decorated label line (see
/// `decor::decorated_field`), whose indent is spaces and whose value
/// follows its label's colon or emphasis after blanks only: trimmed on
/// bytes (the general trim decoded an emoji label's glyph).
#[inline]
pub(super) fn decorated_label_part<'a>(line: &'a str, value: &str) -> &'a str {
    let end = (value.as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
    let label = line.get(..end).unwrap_or(line);
    crate::grammar::trim_end_blanks(crate::grammar::trim_start_blanks(label))
}
