//! The text of an archive file, byte for byte as the server writes it
//! (`---json\n<front matter>\n---\n\n<body.strip()>\n`, the front matter
//! `json.dumps(indent=2, sort_keys=True)` with its default `ensure_ascii`).
//!
//! Written by hand rather than through a `serde_json::Value` map,
//! `to_string_pretty` and a second pass for the ASCII escapes: a load of
//! an mcp_agent_mail store renders every database row this way (the
//! parser then reads the row as its archive file), and the serde path was
//! a quarter of that load's instructions (callgrind, `amail threads` over
//! the 2,200-message mcp corpus: `render_row_file` 66.2 M of 267.4 M).
//! A test holds it to the serde output.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};

/// The envelope and body of one message, borrowed.
pub(crate) struct Fields<'a> {
    pub id: i64,
    pub thread_id: Option<&'a str>,
    pub project: &'a str,
    pub project_slug: &'a str,
    pub from: &'a str,
    /// The sender's project (human key, slug) when it is not `project`:
    /// a reply across projects carries upstream's `from_address`,
    /// `from_project` and `from_project_slug` keys.
    pub from_project: Option<(&'a str, &'a str)>,
    pub to: Vec<&'a str>,
    pub cc: Vec<&'a str>,
    pub bcc: Vec<&'a str>,
    pub subject: &'a str,
    pub importance: &'a str,
    pub ack_required: bool,
    pub created: DateTime<Utc>,
    pub body_md: &'a str,
}

/// About what a file's front matter takes beside its values: its keys,
/// quotes and punctuation, the time, the id (about 290 bytes).
pub(crate) const FRONT_MATTER_KEYS: usize = 320;

/// The whole file text.
pub(crate) fn file(f: &Fields<'_>) -> String {
    let mut out = String::with_capacity(FRONT_MATTER_KEYS + f.subject.len() + f.body_md.len());
    file_into(f, &mut out);
    out
}

/// Where [`file_into`] wrote the id's digits and the subject's text, as
/// byte ranges from the start of the file: a load's record keeps ranges
/// of the file for them, not copies.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Places {
    pub id: std::ops::Range<usize>,
    /// `None` when the subject was written with an escape (its text is
    /// not in the file as it is).
    pub subject: Option<std::ops::Range<usize>>,
}

/// [`file`], appended to `out` (a load gathers many rows' files in one
/// buffer); where it put the id and the subject.
pub(crate) fn file_into(f: &Fields<'_>, out: &mut String) -> Places {
    let start = out.len();
    let body = f.body_md.trim();
    out.push_str("---json\n{\n");
    out.push_str(match f.ack_required {
        true => "  \"ack_required\": true,\n",
        false => "  \"ack_required\": false,\n",
    });
    out.push_str("  \"attachments\": [],\n");
    key_list(out, "bcc", &f.bcc);
    key_list(out, "cc", &f.cc);
    out.push_str("  \"created\": \"");
    super::timestamps::python_iso_into(f.created, out);
    out.push_str("\",\n");
    key_str(out, "from", f.from);
    if let Some((human_key, slug)) = f.from_project {
        key_str(out, "from_address", &format!("project:{slug}#{}", f.from));
        key_str(out, "from_project", human_key);
        key_str(out, "from_project_slug", slug);
    }
    out.push_str("  \"id\": ");
    let id_at = out.len() - start;
    out.push_str(itoa::Buffer::new().format(f.id));
    let id = id_at..out.len() - start;
    out.push_str(",\n");
    key_str(out, "importance", f.importance);
    key_str(out, "project", f.project);
    key_str(out, "project_slug", f.project_slug);
    // The subject's text as it is: between its quotes, as long as it is.
    let subject_at = out.len() - start + "  \"subject\": \"".len();
    key_str(out, "subject", f.subject);
    let as_is = out.len() - start - ",\n".len() - "\"".len() - subject_at == f.subject.len();
    let subject = as_is.then(|| subject_at..subject_at + f.subject.len());
    match f.thread_id {
        Some(t) => key_str(out, "thread_id", t),
        None => out.push_str("  \"thread_id\": null,\n"),
    }
    key_list(out, "to", &f.to);
    // The last key has no comma.
    out.truncate(out.len() - 2);
    out.push_str("\n}\n---\n\n");
    out.push_str(body);
    out.push('\n');
    Places { id, subject }
}

fn key_str(out: &mut String, key: &str, value: &str) {
    out.push_str("  \"");
    out.push_str(key);
    out.push_str("\": ");
    string(out, value);
    out.push_str(",\n");
}

fn key_list(out: &mut String, key: &str, values: &[&str]) {
    out.push_str("  \"");
    out.push_str(key);
    if values.is_empty() {
        out.push_str("\": [],\n");
        return;
    }
    out.push_str("\": [\n");
    for (i, v) in values.iter().enumerate() {
        out.push_str("    ");
        string(out, v);
        out.push_str(if i + 1 < values.len() { ",\n" } else { "\n" });
    }
    out.push_str("  ],\n");
}

