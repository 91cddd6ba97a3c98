//! Display-width helpers: truncating and padding by terminal columns.
//!
//! Byte or char counts are wrong for CJK (two columns), emoji (two) and
//! combining marks (zero), so column layout in list rows always goes
//! through these. Input is assumed already sanitised.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Display columns of `s`.
pub(crate) fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Cuts `s` to at most `max` columns, ending in `…` when cut. Never splits
/// a wide character across the limit.
pub fn truncate(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > max - 1 {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

/// Cuts from the front, keeping the end (`…/demo/mail`): for paths,
/// whose tail says the most.
pub(crate) fn truncate_left(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 0;
    for c in s.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > max - 1 {
            break;
        }
        used += w;
        kept.push(c);
    }
    kept.push('…');
    kept.into_iter().rev().collect()
}

/// Cuts `s` to at most `max` columns by dropping its middle (`7d3c…9f21`):
/// for ids, which often share a prefix (a date, a UUID's first group) and
/// differ at the end. Two thirds of the room go to the tail.
pub fn shorten_middle(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max < 5 {
        return truncate(s, max);
    }
    let room = max - 1;
    let head_w = room / 3;
    let tail_w = room - head_w;
    let mut head = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > head_w {
            break;
        }
        used += w;
        head.push(c);
    }
    let mut tail: Vec<char> = Vec::new();
    used = 0;
    for c in s.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > tail_w {
            break;
        }
        used += w;
        tail.push(c);
    }
    head.push('…');
    head.extend(tail.into_iter().rev());
    head
}

/// [`shorten_middle`], then padded to exactly `cols` columns.
pub(crate) fn fit_middle(s: &str, cols: usize) -> String {
    let mut out = shorten_middle(s, cols);
    let w = width(&out);
    out.extend(std::iter::repeat_n(' ', cols.saturating_sub(w)));
    out
}

/// The byte length of the longest prefix of `s` at most `cols` wide (at
/// least one char, so a loop over it always advances).
pub(crate) fn prefix_within(s: &str, cols: usize) -> usize {
    let mut used = 0;
    for (i, c) in s.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > cols && i > 0 {
            return i;
        }
        used += w;
    }
    s.len()
}

/// Greedy word wrap to rows of at most `cols` columns; a word longer than
/// a row is cut. Spaces at the breaks are dropped.
pub(crate) fn wrap_words(s: &str, cols: usize) -> Vec<String> {
    wrap_hanging(s.split(' '), cols, cols)
}

/// [`wrap_words`] over `words` with a first row of `first` columns and the
/// rows after it `rest` (a hanging indent: the help's descriptions beside
/// and then under their keys).
pub(crate) fn wrap_hanging<'a>(
    words: impl Iterator<Item = &'a str>,
    first: usize,
    rest: usize,
) -> Vec<String> {
    let (first, rest) = (first.max(1), rest.max(1));
    let mut rows = vec![String::new()];
    for word in words {
        let mut word = word;
        loop {
            let cols = if rows.len() == 1 { first } else { rest };
            let row = rows.last_mut().expect("one row");
            let sep = usize::from(!row.is_empty());
            if width(row) + sep + width(word) <= cols {
                if sep == 1 {
                    row.push(' ');
                }
                row.push_str(word);
                break;
            }
            if !row.is_empty() {
                rows.push(String::new());
                continue;
            }
            let cut = prefix_within(word, cols);
            row.push_str(&word[..cut]);
            word = &word[cut..];
            if word.is_empty() {
                break;
            }
            rows.push(String::new());
        }
    }
    rows
}

/// Text being typed (an editor's), cut into rows of at most `cols`
/// columns, each with the number of the typed line it belongs to, and
/// where `cursor` (a byte offset) falls: its row and column. A row ends
/// where the next character would not fit (never inside a wide one); a
/// cursor at the very end of a full row is put at the start of the row
/// after it, where the next character will go. Wrapping is only how the
/// text is shown: it stays as typed.
pub(crate) fn wrap_typed(
    text: &str,
    cursor: usize,
    cols: usize,
) -> (Vec<(usize, &str)>, usize, usize) {
    let cols = cols.max(1);
    let mut rows = Vec::new();
    let mut at = None;
    let mut start = 0;
    for (n, line) in text.split('\n').enumerate() {
        let mut row_start = 0;
        let mut used = 0;
        for (i, c) in line.char_indices() {
            let w = c.width().unwrap_or(0);
            if used + w > cols && i > row_start {
                rows.push((n, &line[row_start..i]));
                row_start = i;
                used = 0;
            }
            if at.is_none() && start + i == cursor {
                at = Some((rows.len(), used));
            }
            used += w;
        }
        rows.push((n, &line[row_start..]));
        if at.is_none() && start + line.len() == cursor {
            at = Some(if used >= cols {
                (rows.len(), 0)
            } else {
                (rows.len() - 1, used)
            });
        }
        start += line.len() + 1;
    }
    let (row, col) = at.unwrap_or((rows.len() - 1, 0));
    (rows, row, col)
}

