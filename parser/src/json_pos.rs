//! Where the message objects of a JSON document lie in its text.
//! `serde_json::Value` keeps no positions, so a message of a pretty-printed
//! array was placed at the document's first line, and a strict error in
//! the third message of a file named `FILE:1:1`. Framing reads the
//! messages from the `Value`; this walks the same (already valid) text
//! the same way (`framing::collect_objects`: arrays, message objects,
//! the server's wrapper keys, to the same depth), so each message gets
//! the line of its `{` and its body, subject and time the place of their
//! string literals. Never panics: a byte past the end ends the walk.
//!
//! Public for the other JSON readers (core's handoff and A2A files):
//! [`Cursor`] places offsets, [`array_items`] finds an array's items,
//! [`entry_at`] an object's own key and value (never a value spelled like
//! the key, nor another object's key), [`error_place`] a serde_json
//! syntax error in characters from 1, so one walker and one line counter
//! serve every JSON file amail reads.

use std::borrow::Cow;

use serde_json::Value;

use crate::json_keys::{BODY_KEYS, MESSAGE_KEYS, SUBJECT_KEYS, TIMESTAMP_KEYS, WRAPPER_KEYS};

/// A string literal's bytes in the text, its quotes included.
pub(crate) type Span = (usize, usize);

/// One message object: where its `{` is, and the literals of the values
/// framing reads its body, subject and time from (`None` where that value
/// is no string: nothing in the text is its text).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ObjectAt {
    pub start: usize,
    pub body: Option<Span>,
    pub subject: Option<Span>,
    pub timestamp: Option<Span>,
}

/// The message objects of `text` (offsets into it), in the order
/// `framing::collect_objects` takes them from its `Value`.
pub(crate) fn objects(text: &str) -> Vec<ObjectAt> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    walk(text, b, skip_ws(b, 0), 0, &mut out);
    out
}

/// One entry of an object: its key (borrowed unless it holds an escape),
/// where the key's quote is, and its value's bytes.
struct Entry<'t> {
    key: Cow<'t, str>,
    key_at: usize,
    value: Span,
}

fn walk(text: &str, b: &[u8], i: usize, depth: u32, out: &mut Vec<ObjectAt>) {
    if depth > 4 {
        return;
    }
    match b.get(i) {
        Some(b'[') => {
            for j in items(b, i) {
                walk(text, b, j, depth + 1, out);
            }
        }
        Some(b'{') => {
            let entries = entries(text, b, i);
            // The last of a repeated key, as serde_json's map keeps it.
            let get = |key: &str| entries.iter().rev().find(|e| e.key == key);
            if MESSAGE_KEYS.iter().any(|k| get(k).is_some()) {
                // The first of `keys` present and not null, as framing
                // takes it; its literal only when it is a string.
                let literal = |keys: &[&str]| {
                    let e = keys
                        .iter()
                        .filter_map(|k| get(k))
                        .find(|e| !text[e.value.0..e.value.1].starts_with("null"))?;
                    (b.get(e.value.0) == Some(&b'"')).then_some(e.value)
                };
                out.push(ObjectAt {
                    start: i,
                    body: literal(BODY_KEYS),
                    subject: literal(SUBJECT_KEYS),
                    timestamp: literal(TIMESTAMP_KEYS),
                });
            } else {
                for key in WRAPPER_KEYS {
                    if let Some(e) = get(key) {
                        walk(text, b, e.value.0, depth + 1, out);
                    }
                }
            }
        }
        _ => {}
    }
}

/// Byte offsets of the items of the JSON array that `text` is (leading
/// white space allowed); none when it is no array.
pub fn array_items(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let i = skip_ws(b, 0);
    match b.get(i) {
        Some(b'[') => items(b, i).collect(),
        _ => Vec::new(),
    }
}

/// Where one entry of an object is written: its key's opening quote and
/// its value's first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryAt {
    pub key: usize,
    pub value: usize,
}

