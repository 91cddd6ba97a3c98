//! Whitespace trims every stage uses, with a shortcut for the common case:
//! text that starts (and ends) with a visible ASCII byte is left as it is
//! without decoding a `char` at each end. Below the line splitter and the
//! field grammar, which both use them.

/// Whether `b` starts or ends a string that `str::trim` leaves alone: an
/// ASCII byte that is not whitespace (`char::is_whitespace`, which unlike
/// `u8::is_ascii_whitespace` includes the vertical tab).
#[inline(always)]
fn is_solid(b: u8) -> bool {
    // A visible ASCII byte (nearly every end of every text trimmed) in
    // one compare; the controls that are no whitespace after it.
    (b'!'..=b'~').contains(&b) || (b.is_ascii() && !(b == b' ' || (b'\t'..=b'\r').contains(&b)))
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
#[inline]
pub(crate) fn trim(s: &str) -> &str {
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (Some(&first), Some(&last)) if is_solid(first) => match is_solid(last) {
            true => s,
            // Only the end to look at (`PASS ✅`, a value with a glyph).
            false => s.trim_end(),
        },
        (Some(_), Some(&last)) if is_solid(last) => s.trim_start(),
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

#[cfg(test)]
mod tests {
    use super::{trim, trim_start};

    proptest::proptest! {
        #[test]
        fn trim_is_str_trim(s in "[ \t\u{a0}\u{3000}\u{b}\r\n]{0,3}(a|é|,| |\t|\u{a0}){0,4}[ \t\u{a0}\u{2003}\r]{0,3}") {
            proptest::prop_assert_eq!(trim(&s), s.trim());
            proptest::prop_assert_eq!(trim_start(&s), s.trim_start());
        }
    }
}
