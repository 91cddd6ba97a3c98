//! The glyphs agents decorate with, told apart from letters by range:
//! below the grammar and the decoration rules, which both ask.

/// The blocks agents' glyphs come from (emoji and pictographs, symbols
/// and dingbats, the variation selectors and the joiner inside emoji),
/// none of whose characters is a letter, digit or space: decided by range
/// where the Unicode tables were looked up for each (a test checks every
/// one of them).
#[inline]
pub(crate) fn is_emoji(c: char) -> bool {
    matches!(
        c,
        '\u{1F300}'..='\u{1FAFF}'
            | '\u{2600}'..='\u{2775}'
            | '\u{2794}'..='\u{27BF}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{200D}'
    )
}

/// Whether `s` opens with a glyph [`is_emoji`] names: its first byte
/// tested before its first `char` is decoded.
#[inline]
pub(crate) fn opens_with_emoji(s: &str) -> bool {
    matches!(s.as_bytes().first(), Some(b) if !b.is_ascii())
        && s.chars().next().is_some_and(is_emoji)
}

#[cfg(test)]
mod tests {
    use super::is_emoji;

    #[test]
    fn emoji_ranges_hold_no_letter_digit_or_space() {
        for c in ('\u{80}'..=char::MAX).filter(|&c| is_emoji(c)) {
            assert!(!c.is_alphanumeric() && !c.is_whitespace(), "{c:?}");
        }
    }
}
