//! Collecting what `amail route` reads: mail files and AOF/1 envelope files.
//!
//! - An mcp_agent_mail storage root contributes only the canonical message
//!   copies, `projects/*/messages/YYYY/MM/*.md` (the per-agent inbox/outbox
//!   copies and thread digests are duplicates), in creation order.
//! - Any other directory contributes every non-hidden mail file,
//!   recursively, ordered by message time then path.
//! - A file whose every line is an AOF/1 envelope (`AOF/1 {...}` or a JSON
//!   object with `"protocol"`), or whose whole text is one such JSON
//!   object, is routed as envelopes rather than parsed as mail.
//!
//! Finding the files is `source::walk`'s job (shared with `amail parse`);
//! this module decides envelope vs mail and the routing order.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use amail_parser::{parse_bytes, OwnedMessage, ParseOptions};

/// One thing to route, with where it came from.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Item {
    Mail {
        source: String,
        msg: OwnedMessage,
    },
    /// One AOF/1 input as text (a line or a whole file).
    Aof {
        source: String,
        line: u32,
        text: String,
    },
}

impl Item {
    pub fn location(&self) -> String {
        match self {
            Item::Mail { source, msg } => format!("{source}:{}:1", msg.line.max(1)),
            Item::Aof { source, line, .. } => format!("{source}:{line}:1"),
        }
    }
}

/// A file that could not be read.
#[derive(Debug)]
pub struct InputError {
    pub path: PathBuf,
    pub error: io::Error,
}

/// Whether a text holds AOF/1 envelopes rather than mail.
fn aof_lines(text: &str) -> Option<Vec<(u32, String)>> {
    let t = text.trim_start_matches('\u{feff}');
    let looks = |l: &str| {
        let l = l.trim();
        l.starts_with("AOF/1 ") || (l.starts_with('{') && l.contains("\"protocol\""))
    };
    let lines: Vec<(u32, String)> = t
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i as u32 + 1, l.to_string()))
        .collect();
    if !lines.is_empty() && lines.iter().all(|(_, l)| looks(l)) {
        return Some(lines);
    }
    // One pretty-printed envelope.
    let whole = t.trim();
    if whole.starts_with('{') {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(whole) {
            if v.get("protocol").is_some() {
                return Some(vec![(1, whole.to_string())]);
            }
        }
    }
    None
}

fn items_of(source: &str, bytes: &[u8], items: &mut Vec<Item>) {
    if let Ok(text) = std::str::from_utf8(bytes) {
        if let Some(lines) = aof_lines(text) {
            for (line, text) in lines {
                items.push(Item::Aof {
                    source: source.to_string(),
                    line,
                    text,
                });
            }
            return;
        }
    }
    // Lenient parsing never fails; a strict-mode error is impossible here.
    if let Ok(msgs) = parse_bytes(bytes, &ParseOptions::default()) {
        for msg in msgs {
            items.push(Item::Mail {
                source: source.to_string(),
                msg,
            });
        }
    }
}

/// Reads every input under `paths` (`-` or none: standard input), in
/// routing order. An input over `max_bytes` is an error.
pub fn collect(paths: &[PathBuf], max_bytes: u64) -> Result<Vec<Item>, InputError> {
    let mut items = Vec::new();
    let stdin_only = paths.is_empty();
    for p in paths
        .iter()
        .map(|p| p.as_path())
        .chain(stdin_only.then_some(Path::new("-")))
    {
        if p == Path::new("-") {
            let buf =
                crate::fsio::read_limited(io::stdin().lock(), max_bytes).map_err(|error| {
                    InputError {
                        path: p.into(),
                        error,
                    }
                })?;
            items_of("<stdin>", &buf, &mut items);
            continue;
        }
        let meta = fs::metadata(p).map_err(|error| InputError {
            path: p.into(),
            error,
        })?;
        let files = if meta.is_dir() {
            crate::source::walk::mail_files(p).map_err(|error| InputError {
                path: p.into(),
                error,
            })?
        } else {
            vec![p.to_path_buf()]
        };
        let mut batch = Vec::new();
        for f in files {
            let bytes =
                crate::fsio::read_file_limited(&f, max_bytes).map_err(|error| InputError {
                    path: f.clone(),
                    error,
                })?;
            items_of(&f.display().to_string(), &bytes, &mut batch);
        }
        // Creation order: message time, then (mcp_agent_mail) numeric id,
        // then path.
        batch.sort_by_key(sort_key);
        items.extend(batch);
    }
    Ok(items)
}

fn sort_key(item: &Item) -> (Option<i64>, u64, String, u32) {
    match item {
        Item::Mail { source, msg } => (
            Some(
                msg.timestamp
                    .map(|t| t.timestamp_micros())
                    .unwrap_or(i64::MAX),
            ),
            msg.id
                .as_deref()
                .and_then(|i| i.parse().ok())
                .unwrap_or(u64::MAX),
            source.clone(),
            msg.line,
        ),
        // Envelope files keep their own order, after nothing in particular:
        // sorted by path and line.
        Item::Aof { source, line, .. } => (None, 0, source.clone(), *line),
    }
}
