//! A body that is one fenced JSON object of the message's fields, as
//! agents write one (```` ```json ```` then `{"bead": "ol-1", "status":
//! "...", "files": [...]}`).
//!
//! The keys the protocol labels (`bead_id` is `Bead id:`, `tests_pass:
//! true` is `Tests: PASS`) are the message's labelled fields, the keys
//! it writes as sections (`problem`, `next_steps`) its sections, and
//! other keys are left out. Read in one of two ways, with one result:
//!
//! - **Direct** ([`Direct`]), for the object agents write: string,
//!   integer, `true`/`false`/`null` and flat-array values, no escape, no
//!   nesting, text values that no markdown rule would read otherwise. A
//!   scanner of that subset of JSON ([`scan`]) finds each value where the
//!   document holds it, and the body index is filled from the values
//!   ([`crate::body::Body::read_json`]), borrowed from the document.
//! - **As markdown** ([`fenced_json_fields`]), for any other object
//!   (escapes, nesting, floats): serde_json reads it, its fields are
//!   written out in the markdown form the body index reads, and the
//!   message is read from that text and detached from it.
//!
//! Why two: the markdown reading made, split, indexed, copied and freed a
//! text of its own for every such body, and a fenced JSON body cost
//! three times a plain message of the same fields (callgrind: 21,500 to
//! 24,300 instructions against 7,500 to 12,200 for the same messages in
//! markdown). Both readings name a key's field through one function
//! ([`field_of`]), and a property test holds the direct reading to the
//! markdown one on generated objects (`direct_reads_as_the_markdown_does`).
//! A fenced JSON body has no type line (its fields are not looked at as
//! one) and no sections (see `Body::sectionless`).

use std::borrow::Cow;

use smallvec::SmallVec;

use crate::body::{Direct, Items, Label, SectionKind};
use crate::lines::Line;
use crate::trim::trim;

/// A fenced JSON body, as read (see the module doc).
pub(crate) enum JsonBody {
    /// Read directly, into the caller's [`Direct`].
    Direct,
    /// The fields written out as markdown.
    Markdown(String),
}

