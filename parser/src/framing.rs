//! Framings: how a document carries its messages. Detected in this order:
//! mcp_agent_mail archive (`---json` front matter), JSON (object, array,
//! `{"result": [...]}`, JSON Lines), spec text (`Subject:` headers and
//! `Body:`), and finally a bare body.
//!
//! A framing yields [`Envelope`]s: header values plus where the body is.
//! Text framings point into the document so the body stays borrowed; JSON
//! bodies had escapes removed and are owned.

use crate::json_keys::{BODY_KEYS, MESSAGE_KEYS, SUBJECT_KEYS, TIMESTAMP_KEYS, WRAPPER_KEYS};
use std::borrow::Cow;
use std::ops::Range;

use serde_json::{Map, Value};

use crate::decor;
use crate::diag::Code;
use crate::json_fields::{first_of, Field, FrontMatter, Written};
use crate::json_pos;
use crate::lines::{physical, Line};
use crate::model::{Diagnostic, Names, Note};
use crate::trim::trim;

/// A header value and the line/column where it was written (for diagnostics).
#[derive(Debug, Clone, Default)]
pub(crate) struct At<'a> {
    pub value: Cow<'a, str>,
    pub line: u32,
    pub column: u32,
}

impl<'a> At<'a> {
    fn new(value: impl Into<Cow<'a, str>>, line: u32, column: u32) -> Self {
        At {
            value: value.into(),
            line,
            column,
        }
    }
}

/// Where the body of a message is.
#[derive(Debug)]
pub(crate) enum BodySource<'a> {
    /// Lines `rest` (indices into the document's lines), after `head` when
    /// there is one: the text after a `Body:` label on its own line, which is
    /// a part of a document line rather than a whole one. A range rather
    /// than a copy of the lines: most bodies are the document's tail.
    Lines {
        head: Option<Line<'a>>,
        rest: Range<usize>,
    },
    /// Text unescaped from JSON; its positions count from its own line 1.
    Owned(String),
}

/// The framing-level part of one message.
#[derive(Debug, Default)]
pub(crate) struct Envelope<'a> {
    pub id: Option<Cow<'a, str>>,
    pub subject: Option<At<'a>>,
    pub from: Option<Cow<'a, str>>,
    pub to: Names<'a>,
    pub cc: Names<'a>,
    pub thread_id: Option<Cow<'a, str>>,
    pub timestamp: Option<At<'a>>,
    pub ack_required: Option<bool>,
    pub importance: Option<Cow<'a, str>>,
    pub project: Option<Cow<'a, str>>,
    pub body: Option<BodySource<'a>>,
    /// Problems found in the framing itself, made as the message's
    /// diagnostics: the list becomes the message's own
    /// (`Diags::adopt`), not copied into a second one made for it (an
    /// allocation and a free more for every message with such a problem:
    /// prose before it, a fence around it, decorated headers).
    pub problems: Vec<Diagnostic<'a>>,
    pub line: u32,
    /// A JSON body's string literal in the document (bytes, quotes
    /// included), where its positions are written.
    pub body_literal: Option<json_pos::Literal>,
}

/// One problem of an envelope: (code, line, column, message).
pub(crate) type Problem<'a> = (Code, u32, u32, Note<'a>);

