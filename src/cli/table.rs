//! Rows of text lined up in columns by display width, for the commands
//! that print tables (`threads`, `pending`, `tasks`). Agent names, beads and
//! subjects are often not ASCII: a CJK character takes two terminal
//! columns and a combining mark none, so padding by `char` count (what
//! `format!("{:<20}")` does) skews every column after such a cell. Width
//! is what `unicode-width` says, as the TUI's `text::fit` measures it.
//!
//! Cells must already be safe for the terminal (`safe_text::clean_line`):
//! an escape sequence would have no honest width.

use unicode_width::UnicodeWidthStr;

/// The widest a table's free text (a thread's summary, a subject, a
/// task's title) is printed, in display columns: what an agent wrote as
/// one line may be a whole paragraph (40,000 columns were seen), and a
/// table row is for a glance; ids and names, which the user copies, are
/// never cut.
pub const GLANCE: usize = 80;

/// `text` cut to [`GLANCE`] columns, ending in `…` when cut (as the TUI
/// cuts its list rows).
pub fn glance(text: &str) -> String {
    amail_tui::text::truncate(text, GLANCE)
}

/// Which side of its column a cell sits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    /// Numbers, so their units line up (`  3 msg`, ` 12 msg`).
    Right,
}

/// Columns are separated by two spaces; the last column is not padded,
/// so no line ends in spaces.
pub struct Table {
    align: Vec<Align>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(align: &[Align]) -> Table {
        Table {
            align: align.to_vec(),
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The rows, each padded to its columns' widest cell.
    pub fn lines(&self) -> Vec<String> {
        let cols = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> = (0..cols)
            .map(|c| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(|s| s.width())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        self.rows
            .iter()
            .map(|row| {
                let mut line = String::new();
                for (c, cell) in row.iter().enumerate() {
                    if c > 0 {
                        line.push_str("  ");
                    }
                    let pad = widths[c].saturating_sub(cell.width());
                    let last = c + 1 == row.len();
                    match self.align.get(c).copied().unwrap_or(Align::Left) {
                        Align::Right => {
                            line.extend(std::iter::repeat_n(' ', pad));
                            line.push_str(cell);
                        }
                        Align::Left => {
                            line.push_str(cell);
                            if !last {
                                line.extend(std::iter::repeat_n(' ', pad));
                            }
                        }
                    }
                }
                line
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_characters_count_two_columns() {
        let mut t = Table::new(&[Align::Left, Align::Right, Align::Left]);
        t.push(vec!["構築".into(), "1 msg".into(), "a".into()]);
        t.push(vec!["abcde".into(), "12 msg".into(), "b".into()]);
        let lines = t.lines();
        assert_eq!(lines[0], "構築    1 msg  a");
        assert_eq!(lines[1], "abcde  12 msg  b");
    }

    #[test]
    fn the_last_column_is_not_padded() {
        let mut t = Table::new(&[Align::Left, Align::Left]);
        t.push(vec!["a".into(), "x".into()]);
        t.push(vec!["b".into(), "longer".into()]);
        assert_eq!(t.lines(), vec!["a  x", "b  longer"]);
    }
}
