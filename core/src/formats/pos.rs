//! Line and column lookup in text: JSON's (serde_json's `Value` keeps no
//! spans) and the config file's (toml gives byte spans).

/// 1-based (line, column in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let offset = offset.min(text.len());
    let mut cut = offset;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let before = &text[..cut];
    let line = before.matches('\n').count() as u32 + 1;
    let col = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count())
        .unwrap_or(0) as u32
        + 1;
    (line, col)
}

/// The line of each of a run of increasing byte offsets, counted on from
/// the last one: [`line_col`] of each item of a 20,000-message array
/// counted from the top every time (about two minutes in a debug build).
pub(crate) struct Lines<'t> {
    text: &'t [u8],
    at: usize,
    line: u32,
}

impl<'t> Lines<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        Lines {
            text: text.as_bytes(),
            at: 0,
            line: 1,
        }
    }

    /// The 1-based line of `offset`, as [`line_col`] gives it; an offset
    /// before the last one asked is counted from the top again.
    pub(crate) fn line_of(&mut self, offset: usize) -> u32 {
        let offset = offset.min(self.text.len());
        if offset < self.at {
            (self.at, self.line) = (0, 1);
        }
        let newlines = memchr::memchr_iter(b'\n', &self.text[self.at..offset]).count();
        self.line += u32::try_from(newlines).unwrap_or(u32::MAX);
        self.at = offset;
        self.line
    }
}

/// Position of `"key"` in the object starting at `from` (first occurrence
/// after it), else of the object itself.
pub(crate) fn key_pos(text: &str, from: usize, key: &str) -> (u32, u32) {
    let needle = format!("\"{key}\"");
    let from = from.min(text.len());
    let at = text
        .get(from..)
        .and_then(|rest| rest.find(&needle))
        .map(|i| from + i)
        .unwrap_or(from);
    line_col(text, at)
}

/// Byte offsets (relative to `t`) of the top-level items of a JSON array.
pub(crate) fn array_item_starts(t: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut in_str = false;
    let mut esc = false;
    let mut expect_item = false;
    for (i, c) in t.char_indices() {
        if in_str {
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        if expect_item && !c.is_whitespace() && c != ']' {
            out.push(i);
            expect_item = false;
        }
        match c {
            '"' => in_str = true,
            '[' | '{' => {
                depth += 1;
                if depth == 1 && c == '[' {
                    expect_item = true;
                }
            }
            ']' | '}' => depth -= 1,
            ',' if depth == 1 => expect_item = true,
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions() {
        let t = "[\n  {\"a\": 1},\n  {\"b\": \"x,]\"}\n]";
        let s = array_item_starts(t);
        assert_eq!(s.len(), 2);
        assert_eq!(line_col(t, s[1]), (3, 3));
        assert_eq!(key_pos(t, s[1], "b"), (3, 4));
    }

    proptest::proptest! {
        /// Counted on from the last offset, the lines are `line_col`'s,
        /// whatever the offsets' order (a step back counts from the top).
        #[test]
        fn lines_counted_on_are_line_col_s(
            text in "(a|é|\n|\r\n|[{]|,){0,60}",
            offsets in proptest::collection::vec(0usize..80, 0..12),
        ) {
            let mut lines = Lines::new(&text);
            for o in offsets {
                proptest::prop_assert_eq!(lines.line_of(o), line_col(&text, o).0, "{:?} at {}", text, o);
            }
        }
    }
}