/// `p` as the diagnostic `Diags::push` makes of it.
pub(crate) fn diagnostic((code, line, column, message): Problem<'_>) -> Diagnostic<'_> {
    Diagnostic {
        severity: code.severity(),
        line,
        column,
        code: Cow::Borrowed(code.as_str()),
        message,
    }
}

impl<'a> Envelope<'a> {
    /// Adds a problem, the list made at its first room first (see
    /// [`Envelope::make_room`]).
    #[inline]
    pub(crate) fn problem(&mut self, p: Problem<'a>) {
        self.make_room();
        self.problems.push(diagnostic(p));
    }

    /// Adds a problem to the list as it is.
    fn push_problem(&mut self, p: Problem<'a>) {
        self.problems.push(diagnostic(p));
    }

    /// Room for a decorated envelope's few problems at once, in at most
    /// 1 KiB (glibc's per-thread cache; see `Diags::make_room`): grown one
    /// push at a time, the list was made by the growth path and made again
    /// at the fifth (two decorated header labels' ~600 instructions of
    /// five, `done__bullet_headers`).
    #[inline]
    pub(crate) fn make_room(&mut self) {
        if self.problems.capacity() == 0 {
            self.first_room();
        }
    }

    #[cold]
    #[inline(never)]
    fn first_room(&mut self) {
        self.problems = Vec::with_capacity((1024 / std::mem::size_of::<Diagnostic<'a>>()).max(4));
    }
}

/// The envelopes of a document: text framings hold one message, JSON may
/// hold many. One is not put in a `Vec`: that allocation (and moving the
/// envelope through it) was a measurable share of parsing a small message.
// `One` is large, but boxing it would be the very allocation this avoids.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Envelopes<'a> {
    One(Envelope<'a>),
    Many(Vec<Envelope<'a>>),
}

/// What an archive document's `---json` front matter is read for.
pub(crate) enum Front<'k, 'a> {
    /// The keys an envelope takes ([`crate::parse`]).
    Envelope,
    /// Those, and the whole object into the slot, read as a `Value`
    /// ([`crate::parse_with_front_matter`]).
    Keep(&'k mut Option<Map<String, Value>>),
    /// Nothing: the caller holds the envelope and gives the subject
    /// ([`crate::parse_archive_under`]).
    Under(&'a str),
}

/// Splits a document into envelopes. Never fails: a broken framing becomes
/// a problem on an envelope whose body is the raw text. An archive
/// document's front matter is read as `reading` says ([`Front`]): as a
/// `Value` only for [`crate::parse_with_front_matter`]; [`crate::parse`]
/// reads no more of it than its envelope needs.
///
/// The envelopes are written into `out`, which holds one empty envelope on
/// entry: spec text (nearly every document) fills it in place, since an
/// envelope is a few hundred bytes and each move of one was a copy in the
/// profile of small messages.
pub(crate) fn split_document<'a>(
    doc: &'a str,
    lines: &[Line<'a>],
    reading: Front<'_, 'a>,
    out: &mut Envelopes<'a>,
) {
    let first = lines.iter().find(|l| !l.is_blank());
    let Some(first) = first else {
        *out = Envelopes::One(Envelope {
            body: Some(BodySource::Lines {
                head: None,
                rest: 0..0,
            }),
            line: 1,
            ..Envelope::default()
        });
        return;
    };
    let head = trim(first.text);
    if head == "---json" {
        *out = Envelopes::One(archive(doc, lines, first, reading));
        return;
    }
    let is_json = head.starts_with('{')
        || opens_json_array(head)
        || (head.starts_with('[') && serde_json::from_str::<Value>(doc).is_ok());
    if is_json {
        if let Some(envs) = json_document(doc, lines) {
            *out = Envelopes::Many(envs);
            return;
        }
    }
    // The caller hands in one envelope; only the JSON branch above makes many.
    if let Envelopes::One(env) = out {
        spec_text_into(lines, env);
    }
}

/// `[` opens a JSON array when what follows can start a message array
/// (`{`, `[`, `"`, `]` or the end of the line), or when the whole document is
/// valid JSON; `[ol-13] DONE` is a bare body whose first line is a bracketed
/// bead id and a type.
fn opens_json_array(head: &str) -> bool {
    head.strip_prefix('[').is_some_and(|rest| {
        rest.trim_start()
            .chars()
            .next()
            .is_none_or(|c| matches!(c, '{' | '[' | '"' | ']'))
    })
}

/// `---json` / JSON / `---` / body, as the mcp_agent_mail server writes.
fn archive<'a>(
    doc: &'a str,
    lines: &[Line<'a>],
    open: &Line<'a>,
    reading: Front<'_, 'a>,
) -> Envelope<'a> {
    let open_idx = lines.iter().position(|l| l.no == open.no).unwrap_or(0);
    let close_idx = lines[open_idx + 1..]
        .iter()
        .position(|l| l.text.trim_end() == "---")
        .map(|i| i + open_idx + 1);
    let Some(close_idx) = close_idx else {
        let mut env = spec_text(lines);
        env.push_problem((
            Code::UnterminatedFrontMatter,
            open.no,
            1,
            "`---json` front matter has no closing `---`".into(),
        ));
        return env;
    };
    let body = BodySource::Lines {
        head: None,
        rest: close_idx + 1..lines.len(),
    };
    if let Front::Under(subject) = reading {
        // The caller's envelope goes over this one: only the subject is
        // taken (the message's type and bead come from it), placed where
        // the front matter holds it when it is a slice of the document,
        // else on the opening line, as a value of unknown place is.
        let at = quote_before(&lines[open_idx + 1..close_idx], subject);
        let (line, column) = at.unwrap_or((open.no, 1));
        return Envelope {
            subject: Some(At::new(subject, line, column)),
            body: Some(body),
            line: open.no,
            ..Envelope::default()
        };
    }
    let json_start = lines.get(open_idx + 1).map_or(doc.len(), |l| l.start(doc));
    let json_end = lines[close_idx].start(doc);
    let json = doc.get(json_start..json_end).unwrap_or("");
    let mut env = match FrontMatter::read(json) {
        Ok(Some(front)) => {
            let mut env = from_object(|k| front.get(k));
            // Point header diagnostics at the value in the front matter:
            // the first of `keys` the object has and not null, as
            // `from_object` takes it. A string held borrowed lies in the
            // document, on one of the front matter's lines (JSON strings
            // hold no newline); any other value is found by walking the
            // object's entries (a string with an escape, a number).
            let object = json_start + (json.len() - json.trim_start().len());
            let front_lines = &lines[open_idx + 1..close_idx];
            let (mut entries, mut cursor) = (None, json_pos::Cursor::new(doc));
            let mut value_of = |keys: &[&str]| {
                let v = first_of(|k| front.get(k), keys)?;
                if let Written::Str(Cow::Borrowed(s)) = v {
                    if let Some(at) = quote_before(front_lines, s) {
                        return Some(at);
                    }
                }
                let entries = entries.get_or_insert_with(|| json_pos::Entries::of(doc, object));
                let e = keys
                    .iter()
                    .filter_map(|k| entries.get(k))
                    .find(|e| doc.get(e.value..).is_some_and(|v| !v.starts_with("null")))?;
                Some(cursor.at(e.value))
            };
            place(&mut env.subject, value_of(SUBJECT_KEYS), open.no);
            place(&mut env.timestamp, value_of(TIMESTAMP_KEYS), open.no);
            // The whole object, for a caller that reads keys no envelope
            // does: read again as a `Value`, only then.
            if let Front::Keep(keep) = reading {
                *keep = serde_json::from_str::<Map<String, Value>>(json).ok();
            }
            env
        }
        Ok(_) => {
            let mut env = Envelope::default();
            env.push_problem((
                Code::NotAMessage,
                open.no + 1,
                1,
                "front matter is JSON but not an object".into(),
            ));
            env
        }
        Err(e) => {
            let mut env = Envelope::default();
            let (line, column) = json_pos::error_place(json, &e);
            env.push_problem((
                Code::InvalidJson,
                open.no + line,
                column,
                format!("front matter: {}", json_pos::error_text(&e)).into(),
            ));
            env
        }
    };
    env.body = Some(body);
    env.line = open.no;
    env
}

/// Where the string literal whose text is `s` (a slice of the document)
/// opens: the line of `lines` that holds it, and its quote's column.
/// `None` when no line's text holds it (a run's later line).
fn quote_before(lines: &[Line<'_>], s: &str) -> Option<(u32, u32)> {
    let at = s.as_ptr() as usize;
    let line = lines.iter().find(|l| {
        let start = l.text.as_ptr() as usize;
        start < at && at + s.len() <= start + l.text.len()
    })?;
    Some((line.no, line.column_of(s) - 1))
}

/// A whole JSON document, or JSON Lines. `None` when the text is not JSON
/// at all (then it is read as text, with the JSON error recorded).
fn json_document<'a>(doc: &'a str, lines: &[Line<'a>]) -> Option<Vec<Envelope<'a>>> {
    // One cursor for the document, whatever holds its messages: each is
    // placed counting on from the one before, so a document of many is
    // read about once (JSON Lines counted each line's from the top:
    // 20,000 lines took `amail parse` 6.8 s).
    let mut cursor = json_pos::Cursor::new(doc);
    match serde_json::from_str::<Value>(doc) {
        Ok(v) => {
            let first_line = lines.iter().find(|l| !l.is_blank()).map_or(1, |l| l.no);
            Some(from_value(v, first_line, Some((&mut cursor, 0))))
        }
        Err(whole_err) => {
            // JSON Lines: every non-blank line is a value of its own.
            let mut out = Vec::new();
            // Line by line, runs of inert lines split again (see `lines`).
            for line in physical(doc, lines).filter(|l| !l.is_blank()) {
                match serde_json::from_str::<Value>(line.text) {
                    Ok(v) => {
                        let base =
                            (line.text.as_ptr() as usize).wrapping_sub(doc.as_ptr() as usize);
                        let within = base <= doc.len();
                        out.extend(from_value(
                            v,
                            line.no,
                            within.then_some((&mut cursor, base)),
                        ))
                    }
                    Err(e) if out.is_empty() && line.no == lines[0].no => {
                        let _ = e;
                        break;
                    }
                    Err(e) => out.push(Envelope {
                        problems: vec![diagnostic((
                            Code::InvalidJson,
                            line.no,
                            json_pos::error_place(line.text, &e).1,
                            format!("JSON Lines: {}", json_pos::error_text(&e)).into(),
                        ))],
                        body: Some(BodySource::Lines {
                            head: Some(line),
                            rest: 0..0,
                        }),
                        line: line.no,
                        ..Envelope::default()
                    }),
                }
            }
            if !out.is_empty() {
                return Some(out);
            }
            let mut env = spec_text(lines);
            let (line, column) = json_pos::error_place(doc, &whole_err);
            env.push_problem((
                Code::InvalidJson,
                line,
                column,
                json_pos::error_text(&whole_err).into(),
            ));
            Some(vec![env])
        }
    }
}

/// The message objects a JSON value holds, each at the line of its `{`
/// and its body's literal in the document when `written` gives the
/// document's cursor and where in it the value's text starts; else at
/// `line`.
fn from_value<'a>(
    v: Value,
    line: u32,
    written: Option<(&mut json_pos::Cursor<'_>, usize)>,
) -> Vec<Envelope<'a>> {
    let mut objects = Vec::new();
    collect_objects(v, &mut objects, 0);
    if objects.is_empty() {
        return vec![Envelope {
            problems: vec![diagnostic((
                Code::NotAMessage,
                line,
                1,
                "JSON holds no message object (one with `subject` or `body_md`)".into(),
            ))],
            body: Some(BodySource::Owned(String::new())),
            line,
            ..Envelope::default()
        }];
    }
    // Found in the text as in the value, or not used at all.
    let mut found = written
        .map(|(cursor, base)| {
            let found = json_pos::objects(cursor.text().get(base..).unwrap_or(""));
            (cursor, base, found)
        })
        .filter(|(_, _, found)| found.len() == objects.len());
    objects
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let mut env = from_object(|k| o.get(k));
            env.line = line;
            let (mut subject, mut timestamp) = (None, None);
            if let Some((cursor, base, found)) = &mut found {
                let at = found[i];
                let base = *base;
                // In the order they are written: the cursor counts on.
                env.line = cursor.at(base + at.start).0;
                let mut literal = |s: Option<json_pos::Span>| {
                    s.map(|(a, b)| cursor.literal((base + a, base + b)))
                };
                let (s, t, b) = (literal(at.subject), literal(at.timestamp), literal(at.body));
                subject = s.map(|l| (l.line, l.column));
                timestamp = t.map(|l| (l.line, l.column));
                env.body_literal = b;
            }
            place(&mut env.subject, subject, env.line);
            place(&mut env.timestamp, timestamp, env.line);
            env
        })
        .collect()
}

fn is_message(o: &Map<String, Value>) -> bool {
    MESSAGE_KEYS.iter().any(|k| o.contains_key(*k))
}

/// Arrays, `{"result": ...}`, `{"messages": ...}`, `{"payload": ...}` and
/// `{"deliveries": [...]}` as the server's tools return them.
fn collect_objects(v: Value, out: &mut Vec<Map<String, Value>>, depth: u32) {
    if depth > 4 {
        return;
    }
    match v {
        Value::Array(items) => items
            .into_iter()
            .for_each(|i| collect_objects(i, out, depth + 1)),
        Value::Object(map) if is_message(&map) => out.push(map),
        Value::Object(mut map) => {
            for key in WRAPPER_KEYS {
                if let Some(inner) = map.remove(*key) {
                    collect_objects(inner, out, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// Where a JSON header value was written: `at` (line, column of the value)
/// when known, else column 1 of `line` (the message's first line). Values
/// from JSON have no position of their own until placed.
fn place(v: &mut Option<At<'_>>, at: Option<(u32, u32)>, line: u32) {
    if let Some(v) = v {
        (v.line, v.column) = at.unwrap_or((line, 1));
    }
}

/// The envelope of a message object, its values found by `value` (a
/// `Value` map's or a front matter's).
fn from_object<'a, 'v, V: Field<'a> + 'v>(value: impl Fn(&str) -> Option<&'v V>) -> Envelope<'a> {
    let get = |keys: &[&str]| first_of(&value, keys);
    let text = |keys: &[&str]| get(keys).and_then(Field::text);
    Envelope {
        id: text(&["id", "message_id"]),
        subject: text(SUBJECT_KEYS).map(|s| At::new(s, 1, 1)),
        from: text(&["from", "sender_name", "sender"]),
        to: get(&["to"]).map(Field::names).unwrap_or_default(),
        cc: get(&["cc"]).map(Field::names).unwrap_or_default(),
        thread_id: text(&["thread_id", "threadId", "thread"]),
        timestamp: text(TIMESTAMP_KEYS).map(|t| At::new(t, 1, 1)),
        ack_required: get(&["ack_required", "ackRequired"]).and_then(Field::truth),
        importance: text(&["importance"]),
        project: text(&["project_slug", "project"]),
        body: Some(BodySource::Owned(
            text(BODY_KEYS).map(Cow::into_owned).unwrap_or_default(),
        )),
        problems: Vec::new(),
        line: 1,
        body_literal: None,
    }
}

/// Header names accepted before the body in spec text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Header {
    Subject,
    From,
    To,
    Cc,
    Thread,
    Id,
    Date,
    AckRequired,
    Importance,
    Project,
    Body,
}

impl Header {
    /// The header's name in the protocol's plain form.
    fn name(self) -> &'static str {
        match self {
            Header::Subject => "Subject",
            Header::From => "From",
            Header::To => "To",
            Header::Cc => "Cc",
            Header::Thread => "Thread",
            Header::Id => "Id",
            Header::Date => "Date",
            Header::AckRequired => "Ack-Required",
            Header::Importance => "Importance",
            Header::Project => "Project",
            Header::Body => "Body",
        }
    }
}

/// [`header`] by its plain name, for the grammar's tests.
#[cfg(test)]
pub(crate) fn header_name(name: &str) -> Option<&'static str> {
    header(name).map(Header::name)
}

fn header(name: &str) -> Option<Header> {
    use crate::words::{find, name as n, Name};
    // Compared as words by length (see `words`): lowering the name into a
    // buffer and matching it against every spelling cost about 70
    // instructions per header line. In each list the spec's own header
    // first (`Id` before `Cc`, `Importance` before `Message-Id`): every
    // demo mail has them, and each name before the match is a compare.
    const TWO: [Name<Header>; 3] = [
        n(b"to", Header::To),
        n(b"id", Header::Id),
        n(b"cc", Header::Cc),
    ];
    const FOUR: [Name<Header>; 3] = [
        n(b"from", Header::From),
        n(b"date", Header::Date),
        n(b"body", Header::Body),
    ];
    const SIX: [Name<Header>; 1] = [n(b"thread", Header::Thread)];
    const SEVEN: [Name<Header>; 3] = [
        n(b"subject", Header::Subject),
        n(b"created", Header::Date),
        n(b"project", Header::Project),
    ];
    const NINE: [Name<Header>; 3] = [
        n(b"thread-id", Header::Thread),
        n(b"thread_id", Header::Thread),
        n(b"timestamp", Header::Date),
    ];
    const TEN: [Name<Header>; 2] = [
        n(b"importance", Header::Importance),
        n(b"message-id", Header::Id),
    ];
    const TWELVE: [Name<Header>; 2] = [
        n(b"ack-required", Header::AckRequired),
        n(b"ack_required", Header::AckRequired),
    ];
    let names: &[Name<Header>] = match name.len() {
        2 => &TWO,
        4 => &FOUR,
        6 => &SIX,
        7 => &SEVEN,
        9 => &NINE,
        10 => &TEN,
        12 => &TWELVE,
        _ => return None,
    };
    find(names, name.as_bytes())
}

/// `Subject: ...` headers, then `Body:` (or a blank line), then the body.
/// With no header on the first line, the whole text is a bare body.
fn spec_text<'a>(lines: &[Line<'a>]) -> Envelope<'a> {
    let mut env = Envelope::default();
    spec_text_into(lines, &mut env);
    env
}

/// [`spec_text`] into `env`, an empty envelope.
/// [`split_document`] of a document whose first line opens with
/// `Subject:` (see `decor::opens_with_subject`): spec text, read without
/// looking for the first non-blank line and the other framings' marks
/// again (that line is the first, and opens with none of them).
#[inline(always)]
pub(crate) fn spec_text_document<'a>(lines: &[Line<'a>], out: &mut Envelopes<'a>) {
    if let Envelopes::One(env) = out {
        spec_text_at(lines, 0, env);
    }
}

/// [`split_document`] of a document whose first non-blank line is neither
/// a header nor a framing's mark (`{`, `[`, `---json`), as
/// `decor::unwrap_document` found it (`Unwrap::Bare`): no headers, and
/// every line the body, as [`spec_text_into`] reads it (it stops at that
/// line). The line is not tested as a header again (a decorated one cost
/// ~150 instructions a test).
pub(crate) fn bare_document<'a>(lines: &[Line<'a>], out: &mut Envelopes<'a>) {
    if let Envelopes::One(env) = out {
        env.line = lines.first().map_or(1, |l| l.no);
        env.body = Some(BodySource::Lines {
            head: None,
            rest: 0..lines.len(),
        });
    }
}

fn spec_text_into<'a>(lines: &[Line<'a>], env: &mut Envelope<'a>) {
    let first = lines
        .iter()
        .position(|l| !l.is_blank())
        .unwrap_or(lines.len());
    spec_text_at(lines, first, env);
}

