//! The values of a JSON message object as an envelope reads them, from
//! either of two holders: a `serde_json::Value` (a JSON document's
//! messages, found among arrays and wrappers) or a [`FrontMatter`] read
//! straight from the text (an archive file's `---json` front matter).
//!
//! The front matter is read in one pass with serde_json's own reader, so
//! it accepts and rejects exactly what reading it as a `Value` does (the
//! same syntax errors at the same places, the same number range, the same
//! nesting limit): every value goes through `deserialize_any` as a
//! `Value`'s does. What differs is what is kept. A `Value` makes a map of
//! every key and an owned string of every string; the front matter keeps
//! only the keys an envelope reads ([`KEYS`]), their strings borrowed from
//! the text where they hold no escape, and passes over the rest. An mcp
//! archive file's front matter (~370 bytes) cost ~40,000 instructions as
//! a `Value`, its key walk and its copies, eight times its body's parse.
//!
//! [`Field`] is what the envelope asks of a value (as text, as names, as a
//! yes or no), answered alike by both holders (a property test holds
//! them alike), so the mapping of keys to header fields is written once
//! (`framing::from_object`).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

use crate::model::Names;

/// A message object's value as an envelope reads it.
pub(crate) trait Field<'a> {
    fn is_null(&self) -> bool;
    /// As text: a string, a number or a boolean as JSON writes it, an
    /// object's `name`.
    fn text(&self) -> Option<Cow<'a, str>>;
    /// As names: an array's items that read as text, or a string's names
    /// between commas (trimmed, none empty).
    fn names(&self) -> Names<'a>;
    /// As a yes or no: a boolean, a number (not 0), a string read as
    /// `values::yes_no` reads it.
    fn truth(&self) -> Option<bool>;
}

/// The value of the first of `keys` the object has and not null (found by
/// `value`): the key an envelope takes a header from, and the one whose
/// place it points at.
pub(crate) fn first_of<'a, 'v, V: Field<'a> + 'v>(
    value: impl Fn(&str) -> Option<&'v V>,
    keys: &[&str],
) -> Option<&'v V> {
    keys.iter().find_map(|k| value(k).filter(|v| !v.is_null()))
}

/// A string's names between commas.
fn names_in(s: &str) -> impl Iterator<Item = &str> {
    s.split(',').map(str::trim).filter(|s| !s.is_empty())
}

fn number_truth(n: &Number) -> Option<bool> {
    n.as_i64().map(|n| n != 0)
}

impl<'a> Field<'a> for Value {
    fn is_null(&self) -> bool {
        Value::is_null(self)
    }

    fn text(&self) -> Option<Cow<'a, str>> {
        match self {
            Value::String(s) => Some(Cow::Owned(s.clone())),
            Value::Number(n) => Some(Cow::Owned(n.to_string())),
            Value::Bool(b) => Some(Cow::Owned(b.to_string())),
            Value::Object(o) => o.get("name").and_then(Field::text),
            _ => None,
        }
    }

    fn names(&self) -> Names<'a> {
        match self {
            Value::Array(items) => items.iter().filter_map(Field::text).collect(),
            Value::String(s) => names_in(s).map(|n| Cow::Owned(n.to_string())).collect(),
            _ => Names::new(),
        }
    }

    fn truth(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            Value::Number(n) => number_truth(n),
            Value::String(s) => crate::values::yes_no(s).ok(),
            _ => None,
        }
    }
}

/// A value as written in the front matter, kept for a key an envelope
/// reads: strings borrowed from the text unless they hold an escape.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Written<'a> {
    Null,
    Bool(bool),
    Number(Number),
    Str(Cow<'a, str>),
    Array(Vec<Written<'a>>),
    /// An object, by its `name` (the last one written, as a map keeps
    /// it): all an envelope reads of one.
    Object(Option<Box<Written<'a>>>),
}

impl<'a> Field<'a> for Written<'a> {
    fn is_null(&self) -> bool {
        matches!(self, Written::Null)
    }

    fn text(&self) -> Option<Cow<'a, str>> {
        match self {
            Written::Str(s) => Some(s.clone()),
            Written::Number(n) => Some(Cow::Owned(n.to_string())),
            Written::Bool(b) => Some(Cow::Owned(b.to_string())),
            Written::Object(name) => name.as_deref().and_then(Field::text),
            _ => None,
        }
    }

    fn names(&self) -> Names<'a> {
        match self {
            Written::Array(items) => items.iter().filter_map(Field::text).collect(),
            Written::Str(Cow::Borrowed(s)) => names_in(s).map(Cow::Borrowed).collect(),
            Written::Str(Cow::Owned(s)) => names_in(s).map(|n| Cow::Owned(n.to_string())).collect(),
            _ => Names::new(),
        }
    }

    fn truth(&self) -> Option<bool> {
        match self {
            Written::Bool(b) => Some(*b),
            Written::Number(n) => number_truth(n),
            Written::Str(s) => crate::values::yes_no(s).ok(),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Written<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(WrittenVisitor)
    }
}

struct WrittenVisitor;

