//! Collecting what `amail route` reads, each file read and classified once:
//! handoff or A2A JSON, AOF/1 envelopes, or Agent Mail.
//!
//! - An mcp_agent_mail storage root contributes only the canonical message
//!   copies, `projects/*/messages/YYYY/MM/*.md` (the per-agent inbox/outbox
//!   copies and thread digests are duplicates), in creation order.
//! - Any other directory contributes every non-hidden mail file,
//!   recursively, ordered by message time then path, plus its handoff
//!   folder's files (`.handoffs/`, or `HANDOFF_DIR`: [`walk::mailbox`],
//!   which leaves the folder out of the mail).
//! - A file is, in this order: protocol items when it is JSON holding a
//!   handoff or A2A object (or lies in a handoff directory, where even
//!   broken JSON is a handoff, reported as a diagnostic); AOF/1 envelopes
//!   when every line is one (`AOF/1 {...}` or a JSON object with
//!   `"protocol"`), or its whole text is one such JSON object; Agent Mail
//!   otherwise.
//!
//! A binary file (or standard input) is not read as anything: it is listed
//! in [`Inputs::skipped`] by the one rule every command applies
//! ([`crate::source::files::not_mail`]).
//!
//! Protocol items are read together at the end, so a task's transitions are
//! checked across files, and come first, in time order: an offer is routed
//! before the mail that reports on its work.

use std::io;
use std::path::{Path, PathBuf};

use amail_parser::{parse_bytes, OwnedMessage, ParseOptions};

use crate::formats::{self, Diag};
use crate::source::walk;

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
    /// One handoff or A2A item.
    Protocol(formats::Item),
}

impl Item {
    /// `file:line:col` of the item, for messages about it.
    pub fn location(&self) -> String {
        match self {
            Item::Mail { source, msg } => format!("{source}:{}:1", msg.line.max(1)),
            Item::Aof { source, line, .. } => format!("{source}:{line}:1"),
            Item::Protocol(p) => format!("{}:{}:1", p.source().path, p.source().line),
        }
    }
}

