//! The event log: one JSON Lines file per UTC day, `events/YYYY-MM-DD.jsonl`,
//! with AOF's line shape `{eventId, type, timestamp, actor, taskId?, payload}`.
//!
//! `eventId`s stay unique across restarts: the next id is one past the
//! highest id already in the log, read from the tail of the newest file
//! while the store lock is held. (AOF restarts its counter at 1 in every
//! process; we do not.) Appends are idempotent for the journal's redo: ids
//! already present at the tail of a file are not written again, and a torn
//! last line from a crash is cut off before appending.

use std::fmt;
use std::fs;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::{fsio, utf8_text};

/// One logged event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    pub event_id: u64,
    #[serde(rename = "type")]
    pub kind: String,
    pub timestamp: String,
    pub actor: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    #[serde(default)]
    pub payload: EventPayload,
}

/// An event's payload as JSON text, its keys in the order they were
/// written. AOF's lines carry the keys in the order its code builds each
/// payload (`{"from":…,"to":…,"reason":…}`), and a `serde_json::Value`
/// sorts them: amail builds payloads from structs declared in AOF's order
/// (`router::payloads`) and keeps the text from then on, through the
/// write-ahead log and when a line AOF wrote is read back and printed
/// (`amail events --json`), nested objects included. serde_json's
/// `preserve_order` would do the same for every `Value` in the workspace,
/// reordering the parser's, the mail stores' and the remote client's JSON
/// with it.
#[derive(Clone, Default)]
pub struct EventPayload {
    /// Compact JSON; `None` is `null` (a line without a payload).
    text: Option<Box<str>>,
    /// `text` parsed, on first look (tests and the CLI read fields).
    value: OnceLock<Value>,
}

impl EventPayload {
    /// The payload `p` serialises to, keys in its field order.
    pub fn of<T: Serialize + ?Sized>(p: &T) -> EventPayload {
        EventPayload {
            text: serde_json::to_string(p).ok().map(String::into_boxed_str),
            value: OnceLock::new(),
        }
    }

    /// The JSON text, exactly as it is written to the log.
    pub fn as_str(&self) -> &str {
        self.text.as_deref().unwrap_or("null")
    }

    /// The payload as a `Value` (keys sorted: compare, do not print).
    pub fn value(&self) -> &Value {
        self.value
            .get_or_init(|| serde_json::from_str(self.as_str()).unwrap_or(Value::Null))
    }

    /// A member of an object payload.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.value().get(key)
    }
}

impl<'a> std::ops::Index<&'a str> for EventPayload {
    type Output = Value;
    /// `Value`'s indexing: `Null` for a missing key.
    fn index(&self, key: &'a str) -> &Value {
        &self.value()[key]
    }
}

/// Same text, same key order.
impl PartialEq for EventPayload {
    fn eq(&self, other: &EventPayload) -> bool {
        self.as_str() == other.as_str()
    }
}

/// Same JSON value, whatever the key order.
impl PartialEq<Value> for EventPayload {
    fn eq(&self, other: &Value) -> bool {
        self.value() == other
    }
}

impl fmt::Debug for EventPayload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for EventPayload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for EventPayload {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match RawValue::from_string(self.as_str().to_string()) {
            Ok(raw) => raw.serialize(s),
            Err(e) => Err(serde::ser::Error::custom(e)),
        }
    }
}

impl<'de> Deserialize<'de> for EventPayload {
    /// Rewrites whatever value comes as compact JSON in the order it
    /// arrives. Works inside the write-ahead log's internally tagged steps,
    /// which serde buffers (a `RawValue` cannot be read from a buffer).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<EventPayload, D::Error> {
        let mut text = String::new();
        Transcribe(&mut text).deserialize(d)?;
        Ok(EventPayload {
            text: Some(text.into_boxed_str()),
            value: OnceLock::new(),
        })
    }
}

/// Writes the value it is given to the string as compact JSON.
struct Transcribe<'a>(&'a mut String);