/// [`spec_text_from`], the one copy of the header loop that both the
/// usual document ([`spec_text_document`]) and every other spec text
/// ([`spec_text_into`]) run: two copies (6.9 KB each) were two sets of
/// instruction cache lines for the agents corpus, which reads both.
#[inline(never)]
fn spec_text_at<'a>(lines: &[Line<'a>], first: usize, env: &mut Envelope<'a>) {
    spec_text_from(lines, first, env);
}

/// [`spec_text_into`] from `lines[first]`, the first line that is not
/// blank (the first line of a document that opens with `Subject:`, not
/// looked for).
#[inline(always)]
fn spec_text_from<'a>(lines: &[Line<'a>], first: usize, env: &mut Envelope<'a>) {
    env.line = lines.first().map_or(1, |l| l.no);
    let mut i = first;
    let mut saw_header = false;
    let mut body_start = None;
    // The `Body:` line and the text after its colon, when there is one.
    let mut body_label = None;
    while i < lines.len() {
        let line = &lines[i];
        if line.is_blank() {
            if saw_header {
                i += 1;
                // A `Body:` label may follow the blank line.
                let next = lines[i..].iter().position(|l| !l.is_blank()).map(|p| p + i);
                match next.map(|n| (n, header_line(&lines[n]))) {
                    Some((n, Some((Header::Body, value, decorated)))) => {
                        if decorated {
                            note_decorated(env, &lines[n], value, Header::Body);
                        }
                        body_start = Some(n + 1);
                        body_label = Some((&lines[n], value));
                    }
                    _ => {
                        body_start = Some(i);
                        env.push_problem((
                            Code::MissingBodyLabel,
                            lines.get(i).map_or(line.no, |l| l.no),
                            1,
                            "no `Body:` line; the body starts after the blank line".into(),
                        ));
                    }
                }
            }
            break;
        }
        let Some((h, value, decorated)) = header_line(line) else {
            if saw_header {
                env.push_problem((
                    Code::MissingBodyLabel,
                    line.no,
                    1,
                    "no `Body:` line; the body starts at the first non-header line".into(),
                ));
            }
            break;
        };
        saw_header = true;
        if decorated {
            note_decorated(env, line, value, h);
        }
        let at = || At::new(Cow::Borrowed(value), line.no, line.column_of(value));
        match h {
            Header::Subject => env.subject = env.subject.take().or_else(|| Some(at())),
            Header::From => env.from = Some(Cow::Borrowed(value)),
            Header::To => env.to = split_names(value),
            Header::Cc => env.cc = split_names(value),
            Header::Thread => env.thread_id = Some(Cow::Borrowed(value)).filter(|v| !v.is_empty()),
            Header::Id => env.id = Some(Cow::Borrowed(value)).filter(|v| !v.is_empty()),
            Header::Date => env.timestamp = Some(at()),
            Header::AckRequired => match ack_required(value) {
                Ok(b) => env.ack_required = Some(b),
                Err(_) => env.push_problem((
                    Code::BadEnum,
                    line.no,
                    line.column_of(value),
                    format!("Ack-Required `{value}` is neither true nor false").into(),
                )),
            },
            Header::Importance => env.importance = Some(Cow::Borrowed(value)),
            Header::Project => env.project = Some(Cow::Borrowed(value)),
            Header::Body => {
                body_start = Some(i + 1);
                body_label = Some((line, value));
                break;
            }
        }
        i += 1;
    }
    let start = body_start.unwrap_or(if saw_header { i } else { 0 });
    // `Body: text` on the label line itself: keep that text as line one.
    let head = body_label
        .filter(|(_, value)| !value.is_empty())
        .map(|(label, value)| {
            Line::new(
                value,
                label.no,
                // The value ends where the label line's text does, or
                // before whitespace trimmed off it: then the text between
                // it and the next line is more than a line ending.
                label.plain_end
                    && value.as_ptr() as usize + value.len()
                        == label.text.as_ptr() as usize + label.text.len(),
            )
        });
    env.body = Some(BodySource::Lines {
        head,
        rest: start.min(lines.len())..lines.len(),
    });
}