impl<'de> Visitor<'de> for WrittenVisitor {
    type Value = Written<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Written<'de>, E> {
        Ok(Written::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Written<'de>, E> {
        Ok(Written::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Written<'de>, E> {
        Ok(Written::Number(n.into()))
    }

    // As `Value` takes a float: one that is no JSON number is null.
    fn visit_f64<E>(self, f: f64) -> Result<Written<'de>, E> {
        Ok(Number::from_f64(f).map_or(Written::Null, Written::Number))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Written<'de>, E> {
        Ok(Written::Str(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Written<'de>, E> {
        Ok(Written::Str(Cow::Owned(s.to_string())))
    }

    fn visit_string<E>(self, s: String) -> Result<Written<'de>, E> {
        Ok(Written::Str(Cow::Owned(s)))
    }

    fn visit_unit<E>(self) -> Result<Written<'de>, E> {
        Ok(Written::Null)
    }

    fn visit_none<E>(self) -> Result<Written<'de>, E> {
        Ok(Written::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Written<'de>, D::Error> {
        Written::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Written<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Written::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Written<'de>, A::Error> {
        let mut name = None;
        while let Some(key) = map.next_key_seed(KeyIn(&["name"]))? {
            match key {
                Some(_) => name = Some(Box::new(map.next_value::<Written<'de>>()?)),
                None => map.next_value::<Skip>().map(drop)?,
            }
        }
        Ok(Written::Object(name))
    }
}

/// A value read (and so checked) as a `Value` would be, and not kept.
struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Skip)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = Skip;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_none<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Skip, D::Error> {
        Skip::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Skip)
    }
}

/// Which of the keys a map key is (its index), `None` for any other.
struct KeyIn<'k>(&'k [&'k str]);

impl<'de> DeserializeSeed<'de> for KeyIn<'_> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyIn<'_> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|k| *k == s))
    }
}

/// Every key `framing::from_object` reads (its header fields' keys and
/// [`crate::json_keys`]'), kept by a front matter; any other is passed over.
pub(crate) const KEYS: [&str; 24] = [
    "id",
    "message_id",
    "subject",
    "from",
    "sender_name",
    "sender",
    "to",
    "cc",
    "thread_id",
    "threadId",
    "thread",
    "created_ts",
    "created",
    "timestamp",
    "created_at",
    "date",
    "ack_required",
    "ackRequired",
    "importance",
    "project_slug",
    "project",
    "body_md",
    "body",
    "text",
];

/// An archive file's `---json` object, as far as an envelope reads it:
/// the last value written for each of [`KEYS`] (a map keeps the last).
pub(crate) struct FrontMatter<'a>([Option<Written<'a>>; KEYS.len()]);

impl<'a> FrontMatter<'a> {
    /// The value written for `key` (one of [`KEYS`]; any other has none).
    pub(crate) fn get(&self, key: &str) -> Option<&Written<'a>> {
        let i = KEYS.iter().position(|k| *k == key);
        debug_assert!(i.is_some(), "`{key}` is not one of the keys kept");
        self.0[i?].as_ref()
    }

    /// Reads `json`: `Ok(None)` when it is JSON but no object, serde_json's
    /// error (as a `Value`'s reading gives it) when it is no JSON.
    pub(crate) fn read(json: &'a str) -> serde_json::Result<Option<FrontMatter<'a>>> {
        serde_json::from_str::<Top<'a>>(json).map(|t| t.0)
    }
}

/// The whole document: an object's front matter, or `None` for any other
/// value (read to its end all the same).
struct Top<'a>(Option<FrontMatter<'a>>);

impl<'de> Deserialize<'de> for Top<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TopVisitor)
    }
}

struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Top<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top<'de>, A::Error> {
        let mut slots: [Option<Written<'de>>; KEYS.len()] = Default::default();
        while let Some(key) = map.next_key_seed(KeyIn(&KEYS))? {
            match key {
                Some(i) => slots[i] = Some(map.next_value()?),
                None => map.next_value::<Skip>().map(drop)?,
            }
        }
        Ok(Top(Some(FrontMatter(slots))))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Top<'de>, A::Error> {
        Skip.visit_seq(seq).map(|_| Top(None))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Top<'de>, E> {
        Ok(Top(None))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Top<'de>, E> {
        Ok(Top(None))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Top<'de>, E> {
        Ok(Top(None))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Top<'de>, E> {
        Ok(Top(None))
    }

    fn visit_str<E>(self, _: &str) -> Result<Top<'de>, E> {
        Ok(Top(None))
    }

    fn visit_unit<E>(self) -> Result<Top<'de>, E> {
        Ok(Top(None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_keys::{BODY_KEYS, SUBJECT_KEYS, TIMESTAMP_KEYS};
    use proptest::prelude::*;

    /// A JSON value of the kinds a front matter holds, or tries to:
    /// strings with escapes and non-ASCII letters, numbers large and
    /// negative, objects with and without a `name`.
    fn value() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_string()),
            any::<bool>().prop_map(|b| b.to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<u64>().prop_map(|n| n.to_string()),
            prop_oneof![Just("1.5"), Just("-0.0"), Just("1e3"), Just("2E-2")]
                .prop_map(String::from),
            "[a-c ,é\u{1F600}]{0,8}".prop_map(|s| serde_json::to_string(&s).unwrap()),
            prop_oneof![
                Just(r#""a\"b""#),
                Just(r#""x\u00e9, y""#),
                Just(r#""\ud83d\ude00""#),
                Just(r#""yes""#),
                Just(r#""0""#)
            ]
            .prop_map(String::from),
        ];
        leaf.prop_recursive(3, 12, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(|v| format!("[{}]", v.join(", "))),
                prop::collection::vec(
                    (
                        prop_oneof![Just("name"), Just("id"), Just("n\\u0061me")],
                        inner
                    ),
                    0..3
                )
                .prop_map(|v| {
                    let e: Vec<_> = v.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
                    format!("{{{}}}", e.join(", "))
                }),
            ]
        })
    }

    /// An object of keys an envelope reads and keys it does not, some
    /// repeated, one per line or all on one.
    fn object() -> impl Strategy<Value = String> {
        let key = prop_oneof![
            prop::sample::select(KEYS.to_vec()).prop_map(String::from),
            Just("bcc".to_string()),
            Just("attachments".to_string()),
            Just("sub\\u006aect".to_string()),
        ];
        (prop::collection::vec((key, value()), 0..10), any::<bool>()).prop_map(
            |(entries, lines)| {
                let sep = if lines { ",\n  " } else { ", " };
                let e: Vec<_> = entries
                    .iter()
                    .map(|(k, v)| format!("\"{k}\": {v}"))
                    .collect();
                format!("{{{}}}", e.join(sep))
            },
        )
    }

    /// What an envelope asks of a value: null, as text, as names, as a
    /// yes or no.
    type Answers<'a> = (bool, Option<Cow<'a, str>>, Vec<String>, Option<bool>);

    fn answers<'a, V: Field<'a>>(v: Option<&V>) -> Option<Answers<'a>> {
        v.map(|v| {
            let names = v.names().iter().map(|n| n.to_string()).collect();
            (v.is_null(), v.text(), names, v.truth())
        })
    }

    proptest! {
        /// Every key an envelope reads answers alike from the front
        /// matter and from the object read as a `Value`.
        #[test]
        fn a_front_matter_answers_as_its_value_does(text in object()) {
            let value: Value = serde_json::from_str(&text).unwrap();
            let map = value.as_object().unwrap();
            let front = FrontMatter::read(&text).unwrap().unwrap();
            for key in KEYS {
                prop_assert_eq!(answers(front.get(key)), answers(map.get(key)), "key {}", key);
            }
        }

        /// Broken or not, a text is read as a `Value` reads it: the same
        /// error (message, line, column) or the same answer to "is it an
        /// object".
        #[test]
        fn a_front_matter_is_accepted_and_rejected_as_a_value_is(
            text in object(),
            cut in any::<prop::sample::Index>(),
            insert in prop::sample::select(vec!["", ",", "}", "]", "\"", ":", "\\", "1e999", "[", "\u{1}", "\n", "tru", "-"]),
            whole in prop_oneof![Just(None), Just(Some("[1, {\"a\": 2}]")), Just(Some("\"x\"")), Just(Some("7")), Just(Some("null"))],
        ) {
            let text = match whole {
                Some(w) => w.to_string(),
                None => {
                    let mut at = cut.index(text.len() + 1);
                    while !text.is_char_boundary(at) {
                        at -= 1;
                    }
                    format!("{}{insert}{}", &text[..at], &text[at..])
                }
            };
            let front = FrontMatter::read(&text).map(|f| f.is_some()).map_err(|e| e.to_string());
            let value = serde_json::from_str::<Value>(&text).map(|v| v.is_object()).map_err(|e| e.to_string());
            prop_assert_eq!(front, value);
        }
    }

    #[test]
    fn a_nesting_too_deep_for_a_value_is_too_deep_for_a_front_matter() {
        let deep = format!("{{\"bcc\": {}{}}}", "[".repeat(200), "]".repeat(200));
        let value = serde_json::from_str::<Value>(&deep)
            .unwrap_err()
            .to_string();
        let front = FrontMatter::read(&deep).err().map(|e| e.to_string());
        assert_eq!(front, Some(value));
    }

    #[test]
    fn strings_without_escapes_are_borrowed_from_the_text() {
        let text = r#"{"subject": "[ol-1] DONE", "from": "a\"b", "to": ["X", "Y"]}"#;
        let front = FrontMatter::read(text).unwrap().unwrap();
        assert!(matches!(
            front.get("subject"),
            Some(Written::Str(Cow::Borrowed("[ol-1] DONE")))
        ));
        assert!(matches!(front.get("from"), Some(Written::Str(Cow::Owned(s))) if s == "a\"b"));
        assert_eq!(front.get("to").map(|v| v.names()).unwrap(), ["X", "Y"]);
    }

    #[test]
    fn every_key_an_envelope_reads_is_kept() {
        for key in SUBJECT_KEYS.iter().chain(TIMESTAMP_KEYS).chain(BODY_KEYS) {
            assert!(KEYS.contains(key), "{key}");
        }
    }
}
