//! A body that is one fenced JSON object of the message's fields, as
//! agents write one (```` ```json ```` then `{"bead": "ol-1", "status":
//! "...", "files": [...]}`).
//!
//! The fields are read as the same fields written in the markdown form
//! the body index reads ([`fenced_json_fields`]): one `Label: value` line
//! per key the protocol labels, a `## Title` section per key it writes as
//! one, other keys left out. The message's fields then come from that
//! text through the one body index and the one set of extractors, like
//! any other body's.

use std::borrow::Cow;

use crate::body::{Label, SectionKind};
use crate::lines::Line;
use crate::trim::trim;

/// The lines inside a fenced block that wraps a body whole ([`fenced_whole`])
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
    if !inner
        .iter()
        .find(|l| !l.is_blank())
        .is_some_and(|l| trim(l.text).starts_with('{'))
    {
        return None;
    }
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
        // The names amail's own JSON gives fields whose labels differ.
        let alias = JSON_ALIASES
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, label)| *label);
        // `_` and `-` read as spaces, trimmed; on the stack for the
        // usual key (a string each was most of the allocations here),
        // and not copied at all when it has neither.
        let words = trim_key(alias.unwrap_or(key));
        let mut buf = [0u8; 48];
        let spaced;
        let name = if !words.contains(['_', '-']) {
            words
        } else {
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
                    spaced = words.replace(['_', '-'], " ");
                    spaced.as_str()
                }
            }
        };
        // `tests_pass: true` (amail's own JSON) is `Tests: PASS`.
        if let (Some(check), JsonValue::Bool(b)) = (name.strip_suffix(" pass"), value) {
            if Label::lookup(check).is_some() {
                push(
                    &mut out,
                    &[check, ": ", if *b { "PASS" } else { "FAIL" }, "\n"],
                );
            }
            continue;
        }
        if Label::lookup(name).is_some() {
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
        } else if SectionKind::from_title(name) != SectionKind::Other {
            sections.push((words, value));
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

/// A member's value, as much as [`json_text`] reads of it: strings
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
