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
}