#[cfg(test)]
thread_local! {
    /// In tests: read every object as markdown, to compare the readings.
    pub(crate) static AS_MARKDOWN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// In tests: how many objects were read directly.
    pub(crate) static DIRECT_READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The lines inside a fenced block that wraps a body whole, as a JSON
/// object of the message's fields: directly where `direct` allows it and
/// the object is simple, else as markdown. `None` unless the block holds
/// a JSON object.
#[cold]
#[inline(never)]
pub(crate) fn read<'a>(
    doc: &'a str,
    inner: &[Line<'a>],
    direct: Option<&mut Direct<'a>>,
) -> Option<JsonBody> {
    #[cfg(test)]
    let direct = direct.filter(|_| !AS_MARKDOWN.with(std::cell::Cell::get));
    let first = inner.iter().position(|l| !l.is_blank())?;
    if !trim(inner[first].text).starts_with('{') {
        return None;
    }
    if let Some(direct) = direct {
        // The block as the document holds it: no JSON string holds a line
        // break, and CR, LF and blanks are JSON whitespace alike. Scanned
        // and read into places made by the caller: returned, each (most of
        // a kilobyte) was copied, ~600 instructions a body.
        let (from, to) = (inner[first].start(doc), inner[inner.len() - 1].end(doc));
        let mut object = Object::default();
        if doc
            .get(from..to)
            .and_then(|text| scan(text, &mut object))
            .is_some()
            && direct.read(&object).is_some()
        {
            #[cfg(test)]
            DIRECT_READS.with(|c| c.set(c.get() + 1));
            return Some(JsonBody::Direct);
        }
    }
    fenced_json_fields(doc, inner).map(JsonBody::Markdown)
}

/// Whether the first non-blank line of `inner` opens a JSON object:
/// [`read`] reads nothing else (and tests it so itself).
#[inline]
pub(crate) fn opens_object(inner: &[Line<'_>]) -> bool {
    inner
        .iter()
        .find(|l| !l.is_blank())
        .is_some_and(|l| trim(l.text).starts_with('{'))
}

/// A value of a simple object, the text of it the document holds (a
/// string without its quotes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scalar<'a> {
    Str(&'a str),
    Int(&'a str),
    Bool(bool, &'a str),
    Null(&'a str),
}

impl<'a> Scalar<'a> {
    /// Where the value is written.
    fn at(self) -> &'a str {
        match self {
            Scalar::Str(s) | Scalar::Int(s) | Scalar::Bool(_, s) | Scalar::Null(s) => s,
        }
    }
}

/// A member's value: one scalar, or a flat array of them (the array's
/// opening bracket for where it is written, and its items' range in
/// [`Object::items`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value<'a> {
    One(Scalar<'a>),
    Many(&'a str, u16, u16),
}

/// A simple object's members in the order written, and its arrays' items.
#[derive(Debug, Default)]
struct Object<'a> {
    members: SmallVec<[(&'a str, Value<'a>); 8]>,
    items: SmallVec<[Scalar<'a>; 8]>,
}

/// The most members a simple object is read with: each member's key is
/// compared with the ones after it (the last of a repeated key is kept),
/// so a larger one goes to the markdown reading, which sorts them.
const MAX_MEMBERS: usize = 32;

/// The members of `text` when it is one simple JSON object (see the
/// module doc) and nothing else but whitespace; `None` for any other
/// text, valid JSON or not. What it accepts, serde_json reads alike: the
/// strings hold no escape, the integers are written as serde_json writes
/// them back.
fn scan<'a>(text: &'a str, object: &mut Object<'a>) -> Option<()> {
    let mut s = Scanner { text, at: 0 };
    s.blank();
    s.byte(b'{')?;
    s.blank();
    if s.byte(b'}').is_none() {
        loop {
            s.blank();
            let key = s.string()?;
            s.blank();
            s.byte(b':')?;
            s.blank();
            let value = match s.peek()? {
                b'[' => {
                    let open = text.get(s.at..s.at + 1)?;
                    s.at += 1;
                    let start = u16::try_from(object.items.len()).ok()?;
                    s.blank();
                    if s.byte(b']').is_none() {
                        loop {
                            s.blank();
                            object.items.push(s.scalar()?);
                            s.blank();
                            if s.byte(b']').is_some() {
                                break;
                            }
                            s.byte(b',')?;
                        }
                    }
                    Value::Many(open, start, u16::try_from(object.items.len()).ok()?)
                }
                _ => Value::One(s.scalar()?),
            };
            if object.members.len() == MAX_MEMBERS {
                return None;
            }
            object.members.push((key, value));
            s.blank();
            if s.byte(b'}').is_some() {
                break;
            }
            s.byte(b',')?;
        }
    }
    s.blank();
    (s.at == text.len()).then_some(())
}

struct Scanner<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// JSON's whitespace.
    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn byte(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.at += 1)
    }

    /// A string with no escape and no control character: its text.
    fn string(&mut self) -> Option<&'a str> {
        self.byte(b'"')?;
        let from = self.at;
        // Eight bytes at a time (`find::string_stop`): a byte at a time
        // through a table was ~5 instructions a byte of every string.
        let rest = self.text.as_bytes().get(from..)?;
        let run = crate::find::string_stop(rest).unwrap_or(rest.len());
        self.at += run;
        self.byte(b'"')?;
        // `"` is ASCII: both cuts are on character boundaries.
        self.text.get(from..from + run)
    }

    fn scalar(&mut self) -> Option<Scalar<'a>> {
        let rest = self.text.get(self.at..)?;
        let word = |w: &str| rest.starts_with(w).then(|| &rest[..w.len()]);
        let scalar = match self.peek()? {
            b'"' => return self.string().map(Scalar::Str),
            b't' => Scalar::Bool(true, word("true")?),
            b'f' => Scalar::Bool(false, word("false")?),
            b'n' => Scalar::Null(word("null")?),
            b'-' | b'0'..=b'9' => {
                // An integer as serde_json writes it back: no `-0`, no
                // leading zero, no fraction or exponent, and small enough
                // to stay an integer (at most 18 digits).
                let digits = rest.bytes().skip(usize::from(rest.starts_with('-')));
                let n = digits.clone().take_while(u8::is_ascii_digit).count();
                let len = n + usize::from(rest.starts_with('-'));
                let int = &rest[..len];
                let follows = rest.as_bytes().get(len);
                if n == 0
                    || n > 18
                    || (n > 1 && int.trim_start_matches('-').starts_with('0'))
                    || int == "-0"
                    || matches!(follows, Some(b'.' | b'e' | b'E'))
                {
                    return None;
                }
                Scalar::Int(int)
            }
            _ => return None,
        };
        self.at += scalar.at().len();
        Some(scalar)
    }
}

/// What a key names (see [`field_of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    /// A labelled field.
    Label(Label),
    /// `tests_pass: true`, amail's own JSON's spelling of `Tests: PASS`.
    Check(Label),
    Section(SectionKind),
    Nothing,
}

/// What the key `name` (spaced: `_` and `-` read as spaces, trimmed; see
/// [`spaced`]) names, its value a boolean or not: the one reading of a
/// key, for both readings of a body.
fn field_of(name: &str, boolean: bool) -> Field {
    if boolean {
        if let Some(check) = name.strip_suffix(" pass") {
            return Label::lookup(check).map_or(Field::Nothing, Field::Check);
        }
    }
    if let Some(label) = Label::lookup(name) {
        Field::Label(label)
    } else {
        match SectionKind::from_title(name) {
            SectionKind::Other => Field::Nothing,
            kind => Field::Section(kind),
        }
    }
}

