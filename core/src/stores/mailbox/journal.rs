//! The ack journal of a plain mailbox: `.amail-acks.jsonl` in the mailbox
//! root, one JSON object per line, append-only.
//!
//! Why a journal and not an edit of the mail file: mail files belong to the
//! agents that wrote them and may be watched or re-read; appending a line is
//! the one write that can never lose or corrupt what is already there. A
//! torn last line (a crash mid-append) is reported as a problem and skipped;
//! the next append cuts it off (that ack never completed nor was reported).
//!
//! Appends take an exclusive advisory lock on the journal, re-read it under
//! the lock and write only when the (message, agent) pair is not there yet,
//! so two `amail ack` processes never record the same ack twice. A batch
//! ([`append_many`]: "ack these twelve") is one lock, one write and one
//! fsync: the journal's form of one transaction.
//!
//! A line without `ack_at` records a read only (mark read without
//! acknowledging); a later ack of the pair still records, and the pair
//! then reads as acked at the ack's time and read at the earlier read's.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, SecondsFormat, Utc};
use fs4::FileExt;
use serde::{Deserialize, Serialize};

use crate::inbox::{AckTimes, Acks};
use crate::stores::error::Error;
use crate::utf8_text;

/// The journal's file name inside the mailbox root (hidden, so the mail
/// walker never takes it for mail).
pub(crate) const JOURNAL_FILE: &str = ".amail-acks.jsonl";

/// One recorded ack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// The inbox key of the message (`amail ack` takes it).
    pub key: String,
    /// The message's own id, when it had one (survives a rename of the file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub agent: String,
    /// `None`: a read only (the message was marked read, not acknowledged).
    #[serde(default)]
    pub ack_at: Option<DateTime<Utc>>,
    /// An ack also marks the message read, as mcp_agent_mail does.
    pub read_at: DateTime<Utc>,
}

pub fn journal_path(root: &Path) -> PathBuf {
    root.join(JOURNAL_FILE)
}

/// The recorded acks by (key, agent); the first entry for a pair wins. Bad
/// lines become problems (path, "line N: why").
pub fn read(root: &Path) -> (Acks, Vec<(PathBuf, String)>) {
    let path = journal_path(root);
    let mut problems = Vec::new();
    let acks = match File::open(&path) {
        Ok(f) => read_from(BufReader::new(f), &path, &mut problems),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Acks::new(),
        Err(e) => {
            problems.push((path, format!("cannot read the ack journal: {e}")));
            Acks::new()
        }
    };
    (acks, problems)
}

fn read_from(r: impl BufRead, path: &Path, problems: &mut Vec<(PathBuf, String)>) -> Acks {
    let mut acks = Acks::new();
    entries(r, path, problems, |e| merge(&mut acks, &e));
    acks
}

/// Folds one entry into the pairs' state: the first ack and the first
/// read of a pair are the ones in effect.
fn merge(acks: &mut Acks, e: &JournalEntry) {
    let t = acks
        .entry((e.key.clone(), e.agent.clone()))
        .or_insert(AckTimes {
            read_at: e.read_at,
            ack_at: e.ack_at,
        });
    if t.ack_at.is_none() {
        t.ack_at = e.ack_at;
    }
    t.read_at = t.read_at.min(e.read_at);
}

/// Every well-formed entry, in file order.
fn entries(
    mut r: impl BufRead,
    path: &Path,
    problems: &mut Vec<(PathBuf, String)>,
    mut each: impl FnMut(JournalEntry),
) {
    let mut line = Vec::new();
    for n in 0.. {
        line.clear();
        match r.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                problems.push((path.to_path_buf(), format!("line {}: {e}", n + 1)));
                break;
            }
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // Placed by the file's line and column, as every problem is.
        let (column, why) = match (
            utf8_text::NotUtf8::find(&line),
            serde_json::from_slice(&line),
        ) {
            (None, Ok(e)) => {
                each(e);
                continue;
            }
            (Some(at), _) => (at.column, at.what()),
            (None, Err(e)) => utf8_text::json_line_error(&String::from_utf8_lossy(&line), &e),
        };
        problems.push((
            path.to_path_buf(),
            format!("{}:{column}: not an ack record: {why}; skipped", n + 1),
        ));
    }
}

/// Appends `entry` unless its (key, agent) pair is already recorded.
/// Returns the entry in effect: the new one, or the one already there.
pub fn append(root: &Path, entry: JournalEntry) -> Result<(JournalEntry, bool), Error> {
    let mut out = append_many(root, vec![entry])?;
    Ok(out.remove(0))
}

