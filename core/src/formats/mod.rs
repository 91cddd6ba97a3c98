//! The neighbouring protocols' formats: handoff v0.1 directories and A2A
//! task JSON, read as extra sources next to Agent Mail. Parsing only: no
//! file is read here, and nothing here knows the inbox, the bridge or the
//! router.
//!
//! Design (see `docs/protocols.md`):
//! - [`handoff`] and [`a2a`] turn JSON text into typed [`Item`]s plus
//!   [`Diag`]nostics (schema violations, impossible transitions) with
//!   file:line:col. Bad input never panics and never stops the rest loading.
//! - [`classify`] and [`detect`] decide, from the text alone, whether a text
//!   is one of these protocols; [`parse_files`] reads several files
//!   together so transitions are checked across them.
//! - Elsewhere: `inbox::protocol_items` shows each item as a synthetic
//!   Agent Mail message, `bridge::protocol` maps items to what the router
//!   routes.

pub mod a2a;
pub mod handoff;
pub mod pos;

use std::fmt;

use amail_parser::json_pos;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

pub use a2a::{A2aItem, A2aKind, A2aStatus, Priority};
pub use handoff::{Handoff, HandoffStatus};

/// Which protocol a text holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    Handoff,
    A2a,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Handoff => "handoff/0.1",
            Protocol::A2a => "a2a",
        }
    }
}

/// One protocol item read from a file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Item {
    Handoff(Handoff),
    A2a(A2aItem),
}

impl Item {
    pub fn task_id(&self) -> &str {
        match self {
            Item::Handoff(h) => &h.task_id,
            Item::A2a(a) => &a.task_id,
        }
    }
    /// When the item happened (a handoff's `updated_at`, an A2A message's
    /// time).
    pub fn at(&self) -> DateTime<Utc> {
        match self {
            Item::Handoff(h) => h.updated_at,
            Item::A2a(a) => a.at,
        }
    }
    pub fn source(&self) -> &Source {
        match self {
            Item::Handoff(h) => &h.source,
            Item::A2a(a) => &a.source,
        }
    }
}

/// Where an item was read: file and 1-based line of its object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Source {
    pub path: String,
    pub line: u32,
}

/// A problem in a protocol file, located by file, line and column (1-based).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diag {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub code: &'static str,
    pub message: String,
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}: {}",
            self.path, self.line, self.column, self.code, self.message
        )
    }
}

/// What reading one file gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    pub items: Vec<Item>,
    pub diags: Vec<Diag>,
}

/// A JSON object of the text with the line it starts on.
pub struct Obj {
    pub value: Value,
    pub line: u32,
    /// Byte offset of the object's start in the text.
    pub offset: usize,
}

/// What [`objects`] gives: a text's JSON values, or where it is not JSON.
/// Read once a file, for both questions (is it a protocol file, and what
/// does it hold).
pub type Values = Result<Vec<Obj>, (u32, u32, String)>;

/// The JSON values of one file; a file that is not JSON at all becomes one
/// `invalid_json` diagnostic in `out` (and no values).
pub(crate) fn read_objects(path: &str, values: Values, out: &mut Parsed) -> Vec<Obj> {
    values.unwrap_or_else(|(line, column, message)| {
        out.diags.push(Diag {
            path: path.into(),
            line,
            column,
            code: "invalid_json",
            message,
        });
        Vec::new()
    })
}

/// The text as JSON objects: one object, an array of objects, or JSON Lines.
/// `Err` carries (line, column, message) of the first syntax error.
pub fn objects(text: &str) -> Result<Vec<Obj>, (u32, u32, String)> {
    let t = text.trim_start_matches('\u{feff}');
    let skip = text.len() - t.len();
    match serde_json::from_str::<Value>(t) {
        Ok(Value::Array(items)) => {
            let starts = json_pos::array_items(t);
            let mut place = json_pos::Cursor::new(text);
            Ok(items
                .into_iter()
                .enumerate()
                .map(|(i, value)| {
                    let offset = skip + starts.get(i).copied().unwrap_or(0);
                    Obj {
                        value,
                        line: place.at(offset).0,
                        offset,
                    }
                })
                .collect())
        }
        Ok(value) => {
            let offset = skip + (t.len() - t.trim_start().len());
            Ok(vec![Obj {
                value,
                line: pos::line_col(text, offset).0,
                offset,
            }])
        }
        Err(whole) => {
            // JSON Lines: every non-blank line one value.
            let mut out = Vec::new();
            let mut offset = 0;
            for (n, l) in text.split_inclusive('\n').enumerate() {
                if !l.trim().is_empty() {
                    match serde_json::from_str::<Value>(l) {
                        Ok(value) => out.push(Obj {
                            value,
                            line: n as u32 + 1,
                            offset,
                        }),
                        // A first value that is not JSON: the text is not
                        // JSON Lines either; report the whole-text error.
                        Err(_) if out.is_empty() => return Err(at(t, skip, &whole)),
                        Err(e) => {
                            let column = json_pos::error_place(l, &e).1;
                            return Err((n as u32 + 1, column, e.to_string()));
                        }
                    }
                }
                offset += l.len();
            }
            if out.is_empty() {
                return Err(at(t, skip, &whole));
            }
            Ok(out)
        }
    }
}