/// Where `key` is written in the object whose `{` is at `object`: among
/// its own entries only (a value spelled like the key, a key of an object
/// it holds, another object's key are not it), the last of a repeated key
/// (the one serde_json keeps). `None` when the object has no such key or
/// no object is there. For several keys of one object, read its
/// [`Entries`] once.
pub fn entry_at(text: &str, object: usize, key: &str) -> Option<EntryAt> {
    Entries::of(text, object).get(key)
}

/// The entries of one object, walked once for the keys asked of it.
pub struct Entries<'t>(Vec<Entry<'t>>);

impl<'t> Entries<'t> {
    /// The entries of the object whose `{` is at `object` (none when no
    /// object is there).
    pub fn of(text: &'t str, object: usize) -> Entries<'t> {
        let b = text.as_bytes();
        match b.get(object) {
            Some(b'{') => Entries(entries(text, b, object)),
            _ => Entries(Vec::new()),
        }
    }

    /// Where `key` is written (see [`entry_at`]).
    pub fn get(&self, key: &str) -> Option<EntryAt> {
        self.0.iter().rev().find(|e| e.key == key).map(|e| EntryAt {
            key: e.key_at,
            value: e.value.0,
        })
    }
}

/// The starts of the items of the array whose `[` is at `i`.
fn items(b: &[u8], i: usize) -> impl Iterator<Item = usize> + '_ {
    let mut next = Some(skip_ws(b, i + 1)).filter(|&j| b.get(j).is_some_and(|&c| c != b']'));
    std::iter::from_fn(move || {
        let j = next?;
        let after = skip_ws(b, value_end(b, j));
        next = match b.get(after) {
            Some(b',') => {
                Some(skip_ws(b, after + 1)).filter(|&k| b.get(k).is_some_and(|&c| c != b']'))
            }
            _ => None,
        };
        Some(j)
    })
}

/// The entries of the object whose `{` is at `i`.
fn entries<'t>(text: &'t str, b: &[u8], i: usize) -> Vec<Entry<'t>> {
    let mut out = Vec::new();
    let mut j = skip_ws(b, i + 1);
    while b.get(j) == Some(&b'"') {
        let j0 = j;
        let key_end = string_end(b, j);
        let raw = text.get(j..key_end).unwrap_or("");
        // A key with an escape in it is read as JSON reads it.
        let key = match raw.contains('\\') {
            true => Cow::Owned(
                serde_json::from_str::<Value>(raw)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
            ),
            false => Cow::Borrowed(raw.get(1..raw.len().saturating_sub(1)).unwrap_or("")),
        };
        j = skip_ws(b, key_end);
        if b.get(j) != Some(&b':') {
            break;
        }
        let start = skip_ws(b, j + 1);
        let end = value_end(b, start);
        out.push(Entry {
            key,
            key_at: j0,
            value: (start, end),
        });
        j = skip_ws(b, end);
        if b.get(j) != Some(&b',') {
            break;
        }
        j = skip_ws(b, j + 1);
    }
    out
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b
        .get(i)
        .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
    {
        i += 1;
    }
    i
}