/// [`field_of`] of the keys agents and amail's own JSON write, as they
/// write them (`bead`, `tests_pass`, `next_steps`), decided by one
/// compare of the whole key; `None` for any other spelling, which goes
/// through [`key_words`], [`spaced`] and [`field_of`] (the alias search,
/// the copy and the UTF-8 check were ~280 instructions a key). A test
/// holds each to the general reading.
fn usual_key(key: &str, boolean: bool) -> Option<Field> {
    use Label as L;
    use SectionKind as K;
    let label = |l| Some(Field::Label(l));
    let check = |l| {
        Some(if boolean {
            Field::Check(l)
        } else {
            Field::Nothing
        })
    };
    match key {
        "bead" | "bead_id" => label(L::Bead),
        "accepted_bead" => label(L::AcceptedBead),
        "title" => label(L::Title),
        "started_at" => label(L::StartingAt),
        "status" => label(L::Status),
        "step" => label(L::Step),
        "context_usage" => label(L::ContextUsage),
        "files_touched" => label(L::FilesTouched),
        "issue_type" => label(L::IssueType),
        "commit" | "commit_sha" | "partial_commit_sha" => label(L::Commit),
        "files" | "files_changed" => label(L::Files),
        "tests_pass" => check(L::Tests),
        "lint_pass" => check(L::Lint),
        "build_pass" => check(L::Build),
        "tests" => label(L::Tests),
        "lint" => label(L::Lint),
        "build" => label(L::Build),
        "type" | "failure_type" => label(L::Type),
        "reason" | "checkpoint_reason" => label(L::Reason),
        "internal_attempts" => label(L::InternalAttempts),
        "progress" | "description" => label(L::Description),
        "issue" => label(L::Issue),
        "resume" => label(L::Resume),
        "checkpoint" => label(L::Checkpoint),
        "orchestrator" => label(L::Orchestrator),
        "session" => label(L::Session),
        "problem" => Some(Field::Section(K::Problem)),
        "what_tried" => Some(Field::Section(K::WhatTried)),
        "question" => Some(Field::Section(K::Question)),
        "summary" => Some(Field::Section(K::Summary)),
        "recommendation" => Some(Field::Section(K::Recommendation)),
        "next_steps" => Some(Field::Section(K::NextSteps)),
        _ => None,
    }
}

/// The keys [`usual_key`] decides, for its test.
#[cfg(test)]
const USUAL_KEYS: &[&str] = &[
    "bead",
    "bead_id",
    "accepted_bead",
    "title",
    "started_at",
    "status",
    "step",
    "context_usage",
    "files_touched",
    "issue_type",
    "commit",
    "commit_sha",
    "partial_commit_sha",
    "files",
    "files_changed",
    "tests_pass",
    "lint_pass",
    "build_pass",
    "tests",
    "lint",
    "build",
    "type",
    "failure_type",
    "reason",
    "checkpoint_reason",
    "internal_attempts",
    "progress",
    "description",
    "issue",
    "resume",
    "checkpoint",
    "orchestrator",
    "session",
    "problem",
    "what_tried",
    "question",
    "summary",
    "recommendation",
    "next_steps",
];

/// A key as the name of a field: its alias (the names amail's own JSON
/// gives fields whose labels differ), trimmed of `_`, `-` and whitespace.
fn key_words(key: &str) -> &str {
    let alias = JSON_ALIASES
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, label)| *label);
    trim_key(alias.unwrap_or(key))
}

/// `words` with `_` and `-` read as spaces, into `buf` (on the stack for
/// the usual key: a string each was most of the allocations here) or
/// `long`; not copied at all when it has neither.
fn spaced<'w>(words: &'w str, buf: &'w mut [u8; 48], long: &'w mut String) -> &'w str {
    if !words.contains(['_', '-']) {
        return words;
    }
    match buf.get_mut(..words.len()) {
        Some(b) => {
            b.copy_from_slice(words.as_bytes());
            for c in b.iter_mut().filter(|c| matches!(c, b'_' | b'-')) {
                *c = b' ';
            }
            // ASCII bytes changed for ASCII bytes: still UTF-8.
            std::str::from_utf8(b).unwrap_or_default()
        }
        None => {
            *long = words.replace(['_', '-'], " ");
            long.as_str()
        }
    }
}