/// Whether `line` is a spec header: `Some(true)` for `Subject:`,
/// `Some(false)` for another header, `None` for no header.
pub(crate) fn header_kind(line: &Line<'_>) -> Option<bool> {
    header_line(line).map(|(h, _, _)| h == Header::Subject)
}

/// A header line: its header, its value, and whether its label was
/// decorated (`**Subject:** x`, `- *From*: y`), read by the body's
/// decorated-label rule ([`decor::decorated_field`]) only where the plain
/// form found no header.
// Inline for a header as the spec spells it (see `spec_spelling`), the
// rest out of line ([`other_header_line`]): the call was ~30 instructions
// of such a line's ~95.
#[inline(always)]
fn header_line<'a>(line: &Line<'a>) -> Option<(Header, &'a str, bool)> {
    if let Some((h, colon)) = spec_spelling(line.text.as_bytes()) {
        let f = crate::grammar::spelled_field_at(line.text, colon, line.plain_end)?;
        return Some((h, trim(f.value), false));
    }
    other_header_line(line)
}

/// [`header_line`] of a line that does not open with a header as the spec
/// spells it.
#[inline(never)]
fn other_header_line<'a>(line: &Line<'a>) -> Option<(Header, &'a str, bool)> {
    let first = *line.text.as_bytes().first()?;
    if !matches!(first, b' ' | b'\t' | b'-' | b'*' | b'+') {
        if let Some((f, h)) = crate::grammar::named_field_line(line.text, header) {
            return Some((h, trim(f.value), false));
        }
    }
    // Plain headers open with a letter: a line that cannot open a
    // decoration is decided by its first byte.
    if !decor::may_decorate(first) {
        return None;
    }
    decorated_header_line(line)
}