impl Transcribe<'_> {
    fn push_json<T: Serialize + ?Sized, E: de::Error>(self, v: &T) -> Result<(), E> {
        self.0
            .push_str(&serde_json::to_string(v).map_err(E::custom)?);
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Transcribe<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Transcribe<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.push_json(&v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.push_json(&v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.push_json(&v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.push_json(&v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.push_json(v)
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.push_str("null");
        Ok(())
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.push('[');
        let mut first = true;
        loop {
            let at = self.0.len();
            if !first {
                self.0.push(',');
            }
            if seq.next_element_seed(Transcribe(&mut *self.0))?.is_none() {
                self.0.truncate(at);
                break;
            }
            first = false;
        }
        self.0.push(']');
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.0.push('{');
        let mut first = true;
        while let Some(key) = map.next_key::<String>()? {
            if !first {
                self.0.push(',');
            }
            first = false;
            self.0
                .push_str(&serde_json::to_string(&key).map_err(de::Error::custom)?);
            self.0.push(':');
            map.next_value_seed(Transcribe(&mut *self.0))?;
        }
        self.0.push('}');
        Ok(())
    }
}

impl Event {
    /// The day file this event belongs to.
    pub fn file_name(&self) -> String {
        let day = self.timestamp.get(..10).unwrap_or("1970-01-01");
        format!("{day}.jsonl")
    }
}

/// Day files in name (= date) order; the `events.jsonl` symlink is skipped.
pub fn day_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let rd = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(files),
        Err(e) => return Err(e),
    };
    for entry in rd {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.ends_with(".jsonl") && name != "events.jsonl" && entry.file_type()?.is_file() {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}

/// The last `n` bytes of a file, from the first line start inside them.
fn tail(path: &Path, n: u64) -> io::Result<String> {
    let mut f = fs::File::open(path)?;
    let len = f.metadata()?.len();
    let start = len.saturating_sub(n);
    f.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::new();
    f.read_to_end(&mut buf)?;
    let text = String::from_utf8_lossy(&buf).into_owned();
    if start > 0 {
        // Drop the partial first line.
        return Ok(text
            .split_once('\n')
            .map(|(_, r)| r.to_string())
            .unwrap_or_default());
    }
    Ok(text)
}

fn max_id_in(text: &str) -> Option<u64> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v.get("eventId").and_then(Value::as_u64))
        .max()
}

/// The id of the last complete line of a file. Ids only grow within a
/// file (appends happen under the store lock), so this is its highest.
/// Reads a few KiB from the end, more only for an unusually long line.
fn last_id_in_file(path: &Path) -> io::Result<Option<u64>> {
    for window in [4 * 1024, 64 * 1024] {
        let text = tail(path, window)?;
        let complete = &text[..text.rfind('\n').map(|p| p + 1).unwrap_or(0)];
        if let Some(last) = complete.lines().rev().find(|l| !l.trim().is_empty()) {
            if let Some(id) = max_id_in(last) {
                return Ok(Some(id));
            }
        }
    }
    // Fall back to any id in the tail (a damaged last line).
    Ok(max_id_in(&tail(path, 64 * 1024)?))
}

/// The highest `eventId` in the log (0 when empty).
pub(crate) fn last_event_id(dir: &Path) -> io::Result<u64> {
    for file in day_files(dir)?.iter().rev() {
        if let Some(id) = last_id_in_file(file)? {
            return Ok(id);
        }
    }
    Ok(0)
}

/// Appends events, skipping ids already at the tail of their day file.
/// Returns the files written; fsyncs them only when `durable`.
pub fn append(dir: &Path, events: &[Event], durable: bool) -> io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let mut i = 0;
    while i < events.len() {
        let name = events[i].file_name();
        let mut j = i;
        while j < events.len() && events[j].file_name() == name {
            j += 1;
        }
        let path = dir.join(&name);
        append_to(&path, &events[i..j], durable)?;
        written.push(path);
        i = j;
    }
    Ok(written)
}

fn append_to(path: &Path, events: &[Event], durable: bool) -> io::Result<()> {
    let mut f = fsio::open_append(path)?;
    let len = f.metadata()?.len();
    let mut present = 0;
    if len > 0 {
        // Work on raw bytes so the arithmetic holds even if the file holds
        // invalid UTF-8.
        let mut r = fs::File::open(path)?;
        r.seek(SeekFrom::Start(len - 1))?;
        let mut last = [0u8; 1];
        r.read_exact(&mut last)?;
        if last[0] != b'\n' {
            // A torn line from an interrupted append: cut it off.
            let start = len.saturating_sub(64 * 1024);
            r.seek(SeekFrom::Start(start))?;
            let mut buf = Vec::new();
            r.read_to_end(&mut buf)?;
            let cut = buf
                .iter()
                .rposition(|b| *b == b'\n')
                .map(|p| p + 1)
                .unwrap_or(0);
            f.set_len(start + cut as u64)?;
        }
        present = last_id_in_file(path)?.unwrap_or(0);
    }
    let mut out = String::new();
    for e in events.iter().filter(|e| e.event_id > present) {
        out.push_str(&serde_json::to_string(e).map_err(io::Error::other)?);
        out.push('\n');
    }
    if out.is_empty() {
        return Ok(());
    }
    fsio::crash_point();
    f.write_all(out.as_bytes())?;
    if durable {
        f.sync_all()?;
        if len == 0 {
            fsio::sync_dir(fsio::parent_of(path))?;
        }
    }
    Ok(())
}