impl<'a> Direct<'a> {
    /// Reads `object` into this (empty) reading as the markdown reading
    /// reads it; `None` where the two could differ (a value that text
    /// would carry otherwise: a list in a one-value field, text a markdown
    /// rule would read; two keys for one field), and this is then left
    /// unfinished.
    fn read(&mut self, object: &Object<'a>) -> Option<()> {
        let Object { members, items } = object;
        let direct = self;
        let mut seen = 0u32;
        let mut sections_seen = 0u32;
        for (i, (key, value)) in members.iter().enumerate() {
            // The last of a repeated key is kept (as `fenced_json_fields`
            // keeps them); the order of the rest does not matter, as no
            // two keys may name one field here.
            if members[i + 1..].iter().any(|(next, _)| next == key) {
                continue;
            }
            let boolean = matches!(value, Value::One(Scalar::Bool(..)));
            let field = match usual_key(key, boolean) {
                Some(field) => field,
                None => {
                    let (mut buf, mut long) = ([0u8; 48], String::new());
                    field_of(spaced(key_words(key), &mut buf, &mut long), boolean)
                }
            };
            let label = match field {
                Field::Label(l) | Field::Check(l) => Some(l),
                Field::Section(_) => None,
                Field::Nothing => continue,
            };
            if let Some(label) = label {
                let bit = 1u32 << (label as u8);
                if seen & bit != 0 {
                    return None;
                }
                seen |= bit;
            }
            match (field, value) {
                (Field::Check(label), Value::One(Scalar::Bool(b, at))) => {
                    direct
                        .labels
                        .push((label, if *b { "PASS" } else { "FAIL" }, at));
                }
                (Field::Label(label @ (Label::Files | Label::FilesTouched)), value) => {
                    let (at, items): (&str, Items<'_>) = match value {
                        Value::One(Scalar::Str(s)) => (s, SmallVec::from_slice(&[*s])),
                        Value::Many(at, from, to) => (
                            at,
                            items[usize::from(*from)..usize::from(*to)]
                                .iter()
                                .map(|i| match i {
                                    Scalar::Str(s) => Some(*s),
                                    _ => None,
                                })
                                .collect::<Option<_>>()?,
                        ),
                        _ => return None,
                    };
                    // An item the list reader would cut or trim.
                    if !items.iter().all(|i| plain_item(i)) {
                        return None;
                    }
                    direct.labels.push((label, "", at));
                    direct.lists.push((label, items));
                }
                (Field::Label(label), Value::One(v)) => {
                    let text = match *v {
                        Scalar::Str(s) | Scalar::Int(s) => s,
                        Scalar::Bool(b, _) => {
                            if b {
                                "true"
                            } else {
                                "false"
                            }
                        }
                        Scalar::Null(_) => "",
                    };
                    // The value as the field line's reader cuts it.
                    let text = trim(text);
                    direct.labels.push((label, text, v.at()));
                }
                (Field::Section(kind), value) => {
                    let bit = 1u32 << (kind as u8);
                    if sections_seen & bit != 0 {
                        return None;
                    }
                    sections_seen |= bit;
                    let text = match value {
                        Value::One(Scalar::Str("")) => None,
                        Value::One(Scalar::Null(_)) => None,
                        Value::One(Scalar::Str(s)) if plain_text(s) => Some(Cow::Borrowed(*s)),
                        Value::Many(_, from, to) if from == to => None,
                        Value::Many(_, from, to) => {
                            let items = &items[usize::from(*from)..usize::from(*to)];
                            // Checked and measured first, then written
                            // into a string made at its size: pushed into
                            // an empty one, it was reallocated twice for
                            // two short items (~250 instructions).
                            let mut len = items.len() - 1;
                            for item in items {
                                let Scalar::Str(s) = item else { return None };
                                if !plain_text(s) {
                                    return None;
                                }
                                len += s.len();
                            }
                            let mut text = String::with_capacity(len);
                            for (n, item) in items.iter().enumerate() {
                                if n > 0 {
                                    text.push('\n');
                                }
                                text.push_str(item.at());
                            }
                            Some(Cow::Owned(text))
                        }
                        _ => return None,
                    };
                    direct.sections.push((kind, text));
                }
                _ => return None,
            }
        }
        Some(())
    }
}

/// A list item the list reader keeps as it is: no comma, backtick or
/// blank at either end, not empty.
fn plain_item(item: &str) -> bool {
    !item.is_empty() && !item.contains([',', '`']) && trim(item).len() == item.len()
}

/// A section's text that the body index reads as prose, nothing else: it
/// opens with an ASCII letter (no heading, list, fence, quote or glyph),
/// holds no `:` (no field, no `Problem:` heading) and ends in no blank.
fn plain_text(s: &str) -> bool {
    s.as_bytes().first().is_some_and(u8::is_ascii_alphabetic)
        && !s.contains(':')
        && trim(s).len() == s.len()
}

