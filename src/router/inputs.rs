//! Collecting what `amail route` reads: mail files and AOF/1 envelope files.
//!
//! - An mcp_agent_mail storage root (a directory with `projects/`, or with
//!   `archive/projects/`) contributes only the canonical message copies,
//!   `projects/*/messages/YYYY/MM/*.md` (the per-agent inbox/outbox copies
//!   and thread digests are duplicates), in creation order.
//! - Any other directory contributes every non-hidden file, recursively,
//!   ordered by message time then path.
//! - A file whose every line is an AOF/1 envelope (`AOF/1 {...}` or a JSON
//!   object with `"protocol"`), or whose whole text is one such JSON
//!   object, is routed as envelopes rather than parsed as mail.
//!
//! This walker is deliberately small; the inbox's `source/` module will
//! become the one place that knows mailbox layouts.

use std::fs;
use std::io::{self, Read};
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

fn is_storage_root(dir: &Path) -> Option<PathBuf> {
    if dir.join("projects").is_dir() {
        Some(dir.to_path_buf())
    } else if dir.join("archive/projects").is_dir() {
        Some(dir.join("archive"))
    } else {
        None
    }
}

/// `projects/*/messages/YYYY/MM/*.md` under an mcp_agent_mail root.
fn canonical_copies(root: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let sorted = |p: &Path| -> io::Result<Vec<PathBuf>> {
        let mut v: Vec<PathBuf> = match fs::read_dir(p) {
            Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => vec![],
            Err(e) => return Err(e),
        };
        v.sort();
        Ok(v)
    };
    let is_num = |p: &Path| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
    };
    for project in sorted(&root.join("projects"))? {
        for year in sorted(&project.join("messages"))?
            .into_iter()
            .filter(|p| p.is_dir() && is_num(p))
        {
            for month in sorted(&year)?
                .into_iter()
                .filter(|p| p.is_dir() && is_num(p))
            {
                for f in sorted(&month)? {
                    if f.is_file() && f.extension().is_some_and(|e| e == "md") {
                        out.push(f);
                    }
                }
            }
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut entries: Vec<_> = fs::read_dir(dir)?.filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let path = e.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if !(name.ends_with(".sqlite3")
            || name.ends_with(".db")
            || name.ends_with(".sqlite"))
        {
            out.push(path);
        }
    }
    Ok(())
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
/// routing order.
pub fn collect(paths: &[PathBuf]) -> Result<Vec<Item>, InputError> {
    let mut items = Vec::new();
    let stdin_only = paths.is_empty();
    for p in paths
        .iter()
        .map(|p| p.as_path())
        .chain(stdin_only.then_some(Path::new("-")))
    {
        if p == Path::new("-") {
            let mut buf = Vec::new();
            io::stdin()
                .read_to_end(&mut buf)
                .map_err(|error| InputError {
                    path: p.into(),
                    error,
                })?;
            items_of("<stdin>", &buf, &mut items);
            continue;
        }
        let meta = fs::metadata(p).map_err(|error| InputError {
            path: p.into(),
            error,
        })?;
        let mut files = Vec::new();
        let mcp = meta.is_dir().then(|| is_storage_root(p)).flatten();
        if let Some(root) = &mcp {
            files = canonical_copies(root).map_err(|error| InputError {
                path: root.clone(),
                error,
            })?;
        } else if meta.is_dir() {
            walk(p, &mut files).map_err(|error| InputError {
                path: p.into(),
                error,
            })?;
        } else {
            files.push(p.to_path_buf());
        }
        let mut batch = Vec::new();
        for f in files {
            let bytes = fs::read(&f).map_err(|error| InputError {
                path: f.clone(),
                error,
            })?;
            items_of(&f.display().to_string(), &bytes, &mut batch);
        }
        // Creation order: message time, then (mcp) numeric id, then path.
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
