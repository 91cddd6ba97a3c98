//! Fields written several to a line or a table: a bold row of fields
//! (`**Bead:** ol-7 | **Step:** 3`) and a markdown table of labels and
//! values, each read as one field a part or a row. Both are rare in the
//! agents' mail and cold here: a plain message never reaches this code.

use smallvec::SmallVec;

use super::{read_through, Body, Label};
use crate::diag::Diags;
use crate::grammar::FieldLine;
use crate::lines::Line;
use crate::model::Note;
use crate::trim::trim;

impl<'l, 'a> Body<'l, 'a> {
    /// `**Bead:** ol-79 | **Step:** 3 of 5 | **Context usage:** ~60 %`: a
    /// line of fields whose first label is in bold, each after a ` | `, as
    /// language models write a status line. Read as a field each when
    /// every part after the first is a field (see below) with a value;
    /// any other value with a ` | ` (a part that is prose) is left as
    /// written, as is a plain line (its caller does not ask). True when
    /// the line was read here.
    #[cold]
    #[inline(never)]
    pub(super) fn row_of_fields(
        &mut self,
        diags: &mut Diags<'_, 'a>,
        line: &Line<'a>,
        i: usize,
        f: FieldLine<'a>,
        label: Label,
        duplicates: &mut usize,
    ) -> bool {
        let sep = ROW_SEPARATOR;
        let mut parts = row_parts(f.value);
        let first = parts.next().unwrap_or_default();
        // Every part a field: a known label, or an emphasised one
        // (`**Progress:** 60 %`, none of this message's: left out, as its
        // own line would be). A part `see: the log` is prose.
        let mut rest: SmallVec<[(FieldLine<'a>, Option<Label>); 4]> = SmallVec::new();
        for part in parts {
            let part = trim(part);
            let emphasised = matches!(part.as_bytes().first(), Some(b'*' | b'_'));
            match crate::grammar::field_line(part).or_else(|| crate::decor::decorated_field(part)) {
                Some(g) if !trim(g.value).is_empty() => match Label::lookup(g.label) {
                    None if !emphasised => return false,
                    known => rest.push((g, known)),
                },
                _ => return false,
            }
        }
        // No ` | ` at all (`a|b`), or nothing before the first.
        if rest.is_empty() || trim(first).is_empty() {
            return false;
        }
        let first = FieldLine {
            label: f.label,
            value: first,
        };
        self.push_field(diags, line, i, first, label, duplicates);
        for (g, l) in rest {
            if let Some(l) = l {
                self.push_field(diags, line, i, g, l, duplicates);
            }
        }
        read_through(
            diags,
            line,
            Note::join(&[
                "`",
                trim(line.text),
                "` reads as one field per part between `",
                trim(sep),
                "`",
            ]),
        );
        true
    }

    /// A line that opens with `|`, outside fenced code: a row of a
    /// markdown table. A table of two columns whose first column is
    /// labels (`| Bead | ol-7 |`, `| **Status:** | ok |`; a header row
    /// such as `| Field | Value |` and the `|---|---|` row allowed) is
    /// read as fields, a row a field: the table is taken when every row
    /// has two cells and at least half of the rows that are not the
    /// `---` row name a known label. Any other table (a table of files
    /// with a status column) is left to the other rules, as before.
    /// The table this line is in is read at its first row. True when the line was read
    /// here (a row of a table of fields).
    #[cold]
    #[inline(never)]
    pub(super) fn table_line(
        &mut self,
        diags: &mut Diags<'_, 'a>,
        i: usize,
        duplicates: &mut usize,
    ) -> bool {
        let lines = self.lines;
        let table = self.table.get_or_insert_with(Default::default);
        if i >= table.end {
            let end = lines[i..]
                .iter()
                .position(|l| {
                    let b = l.text.as_bytes();
                    b.iter().find(|&&c| !is_row_blank(c)) != Some(&b'|')
                })
                .map_or(lines.len(), |n| i + n);
            table.read(&lines[i..end], i);
        }
        let noted = table.noted;
        let Some(&row) = i.checked_sub(table.start).and_then(|k| table.rows.get(k)) else {
            return false;
        };
        let Some((label_cell, name, value, label)) = row else {
            // The header, the `---` row or a label the protocol does not
            // name.
            return true;
        };
        // One note a table, at its first field (notes are most of what
        // a decorated message costs beyond the plain one).
        let note = (!noted).then(|| {
            Note::join(&[
                "a table of labels and values reads as fields, a row a field (`",
                label_cell,
                "` as `",
                name,
                ":`)",
            ])
        });
        // The note is made at the table's first field read (a duplicate
        // is not read), so that strict mode refuses every table read.
        let line = &self.lines[i];
        let read = self.push_field(
            diags,
            line,
            i,
            FieldLine { label: name, value },
            label,
            duplicates,
        );
        if let (true, Some(note)) = (read, note) {
            read_through(diags, line, note);
        }
        if let Some(table) = &mut self.table {
            table.noted |= read;
        }
        true
    }
}

/// Whether `c` is a blank a table row's ends may hold (a CRLF line's
/// `\r` too).
pub(super) fn is_row_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r')
}

/// The two cells of a table row (`| a | b |`, `| a | b`), trimmed;
/// `None` for any other number of cells. On bytes: the row's cost is a
/// few searches, not a `str` pattern's.
#[inline]
fn table_cells(text: &str) -> Option<(&str, &str)> {
    let b = text.as_bytes();
    let start = b.iter().position(|&c| !is_row_blank(c))?;
    if b[start] != b'|' {
        return None;
    }
    let a0 = start + 1;
    let a1 = a0 + crate::find::byte(&b[a0..], b'|')?;
    let b0 = a1 + 1;
    let (b1, rest) = match crate::find::byte(&b[b0..], b'|') {
        Some(k) => (b0 + k, b0 + k + 1),
        None => (b.len(), b.len()),
    };
    if !b[rest..].iter().all(|&c| is_row_blank(c)) {
        return None;
    }
    // Every cut is at an ASCII `|` or the end: on character boundaries.
    Some((cell(text.get(a0..a1)?), cell(text.get(b0..b1)?)))
}

/// A cell's text without blanks at its ends: ASCII ones on bytes (the
/// usual `| Bead | ol-7 |`), then [`trim`]'s test of its ends, which a
/// cell that ends in a letter passes at once (`str::trim` was most of a
/// row's cost).
#[inline]
fn cell(c: &str) -> &str {
    let b = c.as_bytes();
    let s = b.iter().take_while(|&&x| is_row_blank(x)).count();
    let e = b.len()
        - b[s..]
            .iter()
            .rev()
            .take_while(|&&x| is_row_blank(x))
            .count();
    // Cut after and before ASCII blanks: on character boundaries.
    let t = c.get(s..e).unwrap_or(c);
    match (t.as_bytes().first(), t.as_bytes().last()) {
        // Both ends visible ASCII: nothing for `trim` to take.
        (Some(b'!'..=b'~'), Some(b'!'..=b'~')) => t,
        _ => trim(t),
    }
}

/// The `|---|:---:|` row under a table's header.
#[inline]
fn is_table_rule(text: &str) -> bool {
    let mut dash = false;
    for &c in text.as_bytes() {
        match c {
            b'-' => dash = true,
            b'|' | b':' | b' ' | b'\t' | b'\r' => {}
            _ => return false,
        }
    }
    dash
}

/// A label cell's label: its emphasis and a colon inside or outside it
/// as `decor::emphasised_title` takes them from a title (`**Status:**`,
/// `*Bead*:`), else a code span's marks (`` `Commit` ``, as agents write
/// the names of things) and a colon. A mark on one side only is no
/// emphasis and is kept (`**Status` names no label): the ends' marks were
/// each stripped on their own here before.
#[inline]
pub(super) fn table_label(cell: &str) -> Option<&str> {
    let label = match crate::decor::emphasised_title(cell) {
        Some(title) => title,
        None => {
            let t = cell.strip_suffix(':').unwrap_or(cell);
            let t = t
                .strip_prefix('`')
                .and_then(|t| t.strip_suffix('`'))
                .unwrap_or(t);
            trim(t.strip_suffix(':').unwrap_or(t))
        }
    };
    (!label.is_empty()).then_some(label)
}

/// A markdown table a body's `|` lines are in (see `Body::table_line`):
/// where it starts and ends, each row's field when it is a table of
/// fields (none when it is not), and whether its note was made. Each row
/// is read once, when the table's first row is met.
#[derive(Default)]
pub(super) struct Table<'a> {
    start: usize,
    end: usize,
    /// A row's label cell as written, label, value and `Label`; `None`
    /// for the header, the `---` row and a label the protocol does not
    /// name. Empty when the table is not fields.
    rows: Vec<Option<(&'a str, &'a str, &'a str, Label)>>,
    noted: bool,
}

impl<'a> Table<'a> {
    /// Reads `rows`, the lines `start..` of a body: a table of fields
    /// when every row has two cells and at least half of the rows that
    /// are neither the `---` row nor the header above it name a known
    /// label.
    #[inline]
    fn read(&mut self, rows: &[Line<'a>], start: usize) {
        self.start = start;
        self.end = start + rows.len();
        self.noted = false;
        self.rows.clear();
        let (mut data, mut labels) = (0usize, 0usize);
        // A row is the `---` row or the header above it (which names the
        // columns, `| Field | Value |`, and is never a field) when it or
        // the next row is the rule: whether each row is the rule is asked
        // once and carried to the next row (asked of both rows at each,
        // it was asked of each row three times).
        let mut rule = rows.first().is_some_and(|r| is_table_rule(r.text));
        for (k, row) in rows.iter().enumerate() {
            let next_rule = rows.get(k + 1).is_some_and(|r| is_table_rule(r.text));
            let this_rule = std::mem::replace(&mut rule, next_rule);
            if this_rule || next_rule {
                self.rows.push(None);
                continue;
            }
            let Some((cell, value)) = table_cells(row.text) else {
                self.rows.clear();
                return;
            };
            data += 1;
            let field = table_label(cell).and_then(|n| Some((cell, n, value, Label::lookup(n)?)));
            labels += usize::from(field.is_some());
            self.rows.push(field);
        }
        if labels == 0 || 2 * labels < data {
            self.rows.clear();
        }
    }
}

/// What separates the fields of a bold row ([`Body::row_of_fields`]);
/// `·` and `•` too cost the test of every bold field's value ~190
/// instructions a corpus message (`docs/parser.md`).
pub(super) const ROW_SEPARATOR: &str = " | ";

/// `value` split on [`ROW_SEPARATOR`] as `str::split` splits it (each
/// separator the leftmost one not overlapping the last): found from its
/// `|` ([`crate::find::byte`]), where `split` with a `&str` pattern set
/// up a two-way searcher for a value of a few dozen bytes (~900
/// instructions a row, 1,800 a round of the agents corpus).
pub(super) fn row_parts(value: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(value);
    std::iter::from_fn(move || {
        let text = rest?;
        let b = text.as_bytes();
        let mut from = 0;
        while let Some(at) = b.get(from..).and_then(|r| crate::find::byte(r, b'|')) {
            let bar = from + at;
            if bar > 0 && b[bar - 1] == b' ' && b.get(bar + 1) == Some(&b' ') {
                // The separator is ASCII: both cuts are on character
                // boundaries.
                rest = text.get(bar + 2..);
                return text.get(..bar - 1);
            }
            from = bar + 1;
        }
        rest = None;
        Some(text)
    })
}

/// Whether a field's value may hold a row of fields.
#[inline]
pub(super) fn has_row_separator(value: &str) -> bool {
    crate::find::has(value.as_bytes(), b'|')
}
