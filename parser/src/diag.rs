//! Diagnostics: the codes the parser can report, which of them strict mode
//! refuses, the fix hint for each, and the strict [`ParseError`].

use std::borrow::Cow;
use std::fmt;

use crate::lines::{physical, Line};
use crate::model::{Diagnostic, Note, Severity};

/// Every diagnostic code, with its severity in lenient mode, whether strict
/// mode refuses it, and the hint a strict error carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// The bytes were not valid UTF-8; bad sequences became U+FFFD.
    InvalidUtf8,
    /// JSON that does not parse.
    InvalidJson,
    /// A `---json` front matter block with no closing `---`.
    UnterminatedFrontMatter,
    /// A JSON value that holds no message object.
    NotAMessage,
    /// No subject line and no type line in the body.
    NoSubject,
    /// The subject (or body) names no known type.
    UnknownType,
    /// The type was inferred from the body's fields.
    TypeInferred,
    /// A field the protocol requires for this type is missing.
    MissingField,
    /// A field appears twice; the first one was used.
    DuplicateField,
    /// A value outside its enum (Issue Type, Failure Type, ...).
    BadEnum,
    /// A value that should be a number is not one.
    BadNumber,
    /// A number outside its range.
    OutOfRange,
    /// A timestamp that does not parse.
    BadTimestamp,
    /// The body's bead id disagrees with the subject's.
    BeadMismatch,
    /// A field found outside the section the protocol puts it in.
    FieldOutsideSection,
    /// Spec framing with headers but no `Body:` label.
    MissingBodyLabel,
    /// A fenced code block that never closes.
    UnclosedFence,
    /// A decoration agents add (an emoji subject, a `### Problem` heading,
    /// a `**Bead**:` label, a body in a code fence, ...) that lenient mode
    /// read through; the message says what it read it as.
    Normalised,
    /// A field filled with a placeholder (`N/A`, `none`, `-`), read as
    /// absent: plain mail says so when a field does not apply (`Session:
    /// none` on a failed spawn), so strict mode reads it the same.
    NoValue,
}

