//! # amail-parser
//!
//! A lenient-by-default, strict-on-request parser for **Agent Mail**, the
//! markdown messages AI coding agents send each other (`PROGRESS`,
//! `HELP_REQUEST`, `OFFERING_READY`, `FAILED`, `CHECKPOINT`, ...).
//!
//! ## Design
//!
//! Parsing happens in three layers, each small enough to reason about:
//!
//! 1. **Framing** (`framing.rs`) finds the messages in a document and their
//!    envelope: spec text (`Subject:` / `Body:`), mcp_agent_mail archive files
//!    (`---json` front matter), JSON objects, arrays, `{"result": [...]}` and
//!    JSON Lines, or a bare body. LF, CRLF, a UTF-8 BOM and trailing blanks
//!    all read the same. An archive file's front matter is read by
//!    serde_json's reader straight into the keys an envelope reads, its
//!    strings borrowed (`json_fields.rs`), not built as a `Value`: every
//!    file of an mcp_agent_mail root has one, and as a `Value` it cost
//!    several times its message's parse.
//! 2. **Lines** (`lines.rs`, `grammar.rs`): the document is split into lines
//!    once (kept on the stack for a document of a few lines, the usual
//!    message; a large one has the lines no rule reads gathered into runs
//!    as it is split, one entry each, see `lines`); small parsers classify
//!    each line (field, heading, list item, fence). No parser ever looks past its line, so time is linear in the
//!    input on every input, adversarial ones included. The line parsers,
//!    the subject prefixes (`Re:`, `[bead]`, `bead:`) and the number
//!    readers (`45%`, counts) are nom 8 combinators over the line's
//!    **bytes** with `()` as the error type: they run on every line of
//!    every message, and nom's `&str` parsers would decode a `char` per
//!    step and build an error value on every miss. Every token is ASCII, so
//!    results are cut back out of the `&str` by position; a `char` is
//!    decoded only where a label or bead id holds a non-ASCII byte. The
//!    same grammar written as nom `&str` parsers is kept in the tests, and
//!    property tests check that both agree.
//!    Known names (header names, field labels, section titles, type
//!    tokens) are looked up by length and compared as a few `u64` words
//!    with the ASCII capitals folded (`words.rs`), not byte by byte; a
//!    header, label or section heading written as the protocol spells it
//!    (`Subject:`, `Bead:`, `- Tests:`, `## Summary`, nearly every one) is
//!    decided before that, by its first byte and one compare, as the
//!    general reading would read it. The body index reads each line's
//!    first byte once and runs only the tests that byte leaves open. Short
//!    searches in a line (a label's colon, a value's comma or blank) go
//!    eight bytes at a time (`find.rs`).
//! 3. **Extraction** (`body/`, `extract.rs`): one pass indexes the body's
//!    `##` sections and the first occurrence of every known label in each;
//!    per-type extractors read values from that index. The envelope, the
//!    index and the message are each built where they are kept (the
//!    caller's envelope, the index's return place, the message's slot at
//!    the end of the output list): each is a few hundred bytes to most of
//!    a kilobyte, and moving them through return values was a copy each in
//!    the profile of a small message.
//! 4. **Decorations** (`decor.rs`): what language models add around the
//!    plain form (emoji subjects, `### Problem`, `**Bead**:`, a fenced body,
//!    prose first), each read by one rule that runs only where the plain
//!    grammar found nothing, and reported as a `normalised` info that
//!    strict mode refuses.
//!
//! An empty document (only whitespace) holds no message.
//!
//! The parser **never panics** and never refuses input in lenient mode: what
//! it had to guess or skip becomes a [`Diagnostic`] with line, column and a
//! code. In strict mode ([`ParseOptions::strict`]) the first diagnostic the
//! design lists as malformed becomes a [`ParseError`] with a source snippet
//! and a fix hint. Values borrow from the input where they can
//! ([`std::borrow::Cow`]); [`Message::into_owned`] detaches them.
//!
//! ```
//! use amail_parser::{parse, MessageType, ParseOptions};
//!
//! let mail = "Subject: [ol-527.1] PROGRESS\n\nBody:\nBead: ol-527.1\nStep: Step 2\nContext usage: 45%\n";
//! let msgs = parse(mail, &ParseOptions::default()).unwrap();
//! assert_eq!(msgs[0].kind, MessageType::Progress);
//! assert_eq!(msgs[0].parsed.bead_id.as_deref(), Some("ol-527.1"));
//! assert_eq!(msgs[0].parsed.context_usage, Some(45));
//! ```
#![forbid(unsafe_code)]

mod body;
mod decor;
mod diag;
mod extract;
pub mod filter;
mod find;
mod framing;
mod glyph;
mod grammar;
mod json_body;
mod json_fields;
mod json_keys;
pub mod json_pos;
mod lines;
mod model;
pub mod near;
mod render;
/// The inputs whose parse must grow linearly (`tests/linear.rs` counts
/// their allocations): here the unit tests count what cursors walk.
#[cfg(test)]
#[path = "../tests/support/shapes.rs"]
mod shapes;
mod spell;
mod subject;
mod trim;
mod values;
mod words;

use std::borrow::Cow;

pub use diag::{Code, ParseError};
pub use model::*;
pub use render::{canonical_body, render};
pub use values::parse_timestamp;

use body::{whole_text, Body};
use diag::{Diags, Source};
use framing::{BodySource, Envelope, Envelopes};
use lines::{doc_lines, split_lines, Line};

/// How to parse.
#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    /// Fail with the first problem the design calls malformed instead of
    /// returning diagnostics.
    pub strict: bool,
}

impl ParseOptions {
    pub fn strict() -> Self {
        ParseOptions { strict: true }
    }
}

/// Parses one document (any framing) into the messages it holds.
///
/// Lenient mode always returns `Ok`; strict mode returns the first problem.
/// An empty document (no bytes, or only whitespace and a BOM) holds no
/// message, in both modes: empty standard input or an empty file is not a
/// message about nothing.
pub fn parse<'a>(input: &'a str, opts: &ParseOptions) -> Result<Vec<Message<'a>>, ParseError> {
    parse_document(input, opts, framing::Front::Envelope)
}

/// A JSON object, as `serde_json` holds it.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// [`parse`], also handing back the `---json` front matter object of an
/// mcp_agent_mail archive document (`None` for any other framing, or front
/// matter that is not a JSON object), for a caller that needs keys the
/// message does not model (`bcc`). Read as a `Value` for it: [`parse`]
/// reads only the keys the message takes (see `json_fields`), so this
/// costs more than [`parse`] on archive documents, and the same on any
/// other.
pub fn parse_with_front_matter<'a>(
    input: &'a str,
    opts: &ParseOptions,
) -> Result<(Vec<Message<'a>>, Option<JsonObject>), ParseError> {
    let mut front_matter = None;
    let messages = parse_document(input, opts, framing::Front::Keep(&mut front_matter))?;
    Ok((messages, front_matter))
}

