//! What JavaScript's `JSON.parse` says about text it refuses.
//!
//! AOF logs that message as `invalid_json`'s `error` (aof-router.md §2.3,
//! sample line in §4), so a log amail writes reads like one AOF wrote:
//! same words, same position. The wording is V8's as Node 20 prints it
//! (the reference's sample has no `(line L column C)` suffix, which later
//! Node versions add). Positions count UTF-16 code units from the start of
//! the JSON text, as JavaScript indexes strings.
//!
//! This is a recogniser, not a parser: it runs only on text serde_json has
//! already refused, walks the grammar as V8's parser does, and stops at
//! the first place V8 would. It is iterative, so a megabyte of `[` is no
//! deeper on the stack than one.

/// Context shown around an unexpected character, each side.
const CONTEXT: usize = 10;

/// The message `JSON.parse(text)` throws, or `None` when it would accept
/// the text (serde_json refuses a few texts V8 takes: nesting deeper than
/// 128, an escaped lone surrogate; the caller keeps serde's words there).
pub fn parse_error(text: &str) -> Option<String> {
    let units: Vec<u16> = text.encode_utf16().collect();
    Scanner { s: &units, i: 0 }.run().err()
}

struct Scanner<'a> {
    s: &'a [u16],
    i: usize,
}

fn is_digit(c: u16) -> bool {
    (u16::from(b'0')..=u16::from(b'9')).contains(&c)
}

