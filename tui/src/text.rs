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

/// Truncates, then pads with spaces to exactly `cols` columns.
pub(crate) fn fit(s: &str, cols: usize) -> String {
    let mut out = truncate(s, cols);
    let w = width(&out);
    out.extend(std::iter::repeat_n(' ', cols.saturating_sub(w)));
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
    fn truncate_never_exceeds() {
        for max in 0..8 {
            assert!(width(&truncate("ab世界cd🚀", max)) <= max);
        }
    }
}