/// [`parse`] for an mcp_agent_mail archive document (`---json` front
/// matter, then the body) whose envelope the caller holds already, with
/// its subject: a database row rendered as the archive file the server
/// writes for it, which the caller parses only for what the body and the
/// subject give (the type, bead, fields and sections) and then sets its
/// own envelope over. The front matter is passed over, not read (an mcp
/// root's load: about 11,000 instructions of a row's ~45,000 went to
/// reading back what the row had just written): the message has no id,
/// sender, recipients, thread, time, ack, importance or project, and
/// nothing in the front matter is checked (strict mode finds no fault
/// there; the caller wrote it). A
/// diagnostic about the subject points where [`parse`] points it when
/// `subject` is a slice of the front matter's text (a string written
/// without escapes), else at the `---json` line. Any other document
/// parses as [`parse`] parses it.
pub fn parse_archive_under<'a>(
    input: &'a str,
    subject: &'a str,
    opts: &ParseOptions,
) -> Result<Vec<Message<'a>>, ParseError> {
    parse_document(input, opts, framing::Front::Under(subject))
}

fn parse_document<'a>(
    input: &'a str,
    opts: &ParseOptions,
    front: framing::Front<'_, 'a>,
) -> Result<Vec<Message<'a>>, ParseError> {
    let doc = input.strip_prefix('\u{feff}').unwrap_or(input);
    // A document that opens with a visible ASCII byte (nearly every one)
    // holds something: decided without trimming it.
    let visible = doc.as_bytes().first().is_some_and(u8::is_ascii_graphic);
    if !visible && doc.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut lines = lines::DocLines::new();
    doc_lines(doc, &mut lines);
    let source = Source {
        text: doc,
        lines: &lines,
    };
    // Prose before the message, or a fence around it (see `decor`): the
    // framings read the lines inside; diagnostics still see every line.
    // The usual document opens with `Subject:`: decided once, for both.
    let subject_first = decor::opens_with_subject(&lines);
    let unwrapped = match subject_first {
        true => decor::Unwrap::Framing,
        false => decor::unwrap_document(doc, &lines, framing::header_kind, is_message_line),
    };
    let (frame, notes) = match &unwrapped {
        decor::Unwrap::Lines(u) => (&lines[u.start..u.end], &u.notes[..]),
        _ => (&lines[..], &[][..]),
    };
    // Messages are built straight into the list: a message is large (most
    // of a kilobyte), and moving it through return values showed in the
    // profile of small messages.
    let mut envelopes = Envelopes::One(Envelope::default());
    match (subject_first, &unwrapped) {
        (true, _) => framing::spec_text_document(frame, &mut envelopes),
        // A bare body's first line was found no header by the prose rule:
        // not asked again.
        (false, decor::Unwrap::Bare) => framing::bare_document(frame, &mut envelopes),
        // Prose before a `Subject:` line, or a fence around the message:
        // a frame that opens with `Subject:` is read as the usual document
        // is (`split_document` would find it the first non-blank line and
        // no framing's mark, and read the same spec text), through the
        // same code: one copy of the header loop in use, not two.
        (false, decor::Unwrap::Lines(_)) if decor::opens_with_subject(frame) => {
            framing::spec_text_document(frame, &mut envelopes)
        }
        (false, _) => framing::split_document(doc, frame, front, &mut envelopes),
    }
    if !notes.is_empty() {
        // Noted in place: an envelope is large, and moving it showed in
        // the profile of small messages.
        let note = |env: &mut Envelope<'a>| {
            env.make_room();
            for (i, message) in notes.iter().rev() {
                let line = &lines[*i];
                let column = line.column_of(trim::trim_start(line.text));
                let problem = (diag::Code::Normalised, line.no, column, message.clone());
                env.problems.insert(0, framing::diagnostic(problem));
            }
        };
        match &mut envelopes {
            Envelopes::One(env) => note(env),
            Envelopes::Many(envs) => envs.iter_mut().for_each(note),
        }
    }
    let mut out = Vec::with_capacity(match &envelopes {
        Envelopes::One(_) => 1,
        Envelopes::Many(envs) => envs.len(),
    });
    // Envelopes are handed on by reference and their values taken out
    // where the message needs them: an envelope is a few hundred bytes,
    // and each move of one was a copy in the profile of small messages.
    match &mut envelopes {
        Envelopes::One(env) => build(doc, source, frame, env, opts, &mut out)?,
        Envelopes::Many(envs) => {
            for env in envs {
                build(doc, source, frame, env, opts, &mut out)?;
            }
        }
    }
    Ok(out)
}

/// `bytes` as text when they are valid UTF-8: the one check every reader
/// of mail files makes before [`parse`], with SIMD (simdutf8): std's
/// `from_utf8` cost 4.7 M instructions on a 10.8 MB body, this 1.5 M
/// (callgrind, whole `amail parse`).
pub fn as_text(bytes: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(bytes).ok()
}

/// Parses raw bytes. Invalid UTF-8 is replaced (U+FFFD) and reported as a
/// diagnostic at the first bad byte; strict mode refuses it.
pub fn parse_bytes(input: &[u8], opts: &ParseOptions) -> Result<Vec<OwnedMessage>, ParseError> {
    // simdutf8's `compat` check: `as_text`'s speed on good text, and where
    // the first bad byte is on damaged text (rare), in one pass.
    match simdutf8::compat::from_utf8(input) {
        Ok(text) => Ok(parse(text, opts)?
            .into_iter()
            .map(Message::into_owned)
            .collect()),
        Err(e) => {
            let valid = &input[..e.valid_up_to()];
            let valid = std::str::from_utf8(valid).unwrap_or("");
            let line = valid.bytes().filter(|&b| b == b'\n').count() as u32 + 1;
            // Columns count from after a BOM, as `parse` strips it.
            let last = valid.rsplit('\n').next().unwrap_or("");
            let last = if line == 1 {
                last.strip_prefix('\u{feff}').unwrap_or(last)
            } else {
                last
            };
            let column = last.chars().count() as u32 + 1;
            let text = String::from_utf8_lossy(input);
            let lines = split_lines(&text, 1);
            let mut diags = Diags::new(
                opts.strict,
                Source {
                    text: &text,
                    lines: &lines,
                },
            );
            diags.push(
                diag::Code::InvalidUtf8,
                line,
                column,
                format!("invalid UTF-8 at byte {}", e.valid_up_to()),
            );
            // The bad byte is one problem among the others, in the file's
            // order: strict mode refuses the first of the file (a problem
            // before the bad byte wins), lenient mode lists it where it
            // stands.
            let parsed = parse(&text, opts);
            if let Some(bad_byte) = diags.first_strict {
                return Err(match parsed {
                    Err(e) if (e.line, e.column) < (line, column) => e,
                    _ => bad_byte,
                });
            }
            let mut msgs: Vec<OwnedMessage> =
                parsed?.into_iter().map(Message::into_owned).collect();
            for m in &mut msgs {
                let at = m
                    .diagnostics
                    .iter()
                    .position(|d| (d.line, d.column) > (line, column))
                    .unwrap_or(m.diagnostics.len());
                m.diagnostics.insert(at, diags.list[0].clone());
            }
            Ok(msgs)
        }
    }
}