impl Code {
    /// Every code (a test holds the list whole).
    pub(crate) const ALL: [Code; 19] = [
        Code::InvalidUtf8,
        Code::InvalidJson,
        Code::UnterminatedFrontMatter,
        Code::NotAMessage,
        Code::NoSubject,
        Code::UnknownType,
        Code::TypeInferred,
        Code::MissingField,
        Code::DuplicateField,
        Code::BadEnum,
        Code::BadNumber,
        Code::OutOfRange,
        Code::BadTimestamp,
        Code::BeadMismatch,
        Code::FieldOutsideSection,
        Code::MissingBodyLabel,
        Code::UnclosedFence,
        Code::Normalised,
        Code::NoValue,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Code::InvalidUtf8 => "invalid-utf8",
            Code::InvalidJson => "invalid-json",
            Code::UnterminatedFrontMatter => "unterminated-front-matter",
            Code::NotAMessage => "not-a-message",
            Code::NoSubject => "no-subject",
            Code::UnknownType => "unknown-type",
            Code::TypeInferred => "type-inferred",
            Code::MissingField => "missing-field",
            Code::DuplicateField => "duplicate-field",
            Code::BadEnum => "bad-enum",
            Code::BadNumber => "bad-number",
            Code::OutOfRange => "out-of-range",
            Code::BadTimestamp => "bad-timestamp",
            Code::BeadMismatch => "bead-mismatch",
            Code::FieldOutsideSection => "field-outside-section",
            Code::MissingBodyLabel => "missing-body-label",
            Code::UnclosedFence => "unclosed-fence",
            Code::Normalised => "normalised",
            Code::NoValue => "no-value",
        }
    }

    /// Lenient severity. Infos are guesses the parser is confident in;
    /// warnings mean a value was lost or is suspect.
    pub fn severity(self) -> Severity {
        match self {
            Code::InvalidJson | Code::UnterminatedFrontMatter | Code::NotAMessage => {
                Severity::Error
            }
            Code::InvalidUtf8
            | Code::MissingField
            | Code::DuplicateField
            | Code::BadEnum
            | Code::BadNumber
            | Code::OutOfRange
            | Code::BadTimestamp
            | Code::BeadMismatch
            | Code::UnclosedFence => Severity::Warning,
            // A message with no recognisable type is ordinary mail (a
            // status note between agents), not a defect of the message.
            Code::NoSubject
            | Code::UnknownType
            | Code::TypeInferred
            | Code::FieldOutsideSection
            | Code::MissingBodyLabel
            | Code::Normalised
            | Code::NoValue => Severity::Info,
        }
    }

    /// What strict mode refuses: the design's list (no subject/type, unknown
    /// type, missing required field, enum, range, timestamp, bead mismatch,
    /// duplicate field) plus input that is not a message at all, and every
    /// normalisation: strict mode reads the protocol's plain form only.
    pub fn strict_rejects(self) -> bool {
        !matches!(
            self,
            Code::TypeInferred | Code::FieldOutsideSection | Code::MissingBodyLabel | Code::NoValue
        )
    }

    pub fn hint(self) -> &'static str {
        match self {
            Code::InvalidUtf8 => "save the file as UTF-8",
            Code::InvalidJson => "fix the JSON syntax at this position",
            Code::UnterminatedFrontMatter => "close the front matter with a line holding only `---`",
            Code::NotAMessage => "a message object needs at least a `subject` or a `body_md`",
            Code::NoSubject => "start the message with `Subject: [<bead-id>] TYPE`",
            Code::UnknownType => "use one of BEAD_ACCEPTED, PROGRESS, HELP_REQUEST, HELP_RESPONSE, OFFERING_READY, DONE, FAILED, CHECKPOINT, SPAWN_REQUEST, SPAWN_ACK",
            Code::TypeInferred => "name the type in the subject",
            Code::MissingField => "add the field the protocol requires for this type",
            Code::DuplicateField => "keep one of the two lines",
            Code::BadEnum => "use one of the values the protocol lists for this field",
            Code::BadNumber => "write a plain number, e.g. `45%`",
            Code::OutOfRange => "use a value inside the field's range",
            Code::BadTimestamp => "write an ISO 8601 timestamp, e.g. `2026-01-31T10:00:00Z`",
            Code::BeadMismatch => "make the subject's `[bead]` and the body's `Bead:` agree",
            Code::FieldOutsideSection => "move the field under its `##` section",
            Code::MissingBodyLabel => "put a `Body:` line before the body",
            Code::UnclosedFence => "close the code block with ```",
            Code::Normalised => "write the protocol's plain form (lenient mode reads this one as the message says)",
            Code::NoValue => "leave out a field that does not apply",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A strict-mode failure: where, what, the offending line and a fix hint.
/// `Display` gives `line:col: message`; the CLI prefixes the file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: u32,
    pub column: u32,
    pub code: Code,
    pub message: String,
    /// The source line, with a caret under the column.
    pub snippet: String,
    pub hint: &'static str,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {} [{}]",
            self.line, self.column, self.message, self.code
        )
    }
}

impl std::error::Error for ParseError {}

impl ParseError {
    /// The full report: position, message, snippet and hint, prefixed by
    /// `origin` (a file name).
    pub fn report(&self, origin: &str) -> String {
        format!(
            "{origin}:{}:{}: error[{}]: {}\n{}\n  = help: {}",
            self.line, self.column, self.code, self.message, self.snippet, self.hint
        )
    }
}

/// Where the positions of a body that is text of its own are reported
/// (see [`Diags::body_outside_document`]): at the start of `line`, or,
/// for a JSON body, where each character is in its string `literal` (the
/// bytes of the document it spans, quotes included).
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyAt {
    pub line: u32,
    pub literal: Option<crate::json_pos::Literal>,
}

/// The document a message was read from, for the source line of a strict
/// error: its text and its lines (runs of inert lines among them, see
/// `lines`).
#[derive(Clone, Copy)]
pub(crate) struct Source<'d> {
    pub text: &'d str,
    pub lines: &'d [Line<'d>],
}

/// Collects diagnostics for one message; in strict mode remembers the first
/// refused one so the caller can fail with it. `'a`: the text the notes
/// quote (see [`Note`]).
pub(crate) struct Diags<'d, 'a> {
    pub list: Vec<Diagnostic<'a>>,
    strict: bool,
    source: Source<'d>,
    pub first_strict: Option<ParseError>,
    /// The body is not document text (a JSON string, unescaped): positions
    /// in it are reported at this document line, the body position in the
    /// message.
    body_at: Option<BodyAt>,
    /// Normalisations reported so far (see [`Diags::normalised`]).
    normalisations: usize,
}

/// Beyond this many, normalisations are not listed one by one: a large
/// body of decorated lines must not turn into an unbounded list.
const MAX_NORMALISATIONS: usize = 20;