/// The spec's headers as it spells them (`Subject:`, `Body:`, `From:`,
/// `To:` and the other seven), and where the colon is: decided
/// by the first byte and a compare, where the colon search and the name's
/// lookup cost ~45 instructions a line. The general reading finds the
/// same (a line that opens with a letter has its label end at its first
/// colon, and these names hold none), so the rest of the line is cut as
/// it cuts it ([`crate::grammar::field_at`]).
#[inline(always)]
fn spec_spelling(b: &[u8]) -> Option<(Header, usize)> {
    // Each name a constant (`spell::spelling!` writes the match and the
    // colon's offset): a compare of a few bytes in registers.
    crate::spell::spelling!(b;
        b'S' b"Subject:" => Header::Subject,
        b'B' b"Body:" => Header::Body,
        b'F' b"From:" => Header::From,
        b'T' b"To:" => Header::To,
        // The rest of the spec's headers, which every mail an
        // mcp_agent_mail or amail itself writes carries (the demo's and
        // the bench's 10,000 files: five a file).
        b'T' b"Thread:" => Header::Thread,
        b'I' b"Id:" => Header::Id,
        b'I' b"Importance:" => Header::Importance,
        b'D' b"Date:" => Header::Date,
        b'A' b"Ack-Required:" => Header::AckRequired,
        b'C' b"Cc:" => Header::Cc,
        b'P' b"Project:" => Header::Project,
    )
}