/// A line a bare body is read from: a type line or a known label.
fn is_message_line(l: &Line<'_>) -> bool {
    // A label as the protocol spells it (`Bead: ol-1`, the usual first
    // line of a fenced body): a known label the field grammar reads,
    // decided by one compare (the type line's tests before the grammar
    // were ~200 instructions of such a line).
    if body::Label::opens_spelled(l.text) {
        return true;
    }
    let t = trim::trim(l.text);
    (t.len() <= 80 && may_be_type_line(t) && type_line(t).is_some())
        || decorated_type_line(t).is_some()
        || grammar::named_field_line(l.text, body::Label::lookup).is_some()
}

/// A bare type line at the top of a body (`HELP_RESPONSE`, `[ol-1] DONE`):
/// (type, token, bead, line index, what was read through when the line
/// was decorated or came after a line of prose).
type TypeLine<'a> = (
    MessageType,
    &'a str,
    Option<&'a str>,
    usize,
    Option<Note<'a>>,
);

fn body_type_line<'a>(body: &[Line<'a>]) -> Option<TypeLine<'a>> {
    let (idx, first) = body.iter().enumerate().find(|(_, l)| !l.is_blank())?;
    let t = trim::trim(first.text);
    if t.len() <= 80 && may_be_type_line(t) {
        if let Some((kind, raw, bead)) = type_line(t) {
            return Some((kind, raw, bead, idx, None));
        }
    }
    if let Some((kind, raw, bead)) = decorated_type_line(t) {
        let [a, b, c] = reads_as_type_line(kind, bead, false);
        let note = Note::join(&["type line `", t, a, b, c]);
        return Some((kind, raw, bead, idx, Some(note)));
    }
    // A line of prose first (`Here is my progress update:`), then the type.
    // The last byte tested as a byte (the marks are ASCII): a `char`
    // pattern decodes the last character of every first body line.
    let prose = matches!(t.as_bytes().last(), Some(b':' | b'.' | b'!'));
    if !prose || t.len() > 200 || is_message_line(first) {
        return None;
    }
    let (next_idx, next) = body
        .iter()
        .enumerate()
        .skip(idx + 1)
        .find(|(_, l)| !l.is_blank())?;
    let n = trim::trim(next.text);
    let (kind, raw, bead) = (n.len() <= 80 && may_be_type_line(n))
        .then(|| type_line(n))
        .flatten()
        .or_else(|| decorated_type_line(n))?;
    let (kept, cut) = decor::shorten(t);
    let [a, b, c] = plain_type_line(kind, bead, false);
    let note = Note::join(&[
        "prose before the type line (`",
        kept,
        cut,
        "`) is not part of the message; `",
        n,
        "` reads as `",
        a,
        b,
        c,
    ]);
    Some((kind, raw, bead, next_idx, Some(note)))
}

/// `[bead] TYPE`, as the protocol writes a type line (after `Re: ` for a
/// reply), and the backtick that closes it in a note: the three pieces a
/// note quotes it in (see [`Note`]; fewer pieces, a smaller note).
fn plain_type_line(kind: MessageType, bead: Option<&str>, reply: bool) -> [&str; 3] {
    let close = closing(kind);
    let bare = close.get(2..).unwrap_or(close);
    match (bead, reply) {
        (Some(b), false) => ["[", b, close],
        (Some(b), true) => ["Re: [", b, close],
        (None, false) => ["", "", bare],
        (None, true) => ["Re: ", "", bare],
    }
}

/// [`plain_type_line`] after "` reads as `", that text and the line's
/// first piece in one: a note of five pieces where it was six (see
/// [`Note::MAX_PIECES`]).
fn reads_as_type_line(kind: MessageType, bead: Option<&str>, reply: bool) -> [&str; 3] {
    let close = closing(kind);
    let bare = close.get(2..).unwrap_or(close);
    match (bead, reply) {
        (Some(b), false) => ["` reads as `[", b, close],
        (Some(b), true) => ["` reads as `Re: [", b, close],
        (None, false) => ["` reads as `", "", bare],
        (None, true) => ["` reads as `Re: ", "", bare],
    }
}

/// `] TYPE` and a backtick: what follows the bead of a type line quoted
/// in a note (from its third byte: the type alone).
fn closing(kind: MessageType) -> &'static str {
    match kind {
        MessageType::BeadAccepted => "] BEAD_ACCEPTED`",
        MessageType::Progress => "] PROGRESS`",
        MessageType::HelpRequest => "] HELP_REQUEST`",
        MessageType::HelpResponse => "] HELP_RESPONSE`",
        MessageType::OfferingReady => "] OFFERING_READY`",
        MessageType::Done => "] DONE`",
        MessageType::Failed => "] FAILED`",
        MessageType::Checkpoint => "] CHECKPOINT`",
        MessageType::SpawnRequest => "] SPAWN_REQUEST`",
        MessageType::SpawnAck => "] SPAWN_ACK`",
        MessageType::Unknown => "] UNKNOWN`",
    }
}

/// The note for a decorated subject read as `reply`, `bead` and `kind`
/// (what [`read_subject`] read through the decorations). Made here, not
/// by `read_subject`: its result, returned on every subject, stays small.
#[cold]
#[inline(never)]
fn subject_note<'a>(
    subject: &Cow<'a, str>,
    reply: bool,
    bead: Option<&Cow<'a, str>>,
    kind: Option<MessageType>,
) -> Note<'a> {
    fn note<'x>(subject: &'x str, bead: Option<&'x str>, k: MessageType, reply: bool) -> Note<'x> {
        let [a, b, c] = reads_as_type_line(k, bead, reply);
        Note::join(&["decorated subject `", subject, a, b, c])
    }
    let kind = kind.unwrap_or(MessageType::Unknown);
    match (subject, bead) {
        (Cow::Borrowed(s), None) => note(s, None, kind, reply),
        (Cow::Borrowed(s), Some(Cow::Borrowed(b))) => note(s, Some(b), kind, reply),
        // A JSON subject is the envelope's own text.
        _ => note(subject, bead.map(|b| &**b), kind, reply).into_owned(),
    }
}

/// A type line in decorations (`**[ol-1] DONE**`, `# ✅ DONE`,
/// `DONE ✅`): lines that cannot hold one cost a byte test or two.
fn decorated_type_line(t: &str) -> Option<(MessageType, &str, Option<&str>)> {
    let (first, last) = (*t.as_bytes().first()?, *t.as_bytes().last()?);
    let decorated =
        |b: u8| !b.is_ascii_alphanumeric() && !matches!(b, b'[' | b']' | b':' | b'.' | b'!');
    if t.len() > 120 || !(decorated(first) || decorated(last)) {
        return None;
    }
    decorated_type_line_rest(t)
}