/// Truncates, then pads with spaces to exactly `cols` columns.
pub(crate) fn fit(s: &str, cols: usize) -> String {
    let mut out = truncate(s, cols);
    let w = width(&out);
    out.extend(std::iter::repeat_n(' ', cols.saturating_sub(w)));
    out
}

/// A table column `cols` wide: `s` cut to leave one blank before the
/// next column, so a value as wide as its column never runs into it. A
/// column left out (0 wide) is nothing.
pub(crate) fn cell(s: &str, cols: usize) -> String {
    gapped(cols, |w| fit(s, w))
}

/// [`cell`] for a name or an id: cut in the middle, keeping the end that
/// tells it from its neighbours (`orche…worker-01`, `7d3c…2d7c9b01`), as
/// the thread list cuts its ids.
pub(crate) fn id_cell(s: &str, cols: usize) -> String {
    gapped(cols, |w| fit_middle(s, w))
}

/// A column's text fitted to all but its last column, then the blank.
fn gapped(cols: usize, fit: impl FnOnce(usize) -> String) -> String {
    if cols == 0 {
        return String::new();
    }
    let mut out = fit(cols - 1);
    out.push(' ');
    out
}

/// Right-aligns within `cols` columns.
pub(crate) fn fit_right(s: &str, cols: usize) -> String {
    let t = truncate(s, cols);
    let pad = cols.saturating_sub(width(&t));
    format!("{}{}", " ".repeat(pad), t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_text_wraps_by_columns_and_the_cursor_follows() {
        let (rows, r, c) = wrap_typed("abcdef\n日本語x", 10, 4);
        assert_eq!(rows, vec![(0, "abcd"), (0, "ef"), (1, "日本"), (1, "語x")]);
        // Byte 10 is after 日 (7 + 3): row 2, column 2.
        assert_eq!((r, c), (2, 2));
        // At the end of a full row the cursor starts the next one.
        let (rows, r, c) = wrap_typed("abcd", 4, 4);
        assert_eq!(rows, vec![(0, "abcd")]);
        assert_eq!((r, c), (1, 0));
        // Between rows it is at the start of the second.
        assert_eq!(wrap_typed("abcdef", 4, 4).1, 1);
        assert_eq!(wrap_typed("", 0, 4), (vec![(0, "")], 0, 0));
        // A character wider than the row still advances.
        assert_eq!(wrap_typed("日日", 6, 1).0, vec![(0, "日"), (0, "日")]);
    }

    #[test]
    fn cjk_and_emoji_count_two_columns() {
        assert_eq!(width("世界"), 4);
        assert_eq!(fit("世界世界", 5), "世界…");
        assert_eq!(width(&fit("世界世界", 5)), 5);
        assert_eq!(width(&fit("🚀 go", 8)), 8);
    }

    #[test]
    fn combining_marks_take_no_column() {
        // "e" + combining acute
        assert_eq!(width("e\u{301}te\u{301}"), 3);
        assert_eq!(fit("e\u{301}", 2), "e\u{301} ");
    }

    #[test]
    fn truncate_left_keeps_the_tail() {
        assert_eq!(truncate_left("/home/dev/mail", 6), "…/mail");
        assert_eq!(truncate_left("short", 10), "short");
    }

    #[test]
    fn shorten_middle_keeps_both_ends() {
        let a = "7d3c9a10-0e4f-4c1b-9a55-3f1e2d7c9b01";
        let b = "7d3c9a10-0e4f-4c1b-9a55-3f1e2d7c4a77";
        assert_eq!(shorten_middle(a, 12), "7d3…2d7c9b01");
        assert_ne!(shorten_middle(a, 12), shorten_middle(b, 12));
        assert_eq!(shorten_middle("short", 12), "short");
        for max in 0..12 {
            assert!(
                width(&shorten_middle("ab世界cd🚀ef世界", max)) <= max,
                "{max}"
            );
        }
    }

    #[test]
    fn wrap_words_breaks_between_words() {
        assert_eq!(wrap_words("one two three", 7), ["one two", "three"]);
        assert_eq!(wrap_words("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert!(wrap_words("a 世界世界 b", 4).iter().all(|r| width(r) <= 4));
    }

    #[test]
    fn truncate_never_exceeds() {
        for max in 0..8 {
            assert!(width(&truncate("ab世界cd🚀", max)) <= max);
        }
    }
}