/// A JSON syntax error of `t` (the text after `skip` bytes of a byte
/// order mark, which is a character of the first line), placed
/// (`json_pos::error_place`).
fn at(t: &str, skip: usize, e: &serde_json::Error) -> (u32, u32, String) {
    let (line, column) = json_pos::error_place(t, e);
    let bom = u32::from(line == 1 && skip > 0);
    (line, column + bom, e.to_string())
}

/// Which protocol an object looks like, if any. AOF/1 envelopes (a
/// `protocol` key) are never ours.
pub fn classify(v: &Value) -> Option<Protocol> {
    let o = v.as_object()?;
    if o.contains_key("protocol") {
        return None;
    }
    if a2a::unwrap(v).is_some() {
        return Some(Protocol::A2a);
    }
    if o.contains_key("from_agent") && o.contains_key("status") && o.contains_key("task_id") {
        return Some(Protocol::Handoff);
    }
    None
}

/// The protocol of the first object that has one.
fn first_protocol(objects: &[Obj]) -> Option<Protocol> {
    objects.iter().find_map(|o| classify(&o.value))
}

/// Whether a text holds at least one handoff or A2A object (the test every
/// reader of mixed mail and protocol files makes).
pub fn holds_items(text: &str) -> bool {
    // Markdown mail is most of what passes here: it cannot open like JSON.
    may_be_protocol(text)
        && objects(text)
            .ok()
            .is_some_and(|o| first_protocol(&o).is_some())
}

/// Whether `text` can hold a protocol object at all: it opens like JSON
/// and may spell `task_id`. Asked before any JSON is read.
fn may_be_protocol(text: &str) -> bool {
    opens_like_json(text) && may_hold_items(text)
}

/// Whether any object of `text` can have a `task_id` key, which every
/// protocol object [`classify`] knows has (itself or in its wrapper): the
/// key written plainly, or some `\u` escape that may spell it. JSON mail
/// has neither, and is then parsed once, by the mail parser, not first
/// into a `Value` here only to be dropped.
fn may_hold_items(text: &str) -> bool {
    let t = text.as_bytes();
    memchr::memmem::find(t, b"task_id").is_some() || memchr::memmem::find(t, b"\\u").is_some()
}

/// Whether `text` opens like JSON (`{` or `[` after a BOM and white
/// space): only such text, or a file under a `.handoffs` folder, can be a
/// protocol file. Decided by the first byte where it is a visible ASCII
/// character (markdown mail: a letter, `#`, `-`), the trims asked only
/// of the rest.
pub fn opens_like_json(text: &str) -> bool {
    match text.as_bytes().first() {
        Some(&b) if b.is_ascii_graphic() => b == b'{' || b == b'[',
        _ => text
            .trim_start_matches('\u{feff}')
            .trim_start()
            .starts_with(['{', '[']),
    }
}

/// A path under a `.handoffs` folder, with either separator. Asked of
/// every mail file `amail parse` reads, so it searches the path as it is
/// instead of copying it to one separator first (`detect` 427 -> 313
/// instructions a file, `amail parse` over 10,000 files under callgrind;
/// a `memchr` of the dots with the bytes after each compared: 291, not
/// worth the harder read). Public for `amail parse`, which asks it once
/// per folder (its paths come folder by folder) and decides most files
/// without [`detect`].
pub fn in_handoff_dir(path: &str) -> bool {
    path.contains(".handoffs/") || path.contains(".handoffs\\")
}

/// Detects and reads a protocol file. `None` when the text is not JSON of
/// one of these protocols (then it is Agent Mail or AOF/1).
pub fn detect(path: &str, text: &str) -> Option<(Protocol, Parsed)> {
    detect_in(path, text, in_handoff_dir(path))
}