/// [`decorated_type_line`] past its byte tests: out of line, so that
/// the plain message's first body line pays only those.
#[inline(never)]
fn decorated_type_line_rest(t: &str) -> Option<(MessageType, &str, Option<&str>)> {
    // A line that ends in an ASCII letter or digit (a decorated label,
    // `**Bead:** ol-1`, most of what reaches here) ends there once
    // stripped: no decoration is one. The stripped line is then a slice
    // of it with the same end, so with no `[` in the line and no type
    // token ending it, `may_be_type_line` refuses it too: decided
    // without the strip (~100 instructions a line).
    if t.as_bytes().last().is_some_and(u8::is_ascii_alphanumeric)
        && !MessageType::ends_with_token(t.as_bytes())
        && find::byte(t.as_bytes(), b'[').is_none()
    {
        return None;
    }
    let inner = decor::strip(t);
    // A decorated label (`**Bead:** ol-1`) is most of what reaches here.
    if inner.len() == t.len() || inner.is_empty() || !may_be_type_line(inner) {
        return None;
    }
    type_line(inner)
}

/// An exact shortcut before [`type_line`] (the subject parser is most of
/// its cost, on a first body line that is nearly always a field): false
/// only where `type_line` is `None`. The line must be the type, so with no
/// `[` after it the type token ends the line but for `:`, `.`, ` ` and `!`
/// (see `trailing` in `type_line`; the token never ends in one of those).
// Always inlined (four callers, and `#[inline]` left it a call): the
// call was ~15 instructions of the usual first body line's ~65.
#[inline(always)]
fn may_be_type_line(t: &str) -> bool {
    let b = t.as_bytes();
    let mut end = b.len();
    while end > 0 && matches!(b[end - 1], b':' | b'.' | b' ' | b'!') {
        end -= 1;
    }
    // The `[` a word at a time: core's `contains` tests a byte at a time
    // below 16 bytes, and a first body line is about that long.
    MessageType::ends_with_token(&b[..end]) || find::byte(b, b'[').is_some()
}

/// `t` (trimmed) as a whole type line: type, its token, and a bead id.
fn type_line(t: &str) -> Option<(MessageType, &str, Option<&str>)> {
    let s = subject::parse_subject(t);
    let kind = s.kind?;
    // The whole line must be the type (and bead), not prose starting with it.
    let raw = s.raw_type?;
    let rest = t.len() - (raw.as_ptr() as usize - t.as_ptr() as usize) - raw.len();
    let trailing = t[t.len() - rest..].trim_start_matches([':', '.', ' ', '!']);
    (trailing.is_empty() || trailing.starts_with('[')).then_some((kind, raw, s.bead))
}

/// The column of an unknown type token inside a subject written in the
/// document (`Subject: [ol-1] NUDGE` points at `NUDGE`); the subject's own
/// column when the token is not a slice of it (JSON subjects).
fn unknown_token_column(subject: &framing::At<'_>, raw: Option<&Cow<'_, str>>) -> u32 {
    if let (Cow::Borrowed(value), Some(Cow::Borrowed(token))) = (&subject.value, raw) {
        let offset = (token.as_ptr() as usize).wrapping_sub(value.as_ptr() as usize);
        if let Some(before) = value.get(..offset) {
            return subject.column + before.chars().count() as u32;
        }
    }
    subject.column
}

/// The subject's parts (reply, bead, type, token), read through
/// decorations when the plain grammar finds no type; then also the byte
/// offset of the first decoration (see [`subject_note`]).
#[allow(clippy::type_complexity)]
fn read_subject<'s>(
    subject: &'s str,
) -> (
    (
        bool,
        Option<Cow<'s, str>>,
        Option<MessageType>,
        Option<Cow<'s, str>>,
    ),
    Option<usize>,
) {
    let p = subject::parse_subject(subject);
    let (p, decorated) = match p.kind {
        Some(_) => (p, None),
        None => match subject::parse_decorated(subject) {
            Some((d, offset)) => (d, Some(offset)),
            None => (p, None),
        },
    };
    (
        (
            p.is_reply,
            p.bead.map(Cow::Borrowed),
            p.kind,
            p.raw_type.map(Cow::Borrowed),
        ),
        decorated,
    )
}

/// Whether a fenced JSON body under `subject` may be read directly (see
/// `json_body`): its type is one whose fields are all read from labels
/// and sections. A HELP_RESPONSE's guidance is the body's own text (the
/// markdown the fields are written out as), and a reply to a
/// HELP_REQUEST may be one; a subject with no type leaves it to the body.
fn reads_fields_only(subject: &str) -> bool {
    let ((reply, _, kind, _), _) = read_subject(subject);
    match kind {
        None | Some(MessageType::HelpResponse | MessageType::Unknown) => false,
        Some(MessageType::HelpRequest) => !reply,
        Some(_) => true,
    }
}

/// A body that carries a HELP_REQUEST's own fields.
fn is_request_body(body: &Body<'_, '_>) -> bool {
    body.top(body::Label::IssueType).is_some()
        || body.has_section(body::SectionKind::Problem)
        || body.has_section(body::SectionKind::Question)
}

/// Guesses a type from the fields a bare body carries.
fn infer_type(body: &Body<'_, '_>) -> Option<MessageType> {
    use body::{Label, SectionKind};
    let has = |l: Label| body.top(l).is_some();
    let sec = |k: SectionKind| body.has_section(k);
    Some(if has(Label::AcceptedBead) {
        MessageType::BeadAccepted
    } else if has(Label::IssueType) {
        MessageType::HelpRequest
    } else if sec(SectionKind::Failure) {
        MessageType::Failed
    } else if sec(SectionKind::NextSteps) {
        MessageType::Checkpoint
    } else if sec(SectionKind::SelfValidation) || sec(SectionKind::Changes) {
        MessageType::OfferingReady
    } else if has(Label::Issue) && has(Label::Session) {
        MessageType::SpawnAck
    } else if has(Label::Issue) {
        MessageType::SpawnRequest
    } else if has(Label::Step) || has(Label::ContextUsage) {
        MessageType::Progress
    } else {
        return None;
    })
}