/// A JSON string as serde_json escapes it, then every non-ASCII character
/// as `\uXXXX` (UTF-16 units, lowercase hex), as Python's `ensure_ascii`.
fn string(out: &mut String, s: &str) {
    out.push('"');
    // Nearly every value needs no escape: told by its bytes and copied
    // whole (walked a character at a time, the values were a tenth of an
    // mcp load's instructions beside the parse).
    if s.bytes()
        .all(|b| (b' '..0x80).contains(&b) && b != b'"' && b != b'\\')
    {
        out.push_str(s);
        out.push('"');
        return;
    }
    let mut run = 0;
    for (i, c) in s.char_indices() {
        let plain = c.is_ascii() && c >= ' ' && c != '"' && c != '\\';
        if plain {
            continue;
        }
        out.push_str(&s[run..i]);
        run = i + c.len_utf8();
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            _ => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push_str(&s[run..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use chrono::TimeZone;
    use serde_json::Value;

    use super::*;

    /// The serde path this replaced, kept as the oracle.
    fn by_serde(f: &Fields<'_>) -> String {
        let strings = |v: &[&str]| Value::Array(v.iter().map(|s| Value::from(*s)).collect());
        let mut fm: BTreeMap<&str, Value> = BTreeMap::new();
        fm.insert("ack_required", Value::Bool(f.ack_required));
        fm.insert("attachments", Value::Array(vec![]));
        fm.insert("bcc", strings(&f.bcc));
        fm.insert("cc", strings(&f.cc));
        let created = super::super::timestamps::python_iso(f.created);
        fm.insert("created", Value::String(created));
        fm.insert("from", Value::from(f.from));
        if let Some((human_key, slug)) = f.from_project {
            let address = format!("project:{slug}#{}", f.from);
            fm.insert("from_address", Value::from(address));
            fm.insert("from_project", Value::from(human_key));
            fm.insert("from_project_slug", Value::from(slug));
        }
        fm.insert("id", Value::from(f.id));
        fm.insert("importance", Value::from(f.importance));
        fm.insert("project", Value::from(f.project));
        fm.insert("project_slug", Value::from(f.project_slug));
        fm.insert("subject", Value::from(f.subject));
        fm.insert("thread_id", f.thread_id.map_or(Value::Null, Value::from));
        fm.insert("to", strings(&f.to));
        let json = serde_json::to_string_pretty(&fm).unwrap();
        let mut ascii = String::new();
        for c in json.chars() {
            if c.is_ascii() {
                ascii.push(c);
            } else {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    ascii.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
        format!("---json\n{ascii}\n---\n\n{}\n", f.body_md.trim())
    }

    /// What archive.rs's `escapes_like_python` asserted of the old pass.
    #[test]
    fn escapes_like_python() {
        let mut out = String::new();
        string(&mut out, "\"é😀\"");
        assert_eq!(out, "\"\\\"\\u00e9\\ud83d\\ude00\\\"\"");
    }

    #[test]
    fn same_bytes_as_serde_pretty_with_ascii_escapes() {
        let awkward = "q\"uote\\ back\nnl\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f} é 😀 ü";
        let created = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
        for (subject, to, cc, bcc, thread) in [
            ("plain", vec![], vec![], vec![], None),
            (
                awkward,
                vec!["A"],
                vec!["B", awkward],
                vec!["C"],
                Some(awkward),
            ),
            ("", vec!["A", "B"], vec![], vec![], Some("t-1")),
        ] {
            for (ack_required, from_project) in [
                (false, None),
                (true, None),
                (true, Some(("/data/other é", "data-other"))),
            ] {
                let f = Fields {
                    id: 42,
                    thread_id: thread,
                    project: "/data/proj é",
                    project_slug: "data-proj",
                    from: "BlueLake",
                    from_project,
                    to: to.clone(),
                    cc: cc.clone(),
                    bcc: bcc.clone(),
                    subject,
                    importance: "high",
                    ack_required,
                    created: created + chrono::Duration::microseconds(ack_required as i64 * 7),
                    body_md: "\n  Body: x \u{7f} é\n\n",
                };
                assert_eq!(file(&f), by_serde(&f));
            }
        }
    }

    proptest::proptest! {
        /// Any text in any value (control characters, quotes, backslashes,
        /// DEL, any character; plain ASCII, the fast path, most often) is
        /// written as the serde path wrote it.
        #[test]
        fn any_value_is_written_as_serde_wrote_it(
            subject in proptest::prop_oneof!["(?s).{0,12}", "[ -~]{0,12}", "[\\x00-\\x7f]{0,12}"],
            name in proptest::prop_oneof!["(?s).{0,6}", "[ -~]{0,6}"],
            ack_required in proptest::bool::ANY,
            id in proptest::num::i64::ANY,
        ) {
            let created = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
            let f = Fields {
                id,
                thread_id: Some(&subject),
                project: &name,
                project_slug: "p",
                from: &name,
                from_project: None,
                to: vec![&name, &subject],
                cc: vec![],
                bcc: vec![&name],
                subject: &subject,
                importance: &name,
                ack_required,
                created,
                body_md: "Body",
            };
            proptest::prop_assert_eq!(file(&f), by_serde(&f));
        }

        /// The places `file_into` gives hold the id's digits and, when it
        /// was written without an escape, the subject's text (after
        /// whatever the buffer held before).
        #[test]
        fn places_hold_the_id_and_the_subject_as_written(
            id in proptest::num::i64::ANY,
            subject in proptest::prop_oneof![".{0,20}", "[ -~]{0,20}"],
            before in "[a-z]{0,5}",
        ) {
            let created = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
            let f = Fields {
                id,
                thread_id: None,
                project: "/p",
                project_slug: "p",
                from: "BlueLake",
                from_project: None,
                to: vec!["A"],
                cc: vec![],
                bcc: vec![],
                subject: &subject,
                importance: "normal",
                ack_required: false,
                created,
                body_md: "Body",
            };
            let mut out = before.clone();
            let places = file_into(&f, &mut out);
            let file = &out[before.len()..];
            proptest::prop_assert_eq!(&file[places.id.clone()], id.to_string());
            let mut quoted = String::new();
            string(&mut quoted, &subject);
            match places.subject {
                Some(r) => {
                    proptest::prop_assert_eq!(&file[r], subject.as_str());
                    proptest::prop_assert_eq!(quoted.len(), subject.len() + 2);
                }
                None => proptest::prop_assert_ne!(quoted.len(), subject.len() + 2),
            }
        }
    }
}