/// Everything read, in routing order, and the protocol files' diagnostics
/// (each one an input that is not routed).
#[derive(Debug, Default)]
pub struct Inputs {
    pub items: Vec<Item>,
    pub diags: Vec<Diag>,
    /// Files (or standard input, `<stdin>`) that are not mail, with why
    /// ([`crate::source::files::not_mail`]): skipped, for the caller to
    /// report.
    pub skipped: Vec<(String, &'static str)>,
}

/// How to read.
#[derive(Debug, Clone)]
pub struct InputOptions {
    /// The largest file (or standard input) read, in bytes.
    pub max_bytes: u64,
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

/// What one file is.
enum Class {
    /// Handoff or A2A: its text, read with the other protocol files.
    Protocol(String),
    Aof(Vec<(u32, String)>),
    Mail,
}

/// `json_only`: only a JSON file name can hold protocol items (as in a
/// walked directory); a file named on the command line may have any name.
/// `in_handoff_dir`: everything there is a handoff.
fn classify(path: &Path, bytes: &[u8], json_only: bool, in_handoff_dir: bool) -> Class {
    let may_be_protocol = in_handoff_dir
        || !json_only
        || path
            .extension()
            .is_some_and(|e| e == "json" || e == "jsonl" || e == "ndjson");
    if may_be_protocol {
        let text = String::from_utf8_lossy(bytes);
        if in_handoff_dir || formats::holds_items(&text) {
            return Class::Protocol(text.into_owned());
        }
    }
    if let Some(text) = amail_parser::as_text(bytes) {
        if let Some(lines) = aof_lines(text) {
            return Class::Aof(lines);
        }
    }
    Class::Mail
}

fn mail_items(source: &str, bytes: &[u8], items: &mut Vec<Item>) {
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

/// Files the protocol reader takes together, and the paths already seen
/// (a file named twice, or a handoff that is a link to a mailbox file).
#[derive(Default)]
struct ProtocolFiles {
    files: Vec<formats::File>,
    seen: std::collections::HashSet<PathBuf>,
    /// Inputs that are not mail (binary), with why.
    skipped: Vec<(String, &'static str)>,
}

/// Reads every input under `paths` (`-` or none: standard input), in
/// routing order.
pub fn collect(paths: &[PathBuf], opts: &InputOptions) -> Result<Inputs, InputError> {
    let mut items = Vec::new();
    let mut protocol = ProtocolFiles::default();
    let stdin_only = paths.is_empty();
    let read = |f: &Path| {
        crate::fsio::read_file_limited(f, opts.max_bytes).map_err(|error| InputError {
            path: f.to_path_buf(),
            error,
        })
    };
    for p in paths
        .iter()
        .map(|p| p.as_path())
        .chain(stdin_only.then_some(Path::new("-")))
    {
        if p == Path::new("-") {
            // Named as every other command names it (`-` is what was typed).
            let buf = crate::fsio::read_stdin(opts.max_bytes).map_err(|error| InputError {
                path: "<stdin>".into(),
                error,
            })?;
            classify_into(
                "<stdin>",
                Path::new("-"),
                &buf,
                false,
                false,
                &mut items,
                &mut protocol,
            );
            continue;
        }
        let meta = std::fs::metadata(p).map_err(|error| InputError {
            path: p.into(),
            error,
        })?;
        let mut batch = Vec::new();
        if meta.is_dir() {
            let found = walk::mailbox(p).map_err(|error| InputError {
                path: p.into(),
                error,
            })?;
            // The folder that could not be listed is named, not `p`.
            if let Some(problem) = found.problems.into_iter().next() {
                return Err(InputError {
                    path: problem.path,
                    error: problem.error,
                });
            }
            for (i, f) in found.files.iter().enumerate() {
                let in_handoff_dir = i < found.handoffs;
                let bytes = read(f)?;
                classify_into(
                    &f.display().to_string(),
                    f,
                    &bytes,
                    true,
                    in_handoff_dir,
                    &mut batch,
                    &mut protocol,
                );
            }
        } else {
            let bytes = read(p)?;
            classify_into(
                &p.display().to_string(),
                p,
                &bytes,
                false,
                false,
                &mut batch,
                &mut protocol,
            );
        }
        // Creation order: message time, then (mcp_agent_mail) numeric id,
        // then path.
        batch.sort_by_key(sort_key);
        items.extend(batch);
    }
    let parsed = formats::parse_files(&protocol.files);
    let mut found = parsed.items;
    found.sort_by_key(|i| (i.at(), i.source().path.clone(), i.source().line));
    let mut all: Vec<Item> = found.into_iter().map(Item::Protocol).collect();
    all.extend(items);
    Ok(Inputs {
        items: all,
        diags: parsed.diags,
        skipped: protocol.skipped,
    })
}

fn classify_into(
    name: &str,
    path: &Path,
    bytes: &[u8],
    json_only: bool,
    in_handoff_dir: bool,
    items: &mut Vec<Item>,
    protocol: &mut ProtocolFiles,
) {
    if let Some(why) = crate::source::files::not_mail(bytes) {
        protocol.skipped.push((name.to_string(), why));
        return;
    }
    match classify(path, bytes, json_only, in_handoff_dir) {
        Class::Protocol(text) => {
            let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
            if protocol.seen.insert(key) {
                let mut file = formats::File::named(name.to_string(), text);
                file.in_handoff_dir |= in_handoff_dir;
                protocol.files.push(file);
            }
        }
        Class::Aof(lines) => {
            for (line, text) in lines {
                items.push(Item::Aof {
                    source: name.to_string(),
                    line,
                    text,
                });
            }
        }
        Class::Mail => mail_items(name, bytes, items),
    }
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
        Item::Protocol(p) => (None, 0, p.source().path.clone(), p.source().line),
    }
}