#[cold]
#[inline(never)]
fn decorated_header_line<'a>(line: &Line<'a>) -> Option<(Header, &'a str, bool)> {
    let f = decor::decorated_field(line.text)?;
    Some((header(f.label)?, trim(f.value), true))
}

/// Records a decorated header label as a normalisation (an `info` in
/// lenient mode, refused by strict mode, naming the plain header).
#[cold]
fn note_decorated<'a>(env: &mut Envelope<'a>, line: &Line<'a>, value: &str, header: Header) {
    let written = crate::trim::trim_start(line.text);
    let label = crate::grammar::label_part(written, value);
    let (kept, cut) = decor::shorten(label);
    env.problem((
        Code::Normalised,
        line.no,
        line.column_of(written),
        Note::join(&[
            "decorated header label `",
            kept,
            decor::cut_then!(cut, "` reads as `"),
            header.name(),
            ":`",
        ]),
    ));
}

/// An `Ack-Required:` value: the spec's own spellings decided by one
/// compare, where `yes_no`'s reader (the template test, the first word,
/// its lower case) was ~200 instructions of a demo mail's ~8,600; any
/// other spelling read by it.
#[inline]
fn ack_required(value: &str) -> Result<bool, crate::values::ValueError> {
    match value {
        "false" => Ok(false),
        "true" => Ok(true),
        _ => crate::values::yes_no(value),
    }
}