/// Points `events.jsonl` at the newest day file, as AOF does (a relative
/// symlink, replaced atomically; readers skip it). Unix only.
pub(crate) fn link_latest(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        let Some(latest) = day_files(dir)?.pop() else {
            return Ok(());
        };
        let Some(name) = latest.file_name() else {
            return Ok(());
        };
        let link = dir.join("events.jsonl");
        if fs::read_link(&link).ok().as_deref() == Some(Path::new(name)) {
            return Ok(());
        }
        let tmp = dir.join(".amail-tmp-events-link");
        let _ = fs::remove_file(&tmp);
        std::os::unix::fs::symlink(name, &tmp)?;
        fs::rename(&tmp, &link)?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// A line of the log that is not an event: where it is and why, as
/// `amail events` warns of it and `amail doctor` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAnEvent {
    pub file: PathBuf,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    /// serde's reason without its own place, or the byte that is not UTF-8.
    pub why: String,
}

impl fmt::Display for NotAnEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: not an event: {}",
            self.file.display(),
            self.line,
            self.column,
            self.why
        )
    }
}

/// Line `n` of `file` (as [`utf8_text::lines`] hands it) read as an
/// event: `None` for a blank line, else the event or where in the line
/// and why it is not one. The one reading of a log line, for the reader
/// and the doctor alike.
pub fn event_at(
    file: &Path,
    n: usize,
    line: Result<&str, utf8_text::NotUtf8>,
) -> Option<Result<Event, NotAnEvent>> {
    let (column, why) = match line {
        Ok(line) if line.trim().is_empty() => return None,
        Ok(line) => match serde_json::from_str::<Event>(line) {
            Ok(e) => return Some(Ok(e)),
            Err(e) => utf8_text::json_line_error(line, &e),
        },
        Err(at) => (at.column, at.what()),
    };
    Some(Err(NotAnEvent {
        file: file.to_path_buf(),
        line: n,
        column,
        why,
    }))
}

/// Every event in the log, oldest first, and the lines that are not
/// events (one that is not UTF-8 among them: a torn append), skipped.
pub fn read_all(dir: &Path) -> io::Result<(Vec<Event>, Vec<NotAnEvent>)> {
    let mut events = Vec::new();
    let mut bad = Vec::new();
    for file in day_files(dir)? {
        for (n, line) in utf8_text::lines(&fs::read(&file)?) {
            match event_at(&file, n, line) {
                Some(Ok(e)) => events.push(e),
                Some(Err(not)) => bad.push(not),
                None => {}
            }
        }
    }
    events.sort_by_key(|e| e.event_id);
    Ok((events, bad))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"eventId":1,"type":"x","timestamp":"2026-11-22T03:13:33.973Z","actor":"a","payload":{"z":[1,-2,2.5,true,null,{"y":"\"\n\u0001é","b":{}}],"a":[]}}"#;

    /// Any payload comes back as the text it was: keys in their order at
    /// every depth, numbers, escapes and empty containers as written.
    #[test]
    fn a_payload_is_read_back_as_written() {
        let e: Event = serde_json::from_str(LINE).unwrap();
        assert_eq!(serde_json::to_string(&e).unwrap(), LINE);
        assert_eq!(e.payload["z"][2], 2.5);
        assert_eq!(e.payload["missing"], Value::Null);
    }

    /// The write-ahead log's steps are an internally tagged enum, which
    /// serde reads through a buffer: the order survives that too.
    #[test]
    fn a_payload_survives_an_internally_tagged_enum() {
        #[derive(Serialize, Deserialize)]
        #[serde(tag = "op")]
        enum Step {
            Events { events: Vec<Event> },
        }
        let e: Event = serde_json::from_str(LINE).unwrap();
        let text = serde_json::to_string(&Step::Events { events: vec![e] }).unwrap();
        let Step::Events { events } = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&events[0]).unwrap(), LINE);
    }
}