/// Adds the message of `env` to `out`; strict mode's first refused problem
/// is the error instead.
fn build<'a>(
    doc: &'a str,
    source: Source<'_>,
    frame_lines: &[Line<'a>],
    env: &mut Envelope<'a>,
    opts: &ParseOptions,
    out: &mut Vec<Message<'a>>,
) -> Result<(), ParseError> {
    // The body is taken out of the envelope (not cloned): `assemble` wants
    // the envelope without it, and copying the envelope and its body lines
    // per message was a measurable share of a small message's cost.
    //
    // A message whose text borrows from the document is built in place,
    // in its slot at the end of `out`: a message is most of a kilobyte,
    // and building it aside and moving it in (with its `Parsed` moved into
    // it first) was two copies of it in the profile of small messages.
    let err = match env.body.take() {
        Some(BodySource::Owned(text)) => {
            // JSON bodies were unescaped into a string of their own.
            let at = diag::BodyAt {
                line: env.line,
                literal: env.body_literal,
            };
            assemble_detached(&text, source, env, at, None, opts, out)
        }
        Some(BodySource::Lines { head: None, rest }) => {
            let body_lines = BodyLines::new(frame_lines.get(rest).unwrap_or(&[]));
            match (&env.subject, body_lines.fenced) {
                (Some(_), Some(fenced)) => {
                    build_fenced(doc, source, body_lines, fenced, env, opts, out)
                }
                _ => assemble(doc, source, body_lines, env, None, opts, slot(out)),
            }
        }
        Some(BodySource::Lines {
            head: Some(head),
            rest,
        }) => {
            // The text after `Body:` on its line, then whole lines: copied
            // into a list of their own, as they are not one run of the
            // document's lines.
            let rest = frame_lines.get(rest).unwrap_or(&[]);
            let body_lines: Vec<Line<'a>> =
                std::iter::once(head).chain(rest.iter().copied()).collect();
            let body_lines = BodyLines::new(&body_lines);
            assemble(doc, source, body_lines, env, None, opts, slot(out))
        }
        None => assemble(doc, source, BodyLines::new(&[]), env, None, opts, slot(out)),
    };
    // In strict mode the message is not wanted: the caller drops the list.
    err.map_or(Ok(()), Err)
}

/// [`build`] of a body wrapped whole in a fenced block (`fenced`: the
/// opening fence's index and the lines inside): one JSON object of the
/// fields (see `json_body`), else a body like any other. Out of line: the
/// usual body is not fenced.
#[cold]
#[inline(never)]
fn build_fenced<'a>(
    doc: &'a str,
    source: Source<'_>,
    body_lines: BodyLines<'_, 'a>,
    (open, inner): (usize, &[Line<'a>]),
    env: &mut Envelope<'a>,
    opts: &ParseOptions,
    out: &mut Vec<Message<'a>>,
) -> Option<ParseError> {
    // A fenced markdown body (most fenced bodies) holds no JSON object:
    // read like any other without the subject read for the direct
    // reading's test and its places made and dropped (~400 instructions).
    if !json_body::opens_object(inner) {
        return assemble(doc, source, body_lines, env, None, opts, slot(out));
    }
    let allowed = env
        .subject
        .as_ref()
        .is_some_and(|s| reads_fields_only(&s.value));
    let mut direct = body::Direct::default();
    let Some(json) = json_body::read(doc, inner, allowed.then_some(&mut direct)) else {
        return assemble(doc, source, body_lines, env, None, opts, slot(out));
    };
    // The body text stays as written.
    let fence = &body_lines.all[open];
    env.problem((
        diag::Code::Normalised,
        fence.no,
        fence.column_of(trim::trim_start(fence.text)),
        "the body is one fenced JSON object; its keys read as the message's fields".into(),
    ));
    match json {
        json_body::JsonBody::Direct => {
            let body_lines = BodyLines {
                direct: Some(&direct),
                json_fields: true,
                ..body_lines
            };
            assemble(doc, source, body_lines, env, None, opts, slot(out))
        }
        // Read against the fields written out as markdown, detached like
        // a JSON framing's body.
        json_body::JsonBody::Markdown(text) => {
            let body = whole_text(doc, body_lines.all);
            let at = diag::BodyAt {
                line: fence.no,
                literal: None,
            };
            assemble_detached(&text, source, env, at, Some(body), opts, out)
        }
    }
}

/// Adds to `out` the message of `env` whose fields are read from `text`,
/// a string of their own (a JSON framing's unescaped body, a fenced JSON
/// body's fields as markdown), with positions reported where `at` says
/// in the document; detached, since nothing can borrow from `text`. `body`,
/// when given, is the body text as written, in place of `text`'s (the
/// made-up markdown is dropped before detaching, not copied).
fn assemble_detached<'a>(
    text: &str,
    source: Source<'_>,
    env: &mut Envelope<'a>,
    at: diag::BodyAt,
    body: Option<Cow<'a, str>>,
    opts: &ParseOptions,
    out: &mut Vec<Message<'a>>,
) -> Option<ParseError> {
    let mut lines = lines::DocLines::new();
    doc_lines(text, &mut lines);
    // The envelope's values that the message only carries (no rule reads
    // them) stay out of the detached message and go back in after it, as
    // borrowed as they came: copied by `into_owned` and freed with the
    // message, they were most of detaching a fenced JSON body's message.
    let carried = (
        env.id.take(),
        env.from.take(),
        std::mem::take(&mut env.to),
        std::mem::take(&mut env.cc),
        env.thread_id.take(),
        env.importance.take(),
        env.project.take(),
    );
    let subject = env.subject.as_ref().map(|s| s.value.clone());
    // Moved out: the message borrows from `text`, which the envelope,
    // borrowing from the document, outlives.
    let mut env = std::mem::take(env);
    let mut m = Message::empty();
    let lines = match body {
        // A fenced JSON body's fields (the body as written given apart):
        // the made-up text opens with a label or a heading, never a fence.
        Some(_) => BodyLines {
            all: &lines,
            fenced: None,
            json_fields: true,
            direct: None,
        },
        None => BodyLines::new(&lines),
    };
    let err = assemble(text, source, lines, &mut env, Some(at), opts, &mut m);
    m.subject = Cow::Borrowed("");
    m.importance = Cow::Borrowed("");
    if body.is_some() {
        // The made-up body is replaced: not copied by `into_owned`.
        m.body = Cow::Borrowed("");
    }
    // Detached, then as borrowed from the document as the envelope is.
    let mut m: Message<'a> = m.into_owned();
    if let Some(body) = body {
        m.body = body;
    }
    let (id, from, to, cc, thread_id, importance, project) = carried;
    m.id = id;
    m.from = from;
    m.to = to;
    m.cc = cc;
    m.thread_id = thread_id;
    m.importance = importance.unwrap_or(Cow::Borrowed("normal"));
    m.project = project;
    m.subject = subject.unwrap_or(Cow::Borrowed(""));
    out.push(m);
    err
}

/// A body's lines, and the fenced block that wraps them whole when one
/// does ([`decor::fenced_whole`]): looked for once, where both the fenced
/// JSON rule and the fenced markdown rule read it.
#[derive(Clone, Copy)]
struct BodyLines<'l, 'a> {
    all: &'l [Line<'a>],
    /// The opening fence's index and the lines inside.
    fenced: Option<(usize, &'l [Line<'a>])>,
    /// The body is a fenced JSON object's fields (see `json_body`): no
    /// type line, no sections (see [`Body::sectionless`]).
    json_fields: bool,
    /// The fields of a simple fenced JSON object, read directly.
    direct: Option<&'l body::Direct<'a>>,
}