/// [`detect`] of a file whose place is known: `in_handoff_dir` when it is
/// one of a mailbox's handoff files, wherever that folder is and whatever
/// its name (`HANDOFF_DIR`), so that broken JSON there is a handoff too.
pub fn detect_in(path: &str, text: &str, in_handoff_dir: bool) -> Option<(Protocol, Parsed)> {
    // Every mail file passes through here before the mail parser: text that
    // does not open like JSON cannot be a protocol item, so skip the JSON
    // attempt for it.
    if !in_handoff_dir && !may_be_protocol(text) {
        return None;
    }
    let (proto, mut parsed) = read_as(path, text, in_handoff_dir)?;
    match proto {
        Protocol::Handoff => handoff::check_transitions(&mut parsed),
        Protocol::A2a => a2a::check_transitions(&mut parsed),
    }
    Some((proto, parsed))
}

/// The protocol a file's JSON is written in (the first item's), with its
/// items read as that protocol's and no transitions checked: `None` for
/// text of neither, unless `in_handoff_dir` (everything in a handoff
/// folder is a handoff, even broken JSON). One reading for [`detect_in`],
/// which checks transitions within the file, and [`parse_files`], which
/// checks them across files.
fn read_as(path: &str, text: &str, in_handoff_dir: bool) -> Option<(Protocol, Parsed)> {
    let values = objects(text);
    let proto = values.as_ref().ok().and_then(|o| first_protocol(o));
    let proto = match (proto, in_handoff_dir) {
        (Some(p), _) => p,
        (None, true) => Protocol::Handoff,
        (None, false) => return None,
    };
    let parsed = match proto {
        Protocol::Handoff => handoff::read_values(path, text, values),
        Protocol::A2a => a2a::read_values(path, text, values),
    };
    Some((proto, parsed))
}

/// A file for [`parse_files`]: its name as messages give it, its text,
/// and whether it is one of the mailbox's handoff files (then even
/// broken JSON is a handoff, a diagnostic: the caller knows the folder,
/// which need not be named `.handoffs`).
#[derive(Debug, Clone)]
pub struct File {
    pub path: String,
    pub text: String,
    pub in_handoff_dir: bool,
}

impl File {
    /// A file found anywhere but a handoff folder (or named by the user),
    /// in a handoff folder when its path says `.handoffs`.
    pub fn named(path: String, text: String) -> Self {
        let in_handoff_dir = in_handoff_dir(&path);
        File {
            path,
            text,
            in_handoff_dir,
        }
    }
}

/// Reads every item of several files together, so transitions are checked
/// across files (a task's snapshots or messages may be spread over them).
pub fn parse_files(files: &[File]) -> Parsed {
    let mut handoffs = Parsed::default();
    let mut a2as = Parsed::default();
    for f in files {
        let Some((proto, p)) = read_as(&f.path, &f.text, f.in_handoff_dir) else {
            continue;
        };
        let target = match proto {
            Protocol::A2a => &mut a2as,
            Protocol::Handoff => &mut handoffs,
        };
        target.items.extend(p.items);
        target.diags.extend(p.diags);
    }
    handoff::check_transitions(&mut handoffs);
    a2a::check_transitions(&mut a2as);
    handoffs.items.extend(a2as.items);
    handoffs.diags.extend(a2as.diags);
    handoffs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_in_a_handoffs_folder_is_a_handoff_with_either_separator() {
        let broken = "{ not json";
        for path in [
            "repo/.handoffs/h1.json",
            "repo\\.handoffs\\h1.json",
            "C:\\repo\\.handoffs/h1.json",
        ] {
            let found = detect(path, broken).map(|(p, _)| p);
            assert_eq!(found, Some(Protocol::Handoff), "{path}");
        }
        for path in ["repo/handoffs/h1.json", "repo/.handoffs.json", "repo\\x.md"] {
            assert!(detect(path, broken).is_none(), "{path}");
        }
    }

    /// JSON mail skips the protocol reading (no `task_id` in it), but a
    /// key spelled with an escape is still read as JSON reads it.
    #[test]
    fn only_text_that_may_spell_task_id_is_read_as_a_protocol_file() {
        let handoff = r#"{"task_id": "t", "from_agent": "a", "status": "offered",
            "description": "x", "created_at": "2026-11-20T09:00:00Z",
            "updated_at": "2026-11-20T09:00:00Z"}"#;
        let escaped = handoff.replace("task_id", "task\\u005fid");
        for text in [handoff, escaped.as_str()] {
            assert!(holds_items(text), "{text}");
            let (proto, parsed) = detect("h.json", text).expect(text);
            assert_eq!(proto, Protocol::Handoff);
            assert_eq!(parsed.items[0].task_id(), "t");
        }
        let mail = r#"{"subject": "[ol-1] PROGRESS", "body_md": "Bead: ol-1\nStep: x"}"#;
        assert!(!may_hold_items(mail));
        assert!(!holds_items(mail) && detect("m.json", mail).is_none());
    }
}