impl<'d, 'a> Diags<'d, 'a> {
    pub(crate) fn new(strict: bool, source: Source<'d>) -> Self {
        Diags {
            list: Vec::new(),
            strict,
            source,
            first_strict: None,
            body_at: None,
            normalisations: 0,
        }
    }

    /// A decoration read through, at `inner` (a slice of body line `line`):
    /// an `info` in lenient mode, refused in strict mode (see
    /// [`Code::Normalised`]). Past [`MAX_NORMALISATIONS`] one line says how
    /// many more there were, once, at the end ([`Diags::finish`]).
    #[inline(always)]
    pub(crate) fn normalised(
        &mut self,
        line: &Line<'_>,
        inner: &str,
        message: impl Into<Note<'a>>,
    ) {
        self.normalised_note(line, inner, message.into());
    }

    /// [`Diags::normalised`] of a made note: one copy of the code for
    /// every kind of note (a generic copy each was more code for a
    /// decorated message's notes to bring into the instruction cache).
    fn normalised_note(&mut self, line: &Line<'_>, inner: &str, message: Note<'a>) {
        self.normalisations += 1;
        if self.normalisations <= MAX_NORMALISATIONS {
            self.at(Code::Normalised, line, inner, message);
        }
    }

    /// Closes the list: the count of normalisations not listed, if any.
    pub(crate) fn finish(&mut self, line: u32) {
        if self.normalisations > MAX_NORMALISATIONS {
            let more = self.normalisations - MAX_NORMALISATIONS;
            self.push_body(
                Code::Normalised,
                line,
                1,
                format!("{more} more normalisations not listed"),
            );
            self.normalisations = MAX_NORMALISATIONS;
        }
    }

    /// Body positions are not document positions; report them where `at`
    /// says.
    pub(crate) fn body_outside_document(&mut self, at: BodyAt) {
        self.body_at = Some(at);
    }

    /// Where body line `line`, column `column` was written in the document:
    /// in a JSON body's string literal, the character's own place (found
    /// only when a diagnostic needs it); else the first column of the
    /// line `at` names.
    fn in_document(&self, at: BodyAt, line: u32, column: u32) -> (u32, u32) {
        match at.literal {
            Some(literal) => literal.place_of(self.source.text, line, column),
            None => (at.line, 1),
        }
    }

    /// A position in the message body (see [`Diags::body_outside_document`]).
    pub(crate) fn push_body(
        &mut self,
        code: Code,
        line: u32,
        column: u32,
        message: impl Into<Note<'a>>,
    ) {
        match self.body_at {
            Some(at) => {
                // Built by hand: through `format!` this was most of the
                // cost of each note on a JSON body (several a message).
                let message = message.into();
                let mut text = String::with_capacity(message.len() + 40);
                message.pieces().for_each(|p| text.push_str(p));
                text.push_str(" (body line ");
                text.push_str(itoa::Buffer::new().format(line));
                text.push_str(", column ");
                text.push_str(itoa::Buffer::new().format(column));
                text.push(')');
                let (line, column) = self.in_document(at, line, column);
                self.push(code, line, column, text);
            }
            None => self.push(code, line, column, message),
        }
    }

    #[inline]
    pub(crate) fn push(
        &mut self,
        code: Code,
        line: u32,
        column: u32,
        message: impl Into<Note<'a>>,
    ) {
        let refused = self.strict && code.strict_rejects() && self.first_strict.is_none();
        if self.list.capacity() == 0 {
            self.make_room();
        }
        self.list.push(Diagnostic {
            severity: code.severity(),
            line,
            column,
            code: Cow::Borrowed(code.as_str()),
            message: message.into(),
        });
        // Refused from the list, after the push: asked of the note before
        // it, the note was copied aside for the question on every push
        // (~14 instructions a note).
        if refused {
            self.refuse_last(code);
        }
    }

    /// [`Diags::refuse`] of the diagnostic just pushed.
    #[cold]
    #[inline(never)]
    fn refuse_last(&mut self, code: Code) {
        if let Some(d) = self.list.pop() {
            self.refuse(code, d.line, d.column, &d.message);
            self.list.push(d);
        }
    }

    /// The envelope's problems, made as diagnostics, as the first entries
    /// of the (empty) list: the list itself, where each was pushed into a
    /// list made for it (see `Envelope::problems`); strict mode refuses
    /// the first it refuses, as a push of each would have.
    pub(crate) fn adopt(&mut self, problems: Vec<Diagnostic<'a>>) {
        if problems.is_empty() {
            return;
        }
        if self.strict && self.first_strict.is_none() {
            self.refuse_first(&problems);
        }
        if self.list.is_empty() {
            self.list = problems;
        } else {
            self.list.extend(problems);
        }
    }