/// The lines inside a fenced block that wraps a body whole ([`crate::decor::fenced_whole`])
/// as a JSON object of the message's fields (```` ```json ```` then
/// `{"bead": "ol-1", "status": "...", "files": [...]}`): the same fields
/// written in the markdown form the body index reads, one `Label: value`
/// line per field the protocol labels (`bead_id` is `Bead id:`, arrays
/// joined with `, `, `tests_pass: true` is `Tests: PASS`) and a `## Title`
/// section for each field the protocol writes as one (`problem`,
/// `next_steps`). Other keys are left out. `None` unless the block holds
/// a JSON object. The JSON is read by serde_json, as framing reads it.
#[cold]
#[inline(never)]
pub(crate) fn fenced_json_fields<'a>(doc: &'a str, inner: &[Line<'a>]) -> Option<String> {
    // The block's text as the document holds it (copied only where its
    // endings are not plain): trailing blanks and CRLF are whitespace to
    // JSON, and no JSON string can hold a line break.
    let text = crate::lines::join_lines(doc, inner);
    let JsonObject(mut fields) = serde_json::from_str(&text).ok()?;
    // In key order, the last of a repeated key kept: as serde_json's map
    // held them, which this was first read into.
    fields.sort_by(|a, b| a.0.cmp(&b.0));
    // Labels first, sections after them: a section runs to the next
    // heading, so a label written after one would be read inside it (and
    // the keys are in key order, not the order written). The sections
    // are written after the loop, from this list (a string of their own
    // was an allocation and a copy per body).
    let mut out = String::with_capacity(text.len() + 16);
    let mut sections: smallvec::SmallVec<[(&str, &JsonValue<'_>); 4]> = smallvec::SmallVec::new();
    let push = |to: &mut String, parts: &[&str]| parts.iter().for_each(|p| to.push_str(p));
    let last_of_each = fields
        .iter()
        .enumerate()
        .filter(|(i, (key, _))| fields.get(i + 1).is_none_or(|next| next.0 != *key))
        .map(|(_, field)| field);
    for (key, value) in last_of_each {
        let words = key_words(key);
        let (mut buf, mut long) = ([0u8; 48], String::new());
        let name = spaced(words, &mut buf, &mut long);
        match field_of(name, matches!(value, JsonValue::Bool(_))) {
            // `tests_pass: true` (amail's own JSON) is `Tests: PASS`.
            Field::Check(_) => {
                let check = name.strip_suffix(" pass").unwrap_or(name);
                let JsonValue::Bool(b) = value else { continue };
                push(
                    &mut out,
                    &[check, ": ", if *b { "PASS" } else { "FAIL" }, "\n"],
                );
            }
            Field::Label(_) => {
                // One line: a line break would end the field.
                push(&mut out, &[name, ": "]);
                let from = out.len();
                write_json_text(&mut out, value, ", ");
                if out[from..].contains(['\r', '\n']) {
                    let v = out[from..].replace(['\r', '\n'], " ");
                    out.truncate(from);
                    out.push_str(&v);
                }
                out.push('\n');
            }
            Field::Section(_) => sections.push((words, value)),
            Field::Nothing => {}
        }
    }
    for (words, value) in sections {
        out.push_str("\n## ");
        // The name spaced again, piece by piece.
        for (i, piece) in words.split(['_', '-']).enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(piece);
        }
        out.push('\n');
        write_json_text(&mut out, value, "\n");
        out.push('\n');
    }
    Some(out)
}

/// A JSON key without `_`, `-` and whitespace at either end: on bytes
/// where the key is ASCII at both ends (the `char` pattern decoded and
/// looked up every end character).
fn trim_key(key: &str) -> &str {
    let b = key.as_bytes();
    let strip = |c: u8| matches!(c, b'_' | b'-' | b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let start = b.iter().take_while(|&&c| strip(c)).count();
    let end = b.len() - b[start..].iter().rev().take_while(|&&c| strip(c)).count();
    let trimmed = key.get(start..end).unwrap_or(key);
    match (trimmed.as_bytes().first(), trimmed.as_bytes().last()) {
        (Some(f), Some(l)) if !f.is_ascii() || !l.is_ascii() => {
            trimmed.trim_matches(|c: char| c == '_' || c == '-' || c.is_whitespace())
        }
        _ => trimmed,
    }
}

/// JSON keys (the field names of amail's own JSON) whose markdown label
/// is not the key with spaces for underscores.
const JSON_ALIASES: &[(&str, &str)] = &[
    ("checkpoint_reason", "Reason"),
    ("partial_commit_sha", "Commit"),
    ("what_tried", "What I tried"),
    ("progress", "Description"),
];

/// A JSON value as field text, written to `out`: a string as it is, an
/// array's items joined by `sep` (an item that is itself an array has its
/// items joined by spaces), anything else as JSON.
fn write_json_text(out: &mut String, v: &JsonValue<'_>, sep: &str) {
    match v {
        JsonValue::Str(s) => out.push_str(s),
        JsonValue::Null => {}
        JsonValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        JsonValue::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                write_json_text(out, item, " ");
            }
        }
        JsonValue::Other(other) => {
            use std::fmt::Write as _;
            let _ = write!(out, "{other}");
        }
    }
}