/// Just past the string whose opening quote is at `i`.
fn string_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while let Some(&c) = b.get(j) {
        match c {
            b'\\' => j += 2,
            b'"' => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// Just past the value that starts at `i`.
fn value_end(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b'"') => string_end(b, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            while let Some(&c) = b.get(j) {
                match c {
                    b'"' => {
                        j = string_end(b, j);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            b.len()
        }
        _ => {
            let mut j = i;
            while b
                .get(j)
                .is_some_and(|c| !matches!(c, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'))
            {
                j += 1;
            }
            j
        }
    }
}

/// Where, in `text`, the decoded character at (`line`, `column`) of the
/// string literal at `span` was written: the byte offset of its first
/// raw byte (the `\` of an escape). Past the string's end: its closing
/// quote.
fn offset_in_literal(text: &str, span: Span, line: u32, column: u32) -> usize {
    let b = text.as_bytes();
    let (mut at_line, mut at_column) = (1u32, 1u32);
    let mut j = span.0 + 1;
    let end = span.1.saturating_sub(1).min(b.len());
    while j < end {
        if (at_line, at_column) >= (line, column) {
            return j;
        }
        let (newline, next) = match b[j] {
            b'\\' => match b.get(j + 1) {
                Some(b'n') => (true, j + 2),
                // A surrogate pair is one character in two escapes.
                Some(b'u') if b.get(j + 6) == Some(&b'\\') && is_high_surrogate(text, j) => {
                    (false, j + 12)
                }
                Some(b'u') => (false, j + 6),
                _ => (false, j + 2),
            },
            // A character's first byte, then past its continuation bytes.
            _ => {
                let mut k = j + 1;
                while b.get(k).is_some_and(|c| c & 0xC0 == 0x80) {
                    k += 1;
                }
                (false, k)
            }
        };
        if newline {
            (at_line, at_column) = (at_line + 1, 1);
        } else {
            at_column += 1;
        }
        j = next;
    }
    end
}

fn is_high_surrogate(text: &str, j: usize) -> bool {
    text.get(j + 2..j + 6)
        .and_then(|h| u16::from_str_radix(h, 16).ok())
        .is_some_and(|u| (0xD800..0xDC00).contains(&u))
}

/// A string literal in the document: its bytes (quotes included) and
/// the line and column of its opening quote. A JSON string holds no line
/// break, so every character of it is on that line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Literal {
    pub span: Span,
    pub line: u32,
    pub column: u32,
}

impl Literal {
    /// The line and column in the document of the body's character at
    /// (`line`, `column`) of the text this literal decodes to.
    pub(crate) fn place_of(&self, text: &str, line: u32, column: u32) -> (u32, u32) {
        let offset = offset_in_literal(text, self.span, line, column);
        let before = text.get(self.span.0..offset).unwrap_or("");
        (self.line, self.column + before.chars().count() as u32)
    }
}

/// A serde_json error's words without its place (` at line 1 column 18`):
/// the place counts from the JSON's own start (a front matter's `{`, one
/// line of JSON Lines), so beside the diagnostic's it named a second place
/// that disagreed; [`error_place`] gives the one every diagnostic has.
pub fn error_text(e: &serde_json::Error) -> String {
    let words = e.to_string();
    let own = format!(" at line {} column {}", e.line(), e.column());
    match words.strip_suffix(&own) {
        Some(cut) => cut.to_string(),
        None => words,
    }
}

/// Where a serde_json syntax error is in `text` (the text it parsed), as
/// every diagnostic is placed: line and column from 1, the column in
/// characters. serde_json counts its column in bytes (`["é", x]`: 8,
/// where `x` is the 7th character) and says 0 at a line's start (an empty
/// text is `1:0`).
pub fn error_place(text: &str, e: &serde_json::Error) -> (u32, u32) {
    let line = e.line().max(1);
    let start = match line {
        1 => Some(0),
        _ => memchr::memchr_iter(b'\n', text.as_bytes())
            .nth(line - 2)
            .map(|i| i + 1),
    };
    let Some(start) = start else {
        return (line as u32, e.column().max(1) as u32);
    };
    let mut end = (start + e.column().saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let column = text.get(start..end).map_or(0, |t| t.chars().count());
    (line as u32, column as u32 + 1)
}

/// Lines and columns of offsets of one text, each answer counted from
/// the last one's: the messages of a document come in the order they are
/// written (their keys in any order, a short way back), so a document of
/// many messages is read about once, not once a message, on many lines or
/// on one (a 20,000-message array placed from the top each time took
/// `amail parse` 34 s; counted on, 0.28 s).
pub struct Cursor<'t> {
    text: &'t str,
    offset: usize,
    line: u32,
    column: u32,
}

impl<'t> Cursor<'t> {
    pub fn new(text: &'t str) -> Self {
        Cursor {
            text,
            offset: 0,
            line: 1,
            column: 1,
        }
    }

    /// The line and column (in characters, from 1) of byte `offset`; an
    /// offset inside a character is that character's.
    pub fn at(&mut self, offset: usize) -> (u32, u32) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        #[cfg(test)]
        tests::walked(offset.abs_diff(self.offset));
        let newlines = |t: &str| t.bytes().filter(|&c| c == b'\n').count() as u32;
        let chars = |t: &str| t.chars().count() as u32;
        if offset >= self.offset {
            let ahead = self.text.get(self.offset..offset).unwrap_or("");
            match ahead.rfind('\n') {
                Some(i) => {
                    self.line += newlines(ahead);
                    self.column = chars(&ahead[i + 1..]) + 1;
                }
                None => self.column += chars(ahead),
            }
        } else {
            let back = self.text.get(offset..self.offset).unwrap_or("");
            if back.contains('\n') {
                self.line -= newlines(back);
                let before = self.text.get(..offset).unwrap_or("");
                let start = before.rfind('\n').map_or(0, |i| i + 1);
                #[cfg(test)]
                tests::walked(offset - start);
                self.column = chars(&before[start..]) + 1;
            } else {
                self.column -= chars(back);
            }
        }
        self.offset = offset;
        (self.line, self.column)
    }

    /// The text it places offsets of.
    pub(crate) fn text(&self) -> &'t str {
        self.text
    }

    /// `span` with its place.
    pub(crate) fn literal(&mut self, span: Span) -> Literal {
        let (line, column) = self.at(span.0);
        Literal { span, line, column }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        static WALKED: Cell<usize> = const { Cell::new(0) };
    }

    /// Counts the bytes a [`Cursor`] moves over or reads again (this
    /// thread's): its work, which allocates nothing, so `tests/linear.rs`
    /// cannot see it.
    pub(crate) fn walked(bytes: usize) {
        WALKED.with(|w| w.set(w.get() + bytes));
    }

    /// The bytes cursors moved over while `f` ran.
    fn walk_of(f: impl FnOnce()) -> usize {
        let before = WALKED.with(Cell::get);
        f();
        WALKED.with(Cell::get) - before
    }

    /// Every message of a JSON document is placed by counting on from the
    /// one before: its cursors pass over the text about once, for an
    /// array (its keys in order or not) or JSON Lines (where each line's
    /// messages were counted from the document's top: 20,000 lines took
    /// `amail parse` 6.8 s), lenient or strict; and so for every shape the
    /// linear test grows (`tests/support/shapes.rs`, at a quarter of its
    /// size).
    #[test]
    fn a_documents_messages_are_placed_in_one_pass_over_it() {
        let line = r#"{"subject": "[ol-1] PROGRESS", "body_md": "Bead: ol-1\nStep: s"}"#;
        let out_of_order =
            "{\n  \"body_md\": \"Bead: ol-1\\nStep: s\",\n  \"subject\": \"[ol-1] PROGRESS\"\n}";
        let mut documents = vec![
            (
                "JSON Lines",
                format!("{line}\n").repeat(2_000),
                Some(2_000),
                true,
            ),
            (
                "JSON Lines, CRLF",
                format!("{line}\r\n").repeat(2_000),
                Some(2_000),
                true,
            ),
            (
                "an array",
                format!("[\n{}\n]", vec![line; 2_000].join(",\n")),
                Some(2_000),
                true,
            ),
            (
                // Placed subject first: each message steps back a line.
                "an array, its keys a line each, the body first",
                format!("[\n{}\n]", vec![out_of_order; 2_000].join(",\n")),
                Some(2_000),
                true,
            ),
        ];
        for s in crate::shapes::SHAPES {
            documents.push((s.name, (s.make)(s.big / 4), None, s.strict_too));
        }
        for (what, doc, messages, strict_too) in documents {
            for strict in [false, true].into_iter().filter(|&s| !s || strict_too) {
                let opts = crate::ParseOptions { strict };
                let mut n = None;
                let walk = walk_of(|| n = crate::parse(&doc, &opts).ok().map(|m| m.len()));
                if messages.is_some() {
                    assert_eq!(n, messages, "{what}");
                }
                // About once: a message's keys out of order step back
                // within it (quadratic was a thousand times).
                assert!(
                    walk <= 4 * doc.len(),
                    "{what} (strict {strict}): cursors walked {walk} bytes of a {}-byte document",
                    doc.len()
                );
            }
        }
    }

    #[test]
    fn finds_each_message_object_as_framing_takes_them() {
        let text = "{\"result\": [\n  {\"subject\": \"a\", \"body_md\": \"x\\ny\"},\n  {\"body\": null, \"text\": 3, \"subject\": \"b\"}\n]}";
        let found = objects(text);
        assert_eq!(found.len(), 2);
        assert_eq!(&text[found[0].start..found[0].start + 1], "{");
        let mut cursor = Cursor::new(text);
        assert_eq!(cursor.at(found[0].start), (2, 3));
        let body = found[0].body.unwrap();
        assert_eq!(&text[body.0..body.1], "\"x\\ny\"");
        // `y` is line 2, column 1 of the body: after the `\n` escape.
        assert_eq!(&text[offset_in_literal(text, body, 2, 1)..][..1], "y");
        let literal = cursor.literal(body);
        // The body's quote is column 31 of line 2; its `y`, column 35.
        assert_eq!((literal.line, literal.column), (2, 31));
        assert_eq!(literal.place_of(text, 2, 1), (2, 35));
        // Asked again from further back, the cursor counts back.
        assert_eq!(cursor.at(0), (1, 1));
        assert_eq!(cursor.at(body.0 + 3), (2, 34));
        assert_eq!(cursor.at(body.0), (2, 31));
        assert!(found[1].body.is_none(), "{:?}", found[1]);
        assert!(found[1].subject.is_some());
    }

    #[test]
    fn array_items_skip_what_strings_and_nesting_hold() {
        let t = " [\n  {\"a\": [1, 2]},\n  {\"b\": \"x,]\"}, 3\n]";
        let starts = array_items(t);
        let at: Vec<&str> = starts.iter().map(|&s| &t[s..s + 1]).collect();
        assert_eq!(at, ["{", "{", "3"]);
        assert_eq!(Cursor::new(t).at(starts[1]), (3, 3));
        assert!(array_items("[]").is_empty());
        assert!(array_items("{\"a\": [1]}").is_empty());
        assert!(
            array_items("[1,").len() == 1,
            "a cut array keeps what it has"
        );
    }

    #[test]
    fn an_entry_is_found_among_its_own_objects_keys() {
        let t = r#"[{"a": "b", "w": {"b": 1}, "b": 2, "b":3}, {"c": 4}]"#;
        let items = array_items(t);
        let key = |i: usize, k: &str| entry_at(t, items[i], k).map(|e| e.key);
        // "b" the value and the key of `w`'s object are not the key; the
        // last of the repeated key is.
        assert_eq!(key(0, "b"), t.rfind(r#""b":3"#));
        assert_eq!(
            entry_at(t, items[0], "b").map(|e| &t[e.value..e.value + 1]),
            Some("3")
        );
        assert_eq!(key(0, "a"), Some(2));
        assert_eq!(key(0, "c"), None, "not the next object's");
        assert_eq!(key(1, "c"), t.rfind(r#""c""#));
        assert_eq!(entry_at(t, 0, "a"), None, "an array is no object");
        let cut = entry_at("{\"a\": ", 0, "a").map(|e| e.key);
        assert_eq!(cut, Some(1), "a cut object");
        assert_eq!(entry_at("", 7, "a"), None);
    }

    /// Line and column counted from the top, character by character.
    fn from_the_top(text: &str, offset: usize) -> (u32, u32) {
        let (mut line, mut column) = (1, 1);
        for (i, c) in text.char_indices() {
            if i + c.len_utf8() > offset {
                break;
            }
            (line, column) = if c == '\n' {
                (line + 1, 1)
            } else {
                (line, column + 1)
            };
        }
        (line, column)
    }

    proptest::proptest! {
        /// Counted on from the last offset, forwards or back, the places are
        /// those counted from the top (an offset inside a character is
        /// that character's).
        #[test]
        fn a_cursor_places_as_counting_from_the_top(
            text in "(a|é|\n|\r\n|[{]|,){0,60}",
            offsets in proptest::collection::vec(0usize..80, 0..12),
        ) {
            let mut cursor = Cursor::new(&text);
            for o in offsets {
                proptest::prop_assert_eq!(cursor.at(o), from_the_top(&text, o), "{:?} at {}", text, o);
            }
        }
    }
}
