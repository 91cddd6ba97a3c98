//! amail-parser: placeholder (the real grammar lands next).
#![forbid(unsafe_code)]

mod model;

pub use model::*;

use std::borrow::Cow;

/// How to parse.
#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    /// Fail on the first problem instead of returning diagnostics.
    pub strict: bool,
}

/// A strict-mode failure: where, what, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: u32,
    pub column: u32,
    pub code: &'static str,
    pub message: String,
    pub snippet: String,
    pub hint: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Parses one document (any framing) into the messages it holds.
pub fn parse<'a>(input: &'a str, _opts: &ParseOptions) -> Result<Vec<Message<'a>>, ParseError> {
    Ok(vec![Message {
        id: None,
        kind: MessageType::Unknown,
        raw_type: None,
        is_reply: false,
        subject: Cow::Borrowed(""),
        from: None,
        to: vec![],
        cc: vec![],
        thread_id: None,
        timestamp: None,
        ack_required: false,
        importance: Cow::Borrowed("normal"),
        body: Cow::Borrowed(input),
        parsed: Parsed::default(),
        diagnostics: vec![],
        project: None,
        line: 1,
    }])
}

/// Parses raw bytes: strips a BOM, reports invalid UTF-8 as a diagnostic.
pub fn parse_bytes(input: &[u8], opts: &ParseOptions) -> Result<Vec<OwnedMessage>, ParseError> {
    let text = String::from_utf8_lossy(input);
    Ok(parse(&text, opts)?
        .into_iter()
        .map(Message::into_owned)
        .collect())
}