/// A fenced JSON body's object: its members as written (see
/// [`fenced_json_fields`] for their order).
struct JsonObject<'t>(Vec<(Cow<'t, str>, JsonValue<'t>)>);

/// A member's value, as much as [`write_json_text`] writes of it: strings
/// borrowed from the text where they hold no escape (read into
/// `serde_json::Value`, every key and string was a string of its own, and
/// the map's nodes more: about a third of parsing such a message), and
/// numbers and objects as `Value` (written back as JSON).
enum JsonValue<'t> {
    Str(Cow<'t, str>),
    Bool(bool),
    Null,
    Array(Vec<JsonValue<'t>>),
    Other(serde_json::Value),
}

impl<'de> serde::Deserialize<'de> for JsonObject<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = JsonObject<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                // Room for a body's usual fields at once (grown from
                // empty, the list was reallocated three times).
                let mut members = Vec::with_capacity(map.size_hint().unwrap_or(8).max(8));
                while let Some(key) = map.next_key::<JsonValue<'de>>()? {
                    let JsonValue::Str(key) = key else {
                        return Err(serde::de::Error::custom("a key that is not a string"));
                    };
                    members.push((key, map.next_value()?));
                }
                Ok(JsonObject(members))
            }
        }
        d.deserialize_map(Members)
    }
}

