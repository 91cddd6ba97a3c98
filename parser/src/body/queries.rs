//! What the extractors ask of an indexed body (`extract.rs`): a section
//! by kind, a label's first field (in its section, or anywhere with a
//! note), a section's text or list, a field's list of files. Each is a
//! lookup in the index [`Body::read`] made, not a rescan of the text.

use std::borrow::Cow;

use super::{Body, Hit, Label, Section, SectionKind};
use crate::diag::{Code, Diags};
use crate::grammar::list_item;
use crate::lines::{join_lines, physical, Line};
use crate::model::Note;
use crate::values::inline_list;

impl<'l, 'a> Body<'l, 'a> {
    /// The number of the first section of `kind`.
    pub(crate) fn section(&self, kind: SectionKind) -> Option<usize> {
        if kind == SectionKind::Preamble {
            return Some(0);
        }
        if let Some(direct) = self.direct {
            // Numbered after the preamble, as a section read from lines.
            return direct
                .sections
                .iter()
                .position(|s| s.0 == kind)
                .map(|i| i + 1);
        }
        self.headed
            .iter()
            .position(|s| s.kind == kind)
            .map(|i| i + 1)
    }

    /// Section number `n` (0 is the preamble).
    fn section_at(&self, n: usize) -> Option<&Section> {
        match n.checked_sub(1) {
            None => Some(&self.preamble),
            Some(i) => self.headed.get(i),
        }
    }

    pub(crate) fn has_section(&self, kind: SectionKind) -> bool {
        self.section(kind).is_some()
    }