/// Appends each of `entries` that records something new for its (key,
/// agent) pair (an ack where none was recorded, a read where nothing
/// was), under one lock with one write and one fsync. Returns, in order,
/// each pair's state in effect afterwards and whether it changed.
pub fn append_many(
    root: &Path,
    entries: Vec<JournalEntry>,
) -> Result<Vec<(JournalEntry, bool)>, Error> {
    let path = journal_path(root);
    let mut f = OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    FileExt::lock(&f).map_err(|e| Error::io(&path, e))?;
    let result = (|| {
        f.seek(SeekFrom::Start(0))
            .map_err(|e| Error::io(&path, e))?;
        let mut ignored = Vec::new();
        // The pairs as recorded (only those the batch names), then as the
        // batch changes them.
        let wanted: std::collections::HashSet<(&str, &str)> = entries
            .iter()
            .map(|e| (e.key.as_str(), e.agent.as_str()))
            .collect();
        let mut state = Acks::new();
        self::entries(BufReader::new(&f), &path, &mut ignored, |e| {
            if wanted.contains(&(e.key.as_str(), e.agent.as_str())) {
                merge(&mut state, &e);
            }
        });
        let mut out = Vec::with_capacity(entries.len());
        let mut lines = String::new();
        for entry in entries {
            let pair = (entry.key.clone(), entry.agent.clone());
            let changed = match (state.get(&pair), entry.ack_at) {
                (None, _) => true,
                (Some(t), Some(_)) => t.ack_at.is_none(),
                (Some(_), None) => false,
            };
            if changed {
                let mut line = serde_json::to_string(&JsonLine::from(&entry))
                    .map_err(|e| Error::Invalid(e.to_string()))?;
                line.push('\n');
                lines.push_str(&line);
                merge(&mut state, &entry);
            }
            let t = state[&pair];
            out.push((
                JournalEntry {
                    ack_at: t.ack_at,
                    read_at: t.read_at,
                    ..entry
                },
                changed,
            ));
        }
        if lines.is_empty() {
            return Ok(out);
        }
        let len = f.metadata().map_err(|e| Error::io(&path, e))?.len();
        if len > 0 && !ends_with_newline(&mut f, len) {
            // A previous crash tore the last line: cut it off (it never
            // completed) so the journal stays one record per line.
            let keep = complete_prefix(&mut f).map_err(|e| Error::io(&path, e))?;
            f.set_len(keep).map_err(|e| Error::io(&path, e))?;
        }
        let crash = crate::fsio::crash_point;
        crash();
        // Written in two halves under the crash hook, so a test can leave
        // a torn line (what a kill mid-write leaves).
        let (a, b) = lines.as_bytes().split_at(lines.len() / 2);
        f.write_all(a).map_err(|e| Error::io(&path, e))?;
        crash();
        f.write_all(b).map_err(|e| Error::io(&path, e))?;
        crash();
        f.sync_all().map_err(|e| Error::io(&path, e))?;
        crash();
        Ok(out)
    })();
    let _ = FileExt::unlock(&f);
    result
}

/// The length of the file up to and including its last newline.
fn complete_prefix(f: &mut File) -> std::io::Result<u64> {
    use std::io::Read;
    f.seek(SeekFrom::Start(0))?;
    let mut all = Vec::new();
    f.read_to_end(&mut all)?;
    Ok(all
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i as u64 + 1))
}

fn ends_with_newline(f: &mut File, len: u64) -> bool {
    use std::io::Read;
    let mut b = [0u8; 1];
    f.seek(SeekFrom::Start(len - 1)).is_ok() && f.read_exact(&mut b).is_ok() && b[0] == b'\n'
}

/// The on-disk line: timestamps as RFC 3339 UTC with microseconds.
#[derive(Serialize)]
struct JsonLine<'a> {
    key: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    agent: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ack_at: Option<String>,
    read_at: String,
}

impl<'a> From<&'a JournalEntry> for JsonLine<'a> {
    fn from(e: &'a JournalEntry) -> Self {
        JsonLine {
            key: &e.key,
            id: e.id.as_deref(),
            agent: &e.agent,
            ack_at: e
                .ack_at
                .map(|t| t.to_rfc3339_opts(SecondsFormat::Micros, true)),
            read_at: e.read_at.to_rfc3339_opts(SecondsFormat::Micros, true),
        }
    }
}
