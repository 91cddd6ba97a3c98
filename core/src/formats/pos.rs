//! Line and column lookup in text: JSON's (serde_json's `Value` keeps no
//! spans) and the config file's (toml gives byte spans).

use amail_parser::json_pos::{self, Cursor};

/// 1-based (line, column in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (u32, u32) {
    Cursor::new(text).at(offset)
}

/// The places of one JSON file's diagnostics. The file's objects are
/// checked in order, so each place is counted on from the last one (a
/// file of 20,000 objects with a bad field in each is read about once,
/// not once a diagnostic).
pub(crate) struct Places<'t> {
    text: &'t str,
    cursor: Cursor<'t>,
}

impl<'t> Places<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        Places {
            text,
            cursor: Cursor::new(text),
        }
    }

    /// The line and column of byte `offset`.
    pub(crate) fn at(&mut self, offset: usize) -> (u32, u32) {
        self.cursor.at(offset)
    }

    /// Where `key` is written as a key of the object at `object`, else
    /// where the object is: a missing field is its object's.
    pub(crate) fn key(&mut self, object: usize, key: &str) -> (u32, u32) {
        let at = json_pos::entry_at(self.text, object, key).map_or(object, |e| e.key);
        self.cursor.at(at)
    }

    /// Where the value of `key` in the object at `object` starts (the
    /// object a wrapper holds), else the object itself.
    pub(crate) fn value_of(&self, object: usize, key: &str) -> usize {
        json_pos::entry_at(self.text, object, key).map_or(object, |e| e.value)
    }
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
        let mut places = Places::new(t);
        assert_eq!(places.key(s[1], "b"), (3, 4));
        assert_eq!(places.key(s[0], "b"), (2, 3), "not the next object's");
        assert_eq!(places.at(s[1]), (3, 3));
        assert_eq!(
            line_col("aé\nb", 2),
            (1, 2),
            "inside a character: its place"
        );
    }
}