    /// A label in the preamble, else anywhere in the body.
    pub(crate) fn top(&self, label: Label) -> Option<Hit<'a>> {
        // Sections are numbered in line order and hits kept in it: a
        // label's first hit is in the preamble whenever one is.
        match self.first.get(label as usize) {
            Some(0) if self.hits.len() <= usize::from(u8::MAX) => None,
            Some(&n) if n > 0 => self.hits.get(usize::from(n) - 1).copied(),
            _ => self.hits.iter().find(|h| h.label == label).copied(),
        }
    }

    /// A label in the first section of `kind`; outside it, the first one
    /// anywhere, reported as an info because the writer put it elsewhere.
    pub(crate) fn within(
        &self,
        kind: SectionKind,
        label: Label,
        diags: &mut Diags<'_, 'a>,
    ) -> Option<Hit<'a>> {
        // The label's first hit first (a lookup): with none, there is none
        // in the section either; in the section, it is the section's first.
        // The hits are searched only for a label first found elsewhere
        // (a DONE asked five labels this way, ~100 instructions each).
        let h = self.top(label)?;
        if let Some(s) = self.section(kind) {
            if h.section == s {
                return Some(h);
            }
            if let Some(h) = self.in_section(s, label) {
                return Some(h);
            }
        }
        if self.sectionless {
            return Some(h);
        }
        let line = &self.lines[h.line];
        diags.at(
            Code::FieldOutsideSection,
            line,
            crate::trim::trim_start(line.text),
            Note::join(&["field found outside its `## ", kind.name(), "` section"]),
        );
        Some(h)
    }

    pub(super) fn in_section(&self, section: usize, label: Label) -> Option<Hit<'a>> {
        self.hits
            .iter()
            .find(|h| h.section == section && h.label == label)
            .copied()
    }

    /// The text of a section, blank lines at either end trimmed.
    pub(crate) fn section_text(&self, kind: SectionKind) -> Option<Cow<'a, str>> {
        if let Some(direct) = self.direct {
            let (_, text) = direct.sections.iter().find(|s| s.0 == kind)?;
            return text.clone();
        }
        let s = self.section_at(self.section(kind)?)?;
        if s.lead != 0 {
            return self.lead_text(s);
        }
        let content = trim_blank(&self.lines[s.start..s.end]);
        if content.is_empty() {
            return None;
        }
        Some(join_lines(self.doc, content))
    }

    /// The prose a section opens with, before its first field (`##
    /// Progress` then `The parser is done.` then `- Commit: x`), and the
    /// line it starts on; for a section opened by a title with its text
    /// (`**Progress:** parser done`), that text and the lines after it
    /// ([`Body::lead_text`]) and `None` for the line: the title's reading
    /// was noted where it was read.
    #[cold]
    #[inline(never)]
    pub(crate) fn section_prose(
        &self,
        kind: SectionKind,
    ) -> Option<(Cow<'a, str>, Option<&Line<'a>>)> {
        if self.direct.is_some() {
            return None;
        }
        let s = self.section_at(self.section(kind)?)?;
        if s.lead != 0 {
            return Some((self.lead_text(s)?, None));
        }
        let end = self.first_hit_in(s).unwrap_or(s.end);
        let content = trim_blank(&self.lines[s.start..end]);
        let first = content.first()?;
        Some((join_lines(self.doc, content), Some(first)))
    }

    /// The line of a section's first field, if it has one.
    fn first_hit_in(&self, s: &Section) -> Option<usize> {
        self.hits
            .iter()
            .map(|h| h.line)
            .find(|&l| l >= s.start && l < s.end)
    }

    /// [`Body::section_text`] of a section opened by a title with its text
    /// on the same line (`**Problem:** the build fails`, see
    /// `Section::lead`): that text and the lines after it, up to the first
    /// field read in the section (`**Question:** x` then `**Tests:** PASS`
    /// is a question of one line), blank lines at the end left out.
    #[cold]
    #[inline(never)]
    fn lead_text(&self, s: &Section) -> Option<Cow<'a, str>> {
        let title = self.lines.get(s.start.checked_sub(1)?)?;
        let first = title.tail(usize::from(s.lead))?;
        let end = self.first_hit_in(s).unwrap_or(s.end);
        let rest = self.lines.get(s.start..end)?;
        let keep = rest
            .iter()
            .rposition(|l| !l.is_blank())
            .map_or(0, |e| e + 1);
        let mut lines = Vec::with_capacity(keep + 1);
        lines.push(first);
        lines.extend_from_slice(&rest[..keep]);
        Some(join_lines(self.doc, &lines))
    }

    /// The list a section holds: its bullet or numbered items, else the
    /// comma-separated or one-per-line entries of its text.
    pub(crate) fn section_list(
        &self,
        kind: SectionKind,
        diags: &mut Diags<'_, 'a>,
    ) -> Option<Vec<Cow<'a, str>>> {
        if self.direct.is_some() {
            // A fenced JSON body's lists are fields (`files_touched` is
            // the label `Files touched`), never a section's.
            return None;
        }
        let s = self.section_at(self.section(kind)?)?;
        let lines = &self.lines[s.start..s.end];
        let items = file_items(
            physical(self.doc, lines).filter_map(|l| Some((l, list_item(l.text)?))),
            diags,
        );
        if !items.is_empty() {
            return Some(items);
        }
        let mut items = Vec::new();
        let mut noted = false;
        for l in physical(self.doc, lines).filter(|l| !l.is_blank()) {
            let mut linked = None;
            items.append(&mut inline_list(l.text, &mut linked));
            if let (Some((text, file)), false) = (linked, noted) {
                noted = true;
                note_file(diags, &l, text, file);
            }
        }
        (!items.is_empty()).then_some(items)
    }

    /// A list-valued field: `Files: a, b`, or `Files:` followed by bullets.
    /// A field with no items is absent (`None`), like an empty scalar.
    pub(crate) fn field_list(
        &self,
        hit: Hit<'a>,
        diags: &mut Diags<'_, 'a>,
    ) -> Option<Vec<Cow<'a, str>>> {
        let items = self.field_items(hit, diags);
        (!items.is_empty()).then_some(items)
    }

    fn field_items(&self, hit: Hit<'a>, diags: &mut Diags<'_, 'a>) -> Vec<Cow<'a, str>> {
        if let Some(direct) = self.direct {
            return direct
                .lists
                .iter()
                .find(|l| l.0 == hit.label)
                .map(|(_, items)| items.iter().map(|i| Cow::Borrowed(*i)).collect())
                .unwrap_or_default();
        }
        let line = &self.lines[hit.line];
        if !hit.value.is_empty() {
            // `` `a.rs` `b.rs` ``: backtick spans with no commas between.
            if let Some(spans) = crate::decor::backtick_spans(hit.value) {
                diags.normalised(
                    line,
                    hit.value,
                    "files in backticks separated by spaces read as a list",
                );
                return spans.into_iter().map(Cow::Borrowed).collect();
            }
            let mut linked = None;
            let mut items = inline_list(hit.value, &mut linked);
            if let [Cow::Borrowed(only)] = items.as_slice() {
                if crate::values::is_placeholder(only) || crate::find::has(only.as_bytes(), b';') {
                    if let Some(read) = one_item(only, line, &mut linked, diags) {
                        items = read;
                    }
                }
            }
            if let Some((text, file)) = linked {
                note_file(diags, line, text, file);
            }
            return items;
        }
        let field_indent = indent_of(line.text);
        let following = || physical(self.doc, &self.lines[hit.line + 1..]);
        // Each line's item read once. (A list item is never a heading: its
        // first byte after the blanks is a marker, not `#`; the heading
        // test this loop made of each item cost ~170 instructions.)
        let items = following().map_while(|l| {
            let item = list_item(l.text)?;
            (indent_of(l.text) > field_indent || !crate::find::has(l.text.as_bytes(), b':'))
                .then_some((l, item))
        });
        let items = file_items(items, diags);
        if !items.is_empty() {
            return items;
        }
        // One file per line, with no list marker.
        let bare: Vec<(Line<'a>, &'a str)> = following()
            .map_while(|l| Some((l, crate::decor::bare_file_line(l.text)?)))
            .collect();
        if let Some((first, _)) = bare.first() {
            diags.normalised(
                first,
                first.text.trim_start(),
                "files one per line, with no list marker, read as a list",
            );
        }
        bare.into_iter().map(|(_, f)| Cow::Borrowed(f)).collect()
    }

    pub(crate) fn line(&self, hit: &Hit<'a>) -> &Line<'a> {
        &self.lines[hit.line]
    }
}

/// The files a list's items name: each item's text, backticks trimmed; an
/// item with a note (`` `a.rs` — new ``, `b.rs (new)`) is its file, with
/// one normalisation reported for the list.
#[inline]
fn file_items<'a>(
    items: impl Iterator<Item = (Line<'a>, &'a str)>,
    diags: &mut Diags<'_, 'a>,
) -> Vec<Cow<'a, str>> {
    let mut noted = false;
    let mut out = Vec::new();
    for (line, text) in items {
        if text.is_empty() {
            continue;
        }
        let read = crate::decor::file_item(text);
        let file = read.unwrap_or_else(|| text.trim_matches('`'));
        // A file written as a markdown link (`[src/a.rs](src/a.rs)`) is
        // its text.
        let linked = match file.as_bytes().first() {
            Some(b'[') => crate::decor::link_text(file),
            _ => None,
        };
        let file = linked.unwrap_or(file);
        if (read.is_some() || linked.is_some()) && !noted {
            noted = true;
            note_file(diags, &line, text, file);
        }
        out.push(Cow::Borrowed(file));
    }
    out
}