impl<'l, 'a> BodyLines<'l, 'a> {
    fn new(all: &'l [Line<'a>]) -> Self {
        // A body whose first line opens with a letter (a field, nearly
        // every body) opens with no fence: decided here, without the call.
        let opens_with_letter = all
            .first()
            .and_then(|l| l.text.as_bytes().first())
            .is_some_and(u8::is_ascii_alphabetic);
        BodyLines {
            all,
            fenced: if opens_with_letter {
                None
            } else {
                decor::fenced_whole(all)
            },
            json_fields: false,
            direct: None,
        }
    }
}

/// Writes `v` into a field of a message made by [`Message::empty`] and
/// not written yet, whose value there owns nothing (`None`, an empty list,
/// a borrowed text): the old value is not dropped, so no test of it is
/// compiled (~4 instructions a field, a dozen fields a message). Were it
/// ever to own an allocation, that would leak, never be freed twice.
#[inline(always)]
fn fill<T>(field: &mut T, v: T) {
    std::mem::forget(std::mem::replace(field, v));
}

/// A new empty message at the end of `out`, to be filled in place.
/// (`resize_with` makes it after the room is found, so it is written
/// straight into the list; `push` took it made, on the stack, and copied
/// it in.)
fn slot<'m, 'a>(out: &'m mut Vec<Message<'a>>) -> &'m mut Message<'a> {
    out.resize_with(out.len() + 1, Message::empty);
    let last = out.len() - 1;
    &mut out[last]
}

