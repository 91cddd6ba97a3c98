//! The event log: one JSON Lines file per UTC day, `events/YYYY-MM-DD.jsonl`,
//! with AOF's line shape `{eventId, type, timestamp, actor, taskId?, payload}`.
//!
//! `eventId`s stay unique across restarts: the next id is one past the
//! highest id already in the log, read from the tail of the newest file
//! while the store lock is held. (AOF restarts its counter at 1 in every
//! process; we do not.) Appends are idempotent for the journal's redo: ids
//! already present at the tail of a file are not written again, and a torn
//! last line from a crash is cut off before appending.

use std::fs;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::fsio;

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
    pub payload: Value,
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

/// Every event in the log, oldest first; lines that are not events are
/// counted and skipped.
pub fn read_all(dir: &Path) -> io::Result<(Vec<Event>, usize)> {
    let mut events = Vec::new();
    let mut bad = 0;
    for file in day_files(dir)? {
        for line in fs::read_to_string(&file)?.lines() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Event>(line) {
                Ok(e) => events.push(e),
                Err(_) => bad += 1,
            }
        }
    }
    events.sort_by_key(|e| e.event_id);
    Ok((events, bad))
}