/// The one `info` a list gets when an item of it was read through a
/// decoration: the item as written and the file it reads as.
fn note_file<'a>(diags: &mut Diags<'_, 'a>, line: &Line<'a>, text: &'a str, file: &'a str) {
    let (kept, cut) = crate::decor::shorten(text);
    diags.normalised(
        line,
        text,
        Note::join(&[
            "list item `",
            kept,
            crate::decor::cut_then!(cut, "` reads as the file `"),
            file,
            "`",
        ]),
    );
}

/// An inline list read as one item, read again: a placeholder (`Files:
/// N/A`, `none`) is no files; items separated by `;` where there is no
/// comma (`src/a.rs; src/b.rs`), two at least and none empty, are one
/// each. Either noted. `None`: the one item it was. (Asked of an item that
/// is a placeholder or holds a `;` only.)
#[cold]
#[inline(never)]
fn one_item<'a>(
    only: &'a str,
    line: &Line<'a>,
    linked: &mut crate::values::Linked<'a>,
    diags: &mut Diags<'_, 'a>,
) -> Option<Vec<Cow<'a, str>>> {
    if crate::values::is_placeholder(only) {
        let note = Note::join(&["`", only, "` reads as no files"]);
        diags.at(Code::NoValue, line, only, note);
        return Some(Vec::new());
    }
    let mut parts_linked = None;
    let parts = crate::values::list_split_on(only, b';', &mut parts_linked);
    if parts.len() < 2 || parts.len() != only.split(';').count() {
        return None;
    }
    diags.normalised(line, only, "files separated by `;` read as a list");
    *linked = linked.or(parts_linked);
    Some(parts)
}

/// The length of `s`'s leading whitespace. Spaces and tabs counted on
/// bytes; `trim_start`'s `char` decoding and lookup only from a byte that
/// may open other whitespace (~60 instructions a list item saved).
fn indent_of(s: &str) -> usize {
    let b = s.as_bytes();
    let blanks = b.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
    match b.get(blanks) {
        Some(c) if c.is_ascii_graphic() => blanks,
        None => blanks,
        _ => s.len() - s.trim_start().len(),
    }
}

#[inline(always)]
fn trim_blank<'l, 'a>(lines: &'l [Line<'a>]) -> &'l [Line<'a>] {
    let start = lines
        .iter()
        .position(|l| !l.is_blank())
        .unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !l.is_blank())
        .map_or(start, |e| e + 1);
    &lines[start..end]
}

/// The whole body text with blank lines at either end trimmed. (Always
/// inlined: its three callers' calls were ~25 instructions a message.)
#[inline(always)]
pub(crate) fn whole_text<'a>(doc: &'a str, lines: &[Line<'a>]) -> Cow<'a, str> {
    // A body whose first and last lines hold text (nearly every one) has
    // nothing to trim: decided without the call.
    let ends_hold_text = match (lines.first(), lines.last()) {
        (Some(first), Some(last)) => !first.is_blank() && !last.is_blank(),
        _ => false,
    };
    join_lines(
        doc,
        if ends_hold_text {
            lines
        } else {
            trim_blank(lines)
        },
    )
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        /// The indent is what `trim_start` leaves out, on any leading
        /// whitespace (tabs, no-break and other Unicode spaces).
        #[test]
        fn indents_are_what_trim_start_leaves(s in "[ \t\u{a0}\u{2003}\u{85}\u{b}]{0,4}(-|a|é|✅|\t| )?[a ]{0,3}") {
            proptest::prop_assert_eq!(super::indent_of(&s), s.len() - s.trim_start().len());
        }
    }
}