/// `doc` holds the body's text: the document (`body_at` `None`), or text
/// of its own (a JSON framing's unescaped body, a fenced JSON body's
/// fields), whose positions are then reported where `body_at` says in the
/// document (in a JSON body's literal, else at the message's line or the
/// fence's). The message is written into
/// `m` (empty on entry, see [`Message::empty`]); strict mode's first
/// refused problem is returned.
fn assemble<'a>(
    doc: &'a str,
    source: Source<'_>,
    body_lines: BodyLines<'_, 'a>,
    env: &mut Envelope<'a>,
    body_at: Option<diag::BodyAt>,
    opts: &ParseOptions,
    m: &mut Message<'a>,
) -> Option<ParseError> {
    let mut d = Diags::new(opts.strict, source);
    if let Some(at) = body_at {
        d.body_outside_document(at);
    }
    d.adopt(std::mem::take(&mut env.problems));

    let subject_text: Cow<'a, str> = env
        .subject
        .as_ref()
        .map(|s| s.value.clone())
        .unwrap_or(Cow::Borrowed(""));
    let subj = env.subject.as_ref().map(|s| {
        let (p, decorated) = match &s.value {
            Cow::Borrowed(b) => read_subject(b),
            // A JSON subject is owned by the envelope: its parts are copied.
            Cow::Owned(o) => {
                let (p, decorated) = read_subject(o);
                (
                    (
                        p.0,
                        p.1.map(|b| Cow::Owned(b.into_owned())),
                        p.2,
                        p.3.map(|r| Cow::Owned(r.into_owned())),
                    ),
                    decorated,
                )
            }
        };
        if let Some(offset) = decorated {
            let column = s.column + s.value[..offset].chars().count() as u32;
            let note = subject_note(&s.value, p.0, p.1.as_ref(), p.2);
            d.push(diag::Code::Normalised, s.line, column, note);
        }
        p
    });
    let (is_reply, subject_bead, subject_kind, subject_raw) =
        subj.unwrap_or((false, None, None, None));

    // A body wrapped whole in one fenced block (```` ```markdown ````) is
    // read inside it; the body text stays as written.
    let body_lines_json = body_lines.json_fields;
    let direct = body_lines.direct;
    let raw_body_lines = body_lines.all;
    let body_lines = match body_lines.fenced {
        Some((open, inner))
            if inner
                .iter()
                .find(|l| !l.is_blank())
                .is_some_and(is_message_line) =>
        {
            let fence = &raw_body_lines[open];
            d.normalised(
                fence,
                fence.text.trim_start(),
                "the body is wrapped in a fenced code block; read as the text inside it",
            );
            inner
        }
        _ => raw_body_lines,
    };

    // A fenced JSON body has no type line: its fields are not looked at
    // as one (the direct reading has no lines; none of the fields written
    // out as markdown could be one either, as no label is bead-shaped).
    let mut type_line = if body_lines_json {
        None
    } else {
        body_type_line(body_lines)
    };
    if let Some((_, _, _, idx, note)) = &mut type_line {
        if let Some(note) = note.take() {
            let line = &body_lines[*idx];
            d.normalised(line, trim::trim_start(line.text), note);
        }
    }
    // The body after a leading type line is what the fields come from.
    let fields_from = match type_line {
        Some((_, _, _, idx, _)) => &body_lines[idx + 1..],
        None => body_lines,
    };
    // Filled where it is kept: returned from a `match`, the index (most
    // of a kilobyte) was copied, ~110 instructions a message.
    let mut index = Body::new(doc, fields_from);
    index.sectionless = body_lines_json;
    match direct {
        Some(direct) => index.read_json(direct),
        None => index.read(&mut d),
    }

    let (kind, raw_type): (MessageType, Option<Cow<'a, str>>) = match (subject_kind, &type_line) {
        // `Re: [x] HELP_REQUEST` is an answer in a help thread, not a new
        // request: the body's own type line decides, else it is a response,
        // unless the body carries the request's own fields (`Issue Type:`,
        // `## Problem`, `## Question`): then it is the requester's
        // follow-up to its own request, still a request.
        (Some(_), Some((k, raw, _, _, _))) if is_reply => (*k, Some(Cow::Borrowed(*raw))),
        (Some(MessageType::HelpRequest), None) if is_reply && !is_request_body(&index) => (
            MessageType::HelpResponse,
            Some(Cow::Borrowed(MessageType::HelpResponse.as_str())),
        ),
        (Some(k), _) => (k, subject_raw.clone()),
        (None, Some((k, raw, _, _, _))) => (*k, Some(Cow::Borrowed(*raw))),
        (None, None) => match infer_type(&index) {
            Some(k) if env.subject.is_none() => {
                let message = format!("no type given; {k} inferred from the body's fields");
                match body_lines.first() {
                    Some(l) => d.push_body(diag::Code::TypeInferred, l.no, 1, message),
                    None => d.push(diag::Code::TypeInferred, env.line, 1, message),
                }
                (k, Some(Cow::Borrowed(k.as_str())))
            }
            _ => (MessageType::Unknown, subject_raw.clone()),
        },
    };
    // `raw_type` is canonical for a known type (`done`, `help-request` are
    // DONE, HELP_REQUEST); only an unknown token keeps its spelling.
    let raw_type = match kind {
        MessageType::Unknown => raw_type,
        k => Some(Cow::Borrowed(k.as_str())),
    };
    match (&env.subject, kind) {
        (None, _) if type_line.is_none() => {
            let plain = "no subject line and no type line";
            // A header that is nearly `Subject:` is named: "no subject
            // line" alone sends the writer to a line that looks right.
            let near = match body_at {
                None => framing::near_subject(source.lines, env.line),
                Some(_) => None,
            };
            let message: Note<'a> = match near {
                Some((name, no)) => {
                    format!("{plain} (`{name}:` on line {no} is not `Subject:`)").into()
                }
                None => plain.into(),
            };
            match body_lines.first() {
                Some(l) => d.push_body(diag::Code::NoSubject, l.no, 1, message),
                None => d.push(diag::Code::NoSubject, env.line, 1, message),
            }
        }
        (Some(s), MessageType::Unknown) => d.push(
            diag::Code::UnknownType,
            s.line,
            unknown_token_column(s, raw_type.as_ref()),
            match &raw_type {
                Some(r) => format!(
                    "`{r}` is not a protocol message type{}",
                    near::did_you_mean(MessageType::nearest(r).map(|k| k.as_str()))
                ),
                None => format!("subject `{}` names no protocol message type", s.value),
            },
        ),
        _ => {}
    }

    let line_bead = type_line.and_then(|(_, _, b, _, _)| b).map(Cow::Borrowed);
    let outer_bead = subject_bead.or(line_bead);
    let parsed = &mut m.parsed;
    extract::extract(kind, &index, outer_bead.as_deref(), &mut d, parsed);
    let body_bead = parsed.bead_id.clone();
    match (&body_bead, &outer_bead) {
        (Some(b), Some(s)) if b != s => {
            if let Some(h) = index
                .top(body::Label::Bead)
                .or(index.top(body::Label::AcceptedBead))
            {
                let line = index.line(&h);
                d.at(
                    diag::Code::BeadMismatch,
                    line,
                    h.value,
                    format!("body says bead `{b}` but the subject says `{s}`"),
                );
            }
        }
        (None, Some(s)) => parsed.bead_id = Some(s.clone()),
        _ => {}
    }

    let timestamp = env.timestamp.as_ref().and_then(|t| {
        let v = parse_timestamp(&t.value);
        if v.is_none() {
            d.push(
                diag::Code::BadTimestamp,
                t.line,
                t.column,
                format!("`{}` is not a timestamp", t.value),
            );
        }
        v
    });

    d.finish(body_lines.last().map_or(env.line, Line::last_no));
    let body = whole_text(doc, raw_body_lines);
    let first_strict = d.first_strict.take();
    fill(&mut m.id, env.id.take());
    m.kind = kind;
    fill(&mut m.raw_type, raw_type);
    m.is_reply = is_reply;
    fill(&mut m.subject, subject_text);
    fill(&mut m.from, env.from.take());
    fill(&mut m.to, std::mem::take(&mut env.to));
    fill(&mut m.cc, std::mem::take(&mut env.cc));
    fill(&mut m.thread_id, env.thread_id.take());
    fill(&mut m.timestamp, timestamp);
    m.ack_required = env.ack_required.unwrap_or(kind.ack_required_by_spec());
    fill(
        &mut m.importance,
        env.importance.take().unwrap_or(Cow::Borrowed("normal")),
    );
    fill(&mut m.body, body);
    fill(&mut m.diagnostics, d.list);
    fill(&mut m.project, env.project.take());
    m.line = env.line;
    first_strict
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A type line's note in five pieces says what the six said.
    #[test]
    fn type_lines_read_as_in_six_pieces() {
        let kinds = MessageType::KNOWN.into_iter().chain([MessageType::Unknown]);
        for kind in kinds {
            for bead in [None, Some("ol-7")] {
                for reply in [false, true] {
                    let [a, b, c] = plain_type_line(kind, bead, reply);
                    let [ra, rb, rc] = reads_as_type_line(kind, bead, reply);
                    assert_eq!(
                        Note::join(&["type line `", "x", ra, rb, rc]),
                        Note::join(&["type line `", "x", "` reads as `", a, b, c]),
                    );
                }
            }
        }
    }

    /// `doc` parsed leniently and strictly, split with runs of inert lines
    /// (see `lines`) or without, whatever its size.
    fn parsed_with_runs(doc: &str, runs: bool) -> [String; 2] {
        lines::FORCE_RUNS.with(|f| f.set(Some(runs)));
        let out = [false, true].map(|strict| format!("{:?}", parse(doc, &ParseOptions { strict })));
        lines::FORCE_RUNS.with(|f| f.set(None));
        out
    }

    /// Whether splitting `doc` with runs gathers any lines into one.
    fn has_runs(doc: &str) -> bool {
        lines::FORCE_RUNS.with(|f| f.set(Some(true)));
        let mut lines = lines::DocLines::new();
        doc_lines(doc, &mut lines);
        let runs = lines.iter().any(|l| l.more > 0);
        lines::FORCE_RUNS.with(|f| f.set(None));
        runs
    }

    /// Every fixture reads the same, messages and diagnostics, split with
    /// runs or without; and runs are made in many of them, so the
    /// comparison compares something.
    #[test]
    fn fixtures_read_alike_with_and_without_runs() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let (mut docs, mut with_runs) = (0, 0);
        for dir in ["golden", "agents", "malformed"] {
            let mut paths: Vec<_> = std::fs::read_dir(root.join(dir))
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            paths.sort();
            for path in paths {
                let Ok(doc) = std::fs::read_to_string(&path) else {
                    continue;
                };
                let doc = doc.strip_prefix('\u{feff}').unwrap_or(&doc);
                // As written, and with inert lines after every line (a log
                // item, long prose, an empty line), where runs form.
                let end = if doc.contains("\r\n") { "\r\n" } else { "\n" };
                let inert = [
                    "- 10:00:01 run 1: ok, 42 tests",
                    "Implemented the token refresh path with retries and a jittered backoff.",
                    "",
                    "+ 3 files: a, b",
                    "- 10:00:02 run 2: ok",
                ]
                .map(|l| format!("{l}{end}"))
                .concat();
                let interleaved: String = doc
                    .split_inclusive('\n')
                    .map(|l| format!("{l}{inert}"))
                    .collect();
                for doc in [doc, &interleaved] {
                    assert_eq!(
                        parsed_with_runs(doc, true),
                        parsed_with_runs(doc, false),
                        "{}",
                        path.display()
                    );
                    docs += 1;
                    with_runs += usize::from(has_runs(doc));
                }
            }
        }
        assert!(
            docs > 500 && with_runs > 200,
            "{docs} documents, {with_runs} with runs"
        );
    }

    proptest::proptest! {
        /// A decorated type line is read as its stripped reading always
        /// read it (the strip, then `may_be_type_line` and `type_line`):
        /// the shortcut for a line that ends in a letter or digit refuses
        /// only what that reading refuses.
        #[test]
        fn decorated_type_lines_read_as_stripped(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "**", "*", "_", "`", "# ", "> ", "~", "|", " ", "\t", "✅ ", "🚧", "[ol-7]", "[", "]",
                "DONE", "done", "PROGRESS", "Progress", "HELP_REQUEST", "help-request", "OFFERING READY",
                "Bead:", " ol-1", "ol-7", "x", "1", ":", ".", "!", "é", "Re: ", "Status",
            ]), 1..8),
        ) {
            let t: String = parts.concat();
            fn stripped(t: &str) -> Option<(MessageType, &str, Option<&str>)> {
                let inner = decor::strip(t);
                if inner.len() == t.len() || inner.is_empty() || !may_be_type_line(inner) {
                    return None;
                }
                type_line(inner)
            }
            proptest::prop_assert_eq!(decorated_type_line_rest(&t), stripped(&t));
        }
    }

    proptest::proptest! {
        // The rules that walk past a document's first lines (prose before
        // the message, a file list) need a few lines in a row to meet a
        // run: more cases than the default find them.
        #![proptest_config(proptest::test_runner::Config::with_cases(2000))]

        /// Documents of lines every rule reads and lines none reads, mixed:
        /// the same messages and diagnostics with runs or without.
        #[test]
        fn documents_read_alike_with_and_without_runs(
            lines in proptest::collection::vec(proptest::sample::select(vec![
                "", "", "   ", "- 10:00:01 run 1: ok, 42 tests", "+ 3 files: a, b", "- 1.rs (new)",
                "- 10:00:02 run 2: ok", "- ./b.rs", "- 2 DONE", "- 3.rs", "+ 4 more", "- 5 (new)",
                "Implemented the token refresh path with retries and a jittered backoff, see notes.",
                "Here is the long progress update that I promised you all earlier today, as agreed:",
                "Implemented the token refresh path with retries and a jittered backoff: see notes.",
                "Progress [a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j]",
                "Subject: [ol-1] PROGRESS", "Subject: [ol-1] HELP_REQUEST", "Body:", "Body: first",
                "From: a", "Bead: ol-1", "Bead: ol-2", "Step: 2", "Context usage: 45%",
                "Files touched:", "Files:", "- src/a.rs", "src/b.rs", "Status: ok", "**Bead:** ol-1",
                "## Summary", "## Files Touched", "### Problem", "## Question", "## Log", "Problem:",
                "```", "```json", "{\"bead\": \"ol-1\"}", "DONE", "PROGRESS", "Here is my update:",
                "---json", "---", "Issue Type: STUCK", "- [x] Tests: PASS", "## Next Steps",
            ]), 0..40),
            crlf in proptest::bool::ANY,
            blanks in proptest::collection::vec(proptest::bool::ANY, 40),
        ) {
            let end = if crlf { "\r\n" } else { "\n" };
            let doc: String = lines
                .iter()
                .zip(&blanks)
                .map(|(l, b)| format!("{l}{}{end}", if *b && !l.is_empty() { " " } else { "" }))
                .collect();
            proptest::prop_assert_eq!(parsed_with_runs(&doc, true), parsed_with_runs(&doc, false));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(500))]

        /// Lines of every kind of first byte (the bytes a rule reads a
        /// line by, and others), of lengths about the long-prose limit,
        /// with a colon about where a label could end, woven into a long
        /// body of inert lines: the same messages and diagnostics with
        /// runs (and `lines::Open::skip` taking their inert lines in) or
        /// without.
        #[test]
        fn lines_of_every_first_byte_read_alike_with_and_without_runs(
            lines in proptest::collection::vec((
                proptest::sample::select(vec![
                    "- 1", "+ 2", "- a", "-", "- ", "* ", "1. ", "#", "## ", "```", "~~~", ">", "|",
                    "_", "[", "`", "**", " ", "\t", "A", "Bead", "Status", "Files", "é", "🧩 ", "(",
                ]),
                0usize..80,
                proptest::option::of(0usize..80),
                0usize..4,
                proptest::sample::select(vec!["\n", "\r\n", " \n", "\t\r\n"]),
            ), 0..24),
            crlf in proptest::bool::ANY,
        ) {
            let end = if crlf { "\r\n" } else { "\n" };
            let inert = [
                "- 10:00:01 run 1: ok, 42 tests",
                "Implemented the token refresh path with retries and a jittered backoff, see notes.",
            ];
            let mut doc = format!("Subject: [ol-1] PROGRESS{end}Body:{end}Bead: ol-1{end}{end}## Log{end}");
            for (i, (head, len, colon, after, ending)) in lines.iter().enumerate() {
                doc.push_str(&crate::lines::tests::probe_line(head, 'y', *len, *colon));
                doc.push_str(ending);
                for k in 0..*after {
                    doc.push_str(inert[(i + k) % 2]);
                    doc.push_str(if k == 1 { ending } else { end });
                }
            }
            proptest::prop_assert_eq!(parsed_with_runs(&doc, true), parsed_with_runs(&doc, false));
        }
    }

    proptest::proptest! {
        /// The shortcut never rules out a line the subject parser would
        /// take as a type line.
        #[test]
        fn type_line_shortcut_is_exact(
            t in "(Re: |\\[|\\]|[a-z0-9._/-]{1,8}|done|DONE|Help|_|-|request|progress|Spawn ack|[:.,;! ]|é){0,6}"
        ) {
            let t = trim::trim(&t);
            if type_line(t).is_some() {
                proptest::prop_assert!(may_be_type_line(t));
            }
        }

        #[test]
        fn type_line_shortcut_is_exact_on_any_text(t in "\\PC{0,40}") {
            let t = trim::trim(&t);
            if type_line(t).is_some() {
                proptest::prop_assert!(may_be_type_line(t));
            }
        }
    }

    #[test]
    fn a_type_line_is_quoted_as_the_protocol_writes_it() {
        for kind in MessageType::KNOWN.into_iter().chain([MessageType::Unknown]) {
            assert_eq!(closing(kind), format!("] {kind}`"));
            for (bead, reply, plain) in [
                (Some("ol-1"), false, format!("[ol-1] {kind}`")),
                (Some("ol-1"), true, format!("Re: [ol-1] {kind}`")),
                (None, false, format!("{kind}`")),
                (None, true, format!("Re: {kind}`")),
            ] {
                assert_eq!(plain_type_line(kind, bead, reply).concat(), plain);
            }
        }
    }

    #[test]
    fn type_lines_pass_the_shortcut() {
        for t in [
            "DONE",
            "[ol-1] DONE",
            "help request!",
            "PROGRESS [x]",
            "Re: Spawn-Ack:",
            "done .",
        ] {
            assert!(type_line(t).is_some(), "{t}");
            assert!(may_be_type_line(t), "{t}");
        }
        assert!(!may_be_type_line("Bead: ol-527.1"));
    }
}