/// The names of a `To:` or `Cc:` header. Nearly every header names one
/// agent: held inline (`Names::one`), without the splitter.
fn split_names(v: &str) -> Names<'_> {
    // A name is a few bytes: searched eight at a time (see `find`), where
    // `memchr`'s dispatch and set-up cost ~75 instructions and core's
    // search is a byte loop below 16 bytes.
    if crate::find::byte(v.as_bytes(), b',').is_none() {
        let name = trim(v);
        return if name.is_empty() {
            Names::new()
        } else {
            Names::one(Cow::Borrowed(name))
        };
    }
    split_list(v)
}

/// [`split_names`] of a header that holds a comma. Out of line: inlined,
/// the list's making had every call, one name or not, save and restore
/// the registers it uses (~18 instructions a call).
#[cold]
#[inline(never)]
fn split_list(v: &str) -> Names<'_> {
    // Room for every name the commas allow, so that a list without empty
    // names is not reallocated when it is kept (`Names::from`). The commas
    // counted by a byte loop the compiler vectorises, and each name cut at
    // the next comma found a word at a time (`find`): `memchr_iter`'s count
    // and `str::split`'s searcher, each set up anew, were ~1,270
    // instructions of four names (a demo mail's `To:`), ~300 a name.
    let commas = v.bytes().filter(|&b| b == b',').count();
    let mut names = Vec::with_capacity(commas + 1);
    let mut rest = v;
    loop {
        // `,` is ASCII: both cuts are on character boundaries.
        let (name, after) = match crate::find::byte(rest.as_bytes(), b',') {
            Some(at) => (rest.get(..at).unwrap_or(rest), rest.get(at + 1..)),
            None => (rest, None),
        };
        let name = trim(name);
        if !name.is_empty() {
            names.push(Cow::Borrowed(name));
        }
        match after {
            Some(after) => rest = after,
            None => break,
        }
    }
    Names::from(names)
}

