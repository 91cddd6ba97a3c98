//! Line and column lookup in text: JSON's (serde_json's `Value` keeps no
//! spans) and the config file's (toml gives byte spans).

use amail_parser::json_pos::Cursor;

/// 1-based (line, column in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (u32, u32) {
    Cursor::new(text).at(offset)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions() {
        let t = "[\n  {\"a\": 1},\n  {\"b\": \"x,]\"}\n]";
        let s = amail_parser::json_pos::array_items(t);
        assert_eq!(s.len(), 2);
        assert_eq!(line_col(t, s[1]), (3, 3));
        assert_eq!(key_pos(t, s[1], "b"), (3, 4));
        assert_eq!(
            line_col("aé\nb", 2),
            (1, 2),
            "inside a character: its place"
        );
    }
}
