//! Bytes read as text where one bad byte must spoil only what holds it.
//!
//! The store's files are text: task files, the event log, the
//! write-ahead log; so are the config and tokens files. Read whole with
//! `read_to_string`, one byte that is not UTF-8 failed the whole read
//! with the system's "stream did not contain valid UTF-8", which names
//! no line. A write torn inside a character (a crash or a full disk while
//! appending a title such as `Übersetzung`) did it to the write-ahead
//! log's last line, which recovery exists to drop: every command on the
//! store failed until the log was mended by hand. In the event log it
//! made `amail events` fail and `amail doctor`, which read the log as
//! empty, call the store consistent.
//!
//! So a file read whole is checked here, and a bad byte is a [`NotUtf8`]
//! naming its line and column, which the caller reports as that file's
//! problem; a log is read a line at a time ([`lines`]), each line decoded
//! on its own, so a bad byte spoils its line and the others are read.

use amail_parser::json_pos::Cursor;

/// Where bytes stop being UTF-8: the line and column (1-based, the
/// column in characters, as every place amail names counts it) of the
/// first byte that is not, and that byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: invalid UTF-8 (byte 0x{byte:02x})")]
pub struct NotUtf8 {
    pub line: usize,
    pub column: usize,
    pub byte: u8,
}

impl NotUtf8 {
    /// The first byte of `bytes` that is not UTF-8, if any.
    pub fn find(bytes: &[u8]) -> Option<NotUtf8> {
        std::str::from_utf8(bytes)
            .err()
            .map(|e| NotUtf8::at(bytes, e))
    }

    /// Where `e`, from decoding `bytes` (a file's start), says they stop
    /// being UTF-8.
    fn at(bytes: &[u8], e: std::str::Utf8Error) -> NotUtf8 {
        NotUtf8::at_in(bytes, e, true)
    }

    /// [`NotUtf8::at`] in bytes that are a file's start (`from_start`),
    /// where a byte-order mark is one, or a later line of it.
    fn at_in(bytes: &[u8], e: std::str::Utf8Error, from_start: bool) -> NotUtf8 {
        let good = &bytes[..e.valid_up_to()];
        // The prefix is UTF-8: `e` says so.
        let good = std::str::from_utf8(good).unwrap_or_default();
        let (line, mut column) = Cursor::new(good).at(good.len());
        // Columns count from after a byte-order mark, as the parser's do.
        if from_start && line == 1 && good.starts_with('\u{feff}') {
            column -= 1;
        }
        NotUtf8 {
            line: line as usize,
            column: column as usize,
            byte: bytes[e.valid_up_to()],
        }
    }

    /// What is wrong, without the place: `invalid UTF-8 (byte 0xc3)`.
    pub fn what(&self) -> String {
        format!("invalid UTF-8 (byte 0x{:02x})", self.byte)
    }
}

/// `bytes` as text, or where they are not.
pub fn text(bytes: Vec<u8>) -> Result<String, NotUtf8> {
    String::from_utf8(bytes).map_err(|e| NotUtf8::at(e.as_bytes(), e.utf8_error()))
}

/// The lines of `bytes` as `str::lines` cuts text (at `\n`, a `\r`
/// before it dropped, no empty line after a last `\n`), each with its
/// number and decoded on its own: a line that is not UTF-8 is its
/// [`NotUtf8`], placed on that line.
pub fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, Result<&str, NotUtf8>)> {
    bytes
        .split_inclusive(|b| *b == b'\n')
        .enumerate()
        .map(|(i, line)| {
            let line = line.strip_suffix(b"\n").unwrap_or(line);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let text = std::str::from_utf8(line).map_err(|e| NotUtf8 {
                line: i + 1,
                ..NotUtf8::at_in(line, e, i == 0)
            });
            (i + 1, text)
        })
}

/// Why one line of a JSON Lines file is not a record, placed as every
/// place amail names is: the column (in characters) where serde stopped,
/// and serde's words without its own place, which counts bytes within
/// the line as if the line were the file (`expected value at line 1
/// column 7` on line 40). The parser's `json_pos` does both.
pub fn json_line_error(line: &str, e: &serde_json::Error) -> (usize, String) {
    let (_, column) = amail_parser::json_pos::error_place(line, e);
    (column as usize, amail_parser::json_pos::error_text(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_bad_byte_is_placed_by_line_and_character() {
        assert_eq!(NotUtf8::find("ok\né".as_bytes()), None);
        let at = NotUtf8::find(b"a\nb\xc3\xa9c\xff").unwrap();
        assert_eq!((at.line, at.column, at.byte), (2, 4, 0xff));
        assert_eq!(at.to_string(), "2:4: invalid UTF-8 (byte 0xff)");
        // A character cut short at the end: where it starts.
        let at = NotUtf8::find(b"title: \xc3").unwrap();
        assert_eq!((at.line, at.column, at.byte), (1, 8, 0xc3));
        assert_eq!(text(b"x\n\xc3".to_vec()).unwrap_err().line, 2);
        // After a byte-order mark, as an editor shows the line.
        let at = NotUtf8::find(b"\xef\xbb\xbfab\xff").unwrap();
        assert_eq!((at.line, at.column), (1, 3));
        // Only at the file's start: later, U+FEFF is a character.
        let later: Vec<_> = lines(b"\xef\xbb\xbfa\xff\n\xef\xbb\xbfa\xff").collect();
        assert_eq!(later[0].1.unwrap_err().column, 2);
        assert_eq!(later[1].1.unwrap_err().column, 3);
        assert_eq!(text("é".as_bytes().to_vec()).unwrap(), "é");
    }

    #[test]
    fn lines_are_cut_as_str_lines_cuts_them_and_decoded_one_by_one() {
        let bytes = b"a\r\n\nb\xffc\nd";
        let got: Vec<_> = lines(bytes).collect();
        assert_eq!(got.len(), 4);
        assert_eq!(got[0], (1, Ok("a")));
        assert_eq!(got[1], (2, Ok("")));
        let bad = got[2].1.unwrap_err();
        assert_eq!((got[2].0, bad.line, bad.column), (3, 3, 2));
        assert_eq!(got[3], (4, Ok("d")));
        let text = "x\r\ny\n\nz\n";
        let ours: Vec<&str> = lines(text.as_bytes()).map(|(_, l)| l.unwrap()).collect();
        assert_eq!(ours, text.lines().collect::<Vec<_>>());
        assert_eq!(lines(b"").count(), 0);
    }

    #[test]
    fn a_json_line_s_error_is_placed_in_characters_without_serde_s_place() {
        let line = "{\"é\": x}";
        let e = serde_json::from_str::<serde_json::Value>(line).unwrap_err();
        assert_eq!(e.column(), 8, "serde counts bytes");
        assert_eq!(json_line_error(line, &e), (7, "expected value".to_string()));
    }
}