impl<'de> serde::Deserialize<'de> for JsonValue<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Any;
        impl<'de> serde::de::Visitor<'de> for Any {
            type Value = JsonValue<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
                Ok(JsonValue::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
                Ok(JsonValue::Other(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
                Ok(JsonValue::Other(v.into()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
                Ok(JsonValue::Other(v.into()))
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(JsonValue::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(JsonValue::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(JsonValue::Str(Cow::Owned(v)))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(JsonValue::Null)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(JsonValue::Array(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Self::Value, A::Error> {
                use serde::Deserialize;
                serde_json::Value::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(JsonValue::Other)
            }
        }
        d.deserialize_any(Any)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`fenced_json_fields`] as first written: the object read into
    /// `serde_json::Value`, each name and value a string of its own.
    fn json_fields_by_value(text: &str) -> Option<String> {
        fn text_of(v: &serde_json::Value, sep: &str) -> String {
            use serde_json::Value;
            match v {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                Value::Array(items) => items
                    .iter()
                    .map(|i| text_of(i, " "))
                    .collect::<Vec<_>>()
                    .join(sep),
                other => other.to_string(),
            }
        }
        let serde_json::Value::Object(fields) = serde_json::from_str(text).ok()? else {
            return None;
        };
        let (mut out, mut sections) = (String::new(), String::new());
        for (key, value) in &fields {
            let alias = JSON_ALIASES
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, label)| *label);
            let name: String = alias
                .unwrap_or(key)
                .chars()
                .map(|c| if c == '_' || c == '-' { ' ' } else { c })
                .collect();
            let name = name.trim();
            if let (Some(check), serde_json::Value::Bool(b)) = (name.strip_suffix(" pass"), value) {
                if Label::lookup(check).is_some() {
                    out += &[check, ": ", if *b { "PASS" } else { "FAIL" }, "\n"].concat();
                }
                continue;
            }
            if Label::lookup(name).is_some() {
                let v = text_of(value, ", ").replace(['\r', '\n'], " ");
                out += &[name, ": ", &v, "\n"].concat();
            } else if SectionKind::from_title(name) != SectionKind::Other {
                sections += &["\n## ", name, "\n", &text_of(value, "\n"), "\n"].concat();
            }
        }
        Some(out + &sections)
    }

    #[test]
    fn usual_keys_name_what_the_general_reading_names() {
        for key in USUAL_KEYS {
            for boolean in [false, true] {
                let (mut buf, mut long) = ([0u8; 48], String::new());
                let general = field_of(spaced(key_words(key), &mut buf, &mut long), boolean);
                assert_eq!(usual_key(key, boolean), Some(general), "{key} {boolean}");
            }
        }
        assert_eq!(usual_key("Bead", false), None);
    }

    /// `doc` parsed with the direct reading allowed or not: its messages
    /// as JSON, each diagnostic without its position (the markdown
    /// reading reports one in the made-up text; the direct one, where the
    /// document holds the value).
    fn read_both_ways(doc: &str) -> [String; 2] {
        [false, true].map(|markdown| {
            AS_MARKDOWN.with(|c| c.set(markdown));
            let parsed = crate::parse(doc, &crate::ParseOptions::default());
            AS_MARKDOWN.with(|c| c.set(false));
            let mut v = serde_json::to_value(parsed.unwrap()).unwrap();
            for m in v.as_array_mut().unwrap() {
                for d in m["diagnostics"].as_array_mut().unwrap() {
                    let text = d["message"].as_str().unwrap();
                    let text = text.split(" (body line ").next().unwrap().to_string();
                    *d = serde_json::json!([d["code"], text]);
                }
            }
            v.to_string()
        })
    }

    #[test]
    fn the_direct_reading_takes_the_corpus_json_bodies() {
        // Each agents fixture with a JSON body reads directly (its cost is
        // the point) and as the markdown reading reads it.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/agents");
        let mut direct = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let doc = std::fs::read_to_string(&path).unwrap();
            if !path.to_string_lossy().contains("json_body") {
                continue;
            }
            let lines = crate::lines::split_lines(&doc, 1);
            let first = lines
                .iter()
                .position(|l| l.text.starts_with("```") || l.text.starts_with("~~~"))
                .unwrap();
            let close = lines
                .iter()
                .rposition(|l| l.text.starts_with("```") || l.text.starts_with("~~~"))
                .unwrap();
            let mut into = Direct::default();
            if let Some(JsonBody::Direct) = read(&doc, &lines[first + 1..close], Some(&mut into)) {
                direct += 1;
            }
            let [a, b] = read_both_ways(&doc);
            assert_eq!(a, b, "{}", path.display());
        }
        assert_eq!(direct, 8, "the four JSON bodies and their CRLF twins");
    }

    /// Where the direct reading reads an object, it reads it as the
    /// markdown reading does: every key the protocol names and others,
    /// repeated keys, aliases, every kind of value (text a markdown rule
    /// would read, commas and backticks in list items, escapes, nesting,
    /// floats, integers serde_json writes back otherwise), under every
    /// type's subject, LF and CRLF. Most generated objects are simple, and
    /// the test checks that most take the direct reading.
    #[test]
    fn direct_reads_as_the_markdown_does() {
        use proptest::prelude::*;
        let key = prop_oneof![
            8 => proptest::sample::select(vec![
                "bead_id", "bead", "commit", "files", "tests_pass", "lint-pass", "build_pass",
                "status", "step", "context_usage", "files_touched", "issue_type", "reason",
                "checkpoint_reason", "partial_commit_sha", "progress", "failure_type",
                "internal_attempts", "title", "started_at", "issue", "resume", "orchestrator",
                "session", "type", "Accepted_Bead",
            ]),
            3 => proptest::sample::select(vec![
                "problem", "question", "what_tried", "summary", "next_steps", "recommendation",
            ]),
            1 => proptest::sample::select(vec!["x", " Bead ", "_step_", "Files-Touched", "é_pass"]),
        ];
        let value = prop_oneof![
            12 => proptest::sample::select(vec![
                "\"ol-1\"", "\"DONE\"", "\"45%\"", "\"PASS\"", "\"FAIL\"", "\"STUCK\"",
                "\"a.rs\"", "\"prose about it\"", "\"é\"", "\"\"", "true", "false", "null",
                "0", "42", "-3", "[]", "[\"a.rs\", \"b.rs\"]", "[\"one step\", \"two\"]",
            ]),
            2 => proptest::sample::select(vec![
                "\"Status: done\"", "\"## Heading\"", "\"- item\"", "\"a, b\"",
                "\"`a.rs`\"", "\" padded \"", "\"a\\nb\"", "\"say \\\"hi\\\"\"", "1.5",
                "007", "-0", "[\"a, b\"]", "[\"x\", 1]", "[[\"x\"]]", "{\"k\": 1}",
            ]),
        ];
        let subject = proptest::sample::select(vec![
            "[ol-1] DONE",
            "[ol-1] PROGRESS",
            "[ol-1] CHECKPOINT",
            "[ol-2] HELP_REQUEST",
            "Re: [ol-2] HELP_REQUEST",
            "[ol-1] HELP_RESPONSE",
            "[ol-1] FAILED",
            "[ol-1] OFFERING_READY",
            "[ol-1] SPAWN_REQUEST",
            "[ol-1] SPAWN_ACK",
            "[ol-1] BEAD_ACCEPTED",
            "status report",
            "[ol-1] NUDGE",
        ]);
        let cases = (
            subject,
            proptest::collection::vec((key, value), 0..6),
            any::<bool>(),
        );
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: 4096,
            ..ProptestConfig::default()
        });
        let (direct, all) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
        runner
            .run(&cases, |(subject, members, crlf)| {
                let body: Vec<String> = members
                    .iter()
                    .map(|(k, v)| format!("  \"{k}\": {v}"))
                    .collect();
                let doc = format!(
                    "Subject: {subject}\nFrom: A\nTo: B\n\nBody:\n```json\n{{\n{}\n}}\n```\n",
                    body.join(",\n")
                );
                let doc = if crlf { doc.replace('\n', "\r\n") } else { doc };
                let before = DIRECT_READS.with(std::cell::Cell::get);
                let [read_directly, markdown] = read_both_ways(&doc);
                all.set(all.get() + 1);
                if DIRECT_READS.with(std::cell::Cell::get) > before {
                    direct.set(direct.get() + 1);
                }
                prop_assert_eq!(read_directly, markdown);
                Ok(())
            })
            .unwrap();
        let (direct, all) = (direct.get(), all.get());
        assert!(direct * 4 > all, "{direct} of {all} read directly");
    }

    proptest::proptest! {
        /// The scanner reads what serde_json reads, or nothing: on objects
        /// of every kind of value, and on near misses.
        #[test]
        fn the_scanner_reads_as_serde_json_does(
            text in "[ \\n]{0,2}\\{[ \\n]{0,2}(\"[a-z_é]{0,6}\"[ ]?:[ ]?(\"[a-z :,é\\\\]{0,6}\"|-?[0-9]{1,3}|true|false|null|1\\.5|1e2|\\[(\"a\"|1|null|\\[\\])?(, ?\"b\")?\\]|\\{\\}),?[ \\n]{0,2}){0,4}\\}[ \\nx]{0,2}",
        ) {
            let mut object = Object::default();
            if scan(&text, &mut object).is_some() {
                let value: serde_json::Value = serde_json::from_str(&text).unwrap();
                let map = value.as_object().unwrap();
                // The last of a repeated key is serde_json's.
                for (i, (key, v)) in object.members.iter().enumerate() {
                    if object.members[i + 1..].iter().any(|(k, _)| k == key) {
                        continue;
                    }
                    let want = &map[*key];
                    let scalar = |s: &Scalar<'_>| match *s {
                        Scalar::Str(t) => serde_json::Value::from(t),
                        Scalar::Int(t) => serde_json::from_str(t).unwrap(),
                        Scalar::Bool(b, _) => serde_json::Value::from(b),
                        Scalar::Null(_) => serde_json::Value::Null,
                    };
                    let got = match *v {
                        Value::One(s) => scalar(&s),
                        Value::Many(_, from, to) => serde_json::Value::Array(
                            object.items[usize::from(from)..usize::from(to)].iter().map(scalar).collect(),
                        ),
                    };
                    proptest::prop_assert_eq!(&got, want);
                    if let Value::One(Scalar::Int(t)) = *v {
                        proptest::prop_assert_eq!(want.to_string(), t);
                    }
                }
            }
        }
    }

    proptest::proptest! {
        /// A fenced JSON body reads as it did through `serde_json::Value`:
        /// repeated keys (the last one kept), escapes in keys and values,
        /// every kind of value, nested, and text that is no object.
        #[test]
        fn json_bodies_read_as_through_value(
            members in proptest::collection::vec((
                proptest::sample::select(vec![
                    "bead_id", "bead", "commit", "files", "tests_pass", "lint-pass", "status",
                    "problem", "what_tried", "next_steps", "progress", "x", " Bead ", "_step_",
                    "bead\\u005fid", "Files\\nTouched", "files_touched", "é_pass", "build_pass",
                ]),
                proptest::sample::select(vec![
                    "\"ol-1\"", "\"a\\nb\\r\"", "\"\\u00e9 \\\"q\\\"\"", "true", "false", "null",
                    "0", "-2", "1.5", "1e400", "18446744073709551615", "[]", "[\"a.rs\", \"b.rs\"]",
                    "[1, [\"x\", null], {\"k\": 2}]", "{\"b\": [1], \"a\": \"z\"}", "\"\"",
                ]),
            ), 0..8),
            wrap in proptest::sample::select(vec![("{", "}"), ("[", "]"), ("{", "} x"), ("", "")]),
        ) {
            let body: Vec<String> = members.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
            let text = format!("{}{}{}\n", wrap.0, body.join(",\n"), wrap.1);
            let lines = crate::lines::split_lines(&text, 1);
            proptest::prop_assert_eq!(
                fenced_json_fields(&text, &lines),
                json_fields_by_value(&text).filter(|_| text.starts_with('{'))
            );
        }
    }
}
