//! The plain mailbox loader's hook for handoff and A2A items: a JSON file
//! of the mailbox that holds such items (the mail parser read it as unknown
//! mail) is replaced by its items, and the handoff folder's files
//! (`root/.handoffs`, or `HANDOFF_DIR` relative to `root`, as
//! `source::walk::mailbox` finds them for every command) are added. How an
//! item looks as a message is the model's (`inbox::protocol_items`);
//! reading the files, and which of the loaded ones hold items, is here.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::formats::{self, parse_files};
use crate::inbox::protocol_items::{raw_type, to_inbox};
use crate::inbox::InboxMessage;

/// A JSON mail file (`.json`, `.jsonl`, `.ndjson`, any case): it may hold
/// handoff or A2A items rather than mail.
pub(crate) fn is_json(p: &Path) -> bool {
    p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["json", "jsonl", "ndjson"]
            .iter()
            .any(|j| e.eq_ignore_ascii_case(j))
    })
}

/// The text of a mailbox JSON file when it holds handoff or A2A items: the
/// loader calls this on the bytes it already read, so [`merge_read`] need
/// not read every JSON file of the mailbox a second time.
pub(crate) fn protocol_text(path: &Path, bytes: &[u8]) -> Option<String> {
    if !is_json(path) {
        return None;
    }
    let text = String::from_utf8_lossy(bytes).into_owned();
    formats::holds_items(&text).then_some(text)
}

/// Replaces the loaded JSON files that hold handoff or A2A items by their
/// items, adds the handoff folder's files (`handoffs`: the walk left the
/// folder out of the mail, so none of them was loaded), and reports
/// protocol diagnostics as problems (`line:col: code: message`). `read`
/// holds the protocol files' text by path, as the loader classified them
/// while reading ([`protocol_text`]); a loaded JSON file not in it is known
/// not to hold protocol items, so only the handoff files are read here
/// (those over `max_bytes` are not).
pub(crate) fn merge_read(
    mut read: HashMap<PathBuf, String>,
    handoffs: &[PathBuf],
    loaded: &mut Vec<InboxMessage>,
    problems: &mut Vec<(PathBuf, String)>,
    max_bytes: u64,
) {
    let mut files: Vec<formats::File> = Vec::new();
    let mut taken: HashSet<PathBuf> = HashSet::new();
    // Filtered before cloning: a big mailbox has no JSON at all.
    let mut candidates: Vec<PathBuf> = loaded
        .iter()
        .filter_map(|m| m.path.as_deref())
        .filter(|p| is_json(p) && read.contains_key(*p))
        .map(Path::to_path_buf)
        .collect();
    // In path order, whatever order the loader read them in: the items'
    // keys are made unique in this order.
    candidates.sort();
    candidates.dedup();
    for p in candidates {
        let Some(text) = read.remove(&p) else {
            continue;
        };
        if !taken.insert(p.canonicalize().unwrap_or_else(|_| p.clone())) {
            continue;
        }
        // Keep the path as the loader spelled it so removal matches.
        loaded.retain(|m| m.path.as_deref() != Some(p.as_path()));
        files.push(formats::File::named(p.display().to_string(), text));
    }
    for p in handoffs {
        // A link to a file read above is read once.
        if !taken.insert(p.canonicalize().unwrap_or_else(|_| p.clone())) {
            continue;
        }
        let Ok(bytes) = crate::fsio::read_file_limited(p, max_bytes) else {
            continue;
        };
        files.push(formats::File {
            path: p.display().to_string(),
            text: String::from_utf8_lossy(&bytes).into_owned(),
            in_handoff_dir: true,
        });
    }
    if files.is_empty() {
        return;
    }
    let parsed = parse_files(&files);
    let mut keys: HashSet<String> = loaded.iter().map(|m| m.key.to_string()).collect();
    for (n, item) in parsed.items.iter().enumerate() {
        let base = format!(
            "{}:{}@{}",
            raw_type(item).to_ascii_lowercase(),
            item.task_id(),
            item.at().timestamp_millis()
        );
        let mut key = base.clone();
        if keys.contains(&key) {
            key = format!("{base}#{n}");
        }
        keys.insert(key.clone());
        loaded.push(to_inbox(item, key));
    }
    for d in parsed.diags {
        problems.push((
            PathBuf::from(&d.path),
            format!("{}:{}: {}: {}", d.line, d.column, d.code, d.message),
        ));
    }
}