fn is(c: Option<u16>, b: u8) -> bool {
    c == Some(u16::from(b))
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u16> {
        self.s.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        // JSON's four, not JavaScript's wider set: a no-break space is an
        // unexpected token to `JSON.parse`.
        while matches!(self.peek(), Some(0x20 | 0x09 | 0x0a | 0x0d)) {
            self.i += 1;
        }
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(is_digit) {
            self.i += 1;
        }
    }

    /// A message that names where it stopped.
    fn at(&self, what: &str) -> String {
        format!("{what} in JSON at position {}", self.i)
    }

    /// V8's words for a character it did not expect where it stands:
    /// the end, a string or number out of place, or the character quoted
    /// with its surroundings.
    fn unexpected(&self) -> String {
        let Some(c) = self.peek() else {
            return "Unexpected end of JSON input".into();
        };
        if c == u16::from(b'"') {
            return self.at("Unexpected string");
        }
        if c == u16::from(b'-') || is_digit(c) {
            return self.at("Unexpected number");
        }
        let whole = String::from_utf16_lossy(self.s);
        // JavaScript's usual mistakes (a value passed through `String()`)
        // are named whole.
        if matches!(
            whole.as_str(),
            "[object Object]" | "undefined" | "Infinity" | "NaN"
        ) {
            return format!("\"{whole}\" is not valid JSON");
        }
        // A lone half of a surrogate pair has no Rust `String` form; it
        // becomes U+FFFD here, where JavaScript keeps the half.
        let token = String::from_utf16_lossy(&[c]);
        let (len, pos) = (self.s.len(), self.i);
        let text = |a: usize, b: usize| String::from_utf16_lossy(&self.s[a..b]);
        let quoted = if len <= 2 * CONTEXT {
            format!("\"{whole}\"")
        } else if pos < CONTEXT {
            format!("\"{}\"...", text(0, pos + CONTEXT))
        } else if pos >= len - CONTEXT {
            format!("...\"{}\"", text(pos - CONTEXT, len))
        } else {
            format!("...\"{}\"...", text(pos - CONTEXT, pos + CONTEXT))
        };
        format!("Unexpected token '{token}', {quoted} is not valid JSON")
    }

    fn run(&mut self) -> Result<(), String> {
        // Open containers, innermost last: true for an object.
        let mut open: Vec<bool> = Vec::new();
        self.skip_ws();
        loop {
            if self.value(&mut open)? == Value::Opened {
                continue;
            }
            // A value ended: close what it ends, up to the next member.
            loop {
                self.skip_ws();
                match open.last() {
                    None if self.i < self.s.len() => {
                        return Err(format!(
                            "Unexpected non-whitespace character after JSON at position {}",
                            self.i
                        ))
                    }
                    None => return Ok(()),
                    Some(true) => match self.peek() {
                        c if is(c, b',') => {
                            self.i += 1;
                            self.skip_ws();
                            if !is(self.peek(), b'"') {
                                return Err(self.at("Expected double-quoted property name"));
                            }
                            self.key(false)?;
                            break;
                        }
                        c if is(c, b'}') => {
                            self.i += 1;
                            open.pop();
                        }
                        _ => return Err(self.at("Expected ',' or '}' after property value")),
                    },
                    Some(false) => match self.peek() {
                        c if is(c, b',') => {
                            self.i += 1;
                            self.skip_ws();
                            break;
                        }
                        c if is(c, b']') => {
                            self.i += 1;
                            open.pop();
                        }
                        _ => return Err(self.at("Expected ',' or ']' after array element")),
                    },
                }
            }
        }
    }

    /// One value at the cursor. A non-empty container is only opened:
    /// its first member's value is next (for an object, after its key).
    fn value(&mut self, open: &mut Vec<bool>) -> Result<Value, String> {
        let Some(c) = self.peek() else {
            return Err(self.unexpected());
        };
        match u8::try_from(c).unwrap_or(0) {
            b'{' => {
                self.i += 1;
                self.skip_ws();
                if is(self.peek(), b'}') {
                    self.i += 1;
                    return Ok(Value::Done);
                }
                if !is(self.peek(), b'"') {
                    return Err(self.at("Expected property name or '}'"));
                }
                self.key(true)?;
                open.push(true);
                Ok(Value::Opened)
            }
            b'[' => {
                self.i += 1;
                self.skip_ws();
                if is(self.peek(), b']') {
                    self.i += 1;
                    return Ok(Value::Done);
                }
                open.push(false);
                Ok(Value::Opened)
            }
            b'"' => self.string().map(|_| Value::Done),
            b'-' | b'0'..=b'9' => self.number().map(|_| Value::Done),
            b't' => self.literal("true").map(|_| Value::Done),
            b'f' => self.literal("false").map(|_| Value::Done),
            b'n' => self.literal("null").map(|_| Value::Done),
            _ => Err(self.unexpected()),
        }
    }

    /// A property name and its colon; the cursor ends on the value. V8
    /// names the missing colon only after an object's first name; after a
    /// later one it reports whatever stands there.
    fn key(&mut self, first: bool) -> Result<(), String> {
        self.string()?;
        self.skip_ws();
        if !is(self.peek(), b':') {
            return Err(if first {
                self.at("Expected ':' after property name")
            } else {
                self.unexpected()
            });
        }
        self.i += 1;
        self.skip_ws();
        Ok(())
    }

    fn string(&mut self) -> Result<(), String> {
        self.i += 1;
        loop {
            let Some(c) = self.peek() else {
                return Err(self.at("Unterminated string"));
            };
            if c == u16::from(b'"') {
                self.i += 1;
                return Ok(());
            }
            if c < 0x20 {
                return Err(self.at("Bad control character in string literal"));
            }
            self.i += 1;
            if c != u16::from(b'\\') {
                continue;
            }
            let Some(e) = self.peek() else {
                return Err(self.unexpected());
            };
            // V8 classifies an escape by a Latin-1 table; anything above
            // it is an unexpected token, not a bad escape.
            if e > 0xff {
                return Err(self.unexpected());
            }
            match e as u8 {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 1,
                b'u' => {
                    self.i += 1;
                    for _ in 0..4 {
                        if !self
                            .peek()
                            .is_some_and(|h| u8::try_from(h).is_ok_and(|h| h.is_ascii_hexdigit()))
                        {
                            return Err(self.at("Bad Unicode escape"));
                        }
                        self.i += 1;
                    }
                }
                _ => return Err(self.at("Bad escaped character")),
            }
        }
    }

    fn number(&mut self) -> Result<(), String> {
        if is(self.peek(), b'-') {
            self.i += 1;
            if !self.peek().is_some_and(is_digit) {
                return Err(self.at("No number after minus sign"));
            }
        }
        if is(self.peek(), b'0') {
            self.i += 1;
            // A leading zero ends the number; a digit after it is a second
            // number where none may be.
            if self.peek().is_some_and(is_digit) {
                return Err(self.at("Unexpected number"));
            }
        } else {
            self.digits();
        }
        if is(self.peek(), b'.') {
            self.i += 1;
            if !self.peek().is_some_and(is_digit) {
                return Err(self.at("Unterminated fractional number"));
            }
            self.digits();
        }
        if is(self.peek(), b'e') || is(self.peek(), b'E') {
            self.i += 1;
            if is(self.peek(), b'+') || is(self.peek(), b'-') {
                self.i += 1;
            }
            if !self.peek().is_some_and(is_digit) {
                return Err(self.at("Exponent part is missing a number"));
            }
            self.digits();
        }
        Ok(())
    }

    /// `true`, `false` or `null`, its first letter already seen: the first
    /// character that differs is reported as V8 reports any token.
    fn literal(&mut self, word: &str) -> Result<(), String> {
        for w in word.bytes() {
            if !is(self.peek(), w) {
                return Err(self.unexpected());
            }
            self.i += 1;
        }
        Ok(())
    }
}

#[derive(Debug, PartialEq)]
enum Value {
    /// A whole value was read.
    Done,
    /// A container was opened; its first member comes next.
    Opened,
}