/// The name and line of a header near `Subject:` (`Subjct:`, `subjet:`,
/// `Subjects:`: a near miss as [`crate::near`] has it) in the header block of the
/// message that starts at line `from`; for the no-subject problem only,
/// so no message with a subject pays for it.
pub(crate) fn near_subject<'d>(lines: &[Line<'d>], from: u32) -> Option<(&'d str, u32)> {
    lines
        .iter()
        .skip_while(|l| l.no < from)
        .take_while(|l| !l.text.trim().is_empty())
        .take(16)
        .find_map(|l| {
            let (name, _) = l.text.split_once(':')?;
            let near = name.len() >= 4
                && name.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-')
                && crate::near::nearest(name, &["Subject"]).is_some();
            near.then_some((name, l.no))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::known_field_line;

    /// The subject's and the time's places as the object's entries, walked
    /// and counted from the document's top, give them.
    fn placed_by_walking(doc: &str, object: usize) -> [Option<(u32, u32)>; 2] {
        let entries = json_pos::Entries::of(doc, object);
        let mut cursor = json_pos::Cursor::new(doc);
        [SUBJECT_KEYS, TIMESTAMP_KEYS].map(|keys| {
            let e = keys
                .iter()
                .filter_map(|k| entries.get(k))
                .find(|e| doc.get(e.value..).is_some_and(|v| !v.starts_with("null")))?;
            Some(cursor.at(e.value))
        })
    }

    proptest::proptest! {
        /// A front matter's subject and time are placed where walking its
        /// entries finds them, whether their strings are borrowed (found
        /// on their line) or not (an escape, a number: walked).
        #[test]
        fn front_matter_values_are_placed_where_they_are_written(
            entries in proptest::collection::vec((
                proptest::sample::select(vec!["subject", "created_ts", "created", "date", "bcc", "é"]),
                proptest::sample::select(vec![
                    "\"[ol-1] DONE\"", "\"é \\\"q\\\" x\"", "\"2026-01-01T00:00:00Z\"",
                    "null", "17", "\"\"", "[\"a\"]", "\"日本\"",
                ]),
            ), 0..8),
            one_line in proptest::bool::ANY,
            crlf in proptest::bool::ANY,
        ) {
            let sep = if one_line { ", " } else { ",\n  " };
            let body: Vec<_> = entries.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
            let doc = format!("---json\n{{\n  {}\n}}\n---\n\nbody\n", body.join(sep));
            let doc = if crlf { doc.replace('\n', "\r\n") } else { doc };
            let lines = crate::lines::split_lines(&doc, 1);
            let env = archive(&doc, &lines, &lines[0], Front::Envelope);
            let object = doc.find('{').unwrap();
            let at = |v: &Option<At<'_>>| v.as_ref().map(|a| (a.line, a.column));
            // A value that reads as no text (an array) makes no field to place.
            let walked = placed_by_walking(&doc, object);
            for (got, walked) in [at(&env.subject), at(&env.timestamp)].into_iter().zip(walked) {
                proptest::prop_assert_eq!(got, got.and(walked));
            }
        }
    }

    proptest::proptest! {
        /// The names read as the splitter alone read them into a `Vec`
        /// (commas, blanks and empty names, one name or many; texts long
        /// enough for `split_list`'s word-at-a-time comma search, and
        /// non-ASCII letters and blanks around its cuts).
        #[test]
        fn names_read_as_split_and_collected(v in "[ a-c,\t\u{a0}é]{0,40}") {
            let split: Vec<Cow<'_, str>> = v
                .split(',')
                .map(trim)
                .filter(|s| !s.is_empty())
                .map(Cow::Borrowed)
                .collect();
            let names = split_names(&v);
            proptest::prop_assert_eq!(names.as_slice(), split.as_slice());
            proptest::prop_assert_eq!(names.into_vec(), split);
        }
    }

    /// A header as the spec spells it reads as the general reading reads
    /// it: the eleven names and near misses, in several cases, with values
    /// and blanks of every kind after them.
    #[test]
    fn spec_spellings_read_as_the_general_reading() {
        let mut read = 0;
        let names = [
            "Subject",
            "Body",
            "From",
            "To",
            "Thread",
            "Id",
            "Importance",
            "Date",
            "Ack-Required",
            "Cc",
            "Project",
            "Sub",
            "Bodies",
            "Top",
            "Idea",
            "Dates",
            "Ack",
            "Ccs",
        ];
        for name in names {
            for spelled in [
                name.to_string(),
                name.to_lowercase(),
                name.to_uppercase(),
                format!("{name} "),
            ] {
                for after in [
                    ":",
                    ": x",
                    ":x",
                    ":  [ol-1] DONE  ",
                    ":\tv\t",
                    ": a: b",
                    ": \u{a0}v\u{3000}",
                    ":\r",
                ] {
                    let text = format!("{spelled}{after}");
                    let general = known_field_line(&text, header)
                        .and_then(|(f, h)| Some((h?, trim(f.value))));
                    // Read as a line that ends plainly when it does (no
                    // trailing blank or `\r`), and as one that does not.
                    let plain = !text.ends_with([' ', '\t', '\r']);
                    for plain_end in [plain, false] {
                        let spec = spec_spelling(text.as_bytes()).and_then(|(h, colon)| {
                            Some((
                                h,
                                trim(
                                    crate::grammar::spelled_field_at(&text, colon, plain_end)?
                                        .value,
                                ),
                            ))
                        });
                        if spec.is_some() {
                            read += 1;
                            assert_eq!(spec, general, "{text:?}");
                        }
                    }
                }
            }
        }
        // Each of the eleven headers, written exactly, and each value.
        assert_eq!(read, 11 * 2 * 8);
    }

    #[test]
    fn ack_required_reads_as_yes_no() {
        for v in [
            "true",
            "false",
            "TRUE",
            "False",
            "yes",
            "no",
            "1",
            "0",
            "true.",
            "true | false",
            "",
            "maybe",
            "falsе",
        ] {
            assert_eq!(ack_required(v), crate::values::yes_no(v), "{v:?}");
        }
    }

    /// [`header`] as first written: the name lowered into a buffer and
    /// matched against every spelling.
    fn header_by_match(name: &str) -> Option<Header> {
        let mut buf = [0u8; 16];
        Some(match crate::grammar::lower_ascii(name, &mut buf)? {
            b"subject" => Header::Subject,
            b"from" => Header::From,
            b"to" => Header::To,
            b"cc" => Header::Cc,
            b"thread" | b"thread-id" | b"thread_id" => Header::Thread,
            b"id" | b"message-id" => Header::Id,
            b"date" | b"created" | b"timestamp" => Header::Date,
            b"ack-required" | b"ack_required" => Header::AckRequired,
            b"importance" => Header::Importance,
            b"project" => Header::Project,
            b"body" => Header::Body,
            _ => return None,
        })
    }

    const SPELLINGS: [&str; 18] = [
        "subject",
        "from",
        "to",
        "cc",
        "thread",
        "thread-id",
        "thread_id",
        "id",
        "message-id",
        "date",
        "created",
        "timestamp",
        "ack-required",
        "ack_required",
        "importance",
        "project",
        "body",
        "Thread Id",
    ];

    proptest::proptest! {
        /// The compare by length finds what the match found, on every
        /// spelling in any case and on near misses (one byte changed).
        #[test]
        fn header_names_read_as_the_match_read_them(
            s in crate::words::spellings(&SPELLINGS, 14),
        ) {
            for t in s.all() {
                proptest::prop_assert_eq!(header(t), header_by_match(t));
            }
        }
    }
}