    /// [`Diags::adopt`]'s refusal: the first problem strict mode refuses,
    /// its code read back from its name.
    #[cold]
    #[inline(never)]
    fn refuse_first(&mut self, problems: &[Diagnostic<'a>]) {
        let refused = problems.iter().find_map(|d| {
            let code = Code::ALL.into_iter().find(|c| c.as_str() == d.code)?;
            code.strict_rejects().then_some((code, d))
        });
        if let Some((code, d)) = refused {
            self.refuse(code, d.line, d.column, &d.message);
        }
    }

    /// Strict mode's error for the first refused diagnostic.
    #[cold]
    #[inline(never)]
    fn refuse(&mut self, code: Code, line: u32, column: u32, message: &Note<'_>) {
        self.first_strict = Some(ParseError {
            line,
            column,
            code,
            snippet: snippet(self.source, line, column),
            // A normalisation is refused for what it is: the error says
            // what lenient mode would have read.
            message: match code {
                Code::Normalised => {
                    format!("not the protocol's plain form (lenient mode would read it: {message})")
                }
                _ => message.to_string(),
            },
            hint: code.hint(),
        });
    }

    /// Room for a decorated message's few notes at once (grown one push at
    /// a time, the list was reallocated on most of them), in at most 1 KiB:
    /// glibc serves blocks up to about that size from its per-thread
    /// cache, larger ones cost twice as much.
    #[cold]
    #[inline(never)]
    fn make_room(&mut self) {
        // Made at its size (the list is empty): `reserve_exact` went
        // through the growth path's checks and `finish_grow`.
        self.list = Vec::with_capacity((1024 / std::mem::size_of::<Diagnostic<'_>>()).max(4));
    }

    /// At `inner`, a slice of body line `line`.
    #[inline(always)]
    pub(crate) fn at(
        &mut self,
        code: Code,
        line: &Line<'_>,
        inner: &str,
        message: impl Into<Note<'a>>,
    ) {
        self.at_note(code, line, inner, message.into());
    }

    /// [`Diags::at`] of a made note (one copy, see
    /// [`Diags::normalised_note`]).
    fn at_note(&mut self, code: Code, line: &Line<'_>, inner: &str, message: Note<'a>) {
        let col = line.column_of(inner);
        self.push_body(code, line.no, col, message);
    }
}

/// `  12 | text\n     |    ^`, rustc style.
pub(crate) fn snippet(source: Source<'_>, line: u32, column: u32) -> String {
    // The entry that holds the line: the line itself, or a run it is in.
    let lines = source.lines;
    let text = match lines.binary_search_by_key(&line, |l| l.no) {
        Ok(i) => lines.get(i).map(|l| l.text),
        Err(i) => i
            .checked_sub(1)
            .and_then(|i| lines.get(i..=i))
            .and_then(|run| physical(source.text, run).find(|l| l.no == line))
            .map(|l| l.text),
    }
    .unwrap_or("");
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let gutter = line.to_string();
    let pad = " ".repeat(gutter.len());
    let caret_pad: String = text
        .chars()
        .take(column.saturating_sub(1) as usize)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    format!("{pad} |\n{gutter} | {text}\n{pad} | {caret_pad}^")
}

#[cfg(test)]
mod tests {
    use super::Code;

    #[test]
    fn every_code_is_listed_once() {
        for c in Code::ALL {
            // No wildcard: a code added to the enum stops this compiling
            // until it is listed.
            match c {
                Code::InvalidUtf8
                | Code::InvalidJson
                | Code::UnterminatedFrontMatter
                | Code::NotAMessage
                | Code::NoSubject
                | Code::UnknownType
                | Code::TypeInferred
                | Code::MissingField
                | Code::DuplicateField
                | Code::BadEnum
                | Code::BadNumber
                | Code::OutOfRange
                | Code::BadTimestamp
                | Code::BeadMismatch
                | Code::FieldOutsideSection
                | Code::MissingBodyLabel
                | Code::UnclosedFence
                | Code::Normalised
                | Code::NoValue => {}
            }
            let named = Code::ALL
                .iter()
                .filter(|d| d.as_str() == c.as_str())
                .count();
            assert_eq!(named, 1, "{c}");
        }
    }
}
